//! RIHS01 type description hashes against the ones rosbag2 itself
//! recorded (`../shared/corpus`; skipped when absent): every topic of the
//! corpus files that stores a `type_description_hash` (SQLite
//! `topics_and_services.db3`) or `topic_type_hash` (the ROS 2 MCAP files)
//! gets the same hash from its stored definition, and a bag written
//! without hashes gets them from its definitions (service events with
//! their `char`s included, other types using `char` excepted).

mod common;

use logcore::LogReader;
use rosbag2::{Bag2, Bag2Writer, StorageId, TopicDefinition, TopicSpec, WriteOptions};

/// (topic name, type, recorded hash, hash of the definition the reader
/// found) of every topic of `path` that records a hash.
fn recorded_and_computed(path: &std::path::Path) -> Vec<(String, String, String, Option<String>)> {
    let bag = Bag2::open(path).unwrap();
    bag.topics()
        .iter()
        .filter(|t| !t.type_description_hash.is_empty())
        .map(|t| {
            let def = t.definition.as_ref().map(|d| TopicDefinition {
                encoding: d.encoding.clone(),
                text: d.text.clone(),
            });
            let computed = def.and_then(|d| d.type_description_hash(&t.type_name));
            (
                t.name.clone(),
                t.type_name.clone(),
                t.type_description_hash.clone(),
                computed,
            )
        })
        .collect()
}

#[test]
fn hashes_equal_the_ones_rosbag2_recorded() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let mcaps = corpus.join("../ros2-mcap");
    let mut files = vec![corpus.join("sqlite3/single-file/topics_and_services.db3")];
    for name in [
        "only_topics.mcap",
        "only_services.mcap",
        "topics_and_services.mcap",
    ] {
        files.push(mcaps.join(name));
    }
    let mut checked = 0;
    let mut types = std::collections::BTreeSet::new();
    for f in &files {
        let rows = recorded_and_computed(f);
        assert!(!rows.is_empty(), "{}: no topic records a hash", f.display());
        for (topic, ty, recorded, computed) in rows {
            assert!(recorded.starts_with("RIHS01_"), "{topic}: {recorded}");
            assert_eq!(
                computed.as_deref(),
                Some(recorded.as_str()),
                "{}: topic {topic} of type {ty}",
                f.display()
            );
            types.insert(ty);
            checked += 1;
        }
    }
    // rcl_interfaces Log and ParameterEvent, rosbag2_interfaces
    // WriteSplitEvent, example_interfaces AddTwoInts_Event.
    assert_eq!(types.len(), 4, "{types:?}");
    // 5 topics in the .db3 and topics_and_services.mcap, 3 in
    // only_topics.mcap, 1 in only_services.mcap.
    assert_eq!(checked, 5 + 5 + 3 + 1, "topics checked");
}

#[test]
fn written_bags_carry_the_hashes() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let input = corpus.join("sqlite3/single-file/topics_and_services.db3");
    let bag = Bag2::open(&input).unwrap();
    for storage in [StorageId::Sqlite3, StorageId::Mcap] {
        let dir = tempfile_dir(&format!("type-hash-{storage:?}"));
        let out = dir.join("bag");
        let mut w = Bag2Writer::create(&out, WriteOptions::new(storage)).unwrap();
        for t in bag.topics() {
            let mut spec = TopicSpec::new(&t.name, &t.type_name);
            let d = t.definition.as_ref().unwrap();
            spec.definition = TopicDefinition {
                encoding: d.encoding.clone(),
                text: d.text.clone(),
            };
            // No hash given: the writer computes it.
            w.add_topic_with(spec).unwrap();
        }
        // A topic whose definition lacks a type it uses has none.
        let mut partial = TopicSpec::new("/partial", "p/msg/Outer");
        partial.definition = TopicDefinition::msg("p/Inner inner\n");
        w.add_topic_with(partial).unwrap();
        // A message type with a `char`, which rosbags hashes otherwise
        // than ROS 2, gets none from the writer, though it has one.
        let mut char_spec = TopicSpec::new("/char", "std_msgs/msg/Char");
        char_spec.definition = TopicDefinition::msg("char data\n");
        assert!(
            char_spec
                .definition
                .type_description_hash("std_msgs/msg/Char")
                .is_some()
        );
        w.add_topic_with(char_spec).unwrap();
        w.finish().unwrap();
        let back = Bag2::open(&out).unwrap();
        let md = back.metadata().unwrap();
        for t in bag.topics() {
            let written = md
                .topics
                .iter()
                .find(|m| m.name == t.name)
                .unwrap_or_else(|| panic!("{storage:?}: {} missing", t.name));
            assert_eq!(
                written.type_description_hash, t.type_description_hash,
                "{}",
                t.name
            );
            let read = back.topics().iter().find(|b| b.name == t.name).unwrap();
            assert_eq!(read.type_description_hash, t.type_description_hash);
        }
        let p = md.topics.iter().find(|m| m.name == "/partial").unwrap();
        assert_eq!(p.type_description_hash, "");
        let c = md.topics.iter().find(|m| m.name == "/char").unwrap();
        assert_eq!(c.type_description_hash, "");
        assert!(back.summary().is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// A fresh folder under the target's temporary directory.
fn tempfile_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rosbag2-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
