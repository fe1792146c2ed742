//! The dataset already in the output folder: the partitions of earlier
//! exports, the tables they named, and the removal of a stale partition.

use std::collections::HashMap;
use std::io;
use std::path::Path;

use robolog::export::ExportError;

use super::DATA_FILE;
use crate::{LOGS, TableNames};

/// The partitions in `dir`: per partition folder name (`log=<escaped
/// log_id>`), the tables holding one. `dir` and each table folder are
/// listed once; only folders count (not symlinks, which may lead out of
/// `dir`), and only names that are UTF-8.
pub(super) fn partitions(dir: &Path) -> Result<HashMap<String, Vec<String>>, ExportError> {
    let mut held: HashMap<String, Vec<String>> = HashMap::new();
    let tables = match std::fs::read_dir(dir) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(held),
        Err(e) => return Err(ExportError::io(dir)(e)),
    };
    for table in tables {
        let table = table.map_err(ExportError::io(dir))?;
        let is_dir = table.file_type().is_ok_and(|t| t.is_dir());
        let Ok(name) = table.file_name().into_string() else {
            continue;
        };
        if !is_dir || name == LOGS {
            continue;
        }
        let folder = table.path();
        for part in std::fs::read_dir(&folder).map_err(ExportError::io(&folder))? {
            let part = part.map_err(ExportError::io(&folder))?;
            if !part.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            if let Ok(part) = part.file_name().into_string() {
                if part.starts_with("log=") {
                    held.entry(part).or_default().push(name.clone());
                }
            }
        }
    }
    Ok(held)
}

/// The tables of the dataset in `dir` written before, by the topic each
/// holds (its files' `robolog.topic`): an export into the folder keeps
/// their names for their topics and gives no other topic one of them.
/// A table is read from its first partition with a readable file.
pub(super) fn existing_tables(dir: &Path) -> TableNames {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for table in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let Ok(name) = table.file_name().into_string() else {
            continue;
        };
        if name == LOGS || !table.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let parts = std::fs::read_dir(table.path())
            .into_iter()
            .flatten()
            .flatten();
        let key = parts
            .filter(|p| p.file_name().to_string_lossy().starts_with("log="))
            .find_map(|p| {
                let file = std::fs::File::open(p.path().join(DATA_FILE)).ok()?;
                let reader =
                    ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
                        .ok()?;
                reader.schema().metadata().get("robolog.topic").cloned()
            });
        if let Some(key) = key {
            pairs.push((key, name));
        }
    }
    // A topic in several folders (files copied by hand) keeps the folder
    // its name would be in a run of its own, else the first by name; the
    // others stay taken. The pair given last for a key is its table.
    let preferred = |(key, name): &(String, String)| crate::base_name(key) == *name;
    pairs.sort_by_cached_key(|p| (p.0.clone(), preferred(p), std::cmp::Reverse(p.1.clone())));
    TableNames::from_pairs(pairs.iter().map(|(k, n)| (k.as_str(), n.as_str())))
}

/// Removes the file `path` of a stale partition (a file or a symlink, not
/// a folder; gone already is fine), then its folder if that is empty now.
pub(super) fn remove_partition(path: &Path) -> Result<bool, ExportError> {
    let removed = match std::fs::symlink_metadata(path) {
        Ok(m) if !m.is_dir() => match std::fs::remove_file(path) {
            Ok(()) => true,
            Err(e) if e.kind() == io::ErrorKind::NotFound => false,
            Err(e) => return Err(ExportError::io(path)(e)),
        },
        _ => false,
    };
    if let Some(folder) = path.parent() {
        // Fails, and is meant to, when anything else is in the folder.
        let _ = std::fs::remove_dir(folder);
    }
    Ok(removed)
}
