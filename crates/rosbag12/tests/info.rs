//! The `rosbag info` report on the fixtures of `testdata/rosbag`, printed
//! whole and compared with the known-good output, and the duration cases
//! where `rosbag info` truncates.

use std::io::Cursor;
use std::path::PathBuf;

use rosbag12::info::BagInfo;
use rosbag12::{Bag, Compression, Connection, RosTime, Writer, WriterOptions};

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/rosbag")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn text(bytes: &[u8], path: &str) -> String {
    let mut out = Vec::new();
    BagInfo::new(&Bag::new(bytes).unwrap())
        .write_text(&mut out, path)
        .unwrap();
    String::from_utf8(out).unwrap()
}

fn yaml(bytes: &[u8], path: &str) -> String {
    let mut out = Vec::new();
    BagInfo::new(&Bag::new(bytes).unwrap())
        .write_yaml(&mut out, path)
        .unwrap();
    String::from_utf8(out).unwrap()
}

const TYPES: &str = "\
types:        geometry_msgs/PointStamped [c63aecb41bfdfd6b7e1fac37c7cbe7bf]
              std_msgs/Int32             [da5909fbe378aeaf85e547e830cc1bb7]
              std_msgs/String            [992ce8a1687cec8c8bd883ec73ca41d1]
";

#[test]
fn text_of_a_compressed_bag() {
    let want = format!(
        "\
path:         sample-bz2.bag
version:      2.0
duration:     2.9s
start:        Sep 13 2020 12:26:40.00 (1600000000.00)
end:          Sep 13 2020 12:26:42.90 (1600000002.90)
size:         10.5 KB
messages:     75
compression:  bz2 [6/6 chunks; 34.61%]
uncompressed: 6.1 KB @ 2.1 KB/s
compressed:   2.1 KB @ 0.7 KB/s (34.61%)
{TYPES}\
topics:       /chatter  15 msgs @ 5.0000 Hz : std_msgs/String (2 connections)
              /count    30 msgs @ 10.0000 Hz : std_msgs/Int32
              /point    30 msgs @ 10.0000 Hz : geometry_msgs/PointStamped
"
    );
    assert_eq!(text(&fixture("sample-bz2.bag"), "sample-bz2.bag"), want);
}

#[test]
fn text_of_a_1_2_bag_and_a_truncated_one() {
    let want = format!(
        "\
path:         sample-1.2.bag
version:      1.2
duration:     2.9s
start:        Sep 13 2020 12:26:40.00 (1600000000.00)
end:          Sep 13 2020 12:26:42.90 (1600000002.90)
size:         17.1 KB
messages:     75
compression:  none
{TYPES}\
topics:       /chatter  15 msgs @ 5.0000 Hz : std_msgs/String
              /count    30 msgs @ 10.0000 Hz : std_msgs/Int32
              /point    30 msgs @ 10.0000 Hz : geometry_msgs/PointStamped
"
    );
    assert_eq!(text(&fixture("sample-1.2.bag"), "sample-1.2.bag"), want);
    let want = format!(
        "\
path:         t.bag
version:      2.0 (unindexed)
duration:     0.2s
start:        Sep 13 2020 12:26:40.00 (1600000000.00)
end:          Sep 13 2020 12:26:40.20 (1600000000.20)
size:         5.7 KB
messages:     6
compression:  none [2/2 chunks]
{TYPES}\
topics:       /chatter  1 msg  : std_msgs/String
              /count    3 msgs @ 10.0000 Hz : std_msgs/Int32
              /point    2 msgs @ 10.0000 Hz : geometry_msgs/PointStamped
"
    );
    assert_eq!(text(&fixture("truncated.bag"), "t.bag"), want);
}

const YAML_TAIL: &str = r#"types:
    - type: "geometry_msgs/PointStamped"
      md5: "c63aecb41bfdfd6b7e1fac37c7cbe7bf"
    - type: "std_msgs/Int32"
      md5: "da5909fbe378aeaf85e547e830cc1bb7"
    - type: "std_msgs/String"
      md5: "992ce8a1687cec8c8bd883ec73ca41d1"
topics:
  - topic: "/chatter"
    type: "std_msgs/String"
    messages: 15
    connections: 2
    frequency: 5.0000
  - topic: "/count"
    type: "std_msgs/Int32"
    messages: 30
    frequency: 10.0000
  - topic: "/point"
    type: "geometry_msgs/PointStamped"
    messages: 30
    frequency: 10.0000
"#;

#[test]
fn yaml_of_compressed_and_unindexed_bags() {
    let want = format!(
        "\
path: \"data/sample-lz4.bag\"
version: 2.0
duration: 2.900000
start: 1600000000.000000
end: 1600000002.900000
size: 11291
messages: 75
indexed: True
compression: lz4
uncompressed: 6293
compressed: 2721
{YAML_TAIL}"
    );
    assert_eq!(
        yaml(&fixture("sample-lz4.bag"), "data/sample-lz4.bag"),
        want
    );
    let want = format!(
        "\
path: \"u \\\"1\\\".bag\"
version: 2.0
duration: 2.900000
start: 1600000000.000000
end: 1600000002.900000
size: 12869
messages: 75
indexed: False
compression: none
{YAML_TAIL}"
    );
    assert_eq!(yaml(&fixture("unindexed.bag"), "u \"1\".bag"), want);
}

/// A bag with one message at each of `times` (seconds, nanoseconds).
fn bag_at(times: &[(u32, u32)]) -> Vec<u8> {
    let mut w = Writer::new(
        Cursor::new(Vec::new()),
        WriterOptions::compressed(Compression::None),
    )
    .unwrap();
    let c = w
        .add_connection(Connection::new(
            0,
            "/n",
            "std_msgs/Int32",
            "da5909fbe378aeaf85e547e830cc1bb7",
            "int32 data",
        ))
        .unwrap();
    for &(sec, nsec) in times {
        w.write(c, RosTime { sec, nsec }, &1i32.to_le_bytes())
            .unwrap();
    }
    w.finish().unwrap();
    w.into_inner().into_inner()
}

#[test]
fn durations_are_truncated_not_rounded() {
    // 836.9 s: rosbag info prints 836 s (rounding would give 13:57s (837s)).
    let t = text(&bag_at(&[(1000, 0), (1836, 900_000_000)]), "x.bag");
    assert!(t.contains("\nduration:     13:56s (836s)\n"), "{t}");
    assert!(t.contains("/n  2 msgs @ 0.0012 Hz : std_msgs/Int32"), "{t}");
    // 2 h 0 min 59.6 s.
    let t = text(&bag_at(&[(0, 0), (7259, 600_000_000)]), "x.bag");
    assert!(t.contains("\nduration:     2hr 0:59s (7259s)\n"), "{t}");
    let y = yaml(&bag_at(&[(1000, 0), (1836, 900_000_000)]), "x.bag");
    assert!(y.contains("\nduration: 836.900000\n"), "{y}");
}
