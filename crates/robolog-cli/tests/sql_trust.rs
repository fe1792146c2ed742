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

/// `robolog sql --format csv QUERY LOGS...`.
fn sql_csv(query: &str, logs: &[&Path]) -> std::process::Output {
    robolog()
        .args(["sql", "--format", "csv", query])
        .args(logs)
        .output()
        .unwrap()
}

/// `robolog export --parquet -o DS INPUTS...`.
fn parquet_export(ds: &Path, inputs: &[&Path]) -> std::process::Output {
    robolog()
        .args(["export", "--parquet", "-o"])
        .arg(ds)
        .args(inputs)
        .output()
        .unwrap()
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
    let out = parquet_export(&ds, &[&log]);
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

/// An MCAP file of JSON topics, topic `i` holding `i + 1` messages
/// `{"n": i}`.
fn topics_mcap(path: &Path, topics: &[&str]) {
    use mcapfile::{WriteOptions, Writer};
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriteOptions::default()).unwrap();
    let mut t = 1_000u64;
    for (i, topic) in topics.iter().enumerate() {
        let ch = w
            .add_channel(0, topic, "json", &Default::default())
            .unwrap();
        for _ in 0..=i {
            t += 1;
            let m = format!("{{\"n\": {i}}}");
            w.write_message(ch, 0, t, t, m.as_bytes()).unwrap();
        }
    }
    std::fs::write(path, w.finish().unwrap().into_inner()).unwrap();
}

#[test]
fn topics_never_share_a_table() {
    let dir = common::scratch_dir("sqltrust", "names");
    let log = dir.join("names.mcap");
    let topics = [
        "/温度", "/湿度", "/temp-1", "/temp.1", "/temp_1", "a/b", "a_b", "/a/b",
    ];
    topics_mcap(&log, &topics);
    let out = robolog()
        .args(["sql", "--schema"])
        .arg(&log)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let schema = text(&out.stdout);
    // Each table names its topic: `name (topic)` (the tables `logs` and
    // `topics` hold none).
    let tables: Vec<(String, String)> = schema
        .lines()
        .filter(|l| !l.starts_with(' ') && *l != "logs" && *l != "topics")
        .map(|l| {
            let (name, topic) = l.split_once(" (").unwrap();
            (name.to_string(), topic.trim_end_matches(')').to_string())
        })
        .collect();
    assert_eq!(tables.len(), topics.len(), "{schema}");
    // Readable where unique; the topic whose name needs no change keeps
    // the shared name.
    for (name, topic) in [
        ("温度", "/温度"),
        ("湿度", "/湿度"),
        ("temp_1", "/temp_1"),
        ("a_b", "a_b"),
    ] {
        assert!(
            tables.contains(&(name.to_string(), topic.to_string())),
            "{name} {topic}: {schema}"
        );
    }
    // Every table holds its topic's rows, and only those.
    for (name, topic) in &tables {
        let i = topics.iter().position(|t| t == topic).unwrap();
        let out = robolog()
            .args(["sql", "--format", "csv"])
            .arg(format!(
                "SELECT count(*) AS rows, min(n) AS lo, max(n) AS hi FROM \"{name}\""
            ))
            .arg(&log)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stderr));
        assert_eq!(
            text(&out.stdout),
            format!("rows,lo,hi\n{},{i},{i}\n", i + 1),
            "{name}"
        );
    }
    // The `logs` table says the same, as a JSON object per log.
    let out = sql_csv("SELECT tables FROM logs", &[&log]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let cell = text(&out.stdout);
    let cell = cell.strip_prefix("tables\n").unwrap().trim_end();
    // CSV quotes the cell and doubles its quotes.
    let json = cell
        .strip_prefix('"')
        .and_then(|c| c.strip_suffix('"'))
        .unwrap()
        .replace("\"\"", "\"");
    let listed: std::collections::BTreeMap<String, String> = serde_json::from_str(&json).unwrap();
    let expected: std::collections::BTreeMap<String, String> = tables.iter().cloned().collect();
    assert_eq!(listed, expected, "{json}");
    // A query naming one of the suffixed tables opens what it needs.
    let (suffixed, topic) = tables.iter().find(|(_, t)| t == "/temp-1").unwrap();
    assert!(suffixed.starts_with("temp_1_"), "{suffixed}");
    let out = sql_csv(&format!("SELECT count(*) AS rows FROM {suffixed}"), &[&log]);
    let i = topics.iter().position(|t| t == topic).unwrap();
    assert_eq!(
        text(&out.stdout),
        format!("rows\n{}\n", i + 1),
        "{}",
        text(&out.stderr)
    );
    // The Parquet export has the same tables, each with its rows.
    let ds = dir.join("ds");
    let out = parquet_export(&ds, &[&log]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for (name, topic) in &tables {
        let i = topics.iter().position(|t| t == topic).unwrap();
        let file = ds.join(name).join("log=names.mcap").join("data.parquet");
        let rows = i + 1;
        assert!(
            stdout.contains(&format!(
                "wrote {} ({rows} row{}",
                file.display(),
                if rows == 1 { "" } else { "s" }
            )),
            "{name}: {stdout}"
        );
    }
    // The dataset's `logs` row names the tables the same way.
    let file = std::fs::File::open(ds.join("logs/log=names.mcap/data.parquet")).unwrap();
    let batch = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let column = batch.column_by_name("tables").unwrap();
    let cell = column
        .as_any()
        .downcast_ref::<arrow_array::StringArray>()
        .unwrap()
        .value(0);
    let listed: std::collections::BTreeMap<String, String> = serde_json::from_str(cell).unwrap();
    assert_eq!(listed, expected, "{cell}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn exports_into_one_dataset_never_share_a_table_across_runs() {
    // One export writes `/temp-1` as `temp_1`; a later one into the same
    // folder brings `/temp_1` (whose name would be `temp_1` in a run of its
    // own) and `/temp-1` again: the topics keep apart, and `/temp-1`
    // keeps its table.
    let dir = common::scratch_dir("sqltrust", "runs");
    let (first, second) = (dir.join("first.mcap"), dir.join("second.mcap"));
    topics_mcap(&first, &["/temp-1"]);
    topics_mcap(&second, &["/temp_1", "/imu", "/temp-1"]);
    let ds = dir.join("ds");
    for log in [&first, &second] {
        let out = parquet_export(&ds, &[log]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    let mut tables: Vec<(String, Vec<String>)> = std::fs::read_dir(&ds)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let mut parts: Vec<String> = std::fs::read_dir(e.path())
                .unwrap()
                .map(|p| p.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            parts.sort();
            (e.file_name().to_string_lossy().into_owned(), parts)
        })
        .collect();
    tables.sort();
    let names: Vec<&str> = tables.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.len(), 4, "{tables:?}");
    assert_eq!(&names[..2], ["imu", "logs"]);
    assert_eq!(names[2], "temp_1");
    assert!(names[3].starts_with("temp_1_"), "{tables:?}");
    // `temp_1` holds `/temp-1` of both logs, the other `/temp_1` alone.
    assert_eq!(tables[2].1, ["log=first.mcap", "log=second.mcap"]);
    assert_eq!(tables[3].1, ["log=second.mcap"]);
    // Each file says its topic and has its rows (`/temp-1` is the first
    // topic of first.mcap, one message, and the third of second.mcap,
    // three; `/temp_1` the first of second.mcap).
    for (table, part, topic, rows) in [
        (names[2], "log=first.mcap", "/temp-1", 1),
        (names[2], "log=second.mcap", "/temp-1", 3),
        (names[3], "log=second.mcap", "/temp_1", 1),
    ] {
        let file = std::fs::File::open(ds.join(table).join(part).join("data.parquet")).unwrap();
        let reader =
            parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
        let meta = reader.schema().metadata().get("robolog.topic").cloned();
        assert_eq!(meta.as_deref(), Some(topic), "{table}/{part}");
        let n: usize = reader.build().unwrap().map(|b| b.unwrap().num_rows()).sum();
        assert_eq!(n, rows, "{table}/{part}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn csv_flattens_nested_columns_as_the_csv_export_names_them() {
    let dir = common::scratch_dir("sqltrust", "nested");
    let log = dir.join("nested.mcap");
    json_mcap(
        &log,
        &[
            br#"{"p": {"x": 1, "y": "a,b"}, "v": [1, 2]}"#,
            br#"{"p": {"x": 2, "y": "c"}, "v": []}"#,
        ],
    );
    let out = robolog()
        .args([
            "sql",
            "--format",
            "csv",
            "SELECT p, v FROM odd ORDER BY log_time",
        ])
        .arg(&log)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "p.x,p.y,v\n1,\"a,b\",\"[1,2]\"\n2,c,[]\n"
    );
    // The same names as `robolog export` writes.
    let csv = dir.join("csv");
    let out = robolog()
        .args(["export", "-o"])
        .arg(&csv)
        .arg(&log)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let exported = std::fs::read_to_string(csv.join("odd.csv")).unwrap();
    assert!(
        exported.starts_with("log_time_ns,publish_time_ns,p.x,p.y,v[0],v[1]\n"),
        "{exported}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_table_format_keeps_a_bounded_number_of_rows() {
    let bag = testdata("rosbag/sample.bag");
    let out = robolog()
        .args(["sql", "SELECT value FROM range(25000)"])
        .arg(&bag)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    // The header, its borders and 10,000 rows.
    assert_eq!(stdout.lines().count(), 10_000 + 4, "{}", &stdout[..200]);
    assert!(stdout.contains("| 9999  |"));
    assert!(!stdout.contains("| 10000 |"));
    assert_eq!(
        text(&out.stderr),
        "robolog: sql: the table shows the first 10000 rows; 15000 more were left out \
         (--format csv or json writes every row)\n"
    );
    // CSV writes every row.
    let out = robolog()
        .args(["sql", "--format", "csv", "SELECT value FROM range(25000)"])
        .arg(&bag)
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout).lines().count(), 25_001);
}

#[test]
fn numbers_widen_across_logs_as_within_one() {
    let dir = common::scratch_dir("sqltrust", "widen");
    let (a, b, c) = (dir.join("a.mcap"), dir.join("b.mcap"), dir.join("c.mcap"));
    json_mcap(&a, &[br#"{"v": 7, "w": 1}"#]);
    json_mcap(&b, &[br#"{"v": 1.5, "w": -2}"#]);
    let out = robolog()
        .args([
            "sql",
            "--format",
            "csv",
            "SELECT log, v, arrow_typeof(v) AS t, w FROM odd ORDER BY log",
        ])
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "log,v,t,w\na.mcap,7.0,Float64,1\nb.mcap,1.5,Float64,-2\n"
    );
    // No number holds a text: both logs are named.
    json_mcap(&c, &[br#"{"v": "seven"}"#]);
    let out = robolog()
        .args(["sql", "SELECT v FROM odd"])
        .arg(&a)
        .arg(&c)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!(
            "robolog: {}: table odd: column v does not merge with the other logs: \
             Utf8 here, UInt64 in {}\n",
            c.display(),
            a.display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn long_topic_and_file_names_are_shortened_not_fatal() {
    let dir = common::scratch_dir("sqltrust", "long");
    let long_topic = format!("/{}", "t".repeat(299));
    let log = dir.join(format!("{}.mcap", "f".repeat(246)));
    assert_eq!(log.file_name().unwrap().len(), 251);
    topics_mcap(&log, &["/short", &long_topic]);
    let other = dir.join("other.mcap");
    topics_mcap(&other, &["/short"]);
    let ds = dir.join("ds");
    let out = parquet_export(&ds, &[&log, &other]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    // Every table of both logs and both `logs` rows: 2 + 1 + 2 files.
    assert_eq!(stdout.matches("wrote ").count(), 5, "{stdout}");
    for line in stdout.lines() {
        let path = line
            .strip_prefix("wrote ")
            .unwrap()
            .split(" (")
            .next()
            .unwrap();
        for part in Path::new(path).components() {
            assert!(part.as_os_str().len() <= 255, "{path}");
        }
        assert!(Path::new(path).exists(), "{path}");
    }
    // The long topic's table holds its 2 rows, in SQL too.
    let out = robolog()
        .args(["sql", "--schema"])
        .arg(&log)
        .output()
        .unwrap();
    let schema = text(&out.stdout);
    let table = schema
        .lines()
        .find(|l| l.ends_with(&format!("({long_topic})")))
        .unwrap()
        .split(" (")
        .next()
        .unwrap()
        .to_string();
    assert!(table.len() <= 200, "{table}");
    let out = sql_csv(&format!("SELECT count(*) AS n FROM \"{table}\""), &[&log]);
    assert_eq!(text(&out.stdout), "n\n2\n", "{}", text(&out.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_log_reached_twice_is_one_log() {
    let (dir, bag, _) = bag_copy("twice");
    let dotted = dir.join(".").join("in.bag");
    let out = robolog()
        .args([
            "sql",
            "--format",
            "csv",
            "SELECT log, count(*) AS n FROM count GROUP BY log",
        ])
        .arg(&dir)
        .arg(&bag)
        .arg(&dotted)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "log,n\nin.bag,30\n");
    let ds = dir.join("ds");
    let out = parquet_export(&ds, &[&bag, &dir]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let logs: Vec<_> = std::fs::read_dir(ds.join("logs")).unwrap().collect();
    assert_eq!(logs.len(), 1, "one partition of the one log");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn logs_in_folders_are_named_by_their_path_below_the_folder() {
    let dir = common::scratch_dir("sqltrust", "paths");
    let bytes = std::fs::read(testdata("rosbag/sample.bag")).unwrap();
    for sub in ["2024-05", "2024-06"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        std::fs::write(dir.join(sub).join("run.bag"), &bytes).unwrap();
    }
    std::fs::write(dir.join("top.bag"), &bytes).unwrap();
    let out = robolog()
        .args([
            "sql",
            "--format",
            "csv",
            "SELECT log, count(*) AS n FROM count GROUP BY log ORDER BY log",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "log,n\n2024-05/run.bag,30\n2024-06/run.bag,30\ntop.bag,30\n"
    );
    // The Parquet export names the partitions the same way.
    let ds = common::scratch_path("sqltrust", "paths-ds");
    let out = parquet_export(&ds, &[&dir]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let mut parts: Vec<String> = std::fs::read_dir(ds.join("count"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    parts.sort();
    assert_eq!(
        parts,
        [
            "log=2024-05%2Frun.bag",
            "log=2024-06%2Frun.bag",
            "log=top.bag"
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&ds).unwrap();
}
