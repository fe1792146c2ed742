//! Full decode of a protobuf message into a [`logcore::Value`] through
//! prost-reflect.

use std::collections::BTreeMap;

use logcore::Value;
use prost_reflect::{
    DynamicMessage, Kind, MapKey, MessageDescriptor, ReflectMessage, Value as PValue,
};

use super::{ProtoError, wire};

/// Decodes `msg`, a serialized message of type `desc`, into a [`Value`].
///
/// A message becomes a [`Value::Struct`] of its set fields in declaration
/// order, keyed by the proto field name (`snake_case`); `int32`, `int64`,
/// `sint*` and `sfixed*` become [`Value::I64`], `uint*` and `fixed*`
/// [`Value::U64`], `float` [`Value::F32`], `double` [`Value::F64`], `bytes`
/// [`Value::Bytes`], an enum the name of its value (or [`Value::I64`] of
/// the number when the enum does not define it), repeated fields
/// [`Value::Array`] and maps a [`Value::Struct`] keyed by the key as text
/// (in key order). Unknown fields and extensions are left out.
///
/// Nesting is bounded by prost's recursion limit, so hostile input gives an
/// error, never a panic.
pub fn decode_to_value(desc: &MessageDescriptor, msg: &[u8]) -> Result<Value, ProtoError> {
    match DynamicMessage::decode(desc.clone(), msg) {
        Ok(m) => Ok(message_to_value(&m)),
        Err(e) => {
            // Point at the first bad byte of the top level when there is one.
            wire::check(msg)?;
            Err(ProtoError::Decode {
                message: desc.full_name().to_owned(),
                reason: e.to_string(),
            })
        }
    }
}

fn message_to_value(m: &DynamicMessage) -> Value {
    let desc = m.descriptor();
    let mut out = Vec::new();
    // Declaration order: the order of the fields in the DescriptorProto
    // (`MessageDescriptor::fields` goes by number).
    for fp in &desc.descriptor_proto().field {
        let Some(fd) = fp
            .number
            .and_then(|n| u32::try_from(n).ok())
            .and_then(|n| desc.get_field(n))
        else {
            continue;
        };
        if !m.has_field(&fd) {
            continue;
        }
        let v = m.get_field(&fd);
        let kind = fd.kind();
        let value = if fd.is_map() {
            map_to_value(&v, &fd)
        } else {
            to_value(&v, &kind)
        };
        out.push((fd.name().into(), value));
    }
    Value::Struct(out)
}

fn map_to_value(v: &PValue, fd: &prost_reflect::FieldDescriptor) -> Value {
    let Some(map) = v.as_map() else {
        return to_value(v, &fd.kind());
    };
    let value_kind = match fd.kind() {
        Kind::Message(entry) => entry.map_entry_value_field().kind(),
        other => other,
    };
    let sorted: BTreeMap<&MapKey, &PValue> = map.iter().collect();
    Value::Struct(
        sorted
            .into_iter()
            .map(|(k, v)| (key_text(k).into(), to_value(v, &value_kind)))
            .collect(),
    )
}

fn key_text(k: &MapKey) -> String {
    match k {
        MapKey::Bool(b) => b.to_string(),
        MapKey::I32(x) => x.to_string(),
        MapKey::I64(x) => x.to_string(),
        MapKey::U32(x) => x.to_string(),
        MapKey::U64(x) => x.to_string(),
        MapKey::String(s) => s.clone(),
    }
}

fn to_value(v: &PValue, kind: &Kind) -> Value {
    match v {
        PValue::Bool(b) => Value::Bool(*b),
        PValue::I32(x) => Value::I64(i64::from(*x)),
        PValue::I64(x) => Value::I64(*x),
        PValue::U32(x) => Value::U64(u64::from(*x)),
        PValue::U64(x) => Value::U64(*x),
        PValue::F32(x) => Value::F32(*x),
        PValue::F64(x) => Value::F64(*x),
        PValue::String(s) => Value::String(s.clone()),
        PValue::Bytes(b) => Value::Bytes(b.to_vec()),
        PValue::EnumNumber(n) => match kind {
            Kind::Enum(e) => e.get_value(*n).map_or(Value::I64(i64::from(*n)), |ev| {
                Value::String(ev.name().to_owned())
            }),
            _ => Value::I64(i64::from(*n)),
        },
        PValue::Message(m) => message_to_value(m),
        PValue::List(items) => Value::Array(items.iter().map(|x| to_value(x, kind)).collect()),
        PValue::Map(map) => {
            let sorted: BTreeMap<&MapKey, &PValue> = map.iter().collect();
            Value::Struct(
                sorted
                    .into_iter()
                    .map(|(k, v)| (key_text(k).into(), to_value(v, kind)))
                    .collect(),
            )
        }
    }
}
