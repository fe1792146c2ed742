//! `Limits::max_nesting` through the facade: `OpenOptions::limits` hands it
//! to the format readers (bag, ULog) and to the registry's decoders (MCAP
//! channels of ROS 1 and ROS 2 messages).
#![cfg(all(
    feature = "mcap",
    feature = "rosbag",
    feature = "ros2",
    feature = "ulog"
))]

use std::collections::BTreeMap;
use std::io::Cursor;

use logcore::{LogReader, MessageFilter, Value};
use robolog::{Limits, Registry};

/// How the errors name the limit `n`.
fn limit_text(n: usize) -> String {
    format!(
        "at most {n} levels deep (the reader's limit; raise it with `--max-nesting` or \
         `Limits::max_nesting`)"
    )
}

/// A ROS 1 `.msg` definition `levels` deep ending in `int32 leaf`.
fn ros1_chain(levels: usize) -> String {
    let mut text = String::new();
    for i in 0..levels {
        if i > 0 {
            text.push_str(&format!("{}\nMSG: deep/T{i}\n", "=".repeat(80)));
        }
        if i + 1 < levels {
            text.push_str(&format!("deep/T{} next\n", i + 1));
        } else {
            text.push_str("int32 leaf\n");
        }
    }
    text
}

/// A ROS 2 `.msg` definition `levels` deep ending in `int32 leaf`.
fn ros2_chain(levels: usize) -> String {
    ros1_chain(levels)
}

/// An MCAP file with one channel per `(encoding, schema encoding,
/// definition, payload)`.
fn mcap(channels: &[(&str, &str, &str, Vec<u8>)]) -> Vec<u8> {
    let mut w = mcapfile::Writer::new(Vec::new(), mcapfile::WriteOptions::default()).unwrap();
    for (i, (encoding, schema_encoding, text, payload)) in channels.iter().enumerate() {
        let s = w
            .add_schema("deep/T0", schema_encoding, text.as_bytes())
            .unwrap();
        let ch = w
            .add_channel(s, &format!("/c{i}"), encoding, &BTreeMap::new())
            .unwrap();
        w.write_message(ch, 0, 1, 1, payload).unwrap();
    }
    w.finish().unwrap()
}

/// The leaf of a decoded chain `levels` deep.
fn leaf(mut v: Value, levels: usize) -> Value {
    for _ in 1..levels {
        v = v.get("next").unwrap().clone();
    }
    v.get("leaf").unwrap().clone()
}

/// Reads and decodes every message of `log`, in order.
fn decode_all(log: &robolog::Log<'_>) -> Vec<Result<Value, String>> {
    log.messages(&MessageFilter::all())
        .unwrap()
        .map(|m| m.and_then(|m| log.decode(&m)).map_err(|e| e.to_string()))
        .collect()
}

#[test]
fn mcap_channels_decode_with_the_limits_the_log_was_opened_with() {
    let mut cdr = vec![0, 1, 0, 0];
    cdr.extend(7i32.to_le_bytes());
    let file = mcap(&[
        (
            "ros1",
            "ros1msg",
            &ros1_chain(70),
            7i32.to_le_bytes().to_vec(),
        ),
        ("cdr", "ros2msg", &ros2_chain(70), cdr),
    ]);
    let log = robolog::open_bytes(&file).unwrap();
    assert_eq!(log.limits(), Limits::default());
    for r in decode_all(&log) {
        let e = r.unwrap_err();
        assert!(e.contains(&limit_text(64)), "{e}");
    }
    let raised = Limits::default().with_max_nesting(100);
    let log = robolog::OpenOptions::new()
        .limits(raised)
        .open_bytes(&file)
        .unwrap();
    assert_eq!(log.limits(), raised);
    assert_eq!(log.registry().limits(), raised);
    for r in decode_all(&log) {
        assert_eq!(leaf(r.unwrap(), 70), Value::I64(7));
    }
    // A registry given later applies its own limits.
    let log = robolog::OpenOptions::new()
        .limits(raised)
        .open_bytes(&file)
        .unwrap()
        .with_registry(Registry::default());
    assert!(decode_all(&log).iter().all(Result::is_err));
}

#[test]
fn a_lowered_limit_holds_at_its_boundary_through_the_facade() {
    let lowered = Limits::default().with_max_nesting(5);
    let file = mcap(&[
        (
            "ros1",
            "ros1msg",
            &ros1_chain(5),
            7i32.to_le_bytes().to_vec(),
        ),
        (
            "ros1",
            "ros1msg",
            &ros1_chain(6),
            7i32.to_le_bytes().to_vec(),
        ),
    ]);
    let log = robolog::OpenOptions::new()
        .limits(lowered)
        .open_bytes(&file)
        .unwrap();
    let got = decode_all(&log);
    assert_eq!(leaf(got[0].clone().unwrap(), 5), Value::I64(7));
    let e = got[1].clone().unwrap_err();
    assert!(e.contains(&limit_text(5)), "{e}");
}

#[test]
fn bags_apply_the_limits_of_the_log() {
    let text = ros1_chain(70);
    let mut w =
        rosbag12::Writer::new(Cursor::new(Vec::new()), rosbag12::WriterOptions::default()).unwrap();
    let conn = rosbag12::Connection::new(0, "/deep", "deep/T0", "*", &text);
    let id = w.add_connection(conn).unwrap();
    w.write(
        id,
        rosbag12::RosTime { sec: 1, nsec: 0 },
        &7i32.to_le_bytes(),
    )
    .unwrap();
    w.finish().unwrap();
    let bag = w.into_inner().into_inner();
    let log = robolog::open_bytes(&bag).unwrap();
    let e = decode_all(&log).remove(0).unwrap_err();
    assert!(e.contains(&limit_text(64)), "{e}");
    let log = robolog::OpenOptions::new()
        .limits(Limits::default().with_max_nesting(70))
        .open_bytes(&bag)
        .unwrap();
    assert_eq!(leaf(decode_all(&log).remove(0).unwrap(), 70), Value::I64(7));
}

#[test]
fn ulog_formats_apply_the_limits_of_the_log() {
    let levels = 40;
    let mut f = ulogfile::MAGIC.to_vec();
    f.push(1);
    f.extend_from_slice(&0u64.to_le_bytes());
    for i in 0..levels {
        let head = if i == 0 { "uint64_t timestamp;" } else { "" };
        let tail = if i + 1 < levels {
            format!("t{} next;", i + 1)
        } else {
            "int32_t leaf;".to_string()
        };
        let text = format!("t{i}:{head}{tail}");
        f.extend(ulogfile::write::encode_message(b'F', text.as_bytes()).unwrap());
    }
    f.extend(ulogfile::write::encode_message(b'A', &[0, 1, 0, b't', b'0']).unwrap());
    let mut d = vec![1, 0];
    d.extend_from_slice(&5u64.to_le_bytes());
    d.extend_from_slice(&7i32.to_le_bytes());
    f.extend(ulogfile::write::encode_message(b'D', &d).unwrap());
    let log = robolog::open_bytes(&f).unwrap();
    let e = decode_all(&log).remove(0).unwrap_err();
    assert!(
        e.contains(&format!("formats nested {}", limit_text(32))),
        "{e}"
    );
    let log = robolog::OpenOptions::new()
        .limits(Limits::default().with_max_nesting(40))
        .open_bytes(&f)
        .unwrap();
    let got = decode_all(&log);
    assert_eq!(got.len(), 1);
    assert_eq!(leaf(got[0].clone().unwrap(), levels), Value::I64(7));
}
