//! One self-contained HTML page per run that shows robotics logs of any
//! format robolog reads (ROS 1 and ROS 2 bags, MCAP, PX4 ULog, CARLA
//! recordings, VEL logs): an overview, a timeline of every channel's
//! message density with gaps, time jumps and problems marked, plots of the
//! numeric fields with linked zoom and pan, tracks, paths and top-down
//! scenes, and what each kind of log is looked at for (a PX4 flight's
//! modes, messages, parameters and the panels Flight Review shows).
//!
//! [`ReportOptions::start`] and [`ReportOptions::end`] show only part of
//! each log: the messages in that range, on a timeline of its span (see
//! [`LogReport::range`]).
//!
//! The page needs no network and no server: its script, style and data
//! are inline. Series are reduced in Rust before they go into the page
//! (min/max per pixel column, exact at the extremes: see
//! [`ReportOptions::max_points`]), so a large log gives a page of a few
//! megabytes.
//!
//! ```
//! use robolog_report::{ReportOptions, report_log, write_html};
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/vellog/sensors.vel");
//! let log = robolog::open(path)?;
//! let report = report_log(&log, path.as_ref(), &ReportOptions::default())?;
//! assert_eq!(report.channels.len(), 8);
//! let obd = report.channels.iter().find(|c| c.topic == "OBDDataM").unwrap();
//! let speed = obd.series.iter().find(|s| s.name == "speed_kmh").unwrap();
//! assert_eq!(speed.points[0].1, 42.0); // as `robolog cat` prints it
//! let mut page = Vec::new();
//! write_html(&[report], "sensors.vel", &mut page)?;
//! assert!(String::from_utf8(page)?.starts_with("<!DOCTYPE html>"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod carla;
mod collect;
mod html;
mod model;
mod px4;
mod reduce;
mod sensors;
pub mod span;
mod text;

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use logcore::{Error, LogReader as _};
use robolog::Log;

pub use html::{PAGE_BUDGET, data_json, write_html, write_html_within};
pub use logcore::timearg::TimeArg;
pub use model::{
    Band, Channel, CloudFrame, CloudView, Event, LogReport, Outlier, Panel, Parameter,
    Path as XyPath, Problem, Range, Scene, SceneObject, Series, Strip, Thumbnail, Track,
};
pub use px4::{Flight, FlightSummary, Spectrogram, Spectrum};
pub use sensors::{
    MAX_CLOUD_FRAMES, MAX_CLOUD_POINTS, MAX_CLOUD_VIEW_BYTES, MAX_THUMBNAIL_BYTES, MAX_THUMBNAILS,
    MAX_TRACK_FIXES, ONE_PASS_BYTES, THUMBNAIL_QUALITY, THUMBNAIL_SIDE,
};
pub use text::MAX_TEXT_MESSAGES;

/// Bytes of page data all sensor views of a page share at most (see
/// [`ReportOptions::sensor_budget`]).
pub const SENSOR_BUDGET: usize = 4_000_000;

/// Length of the base64 text of `n` bytes.
pub(crate) const fn base64_len(n: usize) -> usize {
    n.div_ceil(3) * 4
}

/// Equal parts of a log's time span in its timeline.
pub const TIMELINE_BUCKETS: usize = 400;

/// How a report is made.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// Points per series at most: a series with more is reduced to the
    /// smallest and largest value of each of `max_points / 2` equal parts
    /// of the log's span (the pixel columns of a plot). Default 1000.
    pub max_points: usize,
    /// Points in the whole report at most: when the series hold more,
    /// the largest are reduced further by the same rule. Default 400,000
    /// (a page of about 6 MB).
    pub budget: usize,
    /// Series per channel at most (the first fields met). Default 64.
    pub max_fields: usize,
    /// Only these topics (empty: every one).
    pub topics: Vec<String>,
    /// Only these fields (paths such as `accel[0]` or `pose.position`,
    /// which take the fields inside; empty: every numeric field).
    pub fields: Vec<String>,
    /// Also run `robolog check` and list what it finds. Default true.
    pub check: bool,
    /// The limits the logs are opened and checked with.
    pub limits: robolog::Limits,
    /// Bytes of the page at most, whatever the logs: past it, channels
    /// are listed without their data. Default [`PAGE_BUDGET`].
    pub page_budget: usize,
    /// Show only the messages at or after this time (`None`: from the
    /// log's first message). Resolved on each log by itself: a time after
    /// the first message counts from that log's first message; a UTC
    /// instant needs a log whose clock is UTC or anchored to it (else the
    /// report of that log fails, [`ReportError::Time`]).
    pub start: Option<TimeArg>,
    /// Show only the messages before this time (exclusive; `None`: to the
    /// log's last message). Resolved as [`start`](Self::start).
    pub end: Option<TimeArg>,
    /// Bytes of page data the sensor views of a log share at most
    /// (thumbnails of camera topics, top-down views of clouds and scans);
    /// 0 leaves them out. [`write_report`] gives each of its logs an equal
    /// part of this, and at most half the [`page_budget`](Self::page_budget).
    /// Default [`SENSOR_BUDGET`].
    pub sensor_budget: usize,
    /// The topic whose first message is time 0 of a log's plots (`None`:
    /// its start): on a page of several logs, their plots overlay aligned
    /// at that event. A log without a message on it counts from its start,
    /// with a problem saying so. See [`LogReport::align`].
    pub align: Option<String>,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            max_points: 1000,
            budget: 400_000,
            max_fields: 64,
            topics: Vec::new(),
            fields: Vec::new(),
            check: true,
            limits: robolog::Limits::default(),
            page_budget: PAGE_BUDGET,
            start: None,
            end: None,
            sensor_budget: SENSOR_BUDGET,
            align: None,
        }
    }
}

/// Why a log's report was not made.
enum Failed {
    /// The log could not be read.
    Log(Error),
    /// `start` or `end` has no instant on the log's clock.
    Time(String),
}

impl From<Error> for Failed {
    fn from(e: Error) -> Self {
        Failed::Log(e)
    }
}

/// The report of one opened log, read from `path` (which names it, and
/// which `robolog check` reads when [`ReportOptions::check`] is set).
///
/// With [`ReportOptions::start`] or [`ReportOptions::end`], only the
/// messages in that range are read and shown (see [`LogReport::range`]);
/// a range this log's clock cannot place (a UTC instant on a clock not
/// anchored to UTC) is an [`Error`] of kind invalid argument.
pub fn report_log(log: &Log<'_>, path: &Path, opts: &ReportOptions) -> Result<LogReport, Error> {
    report_of(log, path, opts).map_err(|e| match e {
        Failed::Log(e) => e,
        Failed::Time(m) => Error::invalid_argument(m),
    })
}

/// The time range of `opts` on the clock of the log of `summary`: the
/// first instant shown and the first one past it, each `None` where not
/// given.
fn resolve_range(
    summary: &logcore::Summary,
    opts: &ReportOptions,
) -> Result<(Option<i64>, Option<i64>), String> {
    let resolve = |t: Option<TimeArg>, which: &str| {
        t.map(|t| {
            t.resolve(summary.start, &summary.time_model)
                .map(logcore::Timestamp::as_nanos)
                .map_err(|e| format!("{which}: {e}"))
        })
        .transpose()
    };
    Ok((resolve(opts.start, "start")?, resolve(opts.end, "end")?))
}

/// A time argument as text: `2.5 s after the first message`, `@12.5 on
/// the boot clock`, `2019-05-13T14:09:15Z`.
fn describe(t: TimeArg, clock: &str) -> String {
    match t {
        TimeArg::AfterFirst(ns) => format!("{} after the first message", seconds(ns)),
        TimeArg::OnClock(t) => format!("@{} on the {clock} clock", seconds(t.as_nanos())),
        TimeArg::Utc(t) => logcore::time::format_unix(t)
            .unwrap_or_else(|| format!("{} since 1970 (UTC)", seconds(t.as_nanos()))),
    }
}

/// Nanoseconds as decimal seconds, without trailing zeros: `2.5 s`.
fn seconds(ns: i64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let a = ns.unsigned_abs();
    let frac = format!("{:09}", a % 1_000_000_000);
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        format!("{sign}{} s", a / 1_000_000_000)
    } else {
        format!("{sign}{}.{frac} s", a / 1_000_000_000)
    }
}

fn report_of(log: &Log<'_>, path: &Path, opts: &ReportOptions) -> Result<LogReport, Failed> {
    let summary = log.summary()?;
    let log_start = summary.start.map_or(0, |t| t.as_nanos());
    let log_end = summary
        .end
        .map_or(log_start, |t| t.as_nanos())
        .max(log_start);
    let ranged = opts.start.is_some() || opts.end.is_some();
    let (from, until) = resolve_range(&summary, opts).map_err(Failed::Time)?;
    // The span shown: the range within the log's.
    let start = from.map_or(log_start, |f| f.max(log_start));
    let end = until.map_or(log_end, |u| u.min(log_end)).max(start);
    let within = |t: i64| from.is_none_or(|f| t >= f) && until.is_none_or(|u| t < u);
    // `robolog check` reads the log a second time: on another core, over
    // the same bytes, while this thread collects.
    let check_opts = robolog::CheckOptions {
        limits: opts.limits,
        ..robolog::CheckOptions::default()
    };
    let bytes = log.bytes();
    let folder = summary.format == logcore::Format::Rosbag2;
    let (collected, checked) = std::thread::scope(|scope| {
        let check = opts.check.then(|| {
            scope.spawn(|| {
                let checked = if folder {
                    robolog::check_path(path, &check_opts)
                } else {
                    robolog::check(bytes, &check_opts)
                };
                checked
                    .map(|c| (c.passed(), c.errors()))
                    .map_err(|e| e.to_string())
            })
        });
        let first = collect::collect(log, start, end, (from, until), opts, &[]);
        // The span shown is where the bulk of the messages lie (see
        // `span`): with messages far outside it, the log is read again,
        // its timeline and series over that span.
        let (collected, bulk) = match first.as_ref().ok().and_then(|c| c.times.bulk()) {
            // Every outlier stamped outside the span read (a ULog topic's
            // stale timestamp before the header's start): the pass
            // stands over that span, less the outliers.
            Some(b) if b.outside_only => {
                let mut c = first;
                if let Ok(c) = &mut c {
                    c.drop_outliers(&b);
                }
                (c, Some(span::Bulk { start, end, ..b }))
            }
            Some(b) => (
                collect::collect(log, b.start, b.end, (from, until), opts, &b.outliers),
                Some(b),
            ),
            None => (first, None),
        };
        let (start, end) = bulk.as_ref().map_or((start, end), |b| (b.start, b.end));
        // The sensor views read their topics' chosen messages, after the
        // pass that gives each topic's span in the range.
        let views = collected.as_ref().ok().map(|c| {
            sensors::views(
                log,
                &c.channels,
                (start, end),
                opts,
                opts.sensor_budget.min(opts.page_budget / 2),
            )
        });
        let checked = check.map(|h| {
            h.join()
                .unwrap_or_else(|_| Err("the check stopped unexpectedly".to_string()))
        });
        (
            collected.map(|c| (c, views.unwrap_or_default(), bulk)),
            checked,
        )
    });
    let (mut collected, views, bulk) = collected.map_err(|e| match e {
        robolog_arrow::Error::Log(e) => e,
        e => Error::invalid_argument(e.to_string()),
    })?;
    let (start, end) = bulk.as_ref().map_or((start, end), |b| (b.start, b.end));
    let outliers = bulk.map_or_else(Vec::new, |b| {
        (b.outliers.iter().zip(&collected.outlier_channels))
            .map(|(g, chs)| Outlier {
                start: g.start,
                end: g.end,
                count: g.count,
                topics: chs
                    .iter()
                    .map(|&c| collected.channels[c].label.clone())
                    .collect(),
            })
            .collect()
    });
    // A topic with a view of its own: a camera's or cloud's layout
    // (height, width, point_step, a scan's angles) is no longer plotted,
    // and a position topic's track is robolog-sensors' (drawn once).
    for &c in &views.own_view {
        let ch = &mut collected.channels[c];
        ch.series.clear();
        ch.extra.clear();
        ch.fields_skipped = 0;
    }
    collected
        .tracks
        .retain(|t| !views.tracks.iter().any(|v| v.channel == t.channel));
    collected.tracks.extend(views.tracks);
    // Text topics (ROS log messages, diagnostics) are the log's messages,
    // in the table and on the timeline: their numbers (a level, a source
    // line) are not plotted.
    let mut text_problems = Vec::new();
    let text_events = text::events(log, &collected.channels, (from, until), &mut text_problems);
    for ch in collected
        .channels
        .iter_mut()
        .filter(|c| text::is_text(&c.type_name))
    {
        ch.series.clear();
        ch.extra.clear();
        ch.fields_skipped = 0;
    }
    collected.tracks.sort_by_key(|t| t.channel);
    let mut problems: Vec<Problem> = log
        .open_warnings()
        .into_iter()
        .chain(summary.warnings.iter().cloned())
        .map(|e| Problem {
            t: None,
            text: e.to_string(),
        })
        .collect();
    problems.extend(collected.problems);
    problems.extend(views.problems);
    problems.extend(text_problems);
    let shown: u64 = collected.channels.iter().map(|c| c.message_count).sum();
    let mut report = LogReport {
        name: path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ),
        path: path.display().to_string(),
        format: summary.format.to_string(),
        format_id: summary.format,
        version: summary.version.clone(),
        size: log.size(),
        clock: summary.time_model.clock.name().to_string(),
        start,
        end,
        start_utc: (summary.start.is_some())
            .then(|| summary.time_model.format_date(logcore::Timestamp(start)))
            .flatten(),
        log_start,
        log_end,
        outliers,
        align: None,
        range: ranged.then(|| Range {
            start: from,
            end: until,
            asked: [("from", opts.start), ("until", opts.end)]
                .iter()
                .filter_map(|(w, t)| {
                    t.map(|t| format!("{w} {}", describe(t, summary.time_model.clock.name())))
                })
                .collect::<Vec<_>>()
                .join(", "),
            messages: shown,
        }),
        message_count: summary.message_count,
        metadata: summary.metadata.clone().into_iter().collect(),
        channels: collected.channels,
        problems,
        problems_dropped: collected.problems_dropped,
        check_passed: None,
        tracks: collected.tracks,
        paths: collected.paths,
        strips: views.strips,
        clouds: views.clouds,
        scenes: collected.scenes,
        bands: Vec::new(),
        events: text_events,
        parameters: None,
        panels: Vec::new(),
        flight: None,
    };
    if let Some(ulog) = log.as_ulog() {
        if let Some(b) = collected
            .changes
            .get("vehicle_status")
            .and_then(|c| px4::flight_modes(c, end))
        {
            report.bands.push(b);
        }
        report
            .events
            .extend(px4::events(ulog).into_iter().filter(|e| within(e.t)));
        report.events.sort_by_key(|e| e.t);
        // The parameters are the log's, whatever the range: those at
        // start configure the whole flight.
        report.parameters = Some(px4::parameters(ulog));
        report.panels = px4::panels(&report.channels);
        let span = (start, end.saturating_add(1));
        report
            .panels
            .extend(px4::own_panels(ulog, span, opts.max_points));
        let modes = report.bands.iter().find(|b| b.name == "flight mode");
        report.flight = Some(px4::flight(ulog, span, modes));
        for d in &ulog.dropouts {
            let t = (d.timestamp as i64).saturating_mul(1000);
            if !within(t) {
                continue;
            }
            report.problems.push(Problem {
                t: Some(t),
                text: format!(
                    "dropout: the logger lost {} ms of data (at byte {})",
                    d.duration_ms, d.offset
                ),
            });
        }
    }
    if summary.format == logcore::Format::CarlaRecorder {
        carla::extras(log, &mut report, (from, until), opts)?;
    }
    match checked {
        Some(Ok((passed, errors))) => {
            report.check_passed = Some(passed);
            for e in errors {
                report.problems.push(Problem {
                    t: None,
                    text: format!("check: {e}"),
                });
            }
        }
        Some(Err(e)) => {
            report.check_passed = Some(false);
            report.problems.push(Problem {
                t: None,
                text: format!("check: {e}"),
            });
        }
        None => {}
    }
    if let Some(topic) = &opts.align {
        let first = (report.channels.iter())
            .find(|c| &c.topic == topic)
            .and_then(|c| c.start)
            .or_else(|| {
                (summary.topics().into_iter())
                    .find(|t| &t.topic == topic)
                    .and_then(|t| t.start.map(logcore::Timestamp::as_nanos))
            });
        match first {
            Some(t) => report.align = Some(t),
            None => report.problems.push(Problem {
                t: None,
                text: format!(
                    "aligned at {topic:?}: no message on it in this log, whose plots count from its start"
                ),
            }),
        }
    }
    // The problems listed once each, in the order met.
    let mut seen = std::collections::HashSet::new();
    report
        .problems
        .retain(|p| seen.insert((p.t, p.text.clone())));
    Ok(report)
}

/// Points an extra series (a field not plotted at load, see
/// [`Channel::extra`]) keeps at least before the plotted series are
/// reduced for the budget: 32 buckets of its span.
pub const MIN_EXTRA_POINTS: usize = 64;

/// Reduces the series of `logs` further (min/max again, extremes kept)
/// until the points of all of them fit in `budget`: first the extra
/// series (the fields not plotted at load, [`Channel::extra`]), the
/// largest first, down to [`MIN_EXTRA_POINTS`] each; then, when that is
/// not enough, the largest of all of them.
pub fn fit_budget(logs: &mut [LogReport], budget: usize) {
    let total: usize = logs.iter().map(|l| l.points() + l.extra_points()).sum();
    if total <= budget {
        return;
    }
    let lens = |logs: &[LogReport], extra: bool| -> Vec<usize> {
        logs.iter()
            .flat_map(|l| {
                l.channels.iter().flat_map(move |c| {
                    let s = if extra { &c.extra } else { &c.series };
                    s.iter().map(|s| s.points.len())
                })
            })
            .collect()
    };
    let shown: usize = lens(logs, false).iter().sum();
    let extra = lens(logs, true);
    let cap = largest_cap(&extra, budget.saturating_sub(shown)).max(MIN_EXTRA_POINTS);
    cut(logs, cap, true);
    let mut all = lens(logs, false);
    all.extend(lens(logs, true));
    if all.iter().sum::<usize>() > budget {
        let cap = largest_cap(&all, budget);
        cut(logs, cap, false);
        cut(logs, cap, true);
    }
}

/// The largest cap `c` (at least 2) with `sum(min(len, c)) <= budget`,
/// found by halving.
fn largest_cap(lens: &[usize], budget: usize) -> usize {
    let fits = |c: usize| lens.iter().map(|&l| l.min(c)).sum::<usize>() <= budget;
    let (mut lo, mut hi) = (2usize, lens.iter().copied().max().unwrap_or(2));
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// Reduces the series (the extra ones when `extra`) of more than `cap`
/// points to about `cap`.
fn cut(logs: &mut [LogReport], cap: usize, extra: bool) {
    for s in logs.iter_mut().flat_map(|l| {
        l.channels.iter_mut().flat_map(move |c| {
            if extra {
                c.extra.iter_mut()
            } else {
                c.series.iter_mut()
            }
        })
    }) {
        if s.points.len() > cap {
            s.points = reduce::rereduce(&s.points, cap);
            s.reduced = true;
        }
    }
}

/// Why [`write_report`] wrote nothing.
#[derive(Debug)]
pub enum ReportError {
    /// An input could not be opened or read.
    Log(PathBuf, Error),
    /// The output was refused (it exists, or it is an input).
    Refused(robolog::write::Refusal),
    /// Writing the output failed.
    Io(io::Error),
    /// The time range has no instants on a log's clock (a UTC instant for
    /// a log whose clock is not anchored to UTC): a usage error.
    Time(PathBuf, String),
}

impl std::fmt::Display for ReportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReportError::Log(p, e) => write!(f, "{}: {e}", p.display()),
            ReportError::Refused(r) => r.fmt(f),
            ReportError::Io(e) => e.fmt(f),
            ReportError::Time(p, m) => write!(f, "{}: {m}", p.display()),
        }
    }
}

impl std::error::Error for ReportError {}

/// Writes the report of the logs at `inputs` to `output`, through a
/// temporary file renamed into place when complete: an existing output is
/// refused unless `force`, an input always. Returns the logs' reports.
pub fn write_report(
    inputs: &[PathBuf],
    output: &Path,
    opts: &ReportOptions,
    force: bool,
) -> Result<Vec<LogReport>, ReportError> {
    let mut policy = robolog::write::OutputPolicy::new(force);
    policy.add_inputs(inputs.iter().cloned());
    policy.check(output).map_err(ReportError::Refused)?;
    let mut logs = Vec::new();
    let opts = &ReportOptions {
        sensor_budget: opts.sensor_budget.min(opts.page_budget / 2) / inputs.len().max(1),
        ..opts.clone()
    };
    for p in inputs {
        let log = robolog::OpenOptions::new()
            .limits(opts.limits)
            .open(p)
            .map_err(|e| ReportError::Log(p.clone(), e))?;
        logs.push(report_of(&log, p, opts).map_err(|e| match e {
            Failed::Log(e) => ReportError::Log(p.clone(), e),
            Failed::Time(m) => ReportError::Time(p.clone(), m),
        })?);
    }
    fit_budget(&mut logs, opts.budget);
    let title = logs
        .iter()
        .map(|l| l.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    robolog::write::write_atomically(output, &policy, |f| {
        let mut w = io::BufWriter::new(f);
        write_html_within(&logs, &title, opts.page_budget, &mut w)?;
        w.flush()
    })
    .map_err(|e| match e {
        robolog::write::WriteError::Refused(r) => ReportError::Refused(r),
        robolog::write::WriteError::Io(e) | robolog::write::WriteError::Write(e) => {
            ReportError::Io(e)
        }
    })?;
    Ok(logs)
}

/// The README's examples, compiled and run as doc-tests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_arguments_read_as_asked() {
        let d = |s: &str| describe(s.parse().unwrap(), "boot");
        assert_eq!(d("2.5"), "2.5 s after the first message");
        assert_eq!(d("-1500ms"), "-1.5 s after the first message");
        assert_eq!(d("@12.000000001"), "@12.000000001 s on the boot clock");
        assert_eq!(d("2019-05-13T14:09:15Z"), "2019-05-13T14:09:15.000000000Z");
    }
}
