//! What the scans of a set's tables report as they read: bytes, rows and
//! the messages that did not decode.

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
