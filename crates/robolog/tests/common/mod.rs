//! What the facade's integration tests share: where the corpus is and
//! which Python has rosbags.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `$ROBOLOG_CORPUS/sub`, else `../shared/corpus/sub` beside the checkout;
/// `None` (and a note) when it is absent.
pub(crate) fn corpus(sub: &str) -> Option<PathBuf> {
    let dir = match std::env::var_os("ROBOLOG_CORPUS") {
        Some(d) => PathBuf::from(d).join(sub),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/corpus")
            .join(sub),
    };
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("note: corpus skipped: nothing at {}", dir.display());
        None
    }
}

/// The Python of rosbags 0.11.9: `$ROSBAGS_PYTHON` (which `cargo xtask ci`
/// sets), else the checkout's `target/interop-venv`; `None` (and a note)
/// when it has no `rosbags-convert` beside it.
pub(crate) fn rosbags_python() -> Option<PathBuf> {
    let py = std::env::var_os("ROSBAGS_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/interop-venv/bin/python")
        });
    if py.is_file() && py.with_file_name("rosbags-convert").is_file() {
        Some(py)
    } else {
        eprintln!(
            "note: rosbags comparison skipped: no Python with rosbags at {}",
            py.display()
        );
        None
    }
}
