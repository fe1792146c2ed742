//! Decoding packets into [`logcore::Value`] trees (what `robolog cat
//! --json` prints), and the [`ValueType`] of each packet kind. Field names
//! follow the spec's tables.

use logcore::{Field, Value, ValueType};

use crate::additional::{BoundingBox, PhysicsControl};
use crate::layout::{Layout, Vec3, VectorWidth, WheelRecord};
use crate::packet::{Packet, PacketId};
use crate::state::VehicleLight;

fn text(b: &[u8]) -> Value {
    Value::String(String::from_utf8_lossy(b).into_owned())
}

fn vec3(v: Vec3, l: &Layout) -> Value {
    let f = |x: f64| match l.vectors {
        VectorWidth::F32 => Value::F32(x as f32),
        VectorWidth::F64 => Value::F64(x),
    };
    Value::record([("x", f(v.x)), ("y", f(v.y)), ("z", f(v.z))])
}

fn f32s(v: &[f32]) -> Value {
    Value::Array(v.iter().map(|x| Value::F32(*x)).collect())
}

fn id(v: u32) -> (&'static str, Value) {
    ("id", Value::U64(u64::from(v)))
}

fn list<T>(items: &[T], f: impl Fn(&T) -> Value) -> Value {
    Value::Array(items.iter().map(f).collect())
}

fn bbox(b: &BoundingBox, l: &Layout) -> Value {
    Value::record([
        id(b.id),
        ("origin", vec3(b.origin, l)),
        ("extent", vec3(b.extent, l)),
    ])
}

fn lights(v: &VehicleLight) -> Value {
    Value::record([
        id(v.id),
        ("state", Value::U64(u64::from(v.state))),
        (
            "lights",
            Value::Array(
                v.names()
                    .into_iter()
                    .map(|n| Value::String(n.into()))
                    .collect(),
            ),
        ),
    ])
}

fn physics(c: &PhysicsControl) -> Value {
    let points = |p: &[[f32; 2]]| {
        Value::Array(
            p.iter()
                .map(|[x, y]| Value::record([("x", Value::F32(*x)), ("y", Value::F32(*y))]))
                .collect(),
        )
    };
    Value::record([
        id(c.id),
        ("max_rpm", Value::F32(c.max_rpm)),
        ("moi", Value::F32(c.moi)),
        (
            "damping_rate_full_throttle",
            Value::F32(c.damping_rate_full_throttle),
        ),
        (
            "damping_rate_zero_throttle_clutch_engaged",
            Value::F32(c.damping_rate_zero_throttle_clutch_engaged),
        ),
        (
            "damping_rate_zero_throttle_clutch_disengaged",
            Value::F32(c.damping_rate_zero_throttle_clutch_disengaged),
        ),
        ("use_gear_autobox", Value::Bool(c.use_gear_autobox)),
        ("clutch_strength", Value::F32(c.clutch_strength)),
        ("final_ratio", Value::F32(c.final_ratio)),
        ("mass", Value::F32(c.mass)),
        ("drag_coefficient", Value::F32(c.drag_coefficient)),
        ("center_of_mass", f32s(&c.center_of_mass)),
        ("torque_curve", points(&c.torque_curve)),
        (
            "forward_gears",
            list(&c.forward_gears, |g| {
                Value::record([
                    ("ratio", Value::F32(g.ratio)),
                    ("down_ratio", Value::F32(g.down_ratio)),
                    ("up_ratio", Value::F32(g.up_ratio)),
                ])
            }),
        ),
        ("steering_curve", points(&c.steering_curve)),
        (
            "wheels",
            list(&c.wheels, |w| {
                let mut fields = vec![
                    ("tire_friction", Value::F32(w.tire_friction)),
                    ("damping_rate", Value::F32(w.damping_rate)),
                    ("max_steer_angle", Value::F32(w.max_steer_angle)),
                    ("radius", Value::F32(w.radius)),
                    ("max_brake_torque", Value::F32(w.max_brake_torque)),
                    ("max_handbrake_torque", Value::F32(w.max_handbrake_torque)),
                ];
                if let Some([a, b, c]) = w.stiffness {
                    fields.push(("lat_stiff_max_load", Value::F32(a)));
                    fields.push(("lat_stiff_value", Value::F32(b)));
                    fields.push(("long_stiff_value", Value::F32(c)));
                }
                fields.push(("position", f32s(&w.position)));
                Value::record(fields)
            }),
        ),
    ])
}

/// The packet as a value: list packets become `{"records": [...]}`,
/// fixed packets a struct of their fields, raw packets `{"id", "payload"}`.
///
/// ```
/// use carla_recorder::{EventDel, Layout, Packet, packet_value};
/// let v = packet_value(&Packet::EventDel(vec![EventDel { id: 9 }]), &Layout::default());
/// assert_eq!(serde_json::to_string(&v).unwrap(), r#"{"records":[{"id":9}]}"#);
/// ```
pub fn packet_value(p: &Packet<'_>, l: &Layout) -> Value {
    let records = |v: Value| Value::record([("records", v)]);
    match p {
        Packet::FrameStart(s) => Value::record([
            ("frame", Value::U64(s.id)),
            ("duration", Value::F64(s.duration)),
            ("elapsed", Value::F64(s.elapsed)),
        ]),
        Packet::FrameEnd => Value::Struct(Vec::new()),
        Packet::EventAdd(v) => records(list(v, |a| {
            Value::record([
                id(a.id),
                ("type", Value::U64(u64::from(a.type_code))),
                ("type_name", Value::String(a.actor_type().name().into())),
                ("location", vec3(a.location, l)),
                ("rotation", vec3(a.rotation, l)),
                ("uid", Value::U64(u64::from(a.uid))),
                ("description", text(a.description_id)),
                (
                    "attributes",
                    list(&a.attributes, |at| {
                        Value::record([
                            ("type", Value::U64(u64::from(at.type_code))),
                            (
                                "type_name",
                                at.kind(l.attributes)
                                    .map_or(Value::Null, |k| Value::String(k.name().into())),
                            ),
                            ("id", text(at.id)),
                            ("value", text(at.value)),
                        ])
                    }),
                ),
            ])
        })),
        Packet::EventDel(v) => records(list(v, |d| Value::record([id(d.id)]))),
        Packet::EventParent(v) => records(list(v, |d| {
            Value::record([id(d.id), ("parent", Value::U64(u64::from(d.parent)))])
        })),
        Packet::Collision(v) => records(list(v, |c| {
            Value::record([
                id(c.id),
                ("actor1", Value::U64(u64::from(c.actor1))),
                ("actor2", Value::U64(u64::from(c.actor2))),
                ("is_hero1", Value::Bool(c.is_hero1)),
                ("is_hero2", Value::Bool(c.is_hero2)),
            ])
        })),
        Packet::Position(v) => records(list(v, |p| {
            Value::record([
                id(p.id),
                ("location", vec3(p.location, l)),
                ("rotation", vec3(p.rotation, l)),
            ])
        })),
        Packet::State(v) => records(list(v, |s| {
            Value::record([
                id(s.id),
                ("frozen", Value::Bool(s.frozen)),
                ("elapsed", Value::F32(s.elapsed)),
                ("state", Value::U64(u64::from(s.state))),
            ])
        })),
        Packet::AnimVehicle(v) => records(list(v, |a| {
            Value::record([
                id(a.id),
                ("steering", Value::F32(a.steering)),
                ("throttle", Value::F32(a.throttle)),
                ("brake", Value::F32(a.brake)),
                ("handbrake", Value::Bool(a.handbrake)),
                ("gear", Value::I64(i64::from(a.gear))),
            ])
        })),
        Packet::AnimWalker(v) => records(list(v, |a| {
            Value::record([id(a.id), ("speed", Value::F32(a.speed))])
        })),
        Packet::VehicleLight(v) => records(list(v, lights)),
        Packet::SceneLight(v) => records(list(v, |s| {
            Value::record([
                ("id", Value::I64(i64::from(s.id))),
                ("intensity", Value::F32(s.intensity)),
                ("color", f32s(&s.color)),
                ("on", Value::Bool(s.on)),
                ("group", Value::U64(u64::from(s.group))),
            ])
        })),
        Packet::Kinematics(v) => records(list(v, |k| {
            Value::record([
                id(k.id),
                ("linear_velocity", vec3(k.linear_velocity, l)),
                ("angular_velocity", vec3(k.angular_velocity, l)),
            ])
        })),
        Packet::BoundingBox(v) | Packet::TriggerVolume(v) => records(list(v, |b| bbox(b, l))),
        Packet::PlatformTime(t) => Value::record([("platform_time", Value::F64(*t))]),
        Packet::PhysicsControl(v) => records(list(v, physics)),
        Packet::TrafficLightTime(v) => records(list(v, |t| {
            Value::record([
                id(t.id),
                ("green", Value::F32(t.green)),
                ("yellow", Value::F32(t.yellow)),
                ("red", Value::F32(t.red)),
            ])
        })),
        Packet::FrameCounter(n) => Value::record([("frame_counter", Value::U64(*n))]),
        Packet::WalkerBones(v) => records(list(v, |w| {
            Value::record([
                id(w.id),
                (
                    "bones",
                    list(&w.bones, |b| {
                        Value::record([
                            ("name", text(b.name)),
                            ("location", vec3(b.location, l)),
                            ("rotation", vec3(b.rotation, l)),
                        ])
                    }),
                ),
            ])
        })),
        Packet::VisualTime(t) => Value::record([("visual_time", Value::F64(*t))]),
        Packet::VehicleDoor(v) => records(list(v, |d| {
            Value::record([
                id(d.id),
                ("door", Value::U64(u64::from(d.door))),
                ("open", Value::Bool(d.open)),
            ])
        })),
        Packet::AnimVehicleWheels(v) => records(list(v, |a| {
            Value::record([
                id(a.id),
                (
                    "wheels",
                    list(&a.wheels, |w| {
                        Value::record([
                            ("location", Value::U64(u64::from(w.location))),
                            ("steering_angle", Value::F32(w.steering_angle)),
                            ("rotation_angle", Value::F32(w.rotation_angle)),
                        ])
                    }),
                ),
            ])
        })),
        Packet::AnimBiker(v) => records(list(v, |b| {
            Value::record([
                id(b.id),
                ("forward_speed", Value::F32(b.forward_speed)),
                ("engine_rotation", Value::F32(b.engine_rotation)),
            ])
        })),
        Packet::Raw { id, payload } => Value::record([
            ("id", Value::U64(u64::from(*id))),
            ("payload", Value::Bytes(payload.to_vec())),
        ]),
    }
}

/// The type of the value [`packet_value`] gives a packet with id `id` in
/// `layout`: the same fields in the same order, integers of the width the
/// packet layout stores them in, vectors as `{x, y, z}` structs of the
/// layout's [`VectorWidth`], list packets as `{"records": [...]}`, and
/// `{"id": uint8, "payload": bytes}` for the packets kept raw (ids CARLA
/// does not define, PhysicsControl in the UE5 layout).
///
/// Id 18 is typed as CARLA's 8-byte FrameCounter; a fork's id-18 packet
/// of another size decodes raw (see [`Packet::Raw`]), which
/// [`raw_packet_type`] types.
///
/// ```
/// use carla_recorder::{Layout, PacketId, packet_type};
/// use logcore::ValueType;
/// let v = ValueType::record([("x", ValueType::F32), ("y", ValueType::F32), ("z", ValueType::F32)]);
/// let record = ValueType::record([("id", ValueType::U32), ("location", v.clone()), ("rotation", v)]);
/// assert_eq!(
///     packet_type(PacketId::Position as u8, &Layout::CARLA_0_9_13),
///     ValueType::record([("records", ValueType::list(record))])
/// );
/// ```
pub fn packet_type(id: u8, l: &Layout) -> ValueType {
    use ValueType::{Bool, F32, F64, I32, String, U8, U32, U64};
    let Some(kind) = PacketId::from_u8(id) else {
        return raw_packet_type();
    };
    let v = || {
        let f = match l.vectors {
            VectorWidth::F32 => F32,
            VectorWidth::F64 => F64,
        };
        ValueType::record([("x", f.clone()), ("y", f.clone()), ("z", f)])
    };
    let id_u32 = || ("id", U32);
    let records = |fields: Vec<(&'static str, ValueType)>| {
        ValueType::record([("records", ValueType::list(ValueType::record(fields)))])
    };
    match kind {
        PacketId::FrameStart => {
            ValueType::record([("frame", U64), ("duration", F64), ("elapsed", F64)])
        }
        PacketId::FrameEnd => ValueType::Struct(Vec::new()),
        PacketId::EventAdd => {
            let attribute = ValueType::Struct(vec![
                Field::new("type", U8),
                Field::nullable("type_name", String),
                Field::new("id", String),
                Field::new("value", String),
            ]);
            records(vec![
                id_u32(),
                ("type", U8),
                ("type_name", String),
                ("location", v()),
                ("rotation", v()),
                ("uid", U32),
                ("description", String),
                ("attributes", ValueType::list(attribute)),
            ])
        }
        PacketId::EventDel => records(vec![id_u32()]),
        PacketId::EventParent => records(vec![id_u32(), ("parent", U32)]),
        PacketId::Collision => records(vec![
            id_u32(),
            ("actor1", U32),
            ("actor2", U32),
            ("is_hero1", Bool),
            ("is_hero2", Bool),
        ]),
        PacketId::Position => records(vec![id_u32(), ("location", v()), ("rotation", v())]),
        PacketId::State => records(vec![
            id_u32(),
            ("frozen", Bool),
            ("elapsed", F32),
            ("state", U8),
        ]),
        PacketId::AnimVehicle => records(vec![
            id_u32(),
            ("steering", F32),
            ("throttle", F32),
            ("brake", F32),
            ("handbrake", Bool),
            ("gear", I32),
        ]),
        PacketId::AnimWalker => records(vec![id_u32(), ("speed", F32)]),
        PacketId::VehicleLight => records(vec![
            id_u32(),
            ("state", U32),
            ("lights", ValueType::list(String)),
        ]),
        PacketId::SceneLight => records(vec![
            ("id", I32),
            ("intensity", F32),
            ("color", ValueType::fixed(F32, 4)),
            ("on", Bool),
            ("group", U8),
        ]),
        PacketId::Kinematics => records(vec![
            id_u32(),
            ("linear_velocity", v()),
            ("angular_velocity", v()),
        ]),
        PacketId::BoundingBox | PacketId::TriggerVolume => {
            records(vec![id_u32(), ("origin", v()), ("extent", v())])
        }
        PacketId::PlatformTime => ValueType::record([("platform_time", F64)]),
        PacketId::PhysicsControl => match l.vectors {
            VectorWidth::F64 => raw_packet_type(),
            VectorWidth::F32 => records(physics_fields(l)),
        },
        PacketId::TrafficLightTime => records(vec![
            id_u32(),
            ("green", F32),
            ("yellow", F32),
            ("red", F32),
        ]),
        PacketId::FrameCounter => ValueType::record([("frame_counter", U64)]),
        PacketId::WalkerBones => {
            let bone = ValueType::record([("name", String), ("location", v()), ("rotation", v())]);
            records(vec![id_u32(), ("bones", ValueType::list(bone))])
        }
        PacketId::VisualTime => ValueType::record([("visual_time", F64)]),
        PacketId::VehicleDoor => records(vec![id_u32(), ("door", U8), ("open", Bool)]),
        PacketId::AnimVehicleWheels => {
            let wheel = ValueType::record([
                ("location", U8),
                ("steering_angle", F32),
                ("rotation_angle", F32),
            ]);
            records(vec![id_u32(), ("wheels", ValueType::list(wheel))])
        }
        PacketId::AnimBiker => records(vec![
            id_u32(),
            ("forward_speed", F32),
            ("engine_rotation", F32),
        ]),
    }
}

/// The type of a packet kept raw: `{"id": uint8, "payload": bytes}`.
pub fn raw_packet_type() -> ValueType {
    ValueType::record([("id", ValueType::U8), ("payload", ValueType::Bytes)])
}

/// The fields of a PhysicsControl record in the f32 layouts (the wheel
/// stiffness only with 48-byte wheel records).
fn physics_fields(l: &Layout) -> Vec<(&'static str, ValueType)> {
    use ValueType::{Bool, F32, U32};
    let point = || ValueType::list(ValueType::record([("x", F32), ("y", F32)]));
    let gear = ValueType::record([("ratio", F32), ("down_ratio", F32), ("up_ratio", F32)]);
    let mut wheel = vec![
        ("tire_friction", F32),
        ("damping_rate", F32),
        ("max_steer_angle", F32),
        ("radius", F32),
        ("max_brake_torque", F32),
        ("max_handbrake_torque", F32),
    ];
    if l.wheels == WheelRecord::Wheel48 {
        wheel.push(("lat_stiff_max_load", F32));
        wheel.push(("lat_stiff_value", F32));
        wheel.push(("long_stiff_value", F32));
    }
    wheel.push(("position", ValueType::fixed(F32, 3)));
    vec![
        ("id", U32),
        ("max_rpm", F32),
        ("moi", F32),
        ("damping_rate_full_throttle", F32),
        ("damping_rate_zero_throttle_clutch_engaged", F32),
        ("damping_rate_zero_throttle_clutch_disengaged", F32),
        ("use_gear_autobox", Bool),
        ("clutch_strength", F32),
        ("final_ratio", F32),
        ("mass", F32),
        ("drag_coefficient", F32),
        ("center_of_mass", ValueType::fixed(F32, 3)),
        ("torque_curve", point()),
        ("forward_gears", ValueType::list(gear)),
        ("steering_curve", point()),
        ("wheels", ValueType::list(ValueType::record(wheel))),
    ]
}
