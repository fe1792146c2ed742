//! MCAP checks: the fixtures, interop with python `mcap`, the benchmark;
//! `cargo xtask mcap conformance` runs mcapfile's conformance-suite test
//! (`tests/conformance.rs`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mcapfile::{LinearReader, Record};
use serde_json::{Value as Json, json};

use crate::Result;

/// The `.mcap` files in `dir` (not its subfolders), sorted.
pub(crate) fn mcap_files(dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(robolog_testkit::files_with_ext(dir, &["mcap"])
        .into_iter()
        .filter(|p| p.parent() == Some(dir))
        .collect())
}

/// `cargo xtask mcap conformance [--corpus DIR] | interop`: the suite is
/// mcapfile's `tests/conformance.rs` (also run by the gate's tests step).
pub(crate) fn cmd(args: &[String]) -> Result {
    match args.first().map(String::as_str) {
        Some("conformance") | None => crate::crate_test("mcapfile", "conformance", args),
        Some("interop") => interop(),
        Some(other) => Err(format!(
            "unknown `mcap` subcommand `{other}`; try `cargo xtask mcap conformance|interop`"
        )),
    }
}

/// Differential check against python `mcap` 1.6.0: files it writes are
/// read by us with identical messages (and a clean summary), and files we
/// write (the fixtures: every compression, chunked and not) are read by it
/// with identical messages. The Python side is pytest's
/// `xtask/pytests/test_mcap_interop.py`, which writes python mcap's files
/// and records the messages it reads in each.
pub(crate) fn interop() -> Result {
    use logcore::LogReader;
    let venv = crate::python::Venv::with(&["mcap", "zstandard", "lz4", "pytest"])?;
    let dir = crate::root().join("target/mcap-interop");
    // No file of an earlier run (python mcap's are written again).
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // Ours (the committed fixtures, what our writer makes), next to theirs.
    let mut entries = Vec::new();
    for (name, bytes) in crate::testdata("mcap")? {
        let file = format!("ours-{name}");
        let p = dir.join(&file);
        std::fs::write(&p, bytes).map_err(|e| format!("{}: {e}", p.display()))?;
        entries.push(json!({"id": name, "file": file}));
    }
    let manifest = json!({"work": dir.display().to_string(), "entries": entries});
    let records = venv
        .pytest("test_mcap_interop.py")
        .manifest(&dir.join("manifest.json"), &manifest)?
        .run()?;
    let files = mcap_files(&dir)?;
    let mut theirs: BTreeMap<String, Vec<Json>> = BTreeMap::new();
    for r in &records {
        let path = r["file"].as_str().unwrap_or("").to_string();
        let mut messages = Vec::new();
        for m in r["messages"].as_array().into_iter().flatten() {
            let mut line = vec![Json::from(path.as_str())];
            line.extend(m.as_array().cloned().unwrap_or_default());
            messages.push(Json::Array(line));
        }
        theirs.insert(path, messages);
    }
    let mut failures = Vec::new();
    for p in &files {
        let key = p.display().to_string();
        let bytes = std::fs::read(p).map_err(|e| format!("{key}: {e}"))?;
        let mut ours = Vec::new();
        let mut topics = BTreeMap::new();
        for r in LinearReader::new(&bytes) {
            match r {
                Ok(Record::Channel(c)) => {
                    topics.insert(c.id, c.topic);
                }
                Ok(Record::Message(m)) => ours.push(json!([
                    key,
                    topics.get(&m.channel_id).cloned().unwrap_or_default(),
                    m.sequence,
                    m.log_time,
                    m.publish_time,
                    m.data.to_vec()
                ])),
                Ok(_) => {}
                Err(e) => failures.push(format!("{key}: we fail to read it: {e}")),
            }
        }
        let summary_ok = mcapfile::Mcap::new(&bytes)
            .map_err(|e| e.to_string())
            .and_then(|m| m.summary().map_err(|e| e.to_string()))
            .map(|s| s.warnings.is_empty() && s.message_count as usize == ours.len());
        if summary_ok != Ok(true) {
            failures.push(format!("{key}: our summary disagrees: {summary_ok:?}"));
        }
        let want = theirs.remove(&key).unwrap_or_default();
        if ours.is_empty() || ours != want {
            failures.push(format!(
                "{key}: {} messages read by us, {} by python mcap, or they differ",
                ours.len(),
                want.len()
            ));
        }
    }
    eprintln!(
        "xtask: mcap interop with python mcap 1.6.0: {} of {} files identical",
        files.len() - failures.len().min(files.len()),
        files.len()
    );
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n  "))
    }
}

/// `cargo xtask bench mcap`: inputs written by the Python `mcap` 1.6 writer
/// (cached under `target/mcap-bench`), then the bench in `crates/mcap`,
/// which iterates every message with our readers and the `mcap` crate's
/// `MessageStream` in alternating runs and prints MB/s and the ratios.
pub(crate) fn bench() -> Result {
    let venv = crate::python::Venv::with(&["mcap", "zstandard", "lz4"])?;
    let dir = crate::root().join("target/mcap-bench");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for comp in ["none", "zstd", "lz4"] {
        let file = dir.join(format!("bench-{comp}.mcap"));
        if !file.exists() {
            // Written aside and renamed: an interrupted run leaves no
            // half file to be taken for an input next time.
            let part = dir.join(format!("bench-{comp}.mcap.part"));
            // The peer's writer makes the inputs: `xtask/pytests/mcap_bench.py`.
            crate::run(venv.script("mcap_bench.py").arg(&part).arg(comp))?;
            std::fs::rename(&part, &file).map_err(|e| format!("{}: {e}", file.display()))?;
        }
    }
    crate::run(
        crate::cargo()
            .env("MCAPFILE_BENCH_DIR", &dir)
            .args(["bench", "--locked", "-p", "mcapfile", "--bench", "read"]),
    )
}
