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
//! one line per file removed; with --topic, those stay.

use std::path::PathBuf;

use clap::Args;
use robolog::export::{ExportError, ExportOptions, export_csv};
use robolog_arrow::parquet::{self as pq, ParquetOptions, export_parquet};

use crate::progress::Progress;
use crate::topics::{self, Scope};
use crate::{Failure, Outcome, open, report_all, write};

/// Arguments of `robolog export`.
#[derive(Debug, Args)]
pub(crate) struct ExportArgs {
    /// The log file (format detected from its first bytes); with
    /// --parquet, one or more log files and folders (searched recursively
    /// for logs).
    #[arg(required = true, value_name = "IN")]
    inputs: Vec<PathBuf>,
    /// The folder to write the files into (created when missing).
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
    /// CSV files (the default).
    #[arg(long)]
    csv: bool,
    /// A Parquet dataset: DIR/<table>/log=<file name>/data.parquet per
    /// table of each log, and DIR/logs/log=<file name>/data.parquet.
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
}

pub(crate) fn run(args: &ExportArgs) -> Result<Outcome, Failure> {
    if args.parquet {
        return run_parquet(args);
    }
    let path = &args.inputs[0];
    if args.inputs.len() > 1 {
        let msg = "CSV export takes one log; give --parquet to export several";
        return Err(Failure::usage(&args.inputs[1], std::io::Error::other(msg)));
    }
    let log = open::open(path)?;
    let opts = ExportOptions {
        topics: args.topics.clone(),
        force: args.force,
        ..ExportOptions::default()
    };
    let mut bar = Progress::bytes(log.bytes().len() as u64);
    let result = export_csv(&log, path, &args.output, &opts, &mut |p| {
        bar.set_total(p.total_bytes);
        bar.update(p.bytes, p.rows);
    });
    bar.finish();
    let stats = result.map_err(|e| match e {
        ExportError::UnknownTopic { topic, topics } => {
            topics::unknown(path, &topic, topics.iter().map(String::as_str), Scope::Log)
        }
        ExportError::NotAFolder(dir) => {
            let msg = "exists and is not a folder";
            Failure::usage(&dir, std::io::Error::other(msg))
        }
        ExportError::Refused(r) => write::refused(r),
        ExportError::Io { path, error } => Failure::new(&path, error),
        ExportError::Read(e) => Failure::new(path, e),
    })?;
    for t in &stats.tables {
        write::report_leftovers(&t.path);
        println!(
            "wrote {} ({} row{}, {} columns)",
            t.path.display(),
            t.rows,
            if t.rows == 1 { "" } else { "s" },
            t.columns
        );
    }
    let mut outcome = report_all(path, stats.problems.iter().cloned());
    for u in &stats.undecoded {
        eprintln!("robolog: {}: {u}", path.display());
        outcome = Outcome::Damaged;
    }
    Ok(outcome)
}

/// `export --parquet`: exit code 0, 1 when an input is no readable log
/// (the others are written), a log is damaged (what reads is written) or
/// a table could not be written, 2 for usage errors and refused outputs.
fn run_parquet(args: &ExportArgs) -> Result<Outcome, Failure> {
    let first = &args.inputs[0];
    // Each log named by its path below the folder given that holds it.
    let (inputs, log_ids): (Vec<_>, Vec<_>) = robolog_arrow::find_named_logs(&args.inputs)
        .map_err(|e| Failure::new(first, e))?
        .into_iter()
        .unzip();
    if inputs.is_empty() {
        let msg = "no log files found";
        return Err(Failure::new(first, std::io::Error::other(msg)));
    }
    let opts = ParquetOptions {
        topics: args.topics.clone(),
        force: args.force,
        limits: open::limits(),
        log_ids,
        ..ParquetOptions::default()
    };
    let total = inputs
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    let mut bar = Progress::bytes(total);
    let result = export_parquet(&inputs, &args.output, &opts, &mut |p| {
        bar.set_total(p.total_bytes);
        bar.update(p.bytes, p.rows);
    });
    bar.finish();
    let done = result.map_err(|e| match e {
        pq::ExportError::UnknownTopic { topic } => {
            // The topics there are, read again for the message only.
            let known: Vec<String> = inputs
                .iter()
                .filter_map(|p| robolog::OpenOptions::new().limits(opts.limits).open(p).ok())
                .filter_map(|log| robolog::LogReader::channels(&log).ok())
                .flat_map(|c| c.into_iter().map(|c| c.topic))
                .collect();
            topics::unknown(first, &topic, known.iter().map(String::as_str), Scope::Logs)
        }
        pq::ExportError::NotAFolder(dir) => {
            let msg = "exists and is not a folder";
            Failure::usage(&dir, std::io::Error::other(msg))
        }
        pq::ExportError::Refused(r) => write::refused(r),
        pq::ExportError::Io { path, error } => Failure::new(&path, error),
        pq::ExportError::Read { path, error } => Failure::new(&path, error),
        e => Failure::new(&args.output, std::io::Error::other(e.to_string())),
    })?;
    let mut outcome = Outcome::Clean;
    for u in &done.unread {
        crate::report(&u.path, &u.error);
        outcome = Outcome::Damaged;
    }
    for log in &done.logs {
        let files = log
            .tables
            .iter()
            .map(|t| (&t.path, t.rows, t.columns))
            .chain([(&log.logs_file, 1, pq::logs_schema().fields().len())]);
        for (path, rows, columns) in files {
            write::report_leftovers(path);
            println!(
                "wrote {} ({rows} row{}, {columns} columns)",
                path.display(),
                if rows == 1 { "" } else { "s" },
            );
        }
        for path in &log.removed {
            println!("removed {} (from an earlier export)", path.display());
        }
        if let Outcome::Damaged = report_all(&log.path, log.problems.iter().cloned()) {
            outcome = Outcome::Damaged;
        }
        for t in log.tables.iter().filter(|t| t.skipped > 0) {
            eprintln!(
                "robolog: {}: table {}: {} damaged message{} left out",
                log.path.display(),
                t.name,
                t.skipped,
                if t.skipped == 1 { "" } else { "s" }
            );
            outcome = Outcome::Damaged;
        }
        for t in log.tables.iter().filter(|t| t.undecoded > 0) {
            crate::report_undecoded(&log.path, &t.name, t.undecoded, t.first_undecoded.as_ref());
            outcome = Outcome::Damaged;
        }
        for f in &log.failed {
            eprintln!(
                "robolog: {}: table {} not written: {}",
                log.path.display(),
                f.name,
                f.error
            );
            outcome = Outcome::Damaged;
        }
    }
    Ok(outcome)
}
