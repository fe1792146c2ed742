//! Message types generated from the JSON Schemas of a log's own topics
//! (written by `jsonschema::schema_text` from a ULog format, a CARLA
//! packet or a VEL record), so the protobuf form has every field of the
//! JSON form.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use prost_types::field_descriptor_proto::{Label, Type as PbType};
use prost_types::{DescriptorProto, FieldDescriptorProto, FileDescriptorProto};
use serde_json::Value as Json;

use super::{FieldType, Kind, MessageType};

/// `name` as a protobuf identifier: characters other than ASCII letters,
/// digits and `_` become `_`, and a leading digit (or nothing) gets a `_`
/// before it.
pub(crate) fn identifier(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if !s.starts_with(|c: char| c.is_ascii_alphabetic()) {
        s.insert(0, 'f');
        s.insert(1, '_');
    }
    s
}

/// `name` in UpperCamelCase (`esc_report` → `EscReport`), for a nested
/// message type named after its field.
fn camel(name: &str) -> String {
    let mut out = String::new();
    for part in identifier(name).split('_').filter(|p| !p.is_empty()) {
        let mut cs = part.chars();
        if let Some(c) = cs.next() {
            out.push(c.to_ascii_uppercase());
            out.extend(cs);
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'T');
    }
    out
}

/// A name of `base` not in `used` (`base`, `base_2`, `base_3`, ...), now used.
fn unique(base: String, used: &mut HashSet<String>) -> String {
    let mut name = base.clone();
    let mut n = 2;
    while used.contains(&name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    used.insert(name.clone());
    name
}

/// The file descriptor and message type of the JSON Schema `text` of the
/// channel schema `schema_name` (`vehicle_attitude`, `carla.Frame`,
/// `vel.GPSDataM`): the part before the last `.` is the package, the last
/// part the message. The file is `robolog/<schema_name>.proto`.
pub(crate) fn generate(
    schema_name: &str,
    text: &str,
) -> Result<(FileDescriptorProto, Arc<MessageType>), String> {
    let root: Json = serde_json::from_str(text).map_err(|e| format!("unreadable schema: {e}"))?;
    let (package, short) = match schema_name.rsplit_once('.') {
        Some((p, s)) => (
            p.split('.').map(identifier).collect::<Vec<_>>().join("."),
            identifier(s),
        ),
        None => (String::new(), identifier(schema_name)),
    };
    let full = if package.is_empty() {
        short.clone()
    } else {
        format!("{package}.{short}")
    };
    let (descriptor, message) = object(&short, &full, &root)?;
    let file = FileDescriptorProto {
        name: Some(format!("robolog/{schema_name}.proto")),
        package: (!package.is_empty()).then_some(package),
        message_type: vec![descriptor],
        syntax: Some("proto3".into()),
        ..FileDescriptorProto::default()
    };
    Ok((file, message))
}

/// The message `name` (full name `full`) of the object schema `node`.
fn object(
    name: &str,
    full: &str,
    node: &Json,
) -> Result<(DescriptorProto, Arc<MessageType>), String> {
    if node["type"] != "object" {
        return Err(format!("{full}: not an object"));
    }
    let mut d = DescriptorProto {
        name: Some(name.to_string()),
        ..DescriptorProto::default()
    };
    let mut fields = HashMap::new();
    let mut field_names = HashSet::new();
    let mut type_names = HashSet::new();
    let empty = serde_json::Map::new();
    let props = node["properties"].as_object().unwrap_or(&empty);
    for (i, (key, prop)) in props.iter().enumerate() {
        let number = u32::try_from(i + 1).map_err(|_| format!("{full}: too many fields"))?;
        let field_name = unique(identifier(key), &mut field_names);
        let (repeated, item) = if prop["type"] == "array" {
            (true, &prop["items"])
        } else {
            (false, prop)
        };
        let mut f = FieldDescriptorProto {
            name: Some(field_name),
            number: Some(i32::try_from(number).unwrap_or(i32::MAX)),
            ..FieldDescriptorProto::default()
        };
        f.set_label(if repeated {
            Label::Repeated
        } else {
            Label::Optional
        });
        let kind = match item["type"].as_str() {
            Some("number") => {
                f.set_type(PbType::Double);
                Kind::Double
            }
            Some("integer") if item["minimum"] == 0 => {
                f.set_type(PbType::Uint64);
                Kind::UInt
            }
            Some("integer") => {
                f.set_type(PbType::Int64);
                Kind::Int
            }
            Some("boolean") => {
                f.set_type(PbType::Bool);
                Kind::Bool
            }
            Some("string") if item["contentEncoding"] == "base64" => {
                f.set_type(PbType::Bytes);
                Kind::Bytes
            }
            Some("string") => {
                f.set_type(PbType::String);
                Kind::Str
            }
            Some("object") => {
                let nested = unique(camel(key), &mut type_names);
                let nested_full = format!("{full}.{nested}");
                let (nd, nt) = object(&nested, &nested_full, item)?;
                d.nested_type.push(nd);
                f.set_type(PbType::Message);
                f.type_name = Some(format!(".{nested_full}"));
                Kind::Message(nt)
            }
            other => return Err(format!("{full}.{key}: no protobuf type for {other:?}")),
        };
        d.field.push(f);
        fields.insert(
            key.clone(),
            FieldType {
                number,
                kind,
                repeated,
            },
        );
    }
    Ok((
        d,
        Arc::new(MessageType {
            name: full.to_string(),
            fields,
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::jsonschema::{Field, Type, schema_text};

    #[test]
    fn nested_formats_become_nested_messages() {
        let ty = Type::object([
            Field::new("timestamp", Type::UInt),
            Field::new("q", Type::fixed(Type::Float, 4)),
            Field::optional("name", Type::Str),
            Field::new(
                "esc",
                Type::list(Type::object([Field::new("esc_rpm", Type::Int)])),
            ),
            Field::new("data", Type::Bytes),
            Field::new("ok", Type::Bool),
            Field::new("odd name", Type::Int),
        ]);
        let (file, msg) =
            generate("ulog.esc_status", &schema_text("ulog.esc_status", &ty)).unwrap();
        assert_eq!(file.package(), "ulog");
        assert_eq!(msg.name, "ulog.esc_status");
        let m = &file.message_type[0];
        let got: Vec<(&str, i32, PbType, Label)> = m
            .field
            .iter()
            .map(|f| (f.name(), f.number(), f.r#type(), f.label()))
            .collect();
        assert_eq!(
            got,
            [
                ("timestamp", 1, PbType::Uint64, Label::Optional),
                ("q", 2, PbType::Double, Label::Repeated),
                ("name", 3, PbType::String, Label::Optional),
                ("esc", 4, PbType::Message, Label::Repeated),
                ("data", 5, PbType::Bytes, Label::Optional),
                ("ok", 6, PbType::Bool, Label::Optional),
                ("odd_name", 7, PbType::Int64, Label::Optional),
            ]
        );
        assert_eq!(m.field[3].type_name(), ".ulog.esc_status.Esc");
        assert_eq!(m.nested_type[0].field[0].name(), "esc_rpm");
        assert_eq!(msg.fields["odd name"].number, 7);
        assert!(matches!(msg.fields["esc"].kind, Kind::Message(_)));
    }

    #[test]
    fn names_become_identifiers() {
        assert_eq!(identifier("a-b.c"), "a_b_c");
        assert_eq!(identifier("3d"), "f_3d");
        assert_eq!(identifier(""), "f_");
        assert_eq!(camel("esc_report"), "EscReport");
        assert_eq!(camel("0"), "F0");
    }
}
