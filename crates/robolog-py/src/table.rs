//! `Log.table`: a topic's typed Arrow table, handed to pyarrow, pandas,
//! polars or DuckDB through the Arrow PyCapsule interface.

use std::sync::Arc;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator};
use arrow_schema::SchemaRef;
use arrow_schema::ffi::FFI_ArrowSchema;
use logcore::{LogReader, Timestamp};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use robolog_arrow::{ScanOptions, TableNames, scan, table_in};

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
    let mut reader = scan(log, &table, &opts)?;
    let schema = reader.schema();
    let mut batches = Vec::new();
    for b in reader.by_ref() {
        batches.push(b?);
    }
    if reader.skipped() > 0 {
        shared.add_problem(format!(
            "table {name}: {} damaged record{} skipped",
            reader.skipped(),
            if reader.skipped() == 1 {
                " was"
            } else {
                "s were"
            }
        ));
    }
    if let Some(first) = reader.first_undecoded() {
        let n = reader.undecoded();
        shared.add_problem(format!(
            "table {name}: {n} message{} could not be decoded and {} rows of null message \
             columns; the first at byte {}: {}",
            if n == 1 { "" } else { "s" },
            if n == 1 { "is" } else { "are" },
            first.offset,
            first.reason
        ));
    }
    Ok(Table {
        name: name.to_string(),
        topic: key.to_string(),
        schema,
        batches,
    })
}

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

/// Calls `what` of the package's pure-Python `_frames` module on `table`
/// (where pyarrow, pandas and polars are imported, when first needed).
pub(crate) fn frames<'py>(
    py: Python<'py>,
    what: &str,
    table: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    py.import("robolog._frames")?.getattr(what)?.call1((table,))
}
