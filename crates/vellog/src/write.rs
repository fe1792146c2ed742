//! The writer.
//!
//! # How the index gets written
//!
//! The index sits *before* the messages and its length `n` is known only at
//! the end. The writer therefore works in two phases:
//!
//! 1. [`Writer::new`] writes the header and an **empty index** (`n = 0`),
//!    then every message is appended as it comes, while the writer notes in
//!    memory the offset of the first message of each second (8 bytes per
//!    second of log). Until [`Writer::finish`], the sink holds a complete,
//!    valid VEL file with an empty index: a writer that is interrupted
//!    leaves a file every reader can read up to its last complete message.
//! 2. [`Writer::finish`] moves the messages forward by `8·n` bytes, copying
//!    from the end backwards in 1 MiB steps, then writes `n` and finally the
//!    entries. The result follows spec 5.4 exactly: origin = the first
//!    message's timestamp, `n = floor((t_max − t_first) / 1000) + 1`, entry
//!    k = offset of the first message (in file order) with
//!    `t − t_first ≥ 1000·k` (`t_max` is the latest timestamp; it is the last
//!    one when timestamps grow).
//!
//! The price is one extra pass over the file at `finish` and a sink that
//! can be read back (`Read + Write + Seek`: a [`std::fs::File`] opened for
//! reading and writing, as [`Writer::create`] does, or a
//! [`std::io::Cursor`]). An interruption *during* `finish` leaves the
//! messages intact but possibly a stretch of them twice or behind stale
//! bytes; a lenient read recovers every message.
//!
//! Rejected alternatives: buffering the whole log in memory (an interrupted
//! writer leaves nothing), and reserving index room up front (a sink that
//! can only `Write + Seek` cannot shrink the file when the log ends early,
//! so the final `n` could not follow 5.4).

use logcore::FormatError;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use crate::error::{Error, Result};
use crate::frame::{Record, SizeConvention};
use crate::header::{FileHeader, MAGIC, MARKER, MESSAGE_HEADER_LEN, TERMINATOR};
use crate::message::MessageData;
use crate::registry::Registry;

/// An index longer than this (about 115 days) is refused: a timestamp jump
/// that large is a bug in the caller, and the index lives in memory.
pub const MAX_INDEX_ENTRIES: usize = 10_000_000;

/// Bytes moved per step when `finish` makes room for the index.
const SHIFT_CHUNK: u64 = 1 << 20;

/// How a [`Writer`] lays out the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriterOptions {
    /// End the file with an `FF FF FF FF` terminator (spec 2.5). Off by
    /// default; turn on to rewrite a file that had one byte for byte.
    pub terminator: bool,
    /// What `size` counts. Convention (a), the documented one, by default;
    /// (b) only to rewrite such a file byte for byte.
    pub size_convention: SizeConvention,
    /// Minor version written in the header (major is always 1).
    pub minor_version: u16,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            terminator: false,
            size_convention: SizeConvention::IncludesHeader,
            minor_version: FileHeader::default().minor,
        }
    }
}

/// Writes a VEL log. See the [module docs](self) for the index design.
///
/// ```
/// use std::io::Cursor;
/// use vellog::{MessageData, ObdData, VelLog, Writer};
/// let mut w = Writer::new(Cursor::new(Vec::new())).unwrap();
/// for i in 0..25 {
///     let obd = ObdData { speed_kmh: i, ..Default::default() };
///     w.write(100.0 * f64::from(i), &MessageData::ObdData(obd)).unwrap();
/// }
/// let file = w.into_inner().unwrap().into_inner();
/// let log = VelLog::new(&file).unwrap();
/// assert_eq!(log.index().len(), 3); // seconds 0, 1 and 2
/// assert_eq!(log.records().count(), 25);
/// ```
#[derive(Debug)]
pub struct Writer<W: Read + Write + Seek> {
    sink: W,
    options: WriterOptions,
    pub(crate) registry: Registry,
    /// (type, version) of each channel handed out by the logcore writer.
    pub(crate) channels: Vec<(i32, i32)>,
    /// Stream position of the file's first byte.
    base: u64,
    /// File length so far (with the provisional empty index).
    len: u64,
    t_first: Option<f64>,
    /// Provisional offset of the first message of each second.
    entries: Vec<u64>,
    buf: Vec<u8>,
    finished: bool,
    broken: bool,
}

/// Writes a whole file of `records` (messages read from another file,
/// each as stored but for the marker, always written as 0x49) to `out`
/// in one sequential pass: header, the index of spec 5.4 (computed from
/// the records' timestamps and sizes before anything is written, so the
/// sink needs neither `Read` nor `Seek`), the messages, and the
/// terminator when `options` asks for one. The file equals what a
/// [`Writer`] with the same options writes from the same records.
///
/// ```
/// use std::io::Cursor;
/// use vellog::{MessageData, ObdData, VelLog, Writer, WriterOptions, write::write_records};
/// let mut w = Writer::new(Cursor::new(Vec::new()))?;
/// for i in 0..25 {
///     w.write(100.0 * f64::from(i), &MessageData::ObdData(ObdData { speed_kmh: i, ..Default::default() }))?;
/// }
/// let file = w.into_inner()?.into_inner();
/// let log = VelLog::new(&file)?;
/// let records: Vec<_> = log.records().collect::<Result<_, _>>()?;
/// assert_eq!(write_records(Vec::new(), WriterOptions::default(), &records)?, file);
/// let later = write_records(Vec::new(), WriterOptions::default(), &records[12..])?;
/// assert_eq!(VelLog::new(&later)?.index().len(), 2);
/// # Ok::<(), vellog::Error>(())
/// ```
pub fn write_records<W: Write>(
    mut out: W,
    options: WriterOptions,
    records: &[Record<'_>],
) -> Result<W> {
    // Where each message starts after an empty index (as `Writer` notes
    // them), and the index entries.
    let mut len = 12u64;
    let mut entries: Vec<u64> = Vec::new();
    let t0 = records.first().map(|r| r.timestamp_ms);
    for r in records {
        if !r.timestamp_ms.is_finite() {
            return Err(Error::invalid_argument(format!(
                "message timestamp must be finite, got {}",
                r.timestamp_ms
            )));
        }
        let t0 = t0.unwrap_or(r.timestamp_ms);
        let second = ((r.timestamp_ms - t0) / 1000.0).floor();
        if second >= MAX_INDEX_ENTRIES as f64 {
            return Err(Error::invalid_argument(format!(
                "timestamp {} ms lies {second} s after the first message ({t0} ms); the index \
                 would exceed {MAX_INDEX_ENTRIES} entries",
                r.timestamp_ms
            )));
        }
        let needed = if second >= 0.0 {
            second as usize + 1
        } else {
            0
        };
        if needed > entries.len() {
            entries.resize(needed, len);
        }
        len += (MESSAGE_HEADER_LEN + r.payload.len()) as u64;
    }
    let n = u32::try_from(entries.len())
        .map_err(|_| Error::invalid_argument("index too long for the format"))?;
    let by = 8 * u64::from(n);
    let mut head = Vec::with_capacity(12 + 8 * entries.len());
    head.extend_from_slice(&MAGIC);
    head.extend_from_slice(&1u16.to_le_bytes());
    head.extend_from_slice(&options.minor_version.to_le_bytes());
    head.extend_from_slice(&n.to_le_bytes());
    for e in &entries {
        head.extend_from_slice(&((e + by) as i64).to_le_bytes());
    }
    out.write_all(&head)?;
    let mut h = [0u8; MESSAGE_HEADER_LEN];
    for r in records {
        let size = options
            .size_convention
            .size_for(r.payload.len())
            .ok_or_else(|| {
                Error::invalid_argument(format!(
                    "a payload of {} bytes does not fit a VEL message",
                    r.payload.len()
                ))
            })?;
        h[0..4].copy_from_slice(&size.to_le_bytes());
        h[4] = MARKER;
        h[5..9].copy_from_slice(&r.type_id.to_le_bytes());
        h[9..13].copy_from_slice(&r.version.to_le_bytes());
        h[13..21].copy_from_slice(&r.timestamp_ms.to_le_bytes());
        out.write_all(&h)?;
        out.write_all(r.payload)?;
    }
    if options.terminator {
        out.write_all(&TERMINATOR.to_le_bytes())?;
    }
    out.flush()?;
    Ok(out)
}

impl Writer<File> {
    /// Creates the file at `path`, opened for reading and writing as
    /// [`Writer::finish`] needs. An existing file is never replaced: that is
    /// an error (`AlreadyExists`); to replace a file safely, write to a
    /// temporary file beside it and rename it when finished.
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        let file = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)?;
        Writer::new(file)
    }
}

impl<W: Read + Write + Seek> Writer<W> {
    /// Starts a file at the sink's current position, with default options.
    pub fn new(sink: W) -> Result<Self> {
        Self::with_options(sink, WriterOptions::default())
    }

    /// Starts a file at the sink's current position.
    pub fn with_options(mut sink: W, options: WriterOptions) -> Result<Self> {
        let base = sink.stream_position()?;
        let mut head = Vec::with_capacity(12);
        head.extend_from_slice(&MAGIC);
        head.extend_from_slice(&1u16.to_le_bytes());
        head.extend_from_slice(&options.minor_version.to_le_bytes());
        head.extend_from_slice(&0u32.to_le_bytes());
        sink.write_all(&head)?;
        Ok(Writer {
            sink,
            options,
            registry: Registry::builtin(),
            channels: Vec::new(),
            base,
            len: head.len() as u64,
            t_first: None,
            entries: Vec::new(),
            buf: Vec::new(),
            finished: false,
            broken: false,
        })
    }

    /// Uses `registry` to resolve type names in [`logcore::LogWriter::add_channel`].
    pub fn with_registry(mut self, registry: Registry) -> Self {
        self.registry = registry;
        self
    }

    /// Appends a typed message.
    pub fn write(&mut self, timestamp_ms: f64, data: &MessageData<'_>) -> Result<()> {
        self.write_with(data.type_id(), data.version(), timestamp_ms, |buf| {
            data.write_to(buf)
        })
    }

    /// Appends a message with a raw payload.
    pub fn write_raw(
        &mut self,
        type_id: i32,
        version: i32,
        timestamp_ms: f64,
        payload: &[u8],
    ) -> Result<()> {
        self.write_with(type_id, version, timestamp_ms, |buf| {
            buf.extend_from_slice(payload);
            Ok(())
        })
    }

    /// Appends a message read from another file, as stored (the marker is
    /// always written as 0x49).
    pub fn write_record(&mut self, record: &Record<'_>) -> Result<()> {
        self.write_raw(
            record.type_id,
            record.version,
            record.timestamp_ms,
            record.payload,
        )
    }

    fn write_with(
        &mut self,
        type_id: i32,
        version: i32,
        timestamp_ms: f64,
        payload: impl FnOnce(&mut Vec<u8>) -> Result<()>,
    ) -> Result<()> {
        if self.finished || self.broken {
            return Err(Error::invalid_argument(
                "the writer is finished or failed earlier; start a new file",
            ));
        }
        if !timestamp_ms.is_finite() {
            return Err(Error::invalid_argument(format!(
                "message timestamp must be finite, got {timestamp_ms}"
            )));
        }
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        buf.extend_from_slice(&[0; MESSAGE_HEADER_LEN]);
        let filled = payload(&mut buf);
        let result = filled.and_then(|()| {
            let payload_len = buf.len() - MESSAGE_HEADER_LEN;
            let size = self
                .options
                .size_convention
                .size_for(payload_len)
                .ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "a payload of {payload_len} bytes does not fit a VEL message"
                    ))
                })?;
            buf[0..4].copy_from_slice(&size.to_le_bytes());
            buf[4] = MARKER;
            buf[5..9].copy_from_slice(&type_id.to_le_bytes());
            buf[9..13].copy_from_slice(&version.to_le_bytes());
            buf[13..21].copy_from_slice(&timestamp_ms.to_le_bytes());
            self.append(timestamp_ms, &buf)
        });
        self.buf = buf;
        result
    }

    fn append(&mut self, timestamp_ms: f64, message: &[u8]) -> Result<()> {
        let t0 = *self.t_first.get_or_insert(timestamp_ms);
        let second = ((timestamp_ms - t0) / 1000.0).floor();
        let needed = if second >= 0.0 {
            if second >= MAX_INDEX_ENTRIES as f64 {
                return Err(Error::invalid_argument(format!(
                    "timestamp {timestamp_ms} ms lies {second} s after the first message \
                     ({t0} ms); the index would exceed {MAX_INDEX_ENTRIES} entries"
                )));
            }
            second as usize + 1
        } else {
            0
        };
        if let Err(e) = self.sink.write_all(message) {
            // Part of the message may be on disk: further messages would
            // not line up.
            self.broken = true;
            return Err(e.into());
        }
        if needed > self.entries.len() {
            self.entries.resize(needed, self.len);
        }
        self.len += message.len() as u64;
        Ok(())
    }

    /// Moves `[12, len)` forward by `by` bytes, from the end backwards so
    /// no byte is overwritten before it has been copied.
    fn shift_messages(&mut self, by: u64) -> Result<()> {
        let mut end = self.len;
        let mut chunk = vec![0u8; SHIFT_CHUNK.min(self.len.saturating_sub(12)) as usize];
        while end > 12 {
            let start = end.saturating_sub(SHIFT_CHUNK).max(12);
            let n = (end - start) as usize;
            let piece = &mut chunk[..n];
            self.sink.seek(SeekFrom::Start(self.base + start))?;
            self.sink.read_exact(piece)?;
            self.sink.seek(SeekFrom::Start(self.base + start + by))?;
            self.sink.write_all(piece)?;
            end = start;
        }
        Ok(())
    }

    /// Writes the optional terminator and the index (see the module docs),
    /// and flushes. Further writes fail; calling it again does nothing.
    pub fn finish(&mut self) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        if self.broken {
            return Err(Error::invalid_argument(
                "the writer failed earlier; the file holds the messages before the failure",
            ));
        }
        self.broken = true; // until the index is complete
        if self.options.terminator {
            self.sink.write_all(&TERMINATOR.to_le_bytes())?;
            self.len += 4;
        }
        let n = u32::try_from(self.entries.len())
            .map_err(|_| Error::invalid_argument("index too long for the format"))?;
        let by = 8 * u64::from(n);
        if n > 0 {
            self.shift_messages(by)?;
            // `n` first: between the two writes the file is still valid (the
            // messages are already where the new `n` says they start, and
            // stale entries are mere hints that fail validation).
            self.sink.seek(SeekFrom::Start(self.base + 8))?;
            self.sink.write_all(&n.to_le_bytes())?;
            let mut index = Vec::with_capacity(8 * self.entries.len());
            for &e in &self.entries {
                let final_offset = (e + by) as i64;
                index.extend_from_slice(&final_offset.to_le_bytes());
            }
            self.sink.write_all(&index)?;
        }
        self.len += by;
        self.sink.seek(SeekFrom::Start(self.base + self.len))?;
        self.sink.flush()?;
        self.broken = false;
        self.finished = true;
        Ok(())
    }

    /// Finishes the file and returns the sink.
    pub fn into_inner(mut self) -> Result<W> {
        self.finish()?;
        Ok(self.sink)
    }

    /// Bytes in the file so far (before `finish`, with the empty index).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether no message has been written yet.
    pub fn is_empty(&self) -> bool {
        self.t_first.is_none()
    }
}
