//! `Bag2Writer`: every corpus bag (`../shared/corpus/rosbag2`; skipped
//! when absent) read, written with each storage and compression mode,
//! and read back: the same topics, types, counts, timestamps and payload
//! bytes as the source, compared row by row with what SQLite itself (for
//! `.db3` sources) returns. Also: messages out of time order, splitting,
//! and output safety (existing target, drop before finish, overwrite).

mod common;

use std::path::{Path, PathBuf};

use logcore::{LogReader, LogWriter, MessageFilter};
use rosbag2::{Bag2, Bag2Writer, CompressionMode, StorageId, TopicDefinition, WriteOptions};

use common::Scratch;

/// (topic, type, timestamp, payload) of every message, in read order.
type Rows = Vec<(String, String, i64, Vec<u8>)>;

fn rows(bag: &Bag2) -> Rows {
    bag.messages(&MessageFilter::all())
        .unwrap()
        .map(|m| {
            let m = m.unwrap();
            let t = bag.topic(m.channel).unwrap();
            (
                t.name.clone(),
                t.type_name.clone(),
                m.log_time.0,
                m.payload.to_vec(),
            )
        })
        .collect()
}

/// The rows of a `.db3` as SQLite gives them, by timestamp then id.
fn sqlite_rows(db: &Path) -> Rows {
    let uri = format!("file:{}?immutable=1", db.display());
    let c = rusqlite::Connection::open_with_flags(
        uri,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI,
    )
    .unwrap();
    let mut st = c
        .prepare(
            "SELECT t.name, t.type, m.timestamp, m.data FROM messages m JOIN topics t \
             ON t.id = m.topic_id ORDER BY m.timestamp, m.id",
        )
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Copies `src` into a new bag at `dst` through `LogWriter`.
fn copy(src: &Bag2, dst: &Path, opts: WriteOptions) -> PathBuf {
    let mut w = Bag2Writer::create(dst, opts).unwrap();
    let mut ids = std::collections::HashMap::new();
    for c in src.channels().unwrap() {
        ids.insert(c.id, LogWriter::add_channel(&mut w, &c).unwrap());
    }
    for m in src.messages(&MessageFilter::all()).unwrap() {
        let mut m = m.unwrap();
        m.channel = ids[&m.channel];
        LogWriter::write_message(&mut w, &m).unwrap();
    }
    w.finish().unwrap()
}

const STORAGES: [StorageId; 2] = [StorageId::Sqlite3, StorageId::Mcap];
const MODES: [CompressionMode; 3] = [
    CompressionMode::None,
    CompressionMode::Message,
    CompressionMode::File,
];

#[test]
fn every_corpus_bag_round_trips() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let scratch = Scratch::new("corpus");
    let mut bags = 0;
    let mut messages = 0;
    for (name, count) in common::BAGS {
        let src = Bag2::open(corpus.join(name)).unwrap();
        let want = rows(&src);
        assert_eq!(want.len() as u64, count, "{name}");
        if name.starts_with("sqlite3/") {
            // The reference: SQLite's own rows of the source.
            let mut theirs = Vec::new();
            for f in src.files() {
                theirs.extend(sqlite_rows(f));
            }
            theirs.sort_by_key(|r| r.2);
            assert_eq!(theirs, want, "{name}: source rows");
        }
        for storage in STORAGES {
            for mode in MODES {
                let tag = format!("{}-{storage:?}-{mode:?}", name.replace('/', "_"));
                let dst = scratch.0.join(&tag);
                let opts = WriteOptions::new(storage)
                    .with_compression(mode)
                    .with_distro("jazzy")
                    .with_custom_data("source", name);
                let out = copy(&src, &dst, opts);
                assert_eq!(out, dst);
                let back = Bag2::open(&out).unwrap_or_else(|e| panic!("{tag}: {e}"));
                let md = back.metadata().unwrap();
                assert_eq!(md.version, 9, "{tag}");
                assert_eq!(md.storage_identifier, storage.identifier(), "{tag}");
                assert_eq!(md.message_count, count, "{tag}");
                assert_eq!(md.custom_data["source"], name, "{tag}");
                assert_eq!(md.ros_distro, "jazzy", "{tag}");
                let (format, mode_text) = match mode {
                    CompressionMode::None => ("", ""),
                    CompressionMode::Message => ("zstd", "MESSAGE"),
                    CompressionMode::File => ("zstd", "FILE"),
                };
                assert_eq!(md.compression_format, format, "{tag}");
                assert_eq!(md.compression_mode, mode_text, "{tag}");
                assert_eq!(md.files.len(), 1, "{tag}");
                let file = &md.relative_file_paths[0];
                let ext = if storage == StorageId::Mcap {
                    "mcap"
                } else {
                    "db3"
                };
                let suffix = if mode == CompressionMode::File {
                    format!(".{ext}.zstd")
                } else {
                    format!(".{ext}")
                };
                assert_eq!(*file, format!("{tag}_0{suffix}"), "{tag}");
                assert_eq!(back.message_compression(), mode == CompressionMode::Message);
                // Topics: names, types, formats, counts, QoS and hashes.
                let st: Vec<_> = src
                    .topics()
                    .iter()
                    .map(|t| (&t.name, &t.type_name, &t.serialization_format))
                    .collect();
                let bt: Vec<_> = back
                    .topics()
                    .iter()
                    .map(|t| (&t.name, &t.type_name, &t.serialization_format))
                    .collect();
                assert_eq!(st, bt, "{tag}");
                for (a, b) in src.topics().iter().zip(back.topics()) {
                    assert_eq!(a.qos_profiles.len(), b.qos_profiles.len(), "{tag}");
                    for (qa, qb) in a.qos_profiles.iter().zip(&b.qos_profiles) {
                        assert_eq!(qa.depth, qb.depth, "{tag}");
                        assert_eq!(qa.deadline, qb.deadline, "{tag}");
                        assert_eq!(qa.lifespan, qb.lifespan, "{tag}");
                    }
                    // A hash the source has is kept; without one, the
                    // writer computes it from the definition (none for a
                    // message type using `char`, see the writer's docs).
                    let want = match (&a.definition, a.serialization_format.as_str()) {
                        (Some(d), "cdr") if a.type_description_hash.is_empty() => {
                            let t = ros2cdr::MessageType::parse(
                                &rosbag2::interfaces::full_name(&a.type_name),
                                &d.text,
                            )
                            .unwrap();
                            if t.uses_char() {
                                String::new()
                            } else {
                                t.type_description_hash()
                            }
                        }
                        _ => a.type_description_hash.clone(),
                    };
                    assert_eq!(b.type_description_hash, want, "{tag} {}", a.name);
                    // The definition the source was decoded with is stored.
                    // (A topic that is not CDR is read without one.)
                    if let (Some(d), "cdr") = (&a.definition, a.serialization_format.as_str()) {
                        let bd = b
                            .definition
                            .as_ref()
                            .unwrap_or_else(|| panic!("{tag} {}: {:?}", b.name, back.notices()));
                        assert_eq!(d.text, bd.text, "{tag}");
                        assert_eq!(bd.source, rosbag2::DefinitionSource::Bag, "{tag}");
                    }
                }
                let ss = src.summary().unwrap();
                let bs = back.summary().unwrap();
                for (a, b) in ss.channels.iter().zip(&bs.channels) {
                    assert_eq!(a.message_count, b.message_count, "{tag} {}", a.info.topic);
                    if a.message_count > 0 {
                        assert_eq!((a.start, a.end), (b.start, b.end), "{tag}");
                    }
                    assert_eq!(
                        b.info.metadata.get("metadata_message_count"),
                        Some(&a.message_count.to_string())
                    );
                }
                assert!(
                    back.notices().iter().all(|n| !n.text.contains("counts")),
                    "{tag}: {:?}",
                    back.notices()
                );
                assert_eq!(rows(&back), want, "{tag}");
                if storage == StorageId::Sqlite3 && mode != CompressionMode::File {
                    let written = sqlite_rows(&out.join(file));
                    if mode == CompressionMode::None {
                        assert_eq!(written, want, "{tag}: SQLite's rows of our file");
                    } else {
                        assert_eq!(written.len(), want.len(), "{tag}");
                    }
                }
                // No temporary folder is left beside it.
                let left: Vec<_> = std::fs::read_dir(&scratch.0)
                    .unwrap()
                    .filter_map(|e| e.ok())
                    .filter(|e| e.file_name().to_string_lossy().contains("rosbag2-tmp"))
                    .collect();
                assert!(left.is_empty(), "{tag}: {left:?}");
                messages += want.len();
                bags += 1;
            }
        }
    }
    assert_eq!(bags, 13 * 6);
    assert_eq!(messages, 6 * 576);
}

#[test]
fn split_by_size_keeps_every_message() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let scratch = Scratch::new("split");
    let src = Bag2::open(corpus.join("sqlite3/rewriter_a")).unwrap();
    let want = rows(&src);
    for storage in STORAGES {
        for mode in MODES {
            let dst = scratch.0.join(format!("split-{storage:?}-{mode:?}"));
            let opts = WriteOptions::new(storage)
                .with_compression(mode)
                .with_max_bagfile_size(2000);
            let out = copy(&src, &dst, opts);
            let back = Bag2::open(&out).unwrap();
            let md = back.metadata().unwrap();
            assert!(md.files.len() > 3, "{} files", md.files.len());
            assert_eq!(md.files.iter().map(|f| f.message_count).sum::<u64>(), 150);
            assert_eq!(md.relative_file_paths.len(), md.files.len());
            assert_eq!(back.files().len(), md.files.len());
            for (k, f) in md.files.iter().enumerate() {
                assert!(
                    f.path
                        .starts_with(&format!("split-{storage:?}-{mode:?}_{k}.")),
                    "{}",
                    f.path
                );
            }
            assert_eq!(rows(&back), want);
        }
    }
}

#[test]
fn messages_out_of_time_order_are_read_in_order() {
    let scratch = Scratch::new("order");
    let def = TopicDefinition::msg("int32 data\n");
    for storage in STORAGES {
        let dst = scratch.0.join(format!("order-{storage:?}"));
        let mut w = Bag2Writer::create(&dst, WriteOptions::new(storage)).unwrap();
        let a = w.add_topic("/a", "std_msgs/msg/Int32", &def, &[]).unwrap();
        let times = [50i64, 10, 40, 20, 30, 0, 60];
        for (k, t) in times.iter().enumerate() {
            let mut cdr = vec![0, 1, 0, 0];
            cdr.extend_from_slice(&(k as i32).to_le_bytes());
            w.write(a, *t, &cdr).unwrap();
        }
        w.finish().unwrap();
        let back = Bag2::open(&dst).unwrap();
        let md = back.metadata().unwrap();
        assert_eq!((md.starting_time, md.duration), (0, 60));
        let got: Vec<i64> = rows(&back).iter().map(|r| r.2).collect();
        assert_eq!(got, [0, 10, 20, 30, 40, 50, 60], "{storage:?}");
        let m = back
            .messages(&MessageFilter::all())
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        let v = back.decode(&m).unwrap();
        assert_eq!(v.get("data").and_then(|v| v.as_i64()), Some(5));
    }
}

#[test]
fn an_existing_target_is_refused_without_overwrite() {
    let scratch = Scratch::new("exists");
    let dst = scratch.0.join("bag");
    std::fs::create_dir(&dst).unwrap();
    std::fs::write(dst.join("keep.txt"), "mine").unwrap();
    let e = Bag2Writer::create(&dst, WriteOptions::default()).unwrap_err();
    assert!(e.to_string().contains("already exists"), "{e}");
    // Not a bag folder: refused even with overwrite.
    let e = Bag2Writer::create(&dst, WriteOptions::default().with_overwrite(true)).unwrap_err();
    assert!(e.to_string().contains("is not a rosbag2 bag folder"), "{e}");
    assert_eq!(
        std::fs::read_to_string(dst.join("keep.txt")).unwrap(),
        "mine"
    );
    // A file is refused too.
    let file = scratch.0.join("file");
    std::fs::write(&file, "x").unwrap();
    assert!(Bag2Writer::create(&file, WriteOptions::default()).is_err());
    assert_eq!(std::fs::read_dir(&scratch.0).unwrap().count(), 2);
    // A target that appears while writing is not replaced either.
    let late = scratch.0.join("late");
    let w = Bag2Writer::create(&late, WriteOptions::default()).unwrap();
    std::fs::create_dir(&late).unwrap();
    assert!(w.finish().is_err());
    assert!(std::fs::read_dir(&late).unwrap().next().is_none());
    assert_eq!(
        std::fs::read_dir(&scratch.0).unwrap().count(),
        3,
        "no temporary folder left"
    );
}

#[test]
fn a_writer_dropped_before_finish_leaves_nothing() {
    let scratch = Scratch::new("drop");
    for storage in STORAGES {
        for mode in MODES {
            let dst = scratch.0.join("bag");
            let mut w = Bag2Writer::create(&dst, WriteOptions::new(storage).with_compression(mode))
                .unwrap();
            let temp = w.temp_path().to_path_buf();
            let name = temp.file_name().unwrap().to_string_lossy().into_owned();
            assert!(name.starts_with(".bag.rosbag2-tmp-"), "{name}");
            assert_eq!(temp.parent(), Some(scratch.0.as_path()));
            let t = w
                .add_topic(
                    "/a",
                    "std_msgs/msg/Int32",
                    &TopicDefinition::msg("int32 data\n"),
                    &[],
                )
                .unwrap();
            w.write(t, 1, &[0, 1, 0, 0, 1, 0, 0, 0]).unwrap();
            assert!(temp.is_dir());
            drop(w);
            assert!(!temp.exists());
            assert!(!dst.exists());
            assert_eq!(std::fs::read_dir(&scratch.0).unwrap().count(), 0);
        }
    }
    // A failed write keeps the writer; a failed finish removes the folder.
    let dst = scratch.0.join("neg");
    let mut w = Bag2Writer::create(&dst, WriteOptions::new(StorageId::Mcap)).unwrap();
    let t = w
        .add_topic(
            "/a",
            "std_msgs/msg/Int32",
            &TopicDefinition::msg("int32 data\n"),
            &[],
        )
        .unwrap();
    let e = w.write(t, -1, &[0, 1, 0, 0, 1, 0, 0, 0]).unwrap_err();
    assert!(e.to_string().contains("negative time"), "{e}");
    assert!(w.write(t + 1, 1, &[]).is_err());
    drop(w);
    assert_eq!(std::fs::read_dir(&scratch.0).unwrap().count(), 0);
}

#[test]
fn overwrite_replaces_only_a_folder_holding_nothing_but_a_bag() {
    use rosbag2::write::check_replaceable;
    let scratch = Scratch::new("notabag");
    let def = TopicDefinition::msg("int32 data\n");
    let write = |dst: &Path, overwrite: bool| {
        let mut w = Bag2Writer::create(dst, WriteOptions::default().with_overwrite(overwrite))?;
        let t = w.add_topic("/a", "std_msgs/msg/Int32", &def, &[])?;
        w.write(t, 1, &[0, 1, 0, 0, 1, 0, 0, 0])?;
        w.finish()
    };
    let listing = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = walk(dir)
            .iter()
            .map(|p| p.strip_prefix(dir).unwrap().display().to_string())
            .collect();
        v.sort();
        v
    };
    // A project folder with a metadata.yaml that is no bag's.
    let proj = scratch.0.join("proj");
    std::fs::create_dir_all(proj.join("src")).unwrap();
    std::fs::write(proj.join("metadata.yaml"), "x: 1\n").unwrap();
    std::fs::write(proj.join("src/code.py"), "print(1)\n").unwrap();
    std::fs::write(proj.join("thesis.tex"), "\\begin{document}").unwrap();
    let before = listing(&proj);
    let e = check_replaceable(&proj).unwrap_err();
    assert_eq!(
        (e.folder.as_path(), e.entry.as_str()),
        (proj.as_path(), "metadata.yaml")
    );
    assert!(e.reason.contains("rosbag2_bagfile_information"), "{e}");
    let e = write(&proj, true).unwrap_err().to_string();
    assert!(e.contains("is not a rosbag2 bag folder"), "{e}");
    assert!(e.contains("`metadata.yaml`"), "{e}");
    assert_eq!(listing(&proj), before);
    assert_eq!(
        std::fs::read_to_string(proj.join("src/code.py")).unwrap(),
        "print(1)\n"
    );

    // A real bag is replaced, with its SQLite companions.
    let bag = scratch.0.join("bag");
    write(&bag, false).unwrap();
    std::fs::write(bag.join("bag_0.db3-wal"), b"").unwrap();
    std::fs::write(bag.join("bag_0.db3-shm"), b"").unwrap();
    check_replaceable(&bag).unwrap();
    write(&bag, true).unwrap();
    assert_eq!(listing(&bag), ["bag_0.db3", "metadata.yaml"]);

    // A bag with one more file, or a subfolder, is refused, naming it.
    std::fs::write(bag.join("notes.txt"), "mine").unwrap();
    let e = check_replaceable(&bag).unwrap_err();
    assert_eq!(e.entry, "notes.txt");
    assert!(
        e.reason
            .contains("a regular file that its metadata.yaml does not name"),
        "{e}"
    );
    assert!(write(&bag, true).is_err());
    std::fs::remove_file(bag.join("notes.txt")).unwrap();
    std::fs::create_dir(bag.join("a_sub")).unwrap();
    assert_eq!(check_replaceable(&bag).unwrap_err().entry, "a_sub");
    std::fs::remove_dir(bag.join("a_sub")).unwrap();
    // A metadata.yaml that does not parse, a storage name that is a
    // folder, a file instead of a folder.
    let good = std::fs::read_to_string(bag.join("metadata.yaml")).unwrap();
    std::fs::write(
        bag.join("metadata.yaml"),
        "rosbag2_bagfile_information: [\n",
    )
    .unwrap();
    let e = check_replaceable(&bag).unwrap_err();
    assert_eq!(e.entry, "metadata.yaml");
    assert!(e.reason.contains("at line"), "{e}");
    std::fs::write(bag.join("metadata.yaml"), &good).unwrap();
    std::fs::remove_file(bag.join("bag_0.db3")).unwrap();
    std::fs::create_dir(bag.join("bag_0.db3")).unwrap();
    std::fs::write(bag.join("bag_0.db3/x"), "mine").unwrap();
    let e = check_replaceable(&bag).unwrap_err();
    assert_eq!(e.entry, "bag_0.db3");
    assert!(e.reason.contains("a directory, not a regular file"), "{e}");
    assert!(write(&bag, true).is_err());
    assert!(bag.join("bag_0.db3/x").is_file());
    let file = scratch.0.join("file");
    std::fs::write(&file, "x").unwrap();
    assert_eq!(check_replaceable(&file).unwrap_err().entry, ".");
    // An empty folder holds nothing to lose.
    let empty = scratch.0.join("empty");
    std::fs::create_dir(&empty).unwrap();
    write(&empty, true).unwrap();
    assert_eq!(listing(&empty), ["empty_0.db3", "metadata.yaml"]);
}

/// Every file under `dir`, recursively.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn overwrite_replaces_only_once_complete() {
    let scratch = Scratch::new("force");
    let dst = scratch.0.join("bag");
    let def = TopicDefinition::msg("int32 data\n");
    let write = |topic: &str, overwrite: bool| {
        let mut w =
            Bag2Writer::create(&dst, WriteOptions::default().with_overwrite(overwrite)).unwrap();
        let t = w.add_topic(topic, "std_msgs/msg/Int32", &def, &[]).unwrap();
        w.write(t, 1, &[0, 1, 0, 0, 1, 0, 0, 0]).unwrap();
        w
    };
    write("/old", false).finish().unwrap();
    let topics = |p: &Path| -> Vec<String> {
        Bag2::open(p)
            .unwrap()
            .topics()
            .iter()
            .map(|t| t.name.clone())
            .collect()
    };
    assert_eq!(topics(&dst), ["/old"]);
    // Refused without overwrite, at create.
    assert!(Bag2Writer::create(&dst, WriteOptions::default()).is_err());
    // While the new bag is written, the old one is intact and readable.
    let w = write("/new", true);
    assert_eq!(topics(&dst), ["/old"]);
    drop(w);
    assert_eq!(
        topics(&dst),
        ["/old"],
        "a dropped forced writer leaves the old bag"
    );
    let w = write("/new", true);
    assert_eq!(topics(&dst), ["/old"]);
    w.finish().unwrap();
    assert_eq!(topics(&dst), ["/new"]);
    let names: Vec<_> = std::fs::read_dir(&scratch.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["bag"]);
    let files: Vec<_> = std::fs::read_dir(&dst)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
}

#[test]
fn the_sqlite_schema_is_rosbag2s() {
    let scratch = Scratch::new("schema");
    let dst = scratch.0.join("s");
    let mut w = Bag2Writer::create(&dst, WriteOptions::default()).unwrap();
    let t = w
        .add_topic(
            "/a",
            "std_msgs/msg/Int32",
            &TopicDefinition::msg("int32 data\n"),
            &[],
        )
        .unwrap();
    w.write(t, 7, &[0, 1, 0, 0, 1, 0, 0, 0]).unwrap();
    w.finish().unwrap();
    let db = dst.join("s_0.db3");
    let c = rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap();
    let mut tables: Vec<String> = c
        .prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    tables.sort();
    assert_eq!(
        tables,
        [
            "message_definitions",
            "messages",
            "metadata",
            "schema",
            "timestamp_idx",
            "topics"
        ]
    );
    let (v, d): (i64, String) = c
        .query_row("SELECT schema_version, ros_distro FROM schema", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!((v, d.as_str()), (4, "jazzy"));
    let (mv, text): (i64, String) = c
        .query_row("SELECT metadata_version, metadata FROM metadata", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(mv, 9);
    let m = rosbag2::Metadata::parse(&text).unwrap();
    assert_eq!(m.message_count, 1);
    let (ty, enc, def): (String, String, String) = c
        .query_row(
            "SELECT topic_type, encoding, encoded_message_definition FROM message_definitions",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(
        (ty.as_str(), enc.as_str(), def.as_str()),
        ("std_msgs/msg/Int32", "ros2msg", "int32 data\n")
    );
    // Nothing but the database and the metadata.
    let mut names: Vec<_> = std::fs::read_dir(&dst)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["metadata.yaml", "s_0.db3"]);
}

#[test]
fn log_writer_channels_without_schema_get_the_bundled_definition() {
    let scratch = Scratch::new("logwriter");
    for storage in STORAGES {
        let dst = scratch.0.join(format!("lw-{storage:?}"));
        let mut w = Bag2Writer::create(&dst, WriteOptions::new(storage)).unwrap();
        let known =
            logcore::ChannelInfo::new(logcore::ChannelId(9), "/s", "std_msgs/msg/String", "cdr");
        let unknown =
            logcore::ChannelInfo::new(logcore::ChannelId(3), "/u", "my_pkg/msg/Mine", "cdr");
        let a = LogWriter::add_channel(&mut w, &known).unwrap();
        let b = LogWriter::add_channel(&mut w, &unknown).unwrap();
        assert_eq!(
            LogWriter::add_channel(&mut w, &known).unwrap(),
            a,
            "the same topic again"
        );
        w.set_metadata("robot", "r2").unwrap();
        let cdr = b"\x00\x01\x00\x00\x03\x00\x00\x00hi\x00";
        let m = logcore::Message::new(a, logcore::Timestamp(3), logcore::Payload::Borrowed(cdr));
        LogWriter::write_message(&mut w, &m).unwrap();
        let m = logcore::Message::new(b, logcore::Timestamp(2), logcore::Payload::Borrowed(b"raw"));
        LogWriter::write_message(&mut w, &m).unwrap();
        let bad = logcore::Message::new(
            logcore::ChannelId(77),
            logcore::Timestamp(2),
            logcore::Payload::Borrowed(b""),
        );
        assert!(LogWriter::write_message(&mut w, &bad).is_err());
        LogWriter::finish(&mut w).unwrap();
        assert!(LogWriter::finish(&mut w).is_err(), "finished once");
        drop(w);
        let back = Bag2::open(&dst).unwrap();
        assert_eq!(back.metadata().unwrap().custom_data["robot"], "r2");
        let s = &back.topics()[0];
        let d = s.definition.as_ref().unwrap();
        assert_eq!(d.source, rosbag2::DefinitionSource::Bag, "{storage:?}");
        assert!(d.text.contains("string data"), "{}", d.text);
        let msgs: Vec<_> = back
            .messages(&MessageFilter::all())
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(msgs.len(), 2);
        assert_eq!(back.topic(msgs[0].channel).unwrap().name, "/u");
        assert_eq!(&*msgs[0].payload, b"raw");
        let v = back.decode(&msgs[1]).unwrap();
        assert_eq!(v.get("data").and_then(|v| v.as_str()), Some("hi"));
        // The unknown type is kept, read as raw bytes with a notice.
        assert_eq!(back.topics()[1].type_name, "my_pkg/msg/Mine");
        assert!(
            back.notices()
                .iter()
                .any(|n| n.topic.as_deref() == Some("/u"))
        );
    }
}
