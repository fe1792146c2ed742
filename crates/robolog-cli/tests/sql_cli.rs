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
        stdout.contains("count (/count)\n  log: Utf8\n  log_time: Timestamp(ns)\n  data: "),
        "{stdout}"
    );
    assert!(
        stdout.ends_with(
            "logs\n  log: Utf8\n  path: Utf8\n  format: Utf8\n  start: Timestamp(ns)\n  \
             end: Timestamp(ns)\n  duration_s: Float64\n  message_count: UInt64\n  metadata: Utf8\n  \
             tables: Utf8\n"
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
