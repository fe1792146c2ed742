//! `robolog sql QUERY PATH... [--format table|csv|json|parquet] [-o FILE]
//! [--force]` and `robolog sql --schema PATH...`: SQL over the tables of
//! a set of logs (see the `robolog-sql` crate: one table per topic or ULog
//! message across every log, a `log` column first, plus `logs`), each
//! table's logs opened when the query's plan asks for it.
//!
//! SQL over logs only reads: a statement other than a query (`COPY`,
//! `CREATE TABLE`, `INSERT`, `SET`, ...) is refused before any log is
//! opened. No `-o FILE` may be one of the logs read, even with `--force`.
//!
//! A message that does not decode is a row whose message columns are null
//! (so the rows do not depend on the columns selected), named on stderr
//! when a query reads its fields.
//!
//! Exit codes: 2 for a query that does not parse or plan, a statement that
//! is not a query, and other usage errors; 1 for a log that cannot be
//! opened, merged or read, or messages that did not decode.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::{Args, ValueEnum};
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::error::DataFusionError;
use futures::StreamExt;
use robolog::write::OutputPolicy;
use robolog_sql::output as out;
use robolog_sql::{LogSet, ScanProgress};

use crate::context::Context;
use crate::progress::Progress;
use crate::shown::{Mode, say};
use crate::{Failure, Outcome, output, write};

/// Arguments of `robolog sql`.
#[derive(Debug, Args)]
pub(crate) struct SqlArgs {
    /// The query, then the logs: files, and directories searched
    /// recursively for logs of any format (with --schema: only the logs).
    #[arg(value_name = "QUERY|PATH", required = true)]
    args: Vec<String>,
    /// List the tables and their columns with types instead of querying.
    #[arg(long)]
    schema: bool,
    /// How to write the result: an aligned table, CSV with a header, JSON
    /// (one object per line) or Parquet (needs -o).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Write the result to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Replace FILE when it exists.
    #[arg(long)]
    force: bool,
}

/// The output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// An aligned table.
    Table,
    /// CSV with a header line.
    Csv,
    /// One JSON object per row, one per line.
    Json,
    /// A Parquet file (zstd).
    Parquet,
}

/// A usage error (exit code 2) about the query.
fn bad_query(msg: impl std::fmt::Display) -> Failure {
    Failure::named("query", msg.to_string()).into_usage()
}

/// The failure for an error of the `robolog-sql` crate: the log it names
/// (exit code 1).
fn log_failure(e: &robolog_sql::Error) -> Failure {
    use robolog_sql::Error as E;
    match e {
        E::Io { path, source } => {
            Failure::new(path, std::io::Error::new(source.kind(), source.to_string()))
        }
        E::Open { path, source } => Failure::new(path, source.clone()),
        E::Read { path, .. } | E::Merge { path, .. } | E::Align { path, .. } => {
            // The error's text, less the path it starts with.
            let text = e.to_string();
            let prefix = format!("{}: ", path.display());
            Failure::new(path, text.strip_prefix(&prefix).unwrap_or(&text))
        }
        e => Failure::named("sql", e.to_string()),
    }
}

/// The failure for an error while planning or running a query: a log's
/// (exit code 1) when it came from opening or reading one, else the
/// query's.
fn run_failure(e: &DataFusionError, planning: bool) -> Failure {
    match robolog_sql::Error::of(e) {
        Some(e) => log_failure(e),
        None if planning => bad_query(e),
        None => Failure::named("query", e.to_string()),
    }
}

/// Runs `robolog sql`.
pub(crate) fn run(ctx: &Context, args: &SqlArgs) -> Result<Outcome, Failure> {
    let (query, paths) = match args.args.split_first() {
        _ if args.schema => (None, &args.args[..]),
        Some((q, rest)) if !rest.is_empty() => (Some(q.as_str()), rest),
        _ => {
            let usage = "give a query and at least one log: robolog sql QUERY PATH...";
            return Err(bad_query(usage));
        }
    };
    if args.format == Format::Parquet && args.output.is_none() && query.is_some() {
        return Err(bad_query("--format parquet needs -o FILE"));
    }
    let mut policy = OutputPolicy::new(args.force);
    if let Some(out) = &args.output {
        write::check(out, &policy)?;
    }
    if paths.iter().any(|p| {
        let p: &std::path::Path = p.as_ref();
        p.is_dir()
            || p.extension()
                .is_some_and(|e| e == "yaml" || e == "zstd" || e == "db3")
    }) {
        // ROS 2 bags may be read through temporary copies.
        write::report_temporary_copies();
    }
    let Some(query) = query else {
        let set = LogSet::open_with(paths, ctx.limits()).map_err(|e| log_failure(&e))?;
        for (path, w) in &set.open_warnings() {
            ctx.note_opened(path, [w]);
        }
        // What is wrong with a table is reported (and damages).
        let mut outcome = Outcome::Clean;
        out::write_schema(&set, output::stdout(), |e| {
            ctx.report_failure(&log_failure(&e));
            outcome = Outcome::Damaged;
        })
        .map_err(|e| Failure::named("standard output", e))?;
        return Ok(outcome);
    };
    let runtime = tokio::runtime::Runtime::new().map_err(|e| Failure::named("sql", e))?;
    let session = robolog_sql::session();
    // Only queries: before a log is opened, and again on the plan.
    robolog_sql::check_read_only(&session, query).map_err(|e| bad_query(&e))?;
    let set = LogSet::find(paths, ctx.limits()).map_err(|e| log_failure(&e))?;
    // No output may be one of the logs read, even with --force.
    if let Some(out) = &args.output {
        policy.add_inputs(set.logs().iter().map(|l| l.path.clone()));
        write::check(out, &policy)?;
    }
    // The logs the scans read stay open until the set is dropped, which
    // it is not once the answer is out: the system unmaps them all at
    // exit, far faster than closing each after its scan.
    set.hold_scanned_logs();
    set.register(&session).map_err(|e| log_failure(&e))?;
    let planned =
        runtime.block_on(session.sql_with_options(query, robolog_sql::read_only_options()));
    // What the readers worked around (the rule of every command).
    for (path, w) in &set.open_warnings() {
        ctx.note_opened(path, [w]);
    }
    let df = planned.map_err(|e| run_failure(&e, true))?;
    let schema = Arc::new(df.schema().as_arrow().clone());
    with_progress(&set.progress(), || {
        let mut stream = runtime
            .block_on(df.execute_stream())
            .map_err(|e| run_failure(&e, true))?;
        let batches = std::iter::from_fn(|| runtime.block_on(stream.next()));
        write_result(args, &policy, &schema, batches)
    })?;
    // Messages that did not decode are rows with null fields, whatever the
    // query selects; they are named here, and the exit code is 1.
    let mut outcome = Outcome::Clean;
    for u in set.progress().undecoded() {
        crate::report_undecoded(&u.path, &u.table, u.count, u.first.as_ref());
        outcome = Outcome::Damaged;
    }
    // The answer is complete (written, or renamed into place): what the
    // set holds is left to the exit (see above). On errors it is dropped.
    std::mem::forget(set);
    // Except the temporary copies of inputs (a ROS 2 bag's), which the
    // exit would leave behind.
    robolog::write::remove_temporary_copies();
    Ok(outcome)
}

/// Runs `f` with a progress bar of the scans on stderr (on a terminal).
fn with_progress<T>(counters: &ScanProgress, f: impl FnOnce() -> T) -> T {
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            let mut bar = Progress::bytes(0);
            while !done.load(Ordering::Acquire) {
                bar.set_total(counters.bytes_total());
                bar.update(counters.bytes_done(), counters.rows());
                // Woken early when the query is done, so that the command
                // does not wait out the interval.
                std::thread::park_timeout(Duration::from_millis(100));
            }
            bar.finish();
        });
        let out = f();
        done.store(true, Ordering::Release);
        watcher.thread().unpark();
        out
    })
}

/// Writes the result to `-o FILE` (atomically) or stdout.
fn write_result(
    args: &SqlArgs,
    policy: &OutputPolicy,
    schema: &SchemaRef,
    batches: impl Iterator<Item = Result<RecordBatch, DataFusionError>>,
) -> Result<(), Failure> {
    let format = match args.format {
        Format::Table => out::Format::Table,
        Format::Csv => out::Format::Csv,
        Format::Json => out::Format::Json,
        Format::Parquet => out::Format::Parquet,
    };
    // A query error met while writing, reported as itself rather than as
    // a write error.
    let mut failed = None;
    let written = |w: &mut (dyn Write + Send)| {
        out::write(format, schema, batches, w).map_err(|e| match e {
            out::WriteError::Query(e) => failed.insert(e).to_string(),
            out::WriteError::Write(e) => e,
        })
    };
    let left_out = match &args.output {
        Some(dest) => write::write_output(dest, policy, |f| written(f)),
        None => written(&mut output::stdout_unlocked(match args.format {
            Format::Json => Mode::Json,
            _ => Mode::Text,
        }))
        .map_err(|e| Failure::named("standard output", e)),
    };
    if let Some(e) = failed {
        return Err(run_failure(&e, false));
    }
    let left_out = left_out?;
    if left_out > 0 {
        say!(
            "robolog: sql: the table shows the first {} rows; {left_out} more were left out \
             (--format csv or json writes every row)",
            out::MAX_TABLE_ROWS,
        );
    }
    Ok(())
}
