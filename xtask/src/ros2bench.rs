//! `cargo xtask bench ros2`: ROS 1 bag to ROS 2 against `rosbags-convert`
//! (rosbags 0.11.9) on the 300,000-message Imu bag of `cargo xtask bench
//! python` ([`crate::pybench::imu_bag`]): `robolog convert bench.bag
//! out.mcap --ros2` against `rosbags-convert --dst-storage mcap`, and
//! `robolog convert bench.bag outdir --storage sqlite3` against
//! rosbags-convert's default `.db3` bag. Each command runs alone, timed
//! with `wait4`: wall clock and CPU seconds (best of 3) and its peak RSS,
//! which for ours is printed against the bag's and a chunk's size, beside
//! the peak of converting the small fixture bag (the constant). Every
//! output must hold all the bag's messages. Nothing is asserted on the
//! times.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use logcore::LogReader;

use crate::pybench::{IMU_MESSAGES, imu_bag, release_robolog};
use crate::{Result, root, step};

/// One command's best wall and CPU seconds, largest peak RSS and largest
/// anonymous RSS seen over three runs.
struct Timed {
    wall: f64,
    cpu: f64,
    peak: u64,
    anon: u64,
}

/// The largest `RssAnon` of process `pid` seen by reading its
/// `/proc/PID/status` every 2 ms until it ends: its memory leaving out the
/// pages of files it maps (the input log), which `ru_maxrss` counts. A
/// sample, so it may miss a short peak.
fn sample_anon(pid: i32) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let path = format!("/proc/{pid}/status");
        let mut max = 0u64;
        while let Ok(text) = std::fs::read_to_string(&path) {
            let Some(kib) = text
                .lines()
                .find_map(|l| l.strip_prefix("RssAnon:"))
                .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            else {
                // A zombie has no memory left to report.
                break;
            };
            max = max.max(kib * 1024);
            std::thread::sleep(Duration::from_millis(2));
        }
        max
    })
}

/// Runs `cmd` three times (calling `clean` before each run), each alone
/// and waited for with `wait4`.
fn timed(mut cmd: impl FnMut() -> Command, clean: &dyn Fn()) -> Result<Timed> {
    let mut best = Timed {
        wall: f64::INFINITY,
        cpu: f64::INFINITY,
        peak: 0,
        anon: 0,
    };
    for _ in 0..3 {
        clean();
        let mut c = cmd();
        let started = Instant::now();
        let child = c
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("could not start {c:?}: {e}"))?;
        let pid = child.id() as i32;
        let sampler = sample_anon(pid);
        let mut stderr = child.stderr;
        let reader = std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(e) = stderr.as_mut() {
                let _ = std::io::Read::read_to_string(e, &mut s);
            }
            s
        });
        let (status, usage, _) = crate::hostile::wait_with_timeout(pid, Duration::from_secs(3600))?;
        let wall = started.elapsed().as_secs_f64();
        let text = reader.join().unwrap_or_default();
        best.anon = best.anon.max(sampler.join().unwrap_or(0));
        if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
            return Err(format!("{c:?} failed ({status}): {}", text.trim()));
        }
        let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        best.wall = best.wall.min(wall);
        best.cpu = best.cpu.min(secs(usage.ru_utime) + secs(usage.ru_stime));
        // ru_maxrss is in KiB on Linux.
        best.peak = best.peak.max(usage.ru_maxrss.max(0) as u64 * 1024);
    }
    Ok(best)
}

/// Removes a file or folder if it is there.
fn remove(p: &Path) {
    if p.is_dir() {
        let _ = std::fs::remove_dir_all(p);
    } else {
        let _ = std::fs::remove_file(p);
    }
}

/// The messages of the log at `path` (a file or a ROS 2 bag folder).
fn messages(path: &Path) -> Result<u64> {
    let log = robolog::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let s = log
        .summary()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(s.message_count)
}

/// The storage file rosbags-convert wrote into `dir` (`*.mcap`, `*.db3`).
fn storage_file(dir: &Path, ext: &str) -> Result<PathBuf> {
    std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == ext))
        .ok_or_else(|| format!("{} has no .{ext} file", dir.display()))
}

/// `cargo xtask bench ros2`.
pub(crate) fn bench() -> Result {
    step("bench ros2 (ROS 1 bag -> ROS 2 MCAP and .db3, against rosbags-convert 0.11.9)");
    crate::python::Venv::with(&["rosbags"])?;
    let exe = release_robolog()?;
    let peer = root().join("target/interop-venv/bin/rosbags-convert");
    let bag = imu_bag()?;
    let dir = root().join("target/bench-ros2");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let bag_mb = std::fs::metadata(&bag).map_err(|e| e.to_string())?.len() as f64 / 1e6;

    let ours_mcap = dir.join("ours.mcap");
    let ours_plain = dir.join("ours-none.mcap");
    let peer_mcap = dir.join("rosbags-mcap");
    let ours_db3 = dir.join("ours-db3");
    let peer_db3 = dir.join("rosbags-db3");
    let robolog = |args: Vec<&Path>, more: &'static [&'static str]| {
        let exe = exe.clone();
        let args: Vec<PathBuf> = args.into_iter().map(Path::to_path_buf).collect();
        move || {
            let mut c = Command::new(&exe);
            c.arg("convert").args(&args).args(more);
            c
        }
    };
    let rosbags = |out: &Path, more: &'static [&'static str]| {
        let (peer, bag, out) = (peer.clone(), bag.clone(), out.to_path_buf());
        move || {
            let mut c = Command::new(&peer);
            c.arg("--src").arg(&bag).arg("--dst").arg(&out).args(more);
            c
        }
    };

    let mcap = timed(robolog(vec![&bag, &ours_mcap], &["--ros2"]), &|| {
        remove(&ours_mcap)
    })?;
    let plain = timed(
        robolog(
            vec![&bag, &ours_plain],
            &["--ros2", "--compression", "none"],
        ),
        &|| remove(&ours_plain),
    )?;
    let peer_m = timed(rosbags(&peer_mcap, &["--dst-storage", "mcap"]), &|| {
        remove(&peer_mcap)
    })?;
    let db3 = timed(
        robolog(vec![&bag, &ours_db3], &["--storage", "sqlite3"]),
        &|| remove(&ours_db3),
    )?;
    let peer_d = timed(rosbags(&peer_db3, &[]), &|| remove(&peer_db3))?;
    // The constant: the same command on the 75-message fixture bag.
    let small_out = dir.join("small.mcap");
    let small = timed(
        robolog(
            vec![&root().join("testdata/rosbag/sample.bag"), &small_out],
            &["--ros2"],
        ),
        &|| remove(&small_out),
    )?;

    let want = u64::from(IMU_MESSAGES);
    let mut counts = Vec::new();
    for p in [
        ours_mcap.clone(),
        ours_plain.clone(),
        storage_file(&peer_mcap, "mcap")?,
        ours_db3.clone(),
        peer_db3.clone(),
    ] {
        let n = messages(&p)?;
        if n != want {
            return Err(format!("{} has {n} messages, the bag {want}", p.display()));
        }
        counts.push(n);
    }

    let mb = |b: u64| b as f64 / 1e6;
    let line = |name: &str, t: &Timed| {
        format!(
            "  {name:<44} {:>7.2} s {:>6.0} MB/s   CPU {:>7.2} s   peak RSS {:>6.1} MB (anonymous {:>6.1} MB)\n",
            t.wall,
            bag_mb / t.wall,
            t.cpu,
            mb(t.peak),
            mb(t.anon)
        )
    };
    let ratio = |ours: &Timed, peer: &Timed| {
        let r = peer.wall / ours.wall;
        format!(
            "{r:.1}x in wall time, {:.1}x in CPU time (target >= 10x: {})",
            peer.cpu / ours.cpu,
            if r >= 10.0 { "met" } else { "NOT met" }
        )
    };
    let mut text = format!(
        "\nxtask: bench ros2: {} ({bag_mb:.1} MB, {want} sensor_msgs/Imu messages, uncompressed chunks of 768 KiB) to ROS 2, best of 3 whole commands; every output holds the {want} messages:\n",
        bag.display()
    );
    text.push_str(&line("robolog convert --ros2 (zstd chunks)", &mcap));
    text.push_str(&line("robolog convert --ros2 --compression none", &plain));
    text.push_str(&line("rosbags-convert --dst-storage mcap", &peer_m));
    text.push_str(&format!(
        "    MCAP: robolog (uncompressed, like rosbags) {}; with zstd {}\n",
        ratio(&plain, &peer_m),
        ratio(&mcap, &peer_m)
    ));
    text.push_str(&line("robolog convert --storage sqlite3", &db3));
    text.push_str(&line("rosbags-convert (sqlite3, .db3)", &peer_d));
    text.push_str(&format!("    sqlite3: robolog {}\n", ratio(&db3, &peer_d)));
    text.push_str(&line("robolog convert --ros2, 75-message fixture", &small));
    let extra = |t: &Timed| mb(t.peak.saturating_sub(small.peak));
    let extra_anon = |t: &Timed| mb(t.anon.saturating_sub(small.anon));
    text.push_str(&format!(
        "    robolog's peak RSS above the fixture's: {:.1} MB (zstd MCAP), {:.1} MB (uncompressed MCAP), {:.1} MB (sqlite3), for a {bag_mb:.1} MB bag of 0.8 MB chunks, the pages of the mapped bag included; anonymous memory above the fixture's: {:.1} MB, {:.1} MB, {:.1} MB\n",
        extra(&mcap),
        extra(&plain),
        extra(&db3),
        extra_anon(&mcap),
        extra_anon(&plain),
        extra_anon(&db3)
    ));
    eprint!("{text}");
    Ok(())
}
