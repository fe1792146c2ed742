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
    #[cfg_attr(not(feature = "rosbag"), allow(dead_code))]
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
#[cfg_attr(
    not(all(feature = "rosbag", feature = "ros2")),
    allow(unused_variables)
)]
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

/// Frame renames of `--frame-id OLD=NEW`: old frame id -> new.
pub(crate) type Frames = std::collections::HashMap<String, String>;

/// `payload` (of layout `l`) with its frames renamed by `frames`: the
/// `header.frame_id` of a type that starts with a header, each
/// transform's `header.frame_id` and `child_frame_id` of a TF message.
/// `Ok(None)` when no frame of it is renamed (the payload is then written
/// as it is); an error when the payload does not read as its layout says.
///
/// ROS 1 payloads are rewritten in place (the strings have no alignment);
/// CDR TF messages too, their transforms' doubles realigned; any other
/// CDR message starting with a header is decoded and encoded again as
/// little-endian CDR.
pub(crate) fn renamed_frames(
    l: &Layout,
    payload: &[u8],
    frames: &Frames,
) -> Result<Option<Vec<u8>>, String> {
    if frames.is_empty() || !(l.header || l.tf) {
        return Ok(None);
    }
    match &l.wire {
        Wire::Ros1 if l.tf => ros1_tf(payload, frames),
        Wire::Ros1 => {
            let mut r = Reader::new(payload, 0, true);
            r.pos = 12;
            let (start, old) = r.string()?;
            let Some(new) = frames.get(old) else {
                return Ok(None);
            };
            let mut out = payload[..start].to_vec();
            out.extend((new.len() as u32).to_le_bytes());
            out.extend(new.as_bytes());
            out.extend(&payload[r.pos..]);
            Ok(Some(out))
        }
        Wire::Cdr(_) if l.tf => cdr_tf(payload, frames),
        #[cfg(feature = "ros2")]
        Wire::Cdr(t) => cdr_header(t, payload, frames),
        #[cfg(not(feature = "ros2"))]
        Wire::Cdr(_) => Ok(None),
    }
}

/// A cursor over a payload's bytes: little-endian or not, and where the
/// alignment counts from (CDR: after the encapsulation header).
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    origin: usize,
    le: bool,
    /// CDR aligns; ROS 1 does not.
    aligns: bool,
}

impl<'a> Reader<'a> {
    fn new(data: &'a [u8], origin: usize, ros1: bool) -> Self {
        Reader {
            data,
            pos: origin,
            origin,
            le: true,
            aligns: !ros1,
        }
    }

    fn align(&mut self, n: usize) {
        if self.aligns {
            let rel = self.pos - self.origin;
            self.pos += (n - rel % n) % n;
        }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let Some(end) = end else {
            return Err(format!(
                "{n} bytes wanted at offset {}, {} left",
                self.pos,
                self.data.len().saturating_sub(self.pos)
            ));
        };
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, String> {
        self.align(4);
        let b: [u8; 4] = self.take(4)?.try_into().map_err(|_| "short")?;
        Ok(if self.le {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }

    /// A string: where its length starts, and its text (CDR: without the
    /// NUL its length counts).
    fn string(&mut self) -> Result<(usize, &'a str), String> {
        self.align(4);
        let start = self.pos;
        let n = self.u32()? as usize;
        let bytes = self.take(n)?;
        let bytes = if self.aligns {
            bytes.strip_suffix(&[0]).unwrap_or(bytes)
        } else {
            bytes
        };
        let text = std::str::from_utf8(bytes).map_err(|_| "a frame id that is not UTF-8")?;
        Ok((start, text))
    }
}

/// A ROS 1 `tf2_msgs/TFMessage` with its frames renamed.
fn ros1_tf(payload: &[u8], frames: &Frames) -> Result<Option<Vec<u8>>, String> {
    let mut r = Reader::new(payload, 0, true);
    let n = r.u32()?;
    let mut out = payload[..4].to_vec();
    let mut changed = false;
    for _ in 0..n {
        // seq, stamp.
        out.extend(r.take(12)?);
        for _ in 0..2 {
            let (_, old) = r.string()?;
            let new = frames.get(old).map_or(old, |n| {
                changed = true;
                n.as_str()
            });
            out.extend((new.len() as u32).to_le_bytes());
            out.extend(new.as_bytes());
        }
        // translation and rotation: 7 float64.
        out.extend(r.take(56)?);
    }
    out.extend(&payload[r.pos..]);
    Ok(changed.then_some(out))
}

/// A CDR `tf2_msgs/msg/TFMessage` with its frames renamed, in its byte
/// order, the doubles realigned after strings of other lengths.
fn cdr_tf(payload: &[u8], frames: &Frames) -> Result<Option<Vec<u8>>, String> {
    let le = cdr_little_endian(payload).ok_or("not plain CDR")?;
    let mut r = Reader::new(payload, 4, false);
    r.le = le;
    let word = |v: u32| if le { v.to_le_bytes() } else { v.to_be_bytes() };
    let mut out = payload[..4].to_vec();
    let pad = |out: &mut Vec<u8>, n: usize| {
        while (out.len() - 4) % n != 0 {
            out.push(0);
        }
    };
    let n = r.u32()?;
    out.extend(word(n));
    let mut changed = false;
    for _ in 0..n {
        // stamp: sec, nanosec.
        r.align(4);
        out.extend(r.take(8)?);
        for _ in 0..2 {
            let (_, old) = r.string()?;
            let new = frames.get(old).map_or(old, |n| {
                changed = true;
                n.as_str()
            });
            pad(&mut out, 4);
            out.extend(word(new.len() as u32 + 1));
            out.extend(new.as_bytes());
            out.push(0);
        }
        r.align(8);
        pad(&mut out, 8);
        out.extend(r.take(56)?);
    }
    Ok(changed.then_some(out))
}

/// A CDR message starting with a header, its `header.frame_id` renamed:
/// decoded and encoded again.
#[cfg(feature = "ros2")]
fn cdr_header(t: &CdrType, payload: &[u8], frames: &Frames) -> Result<Option<Vec<u8>>, String> {
    let le = cdr_little_endian(payload).ok_or("not plain CDR")?;
    let mut r = Reader::new(payload, 4, false);
    r.le = le;
    r.pos = 12;
    let (_, old) = r.string()?;
    let Some(new) = frames.get(old) else {
        return Ok(None);
    };
    let mut value = t.decode(payload, 0).map_err(|e| e.to_string())?;
    let frame = match &mut value {
        logcore::Value::Struct(fields) => fields.first_mut().and_then(|(_, h)| match h {
            logcore::Value::Struct(h) => {
                h.iter_mut().find(|(n, _)| n == "frame_id").map(|(_, v)| v)
            }
            _ => None,
        }),
        _ => None,
    };
    match frame {
        Some(v) => *v = logcore::Value::String(new.clone()),
        None => return Err("no header.frame_id in the decoded message".into()),
    }
    crate::encode::cdr(t, &value).map(Some)
}

#[cfg(test)]
mod tests {
    use logcore::{ChannelId, Schema};

    use super::*;

    #[cfg_attr(not(any(feature = "rosbag", feature = "ros2")), allow(dead_code))]
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

    #[cfg(feature = "ros2")]
    #[test]
    fn cdr_header_frame_is_renamed_by_reencoding() {
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
        let mut p = vec![0, 1, 0, 0];
        p.extend(7i32.to_le_bytes());
        p.extend(8u32.to_le_bytes());
        p.extend(4u32.to_le_bytes());
        p.extend(b"imu\0");
        p.extend(1.5f64.to_le_bytes());
        p.extend(2.5f64.to_le_bytes());
        let frames: Frames = [("imu".to_string(), "imu_link".to_string())].into();
        let out = renamed_frames(&l, &p, &frames).unwrap().unwrap();
        let Wire::Cdr(t) = &l.wire else {
            panic!("not CDR")
        };
        let v = t.decode(&out, 0).unwrap();
        let h = v.get("header").unwrap();
        assert_eq!(
            h.get("frame_id"),
            Some(&logcore::Value::String("imu_link".into()))
        );
        assert_eq!(v.get("variance"), Some(&logcore::Value::F64(2.5)));
        assert_eq!(header_stamp(&l, &out), Some(Timestamp(7_000_000_008)));
        let other: Frames = [("gps".to_string(), "x".to_string())].into();
        assert_eq!(renamed_frames(&l, &p, &other), Ok(None));
    }

    /// A TF message of `transforms` (frame, child) in CDR (`Some(little
    /// endian)`) or ROS 1 (`None`).
    fn tf_payload(transforms: &[(&str, &str)], cdr: Option<bool>) -> Vec<u8> {
        let le = cdr.unwrap_or(true);
        let word = |v: u32| if le { v.to_le_bytes() } else { v.to_be_bytes() };
        let mut out = if cdr.is_some() {
            vec![0, u8::from(le), 0, 0]
        } else {
            Vec::new()
        };
        let origin = out.len();
        let pad = |out: &mut Vec<u8>, n: usize| {
            if cdr.is_some() {
                while (out.len() - origin) % n != 0 {
                    out.push(0);
                }
            }
        };
        out.extend(word(transforms.len() as u32));
        for (k, (frame, child)) in transforms.iter().enumerate() {
            if cdr.is_none() {
                out.extend(word(k as u32)); // seq
            }
            out.extend(word(10 + k as u32));
            out.extend(word(20));
            for s in [frame, child] {
                pad(&mut out, 4);
                let nul = usize::from(cdr.is_some());
                out.extend(word((s.len() + nul) as u32));
                out.extend(s.as_bytes());
                if cdr.is_some() {
                    out.push(0);
                }
            }
            pad(&mut out, 8);
            for x in 0..7 {
                let f = f64::from(x) + k as f64;
                out.extend(if le { f.to_le_bytes() } else { f.to_be_bytes() });
            }
        }
        out
    }

    #[test]
    fn tf_frames_are_renamed_on_the_wire() {
        let frames: Frames = [
            ("map".to_string(), "world".to_string()),
            ("base_link".to_string(), "base".to_string()),
        ]
        .into();
        let tf = |wire| Layout {
            wire,
            header: false,
            tf: true,
        };
        for cdr in [None, Some(true), Some(false)] {
            let l = match cdr {
                None => tf(Wire::Ros1),
                #[cfg(feature = "ros2")]
                Some(_) => tf(Wire::Cdr(Arc::new(
                    ros2cdr::MessageType::parse("p/msg/T", "int32 x").unwrap(),
                ))),
                #[cfg(not(feature = "ros2"))]
                Some(_) => continue,
            };
            let input = tf_payload(&[("map", "odom"), ("odom", "base_link")], cdr);
            let out = renamed_frames(&l, &input, &frames).unwrap().unwrap();
            assert_eq!(
                out,
                tf_payload(&[("world", "odom"), ("odom", "base")], cdr),
                "{cdr:?}"
            );
            let untouched = tf_payload(&[("a", "b")], cdr);
            assert_eq!(renamed_frames(&l, &untouched, &frames), Ok(None));
            assert!(renamed_frames(&l, &input[..input.len() - 3], &frames).is_err());
        }
    }
}
