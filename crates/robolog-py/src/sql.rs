//! `robolog.sql`: SQL over the tables of a set of logs, as `robolog sql`
//! answers it (the `robolog-sql` crate: one table per topic or ULog
//! message across every log, a `log` column first, plus `logs` and
//! `topics`), returned
//! as an Arrow table.
//!
//! SQL over logs only reads: a statement other than a query is refused
//! before any log is opened, and DataFusion's own options refuse DDL, DML
//! and `SET` again on the plan.

use std::path::PathBuf;
use std::sync::Arc;

use datafusion::error::DataFusionError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use robolog_sql::LogSet;

use crate::errors::{
    Failure, FormatError, QueryError, changed_during, format_error, guarded, io_error, log_error,
};
use crate::log::limits;
use crate::table::Table;

/// What can fail answering a query, carried out of the code that runs
/// without the GIL.
enum SqlFailure {
    /// The query: it does not parse or plan, is not a query, or failed
    /// while running for a reason of its own (`QueryError`).
    Query(String),
    /// A path could not be read (an `OSError`).
    Io(String, std::io::Error),
    /// A log did not open.
    Open(String, logcore::Error),
    /// A log's tables could not be read or merged with the others' (a
    /// `FormatError` naming the log).
    Format(String, String, Option<u64>),
    /// No log under the paths.
    NoLogs,
    /// Any other failure (a panic among them).
    Other(Failure),
}

impl SqlFailure {
    /// The failure of a DataFusion error: the log's when it came from one.
    fn of(e: &DataFusionError) -> SqlFailure {
        match robolog_sql::Error::of(e) {
            Some(log) => SqlFailure::log(log),
            None => SqlFailure::Query(e.to_string()),
        }
    }

    /// The failure of an error of the `robolog-sql` crate.
    fn log(e: &robolog_sql::Error) -> SqlFailure {
        use robolog_sql::Error as E;
        let name = |p: &std::path::Path| p.display().to_string();
        match e {
            E::Io { path, source } => SqlFailure::Io(
                name(path),
                match source.raw_os_error() {
                    Some(errno) => std::io::Error::from_raw_os_error(errno),
                    None => std::io::Error::new(source.kind(), source.to_string()),
                },
            ),
            E::Open { path, source } => SqlFailure::Open(name(path), source.clone()),
            E::Read { path, source } => {
                let offset = match source {
                    robolog_arrow::Error::Misfit { offset, .. } => Some(*offset),
                    robolog_arrow::Error::Log(l) => l.offset(),
                    _ => None,
                };
                SqlFailure::Format(name(path), e.to_string(), offset)
            }
            E::Merge { path, .. } | E::Align { path, .. } => {
                SqlFailure::Format(name(path), e.to_string(), None)
            }
            E::NoLogs => SqlFailure::NoLogs,
            other => SqlFailure::Query(other.to_string()),
        }
    }

    /// The Python exception.
    fn into_py(self, py: Python<'_>) -> PyErr {
        match self {
            SqlFailure::Query(text) => QueryError::new_err(text),
            SqlFailure::Io(path, e) => io_error(&e, Some(&path)),
            SqlFailure::Open(path, e) => log_error(py, &e, Some(&path)),
            SqlFailure::Format(path, text, offset) => {
                format_error::<FormatError>(py, &text, offset, Some(&path))
            }
            SqlFailure::NoLogs => PyValueError::new_err("robolog.sql: no log files found"),
            SqlFailure::Other(f) => f.into_py(py, None),
        }
    }
}

/// The answer of a query: its rows, and what was met reading the logs.
struct Answer {
    schema: arrow_schema::SchemaRef,
    batches: Vec<arrow_array::RecordBatch>,
    problems: Vec<String>,
}

/// Stops a task of the runtime when dropped (an interrupt unwinding out of
/// the wait for it).
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Answers `query` over the logs under `paths` (the work of robolog.sql,
/// done without the GIL).
fn answer(query: &str, paths: &[PathBuf], limits: robolog::Limits) -> Result<Answer, SqlFailure> {
    let session = robolog_sql::session();
    // Only queries: before a log is opened, and again on the plan.
    robolog_sql::check_read_only(&session, query).map_err(|e| SqlFailure::Query(e.to_string()))?;
    let set = LogSet::find(paths, limits).map_err(|e| SqlFailure::log(&e))?;
    set.register(&session).map_err(|e| SqlFailure::log(&e))?;
    // Threads named for the query, which a test (and `top -H`) can tell
    // from the process's others.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("robolog-sql")
        .build()
        .map_err(|e| SqlFailure::Other(Failure::Log(logcore::Error::Io(e.into()))))?;
    // Planned as `robolog sql` plans it: a table that is not there is
    // named with the closest ones and how to quote them (which may open
    // every log of the set, so Ctrl-C is answered here too).
    let (planner, sql) = (session.clone(), query.to_string());
    let df = on_runtime(
        &runtime,
        async move { robolog_sql::query(&planner, &sql).await },
    )?
    .map_err(|e| match &e {
        // A log's error while planning (opening it), as the log's.
        robolog_sql::Error::DataFusion(d) => SqlFailure::of(d),
        e => SqlFailure::log(e),
    })?;
    let schema = Arc::new(df.schema().as_arrow().clone());
    // A query may run for long without producing a batch (an aggregate
    // over `generate_series`).
    let batches = on_runtime(&runtime, async move { df.collect().await })?;
    let batches = batches.map_err(|e| SqlFailure::of(&e))?;
    let mut problems: Vec<String> = set
        .open_warnings()
        .iter()
        .map(|(path, w)| format!("{}: {w}", path.display()))
        .collect();
    for u in set.progress().undecoded() {
        let first = u.first.as_ref().map_or(String::new(), |f| {
            format!("; the first at byte offset {}: {}", f.offset, f.reason)
        });
        problems.push(format!(
            "{}: table {}: {} message{} did not decode and {} null fields{first}",
            u.path.display(),
            u.table,
            u.count,
            if u.count == 1 { "" } else { "s" },
            if u.count == 1 { "has" } else { "have" },
        ));
    }
    // Records the query's scans could not read: the answer may lack rows.
    for l in set.progress().lost() {
        let first = match (&l.first, l.offset) {
            (Some(e), _) => format!("; the first: {e}"),
            (None, Some(o)) => format!("; the first at byte {o}"),
            (None, None) => String::new(),
        };
        problems.push(format!(
            "{}: table {}: {} record{} could not be read, so the answer may lack rows{first}",
            l.path.display(),
            l.table,
            l.count,
            if l.count == 1 { "" } else { "s" },
        ));
    }
    Ok(Answer {
        schema,
        batches,
        problems,
    })
}

/// `work` run on the runtime's threads while this one looks for Ctrl-C:
/// an interrupt drops the task, which stops it, and raises here.
fn on_runtime<T: Send + 'static>(
    runtime: &tokio::runtime::Runtime,
    work: impl std::future::Future<Output = T> + Send + 'static,
) -> Result<T, SqlFailure> {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let task = runtime.spawn(async move {
        let _ = tx.send(work.await);
    });
    let aborting = AbortOnDrop(task);
    let out = crate::interrupt::recv(&rx)
        .map_err(|_| SqlFailure::Other(Failure::Panic("the query's task stopped".into())))?;
    drop(aborting);
    Ok(out)
}

/// The native part of robolog.sql: the answer as a Table named "sql".
#[pyfunction]
#[pyo3(signature = (query, paths, *, max_chunk_size = None, max_nesting = None, max_bag_expansion = None))]
pub(crate) fn sql(
    py: Python<'_>,
    query: String,
    paths: Vec<PathBuf>,
    max_chunk_size: Option<u64>,
    max_nesting: Option<usize>,
    max_bag_expansion: Option<u64>,
) -> PyResult<Table> {
    let limits = limits(max_chunk_size, max_nesting, max_bag_expansion)?;
    if paths.is_empty() {
        return Err(PyValueError::new_err(
            "robolog.sql needs at least one log or folder of logs",
        ));
    }
    let roots: Vec<&std::path::Path> = paths.iter().map(PathBuf::as_path).collect();
    let answered = changed_during(&roots, || {
        py.detach(|| guarded(|| Ok(answer(&query, &paths, limits))))
    })
    .map_err(|f| f.into_py(py, None))?;
    let a = answered.map_err(|f| f.into_py(py))?;
    Ok(Table::new(
        "sql".into(),
        String::new(),
        a.schema,
        a.batches,
        a.problems,
    ))
}
