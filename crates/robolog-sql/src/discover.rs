//! Finding the logs under the paths a query names, and their log ids.

use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::Error;

/// The log files under `paths`: each file as given, and every file under
/// each directory (searched recursively, in name order) whose first bytes
/// are a format [`robolog::probe`] recognises. Files named directly are
/// kept whatever they hold (opening them reports what is wrong).
///
/// ```
/// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag");
/// let logs = robolog_sql::find_logs(&[dir])?;
/// assert!(logs.iter().any(|p| p.ends_with("sample.bag")));
/// # Ok::<(), robolog_sql::Error>(())
/// ```
pub fn find_logs<P: AsRef<Path>>(paths: &[P]) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    for p in paths {
        let p = p.as_ref();
        let meta = std::fs::metadata(p).map_err(|e| Error::Io {
            path: p.to_path_buf(),
            source: e,
        })?;
        if meta.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(p.to_path_buf());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    let io = |e| Error::Io {
        path: dir.to_path_buf(),
        source: e,
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(io)?;
    entries.sort();
    for path in entries {
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            walk(&path, out)?;
        } else if meta.is_file() && is_log(&path) {
            out.push(path);
        }
    }
    Ok(())
}

/// Whether the file starts with the bytes of a format this build opens.
fn is_log(path: &Path) -> bool {
    let mut head = [0u8; robolog::PROBE_LEN];
    let Ok(f) = std::fs::File::open(path) else {
        return false;
    };
    let mut n = 0;
    let mut f = f.take(head.len() as u64);
    while n < head.len() {
        match f.read(&mut head[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    robolog::probe(&head[..n]).is_some()
}

/// The log id of each path, in order: its file name; when several paths
/// share a file name, the second gets `~2` before the extension, the third
/// `~3`, and so on.
///
/// ```
/// let ids = robolog_sql::log_ids(&["a/flight.ulg", "b/flight.ulg", "c/run"]);
/// assert_eq!(ids, ["flight.ulg", "flight~2.ulg", "run"]);
/// ```
pub fn log_ids<P: AsRef<Path>>(paths: &[P]) -> Vec<String> {
    let mut taken: HashSet<String> = HashSet::new();
    let mut out = Vec::with_capacity(paths.len());
    for p in paths {
        let p = p.as_ref();
        let name = p.file_name().map_or_else(
            || p.to_string_lossy().into_owned(),
            |n| n.to_string_lossy().into_owned(),
        );
        let mut id = name.clone();
        let mut k = 2;
        while !taken.insert(id.clone()) {
            id = numbered(&name, k);
            k += 1;
        }
        out.push(id);
    }
    out
}

/// `flight.ulg` with `k` = 2 is `flight~2.ulg`.
fn numbered(name: &str, k: usize) -> String {
    match name.rfind('.') {
        Some(dot) if dot > 0 => format!("{}~{k}{}", &name[..dot], &name[dot..]),
        _ => format!("{name}~{k}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_number_repeated_names() {
        assert_eq!(
            log_ids(&["x/a.bag", "y/a.bag", "z/a.bag", "b", "w/b", ".hidden"]),
            ["a.bag", "a~2.bag", "a~3.bag", "b", "b~2", ".hidden"]
        );
    }

    #[test]
    fn finds_logs_in_directories_only_by_their_bytes() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/vellog");
        let logs = find_logs(&[dir]).unwrap();
        let names: Vec<_> = logs
            .iter()
            .map(|p| p.file_name().unwrap().to_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "sensors.vel",
                "size-convention-b.vel",
                "spec-example.vel",
                "terminated.vel"
            ]
        );
        let missing = find_logs(&["/no/such/dir"]).unwrap_err();
        assert!(missing.to_string().contains("/no/such/dir"), "{missing}");
    }
}
