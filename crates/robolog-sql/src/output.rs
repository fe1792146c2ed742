//! Writing a query's answer to any [`Write`]: an aligned table, CSV with a
//! header, JSON lines or Parquet, one function a format, and [`write()`] in
//! any of them. Each takes the batches as the query streams them. And the
//! listing of a set's tables and columns ([`write_schema`]).
//!
//! - CSV has one column per leaf: a struct column `a` is the columns
//!   `a.b`, ... and a fixed-size list of at most [`MAX_ARRAY_COLUMNS`]
//!   items is `a[0]`, `a[1]`, ..., as `robolog export` names them; any
//!   other nested value (a variable-length list, a longer array, a map) is
//!   one cell of JSON text.
//! - The table holds at most [`MAX_TABLE_ROWS`] rows (fewer when they take
//!   more than [`MAX_TABLE_BYTES`]): the rest are counted, not kept, so
//!   memory stays bounded whatever the answer's size.

use std::io::Write;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_schema::{ArrowError, DataType, Field, FieldRef, Schema, SchemaRef};
use datafusion::arrow::json::writer::{EncoderOptions, make_encoder};
use datafusion::arrow::util::pretty::pretty_format_batches_with_schema;
use datafusion::error::DataFusionError;

/// Fixed-size lists of at most this many items are a CSV column per item.
pub const MAX_ARRAY_COLUMNS: usize = 16;

/// Rows the aligned table shows at most.
pub const MAX_TABLE_ROWS: usize = 10_000;

/// Bytes of Arrow data the aligned table keeps at most.
pub const MAX_TABLE_BYTES: usize = 16 << 20;

/// Writes `batches` as an aligned table (the header and borders of
/// DataFusion's); returns how many rows were left out after the first
/// [`MAX_TABLE_ROWS`] (or [`MAX_TABLE_BYTES`]), which are read and counted.
pub fn write_table<W: Write>(
    schema: &SchemaRef,
    batches: impl IntoIterator<Item = RecordBatch>,
    mut w: W,
) -> Result<u64, ArrowError> {
    let mut kept: Vec<RecordBatch> = Vec::new();
    let (mut rows, mut bytes, mut left_out) = (0usize, 0usize, 0u64);
    for b in batches {
        if left_out > 0 || rows >= MAX_TABLE_ROWS || bytes >= MAX_TABLE_BYTES {
            left_out += b.num_rows() as u64;
            continue;
        }
        let room = MAX_TABLE_ROWS - rows;
        let b = if b.num_rows() > room {
            left_out += (b.num_rows() - room) as u64;
            b.slice(0, room)
        } else {
            b
        };
        rows += b.num_rows();
        bytes += b.get_array_memory_size();
        kept.push(b);
    }
    let text = pretty_format_batches_with_schema(schema.clone(), &kept)?;
    writeln!(w, "{text}")?;
    Ok(left_out)
}

/// Writes `batches` as CSV with a header line, nested columns flattened
/// (see the [module](self) docs); the header is written even when there
/// are no rows.
pub fn write_csv<W: Write>(
    schema: &SchemaRef,
    batches: impl IntoIterator<Item = RecordBatch>,
    w: W,
) -> Result<(), ArrowError> {
    let mut csv = datafusion::arrow::csv::WriterBuilder::new()
        .with_header(true)
        .build(w);
    let mut any = false;
    for b in batches {
        csv.write(&flatten(&b)?)?;
        any = true;
    }
    if !any {
        csv.write(&flatten(&RecordBatch::new_empty(schema.clone()))?)?;
    }
    Ok(())
}

/// Writes `batches` as JSON, one object per row and line.
pub fn write_json<W: Write>(
    batches: impl IntoIterator<Item = RecordBatch>,
    w: W,
) -> Result<(), ArrowError> {
    let mut json = datafusion::arrow::json::LineDelimitedWriter::new(w);
    for b in batches {
        json.write(&b)?;
    }
    json.finish()
}

/// Writes `batches` as a Parquet file (zstd; see
/// [`robolog_arrow::parquet::table_properties`]).
pub fn write_parquet<W: Write + Send>(
    schema: &SchemaRef,
    batches: impl IntoIterator<Item = RecordBatch>,
    w: W,
) -> Result<(), ::parquet::errors::ParquetError> {
    // zstd, or for a table of very many columns neither dictionaries nor
    // compression, whose state per column would take gigabytes.
    let props = robolog_arrow::parquet::table_properties(schema).build();
    let mut pq = ::parquet::arrow::ArrowWriter::try_new(w, schema.clone(), Some(props))?;
    for b in batches {
        pq.write(&b)?;
    }
    pq.close().map(|_| ())
}

/// The formats [`write()`] writes a query's answer in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// An aligned table ([`write_table`]).
    Table,
    /// CSV with a header line ([`write_csv`]).
    Csv,
    /// One JSON object per row and line ([`write_json`]).
    Json,
    /// A Parquet file ([`write_parquet`]).
    Parquet,
}

/// Why [`write()`] stopped.
#[derive(Debug)]
pub enum WriteError {
    /// The query failed while its answer was written.
    Query(DataFusionError),
    /// Writing failed (what went wrong).
    Write(String),
}

/// Writes a query's answer, `batches` as its stream gives them, to `w` in
/// `format` and flushes `w`; stops at the query's first error. Returns how
/// many rows the table left out (see [`write_table`]; 0 in the other
/// formats).
pub fn write<W: Write + Send>(
    format: Format,
    schema: &SchemaRef,
    batches: impl Iterator<Item = Result<RecordBatch, DataFusionError>>,
    mut w: W,
) -> Result<u64, WriteError> {
    let mut failed = None;
    let mut rows = batches.map_while(|b| b.map_err(|e| failed = Some(e)).ok());
    let text = |e: ArrowError| e.to_string();
    let written = match format {
        Format::Table => write_table(schema, &mut rows, &mut w).map_err(text),
        Format::Csv => write_csv(schema, &mut rows, &mut w)
            .map_err(text)
            .map(|()| 0),
        Format::Json => write_json(&mut rows, &mut w).map_err(text).map(|()| 0),
        Format::Parquet => write_parquet(schema, &mut rows, &mut w)
            .map_err(|e| e.to_string())
            .map(|()| 0),
    }
    .and_then(|n| w.flush().map_err(|e| e.to_string()).map(|()| n));
    drop(rows);
    match failed {
        Some(e) => Err(WriteError::Query(e)),
        None => written.map_err(WriteError::Write),
    }
}

/// Writes the tables of `set` (then `logs` and `topics`) as `robolog sql
/// --schema` lists them: a line with the table's name and, in
/// parentheses, the topic (ULog: message) it holds, then a `  column:
/// type` line per column. What is wrong with a table goes to `problem`,
/// after `w` is flushed (so that it shows below the table's name): a
/// table whose schemas do not merge across the logs is listed all the
/// same, one that cannot be built is left out.
pub fn write_schema<W: Write>(
    set: &crate::LogSet,
    w: W,
    mut problem: impl FnMut(crate::Error),
) -> std::io::Result<()> {
    let mut names = match set.table_names() {
        Ok(names) => names,
        Err(e) => {
            problem(e);
            Vec::new()
        }
    };
    names.extend([crate::LOGS, crate::TOPICS]);
    write_schema_of(set, &names, w, problem)
}

/// Writes the tables `tables` of `set` (names as the set has them: see
/// [`LogSet::resolve_table`](crate::LogSet::resolve_table)) in that order,
/// as [`write_schema`] writes every table; a name no log has is left
/// out. Only the logs' tables named are opened (see
/// [`LogSet::find`](crate::LogSet::find)).
///
/// ```
/// let rec = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/carla/scene-0.9.13.rec");
/// let set = robolog_sql::LogSet::find(&[rec], robolog::Limits::default())?;
/// let mut text = Vec::new();
/// robolog_sql::output::write_schema_of(&set, &["FrameStart"], &mut text, |e| panic!("{e}"))?;
/// assert_eq!(
///     String::from_utf8(text)?,
///     "FrameStart (FrameStart)\n  log: Utf8\n  log_time: Duration(ns)\n  log_time_utc: Timestamp(ns, \"UTC\")\n  frame: UInt64\n  \
///      duration: Float64\n  elapsed: Float64\n"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_schema_of<W: Write>(
    set: &crate::LogSet,
    tables: &[&str],
    mut w: W,
    mut problem: impl FnMut(crate::Error),
) -> std::io::Result<()> {
    for &name in tables {
        let (schema, key) = match set.schema(name).and_then(|s| Ok((s, set.table_key(name)?))) {
            Ok((Some(schema), key)) => (schema, key),
            Ok((None, _)) => continue,
            Err(e) => {
                problem(e);
                continue;
            }
        };
        match key {
            Some(key) => writeln!(w, "{name} ({key})")?,
            None => writeln!(w, "{name}")?,
        }
        if let Err(e) = set.check(name) {
            w.flush()?;
            problem(e);
        }
        for f in schema.fields() {
            writeln!(w, "  {}: {}", f.name(), f.data_type())?;
        }
    }
    w.flush()
}

/// `batch` with one column per leaf (see the [module](self) docs).
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, Int32Array, RecordBatch, StructArray};
/// use arrow_schema::{DataType, Field};
/// let b: ArrayRef = Arc::new(Int32Array::from(vec![1, 2]));
/// let a = StructArray::from(vec![(Arc::new(Field::new("b", DataType::Int32, true)), b)]);
/// let batch = RecordBatch::try_from_iter([("a", Arc::new(a) as ArrayRef)])?;
/// let flat = robolog_sql::output::flatten(&batch)?;
/// assert_eq!(flat.schema().field(0).name(), "a.b");
/// # Ok::<(), arrow_schema::ArrowError>(())
/// ```
pub fn flatten(batch: &RecordBatch) -> Result<RecordBatch, ArrowError> {
    let flat = robolog_arrow::flatten::flatten_batch(batch, MAX_ARRAY_COLUMNS)?;
    let schema = flat.schema();
    if !schema.fields().iter().any(|f| f.data_type().is_nested()) {
        return Ok(flat);
    }
    let mut fields = Vec::with_capacity(schema.fields().len());
    let mut columns = Vec::with_capacity(fields.len());
    for (f, c) in schema.fields().iter().zip(flat.columns()) {
        if f.data_type().is_nested() {
            fields.push(Field::new(f.name(), DataType::Utf8, true));
            columns.push(json_cells(f, c.as_ref())?);
        } else {
            fields.push(f.as_ref().clone());
            columns.push(c.clone());
        }
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
}

/// Each value of `array` as JSON text (null where it is null).
fn json_cells(field: &FieldRef, array: &dyn Array) -> Result<ArrayRef, ArrowError> {
    let options = EncoderOptions::default();
    let mut encoder = make_encoder(field, array, &options)?;
    let mut buf = Vec::new();
    let mut out: Vec<Option<String>> = Vec::with_capacity(array.len());
    for i in 0..array.len() {
        if encoder.is_null(i) {
            out.push(None);
            continue;
        }
        buf.clear();
        encoder.encode(i, &mut buf);
        out.push(Some(String::from_utf8_lossy(&buf).into_owned()));
    }
    Ok(Arc::new(StringArray::from(out)))
}
