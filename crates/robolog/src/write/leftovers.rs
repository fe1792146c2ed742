//! The leftovers of killed processes: temporary files whose writer is no
//! longer running, found so that a later run can name them and how to
//! recover them. Those holding bytes are never deleted here (they may be
//! all that is left of some data); empty ones may be removed.

use std::path::{Path, PathBuf};

use super::TEMP_MARKER;
use super::names::{parent_dir, temp_pid};

/// A temporary file left by a process that was killed (or crashed) while
/// writing an output, found by [`leftovers`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leftover {
    /// The temporary file.
    pub path: PathBuf,
    /// The process that wrote it.
    pub pid: u32,
}

/// The temporary files of `dest` (see `.robolog-tmp-` (`TEMP_MARKER`)) whose process is
/// not running any more, named as `dest` is (same folder spelling), sorted
/// by name: what interrupted runs writing
/// `dest` left. They are not touched. Where it cannot be told whether a
/// process runs (no `/proc`), every temporary file of another process is
/// listed.
///
/// ```
/// use robolog::write::{Leftover, leftovers};
///
/// let dir = std::env::temp_dir().join(format!("robolog-doc-leftovers-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// // Process ids are below 2^22 on Linux: this one never runs.
/// let left = dir.join(".out.mcap.robolog-tmp-4294967295-0");
/// std::fs::write(&left, "partial")?;
/// assert_eq!(leftovers(&dir.join("out.mcap")), [Leftover { path: left, pid: u32::MAX }]);
/// assert!(leftovers(&dir.join("other.mcap")).is_empty());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn leftovers(dest: &Path) -> Vec<Leftover> {
    let Some(name) = dest.file_name() else {
        return Vec::new();
    };
    leftovers_in(parent_dir(dest))
        .into_iter()
        .filter(|(n, _)| n.as_os_str() == name)
        .map(|(_, mut left)| {
            left.path = dest.with_file_name(left.path.file_name().unwrap_or_default());
            left
        })
        .collect()
}

/// Every temporary file in the folder `dir` (see `.robolog-tmp-` (`TEMP_MARKER`)), and
/// every temporary folder of a ROS 2 bag being written (`.NAME.rosbag2-tmp-PID`), whose
/// process is not running any more, with the name of the output it was
/// written for, sorted by path: [`leftovers`] of every output in `dir` at
/// the cost of one listing, for a command writing many files there.
pub fn leftovers_in(dir: &Path) -> Vec<(PathBuf, Leftover)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(PathBuf, Leftover)> = entries
        .filter_map(|e| {
            let file_name = e.ok()?.file_name();
            let text = file_name.to_string_lossy();
            let (name, pid) = match text.rfind(TEMP_MARKER) {
                Some(at) => {
                    let name = text.get(1..at).filter(|_| text.starts_with('.'))?;
                    (name, temp_pid(&text, name)?)
                }
                None => folder_pid(&text)?,
            };
            (process_running(pid) != Some(true)).then(|| {
                (
                    PathBuf::from(name),
                    Leftover {
                        path: dir.join(&file_name),
                        pid,
                    },
                )
            })
        })
        .collect();
    found.sort_by(|a, b| a.1.path.cmp(&b.1.path));
    found
}

/// What the temporary folder of a ROS 2 bag being written holds between
/// the bag's name and the writing process's id: `.NAME.rosbag2-tmp-PID`.
const FOLDER_MARKER: &str = ".rosbag2-tmp-";

/// The output's name and the process id in `file_name` when it is the
/// name of a ROS 2 bag's temporary folder (`.NAME.rosbag2-tmp-PID`).
fn folder_pid(file_name: &str) -> Option<(&str, u32)> {
    let at = file_name.rfind(FOLDER_MARKER)?;
    let name = file_name
        .get(1..at)
        .filter(|_| file_name.starts_with('.'))?;
    let pid = file_name[at + FOLDER_MARKER.len()..].parse().ok()?;
    (!name.is_empty()).then_some((name, pid))
}

/// The temporary copies that readers of killed processes left in the
/// system's temporary folder (a ROS 2 bag's decompressed storage files,
/// databases copied with their logs: folders `rosbag2-PID-...` of this
/// user whose process no longer runs), sorted by path. They hold copies of
/// inputs only and are not touched here; a later run names them with the
/// command that removes them.
pub fn temporary_copy_leftovers() -> Vec<Leftover> {
    #[cfg(feature = "rosbag2")]
    {
        rosbag2::temporary_leftovers()
            .into_iter()
            .map(|l| Leftover {
                path: l.path,
                pid: l.pid,
            })
            .collect()
    }
    #[cfg(not(feature = "rosbag2"))]
    {
        Vec::new()
    }
}

/// Removes the temporary files of `dest` that [`leftovers`] finds and
/// that are provably of no use: empty (0 bytes, a regular file) and of a
/// process known not to run any more (never where that cannot be told).
/// Returns how many were removed. Those holding bytes are kept, as by
/// [`leftovers`]: they may be all that is left of some data.
///
/// ```
/// use robolog::write::{leftovers, remove_empty_leftovers};
///
/// let dir = std::env::temp_dir().join(format!("robolog-doc-empty-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// // Process ids are below 2^22 on Linux: these never run.
/// let empty = dir.join(".out.mcap.robolog-tmp-4294967295-0");
/// let partial = dir.join(".out.mcap.robolog-tmp-4294967295-1");
/// std::fs::write(&empty, "")?;
/// std::fs::write(&partial, "partial")?;
/// let out = dir.join("out.mcap");
/// if std::path::Path::new("/proc/self").exists() {
///     assert_eq!(remove_empty_leftovers(&out), 1);
///     assert!(!empty.exists());
///     assert_eq!(leftovers(&out).len(), 1);
/// }
/// assert_eq!(std::fs::read(&partial)?, b"partial");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn remove_empty_leftovers(dest: &Path) -> usize {
    leftovers(dest)
        .iter()
        .filter(|left| remove_if_empty(left))
        .count()
}

/// Removes `left` if it is an empty file whose process is known to be
/// gone (see [`remove_empty_leftovers`]); whether it did.
pub fn remove_if_empty(left: &Leftover) -> bool {
    process_running(left.pid) == Some(false)
        && std::fs::symlink_metadata(&left.path).is_ok_and(|m| m.is_file() && m.len() == 0)
        && std::fs::remove_file(&left.path).is_ok()
}

/// Whether process `pid` runs, when that can be told.
fn process_running(pid: u32) -> Option<bool> {
    if pid == std::process::id() {
        return Some(true);
    }
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return None;
    }
    Some(proc.join(pid.to_string()).exists())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::names::temp_name;
    use crate::write::testing::{entries, scratch};

    #[test]
    fn leftovers_are_the_temp_files_of_processes_that_are_gone() {
        let dir = scratch("leftovers");
        let out = dir.join("run.bag");
        let names = [
            ".run.bag.robolog-tmp-4294967295-3",
            ".run.bag.robolog-tmp-4294967294-0",
            // Not temporary files of run.bag.
            ".run.bag.orig.bag.robolog-tmp-4294967295-0",
            ".run.bag.robolog-tmp-x-0",
            ".run.bag.robolog-tmp-4294967295",
            "run.bag.robolog-tmp-4294967295-0",
        ];
        for n in names {
            std::fs::write(dir.join(n), n).unwrap();
        }
        let mine = dir.join(temp_name("run.bag", std::process::id(), 7));
        std::fs::write(&mine, "being written").unwrap();
        assert_eq!(
            leftovers(&out),
            [
                Leftover {
                    path: dir.join(names[1]),
                    pid: 4294967294
                },
                Leftover {
                    path: dir.join(names[0]),
                    pid: 4294967295
                },
            ]
        );
        // Listing touches nothing.
        assert_eq!(entries(&dir).len(), names.len() + 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_temporary_folders_of_bags_being_written_are_leftovers() {
        let dir = scratch("folder-leftovers");
        let gone = dir.join(".out.rosbag2-tmp-4294967295");
        std::fs::create_dir_all(&gone).unwrap();
        std::fs::write(gone.join("out_0.db3"), "rows").unwrap();
        let mine = dir.join(format!(".out.rosbag2-tmp-{}", std::process::id()));
        std::fs::create_dir_all(&mine).unwrap();
        std::fs::create_dir_all(dir.join("out.rosbag2-tmp-4294967295")).unwrap();
        std::fs::create_dir_all(dir.join(".out.rosbag2-tmp-x")).unwrap();
        assert_eq!(
            leftovers(&dir.join("out")),
            [Leftover {
                path: gone.clone(),
                pid: u32::MAX
            }]
        );
        assert!(leftovers(&dir.join("other")).is_empty());
        assert!(gone.join("out_0.db3").exists(), "listing touches nothing");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn empty_leftovers_of_gone_processes_are_removed() {
        let dir = scratch("empty-leftovers");
        let out = dir.join("run.mcap");
        let empty = dir.join(temp_name("run.mcap", 4_294_967_295, 0));
        let partial = dir.join(temp_name("run.mcap", 4_294_967_295, 1));
        let other = dir.join(temp_name("other.mcap", 4_294_967_295, 0));
        let mine = dir.join(temp_name("run.mcap", std::process::id(), 0));
        for (p, data) in [
            (&empty, ""),
            (&partial, "partial"),
            (&other, ""),
            (&mine, ""),
        ] {
            std::fs::write(p, data).unwrap();
        }
        let can_tell = process_running(4_294_967_295) == Some(false);
        assert_eq!(remove_empty_leftovers(&out), usize::from(can_tell));
        assert_eq!(empty.exists(), !can_tell);
        // Data, another output's file and a running process's are kept.
        assert_eq!(std::fs::read(&partial).unwrap(), b"partial");
        assert!(other.exists() && mine.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
