//! Additional-data packets (spec §8): Kinematics (id 12), BoundingBox (13)
//! and TriggerVolume (17), PhysicsControl (15), TrafficLightTime (16) and
//! WalkerBones (19).

use std::borrow::Cow;

use logcore::cursor::Cursor;

use crate::error::Result;
use crate::layout::{Layout, Vec3, WheelRecord};
use crate::packet::RecordCodec;
use crate::wire::{Put, ReadFields, put_count_u16, put_count_u32};

/// Kinematics record: an actor's velocities.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Kinematics {
    /// Actor id.
    pub id: u32,
    /// Linear velocity, m/s.
    pub linear_velocity: Vec3,
    /// Angular velocity, deg/s.
    pub angular_velocity: Vec3,
}

impl RecordCodec<'_> for Kinematics {
    fn min_len(layout: &Layout) -> usize {
        4 + 2 * layout.vectors.vec3_len()
    }
    fn read(f: &mut Cursor<'_>, layout: &Layout) -> Result<Self> {
        Ok(Kinematics {
            id: f.u32("actor id")?,
            linear_velocity: f.vec3(layout.vectors, "linear velocity")?,
            angular_velocity: f.vec3(layout.vectors, "angular velocity")?,
        })
    }
    fn write(&self, out: &mut Vec<u8>, layout: &Layout) -> Result<()> {
        out.put_u32(self.id);
        out.put_vec3(self.linear_velocity, layout.vectors);
        out.put_vec3(self.angular_velocity, layout.vectors);
        Ok(())
    }
}

/// BoundingBox (id 13) and TriggerVolume (id 17) record: a box, cm.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BoundingBox {
    /// Actor id.
    pub id: u32,
    /// Box centre (local for BoundingBox, world for TriggerVolume).
    pub origin: Vec3,
    /// Half size.
    pub extent: Vec3,
}

impl RecordCodec<'_> for BoundingBox {
    fn min_len(layout: &Layout) -> usize {
        4 + 2 * layout.vectors.vec3_len()
    }
    fn read(f: &mut Cursor<'_>, layout: &Layout) -> Result<Self> {
        Ok(BoundingBox {
            id: f.u32("actor id")?,
            origin: f.vec3(layout.vectors, "origin")?,
            extent: f.vec3(layout.vectors, "extent")?,
        })
    }
    fn write(&self, out: &mut Vec<u8>, layout: &Layout) -> Result<()> {
        out.put_u32(self.id);
        out.put_vec3(self.origin, layout.vectors);
        out.put_vec3(self.extent, layout.vectors);
        Ok(())
    }
}

/// One forward gear of a PhysicsControl record.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Gear {
    /// Gear ratio.
    pub ratio: f32,
    /// Down-shift ratio.
    pub down_ratio: f32,
    /// Up-shift ratio.
    pub up_ratio: f32,
}

/// One wheel of a PhysicsControl record (36 or 48 bytes, see
/// [`WheelRecord`]).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Wheel {
    /// Tire friction.
    pub tire_friction: f32,
    /// Damping rate.
    pub damping_rate: f32,
    /// Maximum steering angle, degrees.
    pub max_steer_angle: f32,
    /// Radius, cm.
    pub radius: f32,
    /// Maximum brake torque.
    pub max_brake_torque: f32,
    /// Maximum handbrake torque.
    pub max_handbrake_torque: f32,
    /// `lat_stiff_max_load`, `lat_stiff_value`, `long_stiff_value`: only in
    /// 48-byte records (CARLA 0.9.12 and later).
    pub stiffness: Option<[f32; 3]>,
    /// Wheel position.
    pub position: [f32; 3],
}

/// PhysicsControl record: a vehicle's physics parameters.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PhysicsControl {
    /// Actor id.
    pub id: u32,
    /// Maximum engine RPM.
    pub max_rpm: f32,
    /// Engine moment of inertia.
    pub moi: f32,
    /// Damping rate at full throttle.
    pub damping_rate_full_throttle: f32,
    /// Damping rate at zero throttle, clutch engaged.
    pub damping_rate_zero_throttle_clutch_engaged: f32,
    /// Damping rate at zero throttle, clutch disengaged.
    pub damping_rate_zero_throttle_clutch_disengaged: f32,
    /// Automatic gear box.
    pub use_gear_autobox: bool,
    /// Clutch strength.
    pub clutch_strength: f32,
    /// Final ratio.
    pub final_ratio: f32,
    /// Mass, kg.
    pub mass: f32,
    /// Drag coefficient.
    pub drag_coefficient: f32,
    /// Centre of mass (always `f32`).
    pub center_of_mass: [f32; 3],
    /// Torque curve points (rpm, torque).
    pub torque_curve: Vec<[f32; 2]>,
    /// Forward gears.
    pub forward_gears: Vec<Gear>,
    /// Steering curve points (speed, steer factor).
    pub steering_curve: Vec<[f32; 2]>,
    /// Wheels.
    pub wheels: Vec<Wheel>,
}

fn read_points(f: &mut Cursor<'_>, field: &str) -> Result<Vec<[f32; 2]>> {
    let n = f.count_u32(field, 8)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(f.f32s::<2>(field)?);
    }
    Ok(v)
}

fn write_points(out: &mut Vec<u8>, points: &[[f32; 2]], what: &str) -> Result<()> {
    put_count_u32(out, points.len(), what)?;
    for [x, y] in points {
        out.put_f32(*x);
        out.put_f32(*y);
    }
    Ok(())
}

impl RecordCodec<'_> for PhysicsControl {
    fn min_len(_: &Layout) -> usize {
        4 + 5 * 4 + 1 + 4 * 4 + 12 + 4 * 4
    }
    fn read(f: &mut Cursor<'_>, layout: &Layout) -> Result<Self> {
        let id = f.u32("actor id")?;
        let [
            max_rpm,
            moi,
            damping_rate_full_throttle,
            damping_rate_zero_throttle_clutch_engaged,
            damping_rate_zero_throttle_clutch_disengaged,
        ] = f.f32s::<5>("engine parameters")?;
        let use_gear_autobox = f.bool("use_gear_autobox")?;
        let [clutch_strength, final_ratio, mass, drag_coefficient] =
            f.f32s::<4>("drive parameters")?;
        let center_of_mass = f.f32s::<3>("center of mass")?;
        let torque_curve = read_points(f, "torque curve")?;
        let n = f.count_u32("forward gear count", 12)?;
        let mut forward_gears = Vec::with_capacity(n);
        for _ in 0..n {
            let [ratio, down_ratio, up_ratio] = f.f32s::<3>("forward gear")?;
            forward_gears.push(Gear {
                ratio,
                down_ratio,
                up_ratio,
            });
        }
        let steering_curve = read_points(f, "steering curve")?;
        let n = f.count_u32("wheel count", layout.wheels.len())?;
        let mut wheels = Vec::with_capacity(n);
        for _ in 0..n {
            let [a, b, c, d, e, g] = f.f32s::<6>("wheel")?;
            let stiffness = match layout.wheels {
                WheelRecord::Wheel48 => Some(f.f32s::<3>("wheel stiffness")?),
                WheelRecord::Wheel36 => None,
            };
            wheels.push(Wheel {
                tire_friction: a,
                damping_rate: b,
                max_steer_angle: c,
                radius: d,
                max_brake_torque: e,
                max_handbrake_torque: g,
                stiffness,
                position: f.f32s::<3>("wheel position")?,
            });
        }
        Ok(PhysicsControl {
            id,
            max_rpm,
            moi,
            damping_rate_full_throttle,
            damping_rate_zero_throttle_clutch_engaged,
            damping_rate_zero_throttle_clutch_disengaged,
            use_gear_autobox,
            clutch_strength,
            final_ratio,
            mass,
            drag_coefficient,
            center_of_mass,
            torque_curve,
            forward_gears,
            steering_curve,
            wheels,
        })
    }
    fn write(&self, out: &mut Vec<u8>, layout: &Layout) -> Result<()> {
        out.put_u32(self.id);
        for v in [
            self.max_rpm,
            self.moi,
            self.damping_rate_full_throttle,
            self.damping_rate_zero_throttle_clutch_engaged,
            self.damping_rate_zero_throttle_clutch_disengaged,
        ] {
            out.put_f32(v);
        }
        out.put_bool(self.use_gear_autobox);
        for v in [
            self.clutch_strength,
            self.final_ratio,
            self.mass,
            self.drag_coefficient,
        ] {
            out.put_f32(v);
        }
        for v in self.center_of_mass {
            out.put_f32(v);
        }
        write_points(out, &self.torque_curve, "torque curve")?;
        put_count_u32(out, self.forward_gears.len(), "forward gear")?;
        for g in &self.forward_gears {
            out.put_f32(g.ratio);
            out.put_f32(g.down_ratio);
            out.put_f32(g.up_ratio);
        }
        write_points(out, &self.steering_curve, "steering curve")?;
        put_count_u32(out, self.wheels.len(), "wheel")?;
        for w in &self.wheels {
            for v in [
                w.tire_friction,
                w.damping_rate,
                w.max_steer_angle,
                w.radius,
                w.max_brake_torque,
                w.max_handbrake_torque,
            ] {
                out.put_f32(v);
            }
            if layout.wheels == WheelRecord::Wheel48 {
                for v in w.stiffness.unwrap_or_default() {
                    out.put_f32(v);
                }
            }
            for v in w.position {
                out.put_f32(v);
            }
        }
        Ok(())
    }
}

/// TrafficLightTime record: a light's phase durations, seconds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TrafficLightTime {
    /// Actor id.
    pub id: u32,
    /// Green time.
    pub green: f32,
    /// Yellow time.
    pub yellow: f32,
    /// Red time.
    pub red: f32,
}

impl RecordCodec<'_> for TrafficLightTime {
    fn min_len(_: &Layout) -> usize {
        16
    }
    fn read(f: &mut Cursor<'_>, _: &Layout) -> Result<Self> {
        let id = f.u32("actor id")?;
        let [green, yellow, red] = f.f32s::<3>("phase times")?;
        Ok(TrafficLightTime {
            id,
            green,
            yellow,
            red,
        })
    }
    fn write(&self, out: &mut Vec<u8>, _: &Layout) -> Result<()> {
        out.put_u32(self.id);
        out.put_f32(self.green);
        out.put_f32(self.yellow);
        out.put_f32(self.red);
        Ok(())
    }
}

/// One bone of a WalkerBones entry, relative to its parent bone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bone<'a> {
    /// Bone name.
    pub name: &'a [u8],
    /// Location.
    pub location: Vec3,
    /// Rotation (roll, pitch, yaw).
    pub rotation: Vec3,
}

impl<'a> Bone<'a> {
    /// The name as text.
    pub fn name_str(&self) -> Cow<'a, str> {
        String::from_utf8_lossy(self.name)
    }
}

/// WalkerBones entry: the skeleton pose of one walker.
#[derive(Debug, Clone, PartialEq)]
pub struct WalkerBones<'a> {
    /// Actor id.
    pub id: u32,
    /// Its bones.
    pub bones: Vec<Bone<'a>>,
}

impl<'a> RecordCodec<'a> for WalkerBones<'a> {
    fn min_len(_: &Layout) -> usize {
        6
    }
    fn read(f: &mut Cursor<'a>, layout: &Layout) -> Result<Self> {
        let id = f.u32("actor id")?;
        let n = f.count_u16("bone count", 2 + 2 * layout.vectors.vec3_len())?;
        let mut bones = Vec::with_capacity(n);
        for _ in 0..n {
            bones.push(Bone {
                name: f.bytes_u16("bone name")?,
                location: f.vec3(layout.vectors, "bone location")?,
                rotation: f.vec3(layout.vectors, "bone rotation")?,
            });
        }
        Ok(WalkerBones { id, bones })
    }
    fn write(&self, out: &mut Vec<u8>, layout: &Layout) -> Result<()> {
        out.put_u32(self.id);
        put_count_u16(out, self.bones.len(), "bone")?;
        for b in &self.bones {
            out.put_string(b.name)?;
            out.put_vec3(b.location, layout.vectors);
            out.put_vec3(b.rotation, layout.vectors);
        }
        Ok(())
    }
}
