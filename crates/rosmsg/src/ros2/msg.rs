//! ROS 2 message definitions in the `ros2msg` text form: the `.msg`
//! grammar (builtins, bounded strings, fixed, bounded and unbounded
//! arrays, constants, default values), the concatenated form rosbag2 and
//! MCAP store (the top-level type first, then each dependency after a line
//! of `=` and a `MSG: pkg/Type` line), and `.srv` text (request `---`
//! response), from which the `<Srv>_Event` type of service introspection
//! is built.
//!
//! Type names are kept in the canonical form `pkg/Type`: `pkg/msg/Type`
//! and `pkg/srv/Type` are the same names with the interface kind in the
//! middle ([`canonical_name`]).
//!
//! The grammar is this crate's ROS 2 [`Dialect`]; this module turns
//! constants and defaults into
//! [`Value`]s, builds service events and resolves names. Errors name the
//! line and byte offset in the stored text (grammar errors the column too)
//! and what was expected there.

use std::collections::HashSet;

/// Whether a field is one value or an array of them (`T[N]`: no length
/// on the wire; `T[<=N]` and `T[]`: a length, then the elements).
pub use crate::ArrayKind;
/// A fixed-size builtin type; its [`size`](Primitive::size) is also its
/// CDR alignment.
pub use crate::Primitive;
use crate::{self as grammar, Builtin, Dialect, Pos, literal};
use logcore::Value;

use super::error::{Error, Result};

/// The deepest nesting of message types accepted, counting the top-level
/// type as one level. Real definitions nest well under ten levels; the
/// limit keeps hostile definitions (long chains, or a type that contains
/// itself) from exhausting the stack in resolution and decoding. IDL
/// modules nest at most as deep.
///
/// This is the default; [`Limits::max_nesting`](logcore::Limits::max_nesting)
/// overrides it (ros2cdr's `MessageType::parse_with_limits`, and
/// [`parse_idl_with_limits`](super::idl::parse_idl_with_limits)).
pub const MAX_NESTING: usize = 64;

/// The element type of a field or constant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldType {
    /// A fixed-size builtin.
    Primitive(Primitive),
    /// `string` or `string<=N`.
    String {
        /// The bound `N` of `string<=N`.
        bound: Option<u32>,
    },
    /// `wstring` or `wstring<=N` (UTF-16 text).
    WString {
        /// The bound `N` of `wstring<=N`.
        bound: Option<u32>,
    },
    /// A message type: after [`parse_definition`], the canonical
    /// `pkg/Type` name of a type in the list it returned.
    Message(String),
}

/// One field of a message.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldDef {
    /// The field name.
    pub name: String,
    /// The element type.
    pub ty: FieldType,
    /// Scalar or array.
    pub array: ArrayKind,
    /// The default value the definition gives (a `Value` of the field's
    /// type, an [`Value::Array`] for arrays), if any.
    pub default: Option<Value>,
}

/// A constant (`type NAME=value`): part of the definition, not of the
/// wire data.
#[derive(Debug, Clone, PartialEq)]
pub struct ConstantDef {
    /// The constant's name.
    pub name: String,
    /// Its type (a primitive or a string).
    pub ty: FieldType,
    /// Its value, as a `Value` of its type.
    pub value: Value,
}

/// One message type: its name, constants and fields in order.
#[derive(Debug, Clone, PartialEq)]
pub struct MsgDef {
    /// The canonical name, `pkg/Type`.
    pub name: String,
    /// Constants in definition order.
    pub constants: Vec<ConstantDef>,
    /// Fields in wire order.
    pub fields: Vec<FieldDef>,
}

/// The canonical form `pkg/Type` of a type name: `pkg/msg/Type` and
/// `pkg/srv/Type` lose their middle part; other names stay as they are.
///
/// ```
/// assert_eq!(rosmsg::ros2::msg::canonical_name("std_msgs/msg/String"), "std_msgs/String");
/// assert_eq!(rosmsg::ros2::msg::canonical_name("test_msgs/BasicTypes"), "test_msgs/BasicTypes");
/// ```
pub fn canonical_name(name: &str) -> String {
    grammar::canonical_name(name)
}

/// Definitions used when a definition text refers to them without
/// carrying their section: the two builtin_interfaces types and the info
/// struct of service events.
const BUILTIN_SECTIONS: [(&str, &str); 3] = [
    ("builtin_interfaces/Time", "int32 sec\nuint32 nanosec\n"),
    ("builtin_interfaces/Duration", "int32 sec\nuint32 nanosec\n"),
    (
        "service_msgs/ServiceEventInfo",
        "uint8 REQUEST_SENT=0\nuint8 REQUEST_RECEIVED=1\nuint8 RESPONSE_SENT=2\n\
         uint8 RESPONSE_RECEIVED=3\nuint8 event_type\nbuiltin_interfaces/Time stamp\n\
         char[16] client_gid\nint64 sequence_number\n",
    ),
];

/// The definition of a type used without being defined, if it is one of
/// [`BUILTIN_SECTIONS`].
pub(super) fn builtin_def(name: &str) -> Option<Result<MsgDef>> {
    BUILTIN_SECTIONS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, body)| parse_section(n, body, Pos::START))
}

/// A scalar literal of type `ty` as a [`Value`].
pub(super) fn scalar_literal(ty: &FieldType, text: &str) -> std::result::Result<Value, String> {
    use Primitive as P;
    let text = text.trim();
    let bad = || format!("`{text}` is not a valid {}", type_text(ty));
    match ty {
        FieldType::String { .. } | FieldType::WString { .. } => {
            if text.starts_with(['"', '\'']) {
                let s = literal::unquote(text).ok_or_else(bad)?;
                Ok(Value::String(s))
            } else {
                Ok(Value::String(text.to_string()))
            }
        }
        FieldType::Message(_) => Err("a message type has no literal values".to_string()),
        FieldType::Primitive(p) => match p {
            P::Bool => match text.to_ascii_lowercase().as_str() {
                "true" | "1" => Ok(Value::Bool(true)),
                "false" | "0" => Ok(Value::Bool(false)),
                _ => Err(bad()),
            },
            P::Float32 => text.parse::<f32>().map(Value::F32).map_err(|_| bad()),
            P::Float64 => text.parse::<f64>().map(Value::F64).map_err(|_| bad()),
            P::Int8 | P::Int16 | P::Int32 | P::Int64 => {
                let v: i64 = text.parse().map_err(|_| bad())?;
                let bits = (p.size() * 8) as u32;
                let (lo, hi) = if bits == 64 {
                    (i64::MIN, i64::MAX)
                } else {
                    (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
                };
                if (lo..=hi).contains(&v) {
                    Ok(Value::I64(v))
                } else {
                    Err(bad())
                }
            }
            P::Byte | P::Char | P::UInt8 | P::UInt16 | P::UInt32 | P::UInt64 => {
                let v: u64 = text.parse().map_err(|_| bad())?;
                let bits = (p.size() * 8) as u32;
                if bits == 64 || v < (1u64 << bits) {
                    Ok(Value::U64(v))
                } else {
                    Err(bad())
                }
            }
        },
    }
}

fn type_text(ty: &FieldType) -> String {
    match ty {
        FieldType::Primitive(p) => p.name().to_string(),
        FieldType::String { bound: None } => "string".into(),
        FieldType::String { bound: Some(n) } => format!("string<={n}"),
        FieldType::WString { bound: None } => "wstring".into(),
        FieldType::WString { bound: Some(n) } => format!("wstring<={n}"),
        FieldType::Message(m) => m.clone(),
    }
}

/// A default value of a field of type `ty` and `array` kind.
fn default_literal(
    ty: &FieldType,
    array: ArrayKind,
    text: &str,
) -> std::result::Result<Value, String> {
    if let FieldType::Message(m) = ty {
        return Err(format!("a default value for a field of message type {m}"));
    }
    if array == ArrayKind::Scalar {
        return scalar_literal(ty, text);
    }
    let items = literal::array_elements(text)
        .ok_or_else(|| format!("an array literal `[a, b, ...]`, found `{text}`"))?;
    let n = items.len() as u64;
    match array {
        ArrayKind::Fixed(len) if n != u64::from(len) => {
            return Err(format!("{len} default values, found {n}"));
        }
        ArrayKind::Bounded(len) if n > u64::from(len) => {
            return Err(format!("at most {len} default values, found {n}"));
        }
        _ => {}
    }
    let is_string = matches!(ty, FieldType::String { .. } | FieldType::WString { .. });
    items
        .iter()
        .map(|item| {
            if is_string {
                Ok(Value::String(item.clone()))
            } else {
                scalar_literal(ty, item)
            }
        })
        .collect::<std::result::Result<Vec<_>, _>>()
        .map(Value::Array)
}

/// The field type of a type as the shared grammar parsed it (ROS 2
/// dialect).
fn field_type(ty: &grammar::TypeSpec<'_>) -> FieldType {
    match ty.base {
        grammar::BaseType::Builtin(Builtin::String) => FieldType::String {
            bound: ty.string_bound,
        },
        grammar::BaseType::Builtin(Builtin::WString) => FieldType::WString {
            bound: ty.string_bound,
        },
        grammar::BaseType::Builtin(b) => match b.primitive() {
            Some(p) => FieldType::Primitive(p),
            None => FieldType::Message(b.name().to_string()),
        },
        grammar::BaseType::Message(m) => FieldType::Message(m.to_string()),
    }
}

/// Parses the text of one type (no separators), which starts at `pos` of
/// the stored text, into constants and fields, message types still as
/// written: the shared grammar's ROS 2 dialect, then the values of
/// constants and defaults.
fn parse_section(name: &str, text: &str, pos: Pos) -> Result<MsgDef> {
    let section = grammar::parse_section(None, text, pos, Dialect::Ros2)
        .map_err(|e| Error::definition(name, format!("in {e}")))?;
    let err = |at: Pos, code: &str, what: String| {
        Error::definition(
            name,
            format!("in line {} `{code}` (byte {}): {what}", at.line, at.offset),
        )
    };
    let mut def = MsgDef {
        name: name.to_string(),
        constants: Vec::with_capacity(section.constants.len()),
        fields: Vec::with_capacity(section.fields.len()),
    };
    for c in &section.constants {
        let ty = field_type(&c.ty);
        let value = scalar_literal(&ty, c.value).map_err(|w| err(c.pos, c.code, w))?;
        def.constants.push(ConstantDef {
            name: c.name.to_string(),
            ty,
            value,
        });
    }
    for f in &section.fields {
        let ty = field_type(&f.ty);
        let array = f.ty.array;
        let default = match f.default {
            None => None,
            Some(text) => {
                Some(default_literal(&ty, array, text).map_err(|w| err(f.pos, f.code, w))?)
            }
        };
        def.fields.push(FieldDef {
            name: f.name.to_string(),
            ty,
            array,
            default,
        });
    }
    Ok(def)
}

/// The request and response halves of `.srv` text, if it has a `---`
/// line, and the offset of the response in `text`.
fn split_service(text: &str) -> Option<(&str, &str, usize)> {
    let mut pos = 0usize;
    for line in text.split_inclusive('\n') {
        if literal::strip_comment(line).trim() == "---" {
            let response = pos + line.len();
            return Some((&text[..pos], &text[response..], response));
        }
        pos += line.len();
    }
    None
}

/// The top-level section (starting at `pos` of the stored text), which may
/// be `.srv` text: for a `<Srv>_Event` type the event struct plus the
/// request and response types, for `<Srv>_Request`/`<Srv>_Response` the
/// matching half.
fn top_defs(name: &str, text: &str, pos: Pos) -> Result<Vec<MsgDef>> {
    let Some((request, response, at)) = split_service(text) else {
        return Ok(vec![parse_section(name, text, pos)?]);
    };
    let response_pos = pos.advance(&text[..at]);
    if split_service(response).is_some() {
        return Err(Error::definition(
            name,
            "more than one `---` line (action definitions are not supported)",
        ));
    }
    if name.ends_with("_Request") {
        return Ok(vec![parse_section(name, request, pos)?]);
    }
    if name.ends_with("_Response") {
        return Ok(vec![parse_section(name, response, response_pos)?]);
    }
    let Some(srv) = name.strip_suffix("_Event") else {
        return Err(Error::definition(
            name,
            "service text (`request --- response`) under a name that ends in neither \
             `_Event`, `_Request` nor `_Response`",
        ));
    };
    let short = srv.rsplit('/').next().unwrap_or(srv);
    let event = MsgDef {
        name: name.to_string(),
        constants: Vec::new(),
        fields: vec![
            FieldDef {
                name: "info".into(),
                ty: FieldType::Message("service_msgs/ServiceEventInfo".into()),
                array: ArrayKind::Scalar,
                default: None,
            },
            FieldDef {
                name: "request".into(),
                ty: FieldType::Message(format!("{short}_Request")),
                array: ArrayKind::Bounded(1),
                default: None,
            },
            FieldDef {
                name: "response".into(),
                ty: FieldType::Message(format!("{short}_Response")),
                array: ArrayKind::Bounded(1),
                default: None,
            },
        ],
    };
    Ok(vec![
        event,
        parse_section(&format!("{srv}_Request"), request, pos)?,
        parse_section(&format!("{srv}_Response"), response, response_pos)?,
    ])
}

/// Parses a stored definition text of type `top` (any of `pkg/msg/Type`,
/// `pkg/Type`, `pkg/srv/Srv_Event`) into its types, the top-level one
/// first, every message field type resolved to the canonical name of a
/// type in the list. Types referred to but not defined in the text are
/// taken from the ROS 2 definitions of `builtin_interfaces/Time`,
/// `builtin_interfaces/Duration` and `service_msgs/ServiceEventInfo`;
/// any other is an error.
///
/// A `.srv` text under a `<Srv>_Event` name gives the event type rosbag2
/// records for service introspection: `service_msgs/ServiceEventInfo
/// info`, `<Srv>_Request[<=1] request`, `<Srv>_Response[<=1] response`.
///
/// ```
/// use rosmsg::ros2::msg::{parse_definition, ArrayKind, FieldType};
/// let defs = parse_definition(
///     "example_interfaces/srv/AddTwoInts_Event",
///     "int64 a\nint64 b\n---\nint64 sum\n",
/// )?;
/// let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
/// assert_eq!(names, [
///     "example_interfaces/AddTwoInts_Event",
///     "example_interfaces/AddTwoInts_Request",
///     "example_interfaces/AddTwoInts_Response",
///     "service_msgs/ServiceEventInfo",
///     "builtin_interfaces/Time",
/// ]);
/// assert_eq!(defs[0].fields[1].array, ArrayKind::Bounded(1));
/// assert_eq!(defs[0].fields[1].ty, FieldType::Message("example_interfaces/AddTwoInts_Request".into()));
/// # Ok::<(), rosmsg::ros2::Error>(())
/// ```
pub fn parse_definition(top: &str, text: &str) -> Result<Vec<MsgDef>> {
    let mut defs: Vec<MsgDef> = Vec::new();
    let mut names: HashSet<String> = HashSet::new();
    let top_name = canonical_name(top);
    let mut parts: Vec<(String, &str, Pos)> = grammar::split_sections(text)
        .map_err(|e| Error::definition(&top_name, format!("in {e}")))?
        .into_iter()
        .map(|r| {
            (
                r.name.map_or_else(|| top_name.clone(), canonical_name),
                r.body,
                r.pos,
            )
        })
        .collect();
    // A text that starts with a separator and the top type's own `MSG:`
    // section leaves the first part empty.
    let blank = |t: &str| {
        t.lines()
            .all(|l| literal::strip_comment(l).trim().is_empty())
    };
    if parts.len() > 1 && blank(parts[0].1) && parts[1..].iter().any(|(n, ..)| *n == parts[0].0) {
        parts.remove(0);
        if let Some(at) = parts.iter().position(|(n, ..)| *n == top_name) {
            let own = parts.remove(at);
            parts.insert(0, own);
        }
    }
    for (i, (name, body, pos)) in parts.into_iter().enumerate() {
        if names.contains(&name) {
            continue;
        }
        let parsed = if i == 0 {
            top_defs(&name, body, pos)?
        } else {
            vec![parse_section(&name, body, pos)?]
        };
        for d in parsed {
            if names.insert(d.name.clone()) {
                defs.push(d);
            }
        }
    }
    // Resolve every message type, adding builtin sections as they are
    // needed (the list grows while it is walked).
    let mut k = 0;
    while k < defs.len() {
        let mut added = Vec::new();
        let owner = defs[k].name.clone();
        for f in &mut defs[k].fields {
            let FieldType::Message(written) = &f.ty else {
                continue;
            };
            let full = grammar::resolve_name(written, &owner, Dialect::Ros2, &names);
            if !names.contains(&full) {
                match builtin_def(&full) {
                    Some(def) => {
                        names.insert(full.clone());
                        added.push(def?);
                    }
                    None => {
                        return Err(Error::definition(
                            &owner,
                            format!(
                                "no definition of the type {full} (used by field `{}`)",
                                f.name
                            ),
                        ));
                    }
                }
            }
            f.ty = FieldType::Message(full);
        }
        defs.extend(added);
        k += 1;
    }
    Ok(defs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> MsgDef {
        parse_definition("p/msg/T", text).unwrap().remove(0)
    }

    #[test]
    fn types_bounds_and_arrays() {
        let d = one(
            "string<=22 a\nwstring b\nwstring<=3[<=2] c\nint32[] d\nfloat64[4] e\nuint8[<=10] f\n\
             Other[2] g\n===\nMSG: p/Other\nbool x\n",
        );
        let shape: Vec<(&str, FieldType, ArrayKind)> = d
            .fields
            .iter()
            .map(|f| (f.name.as_str(), f.ty.clone(), f.array))
            .collect();
        assert_eq!(
            shape,
            [
                (
                    "a",
                    FieldType::String { bound: Some(22) },
                    ArrayKind::Scalar
                ),
                ("b", FieldType::WString { bound: None }, ArrayKind::Scalar),
                (
                    "c",
                    FieldType::WString { bound: Some(3) },
                    ArrayKind::Bounded(2)
                ),
                (
                    "d",
                    FieldType::Primitive(Primitive::Int32),
                    ArrayKind::Unbounded
                ),
                (
                    "e",
                    FieldType::Primitive(Primitive::Float64),
                    ArrayKind::Fixed(4)
                ),
                (
                    "f",
                    FieldType::Primitive(Primitive::UInt8),
                    ArrayKind::Bounded(10)
                ),
                (
                    "g",
                    FieldType::Message("p/Other".into()),
                    ArrayKind::Fixed(2)
                ),
            ]
        );
    }

    #[test]
    fn constants_and_defaults_as_the_corpus_writes_them() {
        let d = one("string string_value_default3 'Hello\"world!'\n\
             string string_value_default4 'Hello\\'world!'\n\
             string STRING_CONST=\"Hello world!\"\n\
             int64[3] i [0, 9223372036854775807, -9223372036854775808]\n\
             string[3] s [\"\", \"max value\", \"min value\"]\n\
             bool BOOL_CONST=true\nint8 INT8_CONST=-50 # comment\nfloat32 F = 1.125\n\
             uint8 U=255\nchar c 100\n");
        assert_eq!(
            d.fields[0].default,
            Some(Value::String("Hello\"world!".into()))
        );
        assert_eq!(
            d.fields[1].default,
            Some(Value::String("Hello'world!".into()))
        );
        assert_eq!(
            d.fields[2].default,
            Some(Value::Array(vec![
                Value::I64(0),
                Value::I64(i64::MAX),
                Value::I64(i64::MIN)
            ]))
        );
        assert_eq!(
            d.fields[3].default,
            Some(Value::Array(vec![
                Value::String(String::new()),
                Value::String("max value".into()),
                Value::String("min value".into())
            ]))
        );
        assert_eq!(d.fields[4].default, Some(Value::U64(100)));
        let c: Vec<(&str, &Value)> = d
            .constants
            .iter()
            .map(|c| (c.name.as_str(), &c.value))
            .collect();
        assert_eq!(
            c,
            [
                ("STRING_CONST", &Value::String("Hello world!".into())),
                ("BOOL_CONST", &Value::Bool(true)),
                ("INT8_CONST", &Value::I64(-50)),
                ("F", &Value::F32(1.125)),
                ("U", &Value::U64(255)),
            ]
        );
    }

    #[test]
    fn bad_definitions_name_the_line() {
        for (text, want) in [
            (
                "int8 X=128",
                "in line 1 `int8 X=128` (byte 0): `128` is not a valid int8",
            ),
            ("int32[0] a", "an array length of at least 1"),
            ("int32 a\nint32 a", "in line 2"),
            ("Missing m", "no definition of the type p/Missing"),
            ("int32<=3 a", "not a string type"),
            ("int32[3] a [1, 2]", "3 default values, found 2"),
            ("a b c d", "in line 1"),
            ("int32 a\n===\nnot a msg line\n", "`MSG: pkg/Type`"),
        ] {
            let e = parse_definition("p/msg/T", text).unwrap_err().to_string();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn a_text_may_start_with_the_top_types_own_section() {
        let defs = parse_definition(
            "a/msg/Top",
            "================\nMSG: a/Dep\nint8 x\n================\nMSG: a/msg/Top\nDep d\n",
        )
        .unwrap();
        assert_eq!(defs[0].name, "a/Top");
        assert_eq!(defs[0].fields[0].ty, FieldType::Message("a/Dep".into()));
        assert_eq!(defs[1].name, "a/Dep");
        // Not just an empty top type when the first section is empty.
        let defs = parse_definition("a/msg/E", "").unwrap();
        assert!(defs[0].fields.is_empty());
    }

    #[test]
    fn names_resolve_across_packages_and_forms() {
        let defs = parse_definition(
            "a/msg/Top",
            "Local l\nb/msg/Far f\nbuiltin_interfaces/Time t\nOnly o\n\
             ===\nMSG: a/Local\nint8 x\n===\nMSG: b/Far\nint8 y\n===\nMSG: c/Only\nint8 z\n",
        )
        .unwrap();
        let tys: Vec<&FieldType> = defs[0].fields.iter().map(|f| &f.ty).collect();
        assert_eq!(
            tys,
            [
                &FieldType::Message("a/Local".into()),
                &FieldType::Message("b/Far".into()),
                &FieldType::Message("builtin_interfaces/Time".into()),
                &FieldType::Message("c/Only".into()),
            ]
        );
        assert_eq!(defs.last().unwrap().name, "builtin_interfaces/Time");
    }
}
