//! Reader and writer for PX4 ULog (`.ulg`) flight logs.
//!
//! - [`ULog::parse`] reads a file from a byte slice in one pass: every
//!   message type (`B F I M P Q A R D L C S O`, unknown types skipped with
//!   a warning), appended data segments, truncated files (everything before
//!   the cut, then [`ULog::truncation`]) and corrupt files (sync-magic
//!   recovery as pyulog does, reported in [`ULog::warnings`]). Samples stay
//!   slices of the input.
//! - [`Subscription`] gives typed access: a field accessor by flattened name
//!   (`q[0]`, `esc[2].esc_rpm`), columns in the field's own type, and
//!   [`logcore::Value`] decoding. [`logcore::LogReader`] is implemented on
//!   top (one channel per topic name and multi_id, [`logcore::Clock::Boot`]).
//! - [`write::Writer`] writes logs from scratch or rewrites a read one;
//!   [`ULogWriter`] writes them through [`logcore::LogWriter`].
//! - [`pyulog`] reproduces the text output of pyulog 1.3.0's command-line
//!   tools (`ulog_info`, `ulog_messages`, `ulog_params`, `ulog2csv`).
//!
//! ```
//! use logcore::{LogReader, MessageFilter};
//! let bytes = ulogfile::write::example_log()?;
//! let log = ulogfile::ULog::parse(&bytes)?;
//! let att = log.subscription("vehicle_attitude", 0).unwrap();
//! assert_eq!(att.column_f64("q[0]").unwrap(), vec![1.0, 0.5, 0.25]);
//! let summary = log.summary()?;
//! assert_eq!(summary.message_count, 3);
//! let first = log.messages(&MessageFilter::all())?.next().unwrap()?;
//! let value = log.decode(&first)?;
//! assert_eq!(value.get("timestamp").and_then(|v| v.as_i64()), Some(1_000_000));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The package is published as `ulogfile` (the name `ulog` on crates.io
//! belongs to an unrelated crate); the library is `ulogfile` too.

#![forbid(unsafe_code)]

pub mod error;
#[cfg(feature = "events")]
pub mod events;
pub mod format;
mod logreader;
mod logwriter;
pub mod pyulog;
pub mod read;
pub mod records;
pub mod sample;
pub mod text;
pub mod write;

pub use error::{Error, FormatError, ParseError, Result};
pub use format::{
    BasicType, Field, FieldDef, FieldType, FlatField, FormatDef, Formats, Layout, Limits,
};
pub use logwriter::ULogWriter;
pub use read::{Dropout, Info, MultiInfo, ParameterChange, ULog};
pub use records::{
    FileHeader, FlagBits, InfoValue, KeyValue, LoggedString, MAGIC, Record, SYNC_MAGIC, probe,
};
pub use sample::{Column, FieldRef, Sample, SampleIter, Samples, Scalar, Subscription};
pub use write::Writer;

/// The README's examples, compiled and run as doc-tests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
