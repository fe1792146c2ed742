//! [`ULogWriter`]: a log read through [`LogReader`], written back through
//! [`LogWriter`] and read again has the same channels, times and payloads.

use logcore::{
    ChannelId, ChannelInfo, LogReader, LogWriter, Message, MessageFilter, Payload, ReadMode,
    Schema, Timestamp,
};
use ulogfile::write::{example_log, feature_log};
use ulogfile::{ULog, ULogWriter};

/// A channel's topic, type, schema, multi_id and message size.
type ChannelFacts = (
    String,
    String,
    Option<std::sync::Arc<Schema>>,
    String,
    String,
);

/// Channel topic, type, schema and the metadata that survives a rewrite
/// (msg_id is the writer's to choose).
fn channels(log: &ULog<'_>) -> Vec<ChannelFacts> {
    log.channels()
        .unwrap()
        .into_iter()
        .map(|c| {
            (
                c.topic,
                c.type_name,
                c.schema,
                c.metadata["multi_id"].clone(),
                c.metadata["message_size"].clone(),
            )
        })
        .collect()
}

fn messages(log: &ULog<'_>) -> Vec<(ChannelId, Timestamp, Vec<u8>)> {
    let filter = MessageFilter::all().mode(ReadMode::Lenient);
    log.messages(&filter)
        .unwrap()
        .filter_map(Result::ok)
        .map(|m| (m.channel, m.log_time, m.payload.to_vec()))
        .collect()
}

fn rewrite(log: &ULog<'_>) -> Vec<u8> {
    let mut w = ULogWriter::new(Vec::new());
    let summary = log.summary().unwrap();
    w.set_metadata("start_time_us", &summary.metadata["start_time_us"])
        .unwrap();
    w.set_metadata("info.sys_name", "rewritten").unwrap();
    let mut ids = Vec::new();
    for c in log.channels().unwrap() {
        ids.push(w.add_channel(&c).unwrap());
    }
    let filter = MessageFilter::all().mode(ReadMode::Lenient);
    for m in log.messages(&filter).unwrap().filter_map(Result::ok) {
        let mut m = m;
        m.channel = ids[m.channel.0 as usize];
        w.write_message(&m).unwrap();
    }
    w.finish().unwrap();
    w.into_inner().unwrap()
}

#[test]
fn write_read_round_trip() {
    for (name, bytes) in [
        ("example", example_log().unwrap()),
        ("features", feature_log().unwrap()),
    ] {
        let log = ULog::parse(&bytes).unwrap();
        let again = rewrite(&log);
        let back = ULog::parse(&again).unwrap();
        assert!(
            back.warnings.is_empty() && back.truncation.is_none(),
            "{name}: {:?}",
            back.warnings
        );
        assert_eq!(channels(&back), channels(&log), "{name}");
        let (want, got) = (messages(&log), messages(&back));
        assert!(!want.is_empty(), "{name}");
        assert_eq!(got, want, "{name}");
        assert_eq!(back.header.timestamp, log.header.timestamp, "{name}");
        assert_eq!(
            back.info["sys_name"].value.as_str(),
            Some("rewritten"),
            "{name}"
        );
    }
}

#[test]
fn the_features_log_has_nested_formats_and_instances() {
    // What the round trip above covers: a multi instance and nested types.
    let bytes = feature_log().unwrap();
    let log = ULog::parse(&bytes).unwrap();
    let chans = channels(&log);
    assert!(
        chans.iter().any(|c| c.3 != "0" && c.0.ends_with(']')),
        "{chans:?}"
    );
    assert!(
        chans.iter().any(|c| c.2.as_ref().is_some_and(|s| s
            .data
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            > 1)),
        "{chans:?}"
    );
}

fn imu() -> ChannelInfo {
    let mut info = ChannelInfo::new(ChannelId(0), "imu[2]", "imu", "ulog");
    info.schema = Some(std::sync::Arc::new(Schema {
        name: "imu".into(),
        encoding: "ulog-format".into(),
        data: b"imu:uint64_t timestamp;float x;\n".to_vec(),
    }));
    info
}

fn sample(t: u64, x: f32) -> Vec<u8> {
    let mut s = t.to_le_bytes().to_vec();
    s.extend_from_slice(&x.to_le_bytes());
    s
}

#[test]
fn instance_from_the_topic_and_time_from_the_payload() {
    let mut w = ULogWriter::new(Vec::new());
    let ch = w.add_channel(&imu()).unwrap();
    let s = sample(7, 0.5);
    let at = |us| Timestamp::from_micros(us).unwrap();
    let err = w
        .write_message(&Message::new(ch, at(8), Payload::Borrowed(&s)))
        .unwrap_err();
    assert!(
        err.to_string().contains("Some(7) µs in the payload"),
        "{err}"
    );
    w.write_message(&Message::new(ch, at(7), Payload::Borrowed(&s)))
        .unwrap();
    w.finish().unwrap();
    let bytes = w.into_inner().unwrap();
    let log = ULog::parse(&bytes).unwrap();
    let sub = log.subscription("imu", 2).unwrap();
    assert_eq!(sub.column_f64("x"), Some(vec![0.5]));
    assert_eq!(log.channels().unwrap()[0].topic, "imu[2]");
}

#[test]
fn bad_channels_are_refused() {
    let mut w = ULogWriter::new(Vec::new());
    let mut other = imu();
    std::sync::Arc::make_mut(other.schema.as_mut().unwrap()).data =
        b"imu:uint64_t timestamp;double x;".to_vec();
    w.add_channel(&imu()).unwrap();
    let err = w.add_channel(&other).unwrap_err();
    assert!(
        err.to_string().contains("format imu defined twice"),
        "{err}"
    );
    let unknown = ChannelInfo::new(ChannelId(1), "gps", "gps", "ulog");
    assert!(w.add_channel(&unknown).is_err());
    let mut ros = imu();
    std::sync::Arc::make_mut(ros.schema.as_mut().unwrap()).encoding = "ros1msg".into();
    assert!(w.add_channel(&ros).is_err());
    let s = sample(1, 0.0);
    let none = Message::new(ChannelId(9), Timestamp(1000), Payload::Borrowed(&s));
    assert!(w.write_message(&none).is_err());
}
