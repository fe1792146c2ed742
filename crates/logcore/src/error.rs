//! The shared error type. Every format crate has its own `thiserror` enum
//! that converts into [`Error`], so the command-line tool can report any of
//! them the same way.

use crate::Format;

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong reading or writing a log.
///
/// Parse errors always carry the absolute byte offset in the file and a
/// phrase saying what was expected there.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes at `offset` are not what the format requires.
    #[error("at byte {offset}: expected {expected}, found {found}")]
    Malformed {
        /// Absolute byte offset in the file.
        offset: u64,
        /// What the format requires there, e.g. `"message marker 0x49"`.
        expected: String,
        /// What was there instead, e.g. `"0x00"`.
        found: String,
    },
    /// The file ends inside a record.
    #[error(
        "truncated at byte {offset}: expected {expected} ({needed} more bytes than the file holds)"
    )]
    Truncated {
        /// Absolute byte offset where the incomplete record starts.
        offset: u64,
        /// What was being read, e.g. `"message of 1234 bytes"`.
        expected: String,
        /// How many bytes are missing.
        needed: u64,
    },
    /// A lenient reader skipped damaged bytes and resumed at a later record.
    #[error("skipped {len} damaged bytes at byte {offset}: {reason}")]
    Skipped {
        /// Absolute offset of the first skipped byte.
        offset: u64,
        /// How many bytes were skipped.
        len: u64,
        /// Why the bytes could not be read.
        reason: String,
    },
    /// The file is a known format (or version) that this build cannot read.
    #[error("{format} files are not supported yet{}", detail.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Unsupported {
        /// The detected format.
        format: Format,
        /// More detail, e.g. a version number.
        detail: Option<String>,
    },
    /// The first bytes match no known format.
    #[error(
        "at byte 0: expected the magic bytes of a ROS bag, VEL log, ULog, MCAP or CARLA recorder file, found {found}"
    )]
    UnknownFormat {
        /// The first bytes, as hex.
        found: String,
    },
    /// A caller passed something the API cannot accept (a writer's channel
    /// id it never handed out, a name whose id collides, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// An operating-system I/O error.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl Error {
    /// A [`Error::Malformed`] error.
    pub fn malformed(offset: u64, expected: impl Into<String>, found: impl Into<String>) -> Self {
        Error::Malformed {
            offset,
            expected: expected.into(),
            found: found.into(),
        }
    }

    /// A [`Error::Truncated`] error.
    pub fn truncated(offset: u64, expected: impl Into<String>, needed: u64) -> Self {
        Error::Truncated {
            offset,
            expected: expected.into(),
            needed,
        }
    }

    /// An [`Error::Skipped`].
    pub fn skipped(offset: u64, len: u64, reason: impl Into<String>) -> Self {
        Error::Skipped {
            offset,
            len,
            reason: reason.into(),
        }
    }

    /// The byte offset the error is about, if it has one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Malformed { offset, .. }
            | Error::Truncated { offset, .. }
            | Error::Skipped { offset, .. } => Some(*offset),
            Error::UnknownFormat { .. } => Some(0),
            _ => None,
        }
    }

    /// True for errors after which a lenient reader continues (a skip) or
    /// that only mark the end of usable data (a truncation).
    pub fn is_recoverable(&self) -> bool {
        matches!(self, Error::Skipped { .. } | Error::Truncated { .. })
    }
}

/// Hex dump of up to 16 bytes, for "found ..." parts of messages.
///
/// ```
/// assert_eq!(logcore::error::hex_preview(b"\x89MC"), "89 4d 43");
/// ```
pub fn hex_preview(bytes: &[u8]) -> String {
    let mut s = String::new();
    for (i, b) in bytes.iter().take(16).enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&format!("{b:02x}"));
    }
    if bytes.len() > 16 {
        s.push_str(" ...");
    }
    if s.is_empty() {
        s.push_str("end of file");
    }
    s
}
