//! [`Metadata`]: the typed content of a bag's `metadata.yaml`, every
//! rosbag2 metadata version from 1 to 9.
//!
//! The document is `rosbag2_bagfile_information:` followed by the fields
//! (the copy a `.db3` of version 8 and later keeps in its `metadata`
//! table has the fields at the top level; both forms are read). What
//! each version added:
//!
//! | version | fields |
//! |---|---|
//! | 1 | `version`, `storage_identifier`, `relative_file_paths`, `duration`, `starting_time`, `message_count`, `topics_with_message_count` (name, type, serialization_format) |
//! | 2, 3 | `compression_format`, `compression_mode`; topics' `offered_qos_profiles` (YAML text) |
//! | 5 | `files` (path, starting_time, duration, message_count per storage file) |
//! | 6 | `custom_data` |
//! | 7 | topics' `type_description_hash` |
//! | 8 | `ros_distro` |
//! | 9 | `offered_qos_profiles` as a YAML list, policies by name |
//!
//! Missing fields take their empty value, so an older version reads the
//! same way as a newer one without them.

use std::collections::BTreeMap;

use saphyr::{Scalar, ScalarStyle, Yaml};

pub use crate::yaml::YamlError;
use crate::yaml::{self, Node};

/// A time as the metadata writes it: integer nanoseconds.
pub type Nanos = i64;

/// A `sec`/`nsec` pair of a QoS profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QosTime {
    /// Seconds.
    pub sec: i64,
    /// Nanoseconds.
    pub nsec: i64,
}

/// One offered QoS profile of a topic. Policies are kept as written:
/// a number up to version 8 (`history: 3`), a name in version 9
/// (`history: keep_last`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct QosProfile {
    /// History policy.
    pub history: String,
    /// History depth.
    pub depth: u64,
    /// Reliability policy.
    pub reliability: String,
    /// Durability policy.
    pub durability: String,
    /// Deadline.
    pub deadline: QosTime,
    /// Lifespan.
    pub lifespan: QosTime,
    /// Liveliness policy.
    pub liveliness: String,
    /// Liveliness lease duration.
    pub liveliness_lease_duration: QosTime,
    /// Whether ROS namespace conventions are avoided.
    pub avoid_ros_namespace_conventions: bool,
}

/// One topic of `topics_with_message_count`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TopicMetadata {
    /// Topic name.
    pub name: String,
    /// Message type (`pkg/msg/Type`, or `pkg/Type` in old bags).
    pub type_name: String,
    /// Serialization format (`cdr`).
    pub serialization_format: String,
    /// The offered QoS profiles as the file writes them: YAML text up to
    /// version 8, re-rendered in that form from the list of version 9.
    pub offered_qos_profiles: String,
    /// The offered QoS profiles, parsed.
    pub qos_profiles: Vec<QosProfile>,
    /// The type description hash (`RIHS01_...`; version 7 and later).
    pub type_description_hash: String,
    /// Messages the metadata counts on the topic.
    pub message_count: u64,
}

/// One storage file of `files` (version 5 and later).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileMetadata {
    /// Path relative to the bag folder.
    pub path: String,
    /// Time of the first message.
    pub starting_time: Nanos,
    /// Time from the first message to the last.
    pub duration: Nanos,
    /// Number of messages.
    pub message_count: u64,
}

/// The content of a `metadata.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Metadata {
    /// Metadata version (1 to 9).
    pub version: u32,
    /// Storage plugin (`sqlite3`, `mcap`).
    pub storage_identifier: String,
    /// Storage files, relative to the bag folder, in order.
    pub relative_file_paths: Vec<String>,
    /// Time from the first message to the last.
    pub duration: Nanos,
    /// Time of the first message.
    pub starting_time: Nanos,
    /// Number of messages.
    pub message_count: u64,
    /// The topics.
    pub topics: Vec<TopicMetadata>,
    /// Compression format (`zstd` or empty).
    pub compression_format: String,
    /// Compression mode (`FILE`, `MESSAGE` or empty).
    pub compression_mode: String,
    /// Per-file facts (version 5 and later).
    pub files: Vec<FileMetadata>,
    /// User data (version 6 and later).
    pub custom_data: BTreeMap<String, String>,
    /// ROS distribution that wrote the bag (version 8 and later).
    pub ros_distro: String,
}

/// The newest metadata version this crate knows.
pub const MAX_VERSION: u32 = 9;

/// Why a metadata document cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetadataError {
    /// Not YAML this crate reads.
    #[error(transparent)]
    Yaml(#[from] YamlError),
    /// YAML, but a field is not what the format requires.
    #[error("at `{path}`: expected {expected}, found {found}")]
    Field {
        /// The field, as a path (`rosbag2_bagfile_information.files[0].path`).
        path: String,
        /// What the format requires.
        expected: String,
        /// What is there.
        found: String,
    },
}

fn field_err(path: &str, expected: &str, found: &Node) -> MetadataError {
    MetadataError::Field {
        path: path.to_string(),
        expected: expected.to_string(),
        found: found.describe(),
    }
}

struct Fields<'y> {
    node: &'y Node,
    path: String,
}

impl<'y> Fields<'y> {
    fn new(node: &'y Node, path: impl Into<String>) -> Result<Self, MetadataError> {
        let path = path.into();
        if node.as_map().is_none() {
            return Err(field_err(&path, "a mapping", node));
        }
        Ok(Fields { node, path })
    }

    fn sub(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    fn get(&self, key: &str) -> Option<&'y Node> {
        self.node.get(key).filter(|v| !v.is_null())
    }

    fn string(&self, key: &str) -> Result<String, MetadataError> {
        match self.get(key) {
            None => Ok(String::new()),
            Some(v) => v
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| field_err(&self.sub(key), "a string", v)),
        }
    }

    fn u64(&self, key: &str) -> Result<u64, MetadataError> {
        match self.get(key) {
            None => Ok(0),
            Some(v) => v
                .as_u64()
                .ok_or_else(|| field_err(&self.sub(key), "an unsigned integer", v)),
        }
    }

    fn i64(&self, key: &str) -> Result<i64, MetadataError> {
        match self.get(key) {
            None => Ok(0),
            Some(v) => v
                .as_i64()
                .ok_or_else(|| field_err(&self.sub(key), "an integer", v)),
        }
    }

    /// `key: {inner: N}` (the form of `duration` and `starting_time`).
    fn nested_i64(&self, key: &str, inner: &str) -> Result<i64, MetadataError> {
        match self.get(key) {
            None => Ok(0),
            Some(v) => Fields::new(v, self.sub(key))?.i64(inner),
        }
    }

    fn seq(&self, key: &str) -> Result<&'y [Node], MetadataError> {
        match self.node.get(key) {
            None => Ok(&[]),
            Some(v) => v
                .as_seq()
                .ok_or_else(|| field_err(&self.sub(key), "a sequence", v)),
        }
    }
}

impl Metadata {
    /// Parses the text of a `metadata.yaml` (or of the metadata a `.db3`
    /// keeps, whose fields are at the top level).
    ///
    /// ```
    /// let m = rosbag2::Metadata::parse(
    ///     "rosbag2_bagfile_information:\n  version: 5\n  storage_identifier: sqlite3\n\
    ///      \x20 relative_file_paths:\n    - a_0.db3\n  message_count: 3\n",
    /// )?;
    /// assert_eq!((m.version, m.message_count), (5, 3));
    /// assert_eq!(m.relative_file_paths, ["a_0.db3"]);
    /// # Ok::<(), rosbag2::metadata::MetadataError>(())
    /// ```
    pub fn parse(text: &str) -> Result<Self, MetadataError> {
        let doc = yaml::parse(text)?;
        let (info, path) = match doc.get("rosbag2_bagfile_information") {
            Some(i) => (i, "rosbag2_bagfile_information"),
            None if doc.get("version").is_some() => (&doc, ""),
            None => {
                return Err(field_err(
                    "",
                    "a mapping with the key `rosbag2_bagfile_information`",
                    &doc,
                ));
            }
        };
        Self::from_yaml(info, path)
    }

    fn from_yaml(info: &Node, path: &str) -> Result<Self, MetadataError> {
        let f = Fields::new(info, path)?;
        let version = f.u64("version")?;
        let version = u32::try_from(version)
            .ok()
            .filter(|v| (1..=MAX_VERSION).contains(v))
            .ok_or_else(|| MetadataError::Field {
                path: f.sub("version"),
                expected: format!("a metadata version from 1 to {MAX_VERSION}"),
                found: version.to_string(),
            })?;
        let mut m = Metadata {
            version,
            storage_identifier: f.string("storage_identifier")?,
            duration: f.nested_i64("duration", "nanoseconds")?,
            starting_time: f.nested_i64("starting_time", "nanoseconds_since_epoch")?,
            message_count: f.u64("message_count")?,
            compression_format: f.string("compression_format")?,
            compression_mode: f.string("compression_mode")?,
            ros_distro: f.string("ros_distro")?,
            ..Metadata::default()
        };
        for (i, p) in f.seq("relative_file_paths")?.iter().enumerate() {
            let s = p.as_str().ok_or_else(|| {
                field_err(
                    &format!("{}[{i}]", f.sub("relative_file_paths")),
                    "a path",
                    p,
                )
            })?;
            m.relative_file_paths.push(s.to_string());
        }
        for (i, t) in f.seq("topics_with_message_count")?.iter().enumerate() {
            let at = format!("{}[{i}]", f.sub("topics_with_message_count"));
            let entry = Fields::new(t, at.clone())?;
            let tm = entry
                .get("topic_metadata")
                .ok_or_else(|| field_err(&at, "a `topic_metadata` mapping", t))?;
            let tf = Fields::new(tm, entry.sub("topic_metadata"))?;
            let (offered, qos) = match tf.get("offered_qos_profiles") {
                None => (String::new(), Vec::new()),
                Some(Node::Scalar(s, _)) => {
                    let qos = if s.trim().is_empty() {
                        Vec::new()
                    } else {
                        parse_qos_text(s, &tf.sub("offered_qos_profiles"))?
                    };
                    (s.clone(), qos)
                }
                Some(list) => {
                    let qos = qos_list(list, &tf.sub("offered_qos_profiles"))?;
                    (render_qos(&qos), qos)
                }
            };
            let name = tf.string("name")?;
            if name.is_empty() {
                return Err(field_err(&tf.sub("name"), "a topic name", &yaml::EMPTY));
            }
            m.topics.push(TopicMetadata {
                name,
                type_name: tf.string("type")?,
                serialization_format: tf.string("serialization_format")?,
                offered_qos_profiles: offered,
                qos_profiles: qos,
                type_description_hash: tf.string("type_description_hash")?,
                message_count: entry.u64("message_count")?,
            });
        }
        for (i, file) in f.seq("files")?.iter().enumerate() {
            let ff = Fields::new(file, format!("{}[{i}]", f.sub("files")))?;
            m.files.push(FileMetadata {
                path: ff.string("path")?,
                starting_time: ff.nested_i64("starting_time", "nanoseconds_since_epoch")?,
                duration: ff.nested_i64("duration", "nanoseconds")?,
                message_count: ff.u64("message_count")?,
            });
        }
        if let Some(cd) = f.get("custom_data") {
            let entries = cd
                .as_map()
                .ok_or_else(|| field_err(&f.sub("custom_data"), "a mapping", cd))?;
            for (k, v) in entries {
                let text = match v {
                    Node::Scalar(s, _) => s.clone(),
                    other => {
                        return Err(field_err(
                            &format!("{}.{k}", f.sub("custom_data")),
                            "a string",
                            other,
                        ));
                    }
                };
                m.custom_data.insert(k.clone(), text);
            }
        }
        Ok(m)
    }
}

/// Parses QoS profiles stored as YAML text (metadata up to version 8,
/// the `offered_qos_profiles` column of `.db3` topics and MCAP channel
/// metadata). `path` names the field in errors.
pub fn parse_qos_text(text: &str, path: &str) -> Result<Vec<QosProfile>, MetadataError> {
    let doc = yaml::parse(text).map_err(|e| MetadataError::Field {
        path: path.to_string(),
        expected: "QoS profiles as YAML text".into(),
        found: e.to_string(),
    })?;
    qos_list(&doc, path)
}

fn qos_list(list: &Node, path: &str) -> Result<Vec<QosProfile>, MetadataError> {
    let items = list
        .as_seq()
        .ok_or_else(|| field_err(path, "a sequence of QoS profiles", list))?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let f = Fields::new(item, format!("{path}[{i}]"))?;
        let policy = |key: &str| -> Result<String, MetadataError> {
            Ok(match f.get(key) {
                None => String::new(),
                Some(v) => v
                    .as_str()
                    .ok_or_else(|| field_err(&f.sub(key), "a policy", v))?
                    .to_string(),
            })
        };
        let time = |key: &str| -> Result<QosTime, MetadataError> {
            match f.get(key) {
                None => Ok(QosTime::default()),
                Some(v) => {
                    let t = Fields::new(v, f.sub(key))?;
                    Ok(QosTime {
                        sec: t.i64("sec")?,
                        nsec: t.i64("nsec")?,
                    })
                }
            }
        };
        out.push(QosProfile {
            history: policy("history")?,
            depth: f.u64("depth")?,
            reliability: policy("reliability")?,
            durability: policy("durability")?,
            deadline: time("deadline")?,
            lifespan: time("lifespan")?,
            liveliness: policy("liveliness")?,
            liveliness_lease_duration: time("liveliness_lease_duration")?,
            avoid_ros_namespace_conventions: match f.get("avoid_ros_namespace_conventions") {
                None => false,
                Some(v) => v.as_bool().ok_or_else(|| {
                    field_err(&f.sub("avoid_ros_namespace_conventions"), "a boolean", v)
                })?,
            },
        });
    }
    Ok(out)
}

/// QoS profiles as the YAML text metadata up to version 8 stores.
pub fn render_qos(profiles: &[QosProfile]) -> String {
    if profiles.is_empty() {
        return String::new();
    }
    let list = Yaml::Sequence(profiles.iter().map(qos_node).collect());
    yaml::emit(&list).trim_end().to_string()
}

fn text(v: &str) -> Yaml<'static> {
    Yaml::Value(Scalar::String(v.to_owned().into()))
}

fn number(v: impl ToString) -> Yaml<'static> {
    Yaml::Representation(v.to_string().into(), ScalarStyle::Plain, None)
}

fn mapping(entries: Vec<(&str, Yaml<'static>)>) -> Yaml<'static> {
    Yaml::Mapping(entries.into_iter().map(|(k, v)| (text(k), v)).collect())
}

/// A policy: a number as a number (the form up to version 8), a name as
/// a string.
fn policy(v: &str) -> Yaml<'static> {
    if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        number(v)
    } else {
        text(v)
    }
}

fn qos_node(p: &QosProfile) -> Yaml<'static> {
    let time = |t: &QosTime| mapping(vec![("sec", number(t.sec)), ("nsec", number(t.nsec))]);
    mapping(vec![
        ("history", policy(&p.history)),
        ("depth", number(p.depth)),
        ("reliability", policy(&p.reliability)),
        ("durability", policy(&p.durability)),
        ("deadline", time(&p.deadline)),
        ("lifespan", time(&p.lifespan)),
        ("liveliness", policy(&p.liveliness)),
        (
            "liveliness_lease_duration",
            time(&p.liveliness_lease_duration),
        ),
        (
            "avoid_ros_namespace_conventions",
            Yaml::Value(Scalar::Boolean(p.avoid_ros_namespace_conventions)),
        ),
    ])
}

impl Metadata {
    /// The fields in the form of the newest version ([`MAX_VERSION`]):
    /// QoS profiles as a list, whatever `version` says.
    fn to_node(&self) -> Yaml<'static> {
        let nanos = |key: &str, v: Nanos| mapping(vec![(key, number(v))]);
        let topics = self.topics.iter().map(|t| {
            mapping(vec![
                (
                    "topic_metadata",
                    mapping(vec![
                        ("name", text(&t.name)),
                        ("type", text(&t.type_name)),
                        ("serialization_format", text(&t.serialization_format)),
                        (
                            "offered_qos_profiles",
                            Yaml::Sequence(t.qos_profiles.iter().map(qos_node).collect()),
                        ),
                        ("type_description_hash", text(&t.type_description_hash)),
                    ]),
                ),
                ("message_count", number(t.message_count)),
            ])
        });
        let files = self.files.iter().map(|f| {
            mapping(vec![
                ("path", text(&f.path)),
                (
                    "starting_time",
                    nanos("nanoseconds_since_epoch", f.starting_time),
                ),
                ("duration", nanos("nanoseconds", f.duration)),
                ("message_count", number(f.message_count)),
            ])
        });
        let custom_data = if self.custom_data.is_empty() {
            Yaml::Value(Scalar::Null)
        } else {
            Yaml::Mapping(
                self.custom_data
                    .iter()
                    .map(|(k, v)| (text(k), text(v)))
                    .collect(),
            )
        };
        mapping(vec![
            ("version", number(MAX_VERSION)),
            ("storage_identifier", text(&self.storage_identifier)),
            ("duration", nanos("nanoseconds", self.duration)),
            (
                "starting_time",
                nanos("nanoseconds_since_epoch", self.starting_time),
            ),
            ("message_count", number(self.message_count)),
            (
                "topics_with_message_count",
                Yaml::Sequence(topics.collect()),
            ),
            ("compression_format", text(&self.compression_format)),
            ("compression_mode", text(&self.compression_mode)),
            (
                "relative_file_paths",
                Yaml::Sequence(self.relative_file_paths.iter().map(|p| text(p)).collect()),
            ),
            ("files", Yaml::Sequence(files.collect())),
            ("custom_data", custom_data),
            ("ros_distro", text(&self.ros_distro)),
        ])
    }

    /// The text of a `metadata.yaml` of the newest version: the fields
    /// under `rosbag2_bagfile_information`. [`Metadata::parse`] reads it
    /// back to the same fields.
    pub fn to_yaml(&self) -> String {
        yaml::emit(&mapping(vec![(
            "rosbag2_bagfile_information",
            self.to_node(),
        )]))
    }

    /// The copy a `.db3` keeps in its `metadata` table: the fields at the
    /// top level.
    pub fn to_yaml_inline(&self) -> String {
        yaml::emit(&self.to_node()).trim_end().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V9: &str = r#"rosbag2_bagfile_information:
  version: 9
  storage_identifier: mcap
  duration:
    nanoseconds: 10
  starting_time:
    nanoseconds_since_epoch: -5
  message_count: 2
  topics_with_message_count:
    - topic_metadata:
        name: /chatter
        type: std_msgs/msg/String
        serialization_format: cdr
        offered_qos_profiles:
          - history: keep_last
            depth: 7
            reliability: reliable
            durability: volatile
            deadline:
              sec: 9223372036
              nsec: 854775807
            lifespan:
              sec: 0
              nsec: 0
            liveliness: automatic
            liveliness_lease_duration:
              sec: 1
              nsec: 2
            avoid_ros_namespace_conventions: false
        type_description_hash: RIHS01_abc
      message_count: 2
  compression_format: zstd
  compression_mode: MESSAGE
  relative_file_paths:
    - b_0.mcap
  files:
    - path: b_0.mcap
      starting_time:
        nanoseconds_since_epoch: -5
      duration:
        nanoseconds: 10
      message_count: 2
  custom_data:
    who: "me"
  ros_distro: jazzy
"#;

    #[test]
    fn version_9_with_a_qos_list() {
        let m = Metadata::parse(V9).unwrap();
        assert_eq!(m.version, 9);
        assert_eq!(m.starting_time, -5);
        assert_eq!(m.compression_mode, "MESSAGE");
        assert_eq!(m.ros_distro, "jazzy");
        assert_eq!(m.custom_data.get("who").map(String::as_str), Some("me"));
        let t = &m.topics[0];
        assert_eq!(t.type_description_hash, "RIHS01_abc");
        assert_eq!(t.qos_profiles.len(), 1);
        assert_eq!(t.qos_profiles[0].history, "keep_last");
        assert_eq!(t.qos_profiles[0].depth, 7);
        assert_eq!(
            t.qos_profiles[0].liveliness_lease_duration,
            QosTime { sec: 1, nsec: 2 }
        );
        // The rendering reads back to the same profiles.
        assert_eq!(
            parse_qos_text(&t.offered_qos_profiles, "x").unwrap(),
            t.qos_profiles
        );
        assert_eq!(m.files[0].message_count, 2);
    }

    #[test]
    fn bad_fields_are_named() {
        let e = Metadata::parse("rosbag2_bagfile_information:\n  version: 10\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "at `rosbag2_bagfile_information.version`: expected a metadata version from 1 to 9, found 10"
        );
        let e =
            Metadata::parse("rosbag2_bagfile_information:\n  version: 4\n  message_count: lots\n")
                .unwrap_err();
        assert!(
            e.to_string()
                .contains("message_count`: expected an unsigned integer, found `lots`"),
            "{e}"
        );
        let e = Metadata::parse("other: 1\n").unwrap_err();
        assert!(e.to_string().contains("rosbag2_bagfile_information"), "{e}");
        let e = Metadata::parse("rosbag2_bagfile_information:\n  version: 4\n  files: 3\n")
            .unwrap_err();
        assert!(e.to_string().contains("expected a sequence"), "{e}");
    }
}
