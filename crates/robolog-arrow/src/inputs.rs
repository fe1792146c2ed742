//! The logs of a fleet: finding them in folders, naming them (`log_id`)
//! and the Hive escaping of those names in partition folders.

use std::collections::{HashMap, HashSet};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The log files among `paths`: a file is taken as given (whatever it
/// holds: opening it says whether it is a log); a folder that is a log (a
/// ROS 2 bag: [`robolog::probe_folder`]) is one log, given or found;
/// another folder is searched recursively, in name order, for files whose
/// first bytes a format of the [`robolog`] facade recognises
/// ([`robolog::probe`]). Hidden files and
/// folders (names starting with `.`, such as the temporary files of
/// interrupted writes) are left out of the search, and a folder reached
/// twice (through a symbolic link) is searched once. A file reached twice
/// (given and found in a folder given, or by two spellings or links) is
/// one log, listed where it was first reached.
///
/// ```
/// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/vellog");
/// let logs = robolog_arrow::find_logs(&[dir])?;
/// assert_eq!(logs.len(), 4);
/// assert!(logs[0].ends_with("sensors.vel"));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn find_logs<P: AsRef<Path>>(paths: &[P]) -> io::Result<Vec<PathBuf>> {
    Ok(find_named_logs(paths)?
        .into_iter()
        .map(|(p, _)| p)
        .collect())
}

/// [`find_logs`], each log with its `log_id`: a file given is named by
/// its file name, a file found in a folder given by its path relative to
/// that folder (`2024-05/flight.ulg`, `/` between folders); an id taken
/// by an earlier log gets `~2` (`~3`, ...) before its extension, as in
/// [`log_ids`].
///
/// ```
/// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata");
/// let logs = robolog_arrow::find_named_logs(&[dir])?;
/// assert!(logs.iter().any(|(_, id)| id == "vellog/sensors.vel"));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn find_named_logs<P: AsRef<Path>>(paths: &[P]) -> io::Result<Vec<(PathBuf, String)>> {
    let mut found: Vec<(PathBuf, String)> = Vec::new();
    let mut seen = HashSet::new();
    for p in paths {
        let p = p.as_ref();
        if std::fs::metadata(p).is_ok_and(|m| m.is_dir()) && robolog::probe_folder(p).is_none() {
            let mut here = Vec::new();
            search(p, &mut seen, &mut here)?;
            found.extend(here.into_iter().map(|f| {
                let id = relative_name(&f, p);
                (f, id)
            }));
        } else {
            found.push((p.to_path_buf(), file_name(p)));
        }
    }
    // One log per file: its canonical path (a path that does not resolve
    // is kept as given, for opening it to say why).
    let mut files = HashSet::with_capacity(found.len());
    found.retain(|(p, _)| files.insert(p.canonicalize().unwrap_or_else(|_| p.clone())));
    let ids = number_ids(found.iter().map(|(_, id)| id.clone()));
    Ok(found.into_iter().map(|(p, _)| p).zip(ids).collect())
}

/// The file name of `p` (all of it when it has none).
fn file_name(p: &Path) -> String {
    match p.file_name() {
        Some(n) => n.to_string_lossy().into_owned(),
        None => p.to_string_lossy().into_owned(),
    }
}

/// `file`'s path below `dir`, `/` between its parts.
fn relative_name(file: &Path, dir: &Path) -> String {
    match file.strip_prefix(dir) {
        Ok(rel) => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => file_name(file),
    }
}

fn search(dir: &Path, seen: &mut HashSet<PathBuf>, out: &mut Vec<PathBuf>) -> io::Result<()> {
    let at = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", dir.display()));
    if !seen.insert(dir.canonicalize().map_err(at)?) {
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(at)?
        .map(|e| e.map(|e| e.path()))
        .collect::<io::Result<_>>()
        .map_err(at)?;
    entries.sort();
    for path in entries {
        if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        {
            continue;
        }
        // Broken links and files that vanished are no logs.
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() && robolog::probe_folder(&path).is_some() {
            // A log that is a folder (a ROS 2 bag): its storage files are
            // read through it, not as logs of their own.
            out.push(path);
        } else if meta.is_dir() {
            search(&path, seen, out)?;
        } else if meta.is_file() && is_log(&path) {
            out.push(path);
        }
    }
    Ok(())
}

/// Whether the first bytes of the file at `path` are those of a log.
fn is_log(path: &Path) -> bool {
    let mut head = [0u8; robolog::PROBE_LEN];
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    robolog::probe(&head[..n]).is_some()
}

/// The `log_id` of each of `paths`, in order: its file name
/// (`flight_0001.ulg`); when a file name was taken by an earlier path, the
/// later one gets `~2` (`~3`, ...) before its extension
/// (`flight_0001~2.ulg`), the first number whose name is free.
///
/// ```
/// let ids = robolog_arrow::log_ids(&["a/run.bag", "b/run.bag", "c/run.bag", "notes"]);
/// assert_eq!(ids, ["run.bag", "run~2.bag", "run~3.bag", "notes"]);
/// ```
pub fn log_ids<P: AsRef<Path>>(paths: &[P]) -> Vec<String> {
    number_ids(paths.iter().map(|p| file_name(p.as_ref())))
}

/// `names` with each one taken by an earlier one numbered (`~2`, ...).
fn number_ids(names: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut taken: HashSet<String> = HashSet::new();
    // The next number to try per file name: a name repeated n times costs
    // n tries in all, not n^2 / 2.
    let mut next: HashMap<String, u64> = HashMap::new();
    let mut out = Vec::new();
    for name in names {
        let mut id = name.clone();
        if taken.contains(&id) {
            // The extension of the file name (not a dot in a folder's).
            let base = name.rfind('/').map_or(0, |i| i + 1);
            let (stem, ext) = match name[base..].rfind('.') {
                Some(i) if i > 0 => name.split_at(base + i),
                _ => (name.as_str(), ""),
            };
            let k = next.entry(name.clone()).or_insert(2);
            loop {
                id = format!("{stem}~{k}{ext}");
                *k += 1;
                if !taken.contains(&id) {
                    break;
                }
            }
        }
        taken.insert(id.clone());
        out.push(id);
    }
    out
}

/// `name` as the value of a Hive partition folder (`log=VALUE`): `/`, `=`,
/// `%`, `:`, `#` and control characters become `%XX` (upper-case hex of
/// the UTF-8 bytes), as Hive, Spark, DuckDB and DataFusion unescape them.
///
/// ```
/// assert_eq!(robolog_arrow::hive_escape("a=b:c#1%.ulg"), "a%3Db%3Ac%231%25.ulg");
/// assert_eq!(robolog_arrow::hive_escape("run~2.bag"), "run~2.bag");
/// ```
pub fn hive_escape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '/' | '=' | '%' | ':' | '#') || c.is_control() {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_skip_names_taken_by_earlier_inputs() {
        // `x~2.ulg` is a real input: the second `x.ulg` must not take it.
        let ids = log_ids(&["x.ulg", "x~2.ulg", "d/x.ulg", ".hidden", "e/.hidden"]);
        assert_eq!(ids, ["x.ulg", "x~2.ulg", "x~3.ulg", ".hidden", ".hidden~2"]);
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(hive_escape("a\tb\u{7f}"), "a%09b%7F");
        assert_eq!(hive_escape("é"), "é");
    }
}
