//! One pass over a log's tables, as robolog-arrow reads them
//! ([`scan_tables`]): each batch of a table is spread into flat columns
//! ([`flatten_batch`]: `pose.position.x`, `accel[0]`, the names `robolog
//! export` and `robolog sql` give) and each numeric column goes to one
//! [`Reducer`] per channel; the channel's message density, gaps and
//! backward time steps are counted on the way; positions become tracks
//! (latitude/longitude), paths (`position.x`/`y`) and scenes (arrays of
//! objects with an id and a position). Memory is bounded by the options
//! (points per series, fields per channel, points per track) and by one
//! batch per table, not by the log.
//!
//! A series is made where its field first has a value: the channel's
//! first message that has it, and within a message the order of its
//! fields. The problems met are listed in the order of the log.

use std::collections::{BTreeMap, BinaryHeap, HashMap};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    DurationNanosecondType, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    TimestampNanosecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use logcore::{ChannelId, LogReader as _, Value, ValueType};
use robolog::Log;
use robolog_arrow::flatten::{flatten_batch, flatten_schema};
use robolog_arrow::{DATA, LOG_TIME, PassItem, ScanOptions, Table, TableBatch, original_name};

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
/// Rows per batch of a table: the rows of each table held at once.
const BATCH_ROWS: usize = 4096;
/// How deep in a message arrays of objects are looked for.
const MAX_SCENE_DEPTH: usize = 4;
/// Fields per channel carried for the page's field search beyond those
/// plotted (see [`Channel::extra`]).
pub(crate) const MAX_EXTRA_FIELDS: usize = 256;

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

/// What a field name of a channel stands for.
#[derive(Debug, Clone, Copy)]
enum Slot {
    /// Its series, by index.
    Series(usize),
    /// Not plotted at load (beyond `max_fields`, or not asked for with
    /// `fields`): its extra series, by index, for the field search.
    Extra(usize),
    /// Met when the channel had its fields and extras already: counted,
    /// not kept.
    Skipped,
}

/// What one channel collects.
struct ChannelAcc {
    fields: Vec<FieldAcc>,
    extra: Vec<FieldAcc>,
    by_name: HashMap<String, Slot>,
    fields_skipped: u64,
    density: Vec<u64>,
    first_t: Option<i64>,
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

impl ChannelAcc {
    /// A channel with gaps longer than `gap_threshold` ns, whose field
    /// `watched` (if any) has its changes kept.
    fn new(gap_threshold: i64, watched: Option<&str>) -> Self {
        ChannelAcc {
            fields: Vec::new(),
            extra: Vec::new(),
            by_name: HashMap::new(),
            fields_skipped: 0,
            density: vec![0; TIMELINE_BUCKETS],
            first_t: None,
            last_t: None,
            gap_threshold,
            gaps: Vec::new(),
            jumps: Vec::new(),
            count: 0,
            track: None,
            path: None,
            scene: None,
            changes: watched.map(|f| (f.to_string(), Vec::new())),
        }
    }
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
    /// Every message time read, counted over `[t0, t1]`.
    pub(crate) times: crate::span::TimeHistogram,
    /// For each group of outliers [`collect`] was given, the channels of
    /// its messages (by index).
    pub(crate) outlier_channels: Vec<std::collections::BTreeSet<usize>>,
}

impl Collected {
    /// Takes the outliers of `bulk` out of the timeline, for a pass over
    /// the span they lie outside of (every one a time outside it, each
    /// counted in the end bucket on its side): notes their channels.
    pub(crate) fn drop_outliers(&mut self, bulk: &crate::span::Bulk) {
        self.outlier_channels = vec![std::collections::BTreeSet::new(); bulk.outliers.len()];
        for (g, ch, before) in self.times.outside_outliers(bulk) {
            let density = &mut self.channels[ch].density;
            if let Some(d) = if before {
                density.first_mut()
            } else {
                density.last_mut()
            } {
                *d = d.saturating_sub(1);
            }
            if let Some(set) = self.outlier_channels.get_mut(g) {
                set.insert(ch);
            }
        }
    }
}

/// Fields whose change points are kept exactly (for bands), by topic.
fn watched(topic: &str) -> Option<&'static str> {
    match topic {
        "vehicle_status" => Some("nav_state"),
        _ => None,
    }
}

/// The problems of the pass, by their place in the log: the first
/// [`MAX_PROBLEMS`] are kept, the others counted.
#[derive(Default)]
struct Problems {
    /// The kept ones, largest place on top.
    kept: BinaryHeap<Ranked>,
    dropped: u64,
}

/// A problem and its place in the log.
struct Ranked(u64, Problem);

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.cmp(&other.0)
    }
}

impl Problems {
    fn add(&mut self, place: u64, p: Problem) {
        if self.kept.len() < MAX_PROBLEMS {
            self.kept.push(Ranked(place, p));
            return;
        }
        self.dropped += 1;
        if self.kept.peek().is_some_and(|top| top.0 > place) {
            self.kept.pop();
            self.kept.push(Ranked(place, p));
        }
    }

    /// The kept problems in the log's order, then `more` while there is
    /// room; and how many were dropped.
    fn finish(self, more: impl IntoIterator<Item = Problem>) -> (Vec<Problem>, u64) {
        let mut out: Vec<Problem> = self
            .kept
            .into_sorted_vec()
            .into_iter()
            .map(|r| r.1)
            .collect();
        let mut dropped = self.dropped;
        for p in more {
            if out.len() < MAX_PROBLEMS {
                out.push(p);
            } else {
                dropped += 1;
            }
        }
        (out, dropped)
    }
}

/// Reads the messages of `log` in `range` (at or after its start, before
/// its end; every message where both are `None`) leniently and collects
/// what the report draws over `[t0, t1]`. With a range, a channel's count,
/// first and last time are those of its messages read. Messages outside
/// `[t0, t1]` (the `outliers` of a log's bulk, see [`crate::span`]) are
/// left out of the timeline's density; the channels of each group are
/// noted.
pub(crate) fn collect(
    log: &Log<'_>,
    t0: i64,
    t1: i64,
    range: (Option<i64>, Option<i64>),
    opts: &ReportOptions,
    outliers: &[crate::span::Group],
) -> Result<Collected, robolog_arrow::Error> {
    let summary = log.summary()?;
    // Each topic once (its connections or channels together: a bag's
    // several connections of `/rosout`), with its types.
    let mut channels = Vec::new();
    let mut accs: Vec<ChannelAcc> = Vec::new();
    let mut index: HashMap<ChannelId, usize> = HashMap::new();
    for t in summary.topics() {
        let topic = &t.topic;
        if !opts.topics.is_empty() && !opts.topics.iter().any(|o| o == topic) {
            continue;
        }
        let span = match (t.start, t.end) {
            (Some(s), Some(e)) => e.saturating_sub(s),
            _ => 0,
        };
        let period = if t.message_count > 1 {
            span / (t.message_count as i64 - 1)
        } else {
            0
        };
        for id in &t.channels {
            index.insert(*id, accs.len());
        }
        // A gap: ten periods of the topic's mean rate, and at least a
        // second.
        accs.push(ChannelAcc::new(
            period.saturating_mul(10).max(1_000_000_000),
            watched(topic),
        ));
        channels.push(Channel {
            label: topic.clone(),
            topic: topic.clone(),
            type_name: t.types.join(", "),
            message_count: t.message_count,
            start: t.start.map(|t| t.as_nanos()),
            end: t.end.map(|t| t.as_nanos()),
            density: Vec::new(),
            gaps: Vec::new(),
            jumps: Vec::new(),
            series: Vec::new(),
            extra: Vec::new(),
            fields_skipped: 0,
        });
    }

    let tables: Vec<Table> = robolog_arrow::tables_with_summary(log, &summary)?
        .into_iter()
        .filter(|t| t.channels.iter().any(|c| index.contains_key(&c.id)))
        .collect();
    // Each table's columns that can hold numbers or positions (and at
    // least one message column, so that every message is decoded and one
    // that does not decode is listed), spread into flat columns.
    let mut plans = Vec::with_capacity(tables.len());
    let mut projected = Vec::with_capacity(tables.len());
    for t in &tables {
        let (plan, columns) = Plan::new(t)?;
        plans.push(plan);
        projected.push(Some(columns));
    }
    let mut pass = Pass {
        t0,
        t1,
        span: t1.saturating_sub(t0).max(1) as i128,
        times: crate::span::TimeHistogram::new(t0, t1),
        outliers,
        outlier_channels: vec![std::collections::BTreeSet::new(); outliers.len()],
        opts,
        channels: &channels,
        accs,
        index,
        problems: Problems::default(),
    };
    let mut failed = Vec::new();
    let scan_opts = ScanOptions {
        batch_size: BATCH_ROWS,
        lenient: true,
        typed_columns: false,
        start: range.0.map(logcore::Timestamp),
        end: range.1.map(logcore::Timestamp),
        ..ScanOptions::default()
    };
    let mut scan = robolog_arrow::scan_tables(log, &tables, &projected, &scan_opts)?;
    for item in scan.by_ref() {
        match item? {
            PassItem::Batch(b) => pass.batch(&plans[b.table], &b)?,
            PassItem::Skipped(s) => pass.problems.add(
                s.ordinal,
                Problem {
                    t: s.after.map(|t| t.as_nanos()),
                    text: s.error.to_string(),
                },
            ),
            PassItem::Failed { table, error } => failed.push((table, error)),
        }
    }
    let label = |id: &ChannelId| {
        pass.index
            .get(id)
            .map_or_else(|| id.to_string(), |&a| channels[a].label.clone())
    };
    let more: Vec<Problem> = scan
        .failures()
        .values()
        .map(|f| Problem {
            t: None,
            text: format!("{}: {f}", label(&f.channel)),
        })
        .chain(failed.iter().map(|(i, e)| Problem {
            t: None,
            text: format!("{}: {e}", tables[*i].key),
        }))
        .collect();
    drop(scan);
    let Pass {
        accs,
        problems,
        times,
        outlier_channels,
        ..
    } = pass;
    let (problems, problems_dropped) = problems.finish(more);

    let mut tracks = Vec::new();
    let mut paths = Vec::new();
    let mut scenes = Vec::new();
    let mut changes = BTreeMap::new();
    for (index, acc) in accs.into_iter().enumerate() {
        let ch = &mut channels[index];
        ch.density = acc.density;
        ch.gaps = acc.gaps;
        ch.jumps = acc.jumps;
        ch.fields_skipped = acc.fields_skipped;
        if range.0.is_some() || range.1.is_some() {
            ch.message_count = acc.count;
            ch.start = acc.first_t;
            ch.end = acc.last_t;
        }
        let series = |f: FieldAcc| Series {
            name: f.name,
            kind: f.kind,
            count: f.reducer.count(),
            nan: f.reducer.nan(),
            reduced: f.reducer.reduced(),
            points: f.reducer.points(),
        };
        ch.series = acc.fields.into_iter().map(series).collect();
        ch.extra = acc.extra.into_iter().map(series).collect();
        if let Some(tr) = acc.track.filter(|t| t.points.len() > 1) {
            tracks.push(Track {
                channel: index,
                points: tr.points,
            });
        }
        if let Some(p) = acc.path.filter(|t| t.points.len() > 1) {
            paths.push(XyPath {
                channel: index,
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
                channel: index,
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
        times,
        outlier_channels,
    })
}

/// A numeric flat column, or a column of lists of numbers (whose elements
/// are series while a message's list is short).
struct Leaf {
    /// The flat column.
    col: usize,
    /// The series name (for a list, of each element: `name[i]`).
    names: Vec<String>,
    /// Whether each name is bookkeeping, left out.
    bookkeeping: Vec<bool>,
    kind: Kind,
    list: bool,
    /// For a list named like a PX4 quaternion (`q`, `q_d`): the names of
    /// its roll, pitch and yaw.
    quaternion: Option<[String; 3]>,
}

/// A quaternion of four flat columns, whose roll, pitch and yaw are
/// derived series.
struct Quat {
    /// The columns of w, x, y and z.
    cols: [usize; 4],
    /// Where its derived series go among the message's fields: after
    /// this column.
    after: usize,
    /// `name:roll`, `name:pitch`, `name:yaw`.
    names: [String; 3],
}

/// How one table's batches are read.
struct Plan {
    /// Whether the table's value is not a message with fields: its one
    /// column is the message, whose series names have no field name.
    bare: bool,
    leaves: Vec<Leaf>,
    quats: Vec<Quat>,
    /// The flat columns of latitude and longitude, and whether each holds
    /// integers (1e-7 degrees when beyond 360).
    lat_lon: Option<[(usize, bool); 2]>,
    /// The flat columns `x` and `y` of the `position` structs outside
    /// arrays, in the order they are looked for (the message's order,
    /// outer before inner).
    positions: Vec<(usize, usize)>,
    /// Whether the message has arrays of structs (where scenes are).
    objects: bool,
}

/// Whether values of `t` are numbers (integers or floats).
fn numeric(t: &DataType) -> bool {
    t.is_integer() || t.is_floating()
}

/// Whether values of `t` are plotted: numbers and booleans.
fn plotted(t: &DataType) -> bool {
    numeric(t) || matches!(t, DataType::Boolean)
}

/// Whether a column of type `t` may hold what the report draws: numbers,
/// booleans, or arrays of objects.
fn useful(t: &DataType) -> bool {
    match t {
        t if plotted(t) => true,
        DataType::Struct(children) => children.iter().any(|f| useful(f.data_type())),
        DataType::FixedSizeList(item, _) => {
            useful(item.data_type()) || matches!(item.data_type(), DataType::Struct(_))
        }
        DataType::List(item) => {
            plotted(item.data_type()) || matches!(item.data_type(), DataType::Struct(_))
        }
        _ => false,
    }
}

/// Whether an array of type `t` holds arrays of structs.
fn has_objects(t: &DataType) -> bool {
    match t {
        DataType::Struct(children) => children.iter().any(|f| has_objects(f.data_type())),
        DataType::List(item) | DataType::FixedSizeList(item, _) => {
            matches!(item.data_type(), DataType::Struct(_)) || has_objects(item.data_type())
        }
        _ => false,
    }
}

/// The last part of a path (`q` of `a[0].q`).
fn last_part(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

impl Plan {
    /// The plan of `table`, and the columns it reads.
    fn new(table: &Table) -> Result<(Plan, Vec<String>), robolog_arrow::Error> {
        let schema = table.schema();
        let bare = !matches!(table.value_type, ValueType::Struct(_));
        let facts = [
            LOG_TIME,
            robolog_arrow::PUBLISH_TIME,
            robolog_arrow::SEQUENCE,
            robolog_arrow::MULTI_ID,
        ];
        let message: Vec<&Field> = schema
            .fields()
            .iter()
            .filter(|f| !facts.contains(&f.name().as_str()))
            .map(|f| f.as_ref())
            .collect();
        let mut fields: Vec<Field> = vec![schema.field_with_name(LOG_TIME)?.clone()];
        fields.extend(
            message
                .iter()
                .filter(|f| useful(f.data_type()))
                .map(|f| (*f).clone()),
        );
        if fields.len() == 1 {
            fields.extend(message.first().map(|f| (*f).clone()));
        }
        let projection: Vec<String> = fields.iter().map(|f| f.name().clone()).collect();
        let objects = fields.iter().any(|f| has_objects(f.data_type()));
        let flat = flatten_schema(&Schema::new(fields), MAX_ARRAY)?;
        let names: Vec<String> = flat
            .fields()
            .iter()
            .map(|f| series_name(f.name(), bare))
            .collect();
        let types: Vec<&DataType> = flat.fields().iter().map(|f| f.data_type()).collect();
        let mut plan = Plan {
            bare,
            leaves: Vec::new(),
            quats: Vec::new(),
            lat_lon: None,
            positions: Vec::new(),
            objects,
        };
        // ROS messages hold bytes in arrays of `uint8` (and `char`,
        // `byte`): buffers and identifiers, not quantities.
        let ros = table
            .channels
            .iter()
            .all(|c| matches!(c.message_encoding.as_str(), "ros1" | "cdr"));
        // Messages without fields are columns of booleans: not values.
        let mut empty = Vec::new();
        empty_messages(&table.value_type, &mut String::new(), &mut empty);
        for (c, (name, t)) in names.iter().zip(&types).enumerate().skip(1) {
            let (kind, list) = match t {
                DataType::UInt8 if ros && name.ends_with(']') => continue,
                DataType::Boolean if empty.contains(name) => continue,
                DataType::List(item) if ros && *item.data_type() == DataType::UInt8 => continue,
                t if plotted(t) => (kind_of(t), false),
                DataType::List(item) if plotted(item.data_type()) => {
                    (kind_of(item.data_type()), true)
                }
                _ => continue,
            };
            let names: Vec<String> = if list {
                (0..MAX_ARRAY).map(|i| format!("{name}[{i}]")).collect()
            } else {
                vec![name.clone()]
            };
            let quaternion =
                (list && matches!(last_part(name), "q" | "q_d")).then(|| derived(name));
            plan.leaves.push(Leaf {
                col: c,
                bookkeeping: names.iter().map(|n| bookkeeping(n)).collect(),
                names,
                kind,
                list,
                quaternion,
            });
        }
        plan.quats = quaternions(&names, &types);
        plan.lat_lon = lat_lon_columns(&schema, &names, &types, bare);
        plan.positions = position_columns(&names, &types);
        Ok((plan, projection))
    }
}

/// The series name of a flat column: the message field's own name for a
/// column renamed for a reserved name, no name for the column of a value
/// that is not a message with fields.
fn series_name(column: &str, bare: bool) -> String {
    let end = column.find(['.', '[']).unwrap_or(column.len());
    let (first, rest) = column.split_at(end);
    let first = if bare && first == DATA {
        ""
    } else {
        original_name(first)
    };
    format!("{first}{rest}")
}

/// The paths (as [`series_name`]s) of the fields of `t` that are
/// messages without fields, which tables hold as booleans.
fn empty_messages(t: &ValueType, path: &mut String, out: &mut Vec<String>) {
    match t {
        ValueType::Struct(fields) if fields.is_empty() => out.push(path.clone()),
        ValueType::Struct(fields) => {
            for f in fields {
                let len = path.len();
                if len > 0 {
                    path.push('.');
                }
                path.push_str(&f.name);
                empty_messages(&f.ty, path, out);
                path.truncate(len);
            }
        }
        ValueType::FixedArray(item, n) if *n <= MAX_ARRAY => {
            for i in 0..*n {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                empty_messages(item, path, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

/// How the values of a column of type `t` print.
fn kind_of(t: &DataType) -> Kind {
    match t {
        DataType::Float32 => Kind::F32,
        _ => Kind::F64,
    }
}

/// The names of the roll, pitch and yaw derived from the quaternion
/// `path`.
fn derived(path: &str) -> [String; 3] {
    ["roll", "pitch", "yaw"].map(|n| format!("{path}:{n}"))
}

/// The quaternions among the flat columns: a PX4 array of four numbers
/// named `q` or `q_d` (w first), or a struct of exactly `x`, `y`, `z`,
/// `w` named like an orientation.
fn quaternions(names: &[String], types: &[&DataType]) -> Vec<Quat> {
    let mut out = Vec::new();
    for (c, name) in names.iter().enumerate() {
        // An array quaternion: `P[0]` .. `P[3]` and no `P[4]`.
        if let Some(path) = name.strip_suffix("[0]") {
            let at = |i: usize| {
                names
                    .get(c + i)
                    .is_some_and(|n| *n == format!("{path}[{i}]") && numeric(types[c + i]))
            };
            let fifth = names.get(c + 4).is_some_and(|n| *n == format!("{path}[4]"));
            if matches!(last_part(path), "q" | "q_d") && (0..4).all(at) && !fifth {
                out.push(Quat {
                    cols: [c, c + 1, c + 2, c + 3],
                    after: c + 3,
                    names: derived(path),
                });
            }
        }
        // A struct quaternion: the first column of the struct `P.`.
        let Some((path, _)) = name.rsplit_once('.') else {
            continue;
        };
        let first = names
            .iter()
            .position(|n| n.starts_with(path) && n[path.len()..].starts_with('.'));
        if first != Some(c) {
            continue;
        }
        let part = last_part(path);
        if !(part.contains("orientation") || part.contains("rotation") || part == "quaternion") {
            continue;
        }
        let inside: Vec<usize> = (c..names.len())
            .take_while(|&i| names[i].starts_with(path) && names[i][path.len()..].starts_with('.'))
            .collect();
        if inside.len() != 4 {
            continue;
        }
        let col = |axis: &str| {
            inside
                .iter()
                .copied()
                .find(|&i| names[i][path.len() + 1..] == *axis && numeric(types[i]))
        };
        if let (Some(w), Some(x), Some(y), Some(z)) = (col("w"), col("x"), col("y"), col("z")) {
            out.push(Quat {
                cols: [w, x, y, z],
                after: inside[3],
                names: derived(path),
            });
        }
    }
    out
}

/// The latitude and longitude columns: the first pair of names the
/// message has (`latitude`/`longitude`, `latitude_deg`/`longitude_deg`,
/// `lat`/`lon`), if both are numbers.
fn lat_lon_columns(
    schema: &Schema,
    names: &[String],
    types: &[&DataType],
    bare: bool,
) -> Option<[(usize, bool); 2]> {
    if bare {
        return None;
    }
    let top: Vec<&str> = schema
        .fields()
        .iter()
        .map(|f| original_name(f.name()))
        .collect();
    for (la, lo) in [
        ("latitude", "longitude"),
        ("latitude_deg", "longitude_deg"),
        ("lat", "lon"),
    ] {
        if !(top.contains(&la) && top.contains(&lo)) {
            continue;
        }
        let col = |n: &str| {
            let i = names.iter().position(|x| x == n)?;
            numeric(types[i]).then(|| (i, types[i].is_integer()))
        };
        return Some([col(la)?, col(lo)?]);
    }
    None
}

/// The `x` and `y` columns of each struct called `position` reached
/// through structs only, in the order a walk of the message meets them.
fn position_columns(names: &[String], types: &[&DataType]) -> Vec<(usize, usize)> {
    let mut found: Vec<(usize, usize, usize, usize)> = Vec::new();
    for (c, name) in names.iter().enumerate() {
        let Some(node) = name.strip_suffix(".x") else {
            continue;
        };
        if name.contains('[') || last_part(node) != "position" || !numeric(types[c]) {
            continue;
        }
        let y = format!("{node}.y");
        let Some(yc) = names.iter().position(|n| *n == y) else {
            continue;
        };
        if !numeric(types[yc]) {
            continue;
        }
        let start = names
            .iter()
            .position(|n| n.starts_with(node) && n[node.len()..].starts_with('.'))
            .unwrap_or(c);
        found.push((start, node.matches('.').count(), c, yc));
    }
    found.sort_unstable();
    found.into_iter().map(|(_, _, x, y)| (x, y)).collect()
}

/// The number at row `i` of `a` (`None` when null or not a number;
/// booleans as 0 and 1 when `bools`).
fn value_at(a: &dyn Array, i: usize, bools: bool) -> Option<f64> {
    if a.is_null(i) {
        return None;
    }
    Some(match a.data_type() {
        DataType::Int8 => f64::from(a.as_primitive::<Int8Type>().value(i)),
        DataType::Int16 => f64::from(a.as_primitive::<Int16Type>().value(i)),
        DataType::Int32 => f64::from(a.as_primitive::<Int32Type>().value(i)),
        DataType::Int64 => a.as_primitive::<Int64Type>().value(i) as f64,
        DataType::UInt8 => f64::from(a.as_primitive::<UInt8Type>().value(i)),
        DataType::UInt16 => f64::from(a.as_primitive::<UInt16Type>().value(i)),
        DataType::UInt32 => f64::from(a.as_primitive::<UInt32Type>().value(i)),
        DataType::UInt64 => a.as_primitive::<UInt64Type>().value(i) as f64,
        DataType::Float32 => f64::from(a.as_primitive::<Float32Type>().value(i)),
        DataType::Float64 => a.as_primitive::<Float64Type>().value(i),
        DataType::Boolean if bools => f64::from(u8::from(a.as_boolean().value(i))),
        _ => return None,
    })
}

/// The values of one series in a batch: (row, value).
struct Instance<'p> {
    name: &'p str,
    kind: Kind,
    /// Its place among the message's fields.
    rank: (usize, usize),
    values: Vec<(usize, f64)>,
}

/// The nanoseconds of a `log_time` column: a timestamp, or a duration
/// (the time since boot or since the recording began).
fn log_times(a: &ArrayRef) -> Result<&[i64], robolog_arrow::Error> {
    match a.data_type() {
        DataType::Timestamp(arrow_schema::TimeUnit::Nanosecond, _) => {
            Ok(a.as_primitive::<TimestampNanosecondType>().values())
        }
        DataType::Duration(arrow_schema::TimeUnit::Nanosecond) => {
            Ok(a.as_primitive::<DurationNanosecondType>().values())
        }
        t => Err(robolog_arrow::Error::Log(logcore::Error::invalid_argument(
            format!("log_time is {t}, not nanoseconds"),
        ))),
    }
}

/// The pass's state: every channel's collection, and the problems.
struct Pass<'o> {
    t0: i64,
    t1: i64,
    span: i128,
    times: crate::span::TimeHistogram,
    outliers: &'o [crate::span::Group],
    outlier_channels: Vec<std::collections::BTreeSet<usize>>,
    opts: &'o ReportOptions,
    channels: &'o [Channel],
    accs: Vec<ChannelAcc>,
    index: HashMap<ChannelId, usize>,
    problems: Problems,
}

impl Pass<'_> {
    /// Collects the rows of one batch of a table read by `plan`.
    fn batch(&mut self, plan: &Plan, tb: &TableBatch) -> Result<(), robolog_arrow::Error> {
        let batch: &RecordBatch = &tb.batch;
        let times = log_times(batch.column(0))?;
        // Each row's channel and the row's number among its messages.
        let mut rows: Vec<Option<(usize, u64)>> = Vec::with_capacity(batch.num_rows());
        for (r, ch) in tb.channels.iter().enumerate() {
            let Some(&a) = self.index.get(ch) else {
                rows.push(None);
                continue;
            };
            self.time(a, times[r], tb.ordinals[r]);
            rows.push(Some((a, self.accs[a].count)));
        }
        let flat = flatten_batch(batch, MAX_ARRAY)?;
        let mut instances = Vec::new();
        for leaf in &plan.leaves {
            leaf_values(leaf, flat.column(leaf.col), &rows, &mut instances);
        }
        for q in &plan.quats {
            let cols = q.cols.map(|c| flat.column(c));
            let mut out: [Vec<(usize, f64)>; 3] = Default::default();
            for (r, row) in rows.iter().enumerate() {
                if row.is_none() {
                    continue;
                }
                let v = cols.each_ref().map(|c| value_at(c.as_ref(), r, false));
                if let [Some(w), Some(x), Some(y), Some(z)] = v {
                    if let Some(e) = euler([w, x, y, z]) {
                        for (o, a) in out.iter_mut().zip(e) {
                            o.push((r, a));
                        }
                    }
                }
            }
            for (k, values) in out.into_iter().enumerate() {
                instances.push(Instance {
                    name: &q.names[k],
                    kind: Kind::F64,
                    rank: (q.after, MAX_ARRAY + 1 + k),
                    values,
                });
            }
        }
        self.series(&instances, &rows, times);
        for (r, row) in rows.iter().enumerate() {
            if let Some((a, _)) = row {
                self.positions(plan, batch, &flat, r, *a, times[r]);
            }
        }
        Ok(())
    }

    /// A message of channel `a` at `t`: counted, in the timeline, and its
    /// step back in time or gap noted.
    fn time(&mut self, a: usize, t: i64, ordinal: u64) {
        let acc = &mut self.accs[a];
        acc.count += 1;
        self.times.add(t, a);
        if (t < self.t0 || t > self.t1) && !self.outliers.is_empty() {
            // An outlier: in its group, not in the density.
            let g = self.outliers.partition_point(|g| g.end < t);
            if let Some(set) = self.outlier_channels.get_mut(g) {
                set.insert(a);
            }
        } else {
            let b = (((t.saturating_sub(self.t0)).clamp(0, self.span as i64) as i128
                * TIMELINE_BUCKETS as i128)
                / (self.span + 1)) as usize;
            acc.density[b.min(TIMELINE_BUCKETS - 1)] += 1;
        }
        if let Some(prev) = acc.last_t {
            if t < prev {
                if acc.jumps.len() < MAX_PROBLEMS {
                    acc.jumps.push(t);
                }
                let text = format!(
                    "{}: time goes back by {} at message {}",
                    self.channels[a].label,
                    logcore::time::format_duration(prev - t),
                    acc.count
                );
                self.problems.add(ordinal, Problem { t: Some(t), text });
            } else if t - prev > acc.gap_threshold && acc.gaps.len() < MAX_PROBLEMS {
                acc.gaps.push((prev, t));
            }
        }
        acc.last_t = Some(acc.last_t.map_or(t, |p| p.max(t)));
        acc.first_t = Some(acc.first_t.map_or(t, |p| p.min(t)));
    }

    /// Adds the values of a batch to their series: a series is made where
    /// its field first has a value in its channel (message, then place in
    /// the message), while the channel has room.
    fn series(&mut self, instances: &[Instance<'_>], rows: &[Option<(usize, u64)>], times: &[i64]) {
        let opts = self.opts;
        let wanted = |name: &str| {
            opts.fields.is_empty() || opts.fields.iter().any(|f| field_matches(name, f))
        };
        // New names, by channel, where each first has a value.
        let mut new: Vec<(usize, u64, (usize, usize), usize)> = Vec::new();
        for (k, inst) in instances.iter().enumerate() {
            let mut seen: Vec<usize> = Vec::new();
            for &(r, _) in &inst.values {
                let Some((a, n)) = rows[r] else { continue };
                if seen.contains(&a) {
                    continue;
                }
                seen.push(a);
                if !self.accs[a].by_name.contains_key(inst.name) {
                    new.push((a, n, inst.rank, k));
                }
            }
        }
        new.sort_unstable();
        for (a, _, _, k) in new {
            let acc = &mut self.accs[a];
            let inst = &instances[k];
            let field = FieldAcc {
                name: inst.name.to_string(),
                kind: inst.kind,
                reducer: Reducer::new(self.t0, self.t1, opts.max_points),
            };
            // A field not plotted at load is carried, reduced the same
            // way, for the page's field search.
            let slot = if wanted(inst.name) && acc.fields.len() < opts.max_fields {
                acc.fields.push(field);
                Slot::Series(acc.fields.len() - 1)
            } else if acc.extra.len() < MAX_EXTRA_FIELDS {
                acc.extra.push(field);
                Slot::Extra(acc.extra.len() - 1)
            } else {
                Slot::Skipped
            };
            acc.by_name.entry(inst.name.to_string()).or_insert(slot);
        }
        for inst in instances {
            let mut slots: Vec<(usize, Option<Slot>)> = Vec::new();
            for &(r, v) in &inst.values {
                let Some((a, _)) = rows[r] else { continue };
                let acc = &mut self.accs[a];
                let t = times[r];
                if let Some((field, list)) = &mut acc.changes {
                    if *field == inst.name && list.last().is_none_or(|l| l.1 != v) {
                        list.push((t, v));
                    }
                }
                let slot = match slots.iter().find(|s| s.0 == a) {
                    Some(s) => s.1,
                    None => {
                        let s = acc.by_name.get(inst.name).copied();
                        slots.push((a, s));
                        s
                    }
                };
                match slot {
                    Some(Slot::Series(i) | Slot::Extra(i)) => {
                        let f = match slot {
                            Some(Slot::Series(_)) => &mut acc.fields[i],
                            _ => &mut acc.extra[i],
                        };
                        if inst.kind == Kind::F64 {
                            f.kind = Kind::F64;
                        }
                        f.reducer.push(t, v);
                    }
                    Some(Slot::Skipped) => acc.fields_skipped += 1,
                    None => {}
                }
            }
        }
    }

    /// Tracks, paths and scenes: where row `r` (of channel `a`, at `t`)
    /// says where things are.
    fn positions(
        &mut self,
        plan: &Plan,
        batch: &RecordBatch,
        flat: &RecordBatch,
        r: usize,
        a: usize,
        t: i64,
    ) {
        let acc = &mut self.accs[a];
        if let Some([(la, la_int), (lo, lo_int)]) = plan.lat_lon {
            let scale = |n: f64, int: bool| if int && n.abs() > 360.0 { n * 1e-7 } else { n };
            let a = value_at(flat.column(la).as_ref(), r, false).map(|n| scale(n, la_int));
            let o = value_at(flat.column(lo).as_ref(), r, false).map(|n| scale(n, lo_int));
            if let (Some(a), Some(o)) = (a, o) {
                let null_island = a == 0.0 && o == 0.0;
                if !null_island && (-90.0..=90.0).contains(&a) && (-180.0..=180.0).contains(&o) {
                    acc.track
                        .get_or_insert_with(Decimator::default)
                        .push((t, a, o));
                    return;
                }
            }
        }
        for &(x, y) in &plan.positions {
            let x = value_at(flat.column(x).as_ref(), r, false);
            let y = value_at(flat.column(y).as_ref(), r, false);
            if let (Some(x), Some(y)) = (x, y) {
                acc.path
                    .get_or_insert_with(Decimator::default)
                    .push((t, x, y));
                break;
            }
        }
        if plan.objects {
            let depth = usize::from(!plan.bare);
            for c in batch.columns().iter().skip(1) {
                scene_objects(c.as_ref(), r, depth, t, acc);
            }
        }
    }
}

/// The values of `leaf` (its flat column `col`) in the rows of known
/// channels, as instances: one, or one per element of short lists.
fn leaf_values<'p>(
    leaf: &'p Leaf,
    col: &ArrayRef,
    rows: &[Option<(usize, u64)>],
    out: &mut Vec<Instance<'p>>,
) {
    if !leaf.list {
        if leaf.bookkeeping[0] {
            return;
        }
        let values = (0..col.len())
            .filter(|&r| rows[r].is_some())
            .filter_map(|r| Some((r, value_at(col.as_ref(), r, true)?)))
            .collect();
        out.push(Instance {
            name: &leaf.names[0],
            kind: leaf.kind,
            rank: (leaf.col, 0),
            values,
        });
        return;
    }
    let lists = col.as_list::<i32>();
    let items = lists.values();
    let mut elements: Vec<Vec<(usize, f64)>> = vec![Vec::new(); MAX_ARRAY];
    let mut angles: [Vec<(usize, f64)>; 3] = Default::default();
    for r in 0..lists.len() {
        if rows[r].is_none() || lists.is_null(r) {
            continue;
        }
        let offsets = lists.value_offsets();
        let (s, e) = (offsets[r] as usize, offsets[r + 1] as usize);
        if e - s > MAX_ARRAY {
            continue;
        }
        for (i, j) in (s..e).enumerate() {
            if let Some(v) = value_at(items.as_ref(), j, true) {
                elements[i].push((r, v));
            }
        }
        if leaf.quaternion.is_some() && e - s == 4 {
            let q = [s, s + 1, s + 2, s + 3].map(|j| value_at(items.as_ref(), j, false));
            if let [Some(w), Some(x), Some(y), Some(z)] = q {
                if let Some(e) = euler([w, x, y, z]) {
                    for (o, a) in angles.iter_mut().zip(e) {
                        o.push((r, a));
                    }
                }
            }
        }
    }
    for (i, values) in elements.into_iter().enumerate() {
        if values.is_empty() || leaf.bookkeeping[i] {
            continue;
        }
        out.push(Instance {
            name: &leaf.names[i],
            kind: leaf.kind,
            rank: (leaf.col, i),
            values,
        });
    }
    if let Some(names) = &leaf.quaternion {
        for (k, values) in angles.into_iter().enumerate() {
            if values.is_empty() {
                continue;
            }
            out.push(Instance {
                name: &names[k],
                kind: Kind::F64,
                rank: (leaf.col, MAX_ARRAY + 1 + k),
                values,
            });
        }
    }
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

/// Roll, pitch and yaw (degrees, Tait-Bryan z-y'-x'') of the unit
/// quaternion (w, x, y, z); `None` for all zeros (an unset setpoint, not
/// a rotation).
fn euler([w, x, y, z]: [f64; 4]) -> Option<[f64; 3]> {
    if w * w + x * x + y * y + z * z < 1e-6 {
        return None;
    }
    let roll = (2.0 * (w * x + y * z)).atan2(1.0 - 2.0 * (x * x + y * y));
    let pitch = (2.0 * (w * y - z * x)).clamp(-1.0, 1.0).asin();
    let yaw = (2.0 * (w * z + x * y)).atan2(1.0 - 2.0 * (y * y + z * z));
    Some([roll, pitch, yaw].map(f64::to_degrees))
}

/// The child `name` of the struct at row `i` of `a`, where `a` is a
/// struct valid at that row.
fn child<'a>(a: &'a dyn Array, i: usize, name: &str) -> Option<&'a ArrayRef> {
    let s = a.as_struct_opt()?;
    if s.is_null(i) {
        return None;
    }
    s.column_by_name(name)
}

/// `x` and `y` of the position struct at row `i` of `a`.
fn xy(a: &dyn Array, i: usize) -> Option<(f64, f64)> {
    let x = value_at(child(a, i, "x")?.as_ref(), i, false)?;
    let y = value_at(child(a, i, "y")?.as_ref(), i, false)?;
    Some((x, y))
}

/// An object's id and position, at row `i` of an array of objects: `id`
/// (a number, or a struct holding `value` as OSI's identifiers) and
/// `location`, `position` or `base.position` with `x` and `y`.
fn object(items: &dyn Array, i: usize) -> Option<(i64, f64, f64)> {
    let id = child(items, i, "id")?;
    let id = match id.data_type() {
        DataType::Struct(_) => value_at(child(id.as_ref(), i, "value")?.as_ref(), i, false)?,
        _ => value_at(id.as_ref(), i, false)?,
    } as i64;
    let pos = match child(items, i, "location").or_else(|| child(items, i, "position")) {
        Some(p) => p,
        None => child(child(items, i, "base")?.as_ref(), i, "position")?,
    };
    let (x, y) = xy(pos.as_ref(), i)?;
    Some((id, x, y))
}

/// Arrays of objects with ids and positions, anywhere in row `i` of `a`
/// (CARLA's records, OSI's moving objects), into the channel's scene.
fn scene_objects(a: &dyn Array, i: usize, depth: usize, t: i64, acc: &mut ChannelAcc) {
    if depth > MAX_SCENE_DEPTH || a.is_null(i) {
        return;
    }
    let (items, range) = match a.data_type() {
        DataType::Struct(_) => {
            for c in a.as_struct().columns() {
                scene_objects(c.as_ref(), i, depth + 1, t, acc);
            }
            return;
        }
        DataType::List(_) => {
            let l = a.as_list::<i32>();
            let o = l.value_offsets();
            (l.values(), o[i] as usize..o[i + 1] as usize)
        }
        DataType::FixedSizeList(_, _) => {
            let l = a.as_fixed_size_list();
            let n = l.value_length() as usize;
            let s = l.value_offset(i) as usize;
            (l.values(), s..s + n)
        }
        _ => return,
    };
    if !matches!(items.data_type(), DataType::Struct(_)) {
        return;
    }
    for j in range {
        if let Some((id, x, y)) = object(items.as_ref(), j) {
            let scene = acc.scene.get_or_insert_with(BTreeMap::new);
            if scene.len() >= MAX_SCENE_OBJECTS && !scene.contains_key(&id) {
                continue;
            }
            scene.entry(id).or_default().push((t, x, y));
        } else {
            scene_objects(items.as_ref(), j, depth + 1, t, acc);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use arrow_array::{Float32Array, Int64Array, ListArray, StructArray, UInt32Array};

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn series_names_are_the_fields_own() {
        assert_eq!(series_name("pose.position.x", false), "pose.position.x");
        assert_eq!(series_name("log_time_", false), "log_time");
        assert_eq!(series_name("sequence_.x", false), "sequence.x");
        assert_eq!(series_name("data[2]", true), "[2]");
        assert_eq!(series_name("data", false), "data");
    }

    #[test]
    fn quaternions_of_px4_arrays_and_ros_orientations() {
        let f = DataType::Float32;
        let n = names(&[
            "log_time",
            "q[0]",
            "q[1]",
            "q[2]",
            "q[3]",
            "v[0]",
            "v[1]",
            "v[2]",
            "v[3]",
            "pose.orientation.x",
            "pose.orientation.y",
            "pose.orientation.z",
            "pose.orientation.w",
            "rotation.x",
            "rotation.y",
            "rotation.z",
            "rotation.w",
            "rotation.extra",
        ]);
        let types = vec![&f; n.len()];
        let q = quaternions(&n, &types);
        // `v` is not named like a quaternion; `rotation` has five fields.
        assert_eq!(q.len(), 2);
        assert_eq!(q[0].cols, [1, 2, 3, 4]);
        assert_eq!(q[0].names[2], "q:yaw");
        assert_eq!(q[1].cols, [12, 9, 10, 11], "w, x, y, z");
        assert_eq!(q[1].after, 12);
        assert_eq!(q[1].names[0], "pose.orientation:roll");
        // Five items: not a quaternion.
        let five = names(&["log_time", "q[0]", "q[1]", "q[2]", "q[3]", "q[4]"]);
        assert!(quaternions(&five, &[&f; 6]).is_empty());
    }

    #[test]
    fn positions_outside_arrays_outer_first() {
        let f = DataType::Float64;
        let n = names(&[
            "log_time",
            "position.a.position.x",
            "position.a.position.y",
            "position.x",
            "position.y",
            "objects[0].position.x",
            "objects[0].position.y",
            "pose.pose.position.x",
            "pose.pose.position.y",
        ]);
        let got = position_columns(&n, &vec![&f; n.len()]);
        assert_eq!(got, [(3, 4), (1, 2), (7, 8)]);
    }

    #[test]
    fn euler_of_a_yaw_rotation() {
        // 90 degrees about z: w = cos 45, z = sin 45.
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let [roll, pitch, yaw] = euler([h, 0.0, 0.0, h]).unwrap();
        assert!((yaw - 90.0).abs() < 1e-9);
        assert!(roll.abs() < 1e-9 && pitch.abs() < 1e-9);
        assert!(euler([0.0; 4]).is_none());
    }

    /// A struct array of `fields`.
    fn strukt(fields: Vec<(&str, ArrayRef)>) -> StructArray {
        StructArray::from(
            fields
                .into_iter()
                .map(|(n, a)| (Arc::new(Field::new(n, a.data_type().clone(), true)), a))
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn objects_by_id_and_location_in_lists() {
        // Two rows: row 0 has objects 7 and 8, row 1 has object 7 again.
        let location: ArrayRef = Arc::new(strukt(vec![
            ("x", Arc::new(Float32Array::from(vec![1.0, 5.0, 2.0]))),
            ("y", Arc::new(Float32Array::from(vec![2.0, 6.0, 3.0]))),
        ]));
        let id: ArrayRef = Arc::new(UInt32Array::from(vec![7, 8, 7]));
        let records = strukt(vec![("id", id), ("location", location)]);
        let item = Arc::new(Field::new("item", records.data_type().clone(), true));
        let list = ListArray::new(
            item,
            arrow_buffer::OffsetBuffer::new(vec![0, 2, 3].into()),
            Arc::new(records.clone()),
            None,
        );
        assert_eq!(object(&records, 1), Some((8, 5.0, 6.0)));
        let mut acc = ChannelAcc::new(0, None);
        scene_objects(&list, 0, 1, 10, &mut acc);
        scene_objects(&list, 1, 1, 20, &mut acc);
        let scene = acc.scene.unwrap();
        assert_eq!(scene[&7].points, [(10, 1.0, 2.0), (20, 2.0, 3.0)]);
        assert_eq!(scene[&8].points, [(10, 5.0, 6.0)]);
        // An OSI identifier: a struct holding `value`, and `base.position`.
        let value: ArrayRef = Arc::new(Int64Array::from(vec![42]));
        let ident: ArrayRef = Arc::new(strukt(vec![("value", value)]));
        let position: ArrayRef = Arc::new(strukt(vec![
            ("x", Arc::new(Float32Array::from(vec![3.0]))),
            ("y", Arc::new(Float32Array::from(vec![4.0]))),
        ]));
        let base: ArrayRef = Arc::new(strukt(vec![("position", position)]));
        let osi = strukt(vec![("id", ident), ("base", base)]);
        assert_eq!(object(&osi, 0), Some((42, 3.0, 4.0)));
    }
}
