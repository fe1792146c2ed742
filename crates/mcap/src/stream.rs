//! The streamed (linear) reader: one pass from the leading magic to the
//! trailing one, chunks decompressed one at a time and flattened, CRCs
//! checked, in strict or lenient mode.
//!
//! A compressed chunk declaring more than
//! [`STREAM_CHUNK_ABOVE`](crate::chunk::STREAM_CHUNK_ABOVE) is not
//! decompressed whole: its records are read one at a time out of the
//! decoder, each in its own buffer (so memory is about the largest record),
//! and the checks the whole path makes first (decoding, the declared size,
//! the CRC) are made as the records end. The records before a failure are
//! then handed out before its error, which is the error the whole path
//! gives (at the chunk's offset; in lenient mode a `Skipped` of the Chunk
//! record); records decoded from damaged bytes may be among them, since
//! only the CRC at the end tells. A record that does not frame ends the
//! chunk with the whole path's error, or the chunk-level error when the
//! rest of the chunk (decoded, not kept) has one.

use logcore::ReadMode;
use logcore::error::hex_preview;

use crate::Limits;
use crate::chunk::{
    ChunkRecords, Detached, ReadAhead, StreamError, StreamedChunk, decompress, share, streams,
};
use crate::error::{Error, Result};
use crate::parse::{attachment_crc_scope, frame_at, parse_record};
use crate::records::{MAGIC, Record, op, unsupported_version};

/// How the readers treat damage, CRCs and chunks.
///
/// ```
/// let opts = mcapfile::ReadOptions::default();
/// assert!(opts.validate_crcs && opts.flatten_chunks);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Strict: stop at the first damaged record. Lenient: report it as
    /// [`Error::Skipped`] and go on after it.
    pub mode: ReadMode,
    /// Check every non-zero CRC (chunk, attachment, data section, summary).
    pub validate_crcs: bool,
    /// Yield the records inside each chunk in its place (true) or the Chunk
    /// record itself (false).
    pub flatten_chunks: bool,
    /// Resource limits (chunks declaring more uncompressed bytes than
    /// `limits.max_chunk_size` are refused).
    pub limits: Limits,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            mode: ReadMode::Strict,
            validate_crcs: true,
            flatten_chunks: true,
            limits: Limits::default(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    Records,
    AfterFooter,
    Done,
}

struct InChunk<'a> {
    records: ChunkRecords<'a>,
    pos: usize,
    chunk_offset: u64,
    /// Absolute offset of the records when stored uncompressed.
    records_offset: Option<u64>,
}

/// A compressed chunk above [`crate::chunk::STREAM_CHUNK_ABOVE`], read
/// record by record out of its decoder.
struct BigChunk<'a> {
    stream: StreamedChunk<'a>,
    chunk_offset: u64,
    /// Length of the Chunk record (what lenient mode skips for a
    /// chunk-level error).
    frame_len: u64,
    /// Declared uncompressed size of the records.
    declared: u64,
}

/// Reads every record front to back.
///
/// Items are records in file order (chunks flattened by default, Message
/// Index records included); an `Err` item reports damage. A truncated file
/// yields every complete record before the cut, then an
/// [`Error::Truncated`], then ends.
///
/// ```
/// use mcapfile::{LinearReader, Record, Writer, WriteOptions};
/// let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriteOptions::default()).unwrap();
/// let ch = w.add_channel(0, "/t", "json", &Default::default()).unwrap();
/// w.write_message(ch, 0, 5, 5, b"{}").unwrap();
/// let file = w.finish().unwrap().into_inner();
/// let messages = LinearReader::new(&file)
///     .filter_map(|r| match r.unwrap() { Record::Message(m) => Some(m.log_time), _ => None })
///     .collect::<Vec<_>>();
/// assert_eq!(messages, [5]);
/// ```
pub struct LinearReader<'a> {
    data: &'a [u8],
    pos: usize,
    opts: ReadOptions,
    state: State,
    chunk: Option<InChunk<'a>>,
    /// The chunk being decompressed incrementally, if any.
    big: Option<BigChunk<'a>>,
    last_offset: u64,
    data_end_end: Option<usize>,
    footer_seen: bool,
    /// Compressed chunks decompressed ahead on other threads (see
    /// [`Self::read_ahead`]).
    ahead: Option<ReadAhead>,
    /// Whether the first compressed chunk was met (and `ahead` decided).
    ahead_decided: bool,
    /// Where the look-ahead for chunks to submit goes on.
    ahead_pos: usize,
}

impl<'a> LinearReader<'a> {
    /// A reader with default options (strict, CRCs checked, chunks flattened).
    pub fn new(data: &'a [u8]) -> Self {
        Self::with_options(data, ReadOptions::default())
    }

    /// A reader with `opts`.
    pub fn with_options(data: &'a [u8], opts: ReadOptions) -> Self {
        LinearReader {
            data,
            pos: 0,
            opts,
            state: State::Start,
            chunk: None,
            big: None,
            last_offset: 0,
            data_end_end: None,
            footer_seen: false,
            ahead: None,
            ahead_decided: false,
            ahead_pos: 0,
        }
    }

    /// Absolute offset of the last record yielded; for records inside a
    /// compressed chunk, the offset of the chunk.
    pub fn last_offset(&self) -> u64 {
        self.last_offset
    }

    /// Absolute offset where the next top-level record starts.
    pub fn position(&self) -> u64 {
        self.pos as u64
    }

    /// Whether the Footer was read.
    pub fn footer_seen(&self) -> bool {
        self.footer_seen
    }

    /// Strict: end with `e`. Lenient: report it as skipped and go on.
    fn damage(&mut self, e: Error, offset: u64, len: u64) -> Error {
        if self.opts.mode == ReadMode::Strict {
            self.state = State::Done;
            self.chunk = None;
            self.big = None;
            e
        } else {
            Error::Skipped {
                offset,
                len,
                reason: e.to_string(),
            }
        }
    }

    fn next_in_chunk(&mut self) -> Option<Result<Record<'a>>> {
        let c = self.chunk.as_ref()?;
        let at = c.pos;
        let len = c.records.as_slice().len();
        if at >= len {
            if let (Some(c), Some(a)) = (self.chunk.take(), self.ahead.as_mut()) {
                a.recycle(c.records);
            }
            return None;
        }
        let chunk_offset = c.chunk_offset;
        let records_offset = c.records_offset;
        if let Some((m, advance)) = message_in(&c.records, at) {
            if let Some(c) = self.chunk.as_mut() {
                c.pos = at + advance;
            }
            self.last_offset = records_offset.map_or(chunk_offset, |o| o + at as u64);
            return Some(Ok(Record::Message(m)));
        }
        let base = records_offset.unwrap_or(0);
        let (parsed, advance) = read_inner(&c.records, at, base);
        let framing_broken = advance == 0;
        if let Some(c) = self.chunk.as_mut() {
            c.pos = if framing_broken { len } else { at + advance };
        }
        self.last_offset = records_offset.map_or(chunk_offset, |o| o + at as u64);
        match parsed {
            Ok(r) => Some(Ok(r)),
            Err(e) => {
                // In a compressed chunk, offsets are relative to the
                // decompressed records: name the chunk and the position.
                let e = match records_offset {
                    Some(_) => e,
                    None => Error::malformed(
                        chunk_offset,
                        format!("a readable record at decompressed byte {at} of the chunk"),
                        e.to_string(),
                    ),
                };
                let skipped = if framing_broken { len - at } else { advance } as u64;
                let off = self.last_offset;
                Some(Err(self.damage(e, off, skipped)))
            }
        }
    }

    /// The next record of the chunk being decompressed incrementally; the
    /// same items as [`Self::next_in_chunk`] gives for a chunk decompressed
    /// whole, except that a chunk-level error (codec, size, CRC) comes
    /// after the records read before it rather than instead of them.
    #[inline(never)]
    fn next_in_big(&mut self) -> Option<Result<Record<'a>>> {
        let b = self.big.as_mut()?;
        let chunk_offset = b.chunk_offset;
        let frame_len = b.frame_len;
        let declared = b.declared;
        self.last_offset = chunk_offset;
        let (at, bytes) = match b.stream.next_record() {
            None => {
                self.big = None;
                return None;
            }
            Some(Ok(r)) => r,
            Some(Err(StreamError::Chunk(e))) => {
                self.big = None;
                return Some(Err(self.damage(e, chunk_offset, frame_len)));
            }
            Some(Err(StreamError::Framing { at, error })) => {
                self.big = None;
                let e = Error::malformed(
                    chunk_offset,
                    format!("a readable record at decompressed byte {at} of the chunk"),
                    error.to_string(),
                );
                let skipped = declared.saturating_sub(at as u64);
                return Some(Err(self.damage(e, chunk_offset, skipped)));
            }
        };
        let records = ChunkRecords::Shared(bytes);
        if let Some((m, _)) = message_in(&records, 0) {
            return Some(Ok(Record::Message(m)));
        }
        let len = records.as_slice().len() as u64;
        match read_inner(&records, 0, at as u64).0 {
            Ok(r) => Some(Ok(r)),
            Err(e) => {
                let mut e = Error::malformed(
                    chunk_offset,
                    format!("a readable record at decompressed byte {at} of the chunk"),
                    e.to_string(),
                );
                let mut skipped = len;
                if self.opts.mode == ReadMode::Strict {
                    // The whole path names a chunk-level error first.
                    if let Some(c) = self.big.as_mut().and_then(|b| b.stream.drain()) {
                        e = c;
                        skipped = frame_len;
                    }
                }
                Some(Err(self.damage(e, chunk_offset, skipped)))
            }
        }
    }

    fn start(&mut self) -> Option<Result<Record<'a>>> {
        self.state = State::Records;
        let head = &self.data[..self.data.len().min(8)];
        if head != MAGIC {
            self.state = State::Done;
            return Some(Err(if MAGIC.starts_with(head) {
                Error::truncated(0, "the 8-byte MCAP magic", (8 - head.len()) as u64)
            } else if let Some(e) = unsupported_version(head, 0) {
                e
            } else {
                Error::malformed(
                    0,
                    "the MCAP magic 89 4d 43 41 50 30 0d 0a",
                    hex_preview(head),
                )
            }));
        }
        self.pos = 8;
        None
    }

    fn after_footer(&mut self) -> Option<Result<Record<'a>>> {
        self.state = State::Done;
        let rest = &self.data[self.pos..];
        if rest.len() < 8 && MAGIC.starts_with(rest) {
            return Some(Err(Error::truncated(
                self.pos as u64,
                "the closing MCAP magic",
                (8 - rest.len()) as u64,
            )));
        }
        if &rest[..8.min(rest.len())] != MAGIC {
            return Some(Err(Error::malformed(
                self.pos as u64,
                "the closing MCAP magic after the Footer",
                hex_preview(rest),
            )));
        }
        if rest.len() > 8 {
            return Some(Err(Error::malformed(
                self.pos as u64 + 8,
                "end of file after the closing magic",
                format!("{} more bytes", rest.len() - 8),
            )));
        }
        None
    }

    /// Hands the compressed chunks after `from` to the decompression
    /// threads, as far as the window allows. The threads start at the
    /// first compressed chunk when another one follows (on more than one
    /// core); until then, and without them, chunks are decompressed in
    /// place. Errors are not looked for here: a chunk that cannot be read
    /// ahead is read in place, and reported there.
    fn read_ahead(&mut self, from: usize) {
        let data = self.data;
        if !self.ahead_decided {
            self.ahead_decided = true;
            if compressed_chunk_follows(data, from) {
                self.ahead = ReadAhead::start();
            }
        }
        let Some(ahead) = self.ahead.as_mut() else {
            return;
        };
        let mut pos = self.ahead_pos.max(from);
        while ahead.has_room() && pos < data.len() {
            let Ok(f) = frame_at(data, pos, 0, "file") else {
                pos = data.len();
                break;
            };
            let at = pos;
            pos += f.len;
            match f.opcode {
                op::CHUNK => {
                    if let Ok(Record::Chunk(c)) = parse_record(f.opcode, f.content, at as u64 + 9) {
                        if let Some(job) = Detached::new(
                            &c,
                            at as u64,
                            self.opts.validate_crcs,
                            self.opts.limits.max_chunk_size,
                        ) {
                            ahead.submit(job);
                        }
                    }
                }
                op::DATA_END | op::FOOTER => pos = data.len(),
                _ => {}
            }
        }
        self.ahead_pos = pos;
    }

    fn check_crc(&mut self, want: u32, scope: &[u8], what: &str, at: u64) -> Option<Error> {
        if !self.opts.validate_crcs || want == 0 {
            return None;
        }
        let got = crc32fast::hash(scope);
        (got != want).then(|| {
            Error::malformed(
                at,
                format!("{what} 0x{want:08x}"),
                format!("CRC 0x{got:08x} of the bytes it covers"),
            )
        })
    }
}

/// The fixed fields of the Message record at `at` of `buf` (channel id,
/// sequence, log time, publish time) and where its data starts and the
/// record ends, read in place with one bounds check: the hot path of both
/// readers. `None` for any other record and for anything that does not
/// hold up (the general parser then reads it and names the error).
#[inline]
pub(crate) fn message_head(buf: &[u8], at: usize) -> Option<(u16, u32, u64, u64, usize, usize)> {
    /// Framing (9 bytes) and the Message fields before the data (22).
    const HEAD: usize = 31;
    let head: &[u8; HEAD] = buf.get(at..)?.first_chunk()?;
    if head[0] != op::MESSAGE {
        return None;
    }
    let content = u64::from_le_bytes(head[1..9].try_into().ok()?);
    let end = usize::try_from(content)
        .ok()
        .filter(|&n| n >= HEAD - 9)?
        .checked_add(at + 9)
        .filter(|&end| end <= buf.len())?;
    Some((
        u16::from_le_bytes(head[9..11].try_into().ok()?),
        u32::from_le_bytes(head[11..15].try_into().ok()?),
        u64::from_le_bytes(head[15..23].try_into().ok()?),
        u64::from_le_bytes(head[23..31].try_into().ok()?),
        at + HEAD,
        end,
    ))
}

/// The Message record at `at` of a chunk's records and its size (see
/// [`message_head`]); its data borrows the file or shares the chunk.
#[inline]
pub(crate) fn message_in<'a>(
    records: &ChunkRecords<'a>,
    at: usize,
) -> Option<(crate::records::Message<'a>, usize)> {
    let (channel_id, sequence, log_time, publish_time, start, end) =
        message_head(records.as_slice(), at)?;
    let data = match records {
        ChunkRecords::Borrowed(b) => logcore::Payload::Borrowed(b.get(start..end)?),
        ChunkRecords::Shared(b) => logcore::Payload::Shared(b.slice(start..end)),
    };
    let m = crate::records::Message {
        channel_id,
        sequence,
        log_time,
        publish_time,
        data,
    };
    Some((m, end - at))
}

/// Whether a compressed Chunk follows `from` (looking at a bounded number
/// of top-level records).
fn compressed_chunk_follows(data: &[u8], from: usize) -> bool {
    let mut pos = from;
    for _ in 0..1024 {
        let Ok(f) = frame_at(data, pos, 0, "file") else {
            return false;
        };
        match f.opcode {
            op::CHUNK => {
                return matches!(
                    parse_record(f.opcode, f.content, pos as u64 + 9),
                    Ok(Record::Chunk(c)) if !c.compression.is_empty()
                );
            }
            op::DATA_END | op::FOOTER => return false,
            _ => pos += f.len,
        }
    }
    false
}

/// The first position from `from` on where a defined record (opcode 0x02
/// to 0x0F) frames and parses, followed by another defined record or the
/// closing magic.
fn resync(data: &[u8], from: usize) -> Option<usize> {
    let end = data.len().checked_sub(MAGIC.len())?;
    let defined = |op: u8| (op::FOOTER..=op::DATA_END).contains(&op);
    (from..end).find(|&p| {
        let Ok(f) = frame_at(&data[..end], p, 0, "file") else {
            return false;
        };
        if !defined(f.opcode) || parse_record(f.opcode, f.content, p as u64 + 9).is_err() {
            return false;
        }
        let q = p + f.len;
        q == end || frame_at(&data[..end], q, 0, "file").is_ok_and(|g| defined(g.opcode))
    })
}

/// Reads the record at `at` (a byte position in the decompressed records)
/// of a chunk's records, `base` being the file offset reported in errors.
/// Returns the record and how far to advance (0 when the framing itself
/// is broken).
pub fn read_inner<'a>(
    records: &ChunkRecords<'a>,
    at: usize,
    base: u64,
) -> (Result<Record<'a>>, usize) {
    fn framing(buf: &[u8], at: usize, base: u64) -> Result<crate::parse::Frame<'_>> {
        frame_at(buf, at, base, "chunk records").map_err(|e| {
            Error::malformed(
                base + at as u64,
                "records that fill the chunk exactly",
                e.to_string(),
            )
        })
    }
    let content_at = base + (at + 9) as u64;
    match records {
        ChunkRecords::Borrowed(b) => {
            let b: &'a [u8] = b;
            match framing(b, at, base) {
                Ok(f) => (parse_record(f.opcode, f.content, content_at), f.len),
                Err(e) => (Err(e), 0),
            }
        }
        ChunkRecords::Shared(bytes) => match framing(bytes, at, base) {
            Ok(f) => (
                parse_record(f.opcode, f.content, content_at).map(|r| share(r, bytes)),
                f.len,
            ),
            Err(e) => (Err(e), 0),
        },
    }
}

impl<'a> Iterator for LinearReader<'a> {
    type Item = Result<Record<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.chunk.is_some() {
                match self.next_in_chunk() {
                    Some(r) => return Some(r),
                    None => continue,
                }
            }
            if self.big.is_some() {
                match self.next_in_big() {
                    Some(r) => return Some(r),
                    None => continue,
                }
            }
            match self.state {
                State::Done => return None,
                State::Start => {
                    if let Some(e) = self.start() {
                        return Some(e);
                    }
                    continue;
                }
                State::AfterFooter => return self.after_footer(),
                State::Records => {}
            }
            let data = self.data;
            let at = self.pos;
            if at >= data.len() {
                self.state = State::Done;
                return Some(Err(Error::truncated(
                    at as u64,
                    "a Footer record and the closing magic",
                    (crate::records::FOOTER_RECORD_LEN + 8) as u64,
                )));
            }
            let frame = match frame_at(data, at, 0, "file") {
                Ok(f) => f,
                Err(e) => {
                    // A length running past the end of a file that does end
                    // with the closing magic is damage, not truncation:
                    // lenient mode looks for the next record that holds up.
                    if self.opts.mode == ReadMode::Lenient && data.ends_with(MAGIC) {
                        if let Some(next) = resync(data, at + 1) {
                            self.pos = next;
                            return Some(Err(Error::Skipped {
                                offset: at as u64,
                                len: (next - at) as u64,
                                reason: e.to_string(),
                            }));
                        }
                    }
                    self.state = State::Done;
                    return Some(Err(e));
                }
            };
            self.pos += frame.len;
            self.last_offset = at as u64;
            let content_at = (at + 9) as u64;
            if at == 8 && frame.opcode != op::HEADER {
                let e = Error::malformed(
                    8,
                    "a Header record (opcode 0x01) after the magic",
                    format!("opcode 0x{:02x}", frame.opcode),
                );
                return Some(Err(self.damage(e, 8, frame.len as u64)));
            }
            let record = match parse_record(frame.opcode, frame.content, content_at) {
                Ok(r) => r,
                Err(e) => return Some(Err(self.damage(e, at as u64, frame.len as u64))),
            };
            match record {
                Record::Chunk(chunk)
                    if self.opts.flatten_chunks
                        && streams(&chunk, self.opts.limits.max_chunk_size) =>
                {
                    match StreamedChunk::new(&chunk, at as u64, self.opts.validate_crcs) {
                        Ok(stream) => {
                            self.big = Some(BigChunk {
                                stream,
                                chunk_offset: at as u64,
                                frame_len: frame.len as u64,
                                declared: chunk.uncompressed_size,
                            });
                            continue;
                        }
                        Err(e) => return Some(Err(self.damage(e, at as u64, frame.len as u64))),
                    }
                }
                Record::Chunk(chunk) if self.opts.flatten_chunks => {
                    let compressed = !chunk.compression.is_empty();
                    if compressed {
                        self.read_ahead(self.pos);
                    }
                    let done_ahead = match self.ahead.as_mut() {
                        Some(a) if compressed => {
                            a.drop_before(at as u64);
                            a.take(at as u64)
                        }
                        _ => None,
                    };
                    let records = match done_ahead {
                        Some(r) => r.map(ChunkRecords::Shared),
                        None => decompress(
                            &chunk,
                            at as u64,
                            self.opts.validate_crcs,
                            self.opts.limits.max_chunk_size,
                        ),
                    };
                    match records {
                        Ok(records) => {
                            let records_offset = matches!(records, ChunkRecords::Borrowed(_))
                                .then(|| content_at + 40 + chunk.compression.len() as u64);
                            self.chunk = Some(InChunk {
                                records,
                                pos: 0,
                                chunk_offset: at as u64,
                                records_offset,
                            });
                            continue;
                        }
                        Err(e) => return Some(Err(self.damage(e, at as u64, frame.len as u64))),
                    }
                }
                Record::Attachment(a) => {
                    let scope = attachment_crc_scope(frame.content, &a);
                    if let Some(e) = self.check_crc(a.crc, scope, "attachment crc", at as u64) {
                        return Some(Err(self.damage(e, at as u64, frame.len as u64)));
                    }
                    return Some(Ok(Record::Attachment(a)));
                }
                Record::DataEnd(d) => {
                    self.data_end_end = Some(self.pos);
                    let scope = &data[..at];
                    if let Some(e) =
                        self.check_crc(d.data_section_crc, scope, "data_section_crc", at as u64)
                    {
                        return Some(Err(self.damage(e, 0, at as u64)));
                    }
                    return Some(Ok(Record::DataEnd(d)));
                }
                Record::Footer(f) => {
                    self.footer_seen = true;
                    self.state = State::AfterFooter;
                    let start = match f.summary_start {
                        0 => self.data_end_end.unwrap_or(at),
                        s => usize::try_from(s).unwrap_or(usize::MAX),
                    };
                    let end = at + 25;
                    if f.summary_crc != 0 && start > end {
                        let e = Error::malformed(
                            at as u64 + 9,
                            "summary_start before the Footer",
                            f.summary_start.to_string(),
                        );
                        return Some(Err(self.damage(e, at as u64, frame.len as u64)));
                    }
                    let scope = data.get(start.min(end)..end).unwrap_or_default();
                    if let Some(e) =
                        self.check_crc(f.summary_crc, scope, "summary_crc", at as u64 + 25)
                    {
                        return Some(Err(self.damage(
                            e,
                            start as u64,
                            (end - start.min(end)) as u64,
                        )));
                    }
                    return Some(Ok(Record::Footer(f)));
                }
                other => return Some(Ok(other)),
            }
        }
    }
}
