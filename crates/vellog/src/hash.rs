//! Message type ids: the `simpleHash` of the type name (spec section 4).
//!
//! The original library's `BaseLib::String::simpleHash` is not public; the
//! function here was recovered from the six documented (name, id) pairs and
//! reproduces all of them exactly. It applies no final mask, so ids of very
//! long names (character sum reaching 2^18, roughly 20+ characters) are
//! unverified against the original. Restrict new names to ASCII: the original
//! probably summed signed `char`s.

/// The type id of a message type name: `Σ name[i] · (119 + i)`.
///
/// Usable in constants. Wraps instead of overflowing, so it is total.
///
/// ```
/// use vellog::simple_hash;
/// assert_eq!(simple_hash(b"OBDDataM"), 0x14043);
/// assert_eq!(simple_hash(b"MyDataM"), 0x13732);
/// const MY_TYPE: i32 = simple_hash(b"MyDataM");
/// assert_eq!(MY_TYPE, 79666);
/// ```
pub const fn simple_hash(name: &[u8]) -> i32 {
    let mut h: i32 = 0;
    let mut i = 0;
    while i < name.len() {
        let weight = 119i32.wrapping_add(i as i32);
        h = h.wrapping_add((name[i] as i32).wrapping_mul(weight));
        i += 1;
    }
    h
}

/// Type id of `OBDDataM` (vehicle speed, engine rpm, throttle): 0x00014043.
pub const OBD_DATA: i32 = simple_hash(b"OBDDataM");
/// Type id of `GPSDataM` (NMEA-style fix): 0x00014A32.
pub const GPS_DATA: i32 = simple_hash(b"GPSDataM");
/// Type id of `ImageM` (JPEG camera frame): 0x000109C9.
pub const IMAGE: i32 = simple_hash(b"ImageM");
/// Type id of `RobotPoseM` (orientation quaternion, acceleration): 0x0001E342.
pub const ROBOT_POSE: i32 = simple_hash(b"RobotPoseM");
/// Type id of `VelodyneRawDataM` (raw Velodyne UDP packets): 0x0003112B.
pub const VELODYNE_RAW_DATA: i32 = simple_hash(b"VelodyneRawDataM");
/// Type id of `LaserRange2DDataM` (Hokuyo range scan): 0x00030910.
pub const LASER_RANGE_2D_DATA: i32 = simple_hash(b"LaserRange2DDataM");

/// The documented version of `OBDDataM`.
pub const OBD_DATA_VERSION: i32 = 100;
/// The documented version of `GPSDataM`.
pub const GPS_DATA_VERSION: i32 = 100;
/// The documented version of `ImageM`.
pub const IMAGE_VERSION: i32 = 100;
/// The documented version of `RobotPoseM`.
pub const ROBOT_POSE_VERSION: i32 = 100;
/// The documented version of `VelodyneRawDataM`.
pub const VELODYNE_RAW_DATA_VERSION: i32 = 100;
/// The documented version of `LaserRange2DDataM` (v100 exists but is undocumented).
pub const LASER_RANGE_2D_DATA_VERSION: i32 = 101;

/// The six documented message types: (name, type id, version).
pub const BUILTIN_TYPES: [(&str, i32, i32); 6] = [
    ("OBDDataM", OBD_DATA, OBD_DATA_VERSION),
    ("GPSDataM", GPS_DATA, GPS_DATA_VERSION),
    ("ImageM", IMAGE, IMAGE_VERSION),
    ("RobotPoseM", ROBOT_POSE, ROBOT_POSE_VERSION),
    (
        "VelodyneRawDataM",
        VELODYNE_RAW_DATA,
        VELODYNE_RAW_DATA_VERSION,
    ),
    (
        "LaserRange2DDataM",
        LASER_RANGE_2D_DATA,
        LASER_RANGE_2D_DATA_VERSION,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_ids() {
        assert_eq!(OBD_DATA, 0x0001_4043);
        assert_eq!(GPS_DATA, 0x0001_4A32);
        assert_eq!(IMAGE, 0x0001_09C9);
        assert_eq!(ROBOT_POSE, 0x0001_E342);
        assert_eq!(VELODYNE_RAW_DATA, 0x0003_112B);
        assert_eq!(LASER_RANGE_2D_DATA, 0x0003_0910);
        // Decimal values from the spec's table.
        assert_eq!(
            [
                OBD_DATA,
                GPS_DATA,
                IMAGE,
                ROBOT_POSE,
                VELODYNE_RAW_DATA,
                LASER_RANGE_2D_DATA
            ],
            [81987, 84530, 68041, 123714, 201003, 198928]
        );
    }

    #[test]
    fn extra_ids_from_the_spec() {
        assert_eq!(simple_hash(b"MyDataM"), 0x13732);
        assert_eq!(simple_hash(b"ImuDataM"), 0x168CA);
        assert_eq!(simple_hash(b"OdometryM"), 0x1BE24);
        assert_eq!(simple_hash(b"PointCloudM"), 0x215AB);
        assert_eq!(simple_hash(b""), 0);
        // The hash is weak: these collide (the registry must catch it).
        assert_eq!(simple_hash(b"aca"), simple_hash(b"bab"));
        assert_eq!(simple_hash(b"aca"), 0x8958);
    }

    #[test]
    fn long_names_do_not_overflow() {
        let long = [0xffu8; 100_000];
        let _ = simple_hash(&long);
    }
}
