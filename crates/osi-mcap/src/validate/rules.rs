//! The rules table: profiles, levels, scopes and every rule with its id.

use super::*;

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
    pub(super) fn applies(self, p: Profile) -> bool {
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

/// Writes [`RULES`] as a table, one rule per line: id, level, profile
/// (each left-aligned in a column of 32, 8 and 8) and what the rule
/// requires.
///
/// ```
/// let mut out = Vec::new();
/// osi_mcap::validate::write_rules(&mut out)?;
/// let text = String::from_utf8(out).unwrap();
/// assert_eq!(text.lines().count(), osi_mcap::validate::RULES.len());
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_rules(out: &mut impl std::io::Write) -> std::io::Result<()> {
    for r in RULES {
        writeln!(
            out,
            "{:<32} {:<8} {:<8} {}",
            r.id,
            r.level.to_string(),
            r.scope.name(),
            r.summary
        )?;
    }
    Ok(())
}

/// [`RULES`] as a JSON array of `{id, level, scope, summary}` objects (the
/// fields of [`Rule`]).
pub fn rules_json() -> String {
    serde_json::to_string(RULES).unwrap_or_else(|_| "[]".into())
}

/// Looks a rule up by id.
pub fn find_rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}
