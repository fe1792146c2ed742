//! What a bag is written with: [`WriteOptions`] (storage, compression,
//! distribution, splitting, custom data, overwrite) and what a topic is
//! declared with ([`TopicSpec`], [`TopicDefinition`]).

use std::collections::BTreeMap;

use crate::metadata::QosProfile;

/// The storage plugin of the written bag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StorageId {
    /// SQLite, `.db3` files (`storage_identifier: sqlite3`).
    #[default]
    Sqlite3,
    /// MCAP, `.mcap` files (`storage_identifier: mcap`).
    Mcap,
}

impl StorageId {
    /// The metadata's `storage_identifier`.
    pub fn identifier(self) -> &'static str {
        match self {
            StorageId::Sqlite3 => "sqlite3",
            StorageId::Mcap => "mcap",
        }
    }

    pub(crate) fn extension(self) -> &'static str {
        match self {
            StorageId::Sqlite3 => "db3",
            StorageId::Mcap => "mcap",
        }
    }
}

/// zstd compression of the written bag (`compression_format: zstd`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CompressionMode {
    /// None.
    #[default]
    None,
    /// Each message payload (`compression_mode: MESSAGE`).
    Message,
    /// Each storage file once complete (`compression_mode: FILE`).
    File,
}

/// How a bag is written.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WriteOptions {
    /// Storage plugin (SQLite by default).
    pub storage: StorageId,
    /// Compression (none by default).
    pub compression: CompressionMode,
    /// zstd level of `Message` and `File` compression (0: zstd's default).
    pub compression_level: i32,
    /// The `ros_distro` written (`jazzy` by default).
    pub distro: String,
    /// Start a new storage file when the current one holds this many
    /// bytes of messages (`None`: one file).
    pub max_bagfile_size: Option<u64>,
    /// The metadata's `custom_data`.
    pub custom_data: BTreeMap<String, String>,
    /// Replace an existing bag folder at the target (once the new bag is
    /// complete) instead of refusing it; a folder that is not a bag (see
    /// [`check_replaceable`](super::check_replaceable)) is refused still.
    pub overwrite: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            storage: StorageId::Sqlite3,
            compression: CompressionMode::None,
            compression_level: 0,
            distro: "jazzy".into(),
            max_bagfile_size: None,
            custom_data: BTreeMap::new(),
            overwrite: false,
        }
    }
}

impl WriteOptions {
    /// The defaults with storage `storage`.
    pub fn new(storage: StorageId) -> Self {
        WriteOptions {
            storage,
            ..Self::default()
        }
    }

    /// These options with `compression`.
    pub fn with_compression(mut self, compression: CompressionMode) -> Self {
        self.compression = compression;
        self
    }

    /// These options with the `ros_distro` `distro`.
    pub fn with_distro(mut self, distro: impl Into<String>) -> Self {
        self.distro = distro.into();
        self
    }

    /// These options splitting storage files at `bytes`.
    pub fn with_max_bagfile_size(mut self, bytes: u64) -> Self {
        self.max_bagfile_size = Some(bytes);
        self
    }

    /// These options with a `custom_data` entry.
    pub fn with_custom_data(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.custom_data.insert(key.into(), value.into());
        self
    }

    /// These options replacing (`true`) or refusing an existing target.
    pub fn with_overwrite(mut self, overwrite: bool) -> Self {
        self.overwrite = overwrite;
        self
    }
}

/// A message definition as the bag stores it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TopicDefinition {
    /// `ros2msg` or `ros2idl` (empty when unknown).
    pub encoding: String,
    /// The definition concatenated with its dependencies (empty when
    /// unknown).
    pub text: String,
}

impl TopicDefinition {
    /// A `.msg` definition (`ros2msg`).
    pub fn msg(text: impl Into<String>) -> Self {
        TopicDefinition {
            encoding: "ros2msg".into(),
            text: text.into(),
        }
    }

    /// The ROS 2 type description hash (`RIHS01_...`, see
    /// [`ros2cdr::hash`]) of `type_name` (`pkg/msg/Type`,
    /// `pkg/srv/Srv_Event`) under this definition: `None` when the
    /// definition's encoding is not `ros2msg` or `ros2idl` (empty: the
    /// definition is unknown), or when it does not parse (a type it uses
    /// is not defined in it), so the hash of a type is never made up from
    /// part of it. An empty `ros2msg` text is a type without fields.
    ///
    /// ```
    /// let d = rosbag2::TopicDefinition::msg("int64 a\nint64 b\n---\nint64 sum\n");
    /// // The hash rosbag2 recorded for this service's event topics.
    /// assert_eq!(
    ///     d.type_description_hash("example_interfaces/srv/AddTwoInts_Event").as_deref(),
    ///     Some("RIHS01_32c1d140259c71e5c355115942bcb31df98b4330e4d906b1b75ccb1c9b3ce6c8"),
    /// );
    /// assert_eq!(rosbag2::TopicDefinition::default().type_description_hash("a/msg/B"), None);
    /// // test_msgs/msg/Empty, as rosbag2's test bags store it.
    /// assert!(rosbag2::TopicDefinition::msg("").type_description_hash("test_msgs/msg/Empty").is_some());
    /// ```
    pub fn type_description_hash(&self, type_name: &str) -> Option<String> {
        self.message_type(type_name)
            .map(|t| t.type_description_hash())
    }

    /// The hash a writer records for a topic of `type_name` under this
    /// definition when it is given none ([`Bag2Writer`] does, and ROS 2
    /// MCAP writers may, as rosbag2's `topic_type_hash`): the
    /// [`type_description_hash`](Self::type_description_hash), but `None`
    /// for a message type that uses a `char` field, whose hash ROS 2 and
    /// rosbags 0.11.9 compute differently (rosbags refuses a bag whose
    /// recorded hash is not its own; see
    /// `ros2cdr::MessageType::uses_char`). A service event keeps its hash:
    /// rosbags reads no `.srv` definition, so it never compares it.
    ///
    /// ```
    /// use rosbag2::TopicDefinition;
    /// let imu = TopicDefinition::msg("uint8 a\n");
    /// assert!(imu.recorded_type_hash("p/msg/A").is_some());
    /// assert_eq!(TopicDefinition::msg("char c\n").recorded_type_hash("p/msg/C"), None);
    /// ```
    ///
    /// [`Bag2Writer`]: crate::Bag2Writer
    pub fn recorded_type_hash(&self, type_name: &str) -> Option<String> {
        let service = crate::interfaces::full_name(type_name).contains("/srv/");
        self.message_type(type_name)
            .filter(|t| service || !t.uses_char())
            .map(|t| t.type_description_hash())
    }

    /// The type `type_name` parsed from this definition, if it parses.
    fn message_type(&self, type_name: &str) -> Option<ros2cdr::MessageType> {
        let name = crate::interfaces::full_name(type_name);
        let t = match self.encoding.as_str() {
            "ros2msg" => ros2cdr::MessageType::parse(&name, &self.text),
            "ros2idl" => ros2cdr::MessageType::parse_idl(&name, &self.text),
            _ => return None,
        };
        t.ok()
    }
}

/// Everything the bag keeps about a topic, for
/// [`Bag2Writer::add_topic_with`](super::Bag2Writer::add_topic_with).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TopicSpec {
    /// Topic name.
    pub name: String,
    /// Message type (`pkg/msg/Type`).
    pub type_name: String,
    /// Serialization format (`cdr`).
    pub serialization_format: String,
    /// The definition.
    pub definition: TopicDefinition,
    /// Offered QoS profiles (policies by number or by name).
    pub qos: Vec<QosProfile>,
    /// Type description hash (`RIHS01_...`, or empty). Left empty, the
    /// writer computes it from [`definition`](Self::definition) when
    /// that defines the type and every type it uses
    /// ([`TopicDefinition::type_description_hash`]); it stays empty
    /// otherwise, as rosbag2 writes it for types it does not know, and
    /// for a message type that uses a `char` field: ROS 2 and rosbags
    /// 0.11.9 hash those differently, and rosbags refuses to read a bag
    /// whose hash differs from its own (see
    /// `ros2cdr::MessageType::uses_char`; service events, whose
    /// definitions rosbags does not read, keep theirs). A hash given
    /// here is written as it is.
    pub type_description_hash: String,
}

impl TopicSpec {
    /// A CDR topic without definition, QoS or hash.
    pub fn new(name: impl Into<String>, type_name: impl Into<String>) -> Self {
        TopicSpec {
            name: name.into(),
            type_name: type_name.into(),
            serialization_format: "cdr".into(),
            ..TopicSpec::default()
        }
    }
}
