//! `sensor_msgs/PointCloud2` read from the wire bytes of ROS 1 and CDR
//! messages without decoding them: the layout of the points (sizes,
//! fields, byte order) and where `data` lies in the payload, so that a
//! caller can view the points where they are stored, with no copy.

use std::collections::HashMap;
use std::ops::Range as Span;
use std::sync::OnceLock;

use logcore::{ChannelId, ChannelInfo, LogReader, MessageFilter, Payload, Timestamp};

use crate::cloud::{Pc2, Pc2Plan, SourceField, drop_nan, pc2_dtype};
use crate::iter::{Problem, Range};
use crate::kind::canonical;
use crate::{Cloud, CloudOptions, Error, Kind, PointField, Result, SensorError};

/// How a payload is serialized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Wire {
    /// ROS 1 serialization (message encoding `ros1`): little-endian,
    /// packed, `u32` lengths before strings and variable arrays.
    Ros1,
    /// ROS 2 plain CDR (message encoding `cdr`): a 4-byte encapsulation
    /// header giving the byte order, then each primitive aligned to its
    /// size counted from the first byte after the header.
    Cdr,
}

/// One field of a cloud's points where the message stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloudField {
    /// Byte offset of the field in a point.
    pub offset: usize,
    /// Name, type and count, as [`decode_cloud`](crate::decode_cloud)
    /// gives them.
    pub field: PointField,
}

/// Where the points of a `sensor_msgs/PointCloud2` lie in its payload,
/// and how they are laid out. Every size was checked (checked arithmetic)
/// before the layout was made: the fields lie inside `point_step` without
/// overlapping, rows of `width * point_step` bytes fit in `row_step`, and
/// `data` holds every row (exactly what
/// [`decode_cloud`](crate::decode_cloud) checks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloudLayout {
    /// Rows.
    pub height: u32,
    /// Points per row.
    pub width: u32,
    /// The fields in offset order (equal offsets in their stored order),
    /// as `decode_cloud` orders its records' fields.
    pub fields: Vec<CloudField>,
    /// Whether the values are big-endian.
    pub is_bigendian: bool,
    /// Bytes from one point's start to the next's.
    pub point_step: u32,
    /// Bytes from one row's start to the next's (ignored for one row).
    pub row_step: u32,
    /// Whether the message says every point is valid.
    pub is_dense: bool,
    /// The `data` field's bytes in the payload.
    pub data: Span<usize>,
}

impl CloudLayout {
    /// The points [`decode_cloud`](crate::decode_cloud) gives for this
    /// layout without `drop_nan`: `width * height`, 0 when `point_step` is 0.
    pub fn points(&self) -> usize {
        if self.point_step == 0 {
            0
        } else {
            self.width as usize * self.height as usize
        }
    }

    /// The fields of the packed records, in order (`Cloud::fields`).
    pub fn record_fields(&self) -> Vec<PointField> {
        self.fields.iter().map(|f| f.field.clone()).collect()
    }

    /// Whether rows follow each other with no bytes between them (one
    /// row, or `row_step == width * point_step`): the points are then
    /// `points() * point_step` bytes from `data.start`.
    pub fn rows_packed(&self) -> bool {
        self.height <= 1
            || u64::from(self.row_step) == u64::from(self.width) * u64::from(self.point_step)
    }

    /// The bytes of the payload that hold the points as an array of
    /// `points()` records of `point_step` bytes each, with the fields at
    /// their offsets, in this machine's byte order: `Some` for packed
    /// rows of values in the machine's byte order with at least one point
    /// and one field. A caller can view them as they are (numpy:
    /// `np.dtype({names, formats, offsets, itemsize: point_step})`).
    pub fn native_points(&self) -> Option<Span<usize>> {
        let native = self.is_bigendian == cfg!(target_endian = "big");
        if !native || !self.rows_packed() || self.points() == 0 || self.fields.is_empty() {
            return None;
        }
        let len = self.points().checked_mul(self.point_step as usize)?;
        let end = self.data.start.checked_add(len)?;
        (end <= self.data.end).then_some(self.data.start..end)
    }

    /// The packed cloud of `payload` (the payload the layout was read
    /// from): equal to what [`decode_cloud`](crate::decode_cloud) gives
    /// for the decoded message, `drop_nan` included.
    pub fn to_cloud(&self, payload: &[u8], opts: &CloudOptions) -> Result<Cloud> {
        let data = payload.get(self.data.clone()).ok_or_else(|| {
            SensorError::new(format!(
                "data at {:?} is outside the payload of {} bytes",
                self.data,
                payload.len()
            ))
        })?;
        let mut cloud = self.pc2().plan(data.len())?.pack(data);
        if opts.drop_nan {
            drop_nan(&mut cloud);
        }
        Ok(cloud)
    }

    fn pc2(&self) -> Pc2 {
        Pc2 {
            height: self.height,
            width: self.width,
            point_step: self.point_step,
            row_step: self.row_step,
            big: self.is_bigendian,
            fields: self
                .fields
                .iter()
                .map(|f| SourceField {
                    field: f.field.clone(),
                    offset: f.offset,
                })
                .collect(),
        }
    }
}

/// The fewest bytes a `PointField` takes on the wire (name length,
/// offset, datatype, count): what bounds the field count before anything
/// is allocated, as the decoders bound it.
const MIN_POINT_FIELD: usize = 4 + 4 + 1 + 4;

/// A cursor over one payload, with CDR's alignment and byte order.
struct Reader<'p> {
    b: &'p [u8],
    pos: usize,
    /// Where alignment counts from (4 for CDR, after the header).
    base: usize,
    cdr: bool,
    big: bool,
}

impl<'p> Reader<'p> {
    fn short(&self, n: usize, what: &str) -> SensorError {
        SensorError::new(format!(
            "the payload ends at byte {} before {n} bytes of {what}",
            self.b.len()
        ))
    }

    fn align(&mut self, n: usize, what: &str) -> Result<()> {
        if !self.cdr {
            return Ok(());
        }
        let rel = self.pos - self.base;
        let to = self.base + rel.div_ceil(n) * n;
        if to > self.b.len() {
            return Err(self.short(to - self.pos, &format!("padding before {what}")));
        }
        self.pos = to;
        Ok(())
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'p [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .ok_or_else(|| self.short(n, what))?;
        let s = &self.b[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.take(1, what)?[0])
    }

    fn u32(&mut self, what: &str) -> Result<u32> {
        self.align(4, what)?;
        let b = self.take(4, what)?;
        let a = [b[0], b[1], b[2], b[3]];
        Ok(if self.big {
            u32::from_be_bytes(a)
        } else {
            u32::from_le_bytes(a)
        })
    }

    fn left(&self) -> usize {
        self.b.len() - self.pos
    }

    /// A string as the decoders read it (text that is not UTF-8 as
    /// `decode_cloud` reads the bytes the decoders give: lossily).
    fn string(&mut self, what: &str) -> Result<String> {
        let n = self.u32(what)? as usize;
        if !self.cdr {
            return Ok(String::from_utf8_lossy(self.take(n, what)?).into_owned());
        }
        if n == 0 {
            // Some writers give an empty string no terminator.
            return Ok(String::new());
        }
        let b = self.take(n, what)?;
        let (text, nul) = b.split_at(n - 1);
        if nul != [0] {
            return Err(SensorError::new(format!(
                "{what} ends with 0x{:02x}, not its NUL terminator",
                nul[0]
            )));
        }
        Ok(String::from_utf8_lossy(text).into_owned())
    }
}

/// Reads the layout of a `sensor_msgs/PointCloud2` message from its wire
/// bytes, without touching the points: the header, the sizes, the
/// fields, the byte order, and where `data` lies in `payload`.
///
/// ROS 1: `header` (`uint32 seq`, `time stamp`, `string frame_id`),
/// `uint32 height`, `uint32 width`, `PointField[] fields` (`string name`,
/// `uint32 offset`, `uint8 datatype`, `uint32 count`), `bool
/// is_bigendian`, `uint32 point_step`, `uint32 row_step`, `uint8[] data`,
/// `bool is_dense`, and not a byte more. CDR: the encapsulation header
/// (`00 00` big-endian, `00 01` little-endian; other kinds are refused),
/// `header` (`builtin_interfaces/Time stamp`, `string frame_id` with its
/// NUL), then the same fields, each aligned to its size from the first
/// byte after the encapsulation header; up to three bytes of padding may
/// follow. A payload the project's decoders (rosbag12, ros2cdr) refuse is
/// refused here, and a layout [`decode_cloud`](crate::decode_cloud) would
/// refuse (an unknown datatype, fields outside `point_step` or
/// overlapping, `row_step` too small, `data` too short, sizes that
/// overflow) is refused too; nothing is allocated beyond the field list,
/// which the payload's length bounds.
///
/// ```
/// use robolog_sensors::{Wire, pointcloud2_layout};
/// let mut p = Vec::new();
/// for v in [0u32, 0, 0, 0] { p.extend(v.to_le_bytes()); } // seq, stamp, empty frame_id
/// for v in [1u32, 2, 1] { p.extend(v.to_le_bytes()); }    // height, width, one field
/// p.extend(1u32.to_le_bytes()); p.push(b'x');               // name "x"
/// p.extend(0u32.to_le_bytes()); p.push(7); p.extend(1u32.to_le_bytes()); // offset 0, FLOAT32, count 1
/// p.push(0);                                                // little-endian
/// for v in [4u32, 8, 8] { p.extend(v.to_le_bytes()); }     // point_step, row_step, 8 bytes of data
/// p.extend(1.5f32.to_le_bytes()); p.extend(2.5f32.to_le_bytes());
/// p.push(1);                                                // is_dense
/// let layout = pointcloud2_layout(&p, Wire::Ros1)?;
/// assert_eq!((layout.width, layout.points()), (2, 2));
/// assert_eq!(&p[layout.data.clone()], &[0, 0, 0xc0, 0x3f, 0, 0, 0x20, 0x40]);
/// assert!(pointcloud2_layout(&p[..p.len() - 1], Wire::Ros1).is_err());
/// # Ok::<(), robolog_sensors::SensorError>(())
/// ```
pub fn pointcloud2_layout(payload: &[u8], encoding: Wire) -> Result<CloudLayout> {
    let mut r = Reader {
        b: payload,
        pos: 0,
        base: 0,
        cdr: encoding == Wire::Cdr,
        big: false,
    };
    if r.cdr {
        let Some(h) = payload.get(..4) else {
            return Err(SensorError::new(format!(
                "a payload of {} bytes has no 4-byte CDR encapsulation header",
                payload.len()
            )));
        };
        r.big = match (h[0], h[1]) {
            (0, 0) => true,
            (0, 1) => false,
            (a, b) => {
                return Err(SensorError::new(format!(
                    "CDR encapsulation kind 0x{a:02x}{b:02x}: plain CDR (0x0000 or 0x0001) is read"
                )));
            }
        };
        r.pos = 4;
        r.base = 4;
    } else {
        r.u32("header.seq")?;
    }
    r.u32("header.stamp")?;
    r.u32("header.stamp")?;
    r.string("header.frame_id")?;
    let height = r.u32("height")?;
    let width = r.u32("width")?;
    let n = r.u32("the field count")? as usize;
    if n.saturating_mul(MIN_POINT_FIELD) > r.left() {
        return Err(SensorError::new(format!(
            "{n} fields of at least {MIN_POINT_FIELD} bytes in {} bytes",
            r.left()
        )));
    }
    let mut fields = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.string("a field's name")?;
        let offset = r.u32("a field's offset")?;
        let datatype = r.u8("a field's datatype")?;
        let count = r.u32("a field's count")?;
        let dtype = pc2_dtype(i64::from(datatype)).ok_or_else(|| {
            SensorError::new(format!("field {name} has unknown datatype {datatype}"))
        })?;
        fields.push(SourceField {
            field: PointField { name, dtype, count },
            offset: offset as usize,
        });
    }
    let is_bigendian = r.u8("is_bigendian")? != 0;
    let point_step = r.u32("point_step")?;
    let row_step = r.u32("row_step")?;
    let len = r.u32("the length of data")? as usize;
    let start = r.pos;
    r.take(len, "data")?;
    let data = start..r.pos;
    let is_dense = r.u8("is_dense")? != 0;
    let left = r.left();
    if left > if r.cdr { 3 } else { 0 } {
        return Err(SensorError::new(format!(
            "{left} bytes left over after the message"
        )));
    }
    let pc2 = Pc2 {
        height,
        width,
        point_step,
        row_step,
        big: is_bigendian,
        fields,
    };
    let Pc2Plan { sorted, .. } = pc2.plan(data.len())?;
    Ok(CloudLayout {
        height,
        width,
        fields: sorted
            .into_iter()
            .map(|f| CloudField {
                offset: f.offset,
                field: f.field,
            })
            .collect(),
        is_bigendian,
        point_step,
        row_step,
        is_dense,
        data,
    })
}

/// One `PointCloud2` message read without decoding: its log time, its
/// layout and its payload (borrowed from the log's bytes where the format
/// stores it as-is, else a shared buffer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawCloud<'a> {
    /// The message's log time.
    pub log_time: Timestamp,
    /// Where and how the points lie in `payload`.
    pub layout: CloudLayout,
    /// The message's bytes.
    pub payload: Payload<'a>,
}

impl RawCloud<'_> {
    /// The `data` field's bytes.
    pub fn data(&self) -> &[u8] {
        // The layout was read from this payload: the range lies inside.
        self.payload
            .get(self.layout.data.clone())
            .unwrap_or_default()
    }

    /// The packed cloud, as [`decode_cloud`](crate::decode_cloud) gives it.
    pub fn to_cloud(&self, opts: &CloudOptions) -> Result<Cloud> {
        self.layout.to_cloud(&self.payload, opts)
    }
}

/// The standard definitions, the structure a channel's own must have for
/// its payloads to be read here.
const ROS1_POINTCLOUD2: &str = "Header header\nuint32 height\nuint32 width\nPointField[] fields\n\
bool is_bigendian\nuint32 point_step\nuint32 row_step\nuint8[] data\nbool is_dense\n\
================================================================================\n\
MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n\
================================================================================\n\
MSG: sensor_msgs/PointField\nuint8 INT8=1\nuint8 UINT8=2\nuint8 INT16=3\nuint8 UINT16=4\n\
uint8 INT32=5\nuint8 UINT32=6\nuint8 FLOAT32=7\nuint8 FLOAT64=8\n\
string name\nuint32 offset\nuint8 datatype\nuint32 count\n";

const ROS2_POINTCLOUD2: &str = "std_msgs/Header header\nuint32 height\nuint32 width\n\
PointField[] fields\nbool is_bigendian\nuint32 point_step\nuint32 row_step\nuint8[] data\n\
bool is_dense\n\
================================================================================\n\
MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n\
================================================================================\n\
MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n\
================================================================================\n\
MSG: sensor_msgs/PointField\nuint8 INT8=1\nuint8 UINT8=2\nuint8 INT16=3\nuint8 UINT16=4\n\
uint8 INT32=5\nuint8 UINT32=6\nuint8 FLOAT32=7\nuint8 FLOAT64=8\n\
string name\nuint32 offset\nuint8 datatype\nuint32 count\n";

/// How deep [`shape`] follows nested types (PointCloud2 nests two deep).
const SHAPE_DEPTH: usize = 4;

/// One field of a compiled type, as [`shape`] compares it.
struct ShapeField {
    name: String,
    /// The wire kind (`Debug`), for a field of no nested type.
    kind: String,
    /// The array kind (`Debug`).
    array: String,
    /// The nested type's index.
    nested: Option<usize>,
}

/// A compiled type's wire structure as text: field names, wire kinds and
/// array kinds, nested types inline; `None` deeper than [`SHAPE_DEPTH`].
fn shape(types: &[Vec<ShapeField>], i: usize, depth: usize) -> Option<String> {
    if depth > SHAPE_DEPTH {
        return None;
    }
    let mut out = String::from("{");
    for f in types.get(i)? {
        out.push_str(&f.name);
        out.push(':');
        match f.nested {
            Some(j) => out.push_str(&shape(types, j, depth + 1)?),
            None => out.push_str(&f.kind),
        }
        out.push(':');
        out.push_str(&f.array);
        out.push(';');
    }
    out.push('}');
    Some(out)
}

/// The structure of a ROS 1 type.
fn ros1_shape(t: &rosbag12::MessageType) -> Option<String> {
    use rosbag12::msg::WireKind;
    let types: Vec<Vec<ShapeField>> = t
        .wire_types()
        .iter()
        .map(|w| {
            w.fields()
                .iter()
                .map(|(n, k, a)| ShapeField {
                    name: n.as_str().to_string(),
                    kind: format!("{k:?}"),
                    array: format!("{a:?}"),
                    nested: match k {
                        WireKind::Msg(j) => Some(*j),
                        WireKind::Prim(_) => None,
                    },
                })
                .collect()
        })
        .collect();
    shape(&types, 0, 0)
}

/// The structure of a ROS 2 type.
fn cdr_shape(t: &ros2cdr::MessageType) -> Option<String> {
    use ros2cdr::WireKind;
    let types: Vec<Vec<ShapeField>> = t
        .wire_types()
        .iter()
        .map(|w| {
            w.fields()
                .iter()
                .map(|(n, k, a)| ShapeField {
                    name: n.as_str().to_string(),
                    kind: format!("{k:?}"),
                    array: format!("{a:?}"),
                    nested: match k {
                        WireKind::Msg(j) => Some(*j),
                        _ => None,
                    },
                })
                .collect()
        })
        .collect();
    shape(&types, 0, 0)
}

fn standard_ros1() -> Option<&'static str> {
    static S: OnceLock<Option<String>> = OnceLock::new();
    S.get_or_init(|| {
        rosbag12::MessageType::parse("sensor_msgs/PointCloud2", ROS1_POINTCLOUD2)
            .ok()
            .and_then(|t| ros1_shape(&t))
    })
    .as_deref()
}

fn standard_cdr() -> Option<&'static str> {
    static S: OnceLock<Option<String>> = OnceLock::new();
    S.get_or_init(|| {
        ros2cdr::MessageType::parse("sensor_msgs/msg/PointCloud2", ROS2_POINTCLOUD2)
            .ok()
            .and_then(|t| cdr_shape(&t))
    })
    .as_deref()
}

/// How the payloads of `channel` can be read here: a
/// `sensor_msgs/PointCloud2` channel of encoding `ros1` or `cdr` whose
/// definition, as the log decodes it, has the standard structure.
/// `None` for every other channel.
pub fn raw_wire(log: &robolog::Log<'_>, channel: &ChannelInfo) -> Option<Wire> {
    if canonical(&channel.type_name) != "sensor_msgs/PointCloud2" {
        return None;
    }
    match channel.message_encoding.as_str() {
        "ros1" => {
            let found = match log.as_bag() {
                Some(bag) => ros1_shape(&*bag.message_type(channel.id.0).ok()?),
                None => {
                    // MCAP: the registry's `ros1` decoder parses the schema so.
                    let schema = channel.schema.as_ref()?;
                    let name = Some(schema.name.as_str())
                        .filter(|n| !n.is_empty())
                        .unwrap_or(&channel.type_name);
                    let text = std::str::from_utf8(&schema.data).ok()?;
                    let t =
                        rosbag12::MessageType::parse_with_limits(name, text, &log.limits()).ok()?;
                    ros1_shape(&t)
                }
            };
            (found.as_deref() == standard_ros1()).then_some(Wire::Ros1)
        }
        "cdr" => {
            let found = log.with_cdr_type(channel.id, cdr_shape)??;
            (Some(found.as_str()) == standard_cdr()).then_some(Wire::Cdr)
        }
        _ => None,
    }
}

/// The `sensor_msgs/PointCloud2` messages of `topic` read without
/// decoding them ([`pointcloud2_layout`]), in the log's order, with the
/// range applied as [`clouds`](crate::clouds) applies it. `Ok(None)` when
/// a channel of the topic is not one [`raw_wire`] reads (another type
/// or encoding: Foxglove, `PointCloud`, scans, VEL, a schema of another
/// structure): the caller reads the topic with [`clouds`](crate::clouds).
/// A message whose layout does not fit is an `Err(Problem)` and reading
/// goes on.
///
/// ```no_run
/// use robolog_sensors::{Range, raw_clouds};
/// let log = robolog::open("run.bag")?;
/// if let Some(it) = raw_clouds(&log, "/points", &Range::all())? {
///     for c in it {
///         let c = c?;
///         println!("{} {} points in {} bytes", c.log_time, c.layout.points(), c.data().len());
///     }
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn raw_clouds<'a>(
    log: &'a robolog::Log<'_>,
    topic: &str,
    range: &Range,
) -> std::result::Result<
    Option<impl Iterator<Item = std::result::Result<RawCloud<'a>, Problem>> + 'a>,
    Error,
> {
    let chans: Vec<ChannelInfo> = log
        .channels()?
        .into_iter()
        .filter(|c| c.topic == topic)
        .collect();
    // The errors `clouds` gives for an unknown topic or another kind.
    crate::iter::check_kind(
        &chans,
        topic,
        &[Kind::Cloud, Kind::Scan],
        "a point cloud or laser scan type",
    )?;
    let mut wires: HashMap<ChannelId, Wire> = HashMap::new();
    for c in &chans {
        match raw_wire(log, c) {
            Some(w) => wires.insert(c.id, w),
            None => return Ok(None),
        };
    }
    let mut filter = MessageFilter::all().channels(wires.keys().copied());
    filter.start = range.start;
    filter.end = range.end;
    let every = range.every.max(1);
    let topic = topic.to_string();
    let mut index = 0usize;
    let messages = log.messages(&filter)?;
    Ok(Some(messages.filter_map(move |m| {
        let problem = |log_time, message: String| Problem {
            topic: topic.clone(),
            log_time,
            message,
        };
        let m = match m {
            Ok(m) => m,
            Err(e) => return Some(Err(problem(None, e.to_string()))),
        };
        let keep = index % every == 0;
        index += 1;
        if !keep {
            return None;
        }
        let wire = *wires.get(&m.channel)?;
        Some(match pointcloud2_layout(&m.payload, wire) {
            Ok(layout) => Ok(RawCloud {
                log_time: m.log_time,
                layout,
                payload: m.payload,
            }),
            Err(e) => Err(problem(Some(m.log_time), e.to_string())),
        })
    })))
}
