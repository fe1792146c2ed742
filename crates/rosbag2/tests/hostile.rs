//! Inputs that are not what rosbag2 writes, and the storage cases the
//! corpus does not have (write-ahead logs, compression, several files):
//! each is a clear error or read in full, never a panic, and the input
//! folder is never written.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use logcore::{Limits, LogReader, MessageFilter, ReadMode, Value};
use rosbag2::{Bag2, Error};

use common::{Scratch, string_cdr};

/// Writes a `.db3` of the oldest schema, without the timestamp index.
fn make_db(path: &Path, rows: &[(i64, Vec<u8>)], wal: bool) -> rusqlite::Connection {
    common::make_db(path, rows, wal, false)
}

fn metadata(files: &[&str], extra: &str) -> String {
    let mut s = String::from(
        "rosbag2_bagfile_information:\n  version: 5\n  storage_identifier: sqlite3\n  \
         relative_file_paths:\n",
    );
    for f in files {
        s.push_str(&format!("    - {f}\n"));
    }
    s.push_str(
        "  topics_with_message_count:\n    - topic_metadata:\n        name: /chatter\n        \
         type: std_msgs/msg/String\n        serialization_format: cdr\n        \
         offered_qos_profiles: \"\"\n      message_count: 0\n",
    );
    s.push_str(extra);
    s
}

fn texts(bag: &Bag2) -> Vec<(i64, String)> {
    bag.messages(&MessageFilter::all())
        .unwrap()
        .map(|m| {
            let m = m.unwrap();
            let v = bag.decode(&m).unwrap();
            let Some(Value::String(s)) = v.get("data").cloned() else {
                panic!("{v:?}");
            };
            (m.log_time.0, s)
        })
        .collect()
}

fn listing(dir: &Path) -> BTreeMap<String, (u64, std::time::SystemTime)> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                (m.len(), m.modified().unwrap()),
            )
        })
        .collect()
}

#[test]
fn a_db3_that_is_not_sqlite() {
    let s = Scratch::new("notsqlite");
    let f = s.0.join("x.db3");
    std::fs::write(&f, b"hello, not a database").unwrap();
    let e = Bag2::open(&f).unwrap_err();
    assert!(matches!(e, Error::NotSqlite { .. }), "{e}");
    let text = e.to_string();
    assert!(
        text.contains("x.db3") && text.contains("expected the SQLite header"),
        "{text}"
    );
    assert!(text.contains("68 65 6c 6c 6f"), "{text}");
    std::fs::write(&f, b"").unwrap();
    let e = Bag2::open(&f).unwrap_err();
    assert!(e.to_string().contains("found end of file"), "{e}");
    // SQLite's header, then garbage: SQLite's own error, naming the file.
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend([0xff; 200]);
    std::fs::write(&f, bytes).unwrap();
    let e = Bag2::open(&f).unwrap_err();
    assert!(matches!(e, Error::Sqlite { .. }), "{e}");
    assert!(e.to_string().contains("x.db3"), "{e}");
    // A database of another kind.
    let other = s.0.join("other.db3");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t(x)")
        .unwrap();
    let e = Bag2::open(&other).unwrap_err();
    assert!(e.to_string().contains("expected the table `topics`"), "{e}");
    // As a logcore error, the offset stays.
    let core: logcore::Error = Bag2::open(&f).map(|_| ()).unwrap_err().into();
    assert!(core.to_string().contains("x.db3"), "{core}");
}

#[test]
fn storage_paths_must_stay_in_the_bag() {
    let s = Scratch::new("paths");
    let bag = s.0.join("bag");
    std::fs::create_dir(&bag).unwrap();
    drop(make_db(
        &s.0.join("outside.db3"),
        &[(1, string_cdr("x"))],
        false,
    ));
    let mut refused = vec![
        ("../outside.db3", "contains `..`"),
        ("sub/../../outside.db3", "contains `..`"),
        ("/etc/passwd", "is absolute"),
        ("\"\"", "is empty"),
    ];
    // A drive or a leading backslash makes a path absolute on Windows
    // only; elsewhere `:` and `\\` are file-name characters.
    if cfg!(windows) {
        refused.extend([
            ("C:\\\\x.db3", "is absolute"),
            ("c:x.db3", "is absolute"),
            ("\"\\\\x.db3\"", "is absolute"),
            ("\"a\\\\..\\\\..\\\\outside.db3\"", "contains `..`"),
        ]);
    }
    for (entry, want) in refused {
        std::fs::write(bag.join("metadata.yaml"), metadata(&[entry], "")).unwrap();
        let e = Bag2::open(&bag).unwrap_err();
        assert!(matches!(e, Error::UnsafePath { .. }), "{entry}: {e}");
        assert!(e.to_string().contains(want), "{entry}: {e}");
        assert!(e.to_string().contains("metadata.yaml"), "{entry}: {e}");
    }
    // Off Windows, a name with a colon or a backslash is one file of the
    // bag folder: a missing one is named as such.
    #[cfg(unix)]
    for entry in ["c:x.db3", "C:\\\\x.db3", "\"\\\\x.db3\""] {
        std::fs::write(bag.join("metadata.yaml"), metadata(&[entry], "")).unwrap();
        let e = Bag2::open(&bag).unwrap_err();
        assert!(matches!(e, Error::MissingFile { .. }), "{entry}: {e}");
        assert!(e.to_string().contains("bag/"), "{entry}: {e}");
    }
    // A colon is fine in a relative name.
    drop(make_db(
        &bag.join("at_12:00_0.db3"),
        &[(1, string_cdr("x"))],
        false,
    ));
    std::fs::write(bag.join("metadata.yaml"), metadata(&["at_12:00_0.db3"], "")).unwrap();
    assert_eq!(texts(&Bag2::open(&bag).unwrap()).len(), 1);
    // The `files` list is checked too.
    std::fs::write(
        bag.join("metadata.yaml"),
        metadata(&[], "  files:\n    - path: ../outside.db3\n"),
    )
    .unwrap();
    let e = Bag2::open(&bag).unwrap_err();
    assert!(e.to_string().contains("(in `files`)"), "{e}");
    // A link out of the folder.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(s.0.join("outside.db3"), bag.join("link.db3")).unwrap();
        std::fs::write(bag.join("metadata.yaml"), metadata(&["link.db3"], "")).unwrap();
        let e = Bag2::open(&bag).unwrap_err();
        assert!(e.to_string().contains("outside the bag folder"), "{e}");
    }
    // A missing file is named.
    std::fs::write(bag.join("metadata.yaml"), metadata(&["gone_0.db3"], "")).unwrap();
    let e = Bag2::open(&bag).unwrap_err();
    assert!(matches!(e, Error::MissingFile { .. }), "{e}");
    assert!(e.to_string().contains("gone_0.db3") && e.to_string().contains("does not exist"));
    // An empty folder is not a bag.
    let empty = s.0.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let e = Bag2::open(&empty).unwrap_err();
    assert!(e.to_string().contains("no metadata.yaml"), "{e}");
}

#[test]
fn malformed_metadata_names_line_and_expectation() {
    let s = Scratch::new("yaml");
    for (text, want) in [
        (
            "rosbag2_bagfile_information:\n  version: 5\n   oops: 1\n",
            "at line 3, column 8 (byte 49)",
        ),
        ("rosbag2_bagfile_information: [1, 2\n", "expected"),
        (
            "rosbag2_bagfile_information:\n  version: \"5\n",
            "closing quote",
        ),
        (
            "rosbag2_bagfile_information:\n  version: 99\n",
            "from 1 to 9",
        ),
        (
            "rosbag2_bagfile_information:\n  version: 5\n  message_count: -3\n",
            "message_count`: expected an unsigned integer",
        ),
        ("just text\n", "rosbag2_bagfile_information"),
        ("a: &anchor 1\n", "anchor"),
    ] {
        let m = s.0.join("metadata.yaml");
        std::fs::write(&m, text).unwrap();
        let e = Bag2::open(&m).unwrap_err();
        assert!(matches!(e, Error::Metadata { .. }), "{text}: {e}");
        assert!(e.to_string().contains(want), "{text}: {e}");
        assert!(e.to_string().contains("metadata.yaml"), "{text}: {e}");
    }
    let m = s.0.join("metadata.yaml");
    std::fs::write(&m, [0xff, 0xfe, b'a']).unwrap();
    assert!(Bag2::open(&m).unwrap_err().to_string().contains("UTF-8"));
}

#[test]
fn a_billion_laughs_and_deep_nesting_are_refused() {
    let s = Scratch::new("laughs");
    let m = s.0.join("metadata.yaml");
    let mut laughs = String::from("rosbag2_bagfile_information:\n  a0: &a0 [lol, lol]\n");
    for i in 1..40 {
        let p = i - 1;
        laughs.push_str(&format!(
            "  a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    laughs.push_str("  version: 9\n");
    std::fs::write(&m, &laughs).unwrap();
    let e = Bag2::open(&m).unwrap_err();
    assert!(matches!(e, Error::Metadata { .. }), "{e}");
    assert!(
        e.to_string().contains(
            "at line 2, column 7 (byte 35): expected a node (anchors and aliases are not read), \
             found an anchor (`&`)"
        ),
        "{e}"
    );
    let deep = format!(
        "rosbag2_bagfile_information:\n  version: 9\n  custom_data: {{x: {}1{}}}\n",
        "[".repeat(100),
        "]".repeat(100)
    );
    std::fs::write(&m, deep).unwrap();
    let e = Bag2::open(&m).unwrap_err().to_string();
    assert!(
        e.contains("at line 3, column 81 (byte 122): expected collections nested at most 64 deep"),
        "{e}"
    );
}

#[test]
fn a_payload_over_the_limit_is_refused_naming_its_row() {
    let s = Scratch::new("blob");
    let f = s.0.join("big.db3");
    drop(make_db(
        &f,
        &[
            (1, string_cdr("small")),
            (2, vec![7u8; 5000]),
            (3, string_cdr("after")),
        ],
        false,
    ));
    let limits = Limits::default().with_max_chunk_size(1000);
    let bag = Bag2::open_with_limits(&f, limits).unwrap();
    let got: Vec<_> = bag.messages(&MessageFilter::all()).unwrap().collect();
    assert_eq!(got.len(), 2, "strict mode stops at the error");
    let e = got[1].as_ref().unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("big.db3") && text.contains("row 2 of `messages`"),
        "{text}"
    );
    assert!(
        text.contains("at most 1000 bytes") && text.contains("5000 bytes"),
        "{text}"
    );
    // Lenient mode goes on after it.
    let lenient = MessageFilter::all().mode(ReadMode::Lenient);
    let got: Vec<_> = bag.messages(&lenient).unwrap().collect();
    assert_eq!(got.len(), 3);
    assert!(got[0].is_ok() && got[1].is_err() && got[2].is_ok());
    // Within the default limit it reads.
    let bag = Bag2::open(&f).unwrap();
    assert_eq!(bag.messages(&MessageFilter::all()).unwrap().count(), 3);
}

#[test]
fn rows_in_a_write_ahead_log_are_read_and_the_folder_is_untouched() {
    let s = Scratch::new("wal");
    let src = s.0.join("src");
    let bag = s.0.join("bag");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::create_dir_all(&bag).unwrap();
    let rows: Vec<(i64, Vec<u8>)> = (0..20)
        .map(|i| (i * 10, string_cdr(&format!("m{i}"))))
        .collect();
    let writer = make_db(&src.join("w_0.db3"), &rows, true);
    // While the writer is open the rows are in the log only.
    let wal_len = std::fs::metadata(src.join("w_0.db3-wal")).unwrap().len();
    assert!(wal_len > 0);
    std::fs::copy(src.join("w_0.db3"), bag.join("w_0.db3")).unwrap();
    std::fs::copy(src.join("w_0.db3-wal"), bag.join("w_0.db3-wal")).unwrap();
    drop(writer);
    std::fs::write(bag.join("metadata.yaml"), metadata(&["w_0.db3"], "")).unwrap();
    // Read without its log (what `immutable=1` would do), the database
    // has no rows, not even its tables: they are all in the log.
    let alone = rusqlite::Connection::open_with_flags(
        format!("file:{}?immutable=1", bag.join("w_0.db3").display()),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI,
    )
    .unwrap();
    let n: i64 = alone
        .query_row("SELECT COUNT(*) FROM messages", [], |r| r.get(0))
        .unwrap_or(0);
    assert_eq!(n, 0);
    drop(alone);
    let before = listing(&bag);
    let b = Bag2::open(&bag).unwrap();
    let got = texts(&b);
    assert_eq!(got.len(), 20);
    assert_eq!(got[19], (190, "m19".to_string()));
    assert_eq!(b.summary().unwrap().message_count, 20);
    drop(b);
    assert_eq!(before, listing(&bag), "the bag folder changed");
    // A WAL-mode database without a log: read in place, nothing made
    // next to it.
    let plain = s.0.join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    drop(make_db(&plain.join("p.db3"), &rows, true));
    let before = listing(&plain);
    assert_eq!(before.len(), 1, "{before:?}");
    let b = Bag2::open(plain.join("p.db3")).unwrap();
    assert_eq!(texts(&b).len(), 20);
    drop(b);
    assert_eq!(before, listing(&plain));
}

#[test]
fn several_storage_files_merge_in_time_order() {
    let s = Scratch::new("multi");
    drop(make_db(
        &s.0.join("m_0.db3"),
        &[
            (1, string_cdr("a")),
            (5, string_cdr("c")),
            (9, string_cdr("e")),
        ],
        false,
    ));
    drop(make_db(
        &s.0.join("m_1.db3"),
        &[(3, string_cdr("b")), (7, string_cdr("d"))],
        false,
    ));
    std::fs::write(
        s.0.join("metadata.yaml"),
        metadata(&["m_0.db3", "m_1.db3"], ""),
    )
    .unwrap();
    let bag = Bag2::open(&s.0).unwrap();
    let got: Vec<String> = texts(&bag).into_iter().map(|(_, s)| s).collect();
    assert_eq!(got, ["a", "b", "c", "d", "e"]);
    assert_eq!(bag.summary().unwrap().message_count, 5);
    // The metadata said 0 messages on the topic: noted.
    assert!(
        bag.notices()[0].text.contains("counts 0 messages"),
        "{:?}",
        bag.notices()
    );
    let f = MessageFilter::all()
        .start(logcore::Timestamp(3))
        .end(logcore::Timestamp(9));
    assert_eq!(bag.messages(&f).unwrap().count(), 3);
}

#[test]
fn message_compression() {
    let s = Scratch::new("msgzstd");
    let rows: Vec<(i64, Vec<u8>)> = (0..5)
        .map(|i| {
            (
                i,
                zstd::encode_all(&string_cdr(&format!("z{i}"))[..], 3).unwrap(),
            )
        })
        .collect();
    drop(make_db(&s.0.join("c_0.db3"), &rows, false));
    std::fs::write(
        s.0.join("metadata.yaml"),
        metadata(
            &["c_0.db3"],
            "  compression_format: zstd\n  compression_mode: MESSAGE\n",
        ),
    )
    .unwrap();
    let bag = Bag2::open(&s.0).unwrap();
    assert!(bag.message_compression());
    assert_eq!(texts(&bag)[4], (4, "z4".to_string()));
    // A message that decompresses beyond the limit.
    let bomb = zstd::encode_all(&vec![0u8; 4 << 20][..], 19).unwrap();
    let b2 = s.0.join("bomb");
    std::fs::create_dir(&b2).unwrap();
    drop(make_db(&b2.join("c_0.db3"), &[(1, bomb)], false));
    std::fs::write(
        b2.join("metadata.yaml"),
        metadata(
            &["c_0.db3"],
            "  compression_format: zstd\n  compression_mode: MESSAGE\n",
        ),
    )
    .unwrap();
    let bag = Bag2::open_with_limits(&b2, Limits::default().with_max_chunk_size(1 << 20)).unwrap();
    let e = bag
        .messages(&MessageFilter::all())
        .unwrap()
        .next()
        .unwrap()
        .unwrap_err();
    assert!(e.to_string().contains("row 1 of `messages`"), "{e}");
    assert!(
        e.to_string().contains("at most 1048576 bytes uncompressed"),
        "{e}"
    );
    // An unknown compression format is refused.
    std::fs::write(
        b2.join("metadata.yaml"),
        metadata(
            &["c_0.db3"],
            "  compression_format: lz4\n  compression_mode: FILE\n",
        ),
    )
    .unwrap();
    let e = Bag2::open(&b2).unwrap_err();
    assert!(matches!(e, Error::Metadata { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("compression_format`: expected `zstd` or nothing"),
        "{e}"
    );
    assert!(e.to_string().contains("found `lz4`"), "{e}");
}

#[test]
fn file_compression_of_corpus_bags() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let s = Scratch::new("filezstd");
    for (kind, file) in [("sqlite3", "cdr_test_0.db3"), ("mcap", "cdr_test_0.mcap")] {
        let dir = s.0.join(kind);
        std::fs::create_dir_all(&dir).unwrap();
        let raw = std::fs::read(corpus.join(kind).join("cdr_test").join(file)).unwrap();
        std::fs::write(
            dir.join(format!("{file}.zstd")),
            zstd::encode_all(&raw[..], 3).unwrap(),
        )
        .unwrap();
        let md = std::fs::read_to_string(corpus.join(kind).join("cdr_test/metadata.yaml"))
            .unwrap()
            .replace(file, &format!("{file}.zstd"))
            .replace("compression_format: \"\"", "compression_format: zstd")
            .replace("compression_mode: \"\"", "compression_mode: FILE");
        std::fs::write(dir.join("metadata.yaml"), md).unwrap();
        let packed = Bag2::open(&dir).unwrap();
        let plain = Bag2::open(corpus.join(kind).join("cdr_test")).unwrap();
        let read = |b: &Bag2| -> Vec<(i64, Value)> {
            b.messages(&MessageFilter::all())
                .unwrap()
                .map(|m| {
                    let m = m.unwrap();
                    (m.log_time.0, b.decode(&m).unwrap())
                })
                .collect()
        };
        let a = read(&packed);
        assert_eq!(a.len(), 7, "{kind}");
        assert_eq!(a, read(&plain), "{kind}");
        // Bounded: a limit below the file's size refuses it.
        let e =
            Bag2::open_with_limits(&dir, Limits::default().with_max_chunk_size(1000)).unwrap_err();
        assert!(e.to_string().contains("at most 1000 bytes"), "{kind}: {e}");
    }
}

#[test]
fn a_folder_without_metadata_reads_its_storage_files() {
    let s = Scratch::new("nometa");
    drop(make_db(
        &s.0.join("x_0.db3"),
        &[(4, string_cdr("only"))],
        false,
    ));
    let bag = Bag2::open(&s.0).unwrap();
    assert!(bag.metadata().is_none());
    assert_eq!(texts(&bag), [(4, "only".to_string())]);
    assert!(bag.notices()[0].text.contains("no metadata.yaml"));
    // A topic_id the topics table lacks: an error naming the row.
    let c = rusqlite::Connection::open(s.0.join("x_0.db3")).unwrap();
    c.execute(
        "INSERT INTO messages (topic_id, timestamp, data) VALUES (9, 5, x'00')",
        [],
    )
    .unwrap();
    drop(c);
    let bag = Bag2::open(&s.0).unwrap();
    let all: Vec<_> = bag.messages(&MessageFilter::all()).unwrap().collect();
    let e = all[1].as_ref().unwrap_err();
    assert!(
        e.to_string().contains("row 2 of `messages`") && e.to_string().contains("topic_id 9"),
        "{e}"
    );
    let summary = bag.summary().unwrap();
    assert_eq!(summary.message_count, 1);
    assert!(
        summary.warnings[0].to_string().ends_with(
            "1 message of the table `messages` has topic_id 9, which no row of the table \
                 `topics` has; it is not read"
        ),
        "{:?}",
        summary.warnings
    );
}

#[test]
fn pages_with_and_without_a_timestamp_index() {
    let s = Scratch::new("pages");
    // 2000 rows on two topics, times out of insertion order with ties.
    let rows: Vec<(i64, Vec<u8>)> = (0..2000i64)
        .map(|i| ((i * 7919) % 613, string_cdr(&format!("r{i}"))))
        .collect();
    for indexed in [false, true] {
        let f = s.0.join(format!("p{indexed}.db3"));
        let c = make_db(&f, &rows, false);
        c.execute(
            "INSERT INTO topics VALUES (2, '/other', 'std_msgs/msg/String', 'cdr', '')",
            [],
        )
        .unwrap();
        c.execute("UPDATE messages SET topic_id = 2 WHERE id % 3 = 0", [])
            .unwrap();
        if indexed {
            c.execute("CREATE INDEX timestamp_idx ON messages (timestamp ASC)", [])
                .unwrap();
        }
        let want = |lo: i64, hi: i64, topic: Option<i64>| -> Vec<(i64, Vec<u8>)> {
            let mut st = c
                .prepare(
                    "SELECT timestamp, data FROM messages WHERE timestamp >= ?1 AND timestamp < ?2 \
                     AND (?3 IS NULL OR topic_id = ?3) ORDER BY timestamp, id",
                )
                .unwrap();
            st.query_map(rusqlite::params![lo, hi, topic], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect()
        };
        let bag = Bag2::open(&f).unwrap();
        let got = |f: &MessageFilter| -> Vec<(i64, Vec<u8>)> {
            bag.messages(f)
                .unwrap()
                .map(|m| {
                    let m = m.unwrap();
                    (m.log_time.0, m.payload.to_vec())
                })
                .collect()
        };
        assert_eq!(
            got(&MessageFilter::all()),
            want(i64::MIN, i64::MAX, None),
            "{indexed}"
        );
        let other = bag.topics().iter().find(|t| t.name == "/other").unwrap().id;
        let f = MessageFilter::all()
            .start(logcore::Timestamp(100))
            .end(logcore::Timestamp(400))
            .channels([other]);
        assert_eq!(got(&f), want(100, 400, Some(2)), "{indexed}");
    }
}

#[test]
fn definitions_added_from_a_folder_of_msg_files() {
    let s = Scratch::new("adddir");
    let pkg = s.0.join("defs/my_pkg/msg");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(pkg.join("Named.msg"), "string data\nmy_pkg/Inner inner\n").unwrap();
    std::fs::write(pkg.join("Inner.msg"), "uint32 n\n").unwrap();
    let bag_dir = s.0.join("bag");
    std::fs::create_dir_all(&bag_dir).unwrap();
    let c = make_db(&bag_dir.join("a_0.db3"), &[], false);
    c.execute("UPDATE topics SET type = 'my_pkg/Named'", [])
        .unwrap();
    let mut payload = string_cdr("hi");
    payload.push(0); // 7 bytes after the header: pad the uint32 to 8
    payload.extend(7u32.to_le_bytes());
    c.execute(
        "INSERT INTO messages (topic_id, timestamp, data) VALUES (1, 1, ?1)",
        [&payload],
    )
    .unwrap();
    drop(c);
    // Without the folder: raw bytes and a notice.
    let bag = Bag2::open(&bag_dir).unwrap();
    assert!(
        bag.notices()
            .iter()
            .any(|n| n.text.contains("type my_pkg/Named")),
        "{:?}",
        bag.notices()
    );
    // With it: decoded.
    let opts = rosbag2::OpenOptions::default()
        .with_definitions_dir(&s.0.join("defs"))
        .unwrap();
    let bag = Bag2::open_with(&bag_dir, opts).unwrap();
    assert_eq!(bag.notices().len(), 1, "{:?}", bag.notices());
    assert!(bag.notices()[0].text.contains("no metadata.yaml"));
    assert_eq!(
        bag.topics()[0].definition.as_ref().unwrap().source,
        rosbag2::DefinitionSource::Added
    );
    let m = bag
        .messages(&MessageFilter::all())
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let v = bag.decode(&m).unwrap();
    assert_eq!(v.get("data"), Some(&Value::String("hi".into())));
    assert_eq!(
        v.get("inner").and_then(|i| i.get("n")),
        Some(&Value::U64(7))
    );
}

#[test]
fn a_version_9_bag_with_qos_lists() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let s = Scratch::new("v9");
    std::fs::copy(
        corpus.join("mcap/rewriter_b/rewriter_b_0.mcap"),
        s.0.join("rewriter_b_0.mcap"),
    )
    .unwrap();
    let qos = "        offered_qos_profiles:\n          - history: keep_last\n            depth: 10\n\
               \x20           reliability: best_effort\n            durability: volatile\n\
               \x20           deadline:\n              sec: 1\n              nsec: 2\n\
               \x20           lifespan:\n              sec: 0\n              nsec: 0\n\
               \x20           liveliness: automatic\n            liveliness_lease_duration:\n\
               \x20             sec: 0\n              nsec: 0\n\
               \x20           avoid_ros_namespace_conventions: false\n";
    let mut md = String::from(
        "rosbag2_bagfile_information:\n  version: 9\n  storage_identifier: mcap\n  \
         duration:\n    nanoseconds: 222000000\n  starting_time:\n    \
         nanoseconds_since_epoch: 0\n  message_count: 75\n  topics_with_message_count:\n",
    );
    for (name, ty, n) in [("a_empty", "Empty", 25), ("c_strings", "Strings", 50)] {
        md.push_str(&format!(
            "    - topic_metadata:\n        name: {name}\n        type: test_msgs/msg/{ty}\n        \
             serialization_format: cdr\n{qos}        type_description_hash: RIHS01_x\n      \
             message_count: {n}\n"
        ));
    }
    md.push_str(
        "  compression_format: \"\"\n  compression_mode: \"\"\n  relative_file_paths:\n    \
         - rewriter_b_0.mcap\n  files:\n    - path: rewriter_b_0.mcap\n      starting_time:\n        \
         nanoseconds_since_epoch: 0\n      duration:\n        nanoseconds: 222000000\n      \
         message_count: 75\n  custom_data: {}\n  ros_distro: humble\n",
    );
    std::fs::write(s.0.join("metadata.yaml"), md).unwrap();
    let bag = Bag2::open(&s.0).unwrap();
    assert_eq!(bag.distro(), rosbag2::Distro::Humble);
    assert!(bag.notices().is_empty(), "{:?}", bag.notices());
    let t = &bag.topics()[1];
    assert_eq!(t.qos_profiles[0].reliability, "best_effort");
    assert_eq!(
        t.qos_profiles[0].deadline,
        rosbag2::QosTime { sec: 1, nsec: 2 }
    );
    let ch = bag.channels().unwrap();
    assert!(ch[1].metadata["offered_qos_profiles"].contains("reliability: best_effort"));
    assert_eq!(ch[1].metadata["type_description_hash"], "RIHS01_x");
    assert_eq!(bag.summary().unwrap().message_count, 75);
}

#[test]
fn idl_definitions_stored_in_the_database() {
    let s = Scratch::new("idl");
    let f = s.0.join("i.db3");
    let c = make_db(&f, &[(1, string_cdr("from idl"))], false);
    c.execute_batch(
        "CREATE TABLE message_definitions(id INTEGER PRIMARY KEY, topic_type TEXT NOT NULL, \
         encoding TEXT NOT NULL, encoded_message_definition TEXT NOT NULL, \
         type_description_hash TEXT NOT NULL);
         CREATE TABLE schema(schema_version INTEGER PRIMARY KEY, ros_distro TEXT NOT NULL);
         INSERT INTO schema VALUES (4, 'humble');",
    )
    .unwrap();
    c.execute(
        "INSERT INTO message_definitions VALUES (1, 'std_msgs/msg/String', 'ros2idl', ?1, '')",
        ["================================================================================\n\
          IDL: std_msgs/msg/String\n\
          module std_msgs {\n  module msg {\n    struct String {\n      string data;\n    };\n  };\n};\n"],
    )
    .unwrap();
    drop(c);
    let bag = Bag2::open(&f).unwrap();
    assert_eq!(bag.distro(), rosbag2::Distro::Humble);
    let d = bag.topics()[0].definition.as_ref().unwrap();
    assert_eq!(
        (d.encoding.as_str(), d.source),
        ("ros2idl", rosbag2::DefinitionSource::Bag)
    );
    assert_eq!(texts(&bag), [(1, "from idl".to_string())]);
    assert_eq!(
        bag.summary().unwrap().metadata["sqlite_schema_version"],
        "4"
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_without_blocking() {
    let s = Scratch::new("fifo");
    let f = s.0.join("pipe.db3");
    let ok = std::process::Command::new("mkfifo").arg(&f).status();
    if !ok.is_ok_and(|s| s.success()) {
        eprintln!("skipped: no mkfifo");
        return;
    }
    let e = Bag2::open(&f).unwrap_err();
    assert!(e.to_string().contains("not a regular file"), "{e}");
}
