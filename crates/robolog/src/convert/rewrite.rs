//! What a filter reads from, and rewrites in, the payloads of ROS
//! messages: the `std_msgs/Header` a message type starts with
//! (`--restamp header`: its stamp becomes the log time) and the frames of
//! headers and of `tf2_msgs/TFMessage` (`--frame-id OLD=NEW`).
//!
//! A channel's [`Layout`] comes from its definition: ROS 1 (`ros1`
//! messages, a `ros1msg` definition) or CDR (`cdr` messages, a `ros2msg`
//! or `ros2idl` definition), whether its first field is a
//! `std_msgs/Header`, and whether it is a TF message (`tf2_msgs/TFMessage`,
//! ROS 1's `tf/tfMessage`). The stamp is read from the wire bytes, never
//! decoded: ROS 1 `uint32 seq`, `uint32 secs`, `uint32 nsecs`; CDR after
//! the 4-byte encapsulation header (either byte order) `int32 sec`,
//! `uint32 nanosec`.

use std::sync::Arc;

use logcore::{ChannelInfo, Timestamp};

/// How a channel's messages are laid out on the wire.
#[derive(Debug, Clone)]
pub(crate) enum Wire {
    /// ROS 1 serialization.
    Ros1,
    /// CDR, with the type to decode and re-encode with.
    #[cfg_attr(not(feature = "ros2"), allow(dead_code))]
    Cdr(Arc<CdrType>),
}

/// The CDR type of a channel (`ros2cdr`'s, with the `ros2` feature).
#[cfg(feature = "ros2")]
pub(crate) type CdrType = ros2cdr::MessageType;
/// Without the `ros2` feature, no CDR type.
#[cfg(not(feature = "ros2"))]
#[derive(Debug)]
pub(crate) struct CdrType;

/// What a filter knows of a channel's payloads.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    pub(crate) wire: Wire,
    /// The type's first field is a `std_msgs/Header`.
    pub(crate) header: bool,
    /// A TF message: `transforms`, an array of
    /// `geometry_msgs/TransformStamped`.
    pub(crate) tf: bool,
}

/// The type names of TF messages.
const TF_TYPES: [&str; 3] = [
    "tf2_msgs/TFMessage",
    "tf2_msgs/msg/TFMessage",
    "tf/tfMessage",
];

/// The layout of channel `c`, `None` for a channel that is neither ROS 1
/// nor CDR, or whose definition does not parse.
pub(crate) fn layout(c: &ChannelInfo) -> Option<Layout> {
    let schema = c.schema.as_ref()?;
    let text = std::str::from_utf8(&schema.data).ok()?;
    let tf = TF_TYPES.contains(&c.type_name.as_str());
    match c.message_encoding.as_str() {
        #[cfg(feature = "rosbag")]
        "ros1" => {
            let defs = rosbag12::msg::parse_definition(&c.type_name, text).ok()?;
            let header = defs
                .first()
                .and_then(|d| d.fields.first())
                .is_some_and(|f| {
                    matches!(&f.base, rosbag12::msg::BaseType::Message(n)
                        if n == "std_msgs/Header" || n == "roslib/Header")
                        && f.array == rosbag12::msg::ArrayKind::Scalar
                });
            Some(Layout {
                wire: Wire::Ros1,
                header,
                tf,
            })
        }
        #[cfg(feature = "ros2")]
        "cdr" => {
            let t = match schema.encoding.as_str() {
                "ros2idl" => ros2cdr::MessageType::parse_idl(&c.type_name, text),
                _ => ros2cdr::MessageType::parse(&c.type_name, text),
            }
            .ok()?;
            let header = t
                .wire_types()
                .first()
                .and_then(|w| w.fields().first())
                .is_some_and(|(_, kind, array)| {
                    matches!(kind, ros2cdr::WireKind::Msg(k)
                        if t.defs().get(*k).is_some_and(|d| d.name == "std_msgs/Header"))
                        && matches!(array, ros2cdr::msg::ArrayKind::Scalar)
                });
            Some(Layout {
                wire: Wire::Cdr(Arc::new(t)),
                header,
                tf,
            })
        }
        _ => None,
    }
}

/// The `header.stamp` of a message of layout `l` (whose type starts with
/// a header), read from its bytes; `None` when the payload is too short
/// or not plain CDR.
pub(crate) fn header_stamp(l: &Layout, payload: &[u8]) -> Option<Timestamp> {
    if !l.header {
        return None;
    }
    let word = |at: usize, le: bool| -> Option<[u8; 4]> {
        let b: [u8; 4] = payload.get(at..at + 4)?.try_into().ok()?;
        Some(if le { b } else { [b[3], b[2], b[1], b[0]] })
    };
    let (sec, nsec) = match l.wire {
        Wire::Ros1 => (
            i64::from(u32::from_le_bytes(word(4, true)?)),
            u32::from_le_bytes(word(8, true)?),
        ),
        Wire::Cdr(_) => {
            let le = cdr_little_endian(payload)?;
            (
                i64::from(i32::from_le_bytes(word(4, le)?)),
                u32::from_le_bytes(word(8, le)?),
            )
        }
    };
    sec.checked_mul(1_000_000_000)?
        .checked_add(i64::from(nsec))
        .map(Timestamp)
}

/// The byte order of a plain CDR payload by its encapsulation header
/// (`CDR_BE` 0x0000, `CDR_LE` 0x0001); `None` for another.
pub(crate) fn cdr_little_endian(payload: &[u8]) -> Option<bool> {
    match payload.get(..2)? {
        [0, 0] => Some(false),
        [0, 1] => Some(true),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use logcore::{ChannelId, Schema};

    use super::*;

    fn channel(encoding: &str, schema: &str, ty: &str, text: &str) -> ChannelInfo {
        ChannelInfo {
            id: ChannelId(1),
            topic: "/t".into(),
            type_name: ty.into(),
            message_encoding: encoding.into(),
            schema: Some(std::sync::Arc::new(Schema {
                name: ty.into(),
                encoding: schema.into(),
                data: text.as_bytes().to_vec(),
            })),
            metadata: Default::default(),
        }
    }

    #[cfg(feature = "rosbag")]
    #[test]
    fn ros1_stamps_after_seq() {
        let c = channel(
            "ros1",
            "ros1msg",
            "geometry_msgs/PointStamped",
            "Header header\nPoint point\n\
             ================================================================================\n\
             MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n\
             ================================================================================\n\
             MSG: geometry_msgs/Point\nfloat64 x\nfloat64 y\nfloat64 z\n",
        );
        let l = layout(&c).unwrap();
        assert!(l.header && !l.tf);
        let mut p = 7u32.to_le_bytes().to_vec();
        p.extend(12u32.to_le_bytes());
        p.extend(5u32.to_le_bytes());
        assert_eq!(header_stamp(&l, &p), Some(Timestamp(12_000_000_005)));
        let plain = layout(&channel("ros1", "ros1msg", "std_msgs/Int32", "int32 data")).unwrap();
        assert!(!plain.header);
        assert_eq!(header_stamp(&plain, &p), None);
    }

    #[cfg(feature = "ros2")]
    #[test]
    fn cdr_stamps_in_both_orders() {
        let c = channel(
            "cdr",
            "ros2msg",
            "std_msgs/msg/Header",
            "builtin_interfaces/Time stamp\nstring frame_id\n\
             ================================================================================\n\
             MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
        );
        // A Header itself does not start with a header.
        assert!(!layout(&c).unwrap().header);
        let c = channel(
            "cdr",
            "ros2msg",
            "sensor_msgs/msg/Temperature",
            "std_msgs/Header header\nfloat64 temperature\nfloat64 variance\n\
             ================================================================================\n\
             MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n\
             ================================================================================\n\
             MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
        );
        let l = layout(&c).unwrap();
        assert!(l.header);
        let mut le = vec![0, 1, 0, 0];
        le.extend((-2i32).to_le_bytes());
        le.extend(3u32.to_le_bytes());
        assert_eq!(header_stamp(&l, &le), Some(Timestamp(-1_999_999_997)));
        let mut be = vec![0, 0, 0, 0];
        be.extend(9i32.to_be_bytes());
        be.extend(1u32.to_be_bytes());
        assert_eq!(header_stamp(&l, &be), Some(Timestamp(9_000_000_001)));
        assert_eq!(header_stamp(&l, &[0, 1, 0, 0, 1]), None);
        assert_eq!(
            header_stamp(&l, &[0, 3, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]),
            None
        );
    }
}
