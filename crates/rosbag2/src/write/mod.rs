//! [`Bag2Writer`]: writes a rosbag2 bag, SQLite (`.db3`) or MCAP storage,
//! with `metadata.yaml` version 9 as rosbag2 jazzy writes it.
//!
//! - **Type hashes**: a topic added without a `type_description_hash`
//!   gets the RIHS01 hash of its definition (when that defines every type
//!   it uses), in `metadata.yaml`, the SQLite tables and the MCAP
//!   channels' `topic_type_hash`; else it stays empty, as rosbag2 leaves
//!   it for unknown types.
//! - **SQLite**: the tables of the current rosbag2 schema (`schema`
//!   version 4 with the distribution, `metadata` holding the metadata
//!   YAML, `topics` with QoS profiles and type hash, `messages` with the
//!   timestamp index, `message_definitions`).
//! - **MCAP** through `mcapfile::Writer`: profile `ros2`, one schema per
//!   type (encoding `ros2msg` or `ros2idl`, the concatenated definition),
//!   one channel per topic (message encoding `cdr`, metadata
//!   `offered_qos_profiles` and `topic_type_hash`), a `rosbag2` metadata
//!   record (`ROS_DISTRO`, `serialized_metadata`); chunks zstd-compressed
//!   unless the bag is.
//! - **Compression** (zstd): `MESSAGE` compresses each payload, `FILE`
//!   each storage file once complete (`.db3.zstd`, `.mcap.zstd`).
//! - **Splitting**: with [`WriteOptions::max_bagfile_size`], a new
//!   storage file (`NAME_1.db3`, ...) is started once the messages of the
//!   current one reach that many bytes (payloads as stored plus a record
//!   overhead; the file itself may differ a little, as in rosbag2).
//! - **Safety**: everything is written into a temporary folder beside
//!   the target (`.NAME.rosbag2-tmp-PID`), renamed into place only when
//!   [`Bag2Writer::finish`] succeeds. An existing target is refused
//!   unless [`WriteOptions::overwrite`] is set; then it is replaced only
//!   once the new bag is complete, and only if it is empty or a bag
//!   folder holding nothing but its bag ([`check_replaceable`]). A
//!   writer dropped before `finish`, or whose `finish` fails, removes
//!   its temporary folder.
//!
//! Messages may come in any time order: SQLite readers order a file's
//! messages by the timestamp index, MCAP readers by the message indexes
//! (rosbags does, tested). Split files are read one after the other by
//! rosbag2 and rosbags, so a message older than the previous file's
//! newest is read out of order by them when splitting (this crate's
//! reader merges the files by time).

mod files;
mod logwriter;
mod meta;
mod options;
mod replace;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::metadata::{FileMetadata, Metadata, QosProfile, TopicMetadata};
use files::{FileTopic, StorageFile};
pub use options::{CompressionMode, StorageId, TopicDefinition, TopicSpec, WriteOptions};
pub use replace::{NotABag, check_replaceable};

struct TopicState {
    file: FileTopic,
    count: u64,
}

#[derive(Default)]
struct Span {
    count: u64,
    start: i64,
    end: i64,
}

impl Span {
    fn add(&mut self, t: i64) {
        if self.count == 0 {
            (self.start, self.end) = (t, t);
        }
        self.count += 1;
        self.start = self.start.min(t);
        self.end = self.end.max(t);
    }

    /// `starting_time` and `duration` as rosbag2 writes them (an empty
    /// span starts at the largest time).
    fn times(&self) -> (i64, i64) {
        if self.count == 0 {
            (i64::MAX, 0)
        } else {
            (self.start, self.end.saturating_sub(self.start))
        }
    }
}

/// Writes a rosbag2 bag (see the [module docs](self)).
///
/// ```
/// use rosbag2::{Bag2Writer, TopicDefinition, WriteOptions};
/// let dir = std::env::temp_dir().join(format!("doc-bag2-writer-{}", std::process::id()));
/// let _ = std::fs::remove_dir_all(&dir);
/// let mut w = Bag2Writer::create(&dir, WriteOptions::default())?;
/// let def = TopicDefinition::msg("string data\n");
/// let t = w.add_topic("/chatter", "std_msgs/msg/String", &def, &[])?;
/// // CDR: encapsulation header, then the string (length with its NUL).
/// w.write(t, 1_000, b"\x00\x01\x00\x00\x03\x00\x00\x00hi\x00")?;
/// let path = w.finish()?;
/// let bag = rosbag2::Bag2::open(&path)?;
/// assert_eq!(bag.topics()[0].name, "/chatter");
/// std::fs::remove_dir_all(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Bag2Writer {
    target: PathBuf,
    temp: PathBuf,
    name: String,
    options: WriteOptions,
    topics: Vec<TopicState>,
    by_key: HashMap<(String, String, String), u32>,
    current: Option<StorageFile>,
    current_span: Span,
    current_size: u64,
    files: Vec<FileMetadata>,
    all: Span,
    done: bool,
    compressor: Option<zstd::bulk::Compressor<'static>>,
    /// The bundled interfaces, loaded for `LogWriter` channels without a
    /// definition.
    definitions: Option<crate::interfaces::Definitions>,
}

impl std::fmt::Debug for Bag2Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bag2Writer")
            .field("target", &self.target)
            .field("temp", &self.temp)
            .field("topics", &self.topics.len())
            .finish_non_exhaustive()
    }
}

fn write_err(path: &Path, reason: impl Into<String>) -> Error {
    Error::Write {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

impl Bag2Writer {
    /// Starts a bag to be renamed to `folder` by [`finish`](Self::finish):
    /// refuses an existing `folder` unless `options.overwrite`, creates
    /// the temporary folder beside it and the first storage file.
    pub fn create(folder: impl AsRef<Path>, options: WriteOptions) -> Result<Self> {
        let target = folder.as_ref().to_path_buf();
        let name = target
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| !n.is_empty() && *n != "." && *n != "..")
            .ok_or_else(|| write_err(&target, "expected a folder name (UTF-8) to create"))?
            .to_string();
        check_target(&target, options.overwrite)?;
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let pid = std::process::id();
        let mut n = 0u32;
        let temp = loop {
            let t = if n == 0 {
                parent.join(format!(".{name}.rosbag2-tmp-{pid}"))
            } else {
                parent.join(format!(".{name}-{n}.rosbag2-tmp-{pid}"))
            };
            match std::fs::create_dir(&t) {
                Ok(()) => break t,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => n += 1,
                Err(e) => return Err(Error::io(&t, e)),
            }
        };
        let compressor = match options.compression {
            CompressionMode::Message => Some(
                zstd::bulk::Compressor::new(options.compression_level)
                    .map_err(|e| Error::io(&temp, e))?,
            ),
            _ => None,
        };
        let mut w = Bag2Writer {
            target,
            temp,
            name,
            options,
            topics: Vec::new(),
            by_key: HashMap::new(),
            current: None,
            current_span: Span::default(),
            current_size: 0,
            files: Vec::new(),
            all: Span::default(),
            done: false,
            compressor,
            definitions: None,
        };
        // On error the temporary folder goes with `w`.
        w.open_file()?;
        Ok(w)
    }

    /// The folder the bag is renamed to by [`finish`](Self::finish).
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// The storage plugin the bag is written with.
    pub fn storage(&self) -> StorageId {
        self.options.storage
    }

    /// The temporary folder the bag is written into.
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    fn open_file(&mut self) -> Result<()> {
        let ext = self.options.storage.extension();
        let path = self
            .temp
            .join(format!("{}_{}.{ext}", self.name, self.files.len()));
        let distro = &self.options.distro;
        let mut f = match self.options.storage {
            StorageId::Sqlite3 => StorageFile::sqlite(&path, distro)?,
            StorageId::Mcap => StorageFile::mcap(
                &path,
                distro,
                self.options.compression == CompressionMode::None,
            )?,
        };
        for t in &self.topics {
            f.add_topic(&t.file)?;
        }
        self.current = Some(f);
        self.current_span = Span::default();
        self.current_size = 0;
        Ok(())
    }

    /// Adds a CDR topic with its definition and offered QoS profiles;
    /// its id for [`write`](Self::write). A topic added again with the
    /// same type keeps its id.
    pub fn add_topic(
        &mut self,
        name: &str,
        type_name: &str,
        definition: &TopicDefinition,
        qos: &[QosProfile],
    ) -> Result<u32> {
        let mut spec = TopicSpec::new(name, type_name);
        spec.definition = definition.clone();
        spec.qos = qos.to_vec();
        self.add_topic_with(spec)
    }

    /// Adds a topic with every field the bag keeps; its id. A spec
    /// without a type description hash gets the one its CDR definition
    /// gives ([`TopicDefinition::recorded_type_hash`]), if any.
    pub fn add_topic_with(&mut self, mut spec: TopicSpec) -> Result<u32> {
        self.check_open()?;
        if spec.name.is_empty() || spec.type_name.is_empty() {
            return Err(write_err(
                &self.target,
                format!(
                    "a topic needs a name and a type, found `{}` of type `{}`",
                    spec.name, spec.type_name
                ),
            ));
        }
        let key = (
            spec.name.clone(),
            spec.type_name.clone(),
            spec.serialization_format.clone(),
        );
        if let Some(&id) = self.by_key.get(&key) {
            return Ok(id);
        }
        let id = u32::try_from(self.topics.len() + 1)
            .map_err(|_| write_err(&self.target, "too many topics"))?;
        if spec.type_description_hash.is_empty() && spec.serialization_format == "cdr" {
            if let Some(h) = spec.definition.recorded_type_hash(&spec.type_name) {
                spec.type_description_hash = h;
            }
        }
        let file = FileTopic {
            id,
            meta: TopicMetadata {
                name: spec.name.clone(),
                type_name: spec.type_name.clone(),
                serialization_format: spec.serialization_format.clone(),
                offered_qos_profiles: meta::qos_text(&spec.qos),
                qos_profiles: meta::named_qos(&spec.qos),
                type_description_hash: spec.type_description_hash.clone(),
                message_count: 0,
            },
            def_encoding: spec.definition.encoding.clone(),
            def_text: spec.definition.text.clone(),
        };
        if let Some(f) = &mut self.current {
            f.add_topic(&file)?;
        }
        self.by_key.insert(key, id);
        self.topics.push(TopicState { file, count: 0 });
        Ok(id)
    }

    fn check_open(&self) -> Result<()> {
        if self.done {
            Err(write_err(&self.target, "the bag is already finished"))
        } else {
            Ok(())
        }
    }

    /// Writes one message: the CDR payload `data` of topic `topic` (an
    /// id [`add_topic`](Self::add_topic) returned) received at
    /// `timestamp_ns` (nanoseconds since the epoch; any order).
    pub fn write(&mut self, topic: u32, timestamp_ns: i64, data: &[u8]) -> Result<()> {
        self.check_open()?;
        let i = (topic as usize)
            .checked_sub(1)
            .filter(|&i| i < self.topics.len())
            .ok_or_else(|| write_err(&self.target, format!("topic id {topic} was not added")))?;
        if let (Some(max), Some(_)) = (self.options.max_bagfile_size, &self.current) {
            if self.current_size >= max && self.current_span.count > 0 {
                self.close_file()?;
                self.open_file()?;
            }
        }
        let compressed;
        let payload = match &mut self.compressor {
            Some(c) => {
                compressed = c.compress(data).map_err(|e| Error::io(&self.temp, e))?;
                &compressed[..]
            }
            None => data,
        };
        let f = self
            .current
            .as_mut()
            .ok_or_else(|| write_err(&self.target, "no storage file is open"))?;
        f.write(topic, timestamp_ns, payload)?;
        self.current_size += payload.len() as u64 + 32;
        self.current_span.add(timestamp_ns);
        self.all.add(timestamp_ns);
        self.topics[i].count += 1;
        Ok(())
    }

    fn bag_meta(&self, files: &[FileMetadata]) -> Metadata {
        let (starting_time, duration) = self.all.times();
        let (format, mode) = match self.options.compression {
            CompressionMode::None => ("", ""),
            CompressionMode::Message => ("zstd", "MESSAGE"),
            CompressionMode::File => ("zstd", "FILE"),
        };
        Metadata {
            version: meta::VERSION,
            storage_identifier: self.options.storage.identifier().to_string(),
            relative_file_paths: files.iter().map(|f| f.path.clone()).collect(),
            starting_time,
            duration,
            message_count: self.all.count,
            topics: self
                .topics
                .iter()
                .map(|t| TopicMetadata {
                    message_count: t.count,
                    ..t.file.meta.clone()
                })
                .collect(),
            compression_format: format.to_string(),
            compression_mode: mode.to_string(),
            files: files.to_vec(),
            custom_data: self.options.custom_data.clone(),
            ros_distro: self.options.distro.clone(),
        }
    }

    /// Closes the current file (keeping the metadata so far in it),
    /// compresses it in `FILE` mode, and records it in `files`.
    fn close_file(&mut self) -> Result<()> {
        let Some(f) = self.current.take() else {
            return Ok(());
        };
        let file_name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
        let zstd_file = self.options.compression == CompressionMode::File;
        let mut stored = file_name(f.path()).unwrap_or_default();
        if zstd_file {
            stored.push_str(".zstd");
        }
        let (starting_time, duration) = self.current_span.times();
        let mut files = self.files.clone();
        files.push(FileMetadata {
            path: stored.clone(),
            starting_time,
            duration,
            message_count: self.current_span.count,
        });
        let inline = self.bag_meta(&files).to_yaml_inline();
        let path = f.close(&inline)?;
        if zstd_file {
            files::zstd_file(&path, self.options.compression_level)?;
        }
        self.files = files;
        Ok(())
    }

    /// Completes the bag: closes the storage file, writes
    /// `metadata.yaml`, and renames the temporary folder to the target
    /// (replacing an existing one with [`WriteOptions::overwrite`]). The
    /// bag's path. On error the temporary folder is removed and the
    /// target left as it was.
    pub fn finish(mut self) -> Result<PathBuf> {
        self.finish_in_place()?;
        Ok(self.target.clone())
    }

    pub(crate) fn finish_in_place(&mut self) -> Result<()> {
        self.check_open()?;
        // An embedding program's hook may unwind here: the writer, not
        // done, removes its temporary folder on drop.
        logcore::interrupt::before_commit();
        self.done = true;
        let r = self.complete();
        if r.is_err() {
            self.discard();
        }
        r
    }

    fn complete(&mut self) -> Result<()> {
        self.close_file()?;
        let text = self.bag_meta(&self.files).to_yaml();
        let mpath = self.temp.join("metadata.yaml");
        std::fs::write(&mpath, text).map_err(|e| Error::io(&mpath, e))?;
        std::fs::File::open(&mpath)
            .and_then(|f| f.sync_all())
            .map_err(|e| Error::io(&mpath, e))?;
        sync_dir(&self.temp);
        self.move_into_place()
    }

    fn move_into_place(&mut self) -> Result<()> {
        check_target(&self.target, self.options.overwrite)?;
        if std::fs::symlink_metadata(&self.target).is_err() {
            std::fs::rename(&self.temp, &self.target).map_err(|e| Error::io(&self.target, e))?;
            self.temp.clear();
            sync_parent(&self.target);
            return Ok(());
        }
        // Replace: the old bag aside, the new one in, the old one removed.
        let old = self
            .temp
            .with_extension(format!("rosbag2-old-{}", std::process::id()));
        std::fs::rename(&self.target, &old).map_err(|e| Error::io(&self.target, e))?;
        if let Err(e) = std::fs::rename(&self.temp, &self.target) {
            let _ = std::fs::rename(&old, &self.target);
            return Err(Error::io(&self.target, e));
        }
        self.temp.clear();
        sync_parent(&self.target);
        std::fs::remove_dir_all(&old).map_err(|e| Error::io(&old, e))
    }

    /// Drops the open file and removes the temporary folder.
    fn discard(&mut self) {
        self.current = None;
        if !self.temp.as_os_str().is_empty() {
            let _ = std::fs::remove_dir_all(&self.temp);
            self.temp.clear();
        }
    }
}

/// Makes the rename of `path` durable where the system allows it (best
/// effort: not every system opens folders).
fn sync_parent(path: &Path) {
    if let Some(p) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        sync_dir(p);
    }
}

/// Syncs the entries of folder `dir` (best effort).
fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Refuses an existing `target` unless `overwrite`, and with it one
/// that [`check_replaceable`] refuses.
fn check_target(target: &Path, overwrite: bool) -> Result<()> {
    if std::fs::symlink_metadata(target).is_err() {
        return Ok(());
    }
    if !overwrite {
        return Err(write_err(
            target,
            "it already exists (set `WriteOptions::overwrite` to replace it)",
        ));
    }
    check_replaceable(target).map_err(|e| write_err(target, e.to_string()))
}

impl Drop for Bag2Writer {
    /// A writer dropped before [`finish`](Bag2Writer::finish) removes
    /// its temporary folder.
    fn drop(&mut self) {
        self.discard();
    }
}
