//! ROS 2 definitions resolved: the types of a `ros2msg` text
//! ([`msg::parse_definition`], `.srv` text and service events included)
//! or of a `ros2idl` text ([`idl::parse_idl`]) as [`MsgDef`]s, every
//! message field type resolved to a canonical `pkg/Type` name of a type
//! in the list; constants and default values as [`logcore::Value`]s; and
//! the REP 2011 type description hash ([`hash`], `RIHS01_...`). A ROS 2
//! codec (ros2cdr's CDR decoder) compiles these definitions for its wire
//! form.
//!
//! ```
//! use rosmsg::ros2::{FieldType, Primitive, hash, parse_definition};
//! let defs = parse_definition("demo/msg/Stamped", "builtin_interfaces/Time t\nfloat64 x 1.5\n")?;
//! assert_eq!(defs[0].name, "demo/Stamped");
//! assert_eq!(defs[0].fields[1].ty, FieldType::Primitive(Primitive::Float64));
//! assert_eq!(defs[1].name, "builtin_interfaces/Time"); // taken from the builtins
//! assert!(hash::type_description_hash(&defs, "msg").starts_with("RIHS01_"));
//! # Ok::<(), rosmsg::ros2::Error>(())
//! ```

pub mod error;
pub mod hash;
pub mod idl;
pub mod msg;

pub use error::{Error, Result};
pub use idl::{parse_idl, parse_idl_with_limits};
pub use msg::{
    ArrayKind, ConstantDef, FieldDef, FieldType, MAX_NESTING, MsgDef, Primitive, canonical_name,
    parse_definition,
};
