//! `metadata.yaml` as rosbag2 jazzy writes it (version 9), and QoS
//! profiles in its form (policies by name).

use std::fmt::Write as _;

use crate::metadata::{QosProfile, QosTime, render_qos};

/// What the metadata says about one topic.
pub(crate) struct TopicMeta<'a> {
    pub(crate) name: &'a str,
    pub(crate) type_name: &'a str,
    pub(crate) serialization_format: &'a str,
    pub(crate) qos: &'a [QosProfile],
    pub(crate) type_description_hash: &'a str,
    pub(crate) message_count: u64,
}

/// One storage file of `files`.
pub(crate) struct FileMeta {
    pub(crate) path: String,
    pub(crate) starting_time: i64,
    pub(crate) duration: i64,
    pub(crate) message_count: u64,
}

/// The whole document's fields.
pub(crate) struct BagMeta<'a> {
    pub(crate) storage_identifier: &'a str,
    pub(crate) starting_time: i64,
    pub(crate) duration: i64,
    pub(crate) message_count: u64,
    pub(crate) topics: Vec<TopicMeta<'a>>,
    pub(crate) compression_format: &'a str,
    pub(crate) compression_mode: &'a str,
    pub(crate) files: &'a [FileMeta],
    pub(crate) custom_data: &'a std::collections::BTreeMap<String, String>,
    pub(crate) ros_distro: &'a str,
}

/// The metadata version written.
pub(crate) const VERSION: u32 = 9;

/// A policy as version 9 names it: the numbers of versions up to 8
/// (rmw's enums) become names, names are kept (lower case).
fn policy_name(kind: &str, value: &str) -> String {
    let v = value.trim();
    let Ok(n) = v.parse::<u32>() else {
        return v.to_ascii_lowercase();
    };
    let names: &[&str] = match kind {
        "history" => &["system_default", "keep_last", "keep_all", "unknown"],
        "reliability" => &[
            "system_default",
            "reliable",
            "best_effort",
            "unknown",
            "best_available",
        ],
        "durability" => &[
            "system_default",
            "transient_local",
            "volatile",
            "unknown",
            "best_available",
        ],
        _ => &[
            "system_default",
            "automatic",
            "manual_by_node",
            "manual_by_topic",
            "unknown",
            "best_available",
        ],
    };
    names.get(n as usize).map_or("unknown", |s| s).to_string()
}

/// The profiles with their policies named as version 9 writes them.
pub(crate) fn named_qos(profiles: &[QosProfile]) -> Vec<QosProfile> {
    profiles
        .iter()
        .map(|p| QosProfile {
            history: policy_name("history", &p.history),
            reliability: policy_name("reliability", &p.reliability),
            durability: policy_name("durability", &p.durability),
            liveliness: policy_name("liveliness", &p.liveliness),
            ..p.clone()
        })
        .collect()
}

/// The profiles as the YAML text the storage files keep (the `.db3`
/// `topics` table, the MCAP channel metadata), policies named.
pub(crate) fn qos_text(profiles: &[QosProfile]) -> String {
    render_qos(&named_qos(profiles))
}

/// A YAML scalar: plain when it cannot be read as anything else, else
/// double-quoted with escapes.
pub(crate) fn scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'_' | b'.' | b'-'))
        && !s.starts_with(['-', '.'])
        && s.parse::<f64>().is_err()
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n" | "nan" | "inf"
        )
        && !s
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'_' || b == b'.');
    if plain {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn time(out: &mut String, pad: &str, key: &str, t: &QosTime) {
    let _ = writeln!(
        out,
        "{pad}{key}:\n{pad}  sec: {}\n{pad}  nsec: {}",
        t.sec, t.nsec
    );
}

fn qos_list(out: &mut String, pad: &str, profiles: &[QosProfile]) {
    if profiles.is_empty() {
        out.push_str(" []\n");
        return;
    }
    out.push('\n');
    for p in named_qos(profiles) {
        let _ = writeln!(out, "{pad}- history: {}", scalar(&p.history));
        let pad2 = format!("{pad}  ");
        let _ = writeln!(out, "{pad2}depth: {}", p.depth);
        let _ = writeln!(out, "{pad2}reliability: {}", scalar(&p.reliability));
        let _ = writeln!(out, "{pad2}durability: {}", scalar(&p.durability));
        time(out, &pad2, "deadline", &p.deadline);
        time(out, &pad2, "lifespan", &p.lifespan);
        let _ = writeln!(out, "{pad2}liveliness: {}", scalar(&p.liveliness));
        time(
            out,
            &pad2,
            "liveliness_lease_duration",
            &p.liveliness_lease_duration,
        );
        let _ = writeln!(
            out,
            "{pad2}avoid_ros_namespace_conventions: {}",
            p.avoid_ros_namespace_conventions
        );
    }
}

/// The fields, each line starting with `pad`.
fn body(m: &BagMeta<'_>, pad: &str) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{pad}version: {VERSION}");
    let _ = writeln!(
        o,
        "{pad}storage_identifier: {}",
        scalar(m.storage_identifier)
    );
    let _ = writeln!(o, "{pad}duration:\n{pad}  nanoseconds: {}", m.duration);
    let _ = writeln!(
        o,
        "{pad}starting_time:\n{pad}  nanoseconds_since_epoch: {}",
        m.starting_time
    );
    let _ = writeln!(o, "{pad}message_count: {}", m.message_count);
    if m.topics.is_empty() {
        let _ = writeln!(o, "{pad}topics_with_message_count: []");
    } else {
        let _ = writeln!(o, "{pad}topics_with_message_count:");
        for t in &m.topics {
            let _ = writeln!(o, "{pad}  - topic_metadata:");
            let p = format!("{pad}      ");
            let _ = writeln!(o, "{p}name: {}", scalar(t.name));
            let _ = writeln!(o, "{p}type: {}", scalar(t.type_name));
            let _ = writeln!(
                o,
                "{p}serialization_format: {}",
                scalar(t.serialization_format)
            );
            let _ = write!(o, "{p}offered_qos_profiles:");
            qos_list(&mut o, &format!("{p}  "), t.qos);
            let _ = writeln!(
                o,
                "{p}type_description_hash: {}",
                scalar(t.type_description_hash)
            );
            let _ = writeln!(o, "{pad}    message_count: {}", t.message_count);
        }
    }
    let _ = writeln!(
        o,
        "{pad}compression_format: {}",
        scalar(m.compression_format)
    );
    let _ = writeln!(o, "{pad}compression_mode: {}", scalar(m.compression_mode));
    if m.files.is_empty() {
        let _ = writeln!(o, "{pad}relative_file_paths: []\n{pad}files: []");
    } else {
        let _ = writeln!(o, "{pad}relative_file_paths:");
        for f in m.files {
            let _ = writeln!(o, "{pad}  - {}", scalar(&f.path));
        }
        let _ = writeln!(o, "{pad}files:");
        for f in m.files {
            let _ = writeln!(o, "{pad}  - path: {}", scalar(&f.path));
            let _ = writeln!(
                o,
                "{pad}    starting_time:\n{pad}      nanoseconds_since_epoch: {}",
                f.starting_time
            );
            let _ = writeln!(
                o,
                "{pad}    duration:\n{pad}      nanoseconds: {}",
                f.duration
            );
            let _ = writeln!(o, "{pad}    message_count: {}", f.message_count);
        }
    }
    if m.custom_data.is_empty() {
        let _ = writeln!(o, "{pad}custom_data: ~");
    } else {
        let _ = writeln!(o, "{pad}custom_data:");
        for (k, v) in m.custom_data {
            let _ = writeln!(o, "{pad}  {}: {}", scalar(k), scalar(v));
        }
    }
    let _ = writeln!(o, "{pad}ros_distro: {}", scalar(m.ros_distro));
    o
}

/// `metadata.yaml`: the fields under `rosbag2_bagfile_information`.
pub(crate) fn render(m: &BagMeta<'_>) -> String {
    format!("rosbag2_bagfile_information:\n{}", body(m, "  "))
}

/// The copy a `.db3` keeps in its `metadata` table: the fields at the
/// top level.
pub(crate) fn render_inline(m: &BagMeta<'_>) -> String {
    body(m, "").trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::Metadata;

    #[test]
    fn scalars_read_back() {
        for s in [
            "",
            "/a/b",
            "1",
            "1.5",
            "true",
            "~",
            "null",
            "a: b",
            "- x",
            "#c",
            "q\"\\\n\t",
            "é",
            "RIHS01_ab",
            "0x1f",
            "1e3",
            ".inf",
        ] {
            let doc = format!("k: {}\n", scalar(s));
            let y = crate::yaml::parse(&doc).unwrap();
            assert_eq!(y.get("k").and_then(|v| v.as_str()), Some(s), "{doc}");
        }
    }

    #[test]
    fn numbered_policies_are_named() {
        let q = QosProfile {
            history: "3".into(),
            reliability: "1".into(),
            durability: "2".into(),
            liveliness: "1".into(),
            depth: 4,
            ..QosProfile::default()
        };
        let n = named_qos(&[q]);
        assert_eq!(
            (
                n[0].history.as_str(),
                n[0].reliability.as_str(),
                n[0].durability.as_str(),
                n[0].liveliness.as_str()
            ),
            ("unknown", "reliable", "volatile", "automatic")
        );
    }

    #[test]
    fn the_document_reads_back() {
        let custom = [("who".to_string(), "me: you".to_string())].into();
        let qos = [QosProfile {
            history: "keep_last".into(),
            depth: 7,
            ..QosProfile::default()
        }];
        let files = [FileMeta {
            path: "b_0.db3".into(),
            starting_time: 5,
            duration: 10,
            message_count: 2,
        }];
        let m = BagMeta {
            storage_identifier: "sqlite3",
            starting_time: 5,
            duration: 10,
            message_count: 2,
            topics: vec![TopicMeta {
                name: "/chatter",
                type_name: "std_msgs/msg/String",
                serialization_format: "cdr",
                qos: &qos,
                type_description_hash: "",
                message_count: 2,
            }],
            compression_format: "",
            compression_mode: "",
            files: &files,
            custom_data: &custom,
            ros_distro: "jazzy",
        };
        for text in [render(&m), render_inline(&m)] {
            let r = Metadata::parse(&text).unwrap();
            assert_eq!(r.version, 9);
            assert_eq!(r.topics[0].qos_profiles[0].depth, 7);
            assert_eq!(r.topics[0].message_count, 2);
            assert_eq!(r.custom_data["who"], "me: you");
            assert_eq!(r.files[0].path, "b_0.db3");
            assert_eq!(r.relative_file_paths, ["b_0.db3"]);
        }
    }
}
