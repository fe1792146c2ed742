//! `robolog sql QUERY PATH... [--format table|csv|json|parquet] [-o FILE]
//! [--force]` and `robolog sql --schema PATH...`: SQL over the tables of
//! a set of logs (see the `robolog-sql` crate: one table per topic or ULog
//! message across every log, a `log` column first, plus `logs`).
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

use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::{Args, ValueEnum};
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use datafusion::error::DataFusionError;
use datafusion::prelude::{SessionConfig, SessionContext};
use futures::StreamExt;
use robolog::write::OutputPolicy;
use robolog_sql::{LogSet, ScanProgress};

use crate::progress::Progress;
use crate::{Failure, Outcome, open, output, write};

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
    Failure::usage(Path::new("query"), std::io::Error::other(msg.to_string()))
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
        E::Read { path, source } => Failure::new(path, std::io::Error::other(source.to_string())),
        E::Merge {
            path,
            table,
            column,
            reason,
        } => Failure::new(
            path,
            std::io::Error::other(format!(
                "table {table}: column {column} does not merge with the other logs: {reason}"
            )),
        ),
        E::Align {
            path,
            table,
            source,
        } => Failure::new(
            path,
            std::io::Error::other(format!("table {table}: {source}")),
        ),
        other => Failure::new(Path::new("sql"), std::io::Error::other(other.to_string())),
    }
}

/// The failure for an error while running a query: a log's (exit code 1)
/// when it came from reading one, else the query's.
fn run_failure(e: &DataFusionError, planning: bool) -> Failure {
    if let DataFusionError::External(inner) = e.find_root()
        && let Some(e) = inner.downcast_ref::<robolog_sql::Error>()
    {
        return log_failure(e);
    }
    if planning {
        bad_query(e)
    } else {
        Failure::new(Path::new("query"), std::io::Error::other(e.to_string()))
    }
}

pub(crate) fn run(args: &SqlArgs) -> Result<Outcome, Failure> {
    let (query, paths) = if args.schema {
        (None, &args.args[..])
    } else {
        match args.args.split_first() {
            Some((q, rest)) if !rest.is_empty() => (Some(q.as_str()), rest),
            _ => {
                return Err(bad_query(
                    "give a query and at least one log: robolog sql QUERY PATH...",
                ));
            }
        }
    };
    if args.format == Format::Parquet && args.output.is_none() && query.is_some() {
        return Err(bad_query("--format parquet needs -o FILE"));
    }
    let mut policy = OutputPolicy::new(args.force);
    if let Some(out) = &args.output {
        write::check(out, &policy)?;
    }
    let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
    let Some(query) = query else {
        let set = LogSet::open_with(&paths, open::limits()).map_err(|e| log_failure(&e))?;
        note_opened(&set);
        return print_schema(&set).map_err(|e| Failure::new(Path::new("stdout"), e));
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::new(Path::new("sql"), e))?;
    let config = SessionConfig::new()
        .with_information_schema(true)
        .with_target_partitions(std::thread::available_parallelism().map_or(2, usize::from));
    let ctx = SessionContext::new_with_config(config);
    // Only queries: before a log is opened, and again on the plan.
    robolog_sql::check_read_only(&ctx, query).map_err(|e| bad_query(&e))?;
    let set = match tables_named(&ctx, query) {
        Some(tables) => LogSet::open_for(&paths, open::limits(), &tables),
        None => LogSet::open_with(&paths, open::limits()),
    }
    .map_err(|e| log_failure(&e))?;
    note_opened(&set);
    // No output may be one of the logs read, even with --force.
    if let Some(out) = &args.output {
        policy.add_inputs(set.logs().iter().map(|l| l.path.clone()));
        write::check(out, &policy)?;
    }
    // The logs the scans read stay open until the set is dropped, which
    // it is not once the answer is out: the system unmaps them all at
    // exit, far faster than closing each after its scan.
    set.hold_scanned_logs();
    set.register(&ctx).map_err(|e| log_failure(&e))?;
    let df = runtime
        .block_on(ctx.sql_with_options(query, robolog_sql::read_only_options()))
        .map_err(|e| run_failure(&e, true))?;
    let schema: SchemaRef = Arc::new(df.schema().as_arrow().clone());
    with_progress(set.progress(), || {
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
    Ok(outcome)
}

/// Says what the readers worked around when opening the logs (the rule of
/// every command: see `open::note_opened`).
fn note_opened(set: &LogSet) {
    for (path, w) in set.open_warnings() {
        open::note_opened(path, [w]);
    }
}

/// The tables of the default schema that `query` reads, when it reads no
/// other (`None` for a query that does not parse, or that names another
/// schema or catalog, such as `information_schema`: every table is opened
/// then).
fn tables_named(ctx: &SessionContext, query: &str) -> Option<Vec<String>> {
    let state = ctx.state();
    let options = state.config().options();
    let statement = state
        .sql_to_statement(query, &options.sql_parser.dialect)
        .ok()?;
    let refs = state.resolve_table_references(&statement).ok()?;
    let (catalog, schema) = (
        &options.catalog.default_catalog,
        &options.catalog.default_schema,
    );
    refs.iter()
        .map(|r| {
            let here =
                r.schema().is_none_or(|s| s == schema) && r.catalog().is_none_or(|c| c == catalog);
            here.then(|| r.table().to_string())
        })
        .collect()
}

/// Runs `f` with a progress bar on stderr (when it is a terminal) that
/// follows the scans' counters.
fn with_progress<T>(counters: Arc<ScanProgress>, f: impl FnOnce() -> T) -> T {
    let done = Arc::new(AtomicBool::new(false));
    let watcher = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut bar = Progress::bytes(0);
            while !done.load(Ordering::Acquire) {
                bar.set_total(counters.bytes_total());
                bar.update(counters.bytes_done(), counters.rows());
                // Woken early when the query is done, so that the command
                // does not wait out the interval.
                std::thread::park_timeout(Duration::from_millis(100));
            }
            bar.finish();
        })
    };
    let out = f();
    done.store(true, Ordering::Release);
    watcher.thread().unpark();
    let _ = watcher.join();
    out
}

/// `table` then one `  column: type` line per column, for every table;
/// a table whose schemas do not merge across the logs is reported on
/// stderr (and the outcome is damaged).
fn print_schema(set: &LogSet) -> std::io::Result<Outcome> {
    let mut out = output::stdout();
    let mut outcome = Outcome::Clean;
    let mut names = set.table_names();
    names.push(robolog_sql::LOGS);
    for name in names {
        let Some(schema) = set.schema(name) else {
            continue;
        };
        // The table, and the topic (ULog: message) it holds.
        match set.table_key(name) {
            Some(key) => output::line(&mut out, &format!("{name} ({key})"))?,
            None => output::line(&mut out, name)?,
        }
        if let Err(e) = set.check(name) {
            out.flush()?;
            let f = log_failure(&e);
            crate::report(&f.path, &f.error);
            outcome = Outcome::Damaged;
        }
        for f in schema.fields() {
            output::line(&mut out, &format!("  {}: {}", f.name(), f.data_type()))?;
        }
    }
    out.flush()?;
    Ok(outcome)
}

/// Writes the result to `-o FILE` (atomically) or stdout.
fn write_result(
    args: &SqlArgs,
    policy: &OutputPolicy,
    schema: &SchemaRef,
    batches: impl Iterator<Item = Result<RecordBatch, DataFusionError>>,
) -> Result<(), Failure> {
    // A query error met while writing, reported as itself rather than as
    // a write error.
    let failed: RefCell<Option<DataFusionError>> = RefCell::new(None);
    let mut batches = batches.map_while(|b| match b {
        Ok(b) => Some(b),
        Err(e) => {
            *failed.borrow_mut() = Some(e);
            None
        }
    });
    let result = match &args.output {
        Some(dest) => write::write_output(dest, policy, |f| {
            let r = match args.format {
                Format::Parquet => encode_parquet(schema, &mut batches, f),
                format => encode(format, schema, &mut batches, f),
            };
            r.map_err(|e| logcore::Error::from(std::io::Error::other(e)))
                .and_then(|()| match failed.borrow().as_ref() {
                    Some(_) => Err(logcore::Error::from(std::io::Error::other("query failed"))),
                    None => Ok(()),
                })
        }),
        None => {
            let mut out = output::stdout();
            encode(args.format, schema, &mut batches, &mut out)
                .and_then(|()| out.flush().map_err(|e| e.to_string()))
                .map_err(|e| Failure::new(Path::new("stdout"), std::io::Error::other(e)))
        }
    };
    drop(batches);
    match failed.into_inner() {
        Some(e) => Err(run_failure(&e, false)),
        None => result,
    }
}

/// Writes `batches` to `w` as text in `format`.
fn encode<W: Write>(
    format: Format,
    schema: &SchemaRef,
    batches: &mut dyn Iterator<Item = RecordBatch>,
    w: &mut W,
) -> Result<(), String> {
    let err = |e: ArrowError| e.to_string();
    match format {
        Format::Table | Format::Parquet => {
            let left_out =
                robolog_sql::output::write_table(schema, batches, &mut *w).map_err(err)?;
            if left_out > 0 {
                eprintln!(
                    "robolog: sql: the table shows the first {} rows; {left_out} more were left \
                     out (--format csv or json writes every row)",
                    robolog_sql::output::MAX_TABLE_ROWS
                );
            }
            Ok(())
        }
        Format::Csv => robolog_sql::output::write_csv(schema, batches, w).map_err(err),
        Format::Json => robolog_sql::output::write_json(batches, w).map_err(err),
    }
}

/// Writes `batches` to `w` as a Parquet file (zstd).
fn encode_parquet<W: Write + Send>(
    schema: &SchemaRef,
    batches: &mut dyn Iterator<Item = RecordBatch>,
    w: &mut W,
) -> Result<(), String> {
    robolog_sql::output::write_parquet(schema, batches, w).map_err(|e| e.to_string())
}
