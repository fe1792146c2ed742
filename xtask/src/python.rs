//! The Python virtual environment used for interop checks and peer
//! benchmarks against the formats' reference implementations (rosbags,
//! pyulog, mcap, ...). Created by xtask itself under `target/interop-venv`,
//! with exact pinned versions from PyPI.

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

/// A Python environment with some packages installed.
pub(crate) struct Venv {
    dir: PathBuf,
}

impl Venv {
    /// Creates the environment if needed and installs every `name==version`
    /// in `packages` that is not installed at that version yet.
    pub(crate) fn with(packages: &[&str]) -> Result<Venv> {
        let dir = root().join("target/interop-venv");
        let venv = Venv { dir };
        if !venv.python().exists() {
            let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
            run(Command::new(&python).args(["-m", "venv"]).arg(&venv.dir))?;
        }
        let missing: Vec<&str> = packages.iter().copied().filter(|p| !venv.has(p)).collect();
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
