//! ULog topics with pyulog's columns: the tables the Python package's
//! `flatten=True` gives, as an Arrow batch ([`table`]) or as pandas' 2-D
//! blocks written straight from the samples ([`frame`], [`fill`]).
//!
//! The columns are `log_time` (`duration[ns]`, the time since boot, as
//! the ULog's tables have it), `log_time_utc` (`timestamp[ns, UTC]`:
//! `log_time` plus [`Selection::utc_offset`], the log's GPS anchor; null
//! without one) and `multi_id`, then one per key of pyulog's
//! `data` dict, named as pyulog names them (`q[0]`, `esc[1].esc_rpm`,
//! nested padding kept) and of pyulog's numpy dtypes (`bool` and `char` as
//! int8). Rows are each instance's samples in file order, the instances
//! merged by timestamp (ties: file order), as [`crate::scan`] merges them.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ops::Range;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, DurationNanosecondArray, Float32Array, Float64Array, Int8Array, Int16Array,
    Int32Array, Int64Array, RecordBatch, RecordBatchOptions, TimestampNanosecondArray, UInt8Array,
    UInt16Array, UInt32Array, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use logcore::parallel::on_cores;
use ulogfile::{BasicType, Column, FlatField, Samples, Subscription, ULog};

use crate::blocks::{self, Block, ColumnMut};
use crate::{Error, LOG_TIME, LOG_TIME_UTC, MULTI_ID};

/// What a flat table is asked for.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// A ULog message name (every instance) or an instance's topic
    /// (`name[1]`).
    pub topic: String,
    /// The columns, in order; `None` for all.
    pub columns: Option<Vec<String>>,
    /// Only rows with `start <= log_time < end` (ns).
    pub start: Option<i64>,
    /// See `start`.
    pub end: Option<i64>,
    /// What to add to `log_time` for `log_time_utc` (ns): the log's UTC
    /// anchor (see `robolog::clock::to_utc`); `None` leaves it null.
    pub utc_offset: Option<i64>,
}

/// The message name and every column of the flat table of `topic` (a
/// message name or an instance's topic); `None` when the log has no such
/// topic.
pub fn columns(ulog: &ULog<'_>, topic: &str) -> Option<(String, Vec<String>)> {
    let subs = instances(ulog, topic);
    let first = subs.first()?;
    Some((first.name.clone(), all_columns(first.fields())))
}

/// The instances of a message name, else of an instance topic.
fn instances<'s, 'a>(ulog: &'s ULog<'a>, topic: &str) -> Vec<&'s Subscription<'a>> {
    let instance = |s: &Subscription<'_>| {
        if s.multi_id == 0 {
            s.name.clone()
        } else {
            format!("{}[{}]", s.name, s.multi_id)
        }
    };
    let subs: Vec<&Subscription<'_>> = ulog
        .subscriptions
        .iter()
        .filter(|s| s.name == topic)
        .collect();
    if !subs.is_empty() {
        return subs;
    }
    ulog.subscriptions
        .iter()
        .filter(|s| instance(s) == topic)
        .collect()
}

/// `log_time`, `log_time_utc`, `multi_id`, then the fields' columns.
fn all_columns(fields: &[FlatField]) -> Vec<String> {
    [LOG_TIME, LOG_TIME_UTC, MULTI_ID]
        .iter()
        .map(|s| s.to_string())
        .chain(fields.iter().map(|f| f.name.as_str().to_string()))
        .collect()
}

/// A flat ULog table resolved: its instances, fields and columns, checked
/// before anything is read.
struct Plan<'s, 'a> {
    /// The message name.
    name: String,
    /// The instances (one, or every instance of the name).
    subs: Vec<&'s Subscription<'a>>,
    /// Their fields (the same for every instance).
    fields: &'s [FlatField],
    /// The columns asked for, in order.
    wanted: Vec<String>,
    start: Option<i64>,
    end: Option<i64>,
    utc_offset: Option<i64>,
}

/// Resolves the table of a ULog message name (every instance) or instance
/// topic (`name[1]`) and the columns asked for.
fn plan<'s, 'a>(ulog: &'s ULog<'a>, q: &Selection) -> Result<Plan<'s, 'a>, Error> {
    let topic = q.topic.as_str();
    let subs = instances(ulog, topic);
    let Some(first) = subs.first() else {
        return Err(Error::NoTopic {
            topic: topic.to_string(),
        });
    };
    let name = first.name.clone();
    let fields = first.fields();
    for s in &subs {
        if s.fields() != fields {
            return Err(Error::Log(logcore::Error::invalid_argument(format!(
                "flatten=True: the instances of {name} have different fields"
            ))));
        }
    }
    let all = all_columns(fields);
    let wanted: Vec<String> = match &q.columns {
        Some(cols) => {
            if let Some(c) = cols.iter().find(|c| !all.contains(c)) {
                return Err(Error::NoColumn {
                    table: name,
                    column: c.clone(),
                });
            }
            cols.clone()
        }
        None => all,
    };
    Ok(Plan {
        name,
        subs,
        fields,
        wanted,
        start: q.start,
        end: q.end,
        utc_offset: q.utc_offset,
    })
}

impl<'s, 'a> Plan<'s, 'a> {
    /// Whether a time range was asked for.
    fn ranged(&self) -> bool {
        self.start.is_some() || self.end.is_some()
    }

    /// The rows, given each instance's timestamps (µs): each instance's
    /// samples within the time range, merged by timestamp keeping each
    /// instance's file order (ties go to the sample stored first, as in
    /// the log's message order).
    fn rows(&self, times: &[Vec<u64>]) -> Rows {
        let (start, end) = (self.start, self.end);
        let in_range = |t: u64| {
            let ns = ns(t);
            start.is_none_or(|s| ns >= s) && end.is_none_or(|e| ns < e)
        };
        let kept: Vec<Vec<usize>> = times
            .iter()
            .map(|ts| (0..ts.len()).filter(|&i| in_range(ts[i])).collect())
            .collect();
        if self.subs.len() <= 1 {
            return match kept.into_iter().next() {
                Some(k) if times.first().is_some_and(|t| t.len() == k.len()) => Rows::All,
                Some(k) => Rows::Picked(k),
                None => Rows::Picked(Vec::new()),
            };
        }
        let offsets: Vec<Vec<u64>> = self
            .subs
            .iter()
            .map(|s| s.samples.iter().map(|x| x.offset).collect())
            .collect();
        let total: usize = kept.iter().map(Vec::len).sum();
        let mut order: Vec<(usize, usize)> = Vec::with_capacity(total);
        let mut next = vec![0usize; self.subs.len()];
        let key = |k: usize, r: usize| Reverse((times[k][r], offsets[k][r], k));
        let mut pending: BinaryHeap<Reverse<(u64, u64, usize)>> = kept
            .iter()
            .enumerate()
            .filter_map(|(k, rows)| rows.first().map(|&r| key(k, r)))
            .collect();
        while let Some(Reverse((_, _, k))) = pending.pop() {
            order.push((k, kept[k][next[k]]));
            next[k] += 1;
            if let Some(&r) = kept[k].get(next[k]) {
                pending.push(key(k, r));
            }
        }
        Rows::Merged(order)
    }

    /// The field of column `col` (not `log_time`, `log_time_utc` or
    /// `multi_id`).
    fn field(&self, col: &str) -> Option<(usize, &'s FlatField)> {
        self.fields
            .iter()
            .enumerate()
            .find(|(_, f)| f.name.as_str() == col)
    }
}

/// A ULog timestamp (µs) in nanoseconds.
fn ns(t: u64) -> i64 {
    i64::try_from(t).unwrap_or(i64::MAX).saturating_mul(1000)
}

/// The flat table of `q`: its message name and one batch of every row.
pub struct FlatTable {
    /// The message name.
    pub name: String,
    /// The columns.
    pub schema: SchemaRef,
    /// The rows.
    pub batch: RecordBatch,
}

/// Builds the flat table `q` asks for (see the module): an instance's
/// column read whole becomes its Arrow array without a copy.
pub fn table(ulog: &ULog<'_>, q: &Selection) -> Result<FlatTable, Error> {
    let plan = plan(ulog, q)?;
    let subs = &plan.subs;
    let first_multi = subs.first().map_or(0, |s| s.multi_id);
    // Each instance's timestamps, read with its columns where those are
    // wanted (one pass over samples scattered through the file).
    let needs_values = plan
        .wanted
        .iter()
        .any(|c| c != LOG_TIME && c != LOG_TIME_UTC && c != MULTI_ID);
    let (times, mut per_sub): (Vec<Vec<u64>>, Vec<Vec<Option<Column>>>) = subs
        .iter()
        .map(|s| {
            logcore::interrupt::check();
            if needs_values {
                let (t, cols) = s.timestamps_and_columns();
                (t, cols.into_iter().map(|(_, c)| Some(c)).collect())
            } else {
                (s.timestamps(), Vec::new())
            }
        })
        .unzip();
    let order = plan.rows(&times);
    let rows = order.len(times.first().map_or(0, Vec::len));
    let wanted = &plan.wanted;
    let mut arrow_fields = Vec::with_capacity(wanted.len());
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(wanted.len());
    for (at, col) in wanted.iter().enumerate() {
        logcore::interrupt::check();
        if col == LOG_TIME {
            let values: Vec<i64> = match &order {
                Rows::All => times[0].iter().map(|&t| ns(t)).collect(),
                Rows::Picked(rs) => rs.iter().map(|&r| ns(times[0][r])).collect(),
                Rows::Merged(o) => o.iter().map(|&(k, r)| ns(times[k][r])).collect(),
            };
            arrow_fields.push(Field::new(
                LOG_TIME,
                DataType::Duration(TimeUnit::Nanosecond),
                false,
            ));
            arrays.push(Arc::new(DurationNanosecondArray::from(values)));
        } else if col == LOG_TIME_UTC {
            let utc = |t: u64| plan.utc_offset.and_then(|o| ns(t).checked_add(o));
            let values: Vec<Option<i64>> = match &order {
                Rows::All => times[0].iter().map(|&t| utc(t)).collect(),
                Rows::Picked(rs) => rs.iter().map(|&r| utc(times[0][r])).collect(),
                Rows::Merged(o) => o.iter().map(|&(k, r)| utc(times[k][r])).collect(),
            };
            arrow_fields.push(Field::new(
                LOG_TIME_UTC,
                DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
                true,
            ));
            arrays.push(Arc::new(
                TimestampNanosecondArray::from(values).with_timezone("UTC"),
            ));
        } else if col == MULTI_ID {
            let values: Vec<u8> = match &order {
                Rows::Merged(o) => o.iter().map(|&(k, _)| subs[k].multi_id).collect(),
                _ => vec![first_multi; rows],
            };
            arrow_fields.push(Field::new(MULTI_ID, DataType::UInt8, false));
            arrays.push(Arc::new(UInt8Array::from(values)));
        } else {
            let i = plan.field(col).map_or(0, |(i, _)| i);
            // A column asked for again later is copied; its last use
            // takes it.
            let again = wanted[at + 1..].contains(col);
            let cols: Vec<Column> = per_sub
                .iter_mut()
                .map(|c| {
                    let slot = &mut c[i];
                    if again { slot.clone() } else { slot.take() }.unwrap_or(Column::I8(Vec::new()))
                })
                .collect();
            let array = gather(cols, &order);
            arrow_fields.push(Field::new(col, array.data_type().clone(), false));
            arrays.push(array);
        }
    }
    let name = plan.name;
    let meta = crate::table::table_metadata(&name, &name, "ulog", &name);
    let schema = Arc::new(Schema::new_with_metadata(arrow_fields, meta));
    let batch = RecordBatch::try_new_with_options(
        Arc::clone(&schema),
        arrays,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )?;
    Ok(FlatTable {
        name,
        schema,
        batch,
    })
}

/// The rows of a flat ULog table: of one instance, all its samples or
/// some (by index); of several, (instance, sample) pairs in row order.
enum Rows {
    All,
    Picked(Vec<usize>),
    Merged(Vec<(usize, usize)>),
}

impl Rows {
    /// The number of rows, of an instance of `samples` samples when one.
    fn len(&self, samples: usize) -> usize {
        match self {
            Rows::All => samples,
            Rows::Picked(r) => r.len(),
            Rows::Merged(o) => o.len(),
        }
    }
}

/// The values of one field (one column per instance) at the rows `order`
/// names, as an Arrow array of pyulog's dtype for the field: the column
/// itself, without a copy, when it is every sample of one instance.
fn gather(cols: Vec<Column>, order: &Rows) -> ArrayRef {
    /// The rows of `vs` (one vector per instance; a missing value, not
    /// expected, as 0) converted by `conv`.
    fn pick<T: Copy + Default, U>(vs: &[Vec<T>], order: &Rows, conv: impl Fn(T) -> U) -> Vec<U> {
        let at = |k: usize, r: usize| {
            conv(
                vs.get(k)
                    .and_then(|v| v.get(r))
                    .copied()
                    .unwrap_or_default(),
            )
        };
        match order {
            Rows::All => vs
                .first()
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .map(|&x| conv(x))
                .collect(),
            Rows::Picked(rs) => rs.iter().map(|&r| at(0, r)).collect(),
            Rows::Merged(o) => o.iter().map(|&(k, r)| at(k, r)).collect(),
        }
    }
    /// The vectors of `variant`, one per instance.
    macro_rules! vectors {
        ($variant:ident) => {
            cols.into_iter()
                .map(|c| match c {
                    Column::$variant(v) => v,
                    _ => Vec::new(),
                })
                .collect::<Vec<Vec<_>>>()
        };
    }
    macro_rules! take {
        ($variant:ident, $array:ty) => {{
            let mut vs = vectors!($variant);
            let values = match order {
                Rows::All if vs.len() == 1 => vs.pop().unwrap_or_default(),
                _ => pick(&vs, order, |x| x),
            };
            Arc::new(<$array>::from(values)) as ArrayRef
        }};
    }
    macro_rules! int8 {
        ($variant:ident, $conv:expr) => {{
            let vs = vectors!($variant);
            Arc::new(Int8Array::from(pick(&vs, order, $conv))) as ArrayRef
        }};
    }
    match cols.first() {
        Some(Column::I8(_)) => take!(I8, Int8Array),
        Some(Column::U8(_)) => take!(U8, UInt8Array),
        Some(Column::I16(_)) => take!(I16, Int16Array),
        Some(Column::U16(_)) => take!(U16, UInt16Array),
        Some(Column::I32(_)) => take!(I32, Int32Array),
        Some(Column::U32(_)) => take!(U32, UInt32Array),
        Some(Column::I64(_)) => take!(I64, Int64Array),
        Some(Column::U64(_)) => take!(U64, UInt64Array),
        Some(Column::F32(_)) => take!(F32, Float32Array),
        Some(Column::F64(_)) => take!(F64, Float64Array),
        Some(Column::Bool(_)) => int8!(Bool, i8::from),
        // numpy's int8: the byte's bits.
        Some(Column::Char(_)) => int8!(Char, |x: u8| x as i8),
        None => Arc::new(Int8Array::from_iter_values([])),
    }
}

/// The frame `Log.to_pandas(topic, flatten=True)` makes of a ULog topic,
/// as its column names, its number of rows and pandas' blocks: the same
/// columns, dtypes and rows as [`table`]'s batch, read from the
/// samples straight into the blocks (one pass over the samples, one write
/// of each value, no Arrow arrays between), on the machine's cores.
/// `None` for a table without rows or columns.
pub fn frame_blocks(ulog: &ULog<'_>, q: &Selection) -> Result<Option<FrameBlocks>, Error> {
    let mut frames = [frame(ulog, q)?];
    fill(&mut frames);
    let [made] = frames;
    Ok(made.map(Frame::into_blocks))
}

/// A frame as [`frame_blocks`] gives it: its column names, its number of
/// rows, its blocks.
pub type FrameBlocks = (Vec<String>, usize, Vec<Block>);

/// A flat ULog frame planned: its instances, its rows, where each column
/// comes from, and its blocks allocated, for [`fill`] to write.
pub struct Frame<'s> {
    names: Vec<String>,
    subs: Vec<&'s Subscription<'s>>,
    order: Rows,
    rows: usize,
    sources: Vec<Source<'s>>,
    blocks: Vec<Block>,
    /// The bytes of a sample (the largest of the instances').
    size: usize,
}

/// Plans the flat frame `q` asks for (see [`frame_blocks`]) and allocates
/// its blocks; `None` for a frame without rows or columns.
pub fn frame<'s>(ulog: &'s ULog<'_>, q: &Selection) -> Result<Option<Frame<'s>>, Error> {
    let plan = plan(ulog, q)?;
    // One instance without a time range is every sample: no timestamps
    // are needed before reading them.
    let order = if plan.subs.len() == 1 && !plan.ranged() {
        Rows::All
    } else {
        let times: Vec<Vec<u64>> = plan.subs.iter().map(|s| s.timestamps()).collect();
        plan.rows(&times)
    };
    let rows = order.len(plan.subs.first().map_or(0, |s| s.samples.len()));
    if rows == 0 || plan.wanted.is_empty() {
        return Ok(None);
    }
    // Where each column comes from, and its numpy dtype.
    let sources: Vec<Source<'s>> = plan
        .wanted
        .iter()
        .map(|c| match c.as_str() {
            // The instances' timestamps are at the same place (they have
            // the same fields): the first's samples read each one's.
            LOG_TIME => plan
                .subs
                .first()
                .map_or(Source::MultiId, |s| Source::LogTime(&s.samples)),
            LOG_TIME_UTC => plan.subs.first().map_or(Source::MultiId, |s| {
                Source::LogTimeUtc(&s.samples, plan.utc_offset)
            }),
            MULTI_ID => Source::MultiId,
            _ => plan
                .field(c)
                .map_or(Source::MultiId, |(_, f)| Source::Field(f)),
        })
        .collect();
    let dtypes: Vec<&'static str> = sources.iter().map(Source::dtype).collect();
    let Some((blocks, _)) = blocks::empty(&dtypes, rows) else {
        return Ok(None);
    };
    let size = plan
        .subs
        .iter()
        .map(|s| s.samples.sample_size())
        .max()
        .unwrap_or(0);
    Ok(Some(Frame {
        names: plan.wanted,
        subs: plan.subs,
        order,
        rows,
        sources,
        blocks,
        size,
    }))
}

impl<'s> Frame<'s> {
    /// The frame's rows cut into pieces of about `bytes` bytes of samples
    /// each, each holding its rows' part of every column.
    fn pieces(&mut self, bytes: usize) -> Vec<Piece<'_, 's>> {
        let Frame {
            subs,
            order,
            rows,
            sources,
            blocks,
            size,
            ..
        } = self;
        let rows = *rows;
        let per = (bytes / (*size).max(1)).clamp(1, rows.max(1));
        let starts: Vec<usize> = (0..rows).step_by(per).collect();
        let mut pieces: Vec<Piece<'_, 's>> = starts
            .iter()
            .map(|&at| Piece {
                rows: at..(at + per).min(rows),
                subs,
                order,
                sources,
                columns: Vec::with_capacity(sources.len()),
                size: *size,
            })
            .collect();
        for b in blocks.iter_mut() {
            for (&c, column) in b.columns.iter().zip(b.values.columns(rows)) {
                let mut rest = column;
                for p in &mut pieces {
                    let (mine, after) = rest.split_at(p.rows.len());
                    p.columns.push((c, mine));
                    rest = after;
                }
            }
        }
        pieces
    }

    /// The frame's column names, rows and blocks.
    pub fn into_blocks(self) -> FrameBlocks {
        (self.names, self.rows, self.blocks)
    }
}

/// Writes the rows of `frames` into their blocks, on the machine's cores:
/// each frame cut into pieces, the largest pieces first. Frames of fewer
/// than `THREADED_BYTES` (512 KiB) of samples in all are written on the calling
/// thread: starting a thread costs more than it saves there.
pub fn fill(frames: &mut [Option<Frame<'_>>]) {
    let pieces: Vec<Piece<'_, '_>> = frames
        .iter_mut()
        .flatten()
        .flat_map(|f| f.pieces(PIECE_BYTES))
        .collect();
    let total: u64 = pieces.iter().map(Piece::weight).sum();
    if total < THREADED_BYTES {
        pieces.into_iter().for_each(Piece::fill);
    } else {
        on_cores(pieces, Piece::weight, Piece::fill);
    }
}

/// The bytes of samples below which [`fill`] uses no other thread.
const THREADED_BYTES: u64 = 512 * 1024;

/// How many bytes of samples a piece of a frame holds, about: small
/// enough that the pieces of one large topic keep every core busy.
const PIECE_BYTES: usize = 128 * 1024;

/// How many bytes of samples a run of a piece reads before writing them.
const RUN_BYTES: usize = 16 * 1024;

/// Some of a frame's rows and their part of each column.
struct Piece<'f, 's> {
    /// The rows (of the frame's order).
    rows: Range<usize>,
    subs: &'f [&'s Subscription<'s>],
    order: &'f Rows,
    sources: &'f [Source<'s>],
    /// Each column's values of the rows, with the column's place.
    columns: Vec<(usize, ColumnMut<'f>)>,
    size: usize,
}

impl Piece<'_, '_> {
    /// The piece's bytes of samples.
    fn weight(&self) -> u64 {
        (self.rows.len() * self.size.max(1)) as u64
    }

    /// Reads the piece's samples, a cache-sized run at a time, and writes
    /// each column of the run while its samples are still in cache.
    fn fill(self) {
        let run_len = (RUN_BYTES / self.size.max(1)).clamp(1, self.rows.len().max(1));
        let mut run = Run::new(run_len, self.sources, self.columns);
        let rows = self.rows;
        match self.order {
            Rows::All => {
                if let Some(s) = self.subs.first() {
                    rows.filter_map(|r| s.samples.data(r))
                        .for_each(|x| run.push(s.multi_id, x));
                }
            }
            Rows::Picked(rs) => {
                if let Some(s) = self.subs.first() {
                    rs.get(rows)
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|&r| s.samples.data(r))
                        .for_each(|x| run.push(s.multi_id, x));
                }
            }
            Rows::Merged(o) => {
                for &(k, r) in o.get(rows).unwrap_or_default() {
                    if let Some((m, x)) = self
                        .subs
                        .get(k)
                        .and_then(|s| Some((s.multi_id, s.samples.data(r)?)))
                    {
                        run.push(m, x);
                    }
                }
            }
        }
        run.write();
    }
}

/// The samples of a piece being written, a run at a time. A sample's
/// bytes are first read by the column written first, in a loop over the
/// run's samples that lets the processor fetch many at once.
struct Run<'r, 'a> {
    /// The struct bytes and multi_ids of the run's rows.
    data: Vec<&'a [u8]>,
    multi: Vec<u8>,
    /// The rows written before the run.
    done: usize,
    /// The rows a run holds.
    len: usize,
    sources: &'r [Source<'r>],
    columns: Vec<(usize, ColumnMut<'r>)>,
}

impl<'r, 'a> Run<'r, 'a> {
    fn new(len: usize, sources: &'r [Source<'r>], columns: Vec<(usize, ColumnMut<'r>)>) -> Self {
        Run {
            data: Vec::with_capacity(len),
            multi: Vec::with_capacity(len),
            done: 0,
            len,
            sources,
            columns,
        }
    }

    /// Adds the next row: the struct bytes of a sample of the instance
    /// `multi_id`.
    #[inline]
    fn push(&mut self, multi_id: u8, data: &'a [u8]) {
        self.data.push(data);
        self.multi.push(multi_id);
        if self.data.len() == self.len {
            self.write();
        }
    }

    /// Writes the run's rows into every column, and starts the next run.
    fn write(&mut self) {
        let rows = RunRows {
            data: &self.data,
            multi: &self.multi,
        };
        for (c, column) in &mut self.columns {
            if let Some(source) = self.sources.get(*c) {
                source.write(column, self.done, &rows);
            }
        }
        self.done += self.data.len();
        self.data.clear();
        self.multi.clear();
    }
}

/// The rows of a run, column by column.
struct RunRows<'r, 'a> {
    data: &'r [&'a [u8]],
    multi: &'r [u8],
}

/// Where a flat column's values come from.
enum Source<'f> {
    /// The timestamp, read as these samples read it.
    LogTime(&'f Samples<'f>),
    /// The timestamp plus the UTC offset (NaT, `i64::MIN`, without one).
    LogTimeUtc(&'f Samples<'f>, Option<i64>),
    MultiId,
    Field(&'f FlatField),
}

impl Source<'_> {
    /// The column's numpy dtype (pyulog's: `bool` and `char` as int8).
    fn dtype(&self) -> &'static str {
        match self {
            Source::LogTime(_) => blocks::DURATION_DTYPE,
            Source::LogTimeUtc(..) => blocks::UTC_TIME_DTYPE,
            Source::MultiId => "u1",
            Source::Field(f) => match f.ty {
                BasicType::Int8 | BasicType::Bool | BasicType::Char => "i1",
                BasicType::UInt8 => "u1",
                BasicType::Int16 => "i2",
                BasicType::UInt16 => "u2",
                BasicType::Int32 => "i4",
                BasicType::UInt32 => "u4",
                BasicType::Int64 => "i8",
                BasicType::UInt64 => "u8",
                BasicType::Float => "f4",
                BasicType::Double => "f8",
            },
        }
    }

    /// Writes the column's values of the rows of `run` into `values` from
    /// index `at`. A field a sample is too short to hold reads as zeros,
    /// as the table's does.
    fn write(&self, values: &mut ColumnMut<'_>, at: usize, run: &RunRows<'_, '_>) {
        /// Writes `f` of each of `src` from index `at` of `dest`.
        fn put<S: Copy, T>(dest: &mut [T], at: usize, src: &[S], f: impl Fn(S) -> T) {
            if let Some(dest) = dest.get_mut(at..at + src.len()) {
                for (d, &s) in dest.iter_mut().zip(src) {
                    *d = f(s);
                }
            }
        }
        /// The `N` bytes at `o` of a sample's data, zeros when short.
        #[inline]
        fn le<const N: usize>(data: &[u8], o: usize) -> [u8; N] {
            data.get(o..o.saturating_add(N))
                .and_then(|b| b.try_into().ok())
                .unwrap_or([0; N])
        }
        let field = match self {
            Source::LogTime(samples) => {
                if let ColumnMut::I64(v) = values {
                    put(v, at, run.data, |d| ns(samples.timestamp_in(d)));
                }
                return;
            }
            Source::LogTimeUtc(samples, offset) => {
                if let ColumnMut::I64(v) = values {
                    put(v, at, run.data, |d| {
                        offset
                            .and_then(|o| ns(samples.timestamp_in(d)).checked_add(o))
                            .unwrap_or(i64::MIN)
                    });
                }
                return;
            }
            Source::MultiId => {
                if let ColumnMut::U8(v) = values {
                    put(v, at, run.multi, |m| m);
                }
                return;
            }
            Source::Field(f) => f,
        };
        let (o, rows) = (field.offset, run.data);
        match (values, field.ty) {
            (ColumnMut::I8(v), BasicType::Int8) => {
                put(v, at, rows, |d| i8::from_le_bytes(le(d, o)))
            }
            (ColumnMut::I8(v), BasicType::Bool) => {
                put(v, at, rows, |d| i8::from(le::<1>(d, o)[0] != 0))
            }
            // numpy's int8: the byte's bits.
            (ColumnMut::I8(v), BasicType::Char) => put(v, at, rows, |d| le::<1>(d, o)[0] as i8),
            (ColumnMut::U8(v), BasicType::UInt8) => put(v, at, rows, |d| le::<1>(d, o)[0]),
            (ColumnMut::I16(v), _) => put(v, at, rows, |d| i16::from_le_bytes(le(d, o))),
            (ColumnMut::U16(v), _) => put(v, at, rows, |d| u16::from_le_bytes(le(d, o))),
            (ColumnMut::I32(v), _) => put(v, at, rows, |d| i32::from_le_bytes(le(d, o))),
            (ColumnMut::U32(v), _) => put(v, at, rows, |d| u32::from_le_bytes(le(d, o))),
            (ColumnMut::I64(v), _) => put(v, at, rows, |d| i64::from_le_bytes(le(d, o))),
            (ColumnMut::U64(v), _) => put(v, at, rows, |d| u64::from_le_bytes(le(d, o))),
            (ColumnMut::F32(v), _) => put(v, at, rows, |d| f32::from_le_bytes(le(d, o))),
            (ColumnMut::F64(v), _) => put(v, at, rows, |d| f64::from_le_bytes(le(d, o))),
            // Not met: the block's dtype was planned from the field's type.
            _ => {}
        }
    }
}
