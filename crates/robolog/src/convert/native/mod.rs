//! Filters that write a log in its own format: a ULog file into a ULog
//! file, a CARLA recording into a recording, a VEL log into a VEL log
//! (`robolog filter in.ulg out.ulg`). The messages are copied byte for
//! byte; what the format needs around them to stay valid is kept or
//! rebuilt (see each module).
//!
//! - **ULog** (`ulog`): topic patterns, `--where`, `--around` and the
//!   time range; the header, flag bits, formats, information and
//!   parameters always kept.
//! - **CARLA** (`carla`): the time range only; whole frames are kept, and
//!   the first kept frame adds again the actors alive at the cut.
//! - **VEL** (`vel`): topic patterns, `--where`, `--around` and the time
//!   range.
//!
//! None of them moves times (`--shift`) or renames topics: the times
//! and names are inside the records. One input is filtered at a time.

// Built without ULog, CARLA and VEL, no log has a writer of its own
// format here: the dispatch only refuses.
#![cfg_attr(
    not(any(feature = "ulog", feature = "carla", feature = "vellog")),
    allow(dead_code, unused_variables, unused_mut, unreachable_code)
)]

use std::collections::BTreeMap;
use std::path::Path;

use logcore::{Error, Format};

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

/// Per topic, what a filter keeps and drops.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    counts: BTreeMap<String, TopicCount>,
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

    fn into_counts(self) -> Vec<TopicCount> {
        self.counts.into_values().collect()
    }
}

/// Refuses what a filter in the log's own format does not do: several
/// inputs, moved times, renamed topics, and for a CARLA recording
/// anything but a time range.
fn check(logs: &[&Log<'_>], opts: &ConvertOptions, filter: &Filter) -> Result<(), Error> {
    let format = logs[0].format();
    let name = match format {
        Format::ULog => "a ULog file",
        Format::CarlaRecorder => "a CARLA recording",
        _ => "a VEL log",
    };
    if logs.len() > 1 {
        return Err(Error::invalid_argument(format!(
            "{name} is filtered on its own: give one input (merging several is for ROS bags and \
             MCAP files)"
        )));
    }
    if opts.ros2 {
        return Err(Error::invalid_argument(format!(
            "{name} is filtered into its own format: it is not mapped to ROS 2"
        )));
    }
    if filter.rewrites() {
        return Err(Error::invalid_argument(format!(
            "{name} keeps its times and names inside its records: --shift, --rename, \
             --restamp and --frame-id are for ROS bags and MCAP files (convert it to MCAP first)"
        )));
    }
    if format != Format::ULog && filter.anonymiser().is_some() {
        return Err(Error::invalid_argument(format!(
            "{name}: --anonymise and --drop-text are for ULog files, ROS bags and MCAP files \
             (convert it to MCAP first: its GPS becomes LocationFix messages, which are moved)"
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

/// Writes the kept part of `log` in its own format into `out`, with the
/// counts per topic.
fn write_to<W: std::io::Write>(
    log: &Log<'_>,
    out: W,
    opts: &ConvertOptions,
    filter: &Filter,
    progress: &mut dyn FnMut(Progress),
) -> Result<(W, ConvertStats, Vec<TopicCount>), Error> {
    check(&[log], opts, filter)?;
    let mut cx = super::Context::new(log, opts, progress);
    let mut tally = Tally::default();
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
        Format::CarlaRecorder => carla::write(log, out, opts, &mut cx, &mut tally)?,
        #[cfg(feature = "vellog")]
        Format::VelLog => vel::write(log, out, opts, filter, &mut cx, &mut tally)?,
        other => {
            return Err(Error::invalid_argument(format!(
                "a {other} log is not filtered into its own format"
            )));
        }
    };
    Ok((out, cx.stats, tally.into_counts()))
}

/// What [`filter_own_format_to`] would write, per topic, writing nothing.
pub(crate) fn dry_run(
    log: &Log<'_>,
    opts: &ConvertOptions,
    filter: &Filter,
) -> Result<Vec<TopicCount>, Error> {
    let (_, _, counts) = write_to(log, std::io::sink(), opts, filter, &mut |_| {})?;
    Ok(counts)
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
    let mut policy = OutputPolicy::new(force);
    policy.add_inputs([input]);
    let written = write_atomically(output, &policy, |f| {
        write_to(log, f, opts, filter, progress).map(|(_, stats, _)| stats)
    });
    written.map_err(|e| match e {
        WriteError::Refused(r) => ConvertFileError::Refused(r),
        WriteError::Io(e) => ConvertFileError::Io(e),
        WriteError::Write(Error::Io(e)) => {
            ConvertFileError::Io(std::io::Error::new(e.kind(), e.to_string()))
        }
        WriteError::Write(e) => ConvertFileError::Convert(e),
    })
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
