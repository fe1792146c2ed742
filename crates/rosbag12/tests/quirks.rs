//! The real-world quirks of spec 2.6–2.11 and 3.3–3.4, on hand-built bytes
//! and on patched writer output.

mod common;

use std::io::Cursor;

use common::*;
use logcore::{LogReader, MessageFilter, Value};
use rosbag12::record::{encode_header, encode_record};
use rosbag12::{Bag, Compression, Connection, IndexSource, RosTime, Writer, WriterOptions};

fn t(sec: u32) -> RosTime {
    RosTime { sec, nsec: 0 }
}

fn v12_message(topic: &str, ty: &str, md5: &str, time: RosTime, data: &[u8]) -> Vec<u8> {
    encode_record(
        &[
            ("md5", md5.as_bytes()),
            ("nsec", &time.nsec.to_le_bytes()),
            ("op", &[2]),
            ("sec", &time.sec.to_le_bytes()),
            ("topic", topic.as_bytes()),
            ("type", ty.as_bytes()),
        ],
        data,
    )
}

fn v12_definition(topic: &str, ty: &str, md5: &str, def: &str) -> Vec<u8> {
    encode_record(
        &[
            ("def", def.as_bytes()),
            ("md5", md5.as_bytes()),
            ("op", &[1]),
            ("topic", topic.as_bytes()),
            ("type", ty.as_bytes()),
        ],
        &[],
    )
}

/// Spec 3.4 (a): a 1.2 file from the Python writer of 2010: no header, no
/// index, one definition per *type*; `/b` borrows the definition of `/a`.
#[test]
fn unindexed_1_2_without_header_borrows_definitions() {
    let mut bag = b"#ROSRECORD V1.2\n".to_vec();
    bag.extend(v12_definition(
        "/a",
        "std_msgs/String",
        STRING_MD5,
        STRING_DEF,
    ));
    bag.extend(v12_message(
        "/a",
        "std_msgs/String",
        STRING_MD5,
        t(2),
        &string_msg("x"),
    ));
    bag.extend(v12_message(
        "/b",
        "std_msgs/String",
        STRING_MD5,
        t(1),
        &string_msg("y"),
    ));
    let b = Bag::new(&bag).unwrap();
    assert_eq!(b.index_source(), IndexSource::Scanned);
    assert!(b.header().is_none());
    assert_eq!(b.connections().len(), 2);
    assert_eq!(b.connections()[1].message_definition, STRING_DEF);
    let values: Vec<Value> = b
        .messages(&MessageFilter::all())
        .map(|m| {
            let m = m.unwrap();
            b.decode(m.conn, &m.data).unwrap()
        })
        .collect();
    // Time order: /b at 1 s comes first.
    assert_eq!(values[0].get("data"), Some(&Value::String("y".into())));
    assert_eq!(values[1].get("data"), Some(&Value::String("x".into())));
    assert!(b.warnings().is_empty());
}

/// Spec 2.6: early 2.0 writers stated data_len = 20 * count in index data
/// records. Readers must use 12 * count; with the stored index and when
/// scanning.
#[test]
fn index_data_with_the_wrong_length_is_read() {
    let (mut bytes, written) = write_bag(small_chunks(Compression::None), 40);
    let bag = Bag::new(&bytes).unwrap();
    let mut patched = 0;
    for info in bag.chunk_infos().to_vec() {
        let mut at = info.chunk_pos as usize;
        at += 8
            + u32_at(&bytes, at) as usize
            + u32_at(&bytes, at + 4 + u32_at(&bytes, at) as usize) as usize;
        for _ in &info.counts {
            let h = u32_at(&bytes, at) as usize;
            let d = at + 4 + h;
            let n = u32_at(&bytes, d) as usize / 12;
            bytes[d..d + 4].copy_from_slice(&((n * 20) as u32).to_le_bytes());
            at = d + 4 + n * 12;
            patched += 1;
        }
    }
    assert!(patched > 10);
    let again = Bag::new(&bytes).unwrap();
    assert_eq!(again.index_source(), IndexSource::Stored);
    assert_eq!(read_all(&bytes), time_ordered(written.clone()));
    let times = again.message_times().unwrap();
    assert_eq!(times[&0].len(), 40);
    // Scanning (index section cut off) frames the records the same way.
    let index_pos = again.header().unwrap().index_pos as usize;
    assert_eq!(read_all(&bytes[..index_pos]), time_ordered(written));
}

/// Spec 2.7: chunks out of time order, and chunks whose time ranges
/// overlap, still give one time-ordered stream.
#[test]
fn unsorted_and_overlapping_chunks_merge_in_time_order() {
    let options = WriterOptions {
        chunk_threshold: 1,
        ..WriterOptions::default()
    };
    let mut w = Writer::new(Cursor::new(Vec::new()), options).unwrap();
    let c = w
        .add_connection(Connection::new(
            0,
            "/s",
            "std_msgs/String",
            STRING_MD5,
            STRING_DEF,
        ))
        .unwrap();
    // With threshold 1, every message closes its chunk: write chunks of
    // one message, times 30, 10, 20, and then a pair that overlaps.
    let order = [30u32, 10, 20];
    for s in order {
        w.write(c, t(s), &string_msg(&s.to_string())).unwrap();
    }
    w.finish().unwrap();
    let bytes = w.into_inner().into_inner();
    let bag = Bag::new(&bytes).unwrap();
    assert_eq!(bag.chunk_infos().len(), 3);
    let times: Vec<u32> = bag
        .messages(&MessageFilter::all())
        .map(|m| m.unwrap().time.sec)
        .collect();
    assert_eq!(times, vec![10, 20, 30]);
    assert_eq!(bag.time_range(), Some((t(10), t(30))));

    // Overlapping chunks: [1, 5] and [2, 3] (several messages per chunk).
    let options = WriterOptions {
        // Connection record (154 bytes) + one message (51) stays below,
        // + two messages exceeds it: chunks [1, 5] and [2, 3].
        chunk_threshold: 230,
        ..WriterOptions::default()
    };
    let mut w = Writer::new(Cursor::new(Vec::new()), options).unwrap();
    let c = w
        .add_connection(Connection::new(
            0,
            "/s",
            "std_msgs/String",
            STRING_MD5,
            STRING_DEF,
        ))
        .unwrap();
    for s in [1u32, 5, 2, 3] {
        w.write(c, t(s), &string_msg("x")).unwrap();
    }
    w.finish().unwrap();
    let bytes = w.into_inner().into_inner();
    let bag = Bag::new(&bytes).unwrap();
    let ranges: Vec<(u32, u32)> = bag
        .chunk_infos()
        .iter()
        .map(|c| (c.start_time.sec, c.end_time.sec))
        .collect();
    assert_eq!(ranges, vec![(1, 5), (2, 3)]);
    let times: Vec<u32> = bag
        .messages(&MessageFilter::all())
        .map(|m| m.unwrap().time.sec)
        .collect();
    assert_eq!(times, vec![1, 2, 3, 5]);
}

/// Spec 2.11: a 2.x bag with a higher minor version and an unknown record
/// kind in its index section is read, with a warning.
#[test]
fn future_minor_version_is_read_with_a_warning() {
    let (bytes, written) = write_bag(WriterOptions::default(), 5);
    let bag = Bag::new(&bytes).unwrap();
    let index_pos = bag.header().unwrap().index_pos as usize;
    let unknown = encode_record(&[("op", &[0x09]), ("x", b"y")], b"future");
    let mut future = b"#ROSBAG V2.1\n".to_vec();
    future.extend(&bytes[13..index_pos]);
    future.extend(&unknown);
    future.extend(&bytes[index_pos..]);
    let b = Bag::new(&future).unwrap();
    assert_eq!(b.index_source(), IndexSource::Stored);
    assert_eq!(b.version().to_string(), "2.1");
    assert!(b.warnings()[0].to_string().contains("version 2.1"));
    assert_eq!(read_all(&future), time_ordered(written));
}

/// 2010-era definitions use `roslib/Header`; bare `Header` resolves to it.
#[test]
fn roslib_header_definitions_decode() {
    let def = "Header header\nfloat32 range\n\
        ================================================================================\n\
        MSG: roslib/Header\nuint32 seq\ntime stamp\nstring frame_id\n";
    let md5 = rosbag12::MessageType::parse("sensor_msgs/Range", def)
        .unwrap()
        .md5sum;
    let mut w = Writer::new(Cursor::new(Vec::new()), WriterOptions::v1_2()).unwrap();
    let c = w
        .add_connection(Connection::new(0, "/range", "sensor_msgs/Range", &md5, def))
        .unwrap();
    let mut data = 7u32.to_le_bytes().to_vec();
    data.extend(t(3).to_le_bytes());
    data.extend(string_msg("laser"));
    data.extend(1.5f32.to_le_bytes());
    w.write(c, t(3), &data).unwrap();
    w.finish().unwrap();
    let bytes = w.into_inner().into_inner();
    let bag = Bag::new(&bytes).unwrap();
    let m = LogReader::messages(&bag, &MessageFilter::all())
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let v = LogReader::decode(&bag, &m).unwrap();
    assert_eq!(v.get("range"), Some(&Value::F32(1.5)));
    assert_eq!(
        v.get("header").and_then(|h| h.get("frame_id")),
        Some(&Value::String("laser".into()))
    );
    let t = bag.message_type(0).unwrap();
    assert_eq!(t.defs[2 - 1].name, "roslib/Header");
}

/// A connection header's unknown fields survive reading and rewriting.
#[test]
fn unknown_connection_fields_round_trip() {
    let mut c = Connection::new(0, "/s", "std_msgs/String", STRING_MD5, STRING_DEF);
    c.header.push(("x_custom".into(), b"\0binary=\n".to_vec()));
    let mut w = Writer::new(Cursor::new(Vec::new()), WriterOptions::default()).unwrap();
    w.add_connection(c.clone()).unwrap();
    w.write(0, t(1), &string_msg("a")).unwrap();
    w.finish().unwrap();
    let bytes = w.into_inner().into_inner();
    let bag = Bag::new(&bytes).unwrap();
    assert_eq!(
        bag.connections()[0].field("x_custom"),
        Some(&b"\0binary=\n"[..])
    );
    let (fixed, _) = rosbag12::reindex(&bytes, Cursor::new(Vec::new())).unwrap();
    let fixed = fixed.into_inner();
    let again = Bag::new(&fixed).unwrap();
    assert_eq!(again.connections()[0].header, c.header);
    // The raw header encoding is the spec's field framing.
    assert_eq!(encode_header(&[("a", b"b")]), b"\x03\x00\x00\x00a=b");
}

/// A stored md5 that does not match the definition is reported, and the
/// message still decodes from the definition.
#[test]
fn stale_md5_is_reported_not_fatal() {
    let mut w = Writer::new(Cursor::new(Vec::new()), WriterOptions::default()).unwrap();
    w.add_connection(Connection::new(
        0,
        "/s",
        "std_msgs/String",
        "0123456789abcdef0123456789abcdef",
        STRING_DEF,
    ))
    .unwrap();
    w.write(0, t(1), &string_msg("a")).unwrap();
    w.finish().unwrap();
    let bytes = w.into_inner().into_inner();
    let bag = Bag::new(&bytes).unwrap();
    let ty = bag.message_type(0).unwrap();
    assert_eq!(ty.md5sum, STRING_MD5);
    assert_eq!(
        ty.stored_md5_mismatch.as_deref(),
        Some("0123456789abcdef0123456789abcdef")
    );
    assert!(bag.decode(0, &string_msg("a")).is_ok());
}

/// Spec 3.3, both variants in one indexed 1.2 file: `/a`'s first index
/// entry points at its definition record, `/b`'s (same type, no definition
/// of its own) at its data record; `/b` borrows `/a`'s definition.
#[test]
fn indexed_1_2_first_entries_point_at_definition_or_data() {
    let mut body = Vec::new();
    let start = 16 + 4104;
    let def_a = start;
    body.extend(v12_definition(
        "/a",
        "std_msgs/String",
        STRING_MD5,
        STRING_DEF,
    ));
    body.extend(v12_message(
        "/a",
        "std_msgs/String",
        STRING_MD5,
        t(1),
        &string_msg("a1"),
    ));
    let data_b = start + body.len();
    body.extend(v12_message(
        "/b",
        "std_msgs/String",
        STRING_MD5,
        t(2),
        &string_msg("b1"),
    ));
    let data_a2 = start + body.len();
    body.extend(v12_message(
        "/a",
        "std_msgs/String",
        STRING_MD5,
        t(3),
        &string_msg("a2"),
    ));
    let index_pos = (start + body.len()) as u64;
    let index = |topic: &str, entries: &[(u32, usize)]| {
        let mut d = Vec::new();
        for &(sec, pos) in entries {
            d.extend(t(sec).to_le_bytes());
            d.extend((pos as u64).to_le_bytes());
        }
        encode_record(
            &[
                ("count", &(entries.len() as u32).to_le_bytes()),
                ("op", &[4]),
                ("topic", topic.as_bytes()),
                ("type", b"std_msgs/String"),
                ("ver", &0u32.to_le_bytes()),
            ],
            &d,
        )
    };
    let fields: [(&str, &[u8]); 2] = [("index_pos", &index_pos.to_le_bytes()), ("op", &[3])];
    let header_len = encode_header(&fields).len();
    let mut bag = b"#ROSRECORD V1.2\n".to_vec();
    bag.extend(encode_record(&fields, &vec![b' '; 4096 - header_len]));
    assert_eq!(bag.len(), start);
    bag.extend(body);
    bag.extend(index("/a", &[(1, def_a), (3, data_a2)]));
    bag.extend(index("/b", &[(2, data_b)]));

    let b = Bag::new(&bag).unwrap();
    assert_eq!(b.index_source(), IndexSource::Stored, "{:?}", b.warnings());
    assert_eq!(b.connections()[1].topic, "/b");
    assert_eq!(b.connections()[1].message_definition, STRING_DEF);
    let values: Vec<(String, Value)> = b
        .messages(&MessageFilter::all())
        .map(|m| {
            let m = m.unwrap();
            (
                b.connection(m.conn).unwrap().topic.clone(),
                b.decode(m.conn, &m.data)
                    .unwrap()
                    .get("data")
                    .unwrap()
                    .clone(),
            )
        })
        .collect();
    let want = [("/a", "a1"), ("/b", "b1"), ("/a", "a2")];
    assert_eq!(values.len(), 3);
    for ((topic, v), (wt, wv)) in values.iter().zip(want) {
        assert_eq!((topic.as_str(), v), (wt, &Value::String(wv.into())));
    }
}
