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
fn recognised_but_unsupported_formats_say_so() {
    for (name, bytes) in [
        ("x.bag", &b"#ROSBAG V2.0\nE\0\0\0"[..]),
        ("x.ulg", b"ULog\x01\x12\x35\x01\0\0\0\0\0\0\0\0"),
        ("x.mcap", b"\x89MCAP0\r\n\x01"),
        ("x.log", b"\x01\x00\x0e\x00CARLA_RECORDER\0\0"),
    ] {
        let p = temp_file(name, bytes);
        let out = robolog().arg("info").arg(&p).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{name}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("not supported yet"), "{name}: {err}");
        assert_eq!(err.lines().count(), 1);
    }
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
