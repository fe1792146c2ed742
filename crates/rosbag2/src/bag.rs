//! [`Bag2`]: an opened bag, its topics, definitions and messages.

use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};

use bytes::Bytes;
use logcore::{ChannelId, Limits, Message, MessageFilter, Payload, ReadMode, Timestamp};
use ros2cdr::MessageType;

use crate::error::{Error, Result};
use crate::interfaces::{Definitions, Distro, full_name};
use crate::metadata::{Metadata, TopicMetadata, parse_qos_text};
use crate::storage::{
    Cursor, Expansion, RawMessage, Resume, Storage, StorageFilter, StorageTopic, StoredDefinition,
    TopicStats, unzstd,
};

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

/// A topic of the bag: one channel, with its metadata (name, type, QoS,
/// type hash) as [`TopicMetadata`] holds them; those fields read through
/// it (`topic.name`, `topic.type_name`).
#[derive(Debug, Clone)]
pub struct Topic {
    /// The channel id ([`logcore::LogReader`] uses it), numbered from 1
    /// in the order of the metadata's topics, then of topics only the
    /// storage files name.
    pub id: ChannelId,
    /// The topic's metadata, from `metadata.yaml` (or the metadata a
    /// storage file embeds), else from the storage files (its
    /// `message_count` is what that source states; the count
    /// `metadata.yaml` states is `metadata_message_count`).
    pub metadata: TopicMetadata,
    /// The message count `metadata.yaml` states, when there is one.
    pub metadata_message_count: Option<u64>,
    /// The definition its messages are decoded with, if one was found
    /// and parses.
    pub definition: Option<Definition>,
    pub(crate) message_type: Option<MessageType>,
}

impl std::ops::Deref for Topic {
    type Target = TopicMetadata;

    /// The topic's metadata.
    fn deref(&self) -> &TopicMetadata {
        &self.metadata
    }
}

impl Topic {
    /// The compiled type its CDR payloads are decoded with
    /// ([`LogReader::decode`](logcore::LogReader::decode)); `None` for a
    /// topic read as raw bytes (no usable definition, or not CDR).
    pub fn message_type(&self) -> Option<&MessageType> {
        self.message_type.as_ref()
    }

    /// The topic numbered `index + 1`, from its metadata (the count is the
    /// one `metadata.yaml` states, if any).
    fn new(index: usize, metadata: TopicMetadata, metadata_message_count: Option<u64>) -> Topic {
        Topic {
            id: ChannelId(index as u32 + 1),
            metadata,
            metadata_message_count,
            definition: None,
            message_type: None,
        }
    }
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
    /// Most storage files a reading of the bag keeps open at once
    /// (default [`DEFAULT_MAX_OPEN_FILES`]; at least 1). Files are opened
    /// as the time-ordered merge needs them; past this many, the one used
    /// least recently is closed and opened again when needed.
    pub max_open_files: usize,
}

/// Default for [`OpenOptions::max_open_files`].
pub const DEFAULT_MAX_OPEN_FILES: usize = 16;

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            limits: Limits::default(),
            definitions: Definitions::empty(),
            max_open_files: DEFAULT_MAX_OPEN_FILES,
        }
    }
}

impl OpenOptions {
    /// These options with `limits`.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// These options with [`max_open_files`](Self::max_open_files) set to
    /// `files`.
    pub fn with_max_open_files(mut self, files: usize) -> Self {
        self.max_open_files = files;
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

/// A storage file of the bag: what opening it told, kept while it is
/// closed.
pub(crate) struct BagFile {
    pub(crate) path: PathBuf,
    /// Local topic id to index in `topics`.
    pub(crate) map: HashMap<i64, usize>,
    /// `sqlite3` or `mcap`.
    pub(crate) identifier: &'static str,
    /// The `schema_version` of a `.db3`.
    pub(crate) schema_version: Option<i64>,
    /// What the files before it expanded to (see [`Expansion`]).
    used_before: u64,
    /// Whether opening it decompresses or copies it.
    costly: bool,
    /// Count and time range per local topic id.
    stats: std::sync::OnceLock<Result<BTreeMap<i64, TopicStats>>>,
}

/// The storage files open now, at most [`OpenOptions::max_open_files`]
/// (more only while several readings of the bag run at once).
#[derive(Default)]
struct Pool {
    open: Vec<Pooled>,
    tick: u64,
}

struct Pooled {
    file: usize,
    storage: std::sync::Arc<Storage>,
    used: u64,
    costly: bool,
}

impl Pool {
    /// Closes what is not in use to make room for one more file: every
    /// costly one first when `costly` (so that at most one decompressed
    /// or copied file is kept unused), then the least recently used ones.
    fn make_room(&mut self, cap: usize, costly: bool) {
        let free = |p: &Pooled| std::sync::Arc::strong_count(&p.storage) == 1;
        if costly {
            self.open.retain(|p| !(p.costly && free(p)));
        }
        while self.open.len() >= cap {
            let Some(i) = self
                .open
                .iter()
                .enumerate()
                .filter(|(_, p)| free(p))
                .min_by_key(|(_, p)| p.used)
                .map(|(i, _)| i)
            else {
                break;
            };
            self.open.swap_remove(i);
        }
    }

    fn add(&mut self, file: usize, storage: std::sync::Arc<Storage>, costly: bool) {
        self.tick += 1;
        self.open.push(Pooled {
            file,
            storage,
            used: self.tick,
            costly,
        });
    }
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
    pub(crate) files: Vec<BagFile>,
    pub(crate) topics: Vec<Topic>,
    limits: Limits,
    max_open: usize,
    pool: std::sync::Mutex<Pool>,
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
            // One in any form (a FIFO, a link to a device) is read, and
            // refused as what it is.
            if std::fs::symlink_metadata(&m).is_ok() {
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
        let max_open = options.max_open_files.max(1);
        check_declared_sizes(&paths, &limits)?;
        // Each file opened in turn for its topics, definitions and counts,
        // at most `max_open` kept open.
        let mut pool = Pool::default();
        let mut files = Vec::with_capacity(paths.len());
        let mut file_topics: Vec<Vec<StorageTopic>> = Vec::with_capacity(paths.len());
        let mut stored: BTreeMap<String, StoredDefinition> = BTreeMap::new();
        let mut embedded_text: Option<String> = None;
        let mut storage_distro: Option<String> = None;
        let mut used = 0u64;
        for (k, p) in paths.into_iter().enumerate() {
            let costly = Storage::may_expand(&p);
            pool.make_room(max_open, costly);
            let expansion = Expansion {
                used,
                limit: limits.max_bag_expansion,
            };
            let (storage, expanded) = Storage::open(&p, &limits, expansion)?;
            if k == 0 && metadata.is_none() {
                embedded_text = storage.embedded_metadata().map(str::to_string);
            }
            if storage_distro.is_none() {
                storage_distro = storage.ros_distro().map(str::to_string);
            }
            if let Some(defs) = storage.definitions() {
                for (ty, d) in defs {
                    stored.entry(full_name(ty)).or_insert_with(|| d.clone());
                }
            }
            file_topics.push(storage.topics().to_vec());
            let stats = std::sync::OnceLock::new();
            if metadata.is_some() {
                // Compared with the metadata's counts below.
                let _ = stats.set(storage.stats());
            }
            files.push(BagFile {
                identifier: storage.identifier(),
                schema_version: storage.schema_version(),
                path: p,
                map: HashMap::new(),
                used_before: used,
                costly: costly || expanded > 0,
                stats,
            });
            used = used.saturating_add(expanded);
            pool.add(k, std::sync::Arc::new(storage), costly || expanded > 0);
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
        let embedded = embedded_text.and_then(|t| Metadata::parse(&t).ok());
        let distro_name = metadata
            .as_ref()
            .or(embedded.as_ref())
            .map(|m| m.ros_distro.clone())
            .filter(|d| !d.is_empty())
            .or(storage_distro)
            .unwrap_or_default();
        let distro = Distro::for_ros_distro(&distro_name);
        let mut bag = Bag2 {
            root,
            metadata,
            metadata_path,
            files,
            topics: Vec::new(),
            limits,
            max_open,
            pool: std::sync::Mutex::new(pool),
            notices,
            message_zstd,
            distro,
            stats: std::sync::OnceLock::new(),
        };
        bag.build_topics(embedded.as_ref(), &file_topics);
        bag.resolve_definitions(&options.definitions, &stored);
        bag.check_counts();
        Ok(bag)
    }

    fn build_topics(&mut self, embedded: Option<&Metadata>, file_topics: &[Vec<StorageTopic>]) {
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
                let count = self.metadata.as_ref().map(|_| t.message_count);
                topics.push(Topic::new(topics.len(), t.clone(), count));
            }
        }
        for (file, storage_topics) in self.files.iter_mut().zip(file_topics) {
            for StorageTopic {
                local_id,
                topic: st,
                definition,
            } in storage_topics
            {
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
                        let meta = TopicMetadata {
                            qos_profiles: qos,
                            ..st.clone()
                        };
                        topics.push(Topic::new(topics.len(), meta, None));
                        topics.len() - 1
                    }
                };
                let t = &mut topics[i];
                if t.type_description_hash.is_empty() {
                    t.metadata.type_description_hash = st.type_description_hash.clone();
                }
                if t.definition.is_none() {
                    if let Some(d) = definition {
                        t.definition = Some(Definition {
                            encoding: d.encoding.clone(),
                            text: d.text.clone(),
                            source: DefinitionSource::Bag,
                        });
                    }
                }
                file.map.insert(*local_id, i);
            }
        }
        self.topics = topics;
    }

    /// The definition of every topic: the bag's, else the caller's, else
    /// the bundled distribution's; parsed for decoding.
    /// `stored`: the `message_definitions` tables of the `.db3` files, by
    /// full type name.
    fn resolve_definitions(
        &mut self,
        extra: &Definitions,
        stored: &BTreeMap<String, StoredDefinition>,
    ) {
        let mut store = Definitions::bundled(self.distro);
        store.add_from(extra);
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
                if let Some(d) = hit {
                    t.definition = Some(Definition {
                        encoding: d.encoding.clone(),
                        text: d.text.clone(),
                        source: DefinitionSource::Bag,
                    });
                }
            }
            // A bag written without definitions may still name one: an
            // empty `ros2msg` text (rosbags writes that, in `.db3` tables
            // and MCAP schemas alike). Parsed, it is an empty message; a
            // type known to the added or bundled definitions uses those.
            let known = srv.as_deref().unwrap_or(&full);
            if t.definition
                .as_ref()
                .is_some_and(|d| d.encoding == "ros2msg" && is_blank_definition(&d.text))
                && store.get(known).is_some_and(|k| !is_blank_definition(k))
            {
                t.definition = None;
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
                for (k, f) in self.files.iter().enumerate() {
                    let per_topic = f
                        .stats
                        .get_or_init(|| self.storage(k).and_then(|s| s.stats()))
                        .clone()?;
                    for (local, s) in per_topic {
                        let Some(&i) = f.map.get(&local) else {
                            out.orphans.push(Error::Orphans {
                                file: f.path.clone(),
                                topic_id: local,
                                count: s.count,
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
            let start = filter.start.map(|t| t.as_nanos());
            // Where the file's counts are known, its first time: it is
            // opened only once that time may come first (a split bag's
            // files one after the other).
            let first = f.stats.get().and_then(|r| r.as_ref().ok()).map(|st| {
                st.iter()
                    .filter(|(local, _)| topics.as_ref().is_none_or(|ids| ids.contains(local)))
                    .map(|(_, s)| s.start)
                    .min()
            });
            if first == Some(None) {
                // None of its messages pass.
                continue;
            }
            let bound = start
                .unwrap_or(i64::MIN)
                .max(first.flatten().unwrap_or(i64::MIN));
            sources.push(Source {
                file: k,
                filter: StorageFilter {
                    start,
                    end: filter.end.map(|t| t.as_nanos()),
                    topics,
                    mode: filter.mode,
                    resume: None,
                },
                cursor: None,
                head: None,
                bound,
                used: 0,
                done: false,
            });
        }
        Ok(Merge {
            bag: self,
            sources,
            tick: 0,
            strict: filter.mode == ReadMode::Strict,
            stopped: false,
        })
    }

    /// Storage file `k`, opened unless it is open already; another is
    /// closed first when [`OpenOptions::max_open_files`] are open.
    fn storage(&self, k: usize) -> Result<std::sync::Arc<Storage>> {
        let mut pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        pool.tick += 1;
        let tick = pool.tick;
        if let Some(p) = pool.open.iter_mut().find(|p| p.file == k) {
            p.used = tick;
            return Ok(p.storage.clone());
        }
        let f = &self.files[k];
        pool.make_room(self.max_open, f.costly);
        let expansion = Expansion {
            used: f.used_before,
            limit: self.limits.max_bag_expansion,
        };
        let (storage, _) = Storage::open(&f.path, &self.limits, expansion)?;
        let storage = std::sync::Arc::new(storage);
        pool.add(k, storage.clone(), f.costly);
        Ok(storage)
    }

    /// How many storage files are open now.
    #[cfg(test)]
    pub(crate) fn open_files(&self) -> usize {
        self.pool.lock().map_or(0, |p| p.open.len())
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
        if f.identifier == "mcap" {
            msg.offset = Some(m.position);
        }
        Ok(msg)
    }

    fn payload_error(&self, file: usize, m: &RawMessage, expected: String, found: String) -> Error {
        let f = &self.files[file];
        if f.identifier == "mcap" {
            Error::InFile {
                file: f.path.clone(),
                source: logcore::Error::malformed(m.position, expected, found),
            }
        } else {
            Error::Row {
                file: f.path.clone(),
                table: "messages",
                row: m.position as i64,
                expected,
                found,
            }
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

/// Whether a `.msg` text has no field or constant: every line blank or
/// a comment.
fn is_blank_definition(text: &str) -> bool {
    text.lines().all(|l| {
        let l = l.trim();
        l.is_empty() || l.starts_with('#')
    })
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

pub(crate) fn read_metadata(path: &Path) -> Result<Metadata> {
    let text = read_metadata_text(path)?;
    Metadata::parse(&text).map_err(|e| Error::Metadata {
        file: path.to_path_buf(),
        source: e,
    })
}

/// The text of `metadata.yaml`: a regular file (a FIFO, a device or a
/// folder is refused, naming what it is, before it is opened) of at most
/// [`MAX_INPUT`](crate::yaml::MAX_INPUT) bytes, in UTF-8 (a byte that is
/// not is reported at its line, column and offset).
pub(crate) fn read_metadata_text(path: &Path) -> Result<String> {
    use std::io::Read;
    let max = crate::yaml::MAX_INPUT as u64;
    let too_large = |len: u64| Error::Metadata {
        file: path.to_path_buf(),
        source: crate::yaml::YamlError {
            line: 1,
            column: 1,
            offset: 0,
            expected: format!("a document of at most {max} bytes"),
            found: format!("{len} bytes"),
        }
        .into(),
    };
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    not_special(path, &meta)?;
    if meta.len() > max {
        return Err(too_large(meta.len()));
    }
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    // It may have been replaced between the check and the open.
    not_special(path, &file.metadata().map_err(|e| Error::io(path, e))?)?;
    let mut bytes = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > max {
        return Err(too_large(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..offset];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        Error::Metadata {
            file: path.to_path_buf(),
            source: crate::yaml::YamlError {
                line: 1 + before.iter().filter(|&&b| b == b'\n').count(),
                column: 1 + offset - line_start,
                offset,
                expected: "UTF-8 text".into(),
                found: format!(
                    "the byte 0x{:02x}, which is not UTF-8",
                    e.as_bytes()[offset]
                ),
            }
            .into(),
        }
    })
}

/// Refuses a file that is not a regular file, naming what it is.
fn not_special(path: &Path, meta: &std::fs::Metadata) -> Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    Err(Error::io(
        path,
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("is {}, not a regular file", file_kind(meta)),
        ),
    ))
}

/// What a file is, for messages: `a directory`, `a FIFO`, ...
pub(crate) fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    let ty = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ty.is_fifo() {
            return "a FIFO";
        } else if ty.is_char_device() {
            return "a character device";
        } else if ty.is_block_device() {
            return "a block device";
        } else if ty.is_socket() {
            return "a socket";
        }
    }
    if ty.is_dir() {
        "a directory"
    } else if ty.is_symlink() {
        "a symbolic link"
    } else if ty.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

/// Checks one storage path of the metadata: relative, no `..`, no
/// root or prefix, not empty.
pub(crate) fn check_entry(metadata: &Path, field: &'static str, entry: &str) -> Result<PathBuf> {
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
    // What makes a path absolute is the system's: a leading `/` on Unix,
    // where `:` and `\` are ordinary file-name characters (`x:y_0.db3` is
    // a file of the bag folder); a root, a drive or a UNC prefix (`\x`,
    // `C:\x`, `C:x`, `\\server\x`) on Windows, where `\` also separates
    // components, so that `a\..\b` holds `..` there.
    let p = Path::new(entry);
    if p.is_absolute() || p.has_root() {
        return Err(refuse(
            "it is absolute (storage paths are relative to the bag folder)",
        ));
    }
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(n) => out.push(n),
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
    // Each file once: by resolved path, and by device and inode (hard
    // links).
    let mut seen: HashMap<PathBuf, usize> = HashMap::new();
    let mut seen_ids: HashMap<(u64, u64), usize> = HashMap::new();
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
        let first = seen
            .get(&canon)
            .or_else(|| file_id(&canon).and_then(|id| seen_ids.get(&id)))
            .copied();
        if let Some(j) = first {
            let entry = |i: usize| {
                md.relative_file_paths
                    .get(i)
                    .or_else(|| md.files.get(i).map(|f| &f.path))
                    .cloned()
                    .unwrap_or_default()
            };
            return Err(Error::UnsafePath {
                metadata: metadata_path.to_path_buf(),
                field: if md.relative_file_paths.is_empty() {
                    "files"
                } else {
                    "relative_file_paths"
                },
                entry: entry(k),
                reason: format!(
                    "it names the same file as entry {j} (`{}`): a storage file is listed once \
                     and read once",
                    entry(j)
                ),
            });
        }
        seen.insert(canon.clone(), k);
        if let Some(id) = file_id(&canon) {
            seen_ids.insert(id, k);
        }
        out.push(p);
    }
    Ok(out)
}

/// One storage file in the merge: read while it is open, else what is
/// needed to take its reading up again.
/// The device and inode of `path`, where the system has them.
#[cfg(unix)]
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(_: &Path) -> Option<(u64, u64)> {
    None
}

/// Refuses a bag whose zstd-compressed storage files declare more
/// uncompressed bytes together than [`Limits::max_bag_expansion`],
/// before any is decompressed (the decompression checks it again, for
/// files that declare nothing or less than they hold).
fn check_declared_sizes(paths: &[PathBuf], limits: &Limits) -> Result<()> {
    let mut used = 0u64;
    for p in paths {
        let Some(declared) = Storage::declared_size(p) else {
            continue;
        };
        let expansion = Expansion {
            used,
            limit: limits.max_bag_expansion,
        };
        used = used.saturating_add(declared);
        if used > limits.max_bag_expansion {
            return Err(expansion.refuse(
                p,
                "a zstd-compressed storage file declaring",
                format!(
                    "{declared} bytes uncompressed, more than the {} bytes left",
                    limits.max_bag_expansion.saturating_sub(expansion.used)
                ),
            ));
        }
    }
    Ok(())
}

struct Source {
    file: usize,
    /// Its filter, with where to go on when it is opened again.
    filter: StorageFilter,
    /// The reading, while the file is open for this merge.
    cursor: Option<Cursor>,
    /// Its next message, read and not given yet.
    head: Option<RawMessage>,
    /// No message of it comes before this time (the head's, once read).
    bound: i64,
    /// When the merge last read it (the least recent is closed first).
    used: u64,
    done: bool,
}

/// The time-ordered merge of the storage files' messages. A file is
/// opened when its next message may be the earliest (first to learn
/// its next message's time), at most [`OpenOptions::max_open_files`] at
/// once, and closed when done or when another must be opened; it is then
/// kept as its next time and where to go on, so memory does not grow
/// with the number of files beyond a few words each.
struct Merge<'a> {
    bag: &'a Bag2,
    sources: Vec<Source>,
    tick: u64,
    strict: bool,
    stopped: bool,
}

impl Merge<'_> {
    /// Opens source `k` for reading, closing the least recently read open
    /// one first when as many as the bag allows are open.
    fn open(&mut self, k: usize) -> Result<()> {
        let open = self.sources.iter().filter(|s| s.cursor.is_some()).count();
        if open >= self.bag.max_open {
            if let Some(s) = self
                .sources
                .iter_mut()
                .filter(|s| s.cursor.is_some())
                .min_by_key(|s| s.used)
            {
                // Its next message is read again when it is reopened; its
                // time stays the bound.
                s.cursor = None;
                s.head = None;
            }
        }
        let s = &mut self.sources[k];
        let storage = self.bag.storage(s.file)?;
        s.cursor = Some(Cursor::start(storage, s.filter.clone())?);
        Ok(())
    }
}

impl Iterator for Merge<'_> {
    type Item = Result<Message<'static>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.stopped {
                return None;
            }
            // The source whose next message may come first (ties in file
            // order).
            let k = self
                .sources
                .iter()
                .enumerate()
                .filter(|(_, s)| !s.done)
                .min_by_key(|(k, s)| (s.bound, *k))?
                .0;
            self.tick += 1;
            let tick = self.tick;
            if let Some(m) = self.sources[k].head.take() {
                let s = &mut self.sources[k];
                s.used = tick;
                let same_time = match s.filter.resume {
                    Some(r) if r.time == m.time => r.same_time + 1,
                    _ => 1,
                };
                s.filter.resume = Some(Resume {
                    time: m.time,
                    position: m.position,
                    same_time,
                });
                let r = self.bag.to_message(s.file, m);
                if r.is_err() && self.strict {
                    self.stopped = true;
                }
                return Some(r);
            }
            if self.sources[k].cursor.is_none() {
                if let Err(e) = self.open(k) {
                    // A file that cannot be opened again ends its part.
                    self.sources[k].done = true;
                    if self.strict {
                        self.stopped = true;
                    }
                    return Some(Err(e));
                }
            }
            let s = &mut self.sources[k];
            s.used = tick;
            match s.cursor.as_mut().and_then(Cursor::next_message) {
                Some(Ok(m)) => {
                    s.bound = s.bound.max(m.time);
                    s.head = Some(m);
                }
                Some(Err(e)) => {
                    if self.strict {
                        self.stopped = true;
                    }
                    return Some(Err(e));
                }
                None => {
                    s.done = true;
                    s.cursor = None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::{Bag2Writer, StorageId, TopicDefinition, WriteOptions};

    #[test]
    fn no_more_files_are_open_than_allowed() {
        let dir = std::env::temp_dir().join(format!("rosbag2-unit-pool-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("split");
        let options = WriteOptions::new(StorageId::Sqlite3).with_max_bagfile_size(1);
        let mut w = Bag2Writer::create(&path, options).unwrap();
        let def = TopicDefinition::msg("string data\n");
        let t = w
            .add_topic("/chatter", "std_msgs/msg/String", &def, &[])
            .unwrap();
        for i in 0..20u8 {
            w.write(t, i64::from(i), &[0, 1, 0, 0, 2, 0, 0, 0, b'a' + i, 0])
                .unwrap();
        }
        w.finish().unwrap();
        let bag = Bag2::open_with(&path, OpenOptions::default().with_max_open_files(3)).unwrap();
        assert_eq!(bag.files().len(), 20);
        assert!(
            bag.open_files() <= 3,
            "{} open after opening",
            bag.open_files()
        );
        let mut times = Vec::new();
        for m in bag.messages(&MessageFilter::all()).unwrap() {
            times.push(m.unwrap().log_time.0);
            assert!(bag.open_files() <= 3, "{} open", bag.open_files());
        }
        assert_eq!(times, (0..20).collect::<Vec<i64>>());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
