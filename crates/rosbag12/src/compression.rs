//! Chunk decompression (spec 2.9), bounded by the declared size: a chunk
//! that would decompress to more than its header's `size` is an error, and
//! at most `size + 1` bytes are ever produced.

use logcore::FormatError;
use std::io::Read;

use crate::error::{Error, Result};
use crate::records::Compression;

/// Largest up-front allocation for a decompressed chunk; bigger chunks grow
/// as bytes actually come out of the decoder, so a lying `size` cannot make
/// the reader allocate memory the input does not justify.
const MAX_PREALLOC: usize = 1 << 20;

/// Decompresses a chunk's `data` (at file offset `offset`) that declares
/// `size` uncompressed bytes.
#[cfg(test)]
pub(crate) fn decompress(
    compression: Compression,
    data: &[u8],
    size: u32,
    offset: u64,
) -> Result<Vec<u8>> {
    decompress_into(compression, data, size, offset, Vec::new())
}

/// [`decompress`] into `out`'s allocation: a buffer reused from chunk to
/// chunk has its pages in memory already (and, for lz4, its bytes are
/// overwritten rather than zeroed first).
pub(crate) fn decompress_into(
    compression: Compression,
    data: &[u8],
    size: u32,
    offset: u64,
    mut out: Vec<u8>,
) -> Result<Vec<u8>> {
    let limit = u64::from(size) + 1;
    if compression != Compression::Lz4 {
        out.clear();
    }
    out.reserve((size as usize).saturating_sub(out.len()).min(MAX_PREALLOC));
    let result = match compression {
        Compression::None => {
            out.extend_from_slice(data);
            Ok(out.len())
        }
        Compression::Bz2 => bzip2::read::BzDecoder::new(data)
            .take(limit)
            .read_to_end(&mut out),
        Compression::Lz4 => match lz4_blocks(data, size, &mut out) {
            Some(r) => r,
            // Frames this fast path does not handle (dictionary ids,
            // skippable frames, garbage) go through the frame decoder,
            // which reports what is wrong.
            None => {
                out.clear();
                lz4_flex::frame::FrameDecoder::new(data)
                    .take(limit)
                    .read_to_end(&mut out)
            }
        },
    };
    let name = compression.name();
    match result {
        Ok(_) if out.len() == size as usize => Ok(out),
        Ok(_) => Err(Error::malformed(
            offset,
            format!("a {name} chunk that decompresses to its declared {size} bytes"),
            if out.len() as u64 >= limit {
                "more bytes than declared".to_string()
            } else {
                format!("{} bytes", out.len())
            },
        )),
        Err(e) => Err(Error::malformed(
            offset,
            format!("a valid {name} stream in the chunk"),
            format!("a decoding error after {} bytes of output: {e}", out.len()),
        )),
    }
}

/// Decodes one LZ4 frame block by block straight into `out` (no
/// intermediate buffer; checksums are skipped, the declared size is
/// enforced). What `out` held is scratch space: it is overwritten, never
/// read, and the result is truncated to what was decoded. Handles independent and linked blocks. `None` when the frame
/// header is not one this path knows; `Some(Err)` for a damaged block.
fn lz4_blocks(data: &[u8], size: u32, out: &mut Vec<u8>) -> Option<std::io::Result<usize>> {
    use crate::record::u32_at;
    let bad = |what: &str| Some(Err(std::io::Error::other(what.to_string())));
    if u32_at(data, 0)? != 0x184D_2204 {
        return None;
    }
    let flg = *data.get(4)?;
    let bd = *data.get(5)?;
    if flg >> 6 != 1 || flg & 0x01 != 0 || flg & 0x02 != 0 {
        return None;
    }
    let independent = flg & 0x20 != 0;
    let block_checksum = flg & 0x10 != 0;
    let has_content_size = flg & 0x08 != 0;
    let max_block = match (bd >> 4) & 0x07 {
        4 => 64 << 10,
        5 => 256 << 10,
        6 => 1 << 20,
        7 => 4 << 20,
        _ => return None,
    };
    let mut pos = 6 + if has_content_size { 8 } else { 0 } + 1;
    let size = size as usize;
    let mut produced = 0usize;
    loop {
        let Some(word) = u32_at(data, pos) else {
            out.truncate(produced);
            return bad("a block size word (the frame ends early)");
        };
        pos += 4;
        if word == 0 {
            break;
        }
        let len = (word & 0x7FFF_FFFF) as usize;
        let Some(block) = data.get(pos..pos.saturating_add(len)) else {
            out.truncate(produced);
            return bad("a block as long as its size word (the frame ends early)");
        };
        pos += len + if block_checksum { 4 } else { 0 };
        // Room for one more block, never beyond the declared size + 1.
        let room = max_block.min(size + 1 - produced.min(size));
        if out.len() < produced + room {
            out.resize(produced + room, 0);
        }
        let out_end = produced + room;
        let (prev, rest) = out[..out_end].split_at_mut(produced);
        let written = if word & 0x8000_0000 != 0 {
            if block.len() > rest.len() {
                out.truncate(produced);
                return bad("a stored block within the declared size");
            }
            rest[..block.len()].copy_from_slice(block);
            block.len()
        } else {
            let result = if independent {
                lz4_flex::block::decompress_into(block, rest)
            } else {
                let dict = &prev[prev.len().saturating_sub(64 << 10)..];
                lz4_flex::block::decompress_into_with_dict(block, rest, dict)
            };
            match result {
                Ok(n) => n,
                // The room was cut to the declared size: the block holds more.
                Err(lz4_flex::block::DecompressError::OutputTooSmall { .. })
                    if room < max_block =>
                {
                    out.truncate(size + 1);
                    return Some(Ok(size + 1));
                }
                Err(e) => {
                    out.truncate(produced);
                    return Some(Err(std::io::Error::other(e.to_string())));
                }
            }
        };
        produced += written;
        if produced > size {
            out.truncate(produced);
            return Some(Ok(produced));
        }
    }
    out.truncate(produced);
    Some(Ok(produced))
}

/// Compressed chunks declaring more than this many uncompressed bytes are
/// decompressed incrementally where the reader allows it: a chunk that
/// [`Bag::messages`](crate::Bag::messages) reads alone (no other chunk
/// overlaps it in time) is read record by record out of its decoder, each
/// message into its own buffer, so memory is about the largest record
/// rather than the chunk. Chunks at or below it are decompressed whole
/// (the faster path).
pub const STREAM_CHUNK_ABOVE: u64 = 32 << 20;

/// Whether a chunk of `compression` declaring `size` bytes is read
/// incrementally: compressed, above the threshold and within `limits`
/// (a chunk over the limit takes the whole path, which refuses it).
pub(crate) fn streams(compression: Compression, size: u32, limits: &crate::Limits) -> bool {
    let size = u64::from(size);
    #[cfg(not(test))]
    let above = STREAM_CHUNK_ABOVE;
    // This crate's tests lower the threshold on their thread.
    #[cfg(test)]
    let above = logcore::limits::stream_override::above(STREAM_CHUNK_ABOVE);
    compression != Compression::None && size <= limits.max_chunk_size && size > above
}

/// The decoder of a [`ChunkReader`].
enum Decoder<'a> {
    Bz2(bzip2::read::BzDecoder<&'a [u8]>),
    Lz4(lz4_flex::frame::FrameDecoder<&'a [u8]>),
}

impl Read for Decoder<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Decoder::Bz2(d) => d.read(buf),
            Decoder::Lz4(d) => d.read(buf),
        }
    }
}

/// A compressed chunk decompressed incrementally, one record at a time.
/// It says only whether the chunk reads: on anything that does not hold
/// up (a decoding error, a size other than the declared one, a record
/// that does not frame) the caller reads the chunk through
/// [`decompress_into`], which names the error.
pub(crate) struct ChunkReader<'a> {
    dec: std::io::BufReader<std::io::Take<Decoder<'a>>>,
    size: u64,
    produced: u64,
    done: bool,
}

impl<'a> ChunkReader<'a> {
    /// The reader of a chunk's `data`, declaring `size` bytes; `None` for
    /// an uncompressed one.
    pub(crate) fn new(compression: Compression, data: &'a [u8], size: u32) -> Option<Self> {
        let dec = match compression {
            Compression::None => return None,
            Compression::Bz2 => Decoder::Bz2(bzip2::read::BzDecoder::new(data)),
            Compression::Lz4 => Decoder::Lz4(lz4_flex::frame::FrameDecoder::new(data)),
        };
        let size = u64::from(size);
        Some(ChunkReader {
            // One byte past the declared size tells a chunk that holds more.
            dec: std::io::BufReader::with_capacity(256 << 10, dec.take(size + 1)),
            size,
            produced: 0,
            done: false,
        })
    }

    /// Appends exactly `n` more bytes to `out`; `false` when the output
    /// ends first, fails, or would pass the declared size.
    fn read_onto(&mut self, n: u64, out: &mut Vec<u8>) -> bool {
        if n > self.size - self.produced {
            return false;
        }
        let start = out.len();
        out.reserve(n.min(1 << 20) as usize);
        let ok = (&mut self.dec).take(n).read_to_end(out).is_ok();
        self.produced += (out.len() - start) as u64;
        ok && (out.len() - start) as u64 == n
    }

    /// The next record (header length, header, data length, data) and its
    /// position in the decompressed chunk; `None` after the last one,
    /// `Some(Err)` when the chunk does not read.
    pub(crate) fn next_record(&mut self) -> Option<std::result::Result<(usize, Vec<u8>), ()>> {
        if self.done {
            return None;
        }
        let at = self.produced as usize;
        if self.produced == self.size {
            self.done = true;
            let mut more = [0u8; 1];
            return match self.dec.read(&mut more) {
                Ok(0) => None,
                _ => Some(Err(())),
            };
        }
        let mut buf = Vec::new();
        let len = |b: &[u8], i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let ok = self.read_onto(4, &mut buf) && {
            let header = u64::from(len(&buf, 0));
            self.read_onto(header + 4, &mut buf) && {
                let data = u64::from(len(&buf, buf.len() - 4));
                self.read_onto(data, &mut buf)
            }
        };
        if !ok {
            self.done = true;
            return Some(Err(()));
        }
        Some(Ok((at, buf)))
    }
}

/// Compresses a chunk payload the way ROS does (bz2 block size 9; lz4 frame
/// with 1 MiB independent blocks and a content checksum, spec 2.9).
pub(crate) fn compress(compression: Compression, data: &[u8]) -> std::io::Result<Vec<u8>> {
    use std::io::Write;
    match compression {
        Compression::None => Ok(data.to_vec()),
        Compression::Bz2 => {
            let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
            enc.write_all(data)?;
            enc.finish()
        }
        Compression::Lz4 => {
            let info = lz4_flex::frame::FrameInfo::new()
                .block_size(lz4_flex::frame::BlockSize::Max1MB)
                .block_mode(lz4_flex::frame::BlockMode::Independent)
                .content_checksum(true);
            let mut enc = lz4_flex::frame::FrameEncoder::with_frame_info(info, Vec::new());
            enc.write_all(data)?;
            enc.finish().map_err(std::io::Error::other)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_bounds() {
        let payload: Vec<u8> = (0..5000u32).flat_map(|i| (i % 7).to_le_bytes()).collect();
        for c in [Compression::Bz2, Compression::Lz4] {
            let packed = compress(c, &payload).unwrap();
            assert_eq!(
                decompress(c, &packed, payload.len() as u32, 9).unwrap(),
                payload
            );
            // A size smaller than the real output: refused, not over-read.
            let e = decompress(c, &packed, 100, 9).unwrap_err();
            assert!(e.to_string().contains("more bytes than declared"), "{e}");
            let e =
                decompress(c, &packed[..packed.len() / 2], payload.len() as u32, 9).unwrap_err();
            assert_eq!(e.offset(), Some(9));
        }
    }

    #[test]
    fn lz4_linked_and_independent_frames_decode() {
        use std::io::Write;
        let payload: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        for mode in [
            lz4_flex::frame::BlockMode::Linked,
            lz4_flex::frame::BlockMode::Independent,
        ] {
            let info = lz4_flex::frame::FrameInfo::new()
                .block_size(lz4_flex::frame::BlockSize::Max64KB)
                .block_mode(mode)
                .content_size(Some(payload.len() as u64));
            let mut enc = lz4_flex::frame::FrameEncoder::with_frame_info(info, Vec::new());
            enc.write_all(&payload).unwrap();
            let packed = enc.finish().unwrap();
            let mut out = Vec::new();
            assert!(lz4_blocks(&packed, payload.len() as u32, &mut out).is_some());
            assert_eq!(
                decompress(Compression::Lz4, &packed, payload.len() as u32, 0).unwrap(),
                payload
            );
            assert!(decompress(Compression::Lz4, &packed, 1000, 0).is_err());
            for cut in [5, 20, packed.len() / 2, packed.len() - 1] {
                assert!(
                    decompress(Compression::Lz4, &packed[..cut], payload.len() as u32, 0).is_err()
                );
            }
        }
    }

    #[test]
    fn lz4_frame_header_matches_ros() {
        let packed = compress(Compression::Lz4, b"hello").unwrap();
        assert_eq!(&packed[..7], &[0x04, 0x22, 0x4d, 0x18, 0x64, 0x60, 0x85]);
    }
}
