//! The committed bags of `testdata/rosbag/` are what the crate's writer
//! makes today (`cargo xtask fixtures` rewrites them, through this test
//! with `ROBOLOG_BLESS=1`).

/// Definition of `geometry_msgs/PointStamped` as ROS stores it.
const POINT_STAMPED_DEF: &str = "# A Point with reference coordinate frame and timestamp\n\
Header header\n\
Point point\n\
\n\
================================================================================\n\
MSG: std_msgs/Header\n\
# Standard metadata for higher-level stamped data types.\n\
uint32 seq\n\
time stamp\n\
string frame_id\n\
\n\
================================================================================\n\
MSG: geometry_msgs/Point\n\
# This contains the position of a point in free space\n\
float64 x\n\
float64 y\n\
float64 z";

fn string_payload(s: &str) -> Vec<u8> {
    let mut d = (s.len() as u32).to_le_bytes().to_vec();
    d.extend(s.as_bytes());
    d
}

/// The bag behind every fixture: 3 s of `/chatter` (std_msgs/String, two
/// publishers, 5 Hz), `/count` (std_msgs/Int32, 10 Hz) and `/point`
/// (geometry_msgs/PointStamped, 10 Hz), in small chunks.
fn sample_bag(options: rosbag12::WriterOptions) -> Vec<u8> {
    use rosbag12::{Connection, MessageType, RosTime, Writer};
    let mut w =
        Writer::new(std::io::Cursor::new(Vec::new()), options).unwrap_or_else(|e| panic!("{e}"));
    let md5 = |t: &str, d: &str| {
        MessageType::parse(t, d)
            .map(|m| m.md5sum)
            .unwrap_or_default()
    };
    let mut conns = Vec::new();
    let mut a = Connection::new(
        0,
        "/chatter",
        "std_msgs/String",
        md5("std_msgs/String", "string data"),
        "string data",
    );
    a.header.push(("callerid".into(), b"/talker_a".to_vec()));
    let mut b = a.clone();
    b.header.pop();
    b.header.push(("callerid".into(), b"/talker_b".to_vec()));
    for c in [
        a,
        b,
        Connection::new(
            0,
            "/count",
            "std_msgs/Int32",
            md5("std_msgs/Int32", "int32 data"),
            "int32 data",
        ),
        Connection::new(
            0,
            "/point",
            "geometry_msgs/PointStamped",
            md5("geometry_msgs/PointStamped", POINT_STAMPED_DEF),
            POINT_STAMPED_DEF,
        ),
    ] {
        conns.push(w.add_connection(c).unwrap_or_else(|e| panic!("{e}")));
    }
    for i in 0..30u32 {
        let t = RosTime {
            sec: 1_600_000_000 + i / 10,
            nsec: (i % 10) * 100_000_000,
        };
        let mut writes: Vec<(u32, Vec<u8>)> =
            vec![(conns[2], (i as i32 - 5).to_le_bytes().to_vec())];
        let mut p = i.to_le_bytes().to_vec();
        p.extend(t.to_le_bytes());
        p.extend(string_payload("map"));
        for v in [f64::from(i) * 0.5, -1.0, 2.25] {
            p.extend(v.to_le_bytes());
        }
        writes.push((conns[3], p));
        if i % 2 == 0 {
            writes.push((
                conns[(i / 2 % 2) as usize],
                string_payload(&format!("hello world {i}")),
            ));
        }
        for (c, data) in writes {
            w.write(c, t, &data).unwrap_or_else(|e| panic!("{e}"));
        }
    }
    w.finish().unwrap_or_else(|e| panic!("{e}"));
    w.into_inner().into_inner()
}

/// Deterministic bag fixtures for `testdata/rosbag/`, written with the
/// `rosbag12` writer: the same content uncompressed, bz2, lz4 and as 1.2,
/// plus an unindexed copy (a recorder killed before closing) and one cut
/// in the middle of its second chunk.
fn fixtures() -> Vec<(&'static str, Vec<u8>)> {
    use rosbag12::{Compression, WriterOptions};
    let small = |compression| WriterOptions {
        compression,
        chunk_threshold: 1024,
        ..WriterOptions::default()
    };
    let plain = sample_bag(small(Compression::None));
    // Unindexed: index section dropped, index_pos zeroed.
    let index_pos = rosbag12::Bag::new(&plain)
        .ok()
        .and_then(|b| b.header().map(|h| h.index_pos as usize))
        .unwrap_or(plain.len());
    let mut unindexed = plain[..index_pos].to_vec();
    if let Some(at) = unindexed[..4117]
        .windows(10)
        .position(|w| w == b"index_pos=")
    {
        unindexed[at + 10..at + 18].fill(0);
    }
    let second_chunk = rosbag12::Bag::new(&plain)
        .ok()
        .and_then(|b| b.chunk_infos().get(1).map(|c| c.chunk_pos as usize))
        .unwrap_or(4117);
    let truncated = plain[..second_chunk + 300].to_vec();
    vec![
        ("sample.bag", plain),
        ("sample-bz2.bag", sample_bag(small(Compression::Bz2))),
        ("sample-lz4.bag", sample_bag(small(Compression::Lz4))),
        ("sample-1.2.bag", sample_bag(WriterOptions::v1_2())),
        ("unindexed.bag", unindexed),
        ("truncated.bag", truncated),
    ]
}

#[test]
fn committed_files_are_what_the_writer_makes() {
    robolog_testkit::fixtures_current("rosbag", &fixtures());
}
