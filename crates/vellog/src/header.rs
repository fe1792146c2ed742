//! The file header and the per-second index (spec 2.2, 2.3).

use logcore::cursor::Cursor;

use crate::error::{Error, Result};
use logcore::FormatError;
/// The four magic bytes every VEL file starts with: `A4 56 45 4C` (`"\xA4VEL"`).
pub const MAGIC: [u8; 4] = *b"\xA4VEL";

/// True when `first_bytes` start with the VEL magic [`MAGIC`].
///
/// ```
/// assert!(vellog::probe(b"\xA4VEL\x01\x00\x01\x00"));
/// assert!(!vellog::probe(b"\xA4VE"));
/// ```
pub fn probe(first_bytes: &[u8]) -> bool {
    first_bytes.starts_with(&MAGIC)
}
/// Bytes in the file header (magic, major, minor).
pub const FILE_HEADER_LEN: usize = 8;
/// Bytes in a message header (size, marker, type, version, timestamp), in
/// both size conventions.
pub const MESSAGE_HEADER_LEN: usize = 21;
/// The marker byte of a valid message (`'I'`).
pub const MARKER: u8 = 0x49;
/// The marker the original note's text suggests (`'1'`), accepted in
/// lenient mode only (spec 5.2).
pub const MARKER_ASCII_ONE: u8 = 0x31;
/// A `size` field with this value ends the file (spec 2.5).
pub const TERMINATOR: u32 = 0xFFFF_FFFF;

/// The file header: format version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileHeader {
    /// Major version; only 1 is defined.
    pub major: u16,
    /// Minor version; 1 is documented, others are read the same way.
    pub minor: u16,
}

impl Default for FileHeader {
    /// Version 1.1, the documented one.
    fn default() -> Self {
        FileHeader { major: 1, minor: 1 }
    }
}

impl FileHeader {
    /// Parses the first 8 bytes of a file.
    ///
    /// ```
    /// use vellog::FileHeader;
    /// let h = FileHeader::parse(b"\xA4VEL\x01\x00\x02\x00").unwrap();
    /// assert_eq!((h.major, h.minor), (1, 2));
    /// assert!(FileHeader::parse(b"\xA4VEL\x02\x00\x00\x00").is_err());
    /// ```
    pub fn parse(data: &[u8]) -> Result<Self> {
        let magic_len = data.len().min(MAGIC.len());
        if data[..magic_len] != MAGIC[..magic_len] {
            return Err(Error::malformed(
                0,
                "VEL magic a4 56 45 4c",
                logcore::error::hex_preview(&data[..magic_len]),
            ));
        }
        if data.len() < FILE_HEADER_LEN {
            return Err(Error::truncated(
                0,
                "VEL file header of 8 bytes",
                (FILE_HEADER_LEN - data.len()) as u64,
            ));
        }
        let mut f = Cursor::new(&data[4..FILE_HEADER_LEN], 4, "file header");
        let major = f.u16("major version")?;
        let minor = f.u16("minor version")?;
        if major != 1 {
            return Err(Error::unsupported(
                4,
                format!("VEL log version {major}.{minor}"),
                "major version 1 is the only one defined; this file was written by a newer \
                 or foreign program",
            ));
        }
        Ok(FileHeader { major, minor })
    }
}

/// The per-second index: `n` absolute offsets, entry k pointing at the
/// start of second k. Borrowed from the file, nothing is copied.
///
/// Entries are hints: see [`crate::VelLog::index_check`] for which of them
/// hold up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Index<'a> {
    raw: &'a [u8],
}

impl<'a> Index<'a> {
    /// Parses the index at byte 8, checking `12 + 8n <= file length` before
    /// touching any entry.
    pub fn parse(data: &'a [u8]) -> Result<Self> {
        let Some(count_bytes) = data.get(FILE_HEADER_LEN..FILE_HEADER_LEN + 4) else {
            return Err(Error::truncated(
                FILE_HEADER_LEN as u64,
                "index size (u32)",
                (FILE_HEADER_LEN + 4).saturating_sub(data.len()) as u64,
            ));
        };
        let n = Cursor::new(count_bytes, FILE_HEADER_LEN as u64, "index").u32("index size")?;
        let need = 12 + 8 * u64::from(n);
        if need > data.len() as u64 {
            return Err(Error::truncated(
                FILE_HEADER_LEN as u64,
                format!("index of {n} entries (ends at byte {need})"),
                need - data.len() as u64,
            ));
        }
        // `need` fits in usize: it is at most the input length.
        Ok(Index {
            raw: &data[12..need as usize],
        })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.raw.len() / 8
    }

    /// Whether the index has no entries.
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// Entry `k` as stored.
    pub fn get(&self, k: usize) -> Option<i64> {
        let start = k.checked_mul(8)?;
        let bytes = self.raw.get(start..start.checked_add(8)?)?;
        Some(i64::from_le_bytes(bytes.try_into().ok()?))
    }

    /// All entries as stored.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = i64> + 'a {
        self.raw
            .chunks_exact(8)
            .map(|c| c.try_into().map(i64::from_le_bytes).unwrap_or(-1))
    }

    /// Byte offset where messages start: `12 + 8n`.
    pub fn end_offset(&self) -> u64 {
        12 + self.raw.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_errors_are_clear() {
        assert!(matches!(
            FileHeader::parse(b"\xA4VE"),
            Err(Error::Parse(crate::ParseError::Truncated {
                offset: 0,
                needed: 5,
                ..
            }))
        ));
        let e = FileHeader::parse(b"#ROSBAG V2.0").unwrap_err();
        assert_eq!(e.offset(), Some(0));
        assert!(e.to_string().contains("a4 56 45 4c"), "{e}");
        let e = FileHeader::parse(b"\xA4VEL\x02\x00\x01\x00").unwrap_err();
        assert_eq!(
            e.to_string(),
            "at byte 4: VEL log version 2.1 is not supported: major version 1 is the only one \
             defined; this file was written by a newer or foreign program"
        );
        assert!(matches!(
            e,
            Error::Parse(logcore::Error::Unsupported { .. })
        ));
        assert_eq!(
            FileHeader::parse(b"\xA4VEL\x01\x00\x07\x00").unwrap(),
            FileHeader { major: 1, minor: 7 }
        );
    }

    #[test]
    fn index_size_is_checked_before_entries() {
        let mut f = b"\xA4VEL\x01\x00\x01\x00".to_vec();
        f.extend_from_slice(&u32::MAX.to_le_bytes());
        let e = Index::parse(&f).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Parse(crate::ParseError::Truncated { offset: 8, .. })
            ),
            "{e}"
        );
        let mut f = b"\xA4VEL\x01\x00\x01\x00".to_vec();
        f.extend_from_slice(&1u32.to_le_bytes());
        f.extend_from_slice(&20i64.to_le_bytes());
        let idx = Index::parse(&f).unwrap();
        assert_eq!(idx.len(), 1);
        assert_eq!(idx.get(0), Some(20));
        assert_eq!(idx.get(1), None);
        assert_eq!(idx.iter().collect::<Vec<_>>(), [20]);
        assert_eq!(idx.end_offset(), 20);
    }
}
