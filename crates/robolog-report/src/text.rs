//! Text topics as the log's messages: ROS log messages
//! (`rosgraph_msgs/Log` of ROS 1's `/rosout`, `rcl_interfaces/msg/Log` of
//! ROS 2's) and diagnostics (`diagnostic_msgs/DiagnosticArray`, one message
//! per status), each with its level as text, placed at its log time.

use logcore::{LogReader as _, MessageFilter, Timestamp, Value};
use robolog::Log;

use crate::model::{Channel, Event, Problem};

/// Messages taken from the text topics of one log, at most: past it, the
/// first ones are kept and a problem says how many were left out.
pub const MAX_TEXT_MESSAGES: usize = 5000;

/// What a text topic holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `rosgraph_msgs/Log`: levels 1, 2, 4, 8, 16.
    Ros1Log,
    /// `rcl_interfaces/msg/Log`: levels 10, 20, 30, 40, 50.
    Ros2Log,
    /// `diagnostic_msgs/DiagnosticArray`: statuses of levels 0 to 3.
    Diagnostics,
}

/// The kind of text a message type holds, if any.
fn kind(type_name: &str) -> Option<Kind> {
    match type_name {
        "rosgraph_msgs/Log" | "rosgraph_msgs/msg/Log" => Some(Kind::Ros1Log),
        "rcl_interfaces/msg/Log" | "rcl_interfaces/Log" => Some(Kind::Ros2Log),
        "diagnostic_msgs/DiagnosticArray" | "diagnostic_msgs/msg/DiagnosticArray" => {
            Some(Kind::Diagnostics)
        }
        _ => None,
    }
}

/// Whether a channel (whose types are `type_name`, comma-separated where
/// its connections differ) holds text shown as messages.
pub(crate) fn is_text(type_name: &str) -> bool {
    type_name.split(", ").any(|t| kind(t).is_some())
}

/// The name of a level of `kind`.
fn level(kind: Kind, n: i64) -> String {
    let name = match (kind, n) {
        (Kind::Ros1Log, 1) | (Kind::Ros2Log, 10) => "DEBUG",
        (Kind::Ros1Log, 2) | (Kind::Ros2Log, 20) => "INFO",
        (Kind::Ros1Log, 4) | (Kind::Ros2Log, 30) => "WARNING",
        (Kind::Ros1Log, 8) | (Kind::Ros2Log, 40) => "ERROR",
        (Kind::Ros1Log, 16) | (Kind::Ros2Log, 50) => "FATAL",
        (Kind::Diagnostics, 0) => "OK",
        (Kind::Diagnostics, 1) => "WARNING",
        (Kind::Diagnostics, 2) => "ERROR",
        (Kind::Diagnostics, 3) => "STALE",
        _ => return format!("level {n}"),
    };
    name.to_string()
}

/// The text of a string field (empty when missing).
fn text<'a>(v: &'a Value, field: &str) -> &'a str {
    v.get(field).and_then(Value::as_str).unwrap_or("")
}

/// The events of one decoded message of `kind` on `topic` at `t`.
fn events_of(kind: Kind, topic: &str, t: i64, v: &Value, out: &mut Vec<Event>) {
    let level_of = |v: &Value| v.get("level").and_then(Value::as_i64).unwrap_or(-1);
    match kind {
        Kind::Ros1Log | Kind::Ros2Log => out.push(Event {
            t,
            level: level(kind, level_of(v)),
            text: format!("{topic} [{}] {}", text(v, "name"), text(v, "msg")),
        }),
        Kind::Diagnostics => {
            let statuses = match v.get("status") {
                Some(Value::Array(s)) => s.as_slice(),
                _ => &[],
            };
            for s in statuses {
                out.push(Event {
                    t,
                    level: level(kind, level_of(s)),
                    text: format!("{topic} [{}] {}", text(s, "name"), text(s, "message")),
                });
            }
        }
    }
}

/// The text messages of the log's text channels (in `channels`) in
/// `from..until` (ns on the log's clock), in time order, at most
/// [`MAX_TEXT_MESSAGES`]; a message that does not decode is a problem.
pub(crate) fn events(
    log: &Log<'_>,
    channels: &[Channel],
    (from, until): (Option<i64>, Option<i64>),
    problems: &mut Vec<Problem>,
) -> Vec<Event> {
    let topics: Vec<&str> = channels
        .iter()
        .filter(|c| is_text(&c.type_name))
        .map(|c| c.topic.as_str())
        .collect();
    if topics.is_empty() {
        return Vec::new();
    }
    let kinds: std::collections::HashMap<logcore::ChannelId, (Kind, String)> = match log.channels()
    {
        Ok(chans) => chans
            .into_iter()
            .filter(|c| topics.contains(&c.topic.as_str()))
            .filter_map(|c| kind(&c.type_name).map(|k| (c.id, (k, c.topic))))
            .collect(),
        Err(e) => {
            problems.push(Problem {
                t: None,
                text: format!("text topics: {e}"),
            });
            return Vec::new();
        }
    };
    let mut filter = MessageFilter::all().channels(kinds.keys().copied());
    filter.start = from.map(Timestamp);
    filter.end = until.map(Timestamp);
    let messages = match log.messages(&filter) {
        Ok(m) => m,
        Err(e) => {
            problems.push(Problem {
                t: None,
                text: format!("text topics: {e}"),
            });
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    let mut left_out = 0u64;
    let mut failed = 0u64;
    for m in messages {
        // Damage is listed by the report's own pass.
        let Ok(m) = m else { continue };
        let Some((kind, topic)) = kinds.get(&m.channel) else {
            continue;
        };
        if out.len() >= MAX_TEXT_MESSAGES {
            left_out += 1;
            continue;
        }
        let t = m.log_time.as_nanos();
        match log.decode(&m) {
            Ok(v) => events_of(*kind, topic, t, &v, &mut out),
            Err(e) => {
                failed += 1;
                if failed <= 20 {
                    problems.push(Problem {
                        t: Some(t),
                        text: format!("{topic} at {}: {e}", m.log_time),
                    });
                }
            }
        }
    }
    out.truncate(MAX_TEXT_MESSAGES);
    out.sort_by_key(|e| e.t);
    if left_out > 0 {
        problems.push(Problem {
            t: None,
            text: format!(
                "text topics: the first {MAX_TEXT_MESSAGES} messages listed, {left_out} more left out"
            ),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_by_kind() {
        assert_eq!(level(Kind::Ros1Log, 4), "WARNING");
        assert_eq!(level(Kind::Ros2Log, 40), "ERROR");
        assert_eq!(level(Kind::Diagnostics, 3), "STALE");
        assert_eq!(level(Kind::Ros1Log, 3), "level 3");
        assert!(is_text("rosgraph_msgs/Log"));
        assert!(is_text("std_msgs/String, rcl_interfaces/msg/Log"));
        assert!(!is_text("std_msgs/String"));
    }

    #[test]
    fn ros2_log_and_diagnostics_as_events() {
        let s = |t: &str| Value::String(t.into());
        // rcl_interfaces/msg/Log: level a uint8, 30 WARN.
        let log = Value::record([
            ("level", Value::U64(30)),
            ("name", s("talker")),
            ("msg", s("low battery")),
            ("line", Value::U64(42)),
        ]);
        let mut out = Vec::new();
        events_of(Kind::Ros2Log, "/rosout", 7, &log, &mut out);
        // diagnostic_msgs/DiagnosticArray: one event per status.
        let status = |level: u64, name: &str, message: &str| {
            Value::record([
                ("level", Value::U64(level)),
                ("name", s(name)),
                ("message", s(message)),
                ("hardware_id", s("")),
            ])
        };
        let diag = Value::record([(
            "status",
            Value::Array(vec![status(0, "cpu", "ok"), status(2, "disk", "full")]),
        )]);
        events_of(Kind::Diagnostics, "/diagnostics", 9, &diag, &mut out);
        let got: Vec<(i64, &str, &str)> = out
            .iter()
            .map(|e| (e.t, e.level.as_str(), e.text.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (7, "WARNING", "/rosout [talker] low battery"),
                (9, "OK", "/diagnostics [cpu] ok"),
                (9, "ERROR", "/diagnostics [disk] full"),
            ]
        );
    }
}
