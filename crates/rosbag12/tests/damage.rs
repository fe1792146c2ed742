//! Hostile and damaged input: every prefix, bit flips, lying lengths and
//! decompression bombs. Nothing may panic, loop or allocate without bound,
//! and a truncated bag yields its complete messages before the error.

mod common;

use common::*;
use logcore::{LogReader, MessageFilter, ReadMode};
use rosbag12::FormatError;
use rosbag12::{Bag, Compression, Error, WriterOptions};

/// Reads everything a bag offers, in both modes; returns the strict-mode
/// messages and the last strict-mode error.
fn exercise(bytes: &[u8]) -> Option<(Vec<Written>, Option<Error>)> {
    let bag = Bag::new(bytes).ok()?;
    let _ = bag.summary();
    let _ = bag.message_times();
    let mut lenient = 0;
    for m in bag.messages(&MessageFilter::all().mode(ReadMode::Lenient)) {
        lenient += 1;
        assert!(lenient < 100_000, "lenient iteration does not end");
        if let Ok(m) = m {
            let _ = bag.decode(m.conn, &m.data);
        }
    }
    let mut got = Vec::new();
    let mut err = None;
    for m in bag.messages(&MessageFilter::all()) {
        match m {
            Ok(m) => got.push(Written {
                conn: m.conn,
                time: m.time,
                data: m.data.to_vec(),
            }),
            Err(e) => {
                assert!(err.is_none(), "strict mode goes on after an error");
                err = Some(e);
            }
        }
    }
    Some((got, err))
}

/// End offsets of the message records of an uncompressed bag, with the
/// message each holds.
fn record_ends(bytes: &[u8]) -> Vec<(usize, Written)> {
    let bag = Bag::new(bytes).unwrap();
    bag.messages(&MessageFilter::all())
        .map(|m| {
            let m = m.unwrap();
            let at = m.offset as usize;
            let end = at + 8 + u32_at(bytes, at) as usize + m.data.len();
            (
                end,
                Written {
                    conn: m.conn,
                    time: m.time,
                    data: m.data.to_vec(),
                },
            )
        })
        .collect()
}

#[test]
fn every_prefix_yields_the_complete_messages_then_truncated() {
    for options in [small_chunks(Compression::None), WriterOptions::v1_2()] {
        let (bytes, _) = write_bag(options, 12);
        let ends = record_ends(&bytes);
        for cut in 0..bytes.len() {
            let prefix = &bytes[..cut];
            let Some((got, err)) = exercise(prefix) else {
                assert!(cut < 4200, "a {cut}-byte prefix does not open");
                continue;
            };
            let want: Vec<Written> = ends
                .iter()
                .filter(|(end, _)| *end <= cut)
                .map(|(_, m)| m.clone())
                .collect();
            assert_eq!(got, time_ordered(want), "prefix of {cut} bytes");
            let bag = Bag::new(prefix).unwrap();
            let flagged =
                err.as_ref().is_some_and(Error::is_truncated) || !bag.warnings().is_empty();
            assert!(flagged, "prefix of {cut} bytes: the cut goes unreported");
        }
    }
}

#[test]
fn every_prefix_of_a_compressed_bag_is_safe() {
    for compression in [Compression::Lz4, Compression::Bz2] {
        let (bytes, written) = write_bag(small_chunks(compression), 12);
        let all = time_ordered(written);
        for cut in (0..bytes.len()).step_by(7) {
            if let Some((got, _)) = exercise(&bytes[..cut]) {
                assert!(got.iter().all(|m| all.contains(m)), "prefix of {cut} bytes");
            }
        }
    }
}

#[test]
fn bit_flips_never_panic() {
    for (options, step) in [
        (small_chunks(Compression::None), 1),
        (small_chunks(Compression::Lz4), 1),
        (WriterOptions::v1_2(), 1),
    ] {
        let (bytes, _) = write_bag(options, 6);
        // The bag header's space padding is skipped: flips there only
        // change padding.
        let first = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
        let pad_start = first + 8 + u32_at(&bytes, first) as usize;
        let pad_end = first + 4104;
        for i in (0..bytes.len())
            .step_by(step)
            .filter(|i| !(pad_start..pad_end).contains(i))
        {
            let mut b = bytes.clone();
            b[i] ^= 1 << (i % 8);
            exercise(&b);
            b[i] = 0xff;
            exercise(&b);
        }
    }
}

#[test]
fn hostile_lengths_are_reported_with_offsets() {
    let (bytes, _) = write_bag(small_chunks(Compression::None), 6);
    // The first chunk's header length, then its data length, made huge.
    for at in [4117usize, 4117 + 4 + u32_at(&bytes, 4117) as usize] {
        let mut b = bytes.clone();
        b[at..at + 4].copy_from_slice(&0xffff_fff0u32.to_le_bytes());
        let bag = Bag::new(&b).unwrap();
        let errors: Vec<Error> = bag
            .messages(&MessageFilter::all())
            .filter_map(Result::err)
            .collect();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].offset(), Some(4117), "{}", errors[0]);
    }
    // A bag header claiming millions of connections and chunks: the index
    // read fails and the bag is scanned instead.
    let mut w = bytes.clone();
    let h = u32_at(&w, 13) as usize;
    let field = w[17..17 + h]
        .windows(11)
        .position(|x| x == b"conn_count=")
        .unwrap();
    w[17 + field + 11..17 + field + 15].copy_from_slice(&u32::MAX.to_le_bytes());
    let bag = Bag::new(&w).unwrap();
    assert_eq!(bag.index_source(), rosbag12::IndexSource::Scanned);
    assert_eq!(
        bag.messages(&MessageFilter::all()).count(),
        read_all(&bytes).len()
    );
}

#[test]
fn decompression_is_bounded_by_the_declared_size() {
    use std::io::Write;
    let zeros = vec![0u8; 8 << 20];
    // lz4 and bz2 bombs: 8 MiB of zeros declared as 1000 bytes.
    let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
    enc.write_all(&zeros).unwrap();
    let lz4 = enc.finish().unwrap();
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
    enc.write_all(&zeros).unwrap();
    let bz2 = enc.finish().unwrap();
    for (name, data) in [("lz4", &lz4), ("bz2", &bz2)] {
        let b = bag_with_chunk(name, 1000, data);
        let bag = Bag::new(&b).unwrap();
        assert!(bag.chunk_infos().is_empty());
        let w = warnings_text(&bag);
        assert!(w.contains("more bytes than declared"), "{name}: {w}");
        assert!(w.contains("at byte 4117"), "{w}");
        // A size claiming 4 GiB for a tiny stream: an error, not an allocation.
        let b = bag_with_chunk(name, u32::MAX, &data[..data.len().min(40)]);
        let bag = Bag::new(&b).unwrap();
        assert_eq!(bag.warnings().len(), 2, "{:?}", bag.warnings());
    }
    let b = bag_with_chunk("zstd", 3, b"abc");
    let w = Bag::new(&b).unwrap().warnings()[1].to_string();
    assert!(w.contains("`zstd`"), "{w}");
}

#[test]
fn old_versions_are_refused_clearly() {
    for magic in [&b"#ROSRECORD V1.1\n"[..], b"#ROSLOG V1.1\n"] {
        let e = Bag::new(magic).unwrap_err();
        let core: logcore::Error = e.into();
        let text = core.to_string();
        assert!(
            text.starts_with("at byte 0: ROS bag version 1.1 is not supported: "),
            "{text}"
        );
        assert!(text.contains("`rosbag fix`"), "{text}");
    }
    assert!(Bag::new(b"#ROSBAG V3.0\n").is_err());
    assert!(Bag::new(b"not a bag at all, nope\n").is_err());
}

/// A damaged record in the middle of an unindexed bag: the scan skips to
/// the next chunk (or 1.2 message record) and reports what it skipped.
#[test]
fn scans_resynchronise_after_damage() {
    for options in [
        small_chunks(Compression::None),
        small_chunks(Compression::Lz4),
        WriterOptions::v1_2(),
    ] {
        let (bytes, _) = write_bag(options, 40);
        let bag = Bag::new(&bytes).unwrap();
        let index_pos = bag.header().unwrap().index_pos as usize;
        let full = read_all(&bytes);
        // The victim: the second chunk (2.0) or the 20th message record (1.2).
        let victim = if bag.version().major == 2 {
            bag.chunk_infos()[1].chunk_pos as usize
        } else {
            let m = bag
                .messages(&MessageFilter::all())
                .nth(20)
                .unwrap()
                .unwrap();
            m.offset as usize
        };
        let mut b = bytes[..index_pos].to_vec();
        b[victim..victim + 4].copy_from_slice(&0xffff_ff00u32.to_le_bytes());
        let damaged = Bag::new(&b).unwrap();
        let skipped: Vec<&Error> = damaged
            .warnings()
            .iter()
            .filter(|e| e.is_skipped())
            .collect();
        assert_eq!(skipped.len(), 1, "{:?}", damaged.warnings());
        assert_eq!(skipped[0].offset(), Some(victim as u64));
        assert!(damaged.end_error().is_none());
        let got = read_all(&b);
        assert!(
            got.len() < full.len() && got.len() >= full.len() - 20,
            "{} of {}",
            got.len(),
            full.len()
        );
        assert!(got.iter().all(|m| full.contains(m)));
    }
}
