//! ROS 2 message decoding without ROS: parses `ros2msg` definitions as
//! rosbag2 and MCAP store them and decodes CDR payloads into
//! [`logcore::Value`].
//!
//! The definitions are `rosmsg`'s ([`rosmsg::ros2`]), re-exported here as
//! [`msg`], [`idl`] and [`hash`]; this crate compiles them for CDR.
//!
//! - [`msg`] parses definitions: every builtin, bounded strings
//!   (`string<=N`), wide strings, fixed (`T[N]`), bounded (`T[<=N]`) and
//!   unbounded (`T[]`) arrays, nested types, constants and default
//!   values, the concatenated form with `MSG: pkg/Type` sections, and
//!   `.srv` text (`request --- response`), from which the `<Srv>_Event`
//!   type of service introspection is built.
//! - [`idl`] parses the `ros2idl` form (the OMG IDL subset `rosidl`
//!   generates) into the same definitions.
//! - [`MessageType::decode`] decodes plain CDR (both byte orders) into
//!   values of the same shapes rosbag12 gives ROS 1 messages, checking
//!   every length against the bytes left before allocating, with errors
//!   that name the byte offset and what was expected;
//!   [`MessageType::value_type`] is the [`logcore::ValueType`] of the
//!   values it decodes to.
//! - [`MessageType::type_description_hash`] is the ROS 2 type hash
//!   (`RIHS01_...`, REP 2011) rosbag2 records per topic ([`hash`]).
//!
//! ```
//! use logcore::Value;
//! let t = ros2cdr::MessageType::parse("std_msgs/msg/String", "string data\n")?;
//! let payload = [0, 1, 0, 0, 3, 0, 0, 0, b'h', b'i', 0];
//! assert_eq!(t.decode(&payload, 0)?, Value::record([("data", Value::String("hi".into()))]));
//! # Ok::<(), ros2cdr::Error>(())
//! ```

#![forbid(unsafe_code)]

mod decode;
mod description;
pub mod error;
mod types;

/// ROS 2 type description hashes (REP 2011), `rosmsg`'s.
pub use rosmsg::ros2::hash;
/// The `ros2idl` parser, `rosmsg`'s.
pub use rosmsg::ros2::idl;
/// `ros2msg` definitions: the parser and the resolved types, `rosmsg`'s.
pub use rosmsg::ros2::msg;

pub use decode::{MessageType, WireKind, WireType};
pub use error::{Error, FormatError, Result};
/// The resource limits of the readers ([`Limits::max_nesting`] bounds the
/// nesting of message types, default [`msg::MAX_NESTING`]).
pub use logcore::Limits;
pub use types::MAX_TYPE_FIELDS;

/// The README's examples, compiled and run as doc-tests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
