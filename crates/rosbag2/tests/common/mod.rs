//! Shared by the tests: where the corpus is, and the Python with rosbags.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The Python with rosbags: `$ROSBAGS_PYTHON`, else the interop venv of
/// `cargo xtask`; `None` (with a printed note) when absent.
pub(crate) fn python() -> Option<PathBuf> {
    let p = match std::env::var_os("ROSBAGS_PYTHON") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/interop-venv/bin/python"),
    };
    if p.is_file() {
        Some(p)
    } else {
        eprintln!(
            "skipped: no Python with rosbags at {} (set ROSBAGS_PYTHON)",
            p.display()
        );
        None
    }
}

/// `../shared/corpus/rosbag2` next to the workspace, or
/// `$ROBOLOG_CORPUS/rosbag2`; `None` (with a printed note) when absent.
pub(crate) fn corpus() -> Option<PathBuf> {
    let dir = match std::env::var_os("ROBOLOG_CORPUS") {
        Some(d) => PathBuf::from(d).join("rosbag2"),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/rosbag2"),
    };
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: no rosbag2 corpus at {}", dir.display());
        None
    }
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
