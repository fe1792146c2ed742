//! The shared error type.
//!
//! [`Error`] holds the cases every format has: bytes that are not what the
//! format requires, a file that ends early, a stretch a lenient reader
//! skipped, a version or feature this build cannot read, a bad argument and
//! I/O. A format crate whose errors are exactly these uses [`Error`]
//! directly; a crate with cases of its own (a message definition that does
//! not resolve, a name whose id collides) wraps it in its own enum, which
//! implements [`FormatError`] and so gets the shared constructors and
//! queries without writing them again.
//!
//! Parse errors always carry the absolute byte offset in the file and a
//! phrase saying what was expected there.

use std::sync::Arc;

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The former name of [`Error`], from when the shared parse cases had a
/// type of their own; the two are now one type.
pub type ParseError = Error;

/// What went wrong reading or writing a log.
///
/// Cheap to clone (an I/O error is shared), so a reader can keep the
/// warnings of its summary pass and hand out copies.
///
/// ```
/// let e = logcore::Error::malformed(8, "a Header record", "opcode 0x05");
/// assert_eq!(e.to_string(), "at byte 8: expected a Header record, found opcode 0x05");
/// assert_eq!(e.offset(), Some(8));
/// ```
#[derive(Debug, Clone, thiserror::Error)]
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
    /// The file is of a known format, but of a version (or with a feature)
    /// this build cannot read.
    #[error("at byte {offset}: {what} is not supported: {reason}")]
    Unsupported {
        /// Absolute offset of the field that names the version.
        offset: u64,
        /// What the file is, e.g. `"ROS bag version 1.1"`.
        what: String,
        /// Why it cannot be read and what the user can do about it.
        reason: String,
    },
    /// The first bytes match no known format.
    #[error(
        "at byte 0: expected the magic bytes of a ROS bag, VEL log, ULog, MCAP, CARLA recorder or ROS 2 bag SQLite file, found {found}"
    )]
    UnknownFormat {
        /// The first bytes, as hex.
        found: String,
    },
    /// A caller passed something the API cannot accept (a writer's channel
    /// id it never handed out, a name whose id collides, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// An operating-system I/O error, shared so that the error stays
    /// cheap to clone.
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

    /// An [`Error::Skipped`].
    pub fn skipped(offset: u64, len: u64, reason: impl Into<String>) -> Self {
        Error::Skipped {
            offset,
            len,
            reason: reason.into(),
        }
    }

    /// An [`Error::Unsupported`].
    ///
    /// ```
    /// let e = logcore::Error::unsupported(4, "VEL log version 2.0", "only major version 1 is defined");
    /// assert_eq!(
    ///     e.to_string(),
    ///     "at byte 4: VEL log version 2.0 is not supported: only major version 1 is defined"
    /// );
    /// ```
    pub fn unsupported(offset: u64, what: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::Unsupported {
            offset,
            what: what.into(),
            reason: reason.into(),
        }
    }

    /// An [`Error::InvalidArgument`].
    pub fn invalid_argument(what: impl Into<String>) -> Self {
        Error::InvalidArgument(what.into())
    }

    /// The byte offset the error is about, if it has one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Malformed { offset, .. }
            | Error::Truncated { offset, .. }
            | Error::Skipped { offset, .. }
            | Error::Unsupported { offset, .. } => Some(*offset),
            Error::UnknownFormat { .. } => Some(0),
            Error::InvalidArgument(_) | Error::Io(_) => None,
        }
    }

    /// True for a truncation (the file ends inside a record).
    pub fn is_truncated(&self) -> bool {
        matches!(self, Error::Truncated { .. })
    }

    /// True for a stretch of damaged bytes a lenient reader went past.
    pub fn is_skipped(&self) -> bool {
        matches!(self, Error::Skipped { .. })
    }

    /// True for errors after which a lenient reader continues (a skip) or
    /// that only mark the end of usable data (a truncation).
    pub fn is_recoverable(&self) -> bool {
        self.is_skipped() || self.is_truncated()
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(Arc::new(e))
    }
}

/// Equal when of the same kind with the same fields; I/O errors compare
/// by kind and message.
impl PartialEq for Error {
    fn eq(&self, other: &Self) -> bool {
        use Error as E;
        match (self, other) {
            (
                E::Malformed {
                    offset: a,
                    expected: b,
                    found: c,
                },
                E::Malformed {
                    offset: x,
                    expected: y,
                    found: z,
                },
            ) => (a, b, c) == (x, y, z),
            (
                E::Truncated {
                    offset: a,
                    expected: b,
                    needed: c,
                },
                E::Truncated {
                    offset: x,
                    expected: y,
                    needed: z,
                },
            ) => (a, b, c) == (x, y, z),
            (
                E::Skipped {
                    offset: a,
                    len: b,
                    reason: c,
                },
                E::Skipped {
                    offset: x,
                    len: y,
                    reason: z,
                },
            ) => (a, b, c) == (x, y, z),
            (
                E::Unsupported {
                    offset: a,
                    what: b,
                    reason: c,
                },
                E::Unsupported {
                    offset: x,
                    what: y,
                    reason: z,
                },
            ) => (a, b, c) == (x, y, z),
            (E::UnknownFormat { found: a }, E::UnknownFormat { found: x }) => a == x,
            (E::InvalidArgument(a), E::InvalidArgument(x)) => a == x,
            (E::Io(a), E::Io(x)) => a.kind() == x.kind() && a.to_string() == x.to_string(),
            _ => false,
        }
    }
}

impl Eq for Error {}

/// A format crate's error type: the shared cases of [`Error`] plus the
/// crate's own.
///
/// Implementing it (one method, plus `From<Error>`) gives the crate's type
/// the shared constructors and queries, so every format builds and asks
/// its errors the same way. [`Error`] implements it too, so generic code
/// can build either.
///
/// ```
/// use logcore::FormatError;
///
/// /// A format with one case of its own.
/// #[derive(Debug)]
/// enum MyError {
///     Core(logcore::Error),
///     BadChecksum { offset: u64 },
/// }
///
/// impl From<logcore::Error> for MyError {
///     fn from(e: logcore::Error) -> Self {
///         MyError::Core(e)
///     }
/// }
///
/// impl FormatError for MyError {
///     fn core(&self) -> Option<&logcore::Error> {
///         match self {
///             MyError::Core(e) => Some(e),
///             MyError::BadChecksum { .. } => None,
///         }
///     }
///     fn own_offset(&self) -> Option<u64> {
///         match self {
///             MyError::BadChecksum { offset } => Some(*offset),
///             MyError::Core(_) => None,
///         }
///     }
/// }
///
/// let e = MyError::truncated(100, "a record of 49 bytes", 7);
/// assert!(e.is_truncated());
/// assert_eq!(e.offset(), Some(100));
/// assert_eq!(MyError::BadChecksum { offset: 9 }.offset(), Some(9));
/// ```
pub trait FormatError: From<Error> + Sized {
    /// The shared case this error is, or `None` for one of the crate's own.
    fn core(&self) -> Option<&Error>;

    /// The byte offset of one of the crate's own cases, if it has one
    /// (only asked when [`core`](FormatError::core) is `None`).
    fn own_offset(&self) -> Option<u64> {
        None
    }

    /// An [`Error::Malformed`]: the bytes at `offset` are not `expected`.
    fn malformed(offset: u64, expected: impl Into<String>, found: impl Into<String>) -> Self {
        Error::malformed(offset, expected, found).into()
    }

    /// An [`Error::Truncated`]: the file ends `needed` bytes short of
    /// `expected`.
    fn truncated(offset: u64, expected: impl Into<String>, needed: u64) -> Self {
        Error::truncated(offset, expected, needed).into()
    }

    /// An [`Error::Skipped`]: damaged bytes lenient reading went past.
    fn skipped(offset: u64, len: u64, reason: impl Into<String>) -> Self {
        Error::skipped(offset, len, reason).into()
    }

    /// An [`Error::Unsupported`]: a version or feature this build cannot
    /// read.
    fn unsupported(offset: u64, what: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::unsupported(offset, what, reason).into()
    }

    /// An [`Error::InvalidArgument`].
    fn invalid_argument(what: impl Into<String>) -> Self {
        Error::invalid_argument(what).into()
    }

    /// The byte offset the error is about, if it has one.
    fn offset(&self) -> Option<u64> {
        match self.core() {
            Some(e) => e.offset(),
            None => self.own_offset(),
        }
    }

    /// True for a truncation (the file ends inside a record).
    fn is_truncated(&self) -> bool {
        self.core().is_some_and(Error::is_truncated)
    }

    /// True for a stretch of damaged bytes a lenient reader went past.
    fn is_skipped(&self) -> bool {
        self.core().is_some_and(Error::is_skipped)
    }
}

impl FormatError for Error {
    fn core(&self) -> Option<&Error> {
        Some(self)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_offset_and_expectation() {
        assert_eq!(
            Error::truncated(100, "a record of 49 bytes", 7).to_string(),
            "truncated at byte 100: expected a record of 49 bytes (7 more bytes than the file holds)"
        );
        assert_eq!(
            Error::skipped(3, 10, "bad marker").to_string(),
            "skipped 10 damaged bytes at byte 3: bad marker"
        );
        assert_eq!(
            Error::invalid_argument("channel 9").to_string(),
            "invalid argument: channel 9"
        );
        let e = Error::unsupported(0, "ROS bag version 1.1", "convert it first");
        assert_eq!(
            e.to_string(),
            "at byte 0: ROS bag version 1.1 is not supported: convert it first"
        );
        assert_eq!(e.offset(), Some(0));
        assert!(!e.is_recoverable());
    }

    #[test]
    fn io_errors_are_shared_by_clones() {
        let e = Error::from(std::io::Error::other("disk full"));
        let copy = e.clone();
        assert_eq!(copy.to_string(), "disk full");
        assert_eq!(e, copy);
        assert_eq!(e.offset(), None);
        assert!(matches!(&copy, Error::Io(io) if io.kind() == std::io::ErrorKind::Other));
    }

    #[test]
    fn kinds() {
        let t = Error::truncated(1, "x", 1);
        assert!(t.is_truncated() && !t.is_skipped() && t.is_recoverable());
        let s = Error::skipped(1, 2, "x");
        assert!(s.is_skipped() && !s.is_truncated() && s.is_recoverable());
        let m = Error::malformed(1, "x", "y");
        assert!(!m.is_recoverable());
        assert_ne!(m, Error::malformed(2, "x", "y"));
        assert_eq!(
            <Error as FormatError>::truncated(1, "x", 1),
            Error::truncated(1, "x", 1)
        );
    }
}
