//! `log_time_utc`, the second column of every table: `log_time` in UTC
//! where the log has UTC instants, null where it has none. Checked against
//! values computed here from the logs themselves: a ULog's offset from its
//! GPS topic's `time_utc_usec` against that sample's `timestamp`, a bag's
//! log times, the `logs` table's `start_utc`.

use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{TimestampNanosecondType, UInt64Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use logcore::LogReader;
use robolog_arrow::{LOG_TIME_UTC, LogRow, ScanOptions, Table, scan, tables_with_summary};

/// 2000-01-01 in µs: GPS times before it are not dates (no fix yet).
const YEAR_2000_US: u64 = 946_684_800_000_000;

/// Every row of `table` of `log`, all columns.
fn rows(log: &robolog::Log<'_>, table: &Table) -> Vec<RecordBatch> {
    scan(log, table, &ScanOptions::default())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// `(log_time, log_time_utc)` of every row of `batches`.
fn times(batches: &[RecordBatch]) -> Vec<(i64, Option<i64>)> {
    let mut out = Vec::new();
    for b in batches {
        assert_eq!(b.schema().field(1).name(), LOG_TIME_UTC);
        assert_eq!(
            b.schema().field(1).data_type(),
            &DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into()))
        );
        let t = robolog_arrow::log_time_values(b.column(0)).unwrap();
        let u = b.column(1).as_primitive::<TimestampNanosecondType>();
        for (i, &t) in t.iter().enumerate() {
            out.push((t, u.is_valid(i).then(|| u.value(i))));
        }
    }
    out
}

/// The UTC offset (ns) of a ULog computed from its GPS topic: the first
/// sample of `vehicle_gps_position` (else `sensor_gps`) whose
/// `time_utc_usec` is a date, that minus the sample's own `timestamp`;
/// `None` without such a sample.
fn gps_offset(log: &robolog::Log<'_>, tables: &[Table]) -> Option<i64> {
    for topic in ["vehicle_gps_position", "sensor_gps"] {
        let Some(t) = tables.iter().find(|t| t.name == topic) else {
            continue;
        };
        let opts = ScanOptions {
            projection: Some(vec![
                "multi_id".into(),
                "timestamp".into(),
                "time_utc_usec".into(),
            ]),
            ..ScanOptions::default()
        };
        let Ok(reader) = scan(log, t, &opts) else {
            continue;
        };
        for b in reader {
            let b = b.unwrap();
            let multi = b.column(0).as_primitive::<arrow_array::types::UInt8Type>();
            let stamp = b.column(1).as_primitive::<UInt64Type>();
            let utc = b.column(2).as_primitive::<UInt64Type>();
            for i in 0..b.num_rows() {
                if multi.value(i) == 0 && utc.is_valid(i) && utc.value(i) > YEAR_2000_US {
                    let d = i128::from(utc.value(i)) - i128::from(stamp.value(i));
                    return Some(i64::try_from(d * 1000).unwrap());
                }
            }
        }
    }
    None
}

fn corpus_ulogs() -> Vec<PathBuf> {
    let root = robolog_testkit::corpus_root().join("ulog");
    let mut out = robolog_testkit::files_with_ext(&root, &["ulg"]);
    out.sort();
    out
}

#[test]
fn a_gps_anchored_ulog_has_log_time_plus_the_gps_offset() {
    let (mut anchored, mut first_seen) = (Vec::new(), 0);
    for path in corpus_ulogs() {
        let log = robolog::open(&path).unwrap();
        let summary = log.summary().unwrap();
        let tables = tables_with_summary(&log, &summary).unwrap();
        let Some(offset) = gps_offset(&log, &tables) else {
            continue;
        };
        if summary.time_model.anchor.map(|a| a.source) != Some("GPS time_utc_usec") {
            continue;
        }
        let row = LogRow::new(&summary, &path.to_string_lossy());
        let start = summary.start.unwrap().as_nanos();
        assert_eq!(row.start_utc, Some(start + offset), "{}", path.display());
        for t in &tables {
            let all = times(&rows(&log, t));
            assert_eq!(all.len() as u64, t.message_count, "{}", t.name);
            for &(lt, utc) in &all {
                assert_eq!(utc, Some(lt + offset), "{}: {}", path.display(), t.name);
            }
            // The table holding the log's first message starts at the
            // `logs` table's start_utc.
            if all.first().map(|r| r.0) == Some(start) {
                assert_eq!(all[0].1, row.start_utc, "{}", t.name);
                first_seen += 1;
            }
        }
        anchored.push(path);
    }
    assert!(
        anchored.len() >= 3,
        "corpus ULogs with GPS time missing: {anchored:?}"
    );
    // (A log may start with a message that is no table's row: a logged
    // string, a dropout.)
    assert!(first_seen >= 2, "{first_seen}");
}

#[test]
fn a_ulog_without_an_anchor_has_null_utc_times() {
    let mut seen = 0;
    for path in corpus_ulogs() {
        let log = robolog::open(&path).unwrap();
        let summary = log.summary().unwrap();
        if summary.time_model.anchor.is_some() {
            continue;
        }
        let tables = tables_with_summary(&log, &summary).unwrap();
        assert!(gps_offset(&log, &tables).is_none(), "{}", path.display());
        for t in &tables {
            assert!(!t.has_utc());
            for b in rows(&log, t) {
                assert_eq!(b.column(1).null_count(), b.num_rows(), "{}", t.name);
            }
        }
        seen += 1;
    }
    assert!(seen >= 1, "no corpus ULog without GPS time");
}

/// A table's name and its rows' `(log_time, log_time_utc)`.
type TableTimes = (String, Vec<(i64, Option<i64>)>);

/// The tables of the log at `path` with their rows' times.
fn log_times(path: &Path) -> Vec<TableTimes> {
    let log = robolog::open(path).unwrap();
    let summary = log.summary().unwrap();
    tables_with_summary(&log, &summary)
        .unwrap()
        .iter()
        .map(|t| (t.name.clone(), times(&rows(&log, t))))
        .collect()
}

#[test]
fn a_bag_on_a_utc_clock_has_its_log_times() {
    let bag = robolog_testkit::workspace_root().join("testdata/rosbag/sample.bag");
    let mut n = 0;
    for (name, rows) in log_times(&bag) {
        for (lt, utc) in rows {
            assert_eq!(utc, Some(lt), "{name}");
            n += 1;
        }
    }
    assert!(n > 0);
    for bag in
        robolog_testkit::files_with_ext(&robolog_testkit::corpus_root().join("rosbag"), &["bag"])
            .into_iter()
            .take(3)
    {
        let log = robolog::open(&bag).unwrap();
        let summary = log.summary().unwrap();
        let kind = logcore::clock::ClockKind::of(&summary);
        for (name, rows) in log_times(&bag) {
            for (lt, utc) in rows {
                let want = (kind == logcore::clock::ClockKind::Utc).then_some(lt);
                assert_eq!(utc, want, "{}: {name}", bag.display());
            }
        }
    }
}

#[test]
fn a_carla_recording_is_anchored_by_its_header_date() {
    let dir = robolog_testkit::corpus_root().join("carla");
    let logs = robolog_testkit::files_with_ext(&dir, &["log"]);
    assert!(!logs.is_empty(), "corpus CARLA logs missing");
    for path in logs {
        // The info header's date (seconds since 1970, after the version
        // and the 16 bytes of the magic string), the recording's start.
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[4..18], b"CARLA_RECORDER");
        let date = i64::from_le_bytes(bytes[18..26].try_into().unwrap());
        let header_utc = date * 1_000_000_000;
        let tables = log_times(&path);
        assert!(!tables.is_empty());
        for (name, rows) in tables {
            for (lt, utc) in rows {
                assert_eq!(utc, Some(lt + header_utc), "{}: {name}", path.display());
            }
        }
    }
}

#[test]
fn a_scan_computes_log_time_utc_only_when_asked() {
    let path = corpus_ulogs()
        .into_iter()
        .find(|p| p.ends_with("sample_log_small.ulg"))
        .expect("pyulog's sample_log_small.ulg in the corpus");
    let log = robolog::open(&path).unwrap();
    let summary = log.summary().unwrap();
    let tables = tables_with_summary(&log, &summary).unwrap();
    let t = tables
        .iter()
        .find(|t| t.name == "vehicle_attitude")
        .unwrap();
    let only = |cols: &[&str]| -> Vec<RecordBatch> {
        let opts = ScanOptions {
            projection: Some(cols.iter().map(|c| c.to_string()).collect()),
            ..ScanOptions::default()
        };
        scan(&log, t, &opts)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let without = only(&["log_time", "q"]);
    assert_eq!(without[0].schema().fields().len(), 2);
    assert!(without[0].schema().index_of(LOG_TIME_UTC).is_err());
    // Alone, and on the general (decoding) path: the same values.
    let alone = only(&[LOG_TIME_UTC]);
    let utc: Vec<Option<i64>> = alone
        .iter()
        .flat_map(|b| b.column(0).as_primitive::<TimestampNanosecondType>().iter())
        .collect();
    let general: Vec<RecordBatch> = scan(
        &log,
        t,
        &ScanOptions {
            typed_columns: false,
            ..ScanOptions::default()
        },
    )
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap();
    let want: Vec<Option<i64>> = times(&general).into_iter().map(|r| r.1).collect();
    assert_eq!(utc, want);
    assert!(utc.iter().all(Option::is_some));
    assert_eq!(
        utc[0],
        t.to_utc(logcore::Timestamp::from_nanos(times(&general)[0].0))
            .map(logcore::Timestamp::as_nanos)
    );
}
