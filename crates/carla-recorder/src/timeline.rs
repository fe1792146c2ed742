//! Actors over time: who existed when, with what blueprint and attributes,
//! attached to whom, and where they were; and finding frames by time.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::event::ActorType;
use crate::layout::Vec3;
use crate::packet::{Packet, PacketId};
use crate::read::Recording;

/// One frame's place in the file and on the clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameEntry {
    /// Frame id from FrameStart.
    pub id: u64,
    /// Seconds since the first frame.
    pub elapsed: f64,
    /// Duration as stored (−1.0 in the last frame).
    pub stored_duration: f64,
    /// Offset of the FrameStart packet.
    pub offset: u64,
}

/// Every complete frame's id, time and offset, for lookups by time.
///
/// ```
/// use carla_recorder::{FrameIndex, InfoHeader, Recording, Writer};
/// let mut w = Writer::new(InfoHeader::new(0, b"Town01"))?;
/// for t in [0.0, 0.05, 0.1] { w.tick(t, &[])?; }
/// let bytes = w.finish();
/// let idx = FrameIndex::build(&Recording::new(&bytes)?)?;
/// assert_eq!(idx.at_time(0.07).unwrap().id, 2);
/// assert_eq!(idx.duration(0), Some(0.05));
/// assert_eq!(idx.duration(2), None); // the last frame has no successor
/// # Ok::<(), carla_recorder::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrameIndex {
    /// The frames in file order.
    pub frames: Vec<FrameEntry>,
}

impl FrameIndex {
    /// Reads every frame header (strict: the first error is returned).
    pub fn build(rec: &Recording<'_>) -> Result<Self> {
        let mut frames = Vec::new();
        for f in rec.frames() {
            let f = f?;
            frames.push(FrameEntry {
                id: f.start.id,
                elapsed: f.start.elapsed,
                stored_duration: f.start.duration,
                offset: f.offset,
            });
        }
        Ok(FrameIndex { frames })
    }

    /// Duration of frame `i` (position in file order) derived from elapsed
    /// times: `elapsed[i+1] - elapsed[i]`; `None` for the last frame.
    pub fn duration(&self, i: usize) -> Option<f64> {
        let a = self.frames.get(i)?;
        let b = self.frames.get(i + 1)?;
        Some(b.elapsed - a.elapsed)
    }

    /// The frame shown at `seconds`: the last frame whose elapsed time is
    /// at or before it (binary search; elapsed times grow).
    pub fn at_time(&self, seconds: f64) -> Option<&FrameEntry> {
        let n = self.frames.partition_point(|f| f.elapsed <= seconds);
        n.checked_sub(1).and_then(|i| self.frames.get(i))
    }

    /// The frame with id `id`.
    pub fn by_id(&self, id: u64) -> Option<&FrameEntry> {
        let i = self.frames.partition_point(|f| f.id < id);
        self.frames.get(i).filter(|f| f.id == id)
    }
}

/// One actor's life in the recording.
#[derive(Debug, Clone, PartialEq)]
pub struct Actor {
    /// Actor id.
    pub id: u32,
    /// Actor type.
    pub actor_type: ActorType,
    /// Blueprint id, e.g. `vehicle.lincoln.mkz_2017`.
    pub blueprint: String,
    /// Blueprint attributes (id, value) in stored order.
    pub attributes: Vec<(String, String)>,
    /// Spawn location, cm.
    pub spawn_location: Vec3,
    /// Spawn rotation (roll, pitch, yaw).
    pub spawn_rotation: Vec3,
    /// Frame id of its EventAdd.
    pub added_frame: u64,
    /// Elapsed seconds at its EventAdd.
    pub added_time: f64,
    /// Frame id of its EventDel, if it was destroyed.
    pub removed_frame: Option<u64>,
    /// Elapsed seconds at its EventDel.
    pub removed_time: Option<f64>,
    /// The actor it was last attached to.
    pub parent: Option<u32>,
}

impl Actor {
    /// The value of attribute `id`.
    pub fn attribute(&self, id: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(k, _)| k == id)
            .map(|(_, v)| v.as_str())
    }

    /// Whether `role_name` is `hero`.
    pub fn is_hero(&self) -> bool {
        self.attribute("role_name") == Some("hero")
    }
}

/// One pose of an actor's trajectory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    /// Frame id.
    pub frame: u64,
    /// Elapsed seconds.
    pub elapsed: f64,
    /// Location, cm.
    pub location: Vec3,
    /// Rotation (roll, pitch, yaw).
    pub rotation: Vec3,
}

/// Every actor of a recording (a re-used id gives a second [`Actor`]).
///
/// ```
/// use carla_recorder::{EventAdd, EventDel, InfoHeader, Packet, Position, Recording, Timeline, Vec3, Writer};
/// let add = EventAdd { id: 5, type_code: 2, location: Vec3::default(), rotation: Vec3::default(),
///     uid: 1, description_id: b"walker.pedestrian.0001", attributes: vec![] };
/// let mut w = Writer::new(InfoHeader::new(0, b"Town01"))?;
/// w.tick(0.0, &[Packet::EventAdd(vec![add])])?;
/// w.tick(0.1, &[Packet::Position(vec![Position { id: 5, location: Vec3::new(1.0, 0.0, 0.0), ..Default::default() }])])?;
/// w.tick(0.2, &[Packet::EventDel(vec![EventDel { id: 5 }])])?;
/// let bytes = w.finish();
/// let rec = Recording::new(&bytes)?;
/// let tl = Timeline::build(&rec)?;
/// let a = tl.actor(5).unwrap();
/// assert_eq!((a.blueprint.as_str(), a.added_frame, a.removed_frame), ("walker.pedestrian.0001", 1, Some(3)));
/// assert_eq!(tl.alive_at(0.15).len(), 1);
/// assert_eq!(tl.trajectory(&rec, 5)?[0].location.x, 1.0);
/// # Ok::<(), carla_recorder::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    /// Actors in order of their EventAdd.
    pub actors: Vec<Actor>,
    /// The frames.
    pub frames: FrameIndex,
    by_id: BTreeMap<u32, Vec<usize>>,
}

impl Timeline {
    /// Reads the events of every frame (strict).
    pub fn build(rec: &Recording<'_>) -> Result<Self> {
        let layout = rec.layout();
        let mut tl = Timeline::default();
        for f in rec.frames() {
            let f = f?;
            tl.frames.frames.push(FrameEntry {
                id: f.start.id,
                elapsed: f.start.elapsed,
                stored_duration: f.start.duration,
                offset: f.offset,
            });
            for p in f.packets() {
                let wanted = matches!(
                    p.kind(),
                    Some(PacketId::EventAdd | PacketId::EventDel | PacketId::EventParent)
                );
                if !wanted {
                    continue;
                }
                match p.decode(&layout)? {
                    Packet::EventAdd(adds) => {
                        for a in adds {
                            let i = tl.actors.len();
                            tl.actors.push(Actor {
                                id: a.id,
                                actor_type: a.actor_type(),
                                blueprint: a.description().into_owned(),
                                attributes: a
                                    .attributes
                                    .iter()
                                    .map(|x| (x.id_str().into_owned(), x.value_str().into_owned()))
                                    .collect(),
                                spawn_location: a.location,
                                spawn_rotation: a.rotation,
                                added_frame: f.start.id,
                                added_time: f.start.elapsed,
                                removed_frame: None,
                                removed_time: None,
                                parent: None,
                            });
                            tl.by_id.entry(a.id).or_default().push(i);
                        }
                    }
                    Packet::EventDel(dels) => {
                        for d in dels {
                            if let Some(a) = tl.current_mut(d.id) {
                                a.removed_frame = Some(f.start.id);
                                a.removed_time = Some(f.start.elapsed);
                            }
                        }
                    }
                    Packet::EventParent(ps) => {
                        for p in ps {
                            if let Some(a) = tl.current_mut(p.id) {
                                a.parent = Some(p.parent);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(tl)
    }

    fn current_mut(&mut self, id: u32) -> Option<&mut Actor> {
        let i = *self.by_id.get(&id)?.last()?;
        self.actors.get_mut(i)
    }

    /// The latest actor with `id`.
    pub fn actor(&self, id: u32) -> Option<&Actor> {
        let i = *self.by_id.get(&id)?.last()?;
        self.actors.get(i)
    }

    /// Actors alive at `seconds` (added at or before, not yet removed).
    pub fn alive_at(&self, seconds: f64) -> Vec<&Actor> {
        self.actors
            .iter()
            .filter(|a| a.added_time <= seconds && a.removed_time.is_none_or(|r| r > seconds))
            .collect()
    }

    /// Actors of one type.
    pub fn of_type(&self, t: ActorType) -> impl Iterator<Item = &Actor> {
        self.actors.iter().filter(move |a| a.actor_type == t)
    }

    /// The Position records of actor `id`, in frame order (reads the file
    /// again; only Position packets are decoded).
    pub fn trajectory(&self, rec: &Recording<'_>, id: u32) -> Result<Vec<Pose>> {
        let layout = rec.layout();
        let mut out = Vec::new();
        for f in rec.frames() {
            let f = f?;
            for p in f.packets().filter(|p| p.kind() == Some(PacketId::Position)) {
                if let Packet::Position(v) = p.decode(&layout)? {
                    out.extend(v.iter().filter(|r| r.id == id).map(|r| Pose {
                        frame: f.start.id,
                        elapsed: f.start.elapsed,
                        location: r.location,
                        rotation: r.rotation,
                    }));
                }
            }
        }
        if out.is_empty() && self.actor(id).is_none() {
            return Err(Error::InvalidArgument(format!(
                "actor {id} does not occur in this recording"
            )));
        }
        Ok(out)
    }
}
