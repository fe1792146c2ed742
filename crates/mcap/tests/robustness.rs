//! Hostile input: every-prefix truncation, bit flips, hostile lengths and
//! decompression bombs. Nothing may panic, loop or allocate without bound.

mod common;

use logcore::{LogReader, MessageFilter, ReadMode};
use mcapfile::{
    Compression, Error, IndexFilter, IndexedMessages, LinearReader, Mcap, ReadOptions, Record,
    Summary,
};

/// Runs every reader over `data` the way the CLI does; returns the number
/// of messages the lenient linear pass saw.
fn exercise(data: &[u8]) -> usize {
    let strict: Vec<_> = LinearReader::new(data).collect();
    // After an error the strict reader ends.
    if let Some(i) = strict.iter().position(Result::is_err) {
        assert_eq!(i, strict.len() - 1);
    }
    let lenient = ReadOptions {
        mode: ReadMode::Lenient,
        ..ReadOptions::default()
    };
    let mut messages = 0;
    for r in LinearReader::with_options(data, lenient) {
        if let Ok(Record::Message(_)) = r {
            messages += 1;
        }
    }
    if let Ok(Some(s)) = Summary::read(data, false) {
        // A narrowing filter takes the Message Index path, the default one
        // walks the chunks; both merge in the messages outside chunks.
        let narrow = IndexFilter {
            channels: Some([1].into()),
            start: Some(2_000),
            end: Some(40_000),
        };
        for filter in [IndexFilter::default(), narrow] {
            for mode in [ReadMode::Strict, ReadMode::Lenient] {
                let opts = ReadOptions {
                    mode,
                    ..ReadOptions::default()
                };
                let _ = IndexedMessages::new(data, &s, filter.clone(), opts)
                    .take(10_000)
                    .count();
            }
        }
    }
    if let Ok(mcap) = Mcap::new(data) {
        let _ = mcap.summary();
        let _ = mcap.channels();
        for mode in [ReadMode::Strict, ReadMode::Lenient] {
            if let Ok(it) = mcap.messages(&MessageFilter::all().mode(mode)) {
                for m in it.take(10_000).flatten() {
                    let _ = mcap.decode(&m);
                }
            }
        }
    }
    messages
}

#[test]
fn every_prefix_yields_the_records_before_the_cut_then_truncated() {
    for c in [Compression::Zstd, Compression::Lz4, Compression::None] {
        let file = common::multi_chunk_n(c, true, 24);
        let full: Vec<Record<'_>> = LinearReader::new(&file).map(|r| r.unwrap()).collect();
        for cut in 0..file.len() {
            let prefix = &file[..cut];
            let items: Vec<_> = LinearReader::new(prefix).collect();
            let (last, ok) = items.split_last().unwrap();
            let err = last.as_ref().unwrap_err();
            assert!(err.is_truncated(), "{c:?} cut {cut}: {err}");
            assert!(err.offset().unwrap() <= cut as u64);
            // Everything before the cut is exactly what the full file has there.
            for (a, b) in ok.iter().zip(&full) {
                assert_eq!(a.as_ref().unwrap(), b, "{c:?} cut {cut}");
            }
            // The full set of readers on a sample of cuts (all of them in
            // the fuzz target and `cargo xtask mcap conformance`).
            if cut % 13 == 0 {
                exercise(prefix);
            }
        }
    }
}

#[test]
fn bit_flips_never_panic() {
    let file = common::multi_chunk_n(Compression::Zstd, true, 24);
    let mut buf = file.clone();
    for i in 0..file.len() {
        let bit = 1u8 << (i % 8);
        buf[i] ^= bit;
        exercise(&buf);
        buf[i] ^= bit;
    }
    let plain = common::multi_chunk_n(Compression::None, true, 24);
    let mut buf = plain.clone();
    for i in (0..plain.len()).step_by(3) {
        buf[i] ^= 0x10;
        exercise(&buf);
        buf[i] ^= 0x10;
    }
}

fn record(opcode: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![opcode];
    out.extend_from_slice(&(content.len() as u64).to_le_bytes());
    out.extend_from_slice(content);
    out
}

fn file_with(records: &[Vec<u8>]) -> Vec<u8> {
    let mut f = b"\x89MCAP0\r\n".to_vec();
    f.extend(record(0x01, &[0; 8]));
    for r in records {
        f.extend_from_slice(r);
    }
    f
}

#[test]
fn hostile_lengths_are_refused_before_allocating() {
    // A record claiming u64::MAX content bytes: truncation at its offset.
    let mut f = file_with(&[]);
    f.push(0x05);
    f.extend_from_slice(&u64::MAX.to_le_bytes());
    let items: Vec<_> = LinearReader::new(&f).collect();
    let e = items.last().unwrap().as_ref().unwrap_err();
    assert!(e.is_truncated());
    assert_eq!(e.offset(), Some(25));

    // A Schema whose name claims 4 GiB.
    let mut schema = 1u16.to_le_bytes().to_vec();
    schema.extend_from_slice(&u32::MAX.to_le_bytes());
    let f = file_with(&[record(0x03, &schema)]);
    let e = LinearReader::new(&f).nth(1).unwrap().unwrap_err();
    assert_eq!(e.offset(), Some(36));
    assert!(e.to_string().contains("4294967295 bytes of name"), "{e}");

    // A chunk whose records length runs past its content.
    let mut chunk = vec![0u8; 24];
    chunk.extend_from_slice(&0u32.to_le_bytes());
    chunk.extend_from_slice(&0u32.to_le_bytes());
    chunk.extend_from_slice(&u64::MAX.to_le_bytes());
    let f = file_with(&[record(0x06, &chunk)]);
    let e = LinearReader::new(&f).nth(1).unwrap().unwrap_err();
    assert!(e.to_string().contains("records"), "{e}");
    exercise(&f);
}

#[test]
fn decompression_bombs_are_bounded_by_the_declared_size() {
    let raw = vec![0u8; 8 << 20];
    let z = zstd::bulk::compress(&raw, 19).unwrap();
    let chunk = |declared: u64| {
        let mut c = vec![0u8; 16];
        c.extend_from_slice(&declared.to_le_bytes());
        c.extend_from_slice(&0u32.to_le_bytes());
        c.extend_from_slice(&4u32.to_le_bytes());
        c.extend_from_slice(b"zstd");
        c.extend_from_slice(&(z.len() as u64).to_le_bytes());
        c.extend_from_slice(&z);
        record(0x06, &c)
    };
    // Declares 64 bytes: at most 64 are produced, which are not valid records.
    let f = file_with(&[chunk(64)]);
    let e = LinearReader::new(&f).nth(1).unwrap().unwrap_err();
    assert_eq!(e.offset(), Some(25));
    // Declares more than the reader's limit: refused before decompressing.
    let opts = ReadOptions {
        limits: mcapfile::Limits::default().with_max_chunk_size(1 << 20),
        ..ReadOptions::default()
    };
    let f = file_with(&[chunk(8 << 20)]);
    let e = LinearReader::with_options(&f, opts)
        .nth(1)
        .unwrap()
        .unwrap_err();
    assert!(e.to_string().contains("reader's limit"), "{e}");
    // Declares u64::MAX: refused by the default limit.
    let f = file_with(&[chunk(u64::MAX)]);
    let e: Error = LinearReader::new(&f).nth(1).unwrap().unwrap_err();
    assert!(e.to_string().contains("reader's limit"), "{e}");
}

#[test]
fn garbage_and_wrong_magic_are_clean_errors() {
    let e = LinearReader::new(b"\x89MCAPx\r\nxxxx")
        .next()
        .unwrap()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "at byte 0: expected the MCAP magic 89 4d 43 41 50 30 0d 0a, \
         found 89 4d 43 41 50 78 0d 0a"
    );
    let e = LinearReader::new(b"\x89MC").next().unwrap().unwrap_err();
    assert!(e.is_truncated());
    assert!(Mcap::new(b"").is_err());
    exercise(&[0x89, b'M', b'C', b'A', b'P', b'0', b'\r', b'\n', 0x02, 0, 0]);
}

#[test]
fn other_major_versions_are_unsupported_not_damaged() {
    const WHY: &str = "is not supported: this reader reads major version 0, \
                       the only one the MCAP specification defines";
    let mut file = common::multi_chunk(Compression::Zstd, true);
    let len = file.len();
    file[5] = b'1';
    file[len - 3] = b'1';
    assert!(mcapfile::probe(&file));
    let e = Mcap::new(&file).unwrap_err();
    assert!(matches!(e, mcapfile::Error::Unsupported { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        format!("at byte 5: MCAP major version '1' {WHY}")
    );
    // Lenient reading does not skip past it either.
    let opts = ReadOptions {
        mode: ReadMode::Lenient,
        ..ReadOptions::default()
    };
    let mut records = LinearReader::with_options(&file, opts);
    assert_eq!(records.next().unwrap().unwrap_err(), e);
    assert!(records.next().is_none());
    // The summary, read from the end, says so too.
    let e = Summary::read(&file, true).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("at byte 5: MCAP major version '1' {WHY}")
    );
    // Ends that disagree are damage.
    file[5] = b'0';
    file[len - 3] = b'9';
    let e = Summary::read(&file, true).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "at byte {}: expected the closing MCAP magic, found 89 4d 43 41 50 39 0d 0a",
            len - 8
        )
    );
}

#[test]
fn declared_chunk_sizes_that_sum_past_u64_do_not_overflow() {
    // Found by the fuzzer: the summary's per-compression byte totals added
    // two hostile uncompressed_size fields.
    let mut chunk = Vec::new();
    chunk.extend_from_slice(&[0; 16]); // start and end time
    chunk.extend_from_slice(&(u64::MAX - 1).to_le_bytes()); // uncompressed_size
    chunk.extend_from_slice(&[0; 4]); // crc
    chunk.extend_from_slice(&[0; 4]); // compression ""
    chunk.extend_from_slice(&[0; 8]); // no records
    let c = record(0x06, &chunk);
    let file = file_with(&[c.clone(), c]);
    exercise(&file);
    let mcap = Mcap::new(&file).unwrap();
    let s = mcap.summary().unwrap();
    assert!(s.metadata["chunks.none"].contains(&u64::MAX.to_string()));
}
