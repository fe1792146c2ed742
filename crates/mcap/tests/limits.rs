//! Resource limits against hostile files: decompression bombs with honest
//! declared sizes are refused before anything is allocated for them, and
//! channels sharing one schema share one copy of it.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;

use logcore::{LogReader, MessageFilter, Payload, ReadMode};
use mcapfile::{
    Chunk, DataEnd, Footer, Header, Limits, LinearReader, MAGIC, Mcap, ReadOptions, Record,
    WriteOptions, Writer, encode_record,
};

/// An unindexed file holding one Chunk record (at byte 8 + the Header's
/// length) with `data` compressed by `compression`, declaring `declared`
/// uncompressed bytes.
fn file_with_chunk(compression: &str, data: &[u8], declared: u64) -> (Vec<u8>, u64) {
    let mut f = MAGIC.to_vec();
    f.extend(encode_record(&Record::Header(Header {
        profile: String::new(),
        library: "limits test".into(),
    })));
    let chunk_at = f.len() as u64;
    f.extend(encode_record(&Record::Chunk(Chunk {
        message_start_time: 0,
        message_end_time: 0,
        uncompressed_size: declared,
        uncompressed_crc: 0,
        compression: compression.into(),
        records: Payload::Borrowed(data),
    })));
    f.extend(encode_record(&Record::DataEnd(DataEnd {
        data_section_crc: 0,
    })));
    f.extend(encode_record(&Record::Footer(Footer::default())));
    f.extend_from_slice(MAGIC);
    (f, chunk_at)
}

/// `mib` MiB of zeros as concatenated zstd frames of 1 MiB each (about
/// 40 bytes per frame): an honest decompression bomb.
fn zstd_zeros(mib: usize) -> Vec<u8> {
    let frame = zstd::bulk::compress(&vec![0u8; 1 << 20], 1).unwrap();
    frame.repeat(mib)
}

/// The same as lz4 frames (about 4 KiB per MiB).
fn lz4_zeros(mib: usize) -> Vec<u8> {
    let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
    enc.write_all(&vec![0u8; 1 << 20]).unwrap();
    enc.finish().unwrap().repeat(mib)
}

#[test]
fn honest_gigabyte_chunks_are_refused_by_the_default_limit() {
    for (name, data) in [("zstd", zstd_zeros(4096)), ("lz4", lz4_zeros(1024))] {
        let declared = if name == "zstd" { 4u64 << 30 } else { 1 << 30 };
        let (f, at) = file_with_chunk(name, &data, declared);
        assert!(f.len() < 5 << 20, "{name}: {} bytes", f.len());
        let e = LinearReader::new(&f).nth(1).unwrap().unwrap_err();
        assert_eq!(e.offset(), Some(at), "{name}: {e}");
        assert_eq!(
            e.to_string(),
            format!(
                "at byte {at}: expected a chunk of at most 536870912 uncompressed bytes \
                 (the reader's limit; raise it with `--max-chunk-size` or \
                 `Limits::max_chunk_size`), found a chunk declaring {declared} uncompressed bytes"
            )
        );
        // The LogReader (a scan, then the messages) reports it too, in
        // lenient mode as a skipped stretch, and ends.
        let mcap = Mcap::new(&f).unwrap();
        let summary = mcap.summary().unwrap();
        assert_eq!(summary.message_count, 0);
        assert!(
            summary
                .warnings
                .iter()
                .any(|w| w.to_string().contains("reader's limit")),
            "{name}: {:?}",
            summary.warnings
        );
        let items: Vec<_> = mcap
            .messages(&MessageFilter::all().mode(ReadMode::Lenient))
            .unwrap()
            .collect();
        assert_eq!(items.len(), 1, "{name}");
        assert!(
            items[0]
                .as_ref()
                .unwrap_err()
                .to_string()
                .contains("536870912")
        );
    }
}

#[test]
fn the_limit_can_be_raised_and_lowered() {
    // 3 MiB of zeros: under the default, over a 1 MiB limit.
    let (f, at) = file_with_chunk("zstd", &zstd_zeros(3), 3 << 20);
    let small = Limits::default().with_max_chunk_size(1 << 20);
    let opts = ReadOptions {
        limits: small,
        ..ReadOptions::default()
    };
    let e = LinearReader::with_options(&f, opts)
        .nth(1)
        .unwrap()
        .unwrap_err();
    assert_eq!(e.offset(), Some(at));
    assert!(
        e.to_string().contains("at most 1048576 uncompressed"),
        "{e}"
    );
    // Under the limit the chunk decompresses (its zeros are no records:
    // the error is then about the records, not the limit).
    let e = LinearReader::new(&f).nth(1).unwrap().unwrap_err();
    assert!(!e.to_string().contains("limit"), "{e}");
    let raised = Limits::default().with_max_chunk_size(3 << 20);
    let mcap = Mcap::with_limits(&f, raised).unwrap();
    assert_eq!(mcap.limits(), raised);
    let warnings = mcap.summary().unwrap().warnings;
    assert!(!warnings.iter().any(|w| w.to_string().contains("limit")));
    let mcap = Mcap::with_limits(&f, small).unwrap();
    let warnings = mcap.summary().unwrap().warnings;
    assert!(warnings.iter().any(|w| w.to_string().contains("limit")));
    assert_eq!(Limits::default().max_chunk_size, 512 << 20);
    assert_eq!(Limits::UNLIMITED.max_chunk_size, u64::MAX);
}

/// `n` channels on one schema of `schema_len` bytes, one message each.
fn shared_schema_file(n: u32, schema_len: usize) -> Vec<u8> {
    let mut w = Writer::new(Vec::new(), WriteOptions::default()).unwrap();
    let schema = vec![b'#'; schema_len];
    let id = w.add_schema("big/Schema", "ros1msg", &schema).unwrap();
    for i in 0..n {
        let ch = w
            .add_channel(id, &format!("/t{i}"), "ros1", &BTreeMap::new())
            .unwrap();
        w.write_message(ch, 0, u64::from(i), u64::from(i), b"")
            .unwrap();
    }
    w.finish().unwrap()
}

#[test]
fn channels_share_one_copy_of_their_schema() {
    let f = shared_schema_file(65_535, 1 << 20);
    assert!(f.len() < 8 << 20, "{} bytes", f.len());
    let mcap = Mcap::new(&f).unwrap();
    let channels = mcap.channels().unwrap();
    assert_eq!(channels.len(), 65_535);
    let first = channels[0].schema.clone().unwrap();
    assert_eq!(first.data.len(), 1 << 20);
    assert_eq!(first.name, "big/Schema");
    assert!(
        channels
            .iter()
            .all(|c| Arc::ptr_eq(c.schema.as_ref().unwrap(), &first))
    );
    // The summary and the `mcap info` report share it too.
    let summary = mcap.summary().unwrap();
    assert_eq!(summary.message_count, 65_535);
    assert!(
        summary
            .channels
            .iter()
            .all(|c| Arc::ptr_eq(c.info.schema.as_ref().unwrap(), &first))
    );
    let info = mcapfile::info::Info::new(&mcap).unwrap();
    assert_eq!(info.channels.len(), 65_535);
    assert!(
        info.channels
            .iter()
            .all(|c| Arc::ptr_eq(c.schema.as_ref().unwrap(), &first))
    );
}
