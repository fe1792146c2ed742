//! The packaging checks of the gate: each library crate packages alone
//! with its README and licenses, and every crate builds from its package
//! against the others' packages.

use std::path::{Path, PathBuf};

use crate::{GATE_FEATURES, Result, cargo, root, run, verdict};

/// The publishable crates (every workspace member but xtask, the test kit
/// and the Python package, which are not published).
pub(crate) const LIBRARY_CRATES: [&str; 15] = [
    "logcore",
    "rosmsg",
    "rosbag12",
    "ros2cdr",
    "rosbag2",
    "vellog",
    "ulogfile",
    "carla-recorder",
    "mcapfile",
    "osi-mcap",
    "robolog",
    "robolog-arrow",
    "robolog-sql",
    "robolog-report",
    "robolog-cli",
];

/// Packages each crate on its own (`cargo package -p CRATE --list`) and
/// checks the package holds its README and both license files.
pub(crate) fn each_alone() -> Result {
    let mut failures = Vec::new();
    for krate in LIBRARY_CRATES {
        let out = cargo()
            .args([
                "package",
                "--package",
                krate,
                "--allow-dirty",
                "--list",
                "--exclude-lockfile",
            ])
            .output()
            .map_err(|e| format!("could not run cargo package: {e}"))?;
        if !out.status.success() {
            failures.push(format!(
                "{krate}: cargo package failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
            continue;
        }
        let files = String::from_utf8_lossy(&out.stdout);
        for needed in ["README.md", "LICENSE-MIT", "LICENSE-APACHE", "Cargo.toml"] {
            if !files.lines().any(|l| l == needed) {
                failures.push(format!("{krate}: the package lacks {needed}"));
            }
        }
    }
    verdict("crates that do not package alone", &failures)
}

/// Builds every crate from its package, against the others' packages:
/// `cargo package --workspace --no-verify` makes the `.crate` files; each
/// is unpacked into `target/package-check/` at its folder in the
/// repository, beside a copy of the crates that are not published (the
/// Python package), under a copy of the repository's manifest (its
/// members but xtask, its lock file, profiles and workspace dependencies)
/// whose `[patch.crates-io]` points each crate's dependencies on the
/// others at their packages, and with the dev-dependency on the test kit
/// that `cargo package` drops put back (what `cargo package`'s verification does
/// through a local registry). `cargo check --all-targets` of that
/// workspace with the gate's features then compiles only the packaged
/// crates: the dependencies, resolved with the same features as the gate's
/// clippy step, are shared through the repository's target folder
/// (verifying each package alone resolved them with other features, and
/// compiled DataFusion again). A file a crate needs that its package
/// lacks fails the check.
pub(crate) fn build_from_packages() -> Result {
    run(cargo().args([
        "package",
        "--workspace",
        // xtask is never published and depends on the (unpublished) test
        // kit as a normal dependency, which a package cannot name.
        "--exclude",
        "xtask",
        "--allow-dirty",
        "--no-verify",
        "--quiet",
    ]))?;
    let packages = root().join("target/package");
    let check = root().join("target/package-check");
    if check.exists() {
        std::fs::remove_dir_all(&check).map_err(|e| format!("{}: {e}", check.display()))?;
    }
    let version = workspace_version()?;
    let mut patches = String::new();
    for (krate, dir, publish) in members()? {
        let dest = check.join(&dir);
        if !publish {
            copy_tree(&root().join(&dir), &dest)?;
            continue;
        }
        let unpacked = check.join(format!("{krate}-{version}"));
        std::fs::create_dir_all(&check).map_err(|e| format!("{}: {e}", check.display()))?;
        run(std::process::Command::new("tar")
            .arg("-xzf")
            .arg(packages.join(format!("{krate}-{version}.crate")))
            .arg("-C")
            .arg(&check))?;
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::rename(&unpacked, &dest).map_err(|e| format!("{}: {e}", dest.display()))?;
        restore_testkit(&dest, &dir)?;
        patches.push_str(&format!("{krate} = {{ path = {dir:?} }}\n"));
    }
    let manifest = read(&root().join("Cargo.toml"))?
        .replace(", \"xtask\"", "")
        .replace("\"xtask\", ", "");
    let manifest = format!(
        "# Made by `cargo xtask ci`: the packaged crates as one workspace.\n\
         {manifest}\n[patch.crates-io]\n{patches}"
    );
    write(&check.join("Cargo.toml"), &manifest)?;
    std::fs::copy(root().join("Cargo.lock"), check.join("Cargo.lock"))
        .map_err(|e| format!("Cargo.lock: {e}"))?;
    run(cargo()
        .current_dir(&check)
        .env("CARGO_TARGET_DIR", root().join("target"))
        .args([
            "check",
            "--workspace",
            "--all-targets",
            "--features",
            GATE_FEATURES,
            "--quiet",
        ]))
}

/// Gives an unpacked crate back its dev-dependency on the test kit, which
/// `cargo package` drops (a path dependency without a version: the kit
/// is not published), so that its tests compile in the check; `dir` is
/// the crate's folder in the repository, where the check unpacks it.
fn restore_testkit(dest: &Path, dir: &str) -> Result {
    let orig = read(&dest.join("Cargo.toml.orig"))?;
    if !orig.contains("robolog-testkit") {
        return Ok(());
    }
    let up = "../".repeat(Path::new(dir).components().count());
    let manifest = dest.join("Cargo.toml");
    let text = read(&manifest)?;
    write(
        &manifest,
        &format!(
            "{text}\n[dev-dependencies.robolog-testkit]\npath = \"{up}crates/robolog-testkit\"\n"
        ),
    )
}

/// The workspace's members but xtask: package name, folder, and whether
/// it is published (`publish = false` is not).
fn members() -> Result<Vec<(String, String, bool)>> {
    let manifest = read(&root().join("Cargo.toml"))?;
    let line = manifest
        .lines()
        .find(|l| l.starts_with("members"))
        .ok_or("Cargo.toml: no members")?;
    let mut out = Vec::new();
    for dir in line.split('"').skip(1).step_by(2) {
        if dir == "xtask" {
            continue;
        }
        let own = read(&root().join(dir).join("Cargo.toml"))?;
        let name = own
            .lines()
            .find_map(|l| l.strip_prefix("name = "))
            .map(|n| n.trim_matches('"').to_string())
            .ok_or_else(|| format!("{dir}/Cargo.toml: no name"))?;
        let publish = !own.lines().any(|l| l.trim() == "publish = false");
        out.push((name, dir.to_string(), publish));
    }
    Ok(out)
}

/// Copies the files of `from` into `to` (not `target` folders, Python
/// caches or dot files).
fn copy_tree(from: &Path, to: &Path) -> Result {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for e in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let e = e.map_err(|e| format!("{}: {e}", from.display()))?;
        let name = e.file_name();
        let n = name.to_string_lossy();
        if n.starts_with('.') || n == "target" || n == "__pycache__" {
            continue;
        }
        let (src, dst) = (e.path(), to.join(&name));
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            copy_tree(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).map_err(|e| format!("{}: {e}", src.display()))?;
        }
    }
    Ok(())
}

/// The workspace's version, which every library crate has.
fn workspace_version() -> Result<String> {
    let manifest = read(&root().join("Cargo.toml"))?;
    manifest
        .lines()
        .skip_while(|l| l.trim() != "[workspace.package]")
        .find_map(|l| {
            let v = l.trim().strip_prefix("version")?.trim().strip_prefix('=')?;
            Some(v.trim().trim_matches('"').to_string())
        })
        .ok_or_else(|| "Cargo.toml: no version in [workspace.package]".into())
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn write(path: &PathBuf, text: &str) -> Result {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}
