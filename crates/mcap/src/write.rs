//! The writer: chunked (none / lz4 / zstd) or unchunked files with message,
//! chunk, attachment and metadata indexes, statistics, repeated schemas and
//! channels, summary offsets and every CRC.
//!
//! Records go to the sink as soon as they are complete (a chunk when it
//! reaches [`WriteOptions::chunk_size`]), so a writer that is interrupted
//! leaves a file whose every complete chunk the streamed reader and
//! [`recover`](crate::recover()) can read. Only the sink's `Write` is used;
//! positions are counted, never sought.

use std::collections::BTreeMap;
use std::io::Write;

use crate::encode::{encode_record, message_header};
use crate::error::{Error, Result};
use crate::records::*;

/// Name of the Metadata record holding what `LogWriter::set_metadata` was given.
pub const LOGWRITER_METADATA: &str = "robolog";

/// Chunk compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// Stored as is (`""`).
    None,
    /// LZ4 frame (`lz4`).
    Lz4,
    /// Zstandard (`zstd`).
    #[default]
    Zstd,
}

impl Compression {
    /// The name stored in the Chunk record.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
        }
    }
}

/// What a [`Writer`] writes. Everything is on by default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteOptions {
    /// Header profile.
    pub profile: String,
    /// Header library.
    pub library: String,
    /// Put messages, schemas and channels in chunks.
    pub use_chunks: bool,
    /// Close a chunk once its uncompressed records reach this size.
    pub chunk_size: u64,
    /// Chunk compression.
    pub compression: Compression,
    /// Message Index records after each chunk.
    pub message_indexes: bool,
    /// Chunk Index records in the summary.
    pub chunk_indexes: bool,
    /// Attachment Index records.
    pub attachment_indexes: bool,
    /// Metadata Index records.
    pub metadata_indexes: bool,
    /// A Statistics record.
    pub statistics: bool,
    /// Repeat schemas in the summary.
    pub repeat_schemas: bool,
    /// Repeat channels in the summary.
    pub repeat_channels: bool,
    /// Summary Offset records.
    pub summary_offsets: bool,
    /// Compute chunk, attachment, data-section and summary CRCs (else 0).
    pub crcs: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            profile: String::new(),
            library: concat!("mcapfile ", env!("CARGO_PKG_VERSION")).into(),
            use_chunks: true,
            chunk_size: 1 << 20,
            compression: Compression::Zstd,
            message_indexes: true,
            chunk_indexes: true,
            attachment_indexes: true,
            metadata_indexes: true,
            statistics: true,
            repeat_schemas: true,
            repeat_channels: true,
            summary_offsets: true,
            crcs: true,
        }
    }
}

/// Writes an MCAP file.
///
/// ```
/// use mcapfile::{Compression, LinearReader, Writer, WriteOptions};
/// let opts = WriteOptions { compression: Compression::Lz4, ..Default::default() };
/// let mut w = Writer::new(Vec::new(), opts)?;
/// let schema = w.add_schema("Pose", "jsonschema", b"{}")?;
/// let ch = w.add_channel(schema, "/pose", "json", &Default::default())?;
/// for i in 0..3 {
///     w.write_message(ch, i, 100 * u64::from(i), 100 * u64::from(i), b"{}")?;
/// }
/// let file = w.finish()?;
/// assert!(LinearReader::new(&file).all(|r| r.is_ok()));
/// # Ok::<(), mcapfile::Error>(())
/// ```
///
/// Chunks are compressed on other threads (see [`Writer::flush_chunk`]):
/// dropping a writer without [`finish`](Writer::finish) or
/// [`into_inner`](Writer::into_inner) loses the chunks still being
/// compressed, not only the open one.
pub struct Writer<W: Write> {
    sink: W,
    opts: WriteOptions,
    pos: u64,
    data_crc: crc32fast::Hasher,
    schemas: BTreeMap<u16, (String, String, Vec<u8>)>,
    channels: BTreeMap<u16, Channel>,
    stats: Statistics,
    chunk: Vec<u8>,
    chunk_times: Option<(u64, u64)>,
    chunk_index: BTreeMap<u16, Vec<(u64, u64)>>,
    chunk_indexes: Vec<ChunkIndex>,
    attachment_indexes: Vec<AttachmentIndex>,
    metadata_indexes: Vec<MetadataIndex>,
    /// Entries given through `LogWriter::set_metadata`, written at finish.
    pub(crate) pending_metadata: BTreeMap<String, String>,
    finished: bool,
    /// Closed chunks being compressed on other threads (see
    /// [`Writer::flush_chunk`]), and what is written with each, oldest
    /// first.
    sealing: Option<logcore::ahead::Ahead<Sealed>>,
    queued: std::collections::VecDeque<Closed>,
    /// Chunks closed so far (the threads start at the second).
    closed: u64,
    /// A buffer for the next chunk's records.
    spare_chunk: Vec<u8>,
    /// Whether chunks may be compressed on other threads.
    threads: bool,
}

/// What a chunk's record and indexes need besides its compressed bytes.
struct Closed {
    times: Option<(u64, u64)>,
    index: BTreeMap<u16, Vec<(u64, u64)>>,
}

/// A chunk's records compressed, with their size and CRC, and the buffer
/// that held them.
struct Sealed {
    /// The compressed records; `None` for an uncompressed chunk, whose
    /// records are `raw` itself.
    compressed: std::io::Result<Option<Vec<u8>>>,
    raw_len: u64,
    /// The CRC state over `raw` (the chunk's uncompressed CRC, and for an
    /// uncompressed chunk the part of the data section's CRC its records
    /// make); `None` without CRCs.
    crc: Option<crc32fast::Hasher>,
    raw: Vec<u8>,
}

/// Compresses a chunk's records (on whatever thread calls it; the same
/// bytes whichever).
fn seal(raw: Vec<u8>, compression: Compression, crcs: bool) -> Sealed {
    let compressed = match compression {
        Compression::None => Ok(None),
        Compression::Zstd => zstd::bulk::compress(&raw, 3).map(Some),
        Compression::Lz4 => {
            let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
            enc.write_all(&raw)
                .and_then(|_| enc.finish().map_err(std::io::Error::other))
                .map(Some)
        }
    };
    let crc = crcs.then(|| {
        let mut h = crc32fast::Hasher::new();
        h.update(&raw);
        h
    });
    Sealed {
        compressed,
        raw_len: raw.len() as u64,
        crc,
        raw,
    }
}

impl<W: Write> std::fmt::Debug for Writer<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer")
            .field("pos", &self.pos)
            .field("options", &self.opts)
            .finish_non_exhaustive()
    }
}

impl<W: Write> Writer<W> {
    /// Starts a file: writes the magic and the Header.
    pub fn new(sink: W, opts: WriteOptions) -> Result<Self> {
        let mut w = Writer {
            sink,
            pos: 0,
            data_crc: crc32fast::Hasher::new(),
            schemas: BTreeMap::new(),
            channels: BTreeMap::new(),
            stats: Statistics::default(),
            chunk: Vec::new(),
            chunk_times: None,
            chunk_index: BTreeMap::new(),
            chunk_indexes: Vec::new(),
            attachment_indexes: Vec::new(),
            metadata_indexes: Vec::new(),
            pending_metadata: BTreeMap::new(),
            finished: false,
            sealing: None,
            queued: Default::default(),
            closed: 0,
            spare_chunk: Vec::new(),
            threads: true,
            opts,
        };
        w.emit(MAGIC)?;
        let header = Header {
            profile: w.opts.profile.clone(),
            library: w.opts.library.clone(),
        };
        w.emit(&encode_record(&Record::Header(header)))?;
        Ok(w)
    }

    fn emit(&mut self, b: &[u8]) -> Result<()> {
        // Chunks still being compressed come first.
        if !self.queued.is_empty() {
            self.write_sealed()?;
        }
        self.emit_raw(b)
    }

    fn emit_raw(&mut self, b: &[u8]) -> Result<()> {
        self.sink.write_all(b)?;
        self.data_crc.update(b);
        self.pos += b.len() as u64;
        Ok(())
    }

    /// Where a record goes: the open chunk, or straight to the file.
    fn put(&mut self, record: &[u8]) -> Result<()> {
        if self.opts.use_chunks {
            self.chunk.extend_from_slice(record);
            Ok(())
        } else {
            self.emit(record)
        }
    }

    /// Adds a schema and returns its id (one more than the largest so far, from 1).
    pub fn add_schema(&mut self, name: &str, encoding: &str, data: &[u8]) -> Result<u16> {
        let next = self
            .schemas
            .keys()
            .next_back()
            .map_or(Some(1), |k| k.checked_add(1));
        let id = next.ok_or_else(|| Error::InvalidArgument("no schema id left".into()))?;
        self.add_schema_with_id(id, name, encoding, data)?;
        Ok(id)
    }

    /// Adds a schema with a caller-chosen id (not 0, not used before).
    pub fn add_schema_with_id(
        &mut self,
        id: u16,
        name: &str,
        encoding: &str,
        data: &[u8],
    ) -> Result<()> {
        if id == 0 || self.schemas.contains_key(&id) {
            return Err(Error::InvalidArgument(format!(
                "schema id {id} is 0 or already used"
            )));
        }
        let rec = Record::Schema(Schema {
            id,
            name: name.into(),
            encoding: encoding.into(),
            data: logcore::Payload::Borrowed(data),
        });
        self.put(&encode_record(&rec))?;
        self.schemas
            .insert(id, (name.into(), encoding.into(), data.to_vec()));
        self.stats.schema_count += 1;
        Ok(())
    }

    /// Adds a channel on schema `schema_id` (0: none) and returns its id
    /// (one more than the largest so far, from 0).
    pub fn add_channel(
        &mut self,
        schema_id: u16,
        topic: &str,
        message_encoding: &str,
        metadata: &BTreeMap<String, String>,
    ) -> Result<u16> {
        let next = self
            .channels
            .keys()
            .next_back()
            .map_or(Some(0), |k| k.checked_add(1));
        let id = next.ok_or_else(|| Error::InvalidArgument("no channel id left".into()))?;
        self.add_channel_with_id(id, schema_id, topic, message_encoding, metadata)?;
        Ok(id)
    }

    /// Adds a channel with a caller-chosen id (not used before).
    pub fn add_channel_with_id(
        &mut self,
        id: u16,
        schema_id: u16,
        topic: &str,
        message_encoding: &str,
        metadata: &BTreeMap<String, String>,
    ) -> Result<()> {
        if schema_id != 0 && !self.schemas.contains_key(&schema_id) {
            return Err(Error::InvalidArgument(format!(
                "schema {schema_id} was not added"
            )));
        }
        if self.channels.contains_key(&id) {
            return Err(Error::InvalidArgument(format!(
                "channel id {id} is already used"
            )));
        }
        let ch = Channel {
            id,
            schema_id,
            topic: topic.into(),
            message_encoding: message_encoding.into(),
            metadata: metadata.clone(),
        };
        self.put(&encode_record(&Record::Channel(ch.clone())))?;
        self.channels.insert(id, ch);
        self.stats.channel_count += 1;
        Ok(())
    }

    /// Writes a message on a channel returned by [`Writer::add_channel`].
    pub fn write_message(
        &mut self,
        channel: u16,
        sequence: u32,
        log_time: u64,
        publish_time: u64,
        data: &[u8],
    ) -> Result<()> {
        if !self.channels.contains_key(&channel) {
            return Err(Error::InvalidArgument(format!(
                "channel {channel} was not added"
            )));
        }
        let head = message_header(channel, sequence, log_time, publish_time, data.len());
        let s = &mut self.stats;
        if s.message_count == 0 {
            s.message_start_time = log_time;
            s.message_end_time = log_time;
        }
        s.message_count += 1;
        s.message_start_time = s.message_start_time.min(log_time);
        s.message_end_time = s.message_end_time.max(log_time);
        *s.channel_message_counts.entry(channel).or_default() += 1;
        if self.opts.use_chunks {
            let offset = self.chunk.len() as u64;
            self.chunk.extend_from_slice(&head);
            self.chunk.extend_from_slice(data);
            self.chunk_index
                .entry(channel)
                .or_default()
                .push((log_time, offset));
            self.chunk_times = Some(match self.chunk_times {
                None => (log_time, log_time),
                Some((a, b)) => (a.min(log_time), b.max(log_time)),
            });
            if self.chunk.len() as u64 >= self.opts.chunk_size {
                self.close_chunk()?;
            }
            Ok(())
        } else {
            self.emit(&head)?;
            self.emit(data)
        }
    }

    /// Closes the open chunk (if any) and writes it with its message
    /// indexes, after any chunk still being compressed.
    pub fn flush_chunk(&mut self) -> Result<()> {
        self.close_chunk()?;
        self.write_sealed()
    }

    /// Closes the open chunk (if any). From the second compressed chunk on
    /// (on more than one core), chunks are compressed on other threads
    /// while messages go on filling the next one, and written in order as
    /// they come back (at most one per thread plus a few waiting, so
    /// memory stays bounded); the file is byte for byte the one written
    /// without threads.
    fn close_chunk(&mut self) -> Result<()> {
        if self.chunk.is_empty() {
            return Ok(());
        }
        let next = std::mem::take(&mut self.spare_chunk);
        let raw = std::mem::replace(&mut self.chunk, next);
        let closed = Closed {
            times: self.chunk_times.take(),
            index: std::mem::take(&mut self.chunk_index),
        };
        self.closed += 1;
        let (compression, crcs) = (self.opts.compression, self.opts.crcs);
        if self.closed == 2 && compression != Compression::None && self.threads {
            self.sealing = logcore::ahead::Ahead::per_core("mcapfile-compress");
        }
        let Some(threads) = self.sealing.as_mut() else {
            return self.write_chunk(closed, seal(raw, compression, crcs));
        };
        if !threads.has_room() {
            self.write_oldest()?;
        }
        let Some(threads) = self.sealing.as_mut() else {
            return self.write_chunk(closed, seal(raw, compression, crcs));
        };
        // Refused only when every thread died (a panic), which loses
        // the chunk: an error then.
        if threads.submit(move || seal(raw, compression, crcs)) {
            self.queued.push_back(closed);
            Ok(())
        } else {
            self.sealing = None;
            Err(Error::from(std::io::Error::other(
                "the chunk compression threads stopped",
            )))
        }
    }

    /// Writes the oldest chunk given to the threads.
    fn write_oldest(&mut self) -> Result<()> {
        let Some(closed) = self.queued.pop_front() else {
            return Ok(());
        };
        let sealed = self
            .sealing
            .as_mut()
            .and_then(|t| t.take())
            .ok_or_else(|| {
                Error::from(std::io::Error::other("a chunk compression thread stopped"))
            })?;
        self.write_chunk(closed, sealed)
    }

    /// Writes every chunk given to the threads, in order.
    fn write_sealed(&mut self) -> Result<()> {
        while !self.queued.is_empty() {
            self.write_oldest()?;
        }
        Ok(())
    }

    /// Writes a chunk and its message indexes. The chunk's records go to
    /// the sink straight from their buffer (never copied into a framed
    /// record), and an uncompressed chunk's CRC state, computed once over
    /// its records, also extends the data section's CRC.
    fn write_chunk(&mut self, closed: Closed, sealed: Sealed) -> Result<()> {
        let compressed = sealed.compressed?;
        let mut raw = sealed.raw;
        let (start, end) = closed.times.unwrap_or((0, 0));
        let compression = self.opts.compression.name();
        let records: &[u8] = compressed.as_deref().unwrap_or(&raw);
        let records_len = records.len() as u64;
        // The Chunk record's fields before its records, framed: the same
        // bytes `encode_record` gives up to the records.
        let fields_len = 8 + 8 + 8 + 4 + 4 + compression.len() as u64 + 8;
        let mut head = Vec::with_capacity(RECORD_HEADER_LEN + fields_len as usize);
        head.push(op::CHUNK);
        head.extend_from_slice(&(fields_len + records_len).to_le_bytes());
        head.extend_from_slice(&start.to_le_bytes());
        head.extend_from_slice(&end.to_le_bytes());
        head.extend_from_slice(&sealed.raw_len.to_le_bytes());
        let crc = sealed.crc.as_ref().map_or(0, |h| h.clone().finalize());
        head.extend_from_slice(&crc.to_le_bytes());
        head.extend_from_slice(&(compression.len() as u32).to_le_bytes());
        head.extend_from_slice(compression.as_bytes());
        head.extend_from_slice(&records_len.to_le_bytes());
        let chunk_start = self.pos;
        let chunk_length = head.len() as u64 + records_len;
        self.emit_raw(&head)?;
        match (&compressed, &sealed.crc) {
            (None, Some(h)) => {
                self.sink.write_all(records)?;
                self.data_crc.combine(h);
                self.pos += records_len;
            }
            _ => self.emit_raw(records)?,
        }
        raw.clear();
        self.spare_chunk = raw;
        let mut offsets = BTreeMap::new();
        let index_start = self.pos;
        if self.opts.message_indexes {
            for (channel, records) in closed.index {
                offsets.insert(channel, self.pos);
                let rec = Record::MessageIndex(MessageIndex {
                    channel_id: channel,
                    records,
                });
                self.emit_raw(&encode_record(&rec))?;
            }
        }
        self.stats.chunk_count += 1;
        self.chunk_indexes.push(ChunkIndex {
            message_start_time: start,
            message_end_time: end,
            chunk_start_offset: chunk_start,
            chunk_length,
            message_index_offsets: offsets,
            message_index_length: self.pos - index_start,
            compression: compression.into(),
            compressed_size: records_len,
            uncompressed_size: sealed.raw_len,
        });
        self.sink.flush()?;
        Ok(())
    }

    /// Writes an attachment (closing the open chunk first).
    pub fn write_attachment(
        &mut self,
        log_time: u64,
        create_time: u64,
        name: &str,
        media_type: &str,
        data: &[u8],
    ) -> Result<()> {
        self.flush_chunk()?;
        let mut a = Attachment {
            log_time,
            create_time,
            name: name.into(),
            media_type: media_type.into(),
            data: logcore::Payload::Borrowed(data),
            crc: 0,
        };
        let mut bytes = encode_record(&Record::Attachment(a.clone()));
        if self.opts.crcs {
            let n = bytes.len();
            a.crc = crc32fast::hash(&bytes[9..n - 4]);
            bytes[n - 4..].copy_from_slice(&a.crc.to_le_bytes());
        }
        self.attachment_indexes.push(AttachmentIndex {
            offset: self.pos,
            length: bytes.len() as u64,
            log_time,
            create_time,
            data_size: data.len() as u64,
            name: name.into(),
            media_type: media_type.into(),
        });
        self.stats.attachment_count += 1;
        self.emit(&bytes)
    }

    /// Writes a Metadata record (closing the open chunk first).
    pub fn write_metadata(
        &mut self,
        name: &str,
        metadata: &BTreeMap<String, String>,
    ) -> Result<()> {
        self.flush_chunk()?;
        let bytes = encode_record(&Record::Metadata(Metadata {
            name: name.into(),
            metadata: metadata.clone(),
        }));
        self.metadata_indexes.push(MetadataIndex {
            offset: self.pos,
            length: bytes.len() as u64,
            name: name.into(),
        });
        self.stats.metadata_count += 1;
        self.emit(&bytes)
    }

    /// Writes the last chunk, Data End, the summary, summary offsets, the
    /// footer and the closing magic, and returns the sink.
    pub fn finish(mut self) -> Result<W> {
        self.finish_in_place()?;
        Ok(self.sink)
    }

    /// Whether a schema with exactly these fields exists; its id.
    pub(crate) fn find_schema(&self, name: &str, encoding: &str, data: &[u8]) -> Option<u16> {
        self.schemas
            .iter()
            .find(|(_, (n, e, d))| n == name && e == encoding && d == data)
            .map(|(id, _)| *id)
    }

    /// Switches between chunked and unchunked output from here on (closing
    /// the open chunk first), so one file can mix both, as some writers'
    /// files do. Messages written unchunked appear in no Chunk Index; the
    /// indexed reader still finds them.
    pub fn set_use_chunks(&mut self, use_chunks: bool) -> Result<()> {
        self.flush_chunk()?;
        self.opts.use_chunks = use_chunks;
        Ok(())
    }

    /// Whether channel `id` was added.
    pub fn has_channel(&self, id: u16) -> bool {
        self.channels.contains_key(&id)
    }

    /// The sink, as it is (an unfinished file if [`Writer::finish`] was
    /// not called), with every closed chunk written (as far as the sink
    /// takes it).
    pub fn into_inner(mut self) -> W {
        let _ = self.write_sealed();
        self.sink
    }

    pub(crate) fn finish_in_place(&mut self) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        if !self.pending_metadata.is_empty() {
            let m = std::mem::take(&mut self.pending_metadata);
            self.write_metadata(LOGWRITER_METADATA, &m)?;
        }
        self.flush_chunk()?;
        let crc = if self.opts.crcs {
            self.data_crc.clone().finalize()
        } else {
            0
        };
        self.emit(&encode_record(&Record::DataEnd(DataEnd {
            data_section_crc: crc,
        })))?;
        let summary_start = self.pos;
        let mut summary_crc = crc32fast::Hasher::new();
        let mut groups: Vec<(u8, Vec<u8>)> = Vec::new();
        let mut group = |opcode: u8, records: Vec<Record<'_>>| {
            let bytes: Vec<u8> = records.iter().flat_map(encode_record).collect();
            if !bytes.is_empty() {
                groups.push((opcode, bytes));
            }
        };
        let o = self.opts.clone();
        if o.repeat_schemas {
            group(
                op::SCHEMA,
                self.schemas
                    .iter()
                    .map(|(id, (n, e, d))| {
                        Record::Schema(Schema {
                            id: *id,
                            name: n.clone(),
                            encoding: e.clone(),
                            data: logcore::Payload::Borrowed(d),
                        })
                    })
                    .collect(),
            );
        }
        if o.repeat_channels {
            group(
                op::CHANNEL,
                self.channels
                    .values()
                    .cloned()
                    .map(Record::Channel)
                    .collect(),
            );
        }
        if o.statistics {
            group(op::STATISTICS, vec![Record::Statistics(self.stats.clone())]);
        }
        if o.metadata_indexes {
            group(
                op::METADATA_INDEX,
                self.metadata_indexes
                    .iter()
                    .cloned()
                    .map(Record::MetadataIndex)
                    .collect(),
            );
        }
        if o.attachment_indexes {
            group(
                op::ATTACHMENT_INDEX,
                self.attachment_indexes
                    .iter()
                    .cloned()
                    .map(Record::AttachmentIndex)
                    .collect(),
            );
        }
        if o.chunk_indexes {
            group(
                op::CHUNK_INDEX,
                self.chunk_indexes
                    .iter()
                    .cloned()
                    .map(Record::ChunkIndex)
                    .collect(),
            );
        }
        let mut offsets = Vec::new();
        for (opcode, bytes) in &groups {
            offsets.push(Record::SummaryOffset(SummaryOffset {
                group_opcode: *opcode,
                group_start: self.pos,
                group_length: bytes.len() as u64,
            }));
            summary_crc.update(bytes);
            self.emit(bytes)?;
        }
        let has_summary = !groups.is_empty();
        let summary_offset_start = if has_summary && o.summary_offsets {
            let start = self.pos;
            for r in &offsets {
                let b = encode_record(r);
                summary_crc.update(&b);
                self.emit(&b)?;
            }
            start
        } else {
            0
        };
        let mut footer = Footer {
            summary_start: if has_summary { summary_start } else { 0 },
            summary_offset_start,
            summary_crc: 0,
        };
        let fb = encode_record(&Record::Footer(footer));
        summary_crc.update(&fb[..25]);
        if o.crcs {
            footer.summary_crc = summary_crc.finalize();
        }
        self.emit(&encode_record(&Record::Footer(footer)))?;
        self.emit(MAGIC)?;
        self.sink.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every chunk's record is what `encode_record` frames from its fields
    /// (records written from their buffer, not through a framed copy), its
    /// CRC is that of its decompressed records, and the data section's CRC
    /// is that of every byte before Data End, for each compression.
    #[test]
    fn chunks_written_from_their_buffers_are_framed_records_with_crcs() {
        for compression in [Compression::None, Compression::Zstd, Compression::Lz4] {
            let opts = WriteOptions {
                compression,
                chunk_size: 3000,
                ..WriteOptions::default()
            };
            let mut w = Writer::new(Vec::new(), opts).unwrap();
            let ch = w.add_channel(0, "/t", "json", &BTreeMap::new()).unwrap();
            for i in 0..2000u32 {
                let data = format!(
                    "{{\"i\":{i},\"pad\":\"{}\"}}",
                    "y".repeat((i % 41) as usize)
                );
                w.write_message(ch, i, u64::from(i), u64::from(i), data.as_bytes())
                    .unwrap();
            }
            let file = w.finish().unwrap();
            let (mut pos, mut chunks, mut data_end) = (MAGIC.len(), 0, false);
            while pos + RECORD_HEADER_LEN <= file.len() - MAGIC.len() {
                let opcode = file[pos];
                let len = u64::from_le_bytes(file[pos + 1..pos + 9].try_into().unwrap()) as usize;
                let end = pos + RECORD_HEADER_LEN + len;
                let rec =
                    crate::parse_record(opcode, &file[pos + RECORD_HEADER_LEN..end], pos as u64)
                        .unwrap();
                match &rec {
                    Record::Chunk(c) => {
                        assert_eq!(encode_record(&rec), &file[pos..end], "{compression:?}");
                        assert_eq!(c.compression, compression.name());
                        assert_ne!(c.uncompressed_crc, 0);
                        let raw = crate::decompress(c, pos as u64, true, u64::MAX).unwrap();
                        assert_eq!(crc32fast::hash(raw.as_slice()), c.uncompressed_crc);
                        chunks += 1;
                    }
                    Record::DataEnd(d) => {
                        assert_eq!(d.data_section_crc, crc32fast::hash(&file[..pos]));
                        data_end = true;
                        break;
                    }
                    _ => {}
                }
                pos = end;
            }
            assert!(data_end && chunks > 10, "{compression:?}: {chunks} chunks");
        }
    }

    #[test]
    fn chunks_compressed_on_threads_give_the_same_file() {
        let write = |compression, threads| {
            let opts = WriteOptions {
                compression,
                chunk_size: 4096,
                ..WriteOptions::default()
            };
            let mut w = Writer::new(Vec::new(), opts).unwrap();
            w.threads = threads;
            let ch = w.add_channel(0, "/t", "json", &BTreeMap::new()).unwrap();
            for i in 0..5000u32 {
                let pad = "x".repeat((i % 97) as usize);
                let data = format!("{{\"i\":{i},\"pad\":\"{pad}\"}}");
                w.write_message(ch, i, u64::from(i), u64::from(i), data.as_bytes())
                    .unwrap();
                if i == 2500 {
                    w.write_metadata("mid", &BTreeMap::new()).unwrap();
                }
            }
            let threaded = w.sealing.is_some();
            (w.finish().unwrap(), threaded)
        };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        for compression in [Compression::Zstd, Compression::Lz4] {
            let (alone, _) = write(compression, false);
            let (threaded, used) = write(compression, true);
            assert_eq!(used, cores > 1);
            assert_eq!(alone, threaded, "{compression:?}");
            let n = crate::LinearReader::new(&threaded)
                .filter(|r| matches!(r, Ok(Record::Message(_))))
                .count();
            assert_eq!(n, 5000);
            // Every chunk is in the index, in file order.
            let summary = crate::Summary::read(&threaded, true).unwrap().unwrap();
            assert!(summary.chunk_indexes.len() > 20);
            assert!(
                summary
                    .chunk_indexes
                    .windows(2)
                    .all(|w| w[0].chunk_start_offset < w[1].chunk_start_offset)
            );
        }
    }
}
