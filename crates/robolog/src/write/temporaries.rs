//! The temporary files (and folders) this process has open, listed so
//! that a process asked to end (a tool's `SIGINT` or `SIGTERM` handling)
//! removes them before it exits: no incomplete output is left behind.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use super::names::is_own_temporary;

/// The temporary files of the [`AtomicFile`](super::AtomicFile)s this
/// process has open (created, neither committed nor dropped yet), for
/// [`remove_open_temporaries`].
#[derive(Debug)]
pub(super) struct OpenTemporaries {
    /// The temporary files, in the order they were created.
    paths: Vec<PathBuf>,
    /// The temporary folders ([`TemporaryFolder`]).
    folders: Vec<PathBuf>,
    /// Set by [`remove_open_temporaries`]: the process is ending, and a
    /// temporary file created after that is removed at once.
    closed: bool,
}

/// The registry of this process.
static OPEN: Mutex<OpenTemporaries> = Mutex::new(OpenTemporaries {
    paths: Vec::new(),
    folders: Vec::new(),
    closed: false,
});

/// The registry, also after a thread panicked holding it (its list stays
/// valid: every change to it is one push or one removal).
pub(super) fn open_temporaries() -> MutexGuard<'static, OpenTemporaries> {
    OPEN.lock().unwrap_or_else(|e| e.into_inner())
}

impl OpenTemporaries {
    /// Lists `temp`, unless the process is ending: then false.
    pub(super) fn register(&mut self, temp: &Path) -> bool {
        if !self.closed {
            self.paths.push(temp.to_path_buf());
        }
        !self.closed
    }

    /// Takes `temp` off the list.
    pub(super) fn unregister(&mut self, temp: &Path) {
        if let Some(i) = self.paths.iter().rposition(|p| p == temp) {
            self.paths.swap_remove(i);
        }
    }

    /// Marks the process as ending, empties the list and removes the
    /// files of this process on it: how many were removed.
    fn remove_all(&mut self) -> usize {
        self.closed = true;
        let files = std::mem::take(&mut self.paths)
            .iter()
            .filter(|temp| is_own_temporary(temp) && std::fs::remove_file(temp).is_ok())
            .count();
        let folders = std::mem::take(&mut self.folders)
            .iter()
            .filter(|temp| is_own_folder(temp) && std::fs::remove_dir_all(temp).is_ok())
            .count();
        files + folders
    }
}

/// Whether `temp`'s name is that of a temporary folder of this process: a
/// hidden name ending in `-tmp-PID` (rosbag2's writer names its folders
/// `.NAME.rosbag2-tmp-PID`).
fn is_own_folder(temp: &Path) -> bool {
    let mine = format!("-tmp-{}", std::process::id());
    temp.file_name()
        .map(|n| n.to_string_lossy())
        .is_some_and(|n| n.starts_with('.') && n.ends_with(&mine))
}

/// A temporary folder an output is written into (a ROS 2 bag's, before it
/// is renamed into place), listed while this guard lives so that
/// [`remove_open_temporaries`] removes it with the temporary files. Only a
/// hidden folder whose name ends in `-tmp-` and this process's id is ever
/// removed. The writer that made the folder still removes it on errors and
/// renames it when complete; drop the guard then.
#[derive(Debug)]
pub struct TemporaryFolder {
    path: PathBuf,
}

impl TemporaryFolder {
    /// Lists `path`. When the process is already ending, the folder is
    /// removed at once and the error is
    /// [`io::ErrorKind::Interrupted`](std::io::ErrorKind::Interrupted).
    pub fn watch(path: &Path) -> std::io::Result<TemporaryFolder> {
        let mut open = open_temporaries();
        if open.closed {
            if is_own_folder(path) {
                let _ = std::fs::remove_dir_all(path);
            }
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "the process is ending: no output is started",
            ));
        }
        open.folders.push(path.to_path_buf());
        Ok(TemporaryFolder {
            path: path.to_path_buf(),
        })
    }
}

impl Drop for TemporaryFolder {
    fn drop(&mut self) {
        let mut open = open_temporaries();
        if let Some(i) = open.folders.iter().rposition(|p| *p == self.path) {
            open.folders.swap_remove(i);
        }
    }
}

/// Removes the temporary file of every [`AtomicFile`](super::AtomicFile)
/// of this process that is open (created, neither committed nor dropped),
/// and every [`TemporaryFolder`] listed, and returns how many it removed;
/// the temporary copies of inputs go too ([`remove_temporary_copies`]). Only files whose names carry `.robolog-tmp-` (`TEMP_MARKER`) and this
/// process's id are touched.
///
/// Meant for a process that is about to exit without unwinding (on
/// `SIGINT` or `SIGTERM`, from a thread that waits for the signal, never
/// inside a signal handler: it takes a lock, allocates and removes files),
/// so that no incomplete output is left behind; the destinations stay
/// untouched. From then on the process is taken to be ending: an
/// [`AtomicFile`](super::AtomicFile) created afterwards fails (its
/// temporary file is removed at once, the error is
/// [`io::ErrorKind::Interrupted`](std::io::ErrorKind::Interrupted)), and
/// one being committed fails if its temporary file was removed first.
///
/// ```
/// use std::io::Write;
/// use robolog::write::{AtomicFile, OutputPolicy, remove_open_temporaries};
///
/// let dir = std::env::temp_dir().join(format!("robolog-doc-open-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let mut f = AtomicFile::create(&dir.join("out.csv"), &OutputPolicy::new(false)).unwrap();
/// f.write_all(b"t,x\n")?;
/// let temp = f.temp_path().to_path_buf();
/// assert_eq!(remove_open_temporaries(), 1);
/// assert!(!temp.exists());
/// // The process is ending: no new output is started.
/// assert!(AtomicFile::create(&dir.join("more.csv"), &OutputPolicy::new(false)).is_err());
/// # drop(f);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn remove_open_temporaries() -> usize {
    let removed = open_temporaries().remove_all();
    remove_temporary_copies();
    removed
}

/// Removes the temporary copies the readers of this process made of their
/// inputs (a ROS 2 bag's decompressed storage files and databases copied
/// with their logs, `rosbag2-PID-...` in the system's temporary folder) and
/// returns how many it removed; a reader that needs a new copy afterwards
/// fails. [`remove_open_temporaries`] does this too (without counting
/// them: they are no outputs). For a program about to exit without
/// dropping the logs it read.
pub fn remove_temporary_copies() -> usize {
    #[cfg(feature = "rosbag2")]
    {
        rosbag2::remove_temporary_copies()
    }
    #[cfg(not(feature = "rosbag2"))]
    {
        0
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::write::names::temp_name;
    use crate::write::testing::{entries, scratch};
    use crate::write::{AtomicFile, OutputPolicy};

    /// Whether `temp` is on the list of open temporary files.
    fn listed(temp: &Path) -> bool {
        open_temporaries().paths.iter().any(|p| p == temp)
    }

    #[test]
    fn only_own_hidden_tmp_folders_are_removed() {
        let pid = std::process::id();
        assert!(is_own_folder(Path::new(&format!(
            "/x/.bag.rosbag2-tmp-{pid}"
        ))));
        assert!(!is_own_folder(Path::new(&format!(
            "/x/bag.rosbag2-tmp-{pid}"
        ))));
        assert!(!is_own_folder(Path::new(&format!(
            "/x/.bag.rosbag2-tmp-{}",
            pid + 1
        ))));
        assert!(!is_own_folder(Path::new("/x/.bag")));
        let dir = scratch("folders");
        let temp = dir.join(format!(".out.rosbag2-tmp-{pid}"));
        std::fs::create_dir_all(temp.join("inner")).unwrap();
        let guard = TemporaryFolder::watch(&temp).unwrap();
        assert!(open_temporaries().folders.contains(&temp));
        drop(guard);
        assert!(!open_temporaries().folders.contains(&temp));
        assert!(
            temp.is_dir(),
            "a dropped guard leaves the folder to its writer"
        );
    }

    #[test]
    fn open_temporaries_are_listed_until_committed_or_dropped() {
        let dir = scratch("registry");
        let policy = OutputPolicy::new(false);
        let mut a = AtomicFile::create(&dir.join("a.csv"), &policy).unwrap();
        let b = AtomicFile::create(&dir.join("b.csv"), &policy).unwrap();
        a.write_all(b"a").unwrap();
        let (ta, tb) = (a.temp_path().to_path_buf(), b.temp_path().to_path_buf());
        assert!(listed(&ta) && listed(&tb));
        a.commit().unwrap();
        assert!(!listed(&ta) && listed(&tb));
        drop(b);
        assert!(!listed(&tb));
        assert_eq!(entries(&dir), ["a.csv"]);

        // Removing: on a list of its own, so that the files of the tests
        // running beside this one stay and the process is not ending.
        let c = AtomicFile::create(&dir.join("c.csv"), &policy).unwrap();
        let d = AtomicFile::create(&dir.join("d.csv"), &policy).unwrap();
        let (tc, td) = (c.temp_path().to_path_buf(), d.temp_path().to_path_buf());
        // Not a temporary file of this process: never removed.
        let other = dir.join(temp_name("e.csv", 4_294_967_295, 0));
        std::fs::write(&other, "another process's").unwrap();
        // A temporary folder of this process with what it holds, and one
        // named as another process's: only the first is removed.
        let pid = std::process::id();
        let folder = dir.join(format!(".bag.rosbag2-tmp-{pid}"));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("bag_0.db3"), "rows").unwrap();
        let others = dir.join(".bag.rosbag2-tmp-4294967295");
        std::fs::create_dir_all(&others).unwrap();
        let mut list = OpenTemporaries {
            paths: vec![tc.clone(), other.clone(), td.clone(), dir.join("gone")],
            folders: vec![folder.clone(), others.clone()],
            closed: false,
        };
        assert_eq!(list.remove_all(), 3);
        assert!(list.paths.is_empty() && list.folders.is_empty() && list.closed);
        assert!(!folder.exists() && others.is_dir());
        std::fs::remove_dir_all(&others).unwrap();
        assert!(!tc.exists() && !td.exists() && other.exists());
        assert!(!dir.join("c.csv").exists() && !dir.join("d.csv").exists());
        // Ending: nothing more is listed, nothing is removed twice.
        assert!(!list.register(&tc));
        assert_eq!(list.remove_all(), 0);
        // The committed file is no temporary: never touched.
        assert_eq!(std::fs::read(dir.join("a.csv")).unwrap(), b"a");
        // A commit whose temporary file was removed fails, and leaves no
        // output.
        assert!(d.commit().is_err());
        drop(c);
        assert!(!listed(&tc) && !listed(&td));
        assert_eq!(entries(&dir).len(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
