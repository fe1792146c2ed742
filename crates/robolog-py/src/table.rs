//! `Log.table`: a topic's typed Arrow table, handed to pyarrow, pandas,
//! polars or DuckDB through the Arrow PyCapsule interface.

use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::SchemaRef;
use arrow_schema::ffi::FFI_ArrowSchema;
use logcore::Timestamp;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use robolog_arrow::{ScanOptions, TableRead};

use crate::blocks::{self, PandasBlock};
use crate::errors::{Failure, guarded};
use crate::frames;
use crate::interrupt;
use crate::log::unknown_topic;
use crate::source::Shared;

/// What a table or frame is asked for: as `Log.table` takes it.
#[derive(Clone, Debug)]
pub(crate) struct Query {
    /// A topic, a table name or a ULog message name or instance topic.
    pub(crate) topic: String,
    /// The columns to build, in order; `None` for all.
    pub(crate) columns: Option<Vec<String>>,
    /// Only rows with `start <= log_time < end` (ns on the log's clock).
    pub(crate) start: Option<i64>,
    pub(crate) end: Option<i64>,
}

impl Query {
    /// The query of the arguments of `Log.table`.
    pub(crate) fn new(
        topic: &str,
        columns: Option<Vec<String>>,
        start: Option<i64>,
        end: Option<i64>,
    ) -> Self {
        Query {
            topic: topic.to_string(),
            columns,
            start,
            end,
        }
    }
}

/// A table `q` asks for, resolved before anything is read.
pub(crate) struct Planned {
    /// The table's name.
    pub(crate) name: String,
    /// Its key: the topic (ULog: the message name) of its messages.
    pub(crate) key: String,
    /// The library's table: its channels and columns.
    pub(crate) table: robolog_arrow::Table,
    /// The columns and time range to read.
    pub(crate) opts: ScanOptions,
}

/// Resolves the table `q` asks for (of a topic, a table name or a ULog
/// message name or instance topic) and checks the columns it names.
pub(crate) fn plan(shared: &Shared, q: &Query) -> Result<Planned, Failure> {
    let table = robolog_arrow::table_for(shared.log(), &shared.summary, &q.topic)?
        .ok_or_else(|| Failure::Missing(unknown_topic(shared, &q.topic)))?;
    let (name, key) = (table.name.clone(), table.key.clone());
    let full = table.schema();
    if let Some(columns) = &q.columns {
        if let Some(c) = columns.iter().find(|c| full.index_of(c).is_err()) {
            let all: Vec<&str> = full.fields().iter().map(|f| f.name().as_str()).collect();
            return Err(Failure::Missing(format!(
                "table {name} has no column {c:?}; its columns: {}",
                all.join(", ")
            )));
        }
    }
    let opts = ScanOptions {
        projection: q.columns.clone(),
        start: q.start.map(Timestamp),
        end: q.end.map(Timestamp),
        ..ScanOptions::default()
    };
    Ok(Planned {
        name,
        key,
        table,
        opts,
    })
}

/// Builds the table `q` asks for: the work of `Log.table`, done without
/// the GIL.
pub(crate) fn build(shared: &Shared, q: &Query) -> Result<Table, Failure> {
    let p = plan(shared, q)?;
    let read = robolog_arrow::read_table(shared.log(), &shared.summary, &p.table, &p.opts)?;
    let problems = problems(shared, &p.name, &read);
    Ok(Table {
        name: p.name,
        topic: p.key,
        schema: read.schema,
        batches: read.batches,
        problems,
    })
}

/// The problems of table `name` that `read` met, one line each (also
/// kept in the log's problems): damaged records skipped, messages that
/// did not decode.
pub(crate) fn problems(shared: &Shared, name: &str, read: &TableRead) -> Vec<String> {
    let mut problems = Vec::new();
    let skipped = read.skipped;
    if skipped > 0 {
        problems.push(format!(
            "table {name}: {skipped} damaged record{} skipped",
            if skipped == 1 { " was" } else { "s were" }
        ));
    }
    if let Some(first) = &read.first_undecoded {
        let n = read.undecoded;
        problems.push(format!(
            "table {name}: {n} message{} could not be decoded ({}: null message columns); \
             the first at byte {}: {}",
            if n == 1 { "" } else { "s" },
            if n == 1 {
                "its row has"
            } else {
                "their rows have"
            },
            first.offset,
            first.reason
        ));
    }
    for p in &problems {
        shared.add_problem(p.clone());
    }
    problems
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
    /// What was met building it.
    problems: Vec<String>,
}

impl Table {
    /// The table's columns in pandas' blocks and its number of rows
    /// (see `_pandas_blocks`), gathered without the GIL.
    fn blocks(
        &self,
        py: Python<'_>,
    ) -> PyResult<Option<(usize, Vec<robolog_arrow::blocks::Block>)>> {
        let rows = self.num_rows();
        if rows == 0 || self.schema.fields().is_empty() {
            return Ok(None);
        }
        let made = py
            .detach(|| {
                guarded(|| {
                    Ok(robolog_arrow::blocks::of_batches(
                        &self.schema,
                        &self.batches,
                        rows,
                    ))
                })
            })
            .map_err(|e| e.into_py(py, None))?;
        Ok(made.map(|m| (rows, m)))
    }

    /// The table's name, key, schema, batches and problems.
    pub(crate) fn into_parts(self) -> (String, String, SchemaRef, Vec<RecordBatch>, Vec<String>) {
        (
            self.name,
            self.topic,
            self.schema,
            self.batches,
            self.problems,
        )
    }

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
        column_names(&self.schema)
    }

    /// The table as an Arrow C stream (a PyCapsule named
    /// "arrow_array_stream"): the Arrow PyCapsule interface. A
    /// requested_schema (an "arrow_schema" PyCapsule) the columns can be
    /// cast to is honoured, batch by batch as the consumer reads them;
    /// else the table's own schema is used, as the interface allows.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyCapsule>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let batches = self.batches.clone().into_iter().map(Ok);
        stream_capsule(py, Arc::clone(&self.schema), batches, requested_schema)
    }

    /// The table's schema as an Arrow C schema (a PyCapsule named
    /// "arrow_schema").
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.schema)
    }

    /// The table as a pyarrow.Table (needs pyarrow), without copying.
    fn to_pyarrow<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        frames::to_pyarrow(slf.as_any(), "Table.to_pyarrow")
    }

    /// The table as a pandas DataFrame (needs pandas, and pyarrow for
    /// tables with nulls, text or nested columns, or before pandas 3.0):
    /// log_time as datetime64[ns] (timedelta64[ns] on a clock since boot
    /// or since the recording's start), integer columns of their own
    /// width.
    pub(crate) fn to_pandas<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let me = slf.get();
        frames::to_pandas(
            slf.as_any(),
            me.column_names(),
            || me.blocks(py),
            "Table.to_pandas",
        )
    }

    /// pandas' blocks of the table, as to_pandas hands them to pandas:
    /// (rows, [(dtype, values, column positions)]), each values a numpy
    /// array of shape (columns, rows) (log times as int64); None for a
    /// table without rows or columns, or when a column has nulls or a
    /// type pandas does not keep in a plain numpy block. Gathered without
    /// the GIL.
    fn _pandas_blocks<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<(usize, Vec<PandasBlock<'py>>)>> {
        let Some((rows, made)) = self.blocks(py)? else {
            return Ok(None);
        };
        Ok(Some((rows, blocks::to_python(py, made, rows)?)))
    }

    /// The table as a polars DataFrame (needs polars).
    fn to_polars<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        frames::to_polars(slf.as_any(), "Table.to_polars")
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
    let schema = flat_schema(&t.schema)?;
    let mut batches = Vec::with_capacity(t.batches.len());
    for b in &t.batches {
        interrupt::poll();
        batches.push(flatten_batch(&schema, b)?);
    }
    Ok(Table {
        schema,
        batches,
        ..t
    })
}

/// The schema of a table of `schema` flattened (see [`flatten`]).
pub(crate) fn flat_schema(schema: &SchemaRef) -> Result<SchemaRef, Failure> {
    let flat = robolog_arrow::flatten::flatten_schema(schema, usize::MAX).map_err(arrow_failure)?;
    Ok(Arc::new(flat))
}

/// A batch flattened into `schema` (its [`flat_schema`]).
pub(crate) fn flatten_batch(schema: &SchemaRef, b: &RecordBatch) -> Result<RecordBatch, Failure> {
    let (_, arrays) =
        robolog_arrow::flatten::flatten_columns(b.schema().fields(), b.columns(), usize::MAX)
            .map_err(arrow_failure)?;
    let opts = RecordBatchOptions::new().with_row_count(Some(b.num_rows()));
    RecordBatch::try_new_with_options(Arc::clone(schema), arrays, &opts).map_err(arrow_failure)
}

/// An Arrow error as a failure (a bug if it happens: the arrays are
/// built from arrays of the same schema).
fn arrow_failure(e: arrow_schema::ArrowError) -> Failure {
    Failure::Table(e.into())
}

/// `batches` (of `schema`) as an Arrow C stream capsule, each batch handed
/// over when the consumer reads it. A `requested` schema (an
/// "arrow_schema" capsule) of as many columns, each of a type its column
/// can be cast to, is honoured: the batches are cast to it as they are
/// read, without the nulls a lossy cast would make (a value the requested
/// type cannot hold fails the stream, naming it). Any other requested
/// schema is not honoured, as the interface allows: the stream keeps the
/// table's own.
pub(crate) fn stream_capsule<'py>(
    py: Python<'py>,
    schema: SchemaRef,
    batches: impl Iterator<Item = Result<RecordBatch, arrow_schema::ArrowError>> + Send + 'static,
    requested: Option<Bound<'py, PyCapsule>>,
) -> PyResult<Bound<'py, PyCapsule>> {
    use arrow_array::{ArrayRef, StructArray};
    use pyo3_arrow::ffi::{ArrayIterator, to_stream_pycapsule};
    let target = match requested {
        Some(capsule) => {
            let wanted = pyo3_arrow::PySchema::from_arrow_pycapsule(&capsule)?.into_inner();
            castable(&schema, &wanted).then_some(wanted)
        }
        None => None,
    };
    let (schema, batches): (SchemaRef, Box<dyn Iterator<Item = _> + Send>) = match target {
        Some(wanted) => {
            let to = Arc::new(arrow_schema::Schema::new_with_metadata(
                wanted.fields().clone(),
                schema.metadata().clone(),
            ));
            let out = Arc::clone(&to);
            (to, Box::new(batches.map(move |b| cast_batch(&b?, &out))))
        }
        None => (schema, Box::new(batches)),
    };
    // The C stream carries each batch as a struct array of its columns.
    let field = arrow_schema::Field::new_struct("", schema.fields().clone(), false)
        .with_metadata(schema.metadata().clone());
    let arrays = batches.map(|b| Ok(Arc::new(StructArray::from(b?)) as ArrayRef));
    let reader = Box::new(ArrayIterator::new(arrays, Arc::new(field)));
    Ok(to_stream_pycapsule(py, reader, None)?)
}

/// Whether every column of `from` can be cast to the type of the column
/// at its place in `to` (of as many columns).
fn castable(from: &arrow_schema::Schema, to: &arrow_schema::Schema) -> bool {
    from.fields().len() == to.fields().len()
        && from
            .fields()
            .iter()
            .zip(to.fields())
            .all(|(a, b)| arrow_cast::can_cast_types(a.data_type(), b.data_type()))
}

/// `b`'s columns cast to the types of `to` (see [`stream_capsule`]).
fn cast_batch(b: &RecordBatch, to: &SchemaRef) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let options = arrow_cast::CastOptions {
        safe: false,
        ..Default::default()
    };
    let columns = b
        .columns()
        .iter()
        .zip(to.fields())
        .map(|(c, f)| {
            arrow_cast::cast_with_options(c, f.data_type(), &options).map_err(|e| {
                arrow_schema::ArrowError::CastError(format!(
                    "column {:?} cannot be given as {}: {e}",
                    f.name(),
                    f.data_type()
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let opts = RecordBatchOptions::new().with_row_count(Some(b.num_rows()));
    RecordBatch::try_new_with_options(Arc::clone(to), columns, &opts)
}

/// The names of `schema`'s columns, in order.
pub(crate) fn column_names(schema: &SchemaRef) -> Vec<String> {
    schema.fields().iter().map(|f| f.name().clone()).collect()
}

/// `schema` as an Arrow C schema (a PyCapsule named "arrow_schema").
pub(crate) fn schema_capsule<'py>(
    py: Python<'py>,
    schema: &SchemaRef,
) -> PyResult<Bound<'py, PyCapsule>> {
    let schema = FFI_ArrowSchema::try_from(schema.as_ref())
        .map_err(|e| PyRuntimeError::new_err(format!("robolog: arrow: {e}")))?;
    PyCapsule::new_with_value(py, schema, c"arrow_schema")
}
