//! [`check_strict`]: the check for formats without a rule set of their
//! own: read everything in strict mode and decode every message.

use std::io::{self, Write};

use logcore::{Error, Format, LogReader, MessageFilter, ReadMode};
use serde_json::json;

use crate::Log;

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
