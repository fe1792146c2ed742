//! The `protobuf` encoding of conversions ([`super::Encoding::Protobuf`]):
//! each channel's schema is a file descriptor set (schema encoding
//! `protobuf`, its name the message's full name) and each message the
//! protobuf encoding of the JSON form the converters build, field by
//! field, so both encodings hold the same values.
//!
//! - The Foxglove views (`foxglove.LocationFix`, `FrameTransform(s)`,
//!   `PoseInFrame`, `SceneUpdate`, `PointCloud`, `LaserScan`,
//!   `CompressedImage`, `Log`) use Foxglove's own `.proto` definitions,
//!   vendored unchanged under `foxglove/` (MIT, Foxglove SDK schemas) and
//!   read by [`proto`]: names, field numbers and types are theirs, with
//!   the files they import and `google/protobuf/timestamp.proto` and
//!   `duration.proto` in the set. Times `{sec, nsec}` become
//!   `google.protobuf.Timestamp`/`Duration`, base64 data bytes.
//! - A log's own topics get one message type per ULog format, CARLA
//!   packet and VEL record, generated from the JSON Schema of the JSON
//!   encoding ([`generated`]): objects are messages (nested formats nested
//!   messages), arrays `repeated`, integers `int64` (or `uint64` when
//!   unsigned, kept whole), floats `double` (NaN and infinities as they
//!   are, not as strings), bytes `bytes`. Field numbers follow the fields'
//!   order from 1; names that are no protobuf identifier are spelled with
//!   `_` for the characters they cannot hold.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use prost::Message as _;
use prost_types::field_descriptor_proto::{Label, Type as PbType};
use prost_types::{DescriptorProto, FieldDescriptorProto, FileDescriptorProto, FileDescriptorSet};
use serde_json::Value as Json;

use logcore::Error;

pub(crate) mod generated;
pub(crate) mod proto;

/// How a field's values are written.
#[derive(Debug, Clone)]
pub(crate) enum Kind {
    /// `double` (wire type 1).
    Double,
    /// `float` (wire type 5).
    Float,
    /// `int32`, `int64` and enums: a varint of the two's complement.
    Int,
    /// `uint32`, `uint64`: a varint.
    UInt,
    /// `fixed32` (wire type 5).
    Fixed32,
    /// `bool`: a varint.
    Bool,
    /// `string`.
    Str,
    /// `bytes`, base64 in the JSON form.
    Bytes,
    /// A message.
    Message(Arc<MessageType>),
}

impl Kind {
    /// The wire type of one value.
    fn wire(&self) -> u64 {
        match self {
            Kind::Int | Kind::UInt | Kind::Bool => 0,
            Kind::Double => 1,
            Kind::Str | Kind::Bytes | Kind::Message(_) => 2,
            Kind::Float | Kind::Fixed32 => 5,
        }
    }

    /// Whether repeated values are packed (numbers and booleans).
    fn packed(&self) -> bool {
        self.wire() != 2
    }
}

/// A field of a [`MessageType`].
#[derive(Debug, Clone)]
pub(crate) struct FieldType {
    pub(crate) number: u32,
    pub(crate) kind: Kind,
    pub(crate) repeated: bool,
}

/// A message type, its fields by the key of the JSON form.
#[derive(Debug, Clone, Default)]
pub(crate) struct MessageType {
    /// The full name, for errors.
    pub(crate) name: String,
    pub(crate) fields: HashMap<String, FieldType>,
}

/// A channel's protobuf schema: the message's full name, the encoded file
/// descriptor set and the type messages are encoded by.
pub(crate) struct Schema {
    pub(crate) name: String,
    pub(crate) data: Vec<u8>,
    pub(crate) message: Arc<MessageType>,
}

/// The protobuf schema of the channel whose JSON schema is `name` with text
/// `text`: Foxglove's for `foxglove.*`, else generated from `text`.
pub(crate) fn schema(name: &str, text: &str) -> Result<Schema, Error> {
    let fail = |e: String| Error::InvalidArgument(format!("protobuf schema of {name}: {e}"));
    if let Some(short) = name.strip_prefix("foxglove.") {
        let set = foxglove_set(short).map_err(fail)?;
        let message = resolve(&set.file, name).map_err(fail)?;
        Ok(Schema {
            name: name.to_string(),
            data: set.encode_to_vec(),
            message,
        })
    } else {
        let (file, message) = generated::generate(name, text).map_err(fail)?;
        let full = message.name.clone();
        Ok(Schema {
            name: full,
            data: FileDescriptorSet { file: vec![file] }.encode_to_vec(),
            message,
        })
    }
}

macro_rules! vendored {
    ($($file:literal),* $(,)?) => {
        /// The vendored Foxglove `.proto` files: (import path, text).
        pub(crate) const FOXGLOVE: &[(&str, &str)] = &[
            $((concat!("foxglove/", $file, ".proto"), include_str!(concat!("foxglove/", $file, ".proto")))),*
        ];
    };
}

vendored! {
    "ArrowPrimitive", "Color", "CompressedImage", "CubePrimitive", "CylinderPrimitive",
    "FrameTransform", "FrameTransforms", "KeyValuePair", "LaserScan", "LinePrimitive",
    "LocationFix", "Log", "ModelPrimitive", "PackedElementField", "Point3", "PointCloud",
    "Pose", "PoseInFrame", "Quaternion", "SceneEntity", "SceneEntityDeletion", "SceneUpdate",
    "SpherePrimitive", "TextPrimitive", "TriangleListPrimitive", "Vector3",
}

/// `google/protobuf/FILE.proto` holding the message `name` of fields
/// `int64 seconds = 1; int32 nanos = 2;` (`Timestamp`, `Duration`).
pub(crate) fn well_known(file: &str, name: &str) -> FileDescriptorProto {
    let field = |n: &str, number, ty| {
        let mut f = FieldDescriptorProto {
            name: Some(n.into()),
            number: Some(number),
            json_name: Some(n.into()),
            ..FieldDescriptorProto::default()
        };
        f.set_label(Label::Optional);
        f.set_type(ty);
        f
    };
    FileDescriptorProto {
        name: Some(format!("google/protobuf/{file}.proto")),
        package: Some("google.protobuf".into()),
        message_type: vec![DescriptorProto {
            name: Some(name.into()),
            field: vec![
                field("seconds", 1, PbType::Int64),
                field("nanos", 2, PbType::Int32),
            ],
            ..DescriptorProto::default()
        }],
        syntax: Some("proto3".into()),
        ..FileDescriptorProto::default()
    }
}

/// Every vendored Foxglove file and the two well-known ones, read and
/// resolved once.
fn foxglove_files() -> &'static Result<Vec<FileDescriptorProto>, String> {
    static FILES: OnceLock<Result<Vec<FileDescriptorProto>, String>> = OnceLock::new();
    FILES.get_or_init(|| {
        let mut files = vec![
            well_known("timestamp", "Timestamp"),
            well_known("duration", "Duration"),
        ];
        for (name, text) in FOXGLOVE {
            files.push(proto::parse(name, text)?);
        }
        proto::resolve(&mut files)?;
        Ok(files)
    })
}

/// The file descriptor set of `foxglove.NAME`: its file after the files
/// it imports (each before the files importing it).
pub(crate) fn foxglove_set(name: &str) -> Result<FileDescriptorSet, String> {
    let files = foxglove_files().as_ref().map_err(Clone::clone)?;
    let by_name: HashMap<&str, &FileDescriptorProto> =
        files.iter().map(|f| (f.name(), f)).collect();
    fn visit<'a>(
        name: &str,
        by_name: &HashMap<&str, &'a FileDescriptorProto>,
        out: &mut Vec<&'a FileDescriptorProto>,
    ) -> Result<(), String> {
        if out.iter().any(|f| f.name() == name) {
            return Ok(());
        }
        let f = by_name
            .get(name)
            .ok_or_else(|| format!("no vendored file {name}"))?;
        for d in &f.dependency {
            visit(d, by_name, out)?;
        }
        out.push(f);
        Ok(())
    }
    let mut out = Vec::new();
    visit(&format!("foxglove/{name}.proto"), &by_name, &mut out)?;
    Ok(FileDescriptorSet {
        file: out.into_iter().cloned().collect(),
    })
}

/// The type of message `full` (`foxglove.Log`) of `files`, with the
/// types of its message fields. Fields are keyed by name, except
/// `Timestamp`'s and `Duration`'s `seconds`/`nanos`, which the JSON form
/// calls `sec`/`nsec`.
pub(crate) fn resolve(
    files: &[FileDescriptorProto],
    full: &str,
) -> Result<Arc<MessageType>, String> {
    fn index<'a>(
        scope: &str,
        m: &'a DescriptorProto,
        out: &mut HashMap<String, &'a DescriptorProto>,
    ) {
        let full = format!("{scope}.{}", m.name());
        for n in &m.nested_type {
            index(&full, n, out);
        }
        out.insert(full, m);
    }
    fn build(
        full: &str,
        messages: &HashMap<String, &DescriptorProto>,
        done: &mut HashMap<String, Arc<MessageType>>,
    ) -> Result<Arc<MessageType>, String> {
        if let Some(t) = done.get(full) {
            return Ok(t.clone());
        }
        let m = messages
            .get(full)
            .ok_or_else(|| format!("no message type {full}"))?;
        let time = matches!(
            full,
            ".google.protobuf.Timestamp" | ".google.protobuf.Duration"
        );
        let mut fields = HashMap::new();
        for f in &m.field {
            let kind = match f.r#type() {
                PbType::Double => Kind::Double,
                PbType::Float => Kind::Float,
                PbType::Int32 | PbType::Int64 | PbType::Enum => Kind::Int,
                PbType::Uint32 | PbType::Uint64 => Kind::UInt,
                PbType::Fixed32 => Kind::Fixed32,
                PbType::Bool => Kind::Bool,
                PbType::String => Kind::Str,
                PbType::Bytes => Kind::Bytes,
                PbType::Message => Kind::Message(build(f.type_name(), messages, done)?),
                other => {
                    return Err(format!(
                        "{full}.{}: type {other:?} is not written",
                        f.name()
                    ));
                }
            };
            let key = match (time, f.name()) {
                (true, "seconds") => "sec",
                (true, "nanos") => "nsec",
                (_, n) => n,
            };
            let number = u32::try_from(f.number()).map_err(|_| format!("{full}: bad number"))?;
            fields.insert(
                key.to_string(),
                FieldType {
                    number,
                    kind,
                    repeated: f.label() == Label::Repeated,
                },
            );
        }
        let t = Arc::new(MessageType {
            name: full.trim_start_matches('.').to_string(),
            fields,
        });
        done.insert(full.to_string(), t.clone());
        Ok(t)
    }
    let mut messages = HashMap::new();
    for f in files {
        let scope = if f.package().is_empty() {
            String::new()
        } else {
            format!(".{}", f.package())
        };
        for m in &f.message_type {
            index(&scope, m, &mut messages);
        }
    }
    build(&format!(".{full}"), &messages, &mut HashMap::new())
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn key(out: &mut Vec<u8>, number: u32, wire: u64) {
    varint(out, (u64::from(number) << 3) | wire);
}

fn delimited(out: &mut Vec<u8>, bytes: &[u8]) {
    varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Appends the protobuf encoding of the JSON form `v` of a message of type
/// `ty` to `out`. A `null` field is left out (a `null` item of an array is
/// NaN, 0 or empty); a float may be `"NaN"`, `"Infinity"` or `"-Infinity"`.
pub(crate) fn encode(ty: &MessageType, v: &Json, out: &mut Vec<u8>) -> Result<(), String> {
    let Json::Object(map) = v else {
        return Err(format!("a {} is not an object", ty.name));
    };
    for (k, v) in map {
        // `Timestamp` and `Duration` fields by their protobuf names too.
        let alias = match k.as_str() {
            "seconds" => "sec",
            "nanos" => "nsec",
            k => k,
        };
        let f = ty
            .fields
            .get(k.as_str())
            .or_else(|| ty.fields.get(alias))
            .ok_or_else(|| format!("{} has no field {k}", ty.name))?;
        let here = |e: String| format!("{k}: {e}");
        match v {
            Json::Null => {}
            Json::Array(items) if f.repeated => {
                if f.kind.packed() {
                    if items.is_empty() {
                        continue;
                    }
                    let mut buf = Vec::with_capacity(items.len() * 8);
                    for item in items {
                        value(&f.kind, item, &mut buf).map_err(here)?;
                    }
                    key(out, f.number, 2);
                    delimited(out, &buf);
                } else {
                    for item in items {
                        key(out, f.number, f.kind.wire());
                        value(&f.kind, item, out).map_err(here)?;
                    }
                }
            }
            _ if f.repeated => return Err(here("not an array".into())),
            _ => {
                key(out, f.number, f.kind.wire());
                value(&f.kind, v, out).map_err(here)?;
            }
        }
    }
    Ok(())
}

/// A float of the JSON form.
fn float(v: &Json) -> Result<f64, String> {
    match v {
        Json::Number(n) => n.as_f64().ok_or_else(|| format!("{n} is no float")),
        Json::Null => Ok(f64::NAN),
        Json::String(s) => match s.as_str() {
            "NaN" => Ok(f64::NAN),
            "Infinity" => Ok(f64::INFINITY),
            "-Infinity" => Ok(f64::NEG_INFINITY),
            _ => Err(format!("{s:?} is no float")),
        },
        other => Err(format!("{other} is no float")),
    }
}

/// Appends one value of `kind` (no key).
fn value(kind: &Kind, v: &Json, out: &mut Vec<u8>) -> Result<(), String> {
    let int = || -> Result<i64, String> {
        match v {
            Json::Null => Ok(0),
            Json::Bool(b) => Ok(i64::from(*b)),
            _ => v
                .as_i64()
                .ok_or_else(|| format!("{v} is no signed integer")),
        }
    };
    let uint = || -> Result<u64, String> {
        match v {
            Json::Null => Ok(0),
            Json::Bool(b) => Ok(u64::from(*b)),
            _ => v
                .as_u64()
                .ok_or_else(|| format!("{v} is no unsigned integer")),
        }
    };
    match kind {
        Kind::Double => out.extend_from_slice(&float(v)?.to_le_bytes()),
        Kind::Float => out.extend_from_slice(&(float(v)? as f32).to_le_bytes()),
        Kind::Int => varint(out, int()? as u64),
        Kind::UInt => varint(out, uint()?),
        Kind::Fixed32 => {
            let n = u32::try_from(uint()?).map_err(|_| format!("{v} is no fixed32"))?;
            out.extend_from_slice(&n.to_le_bytes());
        }
        Kind::Bool => match v {
            Json::Bool(b) => out.push(u8::from(*b)),
            Json::Null => out.push(0),
            _ => return Err(format!("{v} is no boolean")),
        },
        Kind::Str => match v {
            Json::String(s) => delimited(out, s.as_bytes()),
            Json::Null => out.push(0),
            _ => return Err(format!("{v} is no string")),
        },
        Kind::Bytes => match v {
            Json::String(s) => delimited(out, &unbase64(s)?),
            Json::Null => out.push(0),
            _ => return Err(format!("{v} is no base64 string")),
        },
        Kind::Message(ty) => {
            let mut buf = Vec::new();
            if !v.is_null() {
                encode(ty, v, &mut buf)?;
            }
            delimited(out, &buf);
        }
    }
    Ok(())
}

/// The bytes of standard base64 text with padding (RFC 4648 §4).
fn unbase64(s: &str) -> Result<Vec<u8>, String> {
    fn digit(c: u8) -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        }))
    }
    let bytes = s.as_bytes();
    if bytes.len() % 4 != 0 {
        return Err(format!(
            "base64 of length {} (not a multiple of 4)",
            bytes.len()
        ));
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for (i, quad) in bytes.chunks(4).enumerate() {
        let pad = quad.iter().rev().take_while(|c| **c == b'=').count();
        let last = (i + 1) * 4 == bytes.len();
        if pad > 2 || (pad > 0 && !last) {
            return Err(format!("base64 padding at byte {}", i * 4));
        }
        let mut n = 0u32;
        for (j, c) in quad.iter().enumerate() {
            let d = if j >= 4 - pad {
                0
            } else {
                digit(*c).ok_or_else(|| format!("no base64 digit at byte {}", i * 4 + j))?
            };
            n = (n << 6) | d;
        }
        let three = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&three[..3 - pad]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::foxglove;
    use serde_json::json;

    #[test]
    fn base64_round_trips() {
        for plain in [
            "",
            "f",
            "fo",
            "foo",
            "foob",
            "fooba",
            "foobar",
            "\u{ff}\u{fe}",
        ] {
            assert_eq!(
                unbase64(&foxglove::base64(plain.as_bytes())).unwrap(),
                plain.as_bytes()
            );
        }
        assert!(unbase64("Zm9").unwrap_err().contains("multiple of 4"));
        assert!(unbase64("Zm=v").is_err());
        assert!(unbase64("Zm9*").unwrap_err().contains("byte 3"));
    }

    #[test]
    fn varints_match_the_protobuf_encoding_guide() {
        // The examples of protobuf.dev/programming-guides/encoding.
        let mut out = Vec::new();
        varint(&mut out, 150);
        assert_eq!(out, [0x96, 0x01]);
        out.clear();
        varint(&mut out, (-2i64) as u64);
        assert_eq!(
            out,
            [0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
        );
    }

    #[test]
    fn log_encodes_as_the_guide_lays_out_fields() {
        let s = schema("foxglove.Log", foxglove::LOG.text).unwrap();
        assert_eq!(s.name, "foxglove.Log");
        let v = foxglove::log(logcore::Timestamp::from_nanos(1_000_000_150), 3, "hi", "n");
        let mut out = Vec::new();
        encode(&s.message, &v, &mut out).unwrap();
        // timestamp (1, LEN) {seconds 1, nanos 150}, level (2) 3,
        // message (3) "hi", name (4) "n", file (5) "", line (6, I32) 0.
        assert_eq!(
            out,
            [
                0x0a, 5, 0x08, 1, 0x10, 0x96, 0x01, 0x10, 3, 0x1a, 2, b'h', b'i', 0x22, 1, b'n',
                0x2a, 0, 0x35, 0, 0, 0, 0
            ]
        );
        let set = FileDescriptorSet::decode(s.data.as_slice()).unwrap();
        let names: Vec<&str> = set.file.iter().map(|f| f.name()).collect();
        assert_eq!(
            names,
            ["google/protobuf/timestamp.proto", "foxglove/Log.proto"]
        );
    }

    #[test]
    fn packed_repeated_and_non_finite_floats() {
        let ty = MessageType {
            name: "T".into(),
            fields: HashMap::from([(
                "v".to_string(),
                FieldType {
                    number: 4,
                    kind: Kind::Double,
                    repeated: true,
                },
            )]),
        };
        let mut out = Vec::new();
        encode(&ty, &json!({"v": [1.0, "NaN", null]}), &mut out).unwrap();
        assert_eq!(&out[..2], [0x22, 24]);
        assert_eq!(&out[2..10], 1.0f64.to_le_bytes());
        assert!(f64::from_le_bytes(out[10..18].try_into().unwrap()).is_nan());
        assert!(
            encode(&ty, &json!({"w": 1}), &mut out)
                .unwrap_err()
                .contains("no field w")
        );
        assert!(
            encode(&ty, &json!({"v": 1}), &mut out)
                .unwrap_err()
                .contains("not an array")
        );
    }

    /// The vendored `.proto` files are those of Foxglove's schema folder
    /// (`../shared/foxglove-schemas` beside the checkout, or
    /// `$FOXGLOVE_SCHEMAS`), byte for byte; skipped when it is absent.
    #[test]
    fn vendored_proto_files_are_foxglove_s_own() {
        let dir = match std::env::var_os("FOXGLOVE_SCHEMAS") {
            Some(d) => std::path::PathBuf::from(d),
            None => std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../../shared/foxglove-schemas"),
        };
        if !dir.is_dir() {
            eprintln!("skipped: no Foxglove schemas at {}", dir.display());
            return;
        }
        for (name, text) in FOXGLOVE {
            let theirs = std::fs::read_to_string(dir.join("proto").join(name)).unwrap();
            assert_eq!(&theirs, text, "{name}");
        }
    }

    /// Field numbers and types read from the vendored files, as
    /// Foxglove's `LocationFix.proto`, `PackedElementField.proto`,
    /// `SceneEntity.proto` and `Log.proto` give them.
    #[test]
    fn descriptors_have_foxglove_s_numbers_and_types() {
        let files = foxglove_files().as_ref().unwrap();
        let message = |file: &str, name: &str| {
            files
                .iter()
                .find(|f| f.name() == file)
                .and_then(|f| f.message_type.iter().find(|m| m.name() == name))
                .unwrap()
                .clone()
        };
        let field = |m: &DescriptorProto, name: &str| {
            let f = m.field.iter().find(|f| f.name() == name).unwrap();
            (f.number(), f.r#type(), f.label(), f.type_name().to_string())
        };
        let fix = message("foxglove/LocationFix.proto", "LocationFix");
        let opt = Label::Optional;
        assert_eq!(
            field(&fix, "timestamp"),
            (6, PbType::Message, opt, ".google.protobuf.Timestamp".into())
        );
        assert_eq!(
            field(&fix, "latitude"),
            (1, PbType::Double, opt, String::new())
        );
        assert_eq!(
            field(&fix, "position_covariance"),
            (4, PbType::Double, Label::Repeated, String::new())
        );
        assert_eq!(
            field(&fix, "position_covariance_type"),
            (
                5,
                PbType::Enum,
                opt,
                ".foxglove.LocationFix.PositionCovarianceType".into()
            )
        );
        let packed = message("foxglove/PackedElementField.proto", "PackedElementField");
        assert_eq!(
            field(&packed, "offset"),
            (2, PbType::Fixed32, opt, String::new())
        );
        let entity = message("foxglove/SceneEntity.proto", "SceneEntity");
        assert_eq!(
            field(&entity, "lifetime"),
            (4, PbType::Message, opt, ".google.protobuf.Duration".into())
        );
        assert_eq!(
            field(&entity, "cubes"),
            (
                8,
                PbType::Message,
                Label::Repeated,
                ".foxglove.CubePrimitive".into()
            )
        );
        let log = message("foxglove/Log.proto", "Log");
        assert_eq!(
            field(&log, "line"),
            (6, PbType::Fixed32, opt, String::new())
        );
    }

    #[test]
    fn every_foxglove_view_has_a_set_whose_imports_come_first() {
        for wk in foxglove::ALL {
            let s = schema(wk.name, wk.text).unwrap();
            let set = FileDescriptorSet::decode(s.data.as_slice()).unwrap();
            let mut seen: Vec<&str> = Vec::new();
            for f in &set.file {
                for d in &f.dependency {
                    assert!(seen.contains(&d.as_str()), "{}: {d} after it", f.name());
                }
                seen.push(f.name());
            }
            assert_eq!(
                seen.last().copied(),
                Some(format!("foxglove/{}.proto", &wk.name[9..]).as_str())
            );
        }
    }
}
