//! Opens arbitrary bytes through the `robolog` facade, as a tool does with
//! a file of unknown format: probing, the format's reader, the summary,
//! every message in lenient mode, and decoding through the decoder
//! registry (ROS 1 definitions and protobuf descriptors taken from MCAP
//! schemas, JSON) with the raw fallback. Any panic, endless loop or huge
//! allocation is a finding.

#![no_main]

use libfuzzer_sys::fuzz_target;
use logcore::{LogReader, MessageFilter, ReadMode};
use robolog::LenientDecoder;

fuzz_target!(|data: &[u8]| {
    let Ok(log) = robolog::open_bytes(data) else {
        return;
    };
    let _ = log.summary();
    let Ok(messages) = log.messages(&MessageFilter::all().mode(ReadMode::Lenient)) else {
        return;
    };
    let mut decoder = LenientDecoder::new(&log);
    for msg in messages.take(10_000).flatten() {
        let _ = decoder.decode(&msg);
    }
});
