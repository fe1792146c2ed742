//! Per-laser Velodyne calibration (spec 6.3, 6.4).
//!
//! An HDL-64E's vertical angles and corrections differ from unit to unit and
//! come from its calibration file (Velodyne `db.xml`, or the YAML the ROS
//! `velodyne` driver uses). The VEL format stores no calibration, so the caller
//! supplies one. Units here are degrees and metres: `db.xml` gives degrees and
//! centimetres (divide offsets by 100), the ROS YAML gives radians and metres
//! (convert angles with `f64::to_degrees`).

use super::velodyne::HDL32E_VERTICAL_ANGLES_DEG;

/// Calibration of one laser.
///
/// Field names follow the terms the Velodyne calibration files use.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LaserCalibration {
    /// Vertical angle ω of the laser, degrees, positive up.
    pub vert_correction_deg: f64,
    /// Rotational correction, degrees, subtracted from the block azimuth.
    pub rot_correction_deg: f64,
    /// Distance correction, metres, added to the measured distance.
    pub dist_correction_m: f64,
    /// Vertical offset of the laser from the sensor origin, metres.
    pub vert_offset_m: f64,
    /// Horizontal offset of the laser from the sensor origin, metres.
    pub horiz_offset_m: f64,
}

impl LaserCalibration {
    /// A laser with only a vertical angle and no corrections.
    pub const fn nominal(vert_correction_deg: f64) -> Self {
        Self {
            vert_correction_deg,
            rot_correction_deg: 0.0,
            dist_correction_m: 0.0,
            vert_offset_m: 0.0,
            horiz_offset_m: 0.0,
        }
    }
}

/// Calibration of a whole sensor: entry `i` is laser `i` (for an HDL-64E,
/// lasers 32–63 are the channels of the lower blocks).
///
/// ```
/// use vellog::geometry::{Calibration, LaserCalibration};
/// // A made-up 64-laser table; real values come from the unit's db.xml.
/// let cal = Calibration::new(
///     (0..64).map(|i| LaserCalibration::nominal(2.0 - f64::from(i) * 0.4)).collect(),
/// );
/// assert_eq!(cal.lasers.len(), 64);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Calibration {
    /// Per-laser values, indexed by laser number.
    pub lasers: Vec<LaserCalibration>,
}

impl Calibration {
    /// A calibration from per-laser values.
    pub fn new(lasers: Vec<LaserCalibration>) -> Self {
        Self { lasers }
    }

    /// The HDL-32E's nominal vertical angles with no corrections: what the
    /// conversion uses for an HDL-32E when no calibration is given.
    pub fn hdl32e_nominal() -> Self {
        Self::new(
            HDL32E_VERTICAL_ANGLES_DEG
                .iter()
                .map(|&angle| LaserCalibration::nominal(angle))
                .collect(),
        )
    }
}
