//! `OsiTraceWriter` round trips, its refusals, interrupted writes, and the
//! committed OSI fixtures of `testdata/osi/` (made by `cargo xtask
//! fixtures`, see `xtask/src/osi_fixtures.rs`).

use std::collections::BTreeMap;

use mcapfile::{Compression, LinearReader, ReadOptions, Record, Summary, WriteOptions, recover};
use osi_mcap::conventions::{DraftName, TraceName, format_date_time_stamp, is_date_time_stamp};
use osi_mcap::validate::{Profile, Report, ValidateOptions, rule};
use osi_mcap::writer::{
    ChannelSpec, Error, OsiChannel, OsiTraceWriter, TraceMetadata, TraceOptions,
};

const DESC: &str = "osi3-minimal.desc";
const FIXTURE_ZSTD: &str = "20240101T000000Z_multi_380_3200_10_fixture-zstd.mcap";
const FIXTURE_LZ4: &str = "20240101T000000Z_multi_380_3200_10_fixture-lz4.mcap";
const FIXTURE_NONE: &str = "20240101T000000Z_multi_380_3200_10_fixture-none.mcap";
const DRAFT: &str = "highway_20240101T000000.0_gt_draft.mcap";
const BROKEN: &str = "broken_gt.mcap";
/// 2024-01-01T00:00:00Z in Unix ns.
const ZERO: i128 = 1_704_067_200_000_000_000;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/../../testdata/osi/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e} (run `cargo xtask fixtures`)"))
}

// ---------------------------------------------------------------------------
// A tiny protobuf encoder for the messages of osi3-minimal.desc

fn varint(v: u64, out: &mut Vec<u8>) {
    prost::encoding::encode_varint(v, out);
}

fn varint_field(number: u32, v: u64, out: &mut Vec<u8>) {
    varint(u64::from(number) << 3, out);
    varint(v, out);
}

fn len_field(number: u32, body: &[u8], out: &mut Vec<u8>) {
    varint((u64::from(number) << 3) | 2, out);
    varint(body.len() as u64, out);
    out.extend_from_slice(body);
}

fn version_bytes(v: (u32, u32, u32)) -> Vec<u8> {
    let mut b = Vec::new();
    varint_field(1, v.0.into(), &mut b);
    varint_field(2, v.1.into(), &mut b);
    varint_field(3, v.2.into(), &mut b);
    b
}

fn timestamp_bytes(seconds: i64, nanos: u32) -> Vec<u8> {
    let mut b = Vec::new();
    varint_field(1, seconds as u64, &mut b);
    varint_field(2, nanos.into(), &mut b);
    b
}

/// A GroundTruth (version 1, timestamp 2, one moving object 4).
fn ground_truth(version: (u32, u32, u32), ns: Option<u64>) -> Vec<u8> {
    let mut b = Vec::new();
    len_field(1, &version_bytes(version), &mut b);
    if let Some(ns) = ns {
        let t = timestamp_bytes((ns / 1_000_000_000) as i64, (ns % 1_000_000_000) as u32);
        len_field(2, &t, &mut b);
    }
    let mut obj = Vec::new();
    let mut id = Vec::new();
    varint_field(1, 7, &mut id);
    len_field(1, &id, &mut obj);
    len_field(3, b"car", &mut obj);
    len_field(4, &obj, &mut b);
    b
}

/// A HostVehicleData (version 9, timestamp 10).
fn host_vehicle_data(version: (u32, u32, u32), ns: u64) -> Vec<u8> {
    let mut b = Vec::new();
    len_field(9, &version_bytes(version), &mut b);
    let t = timestamp_bytes((ns / 1_000_000_000) as i64, (ns % 1_000_000_000) as u32);
    len_field(10, &t, &mut b);
    b
}

/// A SensorViewConfiguration (version 1, no timestamp).
fn sensor_view_configuration(version: (u32, u32, u32)) -> Vec<u8> {
    let mut b = Vec::new();
    len_field(1, &version_bytes(version), &mut b);
    b
}

// ---------------------------------------------------------------------------
// Reading helpers

#[derive(Debug, Clone, PartialEq, Eq)]
struct Msg {
    channel: u16,
    sequence: u32,
    log_time: u64,
    publish_time: u64,
    data: Vec<u8>,
}

struct Contents {
    channels: BTreeMap<u16, (String, String, BTreeMap<String, String>)>,
    schemas: BTreeMap<u16, String>,
    metadata: Vec<(String, BTreeMap<String, String>)>,
    messages: Vec<Msg>,
    compressions: Vec<String>,
}

fn read_all(file: &[u8]) -> Contents {
    let mut c = Contents {
        channels: BTreeMap::new(),
        schemas: BTreeMap::new(),
        metadata: Vec::new(),
        messages: Vec::new(),
        compressions: Vec::new(),
    };
    for r in LinearReader::new(file) {
        match r.expect("a written trace reads strictly") {
            Record::Schema(s) => {
                c.schemas.insert(s.id, s.name);
            }
            Record::Channel(ch) => {
                let schema = c.schemas.get(&ch.schema_id).cloned().unwrap_or_default();
                c.channels.insert(ch.id, (ch.topic, schema, ch.metadata));
            }
            Record::Metadata(m) => c.metadata.push((m.name, m.metadata)),
            Record::Message(m) => c.messages.push(Msg {
                channel: m.channel_id,
                sequence: m.sequence,
                log_time: m.log_time,
                publish_time: m.publish_time,
                data: m.data.to_vec(),
            }),
            _ => {}
        }
    }
    let raw = ReadOptions {
        flatten_chunks: false,
        ..ReadOptions::default()
    };
    for r in LinearReader::with_options(file, raw) {
        if let Ok(Record::Chunk(ch)) = r {
            c.compressions.push(ch.compression);
        }
    }
    c
}

fn validate_as(file: &[u8], profile: Option<Profile>, name: Option<&str>) -> Report {
    osi_mcap::validate(
        file,
        &ValidateOptions {
            profile,
            file_name: name.map(Into::into),
            ..ValidateOptions::default()
        },
    )
}

fn errors(r: &Report) -> Vec<String> {
    r.findings
        .iter()
        .filter(|f| f.level == osi_mcap::validate::Level::Error)
        .map(|f| f.to_string())
        .collect()
}

// ---------------------------------------------------------------------------
// Round trip

const T0: u64 = 2_550_000_123;
const STEP: u64 = 100_000_000;
const FRAMES: u64 = 12;

fn options(compression: Compression) -> TraceOptions {
    TraceOptions {
        compression,
        chunk_size: 300,
        metadata: TraceMetadata {
            zero_time_unix_ns: Some(ZERO),
            creation_time_unix_ns: Some(ZERO + 1_500_000_000),
            description: Some("round trip".into()),
            authors: Some("tests".into()),
            data_sources: Some("synthetic".into()),
            license: Some("MIT".into()),
            ..TraceMetadata::default()
        },
        draft_metadata: true,
        library: "writer tests".into(),
    }
}

fn spec(topic: &str, ty: &str, osi: &str, pb: &str) -> ChannelSpec {
    ChannelSpec {
        description: Some(format!("{topic} channel")),
        ..ChannelSpec::new(topic, ty, fixture(DESC), osi, pb)
    }
}

/// A trace with gt (OSI 3.7.0, protobuf 32.0.0), hvd (3.8.0, 31.1.0) and
/// svc (3.8.0, 32.0.0); returns the file, the trace name and the draft name.
fn round_trip_trace(compression: Compression) -> (Vec<u8>, TraceName, DraftName) {
    let mut w = OsiTraceWriter::new(Vec::new(), options(compression)).unwrap();
    let gt = w
        .add_channel(spec("gt", "osi3.GroundTruth", "3.7.0", "32.0.0"))
        .unwrap();
    let hvd = w
        .add_channel(spec("hvd", "osi3.HostVehicleData", "3.8.0", "31.1.0"))
        .unwrap();
    let svc = w
        .add_channel(spec(
            "svc",
            "osi3.SensorViewConfiguration",
            "3.8.0",
            "32.0.0",
        ))
        .unwrap();
    w.write_at(svc, T0, &sensor_view_configuration((3, 8, 0)))
        .unwrap();
    for i in 0..FRAMES {
        let ns = T0 + i * STEP;
        assert_eq!(w.write(gt, &ground_truth((3, 7, 0), Some(ns))).unwrap(), ns);
        assert_eq!(w.write(hvd, &host_vehicle_data((3, 8, 0), ns)).unwrap(), ns);
    }
    assert_eq!(w.message_count(gt), FRAMES);
    assert_eq!(w.message_count(svc), 1);
    let (name, draft) = (w.trace_name("round-trip"), w.draft_name(Some("rt"), None));
    (w.finish().unwrap(), name, draft)
}

#[test]
fn round_trip_every_compression() {
    for compression in [Compression::Zstd, Compression::Lz4, Compression::None] {
        let (file, name, draft) = round_trip_trace(compression);
        let c = read_all(&file);

        // Messages: times are the OSI timestamps, sequences count per channel.
        assert_eq!(c.messages.len() as u64, 2 * FRAMES + 1);
        let topic = |m: &Msg| c.channels[&m.channel].0.clone();
        assert_eq!(topic(&c.messages[0]), "svc");
        assert_eq!(c.messages[0].log_time, T0);
        assert_eq!(c.messages[0].data, sensor_view_configuration((3, 8, 0)));
        for (k, m) in c.messages[1..].iter().enumerate() {
            let i = k as u64 / 2;
            let ns = T0 + i * STEP;
            assert_eq!((m.log_time, m.publish_time), (ns, ns));
            assert_eq!(m.sequence as u64, i + 1);
            if k % 2 == 0 {
                assert_eq!(topic(m), "gt");
                assert_eq!(m.data, ground_truth((3, 7, 0), Some(ns)));
            } else {
                assert_eq!(topic(m), "hvd");
                assert_eq!(m.data, host_vehicle_data((3, 8, 0), ns));
            }
        }

        // Channels: both key sets, schema names.
        let mut topics = Vec::new();
        for (topic, schema, md) in c.channels.values() {
            topics.push(topic.as_str());
            let (ty, osi, pb) = match topic.as_str() {
                "gt" => ("osi3.GroundTruth", "3.7.0", "32.0.0"),
                "hvd" => ("osi3.HostVehicleData", "3.8.0", "31.1.0"),
                _ => ("osi3.SensorViewConfiguration", "3.8.0", "32.0.0"),
            };
            assert_eq!(schema, ty);
            let want: BTreeMap<String, String> = [
                ("net.asam.osi.trace.channel.osi_version", osi),
                ("net.asam.osi.trace.channel.protobuf_version", pb),
                (
                    "net.asam.osi.trace.channel.description",
                    &format!("{topic} channel"),
                ),
                ("osi_version", osi),
                ("protobuf", pb),
                ("description", &format!("{topic} channel")),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
            assert_eq!(md, &want, "{topic}");
        }
        topics.sort();
        assert_eq!(topics, ["gt", "hvd", "svc"]);
        // One schema per type (same descriptor).
        assert_eq!(c.schemas.len(), 3);

        // File meta-data, before every message.
        let names: Vec<&str> = c.metadata.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["net.asam.osi.trace", "versions", "asam_osi"]);
        let trace = &c.metadata[0].1;
        let get = |m: &BTreeMap<String, String>, k: &str| m.get(k).cloned().unwrap_or_default();
        assert_eq!(get(trace, "version"), "3.8.0");
        assert_eq!(get(trace, "min_osi_version"), "3.7.0");
        assert_eq!(get(trace, "max_osi_version"), "3.8.0");
        assert_eq!(get(trace, "min_protobuf_version"), "31.1.0");
        assert_eq!(get(trace, "max_protobuf_version"), "32.0.0");
        assert_eq!(get(trace, "zero_time"), "2024-01-01T00:00:00Z");
        assert_eq!(get(trace, "creation_time"), "2024-01-01T00:00:01.5Z");
        assert_eq!(
            Some(get(trace, "creation_time")),
            format_date_time_stamp(ZERO + 1_500_000_000)
        );
        assert!(is_date_time_stamp(&get(trace, "zero_time")));
        assert_eq!(get(trace, "description"), "round trip");
        assert_eq!(get(trace, "authors"), "tests");
        assert_eq!(get(trace, "data_sources"), "synthetic");
        assert!(!trace.contains_key("license"), "3.8.0 has no license key");
        assert_eq!(trace.len(), 10);
        let versions = &c.metadata[1].1;
        assert_eq!(versions.len(), 1);
        assert_eq!(get(versions, "osi"), "3.7.0");
        let asam = &c.metadata[2].1;
        assert_eq!(get(asam, "zero_time"), "20240101T000000.0");
        assert_eq!(get(asam, "timestamp"), "20240101T000001.5");
        assert_eq!(get(asam, "creator"), "tests");
        assert_eq!(get(asam, "license"), "MIT");
        assert_eq!(get(asam, "description"), "round trip");
        assert_eq!(get(asam, "data_sources"), "synthetic");
        let meta_end = metadata_end(&file);
        let first_chunk_with_messages = first_message_offset(&file);
        assert!(meta_end <= first_chunk_with_messages);

        // Chunks: the chosen compression, several of them.
        assert!(c.compressions.len() > 3, "{:?}", c.compressions);
        assert!(
            c.compressions.iter().all(|n| n == compression.name()),
            "{:?}",
            c.compressions
        );
        let summary = Summary::read(&file, true).unwrap().unwrap();
        assert_eq!(summary.statistics.unwrap().message_count, 2 * FRAMES + 1);

        // Names.
        let name_s = name.to_string();
        assert_eq!(name_s, "20240101T000000Z_multi_380_3110_12_round-trip.mcap");
        assert_eq!(TraceName::parse(&name_s).unwrap(), name);
        let draft_s = draft.to_string();
        assert_eq!(DraftName::parse(&draft_s).unwrap(), draft);
        assert_eq!(draft.type_code, "multi");
        assert_eq!(draft.prefix.as_deref(), Some("rt"));

        // Validation: no errors in either profile, with the matching names.
        for (profile, n) in [
            (Some(Profile::Osi38), Some(name_s.as_str())),
            (None, Some(name_s.as_str())),
        ] {
            let r = validate_as(&file, profile, n);
            assert!(r.passed(), "{profile:?}: {:#?}", errors(&r));
            assert_eq!(r.osi_channels, 3);
            assert_eq!(r.messages_checked, 2 * FRAMES + 1);
        }
        let r = validate_as(&file, None, None);
        assert_eq!(r.profile, Profile::Osi38);
        // The draft stores no SensorViewConfiguration: that is its only
        // complaint (the writer's draft records and keys satisfy it).
        let r = validate_as(&file, Some(Profile::Draft), Some(&draft_s));
        assert_eq!(r.errors, 1, "{:#?}", errors(&r));
        assert!(r.has(rule::DRAFT_TIMESTAMP_TYPE));
    }
}

#[test]
fn without_svc_both_profiles_pass() {
    let mut w = OsiTraceWriter::new(Vec::new(), options(Compression::Lz4)).unwrap();
    let gt = w
        .add_channel(spec("gt", "osi3.GroundTruth", "3.8.0", "32.0.0"))
        .unwrap();
    let hvd = w
        .add_channel(spec("hvd", "osi3.HostVehicleData", "3.8.0", "32.0.0"))
        .unwrap();
    for i in 0..5 {
        let ns = 1_000_000_000 * i + 999_999_999;
        w.write(gt, &ground_truth((3, 8, 0), Some(ns))).unwrap();
        w.write(hvd, &host_vehicle_data((3, 8, 0), ns)).unwrap();
    }
    let (name, draft) = (w.trace_name("both"), w.draft_name(None, Some("sfx")));
    assert_eq!(draft.to_string(), "20240101T000000Z_multi_sfx.mcap");
    let file = w.finish().unwrap();
    for (profile, n) in [
        (Profile::Osi38, name.to_string()),
        (Profile::Draft, draft.to_string()),
    ] {
        let r = validate_as(&file, Some(profile), Some(&n));
        assert!(r.passed(), "{profile:?}: {:#?}", errors(&r));
        assert_eq!(r.messages_checked, 10);
    }
}

/// Offset just past the `net.asam.osi.trace` Metadata record.
fn metadata_end(file: &[u8]) -> u64 {
    let mut rd = LinearReader::with_options(
        file,
        ReadOptions {
            flatten_chunks: false,
            ..ReadOptions::default()
        },
    );
    let mut end = 0;
    while let Some(r) = rd.next() {
        if let Ok(Record::Metadata(m)) = r
            && m.name == "net.asam.osi.trace"
        {
            end = rd.position();
        }
    }
    end
}

/// Offset of the first chunk holding a message.
fn first_message_offset(file: &[u8]) -> u64 {
    let s = Summary::read(file, true).unwrap().unwrap();
    s.chunk_indexes
        .iter()
        .filter(|c| !c.message_index_offsets.is_empty())
        .map(|c| c.chunk_start_offset)
        .min()
        .unwrap()
}

#[test]
fn zero_time_absent_and_no_draft_metadata() {
    let mut o = options(Compression::Zstd);
    o.metadata.zero_time_unix_ns = None;
    o.draft_metadata = false;
    let mut w = OsiTraceWriter::new(Vec::new(), o).unwrap();
    let gt = w
        .add_channel(spec("gt", "osi3.GroundTruth", "3.8.0", "32.0.0"))
        .unwrap();
    w.write(gt, &ground_truth((3, 8, 0), Some(5))).unwrap();
    let name = w.trace_name("x");
    let file = w.finish().unwrap();
    let c = read_all(&file);
    assert_eq!(c.metadata.len(), 1);
    assert!(!c.metadata[0].1.contains_key("zero_time"));
    let (_, _, md) = c.channels.values().next().unwrap();
    assert!(!md.contains_key("osi_version"));
    assert!(md.contains_key("net.asam.osi.trace.channel.osi_version"));
    // The name falls back to the creation time; single type gives "gt".
    assert_eq!(name.to_string(), "20240101T000001Z_gt_380_3200_1_x.mcap");
    let r = validate_as(&file, None, Some(&name.to_string()));
    assert!(r.passed(), "{:#?}", errors(&r));
    assert!(r.has(rule::TRACE_RECOMMENDED), "zero_time missing");
    // Without the draft records, the draft profile fails.
    let r = validate_as(&file, Some(Profile::Draft), None);
    assert!(r.has(rule::DRAFT_VERSIONS_RECORD) && r.has(rule::DRAFT_CHANNEL_REQUIRED));
}

// ---------------------------------------------------------------------------
// Refusals

fn writer() -> OsiTraceWriter<Vec<u8>> {
    OsiTraceWriter::new(Vec::new(), options(Compression::Zstd)).unwrap()
}

fn is_invalid<T: std::fmt::Debug>(r: Result<T, Error>) -> String {
    match r {
        Err(Error::InvalidArgument(m)) => m,
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
}

#[test]
fn refuses_unknown_and_missing_types() {
    let mut w = writer();
    is_invalid(w.add_channel(spec("a", "osi3.Banana", "3.8.0", "32.0.0")));
    // A non-top-level OSI message is not a channel type either.
    is_invalid(w.add_channel(spec("a", "osi3.Timestamp", "3.8.0", "32.0.0")));
    // A top-level type the descriptor set does not define.
    match w.add_channel(spec("a", "osi3.SensorView", "3.8.0", "32.0.0")) {
        Err(Error::Proto(osi_mcap::proto::ProtoError::MissingMessage(n))) => {
            assert_eq!(n, "osi3.SensorView")
        }
        other => panic!("{other:?}"),
    }
    // A descriptor set that does not parse.
    let mut bad = spec("a", "osi3.GroundTruth", "3.8.0", "32.0.0");
    bad.descriptor_set = b"\x0a\x05garbage".to_vec();
    assert!(matches!(w.add_channel(bad), Err(Error::Proto(_))));
    // No OSI version given and none in the descriptor.
    let mut none = spec("a", "osi3.GroundTruth", "3.8.0", "32.0.0");
    none.osi_version = None;
    is_invalid(w.add_channel(none));
    // Nothing was added by the refusals: the topic is still free.
    w.add_channel(spec("a", "osi3.GroundTruth", "3.8.0", "32.0.0"))
        .unwrap();
}

#[test]
fn refuses_duplicate_topic_and_bad_versions() {
    let mut w = writer();
    w.add_channel(spec("gt", "osi3.GroundTruth", "3.8.0", "32.0.0"))
        .unwrap();
    let m = is_invalid(w.add_channel(spec("gt", "osi3.HostVehicleData", "3.8.0", "32.0.0")));
    assert!(m.contains("gt"), "{m}");
    for (osi, pb) in [
        ("3.8", "32.0.0"),
        ("3.8.0", "v32"),
        ("", "32.0.0"),
        ("3.8.0.1", "1.0.0"),
    ] {
        is_invalid(w.add_channel(spec("x", "osi3.GroundTruth", osi, pb)));
    }
    // File meta-data versions too.
    for bad in ["3.8", "x"] {
        let mut o = options(Compression::Zstd);
        o.metadata.version = bad.into();
        is_invalid(OsiTraceWriter::new(Vec::new(), o).map(|_| ()));
        let mut o = options(Compression::Zstd);
        o.metadata.max_protobuf_version = Some(bad.into());
        is_invalid(OsiTraceWriter::new(Vec::new(), o).map(|_| ()));
    }
}

#[test]
fn refuses_bad_writes() {
    let mut w = writer();
    let gt = w
        .add_channel(spec("gt", "osi3.GroundTruth", "3.8.0", "32.0.0"))
        .unwrap();
    let svc = w
        .add_channel(spec(
            "svc",
            "osi3.SensorViewConfiguration",
            "3.8.0",
            "32.0.0",
        ))
        .unwrap();
    // svc has no timestamp: write() is refused, write_at() takes any time.
    let m = is_invalid(w.write(svc, &sensor_view_configuration((3, 8, 0))));
    assert!(m.contains("write_at"), "{m}");
    w.write_at(svc, 17, &sensor_view_configuration((3, 8, 0)))
        .unwrap();
    // A GroundTruth without timestamp.
    is_invalid(w.write(gt, &ground_truth((3, 8, 0), None)));
    is_invalid(w.write_at(gt, 5, &ground_truth((3, 8, 0), None)));
    // write_at with a time that is not the timestamp (also 1 ns off).
    let msg = ground_truth((3, 8, 0), Some(1_000));
    is_invalid(w.write_at(gt, 1_001, &msg));
    is_invalid(w.write_at(gt, 999, &msg));
    w.write_at(gt, 1_000, &msg).unwrap();
    // Timestamps that are no valid OSI time.
    let mut neg = Vec::new();
    len_field(2, &timestamp_bytes(-1, 0), &mut neg);
    is_invalid(w.write(gt, &neg));
    let mut big_nanos = Vec::new();
    len_field(2, &timestamp_bytes(1, 1_000_000_000), &mut big_nanos);
    is_invalid(w.write(gt, &big_nanos));
    // Bad wire data.
    assert!(matches!(w.write(gt, &[0x12, 0x7f]), Err(Error::Proto(_))));
    // A channel that was never added.
    is_invalid(w.write(OsiChannel(99), &msg));
    assert_eq!(w.message_count(gt), 1);
    assert_eq!(w.message_count(svc), 1);
    let file = w.finish().unwrap();
    assert_eq!(read_all(&file).messages.len(), 2);
}

#[test]
fn late_channels_must_fit_the_declared_versions() {
    let mut w = writer();
    let gt = w
        .add_channel(spec("gt", "osi3.GroundTruth", "3.7.0", "30.0.0"))
        .unwrap();
    w.add_channel(spec("hvd", "osi3.HostVehicleData", "3.8.0", "32.0.0"))
        .unwrap();
    w.write(gt, &ground_truth((3, 7, 0), Some(1))).unwrap();
    // Declared now: OSI 3.7.0..3.8.0, protobuf 30.0.0..32.0.0.
    for (osi, pb) in [
        ("3.9.0", "31.0.0"),
        ("3.6.0", "31.0.0"),
        ("3.8.0", "33.0.0"),
        ("3.8.0", "29.9.9"),
    ] {
        let m = is_invalid(w.add_channel(spec("late", "osi3.GroundTruth", osi, pb)));
        assert!(m.contains("declared"), "{m}");
    }
    // Inside the range is fine, even after the first message.
    let late = w
        .add_channel(spec("late", "osi3.GroundTruth", "3.7.5", "31.0.0"))
        .unwrap();
    w.write(late, &ground_truth((3, 7, 5), Some(2))).unwrap();
    let file = w.finish().unwrap();
    let r = validate_as(&file, None, None);
    assert!(r.passed(), "{:#?}", errors(&r));
    assert!(!r.has(rule::VERSION_RANGE));
}

// ---------------------------------------------------------------------------
// Interrupted writes

/// Messages (channel, sequence, log time) of a lenient read.
fn lenient_messages(data: &[u8]) -> Vec<(u16, u32, u64)> {
    let opts = ReadOptions {
        mode: logcore::ReadMode::Lenient,
        ..ReadOptions::default()
    };
    LinearReader::with_options(data, opts)
        .filter_map(|r| match r {
            Ok(Record::Message(m)) => Some((m.channel_id, m.sequence, m.log_time)),
            _ => None,
        })
        .collect()
}

#[test]
fn interrupted_trace_keeps_every_complete_chunk() {
    for compression in [Compression::Zstd, Compression::None] {
        let (file, _, _) = round_trip_trace(compression);
        let summary = Summary::read(&file, true).unwrap().unwrap();
        // Each message with the end offset of its chunk.
        let mut with_end = Vec::new();
        let mut rd = LinearReader::new(&file);
        while let Some(r) = rd.next() {
            if let Record::Message(m) = r.unwrap() {
                let at = rd.last_offset();
                let chunk = summary
                    .chunk_indexes
                    .iter()
                    .find(|c| {
                        (c.chunk_start_offset..c.chunk_start_offset + c.chunk_length).contains(&at)
                    })
                    .expect("every message is in an indexed chunk");
                with_end.push((
                    chunk.chunk_start_offset + chunk.chunk_length,
                    (m.channel_id, m.sequence, m.log_time),
                ));
            }
        }
        assert_eq!(with_end.len() as u64, 2 * FRAMES + 1);
        let meta_end = metadata_end(&file);
        let data_end = summary.footer.summary_start as usize;
        // Header: magic (8), opcode and length (9), an empty profile (4)
        // and the library string.
        let header_end = 8 + 9 + 4 + 4 + "writer tests".len();
        let mut cut = header_end;
        let mut checked = 0;
        while cut < file.len() {
            let part = &file[..cut];
            let want: Vec<(u16, u32, u64)> = with_end
                .iter()
                .filter(|(end, _)| *end as usize <= cut)
                .map(|(_, m)| *m)
                .collect();
            assert_eq!(lenient_messages(part), want, "{compression:?} cut at {cut}");

            let (fixed, rep) = recover(part, Vec::new(), WriteOptions::default()).unwrap();
            assert_eq!(rep.messages as usize, want.len(), "cut at {cut}");
            if cut < data_end {
                let r = validate_as(part, None, None);
                assert!(r.has(rule::MCAP_STRUCTURE), "cut at {cut} not reported");
                assert!(!r.passed());
            }
            let r = validate_as(&fixed, None, None);
            if cut as u64 >= meta_end {
                // Identifies as OSI and is clean: only messages are lost.
                assert_eq!(r.profile, Profile::Osi38, "cut at {cut}");
                assert!(r.passed(), "cut at {cut}: {:#?}", errors(&r));
                assert_eq!(r.messages_checked as usize, want.len());
                assert_eq!(r.osi_channels, 3);
            } else {
                assert!(!r.passed(), "cut at {cut} before the meta-data");
            }
            cut += 97;
            checked += 1;
        }
        assert!(checked > 20);
    }
}

// ---------------------------------------------------------------------------
// The committed fixtures

#[test]
fn fixture_traces_validate_clean() {
    for (name, compression) in [
        (FIXTURE_ZSTD, Compression::Zstd),
        (FIXTURE_LZ4, Compression::Lz4),
        (FIXTURE_NONE, Compression::None),
    ] {
        let file = fixture(name);
        let r = validate_as(&file, None, Some(name));
        assert_eq!(r.profile, Profile::Osi38);
        assert!(r.passed(), "{name}: {:#?}", r.findings);
        assert_eq!(r.warnings, 0, "{name}: {:#?}", r.findings);
        assert_eq!((r.osi_channels, r.messages_checked), (3, 21));
        let r = validate_as(&file, Some(Profile::Draft), None);
        assert_eq!(r.errors, 1, "{name} (draft): {:#?}", errors(&r));
        assert!(r.has(rule::DRAFT_TIMESTAMP_TYPE), "the svc channel");
        let c = read_all(&file);
        assert!(c.compressions.iter().all(|n| n == compression.name()));
        // The name is what the writer would call it.
        let n = TraceName::parse(name).unwrap();
        assert_eq!((n.type_code.as_str(), n.frames), ("multi", 10));
        // svc first (write_at), then gt/hvd at 0.1 s steps from 2.550000123 s.
        let times: Vec<u64> = c.messages.iter().map(|m| m.log_time).collect();
        assert_eq!(times[0], 2_550_000_123);
        assert_eq!(times[20], 3_450_000_123);
        assert!(c.messages.iter().all(|m| m.log_time == m.publish_time));
    }
}

#[test]
fn draft_fixture_passes_as_draft() {
    let file = fixture(DRAFT);
    let r = validate_as(&file, None, Some(DRAFT));
    assert_eq!(r.profile, Profile::Draft, "{}", r.profile_reason);
    assert!(r.passed(), "{:#?}", r.findings);
    assert_eq!(r.warnings, 0, "{:#?}", r.findings);
    assert_eq!(r.messages_checked, 10);
    let n = DraftName::parse(DRAFT).unwrap();
    assert_eq!(n.type_code, "gt");
    assert_eq!(n.prefix.as_deref(), Some("highway"));
    assert_eq!(n.timestamp.as_deref(), Some("20240101T000000.0"));
    // Under the published rules it is not an OSI trace.
    let r = validate_as(&file, Some(Profile::Osi38), None);
    assert!(r.has(rule::TRACE_RECORD) && r.has(rule::CHANNEL_REQUIRED));
}

#[test]
fn broken_fixture_findings() {
    let file = fixture(BROKEN);
    let r = validate_as(&file, None, None);
    assert_eq!(r.profile, Profile::Osi38);
    assert!(!r.passed());
    let count = |id: &str| r.counts.get(id).map_or(0, |c| c.total);
    assert_eq!(count(rule::TRACE_REQUIRED), 1, "{:#?}", r.findings);
    assert_eq!(count(rule::CHANNEL_REQUIRED), 1);
    assert_eq!(count(rule::PUBLISH_TIME), 1);
    assert_eq!(count(rule::TIME_ROUNDING), 1);
    assert_eq!(count(rule::MESSAGE_TIMESTAMP), 1);
    assert!(count(rule::LOG_TIME_ORDER) >= 1);
    // Nothing else is wrong: exactly these errors.
    assert_eq!(r.errors, 4, "{:#?}", errors(&r));
    assert_eq!(
        r.warnings,
        count(rule::TIME_ROUNDING) + count(rule::LOG_TIME_ORDER)
    );
    let ids: std::collections::BTreeSet<&str> = r.counts.keys().copied().collect();
    let want: std::collections::BTreeSet<&str> = [
        rule::TRACE_REQUIRED,
        rule::CHANNEL_REQUIRED,
        rule::PUBLISH_TIME,
        rule::TIME_ROUNDING,
        rule::MESSAGE_TIMESTAMP,
        rule::LOG_TIME_ORDER,
    ]
    .into();
    assert_eq!(ids, want, "{:#?}", r.findings);
    // Where: the finding names the channel and message.
    let f = r
        .findings
        .iter()
        .find(|f| f.rule == rule::PUBLISH_TIME)
        .unwrap();
    assert_eq!(f.location.topic.as_deref(), Some("ground_truth"));
    assert_eq!(f.location.message_index, Some(3));
    let f = r
        .findings
        .iter()
        .find(|f| f.rule == rule::MESSAGE_TIMESTAMP)
        .unwrap();
    assert_eq!(f.location.message_index, Some(7));
    let f = r
        .findings
        .iter()
        .find(|f| f.rule == rule::CHANNEL_REQUIRED)
        .unwrap();
    assert_eq!(f.location.topic.as_deref(), Some("host"));
    // strict_time turns the 1 ns artefact into an error.
    let strict = osi_mcap::validate(
        &file,
        &ValidateOptions {
            strict_time: true,
            ..ValidateOptions::default()
        },
    );
    assert_eq!(strict.errors, 5);
}
