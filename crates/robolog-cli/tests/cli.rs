//! Runs the built `robolog` binary on committed fixtures and hand-made
//! damaged files, checking its output and exit codes.

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value as Json;

/// The 69-byte example file of the VEL spec (section 8.1): one RobotPoseM at
/// t = 1000.0 ms, quaternion (1, 0, 0, 0), acceleration (0, 0, 9.81).
const SPEC_EXAMPLE: &[u8] = &[
    0xa4, 0x56, 0x45, 0x4c, 0x01, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x31, 0x00, 0x00, 0x00, 0x49, 0x42, 0xe3, 0x01, 0x00, 0x64, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x8f, 0x40, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0xc3, 0xf5, 0x1c, 0x41,
];

fn robolog() -> Command {
    Command::cargo_bin("robolog").unwrap()
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/vellog")
        .join(name)
}

/// Writes `bytes` to a fresh file under the test's temporary folder.
fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn stdout_json(out: &std::process::Output) -> Json {
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON object")
}

fn json_lines(out: &std::process::Output) -> Vec<Json> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

#[test]
fn committed_spec_example_matches_the_spec_bytes() {
    assert_eq!(
        std::fs::read(fixture("spec-example.vel")).unwrap(),
        SPEC_EXAMPLE
    );
}

#[test]
fn info_json_on_spec_example() {
    let out = robolog()
        .args(["info", "--json"])
        .arg(fixture("spec-example.vel"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let j = stdout_json(&out);
    assert_eq!(j["format"], "vellog");
    assert_eq!(j["version"], "1.1");
    assert_eq!(j["message_count"], 1);
    assert_eq!(j["start_ns"], 1_000_000_000i64);
    assert_eq!(j["end_ns"], 1_000_000_000i64);
    assert_eq!(j["duration_ns"], 0);
    assert_eq!(j["clock"], "recording_start");
    // No GPS message, so no anchor and no date.
    assert!(j["start_date"].is_null());
    let chans = j["channels"].as_array().unwrap();
    assert_eq!(chans.len(), 1);
    assert_eq!(chans[0]["topic"], "RobotPoseM");
    assert_eq!(chans[0]["type"], "RobotPoseM");
    assert_eq!(chans[0]["count"], 1);
    assert_eq!(j["size_bytes"], 69);
}

#[test]
fn info_text_on_spec_example() {
    let out = robolog()
        .arg("info")
        .arg(fixture("spec-example.vel"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("format:    VEL sensor log (vellog) version 1.1"),
        "{text}"
    );
    assert!(
        text.contains("start:     1.000000000 s since recording start"),
        "{text}"
    );
    assert!(text.contains("messages:  1"), "{text}");
    assert!(text.contains("RobotPoseM"), "{text}");
}

#[test]
fn cat_json_on_spec_example_decodes_the_pose() {
    let out = robolog()
        .args(["cat", "--json"])
        .arg(fixture("spec-example.vel"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 1);
    let m = &lines[0];
    assert_eq!(m["topic"], "RobotPoseM");
    assert_eq!(m["log_time_ns"], 1_000_000_000i64);
    // The decoded floats, whatever the field names: 1, 0, 0, 0 then 0, 0, 9.81.
    let mut floats = Vec::new();
    collect_numbers(&m["data"], &mut floats);
    assert_eq!(floats, vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 9.81]);
}

fn collect_numbers(j: &Json, out: &mut Vec<f64>) {
    match j {
        Json::Number(n) => out.push(n.as_f64().unwrap()),
        Json::Array(a) => a.iter().for_each(|x| collect_numbers(x, out)),
        Json::Object(o) => o.values().for_each(|x| collect_numbers(x, out)),
        _ => {}
    }
}

#[test]
fn unknown_format_is_one_line_exit_1() {
    let p = temp_file("not-a-log.bin", b"hello world, not a log");
    let out = robolog().arg("info").arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("not-a-log.bin"), "{err}");
    assert!(err.contains("at byte 0: expected the magic bytes"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn empty_file_is_reported_not_panicked() {
    let p = temp_file("empty.vel", b"");
    let out = robolog().arg("info").arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("found end of file"), "{err}");
}

#[test]
fn every_recognised_format_is_supported_now() {
    // ROS bags: rosbag_cli.rs; ULog: ulog_cli.rs; CARLA: carla_cli.rs;
    // MCAP: mcap_cli.rs. A file holding only the MCAP magic is damage,
    // reported on one line.
    let p = temp_file("x.mcap", b"\x89MCAP0\r\n\x01");
    let out = robolog().arg("info").arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("truncated at byte 8"), "{err}");
    assert!(!err.contains("not supported"), "{err}");
    assert_eq!(err.lines().count(), 1);
}

#[test]
fn truncated_file_prints_what_is_there_then_fails() {
    // Cut the spec example inside its only message: header and index are
    // fine, the message is not complete.
    let p = temp_file("cut.vel", &SPEC_EXAMPLE[..60]);
    let out = robolog().args(["cat", "--json"]).arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("cut.vel"), "{err}");
    assert!(err.contains("truncated at byte 20"), "{err}");
}

#[test]
fn usage_errors_exit_2() {
    let out = robolog().arg("info").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = robolog().args(["frobnicate", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = robolog()
        .args(["cat", "--start", "soon"])
        .arg(fixture("spec-example.vel"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn missing_file_exits_1() {
    let out = robolog()
        .args(["info", "/nonexistent/file.vel"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("/nonexistent/file.vel"), "{err}");
}

/// `sensors.vel` is built by `cargo xtask fixtures` with one GPS message per
/// second at t = 0.455 s + k (k = 0..5); the first has no fix, the second
/// reads 2009-06-17 14:03:28 UTC. The first message of the file is at
/// 0.250 s and the last at 6.152 s.
#[test]
fn info_json_on_sensors_anchors_dates_on_the_first_gps_fix() {
    let out = robolog()
        .args(["info", "--json"])
        .arg(fixture("sensors.vel"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let j = stdout_json(&out);
    assert_eq!(j["start_ns"], 250_000_000i64);
    assert_eq!(j["end_ns"], 6_152_000_000i64);
    // 14:03:28 at 1.455 s, so 0.250 s is 1.205 s earlier.
    assert_eq!(j["start_date"], "2009-06-17T14:03:26.795000000Z");
    assert_eq!(j["clock_anchor"]["log_time_ns"], 1_455_000_000i64);
    // The same instants as ns since 1970: 2009-06-17T14:03:26.795Z is
    // 1245247406.795 s, and the end 5.902 s later.
    assert_eq!(j["time_base"], "recording_start");
    assert_eq!(j["start_utc_ns"], 1_245_247_406_795_000_000i64);
    assert_eq!(j["end_utc_ns"], 1_245_247_412_697_000_000i64);
    let chans = j["channels"].as_array().unwrap();
    let count_of = |topic: &str| {
        chans
            .iter()
            .find(|c| c["topic"] == topic)
            .map(|c| c["count"].as_u64().unwrap())
    };
    assert_eq!(count_of("GPSDataM"), Some(6));
    assert_eq!(count_of("ImageM/0"), Some(30));
    assert_eq!(count_of("LaserRange2DDataM/roof"), Some(12));
    let total: u64 = chans.iter().map(|c| c["count"].as_u64().unwrap()).sum();
    assert_eq!(j["message_count"].as_u64(), Some(total));
}

#[test]
fn cat_filters_by_topic_and_relative_time() {
    // Relative to the first message (0.25 s): [1.25 s, 3.25 s).
    let out = robolog()
        .args([
            "cat", "--json", "--topic", "GPSDataM", "--start", "1", "--end", "3",
        ])
        .arg(fixture("sensors.vel"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let times: Vec<i64> = json_lines(&out)
        .iter()
        .map(|l| l["log_time_ns"].as_i64().unwrap())
        .collect();
    assert_eq!(times, vec![1_455_000_000, 2_455_000_000]);
    let lines = json_lines(&out);
    assert_eq!(lines[0]["data"]["second"], 28);
    assert_eq!(lines[1]["data"]["second"], 29);
}

/// `sensors.vel` reads 2009-06-17 14:03:28 UTC at 1.455 s (see above):
/// ISO 8601 instants go through that anchor, units through the one
/// grammar, and a UTC time on a clock without an anchor is a usage error.
#[test]
fn cat_utc_instants_and_units() {
    let gps_times = |start: &str, end: &str| {
        let out = robolog()
            .args([
                "cat", "--json", "--topic", "GPSDataM", "--start", start, "--end", end,
            ])
            .arg(fixture("sensors.vel"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        json_lines(&out)
            .iter()
            .map(|l| l["log_time_ns"].as_i64().unwrap())
            .collect::<Vec<i64>>()
    };
    let want = vec![2_455_000_000, 3_455_000_000];
    assert_eq!(
        gps_times("2009-06-17T14:03:29Z", "2009-06-17 16:03:31+02:00"),
        want
    );
    assert_eq!(
        gps_times("2009-06-17T14:03:28.5Z", "2009-06-17T14:03:30.500Z"),
        want
    );
    // Relative, with units: from the first message at 0.25 s.
    assert_eq!(gps_times("2s", "3300ms"), want);
    let out = robolog()
        .args(["cat", "--start", "2009-06-17T14:03:29Z"])
        .arg(fixture("spec-example.vel"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("not anchored to UTC"), "{err}");
}

#[test]
fn cat_absolute_times_and_several_topics() {
    let out = robolog()
        .args([
            "cat",
            "--json",
            "--topic",
            "GPSDataM",
            "--topic",
            "VelodyneRawDataM",
        ])
        .args(["--start", "@1.455", "--end", "@2.456"])
        .arg(fixture("sensors.vel"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let lines = json_lines(&out);
    let mut topics: Vec<&str> = lines.iter().map(|l| l["topic"].as_str().unwrap()).collect();
    topics.sort_unstable();
    topics.dedup();
    assert_eq!(topics, vec!["GPSDataM", "VelodyneRawDataM"]);
    for l in &lines {
        let t = l["log_time_ns"].as_i64().unwrap();
        assert!((1_455_000_000..2_456_000_000).contains(&t), "{t}");
    }
    assert_eq!(lines.iter().filter(|l| l["topic"] == "GPSDataM").count(), 2);
}

#[test]
fn info_on_truncated_sensors_reports_and_exits_1() {
    let bytes = std::fs::read(fixture("sensors.vel")).unwrap();
    let p = temp_file("sensors-cut.vel", &bytes[..bytes.len() - 100]);
    let out = robolog().args(["info", "--json"]).arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let j = stdout_json(&out);
    let full = robolog()
        .args(["info", "--json"])
        .arg(fixture("sensors.vel"))
        .output()
        .unwrap();
    let full = stdout_json(&full);
    // Only the last message is lost.
    assert_eq!(
        j["message_count"].as_u64().unwrap() + 1,
        full["message_count"].as_u64().unwrap()
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("sensors-cut.vel"), "{err}");
    assert!(err.contains("truncated at byte"), "{err}");
    assert_eq!(j["warnings"].as_array().unwrap().len(), 1);
}

#[test]
fn cat_text_is_one_line_per_message() {
    let out = robolog()
        .args(["cat", "--topic", "ImageM/1"])
        .arg(fixture("sensors.vel"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 30);
    let first = text.lines().next().unwrap();
    assert!(
        first.contains(" ImageM/1 {source_id: 1, is_compressed: true"),
        "{first}"
    );
    assert!(first.contains("bytes>"), "{first}");
}

#[test]
fn cat_prints_undecodable_payloads_raw_with_one_warning_per_channel() {
    use mcapfile::{WriteOptions, Writer};
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriteOptions::default()).unwrap();
    let good = w
        .add_channel(0, "/good", "json", &Default::default())
        .unwrap();
    let bad = w
        .add_channel(0, "/bad", "json", &Default::default())
        .unwrap();
    for i in 0..3u64 {
        w.write_message(good, 0, i, i, format!("{{\"i\": {i}}}").as_bytes())
            .unwrap();
        w.write_message(bad, 0, i, i, &[0x00, 0xff, i as u8])
            .unwrap();
    }
    let p = temp_file("binary-in-json.mcap", &w.finish().unwrap().into_inner());
    for json in [false, true] {
        let mut cmd = robolog();
        cmd.arg("cat").arg(&p);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        let stdout = String::from_utf8(out.stdout.clone()).unwrap();
        assert_eq!(stdout.lines().count(), 6, "no message dropped:\n{stdout}");
        let stderr = String::from_utf8(out.stderr.clone()).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains(
                "channel \"/bad\": 3 messages could not be decoded and are printed as raw bytes; the first: at byte"
            ),
            "{stderr}"
        );
        assert!(stderr.contains("expected a JSON document"), "{stderr}");
        if json {
            let lines = json_lines(&out);
            assert_eq!(lines[0]["data"]["i"], 0);
            assert_eq!(lines[1]["topic"], "/bad");
            assert_eq!(lines[1]["data"], serde_json::json!([0, 255, 0]));
        } else {
            assert!(stdout.contains("/bad <3 bytes>"), "{stdout}");
        }
    }
}

#[test]
fn cat_names_channels_of_encodings_without_a_decoder_once() {
    use mcapfile::{WriteOptions, Writer};
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriteOptions::default()).unwrap();
    let schema = w.add_schema("T", "ros2msg", b"int32 a").unwrap();
    let odd = w
        .add_channel(schema, "/odd", "wrong_format", &Default::default())
        .unwrap();
    let good = w
        .add_channel(0, "/good", "json", &Default::default())
        .unwrap();
    for i in 0..2u64 {
        w.write_message(odd, 0, i, i, &[1, 2, i as u8]).unwrap();
        w.write_message(good, 0, i, i, b"{}").unwrap();
    }
    let p = temp_file("unknown-encoding.mcap", &w.finish().unwrap().into_inner());
    let out = robolog().arg("cat").arg("--json").arg(&p).output().unwrap();
    // Not damage: the file is sound, only no decoder serves that encoding.
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["topic"], "/odd");
    assert_eq!(lines[0]["data"], serde_json::json!([1, 2, 0]));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [format!(
            "robolog: {}: channel \"/odd\": no decoder for message encoding \"wrong_format\" with schema encoding \"ros2msg\"; its 2 messages are printed as raw bytes",
            p.display()
        )]
    );
}

/// `time_base`, `start_utc_ns` and `end_utc_ns`: a bag's clock is UTC
/// (its times are the UTC ns), a ULog without GPS time is time since boot
/// with no UTC instants.
#[test]
fn info_json_gives_the_time_base_and_utc_instants() {
    let testdata = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
    let json_of = |rel: &str| {
        let out = robolog()
            .args(["info", "--json"])
            .arg(testdata.join(rel))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        stdout_json(&out)
    };
    let bag = json_of("rosbag/sample.bag");
    assert_eq!(bag["time_base"], "utc");
    assert_eq!(bag["start_utc_ns"], 1_600_000_000_000_000_000i64);
    assert_eq!(bag["end_utc_ns"], bag["end_ns"]);
    let ulog = json_of("ulog/example.ulg");
    assert_eq!(ulog["time_base"], "boot");
    assert_eq!(ulog["clock"], "boot");
    assert!(ulog["start_utc_ns"].is_null() && ulog["end_utc_ns"].is_null());
    assert!(ulog["start_ns"].as_i64().is_some());
}
