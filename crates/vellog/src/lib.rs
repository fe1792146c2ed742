//! Reader and writer for the VEL sensor log format of the University of
//! Koblenz-Landau and V&R Vision & Robotics: a header, a per-second index,
//! and timestamped messages from Velodyne lidars, Hokuyo laser scanners,
//! GPS, OBD-II and cameras.
//!
//! - [`VelLog`] reads a file from a byte slice (zero copy): [`VelLog::records`]
//!   yields [`Record`]s in the format's own terms, [`Record::decode`] turns
//!   a payload into [`MessageData`], and [`logcore::LogReader`] is
//!   implemented on top for format-independent tools.
//! - [`Writer`] writes files (typed, raw, or through [`logcore::LogWriter`]),
//!   with an index that follows the spec exactly.
//! - [`Registry`] maps (type id, version) to names and decoders; new types
//!   get their id from [`simple_hash`], as in the original library.
//! - [`geometry`] turns Velodyne packets and Hokuyo ranges into points.
//!
//! ```
//! use std::io::Cursor;
//! use logcore::{LogReader, MessageFilter};
//! use vellog::{GpsData, MessageData, ObdData, VelLog, Writer};
//!
//! let mut w = Writer::new(Cursor::new(Vec::new()))?;
//! let gps = GpsData { year: 2009, month: 6, day: 17, hour: 14, quality: 1, ..Default::default() };
//! w.write(0.0, &MessageData::GpsData(gps))?;
//! w.write(100.0, &MessageData::ObdData(ObdData { speed_kmh: 30, ..Default::default() }))?;
//! let file = w.into_inner()?.into_inner();
//!
//! let log = VelLog::new(&file)?;
//! let summary = log.summary()?;
//! assert_eq!(summary.message_count, 2);
//! assert_eq!(summary.channels[1].info.topic, "OBDDataM");
//! let first = log.messages(&MessageFilter::all())?.next().unwrap()?;
//! assert_eq!(summary.time_model.format_date(first.log_time).unwrap(), "2009-06-17T14:00:00.000000000Z");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Where the format note is silent or contradicts itself (size field
//! convention, marker byte, end-of-file rule, index origin), this crate
//! follows the project's specification; the crate README lists each choice.

#![forbid(unsafe_code)]

pub mod error;
pub mod frame;
pub mod geometry;
pub mod gps;
pub mod hash;
pub mod header;
mod logreader;
mod logwriter;
pub mod message;
pub mod read;
pub mod records;
pub mod registry;
mod scan;
pub mod write;

pub use error::{Error, FormatError, ParseError, Result};
pub use frame::{Record, SizeConvention};
pub use gps::GpsData;
pub use hash::{
    GPS_DATA, IMAGE, LASER_RANGE_2D_DATA, OBD_DATA, ROBOT_POSE, VELODYNE_RAW_DATA, simple_hash,
};
pub use header::{FileHeader, Index, probe};
pub use logcore::ReadMode;
pub use message::MessageData;
pub use read::{EndOfRecords, IndexCheck, Records, VelLog};
pub use records::{
    Image, LaserRange2DData, ObdData, RobotPose, TypedMessage, VELODYNE_PACKET_LEN,
    VelodyneRawData, display_string,
};
pub use registry::{Decoder, Registry};
pub use write::{Writer, WriterOptions};

/// The README's examples, compiled and run as doc-tests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
