//! `cargo xtask foxglove [--corpus DIR]`: converts every ULog, CARLA and
//! VEL file of `testdata/` and the corpus to MCAP through the `robolog`
//! library, then checks the output with python `mcap` and `jsonschema`:
//!
//! - every generated (non-`foxglove.*`) schema keeps to what Foxglove's
//!   JSON Schema parser reads (one simple type per field, no arrays of
//!   arrays), so its Plot and Raw Messages panels know every field;
//! - every message of a generated channel validates
//!   against its channel's JSON Schema (non-finite floats, written as the
//!   strings `NaN`, `Infinity`, `-Infinity` since JSON has no such numbers,
//!   count as numbers: the one documented departure);
//! - every `foxglove.*` message validates, strictly, against the vendored
//!   `@foxglove/schemas` JSON Schema of its type
//!   (`crates/robolog/schemas/foxglove/`), and the channel's schema is that
//!   text;
//! - each input channel's message count and time range (as `robolog info`
//!   gives them) equal those of its output channel;
//! - for ULog GPS topics, each `foxglove.LocationFix` equals pyulog 1.3.0's
//!   sample scaled as documented (`lat`/`lon` × 1e-7 degrees, `alt` ×
//!   1e-3 m, or the newer `latitude_deg`/`longitude_deg`/`altitude_msl_m`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use logcore::{Format, LogReader};
use robolog::convert::{ConvertOptions, to_mcap};

use crate::python::Venv;
use crate::{Result, corpus, opt, root, verdict};

const PACKAGES: [&str; 5] = ["jsonschema", "mcap", "zstandard", "lz4", "pyulog"];

const SCRIPT: &str = include_str!("foxglove_check.py");

/// The input files: ULog, CARLA and VEL fixtures, and the corpus's ULog and CARLA files.
fn inputs(corpus: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs = vec![
        root().join("testdata/ulog"),
        root().join("testdata/carla"),
        root().join("testdata/vellog"),
    ];
    if let Some(c) = corpus {
        dirs.push(c.join("ulog"));
        dirs.push(c.join("carla"));
        dirs.push(c.join("vellog"));
    }
    let mut files = Vec::new();
    for d in dirs {
        walk(&d, &mut files);
    }
    files.sort();
    files
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let keep = |p: &Path| {
        matches!(
            p.extension().and_then(|x| x.to_str()),
            Some("ulg" | "log" | "rec" | "vel")
        )
    };
    crate::convert::walk_files(dir, &keep, out);
}

/// What `robolog info` says of one input channel: output topic, count, start, end (ns).
type Expected = BTreeMap<String, (u64, Option<i64>, Option<i64>)>;

fn expected(log: &robolog::Log<'_>) -> Result<Expected> {
    let summary = log.summary().map_err(|e| e.to_string())?;
    let mut out = Expected::new();
    for ch in summary.channels {
        let topic = if log.format() == Format::ULog {
            let multi = ch.info.metadata.get("multi_id").map_or("0", String::as_str);
            format!("{}/{multi}", ch.info.type_name)
        } else {
            ch.info.topic.clone()
        };
        out.insert(
            topic,
            (
                ch.message_count,
                ch.start.map(|t| t.as_nanos()),
                ch.end.map(|t| t.as_nanos()),
            ),
        );
    }
    Ok(out)
}

/// `cargo xtask foxglove [--corpus DIR]`.
pub(crate) fn cmd(args: &[String]) -> Result {
    let corpus = corpus::locate(opt(args, "--corpus"))?;
    let dir = root().join("target/foxglove-check");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut failures = Vec::new();
    let mut manifest = Vec::new();
    let mut wanted = Vec::new();
    for (i, path) in inputs(corpus.as_deref()).iter().enumerate() {
        let shown = path.display().to_string();
        let log = match robolog::open(path) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("xtask: {shown}: not converted, it does not open: {e}");
                continue;
            }
        };
        let kind = match log.format() {
            Format::ULog => "ulog",
            Format::CarlaRecorder => "carla",
            Format::VelLog => "vel",
            _ => continue,
        };
        let out_path = dir.join(format!("{i:03}.mcap"));
        let file =
            std::fs::File::create(&out_path).map_err(|e| format!("{}: {e}", out_path.display()))?;
        let opts = ConvertOptions::default();
        match to_mcap(&log, std::io::BufWriter::new(file), &opts, &mut |_| {}) {
            Ok((mut w, stats)) => {
                use std::io::Write;
                w.flush()
                    .map_err(|e| format!("{}: {e}", out_path.display()))?;
                eprintln!(
                    "xtask: {shown}: {} messages on {} channels{}",
                    stats.messages,
                    stats.channels,
                    if stats.skipped.is_empty() {
                        String::new()
                    } else {
                        format!(", {} skipped", stats.skipped.len())
                    }
                );
            }
            Err(e) => {
                failures.push(format!("{shown}: conversion failed: {e}"));
                continue;
            }
        }
        manifest.push(serde_json::json!({
            "mcap": out_path.display().to_string(),
            "source": path.display().to_string(),
            "kind": kind,
        }));
        wanted.push((shown, expected(&log)?));
    }
    let manifest_path = dir.join("manifest.json");
    std::fs::write(
        &manifest_path,
        serde_json::to_string(&manifest).unwrap_or_default(),
    )
    .map_err(|e| format!("{}: {e}", manifest_path.display()))?;
    let script = dir.join("check.py");
    std::fs::write(&script, SCRIPT).map_err(|e| format!("{}: {e}", script.display()))?;
    let venv = Venv::with(&PACKAGES)?;
    let output = venv
        .command()
        .arg(&script)
        .arg(root().join("crates/robolog/schemas/foxglove"))
        .arg(&manifest_path)
        .output()
        .map_err(|e| format!("could not run {}: {e}", script.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{} failed:\n{}",
            script.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let results: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("{}: unreadable output: {e}", script.display()))?;
    let results = results.as_array().cloned().unwrap_or_default();
    for ((shown, want), got) in wanted.iter().zip(&results) {
        let invalid = got["invalid"].as_u64().unwrap_or(0);
        if invalid > 0 {
            failures.push(format!(
                "{shown}: {invalid} messages do not match their schema"
            ));
        }
        for e in got["errors"].as_array().into_iter().flatten() {
            failures.push(format!("{shown}: {}", e.as_str().unwrap_or_default()));
        }
        for (topic, (count, start, end)) in want {
            let ch = &got["channels"][topic.as_str()];
            let n = ch["count"].as_u64().unwrap_or(0);
            if n != *count {
                failures.push(format!(
                    "{shown}: {topic}: {n} messages written, robolog info counts {count}"
                ));
                continue;
            }
            if n > 0 && (ch["start"].as_i64() != *start || ch["end"].as_i64() != *end) {
                failures.push(format!(
                    "{shown}: {topic}: time range {}..{} written, robolog info gives {start:?}..{end:?}",
                    ch["start"], ch["end"]
                ));
            }
        }
        let derived = got["channels"]
            .as_object()
            .map_or(0, |m| m.keys().filter(|t| !want.contains_key(*t)).count());
        eprintln!(
            "xtask: {shown}: {} input channels match, {derived} Foxglove/derived channels validated",
            want.len()
        );
    }
    if results.len() != wanted.len() {
        failures.push(format!(
            "the checker reported on {} files of {}",
            results.len(),
            wanted.len()
        ));
    }
    verdict("Foxglove conversion checks that failed", &failures)
}
