//! `Log.align` and `robolog.align`: topics on one time base (see
//! `robolog_arrow::align`), as one flat Table.

use std::sync::Arc;

use logcore::parallel::on_cores;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use robolog_arrow::align::{self, AlignInput, AlignOptions, Method, Rows};

use crate::errors::{Failure, guarded};
use crate::source::Shared;
use crate::table::{self, Query, Table};
use crate::times;

/// What an align call asks for, checked before anything is read.
#[derive(Clone, Debug)]
pub(crate) struct Spec {
    /// The topics: (name, topic).
    pub(crate) pairs: Vec<(String, String)>,
    /// How to align them (`start`/`end` are set per log).
    pub(crate) opts: AlignOptions,
}

/// The topics argument: a dict of name to topic, a list of topics (each
/// named by itself without its leading `/`), or one topic.
fn pairs_of(topics: &Bound<'_, PyAny>) -> PyResult<Vec<(String, String)>> {
    let named = |t: &str| {
        let t = t.trim();
        (t.strip_prefix('/').unwrap_or(t).to_string(), t.to_string())
    };
    if let Ok(d) = topics.cast::<PyDict>() {
        return d
            .iter()
            .map(|(k, v)| Ok((k.extract::<String>()?, v.extract::<String>()?)))
            .collect();
    }
    if let Ok(s) = topics.cast::<PyString>() {
        return Ok(vec![named(&s.to_cow()?)]);
    }
    let mut out = Vec::new();
    for t in topics.try_iter().map_err(|_| {
        PyTypeError::new_err("topics must be a dict of name to topic, a list of topics or a topic")
    })? {
        out.push(named(&t?.extract::<String>()?));
    }
    Ok(out)
}

/// A method name as a [`Method`].
fn method_of(s: &str) -> PyResult<Method> {
    s.parse()
        .map_err(|e: robolog_arrow::Error| PyValueError::new_err(e.to_string()))
}

/// The rate argument (Hz as a number, or a str such as `"50hz"` or
/// `"20ms"`) as the grid's period in ns.
fn period_of(rate: &Bound<'_, PyAny>) -> PyResult<i64> {
    if let Ok(s) = rate.cast::<PyString>() {
        return align::parse_rate(&s.to_cow()?).map_err(|e| PyValueError::new_err(e.to_string()));
    }
    let hz: f64 = rate.extract().map_err(|_| {
        PyTypeError::new_err("rate must be a number of Hz or a str such as '50hz' or '20ms'")
    })?;
    align::period_of_hz(hz).ok_or_else(|| {
        PyValueError::new_err(format!("rate={hz}: expected a positive number of Hz"))
    })
}

/// The tolerance argument: a duration that is not negative (see
/// [`times::duration_ns`]).
fn tolerance_of(t: &Bound<'_, PyAny>) -> PyResult<i64> {
    times::duration_ns(t, "tolerance", false)
}

impl Spec {
    /// The spec of the arguments of `Log.align`.
    pub(crate) fn new(
        topics: &Bound<'_, PyAny>,
        on: Option<&str>,
        rate: Option<&Bound<'_, PyAny>>,
        method: Option<&Bound<'_, PyAny>>,
        tolerance: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let pairs = pairs_of(topics)?;
        if pairs.is_empty() {
            return Err(PyValueError::new_err("no topics to align"));
        }
        let rows = match (on, rate.filter(|r| !r.is_none())) {
            (Some(_), Some(_)) => {
                return Err(PyValueError::new_err("give on= or rate=, not both"));
            }
            (Some(on), None) => Rows::On(on.to_string()),
            (None, Some(r)) => Rows::Every {
                period_ns: period_of(r)?,
            },
            // The first topic's times.
            (None, None) => Rows::On(pairs[0].0.clone()),
        };
        let mut opts = AlignOptions::new(rows);
        if let Some(m) = method.filter(|m| !m.is_none()) {
            if let Ok(s) = m.cast::<PyString>() {
                opts.method = method_of(&s.to_cow()?)?;
            } else if let Ok(d) = m.cast::<PyDict>() {
                for (k, v) in d.iter() {
                    let m = method_of(&v.extract::<String>()?)?;
                    opts.methods.push((k.extract()?, m));
                }
            } else {
                return Err(PyTypeError::new_err(
                    "method must be 'previous', 'nearest' or 'linear', or a dict of topic name or column to method",
                ));
            }
        }
        if let Some(t) = tolerance.filter(|t| !t.is_none()) {
            opts.tolerance = Some(tolerance_of(t)?);
        }
        Ok(Spec { pairs, opts })
    }

    /// The topics of `shared` read (on the machine's cores) and aligned
    /// between `start` and `end`: the work of `Log.align`, done without
    /// the GIL.
    pub(crate) fn run(
        &self,
        shared: &Arc<Shared>,
        start: Option<i64>,
        end: Option<i64>,
    ) -> Result<Table, Failure> {
        let read = on_cores(
            self.pairs.iter().collect(),
            |_| 1,
            |(name, topic)| {
                guarded(|| {
                    let q = Query::new(topic, None, start, end);
                    let t = table::flatten(table::build(shared, &q)?)?;
                    Ok((name.clone(), topic.clone(), t))
                })
            },
        );
        let mut inputs = Vec::with_capacity(read.len());
        let mut problems = Vec::new();
        for r in read {
            let (name, topic, t) = r?;
            let (table_name, key, schema, batches, p) = t.into_parts();
            problems.extend(p);
            let mut aliases = vec![topic, table_name, key];
            aliases.retain(|a| *a != name);
            inputs.push(AlignInput {
                name,
                aliases,
                schema,
                batches,
            });
        }
        let opts = AlignOptions {
            start,
            end,
            ..self.opts.clone()
        };
        let batch = align::align(&inputs, &opts)?;
        let names: Vec<&str> = self.pairs.iter().map(|(n, _)| n.as_str()).collect();
        Ok(Table::new(
            "aligned".into(),
            names.join(","),
            batch.schema(),
            vec![batch],
            problems,
        ))
    }
}

/// The same topics of several logs (of one fleet) on one time base, each
/// log aligned on its own, as one flat Table: a first `log` column (the
/// log's path as given), then the columns of Log.align (a column some
/// logs lack is null in their rows).
///
/// logs: Log objects, or paths (opened and closed here).
/// The other arguments are those of Log.align; start and end are taken on
/// each log (a float is seconds after that log's first message).
///
/// Raises ValueError when two logs give a column different types.
#[pyfunction]
#[pyo3(name = "align", signature = (logs, topics, *, on = None, rate = None, method = None, tolerance = None, start = None, end = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn align_logs(
    py: Python<'_>,
    logs: &Bound<'_, PyAny>,
    topics: &Bound<'_, PyAny>,
    on: Option<&str>,
    rate: Option<&Bound<'_, PyAny>>,
    method: Option<&Bound<'_, PyAny>>,
    tolerance: Option<&Bound<'_, PyAny>>,
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
) -> PyResult<Table> {
    let spec = Spec::new(topics, on, rate, method, tolerance)?;
    let robolog = py.import("robolog")?;
    let mut parts = Vec::new();
    let mut problems = Vec::new();
    for (i, item) in logs.try_iter()?.enumerate() {
        let item = item?;
        let (log, opened) = match item.cast::<crate::log::Log>() {
            Ok(l) => (l.clone(), false),
            Err(_) => (
                robolog
                    .call_method1("open", (&item,))?
                    .cast_into::<crate::log::Log>()?,
                true,
            ),
        };
        let label = log
            .borrow()
            .path_str()
            .map_or_else(|| format!("log {i}"), str::to_string);
        let made = log.borrow().aligned(py, &spec, start, end);
        if opened {
            log.call_method0("close")?;
        }
        let (_, _, _, mut batches, p) = made?.into_parts();
        problems.extend(p.into_iter().map(|p| format!("{label}: {p}")));
        if let Some(b) = batches.pop() {
            parts.push((label, b));
        }
    }
    let joined = py
        .detach(|| guarded(|| Ok(align::concat_logs(&parts)?)))
        .map_err(|e| e.into_py(py, None))?;
    Ok(Table::new(
        "aligned".into(),
        spec.pairs
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(","),
        joined.schema(),
        vec![joined],
        problems,
    ))
}
