//! What `robolog sql` must never do: write (any statement but a query is
//! refused, exit 2), write over one of its inputs (even with `--force`),
//! or give rows that depend on the columns selected when messages do not
//! decode (they are rows with null fields, named on stderr, exit 1; the
//! same in `export --parquet`).

#![cfg(feature = "sql")]

mod common;

use std::path::{Path, PathBuf};

use common::{robolog, testdata, text};

/// A copy of the sample bag in a scratch folder.
fn bag_copy(name: &str) -> (PathBuf, PathBuf, Vec<u8>) {
    let dir = common::scratch_dir("sqltrust", name);
    let bag = dir.join("in.bag");
    let bytes = std::fs::read(testdata("rosbag/sample.bag")).unwrap();
    std::fs::write(&bag, &bytes).unwrap();
    (dir, bag, bytes)
}

fn sql(query: &str, logs: &[&Path]) -> std::process::Output {
    robolog().arg("sql").arg(query).args(logs).output().unwrap()
}

#[test]
fn statements_other_than_queries_are_refused_before_anything_is_written() {
    let (dir, bag, bytes) = bag_copy("refused");
    let target = dir.join("new.csv");
    for (statement, named) in [
        (
            format!("COPY (SELECT * FROM count) TO '{}'", bag.display()),
            "COPY",
        ),
        (
            format!("COPY count TO '{}' STORED AS CSV", target.display()),
            "COPY",
        ),
        (
            format!(
                "CREATE EXTERNAL TABLE x STORED AS CSV LOCATION '{}'",
                bag.display()
            ),
            "CREATE EXTERNAL TABLE",
        ),
        (
            "CREATE TABLE x AS SELECT * FROM count".into(),
            "CREATE TABLE",
        ),
        ("INSERT INTO count VALUES (1)".into(), "INSERT INTO"),
        ("DROP TABLE count".into(), "DROP TABLE"),
        ("SET datafusion.execution.batch_size = 1".into(), "SET"),
        (
            format!("EXPLAIN ANALYZE COPY (SELECT 1) TO '{}'", target.display()),
            "COPY",
        ),
    ] {
        let out = sql(&statement, &[&bag]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{statement}: {}",
            text(&out.stderr)
        );
        assert_eq!(
            text(&out.stderr),
            format!(
                "robolog: query: {named} is refused: SQL over logs only reads \
                 (allowed: SELECT, WITH, VALUES, EXPLAIN, SHOW and DESCRIBE)\n"
            ),
            "{statement}"
        );
        assert!(out.stdout.is_empty(), "{statement}");
    }
    assert_eq!(
        std::fs::read(&bag).unwrap(),
        bytes,
        "the input is untouched"
    );
    assert!(!target.exists(), "no file was written");
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(names.len(), 1, "only the input is in the folder");
    // Queries in every allowed form still run.
    for (query, expect) in [
        ("SELECT count(*) AS n FROM count", "| 30 |"),
        (
            "WITH c AS (SELECT data FROM count) SELECT count(*) AS n FROM c",
            "| 30 |",
        ),
        ("SHOW TABLES", "| count "),
        ("DESCRIBE count", "| log_time "),
        ("EXPLAIN SELECT count(*) FROM count", "logical_plan"),
    ] {
        let out = sql(query, &[&bag]);
        assert_eq!(out.status.code(), Some(0), "{query}: {}", text(&out.stderr));
        assert!(
            text(&out.stdout).contains(expect),
            "{query}: {}",
            text(&out.stdout)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_output_over_an_input_even_with_force() {
    let (dir, bag, bytes) = bag_copy("input");
    // Named as given, through `..`, and found in a folder given.
    let dotted = dir.join("..").join(dir.file_name().unwrap()).join("in.bag");
    for (output, input) in [(&bag, &bag), (&dotted, &bag), (&bag, &dir)] {
        for format in ["csv", "parquet"] {
            let out = robolog()
                .args(["sql", "--force", "--format", format, "-o"])
                .arg(output)
                .arg("SELECT log_time FROM count")
                .arg(input)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
            assert!(
                text(&out.stderr).contains("(writing it would destroy the input)"),
                "{}",
                text(&out.stderr)
            );
            assert_eq!(
                std::fs::read(&bag).unwrap(),
                bytes,
                "the input is untouched"
            );
        }
    }
    // Another file is written as before.
    let dest = dir.join("out.csv");
    let out = robolog()
        .args(["sql", "--format", "csv", "-o"])
        .arg(&dest)
        .arg("SELECT data FROM count ORDER BY log_time LIMIT 2")
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&dest).unwrap(), "data\n-5\n-4\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An MCAP file of a JSON topic `/odd` with these messages, logged at
/// 1000, 1001, ... ns.
fn json_mcap(path: &Path, messages: &[&[u8]]) {
    use mcapfile::{WriteOptions, Writer};
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriteOptions::default()).unwrap();
    let ch = w
        .add_channel(0, "/odd", "json", &Default::default())
        .unwrap();
    for (i, m) in messages.iter().enumerate() {
        let t = 1_000 + i as u64;
        w.write_message(ch, i as u32, t, t, m).unwrap();
    }
    std::fs::write(path, w.finish().unwrap().into_inner()).unwrap();
}

#[test]
fn undecodable_messages_are_null_rows_whatever_the_columns() {
    let dir = common::scratch_dir("sqltrust", "undecodable");
    let log = dir.join("odd.mcap");
    // The second is not JSON; the third nests deeper than JSON decoding
    // allows.
    let deep = format!(
        "{{\"a\": 3, \"b\": {}1{}}}",
        "[".repeat(200),
        "]".repeat(200)
    );
    json_mcap(
        &log,
        &[
            br#"{"a": 1}"#,
            b"\x00 not json",
            deep.as_bytes(),
            br#"{"a": 4}"#,
        ],
    );
    let count = sql("SELECT count(*) AS n FROM odd", &[&log]);
    assert_eq!(count.status.code(), Some(0), "{}", text(&count.stderr));
    assert!(
        text(&count.stdout).contains("| 4 |"),
        "{}",
        text(&count.stdout)
    );
    let out = robolog()
        .args([
            "sql",
            "--format",
            "csv",
            "SELECT log_time, a FROM odd ORDER BY log_time",
        ])
        .arg(&log)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "log_time,a\n1970-01-01T00:00:00.000001,1\n1970-01-01T00:00:00.000001001,\n\
         1970-01-01T00:00:00.000001002,\n1970-01-01T00:00:00.000001003,4\n"
    );
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(&format!(
            "robolog: {}: table odd: 2 messages did not decode and have null fields; \
             the first at byte offset ",
            log.display()
        )),
        "{stderr}"
    );
    // The Parquet export keeps the same rows and says the same.
    let ds = dir.join("ds");
    let out = robolog()
        .args(["export", "--parquet", "-o"])
        .arg(&ds)
        .arg(&log)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("(4 rows,"),
        "{}",
        text(&out.stdout)
    );
    assert!(
        text(&out.stderr).contains("table odd: 2 messages did not decode and have null fields"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
