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
        let start = row
            .column(4)
            .as_primitive::<TimestampNanosecondType>()
            .value(i);
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
    assert_eq!(&names[..4], ["log", "log_time", "multi_id", "timestamp"]);
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
