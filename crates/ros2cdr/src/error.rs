//! The crate's error type, which it shares with the definitions it
//! compiles (`rosmsg`'s [`ros2`](rosmsg::ros2) module).
//!
//! Decoding errors are [`logcore::Error`]s that name the absolute byte
//! offset in the file (the payload's offset given to the decoder plus the
//! position inside the payload) and what was expected there. A definition
//! that cannot be parsed or resolved is [`Error::Definition`], naming the
//! type and, where there is one, the line.
//!
//! ```
//! let e = ros2cdr::MessageType::parse("pkg/msg/T", "int32 a\nint8 X=128").unwrap_err();
//! assert_eq!(
//!     e.to_string(),
//!     "expected a valid ros2msg definition of pkg/T, found in line 2 `int8 X=128` (byte 8): \
//!      `128` is not a valid int8"
//! );
//! ```

pub use logcore::FormatError;
pub use rosmsg::ros2::{Error, Result};
