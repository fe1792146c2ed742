//! What a report holds, log by log, and how it is written into the page
//! as JSON: times are integer nanoseconds from the log's first message (so
//! several logs overlay aligned by their start), `float32` values are
//! written as the shortest text that reads back as the same `f32`, others
//! as the shortest that reads back as the same `f64`.

use std::io;

use serde::{Serialize, Serializer};

use crate::collect::Kind;

/// One log of a report.
#[derive(Debug, Clone)]
pub struct LogReport {
    /// The name shown for the log (its file name).
    pub name: String,
    /// The path it was read from.
    pub path: String,
    /// The format's name.
    pub format: String,
    /// The format (its short name is the page's `format_id`).
    pub format_id: logcore::Format,
    /// The format version the file states.
    pub version: String,
    /// Size in bytes.
    pub size: u64,
    /// The log's clock (`boot`, `unix`, ...).
    pub clock: String,
    /// Start of the span shown, ns on the log's clock: the time of the
    /// first message, or the start of the [`range`](Self::range) where it
    /// is later. The page's times count from it.
    pub start: i64,
    /// End of the span shown, ns on the log's clock: the time of the last
    /// message, or the end of the [`range`](Self::range) where it is
    /// earlier (never before `start`).
    pub end: i64,
    /// `start` in UTC (RFC 3339), where the clock is anchored to UTC.
    pub start_utc: Option<String>,
    /// Time of the log's first message, ns on its clock (0 without
    /// messages).
    pub log_start: i64,
    /// Time of the log's last message, ns on its clock.
    pub log_end: i64,
    /// The messages outside the span shown, in groups by time: far from
    /// where the bulk of the messages lie (see [`crate::span`]), marked at
    /// the timeline's edge rather than stretching its axis.
    pub outliers: Vec<Outlier>,
    /// The time the log's plots count from, ns on its clock, where one
    /// was asked for ([`ReportOptions::align`](crate::ReportOptions::align):
    /// its topic's first message); `None`: the log's `start`.
    pub align: Option<i64>,
    /// The time range asked for, when one was: only its messages were
    /// read and shown.
    pub range: Option<Range>,
    /// Messages in the log.
    pub message_count: u64,
    /// Header fields, parameters and similar, as text.
    pub metadata: Vec<(String, String)>,
    /// The channels read (every one, or those `topics` selected).
    pub channels: Vec<Channel>,
    /// Problems: damage met while reading, decode failures, time going
    /// backwards, dropouts, and what `robolog check` finds.
    pub problems: Vec<Problem>,
    /// Problems found beyond those listed.
    pub problems_dropped: u64,
    /// Whether `robolog check` passed (`None`: not run).
    pub check_passed: Option<bool>,
    /// Latitude/longitude tracks.
    pub tracks: Vec<Track>,
    /// `position.x`/`y` paths.
    pub paths: Vec<Path>,
    /// Thumbnails of camera topics (see [`Strip`]).
    pub strips: Vec<Strip>,
    /// Top-down views of point cloud and laser scan topics (see
    /// [`CloudView`]).
    pub clouds: Vec<CloudView>,
    /// Objects seen from above over time (CARLA actors, OSI objects).
    pub scenes: Vec<Scene>,
    /// Coloured spans over the time axes (a PX4 flight's modes).
    pub bands: Vec<Band>,
    /// Text messages the log carries (PX4's logged messages), by time.
    pub events: Vec<Event>,
    /// The log's parameters (PX4: every one at start, with its system
    /// default where the log records one, then each change during the log
    /// with its time), with a note saying how many and what is marked.
    pub parameters: Option<(String, Vec<Parameter>)>,
    /// Panels of chosen series across channels (a flight's altitude,
    /// attitude against setpoint, ...).
    pub panels: Vec<Panel>,
    /// A PX4 flight's summary and gyro spectrum (`None` for other logs).
    pub flight: Option<crate::px4::Flight>,
}

/// A group of messages outside a log's span shown (see
/// [`LogReport::outliers`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outlier {
    /// The first message time of the group, ns on the log's clock.
    pub start: i64,
    /// The last message time of the group, ns on the log's clock.
    pub end: i64,
    /// Messages in the group.
    pub count: u64,
    /// The channels of its messages (their labels).
    pub topics: Vec<String>,
}

/// The time range a report was asked to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Range {
    /// The first instant shown, ns on the log's clock (`None`: from the
    /// first message).
    pub start: Option<i64>,
    /// The first instant past the range, ns on the log's clock (`None`: to
    /// the last message).
    pub end: Option<i64>,
    /// The range as it was asked for (`from 2.5 s after the first
    /// message, until 2019-05-13T14:09:20Z`).
    pub asked: String,
    /// Messages in the range, on the channels read.
    pub messages: u64,
}

/// A channel and its plotted series.
#[derive(Debug, Clone)]
pub struct Channel {
    /// Its name in the report: the topic (each topic is listed once, its
    /// connections or channels together).
    pub label: String,
    /// The topic.
    pub topic: String,
    /// The message type; the types, comma-separated, of a topic whose
    /// connections differ in type.
    pub type_name: String,
    /// Messages on it, all its connections or channels together (as the
    /// log's summary counts them; with a [`LogReport::range`], those read
    /// in the range).
    pub message_count: u64,
    /// First message time (in the range, where one is given).
    pub start: Option<i64>,
    /// Last message time (in the range, where one is given).
    pub end: Option<i64>,
    /// Messages per timeline bucket (the span shown in
    /// [`TIMELINE_BUCKETS`](crate::TIMELINE_BUCKETS) equal parts).
    pub density: Vec<u64>,
    /// Spans with no message, longer than ten mean periods and a second.
    pub gaps: Vec<(i64, i64)>,
    /// Times at which the channel's time went backwards.
    pub jumps: Vec<i64>,
    /// The numeric fields, reduced.
    pub series: Vec<Series>,
    /// The numeric fields not plotted at load (beyond
    /// [`ReportOptions::max_fields`](crate::ReportOptions::max_fields), or
    /// not asked for with [`ReportOptions::fields`](crate::ReportOptions::fields)),
    /// reduced by the same min/max rule, for the page's field search: at
    /// most 256 per channel, and the first reduced further or left out
    /// when the page is over its budget.
    pub extra: Vec<Series>,
    /// Values of fields beyond the per-channel limits, not kept.
    pub fields_skipped: u64,
}

/// One numeric field over time.
#[derive(Debug, Clone)]
pub struct Series {
    /// Its path in the message (`a.b[2]`; `q:roll` for a derived angle).
    pub name: String,
    pub(crate) kind: Kind,
    /// Values pushed (NaN included).
    pub count: u64,
    /// NaN values (not drawn).
    pub nan: u64,
    /// Whether the points are a min/max reduction.
    pub reduced: bool,
    /// (time, value) in time order.
    pub points: Vec<(i64, f64)>,
}

impl Series {
    /// A series of `float64` values: every one of `points`, not reduced.
    pub fn from_points(name: impl Into<String>, points: Vec<(i64, f64)>) -> Series {
        Series {
            name: name.into(),
            kind: Kind::F64,
            count: points.len() as u64,
            nan: 0,
            reduced: false,
            points,
        }
    }

    /// Whether the values are `float32` (they print as such).
    pub fn is_f32(&self) -> bool {
        self.kind == Kind::F32
    }
}

/// A problem, placed at a time where one is known.
#[derive(Debug, Clone)]
pub struct Problem {
    /// When (ns on the log's clock), if known.
    pub t: Option<i64>,
    /// What.
    pub text: String,
}

/// A latitude/longitude track of a channel.
#[derive(Debug, Clone)]
pub struct Track {
    /// Index of the channel in [`LogReport::channels`].
    pub channel: usize,
    /// (time, latitude, longitude), degrees.
    pub points: Vec<(i64, f64, f64)>,
}

/// Thumbnails of a camera topic, spread evenly over its time span.
#[derive(Debug, Clone)]
pub struct Strip {
    /// Index of the channel in [`LogReport::channels`].
    pub channel: usize,
    /// The thumbnails, in time order.
    pub frames: Vec<Thumbnail>,
}

/// One camera frame, small.
#[derive(Debug, Clone)]
pub struct Thumbnail {
    /// The message's log time (ns on the log's clock).
    pub t: i64,
    /// The thumbnail's width in pixels.
    pub width: u32,
    /// The thumbnail's height in pixels.
    pub height: u32,
    /// The frame's own width.
    pub source_width: u32,
    /// The frame's own height.
    pub source_height: u32,
    /// The thumbnail as a baseline JPEG file.
    pub jpeg: Vec<u8>,
}

/// A point cloud or laser scan topic seen from above: a few of its
/// messages, each with a bounded number of points.
#[derive(Debug, Clone)]
pub struct CloudView {
    /// Index of the channel in [`LogReport::channels`].
    pub channel: usize,
    /// Whether the topic holds laser scans (else point clouds).
    pub scan: bool,
    /// The field the points are coloured by (`z`, `intensity`), if any.
    pub color: Option<String>,
    /// The messages shown, in time order.
    pub frames: Vec<CloudFrame>,
}

/// The points of one message of a [`CloudView`].
#[derive(Debug, Clone)]
pub struct CloudFrame {
    /// The message's log time (ns on the log's clock).
    pub t: i64,
    /// Points the message decoded to (NaN points left out).
    pub points: usize,
    /// The decoded points' indices kept: `i * points / kept` for `i` in
    /// `0..kept` (every point when there are few enough).
    pub x: Vec<f32>,
    /// `y` of the kept points, metres in the cloud's frame.
    pub y: Vec<f32>,
    /// The colour field's value of the kept points (empty without one).
    pub c: Vec<f32>,
}

/// An x/y path of a channel.
#[derive(Debug, Clone)]
pub struct Path {
    /// Index of the channel in [`LogReport::channels`].
    pub channel: usize,
    /// (time, x, y).
    pub points: Vec<(i64, f64, f64)>,
    /// What the path is of, when not simply the channel's position (the
    /// ego vehicle among a channel's objects).
    pub title: Option<String>,
}

/// Objects of a channel seen from above.
#[derive(Debug, Clone)]
pub struct Scene {
    /// Index of the channel in [`LogReport::channels`].
    pub channel: usize,
    /// The objects, by id.
    pub objects: Vec<SceneObject>,
}

/// One object of a [`Scene`].
#[derive(Debug, Clone)]
pub struct SceneObject {
    /// Its id.
    pub id: i64,
    /// (time, x, y).
    pub points: Vec<(i64, f64, f64)>,
}

/// Named spans of time.
#[derive(Debug, Clone)]
pub struct Band {
    /// What the spans are (`flight mode`).
    pub name: String,
    /// (start, end, label).
    pub spans: Vec<(i64, i64, String)>,
}

/// A text message of the log.
#[derive(Debug, Clone)]
pub struct Event {
    /// When.
    pub t: i64,
    /// Its level (`ERROR`, `INFO`...).
    pub level: String,
    /// The text.
    pub text: String,
}

/// A parameter's value, with its default where known.
#[derive(Debug, Clone)]
pub struct Parameter {
    /// Name.
    pub name: String,
    /// Value as text.
    pub value: String,
    /// Default as text, where the log has it.
    pub default: Option<String>,
    /// When it changed, for a change during the log.
    pub t: Option<i64>,
}

/// A panel of series picked across channels.
#[derive(Debug, Clone)]
pub struct Panel {
    /// Its title.
    pub title: String,
    /// (channel index, series index, label).
    pub series: Vec<(usize, usize, String)>,
    /// Series of the panel's own, derived from several messages (a CARLA
    /// ego's speed), labelled by their names.
    pub own: Vec<Series>,
}

/// The page's JSON writer: serde_json's compact text, numbers as the
/// shortest text that reads back as the same value (Rust's own: `1e-5`,
/// not `0.00001`), and `<`, `>`, `&`, U+2028 and U+2029 inside strings as
/// `\u` escapes, so that no text of a log can end the page's script
/// element.
struct PageFormatter;

impl serde_json::ser::Formatter for PageFormatter {
    fn write_f32<W: ?Sized + io::Write>(&mut self, w: &mut W, v: f32) -> io::Result<()> {
        write!(w, "{v:?}")
    }

    fn write_f64<W: ?Sized + io::Write>(&mut self, w: &mut W, v: f64) -> io::Result<()> {
        write!(w, "{v:?}")
    }

    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut rest = fragment;
        while let Some(i) = rest.find(['<', '>', '&', '\u{2028}', '\u{2029}']) {
            w.write_all(&rest.as_bytes()[..i])?;
            let c = rest[i..].chars().next().unwrap_or('&');
            write!(w, "\\u{:04x}", u32::from(c))?;
            rest = &rest[i + c.len_utf8()..];
        }
        w.write_all(rest.as_bytes())
    }
}

/// `value` as the page's JSON text (see [`PageFormatter`]).
pub(crate) fn page_json(value: &impl Serialize) -> String {
    let mut out = Vec::with_capacity(128);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, PageFormatter);
    // Nothing here can fail: every map key is a string, and the writer is
    // a `Vec`.
    let _ = value.serialize(&mut ser);
    String::from_utf8(out).unwrap_or_default()
}

/// A value of a series: as `f32` for [`Kind::F32`], `null` for NaN, and
/// infinities as the strings `"Infinity"` and `"-Infinity"` (JSON has no
/// number for them), so that the page can mark them.
struct Sample(f64, Kind);

impl Serialize for Sample {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match (self.0, self.1) {
            (v, _) if v == f64::INFINITY => s.serialize_str("Infinity"),
            (v, _) if v == f64::NEG_INFINITY => s.serialize_str("-Infinity"),
            (v, Kind::F32) => s.serialize_f32(v as f32),
            (v, _) => s.serialize_f64(v),
        }
    }
}

fn is_false(b: &bool) -> bool {
    !b
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Times relative to the log's start.
fn times<T>(items: &[T], t0: i64, t: impl Fn(&T) -> i64) -> Vec<i64> {
    items.iter().map(|i| t(i) - t0).collect()
}

/// Messages per timeline bucket: a run of `k` empty buckets as `-k`, the
/// empty buckets at the end left out.
fn density_runs(d: &[u64]) -> Vec<i64> {
    let end = d.iter().rposition(|&n| n > 0).map_or(0, |i| i + 1);
    let mut out = Vec::new();
    let mut zeros = 0i64;
    for &n in &d[..end] {
        if n == 0 {
            zeros += 1;
            continue;
        }
        if zeros > 0 {
            out.push(-zeros);
            zeros = 0;
        }
        out.push(i64::try_from(n).unwrap_or(i64::MAX));
    }
    out
}

/// A series in the page: `f32`, `nan` and `reduced` only where they are
/// not false or 0.
#[derive(Serialize)]
struct SeriesJson<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "is_false")]
    f32: bool,
    count: u64,
    #[serde(skip_serializing_if = "is_zero")]
    nan: u64,
    #[serde(skip_serializing_if = "is_false")]
    reduced: bool,
    t: Vec<i64>,
    v: Vec<Sample>,
}

impl<'a> SeriesJson<'a> {
    fn new(s: &'a Series, t0: i64) -> Self {
        SeriesJson {
            name: &s.name,
            f32: s.is_f32(),
            count: s.count,
            nan: s.nan,
            reduced: s.reduced,
            t: times(&s.points, t0, |p| p.0),
            v: s.points.iter().map(|p| Sample(p.1, s.kind)).collect(),
        }
    }
}

/// Points as three arrays: times, first and second coordinates (NaN and
/// infinities as `null`).
#[derive(Serialize)]
struct Points3 {
    t: Vec<i64>,
    a: Vec<f64>,
    b: Vec<f64>,
}

impl Points3 {
    fn new(pts: &[(i64, f64, f64)], t0: i64) -> Self {
        Points3 {
            t: times(pts, t0, |p| p.0),
            a: pts.iter().map(|p| p.1).collect(),
            b: pts.iter().map(|p| p.2).collect(),
        }
    }
}

/// A channel as listed: label, topic, type, count, first and last time.
#[derive(Serialize)]
struct Listing<'a> {
    label: &'a str,
    topic: &'a str,
    #[serde(rename = "type")]
    type_name: &'a str,
    count: u64,
    start: Option<i64>,
    end: Option<i64>,
}

/// A channel's data: `gaps`, `jumps` and `skipped` only where there are
/// some.
#[derive(Serialize)]
struct ChannelData<'a> {
    density: Vec<i64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    gaps: Vec<[i64; 2]>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    jumps: Vec<i64>,
    #[serde(rename = "skipped", skip_serializing_if = "is_zero")]
    fields_skipped: u64,
    series: Vec<SeriesJson<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    extra: Vec<SeriesJson<'a>>,
}

/// A channel in the page: its listing, then either its data or
/// `"omitted":true`.
#[derive(Serialize)]
struct ChannelJson<'a> {
    #[serde(flatten)]
    listing: Listing<'a>,
    #[serde(skip_serializing_if = "is_false")]
    omitted: bool,
    #[serde(flatten)]
    data: Option<ChannelData<'a>>,
}

/// A log's fields before its channels.
#[derive(Serialize)]
struct Head<'a> {
    name: &'a str,
    path: &'a str,
    format: &'a str,
    format_id: &'static str,
    version: &'a str,
    size: u64,
    start: i64,
    duration: i64,
    messages: u64,
    clock: &'a str,
    start_utc: Option<&'a str>,
    /// `start` less the log's first message time.
    offset: i64,
    /// The log's first to last message.
    log_duration: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    range: Option<RangeJson<'a>>,
    metadata: &'a [(String, String)],
    buckets: usize,
}

/// The range asked for: its ends in ns after the log's first message.
#[derive(Serialize)]
struct RangeJson<'a> {
    start: Option<i64>,
    end: Option<i64>,
    asked: &'a str,
    messages: u64,
}

/// A group of messages outside the span shown: ns from the log's
/// `start` (negative before it).
#[derive(Serialize)]
struct OutlierJson<'a> {
    start: i64,
    end: i64,
    count: u64,
    topics: &'a [String],
}

#[derive(Serialize)]
struct ProblemJson<'a> {
    t: Option<i64>,
    text: &'a str,
}

#[derive(Serialize)]
struct TrackJson {
    channel: usize,
    points: Points3,
}

/// A thumbnail in the page: its JPEG in base64.
#[derive(Serialize)]
struct ThumbJson {
    t: i64,
    w: u32,
    h: u32,
    src_w: u32,
    src_h: u32,
    jpeg: String,
}

#[derive(Serialize)]
struct StripJson {
    channel: usize,
    frames: Vec<ThumbJson>,
}

/// A cloud frame in the page: `x`, `y` and `c` as base64 of packed
/// little-endian `f32`s (`c` null without a colour field).
#[derive(Serialize)]
struct CloudFrameJson {
    t: i64,
    points: usize,
    shown: usize,
    x: String,
    y: String,
    c: Option<String>,
}

#[derive(Serialize)]
struct CloudJson<'a> {
    channel: usize,
    scan: bool,
    color: Option<&'a str>,
    frames: Vec<CloudFrameJson>,
}

/// `f32`s as base64 of their little-endian bytes.
fn f32_base64(v: &[f32]) -> String {
    let bytes: Vec<u8> = v.iter().flat_map(|f| f.to_le_bytes()).collect();
    base64(&bytes)
}

/// Standard base64 (RFC 4648, padded): only `A-Z a-z 0-9 + / =`, which
/// need no escaping anywhere in the page.
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= c.len() {
                out.push(char::from(ABC[(n >> (18 - 6 * k)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[derive(Serialize)]
struct PathJson<'a> {
    channel: usize,
    title: Option<&'a str>,
    points: Points3,
}

#[derive(Serialize)]
struct ObjectJson {
    id: i64,
    points: Points3,
}

#[derive(Serialize)]
struct SceneJson {
    channel: usize,
    objects: Vec<ObjectJson>,
}

#[derive(Serialize)]
struct BandJson<'a> {
    name: &'a str,
    spans: Vec<(i64, i64, &'a str)>,
}

#[derive(Serialize)]
struct EventJson<'a> {
    t: i64,
    level: &'a str,
    text: &'a str,
}

#[derive(Serialize)]
struct ParameterJson<'a> {
    name: &'a str,
    value: &'a str,
    default: Option<&'a str>,
    t: Option<i64>,
}

#[derive(Serialize)]
struct ParametersJson<'a> {
    note: &'a str,
    list: Vec<ParameterJson<'a>>,
}

#[derive(Serialize)]
struct PanelJson<'a> {
    title: &'a str,
    series: &'a [(usize, usize, String)],
    own: Vec<SeriesJson<'a>>,
}

/// A log's fields after its channels.
#[derive(Serialize)]
struct Tail<'a> {
    problems: Vec<ProblemJson<'a>>,
    problems_dropped: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    outliers: Vec<OutlierJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    align: Option<i64>,
    check_passed: Option<bool>,
    tracks: Vec<TrackJson>,
    paths: Vec<PathJson<'a>>,
    strips: Vec<StripJson>,
    clouds: Vec<CloudJson<'a>>,
    scenes: Vec<SceneJson>,
    bands: Vec<BandJson<'a>>,
    events: Vec<EventJson<'a>>,
    parameters: Option<ParametersJson<'a>>,
    panels: Vec<PanelJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    flight: Option<crate::px4::FlightJson<'a>>,
}

impl LogReport {
    /// The report of this log as one JSON object (see the module docs),
    /// as the page holds it (`<`, `>`, `&`, U+2028 and U+2029 inside
    /// strings `\u`-escaped).
    pub fn to_json(&self) -> String {
        let mut o = self.json_head();
        let channels: Vec<String> = (0..self.channels.len())
            .map(|i| self.channel_json(i, true))
            .collect();
        o.push('[');
        o.push_str(&channels.join(","));
        o.push(']');
        o.push_str(&self.json_tail());
        o
    }

    fn listing(&self, i: usize) -> Listing<'_> {
        let c = &self.channels[i];
        Listing {
            label: &c.label,
            topic: &c.topic,
            type_name: &c.type_name,
            count: c.message_count,
            start: c.start.map(|t| t - self.start),
            end: c.end.map(|t| t - self.start),
        }
    }

    /// The channel `i` as JSON: its listing, density, gaps, backward
    /// steps and series, and its extra series when `extra`.
    pub(crate) fn channel_json(&self, i: usize, extra: bool) -> String {
        let t0 = self.start;
        let c = &self.channels[i];
        page_json(&ChannelJson {
            listing: self.listing(i),
            omitted: false,
            data: Some(ChannelData {
                density: density_runs(&c.density),
                gaps: c.gaps.iter().map(|&(a, b)| [a - t0, b - t0]).collect(),
                jumps: times(&c.jumps, t0, |&t| t),
                fields_skipped: c.fields_skipped,
                series: c.series.iter().map(|s| SeriesJson::new(s, t0)).collect(),
                extra: if extra {
                    c.extra.iter().map(|s| SeriesJson::new(s, t0)).collect()
                } else {
                    Vec::new()
                },
            }),
        })
    }

    /// The channel `i` as listed only (label, topic, type, count, first
    /// and last time), for a page over its size budget: marked
    /// `"omitted":true`.
    pub(crate) fn channel_stub(&self, i: usize) -> String {
        page_json(&ChannelJson {
            listing: self.listing(i),
            omitted: true,
            data: None,
        })
    }

    /// The JSON object up to its channel list (`..."channels":`).
    pub(crate) fn json_head(&self) -> String {
        let mut o = page_json(&Head {
            name: &self.name,
            path: &self.path,
            format: &self.format,
            format_id: self.format_id.name(),
            version: &self.version,
            size: self.size,
            start: self.start,
            duration: self.end - self.start,
            messages: self.message_count,
            clock: &self.clock,
            start_utc: self.start_utc.as_deref(),
            offset: self.start - self.log_start,
            log_duration: self.log_end - self.log_start,
            range: self.range.as_ref().map(|r| RangeJson {
                start: r.start.map(|t| t.saturating_sub(self.log_start)),
                end: r.end.map(|t| t.saturating_sub(self.log_start)),
                asked: &r.asked,
                messages: r.messages,
            }),
            metadata: &self.metadata,
            buckets: crate::TIMELINE_BUCKETS,
        });
        o.pop();
        o.push_str(",\"channels\":");
        o
    }

    /// The JSON object after its channel list (`,"problems":...}`).
    pub(crate) fn json_tail(&self) -> String {
        let t0 = self.start;
        let tail = Tail {
            problems: (self.problems.iter())
                .map(|p| ProblemJson {
                    t: p.t.map(|t| t - t0),
                    text: &p.text,
                })
                .collect(),
            problems_dropped: self.problems_dropped,
            outliers: (self.outliers.iter())
                .map(|o| OutlierJson {
                    start: o.start - t0,
                    end: o.end - t0,
                    count: o.count,
                    topics: &o.topics,
                })
                .collect(),
            align: self.align.map(|t| t - t0),
            check_passed: self.check_passed,
            tracks: (self.tracks.iter())
                .map(|tr| TrackJson {
                    channel: tr.channel,
                    points: Points3::new(&tr.points, t0),
                })
                .collect(),
            paths: (self.paths.iter())
                .map(|p| PathJson {
                    channel: p.channel,
                    title: p.title.as_deref(),
                    points: Points3::new(&p.points, t0),
                })
                .collect(),
            strips: (self.strips.iter())
                .map(|s| StripJson {
                    channel: s.channel,
                    frames: (s.frames.iter())
                        .map(|f| ThumbJson {
                            t: f.t - t0,
                            w: f.width,
                            h: f.height,
                            src_w: f.source_width,
                            src_h: f.source_height,
                            jpeg: base64(&f.jpeg),
                        })
                        .collect(),
                })
                .collect(),
            clouds: (self.clouds.iter())
                .map(|v| CloudJson {
                    channel: v.channel,
                    scan: v.scan,
                    color: v.color.as_deref(),
                    frames: (v.frames.iter())
                        .map(|f| CloudFrameJson {
                            t: f.t - t0,
                            points: f.points,
                            shown: f.x.len(),
                            x: f32_base64(&f.x),
                            y: f32_base64(&f.y),
                            c: (!f.c.is_empty()).then(|| f32_base64(&f.c)),
                        })
                        .collect(),
                })
                .collect(),
            scenes: (self.scenes.iter())
                .map(|s| SceneJson {
                    channel: s.channel,
                    objects: (s.objects.iter())
                        .map(|ob| ObjectJson {
                            id: ob.id,
                            points: Points3::new(&ob.points, t0),
                        })
                        .collect(),
                })
                .collect(),
            bands: (self.bands.iter())
                .map(|b| BandJson {
                    name: &b.name,
                    spans: (b.spans.iter())
                        .map(|(a, e, l)| (a - t0, e - t0, l.as_str()))
                        .collect(),
                })
                .collect(),
            events: (self.events.iter())
                .map(|e| EventJson {
                    t: e.t - t0,
                    level: &e.level,
                    text: &e.text,
                })
                .collect(),
            parameters: self.parameters.as_ref().map(|(note, ps)| ParametersJson {
                note,
                list: (ps.iter())
                    .map(|p| ParameterJson {
                        name: &p.name,
                        value: &p.value,
                        default: p.default.as_deref(),
                        t: p.t.map(|t| t - t0),
                    })
                    .collect(),
            }),
            panels: (self.panels.iter())
                .map(|p| PanelJson {
                    title: &p.title,
                    series: &p.series,
                    own: p.own.iter().map(|s| SeriesJson::new(s, t0)).collect(),
                })
                .collect(),
            flight: self.flight.as_ref().map(|f| f.json(t0)),
        };
        let mut o = page_json(&tail);
        o.replace_range(..1, ",");
        o
    }

    /// The channels that tracks, paths, scenes and panels draw.
    pub(crate) fn drawn_channels(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .tracks
            .iter()
            .map(|t| t.channel)
            .chain(self.paths.iter().map(|p| p.channel))
            .chain(self.strips.iter().map(|s| s.channel))
            .chain(self.clouds.iter().map(|c| c.channel))
            .chain(self.scenes.iter().map(|s| s.channel))
            .chain(
                self.panels
                    .iter()
                    .flat_map(|p| p.series.iter().map(|s| s.0)),
            )
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// How many points the report's plotted series hold.
    pub fn points(&self) -> usize {
        self.channels
            .iter()
            .flat_map(|c| &c.series)
            .map(|s| s.points.len())
            .sum()
    }

    /// How many points the report's extra series hold (the fields not
    /// plotted at load, [`Channel::extra`]).
    pub fn extra_points(&self) -> usize {
        self.channels
            .iter()
            .flat_map(|c| &c.extra)
            .map(|s| s.points.len())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_back_exactly() {
        let v = |v, kind| page_json(&Sample(v, kind));
        assert_eq!(v(f64::from(0.1f32), Kind::F32), "0.1");
        assert_eq!(v(0.1, Kind::F64), "0.1");
        assert_eq!(v(1e-30, Kind::F64), "1e-30");
        // Rust's shortest text, not serde_json's own (`0.00001`).
        assert_eq!(v(1e-5, Kind::F64), "1e-5");
        assert_eq!(v(f64::NAN, Kind::F64), "null");
        assert_eq!(v(f64::INFINITY, Kind::F32), "\"Infinity\"");
        assert_eq!(v(f64::NEG_INFINITY, Kind::F64), "\"-Infinity\"");
        assert_eq!(
            page_json(&Points3::new(&[(5, f64::INFINITY, 2.0)], 1)),
            r#"{"t":[4],"a":[null],"b":[2.0]}"#
        );
    }

    #[test]
    fn strings_cannot_end_the_script() {
        assert_eq!(
            page_json(&"a</b>&\u{2028}\u{2029}\"é"),
            r#""a\u003c/b\u003e\u0026\u2028\u2029\"é""#
        );
    }

    #[test]
    fn base64_as_the_rfc_has_it() {
        // RFC 4648, section 10.
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, coded) in cases {
            assert_eq!(base64(plain.as_bytes()), coded);
        }
        assert_eq!(base64(&[0xff, 0xfe, 0xfd]), "//79");
    }

    #[test]
    fn density_as_runs() {
        assert_eq!(density_runs(&[0, 0, 3, 0, 1, 0, 0]), [-2, 3, -1, 1]);
        assert!(density_runs(&[0, 0]).is_empty());
    }

    fn small_report() -> LogReport {
        let series = Series {
            name: "a.b[1]".into(),
            kind: Kind::F32,
            count: 4,
            nan: 1,
            reduced: true,
            points: vec![
                (1_100, 0.1f32.into()),
                (1_200, f64::INFINITY),
                (1_300, f64::NAN),
            ],
        };
        LogReport {
            name: "x<y>.bag".into(),
            path: "/p/x<y>.bag".into(),
            format: "ROS 1 bag".into(),
            format_id: logcore::Format::RosBag,
            version: "2.0".into(),
            size: 10,
            clock: "unix".into(),
            start: 1_000,
            end: 4_000,
            start_utc: None,
            log_start: 1_000,
            log_end: 4_000,
            outliers: Vec::new(),
            align: None,
            range: None,
            message_count: 3,
            metadata: vec![("k".into(), "v&w".into())],
            channels: vec![Channel {
                label: "/t".into(),
                topic: "/t".into(),
                type_name: "m/T".into(),
                message_count: 3,
                start: Some(1_100),
                end: None,
                density: vec![0, 0, 2, 0, 1, 0],
                gaps: vec![(1_500, 2_500)],
                jumps: vec![],
                series: vec![
                    series.clone(),
                    Series::from_points("c", vec![(2_000, 1e-5)]),
                ],
                extra: vec![],
                fields_skipped: 2,
            }],
            problems: vec![Problem {
                t: Some(3_000),
                text: "late".into(),
            }],
            problems_dropped: 0,
            check_passed: Some(true),
            tracks: vec![],
            strips: vec![],
            clouds: vec![],
            paths: vec![Path {
                channel: 0,
                points: vec![(1_000, 1.0, f64::NAN)],
                title: None,
            }],
            scenes: vec![],
            bands: vec![Band {
                name: "mode".into(),
                spans: vec![(1_000, 2_000, "a".into())],
            }],
            events: vec![],
            parameters: Some((
                "changed".into(),
                vec![Parameter {
                    name: "P".into(),
                    value: "1".into(),
                    default: None,
                    t: None,
                }],
            )),
            panels: vec![Panel {
                title: "p".into(),
                series: vec![(0, 1, "c".into())],
                own: vec![],
            }],
            flight: None,
        }
    }

    #[test]
    fn the_page_json_keeps_its_shape() {
        let r = small_report();
        assert_eq!(
            r.to_json(),
            concat!(
                r#"{"name":"x\u003cy\u003e.bag","path":"/p/x\u003cy\u003e.bag","format":"ROS 1 bag","format_id":"rosbag","#,
                r#""version":"2.0","size":10,"start":1000,"duration":3000,"messages":3,"#,
                r#""clock":"unix","start_utc":null,"offset":0,"log_duration":3000,"#,
                r#""metadata":[["k","v\u0026w"]],"buckets":"#,
                "400",
                r#","channels":[{"label":"/t","topic":"/t","type":"m/T","count":3,"start":100,"#,
                r#""end":null,"density":[-2,2,-1,1],"gaps":[[500,1500]],"skipped":2,"#,
                r#""series":[{"name":"a.b[1]","f32":true,"count":4,"nan":1,"reduced":true,"#,
                r#""t":[100,200,300],"v":[0.1,"Infinity",null]},"#,
                r#"{"name":"c","count":1,"t":[1000],"v":[1e-5]}]}],"#,
                r#""problems":[{"t":2000,"text":"late"}],"problems_dropped":0,"check_passed":true,"#,
                r#""tracks":[],"paths":[{"channel":0,"title":null,"points":{"t":[0],"a":[1.0],"b":[null]}}],"#,
                r#""strips":[],"clouds":[],"scenes":[],"bands":[{"name":"mode","spans":[[0,1000,"a"]]}],"events":[],"#,
                r#""parameters":{"note":"changed","list":[{"name":"P","value":"1","default":null,"t":null}]},"#,
                r#""panels":[{"title":"p","series":[[0,1,"c"]],"own":[]}]}"#
            )
        );
        assert_eq!(
            r.channel_stub(0),
            r#"{"label":"/t","topic":"/t","type":"m/T","count":3,"start":100,"end":null,"omitted":true}"#
        );
    }
}
