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

// The expected tables apply the format strings of ROS's `Bag.__str__` by
// hand: keys padded to the longest key + 1 (`uncompressed:` when a chunk is
// compressed, else `compression:`), sizes `'%.1f KB'` of bytes / 1024,
// frequencies `'%.1f Hz'` right-aligned to the widest (`10.0 Hz`), topic
// rows `'%-*s   %*d %s'` then `' @ %*s'` (or 3 spaces and an empty
// `'%*s'`) then `' : %-*s'` padded to the longest type (26), and only the
// end of the whole table stripped, so inner topic rows keep their padding.

const TYPES: &str = "\
types:        geometry_msgs/PointStamped [c63aecb41bfdfd6b7e1fac37c7cbe7bf]
              std_msgs/Int32             [da5909fbe378aeaf85e547e830cc1bb7]
              std_msgs/String            [992ce8a1687cec8c8bd883ec73ca41d1]
";

#[test]
fn text_of_a_compressed_bag() {
    // 10748 B = 10.5 KB; 6293 B = 6.1 KB and 2178 B = 2.1 KB over
    // 2.9 s: 2.1 KB/s and 0.7 KB/s; 100 * 2178 / 6293 = 34.61%.
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
topics:       /chatter   15 msgs @  5.0 Hz : std_msgs/String            (2 connections)
              /count     30 msgs @ 10.0 Hz : std_msgs/Int32            \n              \
/point     30 msgs @ 10.0 Hz : geometry_msgs/PointStamped
"
    );
    assert_eq!(text(&fixture("sample-bz2.bag"), "sample-bz2.bag"), want);
}

#[test]
fn text_of_a_1_2_bag_and_a_truncated_one() {
    // No compressed chunk: the key column is len("compression") + 1 = 12.
    let types = TYPES.replace(":        ", ":       ").replace("\n ", "\n");
    let want = format!(
        "\
path:        sample-1.2.bag
version:     1.2
duration:    2.9s
start:       Sep 13 2020 12:26:40.00 (1600000000.00)
end:         Sep 13 2020 12:26:42.90 (1600000002.90)
size:        17.1 KB
messages:    75
compression: none
{types}\
topics:      /chatter   15 msgs @  5.0 Hz : std_msgs/String           \n             \
/count     30 msgs @ 10.0 Hz : std_msgs/Int32            \n             \
/point     30 msgs @ 10.0 Hz : geometry_msgs/PointStamped
"
    );
    assert_eq!(text(&fixture("sample-1.2.bag"), "sample-1.2.bag"), want);
    // One /chatter message: 'msg ', and 3 + 7 spaces for the frequency.
    let want = format!(
        "\
path:        t.bag
version:     2.0 (unindexed)
duration:    0.2s
start:       Sep 13 2020 12:26:40.00 (1600000000.00)
end:         Sep 13 2020 12:26:40.20 (1600000000.20)
size:        5.7 KB
messages:    6
compression: none [2/2 chunks]
{types}\
topics:      /chatter   1 msg            : std_msgs/String           \n             \
/count     3 msgs @ 10.0 Hz : std_msgs/Int32            \n             \
/point     2 msgs @ 10.0 Hz : geometry_msgs/PointStamped
"
    );
    assert_eq!(text(&fixture("truncated.bag"), "t.bag"), want);
}

// `_get_yaml_info`: strings as they are, list items indented by 4.
const YAML_TAIL: &str = "types:
    - type: geometry_msgs/PointStamped
      md5: c63aecb41bfdfd6b7e1fac37c7cbe7bf
    - type: std_msgs/Int32
      md5: da5909fbe378aeaf85e547e830cc1bb7
    - type: std_msgs/String
      md5: 992ce8a1687cec8c8bd883ec73ca41d1
topics:
    - topic: /chatter
      type: std_msgs/String
      messages: 15
      connections: 2
      frequency: 5.0000
    - topic: /count
      type: std_msgs/Int32
      messages: 30
      frequency: 10.0000
    - topic: /point
      type: geometry_msgs/PointStamped
      messages: 30
      frequency: 10.0000
";

#[test]
fn yaml_of_compressed_and_unindexed_bags() {
    let want = format!(
        "\
path: data/sample-lz4.bag
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
path: u \"1\".bag
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
    assert!(t.contains("\nduration:    13:56s (836s)\n"), "{t}");
    // One gap of 836.9 s: 0.0012 Hz, '%.1f' gives 0.0.
    assert!(
        t.ends_with("\ntopics:      /n   2 msgs @ 0.0 Hz : std_msgs/Int32\n"),
        "{t}"
    );
    // 2 h 0 min 59.6 s.
    let t = text(&bag_at(&[(0, 0), (7259, 600_000_000)]), "x.bag");
    assert!(t.contains("\nduration:    2hr 0:59s (7259s)\n"), "{t}");
    let y = yaml(&bag_at(&[(1000, 0), (1836, 900_000_000)]), "x.bag");
    assert!(y.contains("\nduration: 836.900000\n"), "{y}");
}

#[test]
fn start_and_end_are_the_first_and_last_chunks_and_empty_connections_are_left_out() {
    // One message per chunk, the first chunk later than the second:
    // `rosbag info` takes the first chunk's start and the last chunk's end,
    // so the duration is 5 - 10 = -5 s, printed '%.1fs'. The connection
    // without messages is left out of types and topics.
    let mut w = Writer::new(
        Cursor::new(Vec::new()),
        WriterOptions {
            chunk_threshold: 0,
            ..WriterOptions::default()
        },
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
    w.add_connection(Connection::new(
        0,
        "/unused",
        "std_msgs/Empty",
        "d41d8cd98f00b204e9800998ecf8427e",
        "",
    ))
    .unwrap();
    for sec in [10, 5] {
        w.write(c, RosTime { sec, nsec: 0 }, &1i32.to_le_bytes())
            .unwrap();
    }
    w.finish().unwrap();
    let bytes = w.into_inner().into_inner();
    let bag = Bag::new(&bytes).unwrap();
    assert!(bag.connections().iter().any(|c| c.topic == "/unused"));
    assert_eq!(bag.chunk_infos().len(), 2);
    let t = text(&bytes, "u.bag");
    for want in [
        "\nduration:    -5.0s\n",
        "\nstart:       Jan 01 1970 00:00:10.00 (10.00)\n",
        "\nend:         Jan 01 1970 00:00:05.00 (5.00)\n",
        "\ncompression: none [2/2 chunks]\n",
        "\ntypes:       std_msgs/Int32 [da5909fbe378aeaf85e547e830cc1bb7]\n",
    ] {
        assert!(t.contains(want), "missing {want:?} in\n{t}");
    }
    // Sorted stamps 5, 10: one gap of 5 s, 0.2 Hz.
    assert!(
        t.ends_with("\ntopics:      /n   2 msgs @ 0.2 Hz : std_msgs/Int32\n"),
        "{t}"
    );
    let y = yaml(&bytes, "u.bag");
    assert!(
        y.contains("\nduration: -5.000000\nstart: 10.000000\nend: 5.000000\n"),
        "{y}"
    );
    assert!(!y.contains("/unused") && !y.contains("Empty"), "{y}");
}
