//! ASAM OSI traces in MCAP, on top of the generic MCAP crate
//! [`mcapfile`].
//!
//! - [`mod@validate`]: every rule of OSI 3.8.0 (`osi-3.8`) and of the
//!   pre-standard draft (`draft`), as checks with ids, levels and profiles;
//! - [`writer`]: a writer of compliant multi-channel traces;
//! - [`proto`]: protobuf descriptors embedded in MCAP schemas, the OSI
//!   fields a validator needs, and full decoding of any protobuf message
//!   into a [`logcore::Value`] ([`proto::ProtobufDecoder`]);
//! - [`conventions`]: SemVer, ISO 8601 forms and the trace file names.
//!
//! ```
//! use logcore::{LogReader, MessageFilter};
//! use osi_mcap::proto::ProtobufDecoder;
//!
//! let file = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/osi/20240101T000000Z_multi_380_3200_10_fixture-none.mcap"))?;
//! let mcap = mcapfile::Mcap::new(&file)?;
//! let channel = &mcap.channels()?[0];
//! let schema = channel.schema.as_ref().unwrap();
//! let decoder = ProtobufDecoder::new(&schema.name, &schema.data)?;
//! let msg = mcap.messages(&MessageFilter::all())?.next().unwrap()?;
//! assert!(decoder.decode(&msg.payload)?.get("timestamp").is_some());
//! assert!(osi_mcap::validate(&file, &Default::default()).passed());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

pub mod conventions;
pub mod proto;
pub mod validate;
pub mod writer;

pub use validate::validate;

/// The README's examples, compiled and run as doc-tests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
