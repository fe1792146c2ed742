//! A ROS 1 message type compiled for its wire form: the definitions
//! `rosmsg`'s [`ros1`](rosmsg::ros1) module parses and resolves (spec
//! 6.1, 6.2, 6.5: the full text a bag stores per connection, type
//! resolution, the md5 rule), re-exported here, as [`MessageType`] with
//! field types as indices and the sizes decoding checks.
//!
//! ROS 1 has no bounded types, but ROS 2 to ROS 1 conversions (rosbags,
//! and `robolog`'s) write ROS 2's `string<=N` and `T[<=N]` into the ROS 1
//! definitions they store. Such a definition is read, not refused: a
//! bounded string is a `string`, a bounded sequence `T[<=N]` a variable
//! array ([`ArrayKind::Unbounded`]), since that is their ROS 1 wire form
//! (a `u32` length, then the bytes or elements) and the bound is not on
//! the wire to check. [`FieldDef::type_text`] keeps the bound as written,
//! so the md5 is that of the stored text (the one the converter computed).

use std::collections::HashMap;

use logcore::FieldName;
pub use rosmsg::ros1::{
    ArrayKind, BaseType, Builtin, ConstantDef, FieldDef, MAX_NESTING, MsgDef, md5sums,
    md5sums_nested, parse_definition,
};

use crate::Limits;
use crate::error::{Error, Result};
use crate::records::Connection;

/// A message type compiled for decoding: every type of its definition,
/// the top-level one first, with field types as indices.
#[derive(Debug, Clone)]
pub struct MessageType {
    /// Parsed definitions, top-level first.
    pub defs: Vec<MsgDef>,
    /// md5 of the top-level type, computed from the definition.
    pub md5sum: String,
    /// The md5 the bag stores, when it differs from the computed one
    /// (stale sums exist; decoding uses the definition anyway).
    pub stored_md5_mismatch: Option<String>,
    pub(crate) compiled: Vec<WireType>,
    /// The deepest nesting parsing allowed, which decoding, encoding and
    /// [`value_type`](Self::value_type) follow too.
    pub(crate) max_nesting: usize,
}

/// One type of a definition as the wire holds it ([`MessageType::
/// wire_types`]): its fields in wire order with nested types as indices,
/// and its sizes.
#[derive(Debug, Clone)]
pub struct WireType {
    pub(crate) fields: Vec<(FieldName, WireKind, ArrayKind)>,
    /// Fewest bytes a value of this type takes on the wire.
    pub(crate) min_size: u64,
    /// Bytes every value of this type takes, where that is one number.
    pub(crate) fixed_size: Option<u64>,
}

impl WireType {
    /// The fields in wire order: name, element type, array kind.
    pub fn fields(&self) -> &[(FieldName, WireKind, ArrayKind)] {
        &self.fields
    }

    /// The fewest bytes a value takes (a string or variable array counts
    /// its 4-byte length).
    pub fn min_size(&self) -> u64 {
        self.min_size
    }

    /// The bytes every value takes, when no string or variable array is
    /// inside; else `None`.
    pub fn fixed_size(&self) -> Option<u64> {
        self.fixed_size
    }
}

/// A field's element type on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireKind {
    /// A primitive.
    Prim(Builtin),
    /// A nested message, by its index in [`MessageType::wire_types`]
    /// (and [`MessageType::defs`]).
    Msg(usize),
}

impl MessageType {
    /// Parses and compiles the definition `text` of type `type_name`,
    /// refusing types nested deeper than [`MAX_NESTING`].
    pub fn parse(type_name: &str, text: &str) -> Result<Self, String> {
        Self::parse_with_limits(type_name, text, &Limits::default())
    }

    /// [`parse`](Self::parse) with the nesting limit of `limits`
    /// ([`Limits::nesting_or`]`(`[`MAX_NESTING`]`)`), which the type keeps
    /// for decoding and encoding.
    ///
    /// ```
    /// use rosbag12::{Limits, MessageType};
    ///
    /// let text = "B b\n===\nMSG: p/B\nC c\n===\nMSG: p/C\nint8 x";
    /// let lowered = Limits::default().with_max_nesting(2);
    /// let e = MessageType::parse_with_limits("p/A", text, &lowered).unwrap_err();
    /// assert!(e.contains("at most 2 levels deep"), "{e}");
    /// assert!(e.contains("`--max-nesting`"), "{e}");
    /// let t = MessageType::parse_with_limits("p/A", text, &lowered.with_max_nesting(3)).unwrap();
    /// assert_eq!(t.max_nesting(), 3);
    /// assert_eq!(MessageType::parse("p/A", text).unwrap().max_nesting(), 64);
    /// ```
    pub fn parse_with_limits(type_name: &str, text: &str, limits: &Limits) -> Result<Self, String> {
        let max_nesting = limits.nesting_or(MAX_NESTING);
        let defs = parse_definition(type_name, text)?;
        let sums = md5sums_nested(&defs, max_nesting)?;
        let index: HashMap<&str, usize> = defs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.name.as_str(), i))
            .collect();
        let mut compiled: Vec<WireType> = defs
            .iter()
            .map(|d| WireType {
                fields: d
                    .fields
                    .iter()
                    .map(|f| {
                        let kind = match &f.base {
                            BaseType::Builtin(p) => WireKind::Prim(*p),
                            BaseType::Message(m) => {
                                WireKind::Msg(index.get(m.as_str()).copied().unwrap_or(0))
                            }
                        };
                        (FieldName::from(&f.name), kind, f.array)
                    })
                    .collect(),
                min_size: 0,
                fixed_size: None,
            })
            .collect();
        // Types are acyclic (checked by md5sums): settle the sizes by
        // repeated passes, at most one per type.
        for _ in 0..=compiled.len() {
            let mut changed = false;
            for i in 0..compiled.len() {
                let (mut min, mut fixed) = (0u64, Some(0u64));
                for (_, kind, array) in &compiled[i].fields {
                    let (elem_min, elem_fixed) = match kind {
                        WireKind::Prim(p) => {
                            let size = p.wire_size().map(|s| s as u64);
                            (size.unwrap_or(4), size)
                        }
                        WireKind::Msg(j) => (compiled[*j].min_size, compiled[*j].fixed_size),
                    };
                    let (m, f) = match array {
                        ArrayKind::Scalar => (elem_min, elem_fixed),
                        ArrayKind::Unbounded | ArrayKind::Bounded(_) => (4, None),
                        ArrayKind::Fixed(n) => (
                            elem_min.saturating_mul(u64::from(*n)),
                            elem_fixed.and_then(|e| e.checked_mul(u64::from(*n))),
                        ),
                    };
                    min = min.saturating_add(m);
                    fixed = fixed.zip(f).and_then(|(a, b)| a.checked_add(b));
                }
                if compiled[i].min_size != min || compiled[i].fixed_size != fixed {
                    compiled[i].min_size = min;
                    compiled[i].fixed_size = fixed;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let md5sum = sums.get(type_name).cloned().unwrap_or_default();
        Ok(MessageType {
            defs,
            md5sum,
            stored_md5_mismatch: None,
            compiled,
            max_nesting,
        })
    }

    /// The deepest nesting of types this type was parsed with, and that
    /// its decoding and encoding follow.
    pub fn max_nesting(&self) -> usize {
        self.max_nesting
    }

    /// Compiles the definition a connection carries, and compares the md5.
    pub fn from_connection(c: &Connection) -> Result<Self> {
        Self::from_connection_with_limits(c, &Limits::default())
    }

    /// [`from_connection`](Self::from_connection) with the nesting limit
    /// of `limits` (see [`parse_with_limits`](Self::parse_with_limits)).
    pub fn from_connection_with_limits(c: &Connection, limits: &Limits) -> Result<Self> {
        let err = |reason: String| Error::Definition {
            offset: c.offset,
            type_name: c.type_name.clone(),
            reason,
        };
        if c.message_definition.is_empty() {
            return Err(err(format!(
                "no message definition stored for connection {} on {}",
                c.id, c.topic
            )));
        }
        let mut t = MessageType::parse_with_limits(&c.type_name, &c.message_definition, limits)
            .map_err(err)?;
        if c.md5sum != "*" && c.md5sum != t.md5sum {
            t.stored_md5_mismatch = Some(c.md5sum.clone());
        }
        Ok(t)
    }

    /// Fewest payload bytes a message of this type takes.
    pub fn min_size(&self) -> u64 {
        self.compiled.first().map_or(0, |c| c.min_size)
    }

    /// Every type of the definition as the wire holds it, in the order of
    /// [`defs`](Self::defs) (the message's own type first), for readers
    /// that walk payloads themselves.
    ///
    /// ```
    /// use rosbag12::MessageType;
    /// use rosbag12::msg::{ArrayKind, Builtin, WireKind};
    ///
    /// let text = "Header header\nfloat64[9] c\n===\nMSG: std_msgs/Header\n\
    ///             uint32 seq\ntime stamp\nstring frame_id";
    /// let t = MessageType::parse("p/A", text).unwrap();
    /// let [top, header] = t.wire_types() else { panic!() };
    /// assert_eq!(top.fields()[0].1, WireKind::Msg(1));
    /// assert_eq!(top.fields()[1].1, WireKind::Prim(Builtin::Float64));
    /// assert_eq!(top.fields()[1].2, ArrayKind::Fixed(9));
    /// // seq, stamp and the string's length.
    /// assert_eq!((header.min_size(), header.fixed_size()), (16, None));
    /// assert_eq!((top.min_size(), top.fixed_size()), (16 + 72, None));
    /// let p = MessageType::parse("p/P", "float64 x\nfloat64 y\nint8[3] z").unwrap();
    /// assert_eq!(p.wire_types()[0].fixed_size(), Some(19));
    /// ```
    pub fn wire_types(&self) -> &[WireType] {
        &self.compiled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compiled_type_keeps_the_md5_and_the_resolved_definitions() {
        let t = MessageType::parse("std_msgs/String", "string data").unwrap();
        assert_eq!(t.md5sum, "992ce8a1687cec8c8bd883ec73ca41d1");
        let t = MessageType::parse("a/B", "Header h").unwrap();
        assert_eq!(t.defs.len(), 2);
        assert_eq!(t.md5sum, md5sums(&t.defs).unwrap()["a/B"]);
        let cyc = "B b\n===\nMSG: a/B\nB b";
        assert!(
            MessageType::parse("a/A", cyc)
                .unwrap_err()
                .contains("itself")
        );
    }
}
