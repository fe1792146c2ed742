//! Scaling with the number of subscriptions: 65,535 (every msg_id a ULog
//! can have), two samples each, read through `LogReader` (summary, channels
//! and every message merged by timestamp). Every pass must stay
//! O(n log n); run with `cargo bench -p ulogfile --bench many_subscriptions`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use logcore::{LogReader, MessageFilter};
use ulogfile::ULog;
use ulogfile::write::Writer;

const SUBSCRIPTIONS: u32 = 65_535;

/// 256 formats × 256 multi_ids (less one), samples written backwards in time.
fn build() -> Vec<u8> {
    let mut w = Writer::new(Vec::new(), 0).expect("writer");
    for f in 0..256 {
        w.add_format(&format!("t{f}:uint64_t timestamp;uint8_t x;"))
            .expect("format");
    }
    let mut ids = Vec::new();
    'outer: for f in 0..256 {
        for m in 0..=255u8 {
            if ids.len() as u32 == SUBSCRIPTIONS {
                break 'outer;
            }
            ids.push(
                w.add_subscription(&format!("t{f}"), m)
                    .expect("subscription"),
            );
        }
    }
    let n = ids.len() as u64;
    for round in 0..2u64 {
        for (i, id) in ids.iter().enumerate() {
            let t = (round * n + n - i as u64) * 10;
            let mut s = t.to_le_bytes().to_vec();
            s.push(i as u8);
            w.write_data(*id, &s).expect("sample");
        }
    }
    w.finish().expect("finish")
}

fn bench(c: &mut Criterion) {
    let data = build();
    let mut g = c.benchmark_group("ulog_65535_subscriptions");
    g.sample_size(10);
    g.bench_function("parse_summary_channels", |b| {
        b.iter(|| {
            let log = ULog::parse(&data).expect("parse");
            let s = log.summary().expect("summary");
            black_box((s.message_count, log.channels().expect("channels").len()))
        })
    });
    let log = ULog::parse(&data).expect("parse");
    g.bench_function("messages_by_time", |b| {
        b.iter(|| {
            black_box(
                log.messages(&MessageFilter::all())
                    .expect("messages")
                    .count(),
            )
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
