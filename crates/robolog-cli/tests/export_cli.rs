//! `robolog export`: the values of every CSV cell equal those `robolog cat
//! --json` prints for the same message (bags, MCAP with JSON and protobuf
//! channels, CARLA, VEL); ULog files equal `robolog ulog csv`'s (pyulog's
//! `ulog2csv`) byte for byte; unknown topics, existing files and the input
//! are refused with exit code 2 before anything is written.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{robolog, testdata};
use serde_json::Value as Json;

/// A path for a new folder (not created).
fn scratch(name: &str) -> PathBuf {
    common::scratch_path("export", name)
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The records of a CSV file (RFC 4180 quoting).
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => cell.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut cell)),
            (false, '\n') => {
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => cell.push(c),
        }
    }
    assert!(
        cell.is_empty() && row.is_empty(),
        "the file ends inside a row"
    );
    rows
}

/// The part of `v` a column name points at (`a.b[2].c`), `None` when `v`
/// has no such part.
fn at<'v>(v: &'v Json, name: &str) -> Option<&'v Json> {
    let mut cur = v;
    for part in name.split('.') {
        let (field, indexes) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        cur = cur.get(field)?;
        for idx in indexes.split('[').skip(1) {
            let i: usize = idx.trim_end_matches(']').parse().unwrap();
            cur = cur.get(i)?;
        }
    }
    Some(cur)
}

/// Every leaf of `v` with its column name.
fn leaves(v: &Json, prefix: &str, out: &mut Vec<String>) {
    match v {
        Json::Object(m) => {
            for (k, x) in m {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                leaves(x, &p, out);
            }
        }
        Json::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                leaves(x, &format!("{prefix}[{i}]"), out);
            }
        }
        _ => out.push(prefix.to_string()),
    }
}

/// The text a CSV cell holds for a scalar JSON value.
fn text(v: &Json) -> String {
    match v {
        Json::Null => String::new(),
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether a CSV cell holds the scalar `v`: the same text, or for a float
/// the same number (serde_json's default parser, which read the `cat
/// --json` line, may land one unit in the last place off for long
/// fractions, so the cell's exact value is compared within that).
fn same(cell: &str, v: &Json) -> bool {
    if cell == text(v) {
        return true;
    }
    match (cell.parse::<f64>(), v.as_f64()) {
        (Ok(a), Some(b)) if v.is_f64() => a == b || (a - b).abs() <= f64::EPSILON * b.abs(),
        _ => false,
    }
}

/// Exports `fixture` and checks every row against `cat --json`: the time
/// columns (`own`: the name of the column in the format's own unit and
/// the number of its fraction digits, `None` for MCAP), every column's value, and that every leaf of every message
/// has a column (or lies inside a JSON column). Returns the files written.
fn cross_check(fixture: &str, own: Option<(&str, u32)>) -> Vec<String> {
    let input = testdata(fixture);
    let dir = scratch("cross");
    let out = robolog()
        .arg("export")
        .arg(&input)
        .arg("-o")
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{fixture}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cat = robolog()
        .args(["cat", "--json"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(cat.status.success());
    let mut by_topic: BTreeMap<String, Vec<Json>> = BTreeMap::new();
    for line in String::from_utf8(cat.stdout).unwrap().lines() {
        let j: Json = serde_json::from_str(line).unwrap();
        by_topic
            .entry(j["topic"].as_str().unwrap().to_string())
            .or_default()
            .push(j);
    }
    let mut cells = 0usize;
    let names = robolog::names::TableNames::new(by_topic.keys().map(String::as_str));
    for (topic, messages) in &by_topic {
        let file = dir.join(format!("{}.csv", names.name(topic).unwrap()));
        let rows = parse_csv(&std::fs::read_to_string(&file).unwrap());
        let (header, rows) = rows.split_first().unwrap();
        assert_eq!(rows.len(), messages.len(), "{fixture} {topic}: rows");
        match own {
            Some((name, _)) => assert_eq!(header[..2], [name, "log_time_ns"]),
            None => assert_eq!(header[..2], ["log_time_ns", "publish_time_ns"]),
        }
        for (row, msg) in rows.iter().zip(messages) {
            assert_eq!(row.len(), header.len());
            let ns = msg["log_time_ns"].as_i64().unwrap();
            match own {
                Some((_, digits)) => {
                    let per = 10i64.pow(digits);
                    let text = format!(
                        "{}.{:0w$}",
                        ns.div_euclid(per),
                        ns.rem_euclid(per),
                        w = digits as usize
                    );
                    assert_eq!(row[0], text, "{fixture} {topic}");
                    assert_eq!(row[1], ns.to_string());
                }
                None => assert_eq!(row[0], ns.to_string()),
            }
            // A value that is no struct is under `data`.
            let data = match &msg["data"] {
                Json::Object(_) => msg["data"].clone(),
                other => serde_json::json!({ "data": other }),
            };
            for (name, cell) in header.iter().zip(row).skip(2) {
                match at(&data, name) {
                    None | Some(Json::Null) => assert_eq!(cell, "", "{fixture} {topic} {name}"),
                    // A time (JSON's {"sec", "nsec"}): one cell of ns.
                    Some(Json::Object(t)) if t.len() == 2 && t.contains_key("nsec") => {
                        let ns = t["sec"].as_i64().unwrap() * 1_000_000_000
                            + t["nsec"].as_i64().unwrap();
                        assert_eq!(*cell, ns.to_string(), "{fixture} {topic} {name}");
                    }
                    Some(v @ (Json::Object(_) | Json::Array(_))) => {
                        let parsed: Json = serde_json::from_str(cell).unwrap();
                        assert_eq!(&parsed, v, "{fixture} {topic} {name}");
                    }
                    Some(v) => assert!(same(cell, v), "{fixture} {topic} {name}: {cell} vs {v}"),
                }
                cells += 1;
            }
            let mut names = Vec::new();
            leaves(&data, "", &mut names);
            for n in names {
                let covered = header.iter().any(|h| {
                    *h == n
                        || (n.starts_with(h.as_str())
                            && matches!(n.as_bytes().get(h.len()), Some(b'.' | b'[')))
                });
                assert!(covered, "{fixture} {topic}: no column for {n}");
            }
        }
    }
    assert!(cells > 0);
    let written = files(&dir);
    assert_eq!(written.len(), by_topic.len(), "{fixture}: {written:?}");
    std::fs::remove_dir_all(&dir).unwrap();
    written
}

#[test]
fn bag_cells_equal_cat_json() {
    let files = cross_check("rosbag/sample.bag", Some(("time_s", 9)));
    assert_eq!(files, ["chatter.csv", "count.csv", "point.csv"]);
    cross_check("rosbag/sample-1.2.bag", Some(("time_s", 9)));
    cross_check("rosbag/sample-lz4.bag", Some(("time_s", 9)));
}

#[test]
fn mcap_cells_equal_cat_json() {
    let files = cross_check("mcap/chunked-zstd.mcap", None);
    assert_eq!(files, ["point.csv", "point2.csv", "raw.csv"]);
    // Protobuf channels decoded from the embedded descriptors.
    cross_check(
        "osi/20240101T000000Z_multi_380_3200_10_fixture-zstd.mcap",
        None,
    );
}

#[test]
fn carla_cells_equal_cat_json() {
    let files = cross_check("carla/scene-0.9.13.rec", Some(("time_s", 9)));
    assert!(files.contains(&"Position.csv".to_string()));
    cross_check("carla/scene-0.10-ue5.rec", Some(("time_s", 9)));
}

#[test]
fn vel_cells_equal_cat_json() {
    let files = cross_check("vellog/sensors.vel", Some(("time_ms", 6)));
    assert!(files.contains(&"LaserRange2DDataM_front.csv".to_string()));
}

#[test]
fn ulog_files_equal_ulog_csv_byte_for_byte() {
    let dir = scratch("ulog");
    let input = testdata("ulog/features.ulg");
    robolog()
        .arg("export")
        .arg(&input)
        .arg("-o")
        .arg(dir.join("export"))
        .assert()
        .success();
    robolog()
        .args(["ulog", "csv"])
        .arg(&input)
        .arg("-o")
        .arg(dir.join("csv"))
        .assert()
        .success();
    let names = files(&dir.join("csv"));
    assert_eq!(
        names,
        [
            "features_esc_status_0.csv",
            "features_esc_status_1.csv",
            "features_sensor_gps_0.csv"
        ]
    );
    assert_eq!(files(&dir.join("export")), names);
    for n in &names {
        assert_eq!(
            std::fs::read(dir.join("export").join(n)).unwrap(),
            std::fs::read(dir.join("csv").join(n)).unwrap(),
            "{n}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn topics_select_files_and_an_unknown_one_is_a_usage_error() {
    let dir = scratch("topics");
    let out = robolog()
        .arg("export")
        .arg(testdata("rosbag/sample.bag"))
        .args(["--csv", "--topic", "/point", "--topic", "/count", "-o"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(files(&dir), ["count.csv", "point.csv"]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        stdout,
        format!(
            "wrote {} (30 rows, 3 columns)\nwrote {} (30 rows, 8 columns)\n",
            dir.join("count.csv").display(),
            dir.join("point.csv").display()
        )
    );
    let other = scratch("unknown");
    let out = robolog()
        .arg("export")
        .arg(testdata("rosbag/sample.bag"))
        .args(["--topic", "/nope", "-o"])
        .arg(&other)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.ends_with(
            "sample.bag: invalid argument: --topic \"/nope\": no such topic in this log; its topics are \"/chatter\", \"/count\", \"/point\"\n"
        ),
        "{stderr}"
    );
    assert!(!other.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn existing_files_are_kept_without_force_and_replaced_with_it() {
    let dir = scratch("force");
    std::fs::create_dir_all(dir.join("nested")).unwrap();
    std::fs::write(dir.join("nested/count.csv"), "mine").unwrap();
    let run = |force: bool| {
        let mut c = robolog();
        c.arg("export")
            .arg(testdata("rosbag/sample.bag"))
            .arg("-o")
            .arg(dir.join("nested"));
        if force {
            c.arg("--force");
        }
        c.output().unwrap()
    };
    let out = run(false);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("count.csv exists already") && stderr.contains("--force"),
        "{stderr}"
    );
    // Nothing was written: the refusal comes before the first file.
    assert_eq!(files(&dir.join("nested")), ["count.csv"]);
    assert_eq!(
        std::fs::read_to_string(dir.join("nested/count.csv")).unwrap(),
        "mine"
    );
    assert_eq!(run(true).status.code(), Some(0));
    assert_eq!(
        files(&dir.join("nested")),
        ["chatter.csv", "count.csv", "point.csv"]
    );
    assert!(
        std::fs::read_to_string(dir.join("nested/count.csv"))
            .unwrap()
            .starts_with("time_s,log_time_ns,data\n")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_input_is_never_written_over() {
    // A bag named like the file its /count table gets, exported into its
    // own folder: refused even with --force.
    let dir = scratch("input");
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("count.csv");
    std::fs::copy(testdata("rosbag/sample.bag"), &input).unwrap();
    let original = std::fs::read(&input).unwrap();
    let out = robolog()
        .arg("export")
        .arg(&input)
        .arg("-o")
        .arg(&dir)
        .arg("--force")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is the input"));
    assert_eq!(std::fs::read(&input).unwrap(), original);
    assert_eq!(files(&dir), ["count.csv"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_damaged_input_is_exported_as_far_as_it_reads_and_exits_1() {
    let dir = scratch("damaged");
    let out = robolog()
        .arg("export")
        .arg(testdata("rosbag/truncated.bag"))
        .arg("-o")
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("truncated at byte 5549"));
    assert_eq!(files(&dir), ["chatter.csv", "count.csv", "point.csv"]);
    let count = std::fs::read_to_string(dir.join("count.csv")).unwrap();
    assert_eq!(count.lines().count(), 4);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_folder_must_be_given() {
    robolog()
        .arg("export")
        .arg(testdata("rosbag/sample.bag"))
        .assert()
        .code(2);
}
