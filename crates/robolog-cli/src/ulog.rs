//! `robolog ulog ...`: PX4 ULog tools whose standard output equals that of
//! pyulog 1.3.0's `ulog_info`, `ulog_messages`, `ulog_params` and
//! `ulog2csv`, so scripts written against those keep working.
//!
//! Unlike pyulog, damage is also reported on stderr (one line per
//! problem) and makes the exit code 1, after the full output.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use ulogfile::ULog;
use ulogfile::pyulog::{self, ParamFormat, ParamOptions};

use crate::{Failure, Outcome, open, report};

/// The `robolog ulog` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum UlogCommand {
    /// Like `ulog_info`: start time, duration, dropouts, info messages, topics.
    Info(InfoArgs),
    /// Like `ulog_messages`: the logged text messages.
    Messages(FileArg),
    /// Like `ulog_params`: the parameters.
    Params(ParamsArgs),
    /// Like `ulog2csv`: one CSV file per topic instance.
    Csv(CsvArgs),
}

/// A ULog file.
#[derive(Debug, Args)]
pub(crate) struct FileArg {
    /// The .ulg file.
    file: PathBuf,
}

/// Arguments of `robolog ulog info`.
#[derive(Debug, Args)]
pub(crate) struct InfoArgs {
    /// The .ulg file.
    file: PathBuf,
    /// Verbose: perf counters and the full multi-info messages.
    #[arg(short, long)]
    verbose: bool,
    /// Show one multi-info message (e.g. `perf_counter_preflight`).
    #[arg(short, long, value_name = "KEY")]
    message: Option<String>,
    /// With --message: a newline between the chunks.
    #[arg(short, long)]
    newline: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Fmt {
    Csv,
    Octave,
    Qgc,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum DefaultKind {
    System,
    #[value(name = "current_setup")]
    CurrentSetup,
}

/// Arguments of `robolog ulog params`.
#[derive(Debug, Args)]
pub(crate) struct ParamsArgs {
    /// The .ulg file.
    file: PathBuf,
    /// Output format.
    #[arg(short, long, value_enum, default_value = "csv")]
    format: Fmt,
    /// CSV delimiter.
    #[arg(short = 'l', long, default_value = ",")]
    delimiter: String,
    /// Only the initial values.
    #[arg(short, long)]
    initial: bool,
    /// CSV: a second line per parameter with the change timestamps.
    #[arg(short, long)]
    timestamps: bool,
    /// The default values of this kind instead (implies --initial).
    #[arg(short, long, value_enum)]
    default: Option<DefaultKind>,
    /// Write to this file instead of standard output.
    output: Option<PathBuf>,
}

/// Arguments of `robolog ulog csv`.
#[derive(Debug, Args)]
pub(crate) struct CsvArgs {
    /// The .ulg file.
    file: PathBuf,
    /// Output directory (created, one level, when missing).
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Only these topics (comma-separated).
    #[arg(short, long, value_name = "TOPICS")]
    messages: Option<String>,
    /// CSV delimiter.
    #[arg(short, long, default_value = ",")]
    delimiter: String,
    /// Only samples with timestamp >= this many seconds (absolute).
    #[arg(long = "time-s", value_name = "S", allow_negative_numbers = true)]
    time_s: Option<i64>,
    /// Only samples before the first with timestamp >= this many seconds.
    #[arg(long = "time-e", value_name = "S", allow_negative_numbers = true)]
    time_e: Option<i64>,
}

pub(crate) fn run(cmd: &UlogCommand) -> Result<Outcome, Failure> {
    let path = match cmd {
        UlogCommand::Info(a) => &a.file,
        UlogCommand::Messages(a) => &a.file,
        UlogCommand::Params(a) => &a.file,
        UlogCommand::Csv(a) => &a.file,
    };
    let opened = open::open_as(path, logcore::Format::ULog)?;
    let Some(log) = opened.as_ulog() else {
        return Ok(Outcome::Clean);
    };
    let io = |e: std::io::Error| Failure::new(path, e);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match cmd {
        UlogCommand::Info(a) => {
            let text = match &a.message {
                Some(key) => pyulog::multi_message(log, key, a.newline),
                None => pyulog::info(log, a.verbose),
            };
            out.write_all(text.as_bytes()).map_err(io)?;
        }
        UlogCommand::Messages(_) => {
            let (text, gap) = pyulog::messages(log);
            out.write_all(text.as_bytes()).map_err(io)?;
            if gap.is_some() {
                out.flush().map_err(io)?;
                eprintln!(
                    "robolog: {}: note: PX4 events embedded in this log are not decoded (only logged strings are shown)",
                    path.display()
                );
            }
        }
        UlogCommand::Params(a) => {
            let opt = ParamOptions {
                format: match a.format {
                    Fmt::Csv => ParamFormat::Csv,
                    Fmt::Octave => ParamFormat::Octave,
                    Fmt::Qgc => ParamFormat::Qgc,
                },
                delimiter: a.delimiter.clone(),
                initial: a.initial,
                timestamps: a.timestamps,
                default: a.default.map(|d| match d {
                    DefaultKind::System => 0,
                    DefaultKind::CurrentSetup => 1,
                }),
            };
            let text = match pyulog::params(log, &opt) {
                Ok(t) => t,
                Err(msg) => {
                    out.write_all(pyulog::load_output(log).as_bytes())
                        .map_err(io)?;
                    out.flush().map_err(io)?;
                    eprintln!("robolog: {}: {msg}", path.display());
                    return Ok(Outcome::Damaged);
                }
            };
            match &a.output {
                Some(p) => std::fs::write(p, text).map_err(|e| Failure::new(p, e))?,
                None => out.write_all(text.as_bytes()).map_err(io)?,
            }
        }
        UlogCommand::Csv(a) => csv(log, path, a, &mut out)?,
    }
    out.flush().map_err(io)?;
    drop(out);
    let mut damaged = false;
    for w in log.warnings.iter().chain(&log.truncation) {
        report(path, &w.clone().into());
        damaged = true;
    }
    Ok(if damaged {
        Outcome::Damaged
    } else {
        Outcome::Clean
    })
}

fn csv(log: &ULog<'_>, path: &Path, a: &CsvArgs, out: &mut impl Write) -> Result<(), Failure> {
    let io = |e: std::io::Error| Failure::new(path, e);
    let filter: Option<Vec<&str>> = a.messages.as_deref().map(|m| m.split(',').collect());
    let input = path.to_string_lossy();
    let mut prefix = input.to_string();
    if prefix.to_lowercase().ends_with(".ulg") {
        prefix.truncate(prefix.len() - 4);
    }
    if let Some(dir) = &a.output {
        if !dir.is_dir() {
            writeln!(out, "Creating output directory {}", dir.display()).map_err(io)?;
            std::fs::create_dir(dir).map_err(|e| Failure::new(dir, e))?;
        }
        let base = Path::new(&prefix)
            .file_name()
            .map(|b| b.to_string_lossy().to_string())
            .unwrap_or_default();
        prefix = dir.join(base).to_string_lossy().to_string();
    }
    // pyulog loads the file after creating the folder.
    out.write_all(pyulog::load_output(log).as_bytes())
        .map_err(io)?;
    for d in pyulog::datasets(log) {
        if filter
            .as_ref()
            .is_some_and(|f| !f.contains(&d.name.as_str()))
        {
            continue;
        }
        let name = pyulog::csv_file_name(&prefix, d);
        writeln!(out, "Writing {name} ({} data points)", d.samples.len()).map_err(io)?;
        let file = std::fs::File::create(&name).map_err(|e| Failure::new(Path::new(&name), e))?;
        let mut w = std::io::BufWriter::new(file);
        pyulog::csv(d, &a.delimiter, a.time_s, a.time_e, &mut w)
            .and_then(|()| w.flush())
            .map_err(|e| Failure::new(Path::new(&name), e))?;
    }
    Ok(())
}
