//! The crate's error type.
//!
//! Every parse error names the absolute byte offset in the file and what the
//! format requires there.

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong reading or writing a ULog file.
///
/// ```
/// let e = ulogfile::Error::malformed(16, "ULog magic", "00 00");
/// assert_eq!(e.to_string(), "at byte 16: expected ULog magic, found 00 00");
/// let core: logcore::Error = e.into();
/// assert_eq!(core.offset(), Some(16));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes at `offset` are not what the format requires.
    #[error("at byte {offset}: expected {expected}, found {found}")]
    Malformed {
        /// Absolute byte offset in the file.
        offset: u64,
        /// What the format requires there.
        expected: String,
        /// What was there instead.
        found: String,
    },
    /// The file ends inside a message.
    #[error(
        "truncated at byte {offset}: expected {expected} ({needed} more bytes than the file holds)"
    )]
    Truncated {
        /// Absolute offset where the incomplete message starts.
        offset: u64,
        /// What was being read.
        expected: String,
        /// How many bytes are missing.
        needed: u64,
    },
    /// Damaged bytes were skipped and reading resumed at a later message.
    #[error("skipped {len} damaged bytes at byte {offset}: {reason}")]
    Skipped {
        /// Absolute offset of the first skipped byte.
        offset: u64,
        /// How many bytes were skipped.
        len: u64,
        /// Why they could not be read.
        reason: String,
    },
    /// The flag-bits message sets an incompatible flag this reader does not
    /// know; the specification requires refusing the file.
    #[error(
        "at byte {offset}: expected only the DATA_APPENDED incompatible flag, found unknown incompatible flag bits {flags:02x?}; this log needs a newer reader"
    )]
    IncompatibleFlags {
        /// Offset of the incompat flags.
        offset: u64,
        /// The eight incompat flag bytes.
        flags: [u8; 8],
    },
    /// A caller passed something the API cannot accept.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// An I/O error while writing (kind and message).
    #[error("I/O error: {0}")]
    Io(String),
}

impl Error {
    /// An [`Error::Malformed`].
    pub fn malformed(offset: u64, expected: impl Into<String>, found: impl Into<String>) -> Self {
        Error::Malformed {
            offset,
            expected: expected.into(),
            found: found.into(),
        }
    }

    /// An [`Error::Truncated`].
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
            | Error::Skipped { offset, .. }
            | Error::IncompatibleFlags { offset, .. } => Some(*offset),
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e.to_string())
    }
}

impl From<Error> for logcore::Error {
    fn from(e: Error) -> Self {
        match e {
            Error::Malformed {
                offset,
                expected,
                found,
            } => logcore::Error::Malformed {
                offset,
                expected,
                found,
            },
            Error::Truncated {
                offset,
                expected,
                needed,
            } => logcore::Error::Truncated {
                offset,
                expected,
                needed,
            },
            Error::Skipped {
                offset,
                len,
                reason,
            } => logcore::Error::Skipped {
                offset,
                len,
                reason,
            },
            Error::IncompatibleFlags { offset, flags } => logcore::Error::Malformed {
                offset,
                expected:
                    "only the DATA_APPENDED incompatible flag (this log needs a newer reader)"
                        .into(),
                found: format!("incompat flags {}", logcore::error::hex_preview(&flags)),
            },
            Error::InvalidArgument(s) => logcore::Error::InvalidArgument(s),
            Error::Io(s) => logcore::Error::Io(std::io::Error::other(s)),
        }
    }
}
