//! The declared types of the channels ([`LogReader::value_type`]) against
//! the values their messages decode to: every message of every channel of
//! the test logs and of the corpus (`../shared/corpus/ulog`, or
//! `$ROBOLOG_CORPUS/ulog`; skipped when absent), and the exact type of a
//! format with a nested type, arrays, a string and padding.

use std::path::{Path, PathBuf};

use logcore::{LogReader, MessageFilter, ValueType};
use ulogfile::ULog;

fn corpus() -> Option<PathBuf> {
    robolog_testkit::corpus("ulog")
}

fn ulg_files(dir: &Path, out: &mut Vec<PathBuf>) {
    assert!(dir.is_dir(), "{} is no folder", dir.display());
    out.extend(robolog_testkit::files_with_ext(dir, &["ulg"]));
}

/// Checks every channel of `path`; returns the number of messages checked.
fn check_file(path: &Path) -> usize {
    let bytes = std::fs::read(path).unwrap();
    let log = ULog::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let channels = log.channels().unwrap();
    let types: Vec<ValueType> = channels
        .iter()
        .map(|c| {
            log.value_type(c.id)
                .unwrap()
                .unwrap_or_else(|| panic!("{}: no type for {}", path.display(), c.topic))
        })
        .collect();
    let mut checked = 0;
    for m in log.messages(&MessageFilter::all()).unwrap() {
        let Ok(m) = m else { continue };
        let i = m.channel.0 as usize;
        let v = log.decode(&m).unwrap();
        if let Err(e) = types[i].admits(&v) {
            panic!(
                "{}: channel {} message at offset {:?}: {e}",
                path.display(),
                channels[i].topic,
                m.offset
            );
        }
        checked += 1;
    }
    checked
}

#[test]
fn test_logs_decode_to_their_declared_types() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/ulog");
    let mut files = Vec::new();
    ulg_files(&dir, &mut files);
    assert_eq!(files.len(), 3);
    let total: usize = files.iter().map(|f| check_file(f)).sum();
    assert!(total > 0);
}

#[test]
fn corpus_logs_decode_to_their_declared_types() {
    let Some(dir) = corpus() else { return };
    let mut files = Vec::new();
    ulg_files(&dir, &mut files);
    assert!(!files.is_empty(), "no .ulg files in {}", dir.display());
    for f in &files {
        let n = check_file(f);
        assert!(n > 0, "{}: no messages checked", f.display());
    }
}

#[test]
fn a_nested_format_with_arrays_has_its_exact_type() {
    let mut w = ulogfile::Writer::new(Vec::new(), 0).unwrap();
    w.add_format(
        "esc_report:int32_t esc_rpm;float esc_voltage;uint8_t esc_state;uint8_t[3] _padding0;",
    )
    .unwrap();
    w.add_format(
        "esc_status:uint64_t timestamp;int16_t counter;esc_report[2] esc;float[3] q;char[6] name;char c;bool armed;uint8_t[1] _padding0;",
    )
    .unwrap();
    let id = w.add_subscription("esc_status", 0).unwrap();
    let mut s = 7u64.to_le_bytes().to_vec();
    s.extend_from_slice(&(-3i16).to_le_bytes());
    for rpm in [100i32, 200] {
        s.extend_from_slice(&rpm.to_le_bytes());
        s.extend_from_slice(&12.5f32.to_le_bytes());
        s.extend_from_slice(&[4, 0, 0, 0]);
    }
    for q in [1.0f32, 0.0, 0.5] {
        s.extend_from_slice(&q.to_le_bytes());
    }
    s.extend_from_slice(b"esc\0\0\0");
    s.extend_from_slice(&[b'x', 1, 0]);
    w.write_data(id, &s).unwrap();
    let bytes = w.finish().unwrap();
    let log = ULog::parse(&bytes).unwrap();
    let ch = log.channels().unwrap()[0].id;
    let esc = ValueType::record([
        ("esc_rpm", ValueType::I32),
        ("esc_voltage", ValueType::F32),
        ("esc_state", ValueType::U8),
    ]);
    let expected = ValueType::record([
        ("timestamp", ValueType::U64),
        ("counter", ValueType::I16),
        ("esc", ValueType::fixed(esc, 2)),
        ("q", ValueType::fixed(ValueType::F32, 3)),
        ("name", ValueType::String),
        ("c", ValueType::U8),
        ("armed", ValueType::Bool),
    ]);
    assert_eq!(log.value_type(ch).unwrap(), Some(expected.clone()));
    assert_eq!(log.formats.value_type("esc_status").unwrap(), expected);
    let m = log
        .messages(&MessageFilter::all())
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let v = log.decode(&m).unwrap();
    assert_eq!(expected.admits(&v), Ok(()));
    assert_eq!(v.get("name"), Some(&logcore::Value::String("esc".into())));
    assert!(log.formats.value_type("no_such_format").is_err());
    assert!(log.value_type(logcore::ChannelId(9)).is_err());
}
