//! Sensor geometry: Velodyne packets to 3D points, Hokuyo ranges to 2D points.
//!
//! This module turns the raw sensor data a VEL log stores into Cartesian points
//! (spec sections 6 and 7). It works on plain bytes and numbers, not on the
//! rest of this crate, so it can be used on packets or scans from any source:
//!
//! - [`velodyne`]: a zero-copy view of one 1206-byte HDL-32E / HDL-64E data
//!   packet ([`VelodynePacket`]), model detection, the HDL-32E vertical angle
//!   table, and [`VelodynePacket::points`] / [`cloud_from_packets`] to compute
//!   points. HDL-64E data needs a per-laser [`Calibration`]; without one the
//!   conversion is refused rather than producing a distorted cloud.
//! - [`hokuyo`]: the URG-04LX / UTM-30LX sensor parameters, the mapping from a
//!   stored range count to scanner steps, and [`scan_points`].
//!
//! Coordinates are stored as `f32` metres: the sensors measure in 2 mm (Velodyne)
//! or 1 mm (Hokuyo) units over at most ~130 m, well inside `f32`'s ~7
//! significant digits, and point clouds are large enough that halving their size
//! matters. All arithmetic is done in `f64` and rounded once at the end.

#![forbid(unsafe_code)]

pub mod calibration;
pub mod hokuyo;
pub mod velodyne;

mod cloud;

pub use calibration::{Calibration, LaserCalibration};
pub use cloud::{
    DualReturn, Frame, VelodyneCloud, VelodyneOptions, VelodynePoint, cloud_from_packets,
    velodyne_to_ros,
};
pub use hokuyo::{
    HokuyoModel, HokuyoParams, HokuyoPoint, HokuyoScan, ScanOptions, ScanWarning, StepWindow,
    WindowSource, scan_points,
};
pub use velodyne::{
    DetectedModel, ModelEvidence, ReturnMode, VelodyneModel, VelodynePacket, packets,
};

/// What can go wrong turning sensor bytes into points.
///
/// Byte offsets are relative to the slice handed to the function that failed
/// (one packet, or the concatenated packets of a message); a caller that knows
/// where that slice sits in a file adds its own base offset.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GeometryError {
    /// A Velodyne data packet must be exactly 1206 bytes.
    #[error("Velodyne packet is {len} bytes; a data packet is exactly 1206 bytes")]
    PacketLength {
        /// Length of the slice that was given.
        len: usize,
    },
    /// Concatenated packets end with an incomplete packet.
    #[error(
        "Velodyne packet data truncated at byte {offset}: {len} bytes left, a packet needs 1206"
    )]
    TruncatedPackets {
        /// Offset of the incomplete packet in the concatenated data.
        offset: usize,
        /// How many bytes of it are present.
        len: usize,
    },
    /// A firing block starts with an id that is neither 0xEEFF nor 0xDDFF.
    #[error(
        "Velodyne block {block} at byte {offset} has id 0x{id:04X}; expected 0xEEFF (bytes FF EE) \
         or 0xDDFF (bytes FF DD), so this is not an HDL-32E/HDL-64E data packet"
    )]
    UnknownBlockId {
        /// Block index in the packet, 0..12.
        block: usize,
        /// Byte offset of the block id in the packet.
        offset: usize,
        /// The id found, read as a little-endian u16.
        id: u16,
    },
    /// The HDL-32E model was forced, but the packet holds a lower (0xDDFF)
    /// block, which only an HDL-64E sends.
    #[error(
        "Velodyne block {block} at byte {offset} is a lower block (0xDDFF), which an HDL-32E \
         never sends; drop the HDL-32E override or check the data"
    )]
    LowerBlockOnHdl32e {
        /// Block index in the packet.
        block: usize,
        /// Byte offset of the block id in the packet.
        offset: usize,
    },
    /// HDL-64E points need the unit's per-laser calibration.
    #[error(
        "HDL-64E points need the unit's per-laser calibration (Velodyne db.xml or the ROS \
         velodyne driver's YAML); refusing to compute an uncalibrated, distorted cloud"
    )]
    CalibrationRequired,
    /// The calibration has fewer lasers than the model fires.
    #[error("calibration has {got} lasers; an {model} needs {needed}")]
    CalibrationTooShort {
        /// The model the packet was converted as.
        model: VelodyneModel,
        /// Lasers the model has.
        needed: usize,
        /// Lasers in the calibration.
        got: usize,
    },
    /// Packets of one batch disagree on the sensor model.
    #[error(
        "Velodyne packet {packet} looks like an {found}, but the first packet is an {expected}; \
         pass a model override if the batch really mixes them"
    )]
    MixedModels {
        /// Index of the disagreeing packet in the batch.
        packet: usize,
        /// Model of the first packet.
        expected: VelodyneModel,
        /// Model of this packet.
        found: VelodyneModel,
    },
    /// The laser scanner model can be read neither from the sensor type string
    /// nor from the range count.
    #[error(
        "unknown laser scanner type {sensor_type:?} with {count} ranges: expected a type \
         containing 04LX or 30LX, or 682/1081 ranges; pass the model explicitly"
    )]
    UnknownHokuyoModel {
        /// The sensor type string of the scan.
        sensor_type: String,
        /// Number of ranges in the scan.
        count: usize,
    },
    /// A scan holds more ranges than the scanner has steps in a revolution.
    #[error("{count} ranges is more than the {ares} steps of one {model} revolution")]
    TooManyRanges {
        /// The scanner model.
        model: HokuyoModel,
        /// Number of ranges in the scan.
        count: usize,
        /// Steps per revolution of the model.
        ares: u32,
    },
    /// A user-given first step puts the scan's steps outside the `i32` range.
    #[error("first step {first_step} with {count} ranges runs past the largest step number")]
    StepOverflow {
        /// The first step given.
        first_step: i32,
        /// Number of ranges in the scan.
        count: usize,
    },
}
