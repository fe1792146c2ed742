//! Reads arbitrary bytes as an MCAP file every way the crate offers:
//! strict and lenient streamed reading (flattened and raw chunks), the
//! summary and the indexed reader with and without a filter, the logcore
//! reader with decoding, and recovery. Any panic, endless loop or huge
//! allocation is a finding.

#![no_main]

use libfuzzer_sys::fuzz_target;
use logcore::{LogReader, MessageFilter, ReadMode};
use mcapfile::{
    IndexFilter, IndexedMessages, LinearReader, Mcap, ReadOptions, Summary, WriteOptions, recover,
};

fuzz_target!(|data: &[u8]| {
    for mode in [ReadMode::Strict, ReadMode::Lenient] {
        for flatten in [true, false] {
            let opts = ReadOptions {
                mode,
                flatten_chunks: flatten,
                max_chunk_size: 1 << 24,
                ..ReadOptions::default()
            };
            for _ in LinearReader::with_options(data, opts) {}
        }
    }
    if let Ok(Some(s)) = Summary::read(data, false) {
        let opts = ReadOptions {
            mode: ReadMode::Lenient,
            max_chunk_size: 1 << 24,
            ..ReadOptions::default()
        };
        for _ in IndexedMessages::new(data, &s, IndexFilter::default(), opts) {}
        let f = IndexFilter {
            channels: Some([0, 1].into()),
            start: Some(1),
            end: Some(1 << 40),
        };
        for _ in IndexedMessages::new(data, &s, f, opts) {}
    }
    if let Ok(mcap) = Mcap::new(data) {
        let _ = mcap.summary();
        let _ = mcap.channels();
        for mode in [ReadMode::Strict, ReadMode::Lenient] {
            if let Ok(it) = mcap.messages(&MessageFilter::all().mode(mode)) {
                for m in it.flatten() {
                    let _ = mcap.decode(&m);
                }
            }
        }
    }
    let _ = recover(data, Vec::new(), WriteOptions::default());
});
