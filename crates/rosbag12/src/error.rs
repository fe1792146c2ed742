//! The crate's error type.
//!
//! Every parse error names the absolute byte offset in the file and what the
//! format requires there. Inside a compressed chunk the offset is the
//! chunk record's, and the message says where in the decompressed payload.

pub use logcore::ParseError;

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
    /// The cases every format crate shares: malformed bytes at an offset,
    /// a truncation, a skipped stretch (lenient reading), an invalid
    /// argument, I/O.
    #[error(transparent)]
    Parse(#[from] ParseError),
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

    /// A [`ParseError::Skipped`]: damaged bytes (a chunk, a record) that
    /// lenient reading went past.
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
            Error::Definition { offset, .. } => Some(*offset),
            Error::UnsupportedVersion { .. } => Some(0),
        }
    }

    /// True for a truncation (the file ends inside a record).
    pub fn is_truncated(&self) -> bool {
        matches!(self, Error::Parse(e) if e.is_truncated())
    }

    /// True for a skipped stretch of damaged bytes (a lenient-mode
    /// warning).
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
            Error::UnsupportedVersion { version, hint } => logcore::Error::malformed(
                0,
                "a ROS bag of version 1.2 or 2.x",
                format!("version {version}: {hint}"),
            ),
            Error::Definition {
                offset,
                type_name,
                reason,
            } => logcore::Error::malformed(
                offset,
                format!("a valid definition of {type_name}"),
                reason,
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
