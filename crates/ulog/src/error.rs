//! The crate's error type.
//!
//! Every parse error names the absolute byte offset in the file and what the
//! format requires there.
//!
//! The cases every format shares are [`logcore::Error`]; [`Error`] adds the
//! ULog's own and gets the shared constructors from [`FormatError`].

pub use logcore::{FormatError, ParseError};

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong reading or writing a ULog file.
///
/// ```
/// use ulogfile::FormatError;
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

impl FormatError for Error {
    fn core(&self) -> Option<&logcore::Error> {
        match self {
            Error::Parse(e) => Some(e),
            Error::IncompatibleFlags { .. } => None,
        }
    }

    fn own_offset(&self) -> Option<u64> {
        match self {
            Error::IncompatibleFlags { offset, .. } => Some(*offset),
            Error::Parse(_) => None,
        }
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
            Error::Parse(e) => e,
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
