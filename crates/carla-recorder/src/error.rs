//! The crate's error type.
//!
//! Every parse error names the absolute byte offset in the file and what the
//! format requires there, so a user can open a hex viewer at that offset.

use std::sync::Arc;

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong reading or writing a CARLA recording.
///
/// Cheap to clone (I/O errors are shared), so the summary pass can keep its
/// warnings and hand out copies.
///
/// ```
/// let e = carla_recorder::Error::malformed(34, "packet id", "0xff");
/// assert_eq!(e.to_string(), "at byte 34: expected packet id, found 0xff");
/// let core: logcore::Error = e.into();
/// assert_eq!(core.offset(), Some(34));
/// ```
#[derive(Debug, Clone, thiserror::Error)]
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
    /// The file ends inside a packet (or inside a frame).
    #[error(
        "truncated at byte {offset}: expected {expected} ({needed} more bytes than the file holds)"
    )]
    Truncated {
        /// Absolute offset where the incomplete packet or frame starts.
        offset: u64,
        /// What was being read.
        expected: String,
        /// How many bytes are missing (at least).
        needed: u64,
    },
    /// Lenient reading skipped damaged bytes and resumed at a later frame.
    #[error("skipped {len} damaged bytes at byte {offset}: {reason}")]
    Skipped {
        /// Absolute offset of the first skipped byte.
        offset: u64,
        /// How many bytes were skipped.
        len: u64,
        /// Why they could not be read.
        reason: String,
    },
    /// A caller passed something the API cannot accept.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// An operating-system I/O error (writing).
    #[error(transparent)]
    Io(Arc<std::io::Error>),
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

    /// The byte offset the error is about, if it has one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Malformed { offset, .. }
            | Error::Truncated { offset, .. }
            | Error::Skipped { offset, .. } => Some(*offset),
            _ => None,
        }
    }

    /// True for a truncation (the file ends early; everything before it was
    /// delivered).
    pub fn is_truncation(&self) -> bool {
        matches!(self, Error::Truncated { .. })
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(Arc::new(e))
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
            Error::InvalidArgument(s) => logcore::Error::InvalidArgument(s),
            // The Arc is shared only when the error was cloned; then keep the
            // kind and message, which is all a caller can act on.
            Error::Io(io) => logcore::Error::Io(
                Arc::try_unwrap(io)
                    .unwrap_or_else(|a| std::io::Error::new(a.kind(), a.to_string())),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_keeping_offsets() {
        let e: logcore::Error = Error::truncated(100, "Position packet of 30 bytes", 7).into();
        assert!(matches!(
            e,
            logcore::Error::Truncated {
                offset: 100,
                needed: 7,
                ..
            }
        ));
        let io = Error::from(std::io::Error::other("disk full"));
        let e: logcore::Error = io.clone().into();
        assert!(e.to_string().contains("disk full"));
        assert_eq!(io.offset(), None);
    }
}
