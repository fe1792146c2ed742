//! A whole table read into memory: large tables of logs whose messages are
//! decoded one by one are read as two halves of their time span at once,
//! on two cores, and joined in order.

use std::collections::BTreeSet;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use logcore::{Summary, Timestamp};
use robolog::Log;

use super::Table;
use super::scan::{BatchReader, ScanOptions, Undecoded, scan};
use crate::Error;

/// Tables of at least this many messages are read in two time ranges at
/// once, on two threads, where the machine has them.
pub const SPLIT_MESSAGES: u64 = 50_000;

/// The rows of a table and what reading them met: [`read_table`]'s
/// result.
#[derive(Debug)]
pub struct TableRead {
    /// The schema of the rows (the projection's columns).
    pub schema: SchemaRef,
    /// The rows, in log-time order as one scan gives them.
    pub batches: Vec<RecordBatch>,
    /// Damaged records skipped: each counted once, also when two halves
    /// met the same one (a chunk spanning both).
    pub skipped: u64,
    /// Messages whose payload did not decode (their rows have null
    /// message columns).
    pub undecoded: u64,
    /// The first of them: where, and why.
    pub first_undecoded: Option<Undecoded>,
}

impl TableRead {
    /// The rows `batches` that `reader` gave and what it met besides
    /// (for a scan read to its end by its caller).
    pub fn of_reader(reader: &BatchReader<'_>, batches: Vec<RecordBatch>) -> TableRead {
        Part::of(reader, batches).into_read()
    }
}

/// What one reader met, before the halves are joined.
struct Part {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    /// Skipped records without an offset...
    skipped: u64,
    /// ...and the offsets of the others, each counted once when joined.
    skipped_at: BTreeSet<u64>,
    undecoded: u64,
    first_undecoded: Option<Undecoded>,
}

impl Part {
    fn of(reader: &BatchReader<'_>, batches: Vec<RecordBatch>) -> Part {
        let offsets = reader.skipped_offsets();
        Part {
            schema: reader.schema(),
            batches,
            skipped: reader.skipped().saturating_sub(offsets.len() as u64),
            skipped_at: offsets.iter().copied().collect(),
            undecoded: reader.undecoded(),
            first_undecoded: reader.first_undecoded().cloned(),
        }
    }

    fn into_read(self) -> TableRead {
        TableRead {
            schema: self.schema,
            batches: self.batches,
            skipped: self.skipped + self.skipped_at.len() as u64,
            undecoded: self.undecoded,
            first_undecoded: self.first_undecoded,
        }
    }
}

/// Reads the rows of `table` that `opts` selects into memory, as one
/// [`scan`] gives them. A table of at least [`SPLIT_MESSAGES`] messages
/// of a log whose messages are decoded one by one (not a ULog, whose
/// typed column readers read a table in one pass) is read as two halves
/// of its messages' time span (from `summary`), each on a core of its
/// own where the machine has two. Calls [`logcore::interrupt::check`]
/// between batches.
///
/// ```
/// use logcore::LogReader;
/// use robolog_arrow::{ScanOptions, read_table, tables_with_summary};
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
/// let log = robolog::open(path)?;
/// let summary = log.summary()?;
/// let tables = tables_with_summary(&log, &summary)?;
/// let count = tables.iter().find(|t| t.name == "count").expect("a /count topic");
/// let read = read_table(&log, &summary, count, &ScanOptions::default())?;
/// assert_eq!(read.batches.iter().map(|b| b.num_rows()).sum::<usize>(), 30);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_table(
    log: &Log<'_>,
    summary: &Summary,
    table: &Table,
    opts: &ScanOptions,
) -> Result<TableRead, Error> {
    let one = |o: &ScanOptions| -> Result<Part, Error> {
        let mut reader = scan(log, table, o)?;
        let mut batches = Vec::new();
        for b in reader.by_ref() {
            // Ctrl-C between batches (each of a few thousand rows).
            logcore::interrupt::check();
            batches.push(b?);
        }
        Ok(Part::of(&reader, batches))
    };
    let parts = halves(log, summary, table, opts);
    let reads: Vec<Result<Part, Error>> = match parts.as_slice() {
        [only] => vec![one(only)],
        // Each half on a core of its own (an interrupt reaches both at
        // their next batch).
        _ => logcore::parallel::on_cores(parts.iter().collect(), |_| 1, one),
    };
    let mut all: Option<Part> = None;
    for r in reads {
        let r = r?;
        match all.as_mut() {
            None => all = Some(r),
            Some(a) => {
                a.batches.extend(r.batches);
                a.skipped += r.skipped;
                a.skipped_at.extend(r.skipped_at);
                a.undecoded += r.undecoded;
                if a.first_undecoded.is_none() {
                    a.first_undecoded = r.first_undecoded;
                }
            }
        }
    }
    // `halves` gives at least one range.
    let all = all.ok_or_else(|| logcore::Error::invalid_argument("no range of the table read"))?;
    Ok(all.into_read())
}

/// The time ranges `[start, end)` a table is read in, in order: two halves
/// of its messages' time span for a large table of a log whose messages
/// are decoded one by one; else one range, the scan's own.
fn halves(log: &Log<'_>, summary: &Summary, table: &Table, opts: &ScanOptions) -> Vec<ScanOptions> {
    let whole = vec![opts.clone()];
    let threads = logcore::parallel::cores();
    if threads < 2 || table.message_count < SPLIT_MESSAGES || log.as_ulog().is_some() {
        return whole;
    }
    let ids: Vec<_> = table.channels.iter().map(|c| c.id).collect();
    let spans = summary
        .channels
        .iter()
        .filter(|c| ids.contains(&c.info.id))
        .map(|c| (c.start, c.end));
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for (s, e) in spans {
        let (Some(s), Some(e)) = (s, e) else {
            return whole;
        };
        lo = lo.min(s.as_nanos());
        hi = hi.max(e.as_nanos());
    }
    let lo = opts.start.map_or(lo, |s| lo.max(s.as_nanos()));
    let hi = opts
        .end
        .map_or(hi, |e| hi.min(e.as_nanos().saturating_sub(1)));
    if hi.saturating_sub(lo) < 2 {
        return whole;
    }
    let mid = Timestamp(lo + (hi - lo) / 2);
    let mut first = opts.clone();
    first.end = Some(mid);
    let mut second = opts.clone();
    second.start = Some(mid);
    vec![first, second]
}
