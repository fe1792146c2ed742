//! One pass over a log's messages: every message is decoded and its
//! numeric leaves go to one [`Reducer`] per field; the channel's message
//! density, gaps and backward time steps are counted on the way; positions
//! become tracks (latitude/longitude), paths (`position.x`/`y`) and scenes
//! (arrays of objects with an id and a position). Memory is bounded by the
//! options (points per series, fields per channel, points per track), not
//! by the log.

use std::collections::{BTreeMap, HashMap};

use logcore::{ChannelId, LogReader, MessageFilter, ReadMode, Value, ValueType};
use robolog::{LenientDecoder, Log};

use crate::model::{Channel, Path as XyPath, Problem, Scene, SceneObject, Series, Track};
use crate::reduce::Reducer;
use crate::{ReportOptions, TIMELINE_BUCKETS};

/// The largest array whose elements are plotted one series each; longer
/// arrays (scans, images, point lists) are not plotted.
const MAX_ARRAY: usize = 16;
/// Points kept per track, path or scene object (decimated beyond).
const MAX_TRACK_POINTS: usize = 4000;
/// Objects kept per scene.
const MAX_SCENE_OBJECTS: usize = 400;
/// Problems listed per log (the rest are counted).
const MAX_PROBLEMS: usize = 200;

/// The numeric kind of a field, which says how its values print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `float32`: printed as the shortest text that reads back as the same
    /// `f32`.
    F32,
    /// Any other number (integers as floats; exact below 2^53).
    F64,
}

/// A series being collected.
struct FieldAcc {
    name: String,
    kind: Kind,
    reducer: Reducer,
}

/// Keeps every point until there are too many, then every second one, and
/// so on: a bounded, evenly thinned copy of a sequence.
#[derive(Debug, Clone, Default)]
pub(crate) struct Decimator<T> {
    stride: u64,
    seen: u64,
    pub(crate) points: Vec<T>,
}

impl<T> Decimator<T> {
    fn push(&mut self, p: T) {
        let stride = self.stride.max(1);
        if self.seen % stride == 0 {
            self.points.push(p);
            if self.points.len() >= MAX_TRACK_POINTS {
                let mut i = 0;
                self.points.retain(|_| {
                    i += 1;
                    i % 2 == 1
                });
                self.stride = stride * 2;
            }
        }
        self.seen += 1;
    }
}

/// (time, first coordinate, second coordinate), thinned.
type Points = Decimator<(i64, f64, f64)>;

/// What one channel collects.
struct ChannelAcc {
    index: usize,
    ty: Option<ValueType>,
    fields: Vec<FieldAcc>,
    by_name: HashMap<String, usize>,
    fields_skipped: u64,
    density: Vec<u64>,
    last_t: Option<i64>,
    gap_threshold: i64,
    gaps: Vec<(i64, i64)>,
    jumps: Vec<i64>,
    count: u64,
    track: Option<Points>,
    path: Option<Points>,
    scene: Option<BTreeMap<i64, Points>>,
    changes: Option<(String, Vec<(i64, f64)>)>,
}

/// What [`collect`] returns: the channels, the problems met while reading
/// and the extras.
pub(crate) struct Collected {
    pub(crate) channels: Vec<Channel>,
    pub(crate) problems: Vec<Problem>,
    pub(crate) problems_dropped: u64,
    pub(crate) tracks: Vec<Track>,
    pub(crate) paths: Vec<XyPath>,
    pub(crate) scenes: Vec<Scene>,
    /// Step changes of watched fields (a flight mode), by channel topic.
    pub(crate) changes: BTreeMap<String, Vec<(i64, f64)>>,
}

/// Fields whose change points are kept exactly (for bands), by topic.
fn watched(topic: &str) -> Option<&'static str> {
    match topic {
        "vehicle_status" => Some("nav_state"),
        _ => None,
    }
}

/// Reads every message of `log` leniently in `[t0, t1]` and collects what
/// the report draws.
pub(crate) fn collect(
    log: &Log<'_>,
    t0: i64,
    t1: i64,
    opts: &ReportOptions,
) -> Result<Collected, logcore::Error> {
    let summary = log.summary()?;
    let mut labels: HashMap<&str, usize> = HashMap::new();
    for c in &summary.channels {
        *labels.entry(c.info.topic.as_str()).or_default() += 1;
    }
    let mut seen_topic: HashMap<String, usize> = HashMap::new();
    let mut channels = Vec::new();
    let mut accs: HashMap<ChannelId, ChannelAcc> = HashMap::new();
    for c in &summary.channels {
        let topic = &c.info.topic;
        if !opts.topics.is_empty() && !opts.topics.iter().any(|t| t == topic) {
            continue;
        }
        let n = seen_topic.entry(topic.clone()).or_default();
        let label = if labels[topic.as_str()] > 1 {
            format!("{topic} #{n}")
        } else {
            topic.clone()
        };
        *n += 1;
        let span = match (c.start, c.end) {
            (Some(s), Some(e)) => e.saturating_sub(s),
            _ => 0,
        };
        // A gap: ten periods of the channel's mean rate, and at least a
        // second.
        let period = if c.message_count > 1 {
            span / (c.message_count as i64 - 1)
        } else {
            0
        };
        accs.insert(
            c.info.id,
            ChannelAcc {
                index: channels.len(),
                ty: log.value_type(c.info.id).ok().flatten(),
                fields: Vec::new(),
                by_name: HashMap::new(),
                fields_skipped: 0,
                density: vec![0; TIMELINE_BUCKETS],
                last_t: None,
                gap_threshold: (period.saturating_mul(10)).max(1_000_000_000),
                gaps: Vec::new(),
                jumps: Vec::new(),
                count: 0,
                track: None,
                path: None,
                scene: None,
                changes: watched(topic).map(|f| (f.to_string(), Vec::new())),
            },
        );
        channels.push(Channel {
            label,
            topic: topic.clone(),
            type_name: c.info.type_name.clone(),
            message_count: c.message_count,
            start: c.start.map(|t| t.as_nanos()),
            end: c.end.map(|t| t.as_nanos()),
            density: Vec::new(),
            gaps: Vec::new(),
            jumps: Vec::new(),
            series: Vec::new(),
            fields_skipped: 0,
        });
    }

    let mut problems = Vec::new();
    let mut problems_dropped = 0u64;
    let mut problem = |p: Problem| {
        if problems.len() < MAX_PROBLEMS {
            problems.push(p);
        } else {
            problems_dropped += 1;
        }
    };
    // Every channel: no channel filter, which a storage may apply per
    // query (a ROS 2 bag's SQL lists the topics), costing time with each
    // channel.
    let mut filter = MessageFilter::all().mode(ReadMode::Lenient);
    if accs.len() < summary.channels.len() {
        filter = filter.channels(accs.keys().copied());
    }
    let reader: &dyn LogReader = log;
    let mut decoder = LenientDecoder::new(reader);
    let mut last_seen: Option<i64> = None;
    let span = t1.saturating_sub(t0).max(1) as i128;
    let mut leaves: Vec<(String, Kind, f64)> = Vec::new();
    let mut path_buf = String::new();
    for item in reader.messages(&filter)? {
        let msg = match item {
            Ok(m) => m,
            Err(e) => {
                problem(Problem {
                    t: last_seen,
                    text: e.to_string(),
                });
                continue;
            }
        };
        let Some(acc) = accs.get_mut(&msg.channel) else {
            continue;
        };
        let t = msg.log_time.as_nanos();
        last_seen = Some(t);
        acc.count += 1;
        let b = (((t.saturating_sub(t0)).clamp(0, span as i64) as i128 * TIMELINE_BUCKETS as i128)
            / (span + 1)) as usize;
        acc.density[b.min(TIMELINE_BUCKETS - 1)] += 1;
        if let Some(prev) = acc.last_t {
            if t < prev {
                if acc.jumps.len() < MAX_PROBLEMS {
                    acc.jumps.push(t);
                }
                problem(Problem {
                    t: Some(t),
                    text: format!(
                        "{}: time goes back by {} at message {}",
                        channels[acc.index].label,
                        logcore::time::format_duration(prev - t),
                        acc.count
                    ),
                });
            } else if t - prev > acc.gap_threshold && acc.gaps.len() < MAX_PROBLEMS {
                acc.gaps.push((prev, t));
            }
        }
        acc.last_t = Some(acc.last_t.map_or(t, |p| p.max(t)));
        let value = decoder.decode(&msg);
        if matches!(value, Value::Bytes(_)) && !msg.payload.is_empty() {
            // Not decoded (the failure is listed once, below) or raw bytes.
            continue;
        }
        leaves.clear();
        path_buf.clear();
        flatten(&value, acc.ty.as_ref(), &mut path_buf, &mut leaves, true);
        for (name, kind, v) in leaves.drain(..) {
            if let Some((field, list)) = &mut acc.changes {
                if *field == name && list.last().is_none_or(|l| l.1 != v) {
                    list.push((t, v));
                }
            }
            if !opts.fields.is_empty() && !opts.fields.iter().any(|f| field_matches(&name, f)) {
                continue;
            }
            let i = match acc.by_name.get(&name) {
                Some(&i) => i,
                None if acc.fields.len() < opts.max_fields => {
                    acc.by_name.insert(name.clone(), acc.fields.len());
                    acc.fields.push(FieldAcc {
                        name,
                        kind,
                        reducer: Reducer::new(t0, t1, opts.max_points),
                    });
                    acc.fields.len() - 1
                }
                None => {
                    acc.fields_skipped += 1;
                    continue;
                }
            };
            let f = &mut acc.fields[i];
            if kind == Kind::F64 {
                f.kind = Kind::F64;
            }
            f.reducer.push(t, v);
        }
        positions(&value, t, acc);
    }
    for f in decoder.failures() {
        let label = accs.get(&f.channel).map_or_else(
            || f.channel.to_string(),
            |a| channels[a.index].label.clone(),
        );
        problem(Problem {
            t: None,
            text: format!("{label}: {f}"),
        });
    }

    let mut tracks = Vec::new();
    let mut paths = Vec::new();
    let mut scenes = Vec::new();
    let mut changes = BTreeMap::new();
    let mut accs: Vec<ChannelAcc> = accs.into_values().collect();
    accs.sort_by_key(|a| a.index);
    for acc in accs {
        let ch = &mut channels[acc.index];
        ch.density = acc.density;
        ch.gaps = acc.gaps;
        ch.jumps = acc.jumps;
        ch.fields_skipped = acc.fields_skipped;
        ch.series = acc
            .fields
            .into_iter()
            .map(|f| Series {
                name: f.name,
                kind: f.kind,
                count: f.reducer.count(),
                nan: f.reducer.nan(),
                reduced: f.reducer.reduced(),
                points: f.reducer.points(),
            })
            .collect();
        if let Some(tr) = acc.track.filter(|t| t.points.len() > 1) {
            tracks.push(Track {
                channel: acc.index,
                points: tr.points,
            });
        }
        if let Some(p) = acc.path.filter(|t| t.points.len() > 1) {
            paths.push(XyPath {
                channel: acc.index,
                points: p.points,
                title: None,
            });
        }
        // Objects that move: what stands still (a traffic light, a
        // parked spectator) would only widen the view.
        let objects: Vec<SceneObject> = acc
            .scene
            .unwrap_or_default()
            .into_iter()
            .filter(|(_, d)| moves(&d.points))
            .map(|(id, d)| SceneObject {
                id,
                points: d.points,
            })
            .collect();
        if !objects.is_empty() {
            scenes.push(Scene {
                channel: acc.index,
                objects,
            });
        }
        if let Some((_, list)) = acc.changes {
            changes.insert(ch.topic.clone(), list);
        }
    }
    Ok(Collected {
        channels,
        problems,
        problems_dropped,
        tracks,
        paths,
        scenes,
        changes,
    })
}

/// Whether an object's positions are not all one.
fn moves(points: &[(i64, f64, f64)]) -> bool {
    points
        .first()
        .is_some_and(|f| points.iter().any(|p| p.1 != f.1 || p.2 != f.2))
}

/// Whether the series `name` is the one `--field` asked for: the same
/// path, or a path inside it (`accel` takes `accel[0]` and `accel.x`).
fn field_matches(name: &str, want: &str) -> bool {
    name == want
        || name.strip_prefix(want).is_some_and(|rest| {
            rest.starts_with('.') || rest.starts_with('[') || rest.starts_with(':')
        })
}

/// Fields that are times or bookkeeping, not quantities: left out of the
/// plots.
fn bookkeeping(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    matches!(last, "timestamp" | "timestamp_sample" | "seq" | "stamp")
        || last.ends_with("covariance")
        || name.starts_with("header.")
        || name.contains("covariance[")
}

/// Appends the numeric leaves of `v` under `path` to `out`: numbers and
/// booleans (as 0/1), the elements of short arrays as `name[i]`, and for
/// a quaternion (`q`/`q_d` arrays of four, w first, as PX4 logs them; or a
/// struct `x, y, z, w` named like an orientation) its roll, pitch and yaw
/// in degrees as `name:roll`, `name:pitch`, `name:yaw`.
///
/// `ty` is the declared type of `v`, where the format declares one: an
/// array declared of any length whose elements are structs (CARLA's
/// records, a TF message's transforms) is not plotted element by element,
/// since its first element is another object in each message.
pub(crate) fn flatten(
    v: &Value,
    ty: Option<&ValueType>,
    path: &mut String,
    out: &mut Vec<(String, Kind, f64)>,
    top: bool,
) {
    let leaf = |out: &mut Vec<(String, Kind, f64)>, path: &str, kind: Kind, x: f64| {
        if !bookkeeping(path) {
            out.push((path.to_string(), kind, x));
        }
    };
    match v {
        Value::Bool(b) => leaf(out, path, Kind::F64, f64::from(u8::from(*b))),
        Value::I64(i) => leaf(out, path, Kind::F64, *i as f64),
        Value::U64(u) => leaf(out, path, Kind::F64, *u as f64),
        Value::F32(f) => leaf(out, path, Kind::F32, f64::from(*f)),
        Value::F64(f) => leaf(out, path, Kind::F64, *f),
        Value::Struct(fields) => {
            let declared = match ty {
                Some(ValueType::Struct(d)) => Some(d),
                _ => None,
            };
            for (i, (name, fv)) in fields.iter().enumerate() {
                let fty = declared.and_then(|d| {
                    d.get(i)
                        .filter(|f| f.name == *name)
                        .or_else(|| d.iter().find(|f| f.name == *name))
                        .map(|f| &f.ty)
                });
                let len = path.len();
                if !top {
                    path.push('.');
                }
                path.push_str(name);
                flatten(fv, fty, path, out, false);
                path.truncate(len);
            }
            if let Some(q) = struct_quaternion(path, v) {
                euler(path, q, out);
            }
        }
        Value::Array(items) if items.len() <= MAX_ARRAY => {
            let element = match ty {
                Some(ValueType::List(e)) if matches!(**e, ValueType::Struct(_)) => return,
                Some(ValueType::List(e) | ValueType::FixedArray(e, _)) => Some(&**e),
                _ => None,
            };
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                flatten(item, element, path, out, false);
                path.truncate(len);
            }
            if let Some(q) = array_quaternion(path, items.iter().map(number)) {
                euler(path, q, out);
            }
        }
        Value::F32Array(items) if items.len() <= MAX_ARRAY => {
            for (i, x) in items.iter().enumerate() {
                leaf(out, &format!("{path}[{i}]"), Kind::F32, f64::from(*x));
            }
            if let Some(q) = array_quaternion(path, items.iter().map(|x| Some(f64::from(*x)))) {
                euler(path, q, out);
            }
        }
        Value::F64Array(items) if items.len() <= MAX_ARRAY => {
            for (i, x) in items.iter().enumerate() {
                leaf(out, &format!("{path}[{i}]"), Kind::F64, *x);
            }
            if let Some(q) = array_quaternion(path, items.iter().map(|x| Some(*x))) {
                euler(path, q, out);
            }
        }
        _ => {}
    }
}

/// The number a value holds, if it is one.
pub(crate) fn number(v: &Value) -> Option<f64> {
    match v {
        Value::I64(i) => Some(*i as f64),
        Value::U64(u) => Some(*u as f64),
        Value::F32(f) => Some(f64::from(*f)),
        Value::F64(f) => Some(*f),
        _ => None,
    }
}

/// A PX4 quaternion array (`q`, `q_d`, `delta_q_reset`...: four numbers,
/// w first) as (w, x, y, z).
fn array_quaternion(
    path: &str,
    mut items: impl ExactSizeIterator<Item = Option<f64>>,
) -> Option<[f64; 4]> {
    let name = path.rsplit('.').next().unwrap_or(path);
    if items.len() != 4 || !(name == "q" || name == "q_d") {
        return None;
    }
    Some([
        items.next()??,
        items.next()??,
        items.next()??,
        items.next()??,
    ])
}

/// A ROS quaternion (`orientation`, `rotation`: a struct `x, y, z, w`) as
/// (w, x, y, z).
fn struct_quaternion(path: &str, v: &Value) -> Option<[f64; 4]> {
    let name = path.rsplit('.').next().unwrap_or(path);
    if !(name.contains("orientation") || name.contains("rotation") || name == "quaternion") {
        return None;
    }
    let Value::Struct(fields) = v else {
        return None;
    };
    if fields.len() != 4 {
        return None;
    }
    let g = |n: &str| v.get(n).and_then(number);
    Some([g("w")?, g("x")?, g("y")?, g("z")?])
}

/// Roll, pitch and yaw (degrees, Tait-Bryan z-y'-x'') of the unit
/// quaternion (w, x, y, z), appended as derived series of `path`.
fn euler(path: &str, [w, x, y, z]: [f64; 4], out: &mut Vec<(String, Kind, f64)>) {
    // All zeros: no attitude (an unset setpoint), not a rotation.
    if w * w + x * x + y * y + z * z < 1e-6 {
        return;
    }
    let roll = (2.0 * (w * x + y * z)).atan2(1.0 - 2.0 * (x * x + y * y));
    let pitch = (2.0 * (w * y - z * x)).clamp(-1.0, 1.0).asin();
    let yaw = (2.0 * (w * z + x * y)).atan2(1.0 - 2.0 * (y * y + z * z));
    for (n, a) in [("roll", roll), ("pitch", pitch), ("yaw", yaw)] {
        out.push((format!("{path}:{n}"), Kind::F64, a.to_degrees()));
    }
}

/// Latitude and longitude in degrees from a struct's fields, if it has a
/// pair (integers in 1e-7 degrees, as PX4 logs them, are scaled). `None`
/// for the null island (0, 0) that receivers send without a fix.
fn lat_lon(v: &Value) -> Option<(f64, f64)> {
    for (la, lo) in [
        ("latitude", "longitude"),
        ("latitude_deg", "longitude_deg"),
        ("lat", "lon"),
    ] {
        let (Some(a), Some(o)) = (v.get(la), v.get(lo)) else {
            continue;
        };
        let scale = |x: &Value| {
            let n = number(x)?;
            Some(match x {
                Value::I64(_) | Value::U64(_) if n.abs() > 360.0 => n * 1e-7,
                _ => n,
            })
        };
        let (a, o) = (scale(a)?, scale(o)?);
        if a == 0.0 && o == 0.0 || !(-90.0..=90.0).contains(&a) || !(-180.0..=180.0).contains(&o) {
            return None;
        }
        return Some((a, o));
    }
    None
}

/// `x` and `y` of a position struct.
fn xy(v: &Value) -> Option<(f64, f64)> {
    Some((number(v.get("x")?)?, number(v.get("y")?)?))
}

/// The first `position` struct (outside arrays) with `x` and `y`.
fn find_position(v: &Value) -> Option<(f64, f64)> {
    let Value::Struct(fields) = v else {
        return None;
    };
    for (name, fv) in fields {
        if name == "position" {
            if let Some(p) = xy(fv) {
                return Some(p);
            }
        }
        if let Some(p) = find_position(fv) {
            return Some(p);
        }
    }
    None
}

/// An object's id and position in an array of objects: `id` (a number or
/// a struct holding `value`, as OSI's identifiers) and `location`,
/// `position` or `base.position` with `x` and `y`.
fn object(v: &Value) -> Option<(i64, f64, f64)> {
    let id = match v.get("id")? {
        Value::Struct(_) => number(v.get("id")?.get("value")?)?,
        other => number(other)?,
    } as i64;
    let pos = v
        .get("location")
        .or_else(|| v.get("position"))
        .or_else(|| v.get("base").and_then(|b| b.get("position")))?;
    let (x, y) = xy(pos)?;
    Some((id, x, y))
}

/// Tracks, paths and scenes: where the message says where things are.
fn positions(v: &Value, t: i64, acc: &mut ChannelAcc) {
    if let Some((la, lo)) = lat_lon(v) {
        acc.track
            .get_or_insert_with(Decimator::default)
            .push((t, la, lo));
        return;
    }
    if let Some((x, y)) = find_position(v) {
        acc.path
            .get_or_insert_with(Decimator::default)
            .push((t, x, y));
    }
    scene_objects(v, t, acc, 0);
}

/// Arrays of objects with ids and positions, anywhere in the message
/// (CARLA's records, OSI's moving objects), into the channel's scene.
fn scene_objects(v: &Value, t: i64, acc: &mut ChannelAcc, depth: usize) {
    if depth > 4 {
        return;
    }
    match v {
        Value::Struct(fields) => {
            for (_, fv) in fields {
                scene_objects(fv, t, acc, depth + 1);
            }
        }
        Value::Array(items) => {
            for item in items {
                if let Some((id, x, y)) = object(item) {
                    let scene = acc.scene.get_or_insert_with(BTreeMap::new);
                    if scene.len() >= MAX_SCENE_OBJECTS && !scene.contains_key(&id) {
                        continue;
                    }
                    scene.entry(id).or_default().push((t, x, y));
                } else if matches!(item, Value::Struct(_)) {
                    scene_objects(item, t, acc, depth + 1);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use logcore::FieldName;

    fn s(fields: Vec<(&str, Value)>) -> Value {
        Value::Struct(
            fields
                .into_iter()
                .map(|(n, v)| (FieldName::from(n), v))
                .collect(),
        )
    }

    #[test]
    fn flattens_numbers_short_arrays_and_quaternions() {
        let v = s(vec![
            ("timestamp", Value::U64(5)),
            ("a", Value::F32(1.5)),
            ("q", Value::F32Array(vec![1.0, 0.0, 0.0, 0.0])),
            ("long", Value::F32Array(vec![0.0; 100])),
            ("name", Value::String("x".into())),
            ("ok", Value::Bool(true)),
        ]);
        let mut out = Vec::new();
        flatten(&v, None, &mut String::new(), &mut out, true);
        let names: Vec<&str> = out.iter().map(|l| l.0.as_str()).collect();
        assert_eq!(
            names,
            [
                "a", "q[0]", "q[1]", "q[2]", "q[3]", "q:roll", "q:pitch", "q:yaw", "ok"
            ]
        );
        assert_eq!(out[0].1, Kind::F32);
        assert_eq!(out[5].2, 0.0);
    }

    #[test]
    fn arrays_of_objects_of_any_length_are_not_plotted() {
        use logcore::types::Field;
        let record = s(vec![("id", Value::U64(1))]);
        let v = s(vec![
            ("records", Value::Array(vec![record.clone()])),
            ("fixed", Value::Array(vec![record])),
        ]);
        let record_ty = ValueType::Struct(vec![Field::new("id", ValueType::U32)]);
        let ty = ValueType::Struct(vec![
            Field::new("records", ValueType::List(Box::new(record_ty.clone()))),
            Field::new("fixed", ValueType::FixedArray(Box::new(record_ty), 1)),
        ]);
        let mut out = Vec::new();
        flatten(&v, Some(&ty), &mut String::new(), &mut out, true);
        let names: Vec<&str> = out.iter().map(|l| l.0.as_str()).collect();
        assert_eq!(names, ["fixed[0].id"]);
    }

    #[test]
    fn euler_of_a_yaw_rotation() {
        // 90 degrees about z: w = cos 45, z = sin 45.
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let mut out = Vec::new();
        euler("q", [h, 0.0, 0.0, h], &mut out);
        assert!((out[2].2 - 90.0).abs() < 1e-9);
        assert!(out[0].2.abs() < 1e-9 && out[1].2.abs() < 1e-9);
    }

    #[test]
    fn lat_lon_scales_px4_integers_and_drops_null_island() {
        let px4 = s(vec![
            ("lat", Value::I64(473_977_418)),
            ("lon", Value::I64(85_455_939)),
        ]);
        let (a, o) = lat_lon(&px4).unwrap();
        assert!((a - 47.3977418).abs() < 1e-9 && (o - 8.5455939).abs() < 1e-9);
        let none = s(vec![
            ("latitude", Value::F64(0.0)),
            ("longitude", Value::F64(0.0)),
        ]);
        assert!(lat_lon(&none).is_none());
    }

    #[test]
    fn objects_by_id_and_location() {
        let o = s(vec![
            ("id", Value::U64(7)),
            (
                "location",
                s(vec![("x", Value::F32(1.0)), ("y", Value::F32(2.0))]),
            ),
        ]);
        assert_eq!(object(&o), Some((7, 1.0, 2.0)));
    }
}
