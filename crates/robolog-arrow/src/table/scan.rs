//! What a [`scan`] reads and how it batches ([`ScanOptions`]), the column
//! sources it resolves the projection to, and the [`BatchReader`] it
//! returns.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};
use logcore::{
    ChannelId, ChannelInfo, FieldName, LogReader, MessageColumn, MessageFilter, MessageIter,
    ReadMode, Timestamp, Value, ValueType,
};
use robolog::Log;

use super::Table;
use super::schema::{LOG_TIME, LOG_TIME_UTC, MULTI_ID, PUBLISH_TIME, SEQUENCE, original_name};
use crate::Error;
use crate::build::Column;
use crate::build::direct::{Plan, Plans};
use crate::build::{cdr, ros1};

/// The batch size [`ScanOptions::default`] uses.
pub const DEFAULT_BATCH_SIZE: usize = 8192;

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

/// What one output column is made from.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    /// The message's log time, of this type (see
    /// [`log_time_type`](crate::log_time_type)).
    LogTime(arrow_schema::DataType),
    /// The message's log time in UTC (`None`: the log has none).
    LogTimeUtc(Option<logcore::TimeModel>),
    /// The message's publish time.
    PublishTime,
    /// The message's sequence number.
    Sequence,
    /// The ULog multi-instance id of the message's channel.
    MultiId,
    /// Message field `k` (declared at position `k`) of this type.
    Field(usize, logcore::Field),
    /// The whole value.
    Data(ValueType),
}

/// Streams a table's rows as [`RecordBatch`]es of at most
/// [`ScanOptions::batch_size`] rows: each message is decoded (into the
/// allocations of the one before) and appended to the batch's Arrow
/// buffers, so memory is bounded by one batch's arrays. Time filters and the table's channels go to the
/// format's index ([`MessageFilter`]).
pub struct BatchReader<'a> {
    /// The log read.
    pub(super) log: &'a Log<'a>,
    /// The table's messages; `None` when the batches are prebuilt.
    pub(super) messages: Option<MessageIter<'a>>,
    /// The batches of the typed column readers, where those apply.
    pub(super) prebuilt: Option<std::vec::IntoIter<RecordBatch>>,
    /// The schema of the batches (the projected columns).
    pub(super) schema: SchemaRef,
    /// What each column of the batches is made from.
    pub(super) sources: Vec<Source>,
    /// Whether a message column is read (messages are decoded).
    pub(super) decode: bool,
    /// Whether message fields are columns (a value must be a struct).
    pub(super) fields: bool,
    /// Rows per batch (at least 1).
    pub(super) batch_size: usize,
    /// Whether damaged records and undecodable messages are skipped.
    pub(super) lenient: bool,
    /// The ULog multi-instance id of each channel.
    pub(super) multi_ids: HashMap<ChannelId, u8>,
    /// The table's name, for errors.
    pub(super) table: String,
    /// Damaged records skipped so far.
    pub(super) skipped: u64,
    /// The byte offsets of those that have one, in the order met.
    pub(super) skipped_at: Vec<u64>,
    /// Messages so far that did not decode.
    pub(super) undecoded: u64,
    /// The first of them.
    pub(super) first_undecoded: Option<Undecoded>,
    /// Whether the messages are exhausted (or failed).
    pub(super) done: bool,
    /// The column being built for each message source (`None` for the
    /// message facts: times, sequence, multi id).
    pub(super) columns: Vec<Option<Column>>,
    /// The last decoded message, whose allocations the next one reuses.
    pub(super) value: Value,
    /// The names the message gives each field column (`None` for other
    /// columns).
    pub(super) names: Vec<Option<FieldName>>,
    /// For the channels whose declared type is the table's, of a ROS 1
    /// bag or in CDR (ROS 2 MCAP, ROS 2 bags): how their messages go
    /// straight into the columns. Tests clear it to read every message
    /// through the general path.
    pub(crate) plans: Plans,
}

/// The first message of a lenient [`scan`] that did not decode (or whose
/// value is not a message with fields where the table has them): its row
/// is kept with null message columns. The type of every export's report.
pub use robolog::export::Undecoded;

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

/// Reads `table` of `log` (a table [`tables`](super::tables) returned for this log).
///
/// A table of another log is refused ([`Error::OtherLog`]) unless this
/// log has each of its channels, with the same id, topic and type (a log
/// written by the same recorder with the same topics).
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
    let theirs = log.channels()?;
    same_channels(&channel_index(&theirs), table)?;
    reader(log, table, opts, true)
}

/// The reader of `table` (a table of `log`: see [`same_channels`]):
/// reading its own messages when `own`, or fed by a pass over several
/// tables ([`scan_tables`](super::scan_tables)).
pub(super) fn reader<'a>(
    log: &'a Log<'a>,
    table: &Table,
    opts: &ScanOptions,
    own: bool,
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
            LOG_TIME => Source::LogTime(full.field(idx).data_type().clone()),
            LOG_TIME_UTC => Source::LogTimeUtc(table.utc),
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
    let prebuilt = if own && opts.typed_columns && log.as_ulog().is_some() {
        crate::ulog::batches(log, table, &sources, &schema, opts).transpose()?
    } else {
        None
    };
    let messages = match prebuilt {
        None if own => Some(log.messages(&filter)?),
        _ => None,
    };
    // The columns' first allocation: a batch's rows, or the table's when
    // fewer (a pass holds a batch of every table at once).
    let rows = opts
        .batch_size
        .clamp(1, 65_536)
        .min(usize::try_from(table.message_count.max(1)).unwrap_or(usize::MAX));
    let columns = sources
        .iter()
        .map(|s| match s {
            Source::Field(_, f) => Some(Column::new(&f.ty, rows)),
            Source::Data(t) => Some(Column::new(t, rows)),
            _ => None,
        })
        .collect();
    let names = sources
        .iter()
        .map(|s| match s {
            Source::Field(_, f) => Some(FieldName::from(original_name(&f.name))),
            _ => None,
        })
        .collect();
    let plans = if decode {
        plans(log, table, &sources)
    } else {
        Plans::new()
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
        skipped_at: Vec::new(),
        undecoded: 0,
        first_undecoded: None,
        done: false,
        columns,
        value: Value::Null,
        names,
        plans,
    })
}

/// The [`Plan`]s of the table's channels, where the columns are message
/// fields (each at most once) and a channel's declared type is the
/// table's: every channel of a ROS 1 bag, and the channels whose CDR
/// payloads the log decodes with ros2cdr (ROS 2 MCAP channels, ROS 2
/// bags' topics: [`Log::with_cdr_type`]).
fn plans(log: &Log<'_>, table: &Table, sources: &[Source]) -> Plans {
    let Some(fields) = table.fields.as_ref() else {
        return Plans::new();
    };
    let mut columns: Vec<Option<usize>> = vec![None; fields.len()];
    for (i, s) in sources.iter().enumerate() {
        match s {
            Source::Field(k, _) => match columns.get_mut(*k) {
                Some(slot @ None) => *slot = Some(i),
                _ => return Plans::new(),
            },
            Source::Data(_) => return Plans::new(),
            _ => {}
        }
    }
    let bag = log.as_bag();
    table
        .channels
        .iter()
        .filter_map(|c| {
            let plan = match bag {
                Some(bag) => {
                    let t = bag.message_type(c.id.0).ok()?;
                    Plan::Ros1(ros1::Plan::new(&t, &table.value_type, columns.clone())?)
                }
                None => log
                    .with_cdr_type(c.id, |t| {
                        cdr::Plan::new(t, &table.value_type, columns.clone())
                    })
                    .flatten()
                    .map(Plan::Cdr)?,
            };
            Some((c.id, plan))
        })
        .collect()
}

/// A log's channels by id.
pub(super) fn channel_index(channels: &[ChannelInfo]) -> HashMap<ChannelId, &ChannelInfo> {
    channels.iter().map(|c| (c.id, c)).collect()
}

/// [`Error::OtherLog`] unless the log whose channels are `by_id` (see
/// [`channel_index`]) has every channel of `table`.
pub(super) fn same_channels(
    by_id: &HashMap<ChannelId, &ChannelInfo>,
    table: &Table,
) -> Result<(), Error> {
    for c in &table.channels {
        match by_id.get(&c.id) {
            Some(o) if o.topic == c.topic && o.type_name == c.type_name => {}
            _ => {
                return Err(Error::OtherLog {
                    table: table.name.clone(),
                    channel: c.id.0,
                    topic: c.topic.clone(),
                    type_name: c.type_name.clone(),
                });
            }
        }
    }
    Ok(())
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

    /// The byte offsets of the [`skipped`](Self::skipped) records that
    /// have one, in the order met: scans of parts of a log (time ranges)
    /// may each meet the same damaged record (a chunk spanning both, what
    /// the reader lost on opening), and count it once by its offset.
    pub fn skipped_offsets(&self) -> &[u64] {
        &self.skipped_at
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
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The bytes of the committed fixture `name` (below `testdata/`).
    pub(crate) fn open(name: &str) -> Vec<u8> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/");
        std::fs::read(format!("{root}{name}")).unwrap()
    }

    #[test]
    fn a_table_scans_only_in_a_log_with_its_channels() {
        let bag = open("rosbag/sample.bag");
        let lz4 = open("rosbag/sample-lz4.bag");
        let ulog = open("ulog/example.ulg");
        let bag = robolog::open_bytes(&bag).unwrap();
        let count = super::super::tables(&bag)
            .unwrap()
            .into_iter()
            .find(|t| t.name == "count")
            .unwrap();
        let rows = |log| -> Result<usize, Error> {
            scan(log, &count, &ScanOptions::default())?
                .map(|b| b.map(|b| b.num_rows()))
                .sum()
        };
        assert_eq!(rows(&bag).unwrap(), 30);
        // The same recording, compressed: the same channels.
        let same = robolog::open_bytes(&lz4).unwrap();
        assert_eq!(rows(&same).unwrap(), 30);
        let other = robolog::open_bytes(&ulog).unwrap();
        match rows(&other) {
            Err(Error::OtherLog { table, topic, .. }) => {
                assert_eq!((table.as_str(), topic.as_str()), ("count", "/count"))
            }
            r => panic!("{r:?}"),
        }
    }
}
