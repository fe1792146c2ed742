//! The declared types of the channels ([`LogReader::value_type`]) against
//! the values their messages decode to: every message of every channel of
//! a log with every message type, of the test files (`testdata/vellog`)
//! and of a corpus directory when there is one (`$ROBOLOG_CORPUS/vellog`
//! or `../shared/corpus/vellog`); and the exact types of message types.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use logcore::{ChannelId, LogReader, MessageFilter, ReadMode, Value, ValueType};
use vellog::{GpsData, LaserRange2DData, Registry, TypedMessage, VelLog, WriterOptions};

/// Checks every message of every channel of `log`; returns how many
/// messages were checked.
fn check(log: &VelLog<'_>, what: &str) -> usize {
    let mut checked = 0;
    let types: Vec<(ChannelId, Option<ValueType>)> = log
        .channels()
        .unwrap()
        .iter()
        .map(|c| (c.id, log.value_type(c.id).unwrap()))
        .collect();
    let filter = MessageFilter {
        mode: ReadMode::Lenient,
        ..MessageFilter::all()
    };
    for m in log.messages(&filter).unwrap() {
        let Ok(m) = m else { continue };
        let Ok(v) = log.decode(&m) else { continue };
        let (_, t) = types.iter().find(|(id, _)| *id == m.channel).unwrap();
        let t = t
            .as_ref()
            .unwrap_or_else(|| panic!("{what}: no type for channel {}", m.channel));
        if let Err(e) = t.admits(&v) {
            panic!(
                "{what}: channel {} message at offset {:?}: {e}",
                m.channel, m.offset
            );
        }
        checked += 1;
    }
    checked
}

fn vel_files(dir: &Path) -> Vec<PathBuf> {
    assert!(dir.is_dir(), "{} is no folder", dir.display());
    robolog_testkit::files_with_ext(dir, &["vel"])
}

#[test]
fn every_message_type_decodes_to_its_type() {
    let (file, expected) = sample_file(WriterOptions::default());
    let log = VelLog::new(&file).unwrap();
    assert_eq!(check(&log, "sample"), expected.len());
    // The unknown type is kept raw, as bytes.
    let imu = log
        .channels()
        .unwrap()
        .into_iter()
        .find(|c| c.topic.starts_with("unknown_"))
        .unwrap();
    assert_eq!(log.value_type(imu.id).unwrap(), Some(ValueType::Bytes));
    assert!(log.value_type(ChannelId(999)).is_err());
}

#[test]
fn test_files_decode_to_their_types() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/vellog");
    let mut files = vel_files(&dir);
    assert_eq!(files.len(), 4);
    if let Some(corpus) = robolog_testkit::corpus("vellog") {
        files.extend(vel_files(&corpus));
    }
    let mut total = 0;
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let log = VelLog::new(&bytes).unwrap();
        total += check(&log, &f.display().to_string());
    }
    assert!(total > 0);
}

#[test]
fn message_types_have_their_exact_types() {
    use ValueType::{F32, F64, I32};
    assert_eq!(
        GpsData::value_type(),
        ValueType::record([
            ("hour", I32),
            ("minute", I32),
            ("second", I32),
            ("warning", I32),
            ("latitude", F64),
            ("longitude", F64),
            ("speed_kmh", F32),
            ("course", F32),
            ("day", I32),
            ("month", I32),
            ("year", I32),
            ("quality", I32),
            ("satellites", I32),
            ("hdop", F32),
            ("height", F32),
            ("geoid_height", F32),
            ("vdop", F32),
            ("pdop", F32),
        ])
    );
    assert_eq!(
        gps(0).to_value().get("year"),
        Some(&Value::I64(2009)),
        "the fixture's GPS year"
    );
    assert_eq!(GpsData::value_type().admits(&gps(0).to_value()), Ok(()));
    let reg = Registry::default();
    assert_eq!(
        reg.value_type(vellog::LASER_RANGE_2D_DATA, 101),
        Some(LaserRange2DData::value_type())
    );
    assert_eq!(
        reg.value_type(vellog::VELODYNE_RAW_DATA, 100),
        Some(ValueType::record([
            ("packet_count", ValueType::U32),
            (
                "packets",
                ValueType::list(ValueType::fixed(ValueType::U8, 1206))
            ),
        ]))
    );
    // A version the registry does not know decodes raw.
    assert_eq!(
        reg.value_type(vellog::LASER_RANGE_2D_DATA, 100),
        Some(ValueType::Bytes)
    );
}

#[test]
fn user_decoders_declare_their_type_or_none() {
    let mut reg = Registry::default();
    let typed = reg
        .register_typed("CountM", 1, ValueType::U32, |p, _| {
            Ok(Value::U64(p.len() as u64))
        })
        .unwrap();
    let untyped = reg
        .register("OtherM", 1, |p, _| Ok(Value::U64(p.len() as u64)))
        .unwrap();
    assert_eq!(reg.value_type(typed, 1), Some(ValueType::U32));
    assert_eq!(reg.value_type(untyped, 1), None);
    assert_eq!(reg.value_type(typed, 2), Some(ValueType::Bytes));
}
