//! `robolog mcap ...`: MCAP tools after the `mcap` CLI: `info` (from the
//! summary, like `mcap info`), `doctor` (the structural invariants),
//! `recover` (rebuild a damaged or unfinished file) and `compress`
//! (rewrite with another chunk compression).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use logcore::Format;
use mcapfile::doctor::{error_count, write_findings};
use mcapfile::recover::{Recovery, recover};
use mcapfile::{Compression, DoctorOptions, Mcap, WriteOptions, doctor};

use robolog::write::OutputPolicy;

use crate::context::Context;
use crate::shown::say;
use crate::{Failure, Outcome};
use crate::{output, write};

/// The `robolog mcap` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum McapCommand {
    /// Like `mcap info`: library, profile, messages, chunks and compression
    /// ratios, duration, channels with counts, rates and schemas.
    Info(FileArg),
    /// Check the structural rules of the MCAP specification; exit 1 on errors.
    Doctor(DoctorArgs),
    /// Rebuild a valid, indexed file from a damaged or unfinished one.
    /// Exits like `mcap recover`: 0 when everything was recovered, 3 when
    /// data was lost but some was recovered, 1 when nothing could be.
    Recover(RewriteArgs),
    /// Rewrite a file with another chunk compression.
    Compress(RewriteArgs),
}

/// An MCAP file.
#[derive(Debug, Args)]
pub(crate) struct FileArg {
    /// The .mcap file.
    file: PathBuf,
}

/// Arguments of `robolog mcap doctor`.
#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    /// The .mcap file.
    file: PathBuf,
    /// Report decreasing log times as errors, not warnings.
    #[arg(long)]
    strict_message_order: bool,
}

/// The chunk compressions of `--compression`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Codec {
    Zstd,
    Lz4,
    None,
}

/// Arguments of `robolog mcap recover` and `compress`.
#[derive(Debug, Args)]
pub(crate) struct RewriteArgs {
    /// The input file.
    input: PathBuf,
    /// The file to write.
    output: PathBuf,
    /// Chunk compression of the output.
    #[arg(long, value_enum, default_value = "zstd")]
    compression: Codec,
    /// Uncompressed chunk size of the output, in bytes.
    #[arg(long, default_value_t = 1 << 20)]
    chunk_size: u64,
    /// Replace OUTPUT when it exists.
    #[arg(long)]
    force: bool,
}

/// Runs a `robolog mcap` subcommand.
pub(crate) fn run(ctx: &Context, cmd: &McapCommand) -> Result<Outcome, Failure> {
    match cmd {
        McapCommand::Info(a) => info(ctx, &a.file),
        McapCommand::Doctor(a) => run_doctor(ctx, a),
        McapCommand::Recover(a) => rewrite(ctx, a, true),
        McapCommand::Compress(a) => rewrite(ctx, a, false),
    }
}

/// The failure for an I/O error while writing what `path` holds.
fn io(path: &Path) -> impl Fn(std::io::Error) -> Failure + '_ {
    move |e| Failure::new(path, e)
}

/// `mcap info`: the summary of the file at `path`.
fn info(ctx: &Context, path: &Path) -> Result<Outcome, Failure> {
    let bytes = ctx.open_bytes_as(path, Format::Mcap)?;
    let mcap = Mcap::with_limits(&bytes, ctx.limits()).map_err(|e| Failure::new(path, e))?;
    let info = mcapfile::info::Info::new(&mcap).map_err(|e| Failure::new(path, e))?;
    let mut out = output::stdout();
    info.write(&mut out).map_err(io(path))?;
    out.flush().map_err(io(path))?;
    for w in &info.warnings {
        ctx.report(path, w);
    }
    Ok(clean_if(info.warnings.is_empty()))
}

/// [`Outcome::Clean`] when `clean`, else [`Outcome::Damaged`].
fn clean_if(clean: bool) -> Outcome {
    if clean {
        Outcome::Clean
    } else {
        Outcome::Damaged
    }
}

/// `mcap doctor`: the structural rules, one line per finding.
fn run_doctor(ctx: &Context, a: &DoctorArgs) -> Result<Outcome, Failure> {
    let bytes = ctx.open_bytes_as(&a.file, Format::Mcap)?;
    let options = DoctorOptions {
        strict_message_order: a.strict_message_order,
    };
    let findings = doctor(&bytes, options);
    let mut out = output::stdout();
    write_findings(&mut out, &findings).map_err(io(&a.file))?;
    out.flush().map_err(io(&a.file))?;
    let errors = error_count(&findings);
    if errors == 0 {
        return Ok(Outcome::Clean);
    }
    let warnings = findings.len() - errors;
    say!(
        "robolog: {}: {errors} errors, {warnings} warnings",
        a.file.display()
    );
    Ok(Outcome::Damaged)
}

/// `mcap recover` (when `recovering`) and `mcap compress`: the file
/// rewritten into OUTPUT.
fn rewrite(ctx: &Context, a: &RewriteArgs, recovering: bool) -> Result<Outcome, Failure> {
    let policy = OutputPolicy::new(a.force).reading(&a.input);
    write::check(&a.output, &policy)?;
    let bytes = ctx.open_bytes_as(&a.input, Format::Mcap)?;
    let opts = WriteOptions {
        compression: match a.compression {
            Codec::Zstd => Compression::Zstd,
            Codec::Lz4 => Compression::Lz4,
            Codec::None => Compression::None,
        },
        chunk_size: a.chunk_size.max(1),
        ..WriteOptions::default()
    };
    let rep = write::write_output(&a.output, &policy, |f| {
        recover(&bytes, f, opts).map(|(_, rep)| rep)
    })?;
    let (input, output) = (a.input.display(), a.output.display());
    say!("robolog: {input}: {rep} to {output}");
    for p in &rep.problems {
        ctx.report(&a.input, p);
    }
    if !recovering {
        return Ok(clean_if(rep.problems.is_empty()));
    }
    let recovery = rep.recovery();
    if let Some(loss) = recovery.loss() {
        say!("robolog: {input}: {loss}");
    }
    Ok(match recovery {
        Recovery::Complete => Outcome::Clean,
        Recovery::Partial => Outcome::PartlyRecovered,
        Recovery::Nothing => Outcome::Damaged,
    })
}
