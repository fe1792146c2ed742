//! Which message types are sensor types.

/// What kind of sensor data a message type holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Camera frames: [`decode_image`](crate::decode_image).
    Image,
    /// Point clouds: [`decode_cloud`](crate::decode_cloud).
    Cloud,
    /// Laser scans (`LaserScan`, `MultiEchoLaserScan`, VEL's Hokuyo scans),
    /// decoded as clouds by [`decode_cloud`](crate::decode_cloud).
    Scan,
    /// Positions: [`decode_fix`](crate::decode_fix).
    Position,
}

/// A topic of a log that holds sensor data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SensorTopic {
    /// The topic.
    pub topic: String,
    /// Its message type, as the log names it.
    pub type_name: String,
    /// What it holds.
    pub kind: Kind,
}

/// The type name without the formats' spellings: ROS 2's `pkg/msg/Type`
/// becomes `pkg/Type`, Foxglove's ROS package `foxglove_msgs/Type` and its
/// protobuf/JSON `foxglove.Type` both `foxglove.Type`.
pub(crate) fn canonical(type_name: &str) -> std::borrow::Cow<'_, str> {
    let t = type_name.trim();
    if let Some((pkg, rest)) = t.split_once("/msg/") {
        if pkg == "foxglove_msgs" {
            return format!("foxglove.{rest}").into();
        }
        return format!("{pkg}/{rest}").into();
    }
    if let Some(rest) = t.strip_prefix("foxglove_msgs/") {
        return format!("foxglove.{rest}").into();
    }
    t.into()
}

/// The kind of sensor data messages of `type_name` hold, `None` for other
/// types.
///
/// | kind | types |
/// |---|---|
/// | `Image` | `sensor_msgs/Image`, `sensor_msgs/CompressedImage` (ROS 1 and `sensor_msgs/msg/...` of ROS 2), `foxglove.RawImage`, `foxglove.CompressedImage` (protobuf, JSON, `foxglove_msgs`), VEL `ImageM` |
/// | `Cloud` | `sensor_msgs/PointCloud2`, `sensor_msgs/PointCloud`, `foxglove.PointCloud`, VEL `VelodyneRawDataM` |
/// | `Scan` | `sensor_msgs/LaserScan`, `sensor_msgs/MultiEchoLaserScan`, `foxglove.LaserScan`, VEL `LaserRange2DDataM` |
/// | `Position` | `sensor_msgs/NavSatFix`, `foxglove.LocationFix`, PX4 `vehicle_gps_position` and `sensor_gps`, VEL `GPSDataM` |
///
/// ```
/// use robolog_sensors::{Kind, kind_of};
/// assert_eq!(kind_of("sensor_msgs/msg/Image"), Some(Kind::Image));
/// assert_eq!(kind_of("foxglove.PointCloud"), Some(Kind::Cloud));
/// assert_eq!(kind_of("vehicle_gps_position"), Some(Kind::Position));
/// assert_eq!(kind_of("sensor_msgs/Imu"), None);
/// ```
pub fn kind_of(type_name: &str) -> Option<Kind> {
    Some(match &*canonical(type_name) {
        "sensor_msgs/Image"
        | "sensor_msgs/CompressedImage"
        | "foxglove.RawImage"
        | "foxglove.CompressedImage"
        | "ImageM" => Kind::Image,
        "sensor_msgs/PointCloud2"
        | "sensor_msgs/PointCloud"
        | "foxglove.PointCloud"
        | "VelodyneRawDataM" => Kind::Cloud,
        "sensor_msgs/LaserScan"
        | "sensor_msgs/MultiEchoLaserScan"
        | "foxglove.LaserScan"
        | "LaserRange2DDataM" => Kind::Scan,
        "sensor_msgs/NavSatFix"
        | "foxglove.LocationFix"
        | "vehicle_gps_position"
        | "sensor_gps"
        | "GPSDataM" => Kind::Position,
        _ => return None,
    })
}
