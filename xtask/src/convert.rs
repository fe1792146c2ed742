//! Checks and benchmark of `robolog convert` (`cargo xtask convert ...`):
//!
//! - `corpus [--corpus DIR]`: every corpus and fixture file of every format
//!   converts to MCAP, the library's doctor passes on every output, the
//!   output's message count and time range equal the input's summary (what
//!   `robolog info` prints), an OSI trace's output has no OSI error its
//!   input lacks; every bag goes bag -> MCAP -> bag with the same
//!   connections (topic, type, md5sum, definition, header fields) and
//!   messages (time, bytes), `robolog cat --json` of the converted bag equals
//!   the bag's, and every bag message decodes and encodes back to its bytes;
//! - `interop [--corpus DIR]`: python `mcap` with `mcap-ros1-support` reads
//!   the MCAP files converted from bags, with values equal to rosbags'
//!   values of the source bag; in the same pytest run, `robolog filter` on
//!   corpus files equals `pymcap-cli filter` (topic patterns, time cuts,
//!   latched topics) and `rosbag filter`'s semantics reimplemented with
//!   rosbags (`--where`), message for message
//!   (`xtask/pytests/test_filter_interop.py`);
//! - `bench [--corpus DIR]`: MB/s of the conversion per format, and bag ->
//!   MCAP against `rosbags-convert` (bag -> rosbag2 with MCAP storage) and
//!   `robolog mcap compress` on the same data, in the same run.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use logcore::{Format, LogReader, MessageFilter};
use robolog::convert::{ConvertOptions, ConvertStats, to_bag, to_mcap};
use rosbag12::Bag;

use crate::{Result, cargo, corpus, opt, root, run, step, verdict};

pub(crate) fn cmd(args: &[String]) -> Result {
    let dir = || corpus::locate(opt(args, "--corpus"));
    match args.first().map(String::as_str) {
        Some("corpus") => corpus(dir()?.as_deref()),
        Some("interop") => interop(dir()?.as_deref()),
        Some("bench") => bench(args),
        _ => Err("usage: cargo xtask convert corpus|interop|bench [--corpus DIR]".into()),
    }
}

/// The format a file must be, from its folder and extension; `None` for
/// side files.
fn expected_format(path: &Path) -> Option<Format> {
    let ext = path.extension()?.to_str()?;
    let in_carla = path.components().any(|c| c.as_os_str() == "carla");
    match ext {
        "bag" => Some(Format::RosBag),
        "ulg" => Some(Format::ULog),
        "mcap" => Some(Format::Mcap),
        "vel" => Some(Format::VelLog),
        "log" | "rec" if in_carla => Some(Format::CarlaRecorder),
        _ => None,
    }
}

/// The files under `dir` (recursively) that `keep` accepts, sorted, added
/// to `out` (a folder that cannot be read is passed over).
pub(crate) fn walk_files(dir: &Path, keep: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
    out.extend(crate::export::files_under(dir, keep));
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    walk_files(dir, &|p| expected_format(p).is_some(), out);
}

/// Every log of the corpus (when there is one) and of `testdata/`.
fn logs(corpus: Option<&Path>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(dir) = corpus {
        walk(dir, &mut files);
    }
    walk(&root().join("testdata"), &mut files);
    files.sort();
    files
}

fn converted(path: &Path) -> std::result::Result<(Vec<u8>, ConvertStats), logcore::Error> {
    let log = robolog::open(path)?;
    to_mcap(&log, Vec::new(), &ConvertOptions::default(), &mut |_| {})
}

/// `cargo xtask convert corpus`.
pub(crate) fn corpus(corpus: Option<&Path>) -> Result {
    let out_dir = root().join("target/convert-corpus");
    std::fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let exe = crate::checked_robolog()?;
    let mut failures = Vec::new();
    let mut done: BTreeMap<String, usize> = BTreeMap::new();
    let mut unreadable = 0usize;
    let mut round_trips = 0usize;
    let mut encoded = 0u64;
    for (i, path) in logs(corpus).iter().enumerate() {
        let name = path.display().to_string();
        let format = expected_format(path)
            .map(|f| format!("{f:?}"))
            .unwrap_or_default();
        let input = match robolog::open(path) {
            Ok(l) => l,
            Err(_) => {
                // Files the readers refuse (conformance cases of other
                // versions, unsupported bag versions) have nothing to convert.
                unreadable += 1;
                continue;
            }
        };
        let (mcap, stats) = match converted(path) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        if let Err(e) = check_output(&input, &mcap, &stats) {
            failures.push(format!("{name}: {e}"));
            continue;
        }
        if input.format() == Format::Mcap {
            if let Err(e) = osi_unchanged(input.bytes(), &mcap) {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        }
        if input.format() == Format::RosBag {
            let out = out_dir.join(format!("{i}.bag"));
            match bag_round_trip(input.bytes(), &mcap, &out, &exe, path) {
                Ok(n) => {
                    round_trips += 1;
                    encoded += n;
                }
                Err(e) => {
                    failures.push(format!("{name}: {e}"));
                    continue;
                }
            }
        }
        *done.entry(format).or_default() += 1;
    }
    let list = |m: &BTreeMap<String, usize>| {
        m.iter()
            .map(|(f, n)| format!("{f} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    eprintln!("xtask: convert: converted {}", list(&done));
    eprintln!(
        "xtask: convert: {round_trips} bags round-trip bag -> MCAP -> bag; {encoded} bag messages encode back to their bytes"
    );
    if unreadable > 0 {
        eprintln!("xtask: convert: {unreadable} files the readers refuse were not converted");
    }
    verdict("files that do not convert cleanly", &failures)
}

/// The doctor passes on `mcap`, and its messages equal the input's
/// summary (count, first and last time); after a lenient read that
/// skipped damage, the output has what the conversion reported.
fn check_output(input: &robolog::Log<'_>, mcap: &[u8], stats: &ConvertStats) -> Result {
    let findings = mcapfile::doctor(mcap, Default::default());
    if mcapfile::doctor::error_count(&findings) > 0 {
        let errors: Vec<String> = findings
            .iter()
            .filter(|f| f.severity == mcapfile::Severity::Error)
            .map(|f| f.message.clone())
            .take(3)
            .collect();
        return Err(format!("doctor finds errors: {}", errors.join("; ")));
    }
    let out = robolog::open_bytes(mcap).map_err(|e| format!("output: {e}"))?;
    let b = out.summary().map_err(|e| format!("output summary: {e}"))?;
    if b.message_count != stats.messages {
        return Err(format!(
            "output has {} messages, the conversion reports {}",
            b.message_count, stats.messages
        ));
    }
    // ULog, CARLA and VEL outputs hold every source channel plus Foxglove
    // views (scene, tf, location fixes, log) under other topic names; their
    // per-topic counts and times against `robolog info` are `cargo xtask
    // foxglove`'s check.
    if !stats.skipped.is_empty() || !matches!(input.format(), Format::RosBag | Format::Mcap) {
        return Ok(());
    }
    let a = input.summary().map_err(|e| format!("input summary: {e}"))?;
    if (a.message_count, a.start, a.end) != (b.message_count, b.start, b.end) {
        return Err(format!(
            "input has {} messages from {:?} to {:?}, output {} from {:?} to {:?}",
            a.message_count, a.start, a.end, b.message_count, b.start, b.end
        ));
    }
    Ok(())
}

/// The OSI rule errors of the output are among the input's.
fn osi_unchanged(input: &[u8], output: &[u8]) -> Result {
    let opts = osi_mcap::validate::ValidateOptions::default();
    let errors = |data: &[u8]| -> BTreeSet<&'static str> {
        osi_mcap::validate(data, &opts)
            .findings
            .iter()
            .filter(|f| f.level == osi_mcap::validate::Level::Error)
            .map(|f| f.rule)
            .collect()
    };
    let (a, b) = (errors(input), errors(output));
    let new: Vec<&str> = b.difference(&a).copied().collect();
    if new.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the output breaks OSI rules the input keeps: {}",
            new.join(", ")
        ))
    }
}

/// bag -> MCAP -> bag gives the same connections and messages, `cat
/// --json` of the new bag equals the bag's, and every message decodes and
/// encodes to its bytes; the number of messages encoded.
fn bag_round_trip(original: &[u8], mcap: &[u8], out: &Path, exe: &Path, src: &Path) -> Result<u64> {
    let log = robolog::open_bytes(mcap).map_err(|e| e.to_string())?;
    let (back, _) = to_bag(
        &log,
        Cursor::new(Vec::new()),
        &ConvertOptions::for_bag(),
        &mut |_| {},
    )
    .map_err(|e| format!("to a bag: {e}"))?;
    let back = back.into_inner();
    let a = Bag::new(original).map_err(|e| e.to_string())?;
    let b = Bag::new(&back).map_err(|e| format!("converted bag: {e}"))?;
    if a.connections().len() != b.connections().len() {
        return Err("a different number of connections after the round trip".into());
    }
    for (x, y) in a.connections().iter().zip(b.connections()) {
        let mut hx = x.header.clone();
        hx.sort();
        // A repeated field keeps its last value, as readers take it.
        hx.dedup_by(|later, earlier| {
            if later.0 == earlier.0 {
                earlier.1 = later.1.clone();
                true
            } else {
                false
            }
        });
        let same = (&x.topic, &x.type_name, &x.md5sum, &x.message_definition)
            == (&y.topic, &y.type_name, &y.md5sum, &y.message_definition)
            && hx == y.header;
        if !same {
            let shown = |h: &[(String, Vec<u8>)]| -> Vec<String> {
                h.iter()
                    .filter(|(n, _)| n != "message_definition")
                    .map(|(n, v)| format!("{n}={}", String::from_utf8_lossy(v)))
                    .collect()
            };
            return Err(format!(
                "connection {} on {} differs after the round trip: {:?} became {:?}",
                x.id,
                x.topic,
                shown(&hx),
                shown(&y.header)
            ));
        }
    }
    let filter = MessageFilter::all().mode(logcore::ReadMode::Lenient);
    let ma: Vec<_> = a.messages(&filter).filter_map(|m| m.ok()).collect();
    let mb: Vec<_> = b.messages(&filter).filter_map(|m| m.ok()).collect();
    if ma.len() != mb.len() {
        return Err(format!(
            "{} messages, {} after the round trip",
            ma.len(),
            mb.len()
        ));
    }
    let mut encoded = 0;
    for (x, y) in ma.iter().zip(&mb) {
        let conn_of = |bag: &Bag<'_>, id: u32| bag.connection(id).map(|c| c.topic.clone());
        if (conn_of(&a, x.conn), x.time, &*x.data) != (conn_of(&b, y.conn), y.time, &*y.data) {
            return Err(format!(
                "message at byte {} differs after the round trip",
                x.offset
            ));
        }
        let Ok(ty) = a.message_type(x.conn) else {
            continue;
        };
        let Ok(v) = ty.decode(&x.data, x.offset) else {
            continue;
        };
        match ty.encode(&v) {
            Ok(bytes) if bytes == *x.data => encoded += 1,
            Ok(_) => {
                return Err(format!(
                    "message at byte {} encodes to other bytes than it decoded from",
                    x.offset
                ));
            }
            Err(e) => return Err(format!("message at byte {}: encoding: {e}", x.offset)),
        }
    }
    std::fs::write(out, &back).map_err(|e| format!("{}: {e}", out.display()))?;
    let cat = |file: &Path| -> Result<Vec<u8>> {
        let o = Command::new(exe)
            .args(["cat", "--json"])
            .arg(file)
            .output()
            .map_err(|e| e.to_string())?;
        Ok(o.stdout)
    };
    if cat(src)? != cat(out)? {
        return Err("`robolog cat --json` of the converted bag differs from the bag's".into());
    }
    Ok(encoded)
}

/// `cargo xtask convert interop`: every intact 2.0 bag converted, then
/// pytest's `xtask/pytests/test_convert_interop.py` reads each MCAP file
/// with `mcap` and `mcap-ros1-support`, the source bag with rosbags (types
/// from the bag's own definitions), and compares the values. The same
/// pytest run checks `robolog filter` against `pymcap-cli filter` and
/// `rosbag filter`'s semantics on corpus files
/// (`xtask/pytests/test_filter_interop.py`, skipped without the corpus).
pub(crate) fn interop(corpus: Option<&Path>) -> Result {
    let venv = crate::python::Venv::with(&[
        "rosbags",
        "mcap",
        "mcap-ros1-support",
        "zstandard",
        "pytest",
        "pymcap-cli",
    ])?;
    let exe = crate::robolog_exe()?;
    let dir = root().join("target/convert-interop");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut failures = Vec::new();
    let mut entries = Vec::new();
    let mut old = 0;
    for (i, bag) in logs(corpus).iter().enumerate() {
        if expected_format(bag) != Some(Format::RosBag) {
            continue;
        }
        let name = bag.display().to_string();
        let Ok(log) = robolog::open(bag) else {
            continue;
        };
        let v2 = log.as_bag().is_some_and(|b| b.version().major == 2);
        let complete = log
            .as_bag()
            .is_some_and(|b| b.warnings().is_empty() && b.end_error().is_none());
        if !v2 || !complete {
            // rosbags reads only intact 2.0 bags.
            old += 1;
            continue;
        }
        let (mcap, _) = match converted(bag) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let path = dir.join(format!("{i}.mcap"));
        std::fs::write(&path, &mcap).map_err(|e| format!("{}: {e}", path.display()))?;
        entries.push(serde_json::json!({
            "id": crate::python::test_id(bag, corpus),
            "bag": name,
            "mcap": path.display().to_string(),
        }));
    }
    let records = venv
        .pytest("test_convert_interop.py")
        .module("test_filter_interop.py")
        .opt("robolog", &exe)
        .manifest(
            &dir.join("manifest.json"),
            &serde_json::json!({"entries": entries, "corpus": corpus, "work": dir}),
        )
        .and_then(|p| p.run());
    match records {
        Ok(records) => {
            // The filter checks record {"filter", "messages"}.
            let (filtered, records): (Vec<_>, Vec<_>) =
                records.into_iter().partition(|r| r.get("filter").is_some());
            let kept: u64 = filtered.iter().filter_map(|r| r["messages"].as_u64()).sum();
            eprintln!(
                "xtask: filter interop: {} robolog filter outputs ({kept} messages) equal pymcap-cli filter's and rosbag filter's semantics (rosbags), message for message",
                filtered.len()
            );
            // A bag rosbags cannot read is skipped: it records nothing.
            let messages: u64 = records.iter().filter_map(|r| r["messages"].as_u64()).sum();
            eprintln!(
                "xtask: convert interop: {messages} messages of {} converted bags read by python mcap + mcap-ros1-support equal rosbags' values of the bags ({old} 1.2 or damaged bags and {} bags rosbags fails on left out)",
                records.len(),
                entries.len() - records.len().min(entries.len())
            );
        }
        Err(e) => failures.push(e),
    }
    verdict("converted bags whose values differ", &failures)
}

/// `cargo xtask bench convert`: runs the release build of this binary.
pub(crate) fn bench(args: &[String]) -> Result {
    step("bench convert (against rosbags-convert and robolog mcap compress)");
    crate::python::Venv::with(&["rosbags"])?;
    run(cargo().args([
        "build",
        "--quiet",
        "--release",
        "-p",
        "xtask",
        "-p",
        "robolog-cli",
        "--no-default-features",
    ]))?;
    let mut c = Command::new(root().join("target/release/xtask"));
    c.arg("bench-convert-inner");
    if let Some(d) = opt(args, "--corpus") {
        c.args(["--corpus", d]);
    }
    run(&mut c)
}

/// Best of three runs of `f`, in seconds.
fn best_of_3(mut f: impl FnMut() -> Result) -> Result<f64> {
    Ok(timed_3(&mut f)?.0)
}

/// Best of three runs of `f` (which runs a command): wall-clock seconds,
/// and the CPU seconds (user + system) of the commands it ran, which
/// leave out the wait for the disk (our writes are synced before the
/// rename; the peers' are not).
fn timed_3(mut f: impl FnMut() -> Result) -> Result<(f64, f64)> {
    let (mut wall, mut cpu) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..3 {
        let (t, c) = (Instant::now(), children_cpu());
        f()?;
        wall = wall.min(t.elapsed().as_secs_f64());
        if let (Some(a), Some(b)) = (c, children_cpu()) {
            cpu = cpu.min(b - a);
        }
    }
    Ok((wall, cpu))
}

/// CPU seconds of the finished child processes (Linux `/proc/self/stat`
/// fields `cutime` and `cstime`, in clock ticks of 1/100 s).
fn children_cpu() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which is in parentheses.
    let rest = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state); cutime and cstime are fields 16, 17.
    let cu: f64 = f.get(13)?.parse().ok()?;
    let cs: f64 = f.get(14)?.parse().ok()?;
    Some((cu + cs) / 100.0)
}

/// The release-mode half of [`bench()`].
pub(crate) fn bench_inner(args: &[String]) -> Result {
    let corpus = corpus::locate(opt(args, "--corpus"))?;
    let dir = root().join("target/convert-bench");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // MB/s per format over the corpus and fixture files that convert.
    let mut per_format: BTreeMap<String, (u64, f64, usize)> = BTreeMap::new();
    for path in logs(corpus.as_deref()) {
        let format = expected_format(&path)
            .map(|f| format!("{f:?}"))
            .unwrap_or_default();
        let Ok(log) = robolog::open(&path) else {
            continue;
        };
        match to_mcap(&log, Vec::new(), &ConvertOptions::default(), &mut |_| {}) {
            Ok(_) => {}
            Err(_) => continue,
        }
        let secs = best_of_3(|| {
            to_mcap(&log, Vec::new(), &ConvertOptions::default(), &mut |_| {})
                .map(|_| ())
                .map_err(|e| e.to_string())
        })?;
        let e = per_format.entry(format).or_default();
        e.0 += log.size();
        e.1 += secs;
        e.2 += 1;
    }
    eprintln!("\nxtask: convert to MCAP (zstd), corpus and fixture files:");
    for (format, (bytes, secs, files)) in &per_format {
        eprintln!(
            "  {format:>13}: {files} files, {:.1} MB in {:.3} s: {:.0} MB/s",
            *bytes as f64 / 1e6,
            secs,
            *bytes as f64 / 1e6 / secs
        );
    }
    // One large bag from the corpus's 2.0 bags, to time against the peers.
    let big = dir.join("bench.bag");
    if !big.exists() {
        make_big_bag(corpus.as_deref(), &big, 100_000_000)?;
    }
    let size = std::fs::metadata(&big).map_err(|e| e.to_string())?.len() as f64 / 1e6;
    let exe = root().join("target/release/robolog");
    let ours_out = dir.join("ours.mcap");
    let (ours, ours_cpu) = timed_3(|| {
        run_quiet(
            Command::new(&exe)
                .arg("convert")
                .arg(&big)
                .arg(&ours_out)
                .arg("--force"),
        )
    })?;
    // rosbags-convert writes uncompressed chunks: the like-for-like run.
    let plain_out = dir.join("ours-none.mcap");
    let (plain, plain_cpu) = timed_3(|| {
        run_quiet(
            Command::new(&exe)
                .arg("convert")
                .arg(&big)
                .arg(&plain_out)
                .args(["--compression", "none", "--force"]),
        )
    })?;
    let compressed = dir.join("compressed.mcap");
    let (compress, compress_cpu) = timed_3(|| {
        run_quiet(
            Command::new(&exe)
                .args(["mcap", "compress"])
                .arg(&ours_out)
                .arg(&compressed)
                .arg("--force"),
        )
    })?;
    let peer_out = dir.join("rosbags-convert");
    let peer_exe = root().join("target/interop-venv/bin/rosbags-convert");
    let (peer, peer_cpu) = timed_3(|| {
        let _ = std::fs::remove_dir_all(&peer_out);
        run_quiet(
            Command::new(&peer_exe)
                .arg("--src")
                .arg(&big)
                .arg("--dst")
                .arg(&peer_out)
                .args(["--dst-storage", "mcap"]),
        )
    })?;
    eprintln!(
        "\nxtask: bag -> MCAP, {size:.0} MB bag (best of 3, whole commands; wall clock, then CPU time):\n  \
         robolog convert       {:.0} MB/s ({ours:.2} s), CPU {ours_cpu:.2} s (zstd chunks, the default)\n  \
         robolog convert       {:.0} MB/s ({plain:.2} s), CPU {plain_cpu:.2} s (--compression none)\n  \
         rosbags-convert       {:.0} MB/s ({peer:.2} s), CPU {peer_cpu:.2} s (uncompressed chunks): robolog with uncompressed chunks is {:.1}x faster, {:.1}x in CPU time (target >= 10x); with zstd chunks {:.1}x, {:.1}x in CPU time\n  \
         robolog mcap compress {:.0} MB/s ({compress:.2} s), CPU {compress_cpu:.2} s, on the converted file: convert runs at {:.2}x its speed, {:.2}x in CPU time (target >= 0.5x)",
        size / ours,
        size / plain,
        size / peer,
        peer / plain,
        peer_cpu / plain_cpu,
        peer / ours,
        peer_cpu / ours_cpu,
        size / compress,
        compress / ours,
        compress_cpu / ours_cpu,
    );
    Ok(())
}

fn run_quiet(cmd: &mut Command) -> Result {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?} failed: {} {}",
            String::from_utf8_lossy(&out.stdout).trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// The bags the benchmark bag is made of: recordings of common message
/// types (point clouds, laser scans, images, logs) that rosbags-convert
/// also reads; the fixtures when the corpus is missing.
const BENCH_SOURCES: [&str; 5] = [
    "rosbagjs-example.bag",
    "embag-test.bag",
    "swri-PointCloud2.bag",
    "ccny-laser_scan_splitter-demo.bag",
    "sample.bag",
];

/// About `bytes` of messages in an uncompressed 2.0 bag made of the messages of
/// [`BENCH_SOURCES`], repeated with shifted times.
pub(crate) fn make_big_bag(corpus: Option<&Path>, dest: &Path, bytes: u64) -> Result {
    let mut sources = Vec::new();
    for p in logs(corpus) {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        if !name.is_some_and(|n| BENCH_SOURCES.contains(&n.as_str())) {
            continue;
        }
        let bytes = std::fs::read(&p).map_err(|e| e.to_string())?;
        let ok = Bag::new(&bytes).is_ok_and(|b| {
            b.version().major == 2 && b.warnings().is_empty() && b.end_error().is_none()
        });
        if ok {
            sources.push(bytes);
        }
    }
    let file = std::fs::File::create(dest).map_err(|e| e.to_string())?;
    let mut w = rosbag12::Writer::new(
        std::io::BufWriter::new(file),
        rosbag12::WriterOptions::default(),
    )
    .map_err(|e| e.to_string())?;
    let mut written = 0u64;
    let mut round = 0u32;
    let mut ids: BTreeMap<(usize, u32), u32> = BTreeMap::new();
    while written < bytes && !sources.is_empty() {
        for (k, bytes) in sources.iter().enumerate() {
            let bag = Bag::new(bytes).map_err(|e| e.to_string())?;
            for m in bag.messages(&MessageFilter::all()) {
                let m = m.map_err(|e| e.to_string())?;
                let id = match ids.get(&(k, m.conn)) {
                    Some(&id) => id,
                    None => {
                        let c = bag.connection(m.conn).cloned().ok_or("no connection")?;
                        let id = w.add_connection(c).map_err(|e| e.to_string())?;
                        ids.insert((k, m.conn), id);
                        id
                    }
                };
                let t = rosbag12::RosTime {
                    sec: m.time.sec.saturating_add(round * 100_000),
                    nsec: m.time.nsec,
                };
                w.write(id, t, &m.data).map_err(|e| e.to_string())?;
                written += m.data.len() as u64;
            }
        }
        round += 1;
    }
    w.finish().map_err(|e| e.to_string())?;
    Ok(())
}
