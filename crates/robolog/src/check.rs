//! `robolog check`'s rules: [`check`] applies the rules a file's format
//! has (MCAP: the ASAM OSI trace rules, or the MCAP structural checks for
//! a file that is no trace), and [`check_strict`] is the check for formats
//! without a rule set of their own: read everything in strict mode and
//! decode every message.

use std::collections::HashSet;
use std::io::{self, Write};

use logcore::{Error, Format, LogReader, MessageFilter, ReadMode};
use serde_json::json;

use crate::{Limits, Log, OpenOptions};

/// How [`check`] checks a file.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// The rules of a format that has a rule set (MCAP files: the ASAM OSI
    /// trace rules, see `osi_mcap::validate`): profile, file name, findings
    /// listed per rule, strict times. Non-OSI MCAP files get the MCAP
    /// structural checks.
    #[cfg(feature = "protobuf")]
    pub rules: osi_mcap::validate::ValidateOptions,
    /// The limits of the reader of a strict check.
    pub limits: Limits,
}

/// What [`check`] found.
#[derive(Debug)]
pub enum Checked {
    /// The report of the format's rule set (MCAP files).
    #[cfg(feature = "protobuf")]
    Rules(osi_mcap::validate::Report),
    /// A strict full read (every other format).
    Strict(StrictCheck),
}

impl Checked {
    /// Whether the file has no error.
    pub fn passed(&self) -> bool {
        match self {
            #[cfg(feature = "protobuf")]
            Checked::Rules(r) => r.passed(),
            Checked::Strict(s) => s.passed(),
        }
    }

    /// Writes the report as text, `file` naming the file checked.
    pub fn write_text(&self, out: &mut impl Write, file: &str) -> io::Result<()> {
        match self {
            #[cfg(feature = "protobuf")]
            Checked::Rules(r) => r.write_text(out, file),
            Checked::Strict(s) => s.write_text(out, file),
        }
    }

    /// The report as one JSON document, `file` naming the file checked.
    pub fn to_json(&self, file: &str) -> serde_json::Value {
        match self {
            #[cfg(feature = "protobuf")]
            Checked::Rules(r) => r.to_json(file),
            Checked::Strict(s) => s.to_json(file),
        }
    }

    /// The errors, one line of text each: every error finding of a rule
    /// set; each problem of a strict read once (the summary and the
    /// messages pass may meet one twice).
    pub fn errors(&self) -> Vec<String> {
        match self {
            #[cfg(feature = "protobuf")]
            Checked::Rules(r) => r
                .findings
                .iter()
                .filter(|f| f.level == osi_mcap::validate::Level::Error)
                .map(ToString::to_string)
                .collect(),
            Checked::Strict(s) => {
                let mut seen = HashSet::new();
                s.problems
                    .iter()
                    .map(ToString::to_string)
                    .filter(|p| seen.insert(p.clone()))
                    .collect()
            }
        }
    }
}

/// Checks the log file `bytes` against its format's rules: an MCAP file
/// against the ASAM OSI trace rules (or, when it is no trace, the MCAP
/// structural checks) with `opts.rules`, whatever else the file holds;
/// a file of any other format (or an MCAP file in a build without the
/// `protobuf` feature) by [`check_strict`]. An error when the format is
/// not recognised, or a strictly checked file cannot be opened.
///
/// ```
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/vellog/sensors.vel"))?;
/// let checked = robolog::check(&bytes, &robolog::CheckOptions::default())?;
/// assert!(checked.passed());
/// assert!(checked.errors().is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check(bytes: &[u8], opts: &CheckOptions) -> Result<Checked, Error> {
    let format = crate::detect(bytes)?;
    #[cfg(feature = "protobuf")]
    if format == Format::Mcap {
        return Ok(Checked::Rules(osi_mcap::validate(bytes, &opts.rules)));
    }
    let log = OpenOptions::new()
        .limits(opts.limits)
        .format(format)
        .open_bytes(bytes)?;
    Ok(Checked::Strict(check_strict(&log)))
}

/// [`check`] of the log at `path`: a file's bytes, or a ROS 2 bag (its
/// folder, `metadata.yaml` or lone `.db3`), which has no rules of its own
/// beyond its format and is read by [`check_strict`].
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/vellog/sensors.vel");
/// assert!(robolog::check_path(path, &robolog::CheckOptions::default())?.passed());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_path(
    path: impl AsRef<std::path::Path>,
    opts: &CheckOptions,
) -> Result<Checked, Error> {
    let path = path.as_ref();
    #[cfg(feature = "rosbag2")]
    if crate::open::is_rosbag2(path)? {
        let log = OpenOptions::new().limits(opts.limits).open(path)?;
        return Ok(Checked::Strict(check_strict(&log)));
    }
    check(&logcore::FileBytes::open(path)?, opts)
}

/// What [`check_strict`] found.
#[derive(Debug, Clone)]
pub struct StrictCheck {
    /// The log's format.
    pub format: Format,
    /// Messages read and decoded before the first error (all of them when
    /// there is none).
    pub messages: u64,
    /// The summary's warnings, then the first error of the read, if any
    /// (each names its byte offset).
    pub problems: Vec<Error>,
}

impl StrictCheck {
    /// Whether nothing was wrong.
    pub fn passed(&self) -> bool {
        self.problems.is_empty()
    }

    /// Writes the result as text, `file` naming the file checked: `FILE:
    /// FORMAT file, N messages read and decoded`, one `error: ...` line per
    /// problem and the verdict `PASS` or `FAIL`.
    pub fn write_text(&self, out: &mut impl Write, file: &str) -> io::Result<()> {
        writeln!(
            out,
            "{file}: {} file, {} messages read and decoded",
            self.format, self.messages
        )?;
        for p in &self.problems {
            writeln!(out, "error: {p}")?;
        }
        writeln!(out, "{}", if self.passed() { "PASS" } else { "FAIL" })
    }

    /// The result as one JSON document: `file` (as given), `format` (its
    /// short name), `passed`, `messages_checked` and `errors` (the problems
    /// as text).
    pub fn to_json(&self, file: &str) -> serde_json::Value {
        let errors: Vec<String> = self.problems.iter().map(|e| e.to_string()).collect();
        json!({
            "file": file,
            "format": self.format.name(),
            "passed": self.passed(),
            "messages_checked": self.messages,
            "errors": errors,
        })
    }
}

/// Reads all of `log` strictly: the summary (its warnings are problems),
/// then every message in [`ReadMode::Strict`], each decoded through the
/// log's decoder registry. The first error of the read or of a decode
/// ends the check.
///
/// ```
/// use robolog::{Format, check_strict};
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/vellog/sensors.vel"))?;
/// let log = robolog::open_bytes(&bytes)?;
/// let check = check_strict(&log);
/// assert!(check.passed(), "{:?}", check.problems);
/// assert_eq!(check.format, Format::VelLog);
/// assert!(check.messages > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn check_strict(log: &Log<'_>) -> StrictCheck {
    let mut check = StrictCheck {
        format: LogReader::format(log),
        messages: 0,
        problems: Vec::new(),
    };
    match log.summary() {
        Ok(s) => check.problems.extend(s.warnings),
        Err(e) => check.problems.push(e),
    }
    let filter = MessageFilter {
        mode: ReadMode::Strict,
        ..MessageFilter::all()
    };
    match log.messages(&filter) {
        Ok(iter) => {
            for m in iter {
                // A program embedding the check may stop it here.
                if check.messages % 256 == 0 {
                    logcore::interrupt::check();
                }
                match m.and_then(|m| LogReader::decode(log, &m).map(|_| ())) {
                    Ok(()) => check.messages += 1,
                    Err(e) => {
                        check.problems.push(e);
                        break;
                    }
                }
            }
        }
        Err(e) => check.problems.push(e),
    }
    check
}

#[cfg(all(test, feature = "rosbag"))]
mod tests {
    use super::*;

    fn testdata(rel: &str) -> Vec<u8> {
        std::fs::read(format!(
            "{}/../../testdata/{rel}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    #[test]
    fn a_whole_bag_passes() {
        let bytes = testdata("rosbag/sample.bag");
        let log = crate::open_bytes(&bytes).unwrap();
        let check = check_strict(&log);
        assert!(check.passed(), "{:?}", check.problems);
        assert_eq!(check.messages, log.summary().unwrap().message_count);
        let mut out = Vec::new();
        check.write_text(&mut out, "s.bag").unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                "s.bag: ROS 1 bag file, {} messages read and decoded\nPASS\n",
                check.messages
            )
        );
        assert_eq!(
            check.to_json("s.bag").to_string(),
            format!(
                r#"{{"file":"s.bag","format":"rosbag","passed":true,"messages_checked":{},"errors":[]}}"#,
                check.messages
            )
        );
    }

    #[test]
    fn a_truncated_bag_fails_with_the_offset() {
        let bytes = testdata("rosbag/truncated.bag");
        let log = crate::open_bytes(&bytes).unwrap();
        let check = check_strict(&log);
        assert!(!check.passed());
        assert!(
            check.problems.iter().all(|p| p.offset().is_some()),
            "{:?}",
            check.problems
        );
        let mut out = Vec::new();
        check.write_text(&mut out, "t.bag").unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("\nerror: "), "{text}");
        assert!(text.ends_with("FAIL\n"), "{text}");
    }
}
