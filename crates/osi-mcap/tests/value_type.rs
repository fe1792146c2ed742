//! The declared type of OSI messages, from the descriptors a trace stores:
//! checked field by field against the OSI 3 definitions (`osi_common.proto`:
//! `Timestamp { int64 seconds = 1; uint32 nanos = 2; }`, `Vector3d` of three
//! doubles) and against every message of the fixture trace.

use logcore::{Field, LogReader, MessageFilter, ValueType};
use osi_mcap::proto::ProtobufDecoder;

fn decoder() -> (Vec<u8>, ProtobufDecoder) {
    let file = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/osi/20240101T000000Z_multi_380_3200_10_fixture-none.mcap"
    ))
    .unwrap();
    let mcap = mcapfile::Mcap::new(&file).unwrap();
    let channel = &mcap.channels().unwrap()[0];
    let schema = channel.schema.as_ref().unwrap();
    let d = ProtobufDecoder::new(&schema.name, &schema.data).unwrap();
    (file, d)
}

fn field<'t>(t: &'t ValueType, name: &str) -> &'t ValueType {
    let ValueType::Struct(fields) = t else {
        panic!("not a struct: {t:?}")
    };
    &fields
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no field {name}"))
        .ty
}

#[test]
fn osi_types_follow_the_proto_definitions() {
    let (_, d) = decoder();
    let t = d.value_type();
    assert_eq!(
        field(&t, "timestamp"),
        &ValueType::Struct(vec![
            Field::nullable("seconds", ValueType::I64),
            Field::nullable("nanos", ValueType::U32),
        ])
    );
    let ValueType::Struct(fields) = &t else {
        panic!()
    };
    assert!(fields.iter().all(|f| f.nullable));
}

#[test]
fn every_fixture_message_is_admitted() {
    let (file, d) = decoder();
    let t = d.value_type();
    let mcap = mcapfile::Mcap::new(&file).unwrap();
    let mut n = 0;
    for m in mcap.messages(&MessageFilter::all()).unwrap() {
        let v = d.decode(&m.unwrap().payload).unwrap();
        assert_eq!(t.admits(&v), Ok(()));
        n += 1;
    }
    assert!(n > 0);
}
