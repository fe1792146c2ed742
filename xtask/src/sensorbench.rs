//! `cargo xtask bench sensors`: sensor payloads against the fastest
//! Python ways users have (`sensorbench.py`, run with the interop venv's
//! python):
//!
//! - point clouds: `Log.points` of a `PointCloud2` topic (100 clouds of
//!   100,000 points, point_step 32, a 320 MB bag) into numpy, against
//!   rosbags' deserialisation plus `numpy.frombuffer` with the cloud's
//!   fields as a dtype (target 10x);
//! - frames to PNG files: `robolog export --images` of 100 rgb8 frames of
//!   640x480, against rosbags plus Pillow writing one PNG per frame
//!   (target 5x); the files decode to the same pixels;
//! - memory: the peak RSS of `robolog export --images` of a bag of about
//!   1 GB of frames, against the size of one frame and of the log.
//!
//! The bags are written once by rosbags' writer into
//! `target/bench-sensors`. The wheel and the CLI are built in release.
//! Times are the best of three; nothing is asserted on them.

use std::io::Write as _;
use std::path::Path;

use serde_json::Value as Json;

use crate::pybench::{install_release_wheel, release_robolog};
use crate::python::{Venv, stdout_of};
use crate::{Result, root, step};

/// The benchmark's cloud topic.
const CLOUD_TOPIC: &str = "/points";

/// The benchmark's camera topic.
const CAMERA_TOPIC: &str = "/camera/image_raw";

/// `cargo xtask bench sensors`.
pub(crate) fn bench() -> Result {
    step("bench sensors (robolog's wheel and CLI against rosbags, numpy and Pillow)");
    let mut packages = crate::py::PACKAGES.to_vec();
    packages.push(crate::py::MATURIN);
    let venv = Venv::with(&packages)?;
    install_release_wheel(&venv)?;
    let exe = release_robolog()?;
    let dir = root().join("target/bench-sensors");
    let python = |args: &[&dyn AsRef<std::ffi::OsStr>]| -> Result<Json> {
        let mut c = venv.script("sensorbench.py");
        for a in args {
            c.arg(a);
        }
        let out = stdout_of(c, "sensorbench.py")?;
        serde_json::from_str(out.trim()).map_err(|e| format!("sensorbench.py: {e}: {out}"))
    };
    eprintln!("xtask: bench sensors: the bags in {}", dir.display());
    python(&[&"inputs", &dir])?;
    let (clouds, camera, big) = (
        dir.join("clouds.bag"),
        dir.join("camera.bag"),
        dir.join("camera-1g.bag"),
    );
    eprintln!("xtask: bench sensors: {}", clouds.display());
    let p = python(&[&"points", &clouds, &CLOUD_TOPIC])?;
    eprintln!("xtask: bench sensors: {}", camera.display());
    let g = python(&[&"png", &camera, &CAMERA_TOPIC, &exe, &dir])?;
    eprintln!("xtask: bench sensors: {}", big.display());
    let m = python(&[&"memory", &big, &exe, &dir])?;

    let f = |j: &Json, k: &str| j[k].as_f64().unwrap_or(f64::NAN);
    let mb = |p: &Path| std::fs::metadata(p).map_or(f64::NAN, |m| m.len() as f64 / 1e6);
    let mut text = String::from(
        "\nxtask: bench sensors (best of 3; seconds; MB/s of the input file):\n  case                               robolog     MB/s  peer                         peer   ratio  target  met\n",
    );
    for (case, j, size, peer, target) in [
        (
            "PointCloud2 into numpy (Log.points)",
            &p,
            mb(&clouds),
            "rosbags + frombuffer",
            10.0,
        ),
        (
            "rgb8 frames to PNG files (export)",
            &g,
            mb(&camera),
            "rosbags + Pillow",
            5.0,
        ),
    ] {
        let (ours, theirs) = (f(j, "robolog"), f(j, "peer"));
        let ratio = theirs / ours;
        text.push_str(&format!(
            "  {case:<34} {ours:>8.4} {:>8.0}  {peer:<24} {theirs:>8.3} {ratio:>6.1}x {:>6.0}x  {}\n",
            size / ours,
            target,
            if ratio >= target { "yes" } else { "NO" },
        ));
    }
    text.push_str(&format!(
        "  clouds: {} points in {} MB, every field equal to the peer's; PNG: {} frames decoding to the peer's pixels, {:.1} MB written (the peer's {:.1} MB)\n",
        p["points"],
        mb(&clouds).round(),
        g["frames"],
        f(&g, "robolog_bytes") / 1e6,
        f(&g, "peer_bytes") / 1e6,
    ));
    let (peak, log, one) = (f(&m, "peak_rss"), f(&m, "log_bytes"), f(&m, "frame_bytes"));
    text.push_str(&format!(
        "  memory: export --images of {:.0} MB ({} frames of {:.2} MB) in {:.1} s: peak RSS {:.1} MB, {:.1}x a frame, {:.3}x the log ({})\n",
        log / 1e6,
        m["frames"],
        one / 1e6,
        f(&m, "seconds"),
        peak / 1e6,
        peak / one,
        peak / log,
        if peak < log / 4.0 {
            "bounded"
        } else {
            "NOT bounded"
        },
    ));
    eprint!("{text}");
    std::io::stderr().flush().map_err(|e| e.to_string())?;
    Ok(())
}
