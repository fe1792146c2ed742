//! The OSI trace validator: checks an MCAP file against the rules of ASAM
//! OSI multi-channel trace files, in one of two profiles (or, for MCAP
//! files that are no OSI traces, only the MCAP structural checks).
//!
//! - [`Profile::Osi38`] (`osi-3.8`): the rules published with OSI 3.8.0
//!   (file meta-data record `net.asam.osi.trace`, channel keys
//!   `net.asam.osi.trace.channel.*`, extended ISO 8601 times).
//! - [`Profile::Draft`] (`draft`): the pre-standard draft this project
//!   started from (meta-data records `versions` and `asam_osi`, channel keys
//!   `osi_version` and `protobuf`, compact ISO 8601 times, its file-name
//!   rule).
//! - [`Profile::Mcap`] (`mcap`): only the generic MCAP structural checks
//!   (rules of scope `mcap`), for MCAP files that are no OSI traces.
//!
//! Without [`ValidateOptions::profile`] the file decides: `osi-3.8` when it
//! carries `net.asam.osi.trace`, `draft` when it carries only the draft's
//! records, `osi-3.8` (the published standard) otherwise; with
//! [`ValidateOptions::detect_non_osi`] a file without either rule set's
//! meta-data and without any `osi3.*` schema gets `mcap`. Every rule is
//! listed in [`RULES`] with an id, a level and the profile it belongs to;
//! each [`Finding`] says where in the file it was found (record offset,
//! channel, message index).
//!
//! # Timestamps and the 1 ns rounding artefact
//!
//! `publish_time` shall be the message's OSI timestamp in ns,
//! `seconds * 10^9 + nanos`, computed here with integer arithmetic from the
//! message bytes (the timestamp field is found through the schema's
//! embedded descriptor, so `HostVehicleData`'s field 10 needs no special
//! case). Several public writers compute the time through floating point
//! and store some frames exactly 1 ns away from the timestamp (2.05 s as
//! 2 049 999 999 ns). That is reported as its own rule,
//! `osi.message.time-rounding`, at warning level: the message is still
//! unambiguous (OSI simulation steps are microseconds or more apart, so
//! ordering and frame matching are unaffected) and every reader recovers
//! the exact time from the message itself, but the writer has a defect its
//! author should fix. Any other difference is an error
//! (`osi.message.publish-time`). [`ValidateOptions::strict_time`] makes the
//! artefact an error too.
//!
//! ```no_run
//! let data = std::fs::read("trace.mcap")?;
//! let report = osi_mcap::validate(&data, &osi_mcap::validate::ValidateOptions {
//!     file_name: Some("trace.mcap".into()),
//!     ..Default::default()
//! });
//! for f in &report.findings {
//!     println!("{f}");
//! }
//! assert!(report.passed());
//! # Ok::<(), std::io::Error>(())
//! ```

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

use logcore::ReadMode;
use serde::Serialize;

use crate::conventions::{DraftName, Semver, TraceName, is_compact_date_time, is_date_time_stamp};
use crate::proto::{Descriptors, TopLevel, type_code};
use mcapfile::chunk::{ChunkRecords, DEFAULT_MAX_CHUNK_SIZE, decompress};
use mcapfile::stream::read_inner;
use mcapfile::{
    Channel, DoctorOptions, LinearReader, Message, Metadata, ReadOptions, Record, Severity,
    Summary, doctor,
};

/// Name of the OSI 3.8.0 file meta-data record.
pub const TRACE_METADATA: &str = "net.asam.osi.trace";
/// Prefix of the OSI 3.8.0 channel meta-data keys.
pub const CHANNEL_KEY_PREFIX: &str = "net.asam.osi.trace.channel.";
/// OSI 3.8.0 channel key: OSI version of the channel's messages.
pub const CHANNEL_OSI_VERSION: &str = "net.asam.osi.trace.channel.osi_version";
/// OSI 3.8.0 channel key: protobuf version that serialized them.
pub const CHANNEL_PROTOBUF_VERSION: &str = "net.asam.osi.trace.channel.protobuf_version";
/// OSI 3.8.0 channel key: description.
pub const CHANNEL_DESCRIPTION: &str = "net.asam.osi.trace.channel.description";
/// The required keys of `net.asam.osi.trace`.
pub const REQUIRED_TRACE_KEYS: [&str; 5] = [
    "version",
    "min_osi_version",
    "max_osi_version",
    "min_protobuf_version",
    "max_protobuf_version",
];
/// The recommended keys of `net.asam.osi.trace`.
pub const RECOMMENDED_TRACE_KEYS: [&str; 5] = [
    "zero_time",
    "creation_time",
    "description",
    "authors",
    "data_sources",
];
/// Draft: the record holding the OSI version (`osi` key).
pub const DRAFT_VERSIONS: &str = "versions";
/// Draft: the record holding `zero_time`, `timestamp` and the recommended keys.
pub const DRAFT_ASAM_OSI: &str = "asam_osi";
/// Draft: the recommended keys of `asam_osi`.
pub const DRAFT_RECOMMENDED_KEYS: [&str; 4] = ["description", "creator", "license", "data_sources"];

/// Which rule set a file is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Profile {
    /// The published OSI 3.8.0 rules.
    #[serde(rename = "osi-3.8")]
    Osi38,
    /// The pre-standard draft rules.
    #[serde(rename = "draft")]
    Draft,
    /// No OSI rules: only the MCAP structural checks (scope `mcap`), for
    /// MCAP files that are no OSI traces.
    #[serde(rename = "mcap")]
    Mcap,
}

impl Profile {
    /// The profile's name (`osi-3.8`, `draft`).
    pub fn name(self) -> &'static str {
        match self {
            Profile::Osi38 => "osi-3.8",
            Profile::Draft => "draft",
            Profile::Mcap => "mcap",
        }
    }

    /// Parses a profile name (`osi-3.8`, also `3.8`, `osi-3.8.0`; `draft`).
    pub fn parse(s: &str) -> Option<Profile> {
        match s {
            "osi-3.8" | "osi-3.8.0" | "3.8" | "3.8.0" | "osi38" => Some(Profile::Osi38),
            "draft" | "legacy" => Some(Profile::Draft),
            "mcap" => Some(Profile::Mcap),
            _ => None,
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How serious a finding is. Only errors make a file fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Worth knowing, not a rule violation (recommendations of naming, CRCs
    /// not computed).
    Info,
    /// A "should" or a recommendation not followed.
    Warning,
    /// A "shall" / "must" violated.
    Error,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Info => "info",
            Level::Warning => "warning",
            Level::Error => "error",
        })
    }
}

/// The profile a rule belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Scope {
    /// Generic MCAP well-formedness (both profiles).
    #[serde(rename = "mcap")]
    Mcap,
    /// A rule both profiles share.
    #[serde(rename = "common")]
    Common,
    /// OSI 3.8.0 only.
    #[serde(rename = "osi-3.8")]
    Osi38,
    /// Draft only.
    #[serde(rename = "draft")]
    Draft,
}

impl Scope {
    fn applies(self, p: Profile) -> bool {
        match self {
            Scope::Mcap => true,
            Scope::Common => p != Profile::Mcap,
            Scope::Osi38 => p == Profile::Osi38,
            Scope::Draft => p == Profile::Draft,
        }
    }

    /// The scope's name.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Mcap => "mcap",
            Scope::Common => "common",
            Scope::Osi38 => "osi-3.8",
            Scope::Draft => "draft",
        }
    }
}

/// One rule of the validator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// Stable id (`osi.message.publish-time`).
    pub id: &'static str,
    /// Level of its findings.
    pub level: Level,
    /// The profile it belongs to.
    pub scope: Scope,
    /// What it requires.
    pub summary: &'static str,
}

macro_rules! rules {
    ($($name:ident = $id:literal, $level:ident, $scope:ident, $summary:literal;)*) => {
        /// The ids of every rule, as constants.
        pub mod rule {
            $(#[doc = concat!("Rule `", $id, "` (see [`RULES`](super::RULES)).")] pub const $name: &str = $id;)*
        }
        /// Every rule the validator checks.
        pub const RULES: &[Rule] = &[
            $(Rule { id: $id, level: Level::$level, scope: Scope::$scope, summary: $summary },)*
        ];
    };
}

rules! {
    MCAP_STRUCTURE = "mcap.structure", Error, Mcap,
        "The file is valid MCAP: magic with version 0x30, well-formed records, CRCs that match, indexes that agree with the data (what `mcap doctor` checks).";
    MCAP_NOTICE = "mcap.notice", Info, Mcap,
        "Legal but unusual MCAP (an empty library string, ...).";
    MCAP_CRC = "mcap.crc-not-computed", Info, Mcap,
        "A CRC field holds 0 (\"not computed\"): the data section, summary or chunks cannot be verified.";
    INDEXED = "osi.mcap.indexed", Error, Osi38,
        "The file is indexed: a summary section with Chunk Index records.";
    IN_CHUNKS = "osi.mcap.messages-in-chunks", Error, Common,
        "Every Message record of an indexed file is inside a Chunk record.";
    COMPRESSION = "osi.mcap.compression", Error, Common,
        "Chunk compression is none, lz4 or zstd.";
    HEADER_PROFILE = "osi.mcap.profile", Warning, Osi38,
        "The Header profile does not declare conventions that contradict OSI (ros1, ros2).";
    EXTENSION = "osi.file.extension", Error, Common,
        "The file name ends in .mcap.";
    FILE_NAME_38 = "osi38.file.name", Info, Osi38,
        "The file name follows <timestamp>_<type>_<osi-version>_<protobuf-version>_<frames>_<name>.mcap and its type and versions match the contents (a recommendation).";
    FILE_NAME_DRAFT = "draft.file.name", Error, Draft,
        "The file name follows <prefix>_<timestamp>_<type>_<suffix>.mcap with a type code that matches the contents.";
    TRACE_RECORD = "osi38.metadata.trace", Error, Osi38,
        "Exactly one Metadata record named net.asam.osi.trace.";
    TRACE_REQUIRED = "osi38.metadata.required", Error, Osi38,
        "net.asam.osi.trace has version, min_osi_version, max_osi_version, min_protobuf_version and max_protobuf_version.";
    TRACE_SEMVER = "osi38.metadata.semver", Error, Osi38,
        "The required net.asam.osi.trace values are semantic versions.";
    TRACE_RECOMMENDED = "osi38.metadata.recommended", Warning, Osi38,
        "net.asam.osi.trace has zero_time, creation_time, description, authors and data_sources.";
    TRACE_DATE_TIME = "osi38.metadata.date-time", Warning, Osi38,
        "zero_time and creation_time are ISO 8601 dateTimeStamps (2024-06-03T14:38:03.5Z: separators and a zone).";
    TRACE_VERSION = "osi38.metadata.version", Warning, Osi38,
        "net.asam.osi.trace version is 3.8.0 or later (the first release defining this format).";
    VERSION_RANGE = "osi38.metadata.version-range", Warning, Osi38,
        "min <= max, and every OSI channel's versions lie within the file's min/max.";
    RESERVED = "osi38.reserved-prefix", Warning, Osi38,
        "Names beginning net.asam.osi are used only as the standard defines them.";
    LEGACY_KEYS = "osi38.legacy-keys", Info, Osi38,
        "The file also carries the draft's meta-data (versions/asam_osi records, plain osi_version/protobuf channel keys).";
    DRAFT_VERSIONS_RECORD = "draft.metadata.versions", Error, Draft,
        "A Metadata record named versions with an osi key holding a semantic version.";
    DRAFT_ASAM_OSI_RECORD = "draft.metadata.asam-osi", Error, Draft,
        "A Metadata record named asam_osi with zero_time and timestamp.";
    DRAFT_DATE_TIME = "draft.metadata.date-time", Error, Draft,
        "asam_osi zero_time and timestamp are compact ISO 8601 (YYYYMMDDThhmmss.f).";
    DRAFT_RECOMMENDED = "draft.metadata.recommended", Warning, Draft,
        "asam_osi has description, creator, license and data_sources.";
    CHANNEL_PRESENT = "osi.channel.present", Error, Common,
        "At least one OSI channel (schema osi3.*, protobuf).";
    CHANNEL_ENCODING = "osi.channel.encoding", Error, Common,
        "OSI channels have message_encoding protobuf.";
    CHANNEL_SUMMARY = "osi38.channel.in-summary", Error, Osi38,
        "OSI channels are repeated in the summary section.";
    CHANNEL_TOPIC = "osi38.channel.topic-unique", Error, Osi38,
        "Each OSI channel's topic is unique within the file.";
    CHANNEL_REQUIRED = "osi38.channel.required", Error, Osi38,
        "OSI channels carry net.asam.osi.trace.channel.osi_version and .protobuf_version.";
    CHANNEL_SEMVER = "osi38.channel.semver", Error, Osi38,
        "The required channel keys hold semantic versions.";
    CHANNEL_DESCRIPTION_38 = "osi38.channel.description", Warning, Osi38,
        "OSI channels carry net.asam.osi.trace.channel.description.";
    DRAFT_CHANNEL_REQUIRED = "draft.channel.required", Error, Draft,
        "OSI channels carry osi_version and protobuf, both semantic versions.";
    DRAFT_CHANNEL_KEY_NAME = "draft.channel.protobuf-key", Warning, Draft,
        "The protobuf version key is named protobuf (proof-of-concept writers used protobuf_version).";
    DRAFT_CHANNEL_DESCRIPTION = "draft.channel.description", Warning, Draft,
        "OSI channels carry a description key.";
    SCHEMA_ENCODING = "osi.schema.encoding", Error, Common,
        "OSI schemas have encoding protobuf.";
    SCHEMA_NAME = "osi.schema.name", Error, Common,
        "OSI schema names are osi3.<top-level message> (GroundTruth, SensorView, SensorViewConfiguration, SensorData, HostVehicleData, TrafficCommand, TrafficCommandUpdate, TrafficUpdate, MotionRequest, StreamingUpdate).";
    SCHEMA_DESCRIPTOR = "osi.schema.descriptor", Error, Common,
        "OSI schema data is a FileDescriptorSet that parses and defines the named message.";
    SCHEMA_SUMMARY = "osi38.schema.in-summary", Error, Osi38,
        "OSI schemas are repeated in the summary section.";
    SCHEMA_DUPLICATE = "osi38.schema.duplicate", Warning, Osi38,
        "One schema per OSI type and version.";
    SCHEMA_VERSION = "osi.schema.version", Warning, Common,
        "The schema's current_interface_version option agrees with the channel's osi_version.";
    DRAFT_TIMESTAMP_TYPE = "draft.channel.timestamp-type", Error, Draft,
        "Only top-level messages with a timestamp field are stored in channels (no SensorViewConfiguration).";
    MESSAGE_DECODE = "osi.message.decode", Error, Common,
        "Each OSI message is valid protobuf wire data for its type (as far as its timestamp and version fields).";
    MESSAGE_TIMESTAMP = "osi.message.timestamp", Error, Common,
        "Messages of types with a timestamp field carry a timestamp.";
    MESSAGE_TIMESTAMP_RANGE = "osi.message.timestamp-range", Error, Common,
        "Timestamps have seconds >= 0, 0 <= nanos <= 999999999, and fit 64-bit nanoseconds.";
    PUBLISH_TIME = "osi.message.publish-time", Error, Common,
        "publish_time equals the message's OSI timestamp in ns.";
    TIME_ROUNDING = "osi.message.time-rounding", Warning, Common,
        "publish_time or log_time is exactly 1 ns off the OSI timestamp (a writer's floating-point rounding).";
    LOG_TIME_38 = "osi38.message.log-time", Warning, Osi38,
        "log_time equals the OSI timestamp (should).";
    LOG_TIME_DRAFT = "draft.message.log-time", Error, Draft,
        "log_time equals the OSI timestamp (must).";
    LOG_TIME_ORDER = "osi.message.order", Warning, Common,
        "log_time does not decrease through the file.";
    MESSAGE_VERSION = "osi.message.version", Warning, Common,
        "The message's own version field agrees with its channel's osi_version.";
    TIME_BASE = "osi.time-base", Warning, Common,
        "All channels share one time base (no mix of Unix-epoch and simulation-relative times).";
}

/// Looks a rule up by id.
pub fn find_rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// Where a finding was made.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Location {
    /// Absolute byte offset of the record (for records inside a compressed
    /// chunk: of the chunk).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// Channel id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel: Option<u16>,
    /// Channel topic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// Index of the message within its channel (0-based, file order).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_index: Option<u64>,
}

impl Location {
    fn at(offset: u64) -> Location {
        Location {
            offset: Some(offset),
            ..Location::default()
        }
    }

    fn channel(offset: Option<u64>, c: &Channel) -> Location {
        Location {
            offset,
            channel: Some(c.id),
            topic: Some(c.topic.clone()),
            message_index: None,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(o) = self.offset {
            parts.push(format!("byte {o}"));
        }
        if let (Some(id), Some(t)) = (self.channel, &self.topic) {
            parts.push(format!("channel {id} {t:?}"));
        }
        if let Some(i) = self.message_index {
            parts.push(format!("message {i}"));
        }
        f.write_str(&parts.join(", "))
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The rule's id.
    pub rule: &'static str,
    /// Its level.
    pub level: Level,
    /// The profile the rule belongs to.
    pub profile: Scope,
    /// What was found.
    pub message: String,
    /// Where.
    pub location: Location,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}] ", self.level, self.rule)?;
        let loc = self.location.to_string();
        if !loc.is_empty() {
            write!(f, "at {loc}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// Options of [`validate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidateOptions {
    /// The rule set; `None` lets the file decide.
    pub profile: Option<Profile>,
    /// The file's name (without directories is enough), for the extension
    /// and naming rules; `None` skips them.
    pub file_name: Option<String>,
    /// Findings kept per rule (all are counted in [`Report::counts`]).
    pub max_findings_per_rule: usize,
    /// Report the 1 ns rounding artefact as an error.
    pub strict_time: bool,
    /// When no profile is given: a file with neither rule set's meta-data
    /// and no channel whose schema is named `osi3.*` is no OSI trace and
    /// gets [`Profile::Mcap`] (only the MCAP structural checks) instead of
    /// `osi-3.8`.
    pub detect_non_osi: bool,
}

impl Default for ValidateOptions {
    fn default() -> Self {
        ValidateOptions {
            profile: None,
            file_name: None,
            max_findings_per_rule: 20,
            strict_time: false,
            detect_non_osi: false,
        }
    }
}

/// Per-rule totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Count {
    /// Findings of the rule.
    pub total: u64,
    /// How many of them are in [`Report::findings`].
    pub listed: u64,
}

/// The result of [`validate`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The profile applied.
    pub profile: Profile,
    /// Why that profile.
    pub profile_reason: String,
    /// Errors found (all, including those not listed).
    pub errors: u64,
    /// Warnings found.
    pub warnings: u64,
    /// Infos found.
    pub infos: u64,
    /// Channels in the file.
    pub channels: usize,
    /// Of which OSI channels.
    pub osi_channels: usize,
    /// OSI messages checked.
    pub messages_checked: u64,
    /// Findings, at most [`ValidateOptions::max_findings_per_rule`] per rule,
    /// in the order: file, meta-data, schemas and channels, messages, name.
    pub findings: Vec<Finding>,
    /// Totals per rule id.
    pub counts: BTreeMap<&'static str, Count>,
}

impl Report {
    /// No errors.
    pub fn passed(&self) -> bool {
        self.errors == 0
    }

    /// Whether any finding of rule `id` was made.
    pub fn has(&self, id: &str) -> bool {
        self.counts.get(id).is_some_and(|c| c.total > 0)
    }
}

struct Sink {
    profile: Profile,
    max: usize,
    strict_time: bool,
    findings: Vec<Finding>,
    counts: BTreeMap<&'static str, Count>,
}

impl Sink {
    fn add(&mut self, id: &'static str, location: Location, message: impl FnOnce() -> String) {
        let Some(rule) = find_rule(id) else {
            debug_assert!(false, "unknown rule {id}");
            return;
        };
        if !rule.scope.applies(self.profile) {
            return;
        }
        let level = if id == rule::TIME_ROUNDING && self.strict_time {
            Level::Error
        } else {
            rule.level
        };
        let c = self.counts.entry(id).or_default();
        c.total += 1;
        if (c.listed as usize) < self.max {
            c.listed += 1;
            self.findings.push(Finding {
                rule: id,
                level,
                profile: rule.scope,
                message: message(),
                location,
            });
        }
    }
}

struct SchemaRec {
    offset: u64,
    name: String,
    encoding: String,
    data: Vec<u8>,
}

struct ChannelRec {
    offset: u64,
    channel: Channel,
}

/// What the scan learns of an OSI channel while reading its messages.
struct ChannelState {
    /// `None` when the schema is not usable (reported at the schema).
    top: Option<TopLevel>,
    expected_version: Option<Semver>,
    count: u64,
    first: Option<u64>,
    last: Option<u64>,
}

/// Everything read from the file.
#[derive(Default)]
struct Scan {
    header_profile: Option<(u64, String)>,
    schemas: BTreeMap<u16, SchemaRec>,
    channels: BTreeMap<u16, ChannelRec>,
    metadata: Vec<(u64, Metadata)>,
    data_end_crc: Option<(u64, u32)>,
    chunk_crc_zero: Vec<u64>,
    compressions: Vec<(u64, String)>,
    outside_chunks: Vec<(u64, u16)>,
    /// Ranges of log times per channel (all channels).
    ranges: BTreeMap<u16, (u64, u64)>,
    last_log_time: Option<u64>,
}

/// Checks `data` (a whole file) against the OSI rules. Never panics; damage
/// is reported as `mcap.structure` findings and everything readable is
/// still checked.
pub fn validate(data: &[u8], options: &ValidateOptions) -> Report {
    let summary = Summary::read(data, true).ok().flatten();
    let mut scan = Scan::default();
    let mut states: BTreeMap<u16, ChannelState> = BTreeMap::new();
    let mut descriptors: HashMap<u16, Result<Descriptors, String>> = HashMap::new();
    let mut message_findings: Vec<(&'static str, Location, String)> = Vec::new();
    let mut messages_checked = 0u64;

    // Profile: needs the metadata, which may be anywhere in the data section;
    // the message checks are collected first and filtered afterwards.
    let opts = ReadOptions {
        mode: ReadMode::Lenient,
        flatten_chunks: false,
        validate_crcs: false,
        ..ReadOptions::default()
    };
    let summary_start = summary
        .as_ref()
        .map(|s| s.footer.summary_start)
        .filter(|&s| s != 0)
        .unwrap_or(u64::MAX);
    let mut lin = LinearReader::with_options(data, opts);
    {
        let mut ctx = MessageCtx {
            scan: &mut scan,
            states: &mut states,
            descriptors: &mut descriptors,
            out: &mut message_findings,
            checked: &mut messages_checked,
            summary: summary.as_ref(),
        };
        while let Some(r) = lin.next() {
            let at = lin.last_offset();
            let Ok(r) = r else { continue };
            match r {
                Record::Header(h) => ctx.scan.header_profile = Some((at, h.profile)),
                Record::Schema(s) if at < summary_start => {
                    ctx.scan.schemas.entry(s.id).or_insert(SchemaRec {
                        offset: at,
                        name: s.name,
                        encoding: s.encoding,
                        data: s.data.to_vec(),
                    });
                }
                Record::Channel(c) if at < summary_start => {
                    ctx.scan.channels.entry(c.id).or_insert(ChannelRec {
                        offset: at,
                        channel: c,
                    });
                }
                Record::Message(m) => {
                    ctx.scan.outside_chunks.push((at, m.channel_id));
                    ctx.message(at, &m);
                }
                Record::Chunk(c) => {
                    ctx.scan.compressions.push((at, c.compression.clone()));
                    if c.uncompressed_crc == 0 {
                        ctx.scan.chunk_crc_zero.push(at);
                    }
                    let Ok(records) = decompress(&c, at, false, DEFAULT_MAX_CHUNK_SIZE) else {
                        continue;
                    };
                    let base = match records {
                        ChunkRecords::Borrowed(_) => at + 9 + 40 + c.compression.len() as u64,
                        ChunkRecords::Shared(_) => 0,
                    };
                    let n = records.as_slice().len();
                    let mut p = 0;
                    while p < n {
                        let (r, adv) = read_inner(&records, p, base);
                        match r {
                            Ok(Record::Schema(s)) => {
                                ctx.scan.schemas.entry(s.id).or_insert(SchemaRec {
                                    offset: at,
                                    name: s.name,
                                    encoding: s.encoding,
                                    data: s.data.to_vec(),
                                });
                            }
                            Ok(Record::Channel(ch)) => {
                                ctx.scan.channels.entry(ch.id).or_insert(ChannelRec {
                                    offset: at,
                                    channel: ch,
                                });
                            }
                            Ok(Record::Message(m)) => ctx.message(at, &m),
                            Ok(_) => {}
                            Err(_) => break,
                        }
                        if adv == 0 {
                            break;
                        }
                        p += adv;
                    }
                }
                Record::Metadata(m) => ctx.scan.metadata.push((at, m)),
                Record::DataEnd(d) => ctx.scan.data_end_crc = Some((at, d.data_section_crc)),
                _ => {}
            }
        }
    }
    // Channels and schemas known only from the summary.
    if let Some(s) = &summary {
        for (id, sc) in &s.schemas {
            scan.schemas.entry(*id).or_insert(SchemaRec {
                offset: summary_start,
                name: sc.name.clone(),
                encoding: sc.encoding.clone(),
                data: sc.data.to_vec(),
            });
        }
        for (id, c) in &s.channels {
            scan.channels.entry(*id).or_insert(ChannelRec {
                offset: summary_start,
                channel: c.clone(),
            });
        }
    }

    let (profile, profile_reason) = choose_profile(options, &scan);
    let mut sink = Sink {
        profile,
        max: options.max_findings_per_rule.max(1),
        strict_time: options.strict_time,
        findings: Vec::new(),
        counts: BTreeMap::new(),
    };

    file_rules(&mut sink, data, &scan, summary.as_ref());
    match profile {
        Profile::Osi38 => metadata_38(&mut sink, &scan),
        Profile::Draft => metadata_draft(&mut sink, &scan),
        Profile::Mcap => {}
    }
    let osi_channels = channel_rules(&mut sink, &scan, summary.as_ref(), &mut descriptors);
    for (id, loc, msg) in message_findings {
        sink.add(id, loc, || msg);
    }
    // Profile-specific time rules come out of the message pass as the
    // log-time rule of both profiles; `Sink::add` keeps the right one.
    time_base(&mut sink, &scan, &states);
    if let Some(name) = &options.file_name {
        name_rules(&mut sink, name, &scan, &states);
    }

    let mut report = Report {
        profile,
        profile_reason,
        errors: 0,
        warnings: 0,
        infos: 0,
        channels: scan.channels.len(),
        osi_channels,
        messages_checked,
        findings: sink.findings,
        counts: sink.counts,
    };
    for (id, c) in &report.counts {
        let level = if *id == rule::TIME_ROUNDING && options.strict_time {
            Level::Error
        } else {
            find_rule(id).map_or(Level::Error, |r| r.level)
        };
        match level {
            Level::Error => report.errors += c.total,
            Level::Warning => report.warnings += c.total,
            Level::Info => report.infos += c.total,
        }
    }
    report
}

fn choose_profile(options: &ValidateOptions, scan: &Scan) -> (Profile, String) {
    if let Some(p) = options.profile {
        return (p, "chosen by the caller".into());
    }
    let has = |n: &str| scan.metadata.iter().any(|(_, m)| m.name == n);
    if has(TRACE_METADATA) {
        (
            Profile::Osi38,
            format!("the file carries the {TRACE_METADATA} meta-data record"),
        )
    } else if has(DRAFT_VERSIONS) || has(DRAFT_ASAM_OSI) {
        (
            Profile::Draft,
            format!(
                "the file carries the draft's {DRAFT_VERSIONS}/{DRAFT_ASAM_OSI} meta-data and no {TRACE_METADATA}"
            ),
        )
    } else if options.detect_non_osi && !scan.schemas.values().any(is_osi_schema) {
        (
            Profile::Mcap,
            "the file carries neither OSI rule set's meta-data nor an osi3.* schema: no OSI trace; only the MCAP structural checks apply"
                .into(),
        )
    } else {
        (
            Profile::Osi38,
            "the file carries neither rule set's meta-data; checked against the published standard"
                .into(),
        )
    }
}

/// Whether a channel is meant as an OSI channel: its schema is named `osi3.*`.
fn is_osi_schema(s: &SchemaRec) -> bool {
    s.name.starts_with("osi3.")
}

struct MessageCtx<'s> {
    scan: &'s mut Scan,
    states: &'s mut BTreeMap<u16, ChannelState>,
    descriptors: &'s mut HashMap<u16, Result<Descriptors, String>>,
    out: &'s mut Vec<(&'static str, Location, String)>,
    checked: &'s mut u64,
    summary: Option<&'s Summary>,
}

impl MessageCtx<'_> {
    fn channel(&self, id: u16) -> Option<&Channel> {
        self.scan
            .channels
            .get(&id)
            .map(|c| &c.channel)
            .or_else(|| self.summary.and_then(|s| s.channels.get(&id)))
    }

    fn message(&mut self, at: u64, m: &Message<'_>) {
        let r = self
            .scan
            .ranges
            .entry(m.channel_id)
            .or_insert((m.log_time, m.log_time));
        r.0 = r.0.min(m.log_time);
        r.1 = r.1.max(m.log_time);
        let channel = self.channel(m.channel_id).cloned();
        if let Some(last) = self.scan.last_log_time
            && m.log_time < last
        {
            let loc = match &channel {
                Some(c) => Location::channel(Some(at), c),
                None => Location::at(at),
            };
            self.out.push((
                rule::LOG_TIME_ORDER,
                loc,
                format!(
                    "log_time {} ns is before the previous message's {last} ns",
                    m.log_time
                ),
            ));
        }
        self.scan.last_log_time = Some(self.scan.last_log_time.unwrap_or(0).max(m.log_time));
        let Some(channel) = channel else { return };
        if !self.states.contains_key(&channel.id) {
            let st = self.new_state(&channel);
            self.states.insert(channel.id, st);
        }
        let Some(st) = self.states.get_mut(&channel.id) else {
            return;
        };
        let index = st.count;
        st.count += 1;
        st.first.get_or_insert(m.log_time);
        st.last = Some(m.log_time);
        let Some(top) = &st.top else { return };
        *self.checked += 1;
        let loc = Location {
            message_index: Some(index),
            ..Location::channel(Some(at), &channel)
        };
        if top.has_timestamp_field() {
            match top.timestamp(&m.data) {
                Err(e) => self.out.push((
                    rule::MESSAGE_DECODE,
                    loc.clone(),
                    format!("the {} message does not decode: {e}", top.full_name()),
                )),
                Ok(None) => self.out.push((
                    rule::MESSAGE_TIMESTAMP,
                    loc.clone(),
                    format!("the {} message has no timestamp", top.full_name()),
                )),
                Ok(Some(ts)) => match ts.to_nanos() {
                    None => self.out.push((
                        rule::MESSAGE_TIMESTAMP_RANGE,
                        loc.clone(),
                        format!(
                            "timestamp seconds {} nanos {} is not a valid time (seconds >= 0, nanos <= 999999999, within 2^64 ns)",
                            ts.seconds, ts.nanos
                        ),
                    )),
                    Some(ns) => {
                        let osi = format!("the OSI timestamp is {ns} ns ({}.{:09} s)", ts.seconds, ts.nanos);
                        let (p, l) = (m.publish_time, m.log_time);
                        let rounding: Vec<String> = [("publish_time", p), ("log_time", l)]
                            .into_iter()
                            .filter(|(_, t)| t.abs_diff(ns) == 1)
                            .map(|(w, t)| format!("{w} {t} ns"))
                            .collect();
                        if !rounding.is_empty() {
                            self.out.push((
                                rule::TIME_ROUNDING,
                                loc.clone(),
                                format!("{} but {osi}: 1 ns off, a floating-point rounding of the writer", rounding.join(" and ")),
                            ));
                        }
                        if p.abs_diff(ns) > 1 {
                            self.out.push((
                                rule::PUBLISH_TIME,
                                loc.clone(),
                                format!("publish_time {p} ns but {osi}"),
                            ));
                        }
                        if l.abs_diff(ns) > 1 {
                            let msg = format!("log_time {l} ns but {osi}");
                            self.out.push((rule::LOG_TIME_38, loc.clone(), msg.clone()));
                            self.out.push((rule::LOG_TIME_DRAFT, loc.clone(), msg));
                        }
                    }
                },
            }
        }
        if let Some(expected) = &st.expected_version {
            match top.version(&m.data) {
                Ok(Some(v))
                    if (u64::from(v.major), u64::from(v.minor), u64::from(v.patch))
                        != expected.triple() =>
                {
                    self.out.push((
                        rule::MESSAGE_VERSION,
                        loc,
                        format!("the message's version field is {v}, the channel says {expected}"),
                    ));
                }
                Err(e) if !top.has_timestamp_field() => self.out.push((
                    rule::MESSAGE_DECODE,
                    loc,
                    format!("the {} message does not decode: {e}", top.full_name()),
                )),
                _ => {}
            }
        }
    }

    fn new_state(&mut self, channel: &Channel) -> ChannelState {
        let mut st = ChannelState {
            top: None,
            expected_version: None,
            count: 0,
            first: None,
            last: None,
        };
        let Some(schema) = self.scan.schemas.get(&channel.schema_id).or(None) else {
            return st;
        };
        if !is_osi_schema(schema) || schema.encoding != "protobuf" {
            return st;
        }
        let d = self
            .descriptors
            .entry(channel.schema_id)
            .or_insert_with(|| {
                Descriptors::from_file_descriptor_set(&schema.data).map_err(|e| e.to_string())
            });
        if let Ok(d) = d {
            st.top = TopLevel::new(d, &schema.name).ok();
        }
        st.expected_version = [CHANNEL_OSI_VERSION, "osi_version"]
            .iter()
            .find_map(|k| channel.metadata.get(*k))
            .and_then(|v| Semver::parse(v));
        st
    }
}

fn file_rules(sink: &mut Sink, data: &[u8], scan: &Scan, summary: Option<&Summary>) {
    for f in doctor(data, DoctorOptions::default()) {
        let loc = Location::at(f.offset);
        match f.severity {
            Severity::Error => sink.add(rule::MCAP_STRUCTURE, loc, || f.message.clone()),
            // Profiles are judged by the OSI rule; log-time order by its own.
            Severity::Warning
                if f.message.contains("profile") || f.message.contains("log_time") => {}
            Severity::Warning => sink.add(rule::MCAP_NOTICE, loc, || f.message.clone()),
        }
    }
    if let Some((at, 0)) = scan.data_end_crc {
        sink.add(rule::MCAP_CRC, Location::at(at), || {
            "Data End data_section_crc is 0: the data section cannot be verified".into()
        });
    }
    if let Some(s) = summary
        && s.footer.summary_start != 0
        && s.footer.summary_crc == 0
    {
        let at = mcapfile::summary::footer_offset(data.len()).unwrap_or(0) as u64;
        sink.add(rule::MCAP_CRC, Location::at(at), || {
            "Footer summary_crc is 0: the summary section cannot be verified".into()
        });
    }
    if !scan.chunk_crc_zero.is_empty() {
        let n = scan.chunk_crc_zero.len();
        sink.add(rule::MCAP_CRC, Location::at(scan.chunk_crc_zero[0]), || {
            format!("{n} chunk(s) with uncompressed_crc 0 (first here)")
        });
    }
    if let Some((at, p)) = &scan.header_profile
        && (p == "ros1" || p == "ros2")
    {
        sink.add(rule::HEADER_PROFILE, Location::at(*at), || {
            format!("the Header profile {p:?} requires conventions that contradict OSI channels")
        });
    }
    let indexed = summary.is_some_and(|s| !s.chunk_indexes.is_empty());
    let has_messages = !scan.ranges.is_empty();
    if !indexed && (has_messages || !scan.compressions.is_empty()) {
        sink.add(rule::INDEXED, Location::default(), || {
            if summary.is_none() {
                "the file has no summary section (no Chunk Index records)".into()
            } else {
                "the summary section has no Chunk Index records".into()
            }
        });
    }
    // The draft asks for messages in chunks only of indexed files; OSI 3.8.0
    // requires an indexed file, so both reduce to: an indexed-looking file
    // (or any file under 3.8) keeps its messages in chunks.
    if indexed || sink.profile == Profile::Osi38 {
        for (at, ch) in &scan.outside_chunks {
            sink.add(rule::IN_CHUNKS, Location::at(*at), || {
                format!("a Message record of channel {ch} outside any chunk")
            });
        }
    }
    for (at, c) in &scan.compressions {
        if !["", "lz4", "zstd"].contains(&c.as_str()) {
            sink.add(rule::COMPRESSION, Location::at(*at), || {
                format!("chunk compression {c:?}; OSI allows none, lz4 and zstd")
            });
        }
    }
}

fn records<'a>(scan: &'a Scan, name: &str) -> Vec<&'a (u64, Metadata)> {
    scan.metadata
        .iter()
        .filter(|(_, m)| m.name == name)
        .collect()
}

fn metadata_38(sink: &mut Sink, scan: &Scan) {
    let trace = records(scan, TRACE_METADATA);
    match trace.len() {
        0 => sink.add(rule::TRACE_RECORD, Location::default(), || {
            format!("no Metadata record named {TRACE_METADATA}: the file does not identify itself as an OSI trace")
        }),
        1 => {}
        n => sink.add(rule::TRACE_RECORD, Location::at(trace[1].0), || {
            format!("{n} Metadata records named {TRACE_METADATA}; exactly one is allowed")
        }),
    }
    if let Some((at, m)) = trace.first() {
        for key in REQUIRED_TRACE_KEYS {
            match m.metadata.get(key) {
                None => sink.add(rule::TRACE_REQUIRED, Location::at(*at), || {
                    format!("{TRACE_METADATA} lacks the required key {key:?}")
                }),
                Some(v) if Semver::parse(v).is_none() => {
                    sink.add(rule::TRACE_SEMVER, Location::at(*at), || {
                        format!("{TRACE_METADATA} {key} = {v:?} is not a semantic version (major.minor.patch)")
                    })
                }
                Some(_) => {}
            }
        }
        let missing: Vec<&str> = RECOMMENDED_TRACE_KEYS
            .into_iter()
            .filter(|k| !m.metadata.contains_key(*k))
            .collect();
        if !missing.is_empty() {
            sink.add(rule::TRACE_RECOMMENDED, Location::at(*at), || {
                format!(
                    "{TRACE_METADATA} lacks the recommended key(s) {}",
                    missing.join(", ")
                )
            });
        }
        for key in ["zero_time", "creation_time"] {
            if let Some(v) = m.metadata.get(key)
                && !is_date_time_stamp(v)
            {
                sink.add(rule::TRACE_DATE_TIME, Location::at(*at), || {
                    format!("{key} = {v:?} is not an ISO 8601 dateTimeStamp (like 2024-06-03T14:38:03.5Z)")
                });
            }
        }
        let sv = |k: &str| m.metadata.get(k).and_then(|v| Semver::parse(v));
        if let Some(v) = sv("version")
            && v.triple() < (3, 8, 0)
        {
            sink.add(rule::TRACE_VERSION, Location::at(*at), || {
                format!("version {v}: the multi-channel trace format was first published with OSI 3.8.0 (files written against drafts carry earlier numbers)")
            });
        }
        for (lo, hi) in [
            ("min_osi_version", "max_osi_version"),
            ("min_protobuf_version", "max_protobuf_version"),
        ] {
            if let (Some(a), Some(b)) = (sv(lo), sv(hi))
                && a > b
            {
                sink.add(rule::VERSION_RANGE, Location::at(*at), || {
                    format!("{lo} {a} is above {hi} {b}")
                });
            }
        }
    }
    for (at, m) in &scan.metadata {
        if m.name.starts_with("net.asam.osi") && m.name != TRACE_METADATA {
            sink.add(rule::RESERVED, Location::at(*at), || {
                format!(
                    "Metadata record {:?} uses the reserved prefix net.asam.osi",
                    m.name
                )
            });
        }
    }
    let legacy: Vec<&str> = [DRAFT_VERSIONS, DRAFT_ASAM_OSI]
        .into_iter()
        .filter(|n| !records(scan, n).is_empty())
        .collect();
    if !legacy.is_empty() {
        sink.add(rule::LEGACY_KEYS, Location::default(), || {
            format!(
                "the file also carries the draft's meta-data record(s) {}",
                legacy.join(", ")
            )
        });
    }
}

fn metadata_draft(sink: &mut Sink, scan: &Scan) {
    let versions = records(scan, DRAFT_VERSIONS);
    match versions.first() {
        None => sink.add(rule::DRAFT_VERSIONS_RECORD, Location::default(), || {
            format!("no Metadata record named {DRAFT_VERSIONS}")
        }),
        Some((at, m)) => match m.metadata.get("osi") {
            None => sink.add(rule::DRAFT_VERSIONS_RECORD, Location::at(*at), || {
                format!("{DRAFT_VERSIONS} lacks the key \"osi\"")
            }),
            Some(v) if Semver::parse(v).is_none() => {
                sink.add(rule::DRAFT_VERSIONS_RECORD, Location::at(*at), || {
                    format!("{DRAFT_VERSIONS} osi = {v:?} is not a semantic version")
                })
            }
            Some(_) => {}
        },
    }
    let asam = records(scan, DRAFT_ASAM_OSI);
    match asam.first() {
        None => sink.add(rule::DRAFT_ASAM_OSI_RECORD, Location::default(), || {
            format!("no Metadata record named {DRAFT_ASAM_OSI}")
        }),
        Some((at, m)) => {
            for key in ["zero_time", "timestamp"] {
                match m.metadata.get(key) {
                    None => sink.add(rule::DRAFT_ASAM_OSI_RECORD, Location::at(*at), || {
                        format!("{DRAFT_ASAM_OSI} lacks the key {key:?}")
                    }),
                    Some(v) if !is_compact_date_time(v) => {
                        sink.add(rule::DRAFT_DATE_TIME, Location::at(*at), || {
                            format!("{DRAFT_ASAM_OSI} {key} = {v:?} is not YYYYMMDDThhmmss.f")
                        })
                    }
                    Some(_) => {}
                }
            }
            let missing: Vec<&str> = DRAFT_RECOMMENDED_KEYS
                .into_iter()
                .filter(|k| !m.metadata.contains_key(*k))
                .collect();
            if !missing.is_empty() {
                sink.add(rule::DRAFT_RECOMMENDED, Location::at(*at), || {
                    format!(
                        "{DRAFT_ASAM_OSI} lacks the recommended key(s) {}",
                        missing.join(", ")
                    )
                });
            }
        }
    }
}

/// Schema and channel rules; returns the number of OSI channels.
fn channel_rules(
    sink: &mut Sink,
    scan: &Scan,
    summary: Option<&Summary>,
    descriptors: &mut HashMap<u16, Result<Descriptors, String>>,
) -> usize {
    // Schemas used by OSI channels (or named osi3.*).
    let mut versions_per_type: BTreeMap<(String, String), Vec<u16>> = BTreeMap::new();
    let mut osi_schemas: BTreeSet<u16> = BTreeSet::new();
    for (id, s) in &scan.schemas {
        if !is_osi_schema(s) {
            continue;
        }
        osi_schemas.insert(*id);
        let loc = Location::at(s.offset);
        if s.encoding != "protobuf" {
            sink.add(rule::SCHEMA_ENCODING, loc.clone(), || {
                format!(
                    "schema {id} {:?} has encoding {:?}, not protobuf",
                    s.name, s.encoding
                )
            });
            continue;
        }
        if type_code(&s.name).is_none() {
            sink.add(rule::SCHEMA_NAME, loc.clone(), || {
                format!("schema {id} {:?} is not an OSI top-level message", s.name)
            });
        }
        if sink.profile == Profile::Draft && s.name == "osi3.SensorViewConfiguration" {
            sink.add(rule::DRAFT_TIMESTAMP_TYPE, loc.clone(), || {
                format!("schema {id} {:?}: the draft stores only top-level messages with a timestamp field", s.name)
            });
        }
        let d = descriptors.entry(*id).or_insert_with(|| {
            Descriptors::from_file_descriptor_set(&s.data).map_err(|e| e.to_string())
        });
        match d {
            Err(e) => sink.add(rule::SCHEMA_DESCRIPTOR, loc.clone(), || {
                format!(
                    "schema {id} {:?}: the data is not a usable FileDescriptorSet: {e}",
                    s.name
                )
            }),
            Ok(d) => {
                if let Err(e) = TopLevel::new(d, &s.name) {
                    sink.add(rule::SCHEMA_DESCRIPTOR, loc.clone(), || {
                        format!("schema {id} {:?}: {e}", s.name)
                    });
                }
                let v = d
                    .interface_version()
                    .map(|v| v.to_string())
                    .unwrap_or_default();
                versions_per_type
                    .entry((s.name.clone(), v))
                    .or_default()
                    .push(*id);
            }
        }
        if let Some(sm) = summary
            && !sm.schemas.contains_key(id)
        {
            sink.add(rule::SCHEMA_SUMMARY, loc, || {
                format!(
                    "schema {id} {:?} is not repeated in the summary section",
                    s.name
                )
            });
        }
    }
    for ((name, v), ids) in &versions_per_type {
        if ids.len() > 1 {
            sink.add(rule::SCHEMA_DUPLICATE, Location::default(), || {
                format!("schemas {ids:?} all define {name} (interface version {v:?})")
            });
        }
    }

    let mut topics: BTreeMap<&str, Vec<u16>> = BTreeMap::new();
    let mut osi_channels = 0;
    let mut osi_min_max: Option<(Semver, Semver)> = None;
    let mut pb_min_max: Option<(Semver, Semver)> = None;
    for (id, rec) in &scan.channels {
        let c = &rec.channel;
        if !osi_schemas.contains(&c.schema_id) {
            continue;
        }
        osi_channels += 1;
        topics.entry(c.topic.as_str()).or_default().push(*id);
        let loc = Location::channel(Some(rec.offset), c);
        if c.message_encoding != "protobuf" {
            sink.add(rule::CHANNEL_ENCODING, loc.clone(), || {
                format!("message_encoding is {:?}, not protobuf", c.message_encoding)
            });
        }
        if let Some(sm) = summary
            && !sm.channels.contains_key(id)
        {
            sink.add(rule::CHANNEL_SUMMARY, loc.clone(), || {
                "the channel is not repeated in the summary section".into()
            });
        }
        let md = &c.metadata;
        match sink.profile {
            Profile::Osi38 => {
                for key in [CHANNEL_OSI_VERSION, CHANNEL_PROTOBUF_VERSION] {
                    match md.get(key) {
                        None => sink.add(rule::CHANNEL_REQUIRED, loc.clone(), || {
                            format!("the channel lacks the required key {key}")
                        }),
                        Some(v) => match Semver::parse(v) {
                            None => sink.add(rule::CHANNEL_SEMVER, loc.clone(), || {
                                format!("{key} = {v:?} is not a semantic version")
                            }),
                            Some(v) => {
                                let slot = if key == CHANNEL_OSI_VERSION {
                                    &mut osi_min_max
                                } else {
                                    &mut pb_min_max
                                };
                                *slot = Some(match slot.take() {
                                    None => (v.clone(), v),
                                    Some((a, b)) => (a.min(v.clone()), b.max(v)),
                                });
                            }
                        },
                    }
                }
                if !md.contains_key(CHANNEL_DESCRIPTION) {
                    sink.add(rule::CHANNEL_DESCRIPTION_38, loc.clone(), || {
                        format!("the channel lacks the recommended key {CHANNEL_DESCRIPTION}")
                    });
                }
                for k in md.keys() {
                    if k.starts_with("net.asam.osi")
                        && ![
                            CHANNEL_OSI_VERSION,
                            CHANNEL_PROTOBUF_VERSION,
                            CHANNEL_DESCRIPTION,
                        ]
                        .contains(&k.as_str())
                    {
                        sink.add(rule::RESERVED, loc.clone(), || {
                            format!("channel key {k:?} uses the reserved prefix net.asam.osi")
                        });
                    }
                }
                let legacy: Vec<&str> = ["osi_version", "protobuf", "protobuf_version"]
                    .into_iter()
                    .filter(|k| md.contains_key(*k))
                    .collect();
                if !legacy.is_empty() {
                    sink.add(rule::LEGACY_KEYS, loc.clone(), || {
                        format!(
                            "the channel also carries the draft key(s) {}",
                            legacy.join(", ")
                        )
                    });
                }
            }
            Profile::Draft => {
                match md.get("osi_version") {
                    None => sink.add(rule::DRAFT_CHANNEL_REQUIRED, loc.clone(), || {
                        "the channel lacks the key osi_version".into()
                    }),
                    Some(v) if Semver::parse(v).is_none() => {
                        sink.add(rule::DRAFT_CHANNEL_REQUIRED, loc.clone(), || {
                            format!("osi_version = {v:?} is not a semantic version")
                        })
                    }
                    Some(_) => {}
                }
                match (md.get("protobuf"), md.get("protobuf_version")) {
                    (Some(v), _) if Semver::parse(v).is_none() => {
                        sink.add(rule::DRAFT_CHANNEL_REQUIRED, loc.clone(), || {
                            format!("protobuf = {v:?} is not a semantic version")
                        })
                    }
                    (Some(_), _) => {}
                    (None, Some(_)) => sink.add(rule::DRAFT_CHANNEL_KEY_NAME, loc.clone(), || {
                        "the protobuf version is under protobuf_version (as proof-of-concept writers wrote it), the draft names the key protobuf".into()
                    }),
                    (None, None) => sink.add(rule::DRAFT_CHANNEL_REQUIRED, loc.clone(), || {
                        "the channel lacks the key protobuf".into()
                    }),
                }
                if !md.contains_key("description") {
                    sink.add(rule::DRAFT_CHANNEL_DESCRIPTION, loc.clone(), || {
                        "the channel lacks the recommended key description".into()
                    });
                }
            }
            Profile::Mcap => {}
        }
        // The schema's own interface version against the channel's key.
        let key = match sink.profile {
            Profile::Osi38 | Profile::Mcap => CHANNEL_OSI_VERSION,
            Profile::Draft => "osi_version",
        };
        if let (Some(Ok(d)), Some(v)) = (
            descriptors.get(&c.schema_id),
            md.get(key).and_then(|v| Semver::parse(v)),
        ) && let Some(iv) = d.interface_version()
            && (
                u64::from(iv.major),
                u64::from(iv.minor),
                u64::from(iv.patch),
            ) != v.triple()
        {
            sink.add(rule::SCHEMA_VERSION, loc.clone(), || {
                format!("the schema's descriptor says OSI {iv} (current_interface_version), the channel's {key} says {v}")
            });
        }
    }
    for (topic, ids) in &topics {
        if ids.len() > 1 {
            let c = &scan.channels[&ids[1]];
            sink.add(
                rule::CHANNEL_TOPIC,
                Location::channel(Some(c.offset), &c.channel),
                || format!("OSI channels {ids:?} share the topic {topic:?}"),
            );
        }
    }
    if osi_channels == 0 {
        sink.add(rule::CHANNEL_PRESENT, Location::default(), || {
            "no OSI channel (a channel whose schema is osi3.<message>)".into()
        });
    }
    // The file's declared ranges against the channels'.
    if sink.profile == Profile::Osi38
        && let Some((at, m)) = records(scan, TRACE_METADATA).first().map(|r| (r.0, &r.1))
    {
        for (lo, hi, range, what) in [
            ("min_osi_version", "max_osi_version", &osi_min_max, "OSI"),
            (
                "min_protobuf_version",
                "max_protobuf_version",
                &pb_min_max,
                "protobuf",
            ),
        ] {
            let (Some(a), Some(b)) = (
                m.metadata.get(lo).and_then(|v| Semver::parse(v)),
                m.metadata.get(hi).and_then(|v| Semver::parse(v)),
            ) else {
                continue;
            };
            if let Some((cmin, cmax)) = range
                && (*cmin < a || *cmax > b)
            {
                sink.add(rule::VERSION_RANGE, Location::at(at), || {
                    format!("the channels use {what} versions {cmin}..{cmax}, outside the file's {lo}..{hi} = {a}..{b}")
                });
            }
        }
    }
    osi_channels
}

/// Log times from 10^17 ns (March 1973) on are taken as Unix-epoch times;
/// simulation times counted from a scenario start stay far below.
const EPOCH_LIKE_NS: u64 = 100_000_000_000_000_000;

fn time_base(sink: &mut Sink, scan: &Scan, states: &BTreeMap<u16, ChannelState>) {
    let mut absolute = Vec::new();
    let mut relative = Vec::new();
    for (id, (lo, _)) in &scan.ranges {
        if *lo >= EPOCH_LIKE_NS {
            absolute.push(*id);
        } else {
            relative.push(*id);
        }
    }
    if !absolute.is_empty() && !relative.is_empty() {
        let osi = |ids: &[u16]| {
            ids.iter()
                .any(|i| states.get(i).is_some_and(|s| s.top.is_some()))
        };
        if osi(&absolute) || osi(&relative) {
            sink.add(rule::TIME_BASE, Location::default(), || {
                format!(
                    "channels {absolute:?} have Unix-epoch log times, channels {relative:?} times relative to a start: the file mixes time bases"
                )
            });
        }
    }
}

fn name_rules(sink: &mut Sink, path: &str, scan: &Scan, states: &BTreeMap<u16, ChannelState>) {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    if !name.ends_with(".mcap") {
        sink.add(rule::EXTENSION, Location::default(), || {
            format!("the file name {name:?} does not end in .mcap")
        });
    }
    // The type the contents call for.
    let types: BTreeSet<&str> = scan
        .channels
        .values()
        .filter_map(|c| scan.schemas.get(&c.channel.schema_id))
        .filter(|s| is_osi_schema(s))
        .filter_map(|s| type_code(&s.name))
        .collect();
    let expected = match types.len() {
        0 => None,
        1 => types.iter().next().copied(),
        _ => Some("multi"),
    };
    match sink.profile {
        Profile::Osi38 => match TraceName::parse(name) {
            Err(e) => sink.add(rule::FILE_NAME_38, Location::default(), || {
                format!("the file name {name:?} does not follow the OSI 3.8.0 recommendation: {e}")
            }),
            Ok(n) => {
                if let Some(t) = expected
                    && n.type_code != t
                {
                    sink.add(rule::FILE_NAME_38, Location::default(), || {
                        format!("the file name says type {:?}, the contents are {t:?}", n.type_code)
                    });
                }
                let frames = states.values().filter(|s| s.top.is_some()).map(|s| s.count).max();
                if let Some(f) = frames
                    && f != n.frames
                {
                    sink.add(rule::FILE_NAME_38, Location::default(), || {
                        format!("the file name says {} frames, the largest OSI channel has {f} messages", n.frames)
                    });
                }
                if let Some((_, m)) = records(scan, TRACE_METADATA).first()
                    && let Some(v) = m.metadata.get("version").and_then(|v| Semver::parse(v))
                    && v.compact() != n.osi_version
                {
                    sink.add(rule::FILE_NAME_38, Location::default(), || {
                        format!("the file name says OSI version {}, {TRACE_METADATA} version is {v}", n.osi_version)
                    });
                }
            }
        },
        Profile::Draft => match DraftName::parse(name) {
            Err(e) => sink.add(rule::FILE_NAME_DRAFT, Location::default(), || {
                format!("the file name {name:?} does not follow <prefix>_<timestamp>_<type>_<suffix>.mcap: {e}")
            }),
            Ok(n) => {
                if let Some(t) = expected
                    && n.type_code != t
                {
                    sink.add(rule::FILE_NAME_DRAFT, Location::default(), || {
                        format!("the file name says type {:?}, the contents are {t:?}", n.type_code)
                    });
                }
            }
        },
        Profile::Mcap => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_ids_are_unique_and_scoped() {
        let mut seen = BTreeSet::new();
        for r in RULES {
            assert!(seen.insert(r.id), "duplicate rule {}", r.id);
            let prefix = r.id.split('.').next().unwrap_or("");
            let ok = match r.scope {
                Scope::Mcap => prefix == "mcap",
                Scope::Common => prefix == "osi",
                Scope::Osi38 => prefix == "osi38" || r.id.starts_with("osi.mcap."),
                Scope::Draft => prefix == "draft",
            };
            assert!(ok, "rule {} has scope {:?}", r.id, r.scope);
        }
    }

    #[test]
    fn garbage_is_reported_not_panicking() {
        for data in [&b""[..], b"\x89MCAP0\r\n", b"not an mcap file at all"] {
            let r = validate(data, &ValidateOptions::default());
            assert!(!r.passed());
            assert!(r.has(rule::MCAP_STRUCTURE) || r.has(rule::CHANNEL_PRESENT));
        }
    }
}
