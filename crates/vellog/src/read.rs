//! The reader: [`VelLog`] over a byte slice, the [`Records`] iterator, and
//! the index check that decides whether the index may steer time seeks.
//!
//! # Time seeks and the index
//!
//! Timestamps are not guaranteed to grow across sensors (spec 5.11), so a
//! time-filtered iteration never stops early: it reads to the end of the
//! file. The index only chooses where to *start*. Its defining rule (spec
//! 5.4, and what [`crate::Writer`] writes) is: entry k is the first message
//! in file order with `t − t_first ≥ 1000·k`. Under that rule every message
//! before entry k has `t < t_first + 1000·k`, whatever the order of the
//! timestamps, so starting at entry `k = floor((start − t_first − 1 ms) / 1000)`
//! skips only messages before `start` (the 1 ms margin absorbs rounding to
//! nanoseconds). The index is used only when everything about it that can
//! be checked without a full scan holds (see [`IndexCheck`]); otherwise the
//! iteration starts at the first message.

use logcore::FormatError;
use std::sync::{Arc, OnceLock};

use logcore::{ReadMode, Timestamp};

use crate::error::{Error, Result};
use crate::frame::{
    Frame, Plausibility, Record, SizeConvention, detect_convention, frame_at, plausible_at, resync,
};
use crate::header::{FileHeader, Index};
use crate::registry::Registry;
use crate::scan::Scan;

/// A VEL log read from memory. Creating one reads the header and index
/// and detects the size convention; messages are read lazily.
///
/// ```
/// use vellog::{MessageData, RobotPose, VelLog, Writer};
/// let mut w = Writer::new(std::io::Cursor::new(Vec::new())).unwrap();
/// let pose = RobotPose { orientation: [1.0, 0.0, 0.0, 0.0], acceleration: [0.0, 0.0, 9.81] };
/// w.write(1000.0, &MessageData::RobotPose(pose)).unwrap();
/// let file = w.into_inner().unwrap().into_inner();
///
/// let log = VelLog::new(&file).unwrap();
/// for rec in log.records() {
///     let rec = rec.unwrap();
///     assert_eq!(rec.timestamp_ms, 1000.0);
///     assert_eq!(rec.decode().unwrap(), MessageData::RobotPose(pose));
/// }
/// ```
pub struct VelLog<'a> {
    data: &'a [u8],
    header: FileHeader,
    index: Index<'a>,
    first_message: usize,
    convention: SizeConvention,
    convention_evidence: usize,
    registry: Arc<Registry>,
    index_check: OnceLock<IndexCheck>,
    pub(crate) scan: OnceLock<Scan>,
}

impl std::fmt::Debug for VelLog<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VelLog")
            .field("len", &self.data.len())
            .field("header", &self.header)
            .field("index_entries", &self.index.len())
            .field("convention", &self.convention)
            .finish_non_exhaustive()
    }
}

/// What the index check found (see the module docs for how it is used).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IndexCheck {
    /// Number of entries.
    pub entries: usize,
    /// Entries that do not point at a plausible message header inside the
    /// file: (entry number, stored offset, reason).
    pub bad_entries: Vec<(usize, i64, String)>,
    /// Whether the index follows the defining rule as far as it can be
    /// checked: entry 0 is the first message, every entry points at a
    /// plausible header, offsets and their timestamps never decrease, and
    /// the message at entry k lies in second k (or later, when it is also
    /// the entry of the following seconds). Only then is it used for seeks.
    pub usable: bool,
    /// Why the index is not usable, when it is not.
    pub reason: Option<String>,
}

/// Where a [`Records`] iteration ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndOfRecords {
    /// Exactly at the end of the file.
    EndOfFile,
    /// At a `FF FF FF FF` terminator at this offset.
    Terminator {
        /// Offset of the terminator.
        offset: u64,
        /// Bytes after the terminator (normally 0).
        trailing: u64,
    },
    /// At a truncated message or a strict-mode error.
    Error,
}

impl<'a> VelLog<'a> {
    /// Opens a log with the [built-in message types](Registry::builtin).
    pub fn new(data: &'a [u8]) -> Result<Self> {
        Self::with_registry(data, Registry::builtin())
    }

    /// Opens a log with a registry of message types (for user-defined
    /// types, see [`Registry::register`]).
    pub fn with_registry(data: &'a [u8], registry: Registry) -> Result<Self> {
        let header = FileHeader::parse(data)?;
        let index = Index::parse(data)?;
        // `end_offset` is at most the input length (checked by `Index::parse`).
        let first_message = index.end_offset() as usize;
        let (convention, convention_evidence) = detect_convention(data, first_message);
        Ok(VelLog {
            data,
            header,
            index,
            first_message,
            convention,
            convention_evidence,
            registry: Arc::new(registry),
            index_check: OnceLock::new(),
            scan: OnceLock::new(),
        })
    }

    /// The file's bytes.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The file header (version).
    pub fn header(&self) -> FileHeader {
        self.header
    }

    /// The index as stored.
    pub fn index(&self) -> Index<'a> {
        self.index
    }

    /// The detected size convention.
    pub fn size_convention(&self) -> SizeConvention {
        self.convention
    }

    /// How many leading messages (plus one for a clean end) the detected
    /// convention explained.
    pub fn size_convention_evidence(&self) -> usize {
        self.convention_evidence
    }

    /// Offset of the first message: `12 + 8n`.
    pub fn first_message_offset(&self) -> u64 {
        self.first_message as u64
    }

    /// The message types this reader knows.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Every message in file order, strict mode.
    pub fn records(&self) -> Records<'a> {
        self.records_with(ReadMode::Strict)
    }

    /// Every message in file order in `mode`.
    pub fn records_with(&self, mode: ReadMode) -> Records<'a> {
        self.records_from(self.first_message as u64, mode)
    }

    /// Messages from `offset` on (an index entry, or a [`Record::end`]).
    /// An offset that is not a message boundary yields an error (strict)
    /// or a resynchronisation (lenient).
    pub fn records_from(&self, offset: u64, mode: ReadMode) -> Records<'a> {
        Records {
            data: self.data,
            pos: usize::try_from(offset).unwrap_or(usize::MAX),
            convention: self.convention,
            registry: Arc::clone(&self.registry),
            mode,
            end: None,
        }
    }

    /// Timestamp of the first message, if it has one.
    pub fn first_timestamp_ms(&self) -> Option<f64> {
        match frame_at(self.data, self.first_message, self.convention, true) {
            Frame::Record(r) => Some(r.timestamp_ms),
            _ => None,
        }
    }

    /// The result of checking the index (computed once, reading only the
    /// headers the entries point at).
    pub fn index_check(&self) -> &IndexCheck {
        self.index_check.get_or_init(|| self.check_index())
    }

    fn check_index(&self) -> IndexCheck {
        let mut check = IndexCheck {
            entries: self.index.len(),
            ..IndexCheck::default()
        };
        let mut reason: Option<String> = None;
        let t_first = self.first_timestamp_ms();
        let mut prev: Option<(i64, f64)> = None;
        for (k, off) in self.index.iter().enumerate() {
            let rec = usize::try_from(off)
                .ok()
                .filter(|&o| o >= self.first_message && o < self.data.len())
                .and_then(|o| {
                    plausible_at(
                        self.data,
                        o,
                        self.convention,
                        &self.registry,
                        Plausibility::Framing,
                    )
                });
            let Some(rec) = rec else {
                let why = if off < self.first_message as i64 || off >= self.data.len() as i64 {
                    "outside the message area of the file"
                } else {
                    "not at a message header"
                };
                if check.bad_entries.len() < 32 {
                    check.bad_entries.push((k, off, why.to_owned()));
                }
                reason.get_or_insert_with(|| format!("entry {k} ({off}) is {why}"));
                continue;
            };
            if reason.is_some() {
                continue;
            }
            if k == 0 && off != self.first_message as i64 {
                reason = Some(format!("entry 0 ({off}) is not the first message"));
            }
            let second = t_first.map(|t0| ((rec.timestamp_ms - t0) / 1000.0).floor());
            if second.is_none_or(|s| s < k as f64) {
                reason = Some(format!("entry {k} points at a message before second {k}"));
            }
            if let Some((prev_off, prev_t)) = prev {
                if off < prev_off || rec.timestamp_ms < prev_t {
                    reason = Some(format!("entry {k} goes backwards"));
                }
                // A strictly later entry means the previous one's message
                // lies in the previous second exactly.
                let prev_second = t_first.map(|t0| ((prev_t - t0) / 1000.0).floor());
                if off > prev_off && prev_second != Some((k - 1) as f64) {
                    reason = Some(format!("entry {} is not in second {}", k - 1, k - 1));
                }
            }
            prev = Some((off, rec.timestamp_ms));
        }
        if check.entries == 0 {
            reason = Some("the index is empty".into());
        }
        check.usable = reason.is_none();
        check.reason = reason;
        check
    }

    /// Where an iteration for messages at or after `start` may begin: an
    /// index entry when the index is usable (see the module docs), else
    /// the first message.
    pub fn start_offset_for(&self, start: Timestamp) -> u64 {
        let first = self.first_message as u64;
        if !self.index_check().usable {
            return first;
        }
        let Some(t0) = self.first_timestamp_ms() else {
            return first;
        };
        let start_ms = start.as_nanos() as f64 / 1e6;
        let k = ((start_ms - t0 - 1.0) / 1000.0).floor();
        // NaN (non-finite start) and seconds before 1 start at the beginning.
        if k.is_nan() || k < 1.0 {
            return first;
        }
        let k = (k as usize).min(self.index.len().saturating_sub(1));
        self.index
            .get(k)
            .and_then(|o| u64::try_from(o).ok())
            .unwrap_or(first)
    }
}

/// Iterator over the messages of a [`VelLog`] in file order.
///
/// Yields `Err` for damage: in strict mode the first error ends the
/// iteration; in lenient mode an [`ParseError::Skipped`](crate::ParseError::Skipped) is yielded and reading
/// goes on at the next plausible message. A truncated last message ends
/// the iteration with an [`ParseError::Truncated`](crate::ParseError::Truncated) in both modes.
#[derive(Debug, Clone)]
pub struct Records<'a> {
    data: &'a [u8],
    pos: usize,
    convention: SizeConvention,
    registry: Arc<Registry>,
    mode: ReadMode,
    end: Option<EndOfRecords>,
}

impl<'a> Records<'a> {
    /// Where the iteration ended, once it has.
    pub fn end(&self) -> Option<EndOfRecords> {
        self.end
    }

    /// Offset of the next message to be read.
    pub fn position(&self) -> u64 {
        self.pos as u64
    }

    /// Reports the bytes from `at` to `target` (or to the end) as skipped
    /// and continues at `target`.
    fn skip_to(&mut self, at: usize, target: Option<usize>, reason: &Error) -> Result<Record<'a>> {
        let to = target.unwrap_or(self.data.len());
        match target {
            Some(p) => self.pos = p,
            None => self.end = Some(EndOfRecords::Error),
        }
        Err(Error::skipped(
            at as u64,
            to.saturating_sub(at) as u64,
            reason.to_string(),
        ))
    }

    fn resync_after(&self, at: usize) -> Option<usize> {
        resync(
            self.data,
            at.saturating_add(1),
            self.convention,
            &self.registry,
        )
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<Record<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.end.is_some() {
            return None;
        }
        let lenient = self.mode == ReadMode::Lenient;
        match frame_at(self.data, self.pos, self.convention, lenient) {
            Frame::End => {
                self.end = Some(EndOfRecords::EndOfFile);
                None
            }
            Frame::Terminator => {
                let after = self.pos as u64 + 4;
                self.end = Some(EndOfRecords::Terminator {
                    offset: self.pos as u64,
                    trailing: (self.data.len() as u64).saturating_sub(after),
                });
                None
            }
            Frame::Record(rec) => {
                // `end` lies within the input, so it fits in usize.
                self.pos = rec.end() as usize;
                Some(Ok(rec))
            }
            Frame::Truncated(e) => {
                // In lenient mode a size field damaged to point past the end
                // looks like truncation; if a plausible message follows, it
                // was damage, not the end.
                if lenient {
                    if let Some(target) = self.resync_after(self.pos) {
                        return Some(self.skip_to(self.pos, Some(target), &e));
                    }
                }
                self.end = Some(EndOfRecords::Error);
                Some(Err(e))
            }
            Frame::Corrupt(e) => {
                if lenient {
                    let target = self.resync_after(self.pos);
                    Some(self.skip_to(self.pos, target, &e))
                } else {
                    self.end = Some(EndOfRecords::Error);
                    Some(Err(e))
                }
            }
        }
    }
}

impl std::iter::FusedIterator for Records<'_> {}
