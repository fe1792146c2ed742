//! The times Python callers give (`start=`, `end=`) in the one grammar of
//! [`logcore::timearg`], and the times robolog gives back as `datetime`
//! and `timedelta`.
//!
//! - `int` (and anything with `__index__`, such as numpy integers): an
//!   instant on the log's clock, in nanoseconds;
//! - `float`: seconds after the log's first message;
//! - `str`: the CLI's forms (`"2.5"`, `"2.5s"`, `"1500ms"`, `"@SECONDS"`,
//!   an ISO 8601 UTC instant);
//! - `datetime.datetime` (pandas' `Timestamp` too, to the nanosecond): a
//!   UTC instant; one without a time zone is taken as UTC;
//! - `datetime.timedelta` (pandas' `Timedelta` too): after the log's first
//!   message.

use logcore::timearg::{TIME_FORMS, TimeArg};
use logcore::{TimeModel, Timestamp};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyBool, PyFloat, PyString};

/// `v` as a time argument named `what` (`None` stays `None`).
pub(crate) fn time_arg(v: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<TimeArg>> {
    let Some(v) = v else {
        return Ok(None);
    };
    if v.is_none() {
        return Ok(None);
    }
    let py = v.py();
    let dt = py.import("datetime")?;
    if v.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a time, not a bool"
        )));
    }
    if v.is_instance_of::<PyFloat>() {
        let s: f64 = v.extract()?;
        let ns = s * 1e9;
        if !ns.is_finite() || ns.abs() >= 9.2e18 {
            return Err(PyValueError::new_err(format!(
                "{what}={s} is not a time in seconds after the first message"
            )));
        }
        return Ok(Some(TimeArg::AfterFirst(ns.round() as i64)));
    }
    if let Ok(s) = v.cast::<PyString>() {
        let text = s.to_cow()?;
        return text
            .parse()
            .map(Some)
            .map_err(|e: String| PyValueError::new_err(format!("{what}: {e}")));
    }
    if v.is_instance(&dt.getattr("datetime")?)? {
        return utc_ns(v).map(|ns| Some(TimeArg::Utc(Timestamp(ns))));
    }
    if v.is_instance(&dt.getattr("timedelta")?)? {
        return delta_ns(v).map(|ns| Some(TimeArg::AfterFirst(ns)));
    }
    if let Ok(ns) = v.extract::<i64>() {
        return Ok(Some(TimeArg::OnClock(Timestamp(ns))));
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be an int (ns on the log's clock), a float (seconds after the first \
         message), a str ({TIME_FORMS}), a datetime or a timedelta, not {}",
        v.get_type().name()?
    )))
}

/// A duration argument in nanoseconds: an int of ns, a float of seconds,
/// a str (`"20ms"`, `"-1.5s"`), or a timedelta; negative only where
/// `negative` allows.
pub(crate) fn duration_ns(t: &Bound<'_, PyAny>, what: &str, negative: bool) -> PyResult<i64> {
    let ns = if let Ok(s) = t.cast::<PyString>() {
        logcore::timearg::parse_duration(&s.to_cow()?)
    } else if t.is_instance_of::<PyFloat>() {
        let s: f64 = t.extract()?;
        (s.is_finite() && s.abs() < 9.2e9).then(|| (s * 1e9).round() as i64)
    } else if let Ok(ns) = t.extract::<i64>() {
        Some(ns)
    } else {
        Some(delta_ns(t)?)
    };
    ns.filter(|&ns| negative || ns >= 0).ok_or_else(|| {
        PyValueError::new_err(format!(
            "{what} must be a duration{}: an int of ns, a float of seconds, a str such as '20ms', or a timedelta",
            if negative { "" } else { " of 0 or more" }
        ))
    })
}

/// A `timedelta` (or pandas `Timedelta`) in nanoseconds.
pub(crate) fn delta_ns(v: &Bound<'_, PyAny>) -> PyResult<i64> {
    let days: i64 = v.getattr("days")?.extract()?;
    let seconds: i64 = v.getattr("seconds")?.extract()?;
    let micros: i64 = v.getattr("microseconds")?.extract()?;
    // pandas' Timedelta keeps nanoseconds beyond the microseconds.
    let nanos: i64 = match v.getattr("nanoseconds") {
        Ok(n) => n.extract().unwrap_or(0),
        Err(_) => 0,
    };
    days.checked_mul(86_400_000_000_000)
        .and_then(|d| d.checked_add(seconds * 1_000_000_000 + micros * 1_000 + nanos))
        .ok_or_else(|| PyValueError::new_err("the timedelta is out of range"))
}

/// A `datetime` (or pandas `Timestamp`) as nanoseconds since 1970 UTC;
/// one without a time zone is taken as UTC.
fn utc_ns(v: &Bound<'_, PyAny>) -> PyResult<i64> {
    let py = v.py();
    let dt = py.import("datetime")?;
    let utc = dt.getattr("timezone")?.getattr("utc")?;
    let aware = if v.getattr("tzinfo")?.is_none() {
        v.call_method("replace", (), Some(&[("tzinfo", &utc)].into_py_dict(py)?))?
    } else {
        v.clone()
    };
    let epoch = dt
        .getattr("datetime")?
        .call1((1970, 1, 1, 0, 0, 0, 0, utc))?;
    let delta = aware.call_method1("__sub__", (epoch,))?;
    let mut ns = delta_ns(&delta)?;
    // pandas' Timestamp minus a datetime drops its nanoseconds.
    if !delta.hasattr("nanoseconds")? {
        if let Ok(n) = v.getattr("nanosecond") {
            ns = ns.saturating_add(n.extract::<i64>().unwrap_or(0));
        }
    }
    Ok(ns)
}

/// `start` and `end` of a call on a log, resolved on its clock.
pub(crate) fn range(
    summary: &logcore::Summary,
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Option<i64>, Option<i64>)> {
    let (s, e) = (time_arg(start, "start")?, time_arg(end, "end")?);
    let (first, model) = (summary.start, &summary.time_model);
    Ok((resolve(s, first, model)?, resolve(e, first, model)?))
}

/// A time argument resolved on a log: `first` is its first message's
/// time, `model` its clock. A UTC time on a clock without an anchor is a
/// `ValueError`.
pub(crate) fn resolve(
    arg: Option<TimeArg>,
    first: Option<Timestamp>,
    model: &TimeModel,
) -> PyResult<Option<i64>> {
    arg.map(|a| a.resolve(first, model).map(Timestamp::as_nanos))
        .transpose()
        .map_err(PyValueError::new_err)
}

/// A `timedelta` of `ns` nanoseconds (to the microsecond, as far as a
/// `timedelta` goes).
pub(crate) fn timedelta(py: Python<'_>, ns: i64) -> PyResult<Bound<'_, PyAny>> {
    let dt = py.import("datetime")?;
    dt.getattr("timedelta")?.call1((0, 0, ns.div_euclid(1_000)))
}
