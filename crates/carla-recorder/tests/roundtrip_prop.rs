//! Properties of write-then-read for any recording: read(write(x)) == x
//! (frames, packets decoded to what was written, and `rewrite` giving the
//! same bytes) in every layout, and every prefix of a written file reads
//! back exactly the frames that end before the cut.
//!
//! Truncation semantics: a cut inside the info header is an error when
//! opening; a later cut opens, and the frame iterator yields every frame
//! whose FrameEnd packet is complete, then one truncation error unless the
//! cut falls on a frame boundary.

use carla_recorder::{
    Collision, EventDel, EventParent, Frame, InfoHeader, Layout, Packet, Position, ReadMode,
    Recording, TrafficLightState, Vec3, Writer, rewrite,
};
use proptest::prelude::*;

const LAYOUTS: [Layout; 4] = [
    Layout::CARLA_0_9_10,
    Layout::CARLA_0_9_13,
    Layout::CARLA_0_9_15,
    Layout::CARLA_0_10,
];

/// Vectors of small integers, which every layout's float width holds
/// exactly.
fn vec3() -> impl Strategy<Value = Vec3> {
    (-1000i16..1000, -1000i16..1000, -1000i16..1000).prop_map(|(x, y, z)| Vec3 {
        x: f64::from(x),
        y: f64::from(y),
        z: f64::from(z),
    })
}

fn packet() -> impl Strategy<Value = Packet<'static>> {
    prop_oneof![
        prop::collection::vec(any::<u32>(), 0..4)
            .prop_map(|ids| Packet::EventDel(ids.into_iter().map(|id| EventDel { id }).collect())),
        prop::collection::vec((any::<u32>(), any::<u32>()), 0..4).prop_map(|v| {
            Packet::EventParent(
                v.into_iter()
                    .map(|(id, parent)| EventParent { id, parent })
                    .collect(),
            )
        }),
        prop::collection::vec(
            (
                any::<u32>(),
                any::<u32>(),
                any::<u32>(),
                any::<bool>(),
                any::<bool>()
            ),
            0..3
        )
        .prop_map(|v| Packet::Collision(
            v.into_iter()
                .map(|(id, actor1, actor2, is_hero1, is_hero2)| {
                    Collision {
                        id,
                        actor1,
                        actor2,
                        is_hero1,
                        is_hero2,
                    }
                })
                .collect()
        )),
        prop::collection::vec((any::<u32>(), vec3(), vec3()), 0..3).prop_map(|v| {
            Packet::Position(
                v.into_iter()
                    .map(|(id, location, rotation)| Position {
                        id,
                        location,
                        rotation,
                    })
                    .collect(),
            )
        }),
        prop::collection::vec((any::<u32>(), any::<bool>(), -100i16..100, 0..4u8), 0..3).prop_map(
            |v| {
                Packet::State(
                    v.into_iter()
                        .map(|(id, frozen, e, state)| TrafficLightState {
                            id,
                            frozen,
                            elapsed: f32::from(e) / 4.0,
                            state,
                        })
                        .collect(),
                )
            }
        ),
        (0..1_000_000u32).prop_map(|t| Packet::PlatformTime(f64::from(t) / 8.0)),
    ]
}

fn ticks() -> impl Strategy<Value = Vec<(u16, Vec<Packet<'static>>)>> {
    prop::collection::vec((1..100u16, prop::collection::vec(packet(), 0..4)), 0..8)
}

fn write(layout: Layout, ticks: &[(u16, Vec<Packet<'static>>)]) -> Vec<u8> {
    let mut w = Writer::with_layout(InfoHeader::new(1_700_000_000, b"Town10HD"), layout).unwrap();
    let mut elapsed = 0.0;
    for (step, packets) in ticks {
        w.tick(elapsed, packets).unwrap();
        elapsed += f64::from(*step) / 64.0;
    }
    w.finish()
}

/// Every frame's packets between FrameStart and FrameEnd, decoded.
fn decoded(rec: &Recording<'_>, frames: &[Frame<'_>]) -> Vec<Vec<Packet<'static>>> {
    let layout = rec.layout();
    frames
        .iter()
        .map(|f| {
            f.decoded(&layout)
                .map(|p| p.unwrap())
                .filter(|p| !matches!(p, Packet::FrameStart(_) | Packet::FrameEnd))
                .map(|p| match p {
                    Packet::EventDel(v) => Packet::EventDel(v),
                    Packet::EventParent(v) => Packet::EventParent(v),
                    Packet::Collision(v) => Packet::Collision(v),
                    Packet::Position(v) => Packet::Position(v),
                    Packet::State(v) => Packet::State(v),
                    Packet::PlatformTime(t) => Packet::PlatformTime(t),
                    other => panic!("not written: {other:?}"),
                })
                .collect()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn read_of_write_is_identity(ticks in ticks(), layout in 0..4usize) {
        let layout = LAYOUTS[layout];
        let file = write(layout, &ticks);
        let rec = Recording::with_layout(&file, layout).unwrap();
        let frames: Vec<Frame<'_>> = rec.frames().map(|f| f.unwrap()).collect();
        let written: Vec<Vec<Packet<'static>>> = ticks.iter().map(|t| t.1.clone()).collect();
        prop_assert_eq!(decoded(&rec, &frames), written);
        let elapsed: Vec<f64> = frames.iter().map(|f| f.start.elapsed).collect();
        let mut t = 0.0;
        let expected: Vec<f64> = ticks.iter().map(|(step, _)| {
            let e = t;
            t += f64::from(*step) / 64.0;
            e
        }).collect();
        prop_assert_eq!(elapsed, expected);
        prop_assert_eq!(rewrite(&rec).unwrap(), file);
    }

    #[test]
    fn every_prefix_reads_the_frames_before_the_cut(ticks in ticks(), layout in 0..4usize) {
        let layout = LAYOUTS[layout];
        let file = write(layout, &ticks);
        let full = Recording::with_layout(&file, layout).unwrap();
        let frames: Vec<Frame<'_>> = full.frames().map(|f| f.unwrap()).collect();
        let ends: Vec<u64> = frames.iter().map(|f| f.end).collect();
        let header_len = full.first_packet_offset() as usize;
        for cut in 0..=file.len() {
            let Ok(rec) = Recording::with_layout(&file[..cut], layout) else {
                prop_assert!(cut < header_len, "cut {}", cut);
                continue;
            };
            prop_assert!(cut >= header_len, "cut {}", cut);
            let complete = ends.iter().filter(|&&e| e <= cut as u64).count();
            let boundary = cut == header_len || ends.contains(&(cut as u64));
            for mode in [ReadMode::Strict, ReadMode::Lenient] {
                let (mut good, mut errors) = (Vec::new(), 0);
                for f in rec.frames_with(mode) {
                    match f {
                        Ok(f) if errors == 0 => good.push(f),
                        _ => errors += 1,
                    }
                }
                prop_assert_eq!(&good[..], &frames[..complete], "cut {} {:?}", cut, mode);
                prop_assert_eq!(errors, usize::from(!boundary), "cut {} {:?}", cut, mode);
            }
        }
    }
}
