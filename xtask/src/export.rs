//! `robolog export` checks:
//!
//! - `cargo xtask export ulog2csv [--corpus DIR]` runs pyulog 1.3.0's
//!   `ulog2csv -o DIR` and `robolog export FILE -o DIR` on every corpus
//!   ULog, the committed ULog fixtures and a log whose `bool` bytes are
//!   neither 0 nor 1, and requires the same files with the same bytes;
//! - `cargo xtask export corpus [--corpus DIR]` exports every corpus file
//!   of the other formats and requires, where the file reads cleanly, as
//!   many rows per topic as the summary counts messages.
//!   Then it exports the whole corpus as one Parquet dataset (`robolog
//!   export DIR -o target/export-corpus-parquet --parquet`) and has
//!   Polars (`scan_parquet`), DuckDB (`read_parquet` without
//!   `union_by_name`) and pyarrow (`dataset(..., partitioning="hive")`)
//!   read each table as one table, with the rows the export reported
//!   (`xtask/pytests/test_parquet_dataset.py`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::python::Venv;
use crate::{Result, root, verdict};

/// `cargo xtask export ulog2csv [--corpus DIR]`.
pub(crate) fn cmd(args: &[String]) -> Result {
    match args.first().map(String::as_str) {
        Some("ulog2csv") => {
            ulog2csv(crate::corpus::locate(crate::opt(args, "--corpus"))?.as_deref())
        }
        Some("corpus") => {
            crate::corpus::locate(crate::opt(args, "--corpus"))?.map_or(Ok(()), |d| corpus(&d))
        }
        _ => Err("usage: cargo xtask export ulog2csv|corpus [--corpus DIR]".into()),
    }
}

/// Every file under `dir` that `keep` accepts, sorted.
pub(crate) fn files_under(dir: &Path, keep: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = robolog_testkit::all_files(dir);
    out.retain(|p| keep(p));
    out
}

/// Every `.ulg` file under `dir`, sorted.
fn ulg_files(dir: &Path) -> Vec<PathBuf> {
    files_under(dir, &|p| p.extension().is_some_and(|x| x == "ulg"))
}

/// The format `path` starts like, from its first bytes.
fn format_of(path: &Path) -> Option<logcore::Format> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(robolog::PROBE_LEN as u64)
        .read_to_end(&mut head)
        .ok()?;
    robolog::probe(&head)
}

/// Exports every corpus file of every format but ULog (which
/// [`ulog2csv`] covers) through the library; where the export reads the
/// file without problems, the rows of each topic's tables must be the
/// summary's message count of the topic, and each table a file.
/// Then the whole corpus as one Parquet dataset ([`parquet_dataset`]).
pub(crate) fn corpus(dir: &Path) -> Result {
    use logcore::LogReader;
    use robolog::export::{Csv, ExportOptions, export_tables};
    use std::collections::BTreeMap;

    let inputs = files_under(dir, &|p| {
        format_of(p).is_some_and(|f| f != logcore::Format::ULog)
    });
    let scratch = root().join("target/export-corpus");
    let mut failures = Vec::new();
    let (mut clean, mut damaged, mut rows) = (0usize, 0usize, 0u64);
    for input in &inputs {
        let name = input
            .strip_prefix(dir)
            .unwrap_or(input)
            .display()
            .to_string();
        let _ = std::fs::remove_dir_all(&scratch);
        // Files the library refuses are the corpus check's business.
        let Ok(log) = robolog::open(input) else {
            continue;
        };
        let stats = match export_tables(
            &log,
            input,
            &scratch,
            &ExportOptions::default(),
            &Csv,
            &mut |_| {},
        ) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        if !stats.is_clean() {
            damaged += 1;
            continue;
        }
        let summary = match log.summary() {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{name}: summary: {e}"));
                continue;
            }
        };
        // By topic: a type name can differ between `channels()` and the
        // summary of an MCAP file whose summary repeats channels but not
        // their schemas.
        let mut want: BTreeMap<&str, u64> = BTreeMap::new();
        for c in &summary.channels {
            if c.message_count > 0 {
                *want.entry(&c.info.topic).or_default() += c.message_count;
            }
        }
        let mut got: BTreeMap<&str, u64> = BTreeMap::new();
        for t in &stats.tables {
            *got.entry(&t.topic).or_default() += t.rows;
        }
        if got != want {
            failures.push(format!("{name}: tables {got:?}, summary {want:?}"));
            continue;
        }
        let on_disk = listing(&scratch).len();
        if on_disk != stats.tables.len() {
            failures.push(format!(
                "{name}: {on_disk} files for {} tables",
                stats.tables.len()
            ));
            continue;
        }
        clean += 1;
        rows += stats.tables.iter().map(|t| t.rows).sum::<u64>();
    }
    let _ = std::fs::remove_dir_all(&scratch);
    eprintln!(
        "xtask: export: {} corpus files: {clean} exported with every message ({rows} rows), {damaged} with problems reported, {} failures",
        inputs.len(),
        failures.len()
    );
    verdict("robolog export of corpus files", &failures)?;
    parquet_dataset(dir)
}

/// The whole corpus `dir` exported by `robolog export --parquet` as one
/// dataset, each table read as one table by Polars, DuckDB and pyarrow
/// with the rows the export's `wrote` lines report.
fn parquet_dataset(dir: &Path) -> Result {
    use std::collections::BTreeMap;

    let exe = crate::checked_robolog()?;
    let venv = Venv::with(&["pyarrow", "polars", "duckdb", "pytest"])?;
    let out = root().join("target/export-corpus-parquet");
    let _ = std::fs::remove_dir_all(&out);
    let done = Command::new(&exe)
        .arg("export")
        .arg(dir)
        .arg("-o")
        .arg(&out)
        .arg("--parquet")
        .output()
        .map_err(|e| format!("{}: {e}", exe.display()))?;
    // Exit 1 is damaged inputs of the corpus (written as far as they
    // read) and tables left out; anything else is a failure.
    if !matches!(done.status.code(), Some(0 | 1)) {
        return Err(format!(
            "robolog export {} --parquet: {}: {}",
            dir.display(),
            done.status,
            String::from_utf8_lossy(&done.stderr)
        ));
    }
    // Per table folder: rows written, and files that hold rows.
    let mut tables: BTreeMap<PathBuf, (u64, u64)> = BTreeMap::new();
    for line in String::from_utf8_lossy(&done.stdout).lines() {
        let Some(rest) = line.strip_prefix("wrote ") else {
            continue;
        };
        let Some((path, counts)) = rest.rsplit_once(" (") else {
            return Err(format!("robolog export: unexpected line {line:?}"));
        };
        let rows: u64 = counts
            .split_once(' ')
            .and_then(|(n, _)| n.parse().ok())
            .ok_or_else(|| format!("robolog export: unexpected line {line:?}"))?;
        let folder = Path::new(path)
            .parent()
            .and_then(Path::parent)
            .ok_or_else(|| format!("robolog export: unexpected path in {line:?}"))?;
        let t = tables.entry(folder.to_path_buf()).or_default();
        t.0 += rows;
        t.1 += u64::from(rows > 0);
    }
    if tables.is_empty() {
        return Err("robolog export --parquet of the corpus reported no file".into());
    }
    let entries: Vec<serde_json::Value> = tables
        .iter()
        .map(|(folder, (rows, logs))| {
            serde_json::json!({
                "id": folder.file_name().map(|n| n.to_string_lossy()).unwrap_or_default(),
                "folder": folder.display().to_string(),
                "rows": rows,
                "logs": logs,
            })
        })
        .collect();
    let records = venv
        .pytest("test_parquet_dataset.py")
        .manifest(
            &root().join("target/export-corpus-parquet.json"),
            &serde_json::json!({ "entries": entries }),
        )?
        .run()
        .map_err(|e| format!("the corpus dataset does not read as one table per table: {e}"))?;
    eprintln!(
        "xtask: export: the corpus as one Parquet dataset: {} tables, {} rows, each read by \
         polars, duckdb and pyarrow ({} reads)",
        tables.len(),
        tables.values().map(|t| t.0).sum::<u64>(),
        records.len()
    );
    let _ = std::fs::remove_dir_all(&out);
    Ok(())
}

/// A log with `bool` fields, alone and in a nested array, holding bytes
/// other than 0 and 1 (pyulog reads bools as int8: 2, 127, -128, -2).
fn bool_bytes_log() -> Result<Vec<u8>> {
    let err = |e: ulogfile::Error| e.to_string();
    let mut w = ulogfile::Writer::new(Vec::new(), 1_000).map_err(err)?;
    w.add_format("flag:bool on;uint8_t level;").map_err(err)?;
    w.add_format("switches:uint64_t timestamp;flag[2] flags;bool ok;uint8_t[3] _padding0;")
        .map_err(err)?;
    let id = w.add_subscription("switches", 0).map_err(err)?;
    for (i, b) in [[1u8, 2, 127, 3, 0], [128, 4, 254, 5, 2], [0, 6, 1, 7, 255]]
        .iter()
        .enumerate()
    {
        let mut s = (10_000 + i as u64 * 500).to_le_bytes().to_vec();
        s.extend_from_slice(b);
        s.extend_from_slice(&[0; 3]);
        w.write_data(id, &s).map_err(err)?;
    }
    w.finish().map_err(err)
}

/// The files in `dir`, sorted (none when it does not exist).
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// pyulog's `ulog2csv` against `robolog export` on every ULog there is.
pub(crate) fn ulog2csv(corpus: Option<&Path>) -> Result {
    let venv = Venv::with(&["pyulog"])?;
    let tool = venv
        .python()
        .parent()
        .map(|b| b.join("ulog2csv"))
        .unwrap_or_default();
    let exe = crate::checked_robolog()?;
    let scratch = root().join("target/export-ulog2csv");
    let _ = std::fs::remove_dir_all(&scratch);
    let generated = scratch.join("generated");
    std::fs::create_dir_all(&generated).map_err(|e| format!("{}: {e}", generated.display()))?;
    let mut logs: Vec<(String, Vec<u8>)> = crate::testdata("ulog")?
        .into_iter()
        // pyulog stops at the cut of a truncated log with an exception.
        .filter(|(n, _)| n != "truncated.ulg")
        .collect();
    logs.push(("bool_bytes.ulg".into(), bool_bytes_log()?));
    let mut inputs = Vec::new();
    for (name, bytes) in logs {
        let p = generated.join(name);
        std::fs::write(&p, bytes).map_err(|e| format!("{}: {e}", p.display()))?;
        inputs.push(p);
    }
    if let Some(dir) = corpus {
        inputs.extend(ulg_files(&dir.join("ulog")));
    }
    let mut failures = Vec::new();
    let (mut files, mut bytes) = (0usize, 0u64);
    for (i, input) in inputs.iter().enumerate() {
        let name = input
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let dir = scratch.join(format!("{i:02}-{name}"));
        let (theirs, ours) = (dir.join("pyulog"), dir.join("robolog"));
        // ulog2csv creates one level of folder.
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let py = Command::new(&tool)
            .arg("-o")
            .arg(&theirs)
            .arg(input)
            .output()
            .map_err(|e| format!("{}: {e}", tool.display()))?;
        if !py.status.success() {
            failures.push(format!(
                "{name}: pyulog's ulog2csv failed: {}",
                String::from_utf8_lossy(&py.stderr).trim()
            ));
            continue;
        }
        let out = Command::new(&exe)
            .arg("export")
            .arg(input)
            .arg("-o")
            .arg(&ours)
            .output()
            .map_err(|e| format!("{}: {e}", exe.display()))?;
        // 1 is a damaged log, exported as far as it reads (as pyulog does).
        if !matches!(out.status.code(), Some(0 | 1)) {
            failures.push(format!(
                "{name}: robolog export failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
            continue;
        }
        let want = listing(&theirs);
        let got = listing(&ours);
        if want != got {
            failures.push(format!("{name}: robolog wrote {got:?}, ulog2csv {want:?}"));
            continue;
        }
        for f in &want {
            let a = std::fs::read(theirs.join(f)).map_err(|e| format!("{f}: {e}"))?;
            let b = std::fs::read(ours.join(f)).map_err(|e| format!("{f}: {e}"))?;
            if a != b {
                let line = a
                    .split(|&c| c == b'\n')
                    .zip(b.split(|&c| c == b'\n'))
                    .position(|(x, y)| x != y)
                    .map_or(0, |l| l + 1);
                failures.push(format!("{name}: {f} differs (first at line {line})"));
            } else {
                files += 1;
                bytes += a.len() as u64;
            }
        }
    }
    eprintln!(
        "xtask: export: {} ULogs, {files} CSV files ({bytes} bytes) equal to pyulog's ulog2csv, {} failures",
        inputs.len(),
        failures.len()
    );
    verdict("robolog export differs from ulog2csv", &failures)
}
