//! Text output of pyulog 1.3.0's command-line tools, byte for byte:
//! [`info`] (`ulog_info`), [`messages`] (`ulog_messages`), [`params`]
//! (`ulog_params`) and [`ulog2csv`] / [`csv`] (`ulog2csv`).
//!
//! Where pyulog crashes (invalid UTF-8 in strict mode, bytes >= 0x80 in
//! `char` fields of `ulog2csv`) these functions produce output instead:
//! invalid UTF-8 is dropped as pyulog's `--ignore` mode does, and `char`
//! bytes are shown as the Latin-1 character.

use std::fmt::Write as _;

mod csv;

pub use csv::{CsvOptions, PathError, csv, csv_file_name, csv_file_names, ulog2csv};

use crate::read::ULog;
use crate::records::InfoValue;
use crate::sample::Subscription;
use crate::text::{py_bytes_repr, py_float, py_str_repr};

/// Python's `str()` of a decoded info or parameter value.
///
/// ```
/// use ulogfile::{InfoValue, pyulog::py_value};
/// assert_eq!(py_value(&InfoValue::Float(0.05)), "0.05000000074505806");
/// assert_eq!(py_value(&InfoValue::Bytes(b"\x01a")), "b'\\x01a'");
/// ```
pub fn py_value(v: &InfoValue<'_>) -> String {
    match v {
        InfoValue::String(s) => s.clone(),
        InfoValue::Int(i) => i.to_string(),
        InfoValue::UInt(u) => u.to_string(),
        InfoValue::Float(f) => py_float(f64::from(*f)),
        InfoValue::Double(d) => py_float(*d),
        InfoValue::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        InfoValue::Char(c) => py_bytes_repr(&[*c]),
        InfoValue::Bytes(b) => py_bytes_repr(b),
    }
}

/// Python's `repr()` of a decoded value (strings quoted).
pub fn py_repr(v: &InfoValue<'_>) -> String {
    match v {
        InfoValue::String(s) => py_str_repr(s),
        other => py_value(other),
    }
}

fn hms(secs: u64) -> String {
    let (m, s) = (secs / 60, secs % 60);
    format!("{}:{:02}:{:02}", m / 60, m % 60, s)
}

/// The datasets as pyulog lists them: subscriptions with samples, sorted
/// by (name, multi_id).
pub fn datasets<'l, 'a>(log: &'l ULog<'a>) -> Vec<&'l Subscription<'a>> {
    let mut v: Vec<&Subscription<'a>> = log
        .subscriptions
        .iter()
        .rev()
        .filter(|s| !s.samples.is_empty())
        .collect();
    v.sort_by(|a, b| (&a.name, a.multi_id).cmp(&(&b.name, b.multi_id)));
    v
}

/// What pyulog prints on standard output while loading the file (before
/// any tool's own output): [`ULog::pyulog_output`], one line each.
pub fn load_output(log: &ULog<'_>) -> String {
    let mut o = String::new();
    for l in &log.pyulog_output {
        o.push_str(l);
        o.push('\n');
    }
    o
}

/// `ulog_info [-v]`.
pub fn info(log: &ULog<'_>, verbose: bool) -> String {
    let mut o = load_output(log);
    if log.corrupt {
        o.push_str("Warning: file has data corruption(s)\n");
    }
    let start = (log.header.timestamp as f64 / 1e6) as u64;
    let dur = (log.last_timestamp.saturating_sub(log.header.timestamp) as f64 / 1e6) as u64;
    let _ = writeln!(
        o,
        "Logging start time: {}, duration: {}",
        hms(start),
        hms(dur)
    );
    if log.dropouts.is_empty() {
        o.push_str("No Dropouts\n");
    } else {
        let d: Vec<u64> = log
            .dropouts
            .iter()
            .map(|d| u64::from(d.duration_ms))
            .collect();
        let sum: u64 = d.iter().sum();
        let max = d.iter().max().copied().unwrap_or(0);
        let _ = writeln!(
            o,
            "Dropouts: count: {}, total duration: {:.1} s, max: {max} ms, mean: {} ms",
            d.len(),
            sum as f64 / 1000.0,
            (sum as f64 / d.len() as f64) as u64
        );
    }
    if let Some(v) = log.info_value("ver_sw_release").and_then(InfoValue::as_i64) {
        let t = v & 0xff;
        if t >= 64 {
            let kind = match t {
                64..=127 => " (alpha)",
                128..=191 => " (beta)",
                192..=254 => " (RC)",
                _ => "",
            };
            let _ = writeln!(
                o,
                "SW Version: v{}.{}.{}{kind}",
                (v >> 24) & 0xff,
                (v >> 16) & 0xff,
                (v >> 8) & 0xff
            );
        }
    }
    o.push_str("Info Messages:\n");
    for (k, v) in &log.info {
        if !k.starts_with("perf_") || verbose {
            let _ = writeln!(o, " {k}: {}", py_value(&v.value));
        }
    }
    if !log.multi_info.is_empty() {
        if verbose {
            o.push_str("Info Multiple Messages:\n");
            for (k, m) in &log.multi_info {
                let groups: Vec<String> = m
                    .groups
                    .iter()
                    .map(|g| format!("[{}]", g.iter().map(py_repr).collect::<Vec<_>>().join(", ")))
                    .collect();
                let _ = writeln!(o, " {k}: [{}]", groups.join(", "));
            }
        } else {
            let parts: Vec<String> = log
                .multi_info
                .iter()
                .map(|(k, m)| format!("[{k}: {}]", m.groups.len()))
                .collect();
            let _ = writeln!(o, "Info Multiple Messages: {}", parts.join(", "));
        }
    }
    o.push('\n');
    let _ = writeln!(
        o,
        "{:<41} {:7}, {:10}",
        "Name (multi id, message size in bytes)", "number of data points", "total bytes"
    );
    let mut ds = datasets(log);
    ds.sort_by_key(|d| format!("{}{}", d.name, d.multi_id));
    for d in ds {
        let size = d.sample_size();
        let n = d.samples.len();
        let name_id = format!("{} ({}, {})", d.name, d.multi_id, size);
        let _ = writeln!(o, " {name_id:<40} {n:7} {:10}", size * n);
    }
    o
}

/// `ulog_info -m KEY [-n]`: the groups of one multi-info key.
pub fn multi_message(log: &ULog<'_>, key: &str, newline: bool) -> String {
    let sep = if newline { "\n" } else { "" };
    let mut o = load_output(log);
    let Some(m) = log.multi_info.get(key) else {
        return format!("{o}message {key} not found\n");
    };
    for (i, g) in m.groups.iter().enumerate() {
        if let Some(InfoValue::Bytes(_)) = g.first() {
            let total: usize = g
                .iter()
                .map(|v| {
                    if let InfoValue::Bytes(b) = v {
                        b.len()
                    } else {
                        0
                    }
                })
                .sum();
            let _ = writeln!(o, "# {key} {i} (len: {total}):");
            let chunks: Vec<String> = g
                .iter()
                .map(|v| match v {
                    InfoValue::Bytes(b) => b
                        .iter()
                        .map(|x| format!("{x:02x}"))
                        .collect::<Vec<_>>()
                        .join(" "),
                    other => py_value(other),
                })
                .collect();
            let _ = writeln!(o, "{}", chunks.join(sep));
        } else {
            let _ = writeln!(o, "# {key} {i}:");
            let chunks: Vec<String> = g.iter().map(py_value).collect();
            let _ = writeln!(o, "{}", chunks.join(sep));
        }
    }
    o
}

/// What [`messages`] could not reproduce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessagesGap {
    /// The log embeds PX4 event metadata but the crate was built without
    /// the `events` feature, so events are missing from the output.
    EmbeddedEvents,
}

/// `ulog_messages`, as pyulog 1.3.0 prints it without network access:
/// logged strings, merged for PX4 logs with the events decoded from the
/// metadata embedded in the log. Returns the text and, when built without
/// the `events` feature and events are missing, a [`MessagesGap`].
pub fn messages(log: &ULog<'_>) -> (String, Option<MessagesGap>) {
    let mut o = load_output(log);
    #[cfg_attr(feature = "events", allow(unused_mut))]
    let mut gap = None;
    let mut lines: Vec<(u64, &'static str, String)> = log
        .logged_messages
        .iter()
        .map(|m| (m.timestamp, m.level_name(), m.text()))
        .collect();
    if log.info_value("sys_name").and_then(InfoValue::as_str) == Some("PX4") {
        let has_events = log
            .subscription("event", 0)
            .is_some_and(|s| !s.samples.is_empty() && s.field("id").is_some());
        let mut events: Vec<(u64, &'static str, String)> = Vec::new();
        const OFFLINE: &str =
            "Failed to get event parser: <urlopen error [Errno -2] Name or service not known>\n";
        if has_events {
            #[cfg(feature = "events")]
            match crate::events::logged_events(log) {
                Ok(e) => events = e,
                Err(crate::events::EventsError::NoMetadata) => o.push_str(OFFLINE),
                Err(crate::events::EventsError::BadMetadata(m)) => {
                    let _ = writeln!(o, "Failed to get event parser: {m}");
                }
            }
            #[cfg(not(feature = "events"))]
            {
                if log.multi_info.contains_key("metadata_events") {
                    gap = Some(MessagesGap::EmbeddedEvents);
                } else {
                    o.push_str(OFFLINE);
                }
            }
        }
        lines.retain(|(_, _, m)| !m.ends_with('\t'));
        events.extend(lines);
        lines = events;
        lines.sort_by_key(|l| l.0);
    }
    for (t, level, text) in lines {
        let total_ms = (t as f64 / 1000.0) as u64;
        let secs = total_ms / 1000;
        let (m, s) = (secs / 60, secs % 60);
        let _ = writeln!(
            o,
            "{}:{:02}:{:02}.{:03} {level}: {text}",
            m / 60,
            m % 60,
            s,
            total_ms % 1000
        );
    }
    (o, gap)
}

/// Output format of [`params`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ParamFormat {
    /// `NAME,value[,changes...]`
    #[default]
    Csv,
    /// GNU Octave text.
    Octave,
    /// QGroundControl parameter file rows.
    Qgc,
}

/// Options of [`params`] (`ulog_params` flags).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamOptions {
    /// `-f`.
    pub format: ParamFormat,
    /// `-l` (csv only).
    pub delimiter: String,
    /// `-i`: initial values only.
    pub initial: bool,
    /// `-t`: timestamps line (csv).
    pub timestamps: bool,
    /// `-d`: defaults of this `default_types` bit instead (0 system, 1 current setup).
    pub default: Option<u8>,
}

impl Default for ParamOptions {
    fn default() -> Self {
        ParamOptions {
            format: ParamFormat::Csv,
            delimiter: ",".into(),
            initial: false,
            timestamps: false,
            default: None,
        }
    }
}

/// `ulog_params` (after [`load_output`]). Fails (as pyulog does) when
/// defaults are asked for and the log has none.
pub fn params(log: &ULog<'_>, opt: &ParamOptions) -> Result<String, String> {
    let empty = Default::default();
    let (params, initial) = match opt.default {
        Some(bit) => {
            if !log.has_default_parameters() {
                return Err("Log does not contain default parameters".into());
            }
            (log.default_parameters.get(&bit).unwrap_or(&empty), true)
        }
        None => (&log.initial_parameters, opt.initial),
    };
    fn changes<'l, 'a>(
        log: &'l ULog<'a>,
        name: &'l str,
    ) -> impl Iterator<Item = &'l crate::ParameterChange<'a>> {
        log.changed_parameters
            .iter()
            .filter(move |c| c.name == name)
    }
    let d = &opt.delimiter;
    let mut o = load_output(log);
    for (name, value) in params {
        match opt.format {
            ParamFormat::Csv => {
                o.push_str(name);
                o.push_str(d);
                o.push_str(&py_value(value));
                if opt.timestamps {
                    for c in changes(log, name) {
                        o.push_str(d);
                        o.push_str(&py_value(&c.value));
                    }
                    o.push_str("\ntimestamp");
                    o.push_str(d);
                    o.push('0');
                    for c in changes(log, name) {
                        o.push_str(d);
                        o.push_str(&c.timestamp.to_string());
                    }
                } else if !initial {
                    for c in changes(log, name) {
                        o.push_str(d);
                        o.push_str(&py_value(&c.value));
                    }
                }
                o.push('\n');
            }
            ParamFormat::Octave => {
                let _ = write!(o, "# name {name}");
                let mut values = vec![py_value(value)];
                if !initial {
                    values.extend(changes(log, name).map(|c| py_value(&c.value)));
                }
                if values.len() > 1 {
                    let _ = write!(
                        o,
                        "\n# type: matrix\n# rows: 1\n# columns: {}\n",
                        values.len()
                    );
                    for v in &values {
                        o.push_str(v);
                        o.push(' ');
                    }
                } else {
                    o.push_str("\n# type: scalar\n");
                    o.push_str(&values[0]);
                }
                o.push('\n');
            }
            ParamFormat::Qgc => {
                let ty = if matches!(value, InfoValue::Float(_) | InfoValue::Double(_)) {
                    9
                } else {
                    6
                };
                let _ = writeln!(o, "1\t1\t{name}\t{}\t{ty}", py_value(value));
            }
        }
    }
    Ok(o)
}
