//! The `align` table function: topics of every log of the set on one time
//! base (see [`robolog_arrow::align`]), one table with a first `log`
//! column (the log id), each log aligned on its own.
//!
//! ```sql
//! SELECT * FROM align('/imu', '/odom', rate => '50hz', method => 'previous')
//! SELECT * FROM align('imu=/imu/data', 'odom=/odom', on => 'imu', method => 'linear', tolerance => '20ms')
//! ```
//!
//! Arguments are strings (a number is a rate in Hz):
//! - options by name: `rate => '50hz'` (or a period, `'20ms'`), `on =>
//!   'imu'` (a topic or its name), `method => 'linear'`, `method =>
//!   'odom=nearest'` (one topic's or column's), `tolerance => '20ms'`.
//!   DataFusion 55 does not plan named arguments of a table function in
//!   `FROM`: [`query`](crate::query) passes each as the string
//!   `'rate=50hz'`, which may also be written so;
//! - without a name, `'50hz'` (a frequency) is the rate, `'previous'`,
//!   `'nearest'` or `'linear'` the method, a duration (`'20ms'`) the
//!   tolerance;
//! - anything else is a topic, `TOPIC` or `NAME=TOPIC`; a topic's name is
//!   the prefix of its columns (`imu.angular_velocity.x`), by default the
//!   topic without its leading `/`.
//!
//! Rows are the first topic's times unless a rate or `on=` says
//! otherwise. A log without every topic is left out; none with all of
//! them is an error. The logs are read and aligned when the query is
//! planned.

use std::sync::Arc;

use arrow_array::RecordBatch;
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::ScalarValue;
use datafusion::datasource::MemTable;
use datafusion::error::{DataFusionError, Result as DfResult};
use datafusion::logical_expr::Expr;
use logcore::LogReader;
use robolog_arrow::ScanOptions;
use robolog_arrow::align::{self, AlignOptions, Method, Rows};

use crate::set::LogSet;

/// The name the function is registered under.
pub const ALIGN: &str = "align";

/// The `align` table function of a [`LogSet`] (see the [module](self)
/// docs).
#[derive(Debug, Clone)]
pub struct AlignFunction {
    set: LogSet,
}

impl AlignFunction {
    /// The function over the logs of `set`.
    pub fn new(set: LogSet) -> Self {
        AlignFunction { set }
    }
}

/// What a call asks for.
struct Call {
    pairs: Vec<(String, String)>,
    opts: AlignOptions,
}

fn plan_err(msg: impl Into<String>) -> DataFusionError {
    DataFusionError::Plan(format!("align: {}", msg.into()))
}

/// The arguments of a call as strings.
fn strings(exprs: &[Expr]) -> DfResult<Vec<String>> {
    exprs
        .iter()
        .map(|e| match e {
            Expr::Literal(ScalarValue::Utf8(Some(s)) | ScalarValue::LargeUtf8(Some(s)), _)
            | Expr::Literal(ScalarValue::Utf8View(Some(s)), _) => Ok(s.clone()),
            Expr::Literal(v, _) if v.data_type().is_numeric() && !v.is_null() => {
                Ok(format!("rate={v}"))
            }
            other => Err(plan_err(format!(
                "arguments are string literals ('/imu', 'rate=50hz'), not {other}"
            ))),
        })
        .collect()
}

/// Parses the arguments (see the [module](self) docs).
fn parse(args: &[String]) -> DfResult<Call> {
    let err = |e: robolog_arrow::Error| plan_err(e.to_string());
    let mut pairs = Vec::new();
    let mut rate = None;
    let mut on = None;
    let mut method = Method::Previous;
    let mut methods = Vec::new();
    let mut tolerance = None;
    let duration = |s: &str| logcore::timearg::parse_duration(s).filter(|&d| d >= 0);
    for a in args {
        let a = a.trim();
        let lower = a.to_ascii_lowercase();
        let option = a
            .split_once('=')
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim()));
        match option {
            Some((k, v)) if k == "rate" => rate = Some(align::parse_rate(v).map_err(err)?),
            Some((k, v)) if k == "on" => on = Some(v.to_string()),
            Some((k, v)) if k == "method" => match v.rsplit_once('=') {
                Some((key, m)) => methods.push((key.trim().to_string(), m.parse().map_err(err)?)),
                None => method = v.parse().map_err(err)?,
            },
            Some((k, v)) if k == "tolerance" => {
                tolerance = Some(duration(v).ok_or_else(|| {
                    plan_err(format!("tolerance {v:?}: expected a duration such as 20ms"))
                })?);
            }
            _ if lower.ends_with("hz") && align::parse_rate(a).is_ok() => {
                rate = Some(align::parse_rate(a).map_err(err)?);
            }
            _ if a.parse::<Method>().is_ok() => method = a.parse().map_err(err)?,
            _ if !a.contains('/') && duration(a).is_some() => tolerance = duration(a),
            _ => match a.split_once('=') {
                Some((name, topic)) => {
                    pairs.push((name.trim().to_string(), topic.trim().to_string()));
                }
                None => pairs.push((a.strip_prefix('/').unwrap_or(a).to_string(), a.to_string())),
            },
        }
    }
    if pairs.is_empty() {
        return Err(plan_err(
            "name at least one topic: align('/imu', '/odom', rate => '50hz')",
        ));
    }
    let rows = match (rate, on) {
        (Some(_), Some(_)) => return Err(plan_err("give a rate or on=, not both")),
        (Some(period_ns), None) => Rows::Every { period_ns },
        (None, Some(on)) => Rows::On(on),
        (None, None) => Rows::On(pairs[0].0.clone()),
    };
    let opts = AlignOptions {
        method,
        methods,
        tolerance,
        ..AlignOptions::new(rows)
    };
    Ok(Call { pairs, opts })
}

impl TableFunctionImpl for AlignFunction {
    fn call_with_args(&self, args: TableFunctionArgs<'_, '_>) -> DfResult<Arc<dyn TableProvider>> {
        let call = parse(&strings(args.exprs())?)?;
        let limits = self.set.limits();
        let mut parts: Vec<(String, RecordBatch)> = Vec::new();
        let mut missing = Vec::new();
        for l in self.set.logs() {
            let log = robolog::OpenOptions::new()
                .limits(limits)
                .open(&l.path)
                .map_err(|e| plan_err(format!("{}: {e}", l.path.display())))?;
            let summary = log
                .summary()
                .map_err(|e| plan_err(format!("{}: {e}", l.path.display())))?;
            let mut inputs = Vec::with_capacity(call.pairs.len());
            let mut lacks = None;
            for (name, topic) in &call.pairs {
                match align::read_input(&log, &summary, name, topic, &ScanOptions::default()) {
                    Ok((input, _)) => inputs.push(input),
                    Err(robolog_arrow::Error::NoTopic { topic }) => {
                        lacks = Some(topic);
                        break;
                    }
                    Err(e) => return Err(plan_err(format!("{}: {e}", l.path.display()))),
                }
            }
            if let Some(topic) = lacks {
                missing.push(format!("{} has no {topic}", l.id));
                continue;
            }
            let batch = align::align(&inputs, &call.opts)
                .map_err(|e| plan_err(format!("{}: {e}", l.id)))?;
            parts.push((l.id.clone(), batch));
        }
        if parts.is_empty() {
            return Err(plan_err(format!(
                "no log has every topic asked for ({})",
                missing.join("; ")
            )));
        }
        let joined = align::concat_logs(&parts).map_err(|e| plan_err(e.to_string()))?;
        let table = MemTable::try_new(joined.schema(), vec![vec![joined]])?;
        Ok(Arc::new(table))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(args: &[&str]) -> DfResult<Call> {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn arguments_are_known_by_their_form() {
        let c = call(&[
            "/imu",
            "o=/odom",
            "50hz",
            "linear",
            "20ms",
            "method=o.x=nearest",
        ])
        .unwrap();
        assert_eq!(
            c.pairs,
            vec![("imu".into(), "/imu".into()), ("o".into(), "/odom".into())]
        );
        assert_eq!(
            c.opts.rows,
            Rows::Every {
                period_ns: 20_000_000
            }
        );
        assert_eq!(c.opts.method, Method::Linear);
        assert_eq!(c.opts.tolerance, Some(20_000_000));
        assert_eq!(c.opts.methods, vec![("o.x".to_string(), Method::Nearest)]);
        let c = call(&["/imu", "/odom", "on=odom", "rate=20ms"]);
        assert!(c.is_err());
        let c = call(&["/imu", "/odom", "on=odom"]).unwrap();
        assert_eq!(c.opts.rows, Rows::On("odom".into()));
        assert!(call(&["rate=50hz"]).is_err());
    }
}
