//! Bags built in-process with the crate's writer, shared by the tests.

#![allow(dead_code, unreachable_pub)]

use std::io::Cursor;

use logcore::{Timestamp, Value};
use rosbag12::{Compression, Connection, MessageType, RosTime, Writer, WriterOptions};

/// A custom type with a header, constants, fixed and variable arrays,
/// nested messages, bytes and a duration.
pub const SAMPLE_DEF: &str = "# A test message with every shape\n\
Header header\n\
int8 SMALL=-3\n\
string NAME=\"x # y\"\n\
float64[3] vec\n\
string[] labels\n\
geometry_msgs/Point[] points\n\
uint8[] blob\n\
duration age\n\
================================================================================\n\
MSG: std_msgs/Header\n\
uint32 seq\n\
time stamp\n\
string frame_id\n\
================================================================================\n\
MSG: geometry_msgs/Point\n\
float64 x\n\
float64 y\n\
float64 z";

pub const STRING_DEF: &str = "string data";
pub const STRING_MD5: &str = "992ce8a1687cec8c8bd883ec73ca41d1";

/// One written message.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub conn: u32,
    pub time: RosTime,
    pub data: Vec<u8>,
}

fn string(out: &mut Vec<u8>, s: &str) {
    out.extend((s.len() as u32).to_le_bytes());
    out.extend(s.as_bytes());
}

/// Serializes sample number `i` and returns it with its expected value.
pub fn sample(i: u32) -> (Vec<u8>, Value) {
    let mut d = Vec::new();
    d.extend(i.to_le_bytes());
    d.extend((1000 + i).to_le_bytes());
    d.extend((i * 1000).to_le_bytes());
    string(&mut d, "base_link");
    let vec = [f64::from(i), 0.5, -2.0];
    for v in vec {
        d.extend(v.to_le_bytes());
    }
    let labels: Vec<String> = (0..i % 3).map(|k| format!("l{k}")).collect();
    d.extend((labels.len() as u32).to_le_bytes());
    for l in &labels {
        string(&mut d, l);
    }
    let n_points = i % 4;
    d.extend(n_points.to_le_bytes());
    let mut points = Vec::new();
    for p in 0..n_points {
        let xyz = [f64::from(p), f64::from(i), 1.25];
        for v in xyz {
            d.extend(v.to_le_bytes());
        }
        points.push(Value::record([
            ("x", Value::F64(xyz[0])),
            ("y", Value::F64(xyz[1])),
            ("z", Value::F64(xyz[2])),
        ]));
    }
    let blob: Vec<u8> = (0..(i % 5) as u8).collect();
    d.extend((blob.len() as u32).to_le_bytes());
    d.extend(&blob);
    d.extend((-1i32).to_le_bytes());
    d.extend(5i32.to_le_bytes());
    let value = Value::record([
        (
            "header",
            Value::record([
                ("seq", Value::U64(u64::from(i))),
                (
                    "stamp",
                    Value::Time(Timestamp::from_secs_nanos(1000 + i, i * 1000)),
                ),
                ("frame_id", Value::String("base_link".into())),
            ]),
        ),
        ("vec", Value::F64Array(vec.to_vec())),
        (
            "labels",
            Value::Array(labels.into_iter().map(Value::String).collect()),
        ),
        ("points", Value::Array(points)),
        ("blob", Value::Bytes(blob)),
        ("age", Value::Duration(-999_999_995)),
    ]);
    (d, value)
}

pub fn string_msg(s: &str) -> Vec<u8> {
    let mut d = Vec::new();
    string(&mut d, s);
    d
}

/// The connections of the sample bag: the custom type, and two
/// publishers of `/chatter` (two connections on one topic).
pub fn connections() -> Vec<Connection> {
    let md5 = MessageType::parse("robolog_test/Sample", SAMPLE_DEF)
        .unwrap()
        .md5sum;
    let sample = Connection::new(0, "/sample", "robolog_test/Sample", md5, SAMPLE_DEF);
    let mut a = Connection::new(1, "/chatter", "std_msgs/String", STRING_MD5, STRING_DEF);
    a.header.push(("callerid".into(), b"/talker_a".to_vec()));
    a.header.push(("latching".into(), b"0".to_vec()));
    a.callerid = Some("/talker_a".into());
    let mut b = Connection::new(2, "/chatter", "std_msgs/String", STRING_MD5, STRING_DEF);
    b.header.push(("callerid".into(), b"/talker_b".to_vec()));
    b.callerid = Some("/talker_b".into());
    vec![sample, a, b]
}

/// The messages of the sample bag, in write order: `n` samples every
/// 10 ms from t = 1000 s, and a chatter message on alternating
/// connections every third sample.
pub fn messages(n: u32) -> Vec<Written> {
    let mut out = Vec::new();
    for i in 0..n {
        let time = RosTime {
            sec: 1000 + i / 100,
            nsec: (i % 100) * 10_000_000,
        };
        out.push(Written {
            conn: 0,
            time,
            data: sample(i).0,
        });
        if i % 3 == 0 {
            out.push(Written {
                conn: 1 + (i / 3) % 2,
                time: RosTime {
                    sec: time.sec,
                    nsec: time.nsec + 5_000_000,
                },
                data: string_msg(&format!("hello {i}")),
            });
        }
    }
    out
}

/// Writes the sample bag (1.2 merges the two `/chatter` connections).
pub fn write_bag(options: WriterOptions, n: u32) -> (Vec<u8>, Vec<Written>) {
    let mut w = Writer::new(Cursor::new(Vec::new()), options).unwrap();
    let mut ids = Vec::new();
    for c in connections() {
        ids.push(w.add_connection(c).unwrap());
    }
    let mut written = messages(n);
    for m in &mut written {
        m.conn = ids[m.conn as usize];
        w.write(m.conn, m.time, &m.data).unwrap();
    }
    w.finish().unwrap();
    (w.into_inner().into_inner(), written)
}

/// The sample bag with small chunks (several chunks per bag).
pub fn small_chunks(compression: Compression) -> WriterOptions {
    WriterOptions {
        compression,
        chunk_threshold: 2000,
        ..WriterOptions::default()
    }
}

/// `written` sorted as a reader must yield it: by time, stable.
pub fn time_ordered(mut written: Vec<Written>) -> Vec<Written> {
    written.sort_by_key(|m| m.time);
    written
}

pub fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

pub fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// Reads every message through the typed API, strict mode.
pub fn read_all(bytes: &[u8]) -> Vec<Written> {
    let bag = rosbag12::Bag::new(bytes).unwrap();
    bag.messages(&logcore::MessageFilter::all())
        .map(|m| {
            let m = m.unwrap();
            Written {
                conn: m.conn,
                time: m.time,
                data: m.data.to_vec(),
            }
        })
        .collect()
}

/// A bag with one chunk record (`compression`, declared `size`, `data`)
/// built by hand, at byte 4117, and no index.
pub fn bag_with_chunk(compression: &str, size: u32, data: &[u8]) -> Vec<u8> {
    let mut out = b"#ROSBAG V2.0\n".to_vec();
    let zero = 0u64.to_le_bytes();
    let z32 = 0u32.to_le_bytes();
    let fields: [(&str, &[u8]); 4] = [
        ("chunk_count", &z32),
        ("conn_count", &z32),
        ("index_pos", &zero),
        ("op", &[3]),
    ];
    let header = rosbag12::record::encode_header(&fields);
    out.extend(rosbag12::record::encode_record(
        &fields,
        &vec![b' '; 4096 - header.len()],
    ));
    out.extend(rosbag12::record::encode_record(
        &[
            ("compression", compression.as_bytes()),
            ("op", &[5]),
            ("size", &size.to_le_bytes()),
        ],
        data,
    ));
    out
}

/// The warnings of `bag`, joined with "; ".
pub fn warnings_text(bag: &rosbag12::Bag<'_>) -> String {
    bag.warnings()
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}
