//! `robolog filter IN... OUT`: cut, clean and rewrite logs. A thin shell
//! over [`robolog::convert::filter_files_to`] (the writers of `convert`,
//! each message kept or dropped by a [`robolog::convert::Filter`] as it
//! is read and copied byte for byte) and, for `--where` and `--around`,
//! [`robolog_sql::prepare_where`] (a SQL boolean expression over a
//! topic's table, evaluated with DataFusion; a `--where` scan runs beside
//! the writing pass, [`robolog::convert::FilterPlan::run`]).
//!
//! Flags: `--topic`/`--exclude-topic PATTERN` (names, globs, `re:`),
//! `--where 'TOPIC: EXPR'`, `--around 'TOPIC: EXPR' --before D --after D`,
//! `--start`/`--end`, `--shift D`, `--rename OLD=NEW`, `--restamp header`,
//! `--frame-id OLD=NEW`, `--split-every D`/`--split-size SIZE` (parts
//! `OUT_000.EXT`, ...: [`robolog::convert::Filter::split_every`]),
//! `--dry-run`, and
//! convert's `--compression`, `--chunk-size`, `--storage`, `--force`;
//! `--config FILE` reads them from a TOML file ([`config`]).
//! Usage errors (a pattern matching no topic, a bad expression, an output
//! that is an input or exists without `--force`) exit with 2 before
//! anything is written.

use std::path::{Path, PathBuf};

use clap::Args;
use logcore::Error;
use robolog::convert::{
    ConvertOptions, FilterSpec, MatchError, PlanError, Scan, filter_files_to, plan_filter_streaming,
};
use robolog::write::OutputPolicy;

use crate::context::Context;
use crate::convert::{
    Codec, StorageArg, choose_target, first_and_clock, known_topics, label_of, scope_of,
};
use crate::progress::Progress;
use crate::timearg::TimeRangeArgs;
use crate::{Failure, Outcome, output, topics, write};

mod config;
mod own;

/// Arguments of `robolog filter`.
#[derive(Debug, Clone, Args)]
pub(crate) struct FilterArgs {
    /// The logs to filter (ROS 1 bags, ROS 2 bags, MCAP files; several are
    /// merged by log time as `robolog convert` merges them), then OUT:
    /// `.mcap`, `.bag` (ROS 1 logs), or a folder name without extension
    /// (or --storage) for a ROS 2 bag (ROS 2 logs). One ULog file, CARLA
    /// recording or VEL log is filtered into its own format (OUT `.ulg`,
    /// `.log`/`.rec`, `.vel`): ULog keeps its header, formats, information
    /// and parameters whatever is cut; a CARLA recording is cut by time
    /// only, its first kept frame adding the actors alive then. Messages
    /// are copied byte for byte, never re-encoded. --shift moves ULog and
    /// VEL times, --rename renames ULog message names, and --split-* writes
    /// parts of all three.
    #[arg(value_name = "IN... OUT", required = true)]
    paths: Vec<PathBuf>,
    /// Only topics matching PATTERN (repeat for several): a topic name, a
    /// glob (`*` within one name level, `**` across levels, `?`,
    /// `[abc]`), or a regular expression after `re:` (matching the whole
    /// name). A pattern that matches no topic is a usage error.
    #[arg(long = "topic", value_name = "PATTERN")]
    topics: Vec<String>,
    /// Leave out topics matching PATTERN (same forms as --topic; repeat
    /// for several).
    #[arg(long = "exclude-topic", value_name = "PATTERN")]
    exclude: Vec<String>,
    /// Keep TOPIC's messages only where the SQL boolean expression EXPR
    /// holds: `'/imu: linear_acceleration.z > 12 AND header.frame_id =
    /// ''imu'''`. The columns are those `robolog sql` gives the topic's
    /// table (nested fields dotted, names quoted with "" where SQL needs
    /// it). One per topic; other topics are kept.
    #[arg(long = "where", value_name = "TOPIC: EXPR")]
    wheres: Vec<String>,
    /// Keep every topic only inside the windows [t - before, t + after]
    /// around the messages of TOPIC where EXPR holds (repeat for several
    /// event kinds; overlapping windows merge).
    #[arg(long, value_name = "TOPIC: EXPR")]
    around: Vec<String>,
    /// How long before each --around event to keep (`5s`, `500ms`).
    #[arg(long, value_name = "D", value_parser = parse_duration, default_value = "0")]
    before: i64,
    /// How long after each --around event to keep.
    #[arg(long, value_name = "D", value_parser = parse_duration, default_value = "0")]
    after: i64,
    #[command(flatten)]
    range: TimeRangeArgs,
    /// Move every log time (and publish time) by D (`-12.5s`, `1h`); the
    /// messages' own header stamps are not changed.
    #[arg(long, value_name = "D", value_parser = parse_duration, allow_hyphen_values = true)]
    shift: Option<i64>,
    /// Rename topic OLD to NEW (`/old=/new`), or every topic under a
    /// prefix (`/cam/*=/camera/*`); repeat for several.
    #[arg(long, value_name = "OLD=NEW")]
    rename: Vec<String>,
    /// Write the output as parts OUT_000.EXT, OUT_001.EXT, ... (ROS 2 bag
    /// folders OUT_000, ...), one per interval D of log time (`60s`,
    /// `10min`), each a complete log that repeats the last message of
    /// every latched (transient-local) topic at its start.
    #[arg(long, value_name = "D", value_parser = parse_duration)]
    split_every: Option<i64>,
    /// Write the output as parts of about SIZE each (`1GB`, `500MB`,
    /// `64MiB`, bytes): a part ends at the first log time after its file
    /// reached SIZE. Latched topics as with --split-every.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    split_size: Option<u64>,
    /// `header`: write each message whose type starts with a
    /// std_msgs/Header (ROS 1 or CDR) at its header.stamp, read from its
    /// bytes; the others keep their log time. The output is sorted by the
    /// new times (held in memory up to 64 MiB, beyond that in sorted runs
    /// in temporary files beside OUT, so the messages are written once
    /// all are read); --shift then moves every time.
    #[arg(long, value_enum, value_name = "header")]
    restamp: Option<Restamp>,
    /// Rename frame OLD to NEW (repeat for several) in the header.frame_id
    /// of every message whose type starts with a std_msgs/Header and in
    /// tf2_msgs/TFMessage transforms (/tf, /tf_static: header.frame_id
    /// and child_frame_id). Only the messages it changes are encoded
    /// again; ROS 1 definitions and md5sums stay as they are.
    #[arg(long = "frame-id", value_name = "OLD=NEW")]
    frame_ids: Vec<String>,
    /// Anonymise before sharing: every GPS position (NavSatFix,
    /// LocationFix, PX4's GPS, global position and home position topics)
    /// moves by one random offset per output, written nowhere, and
    /// vehicle and hardware identifiers are left out (ULog sys_uuid and
    /// the *_id/serial information, bag callerids, identifying channel and
    /// MCAP metadata). Only the messages it changes are encoded again;
    /// what changed is printed.
    #[arg(long, visible_alias = "anonymize")]
    anonymise: bool,
    /// The offset of the positions, LAT,LON in degrees (`0.71,-1.3`),
    /// instead of a random one; without --anonymise only positions move.
    #[arg(long, value_name = "LAT,LON", value_parser = parse_gps_offset, allow_hyphen_values = true)]
    gps_offset: Option<(f64, f64)>,
    /// Leave out logged free text: ULog logged strings, and /rosout and the
    /// other topics of log messages (rosgraph_msgs/Log,
    /// rcl_interfaces/msg/Log, foxglove.Log).
    #[arg(long)]
    drop_text: bool,
    /// Print per topic the messages and bytes that would be kept and
    /// dropped; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Chunk compression of the output (as `robolog convert`).
    #[arg(long, value_enum)]
    compression: Option<Codec>,
    /// Write a ROS 2 bag folder with this storage plugin (as `robolog
    /// convert`).
    #[arg(long, value_enum)]
    storage: Option<StorageArg>,
    /// Uncompressed chunk size of the output, in bytes.
    #[arg(long, value_name = "N", default_value_t = 1 << 20)]
    chunk_size: u64,
    /// Replace OUT when it exists.
    #[arg(long)]
    force: bool,
    /// Read options from the TOML file FILE (the README's schema: topics,
    /// exclude, where, around, before, after, start, end, shift, rename,
    /// compression, chunk_size, storage, split_every, split_size, restamp,
    /// frame_id). Flags add to its lists and tables (a --where replaces
    /// the file's for its topic) and replace its single values. A key
    /// outside the schema or a value of the wrong type is a usage error
    /// naming its line.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

/// What `--restamp` takes the log times from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Restamp {
    /// The messages' `header.stamp`.
    Header,
}

/// Parses `LAT,LON` in degrees.
fn parse_gps_offset(s: &str) -> Result<(f64, f64), String> {
    let bad = || format!("{s:?}: give LAT,LON in degrees, such as 0.71,-1.3");
    let (a, b) = s.split_once(',').ok_or_else(bad)?;
    let (a, b): (f64, f64) = (
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
    );
    if !(a.is_finite() && b.is_finite() && a.abs() <= 90.0 && b.abs() <= 180.0) {
        return Err(format!(
            "{s:?}: a latitude within ±90 and a longitude within ±180 degrees"
        ));
    }
    Ok((a, b))
}

/// The anonymisation `--anonymise`, `--gps-offset` and `--drop-text` ask.
fn anonymise_of(args: &FilterArgs) -> robolog::convert::Anonymise {
    robolog::convert::Anonymise {
        positions: args.anonymise || args.gps_offset.is_some(),
        gps_offset: args.gps_offset,
        identifiers: args.anonymise,
        drop_text: args.drop_text,
    }
}

/// Prints what an anonymisation of `output` changed.
fn say_anonymised(output: &Path, lines: &[String]) {
    for line in lines {
        crate::shown::say!("robolog: {}: {line}", output.display());
    }
}

/// Parses a duration (`5s`, `500ms`, `-2.5`: seconds without a unit).
fn parse_duration(s: &str) -> Result<i64, String> {
    logcore::timearg::parse_duration(s)
        .ok_or_else(|| format!("{s:?} is not a duration: give seconds or a unit (5s, 500ms, 2min)"))
}

/// Parses a size ([`robolog::convert::parse_size`]).
fn parse_size(s: &str) -> Result<u64, String> {
    robolog::convert::parse_size(s)
        .ok_or_else(|| format!("{s:?} is not a size: give bytes or a unit (500MB, 1GB, 64MiB)"))
}

/// `TOPIC: EXPR` split at the first `:`.
fn topic_and_expr<'a>(
    flag: &str,
    spec: &'a str,
    path: &Path,
) -> Result<(&'a str, &'a str), Failure> {
    match spec.split_once(':') {
        Some((t, e)) if !t.trim().is_empty() && !e.trim().is_empty() => Ok((t.trim(), e.trim())),
        _ => Err(Failure::usage(
            path,
            Error::invalid_argument(format!(
                "{flag} {spec:?}: give 'TOPIC: EXPR', such as '/imu: linear_acceleration.z > 9.9'"
            )),
        )),
    }
}

/// Runs `robolog filter`.
pub(crate) fn run(ctx: &Context, args: &FilterArgs) -> Result<Outcome, Failure> {
    let configured = config::merged(args)?;
    let args = configured.as_ref().unwrap_or(args);
    let (inputs, output) = match args.paths.as_slice() {
        [_] if args.dry_run => (args.paths.as_slice(), None),
        [input] => {
            return Err(Failure::usage(
                input,
                Error::invalid_argument(
                    "no output: give the file to write after the input(s): robolog filter IN... \
                     OUT (or --dry-run)",
                ),
            ));
        }
        [ins @ .., out] => (ins, Some(out.as_path())),
        [] => unreachable!("clap requires a path"),
    };
    // A ULog file, CARLA recording or VEL log is filtered into its own
    // format.
    if let Some(format) = own::own_format(inputs) {
        return own::run(ctx, args, inputs, output, format);
    }
    let label = label_of(inputs);
    let input = label.as_path();
    let target = match output {
        Some(out) => {
            let t = choose_target(out, args.storage, args.compression)?;
            let mut policy = OutputPolicy::new(args.force);
            policy.add_inputs(inputs);
            // A split output's parts are checked by the writer, all of
            // them before the first is written.
            if !args.dry_run && args.split_every.is_none() && args.split_size.is_none() {
                write::check(out, &policy)?;
            }
            Some(t)
        }
        None => None,
    };
    let mut logs = Vec::with_capacity(inputs.len());
    for path in inputs {
        logs.push(ctx.open(path)?);
    }
    let log_refs: Vec<&robolog::Log<'_>> = logs.iter().collect();
    check_inputs(&log_refs, inputs)?;

    // Topic patterns: each must match a topic of the inputs.
    let known = known_topics(&logs, inputs)?;
    let scope = scope_of(inputs);
    let names = || known.iter().map(String::as_str);
    topics::check_patterns(input, names(), "--topic", &args.topics, scope)?;
    topics::check_patterns(input, names(), "--exclude-topic", &args.exclude, scope)?;

    let mut opts = ConvertOptions {
        chunk_size: args.chunk_size.max(1),
        topics: args.topics.clone(),
        ..ConvertOptions::default()
    };
    if let Some((_, compression)) = target {
        opts.compression = compression;
    }
    args.range.resolve_times(
        || first_and_clock(&logs, inputs),
        |e| Failure::usage(input, e),
        &mut opts.start,
        &mut opts.end,
    )?;

    let mut spec = FilterSpec {
        exclude: args.exclude.clone(),
        rename: args.rename.clone(),
        shift: args.shift.unwrap_or(0),
        before: args.before,
        after: args.after,
        split_every: args.split_every,
        split_size: args.split_size,
        restamp_header: args.restamp == Some(Restamp::Header),
        frame_ids: args.frame_ids.clone(),
        anonymise: anonymise_of(args),
        ..FilterSpec::default()
    };
    for w in &args.wheres {
        let (topic, expr) = topic_and_expr("--where", w, input)?;
        spec.wheres.push((topic.to_string(), expr.to_string()));
    }
    for a in &args.around {
        let (topic, expr) = topic_and_expr("--around", a, input)?;
        spec.around.push((topic.to_string(), expr.to_string()));
    }
    let planned = |e: PlanError| match e {
        PlanError::UnknownTopic { flag, topic } => {
            topics::unknown_in(flag, input, &topic, names(), scope)
        }
        PlanError::Usage(m) => Failure::usage(input, Error::invalid_argument(m)),
        PlanError::Read { input: i, message } => Failure::new(
            inputs.get(i).map_or(input, PathBuf::as_path),
            Error::invalid_argument(message),
        ),
    };
    // The `--where` scans run beside the writing pass (`FilterPlan::run`).
    let plan = plan_filter_streaming(&log_refs, &known, &spec, &prepare).map_err(planned)?;

    let merged: Vec<(&robolog::Log<'_>, &Path)> = logs
        .iter()
        .zip(inputs)
        .map(|(l, p)| (l, p.as_path()))
        .collect();
    if args.dry_run {
        let counts = plan
            .run(&log_refs, |filter| {
                robolog::convert::filter_dry_run(&log_refs, &opts, filter)
            })
            .map_err(planned)?
            .map_err(|e| Failure::new(input, e))?;
        print_counts(&counts);
        return Ok(Outcome::Clean);
    }
    let (Some(output), Some((target, _))) = (output, target) else {
        return Err(Failure::usage(input, "OUT is needed unless --dry-run"));
    };
    let mut bar = Progress::bytes(logs.iter().map(|l| l.size()).sum());
    let mut progress = |p: robolog::convert::Progress| bar.update(p.bytes, p.messages);
    let written = plan
        .run(&log_refs, |filter| {
            filter_files_to(
                &merged,
                output,
                target,
                &opts,
                filter,
                args.force,
                &mut progress,
            )
        })
        .inspect_err(|_| bar.finish())
        .map_err(planned)?;
    bar.finish();
    if let Ok(stats) = &written {
        say_anonymised(output, &stats.anonymised);
        for (part, messages) in &stats.parts {
            crate::shown::say!("robolog: wrote {} ({messages} messages)", part.display());
        }
    }
    let shown = shown_output(output, &written);
    crate::convert::say_written(ctx, input, &shown, written, true)
}

/// What a filter wrote, for its last line: a split output is named by its
/// parts.
fn shown_output<E>(output: &Path, written: &Result<robolog::convert::ConvertStats, E>) -> PathBuf {
    match written.as_ref().map(|s| s.parts.as_slice()) {
        Ok([first, .., last]) => PathBuf::from(format!(
            "{} .. {} ({} parts)",
            first.0.display(),
            last.0.display(),
            written.as_ref().map_or(0, |s| s.parts.len())
        )),
        Ok([only]) => only.0.clone(),
        _ => output.to_path_buf(),
    }
}

/// Refuses inputs that are not ROS 1 bags, ROS 2 bags or MCAP files.
fn check_inputs(logs: &[&robolog::Log<'_>], inputs: &[PathBuf]) -> Result<(), Failure> {
    for (log, path) in logs.iter().zip(inputs) {
        if !matches!(
            log.format(),
            logcore::Format::RosBag | logcore::Format::Rosbag2 | logcore::Format::Mcap
        ) {
            return Err(Failure::usage(
                path,
                Error::invalid_argument(format!(
                    "robolog filter copies ROS 1 bags, ROS 2 bags and MCAP files, not a {} log: \
                     convert it to MCAP first",
                    log.format()
                )),
            ));
        }
    }
    Ok(())
}

/// The scan of the messages of a topic where a SQL boolean expression
/// holds, by DataFusion over the topic's table (checked and planned here,
/// scanned beside the writing pass).
#[cfg(feature = "sql")]
pub(crate) fn prepare(log: &robolog::Log<'_>, topic: &str, expr: &str) -> Result<Scan, MatchError> {
    fn matched(e: robolog_sql::WhereError) -> MatchError {
        match e {
            e @ robolog_sql::WhereError::Expression { .. } => MatchError::Expression(e.to_string()),
            e => MatchError::Read(e.to_string()),
        }
    }
    let w = robolog_sql::prepare_where(log, topic, expr).map_err(matched)?;
    Ok(Box::new(
        move |log: &robolog::Log<'_>, keys: &robolog::convert::KeyStream| {
            w.stream(log, keys).map_err(matched)
        },
    ))
}

/// Without the `sql` feature there is no expression to evaluate.
#[cfg(not(feature = "sql"))]
pub(crate) fn prepare(_: &robolog::Log<'_>, _: &str, _: &str) -> Result<Scan, MatchError> {
    Err(MatchError::Expression(
        "needs the `sql` feature of robolog-cli, which this build leaves out".to_string(),
    ))
}

/// Prints the dry run's counts: a line per topic, then the totals.
fn print_counts(counts: &[robolog::convert::TopicCount]) {
    let mut out = output::stdout();
    let width = counts
        .iter()
        .map(|c| c.topic.len())
        .max()
        .unwrap_or(5)
        .max(5);
    let mut lines = vec![format!(
        "{:<width$}  {:>10} {:>14}  {:>10} {:>14}",
        "topic", "kept", "kept bytes", "dropped", "dropped bytes"
    )];
    let (mut k, mut kb, mut d, mut db) = (0, 0, 0, 0);
    for c in counts {
        let renamed = if c.written_as != c.topic {
            format!("  -> {}", c.written_as)
        } else {
            String::new()
        };
        lines.push(format!(
            "{:<width$}  {:>10} {:>14}  {:>10} {:>14}{renamed}",
            c.topic, c.kept, c.kept_bytes, c.dropped, c.dropped_bytes
        ));
        k += c.kept;
        kb += c.kept_bytes;
        d += c.dropped;
        db += c.dropped_bytes;
    }
    lines.push(format!(
        "{:<width$}  {k:>10} {kb:>14}  {d:>10} {db:>14}",
        "total"
    ));
    for l in lines {
        let _ = output::line(&mut out, &l);
    }
    let _ = std::io::Write::flush(&mut out);
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_size("500mb"), Ok(500_000_000));
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("1.5k"), Ok(1500));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("0").is_err());
        assert!(parse_size("1 parsec").is_err());
        assert!(parse_size("").is_err());
    }
}
