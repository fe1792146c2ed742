//! Write with our writer, read back with our reader: every version and
//! compression, the byte layout ROS expects, filters, reindexing.

mod common;

use std::io::Cursor;

use common::*;
use logcore::{ChannelId, LogReader, LogWriter, MessageFilter, Timestamp, Value};
use rosbag12::{Bag, Compression, IndexSource, RosTime, Version, WriterOptions, reindex};

#[test]
fn every_compression_round_trips() {
    for compression in [Compression::None, Compression::Bz2, Compression::Lz4] {
        let (bytes, written) = write_bag(small_chunks(compression), 120);
        let bag = Bag::new(&bytes).unwrap();
        assert_eq!(bag.version(), Version::V2_0);
        assert_eq!(bag.index_source(), IndexSource::Stored);
        assert!(bag.warnings().is_empty(), "{:?}", bag.warnings());
        assert!(bag.chunk_infos().len() > 5, "{compression:?}");
        let mut read = bag.connections().to_vec();
        read.iter_mut().for_each(|c| c.offset = 0);
        assert_eq!(read, connections());
        assert_eq!(bag.message_count(), written.len() as u64);
        assert_eq!(read_all(&bytes), time_ordered(written.clone()));
        for c in bag.compression_counts().keys() {
            assert_eq!(*c, compression.name());
        }
        // Every message decodes to exactly what was serialized.
        for m in bag.messages(&MessageFilter::all()) {
            let m = m.unwrap();
            let v = bag.decode(m.conn, &m.data).unwrap();
            if m.conn == 0 {
                let seq = v.get("header").and_then(|h| h.get("seq")).unwrap();
                let i = seq.as_i64().unwrap() as u32;
                assert_eq!(v, sample(i).1);
            } else {
                assert!(
                    v.get("data")
                        .unwrap()
                        .as_str()
                        .unwrap()
                        .starts_with("hello ")
                );
            }
        }
        let t = bag.message_type(0).unwrap();
        assert_eq!(t.stored_md5_mismatch, None);
    }
}

#[test]
fn layout_follows_ros() {
    let (bytes, _) = write_bag(WriterOptions::compressed(Compression::Lz4), 10);
    assert!(bytes.starts_with(b"#ROSBAG V2.0\n"));
    // Bag header: header_len + data_len = 4096, padded with spaces.
    let header_len = u32_at(&bytes, 13) as usize;
    let data_len = u32_at(&bytes, 17 + header_len) as usize;
    assert_eq!(header_len + data_len, 4096);
    assert!(bytes[21 + header_len..4117].iter().all(|&b| b == b' '));
    // The first chunk starts at 4117 and holds one lz4 frame with the
    // roslz4 header bytes (spec 2.9).
    let chunk_header_len = u32_at(&bytes, 4117) as usize;
    let chunk_data = 4117 + 4 + chunk_header_len + 4;
    assert_eq!(
        &bytes[chunk_data..chunk_data + 7],
        &[0x04, 0x22, 0x4d, 0x18, 0x64, 0x60, 0x85]
    );
    let bag = Bag::new(&bytes).unwrap();
    let h = bag.header().unwrap();
    assert_eq!((h.conn_count, h.chunk_count), (3, 1));
    assert_eq!(bag.chunk_infos()[0].chunk_pos, 4117);

    let (bytes, _) = write_bag(WriterOptions::compressed(Compression::Bz2), 10);
    let chunk_header_len = u32_at(&bytes, 4117) as usize;
    let chunk_data = 4117 + 4 + chunk_header_len + 4;
    assert_eq!(&bytes[chunk_data..chunk_data + 4], b"BZh9");
}

#[test]
fn empty_bag_is_4117_bytes() {
    let mut w = rosbag12::Writer::new(Cursor::new(Vec::new()), WriterOptions::default()).unwrap();
    w.finish().unwrap();
    let bytes = w.into_inner().into_inner();
    assert_eq!(bytes.len(), 4117);
    let bag = Bag::new(&bytes).unwrap();
    assert_eq!(bag.header().unwrap().index_pos, 4117);
    assert_eq!(bag.message_count(), 0);
    assert_eq!(bag.messages(&MessageFilter::all()).count(), 0);
    assert_eq!(bag.summary().unwrap().start, None);
}

#[test]
fn version_1_2_round_trips_with_definition_first_entries() {
    let (bytes, written) = write_bag(WriterOptions::v1_2(), 50);
    assert!(bytes.starts_with(b"#ROSRECORD V1.2\n"));
    let bag = Bag::new(&bytes).unwrap();
    assert_eq!(bag.version(), Version::V1_2);
    assert_eq!(bag.index_source(), IndexSource::Stored);
    // One connection per topic.
    assert_eq!(bag.connections().len(), 2);
    assert_eq!(bag.connections()[1].topic, "/chatter");
    assert_eq!(read_all(&bytes), time_ordered(written));
    // Spec 3.3: each topic's first index entry points at its definition
    // record (op 0x01), which the first message-area record at 4120 is.
    let index_pos = bag.header().unwrap().index_pos as usize;
    let mut at = index_pos;
    let mut firsts = Vec::new();
    while at < bytes.len() {
        let header_len = u32_at(&bytes, at) as usize;
        let data_len = u32_at(&bytes, at + 4 + header_len) as usize;
        let data = at + 8 + header_len;
        firsts.push(u64_at(&bytes, data + 8) as usize);
        at = data + data_len;
    }
    assert_eq!(firsts.len(), 2);
    assert_eq!(firsts[0], 4120);
    for pos in firsts {
        let header_len = u32_at(&bytes, pos) as usize;
        let header = &bytes[pos + 4..pos + 4 + header_len];
        assert!(
            header.windows(5).any(|w| w == b"op=\x01\x00")
                || header.windows(4).any(|w| w == b"op=\x01")
        );
    }
    let v = bag.decode(0, &sample(3).0).unwrap();
    assert_eq!(v, sample(3).1);
}

#[test]
fn filters_by_channel_and_time() {
    let (bytes, written) = write_bag(small_chunks(Compression::Lz4), 200);
    let bag = Bag::new(&bytes).unwrap();
    let start = RosTime {
        sec: 1000,
        nsec: 500_000_000,
    };
    let end = RosTime {
        sec: 1001,
        nsec: 250_000_000,
    };
    let filter = MessageFilter::all()
        .channels([ChannelId(1), ChannelId(2)])
        .start(start.to_timestamp())
        .end(end.to_timestamp());
    let got: Vec<_> = bag.messages(&filter).map(|m| m.unwrap().time).collect();
    let want: Vec<_> = time_ordered(written)
        .into_iter()
        .filter(|m| m.conn != 0 && m.time >= start && m.time < end)
        .map(|m| m.time)
        .collect();
    assert_eq!(got, want);
    assert!(!got.is_empty());
    // Through logcore, by topic.
    let summary = bag.summary().unwrap();
    assert_eq!(
        summary.channels_on_topic("/chatter"),
        vec![ChannelId(1), ChannelId(2)]
    );
    let chatter = &summary.channels[1];
    assert_eq!(
        chatter.info.metadata.get("callerid").map(String::as_str),
        Some("/talker_a")
    );
    assert_eq!(chatter.message_count, 34);
    assert_eq!(
        summary.channels[0].start,
        Some(Timestamp::from_secs_nanos(1000, 0))
    );
    assert_eq!(
        summary.channels[0].end,
        Some(Timestamp::from_secs_nanos(1001, 990_000_000))
    );
}

#[test]
fn unindexed_bags_are_scanned_and_reindexed() {
    for compression in [Compression::None, Compression::Bz2] {
        let (bytes, written) = write_bag(small_chunks(compression), 80);
        let bag = Bag::new(&bytes).unwrap();
        let index_pos = bag.header().unwrap().index_pos as usize;
        // Cut off the index section, and zero index_pos as a killed
        // recorder leaves it.
        let mut cut = bytes[..index_pos].to_vec();
        let h = u32_at(&cut, 13) as usize;
        let field = cut[17..17 + h]
            .windows(10)
            .position(|w| w == b"index_pos=")
            .unwrap();
        let value = 17 + field + 10;
        cut[value..value + 8].fill(0);
        let scanned = Bag::new(&cut).unwrap();
        assert_eq!(scanned.index_source(), IndexSource::Scanned);
        assert_eq!(scanned.chunk_infos(), bag.chunk_infos());
        assert_eq!(read_all(&cut), time_ordered(written.clone()));

        let (out, report) = reindex(&cut, Cursor::new(Vec::new())).unwrap();
        assert_eq!(report.messages, written.len() as u64);
        let fixed = out.into_inner();
        let again = Bag::new(&fixed).unwrap();
        assert_eq!(again.index_source(), IndexSource::Stored);
        assert_eq!(read_all(&fixed), time_ordered(written.clone()));
        assert_eq!(
            again.compression_counts().keys().next().copied(),
            Some(compression.name())
        );
    }
}

#[test]
fn fix_migrates_1_2_to_2_0() {
    let (bytes, written) = write_bag(WriterOptions::v1_2(), 30);
    let (out, report) = reindex(&bytes, Cursor::new(Vec::new())).unwrap();
    assert!(report.problems.is_empty());
    let fixed = out.into_inner();
    let bag = Bag::new(&fixed).unwrap();
    assert_eq!(bag.version(), Version::V2_0);
    assert_eq!(bag.connections()[0].message_definition, SAMPLE_DEF);
    assert_eq!(read_all(&fixed), time_ordered(written));
}

#[test]
fn log_writer_and_log_reader_agree() {
    let mut w = rosbag12::Writer::new(Cursor::new(Vec::new()), WriterOptions::default()).unwrap();
    let mut info = logcore::ChannelInfo::new(ChannelId(9), "/n", "std_msgs/Int32", "ros1");
    info.schema = Some(std::sync::Arc::new(logcore::Schema {
        name: "std_msgs/Int32".into(),
        encoding: "ros1msg".into(),
        data: b"int32 data".to_vec(),
    }));
    let id = w.add_channel(&info).unwrap();
    for k in 0..3i32 {
        let data = k.to_le_bytes();
        let m = logcore::Message::new(
            id,
            Timestamp::from_secs_nanos(5, k as u32),
            logcore::Payload::Borrowed(&data),
        );
        w.write_message(&m).unwrap();
    }
    LogWriter::finish(&mut w).unwrap();
    let bytes = w.into_inner().into_inner();
    let bag = Bag::new(&bytes).unwrap();
    assert_eq!(
        bag.connections()[0].md5sum,
        "da5909fbe378aeaf85e547e830cc1bb7"
    );
    let values: Vec<Value> = LogReader::messages(&bag, &MessageFilter::all())
        .unwrap()
        .map(|m| LogReader::decode(&bag, &m.unwrap()).unwrap())
        .collect();
    assert_eq!(values[2], Value::record([("data", Value::I64(2))]));
    // Through the trait, decoding into one reused value gives the same.
    let mut reused = Value::String("earlier".into());
    for (m, want) in LogReader::messages(&bag, &MessageFilter::all())
        .unwrap()
        .zip(&values)
    {
        LogReader::decode_into(&bag, &m.unwrap(), &mut reused).unwrap();
        assert_eq!(&reused, want);
    }
}
