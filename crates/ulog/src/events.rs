//! PX4 events (the `event` topic), decoded with the event metadata a log
//! embeds (`M metadata_events`: xz-compressed JSON in the libevents format),
//! producing the lines pyulog 1.3.0's `ulog_messages` prints for them.

use std::io::Write;

use serde_json::{Map, Value as Json};

use crate::read::ULog;
use crate::records::InfoValue;
use crate::sample::{Scalar, Subscription};
use crate::text::py_float;

/// Largest decompressed metadata accepted (real files hold about 100 KB).
const MAX_METADATA: usize = 64 << 20;

/// One event as a `(timestamp µs, level name, message)` line.
pub type EventLine = (u64, &'static str, String);

/// Why no events could be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventsError {
    /// The log has event samples but no (usable) embedded metadata.
    NoMetadata,
    /// The metadata could not be decompressed or parsed.
    BadMetadata(String),
}

struct Limited(Vec<u8>);

impl Write for Limited {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0.len() + buf.len() > MAX_METADATA {
            return Err(std::io::Error::other("event metadata larger than 64 MiB"));
        }
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn level_name(l: u8) -> &'static str {
    match l {
        0 => "EMERGENCY",
        1 => "ALERT",
        2 => "CRITICAL",
        3 => "ERROR",
        4 => "WARNING",
        5 => "NOTICE",
        6 => "INFO",
        7 => "DEBUG",
        8 => "PROTOCOL",
        9 => "DISABLED",
        _ => "UNKNOWN",
    }
}

/// The embedded metadata document, when the log has one pyulog would use.
fn metadata(log: &ULog<'_>) -> Result<Json, EventsError> {
    let hash = log
        .info_value("metadata_events_sha256")
        .and_then(InfoValue::as_str)
        .ok_or(EventsError::NoMetadata)?;
    if hash.chars().count() > 64 || hash.is_empty() || !hash.chars().all(char::is_alphanumeric) {
        return Err(EventsError::NoMetadata);
    }
    let group = log
        .multi_info
        .get("metadata_events")
        .and_then(|m| m.groups.first())
        .ok_or(EventsError::NoMetadata)?;
    let mut packed = Vec::new();
    for v in group {
        match v {
            InfoValue::Bytes(b) => packed.extend_from_slice(b),
            InfoValue::String(s) => packed.extend_from_slice(s.as_bytes()),
            _ => {
                return Err(EventsError::BadMetadata(
                    "metadata chunks are not bytes".into(),
                ));
            }
        }
    }
    let mut out = Limited(Vec::new());
    lzma_rs::xz_decompress(&mut &packed[..], &mut out)
        .map_err(|e| EventsError::BadMetadata(format!("xz: {e}")))?;
    let doc: Json = serde_json::from_slice(&out.0)
        .map_err(|e| EventsError::BadMetadata(format!("json: {e}")))?;
    if doc.get("version").and_then(Json::as_i64).unwrap_or(0) < 1 {
        return Err(EventsError::BadMetadata(
            "unexpected metadata version".into(),
        ));
    }
    Ok(doc)
}

/// Whether the log has an `event` topic with samples.
pub fn has_events(log: &ULog<'_>) -> bool {
    log.subscription("event", 0)
        .is_some_and(|s| !s.samples.is_empty() && s.field("id").is_some())
}

/// Decodes the `event` topic as pyulog's `PX4Events.get_logged_events`
/// does (profile `dev`, only the `default` group, levels below 8).
pub fn logged_events(log: &ULog<'_>) -> Result<Vec<EventLine>, EventsError> {
    let Some(sub) = log
        .subscription("event", 0)
        .filter(|s| !s.samples.is_empty())
    else {
        return Ok(Vec::new());
    };
    let doc = metadata(log)?;
    Ok(decode_all(sub, &doc))
}

fn decode_all(sub: &Subscription<'_>, doc: &Json) -> Vec<EventLine> {
    let mut out = Vec::new();
    let (Some(id_f), Some(lvl_f)) = (sub.field("id"), sub.field("log_levels")) else {
        return out;
    };
    let ts_f = sub.field("timestamp");
    let args_f: Vec<_> = (0..)
        .map_while(|i| sub.field(&format!("arguments[{i}]")))
        .collect();
    let empty = Map::new();
    let components = doc
        .get("components")
        .and_then(Json::as_object)
        .unwrap_or(&empty);
    for s in &sub.samples {
        let uint = |f: &crate::FieldRef| match f.get(&s) {
            Some(Scalar::UInt(v)) => v,
            Some(Scalar::Int(v)) => v as u64,
            _ => 0,
        };
        let id = uint(&id_f);
        let level = (uint(&lvl_f) >> 4 & 0xf) as u8;
        if level >= 8 {
            continue;
        }
        let args: Vec<u8> = args_f.iter().map(|f| uint(f) as u8).collect();
        let t = ts_f.as_ref().map_or(0, uint);
        match find_event(components, id) {
            None => out.push((
                t,
                level_name(level),
                format!("[Unknown event with ID {id}]"),
            )),
            Some((namespace, group, event)) => {
                if group != "default" {
                    continue;
                }
                match message(doc, namespace, event, &args) {
                    Some(m) => out.push((t, level_name(level), m)),
                    // pyulog stops at the first event it cannot format.
                    None => return out,
                }
            }
        }
    }
    out
}

fn find_event(components: &Map<String, Json>, id: u64) -> Option<(&str, &str, &Json)> {
    let comp_id = (id >> 24) & 0xff;
    let sub_id = id & 0xff_ffff;
    let comp = components
        .iter()
        .find(|(k, _)| k.trim().parse::<u64>().ok() == Some(comp_id))?
        .1;
    let namespace = comp.get("namespace").and_then(Json::as_str).unwrap_or("");
    let groups = comp.get("event_groups").and_then(Json::as_object)?;
    for (name, group) in groups {
        if let Some(events) = group.get("events").and_then(Json::as_object) {
            if let Some((_, e)) = events
                .iter()
                .find(|(k, _)| k.trim().parse::<u64>().ok() == Some(sub_id))
            {
                return Some((namespace, name, e));
            }
        }
    }
    None
}

/// A decoded argument: a number, or an enum with its definition.
enum Arg<'j> {
    Int(i64, Option<&'j Json>),
    UInt(u64, Option<&'j Json>),
    Float(f64),
}

fn base_size(t: &str) -> Option<usize> {
    Some(match t {
        "uint8_t" | "int8_t" => 1,
        "uint16_t" | "int16_t" => 2,
        "uint32_t" | "int32_t" | "float" => 4,
        "uint64_t" | "int64_t" => 8,
        _ => return None,
    })
}

fn read_arg<'j>(t: &str, enum_def: Option<&'j Json>, bytes: &[u8]) -> Option<Arg<'j>> {
    let mut w = [0u8; 8];
    w[..bytes.len()].copy_from_slice(bytes);
    let u = u64::from_le_bytes(w);
    Some(match t {
        "uint8_t" | "uint16_t" | "uint32_t" | "uint64_t" => Arg::UInt(u, enum_def),
        "int8_t" => Arg::Int(i64::from(u as u8 as i8), enum_def),
        "int16_t" => Arg::Int(i64::from(u as u16 as i16), enum_def),
        "int32_t" => Arg::Int(i64::from(u as u32 as i32), enum_def),
        "int64_t" => Arg::Int(u as i64, enum_def),
        "float" => Arg::Float(f64::from(f32::from_bits(u as u32))),
        _ => return None,
    })
}

fn enum_text(value: i128, def: &Json) -> String {
    let entries = def.get("entries").and_then(Json::as_object);
    let find = |v: i128| {
        entries.and_then(|e| {
            e.iter()
                .find(|(k, _)| k.trim().parse::<i128>().ok() == Some(v))
                .and_then(|(_, x)| x.get("description").and_then(Json::as_str))
        })
    };
    if def
        .get("is_bitfield")
        .and_then(Json::as_bool)
        .unwrap_or(false)
    {
        let size = def
            .get("type")
            .and_then(Json::as_str)
            .and_then(base_size)
            .unwrap_or(0);
        let sep = def.get("separator").and_then(Json::as_str).unwrap_or("|");
        let mut out = String::new();
        let mut had = false;
        for i in 0..size * 8 {
            let bit = 1i128 << i;
            if value & bit != 0 {
                if had {
                    out.push_str(sep);
                }
                match find(bit) {
                    Some(d) => out.push_str(d),
                    None => out.push_str(&format!("(unknown: {value})")),
                }
                had = true;
            }
        }
        return out;
    }
    find(value).map_or_else(|| format!("(unknown: {value})"), str::to_string)
}

/// The event's message with its arguments filled in, or `None` where
/// pyulog's formatting raises.
fn message(doc: &Json, namespace: &str, event: &Json, args: &[u8]) -> Option<String> {
    let mut values = Vec::new();
    let mut offset = 0usize;
    if let Some(list) = event.get("arguments").and_then(Json::as_array) {
        for a in list {
            let ty = a.get("type").and_then(Json::as_str)?;
            let (base, def) = if base_size(ty).is_some() {
                (ty, None)
            } else {
                let full = if ty.contains("::") {
                    ty.to_string()
                } else {
                    format!("{namespace}::{ty}")
                };
                let def = enum_def(doc, &full)?;
                (def.get("type").and_then(Json::as_str)?, Some(def))
            };
            let size = base_size(base)?;
            let bytes = args.get(offset..offset + size)?;
            values.push(read_arg(base, def, bytes)?);
            offset += size;
        }
    }
    let text = event.get("message").and_then(Json::as_str)?;
    process(text, &values)
}

fn enum_def<'j>(doc: &'j Json, full: &str) -> Option<&'j Json> {
    let (ns, name) = full.rsplit_once("::")?;
    let comps = doc.get("components")?.as_object()?;
    // Later components win, as in pyulog's dictionary of enums.
    comps
        .values()
        .filter(|c| c.get("namespace").and_then(Json::as_str) == Some(ns))
        .filter_map(|c| c.get("enums")?.get(name))
        .next_back()
}

fn display(v: &Arg<'_>, precision: Option<usize>) -> Option<String> {
    let num = |x: f64| precision.map(|p| format!("{x:.p$}"));
    Some(match v {
        Arg::Float(f) => num(*f).unwrap_or_else(|| py_float(*f)),
        Arg::Int(i, None) => num(*i as f64).unwrap_or_else(|| i.to_string()),
        Arg::UInt(u, None) => num(*u as f64).unwrap_or_else(|| u.to_string()),
        Arg::Int(i, Some(d)) => {
            if precision.is_some() {
                return None;
            }
            enum_text(i128::from(*i), d)
        }
        Arg::UInt(u, Some(d)) => {
            if precision.is_some() {
                return None;
            }
            enum_text(i128::from(*u), d)
        }
    })
}

/// libevents message processing with pyulog's identity formatters and the
/// `dev` profile: `\x` escapes, `<profile>`, `<a>`, `<param>` tags (other
/// tags dropped with their content), `{N[:.D][unit]}` arguments; trimmed.
fn process(text: &str, values: &[Arg<'_>]) -> Option<String> {
    let mut msg: Vec<char> = text.chars().collect();
    let mut i = 0usize;
    while i < msg.len() {
        match msg[i] {
            '\\' => {
                msg.remove(i);
                i += 1;
            }
            '<' => {
                let Some((tag, attr, content_start)) = open_tag(&msg[i..]) else {
                    i += 1;
                    continue;
                };
                let close: Vec<char> = format!("</{tag}>").chars().collect();
                let from = i + content_start;
                let Some(end) = find(&msg, &close, from) else {
                    i += 1;
                    continue;
                };
                let mut content: Vec<char> = msg[from..end].to_vec();
                let mut skip = 0;
                match tag.as_str() {
                    "profile" => {
                        let p = attr.unwrap_or_default();
                        let remove = match p.strip_prefix('!') {
                            Some(rest) => rest == "dev",
                            None => p != "dev",
                        };
                        if remove {
                            content.clear();
                        }
                    }
                    "a" | "param" => skip = content.len(),
                    _ => content.clear(),
                }
                let tail: Vec<char> = msg[end + close.len()..].to_vec();
                msg.truncate(i);
                msg.extend(content);
                msg.extend(tail);
                i += skip;
            }
            '{' => {
                let Some(end) = msg[i..].iter().position(|&c| c == '}').map(|p| p + i) else {
                    i += 1;
                    continue;
                };
                let arg: String = msg[i + 1..end].iter().collect();
                let Some((idx, precision, unit)) = parse_arg(&arg) else {
                    i += 1;
                    continue;
                };
                if idx == 0 || idx > values.len() {
                    i += 1;
                    continue;
                }
                let mut s = display(&values[idx - 1], precision)?;
                if let Some(u) = unit {
                    s.push(' ');
                    s.push_str(if u == "m_v" { "m" } else { u });
                }
                let tail: Vec<char> = msg[end + 1..].to_vec();
                msg.truncate(i);
                let n = s.chars().count();
                msg.extend(s.chars());
                msg.extend(tail);
                i += n;
            }
            _ => i += 1,
        }
    }
    let s: String = msg.into_iter().collect();
    Some(s.trim().to_string())
}

fn find(hay: &[char], needle: &[char], from: usize) -> Option<usize> {
    if from > hay.len() {
        return None;
    }
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// `<name( attr="value")?>` followed by at least one character: the tag
/// name, the attribute value, and where the content starts.
fn open_tag(s: &[char]) -> Option<(String, Option<String>, usize)> {
    let mut i = 1;
    let name_len = s[i..].iter().take_while(|c| c.is_ascii_lowercase()).count();
    if name_len == 0 {
        return None;
    }
    let name: String = s[i..i + name_len].iter().collect();
    i += name_len;
    let mut attr = None;
    if s.get(i) == Some(&' ') {
        let a_len = s[i + 1..]
            .iter()
            .take_while(|c| c.is_ascii_lowercase())
            .count();
        let q = i + 1 + a_len;
        if a_len > 0 && s.get(q) == Some(&'=') && s.get(q + 1) == Some(&'"') {
            let v_len = s[q + 2..].iter().take_while(|&&c| c != '"').count();
            if s.get(q + 2 + v_len) == Some(&'"') {
                attr = Some(s[q + 2..q + 2 + v_len].iter().collect());
                i = q + 3 + v_len;
            }
        }
    }
    if s.get(i) != Some(&'>') || i + 1 >= s.len() {
        return None;
    }
    Some((name, attr, i + 1))
}

/// `N`, `N:.D`, `N:`, with an optional unit `m`, `m_v`, `m/s`, `m^2`, `C`.
fn parse_arg(arg: &str) -> Option<(usize, Option<usize>, Option<&'static str>)> {
    let digits = arg.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let idx: usize = arg[..digits].parse().ok()?;
    let mut rest = &arg[digits..];
    let mut precision = None;
    if let Some(r) = rest.strip_prefix(':') {
        rest = r;
        if let Some(r) = rest.strip_prefix('.') {
            let d = r.chars().take_while(char::is_ascii_digit).count();
            if d > 0 {
                precision = Some(r[..d].parse().ok()?);
                rest = &r[d..];
            } else {
                // `:.` without digits: the optional group does not match.
                rest = &arg[digits + 1..];
            }
        }
    }
    let unit = match rest {
        "" => None,
        "m" => Some("m"),
        "m_v" => Some("m_v"),
        "m/s" => Some("m/s"),
        "m^2" => Some("m^2"),
        "C" => Some("C"),
        _ => return None,
    };
    Some((idx, precision, unit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_formatting() {
        let v = [Arg::Float(2.5), Arg::UInt(491, None)];
        assert_eq!(
            process("Using default takeoff altitude: {1:.2m}", &v).unwrap(),
            "Using default takeoff altitude: 2.50 m"
        );
        assert_eq!(process("at {2m} \\{x\\}", &v).unwrap(), "at 491 m {x}");
        assert_eq!(
            process("a<profile name=\"dev\">b</profile><profile name=\"normal\">c</profile><x>d</x> <param>P</param>", &v).unwrap(),
            "ab P"
        );
        assert_eq!(process("{3} {1}", &v).unwrap(), "{3} 2.5");
        assert_eq!(parse_arg("1:.1m_v"), Some((1, Some(1), Some("m_v"))));
        assert_eq!(parse_arg("x"), None);
    }
}
