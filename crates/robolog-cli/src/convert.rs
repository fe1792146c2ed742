//! `robolog convert IN... OUT [--compression zstd|lz4|none] [--chunk-size N]
//! [--storage sqlite3|mcap] [--topic T]... [--start S] [--end S]
//! [--encoding protobuf|json] [--force] [--ros2]`: any log to MCAP, a ROS 1
//! MCAP file (or a bag) to a bag, or a ROS 1 bag, a ROS 2 bag or a ROS 2
//! MCAP file to a ROS 2 bag folder; OUT's extension (`.mcap`, `.bag`, none
//! for a folder) or `--storage` chooses. Several inputs of one ROS
//! generation are merged by log time into one output
//! ([`robolog::convert::convert_files_to`]); the filters apply to the
//! merged stream. `--topic` takes topic names, globs and `re:` regular
//! expressions ([`robolog::convert::TopicPattern`]).

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use logcore::{Error, Format, LogReader, TimeModel};
use mcapfile::Compression;
use robolog::convert::{
    ConvertFileError, ConvertOptions, ConvertStats, Encoding, Storage, Target, check_merge,
    convert_files_to,
};
use robolog::write::OutputPolicy;

use crate::context::Context;
use crate::progress::Progress;
use crate::timearg::FilterArgs;
use crate::{Failure, Outcome, topics, write};

/// Arguments of `robolog convert`.
#[derive(Debug, Args)]
pub(crate) struct ConvertArgs {
    /// The logs to convert (formats detected from their first bytes), then
    /// OUT, the file to write. Several logs are merged by log time into one
    /// output (ties in the order given): ROS 1 bags (and ROS 1 MCAP files),
    /// or ROS 2 bags and ROS 2 MCAP files, not both; a topic in several
    /// must have the same type and definition, and becomes one channel.
    ///
    /// OUT: `.mcap` for MCAP, `.bag` for a ROS 1 bag (from an
    /// MCAP file whose channels are ROS 1, or a bag), a name without
    /// extension (or any name with --storage) for a ROS 2 bag folder (from
    /// a ROS 1 bag, mapped as with --ros2, a ROS 2 bag or a ROS 2 MCAP
    /// file).
    #[arg(value_name = "IN... OUT", required = true)]
    paths: Vec<PathBuf>,
    /// Chunk compression of the output (default: zstd for MCAP, none for
    /// a bag; bags have no zstd). For a ROS 2 bag folder: zstd compresses
    /// the storage file once complete (compression_mode FILE), none (the
    /// default) leaves it uncompressed.
    #[arg(long, value_enum)]
    compression: Option<Codec>,
    /// Write a ROS 2 bag folder with this storage plugin (default for a
    /// folder: sqlite3, a .db3 file; mcap: a .mcap file), with a
    /// metadata.yaml as rosbag2 writes it.
    #[arg(long, value_enum)]
    storage: Option<StorageArg>,
    /// Uncompressed chunk size of the output, in bytes.
    #[arg(long, value_name = "N", default_value_t = 1 << 20)]
    chunk_size: u64,
    #[command(flatten)]
    filter: FilterArgs,
    /// Replace OUT when it exists.
    #[arg(long)]
    force: bool,
    /// A ROS 1 bag to ROS 2 MCAP (profile `ros2`, CDR payloads, ROS 2
    /// definitions), as rosbags-convert maps the types: `pkg/Type` becomes
    /// `pkg/msg/Type`, `Header.seq` is dropped, `time`/`duration` become
    /// `builtin_interfaces` types; fields of types whose ROS 2 definition
    /// differs are mapped by name (the run says which). A ROS 2 bag folder
    /// output always maps so.
    #[arg(long)]
    ros2: bool,
    /// Message encoding of a ULog, CARLA or VEL conversion (default:
    /// protobuf, which both Foxglove and Rerun show; json for JSON Schema
    /// channels). Other inputs keep their own encoding: giving it for them
    /// is a usage error.
    #[arg(long, value_enum)]
    encoding: Option<EncodingArg>,
}

/// The message encodings of `--encoding`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum EncodingArg {
    Protobuf,
    Json,
}

/// The chunk compressions of `--compression`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Codec {
    Zstd,
    Lz4,
    None,
}

/// The storage plugins of `--storage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum StorageArg {
    Sqlite3,
    Mcap,
}

/// The format OUT's extension (and `--storage`) chooses, with the chunk
/// compression of an MCAP file or a bag; another extension, or
/// `--storage` or a compression the target does not have, is a usage
/// error.
fn target(args: &ConvertArgs) -> Result<(Target, Compression), Failure> {
    choose_target(args.output()?, args.storage, args.compression)
}

/// The format `output`'s extension and `storage` choose, with the chunk
/// compression `compression` gives it (`convert` and `filter` alike).
pub(crate) fn choose_target(
    output: &Path,
    storage: Option<StorageArg>,
    compression: Option<Codec>,
) -> Result<(Target, Compression), Failure> {
    let usage = |msg: &str| Failure::usage(output, Error::InvalidArgument(msg.into()));
    let target = match (Target::of(output), storage) {
        (Some(Target::Mcap | Target::Bag), Some(_)) => {
            return Err(usage(
                "--storage writes a ROS 2 bag folder: give an output without the .mcap or \
                 .bag extension",
            ));
        }
        (Some(Target::Rosbag2 { .. }) | None, Some(s)) => Target::Rosbag2 {
            storage: match s {
                StorageArg::Sqlite3 => Storage::Sqlite3,
                StorageArg::Mcap => Storage::Mcap,
            },
            zstd: false,
        },
        (Some(t), None) => t,
        (None, None) => {
            return Err(usage(
                "the output's extension chooses its format: end it in .mcap or .bag, or give \
                 a folder name without extension (or --storage) for a ROS 2 bag",
            ));
        }
    };
    Ok(match (compression, target) {
        (Some(Codec::Zstd), Target::Bag) => {
            return Err(usage(
                "ROS bags have no zstd compression: use --compression lz4 or none",
            ));
        }
        (Some(Codec::Lz4), Target::Rosbag2 { .. }) => {
            return Err(usage(
                "a ROS 2 bag is compressed with zstd only: use --compression zstd or none",
            ));
        }
        (Some(Codec::Zstd), Target::Rosbag2 { storage, .. }) => (
            Target::Rosbag2 {
                storage,
                zstd: true,
            },
            Compression::None,
        ),
        (Some(Codec::Zstd) | None, Target::Mcap) => (target, Compression::Zstd),
        (Some(Codec::Lz4), _) => (target, Compression::Lz4),
        (Some(Codec::None) | None, _) => (target, Compression::None),
    })
}

impl ConvertArgs {
    /// The inputs: every path but the last.
    fn inputs(&self) -> &[PathBuf] {
        &self.paths[..self.paths.len().saturating_sub(1)]
    }

    /// The output: the last path, after at least one input.
    fn output(&self) -> Result<&Path, Failure> {
        match self.paths.as_slice() {
            [input] => Err(Failure::usage(
                input,
                Error::InvalidArgument(
                    "no output: give the file to write after the input(s): robolog convert \
                     IN... OUT"
                        .into(),
                ),
            )),
            paths => Ok(paths.last().map_or(Path::new(""), PathBuf::as_path)),
        }
    }
}

/// The checks each input passes on its own: `--ros2` takes a bag to a
/// ROS 2 output, a ROS 2 bag folder is written from ROS logs only,
/// `--encoding` applies to generated channels written to MCAP.
fn check_input(
    input: &Path,
    log: &robolog::Log<'_>,
    args: &ConvertArgs,
    target: Target,
) -> Result<(), Failure> {
    if args.ros2 && (log.format() != Format::RosBag || target == Target::Bag) {
        return Err(Failure::usage(
            input,
            Error::InvalidArgument(
                "--ros2 converts a ROS 1 bag to ROS 2 MCAP or a ROS 2 bag folder: give a .bag \
                 input and a .mcap output or a folder"
                    .into(),
            ),
        ));
    }
    if matches!(target, Target::Rosbag2 { .. })
        && !matches!(
            log.format(),
            Format::RosBag | Format::Rosbag2 | Format::Mcap
        )
    {
        return Err(Failure::usage(
            input,
            Error::InvalidArgument(format!(
                "a ROS 2 bag folder is written from a ROS 1 bag, a ROS 2 bag or a ROS 2 MCAP \
                 file, not from {}: convert it to .mcap instead",
                log.format()
            )),
        ));
    }
    let generated = matches!(
        log.format(),
        Format::ULog | Format::CarlaRecorder | Format::VelLog
    );
    if args.encoding.is_some() && !(generated && target == Target::Mcap) {
        return Err(Failure::usage(
            input,
            Error::InvalidArgument(
                "--encoding applies to ULog, CARLA and VEL logs converted to MCAP; \
                 other logs keep their own encoding"
                    .into(),
            ),
        ));
    }
    Ok(())
}

/// What the messages about several inputs name: the one input, or every
/// input joined with commas.
pub(crate) fn label_of(inputs: &[PathBuf]) -> PathBuf {
    match inputs {
        [one] => one.clone(),
        _ => PathBuf::from(
            inputs
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        ),
    }
}

/// Where topics are looked for: one log or several.
pub(crate) fn scope_of(inputs: &[PathBuf]) -> topics::Scope {
    if inputs.len() == 1 {
        topics::Scope::Log
    } else {
        topics::Scope::Logs
    }
}

/// The topics a conversion of `logs` (opened from `inputs`) writes from,
/// each input's in turn.
pub(crate) fn known_topics(
    logs: &[robolog::Log<'_>],
    inputs: &[PathBuf],
) -> Result<Vec<String>, Failure> {
    let mut known = Vec::new();
    for (log, path) in logs.iter().zip(inputs) {
        known.extend(robolog::convert::topics(log).map_err(|e| Failure::new(path, e))?);
    }
    Ok(known)
}

/// The first log time of any of `logs` and the first one's clock: what
/// relative and UTC `--start`/`--end` resolve against.
pub(crate) fn first_and_clock(
    logs: &[robolog::Log<'_>],
    inputs: &[PathBuf],
) -> Result<(Option<logcore::Timestamp>, TimeModel), Failure> {
    let mut first = None;
    let mut model = None;
    for (log, path) in logs.iter().zip(inputs) {
        let summary = log.summary().map_err(|e| Failure::new(path, e))?;
        model.get_or_insert(summary.time_model);
        first = match (first, summary.start) {
            (Some(a), Some(b)) => Some(std::cmp::min(a, b)),
            (a, b) => a.or(b),
        };
    }
    Ok((first, model.unwrap_or(TimeModel::new(logcore::Clock::Unix))))
}

/// Runs `robolog convert`.
pub(crate) fn run(ctx: &Context, args: &ConvertArgs) -> Result<Outcome, Failure> {
    let (inputs, output) = (args.inputs(), args.output()?);
    let (target, compression) = target(args)?;
    let mut policy = OutputPolicy::new(args.force);
    policy.add_inputs(inputs);
    write::check(output, &policy)?;
    let mut logs = Vec::with_capacity(inputs.len());
    for input in inputs {
        let log = ctx.open(input)?;
        check_input(input, &log, args, target)?;
        logs.push(log);
    }
    // What the messages of a merge are about: every input.
    let label = label_of(inputs);
    let input = label.as_path();
    if !args.filter.topics.is_empty() {
        let known = known_topics(&logs, inputs)?;
        let known = known.iter().map(String::as_str);
        topics::check_patterns(
            input,
            known,
            "--topic",
            &args.filter.topics,
            scope_of(inputs),
        )?;
    }

    let mut opts = ConvertOptions {
        compression,
        chunk_size: args.chunk_size.max(1),
        topics: args.filter.topics.clone(),
        ros2: args.ros2,
        encoding: match args.encoding {
            Some(EncodingArg::Json) => Encoding::Json,
            Some(EncodingArg::Protobuf) | None => Encoding::Protobuf,
        },
        ..ConvertOptions::default()
    };
    args.filter.range.resolve_times(
        || first_and_clock(&logs, inputs),
        |e| Failure::usage(input, e),
        &mut opts.start,
        &mut opts.end,
    )?;
    let merged: Vec<(&robolog::Log<'_>, &Path)> = logs
        .iter()
        .zip(inputs)
        .map(|(l, p)| (l, p.as_path()))
        .collect();
    if merged.len() > 1 {
        // What does not merge is a usage error; a log that does not read
        // is not.
        check_merge(&merged, target, &opts).map_err(|e| match e {
            e @ Error::InvalidArgument(_) => Failure::usage(input, e),
            e => Failure::new(input, e),
        })?;
    }

    let mut bar = Progress::bytes(logs.iter().map(|l| l.size()).sum());
    let mut progress = |p: robolog::convert::Progress| bar.update(p.bytes, p.messages);
    let written = convert_files_to(&merged, output, target, &opts, args.force, &mut progress);
    bar.finish();
    say_written(ctx, input, output, written, false)
}

/// What a conversion (or `filter`) wrote: the reader's warnings and the
/// damage skipped reported, one line said, and the run's outcome; its
/// failure naming the input (what the conversion found in its bytes; an
/// invalid argument a usage error where `invalid_is_usage`) or the output
/// (I/O errors, refusals).
pub(crate) fn say_written(
    ctx: &Context,
    input: &Path,
    output: &Path,
    written: Result<ConvertStats, ConvertFileError>,
    invalid_is_usage: bool,
) -> Result<Outcome, Failure> {
    let stats: ConvertStats = match written {
        Ok(s) => s,
        Err(ConvertFileError::Convert(e @ Error::InvalidArgument(_))) if invalid_is_usage => {
            return Err(Failure::usage(input, e));
        }
        Err(ConvertFileError::Convert(e)) => return Err(Failure::new(input, e)),
        Err(ConvertFileError::Refused(r)) => return Err(write::refused(r)),
        Err(ConvertFileError::Io(e)) => return Err(Failure::new(output, e)),
        Err(e @ ConvertFileError::Target(_)) => return Err(Failure::new(output, e)),
    };
    // Once each: the reader's warnings (said when it opened) and the
    // damage skipped, which may be among them.
    for w in stats.warnings.iter().chain(&stats.skipped) {
        ctx.report(input, w);
    }
    crate::shown::say!(
        "robolog: {}: {} messages on {} channel(s) to {}{}",
        input.display(),
        stats.messages,
        stats.channels,
        output.display(),
        match stats.skipped.len() {
            0 => String::new(),
            n => format!(" ({n} damaged stretches skipped)"),
        }
    );
    Ok(if stats.skipped.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Damaged
    })
}
