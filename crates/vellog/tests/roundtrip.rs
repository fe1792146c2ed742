//! read(write(x)) == x for every message type, and write(read(file)) is
//! byte-identical, through the typed API and through logcore's traits.

mod common;

use std::io::Cursor;

use common::{SPEC_EXAMPLE, gps, hdl32_packet, sample_file};
use logcore::{ChannelId, ChannelInfo, LogReader, LogWriter, MessageFilter, ReadMode, Value};
use vellog::{
    EndOfRecords, Image, LaserRange2DData, MessageData, ObdData, RobotPose, VelLog,
    VelodyneRawData, Writer, WriterOptions,
};

#[test]
fn every_type_reads_back_as_written() {
    let jpeg = [0xFF, 0xD8, 9, 8, 7, 0xFF, 0xD9];
    let packets = [hdl32_packet(5), hdl32_packet(6), hdl32_packet(7)];
    let ranges: Vec<u32> = (0..1081).map(|i| 23 + i * 17).collect();
    let written = vec![
        MessageData::ObdData(ObdData {
            speed_kmh: -1,
            engine_rpm: 7000,
            unused_8: f32::MIN_POSITIVE,
            unused_12: i32::MIN,
            unused_16: i32::MAX,
            throttle_position: 99.5,
            unused_24: 42,
        }),
        MessageData::GpsData(gps(1)),
        MessageData::Image(Image {
            source_id: 2,
            is_compressed_raw: 7,
            width: 640,
            height: 480,
            data: &jpeg,
        }),
        MessageData::RobotPose(RobotPose {
            orientation: [0.0, 0.0, 0.0, 1.0],
            acceleration: [-1.0, 2.5, 9.80665],
        }),
        MessageData::VelodyneRawData(VelodyneRawData::from_packets(&packets)),
        MessageData::LaserRange2DData(LaserRange2DData {
            sensor_type: b"Hokuyo_UTM-30LX",
            sensor_name: b"left\0",
            ranges,
        }),
        MessageData::Raw {
            type_id: vellog::simple_hash(b"OdometryM"),
            version: 100,
            payload: &[1, 2, 3, 4, 5],
        },
        MessageData::Raw {
            type_id: vellog::LASER_RANGE_2D_DATA,
            version: 100,
            payload: b"undocumented v100",
        },
    ];
    let mut w = Writer::new(Cursor::new(Vec::new())).unwrap();
    for (i, m) in written.iter().enumerate() {
        w.write(10.0 * i as f64, m).unwrap();
    }
    let file = w.into_inner().unwrap().into_inner();
    let log = VelLog::new(&file).unwrap();
    let read: Vec<MessageData<'_>> = log
        .records()
        .map(|r| r.unwrap().decode().unwrap())
        .collect();
    assert_eq!(read, written);
    let times: Vec<f64> = log.records().map(|r| r.unwrap().timestamp_ms).collect();
    assert_eq!(times, [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0]);

    // Channels: one per (type, version, sensor).
    let topics: Vec<String> = log
        .channels()
        .unwrap()
        .into_iter()
        .map(|c| c.topic)
        .collect();
    assert_eq!(
        topics,
        [
            "OBDDataM",
            "GPSDataM",
            "ImageM/2",
            "RobotPoseM",
            "VelodyneRawDataM",
            "LaserRange2DDataM/left",
            "unknown_0x0001be24@v100",
            "LaserRange2DDataM@v100",
        ]
    );
    // JPEG bytes come out as bytes, untouched.
    let m = log
        .messages(&MessageFilter::all())
        .unwrap()
        .nth(2)
        .unwrap()
        .unwrap();
    let v = log.decode(&m).unwrap();
    assert_eq!(v.get("data"), Some(&Value::Bytes(jpeg.to_vec())));
    assert_eq!(v.get("is_compressed"), Some(&Value::Bool(true)));
    let m = log
        .messages(&MessageFilter::all())
        .unwrap()
        .nth(6)
        .unwrap()
        .unwrap();
    assert_eq!(log.decode(&m).unwrap(), Value::Bytes(vec![1, 2, 3, 4, 5]));
}

fn rewrite_typed(file: &[u8]) -> Vec<u8> {
    let log = VelLog::new(file).unwrap();
    let options = WriterOptions {
        terminator: matches!(log.end_of_records(), Some(EndOfRecords::Terminator { .. })),
        size_convention: log.size_convention(),
        minor_version: log.header().minor,
    };
    let mut w = Writer::with_options(Cursor::new(Vec::new()), options).unwrap();
    for rec in log.records() {
        let rec = rec.unwrap();
        // Through the typed payload, not just the raw bytes.
        w.write(rec.timestamp_ms, &rec.decode().unwrap()).unwrap();
    }
    w.into_inner().unwrap().into_inner()
}

#[test]
fn rewriting_is_byte_identical() {
    assert_eq!(rewrite_typed(&SPEC_EXAMPLE), SPEC_EXAMPLE);
    for options in [
        WriterOptions::default(),
        WriterOptions {
            terminator: true,
            ..Default::default()
        },
        WriterOptions {
            size_convention: vellog::SizeConvention::ExcludesSizeField,
            minor_version: 3,
            ..Default::default()
        },
    ] {
        let (file, _) = sample_file(options);
        assert_eq!(rewrite_typed(&file), file, "{options:?}");
    }
}

/// Copies any log through logcore's traits only.
fn rewrite_via_logcore(reader: &dyn LogReader) -> Vec<u8> {
    let mut w = Writer::new(Cursor::new(Vec::new())).unwrap();
    let summary = reader.summary().unwrap();
    let mut ids = std::collections::BTreeMap::new();
    for ch in &summary.channels {
        ids.insert(ch.info.id, w.add_channel(&ch.info).unwrap());
    }
    for m in reader.messages(&MessageFilter::all()).unwrap() {
        let mut m = m.unwrap();
        m.channel = ids[&m.channel];
        w.write_message(&m).unwrap();
    }
    LogWriter::finish(&mut w).unwrap();
    w.into_inner().unwrap().into_inner()
}

#[test]
fn rewriting_through_logcore_is_byte_identical() {
    let (file, _) = sample_file(WriterOptions::default());
    let log = VelLog::new(&file).unwrap();
    assert_eq!(rewrite_via_logcore(&log), file);
    let log = VelLog::new(&SPEC_EXAMPLE).unwrap();
    assert_eq!(rewrite_via_logcore(&log), SPEC_EXAMPLE);
}

#[test]
fn logwriter_resolves_channels() {
    let mut w = Writer::new(Cursor::new(Vec::new())).unwrap();
    let by_name = w
        .add_channel(&ChannelInfo::new(
            ChannelId(9),
            "/pose",
            "RobotPoseM",
            "vel",
        ))
        .unwrap();
    let by_meta = w
        .add_channel(
            &ChannelInfo::new(ChannelId(3), "x", "whatever", "vel")
                .with_metadata("type_id", "0x00013732")
                .with_metadata("version", "7"),
        )
        .unwrap();
    let by_unknown = w.add_channel(&ChannelInfo::new(
        ChannelId(4),
        "y",
        "unknown_0x00001234",
        "vel",
    ));
    assert!(
        by_unknown.is_err(),
        "an unknown type without a version is refused"
    );
    let by_unknown = w
        .add_channel(
            &ChannelInfo::new(ChannelId(4), "y", "unknown_0x00001234", "vel")
                .with_metadata("version", "1"),
        )
        .unwrap();
    assert_eq!(by_unknown, ChannelId(2));
    assert!(
        w.add_channel(&ChannelInfo::new(ChannelId(5), "z", "NoSuchM", "vel"))
            .is_err()
    );
    let pose = RobotPose::default();
    let payload = MessageData::RobotPose(pose).to_bytes().unwrap();
    let mut m = logcore::Message::new(
        by_name,
        logcore::Timestamp::from_nanos(1_234_567_891),
        logcore::Payload::Borrowed(&payload),
    );
    w.write_message(&m).unwrap();
    m.channel = by_meta;
    m.payload = logcore::Payload::Borrowed(b"mine");
    w.write_message(&m).unwrap();
    m.channel = ChannelId(77);
    assert!(w.write_message(&m).is_err());
    assert!(w.set_metadata("anything", "dropped").is_ok());
    let file = w.into_inner().unwrap().into_inner();
    let log = VelLog::new(&file).unwrap();
    let recs: Vec<_> = log.records().map(Result::unwrap).collect();
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0].timestamp_ms, 1234.567891);
    assert_eq!((recs[1].type_id, recs[1].version), (0x13732, 7));
    let msgs: Vec<_> = log
        .messages(&MessageFilter::all().mode(ReadMode::Strict))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(msgs[0].log_time.as_nanos(), 1_234_567_891);
}

#[test]
fn writer_rejects_what_it_cannot_write() {
    let mut w = Writer::new(Cursor::new(Vec::new())).unwrap();
    assert!(w.write_raw(1, 1, f64::NAN, b"").is_err());
    assert!(w.write_raw(1, 1, 0.0, b"").is_ok());
    // A jump of a thousand years would need a gigantic index.
    assert!(w.write_raw(1, 1, 3.2e13, b"").is_err());
    w.finish().unwrap();
    assert!(w.write_raw(1, 1, 1.0, b"").is_err());
    let file = w.into_inner().unwrap().into_inner();
    let log = VelLog::new(&file).unwrap();
    assert_eq!(log.records().count(), 1);
    assert_eq!(log.index().len(), 1);
}

#[test]
fn writer_creates_files() {
    let dir = std::env::temp_dir().join(format!("vellog-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("x.vel");
    let mut w = Writer::create(&path).unwrap();
    w.write(
        1000.0,
        &MessageData::RobotPose(RobotPose {
            orientation: [1.0, 0.0, 0.0, 0.0],
            acceleration: [0.0, 0.0, 9.81],
        }),
    )
    .unwrap();
    w.finish().unwrap();
    drop(w);
    assert_eq!(std::fs::read(&path).unwrap(), SPEC_EXAMPLE);
    // An existing file is refused and left as it was.
    let again = Writer::create(&path).unwrap_err();
    assert!(again.to_string().contains("exists"), "{again}");
    assert_eq!(std::fs::read(&path).unwrap(), SPEC_EXAMPLE);
    std::fs::remove_dir_all(&dir).unwrap();
}
