//! ULog checks: fixtures, the pyulog 1.3.0 parity comparison against every
//! reference output in the corpus, interop (pyulog reads what our writer
//! produced), and the benchmark against pyulog. (Truncation and bit-flip
//! robustness on real logs is ulogfile's `tests/corpus_robustness.rs`.)

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use ulogfile::pyulog::{self, ParamFormat, ParamOptions};
use ulogfile::{ULog, write};

use crate::python::Venv;
use crate::{Result, cargo, root, run, step};

/// Reference outputs pyulog 1.3.0 produces by decoding PX4 events from
/// metadata embedded in the log (xz-compressed JSON), which this crate
/// does not do yet. Reported, not failed.
const NEEDS_EVENTS: &str = "PX4 events decoded from embedded metadata";

/// `cargo xtask ulog corpus|interop|bench [--corpus DIR]`: the ULog checks alone.
pub(crate) fn cmd(args: &[String]) -> Result {
    let dir = crate::corpus::locate(crate::opt(args, "--corpus"))?;
    match args.first().map(String::as_str) {
        Some("corpus") => dir.map_or(Ok(()), |d| corpus(&d)),
        Some("interop") => interop(dir.as_deref()),
        Some("bench") => bench(&dir.ok_or("the ULog benchmark needs the corpus")?),
        _ => Err("usage: cargo xtask ulog corpus|interop|bench [--corpus DIR]".into()),
    }
}

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn ulg_files(dir: &Path, out: &mut Vec<PathBuf>) {
    out.extend(robolog_testkit::files_with_ext(dir, &["ulg"]));
}

/// The ULog corpus checks: parity with every reference output
/// (robustness on real logs is ulogfile's `corpus_robustness` test).
pub(crate) fn corpus(dir: &Path) -> Result {
    let ulog = dir.join("ulog");
    if !ulog.is_dir() {
        return Err(format!("no ulog folder in the corpus at {}", dir.display()));
    }
    step("ulog: pyulog 1.3.0 parity");
    parity(&ulog)?;
    // Truncation and bit flips on real logs: ulogfile's
    // tests/corpus_robustness.rs, run by the gate's tests step.
    Ok(())
}

fn find_log(ulog: &Path, name: &str) -> Option<PathBuf> {
    let mut all = Vec::new();
    ulg_files(ulog, &mut all);
    all.into_iter()
        .find(|p| p.file_stem().is_some_and(|s| s == name))
}

/// Our output for one reference file name, or `None` for files this check
/// does not know.
fn ours(log: &ULog<'_>, reference: &str) -> Option<std::result::Result<String, String>> {
    let p = |f: ParamFormat, initial, timestamps, default| {
        pyulog::params(
            log,
            &ParamOptions {
                format: f,
                delimiter: ",".into(),
                initial,
                timestamps,
                default,
            },
        )
    };
    Some(match reference {
        "ulog_info.txt" => Ok(pyulog::info(log, false)),
        "ulog_info_v.txt" => Ok(pyulog::info(log, true)),
        "ulog_messages.txt" => {
            let (text, gap) = pyulog::messages(log);
            match gap {
                Some(_) => Err(NEEDS_EVENTS.to_string()),
                None => Ok(text),
            }
        }
        "ulog_params.csv" => p(ParamFormat::Csv, false, false, None),
        "ulog_params_i.csv" => p(ParamFormat::Csv, true, false, None),
        "ulog_params_t.csv" => p(ParamFormat::Csv, false, true, None),
        "ulog_params_octave.txt" => p(ParamFormat::Octave, false, false, None),
        "ulog_params_qgc.txt" => p(ParamFormat::Qgc, false, false, None),
        "ulog_params_default_system.csv" => p(ParamFormat::Csv, true, false, Some(0)),
        "ulog_params_default_current_setup.csv" => p(ParamFormat::Csv, true, false, Some(1)),
        _ => return None,
    })
}

struct Tally {
    equal: usize,
    gaps: Vec<String>,
    failures: Vec<String>,
}

impl Tally {
    fn check(&mut self, what: String, got: std::result::Result<String, String>, want: &[u8]) {
        match got {
            Ok(g) if g.as_bytes() == want => self.equal += 1,
            Ok(g) => self
                .failures
                .push(format!("{what}: differs{}", first_diff(g.as_bytes(), want))),
            Err(e) if e == NEEDS_EVENTS => self.gaps.push(format!("{what}: {e}")),
            Err(e) => self.failures.push(format!("{what}: {e}")),
        }
    }
}

fn first_diff(a: &[u8], b: &[u8]) -> String {
    let a = String::from_utf8_lossy(a);
    let b = String::from_utf8_lossy(b);
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!(" at line {}: ours {x:?}, pyulog {y:?}", i + 1);
        }
    }
    format!(
        " in length ({} vs {} lines)",
        a.lines().count(),
        b.lines().count()
    )
}

fn parity(ulog: &Path) -> Result {
    let mut t = Tally {
        equal: 0,
        gaps: Vec::new(),
        failures: Vec::new(),
    };
    let generated = ulog.join("generated-by-pyulog-1.3.0");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&generated)
        .map_err(|e| format!("{}: {e}", generated.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let exe = crate::checked_robolog()?;
    for d in &dirs {
        let dname = d
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let log_name = dname.rsplit("__").next().unwrap_or(&dname).to_string();
        let Some(path) = find_log(ulog, &log_name) else {
            t.failures
                .push(format!("{dname}: no {log_name}.ulg in the corpus"));
            continue;
        };
        let bytes = read(&path)?;
        let log = ULog::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut refs: Vec<PathBuf> = std::fs::read_dir(d)
            .map_err(|e| format!("{}: {e}", d.display()))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        refs.sort();
        for r in refs {
            let name = r
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string();
            if let Some(got) = ours(&log, &name) {
                t.check(format!("{dname}/{name}"), got, &read(&r)?);
            }
        }
        if d.join("ulog2csv_stdout.txt").is_file() {
            csv_parity(&exe, &path, d, &dname, &mut t)?;
        }
    }
    // The upstream expected files that pyulog's own CI compares (1.3.0 formats).
    let upstream = ulog.join("pyulog/expected-upstream-1.3.0");
    for (file, kind) in [
        ("sample_info.txt", "info"),
        ("sample_appended_info.txt", "info"),
        ("sample_appended_multiple_info.txt", "info"),
        ("sample_messages.txt", "messages"),
        ("sample_appended_messages.txt", "messages"),
        ("sample_px4_events_messages.txt", "messages"),
    ] {
        let r = upstream.join(file);
        let log_name = file.rsplit_once('_').map_or(file, |(a, _)| a);
        let Some(path) = find_log(ulog, log_name) else {
            t.failures
                .push(format!("upstream {file}: no {log_name}.ulg"));
            continue;
        };
        let bytes = read(&path)?;
        let log = ULog::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let reference = if kind == "info" {
            "ulog_info_v.txt"
        } else {
            "ulog_messages.txt"
        };
        if let Some(got) = ours(&log, reference) {
            t.check(format!("upstream {file}"), got, &read(&r)?);
        }
    }
    eprintln!(
        "xtask: ulog parity: {} reference outputs equal byte for byte, {} known gaps, {} failures",
        t.equal,
        t.gaps.len(),
        t.failures.len()
    );
    for g in &t.gaps {
        eprintln!("xtask: ulog parity: KNOWN GAP {g}");
    }
    if t.failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "ulog parity failures:\n  {}",
            t.failures.join("\n  ")
        ))
    }
}

/// `robolog ulog csv -o ulog2csv FILE` in a scratch folder: stdout and every
/// CSV file must equal pyulog's.
fn csv_parity(exe: &Path, log: &Path, refdir: &Path, dname: &str, t: &mut Tally) -> Result {
    let scratch = root().join("target/ulog-parity").join(dname);
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let out = Command::new(exe)
        .current_dir(&scratch)
        .args(["ulog", "csv", "-o", "ulog2csv"])
        .arg(log)
        .output()
        .map_err(|e| format!("{}: {e}", exe.display()))?;
    t.check(
        format!("{dname}/ulog2csv_stdout.txt"),
        Ok(String::from_utf8_lossy(&out.stdout).to_string()),
        &read(&refdir.join("ulog2csv_stdout.txt"))?,
    );
    let want_dir = refdir.join("ulog2csv");
    let mut want: Vec<PathBuf> = std::fs::read_dir(&want_dir)
        .map_err(|e| format!("{}: {e}", want_dir.display()))?
        .flatten()
        .map(|e| e.path())
        .collect();
    want.sort();
    let got_count = std::fs::read_dir(scratch.join("ulog2csv")).map_or(0, |d| d.count());
    if got_count != want.len() {
        t.failures.push(format!(
            "{dname}: {got_count} CSV files, pyulog wrote {}",
            want.len()
        ));
    }
    for w in want {
        let name = w
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let got = std::fs::read(scratch.join("ulog2csv").join(&name))
            .map(|b| String::from_utf8_lossy(&b).to_string())
            .map_err(|e| format!("missing: {e}"));
        t.check(format!("{dname}/ulog2csv/{name}"), got, &read(&w)?);
    }
    Ok(())
}

/// Files from our writer that pyulog must read with identical data: the
/// fixtures and a rewrite of each PX4 log of the corpus.
pub(crate) fn interop(corpus: Option<&Path>) -> Result {
    let venv = Venv::with(&["pyulog"])?;
    let scratch = root().join("target/ulog-interop");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let mut files: Vec<(String, Vec<u8>)> = crate::testdata("ulog")?
        .into_iter()
        .filter(|(n, _)| n != "truncated.ulg")
        .collect();
    files.push(("bool-bytes.ulg".into(), bool_bytes_log()?));
    if let Some(dir) = corpus {
        let mut all = Vec::new();
        ulg_files(&dir.join("ulog"), &mut all);
        all.sort();
        for p in all {
            let bytes = read(&p)?;
            let log = ULog::parse(&bytes).map_err(|e| format!("{}: {e}", p.display()))?;
            let name = format!(
                "rewritten-{}",
                p.file_name().unwrap_or_default().to_string_lossy()
            );
            files.push((name, write::rewrite(&log).map_err(|e| e.to_string())?));
        }
    }
    let bin = venv
        .python()
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut failures = Vec::new();
    let mut compared = 0usize;
    for (name, bytes) in &files {
        let path = scratch.join(name);
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let log = ULog::parse(bytes).map_err(|e| format!("{name}: {e}"))?;
        let tools: [(&str, &[&str], String); 3] = [
            ("ulog_info", &["-v"], pyulog::info(&log, true)),
            (
                "ulog_params",
                &["-t"],
                pyulog::params(
                    &log,
                    &ParamOptions {
                        timestamps: true,
                        ..ParamOptions::default()
                    },
                )
                .unwrap_or_default(),
            ),
            ("ulog_messages", &[], pyulog::messages(&log).0),
        ];
        for (tool, args, want) in tools {
            if tool == "ulog_messages" && pyulog::messages(&log).1.is_some() {
                continue;
            }
            let out = Command::new(bin.join(tool))
                .current_dir(&scratch)
                .args(args)
                .arg(name)
                .output()
                .map_err(|e| format!("{tool}: {e}"))?;
            compared += 1;
            if !out.status.success() || out.stdout != want.as_bytes() {
                failures.push(format!(
                    "{name}: pyulog {tool} {}{}",
                    String::from_utf8_lossy(&out.stderr)
                        .lines()
                        .last()
                        .unwrap_or(""),
                    first_diff(want.as_bytes(), &out.stdout)
                ));
            }
        }
        // Data: pyulog's CSV of every topic equals ours.
        let csv_dir = scratch.join(format!("{name}.csv"));
        let out = Command::new(bin.join("ulog2csv"))
            .current_dir(&scratch)
            .args(["-o"])
            .arg(&csv_dir)
            .arg(name)
            .output()
            .map_err(|e| format!("ulog2csv: {e}"))?;
        if !out.status.success() {
            failures.push(format!(
                "{name}: pyulog ulog2csv failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
            continue;
        }
        let stem = name.trim_end_matches(".ulg");
        for d in pyulog::datasets(&log) {
            let file = pyulog::csv_file_name(&csv_dir.join(stem).to_string_lossy(), d);
            let mut want = Vec::new();
            let _ = pyulog::csv(d, ",", None, None, &mut want);
            compared += 1;
            if std::fs::read(&file).ok().as_deref() != Some(&want[..]) {
                failures.push(format!("{name}: pyulog's CSV {file} differs from ours"));
            }
        }
    }
    if let Some(dir) = corpus {
        compared += damaged_parity(&venv, &dir.join("ulog"), &scratch, &mut failures)?;
    }
    eprintln!(
        "xtask: ulog interop: pyulog 1.3.0 read {} files from our writer, and damaged copies of real logs; {compared} outputs compared, {} differ",
        files.len(),
        failures.len()
    );
    crate::verdict("ulog interop failures", &failures)
}

/// A log whose `bool` field holds bytes other than 0 and 1 (65, 255):
/// pyulog reads bools as int8 and prints the number (255 as -1).
fn bool_bytes_log() -> Result<Vec<u8>> {
    let err = |e: ulogfile::Error| e.to_string();
    let mut w = write::Writer::new(Vec::new(), 1_000).map_err(err)?;
    w.add_format("flags:uint64_t timestamp;bool armed;bool[2] landed;uint8_t[5] _padding0;")
        .map_err(err)?;
    let id = w.add_subscription("flags", 0).map_err(err)?;
    for (i, bytes) in [[0u8, 1, 0], [65, 0, 255], [1, 2, 1]].iter().enumerate() {
        let mut s = (2_000 + i as u64 * 1_000).to_le_bytes().to_vec();
        s.extend_from_slice(bytes);
        s.extend_from_slice(&[0; 5]);
        w.write_data(id, &s).map_err(err)?;
    }
    w.finish().map_err(err)
}

/// `cargo xtask bench ulog`: re-runs this binary in release mode to time a
/// full parse of each corpus log with every topic decoded into columns,
/// then times pyulog 1.3.0 loading the same files in the same run.
pub(crate) fn bench(corpus: &Path) -> Result {
    run(cargo().args(["build", "--quiet", "--release", "-p", "xtask"]))?;
    let exe = root().join("target/release/xtask");
    run(Command::new(&exe).arg("bench-ulog-inner").arg(corpus))
}

/// Rounds of the benchmark: each times every file with our reader, then
/// with pyulog; the best time of each file over all rounds counts, so a
/// slow moment of the machine does not decide a ratio.
const BENCH_ROUNDS: usize = 3;

/// The release-mode half of [`bench()`].
pub(crate) fn bench_inner(corpus: &Path) -> Result {
    let venv = Venv::with(&["pyulog"])?;
    let mut all = Vec::new();
    ulg_files(&corpus.join("ulog"), &mut all);
    all.sort();
    all.retain(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 100_000));
    // Best seconds per file: parse, parse + columns, pyulog.
    let mut best = vec![[f64::MAX; 3]; all.len()];
    for round in 0..BENCH_ROUNDS {
        for (p, b) in all.iter().zip(&mut best) {
            let bytes = read(p)?;
            let parse = time_best(10, || {
                let log = ULog::parse(&bytes).map_err(|e| e.to_string())?;
                std::hint::black_box(log.subscriptions.len());
                Ok(())
            })?;
            let columns = time_best(10, || {
                let log = ULog::parse(&bytes).map_err(|e| e.to_string())?;
                let mut n = 0usize;
                for s in &log.subscriptions {
                    for (_, c) in s.columns() {
                        n += c.len();
                    }
                }
                std::hint::black_box(n);
                Ok(())
            })?;
            b[0] = b[0].min(parse.as_secs_f64());
            b[1] = b[1].min(columns.as_secs_f64());
        }
        // pyulog's best of two loads per file, a line of seconds each.
        let out = venv
            .script("ulog_timer.py")
            .arg("2")
            .args(&all)
            .output()
            .map_err(|e| format!("python: {e}"))?;
        let times: Vec<f64> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect();
        if !out.status.success() || times.len() != all.len() {
            return Err(format!(
                "pyulog timing failed (round {round}): {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        for (b, t) in best.iter_mut().zip(times) {
            b[2] = b[2].min(t);
        }
    }
    println!(
        "{:<46} {:>6} {:>11} {:>13} {:>12} {:>7} {:>7}",
        "file", "MB", "parse MB/s", "+columns MB/s", "pyulog MB/s", "ratio", "ratio*"
    );
    let (mut total_ours, mut total_py, mut total_mb, mut total_parse) = (0.0, 0.0, 0.0, 0.0);
    for (p, &[parse, o, py]) in all.iter().zip(&best) {
        let mb = std::fs::metadata(p).map_or(0.0, |m| m.len() as f64 / 1e6);
        total_ours += o;
        total_parse += parse;
        total_py += py;
        total_mb += mb;
        println!(
            "{:<46} {mb:>6.2} {:>11.0} {:>13.0} {:>12.1} {:>6.0}x {:>6.0}x",
            p.file_name().unwrap_or_default().to_string_lossy(),
            mb / parse,
            mb / o,
            mb / py,
            py / o,
            py / parse
        );
    }
    println!(
        "{:<46} {total_mb:>6.2} {:>11.0} {:>13.0} {:>12.1} {:>6.0}x {:>6.0}x",
        "all",
        total_mb / total_parse,
        total_mb / total_ours,
        total_mb / total_py,
        total_py / total_ours,
        total_py / total_parse
    );
    println!(
        "best of {BENCH_ROUNDS} rounds (ours: 10 runs a round, pyulog: 2 loads a round, rounds interleaved); \
         ratio: pyulog time / ours with every topic decoded into typed columns; \
         ratio*: / ours parsing only (samples indexed per topic, zero-copy typed access; \
         what pyulog's numpy views correspond to)"
    );
    Ok(())
}

fn time_best(n: usize, mut f: impl FnMut() -> Result) -> Result<Duration> {
    let mut best = Duration::MAX;
    for _ in 0..n {
        let t = Instant::now();
        f()?;
        best = best.min(t.elapsed());
    }
    Ok(best)
}

/// Damaged copies of real logs (bit flips, zeroed and random blocks, cuts;
/// deterministic): pyulog's `ulog_info -v`, `ulog_params -t` and
/// `ulog_messages` (in their ignore-invalid-UTF-8 modes) must print what we
/// print, including its warnings and the corruption flag.
fn damaged_parity(
    venv: &Venv,
    ulog: &Path,
    scratch: &Path,
    failures: &mut Vec<String>,
) -> Result<usize> {
    let bin = venv
        .python()
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut compared = 0;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for name in [
        "sample_log_small",
        "sample_logging_tagged_and_default_params",
        "sample",
    ] {
        let Some(path) = find_log(ulog, name) else {
            continue;
        };
        let bytes = read(&path)?;
        let n = bytes.len();
        for k in 0..8 {
            let mut b = bytes.clone();
            let at = n / 10 + (next() as usize) % (n - n / 10);
            match k % 4 {
                0 => {
                    for _ in 0..1 + next() % 5 {
                        let p = n / 10 + (next() as usize) % (n - n / 10);
                        b[p] ^= 1 << (next() % 8);
                    }
                }
                1 => {
                    let len = 1 + (next() as usize) % 3000;
                    b[at..(at + len).min(n)].fill(0);
                }
                2 => b.truncate(n / 2 + (next() as usize) % (n / 2)),
                _ => {
                    let len = 1 + (next() as usize) % 500;
                    for x in &mut b[at..(at + len).min(n)] {
                        *x = next() as u8;
                    }
                }
            }
            let file = format!("damaged-{name}-{k}.ulg");
            std::fs::write(scratch.join(&file), &b).map_err(|e| format!("{file}: {e}"))?;
            let log = ULog::parse(&b).map_err(|e| format!("{file}: {e}"))?;
            let params = pyulog::params(
                &log,
                &ParamOptions {
                    timestamps: true,
                    ..ParamOptions::default()
                },
            )
            .unwrap_or_default();
            let tools: [(&str, &[&str], String); 3] = [
                ("ulog_info", &["-v", "-i"], pyulog::info(&log, true)),
                ("ulog_params", &["-t", "--ignore"], params),
                ("ulog_messages", &["-i"], pyulog::messages(&log).0),
            ];
            for (tool, args, want) in tools {
                let out = Command::new(bin.join(tool))
                    .current_dir(scratch)
                    .args(args)
                    .arg(&file)
                    .output()
                    .map_err(|e| format!("{tool}: {e}"))?;
                compared += 1;
                if out.stdout != want.as_bytes() {
                    failures.push(format!(
                        "{file}: pyulog {tool}{}",
                        first_diff(want.as_bytes(), &out.stdout)
                    ));
                }
            }
        }
    }
    Ok(compared)
}
