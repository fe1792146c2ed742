//! The scene of a recording frame by frame: the actors alive, their kinds,
//! boxes and lights, and the positions and deletions of the current frame,
//! written as one `foxglove.SceneUpdate` and one `foxglove.FrameTransforms`
//! per frame.

use std::collections::{BTreeMap, HashMap};

use carla_recorder::{ActorType, BoundingBox, Packet, Vec3};
use logcore::{Error, Timestamp};

use super::WORLD;
use super::coords::{orientation, position, rotate};
use super::pieces::{Piece, same_vec, to_json};
use crate::convert::foxglove::{self, Cube};

/// An actor alive in the recording.
pub(super) struct Actor {
    /// What the actor is.
    kind: ActorType,
    /// Its blueprint id (`vehicle.tesla.model3`, ...).
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

    /// Whether the scene shows it (sensors and the spectator are left
    /// out).
    fn shown(&self) -> bool {
        self.kind != ActorType::Sensor && !self.description.starts_with("spectator")
    }

    /// Its colour (RGBA): by kind, a traffic light by its light.
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
pub(super) struct FrameScene {
    /// The frame's log time.
    pub(super) time: Timestamp,
    /// Actor id, location and rotation of every Position record.
    pub(super) positions: Vec<(u32, Vec3, Vec3)>,
    /// The actors removed in the frame.
    pub(super) deleted: Vec<u32>,
}

/// The actors alive and the frame being read.
pub(super) struct Scene {
    /// The actors alive, by id.
    pub(super) actors: BTreeMap<u32, Actor>,
    /// The frame being read, from its FrameStart on.
    pub(super) frame: Option<FrameScene>,
    /// The transform of every actor that had a position, for its last pose.
    pub(super) transforms: HashMap<u32, Piece>,
}

impl Scene {
    /// Takes in what the packet `p` of the current frame says about the
    /// scene (nothing before the first frame).
    pub(super) fn take(&mut self, p: &Packet<'_>) {
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
    pub(super) fn finish(
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

#[cfg(test)]
mod tests {
    use serde_json::{Value as Json, json};

    use super::*;

    impl Scene {
        /// An empty scene.
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
}
