//! One parser for the message-definition grammars of ROS 1 and ROS 2.
//!
//! ROS 1 bags store a type's definition as `.msg` text followed by the
//! definitions of every type it uses, each after a separator line of `=`
//! and a `MSG: pkg/Type` line; ROS 2's `ros2msg` schemas (MCAP, rosbag2's
//! `message_definitions`) use the same concatenated form. The two `.msg`
//! grammars share most of their rules (a type, a name, an optional array
//! suffix, constants `TYPE NAME=value`, `#` comments) and differ in a few,
//! which the [`Dialect`] parameter selects:
//!
//! | rule | [`Dialect::Ros1`] | [`Dialect::Ros2`] |
//! |---|---|---|
//! | builtins | `time`, `duration`; `byte`/`char` as aliases | `wstring`; `byte`/`char` as octets |
//! | bounds `string<=N`, `T[<=N]` | parsed (see below) | parsed |
//! | `T[0]` | accepted | refused |
//! | default values `int32 x 5` | refused | parsed (text kept, see [`literal`]) |
//! | comments | from the first `#` | from the first `#` outside quotes |
//! | `string` constants | the value runs to the end of the line, `#` included | a `#` outside quotes starts a comment |
//! | a constant name used twice | accepted | refused |
//! | `Header` | `std_msgs/Header` (or `roslib/Header`) | no special meaning |
//! | `pkg/msg/Type` | a name as written | the same type as `pkg/Type` |
//!
//! ROS 1 itself has no bounds, but ROS 2 to ROS 1 conversions (rosbags,
//! and this project's) write ROS 2's bounded strings and sequences into
//! ROS 1 definitions as they are. The ROS 1 wire form of a bounded
//! string or sequence is that of the unbounded one (a `u32` length, then
//! the elements), so the ROS 1 dialect parses the bounds and reports them
//! like ROS 2 ([`TypeSpec::string_bound`], [`ArrayKind::Bounded`]); a
//! ROS 1 reader reads them as unbounded, and a type's text (what ROS 1's
//! md5 covers) stays as written.
//!
//! Above the grammar, each dialect's definitions resolved: [`ros1`] (a
//! bag's stored text as `MsgDef`s, and the md5 of spec 6.5) and [`ros2`]
//! (`ros2msg` and `ros2idl` texts as `MsgDef`s, constants and defaults as
//! values, and the `RIHS01` type description hash of REP 2011). The wire
//! codecs (rosbag12's ROS 1 serialization, ros2cdr's CDR) compile these.
//!
//! The parser borrows from the text it reads ([`Section`], [`Field`] and
//! [`Constant`] hold `&str`s into it), never panics, and every error is a
//! [`ParseError`] naming the line, column and byte offset and what was
//! expected there.
//!
//! ```
//! use rosmsg::{parse, ArrayKind, BaseType, Builtin, Dialect};
//!
//! let text = "Header header\nint8 MODE=2 # a comment\nfloat64[9] covariance\n\
//!     ================================================================================\n\
//!     MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n";
//! let sections = parse(text, Dialect::Ros1)?;
//! assert_eq!(sections.len(), 2);
//! assert_eq!(sections[0].name, None); // the top-level type
//! assert_eq!(sections[1].name, Some("std_msgs/Header"));
//! let top = &sections[0];
//! assert_eq!(top.constants[0].name, "MODE");
//! assert_eq!(top.constants[0].value, "2");
//! assert_eq!(top.fields[0].ty.base, BaseType::Message("Header"));
//! assert_eq!(top.fields[1].ty.base, BaseType::Builtin(Builtin::Float64));
//! assert_eq!(top.fields[1].ty.array, ArrayKind::Fixed(9));
//! assert_eq!(top.fields[1].pos.line, 3);
//!
//! // ROS 2: bounds and defaults.
//! let s = &parse("string<=8[<=2] names [\"a\", \"b\"]\n", Dialect::Ros2)?[0];
//! assert_eq!(s.fields[0].ty.string_bound, Some(8));
//! assert_eq!(s.fields[0].ty.array, ArrayKind::Bounded(2));
//! assert_eq!(s.fields[0].default, Some("[\"a\", \"b\"]"));
//!
//! // Errors name the line, column and byte offset.
//! let e = parse("int32 a\nint32[x] b\n", Dialect::Ros2).unwrap_err();
//! assert_eq!((e.pos.line, e.pos.column, e.pos.offset), (2, 6, 13)); // at `[x]`
//! # Ok::<(), rosmsg::ParseError>(())
//! ```

#![forbid(unsafe_code)]

mod error;
pub mod literal;
mod names;
mod parse;
pub mod ros1;
pub mod ros2;
mod types;
pub mod value;

pub use error::ParseError;
pub use names::{canonical_name, resolve_name};
pub use parse::{RawSection, is_separator, parse, parse_section, split_sections};
pub use types::{
    ArrayKind, BaseType, Builtin, Constant, Dialect, Field, Pos, Primitive, Section, TypeSpec,
};
pub use value::{CompiledType, Element, MAX_TYPE_FIELDS, ResolvedTypes, value_type};

/// The README's examples, compiled and run as doc-tests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
