//! Several tables of a log read in one pass over its messages
//! ([`scan_tables`]): each message goes to its table's batch, and a batch is
//! handed out when it is full. A log without an index by channel (a VEL
//! log, an unindexed bag) is read once, not once per table.

use std::collections::{BTreeMap, HashMap, VecDeque};

use arrow_array::RecordBatch;
use logcore::{
    ChannelId, Error as LogError, LogReader, MessageFilter, MessageIter, ReadMode, Timestamp,
};
use robolog::{DecodeFailures, Log};

use super::batch::{RowMeta, page, skippable};
use super::scan::{channel_index, reader, same_channels};
use super::{BatchReader, ScanOptions, Table};
use crate::Error;

/// The payload bytes a table's batch holds at most before it is handed
/// out, whatever its rows: a pass over tables of images or clouds keeps
/// one bounded batch per table.
pub const MAX_BATCH_PAYLOAD: usize = 16 << 20;

/// Rows of one table, read by a [`TablesScan`].
#[derive(Debug, Clone)]
pub struct TableBatch {
    /// The table's index in the tables given to [`scan_tables`].
    pub table: usize,
    /// The rows, in the table's schema (projected as asked).
    pub batch: RecordBatch,
    /// The channel of each row.
    pub channels: Vec<ChannelId>,
    /// The place of each row's message in the pass (0 for the first
    /// message read, counting every table's messages and the damaged
    /// records skipped): rows of different tables compare by it.
    pub ordinals: Vec<u64>,
}

/// A damaged record a lenient [`TablesScan`] skipped.
#[derive(Debug, Clone)]
pub struct SkippedRecord {
    /// Its place in the pass (see [`TableBatch::ordinals`]).
    pub ordinal: u64,
    /// The log time of the last message read before it.
    pub after: Option<Timestamp>,
    /// What was wrong.
    pub error: LogError,
}

/// What a [`TablesScan`] hands out, in the order met: a table's batch
/// when it is full (or at the end), or a damaged record when it is skipped.
#[derive(Debug)]
pub enum PassItem {
    /// Rows of one table.
    Batch(TableBatch),
    /// A damaged record, skipped.
    Skipped(SkippedRecord),
    /// A table left out from here on (lenient passes): a value that does
    /// not fit its type ([`Error::Misfit`]). Its rows handed out before
    /// stay valid; the other tables go on.
    Failed {
        /// The table's index in the tables given to [`scan_tables`].
        table: usize,
        /// What did not fit.
        error: Error,
    },
}

/// The rows of one table waiting for their batch.
struct Pending {
    metas: Vec<RowMeta>,
    ordinals: Vec<u64>,
    bytes: usize,
}

/// Reads several tables of a log in one pass: see [`scan_tables`].
pub struct TablesScan<'a> {
    log: &'a Log<'a>,
    messages: MessageIter<'a>,
    readers: Vec<BatchReader<'a>>,
    pending: Vec<Pending>,
    by_channel: HashMap<ChannelId, usize>,
    batch_size: usize,
    lenient: bool,
    ordinal: u64,
    last_time: Option<Timestamp>,
    /// The first byte offset not yet released.
    released: Option<u64>,
    ready: VecDeque<PassItem>,
    failures: BTreeMap<ChannelId, DecodeFailures>,
    done: bool,
}

impl std::fmt::Debug for TablesScan<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TablesScan")
            .field("tables", &self.readers.len())
            .field("ordinal", &self.ordinal)
            .finish_non_exhaustive()
    }
}

/// Reads `tables` of `log` (tables [`tables`](super::tables) returned for
/// this log) in one pass over the log's messages, in the log's order.
///
/// `projections` is empty (every column of each table) or holds one
/// projection per table (as [`ScanOptions::projection`], which is not
/// used here). The rest of `opts` applies to every table;
/// [`ScanOptions::typed_columns`] does not apply: every message is
/// decoded. Batches hold at most [`ScanOptions::batch_size`] rows and
/// about [`MAX_BATCH_PAYLOAD`] payload bytes. A lenient pass hands out the
/// damaged records it skips ([`PassItem::Skipped`]) and the tables it
/// leaves out ([`PassItem::Failed`]), and keeps, per channel, the
/// messages that did not decode ([`TablesScan::failures`]).
///
/// ```
/// use robolog_arrow::{PassItem, ScanOptions, scan_tables, tables};
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
/// let log = robolog::open(path)?;
/// let tables = tables(&log)?;
/// let mut rows = vec![0; tables.len()];
/// for item in scan_tables(&log, &tables, &[], &ScanOptions::default())? {
///     if let PassItem::Batch(b) = item? {
///         rows[b.table] += b.batch.num_rows();
///     }
/// }
/// let count = tables.iter().position(|t| t.name == "count").expect("a /count topic");
/// assert_eq!(rows[count], 30);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn scan_tables<'a>(
    log: &'a Log<'a>,
    tables: &[Table],
    projections: &[Option<Vec<String>>],
    opts: &ScanOptions,
) -> Result<TablesScan<'a>, Error> {
    if !projections.is_empty() && projections.len() != tables.len() {
        return Err(Error::Log(LogError::invalid_argument(format!(
            "{} projections for {} tables",
            projections.len(),
            tables.len()
        ))));
    }
    let theirs = log.channels()?;
    let index = channel_index(&theirs);
    let mut readers = Vec::with_capacity(tables.len());
    let mut by_channel = HashMap::new();
    for (i, t) in tables.iter().enumerate() {
        same_channels(&index, t)?;
        let own = ScanOptions {
            projection: projections.get(i).cloned().flatten(),
            ..opts.clone()
        };
        readers.push(reader(log, t, &own, false)?);
        for c in &t.channels {
            by_channel.insert(c.id, i);
        }
    }
    let mut filter = MessageFilter::all().mode(if opts.lenient {
        ReadMode::Lenient
    } else {
        ReadMode::Strict
    });
    // Every channel of the log: no channel filter, which a storage may
    // apply per query (a ROS 2 bag's SQL lists the topics).
    let every = log
        .channels()?
        .iter()
        .all(|c| by_channel.contains_key(&c.id));
    if !every {
        filter = filter.channels(by_channel.keys().copied());
    }
    if let Some(s) = opts.start {
        filter = filter.start(s);
    }
    if let Some(e) = opts.end {
        filter = filter.end(e);
    }
    let pending = tables
        .iter()
        .map(|_| Pending {
            metas: Vec::new(),
            ordinals: Vec::new(),
            bytes: 0,
        })
        .collect();
    Ok(TablesScan {
        log,
        messages: log.messages(&filter)?,
        readers,
        pending,
        by_channel,
        batch_size: opts.batch_size.clamp(1, 65_536),
        lenient: opts.lenient,
        ordinal: 0,
        last_time: None,
        released: None,
        ready: VecDeque::new(),
        failures: BTreeMap::new(),
        done: false,
    })
}

impl<'a> TablesScan<'a> {
    /// The messages of each channel that did not decode so far (lenient
    /// passes; each a row whose message columns are null), by channel.
    pub fn failures(&self) -> &BTreeMap<ChannelId, DecodeFailures> {
        &self.failures
    }

    /// The readers of the tables, in the order given: what each counted
    /// (see [`BatchReader::skipped`] and [`BatchReader::undecoded`]; the
    /// damaged records of the pass are counted by the first).
    pub fn readers(&self) -> &[BatchReader<'a>] {
        &self.readers
    }

    /// Leaves table `i` out from here on, for `error` (a lenient pass), or
    /// fails the pass.
    fn fail(&mut self, i: usize, error: Error) -> Result<(), Error> {
        if !(self.lenient && matches!(error, Error::Misfit { .. })) {
            return Err(error);
        }
        self.by_channel.retain(|_, t| *t != i);
        let p = &mut self.pending[i];
        p.metas = Vec::new();
        p.ordinals = Vec::new();
        p.bytes = 0;
        self.ready.push_back(PassItem::Failed { table: i, error });
        Ok(())
    }

    /// Hands out table `i`'s pending rows as a batch.
    fn flush(&mut self, i: usize) -> Result<(), Error> {
        let p = &mut self.pending[i];
        if p.metas.is_empty() {
            return Ok(());
        }
        let metas = std::mem::take(&mut p.metas);
        let ordinals = std::mem::take(&mut p.ordinals);
        p.bytes = 0;
        let batch = match self.readers[i].finish(&metas) {
            Ok(b) => b,
            Err(e) => return self.fail(i, e),
        };
        self.ready.push_back(PassItem::Batch(TableBatch {
            table: i,
            batch,
            channels: metas.iter().map(|m| m.channel).collect(),
            ordinals,
        }));
        Ok(())
    }

    /// Reads messages until an item is ready or the log ends.
    fn fill(&mut self) -> Result<(), Error> {
        while self.ready.is_empty() {
            let Some(m) = self.messages.next() else {
                self.done = true;
                for i in 0..self.readers.len() {
                    self.flush(i)?;
                }
                return Ok(());
            };
            let ordinal = self.ordinal;
            self.ordinal += 1;
            let m = match m {
                Ok(m) => m,
                Err(e) if self.lenient && skippable(&e) => {
                    if let Some(r) = self.readers.first_mut() {
                        r.skip(&e);
                    }
                    self.ready.push_back(PassItem::Skipped(SkippedRecord {
                        ordinal,
                        after: self.last_time,
                        error: e,
                    }));
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            self.last_time = Some(m.log_time);
            let Some(&i) = self.by_channel.get(&m.channel) else {
                continue;
            };
            let p = &mut self.pending[i];
            let failure = match self.readers[i].push(&m, &mut p.metas) {
                Ok(f) => f,
                Err(e) => {
                    self.fail(i, e)?;
                    continue;
                }
            };
            if let Some(e) = failure {
                self.failures
                    .entry(m.channel)
                    .and_modify(|f| f.count += 1)
                    .or_insert(DecodeFailures {
                        channel: m.channel,
                        count: 1,
                        first: e,
                    });
            }
            let p = &mut self.pending[i];
            p.ordinals.push(ordinal);
            p.bytes += m.payload.len();
            if p.metas.len() >= self.batch_size || p.bytes >= MAX_BATCH_PAYLOAD {
                self.flush(i)?;
                // Every pending row is copied into its columns: the pages
                // read so far need not stay in memory (the last message's
                // page may hold the next one, so it stays).
                if let Some(at) = m.offset {
                    let from = self.released.unwrap_or(0);
                    self.log.release(page(from)..page(at));
                    self.released = Some(at);
                }
            }
        }
        Ok(())
    }
}

impl Iterator for TablesScan<'_> {
    type Item = Result<PassItem, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.ready.is_empty() && !self.done {
            if let Err(e) = self.fill() {
                self.done = true;
                self.ready.clear();
                return Some(Err(e));
            }
        }
        self.ready.pop_front().map(Ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::scan::tests::open;
    use crate::table::{scan, tables};
    use arrow_array::Array;

    /// The pass gives every table the rows its own scan gives, in order,
    /// and the ordinals put the rows of all tables in the log's order.
    #[test]
    fn one_pass_gives_each_tables_scan() {
        for name in [
            "rosbag/sample.bag",
            "vellog/sensors.vel",
            "ulog/example.ulg",
        ] {
            let bytes = open(name);
            let log = robolog::open_bytes(&bytes).unwrap();
            let ts = tables(&log).unwrap();
            let opts = ScanOptions {
                batch_size: 7,
                typed_columns: false,
                ..ScanOptions::default()
            };
            let mut got: Vec<Vec<RecordBatch>> = vec![Vec::new(); ts.len()];
            let mut times: Vec<(u64, i64)> = Vec::new();
            for item in scan_tables(&log, &ts, &[], &opts).unwrap() {
                let PassItem::Batch(b) = item.unwrap() else {
                    panic!("{name}: a damaged record in a sound log");
                };
                assert!(b.batch.num_rows() <= 7);
                assert_eq!(b.channels.len(), b.batch.num_rows());
                let t = crate::log_time_values(b.batch.column(0)).unwrap();
                times.extend(b.ordinals.iter().zip(t).map(|(o, t)| (*o, *t)));
                got[b.table].push(b.batch);
            }
            for (t, batches) in ts.iter().zip(&got) {
                let own: Vec<RecordBatch> = scan(&log, t, &opts)
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                let a = arrow_select::concat::concat_batches(&t.schema(), batches).unwrap();
                let b = arrow_select::concat::concat_batches(&t.schema(), &own).unwrap();
                assert_eq!(a, b, "{name}: table {}", t.name);
                assert!(a.num_rows() > 0 && a.column(0).null_count() == 0);
            }
            times.sort();
            let total: u64 = ts.iter().map(|t| t.message_count).sum();
            assert_eq!(times.len() as u64, total, "{name}");
            let ordinals: Vec<u64> = times.iter().map(|t| t.0).collect();
            assert_eq!(ordinals, (0..total).collect::<Vec<_>>(), "{name}");
        }
    }

    /// A damaged record is handed out in its place in the pass, after the
    /// rows before it.
    #[test]
    fn damaged_records_come_in_their_place() {
        let mut bytes = open("vellog/sensors.vel");
        let cut = bytes.len() / 2;
        // A record header in the middle with an impossible length.
        for b in &mut bytes[cut..cut + 64] {
            *b = 0xff;
        }
        let log = robolog::open_bytes(&bytes).unwrap();
        let ts = tables(&log).unwrap();
        let mut max_before = None;
        let mut skipped = Vec::new();
        let mut rows = Vec::new();
        for item in scan_tables(&log, &ts, &[], &ScanOptions::default()).unwrap() {
            match item.unwrap() {
                PassItem::Skipped(s) => {
                    skipped.push(s.ordinal);
                    max_before = Some(s.after);
                }
                PassItem::Batch(b) => rows.extend(b.ordinals),
                PassItem::Failed { error, .. } => panic!("{error}"),
            }
        }
        assert!(!skipped.is_empty(), "the damage is met");
        assert!(max_before.is_some());
        rows.extend(&skipped);
        rows.sort_unstable();
        assert_eq!(rows, (0..rows.len() as u64).collect::<Vec<_>>());
    }
}
