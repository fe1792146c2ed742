//! `--max-chunk-size`, unknown topics and `check`'s stderr summary.

mod common;

use std::path::PathBuf;

use common::{robolog, testdata, text};

#[test]
fn an_unknown_topic_is_a_usage_error_naming_the_topics() {
    let f = testdata("mcap/chunked-lz4.mcap");
    let out = robolog()
        .args(["cat", "--topic", "/point", "--topic", "/typo"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("--topic \"/typo\": no such topic in this log; its topics are \"/point\""),
        "{err}"
    );
    // Known topics still work.
    let out = robolog()
        .args(["cat", "--json", "--topic", "/point"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout).lines().count(), 14);
}

#[test]
fn max_chunk_size_limits_and_raises_decompression() {
    let f = testdata("mcap/chunked-zstd.mcap");
    for args in [
        &["--max-chunk-size", "64", "cat", "--json"][..],
        &["cat", "--max-chunk-size", "64", "--json"][..],
    ] {
        let out = robolog().args(args).arg(&f).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.contains("expected a chunk of at most 64 uncompressed bytes (the reader's limit; raise it with `--max-chunk-size`"),
            "{err}"
        );
    }
    let out = robolog()
        .args(["--max-chunk-size", "100000000", "cat", "--json"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).lines().count(), 40);
}

#[test]
fn check_reports_problems_on_stderr_too() {
    let bytes = std::fs::read(testdata("vellog/sensors.vel")).unwrap();
    let p = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("limits-cut.vel");
    std::fs::write(&p, &bytes[..bytes.len() - 100]).unwrap();
    let out = robolog().arg("check").arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report = text(&out.stdout);
    let err = text(&out.stderr);
    assert!(report.contains("truncated at byte"), "{report}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("robolog: "), "{err}");
    assert!(err.contains("limits-cut.vel: "), "{err}");
    assert!(err.contains("truncated at byte"), "{err}");
}
