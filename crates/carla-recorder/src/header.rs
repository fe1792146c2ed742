//! The info header at the start of every recording (spec §2.1).

use std::borrow::Cow;

use logcore::cursor::Cursor;

use crate::error::{Error, Result};
use crate::wire::{Put, fields};

/// The magic string that follows the version.
pub const MAGIC: &[u8] = b"CARLA_RECORDER";

/// True when `first_bytes` hold a recording's start: a `u16` version, then
/// [`MAGIC`] as a string with its `u16` length (the version itself is not
/// checked: CARLA always writes 1, see [`VERSION`]).
///
/// ```
/// assert!(carla_recorder::probe(b"\x01\x00\x0e\x00CARLA_RECORDER"));
/// assert!(!carla_recorder::probe(b"\x01\x00\x0d\x00CARLA_RECORDER"));
/// ```
pub fn probe(first_bytes: &[u8]) -> bool {
    first_bytes.len() >= 4 + MAGIC.len()
        && first_bytes[2..4] == (MAGIC.len() as u16).to_le_bytes()
        && &first_bytes[4..4 + MAGIC.len()] == MAGIC
}

/// The version CARLA writes (it never changed, see spec §9).
pub const VERSION: u16 = 1;

/// The info header: version, magic, start date and map name.
///
/// ```
/// use carla_recorder::InfoHeader;
/// let bytes = b"\x01\x00\x0e\x00CARLA_RECORDER\x98\x9d\x50\x5f\0\0\0\0\x06\x00Town01";
/// let (h, len) = InfoHeader::parse(bytes).unwrap();
/// assert_eq!((h.version, h.date, h.map_name().as_ref(), len), (1, 1_599_118_744, "Town01", 34));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InfoHeader<'a> {
    /// Always 1 in CARLA's files; cannot tell layouts apart.
    pub version: u16,
    /// Seconds since the Unix epoch when recording started (C `time_t`).
    pub date: i64,
    /// The map name as stored, e.g. `Town01`.
    pub map: &'a [u8],
}

impl<'a> InfoHeader<'a> {
    /// A header with version 1.
    pub fn new(date: i64, map: &'a [u8]) -> Self {
        InfoHeader {
            version: VERSION,
            date,
            map,
        }
    }

    /// Parses the header at the start of `data`; returns it and its length.
    pub fn parse(data: &'a [u8]) -> Result<(Self, usize)> {
        let mut f = fields(data, 0, "info header");
        let need = |f: &Cursor<'_>, more: usize| {
            Error::truncated(
                0,
                "the info header",
                (more - f.remaining().min(more)) as u64,
            )
        };
        if f.remaining() < 4 {
            return Err(need(&f, 4));
        }
        let version = f.u16("version")?;
        let magic_len = f.u16("magic length")?;
        if usize::from(magic_len) != MAGIC.len() {
            return Err(Error::malformed(
                2,
                "the magic string \"CARLA_RECORDER\" (length 14)",
                format!("a string of length {magic_len}"),
            ));
        }
        if f.remaining() < MAGIC.len() {
            return Err(need(&f, MAGIC.len()));
        }
        let magic = f.bytes(MAGIC.len() as u64, "magic")?;
        if magic != MAGIC {
            return Err(Error::malformed(
                4,
                "the magic string \"CARLA_RECORDER\"",
                format!("{:?}", String::from_utf8_lossy(magic)),
            ));
        }
        if f.remaining() < 10 {
            return Err(need(&f, 10));
        }
        let date = f.i64("date")?;
        let map_len = usize::from(f.u16("map name length")?);
        if f.remaining() < map_len {
            return Err(need(&f, map_len));
        }
        let map = f.bytes(map_len as u64, "map name")?;
        let len = (f.offset()) as usize;
        Ok((InfoHeader { version, date, map }, len))
    }

    /// The map name, decoded as UTF-8 (lossily).
    pub fn map_name(&self) -> Cow<'a, str> {
        String::from_utf8_lossy(self.map)
    }

    /// Appends the header's bytes to `out`.
    pub fn write(&self, out: &mut Vec<u8>) -> Result<()> {
        out.put_u16(self.version);
        out.put_string(MAGIC)?;
        out.put_i64(self.date);
        out.put_string(self.map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &[u8] = b"\x01\x00\x0e\x00CARLA_RECORDER\x98\x9d\x50\x5f\0\0\0\0\x06\x00Town01";

    #[test]
    fn spec_example_round_trips() {
        let (h, len) = InfoHeader::parse(SPEC).unwrap();
        assert_eq!(len, 34);
        let mut out = Vec::new();
        h.write(&mut out).unwrap();
        assert_eq!(out, SPEC);
    }

    #[test]
    fn every_prefix_is_truncation() {
        for n in 0..SPEC.len() {
            let e = InfoHeader::parse(&SPEC[..n]).unwrap_err();
            assert!(e.is_truncated(), "prefix {n}: {e}");
            assert_eq!(e.offset(), Some(0));
        }
    }

    #[test]
    fn wrong_magic_names_the_offset() {
        let mut bad = SPEC.to_vec();
        bad[5] = b'X';
        let e = InfoHeader::parse(&bad).unwrap_err();
        assert_eq!(e.offset(), Some(4));
        assert!(e.to_string().contains("CARLA_RECORDER"));
    }
}
