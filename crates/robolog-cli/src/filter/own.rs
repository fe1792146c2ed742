//! `robolog filter` of a ULog file, a CARLA recording or a VEL log, into
//! a file of the same format ([`robolog::convert::filter_own_format_to`]):
//! one input, an output with that format's extension, the same topic
//! patterns, `--where`, `--around` and time range (CARLA: the time range
//! only), `--shift` (ULog, VEL), `--rename` (ULog message names),
//! `--split-every`/`--split-size` (parts `OUT_000.EXT`, ...); no
//! `--restamp`, `--frame-id`, `--compression` or `--storage`.

use std::io::Read;
use std::path::{Path, PathBuf};

use logcore::{Error, Format};
use robolog::convert::{
    ConvertOptions, FilterSpec, PlanError, filter_own_format_to, filter_topics,
    own_format_extensions, plan_filter_streaming,
};
use robolog::write::OutputPolicy;

use super::{FilterArgs, prepare, print_counts, topic_and_expr};
use crate::context::Context;
use crate::convert::first_and_clock;
use crate::progress::Progress;
use crate::{Failure, Outcome, topics, write};

/// The format of the first input that a filter writes in its own format
/// (a ULog file, CARLA recording or VEL log), by its first bytes.
pub(super) fn own_format(inputs: &[PathBuf]) -> Option<Format> {
    inputs.iter().find_map(|p| {
        let mut head = Vec::with_capacity(robolog::PROBE_LEN);
        std::fs::File::open(p)
            .ok()?
            .take(robolog::PROBE_LEN as u64)
            .read_to_end(&mut head)
            .ok()?;
        robolog::probe(&head).filter(|f| own_format_extensions(*f).is_some())
    })
}

/// What the format is called in messages.
fn called(format: Format) -> &'static str {
    match format {
        Format::ULog => "a ULog file",
        Format::CarlaRecorder => "a CARLA recording",
        _ => "a VEL log",
    }
}

/// Runs `robolog filter` on `inputs`, one of which is of the format
/// `format` (see the module docs).
pub(super) fn run(
    ctx: &Context,
    args: &FilterArgs,
    inputs: &[PathBuf],
    output: Option<&Path>,
    format: Format,
) -> Result<Outcome, Failure> {
    let usage = |path: &Path, m: String| Failure::usage(path, Error::invalid_argument(m));
    let name = called(format);
    let [input] = inputs else {
        return Err(usage(
            &inputs[0],
            format!(
                "{name} is filtered on its own: give one input ({}; several are merged for ROS \
                 bags and MCAP files only)",
                match format {
                    Format::ULog => {
                        "its subscriptions, formats and parameters are the state of one flight, \
                         and two logs' msg_ids and parameters would clash"
                    }
                    Format::CarlaRecorder => {
                        "its frames and actor ids belong to one simulation"
                    }
                    _ =>
                        "its times count from its own recorder's start, so two logs share no clock",
                }
            ),
        ));
    };
    let input = input.as_path();
    let exts = own_format_extensions(format).unwrap_or_default();
    if let Some(out) = output {
        let ext = out
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        if !ext.as_deref().is_some_and(|e| exts.contains(&e)) {
            return Err(usage(
                out,
                format!(
                    "{name} is filtered into the same format: end the output in .{} (robolog \
                     convert writes it as MCAP)",
                    exts.join(" or .")
                ),
            ));
        }
    }
    let refused = |flag: &str, why: &str| usage(input, format!("{flag}: {why}"));
    if args.compression.is_some() || args.storage.is_some() {
        return Err(refused(
            "--compression/--storage",
            &format!("{name} is written in its own format, which has no such choice"),
        ));
    }
    if args.restamp.is_some() || !args.frame_ids.is_empty() {
        return Err(refused(
            "--restamp/--frame-id",
            &format!("{name} has no ROS headers or frames to rewrite; convert it to MCAP for that"),
        ));
    }
    if format != Format::ULog && !args.rename.is_empty() {
        return Err(refused(
            "--rename",
            &format!(
                "{name}'s topics are named by the format's record types, which its readers \
                 know by those names; convert it to MCAP to rename topics"
            ),
        ));
    }
    if format == Format::CarlaRecorder && args.shift.is_some_and(|s| s != 0) {
        return Err(refused(
            "--shift",
            "a CARLA recording's frame times are the simulation's elapsed seconds from its \
             start (its header's date); convert it to MCAP to move times",
        ));
    }
    if format == Format::ULog && args.shift.is_some_and(|s| s % 1000 != 0) {
        return Err(refused(
            "--shift",
            "a ULog file's times are whole microseconds: give a shift of whole microseconds",
        ));
    }
    if format == Format::CarlaRecorder {
        let which = [
            ("--topic", !args.topics.is_empty()),
            ("--exclude-topic", !args.exclude.is_empty()),
            ("--where", !args.wheres.is_empty()),
            ("--around", !args.around.is_empty()),
        ];
        if let Some((flag, _)) = which.iter().find(|(_, given)| *given) {
            return Err(refused(
                flag,
                "a CARLA recording is cut by time only (--start, --end): each frame holds \
                 every packet kind of one tick, and a replayer needs them all; convert it to \
                 MCAP to select topics",
            ));
        }
    }
    let splits = args.split_every.is_some() || args.split_size.is_some();
    // A split output's parts are checked by the writer, all of them
    // before the first is written.
    if let Some(out) = output
        && !args.dry_run
        && !splits
    {
        let mut policy = OutputPolicy::new(args.force);
        policy.add_inputs(inputs);
        write::check(out, &policy)?;
    }
    let log = ctx.open(input)?;
    let known = filter_topics(&log).map_err(|e| Failure::new(input, e))?;
    let scope = topics::Scope::Log;
    let names = || known.iter().map(String::as_str);
    topics::check_patterns(input, names(), "--topic", &args.topics, scope)?;
    topics::check_patterns(input, names(), "--exclude-topic", &args.exclude, scope)?;
    let mut opts = ConvertOptions {
        topics: args.topics.clone(),
        ..ConvertOptions::default()
    };
    let logs = [log];
    args.range.resolve_times(
        || first_and_clock(&logs, inputs),
        |e| Failure::usage(input, e),
        &mut opts.start,
        &mut opts.end,
    )?;
    let [log] = logs;
    let mut spec = FilterSpec {
        exclude: args.exclude.clone(),
        anonymise: super::anonymise_of(args),
        before: args.before,
        after: args.after,
        shift: args.shift.unwrap_or(0),
        rename: args.rename.clone(),
        split_every: args.split_every,
        split_size: args.split_size,
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
    if format == Format::ULog {
        // A ULog table holds every instance of a message.
        let instance = |(flag, topic): (&str, &String)| {
            let (name, multi) = topic.strip_suffix(']')?.split_once('[')?;
            Some(usage(
                input,
                format!(
                    "{flag} {topic}: a ULog file's expressions name a message, whose table holds \
                     every instance in a multi_id column: give '{name}: multi_id = {multi} AND ...'"
                ),
            ))
        };
        let wheres = spec.wheres.iter().map(|(t, _)| ("--where", t));
        let around = spec.around.iter().map(|(t, _)| ("--around", t));
        if let Some(e) = wheres.chain(around).find_map(instance) {
            return Err(e);
        }
    }
    // The own formats' writers need every key before they start.
    let filter = plan_filter_streaming(&[&log], &known, &spec, &prepare)
        .and_then(|p| p.finished(&[&log]))
        .map_err(|e| match e {
            PlanError::UnknownTopic { flag, topic } => {
                topics::unknown_in(flag, input, &topic, names(), scope)
            }
            PlanError::Usage(m) => Failure::usage(input, Error::invalid_argument(m)),
            PlanError::Read { message, .. } => {
                Failure::new(input, Error::invalid_argument(message))
            }
        })?;
    if args.dry_run {
        let counts =
            robolog::convert::filter_dry_run(&[&log], &opts, &filter).map_err(|e| match e {
                e @ Error::InvalidArgument(_) => Failure::usage(input, e),
                e => Failure::new(input, e),
            })?;
        print_counts(&counts);
        return Ok(Outcome::Clean);
    }
    let Some(output) = output else {
        return Err(Failure::usage(input, "OUT is needed unless --dry-run"));
    };
    let mut bar = Progress::bytes(log.size());
    let mut progress = |p: robolog::convert::Progress| bar.update(p.bytes, p.messages);
    let written = filter_own_format_to(
        &log,
        input,
        output,
        &opts,
        &filter,
        args.force,
        &mut progress,
    );
    bar.finish();
    if let Ok(stats) = &written {
        super::say_anonymised(output, &stats.anonymised);
        for (part, messages) in &stats.parts {
            crate::shown::say!("robolog: wrote {} ({messages} messages)", part.display());
        }
    }
    let shown = super::shown_output(output, &written);
    crate::convert::say_written(ctx, input, &shown, written, true)
}
