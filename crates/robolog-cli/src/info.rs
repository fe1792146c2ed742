//! `robolog info FILE [--json]`.

use std::path::PathBuf;

use clap::Args;
use logcore::LogReader;

use crate::context::Context;
use crate::output;
use crate::shown::Mode;
use crate::{Failure, Outcome};

/// Arguments of `robolog info`.
#[derive(Debug, Args)]
pub(crate) struct InfoArgs {
    /// The log file (format detected from its first bytes).
    file: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `robolog info`.
pub(crate) fn run(ctx: &Context, args: &InfoArgs) -> Result<Outcome, Failure> {
    let path = &args.file;
    let log = ctx.open(path)?;
    let summary = log.summary().map_err(|e| Failure::new(path, e))?;
    let size = log.size();
    let mut out = output::stdout_as(if args.json { Mode::Json } else { Mode::Text });
    let written = if args.json {
        let j = robolog::info::info_json(path, size, &summary);
        output::line(&mut out, &j.to_string())
    } else {
        robolog::info::write_info_text(&mut out, path, size, &summary)
    };
    written
        .and_then(|()| std::io::Write::flush(&mut out))
        .map_err(|e| Failure::new(path, e))?;
    Ok(ctx.report_all(path, &summary.warnings))
}
