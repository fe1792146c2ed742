//! ROS 1 definitions resolved (bag format 2.0 spec 6.1, 6.2, 6.5): the
//! full text a bag stores per connection as [`MsgDef`]s, type resolution
//! (including the pre-Diamondback `roslib/Header`), and the md5 rule
//! ([`md5sums`]). A ROS 1 codec (rosbag12's) compiles these definitions
//! for its wire form.
//!
//! The grammar is this crate's ROS 1 [`Dialect`]; errors name the line,
//! column and byte offset in the stored text and what was expected there.
//!
//! ROS 1 has no bounded types, but ROS 2 to ROS 1 conversions (rosbags,
//! and `robolog`'s) write ROS 2's `string<=N` and `T[<=N]` into the ROS 1
//! definitions they store. Such a definition is read, not refused: a
//! bounded string is a `string`, a bounded sequence `T[<=N]` a variable
//! array ([`ArrayKind::Unbounded`]), since that is their ROS 1 wire form
//! (a `u32` length, then the bytes or elements) and the bound is not on
//! the wire to check. [`FieldDef::type_text`] keeps the bound as written,
//! so the md5 is that of the stored text (the one the converter computed).

use std::collections::{HashMap, HashSet};

use logcore::Limits;
use md5::{Digest, Md5};

use crate::{self as grammar, Dialect};
/// The builtins and array forms of the grammar: `wstring` never comes up
/// in the ROS 1 dialect, nor a bounded array (read as unbounded).
pub use crate::{ArrayKind, Builtin};

/// The deepest nesting of message types accepted, counting the top-level
/// type as one level: a type of builtins only is 1 deep, a type with a
/// `std_msgs/Header` field 2 deep. Real ROS definitions nest well under
/// ten levels (`visualization_msgs/MarkerArray` is 4 deep), so 64 is far
/// above anything recorded; the limit keeps hostile definitions (a chain of
/// thousands of types) from exhausting the stack in type resolution
/// ([`md5sums`], a codec's compilation) and in decoding.
///
/// This is the default; [`Limits::max_nesting`] overrides it
/// ([`md5sums_nested`], and rosbag12's `MessageType::parse_with_limits`
/// and `Bag::with_limits`).
pub const MAX_NESTING: usize = 64;

/// The element type of a field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaseType {
    /// A builtin (never `wstring` in ROS 1).
    Builtin(Builtin),
    /// A message type, by full name `package/Type`.
    Message(String),
}

/// A field of a message definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldDef {
    /// Field name.
    pub name: String,
    /// Element type, resolved.
    pub base: BaseType,
    /// Array form.
    pub array: ArrayKind,
    /// The type exactly as written (`float64[9]`, `Header`).
    pub type_text: String,
}

/// A constant of a message definition (not serialized).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstantDef {
    /// Builtin type name as written.
    pub type_name: String,
    /// Constant name.
    pub name: String,
    /// The value's original text, trimmed (what the md5 covers).
    pub value: String,
}

/// One message type's parsed definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MsgDef {
    /// Full name `package/Type`.
    pub name: String,
    /// Constants in declaration order.
    pub constants: Vec<ConstantDef>,
    /// Fields in declaration order.
    pub fields: Vec<FieldDef>,
}

/// The definition of `std_msgs/Header`, used when a definition text
/// references `Header` without carrying its section.
pub const STD_HEADER: &str = "uint32 seq\ntime stamp\nstring frame_id";

/// One section parsed by the shared grammar (ROS 1 dialect) as a
/// [`MsgDef`] named `name`, base types still as written. Bounded strings
/// and sequences (`string<=N`, `T[<=N]`, which ROS 2 to ROS 1
/// conversions write) are read as unbounded: their ROS 1 wire form is the
/// unbounded one; the type text keeps the bound (the md5 covers the text
/// as written).
fn to_msg_def(name: &str, section: &grammar::Section<'_>) -> MsgDef {
    MsgDef {
        name: name.to_string(),
        constants: section
            .constants
            .iter()
            .map(|c| ConstantDef {
                type_name: c.ty.text.to_string(),
                name: c.name.to_string(),
                value: c.value.to_string(),
            })
            .collect(),
        fields: section
            .fields
            .iter()
            .map(|f| FieldDef {
                name: f.name.to_string(),
                base: match f.ty.base {
                    grammar::BaseType::Builtin(b) => BaseType::Builtin(b),
                    grammar::BaseType::Message(m) => BaseType::Message(m.to_string()),
                },
                array: match f.ty.array {
                    ArrayKind::Bounded(_) => ArrayKind::Unbounded,
                    other => other,
                },
                type_text: f.ty.text.to_string(),
            })
            .collect(),
    }
}

/// A grammar error as the reason of a definition error, naming the
/// section it is in.
fn grammar_error(e: &grammar::ParseError, section: &str) -> String {
    format!("{e} (in the definition of {section})")
}

/// Parses the definition of `std_msgs/Header`.
fn std_header() -> Result<MsgDef, String> {
    let name = "std_msgs/Header";
    let s = grammar::parse_section(None, STD_HEADER, grammar::Pos::START, Dialect::Ros1)
        .map_err(|e| grammar_error(&e, name))?;
    Ok(to_msg_def(name, &s))
}

/// Parses a stored full definition text of type `top` into its types,
/// the top-level one first, with every message field type resolved to a
/// full name that is defined in the list (spec 6.2 resolution rules).
///
/// ```
/// let defs = rosmsg::ros1::parse_definition(
///     "pkg/Pose", "Header header\nPoint p\n# c\nint8 A=1\n\
///     ================================================================================\n\
///     MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n\
///     ================================================================================\n\
///     MSG: pkg/Point\nfloat64 x").unwrap();
/// assert_eq!(defs.len(), 3);
/// assert_eq!(defs[0].constants[0].value, "1");
/// assert_eq!(defs[0].fields[1].base, rosmsg::ros1::BaseType::Message("pkg/Point".into()));
/// ```
pub fn parse_definition(top: &str, text: &str) -> Result<Vec<MsgDef>, String> {
    let mut defs = Vec::new();
    let mut names: HashSet<String> = HashSet::new();
    let raw = grammar::split_sections(text).map_err(|e| grammar_error(&e, top))?;
    for section in raw {
        let name = section.name.unwrap_or(top);
        if names.contains(name) {
            continue;
        }
        let parsed = grammar::parse_section(section.name, section.body, section.pos, Dialect::Ros1)
            .map_err(|e| grammar_error(&e, name))?;
        defs.push(to_msg_def(name, &parsed));
        names.insert(name.to_string());
    }
    let mut need_std_header = false;
    for d in &mut defs {
        for f in &mut d.fields {
            let BaseType::Message(written) = &f.base else {
                continue;
            };
            let full = grammar::resolve_name(written, &d.name, Dialect::Ros1, &names);
            if !names.contains(&full) {
                if full == "std_msgs/Header" {
                    need_std_header = true;
                } else {
                    return Err(format!(
                        "no definition section for {full} (used by field `{}` of {})",
                        f.name, d.name
                    ));
                }
            }
            f.base = BaseType::Message(full);
        }
    }
    if need_std_header {
        defs.push(std_header()?);
    }
    Ok(defs)
}

/// Computes the md5 of every type in `defs` (spec 6.5); fails on a cycle
/// and on types nested deeper than [`MAX_NESTING`].
pub fn md5sums(defs: &[MsgDef]) -> Result<HashMap<String, String>, String> {
    md5sums_nested(defs, MAX_NESTING)
}

/// [`md5sums`] refusing types nested deeper than `max_nesting` levels
/// (clamped as [`Limits::nesting_or`] does) instead of [`MAX_NESTING`].
pub fn md5sums_nested(
    defs: &[MsgDef],
    max_nesting: usize,
) -> Result<HashMap<String, String>, String> {
    let max = Limits::default()
        .with_max_nesting(max_nesting)
        .nesting_or(MAX_NESTING);
    /// The md5 and the nesting depth of `name`. The recursion goes at
    /// most `max` deep (`stack` holds the types being visited).
    fn visit(
        max: usize,
        name: &str,
        by_name: &HashMap<&str, &MsgDef>,
        done: &mut HashMap<String, (String, usize)>,
        stack: &mut Vec<String>,
    ) -> Result<(String, usize), String> {
        if let Some(m) = done.get(name) {
            return Ok(m.clone());
        }
        if stack.iter().any(|s| s == name) {
            return Err(format!("a type that does not contain itself: {name} does"));
        }
        let too_deep = || {
            format!(
                "message types nested {}: {} nests {name} deeper",
                logcore::limits::nesting_limit(max),
                stack.first().map_or(name, |s| s.as_str())
            )
        };
        if stack.len() >= max {
            return Err(too_deep());
        }
        let def = by_name
            .get(name)
            .ok_or_else(|| format!("no definition section for {name}"))?;
        stack.push(name.to_string());
        let mut lines = Vec::new();
        let mut depth = 1;
        for c in &def.constants {
            lines.push(format!("{} {}={}", c.type_name, c.name, c.value));
        }
        for f in &def.fields {
            match &f.base {
                BaseType::Builtin(_) => lines.push(format!("{} {}", f.type_text, f.name)),
                BaseType::Message(m) => {
                    let (sub, sub_depth) = visit(max, m, by_name, done, stack)?;
                    depth = depth.max(sub_depth.saturating_add(1));
                    lines.push(format!("{sub} {}", f.name));
                }
            }
        }
        stack.pop();
        // A type met first through a shallow path (or at the top) can
        // still sit on a deep chain of types visited before it.
        if depth > max {
            return Err(format!(
                "message types nested {}: {name} nests {depth} deep",
                logcore::limits::nesting_limit(max)
            ));
        }
        let digest = Md5::digest(lines.join("\n").as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        done.insert(name.to_string(), (hex.clone(), depth));
        Ok((hex, depth))
    }
    let mut by_name: HashMap<&str, &MsgDef> = HashMap::new();
    for d in defs {
        by_name.entry(d.name.as_str()).or_insert(d);
    }
    let mut done = HashMap::new();
    for d in defs {
        visit(max, &d.name, &by_name, &mut done, &mut Vec::new())?;
    }
    Ok(done.into_iter().map(|(k, (md5, _))| (k, md5)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md5_of(name: &str, text: &str) -> String {
        let defs = parse_definition(name, text).unwrap();
        md5sums(&defs).unwrap().remove(name).unwrap()
    }

    #[test]
    fn spec_md5_vectors() {
        assert_eq!(
            md5_of("std_msgs/Header", STD_HEADER),
            "2176decaecbce78abc3b96ef049fabed"
        );
        assert_eq!(
            md5_of("std_msgs/String", "string data"),
            "992ce8a1687cec8c8bd883ec73ca41d1"
        );
        assert_eq!(
            md5_of("std_msgs/Int32", "int32 data\n"),
            "da5909fbe378aeaf85e547e830cc1bb7"
        );
        assert_eq!(
            md5_of("std_msgs/Empty", ""),
            "d41d8cd98f00b204e9800998ecf8427e"
        );
        let twist = "Vector3  linear\nVector3  angular\n\
            ================================================================================\n\
            MSG: geometry_msgs/Vector3\n# comment\nfloat64 x\nfloat64 y\nfloat64 z";
        assert_eq!(
            md5_of("geometry_msgs/Twist", twist),
            "9f195f881246fdfa2798d1d3eebca84a"
        );
    }

    #[test]
    fn constants_keep_their_text() {
        let defs = parse_definition(
            "p/C",
            "string S=\"a#b\" # not a comment\nfloat64 fb = 40.9 # c\n",
        )
        .unwrap();
        assert_eq!(defs[0].constants[0].value, "\"a#b\" # not a comment");
        assert_eq!(defs[0].constants[1].value, "40.9");
        assert!(defs[0].fields.is_empty());
    }

    #[test]
    fn roslib_header_and_errors() {
        let text =
            "Header header\n=====\nMSG: roslib/Header\nuint32 seq\ntime stamp\nstring frame_id\n";
        let defs = parse_definition("a/B", text).unwrap();
        assert_eq!(
            defs[0].fields[0].base,
            BaseType::Message("roslib/Header".into())
        );
        // Header without a section: the standard one is used.
        assert_eq!(parse_definition("a/B", "Header h").unwrap().len(), 2);
        assert!(
            parse_definition("a/B", "Missing m")
                .unwrap_err()
                .contains("a/Missing")
        );
        assert!(parse_definition("a/B", "int32 1x").is_err());
        assert!(parse_definition("a/B", "int32 x\nint32 x").is_err());
        assert!(parse_definition("a/B", "int32[ x").is_err());
        let cyc = parse_definition("a/A", "B b\n===\nMSG: a/B\nB b").unwrap();
        assert!(md5sums(&cyc).unwrap_err().contains("itself"));
    }
}
