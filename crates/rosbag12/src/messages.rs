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
//! 1.2: the index (or the scan) lists every message with its file offset;
//! entries are sorted by (time, offset) and read in place.
//!
//! bz2 chunks are decompressed ahead on other threads when the machine has
//! more than one core (one thread per core, at most [`PREFETCH_THREADS`]):
//! while the messages of one chunk are handed out, the next ones are being
//! decompressed in parallel. (lz4 decompresses at memory speed: handing
//! its chunks to another core costs more than it saves.) The threads get a
//! copy of the compressed bytes (cheap next to decompressing them), so the
//! bag's borrowed data never crosses threads; results come back in order
//! and errors are reported exactly where the chunk would have been read.

use logcore::FormatError;
use std::collections::VecDeque;
use std::sync::mpsc;

use logcore::{ChannelId, MessageFilter, Payload, ReadMode};

use crate::bag::Bag;
use crate::chunk::{ChunkPayload, is_message};
use crate::compression::decompress;
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
    done: bool,
    end_reported: bool,
    prefetch: Option<Prefetch>,
    /// Whether the first chunk was looked at to decide on [`Prefetch`].
    prefetch_checked: bool,
    /// The last decompressed chunk's buffer, once no message of it is held
    /// any more: the next chunk decompresses into it.
    spare: Option<Vec<u8>>,
}

/// Chunks decompressed ahead of the one being read, beyond one per thread.
pub const PREFETCH_CHUNKS: usize = 2;

/// At most this many decompression threads per iterator.
pub const PREFETCH_THREADS: usize = 4;

/// A chunk handed to a decompression thread, with where its result goes.
struct Job {
    compression: Compression,
    data: Vec<u8>,
    size: u32,
    offset: u64,
    done: mpsc::Sender<Result<Vec<u8>>>,
}

/// The decompression threads and the chunks given to them, in file order.
struct Prefetch {
    jobs: mpsc::Sender<Job>,
    /// Chunks submitted and not yet taken: file offset, result.
    pending: VecDeque<(u64, mpsc::Receiver<Result<Vec<u8>>>)>,
    /// Groups (counted from the front of `Messages::groups`) submitted.
    submitted: usize,
    /// Chunks kept in flight.
    depth: usize,
    /// The threads, joined when the iterator is dropped so that none
    /// outlives it (still decompressing, or holding its buffers).
    workers: Vec<std::thread::JoinHandle<()>>,
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        // Closing the job channel ends each thread after its current job.
        drop(std::mem::replace(&mut self.jobs, mpsc::channel().0));
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

impl Prefetch {
    /// One thread per core (the reader itself mostly waits for them), or
    /// `None` on a single core.
    fn start() -> Option<Prefetch> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        if cores < 2 {
            return None;
        }
        let workers = cores.min(PREFETCH_THREADS);
        let (jobs, rx) = mpsc::channel::<Job>();
        let rx = std::sync::Arc::new(std::sync::Mutex::new(rx));
        let mut handles = Vec::new();
        for _ in 0..workers.max(1) {
            let rx = rx.clone();
            let handle = std::thread::Builder::new()
                .name("rosbag12-decompress".into())
                .spawn(move || {
                    loop {
                        // A poisoned lock only means another worker died.
                        let job = match rx.lock() {
                            Ok(r) => r.recv(),
                            Err(p) => p.into_inner().recv(),
                        };
                        let Ok(j) = job else { break };
                        let out = decompress(j.compression, &j.data, j.size, j.offset);
                        let _ = j.done.send(out);
                    }
                })
                .ok()?;
            handles.push(handle);
        }
        Some(Prefetch {
            jobs,
            pending: VecDeque::new(),
            submitted: 0,
            depth: workers.max(1) + PREFETCH_CHUNKS,
            workers: handles,
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
            spare: None,
            groups,
            payloads: Vec::new(),
            entries: Vec::new(),
            next_entry: 0,
            next_v12,
            done: false,
            end_reported: false,
        }
    }
}

impl<'a> Messages<'a> {
    fn wanted(&self, conn: u32, time: RosTime) -> bool {
        self.filter.matches(ChannelId(conn), time.to_timestamp())
    }

    /// Reads a group of chunks and orders its messages.
    fn load_group(&mut self, group: &[usize]) -> Result<()> {
        for p in self.payloads.drain(..) {
            if let (ChunkPayload::Shared { data, .. }, None) = (p, &self.spare) {
                // Unique when the caller dropped the chunk's messages.
                if let Ok(buf) = data.try_into_mut() {
                    self.spare = Some(Vec::from(buf));
                }
            }
        }
        self.entries.clear();
        self.next_entry = 0;
        let bag = self.bag;
        let filter = &self.filter;
        for (order, &i) in group.iter().enumerate() {
            let info = &bag.chunks[i];
            let payload = match self.prefetch.as_mut() {
                Some(p)
                    if p.pending
                        .front()
                        .is_some_and(|(at, _)| *at == info.chunk_pos) =>
                {
                    let result = p.pending.pop_front().map(|(_, r)| r.recv());
                    match result.unwrap_or(Err(mpsc::RecvError)) {
                        Ok(out) => ChunkPayload::Shared {
                            data: bytes::Bytes::from(out?),
                            chunk: info.chunk_pos,
                        },
                        // The worker is gone: read it here.
                        Err(_) => bag.read_chunk(info.chunk_pos)?.1,
                    }
                }
                _ => {
                    let spare = self.spare.take().unwrap_or_default();
                    bag.read_chunk_into(info.chunk_pos, spare)?.1
                }
            };
            let chunk_offset = info.chunk_pos;
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
                    if filter.matches(ChannelId(conn), time.to_timestamp()) {
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
            self.payloads.push(payload);
        }
        // Recorders write in receive order: sorting is usually not needed.
        let key = |e: &Entry| (e.time, e.chunk, e.start);
        if !self.entries.windows(2).all(|w| key(&w[0]) <= key(&w[1])) {
            self.entries.sort_unstable_by_key(key);
        }
        Ok(())
    }

    /// Hands the compressed chunks of the next groups to the prefetch
    /// threads, keeping one per thread plus [`PREFETCH_CHUNKS`] in flight.
    fn submit_ahead(&mut self) {
        if !self.prefetch_checked {
            // Worth threads only for slow chunks and more than one of them.
            self.prefetch_checked = true;
            let slow = |i: &usize| {
                self.bag
                    .chunk_header_and_len(self.bag.chunks[*i].chunk_pos)
                    .is_ok_and(|(h, _)| h.compression == Compression::Bz2)
            };
            if self
                .groups
                .iter()
                .flatten()
                .take(2)
                .filter(|i| slow(i))
                .count()
                == 2
            {
                self.prefetch = Prefetch::start();
            }
        }
        let Some(p) = self.prefetch.as_mut() else {
            return;
        };
        // `submitted` counts groups from the front of `groups`, which the
        // caller is about to pop.
        while p.pending.len() < p.depth {
            let Some(group) = self.groups.get(p.submitted) else {
                break;
            };
            p.submitted += 1;
            for &i in group {
                let pos = self.bag.chunks[i].chunk_pos;
                let (done, result) = mpsc::channel();
                let Some(job) = job(self.bag, pos, done) else {
                    continue;
                };
                if p.jobs.send(job).is_err() {
                    self.prefetch = None;
                    return;
                }
                p.pending.push_back((pos, result));
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

/// A message data record at `pos` whose 38-byte header is one of the two
/// layouts writers use: `conn=`, `op=\x02`, `time=` (ROS, sorted names) or
/// `op=\x02`, `conn=`, `time=` (rosbags). Returns (conn, time, data start,
/// record end) when it is, and the data fits in `buf`.
#[inline]
fn fast_message(buf: &[u8], pos: usize) -> Option<(u32, RosTime, usize, usize)> {
    let rec = buf.get(pos..pos.checked_add(46)?)?;
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
    let start = pos + 46;
    let end = start.checked_add(data_len)?;
    (end <= buf.len()).then_some((conn, time, start, end))
}

/// The decompression job of the bz2 chunk at `pos`; `None` for any other
/// or an unreadable one (read in place, errors reported there).
fn job(bag: &Bag<'_>, pos: u64, done: mpsc::Sender<Result<Vec<u8>>>) -> Option<Job> {
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
    if header.compression != Compression::Bz2 {
        return None;
    }
    Some(Job {
        compression: header.compression,
        data: rec.data.to_vec(),
        size: header.size,
        offset: rec.offset(),
        done,
    })
}

impl<'a> Iterator for Messages<'a> {
    type Item = Result<BagMessage<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(e) = self.entries.get(self.next_entry) {
                self.next_entry += 1;
                let data = match self.payloads.get(e.chunk) {
                    Some(p) => p.slice(e.start, e.end),
                    None => Payload::Borrowed(&[]),
                };
                return Some(Ok(BagMessage {
                    conn: e.conn,
                    time: e.time,
                    data,
                    offset: e.offset,
                }));
            }
            if self.done {
                return None;
            }
            if self.bag.version().major == 2 {
                self.submit_ahead();
                if let Some(group) = self.groups.pop_front() {
                    if let Err(e) = self.load_group(&group) {
                        let at = self.bag.chunks[group[0]].chunk_pos;
                        return Some(Err(self.fail(e, at)));
                    }
                    continue;
                }
            } else if let Some(r) = self.next_v12() {
                return Some(match r {
                    Ok(m) => Ok(m),
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
