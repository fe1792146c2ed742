//! A PX4 flight's summary, parameters, panels and spectra against
//! pyulog's reading of the same corpus logs (`px4_pyulog.py` beside this
//! file, run by the Python of `PYULOG_PYTHON` or `target/interop-venv`):
//! the version and vehicle, the maximum altitude and speed and the distance
//! flown, every parameter at start, those differing from their default and
//! those changed in flight, the CPU load, RC input and sampling interval
//! series, and the gyro's and accelerometer's spectra (amplitudes and
//! sample rates).

use std::path::{Path, PathBuf};
use std::process::Command;

use robolog_report::{LogReport, ReportOptions, report_log};
use serde_json::Value;

/// The corpus logs compared: PX4 v1.11 on a CubeOrange (no defaults), a
/// v1.13 SITL log with defaults, a v1.15 SITL log (newer topics), a SITL
/// flight that moves, and the 2016 log (no version).
fn logs() -> Vec<PathBuf> {
    [
        "ulog/pyulog/sample_log_small.ulg",
        "ulog/pyulog/sample_logging_tagged_and_default_params.ulg",
        "ulog/pyulog/sample_px4_events.ulg",
        "ulog/px4-ulog-rs/6ba1abc7-b433-4029-b8f5-3b2bb12d3b6c.ulg",
        "ulog/pyulog/sample.ulg",
    ]
    .iter()
    .filter_map(|p| robolog_testkit::corpus(p))
    .collect()
}

fn report(path: &Path) -> LogReport {
    let opts = ReportOptions {
        check: false,
        max_points: 100_000,
        budget: 10_000_000,
        ..ReportOptions::default()
    };
    let log = robolog::open(path).unwrap();
    report_log(&log, path, &opts).unwrap()
}

/// pyulog's numbers for `path` over the report's span.
fn reference(path: &Path, r: &LogReport) -> Option<Value> {
    let py = robolog_testkit::python_with("PYULOG_PYTHON")?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/px4_pyulog.py");
    let out = Command::new(py)
        .arg(script)
        .arg(path)
        .arg(r.start.div_euclid(1000).to_string())
        .arg((r.end.div_euclid(1000) + 1).to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(1e-12)
}

/// `(t, v)` pairs of a JSON list.
fn pairs(v: &Value) -> Vec<(i64, f64)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_i64().unwrap(), p[1].as_f64().unwrap()))
        .collect()
}

#[test]
fn flight_numbers_equal_pyulogs() {
    let paths = logs();
    if paths.is_empty() {
        eprintln!("skipped: no ULog corpus");
        return;
    }
    let mut compared = 0;
    for path in &paths {
        let r = report(path);
        let Some(want) = reference(path, &r) else {
            return;
        };
        let at = path.display().to_string();
        let flight = r.flight.as_ref().expect("a flight");
        let s = &flight.summary;
        // Version, vehicle and board.
        match want["ver_sw_release"].as_u64() {
            Some(v) => {
                let [a, b, c, _] = (v as u32).to_be_bytes();
                assert!(
                    s.software
                        .as_deref()
                        .unwrap()
                        .starts_with(&format!("v{a}.{b}.{c} ")),
                    "{at}: {:?} for {v:#x}",
                    s.software
                );
            }
            None => assert_eq!(s.software, None, "{at}"),
        }
        assert_eq!(s.git.as_deref(), want["ver_sw"].as_str(), "{at}");
        assert!(
            s.hardware
                .as_deref()
                .is_some_and(|h| h.starts_with(want["ver_hw"].as_str().unwrap())),
            "{at}: {:?}",
            s.hardware
        );
        assert_eq!(s.system.as_deref(), want["sys_name"].as_str(), "{at}");
        if let Some(t) = want["mav_type"].as_i64() {
            assert!(
                s.vehicle
                    .as_deref()
                    .unwrap()
                    .ends_with(&format!("(MAV_TYPE {t})")),
                "{at}: {:?}",
                s.vehicle
            );
        }
        if let Some(n) = want["sys_autostart"].as_i64() {
            assert!(
                s.airframe.as_deref().unwrap().starts_with(&n.to_string()),
                "{at}"
            );
        }
        // Altitude, speed and distance.
        for (name, got) in [
            ("max_altitude", s.max_altitude),
            ("max_speed", s.max_speed),
            ("distance", s.distance),
        ] {
            match want[name].as_f64() {
                Some(w) => {
                    let g = got.unwrap_or_else(|| panic!("{at}: no {name}"));
                    assert!(close(g, w, 1e-9), "{at}: {name} {g} against pyulog's {w}");
                    compared += 1;
                }
                None => assert_eq!(got, None, "{at}: {name}"),
            }
        }
        for (name, got) in [
            ("max_tilt", s.max_tilt),
            ("max_rotation", s.max_rotation),
            ("mean_current", s.mean_current),
        ] {
            if let Some(w) = want.get(name) {
                match (w.as_f64(), got) {
                    (Some(w), Some(g)) => {
                        assert!(close(g, w, 1e-9), "{at}: {name} {g} against pyulog's {w}");
                        compared += 1;
                    }
                    (None, None) => {}
                    (w, g) => panic!("{at}: {name} {g:?} against pyulog's {w:?}"),
                }
            } else {
                assert_eq!(got, None, "{at}: {name}");
            }
        }
        if let Some(w) = want.get("max_vertical").and_then(Value::as_array) {
            let (up, down) = s.max_vertical.expect("climb and descent rates");
            assert!(close(up, w[0].as_f64().unwrap(), 1e-9), "{at}: climb {up}");
            assert!(
                close(down, w[1].as_f64().unwrap(), 1e-9),
                "{at}: descent {down}"
            );
            compared += 1;
        }
        // Parameters: every one at start, then the changes.
        let (note, list) = r.parameters.as_ref().unwrap();
        let start: Vec<&str> = list
            .iter()
            .filter(|p| p.t.is_none())
            .map(|p| p.name.as_str())
            .collect();
        let names: Vec<&str> = want["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(start, names, "{at}: the parameters at start");
        assert!(
            note.starts_with(&format!("{} parameters at start", names.len())),
            "{at}: {note}"
        );
        let differ: Vec<&str> = list
            .iter()
            .filter(|p| p.t.is_none())
            .filter(|p| {
                p.default
                    .as_ref()
                    .is_some_and(|d| d.parse::<f64>().unwrap() != p.value.parse::<f64>().unwrap())
            })
            .map(|p| p.name.as_str())
            .collect();
        let want_differ: Vec<&str> = want["differ"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(
            differ, want_differ,
            "{at}: the parameters unlike their default"
        );
        if !want["has_defaults"].as_bool().unwrap() {
            assert!(
                list.iter().all(|p| p.default.is_none()),
                "{at}: a made-up default"
            );
        }
        let changes: Vec<(i64, String, f64)> = list
            .iter()
            .filter_map(|p| Some((p.t?, p.name.clone(), p.value.parse().unwrap())))
            .collect();
        let want_changes: Vec<(i64, String, f64)> = want["changed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c[0].as_i64().unwrap() * 1000,
                    c[1].as_str().unwrap().to_string(),
                    c[2].as_f64().unwrap(),
                )
            })
            .collect();
        assert_eq!(changes, want_changes, "{at}: the changes in flight");
        // Panels: the CPU load as a channel's series, RC input 1 as the
        // panel's own.
        let panel = |title: &str| r.panels.iter().find(|p| p.title == title);
        if let Some(cpu) = want.get("cpuload") {
            let p = panel("CPU and RAM").expect("a CPU panel");
            let (ci, si, _) = p.series.iter().find(|s| s.2 == "load").unwrap();
            let got = &r.channels[*ci].series[*si].points;
            let want = pairs(cpu);
            assert_eq!(got.len(), want.len(), "{at}");
            for (g, w) in got.iter().zip(&want) {
                assert!(g.0 == w.0 && close(g.1, w.1, 1e-6), "{at}: {g:?} {w:?}");
            }
            compared += 1;
        }
        if let Some(rc) = want.get("rc0") {
            let p = panel("RC inputs").expect("an RC panel");
            assert_eq!(p.own[0].name, "channel 1");
            assert_eq!(p.own[0].points, pairs(rc), "{at}");
            compared += 1;
        }
        if let Some(dt) = want.get("sampling") {
            let p = panel("Sampling regularity of sensor data").expect("a sampling panel");
            let got = &p.own[0].points;
            let want = pairs(dt);
            assert_eq!(got.len(), want.len(), "{at}");
            for (g, w) in got.iter().zip(&want) {
                assert!(g.0 == w.0 && close(g.1, w.1, 1e-12), "{at}: {g:?} {w:?}");
            }
            compared += 1;
        }
        // The gyro's and accelerometer's spectra.
        let want_spectra = want["spectra"].as_array().unwrap();
        assert_eq!(flight.spectra.len(), want_spectra.len(), "{at}");
        for (sp, w) in flight.spectra.iter().zip(want_spectra) {
            assert_eq!(sp.source, w["source"].as_str().unwrap(), "{at}");
            assert!(close(sp.rate, w["rate"].as_f64().unwrap(), 1e-12), "{at}");
            for (axis, want_axis) in sp.axes.iter().zip(w["amplitude"].as_array().unwrap()) {
                let want_axis: Vec<f64> = want_axis
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_f64().unwrap())
                    .collect();
                assert_eq!(axis.1.len(), want_axis.len(), "{at}");
                let top = want_axis.iter().copied().fold(0.0, f64::max);
                for (k, (g, w)) in axis.1.iter().zip(&want_axis).enumerate() {
                    assert!(
                        (g - w).abs() <= 1e-9 * top,
                        "{at}: {} {} bin {k}: {g} {w}",
                        sp.source,
                        axis.0
                    );
                }
            }
            let segments = w["segments"].as_u64().unwrap() as usize;
            let g = &sp.spectrogram;
            assert_eq!(g.rows, 129, "{at}");
            assert_eq!(g.data.len(), g.columns * g.rows, "{at}");
            assert_eq!(
                g.columns,
                segments.div_ceil(segments.div_ceil(400)),
                "{at}: {segments} windows"
            );
            assert!(
                g.data.contains(&255),
                "{at}: the loudest bin at full intensity"
            );
            compared += 1;
        }
    }
    eprintln!(
        "{compared} values compared with pyulog's over {} logs",
        paths.len()
    );
    assert!(compared >= 20, "{compared} values compared");
}

#[test]
fn summary_and_spectrum_reach_the_page() {
    let Some(path) = robolog_testkit::corpus("ulog/pyulog/sample_log_small.ulg") else {
        return;
    };
    let r = report(&path);
    let json: Value = serde_json::from_str(&format!(
        "{{\"x\":{}}}",
        robolog_report::data_json(std::slice::from_ref(&r), "t", 50_000_000)
    ))
    .unwrap();
    let log = &json["x"]["logs"][0];
    let rows = log["flight"]["summary"]["rows"].as_array().unwrap();
    let row = |k: &str| {
        rows.iter()
            .find(|r| r[0] == k)
            .and_then(|r| r[1].as_str())
            .unwrap_or_else(|| panic!("no row {k}"))
    };
    // ver_sw_release 0x010b0200: 1.11.2, a development build.
    assert_eq!(row("software"), "v1.11.2 dev");
    assert_eq!(row("vehicle type"), "VTOL standard (MAV_TYPE 22)");
    assert_eq!(row("airframe (SYS_AUTOSTART)"), "13014 (VTOL)");
    assert_eq!(row("hardware"), "CUBEPILOT_CUBEORANGE");
    let spectra = log["flight"]["spectra"].as_array().unwrap();
    assert_eq!(spectra.len(), 2, "the gyro's and the accelerometer's");
    assert_eq!(spectra[0]["source"], "sensor_combined.gyro_rad");
    assert_eq!(spectra[1]["source"], "sensor_combined.accelerometer_m_s2");
    let sp = &spectra[0]["spectrogram"];
    let cells = sp["columns"].as_u64().unwrap() * sp["rows"].as_u64().unwrap();
    assert_eq!(
        sp["data"].as_str().unwrap().len() as u64,
        cells.div_ceil(3) * 4,
        "base64 of one byte per cell"
    );
    // The parameter list holds all 980 at start and no made-up default.
    let list = log["parameters"]["list"].as_array().unwrap();
    assert_eq!(list.len(), 980);
    assert!(list.iter().all(|p| p["default"].is_null()));
}
