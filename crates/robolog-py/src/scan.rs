//! `Log.scan`: a topic's table as a stream of record batches, read while
//! they are consumed.
//!
//! The library's batch reader borrows the log and cannot move between
//! threads, so, as for `Log.messages`, one thread of its own per scan runs
//! it (never holding the GIL) and hands each batch (a few thousand rows)
//! over a channel that holds one: memory holds a batch or two, whatever
//! the topic's size. The thread first hands over the schema, or the
//! failure to resolve the topic and columns, which `Log.scan` raises.
//! Dropping the scan closes the channel, and the thread stops at its next
//! batch.

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};

use arrow_array::RecordBatch;
use arrow_schema::{ArrowError, SchemaRef};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use robolog_arrow::{TableRead, scan as scan_table};

use crate::errors::{Failure, guarded};
use crate::flat;
use crate::interrupt;
use crate::source::Shared;
use crate::table::{self, Query, Table, column_names, schema_capsule, stream_capsule};

/// What the reading thread hands over.
enum Part {
    /// First: the table's name, its key and its schema.
    Schema(String, String, SchemaRef),
    /// The next rows.
    Batch(RecordBatch),
    /// Every row was read; what was met reading them.
    End(Vec<String>),
    /// Resolving or reading failed.
    Failed(Failure),
}

/// A topic's table as a stream of record batches (see Log.scan).
///
/// Iterating gives Tables of a few thousand rows each, in the order
/// Log.table gives them; the scan is also an Arrow C stream
/// (__arrow_c_stream__), so pyarrow.RecordBatchReader.from_stream(scan),
/// polars and DuckDB read it batch by batch. A scan is read once.
#[pyclass(module = "robolog")]
pub(crate) struct Scan {
    shared: Arc<Shared>,
    name: String,
    topic: String,
    schema: SchemaRef,
    parts: Mutex<Option<Receiver<Part>>>,
    /// What was met reading the rows, once all were read.
    problems: Vec<String>,
}

impl Scan {
    /// Starts the scan `q` asks for on a thread of its own and waits for
    /// its schema (or its failure) without the GIL.
    pub(crate) fn start(
        py: Python<'_>,
        shared: Arc<Shared>,
        q: Query,
        flatten: bool,
    ) -> PyResult<Scan> {
        let (tx, rx) = sync_channel(1);
        let reading = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("robolog-scan".into())
            .spawn(move || work(&reading, &q, flatten, &tx))
            .map_err(|e| PyRuntimeError::new_err(format!("robolog: no thread to read on: {e}")))?;
        // An interrupt drops the channel: the thread stops at its next send.
        let first = py.detach(move || guarded(|| Ok((interrupt::recv(&rx), rx))));
        let (first, rx) = match first {
            Ok(got) => got,
            Err(f) => return Err(f.into_py(py, shared.path.as_deref())),
        };
        match first {
            Ok(Part::Schema(name, topic, schema)) => Ok(Scan {
                shared,
                name,
                topic,
                schema,
                parts: Mutex::new(Some(rx)),
                problems: Vec::new(),
            }),
            Ok(Part::Failed(f)) => Err(f.into_py(py, shared.path.as_deref())),
            _ => Err(PyRuntimeError::new_err(
                "robolog: the scan's thread stopped before its schema",
            )),
        }
    }
}

/// The reading thread: the schema, the batches, then the end.
fn work(shared: &Shared, q: &Query, flatten: bool, tx: &SyncSender<Part>) {
    let last = match shared.unless_changed(guarded(|| read(shared, q, flatten, tx))) {
        Ok(problems) => Part::End(problems),
        Err(f) => Part::Failed(f),
    };
    // The scan may be gone already: nobody is left to tell.
    let _ = tx.send(last);
}

/// Hands over the schema and the batches of the table `q` asks for; what
/// was met reading them.
fn read(
    shared: &Shared,
    q: &Query,
    flatten: bool,
    tx: &SyncSender<Part>,
) -> Result<Vec<String>, Failure> {
    if flatten && shared.log().as_ulog().is_some() {
        // pyulog's columns are gathered from every instance at once.
        let t = flat::build_flat(shared, q)?;
        let (name, topic, schema, batches, problems) = t.into_parts();
        if tx.send(Part::Schema(name, topic, schema)).is_err() {
            return Ok(problems);
        }
        for b in batches {
            if tx.send(Part::Batch(b)).is_err() {
                break;
            }
        }
        return Ok(problems);
    }
    let p = table::plan(shared, q)?;
    let mut reader = scan_table(shared.log(), &p.table, &p.opts)?;
    let schema = reader.schema();
    let out_schema = if flatten {
        table::flat_schema(&schema)?
    } else {
        Arc::clone(&schema)
    };
    if tx
        .send(Part::Schema(
            p.name.clone(),
            p.key.clone(),
            Arc::clone(&out_schema),
        ))
        .is_err()
    {
        return Ok(Vec::new());
    }
    for b in reader.by_ref() {
        interrupt::poll();
        let b = b?;
        let b = if flatten {
            table::flatten_batch(&out_schema, &b)?
        } else {
            b
        };
        // A batch read from a file changed meanwhile is not handed over.
        shared.unless_changed(Ok(()))?;
        if tx.send(Part::Batch(b)).is_err() {
            return Ok(Vec::new());
        }
    }
    let read = TableRead::of_reader(&reader, Vec::new());
    Ok(table::problems(shared, &p.name, &read))
}

/// The batches left of a scan's channel, for the C stream.
fn batches_of(rx: Receiver<Part>) -> impl Iterator<Item = Result<RecordBatch, ArrowError>> {
    rx.into_iter().map_while(|part| match part {
        Part::Batch(b) => Some(Ok(b)),
        Part::Failed(f) => Some(Err(ArrowError::ExternalError(Box::new(
            std::io::Error::other(f.to_string()),
        )))),
        Part::Schema(..) | Part::End(_) => None,
    })
}

#[pymethods]
impl Scan {
    /// The table's name (as Log.table names it).
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The topic (ULog: the message name) of its messages.
    #[getter]
    fn topic(&self) -> &str {
        &self.topic
    }

    /// The column names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        column_names(&self.schema)
    }

    /// What was met reading the rows (as Table.problems), once every
    /// batch was read; empty before.
    #[getter]
    fn problems(&self) -> Vec<String> {
        self.problems.clone()
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next batch's rows as a Table.
    fn __next__(mut slf: PyRefMut<'_, Self>, py: Python<'_>) -> PyResult<Option<Table>> {
        let path = slf.shared.path.clone();
        let part = interrupt::next_from(py, &mut slf.parts, path.as_deref())?;
        if let Some(Part::Batch(b)) = part {
            return Ok(Some(Table::new(
                slf.name.clone(),
                slf.topic.clone(),
                Arc::clone(&slf.schema),
                vec![b],
                Vec::new(),
            )));
        }
        // The scan is over: read once.
        *slf.parts.get_mut().unwrap_or_else(PoisonError::into_inner) = None;
        match part {
            Some(Part::End(problems)) => {
                slf.problems = problems;
                Ok(None)
            }
            Some(Part::Failed(f)) => Err(f.into_py(py, path.as_deref())),
            // The thread always ends with `End` or `Failed`.
            _ => Ok(None),
        }
    }

    /// The batches not yet read as an Arrow C stream (a PyCapsule named
    /// "arrow_array_stream"), read as the consumer asks for them; a
    /// requested_schema the columns can be cast to is honoured. The scan
    /// is consumed: a second call raises ValueError.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyCapsule>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let rx = self
            .parts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .ok_or_else(|| PyValueError::new_err("this scan was read already"))?;
        stream_capsule(
            py,
            Arc::clone(&self.schema),
            batches_of(rx),
            requested_schema,
        )
    }

    /// The schema as an Arrow C schema (a PyCapsule named "arrow_schema").
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.schema)
    }

    fn __repr__(&self) -> String {
        format!(
            "<robolog.Scan {:?}: columns {}>",
            self.name,
            self.column_names().join(", ")
        )
    }
}
