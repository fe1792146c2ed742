//! The crate's error type.
//!
//! Every parse error names the absolute byte offset in the file and what the
//! format requires there.

pub use logcore::ParseError;

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
    /// The cases every format crate shares: malformed bytes at an offset,
    /// a truncation, damaged bytes skipped (reading resumed at a later
    /// message), an invalid argument, I/O.
    #[error(transparent)]
    Parse(#[from] ParseError),
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
}

impl Error {
    /// A [`ParseError::Malformed`].
    pub fn malformed(offset: u64, expected: impl Into<String>, found: impl Into<String>) -> Self {
        Error::Parse(ParseError::malformed(offset, expected, found))
    }

    /// A [`ParseError::Truncated`].
    pub fn truncated(offset: u64, expected: impl Into<String>, needed: u64) -> Self {
        Error::Parse(ParseError::truncated(offset, expected, needed))
    }

    /// A [`ParseError::Skipped`].
    pub fn skipped(offset: u64, len: u64, reason: impl Into<String>) -> Self {
        Error::Parse(ParseError::skipped(offset, len, reason))
    }

    /// A [`ParseError::InvalidArgument`].
    pub fn invalid_argument(what: impl Into<String>) -> Self {
        Error::Parse(ParseError::InvalidArgument(what.into()))
    }

    /// The byte offset the error is about, if it has one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Parse(e) => e.offset(),
            Error::IncompatibleFlags { offset, .. } => Some(*offset),
        }
    }

    /// True for a truncation (the file ends inside a message).
    pub fn is_truncated(&self) -> bool {
        matches!(self, Error::Parse(e) if e.is_truncated())
    }

    /// True for a skipped stretch of damaged bytes.
    pub fn is_skipped(&self) -> bool {
        matches!(self, Error::Parse(ParseError::Skipped { .. }))
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Parse(e.into())
    }
}

impl From<Error> for logcore::Error {
    fn from(e: Error) -> Self {
        match e {
            Error::Parse(e) => e.into(),
            Error::IncompatibleFlags { offset, flags } => logcore::Error::Malformed {
                offset,
                expected:
                    "only the DATA_APPENDED incompatible flag (this log needs a newer reader)"
                        .into(),
                found: format!("incompat flags {}", logcore::error::hex_preview(&flags)),
            },
        }
    }
}
