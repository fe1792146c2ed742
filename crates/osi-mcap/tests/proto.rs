//! `osi_mcap::proto`: descriptors, the timestamp/version walker and the
//! full decode, on the OSI MCAP sample traces in `../shared/corpus` (when
//! present) and on hand-built descriptors and bytes.

use std::collections::BTreeMap;
use std::path::PathBuf;

use logcore::{LogReader, MessageFilter, Value};
use mcapfile::Mcap;
use osi_mcap::proto::{
    Descriptors, OsiTimestamp, ProtoError, ProtobufDecoder, TOP_LEVEL_TYPES, TopLevel, Version3,
    decode_to_value, type_code,
};
use prost::Message as _;
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{
    DescriptorProto, EnumDescriptorProto, EnumValueDescriptorProto, FieldDescriptorProto,
    FileDescriptorProto, FileDescriptorSet, MessageOptions,
};

// ---------------------------------------------------------------------------
// Corpus helpers

/// `$OSI_MCAP_CORPUS` when set, else the corpus's `osi-mcap` folder.
fn corpus() -> Option<PathBuf> {
    match std::env::var_os("OSI_MCAP_CORPUS").map(PathBuf::from) {
        Some(d) if d.is_dir() => Some(d),
        Some(d) => {
            eprintln!("skipped: no OSI MCAP corpus at {}", d.display());
            None
        }
        None => robolog_testkit::corpus("osi-mcap"),
    }
}

/// Every `.mcap` file in the corpus folders, sorted.
fn corpus_files() -> Vec<PathBuf> {
    let Some(dir) = corpus() else {
        return vec![];
    };
    let mut out = vec![];
    for sub in [
        "lichtblick-asam-osi-converter",
        "generated-asam-osi-utilities-0.4.0",
    ] {
        out.extend(robolog_testkit::files_with_ext(&dir.join(sub), &["mcap"]));
    }
    out.sort();
    out
}

fn corpus_file(sub: &str, name: &str) -> Option<Vec<u8>> {
    let p = corpus()?.join(sub).join(name);
    match std::fs::read(&p) {
        Ok(b) => Some(b),
        Err(_) => {
            eprintln!("skipped: {} is absent", p.display());
            None
        }
    }
}

const GENERATED: &str = "generated-asam-osi-utilities-0.4.0";
const LICHTBLICK: &str = "lichtblick-asam-osi-converter";

/// Per channel id: the schema's descriptors and top-level type.
fn top_levels(mcap: &Mcap<'_>) -> BTreeMap<u32, (Descriptors, TopLevel)> {
    let mut out = BTreeMap::new();
    for c in mcap.channels().unwrap() {
        let schema = c.schema.as_ref().expect("OSI channels have a schema");
        assert_eq!(schema.encoding, "protobuf");
        assert_eq!(c.message_encoding, "protobuf");
        let d = Descriptors::from_file_descriptor_set(&schema.data).unwrap();
        let t = TopLevel::new(&d, &schema.name).unwrap();
        assert_eq!(t.full_name(), schema.name);
        out.insert(c.id.0, (d, t));
    }
    out
}

/// Every message of the file: (channel id, publish time, payload).
fn messages(mcap: &Mcap<'_>) -> Vec<(u32, u64, Vec<u8>)> {
    mcap.messages(&MessageFilter::all())
        .unwrap()
        .map(|m| {
            let m = m.unwrap();
            let pt = m.publish_time.unwrap().0;
            (m.channel.0, u64::try_from(pt).unwrap(), m.payload.to_vec())
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Corpus tests

#[test]
fn corpus_timestamps_match_publish_time() {
    // (exact matches, messages) stated by the corpus README; every other
    // message of these files is exactly 1 ns below the OSI timestamp.
    let expected: BTreeMap<&str, (usize, usize)> = [
        ("MovingHostWith3DModel.mcap", (702, 702)),
        ("MovingHostWithStopLine.mcap", (152, 152)),
        ("MovingHostWithStopLineVariations.mcap", (152, 152)),
        ("disappearingVehicle.mcap", (354, 364)),
        ("sensorDataDetectedLaneBoundaries.mcap", (812, 852)),
        ("testBrakeAndIndicatorLights.mcap", (502, 502)),
        ("20240101T000000Z_multi_380_7362_10_none.mcap", (30, 30)),
        ("20240101T000000Z_multi_380_7362_10_lz4.mcap", (30, 30)),
        ("20240101T000000Z_multi_380_7362_10_zstd.mcap", (30, 30)),
    ]
    .into();
    let files = corpus_files();
    for path in &files {
        let name = path.file_name().unwrap().to_str().unwrap();
        let data = std::fs::read(path).unwrap();
        let mcap = Mcap::new(&data).unwrap();
        let tops = top_levels(&mcap);
        let (mut exact, mut total) = (0, 0);
        for (i, (ch, publish, payload)) in messages(&mcap).iter().enumerate() {
            let top = &tops[ch].1;
            assert!(top.has_timestamp_field(), "{name}: {}", top.full_name());
            let (ts, version) = top.header(payload).unwrap();
            let ts = ts.unwrap_or_else(|| panic!("{name} message {i}: no timestamp"));
            assert_eq!(top.timestamp(payload).unwrap(), Some(ts));
            assert_eq!(top.version(payload).unwrap(), version);
            let ns = ts.to_nanos().unwrap();
            total += 1;
            if ns == *publish {
                exact += 1;
            } else {
                assert_eq!(*publish + 1, ns, "{name} message {i}: {ts:?} vs {publish}");
            }
            let v = version.unwrap_or_else(|| panic!("{name} message {i}: no version"));
            assert_eq!(
                (v.major, v.minor),
                (3, if name.starts_with("2024") { 8 } else { 7 })
            );
            // The full decode agrees with the walker (on a sample: the
            // big files take a while in debug builds).
            if i % 25 == 0 {
                let full = top.decode(payload).unwrap();
                let t = full.get("timestamp").unwrap();
                assert_eq!(
                    t.get("seconds").map_or(Some(0), Value::as_i64),
                    Some(ts.seconds)
                );
                assert_eq!(
                    t.get("nanos").map_or(Some(0), Value::as_i64),
                    Some(i64::from(ts.nanos))
                );
            }
        }
        eprintln!("{name}: {exact} of {total} exact");
        if let Some(&(e, t)) = expected.get(name) {
            assert_eq!((exact, total), (e, t), "{name}");
        } else {
            // A file this test does not know: at least internally consistent.
            assert!(total > 0, "{name}");
        }
    }
}

#[test]
fn generated_files_have_the_frames_of_the_readme() {
    for name in [
        "20240101T000000Z_multi_380_7362_10_none.mcap",
        "20240101T000000Z_multi_380_7362_10_lz4.mcap",
        "20240101T000000Z_multi_380_7362_10_zstd.mcap",
    ] {
        let Some(data) = corpus_file(GENERATED, name) else {
            continue;
        };
        let mcap = Mcap::new(&data).unwrap();
        let tops = top_levels(&mcap);
        let by_type: BTreeMap<&str, &TopLevel> =
            tops.values().map(|(_, t)| (t.full_name(), t)).collect();
        let hvd = by_type["osi3.HostVehicleData"];
        assert_eq!(hvd.timestamp_field_number(), Some(10));
        assert_eq!(hvd.version_field_number(), Some(9));
        for t in ["osi3.GroundTruth", "osi3.SensorView"] {
            assert_eq!(by_type[t].timestamp_field_number(), Some(2), "{t}");
            assert_eq!(by_type[t].version_field_number(), Some(1), "{t}");
        }
        let mut per_type: BTreeMap<String, Vec<u64>> = BTreeMap::new();
        for (ch, publish, payload) in messages(&mcap) {
            let top = &tops[&ch].1;
            let ts = top.timestamp(&payload).unwrap().unwrap();
            assert_eq!(ts.to_nanos(), Some(publish));
            let v = top.version(&payload).unwrap().unwrap();
            assert_eq!(
                v,
                Version3 {
                    major: 3,
                    minor: 8,
                    patch: 0
                }
            );
            per_type
                .entry(top.full_name().to_owned())
                .or_default()
                .push(ts.to_nanos().unwrap());
        }
        let frames: Vec<u64> = (0..10).map(|i| i * 1_000_000_000 / 3).collect();
        assert_eq!(frames[1], 333_333_333);
        assert_eq!(per_type.len(), 3);
        for (t, times) in &per_type {
            assert_eq!(times, &frames, "{name} {t}");
        }
        for (d, _) in tops.values() {
            // osi-python 3.8.0 keeps the extension when present.
            if let Some(v) = d.interface_version() {
                assert_eq!((v.major, v.minor), (3, 8), "{name}");
            }
        }
    }
}

#[test]
fn interface_version_extension() {
    let mut seen = 0;
    for path in corpus_files() {
        let data = std::fs::read(&path).unwrap();
        let mcap = Mcap::new(&data).unwrap();
        for c in mcap.channels().unwrap() {
            let schema = c.schema.unwrap();
            let d = Descriptors::from_file_descriptor_set(&schema.data).unwrap();
            // The extension is declared by osi_version.proto.
            let ext = d
                .pool()
                .get_extension_by_name("osi3.current_interface_version");
            if let Some(ext) = &ext {
                assert_eq!(ext.number(), 81000);
            }
            // Tag of field 81000, wire type 2: c2 c6 27.
            let has_bytes = schema.data.windows(3).any(|w| w == [0xc2, 0xc6, 0x27]);
            let v = d.interface_version();
            eprintln!("{}: {} -> {v:?}", path.display(), schema.name);
            assert_eq!(v.is_some(), has_bytes, "{}", path.display());
            if path.ends_with("MovingHostWith3DModel.mcap") && has_bytes {
                assert_eq!(
                    v,
                    Some(Version3 {
                        major: 3,
                        minor: 7,
                        patch: 0
                    })
                );
            }
            seen += usize::from(v.is_some());
        }
    }
    eprintln!("{seen} schemas carry current_interface_version");
}

#[test]
fn decode_ground_truth_and_sensor_view() {
    let Some(data) = corpus_file(GENERATED, "20240101T000000Z_multi_380_7362_10_none.mcap") else {
        return;
    };
    let mcap = Mcap::new(&data).unwrap();
    let tops = top_levels(&mcap);
    let mut done = 0;
    for (ch, publish, payload) in messages(&mcap) {
        let top = &tops[&ch].1;
        let v = top.decode(&payload).unwrap();
        let Value::Struct(fields) = &v else {
            panic!("not a struct: {v:?}");
        };
        // Declaration order: version (1) before timestamp (2) in GT/SV,
        // in HostVehicleData too although it has the numbers 9 and 10.
        let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
        let vi = names.iter().position(|n| *n == "version").unwrap();
        let ti = names.iter().position(|n| *n == "timestamp").unwrap();
        assert!(vi < ti || top.full_name() == "osi3.HostVehicleData");
        let ver = v.get("version").unwrap();
        assert_eq!(ver.get("version_major"), Some(&Value::U64(3)));
        assert_eq!(ver.get("version_minor"), Some(&Value::U64(8)));
        let ts = v.get("timestamp").unwrap();
        let secs = ts.get("seconds").map_or(0, |s| s.as_i64().unwrap());
        let nanos = ts.get("nanos").map_or(0, |s| s.as_i64().unwrap());
        assert_eq!(secs as u64 * 1_000_000_000 + nanos as u64, publish);
        if top.full_name() == "osi3.SensorView" {
            let gt = v.get("global_ground_truth").unwrap();
            assert!(gt.get("timestamp").is_some());
        }
        if top.full_name() == "osi3.GroundTruth" {
            assert!(matches!(v.get("moving_object"), Some(Value::Array(a)) if !a.is_empty()));
        }
        done += 1;
    }
    assert_eq!(done, 30);
}

#[test]
fn decode_through_protobuf_decoder() {
    let Some(data) = corpus_file(LICHTBLICK, "MovingHostWithStopLine.mcap") else {
        return;
    };
    let mcap = Mcap::new(&data).unwrap();
    let msg = mcap
        .messages(&MessageFilter::all())
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let channel = mcap
        .channels()
        .unwrap()
        .into_iter()
        .find(|c| c.id == msg.channel)
        .unwrap();
    let schema = channel.schema.unwrap();
    let decoder = ProtobufDecoder::new(&schema.name, &schema.data).unwrap();
    assert_eq!(decoder.message_name(), "osi3.SensorView");
    let v = decoder.decode(&msg.payload).unwrap();
    assert!(v.get("timestamp").is_some());
    assert!(v.get("global_ground_truth").is_some());
    // Enums become their value names.
    let json = serde_json::to_string(&v).unwrap();
    assert!(json.contains("\"TYPE_"), "{}", &json[..json.len().min(500)]);
    // The same value as the descriptor-level decode.
    let top = TopLevel::new(
        &Descriptors::from_file_descriptor_set(&schema.data).unwrap(),
        &schema.name,
    )
    .unwrap();
    assert_eq!(top.decode(&msg.payload).unwrap(), v);
    // Within a lowered nesting limit the same message is refused: a
    // SensorView nests its ground truth's objects deeper than 3 levels.
    let limits = osi_mcap::proto::Limits::default();
    assert_eq!(top.decode_with_limits(&msg.payload, &limits).unwrap(), v);
    let shallow = top
        .decode_with_limits(&msg.payload, &limits.with_max_nesting(3))
        .unwrap_err()
        .to_string();
    assert!(shallow.contains("at most 3 levels deep"), "{shallow}");
    // A damaged payload is a wire error naming its byte offset.
    match decoder.decode(&[0x0a, 0x7f, 0x00]) {
        Err(ProtoError::Wire { offset, .. }) => assert!(offset <= 3),
        other => panic!("{other:?}"),
    }
    // The MCAP layer alone hands protobuf payloads over as bytes.
    assert_eq!(
        mcap.decode(&msg).unwrap(),
        logcore::Value::Bytes(msg.payload.to_vec())
    );
}

#[test]
fn hostile_payloads_never_panic() {
    let Some(data) = corpus_file(GENERATED, "20240101T000000Z_multi_380_7362_10_none.mcap") else {
        return;
    };
    let mcap = Mcap::new(&data).unwrap();
    let tops = top_levels(&mcap);
    let mut by_type: BTreeMap<u32, Vec<u8>> = BTreeMap::new();
    for (ch, _, payload) in messages(&mcap) {
        by_type.entry(ch).or_insert(payload);
    }
    for (ch, msg) in &by_type {
        let top = &tops[ch].1;
        let run = |b: &[u8]| {
            let _ = top.timestamp(b);
            let _ = top.version(b);
            let _ = top.decode(b);
        };
        // Every prefix.
        for n in 0..msg.len() {
            let b = &msg[..n];
            let _ = top.timestamp(b);
            let _ = top.version(b);
            if n % 7 == 0 || msg.len() < 400 {
                let _ = top.decode(b);
            }
        }
        // Bit flips.
        let mut b = msg.clone();
        for i in 0..b.len() {
            let bit = 1u8 << (i % 8);
            b[i] ^= bit;
            run(&b);
            b[i] ^= bit;
        }
        // Huge length varints in front.
        for len in [u64::MAX, 1 << 63, u64::from(u32::MAX), msg.len() as u64 + 1] {
            let mut b = vec![0x12];
            push_varint(len, &mut b);
            b.extend_from_slice(msg);
            assert!(top.timestamp(&b).is_err());
            assert!(top.decode(&b).is_err());
        }
    }
}

// ---------------------------------------------------------------------------
// Hand-built descriptors

fn field(name: &str, number: i32, ty: Type, type_name: Option<&str>) -> FieldDescriptorProto {
    FieldDescriptorProto {
        name: Some(name.into()),
        number: Some(number),
        label: Some(Label::Optional as i32),
        r#type: Some(ty as i32),
        type_name: type_name.map(Into::into),
        ..Default::default()
    }
}

fn repeated(mut f: FieldDescriptorProto) -> FieldDescriptorProto {
    f.label = Some(Label::Repeated as i32);
    f
}

fn message(name: &str, fields: Vec<FieldDescriptorProto>) -> DescriptorProto {
    DescriptorProto {
        name: Some(name.into()),
        field: fields,
        ..Default::default()
    }
}

/// A small OSI-like schema in package `t`: `Timestamp`, `InterfaceVersion`,
/// a type with both at non-standard numbers, one without a timestamp, a
/// type with every scalar kind, an enum, a map and a recursive message.
fn test_descriptors() -> Descriptors {
    use Type::*;
    let mut map_entry = message(
        "LabelsEntry",
        vec![
            field("key", 1, String, None),
            field("value", 2, Int32, None),
        ],
    );
    map_entry.options = Some(MessageOptions {
        map_entry: Some(true),
        ..Default::default()
    });
    let mut all = message(
        "All",
        vec![
            // Declared out of number order on purpose.
            field("z_double", 20, Double, None),
            field("a_float", 2, Float, None),
            field("i32", 3, Int32, None),
            field("i64", 4, Int64, None),
            field("u32", 5, Uint32, None),
            field("u64", 6, Uint64, None),
            field("s32", 7, Sint32, None),
            field("s64", 8, Sint64, None),
            field("f32", 9, Fixed32, None),
            field("f64", 10, Fixed64, None),
            field("sf32", 11, Sfixed32, None),
            field("sf64", 12, Sfixed64, None),
            field("flag", 13, Bool, None),
            field("text", 14, String, None),
            field("blob", 15, Bytes, None),
            field("color", 16, Enum, Some(".t.Color")),
            repeated(field("list", 17, Int32, None)),
            repeated(field("labels", 18, Message, Some(".t.All.LabelsEntry"))),
            field("child", 19, Message, Some(".t.All")),
        ],
    );
    all.nested_type.push(map_entry);
    let file = FileDescriptorProto {
        name: Some("t.proto".into()),
        package: Some("t".into()),
        syntax: Some("proto2".into()),
        message_type: vec![
            message(
                "Timestamp",
                vec![
                    field("seconds", 1, Int64, None),
                    field("nanos", 2, Uint32, None),
                ],
            ),
            message(
                "InterfaceVersion",
                vec![
                    field("version_major", 1, Uint32, None),
                    field("version_minor", 2, Uint32, None),
                    field("version_patch", 3, Uint32, None),
                ],
            ),
            message(
                "Host",
                vec![
                    field("id", 1, Uint64, None),
                    field("version", 9, Message, Some(".t.InterfaceVersion")),
                    field("timestamp", 10, Message, Some(".t.Timestamp")),
                ],
            ),
            message(
                "Config",
                vec![field("version", 1, Message, Some(".t.InterfaceVersion"))],
            ),
            message("Fake", vec![field("timestamp", 2, Double, None)]),
            all,
        ],
        enum_type: vec![EnumDescriptorProto {
            name: Some("Color".into()),
            value: vec![
                EnumValueDescriptorProto {
                    name: Some("COLOR_UNKNOWN".into()),
                    number: Some(0),
                    ..Default::default()
                },
                EnumValueDescriptorProto {
                    name: Some("COLOR_RED".into()),
                    number: Some(1),
                    ..Default::default()
                },
            ],
            ..Default::default()
        }],
        ..Default::default()
    };
    let fds = FileDescriptorSet { file: vec![file] }.encode_to_vec();
    Descriptors::from_file_descriptor_set(&fds).unwrap()
}

fn push_varint(v: u64, out: &mut Vec<u8>) {
    prost::encoding::encode_varint(v, out);
}

fn tag(number: u32, wire: u8, out: &mut Vec<u8>) {
    push_varint(u64::from(number) << 3 | u64::from(wire), out);
}

fn len_field(number: u32, body: &[u8], out: &mut Vec<u8>) {
    tag(number, 2, out);
    push_varint(body.len() as u64, out);
    out.extend_from_slice(body);
}

fn varint_field(number: u32, v: u64, out: &mut Vec<u8>) {
    tag(number, 0, out);
    push_varint(v, out);
}

#[test]
fn field_numbers_come_from_the_descriptor() {
    let d = test_descriptors();
    let host = TopLevel::new(&d, "t.Host").unwrap();
    assert_eq!(host.timestamp_field_number(), Some(10));
    assert_eq!(host.version_field_number(), Some(9));
    assert!(host.has_timestamp_field());
    let config = TopLevel::new(&d, "t.Config").unwrap();
    assert!(!config.has_timestamp_field());
    assert_eq!(config.timestamp(&[0x0a, 0x00]).unwrap(), None);
    assert_eq!(
        config.version(&[0x0a, 0x00]).unwrap(),
        Some(Version3::default())
    );
    // A `timestamp` that is not a Timestamp message does not count.
    assert!(!TopLevel::new(&d, "t.Fake").unwrap().has_timestamp_field());
    assert_eq!(
        TopLevel::new(&d, "t.Nope").unwrap_err(),
        ProtoError::MissingMessage("t.Nope".into())
    );
    assert_eq!(d.interface_version(), None);
}

#[test]
fn walker_reads_timestamp_and_version() {
    let d = test_descriptors();
    let host = TopLevel::new(&d, "t.Host").unwrap();
    let mut ts = vec![];
    varint_field(1, 2, &mut ts);
    varint_field(2, 50_000_000, &mut ts);
    let mut ver = vec![];
    varint_field(1, 3, &mut ver);
    varint_field(2, 7, &mut ver);
    let mut msg = vec![];
    varint_field(1, 99, &mut msg);
    len_field(10, &ts, &mut msg);
    len_field(9, &ver, &mut msg);
    let want = OsiTimestamp {
        seconds: 2,
        nanos: 50_000_000,
    };
    assert_eq!(host.timestamp(&msg).unwrap(), Some(want));
    assert_eq!(
        host.version(&msg).unwrap(),
        Some(Version3 {
            major: 3,
            minor: 7,
            patch: 0
        })
    );
    // The full decode agrees.
    let v = host.decode(&msg).unwrap();
    assert_eq!(
        serde_json::to_string(&v).unwrap(),
        r#"{"id":99,"version":{"version_major":3,"version_minor":7},"timestamp":{"seconds":2,"nanos":50000000}}"#
    );

    // A second occurrence merges: nanos replaced, seconds kept.
    let mut more = msg.clone();
    let mut ts2 = vec![];
    varint_field(2, 7, &mut ts2);
    len_field(10, &ts2, &mut more);
    assert_eq!(
        host.timestamp(&more).unwrap(),
        Some(OsiTimestamp {
            seconds: 2,
            nanos: 7
        })
    );
    // Absent.
    let mut none = vec![];
    varint_field(1, 99, &mut none);
    assert_eq!(host.timestamp(&none).unwrap(), None);
    assert_eq!(host.timestamp(&[]).unwrap(), None);
    // Negative seconds: stored as is, to_nanos refuses them.
    let mut neg = vec![];
    let mut t = vec![];
    varint_field(1, (-1i64) as u64, &mut t);
    len_field(10, &t, &mut neg);
    let got = host.timestamp(&neg).unwrap().unwrap();
    assert_eq!(got.seconds, -1);
    assert_eq!(got.to_nanos(), None);

    // Bad wire data: the offset of the damage.
    let err = |b: &[u8]| match host.timestamp(b) {
        Err(ProtoError::Wire { offset, .. }) => offset,
        other => panic!("{other:?}"),
    };
    // Truncated varint after a good field.
    assert_eq!(err(&[0x08, 0x01, 0x08, 0x80]), 3);
    // Group wire types.
    assert_eq!(err(&[0x0b]), 0);
    assert_eq!(err(&[0x0c]), 0);
    // Length beyond the buffer (offset of the length varint).
    assert_eq!(err(&[0x52, 0x09, 0x08]), 1);
    // Timestamp field with the wrong wire type.
    assert_eq!(err(&[0x50, 0x01]), 0);
    // Bad data inside the timestamp: offset into the whole message.
    assert_eq!(err(&[0x08, 0x01, 0x52, 0x02, 0x0f, 0x00]), 4);
    // Every prefix of a good message: Ok or Err, never a panic.
    for n in 0..=msg.len() {
        let _ = host.header(&msg[..n]);
        let _ = host.decode(&msg[..n]);
    }
}

#[test]
fn value_mapping_of_every_kind() {
    let d = test_descriptors();
    let desc = d.message("t.All").unwrap();
    let mut b = vec![];
    tag(2, 5, &mut b);
    b.extend_from_slice(&1.5f32.to_le_bytes());
    varint_field(3, (-3i64) as u64, &mut b);
    varint_field(4, (-4i64) as u64, &mut b);
    varint_field(5, 5, &mut b);
    varint_field(6, u64::MAX, &mut b);
    varint_field(7, 13, &mut b); // zigzag -7
    varint_field(8, 15, &mut b); // zigzag -8
    tag(9, 5, &mut b);
    b.extend_from_slice(&9u32.to_le_bytes());
    tag(10, 1, &mut b);
    b.extend_from_slice(&10u64.to_le_bytes());
    tag(11, 5, &mut b);
    b.extend_from_slice(&(-11i32).to_le_bytes());
    tag(12, 1, &mut b);
    b.extend_from_slice(&(-12i64).to_le_bytes());
    varint_field(13, 1, &mut b);
    len_field(14, b"hi", &mut b);
    len_field(15, &[0, 255], &mut b);
    varint_field(16, 1, &mut b);
    varint_field(17, 1, &mut b);
    len_field(17, &[2, 3], &mut b); // packed
    for (k, v) in [("b", 2u64), ("a", 1)] {
        let mut e = vec![];
        len_field(1, k.as_bytes(), &mut e);
        varint_field(2, v, &mut e);
        len_field(18, &e, &mut b);
    }
    let mut child = vec![];
    varint_field(16, 42, &mut child); // unknown enum number
    len_field(19, &child, &mut b);
    tag(20, 1, &mut b);
    b.extend_from_slice(&2.25f64.to_le_bytes());

    let v = decode_to_value(&desc, &b).unwrap();
    let Value::Struct(fields) = &v else {
        panic!("{v:?}")
    };
    // Declaration order, not number order.
    assert_eq!(fields[0].0, "z_double");
    assert_eq!(fields[1].0, "a_float");
    let expect = [
        ("z_double", Value::F64(2.25)),
        ("a_float", Value::F32(1.5)),
        ("i32", Value::I64(-3)),
        ("i64", Value::I64(-4)),
        ("u32", Value::U64(5)),
        ("u64", Value::U64(u64::MAX)),
        ("s32", Value::I64(-7)),
        ("s64", Value::I64(-8)),
        ("f32", Value::U64(9)),
        ("f64", Value::U64(10)),
        ("sf32", Value::I64(-11)),
        ("sf64", Value::I64(-12)),
        ("flag", Value::Bool(true)),
        ("text", Value::String("hi".into())),
        ("blob", Value::Bytes(vec![0, 255])),
        ("color", Value::String("COLOR_RED".into())),
        (
            "list",
            Value::Array(vec![Value::I64(1), Value::I64(2), Value::I64(3)]),
        ),
        (
            "labels",
            Value::Struct(vec![
                ("a".into(), Value::I64(1)),
                ("b".into(), Value::I64(2)),
            ]),
        ),
        (
            "child",
            Value::Struct(vec![("color".into(), Value::I64(42))]),
        ),
    ];
    assert_eq!(fields.len(), expect.len());
    for (name, want) in expect {
        assert_eq!(v.get(name), Some(&want), "{name}");
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let d = test_descriptors();
    let desc = d.message("t.All").unwrap();
    // child { child { ... } } 10 000 deep: prost's recursion limit.
    let mut b: Vec<u8> = vec![];
    for _ in 0..10_000 {
        let mut outer = vec![];
        len_field(19, &b, &mut outer);
        b = outer;
    }
    assert!(decode_to_value(&desc, &b).is_err());
    // 50 deep is fine.
    let mut b: Vec<u8> = vec![];
    for _ in 0..50 {
        let mut outer = vec![];
        len_field(19, &b, &mut outer);
        b = outer;
    }
    assert!(decode_to_value(&desc, &b).is_ok());
}

#[test]
fn bad_descriptor_sets() {
    assert!(matches!(
        Descriptors::from_file_descriptor_set(&[0x0a, 0x05, 0x01]),
        Err(ProtoError::Descriptor(_))
    ));
    // A file importing one that is not in the set.
    let fds = FileDescriptorSet {
        file: vec![FileDescriptorProto {
            name: Some("a.proto".into()),
            dependency: vec!["missing.proto".into()],
            ..Default::default()
        }],
    }
    .encode_to_vec();
    assert!(matches!(
        Descriptors::from_file_descriptor_set(&fds),
        Err(ProtoError::Descriptor(_))
    ));
    // Empty set: valid, holds nothing.
    let d = Descriptors::from_file_descriptor_set(&[]).unwrap();
    assert!(d.message("osi3.SensorView").is_none());
    assert_eq!(d.interface_version(), None);
}

#[test]
fn interface_version_from_raw_file_options() {
    // A file whose options carry field 81000 = {3, 7, 0}, with no
    // declaration of the extension in the pool: the fallback number.
    let mut opts = vec![];
    let mut ver = vec![];
    varint_field(1, 3, &mut ver);
    varint_field(2, 7, &mut ver);
    varint_field(3, 0, &mut ver);
    len_field(81000, &ver, &mut opts);
    assert_eq!(&opts[..4], &[0xc2, 0xc6, 0x27, 0x06]);
    let file = FileDescriptorProto {
        name: Some("osi_version.proto".into()),
        package: Some("osi3".into()),
        ..Default::default()
    };
    let mut fdp = file.encode_to_vec();
    len_field(8, &opts, &mut fdp);
    let mut fds = vec![];
    len_field(1, &fdp, &mut fds);
    let d = Descriptors::from_file_descriptor_set(&fds).unwrap();
    assert_eq!(
        d.interface_version(),
        Some(Version3 {
            major: 3,
            minor: 7,
            patch: 0
        })
    );
    assert_eq!(d.interface_version().unwrap().to_string(), "3.7.0");
}

#[test]
fn timestamps_and_versions() {
    let t = |seconds, nanos| OsiTimestamp { seconds, nanos };
    assert_eq!(t(0, 0).to_nanos(), Some(0));
    assert_eq!(t(2, 50_000_000).to_nanos(), Some(2_050_000_000));
    assert_eq!(t(-1, 0).to_nanos(), None);
    assert_eq!(t(0, 1_000_000_000).to_nanos(), None);
    assert_eq!(t(18_446_744_073, 709_551_615).to_nanos(), Some(u64::MAX));
    assert_eq!(t(18_446_744_073, 709_551_616).to_nanos(), None);
    assert_eq!(t(i64::MAX, 0).to_nanos(), None);
    for ns in [0, 1, 999_999_999, 1_000_000_000, 2_049_999_999, u64::MAX] {
        assert_eq!(OsiTimestamp::from_nanos(ns).to_nanos(), Some(ns));
    }
    let v = Version3 {
        major: 3,
        minor: 7,
        patch: 0,
    };
    assert_eq!(v.to_string(), "3.7.0");
    assert_eq!(Version3::parse("3.7.0"), Some(v));
    assert!(Version3::parse("3.7.0.1").is_none());
    assert!(Version3::parse("3.x.0").is_none());
    assert!(v < Version3::parse("3.8.0").unwrap());
    assert_eq!(TOP_LEVEL_TYPES.len(), 10);
    assert_eq!(type_code("osi3.HostVehicleData"), Some("hvd"));
    assert_eq!(type_code("osi3.StreamingUpdate"), Some("su"));
    assert_eq!(type_code("osi3.Timestamp"), None);
}
