//! One rule per kind of input problem, whatever the command.
//!
//! - A `--topic` that names no topic is a usage error (exit 2) in every
//!   command that takes `--topic`, naming the topic and the topics there
//!   are, before anything is written.
//! - A bag without its index (never closed, or cut short before it) is
//!   read by scanning its chunks in every command: every message is read,
//!   one stderr line says so (once), and the exit code is 1; except `sql`,
//!   whose answer is complete: it exits 0 unless `--strict`.

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use common::{robolog, scratch_dir, testdata, text};

/// What a run gave: exit code, stdout, stderr.
struct Run {
    code: Option<i32>,
    out: String,
    err: String,
}

fn run(args: &[OsString]) -> Run {
    let out = robolog().args(args).output().unwrap();
    Run {
        code: out.status.code(),
        out: text(&out.stdout),
        err: text(&out.stderr),
    }
}

fn os(parts: &[&dyn AsRef<std::ffi::OsStr>]) -> Vec<OsString> {
    parts.iter().map(|p| p.as_ref().to_os_string()).collect()
}

/// Every command taking `--topic`, with `/typo` (or `topic`) asked for
/// and its output under `dir`: (name, arguments, the output).
fn topic_commands(dir: &Path, topic: &str) -> Vec<(&'static str, Vec<OsString>, PathBuf)> {
    let bag = testdata("rosbag/sample.bag");
    let mcap = testdata("mcap/chunked-lz4.mcap");
    let t: &dyn AsRef<std::ffi::OsStr> = &topic;
    let (to_mcap, to_bag, csv, pq) = (
        dir.join("out.mcap"),
        dir.join("out.bag"),
        dir.join("csv"),
        dir.join("pq"),
    );
    vec![
        ("cat", os(&[&"cat", &"--topic", t, &bag]), dir.join("none")),
        (
            "convert to MCAP",
            os(&[&"convert", &"--topic", t, &bag, &to_mcap]),
            to_mcap.clone(),
        ),
        (
            "convert to a bag",
            os(&[&"convert", &"--topic", t, &bag, &to_bag]),
            to_bag.clone(),
        ),
        (
            "export --csv",
            os(&[&"export", &"--csv", &"--topic", t, &bag, &"-o", &csv]),
            csv.clone(),
        ),
        (
            "export --parquet (two logs)",
            os(&[
                &"export",
                &"--parquet",
                &"--topic",
                t,
                &bag,
                &mcap,
                &"-o",
                &pq,
            ]),
            pq.clone(),
        ),
    ]
}

#[test]
fn an_unknown_topic_is_a_usage_error_in_every_command_and_nothing_is_written() {
    let dir = scratch_dir("consistency", "topic");
    for (name, args, output) in topic_commands(&dir, "/typo") {
        let r = run(&args);
        assert_eq!(r.code, Some(2), "{name}: {}", r.err);
        assert!(r.out.is_empty(), "{name}: {}", r.out);
        assert_eq!(r.err.lines().count(), 1, "{name}: {}", r.err);
        assert!(
            r.err.contains("--topic \"/typo\": no such topic"),
            "{name}: {}",
            r.err
        );
        // The topics there are, sorted.
        assert!(
            r.err.contains("are \"/chatter\", \"/count\", \"/point\""),
            "{name}: {}",
            r.err
        );
        assert!(!output.exists(), "{name}: {}", output.display());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_topic_of_one_of_the_logs_or_of_a_conversion_is_known() {
    let dir = scratch_dir("consistency", "known");
    // `/raw` is in the MCAP file only: the two-log export takes it.
    let pq = dir.join("pq");
    let args = os(&[
        &"export",
        &"--parquet",
        &"--topic",
        &"/raw",
        &testdata("rosbag/sample.bag"),
        &testdata("mcap/chunked-lz4.mcap"),
        &"-o",
        &pq,
    ]);
    let r = run(&args);
    assert_eq!(r.code, Some(0), "{}", r.err);
    assert!(pq.join("raw").exists());
    // A conversion selects by the topics it writes: a ULog subscription
    // is NAME/MULTI_ID, and the Foxglove views have topics of their own.
    for (log, topic) in [
        ("ulog/example.ulg", "tf"),
        ("ulog/features.ulg", "esc_status/1"),
        ("vellog/sensors.vel", "GPSDataM/fix"),
        ("carla/scene-0.9.13.rec", "scene"),
    ] {
        let out = dir.join("out.mcap");
        let args = os(&[
            &"convert",
            &"--force",
            &"--topic",
            &topic,
            &testdata(log),
            &out,
        ]);
        let r = run(&args);
        assert_eq!(r.code, Some(0), "{log} {topic}: {}", r.err);
        assert!(!r.err.contains(" 0 messages"), "{log} {topic}: {}", r.err);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The bags without an index: `unindexed.bag` (the header's index
/// position is 0: never closed), and `sample.bag` cut where its index
/// starts (a recording cut short).
fn unindexed_bags(dir: &Path) -> Vec<PathBuf> {
    let sample = std::fs::read(testdata("rosbag/sample.bag")).unwrap();
    let unindexed = std::fs::read(testdata("rosbag/unindexed.bag")).unwrap();
    // unindexed.bag is sample.bag before its index, with index_pos 0.
    assert_eq!(unindexed.len(), 12869);
    let cut = dir.join("cut-short.bag");
    std::fs::write(&cut, &sample[..unindexed.len()]).unwrap();
    vec![testdata("rosbag/unindexed.bag"), cut]
}

/// The sum of `N` over the lines `wrote PATH (N rows, ...)` whose path
/// is not a `logs` table's.
fn rows_written(stdout: &str) -> u64 {
    stdout
        .lines()
        .filter(|l| !l.contains("/logs/"))
        .filter_map(|l| l.split_once(" (")?.1.split_once(" row"))
        .map(|(n, _)| n.parse::<u64>().unwrap())
        .sum()
}

/// `robolog info --json FILE`'s message count.
fn message_count(file: &Path) -> u64 {
    let r = run(&os(&[&"info", &"--json", &file]));
    let j: serde_json::Value = serde_json::from_str(&r.out).unwrap();
    j["message_count"].as_u64().unwrap()
}

/// Runs every reading command on `bag` with outputs in `dir`: (command,
/// the run, messages read).
fn read_everywhere(bag: &Path, dir: &Path) -> Vec<(&'static str, Run, u64)> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let mut runs = Vec::new();

    let r = run(&os(&[&"info", &"--json", &bag]));
    let n = serde_json::from_str::<serde_json::Value>(&r.out).unwrap()["message_count"]
        .as_u64()
        .unwrap();
    runs.push(("info", r, n));

    let r = run(&os(&[&"cat", &"--json", &bag]));
    let n = r.out.lines().count() as u64;
    runs.push(("cat", r, n));

    let r = run(&os(&[&"check", &"--json", &bag]));
    let n = serde_json::from_str::<serde_json::Value>(&r.out).unwrap()["messages_checked"]
        .as_u64()
        .unwrap();
    runs.push(("check", r, n));

    let r = run(&os(&[&"export", &"--csv", &bag, &"-o", &dir.join("csv")]));
    let n = rows_written(&r.out);
    runs.push(("export --csv", r, n));

    let r = run(&os(&[
        &"export",
        &"--parquet",
        &bag,
        &"-o",
        &dir.join("pq"),
    ]));
    let n = rows_written(&r.out);
    runs.push(("export --parquet", r, n));

    let mcap = dir.join("out.mcap");
    let r = run(&os(&[&"convert", &bag, &mcap]));
    let n = message_count(&mcap);
    runs.push(("convert", r, n));

    let query = r#"SELECT (SELECT count(*) FROM chatter) + (SELECT count(*) FROM "count") + (SELECT count(*) FROM point) AS n"#;
    let r = run(&os(&[&"sql", &"--format", &"csv", &query, &bag]));
    let n = r.out.lines().nth(1).unwrap_or("0").parse().unwrap();
    runs.push(("sql", r, n));
    let r = run(&os(&[
        &"sql",
        &"--strict",
        &"--format",
        &"csv",
        &query,
        &bag,
    ]));
    let n = r.out.lines().nth(1).unwrap_or("0").parse().unwrap();
    runs.push(("sql --strict", r, n));
    runs
}

#[test]
fn an_unindexed_bag_is_read_whole_said_once_and_exits_1_in_every_command() {
    let dir = scratch_dir("consistency", "unindexed");
    // The same bag with its index: every command reads it cleanly.
    let indexed = read_everywhere(&testdata("rosbag/sample.bag"), &dir.join("indexed"));
    for (cmd, r, n) in &indexed {
        assert_eq!(r.code, Some(0), "{cmd}: {}", r.err);
        assert_eq!(*n, 75, "{cmd}");
        assert!(!r.err.contains("scann"), "{cmd}: {}", r.err);
    }
    for bag in unindexed_bags(&dir) {
        let runs = read_everywhere(&bag, &dir.join("unindexed"));
        for ((cmd, r, n), (_, _, clean)) in runs.iter().zip(&indexed) {
            let what = format!("{cmd} {}", bag.display());
            // `sql`'s answer is complete: the warning is an error only
            // with --strict.
            let code = if *cmd == "sql" { 0 } else { 1 };
            assert_eq!(r.code, Some(code), "{what}: {}", r.err);
            assert_eq!(n, clean, "{what}: every message is read");
            // One line says the bag was read by scanning, once.
            let said: Vec<&str> = r.err.lines().filter(|l| l.contains("scann")).collect();
            assert_eq!(said.len(), 1, "{what}: {}", r.err);
            assert!(
                said[0].starts_with(&format!("robolog: {}: at byte ", bag.display())),
                "{what}: {}",
                r.err
            );
            // Nothing else but the summary line of `convert`.
            let other: Vec<&str> = r
                .err
                .lines()
                .filter(|l| !l.contains("scann") && !l.contains(" messages on "))
                .collect();
            assert!(other.is_empty(), "{what}: {}", r.err);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
