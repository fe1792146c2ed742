//! Shared by the tests: where the corpus is, and the Python with rosbags.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use logcore::Value;
use serde_json::Value as Json;

/// The Python with rosbags: `$ROSBAGS_PYTHON`, else the interop venv of
/// `cargo xtask`; `None` (with a printed note) when absent.
pub(crate) fn python() -> Option<PathBuf> {
    robolog_testkit::python_with("ROSBAGS_PYTHON")
}

/// `../shared/corpus/rosbag2` next to the workspace, or
/// `$ROBOLOG_CORPUS/rosbag2`; `None` (with a printed note) when absent.
pub(crate) fn corpus() -> Option<PathBuf> {
    robolog_testkit::corpus("rosbag2")
}

/// Every bag of the corpus with the number of rows its storage holds
/// (the corpus README's table, which SQLite's own count confirms in
/// `corpus.rs`).
pub(crate) const BAGS: [(&str, u64); 13] = [
    ("sqlite3/cdr_test", 7),
    ("sqlite3/wrong_rmw_test", 7),
    ("sqlite3/rewriter_a", 150),
    ("sqlite3/convert_a", 150),
    ("sqlite3/rewriter_b", 75),
    ("sqlite3/convert_b", 75),
    ("sqlite3/test_bag_for_seek", 5),
    ("sqlite3/empty_bag", 0),
    ("sqlite3/single-file/topics_and_services.db3", 13),
    ("mcap/cdr_test", 7),
    ("mcap/rewriter_b", 75),
    ("mcap/test_bag_for_seek", 5),
    ("mcap/wrong_rmw_test", 7),
];

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
pub(crate) fn same(ours: &Value, want: &Json, path: &str) -> Result<(), String> {
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
        // builtin_interfaces' Time and Duration: one instant (duration) in
        // ns, rosbags' two fields sec * 10^9 + nanosec.
        Value::Time(_) | Value::Duration(_) => {
            let ns = match ours {
                Value::Time(t) => t.as_nanos(),
                Value::Duration(d) => *d,
                _ => 0,
            };
            let (sec, nanosec) = (want["sec"].as_i64(), want["nanosec"].as_i64());
            match (sec, nanosec) {
                (Some(s), Some(n)) if s * 1_000_000_000 + n == ns => Ok(()),
                _ => fail(),
            }
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

/// A scratch folder under the temporary folder, named by `name`, the
/// process and the thread, removed when dropped.
pub(crate) struct Scratch(pub(crate) PathBuf);

impl Scratch {
    pub(crate) fn new(name: &str) -> Self {
        let p = std::env::temp_dir().join(format!(
            "rosbag2-test-{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A std_msgs/msg/String CDR payload.
pub(crate) fn string_cdr(s: &str) -> Vec<u8> {
    let mut v = vec![0, 1, 0, 0];
    v.extend(((s.len() + 1) as u32).to_le_bytes());
    v.extend(s.as_bytes());
    v.push(0);
    v
}

/// Writes a `.db3` of the oldest schema with one `std_msgs/msg/String`
/// topic and `rows` (timestamp, data), with or without the timestamp
/// index; `wal`: its rows left in a write-ahead log (the connection is
/// returned open, so that the log stays).
pub(crate) fn make_db(
    path: &Path,
    rows: &[(i64, Vec<u8>)],
    wal: bool,
    timestamp_index: bool,
) -> rusqlite::Connection {
    let c = rusqlite::Connection::open(path).unwrap();
    if wal {
        c.pragma_update(None, "journal_mode", "wal").unwrap();
        c.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    }
    c.execute_batch(
        "CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, \
         serialization_format TEXT NOT NULL, offered_qos_profiles TEXT NOT NULL);
         CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL, \
         timestamp INTEGER NOT NULL, data BLOB NOT NULL);
         INSERT INTO topics VALUES (1, '/chatter', 'std_msgs/msg/String', 'cdr', '');",
    )
    .unwrap();
    if timestamp_index {
        c.execute_batch("CREATE INDEX timestamp_idx ON messages (timestamp ASC);")
            .unwrap();
    }
    c.execute_batch("BEGIN").unwrap();
    for (t, d) in rows {
        c.execute(
            "INSERT INTO messages (topic_id, timestamp, data) VALUES (1, ?1, ?2)",
            rusqlite::params![t, d],
        )
        .unwrap();
    }
    c.execute_batch("COMMIT").unwrap();
    c
}
