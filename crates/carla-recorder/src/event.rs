//! Event packets: EventAdd (id 2), EventDel (3), EventParent (4) and
//! Collision (5) (spec §5), and the actor type enumeration (§7.1).

use std::borrow::Cow;

use logcore::cursor::Cursor;

use crate::error::Result;
use crate::layout::{AttributeCoding, AttributeType, Layout, Vec3};
use crate::packet::RecordCodec;
use crate::wire::{Put, ReadFields, put_count_u16};

/// Actor id CARLA uses in Collision records for "not a CARLA actor".
pub const NO_ACTOR: u32 = u32::MAX;

/// The actor type stored in EventAdd (spec §7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActorType {
    /// Spectator, static props (and sensors in 0.9.10-era files).
    Other,
    /// A vehicle.
    Vehicle,
    /// A pedestrian.
    Walker,
    /// A traffic light.
    TrafficLight,
    /// A traffic sign (stop, yield, speed limit, ...).
    TrafficSign,
    /// A sensor (0.9.13-era files and later).
    Sensor,
    /// CARLA's INVALID marker.
    Invalid,
    /// A value CARLA does not define.
    Unknown(u8),
}

impl ActorType {
    /// The meaning of a stored type byte.
    ///
    /// ```
    /// use carla_recorder::ActorType;
    /// assert_eq!(ActorType::from_u8(5), ActorType::Sensor);
    /// assert_eq!(ActorType::from_u8(9).to_u8(), 9);
    /// ```
    pub const fn from_u8(v: u8) -> Self {
        match v {
            0 => ActorType::Other,
            1 => ActorType::Vehicle,
            2 => ActorType::Walker,
            3 => ActorType::TrafficLight,
            4 => ActorType::TrafficSign,
            5 => ActorType::Sensor,
            6 => ActorType::Invalid,
            other => ActorType::Unknown(other),
        }
    }

    /// The stored byte.
    pub const fn to_u8(self) -> u8 {
        match self {
            ActorType::Other => 0,
            ActorType::Vehicle => 1,
            ActorType::Walker => 2,
            ActorType::TrafficLight => 3,
            ActorType::TrafficSign => 4,
            ActorType::Sensor => 5,
            ActorType::Invalid => 6,
            ActorType::Unknown(v) => v,
        }
    }

    /// Lower-case name.
    pub const fn name(self) -> &'static str {
        match self {
            ActorType::Other => "other",
            ActorType::Vehicle => "vehicle",
            ActorType::Walker => "walker",
            ActorType::TrafficLight => "traffic_light",
            ActorType::TrafficSign => "traffic_sign",
            ActorType::Sensor => "sensor",
            ActorType::Invalid => "invalid",
            ActorType::Unknown(_) => "unknown",
        }
    }
}

/// One attribute of an added actor: a type code and two strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribute<'a> {
    /// The raw type code; its meaning depends on the generation (see
    /// [`Attribute::kind`]).
    pub type_code: u8,
    /// The attribute id, e.g. `role_name`.
    pub id: &'a [u8],
    /// The value, always text, e.g. `hero`.
    pub value: &'a [u8],
}

impl<'a> Attribute<'a> {
    /// The id as text.
    pub fn id_str(&self) -> Cow<'a, str> {
        String::from_utf8_lossy(self.id)
    }
    /// The value as text.
    pub fn value_str(&self) -> Cow<'a, str> {
        String::from_utf8_lossy(self.value)
    }
    /// The type in `coding`.
    pub fn kind(&self, coding: AttributeCoding) -> Option<AttributeType> {
        coding.decode(self.type_code)
    }
}

/// EventAdd record: an actor appeared (or existed when recording started).
#[derive(Debug, Clone, PartialEq)]
pub struct EventAdd<'a> {
    /// Actor id.
    pub id: u32,
    /// Raw actor type (see [`EventAdd::actor_type`]).
    pub type_code: u8,
    /// Spawn location, cm.
    pub location: Vec3,
    /// Spawn rotation (roll, pitch, yaw), degrees.
    pub rotation: Vec3,
    /// Numeric id of the actor definition.
    pub uid: u32,
    /// Blueprint id, e.g. `vehicle.lincoln.mkz_2017`.
    pub description_id: &'a [u8],
    /// Blueprint attributes in stored order.
    pub attributes: Vec<Attribute<'a>>,
}

impl<'a> EventAdd<'a> {
    /// The actor type.
    pub fn actor_type(&self) -> ActorType {
        ActorType::from_u8(self.type_code)
    }
    /// The blueprint id as text.
    pub fn description(&self) -> Cow<'a, str> {
        String::from_utf8_lossy(self.description_id)
    }
    /// The value of attribute `id`, if present.
    pub fn attribute(&self, id: &str) -> Option<Cow<'a, str>> {
        self.attributes
            .iter()
            .find(|a| a.id == id.as_bytes())
            .map(|a| a.value_str())
    }
}

impl<'a> RecordCodec<'a> for EventAdd<'a> {
    fn min_len(layout: &Layout) -> usize {
        4 + 1 + 2 * layout.vectors.vec3_len() + 4 + 2 + 2
    }
    fn read(f: &mut Cursor<'a>, layout: &Layout) -> Result<Self> {
        let id = f.u32("actor id")?;
        let type_code = f.u8("actor type")?;
        let location = f.vec3(layout.vectors, "location")?;
        let rotation = f.vec3(layout.vectors, "rotation")?;
        let uid = f.u32("description uid")?;
        let description_id = f.bytes_u16("description id")?;
        let n = f.count_u16("attribute count", 5)?;
        let mut attributes = Vec::with_capacity(n);
        for _ in 0..n {
            attributes.push(Attribute {
                type_code: f.u8("attribute type")?,
                id: f.bytes_u16("attribute id")?,
                value: f.bytes_u16("attribute value")?,
            });
        }
        Ok(EventAdd {
            id,
            type_code,
            location,
            rotation,
            uid,
            description_id,
            attributes,
        })
    }
    fn write(&self, out: &mut Vec<u8>, layout: &Layout) -> Result<()> {
        out.put_u32(self.id);
        out.put_u8(self.type_code);
        out.put_vec3(self.location, layout.vectors);
        out.put_vec3(self.rotation, layout.vectors);
        out.put_u32(self.uid);
        out.put_string(self.description_id)?;
        put_count_u16(out, self.attributes.len(), "attribute")?;
        for a in &self.attributes {
            out.put_u8(a.type_code);
            out.put_string(a.id)?;
            out.put_string(a.value)?;
        }
        Ok(())
    }
}

/// EventDel record: an actor was destroyed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventDel {
    /// Actor id.
    pub id: u32,
}

impl RecordCodec<'_> for EventDel {
    fn min_len(_: &Layout) -> usize {
        4
    }
    fn read(f: &mut Cursor<'_>, _: &Layout) -> Result<Self> {
        Ok(EventDel {
            id: f.u32("actor id")?,
        })
    }
    fn write(&self, out: &mut Vec<u8>, _: &Layout) -> Result<()> {
        out.put_u32(self.id);
        Ok(())
    }
}

/// EventParent record: an actor was attached to another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventParent {
    /// The child actor.
    pub id: u32,
    /// The parent actor.
    pub parent: u32,
}

impl RecordCodec<'_> for EventParent {
    fn min_len(_: &Layout) -> usize {
        8
    }
    fn read(f: &mut Cursor<'_>, _: &Layout) -> Result<Self> {
        Ok(EventParent {
            id: f.u32("child id")?,
            parent: f.u32("parent id")?,
        })
    }
    fn write(&self, out: &mut Vec<u8>, _: &Layout) -> Result<()> {
        out.put_u32(self.id);
        out.put_u32(self.parent);
        Ok(())
    }
}

/// Collision record, reported by collision sensors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Collision {
    /// Running collision counter.
    pub id: u32,
    /// The sensor's parent ([`NO_ACTOR`] if not a CARLA actor).
    pub actor1: u32,
    /// The other actor ([`NO_ACTOR`] if not a CARLA actor).
    pub actor2: u32,
    /// Actor 1's `role_name` is `hero`.
    pub is_hero1: bool,
    /// Actor 2's `role_name` is `hero`.
    pub is_hero2: bool,
}

impl RecordCodec<'_> for Collision {
    fn min_len(_: &Layout) -> usize {
        14
    }
    fn read(f: &mut Cursor<'_>, _: &Layout) -> Result<Self> {
        Ok(Collision {
            id: f.u32("collision id")?,
            actor1: f.u32("actor 1 id")?,
            actor2: f.u32("actor 2 id")?,
            is_hero1: f.bool("actor 1 hero flag")?,
            is_hero2: f.bool("actor 2 hero flag")?,
        })
    }
    fn write(&self, out: &mut Vec<u8>, _: &Layout) -> Result<()> {
        out.put_u32(self.id);
        out.put_u32(self.actor1);
        out.put_u32(self.actor2);
        out.put_bool(self.is_hero1);
        out.put_bool(self.is_hero2);
        Ok(())
    }
}
