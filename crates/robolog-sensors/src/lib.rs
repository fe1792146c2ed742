#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![doc = include_str!("../README.md")]

mod cloud;
mod fields;
mod fix;
mod image;
mod iter;
mod kind;
mod raw;
pub mod write;

pub use cloud::{Cloud, CloudOptions, PointField, decode_cloud};
pub use fix::{Fix, decode_fix};
pub use image::{Image, ImageOptions, MAX_DECODED_PIXELS, PixelOrder, decode_image};
pub use iter::{Problem, Range, Sample, clouds, images, sensor_topics, track};
pub use kind::{Kind, SensorTopic, kind_of};
pub use raw::{CloudField, CloudLayout, RawCloud, Wire, pointcloud2_layout, raw_clouds, raw_wire};

/// The type of one sample of an image or one value of a point field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dtype {
    /// Unsigned 8-bit integer.
    U8,
    /// Signed 8-bit integer.
    I8,
    /// Unsigned 16-bit integer.
    U16,
    /// Signed 16-bit integer.
    I16,
    /// Unsigned 32-bit integer.
    U32,
    /// Signed 32-bit integer.
    I32,
    /// 32-bit float.
    F32,
    /// 64-bit float.
    F64,
}

impl Dtype {
    /// Size of one value in bytes.
    pub const fn size(self) -> usize {
        match self {
            Dtype::U8 | Dtype::I8 => 1,
            Dtype::U16 | Dtype::I16 => 2,
            Dtype::U32 | Dtype::I32 | Dtype::F32 => 4,
            Dtype::F64 => 8,
        }
    }

    /// The numpy type string of the little-endian values this crate gives
    /// (`np.dtype(name)`): `"u1"`, `"i1"`, `"<u2"`, `"<i2"`, `"<u4"`,
    /// `"<i4"`, `"<f4"`, `"<f8"`.
    pub const fn name(self) -> &'static str {
        match self {
            Dtype::U8 => "u1",
            Dtype::I8 => "i1",
            Dtype::U16 => "<u2",
            Dtype::I16 => "<i2",
            Dtype::U32 => "<u4",
            Dtype::I32 => "<i4",
            Dtype::F32 => "<f4",
            Dtype::F64 => "<f8",
        }
    }

    /// Whether the values are floating point.
    pub const fn is_float(self) -> bool {
        matches!(self, Dtype::F32 | Dtype::F64)
    }
}

/// Why a topic's sensor data cannot be read at all (per-message failures
/// are [`Problem`]s instead).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The log could not be read (opening it, listing its channels,
    /// starting an iteration).
    #[error(transparent)]
    Log(#[from] logcore::Error),
    /// No channel of the log has this topic.
    #[error("the log has no topic {topic}")]
    UnknownTopic {
        /// The topic asked for.
        topic: String,
    },
    /// The topic's type is not a sensor type of the kind asked for.
    #[error("topic {topic} holds {type_name}, not {wanted}")]
    NotSensor {
        /// The topic asked for.
        topic: String,
        /// Its message type.
        type_name: String,
        /// What the call reads (`an image type`, ...).
        wanted: &'static str,
    },
}

/// What in one message did not fit its type's rules, in words (`data holds
/// 10 bytes, height 480 * step 1920 needs 921600`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SensorError(pub String);

impl SensorError {
    pub(crate) fn new(what: impl Into<String>) -> Self {
        SensorError(what.into())
    }
}

pub(crate) type Result<T> = std::result::Result<T, SensorError>;
