//! Structure-aware CARLA recorder fuzzing: the fuzzer chooses the layout,
//! the map and ticks of typed packets (actors added with attributes,
//! removed, parented, collisions, positions, traffic lights, times, raw
//! packets of undefined ids); our `Writer` writes them (header, packet
//! sizes, back-patched durations right); then the chosen mutations damage
//! the file. Unmutated, the recording must read back frame by frame with
//! the packets written, and rewrite to the same bytes; mutated, every
//! reader must return normally.

#![no_main]

use arbitrary::Arbitrary;
use carla_recorder::{
    Attribute, Collision, EventAdd, EventDel, EventParent, InfoHeader, Layout, Packet, Position,
    Recording, TrafficLightState, Vec3, Writer, rewrite,
};
use libfuzzer_sys::fuzz_target;
use logcore::ReadMode;
use robolog_fuzz::{Mutation, mutate, read};

const LAYOUTS: [Layout; 4] = [
    Layout::CARLA_0_9_10,
    Layout::CARLA_0_9_13,
    Layout::CARLA_0_9_15,
    Layout::CARLA_0_10,
];

#[derive(Arbitrary, Debug)]
struct Input {
    layout: u8,
    date: i64,
    map: Vec<u8>,
    ticks: Vec<(u16, Vec<P>)>,
    mutations: Vec<Mutation>,
}

#[derive(Arbitrary, Debug)]
enum P {
    Add(u32, u8, [f32; 6], u32, Vec<u8>, Vec<(u8, Vec<u8>, Vec<u8>)>),
    Del(Vec<u32>),
    Parent(Vec<(u32, u32)>),
    Collision(Vec<(u32, u32, u32, bool, bool)>),
    Position(Vec<(u32, [f32; 6])>),
    State(Vec<(u32, bool, f32, u8)>),
    PlatformTime(f64),
    FrameCounter(u64),
    VisualTime(f64),
    Raw(u8, Vec<u8>),
}

fn vec3(v: &[f32]) -> Vec3 {
    Vec3 {
        x: f64::from(v[0]),
        y: f64::from(v[1]),
        z: f64::from(v[2]),
    }
}

fn packet(p: &P) -> Packet<'_> {
    match p {
        P::Add(id, type_code, lr, uid, description, attributes) => {
            Packet::EventAdd(vec![EventAdd {
                id: *id,
                type_code: *type_code,
                location: vec3(&lr[..3]),
                rotation: vec3(&lr[3..]),
                uid: *uid,
                description_id: description,
                attributes: attributes
                    .iter()
                    .map(|(type_code, id, value)| Attribute {
                        type_code: *type_code,
                        id,
                        value,
                    })
                    .collect(),
            }])
        }
        P::Del(ids) => Packet::EventDel(ids.iter().map(|&id| EventDel { id }).collect()),
        P::Parent(pairs) => Packet::EventParent(
            pairs
                .iter()
                .map(|&(id, parent)| EventParent { id, parent })
                .collect(),
        ),
        P::Collision(c) => Packet::Collision(
            c.iter()
                .map(|&(id, actor1, actor2, is_hero1, is_hero2)| Collision {
                    id,
                    actor1,
                    actor2,
                    is_hero1,
                    is_hero2,
                })
                .collect(),
        ),
        P::Position(p) => Packet::Position(
            p.iter()
                .map(|(id, lr)| Position {
                    id: *id,
                    location: vec3(&lr[..3]),
                    rotation: vec3(&lr[3..]),
                })
                .collect(),
        ),
        P::State(s) => Packet::State(
            s.iter()
                .map(|&(id, frozen, elapsed, state)| TrafficLightState {
                    id,
                    frozen,
                    elapsed,
                    state,
                })
                .collect(),
        ),
        P::PlatformTime(t) => Packet::PlatformTime(*t),
        P::FrameCounter(n) => Packet::FrameCounter(*n),
        P::VisualTime(t) => Packet::VisualTime(*t),
        P::Raw(id, payload) => Packet::Raw {
            id: 24 + id % 232,
            payload,
        },
    }
}

fuzz_target!(|input: Input| {
    let layout = LAYOUTS[usize::from(input.layout) % LAYOUTS.len()];
    let Ok(mut w) = Writer::with_layout(InfoHeader::new(input.date, &input.map), layout) else {
        return;
    };
    let mut elapsed = 0.0;
    let mut ids = Vec::new();
    for (step, packets) in &input.ticks {
        let packets: Vec<Packet<'_>> = packets.iter().map(packet).collect();
        if w.tick(elapsed, &packets).is_err() {
            return;
        }
        ids.push(packets.iter().map(Packet::id).collect::<Vec<u8>>());
        elapsed += f64::from(*step) / 1000.0;
    }
    let mut file = w.finish();
    if input.mutations.is_empty() {
        let rec = Recording::with_layout(&file, layout).expect("an unmutated recording opens");
        let mut read_ids = Vec::new();
        for mode in [ReadMode::Strict, ReadMode::Lenient] {
            read_ids.clear();
            for f in rec.frames_with(mode) {
                let f = f.expect("an unmutated recording reads cleanly");
                let mut frame = Vec::new();
                for p in f.decoded(&layout) {
                    frame.push(p.expect("every written packet decodes").id());
                }
                read_ids.push(frame);
            }
            assert_eq!(read_ids, ids, "{mode:?}");
        }
        assert_eq!(
            rewrite(&rec).expect("an unmutated recording rewrites"),
            file
        );
    }
    mutate(&mut file, &input.mutations);
    read::carla(&file);
});
