//! Test support of the robolog workspace: where the real-file corpus is
//! (`$ROBOLOG_CORPUS`, else `../shared/corpus` beside the checkout), the
//! Python of the reference tools, and file walking. Used by the crates'
//! tests (as a dev-dependency only) and by `xtask`.

use std::path::{Path, PathBuf};

/// The checkout's root folder (where the workspace's `Cargo.toml` is).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The corpus folder: `$ROBOLOG_CORPUS` when set, else `../shared/corpus`
/// beside the checkout; whether it exists or not.
pub fn corpus_root() -> PathBuf {
    match std::env::var_os("ROBOLOG_CORPUS") {
        Some(d) => PathBuf::from(d),
        None => workspace_root().join("../shared/corpus"),
    }
}

/// `sub` (a file or folder) of the corpus ([`corpus_root`]); `None`, with
/// a printed `skipped: ...` note, when it is absent, and the caller skips
/// that part.
pub fn corpus(sub: &str) -> Option<PathBuf> {
    let p = corpus_root().join(sub);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipped: {} is absent (set ROBOLOG_CORPUS)", p.display());
        None
    }
}

/// Every file under `dir`, recursively (following links to folders, as
/// `Path::is_dir` does), sorted; empty when `dir` cannot be read.
pub fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The files of [`all_files`] whose extension is one of `exts` (without
/// the dot, compared exactly), sorted.
pub fn files_with_ext(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut out = all_files(dir);
    out.retain(|p| {
        p.extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| exts.contains(&x))
    });
    out
}

/// The Python of the reference tools: `$var` when set, else the
/// checkout's `target/interop-venv/bin/python` (which `cargo xtask` makes);
/// `None`, with a printed `skipped: ...` note, when it is not a file.
pub fn python_with(var: &str) -> Option<PathBuf> {
    let p = match std::env::var_os(var) {
        Some(p) => PathBuf::from(p),
        None => workspace_root().join("target/interop-venv/bin/python"),
    };
    if p.is_file() {
        Some(p)
    } else {
        eprintln!(
            "skipped: no Python of the reference tools at {} (set {var})",
            p.display()
        );
        None
    }
}

/// How the ROS readers name a nesting limit of `n` levels in their errors.
pub fn nesting_limit_text(n: usize) -> String {
    format!(
        "at most {n} levels deep (the reader's limit; raise it with `--max-nesting` or \
         `Limits::max_nesting`)"
    )
}

/// Runs `f` on a thread with a 2 MiB stack, the stack a test thread gets,
/// and passes its panic on: what the nesting limits' ceiling is checked
/// against, whatever stack the test harness itself runs on.
pub fn on_test_stack(f: impl FnOnce() + Send + 'static) {
    let joined = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("a test thread starts")
        .join();
    if let Err(panic) = joined {
        std::panic::resume_unwind(panic);
    }
}

/// A concatenated `.msg` definition of `{package}/T0` holding
/// `{package}/T1` (a field `next`) … down to `{package}/T{levels-1}`,
/// whose one line is `leaf` (such as `int32 leaf`): `levels` levels
/// deep, each type after a line of 80 `=` and `MSG: {package}/T{i}`, as
/// bags and ROS 2 schemas store them.
pub fn msg_chain(package: &str, levels: usize, leaf: &str) -> String {
    let mut text = String::new();
    for i in 0..levels {
        if i > 0 {
            text.push_str(&"=".repeat(80));
            text.push_str(&format!("\nMSG: {package}/T{i}\n"));
        }
        if i + 1 < levels {
            text.push_str(&format!("{package}/T{} next\n", i + 1));
        } else {
            text.push_str(leaf);
            text.push('\n');
        }
    }
    text
}

/// Checks that the committed fixtures `testdata/{sub}/{name}` are
/// `files` (name, bytes: what a crate's writer makes today), panicking
/// with the stale ones; with `ROBOLOG_BLESS=1` in the environment it
/// writes those that differ instead (what `cargo xtask fixtures` runs).
pub fn fixtures_current(sub: &str, files: &[(&str, Vec<u8>)]) {
    let dir = workspace_root().join("testdata").join(sub);
    let bless = std::env::var_os("ROBOLOG_BLESS").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (name, bytes) in files {
        let path = dir.join(name);
        if std::fs::read(&path).ok().as_deref() == Some(bytes.as_slice()) {
            continue;
        }
        if bless {
            std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            eprintln!("wrote {} ({} bytes)", path.display(), bytes.len());
        } else {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "these fixtures differ from what the writer makes today (run `cargo xtask fixtures`): {}",
        stale.join(", ")
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_with_ext_walks_sorted_and_filters() {
        let dir = std::env::temp_dir().join(format!("robolog-testkit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("b/c")).unwrap();
        for f in [
            "z.bag",
            "a.mcap",
            "b/x.bag",
            "b/c/y.BAG",
            "b/c/w.bag",
            "note.md",
        ] {
            std::fs::write(dir.join(f), b"").unwrap();
        }
        let got: Vec<String> = files_with_ext(&dir, &["bag", "mcap"])
            .iter()
            .map(|p| p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned())
            .collect();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(got, ["a.mcap", "b/c/w.bag", "b/x.bag", "z.bag"]);
        assert!(files_with_ext(&dir, &["bag"]).is_empty());
    }

    #[test]
    fn workspace_root_holds_the_workspace_manifest() {
        let m = std::fs::read_to_string(workspace_root().join("Cargo.toml")).unwrap();
        assert!(m.contains("[workspace]"), "{m}");
    }
}
