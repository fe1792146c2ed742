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
//!
//! # Parts
//!
//! The rules table ([`RULES`], [`Profile`], [`Scope`], [`Level`]) and the
//! report ([`Report`], [`Finding`], [`Location`]) are public; inside, one
//! pass over the records and chunks collects what the rules need and runs
//! the per-message checks, then the rule families run on what it found:
//! file and meta-data rules, schema and channel rules, the time-base rule
//! and the file-name rules.

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

mod channels;
mod file;
mod messages;
mod names;
mod report;
mod rules;
mod scan;
mod time_base;

pub use report::{Count, Finding, Location, Report, ValidateOptions};
pub use rules::{Level, Profile, RULES, Rule, Scope, find_rule, rule, rules_json, write_rules};

use channels::channel_rules;
use file::{file_rules, metadata_38, metadata_draft, records};
use messages::MessageCtx;
use names::name_rules;
use report::Sink;
use scan::{ChannelState, Pass, Scan, SchemaRec};
use time_base::time_base;

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

/// Checks `data` (a whole file) against the OSI rules. Never panics; damage
/// is reported as `mcap.structure` findings and everything readable is
/// still checked.
pub fn validate(data: &[u8], options: &ValidateOptions) -> Report {
    let Pass {
        summary,
        scan,
        states,
        mut descriptors,
        message_findings,
        messages_checked,
    } = scan::scan(data);

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
