//! Opening a bag: the version line, the bag header, and the index section
//! (2.0: connections and chunk infos; 1.2: per-topic index data). When the
//! index is missing (the bag was not closed) or damaged, the bag is
//! scanned record by record instead, exactly as `rosbag reindex` would.

use logcore::FormatError;
use std::sync::{Arc, OnceLock};

use crate::Limits;
use crate::chunk::{ChunkPayload, walk_chunk};
use crate::error::{Error, Result};
use crate::msg::MessageType;
use crate::record::{Origin, Record, resync};
use crate::records::{
    BagHeader, ChunkHeader, ChunkInfo, Connection, MessageDataHeader, op, unexpected,
};
use crate::time::RosTime;
use crate::version::Version;

/// A 1.2 message: where its index (or the scan) says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct EntryV12 {
    pub(crate) time: RosTime,
    pub(crate) pos: u64,
    pub(crate) conn: u32,
}

/// How the bag's index was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexSource {
    /// Read from the index section the writer left.
    Stored,
    /// Rebuilt by scanning every record (unindexed or damaged index).
    Scanned,
}

/// A ROS bag (version 2.x or 1.2) read from memory.
///
/// Opening reads the version line, the bag header and the index section
/// only; chunks are read when messages are iterated, one at a time.
///
/// ```
/// use rosbag12::{Bag, Connection, Writer, WriterOptions, RosTime};
/// let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriterOptions::default())?;
/// let def = "int32 data";
/// let c = w.add_connection(Connection::new(0, "/n", "std_msgs/Int32", "da5909fbe378aeaf85e547e830cc1bb7", def))?;
/// w.write(c, RosTime { sec: 1, nsec: 0 }, &7i32.to_le_bytes())?;
/// w.finish()?;
/// let bytes = w.into_inner().into_inner();
///
/// let bag = Bag::new(&bytes)?;
/// assert_eq!(bag.connections()[0].topic, "/n");
/// let m = bag.messages(&logcore::MessageFilter::all()).next().unwrap()?;
/// assert_eq!(&*m.data, &7i32.to_le_bytes());
/// assert_eq!(bag.decode(m.conn, &m.data)?.get("data"), Some(&logcore::Value::I64(7)));
/// # Ok::<(), rosbag12::Error>(())
/// ```
pub struct Bag<'a> {
    pub(crate) data: &'a [u8],
    version: Version,
    pub(crate) header: Option<BagHeader>,
    pub(crate) index_source: IndexSource,
    pub(crate) connections: Vec<Connection>,
    pub(crate) chunks: Vec<ChunkInfo>,
    pub(crate) entries_v12: Vec<EntryV12>,
    pub(crate) warnings: Vec<Error>,
    /// A truncation or framing error found by the scan: reported after the
    /// last message.
    pub(crate) end_error: Option<Error>,
    /// An uncompressed chunk cut by the end of the file: its position and
    /// the buffer range of the complete records it still holds.
    partial: Option<(u64, usize, usize)>,
    types: Vec<OnceLock<Result<Arc<MessageType>>>>,
    limits: Limits,
    /// The ids in `connections`, for adding each connection once in
    /// constant time while opening.
    conn_ids: std::collections::HashSet<u32>,
}

impl std::fmt::Debug for Bag<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bag")
            .field("len", &self.data.len())
            .field("version", &self.version)
            .field("index_source", &self.index_source)
            .field("connections", &self.connections.len())
            .field("chunks", &self.chunks.len())
            .finish_non_exhaustive()
    }
}

impl<'a> Bag<'a> {
    /// Opens a bag from its bytes.
    ///
    /// Fails only when the file is not a readable bag at all (bad version
    /// line or bag header, version 1.1, encryption). A missing or damaged
    /// index is rebuilt by scanning, with a warning; a truncated file
    /// yields its complete messages, then the truncation error.
    ///
    /// Every chunk info of a stored 2.0 index must point at a chunk
    /// record; an index that points anywhere else is damaged and the bag is
    /// scanned instead, with a warning that names the chunk info and the
    /// offset it gives.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        Self::open(data, false, Limits::default())
    }

    /// [`Bag::new`] with resource `limits` instead of the defaults (they
    /// apply to every chunk this bag reads, when opening and later).
    pub fn with_limits(data: &'a [u8], limits: Limits) -> Result<Self> {
        Self::open(data, false, limits)
    }

    /// Opens a bag from its bytes, ignoring any stored index: connections
    /// and chunks (2.0) or message positions (1.2) come from a scan of
    /// every record, so an index that is wrong in a way [`Bag::new`] cannot
    /// see (counts, a chunk left out) loses nothing. Reads (and
    /// decompresses) every chunk once; used by [`reindex`](crate::reindex()).
    ///
    /// ```
    /// use rosbag12::{Bag, Connection, IndexSource, RosTime, Writer, WriterOptions};
    /// let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriterOptions::default())?;
    /// let c = w.add_connection(Connection::new(0, "/n", "std_msgs/Int32", "da5909fbe378aeaf85e547e830cc1bb7", "int32 data"))?;
    /// w.write(c, RosTime { sec: 1, nsec: 0 }, &7i32.to_le_bytes())?;
    /// w.finish()?;
    /// let bytes = w.into_inner().into_inner();
    /// let bag = Bag::scan(&bytes)?;
    /// assert_eq!(bag.index_source(), IndexSource::Scanned);
    /// assert_eq!((bag.message_count(), bag.warnings().len()), (1, 0));
    /// # Ok::<(), rosbag12::Error>(())
    /// ```
    pub fn scan(data: &'a [u8]) -> Result<Self> {
        Self::open(data, true, Limits::default())
    }

    /// [`Bag::scan`] with `limits` instead of the defaults (the chunk size
    /// it decompresses, the nesting of the message types it parses).
    pub fn scan_with_limits(data: &'a [u8], limits: Limits) -> Result<Self> {
        Self::open(data, true, limits)
    }

    fn open(data: &'a [u8], scan: bool, limits: Limits) -> Result<Self> {
        let (version, line_len) = Version::parse(data)?;
        let mut bag = Bag {
            data,
            version,
            header: None,
            index_source: IndexSource::Stored,
            connections: Vec::new(),
            chunks: Vec::new(),
            entries_v12: Vec::new(),
            warnings: Vec::new(),
            end_error: None,
            partial: None,
            types: Vec::new(),
            limits,
            conn_ids: std::collections::HashSet::new(),
        };
        if version.major == 2 {
            bag.open_v2(line_len, scan)?;
        } else {
            bag.open_v12(line_len, scan)?;
        }
        bag.connections.sort_by_key(|c| c.id);
        bag.types = (0..bag.connections.len())
            .map(|_| OnceLock::new())
            .collect();
        Ok(bag)
    }

    /// Adds `c` unless a connection of its id is known (the first wins).
    fn add_connection(&mut self, c: Connection) {
        if self.conn_ids.insert(c.id) {
            self.connections.push(c);
        }
    }

    pub(crate) fn file() -> Origin {
        Origin::File { base: 0 }
    }

    fn open_v2(&mut self, line_len: usize, scan: bool) -> Result<()> {
        if self.version.minor != 0 {
            self.warnings.push(Error::malformed(
                0,
                "bag version 2.0",
                format!(
                    "version {}; read as 2.0, skipping unknown record kinds",
                    self.version
                ),
            ));
        }
        let rec = Record::parse(self.data, line_len, Self::file())?;
        let header = BagHeader::from_record(&rec, true)?;
        if let Some(enc) = &header.encryptor {
            return Err(rec.malformed(
                "an unencrypted bag",
                format!("a bag encrypted with {enc}, which this crate cannot read"),
            ));
        }
        let first = rec.end;
        let index_pos = header.index_pos;
        self.header = Some(header.clone());
        if index_pos == 0 {
            self.warnings.push(Error::malformed(
                rec.offset(),
                "an index position in the bag header",
                "0: the bag was not closed (unindexed); index rebuilt by scanning",
            ));
            return self.scan_v2(first);
        }
        if scan {
            return self.scan_v2(first);
        }
        match self.read_index_v2(&header) {
            Ok(()) => Ok(()),
            Err(e) => {
                self.warnings.push(Error::malformed(
                    index_pos,
                    "a readable index section (the bag was scanned instead)",
                    e.to_string(),
                ));
                self.connections.clear();
                self.conn_ids.clear();
                self.chunks.clear();
                self.scan_v2(first)
            }
        }
    }

    fn read_index_v2(&mut self, header: &BagHeader) -> Result<()> {
        let mut pos = usize::try_from(header.index_pos).unwrap_or(usize::MAX);
        if pos > self.data.len() {
            return Err(Error::truncated(
                header.index_pos,
                "the index section the bag header points at",
                header.index_pos - self.data.len() as u64,
            ));
        }
        let mut conns = 0u32;
        let mut infos = 0u32;
        let mut seen = std::collections::HashSet::new();
        // Connections first, then chunk infos; tolerate any order and skip
        // unknown records (spec 2.11), but insist on the counts.
        while conns < header.conn_count || infos < header.chunk_count {
            let rec = Record::parse(self.data, pos, Self::file())?;
            match rec.op {
                op::CONNECTION => {
                    let c = Connection::from_record(&rec)?;
                    self.add_connection(c);
                    conns += 1;
                }
                op::CHUNK_INFO => {
                    let info = ChunkInfo::from_record(&rec)?;
                    if info.chunk_pos >= self.data.len() as u64 {
                        return Err(rec.malformed(
                            "a chunk position inside the file",
                            format!("{} (file has {} bytes)", info.chunk_pos, self.data.len()),
                        ));
                    }
                    // Each chunk once: repeated positions would make every
                    // read of the bag decompress the same chunk again.
                    if !seen.insert(info.chunk_pos) {
                        return Err(rec.malformed(
                            "chunk infos of distinct chunks",
                            format!("a second chunk info for the chunk at {}", info.chunk_pos),
                        ));
                    }
                    self.chunks.push(info);
                    infos += 1;
                }
                o if o > op::CONNECTION => {}
                _ => return Err(unexpected(&rec, "a connection or chunk info record")),
            }
            pos = rec.end;
        }
        self.check_chunk_positions()
    }

    /// Every chunk info must point at a chunk record: reads the record
    /// headers at the positions the index gives (nothing is decompressed).
    fn check_chunk_positions(&self) -> Result<()> {
        for info in &self.chunks {
            let pos = usize::try_from(info.chunk_pos).unwrap_or(usize::MAX);
            let what = || {
                format!(
                    "a chunk record (op 0x{:02x}) at byte {}, where a chunk info of the index points",
                    op::CHUNK,
                    info.chunk_pos
                )
            };
            match Record::parse(self.data, pos, Self::file()) {
                Ok(rec) if rec.op == op::CHUNK => {}
                Ok(rec) => {
                    return Err(Error::malformed(
                        info.chunk_pos,
                        what(),
                        format!("a record with op 0x{:02x}", rec.op),
                    ));
                }
                Err(e) => {
                    return Err(Error::malformed(
                        info.chunk_pos,
                        what(),
                        format!("no readable record ({e})"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Rebuilds connections and chunk infos from the records (spec 2.8).
    fn scan_v2(&mut self, mut pos: usize) -> Result<()> {
        self.index_source = IndexSource::Scanned;
        while pos < self.data.len() {
            let rec = match Record::parse(self.data, pos, Self::file()) {
                Ok(r) => r,
                Err(e) => {
                    // Damage in the middle: go on at the next chunk record.
                    if let Some(next) = resync(self.data, pos + 1, &[op::CHUNK]) {
                        self.warnings.push(Error::skipped(
                            pos as u64,
                            (next - pos) as u64,
                            e.to_string(),
                        ));
                        pos = next;
                        continue;
                    }
                    if e.is_truncated() {
                        self.recover_partial_chunk(pos);
                    }
                    self.end_error = Some(e);
                    break;
                }
            };
            match rec.op {
                op::CHUNK => match self.scan_chunk(&rec) {
                    Ok(Some(info)) => self.chunks.push(info),
                    Ok(None) => {}
                    Err(e) => self.warnings.push(Error::skipped(
                        rec.offset(),
                        (rec.end - rec.pos) as u64,
                        e.to_string(),
                    )),
                },
                op::CONNECTION => {
                    // Old `rosbag record --split` wrote them after the chunks.
                    if let Ok(c) = Connection::from_record(&rec) {
                        self.add_connection(c);
                    }
                }
                op::INDEX_DATA | op::CHUNK_INFO => {}
                o if o > op::CONNECTION => {}
                _ => {
                    self.end_error = Some(unexpected(
                        &rec,
                        "a chunk, connection, index data or chunk info record",
                    ));
                    break;
                }
            }
            pos = rec.end;
        }
        Ok(())
    }

    /// Keeps the complete messages of an uncompressed chunk that the end of
    /// the file cuts (a recorder killed mid-chunk), so no complete message
    /// is lost.
    fn recover_partial_chunk(&mut self, pos: usize) {
        let Some(header_len) = crate::record::u32_at(self.data, pos) else {
            return;
        };
        let header_end = pos + 4 + header_len as usize;
        let Some(header_bytes) = self.data.get(pos + 4..header_end) else {
            return;
        };
        let Ok(header) = crate::record::Header::parse(header_bytes, pos + 4, Self::file()) else {
            return;
        };
        let is_plain_chunk = header.op().ok() == Some(op::CHUNK)
            && header
                .get("compression")
                .is_some_and(|f| f.value == b"none");
        let data_pos = header_end + 4;
        if !is_plain_chunk || data_pos > self.data.len() {
            return;
        }
        let buf = &self.data[data_pos..];
        let mut end = 0;
        while let Ok(r) = Record::parse(
            buf,
            end,
            Origin::File {
                base: data_pos as u64,
            },
        ) {
            end = r.end;
        }
        let payload = ChunkPayload::Borrowed {
            data: &buf[..end],
            base: data_pos as u64,
        };
        if let Ok(Some(info)) = self.scan_payload(&payload, pos as u64) {
            self.partial = Some((pos as u64, data_pos, data_pos + end));
            self.chunks.push(info);
        }
    }

    fn scan_chunk(&mut self, rec: &Record<'a>) -> Result<Option<ChunkInfo>> {
        let payload = ChunkPayload::load(rec, &self.limits)?;
        self.scan_payload(&payload, rec.offset())
    }

    fn scan_payload(
        &mut self,
        payload: &ChunkPayload<'_>,
        chunk_pos: u64,
    ) -> Result<Option<ChunkInfo>> {
        let mut counts: Vec<(u32, u32)> = Vec::new();
        let mut range: Option<(RosTime, RosTime)> = None;
        let mut new_conns = Vec::new();
        walk_chunk(payload.bytes(), payload.origin(), |r| {
            match r.op {
                op::CONNECTION => new_conns.push(Connection::from_record(&r)?),
                op::MSG_DATA => {
                    let h = MessageDataHeader::from_record(&r)?;
                    match counts.iter_mut().find(|(c, _)| *c == h.conn) {
                        Some((_, n)) => *n += 1,
                        None => counts.push((h.conn, 1)),
                    }
                    range = Some(match range {
                        None => (h.time, h.time),
                        Some((a, b)) => (a.min(h.time), b.max(h.time)),
                    });
                }
                _ => {
                    return Err(unexpected(
                        &r,
                        "a connection or message data record in a chunk",
                    ));
                }
            }
            Ok(())
        })?;
        for c in new_conns {
            self.add_connection(c);
        }
        counts.sort_unstable();
        Ok(range.map(|(start, end)| ChunkInfo {
            chunk_pos,
            start_time: start,
            end_time: end,
            counts,
        }))
    }

    /// The file's bytes.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The resource limits this bag applies.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The format version.
    pub fn version(&self) -> Version {
        self.version
    }

    /// The bag header record, when the file has one.
    pub fn header(&self) -> Option<&BagHeader> {
        self.header.as_ref()
    }

    /// Whether the index came from the file or was rebuilt by scanning.
    pub fn index_source(&self) -> IndexSource {
        self.index_source
    }

    /// Connections (1.2: one per topic), in id order.
    pub fn connections(&self) -> &[Connection] {
        &self.connections
    }

    /// The connection with id `id`.
    pub fn connection(&self, id: u32) -> Option<&Connection> {
        self.position(id).map(|i| &self.connections[i])
    }

    pub(crate) fn position(&self, id: u32) -> Option<usize> {
        self.connections.binary_search_by_key(&id, |c| c.id).ok()
    }

    /// 2.0: the chunk infos (stored, or rebuilt by the scan), in file order.
    pub fn chunk_infos(&self) -> &[ChunkInfo] {
        &self.chunks
    }

    /// Problems found while opening (unindexed bag, unusable index, skipped
    /// chunks, a newer minor version); the truncation, if any, is
    /// [`Bag::end_error`].
    pub fn warnings(&self) -> &[Error] {
        &self.warnings
    }

    /// Where a scan of an unindexed or damaged bag stopped early (a
    /// truncated or unreadable record), if it did.
    pub fn end_error(&self) -> Option<&Error> {
        self.end_error.as_ref()
    }

    /// Number of messages per connection id (from chunk infos or the 1.2 index).
    pub fn message_counts(&self) -> std::collections::BTreeMap<u32, u64> {
        let mut m: std::collections::BTreeMap<u32, u64> =
            self.connections.iter().map(|c| (c.id, 0)).collect();
        if self.version.major == 2 {
            for info in &self.chunks {
                for &(c, n) in &info.counts {
                    *m.entry(c).or_default() += u64::from(n);
                }
            }
        } else {
            for e in &self.entries_v12 {
                *m.entry(e.conn).or_default() += 1;
            }
        }
        m
    }

    /// Total number of messages.
    pub fn message_count(&self) -> u64 {
        self.message_counts().values().sum()
    }

    /// Earliest and latest message time (min/max over all chunks, which
    /// need not be sorted).
    pub fn time_range(&self) -> Option<(RosTime, RosTime)> {
        let pairs: Box<dyn Iterator<Item = (RosTime, RosTime)> + '_> = if self.version.major == 2 {
            Box::new(self.chunks.iter().map(|c| (c.start_time, c.end_time)))
        } else {
            Box::new(self.entries_v12.iter().map(|e| (e.time, e.time)))
        };
        pairs.fold(None, |acc, (s, e)| match acc {
            None => Some((s, e)),
            Some((a, b)) => Some((a.min(s), b.max(e))),
        })
    }

    /// The compiled message type of connection `id` (parsed from its
    /// definition once, then cached).
    pub fn message_type(&self, id: u32) -> Result<Arc<MessageType>> {
        let i = self.position(id).ok_or_else(|| {
            Error::invalid_argument(format!("connection {id} does not exist in this bag"))
        })?;
        let c = &self.connections[i];
        self.types[i]
            .get_or_init(|| MessageType::from_connection_with_limits(c, &self.limits).map(Arc::new))
            .clone()
    }

    /// Decodes a message of connection `conn` to a [`logcore::Value`].
    pub fn decode(&self, conn: u32, data: &[u8]) -> Result<logcore::Value> {
        let offset = self.connection(conn).map_or(0, |c| c.offset);
        self.message_type(conn)?.decode(data, offset)
    }

    /// Decodes a message of connection `conn` into `out`, reusing the
    /// allocations of the value it holds (see
    /// [`MessageType::decode_into`]): keep one `Value` per connection
    /// when iterating many messages.
    pub fn decode_into(&self, conn: u32, data: &[u8], out: &mut logcore::Value) -> Result<()> {
        let offset = self.connection(conn).map_or(0, |c| c.offset);
        self.message_type(conn)?.decode_into(data, offset, out)
    }

    /// Reads only the header of the chunk record at `chunk_pos`.
    pub fn read_chunk_header(&self, chunk_pos: u64) -> Result<ChunkHeader> {
        self.chunk_header_and_len(chunk_pos).map(|(h, _)| h)
    }

    /// The chunk header and the stored (compressed) payload length.
    pub(crate) fn chunk_header_and_len(&self, chunk_pos: u64) -> Result<(ChunkHeader, u64)> {
        if self.partial.is_some_and(|(at, _, _)| at == chunk_pos) {
            return self
                .read_chunk(chunk_pos)
                .map(|(h, _)| (h, u64::from(h.size)));
        }
        let pos = usize::try_from(chunk_pos).unwrap_or(usize::MAX);
        let rec = Record::parse(self.data, pos, Self::file())?;
        Ok((ChunkHeader::from_record(&rec)?, rec.data.len() as u64))
    }

    /// Whether the chunk at `chunk_pos` is the one the file's end cuts
    /// (its complete messages are read in place).
    pub(crate) fn is_cut_chunk(&self, chunk_pos: u64) -> bool {
        self.partial.is_some_and(|(at, _, _)| at == chunk_pos)
    }

    /// Reads the chunk record at `chunk_pos` and its payload.
    pub fn read_chunk(&self, chunk_pos: u64) -> Result<(ChunkHeader, ChunkPayload<'a>)> {
        self.read_chunk_into(chunk_pos, Vec::new())
    }

    /// [`read_chunk`](Self::read_chunk), decompressing into `spare`'s
    /// allocation.
    pub(crate) fn read_chunk_into(
        &self,
        chunk_pos: u64,
        spare: Vec<u8>,
    ) -> Result<(ChunkHeader, ChunkPayload<'a>)> {
        if let Some((at, start, end)) = self.partial {
            if at == chunk_pos {
                let header = ChunkHeader {
                    compression: crate::records::Compression::None,
                    size: (end - start) as u32,
                };
                let data = self.data.get(start..end).unwrap_or_default();
                return Ok((
                    header,
                    ChunkPayload::Borrowed {
                        data,
                        base: start as u64,
                    },
                ));
            }
        }
        let pos = usize::try_from(chunk_pos).unwrap_or(usize::MAX);
        let rec = Record::parse(self.data, pos, Self::file())?;
        let header = ChunkHeader::from_record(&rec)?;
        Ok((header, ChunkPayload::load_into(&rec, spare, &self.limits)?))
    }
}
