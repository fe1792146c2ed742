//! Size conventions, the terminator, the marker byte, bad index entries and
//! lenient resynchronisation.

mod common;

use common::{file_head, raw_message, read_all, sample_file};
use logcore::{LogReader, MessageFilter, ReadMode};
use vellog::FormatError;
use vellog::{EndOfRecords, Error, SizeConvention, VelLog, WriterOptions};

fn assert_clean(file: &[u8], expected: &[common::Expected]) {
    let (good, errors) = read_all(file, ReadMode::Strict);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(good, expected);
}

#[test]
fn convention_b_is_detected_and_read() {
    let (a, expected) = sample_file(WriterOptions::default());
    let (b, expected_b) = sample_file(WriterOptions {
        size_convention: SizeConvention::ExcludesSizeField,
        ..Default::default()
    });
    assert_eq!(expected, expected_b);
    assert_eq!(a.len(), b.len());
    assert_ne!(a, b);
    let log = VelLog::new(&b).unwrap();
    assert_eq!(log.size_convention(), SizeConvention::ExcludesSizeField);
    let first = log.records().next().unwrap().unwrap();
    assert_eq!(first.size, 28 + 17);
    assert_clean(&b, &expected);
    let s = log.summary().unwrap();
    assert!(s.metadata["size_convention"].starts_with("b "));
    assert_eq!(s.message_count, expected.len() as u64);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.metadata["index_valid"], "true");
}

#[test]
fn terminator_stops_reading_and_trailing_bytes_are_reported() {
    let (file, expected) = sample_file(WriterOptions {
        terminator: true,
        ..Default::default()
    });
    assert_eq!(&file[file.len() - 4..], [0xFF; 4]);
    let log = VelLog::new(&file).unwrap();
    assert_clean(&file, &expected);
    let term_at = file.len() as u64 - 4;
    assert_eq!(
        log.end_of_records(),
        Some(EndOfRecords::Terminator {
            offset: term_at,
            trailing: 0
        })
    );
    let s = log.summary().unwrap();
    assert_eq!(s.metadata["terminator"], format!("at byte {term_at}"));
    assert!(s.warnings.is_empty());

    let mut padded = file.clone();
    padded.extend_from_slice(b"junk after the end");
    let log = VelLog::new(&padded).unwrap();
    assert_clean(&padded, &expected);
    let s = log.summary().unwrap();
    assert_eq!(s.metadata["trailing_bytes"], "18");
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(s.warnings[0].offset(), Some(term_at + 4));
}

#[test]
fn marker_0x31_only_in_lenient_mode() {
    let mut f = file_head(&[]);
    f.extend(raw_message(0x49, vellog::OBD_DATA, 100, 1.0, &[0; 28]));
    f.extend(raw_message(0x31, vellog::OBD_DATA, 100, 2.0, &[1; 28]));
    f.extend(raw_message(0x49, vellog::OBD_DATA, 100, 3.0, &[2; 28]));
    let (good, errors) = read_all(&f, ReadMode::Strict);
    assert_eq!(good.len(), 1);
    match &errors[..] {
        [Error::Parse(vellog::ParseError::Malformed { offset, found, .. })] => {
            assert_eq!(*offset, 12 + 49 + 4);
            assert!(found.contains("0x31"), "{found}");
        }
        other => panic!("{other:?}"),
    }
    let (good, errors) = read_all(&f, ReadMode::Lenient);
    assert!(errors.is_empty());
    assert_eq!(
        good.iter().map(|g| g.timestamp_ms).collect::<Vec<_>>(),
        [1.0, 2.0, 3.0]
    );
    let log = VelLog::new(&f).unwrap();
    let s = log.summary().unwrap();
    assert_eq!(s.message_count, 3);
    assert_eq!(s.metadata["marker_0x31_messages"], "1");
    let strict: Vec<_> = log.messages(&MessageFilter::all()).unwrap().collect();
    assert_eq!(strict.len(), 2);
    assert!(strict[1].is_err());
}

#[test]
fn other_markers_are_corruption() {
    let mut f = file_head(&[]);
    f.extend(raw_message(0x00, vellog::OBD_DATA, 100, 1.0, &[0; 28]));
    let (good, errors) = read_all(&f, ReadMode::Strict);
    assert!(good.is_empty());
    assert!(matches!(
        errors[..],
        [Error::Parse(vellog::ParseError::Malformed {
            offset: 16,
            ..
        })]
    ));
}

#[test]
fn bad_index_entries_are_ignored() {
    let msg = |t: f64| raw_message(0x49, vellog::OBD_DATA, 100, t, &[7; 28]);
    // Entries: outside the file, negative, before the messages, and in the
    // middle of a message.
    let entries = [10_000, -1, 4, 0];
    let first = 12 + 8 * entries.len() as i64;
    let mut entries = entries;
    entries[3] = first + 30;
    let mut f = file_head(&entries);
    f.extend(msg(0.0));
    f.extend(msg(1500.0));
    f.extend(msg(3200.0));
    let log = VelLog::new(&f).unwrap();
    let check = log.index_check();
    assert!(!check.usable);
    assert_eq!(
        check.bad_entries.iter().map(|b| b.0).collect::<Vec<_>>(),
        [0, 1, 2, 3]
    );
    // Reading and seeking are unaffected.
    assert_eq!(read_all(&f, ReadMode::Strict).0.len(), 3);
    let t = logcore::Timestamp::from_nanos(3_000_000_000);
    assert_eq!(log.start_offset_for(t), first as u64);
    let msgs: Vec<_> = log
        .messages(&MessageFilter::all().start(t))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(msgs.len(), 1);
    let s = log.summary().unwrap();
    assert_eq!(s.metadata["index_valid"], "false");
    assert_eq!(s.metadata["index_used_for_seeking"], "false");
    // One warning per bad entry, plus one saying the index is not used.
    assert_eq!(s.warnings.len(), 5, "{:?}", s.warnings);

    // A plausible-looking but wrong entry (a real header, wrong second) is
    // caught by the time check.
    let first = 12 + 16;
    let mut f = file_head(&[first, first]);
    f.extend(msg(0.0));
    f.extend(msg(1500.0));
    let log = VelLog::new(&f).unwrap();
    assert!(!log.index_check().usable);
    assert!(log.index_check().bad_entries.is_empty());
}

#[test]
fn lenient_resync_over_a_corrupted_region() {
    let (file, expected) = sample_file(WriterOptions::default());
    let log = VelLog::new(&file).unwrap();
    let recs: Vec<_> = log.records().map(Result::unwrap).collect();
    // Smash the 3rd and 4th messages (headers included) with garbage.
    let from = recs[2].offset as usize;
    let to = recs[4].offset as usize;
    let mut damaged = file.clone();
    for (i, b) in damaged[from..to].iter_mut().enumerate() {
        *b = (i * 31 % 251) as u8;
    }
    let (good, errors) = read_all(&damaged, ReadMode::Strict);
    assert_eq!(good, expected[..2]);
    assert_eq!(errors.len(), 1);
    // The size field is garbage too, but the marker is what gives it away.
    assert_eq!(errors[0].offset(), Some(from as u64 + 4));

    let (good, errors) = read_all(&damaged, ReadMode::Lenient);
    let mut want = expected[..2].to_vec();
    want.extend_from_slice(&expected[4..]);
    assert_eq!(good, want);
    match &errors[..] {
        [Error::Parse(vellog::ParseError::Skipped { offset, len, .. })] => {
            assert_eq!((*offset, *len), (from as u64, (to - from) as u64));
        }
        other => panic!("{other:?}"),
    }
    // Through logcore, and in the summary.
    let log = VelLog::new(&damaged).unwrap();
    let items: Vec<_> = log
        .messages(&MessageFilter::all().mode(ReadMode::Lenient))
        .unwrap()
        .collect();
    assert_eq!(items.iter().filter(|i| i.is_ok()).count(), want.len());
    assert!(matches!(items[2], Err(logcore::Error::Skipped { .. })));
    let s = log.summary().unwrap();
    assert_eq!(s.message_count, want.len() as u64);
    assert!(
        s.warnings
            .iter()
            .any(|w| matches!(w, logcore::Error::Skipped { .. }))
    );
}

#[test]
fn lenient_resync_over_a_damaged_size_field() {
    let (file, expected) = sample_file(WriterOptions::default());
    let log = VelLog::new(&file).unwrap();
    let recs: Vec<_> = log.records().map(Result::unwrap).collect();
    // A size field pointing past the end looks like truncation; lenient
    // mode finds the messages after it.
    let at = recs[5].offset as usize;
    let mut damaged = file.clone();
    damaged[at..at + 4].copy_from_slice(&0x7FFF_0000u32.to_le_bytes());
    let (good, errors) = read_all(&damaged, ReadMode::Strict);
    assert_eq!(good, expected[..5]);
    assert!(matches!(
        errors[..],
        [Error::Parse(vellog::ParseError::Truncated { .. })]
    ));
    let (good, errors) = read_all(&damaged, ReadMode::Lenient);
    let mut want = expected[..5].to_vec();
    want.extend_from_slice(&expected[6..]);
    assert_eq!(good, want);
    assert!(
        matches!(
            errors[..],
            [Error::Parse(vellog::ParseError::Skipped { .. })]
        ),
        "{errors:?}"
    );
}
