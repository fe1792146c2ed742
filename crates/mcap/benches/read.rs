//! Read throughput: iterate every message of 1M-message files written by
//! the `mcap` crate (uncompressed, lz4, zstd; 1 MiB chunks, 16-byte
//! payloads on 4 channels), with our streamed reader, our indexed reader
//! (bare and through `LogReader::messages`) and with the `mcap` crate's
//! `MessageStream` in the same run. Run with
//! `cargo xtask bench mcap`.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::io::Cursor;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use logcore::{LogReader, MessageFilter};
use mcapfile::{IndexFilter, IndexedMessages, LinearReader, Mcap, ReadOptions, Record, Summary};

const MESSAGES: u64 = 1_000_000;

fn build(compression: Option<mcap::Compression>) -> Vec<u8> {
    let mut w = mcap::WriteOptions::new()
        .compression(compression)
        .chunk_size(Some(1 << 20))
        .create(Cursor::new(Vec::new()))
        .expect("in-memory writer");
    let schema = w.add_schema("Sample", "jsonschema", b"{}").expect("schema");
    let channels: Vec<u16> = (0..4)
        .map(|i| {
            w.add_channel(schema, &format!("/ch{i}"), "json", &BTreeMap::new())
                .expect("channel")
        })
        .collect();
    for i in 0..MESSAGES {
        let header = mcap::records::MessageHeader {
            channel_id: channels[(i % 4) as usize],
            sequence: i as u32,
            log_time: i * 1_000,
            publish_time: i * 1_000,
        };
        let payload = (i as u128).to_le_bytes();
        w.write_to_known_channel(&header, &payload).expect("write");
    }
    w.finish().expect("finish");
    w.into_inner().into_inner()
}

fn ours(data: &[u8]) -> u64 {
    let mut n = 0u64;
    for r in LinearReader::new(data) {
        if let Ok(Record::Message(m)) = r {
            n += m.data.len() as u64 + u64::from(m.channel_id);
        }
    }
    n
}

fn ours_logreader(data: &[u8]) -> u64 {
    let mcap = Mcap::new(data).expect("open");
    let mut n = 0u64;
    for m in mcap
        .messages(&MessageFilter::all())
        .expect("messages")
        .flatten()
    {
        n += m.payload.len() as u64 + u64::from(m.channel.0);
    }
    n
}

fn ours_indexed(data: &[u8]) -> u64 {
    let summary = Summary::read(data, true)
        .expect("summary")
        .expect("indexed");
    let mut n = 0u64;
    for (_, m) in IndexedMessages::new(
        data,
        &summary,
        IndexFilter::default(),
        ReadOptions::default(),
    )
    .flatten()
    {
        n += m.data.len() as u64 + u64::from(m.channel_id);
    }
    n
}

fn theirs(data: &[u8]) -> u64 {
    let mut n = 0u64;
    for m in mcap::MessageStream::new(data).expect("stream").flatten() {
        n += m.data.len() as u64 + u64::from(m.channel.id);
    }
    n
}

fn bench(c: &mut Criterion) {
    for (name, comp) in [
        ("none", None),
        ("lz4", Some(mcap::Compression::Lz4)),
        ("zstd", Some(mcap::Compression::Zstd)),
    ] {
        let file = build(comp);
        assert_eq!(ours(&file), theirs(&file));
        assert_eq!(ours_indexed(&file), theirs(&file));
        let mut g = c.benchmark_group(format!("mcap-1M-{name}"));
        g.throughput(Throughput::Bytes(file.len() as u64));
        g.sample_size(10);
        g.bench_function("mcapfile LinearReader", |b| {
            b.iter(|| black_box(ours(&file)))
        });
        g.bench_function("mcapfile LogReader (indexed)", |b| {
            b.iter(|| black_box(ours_logreader(&file)))
        });
        g.bench_function("mcapfile IndexedMessages", |b| {
            b.iter(|| black_box(ours_indexed(&file)))
        });
        g.bench_function("mcap MessageStream", |b| {
            b.iter(|| black_box(theirs(&file)))
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
