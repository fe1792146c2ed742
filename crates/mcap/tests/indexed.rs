//! The indexed reader on files that mix chunked and unchunked messages,
//! and its use of Message Index records.

mod common;

use logcore::{ChannelId, LogReader, MessageFilter, Timestamp};
use mcapfile::{
    Compression, IndexFilter, IndexedMessages, LinearReader, Mcap, ReadOptions, Record, Summary,
    WriteOptions, Writer,
};

const ALL: [Compression; 3] = [Compression::None, Compression::Lz4, Compression::Zstd];

/// (channel, log_time, payload) of a message.
type Tagged = (u16, u64, &'static str);

/// Messages in write order, with whether the message
/// goes into a chunk: loose, chunk, loose, chunk, loose.
const MIXED: [(bool, &[Tagged]); 5] = [
    (false, &[(0, 50, "a0"), (1, 10, "a1"), (0, 30, "a2")]),
    (true, &[(0, 10, "c0"), (1, 40, "c1"), (0, 20, "c2")]),
    (false, &[(1, 20, "b0"), (0, 10, "b1")]),
    (true, &[(1, 5, "d0"), (0, 50, "d1")]),
    (false, &[(0, 60, "e0")]),
];

fn mixed(compression: Compression) -> Vec<u8> {
    let opts = WriteOptions {
        compression,
        use_chunks: false,
        chunk_size: 1 << 20,
        ..WriteOptions::default()
    };
    let mut w = Writer::new(Vec::new(), opts).unwrap();
    let a = w.add_channel(0, "/a", "json", &Default::default()).unwrap();
    let b = w.add_channel(0, "/b", "json", &Default::default()).unwrap();
    assert_eq!((a, b), (0, 1));
    for (i, (chunked, msgs)) in MIXED.iter().enumerate() {
        w.set_use_chunks(*chunked).unwrap();
        for (ch, t, tag) in *msgs {
            w.write_message(*ch, 0, *t, *t, tag.as_bytes()).unwrap();
        }
        if i == 2 {
            // A non-message record among the loose ones is stepped over.
            w.write_attachment(1, 1, "x", "text/plain", b"xyz").unwrap();
        }
    }
    w.finish().unwrap()
}

fn tags<'a>(
    it: impl Iterator<Item = mcapfile::Result<(u64, mcapfile::Message<'a>)>>,
) -> Vec<String> {
    it.map(|r| String::from_utf8(r.unwrap().1.data.to_vec()).unwrap())
        .collect()
}

#[test]
fn unchunked_messages_of_an_indexed_file_are_merged_in_time_order() {
    let want = [
        "d0", "a1", "c0", "b1", "c2", "b0", "a2", "c1", "a0", "d1", "e0",
    ];
    for c in ALL {
        let file = mixed(c);
        let s = Summary::read(&file, true).unwrap().unwrap();
        assert_eq!(s.chunk_indexes.len(), 2, "{c:?}");
        assert_eq!(s.statistics.as_ref().unwrap().message_count, 11);
        let it = IndexedMessages::new(&file, &s, IndexFilter::default(), ReadOptions::default());
        // Two chunks and three runs of loose messages.
        assert_eq!(it.selected_chunks(), 5);
        assert_eq!(tags(it), want, "{c:?}");

        // The same through LogReader::messages, with the record offsets of
        // loose messages pointing at their Message records.
        let mcap = Mcap::new(&file).unwrap();
        assert!(mcap.is_indexed());
        let msgs: Vec<_> = mcap
            .messages(&MessageFilter::default())
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let got: Vec<String> = msgs
            .iter()
            .map(|m| String::from_utf8(m.payload.to_vec()).unwrap())
            .collect();
        assert_eq!(got, want, "{c:?}");
        let a0 = &msgs[8];
        let at = a0.offset.unwrap() as usize;
        assert_eq!(
            file[at], 0x05,
            "{c:?}: a loose message's offset is its record's"
        );

        // Filters apply to loose messages too; the expectation is the
        // streamed order, stably sorted by log time.
        let streamed: Vec<(u16, u64, String)> = LinearReader::new(&file)
            .filter_map(|r| match r.unwrap() {
                Record::Message(m) => Some((
                    m.channel_id,
                    m.log_time,
                    String::from_utf8(m.data.to_vec()).unwrap(),
                )),
                _ => None,
            })
            .collect();
        for (channels, start, end) in [
            (Some([0u16].into()), None, None),
            (Some([1u16].into()), Some(10), Some(41)),
            (None, Some(20), Some(50)),
            (None, Some(55), None),
            (Some([0u16, 1].into()), Some(0), Some(6)),
        ] {
            let filter = IndexFilter {
                channels,
                start,
                end,
            };
            let mut expect: Vec<_> = streamed
                .iter()
                .filter(|(ch, t, _)| {
                    filter.channels.as_ref().is_none_or(|c| c.contains(ch))
                        && start.is_none_or(|s| *t >= s)
                        && end.is_none_or(|e| *t < e)
                })
                .collect();
            expect.sort_by_key(|m| m.1);
            let expect: Vec<&str> = expect.iter().map(|m| m.2.as_str()).collect();
            let got = tags(IndexedMessages::new(
                &file,
                &s,
                filter.clone(),
                ReadOptions::default(),
            ));
            assert_eq!(got, expect, "{c:?} {filter:?}");
            let core = MessageFilter {
                channels: filter
                    .channels
                    .as_ref()
                    .map(|c| c.iter().map(|&c| ChannelId(u32::from(c))).collect()),
                start: start.map(|t| Timestamp(t as i64)),
                end: end.map(|t| Timestamp(t as i64)),
                ..MessageFilter::default()
            };
            let got: Vec<String> = mcap
                .messages(&core)
                .unwrap()
                .map(|m| String::from_utf8(m.unwrap().payload.to_vec()).unwrap())
                .collect();
            assert_eq!(got, expect, "{c:?} {filter:?} (LogReader)");
        }
    }
}

#[test]
fn a_damaged_loose_message_is_an_error_at_its_offset() {
    let mut file = mixed(Compression::Zstd);
    let s = Summary::read(&file, true).unwrap().unwrap();
    // Shrink the first loose message's record to 13 content bytes: too
    // short for a Message, but the framing still holds. Its CRCs are
    // stale now; the indexed reader does not check the data section CRC.
    let mut lin = LinearReader::new(&file);
    let at = loop {
        if let Record::Message(_) = lin.next().unwrap().unwrap() {
            break lin.last_offset() as usize;
        }
    };
    let len = u64::from_le_bytes(file[at + 1..at + 9].try_into().unwrap());
    file[at] = 0x05;
    file[at + 1..at + 9].copy_from_slice(&13u64.to_le_bytes());
    // Keep the framing: turn the rest of the old record into an unknown one.
    let rest = at + 9 + 13;
    file[rest] = 0x80;
    file[rest + 1..rest + 9].copy_from_slice(&(len - 13 - 9).to_le_bytes());
    let all: Vec<_> =
        IndexedMessages::new(&file, &s, IndexFilter::default(), ReadOptions::default()).collect();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].as_ref().unwrap_err().offset(), Some(at as u64 + 9));
    let lenient = ReadOptions {
        mode: logcore::ReadMode::Lenient,
        ..ReadOptions::default()
    };
    let all: Vec<_> = IndexedMessages::new(&file, &s, IndexFilter::default(), lenient).collect();
    assert_eq!(
        all.len(),
        11,
        "the damaged one reported, the other ten read"
    );
    assert!(matches!(
        all[0],
        Err(mcapfile::Error::Skipped { offset, .. }) if offset == at as u64
    ));
}

/// Every message of `file` that passes `filter`, as (channel, log_time, payload).
fn read(file: &[u8], filter: &IndexFilter) -> Vec<(u16, u64, Vec<u8>)> {
    let s = Summary::read(file, true).unwrap().unwrap();
    IndexedMessages::new(file, &s, filter.clone(), ReadOptions::default())
        .map(|r| {
            let m = r.unwrap().1;
            (m.channel_id, m.log_time, m.data.to_vec())
        })
        .collect()
}

fn written(compression: Compression, message_indexes: bool, crcs: bool) -> Vec<u8> {
    let opts = WriteOptions {
        compression,
        chunk_size: 600,
        message_indexes,
        crcs,
        ..WriteOptions::default()
    };
    let mut w = Writer::new(Vec::new(), opts).unwrap();
    common::write_body(&mut w);
    w.finish().unwrap()
}

#[test]
fn message_indexes_give_the_same_results_as_walking_chunks() {
    let filters = [
        IndexFilter::default(),
        IndexFilter {
            channels: Some([1].into()),
            ..IndexFilter::default()
        },
        IndexFilter {
            start: Some(7_000),
            end: Some(31_000),
            ..IndexFilter::default()
        },
        IndexFilter {
            channels: Some([0, 2].into()),
            start: Some(12_500),
            end: Some(44_000),
        },
        IndexFilter {
            channels: Some([9].into()),
            ..IndexFilter::default()
        },
        IndexFilter {
            start: Some(u64::MAX),
            ..IndexFilter::default()
        },
    ];
    for c in ALL {
        let with = written(c, true, true);
        let without = written(c, false, true);
        let s = Summary::read(&with, true).unwrap().unwrap();
        assert!(
            s.chunk_indexes
                .iter()
                .all(|ci| !ci.message_index_offsets.is_empty())
        );
        for f in &filters {
            let a = read(&with, f);
            assert_eq!(a, read(&without, f), "{c:?} {f:?}");
            let mut want: Vec<_> = common::messages()
                .into_iter()
                .filter(|m| {
                    f.channels.as_ref().is_none_or(|s| s.contains(&m.0))
                        && f.start.is_none_or(|s| m.1 >= s)
                        && f.end.is_none_or(|e| m.1 < e)
                })
                .collect();
            want.sort_by_key(|m| m.1);
            assert_eq!(a, want, "{c:?} {f:?}");
        }
    }
}

#[test]
fn a_channel_filter_reads_only_the_indexed_messages() {
    // Uncompressed chunks without CRCs: break the framing of a channel-2
    // message. Walking the chunk fails there; the index lets a filter on
    // channel 0 jump over it.
    let mut file = written(Compression::None, true, false);
    let mut lin = LinearReader::new(&file);
    let at = loop {
        if let Record::Message(m) = lin.next().unwrap().unwrap() {
            if m.channel_id == 2 && m.log_time > 30_000 {
                break lin.last_offset() as usize;
            }
        }
    };
    file[at + 1..at + 9].copy_from_slice(&u64::MAX.to_le_bytes());
    let s = Summary::read(&file, true).unwrap().unwrap();
    let only0 = IndexFilter {
        channels: Some([0].into()),
        ..IndexFilter::default()
    };
    let mut want: Vec<_> = common::messages()
        .into_iter()
        .filter(|m| m.0 == 0)
        .collect();
    want.sort_by_key(|m| m.1);
    assert_eq!(read(&file, &only0), want);
    let all: Vec<_> =
        IndexedMessages::new(&file, &s, IndexFilter::default(), ReadOptions::default()).collect();
    assert!(all.last().unwrap().is_err());
}

#[test]
fn a_wrong_message_index_falls_back_to_walking_the_chunk() {
    let mut file = written(Compression::Lz4, true, true);
    let s = Summary::read(&file, true).unwrap().unwrap();
    // Point a Message Index record at another channel: the reader notices
    // and walks the chunk, so nothing is lost.
    let ci = &s.chunk_indexes[1];
    let (&ch, &off) = ci.message_index_offsets.iter().next().unwrap();
    let at = off as usize + 9;
    file[at..at + 2].copy_from_slice(&(ch + 7).to_le_bytes());
    let f = IndexFilter {
        channels: Some([ch].into()),
        ..IndexFilter::default()
    };
    let mut want: Vec<_> = common::messages()
        .into_iter()
        .filter(|m| m.0 == ch)
        .collect();
    want.sort_by_key(|m| m.1);
    assert_eq!(read(&file, &f), want);
}

#[test]
fn unindexed_and_doubly_indexed_chunks_yield_each_message_once() {
    let file = written(Compression::Zstd, true, true);
    let full = Summary::read(&file, true).unwrap().unwrap();
    let all = |s: &Summary| -> Vec<u64> {
        IndexedMessages::new(&file, s, IndexFilter::default(), ReadOptions::default())
            .map(|r| r.unwrap().1.log_time)
            .collect()
    };
    let want = all(&full);
    assert_eq!(want.len(), common::messages().len());
    // A chunk the summary forgot is found by the pass over the data section.
    let mut missing = full.clone();
    missing.chunk_indexes.remove(1);
    assert_eq!(all(&missing), want);
    // A chunk indexed twice is still read once.
    let mut twice = full.clone();
    twice.chunk_indexes.push(full.chunk_indexes[2].clone());
    assert_eq!(all(&twice), want);
}
