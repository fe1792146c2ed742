//! The logcore view: channels per packet kind, anchored clock, filters,
//! decoding to values.

mod common;

use carla_recorder::*;
use common::*;
use logcore::{ChannelId, Clock, LogReader, MessageFilter, Timestamp};

#[test]
fn summary_counts_packets_per_kind() {
    let bytes = sample(Layout::default());
    let rec = Recording::new(&bytes).unwrap();
    let s = rec.summary().unwrap();
    assert!(s.warnings.is_empty());
    assert_eq!(s.format, logcore::Format::CarlaRecorder);
    assert_eq!(s.version, "1");
    let count = |topic: &str| {
        s.channels
            .iter()
            .find(|c| c.info.topic == topic)
            .map(|c| c.message_count)
    };
    assert_eq!(count("FrameStart"), Some(FRAMES));
    assert_eq!(count("Position"), Some(FRAMES));
    assert_eq!(count("SceneLight"), Some(1));
    assert_eq!(count("Custom139"), Some(1));
    assert_eq!(count("FrameEnd"), None, "FrameEnd carries nothing");
    assert_eq!(s.channels.len(), 24, "ids 0 and 2-23 (23), and 139");
    assert_eq!(s.metadata["frames"], "6");
    assert_eq!(s.metadata["event_add_records"], "3");
    assert_eq!(s.metadata["event_del_records"], "1");
    assert_eq!(s.metadata["last_frame_duration"], "-1");
    assert_eq!(s.metadata["map"], "Town10HD_Opt");
    assert_eq!(s.start, Some(Timestamp(0)));
    assert_eq!(s.end, Some(Timestamp(250_000_000)));
    assert_eq!(s.time_model.clock, Clock::RecordingStart);
    assert_eq!(
        s.time_model.format_date(Timestamp(250_000_000)).unwrap(),
        "2021-11-23T14:08:48.250000000Z"
    );
}

#[test]
fn messages_filter_by_channel_and_time_and_decode() {
    let bytes = sample(Layout::default());
    let rec = Recording::new(&bytes).unwrap();
    let filter = MessageFilter::all()
        .channels([ChannelId(PacketId::Position as u32)])
        .start(Timestamp(50_000_000))
        .end(Timestamp(150_000_000));
    let msgs: Vec<_> = rec.messages(&filter).unwrap().map(Result::unwrap).collect();
    assert_eq!(msgs.len(), 2);
    assert_eq!(msgs[0].sequence, Some(2));
    let v = rec.decode(&msgs[0]).unwrap();
    let json = serde_json::to_string(&v).unwrap();
    assert_eq!(
        json,
        r#"{"records":[{"id":174,"location":{"x":10800.0,"y":13300.0,"z":64.5},"rotation":{"x":0.0,"y":-0.5,"z":90.0}},{"id":175,"location":{"x":-3.25,"y":7.0,"z":0.0},"rotation":{"x":0.0,"y":0.0,"z":0.0}}]}"#
    );
    let first = rec
        .messages(&MessageFilter::all())
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let v = rec.decode(&first).unwrap();
    assert_eq!(v.get("frame"), Some(&logcore::Value::U64(1)));
    assert_eq!(
        v.get("duration").and_then(logcore::Value::as_f64),
        Some(0.05)
    );
    // Every message of every layout decodes.
    for layout in LAYOUTS {
        let bytes = sample(layout);
        let rec = Recording::new(&bytes).unwrap();
        let mut n = 0;
        for m in rec.messages(&MessageFilter::all()).unwrap() {
            rec.decode(&m.unwrap()).unwrap();
            n += 1;
        }
        assert_eq!(n as u64, rec.summary().unwrap().message_count);
    }
}

#[test]
fn timeline_follows_actors() {
    let bytes = sample(Layout::default());
    let rec = Recording::new(&bytes).unwrap();
    let tl = Timeline::build(&rec).unwrap();
    assert_eq!(tl.actors.len(), 3);
    let car = tl.actor(174).unwrap();
    assert!(car.is_hero());
    assert_eq!(car.actor_type, ActorType::Vehicle);
    assert_eq!(car.attribute("color"), Some("16,16,16"));
    let sensor = tl.actor(176).unwrap();
    assert_eq!(sensor.parent, Some(174));
    assert_eq!(sensor.actor_type, ActorType::Sensor);
    let walker = tl.actor(175).unwrap();
    assert_eq!(
        (walker.removed_frame, walker.removed_time),
        (Some(4), Some(0.15000000000000002))
    );
    assert_eq!(tl.alive_at(0.2).len(), 2);
    assert_eq!(tl.of_type(ActorType::Walker).count(), 1);
    let path = tl.trajectory(&rec, 174).unwrap();
    assert_eq!(path.len(), 6);
    assert_eq!(path[5].location.x, 11000.0);
    assert_eq!(path[5].frame, 6);
    assert!(tl.trajectory(&rec, 999).is_err());
    assert_eq!(tl.frames.at_time(0.12).unwrap().id, 3);
    assert_eq!(tl.frames.at_time(-1.0), None);
    assert_eq!(tl.frames.by_id(6).unwrap().stored_duration, -1.0);
}

#[test]
fn logcore_copy_is_byte_identical() {
    use logcore::LogWriter;
    for layout in LAYOUTS {
        let bytes = sample(layout);
        let rec = Recording::new(&bytes).unwrap();
        let s = rec.summary().unwrap();
        let mut out = Vec::new();
        let mut w = RecordingWriter::with_layout(&mut out, layout);
        w.set_metadata("map", &s.metadata["map"]).unwrap();
        w.set_metadata("date", &s.metadata["date"]).unwrap();
        for c in rec.channels().unwrap() {
            assert_eq!(w.add_channel(&c).unwrap(), c.id);
        }
        for m in rec.messages(&MessageFilter::all()).unwrap() {
            w.write_message(&m.unwrap()).unwrap();
        }
        w.finish().unwrap();
        assert_eq!(out, bytes, "{layout:?}");
    }
}

#[test]
fn logcore_writer_groups_messages_into_ticks() {
    use logcore::{LogWriter, Message, Payload};
    let mut out = Vec::new();
    let mut w = RecordingWriter::new(&mut out);
    let pt = w
        .add_channel(&logcore::ChannelInfo::new(
            ChannelId(0),
            "PlatformTime",
            "",
            "carla",
        ))
        .unwrap();
    assert!(
        w.add_channel(&logcore::ChannelInfo::new(ChannelId(0), "/tf", "", "ros1"))
            .is_err()
    );
    for (i, t) in [0, 0, 50_000_000, 100_000_000].into_iter().enumerate() {
        let payload = (i as f64).to_le_bytes();
        w.write_message(&Message::new(pt, Timestamp(t), Payload::Borrowed(&payload)))
            .unwrap();
    }
    w.finish().unwrap();
    let rec = Recording::new(&out).unwrap();
    let frames: Vec<Frame<'_>> = rec.frames().collect::<Result<_>>().unwrap();
    assert_eq!(frames.len(), 3);
    assert_eq!(frames[0].packet_count(), 2);
    assert_eq!(frames[0].packets().count(), 2);
    assert_eq!(frames[0].start.duration, 0.05);
    assert_eq!(frames[2].start.elapsed, 0.1);
    assert_eq!(frames[2].start.duration, -1.0);
    assert_eq!(rec.header().map_name(), "");
}
