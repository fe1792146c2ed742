//! Channels: the named streams a log's messages belong to.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// Identifies a channel within one log reader or writer.
///
/// For formats with their own ids (MCAP channel id, ROS connection id,
/// ULog msg_id) it is that id; for formats without (VEL, CARLA) the reader
/// numbers channels in order of first appearance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ChannelId(pub u32);

impl fmt::Display for ChannelId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A message schema: the definition a message's payload is decoded with.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Schema {
    /// Schema name, usually the type name (`sensor_msgs/Imu`, `osi3.SensorView`).
    pub name: String,
    /// Schema encoding in MCAP's vocabulary (`ros1msg`, `protobuf`,
    /// `jsonschema`, ...), or a format-specific name such as `vel-builtin`.
    pub encoding: String,
    /// The schema text or binary descriptor, exactly as stored.
    pub data: Vec<u8>,
}

/// Everything known about a channel.
///
/// ```
/// use logcore::{ChannelId, ChannelInfo};
/// let ch = ChannelInfo::new(ChannelId(1), "/imu", "sensor_msgs/Imu", "ros1");
/// assert_eq!(ch.topic, "/imu");
/// assert!(ch.schema.is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChannelInfo {
    /// Id unique within the log.
    pub id: ChannelId,
    /// Topic or stream name: a ROS topic, a ULog `name` (with `[multi_id]`
    /// when non-zero), a CARLA packet kind, a VEL message type and sensor.
    pub topic: String,
    /// Type name of the messages (`sensor_msgs/Imu`, `vehicle_gps_position`, `GPSDataM`).
    pub type_name: String,
    /// Encoding of the payload bytes in MCAP's vocabulary where one fits
    /// (`ros1`, `protobuf`, `cdr`), else a format-specific name (`vel`, `ulog`, `carla`).
    pub message_encoding: String,
    /// The schema, when the file stores one. Shared: the channels of one
    /// schema (and every clone of a `ChannelInfo`) point at one copy.
    pub schema: Option<Arc<Schema>>,
    /// Format-specific facts about the channel (md5sum, callerid, multi_id, sensor name, ...).
    pub metadata: BTreeMap<String, String>,
}

impl ChannelInfo {
    /// A channel without schema or metadata.
    pub fn new(
        id: ChannelId,
        topic: impl Into<String>,
        type_name: impl Into<String>,
        message_encoding: impl Into<String>,
    ) -> Self {
        ChannelInfo {
            id,
            topic: topic.into(),
            type_name: type_name.into(),
            message_encoding: message_encoding.into(),
            schema: None,
            metadata: BTreeMap::new(),
        }
    }

    /// Adds one metadata entry (builder style).
    pub fn with_metadata(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.metadata.insert(key.into(), value.into());
        self
    }
}
