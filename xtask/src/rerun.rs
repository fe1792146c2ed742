//! `cargo xtask rerun [--corpus DIR]`: converts every ULog, CARLA and VEL
//! file of `testdata/` and the corpus to MCAP with the `protobuf` encoding
//! (and with `json`, to compare), then checks the protobuf files with
//! Rerun and Foxglove's published protobuf classes (pytest's
//! `xtask/pytests/test_rerun.py`, a test per file):
//!
//! - `rerun mcap convert -d foxglove -d protobuf --disable-raw-fallback`
//!   (python `rerun-sdk`) turns every file into an `.rrd` in which every
//!   channel is an entity holding a row for every message (read back with
//!   `rerun.chunk.RrdReader`);
//! - every `foxglove.*` message decodes with the classes of python
//!   `foxglove-schemas-protobuf`, and every schema's descriptors equal
//!   those classes' (names, numbers, types, labels);
//! - every message of every channel (Foxglove's, and the generated types
//!   read through python `protobuf` from the channel's file descriptor
//!   set) holds the values of the same message of the `json` conversion,
//!   field by field (floats exactly, NaN as NaN, base64 as bytes).
//!
//! And the ROS 2 MCAP conversions of the corpus's ROS 1 bags: every bag
//! that `robolog convert BAG OUT.mcap --ros2` converts (the gate's debug
//! binary, or `--robolog EXE`) goes through `rerun mcap convert -d ros2msg
//! -d ros2_reflection --disable-raw-fallback`, and every topic must be an
//! entity holding a row for every message, whether Rerun's ROS 2 decoders
//! know its type (`ros2msg`: images, point clouds, ...) or read it by
//! reflection from its `ros2msg` schema (`ros2_reflection`). The run says
//! which types went which way.

use std::path::{Path, PathBuf};

use logcore::Format;
use robolog::convert::{ConvertOptions, Encoding, to_mcap};

use crate::python::Venv;
use crate::{Result, corpus, opt, root, verdict};

/// The exact versions the check was written against.
const PACKAGES: [&str; 7] = [
    "rerun-sdk",
    "protobuf",
    "foxglove-schemas-protobuf",
    "mcap",
    "zstandard",
    "lz4",
    "pytest",
];

/// The input files: ULog, CARLA and VEL fixtures, and the corpus's.
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
    let keep = |p: &Path| {
        matches!(
            p.extension().and_then(|x| x.to_str()),
            Some("ulg" | "log" | "rec" | "vel")
        )
    };
    let mut files = Vec::new();
    for d in dirs {
        crate::convert::walk_files(&d, &keep, &mut files);
    }
    files.sort();
    files
}

/// Converts `log` with `encoding` into `out`.
fn convert(log: &robolog::Log<'_>, encoding: Encoding, out: &Path) -> Result<u64> {
    let opts = ConvertOptions {
        encoding,
        ..ConvertOptions::default()
    };
    let (bytes, stats) =
        to_mcap(log, Vec::new(), &opts, &mut |_| {}).map_err(|e| format!("{encoding:?}: {e}"))?;
    std::fs::write(out, bytes).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(stats.messages)
}

/// Converts the `i`th input `path` with both encodings into `dir`: its
/// manifest entry, `None` when it is no ULog, CARLA or VEL log (or does
/// not open), or the failure.
fn convert_both(path: &Path, dir: &Path, i: usize) -> Result<Option<serde_json::Value>> {
    let shown = path.display().to_string();
    let log = match robolog::open(path) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("xtask: {shown}: not converted, it does not open: {e}");
            return Ok(None);
        }
    };
    if !matches!(
        log.format(),
        Format::ULog | Format::CarlaRecorder | Format::VelLog
    ) {
        return Ok(None);
    }
    let proto = dir.join(format!("{i:03}.mcap"));
    let json = dir.join(format!("{i:03}.json.mcap"));
    let p = convert(&log, Encoding::Protobuf, &proto).map_err(|e| format!("{shown}: {e}"))?;
    let j = convert(&log, Encoding::Json, &json).map_err(|e| format!("{shown}: {e}"))?;
    if p != j {
        return Err(format!("{shown}: {p} protobuf messages, {j} json ones"));
    }
    Ok(Some(serde_json::json!({
        "source": shown,
        "proto": proto.display().to_string(),
        "json": json.display().to_string(),
        "rrd": dir.join(format!("{i:03}.rrd")).display().to_string(),
    })))
}

/// The ROS 1 bags of the corpus, for the ROS 2 check.
fn ros1_bags(corpus: Option<&Path>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(c) = corpus {
        let keep = |p: &Path| p.extension().is_some_and(|x| x == "bag");
        crate::convert::walk_files(&c.join("rosbag"), &keep, &mut files);
    }
    files.sort();
    files
}

/// Converts the `i`th ROS 1 bag into ROS 2 MCAP in `dir` with the robolog
/// binary `exe`: its manifest entry, or `None` (and a note) when robolog
/// does not convert it (a bag version or damage it refuses).
fn convert_ros2(exe: &Path, path: &Path, dir: &Path, i: usize) -> Option<serde_json::Value> {
    let shown = path.display().to_string();
    let out = dir.join(format!("ros2-{i:03}.mcap"));
    let run = std::process::Command::new(exe)
        .arg("convert")
        .arg(path)
        .arg(&out)
        .args(["--ros2", "--force"])
        .output();
    match run {
        Ok(o) if o.status.success() => Some(serde_json::json!({
            "kind": "ros2",
            "source": shown,
            "mcap": out.display().to_string(),
            "rrd": dir.join(format!("ros2-{i:03}.rrd")).display().to_string(),
        })),
        Ok(o) => {
            let why = String::from_utf8_lossy(&o.stderr);
            let why = why.lines().next().unwrap_or_default();
            eprintln!(
                "xtask: {shown}: not converted to ROS 2 ({}): {why}",
                o.status
            );
            None
        }
        Err(e) => {
            eprintln!("xtask: {shown}: could not run {}: {e}", exe.display());
            None
        }
    }
}

/// `cargo xtask rerun [--corpus DIR] [--robolog EXE]`.
pub(crate) fn cmd(args: &[String]) -> Result {
    let started = std::time::Instant::now();
    let corpus = corpus::locate(opt(args, "--corpus"))?;
    let dir = root().join("target/rerun-check");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let files = inputs(corpus.as_deref());
    // Two workers: the conversions run in the debug build.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(path) = files.get(i) else { break };
                    let outcome = convert_both(path, &dir, i);
                    done.lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((i, outcome));
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.sort_by_key(|(i, _)| *i);
    let mut failures = Vec::new();
    let mut manifest = Vec::new();
    for (_, outcome) in done {
        match outcome {
            Ok(Some(entry)) => manifest.push(entry),
            Ok(None) => {}
            Err(e) => failures.push(e),
        }
    }
    // The ROS 2 conversions, with the command-line tool.
    let bags = ros1_bags(corpus.as_deref());
    let mut ros2_refused = 0usize;
    if !bags.is_empty() {
        let exe = match opt(args, "--robolog") {
            Some(p) => PathBuf::from(p),
            None => crate::robolog_exe()?,
        };
        for (i, bag) in bags.iter().enumerate() {
            match convert_ros2(&exe, bag, &dir, i) {
                Some(entry) => manifest.push(entry),
                None => ros2_refused += 1,
            }
        }
    }
    let converted = started.elapsed();
    let venv = Venv::with(&PACKAGES)?;
    let entries = manifest.len();
    for entry in &mut manifest {
        let source = PathBuf::from(entry["source"].as_str().unwrap_or_default());
        let id = crate::python::test_id(&source, corpus.as_deref());
        entry["id"] = match entry["kind"] == "ros2" {
            true => format!("ros2:{id}"),
            false => id,
        }
        .into();
    }
    let manifest = serde_json::json!({
        "rerun": venv.python().with_file_name("rerun").display().to_string(),
        "entries": manifest,
    });
    let results = venv
        .pytest("test_rerun.py")
        .env("RERUN_ANALYTICS", "0")
        .manifest(&dir.join("manifest.json"), &manifest)
        .and_then(|p| p.run())
        .unwrap_or_else(|e| {
            failures.push(e);
            Vec::new()
        });
    // ROS 2 types by the way Rerun read them: (semantic, reflection).
    let mut by_decoder: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
        std::collections::BTreeMap::new();
    let mut ros2 = (0usize, 0u64);
    for got in &results {
        let shown = got["source"].as_str().unwrap_or_default();
        if got["kind"] == "ros2" {
            ros2.0 += 1;
            ros2.1 += got["messages"].as_u64().unwrap_or(0);
            for (ty, how) in got["decoders"].as_object().into_iter().flatten() {
                by_decoder
                    .entry(how.as_str().unwrap_or_default().to_string())
                    .or_default()
                    .insert(ty.clone());
            }
            eprintln!(
                "xtask: {shown}: ROS 2: {} topics and {} messages found in Rerun",
                got["channels"], got["messages"]
            );
            continue;
        }
        eprintln!(
            "xtask: {shown}: {} channels and {} messages found in Rerun; {} Foxglove messages decoded, {} compared with json",
            got["channels"], got["messages"], got["foxglove"], got["compared"]
        );
    }
    eprintln!(
        "xtask: ROS 2: {} bags converted ({ros2_refused} refused by robolog), {} messages, every topic checked in Rerun",
        ros2.0, ros2.1
    );
    for (how, types) in &by_decoder {
        let list: Vec<&str> = types.iter().map(String::as_str).collect();
        eprintln!("xtask: ROS 2 types Rerun read {how}: {}", list.join(", "));
    }
    if failures.is_empty() && results.len() != entries {
        failures.push(format!(
            "the checker reported on {} files of {entries}",
            results.len(),
        ));
    }
    eprintln!(
        "xtask: rerun check took {:.1} s ({:.1} s converting)",
        started.elapsed().as_secs_f64(),
        converted.as_secs_f64()
    );
    verdict("Rerun/protobuf conversion checks that failed", &failures)
}
