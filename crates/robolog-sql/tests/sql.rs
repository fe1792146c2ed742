//! SQL over the committed fixtures and the shared corpus: results against
//! values known from the files and from each log's own summary.

use std::collections::BTreeMap;
use std::path::PathBuf;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, TimestampNanosecondType, UInt64Type};
use arrow_array::{Array, RecordBatch};
use datafusion::prelude::{SessionConfig, SessionContext};
use logcore::LogReader;
use robolog_sql::{LogSet, register_logs};

#[cfg(feature = "ballista")]
#[path = "sql/ballista.rs"]
mod ballista;

fn testdata(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(rel)
}

/// A file of the shared corpus (`../shared/corpus`), or `None` (the test
/// is skipped) when it is absent.
fn corpus(rel: &str) -> Option<PathBuf> {
    robolog_testkit::corpus(rel)
}

fn ctx() -> SessionContext {
    SessionContext::new_with_config(SessionConfig::new().with_target_partitions(2))
}

async fn query(ctx: &SessionContext, sql: &str) -> Vec<RecordBatch> {
    ctx.sql(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// The first column of every row, as i64 (counts).
fn ints(batches: &[RecordBatch], col: usize) -> Vec<i64> {
    batches
        .iter()
        .flat_map(|b| b.column(col).as_primitive::<Int64Type>().values().to_vec())
        .collect()
}

fn strings(batches: &[RecordBatch], col: usize) -> Vec<String> {
    batches
        .iter()
        .flat_map(|b| {
            let c = b.column(col).as_string::<i32>();
            (0..c.len())
                .map(|i| c.value(i).to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A one-column table of `n` rows.
fn numbers(n: i64) -> RecordBatch {
    let col: arrow_array::ArrayRef =
        std::sync::Arc::new(arrow_array::Int64Array::from_iter_values(0..n));
    RecordBatch::try_from_iter([("x", col)]).unwrap()
}

/// The logs' tables live beside the context's own: tables registered
/// before and after the logs are queried with them, a table of the logs
/// replaces one of the same name registered before, and one registered
/// after replaces it.
#[tokio::test]
async fn the_logs_tables_live_beside_others() {
    let ctx = ctx();
    ctx.register_batch("before", numbers(1)).unwrap();
    ctx.register_batch("count", numbers(4)).unwrap();
    let set = register_logs(&ctx, &[testdata("rosbag/sample.bag")]).unwrap();
    ctx.register_batch("after", numbers(2)).unwrap();
    let sql = "SELECT (SELECT count(*) FROM before) * 1000 \
        + (SELECT count(*) FROM after) * 100 + (SELECT count(*) FROM count) AS n";
    assert_eq!(ints(&query(&ctx, sql).await, 0), [1230]);
    assert_eq!(
        ints(&query(&ctx, "SELECT count(*) FROM logs").await, 0),
        [1]
    );
    // The table is built on first use, once: the context and the set
    // see the same schema.
    let df = ctx.table("count").await.unwrap();
    assert_eq!(
        df.schema().as_arrow(),
        set.schema("count").unwrap().unwrap().as_ref()
    );
    assert!(
        set.has_table("count").unwrap()
            && set.has_table("logs").unwrap()
            && !set.has_table("nope").unwrap()
    );
    ctx.register_batch("count", numbers(3)).unwrap();
    assert_eq!(
        ints(&query(&ctx, "SELECT count(*) FROM count").await, 0),
        [3]
    );
    let err = ctx.sql("SELECT * FROM nope").await.unwrap_err().to_string();
    assert!(err.contains("nope"), "{err}");
}

#[tokio::test]
async fn sample_bag_count_table() {
    let ctx = ctx();
    register_logs(&ctx, &[testdata("rosbag/sample.bag")]).unwrap();
    let b = query(&ctx, "SELECT count(*) FROM count").await;
    assert_eq!(ints(&b, 0), [30]);
    let b = query(
        &ctx,
        "SELECT log, CAST(data AS BIGINT) FROM count ORDER BY log_time LIMIT 1",
    )
    .await;
    assert_eq!(strings(&b, 0), ["sample.bag"]);
    assert_eq!(ints(&b, 1), [-5]);
}

/// Every table's row count per log equals the message count the log's
/// summary gives its channels (what `robolog info` prints), over a set of
/// mixed formats.
#[tokio::test]
async fn table_counts_equal_summary_counts() {
    let paths = [
        testdata("rosbag/sample.bag"),
        testdata("mcap/chunked-zstd.mcap"),
        testdata("ulog/example.ulg"),
        testdata("vellog/sensors.vel"),
        testdata("carla/scene-0.9.13.rec"),
    ];
    let mut want: BTreeMap<(String, String), u64> = BTreeMap::new();
    for p in &paths {
        let log = robolog::open(p).unwrap();
        let s = log.summary().unwrap();
        let id = p.file_name().unwrap().to_str().unwrap().to_string();
        for c in &s.channels {
            let t = robolog_arrow::table_name(&log, &c.info);
            *want.entry((t, id.clone())).or_default() += c.message_count;
        }
    }
    let ctx = ctx();
    let set = register_logs(&ctx, &paths).unwrap();
    let mut got: BTreeMap<(String, String), u64> = BTreeMap::new();
    for t in set.table_names().unwrap() {
        let b = query(
            &ctx,
            &format!("SELECT log, count(*) FROM \"{t}\" GROUP BY log"),
        )
        .await;
        for (log, n) in strings(&b, 0).into_iter().zip(ints(&b, 1)) {
            got.insert((t.to_string(), log), n as u64);
        }
    }
    want.retain(|_, n| *n > 0);
    assert!(want.len() > 10, "{want:?}");
    assert_eq!(got, want);
}

#[tokio::test]
async fn logs_table_has_a_row_per_log() {
    let paths = [testdata("rosbag/sample.bag"), testdata("ulog/example.ulg")];
    let ctx = ctx();
    register_logs(&ctx, &paths).unwrap();
    let b = query(
        &ctx,
        "SELECT log, format, message_count, path, start, \"end\", duration_s, metadata \
         FROM logs ORDER BY log",
    )
    .await;
    assert_eq!(strings(&b, 0), ["example.ulg", "sample.bag"]);
    assert_eq!(strings(&b, 1), ["ulog", "rosbag"]);
    for (i, p) in [&paths[1], &paths[0]].iter().enumerate() {
        let s = robolog::open(p).unwrap().summary().unwrap();
        let row = &b[0];
        assert_eq!(
            row.column(2).as_primitive::<UInt64Type>().value(i),
            s.message_count
        );
        assert_eq!(
            row.column(3).as_string::<i32>().value(i),
            p.to_str().unwrap()
        );
        let start = row.column(4).as_primitive::<Int64Type>().value(i);
        assert_eq!(Some(start), s.start.map(|t| t.as_nanos()));
        let secs = row
            .column(6)
            .as_primitive::<arrow_array::types::Float64Type>()
            .value(i);
        assert!((secs - s.duration_ns() as f64 / 1e9).abs() < 1e-9);
        let meta: serde_json::Value =
            serde_json::from_str(row.column(7).as_string::<i32>().value(i)).unwrap();
        assert_eq!(meta.as_object().unwrap().len(), s.metadata.len());
    }
}

#[tokio::test]
async fn log_time_ranges_return_exactly_the_rows_in_range() {
    let ctx = ctx();
    register_logs(&ctx, &[testdata("rosbag/sample.bag")]).unwrap();
    let all = query(&ctx, "SELECT log_time FROM count ORDER BY log_time").await;
    let times: Vec<i64> = all
        .iter()
        .flat_map(|b| {
            b.column(0)
                .as_primitive::<TimestampNanosecondType>()
                .values()
                .to_vec()
        })
        .collect();
    assert_eq!(times.len(), 30);
    let (lo, hi) = (times[4], times[19]);
    let want = times.iter().filter(|&&t| t >= lo && t < hi).count() as i64;
    let sql = format!(
        "SELECT count(*) FROM count WHERE log_time >= to_timestamp_nanos({lo}) \
         AND log_time < to_timestamp_nanos({hi})"
    );
    assert_eq!(ints(&query(&ctx, &sql).await, 0), [want]);
    // The range reached the scan.
    let plan = query(&ctx, &format!("EXPLAIN {sql}")).await;
    let text = strings(&plan, 1).join("\n");
    assert!(
        text.contains(&format!("log_time=Some({lo})..=Some({})", hi - 1)),
        "{text}"
    );
    let sql = format!(
        "SELECT count(*) FROM count WHERE log_time BETWEEN to_timestamp_nanos({lo}) \
         AND to_timestamp_nanos({hi})"
    );
    let want = times.iter().filter(|&&t| t >= lo && t <= hi).count() as i64;
    assert_eq!(ints(&query(&ctx, &sql).await, 0), [want]);
    let sql = "SELECT count(*) FROM count WHERE log_time > to_timestamp_nanos(0) \
               AND log_time < to_timestamp_nanos(0)";
    assert_eq!(ints(&query(&ctx, sql).await, 0), [0]);
}

/// `log_time_utc`: the log time plus the log's UTC offset (the `logs`
/// table's `start_utc - start`) where the log is anchored, null where it
/// is not; its ranges narrow each log's scan through the anchor and skip
/// the logs without UTC times.
#[tokio::test]
async fn log_time_utc_is_anchored_and_its_ranges_reach_the_scan() {
    let (Some(small), Some(plain)) = (
        corpus("ulog/pyulog/sample_log_small.ulg"),
        corpus("ulog/pyulog/sample.ulg"),
    ) else {
        return;
    };
    let ctx = ctx();
    register_logs(&ctx, &[small, plain]).unwrap();
    let b = query(
        &ctx,
        "SELECT log, CAST(start AS BIGINT) AS s, CAST(start_utc AS BIGINT) AS u FROM logs ORDER BY log",
    )
    .await;
    assert_eq!(strings(&b, 0), ["sample.ulg", "sample_log_small.ulg"]);
    assert!(b[0].column(2).is_null(0));
    let offset = ints(&b, 2)[1] - ints(&b, 1)[1];
    // The GPS anchor: a date in April 2021, minus some 20 s since boot.
    assert!((1_618_986_000_000_000_000..1_618_987_000_000_000_000).contains(&offset));
    let rows = query(
        &ctx,
        "SELECT log, CAST(log_time AS BIGINT) AS t, CAST(log_time_utc AS BIGINT) AS u \
         FROM vehicle_attitude ORDER BY log, t",
    )
    .await;
    let (mut anchored, mut plain_rows) = (Vec::new(), 0);
    for b in &rows {
        let log = b.column(0).as_string::<i32>();
        let lt = b.column(1).as_primitive::<Int64Type>();
        let utc = b.column(2).as_primitive::<Int64Type>();
        for i in 0..b.num_rows() {
            if log.value(i) == "sample.ulg" {
                assert!(utc.is_null(i));
                plain_rows += 1;
            } else {
                assert_eq!(utc.value(i), lt.value(i) + offset);
                anchored.push(utc.value(i));
            }
        }
    }
    assert!(anchored.len() > 100 && plain_rows > 100);
    let (lo, hi) = (anchored[10], anchored[50]);
    let sql = format!(
        "SELECT count(*) FROM vehicle_attitude WHERE log_time_utc >= to_timestamp_nanos({lo}) \
         AND log_time_utc < to_timestamp_nanos({hi})"
    );
    assert_eq!(ints(&query(&ctx, &sql).await, 0), [40]);
    let plan = strings(&query(&ctx, &format!("EXPLAIN {sql}")).await, 1).join("\n");
    assert!(
        plan.contains(&format!("log_time_utc=Some({lo})..=Some({})", hi - 1)),
        "{plan}"
    );
    // An ISO 8601 instant compares as UTC.
    let iso = "2021-04-21T06:31:00Z";
    let at = 1_618_986_660_000_000_000i64;
    let want = anchored.iter().filter(|&&t| t >= at).count() as i64;
    let sql = format!("SELECT count(*) FROM vehicle_attitude WHERE log_time_utc >= '{iso}'");
    assert_eq!(ints(&query(&ctx, &sql).await, 0), [want]);
    let sql = "SELECT count(*) FROM vehicle_attitude WHERE log_time_utc IS NULL";
    assert_eq!(ints(&query(&ctx, sql).await, 0), [plain_rows]);
}

#[tokio::test]
async fn log_filters_prune_logs() {
    let ctx = ctx();
    let paths = [
        testdata("rosbag/sample.bag"),
        testdata("rosbag/sample-lz4.bag"),
        testdata("rosbag/sample-bz2.bag"),
    ];
    register_logs(&ctx, &paths).unwrap();
    let b = query(
        &ctx,
        "SELECT log, count(*) FROM count GROUP BY log ORDER BY log",
    )
    .await;
    assert_eq!(
        strings(&b, 0),
        ["sample-bz2.bag", "sample-lz4.bag", "sample.bag"]
    );
    assert_eq!(ints(&b, 1), [30, 30, 30]);
    let sql = "SELECT count(*) FROM count WHERE log IN ('sample.bag', 'sample-lz4.bag')";
    assert_eq!(ints(&query(&ctx, sql).await, 0), [60]);
    let plan = strings(&query(&ctx, &format!("EXPLAIN {sql}")).await, 1).join("\n");
    assert!(plan.contains("table=count, logs=2"), "{plan}");
    let sql = "SELECT count(*) FROM count WHERE log = 'sample-bz2.bag'";
    assert_eq!(ints(&query(&ctx, sql).await, 0), [30]);
    let plan = strings(&query(&ctx, &format!("EXPLAIN {sql}")).await, 1).join("\n");
    assert!(plan.contains("table=count, logs=1, partitions=1"), "{plan}");
}

#[test]
fn repeated_file_names_get_numbered_ids() {
    // The same file by two spellings is one log.
    let set = LogSet::open(&[
        testdata("rosbag/sample.bag"),
        testdata("rosbag/../rosbag/sample.bag"),
    ])
    .unwrap();
    let ids: Vec<&str> = set.logs().iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, ["sample.bag"]);
    // Another file of the same name is numbered.
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ids-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("sample.bag");
    std::fs::copy(testdata("rosbag/sample.bag"), &copy).unwrap();
    let set = LogSet::open(&[testdata("rosbag/sample.bag"), copy]).unwrap();
    let ids: Vec<&str> = set.logs().iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, ["sample.bag", "sample~2.bag"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Two PX4 versions of `vehicle_gps_position` (`lat`/`lon` integers, then
/// `latitude_deg`/`longitude_deg` floats) merge into one table: each log
/// has nulls in the other's columns.
#[tokio::test]
async fn ulog_message_versions_merge() {
    let (Some(a), Some(b)) = (
        corpus("ulog/pyulog/sample_logging_tagged_and_default_params.ulg"),
        corpus("ulog/pyulog/sample_px4_events.ulg"),
    ) else {
        return;
    };
    let ctx = ctx();
    let set = register_logs(&ctx, &[&a, &b]).unwrap();
    let schema = set.schema("vehicle_gps_position").unwrap().unwrap();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(
        &names[..5],
        ["log", "log_time", "log_time_utc", "multi_id", "timestamp"]
    );
    for n in ["lat", "lon", "latitude_deg", "longitude_deg"] {
        assert!(names.contains(&n), "{names:?}");
    }
    assert!(set.check("vehicle_gps_position").is_ok());
    let q = "SELECT log, count(*), count(lat), count(latitude_deg) FROM vehicle_gps_position \
             GROUP BY log ORDER BY log";
    let r = query(&ctx, q).await;
    assert_eq!(
        strings(&r, 0),
        [
            "sample_logging_tagged_and_default_params.ulg",
            "sample_px4_events.ulg"
        ]
    );
    assert_eq!(ints(&r, 1), [190, 583]);
    assert_eq!(ints(&r, 2), [190, 0]);
    assert_eq!(ints(&r, 3), [0, 583]);
}

/// A column that is `UInt32` in one PX4 version and `Float32` in another
/// is widened to `Float64`, as numbers are within one log, and every row
/// of both logs is read.
#[tokio::test]
async fn numbers_of_two_types_across_logs_widen() {
    let (Some(a), Some(b)) = (
        corpus("ulog/pyulog/sample_log_small.ulg"),
        corpus("ulog/pyulog/sample.ulg"),
    ) else {
        return;
    };
    let ctx = ctx();
    let set = register_logs(&ctx, &[&a, &b]).unwrap();
    set.check("sensor_combined").unwrap();
    let schema = set.schema("sensor_combined").unwrap().unwrap();
    assert_eq!(
        schema
            .field_with_name("gyro_integral_dt")
            .unwrap()
            .data_type(),
        &arrow_schema::DataType::Float64
    );
    let one = |p: &std::path::Path| {
        let log = robolog::open(p).unwrap();
        let summary = logcore::LogReader::summary(&log).unwrap();
        robolog_arrow::table_of(&log, &summary, "sensor_combined")
            .unwrap()
            .unwrap()
            .message_count as i64
    };
    let r = query(&ctx, "SELECT count(gyro_integral_dt) FROM sensor_combined").await;
    assert_eq!(ints(&r, 0), [one(&a) + one(&b)]);
    let r = query(&ctx, "SELECT count(*) FROM vehicle_attitude").await;
    assert!(ints(&r, 0)[0] > 0);
}

/// A topic named `/logs` is the table `logs_` (the table `logs` lists the
/// logs), and its rows are the topic's messages.
#[tokio::test]
async fn a_logs_topic_is_the_table_logs_() {
    use rosbag12::{Connection, RosTime, Writer, WriterOptions};
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriterOptions::default()).unwrap();
    let md5 = "da5909fbe378aeaf85e547e830cc1bb7";
    let logs = w
        .add_connection(Connection::new(
            0,
            "/logs",
            "std_msgs/Int32",
            md5,
            "int32 data",
        ))
        .unwrap();
    let other = w
        .add_connection(Connection::new(
            1,
            "/n",
            "std_msgs/Int32",
            md5,
            "int32 data",
        ))
        .unwrap();
    for (i, v) in [3i32, 5, 8].into_iter().enumerate() {
        let t = RosTime {
            sec: 1 + i as u32,
            nsec: 0,
        };
        w.write(logs, t, &v.to_le_bytes()).unwrap();
        w.write(other, t, &(-v).to_le_bytes()).unwrap();
    }
    w.finish().unwrap();
    let dir = std::env::temp_dir().join(format!("robolog-sql-logs-topic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bag = dir.join("topics.bag");
    std::fs::write(&bag, w.into_inner().into_inner()).unwrap();
    let ctx = ctx();
    let set = register_logs(&ctx, &[&bag]).unwrap();
    assert_eq!(set.table_names().unwrap(), ["logs_", "n"]);
    let b = query(&ctx, "SELECT CAST(sum(data) AS BIGINT) FROM logs_").await;
    assert_eq!(ints(&b, 0), [16]);
    let b = query(&ctx, "SELECT CAST(sum(data) AS BIGINT) FROM n").await;
    assert_eq!(ints(&b, 0), [-16]);
    let b = query(&ctx, "SELECT count(*) FROM logs").await;
    assert_eq!(ints(&b, 0), [1]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every row of `sql`, in one batch.
async fn rows(ctx: &SessionContext, sql: &str) -> RecordBatch {
    let df = ctx.sql(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    let schema = std::sync::Arc::new(df.schema().as_arrow().clone());
    let batches = df.collect().await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    datafusion::arrow::compute::concat_batches(&schema, &batches).unwrap()
}

/// A set opened for some tables lists only those, and gives the same
/// rows and schemas as a set opened for all (a ULog read for one table
/// indexes only its samples); its `logs` table reads its rows when asked.
#[tokio::test]
async fn a_set_opened_for_some_tables_answers_as_the_whole_set() {
    let paths = [
        testdata("rosbag/sample.bag"),
        testdata("mcap/chunked-zstd.mcap"),
        testdata("ulog/example.ulg"),
        testdata("ulog/features.ulg"),
        testdata("vellog/sensors.vel"),
        testdata("carla/scene-0.9.13.rec"),
    ];
    // One partition: rows come in log order, then as each log stores them.
    let ctx = || SessionContext::new_with_config(SessionConfig::new().with_target_partitions(1));
    let all = ctx();
    let set = register_logs(&all, &paths).unwrap();
    let names: Vec<String> = set
        .table_names()
        .unwrap()
        .iter()
        .map(|t| t.to_string())
        .collect();
    assert!(names.len() > 10, "{names:?}");
    let logs = rows(&all, "SELECT * FROM logs ORDER BY log").await;
    for t in &names {
        let some = ctx();
        let only = LogSet::open_for(&paths, robolog::Limits::default(), &[t, "absent"]).unwrap();
        assert_eq!(only.table_names().unwrap(), [t.as_str()]);
        assert_eq!(only.schema(t).unwrap(), set.schema(t).unwrap(), "{t}");
        only.register(&some).unwrap();
        let sql = format!("SELECT * FROM \"{t}\"");
        let (want, got) = (rows(&all, &sql).await, rows(&some, &sql).await);
        assert!(want.num_rows() > 0, "{t}");
        assert_eq!(got, want, "{t}");
        assert_eq!(rows(&some, "SELECT * FROM logs ORDER BY log").await, logs);
    }
    // With `logs` among them, every table is listed.
    let with_logs = LogSet::open_for(&paths, robolog::Limits::default(), &["logs"]).unwrap();
    assert_eq!(with_logs.table_names().unwrap(), set.table_names().unwrap());
}

/// A set told to hold its scanned logs answers as one that closes them,
/// and holds each log kept for the scans once, when its first scan is
/// done (a later scan of the same log opens it again and closes it).
#[tokio::test]
async fn a_set_holds_its_scanned_logs_only_when_told() {
    let paths = [
        testdata("ulog/example.ulg"),
        testdata("ulog/features.ulg"),
        testdata("rosbag/sample.bag"),
        testdata("vellog/sensors.vel"),
    ];
    let ctx = || SessionContext::new_with_config(SessionConfig::new().with_target_partitions(1));
    let (plain_ctx, held_ctx) = (ctx(), ctx());
    let plain = register_logs(&plain_ctx, &paths).unwrap();
    let held = LogSet::open(&paths).unwrap();
    held.hold_scanned_logs();
    held.register(&held_ctx).unwrap();
    let mut scanned = std::collections::BTreeSet::new();
    let names: Vec<String> = held
        .table_names()
        .unwrap()
        .iter()
        .map(|t| t.to_string())
        .collect();
    assert!(names.len() > 5, "{names:?}");
    for t in names.iter().chain(names.iter()) {
        let sql = format!("SELECT * FROM \"{t}\"");
        let (want, got) = (rows(&plain_ctx, &sql).await, rows(&held_ctx, &sql).await);
        assert!(want.num_rows() > 0, "{t}");
        assert_eq!(got, want, "{t}");
        for l in held.provider(t).unwrap().unwrap().logs() {
            scanned.insert(l.path.clone());
        }
        assert_eq!(held.held_logs(), scanned.len(), "{t}");
        assert_eq!(plain.held_logs(), 0, "{t}");
    }
    assert_eq!(scanned.len(), paths.len());
}

/// SQL lower-cases unquoted names, and the tables are named after topics
/// and messages: a name differing from one table's only in case reads that
/// table, whether the set lists its tables (opened for all) or opens them
/// one name at a time; among the context's own tables too.
#[tokio::test]
async fn table_names_match_ignoring_case_where_one_table_has_them() {
    let rec = testdata("carla/scene-0.9.13.rec");
    let lazy = ctx();
    let set = register_logs(&lazy, &[&rec]).unwrap();
    let listed = ctx();
    LogSet::open(&[&rec]).unwrap().register(&listed).unwrap();
    for ctx in [&lazy, &listed] {
        for sql in [
            "SELECT count(*), min(frame), max(frame) FROM FrameStart",
            "SELECT count(*), min(frame), max(frame) FROM framestart",
            "SELECT count(*), min(frame), max(frame) FROM \"FRAMESTART\"",
            "SELECT count(*), min(frame), max(frame) FROM public.framestart",
        ] {
            let b = query(ctx, sql).await;
            assert_eq!(ints(&b, 0), [4], "{sql}");
            let frames: Vec<u64> = [1, 2]
                .iter()
                .map(|&c| b[0].column(c).as_primitive::<UInt64Type>().value(0))
                .collect();
            assert_eq!(frames, [1, 4], "{sql}");
        }
        let b = query(ctx, "SELECT count(*) FROM Position").await;
        assert_eq!(ints(&b, 0), [4]);
    }
    assert_eq!(set.resolve_table("position").unwrap(), "Position");
    assert_eq!(set.resolve_table("Position").unwrap(), "Position");
    assert_eq!(set.resolve_table("LOGS").unwrap(), "logs");
    assert_eq!(set.tables_ignoring_case("POSITION").unwrap(), ["Position"]);
    assert!(set.tables_ignoring_case("positions").unwrap().is_empty());
    // The exact names still read as before, and `has_table` is exact.
    assert!(set.has_table("Position").unwrap() && !set.has_table("position").unwrap());
    // A ULog opened for a name indexes the samples of the messages whose
    // table has it in any case.
    let ulog = ctx();
    register_logs(&ulog, &[testdata("ulog/example.ulg")]).unwrap();
    let b = query(&ulog, r#"SELECT count(*) FROM "VEHICLE_Attitude""#).await;
    assert_eq!(ints(&b, 0), [3]);
    // The logs opened for a name serve the table of that name in another
    // case: the scan takes the log planning opened (and holds it) rather
    // than opening it again.
    let held = LogSet::find(&[&rec], robolog::Limits::default()).unwrap();
    held.hold_scanned_logs();
    let held_ctx = ctx();
    held.register(&held_ctx).unwrap();
    let b = query(&held_ctx, "SELECT count(*) FROM position").await;
    assert_eq!(ints(&b, 0), [4]);
    assert_eq!(held.held_logs(), 1);
    // The context's own tables too.
    let ctx = ctx();
    // (DataFusion lower-cases a name registered unquoted, as in SQL.)
    ctx.register_batch(r#""Before""#, numbers(3)).unwrap();
    register_logs(&ctx, &[testdata("rosbag/sample.bag")]).unwrap();
    let b = query(&ctx, "SELECT count(*) FROM before").await;
    assert_eq!(ints(&b, 0), [3]);
}

/// A name that names no table is an error naming the closest tables (the
/// same letters ignoring case and punctuation, names containing it, a
/// typo away) and how to quote them; several names differing from it only
/// in case are an error listing them.
#[tokio::test]
async fn unknown_and_ambiguous_table_names_say_what_there_is() {
    use robolog_sql::Error;
    let ctx = robolog_sql::session();
    let set = register_logs(
        &ctx,
        &[
            testdata("rosbag/sample.bag"),
            testdata("carla/scene-0.9.13.rec"),
        ],
    )
    .unwrap();
    let unknown = |e: Error| match e {
        Error::UnknownTable { table, closest } => (table, closest),
        other => panic!("{other}"),
    };
    for (sql, table, closest) in [
        (
            r#"SELECT * FROM "/count""#,
            "/count",
            &["count", "FrameCounter"][..],
        ),
        ("SELECT * FROM frame_start", "frame_start", &["FrameStart"]),
        (
            "SELECT * FROM frame",
            "frame",
            &["FrameStart", "FrameCounter"],
        ),
        ("SELECT * FROM chater", "chater", &["chatter"]),
        ("SELECT * FROM nothing_like_it", "nothing_like_it", &[]),
        (
            "SELECT * FROM count JOIN vehicle_lights USING (log)",
            "vehicle_lights",
            &["VehicleLight"],
        ),
    ] {
        let e = robolog_sql::query(&ctx, sql).await.map(|_| ()).unwrap_err();
        let text = e.to_string();
        assert_eq!(
            unknown(e),
            (
                table.to_string(),
                closest.iter().map(|c| c.to_string()).collect()
            ),
            "{sql}"
        );
        match closest.first() {
            Some(c) => assert!(text.contains(&format!("FROM \"{c}\"")), "{text}"),
            None => assert!(text.contains("SHOW TABLES"), "{text}"),
        }
    }
    let e = unknown(set.resolve_table("frame").unwrap_err());
    assert_eq!(e.1, ["FrameStart", "FrameCounter"]);
    // A table of the context whose name differs from one of the logs'
    // only in case: that name alone is the logs' table, any other case is
    // ambiguous.
    ctx.register_batch(r#""COUNT""#, numbers(2)).unwrap();
    let b = query(&ctx, "SELECT count(*) FROM count").await;
    assert_eq!(ints(&b, 0), [30]);
    let b = query(&ctx, r#"SELECT count(*) FROM "COUNT""#).await;
    assert_eq!(ints(&b, 0), [2]);
    let e = robolog_sql::query(&ctx, r#"SELECT * FROM "Count""#)
        .await
        .map(|_| ())
        .unwrap_err();
    let text = e.to_string();
    match e {
        Error::AmbiguousTable { table, candidates } => {
            assert_eq!(
                (table.as_str(), candidates),
                ("Count", vec!["COUNT".to_string(), "count".to_string()])
            );
        }
        other => panic!("{other}"),
    }
    assert!(text.contains(r#"FROM "COUNT" or FROM "count""#), "{text}");
    // A plain planning error stays DataFusion's.
    let e = robolog_sql::query(&ctx, "SELECT no_column FROM count")
        .await
        .map(|_| ())
        .unwrap_err();
    assert!(matches!(e, Error::DataFusion(_)), "{e}");
}

/// A log that lost records when it was opened (a truncation) says so, and
/// every scan of its tables counts them, once each; what a reader only
/// worked around (a bag's index rebuilt by scanning) is a warning, and no
/// record is lost.
#[tokio::test]
async fn records_a_scan_could_not_read_are_counted() {
    let truncated = testdata("rosbag/truncated.bag");
    let set = LogSet::find(&[&truncated], robolog::Limits::default()).unwrap();
    let ctx = ctx();
    set.register(&ctx).unwrap();
    let b = query(&ctx, "SELECT count(*) FROM count").await;
    assert_eq!(ints(&b, 0), [3]);
    let lost = set.progress().lost();
    assert_eq!(lost.len(), 1, "{lost:?}");
    assert_eq!(
        (
            lost[0].path.as_path(),
            lost[0].table.as_str(),
            lost[0].count,
            lost[0].offset
        ),
        (truncated.as_path(), "count", 1, Some(5549))
    );
    let first = lost[0]
        .first
        .as_ref()
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(first.starts_with("truncated at byte 5549: "), "{first}");
    assert_eq!(set.lost_records().len(), 1);
    assert_eq!(set.open_warnings().len(), 1);
    // A truncated ULog, read through its typed columns.
    let ulog = testdata("ulog/truncated.ulg");
    let set = LogSet::find(&[&ulog], robolog::Limits::default()).unwrap();
    let ctx = self::ctx();
    set.register(&ctx).unwrap();
    assert_eq!(
        ints(&query(&ctx, "SELECT count(*) FROM esc_status").await, 0),
        [2]
    );
    let lost = set.progress().lost();
    assert_eq!(
        lost.iter()
            .map(|l| (l.table.as_str(), l.count, l.offset))
            .collect::<Vec<_>>(),
        [("esc_status", 1, Some(1124))]
    );
    // Every record read: nothing lost, one warning.
    for (bag, warnings) in [("rosbag/unindexed.bag", 1), ("rosbag/sample.bag", 0)] {
        let set = LogSet::find(&[testdata(bag)], robolog::Limits::default()).unwrap();
        let ctx = self::ctx();
        set.register(&ctx).unwrap();
        let b = query(&ctx, "SELECT count(*) FROM count").await;
        assert_eq!(ints(&b, 0), [30], "{bag}");
        assert!(set.progress().lost().is_empty(), "{bag}");
        assert!(set.lost_records().is_empty(), "{bag}");
        assert_eq!(set.open_warnings().len(), warnings, "{bag}");
    }
}

/// Every channel of `summary` by topic, counted without
/// `Summary::topics`: (message count, channel count, types in channel
/// order, first channel's table key).
fn by_topic(
    log: &robolog::Log<'_>,
    summary: &logcore::Summary,
) -> BTreeMap<String, (u64, u64, Vec<String>, String)> {
    let mut out: BTreeMap<String, (u64, u64, Vec<String>, String)> = BTreeMap::new();
    for c in &summary.channels {
        let e = out
            .entry(c.info.topic.clone())
            .or_insert_with(|| (0, 0, Vec::new(), log.table_key(&c.info).to_string()));
        e.0 += c.message_count;
        e.1 += 1;
        if !e.2.contains(&c.info.type_name) {
            e.2.push(c.info.type_name.clone());
        }
    }
    out
}

/// The `types` list of row `i` of column `col`.
fn types_at(b: &RecordBatch, col: usize, i: usize) -> Vec<String> {
    let list = b.column(col).as_list::<i32>().value(i);
    let s = list.as_string::<i32>();
    (0..s.len()).map(|k| s.value(k).to_string()).collect()
}

/// The table `topics` has a row per log and topic: every channel of a
/// topic counted in it (a bag's `/rosout` of three connections, `/tf` of
/// two), as the logs' channels say; its message counts add up to the
/// `logs` table's; `table` names the table of the topic's messages (a
/// ULog's message name), which holds as many rows.
#[tokio::test]
async fn topics_table_has_a_row_per_log_and_topic() {
    let (Some(example), Some(ulog)) = (
        corpus("rosbag/rosbagjs-example.bag"),
        corpus("ulog/pyulog/sample_logging_tagged_and_default_params.ulg"),
    ) else {
        return;
    };
    let paths = [example.clone(), ulog.clone(), testdata("rosbag/sample.bag")];
    let ctx = ctx();
    let set = register_logs(&ctx, &paths).unwrap();
    let b = rows(
        &ctx,
        "SELECT log, topic, types, message_count, channel_count, start, \"end\", \
         start_utc, end_utc, \"table\" FROM topics ORDER BY log, topic",
    )
    .await;
    // Known from the bag: three connections of `/rosout`, two of `/tf`.
    let at = |log: &str, topic: &str| {
        (0..b.num_rows())
            .find(|&i| {
                b.column(0).as_string::<i32>().value(i) == log
                    && b.column(1).as_string::<i32>().value(i) == topic
            })
            .unwrap_or_else(|| panic!("{log} {topic}"))
    };
    let count = |i: usize| b.column(3).as_primitive::<UInt64Type>().value(i);
    let channels = |i: usize| b.column(4).as_primitive::<UInt64Type>().value(i);
    let table = |i: usize| b.column(9).as_string::<i32>().value(i).to_string();
    let rosout = at("rosbagjs-example.bag", "/rosout");
    assert_eq!((count(rosout), channels(rosout)), (10, 3));
    assert_eq!(types_at(&b, 2, rosout), ["rosgraph_msgs/Log"]);
    assert_eq!(table(rosout), "rosout");
    let tf = at("rosbagjs-example.bag", "/tf");
    assert_eq!((count(tf), channels(tf)), (2688, 2));
    assert_eq!(types_at(&b, 2, tf), ["tf/tfMessage"]);
    // Every log's topics, as its channels give them.
    let names = set.table_names().unwrap();
    for (p, id) in [
        (&example, "rosbagjs-example.bag"),
        (&ulog, "sample_logging_tagged_and_default_params.ulg"),
        (&paths[2], "sample.bag"),
    ] {
        let log = robolog::open(p).unwrap();
        let s = log.summary().unwrap();
        let want = by_topic(&log, &s);
        let got: Vec<usize> = (0..b.num_rows())
            .filter(|&i| b.column(0).as_string::<i32>().value(i) == id)
            .collect();
        assert_eq!(got.len(), want.len(), "{id}");
        for i in got {
            let topic = b.column(1).as_string::<i32>().value(i);
            let (n, c, types, key) = &want[topic];
            assert_eq!((count(i), channels(i)), (*n, *c), "{id} {topic}");
            assert_eq!(&types_at(&b, 2, i), types, "{id} {topic}");
            assert!(names.contains(&table(i).as_str()), "{id} {topic}");
            assert_eq!(
                set.table_key(&table(i)).unwrap().as_deref(),
                Some(key.as_str())
            );
            // start/end are int ns on the log's clock, start_utc/end_utc
            // UTC timestamps.
            let ts = |col: usize| {
                let c = b.column(col);
                let v = match c.as_primitive_opt::<Int64Type>() {
                    Some(ns) => ns.value(i),
                    None => c.as_primitive::<TimestampNanosecondType>().value(i),
                };
                c.is_valid(i).then_some(v)
            };
            let first = s
                .channels
                .iter()
                .filter(|ch| ch.info.topic == topic)
                .filter_map(|ch| ch.start)
                .min();
            assert_eq!(ts(5), first.map(|t| t.as_nanos()), "{id} {topic}");
            let utc = first.and_then(|t| logcore::clock::to_utc(&s, t));
            assert_eq!(ts(7), utc.map(|t| t.as_nanos()), "{id} {topic}");
        }
    }
    // The ULog's instances are topics of their own, in the message's table.
    let ul = "sample_logging_tagged_and_default_params.ulg";
    let t1 = at(ul, "telemetry_status[1]");
    assert_eq!(table(t1), "telemetry_status");
    // Its times are on the boot clock, anchored to UTC by its GPS time.
    let anchored = |i: usize| {
        let s = b.column(5).as_primitive::<Int64Type>().value(i);
        let u = b
            .column(7)
            .as_primitive::<TimestampNanosecondType>()
            .value(i);
        u - s
    };
    let sensor = at(ul, "sensor_combined");
    assert!(anchored(sensor) > 1_000_000_000_000_000_000);
    assert_eq!(anchored(sensor), anchored(t1));
    // The topics' counts add up to each log's, and the tables named hold
    // the rows counted.
    let b = rows(
        &ctx,
        "SELECT l.log, l.message_count, t.n FROM logs l JOIN \
         (SELECT log, CAST(sum(message_count) AS BIGINT UNSIGNED) AS n FROM topics GROUP BY log) t \
         ON l.log = t.log ORDER BY l.log",
    )
    .await;
    assert_eq!(b.num_rows(), 3);
    assert_eq!(
        b.column(1).as_primitive::<UInt64Type>().values(),
        b.column(2).as_primitive::<UInt64Type>().values()
    );
    for (log, table) in [(ul, "telemetry_status"), ("rosbagjs-example.bag", "tf")] {
        let sql = format!(
            "SELECT (SELECT CAST(sum(message_count) AS BIGINT) FROM topics \
             WHERE log = '{log}' AND \"table\" = '{table}'), \
             (SELECT count(*) FROM \"{table}\" WHERE log = '{log}')"
        );
        let b = rows(&ctx, &sql).await;
        let (want, got) = (ints(std::slice::from_ref(&b), 0), ints(&[b], 1));
        assert!(want[0] > 0, "{log} {table}");
        assert_eq!(got, want, "{log} {table}");
    }
    // A bag's times are UTC already.
    let b = rows(
        &ctx,
        "SELECT count(*) FROM topics WHERE log = 'sample.bag' \
         AND CAST(start AS BIGINT) = CAST(start_utc AS BIGINT)",
    )
    .await;
    assert_eq!(ints(&[b], 0), [3]);
}

/// `log = ...` and `log IN (...)` read the topics of those logs only.
#[tokio::test]
async fn topics_table_log_filters_prune_logs() {
    let ctx = ctx();
    let paths = [
        testdata("rosbag/sample.bag"),
        testdata("rosbag/sample-lz4.bag"),
        testdata("ulog/example.ulg"),
    ];
    register_logs(&ctx, &paths).unwrap();
    // Three topics each: `/chatter` (two connections), `/count`, `/point`.
    let sql = "SELECT count(*) FROM topics WHERE log IN ('sample.bag', 'sample-lz4.bag')";
    assert_eq!(ints(&query(&ctx, sql).await, 0), [6]);
    let plan = strings(&query(&ctx, &format!("EXPLAIN {sql}")).await, 1).join("\n");
    assert!(plan.contains("table=topics, logs=2"), "{plan}");
    let sql = "SELECT topic, \"table\", CAST(channel_count AS BIGINT) FROM topics \
               WHERE log = 'sample.bag' ORDER BY topic";
    let b = query(&ctx, sql).await;
    assert_eq!(strings(&b, 0), ["/chatter", "/count", "/point"]);
    assert_eq!(strings(&b, 1), ["chatter", "count", "point"]);
    assert_eq!(ints(&b, 2), [2, 1, 1]);
    let plan = strings(&query(&ctx, &format!("EXPLAIN {sql}")).await, 1).join("\n");
    assert!(
        plan.contains("table=topics, logs=1, partitions=1"),
        "{plan}"
    );
}

/// A set opened for some tables reads the `topics` rows from the logs
/// when scanned, and gives the rows a set opened for all gives (tables
/// named as the whole set names them); `topics` among the tables opens
/// every table.
#[tokio::test]
async fn a_set_opened_for_some_tables_reads_its_topics() {
    let paths = [
        testdata("rosbag/sample.bag"),
        testdata("mcap/chunked-zstd.mcap"),
        testdata("ulog/example.ulg"),
        testdata("carla/scene-0.9.13.rec"),
    ];
    let ctx = || SessionContext::new_with_config(SessionConfig::new().with_target_partitions(1));
    let all = ctx();
    let set = register_logs(&all, &paths).unwrap();
    let sql = "SELECT * FROM topics ORDER BY log, topic";
    let want = rows(&all, sql).await;
    assert!(want.num_rows() > 20, "{}", want.num_rows());
    let some = ctx();
    let only = LogSet::open_for(&paths, robolog::Limits::default(), &["count"]).unwrap();
    only.register(&some).unwrap();
    assert_eq!(rows(&some, sql).await, want);
    let with = LogSet::open_for(&paths, robolog::Limits::default(), &["topics"]).unwrap();
    assert_eq!(with.table_names().unwrap(), set.table_names().unwrap());
    assert_eq!(set.resolve_table("TOPICS").unwrap(), "topics");
    assert!(set.has_table("topics").unwrap());
    assert_eq!(
        set.schema("topics").unwrap(),
        Some(robolog_sql::topics_schema())
    );
}

/// A topic named `/topics` is the table `topics_` (the table `topics`
/// lists the logs' topics, this one among them).
#[tokio::test]
async fn a_topics_topic_is_the_table_topics_() {
    use rosbag12::{Connection, RosTime, Writer, WriterOptions};
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), WriterOptions::default()).unwrap();
    let md5 = "da5909fbe378aeaf85e547e830cc1bb7";
    let topics = w
        .add_connection(Connection::new(
            0,
            "/topics",
            "std_msgs/Int32",
            md5,
            "int32 data",
        ))
        .unwrap();
    for (i, v) in [3i32, 5].into_iter().enumerate() {
        let t = RosTime {
            sec: 1 + i as u32,
            nsec: 0,
        };
        w.write(topics, t, &v.to_le_bytes()).unwrap();
    }
    w.finish().unwrap();
    let dir = std::env::temp_dir().join(format!("robolog-sql-topics-topic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bag = dir.join("t.bag");
    std::fs::write(&bag, w.into_inner().into_inner()).unwrap();
    let ctx = ctx();
    let set = register_logs(&ctx, &[&bag]).unwrap();
    assert_eq!(set.table_names().unwrap(), ["topics_"]);
    let b = query(&ctx, "SELECT CAST(sum(data) AS BIGINT) FROM topics_").await;
    assert_eq!(ints(&b, 0), [8]);
    let b = query(
        &ctx,
        "SELECT topic, \"table\", CAST(message_count AS BIGINT) FROM topics",
    )
    .await;
    assert_eq!(strings(&b, 0), ["/topics"]);
    assert_eq!(strings(&b, 1), ["topics_"]);
    assert_eq!(ints(&b, 2), [2]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A bag of 120,000 `std_msgs/Int32` messages on `/n` (`data` = the
/// message's index), three to each log time, 7 µs apart (rosbag12's
/// writer, chunks of 40,000 bytes): large enough to be scanned in time
/// ranges. Also the count and the log time of message `i`.
fn ranged_bag() -> (Vec<u8>, i32, fn(i32) -> i64) {
    use rosbag12::{Connection, RosTime, Writer, WriterOptions};
    let count = 120_000i32;
    let mut w = Writer::new(
        std::io::Cursor::new(Vec::new()),
        WriterOptions {
            chunk_threshold: 40_000,
            ..WriterOptions::default()
        },
    )
    .unwrap();
    let n = w
        .add_connection(Connection::new(
            0,
            "/n",
            "std_msgs/Int32",
            "da5909fbe378aeaf85e547e830cc1bb7",
            "int32 data",
        ))
        .unwrap();
    fn time(i: i32) -> i64 {
        1_000_000_000i64 + i64::from(i / 3) * 7_000
    }
    for i in 0..count {
        let t = time(i);
        let at = RosTime {
            sec: u32::try_from(t / 1_000_000_000).unwrap(),
            nsec: u32::try_from(t % 1_000_000_000).unwrap(),
        };
        w.write(n, at, &i.to_le_bytes()).unwrap();
    }
    w.finish().unwrap();
    (w.into_inner().into_inner(), count, time)
}

/// The same selection scanned beside the writing pass
/// (`plan_filter_streaming`, `FilterPlan::run`): the pass waits for each
/// range and keeps exactly the messages `matching_messages` names; a scan
/// whose expression fails on the data (an integer division by zero) stops
/// the pass with the scan's error, naming `--where` and the topic.
#[test]
fn where_scanned_beside_the_writing_pass_keeps_the_same_messages() {
    use robolog::convert::{
        ConvertOptions, FilterSpec, KeyStream, MatchError, PlanError, Scan, filter_dry_run,
        plan_filter_streaming,
    };
    let (bytes, _, _) = ranged_bag();
    let log = robolog::open_bytes(&bytes).unwrap();
    let known = robolog::convert::topics(&log).unwrap();
    let prepare = |log: &robolog::Log<'_>, topic: &str, expr: &str| -> Result<Scan, MatchError> {
        let w = robolog_sql::prepare_where(log, topic, expr)
            .map_err(|e| MatchError::Expression(e.to_string()))?;
        Ok(Box::new(move |log: &robolog::Log<'_>, keys: &KeyStream| {
            w.stream(log, keys)
                .map_err(|e| MatchError::Expression(e.to_string()))
        }))
    };
    let run = |expr: &str| {
        let spec = FilterSpec {
            wheres: vec![("/n".into(), expr.into())],
            ..FilterSpec::default()
        };
        let plan = plan_filter_streaming(&[&log], &known, &spec, &prepare).unwrap();
        let opts = ConvertOptions::default();
        plan.run(&[&log], |f| filter_dry_run(&[&log], &opts, f))
    };
    let counts = run("data % 5 = 1 OR data = 119999").unwrap().unwrap();
    let n = counts.iter().find(|c| c.topic == "/n").unwrap();
    assert_eq!((n.kept, n.dropped), (24_001, 95_999));
    let want = robolog_sql::matching_messages(&log, "/n", "data % 5 = 1 OR data = 119999")
        .unwrap()
        .len();
    assert_eq!(n.kept, u64::try_from(want).unwrap());
    match run("data / (data - data) > 0") {
        Err(PlanError::Usage(m)) => {
            assert!(m.starts_with("--where /n:"), "{m}");
            assert!(m.contains("Divide by zero"), "{m}");
        }
        other => panic!("{other:?}"),
    }
}

/// `matching_messages` on a table large enough to be scanned in time
/// ranges on several cores: the keys are those of the written messages
/// the expression holds for, in order, each once, with the occurrences
/// of messages sharing a log time counted across the ranges' borders.
#[test]
fn where_over_a_table_read_in_ranges_names_each_message_once() {
    let (bytes, count, time) = ranged_bag();
    let log = robolog::open_bytes(&bytes).unwrap();
    let summary = logcore::LogReader::summary(&log).unwrap();
    let table = robolog_arrow::tables_with_summary(&log, &summary)
        .unwrap()
        .into_iter()
        .find(|t| t.key == "/n")
        .unwrap();
    let ranges = robolog_arrow::scan_ranges(
        &log,
        &summary,
        &table,
        &robolog_arrow::ScanOptions::default(),
    );
    if logcore::parallel::cores() >= 2 {
        assert!(ranges.len() >= 2, "{} ranges", ranges.len());
    }
    let keys = robolog_sql::matching_messages(&log, "/n", "data % 5 = 1 OR data = 119999").unwrap();
    let want: Vec<(i64, u32)> = (0..count)
        .filter(|i| i % 5 == 1 || *i == 119_999)
        .map(|i| (time(i), u32::try_from(i % 3).unwrap()))
        .collect();
    let got: Vec<(i64, u32)> = keys
        .iter()
        .map(|k| (k.log_time.as_nanos(), k.occurrence))
        .collect();
    assert_eq!(got.len(), 24_001);
    assert_eq!(got, want);
}
