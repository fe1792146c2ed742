//! The crate's error type.
//!
//! Every parse error names the absolute byte offset in the file and what the
//! format requires there. Inside a compressed chunk the offset is the
//! chunk record's, and the message says where in the decompressed payload.

use std::sync::Arc;

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong reading, decoding or writing a bag.
///
/// Cheap to clone, so a reader can keep warnings and hand out copies.
///
/// ```
/// let e = rosbag12::Error::malformed(4117, "a chunk record (op 0x05)", "op 0x09");
/// assert_eq!(e.to_string(), "at byte 4117: expected a chunk record (op 0x05), found op 0x09");
/// let core: logcore::Error = e.into();
/// assert_eq!(core.offset(), Some(4117));
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
    /// The file ends inside a record.
    #[error(
        "truncated at byte {offset}: expected {expected} ({needed} more bytes than the file holds)"
    )]
    Truncated {
        /// Absolute offset where the incomplete record starts.
        offset: u64,
        /// What was being read.
        expected: String,
        /// How many bytes are missing.
        needed: u64,
    },
    /// Lenient reading skipped damaged bytes (a chunk, a record).
    #[error("skipped {len} damaged bytes at byte {offset}: {reason}")]
    Skipped {
        /// Absolute offset of the first skipped byte.
        offset: u64,
        /// How many bytes were skipped.
        len: u64,
        /// Why they could not be read.
        reason: String,
    },
    /// A bag version this crate does not read (1.1, 1.0, 3.x).
    #[error("at byte 0: expected a ROS bag of version 1.2 or 2.x, found version {version}: {hint}")]
    UnsupportedVersion {
        /// The version as the first line states it.
        version: String,
        /// What the user can do about it.
        hint: &'static str,
    },
    /// A message definition that cannot be parsed or resolved.
    #[error("at byte {offset}: expected a valid definition of {type_name}, found {reason}")]
    Definition {
        /// Offset of the record that holds the definition.
        offset: u64,
        /// The type being defined.
        type_name: String,
        /// What is wrong with it.
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
            | Error::Skipped { offset, .. }
            | Error::Definition { offset, .. } => Some(*offset),
            Error::UnsupportedVersion { .. } => Some(0),
            _ => None,
        }
    }

    /// True for a truncation (the file ends inside a record).
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
            Error::UnsupportedVersion { version, hint } => logcore::Error::Malformed {
                offset: 0,
                expected: "a ROS bag of version 1.2 or 2.x".into(),
                found: format!("version {version}: {hint}"),
            },
            Error::Definition {
                offset,
                type_name,
                reason,
            } => logcore::Error::Malformed {
                offset,
                expected: format!("a valid definition of {type_name}"),
                found: reason,
            },
            Error::InvalidArgument(s) => logcore::Error::InvalidArgument(s),
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
        let e: logcore::Error = Error::truncated(100, "record of 49 bytes", 7).into();
        assert!(matches!(
            e,
            logcore::Error::Truncated {
                offset: 100,
                needed: 7,
                ..
            }
        ));
        let e: logcore::Error = Error::UnsupportedVersion {
            version: "1.1".into(),
            hint: "x",
        }
        .into();
        assert_eq!(e.offset(), Some(0));
        assert!(e.to_string().contains("version 1.1"), "{e}");
    }
}
