//! ROS 2 type description hashes: the `RIHS01_<64 hex digits>` strings
//! rosbag2 (jazzy and later) stores per topic as `type_description_hash`
//! in `metadata.yaml` and its SQLite tables, and as the `topic_type_hash`
//! channel metadata of its MCAP files.
//!
//! The ROS Interface Hashing Standard, version 1 (REP 2011), hashes the
//! type description of a type (the `type_description_interfaces`
//! messages `TypeDescription`, `IndividualTypeDescription`, `Field` and
//! `FieldType`) with SHA-256 over one canonical JSON text:
//!
//! ```text
//! {"type_description": T, "referenced_type_descriptions": [R1, R2, ...]}
//! ```
//!
//! where `T` is the type itself and `R1, R2, ...` every type it uses,
//! directly or through others, sorted by name, each as
//! `{"type_name": "pkg/msg/Type", "fields": [F, ...]}` with every field
//! in definition order as `{"name": "x", "type": {"type_id": N,
//! "capacity": N, "string_capacity": N, "nested_type_name": "..."}}`.
//! Constants and default values are left out. Separators are `", "` and
//! `": "`, keys in that order, text escaped to ASCII (Python's
//! `json.dumps` defaults, which ROS's generator uses).
//!
//! Field type ids are `FieldType`'s constants: 1 a nested type, 2 to 9
//! the integers from `int8` to `uint64`, 10 `float32`, 11 `float64`, 15
//! `bool`, 16 `byte`, 17 `string`, 18 `wstring`, 21 `string<=N` and 22
//! `wstring<=N` (with `N` as string capacity); a fixed array `T[N]` adds
//! 48 (capacity `N`), a bounded sequence `T[<=N]` 96 (capacity `N`), an
//! unbounded one `T[]` 144. A `.msg` `char` is an unsigned octet in ROS 2
//! (`uint8` in the IDL ROS generates from it), so it hashes as `uint8`
//! (3); the same holds for a `char` of a `ros2idl` text, which rosidl
//! itself never writes. A type without fields has the one field
//! `uint8 structure_needs_at_least_one_member` ROS 2 adds.

use std::collections::{BTreeMap, HashMap};

use sha2::{Digest, Sha256};

use super::msg::{ArrayKind, FieldDef, FieldType, MsgDef, Primitive};

/// The prefix of a version 1 hash.
pub const RIHS01_PREFIX: &str = "RIHS01_";

/// The interface kind (`srv` or `msg`) of parsed definitions: `srv` when
/// the top type is the event, request or response of a service defined
/// in them (the event type is followed by its `_Request` and
/// `_Response`).
///
/// ```
/// use rosmsg::ros2::{hash::inferred_interface, parse_definition};
/// let srv = parse_definition("demo/srv/Add_Event", "int64 a\n---\nint64 sum\n")?;
/// assert_eq!(inferred_interface(&srv), "srv");
/// assert_eq!(inferred_interface(&parse_definition("demo/msg/A", "int64 a\n")?), "msg");
/// # Ok::<(), rosmsg::ros2::Error>(())
/// ```
pub fn inferred_interface(defs: &[MsgDef]) -> &'static str {
    let Some(top) = defs.first() else {
        return "msg";
    };
    let base = ["_Event", "_Request", "_Response"]
        .iter()
        .find_map(|s| top.name.strip_suffix(s));
    match base {
        Some(b)
            if defs.iter().any(|d| d.name == format!("{b}_Request"))
                && defs.iter().any(|d| d.name == format!("{b}_Response")) =>
        {
            "srv"
        }
        _ => "msg",
    }
}

/// The `FieldType` id of a builtin (before adding an array's offset).
fn primitive_id(p: Primitive) -> u32 {
    use Primitive as P;
    match p {
        P::Int8 => 2,
        P::UInt8 | P::Char => 3,
        P::Int16 => 4,
        P::UInt16 => 5,
        P::Int32 => 6,
        P::UInt32 => 7,
        P::Int64 => 8,
        P::UInt64 => 9,
        P::Float32 => 10,
        P::Float64 => 11,
        P::Bool => 15,
        P::Byte => 16,
    }
}

/// Appends `s` as a JSON string escaped to ASCII, as Python's
/// `json.dumps` writes it by default.
fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
        }
    }
    out.push('"');
}

/// The full name (`pkg/msg/Type`, `pkg/srv/Type`) of a type of this
/// definition given its canonical name: `srv` for the top-level
/// service type and its request, response and event, `msg` for every
/// other.
fn full_name(top: &str, interface: &str, canonical: &str) -> String {
    let Some((pkg, ty)) = canonical.split_once('/') else {
        return canonical.to_string();
    };
    if ty.contains('/') {
        return canonical.to_string();
    }
    let mut kind = "msg";
    if interface == "srv" {
        let base = ["_Event", "_Request", "_Response"]
            .iter()
            .find_map(|s| top.strip_suffix(s))
            .unwrap_or(top);
        let own = canonical == top
            || ["_Event", "_Request", "_Response"]
                .iter()
                .any(|s| canonical.strip_suffix(s) == Some(base));
        if own {
            kind = "srv";
        }
    }
    format!("{pkg}/{kind}/{ty}")
}

/// The JSON text of one type's description (fields only).
fn push_description(out: &mut String, top: &str, interface: &str, def: &MsgDef) {
    out.push_str("{\"type_name\": ");
    push_json_str(out, &full_name(top, interface, &def.name));
    out.push_str(", \"fields\": [");
    let filler = [FieldDef {
        name: "structure_needs_at_least_one_member".into(),
        ty: FieldType::Primitive(Primitive::UInt8),
        array: ArrayKind::Scalar,
        default: None,
    }];
    let fields = if def.fields.is_empty() {
        &filler[..]
    } else {
        &def.fields[..]
    };
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let (base, string_capacity, nested) = match &f.ty {
            FieldType::Primitive(p) => (primitive_id(*p), 0, String::new()),
            FieldType::String { bound: None } => (17, 0, String::new()),
            FieldType::String { bound: Some(n) } => (21, *n, String::new()),
            FieldType::WString { bound: None } => (18, 0, String::new()),
            FieldType::WString { bound: Some(n) } => (22, *n, String::new()),
            FieldType::Message(m) => (1, 0, full_name(top, interface, m)),
        };
        let (offset, capacity) = match f.array {
            ArrayKind::Scalar => (0, 0),
            ArrayKind::Fixed(n) => (48, n),
            ArrayKind::Bounded(n) => (96, n),
            ArrayKind::Unbounded => (144, 0),
        };
        out.push_str("{\"name\": ");
        push_json_str(out, &f.name);
        out.push_str(&format!(
            ", \"type\": {{\"type_id\": {}, \"capacity\": {capacity}, \
             \"string_capacity\": {string_capacity}, \"nested_type_name\": ",
            base + offset
        ));
        push_json_str(out, &nested);
        out.push_str("}}");
    }
    out.push_str("]}");
}

/// The canonical JSON text whose SHA-256 is the
/// [`type_description_hash`] of the first type of `defs` (parsed
/// definitions, the top-level type first; see the rules in the [module
/// docs](self)): the top-level type and every type it uses, by their
/// full names (`pkg/msg/Type`; with `interface` `srv`, the top-level
/// type, and for a service its request, response and event, as
/// `pkg/srv/Type`).
///
/// ```
/// use rosmsg::ros2::{hash::type_description_json, parse_definition};
/// let defs = parse_definition("demo/msg/Pair", "int8 A=1\nint8 a 3\nstring<=4[2] b\n")?;
/// assert_eq!(
///     type_description_json(&defs, "msg"),
///     "{\"type_description\": {\"type_name\": \"demo/msg/Pair\", \"fields\": [\
///      {\"name\": \"a\", \"type\": {\"type_id\": 2, \"capacity\": 0, \
///      \"string_capacity\": 0, \"nested_type_name\": \"\"}}, \
///      {\"name\": \"b\", \"type\": {\"type_id\": 69, \"capacity\": 2, \
///      \"string_capacity\": 4, \"nested_type_name\": \"\"}}]}, \
///      \"referenced_type_descriptions\": []}",
/// );
/// # Ok::<(), rosmsg::ros2::Error>(())
/// ```
pub fn type_description_json(defs: &[MsgDef], interface: &str) -> String {
    let index: HashMap<&str, &MsgDef> = defs.iter().map(|d| (d.name.as_str(), d)).collect();
    // Every type reachable from the top-level one, by full name.
    let mut referenced: BTreeMap<String, &MsgDef> = BTreeMap::new();
    let mut stack: Vec<&MsgDef> = defs.first().into_iter().collect();
    let top_name = defs.first().map_or("", |d| d.name.as_str());
    while let Some(d) = stack.pop() {
        for f in &d.fields {
            if let FieldType::Message(m) = &f.ty
                && m != top_name
                && let Some(&used) = index.get(m.as_str())
            {
                let full = full_name(top_name, interface, m);
                if let std::collections::btree_map::Entry::Vacant(e) = referenced.entry(full) {
                    e.insert(used);
                    stack.push(used);
                }
            }
        }
    }
    let mut out = String::from("{\"type_description\": ");
    if let Some(top) = defs.first() {
        push_description(&mut out, top_name, interface, top);
    }
    out.push_str(", \"referenced_type_descriptions\": [");
    for (i, d) in referenced.values().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        push_description(&mut out, top_name, interface, d);
    }
    out.push_str("]}");
    out
}

/// Whether the top-level type, or a type it uses, has a `char` field
/// (a scalar or an array of them). ROS 2 hashes such a field as
/// `uint8` (field type id 3); rosbags 0.11.9 hashes it as an IDL
/// `char` (13) and its `AnyReader` refuses a bag whose recorded hash
/// differs from its own, so a writer may prefer to leave the hash of
/// such a type unrecorded.
///
/// ```
/// use rosmsg::ros2::{hash::uses_char, parse_definition};
/// assert!(uses_char(&parse_definition("std_msgs/msg/Char", "char data\n")?));
/// assert!(!uses_char(&parse_definition("std_msgs/msg/Byte", "byte data\n")?));
/// # Ok::<(), rosmsg::ros2::Error>(())
/// ```
pub fn uses_char(defs: &[MsgDef]) -> bool {
    let top = defs.first().map_or("", |d| d.name.as_str());
    let index: HashMap<&str, &MsgDef> = defs.iter().map(|d| (d.name.as_str(), d)).collect();
    let mut seen = std::collections::HashSet::from([top]);
    let mut stack: Vec<&MsgDef> = defs.first().into_iter().collect();
    while let Some(d) = stack.pop() {
        for f in &d.fields {
            match &f.ty {
                FieldType::Primitive(Primitive::Char) => return true,
                FieldType::Message(m) => {
                    if let Some(&used) = index.get(m.as_str())
                        && seen.insert(m.as_str())
                    {
                        stack.push(used);
                    }
                }
                _ => {}
            }
        }
    }
    false
}

/// The ROS 2 type description hash of the first type of `defs` (parsed
/// definitions, the top-level type first), `RIHS01_` and the SHA-256 of
/// [`type_description_json`] in 64 lower-case hex digits: what rosbag2
/// records as a topic's `type_description_hash` (REP 2011; see the
/// [module docs](self)). It depends on the field names and types of
/// every type used, not on comments, constants or default values.
///
/// ```
/// use rosmsg::ros2::{hash::type_description_hash, parse_definition};
/// let defs = parse_definition(
///     "rosbag2_interfaces/msg/WriteSplitEvent",
///     "string closed_file  # the file finished\nstring opened_file\n",
/// )?;
/// // The hash rosbag2 itself recorded for this type (whose definition
/// // has other comments).
/// assert_eq!(
///     type_description_hash(&defs, "msg"),
///     "RIHS01_5ef58f7106a5cff8f5a794028c18117ee21015850ddcc567df449f41932960f8",
/// );
/// # Ok::<(), rosmsg::ros2::Error>(())
/// ```
pub fn type_description_hash(defs: &[MsgDef], interface: &str) -> String {
    let digest = Sha256::digest(type_description_json(defs, interface).as_bytes());
    let mut out = String::with_capacity(RIHS01_PREFIX.len() + 64);
    out.push_str(RIHS01_PREFIX);
    for b in digest.iter() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}
