//! The files of one log: what each says about the log ([`Facts`]), the
//! writer properties, and the writing of a table's file and of the log's
//! `logs` row.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use ::parquet::arrow::ArrowWriter;
use ::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use ::parquet::basic::{Compression, ZstdLevel};
use ::parquet::errors::ParquetError;
use ::parquet::file::metadata::KeyValue;
use ::parquet::file::properties::WriterProperties;
use arrow_schema::{DataType, Schema, SchemaRef};
use logcore::Summary;
use robolog::Log;
use robolog::export::{ExportError, ExportedTable};
use robolog::write::{AtomicFile, OutputPolicy};

use super::{ParquetOptions, Planned};
use crate::widen::{align_batch, file_schema};
use crate::{DEFAULT_BATCH_SIZE, Error, LOGS, ScanOptions, Table, logs_row, scan};

/// The rows of a table's first batch, before the size of its rows is
/// known: small enough for camera images (a few MiB each); later batches
/// grow to [`ParquetOptions::batch_bytes`].
const FIRST_BATCH: usize = 16;

/// What every file of one log says about it.
pub(super) struct Facts {
    kv: Vec<KeyValue>,
    metadata: BTreeMap<String, serde_json::Value>,
    log_path: String,
}

impl Facts {
    pub(super) fn of(summary: &Summary, p: &Planned) -> Facts {
        let tm = &summary.time_model;
        let ns = |t: Option<logcore::Timestamp>| t.map(|t| t.as_nanos().to_string());
        let offset = tm.anchor.map(|a| {
            (i128::from(a.unix_time.as_nanos()) - i128::from(a.log_time.as_nanos())).to_string()
        });
        let log_path = p.path.to_string_lossy().into_owned();
        let kv = vec![
            KeyValue::new("robolog.log".into(), p.log_id.clone()),
            KeyValue::new("robolog.path".into(), log_path.clone()),
            KeyValue::new("robolog.format".into(), summary.format.name().to_string()),
            KeyValue::new("robolog.start_ns".into(), ns(summary.start)),
            KeyValue::new("robolog.end_ns".into(), ns(summary.end)),
            KeyValue::new("robolog.clock".into(), tm.clock.name().to_string()),
            KeyValue::new("robolog.utc_offset_ns".into(), offset),
        ];
        let metadata = summary
            .metadata
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
            .collect();
        Facts {
            kv,
            metadata,
            log_path,
        }
    }

    /// The key-value metadata of a file of `table`, its `robolog.metadata`
    /// object `metadata`.
    fn key_values(
        &self,
        table: &str,
        metadata: &BTreeMap<String, serde_json::Value>,
        extra: Option<KeyValue>,
    ) -> Vec<KeyValue> {
        let mut kv = self.kv.clone();
        kv.push(KeyValue::new("robolog.table".into(), table.to_string()));
        kv.extend(extra);
        kv.push(KeyValue::new(
            "robolog.metadata".into(),
            serde_json::to_string(metadata).unwrap_or_else(|_| "{}".into()),
        ));
        kv
    }
}

/// How writing one table failed.
pub(super) enum TableFailure {
    /// The export cannot go on (the output could not be written).
    Fatal(ExportError),
    /// This table cannot be written; the others can.
    Table(Error),
}

/// Tables with more leaf columns than this are written without
/// dictionaries and uncompressed: the Parquet writer keeps a dictionary
/// and compression state per column, about 90 KB and 13 KB, so a message
/// of 30,000 fields took 2.7 GB to write; without them, 200 MB.
pub const WIDE_COLUMNS: usize = 1_000;

/// The leaf columns of `schema` (a struct's fields, a list's items, ...).
pub fn leaf_columns(schema: &Schema) -> usize {
    fn leaves(t: &DataType) -> usize {
        match t {
            DataType::Struct(fs) => fs
                .iter()
                .map(|f| leaves(f.data_type()))
                .sum::<usize>()
                .max(1),
            DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
                leaves(f.data_type())
            }
            DataType::Map(f, _) => leaves(f.data_type()),
            _ => 1,
        }
    }
    schema.fields().iter().map(|f| leaves(f.data_type())).sum()
}

/// The writer properties of a table of `schema`: zstd and dictionaries,
/// or neither for a table of more than [`WIDE_COLUMNS`] leaf columns.
pub fn table_properties(schema: &Schema) -> parquet::file::properties::WriterPropertiesBuilder {
    let wide = leaf_columns(schema) > WIDE_COLUMNS;
    WriterProperties::builder()
        .set_compression(if wide {
            Compression::UNCOMPRESSED
        } else {
            Compression::ZSTD(ZstdLevel::default())
        })
        .set_dictionary_enabled(!wide)
}

fn writer_props(opts: &ParquetOptions, kv: Vec<KeyValue>, schema: &Schema) -> WriterProperties {
    table_properties(schema)
        .set_max_row_group_row_count(Some(opts.row_group_rows.max(1)))
        .set_max_row_group_bytes(Some(opts.row_group_bytes.max(1)))
        .set_key_value_metadata(Some(kv))
        .build()
}

/// A Parquet error of a file being written: an I/O error of the file is
/// fatal, anything else fails the table only.
fn parquet_failure(path: &Path, e: ParquetError) -> TableFailure {
    if let ParquetError::External(inner) = &e {
        if let Some(io) = inner.downcast_ref::<io::Error>() {
            return TableFailure::Fatal(ExportError::Io {
                path: path.to_path_buf(),
                error: io::Error::new(io.kind(), io.to_string()),
            });
        }
    }
    TableFailure::Table(Error::Parquet(e))
}

fn create(path: &Path, policy: &OutputPolicy) -> Result<AtomicFile, ExportError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(ExportError::io(parent))?;
    }
    AtomicFile::create(path, policy).map_err(ExportError::write(path))
}

/// Commits a finished file and gives its size.
fn commit(file: AtomicFile, path: &Path) -> Result<u64, ExportError> {
    file.commit().map_err(ExportError::io(path))?;
    std::fs::metadata(path)
        .map(|m| m.len())
        .map_err(ExportError::io(path))
}

/// Writes `table` of `log` to `path` in the table's schema across the
/// dataset, `target` (its own columns' metadata kept, see
/// [`file_schema`]).
#[allow(clippy::too_many_arguments)] // one table of one log: what, where, in which schema, how
pub(super) fn write_table(
    log: &Log<'_>,
    table: &Table,
    target: &SchemaRef,
    path: &Path,
    facts: &Facts,
    opts: &ParquetOptions,
    policy: &OutputPolicy,
    on_batch: &mut dyn FnMut(u64),
) -> Result<ExportedTable, TableFailure> {
    let own = table.schema();
    let schema = file_schema(&own, target);
    let channels: Vec<serde_json::Value> = table
        .channels
        .iter()
        .map(|c| {
            serde_json::json!({
                "topic": c.topic,
                "type": c.type_name,
                "encoding": c.message_encoding,
                "metadata": c.metadata,
            })
        })
        .collect();
    let mut metadata = facts.metadata.clone();
    metadata.insert("channels".into(), serde_json::Value::Array(channels));
    let type_kv = schema
        .metadata()
        .get("robolog.type")
        .map(|t| KeyValue::new("robolog.type".into(), t.clone()));
    let kv = facts.key_values(&table.name, &metadata, type_kv);
    let file = create(path, policy).map_err(TableFailure::Fatal)?;
    let mut writer =
        ArrowWriter::try_new(file, schema.clone(), Some(writer_props(opts, kv, &schema)))
            .map_err(|e| parquet_failure(path, e))?;
    let scan_opts = ScanOptions {
        batch_size: FIRST_BATCH,
        ..ScanOptions::default()
    };
    let mut reader = scan(log, table, &scan_opts).map_err(TableFailure::Table)?;
    let mut rows = 0u64;
    while let Some(batch) = reader.next() {
        let batch = batch.map_err(|e| match e {
            Error::Log(logcore::Error::Io(error)) => TableFailure::Fatal(ExportError::Read {
                path: PathBuf::from(&facts.log_path),
                error: logcore::Error::Io(error),
            }),
            e => TableFailure::Table(e),
        })?;
        let batch = align_batch(&batch, &schema).map_err(|e| TableFailure::Table(e.into()))?;
        writer.write(&batch).map_err(|e| parquet_failure(path, e))?;
        let n = batch.num_rows();
        rows += n as u64;
        on_batch(n as u64);
        // Rows of large messages make small batches.
        let per_row = batch.get_array_memory_size() / n.max(1);
        reader.set_batch_size((opts.batch_bytes / per_row.max(1)).clamp(1, DEFAULT_BATCH_SIZE));
    }
    let file = writer.into_inner().map_err(|e| parquet_failure(path, e))?;
    let bytes = commit(file, path).map_err(TableFailure::Fatal)?;
    let types: Vec<&str> = table
        .channels
        .iter()
        .map(|c| c.type_name.as_str())
        .collect();
    let mut done = ExportedTable::new(&table.name, &table.key, &types.join(","), path);
    done.rows = rows;
    done.columns = schema.fields().len();
    done.bytes = bytes;
    done.skipped = reader.skipped();
    done.undecoded = reader.undecoded();
    done.first_undecoded = reader.first_undecoded().cloned();
    done.inferred = table.inferred;
    Ok(done)
}

/// Writes the `logs` row of the log of `summary` to `path`, in the `logs`
/// table's schema across the dataset, `target`.
pub(super) fn write_logs_row(
    summary: &Summary,
    tables: &[(&str, &str)],
    target: &SchemaRef,
    path: &Path,
    facts: &Facts,
    policy: &OutputPolicy,
) -> Result<ExportedTable, ExportError> {
    let fail = |e: &dyn std::fmt::Display| ExportError::Io {
        path: path.to_path_buf(),
        error: io::Error::other(e.to_string()),
    };
    let batch = logs_row(summary, &facts.log_path, tables).map_err(|e| fail(&e))?;
    let batch = align_batch(&batch, &file_schema(&batch.schema(), target)).map_err(|e| fail(&e))?;
    let kv = facts.key_values(LOGS, &facts.metadata, None);
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_key_value_metadata(Some(kv))
        .build();
    let file = create(path, policy)?;
    let mut writer =
        ArrowWriter::try_new(file, batch.schema(), Some(props)).map_err(|e| fail(&e))?;
    writer.write(&batch).map_err(|e| fail(&e))?;
    let file = writer.into_inner().map_err(|e| fail(&e))?;
    let mut done = ExportedTable::new(LOGS, "", "", path);
    done.bytes = commit(file, path)?;
    done.rows = 1;
    done.columns = batch.num_columns();
    Ok(done)
}

/// Rewrites the dataset's file `path` in its table's widened schema
/// `target`: every row and value kept (columns it lacked null, numbers
/// widened without loss), its key-value metadata and its columns' own
/// metadata kept, through a temporary file renamed over it. `policy`
/// must allow replacing it.
pub(super) fn rewrite_file(
    path: &Path,
    target: &SchemaRef,
    opts: &ParquetOptions,
    policy: &OutputPolicy,
) -> Result<ExportedTable, ExportError> {
    let fail = |e: &dyn std::fmt::Display| ExportError::Io {
        path: path.to_path_buf(),
        error: io::Error::other(format!("while widening it to its table's new columns: {e}")),
    };
    let input = std::fs::File::open(path).map_err(ExportError::io(path))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(input).map_err(|e| fail(&e))?;
    let meta = builder.metadata().file_metadata().clone();
    let kv: Vec<KeyValue> = meta
        .key_value_metadata()
        .map(|kv| {
            kv.iter()
                .filter(|k| k.key != "ARROW:schema")
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let get = |key: &str| {
        kv.iter()
            .find(|k| k.key == key)
            .and_then(|k| k.value.clone())
            .unwrap_or_default()
    };
    let (table, types) = (get("robolog.table"), get("robolog.type"));
    let own = builder.schema().clone();
    let topic = own
        .metadata()
        .get("robolog.topic")
        .cloned()
        .unwrap_or_default();
    let want = u64::try_from(meta.num_rows()).unwrap_or(0);
    let schema = file_schema(&own, target);
    let reader = builder.build().map_err(|e| fail(&e))?;
    let file = create(path, policy)?;
    let props = writer_props(opts, kv, &schema);
    let mut writer =
        ArrowWriter::try_new(file, schema.clone(), Some(props)).map_err(|e| fail(&e))?;
    let mut rows = 0u64;
    for batch in reader {
        let batch = batch.map_err(|e| fail(&e))?;
        let batch = align_batch(&batch, &schema).map_err(|e| fail(&e))?;
        writer.write(&batch).map_err(|e| fail(&e))?;
        rows += batch.num_rows() as u64;
    }
    if rows != want {
        return Err(fail(&format!("read {rows} of its {want} rows")));
    }
    let file = writer.into_inner().map_err(|e| fail(&e))?;
    let mut done = ExportedTable::new(&table, &topic, &types, path);
    done.bytes = commit(file, path)?;
    done.rows = rows;
    done.columns = schema.fields().len();
    Ok(done)
}
