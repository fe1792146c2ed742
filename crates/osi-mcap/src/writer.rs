//! [`OsiTraceWriter`]: writes ASAM OSI multi-channel traces that both rule
//! sets accept (the draft admits only types with a timestamp field, so a
//! trace with a `SensorViewConfiguration` channel conforms to OSI 3.8.0
//! alone).
//!
//! - One channel per topic, each holding one OSI top-level message type;
//!   the schema is the type's `FileDescriptorSet` (with imports), stored
//!   once per distinct type and descriptor.
//! - Message times come from the messages: `log_time = publish_time =`
//!   the OSI `timestamp` in ns, read from the bytes through the descriptor
//!   (integer arithmetic, never floating point). Types without a timestamp
//!   (`SensorViewConfiguration`) are written with
//!   [`OsiTraceWriter::write_at`] and an explicit time.
//! - File meta-data: the OSI 3.8.0 record `net.asam.osi.trace` (the five
//!   required versions, derived from the channels unless given, and the
//!   recommended keys given) and, unless switched off, the draft's
//!   `versions` and `asam_osi` records; channel meta-data under both the
//!   3.8.0 keys (`net.asam.osi.trace.channel.*`) and the draft keys
//!   (`osi_version`, `protobuf`, `description`).
//! - Chunks compressed with none, lz4 or zstd; every index, statistics and
//!   summary written by [`mcapfile::Writer`].
//!
//! The meta-data records are written before the first message, so a
//! writer that is interrupted leaves a trace whose every complete chunk is
//! readable and still identifies itself as OSI ([`mcapfile::recover()`]
//! rebuilds the summary).
//!
//! ```no_run
//! # fn descriptor_set() -> Vec<u8> { Vec::new() }
//! # fn ground_truth(seconds: i64, nanos: u32) -> Vec<u8> { Vec::new() }
//! // descriptor_set(): the FileDescriptorSet of osi_groundtruth.proto with its
//! // imports (protoc --include_imports); ground_truth(): a serialized message.
//! use osi_mcap::writer::{ChannelSpec, OsiTraceWriter, TraceOptions};
//! let mut w = OsiTraceWriter::new(Vec::new(), TraceOptions::default())?;
//! let gt = w.add_channel(ChannelSpec::new("gt", "osi3.GroundTruth", descriptor_set(), "3.8.0", "6.31.1"))?;
//! for i in 0..3 {
//!     assert_eq!(w.write(gt, &ground_truth(i, 500_000_000))?, i as u64 * 1_000_000_000 + 500_000_000);
//! }
//! let file = w.finish()?;
//! assert!(osi_mcap::validate(&file, &Default::default()).passed());
//! # Ok::<(), osi_mcap::writer::Error>(())
//! ```

use std::collections::BTreeMap;
use std::io::Write;

use crate::conventions::{
    DraftName, Semver, TraceName, format_compact_date_time, format_date_time_stamp,
    format_name_timestamp,
};
use crate::proto::{Descriptors, ProtoError, TopLevel, type_code};
use crate::validate::{
    CHANNEL_DESCRIPTION, CHANNEL_OSI_VERSION, CHANNEL_PROTOBUF_VERSION, DRAFT_ASAM_OSI,
    DRAFT_VERSIONS, TRACE_METADATA,
};
use mcapfile::{Compression, WriteOptions, Writer};

/// What can go wrong while writing a trace.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The MCAP layer failed (I/O, ...).
    #[error(transparent)]
    Mcap(#[from] mcapfile::Error),
    /// A descriptor set or a message could not be read.
    #[error(transparent)]
    Proto(#[from] ProtoError),
    /// The caller asked for something a conforming trace cannot hold.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

/// Result of this module.
pub type Result<T> = std::result::Result<T, Error>;

fn invalid<T>(msg: impl Into<String>) -> Result<T> {
    Err(Error::InvalidArgument(msg.into()))
}

/// The file meta-data of a trace. Unset versions are derived from the
/// channels (smallest and largest); unset recommended keys are left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceMetadata {
    /// Version of the OSI standard whose trace format the file follows.
    pub version: String,
    /// Lowest OSI version of any channel (`None`: derived).
    pub min_osi_version: Option<String>,
    /// Highest OSI version of any channel (`None`: derived).
    pub max_osi_version: Option<String>,
    /// Lowest protobuf version of any channel (`None`: derived).
    pub min_protobuf_version: Option<String>,
    /// Highest protobuf version of any channel (`None`: derived).
    pub max_protobuf_version: Option<String>,
    /// Calendar time of timestamp 0, as Unix ns (`None`: not written in
    /// the 3.8.0 record; the draft, which requires it, gets the creation
    /// time).
    pub zero_time_unix_ns: Option<i128>,
    /// When recording started, as Unix ns (`None`: when the writer was made).
    pub creation_time_unix_ns: Option<i128>,
    /// Human-readable description.
    pub description: Option<String>,
    /// Comma-separated entities (not tools) that made the data (the
    /// draft's `creator`).
    pub authors: Option<String>,
    /// Comma-separated data sources.
    pub data_sources: Option<String>,
    /// SPDX identifiers (the draft's `license`; OSI 3.8.0 has no such key).
    pub license: Option<String>,
    /// Further keys of `net.asam.osi.trace`.
    pub extra: BTreeMap<String, String>,
}

impl Default for TraceMetadata {
    fn default() -> Self {
        TraceMetadata {
            version: "3.8.0".into(),
            min_osi_version: None,
            max_osi_version: None,
            min_protobuf_version: None,
            max_protobuf_version: None,
            zero_time_unix_ns: None,
            creation_time_unix_ns: None,
            description: None,
            authors: None,
            data_sources: None,
            license: None,
            extra: BTreeMap::new(),
        }
    }
}

/// Options of [`OsiTraceWriter`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceOptions {
    /// Chunk compression (none, lz4 or zstd: all three are OSI's).
    pub compression: Compression,
    /// Uncompressed chunk size at which a chunk is closed.
    pub chunk_size: u64,
    /// File meta-data.
    pub metadata: TraceMetadata,
    /// Also write the draft's meta-data records and channel keys.
    pub draft_metadata: bool,
    /// The Header library string.
    pub library: String,
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            compression: Compression::Zstd,
            chunk_size: 1 << 20,
            metadata: TraceMetadata::default(),
            draft_metadata: true,
            library: concat!("osi-mcap ", env!("CARGO_PKG_VERSION")).into(),
        }
    }
}

/// One channel to add.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelSpec {
    /// Topic, unique in the file (OSMP-style names are recommended, e.g.
    /// `RadarSensorFL.OSMPSensorDataOut`).
    pub topic: String,
    /// Full type name, `osi3.<TopLevelMessage>`.
    pub message_type: String,
    /// Serialized `google.protobuf.FileDescriptorSet` defining it, with
    /// every import.
    pub descriptor_set: Vec<u8>,
    /// OSI version of the messages; `None` takes it from the descriptor's
    /// `current_interface_version` option when present.
    pub osi_version: Option<String>,
    /// Version of the protobuf implementation that serialized them.
    pub protobuf_version: String,
    /// Description of the channel's origin and purpose.
    pub description: Option<String>,
    /// Further channel keys.
    pub metadata: BTreeMap<String, String>,
}

impl ChannelSpec {
    /// A channel with the required fields.
    pub fn new(
        topic: impl Into<String>,
        message_type: impl Into<String>,
        descriptor_set: Vec<u8>,
        osi_version: impl Into<String>,
        protobuf_version: impl Into<String>,
    ) -> ChannelSpec {
        ChannelSpec {
            topic: topic.into(),
            message_type: message_type.into(),
            descriptor_set,
            osi_version: Some(osi_version.into()),
            protobuf_version: protobuf_version.into(),
            description: None,
            metadata: BTreeMap::new(),
        }
    }
}

/// A channel of an [`OsiTraceWriter`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OsiChannel(pub u16);

struct ChannelState {
    top: TopLevel,
    type_code: &'static str,
    osi_version: Semver,
    protobuf_version: Semver,
    count: u64,
}

/// Writes an OSI trace (see the [module docs](self)).
pub struct OsiTraceWriter<W: Write> {
    inner: Writer<W>,
    opts: TraceOptions,
    creation_ns: i128,
    schemas: Vec<(String, Vec<u8>, u16)>,
    channels: BTreeMap<u16, ChannelState>,
    topics: BTreeMap<String, u16>,
    /// The versions declared in the meta-data once it is written.
    declared: Option<[Semver; 4]>,
    first_time: Option<u64>,
}

impl<W: Write> std::fmt::Debug for OsiTraceWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OsiTraceWriter")
            .field("channels", &self.topics)
            .field("metadata_written", &self.declared.is_some())
            .finish_non_exhaustive()
    }
}

fn now_unix_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

fn semver(what: &str, v: &str) -> Result<Semver> {
    Semver::parse(v)
        .ok_or_else(|| Error::InvalidArgument(format!("{what} {v:?} is not a semantic version")))
}

impl<W: Write> OsiTraceWriter<W> {
    /// Starts a trace on `sink` (the MCAP header is written at once).
    pub fn new(sink: W, options: TraceOptions) -> Result<Self> {
        let m = &options.metadata;
        semver("version", &m.version)?;
        for v in [
            &m.min_osi_version,
            &m.max_osi_version,
            &m.min_protobuf_version,
            &m.max_protobuf_version,
        ]
        .into_iter()
        .flatten()
        {
            semver("a meta-data version", v)?;
        }
        let inner = Writer::new(
            sink,
            WriteOptions {
                compression: options.compression,
                chunk_size: options.chunk_size.max(1),
                library: options.library.clone(),
                ..WriteOptions::default()
            },
        )?;
        let creation_ns = m.creation_time_unix_ns.unwrap_or_else(now_unix_ns);
        Ok(OsiTraceWriter {
            inner,
            opts: options,
            creation_ns,
            schemas: Vec::new(),
            channels: BTreeMap::new(),
            topics: BTreeMap::new(),
            declared: None,
            first_time: None,
        })
    }

    /// Adds a channel. Fails when the type is not an OSI top-level message
    /// the descriptor set defines, a version is not SemVer, the topic is
    /// taken, or (after the first message) the versions fall outside those
    /// already declared in the meta-data.
    pub fn add_channel(&mut self, spec: ChannelSpec) -> Result<OsiChannel> {
        if self.topics.contains_key(&spec.topic) {
            return invalid(format!("topic {:?} already has a channel", spec.topic));
        }
        let Some(code) = type_code(&spec.message_type) else {
            return invalid(format!(
                "{:?} is not an OSI top-level message type (osi3.GroundTruth, osi3.SensorView, ...)",
                spec.message_type
            ));
        };
        let descriptors = Descriptors::from_file_descriptor_set(&spec.descriptor_set)?;
        let top = TopLevel::new(&descriptors, &spec.message_type)?;
        let osi = match (&spec.osi_version, descriptors.interface_version()) {
            (Some(v), _) => semver("osi_version", v)?,
            (None, Some(v)) => semver("osi_version", &v.to_string())?,
            (None, None) => {
                return invalid(format!(
                    "no OSI version given for {:?} and its descriptor has no current_interface_version",
                    spec.topic
                ));
            }
        };
        let pb = semver("protobuf_version", &spec.protobuf_version)?;
        if let Some([lo, hi, plo, phi]) = &self.declared
            && (osi < *lo || osi > *hi || pb < *plo || pb > *phi)
        {
            return invalid(format!(
                "channel {:?} (OSI {osi}, protobuf {pb}) is outside the versions the trace already declared ({lo}..{hi}, {plo}..{phi}); add every channel before the first message",
                spec.topic
            ));
        }
        let schema = match self
            .schemas
            .iter()
            .find(|(n, d, _)| *n == spec.message_type && *d == spec.descriptor_set)
        {
            Some((_, _, id)) => *id,
            None => {
                let id =
                    self.inner
                        .add_schema(&spec.message_type, "protobuf", &spec.descriptor_set)?;
                self.schemas
                    .push((spec.message_type.clone(), spec.descriptor_set.clone(), id));
                id
            }
        };
        let mut md = spec.metadata.clone();
        md.insert(CHANNEL_OSI_VERSION.into(), osi.to_string());
        md.insert(CHANNEL_PROTOBUF_VERSION.into(), pb.to_string());
        if let Some(d) = &spec.description {
            md.insert(CHANNEL_DESCRIPTION.into(), d.clone());
        }
        if self.opts.draft_metadata {
            md.insert("osi_version".into(), osi.to_string());
            md.insert("protobuf".into(), pb.to_string());
            if let Some(d) = &spec.description {
                md.insert("description".into(), d.clone());
            }
        }
        let id = self
            .inner
            .add_channel(schema, &spec.topic, "protobuf", &md)?;
        self.topics.insert(spec.topic, id);
        self.channels.insert(
            id,
            ChannelState {
                top,
                type_code: code,
                osi_version: osi,
                protobuf_version: pb,
                count: 0,
            },
        );
        Ok(OsiChannel(id))
    }

    /// Writes one serialized message; its time is its OSI timestamp, which
    /// is returned (ns). Fails for types without a timestamp (use
    /// [`write_at`](Self::write_at)) and for messages without a valid one.
    pub fn write(&mut self, channel: OsiChannel, message: &[u8]) -> Result<u64> {
        let st = self.state(channel)?;
        if !st.top.has_timestamp_field() {
            return invalid(format!(
                "{} has no timestamp field: write it with write_at and the time it was enqueued",
                st.top.full_name()
            ));
        }
        let ts = st.top.timestamp(message)?.ok_or_else(|| {
            Error::InvalidArgument(format!(
                "the {} message has no timestamp",
                st.top.full_name()
            ))
        })?;
        let ns = ts.to_nanos().ok_or_else(|| {
            Error::InvalidArgument(format!(
                "timestamp seconds {} nanos {} is not a valid OSI time",
                ts.seconds, ts.nanos
            ))
        })?;
        self.put(channel, ns, message)?;
        Ok(ns)
    }

    /// Writes one serialized message at `time_ns` (for types without a
    /// timestamp field: the time it was enqueued, in the trace's time base).
    /// For types with one, the time must equal the message's timestamp.
    pub fn write_at(&mut self, channel: OsiChannel, time_ns: u64, message: &[u8]) -> Result<()> {
        let st = self.state(channel)?;
        if st.top.has_timestamp_field() {
            let ns = st.top.timestamp(message)?.and_then(|t| t.to_nanos());
            if ns != Some(time_ns) {
                return invalid(format!(
                    "time {time_ns} ns differs from the message's OSI timestamp {ns:?}: publish_time must equal it"
                ));
            }
        }
        self.put(channel, time_ns, message)
    }

    fn state(&self, channel: OsiChannel) -> Result<&ChannelState> {
        self.channels
            .get(&channel.0)
            .ok_or_else(|| Error::InvalidArgument(format!("channel {} was not added", channel.0)))
    }

    fn put(&mut self, channel: OsiChannel, ns: u64, message: &[u8]) -> Result<()> {
        if self.declared.is_none() {
            self.write_metadata()?;
        }
        let st = self.channels.get_mut(&channel.0).ok_or_else(|| {
            Error::InvalidArgument(format!("channel {} was not added", channel.0))
        })?;
        st.count += 1;
        let seq = u32::try_from(st.count).unwrap_or(u32::MAX);
        self.first_time.get_or_insert(ns);
        self.inner.write_message(channel.0, seq, ns, ns, message)?;
        Ok(())
    }

    /// The four versions the meta-data declares: given, or the channels'.
    fn versions(&self) -> Result<[Semver; 4]> {
        let m = &self.opts.metadata;
        let pick = |given: &Option<String>, f: &dyn Fn(&ChannelState) -> &Semver, max: bool| {
            if let Some(v) = given {
                return semver("a meta-data version", v);
            }
            let it = self.channels.values().map(f);
            let v = if max { it.max() } else { it.min() };
            v.cloned().ok_or_else(|| {
                Error::InvalidArgument(
                    "a trace needs at least one channel (or explicit versions) before messages or finish".into(),
                )
            })
        };
        Ok([
            pick(&m.min_osi_version, &|c| &c.osi_version, false)?,
            pick(&m.max_osi_version, &|c| &c.osi_version, true)?,
            pick(&m.min_protobuf_version, &|c| &c.protobuf_version, false)?,
            pick(&m.max_protobuf_version, &|c| &c.protobuf_version, true)?,
        ])
    }

    fn write_metadata(&mut self) -> Result<()> {
        let versions = self.versions()?;
        let m = self.opts.metadata.clone();
        let mut rec: BTreeMap<String, String> = m.extra.clone();
        rec.insert("version".into(), m.version.clone());
        for (k, v) in [
            "min_osi_version",
            "max_osi_version",
            "min_protobuf_version",
            "max_protobuf_version",
        ]
        .into_iter()
        .zip(&versions)
        {
            rec.insert(k.into(), v.to_string());
        }
        let iso = |ns: i128| {
            format_date_time_stamp(ns)
                .ok_or_else(|| Error::InvalidArgument(format!("time {ns} ns is out of range")))
        };
        let compact = |ns: i128| {
            format_compact_date_time(ns)
                .ok_or_else(|| Error::InvalidArgument(format!("time {ns} ns is out of range")))
        };
        if let Some(z) = m.zero_time_unix_ns {
            rec.insert("zero_time".into(), iso(z)?);
        }
        rec.insert("creation_time".into(), iso(self.creation_ns)?);
        for (k, v) in [
            ("description", &m.description),
            ("authors", &m.authors),
            ("data_sources", &m.data_sources),
        ] {
            if let Some(v) = v {
                rec.insert(k.into(), v.clone());
            }
        }
        self.inner.write_metadata(TRACE_METADATA, &rec)?;
        if self.opts.draft_metadata {
            let mut v = BTreeMap::new();
            v.insert("osi".into(), versions[0].to_string());
            self.inner.write_metadata(DRAFT_VERSIONS, &v)?;
            let mut a = BTreeMap::new();
            a.insert(
                "zero_time".into(),
                compact(m.zero_time_unix_ns.unwrap_or(self.creation_ns))?,
            );
            a.insert("timestamp".into(), compact(self.creation_ns)?);
            for (k, v) in [
                ("description", &m.description),
                ("creator", &m.authors),
                ("license", &m.license),
                ("data_sources", &m.data_sources),
            ] {
                if let Some(v) = v {
                    a.insert(k.into(), v.clone());
                }
            }
            self.inner.write_metadata(DRAFT_ASAM_OSI, &a)?;
        }
        self.declared = Some(versions);
        Ok(())
    }

    /// Messages written so far per channel.
    pub fn message_count(&self, channel: OsiChannel) -> u64 {
        self.channels.get(&channel.0).map_or(0, |c| c.count)
    }

    /// The name OSI 3.8.0 recommends for this trace so far:
    /// `<timestamp>_<type>_<osi>_<protobuf>_<frames>_<name>.mcap`, with the
    /// zero time (else the creation time), `multi` for several types, the
    /// file's OSI version, the lowest protobuf version and the largest
    /// message count of a channel.
    pub fn trace_name(&self, name: &str) -> TraceName {
        let m = &self.opts.metadata;
        let versions = self.versions().ok();
        TraceName {
            timestamp: format_name_timestamp(m.zero_time_unix_ns.unwrap_or(self.creation_ns))
                .unwrap_or_default(),
            type_code: self.type_code().into(),
            osi_version: Semver::parse(&m.version)
                .map(|v| v.compact())
                .unwrap_or_default(),
            protobuf_version: versions.map(|v| v[2].compact()).unwrap_or_default(),
            frames: self.channels.values().map(|c| c.count).max().unwrap_or(0),
            name: name.into(),
            extension: "mcap".into(),
        }
    }

    /// The name the draft rules ask for:
    /// `<prefix>_<timestamp>_<type>_<suffix>.mcap` (timestamp: the zero
    /// time, else the creation time, in basic ISO 8601).
    pub fn draft_name(&self, prefix: Option<&str>, suffix: Option<&str>) -> DraftName {
        let m = &self.opts.metadata;
        DraftName {
            prefix: prefix.map(|p| p.replace('_', "-")),
            timestamp: format_name_timestamp(m.zero_time_unix_ns.unwrap_or(self.creation_ns)),
            type_code: self.type_code().into(),
            suffix: suffix.map(|s| s.replace('_', "-")),
        }
    }

    fn type_code(&self) -> &'static str {
        let mut codes = self.channels.values().map(|c| c.type_code);
        match codes.next() {
            Some(first) if codes.all(|c| c == first) => first,
            Some(_) => "multi",
            None => "multi",
        }
    }

    /// Writes the meta-data (if no message did), the last chunk, the
    /// summary and the footer, and returns the sink.
    pub fn finish(mut self) -> Result<W> {
        if self.declared.is_none() {
            self.write_metadata()?;
        }
        Ok(self.inner.finish()?)
    }
}
