//! Per-frame state packets (spec §6): Position (id 6), traffic-light State
//! (7), AnimVehicle (8), AnimWalker (9), VehicleLight (10), SceneLight
//! (11), VehicleDoor (21), AnimVehicleWheels (22) and AnimBiker (23).

use logcore::cursor::Cursor;

use crate::error::Result;
use crate::layout::{Layout, Vec3};
use crate::packet::RecordCodec;
use crate::wire::{Put, ReadFields, put_count_u32};

/// Position record: an actor's transform in this frame.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Position {
    /// Actor id.
    pub id: u32,
    /// Location, cm.
    pub location: Vec3,
    /// Rotation (roll, pitch, yaw), degrees.
    pub rotation: Vec3,
}

impl RecordCodec<'_> for Position {
    fn min_len(layout: &Layout) -> usize {
        layout.vectors.position_len()
    }
    fn read(f: &mut Cursor<'_>, layout: &Layout) -> Result<Self> {
        Ok(Position {
            id: f.u32("actor id")?,
            location: f.vec3(layout.vectors, "location")?,
            rotation: f.vec3(layout.vectors, "rotation")?,
        })
    }
    fn write(&self, out: &mut Vec<u8>, layout: &Layout) -> Result<()> {
        out.put_u32(self.id);
        out.put_vec3(self.location, layout.vectors);
        out.put_vec3(self.rotation, layout.vectors);
        Ok(())
    }
}

/// Names of the traffic-light states 0..=3.
pub const TRAFFIC_LIGHT_STATES: [&str; 4] = ["Red", "Yellow", "Green", "Off"];

/// State record (id 7): one traffic light.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TrafficLightState {
    /// Actor id.
    pub id: u32,
    /// The light's group is frozen.
    pub frozen: bool,
    /// Seconds in the current state.
    pub elapsed: f32,
    /// 0 Red, 1 Yellow, 2 Green, 3 Off.
    pub state: u8,
}

impl RecordCodec<'_> for TrafficLightState {
    fn min_len(_: &Layout) -> usize {
        10
    }
    fn read(f: &mut Cursor<'_>, _: &Layout) -> Result<Self> {
        Ok(TrafficLightState {
            id: f.u32("actor id")?,
            frozen: f.bool("frozen flag")?,
            elapsed: f.f32("elapsed time")?,
            state: f.u8("state")?,
        })
    }
    fn write(&self, out: &mut Vec<u8>, _: &Layout) -> Result<()> {
        out.put_u32(self.id);
        out.put_bool(self.frozen);
        out.put_f32(self.elapsed);
        out.put_u8(self.state);
        Ok(())
    }
}

/// AnimVehicle record: a vehicle's controls (21 bytes, no padding).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AnimVehicle {
    /// Actor id.
    pub id: u32,
    /// Steering, −1 … 1.
    pub steering: f32,
    /// Throttle, 0 … 1.
    pub throttle: f32,
    /// Brake, 0 … 1.
    pub brake: f32,
    /// Handbrake on.
    pub handbrake: bool,
    /// Gear.
    pub gear: i32,
}

impl RecordCodec<'_> for AnimVehicle {
    fn min_len(_: &Layout) -> usize {
        21
    }
    fn read(f: &mut Cursor<'_>, _: &Layout) -> Result<Self> {
        Ok(AnimVehicle {
            id: f.u32("actor id")?,
            steering: f.f32("steering")?,
            throttle: f.f32("throttle")?,
            brake: f.f32("brake")?,
            handbrake: f.bool("handbrake")?,
            gear: f.i32("gear")?,
        })
    }
    fn write(&self, out: &mut Vec<u8>, _: &Layout) -> Result<()> {
        out.put_u32(self.id);
        out.put_f32(self.steering);
        out.put_f32(self.throttle);
        out.put_f32(self.brake);
        out.put_bool(self.handbrake);
        out.put_i32(self.gear);
        Ok(())
    }
}

/// AnimWalker record: a walker's speed.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AnimWalker {
    /// Actor id.
    pub id: u32,
    /// Speed given to the walker controller.
    pub speed: f32,
}

impl RecordCodec<'_> for AnimWalker {
    fn min_len(_: &Layout) -> usize {
        8
    }
    fn read(f: &mut Cursor<'_>, _: &Layout) -> Result<Self> {
        Ok(AnimWalker {
            id: f.u32("actor id")?,
            speed: f.f32("speed")?,
        })
    }
    fn write(&self, out: &mut Vec<u8>, _: &Layout) -> Result<()> {
        out.put_u32(self.id);
        out.put_f32(self.speed);
        Ok(())
    }
}

/// Names of the vehicle light bits 0..=10.
pub const VEHICLE_LIGHT_BITS: [&str; 11] = [
    "Position",
    "LowBeam",
    "HighBeam",
    "Brake",
    "RightBlinker",
    "LeftBlinker",
    "Reverse",
    "Fog",
    "Interior",
    "Special1",
    "Special2",
];

/// VehicleLight record: a vehicle's light bitmask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VehicleLight {
    /// Actor id.
    pub id: u32,
    /// Bit i set = light [`VEHICLE_LIGHT_BITS`]`[i]` on.
    pub state: u32,
}

impl VehicleLight {
    /// The names of the lights that are on, in bit order.
    ///
    /// ```
    /// let l = carla_recorder::VehicleLight { id: 1, state: 0b1001 };
    /// assert_eq!(l.names(), ["Position", "Brake"]);
    /// ```
    pub fn names(&self) -> Vec<&'static str> {
        VEHICLE_LIGHT_BITS
            .iter()
            .enumerate()
            .filter(|(i, _)| self.state & (1 << i) != 0)
            .map(|(_, n)| *n)
            .collect()
    }
}

impl RecordCodec<'_> for VehicleLight {
    fn min_len(_: &Layout) -> usize {
        8
    }
    fn read(f: &mut Cursor<'_>, _: &Layout) -> Result<Self> {
        Ok(VehicleLight {
            id: f.u32("actor id")?,
            state: f.u32("light state")?,
        })
    }
    fn write(&self, out: &mut Vec<u8>, _: &Layout) -> Result<()> {
        out.put_u32(self.id);
        out.put_u32(self.state);
        Ok(())
    }
}

/// SceneLight record: a map light that changed.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SceneLight {
    /// Light id (may be −1).
    pub id: i32,
    /// Intensity.
    pub intensity: f32,
    /// Linear RGBA, 0 … 1.
    pub color: [f32; 4],
    /// Switched on.
    pub on: bool,
    /// Light group: 0 None, 1 Vehicle, 2 Street, 3 Building, 4 Other.
    pub group: u8,
}

impl RecordCodec<'_> for SceneLight {
    fn min_len(_: &Layout) -> usize {
        26
    }
    fn read(f: &mut Cursor<'_>, _: &Layout) -> Result<Self> {
        Ok(SceneLight {
            id: f.i32("light id")?,
            intensity: f.f32("intensity")?,
            color: f.f32s::<4>("color")?,
            on: f.bool("on flag")?,
            group: f.u8("light group")?,
        })
    }
    fn write(&self, out: &mut Vec<u8>, _: &Layout) -> Result<()> {
        out.put_i32(self.id);
        out.put_f32(self.intensity);
        for c in self.color {
            out.put_f32(c);
        }
        out.put_bool(self.on);
        out.put_u8(self.group);
        Ok(())
    }
}

/// Names of the door values 0..=6.
pub const DOORS: [&str; 7] = [
    "FrontLeft",
    "FrontRight",
    "RearLeft",
    "RearRight",
    "Hood",
    "Trunk",
    "All",
];

/// VehicleDoor record: a door opened or closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VehicleDoor {
    /// Actor id.
    pub id: u32,
    /// Door, see [`DOORS`].
    pub door: u8,
    /// Opened (else closed).
    pub open: bool,
}

impl RecordCodec<'_> for VehicleDoor {
    fn min_len(_: &Layout) -> usize {
        6
    }
    fn read(f: &mut Cursor<'_>, _: &Layout) -> Result<Self> {
        Ok(VehicleDoor {
            id: f.u32("actor id")?,
            door: f.u8("door")?,
            open: f.bool("open flag")?,
        })
    }
    fn write(&self, out: &mut Vec<u8>, _: &Layout) -> Result<()> {
        out.put_u32(self.id);
        out.put_u8(self.door);
        out.put_bool(self.open);
        Ok(())
    }
}

/// One wheel of an AnimVehicleWheels entry (9 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WheelAnim {
    /// 0 FL, 1 FR, 2 BL, 3 BR, 4 ML, 5 MR (two-wheelers: 0 front, 1 back).
    pub location: u8,
    /// Steering angle, degrees.
    pub steering_angle: f32,
    /// Tire rotation angle, degrees.
    pub rotation_angle: f32,
}

/// AnimVehicleWheels entry: the wheel angles of one vehicle.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AnimVehicleWheels {
    /// Actor id.
    pub id: u32,
    /// Its wheels (the count is a u32 in the file).
    pub wheels: Vec<WheelAnim>,
}

impl RecordCodec<'_> for AnimVehicleWheels {
    fn min_len(_: &Layout) -> usize {
        8
    }
    fn read(f: &mut Cursor<'_>, _: &Layout) -> Result<Self> {
        let id = f.u32("actor id")?;
        let n = f.count_u32("wheel count", 9)?;
        let mut wheels = Vec::with_capacity(n);
        for _ in 0..n {
            wheels.push(WheelAnim {
                location: f.u8("wheel location")?,
                steering_angle: f.f32("steering angle")?,
                rotation_angle: f.f32("tire rotation angle")?,
            });
        }
        Ok(AnimVehicleWheels { id, wheels })
    }
    fn write(&self, out: &mut Vec<u8>, _: &Layout) -> Result<()> {
        out.put_u32(self.id);
        put_count_u32(out, self.wheels.len(), "wheel")?;
        for w in &self.wheels {
            out.put_u8(w.location);
            out.put_f32(w.steering_angle);
            out.put_f32(w.rotation_angle);
        }
        Ok(())
    }
}

/// AnimBiker record: a two-wheeler's speed and engine.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AnimBiker {
    /// Actor id.
    pub id: u32,
    /// Forward speed.
    pub forward_speed: f32,
    /// Engine RPM divided by maximum RPM, 0 … 1.
    pub engine_rotation: f32,
}

impl RecordCodec<'_> for AnimBiker {
    fn min_len(_: &Layout) -> usize {
        12
    }
    fn read(f: &mut Cursor<'_>, _: &Layout) -> Result<Self> {
        Ok(AnimBiker {
            id: f.u32("actor id")?,
            forward_speed: f.f32("forward speed")?,
            engine_rotation: f.f32("engine rotation")?,
        })
    }
    fn write(&self, out: &mut Vec<u8>, _: &Layout) -> Result<()> {
        out.put_u32(self.id);
        out.put_f32(self.forward_speed);
        out.put_f32(self.engine_rotation);
        Ok(())
    }
}
