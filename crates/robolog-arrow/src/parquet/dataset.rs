//! The dataset already in the output folder: the partitions of earlier
//! exports, the tables they named, the one schema of each table across
//! them and the export ([`plan_schemas`]), and the removal of a stale
//! partition.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use arrow_schema::SchemaRef;
use robolog::export::ExportError;
use robolog::write::{OutputPolicy, Refusal};

use super::{DATA_FILE, Planned, table_path};
use crate::widen::{Conflict, merge, same_columns};
use crate::{LOGS, TableNames, logs_schema};

/// The dataset's schema of every table an export writes, and the files
/// already in the folder that must be rewritten in it.
pub(super) struct DatasetPlan {
    /// Per table name: its schema across the dataset, or why the table
    /// is not written (two types of a column that nothing holds both of).
    targets: HashMap<String, Result<SchemaRef, String>>,
    /// Files of other logs to rewrite in their table's widened schema,
    /// in the order of the tables.
    pub(super) rewrites: Vec<(PathBuf, SchemaRef)>,
    /// The policy the rewrites pass: the export's, forced (rewriting a
    /// file of the dataset is part of adding to it, and only ever
    /// replaces it with itself widened), so an input is still refused.
    pub(super) rewriting: OutputPolicy,
}

impl DatasetPlan {
    /// The schema every file of `table` is written in, or why the table is
    /// not written.
    pub(super) fn target(
        &self,
        table: &str,
    ) -> Result<SchemaRef, Box<dyn std::error::Error + Send + Sync>> {
        match self.targets.get(table) {
            Some(Ok(s)) => Ok(s.clone()),
            Some(Err(why)) => Err(why.clone().into()),
            None => Err(format!("no schema was planned for table {table}").into()),
        }
    }
}

/// One table's schema across the dataset: for every table the planned
/// logs write (the `logs` table too), the schemas of its files already in
/// `dir` (but those this export replaces or removes), in the order of
/// their partitions, then the logs' own, in the order of the logs, merged
/// into one (see [`merge`](crate::widen::merge)). A table whose schemas
/// do not merge is refused (each log's table fails, naming the column,
/// its two types and where each comes from) and its files stay as they
/// are; the files of other tables whose schema is not the merged one are
/// to be rewritten.
///
/// A file that must be read or rewritten and cannot be (not Parquet, not
/// a file of this table by its `robolog.table`, an input of the export)
/// refuses the export ([`Refusal::NotRewritable`], [`Refusal::SameFile`])
/// before anything is written.
pub(super) fn plan_schemas(
    dir: &Path,
    planned: &[Planned],
    policy: &OutputPolicy,
) -> Result<DatasetPlan, ExportError> {
    // The schemas of each table, by where they come from.
    let mut order: Vec<&str> = Vec::new();
    let mut sources: HashMap<&str, Vec<(String, SchemaRef)>> = HashMap::new();
    let mut replaced: HashSet<PathBuf> = HashSet::new();
    let logs = logs_schema();
    for p in planned {
        let label = format!("log {}", p.log_id);
        let own = p.tables.iter().map(|t| (t.name.as_str(), t.schema()));
        for (name, schema) in own.chain([(LOGS, logs.clone())]) {
            if !sources.contains_key(name) {
                order.push(name);
            }
            sources
                .entry(name)
                .or_default()
                .push((label.clone(), schema));
            replaced.insert(table_path(dir, name, &p.log_id));
        }
        replaced.extend(p.stale.iter().cloned());
    }
    let mut rewriting = policy.clone();
    rewriting.force = true;
    let mut plan = DatasetPlan {
        targets: HashMap::new(),
        rewrites: Vec::new(),
        rewriting,
    };
    for name in order {
        let mut existing = Vec::new();
        for file in table_files(dir, name)? {
            if !replaced.contains(&file) {
                let (schema, table) = file_schema(&file, name)?;
                existing.push((file, schema, table));
            }
        }
        let mut all: Vec<(String, SchemaRef)> = existing
            .iter()
            .map(|(f, s, _)| (format!("the file {}", f.display()), s.clone()))
            .collect();
        all.extend(sources.remove(name).unwrap_or_default());
        let merged = match merge_all(&all) {
            Ok(m) => m,
            Err(why) => {
                plan.targets.insert(name.to_string(), Err(why));
                continue;
            }
        };
        for (file, schema, table) in existing {
            if same_columns(&schema, &merged) {
                continue;
            }
            if table.as_deref() != Some(name) {
                return Err(ExportError::Refused(Refusal::NotRewritable {
                    reason: format!(
                        "{}: must be rewritten with the columns this export adds to table {name},                          but it is not a file of that table (its robolog.table metadata is {});                          move it out of {} or export to another folder",
                        file.display(),
                        table.map_or("missing".to_string(), |t| format!("{t:?}")),
                        dir.display()
                    ),
                    output: file,
                }));
            }
            plan.rewriting.check(&file).map_err(ExportError::Refused)?;
            plan.rewrites.push((file, merged.clone()));
        }
        plan.targets.insert(name.to_string(), Ok(merged));
    }
    Ok(plan)
}

/// The schemas of one table merged in order, or why they do not merge:
/// the column, its two types and the two sources they come from.
fn merge_all(all: &[(String, SchemaRef)]) -> Result<SchemaRef, String> {
    let Some((_, first)) = all.first() else {
        return Err("the table has no schema".to_string());
    };
    let mut merged = first.as_ref().clone();
    for (i, (label, schema)) in all.iter().enumerate().skip(1) {
        match merge(&merged, schema) {
            Ok(m) => merged = m,
            Err(c) => {
                // The first source that conflicts with this one alone,
                // else all before it together.
                let pair = all[..i]
                    .iter()
                    .find_map(|(before, s)| merge(s, schema).err().map(|c| (before.clone(), c)));
                let (before, c) = pair.unwrap_or_else(|| {
                    let labels: Vec<&str> = all[..i].iter().map(|(l, _)| l.as_str()).collect();
                    (labels.join(", "), c)
                });
                return Err(conflict_text(&c, &before, label));
            }
        }
    }
    Ok(std::sync::Arc::new(merged))
}

fn conflict_text(c: &Conflict, before: &str, after: &str) -> String {
    format!(
        "its column {} is {} in {before} and {} in {after}, and no type holds both without loss; \
         the table is left out of the dataset (export these logs to separate folders)",
        c.column, c.before, c.after
    )
}

/// The `data.parquet` files of `table`'s partitions in `dir`, sorted by
/// partition (only folders named `log=...`, not followed through
/// symlinks; a partition without the file is skipped).
fn table_files(dir: &Path, table: &str) -> Result<Vec<PathBuf>, ExportError> {
    let folder = dir.join(table);
    let entries = match std::fs::read_dir(&folder) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(ExportError::io(&folder)(e)),
    };
    let mut out = Vec::new();
    for part in entries {
        let part = part.map_err(ExportError::io(&folder))?;
        let is_part = part.file_type().is_ok_and(|t| t.is_dir())
            && part.file_name().to_string_lossy().starts_with("log=");
        let file = part.path().join(DATA_FILE);
        if is_part && std::fs::symlink_metadata(&file).is_ok() {
            out.push(file);
        }
    }
    out.sort();
    Ok(out)
}

/// The Arrow schema of the Parquet file `file` of `table` (from its
/// footer) and its `robolog.table` metadata; a file that cannot be read
/// refuses the export.
fn file_schema(file: &Path, table: &str) -> Result<(SchemaRef, Option<String>), ExportError> {
    let refuse = |e: &dyn std::fmt::Display| {
        ExportError::Refused(Refusal::NotRewritable {
            output: file.to_path_buf(),
            reason: format!(
                "{}: cannot read the schema of this file of table {table}, which the export adds                  to ({e}); move it out of the folder or export to another folder",
                file.display()
            ),
        })
    };
    let f = File::open(file).map_err(|e| refuse(&e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(f).map_err(|e| refuse(&e))?;
    let table = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .and_then(|kv| kv.iter().find(|k| k.key == "robolog.table"))
        .and_then(|k| k.value.clone());
    Ok((builder.schema().clone(), table))
}

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
