//! The Python virtual environment used for interop checks and peer
//! benchmarks against the formats' reference implementations (rosbags,
//! pyulog, mcap, ...). Created by xtask itself under `target/interop-venv`,
//! with the exact versions `xtask/requirements.txt` pins, from PyPI.

use std::path::PathBuf;
use std::process::Command;

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
}

impl Venv {
    /// Creates the environment if needed and installs every package named
    /// in `packages` that is not installed at its pinned version
    /// ([`pinned`]) yet.
    pub(crate) fn with(packages: &[&str]) -> Result<Venv> {
        let packages = packages
            .iter()
            .map(|name| pinned(name))
            .collect::<Result<Vec<_>>>()?;
        let dir = root().join("target/interop-venv");
        let venv = Venv { dir };
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
