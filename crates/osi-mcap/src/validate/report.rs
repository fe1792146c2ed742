//! The report: findings, their locations, per-rule counts, and the sink
//! that collects them under a profile.

use std::io::{self, Write};

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

    /// Writes the report as text, `file` naming the file checked: a line
    /// with the kind of file and the profile and why, a line of counts,
    /// each listed finding (after the first finding of a rule with more
    /// findings than listed, how many there are in all), and the verdict
    /// `PASS`/`FAIL` with the totals.
    ///
    /// ```
    /// let report = osi_mcap::validate(b"not an MCAP file", &Default::default());
    /// let mut out = Vec::new();
    /// report.write_text(&mut out, "x.mcap")?;
    /// let text = String::from_utf8(out).unwrap();
    /// assert!(text.starts_with("x.mcap: OSI trace, profile osi-3.8 ("), "{text}");
    /// assert!(text.ends_with(&format!("FAIL: {} errors, 0 warnings, 0 infos\n", report.errors)));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn write_text(&self, out: &mut impl Write, file: &str) -> io::Result<()> {
        let kind = if self.profile == Profile::Mcap {
            "MCAP file"
        } else {
            "OSI trace"
        };
        writeln!(
            out,
            "{file}: {kind}, profile {} ({})",
            self.profile, self.profile_reason
        )?;
        writeln!(
            out,
            "{} channels ({} OSI), {} OSI messages checked",
            self.channels, self.osi_channels, self.messages_checked
        )?;
        let mut shown = BTreeSet::new();
        for f in &self.findings {
            writeln!(out, "{f}")?;
            if shown.insert(f.rule)
                && let Some(c) = self.counts.get(f.rule)
                && c.total > c.listed
            {
                // Once, after the first finding of the rule.
                writeln!(
                    out,
                    "  ({} findings of {} in all, {} listed)",
                    c.total, f.rule, c.listed
                )?;
            }
        }
        writeln!(
            out,
            "{}: {} errors, {} warnings, {} infos",
            if self.passed() { "PASS" } else { "FAIL" },
            self.errors,
            self.warnings,
            self.infos
        )
    }

    /// The report as one JSON document: the fields of [`Report`] in order,
    /// then `file` (as given) and `passed`.
    ///
    /// ```
    /// let report = osi_mcap::validate(b"not an MCAP file", &Default::default());
    /// let doc = report.to_json("x.mcap");
    /// assert_eq!(doc["file"], "x.mcap");
    /// assert_eq!(doc["passed"], false);
    /// assert_eq!(doc["profile"], "osi-3.8");
    /// ```
    pub fn to_json(&self, file: &str) -> serde_json::Value {
        let mut doc = serde_json::to_value(self).unwrap_or_default();
        if let Some(o) = doc.as_object_mut() {
            o.insert("file".into(), file.into());
            o.insert("passed".into(), self.passed().into());
        }
        doc
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

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(rule: &'static str, index: u64) -> Finding {
        Finding {
            rule,
            level: Level::Warning,
            profile: Scope::Common,
            message: "off by 1 ns".into(),
            location: Location {
                offset: Some(100 + index),
                channel: Some(1),
                topic: Some("gt".into()),
                message_index: Some(index),
            },
        }
    }

    #[test]
    fn text_names_the_unlisted_findings_once() {
        let id = rule::TIME_ROUNDING;
        let report = Report {
            profile: Profile::Osi38,
            profile_reason: "net.asam.osi.trace".into(),
            errors: 0,
            warnings: 5,
            infos: 0,
            channels: 2,
            osi_channels: 1,
            messages_checked: 9,
            findings: vec![finding(id, 0), finding(id, 1)],
            counts: BTreeMap::from([(
                id,
                Count {
                    total: 5,
                    listed: 2,
                },
            )]),
        };
        let mut out = Vec::new();
        report.write_text(&mut out, "t.mcap").unwrap();
        let f0 = finding(id, 0).to_string();
        let f1 = finding(id, 1).to_string();
        assert!(f0.starts_with("warning ["), "{f0}");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                "t.mcap: OSI trace, profile osi-3.8 (net.asam.osi.trace)\n\
                 2 channels (1 OSI), 9 OSI messages checked\n\
                 {f0}\n  (5 findings of {id} in all, 2 listed)\n{f1}\n\
                 PASS: 0 errors, 5 warnings, 0 infos\n"
            )
        );
        let doc = report.to_json("t.mcap");
        let keys: Vec<&str> = doc
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        assert_eq!(keys.first(), Some(&"profile"));
        assert_eq!(keys[keys.len() - 2..], ["file", "passed"]);
        assert_eq!(doc["passed"], true);
    }
}
