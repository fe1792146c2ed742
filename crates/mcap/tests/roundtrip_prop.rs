//! Properties of write-then-read for any messages: read(write(x)) == x
//! through the streamed reader (every compression, chunked or not) and the
//! indexed reader, and every prefix of a written file reads back exactly
//! the messages whose records end before the cut.
//!
//! Truncation semantics: the streamed reader yields every record that is
//! complete before the cut, then one truncation error (none when the cut
//! falls between records after the magic). A chunk is read whole or not
//! at all (its records are compressed and checked together), so a message
//! in a chunk is read exactly when its chunk is complete; the prefix
//! property writes one message per chunk to make that exact.

use std::collections::BTreeMap;

use mcapfile::{
    Compression, IndexFilter, IndexedMessages, LinearReader, ReadOptions, Record, Summary,
    WriteOptions, Writer,
};
use proptest::prelude::*;

/// A message: channel, sequence, log time, publish time, data.
type Msg = (u16, u32, u64, u64, Vec<u8>);

fn messages() -> impl Strategy<Value = Vec<Msg>> {
    prop::collection::vec(
        (
            0..3u16,
            any::<u32>(),
            0..1_000u64,
            any::<u64>(),
            prop::collection::vec(any::<u8>(), 0..40),
        ),
        0..16,
    )
}

fn write(opts: WriteOptions, messages: &[Msg]) -> Vec<u8> {
    let mut w = Writer::new(Vec::new(), opts).unwrap();
    let schema = w.add_schema("S", "jsonschema", b"{}").unwrap();
    for topic in ["/a", "/b", "/c"] {
        w.add_channel(schema, topic, "json", &BTreeMap::new())
            .unwrap();
    }
    for (ch, seq, log, publish, data) in messages {
        w.write_message(*ch, *seq, *log, *publish, data).unwrap();
    }
    w.finish().unwrap()
}

/// The messages read before the first error, and how many errors follow.
fn streamed(file: &[u8]) -> (Vec<Msg>, usize) {
    let mut good = Vec::new();
    let mut errors = 0;
    for r in LinearReader::new(file) {
        match r {
            Ok(Record::Message(m)) if errors == 0 => good.push((
                m.channel_id,
                m.sequence,
                m.log_time,
                m.publish_time,
                m.data.to_vec(),
            )),
            Ok(_) => {}
            Err(_) => errors += 1,
        }
    }
    (good, errors)
}

/// Top-level records after the magic: (end offset, opcode).
fn records(file: &[u8]) -> Vec<(usize, u8)> {
    let mut at = 8;
    let mut out = Vec::new();
    while at + 9 <= file.len() - 8 {
        let len = u64::from_le_bytes(file[at + 1..at + 9].try_into().unwrap()) as usize;
        out.push((at + 9 + len, file[at]));
        at += 9 + len;
    }
    out
}

fn options(compression: Compression, use_chunks: bool, chunk_size: u64) -> WriteOptions {
    WriteOptions {
        compression,
        use_chunks,
        chunk_size,
        ..WriteOptions::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn read_of_write_is_identity(messages in messages(), chunk_size in 0..300u64) {
        for compression in [Compression::None, Compression::Lz4, Compression::Zstd] {
            for use_chunks in [true, false] {
                let file = write(options(compression, use_chunks, chunk_size), &messages);
                prop_assert_eq!(streamed(&file), (messages.clone(), 0));
                if !use_chunks {
                    continue;
                }
                let summary = Summary::read(&file, true).unwrap().unwrap();
                let mut indexed: Vec<Msg> = IndexedMessages::new(
                    &file,
                    &summary,
                    IndexFilter::default(),
                    ReadOptions::default(),
                )
                .map(|r| {
                    let (_, m) = r.unwrap();
                    (m.channel_id, m.sequence, m.log_time, m.publish_time, m.data.to_vec())
                })
                .collect();
                prop_assert!(indexed.windows(2).all(|w| w[0].2 <= w[1].2));
                let mut expected = messages.clone();
                expected.sort();
                indexed.sort();
                prop_assert_eq!(indexed, expected);
            }
        }
    }

    #[test]
    fn every_prefix_reads_the_messages_before_the_cut(messages in messages()) {
        for use_chunks in [true, false] {
            let file = write(options(Compression::Zstd, use_chunks, 0), &messages);
            let records = records(&file);
            let container = if use_chunks { 0x06 } else { 0x05 };
            let mut ends: Vec<usize> = records
                .iter()
                .filter(|r| r.1 == container)
                .map(|r| r.0)
                .collect();
            if messages.is_empty() {
                // The schema and channels still make a chunk.
                ends.clear();
            }
            prop_assert_eq!(ends.len(), messages.len());
            for cut in 0..file.len() {
                let (good, errors) = streamed(&file[..cut]);
                let complete = ends.iter().filter(|&&e| e <= cut).count();
                prop_assert_eq!(&good[..], &messages[..complete], "cut {}", cut);
                prop_assert_eq!(errors, 1, "cut {} of {}", cut, file.len());
            }
        }
    }
}
