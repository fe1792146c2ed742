//! `osi_mcap::validate` on damaged input: truncations, bit flips, garbage,
//! a garbage descriptor set and huge declared lengths. It must never panic
//! and must report structural damage as `mcap.structure`.

use std::collections::BTreeMap;

use mcapfile::{WriteOptions, Writer};
use osi_mcap::validate::{Report, ValidateOptions, rule};

const FIXTURE_ZSTD: &str = "20240101T000000Z_multi_380_3200_10_fixture-zstd.mcap";
const FIXTURE_NONE: &str = "20240101T000000Z_multi_380_3200_10_fixture-none.mcap";
const DRAFT: &str = "highway_20240101T000000.0_gt_draft.mcap";

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/../../testdata/osi/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e} (run `cargo xtask fixtures`)"))
}

fn check(data: &[u8]) -> Report {
    osi_mcap::validate(
        data,
        &ValidateOptions {
            file_name: Some("x.mcap".into()),
            ..ValidateOptions::default()
        },
    )
}

thread_local! {
    /// Where the last panic of this thread happened (set by [`quiet_hook`]).
    static PANIC_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Records panic locations per thread (for [`check_catching`]) and keeps
/// the default report for every other panic.
fn quiet_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let at = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()));
            let caught = PANIC_AT.with(|p| {
                let mut p = p.borrow_mut();
                let was_armed = p.is_some();
                *p = at.clone();
                was_armed
            });
            if !caught {
                default(info);
            }
        }));
    });
}

/// [`check`], turning a panic into `Err(location)`.
fn check_catching(data: &[u8]) -> Result<Report, String> {
    quiet_hook();
    PANIC_AT.with(|p| *p.borrow_mut() = Some(String::new()));
    let r = std::panic::catch_unwind(|| check(data));
    let at = PANIC_AT.with(|p| p.borrow_mut().take()).unwrap_or_default();
    r.map_err(|_| at)
}

/// Deterministic xorshift64* bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

#[test]
fn every_prefix_is_reported_as_cut() {
    for (name, step) in [(DRAFT, 1), (FIXTURE_ZSTD, 5), (FIXTURE_NONE, 11)] {
        let file = fixture(name);
        let r = osi_mcap::validate(
            &file,
            &ValidateOptions {
                file_name: Some(name.into()),
                ..ValidateOptions::default()
            },
        );
        assert!(r.passed(), "{name} itself is clean: {:#?}", r.findings);
        let mut cut = 0;
        while cut < file.len() {
            let r = check(&file[..cut]);
            assert!(
                r.has(rule::MCAP_STRUCTURE),
                "{name} cut at {cut}: {:#?}",
                r.findings
            );
            assert!(!r.passed(), "{name} cut at {cut}");
            cut += step;
        }
        // The last bytes one by one (the closing magic and the footer).
        for cut in file.len().saturating_sub(40)..file.len() {
            let r = check(&file[..cut]);
            assert!(r.has(rule::MCAP_STRUCTURE), "{name} cut at {cut}");
        }
    }
}

#[test]
fn single_bit_flips_never_panic() {
    let file = fixture(DRAFT);
    let mut reported = 0;
    for i in 0..file.len() {
        let mut d = file.clone();
        d[i] ^= 1 << (i % 8);
        let r = match check_catching(&d) {
            Ok(r) => r,
            Err(at) => panic!("flip at byte {i}: validate panicked at {at}"),
        };
        // The counts and the findings agree whatever happened.
        let listed: u64 = r.counts.values().map(|c| c.listed).sum();
        assert_eq!(listed as usize, r.findings.len(), "flip at {i}");
        assert_eq!(
            r.errors + r.warnings + r.infos,
            r.counts.values().map(|c| c.total).sum::<u64>()
        );
        if !r.passed() {
            reported += 1;
        }
    }
    // CRCs cover every chunk, the data section and the summary, so nearly
    // every flip is found.
    assert!(
        reported * 10 >= file.len() * 9,
        "{reported} of {} flips reported",
        file.len()
    );
}

/// A descriptor set whose file declares `syntax = "editions"` (what protoc
/// writes for edition 2023 files) or any other unknown syntax.
fn desc_with_syntax(syntax: &str) -> Vec<u8> {
    let good = fixture("osi3-minimal.desc");
    let needle = b"\x62\x06proto2"; // FileDescriptorProto.syntax (12), len 6
    let at = good
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("the minimal descriptor declares proto2");
    let mut file = good[..at].to_vec();
    file.push(0x62);
    file.push(syntax.len() as u8);
    file.extend_from_slice(syntax.as_bytes());
    file.extend_from_slice(&good[at + needle.len()..]);
    // Fix the length of the one `file` entry (tag 0x0a, 2-byte varint).
    assert_eq!(file[0], 0x0a);
    let body = file.len() - 3;
    assert!(body < 1 << 14);
    file[1] = (body as u8 & 0x7f) | 0x80;
    file[2] = (body >> 7) as u8;
    file
}

/// prost-reflect 0.16.5 panics ("index out of bounds") while reporting an
/// unknown `syntax` string; `Descriptors::from_file_descriptor_set`
/// screens the set first, so this is an error (an empty syntax means
/// proto2), never a panic. The fuzzer's finding is replayed too.
#[test]
fn unknown_syntax_descriptor_does_not_panic() {
    for syntax in ["editions", "proto4", ""] {
        let d = desc_with_syntax(syntax);
        let r = osi_mcap::proto::Descriptors::from_file_descriptor_set(&d);
        assert!(r.is_err() || syntax.is_empty(), "{syntax}");
        let r = check(&trace_with_schema(&d));
        assert!(
            r.has(rule::SCHEMA_DESCRIPTOR) || syntax.is_empty(),
            "{syntax}"
        );
    }
    // The fuzzer's finding (a bit flip in the draft fixture's syntax string).
    let found = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fuzz/corpus/osi_validate/regression-crash-02cbe8161bb5eb2dbd85ece0143297bbdba256e1"
    );
    if let Ok(data) = std::fs::read(found) {
        assert!(!check(&data).passed());
    }
}

#[test]
fn proto3_and_absent_syntax_are_fine() {
    // The helper itself: "proto2" reproduces the original bytes.
    assert_eq!(desc_with_syntax("proto2"), fixture("osi3-minimal.desc"));
    let d = desc_with_syntax("proto3");
    assert!(osi_mcap::proto::Descriptors::from_file_descriptor_set(&d).is_ok());
}

#[test]
fn random_garbage_never_panics() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let magic = b"\x89MCAP0\r\n";
    for round in 0..400 {
        let n = (rng.next() % 2000) as usize;
        let mut d = rng.bytes(n);
        if round % 2 == 0 {
            // Behind a valid magic, so the record parser is reached.
            let mut m = magic.to_vec();
            m.append(&mut d);
            d = m;
        }
        if round % 4 == 0 {
            d.extend_from_slice(magic);
        }
        let r = check(&d);
        assert!(!r.passed(), "garbage {round} passed");
        assert!(r.has(rule::MCAP_STRUCTURE), "garbage {round}");
    }
    // Garbage spliced into a valid trace.
    let file = fixture(FIXTURE_ZSTD);
    for _ in 0..150 {
        let mut d = file.clone();
        let at = (rng.next() % d.len() as u64) as usize;
        let n = 1 + (rng.next() % 64) as usize;
        let end = (at + n).min(d.len());
        let g = rng.bytes(end - at);
        d[at..end].copy_from_slice(&g);
        let _ = check(&d);
    }
}

/// A small OSI 3.8.0 trace whose GroundTruth schema holds `schema_data`.
fn trace_with_schema(schema_data: &[u8]) -> Vec<u8> {
    let map = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let mut w = Writer::new(Vec::new(), WriteOptions::default()).unwrap();
    let s = w
        .add_schema("osi3.GroundTruth", "protobuf", schema_data)
        .unwrap();
    let ch = w
        .add_channel(
            s,
            "gt",
            "protobuf",
            &map(&[
                ("net.asam.osi.trace.channel.osi_version", "3.8.0"),
                ("net.asam.osi.trace.channel.protobuf_version", "32.0.0"),
            ]),
        )
        .unwrap();
    w.write_metadata(
        "net.asam.osi.trace",
        &map(&[
            ("version", "3.8.0"),
            ("min_osi_version", "3.8.0"),
            ("max_osi_version", "3.8.0"),
            ("min_protobuf_version", "32.0.0"),
            ("max_protobuf_version", "32.0.0"),
        ]),
    )
    .unwrap();
    // timestamp {seconds: 1}
    w.write_message(
        ch,
        1,
        1_000_000_000,
        1_000_000_000,
        &[0x12, 0x02, 0x08, 0x01],
    )
    .unwrap();
    w.finish().unwrap()
}

#[test]
fn garbage_descriptor_set_is_reported() {
    let good = fixture("osi3-minimal.desc");
    let r = check(&trace_with_schema(&good));
    assert!(r.passed(), "{:#?}", r.findings);
    assert_eq!(r.messages_checked, 1);

    let mut rng = Rng(7);
    let mut cases: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"not a descriptor set".to_vec(),
        vec![0xff; 64],
        // A file entry whose length runs past the end.
        vec![0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01],
        // A file without the message (only a name).
        vec![0x0a, 0x03, 0x0a, 0x01, b'a'],
        good[..good.len() / 2].to_vec(),
    ];
    for _ in 0..20 {
        let n = (rng.next() % 300) as usize;
        cases.push(rng.bytes(n));
    }
    for (i, data) in cases.iter().enumerate() {
        let r = check(&trace_with_schema(data));
        assert!(
            r.has(rule::SCHEMA_DESCRIPTOR),
            "case {i}: {:#?}",
            r.findings
        );
        assert!(!r.passed());
        // Still an OSI channel, its messages not checked without a schema.
        assert_eq!(r.osi_channels, 1, "case {i}");
        assert!(!r.has(rule::MCAP_STRUCTURE), "case {i}: the MCAP is fine");
    }
}

/// Top-level records of `file` after the magic: (offset, opcode, length).
fn records(file: &[u8]) -> Vec<(usize, u8, u64)> {
    let mut out = Vec::new();
    let mut p = 8;
    while p + 9 <= file.len() - 8 {
        let len = u64::from_le_bytes(file[p + 1..p + 9].try_into().unwrap());
        out.push((p, file[p], len));
        p += 9 + len as usize;
    }
    out
}

#[test]
fn huge_declared_lengths() {
    let file = fixture(FIXTURE_NONE);
    let recs = records(&file);
    assert!(recs.iter().any(|r| r.1 == 0x06), "has chunks");
    let huge = [
        u64::MAX,
        u64::MAX / 2,
        1 << 40,
        (file.len() as u64) * 2,
        u64::from(u32::MAX),
    ];
    let mut cases = 0;
    for &(at, op, len) in &recs {
        for h in huge {
            // The record length.
            let mut d = file.clone();
            d[at + 1..at + 9].copy_from_slice(&h.to_le_bytes());
            let r = check(&d);
            assert!(
                r.has(rule::MCAP_STRUCTURE),
                "record {op:#x} at {at} length {h}"
            );
            cases += 1;
            // Every 4- and 8-byte field inside the first 64 bytes of the body
            // (string, map and byte-array lengths, chunk sizes, ...).
            let body = (at + 9)..(at + 9 + (len as usize).min(64));
            for f in body.clone().step_by(4) {
                for width in [4usize, 8] {
                    if f + width > body.end {
                        continue;
                    }
                    let mut d = file.clone();
                    d[f..f + width].copy_from_slice(&h.to_le_bytes()[..width]);
                    let _ = check(&d);
                    cases += 1;
                }
            }
        }
    }
    assert!(cases > 500, "{cases}");
}
