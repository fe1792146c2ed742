//! Scaling with the number of connections: 100,000 connections on as many
//! topics, one message each, bz2 chunks. Opening, `rosbag info` and every
//! message must stay O(n log n); run with
//! `cargo bench -p rosbag12 --bench many_connections`.

use std::hint::black_box;
use std::io::Cursor;

use criterion::{Criterion, criterion_group, criterion_main};
use logcore::MessageFilter;
use rosbag12::info::BagInfo;
use rosbag12::{Bag, Compression, Connection, RosTime, Writer, WriterOptions};

const CONNECTIONS: u32 = 100_000;

fn build() -> Vec<u8> {
    let mut w = Writer::new(
        Cursor::new(Vec::new()),
        WriterOptions::compressed(Compression::Lz4),
    )
    .expect("writer");
    let mut ids = Vec::new();
    for i in 0..CONNECTIONS {
        let c = Connection::new(
            0,
            format!("/t{i}"),
            "std_msgs/UInt8",
            "7c8164229e7d2c17eb95e9231617fdee",
            "uint8 data\n",
        );
        ids.push(w.add_connection(c).expect("connection"));
    }
    for (i, id) in ids.iter().enumerate() {
        let t = RosTime {
            sec: 1 + i as u32 / 1000,
            nsec: (i as u32 % 1000) * 1_000_000,
        };
        w.write(*id, t, &[i as u8]).expect("message");
    }
    w.finish().expect("finish");
    w.into_inner().into_inner()
}

fn bench(c: &mut Criterion) {
    let data = build();
    let mut g = c.benchmark_group("bag_100k_connections");
    g.sample_size(10);
    g.bench_function("open_and_info", |b| {
        b.iter(|| {
            let bag = Bag::new(&data).expect("bag");
            black_box(BagInfo::new(&bag).topics.len())
        })
    });
    let bag = Bag::new(&data).expect("bag");
    g.bench_function("messages", |b| {
        b.iter(|| black_box(bag.messages(&MessageFilter::all()).count()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
