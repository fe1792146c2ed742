//! `robolog sql`: query results in each output format, `--schema`, the
//! output file rules and the exit codes (2 for a bad query, 1 for a log
//! that fails).

#![cfg(feature = "sql")]

mod common;

use common::{corpus, robolog, testdata, text};

#[test]
fn prints_an_aligned_table() {
    let out = robolog()
        .args(["sql", "SELECT log, count(*) AS n FROM count GROUP BY log"])
        .arg(testdata("rosbag/sample.bag"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "+------------+----+\n\
         | log        | n  |\n\
         +------------+----+\n\
         | sample.bag | 30 |\n\
         +------------+----+\n"
    );
}

#[test]
fn csv_and_json_output() {
    let sql = "SELECT log, CAST(data AS BIGINT) AS d FROM count ORDER BY log_time LIMIT 3";
    let out = robolog()
        .args(["sql", "--format", "csv", sql])
        .arg(testdata("rosbag/sample.bag"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "log,d\nsample.bag,-5\nsample.bag,-4\nsample.bag,-3\n"
    );
    let out = robolog()
        .args(["sql", "--format", "json", sql])
        .arg(testdata("rosbag/sample.bag"))
        .output()
        .unwrap();
    assert_eq!(
        text(&out.stdout),
        "{\"log\":\"sample.bag\",\"d\":-5}\n{\"log\":\"sample.bag\",\"d\":-4}\n\
         {\"log\":\"sample.bag\",\"d\":-3}\n"
    );
}

#[test]
fn parquet_output_goes_through_the_output_rules() {
    let dir = common::scratch_dir("sql", "parquet");
    let dest = dir.join("count.parquet");
    let run = |force: bool| {
        let mut cmd = robolog();
        cmd.args(["sql", "--format", "parquet", "-o"])
            .arg(&dest)
            .arg("SELECT log_time, data FROM count")
            .arg(testdata("rosbag/sample.bag"));
        if force {
            cmd.arg("--force");
        }
        cmd.output().unwrap()
    };
    let out = run(false);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let bytes = std::fs::read(&dest).unwrap();
    assert_eq!(&bytes[..4], b"PAR1");
    assert_eq!(&bytes[bytes.len() - 4..], b"PAR1");
    // The result is read back through the same command.
    let out = robolog()
        .args(["sql", "SELECT count(*) AS n FROM count"])
        .arg(testdata("rosbag/sample.bag"))
        .output()
        .unwrap();
    assert!(text(&out.stdout).contains("| 30 |"));
    let again = run(false);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        text(&again.stderr).contains("--force"),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(run(true).status.code(), Some(0));
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "only the output, no temporary file");
    let out = robolog()
        .args(["sql", "--format", "parquet", "SELECT 1"])
        .arg(testdata("rosbag/sample.bag"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn schema_lists_tables_and_columns() {
    let out = robolog()
        .args(["sql", "--schema"])
        .arg(testdata("rosbag/sample.bag"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("count (/count)\n  log: Utf8\n  log_time: Timestamp(ns)\n  log_time_utc: Timestamp(ns, \"UTC\")\n  data: "),
        "{stdout}"
    );
    // The logs' tables, then `logs` and `topics`.
    assert!(
        stdout.ends_with(
            "logs\n  log: Utf8\n  path: Utf8\n  format: Utf8\n  start: Int64\n  \
             end: Int64\n  duration_s: Float64\n  message_count: UInt64\n  metadata: Utf8\n  \
             tables: Utf8\n  clock: Utf8\n  start_utc: Timestamp(ns, \"UTC\")\n  \
             end_utc: Timestamp(ns, \"UTC\")\n  duration: Duration(ns)\n\
             topics\n  log: Utf8\n  topic: Utf8\n  types: List(Utf8)\n  message_count: UInt64\n  \
             channel_count: UInt64\n  start: Int64\n  end: Int64\n  \
             start_utc: Timestamp(ns, \"UTC\")\n  end_utc: Timestamp(ns, \"UTC\")\n  \
             table: Utf8\n"
        ),
        "{stdout}"
    );
}

#[test]
fn exit_codes() {
    let bag = testdata("rosbag/sample.bag");
    let out = robolog()
        .args(["sql", "SELEC 1"])
        .arg(&bag)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("robolog: query: SQL error"),
        "{}",
        text(&out.stderr)
    );
    let out = robolog()
        .args(["sql", "SELECT * FROM no_such_table"])
        .arg(&bag)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = robolog().args(["sql", "SELECT 1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = robolog()
        .args(["sql", "SELECT 1", "/no/such/log.bag"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).starts_with("robolog: /no/such/log.bag: "));
    // Two PX4 versions whose sensor_combined.gyro_integral_dt types differ
    // (UInt32 microseconds, then Float32 seconds): widened to Float64, as
    // numbers are within one log.
    let (Some(small), Some(sample)) = (
        corpus("ulog/pyulog/sample_log_small.ulg"),
        corpus("ulog/pyulog/sample.ulg"),
    ) else {
        return;
    };
    let out = robolog()
        .args([
            "sql",
            "--format",
            "csv",
            "SELECT DISTINCT arrow_typeof(gyro_integral_dt) AS t FROM sensor_combined",
        ])
        .arg(&small)
        .arg(&sample)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "t\nFloat64\n");
}

/// Queries reading several tables, through CTEs, subqueries and qualified
/// names, with and without the `logs` table: each table a query names is
/// read, whatever the form of the name.
#[test]
fn queries_naming_tables_in_any_form() {
    let cases = [
        (
            "SELECT (SELECT count(*) FROM vehicle_attitude) AS a, \
             (SELECT count(*) FROM public.count) AS c",
            "a,c\n3,30\n",
        ),
        (
            "WITH a AS (SELECT log, count(*) AS n FROM VEHICLE_ATTITUDE GROUP BY log), \
             c AS (SELECT log, count(*) AS n FROM datafusion.public.count GROUP BY log) \
             SELECT logs.log, logs.format, coalesce(a.n, c.n) AS n FROM logs \
             LEFT JOIN a USING (log) LEFT JOIN c USING (log) ORDER BY logs.log",
            "log,format,n\nexample.ulg,ulog,3\nsample.bag,rosbag,30\n",
        ),
    ];
    for (sql, want) in cases {
        let out = robolog()
            .args(["sql", "--format", "csv", sql])
            .arg(testdata("ulog/example.ulg"))
            .arg(testdata("rosbag/sample.bag"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{sql}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), want, "{sql}");
    }
}

/// `robolog sql ARGS...` with `paths` after them: (exit code, stdout,
/// stderr).
fn sql(args: &[&str], paths: &[&std::path::Path]) -> (Option<i32>, String, String) {
    let out = robolog()
        .arg("sql")
        .args(args)
        .args(paths)
        .output()
        .unwrap();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// The tables are named after topics and messages (`Position`), and SQL
/// lower-cases names that are not quoted: a name that differs from one
/// table's only in case reads that table.
#[test]
fn table_names_match_ignoring_case() {
    let rec = testdata("carla/scene-0.9.13.rec");
    for from in ["Position", "position", "POSITION", "\"pOsItIoN\""] {
        let q = format!("SELECT count(*) AS n FROM {from}");
        let (code, out, err) = sql(&["--format", "csv", &q], &[&rec]);
        assert_eq!(code, Some(0), "{q}: {err}");
        assert_eq!(out, "n\n4\n", "{q}");
        assert_eq!(err, "", "{q}");
    }
    let q = "SELECT min(frame) AS a, max(frame) AS b FROM framestart";
    let (code, out, err) = sql(&["--format", "csv", q], &[&rec]);
    assert_eq!((code, out.as_str()), (Some(0), "a,b\n1,4\n"), "{err}");
    // The fleet's names: a PX4 flight of the corpus.
    let Some(flight) = corpus("ulog/pyulog/sample.ulg") else {
        return;
    };
    let q = "SELECT count(*) AS n FROM Vehicle_Local_Position";
    let (code, out, err) = sql(&["--format", "csv", q], &[&flight]);
    assert_eq!((code, out.as_str()), (Some(0), "n\n678\n"), "{err}");
}

/// A table that is not there is a query error (exit 2) naming the
/// closest tables and how to quote them; names that differ from it only
/// in case are listed with how to quote each.
#[test]
fn unknown_and_ambiguous_tables_say_what_to_write() {
    let bag = testdata("rosbag/sample.bag");
    let (code, out, err) = sql(&[r#"SELECT * FROM "/count""#], &[&bag]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(out, "");
    assert_eq!(
        err,
        "robolog: query: no table \"/count\"; the closest: FROM \"count\" (SQL lower-cases \
         names that are not in double quotes: quote a name to keep its case and punctuation)\n"
    );
    let rec = testdata("carla/scene-0.9.13.rec");
    let (code, _, err) = sql(&["SELECT * FROM frame_start"], &[&rec]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.starts_with(
            "robolog: query: no table \"frame_start\"; the closest: FROM \"FrameStart\" ("
        ),
        "{err}"
    );
    let (code, _, err) = sql(&["SELECT * FROM no_such_table"], &[&bag]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        err,
        "robolog: query: no table \"no_such_table\" (SHOW TABLES lists the tables)\n"
    );
    // A topic `/LOGS` is the table `LOGS`, beside `logs` (the logs).
    let dir = common::scratch_dir("sql", "ambiguous");
    let log = dir.join("upper.mcap");
    logs_topic_mcap(&log);
    let (code, out, err) = sql(
        &["--format", "csv", "SELECT count(*) AS n FROM LOGS"],
        &[&log],
    );
    assert_eq!((code, out.as_str()), (Some(0), "n\n1\n"), "{err}");
    let q = r#"SELECT n FROM "LOGS" ORDER BY n"#;
    let (code, out, err) = sql(&["--format", "csv", q], &[&log]);
    assert_eq!((code, out.as_str()), (Some(0), "n\n7\n8\n"), "{err}");
    let (code, out, err) = sql(&[r#"SELECT * FROM "Logs""#], &[&log]);
    assert_eq!((code, out.as_str()), (Some(2), ""), "{err}");
    assert_eq!(
        err,
        "robolog: query: no table \"Logs\" exactly, and 2 tables differing from it only in \
         case: FROM \"LOGS\" or FROM \"logs\" (SQL lower-cases names that are not in double \
         quotes: quote the one you mean as it is written)\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An MCAP file with a JSON topic `/LOGS` of two messages `{"n": 7}` and
/// `{"n": 8}`.
fn logs_topic_mcap(path: &std::path::Path) {
    use mcapfile::{WriteOptions, Writer};
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriteOptions::default()).unwrap();
    let ch = w
        .add_channel(0, "/LOGS", "json", &Default::default())
        .unwrap();
    for (i, m) in [br#"{"n": 7}"#, br#"{"n": 8}"#].iter().enumerate() {
        let t = 1_000 + i as u64;
        w.write_message(ch, i as u32, t, t, *m).unwrap();
    }
    std::fs::write(path, w.finish().unwrap().into_inner()).unwrap();
}

/// `--schema TABLE... PATH...` lists only the tables named (matched as in
/// queries), in any order among the logs; a table that is not there is a
/// usage error naming the closest ones; `--schema PATH...` still lists
/// every table, and a missing path alone is the error it always was.
#[test]
fn schema_lists_the_tables_named() {
    let rec = testdata("carla/scene-0.9.13.rec");
    let want = "Position (Position)\n  log: Utf8\n  log_time: Duration(ns)\n  log_time_utc: Timestamp(ns, \"UTC\")\n  records: \
        List(non-null Struct(\"id\": non-null UInt32, \"location\": non-null Struct(\"x\": \
        non-null Float32, \"y\": non-null Float32, \"z\": non-null Float32), \"rotation\": \
        non-null Struct(\"x\": non-null Float32, \"y\": non-null Float32, \"z\": non-null \
        Float32)))\nFrameStart (FrameStart)\n  log: Utf8\n  log_time: Duration(ns)\n  log_time_utc: Timestamp(ns, \"UTC\")\n  frame: \
        UInt64\n  duration: Float64\n  elapsed: Float64\n";
    let rec_s = rec.to_str().unwrap();
    for args in [
        ["--schema", "position", "FrameStart", rec_s],
        ["--schema", rec_s, "POSITION", "framestart"],
        ["--schema", "Position", rec_s, "frameSTART"],
    ] {
        let (code, out, err) = sql(&args, &[]);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert_eq!(out, want, "{args:?}");
        assert_eq!(err, "", "{args:?}");
    }
    // A table named twice is listed once; `logs` is a table too.
    let (code, out, err) = sql(&["--schema", "logs", "LOGS", rec_s], &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with("logs\n  log: Utf8\n  path: Utf8\n"),
        "{out}"
    );
    assert_eq!(out.matches("logs").count(), 1, "{out}");
    let (code, out, err) = sql(&["--schema", "frame", rec_s], &[]);
    assert_eq!((code, out.as_str()), (Some(2), ""));
    assert_eq!(
        err,
        "robolog: --schema: \"frame\": no such table in the logs, nor a file or directory; \
         the closest: \"FrameStart\", \"FrameCounter\"\n"
    );
    let bag = testdata("rosbag/sample.bag");
    let (code, _, err) = sql(&["--schema", "/no/such.bag"], &[&bag]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("\"/no/such.bag\": no such table in the logs, nor a file"),
        "{err}"
    );
    // The old form, unchanged.
    let (code, out, err) = sql(&["--schema", "/no/such/log.bag"], &[]);
    assert_eq!((code, out.as_str()), (Some(1), ""));
    assert!(err.starts_with("robolog: /no/such/log.bag: "), "{err}");
    // The recording's 24 tables, `logs` and `topics`.
    let (code, all, _) = sql(&["--schema"], &[&rec]);
    assert_eq!(code, Some(0));
    assert_eq!(
        all.lines().filter(|l| !l.starts_with(' ')).count(),
        26,
        "{all}"
    );
    // A PX4 flight of the corpus: one table of its 570 lines.
    let Some(flight) = corpus("ulog/pyulog/sample.ulg") else {
        return;
    };
    let (code, out, err) = sql(&["--schema", "Vehicle_Local_Position"], &[&flight]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with("vehicle_local_position (vehicle_local_position)\n  log: Utf8\n"),
        "{out}"
    );
    assert_eq!(out.lines().count(), 37, "{out}");
    let (code, _, err) = sql(&["--schema", "vehicle_local_pos"], &[&flight]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.ends_with(
            "the closest: \"vehicle_local_position\", \"vehicle_local_position_setpoint\"\n"
        ),
        "{err}"
    );
}

/// What a reader worked around while reading every record (a bag's index
/// rebuilt by scanning) is said on stderr and the answer, complete, exits
/// 0; `--strict` makes it exit 1. Records that could not be read (a
/// truncation) are exit 1 either way: the answer may lack their rows.
#[test]
fn warnings_exit_0_unless_strict_and_lost_records_exit_1() {
    let unindexed = testdata("rosbag/unindexed.bag");
    let warning = format!(
        "robolog: {}: at byte 13: expected an index position in the bag header, found 0: the \
         bag was not closed (unindexed); index rebuilt by scanning\n",
        unindexed.display()
    );
    let q = "SELECT count(*) AS n FROM count";
    for (strict, code) in [(false, 0), (true, 1)] {
        let mut args = vec!["--format", "csv", q];
        if strict {
            args.push("--strict");
        }
        let (c, out, err) = sql(&args, &[&unindexed]);
        assert_eq!(
            (c, out.as_str(), err.as_str()),
            (Some(code), "n\n30\n", warning.as_str())
        );
        let mut args = vec!["--schema"];
        if strict {
            args.push("--strict");
        }
        let (c, out, err) = sql(&args, &[&unindexed]);
        assert_eq!(
            (c, err.as_str()),
            (Some(code), warning.as_str()),
            "--schema"
        );
        assert!(out.starts_with("chatter (/chatter)\n"), "{out}");
    }
    let truncated = testdata("rosbag/truncated.bag");
    let (code, out, err) = sql(&["--format", "csv", q], &[&truncated]);
    assert_eq!((code, out.as_str()), (Some(1), "n\n3\n"), "{err}");
    assert!(
        err.ends_with(&format!(
            "robolog: {}: table count: 1 record could not be read, so the answer may lack \
             rows; the first: truncated at byte 5549: expected a record with 1059 bytes of data \
             (op 0x05) (808 more bytes than the file holds)\n",
            truncated.display()
        )),
        "{err}"
    );
    let (code, _, err) = sql(&["--schema"], &[&truncated]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("truncated at byte 5549"), "{err}");
    let ulog = testdata("ulog/truncated.ulg");
    let (code, out, err) = sql(
        &["--format", "csv", "SELECT count(*) AS n FROM esc_status"],
        &[&ulog],
    );
    assert_eq!((code, out.as_str()), (Some(1), "n\n2\n"), "{err}");
    assert!(
        err.contains("table esc_status: 1 record could not be read"),
        "{err}"
    );
    // A chunk whose records do not match its CRC, in an MCAP file whose
    // summary is intact: only the scan meets it.
    let dir = common::scratch_dir("sql", "lost");
    let mcap = damaged_chunk_mcap(&dir);
    let q = "SELECT count(*) AS n FROM point";
    let (code, out, err) = sql(&["--format", "csv", q], &[&mcap]);
    assert_eq!((code, out.as_str()), (Some(1), "n\n11\n"), "{err}");
    assert_eq!(
        err,
        format!(
            "robolog: {}: table point: 1 record could not be read, so the answer may lack \
             rows; the first at byte 41\n",
            mcap.display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
    // A clean log: nothing said, exit 0, with --strict too.
    let (code, out, err) = sql(
        &["--strict", "--format", "csv", q],
        &[&testdata("rosbag/sample.bag")],
    );
    assert_eq!((code, out.as_str(), err.as_str()), (Some(0), "n\n30\n", ""));
}

/// `chunked-none.mcap` (`/point`: 14 messages, 3 of them in its first
/// chunk, at byte 41) with a byte of that chunk's records flipped, so that
/// they do not match the chunk's CRC.
fn damaged_chunk_mcap(dir: &std::path::Path) -> std::path::PathBuf {
    let mut bytes = std::fs::read(testdata("mcap/chunked-none.mcap")).unwrap();
    // Records after the magic: opcode, u64 length, content.
    let mut at = 8;
    while bytes[at] != 0x06 {
        at += 9 + u64::from_le_bytes(bytes[at + 1..at + 9].try_into().unwrap()) as usize;
    }
    assert_eq!(at, 41);
    let len = u64::from_le_bytes(bytes[at + 1..at + 9].try_into().unwrap()) as usize;
    bytes[at + 9 + len - 3] ^= 0xff;
    let path = dir.join("damaged-chunk.mcap");
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The rows of `robolog sql --format json QUERY PATHS...` as JSON values.
fn json_rows(query: &str, paths: &[&std::path::Path]) -> Vec<serde_json::Value> {
    let (code, out, err) = sql(&["--format", "json", query], paths);
    assert_eq!(code, Some(0), "{query}: {err}");
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// `robolog info --json PATH`.
fn info_json(path: &std::path::Path) -> serde_json::Value {
    let out = robolog()
        .arg("info")
        .arg("--json")
        .arg(path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

const TOPICS_QUERY: &str = "SELECT log, topic, types, CAST(message_count AS BIGINT) AS n, \
     CAST(channel_count AS BIGINT) AS channels, CAST(start AS BIGINT) AS start_ns, \
     CAST(\"end\" AS BIGINT) AS end_ns, CAST(start_utc AS BIGINT) AS start_utc_ns, \
     CAST(end_utc AS BIGINT) AS end_utc_ns, \"table\" FROM topics ORDER BY log, topic";

/// The table `topics` lists each topic once, as `robolog info --json`
/// does: a bag's `/rosout` of three connections in one row whose count is
/// the sum of theirs (`channels`), a ULog's topics (instances) as `topics`
/// gives them; the counts add up to `logs.message_count`.
#[test]
fn topics_table_agrees_with_info() {
    let (Some(bag), Some(ulog)) = (
        corpus("rosbag/rosbagjs-example.bag"),
        corpus("ulog/pyulog/sample_logging_tagged_and_default_params.ulg"),
    ) else {
        return;
    };
    let rows = json_rows(TOPICS_QUERY, &[&bag, &ulog]);
    let (bag_info, ulog_info) = (info_json(&bag), info_json(&ulog));
    let of = |log: &str| -> Vec<&serde_json::Value> {
        rows.iter().filter(|r| r["log"] == log).collect()
    };
    // The bag: per topic, the sum of its channels' counts in `channels`.
    let bag_rows = of("rosbagjs-example.bag");
    let channels = bag_info["channels"].as_array().unwrap();
    let mut topics: Vec<&str> = channels
        .iter()
        .map(|c| c["topic"].as_str().unwrap())
        .collect();
    topics.sort();
    topics.dedup();
    assert_eq!(bag_rows.len(), topics.len());
    for r in &bag_rows {
        let topic = r["topic"].as_str().unwrap();
        let mine: Vec<&serde_json::Value> =
            channels.iter().filter(|c| c["topic"] == topic).collect();
        let sum: u64 = mine.iter().map(|c| c["count"].as_u64().unwrap()).sum();
        assert_eq!(r["n"].as_u64(), Some(sum), "{topic}");
        assert_eq!(r["channels"].as_u64(), Some(mine.len() as u64), "{topic}");
        let mut types: Vec<&serde_json::Value> = Vec::new();
        for c in &mine {
            if !types.contains(&&c["type"]) {
                types.push(&c["type"]);
            }
        }
        assert_eq!(
            r["types"].as_array().unwrap().iter().collect::<Vec<_>>(),
            types
        );
        let first = mine.iter().filter_map(|c| c["start_ns"].as_i64()).min();
        assert_eq!(r["start_ns"].as_i64(), first, "{topic}");
        // A bag's clock is UTC.
        assert_eq!(r["start_utc_ns"], r["start_ns"], "{topic}");
        assert_eq!(r["table"], topic.trim_start_matches('/').replace('/', "_"));
    }
    let rosout = bag_rows.iter().find(|r| r["topic"] == "/rosout").unwrap();
    assert_eq!(
        (rosout["n"].as_u64(), rosout["channels"].as_u64()),
        (Some(10), Some(3))
    );
    assert_eq!(rosout["types"], serde_json::json!(["rosgraph_msgs/Log"]));
    let tf = bag_rows.iter().find(|r| r["topic"] == "/tf").unwrap();
    assert_eq!(
        (tf["n"].as_u64(), tf["channels"].as_u64()),
        (Some(2688), Some(2))
    );
    // The ULog: its rows are info's `topics`.
    let ulog_rows = of("sample_logging_tagged_and_default_params.ulg");
    let mut want: Vec<&serde_json::Value> =
        ulog_info["topics"].as_array().unwrap().iter().collect();
    want.sort_by_key(|t| t["topic"].as_str().unwrap().to_string());
    assert_eq!(ulog_rows.len(), want.len());
    assert!(want.len() > 30);
    let ulog_channels = ulog_info["channels"].as_array().unwrap();
    for (r, t) in ulog_rows.iter().zip(&want) {
        assert_eq!(r["topic"], t["topic"]);
        assert_eq!(r["types"], t["types"]);
        assert_eq!(r["n"], t["count"], "{}", t["topic"]);
        assert_eq!(
            r["channels"].as_u64(),
            Some(t["channels"].as_array().unwrap().len() as u64)
        );
        assert_eq!(r["start_ns"], t["start_ns"], "{}", t["topic"]);
        assert_eq!(r["end_ns"], t["end_ns"], "{}", t["topic"]);
        // The table of its message (the type of its one channel).
        let id = &t["channels"][0];
        let c = ulog_channels.iter().find(|c| c["id"] == *id).unwrap();
        assert_eq!(r["table"], c["type"], "{}", t["topic"]);
        // Anchored to UTC as the log is.
        if let (Some(s), Some(u)) = (r["start_ns"].as_i64(), r["start_utc_ns"].as_i64()) {
            let offset = ulog_info["start_utc_ns"].as_i64().unwrap()
                - ulog_info["start_ns"].as_i64().unwrap();
            assert_eq!(u - s, offset, "{}", t["topic"]);
        } else {
            assert!(
                r["start_ns"].is_null() && r["start_utc_ns"].is_null(),
                "{}",
                t["topic"]
            );
        }
    }
    // The topics' counts add up to each log's.
    let sums = json_rows(
        "SELECT l.log, CAST(l.message_count AS BIGINT) AS n, CAST(t.n AS BIGINT) AS sum \
         FROM logs l JOIN (SELECT log, sum(message_count) AS n FROM topics GROUP BY log) t \
         ON l.log = t.log ORDER BY l.log",
        &[&bag, &ulog],
    );
    assert_eq!(sums.len(), 2);
    for (r, info) in sums.iter().zip([&bag_info, &ulog_info]) {
        assert_eq!(r["sum"], r["n"]);
        assert_eq!(r["n"], info["message_count"]);
    }
    // `--schema topics` lists it.
    let (code, out, err) = sql(&["--schema", "TOPICS"], &[&bag]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with("topics\n  log: Utf8\n  topic: Utf8\n  types: List(Utf8)\n"),
        "{out}"
    );
}

/// A ULog message called `topics` (or `logs`) is the table `topics_`
/// (`logs_`), and the table `topics` names it so: `FROM topics` is always
/// the logs' topics.
#[test]
fn a_ulog_message_topics_is_the_table_topics_() {
    let dir = common::scratch_dir("sql", "topics-message");
    let path = dir.join("t.ulg");
    let mut w = ulogfile::Writer::new(Vec::new(), 1_000).unwrap();
    w.add_format("topics:uint64_t timestamp;int32_t x;")
        .unwrap();
    w.add_format("logs:uint64_t timestamp;int32_t y;").unwrap();
    let t = w.add_subscription("topics", 0).unwrap();
    let l = w.add_subscription("logs", 0).unwrap();
    for i in 0..3u64 {
        let mut sample = (2_000 + i * 1_000).to_le_bytes().to_vec();
        sample.extend_from_slice(&(i as i32 + 1).to_le_bytes());
        w.write_data(t, &sample).unwrap();
    }
    let mut sample = 2_500u64.to_le_bytes().to_vec();
    sample.extend_from_slice(&7i32.to_le_bytes());
    w.write_data(l, &sample).unwrap();
    std::fs::write(&path, w.finish().unwrap()).unwrap();
    let (code, out, err) = sql(
        &[
            "--format",
            "csv",
            "SELECT CAST(sum(x) AS BIGINT) AS s FROM topics_",
        ],
        &[&path],
    );
    assert_eq!((code, out.as_str()), (Some(0), "s\n6\n"), "{err}");
    let (code, out, err) = sql(
        &[
            "--format",
            "csv",
            "SELECT CAST(y AS BIGINT) AS y FROM logs_",
        ],
        &[&path],
    );
    assert_eq!((code, out.as_str()), (Some(0), "y\n7\n"), "{err}");
    let (code, out, err) = sql(
        &[
            "--format",
            "csv",
            "SELECT topic, \"table\", CAST(message_count AS BIGINT) AS n FROM topics ORDER BY topic",
        ],
        &[&path],
    );
    assert_eq!(
        (code, out.as_str()),
        (Some(0), "topic,table,n\nlogs,logs_,1\ntopics,topics_,3\n"),
        "{err}"
    );
    let (code, out, err) = sql(&["--schema", "topics_"], &[&path]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("topics_ (topics)\n  log: Utf8\n"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}
