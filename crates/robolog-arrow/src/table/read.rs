//! A whole table read into memory: large tables of logs whose messages are
//! decoded one by one are read as pieces of their time span, taken by
//! whichever core is free, and joined in order.

use std::collections::BTreeSet;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use logcore::{Summary, Timestamp};
use robolog::Log;

use super::Table;
use super::scan::{BatchReader, ScanOptions, Undecoded, scan};
use crate::Error;

/// Tables of at least this many messages are read in several time ranges
/// at once, on the machine's cores, where it has more than one.
pub const SPLIT_MESSAGES: u64 = 50_000;

/// A piece of a split table holds about this many messages, and there are
/// at most [`PIECES_PER_CORE`] pieces a core: small enough that a core
/// shared with other work takes fewer of them while a free one takes the
/// rest, large enough that a piece's start (finding its chunks, and
/// decompressing a chunk it shares with its neighbour) stays small.
const PIECE_MESSAGES: u64 = 25_000;

/// At most this many pieces per core.
const PIECES_PER_CORE: usize = 4;

/// The rows of a table and what reading them met: [`read_table`]'s
/// result.
#[derive(Debug)]
pub struct TableRead {
    /// The schema of the rows (the projection's columns).
    pub schema: SchemaRef,
    /// The rows, in log-time order as one scan gives them.
    pub batches: Vec<RecordBatch>,
    /// Damaged records skipped: each counted once, also when two pieces
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

/// What one reader met, before the pieces are joined.
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
/// typed column readers read a table in one pass) is read as pieces of
/// its messages' time span (from `summary`), on the machine's cores where
/// it has more than one: each core takes the next piece when it is done
/// with one, so a core busy with other work holds back only the pieces
/// it took. Calls [`logcore::interrupt::check`] between batches.
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
    let parts = scan_ranges(log, summary, table, opts);
    let reads: Vec<Result<Part, Error>> = match parts.as_slice() {
        [only] => vec![one(only)],
        // The pieces in order, each to the next free core (an interrupt
        // reaches every core at its next batch).
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
    // `pieces` gives at least one range.
    let all = all.ok_or_else(|| logcore::Error::invalid_argument("no range of the table read"))?;
    Ok(all.into_read())
}

/// The time ranges `[start, end)` [`read_table`] reads a table in, in
/// order, as the scans of `opts` cut by time: for a large table (at least
/// [`SPLIT_MESSAGES`] messages) of a log whose messages are decoded one
/// by one, equal pieces of its messages' time span (about 25,000
/// messages each, at least two, at most four a core); else one range,
/// `opts` itself. Every message of the scan of `opts` is in exactly one
/// of them, and scanning them in order gives the messages in the scan's
/// order, so a caller may scan them on several cores
/// ([`logcore::parallel::on_cores`]) and join what each gives in order.
pub fn scan_ranges(
    log: &Log<'_>,
    summary: &Summary,
    table: &Table,
    opts: &ScanOptions,
) -> Vec<ScanOptions> {
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
    let count = usize::try_from(table.message_count / PIECE_MESSAGES)
        .unwrap_or(usize::MAX)
        .clamp(2, threads.saturating_mul(PIECES_PER_CORE));
    let span = i128::from(hi) - i128::from(lo);
    if span < count as i128 {
        return whole;
    }
    // Piece k starts at lo + span * k / count: the first starts where the
    // scan does, the last ends where it does.
    let at = |k: usize| -> Timestamp {
        let t = i128::from(lo) + span * k as i128 / count as i128;
        Timestamp(i64::try_from(t).unwrap_or(hi))
    };
    (0..count)
        .map(|k| {
            let mut piece = opts.clone();
            if k > 0 {
                piece.start = Some(at(k));
            }
            if k + 1 < count {
                piece.end = Some(at(k + 1));
            }
            piece
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{DurationNanosecondType, Int32Type, TimestampNanosecondType};
    use arrow_schema::DataType;
    use logcore::LogReader;

    use super::*;
    use crate::tables_with_summary;

    /// An MCAP of one CDR topic `/n` (an `int32`), `count` messages, three
    /// to each log time (so piece borders fall on shared times), in small
    /// chunks (so chunks span the borders).
    fn numbered(count: i32) -> Vec<u8> {
        let mut w = mcapfile::Writer::new(
            Vec::new(),
            mcapfile::WriteOptions {
                compression: mcapfile::Compression::None,
                chunk_size: 50_000,
                ..Default::default()
            },
        )
        .unwrap();
        let schema = w.add_schema("p/msg/N", "ros2msg", b"int32 n").unwrap();
        let ch = w
            .add_channel(schema, "/n", "cdr", &Default::default())
            .unwrap();
        for i in 0..count {
            let mut payload = vec![0, 1, 0, 0];
            payload.extend_from_slice(&i.to_le_bytes());
            let t = 1_000_000 + u64::try_from(i / 3).unwrap() * 7;
            w.write_message(ch, u32::try_from(i).unwrap(), t, t, &payload)
                .unwrap();
        }
        w.finish().unwrap()
    }

    /// The values of `/n` and their log times, as `read` gives them.
    fn values(read: &TableRead) -> Vec<(i64, i32)> {
        let mut out = Vec::new();
        for b in &read.batches {
            let n = b.column_by_name("n").unwrap().as_primitive::<Int32Type>();
            // Nanoseconds, as a timestamp or a duration by the log's clock.
            let t = b.column_by_name("log_time").unwrap();
            let t: Vec<i64> = match t.data_type() {
                DataType::Timestamp(..) => t
                    .as_primitive::<TimestampNanosecondType>()
                    .values()
                    .to_vec(),
                _ => t.as_primitive::<DurationNanosecondType>().values().to_vec(),
            };
            out.extend(t.into_iter().zip(n.values().iter().copied()));
        }
        out
    }

    /// A large table read in pieces holds every message once, in order:
    /// the written values, whole and within a time range whose ends fall
    /// inside pieces.
    #[test]
    fn pieces_hold_every_message_once() {
        let count = 120_000;
        let file = numbered(count);
        let log = robolog::open_bytes(&file).unwrap();
        let summary = log.summary().unwrap();
        let tables = tables_with_summary(&log, &summary).unwrap();
        let table = &tables[0];
        let opts = ScanOptions::default();
        let parts = scan_ranges(&log, &summary, table, &opts);
        if logcore::parallel::cores() >= 2 {
            assert!(parts.len() >= 2, "{} pieces", parts.len());
        }
        let read = read_table(&log, &summary, table, &opts).unwrap();
        let want: Vec<(i64, i32)> = (0..count)
            .map(|i| (1_000_000 + i64::from(i / 3) * 7, i))
            .collect();
        assert_eq!(values(&read), want);
        assert_eq!((read.skipped, read.undecoded), (0, 0));
        // A range: [start, end) of log time.
        let (start, end) = (1_000_000 + 5_000 * 7 + 3, 1_000_000 + 37_000 * 7);
        let ranged = ScanOptions {
            start: Some(Timestamp(start)),
            end: Some(Timestamp(end)),
            ..ScanOptions::default()
        };
        let read = read_table(&log, &summary, table, &ranged).unwrap();
        let want: Vec<(i64, i32)> = want
            .into_iter()
            .filter(|(t, _)| (start..end).contains(t))
            .collect();
        assert_eq!(values(&read), want);
    }
}
