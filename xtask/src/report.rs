//! `cargo xtask report [--corpus DIR]`: `robolog report` pages of every
//! corpus log (every format; a few of the MCAP conformance files, which are
//! variants of one small file), of the VEL test logs and of two flights in
//! one page, opened from disk in headless Chromium (Debian's `chromium`,
//! installed when missing and this runs as root; `$CHROMIUM` names another)
//! driven by Playwright, and compared with `robolog cat --json` (a page
//! of part of two logs with `--start`/`--end`, against `cat` of the same
//! range), and their sensor views drawn (thumbnails loaded, cloud canvases
//! drawn and their sliders moved, tracks drawn): see
//! pytest's `xtask/pytests/test_report.py` (a test per page). A page of
//! five logs (a ROS 1 bag, an MCAP file, a ULog, a CARLA recording, a ROS
//! 2 bag) whose
//! every string is a script injection (`hostile_logs`) is checked to run
//! none and to show the texts as written. Each page opens in a tab of its
//! own, and the renderer's peak resident set is measured
//! (`xtask/pytests/renderer_memory.py`), held under 1 GB, and printed for
//! the largest pages. The pages and a screenshot of each are left in
//! `target/report-check/` for people to look at. First, the page's script
//! modules are type-checked by TypeScript (`tsc --checkJs --noEmit`,
//! strict; npm's `typescript` pinned, installed once under `target/`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::python::Venv;
use crate::{Result, corpus, root, run, step};

/// Logs of every format whose every string is a script injection: the
/// same as `robolog-report`'s `tests/injection.rs` checks the page text of.
#[path = "../../crates/robolog-report/tests/hostile/mod.rs"]
mod hostile_logs;

/// The Python packages of the check (Playwright drives the system's
/// Chromium; it downloads no browser of its own).
const PACKAGES: [&str; 2] = ["playwright", "pytest"];

/// MCAP conformance files taken (they are variants of one file).
const CONFORMANCE_SAMPLE: usize = 4;

/// The Chromium to drive: `$CHROMIUM`, else Debian's, installed with
/// apt-get when missing and this runs as root.
fn chromium() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("CHROMIUM") {
        return Ok(PathBuf::from(p));
    }
    let debian = PathBuf::from("/usr/bin/chromium");
    if debian.exists() {
        return Ok(debian);
    }
    let root_user = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0");
    if !root_user {
        return Err("no Chromium: install Debian's chromium package, or set $CHROMIUM".into());
    }
    step("install chromium (Debian package)");
    run(Command::new("apt-get").args(["update", "-qq"]))?;
    run(Command::new("apt-get")
        .env("DEBIAN_FRONTEND", "noninteractive")
        .args([
            "install",
            "-y",
            "-qq",
            "--no-install-recommends",
            "chromium",
        ]))?;
    Ok(debian)
}

/// The pages to write: one per log, plus one page of two flights.
fn manifest(dir: Option<&Path>) -> Result<Vec<serde_json::Value>> {
    let mut logs: Vec<PathBuf> = Vec::new();
    if let Some(dir) = dir {
        let mut files = Vec::new();
        corpus::walk(dir, &mut files)?;
        files.sort();
        let mut conformance = 0;
        for f in files {
            if corpus::expected_format(&f).is_none() {
                continue;
            }
            if f.components().any(|c| c.as_os_str() == "mcap-conformance") {
                conformance += 1;
                if conformance > CONFORMANCE_SAMPLE {
                    continue;
                }
            }
            logs.push(f);
        }
        // ROS 2 bags are folders.
        for storage in ["sqlite3", "mcap"] {
            let d = dir.join("rosbag2").join(storage);
            let Ok(entries) = std::fs::read_dir(&d) else {
                continue;
            };
            let mut bags: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            bags.sort();
            // A folder without metadata.yaml holds a lone .db3, which
            // opens by itself.
            for bag in bags.into_iter().filter(|p| p.is_dir()) {
                if bag.join("metadata.yaml").is_file() {
                    logs.push(bag);
                } else if let Some(db) = std::fs::read_dir(&bag)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path())
                    .find(|p| p.extension().is_some_and(|e| e == "db3"))
                {
                    logs.push(db);
                }
            }
        }
    }
    let mut vel: Vec<PathBuf> = std::fs::read_dir(root().join("testdata/vellog"))
        .map_err(|e| format!("testdata/vellog: {e}"))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "vel"))
        .collect();
    vel.sort();
    logs.extend(vel);
    let mut out = Vec::new();
    let mut used = std::collections::HashSet::new();
    for p in &logs {
        // Named after the file and its folder, unique.
        let parent = p
            .parent()
            .and_then(|d| d.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let file = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut name: String = format!("{parent}__{file}")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        while !used.insert(name.clone()) {
            name.push('_');
        }
        out.push(serde_json::json!({
            "name": name,
            "logs": [p.display().to_string()],
            "values": true,
        }));
    }
    let flights: Vec<&PathBuf> = logs
        .iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n == "sample.ulg" || n == "sample_appended.ulg")
        })
        .collect();
    if flights.len() == 2 {
        out.push(serde_json::json!({
            "name": "two-flights",
            "logs": flights.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "values": false,
        }));
    }
    // A folder of flights (corpus ulog/pyulog: six logs, one with a
    // message twenty minutes after the rest): one page, a summary row per
    // log, each timeline on its own span, the plots aligned at each
    // log's first vehicle_attitude message.
    if let Some(folder) = flights.first().and_then(|p| p.parent()) {
        out.push(serde_json::json!({
            "name": "folder",
            "logs": [folder.display().to_string()],
            "args": ["--align", "vehicle_attitude"],
            "values": false,
        }));
    }
    // Part of a flight and of a bag, each range resolved on its own log
    // (the values checked against `robolog cat` of the same range).
    let events = logs
        .iter()
        .find(|p| p.file_name().is_some_and(|n| n == "sample_px4_events.ulg"));
    out.push(serde_json::json!({
        "name": "time-range",
        "logs": events
            .into_iter()
            .cloned()
            .chain([root().join("testdata/rosbag/sample.bag")])
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>(),
        "args": ["--start", "1.5", "--end", "2.5s"],
        "values": true,
    }));
    // A flight with only the `x` fields plotted: the others are extra
    // fields, carried for the field search (opened there, and compared
    // with `robolog cat` as the plotted ones), and a position's `y`
    // against `x` is offered as an XY plot.
    let flight = flights.first().map_or_else(
        || root().join("testdata/ulog/features.ulg"),
        |p| (*p).clone(),
    );
    out.push(serde_json::json!({
        "name": "extra-fields",
        "logs": [flight.display().to_string()],
        "args": ["--field", "x"],
        "cat_args": [],
        "values": true,
    }));
    Ok(out)
}

/// A flight whose topic, field names and logged messages hold `<!--`,
/// `<script`, `</script` and `]]>` (which once blanked the page), and a
/// `double` field of 0..49 with both largest doubles (drawn once as an
/// empty plot).
fn hostile_ulog() -> Result<Vec<u8>> {
    let e = |e: ulogfile::Error| e.to_string();
    // No `-->` after the `<!--`: the parser stays in its escaped states.
    let text = "<!-- a <script> b </script> c ]]>";
    let mut w = ulogfile::write::Writer::new(Vec::new(), 1_000).map_err(e)?;
    w.add_info_str("sys_name", text).map_err(e)?;
    w.add_format("t<!--<script:uint64_t timestamp;double x_<script;float y_]]>;")
        .map_err(e)?;
    let id = w.add_subscription("t<!--<script", 0).map_err(e)?;
    let mut values: Vec<f64> = (0..50).map(f64::from).collect();
    values.splice(20..20, [f64::MAX, -f64::MAX]);
    for (k, v) in values.iter().enumerate() {
        let t = 1_000 + k as u64 * 100_000;
        let mut sample = t.to_le_bytes().to_vec();
        sample.extend_from_slice(&v.to_le_bytes());
        sample.extend_from_slice(&(k as f32).to_le_bytes());
        w.write_data(id, &sample).map_err(e)?;
        if k % 10 == 0 {
            w.write_logging(4, t + 1, text).map_err(e)?;
        }
    }
    w.finish().map_err(e)
}

/// The TypeScript that checks the page's script modules (npm's
/// `typescript`, pinned).
const TYPESCRIPT: &str = "5.9.3";

/// `tsc --checkJs --noEmit` over the page's script modules
/// (`crates/robolog-report/assets/js`, with its `tsconfig.json`: strict),
/// with TypeScript installed by npm into `target/typescript-VERSION` once.
fn check_script_types() -> Result {
    step("report: the page's script modules type-checked by tsc --checkJs");
    let dir = root().join(format!("target/typescript-{TYPESCRIPT}"));
    let tsc = dir.join("node_modules/typescript/bin/tsc");
    if !tsc.exists() {
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        run(Command::new("npm")
            .args([
                "install",
                "--no-save",
                "--no-audit",
                "--no-fund",
                "--prefix",
            ])
            .arg(&dir)
            .arg(format!("typescript@{TYPESCRIPT}")))
        .map_err(|e| format!("installing TypeScript with npm (node and npm needed): {e}"))?;
    }
    let config = root().join("crates/robolog-report/assets/js/tsconfig.json");
    run(Command::new("node")
        .arg(&tsc)
        .arg("--checkJs")
        .arg("--noEmit")
        .arg("-p")
        .arg(&config))
}

/// The command.
pub(crate) fn cmd(args: &[String]) -> Result {
    check_script_types()?;
    let dir = corpus::locate(crate::opt(args, "--corpus"))?;
    let exe = crate::checked_robolog()?;
    let browser = chromium()?;
    let venv = Venv::with(&PACKAGES)?;
    let out_dir = root().join("target/report-check");
    std::fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let mut entries = manifest(dir.as_deref())?;
    let hostile = out_dir.join("hostile-strings.ulg");
    std::fs::write(&hostile, hostile_ulog()?).map_err(|e| format!("{}: {e}", hostile.display()))?;
    entries.push(serde_json::json!({
        "name": "hostile-strings",
        "logs": [hostile.display().to_string()],
        "values": true,
        "extremes": true,
    }));
    // A ROS 1 bag, an MCAP file, a ULog, a CARLA recording and a ROS 2 bag
    // whose every string is a script injection, in one page: nothing runs,
    // and the texts are shown as written.
    let injection = hostile_logs::write_logs(&out_dir.join("injection"))?;
    entries.push(serde_json::json!({
        "name": "injection",
        "logs": injection.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "values": false,
        "injection": hostile_logs::MARK,
    }));
    for e in &mut entries {
        e["id"] = e["name"].clone();
    }
    let manifest = serde_json::json!({
        "out_dir": out_dir.display().to_string(),
        "entries": entries,
    });
    let pages = venv
        .pytest("test_report.py")
        .env("CHROMIUM", &browser)
        .opt("robolog", &exe)
        .manifest(&out_dir.join("manifest.json"), &manifest)?
        .run()?;
    let (mut bytes, mut write_s, mut open_s, mut compared) = (0u64, 0f64, 0f64, 0u64);
    let (mut thumbs, mut clouds, mut tracks) = (0u64, 0u64, 0u64);
    let mut largest = (0u64, String::new(), 0f64);
    for p in &pages {
        let b = p["bytes"].as_u64().unwrap_or(0);
        bytes += b;
        write_s += p["write_s"].as_f64().unwrap_or(0.0);
        open_s += p["open_s"].as_f64().unwrap_or(0.0);
        compared += p["series_compared"].as_u64().unwrap_or(0);
        thumbs += p["thumbnails"].as_u64().unwrap_or(0);
        clouds += p["clouds"].as_u64().unwrap_or(0);
        tracks += p["tracks"].as_u64().unwrap_or(0);
        if b > largest.0 {
            largest = (
                b,
                p["name"].as_str().unwrap_or_default().to_string(),
                p["write_s"].as_f64().unwrap_or(0.0),
            );
        }
    }
    eprintln!(
        "xtask: report: {} pages ({:.1} MB; the largest {} at {:.1} MB, written in {:.2} s), written in {write_s:.1} s and opened in Chromium in {open_s:.1} s in all; {compared} series equal robolog cat's values; {thumbs} thumbnails loaded, {clouds} cloud views drawn and moved, {tracks} tracks drawn; screenshots in {}",
        pages.len(),
        bytes as f64 / 1e6,
        largest.1,
        largest.0 as f64 / 1e6,
        largest.2,
        out_dir.display()
    );
    // The renderer's memory for the largest pages, and the page that
    // needed the most.
    let mut by_size: Vec<&serde_json::Value> = pages.iter().collect();
    by_size.sort_by_key(|p| std::cmp::Reverse(p["bytes"].as_u64().unwrap_or(0)));
    let most = pages.iter().max_by(|a, b| {
        let m = |p: &serde_json::Value| p["renderer_peak_mb"].as_f64().unwrap_or(0.0);
        m(a).total_cmp(&m(b))
    });
    let mut shown: Vec<&serde_json::Value> = by_size.into_iter().take(5).collect();
    if let Some(m) = most.filter(|m| !shown.iter().any(|s| s["name"] == m["name"])) {
        shown.push(m);
    }
    for p in shown {
        eprintln!(
            "xtask: report: {}: page {:.2} MB, renderer peak RSS {:.0} MB, JS heap {:.1} MB, opened in {:.2} s",
            p["name"].as_str().unwrap_or_default(),
            p["bytes"].as_u64().unwrap_or(0) as f64 / 1e6,
            p["renderer_peak_mb"].as_f64().unwrap_or(0.0),
            p["js_heap_mb"].as_f64().unwrap_or(0.0),
            p["open_s"].as_f64().unwrap_or(0.0),
        );
    }
    if let Some(p) = pages.iter().find(|p| p["name"] == "injection") {
        eprintln!(
            "xtask: report: injection: {} hostile texts of {} logs shown literally, none ran",
            p["literal_texts"].as_u64().unwrap_or(0),
            p["logs"].as_u64().unwrap_or(0)
        );
    }
    Ok(())
}

/// Runs `exe args` and returns (wall seconds, peak RSS in KiB where GNU
/// time is there to measure it).
fn timed(exe: &Path, args: &[&std::ffi::OsStr]) -> Result<(f64, Option<u64>)> {
    let gnu_time = Path::new("/usr/bin/time");
    let start = std::time::Instant::now();
    let out = if gnu_time.exists() {
        Command::new(gnu_time)
            .args(["-f", "%M"])
            .arg(exe)
            .args(args)
            .output()
    } else {
        Command::new(exe).args(args).output()
    }
    .map_err(|e| format!("{}: {e}", exe.display()))?;
    let secs = start.elapsed().as_secs_f64();
    if !out.status.success() {
        return Err(format!(
            "{} failed: {}",
            exe.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let rss = String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok());
    Ok((secs, rss))
}

/// Messages of the benchmark's IMU bag: 3 million `sensor_msgs/Imu`
/// (about 1.1 GB).
const IMU_BAG_MESSAGES: u32 = 3_000_000;

/// `cargo xtask bench report`: the release `robolog report` of the largest
/// corpus log, of a generated 1 GB MCAP file (the corpus bags' messages
/// repeated, converted by `robolog convert` into uncompressed chunks) and
/// of a bag of 3 million IMU messages, with and without `robolog check`'s
/// second read: wall time (best of three), MB/s, page size and peak
/// memory; and `robolog check` alone, one pass over the log. The pages
/// stay in `target/bench-report/` (`imu-3m.html`, ...), for
/// `python xtask/pytests/renderer_memory.py PAGE...` to open in Chromium.
pub(crate) fn bench(args: &[String]) -> Result {
    step(
        "bench report: robolog report of the largest corpus log, a 1 GB MCAP file and a 1 GB bag of IMU messages",
    );
    let dir = corpus::locate(crate::opt(args, "--corpus"))?;
    let exe = crate::hostile::release_robolog()?;
    let work = root().join("target/bench-report");
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let mut inputs: Vec<PathBuf> = Vec::new();
    if let Some(d) = dir.as_deref() {
        let mut files = Vec::new();
        corpus::walk(d, &mut files)?;
        if let Some(largest) = files
            .into_iter()
            .filter(|f| corpus::expected_format(f).is_some())
            .max_by_key(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        {
            inputs.push(largest);
        }
    }
    let big = work.join("big.mcap");
    if !big.exists() {
        let bag = work.join("big.bag");
        crate::convert::make_big_bag(dir.as_deref(), &bag, 1_000_000_000)?;
        // Uncompressed chunks: a 1 GB file, every byte of it read.
        run(Command::new(&exe).arg("convert").arg(&bag).arg(&big).args([
            "--compression",
            "none",
            "--force",
        ]))?;
        let _ = std::fs::remove_file(&bag);
    }
    inputs.push(big);
    // The case users wait on: one long recording of one IMU topic.
    inputs.push(crate::pybench::imu_bag_of(
        IMU_BAG_MESSAGES,
        &work.join("imu-3m.bag"),
    )?);
    eprintln!(
        "| log | size | report | MB/s | page | peak RSS | without check | MB/s | robolog check | report / check |"
    );
    eprintln!("|---|---|---|---|---|---|---|---|---|---|");
    for input in &inputs {
        let size = std::fs::metadata(input).map_or(0, |m| m.len());
        // One page per log, kept for the browser check of its memory.
        let page = work.join(format!(
            "{}.html",
            input
                .file_stem()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        ));
        let mut best = [(f64::MAX, None), (f64::MAX, None)];
        for (k, extra) in [[].as_slice(), ["--no-check"].as_slice()]
            .iter()
            .enumerate()
        {
            for _ in 0..3 {
                let mut a: Vec<&std::ffi::OsStr> = vec![
                    "report".as_ref(),
                    input.as_os_str(),
                    "-o".as_ref(),
                    page.as_os_str(),
                    "--force".as_ref(),
                ];
                a.extend(extra.iter().map(|s| std::ffi::OsStr::new(*s)));
                let (secs, rss) = timed(&exe, &a)?;
                if secs < best[k].0 {
                    best[k] = (secs, rss);
                }
            }
        }
        // One pass over the log, for comparison: what a report costs above it.
        let mut check = f64::MAX;
        for _ in 0..3 {
            check = check.min(timed(&exe, &["check".as_ref(), input.as_os_str()])?.0);
        }
        let page_size = std::fs::metadata(&page).map_or(0, |m| m.len());
        let mb = size as f64 / 1e6;
        eprintln!(
            "| {} | {mb:.1} MB | {:.2} s | {:.0} | {:.2} MB | {} | {:.2} s | {:.0} | {check:.2} s | {:.1} |",
            input
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            best[0].0,
            mb / best[0].0,
            page_size as f64 / 1e6,
            best[0].1.map_or("-".to_string(), |k: u64| format!(
                "{:.0} MB",
                k as f64 / 1024.0
            )),
            best[1].0,
            mb / best[1].0,
            best[0].0 / check,
        );
    }
    Ok(())
}
