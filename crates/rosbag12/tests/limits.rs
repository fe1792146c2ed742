//! Resource limits: compressed chunks declaring more than the limit are
//! refused before anything is allocated for them; the limit can be raised.

mod common;

use std::io::Write;

use common::*;
use logcore::{MessageFilter, ReadMode};
use rosbag12::{Bag, Compression, Limits};

#[test]
fn gigabyte_chunks_are_refused_by_the_default_limit() {
    // lz4: 1 GiB of zeros as 1024 concatenated frames (an honest size);
    // bz2: a stream claiming 4 GiB - 1. Neither is decompressed.
    let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
    enc.write_all(&vec![0u8; 1 << 20]).unwrap();
    let lz4 = enc.finish().unwrap().repeat(1024);
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
    enc.write_all(&vec![0u8; 1 << 20]).unwrap();
    let bz2 = enc.finish().unwrap();
    for (name, data, size) in [("lz4", &lz4, 1u32 << 30), ("bz2", &bz2, u32::MAX)] {
        let b = bag_with_chunk(name, size, data);
        let bag = Bag::new(&b).unwrap();
        assert!(bag.chunk_infos().is_empty());
        let w = warnings_text(&bag);
        let want = format!(
            "at byte 4117: expected a chunk of at most 536870912 uncompressed bytes \
             (the reader's limit; raise it with `--max-chunk-size` or `Limits::max_chunk_size`), \
             found a chunk declaring {size} uncompressed bytes"
        );
        assert!(w.contains(&want), "{name}: {w}");
        // Through the `LogReader`, the lost chunk is damage: an error item
        // after the messages when lenient, the only item when strict.
        let items: Vec<String> =
            logcore::LogReader::messages(&bag, &MessageFilter::all().mode(ReadMode::Lenient))
                .unwrap()
                .map(|r| {
                    r.map(|_| "message".to_string())
                        .unwrap_or_else(|e| e.to_string())
                })
                .collect();
        assert_eq!(items.len(), 1, "{name}: {items:?}");
        assert!(items[0].starts_with("skipped "), "{name}: {items:?}");
        assert!(items[0].contains(&want), "{name}: {items:?}");
        let strict: Vec<bool> = logcore::LogReader::messages(&bag, &MessageFilter::all())
            .unwrap()
            .map(|r| r.is_err())
            .collect();
        assert_eq!(strict, [true], "{name}");
    }
}

#[test]
fn the_limit_applies_to_every_read_and_can_be_raised() {
    for compression in [Compression::Bz2, Compression::Lz4] {
        let (bytes, written) = write_bag(small_chunks(compression), 40);
        let all = time_ordered(written);
        let bag = Bag::new(&bytes).unwrap();
        assert_eq!(bag.limits(), Limits::default());
        let largest = bag
            .chunk_infos()
            .iter()
            .map(|c| bag.read_chunk_header(c.chunk_pos).unwrap().size)
            .max()
            .unwrap();
        assert!(bag.chunk_infos().len() > 2);
        // A limit below the largest chunk: that chunk is an error when
        // read (the index is still read, nothing is decompressed at open).
        let small = Limits::default().with_max_chunk_size(u64::from(largest) - 1);
        let bag = Bag::with_limits(&bytes, small).unwrap();
        let items: Vec<_> = bag
            .messages(&MessageFilter::all().mode(ReadMode::Lenient))
            .collect();
        let errors: Vec<String> = items
            .iter()
            .filter_map(|r| r.as_ref().err().map(|e| e.to_string()))
            .collect();
        assert!(!errors.is_empty(), "{compression:?}");
        assert!(
            errors
                .iter()
                .all(|e| e.contains(&format!("at most {} uncompressed bytes", largest - 1))),
            "{errors:?}"
        );
        assert!(items.iter().filter(|r| r.is_ok()).count() < all.len());
        // Exactly the largest chunk: everything reads.
        let exact = Limits::default().with_max_chunk_size(u64::from(largest));
        let bag = Bag::with_limits(&bytes, exact).unwrap();
        let got: Vec<_> = bag
            .messages(&MessageFilter::all())
            .map(|m| m.unwrap().data.to_vec())
            .collect();
        assert_eq!(got.len(), all.len());
        assert_eq!(got, all.iter().map(|m| m.data.clone()).collect::<Vec<_>>());
    }
    assert_eq!(Limits::UNLIMITED.max_chunk_size, u64::MAX);
}

#[test]
fn info_groups_many_connections_by_topic() {
    // 2,000 connections, two per topic, one message each.
    let mut w = rosbag12::Writer::new(
        std::io::Cursor::new(Vec::new()),
        rosbag12::WriterOptions::default(),
    )
    .unwrap();
    let mut ids = Vec::new();
    for i in 0..2000u32 {
        let c = rosbag12::Connection::new(
            0,
            format!("/t{:04}", i / 2),
            "std_msgs/UInt8",
            "7c8164229e7d2c17eb95e9231617fdee",
            "uint8 data\n",
        );
        ids.push(w.add_connection(c).unwrap());
    }
    for (i, id) in ids.iter().enumerate() {
        let t = rosbag12::RosTime {
            sec: 1 + i as u32,
            nsec: 0,
        };
        w.write(*id, t, &[i as u8]).unwrap();
    }
    w.finish().unwrap();
    let bytes = w.into_inner().into_inner();
    let bag = Bag::new(&bytes).unwrap();
    assert_eq!(bag.connections().len(), 2000);
    let info = rosbag12::info::BagInfo::new(&bag);
    assert_eq!(info.topics.len(), 1000);
    assert!(
        info.topics
            .iter()
            .all(|t| t.connections == 2 && t.messages == 2)
    );
    // Two messages 1 s apart on every topic.
    assert!(info.topics.iter().all(|t| t.frequency == Some(1.0)));
    assert_eq!(info.topics[999].topic, "/t0999");
}
