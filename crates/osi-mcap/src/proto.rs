//! Protobuf descriptors embedded in MCAP schemas, and the OSI conventions
//! on top of them.
//!
//! An OSI channel's schema holds a serialized
//! `google.protobuf.FileDescriptorSet` ([`Descriptors`]); its messages are
//! top-level OSI messages ([`TopLevel`]) whose `timestamp` (an
//! `osi3.Timestamp`) and `version` (an `osi3.InterfaceVersion`) fields a
//! validator needs. Their field numbers are found through the descriptor,
//! never hard-coded per type, and read with a small wire-format walker
//! without decoding the whole message. [`decode_to_value`] decodes any
//! message fully into a [`logcore::Value`]; [`ProtobufDecoder`] does it
//! for the messages of one MCAP schema (name + FileDescriptorSet), parsing
//! the descriptors once.
//!
//! ```
//! use osi_mcap::proto::{OsiTimestamp, Version3};
//!
//! let t = OsiTimestamp { seconds: 2, nanos: 50_000_000 };
//! assert_eq!(t.to_nanos(), Some(2_050_000_000));
//! assert_eq!(OsiTimestamp::from_nanos(2_050_000_000), t);
//! assert_eq!(Version3 { major: 3, minor: 7, patch: 0 }.to_string(), "3.7.0");
//! assert_eq!(osi_mcap::proto::type_code("osi3.SensorView"), Some("sv"));
//! ```

use std::fmt;

use prost_reflect::{DescriptorPool, Kind, MessageDescriptor};

mod value;
mod wire;

/// The resource limits of the readers ([`Limits::max_nesting`] can lower
/// the protobuf nesting limit [`MAX_NESTING`]).
pub use logcore::Limits;
pub use value::{
    MAX_NESTING, decode_to_value, decode_to_value_nested, nesting_of, value_type, value_type_nested,
};
use wire::{Fields, Probe, WireValue};

/// Error of this module: what was wrong, with the byte offset into the
/// message (or descriptor) bytes where the wire data is bad.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtoError {
    /// The FileDescriptorSet does not parse or is inconsistent (e.g. a
    /// missing import).
    #[error("invalid FileDescriptorSet: {0}")]
    Descriptor(String),
    /// The descriptors hold no message of this full name.
    #[error("the FileDescriptorSet holds no message {0:?}")]
    MissingMessage(String),
    /// Bad protobuf wire data at a byte offset.
    #[error("bad protobuf wire data at byte {offset}: expected {expected}")]
    Wire {
        /// Byte offset into the message bytes.
        offset: u64,
        /// What was expected there.
        expected: String,
    },
    /// The wire data is well-formed at the top level but does not decode
    /// as the message type (bad nested data, a field of the wrong wire
    /// type, invalid UTF-8 in a string, nesting too deep...).
    #[error("the bytes do not decode as {message}: {reason}")]
    Decode {
        /// Full name of the message type.
        message: String,
        /// The decoder's reason.
        reason: String,
    },
}

/// Decodes the messages of one protobuf schema into [`logcore::Value`]s.
///
/// Built from what an MCAP schema of encoding `protobuf` holds: the full
/// name of the message type and a serialized
/// `google.protobuf.FileDescriptorSet`. The descriptors are parsed once, in
/// [`ProtobufDecoder::new`], and kept for every [`ProtobufDecoder::decode`]
/// call; a decoder registry makes one per schema and reuses it. Decoded
/// values are those of [`decode_to_value`] (fields in declaration order,
/// enums by value name, maps as structs).
///
/// ```
/// use osi_mcap::proto::{ProtoError, ProtobufDecoder};
///
/// // A FileDescriptorSet that declares no message.
/// let e = ProtobufDecoder::new("osi3.SensorView", &[]).unwrap_err();
/// assert_eq!(e, ProtoError::MissingMessage("osi3.SensorView".into()));
/// assert!(ProtobufDecoder::new("osi3.SensorView", &[0x0a, 0x05]).is_err());
/// ```
#[derive(Clone, Debug)]
pub struct ProtobufDecoder {
    desc: MessageDescriptor,
    max_nesting: usize,
}

impl ProtobufDecoder {
    /// Parses `file_descriptor_set` and finds the message `schema_name`
    /// (its full name, e.g. `osi3.SensorView`) in it.
    ///
    /// Fails with [`ProtoError::Descriptor`] when the bytes are not a
    /// consistent FileDescriptorSet and [`ProtoError::MissingMessage`] when
    /// it does not declare the message.
    pub fn new(schema_name: &str, file_descriptor_set: &[u8]) -> Result<Self, ProtoError> {
        let desc = Descriptors::from_file_descriptor_set(file_descriptor_set)?
            .message(schema_name)
            .ok_or_else(|| ProtoError::MissingMessage(schema_name.to_owned()))?;
        Ok(ProtobufDecoder {
            desc,
            max_nesting: MAX_NESTING,
        })
    }

    /// [`new`](Self::new) with the nesting limit of `limits`
    /// ([`nesting_of`]: [`Limits::max_nesting`] when set, at most
    /// [`MAX_NESTING`], which the decoder underneath cannot exceed), which
    /// [`decode`](Self::decode) and [`value_type`](Self::value_type) apply.
    ///
    /// ```
    /// use osi_mcap::proto::{Limits, ProtobufDecoder};
    ///
    /// let e = ProtobufDecoder::with_limits("a.B", &[], &Limits::default().with_max_nesting(3));
    /// assert!(e.is_err());
    /// ```
    pub fn with_limits(
        schema_name: &str,
        file_descriptor_set: &[u8],
        limits: &Limits,
    ) -> Result<Self, ProtoError> {
        let mut d = Self::new(schema_name, file_descriptor_set)?;
        d.max_nesting = nesting_of(limits);
        Ok(d)
    }

    /// The deepest nesting of messages this decoder follows.
    pub fn max_nesting(&self) -> usize {
        self.max_nesting
    }

    /// The type of every value [`decode`](Self::decode) returns (see
    /// [`value_type`]).
    pub fn value_type(&self) -> logcore::ValueType {
        value_type_nested(&self.desc, self.max_nesting)
    }

    /// Full name of the message type this decoder reads.
    pub fn message_name(&self) -> &str {
        self.desc.full_name()
    }

    /// Decodes one serialized message (see [`decode_to_value`]); bad wire
    /// data is an error naming the byte offset in `payload`.
    pub fn decode(&self, payload: &[u8]) -> Result<logcore::Value, ProtoError> {
        decode_to_value_nested(&self.desc, payload, self.max_nesting)
    }
}

/// A `major.minor.patch` version triple (an `osi3.InterfaceVersion`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Version3 {
    /// Major version.
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Patch version.
    pub patch: u32,
}

impl Version3 {
    /// Parses `"3.8.0"` (exactly three decimal numbers; a semver
    /// pre-release or build suffix after `-` or `+` is ignored).
    ///
    /// ```
    /// use osi_mcap::proto::Version3;
    /// assert_eq!(Version3::parse("3.8.0-rc1"), Some(Version3 { major: 3, minor: 8, patch: 0 }));
    /// assert_eq!(Version3::parse("3.8"), None);
    /// ```
    pub fn parse(s: &str) -> Option<Self> {
        let core = s.split(['-', '+']).next()?;
        let mut it = core.split('.');
        let mut num = || -> Option<u32> {
            let p = it.next()?;
            if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            p.parse().ok()
        };
        let v = Version3 {
            major: num()?,
            minor: num()?,
            patch: num()?,
        };
        it.next().is_none().then_some(v)
    }

    fn from_raw(v: [u64; 3]) -> Self {
        // uint32 fields: protobuf truncates wider varints.
        Version3 {
            major: v[0] as u32,
            minor: v[1] as u32,
            patch: v[2] as u32,
        }
    }
}

impl fmt::Display for Version3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// An OSI timestamp (`osi3.Timestamp`) as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OsiTimestamp {
    /// Seconds (OSI requires ≥ 0).
    pub seconds: i64,
    /// Nanoseconds (OSI requires 0..=999 999 999).
    pub nanos: u32,
}

impl OsiTimestamp {
    /// `seconds × 10⁹ + nanos` with checked arithmetic; `None` when
    /// seconds is negative, nanos is above 999 999 999 or the sum does not
    /// fit `u64`.
    pub fn to_nanos(self) -> Option<u64> {
        if self.nanos > 999_999_999 {
            return None;
        }
        u64::try_from(self.seconds)
            .ok()?
            .checked_mul(1_000_000_000)?
            .checked_add(u64::from(self.nanos))
    }

    /// The timestamp of `ns` nanoseconds (the inverse of
    /// [`OsiTimestamp::to_nanos`]).
    pub fn from_nanos(ns: u64) -> Self {
        OsiTimestamp {
            seconds: (ns / 1_000_000_000) as i64,
            nanos: (ns % 1_000_000_000) as u32,
        }
    }
}

/// A `google.protobuf.FileDescriptorSet` parsed into a
/// [`prost_reflect::DescriptorPool`].
#[derive(Clone, Debug)]
pub struct Descriptors {
    pool: DescriptorPool,
    interface_version: Option<Version3>,
}

/// Field number of `osi3.current_interface_version` when the pool does not
/// declare it.
const CURRENT_INTERFACE_VERSION: u32 = 81000;
/// `FileDescriptorSet.file`.
const FDS_FILE: u32 = 1;
/// `FileDescriptorProto.name`.
const FDP_NAME: u32 = 1;
/// `FileDescriptorProto.options`.
const FDP_OPTIONS: u32 = 8;

impl Descriptors {
    /// Parses a serialized FileDescriptorSet (as in an MCAP schema of
    /// encoding `protobuf`).
    pub fn from_file_descriptor_set(bytes: &[u8]) -> Result<Self, ProtoError> {
        // prost-reflect 0.16 panics while reporting a file whose `syntax`
        // it does not know (e.g. "editions"): refuse those first, and read
        // an empty syntax as the absent one (proto2), as protoc does.
        let mut set = <prost_types::FileDescriptorSet as prost::Message>::decode(bytes)
            .map_err(|e| ProtoError::Descriptor(format!("not a FileDescriptorSet: {e}")))?;
        for f in &mut set.file {
            match f.syntax.as_deref() {
                None | Some("proto2" | "proto3") => {}
                Some("") => f.syntax = None,
                Some(other) => {
                    return Err(ProtoError::Descriptor(format!(
                        "file {:?} has syntax {other:?}; only proto2 and proto3 are supported",
                        f.name()
                    )));
                }
            }
        }
        let pool = DescriptorPool::from_file_descriptor_set(set)
            .map_err(|e| ProtoError::Descriptor(e.to_string()))?;
        let interface_version = read_interface_version(&pool, bytes);
        Ok(Descriptors {
            pool,
            interface_version,
        })
    }

    /// The descriptor pool.
    pub fn pool(&self) -> &DescriptorPool {
        &self.pool
    }

    /// The message of this full name (e.g. `osi3.SensorView`).
    pub fn message(&self, full_name: &str) -> Option<MessageDescriptor> {
        self.pool.get_message_by_name(full_name)
    }

    /// The OSI `current_interface_version` FileOptions extension set on the
    /// file that declares it (`osi_version.proto`): the OSI release the
    /// schema was generated from. `None` when absent (e.g. dropped by the
    /// writer's protobuf runtime).
    ///
    /// The extension number comes from the declaration of
    /// `osi3.current_interface_version` in the pool (81000 when the pool
    /// lacks it); the value is read from the raw FileOptions bytes, as
    /// prost drops unknown fields.
    pub fn interface_version(&self) -> Option<Version3> {
        self.interface_version
    }
}

/// The field numbers of `version_major/minor/patch` in `desc`, by name.
fn version_subs(desc: &MessageDescriptor) -> [u32; 3] {
    ["version_major", "version_minor", "version_patch"]
        .map(|n| desc.get_field_by_name(n).map_or(0, |f| f.number()))
}

fn read_interface_version(pool: &DescriptorPool, fds: &[u8]) -> Option<Version3> {
    let ext = pool
        .get_extension_by_name("osi3.current_interface_version")
        .filter(|e| e.containing_message().full_name() == "google.protobuf.FileOptions");
    let (number, file, subs) = match &ext {
        Some(e) => {
            let subs = match e.kind() {
                Kind::Message(m) => version_subs(&m),
                _ => return None,
            };
            (e.number(), Some(e.parent_file().name().to_owned()), subs)
        }
        None => {
            let subs = pool
                .get_message_by_name("osi3.InterfaceVersion")
                .map_or([1, 2, 3], |m| version_subs(&m));
            (CURRENT_INTERFACE_VERSION, None, subs)
        }
    };
    let probe = Probe {
        field: number,
        subs,
    };
    for f in Fields::new(fds, 0) {
        let f = f.ok()?;
        let (FDS_FILE, WireValue::Len(fdp, _)) = (f.number, f.value) else {
            continue;
        };
        let mut name: Option<&[u8]> = None;
        let mut found: Option<[u64; 3]> = None;
        for g in Fields::new(fdp, 0) {
            match g.ok()? {
                wire::WireField {
                    number: FDP_NAME,
                    value: WireValue::Len(n, _),
                    ..
                } => name = Some(n),
                wire::WireField {
                    number: FDP_OPTIONS,
                    value: WireValue::Len(opts, _),
                    ..
                } => {
                    // Options occurring twice merge; the last value wins.
                    if let Ok([Some(v)]) = wire::probe(opts, [Some(probe)]) {
                        found = Some(v);
                    }
                }
                _ => {}
            }
        }
        let wanted = match &file {
            Some(want) => name == Some(want.as_bytes()),
            None => true,
        };
        if wanted {
            if let Some(v) = found {
                return Some(Version3::from_raw(v));
            }
            if file.is_some() {
                return None;
            }
        }
    }
    None
}

/// The ten OSI top-level message types with their short type codes (as in
/// OSI trace file names).
pub const TOP_LEVEL_TYPES: &[(&str, &str)] = &[
    ("osi3.GroundTruth", "gt"),
    ("osi3.SensorView", "sv"),
    ("osi3.SensorViewConfiguration", "svc"),
    ("osi3.SensorData", "sd"),
    ("osi3.HostVehicleData", "hvd"),
    ("osi3.TrafficCommand", "tc"),
    ("osi3.TrafficCommandUpdate", "tcu"),
    ("osi3.TrafficUpdate", "tu"),
    ("osi3.MotionRequest", "mr"),
    ("osi3.StreamingUpdate", "su"),
];

/// The short type code of an OSI top-level message type
/// (`"osi3.SensorView"` → `"sv"`); `None` for other types.
pub fn type_code(full_name: &str) -> Option<&'static str> {
    TOP_LEVEL_TYPES
        .iter()
        .find(|(n, _)| *n == full_name)
        .map(|(_, c)| *c)
}

/// A top-level message type with the field numbers of its `timestamp`
/// (`osi3.Timestamp`) and `version` (`osi3.InterfaceVersion`) fields, found
/// through the descriptor: the field named `timestamp` whose type is a
/// message named `Timestamp` (its `seconds`/`nanos` looked up by name), and
/// the field named `version` whose type is a message named
/// `InterfaceVersion` (its `version_major/minor/patch` looked up by name).
#[derive(Clone, Debug)]
pub struct TopLevel {
    desc: MessageDescriptor,
    timestamp: Option<Probe>,
    version: Option<Probe>,
}

fn probe_for(
    desc: &MessageDescriptor,
    field: &str,
    type_name: &str,
    subs: impl Fn(&MessageDescriptor) -> [u32; 3],
) -> Option<Probe> {
    let f = desc.get_field_by_name(field)?;
    if f.is_list() || f.is_map() {
        return None;
    }
    match f.kind() {
        Kind::Message(m) if m.name() == type_name => Some(Probe {
            field: f.number(),
            subs: subs(&m),
        }),
        _ => None,
    }
}

impl TopLevel {
    /// The message `full_name` of `descriptors`.
    pub fn new(descriptors: &Descriptors, full_name: &str) -> Result<Self, ProtoError> {
        let desc = descriptors
            .message(full_name)
            .ok_or_else(|| ProtoError::MissingMessage(full_name.to_owned()))?;
        Ok(Self::from_descriptor(desc))
    }

    /// The same for a message descriptor at hand.
    pub fn from_descriptor(desc: MessageDescriptor) -> Self {
        let timestamp = probe_for(&desc, "timestamp", "Timestamp", |m| {
            let n = |name| m.get_field_by_name(name).map_or(0, |f| f.number());
            [n("seconds"), n("nanos"), 0]
        });
        let version = probe_for(&desc, "version", "InterfaceVersion", version_subs);
        TopLevel {
            desc,
            timestamp,
            version,
        }
    }

    /// The message descriptor.
    pub fn descriptor(&self) -> &MessageDescriptor {
        &self.desc
    }

    /// The full name, e.g. `osi3.SensorView`.
    pub fn full_name(&self) -> &str {
        self.desc.full_name()
    }

    /// Whether the type has a `timestamp` field (all top-level OSI types
    /// but `osi3.SensorViewConfiguration` do).
    pub fn has_timestamp_field(&self) -> bool {
        self.timestamp.is_some()
    }

    /// The field number of `timestamp` (2 in most types, 10 in
    /// `osi3.HostVehicleData`).
    pub fn timestamp_field_number(&self) -> Option<u32> {
        self.timestamp.map(|p| p.field)
    }

    /// The field number of `version` (1 in most types, 9 in
    /// `osi3.HostVehicleData`).
    pub fn version_field_number(&self) -> Option<u32> {
        self.version.map(|p| p.field)
    }

    /// Reads only the timestamp from a serialized message, without a full
    /// decode. Occurrences of the field merge (the last `seconds` and
    /// `nanos` win); absent sub-fields are 0. `Ok(None)` when the field is
    /// absent or the type has none; an error with the byte offset on bad
    /// wire data at the top level or inside the timestamp.
    pub fn timestamp(&self, msg: &[u8]) -> Result<Option<OsiTimestamp>, ProtoError> {
        Ok(self.header(msg)?.0)
    }

    /// Reads only the `version` field, like [`TopLevel::timestamp`].
    pub fn version(&self, msg: &[u8]) -> Result<Option<Version3>, ProtoError> {
        Ok(self.header(msg)?.1)
    }

    /// Reads the timestamp and the version in one pass.
    pub fn header(
        &self,
        msg: &[u8],
    ) -> Result<(Option<OsiTimestamp>, Option<Version3>), ProtoError> {
        let [t, v] = wire::probe(msg, [self.timestamp, self.version])?;
        let t = t.map(|t| OsiTimestamp {
            // int64 and uint32 as protobuf reads them from a varint.
            seconds: t[0] as i64,
            nanos: t[1] as u32,
        });
        Ok((t, v.map(Version3::from_raw)))
    }

    /// Decodes the whole message into a [`logcore::Value`] (see
    /// [`decode_to_value`]).
    pub fn decode(&self, msg: &[u8]) -> Result<logcore::Value, ProtoError> {
        decode_to_value(&self.desc, msg)
    }

    /// [`decode`](Self::decode) within `limits`' nesting limit (see
    /// [`nesting_of`]: it can lower the protobuf default, not raise it).
    pub fn decode_with_limits(
        &self,
        msg: &[u8],
        limits: &Limits,
    ) -> Result<logcore::Value, ProtoError> {
        decode_to_value_nested(&self.desc, msg, nesting_of(limits))
    }
}
