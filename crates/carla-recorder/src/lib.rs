//! Reader and writer for CARLA simulator recorder files (`.log` / `.rec`,
//! written by `client.start_recorder`), readable anywhere without a
//! running CARLA server.
//!
//! - [`Recording`] reads a file from a byte slice (zero copy): the
//!   [`InfoHeader`], [`Packets`] and [`Frames`] (FrameStart … FrameEnd, one
//!   per server tick), and [`Packet`]: every packet id 0–23 typed in CARLA's
//!   own vocabulary ([`EventAdd`], [`Position`], [`PhysicsControl`], …),
//!   unknown ids kept raw. The layout generation (f32/f64 vectors, 36/48-byte
//!   wheel records, attribute type coding) is detected, see [`Layout`].
//! - [`Writer`] writes recordings in any layout; [`rewrite`] reproduces a
//!   file byte for byte; [`RecordingWriter`] implements
//!   [`logcore::LogWriter`] (a logcore copy of a recording is byte-identical).
//! - [`Timeline`] follows actors: type, blueprint, attributes, lifetime,
//!   parent, trajectory, and finds frames by time.
//! - [`report`] reproduces CARLA's `show_recorder_file_info`,
//!   `show_recorder_collisions` and `show_recorder_actors_blocked` text.
//! - [`logcore::LogReader`] is implemented on [`Recording`]: one channel per
//!   packet kind, clock [`logcore::Clock::RecordingStart`] anchored by the
//!   header date.
//!
//! ```
//! use carla_recorder::{EventAdd, InfoHeader, Packet, Recording, Vec3, Writer};
//! use logcore::LogReader;
//!
//! let mut w = Writer::new(InfoHeader::new(1_637_676_528, b"Town01"))?;
//! let car = EventAdd {
//!     id: 174, type_code: 1, location: Vec3::new(10700.0, 13300.0, 64.5),
//!     rotation: Vec3::default(), uid: 26, description_id: b"vehicle.lincoln.mkz_2017",
//!     attributes: vec![],
//! };
//! w.tick(0.0, &[Packet::EventAdd(vec![car])])?;
//! w.tick(0.05, &[])?;
//! let bytes = w.finish();
//!
//! let rec = Recording::new(&bytes)?;
//! assert_eq!(rec.frames().count(), 2);
//! let summary = rec.summary()?;
//! assert_eq!(summary.metadata["map"], "Town01");
//! assert_eq!(summary.time_model.format_date(summary.start.unwrap()).unwrap(),
//!            "2021-11-23T14:08:48.000000000Z");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

pub mod additional;
pub mod error;
pub mod event;
pub mod frame;
pub mod header;
pub mod layout;
mod logreader;
mod logwriter;
pub mod packet;
pub mod read;
pub mod report;
mod scan;
pub mod state;
pub mod timeline;
mod value;
mod wire;
pub mod write;

pub use additional::{
    Bone, BoundingBox, Gear, Kinematics, PhysicsControl, TrafficLightTime, WalkerBones, Wheel,
};
pub use error::{Error, Result};
pub use event::{ActorType, Attribute, Collision, EventAdd, EventDel, EventParent, NO_ACTOR};
pub use frame::{FrameStart, LAST_FRAME_DURATION};
pub use header::{InfoHeader, probe};
pub use layout::{AttributeCoding, AttributeType, Layout, Vec3, VectorWidth, WheelRecord};
pub use logcore::ReadMode;
pub use logwriter::RecordingWriter;
pub use packet::{Packet, PacketId, RawPacket, packet_name};
pub use read::{Frame, FramePackets, Frames, Packets, Recording};
pub use state::{
    AnimBiker, AnimVehicle, AnimVehicleWheels, AnimWalker, Position, SceneLight, TrafficLightState,
    VehicleDoor, VehicleLight, WheelAnim,
};
pub use timeline::{Actor, FrameIndex, Timeline};
pub use value::{packet_type, packet_value, raw_packet_type};
pub use write::{Writer, rewrite};

/// The README's examples, compiled and run as doc-tests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
