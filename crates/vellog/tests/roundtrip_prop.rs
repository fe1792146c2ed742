//! Properties of write-then-read for any messages: read(write(x)) == x,
//! strictly and leniently, and every prefix of a written file reads back
//! exactly the messages that end before the cut.
//!
//! Truncation semantics: a cut inside the header or the index is an error
//! when opening (the index sits before the messages); a cut at or after
//! the first message opens, and the strict reader yields every message
//! that ends at or before the cut, then one truncation error unless the cut
//! falls on a message boundary. Files use size convention (a) and, for the
//! prefix property, documented message types only: the reader detects the
//! convention from payload sizes (spec 5.1), and a file of undocumented
//! types cut 4 bytes into a message is also a valid convention (b) file,
//! so for such files only "no panic" holds (the fuzz targets cover it).

use std::io::Cursor;

use proptest::prelude::*;
use vellog::{ReadMode, VelLog, Writer};

/// A message: type id, version, timestamp (ms), payload.
type Msg = (i32, i32, f64, Vec<u8>);

/// Messages; `raw`: also of undocumented types (any payload size).
///
/// Documented types get payloads of their size: a payload a type cannot
/// have is evidence for the other size convention (spec 5.1), so a file
/// of such messages may rightly be read as convention (b).
fn messages(raw: bool) -> impl Strategy<Value = Vec<Msg>> {
    let typed = prop_oneof![
        prop::collection::vec(any::<u8>(), 28).prop_map(|p| (vellog::OBD_DATA, 100, p)),
        prop::collection::vec(any::<u8>(), 28).prop_map(|p| (vellog::ROBOT_POSE, 100, p)),
    ];
    let undocumented =
        (any::<i32>(), prop::collection::vec(any::<u8>(), 0..48)).prop_map(|(t, p)| (t, 7, p));
    let message = if raw {
        prop_oneof![typed, undocumented].boxed()
    } else {
        typed.boxed()
    };
    prop::collection::vec((message, -2_000.0..5_000.0f64), 0..10).prop_map(|v| {
        // Timestamps as steps from 1000 ms, so the index stays small.
        let mut t = 1_000.0;
        v.into_iter()
            .map(|((ty, ver, payload), step)| {
                t += step;
                (ty, ver, t, payload)
            })
            .collect()
    })
}

fn write(messages: &[Msg]) -> Vec<u8> {
    let mut w = Writer::new(Cursor::new(Vec::new())).unwrap();
    for (ty, ver, t, payload) in messages {
        w.write_raw(*ty, *ver, *t, payload).unwrap();
    }
    w.into_inner().unwrap().into_inner()
}

/// The messages read before the first error, and how many errors follow.
fn read(file: &[u8], mode: ReadMode) -> (Vec<Msg>, usize) {
    let log = VelLog::new(file).unwrap();
    let mut good = Vec::new();
    let mut errors = 0;
    for r in log.records_with(mode) {
        match r {
            Ok(r) if errors == 0 => {
                good.push((r.type_id, r.version, r.timestamp_ms, r.payload.to_vec()))
            }
            _ => errors += 1,
        }
    }
    (good, errors)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn read_of_write_is_identity(messages in messages(true)) {
        let file = write(&messages);
        for mode in [ReadMode::Strict, ReadMode::Lenient] {
            prop_assert_eq!(read(&file, mode), (messages.clone(), 0));
        }
    }

    #[test]
    fn every_prefix_reads_the_messages_before_the_cut(messages in messages(false)) {
        let file = write(&messages);
        let log = VelLog::new(&file).unwrap();
        let first = log.first_message_offset() as usize;
        let ends: Vec<u64> = log.records().map(|r| r.unwrap().end()).collect();
        prop_assert_eq!(ends.len(), messages.len());
        prop_assert_eq!(ends.last().map_or(first as u64, |&e| e), file.len() as u64);
        for cut in 0..=file.len() {
            let prefix = &file[..cut];
            if cut < first {
                prop_assert!(VelLog::new(prefix).is_err(), "cut {}", cut);
                continue;
            }
            let complete = ends.iter().filter(|&&e| e <= cut as u64).count();
            let boundary = cut == first || ends.contains(&(cut as u64));
            let (good, errors) = read(prefix, ReadMode::Strict);
            prop_assert_eq!(&good, &messages[..complete], "cut {}", cut);
            prop_assert_eq!(errors, usize::from(!boundary), "cut {}", cut);
        }
    }
}
