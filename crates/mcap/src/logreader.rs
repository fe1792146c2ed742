//! [`Mcap`]: an MCAP file over a byte slice, and [`logcore::LogReader`] on
//! top of the streamed and indexed readers.

use std::collections::BTreeMap;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use logcore::{
    ChannelId, ChannelInfo, ChannelSummary, Clock, Format, LogReader, MessageFilter, MessageIter,
    Payload, ReadMode, TimeModel, Timestamp, Value,
};

use crate::Limits;
use crate::error::{Error, Result};
use crate::indexed::{IndexFilter, IndexedMessages};
use crate::parse::{frame_at, parse_record};
use crate::records::*;
use crate::stream::{LinearReader, ReadOptions};
use crate::summary::Summary;

/// An MCAP file read from memory.
///
/// Opening reads the magic, the Header and (when present) the footer and
/// summary section. Everything else is read lazily: [`Mcap::summary`]
/// (the logcore one) uses the Statistics record when the file has one and
/// scans the file otherwise; messages come from the chunk indexes in
/// log-time order when the file is indexed (with any messages stored
/// outside chunks merged in, see [`IndexedMessages`]); an unindexed file
/// goes through the same merge over the chunks and runs of messages one
/// header-only pass finds, and only a file whose data section is damaged
/// is read by a linear pass in file order (lenient mode resynchronises
/// after the damage).
///
/// `LogReader::decode` turns `json` payloads into a [`Value`]; payloads of
/// every other encoding (protobuf, cdr, ros1...) come out as
/// [`Value::Bytes`], for a decoder that knows the channel's schema.
pub struct Mcap<'a> {
    data: &'a [u8],
    header: Header,
    summary: Option<Summary>,
    summary_error: Option<Error>,
    limits: Limits,
    scan: OnceLock<Scan>,
    /// One shared `logcore::Schema` per schema id, made on first use: the
    /// channels of a schema share it.
    core_schemas: Mutex<HashMap<u16, Arc<logcore::Schema>>>,
}

impl std::fmt::Debug for Mcap<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mcap")
            .field("len", &self.data.len())
            .field("header", &self.header)
            .field("indexed", &self.is_indexed())
            .finish_non_exhaustive()
    }
}

/// What a full linear pass found.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    pub(crate) schemas: BTreeMap<u16, Schema<'static>>,
    pub(crate) channels: BTreeMap<u16, Channel>,
    /// Per channel: count, first and last log time.
    pub(crate) counts: BTreeMap<u16, (u64, u64, u64)>,
    pub(crate) message_count: u64,
    pub(crate) start: Option<u64>,
    pub(crate) end: Option<u64>,
    pub(crate) chunks: BTreeMap<String, (u64, u64, u64)>,
    pub(crate) attachments: u64,
    pub(crate) metadata: Vec<Metadata>,
    pub(crate) warnings: Vec<Error>,
    pub(crate) footer_seen: bool,
}

impl<'a> Mcap<'a> {
    /// Opens a file: checks the magic, reads the Header and the summary.
    /// A damaged or missing summary is not an error here; the readers then
    /// fall back to a linear scan.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        Self::with_limits(data, Limits::default())
    }

    /// [`Mcap::new`] with resource `limits` instead of the defaults; every
    /// pass this reader makes (summary scan, messages) applies them.
    pub fn with_limits(data: &'a [u8], limits: Limits) -> Result<Self> {
        let mut lin = LinearReader::new(data);
        let header = match lin.next() {
            Some(Ok(Record::Header(h))) => h,
            Some(Err(e)) => return Err(e),
            _ => {
                let frame = frame_at(data, 8, 0, "file")?;
                return Err(Error::malformed(
                    8,
                    "a Header record after the magic",
                    format!("opcode 0x{:02x}", frame.opcode),
                ));
            }
        };
        let (summary, summary_error) = match Summary::read(data, true) {
            Ok(s) => (s, None),
            Err(e) => (None, Some(e)),
        };
        Ok(Mcap {
            data,
            header,
            summary,
            summary_error,
            limits,
            scan: OnceLock::new(),
            core_schemas: Mutex::new(HashMap::new()),
        })
    }

    /// The file's bytes.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The resource limits this reader applies.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The Header record.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The summary section, when the file has a readable one.
    pub fn mcap_summary(&self) -> Option<&Summary> {
        self.summary.as_ref()
    }

    /// Why the summary could not be read, if it could not.
    pub fn summary_error(&self) -> Option<&Error> {
        self.summary_error.as_ref()
    }

    /// Whether messages can be read through chunk indexes.
    pub fn is_indexed(&self) -> bool {
        self.summary
            .as_ref()
            .is_some_and(|s| !s.chunk_indexes.is_empty())
    }

    /// Every record front to back with `opts`.
    pub fn records(&self, opts: ReadOptions) -> LinearReader<'a> {
        LinearReader::with_options(self.data, opts)
    }

    /// The messages that pass `filter`, in log-time order, from the index
    /// (messages outside chunks included). `None` when the file is not
    /// indexed.
    pub fn indexed_messages(
        &self,
        filter: IndexFilter,
        opts: ReadOptions,
    ) -> Option<IndexedMessages<'a>> {
        let s = self.summary.as_ref().filter(|_| self.is_indexed())?;
        Some(IndexedMessages::new(self.data, s, filter, opts))
    }

    /// Reads the record at `offset` (e.g. from an Attachment or Metadata
    /// index); its size must be `length`.
    pub fn record_at(&self, offset: u64, length: u64) -> Result<Record<'a>> {
        let pos = usize::try_from(offset).unwrap_or(usize::MAX);
        let frame = frame_at(self.data, pos, 0, "file")?;
        if frame.len as u64 != length {
            return Err(Error::malformed(
                offset,
                format!("a record of {length} bytes (from an index)"),
                format!("{} bytes", frame.len),
            ));
        }
        parse_record(frame.opcode, frame.content, offset + 9)
    }

    /// The attachment an Attachment Index points at (its CRC checked when
    /// non-zero).
    pub fn attachment(&self, index: &AttachmentIndex) -> Result<Attachment<'a>> {
        match self.record_at(index.offset, index.length)? {
            Record::Attachment(a) => {
                if a.crc != 0 {
                    let start = index.offset as usize + 9;
                    let len = 16 + 8 + a.name.len() + a.media_type.len() + 8 + a.data.len();
                    let scope = self.data.get(start..start + len).unwrap_or_default();
                    let got = crc32fast::hash(scope);
                    if got != a.crc {
                        return Err(Error::malformed(
                            index.offset,
                            format!("attachment crc 0x{:08x}", a.crc),
                            format!("CRC 0x{got:08x} of the attachment"),
                        ));
                    }
                }
                Ok(a)
            }
            other => Err(Error::malformed(
                index.offset,
                "an Attachment record (from its index)",
                opcode_name(other.opcode()),
            )),
        }
    }

    /// The Metadata record a Metadata Index points at.
    pub fn metadata(&self, index: &MetadataIndex) -> Result<Metadata> {
        match self.record_at(index.offset, index.length)? {
            Record::Metadata(m) => Ok(m),
            other => Err(Error::malformed(
                index.offset,
                "a Metadata record (from its index)",
                opcode_name(other.opcode()),
            )),
        }
    }

    /// Default read options with this reader's limits.
    fn read_options(&self) -> ReadOptions {
        ReadOptions {
            limits: self.limits,
            ..ReadOptions::default()
        }
    }

    pub(crate) fn scan(&self) -> &Scan {
        self.scan.get_or_init(|| {
            let mut s = Scan::default();
            let opts = ReadOptions {
                mode: ReadMode::Lenient,
                ..self.read_options()
            };
            let mut lin = LinearReader::with_options(self.data, opts);
            let mut raw_chunks = LinearReader::with_options(
                self.data,
                ReadOptions {
                    flatten_chunks: false,
                    validate_crcs: false,
                    ..opts
                },
            );
            for r in raw_chunks.by_ref() {
                if let Ok(Record::Chunk(c)) = r {
                    let e = s.chunks.entry(c.compression.clone()).or_default();
                    // Sizes come from the file: a hostile one must not overflow.
                    e.0 += 1;
                    e.1 = e.1.saturating_add(c.records.len() as u64);
                    e.2 = e.2.saturating_add(c.uncompressed_size);
                }
            }
            for r in lin.by_ref() {
                match r {
                    Ok(Record::Schema(x)) if x.id != 0 => {
                        s.schemas.entry(x.id).or_insert_with(|| Schema {
                            id: x.id,
                            name: x.name,
                            encoding: x.encoding,
                            data: x.data.into_owned(),
                        });
                    }
                    Ok(Record::Channel(c)) => {
                        s.channels.entry(c.id).or_insert(c);
                    }
                    Ok(Record::Message(m)) => {
                        s.message_count += 1;
                        let t = m.log_time;
                        s.start = Some(s.start.map_or(t, |x| x.min(t)));
                        s.end = Some(s.end.map_or(t, |x| x.max(t)));
                        let e = s.counts.entry(m.channel_id).or_insert((0, t, t));
                        e.0 += 1;
                        e.1 = e.1.min(t);
                        e.2 = e.2.max(t);
                    }
                    Ok(Record::Attachment(_)) => s.attachments += 1,
                    Ok(Record::Metadata(m)) => s.metadata.push(m),
                    Ok(_) => {}
                    Err(e) => s.warnings.push(e),
                }
            }
            s.footer_seen = lin.footer_seen();
            if let Some(e) = &self.summary_error {
                if s.footer_seen {
                    s.warnings.push(e.clone());
                }
            }
            s
        })
    }

    /// The schemas and channels: from the summary when it repeats them,
    /// else from a scan.
    /// The schemas and channels: the summary section's where it has
    /// channels and the schema of each (a summary may repeat the channels
    /// but not their schemas), else those of a scan of the data section.
    fn tables(&self) -> (&BTreeMap<u16, Schema<'static>>, &BTreeMap<u16, Channel>) {
        match &self.summary {
            Some(s)
                if !s.channels.is_empty()
                    && s.channels
                        .values()
                        .all(|c| c.schema_id == 0 || s.schemas.contains_key(&c.schema_id)) =>
            {
                (&s.schemas, &s.channels)
            }
            _ => {
                let scan = self.scan();
                (&scan.schemas, &scan.channels)
            }
        }
    }

    fn channel(&self, id: u16) -> Option<&Channel> {
        self.tables()
            .1
            .get(&id)
            .or_else(|| self.scan().channels.get(&id))
    }

    fn channel_info(&self, c: &Channel, schemas: &BTreeMap<u16, Schema<'static>>) -> ChannelInfo {
        let schema = schemas.get(&c.schema_id);
        let mut info = ChannelInfo::new(
            ChannelId(u32::from(c.id)),
            c.topic.clone(),
            schema.map(|s| s.name.clone()).unwrap_or_default(),
            c.message_encoding.clone(),
        );
        info.schema = schema.map(|s| {
            let mut cache = self
                .core_schemas
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            cache
                .entry(s.id)
                .or_insert_with(|| {
                    Arc::new(logcore::Schema {
                        name: s.name.clone(),
                        encoding: s.encoding.clone(),
                        data: s.data.to_vec(),
                    })
                })
                .clone()
        });
        info.metadata = c.metadata.clone();
        info
    }

    /// Summary from the Statistics record, when it has per-channel counts
    /// (or no messages) and the summary repeats the channels.
    fn summary_from_statistics(&self) -> Option<logcore::Summary> {
        let s = self.summary.as_ref()?;
        let st = s.statistics.as_ref()?;
        let complete = st.message_count == 0
            || (!st.channel_message_counts.is_empty() && !s.channels.is_empty());
        if !complete {
            return None;
        }
        let mut out = self.empty_summary();
        let ranges = self.channel_ranges(s);
        let (schemas, _) = self.tables();
        for c in s.channels.values() {
            let range = ranges.as_ref().and_then(|r| r.get(&c.id));
            out.channels.push(ChannelSummary {
                info: self.channel_info(c, schemas),
                message_count: st.channel_message_counts.get(&c.id).copied().unwrap_or(0),
                start: range.and_then(|r| Timestamp::from_nanos_u64(r.0)),
                end: range.and_then(|r| Timestamp::from_nanos_u64(r.1)),
            });
        }
        out.message_count = st.message_count;
        if st.message_count > 0 {
            out.start = Timestamp::from_nanos_u64(st.message_start_time);
            out.end = Timestamp::from_nanos_u64(st.message_end_time);
        }
        let mut chunks: BTreeMap<&str, (u64, u64, u64)> = BTreeMap::new();
        for ci in &s.chunk_indexes {
            let e = chunks.entry(ci.compression.as_str()).or_default();
            e.0 += 1;
            e.1 = e.1.saturating_add(ci.compressed_size);
            e.2 = e.2.saturating_add(ci.uncompressed_size);
        }
        for (k, v) in chunks {
            insert_chunk_stats(&mut out.metadata, k, v);
        }
        out.metadata
            .insert("attachments".into(), st.attachment_count.to_string());
        out.metadata
            .insert("chunks".into(), st.chunk_count.to_string());
        for mi in &s.metadata_indexes {
            match self.record_at(mi.offset, mi.length) {
                Ok(Record::Metadata(m)) => insert_metadata(&mut out.metadata, &m),
                Ok(_) => out.warnings.push(Error::malformed(
                    mi.offset,
                    "a Metadata record (from its index)",
                    "another record",
                )),
                Err(e) => out.warnings.push(e),
            }
        }
        Some(out)
    }

    /// First and last log time per channel from the Message Index records
    /// (16 bytes per message, no decompression); `None` when a chunk lacks
    /// them or one does not hold up.
    fn channel_ranges(&self, s: &Summary) -> Option<BTreeMap<u16, (u64, u64)>> {
        let mut out: BTreeMap<u16, (u64, u64)> = BTreeMap::new();
        for ci in &s.chunk_indexes {
            if ci.message_index_offsets.is_empty() && ci.message_end_time != 0 {
                return None;
            }
            for (&ch, &off) in &ci.message_index_offsets {
                let pos = usize::try_from(off).ok()?;
                let f = frame_at(self.data, pos, 0, "file").ok()?;
                let Ok(Record::MessageIndex(mi)) = parse_record(f.opcode, f.content, off + 9)
                else {
                    return None;
                };
                if mi.channel_id != ch {
                    return None;
                }
                for (t, _) in mi.records {
                    let e = out.entry(ch).or_insert((t, t));
                    e.0 = e.0.min(t);
                    e.1 = e.1.max(t);
                }
            }
        }
        Some(out)
    }

    fn empty_summary(&self) -> logcore::Summary {
        let mut out = logcore::Summary::new(Format::Mcap, "0", TimeModel::new(Clock::Unix));
        out.metadata
            .insert("profile".into(), self.header.profile.clone());
        out.metadata
            .insert("library".into(), self.header.library.clone());
        out.metadata
            .insert("indexed".into(), self.is_indexed().to_string());
        out
    }
}

fn insert_chunk_stats(m: &mut BTreeMap<String, String>, compression: &str, v: (u64, u64, u64)) {
    let name = if compression.is_empty() {
        "none"
    } else {
        compression
    };
    let ratio = if v.2 == 0 {
        100.0
    } else {
        v.1 as f64 * 100.0 / v.2 as f64
    };
    m.insert(
        format!("chunks.{name}"),
        format!("{} chunks, {} of {} bytes ({ratio:.1}%)", v.0, v.1, v.2),
    );
}

fn insert_metadata(m: &mut BTreeMap<String, String>, rec: &Metadata) {
    for (k, v) in &rec.metadata {
        m.insert(format!("metadata.{}.{k}", rec.name), v.clone());
    }
}

/// A JSON document as a [`Value`] (objects keep their key order; see
/// `Value`'s `Deserialize`).
pub fn json_to_value(j: serde_json::Value) -> Value {
    // Reading a `serde_json::Value` cannot fail: every JSON value has a
    // `Value` form.
    serde_json::from_value(j).unwrap_or(Value::Null)
}

/// [`IndexedMessages`] as logcore messages.
struct CoreMessages<'a>(IndexedMessages<'a>);

impl<'a> Iterator for CoreMessages<'a> {
    type Item = logcore::Result<logcore::Message<'a>>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        Some(match self.0.next()? {
            Ok((off, m)) => to_core(off, m),
            Err(e) => Err(e),
        })
    }
}

#[inline(always)]
fn to_core(offset: u64, m: Message<'_>) -> logcore::Result<logcore::Message<'_>> {
    const MAX: u64 = i64::MAX as u64;
    if m.log_time > MAX || m.publish_time > MAX {
        return Err(time_error(offset, &m));
    }
    Ok(logcore::Message {
        channel: ChannelId(u32::from(m.channel_id)),
        log_time: Timestamp(m.log_time as i64),
        publish_time: Some(Timestamp(m.publish_time as i64)),
        sequence: Some(u64::from(m.sequence)),
        offset: Some(offset),
        payload: m.data,
    })
}

/// The error of a time beyond logcore's range (kept out of the hot path).
#[cold]
#[inline(never)]
fn time_error(offset: u64, m: &Message<'_>) -> logcore::Error {
    let (what, t) = if m.log_time > i64::MAX as u64 {
        ("log_time", m.log_time)
    } else {
        ("publish_time", m.publish_time)
    };
    logcore::Error::malformed(offset, format!("{what} below 2^63 ns"), t.to_string())
}

impl LogReader for Mcap<'_> {
    fn format(&self) -> Format {
        Format::Mcap
    }

    fn message_columns(&self) -> &'static [logcore::MessageColumn] {
        &[
            logcore::MessageColumn::PublishTime,
            logcore::MessageColumn::Sequence,
        ]
    }

    /// Channels say their message encoding and schema; the `robolog`
    /// facade's registry decodes them.
    fn decodes_by_encoding(&self) -> bool {
        true
    }

    fn summary(&self) -> logcore::Result<logcore::Summary> {
        if let Some(s) = self.summary_from_statistics() {
            return Ok(s);
        }
        let scan = self.scan();
        let mut out = self.empty_summary();
        let (schemas, channels) = (&scan.schemas, &scan.channels);
        for c in channels.values() {
            let (n, s, e) = scan.counts.get(&c.id).copied().unwrap_or_default();
            out.channels.push(ChannelSummary {
                info: self.channel_info(c, schemas),
                message_count: n,
                start: (n > 0).then(|| Timestamp::from_nanos_u64(s)).flatten(),
                end: (n > 0).then(|| Timestamp::from_nanos_u64(e)).flatten(),
            });
        }
        out.message_count = scan.message_count;
        out.start = scan.start.and_then(Timestamp::from_nanos_u64);
        out.end = scan.end.and_then(Timestamp::from_nanos_u64);
        for (k, v) in &scan.chunks {
            insert_chunk_stats(&mut out.metadata, k, *v);
        }
        out.metadata.insert(
            "chunks".into(),
            scan.chunks.values().map(|v| v.0).sum::<u64>().to_string(),
        );
        out.metadata
            .insert("attachments".into(), scan.attachments.to_string());
        for m in &scan.metadata {
            insert_metadata(&mut out.metadata, m);
        }
        out.warnings = scan.warnings.to_vec();
        Ok(out)
    }

    fn channels(&self) -> logcore::Result<Vec<ChannelInfo>> {
        let (schemas, channels) = self.tables();
        Ok(channels
            .values()
            .map(|c| self.channel_info(c, schemas))
            .collect())
    }

    fn messages<'b>(&'b self, filter: &MessageFilter) -> logcore::Result<MessageIter<'b>> {
        let opts = ReadOptions {
            mode: filter.mode,
            ..self.read_options()
        };
        let channels = filter
            .channels
            .as_ref()
            .map(|set| set.iter().filter_map(|c| u16::try_from(c.0).ok()).collect());
        let index_filter = IndexFilter {
            channels,
            start: filter.start.map(|t| t.as_nanos().max(0) as u64),
            end: filter.end.map(|t| t.as_nanos().max(0) as u64),
        };
        if let Some(it) = self.indexed_messages(index_filter.clone(), opts) {
            return Ok(Box::new(CoreMessages(it)));
        }
        // Not indexed: the same time-ordered merge over chunks found by one
        // header-only pass (their headers carry the time ranges), unless
        // that pass meets damage; the linear reader then goes through it
        // (lenient mode resynchronises), in file order.
        let scan_summary = match &self.summary {
            Some(s) if s.footer.summary_start != 0 => None,
            _ => Some(Summary {
                footer: Footer {
                    summary_start: u64::MAX,
                    ..Footer::default()
                },
                ..Summary::default()
            }),
        };
        let summary = scan_summary.as_ref().or(self.summary.as_ref());
        if let Some(s) = summary {
            let it = IndexedMessages::new(self.data, s, index_filter.clone(), opts);
            if !it.data_section_damaged() {
                return Ok(Box::new(CoreMessages(it)));
            }
        }
        let mut lin = self.records(opts);
        Ok(Box::new(std::iter::from_fn(move || {
            loop {
                match lin.next()? {
                    Ok(Record::Message(m)) => {
                        let wanted = index_filter.start.is_none_or(|s| m.log_time >= s)
                            && index_filter.end.is_none_or(|e| m.log_time < e)
                            && index_filter
                                .channels
                                .as_ref()
                                .is_none_or(|c| c.contains(&m.channel_id));
                        if wanted {
                            return Some(to_core(lin.last_offset(), m));
                        }
                    }
                    Ok(_) => {}
                    Err(e) => return Some(Err(e)),
                }
            }
        })))
    }

    fn decode(&self, message: &logcore::Message<'_>) -> logcore::Result<Value> {
        let id = u16::try_from(message.channel.0).ok();
        let channel = id.and_then(|id| self.channel(id)).ok_or_else(|| {
            logcore::Error::InvalidArgument(format!(
                "channel {} does not exist in this MCAP file",
                message.channel
            ))
        })?;
        if channel.message_encoding == "json" {
            return serde_json::from_slice::<Value>(&message.payload).map_err(|e| {
                logcore::Error::malformed(
                    message.offset.unwrap_or(0),
                    format!("a JSON payload on channel {:?}", channel.topic),
                    e.to_string(),
                )
            });
        }
        Ok(Value::Bytes(match &message.payload {
            Payload::Borrowed(b) => b.to_vec(),
            Payload::Shared(b) => b.to_vec(),
        }))
    }
}
