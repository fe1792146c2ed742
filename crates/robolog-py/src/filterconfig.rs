//! `robolog.filter(config=...)`: the options of a filter config file
//! (`robolog filter --config`'s TOML, [`robolog::convert::FilterConfig`]:
//! the same schema and checks), as the keyword arguments of
//! `robolog.filter` take them. The Python wrapper adds them to the call's
//! own arguments as the command line adds its flags.

use std::path::PathBuf;

use logcore::timearg::TimeArg;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use robolog::convert::FilterConfig;

use crate::errors::io_error;

/// Decimal seconds that parse back to exactly `ns` nanoseconds.
fn seconds(ns: i64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let abs = ns.unsigned_abs();
    format!("{sign}{}.{:09}", abs / 1_000_000_000, abs % 1_000_000_000)
}

/// `YYYY-MM-DDTHH:MM:SS.fffffffffZ` of `ns` after 1970 (UTC), which the
/// time arguments parse back to exactly `ns`.
fn utc_text(ns: i64) -> String {
    let secs = ns.div_euclid(1_000_000_000);
    let frac = ns.rem_euclid(1_000_000_000);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date of a day count (proleptic Gregorian, from 1970-01-01).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{frac:09}Z",
        rest / 3_600,
        rest / 60 % 60,
        rest % 60
    )
}

/// A time of the file as `robolog.filter`'s `start`/`end` take it: text
/// for times after the first message and UTC instants, an int of
/// nanoseconds for an instant on the log's clock.
fn time<'py>(py: Python<'py>, t: Option<TimeArg>) -> PyResult<Bound<'py, PyAny>> {
    Ok(match t {
        None => py.None().into_bound(py),
        Some(TimeArg::AfterFirst(ns)) => seconds(ns).into_pyobject(py)?.into_any(),
        Some(TimeArg::OnClock(t)) => t.0.into_pyobject(py)?.into_any(),
        Some(TimeArg::Utc(t)) => utc_text(t.0).into_pyobject(py)?.into_any(),
    })
}

/// The options of the config file at `path` as `robolog.filter`'s
/// keyword arguments: `topics`, `exclude` (lists), `where`, `around`,
/// `rename` (dicts; several `around` expressions of one topic joined with
/// `OR`), `before`, `after`, `shift`, `split_every` (ns or `None`),
/// `split_size` (bytes or `None`), `restamp`, `frame_id` (a dict),
/// `anonymise`, `gps_offset` (a tuple), `drop_text` (`None` when the file
/// leaves them out), `start`, `end`.
/// A file that cannot be read raises `OSError`; one the schema refuses
/// `ValueError` naming the line, as does an option of the command line's
/// output (`compression`, `chunk_size`, `storage`) that `robolog.filter`
/// does not take.
#[pyfunction]
pub(crate) fn filter_config(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, PyDict>> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|e| io_error(&e, Some(&shown)))?;
    let c =
        FilterConfig::parse(&text).map_err(|e| PyValueError::new_err(format!("{shown}: {e}")))?;
    for (key, set) in [
        ("compression", c.compression.is_some()),
        ("chunk_size", c.chunk_size.is_some()),
        ("storage", c.storage.is_some()),
    ] {
        if set {
            return Err(PyValueError::new_err(format!(
                "{shown}: {key} is an option of the robolog filter command's output, which \
                 robolog.filter does not take"
            )));
        }
    }
    let d = PyDict::new(py);
    d.set_item("topics", c.topics)?;
    d.set_item("exclude", c.exclude)?;
    let wheres = PyDict::new(py);
    for (t, e) in c.wheres {
        wheres.set_item(t, e)?;
    }
    d.set_item("where", wheres)?;
    let mut around: Vec<(String, Vec<String>)> = Vec::new();
    for (t, e) in c.around {
        match around.iter_mut().find(|(x, _)| *x == t) {
            Some((_, es)) => es.push(e),
            None => around.push((t, vec![e])),
        }
    }
    let arounds = PyDict::new(py);
    for (t, es) in around {
        let joined = if es.len() == 1 {
            es.concat()
        } else {
            es.iter()
                .map(|e| format!("({e})"))
                .collect::<Vec<_>>()
                .join(" OR ")
        };
        arounds.set_item(t, joined)?;
    }
    d.set_item("around", arounds)?;
    let renames = PyDict::new(py);
    for (old, new) in c.rename {
        renames.set_item(old, new)?;
    }
    d.set_item("rename", renames)?;
    d.set_item("before", c.before)?;
    d.set_item("after", c.after)?;
    d.set_item("shift", c.shift)?;
    d.set_item("split_every", c.split_every)?;
    d.set_item("split_size", c.split_size)?;
    d.set_item("restamp", c.restamp)?;
    let frames = PyDict::new(py);
    for (old, new) in c.frame_id {
        frames.set_item(old, new)?;
    }
    d.set_item("frame_id", frames)?;
    d.set_item("anonymise", c.anonymise)?;
    d.set_item("gps_offset", c.gps_offset)?;
    d.set_item("drop_text", c.drop_text)?;
    d.set_item("start", time(py, c.start)?)?;
    d.set_item("end", time(py, c.end)?)?;
    Ok(d)
}
