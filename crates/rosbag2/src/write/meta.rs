//! QoS profiles in the form `metadata.yaml` version 9 writes them
//! (policies by name); the document itself is written by
//! [`Metadata::to_yaml`](crate::Metadata::to_yaml).

use crate::metadata::{QosProfile, render_qos};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::{FileMetadata, Metadata, QosTime, TopicMetadata};

    #[test]
    fn strings_read_back() {
        for s in [
            "",
            "/a/b",
            "1",
            "1.5",
            "true",
            "y",
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
            " lead",
            "---",
            "a\n---\nb",
        ] {
            let m = Metadata {
                version: VERSION,
                ros_distro: s.to_string(),
                custom_data: [(s.to_string(), s.to_string())].into(),
                ..Metadata::default()
            };
            let text = m.to_yaml();
            let r = Metadata::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(r.ros_distro, s, "{text}");
            assert_eq!(r.custom_data, m.custom_data, "{text}");
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
        let m = Metadata {
            version: VERSION,
            storage_identifier: "sqlite3".into(),
            relative_file_paths: vec!["b_0.db3".into()],
            duration: 10,
            starting_time: 5,
            message_count: 2,
            topics: vec![TopicMetadata {
                name: "/chatter".into(),
                type_name: "std_msgs/msg/String".into(),
                serialization_format: "cdr".into(),
                offered_qos_profiles: String::new(),
                qos_profiles: vec![QosProfile {
                    history: "keep_last".into(),
                    depth: 7,
                    ..QosProfile::default()
                }],
                type_description_hash: String::new(),
                message_count: 2,
            }],
            files: vec![FileMetadata {
                path: "b_0.db3".into(),
                starting_time: 5,
                duration: 10,
                message_count: 2,
            }],
            custom_data: [("who".to_string(), "me: you".to_string())].into(),
            ros_distro: "jazzy".into(),
            ..Metadata::default()
        };
        for text in [m.to_yaml(), m.to_yaml_inline()] {
            let mut r = Metadata::parse(&text).unwrap();
            // The text form is rendered from the list.
            assert_eq!(
                r.topics[0].offered_qos_profiles,
                render_qos(&r.topics[0].qos_profiles)
            );
            r.topics[0].offered_qos_profiles.clear();
            assert_eq!(r, m, "{text}");
        }
    }

    #[test]
    fn the_text_is_as_before() {
        let m = Metadata {
            version: VERSION,
            storage_identifier: "sqlite3".into(),
            relative_file_paths: vec!["b_0.db3".into()],
            duration: 10,
            starting_time: 5,
            message_count: 2,
            topics: vec![TopicMetadata {
                name: "/chatter".into(),
                type_name: "std_msgs/msg/String".into(),
                serialization_format: "cdr".into(),
                qos_profiles: vec![QosProfile {
                    history: "keep_last".into(),
                    depth: 7,
                    ..QosProfile::default()
                }],
                message_count: 2,
                ..TopicMetadata::default()
            }],
            files: vec![FileMetadata {
                path: "b_0.db3".into(),
                starting_time: 5,
                duration: 10,
                message_count: 2,
            }],
            custom_data: [("who".to_string(), "me: you".to_string())].into(),
            ros_distro: "jazzy".into(),
            ..Metadata::default()
        };
        // The text the hand-written emitter wrote before, byte for byte.
        let inline = concat!(
            "version: 9\n",
            "storage_identifier: sqlite3\n",
            "duration:\n",
            "  nanoseconds: 10\n",
            "starting_time:\n",
            "  nanoseconds_since_epoch: 5\n",
            "message_count: 2\n",
            "topics_with_message_count:\n",
            "  - topic_metadata:\n",
            "      name: /chatter\n",
            "      type: std_msgs/msg/String\n",
            "      serialization_format: cdr\n",
            "      offered_qos_profiles:\n",
            "        - history: keep_last\n",
            "          depth: 7\n",
            "          reliability: \"\"\n",
            "          durability: \"\"\n",
            "          deadline:\n",
            "            sec: 0\n",
            "            nsec: 0\n",
            "          lifespan:\n",
            "            sec: 0\n",
            "            nsec: 0\n",
            "          liveliness: \"\"\n",
            "          liveliness_lease_duration:\n",
            "            sec: 0\n",
            "            nsec: 0\n",
            "          avoid_ros_namespace_conventions: false\n",
            "      type_description_hash: \"\"\n",
            "    message_count: 2\n",
            "compression_format: \"\"\n",
            "compression_mode: \"\"\n",
            "relative_file_paths:\n",
            "  - b_0.db3\n",
            "files:\n",
            "  - path: b_0.db3\n",
            "    starting_time:\n",
            "      nanoseconds_since_epoch: 5\n",
            "    duration:\n",
            "      nanoseconds: 10\n",
            "    message_count: 2\n",
            "custom_data:\n",
            "  who: \"me: you\"\n",
            "ros_distro: jazzy",
        );
        assert_eq!(m.to_yaml_inline(), inline);
        let indented: String = inline.lines().map(|l| format!("  {l}\n")).collect();
        assert_eq!(
            m.to_yaml(),
            format!("rosbag2_bagfile_information:\n{indented}")
        );
        let qos = qos_text(&[QosProfile {
            history: "1".into(),
            depth: 10,
            reliability: "reliable".into(),
            durability: "volatile".into(),
            liveliness: "automatic".into(),
            deadline: QosTime {
                sec: 9223372036,
                nsec: 854775807,
            },
            ..QosProfile::default()
        }]);
        assert_eq!(
            qos,
            concat!(
                "- history: keep_last\n",
                "  depth: 10\n",
                "  reliability: reliable\n",
                "  durability: volatile\n",
                "  deadline:\n",
                "    sec: 9223372036\n",
                "    nsec: 854775807\n",
                "  lifespan:\n",
                "    sec: 0\n",
                "    nsec: 0\n",
                "  liveliness: automatic\n",
                "  liveliness_lease_duration:\n",
                "    sec: 0\n",
                "    nsec: 0\n",
                "  avoid_ros_namespace_conventions: false",
            )
        );
    }
}
