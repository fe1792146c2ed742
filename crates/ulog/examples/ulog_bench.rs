//! Times `ULog::parse`, and `parse` plus every subscription's `columns()`,
//! on the given files (best of 20, as `cargo xtask bench ulog` does, without
//! pyulog), or repeats the work `--loop N` times for a profiler:
//!
//! ```text
//! cargo build --release -p ulogfile --example ulog_bench
//! target/release/examples/ulog_bench FILE.ulg...
//! perf record -g target/release/examples/ulog_bench --loop 200 [--parse-only] FILE.ulg...
//! ```

use std::time::{Duration, Instant};

use ulogfile::ULog;

fn best(n: usize, mut f: impl FnMut()) -> Duration {
    let mut b = Duration::MAX;
    for _ in 0..n {
        let t = Instant::now();
        f();
        b = b.min(t.elapsed());
    }
    b
}

fn work(bytes: &[u8], columns: bool) -> usize {
    let log = ULog::parse(bytes).expect("parse");
    let mut n = log.subscriptions.len();
    if columns {
        for s in &log.subscriptions {
            for (_, c) in s.columns() {
                n += c.len();
            }
        }
    }
    n
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut looping = None;
    let parse_only = args.iter().any(|a| a == "--parse-only");
    args.retain(|a| a != "--parse-only");
    if let Some(i) = args.iter().position(|a| a == "--loop") {
        looping = args.get(i + 1).and_then(|n| n.parse::<usize>().ok());
        args.drain(i..(i + 2).min(args.len()));
    }
    if let Some(n) = looping {
        let files: Vec<Vec<u8>> = args
            .iter()
            .map(|p| std::fs::read(p).expect("read"))
            .collect();
        let mut t = 0;
        for _ in 0..n {
            for b in &files {
                t += work(b, !parse_only);
            }
        }
        println!("{t}");
        return;
    }
    println!(
        "{:<46} {:>6} {:>11} {:>13}",
        "file", "MB", "parse MB/s", "+columns MB/s"
    );
    let (mut tp, mut tc, mut mb) = (0.0, 0.0, 0.0);
    // Each file is read just before it is timed, as `cargo xtask bench ulog`
    // does (the allocator's state between runs changes the figures).
    for p in &args {
        let bytes = std::fs::read(p).expect("read");
        let b = &bytes;
        let m = b.len() as f64 / 1e6;
        let parse = best(20, || {
            std::hint::black_box(work(b, false));
        })
        .as_secs_f64();
        let cols = best(20, || {
            std::hint::black_box(work(b, true));
        })
        .as_secs_f64();
        tp += parse;
        tc += cols;
        mb += m;
        let name = p.rsplit('/').next().unwrap_or(p);
        println!("{name:<46} {m:>6.2} {:>11.0} {:>13.0}", m / parse, m / cols);
    }
    println!(
        "{:<46} {mb:>6.2} {:>11.0} {:>13.0}",
        "all",
        mb / tp,
        mb / tc
    );
}
