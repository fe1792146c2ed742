//! Declared types against decoded values: for every channel of every ROS
//! bag, ROS 2 MCAP and OSI MCAP file of the corpus (`../shared/corpus`, or
//! `$ROBOLOG_CORPUS`; skipped when absent) and of the repository's test
//! data, `value_type` is what the channel's definitions declare and admits
//! every message's decoded value; protobuf and JSON channels declare none.
#![cfg(all(
    feature = "rosbag",
    feature = "mcap",
    feature = "protobuf",
    feature = "ros2"
))]

mod common;

use std::path::{Path, PathBuf};

use logcore::{LogReader, MessageFilter, ReadMode, Value, ValueType};

fn testdata(sub: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(sub)
}

/// The files ending in `ext` under `dir` (and its folders), sorted.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// What a file's channels were checked for.
#[derive(Debug, Default, PartialEq)]
struct Checked {
    /// Channels with a declared type.
    typed: usize,
    /// Channels without one (JSON).
    untyped: usize,
    /// Decoded values admitted by their channel's type.
    values: usize,
}

/// Checks every channel and message of `path`: channels of `ros1`, `cdr`
/// and `protobuf` messages must declare a type that admits every decoded
/// value (protobuf fields are nullable: a message leaves out the fields it
/// does not set); `json` channels declare none (a JSON message has the
/// members its document has, integers of either sign, so no struct type
/// fits every message), nor do channels no decoder reads.
/// Messages that do not decode (damaged files) are not checked.
fn check(path: &Path) -> Checked {
    let name = path.display();
    let log = robolog::open(path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut checked = Checked::default();
    let mut types = std::collections::HashMap::new();
    for c in log.channels().unwrap() {
        let t = log
            .value_type(c.id)
            .unwrap_or_else(|e| panic!("{name} {}: {e}", c.topic));
        match c.message_encoding.as_str() {
            "ros1" | "cdr" | "protobuf" => {
                let t = t.unwrap_or_else(|| panic!("{name} {}: no declared type", c.topic));
                assert!(
                    matches!(t, ValueType::Struct(_)),
                    "{name} {}: {t:?}",
                    c.topic
                );
                checked.typed += 1;
                types.insert(c.id, t);
            }
            "json" => {
                assert_eq!(t, None, "{name} {}", c.topic);
                checked.untyped += 1;
            }
            // No decoder (rosbag2's `wrong_format` test topic): no type.
            _ => assert_eq!(t, None, "{name} {}", c.topic),
        }
    }
    let filter = MessageFilter::all().mode(ReadMode::Lenient);
    let mut v = Value::Null;
    for m in log.messages(&filter).unwrap() {
        let Ok(m) = m else { continue };
        let Some(t) = types.get(&m.channel) else {
            continue;
        };
        if log.decode_into(&m, &mut v).is_err() {
            continue;
        }
        if let Err(e) = t.admits(&v) {
            panic!(
                "{name}: a message of channel {} at {} is not admitted by its type: {e}",
                m.channel.0,
                m.log_time.as_nanos()
            );
        }
        checked.values += 1;
    }
    eprintln!("{name}: {checked:?}");
    checked
}

#[test]
fn ros_bags_declare_the_types_of_their_messages() {
    let mut all = Vec::new();
    all.extend(files(&testdata("rosbag"), "bag"));
    if let Some(dir) = common::corpus("rosbag") {
        all.extend(files(&dir, "bag"));
    }
    let mut values = 0;
    for path in &all {
        let c = check(path);
        assert_eq!(c.untyped, 0, "{}", path.display());
        values += c.values;
    }
    // The committed sample alone has messages on every connection.
    let sample = check(&testdata("rosbag/sample.bag"));
    assert!(sample.typed > 0 && sample.values > 0, "{sample:?}");
    assert!(values >= sample.values);
}

#[test]
fn ros2_mcap_files_declare_the_types_of_their_messages() {
    let Some(dir) = common::corpus("ros2-mcap") else {
        return;
    };
    let mut values = 0;
    for path in files(&dir, "mcap") {
        let c = check(&path);
        assert_eq!(c.untyped, 0, "{}", path.display());
        values += c.values;
    }
    // cdr_test_0.mcap alone holds messages of test_msgs' BasicTypes and
    // Arrays.
    assert!(values > 0);
}

#[test]
fn osi_mcap_protobuf_channels_declare_types_that_admit_every_message() {
    let mut all = files(&testdata("osi"), "mcap");
    if let Some(dir) = common::corpus("osi-mcap") {
        all.extend(files(&dir, "mcap"));
    }
    let (mut typed, mut values) = (0, 0);
    for path in &all {
        let c = check(path);
        assert_eq!(c.untyped, 0, "{}", path.display());
        typed += c.typed;
        values += c.values;
    }
    assert!(typed > 0 && values > 0);
}

#[test]
fn json_mcap_channels_declare_no_type_even_with_a_jsonschema() {
    let mut untyped = 0;
    for path in files(&testdata("mcap"), "mcap") {
        let c = check(&path);
        assert_eq!(c.typed, 0, "{}", path.display());
        untyped += c.untyped;
    }
    assert!(untyped > 0);
}
