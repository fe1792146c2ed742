//! Reads arbitrary bytes as a ROS bag every way the crate offers: open
//! (index or scan), summary, per-message index, strict and lenient
//! time-ordered iteration with and without filters, decoding of every
//! message, and reindexing. Any panic, endless loop or huge allocation is
//! a finding.

#![no_main]

use libfuzzer_sys::fuzz_target;
use logcore::{ChannelId, LogReader, MessageFilter, ReadMode, Timestamp};
use rosbag12::Bag;

fuzz_target!(|data: &[u8]| {
    let Ok(bag) = Bag::new(data) else {
        return;
    };
    let _ = bag.summary();
    let _ = bag.message_times();
    for c in bag.connections() {
        let _ = bag.message_type(c.id);
    }
    for mode in [ReadMode::Strict, ReadMode::Lenient] {
        for m in bag.messages(&MessageFilter::all().mode(mode)).flatten() {
            let _ = bag.decode(m.conn, &m.data);
        }
    }
    if let Some((start, _)) = bag.time_range() {
        let filter = MessageFilter::all()
            .channels([ChannelId(0)])
            .start(Timestamp::from_nanos(start.to_timestamp().as_nanos() + 1))
            .mode(ReadMode::Lenient);
        let _ = bag.messages(&filter).count();
    }
    let _ = rosbag12::reindex(data, std::io::Cursor::new(Vec::new()));
});
