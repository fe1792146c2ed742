//! Structure-aware MCAP fuzzing: the fuzzer chooses writer options,
//! schemas, channels, messages, attachments and metadata; our `Writer`
//! writes them (so magic, lengths, CRCs, chunks and indexes are right);
//! then the chosen mutations damage the file. Unmutated, both readers must
//! give back exactly what was written; mutated, every reader must return
//! normally.

#![no_main]

use std::collections::BTreeMap;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use mcapfile::{
    Compression, IndexFilter, IndexedMessages, LinearReader, ReadOptions, Record, Summary,
    WriteOptions, Writer,
};
use robolog_fuzz::{Mutation, mutate, read};

#[derive(Arbitrary, Debug)]
struct Input {
    options: Options,
    schemas: Vec<(String, String, Vec<u8>)>,
    channels: Vec<(u8, String, String, BTreeMap<String, String>)>,
    ops: Vec<Op>,
    mutations: Vec<Mutation>,
}

#[derive(Arbitrary, Debug)]
struct Options {
    use_chunks: bool,
    chunk_size: u16,
    compression: u8,
    flags: u16,
}

#[derive(Arbitrary, Debug)]
enum Op {
    Message {
        channel: u8,
        sequence: u32,
        log_time: u64,
        publish_time: u64,
        data: Vec<u8>,
    },
    Attachment {
        log_time: u64,
        create_time: u64,
        name: String,
        media_type: String,
        data: Vec<u8>,
    },
    Metadata {
        name: String,
        entries: BTreeMap<String, String>,
    },
    FlushChunk,
}

/// A written message: channel, sequence, log time, publish time, data.
type Written = (u16, u32, u64, u64, Vec<u8>);

fn write(input: &Input) -> Option<(Vec<u8>, Vec<Written>)> {
    let o = &input.options;
    let bit = |i: u16| o.flags & (1 << i) == 0;
    let opts = WriteOptions {
        use_chunks: o.use_chunks,
        chunk_size: u64::from(o.chunk_size),
        compression: match o.compression % 3 {
            0 => Compression::None,
            1 => Compression::Lz4,
            _ => Compression::Zstd,
        },
        message_indexes: bit(0),
        chunk_indexes: bit(1),
        attachment_indexes: bit(2),
        metadata_indexes: bit(3),
        statistics: bit(4),
        repeat_schemas: bit(5),
        repeat_channels: bit(6),
        summary_offsets: bit(7),
        crcs: bit(8),
        ..WriteOptions::default()
    };
    let mut w = Writer::new(Vec::new(), opts).ok()?;
    let mut schema_ids = vec![0];
    for (name, encoding, data) in &input.schemas {
        schema_ids.push(w.add_schema(name, encoding, data).ok()?);
    }
    let mut channel_ids = Vec::new();
    for (schema, topic, encoding, metadata) in &input.channels {
        let schema = schema_ids[usize::from(*schema) % schema_ids.len()];
        channel_ids.push(w.add_channel(schema, topic, encoding, metadata).ok()?);
    }
    let mut written = Vec::new();
    for op in &input.ops {
        match op {
            Op::Message {
                channel,
                sequence,
                log_time,
                publish_time,
                data,
            } => {
                if channel_ids.is_empty() {
                    continue;
                }
                let ch = channel_ids[usize::from(*channel) % channel_ids.len()];
                w.write_message(ch, *sequence, *log_time, *publish_time, data)
                    .ok()?;
                written.push((ch, *sequence, *log_time, *publish_time, data.clone()));
            }
            Op::Attachment {
                log_time,
                create_time,
                name,
                media_type,
                data,
            } => w
                .write_attachment(*log_time, *create_time, name, media_type, data)
                .ok()?,
            Op::Metadata { name, entries } => w.write_metadata(name, entries).ok()?,
            Op::FlushChunk => w.flush_chunk().ok()?,
        }
    }
    Some((w.finish().ok()?, written))
}

fuzz_target!(|input: Input| {
    let Some((mut file, written)) = write(&input) else {
        return;
    };
    if input.mutations.is_empty() {
        // Streamed, strict, CRCs checked: every message in file order.
        let streamed: Vec<Written> = LinearReader::new(&file)
            .map(|r| r.expect("an unmutated file reads cleanly"))
            .filter_map(|r| match r {
                Record::Message(m) => Some((
                    m.channel_id,
                    m.sequence,
                    m.log_time,
                    m.publish_time,
                    m.data.to_vec(),
                )),
                _ => None,
            })
            .collect();
        assert_eq!(streamed, written);
        // Indexed: the same messages, ordered by log time.
        let summary = Summary::read(&file, true).expect("the summary reads");
        if let Some(s) = summary.filter(|s| !s.chunk_indexes.is_empty()) {
            let mut indexed: Vec<Written> =
                IndexedMessages::new(&file, &s, IndexFilter::default(), ReadOptions::default())
                    .map(|r| {
                        let (_, m) = r.expect("an unmutated file reads cleanly by index");
                        (
                            m.channel_id,
                            m.sequence,
                            m.log_time,
                            m.publish_time,
                            m.data.to_vec(),
                        )
                    })
                    .collect();
            assert!(indexed.windows(2).all(|w| w[0].2 <= w[1].2));
            let mut expected = written.clone();
            expected.sort();
            indexed.sort();
            assert_eq!(indexed, expected);
        }
    }
    mutate(&mut file, &input.mutations);
    read::mcap(&file);
});
