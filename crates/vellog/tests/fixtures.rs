//! Deterministic VEL fixtures for `testdata/vellog/`, written with the
//! crate's own writer (there are no third-party VEL files): the committed
//! files are what the writer makes today (`cargo xtask fixtures` rewrites
//! them, through this test with `ROBOLOG_BLESS=1`), and they read back
//! cleanly, cut anywhere.
//!
//! Everything is computed with integer arithmetic or exactly representable
//! floating-point steps, so the bytes are the same on every platform.

use std::io::Cursor;

use logcore::{LogReader, MessageFilter, ReadMode};
use vellog::{EndOfRecords, FormatError, VelLog};
use vellog::{
    GpsData, Image, LaserRange2DData, MessageData, ObdData, RobotPose, SizeConvention,
    VELODYNE_PACKET_LEN, VelodyneRawData, Writer, WriterOptions,
};

/// The fixtures: (file name, bytes).
///
/// - `sensors.vel`: six seconds of a car-mounted rig with every message
///   type (OBD 10 Hz, GPS 1 Hz with a real date, two cameras, pose, HDL-32E,
///   a URG-04LX and a UTM-30LX), camera frames arriving late as real
///   recorders deliver them (timestamps not monotonic across sensors);
/// - `spec-example.vel`: the 69-byte file of spec 8.1;
/// - `terminated.vel`: a short log ending with the `FF FF FF FF` terminator;
/// - `size-convention-b.vel`: a short log whose size fields exclude their
///   own 4 bytes (spec 5.1, convention b).
fn fixtures() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("sensors.vel", sensors()),
        ("spec-example.vel", spec_example()),
        ("terminated.vel", terminated()),
        ("size-convention-b.vel", convention_b()),
    ]
}

/// Raw distance (2 mm units) seen by HDL-32E laser k from a sensor 1.9 m
/// above flat ground, with a wall 14 m away for the upward lasers
/// (1.9 / sin |ω| and 14 / cos ω, precomputed; laser 13 looks almost
/// level and is capped at 60 m).
const HDL32_RANGE: [u16; 32] = [
    1863, 5858, 1939, 6826, 2024, 8183, 2117, 10221, 2220, 13619, 2336, 20419, 2465, 30000, 2611,
    7000, 2778, 7002, 2968, 7008, 3189, 7017, 3447, 7030, 3752, 7048, 4119, 7069, 4569, 7094, 5133,
    7123,
];

/// The GPS clock at the start of `sensors.vel`: 2009-06-17 14:03:27 UTC.
const START_OF_HOUR_US: u32 = (3 * 60 + 27) * 1_000_000;

/// A plausible HDL-32E data packet: 12 upper blocks (`FF EE`), azimuth
/// advancing ~0.17° per block (10 Hz spin), ranges of ground and a wall,
/// a microsecond timestamp, strongest-return mode and product id 0x21.
fn hdl32_packet(index: u32, time_us: u32) -> [u8; VELODYNE_PACKET_LEN] {
    let mut p = [0u8; VELODYNE_PACKET_LEN];
    for b in 0..12u32 {
        let base = 100 * b as usize;
        p[base..base + 2].copy_from_slice(&[0xFF, 0xEE]);
        let azimuth = ((index * 12 + b) * 17 % 36_000) as u16;
        p[base + 2..base + 4].copy_from_slice(&azimuth.to_le_bytes());
        for k in 0..32u32 {
            let at = base + 4 + 3 * k as usize;
            // A little texture: a bump every few degrees, and no return
            // from the sky-facing lasers now and then.
            let bump = u32::from(azimuth / 100 % 7) * 3;
            let raw = if k % 2 == 1 && azimuth % 4000 < 300 {
                0
            } else {
                u32::from(HDL32_RANGE[k as usize]) + bump
            };
            p[at..at + 2].copy_from_slice(&(raw as u16).to_le_bytes());
            p[at + 2] = (20 + (k * 13 + b * 7 + index) % 80) as u8;
        }
    }
    p[1200..1204].copy_from_slice(&time_us.to_le_bytes());
    p[1204] = 0x37;
    p[1205] = 0x21;
    p
}

/// A small stand-in for a JPEG stream: SOI, a JFIF APP0 segment, filler
/// bytes, EOI. Not decodable; readers only pass the bytes through.
fn fake_jpeg(camera: u32, frame: u32) -> Vec<u8> {
    let mut j = vec![
        0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, b'J', b'F', b'I', b'F', 0x00, 0x01, 0x01, 0x00, 0x00,
        0x01, 0x00, 0x01, 0x00, 0x00,
    ];
    let len = 160 + (frame * 37 + camera * 53) % 120;
    j.extend((0..len).map(|i| ((i * 7 + frame * 3 + camera * 11) % 0xFE) as u8));
    j.extend_from_slice(&[0xFF, 0xD9]);
    j
}

/// A GPS fix `s` seconds after the start; the first message has no fix
/// yet (quality 0, zeroed date), as receivers report before they lock.
fn gps(s: u32) -> GpsData {
    if s == 0 {
        return GpsData {
            satellites: 2,
            hdop: 99.9,
            ..GpsData::default()
        };
    }
    let t = 27 + s as i32;
    GpsData {
        hour: 14,
        minute: 3 + t / 60,
        second: t % 60,
        warning: 0,
        // Heading east along the Rhine at ~43 km/h (12 m/s).
        latitude: 50.3636 + f64::from(s) * 0.000_002,
        longitude: 7.5586 + f64::from(s) * 0.000_168,
        speed_kmh: 43.25 + s as f32 * 0.25,
        course: 86.5,
        day: 17,
        month: 6,
        year: 2009,
        quality: if s < 3 { 1 } else { 2 },
        satellites: 7 + s as i32 % 3,
        hdop: 1.25,
        height: 71.5,
        geoid_height: 47.5,
        vdop: 1.75,
        pdop: 2.125,
    }
}

fn hokuyo_ranges(count: u32, scan: u32, far: u32) -> Vec<u32> {
    (0..count)
        .map(|i| {
            // Error code 0 (no echo) at the edges, else a room-like outline.
            if i < 3 || i + 3 >= count {
                return if far > 30_000 { 1 } else { 0 };
            }
            let centre = count / 2;
            let off = i.abs_diff(centre);
            (far / 4 + off * 9 + (i * 31 + scan * 17) % 40).min(far)
        })
        .collect()
}

fn finish(w: Writer<Cursor<Vec<u8>>>) -> Vec<u8> {
    match w.into_inner() {
        Ok(c) => c.into_inner(),
        Err(e) => panic!("writing a fixture: {e}"),
    }
}

fn write(w: &mut Writer<Cursor<Vec<u8>>>, t_ms: f64, m: &MessageData<'_>) {
    if let Err(e) = w.write(t_ms, m) {
        panic!("writing a fixture message at {t_ms} ms: {e}");
    }
}

fn sensors() -> Vec<u8> {
    let mut w = match Writer::new(Cursor::new(Vec::new())) {
        Ok(w) => w,
        Err(e) => panic!("{e}"),
    };
    // Time in ms since the recorder started; the log begins at 250 ms.
    // Steps of 25 ms; each sensor fires on its own schedule.
    for step in 0..240u32 {
        let t = 250.0 + f64::from(step) * 25.0;
        if step % 4 == 0 {
            let i = step / 4;
            let obd = ObdData {
                speed_kmh: 42 + (i / 10) as i32,
                engine_rpm: 1850 + (i * 7 % 40) as i32,
                unused_8: 0.0,
                unused_12: 0,
                unused_16: 0,
                throttle_position: 18.0 + (i % 8) as f32 * 0.5,
                unused_24: 0,
            };
            write(&mut w, t, &MessageData::ObdData(obd));
            let pose = RobotPose {
                orientation: [0.999, 0.0, 0.0, 0.044 + (i % 5) as f32 * 0.001],
                acceleration: [0.125 * (i % 3) as f32, -0.0625, 9.8125],
            };
            write(&mut w, t + 2.0, &MessageData::RobotPose(pose));
        }
        if step % 40 == 8 {
            write(&mut w, t + 5.0, &MessageData::GpsData(gps(step / 40)));
        }
        // Cameras at 5 Hz; each frame is logged 35 ms after capture, so it
        // arrives after messages with later timestamps.
        if step % 8 == 3 {
            let frame = step / 8;
            for camera in 0..2u32 {
                let jpeg = fake_jpeg(camera, frame);
                let image = Image {
                    source_id: camera as i32,
                    is_compressed_raw: 1,
                    width: 320,
                    height: 240,
                    data: &jpeg,
                };
                write(
                    &mut w,
                    t - 35.0 + f64::from(camera),
                    &MessageData::Image(image),
                );
            }
        }
        // HDL-32E at 1 Hz here (a real rig logs every revolution): 8 packets
        // per message, 552 µs apart.
        if step % 40 == 20 {
            let m = step / 40;
            let packets: Vec<[u8; VELODYNE_PACKET_LEN]> = (0..8u32)
                .map(|k| {
                    let us = START_OF_HOUR_US + (t as u32) * 1000 + k * 553;
                    hdl32_packet(m * 8 + k, us)
                })
                .collect();
            let data = VelodyneRawData::from_packets(&packets);
            write(&mut w, t, &MessageData::VelodyneRawData(data));
        }
        // Hokuyos at 2 Hz each, interleaved.
        if step % 20 == 6 {
            let scan = step / 20;
            let laser = LaserRange2DData {
                sensor_type: b"Hokuyo_URG-04LX",
                sensor_name: b"front",
                ranges: hokuyo_ranges(682, scan, 5600),
            };
            write(&mut w, t + 1.0, &MessageData::LaserRange2DData(laser));
        }
        if step % 20 == 16 {
            let scan = step / 20;
            let laser = LaserRange2DData {
                sensor_type: b"Hokuyo_UTM-30LX",
                sensor_name: b"roof",
                ranges: hokuyo_ranges(1081, scan, 60_000),
            };
            write(&mut w, t + 1.0, &MessageData::LaserRange2DData(laser));
        }
    }
    finish(w)
}

fn spec_example() -> Vec<u8> {
    let mut w = match Writer::new(Cursor::new(Vec::new())) {
        Ok(w) => w,
        Err(e) => panic!("{e}"),
    };
    let pose = RobotPose {
        orientation: [1.0, 0.0, 0.0, 0.0],
        acceleration: [0.0, 0.0, 9.81],
    };
    write(&mut w, 1000.0, &MessageData::RobotPose(pose));
    finish(w)
}

/// Two seconds of OBD, GPS and a front laser, written with `options`.
fn short_log(options: WriterOptions) -> Vec<u8> {
    let mut w = match Writer::with_options(Cursor::new(Vec::new()), options) {
        Ok(w) => w,
        Err(e) => panic!("{e}"),
    };
    for i in 0..20u32 {
        let t = 100.0 * f64::from(i);
        let obd = ObdData {
            speed_kmh: 20 + i as i32,
            engine_rpm: 1200 + 10 * i as i32,
            throttle_position: 12.5,
            ..ObdData::default()
        };
        write(&mut w, t, &MessageData::ObdData(obd));
        if i % 10 == 5 {
            write(&mut w, t + 3.0, &MessageData::GpsData(gps(1 + i / 10)));
        }
        if i % 5 == 2 {
            let laser = LaserRange2DData {
                sensor_type: b"Hokuyo_URG-04LX",
                sensor_name: b"front",
                ranges: hokuyo_ranges(682, i, 5600),
            };
            write(&mut w, t + 1.0, &MessageData::LaserRange2DData(laser));
        }
    }
    finish(w)
}

fn terminated() -> Vec<u8> {
    short_log(WriterOptions {
        terminator: true,
        ..WriterOptions::default()
    })
}

fn convention_b() -> Vec<u8> {
    short_log(WriterOptions {
        size_convention: SizeConvention::ExcludesSizeField,
        ..WriterOptions::default()
    })
}

#[test]
fn fixtures_read_back_cleanly() {
    let total: usize = fixtures().iter().map(|(_, b)| b.len()).sum();
    assert!(total < 300_000, "fixtures take {total} bytes");
    for (name, bytes) in fixtures() {
        let log = VelLog::new(&bytes).unwrap();
        let s = log.summary().unwrap();
        assert!(s.warnings.is_empty(), "{name}: {:?}", s.warnings);
        assert_eq!(s.metadata["index_valid"], "true", "{name}");
        for m in log.messages(&MessageFilter::all()).unwrap() {
            log.decode(&m.unwrap()).unwrap();
        }
    }
}

#[test]
fn sensors_has_every_type_and_a_gps_anchor() {
    let bytes = sensors();
    let log = VelLog::new(&bytes).unwrap();
    let s = log.summary().unwrap();
    let topics: Vec<(&str, u64)> = s
        .channels
        .iter()
        .map(|c| (c.info.topic.as_str(), c.message_count))
        .collect();
    assert_eq!(
        topics,
        [
            ("OBDDataM", 60),
            ("RobotPoseM", 60),
            ("ImageM/0", 30),
            ("ImageM/1", 30),
            ("LaserRange2DDataM/front", 12),
            ("GPSDataM", 6),
            ("LaserRange2DDataM/roof", 12),
            ("VelodyneRawDataM", 6),
        ]
    );
    assert_eq!(s.metadata["timestamps_monotonic"], "false");
    assert_eq!(log.index().len(), 6);
    // The first GPS message has no fix; the second (at 1.455 s) anchors.
    let anchor = s.time_model.anchor.unwrap();
    assert_eq!(anchor.log_time.as_nanos(), 1_455_000_000);
    assert_eq!(
        logcore::time::format_unix(anchor.unix_time).unwrap(),
        "2009-06-17T14:03:28.000000000Z"
    );
}

#[test]
fn terminator_and_convention_b_are_there() {
    let log_t = terminated();
    let log = VelLog::new(&log_t).unwrap();
    assert!(matches!(
        log.end_of_records(),
        Some(EndOfRecords::Terminator { trailing: 0, .. })
    ));
    let log_b = convention_b();
    let log = VelLog::new(&log_b).unwrap();
    assert_eq!(log.size_convention(), SizeConvention::ExcludesSizeField);
    assert_eq!(log.records().count(), 20 + 2 + 4);
}

#[test]
fn committed_files_are_what_the_writer_makes() {
    robolog_testkit::fixtures_current("vellog", &fixtures());
}

#[test]
fn every_prefix_of_every_fixture_reads_what_is_complete() {
    for (name, bytes) in fixtures() {
        let full = VelLog::new(&bytes).unwrap();
        let ends: Vec<u64> = full.records().map(|r| r.unwrap().end()).collect();
        let first = full.first_message_offset() as usize;
        // Every cut for the small files; for the big one, every cut in
        // the first 4 KiB and at every 7th byte after that.
        let cuts = (0..=bytes.len()).filter(|&c| c < 4096 || c % 7 == 0 || bytes.len() < 20_000);
        for cut in cuts {
            let prefix = &bytes[..cut];
            let Ok(log) = VelLog::new(prefix) else {
                assert!(cut < first, "{name} cut {cut}");
                continue;
            };
            let complete = ends.iter().filter(|&&e| e <= cut as u64).count();
            let guessable = log.size_convention() == full.size_convention();
            if !guessable && complete == 0 {
                continue;
            }
            let mut n = 0;
            let mut errors = Vec::new();
            for r in log.records_with(ReadMode::Strict) {
                match r {
                    Ok(_) => n += 1,
                    Err(e) => errors.push(e),
                }
            }
            assert_eq!(n, complete, "{name} cut {cut}");
            let clean = cut == first || cut == bytes.len() || ends.contains(&(cut as u64));
            let terminator_cut = cut > *ends.last().unwrap_or(&0) as usize;
            if clean {
                assert!(errors.is_empty(), "{name} cut {cut}: {errors:?}");
            } else {
                assert!(
                    matches!(errors[..], [ref e] if e.is_truncated()),
                    "{name} cut {cut} (in terminator: {terminator_cut}): {errors:?}"
                );
            }
        }
    }
}
