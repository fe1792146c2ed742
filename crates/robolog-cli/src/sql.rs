//! `robolog sql QUERY PATH... [--format table|csv|json|parquet] [-o FILE]
//! [--force] [--strict]` and `robolog sql --schema [TABLE...] PATH...`:
//! SQL over the tables of a set of logs (see the `robolog-sql` crate: one
//! table per topic or ULog message across every log, a `log` column
//! first, plus `logs`, a row per log, and `topics`, a row per log and
//! topic), each table's logs opened when the query's plan asks for it.
//!
//! Table names are matched exactly, else ignoring case where that names
//! one table (SQL lower-cases unquoted names: `FROM Position` reads the
//! table `Position`); a name that names none is a query error naming the
//! closest tables and how to quote them. `--schema` lists every table, or
//! those named among its arguments: an argument that is an existing file
//! or directory is a log, any other a table name (matched as in queries).
//!
//! SQL over logs only reads: a statement other than a query (`COPY`,
//! `CREATE TABLE`, `INSERT`, `SET`, ...) is refused before any log is
//! opened. No `-o FILE` may be one of the logs read, even with `--force`.
//!
//! A message that does not decode is a row whose message columns are null
//! (so the rows do not depend on the columns selected), named on stderr
//! when a query reads its fields.
//!
//! Exit codes: 2 for a query that does not parse or plan (a table that is
//! not there among them), a statement that is not a query, a `--schema`
//! table that is not there, and other usage errors; 1 for a log that
//! cannot be opened, merged or read, and for an answer that may be
//! incomplete: messages whose fields the query read did not decode (their
//! values are lost), records of a log the query read could not be read (a
//! truncation, damaged records skipped). What a reader worked around while
//! reading every record (a bag's index rebuilt by scanning its chunks) is
//! a warning on stderr: exit 0 with a complete answer, 1 with `--strict`.

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
    /// recursively for logs of any format. With --schema: the tables to
    /// list, if any, and the logs.
    #[arg(value_name = "QUERY|TABLE|PATH", required = true)]
    args: Vec<String>,
    /// List the tables and their columns with types instead of querying:
    /// every table, or the tables named (`robolog sql --schema TABLE...
    /// PATH...`). An argument that is an existing file or directory is a
    /// log, any other a table name, matched as in queries: exactly, else
    /// ignoring case where that names one table. A table that is not
    /// there is an error (exit 2) naming the closest ones. When no
    /// argument exists, all are logs (the missing one is the error).
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
    /// Make warnings about the logs errors (exit 1): what a reader worked
    /// around while reading every record, such as a bag's index rebuilt
    /// by scanning its chunks. Without it they are said on stderr and a
    /// complete answer exits 0. (Lost data, such as records that could not
    /// be read or messages whose fields did not decode, is exit 1 always.)
    #[arg(long)]
    strict: bool,
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
        E::UnknownTable { .. } | E::AmbiguousTable { .. } | E::NotAQuery { .. } => bad_query(e),
        E::DataFusion(e) => run_failure(e, true),
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
    // With --schema, the tables named among the logs.
    let (paths, tables) = match query {
        Some(_) => (paths.iter().collect(), Vec::new()),
        None => logs_and_tables(paths),
    };
    if paths.iter().any(|p| {
        let p: &std::path::Path = p.as_ref();
        p.is_dir()
            || p.extension()
                .is_some_and(|e| e == "yaml" || e == "zstd" || e == "db3")
    }) {
        // ROS 2 bags may be read through temporary copies.
        write::report_temporary_copies();
    }
    let mut warned = Warned::new(ctx, args.strict);
    let Some(query) = query else {
        return schema(ctx, &paths, &tables, &mut warned);
    };
    let runtime = tokio::runtime::Runtime::new().map_err(|e| Failure::named("sql", e))?;
    let session = robolog_sql::session();
    // Only queries: before a log is opened, and again on the plan.
    robolog_sql::check_read_only(&session, query).map_err(|e| bad_query(&e))?;
    let set = LogSet::find(&paths, ctx.limits()).map_err(|e| log_failure(&e))?;
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
    // A table that is not there names the closest ones.
    let planned = runtime.block_on(robolog_sql::query(&session, query));
    // What the readers worked around (said, an error with --strict).
    warned.report(&set);
    let df = planned.map_err(|e| log_failure(&e))?;
    let schema = Arc::new(df.schema().as_arrow().clone());
    with_progress(&set.progress(), || {
        let mut stream = runtime
            .block_on(df.execute_stream())
            .map_err(|e| run_failure(&e, true))?;
        let batches = std::iter::from_fn(|| runtime.block_on(stream.next()));
        write_result(args, &policy, &schema, batches)
    })?;
    // Messages that did not decode are rows with null fields, whatever the
    // query selects; they are named here, and the exit code is 1 when the
    // query read their fields (their values are lost).
    let mut outcome = warned.outcome();
    for u in set.progress().undecoded() {
        crate::report_undecoded(&u.path, &u.table, u.count, u.first.as_ref());
        outcome = Outcome::Damaged;
    }
    // Records of a log the query read that could not be read: the answer
    // may lack their rows.
    for l in set.progress().lost() {
        report_lost(ctx, &l);
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

/// The arguments of `--schema`: the logs (each an existing file or
/// directory) and the table names (any other argument). When no argument
/// exists, all are logs, as before tables could be named: the first that
/// is missing is then the error, as it always was.
fn logs_and_tables(args: &[String]) -> (Vec<&String>, Vec<&String>) {
    let (logs, tables): (Vec<&String>, Vec<&String>) = args
        .iter()
        .partition(|a| std::fs::symlink_metadata(a).is_ok());
    if logs.is_empty() {
        (tables, logs)
    } else {
        (logs, tables)
    }
}

/// `robolog sql --schema [TABLE...] PATH...`: every table of the logs, or
/// the tables named (opening the logs for those only).
fn schema(
    ctx: &Context,
    paths: &[&String],
    tables: &[&String],
    warned: &mut Warned<'_>,
) -> Result<Outcome, Failure> {
    let set = if tables.is_empty() {
        LogSet::open_with(paths, ctx.limits())
    } else {
        LogSet::find(paths, ctx.limits())
    }
    .map_err(|e| log_failure(&e))?;
    let mut names: Vec<String> = Vec::new();
    for &t in tables {
        let name = set.resolve_table(t).map_err(|e| schema_failure(t, &e))?;
        if !names.contains(&name) {
            names.push(name);
        }
    }
    warned.report(&set);
    // What is wrong with a table is reported (and damages).
    let mut damaged = false;
    let problem = |e| {
        ctx.report_failure(&log_failure(&e));
        damaged = true;
    };
    let written = if tables.is_empty() {
        out::write_schema(&set, output::stdout(), problem)
    } else {
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        out::write_schema_of(&set, &names, output::stdout(), problem)
    };
    written.map_err(|e| Failure::named("standard output", e))?;
    // Opening the tables' logs to build their schemas may say more.
    warned.report(&set);
    // What the logs lost when they were opened: the tables they list may
    // be incomplete.
    for (path, e) in set.lost_records() {
        ctx.report(&path, e);
        damaged = true;
    }
    Ok(if damaged {
        Outcome::Damaged
    } else {
        warned.outcome()
    })
}

/// The failure for a `--schema` table that `set.resolve_table` refused: a
/// usage error (exit 2) naming the closest tables or the candidates, else
/// the log's.
fn schema_failure(table: &str, e: &robolog_sql::Error) -> Failure {
    use robolog_sql::Error as E;
    let names = |names: &[String]| {
        names
            .iter()
            .map(|n| robolog_sql::quoted(n))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let text = match e {
        E::UnknownTable { closest, .. } if closest.is_empty() => format!(
            "{}: no such table in the logs, nor a file or directory (--schema alone lists \
             the tables)",
            robolog_sql::quoted(table)
        ),
        E::UnknownTable { closest, .. } => format!(
            "{}: no such table in the logs, nor a file or directory; the closest: {}",
            robolog_sql::quoted(table),
            names(closest)
        ),
        E::AmbiguousTable { candidates, .. } => format!(
            "{}: no table of that name exactly, and {} differing from it only in case: {} \
             (give one as it is written)",
            robolog_sql::quoted(table),
            candidates.len(),
            names(candidates)
        ),
        e => return log_failure(e),
    };
    Failure::named("--schema", text).into_usage()
}

/// Reports records of a log that a query's scan could not read.
fn report_lost(ctx: &Context, l: &robolog_sql::LostRecords) {
    let first = match (&l.first, l.offset) {
        (Some(e), _) => format!("; the first: {e}"),
        (None, Some(o)) => format!("; the first at byte {o}"),
        (None, None) => String::new(),
    };
    ctx.report(
        &l.path,
        format_args!(
            "table {}: {} record{} could not be read, so the answer may lack rows{first}",
            l.table,
            l.count,
            if l.count == 1 { "" } else { "s" },
        ),
    );
}

/// The warnings about the logs said so far (what a reader worked around
/// while reading every record: [`LogSet::open_warnings`]): each said once
/// on stderr; errors (exit 1) with `--strict` only.
struct Warned<'a> {
    ctx: &'a Context,
    strict: bool,
    any: bool,
}

impl<'a> Warned<'a> {
    fn new(ctx: &'a Context, strict: bool) -> Self {
        Warned {
            ctx,
            strict,
            any: false,
        }
    }

    /// Says the warnings of `set` (each once per run).
    fn report(&mut self, set: &LogSet) {
        for (path, w) in set.open_warnings() {
            self.ctx.report(&path, w);
            self.any = true;
        }
    }

    /// [`Outcome::Damaged`] when warnings were said with `--strict`.
    fn outcome(&self) -> Outcome {
        if self.strict && self.any {
            Outcome::Damaged
        } else {
            Outcome::Clean
        }
    }
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
