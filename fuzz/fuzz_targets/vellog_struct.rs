//! Structure-aware VEL fuzzing: the fuzzer chooses the writer options and
//! messages (documented type ids or any, payloads, timestamps); our
//! `Writer` writes them (header, per-second index, sizes right); then the
//! chosen mutations damage the file. Unmutated, every message must read
//! back as written, strictly and leniently; mutated, every reader must
//! return normally.

#![no_main]

use std::io::Cursor;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use logcore::ReadMode;
use robolog_fuzz::{Mutation, mutate, read};
use vellog::{MessageData, SizeConvention, VelLog, Writer, WriterOptions};

const TYPES: [(i32, i32); 6] = [
    (vellog::OBD_DATA, 100),
    (vellog::GPS_DATA, 100),
    (vellog::IMAGE, 100),
    (vellog::ROBOT_POSE, 100),
    (vellog::VELODYNE_RAW_DATA, 100),
    (vellog::LASER_RANGE_2D_DATA, 101),
];

#[derive(Arbitrary, Debug)]
struct Input {
    terminator: bool,
    size_b: bool,
    start_ms: i32,
    messages: Vec<Msg>,
    mutations: Vec<Mutation>,
}

#[derive(Arbitrary, Debug)]
struct Msg {
    /// A documented type (index) or any (type id, version).
    kind: Result<u8, (i32, i32)>,
    /// Milliseconds after the previous message (negative: backwards).
    step_ms: i16,
    fraction: u8,
    payload: Vec<u8>,
}

/// A written message: type id, version, timestamp bits, payload.
type Written = (i32, i32, u64, Vec<u8>);

fn write(input: &Input) -> Option<(Vec<u8>, Vec<Written>)> {
    let options = WriterOptions {
        terminator: input.terminator,
        size_convention: if input.size_b {
            SizeConvention::ExcludesSizeField
        } else {
            SizeConvention::IncludesHeader
        },
        ..WriterOptions::default()
    };
    let mut w = Writer::with_options(Cursor::new(Vec::new()), options).ok()?;
    let mut t = f64::from(input.start_ms);
    let mut written = Vec::new();
    for m in &input.messages {
        let (type_id, version) = match m.kind {
            Ok(i) => TYPES[usize::from(i) % TYPES.len()],
            Err(pair) => pair,
        };
        t += f64::from(m.step_ms) + f64::from(m.fraction) / 256.0;
        w.write_raw(type_id, version, t, &m.payload).ok()?;
        written.push((type_id, version, t.to_bits(), m.payload.clone()));
    }
    Some((w.into_inner().ok()?.into_inner(), written))
}

fuzz_target!(|input: Input| {
    let Some((mut file, written)) = write(&input) else {
        return;
    };
    // The reader detects the size convention (spec 5.1), which a file can
    // leave open: a documented type with a payload it cannot have is
    // evidence for the other convention, and a convention (b) file whose
    // last payload ends in FF FF FF FF is also an (a) file with a
    // terminator (ties go to (a)). The round trip is asserted for
    // convention (a) files whose payload sizes fit their types.
    let sizes_fit = written
        .iter()
        .all(|(ty, ver, _, payload)| MessageData::parse(*ty, *ver, payload, 0).is_ok());
    if input.mutations.is_empty() && sizes_fit && !input.size_b {
        let log = VelLog::new(&file).expect("an unmutated log opens");
        for mode in [ReadMode::Strict, ReadMode::Lenient] {
            let read: Vec<Written> = log
                .records_with(mode)
                .map(|r| {
                    let r = r.expect("an unmutated log reads cleanly");
                    (
                        r.type_id,
                        r.version,
                        r.timestamp_ms.to_bits(),
                        r.payload.to_vec(),
                    )
                })
                .collect();
            assert_eq!(read, written, "{mode:?}");
        }
    }
    mutate(&mut file, &input.mutations);
    read::vellog(&file);
});
