//! VEL sensor logs to MCAP (profile `vel`). Topics are those `robolog
//! info` lists, one message per VEL message:
//!
//! - `VelodyneRawDataM`: `foxglove.PointCloud` in frame `velodyne` (x
//!   forward, y left, z up, metres: the vellog crate's geometry in its ROS
//!   frame, nominal HDL-32E angles), fields `x`, `y`, `z`, `intensity`
//!   (float32, 16 bytes a point). Packets the geometry refuses (an HDL-64E
//!   without calibration, a damaged block) add no points and are reported
//!   as skipped.
//! - `LaserRange2DDataM/<sensor>`: `foxglove.LaserScan` in frame `laser_<sensor>`
//!   (x forward, y left), angles of the Hokuyo model's steps, ranges in
//!   metres; error codes (below the model's minimum distance) and ranges
//!   beyond its maximum are 0.
//! - `ImageM/<source>`: `foxglove.CompressedImage` in frame `camera_<source>`,
//!   format `jpeg` (or `png` for PNG bytes); a frame that is neither
//!   (uncompressed pixels) is left out and reported, never mislabelled.
//! - `GPSDataM`: JSON as stored, and for each message with a fix a
//!   `foxglove.LocationFix` on `GPSDataM/fix` (degrees as the vellog crate
//!   reads them, altitude = height; covariance from HDOP/VDOP with a 1 m
//!   base, approximated).
//! - Every other type (`OBDDataM`, `RobotPoseM`, types without a decoder) as
//!   JSON with a JSON Schema generated from the type's registered layout
//!   (bytes of unknown types as `{"payload": base64}`).
//! - Metadata record `vel.time`: clock `recording_start`, and the anchor to
//!   UTC from the first GPS fix where there is one.
//!
//! Memory: one message's points, plus one chunk of output.

use std::collections::BTreeMap;
use std::io::Write;

use vellog::geometry::{Frame, ScanOptions, VelodyneOptions, VelodynePacket, scan_points};
use vellog::{Image, MessageData};

use logcore::{ChannelInfo, Error, LogReader, Timestamp, Value};

use super::Context;
use super::foxglove::{self, FLOAT32};
use super::jsonschema::{
    ChannelSpec, Field, JsonOut, JsonValue, Type, insert_anchor, metadata, schema_text,
};
use crate::Log;

/// The JSON type of a registered layout text ("type name" per line;
/// `u8[..]` are bytes; fields that only count another field's items are
/// left out, as the decoded values leave them out).
pub(crate) fn layout_text_type(text: &str) -> Type {
    let lines: Vec<(&str, &str)> = text
        .lines()
        .filter_map(|l| l.trim().split_once(' '))
        .collect();
    let counts: Vec<&str> = lines
        .iter()
        .flat_map(|(ty, _)| ty.split('[').skip(1).map(|d| d.trim_end_matches(']')))
        .collect();
    Type::object(
        lines
            .iter()
            .filter(|(_, name)| !counts.contains(name))
            .map(|(ty, name)| {
                let mut parts = ty.split('[');
                let base = parts.next().unwrap_or_default();
                let dims: Vec<&str> = parts.map(|d| d.trim_end_matches(']')).collect();
                let mut t = match base {
                    "u8" if !dims.is_empty() => Type::Bytes,
                    "u8" | "u16" | "u32" | "u64" => Type::UInt,
                    "i8" | "i16" | "i32" | "i64" => Type::Int,
                    "f32" | "f64" => Type::Float,
                    "bool32" | "bool" => Type::Bool,
                    _ => Type::Str,
                };
                let skip = usize::from(base == "u8" && !dims.is_empty());
                for d in dims.iter().skip(skip) {
                    t = match d.parse::<usize>() {
                        Ok(n) => Type::fixed(t, n),
                        Err(_) => Type::list(t),
                    };
                }
                Field::new(name.to_string(), t)
            }),
    )
}

/// What one input channel becomes.
enum Kind {
    Velodyne,
    Laser,
    Image,
    Gps { text: String },
    Json { schema_name: String, text: String },
    Raw { schema_name: String, text: String },
}

struct Source {
    topic: String,
    kind: Kind,
    metadata: BTreeMap<String, String>,
    frame: String,
}

fn source(ch: &ChannelInfo) -> Source {
    let type_name = ch.type_name.as_str();
    let tail = ch.topic.rsplit_once('/').map_or("", |(_, t)| t);
    let (kind, frame) = match type_name {
        "VelodyneRawDataM" => (Kind::Velodyne, "velodyne".to_string()),
        "LaserRange2DDataM" => (Kind::Laser, format!("laser_{tail}")),
        "ImageM" => (Kind::Image, format!("camera_{tail}")),
        "GPSDataM" => (
            Kind::Gps {
                text: schema_text("vel.GPSDataM", &gps_type()),
            },
            "gps".to_string(),
        ),
        _ => match ch.schema.as_ref() {
            Some(s) => {
                let text = String::from_utf8_lossy(&s.data);
                (
                    Kind::Json {
                        schema_name: format!("vel.{type_name}"),
                        text: schema_text(&format!("vel.{type_name}"), &layout_text_type(&text)),
                    },
                    String::new(),
                )
            }
            None => (
                Kind::Raw {
                    schema_name: format!("vel.{type_name}"),
                    text: schema_text(
                        &format!("vel.{type_name}"),
                        &Type::object([Field::new("payload", Type::Bytes)]),
                    ),
                },
                String::new(),
            ),
        },
    };
    Source {
        topic: ch.topic.clone(),
        kind,
        metadata: ch.metadata.clone(),
        frame,
    }
}

/// The topics [`convert`] writes for `log` when their messages pass the
/// time filter: the log's own, and `TOPIC/fix` for each GPS topic.
pub(crate) fn topics(log: &Log<'_>) -> Result<std::collections::BTreeSet<String>, Error> {
    let mut topics = std::collections::BTreeSet::new();
    for ch in log.channels()? {
        if matches!(source(&ch).kind, Kind::Gps { .. }) {
            topics.insert(format!("{}/fix", ch.topic));
        }
        topics.insert(ch.topic);
    }
    Ok(topics)
}

fn type_and_version(ch: &ChannelInfo) -> (i32, i32) {
    let type_id = ch
        .metadata
        .get("type_id")
        .and_then(|t| u32::from_str_radix(t.trim_start_matches("0x"), 16).ok())
        .map_or(0, |t| t as i32);
    let version = ch
        .metadata
        .get("version")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    (type_id, version)
}

/// The image format Foxglove needs, from the bytes: `jpeg` for a JPEG
/// stream, `png` for a PNG one, `None` for anything else (an uncompressed
/// frame, which `foxglove.CompressedImage` cannot carry).
fn image_format(image: &Image<'_>) -> Option<&'static str> {
    if image.data.starts_with(b"\x89PNG") {
        Some("png")
    } else if image.looks_like_jpeg() {
        Some("jpeg")
    } else {
        None
    }
}

/// The points of a Velodyne message as packed float32 `x, y, z, intensity`.
fn cloud(packets: &[u8], offset: u64, skipped: &mut Vec<String>) -> Vec<u8> {
    let opts = VelodyneOptions {
        frame: Frame::Ros,
        ..VelodyneOptions::default()
    };
    let mut points = Vec::new();
    for (i, p) in packets
        .chunks_exact(vellog::VELODYNE_PACKET_LEN)
        .enumerate()
    {
        let result = VelodynePacket::new(p)
            .and_then(|p| p.append_points(&opts, i as u32, &mut points).map(|_| ()));
        if let Err(e) = result {
            skipped.push(format!(
                "at byte {}: Velodyne packet {i} gives no points: {e}",
                offset + 4 + (i * vellog::VELODYNE_PACKET_LEN) as u64
            ));
        }
    }
    let mut data = Vec::with_capacity(points.len() * 16);
    for p in &points {
        for v in [p.x, p.y, p.z, f32::from(p.intensity)] {
            data.extend_from_slice(&v.to_le_bytes());
        }
    }
    data
}

/// Start and end angle (radians) and ranges (m) of a Hokuyo scan.
fn scan(sensor_type: &str, ranges_mm: &[u32]) -> ((f64, f64), Vec<f64>) {
    let Ok(s) = scan_points(sensor_type, ranges_mm, &ScanOptions::default()) else {
        return ((0.0, 0.0), ranges_mm.iter().map(|_| 0.0).collect());
    };
    let params = s.model.params();
    let first = s.window.first_step;
    let last = first + ranges_mm.len().saturating_sub(1) as i32;
    let ranges = ranges_mm
        .iter()
        .map(|&mm| {
            if mm < params.dmin_mm || mm > params.dmax_mm {
                0.0
            } else {
                f64::from(mm) / 1000.0
            }
        })
        .collect();
    (
        (params.step_angle_rad(first), params.step_angle_rad(last)),
        ranges,
    )
}

fn write_one<W: Write>(
    out: &mut JsonOut<W>,
    cx: &mut Context<'_>,
    src: &Source,
    t: Timestamp,
    data: &MessageData<'_>,
    payload: &[u8],
    offset: u64,
) -> Result<(), Error> {
    let topic = src.topic.as_str();
    let spec = |s| {
        move || ChannelSpec {
            metadata: src.metadata.clone(),
            ..ChannelSpec::well_known(s)
        }
    };
    match (&src.kind, data) {
        (Kind::Velodyne, MessageData::VelodyneRawData(v)) => {
            let points = cloud(v.as_bytes(), offset, &mut cx.stats.skipped);
            let fields = ["x", "y", "z", "intensity"]
                .iter()
                .enumerate()
                .map(|(i, n)| foxglove::packed_field(n, 4 * i as u32, FLOAT32))
                .collect();
            out.ensure(cx, topic, spec(foxglove::POINT_CLOUD))?;
            let m = foxglove::point_cloud(t, &src.frame, 16, fields, &points);
            out.write(cx, topic, t, &m)
        }
        (Kind::Laser, MessageData::LaserRange2DData(l)) => {
            let sensor_type = String::from_utf8_lossy(l.sensor_type);
            let (angles, ranges) = scan(&sensor_type, &l.ranges);
            out.ensure(cx, topic, spec(foxglove::LASER_SCAN))?;
            let m = foxglove::laser_scan(t, &src.frame, angles, &ranges, &[]);
            out.write(cx, topic, t, &m)
        }
        (Kind::Image, MessageData::Image(img)) => {
            let Some(format) = image_format(img) else {
                cx.stats.skipped.push(format!(
                    "at byte {offset}: the {}x{} camera frame of {topic} is neither a JPEG nor a PNG stream (compressed flag {}): not written as a foxglove.CompressedImage",
                    img.width, img.height, img.is_compressed_raw
                ));
                return Ok(());
            };
            out.ensure(cx, topic, spec(foxglove::COMPRESSED_IMAGE))?;
            let m = foxglove::compressed_image(t, &src.frame, img.data, format);
            out.write(cx, topic, t, &m)
        }
        (Kind::Gps { text }, MessageData::GpsData(g)) => {
            let fix_topic = format!("{topic}/fix");
            out.ensure(cx, topic, || ChannelSpec {
                schema_name: "vel.GPSDataM",
                schema_text: text,
                metadata: src.metadata.clone(),
            })?;
            let value = vellog::TypedMessage::to_value(g);
            out.write(cx, topic, t, &JsonValue(&value))?;
            let (Some(lat), Some(lon)) = (g.latitude_degrees(), g.longitude_degrees()) else {
                return Ok(());
            };
            let pos = [lat.degrees, lon.degrees, f64::from(g.height)];
            if !g.has_fix() || !foxglove::all_finite(&pos) || !cx.keep(&fix_topic, t) {
                return Ok(());
            }
            let (h, v) = (f64::from(g.hdop), f64::from(g.vdop));
            let (cov, kind) = if foxglove::all_finite(&[h, v]) {
                (
                    [h * h, 0.0, 0.0, 0.0, h * h, 0.0, 0.0, 0.0, v * v],
                    foxglove::COVARIANCE_APPROXIMATED,
                )
            } else {
                ([0.0; 9], foxglove::COVARIANCE_UNKNOWN)
            };
            out.ensure(cx, &fix_topic, || {
                ChannelSpec::well_known(foxglove::LOCATION_FIX)
            })?;
            let m = foxglove::location_fix(t, &src.frame, pos, cov, kind);
            out.write(cx, &fix_topic, t, &m)
        }
        (Kind::Json { schema_name, text }, _) if !matches!(data, MessageData::Raw { .. }) => {
            out.ensure(cx, topic, || ChannelSpec {
                schema_name,
                schema_text: text,
                metadata: src.metadata.clone(),
            })?;
            let value = data.to_value();
            out.write(cx, topic, t, &JsonValue(&value))
        }
        (Kind::Raw { schema_name, text }, _) => {
            out.ensure(cx, topic, || ChannelSpec {
                schema_name,
                schema_text: text,
                metadata: src.metadata.clone(),
            })?;
            let value = Value::record([("payload", Value::Bytes(payload.to_vec()))]);
            out.write(cx, topic, t, &JsonValue(&value))
        }
        _ => {
            cx.stats.skipped.push(format!(
                "at byte {offset}: a {topic} message that does not decode as its type"
            ));
            Ok(())
        }
    }
}

fn gps_type() -> Type {
    let ints = |names: &[&str]| -> Vec<Field> {
        names.iter().map(|n| Field::new(*n, Type::Int)).collect()
    };
    let floats = |names: &[&str]| -> Vec<Field> {
        names.iter().map(|n| Field::new(*n, Type::Float)).collect()
    };
    let mut f = ints(&["hour", "minute", "second", "warning"]);
    f.extend(floats(&["latitude", "longitude", "speed_kmh", "course"]));
    f.extend(ints(&["day", "month", "year", "quality", "satellites"]));
    f.extend(floats(&["hdop", "height", "geoid_height", "vdop", "pdop"]));
    Type::Object(f)
}

/// Converts the VEL `log` into MCAP written to `out`.
pub(crate) fn convert<W: Write>(log: &Log<'_>, out: W, cx: &mut Context<'_>) -> Result<W, Error> {
    let mut out = JsonOut::new(out, cx, "vel")?;
    let summary = log.summary()?;
    let mut time = metadata([
        ("clock", "recording_start"),
        (
            "description",
            "log and publish times are the VEL message timestamps (ms since the recording \
             started), as nanoseconds",
        ),
    ]);
    if let Some(a) = summary.time_model.anchor {
        insert_anchor(&mut time, &a);
    }
    out.metadata("vel.time", &time)?;
    out.metadata("vel.header", &summary.metadata)?;

    let channels = log.channels()?;
    let sources: BTreeMap<u32, (Source, (i32, i32))> = channels
        .iter()
        .map(|ch| (ch.id.0, (source(ch), type_and_version(ch))))
        .collect();
    let filter = cx.lenient_filter();
    let mut n = 0u64;
    for item in log.messages(&filter)? {
        let Some(msg) = cx.passed(item) else {
            continue;
        };
        let Some((src, (type_id, version))) = sources.get(&msg.channel.0) else {
            continue;
        };
        let keep = cx.keep(&src.topic, msg.log_time)
            || (matches!(src.kind, Kind::Gps { .. })
                && cx.keep(&format!("{}/fix", src.topic), msg.log_time));
        if !keep {
            continue;
        }
        let offset = msg.offset.map_or(0, |o| o + 21);
        let Some(data) = cx.passed(MessageData::parse(*type_id, *version, &msg.payload, offset))
        else {
            continue;
        };
        write_one(&mut out, cx, src, msg.log_time, &data, &msg.payload, offset)?;
        n += 1;
        if n % 1024 == 0 {
            cx.report(offset);
        }
    }
    cx.report(cx.total_bytes);
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::super::ConvertOptions;
    use super::super::jsonschema::testing::{at, convert, counts_match_info};
    use super::*;

    #[test]
    fn layout_texts_give_the_decoded_fields() {
        let t = layout_text_type("f32[4] orientation\nf32[3] acceleration\n");
        assert_eq!(
            t,
            Type::object([
                Field::new("orientation", Type::fixed(Type::Float, 4)),
                Field::new("acceleration", Type::fixed(Type::Float, 3)),
            ])
        );
        let t = layout_text_type(
            "i32 source_id\nbool32 is_compressed\ni32 width\ni32 height\nu32 size\nu8[size] data\n",
        );
        let Type::Object(fields) = t else {
            panic!("not an object")
        };
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            ["source_id", "is_compressed", "width", "height", "data"]
        );
        assert_eq!(fields[4].ty, Type::Bytes);
    }

    #[test]
    fn only_jpeg_and_png_streams_are_compressed_images() {
        let img = |data: &'static [u8]| Image {
            source_id: 0,
            is_compressed_raw: 0,
            width: 2,
            height: 1,
            data,
        };
        assert_eq!(image_format(&img(&[0xFF, 0xD8, 0xFF, 0xE0])), Some("jpeg"));
        assert_eq!(image_format(&img(b"\x89PNG\r\n\x1a\n")), Some("png"));
        // Two grey pixels: uncompressed, so no CompressedImage at all.
        assert_eq!(image_format(&img(&[10, 20])), None);
    }

    #[test]
    fn sensors_become_foxglove_messages() {
        let c = convert("vellog/sensors.vel", &ConvertOptions::default());
        counts_match_info(&c, "vellog/sensors.vel");
        let schema_of = |topic: &str| {
            c.messages
                .iter()
                .find(|m| m.0 == topic)
                .map(|m| m.1.clone())
                .unwrap()
        };
        assert!(c.stats.skipped.is_empty(), "{:?}", c.stats.skipped);
        assert_eq!(schema_of("VelodyneRawDataM"), "foxglove.PointCloud");
        assert_eq!(schema_of("LaserRange2DDataM/front"), "foxglove.LaserScan");
        assert_eq!(schema_of("ImageM/0"), "foxglove.CompressedImage");
        assert_eq!(schema_of("OBDDataM"), "vel.OBDDataM");
        let cloud = c.on("VelodyneRawDataM")[0];
        assert_eq!(at(cloud, "point_stride"), 16.0);
        let Some(Value::String(data)) = cloud.get("data") else {
            panic!("no data")
        };
        assert!(!data.is_empty() && data.len() % 4 == 0);
        // URG-04LX: 682 steps from step 44, 360/1024 degrees a step, step 384 ahead.
        let scan = c.on("LaserRange2DDataM/front")[0];
        let step = std::f64::consts::TAU / 1024.0;
        assert!((at(scan, "start_angle") - (44.0 - 384.0) * step).abs() < 1e-9);
        assert_eq!(at(scan, "ranges.0"), 0.0);
        assert_eq!(at(scan, "ranges.3"), 4.455);
        let img = c.on("ImageM/0")[0];
        assert_eq!(img.get("format"), Some(&Value::String("jpeg".into())));
    }
}
