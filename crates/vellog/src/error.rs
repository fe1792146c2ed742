//! The crate's error type.
//!
//! Every parse error names the absolute byte offset in the file and what the
//! format requires there, so a user can open a hex viewer at that offset.

pub use logcore::ParseError;

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong reading or writing a VEL log.
///
/// Cheap to clone (I/O errors are shared), so a reader can keep the warnings
/// of its summary pass and hand out copies.
///
/// ```
/// let e = vellog::Error::malformed(21, "message marker 0x49", "0x00");
/// assert_eq!(e.to_string(), "at byte 21: expected message marker 0x49, found 0x00");
/// let core: logcore::Error = e.into();
/// assert_eq!(core.offset(), Some(21));
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The cases every format crate shares: malformed bytes at an offset,
    /// a truncation, damaged bytes skipped in lenient mode (reading resumes
    /// at a later message), an invalid argument, I/O.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The header's major version is not 1, the only one the format defines.
    #[error(
        "at byte 4: expected VEL major version 1 (the only one defined), found {major}.{minor}; \
         this file was written by a newer or foreign program"
    )]
    UnsupportedVersion {
        /// Major version as stored.
        major: u16,
        /// Minor version as stored.
        minor: u16,
    },
    /// A message type name hashes to an id that another name already uses.
    #[error(
        "message type name {name:?} hashes to id 0x{id:08x}, which {existing:?} already uses; \
         pick another name"
    )]
    IdCollision {
        /// The name being registered.
        name: String,
        /// Its id (`simple_hash(name)`).
        id: i32,
        /// The name that already has this id.
        existing: String,
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
            Error::UnsupportedVersion { .. } => Some(4),
            Error::IdCollision { .. } => None,
        }
    }

    /// True for a truncation (the file ends inside a message).
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
            Error::UnsupportedVersion { major, minor } => logcore::Error::Malformed {
                offset: 4,
                expected: "VEL major version 1 (the only one defined)".into(),
                found: format!("version {major}.{minor}"),
            },
            e @ Error::IdCollision { .. } => logcore::Error::InvalidArgument(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_keeping_offsets() {
        let e: logcore::Error = Error::truncated(100, "message of 49 bytes", 7).into();
        assert!(matches!(
            e,
            logcore::Error::Truncated {
                offset: 100,
                needed: 7,
                ..
            }
        ));
        let e: logcore::Error = Error::UnsupportedVersion { major: 2, minor: 0 }.into();
        assert_eq!(e.offset(), Some(4));
        assert!(e.to_string().contains("version 2.0"));
        let io = Error::from(std::io::Error::other("disk full"));
        let copy = io.clone();
        let e: logcore::Error = copy.into();
        assert!(e.to_string().contains("disk full"));
    }
}
