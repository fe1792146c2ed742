//! `robolog bag info|reindex|fix`: ROS bag tools with the vocabulary of
//! `rosbag info` / `rosbag reindex` / `rosbag fix`.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use rosbag12::Bag;
use rosbag12::info::BagInfo;

use crate::output;
use crate::{Failure, Outcome, report, report_all};

/// ROS bag tools.
#[derive(Debug, Subcommand)]
pub(crate) enum BagCommand {
    /// Print the fields of `rosbag info`: version, duration, start, end,
    /// size, messages, compression, types with md5, topics with counts and
    /// frequency.
    Info(InfoArgs),
    /// Rebuild the index of an unindexed, truncated or damaged bag (1.2 or
    /// 2.0) as an indexed 2.0 bag. Without -o, the original is kept as
    /// FILE.orig.bag and the result replaces FILE, as `rosbag reindex` does.
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
}

/// Arguments of `robolog bag fix`.
#[derive(Debug, Args)]
pub(crate) struct FixArgs {
    /// The bag to read.
    input: PathBuf,
    /// Where to write the 2.0 bag.
    output: PathBuf,
}

pub(crate) fn run(cmd: &BagCommand) -> Result<Outcome, Failure> {
    match cmd {
        BagCommand::Info(a) => info(a),
        BagCommand::Reindex(a) => match &a.output {
            Some(out) => rewrite(&a.file, out, None),
            None => {
                let mut backup = a.file.clone().into_os_string();
                backup.push(".orig.bag");
                rewrite(&a.file, &a.file, Some(PathBuf::from(backup)))
            }
        },
        BagCommand::Fix(a) => rewrite(&a.input, &a.output, None),
    }
}

fn open(path: &Path) -> Result<logcore::FileBytes, Failure> {
    logcore::FileBytes::open(path).map_err(|e| Failure::new(path, e))
}

fn rewrite(input: &Path, output: &Path, backup: Option<PathBuf>) -> Result<Outcome, Failure> {
    let bytes = open(input)?;
    let (out, report_) = rosbag12::reindex(&bytes, std::io::Cursor::new(Vec::new()))
        .map_err(|e| Failure::new(input, e))?;
    drop(bytes);
    if let Some(b) = &backup {
        std::fs::rename(input, b).map_err(|e| Failure::new(input, e))?;
    }
    std::fs::write(output, out.into_inner()).map_err(|e| Failure::new(output, e))?;
    println!(
        "{}: wrote {} messages on {} connections to {}",
        input.display(),
        report_.messages,
        report_.connections,
        output.display()
    );
    for p in &report_.problems {
        report(input, &p.clone().into());
    }
    Ok(Outcome::Clean)
}

fn info(args: &InfoArgs) -> Result<Outcome, Failure> {
    let mut outcome = Outcome::Clean;
    for (i, path) in args.files.iter().enumerate() {
        if i > 0 {
            let mut out = output::stdout();
            output::line(&mut out, "---")
                .and_then(|()| out.flush())
                .map_err(|e| Failure::new(path, e))?;
        }
        match info_one(path, args.yaml) {
            Ok(Outcome::Clean) => {}
            Ok(Outcome::Damaged | Outcome::PartlyRecovered) => outcome = Outcome::Damaged,
            // Report and go on with the next bag, as rosbag info does.
            Err(f) if args.files.len() > 1 => {
                report(&f.path, &f.error);
                outcome = Outcome::Damaged;
            }
            Err(f) => return Err(f),
        }
    }
    Ok(outcome)
}

fn info_one(path: &Path, yaml: bool) -> Result<Outcome, Failure> {
    let bytes = open(path)?;
    let bag = Bag::new(&bytes).map_err(|e| Failure::new(path, e))?;
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
    Ok(report_all(
        path,
        bag.warnings().iter().chain(bag.end_error()).cloned(),
    ))
}
