//! Deterministic ASAM OSI trace fixtures for `testdata/osi/`: the
//! committed files are what the crate's writer makes today (`cargo xtask
//! fixtures` rewrites them, through this test with `ROBOLOG_BLESS=1`), and
//! the clean ones validate.
//!
//! The schema is a hand-made minimal OSI `FileDescriptorSet`
//! (`osi3/osi_minimal.proto`, proto2, package `osi3`) built with
//! `prost-types` from the field facts of spec `osi-mcap.md` §2: the
//! `version` (`osi3.InterfaceVersion`) and `timestamp` (`osi3.Timestamp`)
//! fields of the top-level types at their OSI numbers (1/2, 9/10 in
//! `HostVehicleData`, no timestamp in `SensorViewConfiguration`), plus a few
//! payload fields of our own. No OSI `.proto` text is copied. Messages are
//! serialized with prost structs mirroring the descriptor.
//!
//! Every time is fixed (creation and zero time 2024-01-01T00:00:00Z), so
//! the bytes are the same on every run and platform.

use std::collections::BTreeMap;

use mcapfile::{Compression, WriteOptions, Writer};
use osi_mcap::validate::{Profile, ValidateOptions, rule};
use osi_mcap::writer::{ChannelSpec, OsiTraceWriter, TraceMetadata, TraceOptions};
use prost::Message;
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{DescriptorProto, FieldDescriptorProto, FileDescriptorProto, FileDescriptorSet};

/// 2024-01-01T00:00:00Z as Unix ns: creation and zero time of the traces.
const ZERO_TIME_UNIX_NS: i128 = 1_704_067_200_000_000_000;
/// OSI version the fixtures claim.
const OSI_VERSION: &str = "3.8.0";
/// Protobuf implementation version the fixtures claim.
const PROTOBUF_VERSION: &str = "32.0.0";
/// Simulation time of the first frame: 2.550000123 s (non-trivial nanos,
/// and the frames cross a second boundary).
const FIRST_FRAME_NS: u64 = 2_550_000_123;
/// Frame step: 0.1 s.
const STEP_NS: u64 = 100_000_000;
/// Frames per channel.
const FRAMES: u64 = 10;
/// Header library string of every fixture.
const LIBRARY: &str = "robolog fixtures";

/// The fixtures: (file name, bytes).
///
/// - `osi3-minimal.desc`: the minimal OSI FileDescriptorSet;
/// - `20240101T000000Z_multi_380_3200_10_fixture-{zstd,lz4,none}.mcap`:
///   [`OsiTraceWriter`] traces with channels `gt` (GroundTruth), `hvd`
///   (HostVehicleData) and `svc` (SensorViewConfiguration, written with
///   `write_at`), 10 frames 0.1 s apart from 2.550000123 s, small chunks;
/// - `highway_20240101T000000.0_gt_draft.mcap`: a GroundTruth trace with
///   only the pre-standard draft's meta-data (clean in the draft profile);
/// - `broken_gt.mcap`: a trace with known defects (see [`broken`]).
fn fixtures() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("osi3-minimal.desc", descriptor_set()),
        (
            "20240101T000000Z_multi_380_3200_10_fixture-zstd.mcap",
            multi(Compression::Zstd),
        ),
        (
            "20240101T000000Z_multi_380_3200_10_fixture-lz4.mcap",
            multi(Compression::Lz4),
        ),
        (
            "20240101T000000Z_multi_380_3200_10_fixture-none.mcap",
            multi(Compression::None),
        ),
        ("highway_20240101T000000.0_gt_draft.mcap", draft()),
        ("broken_gt.mcap", broken()),
    ]
}

// ---------------------------------------------------------------------------
// The descriptor set

fn field(name: &str, number: i32, ty: Type, type_name: Option<&str>) -> FieldDescriptorProto {
    FieldDescriptorProto {
        name: Some(name.into()),
        number: Some(number),
        label: Some(Label::Optional as i32),
        r#type: Some(ty as i32),
        type_name: type_name.map(Into::into),
        json_name: None,
        ..Default::default()
    }
}

fn message_type(name: &str, fields: Vec<FieldDescriptorProto>) -> DescriptorProto {
    DescriptorProto {
        name: Some(name.into()),
        field: fields,
        ..Default::default()
    }
}

/// The serialized FileDescriptorSet of `osi3/osi_minimal.proto`.
pub(crate) fn descriptor_set() -> Vec<u8> {
    use Type::{Double, Int64, Message as Msg, String as Str, Uint32, Uint64};
    let version = || field("version", 1, Msg, Some(".osi3.InterfaceVersion"));
    let timestamp = || field("timestamp", 2, Msg, Some(".osi3.Timestamp"));
    let mut moving_object = field("moving_object", 4, Msg, Some(".osi3.MovingObject"));
    moving_object.label = Some(Label::Repeated as i32);
    let file = FileDescriptorProto {
        name: Some("osi3/osi_minimal.proto".into()),
        package: Some("osi3".into()),
        syntax: Some("proto2".into()),
        message_type: vec![
            message_type(
                "Timestamp",
                vec![
                    field("seconds", 1, Int64, None),
                    field("nanos", 2, Uint32, None),
                ],
            ),
            message_type(
                "InterfaceVersion",
                vec![
                    field("version_major", 1, Uint32, None),
                    field("version_minor", 2, Uint32, None),
                    field("version_patch", 3, Uint32, None),
                ],
            ),
            message_type("Identifier", vec![field("value", 1, Uint64, None)]),
            message_type(
                "Vector3d",
                vec![
                    field("x", 1, Double, None),
                    field("y", 2, Double, None),
                    field("z", 3, Double, None),
                ],
            ),
            message_type(
                "MovingObject",
                vec![
                    field("id", 1, Msg, Some(".osi3.Identifier")),
                    field("position", 2, Msg, Some(".osi3.Vector3d")),
                    field("name", 3, Str, None),
                ],
            ),
            message_type(
                "GroundTruth",
                vec![
                    version(),
                    timestamp(),
                    field("host_vehicle_id", 3, Msg, Some(".osi3.Identifier")),
                    moving_object,
                ],
            ),
            message_type(
                "HostVehicleData",
                vec![
                    field("version", 9, Msg, Some(".osi3.InterfaceVersion")),
                    field("timestamp", 10, Msg, Some(".osi3.Timestamp")),
                    field("host_vehicle_id", 11, Msg, Some(".osi3.Identifier")),
                ],
            ),
            message_type(
                "SensorViewConfiguration",
                vec![
                    version(),
                    field("sensor_id", 2, Msg, Some(".osi3.Identifier")),
                    field("update_cycle_time", 3, Msg, Some(".osi3.Timestamp")),
                ],
            ),
        ],
        ..Default::default()
    };
    FileDescriptorSet { file: vec![file] }.encode_to_vec()
}

// ---------------------------------------------------------------------------
// Messages mirroring the descriptor

/// `osi3.Timestamp`.
#[derive(Clone, PartialEq, prost::Message)]
struct Timestamp {
    #[prost(int64, optional, tag = "1")]
    seconds: Option<i64>,
    #[prost(uint32, optional, tag = "2")]
    nanos: Option<u32>,
}

/// `osi3.InterfaceVersion`.
#[derive(Clone, PartialEq, prost::Message)]
struct InterfaceVersion {
    #[prost(uint32, optional, tag = "1")]
    version_major: Option<u32>,
    #[prost(uint32, optional, tag = "2")]
    version_minor: Option<u32>,
    #[prost(uint32, optional, tag = "3")]
    version_patch: Option<u32>,
}

/// `osi3.Identifier`.
#[derive(Clone, PartialEq, prost::Message)]
struct Identifier {
    #[prost(uint64, optional, tag = "1")]
    value: Option<u64>,
}

/// `osi3.Vector3d`.
#[derive(Clone, PartialEq, prost::Message)]
struct Vector3d {
    #[prost(double, optional, tag = "1")]
    x: Option<f64>,
    #[prost(double, optional, tag = "2")]
    y: Option<f64>,
    #[prost(double, optional, tag = "3")]
    z: Option<f64>,
}

/// `osi3.MovingObject`.
#[derive(Clone, PartialEq, prost::Message)]
struct MovingObject {
    #[prost(message, optional, tag = "1")]
    id: Option<Identifier>,
    #[prost(message, optional, tag = "2")]
    position: Option<Vector3d>,
    #[prost(string, optional, tag = "3")]
    name: Option<String>,
}

/// `osi3.GroundTruth`.
#[derive(Clone, PartialEq, prost::Message)]
struct GroundTruth {
    #[prost(message, optional, tag = "1")]
    version: Option<InterfaceVersion>,
    #[prost(message, optional, tag = "2")]
    timestamp: Option<Timestamp>,
    #[prost(message, optional, tag = "3")]
    host_vehicle_id: Option<Identifier>,
    #[prost(message, repeated, tag = "4")]
    moving_object: Vec<MovingObject>,
}

/// `osi3.HostVehicleData`.
#[derive(Clone, PartialEq, prost::Message)]
struct HostVehicleData {
    #[prost(message, optional, tag = "9")]
    version: Option<InterfaceVersion>,
    #[prost(message, optional, tag = "10")]
    timestamp: Option<Timestamp>,
    #[prost(message, optional, tag = "11")]
    host_vehicle_id: Option<Identifier>,
}

/// `osi3.SensorViewConfiguration`.
#[derive(Clone, PartialEq, prost::Message)]
struct SensorViewConfiguration {
    #[prost(message, optional, tag = "1")]
    version: Option<InterfaceVersion>,
    #[prost(message, optional, tag = "2")]
    sensor_id: Option<Identifier>,
    #[prost(message, optional, tag = "3")]
    update_cycle_time: Option<Timestamp>,
}

fn interface_version() -> InterfaceVersion {
    InterfaceVersion {
        version_major: Some(3),
        version_minor: Some(8),
        version_patch: Some(0),
    }
}

fn timestamp(ns: u64) -> Timestamp {
    Timestamp {
        seconds: Some((ns / 1_000_000_000) as i64),
        nanos: Some((ns % 1_000_000_000) as u32),
    }
}

fn id(value: u64) -> Option<Identifier> {
    Some(Identifier { value: Some(value) })
}

/// Time of frame `i`.
fn frame_ns(i: u64) -> u64 {
    FIRST_FRAME_NS + i * STEP_NS
}

/// A GroundTruth at `ns` (or without timestamp) for frame `i`: the host
/// and two cars moving along x at exactly representable positions.
fn ground_truth(i: u64, ns: Option<u64>) -> Vec<u8> {
    let step = i as f64;
    GroundTruth {
        version: Some(interface_version()),
        timestamp: ns.map(timestamp),
        host_vehicle_id: id(1),
        moving_object: (1..=3u64)
            .map(|k| MovingObject {
                id: id(k),
                position: Some(Vector3d {
                    x: Some(step * 2.5 * k as f64),
                    y: Some(3.5 * (k as f64 - 2.0)),
                    z: Some(0.0),
                }),
                name: Some(if k == 1 {
                    "host".into()
                } else {
                    format!("car-{k}")
                }),
            })
            .collect(),
    }
    .encode_to_vec()
}

fn host_vehicle_data(ns: u64) -> Vec<u8> {
    HostVehicleData {
        version: Some(interface_version()),
        timestamp: Some(timestamp(ns)),
        host_vehicle_id: id(1),
    }
    .encode_to_vec()
}

fn sensor_view_configuration() -> Vec<u8> {
    SensorViewConfiguration {
        version: Some(interface_version()),
        sensor_id: id(100),
        update_cycle_time: Some(timestamp(STEP_NS)),
    }
    .encode_to_vec()
}

// ---------------------------------------------------------------------------
// Traces

/// The `multi` trace written with [`OsiTraceWriter`].
fn multi(compression: Compression) -> Vec<u8> {
    let build = || -> osi_mcap::writer::Result<Vec<u8>> {
        let options = TraceOptions {
            compression,
            chunk_size: 400,
            metadata: TraceMetadata {
                zero_time_unix_ns: Some(ZERO_TIME_UNIX_NS),
                creation_time_unix_ns: Some(ZERO_TIME_UNIX_NS),
                description: Some(
                    "robolog OSI fixture: a host and two cars on a straight road".into(),
                ),
                authors: Some("The robolog developers".into()),
                data_sources: Some("synthetic".into()),
                license: Some("MIT OR Apache-2.0".into()),
                ..TraceMetadata::default()
            },
            draft_metadata: true,
            library: LIBRARY.into(),
        };
        let mut w = OsiTraceWriter::new(Vec::new(), options)?;
        let desc = descriptor_set();
        let spec = |topic: &str, ty: &str, description: &str| ChannelSpec {
            description: Some(description.into()),
            ..ChannelSpec::new(topic, ty, desc.clone(), OSI_VERSION, PROTOBUF_VERSION)
        };
        let gt = w.add_channel(spec(
            "gt",
            "osi3.GroundTruth",
            "ground truth of the scenario",
        ))?;
        let hvd = w.add_channel(spec(
            "hvd",
            "osi3.HostVehicleData",
            "host vehicle data of the ego car",
        ))?;
        let svc = w.add_channel(spec(
            "svc",
            "osi3.SensorViewConfiguration",
            "configuration of the front sensor",
        ))?;
        w.write_at(svc, frame_ns(0), &sensor_view_configuration())?;
        for i in 0..FRAMES {
            w.write(gt, &ground_truth(i, Some(frame_ns(i))))?;
            w.write(hvd, &host_vehicle_data(frame_ns(i)))?;
        }
        w.finish()
    };
    build().expect("writing an OSI fixture in memory cannot fail")
}

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn plain_writer() -> mcapfile::Result<Writer<Vec<u8>>> {
    Writer::new(
        Vec::new(),
        WriteOptions {
            chunk_size: 600,
            library: LIBRARY.into(),
            ..WriteOptions::default()
        },
    )
}

/// A GroundTruth trace with only the draft's meta-data: records
/// `versions` {osi} and `asam_osi` {zero_time, timestamp (compact ISO
/// 8601), description, creator, license, data_sources}; channel keys
/// `osi_version`, `protobuf`, `description`.
fn draft() -> Vec<u8> {
    let build = || -> mcapfile::Result<Vec<u8>> {
        let mut w = plain_writer()?;
        let schema = w.add_schema("osi3.GroundTruth", "protobuf", &descriptor_set())?;
        let ch = w.add_channel(
            schema,
            "ground_truth",
            "protobuf",
            &map(&[
                ("osi_version", OSI_VERSION),
                ("protobuf", PROTOBUF_VERSION),
                ("description", "ground truth of a highway scenario"),
            ]),
        )?;
        w.write_metadata("versions", &map(&[("osi", OSI_VERSION)]))?;
        w.write_metadata(
            "asam_osi",
            &map(&[
                ("zero_time", "20240101T000000.0"),
                ("timestamp", "20240101T120000.5"),
                ("description", "highway scenario, draft meta-data only"),
                ("creator", "The robolog developers"),
                ("license", "MIT OR Apache-2.0"),
                ("data_sources", "synthetic"),
            ]),
        )?;
        for i in 0..FRAMES {
            let ns = frame_ns(i);
            w.write_message(ch, i as u32 + 1, ns, ns, &ground_truth(i, Some(ns)))?;
        }
        w.finish()
    };
    build().expect("writing an OSI fixture in memory cannot fail")
}

/// A trace with known defects, each found by exactly one rule:
///
/// - `net.asam.osi.trace` lacks `max_protobuf_version`
///   (`osi38.metadata.required`);
/// - channel `host` (HostVehicleData) lacks
///   `net.asam.osi.trace.channel.osi_version` (`osi38.channel.required`);
/// - GroundTruth frame 3's publish_time is 5 ms late
///   (`osi.message.publish-time`);
/// - frame 5's publish_time is 1 ns early (`osi.message.time-rounding`);
/// - frame 7 has no timestamp (`osi.message.timestamp`);
/// - frames 8 and 9 are stored swapped, so a log_time goes backwards
///   (`osi.message.order`).
pub(crate) fn broken() -> Vec<u8> {
    let build = || -> mcapfile::Result<Vec<u8>> {
        let mut w = plain_writer()?;
        let desc = descriptor_set();
        let gt_schema = w.add_schema("osi3.GroundTruth", "protobuf", &desc)?;
        let hvd_schema = w.add_schema("osi3.HostVehicleData", "protobuf", &desc)?;
        let gt = w.add_channel(
            gt_schema,
            "ground_truth",
            "protobuf",
            &map(&[
                ("net.asam.osi.trace.channel.osi_version", OSI_VERSION),
                (
                    "net.asam.osi.trace.channel.protobuf_version",
                    PROTOBUF_VERSION,
                ),
                ("net.asam.osi.trace.channel.description", "ground truth"),
            ]),
        )?;
        let hvd = w.add_channel(
            hvd_schema,
            "host",
            "protobuf",
            &map(&[
                (
                    "net.asam.osi.trace.channel.protobuf_version",
                    PROTOBUF_VERSION,
                ),
                (
                    "net.asam.osi.trace.channel.description",
                    "host vehicle data",
                ),
            ]),
        )?;
        w.write_metadata(
            "net.asam.osi.trace",
            &map(&[
                ("version", OSI_VERSION),
                ("min_osi_version", OSI_VERSION),
                ("max_osi_version", OSI_VERSION),
                ("min_protobuf_version", PROTOBUF_VERSION),
                ("zero_time", "2024-01-01T00:00:00Z"),
                ("creation_time", "2024-01-01T00:00:00Z"),
                ("description", "a trace with known defects"),
                ("authors", "The robolog developers"),
                ("data_sources", "synthetic"),
            ]),
        )?;
        for i in [0, 1, 2, 3, 4, 5, 6, 7, 9, 8] {
            let ns = frame_ns(i);
            let (publish, data) = match i {
                3 => (ns + 5_000_000, ground_truth(i, Some(ns))),
                5 => (ns - 1, ground_truth(i, Some(ns))),
                7 => (ns, ground_truth(i, None)),
                _ => (ns, ground_truth(i, Some(ns))),
            };
            w.write_message(gt, i as u32 + 1, ns, publish, &data)?;
            w.write_message(hvd, i as u32 + 1, ns, ns, &host_vehicle_data(ns))?;
        }
        w.finish()
    };
    build().expect("writing an OSI fixture in memory cannot fail")
}

#[test]
fn deterministic() {
    assert_eq!(fixtures(), fixtures());
}

#[test]
fn clean_fixtures_validate() {
    for (name, bytes) in fixtures() {
        if !name.ends_with(".mcap") || name.starts_with("broken") {
            continue;
        }
        let r = osi_mcap::validate(
            &bytes,
            &ValidateOptions {
                file_name: Some(name.into()),
                ..Default::default()
            },
        );
        assert!(r.passed(), "{name}: {:#?}", r.findings);
        assert_eq!(r.warnings, 0, "{name}: {:#?}", r.findings);
        if name.contains("draft") {
            assert_eq!(r.profile, Profile::Draft);
        }
    }
    let r = osi_mcap::validate(&broken(), &ValidateOptions::default());
    assert!(!r.passed());
    assert!(r.has(rule::TRACE_REQUIRED));
}

#[test]
fn committed_files_are_what_the_writer_makes() {
    robolog_testkit::fixtures_current("osi", &fixtures());
}
