//! The layout generations of the format: what differs between CARLA
//! versions although the header's version field never changes (spec §9).

/// Width of every `vec3` in the file (spec §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum VectorWidth {
    /// 3 × `f32` (12 bytes): UE4 builds, CARLA 0.9.x.
    #[default]
    F32,
    /// 3 × `f64` (24 bytes): UE5 builds, CARLA 0.10.x.
    F64,
}

impl VectorWidth {
    /// Bytes of one `vec3`.
    pub const fn vec3_len(self) -> usize {
        match self {
            VectorWidth::F32 => 12,
            VectorWidth::F64 => 24,
        }
    }

    /// Bytes of one Position record (actor id and two vectors).
    pub const fn position_len(self) -> usize {
        4 + 2 * self.vec3_len()
    }
}

/// Size of the wheel record inside PhysicsControl (spec §8.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum WheelRecord {
    /// 9 × `f32` (36 bytes), CARLA 0.9.11 and older: no tire stiffness.
    Wheel36,
    /// 12 × `f32` (48 bytes), CARLA 0.9.12 and later.
    #[default]
    Wheel48,
}

impl WheelRecord {
    /// Bytes of one wheel record.
    #[allow(clippy::len_without_is_empty)] // a record size, not a collection
    pub const fn len(self) -> usize {
        match self {
            WheelRecord::Wheel36 => 36,
            WheelRecord::Wheel48 => 48,
        }
    }
}

/// How EventAdd attribute type codes are numbered (spec §7.2). The values
/// are always stored as text, so the code is only a hint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AttributeCoding {
    /// 0 Bool, 1 Int, 2 Float, 3 String, 4 RGBColor (0.9.10/0.9.13 files;
    /// UE5 adds 5 Vector).
    #[default]
    ZeroBased,
    /// 0 Null, 1 Bool, 2 Int, 3 Float, 4 String, 5 RGBColor (0.9.15 source).
    OneBased,
}

/// The meaning of an attribute type code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttributeType {
    /// The null placeholder of the one-based coding.
    Null,
    /// `true` / `false`.
    Bool,
    /// An integer.
    Int,
    /// A float.
    Float,
    /// Text.
    String,
    /// `r,g,b`.
    RgbColor,
    /// A vector (UE5 only).
    Vector,
}

impl AttributeType {
    /// Lower-case name.
    pub const fn name(self) -> &'static str {
        match self {
            AttributeType::Null => "null",
            AttributeType::Bool => "bool",
            AttributeType::Int => "int",
            AttributeType::Float => "float",
            AttributeType::String => "string",
            AttributeType::RgbColor => "rgb_color",
            AttributeType::Vector => "vector",
        }
    }
}

impl AttributeCoding {
    /// The meaning of `code` in this coding, `None` for codes it does not
    /// define.
    ///
    /// ```
    /// use carla_recorder::{AttributeCoding, AttributeType};
    /// assert_eq!(AttributeCoding::ZeroBased.decode(4), Some(AttributeType::RgbColor));
    /// assert_eq!(AttributeCoding::OneBased.decode(4), Some(AttributeType::String));
    /// ```
    pub const fn decode(self, code: u8) -> Option<AttributeType> {
        use AttributeType::*;
        match (self, code) {
            (AttributeCoding::ZeroBased, 0) => Some(Bool),
            (AttributeCoding::ZeroBased, 1) => Some(Int),
            (AttributeCoding::ZeroBased, 2) => Some(Float),
            (AttributeCoding::ZeroBased, 3) => Some(String),
            (AttributeCoding::ZeroBased, 4) => Some(RgbColor),
            (AttributeCoding::ZeroBased, 5) => Some(Vector),
            (AttributeCoding::OneBased, 0) => Some(Null),
            (AttributeCoding::OneBased, 1) => Some(Bool),
            (AttributeCoding::OneBased, 2) => Some(Int),
            (AttributeCoding::OneBased, 3) => Some(Float),
            (AttributeCoding::OneBased, 4) => Some(String),
            (AttributeCoding::OneBased, 5) => Some(RgbColor),
            _ => None,
        }
    }
}

/// Everything that differs between layout generations. The reader detects
/// it (see [`crate::Recording::layout`]); the writer is told it.
///
/// ```
/// use carla_recorder::{Layout, VectorWidth, WheelRecord};
/// assert_eq!(Layout::default(), Layout::CARLA_0_9_13);
/// assert_eq!(Layout::CARLA_0_9_10.wheels, WheelRecord::Wheel36);
/// assert_eq!(Layout::CARLA_0_10.vectors, VectorWidth::F64);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Layout {
    /// Width of vectors.
    pub vectors: VectorWidth,
    /// PhysicsControl wheel record size.
    pub wheels: WheelRecord,
    /// Numbering of attribute type codes (interpretation only: the codes
    /// are stored and written as they are).
    pub attributes: AttributeCoding,
}

impl Layout {
    /// CARLA 0.9.10/0.9.11: f32 vectors, 36-byte wheels, zero-based codes.
    pub const CARLA_0_9_10: Layout = Layout {
        vectors: VectorWidth::F32,
        wheels: WheelRecord::Wheel36,
        attributes: AttributeCoding::ZeroBased,
    };
    /// CARLA 0.9.12 to 0.9.14: f32 vectors, 48-byte wheels, zero-based codes
    /// (the default).
    pub const CARLA_0_9_13: Layout = Layout {
        vectors: VectorWidth::F32,
        wheels: WheelRecord::Wheel48,
        attributes: AttributeCoding::ZeroBased,
    };
    /// CARLA 0.9.15 source: as 0.9.13 with one-based attribute codes.
    pub const CARLA_0_9_15: Layout = Layout {
        vectors: VectorWidth::F32,
        wheels: WheelRecord::Wheel48,
        attributes: AttributeCoding::OneBased,
    };
    /// CARLA 0.10 (UE5): f64 vectors; PhysicsControl is kept raw.
    pub const CARLA_0_10: Layout = Layout {
        vectors: VectorWidth::F64,
        wheels: WheelRecord::Wheel48,
        attributes: AttributeCoding::ZeroBased,
    };
}

/// Three coordinates (`x, y, z`; for rotations roll, pitch, yaw in
/// degrees). Stored as `f64` so both widths fit; an `f32` file's values
/// widen and narrow back exactly.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vec3 {
    /// X (forward), or roll.
    pub x: f64,
    /// Y (right), or pitch.
    pub y: f64,
    /// Z (up), or yaw.
    pub z: f64,
}

impl Vec3 {
    /// A vector from its coordinates.
    pub const fn new(x: f64, y: f64, z: f64) -> Self {
        Vec3 { x, y, z }
    }

    /// Euclidean distance in single precision, as CARLA computes it.
    pub fn distance_f32(self, other: Vec3) -> f32 {
        let dx = self.x as f32 - other.x as f32;
        let dy = self.y as f32 - other.y as f32;
        let dz = self.z as f32 - other.z as f32;
        (dx * dx + dy * dy + dz * dz).sqrt()
    }
}
