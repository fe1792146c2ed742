//! Time-ordered message iteration.
//!
//! 2.0: chunks are selected by their chunk info (time range, connections
//! present) and visited in order of start time. Chunks whose time ranges
//! do not overlap (the normal case) are read one at a time, so only one
//! decompressed chunk is in memory; chunks that overlap in time (spec 2.7:
//! unsorted or interleaved chunks) are read together as one group and
//! merged, since no other order-preserving choice exists. Within a group,
//! messages are ordered by (time, chunk file order, position).
//!
//! A chunk alone in its group whose messages are stored in time order
//! (what recorders write) is handed out as stored, each message read from
//! its record as it is asked for, with nothing collected or sorted first:
//! one pass over the chunk checks the order (and that every record is one
//! the fast reader knows, on a declared connection) and notes where the
//! message records are; the messages are then read at those positions.
//! Any other chunk goes through the merge, so the result is the merge's in
//! every case, errors included.
//!
//! A chunk damaged partway (a bad record, a connection the bag does not
//! declare) keeps the messages read before the damage: they are handed
//! out, in the group's time order, before the chunk's error. Strict mode
//! then stops; lenient mode reports the error as a skip and goes on with
//! the group's other chunks and the next groups.
//!
//! A compressed chunk declaring more than [`crate::STREAM_CHUNK_ABOVE`]
//! (32 MiB) uncompressed bytes, alone in its group and within the limits,
//! is not decompressed whole: a first pass reads it record by record out
//! of its decoder, keeping nothing, and makes the check above; when it
//! holds (and the chunk decodes to its declared size), a second pass hands
//! the messages out as stored, each in its own buffer, so memory is about
//! the largest message rather than the chunk (at the cost of decoding the
//! chunk twice). A big chunk the first pass does not accept (unsorted,
//! damaged, other record layouts), and a big chunk that overlaps others in
//! time, is decompressed whole and merged as before (merging needs all of
//! it), with the same result and errors.
//!
//! 1.2: the index (or the scan) lists every message with its file offset;
//! entries are sorted by (time, offset) and read in place.
//!
//! Compressed chunks (bz2, and lz4 chunks of at least 64 KiB) are
//! decompressed ahead on other threads when the machine has more than one
//! core (one thread per core, through [`logcore::ahead`], as mcapfile's
//! readers do): while the messages of one chunk are handed out, the next
//! ones are being decompressed in parallel, at most one per thread plus
//! [`logcore::ahead::EXTRA_JOBS`] at a time, so memory stays bounded. The
//! threads get a copy of the compressed bytes (cheap next to decompressing
//! them), so the bag's borrowed data never crosses threads; results come
//! back in file order and errors are reported exactly where the chunk
//! would have been read (the messages before a damaged chunk first, the
//! error naming its offset next). A chunk no thread has started by the
//! time it is wanted is decompressed by the reader itself. The thread also
//! runs the order check of a chunk alone in its group, on the bytes it has
//! just written: the reader then reads only the message headers, at the
//! positions found, instead of the whole chunk. Buffers of chunks whose
//! messages were dropped are decompressed into again.
//! [`Messages::read_ahead_threads`] sets the number of threads (`0`: every
//! chunk in place); smaller lz4 chunks, whose decoding costs less than the
//! hand-over, are otherwise decompressed in place, as are the chunks of a
//! bag whose first two chunks are not worth threads.
//!
//! Uncompressed chunks are read in place. Walking a chunk record by record
//! is a chain of dependent loads (each record's length gives the next
//! one's position), so a chunk that is not in the cache costs a memory
//! round trip per message; the chunk is first read through at stride (a
//! sequential pass the hardware prefetches), after which the walk runs
//! from the cache. The order check reads a stretch (256 KiB) through
//! ahead of its walk rather than the whole chunk first: the part it walks
//! next was read moments before, and is still in the core's own cache.

use logcore::FormatError;
use std::collections::VecDeque;
use std::sync::Arc;

use logcore::ahead::Ahead;

use logcore::{ChannelId, MessageFilter, Payload, ReadMode};

use crate::bag::Bag;
use crate::chunk::{ChunkPayload, is_message};
use crate::compression::{ChunkReader, decompress_into, streams};
use crate::error::{Error, Result};
use crate::record::{Origin, Record};
use crate::records::{ChunkHeader, Compression, MessageDataHeader, op, unexpected};
use crate::time::RosTime;

/// One message as stored in a bag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BagMessage<'a> {
    /// Connection id.
    pub conn: u32,
    /// The time the bag indexes it by (receive time for `rosbag record`).
    pub time: RosTime,
    /// The serialized message (zero-copy for uncompressed data).
    pub data: Payload<'a>,
    /// File offset of the message record, or of its chunk when compressed.
    pub offset: u64,
}

/// One message as stored in a bag, borrowed from the iterator that read
/// it ([`Messages::next_borrowed`]): no reference count is taken on the
/// chunk's buffer, so it is valid until the next call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BagMessageRef<'m> {
    /// Connection id.
    pub conn: u32,
    /// The time the bag indexes it by (receive time for `rosbag record`).
    pub time: RosTime,
    /// The serialized message.
    pub data: &'m [u8],
    /// File offset of the message record, or of its chunk when compressed.
    pub offset: u64,
}

impl BagMessage<'_> {
    /// The message, borrowed.
    pub fn borrowed(&self) -> BagMessageRef<'_> {
        BagMessageRef {
            conn: self.conn,
            time: self.time,
            data: &self.data,
            offset: self.offset,
        }
    }
}

/// What [`Messages::advance`] found next: where the message is, so that
/// [`Iterator::next`] can share its buffer and
/// [`Messages::next_borrowed`] lend it.
enum Found<'a> {
    /// A slot of the current stream.
    Stream(Slot),
    /// An entry of the current merged group.
    Entry(Entry),
    /// A message read on its own (a big chunk's, a 1.2 bag's).
    Owned(BagMessage<'a>),
}

/// Where a message of the current group is.
#[derive(Debug, Clone, Copy)]
struct Entry {
    time: RosTime,
    chunk: usize,
    start: usize,
    end: usize,
    conn: u32,
    offset: u64,
}

/// Iterator over a bag's messages; see the [module docs](self).
pub struct Messages<'a> {
    bag: &'a Bag<'a>,
    filter: MessageFilter,
    groups: VecDeque<Vec<usize>>,
    /// The chunks of the current group, and its messages in time order.
    payloads: Vec<ChunkPayload<'a>>,
    entries: Vec<Entry>,
    next_entry: usize,
    next_v12: usize,
    /// The chunk handed out as stored (see [`Stream`]).
    stream: Option<Stream<'a>>,
    /// The chunk above the streaming threshold handed out as stored,
    /// decompressed incrementally (see [`BigStream`]).
    big: Option<BigStream<'a>>,
    /// Whether the filter lets every message through (no test per message).
    everything: bool,
    /// Every group goes through the merge (tests compare the two paths).
    merge_only: bool,
    /// Buffers for the messages of the next streams.
    spare_starts: Vec<Vec<Slot>>,
    /// Errors of the current group's chunks, handed out after its
    /// messages.
    errors: VecDeque<Error>,
    done: bool,
    end_reported: bool,
    prefetch: Option<Prefetch>,
    /// Whether the first chunk was looked at to decide on [`Prefetch`].
    prefetch_checked: bool,
    /// Threads asked for by [`Messages::read_ahead_threads`] (`None`: one
    /// per core, when the first chunks are worth it).
    ahead_threads: Option<usize>,
    /// Buffers of decompressed chunks whose messages are no longer held:
    /// the next chunks decompress into them.
    spares: Vec<Vec<u8>>,
    /// The message [`Messages::next_borrowed`] lends when it was read on
    /// its own.
    lent: Option<BagMessage<'a>>,
}

/// A chunk whose messages are handed out as they are stored: it is alone
/// in its group (no other chunk overlaps it in time) and
/// [`in_time_order`] found its messages in time order, so the merge of
/// the group would keep them as they are.
struct Stream<'a> {
    payload: ChunkPayload<'a>,
    origin: Origin,
    /// The messages, as the check read them: handing one out reads
    /// nothing of the chunk again.
    starts: Vec<Slot>,
    /// Index of the next one in `starts`.
    next: usize,
}

/// A message of a chunk in time order, as [`in_time_order`] read it.
#[derive(Debug, Clone, Copy)]
struct Slot {
    /// Position of the record in the chunk.
    at: u32,
    conn: u32,
    time: RosTime,
    /// End of its data (the data starts at `at` + [`FAST_HEADER`]).
    end: u32,
}

impl<'a> Stream<'a> {
    /// The next message passing `filter` (`None`: every message passes).
    #[inline]
    fn next_slot(&mut self, filter: Option<&MessageFilter>) -> Option<Slot> {
        while let Some(&slot) = self.starts.get(self.next) {
            self.next += 1;
            if filter.is_none_or(|f| f.matches(ChannelId(slot.conn), slot.time.to_timestamp())) {
                return Some(slot);
            }
        }
        None
    }

    /// The message at `slot`, sharing the chunk's buffer.
    #[inline]
    fn message(&self, slot: Slot) -> BagMessage<'a> {
        let at = slot.at as usize;
        BagMessage {
            conn: slot.conn,
            time: slot.time,
            data: self.payload.slice(at + FAST_HEADER, slot.end as usize),
            offset: self.origin.at(at),
        }
    }

    /// The message at `slot`, borrowed from the chunk's buffer.
    #[inline]
    fn borrow(&self, slot: Slot) -> BagMessageRef<'_> {
        let at = slot.at as usize;
        BagMessageRef {
            conn: slot.conn,
            time: slot.time,
            data: self
                .payload
                .bytes()
                .get(at + FAST_HEADER..slot.end as usize)
                .unwrap_or_default(),
            offset: self.origin.at(at),
        }
    }
}

/// A compressed chunk above [`crate::STREAM_CHUNK_ABOVE`], alone in its
/// group, whose messages [`Messages::big_stream`] found in time order on a
/// first pass (the same check as [`in_time_order`], record by record out
/// of the decoder, keeping nothing): handed out as stored on a second
/// pass, each message in its own buffer. Chunks the first pass does not
/// accept (unsorted, damaged, other record layouts) are decompressed whole
/// and merged as any other, so the result is the same, errors included.
struct BigStream<'a> {
    reader: ChunkReader<'a>,
    offset: u64,
}

impl<'a> BigStream<'a> {
    /// The next message passing `filter` (`None`: every message passes).
    fn next(&mut self, filter: Option<&MessageFilter>) -> Option<BagMessage<'a>> {
        while let Some(Ok((_, rec))) = self.reader.next_record() {
            // Connection records are the only others the first pass let by.
            let Some((conn, time, start, end)) = fast_message(&rec, 0) else {
                continue;
            };
            if filter.is_none_or(|f| f.matches(ChannelId(conn), time.to_timestamp())) {
                return Some(BagMessage {
                    conn,
                    time,
                    data: Payload::Shared(bytes::Bytes::from(rec).slice(start..end)),
                    offset: self.offset,
                });
            }
        }
        None
    }
}

/// Whether the messages of a chunk can be handed out as stored, in the
/// order the merge would give them: every record is a message in one of
/// the layouts [`fast_message`] reads, on a connection the bag declares,
/// or a connection record, and message times never decrease. Anything
/// else (other layouts, damage, unsorted times) goes through the merge,
/// which orders the messages or reports the error. `declared` says
/// whether the bag declares a connection id; `starts` gets the messages
/// (position, connection, time, end). `COLD`: `buf` is not in the cache
/// (borrowed from the file), and is read through ahead of the walk (see
/// [`WARM_AHEAD`]).
#[inline(never)]
fn in_time_order<const COLD: bool>(
    buf: &[u8],
    origin: Origin,
    declared: impl Fn(u32) -> bool,
    starts: &mut Vec<Slot>,
) -> bool {
    starts.clear();
    let mut pos = 0;
    let mut last = RosTime::default();
    let mut known = None;
    // The end of what was read through, and where the walk reads on.
    let mut warmed = 0;
    let mut next_warm = 0;
    while pos < buf.len() {
        if COLD && pos >= next_warm {
            let end = pos.saturating_add(WARM_AHEAD).min(buf.len());
            warm(buf.get(warmed.max(pos)..end).unwrap_or_default());
            warmed = end;
            next_warm = pos.saturating_add(WARM_AHEAD / 2);
        }
        if let Some((conn, time, _, end)) = fast_message(buf, pos) {
            if known != Some(conn) {
                if !declared(conn) {
                    return false;
                }
                known = Some(conn);
            }
            if time < last {
                return false;
            }
            let (Ok(at), Ok(end32)) = (u32::try_from(pos), u32::try_from(end)) else {
                return false;
            };
            starts.push(Slot {
                at,
                conn,
                time,
                end: end32,
            });
            last = time;
            pos = end;
            continue;
        }
        match Record::parse(buf, pos, origin) {
            Ok(r) if r.op == op::CONNECTION => pos = r.end,
            _ => return false,
        }
    }
    true
}

/// The decompression threads and the chunks given to them, in file order.
struct Prefetch {
    threads: Ahead<Done>,
    /// The connection ids the bag declares, sorted, for the jobs' checks.
    declared: Arc<[u32]>,
    /// Buffers for the compressed bytes of the next jobs.
    inputs: Vec<Vec<u8>>,
    /// File offsets of the chunks submitted and not yet taken.
    pending: VecDeque<u64>,
    /// Groups (counted from the front of `Messages::groups`) submitted.
    submitted: usize,
}

impl Prefetch {
    /// `threads` threads (`None`: one per core, and no thread on a single
    /// core); `None` when no thread starts.
    fn start(declared: Arc<[u32]>, threads: Option<usize>) -> Option<Prefetch> {
        const NAME: &str = "rosbag12-decompress";
        let threads = match threads {
            None => Ahead::per_core(NAME)?,
            Some(0) => return None,
            Some(n) => {
                let n = n.min(logcore::ahead::MAX_THREADS);
                Ahead::with_threads(n, n + logcore::ahead::EXTRA_JOBS, NAME)?
            }
        };
        Some(Prefetch {
            threads,
            declared,
            pending: VecDeque::new(),
            submitted: 0,
            inputs: Vec::new(),
        })
    }
}

impl<'a> Bag<'a> {
    /// Messages passing `filter` (channel = connection id, half-open time
    /// range on the bag time), in time order.
    pub fn messages(&'a self, filter: &MessageFilter) -> Messages<'a> {
        let mut groups: VecDeque<Vec<usize>> = VecDeque::new();
        let mut next_v12 = 0;
        if self.version().major == 2 {
            let mut order: Vec<usize> = (0..self.chunks.len())
                .filter(|&i| {
                    let c = &self.chunks[i];
                    let times = filter.end.is_none_or(|e| c.start_time.to_timestamp() < e)
                        && filter.start.is_none_or(|s| c.end_time.to_timestamp() >= s);
                    let conns = c
                        .counts
                        .iter()
                        .any(|&(id, n)| n > 0 && filter.matches_channel(ChannelId(id)));
                    times && conns
                })
                .collect();
            order.sort_by_key(|&i| (self.chunks[i].start_time, i));
            let mut group_end = RosTime::default();
            for i in order {
                let c = &self.chunks[i];
                match groups.back_mut() {
                    Some(g) if c.start_time <= group_end => {
                        g.push(i);
                        group_end = group_end.max(c.end_time);
                    }
                    _ => {
                        groups.push_back(vec![i]);
                        group_end = c.end_time;
                    }
                }
            }
        } else if let Some(s) = filter.start {
            next_v12 = self
                .entries_v12
                .partition_point(|e| e.time.to_timestamp() < s);
        }
        Messages {
            bag: self,
            filter: filter.clone(),
            prefetch: None,
            prefetch_checked: false,
            ahead_threads: None,
            spares: Vec::new(),
            lent: None,
            groups,
            payloads: Vec::new(),
            entries: Vec::new(),
            next_entry: 0,
            next_v12,
            stream: None,
            big: None,
            merge_only: false,
            spare_starts: Vec::new(),
            everything: filter.channels.is_none() && filter.start.is_none() && filter.end.is_none(),
            errors: VecDeque::new(),
            done: false,
            end_reported: false,
        }
    }
}

impl<'a> Messages<'a> {
    /// Sets how many threads decompress the compressed chunks ahead of the
    /// iteration (see the [module docs](self)): `0` decompresses every
    /// chunk in place, on the caller's thread, and starts no thread; `n`
    /// starts `n` threads (at most [`logcore::ahead::MAX_THREADS`]) for
    /// every bz2 or lz4 chunk, whatever its size and the number of cores.
    /// By default there is one thread per core when the first two chunks
    /// are bz2 or lz4 chunks of at least 64 KiB, and none on a single
    /// core. The messages, their order and the errors are the same in
    /// every case. Chunks already submitted are read in place when the
    /// setting changes after the iteration started.
    pub fn read_ahead_threads(mut self, threads: usize) -> Self {
        self.ahead_threads = Some(threads);
        self.prefetch = None;
        self.prefetch_checked = false;
        self
    }

    /// Whether chunks are being decompressed ahead on other threads.
    pub fn reads_ahead(&self) -> bool {
        self.prefetch.is_some()
    }

    /// Whether a chunk is being read incrementally (tests).
    #[cfg(test)]
    pub(crate) fn streaming_big_chunk(&self) -> bool {
        self.big.is_some()
    }

    fn wanted(&self, conn: u32, time: RosTime) -> bool {
        self.filter.matches(ChannelId(conn), time.to_timestamp())
    }

    /// Keeps the buffer of a decompressed chunk for the next ones when the
    /// caller dropped its messages (the buffer is unique then).
    fn recycle(&mut self, payload: ChunkPayload<'a>) {
        if let ChunkPayload::Shared { data, .. } = payload {
            if let Ok(buf) = data.try_into_mut() {
                if self.spares.len() < SPARE_BUFFERS {
                    self.spares.push(Vec::from(buf));
                }
            }
        }
    }

    /// The payload of chunk `i`: from the prefetch threads when it was
    /// given to them, else read (and decompressed) here; what the thread
    /// found of its order; and whether it is not in this core's cache yet
    /// (borrowed from the file, or written by another core).
    fn take_payload(&mut self, i: usize) -> Result<(ChunkPayload<'a>, Order, bool)> {
        let bag = self.bag;
        let info = &bag.chunks[i];
        let payload = match self.prefetch.as_mut() {
            Some(p) if p.pending.front() == Some(&info.chunk_pos) => {
                p.pending.pop_front();
                match p.threads.take() {
                    Some(done) => {
                        p.inputs.push(done.input);
                        let payload = ChunkPayload::Shared {
                            data: bytes::Bytes::from(done.out?),
                            chunk: info.chunk_pos,
                        };
                        (payload, done.order, true)
                    }
                    // The thread is gone: read it here.
                    None => (bag.read_chunk(info.chunk_pos)?.1, Order::Unchecked, false),
                }
            }
            _ => {
                let spare = self.spares.pop().unwrap_or_default();
                let payload = bag.read_chunk_into(info.chunk_pos, spare)?.1;
                let cold = matches!(payload, ChunkPayload::Borrowed { .. });
                (payload, Order::Unchecked, cold)
            }
        };
        Ok(payload)
    }

    /// Reads a group of chunks and orders its messages: a chunk alone in
    /// its group whose messages are in time order is handed out as stored
    /// ([`Stream`]); the others are indexed and merged. A chunk that fails
    /// partway keeps the messages read before the damage (they are merged
    /// with the others), and its error is handed out after the group's
    /// messages; in strict mode the chunks after it are not read. Kept out
    /// of line: `next` then stays small on the path that hands out
    /// messages.
    #[inline(never)]
    fn load_group(&mut self, group: &[usize]) {
        let mut held = std::mem::take(&mut self.payloads);
        for p in held.drain(..) {
            self.recycle(p);
        }
        self.payloads = held;
        if let Some(s) = self.stream.take() {
            self.spare_starts.push(s.starts);
            self.recycle(s.payload);
        }
        self.entries.clear();
        self.next_entry = 0;
        self.big = None;
        if let ([i], false) = (group, self.merge_only) {
            if let Some(big) = self.big_stream(*i) {
                self.big = Some(big);
                return;
            }
        }
        for &i in group {
            let at = self.bag.chunks[i].chunk_pos;
            let (payload, found, cold) = match self.take_payload(i) {
                Ok(p) => p,
                Err(e) => {
                    if self.stop(e, at) {
                        break;
                    }
                    continue;
                }
            };
            if group.len() == 1 && !self.merge_only {
                let starts = match found {
                    Order::Sorted(starts) => Some(starts),
                    Order::Merge => None,
                    Order::Unchecked => {
                        let bag = self.bag;
                        let mut starts = self.spare_starts.pop().unwrap_or_default();
                        let known = |c| bag.position(c).is_some();
                        let (buf, origin) = (payload.bytes(), payload.origin());
                        // A chunk the check turns down is read through
                        // whole below, for the merge.
                        let sorted = if cold {
                            in_time_order::<true>(buf, origin, known, &mut starts)
                        } else {
                            in_time_order::<false>(buf, origin, known, &mut starts)
                        };
                        if sorted {
                            Some(starts)
                        } else {
                            self.spare_starts.push(starts);
                            None
                        }
                    }
                };
                if let Some(starts) = starts {
                    // Read at the positions the check found: independent
                    // loads, so a chunk another core wrote needs no
                    // read-through first.
                    self.stream = Some(Stream {
                        origin: payload.origin(),
                        payload,
                        starts,
                        next: 0,
                    });
                    return;
                }
            }
            if cold {
                warm(payload.bytes());
            }
            // The entries indexed before an error are complete messages:
            // the payload is kept for them.
            let indexed = self.index_payload(self.payloads.len(), &payload, at);
            self.payloads.push(payload);
            if let Err(e) = indexed {
                if self.stop(e, at) {
                    break;
                }
            }
        }
        // Recorders write in receive order: sorting is usually not needed.
        let key = |e: &Entry| (e.time, e.chunk, e.start);
        if !self.entries.windows(2).all(|w| key(&w[0]) <= key(&w[1])) {
            self.entries.sort_unstable_by_key(key);
        }
    }

    /// Chunk `i` as a [`BigStream`], when it is compressed, above the
    /// streaming threshold, within the limits, and a first pass finds its
    /// messages in time order (see [`BigStream`]); else `None`, and the
    /// chunk is read whole.
    fn big_stream(&self, i: usize) -> Option<BigStream<'a>> {
        let bag = self.bag;
        let (rec, header) = chunk_at(bag, bag.chunks[i].chunk_pos)?;
        if !streams(header.compression, header.size, &bag.limits()) {
            return None;
        }
        let origin = Origin::Chunk {
            offset: rec.offset(),
        };
        let mut check = ChunkReader::new(header.compression, rec.data, header.size)?;
        let mut last = RosTime::default();
        while let Some(r) = check.next_record() {
            let (_, buf) = r.ok()?;
            if let Some((conn, time, _, _)) = fast_message(&buf, 0) {
                if bag.position(conn).is_none() || time < last {
                    return None;
                }
                last = time;
                continue;
            }
            match Record::parse(&buf, 0, origin) {
                Ok(r) if r.op == op::CONNECTION => {}
                _ => return None,
            }
        }
        Some(BigStream {
            reader: ChunkReader::new(header.compression, rec.data, header.size)?,
            offset: rec.offset(),
        })
    }

    /// Queues the error of the chunk at `chunk_pos` (see [`fail`](Self::fail));
    /// whether the group's other chunks are to be left unread (strict mode).
    fn stop(&mut self, e: Error, chunk_pos: u64) -> bool {
        let e = self.fail(e, chunk_pos);
        self.errors.push_back(e);
        self.done
    }

    /// Adds the messages of `payload` (the chunk at `chunk_offset`, number
    /// `order` of the group's payloads) that pass the filter to the
    /// entries. On an error, the entries added before it stay: each is a
    /// complete message of the payload.
    fn index_payload(
        &mut self,
        order: usize,
        payload: &ChunkPayload<'a>,
        chunk_offset: u64,
    ) -> Result<()> {
        let bag = self.bag;
        let filter = &self.filter;
        let everything = self.everything;
        let entries = &mut self.entries;
        let buf = payload.bytes();
        let origin = payload.origin();
        let mut pos = 0;
        while pos < buf.len() {
            // The two header layouts writers use for message data (ROS:
            // conn, op, time; rosbags: op, conn, time) are read in place;
            // anything else goes through the full record parser.
            if let Some((conn, time, start, end)) = fast_message(buf, pos) {
                if bag.position(conn).is_none() {
                    return Err(origin.malformed(
                        pos,
                        "a message on a connection the bag declares",
                        format!("connection {conn}"),
                    ));
                }
                if everything || filter.matches(ChannelId(conn), time.to_timestamp()) {
                    entries.push(Entry {
                        time,
                        chunk: order,
                        start,
                        end,
                        conn,
                        offset: match origin {
                            Origin::File { .. } => origin.at(pos),
                            Origin::Chunk { .. } => chunk_offset,
                        },
                    });
                }
                pos = end;
                continue;
            }
            let r = Record::parse(buf, pos, origin)?;
            pos = r.end;
            if !is_message(&r) {
                if r.op == op::CONNECTION {
                    continue;
                }
                return Err(unexpected(
                    &r,
                    "a connection or message data record in a chunk",
                ));
            }
            let h = MessageDataHeader::from_record(&r)?;
            if bag.position(h.conn).is_none() {
                return Err(r.malformed(
                    "a message on a connection the bag declares",
                    format!("connection {}", h.conn),
                ));
            }
            if filter.matches(ChannelId(h.conn), h.time.to_timestamp()) {
                let offset = match r.origin {
                    Origin::File { .. } => r.offset(),
                    Origin::Chunk { .. } => chunk_offset,
                };
                entries.push(Entry {
                    time: h.time,
                    chunk: order,
                    start: r.data_pos,
                    end: r.end,
                    conn: h.conn,
                    offset,
                });
            }
        }
        Ok(())
    }

    /// Hands the compressed chunks of the next groups to the prefetch
    /// threads, as far as their window allows.
    fn submit_ahead(&mut self) {
        if !self.prefetch_checked {
            // Worth threads only for slow chunks, more than one (unless
            // threads were asked for).
            self.prefetch_checked = true;
            let pays = |i: &usize| {
                self.bag
                    .chunk_header_and_len(self.bag.chunks[*i].chunk_pos)
                    .is_ok_and(|(h, _)| ahead_pays(&h))
            };
            let wanted = match self.ahead_threads {
                None => {
                    self.groups
                        .iter()
                        .flatten()
                        .take(2)
                        .filter(|i| pays(i))
                        .count()
                        == 2
                }
                Some(n) => n > 0,
            };
            if wanted {
                let declared = self.bag.connections.iter().map(|c| c.id).collect();
                self.prefetch = Prefetch::start(declared, self.ahead_threads);
            }
        }
        let Some(p) = self.prefetch.as_mut() else {
            return;
        };
        // `submitted` counts groups from the front of `groups`, which the
        // caller is about to pop.
        while p.threads.has_room() {
            let Some(group) = self.groups.get(p.submitted) else {
                break;
            };
            p.submitted += 1;
            for &i in group {
                let pos = self.bag.chunks[i].chunk_pos;
                let every = self.ahead_threads.is_some();
                let Some(mut job) = job(self.bag, pos, &mut self.spares, &mut p.inputs, every)
                else {
                    continue;
                };
                // The thread also checks the order of a chunk alone in its
                // group, on the bytes it has just written.
                if group.len() == 1 && !self.merge_only {
                    job.check = Some((
                        p.declared.clone(),
                        self.spare_starts.pop().unwrap_or_default(),
                    ));
                }
                if !p.threads.submit(move || job.run()) {
                    self.prefetch = None;
                    return;
                }
                p.pending.push_back(pos);
            }
        }
        p.submitted = p.submitted.saturating_sub(1);
    }

    fn next_v12(&mut self) -> Option<Result<BagMessage<'a>>> {
        let entries = &self.bag.entries_v12;
        while let Some(e) = entries.get(self.next_v12).copied() {
            self.next_v12 += 1;
            let t = e.time.to_timestamp();
            if self.filter.end.is_some_and(|end| t >= end) {
                self.next_v12 = entries.len();
                break;
            }
            if !self.wanted(e.conn, e.time) {
                continue;
            }
            return Some(self.read_v12(e.pos, e.conn));
        }
        None
    }

    /// Reads the 1.2 message at `pos`, skipping a definition record first
    /// (spec 3.3: a topic's first index entry points at its definition).
    fn read_v12(&self, pos: u64, conn: u32) -> Result<BagMessage<'a>> {
        let data = self.bag.data();
        let mut at = usize::try_from(pos).unwrap_or(usize::MAX);
        let origin = Origin::File { base: 0 };
        for _ in 0..2 {
            let rec = Record::parse(data, at, origin)?;
            match rec.op {
                op::MSG_DEF => at = rec.end,
                op::MSG_DATA => {
                    let sec = rec.header.u32("sec", "message data")?;
                    let nsec = rec.header.u32("nsec", "message data")?;
                    let topic = rec.header.get("topic").map(|f| f.value).unwrap_or_default();
                    let expected = self.bag.connection(conn).map(|c| c.topic.as_bytes());
                    if expected != Some(topic) {
                        return Err(rec.malformed(
                            format!(
                                "a message of topic {} (the index entry's)",
                                String::from_utf8_lossy(expected.unwrap_or_default())
                            ),
                            format!("topic {}", String::from_utf8_lossy(topic)),
                        ));
                    }
                    return Ok(BagMessage {
                        conn,
                        time: RosTime { sec, nsec },
                        data: Payload::Borrowed(rec.data),
                        offset: rec.offset(),
                    });
                }
                _ => break,
            }
        }
        let rec = Record::parse(data, at, origin)?;
        Err(unexpected(
            &rec,
            "a message data record where the index points",
        ))
    }

    fn fail(&mut self, e: Error, offset: u64) -> Error {
        if self.filter.mode == ReadMode::Strict {
            self.done = true;
            e
        } else {
            Error::skipped(offset, 0, e.to_string())
        }
    }
}

/// Bytes before the data of a record [`fast_message`] reads: header
/// length, the 38-byte header, data length.
const FAST_HEADER: usize = 46;

/// A message data record at `pos` whose 38-byte header is one of the two
/// layouts writers use: `conn=`, `op=\x02`, `time=` (ROS, sorted names) or
/// `op=\x02`, `conn=`, `time=` (rosbags). Returns (conn, time, data start,
/// record end) when it is, and the data fits in `buf`.
#[inline]
fn fast_message(buf: &[u8], pos: usize) -> Option<(u32, RosTime, usize, usize)> {
    // A fixed-size array: the reads below need no bounds checks.
    let rec: &[u8; FAST_HEADER] = buf
        .get(pos..pos.checked_add(FAST_HEADER)?)?
        .try_into()
        .ok()?;
    if rec[..4] != [38, 0, 0, 0] {
        return None;
    }
    let h = &rec[4..42];
    let word = |i: usize| u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
    let conn = if h[..9] == *b"\x09\0\0\0conn=" && h[13..21] == *b"\x04\0\0\0op=\x02" {
        word(9)
    } else if h[..17] == *b"\x04\0\0\0op=\x02\x09\0\0\0conn=" {
        word(17)
    } else {
        return None;
    };
    if h[21..30] != *b"\x0d\0\0\0time=" {
        return None;
    }
    let time = RosTime {
        sec: word(30),
        nsec: word(34),
    };
    let data_len = u32::from_le_bytes([rec[42], rec[43], rec[44], rec[45]]) as usize;
    let start = pos + FAST_HEADER;
    let end = start.checked_add(data_len)?;
    (end <= buf.len()).then_some((conn, time, start, end))
}

/// Decompressed chunk buffers kept for reuse.
const SPARE_BUFFERS: usize = 2 + logcore::ahead::MAX_THREADS + logcore::ahead::EXTRA_JOBS;

/// A compressed chunk handed to a decompression thread.
struct Job {
    /// Whether to run [`in_time_order`] on the result: the declared
    /// connection ids, and a buffer for the messages it finds.
    check: Option<(Arc<[u32]>, Vec<Slot>)>,
    compression: Compression,
    data: Vec<u8>,
    size: u32,
    offset: u64,
    spare: Vec<u8>,
}

/// A job's results.
struct Done {
    /// The decompressed chunk.
    out: Result<Vec<u8>>,
    /// The buffer of the compressed bytes (for the next job).
    input: Vec<u8>,
    /// What the check found, when the job was asked for one.
    order: Order,
}

/// What is known of the order of a chunk's messages.
enum Order {
    /// Nothing yet.
    Unchecked,
    /// [`in_time_order`]: in order, with the messages it read.
    Sorted(Vec<Slot>),
    /// Not in order, or not readable by the fast path: merged.
    Merge,
}

impl Job {
    fn run(self) -> Done {
        let out = decompress_into(
            self.compression,
            &self.data,
            self.size,
            self.offset,
            self.spare,
        );
        let order = match (&out, self.check) {
            (Ok(buf), Some((declared, mut starts))) => {
                let origin = Origin::Chunk {
                    offset: self.offset,
                };
                let known = |c: u32| declared.binary_search(&c).is_ok();
                if in_time_order::<false>(buf, origin, known, &mut starts) {
                    Order::Sorted(starts)
                } else {
                    Order::Merge
                }
            }
            _ => Order::Unchecked,
        };
        Done {
            out,
            input: self.data,
            order,
        }
    }
}

/// lz4 chunks declaring fewer uncompressed bytes than this are
/// decompressed in place: handing so little work to another thread costs
/// more than the work.
const LZ4_AHEAD_FROM: u32 = 64 << 10;

/// Whether the chunk `header` describes is worth decompressing on another
/// thread: bz2 always, lz4 from [`LZ4_AHEAD_FROM`] bytes.
fn ahead_pays(header: &ChunkHeader) -> bool {
    match header.compression {
        Compression::Bz2 => true,
        Compression::Lz4 => header.size >= LZ4_AHEAD_FROM,
        Compression::None => false,
    }
}

/// The chunk record at file position `pos` and its chunk header; `None`
/// for the chunk the file's end cuts or one that does not parse, which
/// the callers leave to be read in place (its complete messages read,
/// its errors reported there).
fn chunk_at<'a>(bag: &Bag<'a>, pos: u64) -> Option<(Record<'a>, ChunkHeader)> {
    if bag.is_cut_chunk(pos) {
        return None;
    }
    let rec = Record::parse(
        bag.data(),
        usize::try_from(pos).ok()?,
        Origin::File { base: 0 },
    )
    .ok()?;
    let header = ChunkHeader::from_record(&rec).ok()?;
    Some((rec, header))
}

/// The decompression job of the compressed chunk at `pos` (every one
/// when `every`, else those [`ahead_pays`] accepts); `None` for any other
/// or an unreadable one (read in place, errors reported there). The job
/// takes a buffer of `spares` for its output and one of `inputs` for the
/// copy of the compressed bytes, when there are (none when there is no
/// job).
fn job(
    bag: &Bag<'_>,
    pos: u64,
    spares: &mut Vec<Vec<u8>>,
    inputs: &mut Vec<Vec<u8>>,
    every: bool,
) -> Option<Job> {
    let (rec, header) = chunk_at(bag, pos)?;
    // Over the limit: read in place, which reports it; above the
    // streaming threshold: read in place, incrementally when it can be.
    let wanted = if every {
        header.compression != Compression::None
    } else {
        ahead_pays(&header)
    };
    if !wanted
        || bag.limits().check_chunk(rec.offset(), header.size).is_err()
        || streams(header.compression, header.size, &bag.limits())
    {
        return None;
    }
    let mut data = inputs.pop().unwrap_or_default();
    data.clear();
    data.extend_from_slice(rec.data);
    Some(Job {
        check: None,
        compression: header.compression,
        data,
        size: header.size,
        offset: rec.offset(),
        spare: spares.pop().unwrap_or_default(),
    })
}

/// How far ahead of its walk [`in_time_order`] reads a chunk that is not
/// in the cache through (see [`warm`]), in bytes: read through half of
/// this at a time, the stretch being walked stays in the core's own
/// cache, where reading the whole chunk (about 1 MiB as recorders write
/// them) first before the walk measured 15-20% slower.
const WARM_AHEAD: usize = 256 << 10;

/// Reads `data` through at cache-line stride, so that the record walk that
/// follows finds it in the cache (see the module docs).
#[inline(never)]
fn warm(data: &[u8]) {
    let mut x = 0u8;
    for b in data.iter().step_by(64) {
        x ^= *b;
    }
    std::hint::black_box(x);
}

impl<'a> Iterator for Messages<'a> {
    type Item = Result<BagMessage<'a>>;

    /// The next message of the chunk handed out as stored, in line; the
    /// rest (the next chunks, merged groups, errors) out of line.
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if let Some(s) = self.stream.as_mut() {
            let filter = (!self.everything).then_some(&self.filter);
            if let Some(slot) = s.next_slot(filter) {
                return Some(Ok(s.message(slot)));
            }
        }
        self.next_slow()
    }
}

impl<'a> Messages<'a> {
    /// The next message, as [`Iterator::next`] gives it, but borrowed from
    /// the iterator: the data of a compressed chunk's message is lent out
    /// of the chunk's buffer instead of being shared with a reference
    /// count, which saves two atomic operations a message for callers that
    /// look at each message and let it go. Messages, order and errors are
    /// those of [`Iterator::next`]; the two can be mixed.
    ///
    /// ```no_run
    /// # let bytes = std::fs::read("testdata/rosbag/sample-lz4.bag")?;
    /// let bag = rosbag12::Bag::new(&bytes)?;
    /// let mut messages = bag.messages(&logcore::MessageFilter::all());
    /// let mut total = 0;
    /// while let Some(m) = messages.next_borrowed() {
    ///     total += m?.data.len();
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn next_borrowed(&mut self) -> Option<Result<BagMessageRef<'_>>> {
        let filter = (!self.everything).then_some(&self.filter);
        let mut found = self
            .stream
            .as_mut()
            .and_then(|s| s.next_slot(filter))
            .map(Found::Stream);
        loop {
            let f = match found.take() {
                Some(f) => f,
                None => match self.advance()? {
                    Ok(f) => f,
                    Err(e) => return Some(Err(e)),
                },
            };
            // `advance` finds slots of the current stream and entries of
            // kept payloads only.
            let there = match &f {
                Found::Stream(_) => self.stream.is_some(),
                Found::Entry(e) => e.chunk < self.payloads.len(),
                Found::Owned(_) => true,
            };
            if !there {
                continue;
            }
            return Some(Ok(match f {
                Found::Stream(slot) => self.stream.as_ref()?.borrow(slot),
                Found::Entry(e) => BagMessageRef {
                    conn: e.conn,
                    time: e.time,
                    data: self
                        .payloads
                        .get(e.chunk)?
                        .bytes()
                        .get(e.start..e.end)
                        .unwrap_or_default(),
                    offset: e.offset,
                },
                Found::Owned(m) => self.lent.insert(m).borrowed(),
            }));
        }
    }

    /// [`Iterator::next`] past the messages of the current stream.
    #[inline(never)]
    fn next_slow(&mut self) -> Option<Result<BagMessage<'a>>> {
        loop {
            let found = match self.advance()? {
                Ok(found) => found,
                Err(e) => return Some(Err(e)),
            };
            // `advance` finds slots of the current stream and entries of
            // kept payloads only.
            let m = match found {
                Found::Stream(slot) => self.stream.as_ref().map(|s| s.message(slot)),
                Found::Entry(e) => self.payloads.get(e.chunk).map(|p| BagMessage {
                    conn: e.conn,
                    time: e.time,
                    data: p.slice(e.start, e.end),
                    offset: e.offset,
                }),
                Found::Owned(m) => Some(m),
            };
            if let Some(m) = m {
                return Some(Ok(m));
            }
        }
    }

    /// Where the next message is, past the messages of the current
    /// stream's caller: the next chunks, merged groups, errors.
    fn advance(&mut self) -> Option<Result<Found<'a>>> {
        loop {
            if let Some(s) = self.stream.as_mut() {
                let filter = (!self.everything).then_some(&self.filter);
                if let Some(slot) = s.next_slot(filter) {
                    return Some(Ok(Found::Stream(slot)));
                }
                if let Some(s) = self.stream.take() {
                    self.spare_starts.push(s.starts);
                    self.recycle(s.payload);
                }
            }
            if let Some(&e) = self.entries.get(self.next_entry) {
                self.next_entry += 1;
                // Every entry is indexed from a payload kept in `payloads`.
                if self.payloads.get(e.chunk).is_none() {
                    continue;
                }
                return Some(Ok(Found::Entry(e)));
            }
            if let Some(b) = self.big.as_mut() {
                let filter = (!self.everything).then_some(&self.filter);
                if let Some(m) = b.next(filter) {
                    return Some(Ok(Found::Owned(m)));
                }
                self.big = None;
            }
            if let Some(e) = self.errors.pop_front() {
                return Some(Err(e));
            }
            if self.done {
                return None;
            }
            if self.bag.version().major == 2 {
                self.submit_ahead();
                if let Some(group) = self.groups.pop_front() {
                    self.load_group(&group);
                    continue;
                }
            } else if let Some(r) = self.next_v12() {
                return Some(match r {
                    Ok(m) => Ok(Found::Owned(m)),
                    Err(e) => {
                        let at = e.offset().unwrap_or(0);
                        Err(self.fail(e, at))
                    }
                });
            }
            self.done = true;
            if !self.end_reported {
                self.end_reported = true;
                if let Some(e) = self.bag.end_error() {
                    return Some(Err(e.clone()));
                }
            }
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A message data record with the given header fields, in order.
    fn record(fields: &[(&str, &[u8])], data: &[u8]) -> Vec<u8> {
        let mut h = Vec::new();
        for (name, value) in fields {
            let len = (name.len() + 1 + value.len()) as u32;
            h.extend_from_slice(&len.to_le_bytes());
            h.extend_from_slice(name.as_bytes());
            h.push(b'=');
            h.extend_from_slice(value);
        }
        let mut out = (h.len() as u32).to_le_bytes().to_vec();
        out.extend_from_slice(&h);
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn fast_path_reads_both_writers_layouts_like_the_parser() {
        let conn = 7u32.to_le_bytes();
        let time = [0x10, 0, 0, 0, 0x20, 0, 0, 0];
        let layouts: [&[(&str, &[u8])]; 2] = [
            &[("conn", &conn), ("op", &[2]), ("time", &time)],
            &[("op", &[2]), ("conn", &conn), ("time", &time)],
        ];
        for fields in layouts {
            let mut buf = vec![0xAA; 3];
            buf.extend(record(fields, b"payload"));
            let (c, t, start, end) = fast_message(&buf, 3).unwrap();
            let r = Record::parse(&buf, 3, Origin::File { base: 0 }).unwrap();
            let h = MessageDataHeader::from_record(&r).unwrap();
            assert_eq!((c, t), (h.conn, h.time));
            assert_eq!((start, end), (r.data_pos, r.end));
            assert_eq!(&buf[start..end], b"payload");
            // Cut data: left to the parser, which reports it.
            assert!(fast_message(&buf[..buf.len() - 1], 3).is_none());
        }
        // Other layouts (another field order, an extra field, another op)
        // go through the parser.
        for fields in [
            &[("time", &time[..]), ("conn", &conn), ("op", &[2])][..],
            &[("conn", &conn), ("op", &[2]), ("time", &time), ("x", b"")],
            &[("conn", &conn), ("op", &[7]), ("time", &time)],
        ] {
            assert!(fast_message(&record(fields, b""), 0).is_none());
        }
    }
}

#[cfg(test)]
mod file_order_tests {
    use super::*;
    use crate::{Connection, Writer, WriterOptions};
    use logcore::Timestamp;
    use std::path::{Path, PathBuf};

    /// Bags of `dir` (empty when it is absent).
    fn bags_in(dir: &Path) -> Vec<PathBuf> {
        robolog_testkit::files_with_ext(dir, &["bag"])
    }

    /// An item of an iterator, comparable: a message in full, an error as
    /// its text.
    type Item = std::result::Result<(u32, RosTime, Vec<u8>, u64), String>;

    fn item(r: Result<BagMessage<'_>>) -> Item {
        r.map(|m| (m.conn, m.time, m.data.to_vec(), m.offset))
            .map_err(|e| e.to_string())
    }

    /// Reads `file` with and without the file-order path under several
    /// filters and both modes; returns how many messages were handed out
    /// as stored and how many items were compared.
    fn compare(file: &[u8], what: &str) -> (usize, usize) {
        let Ok(bag) = Bag::new(file) else {
            return (0, 0);
        };
        let mut filters = vec![MessageFilter::all()];
        if let Some((a, b)) = bag.time_range() {
            let (a, b) = (a.to_timestamp().0, b.to_timestamp().0);
            let mid = a + (b - a) / 2;
            filters.push(MessageFilter {
                start: Some(Timestamp(a + (b - a) / 4)),
                end: Some(Timestamp(mid)),
                ..MessageFilter::all()
            });
        }
        if let Some(c) = bag.connections().first() {
            filters.push(MessageFilter {
                channels: Some([ChannelId(c.id)].into_iter().collect()),
                ..MessageFilter::all()
            });
        }
        let mut streamed = 0;
        let mut compared = 0;
        for filter in filters {
            for mode in [ReadMode::Strict, ReadMode::Lenient] {
                let filter = MessageFilter {
                    mode,
                    ..filter.clone()
                };
                let mut merged = bag.messages(&filter);
                merged.merge_only = true;
                let want: Vec<Item> = merged.map(item).collect();
                let mut fast = bag.messages(&filter);
                let mut got = Vec::new();
                while let Some(r) = fast.next() {
                    if fast.stream.is_some() && fast.entries.len() == fast.next_entry {
                        streamed += 1;
                    }
                    got.push(item(r));
                }
                assert_eq!(got, want, "{what}, {filter:?}");
                // Borrowed, and borrowed and shared in turn, in place and
                // with read-ahead threads: the same again.
                for threads in [0, 2] {
                    for mix in [false, true] {
                        let mut lent = bag.messages(&filter).read_ahead_threads(threads);
                        let mut got = Vec::new();
                        loop {
                            let r = if mix && got.len() % 2 == 1 {
                                lent.next().map(item)
                            } else {
                                lent.next_borrowed().map(|r| {
                                    r.map(|m| (m.conn, m.time, m.data.to_vec(), m.offset))
                                        .map_err(|e| e.to_string())
                                })
                            };
                            match r {
                                Some(i) => got.push(i),
                                None => break,
                            }
                        }
                        assert_eq!(got, want, "{what}, {filter:?}, borrowed ({threads}, {mix})");
                    }
                }
                compared += want.len();
            }
        }
        (streamed, compared)
    }

    #[test]
    fn file_order_path_gives_the_merge_result_on_test_and_corpus_bags() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let mut paths = bags_in(&root.join("../../testdata/rosbag"));
        assert!(paths.len() >= 5, "testdata bags missing");
        let corpus = robolog_testkit::corpus_root().join("rosbag");
        let corpus_bags = bags_in(&corpus);
        if corpus_bags.is_empty() {
            eprintln!("no rosbag corpus at {}: testdata only", corpus.display());
        }
        paths.extend(corpus_bags);
        let (mut streamed, mut compared) = (0, 0);
        for p in &paths {
            let bytes = std::fs::read(p).unwrap();
            let (s, c) = compare(&bytes, &p.display().to_string());
            streamed += s;
            compared += c;
            // Chunks cut short or damaged: both paths report the same.
            for cut in [bytes.len() * 3 / 4, bytes.len() / 2] {
                compare(&bytes[..cut], &format!("{} cut at {cut}", p.display()));
            }
        }
        assert!(streamed > 0 && compared > 1000, "{streamed} {compared}");
    }

    #[test]
    fn overlapping_chunks_and_unsorted_messages_are_merged() {
        // The corpus bag whose chunks overlap in time (spec 2.7).
        let path =
            robolog_testkit::corpus_root().join("rosbag/rosbagjs-example-unsorted-chunks.bag");
        if let Ok(bytes) = std::fs::read(&path) {
            let bag = Bag::new(&bytes).unwrap();
            let c = bag.chunk_infos();
            assert!(
                c.iter().any(|a| c
                    .iter()
                    .any(|b| a.chunk_pos < b.chunk_pos && b.start_time <= a.end_time)),
                "no overlap in {}",
                path.display()
            );
            compare(&bytes, "unsorted chunks");
            let times: Vec<RosTime> = bag
                .messages(&MessageFilter::all())
                .map(|m| m.unwrap().time)
                .collect();
            assert!(times.windows(2).all(|w| w[0] <= w[1]));
            assert!(!times.is_empty());
        }
        // Written here: chunks of 3 messages, times going back inside some
        // chunks, and chunks overlapping others.
        for compression in [Compression::None, Compression::Lz4, Compression::Bz2] {
            let options = WriterOptions {
                chunk_threshold: 200,
                ..WriterOptions::compressed(compression)
            };
            let mut w = Writer::new(std::io::Cursor::new(Vec::new()), options).unwrap();
            let c = w
                .add_connection(Connection::new(
                    0,
                    "/t",
                    "std_msgs/String",
                    "*",
                    "string data",
                ))
                .unwrap();
            // Chunks (the first holds the connection): [1], [3, 2, 4] alone in
            // its time range but unsorted, [5, 6, 7], [8, 9, 30] overlapping
            // the ones after it, ...
            let secs = [
                1, 3, 2, 4, 5, 6, 7, 8, 9, 30, 10, 11, 12, 13, 14, 15, 16, 17,
            ];
            for (i, sec) in secs.into_iter().enumerate() {
                let mut data = 48u32.to_le_bytes().to_vec();
                data.extend([b'a' + i as u8; 48]);
                w.write(c, RosTime { sec, nsec: 0 }, &data).unwrap();
            }
            w.finish().unwrap();
            let file = w.into_inner().into_inner();
            let (streamed, compared) = compare(&file, &format!("{compression:?}"));
            assert!(streamed > 0, "{compression:?}");
            assert!(compared >= secs.len(), "{compression:?}");
            let bag = Bag::new(&file).unwrap();
            let got: Vec<u32> = bag
                .messages(&MessageFilter::all())
                .map(|m| m.unwrap().time.sec)
                .collect();
            let mut want = secs.to_vec();
            want.sort_unstable();
            assert_eq!(got, want, "{compression:?}");
        }
    }
}

#[cfg(test)]
mod damage_tests {
    use super::*;
    use crate::{Connection, Writer, WriterOptions};

    /// What an iteration yields: a message as (conn, time, data), an error
    /// as the offset it names.
    #[derive(Debug, Clone, PartialEq, Eq)]
    enum Item {
        Message(u32, RosTime, Vec<u8>),
        Error(Option<u64>),
    }

    /// A bag of the given messages (connection index, sec)
    /// and the data written for each. Every record is 64 bytes long: a
    /// chunk that starts with a connection's first message (which puts its
    /// connection record in the chunk) holds 5 messages; one that does not,
    /// up to 10.
    fn bag_of(
        messages: &[(usize, u32)],
        compression: Compression,
    ) -> (Vec<u8>, Vec<u32>, Vec<Vec<u8>>) {
        let connection =
            |n: u32| Connection::new(n, format!("/t{n}"), "std_msgs/String", "*", "string data");
        let options = WriterOptions {
            chunk_threshold: crate::write::connection_record(&connection(0)).len() + 5 * 64 - 1,
            ..WriterOptions::compressed(compression)
        };
        let mut w = Writer::new(std::io::Cursor::new(Vec::new()), options).unwrap();
        let conns: Vec<u32> = (0..2)
            .map(|n| w.add_connection(connection(n)).unwrap())
            .collect();
        let mut datas = Vec::new();
        for (i, &(c, sec)) in messages.iter().enumerate() {
            // 18 bytes: 46 of header make a 64-byte record.
            let mut data = 14u32.to_le_bytes().to_vec();
            data.extend(format!("message-{i:06}").bytes());
            w.write(conns[c], RosTime { sec, nsec: 7 }, &data).unwrap();
            datas.push(data);
        }
        w.finish().unwrap();
        (w.into_inner().into_inner(), conns, datas)
    }

    /// Damages the header length of the message record holding `data`;
    /// returns the record's position in `buf`.
    fn damage_record(buf: &mut [u8], data: &[u8]) -> usize {
        let data_at = buf.windows(data.len()).position(|w| w == data).unwrap();
        // Data length (4) after a 38-byte header and its length (4).
        let record = data_at - 4 - 38 - 4;
        assert_eq!(buf[record..record + 4], 38u32.to_le_bytes());
        buf[record..record + 4].copy_from_slice(&0xFFFF_FF00u32.to_le_bytes());
        record
    }

    /// Damages the record of message `i` (found by its data) in an
    /// uncompressed bag; returns the position of the chunk holding it.
    fn damage(file: &mut [u8], datas: &[Vec<u8>], i: usize) -> u64 {
        let record = damage_record(file, &datas[i]);
        let bag = Bag::new(file).unwrap();
        bag.chunk_infos()
            .iter()
            .map(|c| c.chunk_pos)
            .filter(|&p| p < record as u64)
            .max()
            .unwrap()
    }

    fn read(file: &[u8], mode: ReadMode, merge_only: bool) -> Vec<Item> {
        let bag = Bag::new(file).unwrap();
        let mut it = bag.messages(&MessageFilter::all().mode(mode));
        it.merge_only = merge_only;
        it.map(|r| match r {
            Ok(m) => Item::Message(m.conn, m.time, m.data.to_vec()),
            Err(e) => Item::Error(e.offset()),
        })
        .collect()
    }

    /// The messages `which` of those written, in time order (then as
    /// written).
    fn expected(
        messages: &[(usize, u32)],
        conns: &[u32],
        datas: &[Vec<u8>],
        which: impl Iterator<Item = usize>,
    ) -> Vec<Item> {
        let mut which: Vec<usize> = which.collect();
        which.sort_by_key(|&i| (messages[i].1, i));
        which
            .into_iter()
            .map(|i| {
                let (c, sec) = messages[i];
                Item::Message(conns[c], RosTime { sec, nsec: 7 }, datas[i].clone())
            })
            .collect()
    }

    #[test]
    fn messages_read_before_damage_in_a_chunk_come_first_with_their_data() {
        // Chunks 0..5, 5..10 (the first message of connection 1 is the
        // first of the chunk) and 10..15, in time order: handed out as
        // stored when undamaged. Message 7 (the third of the second chunk)
        // is damaged.
        let messages: Vec<(usize, u32)> = (0..15)
            .map(|i| (usize::from(i >= 5 && i % 2 == 1), 10 + i as u32))
            .collect();
        let (mut file, conns, datas) = bag_of(&messages, Compression::None);
        let bag = Bag::new(&file).unwrap();
        assert_eq!(bag.chunk_infos().len(), 3);
        assert_eq!(
            read(&file, ReadMode::Lenient, false),
            expected(&messages, &conns, &datas, 0..15)
        );
        let at = damage(&mut file, &datas, 7);
        for merge_only in [false, true] {
            let mut want = expected(&messages, &conns, &datas, 0..7);
            want.push(Item::Error(Some(at)));
            want.extend(expected(&messages, &conns, &datas, 10..15));
            assert_eq!(read(&file, ReadMode::Lenient, merge_only), want);
            let got = read(&file, ReadMode::Strict, merge_only);
            assert_eq!(got[..7], want[..7]);
            assert!(matches!(got[7], Item::Error(_)), "{:?}", got[7]);
            assert_eq!(got.len(), 8);
        }
    }

    #[test]
    fn messages_read_before_damage_in_a_merged_group_are_merged() {
        // Two chunks overlapping in time (odd and even seconds, read as one
        // group and merged), then one more chunk.
        let mut messages: Vec<(usize, u32)> = Vec::new();
        messages.extend((0..5).map(|i| (0, 1 + 2 * i)));
        messages.extend((0..5).map(|i| (1, 2 + 2 * i)));
        messages.extend((0..5).map(|i| (0, 20 + i)));
        let (file, conns, datas) = bag_of(&messages, Compression::None);
        assert_eq!(Bag::new(&file).unwrap().chunk_infos().len(), 3);
        assert_eq!(
            read(&file, ReadMode::Lenient, false),
            expected(&messages, &conns, &datas, 0..15)
        );
        // Damage in the first chunk of the group (message 2) and in the
        // second (message 8).
        for (damaged, first, second) in [(2, 0..2, 5..10), (8, 0..5, 5..8)] {
            let mut file = file.clone();
            let at = damage(&mut file, &datas, damaged);
            let mut want = expected(&messages, &conns, &datas, first.clone().chain(second));
            want.push(Item::Error(Some(at)));
            want.extend(expected(&messages, &conns, &datas, 10..15));
            // Strict: the chunks of the group after the damaged one are
            // not read.
            let mut strict = if damaged < 5 {
                expected(&messages, &conns, &datas, first)
            } else {
                want[..want.len() - 6].to_vec()
            };
            strict.push(Item::Error(None));
            for merge_only in [false, true] {
                assert_eq!(read(&file, ReadMode::Lenient, merge_only), want);
                let mut got = read(&file, ReadMode::Strict, merge_only);
                if let Some(Item::Error(o)) = got.last_mut() {
                    *o = None;
                }
                assert_eq!(got, strict);
            }
        }
    }

    /// The bag with the record of message `i` (found by its data) damaged
    /// inside the last chunk, recompressed; and the chunk's position.
    fn damage_last_chunk(file: &[u8], datas: &[Vec<u8>], i: usize) -> (Vec<u8>, u64) {
        let bag = Bag::new(file).unwrap();
        let at = bag.chunk_infos().iter().map(|c| c.chunk_pos).max().unwrap();
        let (header, payload) = bag.read_chunk(at).unwrap();
        let mut plain = payload.bytes().to_vec();
        damage_record(&mut plain, &datas[i]);
        let rec = Record::parse(file, at as usize, Origin::File { base: 0 }).unwrap();
        let compressed = crate::compression::compress(header.compression, &plain).unwrap();
        let chunk = crate::record::encode_record(
            &[
                ("compression", header.compression.name().as_bytes()),
                ("op", &[op::CHUNK]),
                ("size", &(plain.len() as u32).to_le_bytes()),
            ],
            &compressed,
        );
        let mut out = file[..at as usize].to_vec();
        out.extend_from_slice(&chunk);
        out.extend_from_slice(&file[rec.end..]);
        // The index after the last chunk moved: the bag header's
        // `index_pos` follows.
        let field = out.windows(10).position(|w| w == b"index_pos=").unwrap() + 10;
        let index_pos = u64::from_le_bytes(out[field..field + 8].try_into().unwrap());
        let moved = index_pos + chunk.len() as u64 - (rec.end as u64 - at);
        out[field..field + 8].copy_from_slice(&moved.to_le_bytes());
        (out, at)
    }

    #[test]
    fn damage_inside_a_compressed_chunk_keeps_the_messages_before_it() {
        let messages: Vec<(usize, u32)> = (0..15)
            .map(|i| (usize::from(i >= 5 && i % 2 == 1), 10 + i as u32))
            .collect();
        for compression in [Compression::None, Compression::Lz4, Compression::Bz2] {
            let (file, conns, datas) = bag_of(&messages, compression);
            assert_eq!(Bag::new(&file).unwrap().chunk_infos().len(), 3);
            // Message 12: the third of the last chunk (10..15).
            let (file, at) = damage_last_chunk(&file, &datas, 12);
            let mut want = expected(&messages, &conns, &datas, 0..12);
            want.push(Item::Error(Some(at)));
            for merge_only in [false, true] {
                let what = format!("{compression:?}, merge only: {merge_only}");
                assert_eq!(read(&file, ReadMode::Lenient, merge_only), want, "{what}");
                let got = read(&file, ReadMode::Strict, merge_only);
                assert_eq!(got[..12], want[..12], "{what}");
                assert!(matches!(got[12], Item::Error(_)), "{what}: {:?}", got[12]);
                assert_eq!(got.len(), 13, "{what}");
            }
        }
    }
}
