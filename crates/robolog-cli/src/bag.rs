//! `robolog bag info|reindex|fix`: ROS bag tools with the vocabulary of
//! `rosbag info` / `rosbag reindex` / `rosbag fix`.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use logcore::Format;
use rosbag12::Bag;
use rosbag12::info::BagInfo;

use robolog::write::{AtomicFile, OutputPolicy, replace_keeping_backup};

use crate::context::Context;
use crate::{Failure, Outcome};
use crate::{output, write};

/// ROS bag tools.
#[derive(Debug, Subcommand)]
pub(crate) enum BagCommand {
    /// Print the fields of `rosbag info`: version, duration, start, end,
    /// size, messages, compression, types with md5, topics with counts and
    /// frequency.
    Info(InfoArgs),
    /// Rebuild the index of an unindexed, truncated or damaged bag (1.2 or
    /// 2.0) as an indexed 2.0 bag. Without -o, the original is kept as
    /// NAME.orig.bag (FILE without its extension) and the result replaces
    /// FILE, as `rosbag reindex` does; an existing backup is never
    /// replaced (the command refuses instead).
    Reindex(ReindexArgs),
    /// Rewrite a bag (1.2 or 2.0) as an indexed 2.0 bag in OUT.
    Fix(FixArgs),
}

/// Arguments of `robolog bag info`.
#[derive(Debug, Args)]
pub(crate) struct InfoArgs {
    /// The bags (several are separated by `---`, as `rosbag info` does).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print YAML with the keys of `rosbag info -y`.
    #[arg(long, short = 'y')]
    yaml: bool,
}

/// Arguments of `robolog bag reindex`.
#[derive(Debug, Args)]
pub(crate) struct ReindexArgs {
    /// The bag.
    file: PathBuf,
    /// Write the reindexed bag here instead of replacing FILE.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Replace OUTPUT when it exists (with -o).
    #[arg(long)]
    force: bool,
}

/// Arguments of `robolog bag fix`.
#[derive(Debug, Args)]
pub(crate) struct FixArgs {
    /// The bag to read.
    input: PathBuf,
    /// Where to write the 2.0 bag.
    output: PathBuf,
    /// Replace OUTPUT when it exists.
    #[arg(long)]
    force: bool,
}

/// Runs a `robolog bag` subcommand.
pub(crate) fn run(ctx: &Context, cmd: &BagCommand) -> Result<Outcome, Failure> {
    match cmd {
        BagCommand::Info(a) => info(ctx, a),
        BagCommand::Reindex(a) => match &a.output {
            Some(out) => rewrite(ctx, &a.file, out, Target::Other { force: a.force }),
            None => rewrite(ctx, &a.file, &a.file, Target::InPlace(backup_name(&a.file))),
        },
        BagCommand::Fix(a) => rewrite(ctx, &a.input, &a.output, Target::Other { force: a.force }),
    }
}

/// Where a rewritten bag goes.
enum Target {
    /// Another file, replaced when it exists only with `force`.
    Other {
        /// Whether `--force` was given.
        force: bool,
    },
    /// The input itself, whose original is kept under this name first.
    InPlace(PathBuf),
}

/// The backup name `rosbag reindex` uses: the file name without its
/// extension, then `.orig.bag` (`run.orig.bag` for `run.bag`).
fn backup_name(file: &Path) -> PathBuf {
    let mut name = file.file_stem().unwrap_or_default().to_os_string();
    name.push(".orig.bag");
    file.with_file_name(name)
}

/// `bag reindex` and `bag fix`: `input` rewritten as an indexed 2.0 bag
/// into `output`.
fn rewrite(ctx: &Context, input: &Path, output: &Path, target: Target) -> Result<Outcome, Failure> {
    if let Target::Other { force } = target {
        write::check(output, &OutputPolicy::new(force).reading(input))?;
    }
    let bytes = ctx.open_bytes_as(input, Format::RosBag)?;
    // Written straight to the temporary file (the writer seeks back to
    // patch its index position at the end): killed midway, it is an
    // unindexed bag that `bag reindex` reads.
    let reindex = |w: &mut AtomicFile| -> Result<_, logcore::Error> {
        let (_, report) = rosbag12::reindex_with_limits(&bytes, w, ctx.limits())?;
        Ok(report)
    };
    let done = match &target {
        Target::Other { force } => {
            let policy = OutputPolicy::new(*force).reading(input);
            write::write_output(output, &policy, reindex)?
        }
        Target::InPlace(backup) => {
            write::report_leftovers(output);
            replace_keeping_backup(output, backup, reindex).map_err(|e| write::failed(output, e))?
        }
    };
    output::print_line(format_args!(
        "{}: wrote {} messages on {} connections to {}",
        input.display(),
        done.messages,
        done.connections,
        output.display()
    ));
    for p in &done.problems {
        ctx.report(input, p);
    }
    Ok(Outcome::Clean)
}

/// `bag info`: each bag's fields, a bag that cannot be read reported and
/// skipped when there are several.
fn info(ctx: &Context, args: &InfoArgs) -> Result<Outcome, Failure> {
    let mut outcome = Outcome::Clean;
    for (i, path) in args.files.iter().enumerate() {
        if i > 0 {
            let mut out = output::stdout();
            output::line(&mut out, "---")
                .and_then(|()| out.flush())
                .map_err(|e| Failure::new(path, e))?;
        }
        match info_one(ctx, path, args.yaml) {
            Ok(Outcome::Clean) => {}
            Ok(Outcome::Damaged | Outcome::PartlyRecovered) => outcome = Outcome::Damaged,
            // Report and go on with the next bag, as rosbag info does.
            Err(f) if args.files.len() > 1 => {
                ctx.report_failure(&f);
                outcome = Outcome::Damaged;
            }
            Err(f) => return Err(f),
        }
    }
    Ok(outcome)
}

/// `bag info` of one bag.
fn info_one(ctx: &Context, path: &Path, yaml: bool) -> Result<Outcome, Failure> {
    let bytes = ctx.open_bytes_as(path, Format::RosBag)?;
    let bag = Bag::with_limits(&bytes, ctx.limits()).map_err(|e| Failure::new(path, e))?;
    let info = BagInfo::new(&bag);
    let shown = path.display().to_string();
    let mut out = output::stdout();
    let result = if yaml {
        // rosbag info prints the YAML, which ends with a newline, with
        // print(): one empty line follows it.
        info.write_yaml(&mut out, &shown)
            .and_then(|()| writeln!(out))
    } else {
        info.write_text(&mut out, &shown)
    };
    result
        .and_then(|()| out.flush())
        .map_err(|e| Failure::new(path, e))?;
    Ok(ctx.report_all(path, bag.warnings().iter().chain(bag.end_error())))
}
