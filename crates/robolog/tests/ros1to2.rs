//! ROS 1 bags to ROS 2 MCAP (`ConvertOptions::ros2`), checked against
//! rosbags: for every ROS 1 bag of the corpus (`../shared/corpus/rosbag`,
//! or `$ROBOLOG_CORPUS/rosbag`; skipped when absent) and of `testdata`,
//! our MCAP read back through `robolog::open_bytes` gives, message for
//! message and bit for bit, the values rosbags reads from
//! `rosbags-convert`'s own conversion (`--dst-typestore ros2_jazzy`), and
//! rosbags reads the same values from our MCAP (the script
//! `ros1to2_rosbags.py`, run with the interop venv of rosbags 0.11.9:
//! `/work/main/target/interop-venv`, or `$ROBOLOG_INTEROP_VENV`; skipped
//! when absent). The QoS metadata is what rosbags-convert writes.
#![cfg(all(
    feature = "rosbag",
    feature = "ros2",
    feature = "rosbag2",
    feature = "mcap"
))]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use logcore::{LogReader, MessageFilter, ReadMode, Value};
use robolog::convert::{ConvertOptions, ConvertStats, to_mcap};
use serde_json::{Value as Json, json};

fn corpus() -> Option<PathBuf> {
    let dir = match std::env::var_os("ROBOLOG_CORPUS") {
        Some(d) => PathBuf::from(d).join("rosbag"),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/rosbag"),
    };
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("note: corpus skipped: no ROS 1 corpus at {}", dir.display());
        None
    }
}

fn python() -> Option<PathBuf> {
    let venv = std::env::var_os("ROBOLOG_INTEROP_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/main/target/interop-venv"));
    let py = venv.join("bin/python");
    if py.is_file() && venv.join("bin/rosbags-convert").is_file() {
        Some(py)
    } else {
        eprintln!(
            "note: rosbags comparison skipped: no venv at {}",
            venv.display()
        );
        None
    }
}

/// The ROS 1 bags to compare: the corpus's and testdata's.
fn bags() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let testdata = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/rosbag");
    for dir in corpus().into_iter().chain([testdata]) {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "bag") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A float as the test script writes it: `f:` and the float64 bits.
fn float(x: f64) -> Json {
    Json::String(format!("f:{:016x}", x.to_bits()))
}

/// A decoded value in the script's form.
fn norm(v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Bool(b) => json!(b),
        Value::I64(i) => json!(i),
        Value::U64(u) => json!(u),
        Value::F32(x) => float(f64::from(*x)),
        Value::F64(x) => float(*x),
        Value::String(s) => json!(s),
        Value::Bytes(b) => json!(b),
        Value::Array(a) => Json::Array(a.iter().map(norm).collect()),
        Value::F32Array(a) => Json::Array(a.iter().map(|x| float(f64::from(*x))).collect()),
        Value::F64Array(a) => Json::Array(a.iter().map(|x| float(*x)).collect()),
        Value::Struct(fields) => Json::Object(
            fields
                .iter()
                .filter(|(n, _)| n != "structure_needs_at_least_one_member")
                .map(|(n, v)| (n.to_string(), norm(v)))
                .collect(),
        ),
        other => panic!("unexpected value {other:?}"),
    }
}

/// `bag` converted with `ros2: true`.
fn convert(bytes: &[u8]) -> (Vec<u8>, ConvertStats) {
    let log = robolog::open_bytes(bytes).unwrap();
    let opts = ConvertOptions {
        ros2: true,
        ..ConvertOptions::default()
    };
    to_mcap(&log, Vec::new(), &opts, &mut |_| {}).unwrap()
}

/// Our MCAP's messages, decoded by robolog's registry, in the script's
/// form, and each channel's QoS metadata by topic.
fn ours(mcap: &[u8]) -> (Vec<Json>, BTreeMap<String, String>) {
    let log = robolog::open_bytes(mcap).unwrap();
    let channels = log.channels().unwrap();
    let mut qos = BTreeMap::new();
    for c in &channels {
        assert_eq!(c.message_encoding, "cdr");
        let s = c.schema.as_ref().unwrap();
        assert_eq!(s.encoding, "ros2msg");
        assert!(s.name.contains("/msg/"), "{}", s.name);
        qos.insert(c.topic.clone(), c.metadata["offered_qos_profiles"].clone());
    }
    let topics: BTreeMap<_, _> = channels.into_iter().map(|c| (c.id, c.topic)).collect();
    let filter = MessageFilter::all().mode(ReadMode::Strict);
    let msgs = log
        .messages(&filter)
        .unwrap()
        .map(|m| {
            let m = m.unwrap();
            let v = log.decode(&m).unwrap_or_else(|e| panic!("{e}"));
            json!([topics[&m.channel], m.log_time.as_nanos(), norm(&v)])
        })
        .collect();
    (msgs, qos)
}

/// Sorted by topic and time, keeping the order of equal ones.
fn sorted(mut v: Vec<Json>) -> Vec<Json> {
    v.sort_by(|a, b| (a[0].as_str(), a[1].as_i64()).cmp(&(b[0].as_str(), b[1].as_i64())));
    v
}

/// The first difference of two messages lists.
fn first_difference(a: &[Json], b: &[Json]) -> String {
    if a.len() != b.len() {
        return format!("{} messages against {}", a.len(), b.len());
    }
    let i = a.iter().zip(b).position(|(x, y)| x != y).unwrap();
    format!("message {i}:\n ours   {}\n theirs {}", a[i], b[i])
}

fn compare(py: &Path, bag: &Path, work: &Path) -> Option<usize> {
    let name = bag.file_name().unwrap().to_string_lossy().into_owned();
    let dir = work.join(&name);
    std::fs::create_dir_all(&dir).unwrap();
    let (mcap, stats) = convert(&std::fs::read(bag).unwrap());
    let path = dir.join("ours.mcap");
    std::fs::write(&path, &mcap).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ros1to2_rosbags.py");
    let out = Command::new(py)
        .arg(&script)
        .arg(bag)
        .arg(&dir)
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reply: Json = serde_json::from_slice(&out.stdout).unwrap();
    if let Some(why) = reply.get("skip") {
        eprintln!("note: {name}: rosbags-convert refuses it ({why}); not compared");
        return None;
    }
    let theirs = sorted(reply["theirs"].as_array().unwrap().clone());
    let (mine, qos) = ours(&mcap);
    let mine = sorted(mine);
    assert!(stats.skipped.is_empty(), "{name}: {:?}", stats.skipped);
    assert_eq!(mine.len() as u64, stats.messages, "{name}");
    assert!(
        mine == theirs,
        "{name}: {}",
        first_difference(&mine, &theirs)
    );
    let by_rosbags = reply["ours"]
        .as_array()
        .unwrap_or_else(|| panic!("{name}: rosbags cannot read our MCAP: {}", reply["ours"]));
    let by_rosbags = sorted(by_rosbags.clone());
    assert!(
        by_rosbags == theirs,
        "{name}, rosbags reading ours: {}",
        first_difference(&by_rosbags, &theirs)
    );
    let want: BTreeMap<String, String> = reply["qos"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(t, q)| (t.clone(), q.as_str().unwrap().to_string()))
        .collect();
    assert_eq!(qos, want, "{name}");
    Some(mine.len())
}

#[test]
fn values_equal_rosbags_convert() {
    let Some(py) = python() else { return };
    let work = std::env::temp_dir().join(format!("robolog-ros1to2-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let bags = bags();
    assert!(bags.len() >= 5, "{bags:?}");
    let (mut compared, mut messages) = (0, 0);
    for bag in &bags {
        if let Some(n) = compare(&py, bag, &work) {
            compared += 1;
            messages += n;
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    eprintln!(
        "{compared} of {} bags compared, {messages} messages",
        bags.len()
    );
    assert!(compared >= 4 && messages > 0);
}
