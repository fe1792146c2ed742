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

/// A ROS 1 definition of `deep/T0` nesting `levels` types, the innermost
/// holding `int32 leaf`.
fn deep_definition(levels: usize) -> String {
    let mut text = String::new();
    for i in 0..levels {
        if i > 0 {
            text.push_str(&format!("{}\nMSG: deep/T{i}\n", "=".repeat(80)));
        }
        if i + 1 < levels {
            text.push_str(&format!("deep/T{} next\n", i + 1));
        } else {
            text.push_str("int32 leaf\n");
        }
    }
    text
}

/// A bag and an MCAP file, each with one message of a type nested 70
/// deep whose leaf is 7.
fn deep_files() -> [PathBuf; 2] {
    let text = deep_definition(70);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let mut w = rosbag12::Writer::new(
        std::io::Cursor::new(Vec::new()),
        rosbag12::WriterOptions::default(),
    )
    .unwrap();
    let id = w
        .add_connection(rosbag12::Connection::new(0, "/deep", "deep/T0", "*", &text))
        .unwrap();
    w.write(
        id,
        rosbag12::RosTime { sec: 1, nsec: 0 },
        &7i32.to_le_bytes(),
    )
    .unwrap();
    w.finish().unwrap();
    let bag = dir.join("limits-deep.bag");
    std::fs::write(&bag, w.into_inner().into_inner()).unwrap();

    let mut w = mcapfile::Writer::new(Vec::new(), mcapfile::WriteOptions::default()).unwrap();
    let s = w.add_schema("deep/T0", "ros1msg", text.as_bytes()).unwrap();
    let ch = w
        .add_channel(s, "/deep", "ros1", &Default::default())
        .unwrap();
    w.write_message(ch, 0, 1_000_000_000, 1_000_000_000, &7i32.to_le_bytes())
        .unwrap();
    let mcap = dir.join("limits-deep.mcap");
    std::fs::write(&mcap, w.finish().unwrap()).unwrap();
    [bag, mcap]
}

#[test]
fn max_nesting_refuses_deep_definitions_and_raises_the_limit() {
    for f in deep_files() {
        // The default (64 levels) refuses a definition 70 deep.
        let out = robolog().args(["cat", "--json"]).arg(&f).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{f:?}");
        let err = text(&out.stderr);
        assert!(
            err.contains(
                "at most 64 levels deep (the reader's limit; raise it with `--max-nesting` or \
                 `Limits::max_nesting`)"
            ),
            "{f:?}: {err}"
        );
        // Raised, the message prints with its leaf.
        for args in [
            &["--max-nesting", "100", "cat", "--json"][..],
            &["cat", "--max-nesting", "70", "--json"][..],
        ] {
            let out = robolog().args(args).arg(&f).output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "{f:?} {args:?}: {}",
                text(&out.stderr)
            );
            let stdout = text(&out.stdout);
            assert_eq!(stdout.lines().count(), 1, "{stdout}");
            let nested = format!(
                "{}{{\"leaf\":7}}{}",
                "{\"next\":".repeat(69),
                "}".repeat(69)
            );
            assert!(stdout.contains(&nested), "{f:?}: {stdout}");
        }
        // One level short of the definition is refused, naming the limit.
        let out = robolog()
            .args(["--max-nesting", "69", "cat", "--json"])
            .arg(&f)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{f:?}");
        let err = text(&out.stderr);
        assert!(err.contains("at most 69 levels deep"), "{f:?}: {err}");
    }
}

#[test]
fn max_nesting_is_in_the_help() {
    let out = robolog().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    assert!(help.contains("--max-nesting <N>"), "{help}");
    assert!(help.contains("nest deeper than N levels"), "{help}");
}
