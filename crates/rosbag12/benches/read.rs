//! Iterating every message of large bags, against the `rosbag` crate: its
//! chunk walk (framing, no order, each message borrowed from its chunk)
//! and our `Bag::messages` (time order; each message sharing its chunk's
//! buffer, or borrowed from it through `Messages::next_borrowed`),
//! plus full decoding to `logcore::Value` (a new value per message,
//! `ours_decode`, and one reused value per connection, `ours_decode_reuse`,
//! `Bag::decode_into`). Every contender runs once per round, rounds
//! alternate the order, and the medians are compared.
//!
//! `cargo xtask bench rosbag` makes the bags with the Python `rosbags`
//! package (uncompressed, lz4, bz2; 330k messages) and sets
//! `ROSBAG12_BENCH_DIR`; without it, a 24 MB bag is written with our own
//! writer into the target folder. `ROSBAG12_BENCH_OUT` names a JSON file
//! for the medians; `ROSBAG12_BENCH_ROUNDS` (default 7),
//! `ROSBAG12_BENCH_ONLY=name` and `ROSBAG12_BENCH_CASE=none|lz4|bz2` narrow
//! the run (for a profiler).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

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
            .filter(|c| {
                std::env::var("ROSBAG12_BENCH_CASE")
                    .ok()
                    .is_none_or(|o| o == **c)
            })
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

fn ours(bytes: &[u8], _: &Path) -> usize {
    let bag = Bag::new(bytes).unwrap();
    let mut n = 0usize;
    for m in bag.messages(&MessageFilter::all()) {
        n += m.unwrap().data.len();
    }
    n
}

/// [`ours`] with every chunk decompressed on the caller's thread (no
/// read-ahead threads), to show what the threads add.
fn ours_in_place(bytes: &[u8], _: &Path) -> usize {
    let bag = Bag::new(bytes).unwrap();
    let mut n = 0usize;
    for m in bag.messages(&MessageFilter::all()).read_ahead_threads(0) {
        n += m.unwrap().data.len();
    }
    n
}

/// [`ours`] through [`rosbag12::Messages::next_borrowed`]: each message
/// lent out of its chunk's buffer, as the peer's walk lends it, with no
/// reference count taken.
fn ours_borrowed(bytes: &[u8], _: &Path) -> usize {
    let bag = Bag::new(bytes).unwrap();
    let mut n = 0usize;
    let mut messages = bag.messages(&MessageFilter::all());
    while let Some(m) = messages.next_borrowed() {
        n += m.unwrap().data.len();
    }
    n
}

/// [`ours_borrowed`] with every chunk decompressed on the caller's thread.
fn ours_borrowed_in_place(bytes: &[u8], _: &Path) -> usize {
    let bag = Bag::new(bytes).unwrap();
    let mut n = 0usize;
    let mut messages = bag.messages(&MessageFilter::all()).read_ahead_threads(0);
    while let Some(m) = messages.next_borrowed() {
        n += m.unwrap().data.len();
    }
    n
}

fn peer(_: &[u8], path: &Path) -> usize {
    use rosbag::{ChunkRecord, MessageRecord, RosBag};
    let peer = RosBag::new(path).unwrap();
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
    n
}

fn ours_decode(bytes: &[u8], _: &Path) -> usize {
    let bag = Bag::new(bytes).unwrap();
    let mut n = 0usize;
    for m in bag.messages(&MessageFilter::all()) {
        let m = m.unwrap();
        black_box(bag.decode(m.conn, &m.data).unwrap());
        n += m.data.len();
    }
    n
}

fn ours_decode_reuse(bytes: &[u8], _: &Path) -> usize {
    let bag = Bag::new(bytes).unwrap();
    let mut values = std::collections::HashMap::new();
    let mut n = 0usize;
    for m in bag.messages(&MessageFilter::all()) {
        let m = m.unwrap();
        let v = values.entry(m.conn).or_insert(logcore::Value::Null);
        bag.decode_into(m.conn, &m.data, v).unwrap();
        black_box(v);
        n += m.data.len();
    }
    n
}

type Contender = (&'static str, fn(&[u8], &Path) -> usize);

/// The first is the peer the others are compared with.
const CONTENDERS: [Contender; 7] = [
    ("rosbag_crate_framing", peer),
    ("ours_framing", ours),
    ("ours_in_place_framing", ours_in_place),
    ("ours_borrowed_framing", ours_borrowed),
    ("ours_borrowed_in_place_framing", ours_borrowed_in_place),
    ("ours_decode", ours_decode),
    ("ours_decode_reuse", ours_decode_reuse),
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
    let rounds: usize = std::env::var("ROSBAG12_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(7)
        .max(1);
    let only = std::env::var("ROSBAG12_BENCH_ONLY").ok();
    let contenders: Vec<Contender> = CONTENDERS
        .into_iter()
        .filter(|(name, _)| only.as_deref().is_none_or(|o| name.contains(o)))
        .collect();
    println!("rosbag read benchmark: medians of {rounds} alternating rounds; MB/s of file bytes");
    let mut report = serde_json::Map::new();
    for (case, path) in bags() {
        let bytes = std::fs::read(&path).unwrap();
        let want = ours(&bytes, &path);
        assert_eq!(peer(&bytes, &path), want, "message bytes differ on {case}");
        let mb = bytes.len() as f64 / 1e6;
        let mut times = vec![Vec::with_capacity(rounds); contenders.len()];
        for round in 0..rounds {
            let mut order: Vec<usize> = (0..contenders.len()).collect();
            if round % 2 == 1 {
                order.reverse();
            }
            for i in order {
                let start = Instant::now();
                black_box((contenders[i].1)(black_box(&bytes), &path));
                times[i].push(start.elapsed().as_secs_f64());
            }
        }
        let medians: Vec<f64> = times.iter_mut().map(|t| median(t)).collect();
        let peer_t = contenders
            .iter()
            .position(|(n, _)| n.starts_with("rosbag_crate"))
            .map(|i| medians[i]);
        println!(
            "{case}: {} ({mb:.0} MB, {want} bytes of messages)",
            path.display()
        );
        let mut row = serde_json::Map::new();
        row.insert("file_bytes".into(), bytes.len().into());
        row.insert("message_bytes".into(), want.into());
        for ((name, _), t) in contenders.iter().zip(&medians) {
            // Decoding does more than the peer's framing: no ratio.
            let ratio = match peer_t {
                Some(p) if name.ends_with("framing") => format!("  {:.2}x rosbag crate", p / t),
                _ => String::new(),
            };
            println!("  {name:<31} {:>8.0} MB/s{ratio}", mb / t);
            row.insert((*name).into(), (*t).into());
        }
        report.insert(case, row.into());
    }
    if let Some(out) = std::env::var_os("ROSBAG12_BENCH_OUT") {
        std::fs::write(out, serde_json::Value::from(report).to_string()).unwrap();
    }
}
