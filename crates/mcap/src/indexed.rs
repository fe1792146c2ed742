//! The indexed reader: messages in log-time order from the chunk indexes,
//! with chunks that overlap in time merged, and only the chunks a filter
//! needs decompressed.
//!
//! # Messages outside chunks
//!
//! Chunk indexes only cover chunks, but a file may also hold Message
//! records directly in its data section (a writer that mixed chunked and
//! unchunked output), and chunks that no Chunk Index names. Both are found
//! by one cheap pass over the *top-level* records of the data section
//! (from the leading magic to `summary_start`, stopping at Data End): each
//! record costs a 9-byte framing read, and a Chunk is stepped over by its
//! length without being decompressed. The pass is always made because it
//! is as cheap as the alternatives (the Statistics count cannot be
//! compared without reading every Message Index, and may be absent), and
//! in a typical file it reads a handful of records per chunk.
//!
//! Loose messages that pass the filter are grouped into runs of at most
//! [`LOOSE_RUN_MESSAGES`] messages, each with its log-time range, and the
//! runs join the chunks in the merge: they are read (zero-copy) only when
//! the merge reaches their first log time. Unindexed chunks join it with
//! a Chunk Index made from their header. A damaged record in the data
//! section is reported like a damaged chunk (strict: the error ends the
//! iteration; lenient: [`Error::Skipped`]) and the pass resumes at the next
//! indexed chunk.
//!
//! # Message indexes
//!
//! When a chunk has Message Index records and the filter excludes some of
//! the chunk's channels or part of its time range, only the indexed
//! positions of the wanted messages are parsed (the chunk still has to be
//! decompressed when it is compressed). An index that does not hold up
//! (unreadable, wrong channel, an offset that is not a Message) makes the
//! reader walk the whole chunk instead, so a bad index costs time, never
//! messages.
//!
//! # Big chunks
//!
//! A compressed chunk declaring more than
//! [`STREAM_CHUNK_ABOVE`](crate::chunk::STREAM_CHUNK_ABOVE) is read out of
//! its decoder record by record, twice: a first pass keeps nothing and
//! checks what the whole path would (decoding, declared size, CRC, every
//! record readable, the wanted messages in log-time order); the second
//! streams the wanted messages into the merge, each in its own buffer. So
//! memory is about the largest record; the cost is decoding the chunk
//! twice. A chunk the first pass does not accept is decompressed whole,
//! giving exactly the whole path's messages and errors. Message indexes
//! are not used for such chunks (they are walked).

use std::collections::{BTreeSet, VecDeque};

use logcore::ReadMode;

use crate::chunk::{ChunkRecords, Detached, ReadAhead, StreamedChunk, decompress, streams};
use crate::error::{Error, Result};
use crate::parse::{frame_at, parse_message, parse_record};
use crate::records::{ChunkIndex, MAGIC, Message, Record, op};
use crate::stream::{ReadOptions, message_head, message_in, read_inner};
use crate::summary::Summary;

/// Messages outside chunks are merged in runs of at most this many, so the
/// memory a run takes while it is merged stays bounded like a chunk's.
pub const LOOSE_RUN_MESSAGES: usize = 65_536;

/// Which messages an [`IndexedMessages`] yields, in MCAP's own terms.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexFilter {
    /// Only these channel ids (`None`: all).
    pub channels: Option<BTreeSet<u16>>,
    /// Only `log_time >= start`.
    pub start: Option<u64>,
    /// Only `log_time < end`.
    pub end: Option<u64>,
}

impl IndexFilter {
    fn wants_time(&self, t: u64) -> bool {
        self.start.is_none_or(|s| t >= s) && self.end.is_none_or(|e| t < e)
    }

    fn wants_channel(&self, c: u16) -> bool {
        self.channels.as_ref().is_none_or(|set| set.contains(&c))
    }

    fn wants(&self, m: &Message<'_>) -> bool {
        self.wants_time(m.log_time) && self.wants_channel(m.channel_id)
    }

    fn wants_chunk(&self, ci: &ChunkIndex) -> bool {
        let time = self.start.is_none_or(|s| ci.message_end_time >= s)
            && self.end.is_none_or(|e| ci.message_start_time < e);
        let channels = match &self.channels {
            Some(c) if !ci.message_index_offsets.is_empty() => {
                ci.message_index_offsets.keys().any(|k| c.contains(k))
            }
            _ => true,
        };
        time && channels
    }

    /// Whether the filter drops part of a chunk (so its Message Index
    /// records can save work).
    fn narrows(&self, ci: &ChunkIndex) -> bool {
        let time = self.start.is_some_and(|s| s > ci.message_start_time)
            || self.end.is_some_and(|e| e <= ci.message_end_time);
        let channels = ci
            .message_index_offsets
            .keys()
            .any(|&c| !self.wants_channel(c));
        time || channels
    }
}

/// Wanted Message records outside chunks, between two absolute offsets.
#[derive(Debug, Clone)]
struct LooseRun {
    /// Offset of the first wanted message.
    start: u64,
    /// End of the last wanted message.
    end: u64,
    /// Smallest and largest log time of the wanted messages.
    min_time: u64,
    max_time: u64,
    count: usize,
}

/// Something the merge reads messages from.
#[derive(Debug, Clone)]
enum Source {
    Chunk(ChunkIndex),
    Loose(LooseRun),
}

impl Source {
    fn start_time(&self) -> u64 {
        match self {
            Source::Chunk(c) => c.message_start_time,
            Source::Loose(r) => r.min_time,
        }
    }

    fn offset(&self) -> u64 {
        match self {
            Source::Chunk(c) => c.chunk_start_offset,
            Source::Loose(r) => r.start,
        }
    }

    fn len(&self) -> u64 {
        match self {
            Source::Chunk(c) => c.chunk_length,
            Source::Loose(r) => r.end - r.start,
        }
    }
}

/// (log_time, record or chunk offset, position in the chunk): the merge
/// order, file order breaking ties.
type Key = (u64, u64, u64);

struct Pending<'a> {
    /// A loose message's key holds its own offset and position 0;
    /// offsets of distinct records differ, so keys are unique.
    key: Key,
    offset: u64,
    message: Message<'a>,
}

/// The Message record at `p` of a chunk's records and its size, parsed
/// straight from its framing (the hot path: no general record enum);
/// `None` for any other record or any error, which the caller then reads
/// through the general path.
#[inline]
fn fast_message<'a>(
    records: &ChunkRecords<'a>,
    p: usize,
    _base: u64,
) -> Option<(Message<'a>, usize)> {
    message_in(records, p)
}

/// A loaded source's wanted messages, in key order.
enum Queue<'a> {
    /// Collected and sorted.
    Listed(VecDeque<Pending<'a>>),
    /// A chunk whose wanted messages are in order already: read while the
    /// merge goes, so the common case (sorted chunks) never writes the
    /// messages of a whole chunk out and reads them back.
    Streamed(Stream<'a>),
    /// A compressed chunk above [`crate::chunk::STREAM_CHUNK_ABOVE`] whose
    /// wanted messages are in order, decompressed incrementally while the
    /// merge goes.
    Big(Box<BigStream<'a>>),
}

/// The cursor of a [`Queue::Big`] chunk: its decoder, on its second pass
/// (the first one checked the chunk, so reading it again cannot fail).
/// Each message owns its bytes.
struct BigStream<'a> {
    stream: StreamedChunk<'a>,
    at: u64,
    head: Option<Pending<'a>>,
}

impl BigStream<'_> {
    /// Moves `head` to the next wanted message (`None` at the end).
    #[inline(never)]
    fn advance(&mut self, filter: &IndexFilter) {
        self.head = None;
        while let Some(Ok((p, bytes))) = self.stream.next_record() {
            let records = ChunkRecords::Shared(bytes);
            let m = match message_in(&records, 0) {
                Some((m, _)) => m,
                None => match read_inner(&records, 0, p as u64).0 {
                    Ok(Record::Message(m)) => m,
                    _ => continue,
                },
            };
            if filter.wants(&m) {
                self.head = Some(Pending {
                    key: (m.log_time, self.at, p as u64),
                    offset: self.at,
                    message: m,
                });
                return;
            }
        }
    }
}

/// The cursor of a [`Queue::Streamed`] chunk. Its records were checked by
/// the pre-pass, so reading them again cannot fail.
struct Stream<'a> {
    records: ChunkRecords<'a>,
    pos: usize,
    at: u64,
    base: u64,
    borrowed: bool,
    head: Option<Pending<'a>>,
}

impl<'a> Stream<'a> {
    /// Moves `head` to the next wanted message (`None` at the end).
    #[inline(never)]
    fn advance(&mut self, filter: &IndexFilter) {
        self.head = None;
        let len = self.records.as_slice().len();
        while self.pos < len {
            let p = self.pos;
            if let Some((m, advance)) = fast_message(&self.records, p, self.base) {
                self.pos += advance;
                if filter.wants(&m) {
                    self.head = Some(Pending {
                        key: (m.log_time, self.at, p as u64),
                        offset: if self.borrowed {
                            self.base + p as u64
                        } else {
                            self.at
                        },
                        message: m,
                    });
                    return;
                }
                continue;
            }
            match frame_at(self.records.as_slice(), p, self.base, "chunk records") {
                Ok(f) => self.pos += f.len,
                // Not reached after the pre-pass; ending is the safe answer.
                Err(_) => self.pos = len,
            }
        }
    }
}

impl<'a> Queue<'a> {
    #[inline]
    fn front_key(&self) -> Option<Key> {
        match self {
            Queue::Listed(q) => q.front().map(|p| p.key),
            Queue::Streamed(s) => s.head.as_ref().map(|p| p.key),
            Queue::Big(s) => s.head.as_ref().map(|p| p.key),
        }
    }

    #[inline]
    fn pop(&mut self, filter: &IndexFilter) -> Option<Pending<'a>> {
        match self {
            Queue::Listed(q) => q.pop_front(),
            Queue::Streamed(s) => {
                let p = s.head.take();
                s.advance(filter);
                p
            }
            Queue::Big(s) => {
                let p = s.head.take();
                s.advance(filter);
                p
            }
        }
    }
}

/// A loaded chunk: streamed when in order ([`Queue::Streamed`] or
/// [`Queue::Big`]), else its collected messages.
type Loaded<'a> = std::result::Result<Queue<'a>, Vec<Pending<'a>>>;

/// Damage met by the pass over the data section: (error, offset, length
/// skipped), reported before the first message.
type ScanDamage = (Error, u64, u64);

/// The pass over the top-level records of the data section (see the module
/// docs): runs of wanted loose messages and the unindexed chunks.
fn scan_data_section(
    data: &[u8],
    summary: &Summary,
    filter: &IndexFilter,
) -> (Vec<Source>, Vec<ScanDamage>) {
    let end = usize::try_from(summary.footer.summary_start)
        .unwrap_or(usize::MAX)
        .min(data.len());
    let section = data.get(..end).unwrap_or_default();
    let mut indexed: Vec<u64> = summary
        .chunk_indexes
        .iter()
        .map(|c| c.chunk_start_offset)
        .collect();
    indexed.sort_unstable();
    indexed.dedup();
    let mut out = Vec::new();
    let mut damage = Vec::new();
    let mut run: Option<LooseRun> = None;
    let mut pos = MAGIC.len();
    while pos < section.len() {
        let frame = match frame_at(section, pos, 0, "data section") {
            Ok(f) => f,
            Err(e) => {
                // The framing is lost: go on at the next chunk the index
                // knows, which is a record boundary by construction.
                let next = indexed
                    .iter()
                    .map(|&o| usize::try_from(o).unwrap_or(usize::MAX))
                    .find(|&o| o > pos && o < section.len());
                let to = next.unwrap_or(section.len());
                damage.push((e, pos as u64, (to - pos) as u64));
                match next {
                    Some(n) => {
                        pos = n;
                        continue;
                    }
                    None => break,
                }
            }
        };
        let at = pos as u64;
        match frame.opcode {
            op::MESSAGE => match parse_message(frame.content, at + 9) {
                Ok(m) if filter.wants(&m) => {
                    let r = run.get_or_insert(LooseRun {
                        start: at,
                        end: at,
                        min_time: m.log_time,
                        max_time: m.log_time,
                        count: 0,
                    });
                    r.end = at + frame.len as u64;
                    r.min_time = r.min_time.min(m.log_time);
                    r.max_time = r.max_time.max(m.log_time);
                    r.count += 1;
                    if r.count >= LOOSE_RUN_MESSAGES {
                        out.extend(run.take().map(Source::Loose));
                    }
                }
                Ok(_) => {}
                Err(e) => damage.push((e, at, frame.len as u64)),
            },
            // A chunk ends the run: runs then cover the stretches between
            // chunks, whose time ranges are tighter than a run spanning
            // chunks would have (less held in the merge at once).
            op::CHUNK if indexed.binary_search(&at).is_ok() => {
                out.extend(run.take().map(Source::Loose));
            }
            op::CHUNK => {
                out.extend(run.take().map(Source::Loose));
                match parse_record(frame.opcode, frame.content, at + 9) {
                    Ok(Record::Chunk(c)) => {
                        let ci = ChunkIndex {
                            message_start_time: c.message_start_time,
                            message_end_time: c.message_end_time,
                            chunk_start_offset: at,
                            chunk_length: frame.len as u64,
                            message_index_offsets: Default::default(),
                            message_index_length: 0,
                            compression: c.compression,
                            compressed_size: c.records.len() as u64,
                            uncompressed_size: c.uncompressed_size,
                        };
                        if filter.wants_chunk(&ci) {
                            out.push(Source::Chunk(ci));
                        }
                    }
                    Ok(_) => {}
                    Err(e) => damage.push((e, at, frame.len as u64)),
                }
            }
            op::DATA_END => break,
            // Everything else (Header, Schema, Channel, indexed chunks,
            // Message Index, Attachment, Metadata, unknown records) holds
            // no loose message: step over it by its length.
            _ => {}
        }
        pos += frame.len;
    }
    out.extend(run.map(Source::Loose));
    (out, damage)
}

/// Messages of the file in log-time order (ties in file order): those of
/// the indexed chunks, of chunks no index names, and those stored outside
/// chunks (see the module docs for how the latter are found).
///
/// Items are `(offset, message)`: the message record's absolute offset, or
/// for a compressed chunk the chunk's. Chunks are decompressed only when
/// the merge reaches their start time, so memory holds the chunks that
/// overlap in time, not the file.
pub struct IndexedMessages<'a> {
    data: &'a [u8],
    sources: Vec<Source>,
    next_source: usize,
    /// Messages of the loaded sources, each sorted by key; merged by head.
    active: Vec<Queue<'a>>,
    /// Damage found by the data-section pass, reported first.
    damage: VecDeque<ScanDamage>,
    filter: IndexFilter,
    opts: ReadOptions,
    done: bool,
    /// Compressed chunks decompressed ahead on other threads, in the order
    /// the merge loads them; `ahead_next` is the next source to submit.
    ahead: Option<ReadAhead>,
    ahead_next: usize,
    /// The records of the last chunk read to its end, for reuse.
    spent: Option<ChunkRecords<'a>>,
}

impl<'a> IndexedMessages<'a> {
    /// Iterates the messages of `data` that pass `filter`, using `summary`.
    ///
    /// Makes the pass over the data section's top-level records at once
    /// (no decompression; see the module docs).
    pub fn new(data: &'a [u8], summary: &Summary, filter: IndexFilter, opts: ReadOptions) -> Self {
        let (loose, damage) = scan_data_section(data, summary, &filter);
        let mut seen = BTreeSet::new();
        let mut sources: Vec<Source> = summary
            .chunk_indexes
            .iter()
            .filter(|ci| filter.wants_chunk(ci))
            // Two indexes of one chunk (a damaged summary) must not yield
            // its messages twice.
            .filter(|ci| seen.insert(ci.chunk_start_offset))
            .cloned()
            .map(Source::Chunk)
            .chain(loose)
            .collect();
        sources.sort_by_key(|s| (s.start_time(), s.offset()));
        // Threads only pay for more than one compressed chunk.
        let compressed = sources
            .iter()
            .filter(|s| matches!(s, Source::Chunk(c) if !c.compression.is_empty()))
            .take(2)
            .count();
        IndexedMessages {
            data,
            sources,
            next_source: 0,
            active: Vec::new(),
            damage: damage.into(),
            filter,
            opts,
            done: false,
            ahead: if compressed == 2 {
                ReadAhead::start()
            } else {
                None
            },
            ahead_next: 0,
            spent: None,
        }
    }

    /// Whether the pass over the data section's top-level records found
    /// damage (a broken record framing or an unreadable Message or Chunk
    /// header), which this reader can only report, not read past.
    pub fn data_section_damaged(&self) -> bool {
        !self.damage.is_empty()
    }

    /// How many chunks and runs of messages outside chunks the filter
    /// selected (all other chunks stay untouched).
    pub fn selected_chunks(&self) -> usize {
        self.sources.len()
    }

    fn load(&mut self, source: &Source) -> Result<()> {
        let mut msgs = match source {
            Source::Chunk(ci) => match self.load_chunk(ci)? {
                Ok(queue) => {
                    if queue.front_key().is_some() {
                        self.active.push(queue);
                    }
                    return Ok(());
                }
                Err(msgs) => msgs,
            },
            Source::Loose(run) => self.load_loose(run)?,
        };
        // Keys are unique, so an unstable sort keeps file order for equal
        // times; most sources are sorted already.
        if !msgs.is_sorted_by_key(|m| m.key) {
            msgs.sort_unstable_by_key(|m| m.key);
        }
        if !msgs.is_empty() {
            self.active.push(Queue::Listed(msgs.into()));
        }
        Ok(())
    }

    /// The wanted messages of a run found by the data-section pass.
    fn load_loose(&self, run: &LooseRun) -> Result<Vec<Pending<'a>>> {
        let data = self.data;
        let end = usize::try_from(run.end).unwrap_or(usize::MAX);
        let section = data.get(..end).unwrap_or_default();
        let mut pos = usize::try_from(run.start).unwrap_or(usize::MAX);
        let mut msgs = Vec::with_capacity(run.count);
        while pos < section.len() {
            let frame = frame_at(section, pos, 0, "data section")?;
            let at = pos as u64;
            if frame.opcode == op::MESSAGE {
                let m = parse_message(frame.content, at + 9)?;
                if self.filter.wants(&m) {
                    msgs.push(Pending {
                        key: (m.log_time, at, 0),
                        offset: at,
                        message: m,
                    });
                }
            }
            pos += frame.len;
        }
        Ok(msgs)
    }

    /// A chunk's wanted messages: as a [`Stream`] when they are in order
    /// already, else collected (`Err`, to be sorted).
    fn load_chunk(&mut self, ci: &ChunkIndex) -> Result<Loaded<'a>> {
        let at = ci.chunk_start_offset;
        let pos = usize::try_from(at).unwrap_or(usize::MAX);
        let frame = frame_at(self.data, pos, 0, "file")?;
        if frame.opcode != op::CHUNK || frame.len as u64 != ci.chunk_length {
            return Err(Error::malformed(
                at,
                format!(
                    "a Chunk record of {} bytes (from its Chunk Index)",
                    ci.chunk_length
                ),
                format!("opcode 0x{:02x}, {} bytes", frame.opcode, frame.len),
            ));
        }
        let Record::Chunk(chunk) = parse_record(frame.opcode, frame.content, at + 9)? else {
            return Err(Error::malformed(at, "a Chunk record", "another record"));
        };
        if streams(&chunk, self.opts.limits.max_chunk_size) && self.big_sound(&chunk, at) {
            let mut big = BigStream {
                stream: StreamedChunk::new(&chunk, at, false)?,
                at,
                head: None,
            };
            big.advance(&self.filter);
            return Ok(Ok(Queue::Big(Box::new(big))));
        }
        // Read the Message Index records before decompressing: a broken
        // index then costs no decompression twice.
        let positions = self.indexed_positions(ci);
        let done_ahead = match self.ahead.as_mut() {
            Some(a) if !chunk.compression.is_empty() => a.take(at),
            _ => None,
        };
        let records = match done_ahead {
            Some(r) => ChunkRecords::Shared(r?),
            None => decompress(
                &chunk,
                at,
                self.opts.validate_crcs,
                self.opts.limits.max_chunk_size,
            )?,
        };
        let borrowed = matches!(records, ChunkRecords::Borrowed(_));
        let records_offset = at + 9 + 40 + chunk.compression.len() as u64;
        let base = if borrowed { records_offset } else { 0 };
        if let Some(positions) = positions {
            if let Some(msgs) = self.pick(&records, &positions, at, base, borrowed) {
                return Ok(Err(msgs));
            }
        }
        if self.sorted_and_sound(&records, base) {
            let mut stream = Stream {
                records,
                pos: 0,
                at,
                base,
                borrowed,
                head: None,
            };
            stream.advance(&self.filter);
            return Ok(Ok(Queue::Streamed(stream)));
        }
        self.walk(&records, at, base, borrowed).map(Err)
    }

    /// The first pass over a chunk above the streaming threshold,
    /// decompressing it incrementally and keeping nothing: whether it
    /// decodes to its declared size with its CRC, every record reads and
    /// the wanted messages are in log-time order. When it is not, the chunk
    /// is decompressed whole instead (which names any damage, and sorts).
    fn big_sound(&self, chunk: &crate::records::Chunk<'a>, at: u64) -> bool {
        let Ok(mut stream) = StreamedChunk::new(chunk, at, self.opts.validate_crcs) else {
            return false;
        };
        let mut last = 0;
        while let Some(r) = stream.next_record() {
            let Ok((p, bytes)) = r else {
                return false;
            };
            let records = ChunkRecords::Shared(bytes);
            let m = match message_head(records.as_slice(), 0) {
                Some((channel, _, time, _, _, _)) => Some((channel, time)),
                None => match read_inner(&records, 0, p as u64).0 {
                    Ok(Record::Message(m)) => Some((m.channel_id, m.log_time)),
                    Ok(_) => None,
                    Err(_) => return false,
                },
            };
            if let Some((channel, time)) = m {
                if self.filter.wants_time(time) && self.filter.wants_channel(channel) {
                    if time < last {
                        return false;
                    }
                    last = time;
                }
            }
        }
        true
    }

    /// The pre-pass of a chunk: whether every record reads and the wanted
    /// messages are in log-time order (the walk then names any damage).
    /// It parses from the bytes directly, with no payload handles.
    fn sorted_and_sound(&self, records: &ChunkRecords<'a>, base: u64) -> bool {
        let bytes = records.as_slice();
        let mut last = 0;
        let mut p = 0;
        while p < bytes.len() {
            if let Some((channel, _, time, _, _, end)) = message_head(bytes, p) {
                if self.filter.wants_time(time) && self.filter.wants_channel(channel) {
                    if time < last {
                        return false;
                    }
                    last = time;
                }
                p = end;
                continue;
            }
            let Ok(f) = frame_at(bytes, p, base, "chunk records") else {
                return false;
            };
            if f.opcode == op::MESSAGE {
                let Ok(m) = parse_message(f.content, base + p as u64 + 9) else {
                    return false;
                };
                if self.filter.wants(&m) {
                    if m.log_time < last {
                        return false;
                    }
                    last = m.log_time;
                }
            } else if read_inner(records, p, base).0.is_err() {
                return false;
            }
            p += f.len;
        }
        true
    }

    /// The positions (in the decompressed records) of the messages the
    /// filter wants, from the chunk's Message Index records, sorted and
    /// without repeats; `None` when the index cannot help or does not hold
    /// up (the caller then walks the chunk).
    fn indexed_positions(&self, ci: &ChunkIndex) -> Option<Vec<u64>> {
        if ci.message_index_offsets.is_empty() || !self.filter.narrows(ci) {
            return None;
        }
        let mut positions = Vec::new();
        for (&channel, &offset) in &ci.message_index_offsets {
            if !self.filter.wants_channel(channel) {
                continue;
            }
            let pos = usize::try_from(offset).ok()?;
            let frame = frame_at(self.data, pos, 0, "file").ok()?;
            if frame.opcode != op::MESSAGE_INDEX {
                return None;
            }
            let Ok(Record::MessageIndex(mi)) =
                parse_record(frame.opcode, frame.content, offset + 9)
            else {
                return None;
            };
            if mi.channel_id != channel {
                return None;
            }
            positions.extend(
                mi.records
                    .iter()
                    .filter(|(t, _)| self.filter.wants_time(*t))
                    .map(|&(_, p)| p),
            );
        }
        positions.sort_unstable();
        positions.dedup();
        Some(positions)
    }

    /// The messages at `positions`; `None` when one is not a Message
    /// record of the chunk (the index is wrong: walk instead).
    fn pick(
        &self,
        records: &ChunkRecords<'a>,
        positions: &[u64],
        at: u64,
        base: u64,
        borrowed: bool,
    ) -> Option<Vec<Pending<'a>>> {
        let mut msgs = Vec::with_capacity(positions.len());
        for &p in positions {
            let pos = usize::try_from(p).ok()?;
            let (Ok(Record::Message(m)), _) = read_inner(records, pos, base) else {
                return None;
            };
            if self.filter.wants(&m) {
                msgs.push(Pending {
                    key: (m.log_time, at, p),
                    offset: if borrowed { base + p } else { at },
                    message: m,
                });
            }
        }
        Some(msgs)
    }

    /// Every wanted message of the chunk, walking all its records.
    fn walk(
        &self,
        records: &ChunkRecords<'a>,
        at: u64,
        base: u64,
        borrowed: bool,
    ) -> Result<Vec<Pending<'a>>> {
        let len = records.as_slice().len();
        let mut p = 0;
        let mut msgs = Vec::new();
        while p < len {
            if let Some((m, advance)) = fast_message(records, p, base) {
                if self.filter.wants(&m) {
                    msgs.push(Pending {
                        key: (m.log_time, at, p as u64),
                        offset: if borrowed { base + p as u64 } else { at },
                        message: m,
                    });
                }
                p += advance;
                continue;
            }
            // Anything else (and any error, to be named precisely) takes
            // the general path.
            let (r, advance) = read_inner(records, p, base);
            let r = r.map_err(|e| {
                if borrowed {
                    e
                } else {
                    Error::malformed(
                        at,
                        format!("a readable record at decompressed byte {p} of the chunk"),
                        e.to_string(),
                    )
                }
            })?;
            if let Record::Message(m) = r {
                if self.filter.wants(&m) {
                    msgs.push(Pending {
                        key: (m.log_time, at, p as u64),
                        offset: if borrowed { base + p as u64 } else { at },
                        message: m,
                    });
                }
            }
            p += advance;
        }
        Ok(msgs)
    }

    /// The active source whose next message comes first, and that
    /// message's key.
    #[inline]
    fn first(&self) -> Option<(Key, usize)> {
        if let [only] = &self.active[..] {
            return only.front_key().map(|k| (k, 0));
        }
        self.active
            .iter()
            .enumerate()
            .filter_map(|(i, q)| q.front_key().map(|k| (k, i)))
            .min()
    }

    /// Reports pending damage, then loads every source that may hold a
    /// message before the current head; returns the head.
    #[inline(never)]
    fn refill(&mut self) -> Result<Option<(Key, usize)>> {
        if let Some((e, offset, len)) = self.damage.pop_front() {
            return Err(self.damaged(e, offset, len));
        }
        let mut first = self.first();
        while let Some(source) = self.sources.get(self.next_source) {
            if first.is_some_and(|(k, _)| source.start_time() > k.0) {
                break;
            }
            let source = source.clone();
            self.next_source += 1;
            self.read_ahead();
            if let Err(e) = self.load(&source) {
                return Err(self.damaged(e, source.offset(), source.len()));
            }
            first = self.first();
        }
        Ok(first)
    }

    /// Hands the compressed chunks of the sources after the one being
    /// loaded to the decompression threads, in load order, as far as the
    /// window allows. A chunk that does not frame or parse here is left
    /// to be read (and reported) in place.
    fn read_ahead(&mut self) {
        let Some(ahead) = self.ahead.as_mut() else {
            return;
        };
        self.ahead_next = self.ahead_next.max(self.next_source);
        while ahead.has_room() {
            let Some(source) = self.sources.get(self.ahead_next) else {
                return;
            };
            self.ahead_next += 1;
            let Source::Chunk(ci) = source else { continue };
            if ci.compression.is_empty() {
                continue;
            }
            let at = ci.chunk_start_offset;
            let Ok(frame) = frame_at(
                self.data,
                usize::try_from(at).unwrap_or(usize::MAX),
                0,
                "file",
            ) else {
                continue;
            };
            if frame.opcode != op::CHUNK || frame.len as u64 != ci.chunk_length {
                continue;
            }
            if let Ok(Record::Chunk(c)) = parse_record(frame.opcode, frame.content, at + 9) {
                if let Some(job) = Detached::new(
                    &c,
                    at,
                    self.opts.validate_crcs,
                    self.opts.limits.max_chunk_size,
                ) {
                    ahead.submit(job);
                }
            }
        }
    }

    /// Strict: end with `e`. Lenient: report the bytes as skipped.
    fn damaged(&mut self, e: Error, offset: u64, len: u64) -> Error {
        if self.opts.mode == ReadMode::Strict {
            self.done = true;
            self.active.clear();
            self.damage.clear();
            return e;
        }
        Error::Skipped {
            offset,
            len,
            reason: e.to_string(),
        }
    }
}

impl<'a> Iterator for IndexedMessages<'a> {
    type Item = Result<(u64, Message<'a>)>;

    // Always inlined: callers (the LogReader adapter) then build their
    // item from the popped message in place instead of copying it through
    // a returned temporary, which costs a store-forwarding stall per field.
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if let Some(records) = self.spent.take() {
            if let Some(ahead) = self.ahead.as_mut() {
                ahead.recycle(records);
            }
        }
        // The hot path (everything loaded that is due) stays small enough
        // to inline into callers; loading and damage live in `refill`.
        let first = if self.damage.is_empty() && self.next_source >= self.sources.len() {
            self.first()
        } else {
            match self.refill() {
                Ok(f) => f,
                Err(e) => return Some(Err(e)),
            }
        };
        let (_, i) = first?;
        let p = self.active[i].pop(&self.filter)?;
        if self.active[i].front_key().is_none() {
            if let Queue::Streamed(stream) = self.active.swap_remove(i) {
                if self.ahead.is_some() {
                    // Its buffer takes a later chunk once no message holds
                    // it: looked at on the next call, after the caller had
                    // the message this one returns.
                    self.spent = Some(stream.records);
                }
            }
        }
        Some(Ok((p.offset, p.message)))
    }
}
