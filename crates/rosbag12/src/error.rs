//! The crate's error type.
//!
//! Every parse error names the absolute byte offset in the file and what the
//! format requires there. Inside a compressed chunk the offset is the
//! chunk record's, and the message says where in the decompressed payload.
//!
//! The cases every format shares (malformed bytes, a truncation, a skipped
//! stretch, an unsupported version, an invalid argument, I/O) are
//! [`logcore::Error`]; [`Error`] adds the bag's own and gets the shared
//! constructors from [`FormatError`].

pub use logcore::{FormatError, ParseError};

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong reading, decoding or writing a bag.
///
/// Cheap to clone, so a reader can keep warnings and hand out copies.
///
/// ```
/// use rosbag12::FormatError;
/// let e = rosbag12::Error::malformed(4117, "a chunk record (op 0x05)", "op 0x09");
/// assert_eq!(e.to_string(), "at byte 4117: expected a chunk record (op 0x05), found op 0x09");
/// let core: logcore::Error = e.into();
/// assert_eq!(core.offset(), Some(4117));
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The cases every format crate shares: malformed bytes at an offset,
    /// a truncation, a skipped stretch (lenient reading), a bag version
    /// this crate does not read (1.1, 1.0, 3.x), an invalid argument, I/O.
    #[error(transparent)]
    Parse(#[from] ParseError),
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

impl FormatError for Error {
    fn core(&self) -> Option<&logcore::Error> {
        match self {
            Error::Parse(e) => Some(e),
            Error::Definition { .. } => None,
        }
    }

    fn own_offset(&self) -> Option<u64> {
        match self {
            Error::Definition { offset, .. } => Some(*offset),
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
        let own = Error::Definition {
            offset: 40,
            type_name: "std_msgs/Foo".into(),
            reason: "an unknown type".into(),
        };
        assert_eq!(own.offset(), Some(40));
        let e: logcore::Error = own.clone().into();
        assert_eq!(e.to_string(), own.to_string());
    }
}
