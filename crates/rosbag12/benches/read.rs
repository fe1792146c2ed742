//! Iterating every message of large bags: framing only (ours and the
//! `rosbag` crate, same files) and full decoding to `logcore::Value`, a new
//! value per message (`ours_decode`) and one reused value per connection
//! (`ours_decode_reuse`, `Bag::decode_into`).
//!
//! `cargo xtask bench rosbag` makes the bags with the Python `rosbags`
//! package (uncompressed, lz4, bz2, >= 100 MB of messages) and sets
//! `ROSBAG12_BENCH_DIR`; without it, a 24 MB bag is written with our own
//! writer into the target folder.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use logcore::MessageFilter;
use rosbag12::{Bag, Compression, Connection, RosTime, Writer, WriterOptions};

fn own_bag(dir: &Path) -> PathBuf {
    let path = dir.join("rosbag12-bench-none.bag");
    if path.exists() {
        return path;
    }
    let file = std::fs::File::create(&path).unwrap();
    let mut w = Writer::new(
        std::io::BufWriter::new(file),
        WriterOptions::compressed(Compression::None),
    )
    .unwrap();
    let def = "float64[9] covariance\nstring frame_id\nuint8[] data";
    let c = w
        .add_connection(Connection::new(0, "/x", "bench/X", "*", def))
        .unwrap();
    let mut payload = Vec::new();
    for k in 0..9 {
        payload.extend(f64::from(k).to_le_bytes());
    }
    payload.extend(4u32.to_le_bytes());
    payload.extend(b"base");
    payload.extend(100u32.to_le_bytes());
    payload.extend([7u8; 100]);
    for i in 0..130_000u32 {
        w.write(
            c,
            RosTime {
                sec: 1 + i / 1000,
                nsec: (i % 1000) * 1_000_000,
            },
            &payload,
        )
        .unwrap();
    }
    w.finish().unwrap();
    path
}

fn bags() -> Vec<(String, PathBuf)> {
    match std::env::var_os("ROSBAG12_BENCH_DIR") {
        Some(dir) => ["none", "lz4", "bz2"]
            .iter()
            .map(|c| {
                (
                    c.to_string(),
                    Path::new(&dir).join(format!("bench-{c}.bag")),
                )
            })
            .filter(|(_, p)| p.exists())
            .collect(),
        None => {
            let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
            vec![("own-none".to_string(), own_bag(&dir))]
        }
    }
}

fn bench(c: &mut Criterion) {
    for (name, path) in bags() {
        let bytes = std::fs::read(&path).unwrap();
        let bag = Bag::new(&bytes).unwrap();
        let raw: u64 = bag
            .messages(&MessageFilter::all())
            .map(|m| m.unwrap().data.len() as u64)
            .sum();
        let mut g = c.benchmark_group(format!("rosbag_{name}"));
        g.sample_size(10);
        g.throughput(Throughput::Bytes(raw));
        g.bench_function("ours_framing", |b| {
            b.iter(|| {
                let bag = Bag::new(&bytes).unwrap();
                let mut n = 0usize;
                for m in bag.messages(&MessageFilter::all()) {
                    n += m.unwrap().data.len();
                }
                black_box(n)
            })
        });
        g.bench_function("rosbag_crate_framing", |b| {
            b.iter(|| {
                use rosbag::{ChunkRecord, MessageRecord, RosBag};
                let peer = RosBag::new(&path).unwrap();
                let mut n = 0usize;
                for rec in peer.chunk_records() {
                    if let ChunkRecord::Chunk(chunk) = rec.unwrap() {
                        for m in chunk.messages() {
                            if let MessageRecord::MessageData(d) = m.unwrap() {
                                n += d.data.len();
                            }
                        }
                    }
                }
                black_box(n)
            })
        });
        g.bench_function("ours_decode", |b| {
            b.iter(|| {
                let bag = Bag::new(&bytes).unwrap();
                let mut n = 0usize;
                for m in bag.messages(&MessageFilter::all()) {
                    let m = m.unwrap();
                    black_box(bag.decode(m.conn, &m.data).unwrap());
                    n += 1;
                }
                black_box(n)
            })
        });
        g.bench_function("ours_decode_reuse", |b| {
            b.iter(|| {
                let bag = Bag::new(&bytes).unwrap();
                let mut values = std::collections::HashMap::new();
                let mut n = 0usize;
                for m in bag.messages(&MessageFilter::all()) {
                    let m = m.unwrap();
                    let v = values.entry(m.conn).or_insert(logcore::Value::Null);
                    bag.decode_into(m.conn, &m.data, v).unwrap();
                    black_box(v);
                    n += 1;
                }
                black_box(n)
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
