//! The Parquet export read back with the `parquet` crate's Arrow reader:
//! the layout, row counts against the logs' summaries, `log_time` against
//! the messages, known values of every format, the key-value metadata,
//! and the output rules (no overwrite without force, never an input,
//! unique log ids).

#![cfg(feature = "parquet")]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, TimestampNanosecondType,
    UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, SchemaRef};
use logcore::{LogReader, MessageFilter, ReadMode};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use robolog::export::{ExportError, ExportOptions, Exported as ParquetExport};
use robolog_arrow::parquet::{ParquetOptions, export_parquet};
use robolog_arrow::table_name;

fn testdata(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(p)
}

/// A new path (not created) unique to this test run.
fn scratch(name: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "parquet-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A Parquet file read back: schema, rows, key-value metadata.
struct Read {
    schema: SchemaRef,
    batch: RecordBatch,
    kv: BTreeMap<String, Option<String>>,
    row_groups: usize,
    compression: Vec<Compression>,
}

fn read(path: &Path) -> Read {
    let f = File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let builder = ParquetRecordBatchReaderBuilder::try_new(f).unwrap();
    let meta = builder.metadata().clone();
    let kv = meta
        .file_metadata()
        .key_value_metadata()
        .map(|kv| {
            kv.iter()
                .map(|k| (k.key.clone(), k.value.clone()))
                .collect()
        })
        .unwrap_or_default();
    let compression = meta
        .row_groups()
        .iter()
        .flat_map(|rg| rg.columns().iter().map(|c| c.compression()))
        .collect();
    let schema = builder.schema().clone();
    let batches: Vec<RecordBatch> = builder.build().unwrap().collect::<Result<_, _>>().unwrap();
    let batch = arrow_select::concat::concat_batches(&schema, &batches).unwrap();
    Read {
        schema,
        batch,
        kv,
        row_groups: meta.num_row_groups(),
        compression,
    }
}

/// Every file under `dir`, relative, sorted.
fn files(dir: &Path) -> BTreeSet<String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeSet<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).unwrap();
                out.insert(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(dir, dir, &mut out);
    out
}

/// Per table name of a log: its message count in the summary and the log
/// times of its messages in order.
fn expected(path: &Path) -> BTreeMap<String, (u64, Vec<i64>)> {
    let log = robolog::open(path).unwrap();
    let summary = log.summary().unwrap();
    let mut out: BTreeMap<String, (u64, Vec<i64>)> = BTreeMap::new();
    let mut of_channel = HashMap::new();
    for c in &summary.channels {
        let name = table_name(&log, &c.info);
        out.entry(name.clone()).or_default().0 += c.message_count;
        of_channel.insert(c.info.id, name);
    }
    let filter = MessageFilter::all().mode(ReadMode::Lenient);
    for m in log.messages(&filter).unwrap() {
        let Ok(m) = m else { continue };
        let name = &of_channel[&m.channel];
        out.get_mut(name).unwrap().1.push(m.log_time.as_nanos());
    }
    out
}

fn export(inputs: &[PathBuf], dir: &Path) -> ParquetExport {
    export_parquet(inputs, dir, &ParquetOptions::default(), &mut |_| {}).unwrap()
}

/// The healthy files of every format in testdata.
fn every_format() -> Vec<PathBuf> {
    [
        "ulog/example.ulg",
        "ulog/features.ulg",
        "rosbag/sample.bag",
        "rosbag/sample-1.2.bag",
        "rosbag/sample-bz2.bag",
        "mcap/chunked-zstd.mcap",
        "mcap/unchunked.mcap",
        "osi/20240101T000000Z_multi_380_3200_10_fixture-zstd.mcap",
        "osi/highway_20240101T000000.0_gt_draft.mcap",
        "carla/scene-0.9.13.rec",
        "carla/scene-0.10-ue5.rec",
        "vellog/sensors.vel",
        "vellog/spec-example.vel",
    ]
    .iter()
    .map(|p| testdata(p))
    .collect()
}

/// Exports `inputs` and checks the layout, row counts, log times,
/// compression and key-value metadata of every file against the logs.
fn check_export(inputs: &[PathBuf]) -> (PathBuf, ParquetExport) {
    let dir = scratch("formats");
    let done = export(inputs, &dir);
    assert_eq!(done.logs.len(), inputs.len());
    let mut want_files = BTreeSet::new();
    for (input, log) in inputs.iter().zip(&done.logs) {
        let id = robolog_arrow::hive_escape(&log.log_id);
        assert!(
            log.failed.is_empty(),
            "{}: {:?}",
            input.display(),
            log.failed
        );
        let exp = expected(input);
        let got: BTreeSet<&str> = log.tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            got,
            exp.keys().map(String::as_str).collect(),
            "{}",
            input.display()
        );
        let opened = robolog::open(input).unwrap();
        let summary = opened.summary().unwrap();
        for t in &log.tables {
            let rel = format!("{}/log={id}/data.parquet", t.name);
            assert_eq!(t.path, dir.join(&rel));
            want_files.insert(rel);
            let (count, times) = &exp[&t.name];
            let what = format!("{} table {}", input.display(), t.name);
            assert_eq!(t.rows, *count, "{what}: rows against the summary");
            assert_eq!(t.skipped, 0, "{what}");
            let r = read(&t.path);
            assert_eq!(r.batch.num_rows() as u64, *count, "{what}");
            assert_eq!(t.bytes, std::fs::metadata(&t.path).unwrap().len());
            let lt = robolog_arrow::log_time_values(r.batch.column(0)).unwrap();
            assert_eq!(r.schema.field(0).name(), "log_time");
            assert_eq!(
                r.schema.field(0).data_type(),
                &robolog_arrow::log_time_type(summary.time_model.clock),
                "{what}: log_time's type"
            );
            assert_eq!(lt.to_vec(), *times, "{what}: log_time");
            assert_eq!(
                r.schema
                    .field(0)
                    .metadata()
                    .get("robolog.clock")
                    .map(String::as_str),
                Some(summary.time_model.clock.name()),
                "{what}"
            );
            assert!(
                r.compression
                    .iter()
                    .all(|c| matches!(c, Compression::ZSTD(_)))
            );
            let kv = |k: &str| {
                r.kv.get(k)
                    .cloned()
                    .unwrap_or_else(|| panic!("{what}: no {k}"))
            };
            assert_eq!(kv("robolog.log"), Some(log.log_id.clone()));
            assert_eq!(
                kv("robolog.path"),
                Some(input.to_string_lossy().into_owned())
            );
            assert_eq!(
                kv("robolog.format"),
                Some(summary.format.name().to_string())
            );
            assert_eq!(kv("robolog.table"), Some(t.name.clone()));
            assert_eq!(
                kv("robolog.start_ns"),
                summary.start.map(|s| s.as_nanos().to_string())
            );
            assert_eq!(
                kv("robolog.end_ns"),
                summary.end.map(|s| s.as_nanos().to_string())
            );
            assert_eq!(
                kv("robolog.clock"),
                Some(summary.time_model.clock.name().to_string())
            );
            let offset = kv("robolog.utc_offset_ns");
            assert_eq!(
                offset.is_some(),
                summary.time_model.anchor.is_some(),
                "{what}"
            );
            let meta: serde_json::Value =
                serde_json::from_str(&kv("robolog.metadata").unwrap()).unwrap();
            for (k, v) in &summary.metadata {
                assert_eq!(meta[k], serde_json::Value::String(v.clone()), "{what}: {k}");
            }
            let channels = meta["channels"].as_array().unwrap();
            assert!(!channels.is_empty());
            assert!(r.kv.contains_key("robolog.type"));
        }
        let rel = format!("logs/log={id}/data.parquet");
        assert_eq!(log.logs.as_ref().unwrap().path, dir.join(&rel));
        want_files.insert(rel);
        let r = read(&log.logs.as_ref().unwrap().path);
        assert_eq!(r.batch.num_rows(), 1);
        let names: Vec<&str> = r
            .schema
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect();
        assert_eq!(
            names,
            [
                "path",
                "format",
                "start",
                "end",
                "duration_s",
                "message_count",
                "metadata",
                "tables",
                "clock",
                "start_utc",
                "end_utc",
                "duration"
            ]
        );
        let b = &r.batch;
        assert_eq!(
            b.column(0).as_string::<i32>().value(0),
            input.to_string_lossy()
        );
        assert_eq!(
            b.column(1).as_string::<i32>().value(0),
            summary.format.name()
        );
        let start = b.column(2).as_primitive::<Int64Type>();
        assert_eq!(
            start.is_valid(0).then(|| start.value(0)),
            summary.start.map(|s| s.as_nanos())
        );
        let end = b.column(3).as_primitive::<Int64Type>();
        assert_eq!(
            end.is_valid(0).then(|| end.value(0)),
            summary.end.map(|s| s.as_nanos())
        );
        assert_eq!(
            b.column(5).as_primitive::<UInt64Type>().value(0),
            summary.message_count
        );
        let meta: serde_json::Value =
            serde_json::from_str(b.column(6).as_string::<i32>().value(0)).unwrap();
        assert_eq!(meta.as_object().unwrap().len(), summary.metadata.len());
        // The clock, and the UTC times: the log's own where its clock is
        // UTC (from 2000 on), through its anchor where it has one, else
        // null.
        assert_eq!(
            b.column(8).as_string::<i32>().value(0),
            logcore::clock::ClockKind::of(&summary).name()
        );
        let start_utc = b.column(9).as_primitive::<TimestampNanosecondType>();
        let want_utc = summary.start.and_then(|s| match summary.time_model.clock {
            logcore::Clock::Unix if s.as_nanos() < 946_684_800_000_000_000 => None,
            _ => summary.time_model.to_unix(s),
        });
        assert_eq!(
            start_utc.is_valid(0).then(|| start_utc.value(0)),
            want_utc.map(|s| s.as_nanos())
        );
        assert_eq!(r.kv.get("robolog.table"), Some(&Some("logs".to_string())));
        assert!(
            r.compression
                .iter()
                .all(|c| matches!(c, Compression::ZSTD(_)))
        );
    }
    // Nothing else: no temporary files, no stray folders.
    assert_eq!(files(&dir), want_files);
    (dir, done)
}

#[test]
fn every_format_reads_back_with_the_summary_counts_and_log_times() {
    let (dir, done) = check_export(&every_format());
    assert!(done.is_clean());
    std::fs::remove_dir_all(dir).unwrap();
}

/// The column `name` of the first file of table `table` of log `log_id`.
fn column(dir: &Path, table: &str, log_id: &str, name: &str) -> (DataType, RecordBatch) {
    let r = read(&robolog_arrow::parquet::table_path(dir, table, log_id));
    let idx = r
        .schema
        .index_of(name)
        .unwrap_or_else(|_| panic!("{table} has no column {name}: {:?}", r.schema.fields()));
    (
        r.schema.field(idx).data_type().clone(),
        r.batch.project(&[idx]).unwrap(),
    )
}

/// Row `i` of an integer column of any width and sign (the types of
/// channels the format does not declare yet are inferred: `Int64` for a
/// declared `Int32`).
fn int(a: &dyn Array, i: usize) -> i128 {
    match a.data_type() {
        DataType::Int8 => a.as_primitive::<Int8Type>().value(i).into(),
        DataType::Int16 => a.as_primitive::<Int16Type>().value(i).into(),
        DataType::Int32 => a.as_primitive::<Int32Type>().value(i).into(),
        DataType::Int64 => a.as_primitive::<Int64Type>().value(i).into(),
        DataType::UInt8 => a.as_primitive::<UInt8Type>().value(i).into(),
        DataType::UInt16 => a.as_primitive::<UInt16Type>().value(i).into(),
        DataType::UInt32 => a.as_primitive::<UInt32Type>().value(i).into(),
        DataType::UInt64 => a.as_primitive::<UInt64Type>().value(i).into(),
        other => panic!("{other} is no integer type"),
    }
}

/// The elements of row `i` of a list column (a fixed-size list where the
/// format declares the length, a list where the type is inferred).
fn item(a: &dyn Array, i: usize) -> arrow_array::ArrayRef {
    match a.data_type() {
        DataType::FixedSizeList(..) => a.as_fixed_size_list().value(i),
        DataType::List(_) => a.as_list::<i32>().value(i),
        other => panic!("{other} is no list type"),
    }
}

/// Row `i` of a float column of either width.
fn float(a: &dyn Array, i: usize) -> f64 {
    match a.data_type() {
        DataType::Float32 => a.as_primitive::<Float32Type>().value(i).into(),
        DataType::Float64 => a.as_primitive::<Float64Type>().value(i),
        other => panic!("{other} is no float type"),
    }
}

#[test]
fn known_values_of_every_format() {
    // The values `robolog cat --json` prints for the same files.
    let dir = scratch("values");
    export(&every_format(), &dir);

    // rosbag: /count is std_msgs/Int32 counting up from -5.
    let (_, b) = column(&dir, "count", "sample.bag", "data");
    let data = b.column(0);
    assert_eq!(data.len(), 30);
    assert_eq!((int(data, 0), int(data, 1), int(data, 29)), (-5, -4, 24));
    // /point: geometry_msgs/PointStamped, nested structs.
    let (_, b) = column(&dir, "point", "sample.bag", "point");
    let point = b.column(0).as_struct();
    let xyz = ["x", "y", "z"].map(|f| float(point.column_by_name(f).unwrap(), 0));
    assert_eq!(xyz, [0.0, -1.0, 2.25]);
    let (_, b) = column(&dir, "point", "sample.bag", "header");
    let frame = b
        .column(0)
        .as_struct()
        .column_by_name("frame_id")
        .unwrap()
        .clone();
    assert_eq!(frame.as_string::<i32>().value(0), "map");
    let (_, b) = column(&dir, "chatter", "sample.bag", "data");
    assert_eq!(b.column(0).as_string::<i32>().value(0), "hello world 0");
    // The bag's 1.2 version has the same rows.
    let (_, b) = column(&dir, "count", "sample-1.2.bag", "data");
    assert_eq!(int(b.column(0), 0), -5);

    // ULog: vehicle_attitude timestamp (µs) and the quaternion.
    let (t, b) = column(&dir, "vehicle_attitude", "example.ulg", "timestamp");
    assert_eq!(t, DataType::UInt64);
    let ts = b.column(0).as_primitive::<UInt64Type>();
    assert_eq!(ts.values().to_vec(), [1_000_000, 2_000_000, 3_000_000]);
    let (_, b) = column(&dir, "vehicle_attitude", "example.ulg", "q");
    let q0 = item(b.column(0), 0);
    assert_eq!(q0.len(), 4);
    assert_eq!(
        (0..4).map(|i| float(&q0, i)).collect::<Vec<_>>(),
        [1.0, 0.0, 0.0, 0.125]
    );
    assert_eq!(float(&item(b.column(0), 2), 0), 0.25);
    let (t, b) = column(&dir, "vehicle_attitude", "example.ulg", "multi_id");
    assert_eq!(t, DataType::UInt8);
    assert!(
        b.column(0)
            .as_primitive::<UInt8Type>()
            .values()
            .iter()
            .all(|&m| m == 0)
    );

    // MCAP with JSON channels: publish_time and sequence columns.
    let (_, b) = column(&dir, "point", "chunked-zstd.mcap", "y");
    assert_eq!(float(b.column(0), 0), 0.5);
    let (t, _) = column(&dir, "point", "chunked-zstd.mcap", "sequence");
    assert_eq!(t, DataType::UInt32);
    let (t, _) = column(&dir, "point", "chunked-zstd.mcap", "publish_time");
    assert!(matches!(t, DataType::Timestamp(..)));

    // OSI (protobuf): the sensor view configuration's sensor id.
    let osi = "20240101T000000Z_multi_380_3200_10_fixture-zstd.mcap";
    let (_, b) = column(&dir, "svc", osi, "sensor_id");
    let id = b
        .column(0)
        .as_struct()
        .column_by_name("value")
        .unwrap()
        .clone();
    assert_eq!(int(&id, 0), 100);

    // CARLA: the first frame and its duration.
    let (_, b) = column(&dir, "FrameStart", "scene-0.9.13.rec", "frame");
    assert_eq!(int(b.column(0), 0), 1);
    let (_, b) = column(&dir, "FrameStart", "scene-0.9.13.rec", "duration");
    // 0.05 as `cat --json` prints it: a float32 or float64 cell.
    assert!((float(b.column(0), 0) - 0.05).abs() < 1e-7);

    // VEL: OBD speed and engine speed.
    let (_, b) = column(&dir, "OBDDataM", "sensors.vel", "speed_kmh");
    assert_eq!(int(b.column(0), 0), 42);
    let (_, b) = column(&dir, "OBDDataM", "sensors.vel", "engine_rpm");
    assert_eq!(int(b.column(0), 0), 1850);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn existing_outputs_are_refused_without_force_and_replaced_with_it() {
    let dir = scratch("force");
    let input = [testdata("rosbag/sample.bag")];
    export(&input, &dir);
    let count = dir.join("count/log=sample.bag/data.parquet");
    std::fs::write(&count, b"old").unwrap();
    let before = files(&dir);
    let err = export_parquet(&input, &dir, &ParquetOptions::default(), &mut |_| {}).unwrap_err();
    assert!(matches!(err, ExportError::Refused(_)), "{err}");
    // Nothing was written: the planted file is still there, nothing new.
    assert_eq!(std::fs::read(&count).unwrap(), b"old");
    assert_eq!(files(&dir), before);
    // A second input whose outputs are all new does not get written
    // either when one output of the first is refused.
    let two = [testdata("rosbag/sample.bag"), testdata("ulog/example.ulg")];
    assert!(export_parquet(&two, &dir, &ParquetOptions::default(), &mut |_| {}).is_err());
    assert_eq!(files(&dir), before);

    let opts = ParquetOptions {
        export: ExportOptions {
            force: true,
            ..ExportOptions::default()
        },
        ..ParquetOptions::default()
    };
    export_parquet(&input, &dir, &opts, &mut |_| {}).unwrap();
    assert_eq!(read(&count).batch.num_rows(), 30);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn forced_export_removes_the_logs_stale_partitions_and_keeps_other_logs() {
    let dir = scratch("stale");
    let input = [testdata("rosbag/sample.bag")];
    export(&input, &dir);
    let fresh = files(&dir);
    // Partitions an earlier export wrote: of a table sample.bag does not
    // have (a real Parquet file of 30 rows), and of the same table for
    // another log, which must survive.
    let count = dir.join("count/log=sample.bag/data.parquet");
    let stale = dir.join("old_topic/log=sample.bag/data.parquet");
    let other = dir.join("old_topic/log=other.bag/data.parquet");
    for p in [&stale, &other] {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::copy(&count, p).unwrap();
    }
    assert_eq!(read(&stale).batch.num_rows(), 30);

    // A topic selection leaves the other tables' partitions alone.
    let opts = ParquetOptions {
        export: ExportOptions {
            force: true,
            topics: vec!["/count".into()],
            ..ExportOptions::default()
        },
        ..ParquetOptions::default()
    };
    let done = export_parquet(&input, &dir, &opts, &mut |_| {}).unwrap();
    assert!(done.logs[0].removed.is_empty());
    assert_eq!(read(&stale).batch.num_rows(), 30);

    // Without force the existing partitions are refused, nothing removed.
    let err = export_parquet(&input, &dir, &ParquetOptions::default(), &mut |_| {}).unwrap_err();
    assert!(matches!(err, ExportError::Refused(_)), "{err}");
    assert!(stale.is_file());

    let opts = ParquetOptions {
        export: ExportOptions {
            force: true,
            ..ExportOptions::default()
        },
        ..ParquetOptions::default()
    };
    let done = export_parquet(&input, &dir, &opts, &mut |_| {}).unwrap();
    assert_eq!(done.logs[0].removed, std::slice::from_ref(&stale));
    let mut expected = fresh.clone();
    expected.insert("old_topic/log=other.bag/data.parquet".into());
    assert_eq!(files(&dir), expected);
    assert!(!stale.parent().unwrap().exists());
    assert_eq!(read(&other).batch.num_rows(), 30);
    assert_eq!(read(&count).batch.num_rows(), 30);
    let r = read(&dir.join("logs/log=sample.bag/data.parquet"));
    assert_eq!(r.batch.num_rows(), 1);

    // A stale partition that is an input refuses the export.
    let inside = dir.join("old_topic/log=data.parquet");
    std::fs::create_dir_all(&inside).unwrap();
    let log = inside.join("data.parquet");
    std::fs::copy(testdata("rosbag/sample.bag"), &log).unwrap();
    let err = export_parquet(&[&log], &dir, &opts, &mut |_| {}).unwrap_err();
    assert!(
        matches!(
            err,
            ExportError::Refused(robolog::write::Refusal::SameFile { .. })
        ),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&log).unwrap(),
        std::fs::read(testdata("rosbag/sample.bag")).unwrap()
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_input_is_never_written_over() {
    // A log stored where one of its own outputs would go.
    let dir = scratch("input");
    let inside = dir.join("count/log=data.parquet");
    std::fs::create_dir_all(&inside).unwrap();
    let input = inside.join("data.parquet");
    std::fs::copy(testdata("rosbag/sample.bag"), &input).unwrap();
    let opts = ParquetOptions {
        export: ExportOptions {
            force: true,
            ..ExportOptions::default()
        },
        ..ParquetOptions::default()
    };
    let err = export_parquet(&[&input], &dir, &opts, &mut |_| {}).unwrap_err();
    assert!(
        matches!(
            err,
            ExportError::Refused(robolog::write::Refusal::SameFile { .. })
        ),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&input).unwrap(),
        std::fs::read(testdata("rosbag/sample.bag")).unwrap()
    );
    assert_eq!(files(&dir).len(), 1);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn duplicate_file_names_get_numbered_ids_and_names_are_escaped() {
    let dir = scratch("dup");
    let other = scratch("dup-in");
    std::fs::create_dir_all(other.join("b")).unwrap();
    let second = other.join("b/sample.bag");
    std::fs::copy(testdata("rosbag/sample.bag"), &second).unwrap();
    let odd = other.join("run=1:a.bag");
    std::fs::copy(testdata("rosbag/sample.bag"), &odd).unwrap();
    let inputs = [testdata("rosbag/sample.bag"), second.clone(), odd.clone()];
    let done = export(&inputs, &dir);
    let ids: Vec<&str> = done.logs.iter().map(|l| l.log_id.as_str()).collect();
    assert_eq!(ids, ["sample.bag", "sample~2.bag", "run=1:a.bag"]);
    for dirname in ["log=sample.bag", "log=sample~2.bag", "log=run%3D1%3Aa.bag"] {
        let p = dir.join("count").join(dirname).join("data.parquet");
        let r = read(&p);
        assert_eq!(r.batch.num_rows(), 30, "{}", p.display());
    }
    let r = read(&dir.join("logs/log=sample~2.bag/data.parquet"));
    assert_eq!(r.kv["robolog.log"].as_deref(), Some("sample~2.bag"));
    assert_eq!(
        r.batch.column(0).as_string::<i32>().value(0),
        second.to_string_lossy()
    );
    std::fs::remove_dir_all(dir).unwrap();
    std::fs::remove_dir_all(other).unwrap();
}

#[test]
fn topics_select_tables_and_an_unknown_one_writes_nothing() {
    let dir = scratch("topics");
    let inputs = [testdata("rosbag/sample.bag"), testdata("ulog/example.ulg")];
    let opts = ParquetOptions {
        export: ExportOptions {
            topics: vec!["/count".into(), "vehicle_attitude".into()],
            ..ExportOptions::default()
        },
        ..ParquetOptions::default()
    };
    let done = export_parquet(&inputs, &dir, &opts, &mut |_| {}).unwrap();
    assert_eq!(
        files(&dir),
        [
            "count/log=sample.bag/data.parquet",
            "logs/log=example.ulg/data.parquet",
            "logs/log=sample.bag/data.parquet",
            "vehicle_attitude/log=example.ulg/data.parquet",
        ]
        .map(String::from)
        .into()
    );
    assert_eq!(done.rows(), 33);

    let empty = scratch("topics-none");
    let opts = ParquetOptions {
        export: ExportOptions {
            topics: vec!["/count".into(), "/nope".into()],
            ..ExportOptions::default()
        },
        ..ParquetOptions::default()
    };
    let err = export_parquet(&inputs, &empty, &opts, &mut |_| {}).unwrap_err();
    assert!(matches!(&err, ExportError::UnknownTopic { topic, .. } if topic == "/nope"));
    assert!(!empty.exists());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn small_row_groups_and_progress() {
    let dir = scratch("groups");
    let opts = ParquetOptions {
        row_group_rows: 7,
        ..ParquetOptions::default()
    };
    let inputs = [
        testdata("rosbag/sample.bag"),
        testdata("vellog/sensors.vel"),
    ];
    let mut seen = Vec::new();
    let done = export_parquet(&inputs, &dir, &opts, &mut |p| seen.push(p)).unwrap();
    let r = read(&dir.join("count/log=sample.bag/data.parquet"));
    assert_eq!(r.row_groups, 5); // 30 rows, 7 per group
    assert_eq!(r.batch.num_rows(), 30);
    let last = *seen.last().unwrap();
    let total: u64 = inputs
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum();
    assert_eq!((last.bytes, last.total_bytes), (total, total));
    assert_eq!(last.rows, done.rows());
    assert_eq!(done.rows(), 75 + 216);
    assert!(
        seen.windows(2)
            .all(|w| w[0].bytes <= w[1].bytes && w[0].rows <= w[1].rows)
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_input_that_is_no_log_is_left_out() {
    let dir = scratch("unread");
    let inputs = [
        testdata("osi/osi3-minimal.desc"),
        testdata("rosbag/sample.bag"),
    ];
    let done = export(&inputs, &dir);
    assert!(!done.is_clean());
    assert_eq!(done.unread.len(), 1);
    assert_eq!(done.unread[0].path, inputs[0]);
    assert_eq!(done.logs.len(), 1);
    assert_eq!(done.logs[0].log_id, "sample.bag");
    assert_eq!(done.rows(), 75);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn batches_shrink_to_the_batch_bytes() {
    // Progress is reported once per batch written and once per log: the
    // first batch of a table has 16 rows, the next ones as many as fit
    // `batch_bytes` (here: one row each).
    let input = [testdata("rosbag/sample.bag")];
    let calls = |batch_bytes: usize| {
        let dir = scratch("batches");
        let opts = ParquetOptions {
            batch_bytes,
            ..ParquetOptions::default()
        };
        let mut rows = Vec::new();
        export_parquet(&input, &dir, &opts, &mut |p| rows.push(p.rows)).unwrap();
        std::fs::remove_dir_all(dir).unwrap();
        rows
    };
    // chatter (15 rows), count (30), point (30).
    assert_eq!(calls(1 << 20), [15, 31, 45, 61, 75, 75]);
    let small = calls(1);
    assert_eq!(small.len(), 1 + (1 + 14) + (1 + 14) + 1);
    assert_eq!(&small[..3], [15, 31, 32]);
    assert_eq!(*small.last().unwrap(), 75);
}

#[test]
fn damaged_logs_export_what_is_readable() {
    let dir = scratch("damaged");
    let inputs = [
        testdata("rosbag/truncated.bag"),
        testdata("ulog/truncated.ulg"),
    ];
    let done = export(&inputs, &dir);
    assert!(!done.is_clean());
    for (input, log) in inputs.iter().zip(&done.logs) {
        assert!(!log.problems.is_empty(), "{}", input.display());
        let exp = expected(input);
        for t in &log.tables {
            let r = read(&t.path);
            let lt = robolog_arrow::log_time_values(r.batch.column(0)).unwrap();
            assert_eq!(lt.to_vec(), exp[&t.name].1, "{}", t.name);
        }
        assert!(log.logs.as_ref().unwrap().path.is_file());
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// The corpus of real files (`../shared/corpus`), when present: a few
/// files of each format.
#[test]
fn corpus_files_read_back_with_the_summary_counts() {
    let Some(root) = robolog_testkit::corpus("") else {
        return;
    };
    let mut inputs = Vec::new();
    for sub in ["ros2-mcap", "osi-mcap", "carla", "rosbag", "ulog"] {
        let found = robolog_arrow::find_logs(&[root.join(sub)]).unwrap();
        assert!(!found.is_empty(), "{sub}");
        // The smallest few of each: the test runs unoptimised.
        let mut sized: Vec<(u64, PathBuf)> = found
            .into_iter()
            .map(|p| (std::fs::metadata(&p).unwrap().len(), p))
            .collect();
        sized.sort();
        inputs.extend(sized.into_iter().take(3).map(|(_, p)| p));
    }
    let (dir, _) = check_export(&inputs);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A ULog at `path` with one topic `pos` of the fields `format` (after
/// its timestamp), one sample per row of `rows` (the fields' bytes).
fn pos_log(path: &Path, format: &str, rows: &[Vec<u8>]) {
    let mut w = ulogfile::Writer::new(Vec::new(), 1_000).unwrap();
    w.add_format(&format!("pos:uint64_t timestamp;{format}"))
        .unwrap();
    let id = w.add_subscription("pos", 0).unwrap();
    for (i, r) in rows.iter().enumerate() {
        let mut sample = (2_000 + i as u64 * 1_000).to_le_bytes().to_vec();
        sample.extend_from_slice(r);
        w.write_data(id, &sample).unwrap();
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, w.finish().unwrap()).unwrap();
}

/// Two versions of the message `pos`: `a.ulg` (x int32, y float32, on a
/// bool) and `b.ulg` (x int64, z uint8[2], on a uint8: a field that
/// became an enum), two rows and three rows.
fn two_versions(dir: &Path) -> (PathBuf, PathBuf) {
    let (a, b) = (dir.join("in/a.ulg"), dir.join("in/b.ulg"));
    let row_a = |x: i32, y: f32, on: u8| {
        let mut r = x.to_le_bytes().to_vec();
        r.extend_from_slice(&y.to_le_bytes());
        r.push(on);
        r
    };
    pos_log(
        &a,
        "int32_t x;float y;bool on;",
        &[row_a(-7, 1.5, 1), row_a(8, 2.5, 0)],
    );
    let row_b = |x: i64, z: [u8; 2], on: u8| {
        let mut r = x.to_le_bytes().to_vec();
        r.extend_from_slice(&z);
        r.push(on);
        r
    };
    pos_log(
        &b,
        "int64_t x;uint8_t[2] z;uint8_t on;",
        &[
            row_b(1 << 40, [1, 2], 2),
            row_b(-1, [3, 4], 0),
            row_b(5, [5, 6], 1),
        ],
    );
    (a, b)
}

/// The columns of a file as Arrow reads them (name, type, nullable; no
/// metadata) and its Parquet schema, whose equality across a table's
/// files is what DuckDB, Polars and pyarrow require.
fn columns_of(path: &Path) -> (Vec<(String, DataType, bool)>, String) {
    fn plain(t: &DataType) -> DataType {
        match t {
            DataType::Struct(fs) => DataType::Struct(
                fs.iter()
                    .map(|f| {
                        arrow_schema::Field::new(f.name(), plain(f.data_type()), f.is_nullable())
                    })
                    .collect(),
            ),
            DataType::List(f) => DataType::List(std::sync::Arc::new(arrow_schema::Field::new(
                f.name(),
                plain(f.data_type()),
                f.is_nullable(),
            ))),
            DataType::FixedSizeList(f, n) => DataType::FixedSizeList(
                std::sync::Arc::new(arrow_schema::Field::new(
                    f.name(),
                    plain(f.data_type()),
                    f.is_nullable(),
                )),
                *n,
            ),
            t => t.clone(),
        }
    }
    let f = File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let b = ParquetRecordBatchReaderBuilder::try_new(f).unwrap();
    let cols = b
        .schema()
        .fields()
        .iter()
        .map(|f| (f.name().clone(), plain(f.data_type()), f.is_nullable()))
        .collect();
    let descr = format!(
        "{:?}",
        b.metadata().file_metadata().schema_descr().root_schema()
    );
    (cols, descr)
}

/// The column `name` of a file read back (empty when it has none).
fn col(r: &Read, name: &str) -> arrow_array::ArrayRef {
    r.batch
        .column_by_name(name)
        .cloned()
        .unwrap_or_else(|| arrow_array::new_empty_array(&DataType::Null))
}

#[test]
fn logs_of_different_schemas_share_one_schema_per_table() {
    let dir = scratch("widen");
    let (a, b) = two_versions(&dir);
    let out = dir.join("out");
    let done = export(&[a.clone(), b.clone()], &out);
    assert!(done.is_clean(), "{done:?}");
    assert!(done.rewritten.is_empty());
    let fa = out.join("pos/log=a.ulg/data.parquet");
    let fb = out.join("pos/log=b.ulg/data.parquet");
    let (ca, pa) = columns_of(&fa);
    let (cb, pb) = columns_of(&fb);
    assert_eq!(ca, cb);
    assert_eq!(pa, pb);
    let list = DataType::FixedSizeList(
        std::sync::Arc::new(arrow_schema::Field::new("item", DataType::UInt8, false)),
        2,
    );
    // ULog's log_time: a duration since boot.
    let ts = DataType::Duration(arrow_schema::TimeUnit::Nanosecond);
    // The first log's order, then b's new column; x widened, on an
    // integer; y and z nullable, each lacking in one log.
    // (Other columns every table has, such as a UTC time, aside.)
    let message: Vec<_> = ca
        .iter()
        .filter(|c| c.0 == "log_time" || !c.0.starts_with("log_time"))
        .cloned()
        .collect();
    assert_eq!(
        message,
        [
            ("log_time".to_string(), ts, false),
            ("multi_id".to_string(), DataType::UInt8, false),
            ("timestamp".to_string(), DataType::UInt64, true),
            ("x".to_string(), DataType::Int64, true),
            ("y".to_string(), DataType::Float32, true),
            ("on".to_string(), DataType::UInt8, true),
            ("z".to_string(), list, true),
        ]
    );
    let (ra, rb) = (read(&fa), read(&fb));
    assert_eq!((ra.batch.num_rows(), rb.batch.num_rows()), (2, 3));
    let x = |r: &Read| col(r, "x").as_primitive::<Int64Type>().values().to_vec();
    assert_eq!(x(&ra), [-7, 8]);
    assert_eq!(x(&rb), [1 << 40, -1, 5]);
    let y = col(&ra, "y");
    let y = y.as_primitive::<Float32Type>();
    assert_eq!(y.values().to_vec(), [1.5, 2.5]);
    assert_eq!(col(&rb, "y").null_count(), 3);
    let on = |r: &Read| col(r, "on").as_primitive::<UInt8Type>().values().to_vec();
    assert_eq!((on(&ra), on(&rb)), (vec![1, 0], vec![2, 0, 1]));
    assert_eq!(col(&ra, "z").null_count(), 2);
    assert_eq!(item(col(&rb, "z").as_ref(), 1).len(), 2);
    // Each file keeps its own log's metadata.
    assert_eq!(ra.kv["robolog.log"].as_deref(), Some("a.ulg"));
    assert_eq!(rb.kv["robolog.log"].as_deref(), Some("b.ulg"));
    assert!(ra.schema.field(0).metadata().contains_key("robolog.clock"));
    assert_eq!(
        ra.schema
            .metadata()
            .get("robolog.topic")
            .map(String::as_str),
        Some("pos")
    );
    // The logs table too.
    let (la, _) = columns_of(&out.join("logs/log=a.ulg/data.parquet"));
    assert_eq!(la, columns_of(&out.join("logs/log=b.ulg/data.parquet")).0);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_later_export_widens_the_files_there_or_refuses_a_conflict() {
    let dir = scratch("widen-later");
    let (a, b) = two_versions(&dir);
    let out = dir.join("out");
    export(std::slice::from_ref(&a), &out);
    let fa = out.join("pos/log=a.ulg/data.parquet");
    let before = read(&fa);
    let n = before.batch.num_columns();
    assert!(col(&before, "z").is_empty());
    // Adding b (no force needed) rewrites a's file with b's columns.
    let done = export(std::slice::from_ref(&b), &out);
    let rewritten: Vec<(&Path, u64, usize)> = done
        .rewritten
        .iter()
        .map(|t| (t.path.as_path(), t.rows, t.columns))
        .collect();
    assert_eq!(rewritten, [(fa.as_path(), 2, n + 1)]);
    assert_eq!(done.rewritten[0].name, "pos");
    let fb = out.join("pos/log=b.ulg/data.parquet");
    assert_eq!(columns_of(&fa), columns_of(&fb));
    let after = read(&fa);
    assert_eq!(
        col(&after, "x")
            .as_primitive::<Int64Type>()
            .values()
            .to_vec(),
        [-7, 8]
    );
    assert_eq!(
        col(&after, "y")
            .as_primitive::<Float32Type>()
            .values()
            .to_vec(),
        [1.5, 2.5]
    );
    assert_eq!(col(&after, "z").null_count(), 2);
    // Its metadata is a's still; no temporary file is left.
    for k in [
        "robolog.log",
        "robolog.path",
        "robolog.metadata",
        "robolog.type",
    ] {
        assert_eq!(after.kv.get(k), before.kv.get(k), "{k}");
    }
    assert!(!files(&out).iter().any(|f| !f.ends_with("data.parquet")));

    // A log that adds nothing rewrites nothing.
    let c = dir.join("in/c.ulg");
    pos_log(&c, "int16_t x;", &[5i16.to_le_bytes().to_vec()]);
    let done = export(std::slice::from_ref(&c), &out);
    assert!(done.rewritten.is_empty());
    assert_eq!(
        columns_of(&out.join("pos/log=c.ulg/data.parquet")),
        columns_of(&fa)
    );

    // A column whose types nothing holds both of: the table is left out,
    // naming the column, both types and the logs; the files stay.
    let d = dir.join("in/d.ulg");
    pos_log(&d, "float x;", &[1f32.to_le_bytes().to_vec()]);
    let bytes = std::fs::read(&fa).unwrap();
    let done = export(std::slice::from_ref(&d), &out);
    assert!(done.rewritten.is_empty());
    let failed = &done.logs[0].failed;
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].name, "pos");
    let why = failed[0].error.to_string();
    for part in ["column x", "Int64", "Float32", "log d.ulg", "pos/log=a.ulg"] {
        assert!(why.contains(part), "{part:?} in {why}");
    }
    assert!(!out.join("pos/log=d.ulg").exists());
    assert!(out.join("logs/log=d.ulg/data.parquet").is_file());
    assert_eq!(std::fs::read(&fa).unwrap(), bytes);

    // A file of the table that cannot be read refuses the export before
    // anything is written.
    let junk = out.join("pos/log=junk/data.parquet");
    std::fs::create_dir_all(junk.parent().unwrap()).unwrap();
    std::fs::write(&junk, b"not parquet").unwrap();
    let e = dir.join("in/e.ulg");
    pos_log(&e, "int8_t w;", &[vec![1]]);
    let listed = files(&out);
    let err = export_parquet(&[e], &out, &ParquetOptions::default(), &mut |_| {}).unwrap_err();
    let ExportError::Refused(robolog::write::Refusal::NotRewritable { output, reason }) = &err
    else {
        panic!("{err}")
    };
    assert_eq!(output, &junk);
    assert!(reason.contains("table pos"), "{reason}");
    assert_eq!(files(&out), listed);
    std::fs::remove_dir_all(dir).unwrap();
}

/// The whole corpus (`../shared/corpus`, every log the export finds in
/// it) as one dataset: every table's files have the same columns and the
/// same Parquet schema, as DuckDB, Polars and pyarrow need to read them
/// as one table (`cargo xtask export corpus` has them do it), and hold
/// the rows the export reports. The only table left out for types no
/// type holds both of is `/data` of the swri bags (a number in some, an
/// array in the others).
#[test]
fn the_corpus_exports_as_one_schema_per_table() {
    let Some(root) = robolog_testkit::corpus("") else {
        return;
    };
    let (inputs, ids): (Vec<PathBuf>, Vec<String>) = robolog_arrow::find_named_logs(&[&root])
        .unwrap()
        .into_iter()
        .unzip();
    let dir = scratch("corpus-dataset");
    let opts = ParquetOptions {
        log_ids: ids,
        ..ParquetOptions::default()
    };
    let done = export_parquet(&inputs, &dir, &opts, &mut |_| {}).unwrap();
    assert!(done.logs.len() > 100, "{} logs", done.logs.len());
    let mut by_table: BTreeMap<&str, Vec<&robolog::export::ExportedTable>> = BTreeMap::new();
    for log in &done.logs {
        for t in log.tables.iter().chain(&log.logs) {
            by_table.entry(t.name.as_str()).or_default().push(t);
        }
    }
    let mut conflicts = BTreeSet::new();
    for log in &done.logs {
        for f in &log.failed {
            if f.error.to_string().contains("no type holds both") {
                conflicts.insert(f.name.as_str());
                assert!(!by_table.contains_key(f.name.as_str()), "{}", f.name);
            }
        }
    }
    assert_eq!(conflicts, BTreeSet::from(["data"]));
    let mut partitions = 0;
    for (name, written) in &by_table {
        let first = columns_of(&written[0].path);
        for t in written {
            assert_eq!(columns_of(&t.path), first, "{name}: {}", t.path.display());
            let f = File::open(&t.path).unwrap();
            let meta = ParquetRecordBatchReaderBuilder::try_new(f).unwrap();
            let rows = meta.metadata().file_metadata().num_rows();
            assert_eq!(rows as u64, t.rows, "{}", t.path.display());
            partitions += 1;
        }
        // Nothing but the files the export reports in the table's folder.
        assert_eq!(files(&dir.join(name)).len(), written.len(), "{name}");
    }
    assert!(by_table.len() > 200 && partitions > 1_000, "{partitions}");
    std::fs::remove_dir_all(dir).unwrap();
}
