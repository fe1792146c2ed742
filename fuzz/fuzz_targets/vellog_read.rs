//! Reads arbitrary bytes as a VEL log every way the crate offers: summary,
//! strict and lenient iteration (typed and through logcore), time-filtered
//! iteration through the index, and decoding of every message. Any panic,
//! endless loop or huge allocation is a finding.

#![no_main]

use libfuzzer_sys::fuzz_target;
use logcore::{LogReader, MessageFilter, ReadMode, Timestamp};
use vellog::VelLog;

fuzz_target!(|data: &[u8]| {
    let Ok(log) = VelLog::new(data) else {
        return;
    };
    let _ = log.summary();
    let _ = log.index_check();
    for mode in [ReadMode::Strict, ReadMode::Lenient] {
        for rec in log.records_with(mode).flatten() {
            let _ = rec.decode();
            let _ = rec.timestamp();
        }
        let Ok(messages) = log.messages(&MessageFilter::all().mode(mode)) else {
            continue;
        };
        for m in messages.flatten() {
            let _ = log.decode(&m);
        }
    }
    // A seek through the index, compared with a plain filter.
    if let Some(t0) = log.first_timestamp_ms() {
        if let Some(start) = Timestamp::from_millis_f64(t0 + 1500.0) {
            let filter = MessageFilter::all().start(start).mode(ReadMode::Lenient);
            let seeked = log.messages(&filter).map(|it| it.flatten().count());
            let _ = seeked;
        }
    }
});
