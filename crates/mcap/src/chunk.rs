//! Chunk decompression (none, lz4 frame, zstd), bounded by the declared
//! uncompressed size, and the chunk CRC check; chunks above
//! [`STREAM_CHUNK_ABOVE`] are read incrementally by the readers.

use std::io::Read;

use bytes::Bytes;
use logcore::Payload;

use crate::error::{Error, Result};
use crate::records::{Chunk, Record};

pub use logcore::DEFAULT_MAX_CHUNK_SIZE;

/// A chunk's records after decompression: borrowed from the file when the
/// chunk is stored uncompressed, else an owned shared buffer.
#[derive(Debug, Clone)]
pub enum ChunkRecords<'a> {
    /// Uncompressed chunk: a slice of the file.
    Borrowed(&'a [u8]),
    /// Decompressed bytes.
    Shared(Bytes),
}

impl ChunkRecords<'_> {
    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        match self {
            ChunkRecords::Borrowed(b) => b,
            ChunkRecords::Shared(b) => b,
        }
    }
}

/// Decompresses a chunk and checks its CRC (when non-zero and `check_crc`).
/// `offset` is the Chunk record's absolute offset, for errors.
///
/// Output never exceeds `uncompressed_size`, which is refused above
/// `max_size`; the buffer grows with what the decoder really produces, so a
/// lying size costs no memory up front.
pub fn decompress<'a>(
    chunk: &Chunk<'a>,
    offset: u64,
    check_crc: bool,
    max_size: u64,
) -> Result<ChunkRecords<'a>> {
    decompress_into(chunk, offset, check_crc, max_size, Vec::new())
}

/// [`decompress`] into `spare`'s allocation (a buffer whose pages are in
/// memory already; what it holds is overwritten).
pub(crate) fn decompress_into<'a>(
    chunk: &Chunk<'a>,
    offset: u64,
    check_crc: bool,
    max_size: u64,
    spare: Vec<u8>,
) -> Result<ChunkRecords<'a>> {
    let declared = chunk.uncompressed_size;
    if declared > max_size {
        return Err(logcore::limits::chunk_too_large(offset, declared, max_size));
    }
    let out = match (&chunk.records, chunk.compression.as_str()) {
        (Payload::Borrowed(b), "") => ChunkRecords::Borrowed(b),
        (Payload::Shared(b), "") => ChunkRecords::Shared(b.clone()),
        (src, codec) => ChunkRecords::Shared(decode(codec, src, declared, offset, spare)?),
    };
    verify(out.as_slice(), chunk, offset, check_crc)?;
    Ok(out)
}

/// The compressed records of `src` (codec `codec`, declaring `declared`
/// bytes), decoded; the codec's part of [`decompress`].
fn decode(codec: &str, src: &[u8], declared: u64, offset: u64, spare: Vec<u8>) -> Result<Bytes> {
    match codec {
        "zstd" => match zstd_bulk(src, declared, spare) {
            Some(out) => Ok(out),
            None => {
                let dec = zstd::stream::read::Decoder::with_buffer(src)
                    .map_err(|e| codec_error(offset, "zstd", &e))?;
                read_bounded(dec, declared, src.len(), offset, "zstd")
            }
        },
        "lz4" => match lz4_bulk(src, declared, spare) {
            Some(out) => Ok(out),
            None => {
                let dec = lz4_flex::frame::FrameDecoder::new(src);
                read_bounded(dec, declared, src.len(), offset, "lz4")
            }
        },
        other => Err(Error::malformed(
            offset,
            "chunk compression \"\", \"lz4\" or \"zstd\"",
            format!("{other:?}"),
        )),
    }
}

/// Checks decompressed records against the chunk's declared size and
/// (when non-zero and `check_crc`) its CRC.
fn verify(bytes: &[u8], chunk: &Chunk<'_>, offset: u64, check_crc: bool) -> Result<()> {
    let declared = chunk.uncompressed_size;
    if bytes.len() as u64 != declared {
        return Err(Error::malformed(
            offset,
            format!("chunk records of uncompressed_size {declared} bytes"),
            format!("{} bytes", bytes.len()),
        ));
    }
    if check_crc && chunk.uncompressed_crc != 0 {
        let crc = crc32fast::hash(bytes);
        if crc != chunk.uncompressed_crc {
            return Err(Error::malformed(
                offset,
                format!("chunk uncompressed_crc 0x{:08x}", chunk.uncompressed_crc),
                format!("CRC 0x{crc:08x} of the decompressed records"),
            ));
        }
    }
    Ok(())
}

/// A compressed chunk taken out of the file (its bytes copied) so that
/// another thread can decompress and check it: the readers hand the next
/// chunks to [`logcore::ahead::Ahead`] threads while the caller reads the
/// current one. The result is what [`decompress`] gives in place.
pub(crate) struct Detached {
    chunk: Chunk<'static>,
    spare: Vec<u8>,
    offset: u64,
    check_crc: bool,
    max_size: u64,
}

impl Detached {
    /// `None` for an uncompressed chunk (nothing to do ahead) and for one
    /// the reader decompresses incrementally (see [`STREAM_CHUNK_ABOVE`]).
    pub(crate) fn new(
        chunk: &Chunk<'_>,
        offset: u64,
        check_crc: bool,
        max_size: u64,
    ) -> Option<Detached> {
        if chunk.compression.is_empty() || streams(chunk, max_size) {
            return None;
        }
        Some(Detached {
            chunk: Chunk {
                message_start_time: chunk.message_start_time,
                message_end_time: chunk.message_end_time,
                uncompressed_size: chunk.uncompressed_size,
                uncompressed_crc: chunk.uncompressed_crc,
                compression: chunk.compression.clone(),
                records: chunk.records.clone().into_owned(),
            },
            offset,
            check_crc,
            max_size,
            spare: Vec::new(),
        })
    }

    /// Decompresses and checks the chunk (on whatever thread calls it).
    pub(crate) fn run(self) -> Result<Bytes> {
        match decompress_into(
            &self.chunk,
            self.offset,
            self.check_crc,
            self.max_size,
            self.spare,
        )? {
            ChunkRecords::Shared(b) => Ok(b),
            ChunkRecords::Borrowed(b) => Ok(Bytes::copy_from_slice(b)),
        }
    }
}

/// Compressed chunks decompressed ahead of the reader, in file order: the
/// chunk offsets submitted (oldest first) and the threads' results.
pub(crate) struct ReadAhead {
    threads: logcore::ahead::Ahead<Result<Bytes>>,
    offsets: std::collections::VecDeque<u64>,
    /// Buffers of chunks the reader is done with, for the next jobs.
    spares: Vec<Vec<u8>>,
}

impl ReadAhead {
    /// Threads for a reader of more than one compressed chunk; `None` on a
    /// single core.
    pub(crate) fn start() -> Option<ReadAhead> {
        Some(ReadAhead {
            threads: logcore::ahead::Ahead::per_core("mcapfile-decompress")?,
            offsets: Default::default(),
            spares: Vec::new(),
        })
    }

    /// Whether another chunk may be submitted.
    pub(crate) fn has_room(&self) -> bool {
        self.threads.has_room()
    }

    /// Hands the chunk at `offset` to the threads.
    pub(crate) fn submit(&mut self, mut job: Detached) {
        job.spare = self.spares.pop().unwrap_or_default();
        let offset = job.offset;
        if self.threads.submit(move || job.run()) {
            self.offsets.push_back(offset);
        }
    }

    /// The result for the chunk at `offset` when it is the oldest one
    /// submitted; `None` when it is not, or its thread died: the caller
    /// then decompresses in place.
    pub(crate) fn take(&mut self, offset: u64) -> Option<Result<Bytes>> {
        if self.offsets.front() != Some(&offset) {
            return None;
        }
        self.offsets.pop_front();
        self.threads.take()
    }

    /// Keeps the buffer of a chunk the reader is done with for a next job
    /// (when no message of it is held any more).
    pub(crate) fn recycle(&mut self, records: ChunkRecords<'_>) {
        if let (ChunkRecords::Shared(b), true) = (records, self.spares.len() < 4) {
            if let Ok(buf) = b.try_into_mut() {
                self.spares.push(Vec::from(buf));
            }
        }
    }

    /// Drops the results of chunks before `offset` (a reader going through
    /// the file in order stepped over them, e.g. after damage).
    pub(crate) fn drop_before(&mut self, offset: u64) {
        while self.offsets.front().is_some_and(|&o| o < offset) {
            self.offsets.pop_front();
            drop(self.threads.take());
        }
    }
}

/// Chunks up to this declared size are decompressed in one call into a
/// buffer of exactly that size (the fast path); larger ones stream.
const BULK_LIMIT: u64 = 64 << 20;
/// ... and expand their input at most this many times.
const BULK_MAX_RATIO: u64 = 256;

/// One-call zstd decompression into a buffer of the declared size; `None`
/// when it does not apply or fails (the streaming path then decides, and
/// names the error).
fn zstd_bulk(src: &[u8], declared: u64, mut out: Vec<u8>) -> Option<Bytes> {
    // The up-front buffer is bounded by what the input plausibly expands
    // to; a higher claimed ratio (a bomb, or a chunk of zeros) streams and
    // grows only with the real output.
    if declared > BULK_LIMIT || declared > (src.len() as u64).saturating_mul(BULK_MAX_RATIO) {
        return None;
    }
    thread_local! {
        /// One decompression context per thread, reused chunk after chunk.
        static CONTEXT: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    out.clear();
    out.reserve(declared as usize);
    CONTEXT.with(|c| {
        let mut c = c.try_borrow_mut().ok()?;
        if c.is_none() {
            *c = zstd::bulk::Decompressor::new().ok();
        }
        match c.as_mut()?.decompress_to_buffer(src, &mut out) {
            Ok(n) if n as u64 == declared => Some(()),
            _ => None,
        }
    })?;
    Some(Bytes::from(out))
}

/// One lz4 frame decoded block by block straight into a buffer of the
/// declared size (no copy through the frame decoder's own buffer), for the
/// frames writers make: no block or content checksums, no dictionary id.
/// `None` when it does not apply or does not give exactly the declared
/// size (the frame decoder then decides, and names any error). The
/// up-front buffer is bounded as for [`zstd_bulk`].
fn lz4_bulk(src: &[u8], declared: u64, mut out: Vec<u8>) -> Option<Bytes> {
    if declared > BULK_LIMIT || declared > (src.len() as u64).saturating_mul(BULK_MAX_RATIO) {
        return None;
    }
    let word =
        |at: usize| -> Option<u32> { Some(u32::from_le_bytes(*src.get(at..)?.first_chunk()?)) };
    if word(0)? != 0x184D_2204 {
        return None;
    }
    let flg = *src.get(4)?;
    // Version 01; block checksum (0x10), content checksum (0x04),
    // reserved (0x02) and dictionary id (0x01) flags clear.
    if flg >> 6 != 1 || flg & 0x17 != 0 {
        return None;
    }
    let independent = flg & 0x20 != 0;
    let content_size = if flg & 0x08 != 0 { 8 } else { 0 };
    // Magic, FLG, BD, content size, header checksum.
    let mut pos = 4 + 2 + content_size + 1;
    // Overwritten block by block; only the size matters.
    out.resize(declared as usize, 0);
    let mut produced = 0;
    loop {
        let w = word(pos)?;
        pos += 4;
        if w == 0 {
            break;
        }
        let len = (w & 0x7FFF_FFFF) as usize;
        let block = src.get(pos..pos.checked_add(len)?)?;
        pos += len;
        let (prev, rest) = out.split_at_mut(produced);
        produced += if w & 0x8000_0000 != 0 {
            rest.get_mut(..block.len())?.copy_from_slice(block);
            block.len()
        } else if independent {
            lz4_flex::block::decompress_into(block, rest).ok()?
        } else {
            let dict = &prev[prev.len().saturating_sub(64 << 10)..];
            lz4_flex::block::decompress_into_with_dict(block, rest, dict).ok()?
        };
    }
    (produced == out.len()).then(|| Bytes::from(out))
}

fn codec_error(offset: u64, codec: &str, e: &std::io::Error) -> Error {
    Error::malformed(offset, format!("valid {codec} chunk data"), e.to_string())
}

fn read_bounded(
    dec: impl Read,
    declared: u64,
    compressed_len: usize,
    offset: u64,
    codec: &str,
) -> Result<Bytes> {
    // Reserve what a sane ratio allows; a bigger real output grows the vector.
    let reserve = declared.min(compressed_len as u64 * 16 + 4096) as usize;
    let mut out = Vec::with_capacity(reserve);
    // Stop at the declared size even when input remains: writers have left
    // padding after the useful frames (spec 6).
    dec.take(declared)
        .read_to_end(&mut out)
        .map_err(|e| codec_error(offset, codec, &e))?;
    Ok(Bytes::from(out))
}

/// Turns a record parsed from `buf` (borrowing it) into one holding shared
/// slices of `buf`.
pub(crate) fn share(record: Record<'_>, buf: &Bytes) -> Record<'static> {
    let sh = |p: Payload<'_>| match p {
        Payload::Borrowed(b) => Payload::Shared(buf.slice_ref(b)),
        Payload::Shared(b) => Payload::Shared(b),
    };
    match record {
        Record::Message(m) => Record::Message(crate::records::Message {
            channel_id: m.channel_id,
            sequence: m.sequence,
            log_time: m.log_time,
            publish_time: m.publish_time,
            data: sh(m.data),
        }),
        Record::Schema(s) => Record::Schema(crate::records::Schema {
            id: s.id,
            name: s.name,
            encoding: s.encoding,
            data: sh(s.data),
        }),
        Record::Unknown { opcode, data } => Record::Unknown {
            opcode,
            data: sh(data),
        },
        other => other.into_owned(),
    }
}

/// Compressed chunks declaring more than this many uncompressed bytes are
/// decompressed incrementally where the reader allows it (see
/// [`crate::stream::LinearReader`] and [`crate::IndexedMessages`]): their
/// records are read one by one out of the decoder, each into its own
/// buffer, so memory is about the largest record rather than the chunk.
/// Chunks at or below it are decompressed whole (the faster path).
pub const STREAM_CHUNK_ABOVE: u64 = 32 << 20;

/// Whether `chunk` is read incrementally: in the file (borrowed),
/// compressed with a known codec, declaring more than the threshold and no
/// more than `max_size` (a chunk above the limit takes the whole path,
/// which refuses it).
pub(crate) fn streams(chunk: &Chunk<'_>, max_size: u64) -> bool {
    let declared = chunk.uncompressed_size;
    #[cfg(not(test))]
    let above = STREAM_CHUNK_ABOVE;
    // This crate's tests lower the threshold on their thread.
    #[cfg(test)]
    let above = logcore::limits::stream_override::above(STREAM_CHUNK_ABOVE);
    matches!(chunk.records, Payload::Borrowed(_))
        && matches!(chunk.compression.as_str(), "zstd" | "lz4")
        && declared <= max_size
        && declared > above
}

/// The decoder of a [`StreamedChunk`] (a concrete type, so that a reader
/// holding one borrows the file no longer than it is used).
enum Decoder<'a> {
    Zstd(zstd::stream::read::Decoder<'static, &'a [u8]>),
    Lz4(lz4_flex::frame::FrameDecoder<&'a [u8]>),
}

impl Read for Decoder<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Decoder::Zstd(d) => d.read(buf),
            Decoder::Lz4(d) => d.read(buf),
        }
    }
}

/// Why a [`StreamedChunk`] stopped early.
pub(crate) enum StreamError {
    /// What [`decompress`] would have refused the whole chunk for (a codec
    /// error, a size other than the declared one, a CRC mismatch): the
    /// chunk at its offset.
    Chunk(Error),
    /// The records do not frame at decompressed byte `at` (the chunk's data
    /// decoded and checked otherwise); the error is the framing error.
    Framing { at: usize, error: Error },
}

/// A compressed chunk decompressed incrementally: [`next_record`]
/// (Self::next_record) hands out one record at a time in its own buffer.
/// The declared size, the codec and the CRC are checked as [`decompress`]
/// checks them, when the records end (or when the framing breaks: the
/// rest is then decoded, without keeping it, so that a chunk-level error
/// is reported rather than the framing error it caused, as the whole path
/// does).
pub(crate) struct StreamedChunk<'a> {
    dec: std::io::BufReader<std::io::Take<Decoder<'a>>>,
    codec: &'static str,
    declared: u64,
    /// Decompressed bytes read so far.
    produced: u64,
    crc: Option<(crc32fast::Hasher, u32)>,
    offset: u64,
    done: bool,
}

impl<'a> StreamedChunk<'a> {
    /// The reader of `chunk` (at file offset `offset`); `Err` for a decoder
    /// that cannot start (the error [`decompress`] gives).
    pub(crate) fn new(chunk: &Chunk<'a>, offset: u64, check_crc: bool) -> Result<Self> {
        let src: &'a [u8] = match &chunk.records {
            Payload::Borrowed(b) => b,
            // `streams` lets only chunks in the file through.
            Payload::Shared(_) => {
                return Err(Error::malformed(
                    offset,
                    "a chunk in the file",
                    "a detached chunk",
                ));
            }
        };
        let (codec, dec) = match chunk.compression.as_str() {
            "zstd" => (
                "zstd",
                Decoder::Zstd(
                    zstd::stream::read::Decoder::with_buffer(src)
                        .map_err(|e| codec_error(offset, "zstd", &e))?,
                ),
            ),
            "lz4" => ("lz4", Decoder::Lz4(lz4_flex::frame::FrameDecoder::new(src))),
            other => {
                return Err(Error::malformed(
                    offset,
                    "chunk compression \"\", \"lz4\" or \"zstd\"",
                    format!("{other:?}"),
                ));
            }
        };
        let declared = chunk.uncompressed_size;
        Ok(StreamedChunk {
            // Stop at the declared size even when input remains, as the
            // whole path does.
            dec: std::io::BufReader::with_capacity(256 << 10, dec.take(declared)),
            codec,
            declared,
            produced: 0,
            crc: (check_crc && chunk.uncompressed_crc != 0)
                .then(|| (crc32fast::Hasher::new(), chunk.uncompressed_crc)),
            offset,
            done: false,
        })
    }

    /// Reads up to `n` bytes onto `out`; fewer only at the end of the
    /// decoder's output.
    fn read_onto(&mut self, n: u64, out: &mut Vec<u8>) -> std::result::Result<(), Error> {
        let start = out.len();
        out.reserve(n.min(1 << 20) as usize);
        let r = (&mut self.dec).take(n).read_to_end(out);
        self.produced += (out.len() - start) as u64;
        if let Some((h, _)) = self.crc.as_mut() {
            h.update(&out[start..]);
        }
        r.map(|_| ())
            .map_err(|e| codec_error(self.offset, self.codec, &e))
    }

    /// The chunk-level error at the end of the output: a size other than
    /// the declared one, or a CRC mismatch.
    fn end_error(&mut self) -> Option<Error> {
        if self.produced != self.declared {
            return Some(Error::malformed(
                self.offset,
                format!("chunk records of uncompressed_size {} bytes", self.declared),
                format!("{} bytes", self.produced),
            ));
        }
        let (h, want) = self.crc.take()?;
        let crc = h.finalize();
        (crc != want).then(|| {
            Error::malformed(
                self.offset,
                format!("chunk uncompressed_crc 0x{want:08x}"),
                format!("CRC 0x{crc:08x} of the decompressed records"),
            )
        })
    }

    /// Decodes the rest of the chunk without keeping it; the chunk-level
    /// error, if any. The stream is done afterwards.
    pub(crate) fn drain(&mut self) -> Option<Error> {
        if self.done {
            return None;
        }
        self.done = true;
        let mut scratch = Vec::new();
        while self.produced < self.declared {
            scratch.clear();
            let before = self.produced;
            if let Err(e) = self.read_onto(1 << 20, &mut scratch) {
                return Some(e);
            }
            if self.produced == before {
                break;
            }
        }
        self.end_error()
    }

    /// The next record (its 9-byte framing and content) and its position
    /// in the decompressed records; `None` after the last one.
    pub(crate) fn next_record(
        &mut self,
    ) -> Option<std::result::Result<(usize, Bytes), StreamError>> {
        if self.done {
            return None;
        }
        let at = self.produced;
        let pos = at as usize;
        let mut buf = Vec::new();
        if let Err(e) = self.read_onto(9, &mut buf) {
            self.done = true;
            return Some(Err(StreamError::Chunk(e)));
        }
        if buf.is_empty() {
            self.done = true;
            return self.end_error().map(|e| Err(StreamError::Chunk(e)));
        }
        let framing = |error: Error| StreamError::Framing {
            at: pos,
            error: Error::malformed(at, "records that fill the chunk exactly", error.to_string()),
        };
        if buf.len() < 9 {
            let e = Error::truncated(
                at,
                "a 9-byte record header in the chunk records",
                (9 - buf.len()) as u64,
            );
            return Some(Err(match self.drain() {
                Some(c) => StreamError::Chunk(c),
                None => framing(e),
            }));
        }
        let opcode = buf[0];
        let len = u64::from_le_bytes(buf[1..9].try_into().unwrap_or_default());
        let room = self.declared - self.produced;
        if len > room {
            let e = Error::truncated(
                at,
                format!(
                    "{} record of {len} content bytes in the chunk records",
                    crate::records::opcode_name(opcode)
                ),
                len - room,
            );
            return Some(Err(match self.drain() {
                Some(c) => StreamError::Chunk(c),
                None => framing(e),
            }));
        }
        if let Err(e) = self.read_onto(len, &mut buf) {
            self.done = true;
            return Some(Err(StreamError::Chunk(e)));
        }
        if (buf.len() as u64) < 9 + len {
            // The output ended inside the record: the declared size is wrong.
            self.done = true;
            return self.end_error().map(|e| Err(StreamError::Chunk(e)));
        }
        Some(Ok((pos, Bytes::from(buf))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk<'a>(records: &'a [u8], compression: &str, size: u64, crc: u32) -> Chunk<'a> {
        Chunk {
            message_start_time: 0,
            message_end_time: 0,
            uncompressed_size: size,
            uncompressed_crc: crc,
            compression: compression.into(),
            records: Payload::Borrowed(records),
        }
    }

    #[test]
    fn zstd_and_lz4_round_trip_and_check_crc() {
        let raw: Vec<u8> = (0..5000u32).map(|i| (i % 7) as u8).collect();
        let crc = crc32fast::hash(&raw);
        let z = zstd::bulk::compress(&raw, 3).unwrap();
        let out = decompress(&chunk(&z, "zstd", 5000, crc), 10, true, u64::MAX).unwrap();
        assert_eq!(out.as_slice(), &raw[..]);
        let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
        std::io::Write::write_all(&mut enc, &raw).unwrap();
        let l = enc.finish().unwrap();
        let out = decompress(&chunk(&l, "lz4", 5000, crc), 10, true, u64::MAX).unwrap();
        assert_eq!(out.as_slice(), &raw[..]);
        let e = decompress(&chunk(&l, "lz4", 5000, crc ^ 1), 10, true, u64::MAX).unwrap_err();
        assert_eq!(e.offset(), Some(10));
        assert!(e.to_string().contains("uncompressed_crc"), "{e}");
    }

    #[test]
    fn lz4_frames_of_every_kind_decode_alike() {
        use lz4_flex::frame::{BlockMode, BlockSize, FrameEncoder, FrameInfo};
        let raw: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let crc = crc32fast::hash(&raw);
        for (mode, checksum, size) in [
            (BlockMode::Linked, false, true),
            (BlockMode::Independent, false, false),
            (BlockMode::Linked, true, false),
        ] {
            let info = FrameInfo::new()
                .block_size(BlockSize::Max64KB)
                .block_mode(mode)
                .content_checksum(checksum)
                .content_size(size.then_some(raw.len() as u64));
            let mut enc = FrameEncoder::with_frame_info(info, Vec::new());
            std::io::Write::write_all(&mut enc, &raw).unwrap();
            let packed = enc.finish().unwrap();
            // The block path takes the frames without checksums.
            let bulk = lz4_bulk(&packed, raw.len() as u64, vec![7; 50]);
            assert_eq!(bulk.is_some(), !checksum);
            let out =
                decompress(&chunk(&packed, "lz4", 1_200_000, crc), 0, true, u64::MAX).unwrap();
            assert_eq!(out.as_slice(), &raw[..]);
            // A smaller declared size yields that many bytes, no more; a
            // larger one and cut frames are errors.
            let out = decompress(&chunk(&packed, "lz4", 1000, 0), 0, true, u64::MAX).unwrap();
            assert_eq!(out.as_slice(), &raw[..1000]);
            assert!(decompress(&chunk(&packed, "lz4", 1_200_001, 0), 0, true, u64::MAX).is_err());
            for cut in [5, 20, packed.len() / 2, packed.len() - 100] {
                let e = decompress(
                    &chunk(&packed[..cut], "lz4", 1_200_000, 0),
                    0,
                    true,
                    u64::MAX,
                );
                assert!(e.is_err(), "cut at {cut}");
            }
        }
    }

    #[test]
    fn declared_size_bounds_the_output() {
        let raw = vec![0u8; 1 << 20];
        let z = zstd::bulk::compress(&raw, 19).unwrap();
        // A bomb claiming 100 bytes yields those 100 and no more.
        let out = decompress(&chunk(&z, "zstd", 100, 0), 0, true, u64::MAX).unwrap();
        assert_eq!(out.as_slice(), &[0u8; 100][..]);
        // Output shorter than declared is an error.
        let e = decompress(&chunk(&z, "zstd", 2 << 20, 0), 0, true, u64::MAX).unwrap_err();
        assert!(e.to_string().contains("1048576 bytes"), "{e}");
        let e = decompress(&chunk(&z, "zstd", 1 << 20, 0), 0, true, 1000).unwrap_err();
        assert!(e.to_string().contains("reader's limit"), "{e}");
        let e = decompress(&chunk(b"xx", "brotli", 2, 0), 0, true, 1000).unwrap_err();
        assert!(e.to_string().contains("\"brotli\""), "{e}");
        let e = decompress(&chunk(b"garbage!", "zstd", 8, 0), 0, true, 1000).unwrap_err();
        assert!(e.to_string().contains("valid zstd"), "{e}");
    }
}
