//! CARLA's frame (left-handed, centimetres, degrees) in Foxglove's
//! (right-handed, metres, quaternions): see the module docs of `carla`.

use carla_recorder::Vec3;

use crate::convert::foxglove;

/// A CARLA location (cm, left-handed) in Foxglove's frame (m, right-handed).
pub(crate) fn position(v: Vec3) -> [f64; 3] {
    [v.x / 100.0, -v.y / 100.0, v.z / 100.0]
}

/// A CARLA rotation (roll, pitch, yaw in degrees, left-handed) as a
/// quaternion `[x, y, z, w]` in Foxglove's frame.
pub(crate) fn orientation(r: Vec3) -> [f64; 4] {
    foxglove::quat_from_euler(r.x.to_radians(), -r.y.to_radians(), -r.z.to_radians())
}

/// `v` rotated by the unit quaternion `q` (`[x, y, z, w]`).
pub(super) fn rotate(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    let p = foxglove::quat_mul(
        foxglove::quat_mul(q, [v[0], v[1], v[2], 0.0]),
        [-q[0], -q[1], -q[2], q[3]],
    );
    [p[0], p[1], p[2]]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::jsonschema::testing::close;

    #[test]
    fn left_handed_centimetres_become_right_handed_metres() {
        assert_eq!(position(Vec3::new(100.0, 250.0, -50.0)), [1.0, -2.5, -0.5]);
        // Yaw 90° turns right in CARLA (+x towards +y): towards -y here.
        let q = orientation(Vec3::new(0.0, 0.0, 90.0));
        let ahead = rotate(q, [1.0, 0.0, 0.0]);
        assert!(close(&ahead, &[0.0, -1.0, 0.0]), "{ahead:?}");
        // Positive pitch raises the nose.
        let q = orientation(Vec3::new(0.0, 30.0, 0.0));
        let ahead = rotate(q, [1.0, 0.0, 0.0]);
        assert!(ahead[2] > 0.49, "{ahead:?}");
    }
}
