//! The protobuf descriptor decoder: FileDescriptorSets built from parts
//! (messages with scalar, enum, nested, repeated, packed, map-like and
//! self-referencing fields) and encoded with prost, then damaged by the
//! chosen mutations, go through `ProtobufDecoder` and `Descriptors`; what
//! loads decodes the rest of the input as a message of each type.
//! Unmutated, a set whose names are all distinct must load.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use osi_mcap::proto::{Descriptors, ProtobufDecoder, TopLevel};
use prost::Message as _;
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{
    DescriptorProto, EnumDescriptorProto, EnumValueDescriptorProto, FieldDescriptorProto,
    FileDescriptorProto, FileDescriptorSet,
};
use robolog_fuzz::{Mutation, mutate};

#[derive(Arbitrary, Debug)]
struct Input {
    package: bool,
    messages: Vec<Vec<Field>>,
    mutations: Vec<Mutation>,
    payload: Vec<u8>,
}

#[derive(Arbitrary, Debug)]
struct Field {
    number: u16,
    kind: u8,
    /// For message fields: which message (may be the field's own).
    target: u8,
    repeated: bool,
    packed: bool,
}

const SCALARS: [Type; 15] = [
    Type::Double,
    Type::Float,
    Type::Int64,
    Type::Uint64,
    Type::Int32,
    Type::Fixed64,
    Type::Fixed32,
    Type::Bool,
    Type::String,
    Type::Bytes,
    Type::Uint32,
    Type::Sfixed32,
    Type::Sfixed64,
    Type::Sint32,
    Type::Sint64,
];

fn set(input: &Input) -> (FileDescriptorSet, Vec<String>) {
    let prefix = if input.package { ".fuzz." } else { "." };
    let messages = &input.messages[..input.messages.len().min(16)];
    let n = messages.len().max(1);
    let mut names = Vec::new();
    let mut protos = Vec::new();
    for (i, fields) in messages.iter().enumerate() {
        let mut used = std::collections::BTreeSet::new();
        let mut field = Vec::new();
        for (k, f) in fields.iter().take(32).enumerate() {
            // Field numbers 1..=19000 minus the reserved range, distinct.
            let number = i32::from(f.number % 18_999) + 1;
            if !used.insert(number) {
                continue;
            }
            let kind = usize::from(f.kind) % (SCALARS.len() + 2);
            let (ty, type_name) = if kind < SCALARS.len() {
                (SCALARS[kind], None)
            } else if kind == SCALARS.len() {
                (Type::Enum, Some(format!("{prefix}E")))
            } else {
                let j = usize::from(f.target) % n;
                (Type::Message, Some(format!("{prefix}M{j}")))
            };
            let label = if f.repeated {
                Label::Repeated
            } else {
                Label::Optional
            };
            let packable = f.repeated && !matches!(ty, Type::String | Type::Bytes | Type::Message);
            field.push(FieldDescriptorProto {
                name: Some(format!("f{k}")),
                number: Some(number),
                label: Some(label as i32),
                r#type: Some(ty as i32),
                type_name,
                options: (packable && f.packed).then(|| prost_types::FieldOptions {
                    packed: Some(true),
                    ..Default::default()
                }),
                ..Default::default()
            });
        }
        names.push(format!("{}M{i}", &prefix[1..]));
        protos.push(DescriptorProto {
            name: Some(format!("M{i}")),
            field,
            ..Default::default()
        });
    }
    let file = FileDescriptorProto {
        name: Some("fuzz.proto".into()),
        package: input.package.then(|| "fuzz".into()),
        message_type: protos,
        enum_type: vec![EnumDescriptorProto {
            name: Some("E".into()),
            value: (0..3)
                .map(|v| EnumValueDescriptorProto {
                    name: Some(format!("E_{v}")),
                    number: Some(v),
                    options: None,
                })
                .collect(),
            ..Default::default()
        }],
        syntax: Some("proto2".into()),
        ..Default::default()
    };
    (FileDescriptorSet { file: vec![file] }, names)
}

fuzz_target!(|input: Input| {
    let (set, names) = set(&input);
    let mut bytes = set.encode_to_vec();
    mutate(&mut bytes, &input.mutations);
    let unmutated = input.mutations.is_empty();
    match Descriptors::from_file_descriptor_set(&bytes) {
        Ok(d) => {
            let _ = d.interface_version();
            for name in &names {
                if let Ok(top) = TopLevel::new(&d, name) {
                    let _ = top.timestamp(&input.payload);
                    let _ = top.header(&input.payload);
                    let _ = top.decode(&input.payload);
                }
            }
        }
        Err(e) => assert!(!unmutated, "{e}"),
    }
    for name in &names {
        match ProtobufDecoder::new(name, &bytes) {
            Ok(decoder) => {
                let _ = decoder.message_name();
                let _ = decoder.decode(&input.payload);
            }
            Err(e) => assert!(!unmutated, "{name}: {e}"),
        }
    }
});
