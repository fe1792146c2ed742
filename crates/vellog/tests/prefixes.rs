//! Truncation at every byte: all complete messages before the cut, then a
//! clean end or one truncation report; never a panic.

mod common;

use common::{Expected, SPEC_EXAMPLE, read_all, sample_file};
use logcore::{LogReader, MessageFilter};
use vellog::{Error, ReadMode, SizeConvention, VelLog, WriterOptions};

/// Message end offsets of a complete file, in order.
fn message_ends(file: &[u8]) -> Vec<u64> {
    let log = VelLog::new(file).unwrap();
    log.records().map(|r| r.unwrap().end()).collect()
}

/// `guessable`: whether the size convention can be told from a cut inside
/// the first message (not for convention (b) files).
fn check_every_prefix(file: &[u8], all: &[Expected], modes: &[ReadMode], guessable: bool) {
    let ends = message_ends(file);
    assert_eq!(ends.len(), all.len());
    let first = VelLog::new(file).unwrap().first_message_offset() as usize;
    for cut in 0..=file.len() {
        let prefix = &file[..cut];
        if cut < first {
            // Header or index cut: opening reports the truncation.
            match VelLog::new(prefix) {
                Err(Error::Parse(vellog::ParseError::Truncated { needed, .. })) => {
                    assert!(needed > 0 && needed <= file.len() as u64, "cut {cut}")
                }
                other => panic!("cut {cut}: expected truncation, got {other:?}"),
            }
            continue;
        }
        let complete = ends.iter().filter(|&&e| e <= cut as u64).count();
        let at_boundary = cut == first || ends.contains(&(cut as u64));
        for &mode in modes {
            let (good, errors) = read_all(prefix, mode);
            if !guessable && complete == 0 {
                // Inside the first message of a convention (b) file the
                // convention cannot be known (a cut 4 bytes short of its end
                // is also an (a) file with a damaged payload); only "no
                // panic" holds.
                continue;
            }
            assert_eq!(good, all[..complete], "cut {cut} {mode:?}");
            if at_boundary {
                assert!(errors.is_empty(), "cut {cut} {mode:?}: {errors:?}");
            } else {
                assert_eq!(errors.len(), 1, "cut {cut} {mode:?}: {errors:?}");
                match &errors[0] {
                    Error::Parse(vellog::ParseError::Truncated { offset, needed, .. }) => {
                        let start = if complete == 0 {
                            first as u64
                        } else {
                            ends[complete - 1]
                        };
                        assert_eq!(*offset, start, "cut {cut}");
                        // With the size field cut, only the missing part of
                        // it is known to be missing.
                        let have = cut as u64 - start;
                        let missing = if have < 4 {
                            4 - have
                        } else {
                            ends[complete] - cut as u64
                        };
                        assert_eq!(*needed, missing, "cut {cut}");
                    }
                    e => panic!("cut {cut} {mode:?}: expected truncation, got {e}"),
                }
            }
        }
        // The summary and the logcore iteration never panic either.
        let log = VelLog::new(prefix).unwrap();
        let s = log.summary().unwrap();
        if !guessable && complete == 0 {
            continue;
        }
        assert_eq!(s.message_count, complete as u64, "cut {cut}");
        let n = log
            .messages(&MessageFilter::all())
            .unwrap()
            .filter(|m| m.is_ok())
            .count();
        assert_eq!(n, complete, "cut {cut}");
    }
}

#[test]
fn every_prefix_of_the_spec_example() {
    let all = read_all(&SPEC_EXAMPLE, ReadMode::Strict).0;
    check_every_prefix(
        &SPEC_EXAMPLE,
        &all,
        &[ReadMode::Strict, ReadMode::Lenient],
        true,
    );
}

#[test]
fn every_prefix_of_an_all_types_file() {
    let (file, all) = sample_file(WriterOptions::default());
    check_every_prefix(&file, &all, &[ReadMode::Strict, ReadMode::Lenient], true);
}

#[test]
fn every_prefix_of_a_convention_b_file() {
    let (file, all) = sample_file(WriterOptions {
        size_convention: SizeConvention::ExcludesSizeField,
        ..Default::default()
    });
    assert_eq!(
        VelLog::new(&file).unwrap().size_convention(),
        SizeConvention::ExcludesSizeField
    );
    check_every_prefix(&file, &all, &[ReadMode::Strict, ReadMode::Lenient], false);
}

#[test]
fn every_prefix_of_a_terminated_file() {
    let (file, all) = sample_file(WriterOptions {
        terminator: true,
        ..Default::default()
    });
    // Cuts inside the terminator look like a truncated size field; the
    // full terminator ends cleanly. Check the message part exhaustively.
    let body = file.len() - 4;
    check_every_prefix(
        &file[..body],
        &all,
        &[ReadMode::Strict, ReadMode::Lenient],
        true,
    );
    for cut in body + 1..body + 4 {
        let (good, errors) = read_all(&file[..cut], ReadMode::Strict);
        assert_eq!(good, all);
        assert!(
            matches!(
                errors[..],
                [Error::Parse(vellog::ParseError::Truncated { .. })]
            ),
            "{errors:?}"
        );
    }
    let (good, errors) = read_all(&file, ReadMode::Strict);
    assert_eq!(good, all);
    assert!(errors.is_empty());
}
