//! What `robolog info` prints about a log, as text and as JSON, from its
//! [`Summary`].

use std::io::Write;
use std::path::Path;

use logcore::{Summary, TimeModel, Timestamp};
use serde_json::{Value as Json, json};

/// The JSON form of `robolog info --json`: `path`, `size_bytes`, `format`,
/// `format_name`, `version`, `clock`, `clock_anchor`, `message_count`,
/// `start_ns`, `end_ns`, `duration_ns`, `start_date`, `end_date`,
/// `channels` (`[{id, topic, type, encoding, count, start_ns, end_ns,
/// metadata}]`), `metadata` and `warnings`. Field names are a contract:
/// extend, never rename.
pub fn info_json(path: &Path, size: u64, s: &Summary) -> Json {
    let tm = s.time_model;
    let channels: Vec<Json> = s
        .channels
        .iter()
        .map(|c| {
            json!({
                "id": c.info.id.0,
                "topic": c.info.topic,
                "type": c.info.type_name,
                "encoding": c.info.message_encoding,
                "count": c.message_count,
                "start_ns": c.start.map(Timestamp::as_nanos),
                "end_ns": c.end.map(Timestamp::as_nanos),
                "metadata": c.info.metadata,
            })
        })
        .collect();
    json!({
        "path": path.display().to_string(),
        "size_bytes": size,
        "format": s.format.name(),
        "format_name": s.format.long_name(),
        "version": s.version,
        "clock": tm.clock.name(),
        "clock_anchor": tm.anchor.map(|a| json!({
            "log_time_ns": a.log_time.as_nanos(),
            "unix_time_ns": a.unix_time.as_nanos(),
            "source": a.source,
        })),
        "message_count": s.message_count,
        "start_ns": s.start.map(Timestamp::as_nanos),
        "end_ns": s.end.map(Timestamp::as_nanos),
        "duration_ns": s.duration_ns(),
        "start_date": s.start.and_then(|t| tm.format_date(t)),
        "end_date": s.end.and_then(|t| tm.format_date(t)),
        "channels": channels,
        "metadata": s.metadata,
        "warnings": s.warnings.iter().map(|w| w.to_string()).collect::<Vec<_>>(),
    })
}

/// A time on the log's clock, with its UTC date where the clock allows.
fn time_line(tm: &TimeModel, t: Option<Timestamp>) -> String {
    let Some(t) = t else {
        return "-".to_string();
    };
    let clock = match tm.clock {
        logcore::Clock::Unix => "s since 1970-01-01 UTC",
        logcore::Clock::Boot => "s since boot",
        logcore::Clock::RecordingStart => "s since recording start",
    };
    match tm.format_date(t) {
        Some(d) if tm.clock == logcore::Clock::Unix => format!("{t} ({d})"),
        Some(d) => format!("{t} {clock} ({d})"),
        None => format!("{t} {clock}"),
    }
}

/// `1.5 KB (1536 bytes)`: binary units with one decimal, and the exact count.
fn human_size(n: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {} ({n} bytes)", UNITS[unit])
}

/// The text of `robolog info`: path, format and version, size, clock,
/// duration, start and end (with UTC dates where the clock allows),
/// message and channel counts, one aligned line per channel, metadata.
pub fn write_info_text(
    out: &mut impl Write,
    path: &Path,
    size: u64,
    s: &Summary,
) -> std::io::Result<()> {
    let tm = &s.time_model;
    let mut lines = vec![
        format!("path:      {}", path.display()),
        format!(
            "format:    {} ({}) version {}",
            s.format.long_name(),
            s.format.name(),
            s.version
        ),
        format!("size:      {}", human_size(size)),
    ];
    let clock = match tm.anchor {
        Some(a) => format!("{} (anchored to UTC by {})", tm.clock.name(), a.source),
        None => tm.clock.name().to_string(),
    };
    lines.push(format!("clock:     {clock}"));
    lines.push(format!(
        "duration:  {}",
        logcore::time::format_duration(s.duration_ns())
    ));
    lines.push(format!("start:     {}", time_line(tm, s.start)));
    lines.push(format!("end:       {}", time_line(tm, s.end)));
    lines.push(format!("messages:  {}", s.message_count));
    lines.push(format!("channels:  {}", s.channels.len()));
    let topic_w = s
        .channels
        .iter()
        .map(|c| c.info.topic.len())
        .max()
        .unwrap_or(0);
    let type_w = s
        .channels
        .iter()
        .map(|c| c.info.type_name.len())
        .max()
        .unwrap_or(0);
    let count_w = s
        .channels
        .iter()
        .map(|c| c.message_count.to_string().len())
        .max()
        .unwrap_or(0);
    for c in &s.channels {
        lines.push(format!(
            "  {:topic_w$}  {:type_w$}  {:>count_w$} msgs",
            c.info.topic, c.info.type_name, c.message_count
        ));
    }
    if !s.metadata.is_empty() {
        lines.push("metadata:".to_string());
        for (k, v) in &s.metadata {
            lines.push(format!("  {k}: {v}"));
        }
    }
    for l in lines {
        writeln!(out, "{l}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_like_people_write_them() {
        assert_eq!(human_size(1023), "1023 bytes");
        assert_eq!(human_size(1536), "1.5 KB (1536 bytes)");
        assert_eq!(human_size(3 * 1024 * 1024), "3.0 MB (3145728 bytes)");
    }
}
