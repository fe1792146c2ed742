//! Structure-aware ROS bag fuzzing: the fuzzer chooses the version,
//! compression, chunk threshold, connections and messages; our `Writer`
//! writes them (version line, header lengths, chunks, index data, chunk
//! infos all right); then the chosen mutations damage the file. Unmutated,
//! the bag must read back exactly what was written, in time order, and
//! reindexing must keep every message; mutated, every reader must return
//! normally.

#![no_main]

use std::io::Cursor;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use logcore::MessageFilter;
use robolog_fuzz::{Mutation, mutate, read};
use rosbag12::{Bag, Compression, Connection, RosTime, Version, Writer, WriterOptions};

#[derive(Arbitrary, Debug)]
struct Input {
    v1_2: bool,
    compression: u8,
    chunk_threshold: u16,
    connections: Vec<Conn>,
    messages: Vec<(u8, u32, u32, Vec<u8>)>,
    mutations: Vec<Mutation>,
}

#[derive(Arbitrary, Debug)]
struct Conn {
    topic: String,
    type_name: String,
    /// A small real definition (so decoding runs) or the fuzzer's text.
    definition: Result<u8, String>,
    callerid: Option<String>,
    latching: bool,
}

const DEFINITIONS: [(&str, &str); 4] = [
    ("std_msgs/String", "string data\n"),
    (
        "std_msgs/Header",
        "uint32 seq\ntime stamp\nstring frame_id\n",
    ),
    ("test/Arrays", "int16[] a\nfloat64[3] b\nbool c\n"),
    (
        "test/Nested",
        "Inner[] items\nuint8 K=7\n================\nMSG: test/Inner\nstring name\nduration d\n",
    ),
];

/// A written message: topic, time, data (1.2 bags number connections by
/// first appearance of the topic, not in declaration order).
type Written = (String, RosTime, Vec<u8>);

fn write(input: &Input) -> Option<(Vec<u8>, Vec<Written>)> {
    let options = WriterOptions {
        version: if input.v1_2 {
            Version::V1_2
        } else {
            Version::V2_0
        },
        compression: match input.compression % 3 {
            _ if input.v1_2 => Compression::None,
            0 => Compression::None,
            1 => Compression::Bz2,
            _ => Compression::Lz4,
        },
        chunk_threshold: usize::from(input.chunk_threshold),
    };
    let mut w = Writer::new(Cursor::new(Vec::new()), options).ok()?;
    let mut ids = Vec::new();
    let mut topics = Vec::new();
    for c in &input.connections {
        let (type_name, definition) = match &c.definition {
            Ok(i) => {
                let (t, d) = DEFINITIONS[usize::from(*i) % DEFINITIONS.len()];
                (t.to_string(), d.to_string())
            }
            Err(text) => (c.type_name.clone(), text.clone()),
        };
        let mut conn = Connection::new(0, c.topic.clone(), type_name, "*", definition);
        conn.callerid = c.callerid.clone();
        conn.latching = c.latching;
        let id = w.add_connection(conn).ok()?;
        if id as usize == topics.len() {
            topics.push(c.topic.clone());
        }
        ids.push(id);
    }
    let mut written = Vec::new();
    for (conn, sec, nsec, data) in &input.messages {
        if ids.is_empty() {
            break;
        }
        let conn = ids[usize::from(*conn) % ids.len()];
        let time = RosTime {
            sec: *sec,
            nsec: nsec % 1_000_000_000,
        };
        w.write(conn, time, data).ok()?;
        written.push((topics[conn as usize].clone(), time, data.clone()));
    }
    w.finish().ok()?;
    Some((w.into_inner().into_inner(), written))
}

fn messages(bag: &Bag<'_>) -> Vec<Written> {
    let topic = |conn: u32| {
        let c = bag.connections().iter().find(|c| c.id == conn);
        c.expect("a message's connection exists").topic.clone()
    };
    bag.messages(&MessageFilter::all())
        .map(|m| {
            let m = m.expect("an unmutated bag reads cleanly");
            (topic(m.conn), m.time, m.data.to_vec())
        })
        .collect()
}

fuzz_target!(|input: Input| {
    let Some((mut file, mut written)) = write(&input) else {
        return;
    };
    if input.mutations.is_empty() {
        let bag = Bag::new(&file).expect("an unmutated bag opens");
        assert_eq!(bag.message_count(), written.len() as u64);
        let mut read = messages(&bag);
        assert!(read.windows(2).all(|w| w[0].1 <= w[1].1), "time order");
        read.sort_by(|a, b| (a.1, &a.0, &a.2).cmp(&(b.1, &b.0, &b.2)));
        written.sort_by(|a, b| (a.1, &a.0, &a.2).cmp(&(b.1, &b.0, &b.2)));
        assert_eq!(read, written);
        let (out, _) =
            rosbag12::reindex(&file, Cursor::new(Vec::new())).expect("an unmutated bag reindexes");
        let again = out.into_inner();
        let rebuilt = Bag::new(&again).expect("a reindexed bag opens");
        assert_eq!(rebuilt.message_count(), written.len() as u64);
    }
    mutate(&mut file, &input.mutations);
    read::rosbag(&file);
});
