//! Read throughput against the `mcap` crate's `MessageStream`: every
//! message of each file is iterated by every contender, in alternating
//! runs within this one process, and the medians are compared.
//!
//! `cargo xtask bench mcap` writes the inputs with the Python `mcap` 1.6
//! writer (1M messages of 16-1024 bytes on 10 channels, 1 MiB chunks;
//! uncompressed, zstd, lz4) and sets `MCAPFILE_BENCH_DIR`. Without it, small
//! files are written with the `mcap` crate into the target folder.
//!
//! CRCs: our readers check chunk CRCs (the default `ReadOptions`), and so
//! does `MessageStream` by default.
//!
//! `MCAPFILE_BENCH_ROUNDS` sets the number of alternating rounds (default
//! 7); `MCAPFILE_BENCH_ONLY=name` runs one contender alone (for a profiler);
//! `MCAPFILE_BENCH_CASE=none|zstd|lz4` one input.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::time::Instant;

use logcore::{LogReader, MessageFilter};
use mcapfile::{IndexFilter, IndexedMessages, LinearReader, Mcap, ReadOptions, Record, Summary};

/// A small file made by the `mcap` crate, for a run without the Python inputs.
fn build(path: &Path, compression: Option<mcap::Compression>) {
    let mut w = mcap::WriteOptions::new()
        .compression(compression)
        .chunk_size(Some(1 << 20))
        .create(Cursor::new(Vec::new()))
        .expect("in-memory writer");
    let schema = w.add_schema("Sample", "jsonschema", b"{}").expect("schema");
    let channels: Vec<u16> = (0..10)
        .map(|i| {
            w.add_channel(schema, &format!("/ch{i}"), "json", &BTreeMap::new())
                .expect("channel")
        })
        .collect();
    let payload = vec![0x5a_u8; 1024];
    for i in 0..100_000u64 {
        let header = mcap::records::MessageHeader {
            channel_id: channels[(i % 10) as usize],
            sequence: i as u32,
            log_time: i * 1_000,
            publish_time: i * 1_000,
        };
        let len = 16 + (i * 7919 % 1009) as usize;
        w.write_to_known_channel(&header, &payload[..len])
            .expect("write");
    }
    w.finish().expect("finish");
    std::fs::write(path, w.into_inner().into_inner()).expect("write bench file");
}

fn inputs() -> Vec<(String, PathBuf)> {
    let only = std::env::var("MCAPFILE_BENCH_CASE").ok();
    let cases = ["none", "zstd", "lz4"]
        .into_iter()
        .filter(|c| only.as_deref().is_none_or(|o| o == *c));
    match std::env::var_os("MCAPFILE_BENCH_DIR") {
        Some(dir) => cases
            .map(|c| {
                (
                    c.to_string(),
                    Path::new(&dir).join(format!("bench-{c}.mcap")),
                )
            })
            .filter(|(_, p)| p.exists())
            .collect(),
        None => {
            let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
            cases
                .map(|c| {
                    let path = dir.join(format!("mcapfile-bench-own-{c}.mcap"));
                    if !path.exists() {
                        let comp = match c {
                            "zstd" => Some(mcap::Compression::Zstd),
                            "lz4" => Some(mcap::Compression::Lz4),
                            _ => None,
                        };
                        build(&path, comp);
                    }
                    (format!("own-{c}"), path)
                })
                .collect()
        }
    }
}

/// Our streamed reader (chunks flattened, CRCs checked, strict).
fn ours_streamed(data: &[u8]) -> u64 {
    let mut n = 0u64;
    for r in LinearReader::new(data) {
        if let Ok(Record::Message(m)) = r {
            n += m.data.len() as u64 + u64::from(m.channel_id);
        }
    }
    n
}

/// Our indexed reader, time order.
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

/// Through the `LogReader` trait (indexed, time order).
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

/// The `mcap` crate's `MessageStream` (chunk CRCs checked by default).
fn theirs(data: &[u8]) -> u64 {
    let mut n = 0u64;
    for m in mcap::MessageStream::new(data).expect("stream").flatten() {
        n += m.data.len() as u64 + u64::from(m.channel.id);
    }
    n
}

type Contender = (&'static str, fn(&[u8]) -> u64);

const CONTENDERS: [Contender; 4] = [
    ("mcap MessageStream", theirs),
    ("mcapfile LinearReader", ours_streamed),
    ("mcapfile IndexedMessages", ours_indexed),
    ("mcapfile LogReader", ours_logreader),
];

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument is not supported.
    let rounds: usize = std::env::var("MCAPFILE_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(7)
        .max(1);
    let only = std::env::var("MCAPFILE_BENCH_ONLY").ok();
    let contenders: Vec<Contender> = CONTENDERS
        .into_iter()
        .filter(|(name, _)| only.as_deref().is_none_or(|o| name.contains(o)))
        .collect();
    println!(
        "mcap read benchmark: medians of {rounds} alternating rounds, chunk CRCs checked by every reader"
    );
    for (case, path) in inputs() {
        let data = std::fs::read(&path).expect("read bench file");
        let mb = data.len() as f64 / 1e6;
        let want = theirs(&data);
        for (name, f) in &contenders {
            assert_eq!(
                f(&data),
                want,
                "{name} disagrees with MessageStream on {case}"
            );
        }
        let mut times = vec![Vec::with_capacity(rounds); contenders.len()];
        for round in 0..rounds {
            // Alternate the order too, so neither side always runs second.
            let mut order: Vec<usize> = (0..contenders.len()).collect();
            if round % 2 == 1 {
                order.reverse();
            }
            for i in order {
                let start = Instant::now();
                black_box((contenders[i].1)(black_box(&data)));
                times[i].push(start.elapsed().as_secs_f64());
            }
        }
        let medians: Vec<f64> = times.iter_mut().map(|t| median(t)).collect();
        let peer = contenders
            .iter()
            .position(|(n, _)| n.starts_with("mcap "))
            .map(|i| medians[i]);
        println!("{case}: {} ({mb:.0} MB)", path.display());
        for ((name, _), t) in contenders.iter().zip(&medians) {
            let ratio = peer.map_or(String::new(), |p| format!("  {:.2}x MessageStream", p / t));
            println!("  {name:<26} {:>8.0} MB/s{ratio}", mb / t);
        }
    }
}
