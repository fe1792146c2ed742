//! Tests of packet parsing, model detection and point computation.
//!
//! Expected numbers are hard-coded; each comment says how it was computed
//! (by hand from the spec's formulas, checked with a python3 one-liner using
//! `math.cos`/`math.sin` in double precision).

use super::*;
use crate::geometry::{
    Calibration, DualReturn, Frame, LaserCalibration, VelodyneOptions, cloud_from_packets,
    velodyne_to_ros,
};

/// Tolerance for f32 coordinates around 10 m (f32 resolves ~1e-6 there).
const TOL_M: f32 = 1e-4;

/// A packet with every block id `ids[b]`, every azimuth `azimuths[b]`
/// (hundredths of a degree), all distances 0, and the given trailing bytes.
fn packet(ids: [u16; 12], azimuths: [u16; 12], mode: u8, product: u8) -> Vec<u8> {
    let mut bytes = vec![0u8; PACKET_LEN];
    for b in 0..12 {
        bytes[100 * b..100 * b + 2].copy_from_slice(&ids[b].to_le_bytes());
        bytes[100 * b + 2..100 * b + 4].copy_from_slice(&azimuths[b].to_le_bytes());
    }
    bytes[1200..1204].copy_from_slice(&1_234_567u32.to_le_bytes());
    bytes[1204] = mode;
    bytes[1205] = product;
    bytes
}

fn hdl32e_packet(azimuths: [u16; 12]) -> Vec<u8> {
    packet([UPPER_BLOCK_ID; 12], azimuths, 0x37, HDL32E_PRODUCT_ID)
}

fn hdl64e_packet(azimuths: [u16; 12]) -> Vec<u8> {
    let ids = std::array::from_fn(|b| {
        if b % 2 == 0 {
            UPPER_BLOCK_ID
        } else {
            LOWER_BLOCK_ID
        }
    });
    packet(ids, azimuths, b'H', 0)
}

fn set_channel(bytes: &mut [u8], block: usize, k: usize, distance: u16, intensity: u8) {
    let at = 100 * block + 4 + 3 * k;
    bytes[at..at + 2].copy_from_slice(&distance.to_le_bytes());
    bytes[at + 2] = intensity;
}

fn view(bytes: &[u8]) -> VelodynePacket<'_> {
    match VelodynePacket::new(bytes) {
        Ok(packet) => packet,
        Err(e) => panic!("test packet rejected: {e}"),
    }
}

fn convert(bytes: &[u8], options: &VelodyneOptions<'_>) -> Vec<crate::geometry::VelodynePoint> {
    match view(bytes).points(options) {
        Ok(points) => points,
        Err(e) => panic!("conversion failed: {e}"),
    }
}

#[test]
fn geometry_hdl32e_angles_match_printed_table() {
    // Spec 6.2's printed table, row by row (two decimals).
    let printed = [
        -30.67, -9.33, -29.33, -8.00, -28.00, -6.67, -26.67, -5.33, //
        -25.33, -4.00, -24.00, -2.67, -22.67, -1.33, -21.33, 0.00, //
        -20.00, 1.33, -18.67, 2.67, -17.33, 4.00, -16.00, 5.33, //
        -14.67, 6.67, -13.33, 8.00, -12.00, 9.33, -10.67, 10.67,
    ];
    for (k, want) in printed.iter().enumerate() {
        let got = hdl32e_vertical_angle_deg(k).unwrap_or(f64::NAN);
        assert!((got - want).abs() < 0.005, "laser {k}: {got} vs {want}");
    }
    assert_eq!(hdl32e_vertical_angle_deg(32), None);
}

#[test]
fn geometry_hdl32e_synthetic_block0_at_azimuth_0() {
    // Spec 8.2: all 32 distances 5000 (× 2 mm = 10 m) in block 0 at azimuth 0.
    // Expected (y, z) = (10 cos ω(k), 10 sin ω(k)) with ω(k) from the closed
    // form 4/3·(−23 + k/2) (k even) / 4/3·(−7 + (k−1)/2) (k odd), computed in
    // python3; x = 10 cos ω sin 0 = 0.
    let expected: [(f32, f32); 32] = [
        (8.601491, -5.100426),
        (9.867615, -1.621779),
        (8.717844, -4.898897),
        (9.902681, -1.391731),
        (8.829476, -4.694716),
        (9.932384, -1.160929),
        (8.936326, -4.487992),
        (9.956708, -0.929499),
        (9.038338, -4.278838),
        (9.975641, -0.697565),
        (9.135455, -4.067366),
        (9.989171, -0.465253),
        (9.227624, -3.853693),
        (9.997292, -0.232690),
        (9.314797, -3.637932),
        (10.000000, 0.000000),
        (9.396926, -3.420201),
        (9.997292, 0.232690),
        (9.473966, -3.200619),
        (9.989171, 0.465253),
        (9.545876, -2.979303),
        (9.975641, 0.697565),
        (9.612617, -2.756374),
        (9.956708, 0.929499),
        (9.674152, -2.531952),
        (9.932384, 1.160929),
        (9.730449, -2.306159),
        (9.902681, 1.391731),
        (9.781476, -2.079117),
        (9.867615, 1.621779),
        (9.827206, -1.850949),
        (9.827206, 1.850949),
    ];
    let mut bytes = hdl32e_packet([0; 12]);
    for k in 0..32 {
        set_channel(&mut bytes, 0, k, 5000, k as u8);
    }
    let points = convert(&bytes, &VelodyneOptions::default());
    assert_eq!(points.len(), 32);
    for (k, (p, &(y, z))) in points.iter().zip(&expected).enumerate() {
        assert_eq!(
            (p.laser, p.block, p.packet, p.intensity),
            (k as u8, 0, 0, k as u8)
        );
        assert!(p.x.abs() < TOL_M, "laser {k}: x = {}", p.x);
        assert!((p.y - y).abs() < TOL_M, "laser {k}: y = {} vs {y}", p.y);
        assert!((p.z - z).abs() < TOL_M, "laser {k}: z = {} vs {z}", p.z);
        assert!((p.distance_m - 10.0).abs() < TOL_M);
        assert_eq!(p.azimuth_deg, 0.0);
        assert_eq!(p.dual_return, None);
        // Block 0: t = k · 1.152 µs.
        let t = p.time_offset_us.unwrap_or(f32::NAN);
        assert!((t - k as f32 * 1.152).abs() < 1e-4, "laser {k}: t = {t}");
    }
}

#[test]
fn geometry_hdl32e_azimuth_90_is_plus_x() {
    // Azimuth 90.00° (raw 9000): x = R cos ω, y = R cos ω cos 90° = 0.
    // Laser 15 (ω = 0): (10, 0, 0). Laser 0 (ω = −30.6667°): x = 8.601491,
    // z = −5.100426 (same python values as the azimuth-0 test).
    let mut bytes = hdl32e_packet([9000; 12]);
    set_channel(&mut bytes, 0, 15, 5000, 7);
    set_channel(&mut bytes, 0, 0, 5000, 7);
    let points = convert(&bytes, &VelodyneOptions::default());
    assert_eq!(points.len(), 2);
    let (p0, p15) = (points[0], points[1]);
    assert_eq!((p0.laser, p15.laser), (0, 15));
    assert!((p15.x - 10.0).abs() < TOL_M && p15.y.abs() < TOL_M && p15.z.abs() < TOL_M);
    assert!((p0.x - 8.601491).abs() < TOL_M && p0.y.abs() < TOL_M);
    assert!((p0.z + 5.100426).abs() < TOL_M);
    assert_eq!(p15.azimuth_deg, 90.0);

    // ROS frame: x_ros = y = 0, y_ros = −x = −10.
    let ros = convert(
        &bytes,
        &VelodyneOptions {
            frame: Frame::Ros,
            ..VelodyneOptions::default()
        },
    );
    assert!(ros[1].x.abs() < TOL_M && (ros[1].y + 10.0).abs() < TOL_M);
    assert_eq!(velodyne_to_ros([1.0, 2.0, 3.0]), [2.0, -1.0, 3.0]);
}

#[test]
fn geometry_hdl32e_skips_zero_distance() {
    // Every channel of block 2 has a return except laser 7.
    let mut bytes = hdl32e_packet([0; 12]);
    for k in 0..32 {
        set_channel(&mut bytes, 2, k, if k == 7 { 0 } else { 1 }, 0);
    }
    let points = convert(&bytes, &VelodyneOptions::default());
    assert_eq!(points.len(), 31);
    assert!(points.iter().all(|p| p.laser != 7 && p.block == 2));
    // Raw 1 = 2 mm.
    assert!((points[0].distance_m - 0.002).abs() < 1e-7);
}

#[test]
fn geometry_hdl32e_time_offsets() {
    // Block 3, laser 5: 3 · 46.08 + 5 · 1.152 = 138.24 + 5.76 = 144.0 µs.
    // Block 11, laser 31: 11 · 46.08 + 31 · 1.152 = 506.88 + 35.712 = 542.592 µs.
    let mut bytes = hdl32e_packet([0; 12]);
    set_channel(&mut bytes, 3, 5, 100, 0);
    set_channel(&mut bytes, 11, 31, 100, 0);
    let points = convert(&bytes, &VelodyneOptions::default());
    let times: Vec<f32> = points.iter().filter_map(|p| p.time_offset_us).collect();
    assert_eq!(times.len(), 2);
    assert!((times[0] - 144.0).abs() < 1e-3);
    assert!((times[1] - 542.592).abs() < 1e-3);
    assert_eq!(view(&bytes).timestamp_us(), 1_234_567);
}

#[test]
fn geometry_hdl32e_azimuth_interpolation_wraps() {
    // Block azimuths 359.90°, 0.10°, 0.30°, ... (raw (35990 + 20 b) mod 36000):
    // every gap is 0.20° once taken modulo 360.
    let azimuths = std::array::from_fn(|b| ((35990 + 20 * b) % 36000) as u16);
    let mut bytes = hdl32e_packet(azimuths);
    // Block 0, laser 10: 359.90 + 0.20 · (10 · 1.152 / 46.08) = 359.90 + 0.05 = 359.95°.
    set_channel(&mut bytes, 0, 10, 5000, 0);
    // Block 11 (raw 210 = 2.10°) reuses block 10's gap (2.10 − 1.90 = 0.20°);
    // laser 20: 2.10 + 0.20 · 20/40 = 2.20°.
    set_channel(&mut bytes, 11, 20, 5000, 0);
    let options = VelodyneOptions {
        interpolate_azimuth: true,
        ..VelodyneOptions::default()
    };
    let points = convert(&bytes, &options);
    assert_eq!(points.len(), 2);
    assert!((points[0].azimuth_deg - 359.95).abs() < 1e-4);
    assert!((points[1].azimuth_deg - 2.20).abs() < 1e-4);
    // Laser 10: ω = −24°, x = 10 cos(−24°) sin(359.95°) = 9.135455 · −8.7266e-4
    // = −0.0079722 (python3).
    assert!((points[0].x + 0.0079722).abs() < 1e-5);
    // Without interpolation the block azimuth is used as is.
    let plain = convert(&bytes, &VelodyneOptions::default());
    assert!((plain[0].azimuth_deg - 359.9).abs() < 1e-4);
    assert!((plain[1].azimuth_deg - 2.1).abs() < 1e-4);
}

#[test]
fn geometry_hdl32e_dual_return() {
    // Dual mode (0x39): blocks (0,1), (2,3), ... are the last and strongest
    // return of one firing each; block 3 is firing 1, so t(k = 2) = 46.08 +
    // 2 · 1.152 = 48.384 µs.
    let azimuths = std::array::from_fn(|b| (100 * (b / 2)) as u16);
    let mut bytes = packet([UPPER_BLOCK_ID; 12], azimuths, 0x39, HDL32E_PRODUCT_ID);
    set_channel(&mut bytes, 2, 2, 500, 0);
    set_channel(&mut bytes, 3, 2, 600, 0);
    let points = convert(&bytes, &VelodyneOptions::default());
    assert_eq!(points.len(), 2);
    assert_eq!(points[0].dual_return, Some(DualReturn::Last));
    assert_eq!(points[1].dual_return, Some(DualReturn::Strongest));
    for p in &points {
        assert!((p.time_offset_us.unwrap_or(f32::NAN) - 48.384).abs() < 1e-3);
    }
    assert_eq!(view(&bytes).return_mode(), ReturnMode::Dual);
}

#[test]
fn geometry_model_detection() {
    let with_id = hdl32e_packet([0; 12]);
    let guessed = packet([UPPER_BLOCK_ID; 12], [0; 12], 0, 0);
    let detect = |bytes: &[u8]| view(bytes).detect_model();
    assert_eq!(
        detect(&with_id),
        Ok(DetectedModel {
            model: VelodyneModel::Hdl32e,
            evidence: ModelEvidence::ProductId
        })
    );
    let g = detect(&guessed);
    assert_eq!(
        g.map(|d| (d.model, d.guessed())),
        Ok((VelodyneModel::Hdl32e, true))
    );
    // A single lower block is enough for HDL-64E, whatever byte 1205 says.
    let mut one_lower = with_id.clone();
    one_lower[700..702].copy_from_slice(&LOWER_BLOCK_ID.to_le_bytes());
    assert_eq!(
        detect(&one_lower).map(|d| (d.model, d.evidence)),
        Ok((VelodyneModel::Hdl64e, ModelEvidence::LowerBlock))
    );
}

#[test]
fn geometry_unknown_block_id_is_an_error() {
    let mut bytes = hdl32e_packet([0; 12]);
    bytes[500..502].copy_from_slice(&[0x34, 0x12]);
    let err = GeometryError::UnknownBlockId {
        block: 5,
        offset: 500,
        id: 0x1234,
    };
    let packet = view(&bytes);
    assert_eq!(packet.detect_model(), Err(err.clone()));
    assert_eq!(packet.points(&VelodyneOptions::default()), Err(err.clone()));
    assert!(err.to_string().contains("block 5 at byte 500"));
}

#[test]
fn geometry_truncated_packet_is_an_error() {
    let bytes = hdl32e_packet([0; 12]);
    assert_eq!(
        VelodynePacket::new(&bytes[..1205]).map(|_| ()),
        Err(GeometryError::PacketLength { len: 1205 })
    );
    assert!(VelodynePacket::new(&[]).is_err());
    // Two packets and 10 stray bytes: two packets, then where the cut is.
    let mut data = bytes.repeat(2);
    data.extend_from_slice(&[0; 10]);
    let items: Vec<_> = packets(&data)
        .map(|r| r.map(|p| p.timestamp_us()))
        .collect();
    assert_eq!(
        items,
        vec![
            Ok(1_234_567),
            Ok(1_234_567),
            Err(GeometryError::TruncatedPackets {
                offset: 2412,
                len: 10
            })
        ]
    );
    assert!(cloud_from_packets(&data, &VelodyneOptions::default()).is_err());
}

#[test]
fn geometry_hdl64e_requires_calibration() {
    let mut bytes = hdl64e_packet([0; 12]);
    set_channel(&mut bytes, 1, 3, 7500, 0);
    let packet = view(&bytes);
    assert_eq!(
        packet.points(&VelodyneOptions::default()),
        Err(GeometryError::CalibrationRequired)
    );
    // A 32-laser calibration is not enough for 64 lasers.
    let short = Calibration::hdl32e_nominal();
    let options = VelodyneOptions {
        calibration: Some(&short),
        ..VelodyneOptions::default()
    };
    assert_eq!(
        packet.points(&options),
        Err(GeometryError::CalibrationTooShort {
            model: VelodyneModel::Hdl64e,
            needed: 64,
            got: 32
        })
    );
    // Forcing HDL-32E on a packet with lower blocks is refused too.
    let forced = VelodyneOptions {
        model: Some(VelodyneModel::Hdl32e),
        ..VelodyneOptions::default()
    };
    assert_eq!(
        packet.points(&forced),
        Err(GeometryError::LowerBlockOnHdl32e {
            block: 1,
            offset: 100
        })
    );
}

#[test]
fn geometry_hdl64e_calibrated_point() {
    // Lower block 1 at azimuth 123.45°, channel 3 = laser 35, raw 7500 (15 m).
    // Laser 35: ω = −12.5°, rot_corr = −4.2°, dist_corr = 0.35 m,
    // vert_offset = 0.18 m, horiz_offset = −0.026 m. By spec 6.4:
    //   R  = 15 + 0.35 = 15.35,  α' = 123.45 + 4.2 = 127.65°
    //   d  = 15.35 cos(−12.5°) − 0.18 sin(−12.5°) = 15.025103
    //   x  = d sin α' − (−0.026) cos α' = 11.880347
    //   y  = d cos α' + (−0.026) sin α' = −9.198464
    //   z  = 15.35 sin(−12.5°) + 0.18 cos(−12.5°) = −3.146615
    // (python3, double precision).
    let mut lasers = vec![LaserCalibration::nominal(-5.0); 64];
    lasers[35] = LaserCalibration {
        vert_correction_deg: -12.5,
        rot_correction_deg: -4.2,
        dist_correction_m: 0.35,
        vert_offset_m: 0.18,
        horiz_offset_m: -0.026,
    };
    let cal = Calibration::new(lasers);
    let mut azimuths = [0u16; 12];
    azimuths[0] = 12345;
    azimuths[1] = 12345;
    let mut bytes = hdl64e_packet(azimuths);
    set_channel(&mut bytes, 1, 3, 7500, 99);
    let options = VelodyneOptions {
        calibration: Some(&cal),
        ..VelodyneOptions::default()
    };
    let points = convert(&bytes, &options);
    assert_eq!(points.len(), 1);
    let p = points[0];
    assert_eq!((p.laser, p.block, p.intensity), (35, 1, 99));
    assert!((p.x - 11.880347).abs() < TOL_M, "x = {}", p.x);
    assert!((p.y + 9.198464).abs() < TOL_M, "y = {}", p.y);
    assert!((p.z + 3.146615).abs() < TOL_M, "z = {}", p.z);
    assert!((p.distance_m - 15.35).abs() < TOL_M);
    assert!((p.azimuth_deg - 123.45).abs() < 1e-4);
    assert_eq!(p.time_offset_us, None);
}

#[test]
fn geometry_model_override() {
    // An all-upper packet converted as an HDL-64E uses lasers 0..32 of the
    // calibration; laser 15 gets ω = 0 here, so azimuth 0 puts it on +y.
    let mut lasers = vec![LaserCalibration::nominal(-5.0); 64];
    lasers[15] = LaserCalibration::nominal(0.0);
    let cal = Calibration::new(lasers);
    let mut bytes = packet([UPPER_BLOCK_ID; 12], [0; 12], 0, 0);
    set_channel(&mut bytes, 0, 15, 5000, 0);
    let options = VelodyneOptions {
        model: Some(VelodyneModel::Hdl64e),
        calibration: Some(&cal),
        ..VelodyneOptions::default()
    };
    let mut out = Vec::new();
    let used = view(&bytes).append_points(&options, 7, &mut out);
    assert_eq!(used.map(|d| d.evidence), Ok(ModelEvidence::Override));
    assert_eq!(out.len(), 1);
    assert!((out[0].y - 10.0).abs() < TOL_M && out[0].x.abs() < TOL_M);
    assert_eq!(out[0].packet, 7);
}

#[test]
fn geometry_cloud_from_packets() {
    let mut first = hdl32e_packet([0; 12]);
    set_channel(&mut first, 0, 15, 5000, 0);
    let mut second = packet([UPPER_BLOCK_ID; 12], [9000; 12], 0, 0);
    second[1200..1204].copy_from_slice(&1_235_120u32.to_le_bytes());
    set_channel(&mut second, 4, 15, 5000, 0);
    let data = [first.clone(), second].concat();
    let cloud = match cloud_from_packets(&data, &VelodyneOptions::default()) {
        Ok(cloud) => cloud,
        Err(e) => panic!("{e}"),
    };
    // The first packet's product id settles the model for the batch.
    assert_eq!(
        cloud.model,
        Some(DetectedModel {
            model: VelodyneModel::Hdl32e,
            evidence: ModelEvidence::ProductId
        })
    );
    assert_eq!(cloud.packet_timestamps_us, vec![1_234_567, 1_235_120]);
    assert_eq!(cloud.points.len(), 2);
    assert_eq!((cloud.points[1].packet, cloud.points[1].block), (1, 4));
    assert!((cloud.points[1].x - 10.0).abs() < TOL_M);

    // An HDL-64E packet after an HDL-32E one is refused.
    let mixed = [first, hdl64e_packet([0; 12])].concat();
    let cal = Calibration::new(vec![LaserCalibration::default(); 64]);
    let options = VelodyneOptions {
        calibration: Some(&cal),
        ..VelodyneOptions::default()
    };
    assert_eq!(
        cloud_from_packets(&mixed, &options).map(|c| c.points.len()),
        Err(GeometryError::MixedModels {
            packet: 1,
            expected: VelodyneModel::Hdl32e,
            found: VelodyneModel::Hdl64e
        })
    );
    assert_eq!(
        cloud_from_packets(&[], &VelodyneOptions::default()).map(|c| c.model),
        Ok(None)
    );
}

#[test]
fn geometry_block_accessors() {
    let mut bytes = hdl32e_packet([35999; 12]);
    set_channel(&mut bytes, 11, 31, 0xABCD, 0xEF);
    let packet = view(&bytes);
    assert_eq!(packet.blocks().len(), 12);
    assert!(packet.block(12).is_none());
    let Some(block) = packet.block(11) else {
        panic!("block 11 exists");
    };
    assert_eq!(
        (block.index(), block.offset(), block.id()),
        (11, 1100, UPPER_BLOCK_ID)
    );
    assert_eq!(block.kind(), Some(BlockKind::Upper));
    assert_eq!(block.azimuth_raw(), 35999);
    assert!((block.azimuth_deg() - 359.99).abs() < 1e-9);
    assert_eq!(block.channels().len(), 32);
    assert_eq!(
        block.channel(31),
        Some(ChannelReading {
            distance_raw: 0xABCD,
            intensity: 0xEF
        })
    );
    assert_eq!(block.channel(32), None);
    assert_eq!((packet.mode_byte(), packet.id_byte()), (0x37, 0x21));
}
