//! The packaging checks of the gate: each library crate packages alone
//! with its README and licenses, and every crate builds from its package
//! against the others' packages.

use std::path::{Path, PathBuf};

use crate::{GATE_FEATURES, Result, cargo, root, run, verdict};

/// The publishable crates (every workspace member but xtask).
pub(crate) const LIBRARY_CRATES: [&str; 12] = [
    "logcore",
    "rosbag12",
    "ros2cdr",
    "vellog",
    "ulogfile",
    "carla-recorder",
    "mcapfile",
    "osi-mcap",
    "robolog",
    "robolog-arrow",
    "robolog-sql",
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
/// `cargo package --workspace --no-verify` makes the `.crate` files; they
/// are unpacked side by side into `target/package-check`, a workspace of
/// their own whose `[patch.crates-io]` points each crate's dependencies on
/// the others at their packages (what `cargo package`'s verification does
/// through a local registry), with the repository's lock file and
/// profiles. `cargo check --all-targets` of that workspace with the gate's
/// features then compiles only the packaged crates: the dependencies,
/// resolved with the same features as the gate's clippy step, are shared
/// through the repository's target folder (verifying each package alone
/// resolved them with other features, and compiled DataFusion again).
/// A file a crate needs that its package lacks fails the check.
pub(crate) fn build_from_packages() -> Result {
    run(cargo().args([
        "package",
        "--workspace",
        "--allow-dirty",
        "--no-verify",
        "--quiet",
    ]))?;
    let packages = root().join("target/package");
    let check = root().join("target/package-check");
    if check.exists() {
        std::fs::remove_dir_all(&check).map_err(|e| format!("{}: {e}", check.display()))?;
    }
    std::fs::create_dir_all(&check).map_err(|e| format!("{}: {e}", check.display()))?;
    let version = workspace_version()?;
    let mut members = Vec::new();
    let mut patches = String::new();
    for krate in LIBRARY_CRATES {
        let dir = format!("{krate}-{version}");
        let file = packages.join(format!("{dir}.crate"));
        run(std::process::Command::new("tar")
            .arg("-xzf")
            .arg(&file)
            .arg("-C")
            .arg(&check))?;
        members.push(format!("{dir:?}"));
        patches.push_str(&format!("{krate} = {{ path = {dir:?} }}\n"));
    }
    let manifest = format!(
        "# Made by `cargo xtask ci`: the packaged crates as one workspace.\n\
         [workspace]\nresolver = \"3\"\nmembers = [{}]\n\n[patch.crates-io]\n{patches}\n{}",
        members.join(", "),
        profiles()?,
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

/// The `[profile.*]` sections of the repository's manifest, so that the
/// packages' workspace compiles the dependencies as the repository does.
fn profiles() -> Result<String> {
    let manifest = read(&root().join("Cargo.toml"))?;
    let mut out = String::new();
    let mut keep = false;
    for line in manifest.lines() {
        if line.starts_with('[') {
            keep = line.starts_with("[profile.");
        }
        if keep {
            out.push_str(line);
            out.push('\n');
        }
    }
    Ok(out)
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn write(path: &PathBuf, text: &str) -> Result {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}
