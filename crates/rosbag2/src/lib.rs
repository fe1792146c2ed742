//! `rosbag2`: reading and writing ROS 2 bags without ROS.
//!
//! A rosbag2 bag is a folder holding `metadata.yaml` and one or more
//! storage files, SQLite (`.db3`) or MCAP (`.mcap`), possibly
//! zstd-compressed per file (`.db3.zstd`, `compression_mode: FILE`) or
//! per message (`compression_mode: MESSAGE`). [`Bag2::open`] takes the
//! folder, its `metadata.yaml`, or a lone storage file; the bag then
//! implements [`logcore::LogReader`]: one channel per topic, messages of
//! every storage file merged in log-time order, payloads decoded from CDR
//! through `ros2cdr`.
//!
//! - [`metadata`]: the typed [`Metadata`] of every version (1-9), read
//!   through `saphyr-parser` within size, depth and anchor budgets, and
//!   written by [`Metadata::to_yaml`] through `saphyr`'s emitter.
//! - Storage files named by the metadata must lie inside the bag folder
//!   (no absolute paths, no `..`, no links out); a missing one is an
//!   error naming it.
//! - SQLite files are read with `rusqlite` without ever being written
//!   (see the `storage` notes in the README), every schema from the
//!   oldest (`topics` and `messages` only) to the newest
//!   (`message_definitions`, `metadata`, `schema`); time filters are part
//!   of the SQL query; payloads over [`logcore::Limits::max_chunk_size`]
//!   are refused naming the row.
//! - Definitions come from the bag when it stores them, else from
//!   [`Definitions`]: the caller's, then the bundled humble or jazzy
//!   interfaces ([`interfaces`]). A topic without one, or whose
//!   serialization format is not `cdr`, is read as raw bytes and
//!   reported in [`Bag2::notices`] (and the summary's warnings).
//! - [`Bag2Writer`] ([`mod@write`]) writes bags: SQLite or MCAP storage,
//!   `metadata.yaml` version 9, zstd `MESSAGE` or `FILE` compression,
//!   splitting by size, into a temporary folder renamed into place by
//!   [`Bag2Writer::finish`]; it implements [`logcore::LogWriter`].
//!
//! ```no_run
//! use logcore::{LogReader, MessageFilter};
//! let bag = rosbag2::Bag2::open("rosbag2_2024_01_01-12_00_00")?;
//! let summary = bag.summary()?;
//! println!("{} messages on {} topics", summary.message_count, summary.channels.len());
//! for n in bag.notices() {
//!     eprintln!("note: {n}");
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

mod bag;
pub mod error;
pub mod interfaces;
mod logreader;
pub mod metadata;
mod storage;
mod temp;
pub mod write;
mod yaml;

pub use bag::{
    Bag2, DEFAULT_MAX_OPEN_FILES, Definition, DefinitionSource, Notice, OpenOptions, Topic,
};
pub use error::{Error, FormatError, Result};
pub use interfaces::{Definitions, Distro};
pub use logcore::Limits;
pub use logreader::channel_info;
pub use metadata::{FileMetadata, Metadata, QosProfile, QosTime, TopicMetadata};
pub use storage::{probe, probe_folder};
pub use temp::{TemporaryLeftover, remove_temporary_copies, temporary_leftovers};
pub use write::{Bag2Writer, CompressionMode, StorageId, TopicDefinition, TopicSpec, WriteOptions};

/// The README's examples, compiled as doc-tests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
