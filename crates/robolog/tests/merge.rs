//! Several logs merged into one output (`convert_files_to`), checked
//! against rosbags 0.11.9, whose `rosbags-convert --src A --src B ...`
//! merges its sources by time and whose `AnyReader` reads several sources
//! merged (the script `merge_rosbags.py`, run with `$ROSBAGS_PYTHON`, else
//! the checkout's `target/interop-venv`; skipped when absent):
//!
//! - four ROS 1 bags of the corpus (two of them the same recording, once
//!   bz2-compressed, so that every message of one ties with one of the
//!   other) into a ROS 2 bag folder (SQLite and MCAP storage) and ROS 2
//!   MCAP: rosbags reads from each, in order, the messages and values it
//!   reads from rosbags-convert's merge of the same bags;
//! - four ROS 2 logs (two ROS 2 MCAP files, two rosbag2 folders; two of
//!   them the same recording) into a ROS 1 bag (compared with
//!   rosbags-convert's merge into a bag), ROS 2 bag folders and ROS 2
//!   MCAP (compared with `AnyReader` over the four).
//!
//! Without Python: the merged ROS 1 bag and ROS 1 MCAP hold, in order,
//! every message of the inputs (topic, time and payload bytes, each input
//! read on its own) merged by time with ties in input order; the topic
//! filter applies to the merged stream; a topic of two types, and inputs of
//! two generations, are refused naming both files.
#![cfg(all(
    feature = "rosbag",
    feature = "ros2",
    feature = "rosbag2",
    feature = "mcap"
))]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use logcore::{LogReader, MessageFilter, ReadMode};
use robolog::Log;
use robolog::convert::{
    ConvertFileError, ConvertOptions, ConvertStats, Storage, Target, check_merge, convert_files_to,
};
use serde_json::Value as Json;

/// A new, empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("robolog-merge-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The ROS 1 bags the tests merge, when the corpus is there.
fn ros1_bags() -> Option<Vec<PathBuf>> {
    let dir = common::corpus("rosbag")?;
    Some(
        [
            "rosbagjs-example.bag",
            "roscomm-test.bag",
            "rosbagjs-example-bz2.bag",
            "embag-test.bag",
        ]
        .iter()
        .map(|n| dir.join(n))
        .collect(),
    )
}

/// The ROS 2 logs the tests merge, when the corpus is there.
fn ros2_logs() -> Option<Vec<PathBuf>> {
    let mcap = common::corpus("ros2-mcap")?;
    let bags = common::corpus("rosbag2")?;
    Some(vec![
        mcap.join("cdr_test_0.mcap"),
        bags.join("mcap/cdr_test"),
        mcap.join("wbag_0.mcap"),
        bags.join("mcap/rewriter_b"),
    ])
}

fn open_all(paths: &[PathBuf]) -> Vec<Log<'static>> {
    paths.iter().map(|p| robolog::open(p).unwrap()).collect()
}

/// `paths` (opened as `logs`) merged into `output` as `target`.
fn merge(
    logs: &[Log<'_>],
    paths: &[PathBuf],
    output: &Path,
    target: Target,
    opts: &ConvertOptions,
) -> Result<ConvertStats, ConvertFileError> {
    let inputs: Vec<(&Log<'_>, &Path)> = logs
        .iter()
        .zip(paths)
        .map(|(l, p)| (l, p.as_path()))
        .collect();
    convert_files_to(&inputs, output, target, opts, false, &mut |_| {})
}

/// The number of messages of `log`, as its summary counts them.
fn count(log: &Log<'_>) -> u64 {
    log.summary().unwrap().message_count
}

/// Runs the script: `dst` (`-` for none) of `srcs` by rosbags, and our
/// `ours`; the script's reply, `None` when Python is absent or
/// rosbags-convert refuses the sources.
fn rosbags(dst: &Path, srcs: &[PathBuf], ours: &[PathBuf]) -> Option<Json> {
    let py = common::rosbags_python()?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/merge_rosbags.py");
    let out = Command::new(py)
        .arg(script)
        .arg(dst)
        .args(srcs)
        .arg("--")
        .args(ours)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reply: Json = serde_json::from_slice(&out.stdout).unwrap();
    if let Some(why) = reply.get("skip") {
        eprintln!("note: rosbags-convert refuses the sources ({why}); not compared");
        return None;
    }
    Some(reply)
}

/// The first difference of two message lists.
fn first_difference(a: &[Json], b: &[Json]) -> String {
    if a.len() != b.len() {
        return format!("{} messages against {}", a.len(), b.len());
    }
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => format!("message {i}:\n ours   {}\n theirs {}", a[i], b[i]),
        None => "equal".into(),
    }
}

/// Asserts that rosbags read from each of `ours` (in the reply) the
/// messages, in order, of `theirs`, and returns how many.
fn same_as_theirs(reply: &Json, ours: &[PathBuf]) -> usize {
    let theirs = reply["theirs"].as_array().unwrap();
    let replies = reply["ours"].as_array().unwrap();
    assert_eq!(replies.len(), ours.len());
    for (path, r) in ours.iter().zip(replies) {
        let p = path.display();
        let msgs = r
            .as_array()
            .unwrap_or_else(|| panic!("{p}: rosbags cannot read it: {r}"));
        assert!(msgs == theirs, "{p}: {}", first_difference(msgs, theirs));
    }
    theirs.len()
}

#[test]
fn ros1_bags_merge_as_rosbags_convert_merges_them() {
    let Some(paths) = ros1_bags() else { return };
    let logs = open_all(&paths);
    let total: u64 = logs.iter().map(count).sum();
    let dir = scratch("ros1");
    let mut ours = Vec::new();
    for (name, storage) in [("sqlite3", Storage::Sqlite3), ("mcap", Storage::Mcap)] {
        let out = dir.join(format!("ours-{name}"));
        let target = Target::Rosbag2 {
            storage,
            zstd: false,
        };
        let stats = merge(&logs, &paths, &out, target, &ConvertOptions::default()).unwrap();
        assert_eq!(stats.messages, total, "{name}");
        assert!(stats.skipped.is_empty(), "{:?}", stats.skipped);
        ours.push(out);
    }
    let mcap = dir.join("ours.mcap");
    let opts = ConvertOptions {
        ros2: true,
        ..ConvertOptions::default()
    };
    let stats = merge(&logs, &paths, &mcap, Target::Mcap, &opts).unwrap();
    assert_eq!(stats.messages, total);
    ours.push(mcap);
    if let Some(reply) = rosbags(&dir.join("theirs"), &paths, &ours) {
        assert_eq!(same_as_theirs(&reply, &ours) as u64, total);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ros2_logs_merge_as_rosbags_reads_them() {
    let Some(paths) = ros2_logs() else { return };
    let logs = open_all(&paths);
    let total: u64 = logs.iter().map(count).sum();
    let dir = scratch("ros2");
    let opts = ConvertOptions::default();
    let bag = dir.join("ours.bag");
    let stats = merge(&logs, &paths, &bag, Target::Bag, &opts).unwrap();
    assert_eq!(stats.messages, total);
    assert!(stats.skipped.is_empty(), "{:?}", stats.skipped);
    let mut ours = Vec::new();
    for (name, storage) in [("sqlite3", Storage::Sqlite3), ("mcap", Storage::Mcap)] {
        let out = dir.join(format!("ours-{name}"));
        let target = Target::Rosbag2 {
            storage,
            zstd: false,
        };
        let stats = merge(&logs, &paths, &out, target, &opts).unwrap();
        assert_eq!(stats.messages, total, "{name}");
        ours.push(out);
    }
    let mcap = dir.join("ours.mcap");
    let stats = merge(&logs, &paths, &mcap, Target::Mcap, &opts).unwrap();
    assert_eq!(stats.messages, total);
    // The topics the inputs share are one channel each.
    let merged = robolog::open(&mcap).unwrap();
    let mut topics: Vec<String> = merged
        .channels()
        .unwrap()
        .into_iter()
        .map(|c| c.topic)
        .collect();
    let n = topics.len();
    topics.sort();
    topics.dedup();
    assert_eq!(topics.len(), n, "{topics:?}");
    ours.push(mcap);
    if let Some(reply) = rosbags(&dir.join("theirs.bag"), &paths, std::slice::from_ref(&bag)) {
        assert_eq!(same_as_theirs(&reply, &[bag]) as u64, total);
    }
    if let Some(reply) = rosbags(Path::new("-"), &paths, &ours) {
        assert_eq!(same_as_theirs(&reply, &ours) as u64, total);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Topic, log time and payload of each message of `log` in its order,
/// with the index `input` (for the merge of the expected lists).
fn raw(log: &Log<'_>, input: usize) -> Vec<(i64, usize, String, Vec<u8>)> {
    let topics: std::collections::HashMap<_, _> = log
        .channels()
        .unwrap()
        .into_iter()
        .map(|c| (c.id, c.topic))
        .collect();
    log.messages(&MessageFilter::all().mode(ReadMode::Strict))
        .unwrap()
        .map(|m| {
            let m = m.unwrap();
            let topic = topics[&m.channel].clone();
            (m.log_time.as_nanos(), input, topic, m.payload.to_vec())
        })
        .collect()
}

#[test]
fn ros1_bags_merge_into_one_bag_and_ros1_mcap() {
    let Some(paths) = ros1_bags() else { return };
    let logs = open_all(&paths);
    // Each input read on its own, merged by time, ties in input order
    // (a stable sort of the concatenation).
    let mut want: Vec<_> = logs
        .iter()
        .enumerate()
        .flat_map(|(i, l)| raw(l, i))
        .collect();
    want.sort_by_key(|m| m.0);
    let want: Vec<_> = want
        .into_iter()
        .map(|(t, _, topic, p)| (t, topic, p))
        .collect();
    let dir = scratch("ros1-raw");
    for (name, target) in [("out.bag", Target::Bag), ("out.mcap", Target::Mcap)] {
        let out = dir.join(name);
        let stats = merge(&logs, &paths, &out, target, &ConvertOptions::default()).unwrap();
        assert_eq!(stats.messages as usize, want.len(), "{name}");
        let merged = robolog::open(&out).unwrap();
        let got: Vec<_> = raw(&merged, 0)
            .into_iter()
            .map(|(t, _, topic, p)| (t, topic, p))
            .collect();
        assert_eq!(got.len(), want.len(), "{name}");
        if let Some(i) = got.iter().zip(&want).position(|(a, b)| a != b) {
            panic!(
                "{name}: message {i}: {:?} against {:?}",
                got[i].0, want[i].0
            );
        }
        // The recording given twice has its channels once: the
        // connections of the first input, and the other two inputs' own.
        let own: usize = [0, 1, 3]
            .iter()
            .map(|&i| logs[i].channels().unwrap().len())
            .sum();
        assert_eq!(stats.channels as usize, own, "{name}");
    }
    // ROS 1 MCAP merges too, here with a bag.
    let mixed = [dir.join("out.mcap"), paths[1].clone()];
    let mixed_logs = open_all(&mixed);
    let out = dir.join("again.bag");
    let stats = merge(
        &mixed_logs,
        &mixed,
        &out,
        Target::Bag,
        &ConvertOptions::default(),
    )
    .unwrap();
    assert_eq!(
        stats.messages,
        count(&mixed_logs[0]) + count(&mixed_logs[1])
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn topic_filter_applies_to_the_merge() {
    let Some(paths) = ros1_bags() else { return };
    let logs = open_all(&paths);
    let rosout = |l: &Log<'_>| raw(l, 0).iter().filter(|m| m.2 == "/rosout").count() as u64;
    let want: u64 = logs.iter().map(rosout).sum();
    assert!(want > 0);
    let dir = scratch("topic");
    let out = dir.join("rosout.mcap");
    let opts = ConvertOptions {
        topics: vec!["/rosout".into()],
        ..ConvertOptions::default()
    };
    let stats = merge(&logs, &paths, &out, Target::Mcap, &opts).unwrap();
    assert_eq!(stats.messages, want);
    let merged = robolog::open(&out).unwrap();
    assert!(
        merged
            .channels()
            .unwrap()
            .iter()
            .all(|c| c.topic == "/rosout")
    );
    assert_eq!(count(&merged), want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_topic_of_two_types_and_two_generations_are_refused() {
    let (Some(bags), Some(ros2)) = (common::corpus("rosbag"), ros2_logs()) else {
        return;
    };
    let dir = scratch("refused");
    let pairs = [
        (
            bags.join("swri-Float32.bag"),
            bags.join("swri-Int32.bag"),
            "topic /data",
        ),
        (
            bags.join("roscomm-test.bag"),
            ros2[0].clone(),
            "cannot share one output",
        ),
    ];
    for (a, b, what) in pairs {
        let paths = [a.clone(), b.clone()];
        let logs = open_all(&paths);
        let inputs: Vec<(&Log<'_>, &Path)> = logs
            .iter()
            .zip(&paths)
            .map(|(l, p)| (l, p.as_path()))
            .collect();
        let e = check_merge(&inputs, Target::Mcap, &ConvertOptions::default()).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, logcore::Error::InvalidArgument(_)), "{msg}");
        for p in [&a, &b] {
            assert!(msg.contains(&p.display().to_string()), "{msg}");
        }
        assert!(msg.contains(what), "{msg}");
        let out = dir.join("out.mcap");
        let e = merge(
            &logs,
            &paths,
            &out,
            Target::Mcap,
            &ConvertOptions::default(),
        )
        .unwrap_err();
        assert!(matches!(e, ConvertFileError::Convert(_)), "{e}");
        assert!(!out.exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A bag of `n` `std_msgs/Int32` messages on `/n` at seconds 1, 2, ...
/// holding `first`, `first + 1`, ...
fn int_bag(path: &Path, first: i32, n: u32) {
    use rosbag12::{Connection, RosTime, Writer, WriterOptions};
    let mut w = Writer::new(
        std::fs::File::create(path).unwrap(),
        WriterOptions::default(),
    )
    .unwrap();
    let c = w
        .add_connection(Connection::new(
            0,
            "/n",
            "std_msgs/Int32",
            "da5909fbe378aeaf85e547e830cc1bb7",
            "int32 data",
        ))
        .unwrap();
    for i in 0..n {
        let t = RosTime {
            sec: 1 + i,
            nsec: 0,
        };
        w.write(c, t, &(first + i as i32).to_le_bytes()).unwrap();
    }
    w.finish().unwrap();
}

/// Messages of equal time come in the order of the inputs, into every
/// target, whichever input is given first.
#[test]
fn ties_come_in_input_order() {
    let dir = scratch("ties");
    let (a, b) = (dir.join("a.bag"), dir.join("b.bag"));
    int_bag(&a, 100, 3);
    int_bag(&b, 200, 2);
    for (paths, want) in [
        ([a.clone(), b.clone()], [100, 200, 101, 201, 102]),
        ([b.clone(), a.clone()], [200, 100, 201, 101, 102]),
    ] {
        let logs = open_all(&paths);
        for (name, target, ros2) in [
            ("out.bag", Target::Bag, false),
            ("out.mcap", Target::Mcap, false),
            ("out2.mcap", Target::Mcap, true),
            (
                "out-folder",
                Target::Rosbag2 {
                    storage: Storage::Sqlite3,
                    zstd: false,
                },
                false,
            ),
        ] {
            let out = dir.join(name);
            let opts = ConvertOptions {
                ros2,
                ..ConvertOptions::default()
            };
            let stats = merge(&logs, &paths, &out, target, &opts).unwrap();
            assert_eq!((stats.messages, stats.channels), (5, 1), "{name}");
            let merged = robolog::open(&out).unwrap();
            let got: Vec<i32> = raw(&merged, 0)
                .iter()
                .map(|m| {
                    // ROS 1 bytes, or CDR after its 4-byte header.
                    let p = if m.3.len() == 8 { &m.3[4..] } else { &m.3[..] };
                    i32::from_le_bytes(p.try_into().unwrap())
                })
                .collect();
            assert_eq!(got, want, "{name}");
            let times: Vec<i64> = raw(&merged, 0)
                .iter()
                .map(|m| m.0 / 1_000_000_000)
                .collect();
            assert_eq!(times, [1, 1, 2, 2, 3], "{name}");
            drop(merged);
            if out.is_dir() {
                std::fs::remove_dir_all(&out).unwrap();
            } else {
                std::fs::remove_file(&out).unwrap();
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// ROS 2 bags whose topics interleave and tie (rosbag2's own test bags,
/// read with the bundled definitions) merge into ROS 2 MCAP and a ROS 2
/// bag folder with their payloads unchanged, in time order, ties in
/// input order.
#[test]
fn ros2_bags_merge_byte_for_byte() {
    let Some(dir) = common::corpus("rosbag2") else {
        return;
    };
    let paths = [dir.join("sqlite3/convert_a"), dir.join("sqlite3/convert_b")];
    let logs = open_all(&paths);
    let mut want: Vec<_> = logs
        .iter()
        .enumerate()
        .flat_map(|(i, l)| raw(l, i))
        .collect();
    want.sort_by_key(|m| m.0);
    let want: Vec<_> = want
        .into_iter()
        .map(|(t, _, topic, p)| (t, topic, p))
        .collect();
    let work = scratch("ros2-raw");
    for (name, target) in [
        ("out.mcap", Target::Mcap),
        (
            "out-folder",
            Target::Rosbag2 {
                storage: Storage::Mcap,
                zstd: false,
            },
        ),
    ] {
        let out = work.join(name);
        let stats = merge(&logs, &paths, &out, target, &ConvertOptions::default()).unwrap();
        // a_empty is in both: one channel.
        assert_eq!(stats.channels, 3, "{name}");
        let merged = robolog::open(&out).unwrap();
        let got: Vec<_> = raw(&merged, 0)
            .into_iter()
            .map(|(t, _, topic, p)| (t, topic, p))
            .collect();
        assert_eq!(got.len(), want.len(), "{name}");
        if let Some(i) = got.iter().zip(&want).position(|(a, b)| a != b) {
            panic!("{name}: message {i}: {:?} against {:?}", got[i], want[i]);
        }
    }
    let _ = std::fs::remove_dir_all(&work);
}
