//! Real PX4 logs of the shared corpus (`<corpus>/ulog/`), cut and
//! damaged: every prefix of two real logs (one with appended data) at
//! every offset of its first 2 KiB, every 9,973 bytes after and around the
//! appended-data offsets reads without a panic and gives exactly the
//! samples complete before the cut; every bit of the first 256 bytes and
//! 1,000 random bits of a 16 KiB prefix flipped read without a panic
//! through everything a user can ask (pyulog's reports, CSV, the
//! LogReader). Skipped when the corpus is absent.

use std::path::PathBuf;
use std::time::Instant;

use ulogfile::ULog;
use ulogfile::pyulog::{self, ParamOptions};

/// Message end offsets of every sample of a full parse.
fn sample_ends(log: &ULog<'_>) -> Vec<usize> {
    let mut ends: Vec<usize> = log
        .subscriptions
        .iter()
        .flat_map(|s| s.samples.iter())
        .map(|s| {
            let o = s.offset as usize;
            let size = log
                .data
                .get(o..o + 2)
                .map_or(0, |b| usize::from(u16::from_le_bytes([b[0], b[1]])));
            o + 3 + size
        })
        .collect();
    ends.sort_unstable();
    ends
}

/// Exercises everything a user can ask of a parsed log.
fn exercise(log: &ULog<'_>) -> usize {
    use logcore::{LogReader, MessageFilter, ReadMode};
    let mut n = pyulog::info(log, true).len() + pyulog::messages(log).0.len();
    n += pyulog::params(log, &ParamOptions::default()).map_or(0, |s| s.len());
    if let Ok(s) = log.summary() {
        n += s.channels.len();
    }
    if let Ok(it) = log.messages(&MessageFilter::all().mode(ReadMode::Lenient)) {
        for m in it.flatten().take(50) {
            n += usize::from(log.decode(&m).is_ok());
        }
    }
    for d in pyulog::datasets(log).into_iter().take(2) {
        let mut sink = Vec::new();
        let _ = pyulog::csv(d, ",", None, None, &mut sink);
        n += sink.len();
    }
    n
}

#[test]
fn truncated_and_bit_flipped_real_logs_read_without_panic() {
    let Some(ulog) = robolog_testkit::corpus("ulog") else {
        return;
    };
    let mut all = robolog_testkit::files_with_ext(&ulog, &["ulg"]);
    all.sort();
    // Two real PX4 logs, one with appended data; plus every small log.
    let picks: Vec<PathBuf> = all
        .iter()
        .filter(|p| {
            let n = p.file_name().unwrap_or_default().to_string_lossy();
            n == "sample_appended_multiple.ulg" || n == "esc_status_log.ulg"
        })
        .cloned()
        .collect();
    assert!(
        picks.len() >= 2,
        "the ulog corpus lacks the logs the robustness check uses"
    );
    let started = Instant::now();
    let mut cuts = 0usize;
    for path in &picks {
        let bytes = std::fs::read(path).expect("a corpus file reads");
        let full = ULog::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let ends = sample_ends(&full);
        let mut offsets: Vec<usize> = (0..bytes.len().min(2048)).collect();
        offsets.extend((2048..bytes.len()).step_by(9973));
        if let Some(fb) = full.flag_bits {
            for o in fb.offsets() {
                let o = o as usize;
                offsets.extend(o.saturating_sub(40)..(o + 40).min(bytes.len()));
            }
        }
        for &cut in &offsets {
            let prefix = &bytes[..cut];
            let result = std::panic::catch_unwind(|| {
                ULog::parse(prefix).map(|l| {
                    let n: usize = l.subscriptions.iter().map(|s| s.samples.len()).sum();
                    (n, l.truncation.is_some())
                })
            });
            let Ok(parsed) = result else {
                panic!("{}: panic reading the first {cut} bytes", path.display());
            };
            cuts += 1;
            if let Ok((n, _)) = parsed {
                let want = ends.partition_point(|&e| e <= cut);
                assert_eq!(
                    n,
                    want,
                    "{}: cut at {cut}: samples read against those complete before the cut",
                    path.display()
                );
            } else {
                assert!(
                    cut < 16 + 43,
                    "{}: cut at {cut}: the header did not parse",
                    path.display()
                );
            }
        }
        // Bit flips in a 16 KB prefix (header, flags, definitions and the
        // start of the data): every bit of the first 256 bytes, then random
        // positions. A prefix keeps each parse cheap.
        let head = &bytes[..bytes.len().min(16 * 1024)];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut flips: Vec<(usize, u8)> = (0..head.len().min(256))
            .flat_map(|i| (0..8).map(move |b| (i, 1u8 << b)))
            .collect();
        for _ in 0..1000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            flips.push(((seed as usize) % head.len(), 1 << (seed >> 60 & 7)));
        }
        let mut copy = head.to_vec();
        for (i, bit) in flips {
            copy[i] ^= bit;
            let ok = std::panic::catch_unwind(|| ULog::parse(&copy).map(|l| exercise(&l)));
            copy[i] ^= bit;
            assert!(
                ok.is_ok(),
                "{}: panic after flipping bit {bit:#04x} of byte {i}",
                path.display()
            );
        }
    }
    eprintln!(
        "{cuts} truncated copies and bit-flipped copies of {} real logs read without panic, every complete sample before each cut returned ({:.1} s)",
        picks.len(),
        started.elapsed().as_secs_f64()
    );
}
