//! The Python virtual environment used for interop checks and peer
//! benchmarks against the formats' reference implementations (rosbags,
//! pyulog, mcap, ...). Created by xtask itself under `target/interop-venv`,
//! with the exact versions `xtask/requirements.txt` pins, from PyPI.
//!
//! xtask's Python lives in `xtask/pytests/` ([`py_dir`]): the checks are
//! pytest modules (`test_*.py`, run by [`Venv::pytest`] with the inputs
//! xtask prepared), beside the generators and the peers' benchmarks that
//! xtask runs as scripts ([`Venv::script`]).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value as Json;

use crate::{Result, root, run};

/// What `cmd` (a Python script, `what` in the error) printed, or the error
/// naming it and its stderr when it could not run or failed.
pub(crate) fn stdout_of(mut cmd: Command, what: &str) -> Result<String> {
    let out = cmd.output().map_err(|e| format!("python: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The pins of `xtask/requirements.txt`: `name==version` lines; `#`
/// starts a comment.
const REQUIREMENTS: &str = include_str!("../requirements.txt");

/// The pinned requirement (`name==version`) of package `name`, or an
/// error when `xtask/requirements.txt` does not pin it.
pub(crate) fn pinned(name: &str) -> Result<&'static str> {
    REQUIREMENTS
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .find(|l| l.split_once("==").is_some_and(|(n, _)| n == name))
        .ok_or_else(|| format!("python: xtask/requirements.txt pins no version of {name}"))
}

/// A Python environment with some packages installed.
pub(crate) struct Venv {
    dir: PathBuf,
    /// Whether `pytest` was among the packages asked for.
    pytest: bool,
}

impl Venv {
    /// Creates the environment if needed and installs every package named
    /// in `packages` that is not installed at its pinned version
    /// ([`pinned`]) yet.
    pub(crate) fn with(packages: &[&str]) -> Result<Venv> {
        let pytest = packages.contains(&"pytest");
        let packages = packages
            .iter()
            .map(|name| pinned(name))
            .collect::<Result<Vec<_>>>()?;
        let dir = root().join("target/interop-venv");
        let venv = Venv { dir, pytest };
        if !venv.python().exists() {
            let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
            run(Command::new(&python).args(["-m", "venv"]).arg(&venv.dir))?;
        }
        let missing: Vec<&str> = packages.into_iter().filter(|p| !venv.has(p)).collect();
        if !missing.is_empty() {
            run(Command::new(venv.python())
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                ])
                .args(&missing))?;
        }
        Ok(venv)
    }

    /// The environment's interpreter.
    pub(crate) fn python(&self) -> PathBuf {
        self.dir.join("bin/python")
    }

    /// A command running the environment's interpreter.
    pub(crate) fn command(&self) -> Command {
        let mut c = Command::new(self.python());
        c.current_dir(root());
        c
    }

    /// A command running `xtask/pytests/{name}` as a script.
    pub(crate) fn script(&self, name: &str) -> Command {
        let mut c = self.command();
        c.env("PYTHONDONTWRITEBYTECODE", "1")
            .arg(py_dir().join(name));
        c
    }

    /// pytest of the module `xtask/pytests/{module}`; `pytest` must be
    /// among the packages the environment was made [`with`](Venv::with).
    pub(crate) fn pytest(&self, module: &str) -> Pytest {
        let results = root()
            .join("target/pytest-results")
            .join(module.trim_end_matches(".py"))
            .with_extension("jsonl");
        let mut cmd = self.command();
        cmd.args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .args(["-rfEs", "--tb=short", "--color=no"])
            // No __pycache__ in the source tree.
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .arg(py_dir().join(module))
            .arg("--results")
            .arg(&results);
        Pytest {
            cmd,
            module: module.to_string(),
            results,
            pinned: self.pytest,
        }
    }

    /// Whether `name==version` is installed.
    fn has(&self, pinned: &str) -> bool {
        let Some((name, version)) = pinned.split_once("==") else {
            return false;
        };
        Command::new(self.python())
            .args(["-m", "pip", "show", name])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .any(|l| l.trim() == format!("Version: {version}"))
            })
            .unwrap_or(false)
    }
}

/// The folder of xtask's Python: the pytest checks, their `conftest.py`,
/// the helpers they import, and the scripts xtask runs.
pub(crate) fn py_dir() -> PathBuf {
    root().join("xtask/pytests")
}

/// The name of the test of the input `path` (pytest's id of a manifest
/// entry): its path in `corpus`, else in the checkout, else all of it.
pub(crate) fn test_id(path: &Path, corpus: Option<&Path>) -> String {
    corpus
        .and_then(|c| path.strip_prefix(c).ok())
        .or_else(|| path.strip_prefix(root()).ok())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// One run of a pytest module of [`py_dir`] (see its `conftest.py`: the
/// options `--manifest`, `--robolog` and `--results`).
pub(crate) struct Pytest {
    cmd: Command,
    module: String,
    results: PathBuf,
    /// Whether the environment was made with pytest at its pin.
    pinned: bool,
}

impl Pytest {
    /// Runs the module `xtask/pytests/{module}` too, in the same pytest
    /// run (same manifest, options and results file): a check that shares
    /// a step's inputs without a step of its own.
    pub(crate) fn module(mut self, module: &str) -> Pytest {
        self.cmd.arg(py_dir().join(module));
        self
    }

    /// Adds the option `--{name} value`.
    pub(crate) fn opt(mut self, name: &str, value: impl AsRef<OsStr>) -> Pytest {
        self.cmd.arg(format!("--{name}")).arg(value);
        self
    }

    /// Writes `manifest` (a JSON object whose `entries` parametrize the
    /// tests) to `path` and passes it as `--manifest`.
    pub(crate) fn manifest(self, path: &Path, manifest: &Json) -> Result<Pytest> {
        std::fs::write(path, manifest.to_string())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(self.opt("manifest", path))
    }

    /// Sets an environment variable of the run.
    pub(crate) fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Pytest {
        self.cmd.env(key, value);
        self
    }

    /// Runs pytest, its report on the terminal; the objects the tests
    /// recorded (conftest's `record`), in order, when every test passed,
    /// else an error naming the module.
    pub(crate) fn run(mut self) -> Result<Vec<Json>> {
        if !self.pinned {
            return Err(format!(
                "xtask/pytests/{}: the environment was not made with \"pytest\" \
                 (add it to the Venv::with list)",
                self.module
            ));
        }
        if let Some(dir) = self.results.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        match std::fs::remove_file(&self.results) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(format!("{}: {e}", self.results.display()));
            }
            _ => {}
        }
        eprintln!("xtask: running {:?}", self.cmd);
        let status = self
            .cmd
            .status()
            .map_err(|e| format!("could not start pytest: {e}"))?;
        if !status.success() {
            return Err(format!(
                "pytest xtask/pytests/{} failed ({status}); its report is above",
                self.module
            ));
        }
        let text = match std::fs::read_to_string(&self.results) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(format!("{}: {e}", self.results.display())),
        };
        text.lines()
            .map(|l| {
                serde_json::from_str(l).map_err(|e| format!("{}: {e}", self.results.display()))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_requirement_is_one_exact_pin_of_its_own() {
        let mut names = Vec::new();
        for line in REQUIREMENTS.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let (name, version) = line.split_once("==").expect("name==version");
            assert!(
                !version.is_empty() && version.chars().all(|c| c.is_ascii_digit() || c == '.'),
                "{line}: not an exact version"
            );
            assert!(!names.contains(&name), "{name} pinned twice");
            names.push(name);
        }
        assert_eq!(pinned("rosbags").ok(), Some("rosbags==0.11.9"));
        assert!(pinned("rosbag").is_err(), "a prefix is no package");
    }

    /// Every Python file of xtask is in [`py_dir`], and each compiles
    /// (Python's `compile`, which writes no bytecode); skipped when there
    /// is no `python3` (or `$PYTHON`).
    #[test]
    fn every_python_file_of_xtask_compiles() {
        let is_py = |p: &Path| p.extension().is_some_and(|e| e == "py");
        let strays = crate::export::files_under(&root().join("xtask/src"), &is_py);
        assert!(
            strays.is_empty(),
            "Python outside xtask/pytests: {strays:?}"
        );
        let files = crate::export::files_under(&py_dir(), &is_py);
        assert!(
            files.len() >= 20,
            "{} Python files in xtask/pytests",
            files.len()
        );
        let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
        if Command::new(&python).arg("--version").output().is_err() {
            eprintln!("skipped: no {python} to compile xtask/pytests/*.py with");
            return;
        }
        let out = Command::new(&python)
            .arg("-c")
            .arg(
                "for p in __import__('sys').argv[1:]:\n    \
                 compile(open(p, encoding='utf-8').read(), p, 'exec')",
            )
            .args(&files)
            .output()
            .expect("python runs");
        assert!(
            out.status.success(),
            "a Python file of xtask/pytests does not compile:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    #[test]
    fn every_package_xtask_names_is_pinned() {
        // The string literals of the lists handed to Venv::with: the
        // PACKAGES constants and the inline lists.
        let sources = std::fs::read_dir(root().join("xtask/src")).expect("xtask/src");
        for file in sources.flatten() {
            let path = file.path();
            // This file names the patterns it looks for.
            if path.extension().is_none_or(|e| e != "rs") || path.ends_with("python.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("a source file");
            for list in text.split("Venv::with(&[").skip(1).chain(
                text.split("PACKAGES: [&str; ")
                    .skip(1)
                    .map(|s| s.split_once('[').map_or("", |(_, rest)| rest)),
            ) {
                let list = list.split(']').next().unwrap_or("");
                for name in list.split('"').skip(1).step_by(2) {
                    assert!(
                        pinned(name).is_ok(),
                        "{}: {name} is not pinned",
                        path.display()
                    );
                }
            }
        }
    }
}
