//! Decoded values and JSON as Python objects.
//!
//! A [`Value`] becomes: a struct a `dict` (fields in declaration order),
//! an array a `list`, bytes `bytes`, text `str`, integers `int`, floats
//! `float`, booleans `bool`, null `None`, and times and durations `int`
//! nanoseconds.

use logcore::Value;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

/// `v` as a Python object.
pub(crate) fn value_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::I64(i) => i.into_pyobject(py)?.into_any(),
        Value::U64(u) => u.into_pyobject(py)?.into_any(),
        Value::F32(f) => f64::from(*f).into_pyobject(py)?.into_any(),
        Value::F64(f) => f.into_pyobject(py)?.into_any(),
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Bytes(b) => PyBytes::new(py, b).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(value_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::F32Array(xs) => PyList::new(py, xs.iter().map(|x| f64::from(*x)))?.into_any(),
        Value::F64Array(xs) => PyList::new(py, xs)?.into_any(),
        Value::Struct(fields) => {
            let dict = PyDict::new(py);
            for (name, value) in fields {
                dict.set_item(name.as_str(), value_to_py(py, value)?)?;
            }
            dict.into_any()
        }
        Value::Time(t) => t.as_nanos().into_pyobject(py)?.into_any(),
        Value::Duration(d) => d.into_pyobject(py)?.into_any(),
    })
}

/// A JSON value as a Python object (objects `dict`, arrays `list`).
pub(crate) fn json_to_py<'py>(
    py: Python<'py>,
    v: &serde_json::Value,
) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => py.None().into_bound(py),
        J::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        J::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => u.into_pyobject(py)?.into_any(),
            (None, Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, None, Some(f)) => f.into_pyobject(py)?.into_any(),
            (None, None, None) => py.None().into_bound(py),
        },
        J::String(s) => s.into_pyobject(py)?.into_any(),
        J::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            list.into_any()
        }
        J::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, json_to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}
