//! The report: findings, their locations, per-rule counts, and the sink
//! that collects them under a profile.

use super::*;

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
    pub(super) fn at(offset: u64) -> Location {
        Location {
            offset: Some(offset),
            ..Location::default()
        }
    }

    pub(super) fn channel(offset: Option<u64>, c: &Channel) -> Location {
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

pub(super) struct Sink {
    pub(super) profile: Profile,
    pub(super) max: usize,
    pub(super) strict_time: bool,
    pub(super) findings: Vec<Finding>,
    pub(super) counts: BTreeMap<&'static str, Count>,
}

impl Sink {
    pub(super) fn add(
        &mut self,
        id: &'static str,
        location: Location,
        message: impl FnOnce() -> String,
    ) {
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
