//! The set's tables as DataFusion [`TableProvider`]s: [`LogTable`], the
//! rows of one table name in every log that has it, and [`LogsTable`],
//! the table [`LOGS`] (a row per log) or [`TOPICS`] (a row per log and
//! topic). Both plan a [`LogScanExec`].

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider};
use datafusion::error::{DataFusionError, Result as DfResult};
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use datafusion::physical_plan::ExecutionPlan;
use robolog_arrow::{LogRow, TopicRow};

use crate::exec::{LogScanExec, ScanSpec};
use crate::kept::KeptLogs;
use crate::schema::with_log_column;
use crate::{Error, LOGS, LogRef, ScanProgress, TOPICS, external, filter};

/// The schema of the [`LOGS`] table: [`LOG`](crate::LOG), then the
/// columns of the `logs` table of a Parquet export
/// ([`robolog_arrow::logs_schema`], the one definition of both).
pub fn logs_schema() -> SchemaRef {
    Arc::new(with_log_column(&robolog_arrow::logs_schema()))
}

/// The [`LOGS`] table of `logs` whose rows are `rows` (in that order).
pub(crate) fn logs_batch(logs: &[LogRef], rows: &[LogRow]) -> DfResult<RecordBatch> {
    let table = robolog_arrow::logs_batch(rows).map_err(|e| DataFusionError::External(e.into()))?;
    let mut columns: Vec<ArrayRef> = vec![Arc::new(StringArray::from_iter_values(
        logs.iter().map(|l| &l.id),
    ))];
    columns.extend(table.columns().iter().cloned());
    Ok(RecordBatch::try_new(logs_schema(), columns)?)
}

/// The schema of the [`TOPICS`] table: [`LOG`](crate::LOG), then the
/// columns of [`robolog_arrow::topics_schema`] (`topic`, `types`,
/// `message_count`, `channel_count`, `start`, `end`, `start_utc`,
/// `end_utc`, `table`).
pub fn topics_schema() -> SchemaRef {
    Arc::new(with_log_column(&robolog_arrow::topics_schema()))
}

/// The [`TOPICS`] table of `logs` whose topics are `rows` (the rows of
/// each log, in the order of `logs`).
pub(crate) fn topics_batch(logs: &[LogRef], rows: &[Vec<TopicRow>]) -> DfResult<RecordBatch> {
    let all: Vec<TopicRow> = rows.iter().flatten().cloned().collect();
    let table =
        robolog_arrow::topics_batch(&all).map_err(|e| DataFusionError::External(e.into()))?;
    let ids: Vec<&str> = logs
        .iter()
        .zip(rows)
        .flat_map(|(l, r)| std::iter::repeat_n(l.id.as_str(), r.len()))
        .collect();
    let mut columns: Vec<ArrayRef> = vec![Arc::new(StringArray::from_iter_values(ids))];
    columns.extend(table.columns().iter().cloned());
    Ok(RecordBatch::try_new(topics_schema(), columns)?)
}

/// What the scans of a table read, whichever table it is.
#[derive(Debug, Clone)]
struct Scans {
    logs: Vec<LogRef>,
    schema: SchemaRef,
    progress: Option<Arc<ScanProgress>>,
    limits: robolog::Limits,
    /// At most this many scan partitions (`None`: DataFusion's target
    /// partitions).
    max_partitions: Option<usize>,
}

impl Scans {
    /// The scan of the table called `table` (of `key` in the logs) for a
    /// query's projection and filters.
    fn spec(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        (table, key): (&str, &str),
    ) -> DfResult<ScanSpec> {
        let pushed = filter::pushed(filters);
        let logs: Vec<LogRef> = if pushed.empty_range() {
            Vec::new()
        } else {
            self.logs
                .iter()
                .filter(|l| pushed.logs.as_ref().is_none_or(|ids| ids.contains(&l.id)))
                .cloned()
                .collect()
        };
        let schema = match projection {
            Some(p) => Arc::new(self.schema.project(p)?),
            None => self.schema.clone(),
        };
        let config = state.config();
        Ok(ScanSpec {
            table: table.to_string(),
            key: key.to_string(),
            logs_table: table == LOGS || table == TOPICS,
            logs,
            schema,
            start: pushed.start,
            end: pushed.end,
            utc: pushed.utc,
            batch_size: config.batch_size(),
            target_partitions: config
                .target_partitions()
                .min(self.max_partitions.unwrap_or(usize::MAX)),
            limits: self.limits,
        })
    }
}

/// The filters a table takes: `log_time` and `log_time_utc` ranges and
/// `log = ...`, `log IN (...)`, inexactly (DataFusion filters the rows
/// again).
fn pushdown(filters: &[&Expr]) -> Vec<TableProviderFilterPushDown> {
    filters
        .iter()
        .map(|f| {
            if filter::supported(f) {
                TableProviderFilterPushDown::Inexact
            } else {
                TableProviderFilterPushDown::Unsupported
            }
        })
        .collect()
}

/// A table over a set of logs: the rows of one table name in every log
/// that has it. Projections and `log_time` ranges go to
/// [`robolog_arrow::scan`] (`log_time_utc` ranges too, as each log's
/// `log_time` range through its UTC anchor), `log = ...` and `log IN
/// (...)` skip whole logs; logs are opened when a partition reaches them.
#[derive(Debug, Clone)]
pub struct LogTable {
    name: String,
    /// The topic (ULog: message name) of its rows in the logs
    /// ([`robolog_arrow::table_key`]).
    pub(crate) key: String,
    /// Why the table's schemas did not merge (log, column, reason).
    pub(crate) conflict: Option<(PathBuf, String, String)>,
    scans: Scans,
    /// The logs its set kept open for the scans.
    kept: Option<Arc<KeptLogs>>,
}

impl LogTable {
    /// A table of `logs` (all assumed to have it) with a merged `schema`
    /// (`log` first), its key the name until set: what a remote executor
    /// rebuilds from a serialized plan.
    pub(crate) fn new(name: &str, logs: Vec<LogRef>, schema: SchemaRef) -> LogTable {
        LogTable {
            name: name.into(),
            key: name.into(),
            conflict: None,
            scans: Scans {
                logs,
                schema,
                progress: None,
                limits: robolog::Limits::default(),
                max_partitions: None,
            },
            kept: None,
        }
    }

    /// The table with its scans' counters and the logs its set kept open.
    pub(crate) fn with_set(mut self, progress: Arc<ScanProgress>, kept: Arc<KeptLogs>) -> LogTable {
        self.scans.progress = Some(progress);
        self.kept = Some(kept);
        self
    }

    /// The table scanned in at most `n` partitions (at least one).
    ///
    /// The Ballista codecs decode tables with one: Ballista 55 packs
    /// several partitions of a stage into one task and restricts only the
    /// scans it knows (files, memory) to the task's partitions, so a task
    /// running partitions 2 and 3 of another scan would execute its
    /// partitions 0 and 1, and rows would be read twice or not at all.
    pub fn with_max_partitions(mut self, n: usize) -> LogTable {
        self.scans.max_partitions = Some(n.max(1));
        self
    }

    /// The table with resource limits for reading its logs.
    pub fn with_limits(mut self, limits: robolog::Limits) -> LogTable {
        self.scans.limits = limits;
        self
    }

    /// The limits the table reads its logs with.
    pub fn limits(&self) -> robolog::Limits {
        self.scans.limits
    }

    /// The merged schema (`log` first).
    pub fn table_schema(&self) -> SchemaRef {
        self.scans.schema.clone()
    }

    /// The table's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The topic (ULog: message name) whose messages are its rows.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The logs the table reads.
    pub fn logs(&self) -> &[LogRef] {
        &self.scans.logs
    }
}

#[async_trait]
impl TableProvider for LogTable {
    fn schema(&self) -> SchemaRef {
        self.scans.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> DfResult<Vec<TableProviderFilterPushDown>> {
        Ok(pushdown(filters))
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        _limit: Option<usize>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        if let Some((path, column, reason)) = &self.conflict {
            return Err(external(Error::Merge {
                path: path.clone(),
                table: self.name.clone(),
                column: column.clone(),
                reason: reason.clone(),
            }));
        }
        let spec = self
            .scans
            .spec(state, projection, filters, (&self.name, &self.key))?;
        Ok(Arc::new(
            LogScanExec::new(spec)
                .with_progress(self.scans.progress.clone())
                .with_kept(self.kept.clone()),
        ))
    }
}

/// The table [`LOGS`] of a set, a row per log (see [`logs_schema`]), or
/// its table [`TOPICS`], a row per log and topic (see [`topics_schema`]):
/// known when the set opened every log, else read from the logs when it
/// is scanned (`log = ...` and `log IN (...)` skip whole logs).
#[derive(Debug, Clone)]
pub struct LogsTable {
    /// [`LOGS`] or [`TOPICS`].
    table: &'static str,
    scans: Scans,
    /// Every log's rows, when known.
    rows: Option<RecordBatch>,
}

impl LogsTable {
    /// The table [`LOGS`] of `logs` with `schema` ([`logs_schema`]),
    /// reading its rows from the logs when scanned.
    pub(crate) fn new(logs: Vec<LogRef>, schema: SchemaRef) -> LogsTable {
        LogsTable {
            table: LOGS,
            scans: Scans {
                logs,
                schema,
                progress: None,
                limits: robolog::Limits::default(),
                max_partitions: None,
            },
            rows: None,
        }
    }

    /// The table [`TOPICS`] of `logs` with `schema` ([`topics_schema`]),
    /// reading its rows from the logs when scanned.
    pub(crate) fn topics(logs: Vec<LogRef>, schema: SchemaRef) -> LogsTable {
        LogsTable {
            table: TOPICS,
            ..LogsTable::new(logs, schema)
        }
    }

    /// The table with its rows known: `rows` in the order of its logs.
    pub(crate) fn with_rows(mut self, rows: &[LogRow]) -> Result<LogsTable, Error> {
        self.rows = Some(logs_batch(&self.scans.logs, rows)?);
        Ok(self)
    }

    /// The table [`TOPICS`] with its rows known: each log's topics, in the
    /// order of its logs.
    pub(crate) fn with_topic_rows(mut self, rows: &[Vec<TopicRow>]) -> Result<LogsTable, Error> {
        self.rows = Some(topics_batch(&self.scans.logs, rows)?);
        Ok(self)
    }

    /// The table's name: [`LOGS`] or [`TOPICS`].
    pub fn name(&self) -> &str {
        self.table
    }

    /// The table with its scans' counters.
    pub(crate) fn with_progress(mut self, progress: Arc<ScanProgress>) -> LogsTable {
        self.scans.progress = Some(progress);
        self
    }

    /// The table scanned in at most `n` partitions (see
    /// [`LogTable::with_max_partitions`]).
    pub fn with_max_partitions(mut self, n: usize) -> LogsTable {
        self.scans.max_partitions = Some(n.max(1));
        self
    }

    /// The table with resource limits for reading its logs.
    pub fn with_limits(mut self, limits: robolog::Limits) -> LogsTable {
        self.scans.limits = limits;
        self
    }

    /// The limits the table reads its logs with.
    pub fn limits(&self) -> robolog::Limits {
        self.scans.limits
    }

    /// The logs the table lists.
    pub fn logs(&self) -> &[LogRef] {
        &self.scans.logs
    }
}

#[async_trait]
impl TableProvider for LogsTable {
    fn schema(&self) -> SchemaRef {
        self.scans.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> DfResult<Vec<TableProviderFilterPushDown>> {
        Ok(pushdown(filters))
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        _limit: Option<usize>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        let spec = self
            .scans
            .spec(state, projection, filters, (self.table, self.table))?;
        Ok(Arc::new(
            LogScanExec::new(spec)
                .with_progress(self.scans.progress.clone())
                .with_rows(self.rows.clone()),
        ))
    }
}
