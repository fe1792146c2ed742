//! What the scans of a set's tables report as they read: bytes, rows, the
//! messages that did not decode and the records that could not be read.

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Counters a query's scans update as they read, for a progress display.
#[derive(Debug, Default)]
pub struct ScanProgress {
    bytes_total: AtomicU64,
    bytes_done: AtomicU64,
    rows: AtomicU64,
    undecoded: Mutex<Vec<UndecodedRows>>,
    lost: Mutex<Vec<LostRecords>>,
}

/// Messages of one table of one log that did not decode in a scan: each
/// is a row whose message columns are null (see
/// [`robolog_arrow::ScanOptions::lenient`]), so a query's rows do not
/// depend on the columns it selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndecodedRows {
    /// The log.
    pub path: PathBuf,
    /// The table.
    pub table: String,
    /// How many messages did not decode.
    pub count: u64,
    /// The first of them.
    pub first: Option<robolog_arrow::Undecoded>,
}

/// Records of one log that a scan of one of its tables could not read: a
/// damaged record the scan skipped, or what the reader lost when opening
/// the log (a truncation, damaged bytes skipped: see
/// [`LogSet::lost_records`](crate::LogSet::lost_records)). The messages
/// they held are not rows of the answer, so it may lack rows of the
/// table.
#[derive(Debug, Clone, PartialEq)]
pub struct LostRecords {
    /// The log.
    pub path: PathBuf,
    /// The table scanned.
    pub table: String,
    /// How many records (by their byte offsets, each once; at least one).
    pub count: u64,
    /// The byte offset of the first of them, when known.
    pub offset: Option<u64>,
    /// What the reader said of the first of them, when it said it (a
    /// damaged record met by a scan is only counted).
    pub first: Option<logcore::Error>,
}

impl ScanProgress {
    /// Bytes of the logs the scans started so far will read (each log
    /// counts once per table scanned).
    pub fn bytes_total(&self) -> u64 {
        self.bytes_total.load(Ordering::Relaxed)
    }

    /// Bytes of the logs whose scan is complete.
    pub fn bytes_done(&self) -> u64 {
        self.bytes_done.load(Ordering::Relaxed)
    }

    /// Rows produced so far.
    pub fn rows(&self) -> u64 {
        self.rows.load(Ordering::Relaxed)
    }

    /// The messages that did not decode in the scans so far, per log and
    /// table (a log scanned twice for a table counts in each scan).
    pub fn undecoded(&self) -> Vec<UndecodedRows> {
        self.undecoded.lock().map(|u| u.clone()).unwrap_or_default()
    }

    /// The records the scans so far could not read, per log and table (a
    /// table scanned twice in a log counts what the scan that met the
    /// most did).
    pub fn lost(&self) -> Vec<LostRecords> {
        self.lost.lock().map(|u| u.clone()).unwrap_or_default()
    }

    /// Records of a table of a log that a scan could not read.
    pub(crate) fn note_lost(&self, records: LostRecords) {
        if let Ok(mut all) = self.lost.lock() {
            match all
                .iter_mut()
                .find(|x| x.path == records.path && x.table == records.table)
            {
                Some(x) if x.count < records.count => *x = records,
                Some(_) => {}
                None => all.push(records),
            }
        }
    }

    /// A scan starts that reads `bytes` of logs.
    pub(crate) fn started(&self, bytes: u64) {
        self.bytes_total.fetch_add(bytes, Ordering::Relaxed);
    }

    /// A scan is done with a log of `bytes`.
    pub(crate) fn read(&self, bytes: u64) {
        self.bytes_done.fetch_add(bytes, Ordering::Relaxed);
    }

    /// A scan produced `rows` rows.
    pub(crate) fn produced(&self, rows: u64) {
        self.rows.fetch_add(rows, Ordering::Relaxed);
    }

    /// Messages of a table of a log that did not decode.
    pub(crate) fn note_undecoded(&self, rows: UndecodedRows) {
        if let Ok(mut u) = self.undecoded.lock() {
            match u
                .iter_mut()
                .find(|x| x.path == rows.path && x.table == rows.table)
            {
                Some(x) => {
                    x.count += rows.count;
                    x.first = x.first.take().or(rows.first);
                }
                None => u.push(rows),
            }
        }
    }
}
