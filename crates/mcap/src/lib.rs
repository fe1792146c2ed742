#![doc = include_str!("../README.md")]
//!
//! ## Reading
//!
//! - [`LinearReader`] reads front to back (chunks flattened, CRCs checked,
//!   strict or lenient).
//! - [`Summary::read`] reads the footer and summary section;
//!   [`IndexedMessages`] yields messages in log-time order from the chunk
//!   indexes (plus those stored outside chunks), decompressing only the
//!   chunks a filter needs and using Message Index records to read only
//!   the wanted messages of a chunk.
//! - [`Mcap`] ties them together and implements [`logcore::LogReader`].
//! - [`Writer`] writes chunked or unchunked files with every index.

#![forbid(unsafe_code)]

pub mod chunk;
pub mod doctor;
pub mod encode;
pub mod error;
pub mod indexed;
pub mod info;
mod logreader;
mod logwriter;
pub mod parse;
pub mod records;
pub mod recover;
pub mod stream;
pub mod summary;
pub mod write;

#[cfg(test)]
mod big_chunk_tests;

pub use chunk::{ChunkRecords, DEFAULT_MAX_CHUNK_SIZE, decompress};
pub use doctor::{DoctorOptions, Finding, Severity, doctor};
pub use encode::encode_record;
pub use error::{Error, Result};
pub use indexed::{IndexFilter, IndexedMessages};
pub use logcore::Limits;
pub use logreader::{Mcap, json_to_value};
pub use parse::{parse_message, parse_record};
pub use records::*;
pub use recover::{Recovered, recover};
pub use stream::{LinearReader, ReadOptions};
pub use summary::Summary;
pub use write::{Compression, LOGWRITER_METADATA, WriteOptions, Writer};
