//! Protobuf data nested deeper than `proto::MAX_NESTING` gives an error,
//! never a stack overflow; at the limit it decodes. `Limits::max_nesting`
//! lowers the limit (the decoder underneath cannot go deeper than 100).

use logcore::Value;
use osi_mcap::proto::{Limits, MAX_NESTING, ProtoError, ProtobufDecoder};
use prost::Message as _;
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{DescriptorProto, FieldDescriptorProto, FileDescriptorProto, FileDescriptorSet};

fn field(
    name: &str,
    number: i32,
    label: Label,
    ty: Type,
    type_name: Option<&str>,
) -> FieldDescriptorProto {
    FieldDescriptorProto {
        name: Some(name.into()),
        number: Some(number),
        label: Some(label as i32),
        r#type: Some(ty as i32),
        type_name: type_name.map(Into::into),
        ..Default::default()
    }
}

/// `message Node { Node child = 1; int32 v = 2; repeated Node kids = 3; }`
/// in package `r`: a message containing itself.
fn node_decoder() -> ProtobufDecoder {
    ProtobufDecoder::new("r.Node", &node_fds()).unwrap()
}

/// The `FileDescriptorSet` of `r.Node` (see [`node_decoder`]).
fn node_fds() -> Vec<u8> {
    let node = DescriptorProto {
        name: Some("Node".into()),
        field: vec![
            field("child", 1, Label::Optional, Type::Message, Some(".r.Node")),
            field("v", 2, Label::Optional, Type::Int32, None),
            field("kids", 3, Label::Repeated, Type::Message, Some(".r.Node")),
        ],
        ..Default::default()
    };
    let file = FileDescriptorProto {
        name: Some("r.proto".into()),
        package: Some("r".into()),
        syntax: Some("proto2".into()),
        message_type: vec![node],
        ..Default::default()
    };
    FileDescriptorSet { file: vec![file] }.encode_to_vec()
}

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A `Node` `levels` levels deep through field `number` (1 = child,
/// 3 = kids), the innermost holding `v = 7`. Built without copying the
/// inner bytes once per level.
fn nested(levels: usize, number: u8) -> Vec<u8> {
    let inner = vec![0x10, 7];
    let mut size = inner.len() as u64;
    let mut heads = Vec::new();
    for _ in 1..levels {
        let mut h = vec![(number << 3) | 2];
        varint(size, &mut h);
        size += h.len() as u64;
        heads.push(h);
    }
    let mut out: Vec<u8> = heads.into_iter().rev().flatten().collect();
    out.extend(inner);
    out
}

fn too_deep() -> ProtoError {
    ProtoError::Decode {
        message: "r.Node".into(),
        reason: format!(
            "messages nested at most {MAX_NESTING} levels deep (the protobuf decoder's own \
             limit, which `--max-nesting` or `Limits::max_nesting` can lower but not raise); \
             the data nests deeper"
        ),
    }
}

/// The leaf of a value decoded from `nested(levels, number)`.
fn leaf(mut v: Value, levels: usize, number: u8) -> Value {
    for _ in 1..levels {
        v = match number {
            1 => v.get("child").unwrap().clone(),
            _ => match v.get("kids").unwrap() {
                Value::Array(items) if items.len() == 1 => items[0].clone(),
                other => panic!("{other:?}"),
            },
        };
    }
    v
}

/// Runs `f` on a thread with a 1 MiB stack: enough for the decoder's
/// 100 levels in an unoptimised build, far too small for 10,000 levels.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn a_self_recursive_message_nested_10000_deep_is_an_error() {
    on_small_stack(|| {
        let d = node_decoder();
        assert_eq!(d.decode(&nested(10_000, 1)), Err(too_deep()));
        assert_eq!(d.decode(&nested(10_000, 3)), Err(too_deep()));
    });
}

#[test]
fn nesting_at_the_limit_decodes_and_one_more_does_not() {
    assert_eq!(MAX_NESTING, 100);
    let d = node_decoder();
    for number in [1u8, 3] {
        let v = leaf(
            d.decode(&nested(MAX_NESTING, number)).unwrap(),
            MAX_NESTING,
            number,
        );
        assert_eq!(v, Value::Struct(vec![("v".into(), Value::I64(7))]));
        assert_eq!(d.decode(&nested(MAX_NESTING + 1, number)), Err(too_deep()));
    }
}

#[test]
fn a_lowered_limit_holds_at_its_boundary() {
    let lowered = Limits::default().with_max_nesting(5);
    let d = ProtobufDecoder::with_limits("r.Node", &node_fds(), &lowered).unwrap();
    assert_eq!(d.max_nesting(), 5);
    for number in [1u8, 3] {
        let v = leaf(d.decode(&nested(5, number)).unwrap(), 5, number);
        assert_eq!(v, Value::Struct(vec![("v".into(), Value::I64(7))]));
        assert_eq!(
            d.decode(&nested(6, number)),
            Err(ProtoError::Decode {
                message: "r.Node".into(),
                reason: "messages nested at most 5 levels deep (the reader's limit; raise it \
                         with `--max-nesting` or `Limits::max_nesting`); the data nests deeper"
                    .into(),
            })
        );
    }
}

#[test]
fn a_raised_limit_stays_at_the_decoders_own() {
    for asked in [101, 200, usize::MAX] {
        let raised = Limits::default().with_max_nesting(asked);
        assert_eq!(osi_mcap::proto::nesting_of(&raised), MAX_NESTING);
        let d = ProtobufDecoder::with_limits("r.Node", &node_fds(), &raised).unwrap();
        assert_eq!(d.max_nesting(), MAX_NESTING);
        let v = leaf(d.decode(&nested(MAX_NESTING, 1)).unwrap(), MAX_NESTING, 1);
        assert_eq!(v, Value::Struct(vec![("v".into(), Value::I64(7))]));
        assert_eq!(d.decode(&nested(MAX_NESTING + 1, 1)), Err(too_deep()));
    }
}
