//! PX4 ULog to MCAP (profile `px4`).
//!
//! - One `json` channel per (message name, multi_id), topic
//!   `<name>/<multi_id>`, channel metadata `multi_id` (and the log's
//!   `msg_id`, `message_size`), schema named after the format with a JSON
//!   Schema generated from the format definition (`F` message): nested
//!   formats are objects, arrays arrays, `char[N]` strings, `_padding`
//!   fields left out. Messages are the samples, log and publish time the
//!   sample's `timestamp` field (µs on the boot clock), in file order.
//! - Logged and tagged strings as `foxglove.Log` on the topic `log`
//!   (syslog levels 0–2 FATAL, 3 ERROR, 4 WARNING, 5–6 INFO, 7 DEBUG; the
//!   name `px4`, or `px4/tag <n>` for a tagged string).
//! - Parameter changes after the start on `parameter_changes`
//!   (`{name, value}`).
//! - Where the usual PX4 topics are present: `vehicle_local_position` and
//!   `vehicle_attitude` (instance 0) as `foxglove.FrameTransform` on `tf`,
//!   from frame `map` (East-North-Up, origin at the local position's
//!   reference) to `base_link` (x forward, y left, z up); PX4's NED/FRD
//!   values are rotated into it (`x_enu = y_ned`, `y_enu = x_ned`,
//!   `z_enu = -z_ned`; attitude `q_map_base = q(NED→ENU) ⊗ q ⊗
//!   q(FLU→FRD)`), and the same pose as `foxglove.PoseInFrame` on `pose`
//!   (frame `map`). Each GPS instance (`vehicle_gps_position`,
//!   `sensor_gps`) as `foxglove.LocationFix` on
//!   `location_fix/<name>/<multi_id>`: `lat`/`lon` in 1e-7 degrees and `alt`
//!   in mm (or `latitude_deg`/`longitude_deg`/`altitude_msl_m` in newer
//!   logs), covariance diagonal from `eph`/`epv` (approximated). The
//!   raw topics stay as JSON too.
//! - Metadata records: `ulog.info` (every info field, as `ulog_info` prints
//!   it), `ulog.parameters` (initial values), `ulog.default_parameters.<bits>`,
//!   `ulog.multi_info` (each key a JSON array of its groups) and
//!   `ulog.time` (clock `boot`, unit, the header's start, and the UTC
//!   anchor where the log has one).
//!
//! Memory: the log's own sample index (already built when it was opened)
//! plus one decoded sample and one chunk of output.
//!
//! The modules: `schema` (the sample channels' JSON Schemas), `metadata`
//! (the metadata records), `side` (logged strings and parameter changes)
//! and `derive` (the Foxglove messages of the usual PX4 topics).

mod derive;
mod metadata;
mod schema;
mod side;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use logcore::{Error, LogReader};

use super::Context;
use super::jsonschema::{ChannelSpec, JsonOut, JsonValue, Type, schema_text};
use crate::Log;
use derive::{Pose, derive};
use metadata::write_metadata;
use schema::layout_type;
use side::{Side, param_type, write_side};

/// Topic of the logged strings.
const LOG_TOPIC: &str = "log";
/// Topic of the vehicle transform.
const TF_TOPIC: &str = "tf";
/// Topic of the vehicle pose.
const POSE_TOPIC: &str = "pose";
/// Topic of parameter changes.
const PARAM_TOPIC: &str = "parameter_changes";
/// GPS topics turned into `foxglove.LocationFix`.
const GPS_TOPICS: [&str; 2] = ["vehicle_gps_position", "sensor_gps"];

/// What happens to the samples of one input channel.
struct Source {
    /// The output topic, `NAME/MULTI_ID`.
    topic: String,
    /// The message name.
    schema_name: String,
    /// The JSON Schema of its samples.
    schema: String,
    /// The input channel's metadata.
    metadata: BTreeMap<String, String>,
    /// What its samples give besides their own channel.
    role: Role,
}

/// What the samples of a channel give besides their own messages.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Nothing.
    Plain,
    /// The vehicle's attitude: `tf` and `pose`.
    Attitude,
    /// The vehicle's local position: `tf` and `pose`.
    LocalPosition,
    /// A GPS fix: `location_fix/...`.
    Gps,
}

/// The instance of a subscription a channel holds.
fn multi_id(ch: &logcore::ChannelInfo) -> u8 {
    ch.metadata
        .get("multi_id")
        .and_then(|m| m.parse().ok())
        .unwrap_or(0)
}

/// What the samples of instance `multi` of message `name` give besides
/// their own channel.
fn role(name: &str, multi: u8) -> Role {
    match (name, multi) {
        ("vehicle_attitude", 0) => Role::Attitude,
        ("vehicle_local_position", 0) => Role::LocalPosition,
        (n, _) if GPS_TOPICS.contains(&n) => Role::Gps,
        _ => Role::Plain,
    }
}

/// The topics [`convert`] writes for `log` when their messages pass the
/// time filter: `NAME/MULTI_ID` per subscription, `location_fix/...` for
/// the GPS ones, `tf` and `pose` when the attitude or local position is
/// logged, `log` and `parameter_changes` when the file has logged strings
/// or parameter changes.
pub(crate) fn topics(log: &Log<'_>) -> Result<BTreeSet<String>, Error> {
    let Some(ulog) = log.as_ulog() else {
        return Err(super::not_yet(log.format()));
    };
    let mut topics = BTreeSet::new();
    for ch in log.channels()? {
        let multi = multi_id(&ch);
        let topic = format!("{}/{multi}", ch.type_name);
        match role(&ch.type_name, multi) {
            Role::Gps => {
                topics.insert(format!("location_fix/{topic}"));
            }
            Role::Attitude | Role::LocalPosition => {
                topics.extend([TF_TOPIC.to_string(), POSE_TOPIC.to_string()]);
            }
            Role::Plain => {}
        }
        topics.insert(topic);
    }
    if !ulog.logged_messages.is_empty() || !ulog.tagged_messages.is_empty() {
        topics.insert(LOG_TOPIC.to_string());
    }
    if !ulog.changed_parameters.is_empty() {
        topics.insert(PARAM_TOPIC.to_string());
    }
    Ok(topics)
}

/// Converts the ULog `log` into MCAP written to `out`.
pub(crate) fn convert<W: Write>(log: &Log<'_>, out: W, cx: &mut Context<'_>) -> Result<W, Error> {
    let Some(ulog) = log.as_ulog() else {
        return Err(super::not_yet(log.format()));
    };
    let mut out = JsonOut::new(out, cx, "px4")?;
    write_metadata(&mut out, log, ulog)?;

    let mut sources = Vec::new();
    for ch in log.channels()? {
        let name = ch.type_name.clone();
        let multi = multi_id(&ch);
        let ty = ulog
            .subscription(&name, multi)
            .map_or(Type::object([]), |s| layout_type(&s.layout));
        let role = role(&name, multi);
        sources.push(Source {
            topic: format!("{name}/{multi}"),
            schema: schema_text(&name, &ty),
            schema_name: name,
            metadata: ch.metadata.clone(),
            role,
        });
    }

    let mut side: Vec<Side<'_, '_>> = ulog
        .logged_messages
        .iter()
        .chain(&ulog.tagged_messages)
        .map(Side::Text)
        .chain(ulog.changed_parameters.iter().map(Side::Param))
        .collect();
    side.sort_by_key(Side::offset);
    let mut side = side.into_iter().peekable();
    let param_schema = schema_text("parameter_change", &param_type());

    let filter = cx.lenient_filter();
    let mut pose = Pose::default();
    let mut written = 0u64;
    for item in log.messages(&filter)? {
        let Some(msg) = cx.passed(item) else {
            continue;
        };
        let at = msg.offset.unwrap_or(0);
        while let Some(s) = side.next_if(|s| s.offset() < at) {
            write_side(&mut out, cx, &s, &param_schema)?;
        }
        let Some(src) = sources.get(msg.channel.0 as usize) else {
            continue;
        };
        let keep_raw = cx.keep(&src.topic, msg.log_time);
        let derived = src.role != Role::Plain;
        if !keep_raw && !derived {
            continue;
        }
        let value = log.decode(&msg)?;
        if keep_raw {
            out.ensure(cx, &src.topic, || ChannelSpec {
                schema_name: &src.schema_name,
                schema_text: &src.schema,
                metadata: src.metadata.clone(),
            })?;
            out.write(cx, &src.topic, msg.log_time, &JsonValue(&value))?;
        }
        derive(&mut out, cx, src, &value, msg.log_time, &mut pose)?;
        written += 1;
        if written % 4096 == 0 {
            cx.report(at);
        }
    }
    for s in side {
        write_side(&mut out, cx, &s, &param_schema)?;
    }
    cx.report(cx.total_bytes);
    out.finish()
}

#[cfg(test)]
mod file_tests {
    use super::super::ConvertOptions;
    use super::super::jsonschema::testing::{at, convert, convert_bytes};
    use logcore::Value;

    /// A log with PX4's GPS (1e-7 degrees, mm) and local position topics.
    fn px4_log() -> Vec<u8> {
        let mut w = ulogfile::Writer::new(Vec::new(), 1_000).unwrap();
        w.add_format(
            "vehicle_gps_position:uint64_t timestamp;int32_t lat;int32_t lon;int32_t alt;\
             float eph;float epv;",
        )
        .unwrap();
        w.add_format("vehicle_local_position:uint64_t timestamp;float x;float y;float z;uint8_t[4] _padding0;")
            .unwrap();
        let gps = w.add_subscription("vehicle_gps_position", 0).unwrap();
        let pos = w.add_subscription("vehicle_local_position", 0).unwrap();
        for i in 0..3u64 {
            let mut s = (10_000 * (i + 1)).to_le_bytes().to_vec();
            for v in [473_977_418i32 + i as i32, 85_455_938, 488_123] {
                s.extend_from_slice(&v.to_le_bytes());
            }
            for v in [2.0f32, 3.0] {
                s.extend_from_slice(&v.to_le_bytes());
            }
            w.write_data(gps, &s).unwrap();
            let mut s = (10_000 * (i + 1) + 5).to_le_bytes().to_vec();
            for v in [1.0f32, 2.0, -3.0 - i as f32] {
                s.extend_from_slice(&v.to_le_bytes());
            }
            w.write_data(pos, &s).unwrap();
        }
        w.finish().unwrap()
    }

    #[test]
    fn gps_samples_become_location_fixes_in_degrees() {
        let c = convert_bytes(&px4_log(), &ConvertOptions::default());
        let raw = c.on("vehicle_gps_position/0");
        let fixes = c.on("location_fix/vehicle_gps_position/0");
        assert_eq!(raw.len(), 3);
        assert_eq!(fixes.len(), raw.len());
        for (i, (r, f)) in raw.iter().zip(&fixes).enumerate() {
            assert_eq!(at(r, "lat"), 473_977_418.0 + i as f64);
            assert_eq!(at(f, "latitude"), at(r, "lat") * 1e-7);
            assert_eq!(at(f, "longitude"), 85_455_938.0 * 1e-7);
            assert_eq!(at(f, "altitude"), 488_123.0 * 1e-3);
            assert_eq!(at(f, "position_covariance.0"), 4.0);
            assert_eq!(at(f, "position_covariance.8"), 9.0);
            assert_eq!(
                at(f, "timestamp.sec") * 1e6 + at(f, "timestamp.nsec") / 1e3,
                at(r, "timestamp")
            );
        }
        assert!(
            c.messages
                .iter()
                .filter(|m| m.0.starts_with("location_fix/"))
                .all(|m| m.1 == "foxglove.LocationFix")
        );
        // The local position (NED) is the transform's translation in ENU.
        let tf = c.on("tf");
        assert_eq!(tf.len(), 3);
        assert_eq!(
            [
                at(tf[2], "translation.x"),
                at(tf[2], "translation.y"),
                at(tf[2], "translation.z")
            ],
            [2.0, 1.0, 5.0]
        );
        let pose = c.on("pose");
        assert_eq!(pose.len(), 3);
        assert_eq!(at(pose[2], "pose.position.z"), 5.0);
        assert_eq!(at(pose[2], "pose.orientation.w"), 1.0);
        assert_eq!(c.stats.messages as usize, c.messages.len());
        assert_eq!(c.stats.channels, 5);
    }

    #[test]
    fn instances_are_channels_of_their_own() {
        let c = convert("ulog/features.ulg", &ConvertOptions::default());
        assert_eq!(c.on("esc_status/0").len(), 5);
        assert_eq!(c.on("esc_status/1").len(), 1);
        assert_eq!(c.on("sensor_gps/0").len(), 6);
        // This GPS message lacks a longitude: no fix is made up.
        assert!(c.on("location_fix/sensor_gps/0").is_empty());
    }

    #[test]
    fn logged_strings_are_foxglove_logs_and_metadata_is_kept() {
        let c = convert("ulog/features.ulg", &ConvertOptions::default());
        let logs = c.on("log");
        let file = std::fs::read(format!(
            "{}/../../testdata/ulog/features.ulg",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let ulog = ulogfile::ULog::parse(&file).unwrap();
        assert_eq!(
            logs.len(),
            ulog.logged_messages.len() + ulog.tagged_messages.len()
        );
        assert_eq!(logs.len(), 3);
        for l in &logs {
            assert!(matches!(l.get("message"), Some(Value::String(_))));
            assert!((1.0..=5.0).contains(&at(l, "level")));
        }
        let example = convert("ulog/example.ulg", &ConvertOptions::default());
        assert_eq!(example.on("vehicle_attitude/0").len(), 3);
        // The attitude alone gives a transform per sample.
        let tf = example.on("tf");
        assert_eq!(tf.len(), 3);
        assert_eq!(at(tf[0], "translation.x"), 0.0);
    }

    #[test]
    fn time_and_topic_filters_apply() {
        let opts = ConvertOptions {
            topics: vec!["sensor_gps/0".into()],
            ..ConvertOptions::default()
        };
        let c = convert("ulog/features.ulg", &opts);
        assert!(c.messages.iter().all(|m| m.0 == "sensor_gps/0"));
        assert_eq!(c.messages.len(), 6);
        let all = convert("ulog/features.ulg", &ConvertOptions::default());
        let t: Vec<i64> = all
            .messages
            .iter()
            .filter(|m| m.0 == "sensor_gps/0")
            .map(|m| m.2)
            .collect();
        let opts = ConvertOptions {
            start: Some(logcore::Timestamp::from_nanos(t[1])),
            end: Some(logcore::Timestamp::from_nanos(t[3])),
            ..ConvertOptions::default()
        };
        let c = convert("ulog/features.ulg", &opts);
        assert!(c.messages.iter().all(|m| m.2 >= t[1] && m.2 < t[3]));
        assert_eq!(c.on("sensor_gps/0").len(), 2);
    }
}
