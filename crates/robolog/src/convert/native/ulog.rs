//! A ULog file filtered into a ULog file, its messages copied byte for
//! byte (see the parent module for what the options mean here).
//!
//! The input is walked message by message exactly as
//! [`ulogfile::ULog::parse`] frames it: the definitions section up to the
//! first subscription or logged string, then the data section and each
//! appended-data segment (a message cut by an appended-data offset is
//! left out, as the reader leaves it out), skipping what the reader
//! skips as damage (garbage bytes up to the next sync magic, a sample of
//! an unknown `msg_id` or of the wrong size, a message whose fields do
//! not fit). What is written:
//!
//! - the file header as it is, and the flag bits with the DATA_APPENDED
//!   flag cleared and the appended offsets zero: the appended segments
//!   follow the data section as ordinary messages, so the output has no
//!   appended data;
//! - always, wherever they are: format definitions, information and
//!   multi information (`I`, `M`), initial parameters and parameter
//!   defaults (`Q`): the state a reader needs, whatever is cut;
//! - subscriptions (`A`) of the kept topics only, with their own
//!   `msg_id`s (unchanged, so every kept sample still names its
//!   subscription), and unsubscriptions (`R`) of kept `msg_id`s;
//! - samples (`D`) of the kept topics inside the time range (and the
//!   windows of `--around`, and the messages a `--where` chose);
//! - logged and tagged logged strings (`L`, `C`) by their own timestamp
//!   inside the range; dropouts (`O`), sync messages (`S`) and messages of
//!   unknown types by the time of the data before them (the largest
//!   sample timestamp so far, as pyulog stamps them) inside the range;
//! - parameter changes (`P` in the data section) up to the end of the
//!   range: those before its start are the parameters' state at the cut
//!   and come out before the first kept sample.
//!
//! With `--shift`, the header's timestamp, each written sample's
//! `timestamp` field (a `uint64_t`: the log time pyulog and the reader
//! give) and each logged string's timestamp move by the shift, in whole
//! microseconds; other fields (`timestamp_sample`, ...) are the
//! message's own data and stay, as a ROS message's header stamp stays. A
//! time moved below 0 is refused. With `--rename OLD=NEW` (message
//! names; an instance `NAME[N]` is not renamed alone), the subscriptions
//! of `OLD` name `NEW`, and a format `NEW` with `OLD`'s fields is written
//! after `OLD`'s (kept, as other formats may nest it). `NEW` must be a
//! ULog name (letters, digits, `_`, `/`) that names no format yet.
//!
//! A ULog topic is `NAME` (instance 0) or `NAME[MULTI_ID]`, as the log's
//! channels name them; a pattern selects a subscription when it matches
//! that topic or the message name `NAME` (all its instances). `--where`
//! takes a message name, whose table (`robolog sql`) holds all its
//! instances; its rows are numbered in the reader's order of those
//! instances, and the samples they name are found by one lenient read
//! of them.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io::Write;

use logcore::{Error, LogReader, MessageFilter, ReadMode, Timestamp};
use ulogfile::records::{HEADER_LEN, MESSAGE_HEADER_LEN};
use ulogfile::{Record, SYNC_MAGIC, Subscription, ULog};

use super::Tally;
use crate::Log;
use crate::convert::select::{Filter, TopicPatterns, numbered};
use crate::convert::{Context, ConvertOptions};

/// What an editor does with one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Edit {
    /// Written as it is.
    Keep,
    /// Left out.
    Drop,
    /// Written with this payload instead (same type letter).
    Replace(Vec<u8>),
}

/// Changes the messages a filter writes (the anonymisation); it sees
/// every message the filter keeps, in file order.
pub(crate) trait Editor {
    /// The edit of the kept message of type `ty` with `payload`; for a
    /// sample (`D`), `sub` is its subscription.
    fn edit(&mut self, ty: u8, payload: &[u8], sub: Option<&Subscription<'_>>) -> Edit;
}

/// No change.
pub(crate) struct Unchanged;

impl Editor for Unchanged {
    fn edit(&mut self, _: u8, _: &[u8], _: Option<&Subscription<'_>>) -> Edit {
        Edit::Keep
    }
}

/// The topics a filter of a ULog file selects from: each subscription's
/// topic (`NAME`, `NAME[MULTI_ID]`) and each message name.
pub(crate) fn topics(ulog: &ULog<'_>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in &ulog.subscriptions {
        out.push(topic_of(s));
        out.push(s.name.clone());
    }
    out.sort();
    out.dedup();
    out
}

/// The topic of a subscription, as the log's channels name it.
pub(crate) fn topic_of(s: &Subscription<'_>) -> String {
    if s.multi_id == 0 {
        s.name.clone()
    } else {
        format!("{}[{}]", s.name, s.multi_id)
    }
}

/// The log fully read: a log opened for a few tables (its other
/// subscriptions without samples, its parameters not kept) is read again.
pub(crate) fn full<'l>(log: &'l Log<'_>) -> Result<std::borrow::Cow<'l, ULog<'l>>, Error> {
    let Some(ulog) = log.as_ulog() else {
        return Err(crate::convert::not_a("a ULog file", log));
    };
    if (0..ulog.subscriptions.len()).all(|i| ulog.is_selected(i)) {
        return Ok(std::borrow::Cow::Borrowed(ulog));
    }
    Ok(std::borrow::Cow::Owned(ULog::parse(log.bytes())?))
}

/// Writes the messages of `log` the options and filter keep, as edited
/// by `editor`, into `out` (see the module docs); counts each topic's
/// samples in `tally`.
pub(crate) fn write<W: Write>(
    log: &Log<'_>,
    out: W,
    opts: &ConvertOptions,
    filter: &Filter,
    editor: &mut dyn Editor,
    cx: &mut Context<'_>,
    tally: &mut Tally,
) -> Result<W, Error> {
    let ulog = full(log)?;
    let ulog: &ULog<'_> = &ulog;
    let patterns = TopicPatterns::new(&opts.topics);
    let kept: Vec<bool> = ulog
        .subscriptions
        .iter()
        .map(|s| {
            let topic = topic_of(s);
            (patterns.selects(&s.name) || patterns.selects(&topic))
                && !filter.excludes(&s.name)
                && !filter.excludes(&topic)
        })
        .collect();
    let topics: Vec<String> = ulog.subscriptions.iter().map(topic_of).collect();
    for t in &topics {
        tally.topic(t);
    }
    let chosen = chosen_samples(log, ulog, filter)?;
    let renames = renames(ulog, filter)?;
    for (s, t) in ulog.subscriptions.iter().zip(&topics) {
        if let Some(new) = renames.get(&s.name) {
            let written = if s.multi_id == 0 {
                new.clone()
            } else {
                format!("{new}[{}]", s.multi_id)
            };
            tally.written_as(t, &written);
        }
    }
    let shift_us = filter.shift_ns() / 1000;
    let mut ts_fields = Vec::with_capacity(ulog.subscriptions.len());
    for s in &ulog.subscriptions {
        ts_fields.push(timestamp_field(s, shift_us != 0)?);
    }
    let mut walk = Walk {
        renames,
        shift_us,
        ts_fields,
        data: ulog.data,
        out,
        ulog,
        opts,
        filter,
        editor,
        kept,
        topics,
        chosen,
        by_offset: ulog
            .subscriptions
            .iter()
            .enumerate()
            .map(|(i, s)| (s.offset, i))
            .collect(),
        active: HashMap::new(),
        last_timestamp: ulog.header.timestamp,
        pos: HEADER_LEN,
        has_sync: true,
        cx,
        tally,
    };
    walk.run()?;
    walk.cx.stats.channels = walk.tally.written_topics();
    Ok(walk.out)
}

/// The message names `filter` renames, old to new; a rename of an
/// instance alone, to a name that is not a ULog name or that names a
/// format already, or of two names to one, is refused.
fn renames(ulog: &ULog<'_>, filter: &Filter) -> Result<HashMap<String, String>, Error> {
    let mut out: HashMap<String, String> = HashMap::new();
    if !filter.has_renames() {
        return Ok(out);
    }
    for s in &ulog.subscriptions {
        let topic = topic_of(s);
        let new = filter.renamed(&s.name);
        if new == s.name {
            if filter.renamed(&topic) != topic {
                return Err(Error::invalid_argument(format!(
                    "--rename {topic}: a ULog file renames a message name, all its instances \
                     together (--rename {}=NEW)",
                    s.name
                )));
            }
            continue;
        }
        let valid = !new.is_empty()
            && new
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'/');
        if !valid {
            return Err(Error::invalid_argument(format!(
                "--rename {}={new}: a ULog message name is letters, digits, `_` and `/`",
                s.name
            )));
        }
        if ulog.formats.get(&new).is_some() {
            return Err(Error::invalid_argument(format!(
                "--rename {}={new}: the file has a format {new} already",
                s.name
            )));
        }
        if let Some((old, _)) = out.iter().find(|(o, n)| **n == new && **o != s.name) {
            return Err(Error::invalid_argument(format!(
                "--rename: {old} and {} would both be named {new}",
                s.name
            )));
        }
        out.insert(s.name.clone(), new);
    }
    Ok(out)
}

/// Where a subscription's samples hold their `timestamp` (a `uint64_t`),
/// when its format has one; with a shift, a `timestamp` of another type
/// is refused.
fn timestamp_field(s: &Subscription<'_>, shifting: bool) -> Result<Option<usize>, Error> {
    let Some(f) = s.layout.field("timestamp") else {
        return Ok(None);
    };
    match f.ty {
        ulogfile::FieldType::Basic(ulogfile::BasicType::UInt64) if f.array_len.is_none() => {
            Ok(Some(f.offset))
        }
        _ if shifting => Err(Error::invalid_argument(format!(
            "--shift: the format {} has a timestamp that is not a uint64_t, which is not moved",
            s.name
        ))),
        _ => Ok(None),
    }
}

/// `us` moved by `shift` microseconds; below 0 or beyond u64 refused,
/// naming `what`.
fn shifted_us(us: u64, shift: i64, what: &dyn Fn() -> String) -> Result<u64, Error> {
    let moved = i128::from(us) + i128::from(shift);
    u64::try_from(moved).map_err(|_| {
        Error::invalid_argument(format!(
            "--shift {shift} us moves {} at {us} us to {moved} us, outside a ULog file's times \
             (0 and up)",
            what()
        ))
    })
}

/// Per subscription, the offsets of the samples a `--where` on its
/// message name chose (`None`: no `--where` on it).
fn chosen_samples(
    log: &Log<'_>,
    ulog: &ULog<'_>,
    filter: &Filter,
) -> Result<Vec<Option<HashSet<u64>>>, Error> {
    let mut by_name: HashMap<&str, HashSet<u64>> = HashMap::new();
    let channels = log.channels()?;
    for s in &ulog.subscriptions {
        if by_name.contains_key(s.name.as_str()) {
            continue;
        }
        let Some(keys) = filter.only(0, &s.name) else {
            continue;
        };
        let ids = channels
            .iter()
            .filter(|c| c.type_name == s.name)
            .map(|c| c.id);
        // The table's rows: the instances' samples in the reader's order.
        let read = MessageFilter::all().mode(ReadMode::Lenient).channels(ids);
        let (times, offsets): (Vec<Timestamp>, Vec<u64>) = log
            .messages(&read)?
            .flatten()
            .map(|m| (m.log_time, m.offset.unwrap_or(u64::MAX)))
            .unzip();
        let set = numbered(times)
            .into_iter()
            .zip(offsets)
            .filter(|(k, _)| keys.contains(k))
            .map(|(_, o)| o)
            .collect();
        by_name.insert(&s.name, set);
    }
    Ok(ulog
        .subscriptions
        .iter()
        .map(|s| by_name.get(s.name.as_str()).cloned())
        .collect())
}

/// The pass over the input's messages, as the reader frames them.
struct Walk<'w, 'a, 'c, W> {
    /// Message names renamed, old to new.
    renames: HashMap<String, String>,
    /// The shift, in microseconds.
    shift_us: i64,
    /// Per subscription: where its samples' `timestamp` is.
    ts_fields: Vec<Option<usize>>,
    data: &'a [u8],
    out: W,
    ulog: &'w ULog<'a>,
    opts: &'w ConvertOptions,
    filter: &'w Filter,
    editor: &'w mut dyn Editor,
    /// Per subscription: whether its topic is kept.
    kept: Vec<bool>,
    /// Per subscription: its topic.
    topics: Vec<String>,
    /// Per subscription: the samples a `--where` chose.
    chosen: Vec<Option<HashSet<u64>>>,
    /// Subscription offset -> index (the subscriptions the reader took).
    by_offset: HashMap<u64, usize>,
    /// `msg_id` -> the subscription it names now.
    active: HashMap<u16, usize>,
    /// The largest sample timestamp so far (µs), from the header's.
    last_timestamp: u64,
    pos: usize,
    has_sync: bool,
    cx: &'w mut Context<'c>,
    tally: &'w mut Tally,
}

/// A message's size and type letter at `pos`, when it fits in `data`.
fn frame(data: &[u8], pos: usize) -> Option<(usize, u8)> {
    let h = data.get(pos..pos + MESSAGE_HEADER_LEN)?;
    let size = usize::from(u16::from_le_bytes([h[0], h[1]]));
    (pos + MESSAGE_HEADER_LEN + size <= data.len()).then_some((size, h[2]))
}

/// Whether the reader takes a message of an unexpected type and this
/// size for garbage.
fn garbage(ty: u8, size: usize) -> bool {
    ty == 0 || size == 0 || size > ulogfile::read::GARBAGE_SIZE
}

/// Where the sync magic is in `hay`.
fn find_sync(hay: &[u8]) -> Option<usize> {
    hay.windows(SYNC_MAGIC.len()).position(|w| w == SYNC_MAGIC)
}

/// Whether a key/value message reads (a name, a value of its type's
/// size), as the reader requires before taking it.
fn key_value_reads(rec: &Record<'_>, off: u64) -> bool {
    let kv = match rec {
        Record::Info(kv) | Record::Parameter(kv) => kv,
        Record::MultiInfo(_, kv) | Record::DefaultParameter(_, kv) => kv,
        _ => return true,
    };
    kv.name().is_some() && kv.decode(off).is_ok()
}

/// The time of `us` microseconds.
fn at(us: u64) -> Timestamp {
    Timestamp::from_micros(us).unwrap_or(Timestamp::MAX)
}

impl<W: Write> Walk<'_, '_, '_, W> {
    fn run(&mut self) -> Result<(), Error> {
        let data = self.data;
        if self.shift_us == 0 {
            self.out.write_all(&data[..HEADER_LEN])?;
        } else {
            let mut head = data[..HEADER_LEN].to_vec();
            let ts = u64::from_le_bytes(head[8..16].try_into().unwrap_or_default());
            let moved = shifted_us(ts, self.shift_us, &|| "the header's timestamp".to_string())?;
            head[8..16].copy_from_slice(&moved.to_le_bytes());
            self.out.write_all(&head)?;
        }
        if !self.definitions()? {
            return self.flush();
        }
        let offsets: Vec<u64> = match self.ulog.flag_bits {
            Some(f) if f.data_appended() => f.offsets(),
            _ => Vec::new(),
        };
        let len = data.len();
        let mut previous = self.pos as u64;
        for &o in &offsets {
            if o < previous {
                // The reader stops here (a corrupt offset).
                return self.flush();
            }
            previous = o;
            let seg_end = usize::try_from(o).unwrap_or(usize::MAX).min(len);
            if !self.segment(seg_end)? || o > len as u64 {
                return self.flush();
            }
            self.pos = seg_end;
        }
        self.segment(len)?;
        self.flush()
    }

    fn flush(&mut self) -> Result<(), Error> {
        self.cx.report(self.data.len() as u64);
        self.out.flush()?;
        Ok(())
    }

    /// Writes the message at `pos` (ending at `end`) of type `ty` as the
    /// editor says; returns whether it was written.
    fn put(&mut self, pos: usize, end: usize, ty: u8, sub: Option<usize>) -> Result<bool, Error> {
        let data = self.data;
        let payload = &data[pos + MESSAGE_HEADER_LEN..end];
        let subscription = sub.map(|i| &self.ulog.subscriptions[i]);
        let mut p: Cow<'_, [u8]> = match self.editor.edit(ty, payload, subscription) {
            Edit::Keep => Cow::Borrowed(payload),
            Edit::Drop => return Ok(false),
            Edit::Replace(p) => Cow::Owned(p),
        };
        let extra = self.rewrite(ty, &mut p, sub)?;
        match p {
            Cow::Borrowed(_) => self.out.write_all(&data[pos..end])?,
            Cow::Owned(p) => {
                let m = ulogfile::write::encode_message(ty, &p)?;
                self.out.write_all(&m)?;
            }
        }
        if let Some(def) = extra {
            let m = ulogfile::write::encode_message(b'F', &def)?;
            self.out.write_all(&m)?;
        }
        Ok(true)
    }

    /// Applies the shift and the renames to the payload `p` of a message
    /// of type `ty` (a sample of subscription `sub`); returns the format
    /// definition to write after it (a renamed format's copy).
    fn rewrite(
        &self,
        ty: u8,
        p: &mut Cow<'_, [u8]>,
        sub: Option<usize>,
    ) -> Result<Option<Vec<u8>>, Error> {
        let shift_at = |p: &mut Cow<'_, [u8]>, at: usize, what: &dyn Fn() -> String| {
            let Some(b) = p.get(at..at + 8) else {
                return Ok(());
            };
            let ts = u64::from_le_bytes(b.try_into().unwrap_or_default());
            let moved = shifted_us(ts, self.shift_us, what)?;
            p.to_mut()[at..at + 8].copy_from_slice(&moved.to_le_bytes());
            Ok::<(), Error>(())
        };
        match ty {
            b'D' if self.shift_us != 0 => {
                if let Some(i) = sub
                    && let Some(off) = self.ts_fields[i]
                {
                    shift_at(p, 2 + off, &|| format!("a sample of {}", self.topics[i]))?;
                }
            }
            b'L' if self.shift_us != 0 => shift_at(p, 1, &|| "a logged string".to_string())?,
            b'C' if self.shift_us != 0 => {
                shift_at(p, 3, &|| "a tagged logged string".to_string())?;
            }
            b'A' if !self.renames.is_empty() && p.len() > 3 => {
                let name = String::from_utf8_lossy(&p[3..]).into_owned();
                if let Some(new) = self.renames.get(&name) {
                    let mut q = p[..3].to_vec();
                    q.extend_from_slice(new.as_bytes());
                    *p = Cow::Owned(q);
                }
            }
            b'F' if !self.renames.is_empty() => {
                let text = String::from_utf8_lossy(p);
                if let Some((name, fields)) = text.split_once(':')
                    && let Some(new) = self.renames.get(name)
                {
                    return Ok(Some(format!("{new}:{fields}").into_bytes()));
                }
            }
            _ => {}
        }
        Ok(None)
    }

    /// The definitions section; returns whether a data section follows.
    fn definitions(&mut self) -> Result<bool, Error> {
        let data = self.data;
        loop {
            let pos = self.pos;
            let Some((size, ty)) = frame(data, pos) else {
                return Ok(false);
            };
            if matches!(ty, b'A' | b'L' | b'C') {
                return Ok(true);
            }
            if !matches!(ty, b'I' | b'M' | b'F' | b'P' | b'Q' | b'B') && garbage(ty, size) {
                self.pos = pos + 1;
                continue;
            }
            let end = pos + MESSAGE_HEADER_LEN + size;
            self.pos = end;
            let payload = &data[pos + MESSAGE_HEADER_LEN..end];
            match Record::parse(ty, payload, pos as u64) {
                Ok(Record::FlagBits(..)) => {
                    // The appended segments become ordinary messages.
                    let mut p = payload.to_vec();
                    p[8] &= !1;
                    for b in p.iter_mut().take(40).skip(16) {
                        *b = 0;
                    }
                    let m = ulogfile::write::encode_message(b'B', &p)?;
                    self.out.write_all(&m)?;
                }
                Ok(rec) if key_value_reads(&rec, pos as u64) => {
                    self.put(pos, end, ty, None)?;
                }
                _ => {}
            }
        }
    }

    /// Whether `t` is inside the time range and the windows.
    fn in_range(&self, t: Timestamp) -> bool {
        self.opts.start.is_none_or(|s| t >= s)
            && self.opts.end.is_none_or(|e| t < e)
            && self.filter.in_windows(t)
    }

    /// Whether a parameter change at `t` is kept: up to the end of the
    /// range (and of the last window).
    fn param_kept(&self, t: Timestamp) -> bool {
        self.opts.end.is_none_or(|e| t < e)
            && self
                .filter
                .windows()
                .is_none_or(|w| w.last().is_some_and(|&(_, b)| t <= b))
    }

    /// The messages up to `seg_end`; false when the file was cut.
    fn segment(&mut self, seg_end: usize) -> Result<bool, Error> {
        let data = self.data;
        let len = data.len();
        loop {
            let pos = self.pos;
            if (pos >= seg_end && seg_end < len) || pos >= len {
                return Ok(true);
            }
            let Some((size, ty)) = frame(data, pos) else {
                return Ok(false);
            };
            let end = pos + MESSAGE_HEADER_LEN + size;
            if end > seg_end {
                // Cut off by appended data: left out, as the reader does.
                self.pos = seg_end;
                return Ok(true);
            }
            self.cx.tick(pos as u64);
            let payload = &data[pos + MESSAGE_HEADER_LEN..end];
            if ty == b'D' && size >= 2 {
                self.pos = end;
                self.sample(pos, end, payload)?;
                continue;
            }
            let known = matches!(
                ty,
                b'I' | b'M' | b'P' | b'Q' | b'A' | b'L' | b'C' | b'D' | b'O' | b'S'
            );
            if !known && garbage(ty, size) {
                self.pos = pos + 1;
                if self.has_sync {
                    match find_sync(&data[pos + 1..]) {
                        Some(i) => self.pos = pos + 1 + i + SYNC_MAGIC.len(),
                        None => self.has_sync = false,
                    }
                }
                continue;
            }
            self.pos = end;
            if Record::pyulog_stops(ty, payload) {
                self.pos = seg_end.max(pos);
                return Ok(true);
            }
            if !known {
                if self.has_sync {
                    if let Some(i) = find_sync(payload) {
                        // The reader resumes inside this message.
                        self.pos = pos + MESSAGE_HEADER_LEN + i + SYNC_MAGIC.len();
                        continue;
                    }
                }
                match ty {
                    b'F' => {
                        self.put(pos, end, ty, None)?;
                    }
                    b'R' => {
                        let id = u16::from_le_bytes([payload[0], payload[1]]);
                        if let Some(si) = self.active.remove(&id) {
                            if self.kept[si] {
                                self.put(pos, end, ty, None)?;
                            }
                        }
                    }
                    b'B' => {}
                    _ => {
                        if self.in_range(at(self.last_timestamp)) {
                            self.put(pos, end, ty, None)?;
                        }
                    }
                }
                continue;
            }
            let Ok(rec) = Record::parse(ty, payload, pos as u64) else {
                continue;
            };
            if !key_value_reads(&rec, pos as u64) {
                continue;
            }
            let now = at(self.last_timestamp);
            let keep = match rec {
                Record::Info(_) | Record::MultiInfo(..) | Record::DefaultParameter(..) => true,
                Record::Parameter(_) => self.param_kept(now),
                Record::Subscription { msg_id, .. } => {
                    let Some(&si) = self.by_offset.get(&(pos as u64)) else {
                        continue;
                    };
                    self.active.insert(msg_id, si);
                    self.kept[si]
                }
                Record::Logging(l) => self.in_range(at(l.timestamp)),
                Record::Dropout(_) | Record::Sync(_) => self.in_range(now),
                _ => false,
            };
            if keep {
                self.put(pos, end, ty, None)?;
            }
        }
    }

    /// A `D` message at `pos`: kept when the reader takes it and its
    /// topic, time and `--where` keep it.
    fn sample(&mut self, pos: usize, end: usize, payload: &[u8]) -> Result<(), Error> {
        let id = u16::from_le_bytes([payload[0], payload[1]]);
        let Some(&si) = self.active.get(&id) else {
            return Ok(());
        };
        let sub = &self.ulog.subscriptions[si];
        let bytes = &payload[2..];
        if bytes.len() < sub.layout.min_size || bytes.len() > sub.layout.size {
            return Ok(());
        }
        let ts = sub.samples.timestamp_in(bytes);
        self.last_timestamp = self.last_timestamp.max(ts);
        let keep = self.kept[si]
            && self.in_range(at(ts))
            && self.chosen[si]
                .as_ref()
                .is_none_or(|c| c.contains(&(pos as u64)));
        let written = keep && self.put(pos, end, b'D', Some(si))?;
        let n = bytes.len() as u64;
        if written {
            self.cx.stats.messages += 1;
            self.tally.kept_at(at(ts), (end - pos) as u64);
        }
        self.tally.count(&self.topics[si], written, n);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_only_whole_messages() {
        assert_eq!(frame(&[2, 0, b'O', 1, 0], 0), Some((2, b'O')));
        assert_eq!(frame(&[3, 0, b'O', 1, 0], 0), None);
        assert!(garbage(0, 5) && garbage(b'x', 20_000) && !garbage(b'x', 10));
        assert_eq!(
            find_sync(&[1, 2, 0x2F, 0x73, 0x13, 0x20, 0x25, 0x0C, 0xBB, 0x12]),
            Some(2)
        );
    }
}
