//! The filters a table takes from a query: `log_time` ranges, pushed into
//! the format's index; `log_time_utc` ranges, turned into each log's
//! `log_time` range through its UTC anchor when the log is scanned (a log
//! without UTC times is skipped); and `log = ...` / `log IN (...)`, which
//! prune whole logs. All are reported `Inexact`: DataFusion filters the
//! rows again.

use std::collections::BTreeSet;

use datafusion::arrow::datatypes::{DataType, IntervalUnit};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Between, BinaryExpr, Expr, Operator};
use robolog_arrow::{LOG_TIME, LOG_TIME_UTC};

use crate::schema::LOG;

/// What the filters of a scan allow: a `log_time` range (ns, `start`
/// inclusive, `end` exclusive, as every layer below takes it), a
/// `log_time_utc` range (ns since 1970 UTC, the same bounds) and a set of
/// log ids (`None`: every log).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Pushed {
    pub(crate) start: Option<i64>,
    pub(crate) end: Option<i64>,
    pub(crate) utc: Range,
    pub(crate) logs: Option<BTreeSet<String>>,
}

/// A time range: `start` inclusive, `end` exclusive (ns).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Range {
    pub(crate) start: Option<i64>,
    pub(crate) end: Option<i64>,
}

impl Range {
    fn at_least(&mut self, t: i64) {
        self.start = Some(self.start.map_or(t, |s| s.max(t)));
    }

    fn before(&mut self, t: i64) {
        self.end = Some(self.end.map_or(t, |e| e.min(t)));
    }

    /// Up to `t` included: before `t + 1` (no bound at the end of time).
    fn at_most(&mut self, t: i64) {
        if let Some(after) = t.checked_add(1) {
            self.before(after);
        }
    }

    /// Whether no instant is in it.
    pub(crate) fn empty(&self) -> bool {
        matches!((self.start, self.end), (Some(s), Some(e)) if s >= e)
    }

    /// Whether it bounds anything.
    pub(crate) fn bounded(&self) -> bool {
        self.start.is_some() || self.end.is_some()
    }

    /// Narrowed by `op t` (`false` for an operator that is no range).
    fn narrow(&mut self, op: Operator, t: i64) -> bool {
        match op {
            Operator::Gt => self.at_least(t.saturating_add(1)),
            Operator::GtEq => self.at_least(t),
            Operator::Lt => self.before(t),
            Operator::LtEq => self.at_most(t),
            Operator::Eq => {
                self.at_least(t);
                self.at_most(t);
            }
            _ => return false,
        }
        true
    }
}

impl Pushed {
    /// The `log_time` range.
    fn log_time(&self) -> Range {
        Range {
            start: self.start,
            end: self.end,
        }
    }

    /// Sets the `log_time` range.
    fn set_log_time(&mut self, r: Range) {
        self.start = r.start;
        self.end = r.end;
    }

    /// Narrows the range of time column `col` (`log_time` or
    /// `log_time_utc`) by `f`; false for another column.
    fn narrow(&mut self, col: &str, f: impl FnOnce(&mut Range) -> bool) -> bool {
        match col {
            LOG_TIME => {
                let mut r = self.log_time();
                let used = f(&mut r);
                self.set_log_time(r);
                used
            }
            LOG_TIME_UTC => f(&mut self.utc),
            _ => false,
        }
    }

    fn only(&mut self, ids: BTreeSet<String>) {
        self.logs = Some(match self.logs.take() {
            Some(l) => l.intersection(&ids).cloned().collect(),
            None => ids,
        });
    }

    /// Whether no row can pass (an empty time range).
    pub(crate) fn empty_range(&self) -> bool {
        matches!((self.start, self.end), (Some(s), Some(e)) if s >= e) || self.utc.empty()
    }
}

/// Whether the table can use `e` (to prune logs or narrow the time range).
pub(crate) fn supported(e: &Expr) -> bool {
    let mut p = Pushed::default();
    apply(e, &mut p)
}

/// Narrows `p` by every filter it can use.
pub(crate) fn pushed(filters: &[Expr]) -> Pushed {
    let mut p = Pushed::default();
    for f in filters {
        apply(f, &mut p);
    }
    p
}

/// Narrows `p` by `e`; false when `e` is of no use to the table.
fn apply(e: &Expr, p: &mut Pushed) -> bool {
    match e {
        Expr::BinaryExpr(BinaryExpr {
            left,
            op: Operator::And,
            right,
        }) => {
            // Both sides run on the same `p`: each narrows it.
            let l = apply(left, p);
            let r = apply(right, p);
            l || r
        }
        Expr::BinaryExpr(BinaryExpr {
            op: Operator::Or, ..
        }) => match log_ids(e) {
            Some(ids) => {
                p.only(ids);
                true
            }
            None => false,
        },
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => {
            let (col, op, lit) = match (column(left), column(right)) {
                (Some(c), None) => (c, *op, right.as_ref()),
                (None, Some(c)) => match op.swap() {
                    Some(o) => (c, o, left.as_ref()),
                    None => return false,
                },
                _ => return false,
            };
            match col {
                LOG_TIME | LOG_TIME_UTC => {
                    let Some(t) = nanos(lit) else {
                        return false;
                    };
                    p.narrow(col, |r| r.narrow(op, t))
                }
                LOG if op == Operator::Eq => match text(lit) {
                    Some(s) => {
                        p.only(BTreeSet::from([s]));
                        true
                    }
                    None => false,
                },
                _ => false,
            }
        }
        Expr::Between(Between {
            expr,
            negated: false,
            low,
            high,
        }) if matches!(column(expr), Some(LOG_TIME | LOG_TIME_UTC)) => {
            match (column(expr), nanos(low), nanos(high)) {
                (Some(col), Some(l), Some(h)) => p.narrow(col, |r| {
                    r.at_least(l);
                    r.at_most(h);
                    true
                }),
                _ => false,
            }
        }
        Expr::InList(list) if !list.negated && column(&list.expr) == Some(LOG) => {
            let ids: Option<BTreeSet<String>> = list.list.iter().map(text).collect();
            match ids {
                Some(ids) => {
                    p.only(ids);
                    true
                }
                None => false,
            }
        }
        _ => false,
    }
}

/// The log ids `e` allows when it is a test of `log` alone (`=`, `IN`,
/// `OR` of those).
fn log_ids(e: &Expr) -> Option<BTreeSet<String>> {
    match e {
        Expr::BinaryExpr(BinaryExpr {
            left,
            op: Operator::Or,
            right,
        }) => {
            let mut l = log_ids(left)?;
            l.extend(log_ids(right)?);
            Some(l)
        }
        Expr::BinaryExpr(BinaryExpr {
            left,
            op: Operator::Eq,
            right,
        }) => match (column(left), column(right)) {
            (Some(LOG), None) => text(right).map(|s| BTreeSet::from([s])),
            (None, Some(LOG)) => text(left).map(|s| BTreeSet::from([s])),
            _ => None,
        },
        Expr::InList(list) if !list.negated && column(&list.expr) == Some(LOG) => {
            list.list.iter().map(text).collect()
        }
        _ => None,
    }
}

/// The name of a bare column (`log_time`, `log`), or `log_time` cast to
/// an interval (how DataFusion compares a `duration[ns]` log time with
/// an `INTERVAL`; the cast keeps its nanoseconds).
fn column(e: &Expr) -> Option<&str> {
    match e {
        Expr::Column(c) => Some(c.name.as_str()),
        Expr::Cast(datafusion::logical_expr::Cast { expr, field })
            if field.data_type() == &DataType::Interval(IntervalUnit::MonthDayNano) =>
        {
            match expr.as_ref() {
                Expr::Column(c) if c.name == LOG_TIME => Some(LOG_TIME),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A timestamp literal in nanoseconds, or a duration or interval literal
/// (the `log_time` of a log whose clock is time since boot or since the
/// recording's start is a `duration[ns]`): its nanoseconds.
fn nanos(e: &Expr) -> Option<i64> {
    let Expr::Literal(v, _) = e else {
        return None;
    };
    match v {
        ScalarValue::TimestampNanosecond(Some(t), _) => Some(*t),
        ScalarValue::TimestampMicrosecond(Some(t), _) => t.checked_mul(1_000),
        ScalarValue::TimestampMillisecond(Some(t), _) => t.checked_mul(1_000_000),
        ScalarValue::TimestampSecond(Some(t), _) => t.checked_mul(1_000_000_000),
        ScalarValue::DurationNanosecond(Some(t)) => Some(*t),
        ScalarValue::DurationMicrosecond(Some(t)) => t.checked_mul(1_000),
        ScalarValue::DurationMillisecond(Some(t)) => t.checked_mul(1_000_000),
        ScalarValue::DurationSecond(Some(t)) => t.checked_mul(1_000_000_000),
        // An interval of days and nanoseconds: a fixed length (months
        // are not).
        ScalarValue::IntervalMonthDayNano(Some(i)) if i.months == 0 => i64::from(i.days)
            .checked_mul(86_400_000_000_000)
            .and_then(|d| d.checked_add(i.nanoseconds)),
        _ => None,
    }
}

/// A string literal.
fn text(e: &Expr) -> Option<String> {
    let Expr::Literal(v, _) = e else {
        return None;
    };
    match v {
        ScalarValue::Utf8(Some(s))
        | ScalarValue::LargeUtf8(Some(s))
        | ScalarValue::Utf8View(Some(s)) => Some(s.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::logical_expr::{col, lit};

    fn ts(ns: i64) -> Expr {
        lit(ScalarValue::TimestampNanosecond(Some(ns), None))
    }

    #[test]
    fn time_ranges_narrow() {
        let p = pushed(&[
            col(LOG_TIME).gt(ts(10)),
            ts(100).gt_eq(col(LOG_TIME)),
            col(LOG_TIME).lt(ts(50)),
        ]);
        assert_eq!((p.start, p.end), (Some(11), Some(50)));
        let p = pushed(&[col(LOG_TIME).between(
            lit(ScalarValue::TimestampMillisecond(Some(2), None)),
            ts(3_000_000),
        )]);
        assert_eq!((p.start, p.end), (Some(2_000_000), Some(3_000_001)));
        assert!(pushed(&[col(LOG_TIME).gt(ts(5)), col(LOG_TIME).lt(ts(5))]).empty_range());
    }

    #[test]
    fn duration_ranges_narrow_log_time() {
        let d = |ns| lit(ScalarValue::DurationNanosecond(Some(ns)));
        let p = pushed(&[col(LOG_TIME).gt_eq(d(10)), col(LOG_TIME).lt_eq(d(20))]);
        assert_eq!((p.start, p.end), (Some(10), Some(21)));
        let p = pushed(&[col(LOG_TIME).between(
            lit(ScalarValue::DurationSecond(Some(2))),
            lit(ScalarValue::DurationMillisecond(Some(3_000))),
        )]);
        assert_eq!((p.start, p.end), (Some(2_000_000_000), Some(3_000_000_001)));
        assert!(!supported(
            &col(LOG_TIME).gt(lit(ScalarValue::DurationNanosecond(None)))
        ));
        // `log_time > INTERVAL '1.5 seconds'`, as DataFusion plans it.
        let as_interval = datafusion::logical_expr::cast(
            col(LOG_TIME),
            DataType::Interval(IntervalUnit::MonthDayNano),
        );
        let interval = |months, days, ns| {
            lit(ScalarValue::IntervalMonthDayNano(Some(
                datafusion::arrow::datatypes::IntervalMonthDayNano::new(months, days, ns),
            )))
        };
        let p = pushed(&[as_interval.clone().gt(interval(0, 1, 5))]);
        assert_eq!(p.start, Some(86_400_000_000_006));
        assert!(!supported(&as_interval.lt(interval(1, 0, 0))));
    }

    #[test]
    fn utc_ranges_narrow_apart_from_log_time() {
        let utc = |ns| {
            lit(ScalarValue::TimestampNanosecond(
                Some(ns),
                Some("UTC".into()),
            ))
        };
        let p = pushed(&[
            col(LOG_TIME_UTC).gt_eq(utc(10)),
            col(LOG_TIME_UTC).lt_eq(utc(20)),
            col(LOG_TIME).lt(ts(7)),
        ]);
        assert_eq!((p.utc.start, p.utc.end), (Some(10), Some(21)));
        assert_eq!((p.start, p.end), (None, Some(7)));
        let p = pushed(&[col(LOG_TIME_UTC).between(utc(3), utc(4))]);
        assert_eq!((p.utc.start, p.utc.end), (Some(3), Some(5)));
        assert!(
            pushed(&[col(LOG_TIME_UTC).gt(utc(5)), col(LOG_TIME_UTC).lt(utc(5))]).empty_range()
        );
        assert!(supported(&col(LOG_TIME_UTC).lt(utc(1))));
        assert!(!supported(&col(LOG_TIME_UTC).lt(lit(1))));
    }

    #[test]
    fn log_filters_prune() {
        let p = pushed(&[
            col(LOG).in_list(vec![lit("a.bag"), lit("b.bag")], false),
            col(LOG).eq(lit("b.bag")),
        ]);
        assert_eq!(p.logs, Some(BTreeSet::from(["b.bag".to_string()])));
        assert!(!supported(&col(LOG).in_list(vec![lit("a")], true)));
        assert!(!supported(&col("x").gt(lit(1))));
        assert!(!supported(&col(LOG_TIME).gt(lit(1))));
        assert!(supported(&col(LOG).eq(lit("a")).and(col("x").gt(lit(1)))));
        let p = pushed(&[col(LOG)
            .eq(lit("a"))
            .or(col(LOG).in_list(vec![lit("b")], false))]);
        assert_eq!(p.logs, Some(BTreeSet::from(["a".into(), "b".into()])));
        assert!(!supported(&col(LOG).eq(lit("a")).or(col("x").gt(lit(1)))));
    }
}
