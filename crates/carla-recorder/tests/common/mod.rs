//! A recording with every packet id 0–23 and a custom id, built with the
//! crate's writer, for the integration tests.

#![allow(dead_code, unreachable_pub)]

use carla_recorder::*;

pub const DATE: i64 = 1_637_676_528;

pub fn attrs(rgb_code: u8) -> Vec<Attribute<'static>> {
    vec![
        Attribute {
            type_code: 3,
            id: b"role_name",
            value: b"hero",
        },
        Attribute {
            type_code: rgb_code,
            id: b"color",
            value: b"16,16,16",
        },
        Attribute {
            type_code: 1,
            id: b"number_of_wheels",
            value: b"4",
        },
    ]
}

pub fn car(id: u32, rgb_code: u8) -> EventAdd<'static> {
    EventAdd {
        id,
        type_code: 1,
        location: Vec3::new(10700.0, 13300.0, 64.5),
        rotation: Vec3::new(0.0, 0.0, 90.0),
        uid: 26,
        description_id: b"vehicle.lincoln.mkz_2017",
        attributes: attrs(rgb_code),
    }
}

pub fn physics(stiffness: bool) -> PhysicsControl {
    PhysicsControl {
        id: 174,
        max_rpm: 5000.0,
        moi: 1.0,
        damping_rate_full_throttle: 0.15,
        damping_rate_zero_throttle_clutch_engaged: 2.0,
        damping_rate_zero_throttle_clutch_disengaged: 0.35,
        use_gear_autobox: true,
        clutch_strength: 10.0,
        final_ratio: 4.0,
        mass: 1845.0,
        drag_coefficient: 0.3,
        center_of_mass: [0.0, 0.0, -0.25],
        torque_curve: vec![[0.0, 400.0], [1890.0, 500.0], [5729.0, 400.0]],
        forward_gears: vec![Gear {
            ratio: 4.25,
            down_ratio: 0.2,
            up_ratio: 0.65,
        }],
        steering_curve: vec![[0.0, 1.0], [20.0, 0.9]],
        wheels: (0..4)
            .map(|i| Wheel {
                tire_friction: 3.5,
                damping_rate: 0.25,
                max_steer_angle: if i < 2 { 70.0 } else { 0.0 },
                radius: 35.5,
                max_brake_torque: 1500.0,
                max_handbrake_torque: if i < 2 { 0.0 } else { 3000.0 },
                stiffness: stiffness.then_some([3.0, 17.0, 1000.0]),
                position: [i as f32 * 100.0, -50.0, 30.0],
            })
            .collect(),
    }
}

/// Frame `n` (1-based) of the sample: frame 1 holds every packet kind.
pub fn frame_packets(n: u64, layout: &Layout) -> Vec<Packet<'static>> {
    let rgb = match layout.attributes {
        AttributeCoding::ZeroBased => 4,
        AttributeCoding::OneBased => 5,
    };
    let x = n as f64 * 50.0;
    let pos = Packet::Position(vec![
        Position {
            id: 174,
            location: Vec3::new(10700.0 + x, 13300.0, 64.5),
            rotation: Vec3::new(0.0, -0.5, 90.0),
        },
        Position {
            id: 175,
            location: Vec3::new(-3.25, 7.0, 0.0),
            rotation: Vec3::default(),
        },
    ]);
    let mut v = vec![Packet::VisualTime(n as f64 * 0.05 + 100.0)];
    if n == 1 {
        let mut walker = car(175, rgb);
        walker.type_code = 2;
        walker.description_id = b"walker.pedestrian.0001";
        walker.attributes = vec![];
        let mut sensor = car(176, rgb);
        sensor.type_code = 5;
        sensor.description_id = b"sensor.other.collision";
        sensor.attributes = vec![Attribute {
            type_code: 3,
            id: b"role_name",
            value: b"front",
        }];
        v.push(Packet::EventAdd(vec![car(174, rgb), walker, sensor]));
    } else {
        v.push(Packet::EventAdd(vec![]));
    }
    v.push(Packet::EventDel(if n == 4 {
        vec![EventDel { id: 175 }]
    } else {
        vec![]
    }));
    v.push(Packet::EventParent(if n == 1 {
        vec![EventParent {
            id: 176,
            parent: 174,
        }]
    } else {
        vec![]
    }));
    v.push(Packet::Collision(if n == 2 || n == 3 {
        vec![Collision {
            id: n as u32,
            actor1: 174,
            actor2: 175,
            is_hero1: true,
            is_hero2: false,
        }]
    } else {
        vec![]
    }));
    v.push(Packet::VehicleDoor(if n == 2 {
        vec![VehicleDoor {
            id: 174,
            door: 5,
            open: true,
        }]
    } else {
        vec![]
    }));
    v.push(pos);
    v.push(Packet::State(vec![TrafficLightState {
        id: 90,
        frozen: false,
        elapsed: 1.25,
        state: 2,
    }]));
    v.push(Packet::AnimVehicle(vec![AnimVehicle {
        id: 174,
        steering: -0.25,
        throttle: 0.75,
        brake: 0.0,
        handbrake: false,
        gear: 1,
    }]));
    v.push(Packet::AnimWalker(vec![AnimWalker {
        id: 175,
        speed: 1.5,
    }]));
    v.push(Packet::VehicleLight(vec![VehicleLight {
        id: 174,
        state: 0b1_0000_1001,
    }]));
    if n == 1 {
        v.push(Packet::SceneLight(vec![SceneLight {
            id: -1,
            intensity: 1500.0,
            color: [1.0, 0.5, 0.25, 1.0],
            on: true,
            group: 2,
        }]));
    }
    v.push(Packet::AnimVehicleWheels(vec![AnimVehicleWheels {
        id: 174,
        wheels: (0..4)
            .map(|i| WheelAnim {
                location: i,
                steering_angle: 2.5,
                rotation_angle: 90.0 * f32::from(i),
            })
            .collect(),
    }]));
    v.push(Packet::AnimBiker(vec![AnimBiker {
        id: 177,
        forward_speed: 3.0,
        engine_rotation: 0.5,
    }]));
    v.push(Packet::Kinematics(vec![Kinematics {
        id: 174,
        linear_velocity: Vec3::new(10.0, 0.0, 0.0),
        angular_velocity: Vec3::new(0.0, 0.0, 1.5),
    }]));
    v.push(Packet::BoundingBox(vec![BoundingBox {
        id: 174,
        origin: Vec3::new(0.0, 0.0, 70.0),
        extent: Vec3::new(245.0, 105.0, 75.0),
    }]));
    if n == 1 {
        v.push(Packet::TriggerVolume(vec![BoundingBox {
            id: 90,
            origin: Vec3::new(9499.0, 7041.0, 10.0),
            extent: Vec3::new(100.0, 200.0, 300.0),
        }]));
    }
    v.push(Packet::PlatformTime(n as f64 * 0.0625));
    if n == 1 && layout.vectors == VectorWidth::F32 {
        v.push(Packet::PhysicsControl(vec![physics(
            layout.wheels == WheelRecord::Wheel48,
        )]));
    }
    if n == 1 {
        v.push(Packet::TrafficLightTime(vec![TrafficLightTime {
            id: 90,
            green: 10.0,
            yellow: 3.0,
            red: 2.0,
        }]));
        v.push(Packet::FrameCounter(12345));
        v.push(Packet::Raw {
            id: 139,
            payload: b"custom",
        });
    }
    v.push(Packet::WalkerBones(vec![WalkerBones {
        id: 175,
        bones: vec![Bone {
            name: b"crl_root",
            location: Vec3::new(0.0, 0.0, 1.0),
            rotation: Vec3::new(0.0, 90.0, 0.0),
        }],
    }]));
    v
}

pub const FRAMES: u64 = 6;

/// The sample in `layout`: 6 frames, 0.05 s apart, written tick by tick.
pub fn sample(layout: Layout) -> Vec<u8> {
    let mut w = Writer::with_layout(InfoHeader::new(DATE, b"Town10HD_Opt"), layout).unwrap();
    for n in 1..=FRAMES {
        w.tick((n - 1) as f64 * 0.05, &frame_packets(n, &layout))
            .unwrap();
    }
    w.finish()
}

pub const LAYOUTS: [Layout; 4] = [
    Layout::CARLA_0_9_10,
    Layout::CARLA_0_9_13,
    Layout::CARLA_0_9_15,
    Layout::CARLA_0_10,
];
