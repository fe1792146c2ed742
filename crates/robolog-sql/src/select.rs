//! Content filters of `robolog filter --where 'TOPIC: EXPR'` (and
//! `--around`): which messages of one topic of one log a SQL boolean
//! expression holds for, named by their [`MessageKey`]s for
//! [`robolog::convert::Filter::keep_only`] and
//! [`robolog::convert::Filter::around`].
//!
//! The expression is DataFusion SQL over the columns of the topic's table
//! exactly as `robolog sql` gives it ([`robolog_arrow`]'s table of the
//! topic: `log_time`, `log_time_utc`, `publish_time` and `sequence` for
//! MCAP, then a column per top-level message field; nested messages are
//! struct columns whose fields are reached with dots,
//! `linear_acceleration.z`, `header.stamp.sec`; a name that SQL would
//! fold to lower case or that is not a plain identifier is double-quoted,
//! `"Foo".bar`; there is no `log` column: one log is read). It is parsed
//! as an expression and nothing else (a statement, or anything after the
//! expression such as `; DROP TABLE t`, does not parse), planned against
//! the table's schema (an unknown column is an error naming the table's
//! columns) and must be boolean. It is evaluated batch by batch on a
//! streaming [`robolog_arrow::scan`] of the columns it names (lenient:
//! a message that does not decode has null columns, and a null result
//! does not keep the message).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use arrow_array::cast::AsArray;
use arrow_array::{Array, BooleanArray, RecordBatch};
use arrow_schema::{DataType, Schema};
use datafusion::common::DFSchema;
use datafusion::logical_expr::ExprSchemable;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::prelude::SessionContext;
use logcore::LogReader as _;
use robolog::Log;
use robolog::convert::{KeyStream, MessageKey, numbered};
use robolog_arrow::{LOG_TIME, ScanOptions, Table};

/// Why a `--where` expression selects nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WhereError {
    /// The log has no topic of this name.
    #[error("no topic {topic} in this log")]
    NoTopic {
        /// The topic asked for.
        topic: String,
    },
    /// The expression does not parse, names an unknown column, or is not
    /// boolean.
    #[error("{topic}: {message}; the columns of {topic} are {}", columns.join(", "))]
    Expression {
        /// The topic.
        topic: String,
        /// What DataFusion said.
        message: String,
        /// The table's columns, as the expression names them (nested
        /// fields dotted).
        columns: Vec<String>,
    },
    /// The table could not be read.
    #[error(transparent)]
    Read(#[from] robolog_arrow::Error),
}

/// The messages of `topic` in `log` for which `expr` holds, in the
/// reader's order (see the module docs).
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
/// let log = robolog::open(path)?;
/// let all = robolog_sql::matching_messages(&log, "/count", "data = data")?;
/// let neg = robolog_sql::matching_messages(&log, "/count", "data < 0")?;
/// assert!(!neg.is_empty() && neg.len() < all.len());
/// assert!(robolog_sql::matching_messages(&log, "/count", "1; DROP TABLE x").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn matching_messages(
    log: &Log<'_>,
    topic: &str,
    expr: &str,
) -> Result<Vec<MessageKey>, WhereError> {
    prepare_where(log, topic, expr)?.keys(log)
}

/// A `--where` expression checked against a topic's table of a log and
/// planned, ready to scan that log ([`Where::keys`], or [`Where::stream`]
/// beside a writing pass): [`prepare_where`].
pub struct Where {
    topic: String,
    summary: logcore::Summary,
    table: Table,
    projection: Vec<String>,
    physical: Arc<dyn PhysicalExpr>,
    columns: Vec<String>,
}

impl std::fmt::Debug for Where {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Where")
            .field("topic", &self.topic)
            .field("projection", &self.projection)
            .finish_non_exhaustive()
    }
}

/// Checks `expr` over the table of `topic` in `log` (it must parse as an
/// expression, name the table's columns and be boolean) and plans it
/// (see the module docs); nothing is scanned yet.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
/// let log = robolog::open(path)?;
/// let w = robolog_sql::prepare_where(&log, "/count", "data < 0")?;
/// assert!(!w.keys(&log)?.is_empty());
/// assert!(robolog_sql::prepare_where(&log, "/count", "nope > 1").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn prepare_where(log: &Log<'_>, topic: &str, expr: &str) -> Result<Where, WhereError> {
    let summary = log.summary().map_err(robolog_arrow::Error::from)?;
    let table = robolog_arrow::tables_with_summary(log, &summary)?
        .into_iter()
        .find(|t| t.key == topic)
        .ok_or_else(|| WhereError::NoTopic {
            topic: topic.to_string(),
        })?;
    let full = table.schema();
    let columns = column_names(&full);
    let refused = |message: String| WhereError::Expression {
        topic: topic.to_string(),
        message,
        columns: columns.clone(),
    };
    let ctx = SessionContext::new();
    let parse = |schema: &Schema| {
        let df = DFSchema::try_from(schema.clone()).map_err(|e| refused(e.to_string()))?;
        let logical = ctx
            .parse_sql_expr(expr, &df)
            .map_err(|e| refused(first_line(&e.to_string())))?;
        Ok::<_, WhereError>((logical, df))
    };
    let (logical, df) = parse(&full)?;
    match logical.get_type(&df) {
        Ok(DataType::Boolean | DataType::Null) => {}
        Ok(other) => {
            return Err(refused(format!(
                "the expression {expr:?} is of type {other}, not boolean"
            )));
        }
        Err(e) => return Err(refused(first_line(&e.to_string()))),
    }
    // Only the columns it names (and the log time) are read.
    let used: BTreeSet<String> = logical
        .column_refs()
        .into_iter()
        .map(|c| c.name.clone())
        .collect();
    let projection: Vec<String> = full
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .filter(|n| n == LOG_TIME || used.contains(n))
        .collect();
    let fields: Vec<_> = projection
        .iter()
        .filter_map(|n| full.field_with_name(n).ok().cloned())
        .collect();
    let projected = Schema::new(fields);
    let (logical, df) = parse(&projected)?;
    let physical = ctx
        .create_physical_expr(logical, &df)
        .map_err(|e| refused(first_line(&e.to_string())))?;
    Ok(Where {
        topic: topic.to_string(),
        summary,
        table,
        projection,
        physical,
        columns,
    })
}

impl Where {
    /// The topic.
    pub fn topic(&self) -> &str {
        &self.topic
    }

    /// The messages the expression holds for, in the reader's order.
    pub fn keys(&self, log: &Log<'_>) -> Result<Vec<MessageKey>, WhereError> {
        let mut all = Vec::new();
        self.scan(
            log,
            &mut |keys, _| all.extend(keys),
            &|| false,
            logcore::parallel::cores(),
        )?;
        Ok(all)
    }

    /// Gives `into` the messages the expression holds for as the scan
    /// finds them (on every core but one, which the writing pass takes),
    /// in time order, each time with the log time before which
    /// every message is decided ([`KeyStream::decided`]); stops early when
    /// the writing pass abandoned the stream. The stream's end is its
    /// caller's to say ([`robolog::convert::FilterPlan::run`]).
    pub fn stream(&self, log: &Log<'_>, into: &KeyStream) -> Result<(), WhereError> {
        // The writing pass keeps a core busy: the scan takes the others.
        let threads = logcore::parallel::cores().saturating_sub(1).max(1);
        self.scan(
            log,
            &mut |keys, before| into.decided(keys, before),
            &|| into.abandoned(),
            threads,
        )
    }

    /// Scans the table with the projection and gives `found` each time
    /// range's keys, the ranges in order with the start of the next
    /// (`None` after the last). A large table is scanned as the time
    /// ranges of [`robolog_arrow::scan_ranges`] on up to `threads` of the
    /// machine's cores, each a batch at a time (what a range keeps is one flag and one time
    /// a message until it is given on); `stop` ends the scan early.
    fn scan(
        &self,
        log: &Log<'_>,
        found: &mut (dyn FnMut(Vec<MessageKey>, Option<logcore::Timestamp>) + Send),
        stop: &(dyn Fn() -> bool + Sync),
        threads: usize,
    ) -> Result<(), WhereError> {
        let opts = ScanOptions {
            projection: Some(self.projection.clone()),
            ..ScanOptions::default()
        };
        let one = |o: &ScanOptions| -> Result<Vec<MessageKey>, WhereError> {
            let mut times = Vec::new();
            let mut kept = Vec::new();
            for batch in robolog_arrow::scan(log, &self.table, o)? {
                logcore::interrupt::check();
                if stop() {
                    break;
                }
                let batch = batch?;
                let Some(t) = batch
                    .column_by_name(LOG_TIME)
                    .and_then(|c| robolog_arrow::log_time_values(c.as_ref()))
                else {
                    continue;
                };
                let yes = self.matches(&batch)?;
                for (row, &time) in t.iter().enumerate() {
                    kept.push(yes.is_valid(row) && yes.value(row));
                    times.push(logcore::Timestamp(time));
                }
            }
            Ok(numbered(times)
                .into_iter()
                .zip(kept)
                .filter_map(|(k, yes)| yes.then_some(k))
                .collect())
        };
        let ranges = robolog_arrow::scan_ranges(log, &self.summary, &self.table, &opts);
        let next_start = |k: usize| ranges.get(k + 1).and_then(|r| r.start);
        if let [only] = ranges.as_slice() {
            found(one(only)?, None);
            return Ok(());
        }
        // The ranges on the cores, in order (`on_cores` hands out equal
        // weights in the items' order, and its threads start no
        // read-ahead of their own); a finished range is given on as soon
        // as every range before it is.
        let done: Mutex<(usize, Vec<Option<Vec<MessageKey>>>)> =
            Mutex::new((0, ranges.iter().map(|_| None).collect()));
        let found = Mutex::new(found);
        let failed = AtomicBool::new(false);
        let ran = logcore::parallel::on_threads(
            threads,
            ranges.iter().enumerate().collect(),
            |_| 1,
            |(k, range)| -> Result<(), WhereError> {
                if stop() || failed.load(Ordering::Acquire) {
                    return Ok(());
                }
                let keys = one(range).inspect_err(|_| failed.store(true, Ordering::Release))?;
                let mut d = done.lock().unwrap_or_else(PoisonError::into_inner);
                let (given, slots) = &mut *d;
                if let Some(slot) = slots.get_mut(k) {
                    *slot = Some(keys);
                }
                while let Some(keys) = slots.get_mut(*given).and_then(Option::take) {
                    let before = next_start(*given);
                    (found.lock().unwrap_or_else(PoisonError::into_inner))(keys, before);
                    *given += 1;
                }
                Ok(())
            },
        );
        ran.into_iter().collect()
    }

    /// Whether the expression holds for each row of `batch` (null: no).
    fn matches(&self, batch: &RecordBatch) -> Result<BooleanArray, WhereError> {
        let value = self
            .physical
            .evaluate(batch)
            .and_then(|v| v.into_array(batch.num_rows()))
            .map_err(|e| WhereError::Expression {
                topic: self.topic.clone(),
                message: first_line(&e.to_string()),
                columns: self.columns.clone(),
            })?;
        match value.data_type() {
            DataType::Boolean => Ok(value.as_boolean().clone()),
            // A NULL literal: no row.
            _ => Ok(BooleanArray::from(vec![None; batch.num_rows()])),
        }
    }
}

/// The columns of `schema` as an expression names them: top-level names,
/// and the fields of struct columns dotted (`header.stamp.sec`).
fn column_names(schema: &Arc<Schema>) -> Vec<String> {
    fn walk(prefix: &str, t: &DataType, out: &mut Vec<String>) {
        out.push(prefix.to_string());
        if let DataType::Struct(fields) = t {
            for f in fields {
                walk(&format!("{prefix}.{}", f.name()), f.data_type(), out);
            }
        }
    }
    let mut out = Vec::new();
    for f in schema.fields() {
        walk(f.name(), f.data_type(), &mut out);
    }
    out
}

/// The first line of an error (DataFusion appends backtraces and hints).
fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or(s).to_string()
}
