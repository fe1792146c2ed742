//! Hostile lengths and counts: errors with offsets, no panic, no endless
//! loop, and no allocation larger than the input could justify.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use vellog::FormatError;

use common::{file_head, raw_message};
use logcore::{LogReader, MessageFilter, ReadMode};
use vellog::{Error, VelLog};

/// Records the largest single allocation, so the tests can assert that
/// hostile sizes never turn into big allocations.
struct Measuring;

thread_local! {
    // Per thread: the test harness runs tests (and allocates) in parallel.
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn record(size: usize) {
    // `try_with`: allocations during thread teardown are not measured.
    let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
}

#[allow(unsafe_code)]
// SAFETY: forwards to the system allocator unchanged; only records sizes.
unsafe impl GlobalAlloc for Measuring {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Measuring = Measuring;

/// Reads `file` every way the crate offers (both modes, summary, logcore
/// iteration and decoding) and returns the errors of the strict and the
/// lenient record walks. Panics if anything allocates more than 1 MiB.
fn read_everything(file: &[u8]) -> (Vec<Error>, Vec<Error>) {
    LARGEST.with(|l| l.set(0));
    let log = match VelLog::new(file) {
        Ok(log) => log,
        Err(e) => return (vec![e], vec![]),
    };
    let strict: Vec<Error> = log.records().filter_map(Result::err).collect();
    let lenient: Vec<Error> = log
        .records_with(ReadMode::Lenient)
        .filter_map(Result::err)
        .collect();
    for rec in log.records_with(ReadMode::Lenient).flatten() {
        let _ = rec.decode();
    }
    let _ = log.summary().unwrap();
    for mode in [ReadMode::Strict, ReadMode::Lenient] {
        for m in log
            .messages(&MessageFilter::all().mode(mode))
            .unwrap()
            .flatten()
        {
            let _ = log.decode(&m);
        }
    }
    let largest = LARGEST.with(Cell::get);
    assert!(largest < 1 << 20, "an allocation of {largest} bytes");
    (strict, lenient)
}

fn with_size(size: u32) -> Vec<u8> {
    let mut f = file_head(&[]);
    let mut m = raw_message(0x49, vellog::OBD_DATA, 100, 0.0, &[0; 28]);
    m[..4].copy_from_slice(&size.to_le_bytes());
    f.extend(m);
    f
}

#[test]
fn size_zero_and_twenty_are_corruption() {
    for size in [0u32, 20] {
        let (strict, lenient) = read_everything(&with_size(size));
        match &strict[..] {
            [
                Error::Parse(vellog::ParseError::Malformed {
                    offset: 12,
                    expected,
                    ..
                }),
            ] => {
                assert!(expected.contains("at least 21"), "{expected}")
            }
            other => panic!("size {size}: {other:?}"),
        }
        // Nothing plausible follows: the rest is skipped in one report.
        assert!(
            matches!(
                lenient[..],
                [Error::Parse(vellog::ParseError::Skipped {
                    offset: 12,
                    len: 49,
                    ..
                })]
            ),
            "{lenient:?}"
        );
    }
}

#[test]
fn huge_size_is_a_truncation_without_allocation() {
    for size in [0xFFFF_FFFEu32, 0x7FFF_FFFF, 50] {
        let (strict, lenient) = read_everything(&with_size(size));
        match &strict[..] {
            [
                Error::Parse(vellog::ParseError::Truncated {
                    offset: 12, needed, ..
                }),
            ] => {
                assert_eq!(*needed, u64::from(size) - 49)
            }
            other => panic!("size {size}: {other:?}"),
        }
        assert!(
            matches!(
                lenient[..],
                [Error::Parse(vellog::ParseError::Truncated { .. })]
            ),
            "{lenient:?}"
        );
    }
}

#[test]
fn index_larger_than_the_file() {
    for n in [1u32, 1000, u32::MAX] {
        let mut f = b"\xA4VEL\x01\x00\x01\x00".to_vec();
        f.extend_from_slice(&n.to_le_bytes());
        f.extend_from_slice(&[0; 4]);
        let (errors, _) = read_everything(&f);
        match &errors[..] {
            [
                Error::Parse(vellog::ParseError::Truncated {
                    offset: 8, needed, ..
                }),
            ] => {
                assert_eq!(*needed, 12 + 8 * u64::from(n) - 16)
            }
            other => panic!("n {n}: {other:?}"),
        }
    }
}

#[test]
fn counts_and_lengths_larger_than_the_payload() {
    let cases: Vec<(i32, i32, Vec<u8>, u64)> = vec![
        // Velodyne packet count far beyond the payload.
        (
            vellog::VELODYNE_RAW_DATA,
            100,
            {
                let mut p = u32::MAX.to_le_bytes().to_vec();
                p.extend_from_slice(&[0xAB; 1206]);
                p
            },
            0,
        ),
        // Image length beyond the payload.
        (
            vellog::IMAGE,
            100,
            {
                let mut p = vec![0u8; 16];
                p.extend_from_slice(&0xFFFF_FF00u32.to_le_bytes());
                p.extend_from_slice(&[0xFF, 0xD8, 0xFF, 0xD9]);
                p
            },
            16,
        ),
        // Sensor type string beyond the payload.
        (
            vellog::LASER_RANGE_2D_DATA,
            101,
            {
                let mut p = 0xFFFF_FFF0u32.to_le_bytes().to_vec();
                p.extend_from_slice(b"Hokuyo");
                p
            },
            0,
        ),
        // Sensor name string beyond the payload.
        (
            vellog::LASER_RANGE_2D_DATA,
            101,
            {
                let mut p = 1u32.to_le_bytes().to_vec();
                p.push(b'H');
                p.extend_from_slice(&0x8000_0000u32.to_le_bytes());
                p.extend_from_slice(b"front");
                p
            },
            5,
        ),
        // Range count beyond the payload.
        (
            vellog::LASER_RANGE_2D_DATA,
            101,
            {
                let mut p = 1u32.to_le_bytes().to_vec();
                p.push(b'H');
                p.extend_from_slice(&1u32.to_le_bytes());
                p.push(b'f');
                p.extend_from_slice(&0x4000_0000u32.to_le_bytes());
                p.extend_from_slice(&[1, 0, 0, 0]);
                p
            },
            10,
        ),
    ];
    for (type_id, version, payload, err_at) in cases {
        let mut f = file_head(&[]);
        f.extend(raw_message(0x49, type_id, version, 5.0, &payload));
        let (strict, lenient) = read_everything(&f);
        // Framing is fine; only decoding fails.
        assert!(strict.is_empty() && lenient.is_empty());
        let log = VelLog::new(&f).unwrap();
        let rec = log.records().next().unwrap().unwrap();
        let e = rec.decode().unwrap_err();
        assert_eq!(e.offset(), Some(12 + 21 + err_at), "{e}");
        let m = log
            .messages(&MessageFilter::all())
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        let e = log.decode(&m).unwrap_err();
        assert_eq!(e.offset(), Some(12 + 21 + err_at), "{e}");
    }
}

#[test]
fn non_finite_timestamps_are_errors_for_that_message() {
    let mut f = file_head(&[]);
    f.extend(raw_message(0x49, vellog::OBD_DATA, 100, f64::NAN, &[0; 28]));
    f.extend(raw_message(0x49, vellog::OBD_DATA, 100, 7.0, &[0; 28]));
    let log = VelLog::new(&f).unwrap();
    let strict: Vec<_> = log.messages(&MessageFilter::all()).unwrap().collect();
    assert_eq!(strict.len(), 1);
    assert_eq!(strict[0].as_ref().unwrap_err().offset(), Some(12 + 13));
    let lenient: Vec<_> = log
        .messages(&MessageFilter::all().mode(ReadMode::Lenient))
        .unwrap()
        .collect();
    assert_eq!(lenient.len(), 2);
    assert!(matches!(
        lenient[0],
        Err(logcore::Error::Skipped {
            offset: 25,
            len: 49,
            ..
        })
    ));
    assert_eq!(lenient[1].as_ref().unwrap().log_time.as_nanos(), 7_000_000);
    let s = log.summary().unwrap();
    assert_eq!(s.message_count, 2);
    assert_eq!(s.warnings.len(), 1);
}

#[test]
fn garbage_never_panics() {
    // A deterministic pseudo-random walk over many small hostile files.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (base, _) = common::sample_file(Default::default());
    for _ in 0..300 {
        let mut f = base.clone();
        for _ in 0..(next() % 8 + 1) {
            let at = (next() as usize) % f.len();
            f[at] = next() as u8;
        }
        let cut = (next() as usize) % (f.len() + 1);
        read_everything(&f[..cut]);
        read_everything(&f);
    }
}
