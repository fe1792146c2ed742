//! Typed payloads of the documented message types (spec section 3; GPS
//! is in [`crate::gps`]), and the [`TypedMessage`] trait they share.
//!
//! Every type parses from a payload slice and serializes back to the very
//! same bytes: "unused" fields and the raw value of the 4-byte `bool` are
//! kept. Image data and Velodyne packets borrow from the input.

use logcore::FormatError;
use logcore::cursor::{Cursor, expect_len};
use logcore::{Value, ValueType};

use crate::error::{Error, Result};
use crate::hash;
/// Bytes in one Velodyne data packet (UDP payload, spec 6.1).
pub const VELODYNE_PACKET_LEN: usize = 1206;

/// A typed message payload: its name, id and version, and how it converts
/// from and to payload bytes.
///
/// ```
/// use vellog::{ObdData, TypedMessage};
/// let obd = ObdData { speed_kmh: 50, engine_rpm: 2100, throttle_position: 17.5, ..Default::default() };
/// let bytes = obd.to_bytes().unwrap();
/// assert_eq!(bytes.len(), 28);
/// assert_eq!(ObdData::parse(&bytes, 0).unwrap(), obd);
/// ```
pub trait TypedMessage<'a>: Sized {
    /// The type name, e.g. `"OBDDataM"`.
    const NAME: &'static str;
    /// The type id, `simple_hash(NAME)`.
    const TYPE_ID: i32;
    /// The payload version this type decodes.
    const VERSION: i32;

    /// Parses a payload; `offset` is the payload's absolute position in the
    /// file, used in error messages.
    fn parse(payload: &'a [u8], offset: u64) -> Result<Self>;

    /// Appends the payload bytes to `out`. Fails only when a length does not
    /// fit the format's 32-bit fields.
    fn write_to(&self, out: &mut Vec<u8>) -> Result<()>;

    /// The payload as a dynamic value (what `robolog cat --json` prints).
    fn to_value(&self) -> Value;

    /// The type of every value [`TypedMessage::to_value`] gives: the
    /// payload's fields in order, integers of their stored width, image
    /// and packet bytes as [`ValueType::Bytes`] (a Velodyne packet as 1206
    /// `uint8`s).
    ///
    /// ```
    /// use logcore::ValueType;
    /// use vellog::{RobotPose, TypedMessage};
    /// assert_eq!(
    ///     RobotPose::value_type(),
    ///     ValueType::record([
    ///         ("orientation", ValueType::fixed(ValueType::F32, 4)),
    ///         ("acceleration", ValueType::fixed(ValueType::F32, 3)),
    ///     ])
    /// );
    /// ```
    fn value_type() -> ValueType;

    /// The payload bytes.
    fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.write_to(&mut out)?;
        Ok(out)
    }
}

/// A VEL string: u32 length, then that many bytes. A length that does not
/// fit is reported at the length's offset.
pub(crate) fn string<'a>(f: &mut Cursor<'a>, field: &str) -> Result<&'a [u8]> {
    let at = f.offset();
    let len = f.u32(field)?;
    f.bytes(u64::from(len), field).map_err(|_| {
        Error::malformed(
            at,
            format!(
                "{field} of {len} bytes (length prefix) within the {}",
                f.what()
            ),
            format!("only {} bytes left in it", f.remaining()),
        )
    })
}

pub(crate) fn len_u32(len: usize, what: &str) -> Result<u32> {
    u32::try_from(len).map_err(|_| {
        Error::invalid_argument(format!(
            "{what} of {len} bytes does not fit a VEL 32-bit length"
        ))
    })
}

/// Text of a VEL string for display: UTF-8 when it is valid UTF-8, else
/// Latin-1 (the encoding is unstated, spec 5.9), with one trailing NUL trimmed.
///
/// ```
/// assert_eq!(vellog::display_string(b"front\0"), "front");
/// assert_eq!(vellog::display_string(b"M\xfcller"), "Müller");
/// ```
pub fn display_string(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(&[0]).unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

/// `OBDDataM` v100: vehicle data from the OBD-II port (28 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ObdData {
    /// Vehicle speed, km/h.
    pub speed_kmh: i32,
    /// Engine speed, rpm.
    pub engine_rpm: i32,
    /// Unused float at payload offset 8, kept for byte-identical rewrites.
    pub unused_8: f32,
    /// Unused int at offset 12.
    pub unused_12: i32,
    /// Unused int at offset 16.
    pub unused_16: i32,
    /// Throttle position (unit unstated; OBD-II PID 0x11 is a percentage).
    pub throttle_position: f32,
    /// Unused int at offset 24.
    pub unused_24: i32,
}

impl TypedMessage<'_> for ObdData {
    const NAME: &'static str = "OBDDataM";
    const TYPE_ID: i32 = hash::OBD_DATA;
    const VERSION: i32 = hash::OBD_DATA_VERSION;

    fn parse(payload: &[u8], offset: u64) -> Result<Self> {
        expect_len(payload, 28, offset, "OBDDataM v100 payload")?;
        let mut f = Cursor::new(payload, offset, "OBDDataM v100 payload");
        Ok(ObdData {
            speed_kmh: f.i32("speed")?,
            engine_rpm: f.i32("engine rpm")?,
            unused_8: f.f32("unused float")?,
            unused_12: f.i32("unused int")?,
            unused_16: f.i32("unused int")?,
            throttle_position: f.f32("throttle position")?,
            unused_24: f.i32("unused int")?,
        })
    }

    fn write_to(&self, out: &mut Vec<u8>) -> Result<()> {
        out.extend_from_slice(&self.speed_kmh.to_le_bytes());
        out.extend_from_slice(&self.engine_rpm.to_le_bytes());
        out.extend_from_slice(&self.unused_8.to_le_bytes());
        out.extend_from_slice(&self.unused_12.to_le_bytes());
        out.extend_from_slice(&self.unused_16.to_le_bytes());
        out.extend_from_slice(&self.throttle_position.to_le_bytes());
        out.extend_from_slice(&self.unused_24.to_le_bytes());
        Ok(())
    }

    fn to_value(&self) -> Value {
        Value::record([
            ("speed_kmh", Value::I64(self.speed_kmh.into())),
            ("engine_rpm", Value::I64(self.engine_rpm.into())),
            ("unused_8", Value::F32(self.unused_8)),
            ("unused_12", Value::I64(self.unused_12.into())),
            ("unused_16", Value::I64(self.unused_16.into())),
            ("throttle_position", Value::F32(self.throttle_position)),
            ("unused_24", Value::I64(self.unused_24.into())),
        ])
    }

    fn value_type() -> ValueType {
        use ValueType::{F32, I32};
        ValueType::record([
            ("speed_kmh", I32),
            ("engine_rpm", I32),
            ("unused_8", F32),
            ("unused_12", I32),
            ("unused_16", I32),
            ("throttle_position", F32),
            ("unused_24", I32),
        ])
    }
}

/// `ImageM` v100: one camera frame, normally a complete JPEG stream.
///
/// The image bytes borrow from the file; nothing is decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Image<'a> {
    /// Which camera.
    pub source_id: i32,
    /// The 4-byte bool as stored ("currently always true"); any non-zero
    /// value means compressed.
    pub is_compressed_raw: u32,
    /// Width in pixels.
    pub width: i32,
    /// Height in pixels.
    pub height: i32,
    /// The image bytes (a JPEG stream, starting `FF D8`, when compressed).
    pub data: &'a [u8],
}

impl Image<'_> {
    /// Whether the data is compressed (JPEG).
    pub fn is_compressed(&self) -> bool {
        self.is_compressed_raw != 0
    }

    /// Whether the data starts with a JPEG start-of-image marker.
    pub fn looks_like_jpeg(&self) -> bool {
        self.data.starts_with(&[0xFF, 0xD8])
    }
}

impl<'a> TypedMessage<'a> for Image<'a> {
    const NAME: &'static str = "ImageM";
    const TYPE_ID: i32 = hash::IMAGE;
    const VERSION: i32 = hash::IMAGE_VERSION;

    fn parse(payload: &'a [u8], offset: u64) -> Result<Self> {
        let mut f = Cursor::new(payload, offset, "ImageM v100 payload");
        let source_id = f.i32("source id")?;
        let is_compressed_raw = f.u32("is-compressed flag")?;
        let width = f.i32("width")?;
        let height = f.i32("height")?;
        let len_at = f.offset();
        let len = f.u32("image data length")?;
        if u64::from(len) != f.remaining() as u64 {
            return Err(Error::malformed(
                len_at,
                format!(
                    "image data length equal to the {} bytes left in the ImageM payload",
                    f.remaining()
                ),
                format!("{len}"),
            ));
        }
        let data = f.rest();
        Ok(Image {
            source_id,
            is_compressed_raw,
            width,
            height,
            data,
        })
    }

    fn write_to(&self, out: &mut Vec<u8>) -> Result<()> {
        let len = len_u32(self.data.len(), "image data")?;
        out.extend_from_slice(&self.source_id.to_le_bytes());
        out.extend_from_slice(&self.is_compressed_raw.to_le_bytes());
        out.extend_from_slice(&self.width.to_le_bytes());
        out.extend_from_slice(&self.height.to_le_bytes());
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(self.data);
        Ok(())
    }

    fn to_value(&self) -> Value {
        Value::record([
            ("source_id", Value::I64(self.source_id.into())),
            ("is_compressed", Value::Bool(self.is_compressed())),
            ("width", Value::I64(self.width.into())),
            ("height", Value::I64(self.height.into())),
            ("data", Value::Bytes(self.data.to_vec())),
        ])
    }

    fn value_type() -> ValueType {
        use ValueType::{Bool, Bytes, I32};
        ValueType::record([
            ("source_id", I32),
            ("is_compressed", Bool),
            ("width", I32),
            ("height", I32),
            ("data", Bytes),
        ])
    }
}

/// `RobotPoseM` v100: orientation quaternion and acceleration (28 bytes).
///
/// Component order, frame and units are unstated (spec 5.8): the values are
/// kept by index as stored.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RobotPose {
    /// The four quaternion components in stored order.
    pub orientation: [f32; 4],
    /// The three acceleration components in stored order.
    pub acceleration: [f32; 3],
}

impl RobotPose {
    /// Display hint only: the index of the quaternion component with the
    /// largest magnitude, which for a robot near its reference attitude is
    /// usually the scalar part `w` (0 suggests w,x,y,z order; 3 x,y,z,w).
    pub fn likely_scalar_index(&self) -> usize {
        let mut best = 0;
        for (i, c) in self.orientation.iter().enumerate() {
            if c.abs() > self.orientation[best].abs() {
                best = i;
            }
        }
        best
    }
}

impl TypedMessage<'_> for RobotPose {
    const NAME: &'static str = "RobotPoseM";
    const TYPE_ID: i32 = hash::ROBOT_POSE;
    const VERSION: i32 = hash::ROBOT_POSE_VERSION;

    fn parse(payload: &[u8], offset: u64) -> Result<Self> {
        expect_len(payload, 28, offset, "RobotPoseM v100 payload")?;
        let mut f = Cursor::new(payload, offset, "RobotPoseM v100 payload");
        let mut pose = RobotPose::default();
        for q in &mut pose.orientation {
            *q = f.f32("orientation component")?;
        }
        for a in &mut pose.acceleration {
            *a = f.f32("acceleration component")?;
        }
        Ok(pose)
    }

    fn write_to(&self, out: &mut Vec<u8>) -> Result<()> {
        for v in self.orientation.iter().chain(&self.acceleration) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        Ok(())
    }

    fn to_value(&self) -> Value {
        let arr = |v: &[f32]| Value::Array(v.iter().map(|&x| Value::F32(x)).collect());
        Value::record([
            ("orientation", arr(&self.orientation)),
            ("acceleration", arr(&self.acceleration)),
        ])
    }

    fn value_type() -> ValueType {
        ValueType::record([
            ("orientation", ValueType::fixed(ValueType::F32, 4)),
            ("acceleration", ValueType::fixed(ValueType::F32, 3)),
        ])
    }
}

/// `VelodyneRawDataM` v100: Velodyne data packets exactly as received.
///
/// The packets borrow from the file: 1206 bytes each, back to back.
///
/// ```
/// use vellog::VelodyneRawData;
/// let packets = [[0u8; 1206]; 2];
/// let v = VelodyneRawData::from_packets(&packets);
/// assert_eq!(v.packet_count(), 2);
/// assert_eq!(v.packets().count(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VelodyneRawData<'a> {
    packets: &'a [u8],
}

impl<'a> VelodyneRawData<'a> {
    /// From whole packets.
    pub fn from_packets(packets: &'a [[u8; VELODYNE_PACKET_LEN]]) -> Self {
        VelodyneRawData {
            packets: packets.as_flattened(),
        }
    }

    /// From packet bytes back to back; fails unless the length is a
    /// multiple of 1206.
    pub fn from_bytes(packets: &'a [u8]) -> Result<Self> {
        if packets.len() % VELODYNE_PACKET_LEN == 0 {
            Ok(VelodyneRawData { packets })
        } else {
            Err(Error::invalid_argument(format!(
                "Velodyne packet bytes must be a multiple of {VELODYNE_PACKET_LEN}, got {}",
                packets.len()
            )))
        }
    }

    /// Number of packets.
    pub fn packet_count(&self) -> usize {
        self.packets.len() / VELODYNE_PACKET_LEN
    }

    /// All packet bytes, back to back.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.packets
    }

    /// Packet `i`, if there is one.
    pub fn packet(&self, i: usize) -> Option<&'a [u8; VELODYNE_PACKET_LEN]> {
        let start = i.checked_mul(VELODYNE_PACKET_LEN)?;
        let end = start.checked_add(VELODYNE_PACKET_LEN)?;
        self.packets.get(start..end)?.try_into().ok()
    }

    /// The packets in order.
    pub fn packets(&self) -> impl ExactSizeIterator<Item = &'a [u8; VELODYNE_PACKET_LEN]> + 'a {
        let packets = self.packets;
        // chunks_exact yields exactly 1206-byte slices, so every conversion
        // succeeds; `map` with a fallback keeps the iterator exact-sized.
        packets
            .chunks_exact(VELODYNE_PACKET_LEN)
            .map(|c| <&[u8; VELODYNE_PACKET_LEN]>::try_from(c).unwrap_or(&[0; VELODYNE_PACKET_LEN]))
    }
}

impl<'a> TypedMessage<'a> for VelodyneRawData<'a> {
    const NAME: &'static str = "VelodyneRawDataM";
    const TYPE_ID: i32 = hash::VELODYNE_RAW_DATA;
    const VERSION: i32 = hash::VELODYNE_RAW_DATA_VERSION;

    fn parse(payload: &'a [u8], offset: u64) -> Result<Self> {
        let mut f = Cursor::new(payload, offset, "VelodyneRawDataM v100 payload");
        let count = f.u32("packet count")?;
        let need = u64::from(count) * VELODYNE_PACKET_LEN as u64;
        if need != f.remaining() as u64 {
            return Err(Error::malformed(
                offset,
                format!(
                    "packet count matching the payload ({} bytes = 4 + 1206 x count)",
                    payload.len()
                ),
                format!("count {count} (needs {} bytes)", need + 4),
            ));
        }
        Ok(VelodyneRawData { packets: f.rest() })
    }

    fn write_to(&self, out: &mut Vec<u8>) -> Result<()> {
        let count = len_u32(self.packet_count(), "Velodyne packet count")?;
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(self.packets);
        Ok(())
    }

    fn to_value(&self) -> Value {
        Value::record([
            ("packet_count", Value::U64(self.packet_count() as u64)),
            (
                "packets",
                Value::Array(self.packets().map(|p| Value::Bytes(p.to_vec())).collect()),
            ),
        ])
    }

    fn value_type() -> ValueType {
        ValueType::record([
            ("packet_count", ValueType::U32),
            (
                "packets",
                ValueType::list(ValueType::fixed(ValueType::U8, VELODYNE_PACKET_LEN)),
            ),
        ])
    }
}

/// `LaserRange2DDataM` v101: one 2D laser scan (Hokuyo), ranges only.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LaserRange2DData<'a> {
    /// Sensor type as stored, e.g. `Hokuyo_URG-04LX` or `Hokuyo_UTM-30LX`.
    pub sensor_type: &'a [u8],
    /// Free-text sensor name (mounting position); the channel key.
    pub sensor_name: &'a [u8],
    /// Ranges in millimetres as the sensor produced them (values below the
    /// sensor's minimum distance are its error codes).
    pub ranges: Vec<u32>,
}

impl<'a> TypedMessage<'a> for LaserRange2DData<'a> {
    const NAME: &'static str = "LaserRange2DDataM";
    const TYPE_ID: i32 = hash::LASER_RANGE_2D_DATA;
    const VERSION: i32 = hash::LASER_RANGE_2D_DATA_VERSION;

    fn parse(payload: &'a [u8], offset: u64) -> Result<Self> {
        let mut f = Cursor::new(payload, offset, "LaserRange2DDataM v101 payload");
        let sensor_type = string(&mut f, "sensor type string")?;
        let sensor_name = string(&mut f, "sensor name string")?;
        let count_at = f.offset();
        let count = f.u32("measurement count")?;
        if u64::from(count) * 4 != f.remaining() as u64 {
            return Err(Error::malformed(
                count_at,
                format!(
                    "measurement count matching the {} bytes left (4 bytes each)",
                    f.remaining()
                ),
                format!("{count}"),
            ));
        }
        // The check above bounds the allocation by the payload size.
        let mut ranges = Vec::with_capacity(count as usize);
        for _ in 0..count {
            ranges.push(f.u32("range")?);
        }
        f.end()?;
        Ok(LaserRange2DData {
            sensor_type,
            sensor_name,
            ranges,
        })
    }

    fn write_to(&self, out: &mut Vec<u8>) -> Result<()> {
        for s in [self.sensor_type, self.sensor_name] {
            out.extend_from_slice(&len_u32(s.len(), "laser sensor string")?.to_le_bytes());
            out.extend_from_slice(s);
        }
        out.extend_from_slice(&len_u32(self.ranges.len(), "range count")?.to_le_bytes());
        for r in &self.ranges {
            out.extend_from_slice(&r.to_le_bytes());
        }
        Ok(())
    }

    fn to_value(&self) -> Value {
        Value::record([
            (
                "sensor_type",
                Value::String(display_string(self.sensor_type)),
            ),
            (
                "sensor_name",
                Value::String(display_string(self.sensor_name)),
            ),
            (
                "ranges_mm",
                Value::Array(self.ranges.iter().map(|&r| Value::U64(r.into())).collect()),
            ),
        ])
    }

    fn value_type() -> ValueType {
        ValueType::record([
            ("sensor_type", ValueType::String),
            ("sensor_name", ValueType::String),
            ("ranges_mm", ValueType::list(ValueType::U32)),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_check_their_length_first() {
        let data = [0xff, 0xff, 0xff, 0xff, b'x'];
        let mut f = Cursor::new(&data, 10, "test payload");
        let e = string(&mut f, "name").unwrap_err();
        assert_eq!(
            e.to_string(),
            "at byte 10: expected name of 4294967295 bytes (length prefix) within the test \
             payload, found only 1 bytes left in it"
        );
        let mut f = Cursor::new(&[2, 0, 0, 0, b'h', b'i'], 0, "x");
        assert_eq!(string(&mut f, "name").unwrap(), b"hi");
        assert!(f.is_empty());
    }

    #[test]
    fn fixed_sizes_are_enforced() {
        let e = ObdData::parse(&[0; 27], 100).unwrap_err();
        assert_eq!(e.offset(), Some(100));
        assert!(RobotPose::parse(&[0; 29], 0).is_err());
    }

    #[test]
    fn hostile_counts_are_errors() {
        let mut p = Vec::new();
        p.extend_from_slice(&u32::MAX.to_le_bytes());
        p.extend_from_slice(&[0; 1206]);
        let e = VelodyneRawData::parse(&p, 40).unwrap_err();
        assert_eq!(e.offset(), Some(40));

        // Image length larger than the payload.
        let mut p = vec![0u8; 16];
        p.extend_from_slice(&1000u32.to_le_bytes());
        p.extend_from_slice(&[0xFF, 0xD8]);
        let e = Image::parse(&p, 10).unwrap_err();
        assert_eq!(e.offset(), Some(26));

        // String length larger than the payload.
        let mut p = Vec::new();
        p.extend_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
        p.extend_from_slice(b"abc");
        assert!(LaserRange2DData::parse(&p, 0).is_err());

        // Range count larger than what remains.
        let l = LaserRange2DData {
            sensor_type: b"t",
            sensor_name: b"n",
            ranges: vec![1, 2],
        };
        let mut p = l.to_bytes().unwrap();
        let at = 4 + 1 + 4 + 1;
        p[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = LaserRange2DData::parse(&p, 0).unwrap_err();
        assert_eq!(e.offset(), Some(at as u64));
    }

    #[test]
    fn values_name_fields() {
        let v = ObdData {
            speed_kmh: 3,
            ..Default::default()
        }
        .to_value();
        assert_eq!(v.get("speed_kmh"), Some(&Value::I64(3)));
        let pose = RobotPose {
            orientation: [0.1, 0.0, 0.0, -0.99],
            acceleration: [0.0; 3],
        };
        assert_eq!(pose.likely_scalar_index(), 3);
        let v = Image {
            data: &[0xFF, 0xD8],
            ..Default::default()
        }
        .to_value();
        assert_eq!(v.get("data"), Some(&Value::Bytes(vec![0xFF, 0xD8])));
    }
}
