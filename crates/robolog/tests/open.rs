//! Every format opened through the facade, every message decoded, checked
//! against the format crate's own reader and against values the files
//! hold in two independent places.
#![cfg(all(
    feature = "rosbag",
    feature = "vellog",
    feature = "ulog",
    feature = "mcap",
    feature = "carla",
    feature = "protobuf"
))]

use std::collections::BTreeMap;
use std::path::PathBuf;

use logcore::{LogReader, MessageFilter, ReadMode, Value};
use robolog::{Format, LenientDecoder};

fn testdata(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(rel)
}

/// Opens `rel` through `robolog::open`, decodes every message strictly and
/// returns (messages, decoded values); the count must equal the summary's.
fn decode_all(rel: &str, format: Format) -> Vec<(u32, i64, Value)> {
    let log = robolog::open(testdata(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    assert_eq!(log.format(), format, "{rel}");
    let summary = log.summary().unwrap();
    let mut out = Vec::new();
    for msg in log
        .messages(&MessageFilter::all().mode(ReadMode::Strict))
        .unwrap()
    {
        let msg = msg.unwrap_or_else(|e| panic!("{rel}: {e}"));
        let v = log.decode(&msg).unwrap_or_else(|e| panic!("{rel}: {e}"));
        out.push((msg.channel.0, msg.log_time.as_nanos(), v));
    }
    assert_eq!(out.len() as u64, summary.message_count, "{rel}");
    assert!(!out.is_empty(), "{rel}");
    out
}

#[test]
fn bags_decode_as_the_bag_reader_does() {
    for rel in [
        "rosbag/sample.bag",
        "rosbag/sample-lz4.bag",
        "rosbag/sample-bz2.bag",
        "rosbag/sample-1.2.bag",
    ] {
        let got = decode_all(rel, Format::RosBag);
        let bytes = std::fs::read(testdata(rel)).unwrap();
        let bag = rosbag12::Bag::new(&bytes).unwrap();
        let want: Vec<(u32, i64, Value)> = bag
            .messages(&MessageFilter::all())
            .map(|m| {
                let m = m.unwrap();
                let v = bag.decode(m.conn, &m.data).unwrap();
                (m.conn, m.time.to_timestamp().as_nanos(), v)
            })
            .collect();
        assert_eq!(got, want, "{rel}");
        // Through the typed reader too.
        let log = robolog::open(testdata(rel)).unwrap();
        assert_eq!(
            log.as_bag().unwrap().connections().len(),
            bag.connections().len()
        );
        assert!(log.as_ulog().is_none());
    }
}

#[test]
fn ulog_vel_and_carla_decode_every_message() {
    for (rel, format) in [
        ("ulog/example.ulg", Format::ULog),
        ("ulog/features.ulg", Format::ULog),
        ("vellog/sensors.vel", Format::VelLog),
        ("vellog/spec-example.vel", Format::VelLog),
        ("carla/scene-0.9.10.rec", Format::CarlaRecorder),
        ("carla/scene-0.9.13.rec", Format::CarlaRecorder),
        ("carla/scene-0.10-ue5.rec", Format::CarlaRecorder),
    ] {
        let got = decode_all(rel, format);
        // The same values as the format crate's own LogReader gives.
        let bytes = std::fs::read(testdata(rel)).unwrap();
        let own: Box<dyn LogReader + '_> = match format {
            Format::ULog => Box::new(ulogfile::ULog::parse(&bytes).unwrap()),
            Format::VelLog => Box::new(vellog::VelLog::new(&bytes).unwrap()),
            _ => Box::new(carla_recorder::Recording::new(&bytes).unwrap()),
        };
        let want: Vec<(u32, i64, Value)> = own
            .messages(&MessageFilter::all())
            .unwrap()
            .map(|m| {
                let m = m.unwrap();
                (m.channel.0, m.log_time.as_nanos(), own.decode(&m).unwrap())
            })
            .collect();
        assert_eq!(got, want, "{rel}");
    }
}

#[test]
fn ulog_timestamps_agree_with_the_payload() {
    // A ULog message's log time is its own `timestamp` field (microseconds).
    let mut checked = 0;
    for rel in ["ulog/example.ulg", "ulog/features.ulg"] {
        for (_, t, v) in decode_all(rel, Format::ULog) {
            if let Some(ts) = v.get("timestamp").and_then(Value::as_i64) {
                assert_eq!(t, ts * 1000, "{rel}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 3, "{checked}");
}

#[test]
fn osi_traces_decode_through_the_protobuf_decoder() {
    for compression in ["none", "lz4", "zstd"] {
        let rel = format!("osi/20240101T000000Z_multi_380_3200_10_fixture-{compression}.mcap");
        let got = decode_all(&rel, Format::Mcap);
        let mut with_timestamp = 0;
        for (_, log_time, v) in &got {
            // The OSI timestamp inside the protobuf payload equals the MCAP
            // record's log time, which the writer took from it.
            if let Some(ts) = v.get("timestamp") {
                let secs = ts.get("seconds").and_then(Value::as_i64).unwrap_or(0);
                let nanos = ts.get("nanos").and_then(Value::as_i64).unwrap_or(0);
                assert_eq!(secs * 1_000_000_000 + nanos, *log_time, "{rel}");
                with_timestamp += 1;
            }
        }
        assert!(with_timestamp > 0, "{rel}");
    }
}

#[test]
fn json_mcap_decodes_and_binary_in_json_channels_is_kept_raw() {
    for rel in [
        "mcap/chunked-none.mcap",
        "mcap/chunked-lz4.mcap",
        "mcap/chunked-zstd.mcap",
        "mcap/unchunked.mcap",
    ] {
        decode_all(rel, Format::Mcap);
    }

    use mcapfile::{WriteOptions, Writer};
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriteOptions::default()).unwrap();
    let good = w.add_channel(0, "/good", "json", &BTreeMap::new()).unwrap();
    let bad = w.add_channel(0, "/bad", "json", &BTreeMap::new()).unwrap();
    for i in 0..5u64 {
        w.write_message(good, 0, i, i, format!("{{\"i\": {i}}}").as_bytes())
            .unwrap();
        w.write_message(bad, 0, i, i, &[0xff, i as u8]).unwrap();
    }
    let file = w.finish().unwrap().into_inner();
    let log = robolog::open_bytes(&file).unwrap();
    let mut dec = LenientDecoder::new(&log);
    let values: Vec<Value> = log
        .messages(&MessageFilter::all())
        .unwrap()
        .map(|m| dec.decode(&m.unwrap()))
        .collect();
    assert_eq!(values.len(), 10, "no message is dropped");
    assert_eq!(
        values
            .iter()
            .filter(|v| matches!(v, Value::Bytes(_)))
            .count(),
        5
    );
    assert!(values.contains(&Value::Bytes(vec![0xff, 3])));
    assert!(values.contains(&Value::record([("i", Value::U64(4))])));
    let failures = dec.into_failures();
    assert_eq!(failures.len(), 1, "one summary for the one bad channel");
    assert_eq!(failures[0].count, 5);
    assert_eq!(u64::from(failures[0].channel.0), u64::from(bad));
}

#[test]
fn ros1_messages_in_mcap_decode_like_the_bag_they_came_from() {
    use mcapfile::{WriteOptions, Writer};
    let bytes = std::fs::read(testdata("rosbag/sample.bag")).unwrap();
    let bag = rosbag12::Bag::new(&bytes).unwrap();
    // The MCAP CLI's conventions: schema encoding ros1msg with the stored
    // definition, message encoding ros1, payload bytes unchanged.
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriteOptions::default()).unwrap();
    let mut channel_of = BTreeMap::new();
    for c in bag.connections() {
        let schema = w
            .add_schema(&c.type_name, "ros1msg", c.message_definition.as_bytes())
            .unwrap();
        let ch = w
            .add_channel(schema, &c.topic, "ros1", &BTreeMap::new())
            .unwrap();
        channel_of.insert(c.id, ch);
    }
    let mut want = Vec::new();
    for m in bag.messages(&MessageFilter::all()) {
        let m = m.unwrap();
        let t = m.time.to_timestamp().as_nanos() as u64;
        w.write_message(channel_of[&m.conn], 0, t, t, &m.data)
            .unwrap();
        want.push(bag.decode(m.conn, &m.data).unwrap());
    }
    let file = w.finish().unwrap().into_inner();
    let log = robolog::open_bytes(&file).unwrap();
    let got: Vec<Value> = log
        .messages(&MessageFilter::all())
        .unwrap()
        .map(|m| log.decode(&m.unwrap()).unwrap())
        .collect();
    assert!(!want.is_empty());
    assert_eq!(got, want);
}

#[test]
fn unknown_and_wrong_formats_are_distinct_clear_errors() {
    let e = robolog::open_bytes(b"GIF89a, not a log").unwrap_err();
    assert!(matches!(e, robolog::Error::UnknownFormat { .. }), "{e}");
    assert!(e.to_string().contains("47 49 46 38"), "{e}");

    let e = robolog::OpenOptions::new()
        .format(Format::RosBag)
        .open(testdata("mcap/unchunked.mcap"))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "at byte 0: expected a ROS 1 bag, found an MCAP file"
    );

    // A recognised format in a version nobody supports.
    let e = robolog::open_bytes(b"#ROSRECORD V1.1\n\0\0\0\0").unwrap_err();
    assert!(matches!(e, robolog::Error::Unsupported { .. }), "{e}");
    assert!(
        e.to_string()
            .starts_with("at byte 0: ROS bag version 1.1 is not supported: "),
        "{e}"
    );

    // An MCAP file of a later major version is recognised as MCAP, and
    // refused as such (not as an unknown format or damage).
    let mut data = std::fs::read(testdata("mcap/unchunked.mcap")).unwrap();
    let len = data.len();
    data[5] = b'1';
    data[len - 3] = b'1';
    assert_eq!(robolog::probe(&data), Some(Format::Mcap));
    let e = robolog::open_bytes(&data).unwrap_err();
    assert!(matches!(e, robolog::Error::Unsupported { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "at byte 5: MCAP major version '1' is not supported: this reader reads major \
         version 0, the only one the MCAP specification defines"
    );
}

/// `Log::messages_releasing` of a mapped file larger than several release
/// steps gives the messages `messages` gives, bytes and all, while it
/// hands the pages behind it back; reading the file again afterwards
/// still gives the same bytes.
#[test]
fn messages_releasing_gives_the_same_messages() {
    let dir = std::env::temp_dir().join(format!("robolog-release-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.mcap");
    let mut w = mcapfile::Writer::new(
        Vec::new(),
        mcapfile::WriteOptions {
            compression: mcapfile::Compression::None,
            chunk_size: 1 << 20,
            ..Default::default()
        },
    )
    .unwrap();
    let ch = w
        .add_channel(0, "/blob", "application/octet-stream", &Default::default())
        .unwrap();
    // 3 × RELEASE_EVERY of payloads, each message's bytes its own.
    let size = 64 * 1024;
    let count = 3 * robolog::RELEASE_EVERY / size;
    for i in 0..count {
        let payload: Vec<u8> = (0..size).map(|k| (k * 7 + i * 13) as u8).collect();
        let t = 1_000 + i as u64;
        w.write_message(ch, i as u32, t, t, &payload).unwrap();
    }
    std::fs::write(&path, w.finish().unwrap()).unwrap();
    let log = robolog::open(&path).unwrap();
    let all = MessageFilter::all();
    let want: Vec<(i64, Vec<u8>)> = log
        .messages(&all)
        .unwrap()
        .map(|m| {
            let m = m.unwrap();
            (m.log_time.as_nanos(), m.payload.to_vec())
        })
        .collect();
    assert_eq!(want.len(), count);
    for _ in 0..2 {
        let got: Vec<(i64, Vec<u8>)> = log
            .messages_releasing(&all)
            .unwrap()
            .map(|m| {
                let m = m.unwrap();
                (m.log_time.as_nanos(), m.payload.to_vec())
            })
            .collect();
        assert!(got == want, "the messages differ once pages are given back");
    }
    drop(log);
    let _ = std::fs::remove_dir_all(&dir);
}
