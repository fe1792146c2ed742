//! ROS 2 bags through the facade: `robolog::open` takes a bag's folder, its
//! `metadata.yaml` or a lone `.db3`, and gives the messages and values of
//! the `rosbag2` crate's reader (whose values are checked against rosbags
//! there), decoded alike by the registry; the MCAP a bag converts to has
//! the same messages and values. Over every bag of the corpus
//! (`../shared/corpus/rosbag2`, or `$ROBOLOG_CORPUS/rosbag2`; skipped
//! when absent).
#![cfg(all(feature = "rosbag2", feature = "mcap", feature = "ros2"))]

mod common;

use std::path::{Path, PathBuf};

use logcore::{Format, LogReader, MessageFilter, ReadMode, Value};

/// Every message of `log`: topic, time, payload and decoded value.
fn messages(log: &dyn LogReader) -> Vec<(String, i64, Vec<u8>, Value)> {
    let topics: std::collections::HashMap<_, _> = log
        .channels()
        .unwrap()
        .into_iter()
        .map(|c| (c.id, c.topic))
        .collect();
    let filter = MessageFilter::all().mode(ReadMode::Strict);
    log.messages(&filter)
        .unwrap()
        .map(|m| {
            let m = m.unwrap();
            let v = log.decode(&m).unwrap();
            (
                topics[&m.channel].clone(),
                m.log_time.as_nanos(),
                m.payload.to_vec(),
                v,
            )
        })
        .collect()
}

/// The bags of the corpus: folders holding a `metadata.yaml`, and the
/// lone `.db3`.
fn bags(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for kind in ["sqlite3", "mcap"] {
        for e in std::fs::read_dir(root.join(kind)).unwrap().flatten() {
            let p = e.path();
            if p.join("metadata.yaml").is_file() {
                out.push(p);
            }
        }
    }
    out.push(root.join("sqlite3/single-file/topics_and_services.db3"));
    out.sort();
    out
}

#[test]
fn every_corpus_bag_opens_as_its_reader_reads_it() {
    let Some(root) = common::corpus("rosbag2") else {
        return;
    };
    let bags = bags(&root);
    assert!(bags.len() >= 13, "{bags:?}");
    let mut total = 0;
    for path in &bags {
        let name = path.display();
        let log = robolog::open(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(log.format(), Format::Rosbag2, "{name}");
        let bag = rosbag2::Bag2::open(path).unwrap();
        let ours = messages(&log);
        assert_eq!(ours, messages(&bag), "{name}");
        assert_eq!(log.size(), {
            bag.files()
                .iter()
                .map(|f| std::fs::metadata(f).unwrap().len())
                .sum::<u64>()
        });
        // The same bag through its metadata.yaml.
        if path.is_dir() {
            let by_yaml = robolog::open(path.join("metadata.yaml")).unwrap();
            assert_eq!(messages(&by_yaml).len(), ours.len(), "{name}");
        }
        total += ours.len();
    }
    // The row counts of the corpus README: 7 + 7 + 150 + 150 + 75 + 75 +
    // 5 + 0 + 13 (SQLite), 7 + 75 + 5 + 7 (MCAP).
    assert_eq!(total, 576);
}

#[test]
fn a_bag_converts_to_mcap_with_the_same_messages_and_values() {
    let Some(root) = common::corpus("rosbag2") else {
        return;
    };
    for path in bags(&root) {
        let name = path.display();
        let log = robolog::open(&path).unwrap();
        let (mcap, stats) = robolog::convert::to_mcap(
            &log,
            Vec::new(),
            &robolog::convert::ConvertOptions::default(),
            &mut |_| {},
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let out = robolog::open_bytes(&mcap).unwrap();
        let mcap_reader = out.as_mcap().unwrap();
        assert_eq!(mcap_reader.header().profile, "ros2", "{name}");
        let want = messages(&log);
        assert_eq!(stats.messages as usize, want.len(), "{name}");
        let got = messages(&out);
        assert_eq!(got, want, "{name}");
        for c in out.channels().unwrap() {
            assert!(
                c.metadata.contains_key("offered_qos_profiles"),
                "{name}: {}",
                c.topic
            );
        }
    }
}

#[test]
fn a_bag_is_refused_where_it_cannot_be_read() {
    let Some(root) = common::corpus("rosbag2") else {
        return;
    };
    let db3 = root.join("sqlite3/cdr_test/cdr_test_0.db3");
    let bytes = std::fs::read(&db3).unwrap();
    let err = robolog::open_bytes(&bytes).unwrap_err();
    assert!(matches!(err, logcore::Error::Unsupported { .. }), "{err}");
    assert!(
        err.to_string().contains("not from bytes in memory"),
        "{err}"
    );
    let err = robolog::OpenOptions::new()
        .format(Format::Mcap)
        .open(root.join("sqlite3/cdr_test"))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "at byte 0: expected an MCAP file, found a ROS 2 bag"
    );
    // A folder that is no bag is refused as any input that is no file.
    let err = robolog::open(&root).unwrap_err();
    assert_eq!(err.to_string(), "is a directory, not a regular file");
}
