//! `robolog carla ...` and `robolog info/cat` on the committed CARLA
//! fixtures (`testdata/carla/`, written by `cargo xtask fixtures`).

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value as Json;

fn robolog() -> Command {
    Command::cargo_bin("robolog").unwrap()
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/carla")
        .join(name)
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn info_prints_carla_text() {
    let out = robolog()
        .args(["carla", "info"])
        .arg(fixture("scene-0.9.13.rec"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let want = "Version: 1\nMap: Town10HD_Opt\nDate: 06/26/23 12:00:37\n\n\
        Frame 1 at 0 seconds\n \
        Create 24: vehicle.tesla.model3 (1) at (-6446, 2400, 30)\n  role_name = hero\n  color = 255,0,0\n \
        Create 25: static.prop.trafficcone01 (0) at (-6446, 2400, 30)\n \
        Create 26: sensor.other.collision (5) at (-6446, 2400, 30)\n \
        Parenting 26 with 24 (parent)\n\
        Frame 3 at 0.1 seconds\n Collision id 0 between 24 (hero)  with 25\n\
        Frame 4 at 0.15 seconds\n Destroy 25\n\
        \nFrames: 4\nDuration: 0.15 seconds\n";
    assert_eq!(stdout(&out), want);
    let all = robolog()
        .args(["carla", "info", "--show-all", "--utc-offset", "-07:00"])
        .arg(fixture("scene-0.9.10.rec"))
        .output()
        .unwrap();
    assert_eq!(all.status.code(), Some(0));
    let text = stdout(&all);
    assert!(text.contains("Date: 06/26/23 05:00:37\n"), "{text}");
    assert!(text.contains("   use_gear_auto_box = true\n"), "{text}");
    assert!(text.contains("  Id: 24 Position LowBeam\n"), "{text}");
}

#[test]
fn collisions_and_blocked() {
    let out = robolog()
        .args(["carla", "collisions", "--type1", "h", "--type2", "o"])
        .arg(fixture("scene-0.10-ue5.rec"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains(
        "       0   v o      24 vehicle.tesla.model3                    25 static.prop.trafficcone01          \n"
    ));
    assert!(stdout(&out).ends_with("Frames: 4\nDuration: 0 seconds\n"));
    let out = robolog()
        .args(["carla", "blocked", "--min-time", "0.05", "--fixed"])
        .arg(fixture("scene-0.9.13.rec"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains(
        "    Time     Id Actor                                 Duration\n       0     25 static.prop.trafficcone01                    0\n"
    ));
}

#[test]
fn info_and_cat_work_through_logcore() {
    let out = robolog()
        .args(["info", "--json"])
        .arg(fixture("scene-0.9.13.rec"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["format"], "carla-recorder");
    assert_eq!(j["clock"], "recording_start");
    assert_eq!(j["metadata"]["frames"], "4");
    assert_eq!(
        j["clock_anchor"]["unix_time_ns"],
        1_687_780_837_000_000_000i64
    );
    let out = robolog()
        .args(["cat", "--json", "--topic", "Custom140"])
        .arg(fixture("scene-0.9.13.rec"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        "{\"topic\":\"Custom140\",\"type\":\"Custom140\",\"log_time_ns\":0,\"data\":{\"id\":140,\"payload\":[102,111,114,107]}}\n"
    );
}

#[test]
fn damaged_and_wrong_input() {
    let bytes = std::fs::read(fixture("scene-0.9.13.rec")).unwrap();
    let cut = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("carla-cut.rec");
    std::fs::write(&cut, &bytes[..bytes.len() - 2]).unwrap();
    let out = robolog()
        .args(["carla", "info"])
        .arg(&cut)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains(" Destroy 25\n"),
        "readable part first"
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("carla-cut.rec: truncated at byte"), "{err}");
    let out = robolog()
        .args(["carla", "collisions", "--type1", "xy"])
        .arg(&cut)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let vel = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/vellog/sensors.vel");
    let out = robolog()
        .args(["carla", "info"])
        .arg(&vel)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("at byte 0: expected a CARLA recorder file"),
        "{err}"
    );
}
