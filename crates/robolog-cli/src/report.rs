//! `robolog report LOG...|FOLDER... -o report.html [--topic T]... [--field
//! F]... [--start T] [--end T] [--align start|TOPIC] [--max-points N]
//! [--no-check] [--force]`:
//! one self-contained HTML page showing the logs (see the `robolog-report`
//! crate), written through a temporary file renamed when complete. A
//! folder that is not itself a log (a ROS 2 bag's folder is one) stands
//! for the logs in it, found by [`logs_in`]. `--start`/`--end` (the grammar
//! of `cat`) are resolved on each log by itself. Exit 0 when written, 1
//! when a log cannot be read, 2 for a usage error (an output that exists
//! without `--force`, or that is an input; a folder without a log; a UTC
//! time for a log whose clock is not anchored to UTC).

use std::io::Read as _;
use std::path::{Path, PathBuf};

use clap::Args;
use robolog_report::{ReportError, ReportOptions, write_report};

use crate::context::Context;
use crate::timearg::TimeRangeArgs;
use crate::{Failure, Outcome};

/// Arguments of `robolog report`.
#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// The logs to show (several overlay their plots, aligned by their
    /// start); a folder that is not a log stands for the logs in it.
    #[arg(required = true, value_name = "LOG|FOLDER")]
    logs: Vec<PathBuf>,
    /// The page to write.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// Only these topics (repeatable; default: every one).
    #[arg(long = "topic", value_name = "TOPIC")]
    topics: Vec<String>,
    /// Only these fields (repeatable; a path such as `accel[0]` or
    /// `pose.position`, which takes the fields inside it).
    #[arg(long = "field", value_name = "FIELD")]
    fields: Vec<String>,
    /// Only the messages from --start until before --end, resolved on each
    /// log (seconds after that log's first message count from it).
    #[command(flatten)]
    range: TimeRangeArgs,
    /// Points per plotted series at most: longer series keep the smallest
    /// and largest value of each of N/2 equal parts of the time span.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    max_points: usize,
    /// Points in the whole page at most (the largest series are reduced
    /// further).
    #[arg(long, value_name = "N", default_value_t = 400_000)]
    max_total_points: usize,
    /// The time 0 of each log's plots: `start` (the log's start) or a
    /// TOPIC (its first message on that topic), so that several logs
    /// overlay aligned at that event. A log without a message on TOPIC
    /// counts from its start (said on stderr and in the page).
    #[arg(long, value_name = "start|TOPIC", default_value = "start")]
    align: String,
    /// Leave out `robolog check`'s findings (saves a second full read).
    #[arg(long)]
    no_check: bool,
    /// Replace the output when it exists.
    #[arg(long)]
    force: bool,
}

/// Runs `robolog report`.
pub(crate) fn run(ctx: &Context, a: &ReportArgs) -> Result<Outcome, Failure> {
    let mut inputs = Vec::new();
    for p in &a.logs {
        if p.is_dir() && robolog::probe_folder(p).is_none() {
            let found = logs_in(p).map_err(|e| Failure::new(p, e))?;
            if found.is_empty() {
                return Err(Failure::usage(
                    p,
                    "no log in this folder (looked for every format robolog reads, in its subfolders too)",
                ));
            }
            inputs.extend(found);
        } else {
            inputs.push(p.clone());
        }
    }
    let opts = ReportOptions {
        max_points: a.max_points.max(2),
        budget: a.max_total_points.max(2),
        topics: a.topics.clone(),
        fields: a.fields.clone(),
        check: !a.no_check,
        limits: ctx.limits(),
        start: a.range.start,
        end: a.range.end,
        align: (a.align != "start").then(|| a.align.clone()),
        ..ReportOptions::default()
    };
    let logs = write_report(&inputs, &a.output, &opts, a.force).map_err(|e| match e {
        ReportError::Log(p, e) => Failure::new(&p, e),
        ReportError::Refused(r) => Failure::usage(&a.output, r),
        ReportError::Io(e) => Failure::new(&a.output, e),
        ReportError::Time(p, m) => Failure::usage(&p, m),
    })?;
    if a.align != "start" {
        for l in logs.iter().filter(|l| l.align.is_none()) {
            crate::shown::say!(
                "robolog: {}: no message on {}: its plots count from its start",
                l.path,
                a.align
            );
        }
    }
    let size = std::fs::metadata(&a.output).map_or(0, |m| m.len());
    let points: usize = logs.iter().map(|l| l.points()).sum();
    let problems: usize = logs.iter().map(|l| l.problems.len()).sum();
    crate::shown::say!(
        "robolog: wrote {} ({} log{}, {:.1} MB, {points} points plotted, {problems} problem{} listed)",
        a.output.display(),
        logs.len(),
        if logs.len() == 1 { "" } else { "s" },
        size as f64 / 1e6,
        if problems == 1 { "" } else { "s" },
    );
    Ok(Outcome::Clean)
}

/// The logs in the folder `dir` and its subfolders, sorted by path: every
/// file whose first bytes are those of a format robolog reads, and every
/// folder that is a log itself (a ROS 2 bag's, with its `metadata.yaml`),
/// which is not looked into. Other files are skipped, each with a note on
/// stderr; links are not followed into folders.
fn logs_in(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for p in entries {
        let meta = std::fs::symlink_metadata(&p)?;
        if meta.is_dir() {
            if robolog::probe_folder(&p).is_some() {
                out.push(p);
            } else {
                out.extend(logs_in(&p)?);
            }
            continue;
        }
        let mut head = Vec::with_capacity(robolog::PROBE_LEN);
        let read = std::fs::File::open(&p)
            .and_then(|f| f.take(robolog::PROBE_LEN as u64).read_to_end(&mut head));
        match read {
            Ok(_) if robolog::detect(&head).is_ok() => out.push(p),
            Ok(_) => crate::shown::say!("robolog: {}: skipped: not a log", p.display()),
            Err(e) => crate::shown::say!("robolog: {}: skipped: {e}", p.display()),
        }
    }
    Ok(out)
}
