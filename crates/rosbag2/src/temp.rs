//! Temporary folders for the copies SQLite needs (a decompressed
//! `.db3.zstd`, a database with a write-ahead log), made by `tempfile` as
//! `rosbag2-PID-...` in the system's temporary folder.
//!
//! Each is removed when dropped, and every one this process has is listed
//! so that a program ending on a signal (without unwinding) removes them
//! with [`remove_temporary_copies`]; the folders a killed process left are
//! found by the process id in their names ([`temporary_leftovers`]).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// What the names of the temporary folders start with, before the
/// process id: `rosbag2-PID-...`.
const TEMP_PREFIX: &str = "rosbag2-";

/// The temporary folders of this process, and whether it is ending.
struct Live {
    paths: Vec<PathBuf>,
    closed: bool,
}

static LIVE: Mutex<Live> = Mutex::new(Live {
    paths: Vec::new(),
    closed: false,
});

/// The list, also after a thread panicked holding it (each change to it
/// is one push or one removal).
fn live() -> MutexGuard<'static, Live> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A folder under the system's temporary folder, removed with its
/// content when dropped (by `tempfile`), and listed while it exists.
#[derive(Debug)]
pub(crate) struct TempDir {
    path: PathBuf,
    dir: Option<tempfile::TempDir>,
}

impl TempDir {
    /// Creates and lists the folder; when the process is ending
    /// ([`remove_temporary_copies`] was called), nothing is made and the
    /// error is [`Interrupted`](std::io::ErrorKind::Interrupted).
    pub(crate) fn new() -> std::io::Result<Self> {
        // Made and listed under the lock: a removal of every listed folder
        // cannot come in between.
        let mut live = live();
        if live.closed {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "the process is ending: no temporary copy is made",
            ));
        }
        let dir = tempfile::Builder::new()
            .prefix(&format!("{TEMP_PREFIX}{}-", std::process::id()))
            .tempdir()?;
        let path = dir.path().to_path_buf();
        live.paths.push(path.clone());
        Ok(TempDir {
            path,
            dir: Some(dir),
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    /// Removes the folder, then unlists it (so that it is listed for as
    /// long as it exists).
    fn drop(&mut self) {
        if let Some(dir) = self.dir.take() {
            let _ = dir.close();
        }
        let mut live = live();
        if let Some(i) = live.paths.iter().rposition(|p| *p == self.path) {
            live.paths.swap_remove(i);
        }
    }
}

/// Removes every temporary folder of this process (the copies of the bags
/// it has open) and returns how many it removed. From then on the process
/// is taken to be ending: opening a bag that needs a copy fails with
/// [`Interrupted`](std::io::ErrorKind::Interrupted).
///
/// For a program about to exit without dropping its bags: on `SIGINT` or
/// `SIGTERM` (from a thread that waits for the signal, not inside a signal
/// handler: it takes a lock and removes files), or after a command that
/// leaves its readers to the exit. The `robolog` command does both.
pub fn remove_temporary_copies() -> usize {
    let mut live = live();
    live.closed = true;
    std::mem::take(&mut live.paths)
        .iter()
        .filter(|p| std::fs::remove_dir_all(p).is_ok())
        .count()
}

/// A temporary folder a killed process left (see [`temporary_leftovers`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemporaryLeftover {
    /// The folder.
    pub path: PathBuf,
    /// The process that made it.
    pub pid: u32,
}

/// The temporary folders (`rosbag2-PID-...` in the system's temporary
/// folder) of processes of this user that no longer run, sorted by path:
/// copies a killed reader left. They hold copies of bags only, never
/// anything else; nothing is touched here. Empty where it cannot be told
/// whether a process runs (no `/proc`).
pub fn temporary_leftovers() -> Vec<TemporaryLeftover> {
    leftovers_in(&std::env::temp_dir())
}

fn leftovers_in(dir: &Path) -> Vec<TemporaryLeftover> {
    let proc = Path::new("/proc");
    let Ok(me) = std::fs::metadata(proc.join("self")) else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<TemporaryLeftover> = entries
        .filter_map(|e| {
            let e = e.ok()?;
            let name = e.file_name();
            let pid: u32 = name
                .to_str()?
                .strip_prefix(TEMP_PREFIX)?
                .split_once('-')?
                .0
                .parse()
                .ok()?;
            let meta = e.metadata().ok()?;
            let gone = pid != std::process::id() && !proc.join(pid.to_string()).exists();
            (gone && meta.is_dir() && same_owner(&meta, &me)).then(|| TemporaryLeftover {
                path: e.path(),
                pid,
            })
        })
        .collect();
    found.sort_by(|a, b| a.path.cmp(&b.path));
    found
}

#[cfg(unix)]
fn same_owner(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.uid() == b.uid()
}

#[cfg(not(unix))]
fn same_owner(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_listed_while_they_live_and_leftovers_are_found() {
        let t = TempDir::new().unwrap();
        assert!(live().paths.contains(&t.path));
        let p = t.path.clone();
        drop(t);
        assert!(!p.exists() && !live().paths.contains(&p));

        let dir =
            std::env::temp_dir().join(format!("rosbag2-test-leftovers-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Process ids are below 2^22 on Linux: this one never runs.
        let gone = dir.join("rosbag2-4294967295-12-0");
        std::fs::create_dir_all(&gone).unwrap();
        let mine = dir.join(format!("rosbag2-{}-12-0", std::process::id()));
        std::fs::create_dir_all(&mine).unwrap();
        std::fs::write(dir.join("rosbag2-4294967294-1-0"), "a file").unwrap();
        std::fs::create_dir_all(dir.join("rosbag2-x-1-0")).unwrap();
        if Path::new("/proc/self").exists() {
            assert_eq!(
                leftovers_in(&dir),
                [TemporaryLeftover {
                    path: gone.clone(),
                    pid: u32::MAX
                }]
            );
        }
        assert!(gone.is_dir(), "listing touches nothing");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn made_folders_carry_the_process_id_that_finds_them_as_leftovers() {
        let pid = std::process::id();
        let t = TempDir::new().unwrap();
        assert!(t.path().is_dir());
        assert_eq!(t.path().parent(), Some(std::env::temp_dir().as_path()));
        let name = t.path().file_name().unwrap().to_str().unwrap().to_owned();
        let rest = name.strip_prefix(&format!("rosbag2-{pid}-")).unwrap();
        assert!(!rest.is_empty() && !rest.contains('-'), "{name}");

        // The same name under a process id that never runs is a leftover.
        let dir = std::env::temp_dir().join(format!("rosbag2-test-names-{pid}"));
        std::fs::create_dir_all(&dir).unwrap();
        let gone = dir.join(format!("rosbag2-4294967295-{rest}"));
        std::fs::create_dir_all(&gone).unwrap();
        if Path::new("/proc/self").exists() {
            assert_eq!(
                leftovers_in(&dir),
                [TemporaryLeftover {
                    path: gone,
                    pid: u32::MAX
                }]
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();

        // Listed while it exists; removed by `tempfile` and unlisted on drop.
        let p = t.path().to_path_buf();
        assert!(live().paths.contains(&p));
        drop(t);
        assert!(!p.exists() && !live().paths.contains(&p));
    }
}
