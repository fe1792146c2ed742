//! The error of ROS 2 definitions, which ROS 2 codecs (ros2cdr) share
//! for their decoding errors too.
//!
//! A definition that cannot be parsed or resolved is
//! [`Error::Definition`], naming the type and, where there is one, the
//! line. Decoding errors are [`logcore::Error`]s that name the absolute
//! byte offset in the file and what was expected there.

use logcore::FormatError;

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong parsing a definition or decoding a payload.
///
/// ```
/// use rosmsg::ros2::parse_definition;
/// let e = parse_definition("pkg/msg/T", "int32 a\nint8 X=128").unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "expected a valid ros2msg definition of pkg/T, found in line 2 `int8 X=128` (byte 8): \
///      `128` is not a valid int8"
/// );
/// let e = parse_definition("pkg/msg/T", "int33 x").unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "expected a valid ros2msg definition of pkg/T, found \
///      no definition of the type pkg/int33 (used by field `x`)"
/// );
/// let e = parse_definition("pkg/msg/T", "int32 a\nint32[x] b").unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "expected a valid ros2msg definition of pkg/T, found in line 2, column 6 (byte 13): \
///      expected a type (`int32`, `string<=8`, `pkg/Type`, then `[]`, `[N]` or `[<=N]`), \
///      found `int32[x]`"
/// );
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The cases every format crate shares; decoding errors are
    /// [`logcore::Error::Malformed`] with the byte offset in the file.
    #[error(transparent)]
    Parse(#[from] logcore::Error),
    /// A definition that cannot be parsed or resolved.
    #[error("expected a valid ros2msg definition of {type_name}, found {reason}")]
    Definition {
        /// The type being defined (canonical `pkg/Type` form).
        type_name: String,
        /// What is wrong with it, with the line where there is one.
        reason: String,
    },
}

impl Error {
    /// The [`Error::Definition`] of `type_name`, for `reason`.
    pub fn definition(type_name: &str, reason: impl Into<String>) -> Self {
        Error::Definition {
            type_name: type_name.to_string(),
            reason: reason.into(),
        }
    }
}

impl FormatError for Error {
    fn core(&self) -> Option<&logcore::Error> {
        match self {
            Error::Parse(e) => Some(e),
            Error::Definition { .. } => None,
        }
    }
}

impl From<Error> for logcore::Error {
    /// A definition error becomes [`logcore::Error::InvalidArgument`] (the
    /// schema a caller passed cannot be used); the shared cases stay as
    /// they are.
    fn from(e: Error) -> Self {
        match e {
            Error::Parse(e) => e,
            e @ Error::Definition { .. } => logcore::Error::InvalidArgument(e.to_string()),
        }
    }
}
