//! `cargo xtask foxglove [--corpus DIR]`: converts every ULog, CARLA and
//! VEL file of `testdata/` and the corpus to MCAP through the `robolog`
//! library, then checks the output with python `mcap` and `jsonschema`
//! (pytest's `xtask/pytests/test_foxglove.py`, a test per file):
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

const PACKAGES: [&str; 6] = ["jsonschema", "mcap", "zstandard", "lz4", "pyulog", "pytest"];

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
            "id": crate::python::test_id(path, corpus.as_deref()),
            "mcap": out_path.display().to_string(),
            "source": shown,
            "kind": kind,
            "expected": expected(&log)?,
        }));
    }
    let venv = Venv::with(&PACKAGES)?;
    let manifest = serde_json::json!({
        "vendored": root().join("crates/robolog/schemas/foxglove").display().to_string(),
        "entries": manifest,
    });
    let records = venv
        .pytest("test_foxglove.py")
        .manifest(&dir.join("manifest.json"), &manifest)
        .and_then(|p| p.run());
    match records {
        Ok(records) => {
            for r in &records {
                eprintln!(
                    "xtask: {}: {} input channels match, {} Foxglove/derived channels validated",
                    r["source"].as_str().unwrap_or_default(),
                    r["input_channels"],
                    r["derived_channels"]
                );
            }
        }
        Err(e) => failures.push(e),
    }
    verdict("Foxglove conversion checks that failed", &failures)
}
