//! `robolog convert`: bags to MCAP and back, MCAP re-chunked and filtered,
//! damaged input reported, the safe-write rules, no progress output when
//! stderr is not a terminal; ROS 2 bag folders (`--storage`) from ROS 1
//! bags, ROS 2 bags (a corpus bag's messages kept byte for byte) and ROS 2
//! MCAP files.

mod common;

use std::path::{Path, PathBuf};

use common::{corpus, robolog, testdata};
use predicates::prelude::*;

/// A new, empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch_dir("convert", name)
}

/// `robolog cat --json FILE [extra]` as text.
fn cat_json(file: &Path, extra: &[&str]) -> String {
    let out = robolog()
        .arg("cat")
        .arg("--json")
        .arg(file)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn info_json(file: &Path) -> serde_json::Value {
    let out = robolog()
        .arg("info")
        .arg("--json")
        .arg(file)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn bags_round_trip_through_mcap() {
    let dir = scratch("round-trip");
    for name in [
        "sample.bag",
        "sample-bz2.bag",
        "sample-lz4.bag",
        "sample-1.2.bag",
    ] {
        let bag = testdata(&format!("rosbag/{name}"));
        let mcap = dir.join(format!("{name}.mcap"));
        let back = dir.join(format!("{name}.bag"));
        robolog()
            .arg("convert")
            .arg(&bag)
            .arg(&mcap)
            .assert()
            .success()
            .stdout("")
            .stderr(predicate::str::contains(" messages on "));
        robolog()
            .args(["mcap", "doctor"])
            .arg(&mcap)
            .assert()
            .success();
        let (a, b) = (info_json(&bag), info_json(&mcap));
        assert_eq!(a["message_count"], b["message_count"], "{name}");
        assert_eq!(a["start_ns"], b["start_ns"], "{name}");
        assert_eq!(a["end_ns"], b["end_ns"], "{name}");
        robolog()
            .arg("convert")
            .arg(&mcap)
            .arg(&back)
            .args(["--compression", "lz4"])
            .assert()
            .success();
        let original = cat_json(&bag, &[]);
        assert!(!original.is_empty());
        assert_eq!(cat_json(&mcap, &[]), original, "{name} as MCAP");
        assert_eq!(cat_json(&back, &[]), original, "{name} back as a bag");
    }
}

#[test]
fn filters_by_topic_and_time_like_cat() {
    let dir = scratch("filter");
    let bag = testdata("rosbag/sample.bag");
    let topic = info_json(&bag)["channels"][0]["topic"]
        .as_str()
        .unwrap()
        .to_string();
    let filter = ["--topic", topic.as_str(), "--start", "0.5", "--end", "2"];
    let out = dir.join("part.mcap");
    robolog()
        .arg("convert")
        .arg(&bag)
        .arg(&out)
        .args(filter)
        .args(["--compression", "none", "--chunk-size", "100"])
        .assert()
        .success();
    // Relative times count from the input's first message, as in cat.
    let want = cat_json(&bag, &filter);
    assert!(!want.is_empty());
    assert_eq!(cat_json(&out, &[]), want);
    // A bag filtered into a bag.
    let part = dir.join("part.bag");
    robolog()
        .arg("convert")
        .arg(&bag)
        .arg(&part)
        .args(filter)
        .assert()
        .success();
    assert_eq!(cat_json(&part, &[]), want);
}

#[test]
fn mcap_files_are_rechunked_with_their_metadata() {
    let dir = scratch("mcap");
    let trace = testdata("osi/20240101T000000Z_multi_380_3200_10_fixture-zstd.mcap");
    let out = dir.join("20240101T000000Z_multi_380_3200_10_fixture-lz4.mcap");
    robolog()
        .arg("convert")
        .arg(&trace)
        .arg(&out)
        .args(["--compression", "lz4"])
        .assert()
        .success();
    robolog().arg("check").arg(&out).assert().success();
    assert_eq!(cat_json(&out, &[]), cat_json(&trace, &[]));
    // The metadata records and the profile are carried over; chunks and
    // library are the new file's.
    let kept = |file: &Path| -> Vec<(String, serde_json::Value)> {
        let info = info_json(file);
        info["metadata"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, _)| k.starts_with("metadata.") || *k == "profile")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    let carried = kept(&out);
    assert!(
        carried
            .iter()
            .any(|(k, _)| k == "metadata.net.asam.osi.trace.version")
    );
    assert_eq!(carried, kept(&trace));
}

#[test]
fn damaged_bags_are_converted_and_reported() {
    let dir = scratch("damaged");
    for name in ["truncated.bag", "unindexed.bag"] {
        let out = dir.join(format!("{name}.mcap"));
        let run = robolog()
            .arg("convert")
            .arg(testdata(&format!("rosbag/{name}")))
            .arg(&out)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(stderr.contains(name), "{stderr}");
        robolog()
            .args(["mcap", "doctor"])
            .arg(&out)
            .assert()
            .success();
        if name == "truncated.bag" {
            assert_eq!(run.status.code(), Some(1), "{stderr}");
            assert!(stderr.contains("at byte"), "{stderr}");
        }
    }
}

#[test]
fn refuses_what_it_cannot_write() {
    let dir = scratch("refuse");
    let bag = testdata("rosbag/sample.bag");
    // Unknown extension, zstd in a bag: usage errors, nothing written.
    robolog()
        .arg("convert")
        .arg(&bag)
        .arg(dir.join("out.txt"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(".mcap or .bag"));
    robolog()
        .arg("convert")
        .arg(&bag)
        .arg(dir.join("out.bag"))
        .args(["--compression", "zstd"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("zstd"));
    // An MCAP file whose channels are not ROS 1 does not become a bag.
    robolog()
        .arg("convert")
        .arg(testdata("mcap/chunked-zstd.mcap"))
        .arg(dir.join("out.bag"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("only ROS 1 channels"));
    // An existing output needs --force; the input is never the output.
    let out = dir.join("out.mcap");
    std::fs::write(&out, b"keep").unwrap();
    robolog()
        .arg("convert")
        .arg(&bag)
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--force"));
    assert_eq!(std::fs::read(&out).unwrap(), b"keep");
    robolog()
        .arg("convert")
        .arg(&bag)
        .arg(&out)
        .arg("--force")
        .assert()
        .success();
    assert_ne!(std::fs::read(&out).unwrap(), b"keep");
    let copy = dir.join("copy.bag");
    std::fs::copy(&bag, &copy).unwrap();
    robolog()
        .arg("convert")
        .arg(&copy)
        .arg(&copy)
        .arg("--force")
        .assert()
        .code(2);
    assert_eq!(std::fs::read(&copy).unwrap(), std::fs::read(&bag).unwrap());
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp") || n == "out.bag" || n == "out.txt")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn no_progress_output_when_stderr_is_not_a_terminal() {
    let dir = scratch("quiet");
    let run = robolog()
        .arg("convert")
        .arg(testdata("rosbag/sample-bz2.bag"))
        .arg(dir.join("out.mcap"))
        .output()
        .unwrap();
    assert!(run.status.success());
    assert!(run.stdout.is_empty());
    let stderr = String::from_utf8(run.stderr).unwrap();
    // Only the summary line: no bar, no control sequences.
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        !stderr.contains('\u{1b}') && !stderr.contains('\r'),
        "{stderr}"
    );
}

#[test]
fn ros2_makes_ros2_mcap_of_a_ros1_bag_and_only_of_one() {
    let dir = scratch("ros2");
    let bag = testdata("rosbag/sample.bag");
    let out = dir.join("sample.mcap");
    robolog()
        .args(["convert", "--ros2"])
        .arg(&bag)
        .arg(&out)
        .assert()
        .success();
    let info = info_json(&out);
    let types: Vec<&str> = info["channels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "std_msgs/msg/String",
            "std_msgs/msg/Int32",
            "geometry_msgs/msg/PointStamped"
        ]
    );
    assert!(
        info["channels"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["encoding"] == "cdr")
    );
    // The same messages (their values are compared with rosbags' by the
    // library's tests).
    let ros1 = cat_json(&bag, &[]);
    let ros2 = cat_json(&out, &[]);
    assert_eq!(ros1.lines().count(), ros2.lines().count());
    assert!(ros2.contains(r#""data":"hello world 0""#), "{ros2}");
    // Not for a log that is no ROS 1 bag, nor to a bag: a usage error.
    robolog()
        .args(["convert", "--ros2"])
        .arg(testdata("ulog/example.ulg"))
        .arg(dir.join("u.mcap"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--ros2 converts a ROS 1 bag"));
    robolog()
        .args(["convert", "--ros2"])
        .arg(&bag)
        .arg(dir.join("b.bag"))
        .assert()
        .code(2);
    assert!(!dir.join("u.mcap").exists() && !dir.join("b.bag").exists());
}

/// Every message of the log at `path` as our reader gives it: topic, log
/// time and payload bytes, in time order (by topic at equal times).
fn raw_messages(path: &Path) -> Vec<(String, i64, Vec<u8>)> {
    use logcore::{LogReader, MessageFilter, ReadMode};
    let log = robolog::open(path).unwrap();
    let topics: std::collections::HashMap<_, _> = log
        .channels()
        .unwrap()
        .into_iter()
        .map(|c| (c.id, c.topic))
        .collect();
    let mut out: Vec<_> = log
        .messages(&MessageFilter::all().mode(ReadMode::Strict))
        .unwrap()
        .map(|m| {
            let m = m.unwrap();
            let topic = topics[&m.channel].clone();
            (topic, m.log_time.as_nanos(), m.payload.to_vec())
        })
        .collect();
    out.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
    out
}

/// Each topic of the ROS 2 bag folder at `path`: type, serialization
/// format and the message count its metadata states.
fn bag_topics(path: &Path) -> Vec<(String, String, String, String)> {
    use logcore::LogReader;
    let log = robolog::open(path).unwrap();
    let mut out: Vec<_> = log
        .channels()
        .unwrap()
        .into_iter()
        .map(|c| {
            let count = c.metadata["metadata_message_count"].clone();
            (c.topic, c.type_name, c.message_encoding, count)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn storage_makes_a_ros2_bag_folder_and_only_a_folder() {
    let dir = scratch("storage-usage");
    let bag = testdata("rosbag/sample.bag");
    // --storage with an .mcap or .bag output: a usage error, nothing written.
    for out in ["out.mcap", "out.bag"] {
        robolog()
            .arg("convert")
            .arg(&bag)
            .arg(dir.join(out))
            .args(["--storage", "mcap"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "--storage writes a ROS 2 bag folder",
            ));
    }
    // lz4 is no rosbag2 compression; a ULog file does not become a ROS 2 bag.
    robolog()
        .arg("convert")
        .arg(&bag)
        .arg(dir.join("lz4"))
        .args(["--compression", "lz4"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("zstd only"));
    robolog()
        .arg("convert")
        .arg(testdata("ulog/example.ulg"))
        .arg(dir.join("ulog"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "a ROS 2 bag folder is written from",
        ));
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert!(left.is_empty(), "{left:?}");

    // A folder without extension: SQLite storage, the ROS 2 mapping; a
    // name with a dot given --storage: MCAP storage.
    let db3 = dir.join("sample");
    robolog()
        .arg("convert")
        .arg(&bag)
        .arg(&db3)
        .assert()
        .success();
    assert!(db3.join("sample_0.db3").is_file());
    let mcap = dir.join("sample.v2");
    robolog()
        .arg("convert")
        .arg(&bag)
        .arg(&mcap)
        .args(["--storage", "mcap", "--compression", "zstd"])
        .assert()
        .success();
    assert!(mcap.join("sample.v2_0.mcap.zstd").is_file());
    let want = [
        ("/chatter", "std_msgs/msg/String", "15"),
        ("/count", "std_msgs/msg/Int32", "30"),
        ("/point", "geometry_msgs/msg/PointStamped", "30"),
    ]
    .map(|(t, ty, n)| {
        (
            t.to_string(),
            ty.to_string(),
            "cdr".to_string(),
            n.to_string(),
        )
    });
    assert_eq!(bag_topics(&db3), want);
    assert_eq!(bag_topics(&mcap), want);
    assert_eq!(raw_messages(&db3), raw_messages(&mcap));
    // The values of the ROS 2 MCAP conversion.
    let ros2 = dir.join("sample.mcap");
    robolog()
        .args(["convert", "--ros2"])
        .arg(&bag)
        .arg(&ros2)
        .assert()
        .success();
    assert_eq!(cat_json(&db3, &[]), cat_json(&ros2, &[]));

    // It exists now: refused without --force, replaced with it (here
    // with the topic and time filters: --start is relative to the start).
    let before = std::fs::read(db3.join("metadata.yaml")).unwrap();
    robolog()
        .arg("convert")
        .arg(&bag)
        .arg(&db3)
        .args(["--topic", "/count"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--force"));
    assert_eq!(std::fs::read(db3.join("metadata.yaml")).unwrap(), before);
    robolog()
        .arg("convert")
        .arg(&bag)
        .arg(&db3)
        .args(["--topic", "/count", "--start", "1", "--force"])
        .assert()
        .success();
    let topics = bag_topics(&db3);
    assert_eq!(topics.len(), 1, "{topics:?}");
    let kept = raw_messages(&db3);
    let all: Vec<_> = raw_messages(&mcap)
        .into_iter()
        .filter(|m| m.0 == "/count" && m.1 >= 1_600_000_001_000_000_000)
        .collect();
    assert!(!all.is_empty() && kept == all);
    assert_eq!(topics[0].3, kept.len().to_string());
    // Never over the input, nor over a folder holding it.
    robolog()
        .arg("convert")
        .arg(&mcap)
        .arg(&mcap)
        .args(["--storage", "mcap", "--force"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is the input"));
    robolog()
        .arg("convert")
        .arg(mcap.join("metadata.yaml"))
        .arg(&mcap)
        .args(["--storage", "mcap", "--force"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is the input"));
    assert!(mcap.join("sample.v2_0.mcap.zstd").is_file());
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(names.is_empty(), "temporary folders left: {names:?}");
}

#[test]
fn ros2_bags_are_copied_byte_for_byte_into_another_storage() {
    let dir = scratch("storage-copy");
    for rel in [
        "rosbag2/sqlite3/cdr_test",
        "rosbag2/sqlite3/rewriter_b",
        "rosbag2/mcap/test_bag_for_seek",
    ] {
        let Some(input) = corpus(rel) else { return };
        let storage = if rel.contains("sqlite3") {
            "mcap"
        } else {
            "sqlite3"
        };
        let out = dir.join(rel.replace('/', "-"));
        robolog()
            .arg("convert")
            .arg(&input)
            .arg(&out)
            .args(["--storage", storage])
            .assert()
            .success();
        let theirs = raw_messages(&input);
        assert!(!theirs.is_empty(), "{rel}");
        assert!(raw_messages(&out) == theirs, "{rel}");
        // The same topics, types and counts in the metadata (the input's
        // counted from its messages: some of the corpus's metadata is off).
        let mut counts = std::collections::BTreeMap::new();
        for m in &theirs {
            *counts.entry(m.0.clone()).or_insert(0u64) += 1;
        }
        for (topic, _, format, count) in bag_topics(&out) {
            assert_eq!(format, "cdr", "{rel}");
            let want = counts.get(&topic).copied().unwrap_or(0);
            assert_eq!(count, want.to_string(), "{rel}: {topic}");
        }
        let ext = if storage == "mcap" { "mcap" } else { "db3" };
        let name = out.file_name().unwrap().to_string_lossy().into_owned();
        assert!(out.join(format!("{name}_0.{ext}")).is_file(), "{rel}");
    }
    // A ROS 2 MCAP file: its payloads too.
    let Some(input) = corpus("ros2-mcap/cdr_test_0.mcap") else {
        return;
    };
    let out = dir.join("from-mcap");
    robolog()
        .arg("convert")
        .arg(&input)
        .arg(&out)
        .assert()
        .success();
    assert!(raw_messages(&out) == raw_messages(&input));
    // A ROS 1 MCAP file is no ROS 2 one: refused, naming the channel.
    let ros1 = dir.join("ros1.mcap");
    robolog()
        .arg("convert")
        .arg(testdata("rosbag/sample.bag"))
        .arg(&ros1)
        .assert()
        .success();
    robolog()
        .arg("convert")
        .arg(&ros1)
        .arg(dir.join("from-ros1-mcap"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("only ROS 2 channels"));
    assert!(!dir.join("from-ros1-mcap").exists());
}

/// A ROS 2 log to a ROS 1 bag: ROS 2 MCAP (made here from a ROS 1 bag)
/// and a rosbag2 folder of the corpus (`../shared/corpus/rosbag2`,
/// skipped when absent) convert with nothing but the output's extension,
/// to the messages they hold, in ROS 1 form.
#[test]
fn ros2_logs_convert_to_ros1_bags() {
    let dir = scratch("ros2-to-bag");
    let bag = testdata("rosbag/sample.bag");
    let ros2 = dir.join("sample.mcap");
    robolog()
        .args(["convert", "--ros2"])
        .arg(&bag)
        .arg(&ros2)
        .assert()
        .success();
    let back = dir.join("back.bag");
    robolog()
        .arg("convert")
        .arg(&ros2)
        .arg(&back)
        .assert()
        .success()
        .stderr(predicate::str::contains("messages on 3 channel(s)"));
    let info = info_json(&back);
    assert_eq!(info["format"], "rosbag", "{info}");
    let types: Vec<&str> = info["channels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "std_msgs/String",
            "std_msgs/Int32",
            "geometry_msgs/PointStamped"
        ]
    );
    // The same messages as the ROS 1 bag, Header seq aside (ROS 2 has
    // none; it is 0).
    let zero_seq = |s: String| {
        s.lines()
            .map(|l| match l.find(r#""seq":"#) {
                Some(at) => {
                    let end = l[at + 6..].find(|c: char| !c.is_ascii_digit()).unwrap() + at + 6;
                    format!("{}\"seq\":0{}", &l[..at], &l[end..])
                }
                None => l.to_string(),
            })
            .collect::<Vec<_>>()
    };
    let original = zero_seq(cat_json(&bag, &[]));
    assert!(!original.is_empty());
    assert_eq!(zero_seq(cat_json(&back, &[])), original);
    // A rosbag2 folder.
    let Some(folder) = robolog_testkit::corpus("rosbag2/sqlite3/cdr_test") else {
        return;
    };
    let out = dir.join("cdr_test.bag");
    robolog()
        .arg("convert")
        .arg(&folder)
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains("7 messages on 2 channel(s)"));
    let info = info_json(&out);
    let mut types: Vec<&str> = info["channels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    types.sort_unstable();
    assert_eq!(types, ["test_msgs/Arrays", "test_msgs/BasicTypes"]);
    let text = cat_json(&out, &["--topic", "/test_topic"]);
    assert_eq!(text.lines().count(), 3);
    assert!(text.contains(r#""int32_value":"#), "{text}");
    // An existing output is refused.
    robolog()
        .arg("convert")
        .arg(&folder)
        .arg(&out)
        .assert()
        .code(2);
}

/// `--encoding`: a ULog converts to protobuf channels by default (with
/// schemas of encoding `protobuf`), to `json` channels when asked, both
/// with every message; for a bag, which keeps its own encoding, the flag is
/// a usage error (exit 2) and nothing is written.
#[test]
fn encoding_chooses_protobuf_or_json_for_ulog() {
    use logcore::LogReader;
    let dir = scratch("encoding");
    let ulog = testdata("ulog/features.ulg");
    let want = info_json(&ulog)["message_count"].as_u64().unwrap();
    for (flag, encoding) in [
        (None, "protobuf"),
        (Some("json"), "json"),
        (Some("protobuf"), "protobuf"),
    ] {
        let out = dir.join(format!("{encoding}-{}.mcap", flag.unwrap_or("default")));
        let mut cmd = robolog();
        cmd.arg("convert").arg(&ulog).arg(&out);
        if let Some(f) = flag {
            cmd.args(["--encoding", f]);
        }
        cmd.assert().success();
        let log = robolog::open(&out).unwrap();
        let channels = log.channels().unwrap();
        assert!(!channels.is_empty());
        for c in &channels {
            assert_eq!(c.message_encoding, encoding, "{}", c.topic);
            assert_eq!(
                c.schema.as_ref().unwrap().encoding,
                if encoding == "json" {
                    "jsonschema"
                } else {
                    "protobuf"
                }
            );
        }
        assert!(info_json(&out)["message_count"].as_u64().unwrap() >= want);
    }
    let bag = testdata("rosbag/sample.bag");
    robolog()
        .arg("convert")
        .arg(&bag)
        .arg(dir.join("bag.mcap"))
        .args(["--encoding", "json"])
        .assert()
        .code(2);
    assert!(!dir.join("bag.mcap").exists());
}
