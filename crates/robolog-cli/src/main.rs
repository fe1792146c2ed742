//! `robolog`: inspect, dump and check robotics and driving-simulation logs.
//!
//! Exit codes: 0 success, 1 bad or damaged input (everything readable is
//! still printed first), 2 usage error (including an output that is one of
//! the inputs, or that exists when `--force` is not given), 3 a repair
//! that lost data, 4 an input file shrank while being read (see
//! [`fault`]).

mod align;
mod bag;
mod carla;
mod cat;
mod check;
mod context;
mod convert;
mod export;
mod fault;
mod filter;
mod info;
mod mcap;
mod open;
mod output;
mod progress;
mod report;
mod sensors;
mod shown;
mod signals;
#[cfg(feature = "sql")]
mod sql;
mod timearg;
mod topics;
mod ulog;
mod video;
mod write;

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::context::Context;

/// The allocator of the whole program: the readers, Arrow and DataFusion
/// allocate and free many small buffers, often on different threads, where
/// mimalloc takes less CPU than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Inspect, dump and check robotics and driving-simulation logs
/// (ROS bags, VEL logs, ULog, MCAP, CARLA recordings).
#[derive(Debug, Parser)]
#[command(name = "robolog", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Refuse compressed chunks (MCAP zstd/lz4, bag bz2/lz4) that declare
    /// more than BYTES decompressed bytes [default: 536870912 (512 MiB)].
    #[arg(long, global = true, value_name = "BYTES")]
    max_chunk_size: Option<u64>,
    /// Refuse message definitions and schemas whose types nest deeper than
    /// N levels [default: each format's own: ROS 1 and ROS 2 messages 64,
    /// protobuf 100 (which can only be lowered), ULog formats 32; at most
    /// 128].
    #[arg(long, global = true, value_name = "N")]
    max_nesting: Option<usize>,
    /// Refuse a ROS 2 bag whose storage files expand to more than BYTES
    /// together: zstd FILE-compressed files decompressed, databases read
    /// with their -wal or -journal copied [default: 4294967296 (4 GiB)].
    #[arg(long, global = true, value_name = "BYTES")]
    max_bag_expansion: Option<u64>,
}

/// The commands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Print format, version, duration, time range and channels of a log.
    Info(info::InfoArgs),
    /// Print messages, one per line, optionally filtered by topic and time.
    Cat(cat::CatArgs),
    /// Check a file against its format's rules: ASAM OSI trace rules for
    /// MCAP files (profiles osi-3.8 and draft), a full strict read for the
    /// others. Exit 0 when there are no errors, 1 otherwise.
    Check(check::CheckArgs),
    /// Write one CSV file per topic (flattened columns, time first) into a
    /// folder, or with --parquet logs as a Parquet dataset; with --images,
    /// --video, --points or --track camera frames, a video, point clouds
    /// and GPS tracks.
    Export(export::ExportArgs),
    /// Convert a log to MCAP (ROS bags losslessly, MCAP files re-chunked and
    /// filtered), a ROS 1 MCAP file to a bag, or a ROS 1 bag, ROS 2 bag or
    /// ROS 2 MCAP file to a ROS 2 bag folder; OUT's extension (.mcap, .bag,
    /// none for a folder) or --storage chooses; several ROS logs are merged
    /// by log time into one. Shows progress on a terminal.
    #[command(override_usage = "robolog convert [OPTIONS] <IN>... <OUT>")]
    Convert(convert::ConvertArgs),
    /// Cut, clean and rewrite ROS bags, ROS 2 bags and MCAP files: topics
    /// by glob or regex (--topic, --exclude-topic), messages by a SQL
    /// condition (--where), windows around events (--around), time range,
    /// shift and renames; messages copied byte for byte through convert's
    /// writers, latched topics keeping their last message before the cut.
    /// --dry-run counts what would be kept. Shows progress on a terminal.
    #[command(override_usage = "robolog filter [OPTIONS] <IN>... <OUT>")]
    Filter(filter::FilterArgs),
    /// ROS bag tools: info with the fields of `rosbag info`, reindex, fix.
    #[command(subcommand)]
    Bag(bag::BagCommand),
    /// PX4 ULog tools with the exact output of pyulog's ulog_info, ulog_messages, ulog_params and ulog2csv.
    #[command(subcommand)]
    Ulog(ulog::UlogCommand),
    /// CARLA recorder reports with the text of CARLA's show_recorder_file_info,
    /// show_recorder_collisions and show_recorder_actors_blocked.
    #[command(subcommand)]
    Carla(carla::CarlaCommand),
    /// MCAP tools: info like `mcap info`, doctor, recover, compress.
    #[command(subcommand)]
    Mcap(mcap::McapCommand),
    /// SQL over the tables of a set of logs (files and directories, any
    /// formats): one table per topic or ULog message with a `log` column
    /// first, plus `logs` (a row per log) and `topics` (a row per log and
    /// topic); `--schema [TABLE...]` lists them (or those named).
    #[cfg(feature = "sql")]
    Sql(sql::SqlArgs),
    /// One self-contained HTML page showing logs: overview, timeline,
    /// plots with linked zoom, tracks, problems.
    Report(report::ReportArgs),
}

/// How a command ended.
pub(crate) enum Outcome {
    /// Everything was read.
    Clean,
    /// The file is damaged; what could be read was printed, problems were
    /// reported on stderr.
    Damaged,
    /// A repair wrote what it could but data was lost (exit code 3, as
    /// `mcap recover` uses).
    PartlyRecovered,
}

/// What a failure is about: named first on its stderr line.
pub(crate) enum Subject {
    /// An input or output file.
    Path(PathBuf),
    /// Something other than a file: `query`, `standard output`, `sql` (the
    /// command itself).
    #[cfg_attr(not(feature = "sql"), allow(dead_code))]
    Named(&'static str),
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::Path(path) => path.display().fmt(f),
            Subject::Named(name) => f.write_str(name),
        }
    }
}

/// What went wrong, as a failure holds it.
pub(crate) type Cause = Box<dyn std::error::Error + Send + Sync>;

/// A failure that ends a command: what it is about and what went wrong,
/// printed `robolog: SUBJECT: ERROR`.
pub(crate) struct Failure {
    /// What it is about.
    subject: Subject,
    /// What went wrong.
    error: Cause,
    /// The exit code: 1, or 2 for a usage error.
    exit: u8,
}

impl Failure {
    /// A failure with the file at `path` (exit code 1).
    pub(crate) fn new(path: &Path, error: impl Into<Cause>) -> Self {
        Failure {
            subject: Subject::Path(path.to_path_buf()),
            error: error.into(),
            exit: 1,
        }
    }

    /// A usage error (exit code 2) about `path`, such as an output that
    /// would replace the input.
    pub(crate) fn usage(path: &Path, error: impl Into<Cause>) -> Self {
        Failure::new(path, error).into_usage()
    }

    /// A failure about something other than a file (exit code 1), such as
    /// the query of `robolog sql`.
    #[cfg_attr(not(feature = "sql"), allow(dead_code))]
    pub(crate) fn named(subject: &'static str, error: impl Into<Cause>) -> Self {
        Failure {
            subject: Subject::Named(subject),
            error: error.into(),
            exit: 1,
        }
    }

    /// This failure as a usage error (exit code 2).
    pub(crate) fn into_usage(self) -> Self {
        Failure { exit: 2, ..self }
    }

    /// Whether the reader of our output went away (`| head`): an I/O error
    /// of kind `BrokenPipe`, as itself or as a [`logcore::Error`].
    fn is_broken_pipe(&self) -> bool {
        let io = match self.error.downcast_ref::<logcore::Error>() {
            Some(logcore::Error::Io(e)) => Some(&**e),
            _ => self.error.downcast_ref::<std::io::Error>(),
        };
        io.is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

/// Reports on stderr the messages of `table` in the log at `path` that did
/// not decode: their rows are kept with null message columns (one rule for
/// `export --parquet` and `sql`).
pub(crate) fn report_undecoded(
    path: &Path,
    table: &str,
    count: u64,
    first: Option<&robolog_arrow::Undecoded>,
) {
    let first = first.map_or(String::new(), |u| {
        format!("; the first at byte offset {}: {}", u.offset, u.reason)
    });
    shown::say!(
        "robolog: {}: table {table}: {count} message{} did not decode and {} null fields{first}",
        path.display(),
        if count == 1 { "" } else { "s" },
        if count == 1 { "has" } else { "have" },
    );
}

fn main() -> ExitCode {
    signals::install();
    fault::install();
    let cli = Cli::parse();
    let mut limits = robolog::Limits::default();
    if let Some(n) = cli.max_chunk_size {
        limits = limits.with_max_chunk_size(n);
    }
    if let Some(n) = cli.max_nesting {
        limits = limits.with_max_nesting(n);
    }
    if let Some(n) = cli.max_bag_expansion {
        limits = limits.with_max_bag_expansion(n);
    }
    let ctx = &Context::new(limits);
    let result = match &cli.command {
        Command::Info(args) => info::run(ctx, args),
        Command::Cat(args) => cat::run(ctx, args),
        Command::Check(args) => check::run(ctx, args),
        Command::Export(args) => export::run(ctx, args),
        Command::Convert(args) => convert::run(ctx, args),
        Command::Filter(args) => filter::run(ctx, args),
        Command::Bag(cmd) => bag::run(ctx, cmd),
        Command::Ulog(cmd) => ulog::run(ctx, cmd),
        Command::Carla(cmd) => carla::run(ctx, cmd),
        Command::Mcap(cmd) => mcap::run(ctx, cmd),
        #[cfg(feature = "sql")]
        Command::Sql(args) => sql::run(ctx, args),
        Command::Report(args) => report::run(ctx, args),
    };
    match result {
        // An input read in spite of damage (see `Context::note_opened`).
        Ok(Outcome::Clean) if ctx.noted_damage() => ExitCode::from(1),
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
        Ok(Outcome::Damaged) => ExitCode::from(1),
        Ok(Outcome::PartlyRecovered) => ExitCode::from(3),
        // The reader of our output went away (`| head`): not an error.
        Err(f) if f.is_broken_pipe() => ExitCode::SUCCESS,
        Err(f) => {
            ctx.report_failure(&f);
            ExitCode::from(f.exit)
        }
    }
}
