//! The storage files of a bag: SQLite (`.db3`) through `rusqlite`, MCAP
//! through `mcapfile`, and the zstd-compressed forms of both.
//!
//! Each file says its topics (with the ids it uses for them), the
//! definitions it stores, per-topic counts and time ranges, and yields
//! its messages in log-time order with the time range and topics of a
//! filter applied by the storage itself (in the SQL query; through the
//! MCAP index).
//!
//! SQLite inputs are never written: a database is opened with
//! `immutable=1` (read only, no locks, no `-wal`/`-shm` files made next
//! to it), unless a non-empty `-wal` or `-journal` file lies next to it;
//! then rows live in that file too, and SQLite can only read them through
//! a connection that may write, so the database and its log are copied
//! to a temporary folder and the copy is opened (and dropped with the
//! bag).

use std::collections::{BTreeMap, VecDeque};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use bytes::Bytes;
use logcore::{FileBytes, Limits, LogReader, MessageFilter};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use crate::error::{Error, Result};
use crate::metadata::TopicMetadata;
use crate::temp::TempDir;

/// A topic as one storage file declares it.
#[derive(Debug, Clone, Default)]
pub(crate) struct StorageTopic {
    /// The file's own id of the topic.
    pub(crate) local_id: i64,
    /// Name, type, serialization format, QoS text and type hash, as the
    /// file stores them (the parsed QoS profiles and the message count
    /// are left empty: the bag fills in what it uses).
    pub(crate) topic: TopicMetadata,
    /// The definition the file stores with the topic (MCAP schemas).
    pub(crate) definition: Option<StoredDefinition>,
}

/// A definition a storage file holds.
#[derive(Debug, Clone, Default)]
pub(crate) struct StoredDefinition {
    /// `ros2msg`, `ros2idl` (or what the file says).
    pub(crate) encoding: String,
    pub(crate) text: String,
}

/// Count and time range of one topic's messages in one file.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TopicStats {
    pub(crate) count: u64,
    pub(crate) start: i64,
    pub(crate) end: i64,
}

/// One message as a storage file holds it.
#[derive(Debug, Clone)]
pub(crate) struct RawMessage {
    pub(crate) local_id: i64,
    pub(crate) time: i64,
    pub(crate) data: Bytes,
    /// The row id (SQLite) or the byte offset of the record (MCAP).
    pub(crate) position: u64,
    pub(crate) publish_time: Option<i64>,
    pub(crate) sequence: Option<u64>,
}

/// What a storage file's messages are read with.
#[derive(Debug, Clone, Default)]
pub(crate) struct StorageFilter {
    pub(crate) start: Option<i64>,
    pub(crate) end: Option<i64>,
    /// Only these local topic ids (`None`: all).
    pub(crate) topics: Option<Vec<i64>>,
    pub(crate) mode: logcore::ReadMode,
    /// Where a reading taken up again goes on: after this message.
    pub(crate) resume: Option<Resume>,
}

/// The last message a reading of a file gave, to go on after it when the
/// file is opened again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Resume {
    pub(crate) time: i64,
    /// Its row id (SQLite: rows come in (timestamp, rowid) order).
    pub(crate) position: u64,
    /// How many messages of that time were given (MCAP: those are
    /// skipped).
    pub(crate) same_time: u64,
}

/// What the storage files of a bag may expand to together
/// ([`Limits::max_bag_expansion`]): decompressed storage files and copies
/// of databases with their logs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Expansion {
    /// Bytes the files before this one expanded to.
    pub(crate) used: u64,
    /// The limit.
    pub(crate) limit: u64,
}

impl Expansion {
    /// Bytes this file may still expand to.
    fn left(&self) -> u64 {
        self.limit.saturating_sub(self.used)
    }

    /// The error for `file`, which needs `needs` bytes (`what`: how)
    /// beyond what the files before it used.
    pub(crate) fn refuse(&self, file: &Path, what: &str, needs: String) -> Error {
        Error::InFile {
            file: file.to_path_buf(),
            source: logcore::Error::malformed(
                0,
                format!(
                    "a bag whose storage files expand to at most {} bytes together (decompressed \
                     storage files and copies of databases with their logs; the reader's limit, \
                     {} bytes of it used by the files before this one; raise it with \
                     `--max-bag-expansion` or `Limits::max_bag_expansion`)",
                    self.limit, self.used
                ),
                format!("{what} {needs}"),
            ),
        }
    }
}

pub(crate) type RawIter<'a> = Box<dyn Iterator<Item = Result<RawMessage>> + 'a>;

/// One storage file.
pub(crate) enum Storage {
    Sqlite(Box<SqliteStorage>),
    Mcap(McapStorage),
}

const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";
const MCAP_MAGIC: &[u8; 8] = b"\x89MCAP0\r\n";

/// True when `first_bytes` start like a bag's SQLite storage file (a lone
/// `.db3`): SQLite's 16-byte header `SQLite format 3\0`. A bag's MCAP
/// storage files are MCAP files (`mcapfile::probe`), and a bag folder is
/// recognised by [`probe_folder`].
///
/// ```
/// assert!(rosbag2::probe(b"SQLite format 3\0\x10\x00"));
/// assert!(!rosbag2::probe(b"SQLite format 3"));
/// assert!(!rosbag2::probe(b"\x89MCAP0\r\n"));
/// ```
pub fn probe(first_bytes: &[u8]) -> bool {
    first_bytes.starts_with(SQLITE_MAGIC)
}

/// True when the folder `dir` is a bag: it holds a `metadata.yaml`, in
/// any form (one that is not a regular file is refused by [`Bag2::open`](crate::Bag2::open)
/// as what it is). Nothing is read.
///
/// ```
/// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
/// assert!(!rosbag2::probe_folder(std::path::Path::new(dir)));
/// ```
pub fn probe_folder(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join("metadata.yaml")).is_ok()
}
const ZSTD_MAGIC: &[u8; 4] = &[0x28, 0xb5, 0x2f, 0xfd];

fn head(path: &Path, n: usize) -> Result<Vec<u8>> {
    let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut buf = Vec::with_capacity(n);
    f.take(n as u64)
        .read_to_end(&mut buf)
        .map_err(|e| Error::io(path, e))?;
    Ok(buf)
}

/// Decompresses a zstd stream, refusing more than `limit` bytes.
pub(crate) fn unzstd(
    input: impl Read,
    limit: u64,
    out: &mut impl std::io::Write,
) -> std::io::Result<Option<u64>> {
    let mut dec = zstd::stream::read::Decoder::new(input)?;
    // Checked: a program can stop a long decompression (logcore::interrupt).
    let mut out = logcore::interrupt::Checked(out);
    let n = std::io::copy(&mut (&mut dec).take(limit.saturating_add(1)), &mut out)?;
    if n > limit {
        return Ok(None);
    }
    Ok(Some(n))
}

fn limit_text(limit: u64) -> String {
    format!(
        "at most {limit} bytes (the reader's limit; raise it with `--max-chunk-size` or \
         `Limits::max_chunk_size`)"
    )
}

impl Storage {
    /// Whether opening `path` may decompress or copy it (a zstd file, a
    /// database with a non-empty `-wal` or `-journal`).
    pub(crate) fn may_expand(path: &Path) -> bool {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        name.ends_with(".zstd")
            || name.ends_with(".zst")
            || head(path, 4).is_ok_and(|h| h.starts_with(ZSTD_MAGIC))
            || non_empty(&sidecar(path, "-wal"))
            || non_empty(&sidecar(path, "-journal"))
    }

    /// The uncompressed size a zstd-compressed storage file declares in
    /// its first frame's header (`None`: not compressed, or no size).
    pub(crate) fn declared_size(path: &Path) -> Option<u64> {
        let h = head(path, 18).ok()?;
        if !h.starts_with(ZSTD_MAGIC) {
            return None;
        }
        zstd::zstd_safe::get_frame_content_size(&h).ok().flatten()
    }

    /// Opens `path`: by its extension (`.db3`, `.mcap`, each optionally
    /// followed by `.zstd`), else by its first bytes. Returns the storage
    /// and the bytes it expanded to (decompressed, or copied with a log),
    /// at most what `expansion` leaves.
    pub(crate) fn open(path: &Path, limits: &Limits, expansion: Expansion) -> Result<(Self, u64)> {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        let compressed = name.ends_with(".zstd") || name.ends_with(".zst");
        let inner = name
            .trim_end_matches(".zstd")
            .trim_end_matches(".zst")
            .to_string();
        let first = head(path, 16)?;
        if compressed || first.starts_with(ZSTD_MAGIC) {
            return Self::open_compressed(path, &inner, limits, expansion);
        }
        if inner.ends_with(".db3") || first.starts_with(SQLITE_MAGIC) && !inner.ends_with(".mcap") {
            let (s, copied) = SqliteStorage::open(path, path, None, limits, expansion)?;
            return Ok((Storage::Sqlite(Box::new(s)), copied));
        }
        if inner.ends_with(".mcap") || first.starts_with(MCAP_MAGIC) {
            let bytes = FileBytes::open(path).map_err(|e| Error::io(path, e))?;
            return Ok((Storage::Mcap(McapStorage::open(path, bytes, limits)?), 0));
        }
        Err(Error::Core(logcore::Error::malformed(
            0,
            format!(
                "a rosbag2 storage file (SQLite `.db3` or MCAP `.mcap`, optionally zstd-compressed): {}",
                path.display()
            ),
            logcore::error::hex_preview(&first),
        )))
    }

    /// A `.db3.zstd` or `.mcap.zstd` file: decompressed (at most
    /// `limits.max_chunk_size` bytes, and what `expansion` leaves) to a
    /// temporary file (SQLite) or into memory (MCAP).
    fn open_compressed(
        path: &Path,
        inner: &str,
        limits: &Limits,
        expansion: Expansion,
    ) -> Result<(Self, u64)> {
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let per_file = limits.max_chunk_size;
        let limit = per_file.min(expansion.left());
        let too_big = || {
            if per_file <= expansion.left() {
                Error::Core(logcore::Error::malformed(
                    0,
                    format!(
                        "a zstd-compressed storage file of {} uncompressed ({})",
                        limit_text(per_file),
                        path.display()
                    ),
                    "more",
                ))
            } else {
                expansion.refuse(
                    path,
                    "a zstd-compressed storage file decompressing to",
                    format!("more than the {} bytes left", expansion.left()),
                )
            }
        };
        let bad = |e: std::io::Error| {
            Error::Core(logcore::Error::malformed(
                0,
                format!("a zstd-compressed storage file ({})", path.display()),
                e.to_string(),
            ))
        };
        if inner.ends_with(".mcap") {
            let mut buf = Vec::new();
            let n = unzstd(std::io::BufReader::new(file), limit, &mut buf)
                .map_err(bad)?
                .ok_or_else(too_big)?;
            let storage = McapStorage::open(path, FileBytes::Owned(buf), limits)?;
            return Ok((Storage::Mcap(storage), n));
        }
        let temp = TempDir::new().map_err(|e| Error::io(std::env::temp_dir(), e))?;
        let target = temp.path().join("storage.db3");
        let mut out = std::fs::File::create(&target).map_err(|e| Error::io(&target, e))?;
        let n = unzstd(std::io::BufReader::new(file), limit, &mut out)
            .map_err(bad)?
            .ok_or_else(too_big)?;
        drop(out);
        let first = head(&target, 16)?;
        if first.starts_with(MCAP_MAGIC) {
            let bytes = FileBytes::read(&target).map_err(|e| Error::io(&target, e))?;
            return Ok((Storage::Mcap(McapStorage::open(path, bytes, limits)?), n));
        }
        let (s, _) = SqliteStorage::open(&target, path, Some(temp), limits, expansion)?;
        Ok((Storage::Sqlite(Box::new(s)), n))
    }

    pub(crate) fn topics(&self) -> &[StorageTopic] {
        match self {
            Storage::Sqlite(s) => &s.topics,
            Storage::Mcap(m) => &m.topics,
        }
    }

    /// Definitions stored by type name, besides those of the topics.
    pub(crate) fn definitions(&self) -> Option<&BTreeMap<String, StoredDefinition>> {
        match self {
            Storage::Sqlite(s) => Some(&s.definitions),
            Storage::Mcap(_) => None,
        }
    }

    pub(crate) fn stats(&self) -> Result<BTreeMap<i64, TopicStats>> {
        match self {
            Storage::Sqlite(s) => s.stats(),
            Storage::Mcap(m) => m.stats(),
        }
    }

    pub(crate) fn messages(&self, filter: StorageFilter) -> Result<RawIter<'_>> {
        match self {
            Storage::Sqlite(s) => Ok(Box::new(SqliteMessages::new(s, filter))),
            Storage::Mcap(m) => m.messages(filter),
        }
    }

    /// The metadata text a `.db3` keeps (version 8 and later).
    pub(crate) fn embedded_metadata(&self) -> Option<&str> {
        match self {
            Storage::Sqlite(s) => s.embedded_metadata.as_deref(),
            Storage::Mcap(_) => None,
        }
    }

    /// The distribution a `.db3`'s `schema` table names.
    pub(crate) fn ros_distro(&self) -> Option<&str> {
        match self {
            Storage::Sqlite(s) => s.ros_distro.as_deref(),
            Storage::Mcap(m) => m.ros_distro.as_deref(),
        }
    }

    /// `sqlite3` or `mcap`.
    pub(crate) fn identifier(&self) -> &'static str {
        match self {
            Storage::Sqlite(_) => "sqlite3",
            Storage::Mcap(_) => "mcap",
        }
    }

    /// The `schema_version` of a `.db3` (`None` for the oldest, which
    /// have no `schema` table, and for MCAP).
    pub(crate) fn schema_version(&self) -> Option<i64> {
        match self {
            Storage::Sqlite(s) => s.schema_version,
            Storage::Mcap(_) => None,
        }
    }
}

// ---------------------------------------------------------------------
// SQLite.

pub(crate) struct SqliteStorage {
    /// The file as the user named it (errors name it).
    path: PathBuf,
    conn: Mutex<Connection>,
    /// The temporary copy, if one was needed.
    _temp: Option<TempDir>,
    pub(crate) topics: Vec<StorageTopic>,
    pub(crate) definitions: BTreeMap<String, StoredDefinition>,
    pub(crate) embedded_metadata: Option<String>,
    pub(crate) ros_distro: Option<String>,
    pub(crate) schema_version: Option<i64>,
    /// Whether `messages` has an index whose first column is `timestamp`.
    timestamp_index: bool,
    max_payload: u64,
}

/// `path` as an SQLite URI (every byte but unreserved ones escaped).
fn sqlite_uri(path: &Path, query: &str) -> String {
    let mut out = String::from("file:");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out.push('?');
    out.push_str(query);
    out
}

fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

fn non_empty(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() > 0)
}

/// The 32-byte header of an SQLite write-ahead log.
const WAL_HEADER: usize = 32;
/// The header of each frame of a write-ahead log (its page follows).
const WAL_FRAME_HEADER: usize = 24;

/// Checks that `wal` is an SQLite write-ahead log: its header's magic
/// number (0x377f0682 or 0x377f0683), format version (3007000) and page
/// size (a power of two from 512 to 65536); returns the page size.
fn check_wal(wal: &Path) -> Result<u64> {
    let h = head(wal, WAL_HEADER)?;
    let be = |at: usize| u32::from_be_bytes([h[at], h[at + 1], h[at + 2], h[at + 3]]);
    let refuse = |offset: u64, expected: &str, found: String| Error::InFile {
        file: wal.to_path_buf(),
        source: logcore::Error::malformed(
            offset,
            format!(
                "{expected} (of an SQLite write-ahead log, which is read with the database \
                 beside it; a file that is not one is refused before anything is copied)"
            ),
            found,
        ),
    };
    if h.len() < WAL_HEADER {
        return Err(refuse(
            0,
            "a 32-byte header",
            format!("a file of {} bytes", h.len()),
        ));
    }
    let magic = be(0);
    if magic & !1 != 0x377f_0682 {
        return Err(refuse(
            0,
            "the magic number 0x377f0682 or 0x377f0683",
            format!("{magic:#010x}"),
        ));
    }
    let version = be(4);
    if version != 3_007_000 {
        return Err(refuse(4, "the format version 3007000", version.to_string()));
    }
    let page = be(8);
    let size = if page == 1 { 65_536 } else { page };
    if !(512..=65_536).contains(&size) || !size.is_power_of_two() {
        return Err(refuse(
            8,
            "a page size that is a power of two from 512 to 65536",
            page.to_string(),
        ));
    }
    Ok(u64::from(size))
}

/// Copies the write-ahead log `wal` to `to`: its header and the frames
/// that carry the header's salt, up to the first that does not (SQLite
/// reads no frame after that one, so a log padded with anything else,
/// or a sparse one, costs only its real frames). Returns the bytes
/// copied.
fn copy_wal(wal: &Path, to: &Path, page: u64) -> Result<u64> {
    use std::io::Write;
    let input = std::fs::File::open(wal).map_err(|e| Error::io(wal, e))?;
    let mut input = std::io::BufReader::with_capacity(1 << 16, input);
    let out = std::fs::File::create(to).map_err(|e| Error::io(to, e))?;
    // Each frame written calls the interrupt hook (see `copy_checked`).
    let mut out = logcore::interrupt::Checked(std::io::BufWriter::with_capacity(1 << 16, out));
    let mut header = [0u8; WAL_HEADER];
    input
        .read_exact(&mut header)
        .map_err(|e| Error::io(wal, e))?;
    out.write_all(&header).map_err(|e| Error::io(to, e))?;
    let mut copied = WAL_HEADER as u64;
    let mut frame = vec![0u8; WAL_FRAME_HEADER + page as usize];
    loop {
        match input.read_exact(&mut frame) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(Error::io(wal, e)),
        }
        if frame[8..16] != header[16..24] {
            break;
        }
        out.write_all(&frame).map_err(|e| Error::io(to, e))?;
        copied += frame.len() as u64;
    }
    out.flush().map_err(|e| Error::io(to, e))?;
    Ok(copied)
}

/// Copies the file `from` to `to` in steps of 1 MiB, calling the
/// interrupt hook (`logcore::interrupt::check`) before each, so that a
/// program embedding the reader can stop a long copy (the copy, in a
/// temporary folder, is then removed with it). The bytes copied.
fn copy_checked(from: &Path, to: &Path) -> std::io::Result<u64> {
    let mut input = std::fs::File::open(from)?;
    let mut out = logcore::interrupt::Checked(std::fs::File::create(to)?);
    let mut buf = vec![0u8; 1 << 20];
    let mut copied = 0u64;
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => return Ok(copied),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        std::io::Write::write_all(&mut out, &buf[..n])?;
        copied += n as u64;
    }
}

impl SqliteStorage {
    /// Opens the database at `file` (`shown` names it in errors; `temp`
    /// is the folder of a decompressed copy, kept while the storage
    /// lives). Returns it and the bytes copied to read it with its log.
    fn open(
        file: &Path,
        shown: &Path,
        temp: Option<TempDir>,
        limits: &Limits,
        expansion: Expansion,
    ) -> Result<(Self, u64)> {
        let first = head(file, 16)?;
        if first.as_slice() != SQLITE_MAGIC {
            return Err(Error::NotSqlite {
                file: shown.to_path_buf(),
                found: logcore::error::hex_preview(&first),
            });
        }
        let wal = sidecar(file, "-wal");
        let journal = sidecar(file, "-journal");
        let mut copied = 0;
        let (conn, temp) = if temp.is_none() && (non_empty(&wal) || non_empty(&journal)) {
            // Rows in a log next to the database: read a copy, once the
            // log is known to be one and the copy fits the limit.
            let len = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
            let wal_page = if non_empty(&wal) {
                Some(check_wal(&wal)?)
            } else {
                None
            };
            let total = len(file)
                .saturating_add(len(&wal))
                .saturating_add(len(&journal));
            if total > expansion.left() {
                return Err(expansion.refuse(
                    shown,
                    "a database read with its log, to be copied with it:",
                    format!(
                        "{} bytes ({} of the database, {} of `-wal`, {} of `-journal`), more than \
                         the {} bytes left",
                        total,
                        len(file),
                        len(&wal),
                        len(&journal),
                        expansion.left()
                    ),
                ));
            }
            let dir = TempDir::new().map_err(|e| Error::io(std::env::temp_dir(), e))?;
            let copy = dir.path().join("storage.db3");
            copied += copy_checked(file, &copy).map_err(|e| Error::io(file, e))?;
            if let Some(page) = wal_page {
                copied += copy_wal(&wal, &sidecar(&copy, "-wal"), page)?;
            }
            if non_empty(&journal) {
                copied += copy_checked(&journal, &sidecar(&copy, "-journal"))
                    .map_err(|e| Error::io(&journal, e))?;
            }
            let conn = Connection::open_with_flags(
                &copy,
                OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(|e| Error::sqlite(shown, "opening a copy of the database and its log", e))?;
            (conn, Some(dir))
        } else if temp.is_some() {
            let conn = Connection::open_with_flags(
                file,
                OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(|e| Error::sqlite(shown, "opening the decompressed database", e))?;
            (conn, temp)
        } else {
            let conn = Connection::open_with_flags(
                sqlite_uri(file, "immutable=1"),
                OpenFlags::SQLITE_OPEN_READ_ONLY
                    | OpenFlags::SQLITE_OPEN_URI
                    | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(|e| Error::sqlite(shown, "opening the database read-only", e))?;
            (conn, None)
        };
        let mut s = SqliteStorage {
            path: shown.to_path_buf(),
            conn: Mutex::new(conn),
            _temp: temp,
            topics: Vec::new(),
            definitions: BTreeMap::new(),
            embedded_metadata: None,
            ros_distro: None,
            schema_version: None,
            timestamp_index: false,
            max_payload: limits.max_chunk_size,
        };
        s.read_tables()?;
        Ok((s, copied))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn read_tables(&mut self) -> Result<()> {
        let path = self.path.clone();
        let conn: &Connection = self
            .conn
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let q = |what: &str, e| Error::sqlite(&path, what.to_string(), e);
        let tables: Vec<String> = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
            .and_then(|mut st| st.query_map([], |r| r.get(0))?.collect())
            .map_err(|e| q("reading the list of tables", e))?;
        let has = |t: &str| tables.iter().any(|x| x == t);
        for t in ["topics", "messages"] {
            if !has(t) {
                return Err(Error::Sqlite {
                    file: path.clone(),
                    what: format!("expected the table `{t}` of a rosbag2 database"),
                    reason: format!("the database has the tables [{}]", tables.join(", ")),
                });
            }
        }
        let columns: Vec<String> = conn
            .prepare("SELECT name FROM pragma_table_info('topics')")
            .and_then(|mut st| st.query_map([], |r| r.get(0))?.collect())
            .map_err(|e| q("reading the columns of `topics`", e))?;
        let col = |c: &str| {
            if columns.iter().any(|x| x == c) {
                c.to_string()
            } else {
                "''".to_string()
            }
        };
        let sql = format!(
            "SELECT id, name, type, serialization_format, {}, {} FROM topics ORDER BY id",
            col("offered_qos_profiles"),
            col("type_description_hash")
        );
        let text = |r: &rusqlite::Row<'_>, i: usize| -> rusqlite::Result<String> {
            Ok(match r.get_ref(i)? {
                ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
                ValueRef::Null => String::new(),
                ValueRef::Integer(n) => n.to_string(),
                ValueRef::Real(x) => x.to_string(),
            })
        };
        let topics: Vec<StorageTopic> = conn
            .prepare(&sql)
            .and_then(|mut st| {
                st.query_map([], |r| {
                    Ok(StorageTopic {
                        local_id: r.get(0)?,
                        topic: TopicMetadata {
                            name: text(r, 1)?,
                            type_name: text(r, 2)?,
                            serialization_format: text(r, 3)?,
                            offered_qos_profiles: text(r, 4)?,
                            type_description_hash: text(r, 5)?,
                            ..TopicMetadata::default()
                        },
                        definition: None,
                    })
                })?
                .collect()
            })
            .map_err(|e| q("reading the table `topics`", e))?;
        let indexed: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM pragma_index_list('messages') AS il, \
                 pragma_index_info(il.name) AS ii WHERE ii.seqno = 0 AND ii.name = 'timestamp'",
                [],
                |r| r.get(0),
            )
            .map_err(|e| q("reading the indexes of `messages`", e))?;
        self.timestamp_index = indexed > 0;
        if has("message_definitions") {
            let defs: Vec<(String, StoredDefinition)> = conn
                .prepare(
                    "SELECT topic_type, encoding, encoded_message_definition \
                     FROM message_definitions ORDER BY id",
                )
                .and_then(|mut st| {
                    st.query_map([], |r| {
                        Ok((
                            text(r, 0)?,
                            StoredDefinition {
                                encoding: text(r, 1)?,
                                text: text(r, 2)?,
                            },
                        ))
                    })?
                    .collect()
                })
                .map_err(|e| q("reading the table `message_definitions`", e))?;
            self.definitions.extend(defs);
        }
        if has("metadata") {
            let last: Option<String> = conn
                .query_row(
                    "SELECT metadata FROM metadata ORDER BY id DESC LIMIT 1",
                    [],
                    |r| text(r, 0),
                )
                .map(Some)
                .or_else(|e| match e {
                    rusqlite::Error::QueryReturnedNoRows => Ok(None),
                    e => Err(e),
                })
                .map_err(|e| q("reading the table `metadata`", e))?;
            self.embedded_metadata = last;
        }
        if has("schema") {
            let row: Option<(i64, String)> = conn
                .query_row(
                    "SELECT schema_version, ros_distro FROM schema ORDER BY schema_version DESC LIMIT 1",
                    [],
                    |r| Ok((r.get(0)?, text(r, 1)?)),
                )
                .map(Some)
                .or_else(|e| match e {
                    rusqlite::Error::QueryReturnedNoRows => Ok(None),
                    e => Err(e),
                })
                .map_err(|e| q("reading the table `schema`", e))?;
            if let Some((v, d)) = row {
                self.schema_version = Some(v);
                self.ros_distro = Some(d);
            }
        }
        self.topics = topics;
        Ok(())
    }

    fn stats(&self) -> Result<BTreeMap<i64, TopicStats>> {
        let conn = self.lock();
        let rows: Vec<(i64, i64, i64, i64)> = conn
            .prepare(
                "SELECT topic_id, COUNT(*), MIN(timestamp), MAX(timestamp) FROM messages \
                 GROUP BY topic_id",
            )
            .and_then(|mut st| {
                st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                    .collect()
            })
            .map_err(|e| Error::sqlite(&self.path, "counting the messages of each topic", e))?;
        Ok(rows
            .into_iter()
            .map(|(t, n, a, b)| {
                (
                    t,
                    TopicStats {
                        count: n as u64,
                        start: a,
                        end: b,
                    },
                )
            })
            .collect())
    }
}

/// The messages of a `.db3` in timestamp order (then rowid), read in
/// pages of [`PAGE`] rows, each page one query, so that no statement is
/// held between pages (a statement borrows the connection) and the
/// filter's times and topics are part of the SQL.
///
/// With an index on `timestamp` (every rosbag2 database has
/// `timestamp_idx`), a page starts after the last row of the previous
/// one (keyset pagination, a range of the index). Without one, each page
/// would scan and sort the whole table; instead the rowids of the wanted
/// rows are read once in order (8 bytes a row), then fetched a page at a
/// time by rowid.
struct SqliteMessages<'a> {
    s: &'a SqliteStorage,
    filter: StorageFilter,
    after: Option<(i64, i64)>,
    ids: Option<(Vec<i64>, usize)>,
    buf: VecDeque<Result<RawMessage>>,
    done: bool,
}

const PAGE: usize = 256;

impl<'a> SqliteMessages<'a> {
    fn new(s: &'a SqliteStorage, filter: StorageFilter) -> Self {
        let after = filter
            .resume
            .map(|r| (r.time, i64::try_from(r.position).unwrap_or(i64::MAX)));
        SqliteMessages {
            s,
            filter,
            after,
            ids: None,
            buf: VecDeque::new(),
            done: false,
        }
    }

    fn topics_sql(&self) -> String {
        match &self.filter.topics {
            None => String::new(),
            Some(ids) => format!(
                " AND topic_id IN ({})",
                ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
            ),
        }
    }

    fn fill(&mut self) -> Result<()> {
        let path = &self.s.path;
        let q = |e| Error::sqlite(path, "reading the table `messages`", e);
        let limit = i64::try_from(self.s.max_payload).unwrap_or(i64::MAX);
        let start = self.filter.start.unwrap_or(i64::MIN);
        let end = self.filter.end.unwrap_or(i64::MAX);
        // Without an end, no bound: a message stamped i64::MAX is kept.
        let below = |n: u8| match self.filter.end {
            Some(_) => format!(" AND timestamp < ?{n}"),
            None => String::new(),
        };
        let topics = self.topics_sql();
        const COLUMNS: &str = "rowid, topic_id, timestamp, octet_length(data), \
                               CASE WHEN octet_length(data) <= ?1 THEN data END";
        let conn = self.s.lock();
        let mut page: Vec<Result<RawMessage>> = Vec::with_capacity(PAGE);
        if self.s.timestamp_index {
            let (after_t, after_id) = self.after.unwrap_or((i64::MIN, i64::MIN));
            let keyset = if self.after.is_some() {
                " AND (timestamp > ?2 OR rowid > ?3)"
            } else {
                ""
            };
            let sql = format!(
                "SELECT {COLUMNS} FROM messages \
                 WHERE timestamp >= max(?2, ?4){}{keyset}{topics} \
                 ORDER BY timestamp, rowid LIMIT ?6",
                below(5)
            );
            let mut st = conn.prepare_cached(&sql).map_err(q)?;
            let mut rows = st
                .query(rusqlite::params![
                    limit,
                    after_t,
                    after_id,
                    start,
                    end,
                    PAGE as i64
                ])
                .map_err(q)?;
            while let Some(r) = rows.next().map_err(q)? {
                let (m, key) = self.s.row(r, limit)?;
                self.after = Some(key);
                page.push(m);
            }
            if page.len() < PAGE {
                self.done = true;
            }
        } else {
            if self.ids.is_none() {
                // Taken up again after (?3, ?4); from the start, no row
                // has the rowid i64::MIN.
                let (after_t, after_id) = self.after.unwrap_or((i64::MIN, i64::MIN));
                let sql = format!(
                    "SELECT rowid FROM messages WHERE timestamp >= max(?1, ?3){} \
                     AND (timestamp > ?3 OR rowid > ?4){topics} ORDER BY timestamp, rowid",
                    below(2)
                );
                let ids: Vec<i64> = conn
                    .prepare(&sql)
                    .and_then(|mut st| {
                        st.query_map(rusqlite::params![start, end, after_t, after_id], |r| {
                            r.get(0)
                        })?
                        .collect()
                    })
                    .map_err(q)?;
                self.ids = Some((ids, 0));
            }
            let Some((ids, next)) = &mut self.ids else {
                return Ok(());
            };
            let chunk = &ids[*next..(*next + PAGE).min(ids.len())];
            *next += chunk.len();
            if *next >= ids.len() {
                self.done = true;
            }
            if chunk.is_empty() {
                return Ok(());
            }
            let list = chunk
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(",");
            let sql = format!("SELECT {COLUMNS} FROM messages WHERE rowid IN ({list})");
            let mut st = conn.prepare(&sql).map_err(q)?;
            let mut rows = st.query(rusqlite::params![limit]).map_err(q)?;
            let mut by_id: std::collections::HashMap<i64, Result<RawMessage>> =
                std::collections::HashMap::with_capacity(chunk.len());
            while let Some(r) = rows.next().map_err(q)? {
                let (m, key) = self.s.row(r, limit)?;
                by_id.insert(key.1, m);
            }
            for id in chunk {
                if let Some(m) = by_id.remove(id) {
                    page.push(m);
                }
            }
        }
        self.buf.extend(page);
        Ok(())
    }
}

impl SqliteStorage {
    /// One row of [`SqliteMessages`]'s query: the message (or the error
    /// naming its row) and its (timestamp, rowid) key.
    fn row(&self, r: &rusqlite::Row<'_>, limit: i64) -> Result<(Result<RawMessage>, (i64, i64))> {
        let path = &self.path;
        let q = |e| Error::sqlite(path, "reading the table `messages`", e);
        let id: i64 = r.get(0).map_err(q)?;
        let time: i64 = r.get(2).map_err(q)?;
        let bad = |expected: String, found: String| Error::Row {
            file: path.clone(),
            table: "messages",
            row: id,
            expected,
            found,
        };
        let topic = match r.get_ref(1).map_err(q)? {
            ValueRef::Integer(t) => t,
            v => {
                let found = format!("{:?}", v.data_type());
                return Ok((Err(bad("an integer `topic_id`".into(), found)), (time, id)));
            }
        };
        let len: Option<i64> = r.get(3).map_err(q)?;
        let len = len.unwrap_or(-1);
        if len > limit {
            let m = Err(bad(
                format!("a message of {}", limit_text(self.max_payload)),
                format!("a message of {len} bytes"),
            ));
            return Ok((m, (time, id)));
        }
        let data = match r.get_ref(4).map_err(q)? {
            ValueRef::Blob(b) | ValueRef::Text(b) => Ok(Bytes::copy_from_slice(b)),
            ValueRef::Null => Err(bad("a BLOB in `data`".into(), "NULL".into())),
            v => Err(bad(
                "a BLOB in `data`".into(),
                format!("{:?}", v.data_type()),
            )),
        };
        let m = data.map(|data| RawMessage {
            local_id: topic,
            time,
            data,
            position: id as u64,
            publish_time: None,
            sequence: None,
        });
        Ok((m, (time, id)))
    }
}

impl Iterator for SqliteMessages<'_> {
    type Item = Result<RawMessage>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(m) = self.buf.pop_front() {
                return Some(m);
            }
            if self.done {
                return None;
            }
            if let Err(e) = self.fill() {
                self.done = true;
                return Some(Err(e));
            }
        }
    }
}

// ---------------------------------------------------------------------
// MCAP.

self_cell::self_cell!(
    /// An MCAP file's bytes and the reader that borrows them.
    struct McapCell {
        owner: FileBytes,
        #[covariant]
        dependent: Mcap,
    }
);

type Mcap<'a> = mcapfile::Mcap<'a>;

pub(crate) struct McapStorage {
    path: PathBuf,
    cell: McapCell,
    pub(crate) topics: Vec<StorageTopic>,
    pub(crate) ros_distro: Option<String>,
}

impl McapStorage {
    fn open(path: &Path, bytes: FileBytes, limits: &Limits) -> Result<Self> {
        let limits = *limits;
        let cell =
            McapCell::try_new(bytes, |b| mcapfile::Mcap::with_limits(b, limits)).map_err(|e| {
                Error::InFile {
                    file: path.to_path_buf(),
                    source: e,
                }
            })?;
        let channels = cell
            .borrow_dependent()
            .channels()
            .map_err(|e| Error::InFile {
                file: path.to_path_buf(),
                source: e,
            })?;
        let mut topics = Vec::new();
        for c in channels {
            let meta = |k: &str| c.metadata.get(k).cloned().unwrap_or_default();
            topics.push(StorageTopic {
                local_id: i64::from(c.id.0),
                topic: TopicMetadata {
                    name: c.topic.clone(),
                    type_name: c
                        .schema
                        .as_ref()
                        .map(|s| s.name.clone())
                        .unwrap_or_default(),
                    serialization_format: c.message_encoding.clone(),
                    offered_qos_profiles: meta("offered_qos_profiles"),
                    type_description_hash: meta("topic_type_hash"),
                    ..TopicMetadata::default()
                },
                definition: c.schema.as_ref().map(|s| StoredDefinition {
                    encoding: s.encoding.clone(),
                    text: String::from_utf8_lossy(&s.data).into_owned(),
                }),
            });
        }
        let ros_distro = cell
            .borrow_dependent()
            .summary()
            .ok()
            .and_then(|s| s.metadata.get("metadata.rosbag2.ROS_DISTRO").cloned());
        Ok(McapStorage {
            path: path.to_path_buf(),
            cell,
            topics,
            ros_distro,
        })
    }

    fn stats(&self) -> Result<BTreeMap<i64, TopicStats>> {
        let s = self
            .cell
            .borrow_dependent()
            .summary()
            .map_err(|e| Error::InFile {
                file: self.path.clone(),
                source: e,
            })?;
        Ok(s.channels
            .iter()
            .map(|c| {
                (
                    i64::from(c.info.id.0),
                    TopicStats {
                        count: c.message_count,
                        start: c.start.map_or(0, |t| t.as_nanos()),
                        end: c.end.map_or(0, |t| t.as_nanos()),
                    },
                )
            })
            .collect())
    }

    fn messages(&self, filter: StorageFilter) -> Result<RawIter<'_>> {
        let mut f = MessageFilter::all().mode(filter.mode);
        let start = match (filter.start, filter.resume) {
            (Some(s), Some(r)) => Some(s.max(r.time)),
            (s, r) => s.or(r.map(|r| r.time)),
        };
        if let Some(s) = start {
            f = f.start(logcore::Timestamp(s));
        }
        if let Some(e) = filter.end {
            f = f.end(logcore::Timestamp(e));
        }
        if let Some(ids) = &filter.topics {
            f = f.channels(
                ids.iter()
                    .filter_map(|&i| u32::try_from(i).ok())
                    .map(logcore::ChannelId),
            );
        }
        let it = self
            .cell
            .borrow_dependent()
            .messages(&f)
            .map_err(|e| Error::InFile {
                file: self.path.clone(),
                source: e,
            })?;
        let path = self.path.clone();
        // Taken up again: the messages of the last time given are skipped.
        let (skip_time, mut skip) = filter
            .resume
            .map_or((i64::MIN, 0), |r| (r.time, r.same_time));
        let it = it.filter(move |r| match r {
            Ok(m) if skip > 0 && m.log_time.as_nanos() == skip_time => {
                skip -= 1;
                false
            }
            _ => true,
        });
        Ok(Box::new(it.map(move |r| match r {
            Ok(m) => Ok(RawMessage {
                local_id: i64::from(m.channel.0),
                time: m.log_time.as_nanos(),
                data: match m.payload {
                    logcore::Payload::Borrowed(b) => Bytes::copy_from_slice(b),
                    logcore::Payload::Shared(b) => b,
                },
                position: m.offset.unwrap_or(0),
                publish_time: m.publish_time.map(|t| t.as_nanos()),
                sequence: m.sequence,
            }),
            Err(e) => Err(Error::InFile {
                file: path.clone(),
                source: e,
            }),
        })))
    }
}

self_cell::self_cell!(
    /// A reading of one storage file: the file, kept open by it, and the
    /// iterator over its messages.
    pub(crate) struct Cursor {
        owner: std::sync::Arc<Storage>,
        #[not_covariant]
        dependent: RawIter,
    }
);

impl Cursor {
    /// Starts reading `storage` with `filter`.
    pub(crate) fn start(storage: std::sync::Arc<Storage>, filter: StorageFilter) -> Result<Self> {
        Cursor::try_new(storage, |s| s.messages(filter))
    }

    /// The next message.
    pub(crate) fn next_message(&mut self) -> Option<Result<RawMessage>> {
        self.with_dependent_mut(|_, it| it.next())
    }
}
