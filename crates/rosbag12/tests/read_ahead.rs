//! Chunks decompressed ahead on other threads (`Messages::read_ahead_threads`)
//! read back exactly as chunks decompressed in place: the same messages
//! (topic, time, bytes, offset) in the same order, and the same errors at
//! the same places, for bz2 and lz4 bags of many chunks, whole, damaged in
//! the middle or cut short.

use std::io::Cursor;

use logcore::{ChannelId, FormatError, MessageFilter, ReadMode, Timestamp};
use rosbag12::{Bag, Compression, Connection, RosTime, Writer, WriterOptions};

/// What an iteration yields: a message as (topic, time, data, offset), an
/// error as its offset and text.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    Message(String, RosTime, Vec<u8>, u64),
    Error(Option<u64>, String),
}

/// A bag of `n` messages on three connections, in chunks of about
/// `chunk_bytes` uncompressed bytes. Times mostly grow; every 97th message
/// goes back a few seconds, so some chunks are unsorted or overlap the
/// next (the merge path) while the others are read as stored.
fn bag(compression: Compression, n: u32, chunk_bytes: usize) -> Vec<u8> {
    let options = WriterOptions {
        chunk_threshold: chunk_bytes,
        ..WriterOptions::compressed(compression)
    };
    let mut w = Writer::new(Cursor::new(Vec::new()), options).unwrap();
    let conns: Vec<u32> = (0..3)
        .map(|k| {
            let c = Connection::new(k, format!("/t{k}"), "std_msgs/String", "*", "string data");
            w.add_connection(c).unwrap()
        })
        .collect();
    for i in 0..n {
        // Compressible text of varying length.
        let len = 100 + (i * 7919) % 900;
        let text: String = (0..len)
            .map(|k| (b'a' + ((k / 8 + i) % 26) as u8) as char)
            .collect();
        let mut data = (text.len() as u32).to_le_bytes().to_vec();
        data.extend(text.bytes());
        let sec = if i % 97 == 96 { i / 10 - 3 } else { i / 10 };
        let t = RosTime {
            sec: 100 + sec,
            nsec: i % 10 * 1000,
        };
        w.write(conns[(i % 3) as usize], t, &data).unwrap();
    }
    w.finish().unwrap();
    w.into_inner().into_inner()
}

/// Every item of `Bag::messages(filter)` with `threads` read-ahead threads
/// (`None`: the default), and whether chunks went to threads.
fn read(bag: &Bag<'_>, filter: &MessageFilter, threads: Option<usize>) -> (Vec<Item>, bool) {
    let mut it = bag.messages(filter);
    if let Some(n) = threads {
        it = it.read_ahead_threads(n);
    }
    let mut items = Vec::new();
    let mut ahead = false;
    while let Some(r) = it.next() {
        ahead |= it.reads_ahead();
        items.push(match r {
            Ok(m) => Item::Message(
                bag.connection(m.conn).unwrap().topic.clone(),
                m.time,
                m.data.to_vec(),
                m.offset,
            ),
            Err(e) => Item::Error(e.offset(), e.to_string()),
        });
    }
    (items, ahead)
}

/// The filters the comparisons run under, in both modes.
fn filters(bag: &Bag<'_>) -> Vec<MessageFilter> {
    let mut out = vec![MessageFilter::all()];
    if let Some((a, b)) = bag.time_range() {
        let (a, b) = (a.to_timestamp().0, b.to_timestamp().0);
        out.push(MessageFilter {
            start: Some(Timestamp(a + (b - a) / 3)),
            end: Some(Timestamp(a + (b - a) * 2 / 3)),
            ..MessageFilter::all()
        });
    }
    if let Some(c) = bag.connections().get(1) {
        out.push(MessageFilter {
            channels: Some([ChannelId(c.id)].into_iter().collect()),
            ..MessageFilter::all()
        });
    }
    out.into_iter()
        .flat_map(|f| {
            [ReadMode::Strict, ReadMode::Lenient].map(|mode| MessageFilter { mode, ..f.clone() })
        })
        .collect()
}

/// Reads `file` in place and with 1, 2 and 3 read-ahead threads and the
/// default, under every filter; asserts the items are the same, and
/// returns those of the whole bag (strict) in place.
fn same_with_and_without_threads(file: &[u8], what: &str) -> Vec<Item> {
    let bag = Bag::new(file).unwrap();
    let mut whole = Vec::new();
    for filter in filters(&bag) {
        let (want, ahead) = read(&bag, &filter, Some(0));
        assert!(!ahead, "{what}: threads started for 0");
        for threads in [Some(1), Some(2), Some(3), None] {
            let (got, ahead) = read(&bag, &filter, threads);
            assert_eq!(got, want, "{what}, {threads:?} threads, {filter:?}");
            if threads.is_some() && !want.is_empty() {
                assert!(ahead, "{what}, {threads:?} threads: read in place");
            }
        }
        if whole.is_empty() {
            whole = want;
        }
    }
    whole
}

/// The chunk positions of `file`, in file order.
fn chunk_positions(file: &[u8]) -> Vec<u64> {
    let mut at: Vec<u64> = Bag::new(file)
        .unwrap()
        .chunk_infos()
        .iter()
        .map(|c| c.chunk_pos)
        .collect();
    at.sort_unstable();
    at
}

/// The range of the stored (compressed) bytes of the chunk record at `pos`.
fn chunk_data(file: &[u8], pos: u64) -> std::ops::Range<usize> {
    let u32_at = |p: usize| u32::from_le_bytes(file[p..p + 4].try_into().unwrap()) as usize;
    let pos = pos as usize;
    let data_len_at = pos + 4 + u32_at(pos);
    let start = data_len_at + 4;
    start..start + u32_at(data_len_at)
}

#[test]
fn chunks_read_ahead_give_what_chunks_read_in_place_give() {
    for compression in [Compression::Lz4, Compression::Bz2] {
        let file = bag(compression, 3000, 100 << 10);
        let chunks = chunk_positions(&file);
        assert!(
            chunks.len() >= 10,
            "{compression:?}: {} chunks",
            chunks.len()
        );
        let items = same_with_and_without_threads(&file, &format!("{compression:?}"));
        // Every message, in time order, no error.
        assert_eq!(items.len(), 3000);
        let times: Vec<RosTime> = items
            .iter()
            .map(|i| match i {
                Item::Message(_, t, _, _) => *t,
                Item::Error(..) => panic!("{compression:?}: {i:?}"),
            })
            .collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{compression:?}");
        // Cut inside a chunk (a scan then reads what is complete of it).
        for cut in [file.len() / 2, file.len() * 3 / 4] {
            let what = format!("{compression:?} cut at {cut}");
            let items = same_with_and_without_threads(&file[..cut], &what);
            assert!(items.len() > 100, "{what}: {}", items.len());
        }
    }
}

#[test]
fn a_corrupt_chunk_in_the_middle_yields_the_messages_before_it_then_its_error() {
    for compression in [Compression::Lz4, Compression::Bz2] {
        // Times only grow: each chunk is alone in its time range.
        let file = {
            let options = WriterOptions {
                chunk_threshold: 100 << 10,
                ..WriterOptions::compressed(compression)
            };
            let mut w = Writer::new(Cursor::new(Vec::new()), options).unwrap();
            let c = w
                .add_connection(Connection::new(
                    0,
                    "/t",
                    "std_msgs/String",
                    "*",
                    "string data",
                ))
                .unwrap();
            for i in 0..2000u32 {
                let text = format!("message {i:05} {}", "x".repeat(500));
                let mut data = (text.len() as u32).to_le_bytes().to_vec();
                data.extend(text.bytes());
                w.write(c, RosTime { sec: i, nsec: 0 }, &data).unwrap();
            }
            w.finish().unwrap();
            w.into_inner().into_inner()
        };
        let chunks = chunk_positions(&file);
        assert!(
            chunks.len() >= 6,
            "{compression:?}: {} chunks",
            chunks.len()
        );
        let intact = Bag::new(&file).unwrap();
        let per_chunk: Vec<usize> = intact
            .chunk_infos()
            .iter()
            .map(|c| c.counts.iter().map(|&(_, n)| n as usize).sum())
            .collect();
        let (all, _) = read(&intact, &MessageFilter::all(), Some(0));
        assert_eq!(all.len(), 2000);
        // The compressed bytes of a chunk in the middle overwritten.
        let bad = chunks.len() / 2;
        let mut damaged = file.clone();
        damaged[chunk_data(&file, chunks[bad])].fill(0x5A);
        let before: usize = per_chunk[..bad].iter().sum();
        let after: usize = per_chunk[bad + 1..].iter().sum();
        let what = format!("{compression:?}");
        same_with_and_without_threads(&damaged, &what);
        let bag = Bag::new(&damaged).unwrap();
        for threads in [Some(0), Some(2), None] {
            let what = format!("{compression:?}, {threads:?} threads");
            // Strict: the messages before the chunk, then its error.
            let (got, _) = read(&bag, &MessageFilter::all(), threads);
            assert_eq!(got.len(), before + 1, "{what}");
            assert_eq!(got[..before], all[..before], "{what}");
            match &got[before] {
                Item::Error(at, text) => {
                    assert_eq!(*at, Some(chunks[bad]), "{what}: {text}");
                    assert!(text.contains(&chunks[bad].to_string()), "{what}: {text}");
                }
                other => panic!("{what}: {other:?}"),
            }
            // Lenient: the error as a skip, then the chunks after it.
            let lenient = MessageFilter::all().mode(ReadMode::Lenient);
            let (got, _) = read(&bag, &lenient, threads);
            assert_eq!(got.len(), before + 1 + after, "{what}");
            assert_eq!(got[..before], all[..before], "{what}");
            assert!(
                matches!(got[before], Item::Error(Some(at), _) if at == chunks[bad]),
                "{what}: {:?}",
                got[before]
            );
            assert_eq!(got[before + 1..], all[all.len() - after..], "{what}");
        }
    }
}
