//! A CARLA recording cut by time into a recording.
//!
//! A recording is a header and frames (FrameStart, packets, FrameEnd),
//! one per server tick; a frame is kept whole when its time (its
//! FrameStart's elapsed seconds, the messages' log time) lies in the
//! range. What is written:
//!
//! - the info header as it is (version, date, map), so the kept frames
//!   keep their times and ids;
//! - each kept frame's packets byte for byte, except:
//!   - the first kept frame, which also holds what the frames before the
//!     cut set and a replayer needs from its first frame on: an EventAdd
//!     record (as first recorded: blueprint, attributes, spawn transform)
//!     for every actor alive at the cut, an EventParent record for each
//!     of those attached to another, and the last record before the cut
//!     of the packet kinds CARLA records on change or once (SceneLight,
//!     VehicleLight, VehicleDoor, PhysicsControl, TrafficLightTime,
//!     TriggerVolume) for each actor, light or door; these are merged
//!     into the frame's own packet of that kind (their records first), or
//!     make a packet of their own placed by packet id among the frame's;
//!   - the last kept frame, whose duration becomes −1.0 as CARLA leaves
//!     it in the last frame of a recording.
//!
//! Actors alive at the cut are those added before the first kept frame
//! and not deleted before it (an id deleted and added again is the
//! later actor). Their positions, states and animations come with the
//! first kept frame itself, which CARLA records for every actor in every
//! frame.

use std::collections::BTreeMap;
use std::io::Write;

use carla_recorder::{
    EventAdd, EventParent, Frame, LAST_FRAME_DURATION, Packet, PacketId, RawPacket, Recording,
    Writer,
};
use logcore::{Error, Timestamp};

use super::Tally;
use crate::Log;
use crate::convert::{Context, ConvertOptions};

/// A frame's time, as the recording's reader gives its messages.
fn frame_time(elapsed: f64) -> Timestamp {
    Timestamp::from_secs_f64(elapsed).unwrap_or(Timestamp::ZERO)
}

/// The packet kinds whose records stand until changed: the last record
/// of each id before the cut is carried into the first kept frame.
const LATCHED: [PacketId; 6] = [
    PacketId::SceneLight,
    PacketId::VehicleLight,
    PacketId::VehicleDoor,
    PacketId::PhysicsControl,
    PacketId::TrafficLightTime,
    PacketId::TriggerVolume,
];

/// What the frames before the cut leave standing.
#[derive(Default)]
struct Standing<'a> {
    /// Alive actors by id: their EventAdd record.
    actors: BTreeMap<u32, EventAdd<'a>>,
    /// Attached actors by id: their parent.
    parents: BTreeMap<u32, u32>,
    /// Per latched kind: the last record of each key, as a one-record
    /// packet (decoded), or the last packet kept whole (kinds read as raw
    /// bytes, such as PhysicsControl of the UE5 layout).
    latched: BTreeMap<u8, BTreeMap<(i64, u8), Packet<'a>>>,
}

impl<'a> Standing<'a> {
    /// Follows the packets of a frame before the cut.
    fn follow(&mut self, frame: &Frame<'a>, rec: &Recording<'a>) -> Result<(), Error> {
        let layout = rec.layout();
        for p in frame.packets() {
            let Some(kind) = p.kind() else { continue };
            let wanted = matches!(
                kind,
                PacketId::EventAdd | PacketId::EventDel | PacketId::EventParent
            ) || LATCHED.contains(&kind);
            if !wanted {
                continue;
            }
            match p.decode(&layout)? {
                Packet::EventAdd(adds) => {
                    for a in adds {
                        self.parents.remove(&a.id);
                        self.actors.insert(a.id, a);
                    }
                }
                Packet::EventDel(dels) => {
                    for d in dels {
                        self.actors.remove(&d.id);
                        self.parents.remove(&d.id);
                    }
                }
                Packet::EventParent(ps) => {
                    for e in ps {
                        self.parents.insert(e.id, e.parent);
                    }
                }
                other => {
                    let map = self.latched.entry(p.id).or_default();
                    for (key, one) in split(other) {
                        map.insert(key, one);
                    }
                }
            }
        }
        Ok(())
    }

    /// Drops the latched records of actors no longer alive (lights of
    /// the scene are not actors and stay).
    fn prune(&mut self) {
        for (id, map) in self.latched.iter_mut() {
            if *id == PacketId::SceneLight as u8 {
                continue;
            }
            map.retain(|&(k, _), _| {
                k < 0 || u32::try_from(k).is_ok_and(|k| self.actors.contains_key(&k))
            });
        }
    }
}

/// A packet of a latched kind as one-record packets by key (record id,
/// and door for VehicleDoor); a packet kept as bytes is one entry.
fn split(p: Packet<'_>) -> Vec<((i64, u8), Packet<'_>)> {
    match p {
        Packet::SceneLight(v) => v
            .into_iter()
            .map(|r| ((i64::from(r.id), 0), Packet::SceneLight(vec![r])))
            .collect(),
        Packet::VehicleLight(v) => v
            .into_iter()
            .map(|r| ((i64::from(r.id), 0), Packet::VehicleLight(vec![r])))
            .collect(),
        Packet::VehicleDoor(v) => v
            .into_iter()
            .map(|r| ((i64::from(r.id), r.door), Packet::VehicleDoor(vec![r])))
            .collect(),
        Packet::PhysicsControl(v) => v
            .into_iter()
            .map(|r| ((i64::from(r.id), 0), Packet::PhysicsControl(vec![r])))
            .collect(),
        Packet::TrafficLightTime(v) => v
            .into_iter()
            .map(|r| ((i64::from(r.id), 0), Packet::TrafficLightTime(vec![r])))
            .collect(),
        Packet::TriggerVolume(v) => v
            .into_iter()
            .map(|r| ((i64::from(r.id), 0), Packet::TriggerVolume(vec![r])))
            .collect(),
        // Kept as bytes: the whole packet stands (key -1: not an actor).
        raw => vec![((-1, 0), raw)],
    }
}

/// The one-record packets `parts` (of one kind) joined into one packet,
/// followed by the records of `own` (the frame's own packet of that
/// kind), or `None` when they do not join (bytes kept whole): then the
/// parts are written as packets of their own.
fn joined<'a>(parts: Vec<Packet<'a>>, own: Option<Packet<'a>>) -> Option<Packet<'a>> {
    macro_rules! join {
        ($variant:ident) => {{
            let mut all = Vec::new();
            for p in parts.into_iter().chain(own) {
                match p {
                    Packet::$variant(v) => all.extend(v),
                    _ => return None,
                }
            }
            Some(Packet::$variant(all))
        }};
    }
    let first = parts.first().or(own.as_ref())?;
    match first {
        Packet::EventAdd(_) => join!(EventAdd),
        Packet::EventParent(_) => join!(EventParent),
        Packet::SceneLight(_) => join!(SceneLight),
        Packet::VehicleLight(_) => join!(VehicleLight),
        Packet::VehicleDoor(_) => join!(VehicleDoor),
        Packet::PhysicsControl(_) => join!(PhysicsControl),
        Packet::TrafficLightTime(_) => join!(TrafficLightTime),
        Packet::TriggerVolume(_) => join!(TriggerVolume),
        _ => None,
    }
}

/// Writes the frames of `log` inside the options' time range into `out`
/// (see the module docs); counts the packets of each kind in `tally`.
pub(crate) fn write<W: Write>(
    log: &Log<'_>,
    mut out: W,
    opts: &ConvertOptions,
    cx: &mut Context<'_>,
    tally: &mut Tally,
) -> Result<W, Error> {
    let Some(rec) = log.as_carla() else {
        return Err(crate::convert::not_a("a CARLA recording", log));
    };
    let layout = rec.layout();
    let in_range =
        |t: Timestamp| opts.start.is_none_or(|s| t >= s) && opts.end.is_none_or(|e| t < e);
    let mut standing = Standing::default();
    let mut kept: Vec<Frame<'_>> = Vec::new();
    for f in rec.frames_with(logcore::ReadMode::Lenient) {
        let Some(f) = cx.passed(f) else {
            continue;
        };
        cx.tick(f.end);
        let keep = in_range(frame_time(f.start.elapsed));
        tally.count(PacketId::FrameStart.name(), keep, 24);
        for p in f.packets() {
            tally.count(
                &carla_recorder::packet_name(p.id),
                keep,
                p.payload.len() as u64,
            );
        }
        if keep {
            tally.kept_at(frame_time(f.start.elapsed), f.end.saturating_sub(f.offset));
            kept.push(f);
        } else if kept.is_empty() {
            standing.follow(&f, rec)?;
        }
    }
    standing.prune();
    cx.stats.channels = tally.written_topics();
    let mut w = Writer::with_layout(rec.header(), layout)?;
    let last = kept.len().saturating_sub(1);
    for (i, f) in kept.iter().enumerate() {
        let mut start = f.start;
        if i == last {
            start.duration = LAST_FRAME_DURATION;
        }
        if start == f.start {
            let at = f.offset as usize + 5;
            w.raw_packet(PacketId::FrameStart as u8, &rec.data()[at..at + 24])?;
        } else {
            w.packet(&Packet::FrameStart(start))?;
        }
        let packets = if i == 0 {
            first_frame(&mut w, f, std::mem::take(&mut standing), rec)?
        } else {
            for p in f.packets() {
                w.raw_packet(p.id, p.payload)?;
            }
            f.packet_count()
        };
        // The reader's messages: the FrameStart and the packets.
        cx.stats.messages += 1 + packets as u64;
        w.packet(&Packet::FrameEnd)?;
    }
    out.write_all(&w.finish())?;
    cx.report(cx.total_bytes);
    out.flush()?;
    Ok(out)
}

/// The packets of the first kept frame `f` with what stands at the cut
/// merged in (see the module docs); how many packets it wrote.
fn first_frame<'a>(
    w: &mut Writer,
    f: &Frame<'a>,
    standing: Standing<'a>,
    rec: &Recording<'a>,
) -> Result<usize, Error> {
    let layout = rec.layout();
    // Kind id -> the records to carry in, as one-record packets.
    let mut carry: BTreeMap<u8, Vec<Packet<'a>>> = BTreeMap::new();
    if !standing.actors.is_empty() {
        carry.insert(
            PacketId::EventAdd as u8,
            vec![Packet::EventAdd(standing.actors.into_values().collect())],
        );
    }
    let parents: Vec<EventParent> = standing
        .parents
        .into_iter()
        .map(|(id, parent)| EventParent { id, parent })
        .collect();
    if !parents.is_empty() {
        carry.insert(
            PacketId::EventParent as u8,
            vec![Packet::EventParent(parents)],
        );
    }
    for (id, map) in standing.latched {
        if !map.is_empty() {
            carry.insert(id, map.into_values().collect());
        }
    }
    let mut written = 0;
    for p in f.packets() {
        // Carried kinds of lower ids that this frame lacks come first.
        let before: Vec<u8> = carry.range(..p.id).map(|(&k, _)| k).collect();
        for k in before {
            if let Some(parts) = carry.remove(&k) {
                written += put_parts(w, parts, None)?;
            }
        }
        match carry.remove(&p.id) {
            Some(parts) => {
                let own = p.decode(&layout)?;
                written += put_parts(w, parts, Some((own, p)))?;
            }
            None => {
                w.raw_packet(p.id, p.payload)?;
                written += 1;
            }
        }
    }
    for (_, parts) in carry {
        written += put_parts(w, parts, None)?;
    }
    Ok(written)
}

/// Writes the carried one-record packets `parts` joined with the frame's
/// own packet of their kind when there is one; how many packets.
fn put_parts<'a>(
    w: &mut Writer,
    parts: Vec<Packet<'a>>,
    own: Option<(Packet<'a>, RawPacket<'a>)>,
) -> Result<usize, Error> {
    let own_packet = own.as_ref().map(|(p, _)| p.clone());
    if let Some(p) = joined(parts.clone(), own_packet) {
        w.packet(&p)?;
        return Ok(1);
    }
    for p in &parts {
        w.packet(p)?;
    }
    if let Some((_, raw)) = &own {
        w.raw_packet(raw.id, raw.payload)?;
    }
    Ok(parts.len() + usize::from(own.is_some()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use carla_recorder::{EventDel, InfoHeader, Position, Vec3, VehicleLight};

    fn add(id: u32) -> EventAdd<'static> {
        EventAdd {
            id,
            type_code: 1,
            location: Vec3::new(f64::from(id), 0.0, 0.0),
            rotation: Vec3::default(),
            uid: id,
            description_id: b"vehicle.test",
            attributes: vec![],
        }
    }

    #[test]
    fn the_first_kept_frame_adds_the_actors_alive_at_the_cut() {
        let mut w = Writer::new(InfoHeader::new(1_600_000_000, b"Town01")).unwrap();
        w.tick(0.0, &[Packet::EventAdd(vec![add(1), add(2), add(3)])])
            .unwrap();
        w.tick(
            0.1,
            &[
                Packet::EventDel(vec![EventDel { id: 2 }]),
                Packet::EventParent(vec![EventParent { id: 3, parent: 1 }]),
                Packet::VehicleLight(vec![VehicleLight { id: 1, state: 4 }]),
            ],
        )
        .unwrap();
        w.tick(
            0.2,
            &[
                Packet::EventAdd(vec![add(4)]),
                Packet::Position(vec![Position {
                    id: 1,
                    ..Default::default()
                }]),
            ],
        )
        .unwrap();
        w.tick(0.3, &[]).unwrap();
        let bytes = w.finish();
        let log = crate::open_bytes(&bytes).unwrap();
        let opts = ConvertOptions {
            start: Some(Timestamp::from_secs_f64(0.15).unwrap()),
            end: Some(Timestamp::from_secs_f64(0.25).unwrap()),
            ..ConvertOptions::default()
        };
        let mut progress = |_| {};
        let mut cx = Context::new(&log, &opts, &mut progress);
        let out = write(&log, Vec::new(), &opts, &mut cx, &mut Tally::default()).unwrap();
        let rec = Recording::new(&out).unwrap();
        let frames: Vec<_> = rec.frames().collect::<Result<_, _>>().unwrap();
        assert_eq!(frames.len(), 1);
        assert_eq!((frames[0].start.id, frames[0].start.elapsed), (3, 0.2));
        assert_eq!(frames[0].start.duration, LAST_FRAME_DURATION);
        let packets: Vec<Packet<'_>> = frames[0]
            .decoded(&rec.layout())
            .collect::<Result<_, _>>()
            .unwrap();
        let Packet::EventAdd(adds) = &packets[0] else {
            panic!("{packets:?}")
        };
        let ids: Vec<u32> = adds.iter().map(|a| a.id).collect();
        assert_eq!(ids, [1, 3, 4]);
        assert_eq!(adds[0], add(1));
        assert!(packets.contains(&Packet::EventParent(vec![EventParent { id: 3, parent: 1 }])));
        assert!(packets.contains(&Packet::VehicleLight(vec![VehicleLight {
            id: 1,
            state: 4
        }])));
        let kinds: Vec<u8> = packets.iter().map(Packet::id).collect();
        let mut sorted = kinds.clone();
        sorted.sort();
        assert_eq!(kinds, sorted, "packets in id order");
    }
}
