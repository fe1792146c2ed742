//! Every table of every log in the repository's testdata and in the corpus
//! beside the checkout scans to typed batches: as many rows as the log's
//! summary counts messages, the log times of the messages, and declared
//! (not inferred) types wherever the format has definitions.

use std::path::PathBuf;

use arrow_array::RecordBatch;
use logcore::{LogReader, MessageFilter, ReadMode};
use robolog_arrow::{ScanOptions, scan};

fn logs() -> Vec<PathBuf> {
    let mut out = robolog_testkit::all_files(&robolog_testkit::workspace_root().join("testdata"));
    out.extend(robolog_testkit::all_files(&robolog_testkit::corpus_root()));
    out.retain(|p| robolog::open(p).is_ok());
    out.sort();
    out
}

#[test]
fn every_table_of_every_log_scans() {
    let files = logs();
    assert!(files.len() >= 10, "testdata missing: {files:?}");
    let (mut n_tables, mut n_rows, mut inferred) = (0, 0u64, Vec::new());
    let mut failures = Vec::new();
    for path in &files {
        let log = robolog::open(path).expect("opens");
        let Ok(summary) = log.summary() else { continue };
        // Damaged files (the corpus holds some on purpose) are scanned too,
        // leniently; their counts are compared only when intact.
        let intact = summary.warnings.is_empty();
        let ts = match robolog_arrow::tables_with_summary(&log, &summary) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{}: tables: {e}", path.display()));
                continue;
            }
        };
        for t in &ts {
            if t.inferred && !matches!(log.format(), logcore::Format::Mcap) {
                inferred.push(format!("{}: {}", path.display(), t.name));
            }
            let batches: Result<Vec<RecordBatch>, _> =
                scan(&log, t, &ScanOptions::default()).and_then(|r| r.collect());
            let batches = match batches {
                Ok(b) => b,
                Err(e) => {
                    failures.push(format!("{}: {}: {e}", path.display(), t.name));
                    continue;
                }
            };
            let times: Vec<i64> = batches
                .iter()
                .flat_map(|b| {
                    robolog_arrow::log_time_values(b.column(0))
                        .unwrap()
                        .to_vec()
                })
                .collect();
            n_tables += 1;
            n_rows += times.len() as u64;
            if intact {
                let filter = MessageFilter::all()
                    .channels(t.channels.iter().map(|c| c.id))
                    .mode(ReadMode::Lenient);
                let want: Vec<i64> = log
                    .messages(&filter)
                    .expect("messages")
                    .filter_map(Result::ok)
                    .filter(|m| log.decode(m).is_ok())
                    .map(|m| m.log_time.as_nanos())
                    .collect();
                if times != want {
                    failures.push(format!(
                        "{}: {}: {} rows where {} messages decode",
                        path.display(),
                        t.name,
                        times.len(),
                        want.len()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        inferred.is_empty(),
        "types inferred where the format declares them: {inferred:?}"
    );
    eprintln!("{} logs, {n_tables} tables, {n_rows} rows", files.len());
}
