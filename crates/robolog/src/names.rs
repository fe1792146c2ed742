//! Table names, the same for every table a log is exported or queried
//! as (CSV files, Parquet tables, SQL tables): one table per
//! [table key](logcore::LogReader::table_key) (a topic; for ULog a message
//! name), so that a table name always maps back to one topic.
//!
//! A topic's *base name* is the topic without its leading `/`, every
//! character other than a letter (of any script: SQL takes them quoted),
//! a digit or `_` replaced by `_`; an empty name is `_`, and the names
//! of the tables about the logs themselves ([`RESERVED_TABLES`]: `logs`,
//! a row per log, and `topics`, a row per log and topic) get a `_` after
//! them (`logs_`, `topics_`). Where only one topic of a
//! set of logs has a base name, the table has it. Where several have it,
//! or have base names that differ only in case (`/temp-1`, `/temp.1` and
//! `/temp_1`; `a/b`, `/a/b` and `a_b`; `/Imu` and `/imu`, which would be
//! one file on a disk that ignores case), one keeps it (the topic whose
//! name needed no change, else the first in byte order) and each other
//! gets `_` and 8 hex digits of a hash of its topic after it
//! (`temp_1_5c1d3f0a`), which is the same in every set. What a table was
//! made from (the exports' reports, the Parquet schema's `robolog.topic`
//! metadata, the `logs` tables) says which topic it holds.

use std::collections::{BTreeMap, HashMap, HashSet};

/// The name of the table of the logs themselves (one row per log) in the
/// Parquet layout and in SQL; a topic of this base name gets `logs_`.
pub const LOGS: &str = "logs";

/// The name of the table of the logs' topics (one row per log and topic)
/// in SQL; a topic (or ULog message) of this base name gets `topics_`.
pub const TOPICS: &str = "topics";

/// The table names no topic's table gets, whatever its topic: [`LOGS`]
/// and [`TOPICS`]. A topic whose base name would be one of them has it
/// with a `_` after it.
pub const RESERVED_TABLES: [&str; 2] = [LOGS, TOPICS];

/// The base name of the table of `key` (a topic, or a ULog message name):
/// what its table is called unless another key of the set has the same
/// base name (see [`TableNames`]).
///
/// ```
/// use robolog::names::base_name;
/// assert_eq!(base_name("/camera/image_raw"), "camera_image_raw");
/// assert_eq!(base_name("/温度"), "温度");
/// assert_eq!(base_name("/logs"), "logs_");
/// assert_eq!(base_name("topics"), "topics_");
/// assert_eq!(base_name("/"), "_");
/// ```
pub fn base_name(key: &str) -> String {
    let raw = key.strip_prefix('/').unwrap_or(key);
    if is_plain(raw) && raw.len() <= MAX_NAME_BYTES {
        return raw.to_string();
    }
    let name: String = raw
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() {
        "_".into()
    } else if RESERVED_TABLES.contains(&name.as_str()) {
        format!("{name}_")
    } else if name.len() > MAX_NAME_BYTES {
        shorten(&name, key)
    } else {
        name
    }
}

pub use logcore::filename::{MAX_NAME_BYTES, shorten};

/// Whether `key`'s base name is the key itself, less a leading `/`.
fn is_plain(raw: &str) -> bool {
    !raw.is_empty()
        && !RESERVED_TABLES.contains(&raw)
        && raw.len() <= MAX_NAME_BYTES
        && raw.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// The name of `key`'s table where another key has its base name: `_` and
/// 8 hex digits of its hash, 16 where even that is taken.
fn suffixed(key: &str, base: &str, long: bool) -> String {
    let h = logcore::filename::stable_hash(key.as_bytes());
    if long {
        format!("{base}_{h:016x}")
    } else {
        format!("{base}_{:08x}", h >> 32)
    }
}

/// Whether the table called `name` may hold `key`, or a key with the same
/// base name, in some set of logs: `name` is `key`'s base name, or that
/// followed by `_` and 8 or 16 hex digits. What a reader that opens a log
/// for some tables only selects channels by, before it knows the other
/// logs of the set (which decide which key of a base name gets which
/// name).
///
/// ```
/// use robolog::names::may_name;
/// assert!(may_name("/temp-1", "temp_1"));
/// assert!(may_name("/temp-1", "temp_1_0123abcd"));
/// assert!(!may_name("/temp-1", "temp"));
/// assert!(!may_name("/temp-1", "temp_10"));
/// ```
pub fn may_name(key: &str, name: &str) -> bool {
    let Some(rest) = name.strip_prefix(base_name(key).as_str()) else {
        return false;
    };
    match rest.strip_prefix('_') {
        None => rest.is_empty(),
        Some(hex) => {
            matches!(hex.len(), 8 | 16)
                && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        }
    }
}

/// The names of the tables of a set of keys (topics, or ULog message
/// names): unique even where case is ignored, and each mapping back to
/// one key.
///
/// A key's [`base_name`] is the key without its leading `/`, every
/// character other than a letter (of any script), a digit or `_` replaced
/// by `_`. Where only one key of the set has a base name (compared
/// without case), its table has it. Where several have it, one keeps it
/// (the key whose name needed no change, else the first in byte order)
/// and each other gets `_` and 8 hex digits of a hash of the key after it,
/// the same in every set.
///
/// ```
/// use robolog::names::TableNames;
/// let names = TableNames::new(["/temp-1", "/temp.1", "/temp_1", "/imu", "/IMU"]);
/// assert_eq!(names.name("/IMU"), Some("IMU"));
/// assert!(names.name("/imu").unwrap().starts_with("imu_"));
/// assert_eq!(names.name("/temp_1"), Some("temp_1"));
/// let other = names.name("/temp-1").unwrap();
/// assert!(other.starts_with("temp_1_") && other != names.name("/temp.1").unwrap());
/// assert_eq!(names.key(other), Some("/temp-1"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct TableNames {
    by_key: HashMap<String, String>,
    by_name: HashMap<String, String>,
    /// The names given, lower-cased.
    folded: HashSet<String>,
}

impl TableNames {
    /// Names the tables of `keys` (repeats are one key).
    pub fn new<'a>(keys: impl IntoIterator<Item = &'a str>) -> TableNames {
        TableNames::default().extended(keys)
    }

    /// These names, and names for those of `keys` that have none yet: as
    /// [`TableNames::new`] gives them, but never a name these already give
    /// another key (a dataset written before keeps its tables, and a new
    /// topic whose base name one of them has gets a suffixed name).
    ///
    /// ```
    /// use robolog::names::TableNames;
    /// let before = TableNames::new(["/temp-1"]);
    /// assert_eq!(before.name("/temp-1"), Some("temp_1"));
    /// let now = before.extended(["/temp_1", "/temp-1"]);
    /// assert_eq!(now.name("/temp-1"), Some("temp_1"));
    /// assert!(now.name("/temp_1").unwrap().starts_with("temp_1_"));
    /// ```
    pub fn extended<'a>(mut self, keys: impl IntoIterator<Item = &'a str>) -> TableNames {
        let mut groups: BTreeMap<String, Vec<(&str, String)>> = BTreeMap::new();
        let mut seen = HashSet::new();
        for k in keys {
            if !self.by_key.contains_key(k) && seen.insert(k) {
                let base = base_name(k);
                groups
                    .entry(base.to_lowercase())
                    .or_default()
                    .push((k, base));
            }
        }
        let mut later = Vec::new();
        for (folded, mut keys) in groups {
            // The key whose name needed no change first, then byte order.
            keys.sort_by_key(|(k, _)| (!is_plain(k.strip_prefix('/').unwrap_or(k)), *k));
            let mut keys = keys.into_iter();
            if !self.folded.contains(&folded)
                && let Some((first, base)) = keys.next()
            {
                self.insert(first, base);
            }
            later.extend(keys);
        }
        // Suffixed names after every base name is taken, so that none
        // takes another's base name.
        for (k, base) in later {
            let short = suffixed(k, &base, false);
            let name = if self.folded.contains(&short.to_lowercase()) {
                suffixed(k, &base, true)
            } else {
                short
            };
            self.insert(k, name);
        }
        self
    }

    /// Names given as `(key, name)` pairs, as a set's names were made.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> TableNames {
        let mut names = TableNames::default();
        for (k, n) in pairs {
            names.insert(k, n.to_string());
        }
        names
    }

    fn insert(&mut self, key: &str, name: String) {
        self.folded.insert(name.to_lowercase());
        self.by_name.insert(name.clone(), key.to_string());
        self.by_key.insert(key.to_string(), name);
    }

    /// The table name of `key`, `None` for a key not in the set.
    pub fn name(&self, key: &str) -> Option<&str> {
        self.by_key.get(key).map(String::as_str)
    }

    /// The key whose table is called `name`.
    pub fn key(&self, name: &str) -> Option<&str> {
        self.by_name.get(name).map(String::as_str)
    }

    /// How many tables.
    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    /// Whether there are no tables.
    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_that_would_share_a_name_get_names_of_their_own() {
        let sets: [&[&str]; 6] = [
            &["/温度", "/湿度"],
            &["/Imu", "/imu", "/IMU", "/i-mu"],
            &["/temp-1", "/temp.1", "/temp_1"],
            &["a/b", "a_b", "/a/b"],
            &["/x", "x", "/logs", "logs_", "/"],
            &["/topics", "topics", "topics_", "/Topics"],
        ];
        for keys in sets {
            let names = TableNames::new(keys.iter().copied());
            let mut all = HashSet::new();
            for k in keys {
                let n = names.name(k).unwrap();
                assert!(all.insert(n.to_lowercase()), "{n} twice in {keys:?}");
                assert_eq!(names.key(n), Some(*k));
                assert!(may_name(k, n), "{k} {n}");
                // The same in any order.
                let rev = TableNames::new(keys.iter().rev().copied());
                assert_eq!(rev.name(k), Some(n));
            }
        }
        let names = TableNames::new(["/温度", "/湿度"]);
        assert_eq!(names.name("/温度"), Some("温度"));
        let names = TableNames::new(["/temp-1", "/temp.1", "/temp_1"]);
        assert_eq!(names.name("/temp_1"), Some("temp_1"));
        assert_eq!(names.name("/temp-1"), Some("temp_1_f84d1035"));
        let names = TableNames::new(["a/b", "a_b", "/a/b"]);
        assert_eq!(names.name("a_b"), Some("a_b"));
        // A key alone keeps its base name.
        assert_eq!(TableNames::new(["/temp-1"]).name("/temp-1"), Some("temp_1"));
        // A topic or ULog message `topics` never takes the name of the
        // table of topics.
        assert_eq!(TableNames::new(["topics"]).name("topics"), Some("topics_"));
        assert_eq!(
            TableNames::new(["/topics"]).name("/topics"),
            Some("topics_")
        );
        assert_eq!(TableNames::new(["/Topics"]).name("/Topics"), Some("Topics"));
        assert!(may_name("topics", "topics_"));
        assert!(may_name("/temp_1", "temp_1_00000000"));
        assert!(!may_name("/temp-1", "temp_10"));
    }
}
