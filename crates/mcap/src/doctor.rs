//! `doctor`: the structural invariants of an MCAP file (spec section 10,
//! what `mcap doctor` checks), as a list of findings with byte offsets.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io::{self, Write};

use logcore::ReadMode;

use crate::chunk::{ChunkRecords, decompress};
use crate::records::*;
use crate::stream::{LinearReader, ReadOptions, read_inner};
use crate::summary::Summary;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Legal but unusual (empty library, decreasing log times, ...).
    Warning,
    /// A violation of the specification.
    Error,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Warning or error.
    pub severity: Severity,
    /// Absolute offset of the record concerned.
    pub offset: u64,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self.severity {
            Severity::Warning => "Warning",
            Severity::Error => "Error",
        };
        write!(f, "{s}: at byte {}: {}", self.offset, self.message)
    }
}

/// Writes `findings` as `mcap doctor` lists them, one per line
/// (`Error: at byte 8: ...`).
///
/// ```
/// use mcapfile::doctor::{Finding, Severity, error_count, write_findings};
/// let findings = [
///     Finding { severity: Severity::Warning, offset: 8, message: "empty library".into() },
///     Finding { severity: Severity::Error, offset: 40, message: "bad CRC".into() },
/// ];
/// let mut out = Vec::new();
/// write_findings(&mut out, &findings)?;
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     "Warning: at byte 8: empty library\nError: at byte 40: bad CRC\n"
/// );
/// assert_eq!(error_count(&findings), 1);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_findings(out: &mut impl Write, findings: &[Finding]) -> io::Result<()> {
    for f in findings {
        writeln!(out, "{f}")?;
    }
    Ok(())
}

/// How many of `findings` are errors (the rest are warnings); a file with
/// none passes.
pub fn error_count(findings: &[Finding]) -> usize {
    findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count()
}

/// Options of [`doctor`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DoctorOptions {
    /// Report decreasing log times as errors rather than warnings.
    pub strict_message_order: bool,
}

#[derive(Default)]
struct State {
    out: Vec<Finding>,
    schemas: BTreeMap<u16, (String, String, Vec<u8>)>,
    channels: BTreeMap<u16, Channel>,
    message_count: u64,
    times: Option<(u64, u64)>,
    max_time: Option<u64>,
    chunks: BTreeMap<u64, (Chunk<'static>, u64)>,
    top_level_messages: u64,
    data_end: u64,
    attachments: BTreeMap<u64, (u64, String)>,
    metadata: BTreeMap<u64, (u64, String)>,
    /// Message records by (chunk offset, position): (channel, log_time).
    chunk_messages: BTreeMap<(u64, u64), (u16, u64)>,
    chunk_channels: BTreeMap<u64, BTreeSet<u16>>,
}

impl State {
    fn find(&mut self, severity: Severity, offset: u64, message: impl Into<String>) {
        self.out.push(Finding {
            severity,
            offset,
            message: message.into(),
        });
    }

    fn schema(&mut self, at: u64, s: &Schema<'_>) {
        if s.id == 0 {
            self.find(Severity::Error, at, "schema with id 0");
            return;
        }
        if s.encoding.is_empty() && !s.data.is_empty() {
            self.find(
                Severity::Error,
                at,
                format!("schema {} has data but no encoding", s.id),
            );
        }
        let new = (s.name.clone(), s.encoding.clone(), s.data.to_vec());
        match self.schemas.get(&s.id) {
            Some(old) if *old != new => {
                self.find(
                    Severity::Error,
                    at,
                    format!("schema {} differs from an earlier one with that id", s.id),
                );
            }
            Some(_) => {}
            None => {
                self.schemas.insert(s.id, new);
            }
        }
    }

    fn channel(&mut self, at: u64, c: &Channel) {
        if c.schema_id != 0 && !self.schemas.contains_key(&c.schema_id) {
            self.find(
                Severity::Error,
                at,
                format!(
                    "channel {} uses schema {}, not defined before it",
                    c.id, c.schema_id
                ),
            );
        }
        match self.channels.get(&c.id) {
            Some(old) if old != c => {
                self.find(
                    Severity::Error,
                    at,
                    format!("channel {} differs from an earlier one with that id", c.id),
                );
            }
            Some(_) => {}
            None => {
                self.channels.insert(c.id, c.clone());
            }
        }
    }

    fn message(&mut self, at: u64, m: &Message<'_>, order: Severity) {
        if !self.channels.contains_key(&m.channel_id) {
            self.find(
                Severity::Error,
                at,
                format!(
                    "message on channel {} before that channel is defined",
                    m.channel_id
                ),
            );
        }
        if self.max_time.is_some_and(|t| m.log_time < t) {
            self.find(
                order,
                at,
                format!("log_time {} is before an earlier message's", m.log_time),
            );
        }
        self.max_time = Some(self.max_time.map_or(m.log_time, |t| t.max(m.log_time)));
        self.message_count += 1;
        self.times = Some(match self.times {
            None => (m.log_time, m.log_time),
            Some((a, b)) => (a.min(m.log_time), b.max(m.log_time)),
        });
    }

    fn chunk(&mut self, at: u64, len: u64, c: Chunk<'_>, order: Severity) {
        let records = match decompress(&c, at, true, crate::chunk::DEFAULT_MAX_CHUNK_SIZE) {
            Ok(r) => r,
            Err(e) => {
                self.find(Severity::Error, at, format!("chunk cannot be read: {e}"));
                return;
            }
        };
        let base = match records {
            ChunkRecords::Borrowed(_) => at + 9 + 40 + c.compression.len() as u64,
            ChunkRecords::Shared(_) => 0,
        };
        let mut times: Option<(u64, u64)> = None;
        let mut p = 0;
        let n = records.as_slice().len();
        while p < n {
            let (r, adv) = read_inner(&records, p, base);
            match r {
                Ok(Record::Schema(s)) => self.schema(at, &s),
                Ok(Record::Channel(ch)) => self.channel(at, &ch),
                Ok(Record::Message(m)) => {
                    self.message(at, &m, order);
                    times = Some(times.map_or((m.log_time, m.log_time), |(a, b)| {
                        (a.min(m.log_time), b.max(m.log_time))
                    }));
                    self.chunk_messages
                        .insert((at, p as u64), (m.channel_id, m.log_time));
                    self.chunk_channels
                        .entry(at)
                        .or_default()
                        .insert(m.channel_id);
                }
                Ok(Record::Unknown { .. }) => {}
                Ok(other) => self.find(
                    Severity::Error,
                    at,
                    format!("{} record inside a chunk", opcode_name(other.opcode())),
                ),
                Err(e) => {
                    self.find(Severity::Error, at, format!("chunk records: {e}"));
                    break;
                }
            }
            if adv == 0 {
                break;
            }
            p += adv;
        }
        let (s, e) = times.unwrap_or((0, 0));
        if (s, e) != (c.message_start_time, c.message_end_time) {
            self.find(
                Severity::Error,
                at,
                format!(
                    "chunk says log times {}..{}, its messages span {s}..{e}",
                    c.message_start_time, c.message_end_time
                ),
            );
        }
        self.chunks.insert(at, (c.into_owned_chunk(), len));
    }
}

impl Chunk<'_> {
    fn into_owned_chunk(self) -> Chunk<'static> {
        Chunk {
            records: logcore::Payload::Shared(bytes::Bytes::new()),
            message_start_time: self.message_start_time,
            message_end_time: self.message_end_time,
            uncompressed_size: self.uncompressed_size,
            uncompressed_crc: self.uncompressed_crc,
            compression: self.compression,
        }
    }
}

/// Checks `data` and returns every finding, errors and warnings, in file
/// order of the data section, then the summary checks.
///
/// ```
/// use mcapfile::{doctor, DoctorOptions, Writer, WriteOptions};
/// let w = Writer::new(Vec::new(), WriteOptions::default()).unwrap();
/// let file = w.finish().unwrap();
/// assert!(doctor(&file, DoctorOptions::default()).is_empty());
/// ```
pub fn doctor(data: &[u8], opts: DoctorOptions) -> Vec<Finding> {
    let order = if opts.strict_message_order {
        Severity::Error
    } else {
        Severity::Warning
    };
    let mut st = State::default();
    let raw = ReadOptions {
        mode: ReadMode::Lenient,
        flatten_chunks: false,
        ..ReadOptions::default()
    };
    let mut lin = LinearReader::with_options(data, raw);
    let mut data_ends = 0;
    let mut in_summary = false;
    let mut summary_schemas = Vec::new();
    let mut summary_channels = Vec::new();
    let mut last_len = 0u64;
    while let Some(r) = lin.next() {
        let at = lin.last_offset();
        let len = lin.position() - at;
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                st.find(Severity::Error, e.offset().unwrap_or(at), e.to_string());
                continue;
            }
        };
        last_len = len;
        match r {
            Record::Header(h) => {
                if h.library.is_empty() {
                    st.find(Severity::Warning, at, "Header library is empty");
                }
                if !["", "ros1", "ros2"].contains(&h.profile.as_str()) {
                    st.find(
                        Severity::Warning,
                        at,
                        format!("Header profile {:?} is not a well-known profile", h.profile),
                    );
                }
            }
            Record::Schema(s) if in_summary => summary_schemas.push((at, s.id, s.name.clone())),
            Record::Channel(c) if in_summary => summary_channels.push((at, c.id)),
            Record::Schema(s) => st.schema(at, &s),
            Record::Channel(c) => st.channel(at, &c),
            Record::Message(m) => {
                st.top_level_messages += 1;
                st.message(at, &m, order);
            }
            Record::Chunk(c) => st.chunk(at, len, c, order),
            Record::Attachment(a) => {
                st.attachments.insert(at, (len, a.name));
            }
            Record::Metadata(m) => {
                st.metadata.insert(at, (len, m.name));
            }
            Record::DataEnd(_) => {
                data_ends += 1;
                st.data_end = at;
                in_summary = true;
            }
            Record::Unknown { opcode, .. } if !in_summary => {
                st.find(
                    Severity::Warning,
                    at,
                    format!("unknown opcode 0x{opcode:02x}"),
                );
            }
            _ => {}
        }
    }
    let _ = last_len;
    if data_ends != 1 {
        st.find(
            Severity::Error,
            0,
            format!("{data_ends} Data End records (expected exactly one)"),
        );
    }
    // A channel (or schema) only the summary holds has no message in the
    // data section: a message on it is an error of its own ("before that
    // channel is defined"). rosbag2 writes the channels of topics that got
    // no messages this way, so it is worth a warning, not an error.
    for (at, id, _) in &summary_schemas {
        if !st.schemas.contains_key(id) {
            st.find(
                Severity::Warning,
                *at,
                format!(
                    "summary schema {id} is not in the data section (a reader of the data section alone never sees it)"
                ),
            );
        }
    }
    for (at, id) in &summary_channels {
        if !st.channels.contains_key(id) {
            st.find(
                Severity::Warning,
                *at,
                format!(
                    "summary channel {id} is not in the data section, so it has no messages (a reader of the data section alone never sees it)"
                ),
            );
        }
    }
    summary_checks(data, &mut st);
    st.out
}

fn summary_checks(data: &[u8], st: &mut State) {
    let s = match Summary::read(data, true) {
        Ok(Some(s)) => s,
        Ok(None) => return,
        Err(e) => {
            st.find(
                Severity::Error,
                e.offset().unwrap_or(0),
                format!("summary: {e}"),
            );
            return;
        }
    };
    let footer_at = data.len().saturating_sub(37) as u64;
    let mut seen = BTreeSet::new();
    for ci in &s.chunk_indexes {
        let at = ci.chunk_start_offset;
        if !seen.insert(at) {
            st.find(Severity::Error, at, "two Chunk Indexes for one chunk");
        }
        let Some((c, len)) = st.chunks.get(&at).cloned() else {
            st.find(Severity::Error, at, "a Chunk Index points at no chunk");
            continue;
        };
        let mismatch = |what: &str, a: String, b: String| {
            format!("Chunk Index {what} {a} but the chunk has {b}")
        };
        let checks = [
            ("length", ci.chunk_length, len),
            (
                "message_start_time",
                ci.message_start_time,
                c.message_start_time,
            ),
            ("message_end_time", ci.message_end_time, c.message_end_time),
            (
                "uncompressed_size",
                ci.uncompressed_size,
                c.uncompressed_size,
            ),
        ];
        for (what, a, b) in checks {
            if a != b {
                st.find(
                    Severity::Error,
                    at,
                    mismatch(what, a.to_string(), b.to_string()),
                );
            }
        }
        if ci.compression != c.compression {
            st.find(
                Severity::Error,
                at,
                mismatch("compression", ci.compression.clone(), c.compression.clone()),
            );
        }
        if ci.compressed_size + 40 + c.compression.len() as u64 + 9 != len {
            st.find(
                Severity::Error,
                at,
                format!(
                    "Chunk Index compressed_size {} does not fit the chunk",
                    ci.compressed_size
                ),
            );
        }
        for ch in st.chunk_channels.get(&at).cloned().unwrap_or_default() {
            if !s.channels.contains_key(&ch) {
                st.find(
                    Severity::Error,
                    at,
                    format!("channel {ch} of an indexed chunk is not in the summary"),
                );
            }
            let sch = st.channels.get(&ch).map_or(0, |c| c.schema_id);
            if sch != 0 && !s.schemas.contains_key(&sch) {
                st.find(
                    Severity::Error,
                    at,
                    format!("schema {sch} of an indexed chunk is not in the summary"),
                );
            }
        }
        // Message indexes: each entry lands on a message of its channel and time.
        for (&ch, &off) in &ci.message_index_offsets {
            let pos = usize::try_from(off).unwrap_or(usize::MAX);
            let rec = crate::parse::frame_at(data, pos, 0, "file")
                .and_then(|f| crate::parse::parse_record(f.opcode, f.content, off + 9));
            match rec {
                Ok(Record::MessageIndex(mi)) if mi.channel_id == ch => {
                    for (t, p) in mi.records {
                        if st.chunk_messages.get(&(at, p)) != Some(&(ch, t)) {
                            st.find(Severity::Error, off, format!("Message Index entry ({t}, {p}) does not match a message of channel {ch}"));
                        }
                    }
                }
                _ => st.find(
                    Severity::Error,
                    off,
                    format!("no Message Index for channel {ch} here"),
                ),
            }
        }
    }
    if !s.chunk_indexes.is_empty() && st.top_level_messages > 0 {
        st.find(
            Severity::Warning,
            0,
            format!(
                "{} messages outside chunks in an indexed file (many indexed readers miss them)",
                st.top_level_messages
            ),
        );
    }
    if let Some(stats) = &s.statistics {
        if stats.message_count != st.message_count {
            st.find(
                Severity::Error,
                footer_at,
                format!(
                    "Statistics message_count {} but the file has {}",
                    stats.message_count, st.message_count
                ),
            );
        }
        let (a, b) = st.times.unwrap_or((0, 0));
        if (stats.message_start_time, stats.message_end_time) != (a, b) {
            st.find(
                Severity::Error,
                footer_at,
                format!(
                    "Statistics time range {}..{} but messages span {a}..{b}",
                    stats.message_start_time, stats.message_end_time
                ),
            );
        }
    }
    for ai in &s.attachment_indexes {
        if st.attachments.get(&ai.offset) != Some(&(ai.length, ai.name.clone())) {
            st.find(
                Severity::Error,
                ai.offset,
                format!(
                    "Attachment Index {:?} does not match an attachment",
                    ai.name
                ),
            );
        }
    }
    for mi in &s.metadata_indexes {
        if st.metadata.get(&mi.offset) != Some(&(mi.length, mi.name.clone())) {
            st.find(
                Severity::Error,
                mi.offset,
                format!(
                    "Metadata Index {:?} does not match a metadata record",
                    mi.name
                ),
            );
        }
    }
    summary_offsets(data, &s, st);
}

/// Summary records grouped by opcode; each Summary Offset covers exactly its group.
fn summary_offsets(data: &[u8], s: &Summary, st: &mut State) {
    let start = s.footer.summary_start as usize;
    let end = match s.footer.summary_offset_start {
        0 => data.len().saturating_sub(37),
        x => x as usize,
    };
    let mut groups: Vec<(u8, u64, u64)> = Vec::new();
    let mut pos = start;
    while pos < end {
        let Ok(f) = crate::parse::frame_at(&data[..end], pos, 0, "summary") else {
            return;
        };
        match groups.last_mut() {
            Some(g) if g.0 == f.opcode => g.2 += f.len as u64,
            _ => {
                if groups.iter().any(|g| g.0 == f.opcode) {
                    st.find(
                        Severity::Error,
                        pos as u64,
                        format!(
                            "summary {} records are not contiguous",
                            opcode_name(f.opcode)
                        ),
                    );
                }
                groups.push((f.opcode, pos as u64, f.len as u64));
            }
        }
        pos += f.len;
    }
    for so in &s.summary_offsets {
        // Writers emit offsets for empty groups too; they cover nothing.
        if so.group_length == 0 && !groups.iter().any(|g| g.0 == so.group_opcode) {
            continue;
        }
        if !groups.contains(&(so.group_opcode, so.group_start, so.group_length)) {
            st.find(
                Severity::Error,
                so.group_start,
                format!(
                    "Summary Offset for {} does not cover exactly its group",
                    opcode_name(so.group_opcode)
                ),
            );
        }
    }
}
