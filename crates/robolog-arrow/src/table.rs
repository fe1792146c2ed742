//! The tables of one log and the streaming scan that turns their messages
//! into record batches.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use arrow_array::types::{TimestampNanosecondType, UInt8Type, UInt32Type};
use arrow_array::{ArrayRef, PrimitiveArray, RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType, Field as ArrowField, Schema, SchemaRef, TimeUnit};
use logcore::{
    ChannelId, ChannelInfo, Error as LogError, Format, LogReader, Message, MessageColumn,
    MessageFilter, MessageIter, ReadMode, Summary, Timestamp, Value, ValueType,
};
use robolog::Log;

use crate::build::{self, field_at};
use crate::names::{TableNames, base_name, may_name};
use crate::{Error, infer};

/// The column of log times.
pub const LOG_TIME: &str = "log_time";
/// The column of MCAP publish times.
pub const PUBLISH_TIME: &str = "publish_time";
/// The column of MCAP sequence numbers.
pub const SEQUENCE: &str = "sequence";
/// The column of ULog multi-instance ids.
pub const MULTI_ID: &str = "multi_id";
/// The column of a message whose type is not a struct.
pub const DATA: &str = "data";
/// Column names the tables of [`robolog-sql`](https://crates.io/crates/robolog-sql)
/// and the Parquet layout add (`log`), reserved like the time columns: a
/// message field of one of these names gets a trailing `_`.
pub const RESERVED: [&str; 5] = [LOG_TIME, PUBLISH_TIME, SEQUENCE, MULTI_ID, "log"];

/// The name of the table of the logs themselves (one row per log) in the
/// Parquet layout and in SQL; a channel of this name is the table `logs_`.
pub const LOGS: &str = "logs";

/// The batch size [`ScanOptions::default`] uses.
pub const DEFAULT_BATCH_SIZE: usize = 8192;

/// One table of a log: the channels that share a [table name](table_name),
/// their merged value type and the Arrow schema of their rows.
#[derive(Debug, Clone)]
pub struct Table {
    /// The table's name (see [`table_name`] and [`TableNames`]).
    pub name: String,
    /// The topic (for ULog, the message name) of its channels (see
    /// [`table_key`]).
    pub key: String,
    /// The log's channels whose messages are the table's rows.
    pub channels: Vec<ChannelInfo>,
    /// The type of the channels' values: declared by the format, or
    /// inferred from every value when the format declares none.
    pub value_type: ValueType,
    /// Whether [`value_type`](Self::value_type) was inferred from values.
    pub inferred: bool,
    /// How many messages the table has (from the log's summary).
    pub message_count: u64,
    schema: SchemaRef,
    /// The message fields that are columns, or `None` for the single
    /// `data` column.
    fields: Option<Vec<logcore::Field>>,
    /// What the messages carry besides log time and payload (see
    /// [`LogReader::message_columns`]), each a column.
    columns: &'static [MessageColumn],
    format: Format,
}

/// The table name of a channel where no other topic of the logs read
/// together has the same name: the [`base_name`] of its
/// [`table_key`] (for ULog the message name, every multi instance in one
/// table; for every other format the topic without its leading `/`,
/// characters other than letters, digits and `_` replaced by `_`:
/// `/camera/image_raw` is `camera_image_raw`). Where several topics
/// have the same base name, [`TableNames`] makes the names unique.
///
/// ```
/// use logcore::LogReader;
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
/// let log = robolog::open(path)?;
/// let chatter = &log.channels()?[0];
/// assert_eq!(chatter.topic, "/chatter");
/// assert_eq!(robolog_arrow::table_name(&log, chatter), "chatter");
/// # Ok::<(), robolog::Error>(())
/// ```
pub fn table_name(log: &dyn LogReader, channel: &ChannelInfo) -> String {
    base_name(table_key(log, channel))
}

/// What a channel's table holds, as its log's format says
/// ([`LogReader::table_key`]): for ULog the message name, for the other
/// formats the topic. Channels of one key are one table of a log.
pub fn table_key<'c>(log: &dyn LogReader, channel: &'c ChannelInfo) -> &'c str {
    log.table_key(channel)
}

/// Whether the channels of the ULog format called `format_name` may
/// belong to the table called `table` (see [`may_name`]): what a reader
/// that wants some tables only selects the subscriptions of a ULog by
/// ([`robolog::OpenOptions::select`]).
///
/// ```
/// assert!(robolog_arrow::ulog_in_table("vehicle_status", "vehicle_status"));
/// assert!(robolog_arrow::ulog_in_table("logs", "logs_"));
/// assert!(!robolog_arrow::ulog_in_table("vehicle_status", "vehicle"));
/// ```
pub fn ulog_in_table(format_name: &str, table: &str) -> bool {
    may_name(format_name, table)
}

impl Table {
    /// The Arrow schema of the table's rows: `log_time`, then
    /// `publish_time` and `sequence` for MCAP, `multi_id` for ULog, then a
    /// column per top-level field of the value type (or one `data`
    /// column). `log_time` carries the log's clock (`robolog.clock`) and,
    /// where the log is anchored to UTC, `robolog.utc_offset_ns` in its
    /// field metadata.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The log's format.
    pub fn format(&self) -> Format {
        self.format
    }
}

/// Every table of `log`, in order of their first channel. Types come from
/// [`LogReader::value_type`]; channels whose format declares none are read
/// once to infer one.
pub fn tables(log: &Log<'_>) -> Result<Vec<Table>, Error> {
    let summary = log.summary()?;
    tables_with_summary(log, &summary)
}

/// [`tables`] for a log whose summary is already at hand.
pub fn tables_with_summary(log: &Log<'_>, summary: &Summary) -> Result<Vec<Table>, Error> {
    tables_where(log, summary, &|_| true, None)
}

/// The names of the tables of one log read alone.
fn log_names(log: &Log<'_>, summary: &Summary) -> TableNames {
    TableNames::new(summary.channels.iter().map(|c| log.table_key(&c.info)))
}

/// The table called `name` of `log` (whose summary is at hand), built
/// from that table's channels only (other tables' untyped channels need
/// no inference pass); `None` when the log has no such table.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
/// let log = robolog::open(path)?;
/// let summary = logcore::LogReader::summary(&log)?;
/// let t = robolog_arrow::table_of(&log, &summary, "count")?.expect("a /count topic");
/// assert_eq!(t.message_count, 30);
/// assert!(robolog_arrow::table_of(&log, &summary, "nope")?.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn table_of(log: &Log<'_>, summary: &Summary, name: &str) -> Result<Option<Table>, Error> {
    let names = log_names(log, summary);
    match names.key(name) {
        Some(key) => table_in(log, summary, key, name),
        None => Ok(None),
    }
}

/// The table of `key` (see [`table_key`]) of `log`, called `name` (its
/// name in a set of logs this log is one of: see [`TableNames`]); `None`
/// when the log has no channel of `key`.
pub fn table_in(
    log: &Log<'_>,
    summary: &Summary,
    key: &str,
    name: &str,
) -> Result<Option<Table>, Error> {
    let names = TableNames::from_pairs([(key, name)]);
    Ok(
        tables_where(log, summary, &|c| log.table_key(c) == key, Some(&names))?
            .into_iter()
            .next(),
    )
}

/// [`tables_with_summary`] of the channels `keep` accepts only, named by
/// `names` (by the log's own [`TableNames`] when `None`; a key `names`
/// does not know is left out).
pub(crate) fn tables_where(
    log: &Log<'_>,
    summary: &Summary,
    keep: &dyn Fn(&ChannelInfo) -> bool,
    names: Option<&TableNames>,
) -> Result<Vec<Table>, Error> {
    let columns = log.message_columns();
    let own;
    let names = match names {
        Some(n) => n,
        None => {
            own = log_names(log, summary);
            &own
        }
    };
    let mut order: Vec<&str> = Vec::new();
    let mut groups: HashMap<&str, Vec<ChannelInfo>> = HashMap::new();
    let mut counts: HashMap<ChannelId, u64> = HashMap::new();
    for c in summary.channels.iter().filter(|c| keep(&c.info)) {
        let key = log.table_key(&c.info);
        if names.name(key).is_none() {
            continue;
        }
        counts.insert(c.info.id, c.message_count);
        if !groups.contains_key(key) {
            order.push(key);
        }
        groups.entry(key).or_default().push(c.info.clone());
    }
    let mut out = Vec::with_capacity(order.len());
    for key in order {
        let name = names.name(key).unwrap_or(key).to_string();
        let channels = groups.remove(key).unwrap_or_default();
        let mut declared: Option<ValueType> = None;
        let mut untyped = Vec::new();
        for c in &channels {
            match log.value_type(c.id)? {
                Some(t) => {
                    declared = Some(match declared {
                        None => t,
                        Some(d) if d == t => d,
                        Some(d) => infer::unify(&d, &t),
                    });
                }
                None => untyped.push(c.id),
            }
        }
        let mut inferred = false;
        if !untyped.is_empty() {
            inferred = true;
            let seen = infer_from_messages(log, &untyped)?;
            declared = match (declared, seen) {
                (Some(d), Some(s)) => Some(infer::unify(&d, &s)),
                (d, s) => d.or(s),
            };
        }
        let value_type = declared.unwrap_or(ValueType::Struct(Vec::new()));
        let message_count = channels.iter().filter_map(|c| counts.get(&c.id)).sum();
        let fields = match &value_type {
            ValueType::Struct(f) => Some(
                f.iter()
                    .map(|f| {
                        let mut f = f.clone();
                        if RESERVED.contains(&f.name.as_str()) {
                            f.name = format!("{}_", f.name).into();
                        }
                        f
                    })
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        };
        let schema = make_schema(
            log.format(),
            columns,
            summary,
            &name,
            key,
            &channels,
            &value_type,
            &fields,
        );
        out.push(Table {
            name,
            key: key.to_string(),
            channels,
            value_type,
            inferred,
            message_count,
            schema,
            fields,
            columns,
            format: log.format(),
        });
    }
    Ok(out)
}

fn infer_from_messages(log: &Log<'_>, channels: &[ChannelId]) -> Result<Option<ValueType>, Error> {
    let filter = MessageFilter::all()
        .channels(channels.iter().copied())
        .mode(ReadMode::Lenient);
    let mut values = Vec::new();
    let mut seen: Option<ValueType> = None;
    for m in log.messages(&filter)? {
        let Ok(m) = m else { continue };
        if let Ok(v) = log.decode(&m) {
            values.push(v);
        }
        if values.len() == 1024 {
            seen = merge_opt(seen, infer::infer(values.iter()));
            values.clear();
        }
    }
    Ok(merge_opt(seen, infer::infer(values.iter())))
}

fn merge_opt(a: Option<ValueType>, b: Option<ValueType>) -> Option<ValueType> {
    match (a, b) {
        (Some(a), Some(b)) => Some(infer::unify(&a, &b)),
        (a, b) => a.or(b),
    }
}

#[allow(clippy::too_many_arguments)]
fn make_schema(
    format: Format,
    columns: &[MessageColumn],
    summary: &Summary,
    name: &str,
    key: &str,
    channels: &[ChannelInfo],
    value_type: &ValueType,
    fields: &Option<Vec<logcore::Field>>,
) -> SchemaRef {
    let mut time_meta = HashMap::new();
    time_meta.insert(
        "robolog.clock".to_string(),
        summary.time_model.clock.name().to_string(),
    );
    if let Some(a) = summary.time_model.anchor {
        time_meta.insert(
            "robolog.utc_offset_ns".to_string(),
            (i128::from(a.unix_time.as_nanos()) - i128::from(a.log_time.as_nanos())).to_string(),
        );
    }
    let ts = DataType::Timestamp(TimeUnit::Nanosecond, None);
    let mut cols = vec![ArrowField::new(LOG_TIME, ts.clone(), false).with_metadata(time_meta)];
    for c in columns {
        cols.push(match c {
            MessageColumn::PublishTime => ArrowField::new(PUBLISH_TIME, ts.clone(), true),
            MessageColumn::Sequence => ArrowField::new(SEQUENCE, DataType::UInt32, true),
            MessageColumn::MultiId => ArrowField::new(MULTI_ID, DataType::UInt8, false),
            // A column of a later format, which tables do not show yet.
            _ => continue,
        });
    }
    match fields {
        // Top-level columns are nullable: tables of several logs merge
        // columns that some logs lack.
        Some(fs) => cols.extend(fs.iter().map(|f| build::arrow_field(f).with_nullable(true))),
        None => cols.push(ArrowField::new(DATA, build::data_type(value_type), true)),
    }
    let mut meta = HashMap::new();
    meta.insert("robolog.table".to_string(), name.to_string());
    meta.insert("robolog.topic".to_string(), key.to_string());
    meta.insert("robolog.format".to_string(), format.name().to_string());
    let types: Vec<&str> = {
        let mut t: Vec<&str> = channels.iter().map(|c| c.type_name.as_str()).collect();
        t.dedup();
        t
    };
    meta.insert("robolog.type".to_string(), types.join(","));
    Arc::new(Schema::new_with_metadata(cols, meta))
}

/// What a [`scan`] reads and how it batches.
#[derive(Debug, Clone)]
pub struct ScanOptions {
    /// The columns to produce, by name, in this order (`None`: every
    /// column of the table's schema). Message fields that are not asked
    /// for are not built; when no message field is asked for, payloads are
    /// not decoded at all.
    pub projection: Option<Vec<String>>,
    /// Only messages logged at or after this time.
    pub start: Option<Timestamp>,
    /// Only messages logged before this time (exclusive, as
    /// [`MessageFilter::end`]).
    pub end: Option<Timestamp>,
    /// Rows per batch (at least 1).
    pub batch_size: usize,
    /// Skip damaged records (counted in [`BatchReader::skipped`]), and
    /// give a message that does not decode a row whose message columns are
    /// null (counted in [`BatchReader::undecoded`]), instead of failing.
    /// The rows are the same whichever columns are asked for.
    pub lenient: bool,
    /// Read numeric columns straight from a format's typed column readers
    /// where those give exactly the rows of the general path (a ULog table
    /// of one subscription in time order), instead of decoding every
    /// message.
    pub typed_columns: bool,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            projection: None,
            start: None,
            end: None,
            batch_size: DEFAULT_BATCH_SIZE,
            lenient: true,
            typed_columns: true,
        }
    }
}

/// A row's message facts: log time, publish time, sequence, channel and
/// byte offset.
type RowMeta = (Timestamp, Option<Timestamp>, Option<u64>, ChannelId, u64);

/// What one output column is made from.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    LogTime,
    PublishTime,
    Sequence,
    MultiId,
    /// Message field `k` (declared at position `k`) of this type.
    Field(usize, logcore::Field),
    /// The whole value.
    Data(ValueType),
}

/// Streams a table's rows as [`RecordBatch`]es of at most
/// [`ScanOptions::batch_size`] rows: memory is bounded by one batch of
/// decoded values. Time filters and the table's channels go to the
/// format's index ([`MessageFilter`]).
pub struct BatchReader<'a> {
    log: &'a Log<'a>,
    messages: Option<MessageIter<'a>>,
    prebuilt: Option<std::vec::IntoIter<RecordBatch>>,
    schema: SchemaRef,
    sources: Vec<Source>,
    decode: bool,
    /// Whether message fields are columns (a value must be a struct).
    fields: bool,
    batch_size: usize,
    lenient: bool,
    multi_ids: HashMap<ChannelId, u8>,
    table: String,
    skipped: u64,
    undecoded: u64,
    first_undecoded: Option<Undecoded>,
    done: bool,
}

/// The first message of a lenient [`scan`] that did not decode (or whose
/// value is not a message with fields where the table has them): its row
/// is kept with null message columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undecoded {
    /// The byte offset of the message (of its chunk, when compressed).
    pub offset: u64,
    /// Why it did not decode.
    pub reason: String,
}

impl std::fmt::Debug for BatchReader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchReader")
            .field("table", &self.table)
            .field("schema", &self.schema)
            .field("skipped", &self.skipped)
            .field("undecoded", &self.undecoded)
            .finish_non_exhaustive()
    }
}

/// Reads `table` of `log` (a table [`tables`] returned for this log).
///
/// ```
/// use robolog_arrow::{ScanOptions, scan, tables};
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
/// let log = robolog::open(path)?;
/// let tables = tables(&log)?;
/// let count = tables.iter().find(|t| t.name == "count").expect("a /count topic");
/// let rows: usize = scan(&log, count, &ScanOptions::default())?
///     .map(|b| b.map(|b| b.num_rows()))
///     .sum::<Result<_, _>>()?;
/// assert_eq!(rows, 30);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn scan<'a>(
    log: &'a Log<'a>,
    table: &Table,
    opts: &ScanOptions,
) -> Result<BatchReader<'a>, Error> {
    let full = table.schema();
    let names: Vec<String> = match &opts.projection {
        Some(p) => p.clone(),
        None => full.fields().iter().map(|f| f.name().clone()).collect(),
    };
    let mut sources = Vec::with_capacity(names.len());
    let mut out_fields = Vec::with_capacity(names.len());
    for n in &names {
        let Ok(idx) = full.index_of(n) else {
            return Err(Error::NoColumn {
                table: table.name.clone(),
                column: n.clone(),
            });
        };
        out_fields.push(full.field(idx).clone());
        let src = match n.as_str() {
            LOG_TIME => Source::LogTime,
            PUBLISH_TIME if table.columns.contains(&MessageColumn::PublishTime) => {
                Source::PublishTime
            }
            SEQUENCE if table.columns.contains(&MessageColumn::Sequence) => Source::Sequence,
            MULTI_ID if table.columns.contains(&MessageColumn::MultiId) => Source::MultiId,
            _ => match &table.fields {
                Some(fs) => {
                    let k = fs
                        .iter()
                        .position(|f| f.name == n.as_str())
                        .ok_or_else(|| Error::NoColumn {
                            table: table.name.clone(),
                            column: n.clone(),
                        })?;
                    Source::Field(k, fs[k].clone())
                }
                None => Source::Data(table.value_type.clone()),
            },
        };
        sources.push(src);
    }
    let schema = Arc::new(Schema::new_with_metadata(
        out_fields,
        full.metadata().clone(),
    ));
    let decode = sources
        .iter()
        .any(|s| matches!(s, Source::Field(..) | Source::Data(_)));
    let fields = sources.iter().any(|s| matches!(s, Source::Field(..)));
    let mut filter = MessageFilter::all()
        .channels(table.channels.iter().map(|c| c.id))
        .mode(if opts.lenient {
            ReadMode::Lenient
        } else {
            ReadMode::Strict
        });
    if let Some(s) = opts.start {
        filter = filter.start(s);
    }
    if let Some(e) = opts.end {
        filter = filter.end(e);
    }
    let multi_ids = table
        .channels
        .iter()
        .map(|c| {
            let id = c
                .metadata
                .get("multi_id")
                .and_then(|m| m.parse().ok())
                .unwrap_or(0);
            (c.id, id)
        })
        .collect();
    let prebuilt = if opts.typed_columns && log.as_ulog().is_some() {
        crate::ulog::batches(log, table, &sources, &schema, opts).transpose()?
    } else {
        None
    };
    let messages = match prebuilt {
        Some(_) => None,
        None => Some(log.messages(&filter)?),
    };
    Ok(BatchReader {
        log,
        messages,
        prebuilt: prebuilt.map(Vec::into_iter),
        schema,
        sources,
        decode,
        fields,
        batch_size: opts.batch_size.max(1),
        lenient: opts.lenient,
        multi_ids,
        table: table.name.clone(),
        skipped: 0,
        undecoded: 0,
        first_undecoded: None,
        done: false,
    })
}

impl BatchReader<'_> {
    /// The schema of the batches (the projected columns).
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Whether the rows come from the format's typed column readers
    /// ([`ScanOptions::typed_columns`]) rather than decoded messages.
    pub fn typed_columns(&self) -> bool {
        self.prebuilt.is_some()
    }

    /// Damaged records skipped so far (lenient scans only).
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Messages so far that did not decode, or whose value is not a
    /// message with fields where the table's columns are fields (lenient
    /// scans only): each is a row whose message columns are null. Only
    /// counted when a message column is read: a scan of the time columns
    /// alone decodes nothing, and gives the same rows.
    pub fn undecoded(&self) -> u64 {
        self.undecoded
    }

    /// The first of the [`undecoded`](Self::undecoded) messages.
    pub fn first_undecoded(&self) -> Option<&Undecoded> {
        self.first_undecoded.as_ref()
    }

    /// Changes the rows of the batches still to come (at least 1): a
    /// reader of large messages (images, point clouds) shrinks its batches
    /// to bound the memory one batch takes.
    pub fn set_batch_size(&mut self, rows: usize) {
        self.batch_size = rows.max(1);
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>, Error> {
        let mut metas: Vec<RowMeta> = Vec::with_capacity(self.batch_size.min(65_536));
        let mut values: Vec<Value> = Vec::new();
        let Some(messages) = self.messages.as_mut() else {
            self.done = true;
            return Ok(None);
        };
        while metas.len() < self.batch_size {
            let Some(m) = messages.next() else {
                self.done = true;
                break;
            };
            let m: Message<'_> = match m {
                Ok(m) => m,
                Err(e) if self.lenient && skippable(&e) => {
                    self.skipped += 1;
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            if self.decode {
                match self.log.decode(&m) {
                    Ok(v) if self.fields && !matches!(v, Value::Struct(_)) => {
                        if !self.lenient {
                            return Err(Error::Misfit {
                                table: self.table.clone(),
                                offset: m.offset.unwrap_or(0),
                                reason: "not a message with fields".into(),
                            });
                        }
                        self.undecoded += 1;
                        self.first_undecoded.get_or_insert_with(|| Undecoded {
                            offset: m.offset.unwrap_or(0),
                            reason: "not a message with fields".into(),
                        });
                        values.push(Value::Null);
                    }
                    Ok(v) => values.push(v),
                    Err(e) if self.lenient => {
                        self.undecoded += 1;
                        self.first_undecoded.get_or_insert_with(|| Undecoded {
                            offset: m.offset.unwrap_or(0),
                            reason: e.to_string(),
                        });
                        values.push(Value::Null);
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            metas.push((
                m.log_time,
                m.publish_time,
                m.sequence,
                m.channel,
                m.offset.unwrap_or(0),
            ));
        }
        if metas.is_empty() {
            return Ok(None);
        }
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.sources.len());
        let mut rows: Vec<Option<&Value>> = Vec::with_capacity(metas.len());
        for src in &self.sources {
            let col: ArrayRef = match src {
                Source::LogTime => {
                    Arc::new(PrimitiveArray::<TimestampNanosecondType>::from_iter_values(
                        metas.iter().map(|m| m.0.as_nanos()),
                    ))
                }
                Source::PublishTime => Arc::new(PrimitiveArray::<TimestampNanosecondType>::from(
                    metas
                        .iter()
                        .map(|m| m.1.map(Timestamp::as_nanos))
                        .collect::<Vec<_>>(),
                )),
                Source::Sequence => Arc::new(PrimitiveArray::<UInt32Type>::from(
                    metas
                        .iter()
                        .map(|m| m.2.and_then(|s| u32::try_from(s).ok()))
                        .collect::<Vec<_>>(),
                )),
                Source::MultiId => Arc::new(PrimitiveArray::<UInt8Type>::from_iter_values(
                    metas
                        .iter()
                        .map(|m| self.multi_ids.get(&m.3).copied().unwrap_or(0)),
                )),
                Source::Field(k, f) => {
                    rows.clear();
                    rows.extend(values.iter().map(|v| match v {
                        Value::Struct(vf) => field_at(vf, *k, original_name(&f.name)),
                        _ => None,
                    }));
                    build::build(&f.ty, &rows).map_err(|m| self.misfit(&metas, m, &f.name))?
                }
                Source::Data(t) => {
                    rows.clear();
                    rows.extend(values.iter().map(Some));
                    build::build(t, &rows).map_err(|m| self.misfit(&metas, m, DATA))?
                }
            };
            columns.push(col);
        }
        let opts = RecordBatchOptions::new().with_row_count(Some(metas.len()));
        Ok(Some(RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &opts,
        )?))
    }

    fn misfit(&self, metas: &[RowMeta], m: build::Misfit, column: &str) -> Error {
        Error::Misfit {
            table: self.table.clone(),
            offset: metas.get(m.row).map_or(0, |x| x.4),
            reason: format!("{column}: {}", m.reason),
        }
    }
}

/// The message field's name before a reserved name got its trailing `_`.
pub(crate) fn original_name(column: &str) -> &str {
    match column.strip_suffix('_') {
        Some(base) if RESERVED.contains(&base) => base,
        _ => column,
    }
}

/// Errors a lenient scan skips: damaged or skipped records, not I/O.
fn skippable(e: &LogError) -> bool {
    !matches!(e, LogError::Io(_))
}

impl Iterator for BatchReader<'_> {
    type Item = Result<RecordBatch, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(pre) = self.prebuilt.as_mut() {
            return pre.next().map(Ok);
        }
        if self.done {
            return None;
        }
        match self.next_batch() {
            Ok(Some(b)) => Some(Ok(b)),
            Ok(None) => None,
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// The metadata of a log as one JSON object of strings (its summary's
/// metadata: ULog info and parameters, MCAP metadata records, ...).
pub fn metadata_json(summary: &Summary) -> String {
    let m: BTreeMap<&String, &String> = summary.metadata.iter().collect();
    serde_json::to_string(&m).unwrap_or_else(|_| "{}".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use logcore::ChannelId;

    /// A reader that only says what its tables are keyed by: the message
    /// name where `by_type`, else the topic.
    struct Keyed {
        by_type: bool,
    }

    impl LogReader for Keyed {
        fn format(&self) -> Format {
            Format::Mcap
        }
        fn summary(&self) -> logcore::Result<Summary> {
            Err(LogError::unsupported(0, "a summary", "none in this test"))
        }
        fn channels(&self) -> logcore::Result<Vec<ChannelInfo>> {
            Ok(Vec::new())
        }
        fn messages<'a>(&'a self, _: &MessageFilter) -> logcore::Result<MessageIter<'a>> {
            Ok(Box::new(std::iter::empty()))
        }
        fn decode(&self, _: &Message<'_>) -> logcore::Result<Value> {
            Ok(Value::Null)
        }
        fn table_key<'c>(&self, channel: &'c ChannelInfo) -> &'c str {
            if self.by_type {
                &channel.type_name
            } else {
                &channel.topic
            }
        }
    }

    #[test]
    fn channels_are_matched_to_their_table_names() {
        let cases = [
            (false, "/camera/image_raw", "x", "camera_image_raw"),
            (false, "/logs", "x", "logs_"),
            (false, "/", "x", "_"),
            (false, "count", "x", "count"),
            (false, "/a.b-c", "x", "a_b_c"),
            (
                true,
                "vehicle_status[1]",
                "vehicle_status",
                "vehicle_status",
            ),
            (true, "t", "logs", "logs_"),
            // Letters of any script are kept (SQL takes them quoted).
            (true, "t", "é", "é"),
            (false, "/温度", "x", "温度"),
        ];
        for (by_type, topic, ty, want) in cases {
            let log = Keyed { by_type };
            let c = ChannelInfo::new(ChannelId(0), topic, ty, "x");
            assert_eq!(table_name(&log, &c), want, "{topic} {ty}");
            let key = table_key(&log, &c);
            assert!(may_name(key, want), "{topic} {ty}");
            assert!(!may_name(key, "camera"), "{topic} {ty}");
            assert!(!may_name(key, &format!("{want}_x")), "{topic} {ty}");
            if by_type {
                assert!(ulog_in_table(ty, want), "{ty}");
                assert!(!ulog_in_table(ty, "camera"), "{ty}");
            }
        }
        // The ULog reader keys by message name, the others by topic.
        let ulog = robolog::open(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/ulog/example.ulg"
        ))
        .unwrap();
        let c = ChannelInfo::new(ChannelId(0), "vehicle_status[1]", "vehicle_status", "x");
        assert_eq!(table_key(&ulog, &c), "vehicle_status");
        let bag = robolog::open(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/rosbag/sample.bag"
        ))
        .unwrap();
        assert_eq!(table_key(&bag, &c), "vehicle_status[1]");
    }
}
