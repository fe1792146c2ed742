//! The crate's error type.
//!
//! Every parse error names the absolute byte offset in the file and what the
//! format requires there, so a user can open a hex viewer at that offset.
//!
//! The cases every format shares are [`logcore::Error`]; [`Error`] adds the
//! log's own and gets the shared constructors from [`FormatError`].

pub use logcore::{FormatError, ParseError};

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong reading or writing a VEL log.
///
/// Cheap to clone (I/O errors are shared), so a reader can keep the warnings
/// of its summary pass and hand out copies.
///
/// ```
/// use vellog::FormatError;
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
    /// at a later message), a major version other than 1 (the only one the
    /// format defines), an invalid argument, I/O.
    #[error(transparent)]
    Parse(#[from] ParseError),
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

impl FormatError for Error {
    fn core(&self) -> Option<&logcore::Error> {
        match self {
            Error::Parse(e) => Some(e),
            Error::IdCollision { .. } => None,
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
        let e = Error::IdCollision {
            name: "b".into(),
            id: 7,
            existing: "a".into(),
        };
        assert_eq!(e.offset(), None);
        let core: logcore::Error = e.clone().into();
        assert_eq!(core, logcore::Error::InvalidArgument(e.to_string()));
        let io = Error::from(std::io::Error::other("disk full"));
        let copy = io.clone();
        let e: logcore::Error = copy.into();
        assert!(e.to_string().contains("disk full"));
    }
}
