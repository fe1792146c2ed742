//! Properties of write-then-read for any bag: read(write(x)) == x (as a
//! time-ordered multiset, 2.0 with every compression and 1.2), and every
//! prefix of a written file reads back exactly the messages whose records
//! end before the cut.
//!
//! Truncation semantics: a cut inside the version line or the 4096-byte
//! bag header record is an error or an empty bag; a later cut has no index section, so
//! the bag is scanned: every complete message record is read, and a
//! chunk cut short yields the message records complete inside it
//! (uncompressed chunks; the prefix property uses them, one message per
//! chunk, so a message is read exactly when its chunk is complete). 1.2
//! bags have no chunks: a message is read when its record is complete.

use std::io::Cursor;

use logcore::MessageFilter;
use proptest::prelude::*;
use rosbag12::{Bag, Compression, Connection, RosTime, Writer, WriterOptions};

/// A message: connection index (the topic's, on reading), time, data.
type Msg = (u32, RosTime, Vec<u8>);

const TOPICS: [&str; 3] = ["/a", "/b", "/c"];

fn messages() -> impl Strategy<Value = Vec<Msg>> {
    prop::collection::vec(
        (
            0..3u32,
            (0..100u32, 0..1_000_000_000u32).prop_map(|(sec, nsec)| RosTime { sec, nsec }),
            prop::collection::vec(any::<u8>(), 0..40),
        ),
        0..10,
    )
}

fn write(options: WriterOptions, messages: &[Msg]) -> Vec<u8> {
    let mut w = Writer::new(Cursor::new(Vec::new()), options).unwrap();
    for topic in TOPICS {
        w.add_connection(Connection::new(0, topic, "test/Any", "*", ""))
            .unwrap();
    }
    for (conn, time, data) in messages {
        w.write(*conn, *time, data).unwrap();
    }
    w.finish().unwrap();
    w.into_inner().into_inner()
}

fn sorted(mut v: Vec<Msg>) -> Vec<Msg> {
    v.sort_by(|a, b| (a.1, a.0, &a.2).cmp(&(b.1, b.0, &b.2)));
    v
}

/// The messages read before the first error (connections numbered by
/// topic: 1.2 bags number them by first appearance), and the errors.
fn read(bag: &Bag<'_>) -> (Vec<Msg>, usize) {
    let topic = |conn: u32| {
        let c = bag.connections().iter().find(|c| c.id == conn).unwrap();
        TOPICS.iter().position(|t| *t == c.topic).unwrap() as u32
    };
    let (mut v, mut errors) = (Vec::new(), 0);
    for m in bag.messages(&MessageFilter::all()) {
        match m {
            Ok(m) if errors == 0 => v.push((topic(m.conn), m.time, m.data.to_vec())),
            _ => errors += 1,
        }
    }
    assert!(v.windows(2).all(|w| w[0].1 <= w[1].1), "time order");
    (v, errors)
}

/// Top-level records after the version line: (end offset, op).
fn records(file: &[u8]) -> Vec<(usize, u8)> {
    let mut at = file.iter().position(|&b| b == b'\n').unwrap() + 1;
    let mut out = Vec::new();
    let u32_at = |p: usize| u32::from_le_bytes(file[p..p + 4].try_into().unwrap()) as usize;
    while at < file.len() {
        let header_len = u32_at(at);
        let header = &file[at + 4..at + 4 + header_len];
        let data_len = u32_at(at + 4 + header_len);
        // The op field: `op=` followed by one byte.
        let op = header
            .windows(4)
            .find(|w| &w[..3] == b"op=")
            .map(|w| w[3])
            .unwrap();
        at += 8 + header_len + data_len;
        out.push((at, op));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn read_of_write_is_identity(messages in messages(), threshold in 0..400usize) {
        for options in [
            WriterOptions { chunk_threshold: threshold, ..WriterOptions::default() },
            WriterOptions { chunk_threshold: threshold, ..WriterOptions::compressed(Compression::Bz2) },
            WriterOptions { chunk_threshold: threshold, ..WriterOptions::compressed(Compression::Lz4) },
            WriterOptions::v1_2(),
        ] {
            let file = write(options, &messages);
            let bag = Bag::new(&file).unwrap();
            prop_assert_eq!(bag.message_count(), messages.len() as u64);
            let (read, errors) = read(&bag);
            prop_assert_eq!(errors, 0);
            prop_assert_eq!(sorted(read), sorted(messages.clone()), "{:?}", options);
        }
    }

    #[test]
    fn every_prefix_reads_the_messages_before_the_cut(messages in messages()) {
        for options in [
            WriterOptions { chunk_threshold: 0, ..WriterOptions::default() },
            WriterOptions::v1_2(),
        ] {
            let file = write(options, &messages);
            let records = records(&file);
            // The bag header, then one chunk (2.0: op 5, followed by its
            // index data) or one message record (1.2: op 2) per message.
            let header_end = records[0].0;
            let ends: Vec<usize> = records
                .iter()
                .filter(|r| r.1 == 5 || r.1 == 2)
                .map(|r| r.0)
                .collect();
            prop_assert_eq!(ends.len(), messages.len());
            for cut in 0..=file.len() {
                let prefix = &file[..cut];
                if cut < header_end && cut % 61 != 0 && cut + 8 < header_end {
                    continue;
                }
                if cut < header_end {
                    // An error, or (a cut bag header) an empty bag.
                    let empty = Bag::new(prefix).map_or(true, |b| read(&b).0.is_empty());
                    prop_assert!(empty, "cut {}", cut);
                    continue;
                }
                let bag = Bag::new(prefix).unwrap();
                let complete = ends.iter().filter(|&&e| e <= cut).count();
                let expected = sorted(messages[..complete].to_vec());
                let (read, errors) = read(&bag);
                prop_assert_eq!(sorted(read), expected, "cut {} {:?}", cut, options);
                prop_assert!(errors <= 1, "cut {}", cut);
            }
        }
    }
}
