//! `robolog export IN -o DIR [--csv] [--topic T]... [--force]`: one table
//! file per topic (see `robolog::export` for the columns, file names and
//! rules), one line per file written on standard output.
//!
//! `robolog export IN... -o DIR --parquet [--topic T]... [--force]`: the
//! logs (files, and folders searched recursively for logs) as one
//! Hive-partitioned Parquet dataset (see `robolog_arrow::parquet`), one
//! line per file written. With --force and no --topic, an export replaces
//! every partition of each log: once the log is written, its partitions
//! of the tables it did not write (left by an earlier export) are removed,
//! one line per file removed; with --topic, those stay. Every file of a
//! table has the table's one schema across the dataset (columns of every
//! log, missing ones null); files already there that lack columns this
//! export adds are rewritten first, one `rewrote` line each.
//!
//! `robolog export IN --align TOPICS [--rate HZ | --on TOPIC] [--method
//! M]... [--tolerance D] [--start T] [--end T] -o FILE.csv|FILE.parquet
//! [--force]`: the topics on one time base as one table (see
//! [`crate::align`]).
//!
//! `robolog export IN -o DIR --images|--points|--track FORMAT` and
//! `robolog export IN --video OUT`: sensor data as image, point cloud,
//! track and video files (see [`crate::sensors`]).

use std::path::PathBuf;

use clap::Args;
use robolog::export::{Csv, ExportError, ExportOptions, ExportedLog, export_tables, ulog2csv};
use robolog_arrow::parquet::{ParquetOptions, export_parquet};

use crate::context::Context;
use crate::progress::Progress;
use crate::shown::say;
use crate::topics::{self, Scope};
use crate::{Failure, Outcome, output, write};
use std::path::Path;

/// Arguments of `robolog export`.
#[derive(Debug, Args)]
pub(crate) struct ExportArgs {
    /// The log file (format detected from its first bytes); with
    /// --parquet, one or more log files and folders (searched recursively
    /// for logs).
    #[arg(required = true, value_name = "IN")]
    inputs: Vec<PathBuf>,
    /// The folder to write the files into (created when missing); with
    /// --align, the file to write (`.csv` or `.parquet`). Not with
    /// --video, which names its file.
    #[arg(short, long, value_name = "DIR", required_unless_present = "video")]
    output: Option<PathBuf>,
    /// CSV files (the default).
    #[arg(long)]
    csv: bool,
    /// A Parquet dataset: DIR/<table>/log=<file name>/data.parquet per
    /// table of each log, and DIR/logs/log=<file name>/data.parquet. All
    /// files of a table share one schema, so DuckDB, Polars and pyarrow
    /// read a table's folder as one table: the columns of every log
    /// (nulls where a log lacks one), types widened only where no value
    /// is lost (int32 and int64 to int64, ...); a table whose logs give a
    /// column types that nothing holds both of is not written. Exporting
    /// into an existing dataset widens the files already there that lack
    /// the new columns (rewritten through a temporary file, every row and
    /// value kept; no --force needed, as nothing is lost), or refuses
    /// before writing anything when one cannot be read.
    #[arg(long, conflicts_with = "csv")]
    parquet: bool,
    /// Only this topic (repeat for several; with --parquet also a table
    /// name).
    #[arg(long = "topic", value_name = "T")]
    topics: Vec<String>,
    /// Replace files that exist. With --parquet and no --topic, also
    /// remove each log's partitions of the tables this export does not
    /// write (left by an earlier export of the log): DIR/<table>/log=<file
    /// name>/data.parquet only; with --topic, those stay.
    #[arg(long)]
    force: bool,
    /// Put these topics on one time base and write one table to -o FILE:
    /// `TOPIC` or `NAME=TOPIC`, comma-separated (`/imu,odom=/odom`); the
    /// columns are named `NAME.column` (a topic's name is the topic
    /// without its leading `/`), the first column `log_time` is the rows'
    /// time (ns). Rows at the first topic's times unless --rate or --on
    /// says otherwise.
    #[arg(long, value_name = "TOPICS", value_delimiter = ',', conflicts_with_all = ["csv", "parquet", "topics"])]
    align: Vec<String>,
    #[command(flatten)]
    align_args: crate::align::AlignArgs,
    #[command(flatten)]
    times: crate::timearg::TimeRangeArgs,
    #[command(flatten)]
    sensors: crate::sensors::SensorArgs,
}

pub(crate) fn run(ctx: &Context, args: &ExportArgs) -> Result<Outcome, Failure> {
    if args.sensors.any() {
        let req = crate::sensors::Request {
            inputs: &args.inputs,
            output: args.output.as_deref(),
            topics: &args.topics,
            times: &args.times,
            force: args.force,
            args: &args.sensors,
        };
        return crate::sensors::run(ctx, &req);
    }
    if args.sensors.any_option() {
        let msg = "--format and --every go with --images, --video, --points or --track";
        return Err(Failure::usage(&args.inputs[0], msg));
    }
    // Required unless --video is given, which is handled above.
    let output = args.output.as_deref().unwrap_or(Path::new("."));
    if !args.align.is_empty() || args.align_args.any() || args.times.any() {
        if args.align.is_empty() {
            let msg = "--rate, --on, --method, --tolerance, --start and --end go with --align \
                       (--start and --end also with --images, --video, --points and --track)";
            return Err(Failure::usage(&args.inputs[0], msg));
        }
        if args.inputs.len() > 1 {
            let msg = "--align takes one log";
            return Err(Failure::usage(&args.inputs[1], msg));
        }
        return crate::align::run_export(
            ctx,
            &args.inputs[0],
            &args.align,
            &args.align_args,
            &args.times,
            output,
            args.force,
        );
    }
    let opts = ExportOptions {
        topics: args.topics.clone(),
        force: args.force,
        limits: ctx.limits(),
        ..ExportOptions::default()
    };
    if args.parquet {
        return run_parquet(ctx, args, output, opts);
    }
    let path = &args.inputs[0];
    if args.inputs.len() > 1 {
        let msg = "CSV export takes one log; give --parquet to export several";
        return Err(Failure::usage(&args.inputs[1], msg));
    }
    let log = ctx.open(path)?;
    let mut bar = Progress::bytes(log.size());
    let mut progress = |p: robolog::export::Progress| {
        bar.set_total(p.total_bytes);
        bar.update(p.bytes, p.rows);
    };
    // ULog logs as pyulog's ulog2csv writes them, the others as CSV tables.
    let result = match log.as_ulog() {
        Some(_) => ulog2csv(&log, path, output, &opts, &mut progress),
        None => export_tables(&log, path, output, &opts, &Csv, &mut progress),
    };
    bar.finish();
    let done = result.map_err(|e| failure(e, path, Scope::Log))?;
    Ok(report_log(ctx, &done))
}

/// The failure of an export of the inputs starting with `first`.
fn failure(e: ExportError, first: &Path, scope: Scope) -> Failure {
    match e {
        ExportError::UnknownTopic { topic, topics } => {
            topics::unknown(first, &topic, topics.iter().map(String::as_str), scope)
        }
        ExportError::NotAFolder(dir) => {
            let msg = "exists and is not a folder";
            Failure::usage(&dir, msg)
        }
        ExportError::Refused(r) => write::refused(r),
        ExportError::Io { path, error } => Failure::new(&path, error),
        ExportError::Read { path, error } => Failure::new(&path, error),
        e => Failure::new(first, e),
    }
}

/// Prints a line per file written (and removed), and on stderr a line per
/// problem of the log: damage, messages left out or not decoded, tables
/// not written. [`Outcome::Damaged`] when there was any.
fn report_log(ctx: &Context, log: &ExportedLog) -> Outcome {
    for t in log.tables.iter().chain(&log.logs) {
        write::report_leftovers(&t.path);
        output::print_written("wrote", &t.path, t.rows, t.columns, "");
    }
    for path in &log.removed {
        output::print_line(format_args!(
            "removed {} (from an earlier export)",
            path.display()
        ));
    }
    let mut outcome = ctx.report_all(&log.path, log.problems.iter().cloned());
    for t in log.tables.iter().filter(|t| t.skipped > 0) {
        say!(
            "robolog: {}: table {}: {} damaged message{} left out",
            log.path.display(),
            t.name,
            t.skipped,
            if t.skipped == 1 { "" } else { "s" }
        );
        outcome = Outcome::Damaged;
    }
    for t in log.tables.iter().filter(|t| t.undecoded > 0) {
        let first = t.first_undecoded.as_ref();
        if t.raw {
            let first = first.map_or(String::new(), |u| {
                format!("; the first at byte offset {}: {}", u.offset, u.reason)
            });
            say!(
                "robolog: {}: table {}: {} message{} did not decode and {} written as raw bytes{first}",
                log.path.display(),
                t.name,
                t.undecoded,
                if t.undecoded == 1 { "" } else { "s" },
                if t.undecoded == 1 { "is" } else { "are" },
            );
        } else {
            crate::report_undecoded(&log.path, &t.name, t.undecoded, first);
        }
        outcome = Outcome::Damaged;
    }
    for f in &log.failed {
        say!(
            "robolog: {}: table {} not written: {}",
            log.path.display(),
            f.name,
            f.error
        );
        outcome = Outcome::Damaged;
    }
    outcome
}

/// `export --parquet`: exit code 0, 1 when an input is no readable log
/// (the others are written), a log is damaged (what reads is written) or
/// a table could not be written, 2 for usage errors and refused outputs.
fn run_parquet(
    ctx: &Context,
    args: &ExportArgs,
    output: &Path,
    export: ExportOptions,
) -> Result<Outcome, Failure> {
    let first = &args.inputs[0];
    // Each log named by its path below the folder given that holds it.
    let (inputs, log_ids): (Vec<_>, Vec<_>) = robolog_arrow::find_named_logs(&args.inputs)
        .map_err(|e| Failure::new(first, e))?
        .into_iter()
        .unzip();
    if inputs.is_empty() {
        let msg = "no log files found";
        return Err(Failure::new(first, msg));
    }
    let opts = ParquetOptions {
        export,
        log_ids,
        ..ParquetOptions::default()
    };
    let total = inputs
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    let mut bar = Progress::bytes(total);
    let result = export_parquet(&inputs, output, &opts, &mut |p| {
        bar.set_total(p.total_bytes);
        bar.update(p.bytes, p.rows);
    });
    bar.finish();
    let done = result.map_err(|e| failure(e, first, Scope::Logs))?;
    let mut outcome = Outcome::Clean;
    for t in &done.rewritten {
        write::report_leftovers(&t.path);
        output::print_written(
            "rewrote",
            &t.path,
            t.rows,
            t.columns,
            " to the table's widened columns",
        );
    }
    for u in &done.unread {
        ctx.report(&u.path, &u.error);
        outcome = Outcome::Damaged;
    }
    for log in &done.logs {
        if let Outcome::Damaged = report_log(ctx, log) {
            outcome = Outcome::Damaged;
        }
    }
    Ok(outcome)
}
