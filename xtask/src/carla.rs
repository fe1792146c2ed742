//! CARLA recorder: the committed fixtures of `testdata/carla/`, the read
//! benchmark, and `cargo xtask carla`, which runs the corpus checks of
//! carla-recorder's `tests/corpus.rs`.

use std::path::{Path, PathBuf};

use crate::Result;

fn logs(dir: &Path) -> Vec<PathBuf> {
    robolog_testkit::files_with_ext(dir, &["log", "rec"])
}

/// `cargo xtask carla [--corpus DIR]`: only the CARLA corpus checks, which
/// are carla-recorder's `corpus` test (`cargo test -p carla-recorder
/// --test corpus`, also run by the gate's tests step).
pub(crate) fn cmd(args: &[String]) -> Result {
    crate::crate_test("carla-recorder", "corpus", args)
}

/// `cargo xtask bench carla [--corpus DIR]`: the criterion benchmark of a
/// full typed parse (MB/s and frames/s) on a synthetic recording and on the
/// largest corpus recording, when the corpus is there.
pub(crate) fn bench(args: &[String]) -> Result {
    crate::step("bench carla-recorder");
    let mut cmd = crate::cargo();
    cmd.args(["bench", "--locked", "-p", "carla-recorder"]);
    if let Some(dir) = crate::corpus::locate(crate::opt(args, "--corpus"))? {
        let largest = logs(&dir.join("carla"))
            .into_iter()
            .max_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0));
        if let Some(p) = largest {
            eprintln!("xtask: bench carla: also on {}", p.display());
            cmd.env("CARLA_BENCH_FILE", p);
        }
    }
    crate::run(&mut cmd)
}
