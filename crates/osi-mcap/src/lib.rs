//! MCAP for robotics logs and ASAM OSI traces.
//!
//! This crate holds the generic MCAP layer ([`mcap`]): a nom parser for
//! every record of MCAP major version 0, a streamed reader, an indexed
//! reader with time-ordered merging of chunks, a writer, recovery of
//! damaged files, and the [`logcore::LogReader`] implementation used by
//! the `robolog` tool. The OSI conventions build on it.
//!
//! ```
//! use logcore::{LogReader, MessageFilter};
//! use osi_mcap::mcap::{Mcap, Writer, WriteOptions};
//!
//! let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriteOptions::default())?;
//! let ch = w.add_channel(0, "/speed", "json", &Default::default())?;
//! w.write_message(ch, 0, 1_000, 1_000, br#"{"v": 3}"#)?;
//! let file = w.finish()?.into_inner();
//!
//! let mcap = Mcap::new(&file)?;
//! assert_eq!(mcap.summary()?.message_count, 1);
//! let msg = mcap.messages(&MessageFilter::all())?.next().unwrap()?;
//! assert_eq!(mcap.decode(&msg)?.get("v").and_then(|v| v.as_i64()), Some(3));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

pub mod conventions;
pub mod mcap;
pub mod proto;
pub mod validate;
pub mod writer;

pub use validate::validate;

/// The README's examples, compiled and run as doc-tests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
