//! `cargo xtask bench python`: the Python package against the readers
//! Python users compare it with, each building the same pandas DataFrames
//! (`pybench.py`, run with the interop venv's python):
//!
//! - ULog: every topic of the largest real flight log of the corpus
//!   (`pyulog/sample_appended.ulg`, PX4 v1.6.0 on a Pixracer, 4.5 MB)
//!   with `Log.to_pandas(name)` and `Log.to_pandas(name, flatten=True)`,
//!   against `pyulog.ULog` plus `pandas.DataFrame(d.data)` per dataset;
//! - ROS 1: the `/imu` topic of [`imu_bag`] (300,000 `sensor_msgs/Imu`)
//!   into a DataFrame, against rosbags' `AnyReader` and `deserialize`
//!   into lists and the frame built from them: flat columns
//!   (`Log.to_pandas(topic, flatten=True)`, a covariance as nine columns),
//!   and with each covariance a column of arrays (pyarrow's own
//!   conversion);
//! - ROS 2 MCAP: the same topic of that bag converted with `robolog
//!   convert --ros2`, against python `mcap` and `mcap-ros2-support`;
//! - aligned topics: `Log.align` of `/imu` and `/imu_slow` of
//!   [`imu_pair_bag`] (140 MB) on `/imu`'s times, then pandas, previous
//!   and nearest within 5 ms, against rosbags reading both topics into
//!   frames plus `pandas.merge_asof` (target 5x);
//! - memory: the peak RSS increase of `Log.table("/imu")` in a fresh
//!   process against the Arrow table's size.
//!
//! The wheel is built in release (`maturin build --release` into
//! `target/wheels-release`, leaving the gate's dev wheel alone) and
//! installed into the interop venv beside the pinned peers. Before timing,
//! the script requires robolog's values to equal each peer's. Times are
//! the best of three (the ULog cases, which take milliseconds and are as
//! noisy, best of 15); nothing is asserted on them.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value as Json;

use crate::python::{Venv, stdout_of};
use crate::{Result, cargo, corpus, opt, root, run, step};

/// The topic of the Imu benchmark bag.
pub(crate) const IMU_TOPIC: &str = "/imu";

/// The second topic of the align benchmark bag: the same Imu messages at
/// a quarter of the rate, each recorded 1.1 ms later.
pub(crate) const SLOW_TOPIC: &str = "/imu_slow";

/// Messages in the Imu benchmark bag.
pub(crate) const IMU_MESSAGES: u32 = 300_000;

/// The small ULog of the benchmark, under the corpus's `ulog` folder: a
/// real flight log of 1.9 MB with 96 datasets, where the cost is per
/// topic and per call rather than per byte.
const SMALL_ULOG_FILE: &str = "pyulog/sample_logging_tagged_and_default_params.ulg";

/// The ULog file of the benchmark, under the corpus's `ulog` folder.
const ULOG_FILE: &str = "pyulog/sample_appended.ulg";

/// The Cargo target folder: `CARGO_TARGET_DIR` when set (relative to the
/// workspace root), else the workspace's `target`.
pub(crate) fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) => root().join(d),
        None => root().join("target"),
    }
}

/// The release `robolog` binary without the default features (no
/// DataFusion), as the conversion benchmarks build it; ROS 2 output is in
/// the library's default features.
pub(crate) fn release_robolog() -> Result<PathBuf> {
    run(cargo().args([
        "build",
        "--quiet",
        "--release",
        "-p",
        "robolog-cli",
        "--no-default-features",
    ]))?;
    Ok(target_dir().join("release/robolog"))
}

/// The compiled and the fast pure-Python ROS 2 MCAP readers the `/imu`
/// case is also timed against (small-mcap reads zstd chunks through
/// zstandard).
const PEERS: [&str; 4] = [
    "roboto-mcap-codec",
    "mcap-ros2-support-fast",
    "small-mcap",
    "zstandard",
];

/// `cargo xtask bench python [--corpus DIR]`; with `PYBENCH_BUSY=1`,
/// another process spins on a core while the Python side runs.
pub(crate) fn bench(args: &[String]) -> Result {
    step("bench python (robolog's wheel against pyulog, rosbags and python mcap)");
    let corpus = corpus::locate(opt(args, "--corpus"))?
        .ok_or("the Python benchmark needs the corpus (its ULog flight)")?;
    let ulg = corpus.join("ulog").join(ULOG_FILE);
    let mut packages = crate::py::PACKAGES.to_vec();
    packages.push(crate::py::MATURIN);
    packages.extend(PEERS);
    let venv = Venv::with(&packages)?;
    install_release_wheel(&venv)?;
    let exe = release_robolog()?;
    let dir = root().join("target/bench-python");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let bag = imu_bag()?;
    let mcap = dir.join("imu2.mcap");
    if !mcap.exists() {
        run(Command::new(&exe)
            .arg("convert")
            .arg(&bag)
            .arg(&mcap)
            .arg("--ros2"))?;
    }
    let python = |what: &str, args: &[&dyn AsRef<std::ffi::OsStr>]| -> Result<Json> {
        let mut c = venv.script("pybench.py");
        c.arg(what);
        for a in args {
            c.arg(a);
        }
        let out = stdout_of(c, &format!("pybench.py {what}"))?;
        serde_json::from_str(out.trim()).map_err(|e| format!("pybench.py {what}: {e}: {out}"))
    };
    eprintln!("xtask: bench python: {}", ulg.display());
    let u = python("ulog", &[&ulg])?;
    let small_ulg = corpus.join("ulog").join(SMALL_ULOG_FILE);
    eprintln!("xtask: bench python: {}", small_ulg.display());
    let small = python("ulog", &[&small_ulg])?;
    eprintln!(
        "xtask: bench python: {} and {}",
        bag.display(),
        mcap.display()
    );
    let i = python("imu", &[&bag, &mcap, &IMU_TOPIC])?;
    let pair = imu_pair_bag()?;
    eprintln!("xtask: bench python: {}", pair.display());
    let a = python("align", &[&pair, &IMU_TOPIC, &SLOW_TOPIC])?;
    let m = python("memory", &[&bag, &IMU_TOPIC])?;

    let f = |j: &Json, k: &str| j[k].as_f64().unwrap_or(f64::NAN);
    let size = |p: &Path| std::fs::metadata(p).map_or(f64::NAN, |m| m.len() as f64 / 1e6);
    let (ulg_mb, bag_mb, mcap_mb) = (size(&ulg), size(&bag), size(&mcap));
    let pair_mb = size(&pair);
    let small_mb = size(&small_ulg);
    let rows = [
        Row::new(
            "ULog, every topic: dataframes(flat)",
            ulg_mb,
            f(&u, "robolog_frames"),
            "pyulog + DataFrame",
            f(&u, "pyulog"),
            Some(20.0),
        ),
        Row::new(
            "ULog, to_pandas(t, flatten=True)",
            ulg_mb,
            f(&u, "robolog_flat"),
            "pyulog + DataFrame",
            f(&u, "pyulog"),
            None,
        ),
        Row::new(
            "ULog, to_pandas(t) (nested)",
            ulg_mb,
            f(&u, "robolog"),
            "pyulog + DataFrame",
            f(&u, "pyulog"),
            None,
        ),
        Row::new(
            "small ULog: dataframes(flat)",
            small_mb,
            f(&small, "robolog_frames"),
            "pyulog + DataFrame",
            f(&small, "pyulog"),
            Some(20.0),
        ),
        Row::new(
            "small ULog: to_pandas(t, flat)",
            small_mb,
            f(&small, "robolog_flat"),
            "pyulog + DataFrame",
            f(&small, "pyulog"),
            Some(10.0),
        ),
        Row::new(
            "ROS 1 bag, /imu flatten=True",
            bag_mb,
            f(&i["bag"], "robolog"),
            "rosbags AnyReader",
            f(&i["bag"], "peer"),
            Some(30.0),
        ),
        Row::new(
            "ROS 1 bag, /imu arrays per row",
            bag_mb,
            f(&i["bag"], "robolog_nested"),
            "rosbags AnyReader",
            f(&i["bag"], "peer_nested"),
            None,
        ),
        Row::new(
            "ROS 2 MCAP, /imu flatten=True",
            mcap_mb,
            f(&i["mcap"], "robolog"),
            "mcap + mcap-ros2",
            f(&i["mcap"], "peer"),
            Some(20.0),
        ),
        Row::new(
            "ROS 2 MCAP, /imu flatten=True",
            mcap_mb,
            f(&i["mcap"], "robolog"),
            "roboto-mcap-codec",
            f(&i["mcap"], "roboto"),
            Some(5.0),
        ),
        Row::new(
            "ROS 2 MCAP, /imu flatten=True",
            mcap_mb,
            f(&i["mcap"], "robolog"),
            "mcap-ros2-fast",
            f(&i["mcap"], "fast"),
            Some(20.0),
        ),
        Row::new(
            "ROS 2 MCAP, /imu arrays per row",
            mcap_mb,
            f(&i["mcap"], "robolog_nested"),
            "mcap + mcap-ros2",
            f(&i["mcap"], "peer_nested"),
            Some(20.0),
        ),
        Row::new(
            "ROS 1 bag, align /imu + /imu_slow",
            pair_mb,
            f(&a, "robolog"),
            "rosbags + merge_asof",
            f(&a, "peer"),
            Some(5.0),
        ),
        Row::new(
            "ROS 1 bag, align nearest, 5 ms",
            pair_mb,
            f(&a, "robolog_nearest"),
            "rosbags + merge_asof",
            f(&a, "peer_nearest"),
            Some(5.0),
        ),
    ];
    let mut text = String::new();
    text.push_str(&format!(
        "\nxtask: bench python (best of 3, ULog best of 15; seconds; MB/s of the input file):\n  {:<34} {:>8} {:>8}  {:<20} {:>8} {:>7} {:>7}  met\n",
        "case", "robolog", "MB/s", "peer", "peer", "ratio", "target"
    ));
    for r in &rows {
        text.push_str(&r.line());
    }
    text.push_str(&format!(
        "  ULog: {} ({:.1} MB): {} robolog tables, {} pyulog datasets, {} rows, {} columns equal to pyulog's\n",
        ULOG_FILE,
        ulg_mb,
        u["tables"],
        u["datasets"],
        u["rows"],
        u["columns_checked"]
    ));
    for (name, j) in [(ULOG_FILE, &u), (SMALL_ULOG_FILE, &small)] {
        let c = &j["costs"];
        let (open, tables, frames) = (f(c, "open"), f(c, "tables"), f(c, "frames"));
        text.push_str(&format!(
            "  {name}: {} datasets, {} topics; to_pandas(t, flatten=True) of every topic {:.1} ms: open {:.1} ms, flat Arrow tables {:.1} ms (the open included), pandas {:.1} ms ({:.0} us per topic)\n",
            j["datasets"],
            c["topics"],
            frames * 1e3,
            open * 1e3,
            tables * 1e3,
            (frames - tables) * 1e3,
            (frames - tables) * 1e6 / c["topics"].as_f64().unwrap_or(1.0),
        ));
        let (floor, count) = (f(c, "pandas_floor"), f(c, "frame_count"));
        text.push_str(&format!(
            "  {name}: dataframes(flatten=True) {:.2} ms; pandas' create_dataframe_from_blocks alone, given the {count:.0} frames' finished blocks, labels and indexes, {:.2} ms ({:.1} us a frame), and pyulog's time / 20 is {:.2} ms\n",
            f(j, "robolog_frames") * 1e3,
            floor * 1e3,
            floor * 1e6 / count.max(1.0),
            f(j, "pyulog") / 20.0 * 1e3,
        ));
    }
    text.push_str(&format!(
        "  Imu: {} rows, values equal to the peers' (bag {bag_mb:.1} MB, MCAP {mcap_mb:.1} MB; {} scalar columns equal to roboto-mcap-codec's){}\n",
        i["bag"]["rows"],
        i["mcap"]["roboto_columns"],
        if std::env::var("PYBENCH_BUSY").is_ok_and(|v| v == "1") {
            "; another process spinning on a core"
        } else {
            ""
        }
    ));
    text.push_str(&format!(
        "  align: {} rows of /imu with /imu_slow's columns ({pair_mb:.1} MB bag), equal to merge_asof's over rosbags' frames (previous; nearest within 5 ms); the peer's time is reading both topics into frames plus merge_asof\n",
        a["rows"]
    ));
    let (peak, table) = (f(&m, "peak_increase"), f(&m, "table_bytes"));
    let file = f(&m, "file_increase");
    let ratio = peak / table;
    let anon = (peak - file) / table;
    text.push_str(&format!(
        "  memory: Log.table(\"/imu\") raised the peak RSS by {:.1} MB for a {:.1} MB Arrow table: {ratio:.2}x (target < 1.5x: {}); {:.1} MB of it are pages of the mapped {:.1} MB bag (page cache), the rest {anon:.2}x the table ({})\n",
        peak / 1e6,
        table / 1e6,
        if ratio < 1.5 { "met" } else { "NOT met" },
        file / 1e6,
        f(&m, "log_bytes") / 1e6,
        if anon < 1.5 { "below 1.5x" } else { "not below 1.5x" },
    ));
    eprint!("{text}");
    std::io::stderr().flush().map_err(|e| e.to_string())?;
    Ok(())
}

/// One line of the table.
struct Row {
    case: &'static str,
    mb: f64,
    ours: f64,
    peer_name: &'static str,
    peer: f64,
    /// The target ratio, for the cases it names.
    target: Option<f64>,
}

impl Row {
    fn new(
        case: &'static str,
        mb: f64,
        ours: f64,
        peer_name: &'static str,
        peer: f64,
        target: Option<f64>,
    ) -> Row {
        Row {
            case,
            mb,
            ours,
            peer_name,
            peer,
            target,
        }
    }

    fn line(&self) -> String {
        let ratio = self.peer / self.ours;
        let (target, met) = match self.target {
            Some(t) => (format!("{t:.0}x"), if ratio >= t { "yes" } else { "NO" }),
            None => ("-".to_string(), ""),
        };
        format!(
            "  {:<34} {:>8.4} {:>8.0}  {:<20} {:>8.3} {:>6.1}x {:>7}  {}\n",
            self.case,
            self.ours,
            self.mb / self.ours,
            self.peer_name,
            self.peer,
            ratio,
            target,
            met
        )
    }
}

/// Builds the wheel in release ([`release_wheel`]) and installs it into
/// `venv` (which has maturin) over any robolog there.
pub(crate) fn install_release_wheel(venv: &Venv) -> Result {
    let wheel = release_wheel(venv)?;
    run(venv
        .command()
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--force-reinstall",
            "--no-deps",
        ])
        .arg(&wheel))
}

/// Builds the wheel in release with `venv`'s maturin into
/// `target/wheels-release` (the gate's dev wheel in `target/wheels` is
/// left alone); its path.
fn release_wheel(venv: &Venv) -> Result<PathBuf> {
    let out = root().join("target/wheels-release");
    if out.exists() {
        std::fs::remove_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    run(venv
        .command()
        .args(["-m", "maturin", "build", "--release", "--manifest-path"])
        .arg(root().join("crates/robolog-py/Cargo.toml"))
        .arg("--out")
        .arg(&out)
        .arg("--interpreter")
        .arg(venv.python()))?;
    let wheels: Vec<PathBuf> = std::fs::read_dir(&out)
        .map_err(|e| format!("{}: {e}", out.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "whl"))
        .collect();
    match wheels.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(format!(
            "maturin left {} wheels in {}",
            wheels.len(),
            out.display()
        )),
    }
}

/// The full ROS 1 definition of `sensor_msgs/Imu`, as `rosbag record`
/// stores it (comments left out: they do not change the md5sum).
const IMU_DEFINITION: &str = "std_msgs/Header header\n\
geometry_msgs/Quaternion orientation\n\
float64[9] orientation_covariance\n\
geometry_msgs/Vector3 angular_velocity\n\
float64[9] angular_velocity_covariance\n\
geometry_msgs/Vector3 linear_acceleration\n\
float64[9] linear_acceleration_covariance\n\
================================================================================\n\
MSG: std_msgs/Header\n\
uint32 seq\n\
time stamp\n\
string frame_id\n\
================================================================================\n\
MSG: geometry_msgs/Quaternion\n\
float64 x\n\
float64 y\n\
float64 z\n\
float64 w\n\
================================================================================\n\
MSG: geometry_msgs/Vector3\n\
float64 x\n\
float64 y\n\
float64 z\n";

/// ROS's md5sum of `sensor_msgs/Imu`.
const IMU_MD5: &str = "6a62c6daae103f4ff57a132d6f95cec2";

/// The first stamp of the bag (s since the Unix epoch).
const IMU_START_SEC: u32 = 1_700_000_000;

/// 400 Hz.
const IMU_PERIOD_NS: u64 = 2_500_000;

/// A small deterministic noise source (xorshift64), in [-1, 1).
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// The stamp of message `i` (s, ns).
fn imu_stamp(i: u32) -> (u32, u32) {
    let ns = u64::from(i) * IMU_PERIOD_NS;
    (
        IMU_START_SEC + (ns / 1_000_000_000) as u32,
        (ns % 1_000_000_000) as u32,
    )
}

/// The serialized `sensor_msgs/Imu` message `i`: an IMU on a vehicle
/// turning slowly (yaw rate 0.1 rad/s) with a little pitch wobble, gravity
/// on z, sensor noise, and the diagonal covariances drivers publish.
fn imu_message(i: u32, noise: &mut Noise, out: &mut Vec<u8>) {
    out.clear();
    let t = f64::from(i) * IMU_PERIOD_NS as f64 * 1e-9;
    let (sec, nsec) = imu_stamp(i);
    out.extend_from_slice(&i.to_le_bytes());
    out.extend_from_slice(&sec.to_le_bytes());
    out.extend_from_slice(&nsec.to_le_bytes());
    let frame = b"imu_link";
    out.extend_from_slice(&(frame.len() as u32).to_le_bytes());
    out.extend_from_slice(frame);
    let yaw = 0.1 * t;
    let pitch = 0.02 * (0.5 * t).sin();
    let (cy, sy) = ((yaw / 2.0).cos(), (yaw / 2.0).sin());
    let (cp, sp) = ((pitch / 2.0).cos(), (pitch / 2.0).sin());
    let mut put = |v: f64| out.extend_from_slice(&v.to_le_bytes());
    // Orientation (x, y, z, w) of yaw then pitch, roll zero.
    put(-sp * sy);
    put(sp * cy);
    put(cp * sy);
    put(cp * cy);
    let diag = |put: &mut dyn FnMut(f64), d: f64| {
        for k in 0..9 {
            put(if k % 4 == 0 { d } else { 0.0 });
        }
    };
    diag(&mut put, 1e-3);
    put(0.002 * noise.next());
    put(0.01 * (0.5 * t).cos() + 0.002 * noise.next());
    put(0.1 + 0.002 * noise.next());
    diag(&mut put, 1e-5);
    put(0.05 * noise.next());
    put(0.05 * noise.next());
    put(9.80665 + 0.05 * noise.next());
    diag(&mut put, 4e-4);
}

/// The Imu benchmark bag, `target/bench-python/imu.bag`: [`IMU_MESSAGES`]
/// `sensor_msgs/Imu` messages (see [`imu_bag_of`]).
pub(crate) fn imu_bag() -> Result<PathBuf> {
    imu_bag_of(IMU_MESSAGES, &root().join("target/bench-python/imu.bag"))
}

/// The bag of the align benchmark: [`imu_bag`]'s messages on
/// [`IMU_TOPIC`] and every fourth of them on [`SLOW_TOPIC`] (recorded
/// 1.1 ms later), 140 MB. Made once, reused when present.
pub(crate) fn imu_pair_bag() -> Result<PathBuf> {
    write_imu_bag(
        IMU_MESSAGES,
        &root().join("target/bench-python/imu-pair.bag"),
        Some(4),
    )
}

/// A bag at `path` of `messages` `sensor_msgs/Imu` messages on
/// [`IMU_TOPIC`] at 400 Hz (each recorded 0.3 ms after its stamp), written
/// by rosbag12's writer as `rosbag record` writes: uncompressed chunks of
/// ROS's default threshold (768 KiB). Made once, reused when present.
pub(crate) fn imu_bag_of(messages: u32, path: &Path) -> Result<PathBuf> {
    write_imu_bag(messages, path, None)
}

/// [`imu_bag_of`], with every `slow`th message also on [`SLOW_TOPIC`].
fn write_imu_bag(messages: u32, path: &Path, slow: Option<u32>) -> Result<PathBuf> {
    let path = path.to_path_buf();
    if path.exists() {
        return Ok(path);
    }
    let dir = path.parent().ok_or("a bag path has a folder")?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let tmp = path.with_extension("bag.tmp");
    let file = std::fs::File::create(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let mut w = rosbag12::Writer::new(
        std::io::BufWriter::new(file),
        rosbag12::WriterOptions::default(),
    )
    .map_err(|e| e.to_string())?;
    let mut conn =
        rosbag12::Connection::new(0, IMU_TOPIC, "sensor_msgs/Imu", IMU_MD5, IMU_DEFINITION);
    conn.callerid = Some("/imu_driver".into());
    conn.header
        .push(("callerid".into(), b"/imu_driver".to_vec()));
    let id = w.add_connection(conn).map_err(|e| e.to_string())?;
    let slow_id = match slow {
        Some(_) => {
            let conn = rosbag12::Connection::new(
                1,
                SLOW_TOPIC,
                "sensor_msgs/Imu",
                IMU_MD5,
                IMU_DEFINITION,
            );
            Some(w.add_connection(conn).map_err(|e| e.to_string())?)
        }
        None => None,
    };
    let mut noise = Noise(0x9e37_79b9_7f4a_7c15);
    let mut data = Vec::with_capacity(400);
    for i in 0..messages {
        imu_message(i, &mut noise, &mut data);
        let (sec, nsec) = imu_stamp(i);
        let ns = u64::from(nsec) + 300_000;
        let time = rosbag12::RosTime {
            sec: sec + (ns / 1_000_000_000) as u32,
            nsec: (ns % 1_000_000_000) as u32,
        };
        w.write(id, time, &data).map_err(|e| e.to_string())?;
        if let (Some(every), Some(slow_id)) = (slow, slow_id) {
            if i % every == 0 {
                let ns = u64::from(nsec) + 1_100_000;
                let time = rosbag12::RosTime {
                    sec: sec + (ns / 1_000_000_000) as u32,
                    nsec: (ns % 1_000_000_000) as u32,
                };
                w.write(slow_id, time, &data).map_err(|e| e.to_string())?;
            }
        }
    }
    w.finish().map_err(|e| e.to_string())?;
    std::fs::rename(&tmp, &path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use logcore::Value;

    /// The definition has ROS's md5sum, and a message decodes with
    /// rosbag12's decoder to the stamp, frame, unit quaternion, gravity and
    /// covariances it was made of.
    #[test]
    fn imu_message_decodes() {
        let t = rosbag12::MessageType::parse("sensor_msgs/Imu", IMU_DEFINITION).unwrap();
        assert_eq!(t.md5sum, IMU_MD5);
        let mut data = Vec::new();
        imu_message(401, &mut Noise(1), &mut data);
        assert_eq!(data.len(), 4 + 8 + 4 + 8 + 32 + 72 + 24 + 72 + 24 + 72);
        let v = t.decode(&data, 0).unwrap();
        let header = v.get("header").unwrap();
        assert_eq!(header.get("seq"), Some(&Value::U64(401)));
        // Message 401 is stamped 1.0025 s after the start.
        assert_eq!(
            header.get("stamp"),
            Some(&Value::Time(logcore::Timestamp(
                i64::from(IMU_START_SEC + 1) * 1_000_000_000 + 2_500_000
            )))
        );
        assert_eq!(
            header.get("frame_id"),
            Some(&Value::String("imu_link".into()))
        );
        let q = v.get("orientation").unwrap();
        let norm: f64 = ["x", "y", "z", "w"]
            .iter()
            .map(|k| q.get(k).and_then(Value::as_f64).unwrap().powi(2))
            .sum();
        assert!((norm - 1.0).abs() < 1e-12, "{norm}");
        let g = v.get("linear_acceleration").unwrap().get("z").unwrap();
        assert!((g.as_f64().unwrap() - 9.80665).abs() <= 0.05);
        assert_eq!(
            v.get("angular_velocity_covariance"),
            Some(&Value::F64Array(vec![
                1e-5, 0.0, 0.0, 0.0, 1e-5, 0.0, 0.0, 0.0, 1e-5
            ]))
        );
    }
}
