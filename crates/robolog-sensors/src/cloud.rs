//! Point clouds and laser scans as packed records.

use logcore::Value;

use crate::fields::{array, bytes, field, float, floats, int, text, uint32};
use crate::kind::canonical;
use crate::{Dtype, Result, SensorError};

/// One field of a cloud's records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointField {
    /// The name, as the cloud names it (`x`, `intensity`, `ring`, ...).
    pub name: String,
    /// The value type.
    pub dtype: Dtype,
    /// Values per record (1 for a scalar field).
    pub count: u32,
}

impl PointField {
    /// Bytes of the field in a record.
    pub fn size(&self) -> usize {
        self.dtype.size() * self.count as usize
    }
}

/// Points as packed records: each record holds the fields in order, with
/// no padding, little-endian. In numpy:
/// `np.frombuffer(data, np.dtype([(f.name, f.dtype.name(), (f.count,)) ...]))`
/// (a scalar shape for `count` 1).
#[derive(Debug, Clone, PartialEq)]
pub struct Cloud {
    /// The fields of each record, in order.
    pub fields: Vec<PointField>,
    /// Number of records.
    pub points: usize,
    /// `points * record_size()` bytes.
    pub data: Vec<u8>,
}

impl Cloud {
    /// Bytes per record: the sum of the fields' sizes.
    pub fn record_size(&self) -> usize {
        self.fields.iter().map(PointField::size).sum()
    }

    /// Offset of field `name` in a record, and the field.
    pub fn field(&self, name: &str) -> Option<(usize, &PointField)> {
        let mut at = 0;
        for f in &self.fields {
            if f.name == name {
                return Some((at, f));
            }
            at += f.size();
        }
        None
    }

    /// Value `k` of field `name` of record `i` as `f64`.
    pub fn value(&self, i: usize, name: &str, k: usize) -> Option<f64> {
        let (at, f) = self.field(name)?;
        if i >= self.points || k >= f.count as usize {
            return None;
        }
        let s = f.dtype.size();
        let start = i * self.record_size() + at + k * s;
        crate::image::read_sample(f.dtype, self.data.get(start..start + s)?)
    }
}

/// How to decode clouds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CloudOptions {
    /// Leave out points whose `x`, `y` or `z` is NaN (`is_dense` false
    /// clouds mark missing returns so); `false` keeps every point.
    pub drop_nan: bool,
}

/// One run of bytes copied from a source point into a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    src: usize,
    dst: usize,
    len: usize,
    /// Sample size to reverse for big-endian sources (1: none).
    swap: usize,
}

/// Decodes a point cloud or a laser scan of type `type_name` (see
/// [`kind_of`](crate::kind_of)).
///
/// - `sensor_msgs/PointCloud2`: any field layout (`datatype` 1..8 =
///   INT8, UINT8, INT16, UINT16, INT32, UINT32, FLOAT32, FLOAT64; `count`
///   values each), either byte order, padding inside points (`point_step`)
///   and rows (`row_step`). The fields keep their names and types in offset
///   order, as `sensor_msgs_py.point_cloud2.read_points` gives them; a field
///   of count `n` stays one field of count `n`. Fields that overlap so that
///   the record would outgrow `point_step` are refused.
/// - `sensor_msgs/PointCloud`: `x`, `y`, `z` and one `F32` field per
///   channel.
/// - Foxglove `PointCloud`: its `fields` (numeric types 1..8 = UINT8, INT8,
///   UINT16, INT16, UINT32, INT32, FLOAT32, FLOAT64, little-endian) every
///   `point_stride` bytes; the `pose` is not applied (the points stay in
///   the cloud's own frame).
/// - `sensor_msgs/LaserScan` and Foxglove `LaserScan`: `x`, `y`, `z` (`F32`,
///   z = 0, angle `angle_min + i * angle_increment` computed in `f64`),
///   plus `intensity` (`F32`) when intensities are given; a range that is
///   not finite or outside `[range_min, range_max]` gives no point
///   (Foxglove scans have no limits: only non-finite and negative ranges
///   are left out).
/// - `sensor_msgs/MultiEchoLaserScan`: every echo of every beam, beam by
///   beam, as `x`, `y`, `z`, (`intensity`), `echo` (`U8`, the echo's
///   index in its beam).
/// - VEL `VelodyneRawDataM`: HDL-32E packets through the vellog crate's
///   geometry (nominal angles, ROS frame: x forward, y left, z up) as `x`,
///   `y`, `z`, `intensity` (`F32`) and `ring` (`U16`, the laser number);
///   HDL-64E packets need a calibration and are refused. VEL
///   `LaserRange2DDataM`: Hokuyo ranges through vellog's geometry as `x`,
///   `y`, `z` (`F32`, z = 0); error codes and ranges beyond the model's
///   maximum give no point.
///
/// Sizes are checked before anything is allocated; the records take at
/// most as many bytes as the message's data.
pub fn decode_cloud(type_name: &str, message: &Value, opts: &CloudOptions) -> Result<Cloud> {
    let mut cloud = match &*canonical(type_name) {
        "sensor_msgs/PointCloud2" => point_cloud2(message, opts)?,
        "foxglove.PointCloud" => foxglove_cloud(message)?,
        "sensor_msgs/PointCloud" => point_cloud(message)?,
        "sensor_msgs/LaserScan" => laser_scan(message, true)?,
        "foxglove.LaserScan" => laser_scan(message, false)?,
        "sensor_msgs/MultiEchoLaserScan" => multi_echo(message)?,
        "VelodyneRawDataM" => velodyne(message)?,
        "LaserRange2DDataM" => hokuyo(message)?,
        other => {
            return Err(SensorError::new(format!(
                "{other} is not a cloud or scan type"
            )));
        }
    };
    if opts.drop_nan {
        drop_nan(&mut cloud);
    }
    Ok(cloud)
}

pub(crate) fn pc2_dtype(datatype: i64) -> Option<Dtype> {
    Some(match datatype {
        1 => Dtype::I8,
        2 => Dtype::U8,
        3 => Dtype::I16,
        4 => Dtype::U16,
        5 => Dtype::I32,
        6 => Dtype::U32,
        7 => Dtype::F32,
        8 => Dtype::F64,
        _ => return None,
    })
}

fn foxglove_dtype(v: &Value) -> Option<Dtype> {
    let n = match v {
        Value::String(s) => match s.as_str() {
            "UINT8" => 1,
            "INT8" => 2,
            "UINT16" => 3,
            "INT16" => 4,
            "UINT32" => 5,
            "INT32" => 6,
            "FLOAT32" => 7,
            "FLOAT64" => 8,
            _ => return None,
        },
        other => other.as_i64()?,
    };
    Some(match n {
        1 => Dtype::U8,
        2 => Dtype::I8,
        3 => Dtype::U16,
        4 => Dtype::I16,
        5 => Dtype::U32,
        6 => Dtype::I32,
        7 => Dtype::F32,
        8 => Dtype::F64,
        _ => return None,
    })
}

/// A field as stored: its offset in the source point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceField {
    pub(crate) field: PointField,
    pub(crate) offset: usize,
}

/// Builds the copy plan of `fields` (sorted by offset here) from points of
/// `stride` bytes; checks every field lies inside the stride.
fn plan(
    fields: &mut [SourceField],
    stride: usize,
    big_endian: bool,
) -> Result<(Vec<PointField>, Vec<Run>, usize)> {
    fields.sort_by_key(|f| f.offset);
    let mut copies: Vec<Run> = Vec::with_capacity(fields.len());
    let mut dst = 0usize;
    for f in fields.iter() {
        let len = f.field.dtype.size().checked_mul(f.field.count as usize);
        let end = len.and_then(|l| l.checked_add(f.offset));
        match (len, end) {
            (Some(len), Some(end)) if end <= stride => {
                let swap = if big_endian { f.field.dtype.size() } else { 1 };
                match copies.last_mut() {
                    Some(c)
                        if swap == 1
                            && c.swap == 1
                            && c.src + c.len == f.offset
                            && c.dst + c.len == dst =>
                    {
                        c.len += len;
                    }
                    _ => copies.push(Run {
                        src: f.offset,
                        dst,
                        len,
                        swap,
                    }),
                }
                dst += len;
            }
            _ => {
                return Err(SensorError::new(format!(
                    "field {} at offset {} ({} x {:?}) does not fit in a point of {stride} bytes",
                    f.field.name, f.offset, f.field.count, f.field.dtype
                )));
            }
        }
    }
    if dst > stride {
        return Err(SensorError::new(format!(
            "the fields overlap: {dst} bytes of values in points of {stride} bytes"
        )));
    }
    Ok((
        fields.iter().map(|f| f.field.clone()).collect(),
        copies,
        dst,
    ))
}

/// Copies the points of `rows` (each `width` points of `stride` bytes)
/// through `copies` into records of `record` bytes.
fn gather<'d>(
    rows: impl Iterator<Item = &'d [u8]>,
    width: usize,
    stride: usize,
    copies: &[Run],
    record: usize,
    out: &mut Vec<u8>,
) {
    let whole = copies.len() == 1 && copies[0].len == stride && copies[0].swap == 1;
    for row in rows {
        let row = &row[..width * stride];
        if whole {
            out.extend_from_slice(row);
            continue;
        }
        for p in row.chunks_exact(stride) {
            let at = out.len();
            out.resize(at + record, 0);
            let rec = &mut out[at..];
            for c in copies {
                let dst = &mut rec[c.dst..c.dst + c.len];
                dst.copy_from_slice(&p[c.src..c.src + c.len]);
                if c.swap > 1 {
                    for s in dst.chunks_exact_mut(c.swap) {
                        s.reverse();
                    }
                }
            }
        }
    }
}

fn point_cloud2(m: &Value, _opts: &CloudOptions) -> Result<Cloud> {
    let height = uint32(m, "height")?;
    let width = uint32(m, "width")?;
    let point_step = uint32(m, "point_step")?;
    let row_step = uint32(m, "row_step")?;
    let big = m
        .get("is_bigendian")
        .is_some_and(|_| int(m, "is_bigendian").is_ok_and(|b| b != 0));
    let data = bytes(m, "data")?;
    let mut fields = Vec::new();
    for f in array(m, "fields")? {
        let name = text(f, "name")?.into_owned();
        let datatype = int(f, "datatype")?;
        let dtype = pc2_dtype(datatype).ok_or_else(|| {
            SensorError::new(format!("field {name} has unknown datatype {datatype}"))
        })?;
        fields.push(SourceField {
            field: PointField {
                name,
                dtype,
                count: uint32(f, "count")?,
            },
            offset: uint32(f, "offset")? as usize,
        });
    }
    let pc2 = Pc2 {
        height,
        width,
        point_step,
        row_step,
        big,
        fields,
    };
    Ok(pc2.plan(data.len())?.pack(&data))
}

/// The numbers of a `sensor_msgs/PointCloud2` that place its points in
/// `data`, whether read from a decoded message or from its wire bytes
/// ([`pointcloud2_layout`](crate::pointcloud2_layout)): one set of checks
/// and one packing for both.
#[derive(Debug, Clone)]
pub(crate) struct Pc2 {
    pub(crate) height: u32,
    pub(crate) width: u32,
    pub(crate) point_step: u32,
    pub(crate) row_step: u32,
    pub(crate) big: bool,
    /// The fields as stored (any order).
    pub(crate) fields: Vec<SourceField>,
}

/// A [`Pc2`] whose sizes were checked against its data.
#[derive(Debug, Clone)]
pub(crate) struct Pc2Plan {
    /// The fields in offset order (stable: equal offsets keep their order).
    pub(crate) sorted: Vec<SourceField>,
    fields: Vec<PointField>,
    copies: Vec<Run>,
    record: usize,
    /// Points the packed cloud holds (0 when `point_step` is 0).
    pub(crate) points: usize,
    height: usize,
    width: usize,
    point_step: usize,
    /// Bytes from one row's start to the next's.
    stride: usize,
}

impl Pc2 {
    /// Checks the fields against `point_step` and the rows against a
    /// `data` of `data_len` bytes, with checked arithmetic.
    pub(crate) fn plan(mut self, data_len: usize) -> Result<Pc2Plan> {
        let height = self.height as usize;
        let width = self.width as usize;
        let point_step = self.point_step as usize;
        let row_step = self.row_step as usize;
        let (fields, copies, record) = plan(&mut self.fields, point_step, self.big)?;
        let points = width.checked_mul(height).ok_or_else(|| {
            SensorError::new(format!("width {width} * height {height} overflows"))
        })?;
        let row_bytes = width.checked_mul(point_step).ok_or_else(|| {
            SensorError::new(format!("width {width} * point_step {point_step} overflows"))
        })?;
        // A one-row cloud needs no row_step (drivers leave it wrong).
        let stride = if height <= 1 { row_bytes } else { row_step };
        if height > 1 && row_step < row_bytes {
            return Err(SensorError::new(format!(
                "row_step {row_step} is less than width {width} * point_step {point_step} = {row_bytes}"
            )));
        }
        let needed = height
            .saturating_sub(1)
            .checked_mul(stride)
            .and_then(|n| n.checked_add(if height == 0 { 0 } else { row_bytes }))
            .ok_or_else(|| {
                SensorError::new(format!("height {height} * row_step {stride} overflows"))
            })?;
        if data_len < needed {
            return Err(SensorError::new(format!(
                "data holds {data_len} bytes, {height} rows of {width} points of {point_step} bytes (row_step {row_step}) need {needed}"
            )));
        }
        Ok(Pc2Plan {
            sorted: self.fields,
            fields,
            copies,
            record,
            points: if point_step == 0 { 0 } else { points },
            height,
            width,
            point_step,
            stride,
        })
    }
}

impl Pc2Plan {
    /// The packed records of `data` (at least as long as the plan
    /// checked).
    pub(crate) fn pack(&self, data: &[u8]) -> Cloud {
        if self.point_step == 0 || self.points == 0 {
            return Cloud {
                fields: self.fields.clone(),
                points: self.points,
                data: Vec::new(),
            };
        }
        let mut out = Vec::with_capacity(self.points * self.record);
        let rows = data.chunks(self.stride.max(1)).take(self.height);
        gather(
            rows,
            self.width,
            self.point_step,
            &self.copies,
            self.record,
            &mut out,
        );
        Cloud {
            fields: self.fields.clone(),
            points: self.points,
            data: out,
        }
    }
}

fn foxglove_cloud(m: &Value) -> Result<Cloud> {
    let stride = uint32(m, "point_stride")? as usize;
    let data = bytes(m, "data")?;
    let mut fields = Vec::new();
    for f in array(m, "fields")? {
        let name = text(f, "name")?.into_owned();
        let ty = field(f, "type")?;
        let dtype = foxglove_dtype(ty).ok_or_else(|| {
            SensorError::new(format!("field {name} has unknown numeric type {ty:?}"))
        })?;
        fields.push(SourceField {
            field: PointField {
                name,
                dtype,
                count: 1,
            },
            offset: uint32(f, "offset")? as usize,
        });
    }
    let (fields, copies, record) = plan(&mut fields, stride, false)?;
    if stride == 0 {
        if data.is_empty() {
            return Ok(Cloud {
                fields,
                points: 0,
                data: Vec::new(),
            });
        }
        return Err(SensorError::new(format!(
            "point_stride is 0 with {} bytes of data",
            data.len()
        )));
    }
    if data.len() % stride != 0 {
        return Err(SensorError::new(format!(
            "data holds {} bytes, not a whole number of points of point_stride {stride}",
            data.len()
        )));
    }
    let points = data.len() / stride;
    let mut out = Vec::with_capacity(points * record);
    gather(
        std::iter::once(&data[..]),
        points,
        stride,
        &copies,
        record,
        &mut out,
    );
    Ok(Cloud {
        fields,
        points,
        data: out,
    })
}

fn f32_field(name: &str) -> PointField {
    PointField {
        name: name.to_string(),
        dtype: Dtype::F32,
        count: 1,
    }
}

fn point_cloud(m: &Value) -> Result<Cloud> {
    let points = array(m, "points")?;
    let channels = match m.get("channels") {
        Some(_) => array(m, "channels")?,
        None => &[],
    };
    let mut fields = vec![f32_field("x"), f32_field("y"), f32_field("z")];
    let mut values = Vec::with_capacity(channels.len());
    for c in channels {
        let name = text(c, "name")?.into_owned();
        let v = floats(c, "values")?;
        if v.len() != points.len() {
            return Err(SensorError::new(format!(
                "channel {name} holds {} values for {} points",
                v.len(),
                points.len()
            )));
        }
        fields.push(f32_field(&name));
        values.push(v);
    }
    let mut out = Vec::with_capacity(points.len() * 4 * fields.len());
    for (i, p) in points.iter().enumerate() {
        for axis in ["x", "y", "z"] {
            out.extend_from_slice(&(float(p, axis)? as f32).to_le_bytes());
        }
        for v in &values {
            out.extend_from_slice(&v[i].to_le_bytes());
        }
    }
    Ok(Cloud {
        fields,
        points: points.len(),
        data: out,
    })
}

/// The angle of beam `i` and the range limits of a scan.
struct ScanGeometry {
    angle_min: f64,
    increment: f64,
    range_min: f32,
    range_max: f32,
}

impl ScanGeometry {
    fn of(m: &Value, limits: bool) -> Result<Self> {
        Ok(if limits {
            ScanGeometry {
                angle_min: float(m, "angle_min")?,
                increment: float(m, "angle_increment")?,
                range_min: float(m, "range_min")? as f32,
                range_max: float(m, "range_max")? as f32,
            }
        } else {
            let start = float(m, "start_angle")?;
            let end = float(m, "end_angle")?;
            let n = floats(m, "ranges")?.len();
            ScanGeometry {
                angle_min: start,
                increment: if n > 1 {
                    (end - start) / (n - 1) as f64
                } else {
                    0.0
                },
                range_min: 0.0,
                range_max: f32::INFINITY,
            }
        })
    }

    /// The point of range `r` of beam `i`, `None` when the range is out.
    fn point(&self, i: usize, r: f32) -> Option<[f32; 3]> {
        if !r.is_finite() || r < self.range_min || r > self.range_max {
            return None;
        }
        let a = self.angle_min + i as f64 * self.increment;
        let (sin, cos) = a.sin_cos();
        let r = f64::from(r);
        Some([(r * cos) as f32, (r * sin) as f32, 0.0])
    }
}

fn laser_scan(m: &Value, ros: bool) -> Result<Cloud> {
    let geo = ScanGeometry::of(m, ros)?;
    let ranges = floats(m, "ranges")?;
    let intensities = match m.get("intensities") {
        Some(_) => floats(m, "intensities")?,
        None => Default::default(),
    };
    let with_intensity = !intensities.is_empty();
    if with_intensity && intensities.len() != ranges.len() {
        return Err(SensorError::new(format!(
            "intensities holds {} values for {} ranges",
            intensities.len(),
            ranges.len()
        )));
    }
    let mut fields = vec![f32_field("x"), f32_field("y"), f32_field("z")];
    if with_intensity {
        fields.push(f32_field("intensity"));
    }
    let mut out = Vec::with_capacity(ranges.len() * 4 * fields.len());
    let mut points = 0;
    for (i, &r) in ranges.iter().enumerate() {
        let Some(p) = geo.point(i, r) else { continue };
        for v in p {
            out.extend_from_slice(&v.to_le_bytes());
        }
        if with_intensity {
            out.extend_from_slice(&intensities[i].to_le_bytes());
        }
        points += 1;
    }
    Ok(Cloud {
        fields,
        points,
        data: out,
    })
}

fn multi_echo(m: &Value) -> Result<Cloud> {
    let geo = ScanGeometry::of(m, true)?;
    let beams = array(m, "ranges")?;
    let intensity_beams = match m.get("intensities") {
        Some(_) => array(m, "intensities")?,
        None => &[],
    };
    let with_intensity = !intensity_beams.is_empty();
    if with_intensity && intensity_beams.len() != beams.len() {
        return Err(SensorError::new(format!(
            "intensities holds {} beams for {} beams of ranges",
            intensity_beams.len(),
            beams.len()
        )));
    }
    let mut fields = vec![f32_field("x"), f32_field("y"), f32_field("z")];
    if with_intensity {
        fields.push(f32_field("intensity"));
    }
    fields.push(PointField {
        name: "echo".into(),
        dtype: Dtype::U8,
        count: 1,
    });
    let mut out = Vec::new();
    let mut points = 0;
    for (i, beam) in beams.iter().enumerate() {
        let echoes = floats(beam, "echoes")?;
        let intensities = if with_intensity {
            let v = floats(&intensity_beams[i], "echoes")?;
            if v.len() != echoes.len() {
                return Err(SensorError::new(format!(
                    "beam {i} has {} intensities for {} echoes",
                    v.len(),
                    echoes.len()
                )));
            }
            v
        } else {
            Default::default()
        };
        if echoes.len() > 256 {
            return Err(SensorError::new(format!(
                "beam {i} has {} echoes, more than 256",
                echoes.len()
            )));
        }
        for (e, &r) in echoes.iter().enumerate() {
            let Some(p) = geo.point(i, r) else { continue };
            for v in p {
                out.extend_from_slice(&v.to_le_bytes());
            }
            if with_intensity {
                out.extend_from_slice(&intensities[e].to_le_bytes());
            }
            out.push(e as u8);
            points += 1;
        }
    }
    Ok(Cloud {
        fields,
        points,
        data: out,
    })
}

fn velodyne(m: &Value) -> Result<Cloud> {
    use vellog::geometry::{Frame, VelodyneOptions, VelodynePacket};
    let packets = array(m, "packets")?;
    let opts = VelodyneOptions {
        frame: Frame::Ros,
        ..VelodyneOptions::default()
    };
    let mut points = Vec::new();
    for (i, p) in packets.iter().enumerate() {
        let Value::Bytes(p) = p else {
            return Err(SensorError::new(format!(
                "packet {i} is {}, not bytes",
                p.kind()
            )));
        };
        VelodynePacket::new(p)
            .and_then(|p| p.append_points(&opts, i as u32, &mut points))
            .map_err(|e| SensorError::new(format!("Velodyne packet {i}: {e}")))?;
    }
    let mut fields = vec![
        f32_field("x"),
        f32_field("y"),
        f32_field("z"),
        f32_field("intensity"),
    ];
    fields.push(PointField {
        name: "ring".into(),
        dtype: Dtype::U16,
        count: 1,
    });
    let mut out = Vec::with_capacity(points.len() * 18);
    for p in &points {
        for v in [p.x, p.y, p.z, f32::from(p.intensity)] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&u16::from(p.laser).to_le_bytes());
    }
    Ok(Cloud {
        fields,
        points: points.len(),
        data: out,
    })
}

fn hokuyo(m: &Value) -> Result<Cloud> {
    use vellog::geometry::{ScanOptions, scan_points};
    let sensor_type = text(m, "sensor_type")?;
    let ranges: Vec<u32> = array(m, "ranges_mm")?
        .iter()
        .map(|v| v.as_i64().and_then(|r| u32::try_from(r).ok()))
        .collect::<Option<_>>()
        .ok_or_else(|| SensorError::new("ranges_mm holds values that are not uint32"))?;
    let scan = scan_points(&sensor_type, &ranges, &ScanOptions::default())
        .map_err(|e| SensorError::new(format!("Hokuyo scan: {e}")))?;
    let mut out = Vec::with_capacity(scan.points.len() * 12);
    for p in &scan.points {
        for v in [p.x, p.y, 0.0f32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    Ok(Cloud {
        fields: vec![f32_field("x"), f32_field("y"), f32_field("z")],
        points: scan.points.len(),
        data: out,
    })
}

/// Removes the records whose `x`, `y` or `z` (a float field) is NaN,
/// in place.
pub(crate) fn drop_nan(cloud: &mut Cloud) {
    let record = cloud.record_size();
    let axes: Vec<(usize, Dtype)> = ["x", "y", "z"]
        .iter()
        .filter_map(|n| cloud.field(n))
        .filter(|(_, f)| f.dtype.is_float())
        .map(|(at, f)| (at, f.dtype))
        .collect();
    if axes.is_empty() || record == 0 {
        return;
    }
    let is_nan = |rec: &[u8]| {
        axes.iter().any(|&(at, d)| match d {
            Dtype::F32 => {
                f32::from_le_bytes([rec[at], rec[at + 1], rec[at + 2], rec[at + 3]]).is_nan()
            }
            _ => {
                let mut b = [0u8; 8];
                b.copy_from_slice(&rec[at..at + 8]);
                f64::from_le_bytes(b).is_nan()
            }
        })
    };
    let mut kept = 0;
    for i in 0..cloud.points {
        let src = i * record;
        if is_nan(&cloud.data[src..src + record]) {
            continue;
        }
        if kept != i {
            cloud.data.copy_within(src..src + record, kept * record);
        }
        kept += 1;
    }
    cloud.points = kept;
    cloud.data.truncate(kept * record);
}
