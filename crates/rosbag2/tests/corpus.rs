//! Every bag of the corpus (`../shared/corpus/rosbag2`; skipped when
//! absent): every row of its storage files read, in time order, with
//! the counts of the corpus README and of SQLite itself, the payloads
//! equal to the rows SQLite returns, decoded values admitted by the
//! declared types, and the corpus folder left unchanged.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use logcore::{ChannelId, LogReader, MessageFilter, Timestamp};
use rosbag2::Bag2;

/// The rows of a `.db3` as SQLite gives them: (timestamp, topic name,
/// data), ordered by timestamp then id.
fn sqlite_rows(db: &Path) -> Vec<(i64, String, Vec<u8>)> {
    let uri = format!("file:{}?immutable=1", db.display());
    let c = rusqlite::Connection::open_with_flags(
        uri,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI,
    )
    .unwrap();
    let mut st = c
        .prepare(
            "SELECT m.timestamp, t.name, m.data FROM messages m JOIN topics t ON t.id = m.topic_id \
             ORDER BY m.timestamp, m.id",
        )
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Names, sizes and modification times of every file under `dir`.
fn snapshot(dir: &Path) -> BTreeMap<String, (u64, std::time::SystemTime)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            if m.is_dir() {
                stack.push(e.path());
            } else {
                out.insert(
                    e.path().display().to_string(),
                    (m.len(), m.modified().unwrap()),
                );
            }
        }
    }
    out
}

#[test]
fn every_row_in_time_order() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let before = snapshot(&corpus);
    for (name, want) in common::BAGS {
        let path = corpus.join(name);
        let bag = Bag2::open(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let summary = bag.summary().unwrap();
        assert_eq!(summary.message_count, want, "{name}: summary count");
        let msgs: Vec<_> = bag
            .messages(&MessageFilter::all())
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(msgs.len() as u64, want, "{name}: messages read");
        assert!(
            msgs.windows(2).all(|w| w[0].log_time <= w[1].log_time),
            "{name}: not in time order"
        );
        let per_channel: u64 = summary.channels.iter().map(|c| c.message_count).sum();
        assert_eq!(per_channel, want, "{name}");
        // SQLite storage: the same rows, in the same order, as SQLite
        // itself gives them.
        for file in bag.files() {
            if file.extension().is_some_and(|e| e == "db3") {
                let rows = sqlite_rows(file);
                assert_eq!(rows.len() as u64, want, "{name}: SQLite count");
                for (m, (t, topic, data)) in msgs.iter().zip(&rows) {
                    assert_eq!(m.log_time, Timestamp(*t), "{name}");
                    assert_eq!(&bag.topic(m.channel).unwrap().name, topic, "{name}");
                    assert_eq!(&*m.payload, &data[..], "{name}");
                }
            }
        }
        // Every decoded value is admitted by the declared type.
        for m in &msgs {
            let v = bag.decode(m).unwrap_or_else(|e| panic!("{name}: {e}"));
            let t = bag.value_type(m.channel).unwrap().unwrap();
            assert_eq!(t.admits(&v), Ok(()), "{name}");
        }
    }
    assert_eq!(
        before,
        snapshot(&corpus),
        "reading changed the corpus folder"
    );
}

#[test]
fn mcap_and_sqlite_copies_agree() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    for name in [
        "cdr_test",
        "rewriter_b",
        "test_bag_for_seek",
        "wrong_rmw_test",
    ] {
        let a = Bag2::open(corpus.join("sqlite3").join(name)).unwrap();
        let b = Bag2::open(corpus.join("mcap").join(name)).unwrap();
        let read = |bag: &Bag2| {
            let mut v: Vec<(i64, String, Vec<u8>)> = bag
                .messages(&MessageFilter::all())
                .unwrap()
                .map(|m| {
                    let m = m.unwrap();
                    (
                        m.log_time.0,
                        bag.topic(m.channel).unwrap().name.clone(),
                        m.payload.to_vec(),
                    )
                })
                .collect();
            v.sort();
            v
        };
        assert_eq!(read(&a), read(&b), "{name}");
    }
}

#[test]
fn filters_are_applied() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    for dir in ["sqlite3/rewriter_a", "mcap/rewriter_b", "sqlite3/cdr_test"] {
        let bag = Bag2::open(corpus.join(dir)).unwrap();
        let all: Vec<_> = bag
            .messages(&MessageFilter::all())
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let mid = all[all.len() / 2].log_time;
        let ch = all[0].channel;
        let f = MessageFilter::all().start(mid).channels([ch]);
        let got: Vec<_> = bag.messages(&f).unwrap().map(Result::unwrap).collect();
        let want: Vec<_> = all
            .iter()
            .filter(|m| m.log_time >= mid && m.channel == ch)
            .cloned()
            .collect();
        assert_eq!(got, want, "{dir}");
        let end = all[all.len() / 3].log_time;
        let got = bag
            .messages(&MessageFilter::all().end(end))
            .unwrap()
            .count();
        assert_eq!(
            got,
            all.iter().filter(|m| m.log_time < end).count(),
            "{dir}"
        );
        assert_eq!(
            bag.messages(&MessageFilter::all().channels([ChannelId(99)]))
                .unwrap()
                .count(),
            0
        );
    }
}

#[test]
fn facts_of_the_corpus_bags() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    // Serialization format `wrong_format`: reported, read raw.
    let bag = Bag2::open(corpus.join("sqlite3/wrong_rmw_test")).unwrap();
    assert!(
        bag.topics()
            .iter()
            .all(|t| t.serialization_format == "wrong_format")
    );
    assert_eq!(bag.notices().len(), 2, "{:?}", bag.notices());
    assert!(bag.notices()[0].text.contains("`wrong_format`, not `cdr`"));
    let m = bag
        .messages(&MessageFilter::all())
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    assert!(matches!(bag.decode(&m).unwrap(), logcore::Value::Bytes(b) if b == m.payload.to_vec()));
    let s = bag.summary().unwrap();
    assert_eq!(s.warnings.len(), 2);
    // Old schema, no stored definitions: the bundled store (its test_msgs
    // included) decodes its topics.
    let bag = Bag2::open(corpus.join("sqlite3/rewriter_a")).unwrap();
    assert!(bag.notices().is_empty(), "{:?}", bag.notices());
    for t in bag.topics() {
        assert!(matches!(
            t.definition.as_ref().unwrap().source,
            rosbag2::DefinitionSource::Bundled(_)
        ));
    }
    // A type with no definition in the bag, the added or the bundled
    // ones: read raw and reported.
    let dir = std::env::temp_dir().join(format!("rosbag2-undefined-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut w = rosbag2::Bag2Writer::create(
        &dir,
        rosbag2::WriteOptions::new(rosbag2::StorageId::Sqlite3),
    )
    .unwrap();
    let no_definition = rosbag2::TopicDefinition::default();
    let t = w
        .add_topic("/odd", "my_pkg/msg/Odd", &no_definition, &[])
        .unwrap();
    w.write(t, 1, &[0, 1, 0, 0, 7]).unwrap();
    w.finish().unwrap();
    let bag = Bag2::open(&dir).unwrap();
    assert_eq!(bag.notices().len(), 1, "{:?}", bag.notices());
    assert!(
        bag.notices()[0].text.contains("no definition in the bag"),
        "{:?}",
        bag.notices()
    );
    let id = bag.topics()[0].id;
    assert_eq!(bag.value_type(id).unwrap(), Some(logcore::ValueType::Bytes));
    std::fs::remove_dir_all(&dir).unwrap();
    // Definitions added take precedence over the bundled ones.
    let mut defs = rosbag2::Definitions::empty();
    let cdr = Bag2::open(corpus.join("sqlite3/cdr_test")).unwrap();
    for t in cdr.topics() {
        defs.add(&t.type_name, &t.definition.as_ref().unwrap().text);
    }
    defs.add("test_msgs/msg/Empty", "");
    let opts = rosbag2::OpenOptions::default().with_definitions(defs);
    let bag = Bag2::open_with(corpus.join("sqlite3/rewriter_a"), opts).unwrap();
    assert!(bag.notices().is_empty(), "{:?}", bag.notices());
    for t in bag.topics() {
        assert_eq!(
            t.definition.as_ref().unwrap().source,
            rosbag2::DefinitionSource::Added
        );
    }
    // A standard type of an old bag comes from the bundled store.
    let bag = Bag2::open(corpus.join("sqlite3/empty_bag")).unwrap();
    for t in bag.topics() {
        assert_eq!(
            t.definition.as_ref().unwrap().source,
            rosbag2::DefinitionSource::Bundled(rosbag2::Distro::Jazzy),
            "{}",
            t.name
        );
    }
    // `test_msgs/BasicTypes` without `/msg/` (the MCAP copy stores its
    // definition).
    let bag = Bag2::open(corpus.join("mcap/test_bag_for_seek")).unwrap();
    assert_eq!(bag.topics()[0].type_name, "test_msgs/BasicTypes");
    assert!(bag.topics()[0].definition.is_some());
    assert!(bag.notices().is_empty(), "{:?}", bag.notices());
    // Stored definitions, QoS and metadata.
    let bag = Bag2::open(corpus.join("sqlite3/cdr_test/metadata.yaml")).unwrap();
    let md = bag.metadata().unwrap();
    assert_eq!((md.version, md.message_count), (7, 7));
    for t in bag.topics() {
        assert_eq!(
            t.definition.as_ref().unwrap().source,
            rosbag2::DefinitionSource::Bag
        );
        assert_eq!(t.qos_profiles.len(), 1);
        assert_eq!(t.qos_profiles[0].history, "3");
    }
    let ch = bag.channels().unwrap();
    assert_eq!(ch[0].topic, "/array_topic");
    assert_eq!(ch[0].message_encoding, "cdr");
    assert_eq!(ch[0].schema.as_ref().unwrap().encoding, "ros2msg");
    assert!(ch[0].metadata["offered_qos_profiles"].starts_with("- history: 3"));
    assert_eq!(bag.format(), logcore::Format::Rosbag2);
    assert_eq!(bag.time_unit(), logcore::TimeUnit::Nanoseconds);
    // A lone `.db3` with service events: topics and definitions from
    // the storage, the metadata it keeps.
    let bag = Bag2::open(corpus.join("sqlite3/single-file/topics_and_services.db3")).unwrap();
    assert!(bag.metadata().is_none());
    let names: Vec<&str> = bag.topics().iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"/add_two_ints/_service_event"), "{names:?}");
    for t in bag.topics() {
        assert!(t.definition.is_some(), "{}: {:?}", t.name, bag.notices());
        assert!(t.type_description_hash.starts_with("RIHS01_"), "{}", t.name);
    }
    // Empty bag (WAL mode database).
    let bag = Bag2::open(corpus.join("sqlite3/empty_bag")).unwrap();
    assert_eq!(bag.topics().len(), 2);
    assert_eq!(bag.summary().unwrap().message_count, 0);
}

#[test]
fn storage_files_alone_and_metadata_paths() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    for (path, n) in [
        ("mcap/cdr_test/cdr_test_0.mcap", 7),
        ("mcap/rewriter_b/metadata.yaml", 75),
        ("sqlite3/rewriter_b/rewriter_b_0.db3", 75),
    ] {
        let bag = Bag2::open(corpus.join(path)).unwrap();
        assert_eq!(
            bag.messages(&MessageFilter::all()).unwrap().count(),
            n,
            "{path}"
        );
        assert_eq!(bag.files().len(), 1);
    }
    let bag = Bag2::open(corpus.join("mcap/cdr_test/cdr_test_0.mcap")).unwrap();
    assert!(bag.metadata().is_none());
    assert!(bag.topics().iter().all(|t| t.definition.is_some()));
}
