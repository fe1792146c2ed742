//! The minimal file of spec 8.1, read and written.

mod common;

use std::io::Cursor;

use common::SPEC_EXAMPLE;
use logcore::{Clock, LogReader, MessageFilter, Timestamp, Value};
use vellog::{MessageData, ROBOT_POSE, RobotPose, SizeConvention, VelLog, Writer};

fn pose() -> RobotPose {
    RobotPose {
        orientation: [1.0, 0.0, 0.0, 0.0],
        acceleration: [0.0, 0.0, 9.81],
    }
}

#[test]
fn reads_the_spec_example() {
    let log = VelLog::new(&SPEC_EXAMPLE).unwrap();
    assert_eq!((log.header().major, log.header().minor), (1, 1));
    assert_eq!(log.index().len(), 1);
    assert_eq!(log.index().get(0), Some(0x14));
    assert_eq!(log.first_message_offset(), 0x14);
    assert_eq!(log.size_convention(), SizeConvention::IncludesHeader);
    assert!(log.index_check().usable);

    let recs: Vec<_> = log.records().collect::<Result<_, _>>().unwrap();
    assert_eq!(recs.len(), 1);
    let r = recs[0];
    assert_eq!(r.offset, 0x14);
    assert_eq!(r.size, 0x31);
    assert_eq!(r.marker, 0x49);
    assert_eq!(r.type_id, ROBOT_POSE);
    assert_eq!(r.version, 100);
    assert_eq!(r.timestamp_ms, 1000.0);
    assert_eq!(r.payload.len(), 28);
    assert_eq!(r.end(), 69);
    assert_eq!(r.decode().unwrap(), MessageData::RobotPose(pose()));
}

#[test]
fn spec_example_through_logreader() {
    let log = VelLog::new(&SPEC_EXAMPLE).unwrap();
    let s = log.summary().unwrap();
    assert_eq!(s.version, "1.1");
    assert_eq!(s.message_count, 1);
    assert_eq!(s.time_model.clock, Clock::RecordingStart);
    assert_eq!(s.time_model.anchor, None);
    assert_eq!(s.start, Some(Timestamp::from_nanos(1_000_000_000)));
    assert_eq!(s.end, s.start);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.channels.len(), 1);
    let ch = &s.channels[0].info;
    assert_eq!(ch.topic, "RobotPoseM");
    assert_eq!(ch.type_name, "RobotPoseM");
    assert_eq!(ch.message_encoding, "vel");
    assert_eq!(ch.metadata["type_id"], "0x0001e342");
    assert_eq!(ch.metadata["version"], "100");
    assert_eq!(s.metadata["size_convention"].chars().next(), Some('a'));
    assert_eq!(s.metadata["index_entries"], "1");
    assert_eq!(s.metadata["index_valid"], "true");
    assert_eq!(s.metadata["terminator"], "none");

    let msgs: Vec<_> = log
        .messages(&MessageFilter::all())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0].offset, Some(0x14));
    let v = log.decode(&msgs[0]).unwrap();
    assert_eq!(
        v.get("acceleration"),
        Some(&Value::Array(vec![
            Value::F32(0.0),
            Value::F32(0.0),
            Value::F32(9.81)
        ]))
    );
    assert_eq!(
        serde_json::to_string(&v).unwrap(),
        r#"{"orientation":[1.0,0.0,0.0,0.0],"acceleration":[0.0,0.0,9.81]}"#
    );
}

#[test]
fn writer_produces_the_spec_example() {
    let mut w = Writer::new(Cursor::new(Vec::new())).unwrap();
    w.write(1000.0, &MessageData::RobotPose(pose())).unwrap();
    let bytes = w.into_inner().unwrap().into_inner();
    assert_eq!(bytes, SPEC_EXAMPLE);
}

#[test]
fn writer_before_finish_leaves_a_readable_file() {
    let mut bytes = Vec::new();
    let mut w = Writer::new(Cursor::new(&mut bytes)).unwrap();
    w.write(1000.0, &MessageData::RobotPose(pose())).unwrap();
    w.write(2500.0, &MessageData::RobotPose(pose())).unwrap();
    let written = w.len();
    // An interrupted writer: dropped without `finish`.
    drop(w);
    assert_eq!(bytes.len() as u64, written);
    let log = VelLog::new(&bytes).unwrap();
    assert_eq!(log.index().len(), 0);
    let times: Vec<f64> = log.records().map(|r| r.unwrap().timestamp_ms).collect();
    assert_eq!(times, [1000.0, 2500.0]);
    assert!(!log.index_check().usable);
}

#[test]
fn reader_and_writer_can_cross_threads() {
    fn check<T: Send + Sync>() {}
    check::<VelLog<'static>>();
    check::<Writer<Cursor<Vec<u8>>>>();
    check::<vellog::Error>();
    check::<vellog::Registry>();
}
