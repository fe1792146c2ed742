//! Filters that write a log in its own format: a ULog file into a ULog
//! file, a CARLA recording into a recording, a VEL log into a VEL log
//! (`robolog filter in.ulg out.ulg`). The messages are copied byte for
//! byte; what the format needs around them to stay valid is kept or
//! rebuilt (see each module).
//!
//! - **ULog** (`ulog`): topic patterns, `--where`, `--around` and the
//!   time range; the header, flag bits, formats, information and
//!   parameters always kept. `--shift` moves the header's timestamp, each
//!   sample's `timestamp` field (the log time) and the logged strings'
//!   timestamps (whole microseconds: a shift with a fraction of one is
//!   refused); `--rename OLD=NEW` renames a message name (all its
//!   instances): the subscriptions name NEW and a format `NEW` with
//!   OLD's fields is added after OLD's.
//! - **CARLA** (`carla`): the time range only; whole frames are kept, and
//!   the first kept frame adds again the actors alive at the cut. Its
//!   frame times are the simulation's elapsed time, not moved; it holds
//!   no GPS position, identifier or logged text, so `--anonymise` leaves
//!   it as it is and says so.
//! - **VEL** (`vel`): topic patterns, `--where`, `--around`, the time
//!   range and `--shift` (each record's timestamp, milliseconds since the
//!   recorder started, moved; a time moved below 0 is refused) and the
//!   anonymisation of its `GPSDataM` positions; its topics are named by
//!   their record types, so it is not renamed.
//!
//! **Parts** (`--split-every`, `--split-size`, in [`filter_own_format_to`]):
//! a first pass notes the time and bytes of every message the filter
//! keeps (a ULog sample, a CARLA frame, a VEL record; one entry per
//! distinct time); the parts are then intervals `[start, end)` of those
//! times, each written as a cut of the input with that range (so a ULog
//! part holds the header, formats, information and the parameters as
//! they stand at its start; a CARLA part's first frame adds the actors
//! alive at its start). `--split-every D`: a part starts at each interval
//! `[t0 + k D, t0 + (k + 1) D)` holding a kept message (`t0` the start
//! given or the first kept time) and runs to the next part's start, so
//! empty intervals make no part; `--split-size N`: a part ends at the
//! first kept time after its messages reached `N` bytes (payloads and
//! record headers, not the definitions every part repeats). The first
//! part starts at the range's start, the last ends at its end, so each
//! message (strings, dropouts and parameter changes too) is in exactly
//! one part. Each part's cut reads the input from its beginning (the
//! definitions, the state before the cut): a split reads the input once
//! per part, and once more for the first pass.
//!
//! Several inputs are refused: a ULog file's subscriptions, formats and
//! parameters are the state of one flight (merged, two logs' `msg_id`s
//! and parameter values would clash); a VEL log's times count from its
//! own recorder's start, so two logs have no common clock; a CARLA
//! recording's frames and actor ids belong to one simulation.

// Built without ULog, CARLA and VEL, no log has a writer of its own
// format here: the dispatch only refuses.
#![cfg_attr(
    not(any(feature = "ulog", feature = "carla", feature = "vellog")),
    allow(dead_code, unused_variables, unused_mut, unreachable_code)
)]

use std::collections::BTreeMap;
use std::path::Path;

use logcore::{Error, Format, Timestamp};

use super::select::{Filter, TopicCount};
use super::{ConvertFileError, ConvertOptions, ConvertStats, Progress};
use crate::Log;
use crate::write::{OutputPolicy, WriteError, write_atomically};

#[cfg(feature = "carla")]
mod carla;
#[cfg(feature = "ulog")]
pub(crate) mod ulog;
#[cfg(feature = "vellog")]
mod vel;

/// The extensions of a filter's output for a log of `format` written in
/// its own format (the first one is the usual one): `.ulg` for ULog,
/// `.log` or `.rec` for CARLA recordings, `.vel` for VEL logs; `None` for
/// the formats a filter writes as MCAP or bags.
///
/// ```
/// use logcore::Format;
/// use robolog::convert::own_format_extensions;
/// assert_eq!(own_format_extensions(Format::ULog), Some(&["ulg"][..]));
/// assert_eq!(own_format_extensions(Format::Mcap), None);
/// ```
pub fn own_format_extensions(format: Format) -> Option<&'static [&'static str]> {
    match format {
        Format::ULog => Some(&["ulg"]),
        Format::CarlaRecorder => Some(&["log", "rec"]),
        Format::VelLog => Some(&["vel"]),
        _ => None,
    }
}

/// The topics a filter of `log` selects from with `--topic` and
/// `--exclude-topic` and names in `--where`, sorted: for a ULog file each
/// subscription's topic (`NAME`, `NAME[MULTI_ID]`) and each message name
/// (which selects all its instances); for a CARLA recording its packet
/// kinds (which a filter does not select: CARLA takes time cuts only);
/// for the other formats their channels' topics.
pub fn filter_topics(log: &Log<'_>) -> Result<Vec<String>, Error> {
    #[cfg(feature = "ulog")]
    if log.format() == Format::ULog {
        let full = ulog::full(log)?;
        return Ok(ulog::topics(&full));
    }
    let mut t: Vec<String> = logcore::LogReader::channels(log)?
        .into_iter()
        .map(|c| c.topic)
        .collect();
    t.sort();
    t.dedup();
    Ok(t)
}

/// Per topic, what a filter keeps and drops; and, when asked, the bytes
/// kept at each time (the first pass of a split).
#[derive(Debug, Default)]
pub(crate) struct Tally {
    counts: BTreeMap<String, TopicCount>,
    /// Bytes kept per log time (input time), when noted.
    times: Option<BTreeMap<Timestamp, u64>>,
}

impl Tally {
    /// Makes sure `topic` is listed (with no message yet).
    pub(crate) fn topic(&mut self, topic: &str) {
        self.entry(topic);
    }

    /// How many topics had a message written.
    pub(crate) fn written_topics(&self) -> u64 {
        self.counts.values().filter(|c| c.kept > 0).count() as u64
    }

    fn entry(&mut self, topic: &str) -> &mut TopicCount {
        self.counts
            .entry(topic.to_string())
            .or_insert_with(|| TopicCount {
                topic: topic.to_string(),
                written_as: topic.to_string(),
                ..TopicCount::default()
            })
    }

    /// Counts a message of `topic` of `bytes` payload bytes, written or not.
    pub(crate) fn count(&mut self, topic: &str, written: bool, bytes: u64) {
        let c = self.entry(topic);
        if written {
            c.kept += 1;
            c.kept_bytes += bytes;
        } else {
            c.dropped += 1;
            c.dropped_bytes += bytes;
        }
    }

    /// Notes that `bytes` were kept at the input time `t` (for a split).
    pub(crate) fn kept_at(&mut self, t: Timestamp, bytes: u64) {
        if let Some(times) = self.times.as_mut() {
            *times.entry(t).or_default() += bytes;
        }
    }

    /// Writes `topic` under `name` in the counts.
    #[cfg_attr(not(feature = "ulog"), allow(dead_code))]
    pub(crate) fn written_as(&mut self, topic: &str, name: &str) {
        self.entry(topic).written_as = name.to_string();
    }

    fn into_counts(self) -> Vec<TopicCount> {
        self.counts.into_values().collect()
    }
}

/// What the format is called in messages.
fn called(format: Format) -> &'static str {
    match format {
        Format::ULog => "a ULog file",
        Format::CarlaRecorder => "a CARLA recording",
        _ => "a VEL log",
    }
}

/// Refuses what a filter in the log's own format does not do: several
/// inputs, restamps and frame renames; topic renames but for ULog; a
/// shift of a CARLA recording; for a CARLA recording anything but a time
/// range and splits.
fn check(logs: &[&Log<'_>], opts: &ConvertOptions, filter: &Filter) -> Result<(), Error> {
    let format = logs[0].format();
    let name = called(format);
    if logs.len() > 1 {
        let why = match format {
            Format::ULog => {
                "its subscriptions, formats and parameters are the state of one flight, and two \
                 logs' msg_ids and parameters would clash"
            }
            Format::CarlaRecorder => {
                "its frames and actor ids belong to one simulation, which another recording's \
                 would break"
            }
            _ => "its times count from its own recorder's start, so two logs share no clock",
        };
        return Err(Error::invalid_argument(format!(
            "{name} is filtered on its own: give one input ({why}; several are merged for ROS \
             bags and MCAP files)"
        )));
    }
    if opts.ros2 {
        return Err(Error::invalid_argument(format!(
            "{name} is filtered into its own format: it is not mapped to ROS 2"
        )));
    }
    if filter.restamps_or_reframes() {
        return Err(Error::invalid_argument(format!(
            "{name}: --restamp and --frame-id rewrite ROS headers, which it has none of (convert \
             it to MCAP first)"
        )));
    }
    if filter.has_renames() && format != Format::ULog {
        return Err(Error::invalid_argument(format!(
            "{name}: --rename: its topics are named by the format's record types, which a \
             reader knows by those names (convert it to MCAP to rename topics)"
        )));
    }
    if filter.shift_ns() != 0 && format == Format::CarlaRecorder {
        return Err(Error::invalid_argument(
            "a CARLA recording: --shift: its frame times are the simulation's elapsed seconds \
             from its start, and its header's date is the start; convert it to MCAP to move \
             times",
        ));
    }
    if filter.shift_ns() % 1000 != 0 && format == Format::ULog {
        return Err(Error::invalid_argument(format!(
            "a ULog file: --shift {} ns: its times are whole microseconds; give a shift of \
             whole microseconds",
            filter.shift_ns()
        )));
    }
    if format == Format::CarlaRecorder && (!opts.topics.is_empty() || filter.selects_messages()) {
        return Err(Error::invalid_argument(
            "a CARLA recording is cut by time only (--start, --end): its frames hold every \
             packet kind together, so --topic, --exclude-topic, --where and --around do not \
             apply (convert it to MCAP to select its topics)",
        ));
    }
    Ok(())
}

/// What an anonymisation finds in a CARLA recording: nothing to move or
/// leave out (see [`filter_own_format_to`]).
const CARLA_ANONYMISED: &str = "a CARLA recording holds no GPS position (actors move in the \
     map's metres), no hardware identifier and no logged text: nothing changed (actors keep \
     their blueprint ids and attributes such as role_name)";

/// Writes the kept part of `log` in its own format into `out`, with the
/// counts per topic; `times` notes the bytes kept per time.
fn write_to<W: std::io::Write>(
    log: &Log<'_>,
    out: W,
    opts: &ConvertOptions,
    filter: &Filter,
    times: bool,
    progress: &mut dyn FnMut(Progress),
) -> Result<(W, ConvertStats, Tally), Error> {
    check(&[log], opts, filter)?;
    let mut cx = super::Context::new(log, opts, progress);
    let mut tally = Tally {
        times: times.then(BTreeMap::new),
        ..Tally::default()
    };
    let out = match log.format() {
        #[cfg(feature = "ulog")]
        Format::ULog => match filter.anonymiser() {
            None => ulog::write(
                log,
                out,
                opts,
                filter,
                &mut ulog::Unchanged,
                &mut cx,
                &mut tally,
            )?,
            Some(a) => {
                let full = ulog::full(log)?;
                let mut report = super::anonymise::Report::default();
                let mut editor = super::anonymise::ulog::UlogAnonymiser::new(a, &full, &mut report);
                let out = ulog::write(log, out, opts, filter, &mut editor, &mut cx, &mut tally)?;
                cx.stats.anonymised = report.lines();
                out
            }
        },
        #[cfg(feature = "carla")]
        Format::CarlaRecorder => {
            if filter.anonymiser().is_some() {
                cx.stats.anonymised = vec![CARLA_ANONYMISED.to_string()];
            }
            carla::write(log, out, opts, &mut cx, &mut tally)?
        }
        #[cfg(feature = "vellog")]
        Format::VelLog => vel::write(log, out, opts, filter, &mut cx, &mut tally)?,
        other => {
            return Err(Error::invalid_argument(format!(
                "a {other} log is not filtered into its own format"
            )));
        }
    };
    Ok((out, cx.stats, tally))
}

/// What [`filter_own_format_to`] would write, per topic, writing nothing.
pub(crate) fn dry_run(
    log: &Log<'_>,
    opts: &ConvertOptions,
    filter: &Filter,
) -> Result<Vec<TopicCount>, Error> {
    let (_, _, tally) = write_to(log, std::io::sink(), opts, filter, false, &mut |_| {})?;
    Ok(tally.into_counts())
}

/// Filters the ULog file, CARLA recording or VEL log `log` (read from
/// `input`) into `output` in the same format (see the module docs and
/// [`own_format_extensions`]): the options' topics and time range and
/// the filter's exclusions, `--where` and `--around` decide; the records
/// kept are copied byte for byte. Written through a temporary file
/// renamed into place when complete: an output that exists is refused
/// unless `force`, the input always. What the options or filter ask that
/// the format does not do is [`Error::InvalidArgument`] (before anything
/// is written).
///
/// ```
/// use robolog::convert::{ConvertOptions, Filter, filter_own_format_to};
/// let input = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/ulog/features.ulg").as_ref();
/// let dir = std::env::temp_dir().join(format!("robolog-doc-own-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let log = robolog::open(input)?;
/// let out = dir.join("gps.ulg");
/// let opts = ConvertOptions { topics: vec!["sensor_gps".into()], ..ConvertOptions::default() };
/// let stats = filter_own_format_to(&log, input, &out, &opts, &Filter::new(), false, &mut |_| {})?;
/// let bytes = std::fs::read(&out)?;
/// let written = ulogfile::ULog::parse(&bytes)?;
/// assert_eq!(written.subscriptions.len(), 1);
/// assert_eq!(stats.messages, 6);
/// assert_eq!(written.info["sys_name"].value.as_str(), Some("PX4"));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn filter_own_format_to(
    log: &Log<'_>,
    input: &Path,
    output: &Path,
    opts: &ConvertOptions,
    filter: &Filter,
    force: bool,
    progress: &mut dyn FnMut(Progress),
) -> Result<ConvertStats, ConvertFileError> {
    check(&[log], opts, filter).map_err(ConvertFileError::Convert)?;
    if filter.splits() {
        return write_parts(log, input, output, opts, filter, force, progress);
    }
    let mut policy = OutputPolicy::new(force);
    policy.add_inputs([input]);
    let written = write_atomically(output, &policy, |f| {
        write_to(log, f, opts, filter, false, progress).map(|(_, stats, _)| stats)
    });
    written.map_err(write_error)
}

/// A safe write's error as a conversion's.
fn write_error(e: WriteError<Error>) -> ConvertFileError {
    match e {
        WriteError::Refused(r) => ConvertFileError::Refused(r),
        WriteError::Io(e) => ConvertFileError::Io(e),
        WriteError::Write(Error::Io(e)) => {
            ConvertFileError::Io(std::io::Error::new(e.kind(), e.to_string()))
        }
        WriteError::Write(e) => ConvertFileError::Convert(e),
    }
}

/// The parts `[start, end)` of a split (see the module docs) of the kept
/// `times` (bytes per input time), within the options' range `start` to
/// `end`: one after the other, each holding kept messages, the first
/// from `start`, the last to `end`.
fn plan_parts(
    times: &BTreeMap<Timestamp, u64>,
    split: super::split::Split,
    start: Option<Timestamp>,
    end: Option<Timestamp>,
) -> Vec<(Option<Timestamp>, Option<Timestamp>)> {
    // Where a part starts, but for the first.
    let mut cuts: Vec<Timestamp> = Vec::new();
    if let Some(every) = split.every {
        let Some((&first, _)) = times.first_key_value() else {
            return vec![(start, end)];
        };
        let t0 = start.unwrap_or(first).0;
        let mut last_cell = None;
        for &t in times.keys() {
            let cell = (t.0 - t0).div_euclid(every);
            if last_cell.is_some_and(|c| c != cell) {
                cuts.push(Timestamp(t0.saturating_add(cell.saturating_mul(every))));
            }
            last_cell = Some(cell);
        }
    } else {
        let size = split.size.unwrap_or(u64::MAX);
        let mut bytes = 0u64;
        for (&t, &n) in times {
            if bytes >= size {
                cuts.push(t);
                bytes = 0;
            }
            bytes = bytes.saturating_add(n);
        }
    }
    let starts = std::iter::once(start).chain(cuts.iter().copied().map(Some));
    let ends = cuts.iter().copied().map(Some).chain(std::iter::once(end));
    starts.zip(ends).collect()
}

/// Writes the parts of a split filter of `log` (see the module docs):
/// the names of the family checked all at once first (an input always
/// refused, an existing part unless `force`), each part written through
/// its own temporary file; with `force`, the parts of an earlier output
/// beyond the last one written are removed.
fn write_parts(
    log: &Log<'_>,
    input: &Path,
    output: &Path,
    opts: &ConvertOptions,
    filter: &Filter,
    force: bool,
    progress: &mut dyn FnMut(Progress),
) -> Result<ConvertStats, ConvertFileError> {
    let family = super::split::Family::of(output, super::Target::Mcap);
    let existing = family.existing().map_err(ConvertFileError::Io)?;
    let mut policy = OutputPolicy::new(force);
    policy.add_inputs([input]);
    for (_, path) in &existing {
        policy.check(path).map_err(ConvertFileError::Refused)?;
    }
    // The first pass: the bytes kept at each time.
    let (_, _, tally) = write_to(log, std::io::sink(), opts, filter, true, &mut |_| {})
        .map_err(ConvertFileError::Convert)?;
    let times = tally.times.unwrap_or_default();
    let parts = plan_parts(&times, filter.split, opts.start, opts.end);
    let mut total = ConvertStats::default();
    let mut seen = Progress::default();
    for (k, (start, end)) in parts.into_iter().enumerate() {
        let path = family.part(k);
        let o = ConvertOptions {
            start,
            end,
            ..opts.clone()
        };
        let mut report = |p: Progress| {
            seen.bytes = p.bytes;
            seen.total_bytes = p.total_bytes;
            seen.messages = total.messages + p.messages;
            progress(seen);
        };
        let stats = write_atomically(&path, &policy, |f| {
            write_to(log, f, &o, filter, false, &mut report).map(|(_, stats, _)| stats)
        })
        .map_err(write_error)?;
        total.add_part(path, stats);
    }
    if force {
        super::split::remove_stale(&existing, total.parts.len(), super::Target::Mcap);
    }
    Ok(total)
}

/// Whether `logs` are filtered into their own format (one ULog file,
/// CARLA recording or VEL log).
pub(crate) fn is_own_format(logs: &[&Log<'_>]) -> bool {
    logs.iter()
        .any(|l| own_format_extensions(l.format()).is_some())
}

/// [`check`] for the merged filters' callers (several inputs, one of them
/// a ULog file, a CARLA recording or a VEL log).
pub(crate) fn refuse(logs: &[&Log<'_>], opts: &ConvertOptions, filter: &Filter) -> Error {
    match check(logs, opts, filter) {
        Err(e) => e,
        Ok(()) => Error::invalid_argument(
            "a ULog file, CARLA recording or VEL log is filtered with filter_own_format_to",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::split::Split;

    #[test]
    fn parts_follow_each_other_over_the_range() {
        let t = Timestamp;
        let times: BTreeMap<Timestamp, u64> =
            [(t(3), 5), (t(7), 5), (t(12), 5), (t(35), 5), (t(36), 5)].into();
        let every = Split {
            every: Some(10),
            size: None,
        };
        // Cells [3, 13) and [33, 43); the empty ones make no part.
        assert_eq!(
            plan_parts(&times, every, None, None),
            [(None, Some(t(33))), (Some(t(33)), None)]
        );
        assert_eq!(
            plan_parts(&times, every, Some(t(0)), Some(t(40))),
            [
                (Some(t(0)), Some(t(10))),
                (Some(t(10)), Some(t(30))),
                (Some(t(30)), Some(t(40)))
            ]
        );
        let size = Split {
            every: None,
            size: Some(10),
        };
        // A part ends at the first time after it holds 10 bytes.
        assert_eq!(
            plan_parts(&times, size, None, None),
            [
                (None, Some(t(12))),
                (Some(t(12)), Some(t(36))),
                (Some(t(36)), None)
            ]
        );
        assert_eq!(
            plan_parts(&BTreeMap::new(), size, Some(t(1)), None),
            [(Some(t(1)), None)]
        );
    }
}
