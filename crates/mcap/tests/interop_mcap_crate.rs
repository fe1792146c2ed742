//! Differential checks against the `mcap` crate (a dev-dependency only):
//! files it writes are read by us with identical messages, and files we
//! write (every compression, chunked and not) are read by it identically.

mod common;

use std::collections::BTreeMap;
use std::io::Cursor;

use logcore::{LogReader, MessageFilter};
use mcapfile::{Compression, Mcap, Summary};

fn theirs(data: &[u8]) -> Vec<common::Msg> {
    mcap::MessageStream::new(data)
        .unwrap()
        .map(|m| {
            let m = m.unwrap();
            (m.channel.id, m.log_time, m.data.to_vec())
        })
        .collect()
}

#[test]
fn the_mcap_crate_reads_what_we_write() {
    for c in [Compression::None, Compression::Lz4, Compression::Zstd] {
        for chunked in [true, false] {
            let file = common::multi_chunk(c, chunked);
            assert_eq!(theirs(&file), common::messages(), "{c:?} chunked={chunked}");
            // Their summary reader agrees with our indexes.
            let s = mcap::Summary::read(&file).unwrap().unwrap();
            let stats = s.stats.unwrap();
            assert_eq!(stats.message_count, 60);
            assert_eq!(stats.channel_message_counts.get(&1), Some(&20));
            assert_eq!(
                s.chunk_indexes.len(),
                Summary::read(&file, true)
                    .unwrap()
                    .unwrap()
                    .chunk_indexes
                    .len()
            );
            assert_eq!(s.channels.len(), 3);
        }
    }
}

#[test]
fn we_read_what_the_mcap_crate_writes() {
    for (c, chunked) in [
        (None, true),
        (Some(mcap::Compression::Lz4), true),
        (Some(mcap::Compression::Zstd), true),
        (None, false),
    ] {
        let mut w = mcap::WriteOptions::new()
            .compression(c)
            .chunk_size(Some(700))
            .use_chunks(chunked)
            .create(Cursor::new(Vec::new()))
            .unwrap();
        let schema = w.add_schema("Sample", "jsonschema", b"{}").unwrap();
        let mut meta = BTreeMap::new();
        meta.insert("k".to_string(), "v".to_string());
        let ids: Vec<u16> = ["/a", "/b", "/c"]
            .iter()
            .map(|t| w.add_channel(schema, t, "json", &meta).unwrap())
            .collect();
        for (i, (ch, t, data)) in common::messages().into_iter().enumerate() {
            let header = mcap::records::MessageHeader {
                channel_id: ids[usize::from(ch)],
                sequence: i as u32,
                log_time: t,
                publish_time: t + 1,
            };
            w.write_to_known_channel(&header, &data).unwrap();
        }
        w.finish().unwrap();
        let file = w.into_inner().into_inner();
        let want: Vec<common::Msg> = theirs(&file);
        assert_eq!(want.len(), 60);
        assert_eq!(common::streamed_messages(&file), want, "{c:?} {chunked}");
        // Indexed, through logcore: the same messages, stably sorted by time.
        let ours = Mcap::new(&file).unwrap();
        let s = ours.summary().unwrap();
        assert_eq!(s.message_count, 60);
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        let got: Vec<common::Msg> = ours
            .messages(&MessageFilter::all())
            .unwrap()
            .map(|m| {
                let m = m.unwrap();
                (
                    m.channel.0 as u16,
                    m.log_time.as_nanos() as u64,
                    m.payload.to_vec(),
                )
            })
            .collect();
        // Chunked or not, indexed or not: log-time order, ties in file order.
        let mut sorted = want.clone();
        sorted.sort_by_key(|m| m.1);
        assert_eq!(got, sorted, "{c:?} {chunked}");
    }
}
