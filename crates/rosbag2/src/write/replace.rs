//! Which existing folders a bag may replace ([`check_replaceable`]): a
//! rosbag2 bag folder and nothing else, so that replacing an output
//! never deletes a file that is not part of a bag.

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use crate::bag::{check_entry, file_kind, read_metadata_text};
use crate::metadata::Metadata;

/// Why an existing folder is not replaced by a new bag: the folder, its
/// first entry that is not part of a bag (in name order), and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{} is not a rosbag2 bag folder, so it is not replaced: `{entry}` {reason}; nothing was deleted",
    folder.display()
)]
pub struct NotABag {
    /// The folder that would have been replaced.
    pub folder: PathBuf,
    /// Its entry that is not part of a bag (`metadata.yaml`, a file, a
    /// subfolder), or `.` for the folder itself.
    pub entry: String,
    /// What is wrong with it.
    pub reason: String,
}

/// Checks that the existing `folder` may be replaced by a new bag: it is
/// empty, or it is a rosbag2 bag folder, whose `metadata.yaml` (a regular
/// file) parses as rosbag2 metadata (a `rosbag2_bagfile_information`
/// mapping) and which holds nothing but that file, the storage files the
/// metadata names (`relative_file_paths` and `files`, regular files) and
/// SQLite's `-wal` and `-shm` files beside them. Anything else (another
/// file or a subfolder, a link, a metadata that does not parse, a path
/// that is not a folder) is refused, naming it; nothing is changed
/// either way.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("doc-replaceable-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("src"))?;
/// std::fs::write(dir.join("metadata.yaml"), "x: 1\n")?;
/// let e = rosbag2::write::check_replaceable(&dir).unwrap_err();
/// assert_eq!(e.entry, "metadata.yaml");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn check_replaceable(folder: &Path) -> Result<(), NotABag> {
    let refuse = |entry: &str, reason: String| NotABag {
        folder: folder.to_path_buf(),
        entry: entry.to_string(),
        reason,
    };
    let meta = std::fs::symlink_metadata(folder).map_err(|e| refuse(".", e.to_string()))?;
    if !meta.is_dir() {
        return Err(refuse(
            ".",
            format!("is {}, not a folder", file_kind(&meta)),
        ));
    }
    let mut names: Vec<OsString> = Vec::new();
    for e in std::fs::read_dir(folder).map_err(|e| refuse(".", e.to_string()))? {
        names.push(e.map_err(|e| refuse(".", e.to_string()))?.file_name());
    }
    if names.is_empty() {
        return Ok(());
    }
    names.sort();
    let mpath = folder.join("metadata.yaml");
    let mmeta = match std::fs::symlink_metadata(&mpath) {
        Ok(m) => m,
        Err(_) => {
            return Err(refuse(
                &names[0].to_string_lossy(),
                "is there, but the folder holds no metadata.yaml".into(),
            ));
        }
    };
    if !mmeta.is_file() {
        return Err(refuse(
            "metadata.yaml",
            format!("is {}, not a regular file", file_kind(&mmeta)),
        ));
    }
    let not_metadata = |reason: String| refuse("metadata.yaml", reason);
    let text = read_metadata_text(&mpath).map_err(|e| not_metadata(e.to_string()))?;
    let doc = crate::yaml::parse(&text)
        .map_err(|e| not_metadata(format!("is not rosbag2 metadata: {e}")))?;
    if doc.get("rosbag2_bagfile_information").is_none() {
        return Err(not_metadata(
            "is not rosbag2 metadata: expected a mapping with the key \
             `rosbag2_bagfile_information`"
                .into(),
        ));
    }
    let md = Metadata::parse(&text)
        .map_err(|e| not_metadata(format!("is not rosbag2 metadata: {e}")))?;
    // The names of the storage files, as the reader finds them.
    let own_name = folder
        .canonicalize()
        .ok()
        .and_then(|c| c.file_name().map(|n| n.to_os_string()));
    let mut named: HashSet<OsString> = HashSet::new();
    let entries = md
        .relative_file_paths
        .iter()
        .map(|p| ("relative_file_paths", p.as_str()))
        .chain(md.files.iter().map(|f| ("files", f.path.as_str())));
    for (field, entry) in entries {
        let rel = check_entry(&mpath, field, entry).map_err(|e| not_metadata(e.to_string()))?;
        let parts: Vec<OsString> = rel
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n.to_os_string()),
                _ => None,
            })
            .collect();
        match parts.as_slice() {
            [one] => {
                named.insert(one.clone());
            }
            // Bags of the first versions name their files under the bag
            // folder's own name.
            [first, one] if Some(first) == own_name.as_ref() => {
                named.insert(one.clone());
            }
            _ => {}
        }
    }
    for name in &names {
        let text = name.to_string_lossy();
        if text == "metadata.yaml" {
            continue;
        }
        let storage = named.contains(name)
            || ["-wal", "-shm"].iter().any(|s| {
                text.strip_suffix(s)
                    .is_some_and(|db| named.contains(&OsString::from(db)))
            });
        if !storage {
            let what =
                std::fs::symlink_metadata(folder.join(name)).map_or("an entry", |m| file_kind(&m));
            return Err(refuse(
                &text,
                format!("is {what} that its metadata.yaml does not name as a storage file"),
            ));
        }
        let m = std::fs::symlink_metadata(folder.join(name))
            .map_err(|e| refuse(&text, e.to_string()))?;
        if !m.is_file() {
            return Err(refuse(
                &text,
                format!(
                    "is named by its metadata.yaml but is {}, not a regular file",
                    file_kind(&m)
                ),
            ));
        }
    }
    Ok(())
}
