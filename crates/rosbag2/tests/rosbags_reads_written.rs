//! rosbags 0.11.9 reads the bags `Bag2Writer` writes: every corpus bag
//! of `expected/*.json` is read, written with each storage (SQLite, MCAP)
//! and compression (none, MESSAGE, FILE) into a temporary folder, and
//! read by `tests/rosbags_read.py` (rosbags' `rosbag2.Reader` and its
//! typestore, with the definitions our bag stores). The values rosbags
//! deserialises must equal those rosbags gives for the source bag
//! (`expected/*.json`, made by `rosbags_dump.py`), so the reference is
//! rosbags, not this crate. The type description hash rosbags reads for
//! each topic with messages must equal rosbags' own RIHS01 hash of the
//! type it registered from the bag's definition, or be empty for a type
//! using `char` (which rosbags hashes otherwise than ROS 2). Skipped, with a note, without the corpus or
//! the Python environment (`target/interop-venv` of the checkout, which
//! `cargo xtask ci` makes before the tests, or
//! `$ROSBAGS_PYTHON`).

mod common;

use common::python;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use logcore::{LogReader, LogWriter, MessageFilter};
use rosbag2::{
    Bag2, Bag2Writer, CompressionMode, Definitions, OpenOptions, StorageId, WriteOptions,
};
use serde_json::Value as Json;

/// A written bag, the messages rosbags gives for its source, the
/// source's (type, count) per topic, its compression, and the source.
type Written = (
    PathBuf,
    Json,
    HashMap<String, (String, u64)>,
    CompressionMode,
    PathBuf,
);

/// The `test_msgs` definitions the corpus bags store (the bags of the
/// old schema have none; `rosbags_dump.py` uses the same).
fn test_msgs(corpus: &Path) -> Definitions {
    let mut d = Definitions::empty();
    for bag in ["sqlite3/cdr_test", "mcap/rewriter_b"] {
        let b = Bag2::open(corpus.join(bag)).unwrap();
        for t in b.topics() {
            d.add(&t.type_name, &t.definition.as_ref().unwrap().text);
        }
    }
    d
}

/// Messages as (timestamp, topic, type, value as JSON text), sorted:
/// rosbags may order messages of one timestamp otherwise than their
/// rows.
fn sorted(messages: &Json) -> Vec<(i64, String, String, String)> {
    let mut v: Vec<_> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["timestamp"].as_i64().unwrap(),
                m["topic"].as_str().unwrap().to_string(),
                m["type"].as_str().unwrap().to_string(),
                m["value"].to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn rosbags_reads_our_bags_as_it_reads_the_sources() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let Some(python) = python() else {
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let scratch =
        std::env::temp_dir().join(format!("rosbag2-rosbags-written-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let defs = test_msgs(&corpus);
    let mut expected_files: Vec<_> = std::fs::read_dir(dir.join("expected"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json") && !p.ends_with("metadata.json"))
        .collect();
    expected_files.sort();
    assert_eq!(expected_files.len(), 10);
    // Every written bag with the source's expected messages and counts.
    let mut written: Vec<Written> = Vec::new();
    for file in &expected_files {
        let doc: Json = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let name = doc["bag"].as_str().unwrap().to_string();
        let opts = OpenOptions::default().with_definitions(defs.clone());
        let src = Bag2::open_with(corpus.join(&name), opts).unwrap();
        let counts: HashMap<String, (String, u64)> = src
            .summary()
            .unwrap()
            .channels
            .iter()
            .map(|c| {
                (
                    c.info.topic.clone(),
                    (c.info.type_name.clone(), c.message_count),
                )
            })
            .collect();
        for storage in [StorageId::Sqlite3, StorageId::Mcap] {
            // rewriter_a (150 messages) also split into many files.
            let split = if name == "sqlite3/rewriter_a" {
                vec![None, Some(2000)]
            } else {
                vec![None]
            };
            for (mode, split) in [
                CompressionMode::None,
                CompressionMode::Message,
                CompressionMode::File,
            ]
            .into_iter()
            .flat_map(|m| split.iter().map(move |s| (m, *s)))
            {
                let out = scratch.join(format!(
                    "{}-{storage:?}-{mode:?}{}",
                    name.replace('/', "_"),
                    if split.is_some() { "-split" } else { "" }
                ));
                let mut opts = WriteOptions::new(storage)
                    .with_compression(mode)
                    .with_custom_data("source", &name);
                if let Some(bytes) = split {
                    opts = opts.with_max_bagfile_size(bytes);
                }
                let mut w = Bag2Writer::create(&out, opts).unwrap();
                let mut ids = HashMap::new();
                for c in src.channels().unwrap() {
                    ids.insert(c.id, LogWriter::add_channel(&mut w, &c).unwrap());
                }
                for m in src.messages(&MessageFilter::all()).unwrap() {
                    let mut m = m.unwrap();
                    m.channel = ids[&m.channel];
                    LogWriter::write_message(&mut w, &m).unwrap();
                }
                w.finish().unwrap();
                if split.is_some() {
                    let files = Bag2::open(&out).unwrap().files().len();
                    assert!(files > 3, "{} files", files);
                }
                written.push((
                    out,
                    doc["messages"].clone(),
                    counts.clone(),
                    mode,
                    corpus.join(&name),
                ));
            }
        }
    }
    // Custom data that YAML must quote, read back by rosbags (ruamel).
    let custom: Vec<(&str, &str)> = vec![
        (
            "key: with colon",
            "value # with \"quotes\" and \\\nnewline\t",
        ),
        ("ünïcode", "✓ ~"),
        ("1", "true"),
        ("empty", ""),
        ("null", "- [x]"),
    ];
    let odd = scratch.join("odd");
    let mut opts = WriteOptions::new(StorageId::Mcap);
    for (k, v) in &custom {
        opts = opts.with_custom_data(*k, *v);
    }
    let mut w = Bag2Writer::create(&odd, opts).unwrap();
    let t = w
        .add_topic(
            "/odd",
            "std_msgs/msg/String",
            &rosbag2::TopicDefinition::msg("string data\n"),
            &[],
        )
        .unwrap();
    w.write(t, 5, b"\x00\x01\x00\x00\x03\x00\x00\x00hi\x00")
        .unwrap();
    w.finish().unwrap();
    // Messages written out of time order, one file of each storage
    // (rosbags, like rosbag2, reads split files one after the other, so
    // only the order within a file is the writer's to keep).
    let mut unordered = Vec::new();
    for storage in [StorageId::Sqlite3, StorageId::Mcap] {
        let out = scratch.join(format!("unordered-{storage:?}"));
        let opts = WriteOptions::new(storage);
        let mut w = Bag2Writer::create(&out, opts).unwrap();
        let def = rosbag2::TopicDefinition::msg("int32 data\n");
        let a = w.add_topic("/a", "std_msgs/msg/Int32", &def, &[]).unwrap();
        let b = w.add_topic("/b", "std_msgs/msg/Int32", &def, &[]).unwrap();
        for k in 0..20i32 {
            let t = i64::from((k * 7) % 20) * 1000;
            let mut cdr = vec![0, 1, 0, 0];
            cdr.extend_from_slice(&k.to_le_bytes());
            w.write(if k % 2 == 0 { a } else { b }, t, &cdr).unwrap();
        }
        w.finish().unwrap();
        unordered.push(out);
    }
    let result = scratch.join("rosbags.json");
    let status = std::process::Command::new(&python)
        .arg(dir.join("rosbags_read.py"))
        .arg(&result)
        .arg(&odd)
        .args(&unordered)
        .args(written.iter().map(|w| w.0.as_os_str().to_owned()))
        .args(written.iter().map(|w| {
            let mut a = std::ffi::OsString::from("meta:");
            a.push(&w.4);
            a
        }))
        .status()
        .unwrap();
    assert!(status.success(), "rosbags_read.py failed: {status}");
    let got: Json = serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
    let mut checked = 0;
    let g = &got[&odd.display().to_string()];
    assert!(g.get("error").is_none(), "{}", g["error"]);
    for (k, v) in &custom {
        assert_eq!(g["info"]["custom_data"][k].as_str(), Some(*v), "{k}");
    }
    assert_eq!(g["messages"][0]["value"]["data"], "hi");
    assert_eq!(g["messages"][0]["timestamp"], 5);
    for out in &unordered {
        let g = &got[&out.display().to_string()];
        assert!(g.get("error").is_none(), "{}", g["error"]);
        let times: Vec<i64> = g["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["timestamp"].as_i64().unwrap())
            .collect();
        let want: Vec<i64> = (0..20).map(|k| k * 1000).collect();
        assert_eq!(times, want, "{}", out.display());
        for m in g["messages"].as_array().unwrap() {
            let t = m["timestamp"].as_i64().unwrap() / 1000;
            // k * 7 = t (mod 20): k = t * 3 (mod 20).
            assert_eq!(
                m["value"]["data"].as_i64(),
                Some(t * 3 % 20),
                "{}",
                out.display()
            );
        }
    }
    let mut qos_checked = 0;
    let mut hashes_checked = 0;
    let mut chars = 0;
    for (path, want, counts, mode, source) in &written {
        let key = path.display().to_string();
        let g = &got[&key];
        assert!(g.get("error").is_none(), "{key}: rosbags: {}", g["error"]);
        let ours = sorted(&g["messages"]);
        let theirs = sorted(want);
        assert_eq!(ours.len(), theirs.len(), "{key}");
        for (a, b) in ours.iter().zip(&theirs) {
            assert_eq!(a, b, "{key}");
        }
        let info = &g["info"];
        assert_eq!(
            info["message_count"].as_u64(),
            Some(theirs.len() as u64),
            "{key}"
        );
        let (format, mode_text): (Json, Json) = match mode {
            CompressionMode::None => (Json::Null, "".into()),
            CompressionMode::Message => ("zstd".into(), "message".into()),
            CompressionMode::File => ("zstd".into(), "file".into()),
        };
        assert_eq!(info["compression_format"], format, "{key}");
        assert_eq!(info["compression_mode"], mode_text, "{key}");
        assert_eq!(info["ros_distro"], "jazzy", "{key}");
        assert!(
            info["custom_data"]["source"].is_string(),
            "{key}: {}",
            info["custom_data"]
        );
        let topics = info["topics"].as_object().unwrap();
        assert_eq!(topics.len(), counts.len(), "{key}");
        for (t, (ty, n)) in counts {
            assert_eq!(topics[t]["type"].as_str(), Some(ty.as_str()), "{key} {t}");
            assert_eq!(topics[t]["count"].as_u64(), Some(*n), "{key} {t}");
            // The type hash our writer computed, as rosbags reads it, is
            // rosbags' own hash of the type it registered from the bag;
            // for a type using `char`, which rosbags hashes otherwise than
            // ROS 2, the writer records none.
            if let Some(want) = topics[t]["rihs01"][0].as_str() {
                assert!(want.starts_with("RIHS01_"), "{key} {t}: {want}");
                let uses_char = topics[t]["rihs01"][1].as_bool().unwrap();
                let want = if uses_char { "" } else { want };
                assert_eq!(topics[t]["digest"].as_str(), Some(want), "{key} {t}");
                hashes_checked += 1;
                chars += usize::from(uses_char);
            }
        }
        // The QoS profiles as rosbags reads them from our bag and from
        // the source's metadata (a lone `.db3` has none rosbags reads).
        let src = &got[&format!("meta:{}", source.display())];
        if src.get("error").is_none() {
            for (t, v) in src["info"]["topics"].as_object().unwrap() {
                assert_eq!(topics[t]["qos"], v["qos"], "{key} {t}");
                qos_checked += 1;
            }
        }
        if let Some(t0) = theirs.first() {
            assert_eq!(info["start_time"].as_i64(), Some(t0.0), "{key}");
            // rosbags' end time is one past the last message.
            assert_eq!(
                info["end_time"].as_i64(),
                Some(theirs.last().unwrap().0 + 1),
                "{key}"
            );
        }
        checked += ours.len();
    }
    // The topics of the nine sources with a metadata.yaml, in six bags each.
    // (and the two topics of rewriter_a in its six split bags).
    assert_eq!(qos_checked, 6 * 21 + 6 * 2);
    eprintln!("{hashes_checked} topic type hashes equal rosbags' own ({chars} empty: char)");
    // test_msgs BasicTypes has a `char` field, and Arrays, Nested and
    // others hold it; std_msgs String, Empty, Strings and others none.
    assert!(chars >= 2 * 6, "{chars} types with char");
    assert!(
        hashes_checked - chars >= 6 * 5,
        "{chars} of {hashes_checked} with char"
    );
    assert!(
        hashes_checked >= 6 * 10,
        "{hashes_checked} type hashes checked"
    );
    assert_eq!(
        checked,
        6 * (7 + 150 + 150 + 75 + 75 + 5 + 13 + 7 + 75 + 5) + 6 * 150
    );
    let _ = std::fs::remove_dir_all(&scratch);
}
