//! Checks against real files written by other programs (`../shared/corpus`).
//!
//! These are not part of the crates' own `cargo test`: a user who clones
//! the repository alone does not have the corpus. A missing corpus is a
//! loud skip on a user's machine and a failure under `CI=true`.

use std::path::{Path, PathBuf};
use std::process::Command;

use logcore::Format;

use crate::Result;

/// Finds the corpus: `--corpus DIR`, else `$ROBOLOG_CORPUS`, else
/// `../shared/corpus` beside the checkout. `Ok(None)` means "skip".
pub(crate) fn locate(option: Option<&str>) -> Result<Option<PathBuf>> {
    let dir = match option {
        Some(d) => PathBuf::from(d),
        None => robolog_testkit::corpus_root(),
    };
    if dir.is_dir() {
        return Ok(Some(dir));
    }
    let msg = format!(
        "the real-file corpus is missing at {} (give --corpus DIR or set ROBOLOG_CORPUS)",
        dir.display()
    );
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        Err(msg)
    } else {
        eprintln!("\n!!!!!!!!!!\nxtask: SKIPPING corpus checks: {msg}\n!!!!!!!!!!\n");
        Ok(None)
    }
}

/// The format a corpus file must be recognised as, from its folder and
/// extension; `None` for side files (READMEs, expected outputs).
pub(crate) fn expected_format(path: &Path) -> Option<Format> {
    let ext = path.extension()?.to_str()?;
    match ext {
        "bag" => Some(Format::RosBag),
        "ulg" => Some(Format::ULog),
        "mcap" => Some(Format::Mcap),
        "vel" => Some(Format::VelLog),
        "log" | "rec" if path.components().any(|c| c.as_os_str() == "carla") => {
            Some(Format::CarlaRecorder)
        }
        _ => None,
    }
}

pub(crate) fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out)?;
        } else {
            out.push(p);
        }
    }
    Ok(())
}

/// Every log file in the corpus is recognised as its format by
/// `robolog::probe`, and `robolog info --json` either describes it or says
/// cleanly that the format is not supported yet: exit code 0 or 1, one
/// line on stderr, never a crash.
pub(crate) fn check_all(dir: &Path) -> Result {
    let mut files = Vec::new();
    walk(dir, &mut files)?;
    files.sort();
    let logs: Vec<(PathBuf, Format)> = files
        .into_iter()
        .filter_map(|p| expected_format(&p).map(|f| (p, f)))
        .collect();
    if logs.is_empty() {
        return Err(format!("no log files found under {}", dir.display()));
    }

    let exe = crate::checked_robolog()?;
    let mut failures = Vec::new();
    let mut described = 0usize;
    for (path, want) in &logs {
        let head = read_head(path)?;
        let got = robolog::probe(&head);
        if got != Some(*want) {
            failures.push(format!(
                "{}: probe says {got:?}, expected {want:?}",
                path.display()
            ));
            continue;
        }
        let out = Command::new(&exe)
            .args(["info", "--json"])
            .arg(path)
            .output()
            .map_err(|e| format!("could not run {}: {e}", exe.display()))?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0) => described += 1,
            Some(1) if stderr.contains("not supported") && stderr.lines().count() == 1 => {}
            code => failures.push(format!(
                "{}: robolog info exited with {code:?}: {}",
                path.display(),
                stderr.trim()
            )),
        }
    }
    eprintln!(
        "xtask: corpus: {} log files recognised, {described} fully described by robolog info",
        logs.len()
    );
    facade_decodes_all(&logs, &mut failures);
    crate::verdict(
        &format!("{} corpus files failed", failures.len()),
        &failures,
    )
}

/// Every corpus file opens through `robolog::open` and every message it
/// yields is decoded through the facade, nothing dropped: a payload that
/// does not decode is kept raw and counted. Files that open must yield as
/// many messages as their summary counts when nothing was skipped, and
/// payloads fail to decode only in files known to hold such payloads.
fn facade_decodes_all(logs: &[(PathBuf, Format)], failures: &mut Vec<String>) {
    use logcore::{LogReader, MessageFilter};
    let (mut opened, mut messages, mut raw) = (0usize, 0u64, 0u64);
    for (path, _) in logs {
        let Ok(log) = robolog::open(path) else {
            continue;
        };
        opened += 1;
        let Ok(summary) = log.summary() else {
            continue;
        };
        let Ok(iter) = log.messages(&MessageFilter::all()) else {
            continue;
        };
        let mut decoder = robolog::LenientDecoder::new(&log);
        let (mut count, mut damaged) = (0u64, false);
        for msg in iter {
            match msg {
                Ok(m) => {
                    decoder.decode(&m);
                    count += 1;
                }
                Err(_) => damaged = true,
            }
        }
        messages += count;
        if !damaged && summary.warnings.is_empty() && count != summary.message_count {
            failures.push(format!(
                "{}: robolog::open yields {count} messages, its summary counts {}",
                path.display(),
                summary.message_count
            ));
        }
        for f in decoder.failures() {
            raw += f.count;
            if !expects_undecodable(path) {
                failures.push(format!("{}: {f}", path.display()));
            }
        }
    }
    eprintln!(
        "xtask: corpus: {opened} files opened through robolog::open, {messages} messages decoded ({raw} kept raw)"
    );
}

/// Corpus files known to hold payloads that do not match their declared
/// encoding (damaged on purpose, or written that way by their tools).
fn expects_undecodable(path: &Path) -> bool {
    let p = path.to_string_lossy();
    UNDECODABLE.iter().any(|part| p.contains(part))
}

/// See [`expects_undecodable`]; each entry is part of a corpus path.
const UNDECODABLE: &[&str] = &[];

fn read_head(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut head = Vec::with_capacity(robolog::PROBE_LEN);
    f.take(robolog::PROBE_LEN as u64)
        .read_to_end(&mut head)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(head)
}
