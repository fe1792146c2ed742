//! Read throughput of a full typed parse: every frame, every packet
//! decoded. Runs on a synthetic recording shaped like CARLA 0.9.13 with
//! additional data (200 vehicles, 50 walkers, 40 traffic lights, 20 Hz for
//! 60 s), and on the file named by `CARLA_BENCH_FILE` when it is set
//! (`cargo xtask bench carla` sets it to the largest corpus recording).
//! Throughput is reported in bytes (MB/s) and in frames (frames/s).

use std::hint::black_box;

use carla_recorder::{
    AnimVehicle, AnimWalker, BoundingBox, FrameStart, InfoHeader, Kinematics, Packet, Position,
    Recording, TrafficLightState, Vec3, VehicleLight, Writer,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const FRAMES: u64 = 1200;

fn build() -> Vec<u8> {
    let mut w = Writer::new(InfoHeader::new(1_637_676_528, b"Town10HD_Opt")).expect("writer");
    for n in 0..FRAMES {
        let t = n as f32 * 0.05;
        let positions: Vec<Position> = (0..250u32)
            .map(|i| Position {
                id: i,
                location: Vec3::new(f64::from(t * i as f32), 100.0, 0.5),
                rotation: Vec3::new(0.0, 0.0, f64::from(i)),
            })
            .collect();
        let packets = vec![
            Packet::EventAdd(vec![]),
            Packet::EventDel(vec![]),
            Packet::EventParent(vec![]),
            Packet::Collision(vec![]),
            Packet::Position(positions),
            Packet::State(
                (0..40)
                    .map(|i| TrafficLightState {
                        id: 1000 + i,
                        elapsed: t,
                        state: (i % 3) as u8,
                        ..Default::default()
                    })
                    .collect(),
            ),
            Packet::AnimVehicle(
                (0..200)
                    .map(|i| AnimVehicle {
                        id: i,
                        throttle: 0.5,
                        gear: 1,
                        ..Default::default()
                    })
                    .collect(),
            ),
            Packet::AnimWalker(
                (200..250)
                    .map(|i| AnimWalker { id: i, speed: 1.4 })
                    .collect(),
            ),
            Packet::VehicleLight((0..200).map(|i| VehicleLight { id: i, state: 1 }).collect()),
            Packet::Kinematics(
                (0..250)
                    .map(|i| Kinematics {
                        id: i,
                        linear_velocity: Vec3::new(10.0, 0.0, 0.0),
                        angular_velocity: Vec3::default(),
                    })
                    .collect(),
            ),
            Packet::BoundingBox(vec![BoundingBox::default(); usize::from(n == 0)]),
            Packet::PlatformTime(f64::from(t)),
        ];
        w.frame(
            FrameStart {
                id: n + 1,
                duration: 0.05,
                elapsed: f64::from(t),
            },
            &packets,
        )
        .expect("frame");
    }
    w.finish()
}

fn parse_all(bytes: &[u8]) -> usize {
    let rec = Recording::new(bytes).expect("recording");
    let layout = rec.layout();
    let mut records = 0;
    for f in rec.frames() {
        let f = f.expect("frame");
        for p in f.decoded(&layout) {
            records += p.expect("packet").record_count().unwrap_or(1);
        }
    }
    records
}

fn frames(bytes: &[u8]) -> u64 {
    Recording::new(bytes).expect("recording").frames().count() as u64
}

fn bench(c: &mut Criterion) {
    let mut inputs = vec![("synthetic".to_string(), build())];
    if let Ok(path) = std::env::var("CARLA_BENCH_FILE") {
        let bytes = std::fs::read(&path).expect("CARLA_BENCH_FILE");
        let name = std::path::Path::new(&path)
            .file_name()
            .map_or(path.clone(), |n| n.to_string_lossy().into_owned());
        inputs.push((name, bytes));
    }
    for (name, bytes) in &inputs {
        let mut g = c.benchmark_group(format!("carla typed parse MB/s ({name})"));
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function("frames+decode", |b| b.iter(|| parse_all(black_box(bytes))));
        g.finish();
        let mut g = c.benchmark_group(format!("carla typed parse frames/s ({name})"));
        g.throughput(Throughput::Elements(frames(bytes)));
        g.bench_function("frames+decode", |b| b.iter(|| parse_all(black_box(bytes))));
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
