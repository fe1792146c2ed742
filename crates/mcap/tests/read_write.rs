//! Round trips through our writer and both readers, filters, ordering,
//! interrupted writers and recovery.

mod common;

use logcore::{ChannelId, LogReader, MessageFilter, ReadMode, Timestamp};
use mcapfile::{
    Compression, IndexFilter, LinearReader, Mcap, ReadOptions, Record, Summary, WriteOptions,
    Writer, recover,
};

const ALL: [Compression; 3] = [Compression::None, Compression::Lz4, Compression::Zstd];

#[test]
fn streamed_round_trip_every_compression_chunked_and_not() {
    for c in ALL {
        for chunked in [true, false] {
            let file = common::multi_chunk(c, chunked);
            assert_eq!(
                common::streamed_messages(&file),
                common::messages(),
                "{c:?} {chunked}"
            );
            // Every record reads cleanly, CRCs included.
            let kinds: Vec<u8> = LinearReader::new(&file)
                .map(|r| r.unwrap().opcode())
                .collect();
            assert_eq!(kinds.first(), Some(&0x01));
            assert_eq!(kinds.last(), Some(&0x02));
            assert_eq!(kinds.iter().filter(|&&k| k == 0x09).count(), 1);
        }
    }
}

#[test]
fn summary_has_every_index() {
    let file = common::multi_chunk(Compression::Zstd, true);
    let s = Summary::read(&file, true).unwrap().unwrap();
    let st = s.statistics.clone().unwrap();
    assert_eq!(st.message_count, 60);
    assert_eq!(st.channel_count, 3);
    assert_eq!(st.schema_count, 1);
    assert_eq!(st.attachment_count, 1);
    assert_eq!(st.metadata_count, 1);
    assert_eq!(st.chunk_count as usize, s.chunk_indexes.len());
    assert!(s.chunk_indexes.len() > 3);
    assert_eq!(st.channel_message_counts.get(&0), Some(&20));
    assert_eq!(s.channels.len(), 3);
    assert_eq!(s.schemas[&1].name, "Sample");
    assert_eq!(s.attachment_indexes[0].name, "calib.txt");
    assert_eq!(s.metadata_indexes[0].name, "run");
    assert_eq!(s.summary_offsets.len(), 6);
    assert!(s.chunk_indexes.iter().all(|c| c.compression == "zstd"));
    let mcap = Mcap::new(&file).unwrap();
    let a = mcap.attachment(&s.attachment_indexes[0]).unwrap();
    assert_eq!(&*a.data, b"hello");
    assert_eq!(a.media_type, "text/plain");
    let m = mcap.metadata(&s.metadata_indexes[0]).unwrap();
    assert_eq!(m.metadata["k"], "v");
    // An index pointing elsewhere is an error naming the offset.
    let mut wrong = s.attachment_indexes[0].clone();
    wrong.offset = s.metadata_indexes[0].offset;
    wrong.length = s.metadata_indexes[0].length;
    let e = mcap.attachment(&wrong).unwrap_err();
    assert_eq!(e.offset(), Some(wrong.offset));
}

#[test]
fn indexed_reader_merges_overlapping_chunks_in_time_order() {
    for c in ALL {
        let file = common::multi_chunk(c, true);
        let s = Summary::read(&file, true).unwrap().unwrap();
        let got: Vec<u64> = mcapfile::IndexedMessages::new(
            &file,
            &s,
            IndexFilter::default(),
            ReadOptions::default(),
        )
        .map(|r| r.unwrap().1.log_time)
        .collect();
        let mut want: Vec<u64> = common::messages().iter().map(|m| m.1).collect();
        want.sort();
        assert_eq!(got, want, "{c:?}");
    }
}

#[test]
fn filters_skip_chunks_outside_the_range() {
    let mut file = common::multi_chunk(Compression::Zstd, true);
    let s = Summary::read(&file, true).unwrap().unwrap();
    // Break the last chunk's records: a filter that ends before it must not touch it.
    let last = s
        .chunk_indexes
        .iter()
        .max_by_key(|c| c.message_start_time)
        .unwrap()
        .clone();
    let end = last.message_start_time;
    let at = (last.chunk_start_offset + last.chunk_length - 3) as usize;
    file[at] ^= 0xff;
    let s = Summary::read(&file, true).unwrap().unwrap();
    let filter = IndexFilter {
        channels: Some([1].into()),
        start: Some(10_000),
        end: Some(end),
    };
    let it = mcapfile::IndexedMessages::new(&file, &s, filter, ReadOptions::default());
    assert!(it.selected_chunks() < s.chunk_indexes.len());
    let got: Vec<(u16, u64)> = it
        .map(|r| r.map(|(_, m)| (m.channel_id, m.log_time)).unwrap())
        .collect();
    let mut want: Vec<(u16, u64)> = common::messages()
        .iter()
        .filter(|m| m.0 == 1 && m.1 >= 10_000 && m.1 < end)
        .map(|m| (m.0, m.1))
        .collect();
    want.sort_by_key(|m| m.1);
    assert_eq!(got, want);
    assert!(!got.is_empty());
    // The whole file reaches the broken chunk: strict errors at its offset.
    let all: Vec<_> =
        mcapfile::IndexedMessages::new(&file, &s, IndexFilter::default(), ReadOptions::default())
            .collect();
    let err = all.last().unwrap().as_ref().unwrap_err();
    assert_eq!(err.offset(), Some(last.chunk_start_offset));
}

#[test]
fn log_reader_summary_filters_and_decodes_json() {
    let file = common::multi_chunk(Compression::Lz4, true);
    let mcap = Mcap::new(&file).unwrap();
    let s = mcap.summary().unwrap();
    assert_eq!(s.message_count, 60);
    assert_eq!(s.channels.len(), 3);
    assert_eq!(s.channels[1].info.topic, "/b");
    assert_eq!(s.channels[1].info.type_name, "Sample");
    assert_eq!(s.channels[1].message_count, 20);
    // Per-channel time ranges come from the Message Index records.
    let b_times: Vec<u64> = common::messages()
        .iter()
        .filter(|m| m.0 == 1)
        .map(|m| m.1)
        .collect();
    assert_eq!(
        s.channels[1].start,
        Some(Timestamp(*b_times.iter().min().unwrap() as i64))
    );
    assert_eq!(
        s.channels[1].end,
        Some(Timestamp(*b_times.iter().max().unwrap() as i64))
    );
    assert_eq!(s.channels[1].info.metadata["k"], "v");
    assert_eq!(s.metadata["metadata.run.k"], "v");
    assert!(s.warnings.is_empty());
    let f = MessageFilter::all()
        .channels([ChannelId(2)])
        .start(Timestamp(5_000))
        .end(Timestamp(20_000));
    let msgs: Vec<_> = mcap.messages(&f).unwrap().map(|m| m.unwrap()).collect();
    let times: Vec<i64> = msgs.iter().map(|m| m.log_time.as_nanos()).collect();
    let want: Vec<i64> = common::messages()
        .iter()
        .filter(|m| m.0 == 2 && (5_000..20_000).contains(&m.1))
        .map(|m| m.1 as i64)
        .collect();
    assert_eq!(times, [5_000, 8_000, 11_000, 14_000, 14_500]);
    assert_eq!(times, want);
    let v = mcap.decode(&msgs[0]).unwrap();
    assert_eq!(v.get("i").and_then(|x| x.as_i64()), Some(5));
    assert_eq!(msgs[0].publish_time, Some(Timestamp(5_001)));
    // Unindexed file: same messages through the linear path.
    let plain = common::multi_chunk(Compression::None, false);
    let mcap = Mcap::new(&plain).unwrap();
    assert!(!mcap.is_indexed());
    let times2: Vec<i64> = mcap
        .messages(&f)
        .unwrap()
        .map(|m| m.unwrap().log_time.as_nanos())
        .collect();
    assert_eq!(times2, times);
}

#[test]
fn uncompressed_chunks_are_zero_copy() {
    let file = common::multi_chunk(Compression::None, true);
    let mcap = Mcap::new(&file).unwrap();
    let m = mcap
        .messages(&MessageFilter::all())
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    assert!(matches!(m.payload, logcore::Payload::Borrowed(_)));
    let off = m.offset.unwrap() as usize;
    // The offset names the Message record itself.
    assert_eq!(file[off], 0x05);
}

#[test]
fn interrupted_writer_is_readable_to_the_last_chunk_and_recoverable() {
    let opts = WriteOptions {
        chunk_size: 600,
        ..WriteOptions::default()
    };
    let mut w = Writer::new(Vec::new(), opts.clone()).unwrap();
    common::write_body(&mut w);
    let partial = w.into_inner();
    let got = common::streamed_messages_lenient(&partial);
    // Messages of every flushed chunk, in order, then a truncation.
    assert!(got.0.len() >= 40 && got.0.len() < 60, "{}", got.0.len());
    assert_eq!(got.0[..], common::messages()[..got.0.len()]);
    assert!(got.1.as_ref().unwrap().is_truncated());
    let (fixed, report) = recover(&partial, Vec::new(), opts.clone()).unwrap();
    assert_eq!(report.messages as usize, got.0.len());
    assert_eq!(report.attachments, 1);
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    // Only the footer was missing: nothing of the file was lost.
    assert!(!report.lossy && !report.is_empty());
    assert_eq!(common::streamed_messages(&fixed), got.0);
    // Cut inside a record, data is lost.
    let (_, report) = recover(&partial[..partial.len() - 5], Vec::new(), opts).unwrap();
    assert!(report.lossy && !report.is_empty());
    let s = Summary::read(&fixed, true).unwrap().unwrap();
    assert_eq!(s.statistics.unwrap().message_count as usize, got.0.len());
}

#[test]
fn lenient_mode_skips_a_damaged_chunk_and_goes_on() {
    let mut file = common::multi_chunk(Compression::Zstd, true);
    let s = Summary::read(&file, true).unwrap().unwrap();
    let second = &s.chunk_indexes[1];
    // Flip a bit in the stored CRC of the second chunk.
    file[second.chunk_start_offset as usize + 9 + 24] ^= 1;
    let lenient = ReadOptions {
        mode: ReadMode::Lenient,
        ..ReadOptions::default()
    };
    let items: Vec<_> = LinearReader::with_options(&file, lenient).collect();
    let errs: Vec<_> = items.iter().filter_map(|r| r.as_ref().err()).collect();
    // The chunk is skipped; the data-section CRC then no longer matches.
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(
        matches!(errs[0], mcapfile::Error::Skipped { offset, .. } if *offset == second.chunk_start_offset)
    );
    assert!(
        errs[1].to_string().contains("data_section_crc"),
        "{}",
        errs[1]
    );
    assert!(matches!(items.last(), Some(Ok(Record::Footer(_)))));
    let strict: Vec<_> = LinearReader::new(&file).collect();
    assert!(strict.last().unwrap().is_err());
    assert!(strict.len() < items.len());
}

#[test]
fn unknown_opcodes_and_padding_are_skipped() {
    // Magic, Header with 3 padding bytes, a private record, a chunk holding
    // a reserved-opcode record and a message, Data End, Footer, magic.
    let mut f = Vec::new();
    f.extend_from_slice(b"\x89MCAP0\r\n");
    let mut header = Vec::new();
    header.extend_from_slice(&0u32.to_le_bytes());
    header.extend_from_slice(&1u32.to_le_bytes());
    header.push(b'L');
    header.extend_from_slice(&[1, 0xff, 0xff]);
    push(&mut f, 0x01, &header);
    push(&mut f, 0x80, b"private");
    let mut inner = Vec::new();
    push(&mut inner, 0x04, &channel_content());
    push(&mut inner, 0x42, b"future");
    let mut msg = vec![0u8; 22];
    msg[6] = 9;
    msg.extend_from_slice(b"hi");
    push(&mut inner, 0x05, &msg);
    let mut chunk = Vec::new();
    chunk.extend_from_slice(&9u64.to_le_bytes());
    chunk.extend_from_slice(&9u64.to_le_bytes());
    chunk.extend_from_slice(&(inner.len() as u64).to_le_bytes());
    chunk.extend_from_slice(&crc32fast::hash(&inner).to_le_bytes());
    chunk.extend_from_slice(&0u32.to_le_bytes());
    chunk.extend_from_slice(&(inner.len() as u64).to_le_bytes());
    chunk.extend_from_slice(&inner);
    push(&mut f, 0x06, &chunk);
    push(&mut f, 0x0f, &0u32.to_le_bytes());
    push(&mut f, 0x02, &[0; 20]);
    f.extend_from_slice(b"\x89MCAP0\r\n");
    let recs: Vec<Record<'_>> = LinearReader::new(&f).map(|r| r.unwrap()).collect();
    let ops: Vec<u8> = recs.iter().map(Record::opcode).collect();
    assert_eq!(ops, [0x01, 0x80, 0x04, 0x42, 0x05, 0x0f, 0x02]);
    match &recs[4] {
        Record::Message(m) => {
            assert_eq!(m.log_time, 9);
            assert_eq!(&*m.data, b"hi");
        }
        other => panic!("{other:?}"),
    }
    match &recs[0] {
        Record::Header(h) => assert_eq!(h.library, "L"),
        other => panic!("{other:?}"),
    }
}

fn channel_content() -> Vec<u8> {
    let mut c = Vec::new();
    c.extend_from_slice(&0u16.to_le_bytes());
    c.extend_from_slice(&0u16.to_le_bytes());
    c.extend_from_slice(&1u32.to_le_bytes());
    c.push(b't');
    c.extend_from_slice(&4u32.to_le_bytes());
    c.extend_from_slice(b"json");
    c.extend_from_slice(&0u32.to_le_bytes());
    c
}

pub(crate) fn push(out: &mut Vec<u8>, opcode: u8, content: &[u8]) {
    out.push(opcode);
    out.extend_from_slice(&(content.len() as u64).to_le_bytes());
    out.extend_from_slice(content);
}

#[test]
fn lenient_mode_resynchronises_after_a_broken_record_length() {
    let mut file = common::multi_chunk(Compression::Lz4, true);
    let s = Summary::read(&file, true).unwrap().unwrap();
    let second = s.chunk_indexes[1].clone();
    // The chunk's length now runs past the end of the file.
    let len_at = second.chunk_start_offset as usize + 1;
    file[len_at + 6] = 0x7f;
    let lenient = ReadOptions {
        mode: ReadMode::Lenient,
        ..ReadOptions::default()
    };
    let items: Vec<_> = LinearReader::with_options(&file, lenient).collect();
    let skipped: Vec<_> = items
        .iter()
        .filter_map(|r| match r {
            Err(mcapfile::Error::Skipped { offset, len, .. }) => Some((*offset, *len)),
            _ => None,
        })
        .collect();
    assert_eq!(skipped[0].0, second.chunk_start_offset);
    // It resumes at the chunk's message indexes, right after the chunk.
    assert_eq!(skipped[0].1, second.chunk_length);
    let messages = items
        .iter()
        .filter(|r| matches!(r, Ok(Record::Message(_))))
        .count();
    assert!(messages > 40 && messages < 60, "{messages}");
    assert!(matches!(items.last(), Some(Ok(Record::Footer(_)))));
    // Strict mode reports where the damage is and stops.
    let strict: Vec<_> = LinearReader::new(&file).collect();
    let e = strict.last().unwrap().as_ref().unwrap_err();
    assert_eq!(e.offset(), Some(second.chunk_start_offset));
}
