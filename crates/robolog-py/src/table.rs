//! `Log.table`: a topic's typed Arrow table, handed to pyarrow, pandas,
//! polars or DuckDB through the Arrow PyCapsule interface.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};
use std::sync::Arc;

use arrow_array::Array;
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{
    ArrayRef, Float32Array, Float64Array, Int8Array, Int16Array, Int32Array, Int64Array,
    RecordBatch, RecordBatchIterator, RecordBatchOptions, TimestampNanosecondArray, UInt8Array,
    UInt16Array, UInt32Array, UInt64Array,
};
use arrow_schema::ffi::FFI_ArrowSchema;
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use logcore::{LogReader, Timestamp};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyCapsule};
use robolog_arrow::{LOG_TIME, MULTI_ID, ScanOptions, TableNames, scan, table_in};
use ulogfile::{Column, Subscription};

use crate::blocks;
use crate::errors::Failure;
use crate::log::unknown_topic;
use crate::source::Shared;

/// Builds the table of `topic` (a topic, a table name or a ULog message
/// name) of the log: the work of `Log.table`, done without the GIL.
pub(crate) fn build(
    shared: &Shared,
    topic: &str,
    columns: Option<Vec<String>>,
    start: Option<i64>,
    end: Option<i64>,
) -> Result<Table, Failure> {
    let log = shared.log();
    let summary = &shared.summary;
    let names = TableNames::new(summary.channels.iter().map(|c| log.table_key(&c.info)));
    // A table key (topic, ULog message name), a table name, or the topic
    // of some of a key's channels (a ULog instance, `name[1]`): that
    // key's table, of those channels only.
    let mut only_topic = false;
    let key: &str = if names.name(topic).is_some() {
        topic
    } else if let Some(k) = names.key(topic) {
        k
    } else if let Some(c) = summary.channels.iter().find(|c| c.info.topic == topic) {
        only_topic = true;
        log.table_key(&c.info)
    } else {
        return Err(Failure::Missing(unknown_topic(shared, topic)));
    };
    let name = names.name(key).unwrap_or(key);
    let mut table = table_in(log, summary, key, name)?
        .ok_or_else(|| Failure::Missing(unknown_topic(shared, topic)))?;
    if only_topic {
        table.channels.retain(|c| c.topic == topic);
        table.message_count = table
            .channels
            .iter()
            .filter_map(|c| summary.channel(c.id))
            .map(|c| c.message_count)
            .sum();
    }
    let full = table.schema();
    if let Some(columns) = &columns {
        if let Some(c) = columns.iter().find(|c| full.index_of(c).is_err()) {
            let all: Vec<&str> = full.fields().iter().map(|f| f.name().as_str()).collect();
            return Err(Failure::Missing(format!(
                "table {name} has no column {c:?}; its columns: {}",
                all.join(", ")
            )));
        }
    }
    let opts = ScanOptions {
        projection: columns,
        start: start.map(Timestamp),
        end: end.map(Timestamp),
        ..ScanOptions::default()
    };
    let read = read_in_parts(log, &table, &opts, &halves(shared, &table, &opts))?;
    let (schema, batches) = (read.schema, read.batches);
    let mut problems = Vec::new();
    let skipped = read.skipped + read.skipped_at.len() as u64;
    if skipped > 0 {
        let problem = format!(
            "table {name}: {skipped} damaged record{} skipped",
            if skipped == 1 { " was" } else { "s were" }
        );
        shared.add_problem(problem.clone());
        problems.push(problem);
    }
    if let Some(first) = &read.first_undecoded {
        let n = read.undecoded;
        let problem = format!(
            "table {name}: {n} message{} could not be decoded and {} rows of null message \
             columns; the first at byte {}: {}",
            if n == 1 { "" } else { "s" },
            if n == 1 { "is" } else { "are" },
            first.offset,
            first.reason
        );
        shared.add_problem(problem.clone());
        problems.push(problem);
    }
    Ok(Table {
        name: name.to_string(),
        topic: key.to_string(),
        schema,
        batches,
        problems,
    })
}

/// Tables of at least this many messages are read in two time ranges at
/// once, on two threads, where the machine has them.
const SPLIT_MESSAGES: u64 = 50_000;

/// The time ranges `[start, end)` a table is read in, in order: two halves
/// of its messages' time span for a large table of a log whose messages
/// are decoded one by one (ULog's typed column readers read a table in one
/// pass); else one range, the scan's own.
fn halves(shared: &Shared, table: &robolog_arrow::Table, opts: &ScanOptions) -> Vec<ScanOptions> {
    let whole = vec![opts.clone()];
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    if threads < 2 || table.message_count < SPLIT_MESSAGES || shared.log().as_ulog().is_some() {
        return whole;
    }
    let ids: Vec<_> = table.channels.iter().map(|c| c.id).collect();
    let spans = shared
        .summary
        .channels
        .iter()
        .filter(|c| ids.contains(&c.info.id))
        .map(|c| (c.start, c.end));
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for (s, e) in spans {
        let (Some(s), Some(e)) = (s, e) else {
            return whole;
        };
        lo = lo.min(s.as_nanos());
        hi = hi.max(e.as_nanos());
    }
    let lo = opts.start.map_or(lo, |s| lo.max(s.as_nanos()));
    let hi = opts
        .end
        .map_or(hi, |e| hi.min(e.as_nanos().saturating_sub(1)));
    if hi.saturating_sub(lo) < 2 {
        return whole;
    }
    let mid = Timestamp(lo + (hi - lo) / 2);
    let mut first = opts.clone();
    first.end = Some(mid);
    let mut second = opts.clone();
    second.start = Some(mid);
    vec![first, second]
}

/// What reading a table gave.
struct Read {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    /// Damaged records skipped: those without an offset, counted...
    skipped: u64,
    /// ...and the offsets of the others, each counted once.
    skipped_at: BTreeSet<u64>,
    undecoded: u64,
    first_undecoded: Option<robolog_arrow::Undecoded>,
}

/// Reads `table` in `parts` (consecutive time ranges), each on its own
/// thread, and joins them in order: the rows of one scan of the whole
/// range, as the ranges split it where log time does.
fn read_in_parts(
    log: &robolog::Log<'_>,
    table: &robolog_arrow::Table,
    opts: &ScanOptions,
    parts: &[ScanOptions],
) -> Result<Read, Failure> {
    let one = |o: &ScanOptions| -> Result<Read, Failure> {
        let mut reader = scan(log, table, o)?;
        let mut batches = Vec::new();
        for b in reader.by_ref() {
            batches.push(b?);
        }
        let skipped_at: BTreeSet<u64> = reader.skipped_offsets().iter().copied().collect();
        let with_offset = reader.skipped_offsets().len() as u64;
        Ok(Read {
            schema: reader.schema(),
            batches,
            skipped: reader.skipped().saturating_sub(with_offset),
            skipped_at,
            undecoded: reader.undecoded(),
            first_undecoded: reader.first_undecoded().cloned(),
        })
    };
    let reads: Vec<Result<Read, Failure>> = match parts {
        [] => vec![one(opts)],
        [only] => vec![one(only)],
        [first, rest @ ..] => std::thread::scope(|s| {
            let others: Vec<_> = rest.iter().map(|o| s.spawn(move || one(o))).collect();
            let mut reads = vec![one(first)];
            for h in others {
                reads.push(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
            }
            reads
        }),
    };
    let mut all: Option<Read> = None;
    for r in reads {
        let r = r?;
        match all.as_mut() {
            None => all = Some(r),
            Some(a) => {
                // A damaged record two parts meet (a chunk spanning both,
                // what the reader lost on opening) is counted once.
                a.batches.extend(r.batches);
                a.skipped += r.skipped;
                a.skipped_at.extend(r.skipped_at);
                a.undecoded += r.undecoded;
                if a.first_undecoded.is_none() {
                    a.first_undecoded = r.first_undecoded;
                }
            }
        }
    }
    all.ok_or_else(|| Failure::Missing("no part of the table was read".into()))
}

/// One of pandas' blocks as `Table._pandas_blocks` gives it: numpy's
/// dtype, the values, the columns' positions.
type PandasBlock<'py> = (&'static str, Bound<'py, PyByteArray>, Vec<usize>);

/// A topic's messages as a typed Arrow table (see Log.table).
///
/// Implements the Arrow PyCapsule interface (__arrow_c_stream__ and
/// __arrow_c_schema__), so pyarrow.table(t), polars.from_arrow(t),
/// duckdb and other Arrow consumers take it without copying. to_pyarrow(),
/// to_pandas() and to_polars() import those packages when called; none
/// of them is a dependency of robolog.
#[pyclass(module = "robolog", frozen)]
pub(crate) struct Table {
    /// The table's name.
    name: String,
    /// The topic (ULog: the message name) of its messages.
    topic: String,
    /// The columns.
    schema: SchemaRef,
    /// The rows.
    batches: Vec<RecordBatch>,
    /// What was met building it.
    problems: Vec<String>,
}

impl Table {
    /// A table of `batches` (all of `schema`) named `name`.
    pub(crate) fn new(
        name: String,
        topic: String,
        schema: SchemaRef,
        batches: Vec<RecordBatch>,
        problems: Vec<String>,
    ) -> Table {
        Table {
            name,
            topic,
            schema,
            batches,
            problems,
        }
    }
}

#[pymethods]
impl Table {
    /// The table's name: the topic without its leading "/", characters
    /// other than letters, digits and "_" as "_" (ULog: the message name).
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The topic of its messages (ULog: the message name).
    #[getter]
    fn topic(&self) -> &str {
        &self.topic
    }

    /// What was met building the table, one line each: messages that did
    /// not decode (their rows have null message columns), and for
    /// robolog.sql what the readers of the logs worked around. Empty for
    /// a table read without trouble. (Log.table's problems are also in
    /// Log.problems.)
    #[getter]
    fn problems(&self) -> Vec<String> {
        self.problems.clone()
    }

    /// The number of rows (messages).
    #[getter]
    fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    /// The number of columns.
    #[getter]
    fn num_columns(&self) -> usize {
        self.schema.fields().len()
    }

    /// The column names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    /// The table as an Arrow C stream (a PyCapsule named
    /// "arrow_array_stream"): the Arrow PyCapsule interface. The table's
    /// own schema is always used; requested_schema is accepted and
    /// ignored, as the interface allows.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let batches = RecordBatchIterator::new(
            self.batches.clone().into_iter().map(Ok),
            Arc::clone(&self.schema),
        );
        let stream = FFI_ArrowArrayStream::new(Box::new(batches));
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    /// The table's schema as an Arrow C schema (a PyCapsule named
    /// "arrow_schema").
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = FFI_ArrowSchema::try_from(self.schema.as_ref())
            .map_err(|e| PyRuntimeError::new_err(format!("robolog: arrow: {e}")))?;
        PyCapsule::new_with_value(py, schema, c"arrow_schema")
    }

    /// The table as a pyarrow.Table (needs pyarrow), without copying.
    fn to_pyarrow<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        frames(slf.py(), "to_pyarrow", slf.into_any())
    }

    /// The table as a pandas DataFrame (needs pandas and pyarrow):
    /// log_time as datetime64[ns], integer columns of their own width.
    fn to_pandas<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        frames(slf.py(), "to_pandas", slf.into_any())
    }

    /// pandas' blocks of the table (for to_pandas): (rows, [(dtype,
    /// bytearray, column positions)]), each bytearray a C-ordered array of
    /// shape (columns, rows); None for a table without rows or columns,
    /// or when a column has nulls or a type pandas does not keep in a
    /// plain numpy block.
    fn _pandas_blocks<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<(usize, Vec<PandasBlock<'py>>)>> {
        let rows = self.num_rows();
        if rows == 0 || self.schema.fields().is_empty() {
            return Ok(None);
        }
        let Some(blocks) = blocks::plan(&self.schema, &self.batches) else {
            return Ok(None);
        };
        let mut out = Vec::with_capacity(blocks.len());
        for b in &blocks {
            let bytes = PyByteArray::new_with(py, b.len(rows), |buf| {
                blocks::fill(b, &self.batches, rows, buf);
                Ok(())
            })?;
            out.push((b.dtype, bytes, b.columns.clone()));
        }
        Ok(Some((rows, out)))
    }

    /// The table as a polars DataFrame (needs polars).
    fn to_polars<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        frames(slf.py(), "to_polars", slf.into_any())
    }

    fn __len__(&self) -> usize {
        self.num_rows()
    }

    fn __repr__(&self) -> String {
        format!(
            "<robolog.Table {:?}: {} rows, columns {}>",
            self.name,
            self.num_rows(),
            self.column_names().join(", ")
        )
    }
}

/// The table with its nested columns spread out (`flatten=True` for logs
/// other than ULog): a struct column becomes one column per field named
/// `column.field`, a fixed-size array one column per element named
/// `column[i]`, down to columns of scalars, strings and variable-length
/// lists. A null struct or array makes its columns null in that row.
pub(crate) fn flatten(t: Table) -> Result<Table, Failure> {
    use robolog_arrow::flatten::{flatten_columns, flatten_schema};
    let schema = Arc::new(flatten_schema(&t.schema, usize::MAX).map_err(arrow_failure)?);
    let mut batches = Vec::with_capacity(t.batches.len());
    for b in &t.batches {
        let (_, arrays) =
            flatten_columns(t.schema.fields(), b.columns(), usize::MAX).map_err(arrow_failure)?;
        let opts = RecordBatchOptions::new().with_row_count(Some(b.num_rows()));
        let b = RecordBatch::try_new_with_options(schema.clone(), arrays, &opts);
        batches.push(b.map_err(arrow_failure)?);
    }
    Ok(Table {
        schema,
        batches,
        ..t
    })
}

/// An Arrow error as a failure (a bug if it happens: the arrays are
/// built from arrays of the same schema).
fn arrow_failure(e: arrow_schema::ArrowError) -> Failure {
    Failure::Table(e.into())
}

/// Calls `what` of the package's pure-Python `_frames` module on `table`
/// (where pyarrow, pandas and polars are imported, when first needed).
pub(crate) fn frames<'py>(
    py: Python<'py>,
    what: &str,
    table: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    py.import("robolog._frames")?.getattr(what)?.call1((table,))
}

/// Builds the table of a ULog message name (every instance) or instance
/// topic (`name[1]`) with pyulog's columns (`flatten=True`): log_time and
/// multi_id, then one column per field of pyulog's `data` dict, named as
/// pyulog names them (`q[0]`, `esc[1].esc_rpm`, nested padding kept) and
/// of pyulog's numpy dtypes (`bool` and `char` as int8). Rows are each
/// instance's samples in file order, the instances merged by timestamp
/// (ties: file order) as Log.table merges them. Done without the GIL.
pub(crate) fn build_flat(
    shared: &Shared,
    topic: &str,
    columns: Option<Vec<String>>,
    start: Option<i64>,
    end: Option<i64>,
) -> Result<Table, Failure> {
    let Some(ulog) = shared.log().as_ulog() else {
        return Err(Failure::Log(logcore::Error::invalid_argument(format!(
            "flatten=True is for ULog topics; this log is {}",
            shared.summary.format.name()
        ))));
    };
    let instance = |s: &Subscription<'_>| {
        if s.multi_id == 0 {
            s.name.clone()
        } else {
            format!("{}[{}]", s.name, s.multi_id)
        }
    };
    let mut subs: Vec<&Subscription<'_>> = ulog
        .subscriptions
        .iter()
        .filter(|s| s.name == topic)
        .collect();
    if subs.is_empty() {
        subs = ulog
            .subscriptions
            .iter()
            .filter(|s| instance(s) == topic)
            .collect();
    }
    let Some(first) = subs.first() else {
        return Err(Failure::Missing(unknown_topic(shared, topic)));
    };
    let name = first.name.clone();
    let fields = first.fields();
    for s in &subs {
        if s.fields() != fields {
            return Err(Failure::Log(logcore::Error::invalid_argument(format!(
                "flatten=True: the instances of {name} have different fields"
            ))));
        }
    }
    // The columns asked for, checked before anything is read.
    let all: Vec<String> = [LOG_TIME, MULTI_ID]
        .iter()
        .map(|s| s.to_string())
        .chain(fields.iter().map(|f| f.name.as_str().to_string()))
        .collect();
    let wanted: Vec<String> = match columns {
        Some(cols) => {
            if let Some(c) = cols.iter().find(|c| !all.contains(c)) {
                return Err(Failure::Missing(format!(
                    "table {name} has no column {c:?}; its columns: {}",
                    all.join(", ")
                )));
            }
            cols
        }
        None => all,
    };
    // Each instance's samples within the time range, then the rows: a
    // merge by timestamp keeping each instance's file order.
    let in_range = |t: u64| {
        let ns = i64::try_from(t).unwrap_or(i64::MAX).saturating_mul(1000);
        start.is_none_or(|s| ns >= s) && end.is_none_or(|e| ns < e)
    };
    // Each instance's timestamps, read with its columns where those are
    // wanted (one pass over samples scattered through the file), and the
    // offsets that order ties between instances.
    let merging = subs.len() > 1;
    let needs_values = wanted.iter().any(|c| c != LOG_TIME && c != MULTI_ID);
    let (times, mut per_sub): (Vec<Vec<u64>>, Vec<Vec<Option<Column>>>) = subs
        .iter()
        .map(|s| {
            if needs_values {
                let (t, cols) = s.timestamps_and_columns();
                (t, cols.into_iter().map(|(_, c)| Some(c)).collect())
            } else {
                (s.timestamps(), Vec::new())
            }
        })
        .unzip();
    let offsets: Vec<Vec<u64>> = if merging {
        subs.iter()
            .map(|s| s.samples.iter().map(|x| x.offset).collect())
            .collect()
    } else {
        Vec::new()
    };
    let kept: Vec<Vec<usize>> = times
        .iter()
        .map(|ts| (0..ts.len()).filter(|&i| in_range(ts[i])).collect())
        .collect();
    let order = if !merging {
        match (kept.first(), times.first()) {
            (Some(k), Some(t)) if k.len() == t.len() => Rows::All,
            (Some(k), _) => Rows::Picked(k.clone()),
            _ => Rows::Picked(Vec::new()),
        }
    } else {
        // One pending row per instance, the earliest first; ties go to
        // the sample stored first, as in the log's message order.
        let total: usize = kept.iter().map(Vec::len).sum();
        let mut order: Vec<(usize, usize)> = Vec::with_capacity(total);
        let mut next = vec![0usize; subs.len()];
        let key = |k: usize, r: usize| Reverse((times[k][r], offsets[k][r], k));
        let mut pending: BinaryHeap<Reverse<(u64, u64, usize)>> = kept
            .iter()
            .enumerate()
            .filter_map(|(k, rows)| rows.first().map(|&r| key(k, r)))
            .collect();
        while let Some(Reverse((_, _, k))) = pending.pop() {
            order.push((k, kept[k][next[k]]));
            next[k] += 1;
            if let Some(&r) = kept[k].get(next[k]) {
                pending.push(key(k, r));
            }
        }
        Rows::Merged(order)
    };
    let rows = order.len(times.first().map_or(0, Vec::len));
    let mut arrow_fields = Vec::with_capacity(wanted.len());
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(wanted.len());
    for (at, col) in wanted.iter().enumerate() {
        if col == LOG_TIME {
            let ns = |t: u64| i64::try_from(t).unwrap_or(i64::MAX).saturating_mul(1000);
            let values: Vec<i64> = match &order {
                Rows::All => times[0].iter().map(|&t| ns(t)).collect(),
                Rows::Picked(rs) => rs.iter().map(|&r| ns(times[0][r])).collect(),
                Rows::Merged(o) => o.iter().map(|&(k, r)| ns(times[k][r])).collect(),
            };
            arrow_fields.push(Field::new(
                LOG_TIME,
                DataType::Timestamp(TimeUnit::Nanosecond, None),
                false,
            ));
            arrays.push(Arc::new(TimestampNanosecondArray::from(values)));
        } else if col == MULTI_ID {
            let values: Vec<u8> = match &order {
                Rows::Merged(o) => o.iter().map(|&(k, _)| subs[k].multi_id).collect(),
                _ => vec![first.multi_id; rows],
            };
            arrow_fields.push(Field::new(MULTI_ID, DataType::UInt8, false));
            arrays.push(Arc::new(UInt8Array::from(values)));
        } else {
            let i = fields
                .iter()
                .position(|f| f.name.as_str() == col)
                .unwrap_or_default();
            // A column asked for again later is copied; its last use
            // takes it.
            let again = wanted[at + 1..].contains(col);
            let cols: Vec<Column> = per_sub
                .iter_mut()
                .map(|c| {
                    let slot = &mut c[i];
                    if again { slot.clone() } else { slot.take() }.unwrap_or(Column::I8(Vec::new()))
                })
                .collect();
            let array = gather(cols, &order);
            arrow_fields.push(Field::new(col, array.data_type().clone(), false));
            arrays.push(array);
        }
    }
    let mut meta = HashMap::new();
    meta.insert("robolog.table".to_string(), name.clone());
    meta.insert("robolog.topic".to_string(), name.clone());
    meta.insert("robolog.format".to_string(), "ulog".to_string());
    meta.insert("robolog.type".to_string(), name.clone());
    let schema = Arc::new(Schema::new_with_metadata(arrow_fields, meta));
    let batch = RecordBatch::try_new_with_options(
        Arc::clone(&schema),
        arrays,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .map_err(|e| {
        Failure::Log(logcore::Error::invalid_argument(format!(
            "flatten=True: {e}"
        )))
    })?;
    Ok(Table {
        name: name.clone(),
        topic: name,
        schema,
        batches: vec![batch],
        problems: Vec::new(),
    })
}

/// The rows of a flat ULog table: of one instance, all its samples or
/// some (by index); of several, (instance, sample) pairs in row order.
enum Rows {
    All,
    Picked(Vec<usize>),
    Merged(Vec<(usize, usize)>),
}

impl Rows {
    /// The number of rows, of an instance of `samples` samples when one.
    fn len(&self, samples: usize) -> usize {
        match self {
            Rows::All => samples,
            Rows::Picked(r) => r.len(),
            Rows::Merged(o) => o.len(),
        }
    }
}

/// The values of one field (one column per instance) at the rows `order`
/// names, as an Arrow array of pyulog's dtype for the field: the column
/// itself, without a copy, when it is every sample of one instance.
fn gather(cols: Vec<Column>, order: &Rows) -> ArrayRef {
    /// The rows of `vs` (one vector per instance; a missing value, not
    /// expected, as 0) converted by `conv`.
    fn pick<T: Copy + Default, U>(vs: &[Vec<T>], order: &Rows, conv: impl Fn(T) -> U) -> Vec<U> {
        let at = |k: usize, r: usize| {
            conv(
                vs.get(k)
                    .and_then(|v| v.get(r))
                    .copied()
                    .unwrap_or_default(),
            )
        };
        match order {
            Rows::All => vs
                .first()
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .map(|&x| conv(x))
                .collect(),
            Rows::Picked(rs) => rs.iter().map(|&r| at(0, r)).collect(),
            Rows::Merged(o) => o.iter().map(|&(k, r)| at(k, r)).collect(),
        }
    }
    macro_rules! take {
        ($variant:ident, $array:ty) => {{
            let mut vs: Vec<Vec<_>> = cols
                .into_iter()
                .map(|c| match c {
                    Column::$variant(v) => v,
                    _ => Vec::new(),
                })
                .collect();
            let values = match order {
                Rows::All if vs.len() == 1 => vs.pop().unwrap_or_default(),
                _ => pick(&vs, order, |x| x),
            };
            Arc::new(<$array>::from(values)) as ArrayRef
        }};
    }
    macro_rules! int8 {
        ($variant:ident, $conv:expr) => {{
            let vs: Vec<Vec<_>> = cols
                .into_iter()
                .map(|c| match c {
                    Column::$variant(v) => v,
                    _ => Vec::new(),
                })
                .collect();
            Arc::new(Int8Array::from(pick(&vs, order, $conv))) as ArrayRef
        }};
    }
    match cols.first() {
        Some(Column::I8(_)) => take!(I8, Int8Array),
        Some(Column::U8(_)) => take!(U8, UInt8Array),
        Some(Column::I16(_)) => take!(I16, Int16Array),
        Some(Column::U16(_)) => take!(U16, UInt16Array),
        Some(Column::I32(_)) => take!(I32, Int32Array),
        Some(Column::U32(_)) => take!(U32, UInt32Array),
        Some(Column::I64(_)) => take!(I64, Int64Array),
        Some(Column::U64(_)) => take!(U64, UInt64Array),
        Some(Column::F32(_)) => take!(F32, Float32Array),
        Some(Column::F64(_)) => take!(F64, Float64Array),
        Some(Column::Bool(_)) => int8!(Bool, i8::from),
        // numpy's int8: the byte's bits.
        Some(Column::Char(_)) => int8!(Char, |x: u8| x as i8),
        None => Arc::new(Int8Array::from_iter_values([])),
    }
}
