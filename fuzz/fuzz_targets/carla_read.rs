//! Reads arbitrary bytes as a CARLA recording every way the crate offers:
//! packets and frames in both modes, typed decoding and values of every
//! packet, the logcore summary and messages, the timeline, the rewrite and
//! the three reports. Any panic, endless loop or huge allocation is a
//! finding.

#![no_main]

use carla_recorder::report::{ReportOptions, actors_blocked, collisions, file_info};
use carla_recorder::{Layout, ReadMode, Recording, Timeline, packet_value, rewrite};
use libfuzzer_sys::fuzz_target;
use logcore::{LogReader, MessageFilter};

fuzz_target!(|data: &[u8]| {
    for layout in [None, Some(Layout::CARLA_0_9_10), Some(Layout::CARLA_0_10)] {
        let rec = match layout {
            None => Recording::new(data),
            Some(l) => Recording::with_layout(data, l),
        };
        let Ok(rec) = rec else {
            return;
        };
        let layout = rec.layout();
        for mode in [ReadMode::Strict, ReadMode::Lenient] {
            for f in rec.frames_with(mode).flatten() {
                for p in f.decoded(&layout).flatten() {
                    let _ = packet_value(&p, &layout);
                }
            }
            if let Ok(it) = rec.messages(&MessageFilter::all().mode(mode)) {
                for m in it.flatten() {
                    let _ = rec.decode(&m);
                }
            }
        }
        let _ = rec.summary();
        let _ = Timeline::build(&rec);
        let _ = rewrite(&rec);
        let o = ReportOptions::default();
        let _ = file_info(&rec, true, &o, &mut std::io::sink());
        let _ = collisions(&rec, 'a', 'h', &o, &mut std::io::sink());
        let _ = actors_blocked(&rec, 1.0, 10.0, &o, &mut std::io::sink());
    }
});
