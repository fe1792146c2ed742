//! `logcore`: the model shared by the toolkit's log-format crates.
//!
//! Every format is, at bottom, the same thing: a file holds **channels**,
//! a time-ordered stream of **messages** on them, and **metadata**. This
//! crate names those once so that tools can open any format through one
//! interface:
//!
//! - [`Timestamp`] (integer nanoseconds), [`Clock`] and [`TimeModel`] (what
//!   timestamps count from, and an optional anchor to wall-clock time);
//! - [`ChannelInfo`], [`Message`] (with a zero-copy [`Payload`]) and
//!   [`Value`] (a dynamic tree that serializes to JSON), and [`ValueType`]
//!   (what a format's definitions declare a channel's values to be);
//! - [`Summary`] (format, channels with counts, time range, metadata);
//! - the object-safe [`LogReader`] and [`LogWriter`] traits;
//! - [`Format`], the five formats by name (each format crate recognises
//!   its own bytes; the `robolog` facade asks each one);
//! - [`Error`], the cases every format shares (always naming a byte offset
//!   for parse errors), and [`FormatError`], which gives a format crate's
//!   own error type the shared constructors;
//! - [`Limits`], the bounds the readers put on what a file can make them
//!   allocate;
//! - [`filename`]: names bounded for file systems, stable across runs;
//! - [`parallel`]: work spread over the machine's cores, the one helper
//!   the crates share.
//!
//! ```
//! use logcore::{Format, Timestamp};
//! assert_eq!(Format::ULog.name(), "ulog");
//! assert_eq!(Timestamp::from_micros(1_500).map(Timestamp::as_nanos), Some(1_500_000));
//! ```
//!
//! The only `unsafe` in the libraries is the memory map in
//! [`FileBytes::open`], the return of its pages in
//! [`FileBytes::release`], and the `SIGBUS` guard of
//! [`FileBytes::guard_truncation`] that turns a map whose file shrank into
//! zeros (used by the Python package; the `robolog` binary has its own
//! handler, which exits, see [`source`]).

pub mod ahead;
pub mod channel;
pub mod clock;
pub mod cursor;
pub mod error;
pub mod filename;
pub mod format;
pub mod interrupt;
pub mod limits;
pub mod message;
pub mod name;
pub mod parallel;
pub mod reader;
pub mod source;
pub mod summary;
pub mod time;
pub mod timearg;
pub mod types;
pub mod value;

pub use channel::{ChannelId, ChannelInfo, Schema};
pub use error::{Error, FormatError, ParseError, Result};
pub use format::Format;
pub use limits::{DEFAULT_MAX_BAG_EXPANSION, DEFAULT_MAX_CHUNK_SIZE, Limits};
pub use message::{Message, Payload};
pub use name::FieldName;
pub use reader::{
    LogReader, LogWriter, MessageColumn, MessageFilter, MessageIter, ReadMode, TimeUnit,
};
pub use source::FileBytes;
pub use summary::{ChannelSummary, Summary, TopicSummary};
pub use time::{Clock, TimeModel, Timestamp, WallClockAnchor};
pub use types::{Field, Mismatch, ValueType};
pub use value::Value;

/// The README's examples, compiled and run as doc-tests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
