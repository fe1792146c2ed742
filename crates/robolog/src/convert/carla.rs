//! CARLA recordings to MCAP (profile `carla`), so a recording plays in
//! Foxglove's 3D panel without a CARLA server.
//!
//! - Every packet kind as a `json` channel named as `robolog info` names it
//!   (`Position`, `EventAdd`, `State` (traffic lights), `Collision`,
//!   `EventDel`, ...), one message per packet, with a JSON Schema generated
//!   from the record types of the `carla-recorder` crate: the raw data,
//!   positions in CARLA's own frame and units.
//! - `scene`: per frame one `foxglove.SceneUpdate` with a cube for every
//!   actor that has a Position in the frame (vehicles blue, walkers orange,
//!   traffic lights in their current light's colour, signs white, others
//!   grey; sensors and the spectator left out), sized and centred by its
//!   BoundingBox record where the recording has one, and a deletion for
//!   every removed actor.
//! - `tf`: per frame one `foxglove.FrameTransforms` from `map` to
//!   `actor_<id>` for every actor with a Position.
//! - Metadata records `carla.header` (map, date, version, layout) and
//!   `carla.time` (clock `recording_start`: log time is the frame's elapsed
//!   time; the header date is the UTC anchor of time 0).
//!
//! Coordinates: CARLA (Unreal) is left-handed, x forward, y right, z up,
//! in centimetres, with rotations (roll, pitch, yaw) in degrees where
//! positive pitch raises the nose and positive yaw turns right. Foxglove is
//! right-handed, x forward, y left, z up, in metres. The `scene` and `tf`
//! topics therefore use `(x, -y, z) / 100` and the rotation of roll `roll`,
//! pitch `-pitch`, yaw `-yaw` (radians; mirroring y turns a rotation about
//! x or z into its opposite, and Unreal's roll and pitch already turn
//! opposite to the right-hand rule about their axes, so roll keeps its sign
//! and pitch and yaw change it), the convention of CARLA's ROS bridge.
//!
//! Memory: the actors alive at the current frame and one frame's packets.
//!
//! Speed: most actors of a recording rest (props, signs, lights, parked
//! cars), and the `scene`, `tf` and `Position` messages of a frame differ
//! from the last frame's only in their timestamps and in what moved. The
//! JSON text of each actor's entity, transform and Position record is kept
//! and reused while its pose stays bit for bit the same, so only moving
//! actors' floats are formatted; the bytes are those of building the
//! values afresh (tests compare both).

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use carla_recorder::{
    ActorType, BoundingBox, Layout, Packet, PacketId, Position, Recording, Vec3, VectorWidth,
    packet_name, packet_value,
};

use logcore::{Error, LogReader, MessageFilter, ReadMode, Timestamp};

use super::Context;
use super::foxglove::{self, Cube};
use super::jsonschema::{ChannelSpec, Field, JsonOut, JsonValue, Type, metadata, schema_text};
use crate::Log;

const SCENE_TOPIC: &str = "scene";
const TF_TOPIC: &str = "tf";
const WORLD: &str = "map";

/// A CARLA location (cm, left-handed) in Foxglove's frame (m, right-handed).
pub(crate) fn position(v: Vec3) -> [f64; 3] {
    [v.x / 100.0, -v.y / 100.0, v.z / 100.0]
}

/// A CARLA rotation (roll, pitch, yaw in degrees, left-handed) as a
/// quaternion `[x, y, z, w]` in Foxglove's frame.
pub(crate) fn orientation(r: Vec3) -> [f64; 4] {
    foxglove::quat_from_euler(r.x.to_radians(), -r.y.to_radians(), -r.z.to_radians())
}

/// `v` rotated by the unit quaternion `q` (`[x, y, z, w]`).
fn rotate(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    let p = foxglove::quat_mul(
        foxglove::quat_mul(q, [v[0], v[1], v[2], 0.0]),
        [-q[0], -q[1], -q[2], q[3]],
    );
    [p[0], p[1], p[2]]
}

fn vec3_type() -> Type {
    Type::object(["x", "y", "z"].map(|n| Field::new(n, Type::Float)))
}

fn records(item: Vec<Field>) -> Type {
    Type::object([Field::new("records", Type::list(Type::Object(item)))])
}

fn id_field() -> Field {
    Field::new("id", Type::UInt)
}

fn floats(names: &[&str]) -> Vec<Field> {
    names.iter().map(|n| Field::new(*n, Type::Float)).collect()
}

/// The JSON type of a packet as `carla_recorder::packet_value` gives it,
/// from the crate's record types.
pub(crate) fn packet_type(p: &Packet<'_>) -> Type {
    let with_id = |rest: Vec<Field>| {
        let mut f = vec![id_field()];
        f.extend(rest);
        records(f)
    };
    let bbox = || {
        with_id(vec![
            Field::new("origin", vec3_type()),
            Field::new("extent", vec3_type()),
        ])
    };
    match p {
        Packet::FrameStart(_) => Type::object([
            Field::new("frame", Type::UInt),
            Field::new("duration", Type::Float),
            Field::new("elapsed", Type::Float),
        ]),
        Packet::FrameEnd => Type::object([]),
        Packet::EventAdd(_) => with_id(vec![
            Field::new("type", Type::UInt),
            Field::new("type_name", Type::Str),
            Field::new("location", vec3_type()),
            Field::new("rotation", vec3_type()),
            Field::new("uid", Type::UInt),
            Field::new("description", Type::Str),
            Field::new(
                "attributes",
                Type::list(Type::object([
                    Field::new("type", Type::UInt),
                    Field::optional("type_name", Type::Str),
                    Field::new("id", Type::Str),
                    Field::new("value", Type::Str),
                ])),
            ),
        ]),
        Packet::EventDel(_) => with_id(vec![]),
        Packet::EventParent(_) => with_id(vec![Field::new("parent", Type::UInt)]),
        Packet::Collision(_) => with_id(vec![
            Field::new("actor1", Type::UInt),
            Field::new("actor2", Type::UInt),
            Field::new("is_hero1", Type::Bool),
            Field::new("is_hero2", Type::Bool),
        ]),
        Packet::Position(_) => with_id(vec![
            Field::new("location", vec3_type()),
            Field::new("rotation", vec3_type()),
        ]),
        Packet::State(_) => with_id(vec![
            Field::new("frozen", Type::Bool),
            Field::new("elapsed", Type::Float),
            Field::new("state", Type::UInt),
        ]),
        Packet::AnimVehicle(_) => {
            let mut f = floats(&["steering", "throttle", "brake"]);
            f.push(Field::new("handbrake", Type::Bool));
            f.push(Field::new("gear", Type::Int));
            with_id(f)
        }
        Packet::AnimWalker(_) => with_id(floats(&["speed"])),
        Packet::VehicleLight(_) => with_id(vec![
            Field::new("state", Type::UInt),
            Field::new("lights", Type::list(Type::Str)),
        ]),
        Packet::SceneLight(_) => records(vec![
            Field::new("id", Type::Int),
            Field::new("intensity", Type::Float),
            Field::new("color", Type::fixed(Type::Float, 4)),
            Field::new("on", Type::Bool),
            Field::new("group", Type::UInt),
        ]),
        Packet::Kinematics(_) => with_id(vec![
            Field::new("linear_velocity", vec3_type()),
            Field::new("angular_velocity", vec3_type()),
        ]),
        Packet::BoundingBox(_) | Packet::TriggerVolume(_) => bbox(),
        Packet::PlatformTime(_) => Type::object([Field::new("platform_time", Type::Float)]),
        Packet::PhysicsControl(_) => {
            let point = || {
                Type::list(Type::object([
                    Field::new("x", Type::Float),
                    Field::new("y", Type::Float),
                ]))
            };
            let mut f = floats(&[
                "max_rpm",
                "moi",
                "damping_rate_full_throttle",
                "damping_rate_zero_throttle_clutch_engaged",
                "damping_rate_zero_throttle_clutch_disengaged",
            ]);
            f.push(Field::new("use_gear_autobox", Type::Bool));
            f.extend(floats(&[
                "clutch_strength",
                "final_ratio",
                "mass",
                "drag_coefficient",
            ]));
            f.push(Field::new("center_of_mass", Type::list(Type::Float)));
            f.push(Field::new("torque_curve", point()));
            f.push(Field::new(
                "forward_gears",
                Type::list(Type::Object(floats(&["ratio", "down_ratio", "up_ratio"]))),
            ));
            f.push(Field::new("steering_curve", point()));
            let mut wheel = floats(&[
                "tire_friction",
                "damping_rate",
                "max_steer_angle",
                "radius",
                "max_brake_torque",
                "max_handbrake_torque",
            ]);
            for n in ["lat_stiff_max_load", "lat_stiff_value", "long_stiff_value"] {
                wheel.push(Field::optional(n, Type::Float));
            }
            wheel.push(Field::new("position", Type::list(Type::Float)));
            f.push(Field::new("wheels", Type::list(Type::Object(wheel))));
            with_id(f)
        }
        Packet::TrafficLightTime(_) => with_id(floats(&["green", "yellow", "red"])),
        Packet::FrameCounter(_) => Type::object([Field::new("frame_counter", Type::UInt)]),
        Packet::WalkerBones(_) => with_id(vec![Field::new(
            "bones",
            Type::list(Type::object([
                Field::new("name", Type::Str),
                Field::new("location", vec3_type()),
                Field::new("rotation", vec3_type()),
            ])),
        )]),
        Packet::VisualTime(_) => Type::object([Field::new("visual_time", Type::Float)]),
        Packet::VehicleDoor(_) => with_id(vec![
            Field::new("door", Type::UInt),
            Field::new("open", Type::Bool),
        ]),
        Packet::AnimVehicleWheels(_) => with_id(vec![Field::new(
            "wheels",
            Type::list(Type::object([
                Field::new("location", Type::UInt),
                Field::new("steering_angle", Type::Float),
                Field::new("rotation_angle", Type::Float),
            ])),
        )]),
        Packet::AnimBiker(_) => with_id(floats(&["forward_speed", "engine_rotation"])),
        Packet::Raw { .. } => Type::object([
            Field::new("id", Type::UInt),
            Field::new("payload", Type::Bytes),
        ]),
    }
}

/// An actor alive in the recording.
struct Actor {
    kind: ActorType,
    description: String,
    /// Box centre (cm, actor frame, CARLA axes) and half size (cm).
    bbox: Option<(Vec3, Vec3)>,
    /// The traffic light's state (0 red, 1 yellow, 2 green, 3 off).
    light: Option<u8>,
    /// Its scene entity after the timestamp, for the pose it was made at
    /// (see [`Piece`]); cleared when the box or the light changes.
    entity: Option<Piece>,
}

impl Actor {
    /// The actor's box as a Foxglove cube, for the actor `id` at `pos`
    /// turned by `q` (right-handed metres): the box centre is offset from
    /// the actor's origin in the actor's frame.
    fn cube(&self, id: impl std::fmt::Display, pos: [f64; 3], q: [f64; 4]) -> Cube<'static> {
        let (origin, extent) = self
            .bbox
            .unwrap_or((Vec3::default(), self.default_extent()));
        let offset = rotate(q, position(origin));
        Cube {
            id: id.to_string(),
            frame_id: WORLD,
            position: [pos[0] + offset[0], pos[1] + offset[1], pos[2] + offset[2]],
            orientation: q,
            size: [extent.x / 50.0, extent.y / 50.0, extent.z / 50.0],
            color: self.color(),
            metadata: vec![
                ("kind", self.kind.name().to_string()),
                ("description", self.description.clone()),
            ],
        }
    }

    fn shown(&self) -> bool {
        self.kind != ActorType::Sensor && !self.description.starts_with("spectator")
    }

    fn color(&self) -> [f64; 4] {
        match (self.kind, self.light) {
            (ActorType::Vehicle, _) => [0.2, 0.45, 1.0, 0.7],
            (ActorType::Walker, _) => [1.0, 0.6, 0.1, 0.9],
            (ActorType::TrafficLight, Some(0)) => [1.0, 0.1, 0.1, 0.9],
            (ActorType::TrafficLight, Some(1)) => [1.0, 0.85, 0.1, 0.9],
            (ActorType::TrafficLight, Some(2)) => [0.1, 0.9, 0.2, 0.9],
            (ActorType::TrafficLight, _) => [0.3, 0.3, 0.3, 0.9],
            (ActorType::TrafficSign, _) => [0.95, 0.95, 0.95, 0.9],
            _ => [0.6, 0.6, 0.6, 0.5],
        }
    }

    /// Half size (cm) when the recording has no box for it.
    fn default_extent(&self) -> Vec3 {
        match self.kind {
            ActorType::Vehicle => Vec3::new(230.0, 100.0, 75.0),
            ActorType::Walker => Vec3::new(25.0, 25.0, 90.0),
            _ => Vec3::new(25.0, 25.0, 25.0),
        }
    }
}

/// One frame's scene: the positions, boxes, states and deletions seen.
#[derive(Default)]
struct FrameScene {
    time: Timestamp,
    positions: Vec<(u32, Vec3, Vec3)>,
    deleted: Vec<u32>,
}

struct Scene {
    actors: BTreeMap<u32, Actor>,
    frame: Option<FrameScene>,
    /// The transform of every actor that had a position, for its last pose.
    transforms: HashMap<u32, Piece>,
}

impl Scene {
    fn take(&mut self, p: &Packet<'_>) {
        let Some(f) = self.frame.as_mut() else {
            return;
        };
        match p {
            Packet::EventAdd(v) => {
                for a in v {
                    self.actors.insert(
                        a.id,
                        Actor {
                            kind: a.actor_type(),
                            description: a.description().into_owned(),
                            bbox: None,
                            light: None,
                            entity: None,
                        },
                    );
                }
            }
            Packet::EventDel(v) => f.deleted.extend(v.iter().map(|d| d.id)),
            Packet::Position(v) => {
                f.positions
                    .extend(v.iter().map(|p| (p.id, p.location, p.rotation)));
            }
            Packet::BoundingBox(v) => {
                for BoundingBox { id, origin, extent } in v {
                    if let Some(a) = self.actors.get_mut(id) {
                        let same = a
                            .bbox
                            .is_some_and(|(o, e)| same_vec(o, *origin) && same_vec(e, *extent));
                        if !same {
                            a.bbox = Some((*origin, *extent));
                            a.entity = None;
                        }
                    }
                }
            }
            Packet::State(v) => {
                for s in v {
                    if let Some(a) = self.actors.get_mut(&s.id) {
                        if a.light != Some(s.state) {
                            a.light = Some(s.state);
                            a.entity = None;
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// The frame's `SceneUpdate` and `FrameTransforms` as JSON text, into
    /// `scene` and `tf`; forgets deleted actors. The same text as
    /// [`foxglove::cube_entity`], [`foxglove::frame_transform`] and the
    /// other builders give, made from the pieces each actor keeps while it
    /// does not move (see [`Piece`]).
    fn finish(
        &mut self,
        scene: &mut Vec<u8>,
        tf: &mut Vec<u8>,
    ) -> Result<Option<Timestamp>, Error> {
        let Some(f) = self.frame.take() else {
            return Ok(None);
        };
        let t = f.time;
        let mut stamp = Vec::with_capacity(48);
        stamp.extend_from_slice(b"{\"timestamp\":");
        to_json(&mut stamp, &foxglove::Time::of(t))?;
        stamp.push(b',');
        scene.clear();
        tf.clear();
        scene.extend_from_slice(b"{\"deletions\":[");
        for (i, id) in f.deleted.iter().enumerate() {
            if i > 0 {
                scene.push(b',');
            }
            to_json(scene, &foxglove::Deletion::of(t, &id.to_string()))?;
        }
        scene.extend_from_slice(b"],\"entities\":[");
        tf.extend_from_slice(b"{\"transforms\":[");
        let mut entities = 0usize;
        for (i, &(id, location, rotation)) in f.positions.iter().enumerate() {
            let mut pose = None;
            let mut pose_of =
                || *pose.get_or_insert_with(|| (position(location), orientation(rotation)));
            let piece = match self.transforms.get(&id) {
                Some(p) if p.fits(location, rotation) => p,
                _ => {
                    let (pos, q) = pose_of();
                    let child = format!("actor_{id}");
                    let tail = foxglove::TransformTail::new(WORLD, &child, pos, q);
                    let p = Piece::new(location, rotation, &tail)?;
                    self.transforms.entry(id).insert_entry(p).into_mut()
                }
            };
            if i > 0 {
                tf.push(b',');
            }
            tf.extend_from_slice(&stamp);
            tf.extend_from_slice(&piece.tail);
            let Some(actor) = self.actors.get_mut(&id) else {
                continue;
            };
            if !actor.shown() {
                continue;
            }
            if !actor
                .entity
                .as_ref()
                .is_some_and(|p| p.fits(location, rotation))
            {
                let (pos, q) = pose_of();
                let cube = actor.cube(id, pos, q);
                let tail = foxglove::EntityTail::of(&cube);
                actor.entity = Some(Piece::new(location, rotation, &tail)?);
            }
            if let Some(piece) = &actor.entity {
                if entities > 0 {
                    scene.push(b',');
                }
                entities += 1;
                scene.extend_from_slice(&stamp);
                scene.extend_from_slice(&piece.tail);
            }
        }
        scene.extend_from_slice(b"]}");
        tf.extend_from_slice(b"]}");
        // An actor removed in this frame is still shown in it.
        for id in &f.deleted {
            self.actors.remove(id);
            self.transforms.remove(id);
        }
        Ok(Some(t))
    }
}

/// Whether `a` and `b` are the same bits (so they print the same: `0.0`
/// and `-0.0` differ).
fn same_vec(a: Vec3, b: Vec3) -> bool {
    [a.x, a.y, a.z]
        .iter()
        .zip([b.x, b.y, b.z])
        .all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Appends the JSON text of `v`.
fn to_json(out: &mut Vec<u8>, v: &impl serde::Serialize) -> Result<(), Error> {
    serde_json::to_writer(&mut *out, v)
        .map_err(|e| Error::InvalidArgument(format!("cannot write a JSON message: {e}")))
}

/// What follows the timestamp in an actor's scene entity or transform,
/// for the pose (location and rotation as recorded) it was made at.
///
/// Most actors of a recording (props, signs, lights, parked cars) stay
/// where they are from frame to frame, and their messages differ only in
/// the timestamp: the text after it is kept and reused while the pose (and
/// for an entity, the box and the light) stays bit for bit the same, so
/// the floats of a resting actor are formatted once, not once per frame.
struct Piece {
    location: Vec3,
    rotation: Vec3,
    /// The object's text after `{"timestamp":{..},` (to its closing `}`).
    tail: Vec<u8>,
}

impl Piece {
    /// The piece of an object whose fields after the timestamp are `tail`'s.
    fn new(location: Vec3, rotation: Vec3, tail: &impl serde::Serialize) -> Result<Piece, Error> {
        let mut text = Vec::with_capacity(512);
        to_json(&mut text, tail)?;
        // `{"frame_id":..}` without its opening brace follows the stamp.
        text.remove(0);
        Ok(Piece {
            location,
            rotation,
            tail: text,
        })
    }

    fn fits(&self, location: Vec3, rotation: Vec3) -> bool {
        same_vec(self.location, location) && same_vec(self.rotation, rotation)
    }
}

fn header_metadata(rec: &Recording<'_>) -> BTreeMap<String, String> {
    let h = rec.header();
    let l: Layout = rec.layout();
    metadata([
        ("map", h.map_name().into_owned()),
        ("date", h.date.to_string()),
        ("version", h.version.to_string()),
        (
            "vector_width",
            match l.vectors {
                VectorWidth::F32 => "f32".to_string(),
                VectorWidth::F64 => "f64".to_string(),
            },
        ),
        ("wheel_record_bytes", l.wheels.len().to_string()),
        ("attribute_coding", format!("{:?}", l.attributes)),
        (
            "frame",
            "scene and tf: right-handed, x forward, y left, z up, metres (CARLA's y negated, \
             cm / 100; pitch and yaw negated)"
                .to_string(),
        ),
    ])
}

/// The text buffers of a frame's `scene` and `tf` messages, kept from frame
/// to frame.
#[derive(Default)]
struct SceneText {
    scene: Vec<u8>,
    tf: Vec<u8>,
    /// A `Position` packet's message.
    positions: Vec<u8>,
}

/// The JSON text of each actor's last Position record, reused while the
/// record stays bit for bit the same: a `Position` packet's message is
/// the text of [`packet_value`] (through [`JsonValue`]) without formatting
/// the floats of every resting actor again in every frame.
#[derive(Default)]
struct PositionTexts {
    last: HashMap<u32, (Position, Vec<u8>)>,
}

impl PositionTexts {
    /// The message of the Position packet of `records`, into `out`.
    fn text(
        &mut self,
        records: &[Position],
        layout: &Layout,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        out.clear();
        out.extend_from_slice(b"{\"records\":[");
        for (i, p) in records.iter().enumerate() {
            let fits = |(q, _): &&(Position, Vec<u8>)| {
                same_vec(q.location, p.location) && same_vec(q.rotation, p.rotation)
            };
            let piece = match self.last.get(&p.id).filter(fits) {
                Some((_, piece)) => piece,
                None => {
                    // The packet of this record alone, `{"records":[RECORD]}`.
                    let one = packet_value(&Packet::Position(vec![*p]), layout);
                    let mut whole = Vec::with_capacity(128);
                    to_json(&mut whole, &JsonValue(&one))?;
                    let record = whole
                        .strip_prefix(b"{\"records\":[")
                        .and_then(|r| r.strip_suffix(b"]}"))
                        .ok_or_else(|| {
                            Error::InvalidArgument(
                                "a Position packet's value is not {\"records\": [..]}".into(),
                            )
                        })?
                        .to_vec();
                    &self
                        .last
                        .entry(p.id)
                        .insert_entry((*p, record))
                        .into_mut()
                        .1
                }
            };
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(piece);
        }
        out.extend_from_slice(b"]}");
        Ok(())
    }
}

fn write_scene<W: Write>(
    out: &mut JsonOut<W>,
    cx: &mut Context<'_>,
    scene: &mut Scene,
    text: &mut SceneText,
) -> Result<(), Error> {
    let Some(t) = scene.finish(&mut text.scene, &mut text.tf)? else {
        return Ok(());
    };
    if cx.keep(SCENE_TOPIC, t) {
        out.ensure(cx, SCENE_TOPIC, || {
            ChannelSpec::well_known(foxglove::SCENE_UPDATE)
        })?;
        out.write_text(cx, SCENE_TOPIC, t, &text.scene)?;
    }
    if cx.keep(TF_TOPIC, t) {
        out.ensure(cx, TF_TOPIC, || {
            ChannelSpec::well_known(foxglove::FRAME_TRANSFORMS)
        })?;
        out.write_text(cx, TF_TOPIC, t, &text.tf)?;
    }
    Ok(())
}

/// Converts the CARLA `log` into MCAP written to `out`.
/// The topics [`convert`] writes for `log` when their messages pass the
/// time filter: one per packet kind (the log's topics), `scene` and `tf`.
pub(crate) fn topics(log: &Log<'_>) -> Result<std::collections::BTreeSet<String>, Error> {
    let mut topics: std::collections::BTreeSet<String> =
        log.channels()?.into_iter().map(|c| c.topic).collect();
    topics.extend([SCENE_TOPIC.to_string(), TF_TOPIC.to_string()]);
    Ok(topics)
}

pub(crate) fn convert<W: Write>(log: &Log<'_>, out: W, cx: &mut Context<'_>) -> Result<W, Error> {
    let Some(rec) = log.as_carla() else {
        return Err(super::not_yet(log.format()));
    };
    let layout = rec.layout();
    let mut out = JsonOut::new(out, cx, "carla")?;
    out.metadata("carla.header", &header_metadata(rec))?;
    let mut time = metadata([
        ("clock", "recording_start"),
        (
            "description",
            "log and publish times are the frame's elapsed seconds since the recording started",
        ),
    ]);
    time.insert(
        "anchor_unix_time_ns".into(),
        (i128::from(rec.header().date) * 1_000_000_000).to_string(),
    );
    time.insert("anchor_log_time_ns".into(), "0".into());
    time.insert("anchor_source".into(), "info header date".into());
    out.metadata("carla.time", &time)?;

    // Actors added before a time filter's start still need their kind and
    // box: every frame is read, and only what passes is written.
    let filter = MessageFilter::all().mode(ReadMode::Lenient);
    let mut scene = Scene {
        actors: BTreeMap::new(),
        frame: None,
        transforms: HashMap::new(),
    };
    let mut buffers = SceneText::default();
    let mut positions = PositionTexts::default();
    let mut first_kind = HashMap::new();
    let mut lanes = HashMap::new();
    let mut n = 0u64;
    for item in log.messages(&filter)? {
        let Some(msg) = cx.passed(item) else {
            continue;
        };
        let id = u8::try_from(msg.channel.0).unwrap_or(u8::MAX);
        let offset = msg.offset.unwrap_or(0);
        if id == PacketId::FrameStart as u8 {
            write_scene(&mut out, cx, &mut scene, &mut buffers)?;
            scene.frame = Some(FrameScene {
                time: msg.log_time,
                ..FrameScene::default()
            });
        }
        let Some(packet) = cx.passed(Packet::decode(id, &msg.payload, offset, &layout)) else {
            continue;
        };
        scene.take(&packet);
        let name = packet_name(id);
        if cx.keep(&name, msg.log_time) {
            // One channel per packet id, typed by the first packet's kind;
            // a packet kept raw where its id usually decodes (a fork's id
            // 18, say) goes beside the decoded ones.
            let kind = matches!(packet, Packet::Raw { .. });
            let first = *first_kind.entry(id).or_insert(kind);
            let lane = lanes.entry((id, kind)).or_insert_with(|| {
                let topic = if first == kind {
                    name.to_string()
                } else {
                    format!("{name}.raw")
                };
                let schema_name = format!("carla.{topic}");
                let text = schema_text(&schema_name, &packet_type(&packet));
                (topic, schema_name, text)
            });
            let (topic, schema_name, text) = (&lane.0, &lane.1, &lane.2);
            out.ensure(cx, topic, || ChannelSpec {
                schema_name,
                schema_text: text,
                metadata: metadata([("packet_id", id.to_string())]),
            })?;
            if let Packet::Position(records) = &packet {
                positions.text(records, &layout, &mut buffers.positions)?;
                out.write_text(cx, topic, msg.log_time, &buffers.positions)?;
            } else {
                let value = packet_value(&packet, &layout);
                out.write(cx, topic, msg.log_time, &JsonValue(&value))?;
            }
        }
        n += 1;
        if n % 4096 == 0 {
            cx.report(offset);
        }
    }
    write_scene(&mut out, cx, &mut scene, &mut buffers)?;
    cx.report(cx.total_bytes);
    out.finish()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value as Json, json};

    use super::super::ConvertOptions;
    use super::super::jsonschema::testing::{at, close, convert, counts_match_info};
    use super::*;

    #[test]
    fn left_handed_centimetres_become_right_handed_metres() {
        assert_eq!(position(Vec3::new(100.0, 250.0, -50.0)), [1.0, -2.5, -0.5]);
        // Yaw 90° turns right in CARLA (+x towards +y): towards -y here.
        let q = orientation(Vec3::new(0.0, 0.0, 90.0));
        let ahead = rotate(q, [1.0, 0.0, 0.0]);
        assert!(close(&ahead, &[0.0, -1.0, 0.0]), "{ahead:?}");
        // Positive pitch raises the nose.
        let q = orientation(Vec3::new(0.0, 30.0, 0.0));
        let ahead = rotate(q, [1.0, 0.0, 0.0]);
        assert!(ahead[2] > 0.49, "{ahead:?}");
    }

    impl Scene {
        fn new() -> Scene {
            Scene {
                actors: BTreeMap::new(),
                frame: None,
                transforms: HashMap::new(),
            }
        }

        /// The frame's messages built as values, one actor at a time, with
        /// the builders of `foxglove`: what [`Scene::finish`]'s text must
        /// equal.
        fn finish_values(&mut self) -> Option<(Json, Json)> {
            let f = self.frame.take()?;
            let t = f.time;
            let mut entities = Vec::new();
            let mut transforms = Vec::new();
            for (id, location, rotation) in &f.positions {
                let pos = position(*location);
                let q = orientation(*rotation);
                let child = format!("actor_{id}");
                transforms.push(foxglove::frame_transform(t, WORLD, &child, pos, q));
                let Some(actor) = self.actors.get(id).filter(|a| a.shown()) else {
                    continue;
                };
                let cube = actor.cube(*id, pos, q);
                entities.push(foxglove::cube_entity(t, &cube));
            }
            let deletions = f
                .deleted
                .iter()
                .map(|id| {
                    self.actors.remove(id);
                    foxglove::deletion(t, &id.to_string())
                })
                .collect();
            Some((
                foxglove::scene_update(deletions, entities),
                json!({ "transforms": transforms }),
            ))
        }
    }

    /// Frame by frame, the scene and transforms text reused from resting
    /// actors equals the values built afresh, whatever moves, rests, turns
    /// to -0.0, changes its light or box, or is removed and added again.
    #[test]
    fn reused_pieces_give_the_text_of_fresh_values() {
        use carla_recorder::{EventAdd, EventDel, Position, TrafficLightState};
        let add = |id: u32, type_code: u8, description: &'static str| EventAdd {
            id,
            type_code,
            location: Vec3::default(),
            rotation: Vec3::default(),
            uid: 1,
            description_id: description.as_bytes(),
            attributes: Vec::new(),
        };
        let (mut fast, mut slow) = (Scene::new(), Scene::new());
        let (mut text, mut tf) = (Vec::new(), Vec::new());
        let mut rests = 0;
        let mut last: HashMap<u32, (Vec3, Vec3)> = HashMap::new();
        for frame in 0..40u32 {
            let mut packets = Vec::new();
            if frame % 13 == 0 {
                packets.push(Packet::EventAdd(vec![
                    add(1, 1, "vehicle.car"),
                    add(2, 4, "static.prop.sign"),
                    add(3, 3, "traffic.traffic_light"),
                    add(4, 5, "sensor.camera"),
                ]));
            }
            let wobble = if frame % 4 == 0 { -0.0 } else { 0.0 };
            let positions = vec![
                Position {
                    id: 1,
                    location: Vec3::new(100.0 * f64::from(frame), 5.0, 0.0),
                    rotation: Vec3::new(0.0, 0.0, f64::from(frame)),
                },
                Position {
                    id: 2,
                    location: Vec3::new(7.0, -3.0, wobble),
                    rotation: Vec3::default(),
                },
                Position {
                    id: 3,
                    location: Vec3::new(1.0, 2.0, 3.0),
                    rotation: Vec3::new(0.0, 0.0, 90.0),
                },
                Position {
                    id: 4,
                    location: Vec3::default(),
                    rotation: Vec3::default(),
                },
                Position {
                    id: 9,
                    location: Vec3::new(1.0, 1.0, 1.0),
                    rotation: Vec3::default(),
                },
            ];
            for p in &positions {
                if last
                    .get(&p.id)
                    .is_some_and(|&(l, r)| same_vec(l, p.location) && same_vec(r, p.rotation))
                {
                    rests += 1;
                }
                last.insert(p.id, (p.location, p.rotation));
            }
            packets.push(Packet::Position(positions));
            packets.push(Packet::State(vec![TrafficLightState {
                id: 3,
                frozen: false,
                elapsed: 0.0,
                state: (frame / 5 % 3) as u8,
            }]));
            if frame % 7 == 3 {
                packets.push(Packet::BoundingBox(vec![BoundingBox {
                    id: 1,
                    origin: Vec3::new(0.0, 0.0, f64::from(frame)),
                    extent: Vec3::new(200.0, 90.0, 70.0),
                }]));
            }
            if frame % 13 == 12 {
                packets.push(Packet::EventDel(vec![
                    EventDel { id: 1 },
                    EventDel { id: 2 },
                ]));
            }
            for scene in [&mut fast, &mut slow] {
                scene.frame = Some(FrameScene {
                    time: Timestamp::from_nanos(i64::from(frame) * 50_000_000),
                    ..FrameScene::default()
                });
                for p in &packets {
                    scene.take(p);
                }
            }
            fast.finish(&mut text, &mut tf).unwrap().unwrap();
            let (scene, transforms) = slow.finish_values().unwrap();
            assert_eq!(
                String::from_utf8_lossy(&text),
                scene.to_string(),
                "frame {frame}"
            );
            assert_eq!(
                String::from_utf8_lossy(&tf),
                transforms.to_string(),
                "frame {frame}"
            );
        }
        assert!(rests > 50, "{rests}");
    }

    /// Every Position packet of the fixtures (and of resting, moving and
    /// -0.0 records, in both vector widths) has the text of its value.
    #[test]
    fn reused_position_texts_give_the_text_of_the_value() {
        let mut packets: Vec<(Layout, Vec<Position>)> = Vec::new();
        for name in ["scene-0.9.10.rec", "scene-0.9.13.rec", "scene-0.10-ue5.rec"] {
            let file = format!("{}/../../testdata/carla/{name}", env!("CARGO_MANIFEST_DIR"));
            let bytes = std::fs::read(file).unwrap();
            let log = crate::open_bytes(&bytes).unwrap();
            let rec = log.as_carla().unwrap();
            let layout = rec.layout();
            for m in log.messages(&MessageFilter::all()).unwrap() {
                let m = m.unwrap();
                let id = m.channel.0 as u8;
                if let Ok(Packet::Position(v)) = Packet::decode(id, &m.payload, 0, &layout) {
                    packets.push((layout, v));
                }
            }
        }
        assert!(packets.len() > 10);
        for width in [VectorWidth::F32, VectorWidth::F64] {
            let layout = Layout {
                vectors: width,
                ..packets[0].0
            };
            let at = |id, x: f64, z: f64| Position {
                id,
                location: Vec3::new(x, 1.5, z),
                rotation: Vec3::new(0.0, 0.1, 90.0),
            };
            for frame in 0..6 {
                let x = f64::from(frame);
                let z = if frame % 2 == 0 { -0.0 } else { 0.0 };
                packets.push((layout, vec![at(1, x, 0.0), at(2, 5.0, z), at(3, 5.0, 0.0)]));
            }
            packets.push((layout, Vec::new()));
        }
        let mut texts = PositionTexts::default();
        let mut out = Vec::new();
        for (layout, records) in &packets {
            texts.text(records, layout, &mut out).unwrap();
            let value = packet_value(&Packet::Position(records.clone()), layout);
            assert_eq!(
                String::from_utf8(out.clone()).unwrap(),
                serde_json::to_string(&JsonValue(&value)).unwrap()
            );
        }
    }

    #[test]
    fn actors_play_in_the_3d_panel() {
        let c = convert("carla/scene-0.9.13.rec", &ConvertOptions::default());
        let positions = c.on("Position");
        let tf = c.on("tf");
        let scene = c.on("scene");
        assert_eq!(tf.len(), positions.len());
        assert_eq!(scene.len(), positions.len());
        let raw = positions[0];
        let x = at(raw, "records.0.location.x");
        let y = at(raw, "records.0.location.y");
        let z = at(raw, "records.0.location.z");
        let first = &tf[0];
        assert_eq!(
            [
                at(first, "transforms.0.translation.x"),
                at(first, "transforms.0.translation.y"),
                at(first, "transforms.0.translation.z"),
            ],
            [x / 100.0, -y / 100.0, z / 100.0]
        );
        let schemas: Vec<&str> = c
            .messages
            .iter()
            .filter(|m| m.0 == "scene" || m.0 == "tf")
            .map(|m| m.1.as_str())
            .collect();
        assert!(schemas.contains(&"foxglove.SceneUpdate"));
        assert!(schemas.contains(&"foxglove.FrameTransforms"));
        // Every packet is a message on its own topic, as `robolog info` counts them.
        counts_match_info(&c, "carla/scene-0.9.13.rec");
    }
}
