//! Writing then reading gives back every record; rewriting gives back every
//! byte; the layout generation is detected from the file alone.

mod common;

use carla_recorder::*;
use common::*;

#[test]
fn every_packet_kind_round_trips_in_every_layout() {
    for layout in LAYOUTS {
        let bytes = sample(layout);
        let rec = Recording::new(&bytes).unwrap();
        assert_eq!(rec.layout(), layout, "detected layout");
        assert_eq!(rec.header().date, DATE);
        assert_eq!(rec.header().map_name(), "Town10HD_Opt");
        let frames: Vec<Frame<'_>> = rec.frames().collect::<Result<_>>().unwrap();
        assert_eq!(frames.len() as u64, FRAMES);
        for (i, f) in frames.iter().enumerate() {
            let n = i as u64 + 1;
            assert_eq!(f.start.id, n);
            assert_eq!(f.start.elapsed, i as f64 * 0.05);
            let want_duration = if n == FRAMES {
                -1.0
            } else {
                0.05 * (i + 1) as f64 - 0.05 * i as f64
            };
            assert_eq!(f.start.duration, want_duration, "frame {n}");
            let got: Vec<Packet<'_>> = f.decoded(&layout).collect::<Result<_>>().unwrap();
            let want = frame_packets(n, &layout);
            if layout.vectors == VectorWidth::F64 {
                assert!(!got.iter().any(|p| matches!(p, Packet::PhysicsControl(_))));
            }
            assert_eq!(got, want, "frame {n} in {layout:?}");
        }
        assert_eq!(rewrite(&rec).unwrap(), bytes, "rewrite in {layout:?}");
    }
}

#[test]
fn every_packet_id_is_present_and_typed() {
    let bytes = sample(Layout::default());
    let rec = Recording::new(&bytes).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for p in rec.packets() {
        let p = p.unwrap();
        seen.insert(p.id);
        let d = p.decode(&rec.layout()).unwrap();
        assert_eq!(d.id(), p.id);
        assert_eq!(matches!(d, Packet::Raw { .. }), p.id == 139);
    }
    let want: std::collections::BTreeSet<u8> = (0..=23).chain([139]).collect();
    assert_eq!(seen, want);
}

#[test]
fn wheel_record_size_follows_the_file() {
    let old = sample(Layout::CARLA_0_9_10);
    let new = sample(Layout::CARLA_0_9_13);
    let find = |bytes: &[u8]| -> usize {
        let rec = Recording::new(bytes).unwrap();
        rec.packets()
            .map(Result::unwrap)
            .find(|p| p.kind() == Some(PacketId::PhysicsControl))
            .unwrap()
            .payload
            .len()
    };
    assert_eq!(
        find(&new) - find(&old),
        4 * 12,
        "4 wheels, 12 bytes of stiffness each"
    );
    // Reading a 36-byte-wheel file with the newer layout still decodes it
    // (the size that consumes the packet exactly wins).
    let rec = Recording::with_layout(&old, Layout::CARLA_0_9_13).unwrap();
    let pc = rec
        .packets()
        .map(Result::unwrap)
        .find(|p| p.kind() == Some(PacketId::PhysicsControl))
        .unwrap();
    match pc.decode(&rec.layout()).unwrap() {
        Packet::PhysicsControl(v) => assert_eq!(v[0].wheels[3].stiffness, None),
        other => panic!("{other:?}"),
    }
}

#[test]
fn f64_vectors_make_52_byte_positions() {
    let bytes = sample(Layout::CARLA_0_10);
    let rec = Recording::new(&bytes).unwrap();
    let p = rec
        .packets()
        .map(Result::unwrap)
        .find(|p| p.kind() == Some(PacketId::Position))
        .unwrap();
    assert_eq!(p.payload.len(), 2 + 2 * 52);
}

#[test]
fn attribute_codes_are_interpreted_by_generation() {
    for (layout, rgb) in [(Layout::CARLA_0_9_13, 4u8), (Layout::CARLA_0_9_15, 5)] {
        let bytes = sample(layout);
        let rec = Recording::new(&bytes).unwrap();
        let f = rec.frames().next().unwrap().unwrap();
        let Packet::EventAdd(adds) = f
            .packet(PacketId::EventAdd)
            .unwrap()
            .decode(&rec.layout())
            .unwrap()
        else {
            panic!()
        };
        let color = &adds[0].attributes[1];
        assert_eq!(color.type_code, rgb);
        assert_eq!(
            color.kind(rec.layout().attributes),
            Some(AttributeType::RgbColor)
        );
        assert_eq!(adds[0].attribute("role_name").as_deref(), Some("hero"));
    }
}

#[test]
fn writer_refuses_what_the_format_cannot_hold() {
    let mut w = Writer::new(InfoHeader::new(0, b"x")).unwrap();
    let before = w.bytes().len();
    let big = vec![EventDel { id: 1 }; 70_000];
    assert!(matches!(
        w.packet(&Packet::EventDel(big)),
        Err(Error::InvalidArgument(_))
    ));
    assert_eq!(
        w.bytes().len(),
        before,
        "a refused packet leaves nothing behind"
    );
    let long = vec![b'a'; 70_000];
    assert!(InfoHeader::new(0, &long).write(&mut Vec::new()).is_err());
    let mut w = Writer::with_layout(InfoHeader::new(0, b"x"), Layout::CARLA_0_10).unwrap();
    assert!(
        w.packet(&Packet::PhysicsControl(vec![physics(true)]))
            .is_err()
    );
}

#[test]
fn header_only_file_has_no_frames() {
    let bytes = Writer::new(InfoHeader::new(1, b"Town01")).unwrap().finish();
    let rec = Recording::new(&bytes).unwrap();
    assert_eq!(rec.frames().count(), 0);
    assert_eq!(rec.first_packet_offset(), 34);
}
