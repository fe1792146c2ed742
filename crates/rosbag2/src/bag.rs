//! [`Bag2`]: an opened bag, its topics, definitions and messages.

use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};

use bytes::Bytes;
use logcore::{ChannelId, Limits, Message, MessageFilter, Payload, ReadMode, Timestamp};
use ros2cdr::MessageType;

use crate::error::{Error, Result};
use crate::interfaces::{Definitions, Distro, full_name};
use crate::metadata::{Metadata, QosProfile, parse_qos_text};
use crate::storage::{RawIter, RawMessage, Storage, StorageFilter, TopicStats, unzstd};

/// Where a topic's definition came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefinitionSource {
    /// The bag stores it (`message_definitions` table, MCAP schema).
    Bag,
    /// The caller added it ([`OpenOptions::definitions`]).
    Added,
    /// The definitions bundled for a distribution.
    Bundled(Distro),
}

/// A topic's message definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// `ros2msg` or `ros2idl`.
    pub encoding: String,
    /// The definition text (concatenated with its dependencies).
    pub text: String,
    /// Where it came from.
    pub source: DefinitionSource,
}

/// A topic of the bag: one channel.
#[derive(Debug, Clone)]
pub struct Topic {
    /// The channel id ([`logcore::LogReader`] uses it), numbered from 1
    /// in the order of the metadata's topics, then of topics only the
    /// storage files name.
    pub id: ChannelId,
    /// Topic name.
    pub name: String,
    /// Message type as the bag writes it.
    pub type_name: String,
    /// Serialization format (`cdr`).
    pub serialization_format: String,
    /// The offered QoS profiles as YAML text (as metadata up to version 8
    /// and the `.db3` `topics` table store them).
    pub offered_qos_profiles: String,
    /// The offered QoS profiles, parsed.
    pub qos_profiles: Vec<QosProfile>,
    /// The type description hash (`RIHS01_...`), when the bag has one.
    pub type_description_hash: String,
    /// The message count `metadata.yaml` states, when there is one.
    pub metadata_message_count: Option<u64>,
    /// The definition its messages are decoded with, if one was found
    /// and parses.
    pub definition: Option<Definition>,
    pub(crate) message_type: Option<MessageType>,
}

/// Something a reader of the bag should know that does not stop it: a
/// topic whose messages are given as raw bytes and why, a metadata that
/// disagrees with the storage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The topic it is about, if one.
    pub topic: Option<String>,
    /// What happened.
    pub text: String,
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.topic {
            Some(t) => write!(f, "topic {t}: {}", self.text),
            None => f.write_str(&self.text),
        }
    }
}

/// How a bag is opened.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct OpenOptions {
    /// Resource limits: [`Limits::max_chunk_size`] bounds every message
    /// payload (stored or decompressed) and every decompressed storage
    /// file; [`Limits::max_nesting`] the nesting of message types.
    pub limits: Limits,
    /// Definitions used before the bundled ones when the bag does not
    /// store a type's definition (see [`Definitions::add_dir`]).
    pub definitions: Definitions,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            limits: Limits::default(),
            definitions: Definitions::empty(),
        }
    }
}

impl OpenOptions {
    /// These options with `limits`.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// These options with `definitions` (used before the bundled ones).
    pub fn with_definitions(mut self, definitions: Definitions) -> Self {
        self.definitions = definitions;
        self
    }

    /// These options with the definitions of `.msg`/`.srv` files in
    /// `dir` added (see [`Definitions::add_dir`]).
    pub fn with_definitions_dir(mut self, dir: &Path) -> std::io::Result<Self> {
        self.definitions.add_dir(dir)?;
        Ok(self)
    }
}

/// What the storage files hold, per channel.
#[derive(Debug, Default)]
pub(crate) struct Stats {
    pub(crate) channels: BTreeMap<ChannelId, TopicStats>,
    /// Messages on topic ids no `topics` row names.
    pub(crate) orphans: Vec<Error>,
}

pub(crate) struct OpenFile {
    pub(crate) path: PathBuf,
    pub(crate) storage: Storage,
    /// Local topic id to index in `topics`.
    pub(crate) map: HashMap<i64, usize>,
}

/// A ROS 2 bag opened for reading.
///
/// ```no_run
/// use logcore::{LogReader, MessageFilter};
/// let bag = rosbag2::Bag2::open("my_bag")?;
/// for t in bag.topics() {
///     println!("{} {} ({})", t.name, t.type_name, t.serialization_format);
/// }
/// for m in bag.messages(&MessageFilter::all())? {
///     let m = m?;
///     println!("{} {:?}", m.log_time, bag.decode(&m)?);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Bag2 {
    root: PathBuf,
    metadata: Option<Metadata>,
    metadata_path: Option<PathBuf>,
    pub(crate) files: Vec<OpenFile>,
    pub(crate) topics: Vec<Topic>,
    limits: Limits,
    notices: Vec<Notice>,
    message_zstd: bool,
    distro: Distro,
    stats: std::sync::OnceLock<Result<Stats>>,
}

impl std::fmt::Debug for Bag2 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bag2")
            .field("root", &self.root)
            .field(
                "files",
                &self.files.iter().map(|x| &x.path).collect::<Vec<_>>(),
            )
            .field("topics", &self.topics.len())
            .finish_non_exhaustive()
    }
}

fn is_storage_name(p: &Path) -> bool {
    let n = p
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let n = n.trim_end_matches(".zstd").trim_end_matches(".zst");
    n.ends_with(".db3") || n.ends_with(".mcap")
}

impl Bag2 {
    /// Opens a bag: its folder, its `metadata.yaml`, or one storage file
    /// (`.db3`, `.mcap`, optionally `.zstd`) without metadata, with the
    /// default [`Limits`].
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(path, OpenOptions::default())
    }

    /// [`open`](Self::open) with resource `limits`.
    pub fn open_with_limits(path: impl AsRef<Path>, limits: Limits) -> Result<Self> {
        Self::open_with(path, OpenOptions::default().with_limits(limits))
    }

    /// [`open`](Self::open) with `options`.
    pub fn open_with(path: impl AsRef<Path>, options: OpenOptions) -> Result<Self> {
        let path = path.as_ref();
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        if !meta.is_dir() && !meta.is_file() {
            return Err(Error::io(
                path,
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "expected a bag folder, its metadata.yaml or a storage file, found a file \
                     that is not a regular file",
                ),
            ));
        }
        let (root, metadata_path, single) = if meta.is_dir() {
            let m = path.join("metadata.yaml");
            if m.is_file() {
                (path.to_path_buf(), Some(m), None)
            } else {
                (path.to_path_buf(), None, None)
            }
        } else {
            let root = path
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
            let root = if root.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                root
            };
            if is_storage_name(path) {
                (root, None, Some(path.to_path_buf()))
            } else {
                (root, Some(path.to_path_buf()), None)
            }
        };
        let mut notices = Vec::new();
        let metadata = match &metadata_path {
            Some(m) => Some(read_metadata(m)?),
            None => None,
        };
        let paths: Vec<PathBuf> = match (&metadata, &metadata_path, single) {
            (_, _, Some(file)) => vec![file],
            (Some(md), Some(mp), None) => storage_paths(&root, md, mp)?,
            _ => {
                // A folder without metadata: its storage files in name
                // order.
                let mut found: Vec<PathBuf> = std::fs::read_dir(&root)
                    .map_err(|e| Error::io(&root, e))?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.is_file() && is_storage_name(p))
                    .collect();
                found.sort();
                if found.is_empty() {
                    return Err(Error::io(
                        &root,
                        std::io::Error::new(
                            std::io::ErrorKind::NotFound,
                            "expected a rosbag2 folder: it holds no metadata.yaml and no \
                             .db3 or .mcap file",
                        ),
                    ));
                }
                notices.push(Notice {
                    topic: None,
                    text: "no metadata.yaml: topics and counts come from the storage files".into(),
                });
                found
            }
        };
        let limits = options.limits;
        let mut files = Vec::with_capacity(paths.len());
        for p in paths {
            let storage = Storage::open(&p, &limits)?;
            files.push(OpenFile {
                path: p,
                storage,
                map: HashMap::new(),
            });
        }
        // Compression.
        let mut message_zstd = false;
        if let Some(md) = &metadata {
            let format = md.compression_format.to_ascii_lowercase();
            let mode = md.compression_mode.to_ascii_uppercase();
            if !format.is_empty() && format != "zstd" {
                return Err(Error::Metadata {
                    file: metadata_path.clone().unwrap_or_default(),
                    source: crate::metadata::MetadataError::Field {
                        path: "rosbag2_bagfile_information.compression_format".into(),
                        expected: "`zstd` or nothing (the compression rosbag2 writes; other \
                                   compression formats are not read)"
                            .into(),
                        found: format!("`{}`", md.compression_format),
                    },
                });
            }
            message_zstd = mode == "MESSAGE" && format == "zstd";
        }
        // The metadata a lone `.db3` keeps.
        let embedded = if metadata.is_none() {
            files
                .first()
                .and_then(|f| f.storage.embedded_metadata())
                .and_then(|t| Metadata::parse(t).ok())
        } else {
            None
        };
        let distro_name = metadata
            .as_ref()
            .or(embedded.as_ref())
            .map(|m| m.ros_distro.clone())
            .filter(|d| !d.is_empty())
            .or_else(|| {
                files
                    .iter()
                    .find_map(|f| f.storage.ros_distro().map(str::to_string))
            })
            .unwrap_or_default();
        let distro = Distro::for_ros_distro(&distro_name);
        let mut bag = Bag2 {
            root,
            metadata,
            metadata_path,
            files,
            topics: Vec::new(),
            limits,
            notices,
            message_zstd,
            distro,
            stats: std::sync::OnceLock::new(),
        };
        bag.build_topics(embedded.as_ref());
        bag.resolve_definitions(&options.definitions);
        bag.check_counts();
        Ok(bag)
    }

    fn build_topics(&mut self, embedded: Option<&Metadata>) {
        let mut topics: Vec<Topic> = Vec::new();
        let mut by_key: HashMap<(String, String), usize> = HashMap::new();
        let declared = self.metadata.as_ref().or(embedded);
        if let Some(md) = declared {
            for t in &md.topics {
                let key = (t.name.clone(), full_name(&t.type_name));
                if by_key.contains_key(&key) {
                    continue;
                }
                by_key.insert(key, topics.len());
                topics.push(Topic {
                    id: ChannelId(topics.len() as u32 + 1),
                    name: t.name.clone(),
                    type_name: t.type_name.clone(),
                    serialization_format: t.serialization_format.clone(),
                    offered_qos_profiles: t.offered_qos_profiles.clone(),
                    qos_profiles: t.qos_profiles.clone(),
                    type_description_hash: t.type_description_hash.clone(),
                    metadata_message_count: self.metadata.as_ref().map(|_| t.message_count),
                    definition: None,
                    message_type: None,
                });
            }
        }
        for file in &mut self.files {
            for st in file.storage.topics() {
                let key = (st.name.clone(), full_name(&st.type_name));
                // MCAP channels of a topic whose schema is missing carry
                // no type: match them by name.
                let found = by_key.get(&key).copied().or_else(|| {
                    if st.type_name.is_empty() {
                        topics.iter().position(|t| t.name == st.name)
                    } else {
                        None
                    }
                });
                let i = match found {
                    Some(i) => i,
                    None => {
                        by_key.insert(key, topics.len());
                        let (qos, note) = if st.offered_qos_profiles.trim().is_empty() {
                            (Vec::new(), None)
                        } else {
                            match parse_qos_text(&st.offered_qos_profiles, "offered_qos_profiles") {
                                Ok(q) => (q, None),
                                Err(e) => (Vec::new(), Some(e.to_string())),
                            }
                        };
                        if let Some(n) = note {
                            self.notices.push(Notice {
                                topic: Some(st.name.clone()),
                                text: format!("its QoS profiles do not parse: {n}"),
                            });
                        }
                        topics.push(Topic {
                            id: ChannelId(topics.len() as u32 + 1),
                            name: st.name.clone(),
                            type_name: st.type_name.clone(),
                            serialization_format: st.serialization_format.clone(),
                            offered_qos_profiles: st.offered_qos_profiles.clone(),
                            qos_profiles: qos,
                            type_description_hash: st.type_description_hash.clone(),
                            metadata_message_count: None,
                            definition: None,
                            message_type: None,
                        });
                        topics.len() - 1
                    }
                };
                let t = &mut topics[i];
                if t.type_description_hash.is_empty() {
                    t.type_description_hash = st.type_description_hash.clone();
                }
                if t.definition.is_none() {
                    if let Some(d) = &st.definition {
                        t.definition = Some(Definition {
                            encoding: d.encoding.clone(),
                            text: d.text.clone(),
                            source: DefinitionSource::Bag,
                        });
                    }
                }
                file.map.insert(st.local_id, i);
            }
        }
        self.topics = topics;
    }

    /// The definition of every topic: the bag's, else the caller's, else
    /// the bundled distribution's; parsed for decoding.
    fn resolve_definitions(&mut self, extra: &Definitions) {
        let mut store = Definitions::bundled(self.distro);
        store.add_from(extra);
        // The `message_definitions` tables of the `.db3` files, by full
        // type name.
        let mut stored: BTreeMap<String, (String, String)> = BTreeMap::new();
        for f in &self.files {
            if let Some(defs) = f.storage.definitions() {
                for (ty, d) in defs {
                    stored
                        .entry(full_name(ty))
                        .or_insert((d.encoding.clone(), d.text.clone()));
                }
            }
        }
        for t in &mut self.topics {
            if t.serialization_format != "cdr" {
                self.notices.push(Notice {
                    topic: Some(t.name.clone()),
                    text: format!(
                        "its serialization format is `{}`, not `cdr`: its messages are given \
                         as raw bytes",
                        t.serialization_format
                    ),
                });
                continue;
            }
            let full = full_name(&t.type_name);
            let srv = match full.strip_suffix("_Event") {
                Some(s) if full.contains("/srv/") => Some(s.to_string()),
                _ => None,
            };
            if t.definition.is_none() {
                let hit = stored
                    .get(&full)
                    .or_else(|| srv.as_ref().and_then(|s| stored.get(s)));
                if let Some((enc, text)) = hit {
                    t.definition = Some(Definition {
                        encoding: enc.clone(),
                        text: text.clone(),
                        source: DefinitionSource::Bag,
                    });
                }
            }
            let mut problems = Vec::new();
            if let Some(d) = &t.definition {
                let usable = matches!(d.encoding.as_str(), "ros2msg" | "ros2idl");
                if usable {
                    match parse_type(&t.type_name, d, &self.limits) {
                        Ok(mt) => {
                            t.message_type = Some(mt);
                            continue;
                        }
                        Err(e) => {
                            problems.push(format!("the bag's definition does not parse: {e}"))
                        }
                    }
                } else {
                    problems.push(format!(
                        "the bag stores no usable definition (encoding `{}`)",
                        d.encoding
                    ));
                }
                t.definition = None;
            }
            let own = srv.as_deref().unwrap_or(&full);
            if let Some(text) = store.resolve(&t.type_name) {
                let source = match store.origin(own) {
                    Some(0) => DefinitionSource::Added,
                    Some(1) => DefinitionSource::Bundled(self.distro),
                    _ => DefinitionSource::Bundled(self.distro.other()),
                };
                let d = Definition {
                    encoding: "ros2msg".into(),
                    text,
                    source,
                };
                match parse_type(&t.type_name, &d, &self.limits) {
                    Ok(mt) => {
                        t.message_type = Some(mt);
                        t.definition = Some(d);
                        continue;
                    }
                    Err(e) => problems.push(format!("the known definition does not parse: {e}")),
                }
            } else {
                problems.push("no definition in the bag, the added or the bundled ones".into());
            }
            self.notices.push(Notice {
                topic: Some(t.name.clone()),
                text: format!(
                    "type {}: {}; its messages are given as raw bytes",
                    t.type_name,
                    problems.join("; ")
                ),
            });
        }
    }

    /// Notes where `metadata.yaml` counts other messages than the storage
    /// holds.
    fn check_counts(&mut self) {
        if self.metadata.is_none() {
            return;
        }
        let Ok(stats) = self.stats() else {
            return;
        };
        let mut notes = Vec::new();
        for t in &self.topics {
            let Some(declared) = t.metadata_message_count else {
                continue;
            };
            let held = stats.channels.get(&t.id).map_or(0, |s| s.count);
            if declared != held {
                notes.push(Notice {
                    topic: Some(t.name.clone()),
                    text: format!(
                        "metadata.yaml counts {declared} messages, the storage files hold {held}"
                    ),
                });
            }
        }
        self.notices.extend(notes);
    }

    /// The bag folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The parsed `metadata.yaml`, when the bag has one.
    pub fn metadata(&self) -> Option<&Metadata> {
        self.metadata.as_ref()
    }

    /// The path of `metadata.yaml`, when the bag has one.
    pub fn metadata_path(&self) -> Option<&Path> {
        self.metadata_path.as_deref()
    }

    /// The storage files, in the order they are read.
    pub fn files(&self) -> Vec<&Path> {
        self.files.iter().map(|f| f.path.as_path()).collect()
    }

    /// The topics, in channel id order.
    pub fn topics(&self) -> &[Topic] {
        &self.topics
    }

    /// The topic of channel `id`.
    pub fn topic(&self, id: ChannelId) -> Option<&Topic> {
        let i = (id.0 as usize).checked_sub(1)?;
        self.topics.get(i)
    }

    /// What a reader should know: topics given as raw bytes and why,
    /// counts that disagree with the metadata.
    pub fn notices(&self) -> &[Notice] {
        &self.notices
    }

    /// The distribution whose bundled definitions are used first.
    pub fn distro(&self) -> Distro {
        self.distro
    }

    /// The limits the bag was opened with.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Whether each message payload is zstd-compressed
    /// (`compression_mode: MESSAGE`).
    pub fn message_compression(&self) -> bool {
        self.message_zstd
    }

    /// Count and time range of each channel's messages, from the storage
    /// files (all of their rows), counted once and kept.
    pub(crate) fn stats(&self) -> Result<&Stats> {
        self.stats
            .get_or_init(|| {
                let mut out = Stats::default();
                for f in &self.files {
                    for (local, s) in f.storage.stats()? {
                        let Some(&i) = f.map.get(&local) else {
                            out.orphans.push(Error::Row {
                                file: f.path.clone(),
                                table: "messages",
                                row: -1,
                                expected: "a `topic_id` of the table `topics`".into(),
                                found: format!("{} messages with topic_id {local}", s.count),
                            });
                            continue;
                        };
                        let e = out.channels.entry(self.topics[i].id).or_insert(TopicStats {
                            count: 0,
                            start: s.start,
                            end: s.end,
                        });
                        e.count += s.count;
                        e.start = e.start.min(s.start);
                        e.end = e.end.max(s.end);
                    }
                }
                Ok(out)
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The messages that pass `filter`, from every storage file, merged
    /// in log-time order (a tie keeps file order). Times and topics are
    /// filtered by the storage (in the SQL query, through the MCAP index).
    /// Payloads are owned and, for `compression_mode: MESSAGE`,
    /// decompressed. In strict mode the iteration ends after an error;
    /// in lenient mode it goes on after it.
    pub fn messages(
        &self,
        filter: &MessageFilter,
    ) -> Result<impl Iterator<Item = Result<Message<'static>>> + '_> {
        let mut sources = Vec::new();
        for (k, f) in self.files.iter().enumerate() {
            let topics = match &filter.channels {
                None => None,
                Some(set) => {
                    let ids: Vec<i64> = f
                        .map
                        .iter()
                        .filter(|(_, i)| set.contains(&self.topics[**i].id))
                        .map(|(l, _)| *l)
                        .collect();
                    if ids.is_empty() {
                        continue;
                    }
                    Some(ids)
                }
            };
            let sf = StorageFilter {
                start: filter.start.map(|t| t.as_nanos()),
                end: filter.end.map(|t| t.as_nanos()),
                topics,
                mode: filter.mode,
            };
            sources.push(Source {
                file: k,
                iter: f.storage.messages(sf)?,
                head: None,
                done: false,
            });
        }
        Ok(Merge {
            bag: self,
            sources,
            strict: filter.mode == ReadMode::Strict,
            stopped: false,
        })
    }

    fn to_message(&self, file: usize, m: RawMessage) -> Result<Message<'static>> {
        let f = &self.files[file];
        let Some(&i) = f.map.get(&m.local_id) else {
            return Err(Error::Row {
                file: f.path.clone(),
                table: "messages",
                row: m.position as i64,
                expected: "a `topic_id` of the table `topics`".into(),
                found: format!("topic_id {}", m.local_id),
            });
        };
        let data = if self.message_zstd {
            let mut out = Vec::new();
            match unzstd(&m.data[..], self.limits.max_chunk_size, &mut out) {
                Ok(Some(_)) => Bytes::from(out),
                Ok(None) => {
                    return Err(self.payload_error(
                        file,
                        &m,
                        format!(
                            "a zstd-compressed message of at most {} bytes uncompressed (the \
                             reader's limit; raise it with `--max-chunk-size` or \
                             `Limits::max_chunk_size`)",
                            self.limits.max_chunk_size
                        ),
                        "more".into(),
                    ));
                }
                Err(e) => {
                    return Err(self.payload_error(
                        file,
                        &m,
                        "a zstd-compressed message".into(),
                        e.to_string(),
                    ));
                }
            }
        } else {
            m.data
        };
        let mut msg = Message::new(self.topics[i].id, Timestamp(m.time), Payload::Shared(data));
        msg.publish_time = m.publish_time.map(Timestamp);
        msg.sequence = m.sequence;
        if matches!(f.storage, Storage::Mcap(_)) {
            msg.offset = Some(m.position);
        }
        Ok(msg)
    }

    fn payload_error(&self, file: usize, m: &RawMessage, expected: String, found: String) -> Error {
        let f = &self.files[file];
        match f.storage {
            Storage::Sqlite(_) => Error::Row {
                file: f.path.clone(),
                table: "messages",
                row: m.position as i64,
                expected,
                found,
            },
            Storage::Mcap(_) => Error::InFile {
                file: f.path.clone(),
                source: logcore::Error::malformed(m.position, expected, found),
            },
        }
    }
}

impl Definitions {
    /// Adds the caller's definitions of `other` (not its bundled ones).
    pub(crate) fn add_from(&mut self, other: &Definitions) {
        for (k, v) in other.own_entries() {
            self.add(k, v);
        }
    }
}

fn parse_type(type_name: &str, d: &Definition, limits: &Limits) -> ros2cdr::Result<MessageType> {
    // ros2cdr names `pkg/Type` types `pkg/Type`; give it the full name.
    let name = full_name(type_name);
    if d.encoding == "ros2idl" {
        MessageType::parse_idl_with_limits(&name, &d.text, limits)
    } else {
        MessageType::parse_with_limits(&name, &d.text, limits)
    }
}

fn read_metadata(path: &Path) -> Result<Metadata> {
    let len = std::fs::metadata(path)
        .map_err(|e| Error::io(path, e))?
        .len();
    if len > crate::yaml::MAX_INPUT as u64 {
        return Err(Error::Metadata {
            file: path.to_path_buf(),
            source: crate::yaml::YamlError {
                line: 1,
                column: 1,
                offset: 0,
                expected: format!("a document of at most {} bytes", crate::yaml::MAX_INPUT),
                found: format!("{len} bytes"),
            }
            .into(),
        });
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let text = String::from_utf8(bytes).map_err(|e| Error::Metadata {
        file: path.to_path_buf(),
        source: crate::yaml::YamlError {
            line: 0,
            column: 0,
            offset: e.utf8_error().valid_up_to(),
            expected: "UTF-8 text".into(),
            found: "a byte that is not UTF-8".into(),
        }
        .into(),
    })?;
    Metadata::parse(&text).map_err(|e| Error::Metadata {
        file: path.to_path_buf(),
        source: e,
    })
}

/// Checks one storage path of the metadata: relative, no `..`, no
/// root or prefix, not empty.
fn check_entry(metadata: &Path, field: &'static str, entry: &str) -> Result<PathBuf> {
    let refuse = |reason: &str| Error::UnsafePath {
        metadata: metadata.to_path_buf(),
        field,
        entry: entry.to_string(),
        reason: reason.to_string(),
    };
    if entry.trim().is_empty() {
        return Err(refuse("it is empty"));
    }
    if entry.contains('\0') {
        return Err(refuse("it contains a NUL byte"));
    }
    let p = Path::new(entry);
    let drive = entry.as_bytes().get(1) == Some(&b':')
        && entry
            .as_bytes()
            .first()
            .is_some_and(u8::is_ascii_alphabetic);
    if p.is_absolute() || entry.starts_with('/') || entry.starts_with('\\') || drive {
        return Err(refuse(
            "it is absolute (storage paths are relative to the bag folder)",
        ));
    }
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(n) => {
                if n.to_string_lossy().split('\\').any(|s| s == "..") {
                    return Err(refuse("it contains `..`"));
                }
                out.push(n);
            }
            Component::CurDir => {}
            Component::ParentDir => return Err(refuse("it contains `..`")),
            Component::RootDir | Component::Prefix(_) => {
                return Err(refuse(
                    "it is absolute (storage paths are relative to the bag folder)",
                ));
            }
        }
    }
    if out.as_os_str().is_empty() {
        return Err(refuse("it names the bag folder itself"));
    }
    Ok(out)
}

/// The storage files of a bag with metadata, each checked to lie inside
/// the bag folder.
fn storage_paths(root: &Path, md: &Metadata, metadata_path: &Path) -> Result<Vec<PathBuf>> {
    let mut rel = Vec::new();
    for e in &md.relative_file_paths {
        rel.push(check_entry(metadata_path, "relative_file_paths", e)?);
    }
    let mut from_files = Vec::new();
    for f in &md.files {
        from_files.push(check_entry(metadata_path, "files", &f.path)?);
    }
    if rel.is_empty() {
        rel = from_files;
    }
    let root_canon = root.canonicalize().map_err(|e| Error::io(root, e))?;
    let root_name = root_canon.file_name().map(|n| n.to_os_string());
    let mut out = Vec::new();
    for (k, r) in rel.into_iter().enumerate() {
        let mut p = root.join(&r);
        if !p.exists() {
            // Bags of the first versions wrote paths that start with the
            // bag folder's own name.
            let mut comps = r.components();
            let first = comps.next().map(|c| c.as_os_str().to_os_string());
            let rest = comps.as_path().to_path_buf();
            if first.is_some() && first == root_name && !rest.as_os_str().is_empty() {
                let alt = root.join(rest);
                if alt.exists() {
                    p = alt;
                }
            }
        }
        if !p.exists() {
            return Err(Error::MissingFile {
                path: p,
                metadata: metadata_path.to_path_buf(),
            });
        }
        let canon = p.canonicalize().map_err(|e| Error::io(&p, e))?;
        if !canon.starts_with(&root_canon) {
            return Err(Error::UnsafePath {
                metadata: metadata_path.to_path_buf(),
                field: "relative_file_paths",
                entry: md
                    .relative_file_paths
                    .get(k)
                    .cloned()
                    .unwrap_or_else(|| r.display().to_string()),
                reason: format!(
                    "it resolves to {}, outside the bag folder {}",
                    canon.display(),
                    root_canon.display()
                ),
            });
        }
        if !canon.is_file() {
            return Err(Error::io(
                &p,
                std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file"),
            ));
        }
        out.push(p);
    }
    Ok(out)
}

struct Source<'a> {
    file: usize,
    iter: RawIter<'a>,
    head: Option<RawMessage>,
    done: bool,
}

/// The time-ordered merge of the storage files' messages.
struct Merge<'a> {
    bag: &'a Bag2,
    sources: Vec<Source<'a>>,
    strict: bool,
    stopped: bool,
}

impl Iterator for Merge<'_> {
    type Item = Result<Message<'static>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.stopped {
            return None;
        }
        for s in &mut self.sources {
            if s.head.is_none() && !s.done {
                match s.iter.next() {
                    Some(Ok(m)) => s.head = Some(m),
                    Some(Err(e)) => {
                        if self.strict {
                            self.stopped = true;
                        }
                        return Some(Err(e));
                    }
                    None => s.done = true,
                }
            }
        }
        let best = self
            .sources
            .iter()
            .enumerate()
            .filter_map(|(k, s)| s.head.as_ref().map(|m| (m.time, k)))
            .min()?
            .1;
        let s = &mut self.sources[best];
        let m = s.head.take()?;
        let r = self.bag.to_message(s.file, m);
        if r.is_err() && self.strict {
            self.stopped = true;
        }
        Some(r)
    }
}
