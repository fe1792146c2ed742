//! The JSON Schemas of the packet channels, from the record types of the
//! `carla-recorder` crate.

use carla_recorder::Packet;

use crate::convert::jsonschema::{Field, Type};

/// A location or rotation: `{x, y, z}` floats.
fn vec3_type() -> Type {
    Type::object(["x", "y", "z"].map(|n| Field::new(n, Type::Float)))
}

/// A packet of records: `{records: [ITEM]}`.
fn records(item: Vec<Field>) -> Type {
    Type::object([Field::new("records", Type::list(Type::Object(item)))])
}

/// The actor id of a record.
fn id_field() -> Field {
    Field::new("id", Type::UInt)
}

/// Float fields called `names`.
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
