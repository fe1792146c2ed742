//! One storage file being written: SQLite (`.db3`, the schema of rosbag2
//! jazzy, version 4) or MCAP (profile `ros2`, through `mcapfile`).

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::metadata::TopicMetadata;

/// The tables of the current rosbag2 SQLite schema (schema version 4).
const SQLITE_SCHEMA: &str = "\
CREATE TABLE schema(schema_version INTEGER PRIMARY KEY,ros_distro TEXT NOT NULL);
CREATE TABLE metadata(id INTEGER PRIMARY KEY,metadata_version INTEGER NOT NULL,metadata TEXT NOT NULL);
CREATE TABLE topics(id INTEGER PRIMARY KEY,name TEXT NOT NULL,type TEXT NOT NULL,serialization_format TEXT NOT NULL,offered_qos_profiles TEXT NOT NULL,type_description_hash TEXT NOT NULL);
CREATE TABLE message_definitions(id INTEGER PRIMARY KEY,topic_type TEXT NOT NULL,encoding TEXT NOT NULL,encoded_message_definition TEXT NOT NULL,type_description_hash TEXT NOT NULL);
CREATE TABLE messages(id INTEGER PRIMARY KEY,topic_id INTEGER NOT NULL,timestamp INTEGER NOT NULL, data BLOB NOT NULL);
CREATE INDEX timestamp_idx ON messages (timestamp ASC);
";

/// The SQLite schema version written.
pub(crate) const SQLITE_SCHEMA_VERSION: i64 = 4;

/// A topic as the storage files keep it: its metadata (QoS profiles
/// as YAML text), its id and its definition.
#[derive(Debug, Clone)]
pub(crate) struct FileTopic {
    pub(crate) id: u32,
    pub(crate) meta: TopicMetadata,
    pub(crate) def_encoding: String,
    pub(crate) def_text: String,
}

pub(crate) enum StorageFile {
    Sqlite {
        path: PathBuf,
        conn: rusqlite::Connection,
        types: HashSet<String>,
    },
    Mcap {
        path: PathBuf,
        writer: Box<mcapfile::Writer<BufWriter<File>>>,
        /// Topic id to channel id.
        channels: BTreeMap<u32, u16>,
        /// Type name to schema id.
        schemas: BTreeMap<String, u16>,
        distro: String,
    },
}

fn sq(path: &Path, what: &str) -> impl Fn(rusqlite::Error) -> Error {
    let path = path.to_path_buf();
    let what = what.to_string();
    move |e| Error::sqlite(&path, what.clone(), e)
}

fn mc(path: &Path) -> impl Fn(logcore::Error) -> Error {
    let path = path.to_path_buf();
    move |e| Error::InFile {
        file: path.clone(),
        source: e,
    }
}

impl StorageFile {
    /// Creates the SQLite file `path` (which must not exist) with its
    /// tables, in one transaction committed by [`close`](Self::close).
    pub(crate) fn sqlite(path: &Path, distro: &str) -> Result<Self> {
        use rusqlite::OpenFlags;
        if path.exists() {
            return Err(Error::io(
                path,
                std::io::Error::new(std::io::ErrorKind::AlreadyExists, "already exists"),
            ));
        }
        let conn = rusqlite::Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(sq(path, "creating the database"))?;
        // No `-journal` or `-wal` beside the file once it is closed: the
        // bag is only renamed into place once complete, so the journal
        // is kept in memory.
        conn.execute_batch("PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF;")
            .map_err(sq(path, "setting the journal mode"))?;
        conn.execute_batch(SQLITE_SCHEMA)
            .map_err(sq(path, "creating the tables"))?;
        conn.execute(
            "INSERT INTO schema(schema_version, ros_distro) VALUES (?1, ?2)",
            rusqlite::params![SQLITE_SCHEMA_VERSION, distro],
        )
        .map_err(sq(path, "writing the table `schema`"))?;
        conn.execute_batch("BEGIN")
            .map_err(sq(path, "starting a transaction"))?;
        Ok(StorageFile::Sqlite {
            path: path.to_path_buf(),
            conn,
            types: HashSet::new(),
        })
    }

    /// Creates the MCAP file `path` (which must not exist). `chunk_zstd`:
    /// chunks compressed with zstd (not when the payloads or the file
    /// are compressed already).
    pub(crate) fn mcap(path: &Path, distro: &str, chunk_zstd: bool) -> Result<Self> {
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        let opts = mcapfile::WriteOptions {
            profile: "ros2".into(),
            library: concat!("rosbag2 (robolog) ", env!("CARGO_PKG_VERSION")).into(),
            compression: if chunk_zstd {
                mcapfile::Compression::Zstd
            } else {
                mcapfile::Compression::None
            },
            ..mcapfile::WriteOptions::default()
        };
        let writer = mcapfile::Writer::new(BufWriter::new(file), opts).map_err(mc(path))?;
        Ok(StorageFile::Mcap {
            path: path.to_path_buf(),
            writer: Box::new(writer),
            channels: BTreeMap::new(),
            schemas: BTreeMap::new(),
            distro: distro.to_string(),
        })
    }

    pub(crate) fn path(&self) -> &Path {
        match self {
            StorageFile::Sqlite { path, .. } | StorageFile::Mcap { path, .. } => path,
        }
    }

    /// Declares a topic (its definition once per type).
    pub(crate) fn add_topic(&mut self, t: &FileTopic) -> Result<()> {
        match self {
            StorageFile::Sqlite { path, conn, types } => {
                // A type without definition gets no row (rosbags refuses
                // an encoding other than `ros2msg` or `ros2idl`).
                if !t.def_encoding.is_empty() && types.insert(t.meta.type_name.clone()) {
                    conn.execute(
                        "INSERT INTO message_definitions(topic_type, encoding, \
                         encoded_message_definition, type_description_hash) \
                         VALUES (?1, ?2, ?3, ?4)",
                        rusqlite::params![
                            t.meta.type_name,
                            t.def_encoding,
                            t.def_text,
                            t.meta.type_description_hash
                        ],
                    )
                    .map_err(sq(path, "writing the table `message_definitions`"))?;
                }
                conn.execute(
                    "INSERT INTO topics(id, name, type, serialization_format, \
                     offered_qos_profiles, type_description_hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    rusqlite::params![
                        i64::from(t.id),
                        t.meta.name,
                        t.meta.type_name,
                        t.meta.serialization_format,
                        t.meta.offered_qos_profiles,
                        t.meta.type_description_hash
                    ],
                )
                .map_err(sq(path, "writing the table `topics`"))?;
                Ok(())
            }
            StorageFile::Mcap {
                path,
                writer,
                channels,
                schemas,
                ..
            } => {
                let schema = match schemas.get(&t.meta.type_name) {
                    Some(&id) => id,
                    None => {
                        let id = writer
                            .add_schema(&t.meta.type_name, &t.def_encoding, t.def_text.as_bytes())
                            .map_err(mc(path))?;
                        schemas.insert(t.meta.type_name.clone(), id);
                        id
                    }
                };
                let mut meta = BTreeMap::new();
                meta.insert(
                    "offered_qos_profiles".to_string(),
                    t.meta.offered_qos_profiles.clone(),
                );
                meta.insert(
                    "topic_type_hash".to_string(),
                    t.meta.type_description_hash.clone(),
                );
                let ch = writer
                    .add_channel(schema, &t.meta.name, &t.meta.serialization_format, &meta)
                    .map_err(mc(path))?;
                channels.insert(t.id, ch);
                Ok(())
            }
        }
    }

    /// Writes one message (its payload as stored).
    pub(crate) fn write(&mut self, topic: u32, time: i64, data: &[u8]) -> Result<()> {
        match self {
            StorageFile::Sqlite { path, conn, .. } => {
                let mut st = conn
                    .prepare_cached(
                        "INSERT INTO messages(topic_id, timestamp, data) VALUES (?1, ?2, ?3)",
                    )
                    .map_err(sq(path, "writing the table `messages`"))?;
                st.execute(rusqlite::params![i64::from(topic), time, data])
                    .map_err(sq(path, "writing the table `messages`"))?;
                Ok(())
            }
            StorageFile::Mcap {
                path,
                writer,
                channels,
                ..
            } => {
                let t = u64::try_from(time).map_err(|_| Error::Write {
                    path: path.clone(),
                    reason: format!("MCAP cannot store the negative time {time} ns"),
                })?;
                let ch = *channels.get(&topic).ok_or_else(|| Error::Write {
                    path: path.clone(),
                    reason: format!("topic {topic} was not added"),
                })?;
                writer.write_message(ch, 0, t, t, data).map_err(mc(path))
            }
        }
    }

    /// Completes the file: `metadata` (the inline YAML) in the `.db3`
    /// `metadata` table or the MCAP `rosbag2` metadata record, then the
    /// commit or the MCAP summary, and a sync to disk.
    pub(crate) fn close(self, metadata: &str) -> Result<PathBuf> {
        match self {
            StorageFile::Sqlite { path, conn, .. } => {
                conn.execute(
                    "INSERT INTO metadata(metadata_version, metadata) VALUES (?1, ?2)",
                    rusqlite::params![i64::from(super::meta::VERSION), metadata],
                )
                .map_err(sq(&path, "writing the table `metadata`"))?;
                conn.execute_batch("COMMIT")
                    .map_err(sq(&path, "committing"))?;
                conn.close()
                    .map_err(|(_, e)| Error::sqlite(&path, "closing", e))?;
                sync(&path)?;
                Ok(path)
            }
            StorageFile::Mcap {
                path,
                writer,
                distro,
                ..
            } => {
                let mut w = *writer;
                let mut meta = BTreeMap::new();
                meta.insert("ROS_DISTRO".to_string(), distro);
                meta.insert("serialized_metadata".to_string(), metadata.to_string());
                w.write_metadata("rosbag2", &meta).map_err(mc(&path))?;
                let buf = w.finish().map_err(mc(&path))?;
                let file = buf
                    .into_inner()
                    .map_err(|e| Error::io(&path, e.into_error()))?;
                file.sync_all().map_err(|e| Error::io(&path, e))?;
                Ok(path)
            }
        }
    }
}

fn sync(path: &Path) -> Result<()> {
    File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(|e| Error::io(path, e))
}

/// Compresses the complete file `path` to `path.zstd` (the file mode of
/// rosbag2), syncs it and removes `path`; the new path.
pub(crate) fn zstd_file(path: &Path, level: i32) -> Result<PathBuf> {
    let mut name = path.as_os_str().to_os_string();
    name.push(".zstd");
    let out = PathBuf::from(name);
    let mut input = File::open(path).map_err(|e| Error::io(path, e))?;
    let file = File::options()
        .write(true)
        .create_new(true)
        .open(&out)
        .map_err(|e| Error::io(&out, e))?;
    let mut enc = zstd::stream::write::Encoder::new(BufWriter::new(file), level)
        .map_err(|e| Error::io(&out, e))?;
    std::io::copy(&mut input, &mut enc).map_err(|e| Error::io(&out, e))?;
    let buf = enc.finish().map_err(|e| Error::io(&out, e))?;
    let file = buf
        .into_inner()
        .map_err(|e| Error::io(&out, e.into_error()))?;
    file.sync_all().map_err(|e| Error::io(&out, e))?;
    std::fs::remove_file(path).map_err(|e| Error::io(path, e))?;
    Ok(out)
}
