//! The metadata records of a ULog: `ulog.time`, `ulog.info`,
//! `ulog.parameters`, `ulog.default_parameters.<bits>` and
//! `ulog.multi_info`.

use std::collections::BTreeMap;
use std::io::Write;

use logcore::{Error, LogReader};
use serde_json::json;
use ulogfile::{InfoValue, ULog};

use crate::Log;
use crate::convert::jsonschema::{JsonOut, insert_anchor, metadata};

/// `ulog.info`: every info field, as `ulog_info` prints it.
fn info_metadata(ulog: &ULog<'_>) -> BTreeMap<String, String> {
    ulog.info
        .iter()
        .map(|(k, v)| (k.clone(), ulogfile::pyulog::py_value(&v.value)))
        .collect()
}

/// Parameters by name, their values as pyulog prints them.
fn params<'v>(
    values: impl IntoIterator<Item = (&'v str, &'v InfoValue<'v>)>,
) -> BTreeMap<String, String> {
    values
        .into_iter()
        .map(|(k, v)| (k.to_string(), ulogfile::pyulog::py_value(v)))
        .collect()
}

/// `ulog.time`: the clock, the header's start and the UTC anchor where
/// the log has one.
fn time_metadata(log: &Log<'_>, ulog: &ULog<'_>) -> BTreeMap<String, String> {
    let mut m = metadata([
        ("clock", "boot"),
        (
            "description",
            "log and publish times are the ULog timestamp field: microseconds since the \
             autopilot booted, as nanoseconds",
        ),
    ]);
    m.insert("start_time_us".into(), ulog.header.timestamp.to_string());
    if let Ok(summary) = log.summary() {
        if let Some(a) = summary.time_model.anchor {
            insert_anchor(&mut m, &a);
            if let Some(d) = summary.time_model.format_date(a.log_time) {
                m.insert("anchor_utc".into(), d);
            }
        }
    }
    m
}

/// Writes the metadata records of `ulog`.
pub(super) fn write_metadata<W: Write>(
    out: &mut JsonOut<W>,
    log: &Log<'_>,
    ulog: &ULog<'_>,
) -> Result<(), Error> {
    out.metadata("ulog.time", &time_metadata(log, ulog))?;
    out.metadata("ulog.info", &info_metadata(ulog))?;
    out.metadata(
        "ulog.parameters",
        &params(ulog.initial_parameters.iter().map(|(k, v)| (k.as_ref(), v))),
    )?;
    for (bits, values) in &ulog.default_parameters {
        out.metadata(
            &format!("ulog.default_parameters.{bits}"),
            &params(values.iter().map(|(k, v)| (k.as_ref(), v))),
        )?;
    }
    if !ulog.multi_info.is_empty() {
        let m = ulog
            .multi_info
            .iter()
            .map(|(k, mi)| {
                let groups: Vec<Vec<String>> = mi
                    .groups
                    .iter()
                    .map(|g| g.iter().map(ulogfile::pyulog::py_value).collect())
                    .collect();
                (k.clone(), json!(groups).to_string())
            })
            .collect();
        out.metadata("ulog.multi_info", &m)?;
    }
    Ok(())
}
