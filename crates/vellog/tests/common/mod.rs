//! Files built in-process with the crate's writer, shared by the tests.

#![allow(dead_code, unreachable_pub)]

use std::io::Cursor;

use vellog::{
    GpsData, Image, LaserRange2DData, MessageData, ObdData, RobotPose, VELODYNE_PACKET_LEN,
    VelodyneRawData, Writer, WriterOptions,
};

/// One message as the tests expect to read it back.
#[derive(Debug, Clone, PartialEq)]
pub struct Expected {
    pub type_id: i32,
    pub version: i32,
    pub timestamp_ms: f64,
    pub payload: Vec<u8>,
}

/// A plausible HDL-32E packet: 12 blocks `FF EE`, azimuths, distances,
/// a timestamp and product id 0x21.
pub fn hdl32_packet(seed: u32) -> [u8; VELODYNE_PACKET_LEN] {
    let mut p = [0u8; VELODYNE_PACKET_LEN];
    for b in 0..12 {
        let base = 100 * b;
        p[base] = 0xFF;
        p[base + 1] = 0xEE;
        let az = ((seed * 1200 + b as u32 * 16) % 36000) as u16;
        p[base + 2..base + 4].copy_from_slice(&az.to_le_bytes());
        for k in 0..32 {
            let d = (2000 + (seed + k as u32 * 37 + b as u32) % 3000) as u16;
            let at = base + 4 + 3 * k;
            p[at..at + 2].copy_from_slice(&d.to_le_bytes());
            p[at + 2] = (k * 7 % 100) as u8;
        }
    }
    p[1200..1204].copy_from_slice(&(seed * 553).to_le_bytes());
    p[1204] = 0x37;
    p[1205] = 0x21;
    p
}

pub fn gps(t_s: i32) -> GpsData {
    GpsData {
        hour: 14,
        minute: 3,
        second: 27 + t_s,
        warning: 0,
        latitude: 50.3636 + f64::from(t_s) * 1e-5,
        longitude: 7.5586,
        speed_kmh: 12.5,
        course: 87.0,
        day: 17,
        month: 6,
        year: 2009,
        quality: 1,
        satellites: 8,
        hdop: 0.9,
        height: 72.0,
        geoid_height: 47.6,
        vdop: 1.2,
        pdop: 1.5,
    }
}

/// Writes a small log holding every message type (and one unknown type),
/// with timestamps that are *not* monotonic across sensors, and returns the
/// file with what it holds in file order.
pub fn sample_file(options: WriterOptions) -> (Vec<u8>, Vec<Expected>) {
    let jpeg_a = [
        0xFF, 0xD8, 0xFF, 0xE0, 0, 16, b'J', b'F', b'I', b'F', 0, 0xFF, 0xD9,
    ];
    let jpeg_b = [0xFF, 0xD8, 1, 2, 3, 4, 5, 0xFF, 0xD9];
    let packets = [hdl32_packet(1), hdl32_packet(2)];
    let front_ranges: Vec<u32> = (0..24).map(|i| 500 + i * 10).collect();
    let rear_ranges: Vec<u32> = (0..16).map(|i| 30_000 - i * 3).collect();
    let messages: Vec<(f64, MessageData<'_>)> = vec![
        (
            0.0,
            MessageData::ObdData(ObdData {
                speed_kmh: 10,
                engine_rpm: 1500,
                unused_8: 0.5,
                unused_12: -7,
                unused_16: 3,
                throttle_position: 14.5,
                unused_24: 99,
            }),
        ),
        (12.5, MessageData::GpsData(gps(0))),
        (
            40.0,
            MessageData::Image(Image {
                source_id: 0,
                is_compressed_raw: 1,
                width: 320,
                height: 240,
                data: &jpeg_a,
            }),
        ),
        // Arrives late: older than the message before it.
        (
            35.0,
            MessageData::Image(Image {
                source_id: 1,
                is_compressed_raw: 0x0101,
                width: 160,
                height: 120,
                data: &jpeg_b,
            }),
        ),
        (
            520.25,
            MessageData::RobotPose(RobotPose {
                orientation: [0.99, 0.01, -0.02, 0.1],
                acceleration: [0.1, -0.2, 9.79],
            }),
        ),
        (
            1100.0,
            MessageData::VelodyneRawData(VelodyneRawData::from_packets(&packets)),
        ),
        (
            1250.0,
            MessageData::LaserRange2DData(LaserRange2DData {
                sensor_type: b"Hokuyo_URG-04LX",
                sensor_name: b"front",
                ranges: front_ranges.clone(),
            }),
        ),
        (
            2999.0,
            MessageData::LaserRange2DData(LaserRange2DData {
                sensor_type: b"Hokuyo_UTM-30LX",
                sensor_name: b"rear",
                ranges: rear_ranges,
            }),
        ),
        // Much older than its neighbours (a delayed sensor).
        (
            900.0,
            MessageData::Raw {
                type_id: vellog::simple_hash(b"ImuDataM"),
                version: 3,
                payload: b"imu-bytes",
            },
        ),
        (3000.0, MessageData::GpsData(gps(3))),
        (
            4400.0,
            MessageData::ObdData(ObdData {
                speed_kmh: 35,
                engine_rpm: 2500,
                throttle_position: 30.0,
                ..Default::default()
            }),
        ),
        (
            4500.0,
            MessageData::LaserRange2DData(LaserRange2DData {
                sensor_type: b"Hokuyo_URG-04LX",
                sensor_name: b"front",
                ranges: front_ranges,
            }),
        ),
    ];
    let mut w = Writer::with_options(Cursor::new(Vec::new()), options).unwrap();
    let mut expected = Vec::new();
    for (t, m) in &messages {
        w.write(*t, m).unwrap();
        expected.push(Expected {
            type_id: m.type_id(),
            version: m.version(),
            timestamp_ms: *t,
            payload: m.to_bytes().unwrap(),
        });
    }
    (w.into_inner().unwrap().into_inner(), expected)
}

/// The 69-byte file of spec 8.1.
pub const SPEC_EXAMPLE: [u8; 69] = [
    0xa4, 0x56, 0x45, 0x4c, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x31, 0x00, 0x00, 0x00, 0x49, 0x42, 0xe3, 0x01, 0x00, 0x64, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x8f, 0x40, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0xc3, 0xf5, 0x1c, 0x41,
];

/// A message with convention (a) framing, built by hand.
pub fn raw_message(marker: u8, type_id: i32, version: i32, t: f64, payload: &[u8]) -> Vec<u8> {
    let mut m = Vec::new();
    m.extend_from_slice(&(21 + payload.len() as u32).to_le_bytes());
    m.push(marker);
    m.extend_from_slice(&type_id.to_le_bytes());
    m.extend_from_slice(&version.to_le_bytes());
    m.extend_from_slice(&t.to_le_bytes());
    m.extend_from_slice(payload);
    m
}

/// Header plus an index with `entries`.
pub fn file_head(entries: &[i64]) -> Vec<u8> {
    let mut f = b"\xA4VEL\x01\x00\x01\x00".to_vec();
    f.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    for e in entries {
        f.extend_from_slice(&e.to_le_bytes());
    }
    f
}

/// Reads every record, collecting the good ones and the errors.
pub fn read_all(file: &[u8], mode: vellog::ReadMode) -> (Vec<Expected>, Vec<vellog::Error>) {
    let log = vellog::VelLog::new(file).unwrap();
    let mut good = Vec::new();
    let mut errors = Vec::new();
    for r in log.records_with(mode) {
        match r {
            Ok(r) => good.push(Expected {
                type_id: r.type_id,
                version: r.version,
                timestamp_ms: r.timestamp_ms,
                payload: r.payload.to_vec(),
            }),
            Err(e) => errors.push(e),
        }
    }
    (good, errors)
}
