//! The scan of a table of a [`LogSet`](crate::LogSet): [`LogScanExec`],
//! the logs spread over partitions, each streaming its logs' rows.

use std::collections::{BTreeSet, HashSet};
use std::fmt;
use std::sync::Arc;

use arrow_array::{BooleanArray, RecordBatch, RecordBatchOptions, StringArray};
use arrow_schema::SchemaRef;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::error::{DataFusionError, Result as DfResult};
use datafusion::execution::TaskContext;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchReceiverStreamBuilder;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
    SendableRecordBatchStream,
};
use logcore::{LogReader, Timestamp};
use robolog_arrow::{LogRow, ScanOptions, TableNames, TopicRow, table_in};

use crate::kept::{KeptLogs, Prepared, lost_records, reopen};
use crate::provider::{logs_batch, topics_batch};
use crate::schema::{LOG, align};
use crate::{Error, LogRef, LostRecords, ScanProgress, UndecodedRows, external};

/// What a [`LogScanExec`] reads: everything a remote executor needs to
/// redo the scan.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ScanSpec {
    /// The table's name.
    pub(crate) table: String,
    /// The table's key in the logs: the topic (ULog: the message name)
    /// whose channels are its rows (see [`robolog_arrow::table_key`]).
    pub(crate) key: String,
    /// Whether this is the table of logs ([`LOGS`](crate::LOGS)) or of
    /// their topics ([`TOPICS`](crate::TOPICS)), which `table` names.
    pub(crate) logs_table: bool,
    /// The logs to read (after pruning by `log`).
    pub(crate) logs: Vec<LogRef>,
    /// The output schema (the projected merged schema).
    pub(crate) schema: SchemaRef,
    /// Only rows with `log_time` at or after this (ns).
    pub(crate) start: Option<i64>,
    /// Only rows with `log_time` before this (ns, exclusive).
    pub(crate) end: Option<i64>,
    /// Only rows with `log_time_utc` in this range (ns since 1970 UTC):
    /// each log's `log_time` range through its UTC anchor, and no row of
    /// a log without UTC times when bounded.
    pub(crate) utc: crate::filter::Range,
    /// Rows per batch.
    pub(crate) batch_size: usize,
    /// How many partitions to spread the logs over (at most one per log).
    pub(crate) target_partitions: usize,
    /// The limits to read the logs with.
    pub(crate) limits: robolog::Limits,
}

/// The scan of a [`LogTable`](crate::LogTable) or of the
/// [`LogsTable`](crate::LogsTable): logs spread over partitions by size,
/// each partition reading its logs one after the other on a blocking
/// thread and streaming their batches (at most two in flight per
/// partition).
#[derive(Debug, Clone)]
pub struct LogScanExec {
    spec: ScanSpec,
    /// Indices into `spec.logs` of each partition.
    partitions: Vec<Vec<usize>>,
    properties: Arc<PlanProperties>,
    /// Every log's rows of the `logs` or `topics` table, when known.
    rows: Option<RecordBatch>,
    progress: Option<Arc<ScanProgress>>,
    kept: Option<Arc<KeptLogs>>,
}

impl LogScanExec {
    /// The scan `spec` describes.
    pub(crate) fn new(spec: ScanSpec) -> LogScanExec {
        let n = spec.target_partitions.max(1).min(spec.logs.len()).max(1);
        // Largest logs first, each to the partition with the fewest bytes.
        let mut order: Vec<usize> = (0..spec.logs.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(spec.logs[i].size));
        let mut partitions: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut load = vec![0u64; n];
        for i in order {
            let k = (0..n).min_by_key(|&k| (load[k], k)).unwrap_or(0);
            load[k] += spec.logs[i].size.max(1);
            partitions[k].push(i);
        }
        for p in &mut partitions {
            p.sort_unstable();
        }
        let properties = Arc::new(PlanProperties::new(
            EquivalenceProperties::new(spec.schema.clone()),
            Partitioning::UnknownPartitioning(n),
            EmissionType::Incremental,
            Boundedness::Bounded,
        ));
        LogScanExec {
            spec,
            partitions,
            properties,
            rows: None,
            progress: None,
            kept: None,
        }
    }

    /// The scan, updating `progress` as it reads.
    pub(crate) fn with_progress(self, progress: Option<Arc<ScanProgress>>) -> LogScanExec {
        LogScanExec { progress, ..self }
    }

    /// The scan, taking the logs `kept` holds open before opening them.
    pub(crate) fn with_kept(self, kept: Option<Arc<KeptLogs>>) -> LogScanExec {
        LogScanExec { kept, ..self }
    }

    /// The scan of the `logs` or `topics` table, with every log's rows
    /// when known.
    pub(crate) fn with_rows(self, rows: Option<RecordBatch>) -> LogScanExec {
        LogScanExec { rows, ..self }
    }

    /// What the scan reads.
    #[cfg(feature = "ballista")]
    pub(crate) fn spec(&self) -> &ScanSpec {
        &self.spec
    }

    /// The table scanned.
    pub fn table(&self) -> &str {
        &self.spec.table
    }

    /// The logs the scan reads.
    pub fn logs(&self) -> &[LogRef] {
        &self.spec.logs
    }
}

impl DisplayAs for LogScanExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "LogScanExec: table={}, logs={}, partitions={}",
            self.spec.table,
            self.spec.logs.len(),
            self.partitions.len()
        )?;
        let (start, end) = (self.spec.start, self.spec.end);
        if start.is_some() || end.is_some() {
            // Shown as an inclusive range, the last nanosecond read.
            let last = end.map(|e| e.saturating_sub(1));
            write!(f, ", log_time={start:?}..={last:?}")?;
        }
        let utc = self.spec.utc;
        if utc.bounded() {
            let last = utc.end.map(|e| e.saturating_sub(1));
            write!(f, ", log_time_utc={:?}..={last:?}", utc.start)?;
        }
        Ok(())
    }
}

impl ExecutionPlan for LogScanExec {
    fn name(&self) -> &str {
        "LogScanExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        Vec::new()
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> DfResult<TreeNodeRecursion>,
    ) -> DfResult<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn execute(
        &self,
        partition: usize,
        _context: Arc<TaskContext>,
    ) -> DfResult<SendableRecordBatchStream> {
        let Some(indices) = self.partitions.get(partition) else {
            return Err(DataFusionError::Internal(format!(
                "LogScanExec: no partition {partition} of {}",
                self.partitions.len()
            )));
        };
        let logs: Vec<LogRef> = indices.iter().map(|&i| self.spec.logs[i].clone()).collect();
        let spec = self.spec.clone();
        let progress = self.progress.clone();
        let kept = self.kept.clone();
        if let Some(p) = &progress {
            p.started(logs.iter().map(|l| l.size).sum());
        }
        let mut builder = RecordBatchReceiverStreamBuilder::new(spec.schema.clone(), 2);
        let tx = builder.tx();
        if spec.logs_table {
            let rows = self.rows.clone();
            builder.spawn_blocking(move || {
                let batch = logs_rows(&spec, &logs, rows)?;
                let _ = tx.blocking_send(Ok(batch));
                Ok(())
            });
        } else {
            builder.spawn_blocking(move || {
                for l in &logs {
                    let taken = kept.as_ref().and_then(|k| k.take(&l.path, &spec.table));
                    let more = scan_log(&spec, l, taken.clone(), &tx, progress.as_deref())?;
                    if let (Some(k), Some(t)) = (&kept, taken) {
                        k.done(t);
                    }
                    if !more {
                        break;
                    }
                    if let Some(p) = &progress {
                        p.read(l.size);
                    }
                }
                Ok(())
            });
        }
        Ok(builder.build())
    }
}

/// The rows of the `logs` or `topics` table (the spec's table) for
/// `logs`, projected to the spec's schema; `cached` holds every log's
/// rows when the set knew them.
fn logs_rows(
    spec: &ScanSpec,
    logs: &[LogRef],
    cached: Option<RecordBatch>,
) -> DfResult<RecordBatch> {
    let full = match cached {
        Some(all) => {
            let ids: HashSet<&str> = logs.iter().map(|l| l.id.as_str()).collect();
            let keep: BooleanArray = match all.column(0).as_any().downcast_ref::<StringArray>() {
                Some(c) => c
                    .iter()
                    .map(|v| Some(v.is_some_and(|v| ids.contains(v))))
                    .collect(),
                None => BooleanArray::from(vec![false; all.num_rows()]),
            };
            datafusion::arrow::compute::filter_record_batch(&all, &keep)?
        }
        None => {
            // Every log of the set is here: their keys name the tables as
            // the set named them.
            let topics_table = spec.table == crate::TOPICS;
            let mut rows = Vec::with_capacity(logs.len());
            let mut topics: Vec<Vec<TopicRow>> = Vec::with_capacity(logs.len());
            let mut keys: Vec<Vec<String>> = Vec::with_capacity(logs.len());
            for l in logs {
                let open = |e| {
                    external(Error::Open {
                        path: l.path.clone(),
                        source: e,
                    })
                };
                let log = robolog::OpenOptions::new()
                    .limits(spec.limits)
                    .open(&l.path)
                    .map_err(open)?;
                let summary = log.summary().map_err(open)?;
                let mut own: Vec<String> = Vec::new();
                for c in &summary.channels {
                    let key = log.table_key(&c.info);
                    if !own.iter().any(|k| k == key) {
                        own.push(key.to_string());
                    }
                }
                keys.push(own);
                if topics_table {
                    topics.push(TopicRow::rows(&summary, |c| log.table_key(c)));
                } else {
                    rows.push(LogRow::new(&summary, &l.path.to_string_lossy()));
                }
            }
            let names = TableNames::new(keys.iter().flatten().map(String::as_str));
            if topics_table {
                let topics: Vec<Vec<TopicRow>> = topics
                    .into_iter()
                    .map(|t| t.into_iter().map(|r| r.with_names(&names)).collect())
                    .collect();
                return project(spec, topics_batch(logs, &topics)?);
            }
            let rows: Vec<LogRow> = rows
                .into_iter()
                .zip(&keys)
                .map(|(row, own)| {
                    row.with_tables(
                        own.iter()
                            .filter_map(|k| names.name(k).map(|n| (n, k.as_str()))),
                    )
                })
                .collect();
            logs_batch(logs, &rows)?
        }
    };
    project(spec, full)
}

/// `full`, a whole `logs` or `topics` table, projected to the spec's
/// schema.
fn project(spec: &ScanSpec, full: RecordBatch) -> DfResult<RecordBatch> {
    let indices: Vec<usize> = spec
        .schema
        .fields()
        .iter()
        .map(|f| full.schema().index_of(f.name()))
        .collect::<Result<_, _>>()?;
    let projected = full.project(&indices)?;
    Ok(RecordBatch::try_new_with_options(
        spec.schema.clone(),
        projected.columns().to_vec(),
        &RecordBatchOptions::new().with_row_count(Some(projected.num_rows())),
    )?)
}

/// The records a scan of a log could not read (`path` and `table` left
/// empty): those the reader lost when opening the log (`at_open`) and the
/// damaged records the scan skipped, each once by its offset; `None` when
/// there are none.
fn lost(
    at_open: &[logcore::Error],
    reader: &robolog_arrow::BatchReader<'_>,
) -> Option<LostRecords> {
    let mut offsets: BTreeSet<u64> = at_open.iter().filter_map(logcore::Error::offset).collect();
    offsets.extend(reader.skipped_offsets());
    let unplaced = at_open.iter().filter(|e| e.offset().is_none()).count() as u64
        + reader
            .skipped()
            .saturating_sub(reader.skipped_offsets().len() as u64);
    let count = offsets.len() as u64 + unplaced;
    if count == 0 {
        return None;
    }
    let offset = offsets.first().copied();
    let first = match offset {
        Some(o) => at_open.iter().find(|e| e.offset() == Some(o)).cloned(),
        None => at_open.first().cloned(),
    };
    Some(LostRecords {
        path: Default::default(),
        table: String::new(),
        count,
        offset,
        first,
    })
}

/// Streams the rows of one log into `tx`; false when the receiver went
/// away (the query needs no more rows).
fn scan_log(
    spec: &ScanSpec,
    l: &LogRef,
    prepared: Option<Arc<Prepared>>,
    tx: &tokio::sync::mpsc::Sender<DfResult<RecordBatch>>,
    progress: Option<&ScanProgress>,
) -> DfResult<bool> {
    let read = |e: robolog_arrow::Error| {
        external(Error::Read {
            path: l.path.clone(),
            source: e,
        })
    };
    let prepared = match prepared {
        Some(p) => p,
        None => Arc::new(reopen(&l.path, &spec.limits, &spec.key).map_err(external)?),
    };
    let log = &prepared.log;
    // A table made by `LogTable::new` has its name for a key.
    let table = match table_in(log, &prepared.summary, &spec.key, &spec.table).map_err(read)? {
        Some(t) => Some(t),
        None => robolog_arrow::table_of(log, &prepared.summary, &spec.key).map_err(read)?,
    };
    let Some(table) = table else {
        return Ok(true);
    };
    // A `log_time_utc` range: the log's own range of log times, or no
    // row where it has no UTC times (their `log_time_utc` is null).
    let (mut start, mut end) = (spec.start, spec.end);
    if spec.utc.bounded() {
        if !table.has_utc() {
            return Ok(true);
        }
        let local = |t: i64| {
            table
                .from_utc(Timestamp::from_nanos(t))
                .map(Timestamp::as_nanos)
        };
        if let Some(s) = spec.utc.start.and_then(local) {
            start = Some(start.map_or(s, |x| x.max(s)));
        }
        if let Some(e) = spec.utc.end.and_then(local) {
            end = Some(end.map_or(e, |x| x.min(e)));
        }
        if matches!((start, end), (Some(s), Some(e)) if s >= e) {
            return Ok(true);
        }
    }
    let have = table.schema();
    let names: Vec<String> = spec
        .schema
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .filter(|n| n != LOG && have.index_of(n).is_ok())
        .collect();
    let opts = ScanOptions {
        projection: Some(names),
        start: start.map(Timestamp::from_nanos),
        // Both exclusive (and DataFusion filters the rows again).
        end: end.map(Timestamp::from_nanos),
        batch_size: spec.batch_size.max(1),
        lenient: true,
        typed_columns: true,
    };
    let mut reader = robolog_arrow::scan(log, &table, &opts).map_err(read)?;
    // What the reader lost when opening the log (a truncation) is lost to
    // every table's scan: the reader cannot say whose records they were.
    let lost_at_open = lost_records(&prepared.summary);
    let noted = |reader: &robolog_arrow::BatchReader<'_>| {
        let Some(p) = progress else {
            return;
        };
        if reader.undecoded() > 0 {
            p.note_undecoded(UndecodedRows {
                path: l.path.clone(),
                table: spec.table.clone(),
                count: reader.undecoded(),
                first: reader.first_undecoded().cloned(),
            });
        }
        if let Some(lost) = lost(&lost_at_open, reader) {
            p.note_lost(LostRecords {
                path: l.path.clone(),
                table: spec.table.clone(),
                ..lost
            });
        }
    };
    while let Some(batch) = reader.next() {
        let batch = match batch {
            Ok(b) => b,
            Err(e) => {
                noted(&reader);
                return Err(read(e));
            }
        };
        let rows = batch.num_rows() as u64;
        let out = align(&batch, &spec.schema, &l.id).map_err(|e| {
            external(Error::Align {
                path: l.path.clone(),
                table: spec.table.clone(),
                source: e,
            })
        })?;
        if tx.blocking_send(Ok(out)).is_err() {
            noted(&reader);
            return Ok(false);
        }
        if let Some(p) = progress {
            p.produced(rows);
        }
    }
    noted(&reader);
    Ok(true)
}
