//! Files made by our writer for the integration tests.

#![allow(dead_code, unreachable_pub)]

use std::collections::BTreeMap;

use mcapfile::{Compression, LinearReader, ReadOptions, Record, WriteOptions, Writer};

/// (channel, log_time, payload) of a message.
pub type Msg = (u16, u64, Vec<u8>);

/// The messages `multi_chunk` writes, in write order.
pub fn messages() -> Vec<Msg> {
    messages_n(60)
}

/// The first `n` of them.
pub fn messages_n(n: u64) -> Vec<Msg> {
    (0..n)
        .map(|i| {
            // Times jump back every 7 messages, so chunks overlap in time.
            let t = 1_000 * i - if i % 7 == 3 { 2_500 } else { 0 };
            let ch = (i % 3) as u16;
            (
                ch,
                t,
                format!(
                    "{{\"i\": {i}, \"pad\": \"{}\"}}",
                    "x".repeat(i as usize % 40)
                )
                .into_bytes(),
            )
        })
        .collect()
}

/// A file with three channels and several chunks of `compression`.
pub fn multi_chunk(compression: Compression, use_chunks: bool) -> Vec<u8> {
    multi_chunk_n(compression, use_chunks, 60)
}

/// The same with the first `n` messages only.
pub fn multi_chunk_n(compression: Compression, use_chunks: bool, n: u64) -> Vec<u8> {
    let opts = WriteOptions {
        compression,
        use_chunks,
        chunk_size: 600,
        ..WriteOptions::default()
    };
    let mut w = Writer::new(Vec::new(), opts).unwrap();
    write_body_n(&mut w, n);
    w.finish().unwrap()
}

pub fn write_body<W: std::io::Write>(w: &mut Writer<W>) {
    write_body_n(w, 60);
}

pub fn write_body_n<W: std::io::Write>(w: &mut Writer<W>, n: u64) {
    let s = w
        .add_schema("Sample", "jsonschema", b"{\"type\":\"object\"}")
        .unwrap();
    let mut meta = BTreeMap::new();
    meta.insert("k".to_string(), "v".to_string());
    for name in ["/a", "/b", "/c"] {
        w.add_channel(s, name, "json", &meta).unwrap();
    }
    for (i, (ch, t, data)) in messages_n(n).into_iter().enumerate() {
        w.write_message(ch, i as u32, t, t + 1, &data).unwrap();
        if i == 20 {
            w.write_attachment(5, 6, "calib.txt", "text/plain", b"hello")
                .unwrap();
            w.write_metadata("run", &meta).unwrap();
        }
    }
}

/// Messages of a file as (channel, log_time, payload), via the streamed reader.
pub fn streamed_messages(data: &[u8]) -> Vec<Msg> {
    LinearReader::with_options(data, ReadOptions::default())
        .filter_map(|r| match r.unwrap() {
            Record::Message(m) => Some((m.channel_id, m.log_time, m.data.to_vec())),
            _ => None,
        })
        .collect()
}

/// Messages read leniently, and the last error (if any).
pub fn streamed_messages_lenient(data: &[u8]) -> (Vec<Msg>, Option<mcapfile::Error>) {
    let opts = ReadOptions {
        mode: logcore::ReadMode::Lenient,
        ..ReadOptions::default()
    };
    let mut out = Vec::new();
    let mut err = None;
    for r in LinearReader::with_options(data, opts) {
        match r {
            Ok(Record::Message(m)) => out.push((m.channel_id, m.log_time, m.data.to_vec())),
            Ok(_) => {}
            Err(e) => err = Some(e),
        }
    }
    (out, err)
}
