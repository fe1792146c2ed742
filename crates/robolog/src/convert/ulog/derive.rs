//! The Foxglove messages derived from the usual PX4 topics: the vehicle's
//! pose (`tf`, `pose`) from its attitude and local position, rotated from
//! NED/FRD into ENU/FLU, and a `foxglove.LocationFix` per GPS sample.

use std::io::Write;

use logcore::{Error, Timestamp, Value};

use super::{POSE_TOPIC, Role, Source, TF_TOPIC};
use crate::convert::Context;
use crate::convert::foxglove;
use crate::convert::jsonschema::{ChannelSpec, JsonOut};

/// A number field of a decoded sample.
fn num(v: &Value, name: &str) -> Option<f64> {
    v.get(name).and_then(Value::as_f64)
}

/// Latitude, longitude (degrees) and altitude (m) of a GPS sample, in
/// either generation of PX4's GPS message.
pub(crate) fn gps_position(v: &Value) -> Option<[f64; 3]> {
    if let (Some(lat), Some(lon)) = (num(v, "latitude_deg"), num(v, "longitude_deg")) {
        let alt = num(v, "altitude_msl_m").unwrap_or(0.0);
        return Some([lat, lon, alt]);
    }
    let lat = num(v, "lat")? * 1e-7;
    let lon = num(v, "lon")? * 1e-7;
    let alt = num(v, "alt").map_or(0.0, |mm| mm * 1e-3);
    Some([lat, lon, alt])
}

/// PX4's NED position as East-North-Up.
pub(crate) fn ned_to_enu([n, e, d]: [f64; 3]) -> [f64; 3] {
    [e, n, -d]
}

/// PX4's attitude (FRD body to NED, `[w, x, y, z]`) as the rotation from
/// `base_link` (FLU) to `map` (ENU), `[x, y, z, w]`.
pub(crate) fn frd_ned_to_flu_enu([w, x, y, z]: [f64; 4]) -> [f64; 4] {
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let ned_to_enu = [h, h, 0.0, 0.0];
    let flu_to_frd = [1.0, 0.0, 0.0, 0.0];
    foxglove::quat_mul(foxglove::quat_mul(ned_to_enu, [x, y, z, w]), flu_to_frd)
}

/// The vehicle pose kept between samples.
#[derive(Default)]
pub(super) struct Pose {
    /// The last local position (ENU, m).
    position: Option<[f64; 3]>,
    /// The last attitude (FLU to ENU, `[x, y, z, w]`).
    attitude: Option<[f64; 4]>,
}

/// The Foxglove messages a sample of a known PX4 topic gives.
pub(super) fn derive<W: Write>(
    out: &mut JsonOut<W>,
    cx: &mut Context<'_>,
    src: &Source,
    value: &Value,
    t: Timestamp,
    pose: &mut Pose,
) -> Result<(), Error> {
    match src.role {
        Role::Plain => return Ok(()),
        Role::Gps => {
            let topic = format!("location_fix/{}", src.topic);
            let Some(pos) = gps_position(value) else {
                return Ok(());
            };
            if !foxglove::all_finite(&pos) || !cx.keep(&topic, t) {
                return Ok(());
            }
            let (eph, epv) = (num(value, "eph"), num(value, "epv"));
            let (cov, kind) = match (eph, epv) {
                (Some(h), Some(v)) if foxglove::all_finite(&[h, v]) => (
                    [h * h, 0.0, 0.0, 0.0, h * h, 0.0, 0.0, 0.0, v * v],
                    foxglove::COVARIANCE_APPROXIMATED,
                ),
                _ => ([0.0; 9], foxglove::COVARIANCE_UNKNOWN),
            };
            out.ensure(cx, &topic, || {
                ChannelSpec::well_known(foxglove::LOCATION_FIX)
            })?;
            let m = foxglove::location_fix(t, "gps", pos, cov, kind);
            return out.write(cx, &topic, t, &m);
        }
        Role::Attitude => {
            let q = value.get("q").and_then(|q| match q {
                Value::Array(items) => {
                    let v: Vec<f64> = items.iter().filter_map(Value::as_f64).collect();
                    <[f64; 4]>::try_from(v).ok()
                }
                _ => None,
            });
            match q {
                Some(q) if foxglove::all_finite(&q) && q.iter().any(|c| *c != 0.0) => {
                    pose.attitude = Some(frd_ned_to_flu_enu(q));
                }
                _ => return Ok(()),
            }
        }
        Role::LocalPosition => {
            let p = [num(value, "x"), num(value, "y"), num(value, "z")];
            match p {
                [Some(x), Some(y), Some(z)] if foxglove::all_finite(&[x, y, z]) => {
                    pose.position = Some(ned_to_enu([x, y, z]));
                }
                _ => return Ok(()),
            }
        }
    }
    let position = pose.position.unwrap_or([0.0; 3]);
    let attitude = pose.attitude.unwrap_or([0.0, 0.0, 0.0, 1.0]);
    if cx.keep(TF_TOPIC, t) {
        out.ensure(cx, TF_TOPIC, || {
            ChannelSpec::well_known(foxglove::FRAME_TRANSFORM)
        })?;
        let m = foxglove::frame_transform(t, "map", "base_link", position, attitude);
        out.write(cx, TF_TOPIC, t, &m)?;
    }
    if cx.keep(POSE_TOPIC, t) {
        out.ensure(cx, POSE_TOPIC, || {
            ChannelSpec::well_known(foxglove::POSE_IN_FRAME)
        })?;
        let m = foxglove::pose_in_frame(t, "map", position, attitude);
        out.write(cx, POSE_TOPIC, t, &m)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::jsonschema::testing::close;

    #[test]
    fn level_attitude_facing_north_is_yaw_90_in_enu() {
        let q = frd_ned_to_flu_enu([1.0, 0.0, 0.0, 0.0]);
        let h = std::f64::consts::FRAC_1_SQRT_2;
        // Up to sign, (0, 0, sin 45°, cos 45°).
        let q = if q[3] < 0.0 { q.map(|c| -c) } else { q };
        assert!(close(&q, &[0.0, 0.0, h, h]), "{q:?}");
    }

    #[test]
    fn facing_east_in_ned_is_facing_east_in_enu() {
        // Yaw 90° in NED (nose east): q = (cos 45°, 0, 0, sin 45°).
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let q = frd_ned_to_flu_enu([h, 0.0, 0.0, h]);
        let q = if q[3] < 0.0 { q.map(|c| -c) } else { q };
        // East is the ENU x axis: identity rotation.
        assert!(close(&q, &[0.0, 0.0, 0.0, 1.0]), "{q:?}");
        assert_eq!(ned_to_enu([1.0, 2.0, 3.0]), [2.0, 1.0, -3.0]);
    }

    #[test]
    fn gps_fields_of_both_generations() {
        let old = Value::record([
            ("lat", Value::I64(473_977_418)),
            ("lon", Value::I64(85_455_938)),
            ("alt", Value::I64(488_000)),
        ]);
        let p = gps_position(&old).unwrap();
        assert!(close(&p, &[47.397_741_8, 8.545_593_8, 488.0]), "{p:?}");
        let new = Value::record([
            ("latitude_deg", Value::F64(47.5)),
            ("longitude_deg", Value::F64(8.25)),
            ("altitude_msl_m", Value::F64(500.0)),
        ]);
        assert_eq!(gps_position(&new), Some([47.5, 8.25, 500.0]));
    }
}
