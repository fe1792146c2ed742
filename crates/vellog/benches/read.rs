//! Read throughput on a synthetic 20-second log shaped like a real rig's:
//! an HDL-32E at its full packet rate (about 1808 packets/s, batched 180
//! packets per message), three cameras at 15 Hz, OBD and pose at 10 Hz,
//! GPS at 1 Hz and two Hokuyo scanners. Run with `cargo xtask bench vellog`.

use std::hint::black_box;
use std::io::Cursor;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use logcore::{LogReader, MessageFilter};
use vellog::geometry::{VelodyneOptions, VelodynePacket};
use vellog::{
    GpsData, Image, LaserRange2DData, MessageData, ObdData, RobotPose, VELODYNE_PACKET_LEN, VelLog,
    VelodyneRawData, Writer,
};

const SECONDS: u32 = 20;

fn packet(i: u32) -> [u8; VELODYNE_PACKET_LEN] {
    let mut p = [0u8; VELODYNE_PACKET_LEN];
    for b in 0..12u32 {
        let base = 100 * b as usize;
        p[base] = 0xFF;
        p[base + 1] = 0xEE;
        let az = ((i * 12 + b) * 17 % 36_000) as u16;
        p[base + 2..base + 4].copy_from_slice(&az.to_le_bytes());
        for k in 0..32usize {
            let d = (2000 + (k as u32 * 97 + i) % 3000) as u16;
            p[base + 4 + 3 * k..base + 6 + 3 * k].copy_from_slice(&d.to_le_bytes());
            p[base + 6 + 3 * k] = k as u8;
        }
    }
    p[1200..1204].copy_from_slice(&(i * 553).to_le_bytes());
    p[1205] = 0x21;
    p
}

fn build_log() -> Vec<u8> {
    let mut w = Writer::new(Cursor::new(Vec::new())).expect("in-memory writer");
    let packets: Vec<[u8; VELODYNE_PACKET_LEN]> = (0..180).map(packet).collect();
    let jpeg: Vec<u8> = (0..30_000u32).map(|i| (i * 31 % 251) as u8).collect();
    let ranges_urg: Vec<u32> = (0..682).map(|i| 1000 + i * 3).collect();
    let ranges_utm: Vec<u32> = (0..1081).map(|i| 5000 + i * 7).collect();
    // Events in 1 ms steps over the whole log, each sensor at its own rate.
    for ms in 0..SECONDS * 1000 {
        let t = f64::from(ms);
        if ms % 100 == 0 {
            let data = VelodyneRawData::from_packets(&packets);
            w.write(t, &MessageData::VelodyneRawData(data))
                .expect("write");
            w.write(
                t,
                &MessageData::ObdData(ObdData {
                    speed_kmh: 30,
                    ..Default::default()
                }),
            )
            .expect("write");
            w.write(t, &MessageData::RobotPose(RobotPose::default()))
                .expect("write");
        }
        if ms % 67 == 0 {
            for cam in 0..3 {
                let img = Image {
                    source_id: cam,
                    is_compressed_raw: 1,
                    width: 640,
                    height: 480,
                    data: &jpeg,
                };
                w.write(t, &MessageData::Image(img)).expect("write");
            }
        }
        if ms % 100 == 50 {
            for (ty, name, r) in [
                (&b"Hokuyo_URG-04LX"[..], &b"front"[..], &ranges_urg),
                (b"Hokuyo_UTM-30LX", b"roof", &ranges_utm),
            ] {
                let scan = LaserRange2DData {
                    sensor_type: ty,
                    sensor_name: name,
                    ranges: r.clone(),
                };
                w.write(t, &MessageData::LaserRange2DData(scan))
                    .expect("write");
            }
        }
        if ms % 1000 == 500 {
            w.write(
                t,
                &MessageData::GpsData(GpsData {
                    quality: 1,
                    ..Default::default()
                }),
            )
            .expect("write");
        }
    }
    w.into_inner().expect("finish").into_inner()
}

fn bench(c: &mut Criterion) {
    let file = build_log();
    let log = VelLog::new(&file).expect("valid log");
    let mut g = c.benchmark_group("vellog");
    g.throughput(Throughput::Bytes(file.len() as u64));
    g.sample_size(20);

    g.bench_function("framing", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for r in log.records() {
                n += r.expect("valid").payload.len();
            }
            black_box(n)
        })
    });
    g.bench_function("typed_decode", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for r in log.records() {
                let m = r.expect("valid").decode().expect("decodes");
                n += matches!(m, MessageData::VelodyneRawData(_)) as usize;
            }
            black_box(n)
        })
    });
    // A fresh reader each time: the summary is computed once per reader.
    g.bench_function("open_and_summary", |b| {
        b.iter(|| {
            let log = VelLog::new(&file).expect("valid log");
            black_box(log.summary().expect("summary").message_count)
        })
    });
    g.bench_function("logcore_value_decode", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for m in log.messages(&MessageFilter::all()).expect("iter") {
                let v = log.decode(&m.expect("valid")).expect("decodes");
                n += matches!(v, logcore::Value::Struct(_)) as usize;
            }
            black_box(n)
        })
    });
    g.bench_function("velodyne_points", |b| {
        let opts = VelodyneOptions::default();
        b.iter(|| {
            let mut points = Vec::new();
            for r in log.records() {
                if let MessageData::VelodyneRawData(v) = r.expect("valid").decode().expect("ok") {
                    for (i, p) in v.packets().enumerate() {
                        let pkt = VelodynePacket::new(p).expect("1206 bytes");
                        pkt.append_points(&opts, i as u32, &mut points)
                            .expect("hdl-32e");
                    }
                }
            }
            black_box(points.len())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
