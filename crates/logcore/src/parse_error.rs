//! [`ParseError`]: the error type format crates share when they need
//! nothing beyond the common cases (a byte offset and what was expected
//! there, a truncation, a skipped stretch, a bad argument, I/O). Crates
//! with extra cases (an unsupported version, a definition error) keep
//! their own type; all convert into [`Error`](crate::Error).

use std::sync::Arc;

/// What went wrong reading or writing a file, with the absolute byte
/// offset in the file and what the format requires there.
///
/// Cheap to clone (I/O errors are shared), so a reader can keep the
/// warnings of its summary pass and hand out copies.
///
/// ```
/// let e = logcore::ParseError::malformed(8, "a Header record", "opcode 0x05");
/// assert_eq!(e.to_string(), "at byte 8: expected a Header record, found opcode 0x05");
/// let core: logcore::Error = e.into();
/// assert_eq!(core.offset(), Some(8));
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
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
    /// Lenient reading skipped a damaged record and went on after it.
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
    /// An operating-system I/O error.
    #[error(transparent)]
    Io(Arc<std::io::Error>),
}

impl ParseError {
    /// A [`ParseError::Malformed`].
    pub fn malformed(offset: u64, expected: impl Into<String>, found: impl Into<String>) -> Self {
        ParseError::Malformed {
            offset,
            expected: expected.into(),
            found: found.into(),
        }
    }

    /// A [`ParseError::Truncated`].
    pub fn truncated(offset: u64, expected: impl Into<String>, needed: u64) -> Self {
        ParseError::Truncated {
            offset,
            expected: expected.into(),
            needed,
        }
    }

    /// A [`ParseError::Skipped`].
    pub fn skipped(offset: u64, len: u64, reason: impl Into<String>) -> Self {
        ParseError::Skipped {
            offset,
            len,
            reason: reason.into(),
        }
    }

    /// The byte offset the error is about, if it has one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            ParseError::Malformed { offset, .. }
            | ParseError::Truncated { offset, .. }
            | ParseError::Skipped { offset, .. } => Some(*offset),
            _ => None,
        }
    }

    /// True for a truncation (the file ends early).
    pub fn is_truncated(&self) -> bool {
        matches!(self, ParseError::Truncated { .. })
    }
}

/// Equal when of the same kind with the same fields; I/O errors compare
/// by kind and message.
impl PartialEq for ParseError {
    fn eq(&self, other: &Self) -> bool {
        use ParseError as E;
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
            (E::InvalidArgument(a), E::InvalidArgument(x)) => a == x,
            (E::Io(a), E::Io(x)) => a.kind() == x.kind() && a.to_string() == x.to_string(),
            _ => false,
        }
    }
}

impl Eq for ParseError {}

impl From<std::io::Error> for ParseError {
    fn from(e: std::io::Error) -> Self {
        ParseError::Io(Arc::new(e))
    }
}

impl From<ParseError> for crate::Error {
    fn from(e: ParseError) -> Self {
        match e {
            ParseError::Malformed {
                offset,
                expected,
                found,
            } => crate::Error::Malformed {
                offset,
                expected,
                found,
            },
            ParseError::Truncated {
                offset,
                expected,
                needed,
            } => crate::Error::Truncated {
                offset,
                expected,
                needed,
            },
            ParseError::Skipped {
                offset,
                len,
                reason,
            } => crate::Error::Skipped {
                offset,
                len,
                reason,
            },
            ParseError::InvalidArgument(s) => crate::Error::InvalidArgument(s),
            // The Arc is shared only when the error was cloned; then keep the
            // kind and message, which is all a caller can act on.
            ParseError::Io(io) => crate::Error::Io(
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
        let e: crate::Error = ParseError::truncated(100, "a record of 49 bytes", 7).into();
        assert!(matches!(
            e,
            crate::Error::Truncated {
                offset: 100,
                needed: 7,
                ..
            }
        ));
        let e = ParseError::from(std::io::Error::other("disk full"));
        let core: crate::Error = e.clone().into();
        assert!(core.to_string().contains("disk full"));
        assert_eq!(e.offset(), None);
    }
}
