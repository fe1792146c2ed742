//! `robolog export LOG --align ...` and `robolog ulog csv LOG --single`:
//! each aligned cell equals the sample `robolog cat --json` (or the
//! per-topic CSV of `robolog ulog csv`, pyulog's `ulog2csv` byte for byte)
//! gives at the row's time; refusals exit 2 before anything is written.

mod common;

use std::path::PathBuf;

use common::{robolog, testdata, text};
use serde_json::Value as Json;

fn scratch(name: &str) -> PathBuf {
    common::scratch_dir("align", name)
}

/// `(log_time ns, data)` of every message of `topic` as `cat --json`
/// prints it.
fn cat(path: &PathBuf, topic: &str) -> Vec<(i64, Json)> {
    let out = robolog()
        .args(["cat", "--json", "--topic", topic])
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
        .lines()
        .map(|l| {
            let v: Json = serde_json::from_str(l).unwrap();
            (v["log_time_ns"].as_i64().unwrap(), v["data"].clone())
        })
        .collect()
}

/// `robolog export LOG ARGS... -o OUT`.
fn export_align(log: &PathBuf, args: &[&str], out: &PathBuf) -> std::process::Output {
    robolog()
        .arg("export")
        .arg(log)
        .args(args)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap()
}

/// The rows of a simple CSV (no quoted cells).
fn rows(path: &PathBuf) -> (Vec<String>, Vec<Vec<String>>) {
    let s = std::fs::read_to_string(path).unwrap();
    let mut lines = s.lines();
    let head = lines.next().unwrap().split(',').map(String::from).collect();
    (
        head,
        lines
            .map(|l| l.split(',').map(String::from).collect())
            .collect(),
    )
}

#[test]
fn export_align_takes_each_topics_last_sample_as_cat_prints_it() {
    let bag = testdata("rosbag/sample.bag");
    let dir = scratch("previous");
    let out = dir.join("aligned.csv");
    let run = export_align(&bag, &["--align", "/count,talk=/chatter"], &out);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let (head, body) = rows(&out);
    assert_eq!(&head[..3], ["log_time", "log_time_utc", "count.data"]);
    let talk = head.iter().position(|h| h == "talk.data").unwrap();
    let talk_time = head.iter().position(|h| h == "talk.log_time").unwrap();
    let count = cat(&bag, "/count");
    let chatter = cat(&bag, "/chatter");
    assert_eq!(body.len(), count.len());
    let mut some = 0;
    for (row, (t, data)) in body.iter().zip(&count) {
        assert_eq!(row[0], t.to_string());
        assert_eq!(row[2], data["data"].to_string());
        let last = chatter.iter().rev().find(|(ct, _)| ct <= t);
        match last {
            Some((ct, d)) => {
                assert_eq!(row[talk], d["data"].as_str().unwrap());
                assert_eq!(row[talk_time], ct.to_string());
                some += 1;
            }
            None => assert_eq!(row[talk], ""),
        }
    }
    assert!(some > 10, "{some}");
    assert!(text(&run.stdout).contains(&format!("({} rows,", count.len())));
}

#[test]
fn export_align_on_a_grid_interpolates_numbers_as_asked() {
    let bag = testdata("rosbag/sample.bag");
    let dir = scratch("grid");
    let out = dir.join("grid.parquet");
    let run = export_align(
        &bag,
        &["--align", "/count", "--rate", "10hz", "--method", "linear"],
        &out,
    );
    assert!(run.status.success(), "{}", text(&run.stderr));
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(&bytes[..4], b"PAR1");
    // The same as CSV: values between two counts are interpolated.
    let csv = dir.join("grid.csv");
    let run = export_align(
        &bag,
        &["--align", "/count", "--rate", "10hz", "--method", "linear"],
        &csv,
    );
    assert!(run.status.success(), "{}", text(&run.stderr));
    let (head, body) = rows(&csv);
    let x = head.iter().position(|h| h == "count.data").unwrap();
    let count = cat(&bag, "/count");
    let t0 = count[0].0;
    for row in &body {
        let t: i64 = row[0].parse().unwrap();
        assert_eq!((t - t0) % 100_000_000, 0);
        let i = count.iter().rposition(|(ct, _)| *ct <= t).unwrap();
        let (ti, vi) = (count[i].0, count[i].1["data"].as_f64().unwrap());
        let want = match count.get(i + 1) {
            _ if ti == t => Some(vi),
            Some((tj, d)) => {
                let vj = d["data"].as_f64().unwrap();
                Some((vj - vi) / (tj - ti) as f64 * (t - ti) as f64 + vi)
            }
            None => None,
        };
        let got: Option<f64> = row[x].parse().ok();
        match (got, want) {
            (Some(g), Some(w)) => assert!((g - w).abs() <= 1e-9 * w.abs().max(1.0), "{g} {w}"),
            (g, w) => assert_eq!(g, w),
        }
    }
    let rows_said = format!("({} rows,", body.len());
    assert!(text(&run.stdout).contains(&rows_said));
}

#[test]
fn export_align_refuses_before_writing() {
    let bag = testdata("rosbag/sample.bag");
    let dir = scratch("refusals");
    let existing = dir.join("there.csv");
    std::fs::write(&existing, "keep me").unwrap();
    let cases: Vec<(Vec<&str>, PathBuf, &str)> = vec![
        (vec!["--align", "/count"], existing.clone(), "--force"),
        (
            vec!["--align", "/count"],
            dir.join("x.txt"),
            ".csv or .parquet",
        ),
        (vec!["--align", "/nope"], dir.join("a.csv"), "\"/nope\""),
        (vec!["--rate", "5"], dir.join("b.csv"), "go with --align"),
        (
            vec!["--align", "/count", "--method", "cubic"],
            dir.join("c.csv"),
            "cubic",
        ),
        (
            vec!["--align", "/count", "--on", "/chatter"],
            dir.join("d.csv"),
            "not one of the topics",
        ),
    ];
    for (args, out, says) in cases {
        let run = robolog()
            .arg("export")
            .arg(&bag)
            .args(&args)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(
            run.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&run.stderr)
        );
        assert!(
            text(&run.stderr).contains(says),
            "{args:?}: {}",
            text(&run.stderr)
        );
    }
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep me");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}

#[test]
fn ulog_csv_single_rows_equal_the_per_topic_csv_files() {
    let log = testdata("ulog/example.ulg");
    let dir = scratch("single");
    let run = robolog()
        .args(["ulog", "csv"])
        .arg(&log)
        .arg("-o")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", text(&run.stderr));
    let run = robolog()
        .args(["ulog", "csv", "--single", "--rate", "5"])
        .arg(&log)
        .arg("-o")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", text(&run.stderr));
    let (head, body) = rows(&dir.join("example.csv"));
    assert_eq!(head[0], "timestamp");
    assert!(!body.is_empty());
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let Some(part) = stem.strip_prefix("example_") else {
            continue;
        };
        let (h, b) = rows(&path);
        for (r, row) in body.iter().enumerate() {
            let t: u64 = row[0].parse().unwrap();
            let last = b.iter().rev().find(|s| s[0].parse::<u64>().unwrap() <= t);
            for (c, name) in h.iter().enumerate() {
                let col = head
                    .iter()
                    .position(|x| *x == format!("{part}.{name}"))
                    .unwrap_or_else(|| panic!("{part}.{name} in {head:?}"));
                match last {
                    Some(s) => {
                        let (got, want) = (&row[col], &s[c]);
                        let same = got == want
                            || got.parse::<f64>().ok() == want.parse::<f64>().ok()
                                && got.parse::<f64>().is_ok();
                        assert!(same, "row {r} {part}.{name}: {got} vs {want}");
                        checked += 1;
                    }
                    None => assert_eq!(row[col], "", "row {r} {part}.{name}"),
                }
            }
        }
    }
    assert!(checked > 50, "{checked}");
}

#[test]
fn sql_align_gives_the_rows_of_export_align() {
    let bag = testdata("rosbag/sample.bag");
    let dir = scratch("sql");
    let out = dir.join("aligned.csv");
    let run = export_align(
        &bag,
        &["--align", "/count,talk=/chatter", "--method", "nearest"],
        &out,
    );
    assert!(run.status.success(), "{}", text(&run.stderr));
    let (head, body) = rows(&out);
    let talk = head.iter().position(|h| h == "talk.data").unwrap();
    let run = robolog()
        .args(["sql", "--format", "csv"])
        .arg(
            "SELECT log, CAST(log_time AS BIGINT) AS t, \"count.data\", \"talk.data\" \
             FROM align('/count', 'talk=/chatter', method => 'nearest') ORDER BY t",
        )
        .arg(&bag)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", text(&run.stderr));
    let sql: Vec<Vec<String>> = text(&run.stdout)
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    assert_eq!(sql.len(), body.len());
    for (s, e) in sql.iter().zip(&body) {
        assert_eq!(s[0], "sample.bag");
        assert_eq!((&s[1], &s[2], &s[3]), (&e[0], &e[2], &e[talk]));
    }
    // A topic no log has is an error naming it.
    let run = robolog()
        .args(["sql", "SELECT * FROM align('/count', '/nope')"])
        .arg(&bag)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(
        text(&run.stderr).contains("sample.bag has no /nope"),
        "{}",
        text(&run.stderr)
    );
}
