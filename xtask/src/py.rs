//! `cargo xtask python test`: the Python package `robolog` (distribution
//! `robolog-py`, crate `crates/robolog-py`) built as a wheel, installed and
//! checked against the reference readers.
//!
//! 1. The extension module is the workspace's own dev build of the crate:
//!    `cargo build --workspace --lib --tests` with the gate's features,
//!    which after the gate's `cargo test` compiles only the module, since
//!    Cargo resolves the same features for every dependency. (maturin
//!    builds the crate alone, and Cargo then resolves the features of its
//!    dependencies without the workspace's dev-dependencies: DataFusion,
//!    Arrow and most of the rest compiled a second time, 8 minutes on 2
//!    cores. `--maturin` still builds it that way, in the dev profile.)
//! 2. `wheel.py` packs the wheel into `target/wheels` as maturin lays it
//!    out for this crate's `pyproject.toml`: the Python files, the module
//!    as `robolog/_robolog.abi3.so`, METADATA, WHEEL and RECORD.
//! 3. The wheel is installed (forced) into the interop venv beside pinned
//!    pyulog, rosbags, pyarrow, pandas, polars, pytest and mypy.
//! 4. pytest runs `crates/robolog-py/tests` there, with the corpus in
//!    `ROBOLOG_CORPUS` (values equal to pyulog, rosbags and python mcap,
//!    SQL answers, errors, threads, the API); then mypy's stubtest checks
//!    the stub (`python/robolog/__init__.pyi`) against the installed
//!    package: every public class, function, method, parameter and
//!    `__all__` (about a second; its settings are in the crate's
//!    `pyproject.toml`).
//! 5. The wheel installs into a fresh venv without any index, and
//!    `import robolog` reads a fixture there (pyarrow and pandas absent:
//!    their conversions say what to install).
//!
//! `cargo xtask python lint` (the gate's second step, seconds) runs ruff's
//! pyflakes rules (`F`: unused imports, undefined names, ...) over every
//! Python file of the checkout that git does not ignore: the package, its
//! tests, the crates' comparison scripts and xtask's (`xtask/pytests/`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::python::{Venv, stdout_of};
use crate::{Result, cargo, corpus, opt, root, run, step};

/// The packages of the checks, pinned (pyulog, rosbags, pyarrow, python
/// mcap and its decoders at the versions of the other interop checks; mypy
/// for stubtest; Pillow, the reference decoder of JPEG and PNG frames;
/// Foxglove's protobuf schemas, to write sensor messages in MCAP).
pub(crate) const PACKAGES: [&str; 14] = [
    "pyulog",
    "rosbags",
    "mcap",
    "mcap-ros1-support",
    "mcap-ros2-support",
    "mcap-protobuf-support",
    "protobuf",
    "pyarrow",
    "pandas",
    "polars",
    "pytest",
    "mypy",
    "pillow",
    "foxglove-schemas-protobuf",
];

/// The linter of `cargo xtask python lint`, pinned.
pub(crate) const RUFF: &str = "ruff";

/// maturin, for `--maturin` (and the benchmark's release wheel).
pub(crate) const MATURIN: &str = "maturin";

/// The crate of the package.
const CRATE: &str = "crates/robolog-py";

/// `cargo xtask python test [--corpus DIR] [--maturin]` or `python lint`.
pub(crate) fn cmd(args: &[String]) -> Result {
    match args.first().map(String::as_str) {
        Some("test") => test(&args[1..]),
        Some("lint") => lint(&Venv::with(&[RUFF])?),
        _ => Err("usage: cargo xtask python test [--corpus DIR] [--maturin] | lint".into()),
    }
}

/// Builds, installs and checks the package (see the module docs).
fn test(args: &[String]) -> Result {
    let began = Instant::now();
    let corpus = corpus::locate(opt(args, "--corpus"))?;
    let maturin = args.iter().any(|a| a == "--maturin");
    step("python: the interop venv (pinned reference readers, pytest)");
    let mut packages = PACKAGES.to_vec();
    if maturin {
        packages.push(MATURIN);
    }
    let venv = Venv::with(&packages)?;
    let wheel = if maturin {
        step("python: the wheel (maturin, dev profile, the workspace's target folder)");
        build_wheel(&venv)?
    } else {
        step("python: the wheel (the workspace's dev build of the module, packed)");
        pack_wheel(&venv)?
    };
    run(venv
        .command()
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--force-reinstall",
            "--no-deps",
        ])
        .arg(&wheel))?;
    step("python: pytest of crates/robolog-py/tests against the installed wheel");
    // The command the tests of robolog.check, convert and export compare
    // with.
    let exe = crate::robolog_exe()?;
    let mut pytest = venv.command();
    pytest
        .args(["-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs"])
        .arg(root().join(CRATE).join("tests"))
        // The tests leave no __pycache__ in the checkout.
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("ROBOLOG_EXE", &exe);
    if let Some(dir) = &corpus {
        pytest.env("ROBOLOG_CORPUS", dir);
    }
    run(&mut pytest)?;
    step("python: stubtest of the type stub against the installed package");
    stubtest(&venv)?;
    step("python: the wheel installs into a fresh venv");
    fresh_venv(&venv, &wheel)?;
    eprintln!(
        "xtask: python test passed in {:.1} s",
        began.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Runs ruff's pyflakes rules over every Python file (`.py`, `.pyi`) of the
/// checkout that git does not ignore, with no configuration file and no
/// cache: unused imports, undefined names, redefinitions. `# noqa: CODE`
/// comments are honoured.
fn lint(venv: &Venv) -> Result {
    run(venv
        .command()
        .args(["-m", "ruff", "check", "--isolated", "--no-cache", "--quiet"])
        .args(["--select", "F", "--output-format", "concise", "."]))
}

/// Runs `mypy.stubtest robolog` in the venv: the stub against the
/// installed package; a mismatch fails the step. It runs in a folder under
/// `target`, where mypy leaves its cache.
fn stubtest(venv: &Venv) -> Result {
    let began = Instant::now();
    let dir = root().join("target/stubtest");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    run(venv
        .command()
        .current_dir(&dir)
        .args(["-m", "mypy.stubtest", "robolog", "--mypy-config-file"])
        .arg(root().join(CRATE).join("pyproject.toml")))?;
    eprintln!(
        "xtask: stubtest passed in {:.1} s",
        began.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Removes the robolog_py wheels of `out`, so that the one built next is
/// the one installed.
fn clear_wheels(out: &Path) -> Result {
    if let Ok(entries) = std::fs::read_dir(out) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with("robolog_py-") && name.ends_with(".whl") {
                std::fs::remove_file(e.path()).map_err(|err| format!("{name}: {err}"))?;
            }
        }
    }
    Ok(())
}

/// Builds the module as the gate's tests build the workspace and packs it
/// into a wheel (see the module docs); the wheel's path.
fn pack_wheel(venv: &Venv) -> Result<PathBuf> {
    run(cargo().args([
        "build",
        "--workspace",
        "--lib",
        "--tests",
        "--locked",
        "--quiet",
        "--features",
        crate::GATE_FEATURES,
    ]))?;
    let out = root().join("target/wheels");
    clear_wheels(&out)?;
    let mut pack = venv.script("wheel.py");
    pack.arg(root().join("target/debug/lib_robolog.so"))
        .arg(root().join(CRATE))
        .arg(root().join("Cargo.toml"))
        .arg(&out);
    let printed = stdout_of(pack, "packing the wheel")?;
    Ok(PathBuf::from(printed.trim()))
}

/// Builds the wheel with `venv`'s maturin; its path.
fn build_wheel(venv: &Venv) -> Result<PathBuf> {
    let out = root().join("target/wheels");
    clear_wheels(&out)?;
    run(venv
        .command()
        .args([
            "-m",
            "maturin",
            "build",
            "--profile",
            "dev",
            "--manifest-path",
        ])
        .arg(root().join(CRATE).join("Cargo.toml"))
        .arg("--out")
        .arg(&out)
        .arg("--interpreter")
        .arg(venv.python()))?;
    let wheels: Vec<PathBuf> = std::fs::read_dir(&out)
        .map_err(|e| format!("{}: {e}", out.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("robolog_py-") && n.ends_with(".whl"))
        })
        .collect();
    match wheels.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(format!(
            "maturin left {} robolog_py wheels in {}",
            wheels.len(),
            out.display()
        )),
    }
}

/// Installs `wheel` into a new venv (no index: the wheel needs nothing
/// else), then `venv`'s pytest runs `xtask/pytests/test_py_fresh.py`: the
/// new venv's interpreter, outside the checkout, imports the package from
/// that venv, reads a fixture, and is told what to install for pandas.
fn fresh_venv(venv: &Venv, wheel: &Path) -> Result {
    let dir = root().join("target/python-fresh-venv");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    run(Command::new(&python).args(["-m", "venv"]).arg(&dir))?;
    let fresh = dir.join("bin/python");
    run(Command::new(&fresh)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-index",
        ])
        .arg(wheel))?;
    let manifest = serde_json::json!({
        "python": fresh.display().to_string(),
        "fixture": root().join("testdata/rosbag/sample.bag").display().to_string(),
        "cwd": dir.display().to_string(),
    });
    let records = venv
        .pytest("test_py_fresh.py")
        .manifest(&dir.join("manifest.json"), &manifest)?
        .run()?;
    for r in records {
        eprintln!("xtask: {}", r["line"].as_str().unwrap_or_default());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines of a Rust source that start a Python import inside a
    /// string literal (a line of its own, or after `"` or `\n`), 1-based.
    fn python_in_strings(rust: &str) -> Vec<usize> {
        rust.lines()
            .enumerate()
            .filter(|(_, line)| {
                let l = line.trim_start();
                let own =
                    l.starts_with("import ") || (l.starts_with("from ") && l.contains(" import "));
                own || ["\"import ", "\\nimport ", "\"from "]
                    .iter()
                    .any(|s| line.contains(s) && line.contains("import "))
            })
            .map(|(i, _)| i + 1)
            .collect()
    }

    #[test]
    fn the_detector_finds_an_embedded_program() {
        let rust = "use std::fs;\n/// Reads `import x` docs.\nconst A: &str = r#\"\nimport json, sys\nfrom pathlib import Path\nprint(1)\n\"#;\nconst B: &str = \"import sys\\nprint(2)\";\nconst C: &str = \"x\\nimport os\";\n";
        assert_eq!(python_in_strings(rust), [4, 5, 8, 9]);
    }

    /// Every Python program of xtask and of the crates' tests is a `.py`
    /// file, where `cargo xtask python lint` reaches it, not a string in Rust.
    #[test]
    fn no_python_program_in_rust_strings() {
        let mut files = crate::export::files_under(&root().join("xtask/src"), &|p| {
            p.extension().is_some_and(|e| e == "rs")
        });
        for krate in std::fs::read_dir(root().join("crates")).unwrap().flatten() {
            files.extend(crate::export::files_under(
                &krate.path().join("tests"),
                &|p| p.extension().is_some_and(|e| e == "rs"),
            ));
        }
        assert!(files.len() > 40, "{} Rust files", files.len());
        let found: Vec<String> = files
            .iter()
            .flat_map(|f| {
                let text = std::fs::read_to_string(f).unwrap();
                // This module's tests hold the detector's own patterns.
                let text = match f.ends_with("xtask/src/py.rs") {
                    true => text.split("#[cfg(test)]").next().unwrap_or("").to_string(),
                    false => text,
                };
                python_in_strings(&text)
                    .into_iter()
                    .map(move |n| format!("{}:{n}", f.display()))
            })
            .collect();
        assert!(found.is_empty(), "Python inside Rust strings: {found:?}");
    }
}
