//! No panic on damaged input: mutated corpus metadata through the YAML
//! parser and `Metadata`, and corpus storage files with flipped bytes
//! opened, read and decoded (errors are fine, panics are not). Skipped
//! when the corpus (`../shared/corpus/rosbag2`) is absent.

mod common;

use logcore::{LogReader, MessageFilter, ReadMode};
use rosbag2::{Bag2, Metadata};

/// xorshift64*: a fixed sequence, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const SPECIAL: &[u8] = b"[]{}\"'|>-:, \n#&*!?~\\\t0x";

fn mutate(rng: &mut Rng, text: &[u8]) -> Vec<u8> {
    let mut v = text.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(4) {
            0 if at < v.len() => v[at] = SPECIAL[rng.below(SPECIAL.len())],
            1 => v.insert(at, SPECIAL[rng.below(SPECIAL.len())]),
            2 if at < v.len() => {
                let end = (at + rng.below(40)).min(v.len());
                v.drain(at..end);
            }
            _ => {
                let end = (at + rng.below(60)).min(v.len());
                let piece = v[at..end].to_vec();
                let to = rng.below(v.len() + 1);
                v.splice(to..to, piece);
            }
        }
    }
    v
}

#[test]
fn mutated_metadata_never_panics() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut texts = Vec::new();
    for kind in ["sqlite3", "mcap"] {
        for e in std::fs::read_dir(corpus.join(kind)).unwrap() {
            let m = e.unwrap().path().join("metadata.yaml");
            if m.is_file() {
                texts.push(std::fs::read(m).unwrap());
            }
        }
    }
    let mut parsed = 0;
    for text in &texts {
        for _ in 0..400 {
            let v = mutate(&mut rng, text);
            let Ok(s) = std::str::from_utf8(&v) else {
                continue;
            };
            if Metadata::parse(s).is_ok() {
                parsed += 1;
            }
        }
    }
    assert!(parsed > 0);
}

#[test]
fn damaged_storage_files_never_panic() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("rosbag2-robust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    for (src, name) in [
        ("sqlite3/cdr_test/cdr_test_0.db3", "x.db3"),
        ("sqlite3/single-file/topics_and_services.db3", "y.db3"),
        ("mcap/cdr_test/cdr_test_0.mcap", "x.mcap"),
        ("mcap/rewriter_b/rewriter_b_0.mcap", "y.mcap"),
    ] {
        let orig = std::fs::read(corpus.join(src)).unwrap();
        for _ in 0..60 {
            let mut v = orig.clone();
            for _ in 0..1 + rng.below(20) {
                let at = rng.below(v.len());
                v[at] = rng.next() as u8;
            }
            if rng.below(4) == 0 {
                v.truncate(rng.below(v.len()));
            }
            let f = dir.join(name);
            std::fs::write(&f, &v).unwrap();
            let Ok(bag) = Bag2::open(&f) else {
                continue;
            };
            let _ = bag.summary();
            for mode in [ReadMode::Strict, ReadMode::Lenient] {
                let Ok(it) = bag.messages(&MessageFilter::all().mode(mode)) else {
                    continue;
                };
                for m in it.take(10_000).flatten() {
                    let _ = bag.decode(&m);
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_bag_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Bag2>();
}
