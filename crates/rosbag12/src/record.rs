//! Record framing shared by versions 1.2 and 2.0 (spec 1.2):
//! `u32 header_len | header | u32 data_len | data`, where the header is a
//! run of `u32 field_len | name '=' value` fields.
//!
//! Nothing here allocates: a [`Record`] borrows its header and data from
//! the buffer, and [`Header`] looks fields up by walking the header bytes
//! (a record header holds a handful of fields).

use logcore::FormatError;
use nom::Parser;
use nom::bytes::complete::take;
use nom::number::complete::{le_u32, le_u64};

use crate::error::{Error, Result};
use crate::time::RosTime;

type NomError<'a> = nom::error::Error<&'a [u8]>;

/// Where a buffer being parsed lives, so errors can name a file offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Position `p` in the buffer is file offset `base + p` (the file
    /// itself, or an uncompressed chunk's data at `base`).
    File {
        /// File offset of the buffer's first byte.
        base: u64,
    },
    /// A decompressed chunk: errors name the chunk record's offset and the
    /// position inside the decompressed payload.
    Chunk {
        /// File offset of the chunk record.
        offset: u64,
    },
}

impl Origin {
    /// The file offset to report for buffer position `pos`.
    pub(crate) fn at(self, pos: usize) -> u64 {
        match self {
            Origin::File { base } => base.saturating_add(pos as u64),
            Origin::Chunk { offset } => offset,
        }
    }

    /// Where `pos` is, for inside compressed chunks.
    fn context(self, pos: usize) -> String {
        match self {
            Origin::File { .. } => String::new(),
            Origin::Chunk { .. } => format!(" (at byte {pos} of the decompressed chunk)"),
        }
    }

    pub(crate) fn malformed(
        self,
        pos: usize,
        expected: impl std::fmt::Display,
        found: impl Into<String>,
    ) -> Error {
        Error::malformed(
            self.at(pos),
            format!("{expected}{}", self.context(pos)),
            found,
        )
    }

    pub(crate) fn truncated(
        self,
        pos: usize,
        expected: impl std::fmt::Display,
        needed: u64,
    ) -> Error {
        match self {
            Origin::File { .. } => Error::truncated(self.at(pos), expected.to_string(), needed),
            // A decompressed chunk has its declared size; running out inside
            // it is damage, not a cut file.
            Origin::Chunk { .. } => self.malformed(
                pos,
                expected,
                format!("the end of the chunk payload ({needed} bytes short)"),
            ),
        }
    }
}

/// Reads a little-endian u32 at `pos`, if four bytes are there.
pub(crate) fn u32_at(buf: &[u8], pos: usize) -> Option<u32> {
    let rest = buf.get(pos..)?;
    le_u32::<_, NomError<'_>>.parse(rest).ok().map(|(_, v)| v)
}

/// One field of a record header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field<'a> {
    /// The name (before the first `=`).
    pub name: &'a [u8],
    /// The value (after the first `=`), raw bytes.
    pub value: &'a [u8],
    /// Buffer position of the value's first byte.
    pub(crate) pos: usize,
}

/// A record header: validated field framing, fields looked up on demand.
#[derive(Debug, Clone, Copy)]
pub struct Header<'a> {
    bytes: &'a [u8],
    pos: usize,
    origin: Origin,
}

impl<'a> Header<'a> {
    /// Checks the framing of every field of a header that starts at buffer
    /// position `pos`.
    pub(crate) fn parse(bytes: &'a [u8], pos: usize, origin: Origin) -> Result<Self> {
        Self::parse_op(bytes, pos, origin).map(|(h, _)| h)
    }

    /// Validates like [`Header::parse`] and returns the value of the last
    /// `op` field, in the same pass (the hot path of message iteration).
    pub(crate) fn parse_op(
        bytes: &'a [u8],
        pos: usize,
        origin: Origin,
    ) -> Result<(Self, Option<&'a [u8]>)> {
        let h = Header { bytes, pos, origin };
        let mut op = None;
        let mut at = 0usize;
        while at < bytes.len() {
            let (_, len) = field_len(&bytes[at..]).ok_or_else(|| {
                origin.malformed(
                    pos + at,
                    "a 4-byte header field length",
                    "fewer bytes left in the header",
                )
            })?;
            let body_at = at + 4;
            let body = bytes
                .get(body_at..)
                .filter(|b| len as usize <= b.len())
                .map(|b| &b[..len as usize])
                .ok_or_else(|| {
                    origin.malformed(
                        pos + at,
                        format!("a header field of {len} bytes"),
                        format!(
                            "{} bytes left in the header",
                            bytes.len() - body_at.min(bytes.len())
                        ),
                    )
                })?;
            let Some(eq) = body.iter().position(|&b| b == b'=') else {
                return Err(origin.malformed(
                    pos + body_at,
                    "a header field `name=value`",
                    format!("no `=` in {}", logcore::error::hex_preview(body)),
                ));
            };
            if &body[..eq] == b"op" {
                op = Some(&body[eq + 1..]);
            }
            at = body_at + len as usize;
        }
        Ok((h, op))
    }

    /// The `conn` and `time` fields of a message data header, in one pass.
    pub(crate) fn conn_and_time(&self) -> (Option<Field<'a>>, Option<Field<'a>>) {
        let mut conn = None;
        let mut time = None;
        for f in self.fields() {
            match f.name {
                b"conn" => conn = Some(f),
                b"time" => time = Some(f),
                _ => {}
            }
        }
        (conn, time)
    }

    /// The fields in stored order.
    pub fn fields(&self) -> impl Iterator<Item = Field<'a>> + 'a {
        let bytes = self.bytes;
        let base = self.pos;
        let mut at = 0usize;
        std::iter::from_fn(move || {
            let (_, len) = field_len(bytes.get(at..)?)?;
            let body_at = at + 4;
            let body = bytes.get(body_at..body_at.checked_add(len as usize)?)?;
            let eq = body.iter().position(|&b| b == b'=')?;
            at = body_at + len as usize;
            Some(Field {
                name: &body[..eq],
                value: &body[eq + 1..],
                pos: base + body_at + eq + 1,
            })
        })
    }

    /// The field `name`; when a name repeats, the last one wins (as in ROS).
    pub fn get(&self, name: &str) -> Option<Field<'a>> {
        self.fields().filter(|f| f.name == name.as_bytes()).last()
    }

    /// Raw header bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    fn require(&self, name: &str, what: &str) -> Result<Field<'a>> {
        self.get(name).ok_or_else(|| {
            self.origin.malformed(
                self.pos,
                format!("field `{name}` in the {what} header"),
                "no such field",
            )
        })
    }

    fn sized(&self, name: &str, what: &str, size: usize) -> Result<Field<'a>> {
        let f = self.require(name, what)?;
        if f.value.len() == size {
            Ok(f)
        } else {
            Err(self.origin.malformed(
                f.pos,
                format!("a {size}-byte value of field `{name}` in the {what} header"),
                format!("{} bytes", f.value.len()),
            ))
        }
    }

    /// The one-byte `op` field.
    pub(crate) fn op(&self) -> Result<u8> {
        Ok(self.sized("op", "record", 1)?.value[0])
    }

    /// A little-endian u32 field.
    pub(crate) fn u32(&self, name: &str, what: &str) -> Result<u32> {
        let f = self.sized(name, what, 4)?;
        Ok(u32_at(f.value, 0).unwrap_or_default())
    }

    /// A little-endian u64 field.
    pub(crate) fn u64(&self, name: &str, what: &str) -> Result<u64> {
        let f = self.sized(name, what, 8)?;
        Ok(le_u64::<_, NomError<'_>>
            .parse(f.value)
            .map(|(_, v)| v)
            .unwrap_or_default())
    }

    /// A time field (u32 sec, u32 nsec).
    pub(crate) fn time(&self, name: &str, what: &str) -> Result<RosTime> {
        let f = self.sized(name, what, 8)?;
        Ok(RosTime::from_le_bytes(f.value))
    }

    /// A text field (kept as raw bytes in the file; converted lossily).
    pub(crate) fn string(&self, name: &str, what: &str) -> Result<String> {
        Ok(String::from_utf8_lossy(self.require(name, what)?.value).into_owned())
    }

    /// An optional text field.
    pub(crate) fn opt_string(&self, name: &str) -> Option<String> {
        self.get(name)
            .map(|f| String::from_utf8_lossy(f.value).into_owned())
    }
}

fn field_len(b: &[u8]) -> Option<(&[u8], u32)> {
    le_u32::<_, NomError<'_>>.parse(b).ok()
}

/// One framed record.
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    /// Buffer position of the record's first byte.
    pub pos: usize,
    /// The header.
    pub header: Header<'a>,
    /// The op code.
    pub op: u8,
    /// The data.
    pub data: &'a [u8],
    /// Buffer position of the data's first byte.
    pub data_pos: usize,
    /// The data length the record states (differs from `data.len()` only
    /// for the early-2.0 index data quirk, spec 2.6).
    pub stated_data_len: u32,
    /// Buffer position just after the record.
    pub end: usize,
    pub(crate) origin: Origin,
}

impl<'a> Record<'a> {
    /// Frames the record at buffer position `pos`.
    ///
    /// Lengths are checked against what remains before anything is taken;
    /// running out of bytes is a [`ParseError::Truncated`](crate::ParseError::Truncated) (in a file) or a
    /// [`ParseError::Malformed`](crate::ParseError::Malformed) (in a decompressed chunk).
    pub(crate) fn parse(buf: &'a [u8], pos: usize, origin: Origin) -> Result<Self> {
        let rest = buf.get(pos..).unwrap_or_default();
        let Some((rest, header_len)) = field_len(rest) else {
            return Err(origin.truncated(
                pos,
                "a record (4-byte header length)",
                (4 - rest.len()) as u64,
            ));
        };
        let header_len = header_len as usize;
        let Ok((rest, header_bytes)) = take::<_, _, NomError<'_>>(header_len).parse(rest) else {
            return Err(origin.truncated(
                pos,
                format!("a record header of {header_len} bytes"),
                (header_len - rest.len()) as u64,
            ));
        };
        let (header, op) = Header::parse_op(header_bytes, pos + 4, origin)?;
        let op = match op {
            Some([op]) => *op,
            // Missing or of the wrong size: let the checked accessor say so.
            _ => header.op()?,
        };
        let data_len_pos = pos + 4 + header_len;
        let Some((rest, stated)) = field_len(rest) else {
            return Err(origin.truncated(
                pos,
                "the 4-byte data length of a record",
                (4 - rest.len()) as u64,
            ));
        };
        let data_len = if op == crate::records::op::INDEX_DATA
            && header.get("ver").is_some_and(|f| f.value == [1, 0, 0, 0])
        {
            // Spec 2.6: read exactly count * 12 bytes; early 2.0 writers
            // stated count * 20. ROS ignores data_len here, and so do we.
            let count = header.u32("count", "index data")?;
            u64::from(count) * 12
        } else {
            u64::from(stated)
        };
        let data_pos = data_len_pos + 4;
        if data_len > rest.len() as u64 {
            return Err(origin.truncated(
                pos,
                format!("a record with {data_len} bytes of data (op 0x{op:02x})"),
                data_len - rest.len() as u64,
            ));
        }
        let data = &rest[..data_len as usize];
        Ok(Record {
            pos,
            header,
            op,
            data,
            data_pos,
            stated_data_len: stated,
            end: data_pos + data.len(),
            origin,
        })
    }

    /// File offset of the record (for a compressed chunk, of the chunk).
    pub fn offset(&self) -> u64 {
        self.origin.at(self.pos)
    }

    /// File offset of the record's data (for a compressed chunk, of the chunk).
    pub fn data_offset(&self) -> u64 {
        self.origin.at(self.data_pos)
    }

    pub(crate) fn expect_op(&self, op: u8, what: &str) -> Result<()> {
        if self.op == op {
            Ok(())
        } else {
            Err(self.origin.malformed(
                self.pos,
                format!("{what} (op 0x{op:02x})"),
                format!("op 0x{:02x}", self.op),
            ))
        }
    }

    pub(crate) fn malformed(
        &self,
        expected: impl std::fmt::Display,
        found: impl Into<String>,
    ) -> Error {
        self.origin.malformed(self.pos, expected, found)
    }
}

/// Finds the next record at or after `from` whose op is one of `ops`, by
/// looking for its `op` field (`04 00 00 00 'op=' <op>`) and trying the
/// record starts that could hold it. Used to resynchronise a scan after
/// damage; `None` when no such record follows.
pub(crate) fn resync(buf: &[u8], from: usize, ops: &[u8]) -> Option<usize> {
    const PATTERN: &[u8] = b"\x04\x00\x00\x00op=";
    let mut at = from;
    while let Some(hit) = buf
        .get(at..)?
        .windows(PATTERN.len() + 1)
        .position(|w| w.starts_with(PATTERN) && ops.contains(&w[PATTERN.len()]))
    {
        let field = at + hit;
        // The op field sits in the first few fields of a header.
        let first = field.saturating_sub(260).max(from);
        for start in first..=field.saturating_sub(4) {
            if start < from {
                continue;
            }
            if let Ok(r) = Record::parse(buf, start, Origin::File { base: 0 }) {
                if ops.contains(&r.op) && r.header.pos <= field {
                    return Some(start);
                }
            }
        }
        at = field + 1;
    }
    None
}

/// Builds a record header from `(name, value)` pairs (for writers and tests).
pub fn encode_header(fields: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, value) in fields {
        let len = (name.len() + 1 + value.len()) as u32;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.push(b'=');
        out.extend_from_slice(value);
    }
    out
}

/// Builds a whole record: `header_len | header | data_len | data`.
pub fn encode_record(fields: &[(&str, &[u8])], data: &[u8]) -> Vec<u8> {
    let header = encode_header(fields);
    let mut out = Vec::with_capacity(8 + header.len() + data.len());
    out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    out.extend_from_slice(&header);
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(data);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_first_equals_and_last_wins() {
        let rec = encode_record(
            &[("op", &[2]), ("def", b"int32 A=1\n"), ("def", b"x=y")],
            b"abc",
        );
        let r = Record::parse(&rec, 0, Origin::File { base: 13 }).unwrap();
        assert_eq!(r.op, 2);
        assert_eq!(r.header.get("def").unwrap().value, b"x=y");
        assert_eq!(r.header.fields().count(), 3);
        assert_eq!(r.header.fields().nth(1).unwrap().value, b"int32 A=1\n");
        assert_eq!(r.data, b"abc");
        assert_eq!(r.end, rec.len());
        assert_eq!(r.offset(), 13);
    }

    #[test]
    fn hostile_lengths_are_errors_with_offsets() {
        let mut rec = encode_record(&[("op", &[2])], b"abc");
        let n = rec.len();
        rec[n - 7..n - 3].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = Record::parse(&rec, 0, Origin::File { base: 100 }).unwrap_err();
        assert!(e.is_truncated(), "{e}");
        assert_eq!(e.offset(), Some(100));
        let bad_field = [8u8, 0, 0, 0, 4, 0, 0, 0, b'o', b'p', b'x', 2, 0, 0, 0, 0];
        let e = Record::parse(&bad_field, 0, Origin::File { base: 0 }).unwrap_err();
        assert!(e.to_string().contains("`name=value`"), "{e}");
        let e =
            Record::parse(&[0xff, 0xff, 0xff, 0xff], 0, Origin::Chunk { offset: 5 }).unwrap_err();
        assert!(!e.is_truncated());
        assert_eq!(e.offset(), Some(5));
    }

    #[test]
    fn index_data_reads_count_times_12() {
        let mut rec = encode_record(
            &[
                ("op", &[4]),
                ("ver", &1u32.to_le_bytes()),
                ("conn", &0u32.to_le_bytes()),
                ("count", &1u32.to_le_bytes()),
            ],
            &[7u8; 12],
        );
        let n = rec.len();
        rec[n - 16..n - 12].copy_from_slice(&20u32.to_le_bytes());
        let r = Record::parse(&rec, 0, Origin::File { base: 0 }).unwrap();
        assert_eq!(r.data.len(), 12);
        assert_eq!(r.stated_data_len, 20);
        assert_eq!(r.end, n);
    }
}
