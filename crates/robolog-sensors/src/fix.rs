//! Positions: NavSatFix, Foxglove LocationFix, PX4 GPS topics, VEL GPS.

use logcore::Value;

use crate::fields::{field, float, int};
use crate::kind::canonical;
use crate::{Result, SensorError};

/// A position fix.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fix {
    /// Latitude, degrees north (WGS 84).
    pub latitude: f64,
    /// Longitude, degrees east.
    pub longitude: f64,
    /// Altitude in metres as the format gives it (NavSatFix and
    /// LocationFix: above the ellipsoid; PX4: above mean sea level; VEL:
    /// above the geoid); NaN when there is none.
    pub altitude: f64,
    /// The format's own fix quality: NavSatFix `status.status` (0 fix,
    /// 1 SBAS, 2 GBAS), PX4 `fix_type` (2 2D, 3 3D, 4 DGPS, 5 RTK float,
    /// 6 RTK fixed), VEL `quality` (1 GPS, 2 DGPS, 6 estimated); 0 for
    /// Foxglove `LocationFix`, which has none.
    pub status: i32,
}

/// Decodes a position of type `type_name` (see [`kind_of`](crate::kind_of)).
/// `Ok(None)` for a message that holds no fix: NavSatFix status -1
/// (`STATUS_NO_FIX`), PX4 `fix_type` below 2, VEL quality 0, or a NaN
/// latitude or longitude.
///
/// PX4 positions are read by field: `latitude_deg`/`longitude_deg`
/// (degrees, `f64`) and `altitude_msl_m` (m) in newer PX4, `lat`/`lon`
/// (integers of 1e-7 degrees) and `alt` (integer mm) in older. VEL
/// coordinates are read as the vellog crate reads them (decimal degrees,
/// or NMEA `ddmm.mmmm` when larger than a degree can be).
///
/// ```
/// use logcore::Value;
/// use robolog_sensors::decode_fix;
/// let px4 = Value::record([
///     ("lat", Value::I64(473_977_420)),
///     ("lon", Value::I64(85_455_940)),
///     ("alt", Value::I64(488_000)),
///     ("fix_type", Value::U64(3)),
/// ]);
/// let fix = decode_fix("vehicle_gps_position", &px4)?.unwrap();
/// assert_eq!((fix.latitude, fix.altitude, fix.status), (47.397742, 488.0, 3));
/// # Ok::<(), robolog_sensors::SensorError>(())
/// ```
pub fn decode_fix(type_name: &str, message: &Value) -> Result<Option<Fix>> {
    let fix = match &*canonical(type_name) {
        "sensor_msgs/NavSatFix" => {
            let status = int(field(message, "status")?, "status")?;
            if status < 0 {
                return Ok(None);
            }
            Fix {
                latitude: float(message, "latitude")?,
                longitude: float(message, "longitude")?,
                altitude: float(message, "altitude")?,
                status: status as i32,
            }
        }
        "foxglove.LocationFix" => Fix {
            latitude: float(message, "latitude")?,
            longitude: float(message, "longitude")?,
            // Absent (protobuf 3 leaves 0.0 out of the wire) reads as 0.
            altitude: float(message, "altitude")?,
            status: 0,
        },
        "vehicle_gps_position" | "sensor_gps" => {
            let fix_type = int(message, "fix_type")?;
            if fix_type < 2 {
                return Ok(None);
            }
            let (latitude, longitude) = if message.get("latitude_deg").is_some() {
                (
                    float(message, "latitude_deg")?,
                    float(message, "longitude_deg")?,
                )
            } else {
                (
                    int(message, "lat")? as f64 * 1e-7,
                    int(message, "lon")? as f64 * 1e-7,
                )
            };
            let altitude = if message.get("altitude_msl_m").is_some() {
                float(message, "altitude_msl_m")?
            } else if message.get("alt").is_some() {
                int(message, "alt")? as f64 / 1000.0
            } else {
                f64::NAN
            };
            Fix {
                latitude,
                longitude,
                altitude,
                status: fix_type as i32,
            }
        }
        "GPSDataM" => {
            let g = vellog::GpsData {
                latitude: float(message, "latitude")?,
                longitude: float(message, "longitude")?,
                quality: int(message, "quality")? as i32,
                height: float(message, "height")? as f32,
                ..Default::default()
            };
            if !g.has_fix() {
                return Ok(None);
            }
            let (Some(lat), Some(lon)) = (g.latitude_degrees(), g.longitude_degrees()) else {
                return Ok(None);
            };
            Fix {
                latitude: lat.degrees,
                longitude: lon.degrees,
                altitude: f64::from(g.height),
                status: g.quality,
            }
        }
        other => return Err(SensorError::new(format!("{other} is not a position type"))),
    };
    if fix.latitude.is_nan() || fix.longitude.is_nan() {
        return Ok(None);
    }
    Ok(Some(fix))
}
