//! `robolog ulog ...` and `robolog info/cat` on the committed ULog
//! fixtures (`testdata/ulog/`, written by `cargo xtask fixtures`).

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value as Json;

fn robolog() -> Command {
    Command::cargo_bin("robolog").unwrap()
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/ulog")
        .join(name)
}

fn run(args: &[&str], file: &str) -> (Option<i32>, String, String) {
    let out = robolog().args(args).arg(fixture(file)).output().unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn ulog_info_prints_what_pyulog_prints() {
    let (code, out, err) = run(&["ulog", "info"], "features.ulg");
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with(
        "Logging start time: 0:00:00, duration: 0:00:00\n\
         Dropouts: count: 2, total duration: 0.0 s, max: 35 ms, mean: 23 ms\n\
         SW Version: v1.15.2 (alpha)\nInfo Messages:\n"
    ));
    assert!(out.contains(
        "Info Multiple Messages: [boot_console_output: 1], [hardfault_plain: 1], [perf_counter_postflight: 1]\n"
    ));
    assert!(out.ends_with(" sensor_gps (0, 29)                             6        174\n"));
    let (_, out, _) = run(
        &["ulog", "info", "-m", "boot_console_output", "-n"],
        "features.ulg",
    );
    assert_eq!(out, "# boot_console_output 0:\nboot \nok\n");
}

#[test]
fn ulog_params_and_messages() {
    let (code, out, _) = run(&["ulog", "params", "-f", "qgc"], "features.ulg");
    assert_eq!(code, Some(0));
    assert_eq!(
        out,
        "1\t1\tBAT_N_CELLS\t4\t6\n1\t1\tMC_ROLL_P\t0.05000000074505806\t9\n1\t1\tSYS_AUTOSTART\t4001\t6\n"
    );
    let (_, out, _) = run(&["ulog", "params", "-d", "current_setup"], "features.ulg");
    assert_eq!(out, "BAT_N_CELLS,3\nSYS_AUTOSTART,0\n");
    let (code, _, err) = run(&["ulog", "params", "-d", "system"], "example.ulg");
    assert_eq!(code, Some(1));
    assert!(
        err.contains("Log does not contain default parameters"),
        "{err}"
    );
    let (_, out, _) = run(&["ulog", "messages"], "features.ulg");
    assert!(
        out.starts_with("Failed to get event parser: ") || out.starts_with("0:00:00.001 INFO:")
    );
}

#[test]
fn ulog_csv_writes_one_file_per_topic() {
    let dir = std::env::temp_dir().join(format!("robolog-ulog-csv-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = robolog()
        .args(["ulog", "csv", "-m", "sensor_gps", "-o"])
        .arg(&dir)
        .arg(fixture("features.ulg"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("features_sensor_gps_0.csv (6 data points)"),
        "{stdout}"
    );
    let csv = std::fs::read_to_string(dir.join("features_sensor_gps_0.csv")).unwrap();
    assert_eq!(
        csv.lines().next(),
        Some("timestamp,time_utc_usec,lat,alt,c")
    );
    assert_eq!(csv.lines().count(), 7);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A ULog with one `uint64_t timestamp; int32_t v` format per name in
/// `subs`, each subscribed with instance 0 and given `rows` samples.
fn ulog_of(subs: &[(&str, u32)]) -> Vec<u8> {
    let mut w = ulogfile::Writer::new(Vec::new(), 1_000).unwrap();
    for (name, _) in subs {
        w.add_format(&format!("{name}:uint64_t timestamp;int32_t v;"))
            .unwrap();
    }
    let ids: Vec<u16> = subs
        .iter()
        .map(|(name, _)| w.add_subscription(name, 0).unwrap())
        .collect();
    for (id, (_, rows)) in ids.iter().zip(subs) {
        for i in 0..*rows {
            let mut s = (2_000 + u64::from(i)).to_le_bytes().to_vec();
            s.extend_from_slice(&(i as i32).to_le_bytes());
            w.write_data(*id, &s).unwrap();
        }
    }
    w.finish().unwrap()
}

#[test]
fn ulog_csv_gives_colliding_and_long_names_files_of_their_own() {
    // `a/b` and `a_b` are both pyulog's `NAME_a_b_0.csv`: pyulog writes
    // both there and the rows of the first are lost. A 251-byte log name
    // makes names over the file system's 255 bytes.
    let dir = std::env::temp_dir().join(format!("robolog-ulog-csv-clash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let bytes = ulog_of(&[("a/b", 2), ("a_b", 3)]);
    let long = format!("{}.ulg", "L".repeat(247));
    for name in ["clash.ulg", long.as_str()] {
        std::fs::write(dir.join(name), &bytes).unwrap();
        let out_dir = dir.join(format!("out-{}", name.len()));
        let out = robolog()
            .args(["ulog", "csv", "-o"])
            .arg(&out_dir)
            .arg(dir.join(name))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        let mut files: Vec<(String, usize)> = std::fs::read_dir(&out_dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let rows = std::fs::read_to_string(e.path()).unwrap().lines().count() - 1;
                (e.file_name().to_string_lossy().into_owned(), rows)
            })
            .collect();
        files.sort();
        if name == "clash.ulg" {
            assert_eq!(
                files,
                [
                    ("clash_a_b_0.csv".to_string(), 2),
                    ("clash_a_b_0_2.csv".to_string(), 3)
                ]
            );
        } else {
            let rows: Vec<usize> = files.iter().map(|f| f.1).collect();
            assert_eq!(rows, [2, 3], "{files:?}");
            for (f, _) in &files {
                assert!(f.len() <= 255 && f.starts_with("LLLL"), "{f}");
            }
            assert_ne!(files[0].0, files[1].0);
        }
        // `robolog export` names the files the same way.
        let export_dir = dir.join(format!("export-{}", name.len()));
        let out = robolog()
            .arg("export")
            .arg(dir.join(name))
            .arg("-o")
            .arg(&export_dir)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut exported: Vec<String> = std::fs::read_dir(&export_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        exported.sort();
        let mut expected: Vec<String> = files.into_iter().map(|f| f.0).collect();
        expected.sort();
        assert_eq!(exported, expected);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn info_and_cat_through_logcore() {
    let (code, out, _) = run(&["info", "--json"], "features.ulg");
    assert_eq!(code, Some(0));
    let j: Json = serde_json::from_str(&out).unwrap();
    assert_eq!(j["format"], "ulog");
    assert_eq!(j["message_count"], 12);
    assert_eq!(j["clock"], "boot");
    let (code, out, _) = run(
        &["cat", "--json", "--topic", "esc_status[1]"],
        "features.ulg",
    );
    assert_eq!(code, Some(0));
    let line: Json = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(line["data"]["label"], "esc-full");
    assert_eq!(line["log_time_ns"], 502_000_000);
}

#[test]
fn truncated_log_prints_everything_then_fails() {
    let (code, out, err) = run(&["ulog", "info"], "truncated.ulg");
    assert_eq!(code, Some(1));
    assert!(out.contains("Name (multi id, message size in bytes)"));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("truncated at byte"), "{err}");
    let (code, _, err) = run(&["ulog", "info"], "../vellog/sensors.vel");
    assert_eq!(code, Some(1));
    assert!(
        err.contains("at byte 0: expected a PX4 ULog file, found a VEL sensor log"),
        "{err}"
    );
}
