//! `robolog filter --config FILE`: a TOML file holding the filter's options
//! gives byte for byte the output of the same options as flags; flags add
//! to its lists and replace its single values; a key outside the schema, a
//! value of the wrong type or a file that is not TOML is exit 2 naming the
//! line. The committed `testdata/rosbag/sample.bag` (topics `/chatter`,
//! `/count` of `std_msgs/Int32`, `/point`), and a corpus IMU bag when the
//! corpus is there.

mod common;

use std::path::{Path, PathBuf};

use common::{corpus, robolog, scratch_dir, testdata, text};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `robolog filter ARGS`, asserting exit code 0.
fn filter_ok(args: &[&str]) {
    let out = robolog().arg("filter").args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
}

/// Runs `robolog filter ARGS`; its exit code and stderr.
fn filter(args: &[&str]) -> (Option<i32>, String) {
    let out = robolog().arg("filter").args(args).output().unwrap();
    (out.status.code(), text(&out.stderr))
}

/// Writes `text` as `name` in `dir`.
fn config(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The bytes of `out` after `robolog filter IN OUT ARGS`.
fn output(input: &Path, out: &Path, args: &[&str]) -> Vec<u8> {
    let mut all = vec![s(input), s(out), "--force"];
    all.extend_from_slice(args);
    filter_ok(&all);
    std::fs::read(out).unwrap()
}

/// The message count `robolog info` gives for `path`.
fn messages(path: &Path) -> u64 {
    let out = robolog().arg("info").arg(path).output().unwrap();
    let info = text(&out.stdout);
    let line = info
        .lines()
        .find_map(|l| l.strip_prefix("messages:"))
        .unwrap_or_else(|| panic!("no message count in {info}"));
    line.trim().parse().unwrap()
}

/// Asserts a usage error (exit 2) whose message names `path` and `line`
/// and holds every one of `words`.
fn assert_usage_at(args: &[&str], path: &Path, line: usize, words: &[&str]) {
    let (code, err) = filter(args);
    assert_eq!(code, Some(2), "{args:?}: {err}");
    assert!(
        err.contains(&format!("{}: ", path.display())),
        "{err} names {}",
        path.display()
    );
    assert!(
        err.contains(&format!("line {line}: ")),
        "{err}: not line {line}"
    );
    for w in words {
        assert!(err.contains(w), "{err}: no {w:?}");
    }
}

#[test]
fn a_config_gives_the_bytes_of_the_same_flags() {
    let dir = scratch_dir("filter-config", "same");
    let bag = testdata("rosbag/sample.bag");
    for ext in ["bag", "mcap"] {
        let flags = output(
            &bag,
            &dir.join(format!("flags.{ext}")),
            &[
                "--topic",
                "/c*",
                "--exclude-topic",
                "/chatter",
                "--where",
                "/count: data > 3 AND data < 25",
                "--start",
                "0.5",
                "--end",
                "2.5",
                "--shift",
                "-2s",
                "--rename",
                "/count=/counter",
                "--chunk-size",
                "512",
            ],
        );
        let file = config(
            &dir,
            &format!("rewrite-{ext}.toml"),
            r#"# The same options as the flags.
topics = ["/c*"]
exclude = "/chatter"
start = 0.5
end = "2.5"
shift = "-2s"
chunk_size = 512

[where]
"/count" = "data > 3 AND data < 25"

[rename]
"/count" = "/counter"
"#,
        );
        let configured = output(
            &bag,
            &dir.join(format!("config.{ext}")),
            &["--config", s(&file)],
        );
        assert_eq!(configured, flags, "{ext}: the config's output differs");
        // /count's data 4 to 19 (0.9 s to 2.4 s after the start).
        assert_eq!(messages(&dir.join(format!("config.{ext}"))), 16);
    }
}

#[test]
fn flags_add_to_the_files_lists_and_replace_its_values() {
    let dir = scratch_dir("filter-config", "override");
    let bag = testdata("rosbag/sample.bag");
    let file = config(
        &dir,
        "base.toml",
        "topics = [\"/count\"]\nend = 2.8\n[where]\n\"/count\" = \"data > 20\"\n",
    );
    // --topic adds /point, --end replaces 2.8, --where replaces the file's.
    let configured = output(
        &bag,
        &dir.join("config.bag"),
        &[
            "--config",
            s(&file),
            "--topic",
            "/point",
            "--end",
            "2",
            "--where",
            "/count: data <= 10",
        ],
    );
    let flags = output(
        &bag,
        &dir.join("flags.bag"),
        &[
            "--topic",
            "/count",
            "--topic",
            "/point",
            "--end",
            "2",
            "--where",
            "/count: data <= 10",
        ],
    );
    assert_eq!(configured, flags);
    // /count's -5 to 10 and /point's 20 messages before 2 s.
    assert_eq!(messages(&dir.join("config.bag")), 16 + 20);
    // The file alone: /count's 21 and 22, before 2.8 s.
    output(&bag, &dir.join("alone.bag"), &["--config", s(&file)]);
    assert_eq!(messages(&dir.join("alone.bag")), 2);
}

#[test]
fn an_unknown_key_is_a_usage_error_naming_it_and_its_line() {
    let dir = scratch_dir("filter-config", "unknown");
    let bag = testdata("rosbag/sample.bag");
    let out = dir.join("out.bag");
    let file = config(
        &dir,
        "typo.toml",
        "topics = [\"/count\"]\n\n# the flag's name, not the key's\nexclude_topic = [\"/point\"]\n",
    );
    assert_usage_at(
        &[s(&bag), s(&out), "--config", s(&file)],
        &file,
        4,
        &["unknown key `exclude_topic`", "topics, exclude, where"],
    );
    // A table is a key too.
    let file = config(
        &dir,
        "table.toml",
        "before = 1\n[wheres]\n\"/count\" = \"data > 1\"\n",
    );
    assert_usage_at(
        &[s(&bag), s(&out), "--config", s(&file)],
        &file,
        2,
        &["unknown key `wheres`"],
    );
    assert!(!out.exists(), "nothing written");
}

#[test]
fn a_value_of_the_wrong_type_is_a_usage_error_with_its_line() {
    let dir = scratch_dir("filter-config", "types");
    let bag = testdata("rosbag/sample.bag");
    let out = dir.join("out.bag");
    for (name, text, line, words) in [
        (
            "list.toml",
            "topics = [\n  \"/count\",\n  7,\n]\n",
            3,
            &["topics: expected a string in the array, found an integer"][..],
        ),
        (
            "duration.toml",
            "topics = \"/count\"\nbefore = true\n",
            2,
            &["before: expected a duration", "found a boolean"][..],
        ),
        (
            "where.toml",
            "[where]\n\"/count\" = 3\n",
            2,
            &["where: expected a string expression, found an integer"][..],
        ),
        (
            "dotted.toml",
            "[where]\n\ncount.data = \"data > 3\"\n",
            3,
            &["quote topic names"][..],
        ),
        (
            "choice.toml",
            "compression = \"gzip\"\n",
            1,
            &["\"gzip\" is not one of zstd, lz4, none"][..],
        ),
        (
            "time.toml",
            "\nstart = [1]\n",
            2,
            &["start: expected a time"][..],
        ),
        (
            "syntax.toml",
            "topics = [\"/count\"]\nend = \n",
            2,
            &["not TOML"][..],
        ),
    ] {
        let file = config(&dir, name, text);
        assert_usage_at(
            &[s(&bag), s(&out), "--config", s(&file)],
            &file,
            line,
            words,
        );
    }
    assert!(!out.exists(), "nothing written");
}

#[test]
fn a_missing_config_is_an_error_and_a_bad_expression_a_usage_error() {
    let dir = scratch_dir("filter-config", "missing");
    let bag = testdata("rosbag/sample.bag");
    let out = dir.join("out.bag");
    let missing = dir.join("nope.toml");
    let (code, err) = filter(&[s(&bag), s(&out), "--config", s(&missing)]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("nope.toml") && err.contains("cannot read"),
        "{err}"
    );
    // An expression of the file is checked as the flag's is.
    let file = config(&dir, "expr.toml", "[where]\n\"/count\" = \"nosuch > 1\"\n");
    let (code, err) = filter(&[s(&bag), s(&out), "--config", s(&file)]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("nosuch") && err.contains("data"), "{err}");
    assert!(!out.exists());
}

#[test]
fn a_corpus_pipeline_as_a_config() {
    let Some(bag) = corpus("sensors/robot_localization-test1.bag") else {
        return;
    };
    let dir = scratch_dir("filter-config", "corpus");
    let flags = output(
        &bag,
        &dir.join("flags.mcap"),
        &[
            "--topic",
            "/imu/*",
            "--topic",
            "/fix",
            "--where",
            "/imu/data: linear_acceleration.z > 1.5 AND header.frame_id = 'imu_link'",
            "--around",
            "/fix: longitude > -71.1474",
            "--before",
            "2s",
            "--after",
            "500ms",
            "--compression",
            "lz4",
        ],
    );
    let file = config(
        &dir,
        "rewrite.toml",
        r#"topics = ["/imu/*", "/fix"]
before = "2s"
after = 0.5
compression = "lz4"

[where]
"/imu/data" = "linear_acceleration.z > 1.5 AND header.frame_id = 'imu_link'"

[around]
"/fix" = "longitude > -71.1474"
"#,
    );
    let configured = output(&bag, &dir.join("config.mcap"), &["--config", s(&file)]);
    assert_eq!(configured, flags);
    assert!(configured.len() > 10_000);
}

#[test]
fn a_split_from_the_config_writes_the_flags_parts() {
    let dir = scratch_dir("filter-config", "split");
    let bag = testdata("rosbag/sample.bag");
    let file = config(&dir, "split.toml", "topics = \"/count\"\nsplit_every = 1\n");
    filter_ok(&[
        s(&bag),
        s(&dir.join("flags.bag")),
        "--topic",
        "/count",
        "--split-every",
        "1s",
    ]);
    filter_ok(&[s(&bag), s(&dir.join("config.bag")), "--config", s(&file)]);
    let mut parts = 0;
    for i in 0.. {
        let (a, b) = (
            dir.join(format!("flags_{i:03}.bag")),
            dir.join(format!("config_{i:03}.bag")),
        );
        if !a.exists() {
            assert!(!b.exists(), "{} has no counterpart", b.display());
            break;
        }
        assert_eq!(
            std::fs::read(&b).unwrap(),
            std::fs::read(&a).unwrap(),
            "part {i}"
        );
        parts += 1;
    }
    // 2.9 s of /count in parts of 1 s.
    assert_eq!(parts, 3);
}

#[test]
fn restamp_and_frame_ids_from_the_config_equal_the_flags() {
    let dir = scratch_dir("filter-config", "rewrite");
    let bag = testdata("rosbag/sample.bag");
    let file = config(
        &dir,
        "rewrite.toml",
        "topics = \"/point\"\nrestamp = \"header\"\n[frame_id]\n\"map\" = \"world\"\n",
    );
    let flags = output(
        &bag,
        &dir.join("flags.bag"),
        &[
            "--topic",
            "/point",
            "--restamp",
            "header",
            "--frame-id",
            "map=world",
        ],
    );
    let configured = output(&bag, &dir.join("config.bag"), &["--config", s(&file)]);
    assert_eq!(configured, flags);
    let plain = output(&bag, &dir.join("plain.bag"), &["--topic", "/point"]);
    assert_ne!(configured, plain, "the frames were renamed");
    let out = robolog()
        .args(["cat", "--json"])
        .arg(dir.join("config.bag"))
        .output()
        .unwrap();
    let json = text(&out.stdout);
    assert_eq!(json.matches("\"world\"").count(), 30, "{json}");
    assert!(!json.contains("\"map\""));
}
