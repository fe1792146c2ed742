//! Hokuyo URG-04LX / UTM-30LX scans to 2D points (spec section 7).
//!
//! A `LaserRange2DDataM` message stores a sensor type string and a list of
//! ranges in millimetres, but neither the angles nor which scanner steps the
//! ranges cover. Both follow from the sensor model's parameters (as the
//! scanners report them over SCIP 2.0) and the mapping of spec 7.1.

use std::f64::consts::TAU;
use std::fmt;

use super::GeometryError;

/// The laser scanner models this module knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HokuyoModel {
    /// URG-04LX (and URG-04LX-UG01): 240°, 5.6 m, 10 scans/s.
    Urg04lx,
    /// UTM-30LX: 270°, 30 m, 40 scans/s.
    Utm30lx,
}

impl HokuyoModel {
    /// The model named by a `LaserRange2DDataM` sensor type string, matched
    /// case-insensitively on `04LX` / `30LX` (documented values are
    /// `Hokuyo_URG-04LX` and `Hokuyo_UTM-30LX`). `None` if neither or both
    /// occur.
    ///
    /// ```
    /// use vellog::geometry::HokuyoModel;
    /// assert_eq!(HokuyoModel::from_sensor_type("Hokuyo_URG-04LX"), Some(HokuyoModel::Urg04lx));
    /// assert_eq!(HokuyoModel::from_sensor_type("hokuyo_utm-30lx"), Some(HokuyoModel::Utm30lx));
    /// assert_eq!(HokuyoModel::from_sensor_type("SICK LMS"), None);
    /// ```
    pub fn from_sensor_type(sensor_type: &str) -> Option<Self> {
        let upper = sensor_type.to_ascii_uppercase();
        match (upper.contains("04LX"), upper.contains("30LX")) {
            (true, false) => Some(Self::Urg04lx),
            (false, true) => Some(Self::Utm30lx),
            _ => None,
        }
    }

    /// The model's parameters (spec 7).
    pub const fn params(self) -> HokuyoParams {
        match self {
            Self::Urg04lx => HokuyoParams {
                dmin_mm: 20,
                dmax_mm: 5600,
                ares: 1024,
                amin: 44,
                amax: 725,
                afrt: 384,
                scan_period_us: 100_000,
            },
            Self::Utm30lx => HokuyoParams {
                dmin_mm: 23,
                // The scanner reports 60 m; 30 m is the specified range, but
                // filtering on the reported value keeps what it measured.
                dmax_mm: 60_000,
                ares: 1440,
                amin: 0,
                amax: 1080,
                afrt: 540,
                scan_period_us: 25_000,
            },
        }
    }

    /// The documented sensor type string, e.g. `Hokuyo_URG-04LX`.
    pub const fn sensor_type(self) -> &'static str {
        match self {
            Self::Urg04lx => "Hokuyo_URG-04LX",
            Self::Utm30lx => "Hokuyo_UTM-30LX",
        }
    }
}

impl fmt::Display for HokuyoModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Urg04lx => "URG-04LX",
            Self::Utm30lx => "UTM-30LX",
        })
    }
}

/// Scanner parameters, named as in the SCIP 2.0 `PP` reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HokuyoParams {
    /// DMIN: smallest valid distance, mm; smaller values are error codes.
    pub dmin_mm: u32,
    /// DMAX: largest distance the scanner reports, mm.
    pub dmax_mm: u32,
    /// ARES: steps per full revolution.
    pub ares: u32,
    /// AMIN: first valid step.
    pub amin: u32,
    /// AMAX: last valid step.
    pub amax: u32,
    /// AFRT: the step pointing straight ahead (θ = 0).
    pub afrt: u32,
    /// Time of one scan (one motor revolution), µs.
    pub scan_period_us: u32,
}

impl HokuyoParams {
    /// Angle of step `step` in radians: `(step − AFRT) · 2π / ARES`, positive
    /// counter-clockwise seen from above, 0 straight ahead.
    ///
    /// ```
    /// use vellog::geometry::HokuyoModel;
    /// let utm = HokuyoModel::Utm30lx.params();
    /// assert!((utm.step_angle_rad(1080).to_degrees() - 135.0).abs() < 1e-9);
    /// ```
    pub fn step_angle_rad(&self, step: i32) -> f64 {
        // Subtracting in f64 cannot overflow, whatever step a caller passes.
        (f64::from(step) - f64::from(self.afrt)) * TAU / f64::from(self.ares)
    }

    /// Time from one step to the next, µs (`scan period / ARES`).
    pub fn step_interval_us(&self) -> f64 {
        f64::from(self.scan_period_us) / f64::from(self.ares)
    }

    /// Number of valid steps, `AMAX − AMIN + 1`.
    pub const fn valid_steps(&self) -> u32 {
        self.amax - self.amin + 1
    }
}

/// Where a scan's step window came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WindowSource {
    /// A known (model, count) pair of spec 7.1.
    Table,
    /// An unknown count, assumed centred on AFRT; deserves a warning.
    Centred,
    /// The caller gave the first step.
    User,
}

/// The scanner steps a scan's ranges cover: range `i` is step `first_step + i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StepWindow {
    /// Step of the first range. May be negative for a centred guess wider
    /// than the steps before AFRT.
    pub first_step: i32,
    /// Number of ranges.
    pub count: u32,
    /// How the window was chosen.
    pub source: WindowSource,
}

impl StepWindow {
    /// The window for `count` ranges of `model` (spec 7.1): URG-04LX 682 →
    /// 44..=725, 769 → 0..=768; UTM-30LX 1081 → 0..=1080; any other count is
    /// centred on AFRT ([`WindowSource::Centred`]). `first_step` overrides.
    ///
    /// ```
    /// use vellog::geometry::{HokuyoModel, StepWindow, WindowSource};
    /// let w = StepWindow::for_count(HokuyoModel::Urg04lx, 682, None)?;
    /// assert_eq!((w.first_step, w.last_step(), w.source), (44, 725, WindowSource::Table));
    /// # Ok::<(), vellog::geometry::GeometryError>(())
    /// ```
    pub fn for_count(
        model: HokuyoModel,
        count: usize,
        first_step: Option<i32>,
    ) -> Result<Self, GeometryError> {
        let params = model.params();
        // More ranges than steps in a revolution cannot come from this model;
        // the bound also keeps every step comfortably inside i32.
        let count32 = u32::try_from(count)
            .ok()
            .filter(|&c| c <= params.ares)
            .ok_or(GeometryError::TooManyRanges {
                model,
                count,
                ares: params.ares,
            })?;
        if let Some(first) = first_step {
            first
                .checked_add(count32 as i32)
                .ok_or(GeometryError::StepOverflow {
                    first_step: first,
                    count,
                })?;
            return Ok(Self {
                first_step: first,
                count: count32,
                source: WindowSource::User,
            });
        }
        let table = match (model, count) {
            (HokuyoModel::Urg04lx, 682) => Some(44),
            (HokuyoModel::Urg04lx, 769) => Some(0),
            (HokuyoModel::Utm30lx, 1081) => Some(0),
            _ => None,
        };
        let (first_step, source) = match table {
            Some(first) => (first, WindowSource::Table),
            // Centring puts the extra step of an even count after AFRT, as the
            // sensors' own windows do (URG: 340 steps before, 341 after).
            None => (
                params.afrt as i32 - (count32.saturating_sub(1) / 2) as i32,
                WindowSource::Centred,
            ),
        };
        Ok(Self {
            first_step,
            count: count32,
            source,
        })
    }

    /// Step of the last range (`first_step` for an empty scan).
    pub fn last_step(&self) -> i32 {
        self.first_step + self.count.saturating_sub(1) as i32
    }
}

/// How to turn a scan into points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScanOptions {
    /// Use this model instead of reading the sensor type string.
    pub model: Option<HokuyoModel>,
    /// Step of the first range, overriding the mapping of spec 7.1.
    pub first_step: Option<i32>,
    /// Skip ranges above DMAX (default true: the scanner never reports a
    /// genuine distance beyond it).
    pub skip_above_dmax: bool,
}

impl Default for ScanOptions {
    fn default() -> Self {
        Self {
            model: None,
            first_step: None,
            skip_above_dmax: true,
        }
    }
}

/// Something about a scan's conversion that was assumed rather than known.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ScanWarning {
    /// The sensor type string named no known model; it was guessed from the
    /// range count.
    ModelGuessed {
        /// The sensor type string.
        sensor_type: String,
        /// The model guessed.
        model: HokuyoModel,
    },
    /// The range count is not one of spec 7.1's; the window was assumed
    /// centred on the forward step.
    WindowCentred {
        /// Number of ranges.
        count: u32,
    },
}

impl fmt::Display for ScanWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ModelGuessed { sensor_type, model } => write!(
                f,
                "laser scanner type {sensor_type:?} is not a known model; assumed {model} from the range count"
            ),
            Self::WindowCentred { count } => write!(
                f,
                "{count} ranges is not a known scan window; assumed centred on the forward step"
            ),
        }
    }
}

/// One 2D point of a scan.
///
/// Coordinates are metres as `f32`, computed in `f64`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HokuyoPoint {
    /// x, metres, forward.
    pub x: f32,
    /// y, metres, left.
    pub y: f32,
    /// The range as stored, mm.
    pub range_mm: u32,
    /// Position of the range in the scan's list.
    pub index: u32,
    /// Scanner step of the range.
    pub step: i32,
    /// Angle θ, radians, counter-clockwise from straight ahead.
    pub angle_rad: f32,
    /// Time after the scan's first step, µs.
    pub time_offset_us: f32,
}

/// A converted scan.
#[derive(Debug, Clone, PartialEq)]
pub struct HokuyoScan {
    /// The model used.
    pub model: HokuyoModel,
    /// The steps the ranges were taken to cover.
    pub window: StepWindow,
    /// Points of the ranges that passed the DMIN (and DMAX) filters.
    pub points: Vec<HokuyoPoint>,
    /// Ranges skipped as error codes (below DMIN).
    pub below_dmin: usize,
    /// Ranges skipped as above DMAX (0 unless [`ScanOptions::skip_above_dmax`]).
    pub above_dmax: usize,
    /// What was assumed; empty when model and window are certain.
    pub warnings: Vec<ScanWarning>,
}

/// Converts one scan (`LaserRange2DDataM` sensor type and ranges) to points.
///
/// The model comes from `options.model`, else the sensor type string, else
/// the range count (682 → URG-04LX, 1081 → UTM-30LX, with a warning).
///
/// ```
/// use vellog::geometry::{scan_points, ScanOptions};
/// // 682 ranges of a URG-04LX cover steps 44..=725; step 640 is 90° left.
/// let mut ranges = vec![0u32; 682];
/// ranges[640 - 44] = 1000;
/// let scan = scan_points("Hokuyo_URG-04LX", &ranges, &ScanOptions::default())?;
/// assert_eq!(scan.points.len(), 1); // the zeros are error codes
/// let p = scan.points[0];
/// assert!(p.x.abs() < 1e-6 && (p.y - 1.0).abs() < 1e-6);
/// # Ok::<(), vellog::geometry::GeometryError>(())
/// ```
pub fn scan_points(
    sensor_type: &str,
    ranges: &[u32],
    options: &ScanOptions,
) -> Result<HokuyoScan, GeometryError> {
    let mut warnings = Vec::new();
    let model = match options
        .model
        .or_else(|| HokuyoModel::from_sensor_type(sensor_type))
    {
        Some(model) => model,
        None => {
            let guess = match ranges.len() {
                682 => HokuyoModel::Urg04lx,
                1081 => HokuyoModel::Utm30lx,
                count => {
                    return Err(GeometryError::UnknownHokuyoModel {
                        sensor_type: sensor_type.to_owned(),
                        count,
                    });
                }
            };
            warnings.push(ScanWarning::ModelGuessed {
                sensor_type: sensor_type.to_owned(),
                model: guess,
            });
            guess
        }
    };
    let window = StepWindow::for_count(model, ranges.len(), options.first_step)?;
    if window.source == WindowSource::Centred {
        warnings.push(ScanWarning::WindowCentred {
            count: window.count,
        });
    }

    let params = model.params();
    let step_us = params.step_interval_us();
    let mut scan = HokuyoScan {
        model,
        window,
        points: Vec::with_capacity(ranges.len()),
        below_dmin: 0,
        above_dmax: 0,
        warnings,
    };
    // `for_count` bounded the count by ARES and checked the last step, so
    // the index and step arithmetic below stays in range.
    for (i, &range_mm) in (0u32..).zip(ranges) {
        if range_mm < params.dmin_mm {
            scan.below_dmin += 1;
            continue;
        }
        if options.skip_above_dmax && range_mm > params.dmax_mm {
            scan.above_dmax += 1;
            continue;
        }
        let step = window.first_step + i as i32;
        let theta = params.step_angle_rad(step);
        let r = f64::from(range_mm) / 1000.0;
        let (sin, cos) = theta.sin_cos();
        scan.points.push(HokuyoPoint {
            x: (r * cos) as f32,
            y: (r * sin) as f32,
            range_mm,
            index: i,
            step,
            angle_rad: theta as f32,
            time_offset_us: (f64::from(i) * step_us) as f32,
        });
    }
    Ok(scan)
}

#[cfg(test)]
mod tests;
