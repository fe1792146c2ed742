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
    /// complete) instead of refusing it.
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
    /// Type description hash (`RIHS01_...`, or empty).
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
