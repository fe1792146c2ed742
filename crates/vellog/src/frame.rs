//! Message framing: the 21-byte message header, the two readings of the
//! `size` field (spec 5.1), the end-of-file rules (2.5, 5.3), and the
//! plausibility test used for convention detection, index validation and
//! lenient resynchronisation (5.10).

use logcore::FormatError;
use logcore::Timestamp;
use logcore::cursor::Cursor;

use crate::error::{Error, Result};
use crate::header::{MARKER, MARKER_ASCII_ONE, MESSAGE_HEADER_LEN, TERMINATOR};
use crate::message::MessageData;
use crate::registry::Registry;
/// What the `size` field of a message counts (spec 5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SizeConvention {
    /// (a) `size` counts the whole message including all 21 header bytes:
    /// payload = `size − 21`. The documented reading, and what we write.
    #[default]
    IncludesHeader,
    /// (b) `size` excludes its own 4 bytes: payload = `size − 17` (the
    /// original note's "size − 17"); the message spans `size + 4` bytes.
    ExcludesSizeField,
}

impl SizeConvention {
    /// `"a"` or `"b"`, as in the spec.
    pub const fn letter(self) -> &'static str {
        match self {
            SizeConvention::IncludesHeader => "a",
            SizeConvention::ExcludesSizeField => "b",
        }
    }

    /// Bytes of the header the `size` field counts.
    pub const fn counted_header_len(self) -> u32 {
        match self {
            SizeConvention::IncludesHeader => 21,
            SizeConvention::ExcludesSizeField => 17,
        }
    }

    /// The payload length a `size` field means, `None` when `size` is too
    /// small to hold the header.
    pub fn payload_len(self, size: u32) -> Option<u32> {
        size.checked_sub(self.counted_header_len())
    }

    /// The `size` field for a payload length, `None` when it does not fit.
    pub fn size_for(self, payload_len: usize) -> Option<u32> {
        u32::try_from(payload_len)
            .ok()?
            .checked_add(self.counted_header_len())
            .filter(|&s| s != TERMINATOR)
    }
}

/// One message as stored: header fields and the payload slice.
///
/// ```
/// # use vellog::{MessageData, RobotPose, Writer};
/// # let mut w = Writer::new(std::io::Cursor::new(Vec::new())).unwrap();
/// # w.write(1000.0, &MessageData::RobotPose(RobotPose::default())).unwrap();
/// # let file = w.into_inner().unwrap().into_inner();
/// let log = vellog::VelLog::new(&file).unwrap();
/// let rec = log.records().next().unwrap().unwrap();
/// assert_eq!((rec.offset, rec.type_id, rec.version), (20, vellog::ROBOT_POSE, 100));
/// assert_eq!(rec.timestamp_ms, 1000.0);
/// assert!(matches!(rec.decode().unwrap(), vellog::MessageData::RobotPose(_)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Record<'a> {
    /// Absolute offset of the message's `size` field.
    pub offset: u64,
    /// The `size` field as stored.
    pub size: u32,
    /// The marker byte (0x49, or 0x31 accepted in lenient mode).
    pub marker: u8,
    /// Message type id.
    pub type_id: i32,
    /// Payload version.
    pub version: i32,
    /// Milliseconds since the recording program started, as stored.
    pub timestamp_ms: f64,
    /// The payload bytes.
    pub payload: &'a [u8],
}

impl<'a> Record<'a> {
    /// Absolute offset of the first payload byte.
    pub fn payload_offset(&self) -> u64 {
        self.offset + MESSAGE_HEADER_LEN as u64
    }

    /// Absolute offset just past the message (where the next one starts).
    pub fn end(&self) -> u64 {
        self.payload_offset() + self.payload.len() as u64
    }

    /// The timestamp in nanoseconds; an error when it is not finite or out
    /// of range.
    pub fn timestamp(&self) -> Result<Timestamp> {
        Timestamp::from_millis_f64(self.timestamp_ms).ok_or_else(|| {
            Error::malformed(
                self.offset + 13,
                "a finite timestamp in milliseconds within ±292 years",
                format!("{}", self.timestamp_ms),
            )
        })
    }

    /// Decodes the payload by (type, version); unknown pairs stay raw.
    pub fn decode(&self) -> Result<MessageData<'a>> {
        MessageData::parse(
            self.type_id,
            self.version,
            self.payload,
            self.payload_offset(),
        )
    }
}

/// What sits at a message boundary.
#[derive(Debug)]
pub(crate) enum Frame<'a> {
    /// Exactly at the end of the file.
    End,
    /// A `FF FF FF FF` terminator.
    Terminator,
    /// A complete message.
    Record(Record<'a>),
    /// The file ends inside the message (or its size field).
    Truncated(Error),
    /// Not a message header.
    Corrupt(Error),
}

/// Reads the message at `pos`, applying the end-of-file rules.
pub(crate) fn frame_at(
    data: &[u8],
    pos: usize,
    conv: SizeConvention,
    accept_ascii_one: bool,
) -> Frame<'_> {
    let Some(rest) = data.get(pos..) else {
        return Frame::Corrupt(Error::malformed(
            pos as u64,
            "a message boundary inside the file",
            format!("a position past its end ({} bytes)", data.len()),
        ));
    };
    if rest.is_empty() {
        return Frame::End;
    }
    let mut f = Cursor::new(rest, pos as u64, "message header");
    let Ok(size) = f.u32("size") else {
        return Frame::Truncated(Error::truncated(
            pos as u64,
            "message size field (4 bytes)",
            (4 - rest.len()) as u64,
        ));
    };
    if size == TERMINATOR {
        return Frame::Terminator;
    }
    let Some(payload_len) = conv.payload_len(size) else {
        return Frame::Corrupt(Error::malformed(
            pos as u64,
            format!(
                "message size of at least {} (size convention {})",
                conv.counted_header_len(),
                conv.letter()
            ),
            format!("{size}"),
        ));
    };
    if let Some(&marker) = rest.get(4) {
        if marker != MARKER && !(accept_ascii_one && marker == MARKER_ASCII_ONE) {
            let hint = if marker == MARKER_ASCII_ONE {
                " ('1', accepted in lenient mode)"
            } else {
                ""
            };
            return Frame::Corrupt(Error::malformed(
                pos as u64 + 4,
                "message marker 0x49",
                format!("0x{marker:02x}{hint}"),
            ));
        }
    }
    let total = MESSAGE_HEADER_LEN as u64 + u64::from(payload_len);
    if total > rest.len() as u64 {
        return Frame::Truncated(Error::truncated(
            pos as u64,
            format!("message of {total} bytes (size field {size})"),
            total - rest.len() as u64,
        ));
    }
    // The message fits, so the header fields cannot run short.
    let header = (|| -> Result<_> {
        let marker = f.u8("marker")?;
        let type_id = f.i32("type")?;
        let version = f.i32("version")?;
        let timestamp_ms = f.f64("timestamp")?;
        let payload = f.bytes(u64::from(payload_len), "payload")?;
        Ok((marker, type_id, version, timestamp_ms, payload))
    })();
    match header {
        Ok((marker, type_id, version, timestamp_ms, payload)) => Frame::Record(Record {
            offset: pos as u64,
            size,
            marker,
            type_id,
            version,
            timestamp_ms,
            payload,
        }),
        Err(e) => Frame::Corrupt(e),
    }
}

/// How strict [`plausible_at`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Plausibility {
    /// Any (type, version), any finite timestamp: for index entries, which
    /// may point at messages of types we do not know.
    Framing,
    /// Spec 5.10: a registered (type, version) pair and a finite,
    /// non-negative timestamp: for resynchronising inside damaged bytes.
    Resync,
}

/// Whether a message plausibly starts at `pos`: a complete header with
/// marker 0x49, a size that fits the file, and a believable next boundary
/// (end of file, terminator, or another header with marker 0x49).
pub(crate) fn plausible_at<'a>(
    data: &'a [u8],
    pos: usize,
    conv: SizeConvention,
    registry: &Registry,
    how: Plausibility,
) -> Option<Record<'a>> {
    let Frame::Record(rec) = frame_at(data, pos, conv, false) else {
        return None;
    };
    let time_ok = match how {
        Plausibility::Framing => rec.timestamp_ms.is_finite(),
        Plausibility::Resync => rec.timestamp_ms.is_finite() && rec.timestamp_ms >= 0.0,
    };
    let type_ok = how == Plausibility::Framing || registry.is_known(rec.type_id, rec.version);
    if !time_ok || !type_ok {
        return None;
    }
    let next = usize::try_from(rec.end()).ok()?;
    let after = data.get(next..)?;
    let next_ok = match after {
        [] => true,
        [0xFF, 0xFF, 0xFF, 0xFF, ..] => true,
        [s0, s1, s2, s3, marker, ..] => {
            let size = u32::from_le_bytes([*s0, *s1, *s2, *s3]);
            *marker == MARKER && conv.payload_len(size).is_some()
        }
        // Fewer than 5 bytes: a truncated next message; nothing to check.
        _ => true,
    };
    next_ok.then_some(rec)
}

/// The first position after `from` where a message plausibly starts
/// (spec 5.10), if any.
pub(crate) fn resync(
    data: &[u8],
    from: usize,
    conv: SizeConvention,
    registry: &Registry,
) -> Option<usize> {
    // Look for the marker byte and test the header it would belong to.
    let mut p = from;
    loop {
        let marker_at = p.checked_add(4)?;
        let found = data.get(marker_at..)?.iter().position(|&b| b == MARKER)?;
        let candidate = p + found;
        if plausible_at(data, candidate, conv, registry, Plausibility::Resync).is_some() {
            return Some(candidate);
        }
        p = candidate + 1;
    }
}

/// Whether a message boundary at `pos` is confirmed: end of file, a
/// terminator, or a marker byte where the next header has it.
fn boundary_confirmed(data: &[u8], pos: usize) -> bool {
    match data.get(pos..) {
        Some([]) | Some([0xFF, 0xFF, 0xFF, 0xFF, ..]) => true,
        Some([_, _, _, _, marker, ..]) => *marker == MARKER || *marker == MARKER_ASCII_ONE,
        _ => false,
    }
}

/// How well a size convention explains the first messages, as a sortable
/// key: (messages whose payload has the size its type requires, messages
/// whose end is a confirmed boundary, no contradiction met). Payload sizes
/// come first because an end of file "confirms" a boundary even where a
/// file was merely cut.
fn convention_score(
    data: &[u8],
    first: usize,
    conv: SizeConvention,
    limit: usize,
) -> (usize, usize, bool) {
    let mut pos = first;
    let (mut confirmed, mut payloads_ok, mut contradiction) = (0, 0, false);
    for _ in 0..limit {
        let rec = match frame_at(data, pos, conv, true) {
            Frame::Record(rec) => rec,
            Frame::Corrupt(_) => {
                contradiction = true;
                break;
            }
            Frame::End | Frame::Terminator | Frame::Truncated(_) => break,
        };
        // Fixed-size payloads (and counted ones) must come out exactly.
        if rec.decode().is_ok() {
            payloads_ok += 1;
        } else {
            contradiction = true;
        }
        let Ok(next) = usize::try_from(rec.end()) else {
            break;
        };
        if !boundary_confirmed(data, next) {
            break;
        }
        confirmed += 1;
        pos = next;
    }
    (payloads_ok, confirmed, !contradiction)
}

/// Detects the size convention from the first messages (spec 5.1): the
/// one with more payloads of the right size wins, then the one whose
/// message ends land on confirmed boundaries more often, then the one that
/// met no contradiction; on a full tie, (a). Returns the convention and
/// the number of messages it confirmed.
pub(crate) fn detect_convention(data: &[u8], first: usize) -> (SizeConvention, usize) {
    const LIMIT: usize = 16;
    let a = convention_score(data, first, SizeConvention::IncludesHeader, LIMIT);
    let b = convention_score(data, first, SizeConvention::ExcludesSizeField, LIMIT);
    if b > a {
        (SizeConvention::ExcludesSizeField, b.1)
    } else {
        (SizeConvention::IncludesHeader, a.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(conv: SizeConvention, marker: u8, payload: &[u8]) -> Vec<u8> {
        let mut m = Vec::new();
        m.extend_from_slice(&conv.size_for(payload.len()).unwrap().to_le_bytes());
        m.push(marker);
        m.extend_from_slice(&crate::hash::OBD_DATA.to_le_bytes());
        m.extend_from_slice(&100i32.to_le_bytes());
        m.extend_from_slice(&5.0f64.to_le_bytes());
        m.extend_from_slice(payload);
        m
    }

    #[test]
    fn end_of_file_rules() {
        let conv = SizeConvention::IncludesHeader;
        let m = message(conv, MARKER, &[0; 28]);
        assert!(matches!(frame_at(&m, 0, conv, false), Frame::Record(r) if r.end() == 49));
        assert!(matches!(frame_at(&m, 49, conv, false), Frame::End));
        assert!(matches!(
            frame_at(&[0xFF; 4], 0, conv, false),
            Frame::Terminator
        ));
        match frame_at(&m[..30], 0, conv, false) {
            Frame::Truncated(Error::Parse(crate::ParseError::Truncated { needed, .. })) => {
                assert_eq!(needed, 19)
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            frame_at(&m[..2], 0, conv, false),
            Frame::Truncated(_)
        ));
        for size in [0u32, 20] {
            let mut bad = m.clone();
            bad[..4].copy_from_slice(&size.to_le_bytes());
            assert!(matches!(frame_at(&bad, 0, conv, false), Frame::Corrupt(_)));
        }
        let mut huge = m.clone();
        huge[..4].copy_from_slice(&0xFFFF_FFFEu32.to_le_bytes());
        assert!(matches!(
            frame_at(&huge, 0, conv, false),
            Frame::Truncated(_)
        ));
    }

    #[test]
    fn marker_one_only_when_lenient() {
        let conv = SizeConvention::IncludesHeader;
        let m = message(conv, MARKER_ASCII_ONE, &[0; 28]);
        assert!(matches!(frame_at(&m, 0, conv, false), Frame::Corrupt(_)));
        assert!(matches!(frame_at(&m, 0, conv, true), Frame::Record(r) if r.marker == 0x31));
    }

    #[test]
    fn detects_both_conventions() {
        for conv in [
            SizeConvention::IncludesHeader,
            SizeConvention::ExcludesSizeField,
        ] {
            let mut f = message(conv, MARKER, &[0; 28]);
            f.extend(message(conv, MARKER, &[1; 28]));
            let (got, n) = detect_convention(&f, 0);
            assert_eq!((got, n), (conv, 2));
            // A single message is enough.
            assert_eq!(detect_convention(&f[..49], 0).0, conv);
        }
        assert_eq!(detect_convention(&[], 0).0, SizeConvention::IncludesHeader);
    }

    #[test]
    fn resync_finds_the_next_message() {
        let conv = SizeConvention::IncludesHeader;
        let reg = Registry::builtin();
        let mut f = vec![0x49u8; 37];
        let at = f.len();
        f.extend(message(conv, MARKER, &[0; 28]));
        assert_eq!(resync(&f, 0, conv, &reg), Some(at));
        assert_eq!(resync(&f, at + 1, conv, &reg), None);
    }
}
