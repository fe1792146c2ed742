//! Damaged and hostile input: never a panic, never a large allocation,
//! errors that name the byte offset.

mod common;

use carla_recorder::report::{ReportOptions, actors_blocked, collisions, file_info};
use carla_recorder::*;
use common::*;
use logcore::{LogReader, MessageFilter, ReadMode};

/// Everything the crate can do with a file; must not panic.
fn exercise(bytes: &[u8]) {
    let Ok(rec) = Recording::new(bytes) else {
        return;
    };
    let layout = rec.layout();
    for mode in [ReadMode::Strict, ReadMode::Lenient] {
        for f in rec.frames_with(mode).take(1000).flatten() {
            for p in f.decoded(&layout).flatten() {
                let _ = packet_value(&p, &layout);
            }
        }
        if let Ok(it) = rec.messages(&MessageFilter::all().mode(mode)) {
            for m in it.take(10_000).flatten() {
                let _ = rec.decode(&m);
            }
        }
    }
    let _ = rec.summary();
    let _ = Timeline::build(&rec);
    let _ = rewrite(&rec);
    let o = ReportOptions::default();
    let _ = file_info(&rec, true, &o, &mut std::io::sink());
    let _ = collisions(&rec, 'a', 'a', &o, &mut std::io::sink());
    let _ = actors_blocked(&rec, 0.0, 10.0, &o, &mut std::io::sink());
}

#[test]
fn single_bit_flips_never_panic() {
    for layout in [Layout::CARLA_0_9_10, Layout::CARLA_0_10] {
        let bytes = sample(layout);
        // Every byte of the first two frames, every 7th byte after.
        let first_two = Recording::new(&bytes)
            .unwrap()
            .frames()
            .nth(1)
            .unwrap()
            .unwrap()
            .end as usize;
        for i in (0..bytes.len()).filter(|&i| i < first_two || i % 7 == 0) {
            for bit in [0, 7] {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                exercise(&b);
            }
        }
    }
}

fn file_with(packets: &[(u8, Vec<u8>)]) -> Vec<u8> {
    let mut w = Writer::new(InfoHeader::new(0, b"T")).unwrap();
    w.packet(&Packet::FrameStart(FrameStart {
        id: 1,
        duration: -1.0,
        elapsed: 0.0,
    }))
    .unwrap();
    for (id, payload) in packets {
        w.raw_packet(*id, payload).unwrap();
    }
    w.packet(&Packet::FrameEnd).unwrap();
    w.finish()
}

#[test]
fn hostile_counts_are_refused_before_allocating() {
    // 65535 Position records declared in a 6-byte packet.
    let bytes = file_with(&[(6, vec![0xff, 0xff, 1, 2, 3, 4])]);
    let rec = Recording::new(&bytes).unwrap();
    let f = rec.frames().next().unwrap().unwrap();
    let e = f
        .packets()
        .next()
        .unwrap()
        .decode(&rec.layout())
        .unwrap_err();
    assert_eq!(
        e.offset(),
        Some(f.packets().next().unwrap().offset + 5),
        "{e}"
    );
    assert!(e.to_string().contains("65535 × at least 28 bytes"), "{e}");

    // A PhysicsControl record whose u32 wheel count is 2^32-1.
    let mut pc = Vec::new();
    let mut w = Writer::new(InfoHeader::new(0, b"T")).unwrap();
    w.packet(&Packet::PhysicsControl(vec![physics(true)]))
        .unwrap();
    pc.extend_from_slice(&w.finish()[29 + 5..]);
    let wheel_count_at = pc.len() - 4 * 48 - 4;
    pc[wheel_count_at..wheel_count_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let bytes = file_with(&[(15, pc)]);
    let rec = Recording::new(&bytes).unwrap();
    let f = rec.frames().next().unwrap().unwrap();
    let e = f
        .packets()
        .next()
        .unwrap()
        .decode(&rec.layout())
        .unwrap_err();
    assert!(e.to_string().contains("4294967295 × at least"), "{e}");

    // A packet whose size runs past the end of the file.
    let mut bytes = file_with(&[(3, vec![0, 0])]);
    let size_at = 29 + 5 + 24 + 1;
    bytes[size_at..size_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let rec = Recording::new(&bytes).unwrap();
    let e = rec.frames().find_map(Result::err).unwrap();
    assert!(e.is_truncated(), "{e}");
    assert_eq!(e.offset(), Some(29 + 5 + 24), "{e}");
}

#[test]
fn declared_size_must_equal_bytes_parsed() {
    // An EventDel with one record and two extra bytes.
    let bytes = file_with(&[(3, vec![1, 0, 7, 0, 0, 0, 9, 9])]);
    let rec = Recording::new(&bytes).unwrap();
    let f = rec.frames().next().unwrap().unwrap();
    let e = f
        .packets()
        .next()
        .unwrap()
        .decode(&rec.layout())
        .unwrap_err();
    assert_eq!(e.offset(), Some(f.packets().next().unwrap().offset + 5 + 6));
    assert!(e.to_string().contains("2 extra bytes"), "{e}");
    // FrameStart of the wrong size.
    let mut w = Writer::new(InfoHeader::new(0, b"T")).unwrap();
    w.raw_packet(0, &[0; 16]).unwrap();
    let bytes = w.finish();
    let e = Recording::new(&bytes)
        .unwrap()
        .frames()
        .next()
        .unwrap()
        .unwrap_err();
    assert!(
        e.to_string().contains("size 24 for the FrameStart packet"),
        "{e}"
    );
}

#[test]
fn stray_packets_are_errors_in_strict_mode_and_skipped_in_lenient() {
    let mut w = Writer::new(InfoHeader::new(0, b"T")).unwrap();
    w.packet(&Packet::EventDel(vec![])).unwrap();
    w.tick(0.0, &[]).unwrap();
    let bytes = w.finish();
    let rec = Recording::new(&bytes).unwrap();
    let strict: Vec<_> = rec.frames().collect();
    assert_eq!(strict.len(), 1);
    let e = strict[0].as_ref().unwrap_err();
    assert_eq!(e.offset(), Some(29));
    let lenient: Vec<_> = rec.frames_with(ReadMode::Lenient).collect();
    assert!(matches!(
        lenient[0],
        Err(Error::Skipped {
            offset: 29,
            len: 7,
            ..
        })
    ));
    assert_eq!(lenient[1].as_ref().unwrap().start.id, 1);
}

#[test]
fn lenient_reading_resynchronises_after_a_damaged_size() {
    let bytes = sample(Layout::default());
    let rec = Recording::new(&bytes).unwrap();
    let frames: Vec<Frame<'_>> = rec.frames().collect::<Result<_>>().unwrap();
    // Damage the size of the first packet after frame 2's FrameStart.
    let p = frames[1].packets().next().unwrap();
    let mut bad = bytes.clone();
    bad[p.offset as usize + 1..p.offset as usize + 5].copy_from_slice(&u32::MAX.to_le_bytes());
    let rec = Recording::new(&bad).unwrap();
    let strict: Vec<_> = rec.frames().collect();
    assert_eq!(strict.len(), 2);
    assert!(strict[1].as_ref().unwrap_err().is_truncated());
    let lenient: Vec<_> = rec.frames_with(ReadMode::Lenient).collect();
    let ok: Vec<u64> = lenient
        .iter()
        .filter_map(|f| f.as_ref().ok())
        .map(|f| f.start.id)
        .collect();
    assert_eq!(ok, [1, 3, 4, 5, 6]);
    assert!(matches!(lenient[1], Err(Error::Skipped { .. })));
}

#[test]
fn wrong_magic_is_malformed_at_byte_4() {
    let mut bytes = sample(Layout::default());
    bytes[4] = b'c';
    let e = Recording::new(&bytes).unwrap_err();
    assert_eq!(e.offset(), Some(4));
    let e: logcore::Error = e;
    assert!(
        e.to_string()
            .starts_with("at byte 4: expected the magic string"),
        "{e}"
    );
}
