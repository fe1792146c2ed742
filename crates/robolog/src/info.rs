//! What `robolog info` prints about a log, as text and as JSON, from its
//! [`Summary`].

use std::io::Write;
use std::path::Path;

use logcore::{Summary, TimeModel, Timestamp};
use serde_json::{Value as Json, json};

/// The JSON form of `robolog info --json`: `path`, `size_bytes`, `format`,
/// `format_name`, `version`, `clock`, `clock_anchor`, `message_count`,
/// `start_ns`, `end_ns`, `duration_ns`, `start_date`, `end_date`,
/// `time_base` (the clock's kind, as the `logs` table's `clock`: `utc`,
/// `boot`, `simulation`, `recording_start` or `unknown`), `start_utc_ns`
/// and `end_utc_ns` (ns since 1970 UTC, null without a UTC anchor),
/// `channels` (`[{id, topic, type, encoding, count, start_ns, end_ns,
/// metadata}]`), `topics` (each topic once: `[{topic, types, count,
/// start_ns, end_ns, channels}]`, `channels` the ids of its channels),
/// `metadata` and `warnings`. Field names are a contract: extend, never
/// rename.
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
    let topics: Vec<Json> = s
        .topics()
        .into_iter()
        .map(|t| {
            json!({
                "topic": t.topic,
                "types": t.types,
                "count": t.message_count,
                "start_ns": t.start.map(Timestamp::as_nanos),
                "end_ns": t.end.map(Timestamp::as_nanos),
                "channels": t.channels.iter().map(|c| c.0).collect::<Vec<_>>(),
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
        "time_base": logcore::clock::ClockKind::of(s).name(),
        "start_utc_ns": s.start.and_then(|t| logcore::clock::to_utc(s, t)).map(Timestamp::as_nanos),
        "end_utc_ns": s.end.and_then(|t| logcore::clock::to_utc(s, t)).map(Timestamp::as_nanos),
        "channels": channels,
        "topics": topics,
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

/// The topic lines of `robolog info`: the count of topics and channels,
/// then each topic once with its type and total count (and how many
/// channels carry it, when several do); a topic whose channels have
/// several types gets a line per type under it.
fn topic_lines(s: &Summary) -> Vec<String> {
    let topics = s.topics();
    let mut lines = vec![if topics.len() == s.channels.len() {
        format!("topics:    {}", topics.len())
    } else {
        format!(
            "topics:    {} ({} channels)",
            topics.len(),
            s.channels.len()
        )
    }];
    let type_of = |t: &logcore::TopicSummary| match t.types.as_slice() {
        [one] => one.clone(),
        many => format!("{} types", many.len()),
    };
    let topic_w = topics.iter().map(|t| t.topic.len()).max().unwrap_or(0);
    let type_w = topics.iter().map(|t| type_of(t).len()).max().unwrap_or(0);
    let count_w = topics
        .iter()
        .map(|t| t.message_count.to_string().len())
        .max()
        .unwrap_or(0);
    for t in &topics {
        let mut line = format!(
            "  {:topic_w$}  {:type_w$}  {:>count_w$} msgs",
            t.topic,
            type_of(t),
            t.message_count
        );
        if t.channels.len() > 1 {
            line.push_str(&format!("  ({} channels)", t.channels.len()));
        }
        lines.push(line.trim_end().to_string());
        if t.types.len() > 1 {
            for ty in &t.types {
                let (n, k) = s
                    .channels
                    .iter()
                    .filter(|c| c.info.topic == t.topic && &c.info.type_name == ty)
                    .fold((0, 0), |(n, k), c| (n + c.message_count, k + 1));
                let channels = if k > 1 {
                    format!("  ({k} channels)")
                } else {
                    String::new()
                };
                lines.push(format!("    {ty}  {n} msgs{channels}"));
            }
        }
    }
    lines
}

/// The text of `robolog info`: path, format and version, size, clock,
/// duration, start and end (with UTC dates where the clock allows),
/// message count, each topic once (its type, total count and channels),
/// metadata.
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
    lines.extend(topic_lines(s));
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

    #[test]
    fn a_topic_is_listed_once_with_its_types_under_it() {
        use logcore::{ChannelId, ChannelInfo, ChannelSummary, Clock, Format};
        let mut s = Summary::new(Format::Mcap, "0", TimeModel::new(Clock::Unix));
        for (id, topic, ty, n) in [
            (1, "/mixed", "a/A", 12),
            (2, "/imu", "sensor_msgs/Imu", 100),
            (3, "/mixed", "b/B", 8),
            (4, "/mixed", "a/A", 3),
        ] {
            s.channels.push(ChannelSummary {
                info: ChannelInfo::new(ChannelId(id), topic, ty, "cdr"),
                message_count: n,
                start: Some(Timestamp(id.into())),
                end: Some(Timestamp(10 + i64::from(id))),
            });
        }
        s.message_count = 123;
        let mut out = Vec::new();
        write_info_text(&mut out, Path::new("x.mcap"), 10, &s).unwrap();
        let text = String::from_utf8(out).unwrap();
        let from = text.find("topics:").unwrap();
        assert_eq!(
            &text[from..],
            "topics:    2 (4 channels)\n  \
             /mixed  2 types           23 msgs  (3 channels)\n    \
             a/A  15 msgs  (2 channels)\n    \
             b/B  8 msgs\n  \
             /imu    sensor_msgs/Imu  100 msgs\n"
        );
        let j = info_json(Path::new("x.mcap"), 10, &s);
        assert_eq!(
            j["topics"][0],
            serde_json::json!({"topic": "/mixed", "types": ["a/A", "b/B"], "count": 23,
                "start_ns": 1, "end_ns": 14, "channels": [1, 3, 4]})
        );
        assert_eq!(j["channels"].as_array().map(Vec::len), Some(4));
    }
}
