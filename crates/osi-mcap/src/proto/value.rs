//! Full decode of a protobuf message into a [`logcore::Value`] through
//! prost-reflect.

use std::collections::BTreeMap;

use logcore::{Field, Limits, Value, ValueType};
use prost_reflect::{
    DynamicMessage, Kind, MapKey, MessageDescriptor, ReflectMessage, Value as PValue,
};

use super::{ProtoError, wire};

/// The deepest nesting of messages [`decode_to_value`] accepts, counting
/// the top-level message as one level. It is the recursion limit of the
/// protobuf decoder underneath (prost's, also protobuf's own default):
/// real OSI messages nest about ten levels, so 100 is far above them; a
/// self-recursive message type with a hostile payload nested thousands of
/// levels deep gets an error instead of exhausting the stack.
///
/// This is the default and also the most there can be: the protobuf
/// decoder underneath stops at 100 levels whatever the setting, so
/// [`Limits::max_nesting`] ([`ProtobufDecoder::with_limits`](super::ProtobufDecoder::with_limits),
/// [`decode_to_value_nested`], [`value_type_nested`]) can lower the
/// limit, not raise it.
pub const MAX_NESTING: usize = 100;

/// The nesting limit the protobuf functions apply for `limits`:
/// [`Limits::nesting_or`]`(`[`MAX_NESTING`]`)`, at most [`MAX_NESTING`].
pub fn nesting_of(limits: &Limits) -> usize {
    limits.nesting_or(MAX_NESTING).min(MAX_NESTING)
}

/// How an error names the nesting limit `max` and what can change it.
fn limit_text(max: usize) -> String {
    if max >= MAX_NESTING {
        format!(
            "at most {MAX_NESTING} levels deep (the protobuf decoder's own limit, \
             which `--max-nesting` or `Limits::max_nesting` can lower but not raise)"
        )
    } else {
        logcore::limits::nesting_limit(max)
    }
}

/// The type of every value [`decode_to_value`] gives for messages of type
/// `desc` ([`ValueType::admits`] them all): a struct of every field in
/// declaration order, each nullable (a field the message does not set is
/// left out of the value, so a table gets a null there); `int32`,
/// `sint32`, `sfixed32` [`ValueType::I32`], `int64`, `sint64`,
/// `sfixed64` [`ValueType::I64`], `uint32`, `fixed32`
/// [`ValueType::U32`], `uint64`, `fixed64` [`ValueType::U64`], `float`
/// [`ValueType::F32`], `double` [`ValueType::F64`], `bytes`
/// [`ValueType::Bytes`], enums [`ValueType::String`] (the value's name;
/// a number the enum does not define decodes to an integer, which a
/// table holds as its decimal text), repeated fields [`ValueType::List`].
/// Maps, whose keys are data, and a message type inside itself (a
/// recursive type has no finite table type) are [`ValueType::Any`].
pub fn value_type(desc: &MessageDescriptor) -> ValueType {
    value_type_nested(desc, MAX_NESTING)
}

/// [`value_type`] for values decoded with the nesting limit `max_nesting`
/// (at most [`MAX_NESTING`]; messages below it are [`ValueType::Any`]).
pub fn value_type_nested(desc: &MessageDescriptor, max_nesting: usize) -> ValueType {
    let mut stack = Vec::new();
    message_type(desc, &mut stack, max_nesting.clamp(1, MAX_NESTING))
}

fn message_type(desc: &MessageDescriptor, stack: &mut Vec<String>, max: usize) -> ValueType {
    let name = desc.full_name().to_owned();
    if stack.contains(&name) || stack.len() >= max {
        return ValueType::Any;
    }
    stack.push(name);
    let mut fields = Vec::new();
    for fd in declared_fields(desc) {
        let ty = if fd.is_map() {
            ValueType::Any
        } else {
            let elem = kind_type(&fd.kind(), stack, max);
            if fd.is_list() {
                ValueType::list(elem)
            } else {
                elem
            }
        };
        fields.push(Field::nullable(fd.name(), ty));
    }
    stack.pop();
    ValueType::Struct(fields)
}

fn kind_type(kind: &Kind, stack: &mut Vec<String>, max: usize) -> ValueType {
    match kind {
        Kind::Double => ValueType::F64,
        Kind::Float => ValueType::F32,
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => ValueType::I32,
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => ValueType::I64,
        Kind::Uint32 | Kind::Fixed32 => ValueType::U32,
        Kind::Uint64 | Kind::Fixed64 => ValueType::U64,
        Kind::Bool => ValueType::Bool,
        Kind::String => ValueType::String,
        Kind::Bytes => ValueType::Bytes,
        Kind::Enum(_) => ValueType::String,
        Kind::Message(m) => message_type(m, stack, max),
    }
}

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
/// Messages nested deeper than [`MAX_NESTING`] levels give an error, never
/// a stack overflow or a panic.
pub fn decode_to_value(desc: &MessageDescriptor, msg: &[u8]) -> Result<Value, ProtoError> {
    decode_to_value_nested(desc, msg, MAX_NESTING)
}

/// [`decode_to_value`] refusing messages nested deeper than `max_nesting`
/// levels (at most [`MAX_NESTING`], see there).
pub fn decode_to_value_nested(
    desc: &MessageDescriptor,
    msg: &[u8],
    max_nesting: usize,
) -> Result<Value, ProtoError> {
    let max = max_nesting.clamp(1, MAX_NESTING);
    let too_deep = || ProtoError::Decode {
        message: desc.full_name().to_owned(),
        reason: format!("messages nested {}; the data nests deeper", limit_text(max)),
    };
    match DynamicMessage::decode(desc.clone(), msg) {
        Ok(m) => message_to_value(&m, 1, max).ok_or_else(too_deep),
        Err(e) => {
            // Point at the first bad byte of the top level when there is one.
            wire::check(msg)?;
            // The decoder's own report of this names every level passed.
            if e.to_string().contains("recursion limit reached") {
                return Err(too_deep());
            }
            Err(ProtoError::Decode {
                message: desc.full_name().to_owned(),
                reason: e.to_string(),
            })
        }
    }
}

/// The value of `m`, `depth` levels below the top (the top is 1); `None`
/// when a message nests deeper than `max`.
fn message_to_value(m: &DynamicMessage, depth: usize, max: usize) -> Option<Value> {
    if depth > max {
        return None;
    }
    let desc = m.descriptor();
    let mut out = Vec::new();
    for fd in declared_fields(&desc) {
        if !m.has_field(&fd) {
            continue;
        }
        let v = m.get_field(&fd);
        let kind = fd.kind();
        let value = if fd.is_map() {
            map_to_value(&v, &fd, depth, max)?
        } else {
            to_value(&v, &kind, depth, max)?
        };
        out.push((fd.name().into(), value));
    }
    Some(Value::Struct(out))
}

/// The fields of `desc` in declaration order: the order of the fields in
/// the DescriptorProto (`MessageDescriptor::fields` goes by number).
fn declared_fields(
    desc: &MessageDescriptor,
) -> impl Iterator<Item = prost_reflect::FieldDescriptor> + '_ {
    desc.descriptor_proto().field.iter().filter_map(|fp| {
        fp.number
            .and_then(|n| u32::try_from(n).ok())
            .and_then(|n| desc.get_field(n))
    })
}

fn map_to_value(
    v: &PValue,
    fd: &prost_reflect::FieldDescriptor,
    depth: usize,
    max: usize,
) -> Option<Value> {
    let Some(map) = v.as_map() else {
        return to_value(v, &fd.kind(), depth, max);
    };
    let value_kind = match fd.kind() {
        Kind::Message(entry) => entry.map_entry_value_field().kind(),
        other => other,
    };
    let sorted: BTreeMap<&MapKey, &PValue> = map.iter().collect();
    sorted
        .into_iter()
        .map(|(k, v)| Some((key_text(k).into(), to_value(v, &value_kind, depth, max)?)))
        .collect::<Option<_>>()
        .map(Value::Struct)
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

/// The value of `v`, a field of a message `depth` levels deep.
fn to_value(v: &PValue, kind: &Kind, depth: usize, max: usize) -> Option<Value> {
    Some(match v {
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
        PValue::Message(m) => message_to_value(m, depth + 1, max)?,
        PValue::List(items) => Value::Array(
            items
                .iter()
                .map(|x| to_value(x, kind, depth, max))
                .collect::<Option<_>>()?,
        ),
        PValue::Map(map) => {
            let sorted: BTreeMap<&MapKey, &PValue> = map.iter().collect();
            Value::Struct(
                sorted
                    .into_iter()
                    .map(|(k, v)| Some((key_text(k).into(), to_value(v, kind, depth, max)?)))
                    .collect::<Option<_>>()?,
            )
        }
    })
}
