//! Foxglove's well-known message schemas, as JSON messages with a
//! `jsonschema` schema (message encoding `json`).
//!
//! The schema texts are those of the npm package `@foxglove/schemas` 2.1.0
//! (its `jsonschema` export), vendored under `schemas/foxglove/` with the
//! package's licence. The builders here make `serde_json` values with the
//! field layout of those schemas: times are `{sec, nsec}`, binary fields
//! (point data, image data) base64 strings, enums their numbers. With the
//! `protobuf` encoding the same values are written in Foxglove's `.proto`
//! message types instead (see the `protobuf` module).

use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};
#[cfg(test)]
use serde_json::Map;
use serde_json::{Value as Json, json};

use logcore::Timestamp;

/// A Foxglove schema: its name and its JSON Schema text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WellKnown {
    /// The schema name, `foxglove.X`.
    pub(crate) name: &'static str,
    /// The JSON Schema text.
    pub(crate) text: &'static str,
}

macro_rules! well_known {
    ($($konst:ident => $file:literal),* $(,)?) => {
        $(
            #[doc = concat!("`foxglove.", $file, "`.")]
            pub(crate) const $konst: WellKnown = WellKnown {
                name: concat!("foxglove.", $file),
                text: include_str!(concat!("../../schemas/foxglove/", $file, ".json")),
            };
        )*
        /// Every vendored schema.
        #[cfg(test)]
        pub(crate) const ALL: &[WellKnown] = &[$($konst),*];
    };
}

well_known! {
    POINT_CLOUD => "PointCloud",
    LASER_SCAN => "LaserScan",
    COMPRESSED_IMAGE => "CompressedImage",
    LOCATION_FIX => "LocationFix",
    FRAME_TRANSFORM => "FrameTransform",
    FRAME_TRANSFORMS => "FrameTransforms",
    SCENE_UPDATE => "SceneUpdate",
    POSE_IN_FRAME => "PoseInFrame",
    LOG => "Log",
}

/// `foxglove.LogLevel` values.
pub(crate) mod log_level {
    pub(crate) const DEBUG: u8 = 1;
    pub(crate) const INFO: u8 = 2;
    pub(crate) const WARNING: u8 = 3;
    pub(crate) const ERROR: u8 = 4;
    pub(crate) const FATAL: u8 = 5;
}

/// `foxglove.NumericType` FLOAT32.
pub(crate) const FLOAT32: u8 = 7;

/// `foxglove.PositionCovarianceType` APPROXIMATED.
pub(crate) const COVARIANCE_APPROXIMATED: u8 = 1;
/// `foxglove.PositionCovarianceType` UNKNOWN.
pub(crate) const COVARIANCE_UNKNOWN: u8 = 0;

/// A time as `{sec, nsec}` (Foxglove's `time` has no negative seconds:
/// earlier times are clamped to 0).
pub(crate) fn time(t: Timestamp) -> Json {
    let ns = t.as_nanos().max(0);
    json!({"sec": ns / 1_000_000_000, "nsec": ns % 1_000_000_000})
}

/// `foxglove.Vector3`.
pub(crate) fn vector3([x, y, z]: [f64; 3]) -> Json {
    json!({"x": x, "y": y, "z": z})
}

/// `foxglove.Quaternion` from `[x, y, z, w]`.
pub(crate) fn quaternion([x, y, z, w]: [f64; 4]) -> Json {
    json!({"x": x, "y": y, "z": z, "w": w})
}

/// `foxglove.Pose`.
pub(crate) fn pose(position: [f64; 3], orientation: [f64; 4]) -> Json {
    json!({"position": vector3(position), "orientation": quaternion(orientation)})
}

/// The identity pose.
pub(crate) fn identity_pose() -> Json {
    pose([0.0; 3], [0.0, 0.0, 0.0, 1.0])
}

/// `foxglove.Color`.
#[cfg(test)]
pub(crate) fn color([r, g, b, a]: [f64; 4]) -> Json {
    json!({"r": r, "g": g, "b": b, "a": a})
}

/// `foxglove.FrameTransform`.
pub(crate) fn frame_transform(
    t: Timestamp,
    parent: &str,
    child: &str,
    translation: [f64; 3],
    rotation: [f64; 4],
) -> Json {
    json!({
        "timestamp": time(t),
        "parent_frame_id": parent,
        "child_frame_id": child,
        "translation": vector3(translation),
        "rotation": quaternion(rotation),
    })
}

/// `foxglove.PoseInFrame`.
pub(crate) fn pose_in_frame(
    t: Timestamp,
    frame_id: &str,
    position: [f64; 3],
    orientation: [f64; 4],
) -> Json {
    json!({
        "timestamp": time(t),
        "frame_id": frame_id,
        "pose": pose(position, orientation),
    })
}

/// `foxglove.LocationFix` (degrees, metres; covariance in m², East-North-Up, row-major).
pub(crate) fn location_fix(
    t: Timestamp,
    frame_id: &str,
    [latitude, longitude, altitude]: [f64; 3],
    covariance: [f64; 9],
    covariance_type: u8,
) -> Json {
    json!({
        "timestamp": time(t),
        "frame_id": frame_id,
        "latitude": latitude,
        "longitude": longitude,
        "altitude": altitude,
        "position_covariance": covariance,
        "position_covariance_type": covariance_type,
    })
}

/// `foxglove.Log`.
pub(crate) fn log(t: Timestamp, level: u8, message: &str, name: &str) -> Json {
    json!({
        "timestamp": time(t),
        "level": level,
        "message": message,
        "name": name,
        "file": "",
        "line": 0,
    })
}

/// `foxglove.CompressedImage` (`format`: `jpeg`, `png`, ...).
pub(crate) fn compressed_image(t: Timestamp, frame_id: &str, data: &[u8], format: &str) -> Json {
    json!({
        "timestamp": time(t),
        "frame_id": frame_id,
        "data": base64(data),
        "format": format,
    })
}

/// `foxglove.LaserScan` in the plane z = 0 of `frame_id`.
pub(crate) fn laser_scan(
    t: Timestamp,
    frame_id: &str,
    (start_angle, end_angle): (f64, f64),
    ranges: &[f64],
    intensities: &[f64],
) -> Json {
    json!({
        "timestamp": time(t),
        "frame_id": frame_id,
        "pose": identity_pose(),
        "start_angle": start_angle,
        "end_angle": end_angle,
        "ranges": ranges,
        "intensities": intensities,
    })
}

/// One `foxglove.PackedElementField`.
pub(crate) fn packed_field(name: &str, offset: u32, numeric_type: u8) -> Json {
    json!({"name": name, "offset": offset, "type": numeric_type})
}

/// `foxglove.PointCloud` of packed points `data` (`stride` bytes each).
pub(crate) fn point_cloud(
    t: Timestamp,
    frame_id: &str,
    stride: u32,
    fields: Vec<Json>,
    data: &[u8],
) -> Json {
    json!({
        "timestamp": time(t),
        "frame_id": frame_id,
        "pose": identity_pose(),
        "point_stride": stride,
        "fields": fields,
        "data": base64(data),
    })
}

/// One `foxglove.SceneEntity` holding one cube.
pub(crate) struct Cube<'a> {
    pub(crate) id: String,
    pub(crate) frame_id: &'a str,
    pub(crate) position: [f64; 3],
    pub(crate) orientation: [f64; 4],
    pub(crate) size: [f64; 3],
    pub(crate) color: [f64; 4],
    pub(crate) metadata: Vec<(&'static str, String)>,
}

/// `foxglove.SceneEntity` of `cube`, replacing the entity of the same id
/// (lifetime 0: until replaced or deleted). [`EntityTail`] writes the same
/// text without building the value.
#[cfg(test)]
pub(crate) fn cube_entity(t: Timestamp, cube: &Cube<'_>) -> Json {
    let metadata: Vec<Json> = cube
        .metadata
        .iter()
        .map(|(k, v)| json!({"key": k, "value": v}))
        .collect();
    json!({
        "timestamp": time(t),
        "frame_id": cube.frame_id,
        "id": cube.id,
        "lifetime": {"sec": 0, "nsec": 0},
        "frame_locked": false,
        "metadata": metadata,
        "arrows": [],
        "cubes": [{
            "pose": pose(cube.position, cube.orientation),
            "size": vector3(cube.size),
            "color": color(cube.color),
        }],
        "spheres": [],
        "cylinders": [],
        "lines": [],
        "triangles": [],
        "texts": [],
        "models": [],
    })
}

/// `foxglove.SceneEntityDeletion` of the entity `id` (type MATCHING_ID).
#[cfg(test)]
pub(crate) fn deletion(t: Timestamp, id: &str) -> Json {
    json!({"timestamp": time(t), "type": 0, "id": id})
}

/// `foxglove.SceneUpdate`.
#[cfg(test)]
pub(crate) fn scene_update(deletions: Vec<Json>, entities: Vec<Json>) -> Json {
    let mut m = Map::new();
    m.insert("deletions".into(), Json::Array(deletions));
    m.insert("entities".into(), Json::Array(entities));
    Json::Object(m)
}

// Typed forms of the builders above, for messages written many times
// over (a recording's scene, frame after frame): they serialize to the
// same text as the values the builders make (fields in the same order,
// numbers printed alike, a non-finite float as `null`) without building
// a value first.

/// [`time`]'s `{sec, nsec}`, typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct Time {
    sec: i64,
    nsec: i64,
}

impl Time {
    /// The time `t` (clamped to 0, as [`time`] does).
    pub(crate) fn of(t: Timestamp) -> Time {
        let ns = t.as_nanos().max(0);
        Time {
            sec: ns / 1_000_000_000,
            nsec: ns % 1_000_000_000,
        }
    }
}

/// [`vector3`], typed.
#[derive(Serialize)]
struct Vector3 {
    x: f64,
    y: f64,
    z: f64,
}

impl From<[f64; 3]> for Vector3 {
    fn from([x, y, z]: [f64; 3]) -> Self {
        Vector3 { x, y, z }
    }
}

/// [`quaternion`], typed.
#[derive(Serialize)]
struct Quaternion {
    x: f64,
    y: f64,
    z: f64,
    w: f64,
}

impl From<[f64; 4]> for Quaternion {
    fn from([x, y, z, w]: [f64; 4]) -> Self {
        Quaternion { x, y, z, w }
    }
}

/// [`pose`], typed.
#[derive(Serialize)]
struct Pose {
    position: Vector3,
    orientation: Quaternion,
}

/// [`color`], typed.
#[derive(Serialize)]
struct Color {
    r: f64,
    g: f64,
    b: f64,
    a: f64,
}

/// An empty array.
struct NoItems;

impl Serialize for NoItems {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_seq(Some(0))?.end()
    }
}

/// [`frame_transform`]'s fields after its timestamp, typed.
#[derive(Serialize)]
pub(crate) struct TransformTail<'a> {
    parent_frame_id: &'a str,
    child_frame_id: &'a str,
    translation: Vector3,
    rotation: Quaternion,
}

impl<'a> TransformTail<'a> {
    /// The transform from `parent` to `child`.
    pub(crate) fn new(
        parent: &'a str,
        child: &'a str,
        translation: [f64; 3],
        rotation: [f64; 4],
    ) -> Self {
        TransformTail {
            parent_frame_id: parent,
            child_frame_id: child,
            translation: translation.into(),
            rotation: rotation.into(),
        }
    }
}

/// [`deletion`], typed.
#[derive(Serialize)]
pub(crate) struct Deletion<'a> {
    timestamp: Time,
    #[serde(rename = "type")]
    kind: u8,
    id: &'a str,
}

impl<'a> Deletion<'a> {
    /// The deletion of entity `id` at `t`.
    pub(crate) fn of(t: Timestamp, id: &'a str) -> Self {
        Deletion {
            timestamp: Time::of(t),
            kind: 0,
            id,
        }
    }
}

#[derive(Serialize)]
struct KeyValue<'a> {
    key: &'a str,
    value: &'a str,
}

#[derive(Serialize)]
struct CubePrimitive {
    pose: Pose,
    size: Vector3,
    color: Color,
}

/// [`cube_entity`]'s fields after its timestamp, typed.
#[derive(Serialize)]
pub(crate) struct EntityTail<'a> {
    frame_id: &'a str,
    id: &'a str,
    lifetime: Time,
    frame_locked: bool,
    metadata: Vec<KeyValue<'a>>,
    arrows: NoItems,
    cubes: [CubePrimitive; 1],
    spheres: NoItems,
    cylinders: NoItems,
    lines: NoItems,
    triangles: NoItems,
    texts: NoItems,
    models: NoItems,
}

impl<'a> EntityTail<'a> {
    /// The entity of `cube`.
    pub(crate) fn of(cube: &'a Cube<'a>) -> Self {
        let [r, g, b, a] = cube.color;
        EntityTail {
            frame_id: cube.frame_id,
            id: &cube.id,
            lifetime: Time { sec: 0, nsec: 0 },
            frame_locked: false,
            metadata: cube
                .metadata
                .iter()
                .map(|(key, value)| KeyValue { key, value })
                .collect(),
            arrows: NoItems,
            cubes: [CubePrimitive {
                pose: Pose {
                    position: cube.position.into(),
                    orientation: cube.orientation.into(),
                },
                size: cube.size.into(),
                color: Color { r, g, b, a },
            }],
            spheres: NoItems,
            cylinders: NoItems,
            lines: NoItems,
            triangles: NoItems,
            texts: NoItems,
            models: NoItems,
        }
    }
}

/// Whether every number is finite (Foxglove's schemas take only numbers,
/// and JSON has no NaN: a message that would need one is not written).
pub(crate) fn all_finite(values: &[f64]) -> bool {
    values.iter().all(|v| v.is_finite())
}

/// Standard base64 with padding (RFC 4648 §4), as JSON's `contentEncoding:
/// base64` fields take.
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Hamilton product `a ⊗ b` of quaternions given as `[x, y, z, w]`.
pub(crate) fn quat_mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// The quaternion `[x, y, z, w]` of intrinsic Z-Y-X Euler angles (yaw about
/// z, then pitch about the new y, then roll about the new x), radians.
pub(crate) fn quat_from_euler(roll: f64, pitch: f64, yaw: f64) -> [f64; 4] {
    let (sr, cr) = (roll / 2.0).sin_cos();
    let (sp, cp) = (pitch / 2.0).sin_cos();
    let (sy, cy) = (yaw / 2.0).sin_cos();
    [
        sr * cp * cy - cr * sp * sy,
        cr * sp * cy + sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
        cr * cp * cy + sr * sp * sy,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, encoded) in cases {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
        assert_eq!(base64(&[0xff, 0xfe, 0xfd]), "//79");
    }

    #[test]
    fn every_vendored_schema_is_json_named_as_its_constant() {
        for s in ALL {
            let v: Json = serde_json::from_str(s.text).unwrap();
            assert_eq!(v["title"], s.name);
            assert_eq!(v["type"], "object");
        }
    }

    /// The text of `tail` after `{"timestamp":TIME,` and the JSON of `value`.
    fn joined(t: Timestamp, tail: &impl Serialize) -> String {
        let tail = serde_json::to_string(tail).unwrap();
        let stamp = serde_json::to_string(&Time::of(t)).unwrap();
        format!("{{\"timestamp\":{stamp},{}", &tail[1..])
    }

    #[test]
    fn typed_forms_write_the_builders_text() {
        let odd = [
            -0.0,
            1e-7,
            f64::NAN,
            1.0 / 3.0,
            123456789.125,
            f64::INFINITY,
        ];
        for t in [0, 1_500_000_001, -5, i64::MAX] {
            let t = Timestamp::from_nanos(t);
            assert_eq!(
                serde_json::to_string(&Time::of(t)).unwrap(),
                time(t).to_string()
            );
            for (i, &x) in odd.iter().enumerate() {
                let pos = [x, -x, 0.5 * i as f64];
                let q = [0.0, x, -0.0, 1.0];
                assert_eq!(
                    joined(t, &TransformTail::new("map", "actor_7", pos, q)),
                    frame_transform(t, "map", "actor_7", pos, q).to_string()
                );
                let cube = Cube {
                    id: "7".into(),
                    frame_id: "map",
                    position: pos,
                    orientation: q,
                    size: [x, 2.0, 0.25],
                    color: [0.2, 0.45, x, 0.7],
                    metadata: vec![
                        ("kind", "vehicle".into()),
                        ("description", "a \"b\"".into()),
                    ],
                };
                assert_eq!(
                    joined(t, &EntityTail::of(&cube)),
                    cube_entity(t, &cube).to_string()
                );
            }
            assert_eq!(
                serde_json::to_string(&Deletion::of(t, "12")).unwrap(),
                deletion(t, "12").to_string()
            );
        }
    }

    #[test]
    fn time_splits_seconds_and_nanoseconds() {
        let t = Timestamp::from_nanos(1_500_000_001);
        assert_eq!(time(t), json!({"sec": 1, "nsec": 500_000_001}));
        assert_eq!(
            time(Timestamp::from_nanos(-5)),
            json!({"sec": 0, "nsec": 0})
        );
    }

    #[test]
    fn quaternions_compose_and_come_from_euler_angles() {
        let yaw90 = quat_from_euler(0.0, 0.0, std::f64::consts::FRAC_PI_2);
        let h = std::f64::consts::FRAC_1_SQRT_2;
        for (a, b) in yaw90.iter().zip([0.0, 0.0, h, h]) {
            assert!((a - b).abs() < 1e-12);
        }
        let yaw180 = quat_mul(yaw90, yaw90);
        for (a, b) in yaw180.iter().zip([0.0, 0.0, 1.0, 0.0]) {
            assert!((a - b).abs() < 1e-12);
        }
    }
}
