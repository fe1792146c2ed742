//! Every prefix of a recording: no panic, every complete frame before the
//! cut, then a truncation error naming where the cut frame starts.

mod common;

use carla_recorder::*;
use common::*;
use logcore::{LogReader, MessageFilter, ReadMode};

#[test]
fn every_prefix_yields_complete_frames_then_truncation() {
    let bytes = sample(Layout::default());
    let full = Recording::new(&bytes).unwrap();
    let frames: Vec<Frame<'_>> = full.frames().collect::<Result<_>>().unwrap();
    let ends: Vec<u64> = frames.iter().map(|f| f.end).collect();
    let header_len = full.first_packet_offset() as usize;
    for cut in 0..bytes.len() {
        let prefix = &bytes[..cut];
        let rec = match Recording::new(prefix) {
            Ok(r) => r,
            Err(e) => {
                assert!(cut < header_len, "cut {cut}: {e}");
                assert!(e.is_truncated(), "cut {cut}: {e}");
                continue;
            }
        };
        let complete = ends.iter().filter(|&&e| e <= cut as u64).count();
        for mode in [ReadMode::Strict, ReadMode::Lenient] {
            let mut ok = 0;
            let mut errors = Vec::new();
            for f in rec.frames_with(mode) {
                match f {
                    Ok(f) => {
                        assert_eq!(f, frames[ok], "cut {cut}");
                        ok += 1;
                    }
                    Err(e) => errors.push(e),
                }
            }
            assert_eq!(ok, complete, "cut {cut} {mode:?}");
            let at_boundary = cut == header_len || ends.contains(&(cut as u64));
            if at_boundary {
                assert!(errors.is_empty(), "cut {cut}: {errors:?}");
            } else {
                assert_eq!(errors.len(), 1, "cut {cut}: {errors:?}");
                let e = &errors[0];
                assert!(e.is_truncated(), "cut {cut}: {e}");
                let frame_start = if complete == 0 {
                    header_len as u64
                } else {
                    ends[complete - 1]
                };
                assert!(e.offset().unwrap() >= frame_start, "cut {cut}: {e}");
            }
        }
        // The logcore view agrees: summary counts exactly the complete frames.
        let s = rec.summary().unwrap();
        assert_eq!(s.metadata["frames"], complete.to_string(), "cut {cut}");
        let n = rec
            .messages(&MessageFilter::all())
            .unwrap()
            .filter(Result::is_ok)
            .count();
        assert_eq!(n as u64, s.message_count, "cut {cut}");
        let _ = Timeline::build(&rec);
    }
}
