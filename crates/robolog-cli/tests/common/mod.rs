//! Set-up shared by the `robolog` command's tests (each test file that
//! uses it says `mod common;`; not every file uses every helper).
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

use assert_cmd::Command;

/// The `robolog` binary of this build.
pub(crate) fn robolog() -> Command {
    Command::cargo_bin("robolog").unwrap()
}

/// `testdata/<path>` of the workspace.
pub(crate) fn testdata(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(path)
}

/// `<rel>` of the shared corpus: under `$ROBOLOG_CORPUS` when set, else
/// `../shared/corpus` beside the checkout; `None` (and a note) when it is
/// absent, and the test skips that part.
pub(crate) fn corpus(rel: &str) -> Option<PathBuf> {
    robolog_testkit::corpus(rel)
}

/// Bytes a command printed, as text.
pub(crate) fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

/// A path for a new folder `<prefix>-<name>-...` unique to this test run
/// (nothing there: not created).
pub(crate) fn scratch_path(prefix: &str, name: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "{prefix}-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A new, empty folder `<prefix>-<name>-...` for one test.
pub(crate) fn scratch_dir(prefix: &str, name: &str) -> PathBuf {
    let dir = scratch_path(prefix, name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
