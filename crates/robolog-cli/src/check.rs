//! `robolog check FILE`: the rules a file must follow. For MCAP files that
//! are OSI traces (or with `--profile`) these are the ASAM OSI trace rules
//! (`osi_mcap::validate`, profile `osi-3.8` or `draft`); other MCAP files
//! get only the MCAP structural checks (profile `mcap`); every other format
//! gets a full read in strict mode, every message decoded. Exit 0 when
//! there is no error, 1 otherwise.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use osi_mcap::validate::{self, Profile, ValidateOptions};

use crate::context::Context;
use crate::output;
use crate::shown::{Mode, say};
use crate::{Failure, Outcome};

/// The rule sets of `--profile`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum ProfileArg {
    /// The published OSI 3.8.0 rules.
    #[value(name = "osi-3.8")]
    Osi38,
    /// The pre-standard draft rules (versions/asam_osi meta-data).
    Draft,
}

/// Arguments of `robolog check`.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// The file to check (omit with --rules).
    #[arg(required_unless_present = "rules")]
    file: Option<PathBuf>,
    /// Rule set for OSI traces; by default the file's own meta-data decides
    /// (net.asam.osi.trace -> osi-3.8, versions/asam_osi -> draft).
    #[arg(long, value_enum)]
    profile: Option<ProfileArg>,
    /// Print the report as one JSON document.
    #[arg(long)]
    json: bool,
    /// Findings listed per rule (all are counted).
    #[arg(long, default_value_t = 20)]
    max_per_rule: usize,
    /// Treat the 1 ns floating-point rounding of message times as an error.
    #[arg(long)]
    strict_time: bool,
    /// List every OSI rule (id, level, profile, what it requires) and exit.
    #[arg(long)]
    rules: bool,
}

/// Runs `robolog check`.
pub(crate) fn run(ctx: &Context, a: &CheckArgs) -> Result<Outcome, Failure> {
    let mut out = output::stdout_as(if a.json { Mode::Json } else { Mode::Text });
    if a.rules {
        let listed = if a.json {
            output::line(&mut out, &validate::rules_json())
        } else {
            validate::write_rules(&mut out)
        };
        listed
            .and_then(|()| out.flush())
            .map_err(io(Path::new("-")))?;
        return Ok(Outcome::Clean);
    }
    let Some(path) = a.file.as_deref() else {
        return Ok(Outcome::Clean);
    };
    let file = path.display().to_string();
    let opts = robolog::CheckOptions {
        rules: ValidateOptions {
            profile: a.profile.map(|p| match p {
                ProfileArg::Osi38 => Profile::Osi38,
                ProfileArg::Draft => Profile::Draft,
            }),
            file_name: path.file_name().map(|n| n.to_string_lossy().into_owned()),
            max_findings_per_rule: a.max_per_rule.max(1),
            strict_time: a.strict_time,
            detect_non_osi: true,
        },
        limits: ctx.limits(),
    };
    let checked = robolog::check_path(path, &opts).map_err(|e| Failure::new(path, e))?;
    if a.json {
        output::line(&mut out, &checked.to_json(&file).to_string())
    } else {
        checked.write_text(&mut out, &file)
    }
    .map_err(io(path))?;
    // The report stays on stdout; each error is also one line on stderr,
    // as every command reports problems (a strict read's once per run,
    // as every reader's problems).
    out.flush().map_err(io(path))?;
    for error in checked.errors() {
        match checked {
            robolog::Checked::Rules(_) => say!("robolog: {}: {error}", path.display()),
            robolog::Checked::Strict(_) => ctx.report(path, error),
        }
    }
    let passed = checked.passed();
    out.flush().map_err(io(path))?;
    Ok(if passed {
        Outcome::Clean
    } else {
        Outcome::Damaged
    })
}

/// The failure for an I/O error while writing the report of `path`.
fn io(path: &Path) -> impl Fn(std::io::Error) -> Failure + '_ {
    move |e| Failure::new(path, e)
}
