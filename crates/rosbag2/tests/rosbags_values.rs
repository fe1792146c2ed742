//! Decoded values against rosbags 0.11.9's CDR deserialisation of the
//! same bytes: `expected/*.json`, made by `rosbags_dump.py` (see its
//! docstring and the README) from the corpus bags. Skipped when the
//! corpus (`../shared/corpus/rosbag2`) is absent.
//!
//! Bags without stored definitions (the old schema) are read with the
//! bundled ones, whose `test_msgs` types are those `sqlite3/cdr_test` and
//! `mcap/rewriter_b` store, as the dump script gives rosbags; the test
//! also checks that the bundled `test_msgs` equal what those bags store.

mod common;

use std::path::Path;

use common::same;
use logcore::{LogReader, MessageFilter};
use rosbag2::{Bag2, Definitions};
use serde_json::Value as Json;

/// The `test_msgs` definitions the corpus bags store.
fn test_msgs(corpus: &Path) -> Definitions {
    let mut d = Definitions::empty();
    for bag in ["sqlite3/cdr_test", "mcap/rewriter_b"] {
        let b = Bag2::open(corpus.join(bag)).unwrap();
        for t in b.topics() {
            let def = t.definition.as_ref().unwrap();
            d.add(&t.type_name, &def.text);
        }
    }
    d
}

#[test]
fn values_equal_rosbags() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let expected = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expected");
    let defs = test_msgs(&corpus);
    let bundled = Definitions::bundled(rosbag2::Distro::Jazzy);
    for name in ["Arrays", "BasicTypes", "Strings", "Empty"] {
        let name = format!("test_msgs/msg/{name}");
        assert_eq!(
            bundled.get(&name).map(str::trim_end),
            defs.get(&name).map(str::trim_end),
            "{name}"
        );
    }
    let mut files: Vec<_> = std::fs::read_dir(&expected)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json") && !p.ends_with("metadata.json"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 10);
    let mut checked = 0;
    for file in files {
        let doc: Json = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let name = doc["bag"].as_str().unwrap();
        let bag = Bag2::open(corpus.join(name)).unwrap();
        assert!(bag.notices().is_empty(), "{name}: {:?}", bag.notices());
        let want = doc["messages"].as_array().unwrap();
        let msgs: Vec<_> = bag
            .messages(&MessageFilter::all())
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(msgs.len(), want.len(), "{name}");
        for (k, (m, w)) in msgs.iter().zip(want).enumerate() {
            let topic = bag.topic(m.channel).unwrap();
            assert_eq!(topic.name, w["topic"].as_str().unwrap(), "{name} #{k}");
            assert_eq!(Some(m.log_time.0), w["timestamp"].as_i64(), "{name} #{k}");
            let v = bag.decode(m).unwrap_or_else(|e| panic!("{name} #{k}: {e}"));
            if let Err(e) = same(&v, &w["value"], &format!("{name} #{k}")) {
                panic!("{e}");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 7 + 150 + 150 + 75 + 75 + 5 + 13 + 7 + 75 + 5);
}
