//! Scaling with the number of channels: 65,535 channels (every id MCAP
//! has) on one 64 KiB schema, one message each. Opening, the summary, the
//! channel list, `mcap info` and every message must stay O(n log n) and
//! never copy the schema per channel; run with
//! `cargo bench -p mcapfile --bench many_channels`.

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use logcore::{LogReader, MessageFilter};
use mcapfile::{Mcap, WriteOptions, Writer};

const CHANNELS: u32 = 65_535;

fn build() -> Vec<u8> {
    let mut w = Writer::new(Vec::new(), WriteOptions::default()).expect("writer");
    let id = w
        .add_schema("big/Schema", "ros1msg", &vec![b'#'; 64 << 10])
        .expect("schema");
    for i in 0..CHANNELS {
        let ch = w
            .add_channel(id, &format!("/c{i}"), "ros1", &BTreeMap::new())
            .expect("channel");
        w.write_message(ch, 0, u64::from(i), u64::from(i), b"x")
            .expect("message");
    }
    w.finish().expect("finish")
}

fn bench(c: &mut Criterion) {
    let data = build();
    let mut g = c.benchmark_group("mcap_65535_channels");
    g.sample_size(10);
    g.bench_function("open_summary_channels_info", |b| {
        b.iter(|| {
            let mcap = Mcap::new(&data).expect("mcap");
            let s = mcap.summary().expect("summary");
            let info = mcapfile::info::Info::new(&mcap).expect("info");
            black_box((
                s.channels.len(),
                mcap.channels().expect("channels").len(),
                info.channels.len(),
            ))
        })
    });
    let mcap = Mcap::new(&data).expect("mcap");
    g.bench_function("messages", |b| {
        b.iter(|| {
            black_box(
                mcap.messages(&MessageFilter::all())
                    .expect("messages")
                    .count(),
            )
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
