//! `cargo xtask bench filter`: `robolog filter` (the release build, with
//! its default features: `--where` needs DataFusion) against the Python
//! tools users filter logs with (`filterbench.py`, run with the interop
//! venv's python):
//!
//! - MCAP topic filter: an MCAP file of 1,000,000 messages on six topics
//!   (written here with mcapfile's writer: zstd chunks of 1 MiB, payloads
//!   of 100 to 700 bytes, half sensor noise), `--topic '/imu/*' --topic
//!   '/gps/*'` against `pymcap-cli filter --topic '/imu/[^/]*' --topic
//!   '/gps/[^/]*'`, both writing zstd chunks of 1 MiB (target 5x);
//! - ROS 1 bag `--where '/imu/data: linear_acceleration.z > 10.5'` on a
//!   bag of 260,000 messages (IMU at 200 Hz, odometry, GNSS; rosbags'
//!   writer) against a rosbags read-filter-write loop that deserialises
//!   the IMU messages and writes the kept raw bytes (target 20x);
//! - memory: the peak RSS (wait4) of the same two runs on their big
//!   input and on one a tenth of its size, with its heap and mapped-file
//!   parts (the inputs are memory-mapped: pages read count in the RSS
//!   until the kernel takes them back); the heap is bounded by a chunk,
//!   the `--where` batch and the message keys, not by the log's size.
//!
//! Each output is compared message for message (topic, log time, bytes)
//! with the peer's before timing; times are the best of three. The inputs
//! are made once into `target/bench-filter`. Nothing is asserted on the
//! times.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use mcapfile::{Compression, WriteOptions, Writer};
use serde_json::Value as Json;

use crate::python::{Venv, stdout_of};
use crate::{Result, cargo, root, run, step};

/// The MCAP benchmark's topics: (topic, messages per 1,000,000, payload
/// bytes).
const TOPICS: [(&str, u64, usize); 6] = [
    ("/imu/data", 400, 320),
    ("/tf", 300, 200),
    ("/odom", 100, 700),
    ("/joint_states", 100, 400),
    ("/gps/fix", 50, 100),
    ("/rosout", 50, 150),
];

/// Writes an MCAP file of `n` messages (a multiple of 1,000) on
/// [`TOPICS`], interleaved in log-time order, with mcapfile's writer.
fn write_mcap(path: &Path, n: u64) -> Result {
    let tmp = path.with_extension("tmp");
    let file = std::fs::File::create(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let opts = WriteOptions {
        profile: "ros2".into(),
        compression: Compression::Zstd,
        chunk_size: 1 << 20,
        ..WriteOptions::default()
    };
    let err = |e: mcapfile::Error| format!("{}: {e}", tmp.display());
    let mut w = Writer::new(std::io::BufWriter::new(file), opts).map_err(err)?;
    let mut channels = Vec::new();
    for (topic, per_thousand, size) in TOPICS {
        let schema = w
            .add_schema(
                &format!("bench/msg/Payload{size}"),
                "ros2msg",
                b"uint8[] data",
            )
            .map_err(err)?;
        let ch = w
            .add_channel(schema, topic, "cdr", &BTreeMap::new())
            .map_err(err)?;
        channels.push((ch, per_thousand, size));
    }
    // Each block of 1,000 messages spans 10 ms; within it the topics take
    // turns by their share, as a recorder interleaves them.
    let mut seq = vec![0u32; channels.len()];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let t0: u64 = 1_700_000_000_000_000_000;
    let mut data = Vec::with_capacity(1024);
    for block in 0..n / 1000 {
        for k in 0..1000u64 {
            // The topic whose share covers slot k.
            let mut acc = 0;
            let i = channels
                .iter()
                .position(|&(_, share, _)| {
                    acc += share;
                    k < acc
                })
                .unwrap_or(0);
            let (ch, _, size) = channels[i];
            data.clear();
            data.extend_from_slice(&[0, 1, 0, 0]);
            while data.len() < size {
                // Half noise (xorshift), half slowly changing values.
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                data.extend_from_slice(&state.to_le_bytes()[..4]);
                data.extend_from_slice(&(block as u32 / 64).to_le_bytes());
            }
            data.truncate(size);
            let t = t0 + block * 10_000_000 + k * 10_000;
            w.write_message(ch, seq[i], t, t, &data).map_err(err)?;
            seq[i] += 1;
        }
    }
    let mut sink = w.finish().map_err(err)?;
    sink.flush()
        .map_err(|e| format!("{}: {e}", tmp.display()))?;
    drop(sink);
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The release `robolog` with its default features (DataFusion, for
/// `--where`), copied into `dir` so that a build with other features does
/// not replace it under the benchmark.
fn release_robolog(dir: &Path) -> Result<PathBuf> {
    run(cargo().args(["build", "--quiet", "--release", "-p", "robolog-cli"]))?;
    let built = crate::pybench::target_dir().join("release/robolog");
    let exe = dir.join("robolog");
    std::fs::copy(&built, &exe).map_err(|e| format!("{}: {e}", built.display()))?;
    Ok(exe)
}

/// `cargo xtask bench filter`.
pub(crate) fn bench() -> Result {
    step("bench filter (robolog filter against pymcap-cli filter and a rosbags loop)");
    let venv = Venv::with(&["rosbags", "mcap", "zstandard", "lz4", "pymcap-cli"])?;
    let dir = root().join("target/bench-filter");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let exe = release_robolog(&dir)?;
    let (big, small) = (dir.join("filter-1m.mcap"), dir.join("filter-100k.mcap"));
    for (path, n) in [(&big, 1_000_000), (&small, 100_000)] {
        if !path.exists() {
            eprintln!("xtask: bench filter: writing {}", path.display());
            write_mcap(path, n)?;
        }
    }
    let python = |args: &[&dyn AsRef<std::ffi::OsStr>]| -> Result<Json> {
        let mut c = venv.script("filterbench.py");
        for a in args {
            c.arg(a);
        }
        let out = stdout_of(c, "filterbench.py")?;
        serde_json::from_str(out.trim()).map_err(|e| format!("filterbench.py: {e}: {out}"))
    };
    eprintln!("xtask: bench filter: the bags in {}", dir.display());
    python(&[&"bag", &dir])?;
    let (bag, small_bag) = (dir.join("where-big.bag"), dir.join("where-small.bag"));
    eprintln!("xtask: bench filter: {}", big.display());
    let m = python(&[&"mcap", &big, &exe, &dir])?;
    eprintln!("xtask: bench filter: {}", bag.display());
    let w = python(&[&"where", &bag, &exe, &dir])?;
    let out = dir.join("memory-out.mcap");
    let topics = ["--topic", "/imu/*", "--topic", "/gps/*"];
    let mem = |input: &Path, out: &Path, extra: &[&str]| -> Result<Json> {
        let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"memory", &exe, &"filter"];
        args.push(&input);
        args.push(&out);
        args.push(&"--force");
        for e in extra {
            args.push(e);
        }
        python(&args)
    };
    let where_arg = ["--where", "/imu/data: linear_acceleration.z > 10.5"];
    let bag_out = dir.join("memory-out.bag");
    let rows = [
        ("MCAP topic filter", mem(&big, &out, &topics)?, &big),
        ("MCAP topic filter", mem(&small, &out, &topics)?, &small),
        ("bag --where", mem(&bag, &bag_out, &where_arg)?, &bag),
        (
            "bag --where",
            mem(&small_bag, &bag_out, &where_arg)?,
            &small_bag,
        ),
    ];

    let f = |j: &Json, k: &str| j[k].as_f64().unwrap_or(f64::NAN);
    let mb = |p: &Path| std::fs::metadata(p).map_or(f64::NAN, |m| m.len() as f64 / 1e6);
    let mut text = String::from(
        "\nxtask: bench filter (best of 3; seconds; MB/s of the input file):\n  case                                   robolog     MB/s  peer                       peer     MB/s   ratio  target  met\n",
    );
    for (case, j, size, peer, target) in [
        (
            "MCAP 1M messages, topic filter",
            &m,
            mb(&big),
            "pymcap-cli filter",
            5.0,
        ),
        (
            "ROS 1 bag, --where on /imu/data",
            &w,
            mb(&bag),
            "rosbags read-filter-write",
            20.0,
        ),
    ] {
        let (ours, theirs) = (f(j, "robolog"), f(j, "peer"));
        let ratio = theirs / ours;
        text.push_str(&format!(
            "  {case:<36} {ours:>8.3} {:>8.1}  {peer:<24} {theirs:>8.3} {:>8.1} {ratio:>6.1}x {target:>6.0}x  {}\n",
            size / ours,
            size / theirs,
            if ratio >= target { "yes" } else { "NO" },
        ));
    }
    text.push_str(&format!(
        "  MCAP: {} of 1,000,000 messages kept, equal to pymcap-cli's ({:.1} MB written, pymcap-cli {:.1} MB); bag: {} messages kept ({} of /imu/data), equal to the rosbags loop's\n",
        m["kept"],
        f(&m, "robolog_bytes") / 1e6,
        f(&m, "peer_bytes") / 1e6,
        w["kept"],
        w["imu_kept"],
    ));
    text.push_str(
        "  memory of robolog filter (peak RSS by wait4; its largest heap and mapped-file parts sampled every 5 ms):\n",
    );
    for (case, j, input) in &rows {
        text.push_str(&format!(
            "    {case:<20} {:>8.1} MB input  {:>7.1} MB peak RSS  {:>7.1} MB heap  {:>7.1} MB mapped  {:>6.2} s\n",
            mb(input),
            f(j, "peak_rss") / 1e6,
            f(j, "anon") / 1e6,
            f(j, "mapped") / 1e6,
            f(j, "seconds"),
        ));
    }
    eprint!("{text}");
    std::io::stderr().flush().map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcapfile::{LinearReader, Record};

    /// The generated file holds every topic's share, in log-time order.
    #[test]
    fn the_generated_mcap_has_each_topics_share_in_time_order() {
        let path = std::env::temp_dir().join(format!("filterbench-{}.mcap", std::process::id()));
        write_mcap(&path, 2000).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let (mut topics, mut counts, mut last) = (BTreeMap::new(), BTreeMap::new(), 0);
        for r in LinearReader::new(&bytes) {
            match r.unwrap() {
                Record::Channel(c) => {
                    topics.insert(c.id, c.topic.to_string());
                }
                Record::Message(m) => {
                    assert!(m.log_time >= last);
                    last = m.log_time;
                    *counts.entry(topics[&m.channel_id].clone()).or_insert(0) += 1;
                    let size = TOPICS
                        .iter()
                        .find(|t| t.0 == topics[&m.channel_id])
                        .unwrap()
                        .2;
                    assert_eq!(m.data.len(), size);
                }
                _ => {}
            }
        }
        for (topic, share, _) in TOPICS {
            assert_eq!(counts[topic], 2 * share, "{topic}");
        }
    }
}
