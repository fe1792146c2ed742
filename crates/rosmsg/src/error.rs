//! The parser's error.

use std::fmt;

use crate::Pos;

/// A definition the grammar does not accept: where, what was expected
/// there and what was found.
///
/// ```
/// use rosmsg::{parse, Dialect};
/// let e = parse("int32 a\nint32 b 5\n", Dialect::Ros1).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "line 2, column 9 (byte 16): expected the end of the line after the field name \
///      (ROS 1 has no default values), found `5`"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Where the problem is.
    pub pos: Pos,
    /// What the grammar expected there.
    pub expected: String,
    /// What is there instead (the offending text, possibly empty).
    pub found: String,
}

impl ParseError {
    pub(crate) fn new(pos: Pos, expected: impl Into<String>, found: impl Into<String>) -> Self {
        ParseError {
            pos,
            expected: expected.into(),
            found: found.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {} (byte {}): expected {}, found `{}`",
            self.pos.line, self.pos.column, self.pos.offset, self.expected, self.found
        )
    }
}

impl std::error::Error for ParseError {}
