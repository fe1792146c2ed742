//! `robolog report LOG... -o report.html [--topic T]... [--field F]...
//! [--start T] [--end T] [--max-points N] [--no-check] [--force]`: one
//! self-contained HTML page showing the logs (see the `robolog-report`
//! crate), written through a temporary file renamed when complete.
//! `--start`/`--end` (the grammar of `cat`) are resolved on each log by
//! itself. Exit 0 when written, 1 when a log cannot be read, 2 for a usage
//! error (an output that exists without `--force`, or that is an input; a
//! UTC time for a log whose clock is not anchored to UTC).

use std::path::PathBuf;

use clap::Args;
use robolog_report::{ReportError, ReportOptions, write_report};

use crate::context::Context;
use crate::timearg::TimeRangeArgs;
use crate::{Failure, Outcome};

/// Arguments of `robolog report`.
#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// The logs to show (several overlay their plots, aligned by their
    /// start).
    #[arg(required = true)]
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
    /// Leave out `robolog check`'s findings (saves a second full read).
    #[arg(long)]
    no_check: bool,
    /// Replace the output when it exists.
    #[arg(long)]
    force: bool,
}

/// Runs `robolog report`.
pub(crate) fn run(ctx: &Context, a: &ReportArgs) -> Result<Outcome, Failure> {
    let opts = ReportOptions {
        max_points: a.max_points.max(2),
        budget: a.max_total_points.max(2),
        topics: a.topics.clone(),
        fields: a.fields.clone(),
        check: !a.no_check,
        limits: ctx.limits(),
        start: a.range.start,
        end: a.range.end,
        ..ReportOptions::default()
    };
    let logs = write_report(&a.logs, &a.output, &opts, a.force).map_err(|e| match e {
        ReportError::Log(p, e) => Failure::new(&p, e),
        ReportError::Refused(r) => Failure::usage(&a.output, r),
        ReportError::Io(e) => Failure::new(&a.output, e),
        ReportError::Time(p, m) => Failure::usage(&p, m),
    })?;
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
