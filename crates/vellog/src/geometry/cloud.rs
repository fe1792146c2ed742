//! Velodyne measurements to 3D points (spec 6.2–6.4).

use super::GeometryError;
use super::calibration::{Calibration, LaserCalibration};
use super::velodyne::{
    BLOCKS_PER_PACKET, BlockKind, DISTANCE_UNIT_M, DetectedModel, HDL32E_BLOCK_INTERVAL_US,
    HDL32E_FIRING_INTERVAL_US, HDL32E_VERTICAL_ANGLES_DEG, ModelEvidence, PACKET_LEN, ReturnMode,
    VelodyneModel, VelodynePacket, packets,
};

/// Coordinate frame of computed points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Frame {
    /// The Velodyne manual's frame: z up, +y at azimuth 0, azimuth growing
    /// clockwise seen from above (so azimuth 90° is +x).
    #[default]
    Velodyne,
    /// The ROS convention: x forward, y left, z up (`x_ros = y`, `y_ros = −x`).
    Ros,
}

/// Rotates a point from the Velodyne manual frame into the ROS frame
/// (`x_ros = y`, `y_ros = −x`, `z` unchanged).
///
/// ```
/// use vellog::geometry::velodyne_to_ros;
/// // Azimuth 0 (straight ahead in the manual frame) is +x in ROS.
/// assert_eq!(velodyne_to_ros([0.0, 10.0, 1.0]), [10.0, 0.0, 1.0]);
/// ```
pub fn velodyne_to_ros([x, y, z]: [f32; 3]) -> [f32; 3] {
    [y, -x, z]
}

/// How to turn packets into points.
///
/// The default detects the model from the packets, uses the nominal HDL-32E
/// angles (and refuses HDL-64E data, which needs a calibration), does not
/// interpolate azimuths and returns points in the Velodyne manual frame.
#[derive(Debug, Clone, Copy, Default)]
pub struct VelodyneOptions<'c> {
    /// Treat the packets as this model instead of detecting it (spec 6.5:
    /// older HDL-32E firmware and VLP sensors look alike on the wire).
    pub model: Option<VelodyneModel>,
    /// Per-laser calibration. Required for an HDL-64E; for an HDL-32E it
    /// replaces the nominal vertical angle table.
    pub calibration: Option<&'c Calibration>,
    /// Interpolate each HDL-32E laser's azimuth between its block's azimuth
    /// and the next firing's (spec 6.4). Ignored for the HDL-64E, whose
    /// firing timing the spec does not give.
    pub interpolate_azimuth: bool,
    /// Frame of the output coordinates.
    pub frame: Frame,
}

/// Which return of a dual-return (0x39) HDL-32E packet a point is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DualReturn {
    /// First block of a pair (even block index): the last return.
    Last,
    /// Second block of a pair (odd block index): the strongest return.
    Strongest,
}

/// One 3D point from one laser measurement.
///
/// Coordinates and distance are metres, stored as `f32` (see the
/// [module docs](super)); they are computed in `f64`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VelodynePoint {
    /// x, metres, in the frame asked for.
    pub x: f32,
    /// y, metres, in the frame asked for.
    pub y: f32,
    /// z, metres, in the frame asked for.
    pub z: f32,
    /// Measured distance in metres, after any distance correction.
    pub distance_m: f32,
    /// Reflectivity as reported.
    pub intensity: u8,
    /// Laser number: channel k of an upper block is laser k, of a lower
    /// block laser 32 + k.
    pub laser: u8,
    /// Index of the firing block in its packet, 0..12.
    pub block: u8,
    /// Index of the packet in the batch (0 for a single packet).
    pub packet: u32,
    /// Azimuth of the measurement in degrees, 0..360, interpolated if asked,
    /// before any per-laser rotational correction.
    pub azimuth_deg: f32,
    /// Time of the firing after the packet's first firing, µs. `Some` for
    /// the HDL-32E (`b·46.08 + k·1.152`, with `b` counting firings, i.e.
    /// block pairs in dual-return mode); `None` for the HDL-64E, whose firing
    /// timing the spec does not give. Add the packet's
    /// [`timestamp_us`](VelodynePacket::timestamp_us) for the time in the hour.
    pub time_offset_us: Option<f32>,
    /// Which return this is in an HDL-32E dual-return packet; `None` in
    /// single-return mode.
    pub dual_return: Option<DualReturn>,
}

/// Points of a batch of packets, e.g. one `VelodyneRawDataM` message.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VelodyneCloud {
    /// Model the packets were converted as; `None` for an empty batch. A
    /// guess only if every packet was a guess.
    pub model: Option<DetectedModel>,
    /// Each packet's timestamp (µs since the top of the hour), by packet index.
    pub packet_timestamps_us: Vec<u32>,
    /// All points, packet by packet, in firing order.
    pub points: Vec<VelodynePoint>,
}

impl VelodynePacket<'_> {
    /// Computes the points of this packet. Measurements with distance 0
    /// (no return) are skipped.
    ///
    /// ```
    /// use vellog::geometry::{VelodyneOptions, VelodynePacket};
    /// let mut bytes = vec![0u8; 1206];
    /// for b in 0..12 {
    ///     bytes[100 * b..100 * b + 2].copy_from_slice(&[0xFF, 0xEE]);
    /// }
    /// bytes[1205] = 0x21; // HDL-32E product id
    /// // Block 0, azimuth 90.00°, laser 15 (vertical angle 0) at 5000 × 2 mm.
    /// bytes[2..4].copy_from_slice(&9000u16.to_le_bytes());
    /// bytes[4 + 3 * 15..4 + 3 * 15 + 2].copy_from_slice(&5000u16.to_le_bytes());
    /// let points = VelodynePacket::new(&bytes)?.points(&VelodyneOptions::default())?;
    /// assert_eq!(points.len(), 1);
    /// assert!((points[0].x - 10.0).abs() < 1e-5 && points[0].y.abs() < 1e-5);
    /// # Ok::<(), vellog::geometry::GeometryError>(())
    /// ```
    pub fn points(
        &self,
        options: &VelodyneOptions<'_>,
    ) -> Result<Vec<VelodynePoint>, GeometryError> {
        let mut out = Vec::new();
        self.append_points(options, 0, &mut out)?;
        Ok(out)
    }

    /// Like [`points`](Self::points), but appends to `out` (so a caller can
    /// reuse one buffer), tags the points with `packet_index`, and returns the
    /// model used. On error nothing is appended.
    pub fn append_points(
        &self,
        options: &VelodyneOptions<'_>,
        packet_index: u32,
        out: &mut Vec<VelodynePoint>,
    ) -> Result<DetectedModel, GeometryError> {
        let detected = self.resolve_model(options.model)?;
        convert(self, detected.model, options, packet_index, out)?;
        Ok(detected)
    }

    /// The model to convert as: the caller's override (checked against the
    /// block ids) or the detected one.
    fn resolve_model(&self, forced: Option<VelodyneModel>) -> Result<DetectedModel, GeometryError> {
        let Some(model) = forced else {
            return self.detect_model();
        };
        self.check_block_ids()?;
        if model == VelodyneModel::Hdl32e {
            if let Some(b) = self.blocks().find(|b| b.kind() == Some(BlockKind::Lower)) {
                return Err(GeometryError::LowerBlockOnHdl32e {
                    block: b.index(),
                    offset: b.offset(),
                });
            }
        }
        Ok(DetectedModel {
            model,
            evidence: ModelEvidence::Override,
        })
    }
}

/// Computes the points of concatenated packets (a `VelodyneRawDataM` payload
/// after its 4-byte count).
///
/// Strict: a trailing partial packet, an unknown block id, packets of
/// different models, or HDL-64E data without calibration is an error. To keep
/// the points before a bad packet, iterate [`packets`] and call
/// [`VelodynePacket::append_points`] instead.
///
/// ```
/// use vellog::geometry::{cloud_from_packets, GeometryError, VelodyneOptions};
/// let mut packet = vec![0u8; 1206];
/// for b in 0..12 {
///     packet[100 * b..100 * b + 2].copy_from_slice(&[0xFF, 0xDD]); // HDL-64E lower blocks
/// }
/// let err = cloud_from_packets(&packet, &VelodyneOptions::default()).unwrap_err();
/// assert_eq!(err, GeometryError::CalibrationRequired);
/// ```
pub fn cloud_from_packets(
    data: &[u8],
    options: &VelodyneOptions<'_>,
) -> Result<VelodyneCloud, GeometryError> {
    let count = data.len() / PACKET_LEN;
    let mut cloud = VelodyneCloud {
        model: None,
        packet_timestamps_us: Vec::with_capacity(count),
        points: Vec::with_capacity(count * BLOCKS_PER_PACKET * 32),
    };
    for (index, packet) in packets(data).enumerate() {
        let packet = packet?;
        let packet_index = u32::try_from(index).unwrap_or(u32::MAX);
        let detected = packet.append_points(options, packet_index, &mut cloud.points)?;
        match &mut cloud.model {
            None => cloud.model = Some(detected),
            Some(first) if first.model != detected.model => {
                return Err(GeometryError::MixedModels {
                    packet: index,
                    expected: first.model,
                    found: detected.model,
                });
            }
            // One packet with a definite product id settles the guess for
            // the whole batch.
            Some(first) if first.guessed() && !detected.guessed() => *first = detected,
            Some(_) => {}
        }
        cloud.packet_timestamps_us.push(packet.timestamp_us());
    }
    Ok(cloud)
}

const HDL32E_NOMINAL: [LaserCalibration; 32] = {
    let mut lasers = [LaserCalibration::nominal(0.0); 32];
    let mut k = 0;
    while k < 32 {
        lasers[k] = LaserCalibration::nominal(HDL32E_VERTICAL_ANGLES_DEG[k]);
        k += 1;
    }
    lasers
};

fn convert(
    packet: &VelodynePacket<'_>,
    model: VelodyneModel,
    options: &VelodyneOptions<'_>,
    packet_index: u32,
    out: &mut Vec<VelodynePoint>,
) -> Result<(), GeometryError> {
    // Validate everything before pushing, so an error appends nothing.
    let table: &[LaserCalibration] = match (options.calibration, model) {
        (Some(cal), _) if cal.lasers.len() < model.lasers() => {
            return Err(GeometryError::CalibrationTooShort {
                model,
                needed: model.lasers(),
                got: cal.lasers.len(),
            });
        }
        (Some(cal), _) => &cal.lasers,
        (None, VelodyneModel::Hdl32e) => &HDL32E_NOMINAL,
        (None, VelodyneModel::Hdl64e) => return Err(GeometryError::CalibrationRequired),
    };
    // Sine and cosine of each laser's vertical angle, once per packet rather
    // than once per point; a fixed array avoids an allocation per packet.
    let mut vertical = [(0.0, 1.0); 64];
    for (slot, cal) in vertical.iter_mut().zip(table.iter().take(model.lasers())) {
        *slot = cal.vert_correction_deg.to_radians().sin_cos();
    }

    // Timing, dual return and interpolation follow the HDL-32E's documented
    // firing sequence; the spec gives none of them for the HDL-64E.
    let hdl32e = model == VelodyneModel::Hdl32e;
    let dual = hdl32e && packet.return_mode() == ReturnMode::Dual;
    // In dual-return mode a firing fills two blocks with the same azimuth,
    // so the next firing is two blocks on.
    let stride = if dual { 2 } else { 1 };
    let mut azimuths = [0.0; BLOCKS_PER_PACKET];
    for (slot, block) in azimuths.iter_mut().zip(packet.blocks()) {
        *slot = block.azimuth_deg();
    }

    out.reserve(BLOCKS_PER_PACKET * 32);
    for (block, &azimuth) in packet.blocks().zip(&azimuths) {
        let b = block.index();
        let Some(kind) = block.kind() else {
            // resolve_model already rejected unknown ids; stay total anyway.
            continue;
        };
        let gap = if options.interpolate_azimuth && hdl32e {
            azimuth_gap(&azimuths, b, stride)
        } else {
            0.0
        };
        let firing = (b / stride) as f64;
        let dual_return = dual.then_some(if b % 2 == 0 {
            DualReturn::Last
        } else {
            DualReturn::Strongest
        });
        for (k, reading) in block.channels().enumerate() {
            if reading.distance_raw == 0 {
                continue;
            }
            let laser_no = kind.first_laser() + k;
            // laser_no < model.lasers() <= table.len(): an HDL-32E has no
            // lower blocks (checked in resolve_model), so this never skips.
            let (Some(cal), Some(&trig)) = (table.get(laser_no), vertical.get(laser_no)) else {
                continue;
            };
            let alpha = (azimuth
                + gap * k as f64 * HDL32E_FIRING_INTERVAL_US / HDL32E_BLOCK_INTERVAL_US)
                .rem_euclid(360.0);
            let (distance, [x, y, z]) = laser_point(
                f64::from(reading.distance_raw) * DISTANCE_UNIT_M,
                alpha,
                cal,
                trig,
            );
            let time_us = firing * HDL32E_BLOCK_INTERVAL_US + k as f64 * HDL32E_FIRING_INTERVAL_US;
            let xyz = [x as f32, y as f32, z as f32];
            let [x, y, z] = match options.frame {
                Frame::Velodyne => xyz,
                Frame::Ros => velodyne_to_ros(xyz),
            };
            out.push(VelodynePoint {
                x,
                y,
                z,
                distance_m: distance as f32,
                intensity: reading.intensity,
                laser: laser_no as u8,
                block: b as u8,
                packet: packet_index,
                azimuth_deg: wrap_f32_degrees(alpha),
                time_offset_us: hdl32e.then_some(time_us as f32),
                dual_return,
            });
        }
    }
    Ok(())
}

/// `deg` (already in 0..360) as f32, kept below 360: rounding to f32 can
/// turn 359.999999999 into 360.0, which the field's documented range excludes.
fn wrap_f32_degrees(deg: f64) -> f32 {
    let deg = deg as f32;
    if deg >= 360.0 { 0.0 } else { deg }
}

/// Azimuth advance from firing `b` to the next firing, degrees, modulo 360
/// (the head passes 0° within a packet); the last firing reuses the gap
/// before it, as it has no successor in the packet.
fn azimuth_gap(azimuths: &[f64; BLOCKS_PER_PACKET], b: usize, stride: usize) -> f64 {
    let (from, to) = if b + stride < BLOCKS_PER_PACKET {
        (b, b + stride)
    } else if b >= stride {
        (b - stride, b)
    } else {
        return 0.0;
    };
    (azimuths[to] - azimuths[from]).rem_euclid(360.0)
}

/// Spec 6.4's calibrated formula; with zero corrections it reduces to the
/// plain `x = R cos ω sin α, y = R cos ω cos α, z = R sin ω`.
/// `(sin_w, cos_w)` are the sine and cosine of the laser's vertical angle.
fn laser_point(
    range_m: f64,
    azimuth_deg: f64,
    cal: &LaserCalibration,
    (sin_w, cos_w): (f64, f64),
) -> (f64, [f64; 3]) {
    let r = range_m + cal.dist_correction_m;
    let (sin_a, cos_a) = (azimuth_deg - cal.rot_correction_deg)
        .to_radians()
        .sin_cos();
    let d = r * cos_w - cal.vert_offset_m * sin_w;
    let x = d * sin_a - cal.horiz_offset_m * cos_a;
    let y = d * cos_a + cal.horiz_offset_m * sin_a;
    let z = r * sin_w + cal.vert_offset_m * cos_w;
    (r, [x, y, z])
}
