//! Chunks above the streaming threshold (lowered here) read back exactly
//! as the whole-decompression path reads them, damage included.

use logcore::limits::stream_override;
use logcore::{ChannelId, MessageFilter, ReadMode, Timestamp};

use crate::{Bag, Compression, Connection, RosTime, Writer, WriterOptions};

/// A bag of `n` messages on two connections, in chunks of about
/// `chunk_bytes` uncompressed bytes; `time(i)` gives message `i`'s second.
fn bag(compression: Compression, n: u32, chunk_bytes: usize, time: impl Fn(u32) -> u32) -> Vec<u8> {
    let options = WriterOptions {
        chunk_threshold: chunk_bytes,
        ..WriterOptions::compressed(compression)
    };
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), options).unwrap();
    let conns: Vec<u32> = (0..2)
        .map(|k| {
            let c = Connection::new(k, format!("/t{k}"), "std_msgs/String", "*", "string data");
            w.add_connection(c).unwrap()
        })
        .collect();
    for i in 0..n {
        let text: String = (0..(i * 7919) % 200)
            .map(|k| (b'a' + ((k + i) % 26) as u8) as char)
            .collect();
        let mut data = (text.len() as u32).to_le_bytes().to_vec();
        data.extend(text.bytes());
        let t = RosTime {
            sec: time(i),
            nsec: i % 1000,
        };
        w.write(conns[(i % 2) as usize], t, &data).unwrap();
    }
    w.finish().unwrap();
    w.into_inner().into_inner()
}

/// Every item of `Bag::messages`, as text, and whether a chunk was read
/// incrementally.
fn read(file: &[u8], filter: &MessageFilter) -> (Vec<String>, bool) {
    let bag = Bag::new(file).unwrap();
    let mut it = bag.messages(filter);
    let mut out = Vec::new();
    let mut streamed = false;
    while let Some(r) = it.next() {
        streamed |= it.streaming_big_chunk();
        out.push(match r {
            Ok(m) => format!("msg {} {:?} {} {:?}", m.conn, m.time, m.offset, &m.data[..]),
            Err(e) => format!("error {e}"),
        });
    }
    // Borrowed, the same items (a big chunk's messages lent one by one).
    let mut lent = bag.messages(filter);
    let mut borrowed = Vec::new();
    while let Some(r) = lent.next_borrowed() {
        borrowed.push(match r {
            Ok(m) => format!("msg {} {:?} {} {:?}", m.conn, m.time, m.offset, m.data),
            Err(e) => format!("error {e}"),
        });
    }
    assert_eq!(borrowed, out);
    (out, streamed)
}

/// `f` with the whole path, then with the incremental one.
fn both<T>(f: impl Fn() -> T) -> (T, T) {
    stream_override::set(None);
    let whole = f();
    stream_override::set(Some(1 << 10));
    let streamed = f();
    stream_override::set(None);
    (whole, streamed)
}

/// Asserts equal item lists, naming the first difference (shortened).
fn same(a: &[String], b: &[String], what: &str) {
    let short = |s: Option<&String>| s.map(|s| s.chars().take(200).collect::<String>());
    if let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
        panic!(
            "{what}: {} vs {} items, first difference at {i}: {:?} vs {:?}",
            a.len(),
            b.len(),
            short(a.get(i)),
            short(b.get(i))
        );
    }
}

fn filters() -> Vec<MessageFilter> {
    vec![
        MessageFilter::all(),
        MessageFilter::all().channels([ChannelId(1)]),
        MessageFilter {
            start: Some(Timestamp::from_secs_nanos(2_000, 0)),
            end: Some(Timestamp::from_secs_nanos(4_000, 0)),
            ..MessageFilter::all()
        },
    ]
}

#[test]
fn a_big_sorted_chunk_streams_and_reads_back_like_the_whole_path() {
    for compression in [Compression::Bz2, Compression::Lz4] {
        // One chunk of about 1.2 MiB.
        let f = bag(compression, 8_000, usize::MAX, |i| 1_000 + i / 2);
        for filter in filters() {
            let ((whole, whole_streamed), (streamed, did_stream)) = both(|| read(&f, &filter));
            assert!(!whole_streamed && did_stream, "{compression:?}");
            assert!(whole.len() > 1000, "{compression:?} {}", whole.len());
            assert!(!whole.iter().any(|s| s.starts_with("error")));
            same(&whole, &streamed, &format!("{compression:?} {filter:?}"));
        }
        let (all, _) = read(&f, &MessageFilter::all());
        assert_eq!(all.len(), 8_000);
    }
}

#[test]
fn unsorted_and_overlapping_big_chunks_are_merged_whole_as_before() {
    for compression in [Compression::Bz2, Compression::Lz4] {
        // Unsorted inside its one chunk.
        let unsorted = bag(compression, 8_000, usize::MAX, |i| 1_000 + (i * 7) % 4_000);
        // Several big chunks whose time ranges overlap.
        let overlapping = bag(compression, 8_000, 300_000, |i| 1_000 + (i * 13) % 4_000);
        for (what, f) in [("unsorted", unsorted), ("overlapping", overlapping)] {
            for filter in filters() {
                let ((whole, _), (streamed, did_stream)) = both(|| read(&f, &filter));
                assert!(!did_stream, "{what}");
                same(
                    &whole,
                    &streamed,
                    &format!("{compression:?} {what} {filter:?}"),
                );
            }
        }
    }
}

#[test]
fn a_damaged_big_chunk_reads_as_before() {
    for compression in [Compression::Bz2, Compression::Lz4] {
        let f = bag(compression, 8_000, usize::MAX, |i| 1_000 + i / 2);
        let bag0 = Bag::new(&f).unwrap();
        let chunk = bag0.chunk_infos()[0].chunk_pos as usize;
        let compressed = bag0.chunk_stats()[0].compressed as usize;
        drop(bag0);
        // The chunk data ends the chunk record; damage its middle.
        let rec_end = {
            let at = chunk;
            let header_len = u32::from_le_bytes(f[at..at + 4].try_into().unwrap()) as usize;
            at + 4 + header_len + 4 + compressed
        };
        let mut bad = f.clone();
        let mid = rec_end - compressed / 2;
        bad[mid] ^= 0xA5;
        bad[mid + 1] ^= 0x5A;
        for mode in [ReadMode::Strict, ReadMode::Lenient] {
            let filter = MessageFilter::all().mode(mode);
            let ((whole, _), (streamed, _)) = both(|| read(&bad, &filter));
            assert!(
                whole.iter().any(|s| s.starts_with("error")),
                "{compression:?}"
            );
            same(&whole, &streamed, &format!("{compression:?} {mode:?}"));
        }
        // A declared size one byte short: the same error either way.
        let mut short = f.clone();
        let size_at = short[chunk..]
            .windows(5)
            .position(|w| w == b"size=")
            .unwrap()
            + chunk
            + 5;
        let size = u32::from_le_bytes(short[size_at..size_at + 4].try_into().unwrap());
        short[size_at..size_at + 4].copy_from_slice(&(size - 1).to_le_bytes());
        let ((whole, _), (streamed, did_stream)) = both(|| read(&short, &MessageFilter::all()));
        assert!(!did_stream);
        assert!(
            whole.iter().any(|s| s.contains("more bytes than declared")),
            "{whole:?}"
        );
        same(&whole, &streamed, &format!("{compression:?} short"));
    }
}

#[test]
fn chunks_above_the_limit_are_refused_as_before() {
    let f = bag(Compression::Lz4, 2_000, usize::MAX, |i| 1_000 + i);
    let read_limited = || {
        let bag = Bag::with_limits(&f, crate::Limits::default().with_max_chunk_size(1000)).unwrap();
        bag.messages(&MessageFilter::all())
            .filter_map(|r| r.err().map(|e| e.to_string()))
            .collect::<Vec<_>>()
    };
    let (whole, streamed) = both(read_limited);
    assert_eq!(whole, streamed);
    assert!(whole[0].contains("reader's limit"), "{whole:?}");
}
