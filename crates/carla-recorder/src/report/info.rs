//! The per-packet printer of `show_recorder_file_info` (spec §10.1).

use std::io::Write;

use super::{Clock, format_g, g32, io, vec};
use crate::error::Result;
use crate::packet::Packet;

/// CARLA's order of the vehicle light names (Interior before Fog) as
/// (bit, name).
const LIGHT_ORDER: [(u32, &str); 11] = [
    (0, "Position"),
    (1, "LowBeam"),
    (2, "HighBeam"),
    (3, "Brake"),
    (4, "RightBlinker"),
    (5, "LeftBlinker"),
    (6, "Reverse"),
    (8, "Interior"),
    (7, "Fog"),
    (9, "Special1"),
    (10, "Special2"),
];

const DOOR_TEXT: [&str; 7] = [
    " Front Left ",
    " Front Right ",
    " Rear Left ",
    " Rear Right ",
    " Hood ",
    " Trunk ",
    " All ",
];

fn frame_line(c: &Clock, printed: &mut bool, out: &mut dyn Write) -> std::io::Result<()> {
    if !*printed {
        *printed = true;
        writeln!(out, "Frame {} at {} seconds", c.id, format_g(c.elapsed))?;
    }
    Ok(())
}

/// Prints one packet. `printed`: whether the current frame's line is out.
pub(super) fn info_packet(
    p: &Packet<'_>,
    show_all: bool,
    clock: &mut Clock,
    printed: &mut bool,
    out: &mut dyn Write,
) -> Result<()> {
    print(p, show_all, clock, printed, out).map_err(io)
}

fn print(
    p: &Packet<'_>,
    show_all: bool,
    c: &mut Clock,
    printed: &mut bool,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    // Event packets print only when non-empty; show_all sections always.
    // Event packets print the frame line only when non-empty; show_all
    // sections print their title even when empty.
    let mut section = |n: usize, title: &str, out: &mut dyn Write, c: &Clock| {
        if n > 0 {
            frame_line(c, printed, out)?;
        }
        if !title.is_empty() {
            writeln!(out, " {title}: {n}")?;
        }
        Ok::<(), std::io::Error>(())
    };
    match p {
        Packet::FrameStart(s) => {
            c.id = s.id;
            c.elapsed = s.elapsed;
            c.duration = s.duration;
            *printed = false;
            if show_all {
                frame_line(c, printed, out)?;
            }
        }
        Packet::EventAdd(v) => {
            section(v.len(), "", out, c)?;
            for a in v {
                writeln!(
                    out,
                    " Create {}: {} ({}) at {}",
                    a.id,
                    a.description(),
                    a.type_code,
                    vec(a.location)
                )?;
                for at in &a.attributes {
                    writeln!(out, "  {} = {}", at.id_str(), at.value_str())?;
                }
            }
        }
        Packet::EventDel(v) => {
            section(v.len(), "", out, c)?;
            for d in v {
                writeln!(out, " Destroy {}", d.id)?;
            }
        }
        Packet::EventParent(v) => {
            section(v.len(), "", out, c)?;
            for e in v {
                writeln!(out, " Parenting {} with {} (parent)", e.id, e.parent)?;
            }
        }
        Packet::Collision(v) => {
            section(v.len(), "", out, c)?;
            for e in v {
                write!(out, " Collision id {} between {}", e.id, e.actor1)?;
                if e.is_hero1 {
                    write!(out, " (hero) ")?;
                }
                write!(out, " with {}", e.actor2)?;
                if e.is_hero2 {
                    write!(out, " (hero) ")?;
                }
                writeln!(out)?;
            }
        }
        _ if !show_all => {}
        Packet::Position(v) => {
            section(v.len(), "Positions", out, c)?;
            for r in v {
                writeln!(
                    out,
                    "  Id: {} Location: {} Rotation: {}",
                    r.id,
                    vec(r.location),
                    vec(r.rotation)
                )?;
            }
        }
        Packet::State(v) => {
            section(v.len(), "State traffic lights", out, c)?;
            for r in v {
                writeln!(
                    out,
                    "  Id: {} state: {} frozen: {} elapsedTime: {}",
                    r.id,
                    char::from(b'0'.wrapping_add(r.state)),
                    u8::from(r.frozen),
                    g32(r.elapsed)
                )?;
            }
        }
        Packet::AnimVehicle(v) => {
            section(v.len(), "Vehicle animations", out, c)?;
            for r in v {
                writeln!(
                    out,
                    "  Id: {} Steering: {} Throttle: {} Brake: {} Handbrake: {} Gear: {}",
                    r.id,
                    g32(r.steering),
                    g32(r.throttle),
                    g32(r.brake),
                    u8::from(r.handbrake),
                    r.gear
                )?;
            }
        }
        Packet::AnimWalker(v) => {
            section(v.len(), "Walker animations", out, c)?;
            for r in v {
                writeln!(out, "  Id: {} speed: {}", r.id, g32(r.speed))?;
            }
        }
        Packet::VehicleDoor(v) => {
            section(v.len(), "Vehicle door animations", out, c)?;
            for r in v {
                writeln!(out, "  Id: {}", r.id)?;
                write!(out, "  Doors opened: ")?;
                if let Some(t) = DOOR_TEXT.get(usize::from(r.door)) {
                    writeln!(out, "{t}")?;
                }
            }
        }
        Packet::VehicleLight(v) => {
            section(v.len(), "Vehicle light animations", out, c)?;
            for r in v {
                let names: Vec<&str> = LIGHT_ORDER
                    .iter()
                    .filter(|(bit, _)| r.state & (1 << bit) != 0)
                    .map(|(_, n)| *n)
                    .collect();
                let names = if names.is_empty() {
                    "None".to_string()
                } else {
                    names.join(" ")
                };
                writeln!(out, "  Id: {} {names}", r.id)?;
            }
        }
        Packet::SceneLight(v) => {
            section(v.len(), "Scene light changes", out, c)?;
            for r in v {
                writeln!(
                    out,
                    "  Id: {} enabled: {} intensity: {} RGB_color: ({}, {}, {})",
                    r.id,
                    if r.on { "True" } else { "False" },
                    g32(r.intensity),
                    g32(r.color[0]),
                    g32(r.color[1]),
                    g32(r.color[2])
                )?;
            }
        }
        Packet::Kinematics(v) => {
            section(v.len(), "Dynamic actors", out, c)?;
            for r in v {
                writeln!(
                    out,
                    "  Id: {} linear_velocity: {} angular_velocity: {}",
                    r.id,
                    vec(r.linear_velocity),
                    vec(r.angular_velocity)
                )?;
            }
        }
        Packet::BoundingBox(v) | Packet::TriggerVolume(v) => {
            let title = if matches!(p, Packet::BoundingBox(_)) {
                "Actor bounding boxes"
            } else {
                "Actor trigger volumes"
            };
            section(v.len(), title, out, c)?;
            for r in v {
                writeln!(
                    out,
                    "  Id: {} origin: {} extension: {}",
                    r.id,
                    vec(r.origin),
                    vec(r.extent)
                )?;
            }
        }
        Packet::PlatformTime(t) => {
            frame_line(c, printed, out)?;
            writeln!(out, " Current platform time: {}", format_g(*t))?;
        }
        Packet::PhysicsControl(v) => {
            section(v.len(), "Physics Control events", out, c)?;
            for r in v {
                physics(r, out)?;
            }
        }
        Packet::TrafficLightTime(v) => {
            section(v.len(), "Traffic Light time events", out, c)?;
            for r in v {
                writeln!(
                    out,
                    "  Id: {} green_time: {} yellow_time: {} red_time: {}",
                    r.id,
                    g32(r.green),
                    g32(r.yellow),
                    g32(r.red)
                )?;
            }
        }
        Packet::WalkerBones(v) => {
            section(v.len(), "Walkers Bones", out, c)?;
            for w in v {
                writeln!(out, "  Id: {}", w.id)?;
                for b in &w.bones {
                    writeln!(
                        out,
                        "     Bone: \"{}\" relative: Loc{} Rot{}",
                        b.name_str(),
                        vec(b.location),
                        vec(b.rotation)
                    )?;
                }
            }
            writeln!(out)?;
        }
        // Not printed by CARLA: VisualTime, FrameCounter, AnimVehicleWheels,
        // AnimBiker, unknown ids; FrameEnd prints nothing.
        _ => {}
    }
    Ok(())
}

/// CARLA's default `gear_switch_time`, printed because the file lacks it.
const GEAR_SWITCH_TIME: f32 = 0.5;

fn physics(r: &crate::PhysicsControl, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "  Id: {}", r.id)?;
    writeln!(out, "   max_rpm = {}", g32(r.max_rpm))?;
    writeln!(out, "   MOI = {}", g32(r.moi))?;
    writeln!(
        out,
        "   damping_rate_full_throttle = {}",
        g32(r.damping_rate_full_throttle)
    )?;
    writeln!(
        out,
        "   damping_rate_zero_throttle_clutch_engaged = {}",
        g32(r.damping_rate_zero_throttle_clutch_engaged)
    )?;
    writeln!(
        out,
        "   damping_rate_zero_throttle_clutch_disengaged = {}",
        g32(r.damping_rate_zero_throttle_clutch_disengaged)
    )?;
    writeln!(out, "   use_gear_auto_box = {}", r.use_gear_autobox)?;
    writeln!(out, "   gear_switch_time = {}", g32(GEAR_SWITCH_TIME))?;
    writeln!(out, "   clutch_strength = {}", g32(r.clutch_strength))?;
    writeln!(out, "   final_ratio = {}", g32(r.final_ratio))?;
    writeln!(out, "   mass = {}", g32(r.mass))?;
    writeln!(out, "   drag_coefficient = {}", g32(r.drag_coefficient))?;
    let [x, y, z] = r.center_of_mass;
    writeln!(
        out,
        "   center_of_mass = ({}, {}, {})",
        g32(x),
        g32(y),
        g32(z)
    )?;
    write!(out, "   torque_curve =")?;
    for [x, y] in &r.torque_curve {
        write!(out, " ({}, {})", g32(*x), g32(*y))?;
    }
    writeln!(out)?;
    write!(out, "   steering_curve =")?;
    for [x, y] in &r.steering_curve {
        write!(out, " ({}, {})", g32(*x), g32(*y))?;
    }
    writeln!(out)?;
    writeln!(out, "   forward_gears:")?;
    for (i, g) in r.forward_gears.iter().enumerate() {
        writeln!(
            out,
            "    gear {i}: ratio {} down_ratio {} up_ratio {}",
            g32(g.ratio),
            g32(g.down_ratio),
            g32(g.up_ratio)
        )?;
    }
    writeln!(out, "   wheels:")?;
    for (i, w) in r.wheels.iter().enumerate() {
        let [x, y, z] = w.position;
        writeln!(
            out,
            "    wheel {i}: tire_friction {} damping_rate {} max_steer_angle {} radius {} \
             max_brake_torque {} max_handbrake_torque {} position ({}, {}, {})",
            g32(w.tire_friction),
            g32(w.damping_rate),
            g32(w.max_steer_angle),
            g32(w.radius),
            g32(w.max_brake_torque),
            g32(w.max_handbrake_torque),
            g32(x),
            g32(y),
            g32(z)
        )?;
    }
    Ok(())
}
