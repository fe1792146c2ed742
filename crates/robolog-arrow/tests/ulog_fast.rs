//! The ULog fast path (typed column readers) gives exactly the batches of
//! the general path (a decoded value per message) over every ULog file of
//! the repository's testdata and of the corpus beside the checkout.

use std::path::PathBuf;

use arrow_array::RecordBatch;
use logcore::{Timestamp, ValueType};
use robolog_arrow::{ScanOptions, scan, tables};

fn ulog_files() -> Vec<PathBuf> {
    let root = robolog_testkit::workspace_root();
    let mut out = robolog_testkit::files_with_ext(&root.join("testdata/ulog"), &["ulg"]);
    out.extend(robolog_testkit::files_with_ext(
        &robolog_testkit::corpus_root().join("ulog"),
        &["ulg"],
    ));
    out.sort();
    out
}

fn concat(batches: Vec<RecordBatch>) -> Option<RecordBatch> {
    let schema = batches.first()?.schema();
    Some(arrow_select::concat::concat_batches(&schema, &batches).expect("same schema"))
}

/// The log times of every message of the table, as the reader yields them.
fn log_times(log: &robolog::Log<'_>, t: &robolog_arrow::Table) -> Vec<i64> {
    use logcore::{LogReader, MessageFilter};
    let filter = MessageFilter::all().channels(t.channels.iter().map(|c| c.id));
    log.messages(&filter)
        .expect("messages")
        .filter_map(Result::ok)
        .map(|m| m.log_time.as_nanos())
        .collect()
}

#[test]
fn typed_columns_equal_decoded_values() {
    let files = ulog_files();
    assert!(files.len() >= 3, "the testdata ULog files are missing");
    let (mut fast_tables, mut rows, mut array_tables) = (0usize, 0usize, 0usize);
    for path in &files {
        let log = robolog::open(path).expect("opens");
        for t in tables(&log).expect("tables") {
            let has_array = matches!(&t.value_type, ValueType::Struct(fields)
                if fields.iter().any(|f| matches!(&f.ty, ValueType::FixedArray(e, _)
                    if matches!(**e, ValueType::F32 | ValueType::F64 | ValueType::U8 | ValueType::I32))));
            let scalar: Vec<String> = match &t.value_type {
                ValueType::Struct(fields) => fields
                    .iter()
                    .filter(|f| match &f.ty {
                        // Fixed arrays of numbers take the fast path too.
                        ValueType::FixedArray(e, _) => !matches!(
                            **e,
                            ValueType::Struct(_)
                                | ValueType::List(_)
                                | ValueType::FixedArray(..)
                                | ValueType::String
                                | ValueType::Bytes
                                | ValueType::Any
                                | ValueType::Bool
                        ),
                        ty => !matches!(
                            ty,
                            ValueType::Struct(_)
                                | ValueType::List(_)
                                | ValueType::String
                                | ValueType::Bytes
                                | ValueType::Any
                        ),
                    })
                    .map(|f| f.name.to_string())
                    .collect(),
                _ => continue,
            };
            let mut projection = vec!["log_time".to_string(), "multi_id".to_string()];
            projection.extend(scalar);
            // A window inside the log, to check the time filter too: from
            // the log time of the table's quarter mark to (before) that of
            // its middle message.
            let times = log_times(&log, &t);
            let window = if times.is_empty() {
                (None, None)
            } else {
                let at = |i: usize| Some(Timestamp::from_nanos(times[i]));
                (at(times.len() / 4), at(times.len() / 2))
            };
            for ((start, end), batch_size) in [((None, None), 8192), (window, 7)] {
                let opts = |typed| ScanOptions {
                    projection: Some(projection.clone()),
                    start,
                    end,
                    batch_size,
                    typed_columns: typed,
                    ..ScanOptions::default()
                };
                let fast = scan(&log, &t, &opts(true)).expect("scan");
                let took_fast = fast.typed_columns();
                let fast: Vec<RecordBatch> = fast.collect::<Result<_, _>>().expect("fast rows");
                let slow: Vec<RecordBatch> = scan(&log, &t, &opts(false))
                    .expect("scan")
                    .collect::<Result<_, _>>()
                    .expect("decoded rows");
                let n: usize = slow.iter().map(RecordBatch::num_rows).sum();
                let (lo, hi) = (
                    start.map_or(i64::MIN, |s| s.as_nanos()),
                    end.map_or(i64::MAX, |e| e.as_nanos()),
                );
                let want = times.iter().filter(|&&x| x >= lo && x < hi).count();
                assert_eq!(
                    n,
                    want,
                    "{}: {}: rows in [start, end)",
                    path.display(),
                    t.name
                );
                assert_eq!(
                    fast.iter().map(RecordBatch::num_rows).sum::<usize>(),
                    n,
                    "{}: {}",
                    path.display(),
                    t.name
                );
                assert_eq!(concat(fast), concat(slow), "{}: {}", path.display(), t.name);
                if took_fast {
                    fast_tables += 1;
                    rows += n;
                    if has_array && n > 0 {
                        array_tables += 1;
                    }
                }
            }
        }
    }
    assert!(fast_tables > 0, "no table took the fast path");
    assert!(
        array_tables > 0,
        "no table with fixed arrays of numbers took the fast path"
    );
    eprintln!(
        "{fast_tables} table scans over {rows} rows equal through both paths \
         ({array_tables} with fixed arrays)"
    );
}
