//! The registry of message types: (type id, version) → name, decoder and
//! schema text. Pre-filled with the six documented types; users add their
//! own by name, as the original note suggests (`simpleHash("MyDataM")`).

use logcore::FormatError;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use logcore::{Value, ValueType};

use crate::error::{Error, Result};
use crate::gps::GpsData;
use crate::hash::simple_hash;
use crate::records::{Image, LaserRange2DData, ObdData, RobotPose, TypedMessage, VelodyneRawData};

/// A payload decoder: payload bytes and their absolute file offset (for
/// error messages) to a [`Value`].
pub type Decoder = Arc<dyn Fn(&[u8], u64) -> Result<Value> + Send + Sync>;

#[derive(Clone)]
struct VersionEntry {
    decoder: Option<Decoder>,
    schema: Option<String>,
    /// The type of the decoder's values, when declared.
    ty: Option<ValueType>,
}

#[derive(Clone)]
struct TypeEntry {
    name: String,
    versions: BTreeMap<i32, VersionEntry>,
}

/// Known message types.
///
/// ```
/// use vellog::{Registry, simple_hash};
/// use logcore::Value;
/// let mut reg = Registry::default(); // the six documented types
/// assert_eq!(reg.name(0x14043), Some("OBDDataM"));
/// let id = reg
///     .register("MyDataM", 1, |payload, _offset| Ok(Value::U64(payload.len() as u64)))
///     .unwrap();
/// assert_eq!(id, simple_hash(b"MyDataM"));
/// assert_eq!(reg.decode(id, 1, b"abc", 0).unwrap(), Value::U64(3));
/// // "aca" and "bab" hash alike: the second registration is refused.
/// reg.register_name("aca").unwrap();
/// assert!(reg.register_name("bab").is_err());
/// ```
#[derive(Clone)]
pub struct Registry {
    types: BTreeMap<i32, TypeEntry>,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut m = f.debug_map();
        for (id, t) in &self.types {
            m.entry(
                &format_args!("0x{id:08x}"),
                &format_args!("{} {:?}", t.name, t.versions.keys().collect::<Vec<_>>()),
            );
        }
        m.finish()
    }
}

impl Default for Registry {
    /// The six documented message types.
    fn default() -> Self {
        Self::builtin()
    }
}

fn typed(decode: fn(&[u8], u64) -> Result<Value>, schema: &str, ty: ValueType) -> VersionEntry {
    VersionEntry {
        decoder: Some(Arc::new(decode)),
        schema: Some(schema.to_owned()),
        ty: Some(ty),
    }
}

// Field layouts for the schema text of each channel; "name type" per line.
const OBD_SCHEMA: &str = "i32 speed_kmh\ni32 engine_rpm\nf32 unused_8\ni32 unused_12\n\
i32 unused_16\nf32 throttle_position\ni32 unused_24\n";
const GPS_SCHEMA: &str = "i32 hour\ni32 minute\ni32 second\ni32 warning\nf64 latitude\n\
f64 longitude\nf32 speed_kmh\nf32 course\ni32 day\ni32 month\ni32 year\ni32 quality\n\
i32 satellites\nf32 hdop\nf32 height\nf32 geoid_height\nf32 vdop\nf32 pdop\n";
const IMAGE_SCHEMA: &str =
    "i32 source_id\nbool32 is_compressed\ni32 width\ni32 height\nu32 size\nu8[size] data\n";
const POSE_SCHEMA: &str = "f32[4] orientation\nf32[3] acceleration\n";
const VELODYNE_SCHEMA: &str = "u32 packet_count\nu8[1206][packet_count] packets\n";
const LASER_SCHEMA: &str =
    "string sensor_type\nstring sensor_name\nu32 count\nu32[count] ranges_mm\n";

impl Registry {
    /// A registry without any type.
    pub fn empty() -> Self {
        Registry {
            types: BTreeMap::new(),
        }
    }

    /// The six documented message types with their decoders.
    pub fn builtin() -> Self {
        let mut r = Self::empty();
        r.insert(
            ObdData::NAME,
            ObdData::VERSION,
            typed(
                |p, o| Ok(ObdData::parse(p, o)?.to_value()),
                OBD_SCHEMA,
                ObdData::value_type(),
            ),
        );
        r.insert(
            GpsData::NAME,
            GpsData::VERSION,
            typed(
                |p, o| Ok(GpsData::parse(p, o)?.to_value()),
                GPS_SCHEMA,
                GpsData::value_type(),
            ),
        );
        r.insert(
            Image::NAME,
            Image::VERSION,
            typed(
                |p, o| Ok(Image::parse(p, o)?.to_value()),
                IMAGE_SCHEMA,
                Image::value_type(),
            ),
        );
        r.insert(
            RobotPose::NAME,
            RobotPose::VERSION,
            typed(
                |p, o| Ok(RobotPose::parse(p, o)?.to_value()),
                POSE_SCHEMA,
                RobotPose::value_type(),
            ),
        );
        r.insert(
            VelodyneRawData::NAME,
            VelodyneRawData::VERSION,
            typed(
                |p, o| Ok(VelodyneRawData::parse(p, o)?.to_value()),
                VELODYNE_SCHEMA,
                VelodyneRawData::value_type(),
            ),
        );
        r.insert(
            LaserRange2DData::NAME,
            LaserRange2DData::VERSION,
            typed(
                |p, o| Ok(LaserRange2DData::parse(p, o)?.to_value()),
                LASER_SCHEMA,
                LaserRange2DData::value_type(),
            ),
        );
        r
    }

    fn insert(&mut self, name: &str, version: i32, entry: VersionEntry) {
        self.types
            .entry(simple_hash(name.as_bytes()))
            .or_insert_with(|| TypeEntry {
                name: name.to_owned(),
                versions: BTreeMap::new(),
            })
            .versions
            .insert(version, entry);
    }

    /// Checks `name` and returns its id: non-empty ASCII, and its id not
    /// already taken by a different name.
    fn check_name(&self, name: &str) -> Result<i32> {
        if name.is_empty() || !name.is_ascii() {
            return Err(Error::invalid_argument(format!(
                "message type name {name:?} must be non-empty ASCII (the original hash of \
                 other bytes is unknown)"
            )));
        }
        let id = simple_hash(name.as_bytes());
        match self.types.get(&id) {
            Some(t) if t.name != name => Err(Error::IdCollision {
                name: name.to_owned(),
                id,
                existing: t.name.clone(),
            }),
            _ => Ok(id),
        }
    }

    /// Registers a type name without any decodable version (its messages
    /// get the name but decode as raw bytes). Returns its id.
    pub fn register_name(&mut self, name: &str) -> Result<i32> {
        let id = self.check_name(name)?;
        self.types.entry(id).or_insert_with(|| TypeEntry {
            name: name.to_owned(),
            versions: BTreeMap::new(),
        });
        Ok(id)
    }

    /// Registers (or replaces) the decoder of version `version` of type
    /// `name`. Returns the type id, `simple_hash(name)`.
    pub fn register<F>(&mut self, name: &str, version: i32, decoder: F) -> Result<i32>
    where
        F: Fn(&[u8], u64) -> Result<Value> + Send + Sync + 'static,
    {
        let id = self.check_name(name)?;
        self.insert(
            name,
            version,
            VersionEntry {
                decoder: Some(Arc::new(decoder)),
                schema: None,
                ty: None,
            },
        );
        Ok(id)
    }

    /// Like [`Registry::register`], declaring the type of every value the
    /// decoder returns (what [`Registry::value_type`] and
    /// `LogReader::value_type` give for its channels).
    ///
    /// ```
    /// use logcore::{Value, ValueType};
    /// let mut reg = vellog::Registry::default();
    /// let id = reg
    ///     .register_typed("MyDataM", 1, ValueType::U32, |p, _| Ok(Value::U64(p.len() as u64)))
    ///     .unwrap();
    /// assert_eq!(reg.value_type(id, 1), Some(ValueType::U32));
    /// ```
    pub fn register_typed<F>(
        &mut self,
        name: &str,
        version: i32,
        ty: ValueType,
        decoder: F,
    ) -> Result<i32>
    where
        F: Fn(&[u8], u64) -> Result<Value> + Send + Sync + 'static,
    {
        let id = self.check_name(name)?;
        self.insert(
            name,
            version,
            VersionEntry {
                decoder: Some(Arc::new(decoder)),
                schema: None,
                ty: Some(ty),
            },
        );
        Ok(id)
    }

    /// Registers a version with a schema text (shown in channel info) and
    /// no decoder.
    pub fn register_schema(&mut self, name: &str, version: i32, schema: &str) -> Result<i32> {
        let id = self.check_name(name)?;
        self.insert(
            name,
            version,
            VersionEntry {
                decoder: None,
                schema: Some(schema.to_owned()),
                ty: None,
            },
        );
        Ok(id)
    }

    /// The registered name of `type_id`.
    pub fn name(&self, type_id: i32) -> Option<&str> {
        self.types.get(&type_id).map(|t| t.name.as_str())
    }

    /// The registered name, or `unknown_0x0000abcd` for unknown ids.
    pub fn type_name(&self, type_id: i32) -> String {
        self.name(type_id)
            .map(str::to_owned)
            .unwrap_or_else(|| format!("unknown_0x{type_id:08x}"))
    }

    /// The id of a registered name.
    pub fn type_id(&self, name: &str) -> Option<i32> {
        let id = simple_hash(name.as_bytes());
        (self.name(id)? == name).then_some(id)
    }

    /// The registered versions of `type_id`, ascending.
    pub fn versions(&self, type_id: i32) -> Vec<i32> {
        self.types
            .get(&type_id)
            .map(|t| t.versions.keys().copied().collect())
            .unwrap_or_default()
    }

    /// Whether (type, version) is registered (with a decoder or a schema).
    pub fn is_known(&self, type_id: i32, version: i32) -> bool {
        self.types
            .get(&type_id)
            .is_some_and(|t| t.versions.contains_key(&version))
    }

    /// The schema text of (type, version), if registered.
    pub fn schema(&self, type_id: i32, version: i32) -> Option<&str> {
        self.types
            .get(&type_id)?
            .versions
            .get(&version)?
            .schema
            .as_deref()
    }

    /// The type of the values [`Registry::decode`] gives for (type,
    /// version): the declared type of a built-in or
    /// [`Registry::register_typed`] decoder, [`ValueType::Bytes`] for pairs
    /// without a decoder (kept raw), `None` for a decoder registered
    /// without a type ([`Registry::register`]).
    ///
    /// ```
    /// use logcore::ValueType;
    /// let reg = vellog::Registry::default();
    /// assert_eq!(reg.value_type(0x1234, 1), Some(ValueType::Bytes));
    /// ```
    pub fn value_type(&self, type_id: i32, version: i32) -> Option<ValueType> {
        let entry = self
            .types
            .get(&type_id)
            .and_then(|t| t.versions.get(&version));
        match entry {
            Some(VersionEntry {
                decoder: Some(_),
                ty,
                ..
            }) => ty.clone(),
            _ => Some(ValueType::Bytes),
        }
    }

    /// Decodes a payload; pairs without a decoder give [`Value::Bytes`].
    pub fn decode(&self, type_id: i32, version: i32, payload: &[u8], offset: u64) -> Result<Value> {
        let decoder = self
            .types
            .get(&type_id)
            .and_then(|t| t.versions.get(&version))
            .and_then(|v| v.decoder.as_ref());
        match decoder {
            Some(d) => d(payload, offset),
            None => Ok(Value::Bytes(payload.to_vec())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash;

    #[test]
    fn builtin_types() {
        let r = Registry::builtin();
        for (name, id, version) in hash::BUILTIN_TYPES {
            assert_eq!(r.name(id), Some(name));
            assert_eq!(r.type_id(name), Some(id));
            assert!(r.is_known(id, version));
            assert!(r.schema(id, version).is_some());
        }
        assert!(!r.is_known(hash::LASER_RANGE_2D_DATA, 100));
        assert_eq!(r.type_name(0x1234), "unknown_0x00001234");
        assert_eq!(r.type_id("OBDDataX"), None);
    }

    #[test]
    fn names_are_checked() {
        let mut r = Registry::builtin();
        assert!(matches!(
            r.register_name(""),
            Err(Error::Parse(crate::ParseError::InvalidArgument(_)))
        ));
        assert!(r.register_name("Grüße").is_err());
        // Re-registering a known name is fine; a colliding one is not.
        assert_eq!(r.register_name("ImageM").unwrap(), hash::IMAGE);
        r.register_name("aca").unwrap();
        let e = r.register_name("bab").unwrap_err();
        assert!(e.to_string().contains("\"aca\""), "{e}");
        assert_eq!(r.type_id("bab"), None);
    }

    #[test]
    fn decodes_builtin_and_raw() {
        let r = Registry::builtin();
        let pose = RobotPose {
            orientation: [1.0, 0.0, 0.0, 0.0],
            acceleration: [0.0, 0.0, 9.81],
        };
        let v = r
            .decode(hash::ROBOT_POSE, 100, &pose.to_bytes().unwrap(), 0)
            .unwrap();
        assert_eq!(v, pose.to_value());
        assert_eq!(
            r.decode(42, 1, b"ab", 0).unwrap(),
            Value::Bytes(b"ab".to_vec())
        );
        let e = r.decode(hash::OBD_DATA, 100, b"short", 33).unwrap_err();
        assert_eq!(e.offset(), Some(33));
    }
}
