//! What one bag folder can make the reader spend: the storage files of a
//! bag expand (decompressed, copied with their logs) within one limit for
//! the whole bag, a file listed twice is refused, a `-wal` that is too
//! large or not a write-ahead log is refused before anything is copied,
//! and a bag of many files is read with a bounded number of them open.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use logcore::{Limits, LogReader, MessageFilter};
use rosbag2::{Bag2, Error, OpenOptions};

use common::{Scratch, string_cdr};

/// A `.db3` of the oldest schema with one `std_msgs/msg/String` topic,
/// the timestamp index, and `rows` (timestamp, text); `wal`: its rows
/// left in a write-ahead log.
fn make_db(path: &Path, rows: &[(i64, String)], wal: bool) -> rusqlite::Connection {
    let rows: Vec<(i64, Vec<u8>)> = rows.iter().map(|(t, s)| (*t, string_cdr(s))).collect();
    common::make_db(path, &rows, wal, true)
}

fn metadata(files: &[&str], compressed: bool) -> String {
    let mut s = String::from(
        "rosbag2_bagfile_information:\n  version: 5\n  storage_identifier: sqlite3\n  \
         relative_file_paths:\n",
    );
    for f in files {
        s.push_str(&format!("    - {f}\n"));
    }
    if compressed {
        s.push_str("  compression_format: zstd\n  compression_mode: FILE\n");
    }
    s
}

/// The (time, text) of every message, in the order read.
fn texts(bag: &Bag2) -> Vec<(i64, String)> {
    bag.messages(&MessageFilter::all())
        .unwrap()
        .map(|m| {
            let m = m.unwrap();
            let v = bag.decode(&m).unwrap();
            let Some(logcore::Value::String(s)) = v.get("data").cloned() else {
                panic!("{v:?}");
            };
            (m.log_time.0, s)
        })
        .collect()
}

fn err_text(r: Result<Bag2, Error>) -> String {
    match r {
        Ok(_) => panic!("expected the bag to be refused"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_storage_file_listed_twice_is_refused_not_read_twice() {
    let s = Scratch::new("twice");
    make_db(&s.0.join("a_0.db3"), &[(1, "one".into())], false);
    make_db(&s.0.join("a_1.db3"), &[(2, "two".into())], false);
    std::fs::hard_link(s.0.join("a_0.db3"), s.0.join("link.db3")).unwrap();
    for (listed, second, first) in [
        (&["a_0.db3", "a_1.db3", "a_0.db3"][..], 2, 0),
        (&["a_0.db3", "./a_0.db3"][..], 1, 0),
        (&["a_1.db3", "a_0.db3", "link.db3"][..], 2, 1),
    ] {
        std::fs::write(s.0.join("metadata.yaml"), metadata(listed, false)).unwrap();
        let e = err_text(Bag2::open(&s.0));
        let expected = format!(
            "storage file `{}` (in `relative_file_paths`) is refused: it names the same file as \
             entry {first} (`{}`): a storage file is listed once and read once",
            listed[second], listed[first]
        );
        assert!(e.contains(&expected), "{listed:?}: {e}");
    }
    // Listed once each, both are read.
    std::fs::write(
        s.0.join("metadata.yaml"),
        metadata(&["a_0.db3", "a_1.db3"], false),
    )
    .unwrap();
    let bag = Bag2::open(&s.0).unwrap();
    assert_eq!(texts(&bag), [(1, "one".into()), (2, "two".into())]);
}

/// Three `.db3.zstd` files of `rows` messages of 1000 bytes each, the
/// frames declaring their size or not.
fn compressed_bag(dir: &Path, rows: usize, declare: bool) -> Vec<u64> {
    let mut sizes = Vec::new();
    let mut names = Vec::new();
    for k in 0..3 {
        let db = dir.join(format!("c_{k}.db3"));
        let texts: Vec<(i64, String)> = (0..rows)
            .map(|i| ((k * rows + i) as i64, "x".repeat(1000)))
            .collect();
        drop(make_db(&db, &texts, false));
        let raw = std::fs::read(&db).unwrap();
        sizes.push(raw.len() as u64);
        let z = if declare {
            zstd::bulk::compress(&raw, 3).unwrap()
        } else {
            // The streaming encoder does not write the size.
            zstd::stream::encode_all(&raw[..], 3).unwrap()
        };
        std::fs::remove_file(&db).unwrap();
        std::fs::write(dir.join(format!("c_{k}.db3.zstd")), z).unwrap();
        names.push(format!("c_{k}.db3.zstd"));
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    std::fs::write(dir.join("metadata.yaml"), metadata(&refs, true)).unwrap();
    sizes
}

#[test]
fn file_compressed_storage_files_expand_within_one_limit_for_the_bag() {
    for declare in [true, false] {
        let s = Scratch::new(if declare { "declared" } else { "undeclared" });
        let sizes = compressed_bag(&s.0, 40, declare);
        let all: u64 = sizes.iter().sum();
        // Each file fits the per-file limit, and all of them the bag's.
        let roomy = Limits::default()
            .with_max_chunk_size(sizes[0] + 1)
            .with_max_bag_expansion(all);
        let bag = Bag2::open_with_limits(&s.0, roomy).unwrap();
        assert_eq!(texts(&bag).len(), 120);
        drop(bag);
        // One byte less for the bag: the third file is refused, named with
        // the limit and how to raise it.
        let limit = all - 1;
        let tight = roomy.with_max_bag_expansion(limit);
        let e = err_text(Bag2::open_with_limits(&s.0, tight));
        let used = sizes[0] + sizes[1];
        let how = if declare {
            format!(
                "a zstd-compressed storage file declaring {} bytes uncompressed, more than the {} \
                 bytes left",
                sizes[2],
                limit - used
            )
        } else {
            format!(
                "a zstd-compressed storage file decompressing to more than the {} bytes left",
                limit - used
            )
        };
        assert!(
            e.starts_with(&s.0.join("c_2.db3.zstd").display().to_string())
                && e.contains(&format!(
                    "a bag whose storage files expand to at most {limit} bytes together"
                ))
                && e.contains(&format!(
                    "{used} bytes of it used by the files before this one"
                ))
                && e.contains("raise it with `--max-bag-expansion` or `Limits::max_bag_expansion`")
                && e.contains(&how),
            "{e}"
        );
    }
}

#[test]
fn mcap_zstd_storage_files_expand_within_one_limit_for_the_bag() {
    let s = Scratch::new("mcapzstd");
    let mut names = Vec::new();
    let mut sizes = Vec::new();
    for k in 0..3u64 {
        let mut w = mcapfile::Writer::new(Vec::new(), mcapfile::WriteOptions::default()).unwrap();
        let schema = w
            .add_schema("std_msgs/msg/String", "ros2msg", b"string data\n")
            .unwrap();
        let c = w
            .add_channel(schema, "/chatter", "cdr", &BTreeMap::new())
            .unwrap();
        for i in 0..50u64 {
            let t = k * 100 + i;
            w.write_message(c, i as u32, t, t, &string_cdr(&"y".repeat(2000)))
                .unwrap();
        }
        let raw = w.finish().unwrap();
        sizes.push(raw.len() as u64);
        let name = format!("m_{k}.mcap.zstd");
        std::fs::write(s.0.join(&name), zstd::bulk::compress(&raw, 3).unwrap()).unwrap();
        names.push(name);
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    std::fs::write(
        s.0.join("metadata.yaml"),
        metadata(&refs, true).replace("sqlite3", "mcap"),
    )
    .unwrap();
    let all: u64 = sizes.iter().sum();
    let bag = Bag2::open_with_limits(&s.0, Limits::default().with_max_bag_expansion(all)).unwrap();
    assert_eq!(texts(&bag).len(), 150);
    let e = err_text(Bag2::open_with_limits(
        &s.0,
        Limits::default().with_max_bag_expansion(all - 1),
    ));
    assert!(
        e.starts_with(&s.0.join("m_2.mcap.zstd").display().to_string())
            && e.contains(&format!(
                "declaring {} bytes uncompressed, more than the {} bytes left",
                sizes[2],
                all - 1 - sizes[0] - sizes[1]
            )),
        "{e}"
    );
}

/// A bag whose rows are all in the write-ahead log beside its database
/// (the writing connection is kept open while the test copies them).
fn wal_bag(dir: &Path) -> (PathBuf, PathBuf) {
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    let rows: Vec<(i64, String)> = (0..20).map(|i| (i, format!("m{i}"))).collect();
    let c = make_db(&src.join("w_0.db3"), &rows, true);
    let bag = dir.join("bag");
    std::fs::create_dir_all(&bag).unwrap();
    std::fs::copy(src.join("w_0.db3"), bag.join("w_0.db3")).unwrap();
    std::fs::copy(src.join("w_0.db3-wal"), bag.join("w_0.db3-wal")).unwrap();
    drop(c);
    std::fs::write(bag.join("metadata.yaml"), metadata(&["w_0.db3"], false)).unwrap();
    (bag.clone(), bag.join("w_0.db3-wal"))
}

#[test]
fn a_write_ahead_log_is_checked_before_anything_is_copied() {
    let s = Scratch::new("wal");
    let (bag, wal) = wal_bag(&s.0);
    let good = std::fs::read(&wal).unwrap();
    assert!(good.len() > 4096, "the rows are in the log");
    assert_eq!(texts(&Bag2::open(&bag).unwrap()).len(), 20);

    // Padded with zeros (as a sparse log would be): its frames are read,
    // the padding is neither read by SQLite nor copied.
    let mut padded = good.clone();
    padded.resize(good.len() + (1 << 20), 0);
    std::fs::write(&wal, &padded).unwrap();
    assert_eq!(texts(&Bag2::open(&bag).unwrap()).len(), 20);

    // Larger than the bag's limit: refused, naming it.
    let db_len = std::fs::metadata(bag.join("w_0.db3")).unwrap().len();
    let limit = db_len + padded.len() as u64 - 1;
    let e = err_text(Bag2::open_with_limits(
        &bag,
        Limits::default().with_max_bag_expansion(limit),
    ));
    assert!(
        e.starts_with(&bag.join("w_0.db3").display().to_string())
            && e.contains(&format!(
                "a database read with its log, to be copied with it: {} bytes ({db_len} of the \
                 database, {} of `-wal`, 0 of `-journal`), more than the {limit} bytes left",
                limit + 1,
                padded.len()
            ))
            && e.contains("--max-bag-expansion"),
        "{e}"
    );

    // Not a write-ahead log.
    let cases: [(Vec<u8>, &str); 4] = [
        (
            vec![0u8; 64],
            "at byte 0: expected the magic number 0x377f0682 or 0x377f0683",
        ),
        (b"tiny".to_vec(), "expected a 32-byte header"),
        (
            {
                let mut v = good.clone();
                v[4..8].copy_from_slice(&7u32.to_be_bytes());
                v
            },
            "at byte 4: expected the format version 3007000",
        ),
        (
            {
                let mut v = good.clone();
                v[8..12].copy_from_slice(&1000u32.to_be_bytes());
                v
            },
            "at byte 8: expected a page size that is a power of two from 512 to 65536",
        ),
    ];
    for (bytes, expected) in cases {
        std::fs::write(&wal, &bytes).unwrap();
        let e = err_text(Bag2::open(&bag));
        assert!(
            e.starts_with(&wal.display().to_string()) && e.contains(expected),
            "{expected}: {e}"
        );
    }
}

/// `files` `.db3` files whose messages interleave in time: file k holds
/// times k, k + files, k + 2 files, ... (`per_file` of them), so that the
/// merge takes one message from each file in turn.
fn interleaved_bag(dir: &Path, files: usize, per_file: usize) -> Vec<(i64, String)> {
    let mut names = Vec::new();
    let mut all = Vec::new();
    for k in 0..files {
        let rows: Vec<(i64, String)> = (0..per_file)
            .map(|i| {
                let t = (k + i * files) as i64;
                (t, format!("f{k}m{i}"))
            })
            .collect();
        all.extend(rows.iter().cloned());
        let name = format!("i_{k}.db3");
        drop(make_db(&dir.join(&name), &rows, false));
        names.push(name);
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    std::fs::write(dir.join("metadata.yaml"), metadata(&refs, false)).unwrap();
    all.sort();
    all
}

#[test]
fn files_are_opened_as_the_merge_needs_them_a_bounded_number_at_once() {
    let s = Scratch::new("lazy");
    let expected = interleaved_bag(&s.0, 12, 5);
    for open in [1, 2, 5, 16] {
        let bag = Bag2::open_with(&s.0, OpenOptions::default().with_max_open_files(open)).unwrap();
        assert_eq!(texts(&bag), expected, "at most {open} open");
        // Filters still apply to files opened again.
        let f = MessageFilter::all()
            .start(logcore::Timestamp(30))
            .end(logcore::Timestamp(40));
        let times: Vec<i64> = bag
            .messages(&f)
            .unwrap()
            .map(|m| m.unwrap().log_time.0)
            .collect();
        assert_eq!(times, (30..40).collect::<Vec<_>>());
        assert_eq!(bag.summary().unwrap().message_count, 60);
    }
}

#[test]
fn mcap_files_opened_again_go_on_after_messages_of_the_same_time() {
    let s = Scratch::new("mcap-resume");
    let mut names = Vec::new();
    let mut expected = Vec::new();
    for k in 0..4u64 {
        let mut w = mcapfile::Writer::new(Vec::new(), mcapfile::WriteOptions::default()).unwrap();
        let schema = w
            .add_schema("std_msgs/msg/String", "ros2msg", b"string data\n")
            .unwrap();
        let c = w
            .add_channel(schema, "/chatter", "cdr", &BTreeMap::new())
            .unwrap();
        // Three messages at each time, in every file.
        for i in 0..12u64 {
            let t = i / 3;
            let text = format!("f{k}m{i}");
            w.write_message(c, i as u32, t, t, &string_cdr(&text))
                .unwrap();
            expected.push((t as i64, k, text));
        }
        let name = format!("r_{k}.mcap");
        std::fs::write(s.0.join(&name), w.finish().unwrap()).unwrap();
        names.push(name);
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    std::fs::write(
        s.0.join("metadata.yaml"),
        metadata(&refs, false).replace("sqlite3", "mcap"),
    )
    .unwrap();
    // By time, ties in file order.
    expected.sort_by_key(|(t, k, _)| (*t, *k));
    let expected: Vec<(i64, String)> = expected.into_iter().map(|(t, _, x)| (t, x)).collect();
    for open in [1, 2, 4] {
        let bag = Bag2::open_with(&s.0, OpenOptions::default().with_max_open_files(open)).unwrap();
        assert_eq!(texts(&bag), expected, "at most {open} open");
    }
}
