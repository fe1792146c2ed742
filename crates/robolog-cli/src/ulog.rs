//! `robolog ulog ...`: PX4 ULog tools whose standard output equals that of
//! pyulog 1.3.0's `ulog_info`, `ulog_messages`, `ulog_params` and
//! `ulog2csv`, so scripts written against those keep working.
//!
//! Unlike pyulog, damage is also reported on stderr (one line per
//! problem) and makes the exit code 1, after the full output.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use ulogfile::pyulog::{self, CsvOptions, ParamFormat, ParamOptions};

use robolog::write::{OutputPolicy, WriteError, write_atomically};

use crate::context::Context;
use crate::shown::say;
use crate::{Failure, Outcome, write};

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

/// The output formats of `ulog params`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Fmt {
    Csv,
    Octave,
    Qgc,
}

/// The kinds of default values of `ulog params --default`.
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
    /// Replace OUTPUT when it exists.
    #[arg(long)]
    force: bool,
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
    /// Replace CSV files that exist.
    #[arg(long)]
    force: bool,
    /// One CSV file, DIR/<log name>.csv, of every topic instance on one
    /// time base instead of one file per instance: a first `timestamp`
    /// column (µs since boot) every 1/10 s (or as --rate or --on say),
    /// then each instance's columns prefixed by its file name part
    /// (`vehicle_attitude_0.q[0]`), each the instance's last sample at or
    /// before the row's time (or as --method says), empty before the
    /// instance's first sample.
    #[arg(long)]
    single: bool,
    #[command(flatten)]
    align: crate::align::AlignArgs,
}

/// Runs a `robolog ulog` subcommand.
pub(crate) fn run(ctx: &Context, cmd: &UlogCommand) -> Result<Outcome, Failure> {
    let path = match cmd {
        UlogCommand::Info(a) => &a.file,
        UlogCommand::Messages(a) => &a.file,
        UlogCommand::Params(a) => &a.file,
        UlogCommand::Csv(a) => &a.file,
    };
    let opened = ctx.open_as(path, logcore::Format::ULog)?;
    let Some(log) = opened.as_ulog() else {
        return Ok(Outcome::Clean);
    };
    let io = |e: std::io::Error| Failure::new(path, e);
    let mut out = crate::output::stdout();
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
                say!(
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
                    say!("robolog: {}: {msg}", path.display());
                    return Ok(Outcome::Damaged);
                }
            };
            match &a.output {
                Some(p) => {
                    let policy = OutputPolicy::new(a.force).reading(path);
                    write::write_output(p, &policy, |f| f.write_all(text.as_bytes()))?;
                }
                None => out.write_all(text.as_bytes()).map_err(io)?,
            }
        }
        UlogCommand::Csv(a) if a.single => {
            let messages: Option<Vec<String>> = a
                .messages
                .as_deref()
                .map(|m| m.split(',').map(String::from).collect());
            let delimiter = match a.delimiter.as_bytes() {
                [d] => *d,
                _ => return Err(Failure::usage(path, "--single takes a one-byte delimiter")),
            };
            let out = crate::align::SingleCsv {
                messages: messages.as_deref(),
                dir: a.output.as_deref(),
                delimiter,
                time_s: a.time_s,
                time_e: a.time_e,
                force: a.force,
            };
            return crate::align::run_ulog_single(ctx, path, &opened, &a.align, &out);
        }
        UlogCommand::Csv(a) if a.align.any() => {
            let msg = "--rate, --on, --method and --tolerance go with --single";
            return Err(Failure::usage(path, msg));
        }
        UlogCommand::Csv(a) => {
            let opts = CsvOptions {
                output: a.output.clone(),
                messages: a
                    .messages
                    .as_deref()
                    .map(|m| m.split(',').map(String::from).collect()),
                delimiter: a.delimiter.clone(),
                time_s: a.time_s,
                time_e: a.time_e,
            };
            let policy = OutputPolicy::new(a.force).reading(path);
            // Every file is checked before the first is written, so a
            // refusal leaves no half-done set of files. (A folder that
            // does not exist yet holds nothing to refuse, and is created
            // by the real run, which prints that it does.)
            if opts.output.as_ref().is_none_or(|d| d.is_dir()) {
                let mut first = None;
                let _ = pyulog::ulog2csv(log, path, &opts, &mut std::io::sink(), |name, _| {
                    if first.is_none() {
                        first = policy.check(name).err();
                    }
                    Ok(())
                });
                if let Some(r) = first {
                    return Err(write::refused(r));
                }
            }
            let mut refusal = None;
            let written = pyulog::ulog2csv(log, path, &opts, &mut out, |name, body| {
                write::report_leftovers(name);
                write_atomically(name, &policy, |f| body(f)).map_err(|e| match e {
                    WriteError::Refused(r) => {
                        refusal = Some(r);
                        std::io::Error::other("refused")
                    }
                    WriteError::Io(e) | WriteError::Write(e) => e,
                })
            });
            if let Err(e) = written {
                out.flush().map_err(io)?;
                return Err(match refusal {
                    Some(r) => write::refused(r),
                    None => Failure::new(&e.path, e.error),
                });
            }
        }
    }
    out.flush().map_err(io)?;
    drop(out);
    Ok(ctx.report_all(path, log.warnings.iter().chain(&log.truncation)))
}
