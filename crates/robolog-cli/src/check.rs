//! `robolog check FILE`: the rules a file must follow. For MCAP files that
//! are OSI traces (or with `--profile`) these are the ASAM OSI trace rules
//! (`osi_mcap::validate`, profile `osi-3.8` or `draft`); other MCAP files
//! get only the MCAP structural checks (profile `mcap`); every other format
//! gets a full read in strict mode, every message decoded. Exit 0 when
//! there is no error, 1 otherwise.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use logcore::{Format, MessageFilter, ReadMode};
use osi_mcap::validate::{Level, Profile, RULES, Report, ValidateOptions};
use serde_json::json;

use crate::output::{self, Out};
use crate::{Failure, Outcome, open};

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

pub(crate) fn run(a: &CheckArgs) -> Result<Outcome, Failure> {
    let mut out = output::stdout();
    let here = Path::new("-");
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |e: std::io::Error| Failure::new(&path, e)
    };
    if a.rules {
        return list_rules(&mut out, a.json).map_err(io(here));
    }
    let Some(path) = a.file.as_deref() else {
        return Ok(Outcome::Clean);
    };
    let opened = open::open_file(path)?;
    if opened.format != Format::Mcap {
        return generic(path, &opened, a.json, &mut out);
    }
    let opts = ValidateOptions {
        profile: a.profile.map(|p| match p {
            ProfileArg::Osi38 => Profile::Osi38,
            ProfileArg::Draft => Profile::Draft,
        }),
        file_name: path.file_name().map(|n| n.to_string_lossy().into_owned()),
        max_findings_per_rule: a.max_per_rule.max(1),
        strict_time: a.strict_time,
        detect_non_osi: true,
    };
    let report = osi_mcap::validate(&opened.bytes, &opts);
    if a.json {
        let mut doc = serde_json::to_value(&report).unwrap_or_default();
        if let Some(o) = doc.as_object_mut() {
            o.insert("file".into(), json!(path.display().to_string()));
            o.insert("passed".into(), json!(report.passed()));
        }
        output::line(&mut out, &doc.to_string()).map_err(io(path))?;
    } else {
        text(&mut out, path, &report).map_err(io(path))?;
    }
    out.flush().map_err(io(path))?;
    Ok(if report.passed() {
        Outcome::Clean
    } else {
        Outcome::Damaged
    })
}

fn text(out: &mut Out, path: &Path, r: &Report) -> std::io::Result<()> {
    output::line(
        out,
        &format!(
            "{}: {}, profile {} ({})",
            path.display(),
            if r.profile == Profile::Mcap {
                "MCAP file"
            } else {
                "OSI trace"
            },
            r.profile,
            r.profile_reason
        ),
    )?;
    output::line(
        out,
        &format!(
            "{} channels ({} OSI), {} OSI messages checked",
            r.channels, r.osi_channels, r.messages_checked
        ),
    )?;
    let mut shown = std::collections::BTreeSet::new();
    for f in &r.findings {
        output::line(out, &format!("{f}"))?;
        if shown.insert(f.rule)
            && let Some(c) = r.counts.get(f.rule)
            && c.total > c.listed
        {
            // Printed once, after the first finding of the rule.
            output::line(
                out,
                &format!(
                    "  ({} findings of {} in all, {} listed)",
                    c.total, f.rule, c.listed
                ),
            )?;
        }
    }
    output::line(
        out,
        &format!(
            "{}: {} errors, {} warnings, {} infos",
            if r.passed() { "PASS" } else { "FAIL" },
            r.errors,
            r.warnings,
            r.infos
        ),
    )
}

fn list_rules(out: &mut Out, as_json: bool) -> std::io::Result<Outcome> {
    if as_json {
        output::line(
            out,
            &serde_json::to_string(RULES).unwrap_or_else(|_| "[]".into()),
        )?;
    } else {
        for r in RULES {
            let level = match r.level {
                Level::Error => "error",
                Level::Warning => "warning",
                Level::Info => "info",
            };
            output::line(
                out,
                &format!(
                    "{:<32} {:<8} {:<8} {}",
                    r.id,
                    level,
                    r.scope.name(),
                    r.summary
                ),
            )?;
        }
    }
    out.flush()?;
    Ok(Outcome::Clean)
}

/// Formats without a rule set of their own: read everything strictly and
/// decode every message; the first error ends the check.
fn generic(
    path: &Path,
    opened: &open::Opened,
    as_json: bool,
    out: &mut Out,
) -> Result<Outcome, Failure> {
    let reader = open::reader(opened.format, &opened.bytes).map_err(|e| Failure::new(path, e))?;
    let mut problems: Vec<String> = Vec::new();
    let mut messages = 0u64;
    match reader.summary() {
        Ok(s) => problems.extend(s.warnings.iter().map(|w| w.to_string())),
        Err(e) => problems.push(e.to_string()),
    }
    let filter = MessageFilter {
        mode: ReadMode::Strict,
        ..MessageFilter::all()
    };
    match reader.messages(&filter) {
        Ok(iter) => {
            for m in iter {
                match m.and_then(|m| reader.decode(&m).map(|_| ())) {
                    Ok(()) => messages += 1,
                    Err(e) => {
                        problems.push(e.to_string());
                        break;
                    }
                }
            }
        }
        Err(e) => problems.push(e.to_string()),
    }
    let io = |e: std::io::Error| Failure::new(path, e);
    if as_json {
        let doc = json!({
            "file": path.display().to_string(),
            "format": opened.format.name(),
            "passed": problems.is_empty(),
            "messages_checked": messages,
            "errors": problems,
        });
        output::line(out, &doc.to_string()).map_err(io)?;
    } else {
        output::line(
            out,
            &format!(
                "{}: {} file, {messages} messages read and decoded",
                path.display(),
                opened.format
            ),
        )
        .map_err(io)?;
        for p in &problems {
            output::line(out, &format!("error: {p}")).map_err(io)?;
        }
        output::line(out, if problems.is_empty() { "PASS" } else { "FAIL" }).map_err(io)?;
    }
    out.flush().map_err(io)?;
    Ok(if problems.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Damaged
    })
}
