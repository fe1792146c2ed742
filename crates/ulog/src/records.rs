//! The file header and the message types of the format, one variant per
//! message type letter, parsed with nom from the payload bytes (zero copy).

use logcore::FormatError;
use nom::Parser;
use nom::bytes::complete::take;
use nom::number::complete::{le_u8, le_u16, le_u64};

use crate::error::{Error, Result};
use crate::format::BasicType;
use std::borrow::Cow;

use crate::text::{lossy, lossy_cow};

/// The 7 magic bytes every ULog file starts with.
pub const MAGIC: &[u8; 7] = b"ULog\x01\x12\x35";

/// True when `first_bytes` start with the ULog magic [`MAGIC`] (the
/// version byte that follows is checked by [`ULog::parse`](crate::ULog::parse)).
///
/// ```
/// assert!(ulogfile::probe(b"ULog\x01\x12\x35\x01"));
/// assert!(!ulogfile::probe(b"ULog\x01\x12\x36"));
/// ```
pub fn probe(first_bytes: &[u8]) -> bool {
    first_bytes.starts_with(MAGIC)
}

/// The 8-byte payload of a sync (`S`) message.
pub const SYNC_MAGIC: [u8; 8] = [0x2F, 0x73, 0x13, 0x20, 0x25, 0x0C, 0xBB, 0x12];

/// Size of the file header.
pub const HEADER_LEN: usize = 16;

/// Size of a message header (`msg_size` u16 + `msg_type` u8).
pub const MESSAGE_HEADER_LEN: usize = 3;

type NomError<'a> = nom::error::Error<&'a [u8]>;

/// The 16-byte file header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileHeader {
    /// File format version byte (0 for 2016-era logs, 1 today).
    pub version: u8,
    /// Start of logging in microseconds, on the clock of the message timestamps.
    pub timestamp: u64,
}

impl FileHeader {
    /// Parses the header at the start of `data`.
    ///
    /// ```
    /// let mut f = ulogfile::MAGIC.to_vec();
    /// f.push(1);
    /// f.extend_from_slice(&112_500_176u64.to_le_bytes());
    /// let h = ulogfile::FileHeader::parse(&f)?;
    /// assert_eq!((h.version, h.timestamp), (1, 112_500_176));
    /// # Ok::<(), ulogfile::Error>(())
    /// ```
    pub fn parse(data: &[u8]) -> Result<FileHeader> {
        let head = &data[..data.len().min(MAGIC.len())];
        if !MAGIC.starts_with(head) || head.is_empty() {
            return Err(Error::malformed(
                0,
                "the ULog magic 55 4c 6f 67 01 12 35",
                logcore::error::hex_preview(head),
            ));
        }
        let (_, (_, version, timestamp)) =
            (take(7usize), le_u8, le_u64)
                .parse(data)
                .map_err(|_: nom::Err<NomError<'_>>| {
                    Error::truncated(
                        0,
                        "the 16-byte ULog file header",
                        HEADER_LEN.saturating_sub(data.len()) as u64,
                    )
                })?;
        Ok(FileHeader { version, timestamp })
    }

    /// The header bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[..7].copy_from_slice(MAGIC);
        b[7] = self.version;
        b[8..].copy_from_slice(&self.timestamp.to_le_bytes());
        b
    }
}

/// The flag-bits (`B`) message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FlagBits {
    /// Compatible flags; bit 0 of byte 0 = DEFAULT_PARAMETERS.
    pub compat_flags: [u8; 8],
    /// Incompatible flags; bit 0 of byte 0 = DATA_APPENDED.
    pub incompat_flags: [u8; 8],
    /// Absolute offsets where appended data starts (0 = unused).
    pub appended_offsets: [u64; 3],
}

impl FlagBits {
    /// Whether the DATA_APPENDED incompatible flag is set.
    pub fn data_appended(&self) -> bool {
        self.incompat_flags[0] & 1 != 0
    }

    /// Whether the DEFAULT_PARAMETERS compatible flag is set.
    pub fn default_parameters(&self) -> bool {
        self.compat_flags[0] & 1 != 0
    }

    /// Whether an incompatible flag other than DATA_APPENDED is set.
    pub fn has_unknown_incompat(&self) -> bool {
        self.incompat_flags[0] & !1 != 0 || self.incompat_flags[1..].iter().any(|&b| b != 0)
    }

    /// The used appended offsets (trailing zeros removed).
    pub fn offsets(&self) -> Vec<u64> {
        let mut v = self.appended_offsets.to_vec();
        while v.last() == Some(&0) {
            v.pop();
        }
        v
    }

    /// The 40-byte payload.
    pub fn to_bytes(&self) -> [u8; 40] {
        let mut b = [0u8; 40];
        b[..8].copy_from_slice(&self.compat_flags);
        b[8..16].copy_from_slice(&self.incompat_flags);
        for (i, o) in self.appended_offsets.iter().enumerate() {
            b[16 + 8 * i..24 + 8 * i].copy_from_slice(&o.to_le_bytes());
        }
        b
    }
}

/// A decoded `I`/`M`/`P`/`Q` value.
#[derive(Debug, Clone, PartialEq)]
pub enum InfoValue<'a> {
    /// `char[N]`: text (invalid UTF-8 bytes are dropped, as pyulog does).
    String(String),
    /// Signed integer types.
    Int(i64),
    /// Unsigned integer types.
    UInt(u64),
    /// `float` (kept as `f32`).
    Float(f32),
    /// `double`.
    Double(f64),
    /// `bool`.
    Bool(bool),
    /// A single `char`.
    Char(u8),
    /// Anything else (arrays of non-char types): the raw bytes.
    Bytes(&'a [u8]),
}

impl InfoValue<'_> {
    /// Numeric value as `f64`.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            InfoValue::Int(v) => Some(v as f64),
            InfoValue::UInt(v) => Some(v as f64),
            InfoValue::Float(v) => Some(f64::from(v)),
            InfoValue::Double(v) => Some(v),
            _ => None,
        }
    }

    /// Integer value.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            InfoValue::Int(v) => Some(v),
            InfoValue::UInt(v) => i64::try_from(v).ok(),
            _ => None,
        }
    }

    /// Text value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            InfoValue::String(s) => Some(s),
            _ => None,
        }
    }
}

/// The `key_len`/key/value part shared by `I`, `M`, `P` and `Q`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyValue<'a> {
    /// The key text, `type name` (e.g. `char[3] sys_name`).
    pub key: &'a [u8],
    /// The value bytes.
    pub value: &'a [u8],
}

impl<'a> KeyValue<'a> {
    /// A `key_len` larger than the rest cuts the key short and leaves an
    /// empty value, as pyulog reads it.
    fn parse(input: &'a [u8]) -> nom::IResult<&'a [u8], KeyValue<'a>, NomError<'a>> {
        let (input, key_len) = le_u8(input)?;
        let (value, key) = take(usize::from(key_len).min(input.len())).parse(input)?;
        Ok((&value[value.len()..], KeyValue { key, value }))
    }

    /// Whether pyulog's decoding of this key/value raises `struct.error`
    /// (a basic type whose value has the wrong size), which ends its
    /// reading of a data segment.
    pub fn pyulog_stops(&self) -> bool {
        if self.name_bytes().is_none() {
            return false;
        }
        let ty = self.type_bytes();
        !ty.starts_with(b"char[")
            && BasicType::from_name_bytes(&ty).is_some_and(|b| b.size() != self.value.len())
    }

    /// The type part of the key as pyulog sees it (invalid UTF-8 dropped),
    /// borrowed when it is ASCII (always, in practice).
    fn type_bytes(&self) -> Cow<'a, [u8]> {
        let ty = self.parts().0;
        if ty.is_ascii() {
            Cow::Borrowed(ty)
        } else {
            Cow::Owned(lossy(ty).into_bytes())
        }
    }

    /// The type part and the name part of the key (split at its spaces:
    /// the name is what follows the first, up to the next; `None` when
    /// there is no space).
    fn parts(&self) -> (&'a [u8], Option<&'a [u8]>) {
        let key = self.key;
        match key.iter().position(|&b| b == b' ') {
            None => (key, None),
            Some(i) => {
                let rest = &key[i + 1..];
                let end = rest.iter().position(|&b| b == b' ').unwrap_or(rest.len());
                (&key[..i], Some(&rest[..end]))
            }
        }
    }

    /// The type part of the key (`char[3]`).
    pub fn type_str(&self) -> String {
        self.type_cow().into_owned()
    }

    /// The type part, borrowed when it is valid UTF-8 (no allocation for
    /// the thousand or so parameters of a log).
    pub(crate) fn type_cow(&self) -> Cow<'a, str> {
        lossy_cow(self.parts().0)
    }

    /// The raw name part of the key, `None` when the key has no space.
    pub(crate) fn name_bytes(&self) -> Option<&'a [u8]> {
        self.parts().1
    }

    /// The name part of the key (`sys_name`), `None` when the key has no space.
    pub fn name(&self) -> Option<String> {
        self.name_bytes().map(lossy)
    }

    /// Decodes the value by the key's type, as pyulog does: `char[..]` as
    /// text, basic types as numbers (the value must have the type's size),
    /// anything else as raw bytes. `offset` is used in the error.
    pub fn decode(&self, offset: u64) -> Result<InfoValue<'a>> {
        Ok(match self.kind(offset)? {
            ValueKind::Text => InfoValue::String(lossy(self.value)),
            ValueKind::Bytes => InfoValue::Bytes(self.value),
            ValueKind::Basic(basic) => crate::sample::read_basic(basic, self.value, 0)
                .map_or(InfoValue::Bytes(self.value), |v| v.into()),
        })
    }

    /// What [`KeyValue::decode`] checks, without making the value.
    pub(crate) fn check(&self, offset: u64) -> Result<()> {
        self.kind(offset).map(|_| ())
    }

    /// How [`KeyValue::decode`] reads the value; the error when the value
    /// does not have its basic type's size.
    fn kind(&self, offset: u64) -> Result<ValueKind> {
        let ty = self.type_bytes();
        if ty.starts_with(b"char[") {
            return Ok(ValueKind::Text);
        }
        let Some(basic) = BasicType::from_name_bytes(&ty) else {
            return Ok(ValueKind::Bytes);
        };
        if self.value.len() != basic.size() {
            return Err(Error::malformed(
                offset,
                format!("a {}-byte value for type {}", basic.size(), self.type_cow()),
                format!("{} bytes", self.value.len()),
            ));
        }
        Ok(ValueKind::Basic(basic))
    }
}

/// How a key/value's value is read.
enum ValueKind {
    /// `char[..]`: text.
    Text,
    /// A basic type of the right size: a number.
    Basic(BasicType),
    /// Any other type: raw bytes.
    Bytes,
}

/// A logged string (`L`) or tagged logged string (`C`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoggedString<'a> {
    /// Log level byte, an ASCII digit `'0'` (emergency) to `'7'` (debug).
    pub level: u8,
    /// The tag of a `C` message, `None` for `L`.
    pub tag: Option<u16>,
    /// Timestamp in microseconds.
    pub timestamp: u64,
    /// Message text bytes.
    pub text: &'a [u8],
    /// Offset of the message in the file.
    pub offset: u64,
}

impl LoggedString<'_> {
    /// The level's name as pyulog prints it (`ERROR`, `INFO`, ...).
    pub fn level_name(&self) -> &'static str {
        match self.level {
            b'0' => "EMERGENCY",
            b'1' => "ALERT",
            b'2' => "CRITICAL",
            b'3' => "ERROR",
            b'4' => "WARNING",
            b'5' => "NOTICE",
            b'6' => "INFO",
            b'7' => "DEBUG",
            _ => "UNKNOWN",
        }
    }

    /// The text (invalid UTF-8 dropped).
    pub fn text(&self) -> String {
        lossy(self.text)
    }
}

/// One message, parsed by its type letter.
#[derive(Debug, Clone, PartialEq)]
pub enum Record<'a> {
    /// `B`: flag bits (and the length of the payload, which may exceed 40).
    FlagBits(FlagBits, usize),
    /// `F`: a format definition (the text).
    Format(&'a [u8]),
    /// `I`: information.
    Info(KeyValue<'a>),
    /// `M`: multi information: `is_continued` and the key/value.
    MultiInfo(bool, KeyValue<'a>),
    /// `P`: a parameter.
    Parameter(KeyValue<'a>),
    /// `Q`: a default parameter: the `default_types` bits and the key/value.
    DefaultParameter(u8, KeyValue<'a>),
    /// `A`: subscription: multi_id, msg_id, format name.
    Subscription {
        /// Instance number.
        multi_id: u8,
        /// Id used by `D` messages.
        msg_id: u16,
        /// Format name.
        name: &'a [u8],
    },
    /// `R`: unsubscription of a msg_id.
    Unsubscription(u16),
    /// `D`: data: msg_id and the sample bytes.
    Data(u16, &'a [u8]),
    /// `L` or `C`: a logged string.
    Logging(LoggedString<'a>),
    /// `S`: synchronisation (whether the payload is the sync magic).
    Sync(bool),
    /// `O`: dropout of this many milliseconds.
    Dropout(u16),
    /// Any other type letter: skipped.
    Unknown(u8, &'a [u8]),
}

impl<'a> Record<'a> {
    /// Whether pyulog 1.3.0 stops reading the current data segment at this
    /// message (its fixed fields do not fit, so Python's `struct` raises
    /// an error that ends the loop without marking the file corrupt).
    pub fn pyulog_stops(msg_type: u8, payload: &[u8]) -> bool {
        let kv_stops = |p: &[u8]| kv(p).map_or(true, |kv| kv.pyulog_stops());
        match msg_type {
            b'I' | b'P' => kv_stops(payload),
            b'M' | b'Q' => payload.is_empty() || kv_stops(&payload[1..]),
            b'A' => payload.len() < 3,
            b'L' => payload.len() < 9,
            b'C' => payload.len() < 11,
            b'D' => payload.len() < 2,
            b'O' => payload.len() != 2,
            _ => false,
        }
    }

    /// Parses the payload of a message of type `msg_type` found at `offset`
    /// (the offset of its 3-byte header).
    pub fn parse(msg_type: u8, payload: &'a [u8], offset: u64) -> Result<Record<'a>> {
        let short = |what: &str| {
            Error::malformed(
                offset,
                format!("a '{}' message with {what}", msg_type as char),
                format!("{} payload bytes", payload.len()),
            )
        };
        Ok(match msg_type {
            b'B' => {
                if payload.len() < 16 {
                    return Err(short("at least 16 bytes of flags"));
                }
                let mut fb = FlagBits::default();
                fb.compat_flags.copy_from_slice(&payload[..8]);
                fb.incompat_flags.copy_from_slice(&payload[8..16]);
                for (i, chunk) in payload[16..payload.len().min(40)]
                    .chunks_exact(8)
                    .enumerate()
                {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(chunk);
                    fb.appended_offsets[i] = u64::from_le_bytes(b);
                }
                Record::FlagBits(fb, payload.len())
            }
            b'F' => Record::Format(payload),
            b'I' => Record::Info(kv(payload).map_err(|_| short("a key length and key"))?),
            b'P' => Record::Parameter(kv(payload).map_err(|_| short("a key length and key"))?),
            b'M' => {
                let (rest, cont) =
                    le_u8::<_, NomError<'_>>(payload).map_err(|_| short("an is_continued byte"))?;
                Record::MultiInfo(
                    cont != 0,
                    kv(rest).map_err(|_| short("a key length and key"))?,
                )
            }
            b'Q' => {
                let (rest, bits) =
                    le_u8::<_, NomError<'_>>(payload).map_err(|_| short("a default_types byte"))?;
                Record::DefaultParameter(bits, kv(rest).map_err(|_| short("a key length and key"))?)
            }
            b'A' => {
                let (name, (multi_id, msg_id)) = (le_u8::<_, NomError<'_>>, le_u16)
                    .parse(payload)
                    .map_err(|_| short("multi_id and msg_id"))?;
                Record::Subscription {
                    multi_id,
                    msg_id,
                    name,
                }
            }
            b'R' => {
                let (_, id) = le_u16::<_, NomError<'_>>(payload).map_err(|_| short("a msg_id"))?;
                Record::Unsubscription(id)
            }
            b'D' => {
                let (data, id) =
                    le_u16::<_, NomError<'_>>(payload).map_err(|_| short("a msg_id"))?;
                Record::Data(id, data)
            }
            b'L' => {
                let (text, (level, timestamp)) = (le_u8::<_, NomError<'_>>, le_u64)
                    .parse(payload)
                    .map_err(|_| short("a level and timestamp"))?;
                Record::Logging(LoggedString {
                    level,
                    tag: None,
                    timestamp,
                    text,
                    offset,
                })
            }
            b'C' => {
                let (text, (level, tag, timestamp)) = (le_u8::<_, NomError<'_>>, le_u16, le_u64)
                    .parse(payload)
                    .map_err(|_| short("a level, tag and timestamp"))?;
                Record::Logging(LoggedString {
                    level,
                    tag: Some(tag),
                    timestamp,
                    text,
                    offset,
                })
            }
            b'S' => Record::Sync(payload == SYNC_MAGIC),
            b'O' => {
                if payload.len() != 2 {
                    return Err(short("exactly 2 bytes (duration)"));
                }
                Record::Dropout(u16::from_le_bytes([payload[0], payload[1]]))
            }
            other => Record::Unknown(other, payload),
        })
    }
}

fn kv(input: &[u8]) -> std::result::Result<KeyValue<'_>, nom::Err<NomError<'_>>> {
    KeyValue::parse(input).map(|(_, kv)| kv)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A type with invalid UTF-8 is read as pyulog reads it, with those
    /// bytes dropped: `int\xff32_t` is `int32_t`.
    #[test]
    fn types_with_invalid_utf8_read_as_without_it() {
        let kv = |key: &'static [u8], value: &'static [u8]| KeyValue { key, value };
        let four: &'static [u8] = &[7, 0, 0, 0];
        let v = kv(b"int\xff32_t x", four).decode(0).unwrap();
        assert_eq!(v, kv(b"int32_t x", four).decode(0).unwrap());
        assert!(!matches!(v, InfoValue::Bytes(_)));
        assert!(kv(b"int\xff32_t x", &[1, 2]).decode(9).is_err());
        assert!(kv(b"int\xff32_t x", &[1, 2]).pyulog_stops());
        assert!(!kv(b"ch\xffar[2] x", &[1, 2, 3]).pyulog_stops());
        assert!(matches!(
            kv(b"ch\xffar[2] x", b"ab").decode(0).unwrap(),
            InfoValue::String(_)
        ));
    }

    #[test]
    fn parses_each_type() {
        let r = Record::parse(b'I', b"\x10char[3] sys_namePX4", 16).unwrap();
        let Record::Info(kv) = r else { panic!() };
        assert_eq!(kv.name().as_deref(), Some("sys_name"));
        assert_eq!(kv.decode(16).unwrap(), InfoValue::String("PX4".into()));
        let r = Record::parse(b'P', b"\x0bfloat ALPHA\x00\x00\x80\x3f", 0).unwrap();
        let Record::Parameter(kv) = r else { panic!() };
        assert_eq!(kv.decode(0).unwrap(), InfoValue::Float(1.0));
        let err = Record::parse(b'P', b"\x0bfloat ALPHA\x00\x00", 40).unwrap();
        let Record::Parameter(kv) = err else { panic!() };
        assert_eq!(kv.decode(40).unwrap_err().offset(), Some(40));
        // A key length past the end cuts the key (as pyulog reads it).
        let Record::Info(kv) = Record::parse(b'I', b"\x30abc", 7).unwrap() else {
            panic!()
        };
        assert_eq!((kv.key, kv.value, kv.name()), (&b"abc"[..], &b""[..], None));
        assert!(Record::parse(b'I', b"", 7).is_err());
        assert!(Record::pyulog_stops(b'I', b"\x0fuint32_t x\x01\x02"));
        assert!(!Record::pyulog_stops(b'I', b"\x0bchar[2] x\x01"));
        assert!(Record::pyulog_stops(b'O', &[1]) && Record::pyulog_stops(b'L', b"3"));
        assert_eq!(
            Record::parse(b'A', b"\x01\x05\x00imu", 0).unwrap(),
            Record::Subscription {
                multi_id: 1,
                msg_id: 5,
                name: b"imu"
            }
        );
        assert_eq!(
            Record::parse(b'O', &[62, 0], 0).unwrap(),
            Record::Dropout(62)
        );
        assert!(Record::parse(b'O', &[62], 0).is_err());
        assert_eq!(
            Record::parse(b'S', &SYNC_MAGIC, 0).unwrap(),
            Record::Sync(true)
        );
        let Record::Logging(l) = Record::parse(b'C', b"6\x01\x00\x05\0\0\0\0\0\0\0hi", 0).unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (l.level_name(), l.tag, l.timestamp, l.text),
            ("INFO", Some(1), 5, &b"hi"[..])
        );
        assert!(Record::parse(b'L', b"3\x01", 0).is_err());
        assert_eq!(
            Record::parse(b'x', b"zz", 0).unwrap(),
            Record::Unknown(b'x', b"zz")
        );
    }

    #[test]
    fn header_and_flags() {
        assert!(
            FileHeader::parse(b"ULog\x01")
                .unwrap_err()
                .to_string()
                .contains("truncated")
        );
        assert!(FileHeader::parse(b"NotULog at all!!").is_err());
        let mut b = vec![0u8; 40];
        b[8] = 3;
        let Record::FlagBits(f, 40) = Record::parse(b'B', &b, 0).unwrap() else {
            panic!()
        };
        assert!(f.data_appended() && f.has_unknown_incompat());
        assert!(Record::parse(b'B', &b[..15], 0).is_err());
    }
}
