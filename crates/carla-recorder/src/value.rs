//! Decoding packets into [`logcore::Value`] trees (what `robolog cat
//! --json` prints). Field names follow the spec's tables.

use logcore::Value;

use crate::additional::{BoundingBox, PhysicsControl};
use crate::layout::{Layout, Vec3, VectorWidth};
use crate::packet::Packet;
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
