//! `robolog convert IN... OUT` with several inputs, on corpus logs
//! (`../shared/corpus`, or `$ROBOLOG_CORPUS`; skipped when absent): the
//! merged MCAP holds every input message (the sum of what `robolog info`
//! counts per input) with log times that never go back in file order;
//! `--topic` selects from the merged stream, `--start`/`--end` too
//! (relative times from the earliest input's first message, as `robolog
//! cat` counts them in that input); a topic of two types, or a
//! ROS 1 and a ROS 2 log, is a usage error (exit 2) naming both files,
//! with nothing written; an output that is one of the inputs is refused.
//! The values and order of merged outputs are compared with rosbags in
//! the library's tests (`crates/robolog/tests/merge.rs`).

mod common;

use std::path::{Path, PathBuf};

use common::{corpus, robolog, text};
use mcapfile::{LinearReader, Record};

/// The message count `robolog info --json` gives for `file`, and for
/// `topic` alone when given.
fn count(file: &Path, topic: Option<&str>) -> u64 {
    let out = robolog()
        .args(["info", "--json"])
        .arg(file)
        .output()
        .unwrap();
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    match topic {
        None => info["message_count"].as_u64().unwrap(),
        Some(t) => info["channels"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["topic"] == t)
            .map(|c| c["count"].as_u64().unwrap())
            .sum(),
    }
}

/// The topics and log times of the Message records of the MCAP file
/// `path`, in file order.
fn messages(path: &Path) -> Vec<(String, u64)> {
    let bytes = std::fs::read(path).unwrap();
    let mut topics = std::collections::HashMap::new();
    let mut out = Vec::new();
    for r in LinearReader::new(&bytes) {
        match r.unwrap() {
            Record::Channel(c) => {
                topics.insert(c.id, c.topic.to_string());
            }
            Record::Message(m) => out.push((topics[&m.channel_id].clone(), m.log_time)),
            _ => {}
        }
    }
    out
}

/// The corpus bags merged here, the latest recording first (so that
/// their messages one input after the other would go back in time).
fn bags() -> Option<Vec<PathBuf>> {
    let dir = corpus("rosbag")?;
    Some(
        ["embag-test.bag", "roscomm-test.bag", "rosbagjs-example.bag"]
            .iter()
            .map(|n| dir.join(n))
            .collect(),
    )
}

#[test]
fn merged_mcap_holds_every_message_in_time_order() {
    let Some(bags) = bags() else { return };
    let dir = common::scratch_dir("merge", "mcap");
    let out = dir.join("merged.mcap");
    let want: u64 = bags.iter().map(|b| count(b, None)).sum();
    let run = robolog()
        .arg("convert")
        .args(&bags)
        .arg(&out)
        .output()
        .unwrap();
    let err = text(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert!(err.contains(&format!("{want} messages on ")), "{err}");
    robolog()
        .args(["mcap", "doctor"])
        .arg(&out)
        .assert()
        .success();
    let msgs = messages(&out);
    assert_eq!(msgs.len() as u64, want);
    assert_eq!(count(&out, None), want);
    if let Some(i) = msgs.windows(2).position(|w| w[1].1 < w[0].1) {
        panic!(
            "log time goes back at message {}: {:?}",
            i + 1,
            &msgs[i..i + 2]
        );
    }
    // Merged, not concatenated: the first message is the earliest
    // input's first, though that input is given last.
    let firsts: Vec<u64> = bags
        .iter()
        .map(|b| {
            let out = robolog().args(["info", "--json"]).arg(b).output().unwrap();
            let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            info["start_ns"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(msgs[0].1, *firsts.iter().min().unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn topic_filter_selects_from_the_merge() {
    let Some(bags) = bags() else { return };
    let dir = common::scratch_dir("merge", "topic");
    let out = dir.join("rosout.mcap");
    let want: u64 = bags.iter().map(|b| count(b, Some("/rosout"))).sum();
    assert!(want > 0);
    robolog()
        .arg("convert")
        .args(&bags)
        .arg(&out)
        .args(["--topic", "/rosout"])
        .assert()
        .success();
    let msgs = messages(&out);
    assert_eq!(msgs.len() as u64, want);
    assert!(msgs.iter().all(|(t, _)| t == "/rosout"));
    // A topic of one input only is known to the merge.
    let numbers = dir.join("numbers.bag");
    robolog()
        .arg("convert")
        .args(&bags)
        .arg(&numbers)
        .args(["--topic", "numbers"])
        .assert()
        .success();
    assert_eq!(count(&numbers, None), count(&bags[1], Some("numbers")));
    // A topic of none is a usage error.
    let run = robolog()
        .arg("convert")
        .args(&bags)
        .arg(dir.join("none.mcap"))
        .args(["--topic", "/nowhere"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2), "{}", text(&run.stderr));
    assert!(!dir.join("none.mcap").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_topic_of_two_types_or_two_generations_is_a_usage_error() {
    let (Some(bags), Some(ros2)) = (corpus("rosbag"), corpus("ros2-mcap")) else {
        return;
    };
    let dir = common::scratch_dir("merge", "refused");
    let cases = [
        (
            bags.join("swri-Float32.bag"),
            bags.join("swri-Int32.bag"),
            "merged.mcap",
            "topic /data is std_msgs/Float32",
        ),
        (
            bags.join("swri-Float32.bag"),
            bags.join("swri-Int32.bag"),
            "merged",
            "but std_msgs/Int32",
        ),
        (
            bags.join("roscomm-test.bag"),
            ros2.join("cdr_test_0.mcap"),
            "merged.bag",
            "is ROS 1 and",
        ),
    ];
    for (a, b, out, what) in cases {
        let out = dir.join(out);
        let run = robolog()
            .arg("convert")
            .arg(&a)
            .arg(&b)
            .arg(&out)
            .output()
            .unwrap();
        let err = text(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{err}");
        assert!(err.contains(what), "{err}");
        for p in [&a, &b] {
            assert!(err.contains(&p.display().to_string()), "{err}");
        }
        assert!(!out.exists(), "{}", out.display());
        // The same topic left out: the merge goes through.
    }
    let run = robolog()
        .arg("convert")
        .arg(bags.join("roscomm-test.bag"))
        .arg(bags.join("swri-Float32.bag"))
        .arg(bags.join("swri-Int32.bag"))
        .arg(dir.join("numbers.mcap"))
        .args(["--topic", "numbers"])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", text(&run.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_input_as_output_is_refused_and_one_path_is_a_usage_error() {
    let Some(bags) = bags() else { return };
    let dir = common::scratch_dir("merge", "inputs");
    let second = dir.join("second.bag");
    std::fs::copy(&bags[1], &second).unwrap();
    let before = std::fs::read(&second).unwrap();
    for force in [false, true] {
        let mut cmd = robolog();
        cmd.arg("convert").arg(&bags[0]).arg(&second).arg(&second);
        if force {
            cmd.arg("--force");
        }
        let run = cmd.output().unwrap();
        assert_eq!(run.status.code(), Some(2), "{}", text(&run.stderr));
        assert_eq!(std::fs::read(&second).unwrap(), before);
    }
    let run = robolog().arg("convert").arg(&bags[0]).output().unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(
        text(&run.stderr).contains("no output"),
        "{}",
        text(&run.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The number of messages `robolog cat --json FILE extra` prints.
fn cat_count(file: &Path, extra: &[&str]) -> u64 {
    let out = robolog()
        .args(["cat", "--json"])
        .arg(file)
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout).lines().count() as u64
}

#[test]
fn start_and_end_apply_to_the_merged_stream() {
    let Some(bags) = bags() else { return };
    let dir = common::scratch_dir("merge", "times");
    // Relative times count from the earliest input's first message: that
    // of the last input here (the others begin years later).
    let out = dir.join("first10s.mcap");
    robolog()
        .arg("convert")
        .args(&bags)
        .arg(&out)
        .args(["--start", "2", "--end", "10"])
        .assert()
        .success();
    let want = cat_count(&bags[2], &["--start", "2", "--end", "10"]);
    assert!(want > 0 && want < count(&bags[2], None));
    assert_eq!(count(&out, None), want);
    // An absolute start at the second input's first message keeps it and
    // the first input whole, and nothing of the third.
    let info = robolog()
        .args(["info", "--json"])
        .arg(&bags[1])
        .output()
        .unwrap();
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    let start = info["start_ns"].as_u64().unwrap();
    let at = format!("@{}.{:09}", start / 1_000_000_000, start % 1_000_000_000);
    let out = dir.join("late.bag");
    robolog()
        .arg("convert")
        .args(&bags)
        .arg(&out)
        .args(["--start", &at])
        .assert()
        .success();
    assert_eq!(
        count(&out, None),
        count(&bags[0], None) + count(&bags[1], None)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
