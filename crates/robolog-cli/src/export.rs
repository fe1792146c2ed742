//! `robolog export IN -o DIR [--csv] [--topic T]... [--force]`: one table
//! file per topic (see `robolog::export` for the columns, file names and
//! rules), one line per file written on standard output.

use std::path::PathBuf;

use clap::Args;
use robolog::export::{ExportError, ExportOptions, export_csv};

use crate::progress::Progress;
use crate::{Failure, Outcome, open, report_all, write};

/// Arguments of `robolog export`.
#[derive(Debug, Args)]
pub(crate) struct ExportArgs {
    /// The log file (format detected from its first bytes).
    file: PathBuf,
    /// The folder to write the files into (created when missing).
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
    /// CSV files (the default, and for now the only format).
    #[arg(long)]
    csv: bool,
    /// Only this topic (repeat for several).
    #[arg(long = "topic", value_name = "T")]
    topics: Vec<String>,
    /// Replace files that exist.
    #[arg(long)]
    force: bool,
}

pub(crate) fn run(args: &ExportArgs) -> Result<Outcome, Failure> {
    let path = &args.file;
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
        ExportError::UnknownTopic { .. } => {
            Failure::usage(path, std::io::Error::other(e.to_string()))
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
