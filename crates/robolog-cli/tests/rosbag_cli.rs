//! `robolog` on the ROS bag fixtures (`testdata/rosbag`, written by
//! `cargo xtask fixtures` with the rosbag12 writer): `info`, `cat --json`,
//! `bag info`, `bag reindex`, `bag fix`, and exit codes on damaged bags.

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value as Json;

fn robolog() -> Command {
    Command::cargo_bin("robolog").unwrap()
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/rosbag")
        .join(name)
}

fn tmp(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

#[test]
fn info_json_describes_every_version_and_compression() {
    for name in [
        "sample.bag",
        "sample-bz2.bag",
        "sample-lz4.bag",
        "sample-1.2.bag",
    ] {
        let out = robolog()
            .args(["info", "--json"])
            .arg(fixture(name))
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let j: Json = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["format"], "rosbag");
        assert_eq!(j["message_count"], 75, "{name}");
        assert_eq!(j["start_ns"], 1_600_000_000_000_000_000i64);
        assert_eq!(j["end_ns"], 1_600_000_002_900_000_000i64);
        let topics: Vec<&str> = j["channels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["topic"].as_str().unwrap())
            .collect();
        if name == "sample-1.2.bag" {
            assert_eq!(j["version"], "1.2");
            assert_eq!(topics, ["/chatter", "/count", "/point"]);
        } else {
            assert_eq!(j["version"], "2.0");
            assert_eq!(topics, ["/chatter", "/chatter", "/count", "/point"]);
        }
    }
}

#[test]
fn cat_json_prints_decoded_messages_in_time_order() {
    let out = robolog()
        .args(["cat", "--json", "--topic", "/point"])
        .arg(fixture("sample-lz4.bag"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let lines: Vec<Json> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 30);
    assert_eq!(lines[3]["type"], "geometry_msgs/PointStamped");
    assert_eq!(lines[3]["data"]["header"]["seq"], 3);
    assert_eq!(lines[3]["data"]["header"]["frame_id"], "map");
    assert_eq!(lines[3]["data"]["point"]["x"], 1.5);
    assert_eq!(lines[3]["data"]["point"]["z"], 2.25);
    let times: Vec<i64> = lines
        .iter()
        .map(|l| l["log_time_ns"].as_i64().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn bag_info_prints_the_rosbag_info_fields() {
    let out = robolog()
        .args(["bag", "info"])
        .arg(fixture("sample-bz2.bag"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    for want in [
        "version:      2.0",
        "duration:     2.9s",
        "start:        Sep 13 2020 12:26:40.00 (1600000000.00)",
        "messages:     75",
        "types:        geometry_msgs/PointStamped [c63aecb41bfdfd6b7e1fac37c7cbe7bf]",
        "std_msgs/Int32             [da5909fbe378aeaf85e547e830cc1bb7]",
        // rosbag info's topic row: 3 spaces, '%.1f Hz' right-aligned to
        // `10.0 Hz`, the type padded to the longest type.
        "/chatter   15 msgs @  5.0 Hz : std_msgs/String            (2 connections)",
    ] {
        assert!(text.contains(want), "missing `{want}` in\n{text}");
    }
    assert!(text.contains("compression:  bz2 ["), "{text}");
    let out = robolog()
        .args(["bag", "info", "--yaml"])
        .arg(fixture("sample.bag"))
        .output()
        .unwrap();
    let yaml = String::from_utf8(out.stdout).unwrap();
    assert!(
        yaml.contains("messages: 75\nindexed: True\ncompression: none\n"),
        "{yaml}"
    );
    // print() of a text that ends with a newline: one empty line after.
    assert!(yaml.ends_with("\n      frequency: 10.0000\n\n"), "{yaml}");
    // Several bags, separated as rosbag info does; a damaged one is
    // reported and the exit code says so.
    let out = robolog()
        .args(["bag", "info"])
        .arg(fixture("sample.bag"))
        .arg(fixture("unindexed.bag"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("\n---\n").count(), 1, "{text}");
    // No compressed chunk: the key column is len("compression") + 1.
    assert!(text.contains("version:     2.0 (unindexed)"), "{text}");
}

#[test]
fn damaged_bags_print_what_they_hold_and_exit_1() {
    let out = robolog()
        .args(["cat", "--json"])
        .arg(fixture("truncated.bag"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let n = String::from_utf8(out.stdout).unwrap().lines().count();
    assert_eq!(n, 6, "messages before the cut");
    let err = String::from_utf8(out.stderr).unwrap();
    let last = err.lines().last().unwrap();
    assert!(
        last.starts_with("robolog: ") && last.contains("truncated at byte "),
        "{err}"
    );

    let out = robolog()
        .args(["info"])
        .arg(fixture("unindexed.bag"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("at byte 13: expected an index position")
    );

    let cut = tmp("cut-header.bag");
    std::fs::write(&cut, b"#ROSBAG V2.0\nE\0\0\0").unwrap();
    let out = robolog().args(["info"]).arg(&cut).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("truncated at byte 13: expected a record header of 69 bytes"),
        "{err}"
    );

    let v11 = tmp("old-1.1.bag");
    std::fs::write(&v11, b"#ROSRECORD V1.1\n/chatter\n").unwrap();
    let out = robolog().args(["info"]).arg(&v11).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("at byte 0: ROS bag version 1.1 is not supported: this reader reads versions 1.2 and 2.x"),
        "{err}"
    );
}

#[test]
fn reindex_and_fix_write_indexed_2_0_bags() {
    // Outputs are never replaced without --force (and backups never):
    // clear what an earlier run of this test left.
    for name in [
        "reindexed.bag",
        "truncated-copy.bag",
        "truncated-copy.orig.bag",
        "fixed.bag",
    ] {
        let _ = std::fs::remove_file(tmp(name));
    }
    let out_path = tmp("reindexed.bag");
    let out = robolog()
        .args(["bag", "reindex"])
        .arg(fixture("unindexed.bag"))
        .arg("-o")
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = robolog()
        .args(["info", "--json"])
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["message_count"], 75);
    assert_eq!(j["metadata"]["indexed"], "true");

    // In place, keeping the original as NAME.orig.bag (the name without
    // its extension, as `rosbag reindex` names it).
    let copy = tmp("truncated-copy.bag");
    std::fs::copy(fixture("truncated.bag"), &copy).unwrap();
    let out = robolog()
        .args(["bag", "reindex"])
        .arg(&copy)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read(tmp("truncated-copy.orig.bag")).unwrap(),
        std::fs::read(fixture("truncated.bag")).unwrap()
    );
    let out = robolog()
        .args(["info", "--json"])
        .arg(&copy)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));

    let fixed = tmp("fixed.bag");
    let out = robolog()
        .args(["bag", "fix"])
        .arg(fixture("sample-1.2.bag"))
        .arg(&fixed)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let out = robolog()
        .args(["info", "--json"])
        .arg(&fixed)
        .output()
        .unwrap();
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["version"], "2.0");
    assert_eq!(j["message_count"], 75);
}

#[test]
fn bag_info_truncates_durations_as_rosbag_info_does() {
    // Two messages 836.9 s apart: `rosbag info` prints 836 s, not 837.
    let mut w = rosbag12::Writer::new(
        std::io::Cursor::new(Vec::new()),
        rosbag12::WriterOptions::default(),
    )
    .unwrap();
    let c = w
        .add_connection(rosbag12::Connection::new(
            0,
            "/n",
            "std_msgs/Int32",
            "da5909fbe378aeaf85e547e830cc1bb7",
            "int32 data",
        ))
        .unwrap();
    for (sec, nsec) in [(1000, 0), (1836, 900_000_000)] {
        w.write(c, rosbag12::RosTime { sec, nsec }, &1i32.to_le_bytes())
            .unwrap();
    }
    w.finish().unwrap();
    let path = tmp("long.bag");
    std::fs::write(&path, w.into_inner().into_inner()).unwrap();
    let out = robolog().args(["bag", "info"]).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\nduration:    13:56s (836s)\n"), "{text}");
}
