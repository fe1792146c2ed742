//! What the facade's integration tests share: where the corpus is and
//! which Python has rosbags.
#![allow(dead_code)]

use std::path::PathBuf;

/// `$ROBOLOG_CORPUS/sub`, else `../shared/corpus/sub` beside the checkout;
/// `None` (and a note) when it is absent.
pub(crate) fn corpus(sub: &str) -> Option<PathBuf> {
    robolog_testkit::corpus(sub)
}

/// The Python of rosbags 0.11.9: `$ROSBAGS_PYTHON` (which `cargo xtask ci`
/// sets), else the checkout's `target/interop-venv`; `None` (and a note)
/// when it has no `rosbags-convert` beside it.
pub(crate) fn rosbags_python() -> Option<PathBuf> {
    let py = robolog_testkit::python_with("ROSBAGS_PYTHON")?;
    if py.with_file_name("rosbags-convert").is_file() {
        Some(py)
    } else {
        eprintln!(
            "note: rosbags comparison skipped: no rosbags-convert beside {}",
            py.display()
        );
        None
    }
}
