//! What a report holds, log by log, and how it is written into the page
//! as JSON: times are integer nanoseconds from the log's first message (so
//! several logs overlay aligned by their start), `float32` values are
//! written as the shortest text that reads back as the same `f32`, others
//! as the shortest that reads back as the same `f64`.

use std::fmt::Write as _;

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
    /// The format version the file states.
    pub version: String,
    /// Size in bytes.
    pub size: u64,
    /// The log's clock (`boot`, `unix`, ...).
    pub clock: String,
    /// Time of the first message, ns on the log's clock.
    pub start: i64,
    /// Time of the last message, ns on the log's clock.
    pub end: i64,
    /// The first message's time in UTC (RFC 3339), where the clock is
    /// anchored to UTC.
    pub start_utc: Option<String>,
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
    /// Objects seen from above over time (CARLA actors, OSI objects).
    pub scenes: Vec<Scene>,
    /// Coloured spans over the time axes (a PX4 flight's modes).
    pub bands: Vec<Band>,
    /// Text messages the log carries (PX4's logged messages), by time.
    pub events: Vec<Event>,
    /// Parameters worth a look (PX4: the non-default ones, or the changed
    /// ones when the log has no defaults), with a note saying which.
    pub parameters: Option<(String, Vec<Parameter>)>,
    /// Panels of chosen series across channels (a flight's altitude,
    /// attitude against setpoint, ...).
    pub panels: Vec<Panel>,
}

/// A channel and its plotted series.
#[derive(Debug, Clone)]
pub struct Channel {
    /// Its name in the report: the topic, numbered where topics repeat.
    pub label: String,
    /// The topic.
    pub topic: String,
    /// The message type.
    pub type_name: String,
    /// Messages on it (as the log's summary counts them).
    pub message_count: u64,
    /// First message time.
    pub start: Option<i64>,
    /// Last message time.
    pub end: Option<i64>,
    /// Messages per timeline bucket (the log's span in
    /// [`TIMELINE_BUCKETS`](crate::TIMELINE_BUCKETS) equal parts).
    pub density: Vec<u64>,
    /// Spans with no message, longer than ten mean periods and a second.
    pub gaps: Vec<(i64, i64)>,
    /// Times at which the channel's time went backwards.
    pub jumps: Vec<i64>,
    /// The numeric fields, reduced.
    pub series: Vec<Series>,
    /// Values of fields beyond the per-channel limit, not plotted.
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

/// Appends a JSON string.
pub(crate) fn string(out: &mut String, s: &str) {
    out.push_str(&serde_json::Value::from(s).to_string());
}

/// Appends a JSON number: the shortest text that reads back as the same
/// value (as `f32` for [`Kind::F32`]), `null` for NaN and infinities.
pub(crate) fn number(out: &mut String, v: f64, kind: Kind) {
    if !v.is_finite() {
        out.push_str("null");
    } else if kind == Kind::F32 {
        let _ = write!(out, "{:?}", v as f32);
    } else {
        let _ = write!(out, "{v:?}");
    }
}

/// Appends a series value: as [`number`], but infinities as the strings
/// `"Infinity"` and `"-Infinity"` (JSON has no number for them), so the
/// page can mark them.
fn value(out: &mut String, v: f64, kind: Kind) {
    if v == f64::INFINITY {
        out.push_str("\"Infinity\"");
    } else if v == f64::NEG_INFINITY {
        out.push_str("\"-Infinity\"");
    } else {
        number(out, v, kind);
    }
}

/// Appends messages per timeline bucket: a run of `k` empty buckets as
/// `-k`, the empty buckets at the end left out.
fn density(out: &mut String, d: &[u64]) {
    let end = d.iter().rposition(|&n| n > 0).map_or(0, |i| i + 1);
    out.push('[');
    let mut zeros = 0u64;
    let mut first = true;
    for &n in &d[..end] {
        if n == 0 {
            zeros += 1;
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        if zeros > 0 {
            let _ = write!(out, "-{zeros},");
            zeros = 0;
        }
        let _ = write!(out, "{n}");
    }
    out.push(']');
}

fn opt_i64(out: &mut String, v: Option<i64>, t0: i64) {
    match v {
        Some(v) => {
            let _ = write!(out, "{}", v - t0);
        }
        None => out.push_str("null"),
    }
}

fn list<T>(out: &mut String, items: &[T], mut each: impl FnMut(&mut String, &T)) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        each(out, item);
    }
    out.push(']');
}

fn series(o: &mut String, s: &Series, t0: i64) {
    o.push_str("{\"name\":");
    string(o, &s.name);
    // `f32`, `nan` and `reduced` only where they are not false or 0.
    if s.is_f32() {
        o.push_str(",\"f32\":true");
    }
    let _ = write!(o, ",\"count\":{}", s.count);
    if s.nan > 0 {
        let _ = write!(o, ",\"nan\":{}", s.nan);
    }
    if s.reduced {
        o.push_str(",\"reduced\":true");
    }
    o.push_str(",\"t\":");
    list(o, &s.points, |o, p| {
        let _ = write!(o, "{}", p.0 - t0);
    });
    o.push_str(",\"v\":");
    list(o, &s.points, |o, p| value(o, p.1, s.kind));
    o.push('}');
}

fn points3(out: &mut String, pts: &[(i64, f64, f64)], t0: i64) {
    // Three arrays: times, first and second coordinates.
    out.push_str("{\"t\":");
    list(out, pts, |o, p| {
        let _ = write!(o, "{}", p.0 - t0);
    });
    out.push_str(",\"a\":");
    list(out, pts, |o, p| number(o, p.1, Kind::F64));
    out.push_str(",\"b\":");
    list(out, pts, |o, p| number(o, p.2, Kind::F64));
    out.push('}');
}

impl LogReport {
    /// The report of this log as one JSON object (see the module docs).
    pub fn to_json(&self) -> String {
        let mut o = self.json_head();
        let channels: Vec<String> = (0..self.channels.len())
            .map(|i| self.channel_json(i))
            .collect();
        o.push('[');
        o.push_str(&channels.join(","));
        o.push(']');
        o.push_str(&self.json_tail());
        o
    }

    /// The channel `i` as JSON: its listing, density, gaps, backward
    /// steps and series.
    pub(crate) fn channel_json(&self, i: usize) -> String {
        let t0 = self.start;
        let c = &self.channels[i];
        let mut o = self.channel_stub(i);
        o.pop();
        o.push_str(",\"density\":");
        density(&mut o, &c.density);
        // `gaps`, `jumps` and `skipped` only where there are some.
        if !c.gaps.is_empty() {
            o.push_str(",\"gaps\":");
            list(&mut o, &c.gaps, |o, (a, b)| {
                let _ = write!(o, "[{},{}]", a - t0, b - t0);
            });
        }
        if !c.jumps.is_empty() {
            o.push_str(",\"jumps\":");
            list(&mut o, &c.jumps, |o, t| {
                let _ = write!(o, "{}", t - t0);
            });
        }
        if c.fields_skipped > 0 {
            let _ = write!(o, ",\"skipped\":{}", c.fields_skipped);
        }
        o.push_str(",\"series\":");
        list(&mut o, &c.series, |o, s| series(o, s, t0));
        o.push('}');
        o
    }

    /// The channel `i` as listed only (label, topic, type, count, first
    /// and last time), for a page over its size budget: marked
    /// `"omitted":true`.
    pub(crate) fn channel_stub(&self, i: usize) -> String {
        let t0 = self.start;
        let c = &self.channels[i];
        let mut o = String::from("{\"label\":");
        string(&mut o, &c.label);
        o.push_str(",\"topic\":");
        string(&mut o, &c.topic);
        o.push_str(",\"type\":");
        string(&mut o, &c.type_name);
        let _ = write!(o, ",\"count\":{},\"start\":", c.message_count);
        opt_i64(&mut o, c.start, t0);
        o.push_str(",\"end\":");
        opt_i64(&mut o, c.end, t0);
        o.push('}');
        o
    }

    /// The JSON object up to its channel list (`..."channels":`).
    pub(crate) fn json_head(&self) -> String {
        let mut o = String::new();
        o.push_str("{\"name\":");
        string(&mut o, &self.name);
        o.push_str(",\"path\":");
        string(&mut o, &self.path);
        o.push_str(",\"format\":");
        string(&mut o, &self.format);
        o.push_str(",\"version\":");
        string(&mut o, &self.version);
        let _ = write!(
            o,
            ",\"size\":{},\"start\":{},\"duration\":{},\"messages\":{},\"clock\":",
            self.size,
            self.start,
            self.end - self.start,
            self.message_count
        );
        string(&mut o, &self.clock);
        o.push_str(",\"start_utc\":");
        match &self.start_utc {
            Some(s) => string(&mut o, s),
            None => o.push_str("null"),
        }
        o.push_str(",\"metadata\":");
        list(&mut o, &self.metadata, |o, (k, v)| {
            o.push('[');
            string(o, k);
            o.push(',');
            string(o, v);
            o.push(']');
        });
        let _ = write!(o, ",\"buckets\":{},\"channels\":", crate::TIMELINE_BUCKETS);
        o
    }

    /// The JSON object after its channel list (`,"problems":...}`).
    pub(crate) fn json_tail(&self) -> String {
        let t0 = self.start;
        let mut o = String::new();
        o.push_str(",\"problems\":");
        list(&mut o, &self.problems, |o, p| {
            o.push_str("{\"t\":");
            opt_i64(o, p.t, t0);
            o.push_str(",\"text\":");
            string(o, &p.text);
            o.push('}');
        });
        let _ = write!(o, ",\"problems_dropped\":{}", self.problems_dropped);
        o.push_str(",\"check_passed\":");
        o.push_str(match self.check_passed {
            Some(true) => "true",
            Some(false) => "false",
            None => "null",
        });
        o.push_str(",\"tracks\":");
        list(&mut o, &self.tracks, |o, tr| {
            let _ = write!(o, "{{\"channel\":{},\"points\":", tr.channel);
            points3(o, &tr.points, t0);
            o.push('}');
        });
        o.push_str(",\"paths\":");
        list(&mut o, &self.paths, |o, p| {
            let _ = write!(o, "{{\"channel\":{},\"title\":", p.channel);
            match &p.title {
                Some(t) => string(o, t),
                None => o.push_str("null"),
            }
            o.push_str(",\"points\":");
            points3(o, &p.points, t0);
            o.push('}');
        });
        o.push_str(",\"scenes\":");
        list(&mut o, &self.scenes, |o, s| {
            let _ = write!(o, "{{\"channel\":{},\"objects\":", s.channel);
            list(o, &s.objects, |o, ob| {
                let _ = write!(o, "{{\"id\":{},\"points\":", ob.id);
                points3(o, &ob.points, t0);
                o.push('}');
            });
            o.push('}');
        });
        o.push_str(",\"bands\":");
        list(&mut o, &self.bands, |o, b| {
            o.push_str("{\"name\":");
            string(o, &b.name);
            o.push_str(",\"spans\":");
            list(o, &b.spans, |o, (a, e, l)| {
                let _ = write!(o, "[{},{},", a - t0, e - t0);
                string(o, l);
                o.push(']');
            });
            o.push('}');
        });
        o.push_str(",\"events\":");
        list(&mut o, &self.events, |o, e| {
            let _ = write!(o, "{{\"t\":{},\"level\":", e.t - t0);
            string(o, &e.level);
            o.push_str(",\"text\":");
            string(o, &e.text);
            o.push('}');
        });
        o.push_str(",\"parameters\":");
        match &self.parameters {
            None => o.push_str("null"),
            Some((note, ps)) => {
                o.push_str("{\"note\":");
                string(&mut o, note);
                o.push_str(",\"list\":");
                list(&mut o, ps, |o, p| {
                    o.push_str("{\"name\":");
                    string(o, &p.name);
                    o.push_str(",\"value\":");
                    string(o, &p.value);
                    o.push_str(",\"default\":");
                    match &p.default {
                        Some(d) => string(o, d),
                        None => o.push_str("null"),
                    }
                    o.push_str(",\"t\":");
                    opt_i64(o, p.t, t0);
                    o.push('}');
                });
                o.push('}');
            }
        }
        o.push_str(",\"panels\":");
        list(&mut o, &self.panels, |o, p| {
            o.push_str("{\"title\":");
            string(o, &p.title);
            o.push_str(",\"series\":");
            list(o, &p.series, |o, (c, s, l)| {
                let _ = write!(o, "[{c},{s},");
                string(o, l);
                o.push(']');
            });
            o.push_str(",\"own\":");
            list(o, &p.own, |o, s| series(o, s, t0));
            o.push('}');
        });
        o.push('}');
        o
    }

    /// The channels that tracks, paths, scenes and panels draw.
    pub(crate) fn drawn_channels(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .tracks
            .iter()
            .map(|t| t.channel)
            .chain(self.paths.iter().map(|p| p.channel))
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

    /// How many points the report's series hold.
    pub fn points(&self) -> usize {
        self.channels
            .iter()
            .flat_map(|c| &c.series)
            .map(|s| s.points.len())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_back_exactly() {
        let mut o = String::new();
        number(&mut o, f64::from(0.1f32), Kind::F32);
        assert_eq!(o, "0.1");
        o.clear();
        number(&mut o, 0.1, Kind::F64);
        assert_eq!(o, "0.1");
        o.clear();
        number(&mut o, 1e-30, Kind::F64);
        assert_eq!(o.parse::<f64>().unwrap(), 1e-30);
        o.clear();
        number(&mut o, f64::NAN, Kind::F64);
        assert_eq!(o, "null");
    }
}
