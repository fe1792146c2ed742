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

use logcore::{LogReader, MessageFilter, Value};
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

fn float_eq(json: &Json, x: f64) -> bool {
    match json {
        Json::String(s) => match s.as_str() {
            "NaN" => x.is_nan(),
            "Infinity" => x == f64::INFINITY,
            "-Infinity" => x == f64::NEG_INFINITY,
            _ => false,
        },
        j => j.as_f64() == Some(x),
    }
}

/// Compares a decoded value with rosbags' JSON; `Err` names the path.
fn same(ours: &Value, want: &Json, path: &str) -> Result<(), String> {
    let fail = || Err(format!("{path}: ours {ours:?}, rosbags {want}"));
    let elems = |items: Vec<Value>, want: &Json| -> Result<(), String> {
        let Json::Array(w) = want else {
            return Err(format!("{path}: ours an array, rosbags {want}"));
        };
        if w.len() != items.len() {
            return Err(format!(
                "{path}: {} elements, rosbags {}",
                items.len(),
                w.len()
            ));
        }
        for (k, (a, b)) in items.iter().zip(w).enumerate() {
            same(a, b, &format!("{path}[{k}]"))?;
        }
        Ok(())
    };
    match ours {
        Value::Struct(fields) => {
            let Json::Object(w) = want else {
                return fail();
            };
            // rosbags gives an empty type its placeholder member.
            if fields.is_empty() && w.keys().all(|k| k == "structure_needs_at_least_one_member") {
                return Ok(());
            }
            let ours_keys: Vec<&str> = fields.iter().map(|(k, _)| &**k).collect();
            let want_keys: Vec<&str> = w.keys().map(String::as_str).collect();
            if ours_keys != want_keys {
                return Err(format!(
                    "{path}: fields {ours_keys:?}, rosbags {want_keys:?}"
                ));
            }
            for (k, v) in fields {
                same(v, &w[&**k], &format!("{path}.{k}"))?;
            }
            Ok(())
        }
        Value::Bool(b) if want.as_bool() == Some(*b) => Ok(()),
        Value::I64(n) if want.as_i64() == Some(*n) => Ok(()),
        Value::U64(n) if want.as_u64() == Some(*n) => Ok(()),
        // ROS 2's `byte` is an octet: ros2cdr reads it unsigned (0-255),
        // rosbags as int8 (-128-127). The same bits: accepted when
        // rosbags' value is negative, which it never is for `uint8`.
        Value::U64(n)
            if *n <= 255
                && want
                    .as_i64()
                    .is_some_and(|w| w < 0 && w == i64::from(*n as u8 as i8)) =>
        {
            Ok(())
        }
        Value::F32(x) if float_eq(want, f64::from(*x)) => Ok(()),
        Value::F64(x) if float_eq(want, *x) => Ok(()),
        Value::String(s) if want.as_str() == Some(s) => Ok(()),
        Value::Bytes(b) => elems(b.iter().map(|&x| Value::U64(x.into())).collect(), want),
        Value::F32Array(v) => elems(v.iter().map(|&x| Value::F32(x)).collect(), want),
        Value::F64Array(v) => elems(v.iter().map(|&x| Value::F64(x)).collect(), want),
        Value::Array(v) => elems(v.clone(), want),
        _ => fail(),
    }
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
