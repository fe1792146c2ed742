//! Reader and writer for ROS 1 bag files: format 2.0 (what ROS writes
//! since 2010) and the older 1.2, with dynamic decoding of messages from
//! the definitions the bag stores.
//!
//! - [`Bag`] reads a bag from a byte slice: connections, chunk infos,
//!   time-ordered [`Bag::messages`] with topic/time filters (zero-copy for
//!   uncompressed chunks, one decompressed chunk in memory at a time), and
//!   [`Bag::decode`] to a [`logcore::Value`]. Unindexed, damaged and
//!   truncated bags are read by scanning their records. [`logcore::LogReader`]
//!   is implemented on top.
//! - [`msg`] parses `.msg` definitions (with `rosmsg`, the
//!   parser the ROS 2 crate shares; bounded types that ROS 2 to ROS 1
//!   conversions write are read as unbounded, their ROS 1 wire form),
//!   resolves types (including the
//!   2010-era `roslib/Header`) and computes md5 sums the way ROS does;
//!   [`MessageType::decode`] turns ROS 1 wire bytes into values and checks
//!   that no byte is left over; [`MessageType::encode`] turns values
//!   back into wire bytes (see [`encode`] for what it accepts), so bags
//!   can be written from values; [`MessageType::value_type`] is the
//!   [`logcore::ValueType`] of the values it decodes to.
//! - [`info::BagInfo`] is the report of `rosbag info`, with its text and
//!   YAML (`rosbag info -y`) printers.
//! - [`Writer`] writes 2.0 bags (uncompressed, bz2, lz4, with the frame
//!   settings ROS accepts) and 1.2 bags; [`reindex()`] rewrites an unindexed,
//!   truncated or 1.2 bag as an indexed 2.0 bag.
//!
//! ```
//! use std::io::Cursor;
//! use logcore::{LogReader, MessageFilter, Value};
//! use rosbag12::{Bag, Compression, Connection, RosTime, Writer, WriterOptions};
//!
//! let mut w = Writer::new(Cursor::new(Vec::new()), WriterOptions::compressed(Compression::Bz2))?;
//! let conn = w.add_connection(Connection::new(0, "/count", "std_msgs/Int32",
//!     "da5909fbe378aeaf85e547e830cc1bb7", "int32 data"))?;
//! for i in 0..3i32 {
//!     w.write(conn, RosTime { sec: 100 + i as u32, nsec: 0 }, &i.to_le_bytes())?;
//! }
//! w.finish()?;
//! let bytes = w.into_inner().into_inner();
//!
//! let bag = Bag::new(&bytes)?;
//! let summary = bag.summary()?;
//! assert_eq!(summary.message_count, 3);
//! let last = bag.messages(&MessageFilter::all()).last().unwrap()?;
//! assert_eq!(bag.decode(last.conn, &last.data)?.get("data"), Some(&Value::I64(2)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

mod bag;
mod chunk;
mod compression;
mod decode;
pub mod encode;
pub mod error;
mod index;
pub mod info;
mod logreader;
mod logwriter;
pub mod messages;
pub mod msg;
pub mod record;
pub mod records;
pub mod reindex;
mod time;
mod types;
mod v12;
mod version;
pub mod write;

#[cfg(test)]
mod big_chunk_tests;

pub use bag::{Bag, IndexSource};
pub use chunk::{ChunkPayload, ChunkStats};
pub use compression::STREAM_CHUNK_ABOVE;
pub use error::{Error, FormatError, ParseError, Result};
pub use logcore::ReadMode;
pub use logcore::limits::{DEFAULT_MAX_CHUNK_SIZE, Limits};
pub use logreader::channel_info;
pub use messages::{BagMessage, BagMessageRef, Messages};
pub use msg::MessageType;
pub use records::{
    BagHeader, ChunkHeader, ChunkInfo, Compression, Connection, IndexDataV0, IndexEntry,
    IndexEntryV0, MessageDataHeader,
};
pub use reindex::{ReindexReport, reindex, reindex_with_limits};
pub use time::RosTime;
pub use types::MAX_TYPE_FIELDS;
pub use version::{MAGIC_PREFIXES, Version, probe};
pub use write::{DEFAULT_CHUNK_THRESHOLD, Writer, WriterOptions};

/// The README's examples, compiled and run as doc-tests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
