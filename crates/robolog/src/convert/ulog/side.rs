//! The side records of a ULog, merged into the sample stream by file
//! offset: logged and tagged strings as `foxglove.Log` on `log`, parameter
//! changes after the start on `parameter_changes`.

use std::collections::BTreeMap;
use std::io::Write;

use logcore::{Error, Timestamp, Value};
use ulogfile::LoggedString;

use super::{LOG_TOPIC, PARAM_TOPIC};
use crate::convert::Context;
use crate::convert::foxglove::{self, log_level};
use crate::convert::jsonschema::{ChannelSpec, Field, JsonOut, JsonValue, Type};

/// A logged string, a parameter change: the side records merged into the
/// sample stream by file offset.
pub(super) enum Side<'u, 'a> {
    /// A logged or tagged string.
    Text(&'u LoggedString<'a>),
    /// A parameter change.
    Param(&'u ulogfile::ParameterChange<'a>),
}

impl Side<'_, '_> {
    /// Where the record is in the file.
    pub(super) fn offset(&self) -> u64 {
        match self {
            Side::Text(s) => s.offset,
            Side::Param(p) => p.offset,
        }
    }
}

/// The JSON type of a parameter change: `{name, value}`.
pub(super) fn param_type() -> Type {
    Type::object([
        Field::new("name", Type::Str),
        Field::new("value", Type::Float),
    ])
}

/// The time of a ULog timestamp (µs).
fn ts(us: u64) -> Timestamp {
    Timestamp::from_micros(us).unwrap_or(Timestamp::MAX)
}

/// `foxglove.LogLevel` of a ULog level byte (`'0'`..`'7'`, syslog).
fn level(byte: u8) -> u8 {
    match byte {
        b'0'..=b'2' => log_level::FATAL,
        b'3' => log_level::ERROR,
        b'4' => log_level::WARNING,
        b'5' | b'6' => log_level::INFO,
        b'7' => log_level::DEBUG,
        _ => 0,
    }
}

/// Writes the side record `side` if it passes the filter (a parameter
/// change whose value is not a number is left out).
pub(super) fn write_side<W: Write>(
    out: &mut JsonOut<W>,
    cx: &mut Context<'_>,
    side: &Side<'_, '_>,
    param_schema: &str,
) -> Result<(), Error> {
    match side {
        Side::Text(s) => {
            let t = ts(s.timestamp);
            if !cx.keep(LOG_TOPIC, t) {
                return Ok(());
            }
            out.ensure(cx, LOG_TOPIC, || ChannelSpec::well_known(foxglove::LOG))?;
            let name = match s.tag {
                Some(tag) => format!("px4/tag {tag}"),
                None => "px4".to_string(),
            };
            let m = foxglove::log(t, level(s.level), &s.text(), &name);
            out.write(cx, LOG_TOPIC, t, &m)
        }
        Side::Param(p) => {
            let t = ts(p.timestamp);
            let Some(v) = p.value.as_f64() else {
                return Ok(());
            };
            if !cx.keep(PARAM_TOPIC, t) {
                return Ok(());
            }
            out.ensure(cx, PARAM_TOPIC, || ChannelSpec {
                schema_name: "parameter_change",
                schema_text: param_schema,
                metadata: BTreeMap::new(),
            })?;
            let value = Value::record([
                ("name", Value::String(p.name.to_string())),
                ("value", Value::F64(v)),
            ]);
            out.write(cx, PARAM_TOPIC, t, &JsonValue(&value))
        }
    }
}
