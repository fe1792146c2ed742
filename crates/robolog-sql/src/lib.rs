//! `robolog-sql`: SQL over robotics logs of any format the [`robolog`]
//! facade opens (ROS bags, MCAP, PX4 ULog, CARLA recordings, VEL logs),
//! with [Apache DataFusion](https://datafusion.apache.org).
//!
//! [`register_logs`] finds a set of logs (files, and directories searched
//! recursively) and registers one table per table name across all of them
//! (see [`robolog_arrow::table_name`]: the topic, or the ULog message
//! name), each starting with a `log` column (the log id: the file name of
//! a file given, the path below the folder given of a file found there,
//! `~2` before the extension when taken; a file reached twice is one log),
//! then the columns of [`robolog_arrow`]'s tables
//! (`log_time`, ..., the message fields). Schemas of one table in several
//! logs are merged (the union of the columns; a column must have the same
//! type everywhere, structs merge field by field); rows of a log that lacks
//! a column hold nulls there. The table `logs` has a row per log, and the
//! table `topics` a row per log and topic ([`topics_schema`]: each topic
//! once, its channels counted together, with its types and the name of
//! the table of its messages); no topic's table takes either name (a
//! topic `/topics` is the table `topics_`).
//!
//! A query opens only the logs' tables it names: DataFusion asks the
//! context's schema for each table a statement refers to, and the set
//! opens its logs for that table then (a ULog is read for that table's
//! samples only). Listing the tables (`SHOW TABLES`, `information_schema`,
//! [`LogSet::table_names`]) or asking for `logs` or `topics` opens every
//! log.
//!
//! SQL lower-cases unquoted names, and the tables are named after topics
//! and messages (`Position`): a table name is matched exactly, else
//! ignoring case where that names one table (`FROM Position` reads
//! `Position`; see [`LogSet::resolve_table`]), and [`query`] answers a
//! name that names no table with [`Error::UnknownTable`], naming the
//! closest tables and how to quote them (or [`Error::AmbiguousTable`]).
//!
//! Modules: `set` ([`LogSet`]: the logs, their tables, merged schemas),
//! `kept` (opening logs, and the logs kept open from planning for the
//! scans; on all cores by `logcore::parallel`), `catalog` (the set as a DataFusion
//! schema, [`register_logs`]), `provider` ([`LogTable`], [`LogsTable`]),
//! `exec` ([`LogScanExec`]), `filter` (what scans take from `WHERE`),
//! `schema` (merging and aligning), `progress` ([`ScanProgress`]), `names`
//! (matching names ignoring case, the closest names, [`quoted`]), `select`
//! ([`matching_messages`]: the messages of one topic a `--where` expression
//! of `robolog filter` keeps).
//!
//! Scans are lazy and streaming: logs are spread over DataFusion's target
//! partitions, taken from the logs the set kept open (or opened again)
//! when their partition reaches them, and read a batch
//! at a time, decoding only the columns a query uses. `log_time` ranges go
//! into each format's index; `log = '...'` and `log IN (...)` skip whole
//! logs.
//!
//! SQL over logs only reads: run users' statements through [`query`],
//! which refuses anything but a query (`COPY ... TO` a file, `CREATE
//! [EXTERNAL] TABLE`, `INSERT`, `SET`, ...) with [`Error::NotAQuery`]
//! before DataFusion plans it, and checks the plan again with
//! [`read_only_options`].
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use datafusion::prelude::SessionContext;
//! let ctx = SessionContext::new();
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/ulog");
//! robolog_sql::register_logs(&ctx, &[dir])?;
//! let df = robolog_sql::query(
//!     &ctx,
//!     "SELECT log, count(*) AS n FROM vehicle_attitude GROUP BY log ORDER BY log",
//! )
//! .await?;
//! let batches = df.collect().await?;
//! assert!(batches.iter().map(|b| b.num_rows()).sum::<usize>() >= 1);
//! # Ok(())
//! # }
//! ```

pub mod align;
#[cfg(feature = "ballista")]
pub mod ballista;
mod catalog;
mod discover;
mod exec;
mod filter;
mod kept;
mod names;
pub mod output;
mod progress;
mod provider;
mod read_only;
mod schema;
mod select;
mod set;

use std::path::PathBuf;

pub use catalog::register_logs;
pub use discover::{find_logs, find_named_logs, log_ids};
pub use exec::LogScanExec;
pub use names::{MAX_CLOSEST, quoted};
pub use progress::{LostRecords, ScanProgress, UndecodedRows};
pub use provider::{LogTable, LogsTable, logs_schema, topics_schema};
pub use read_only::{
    QUERY_STATEMENTS, check_read_only, plan_error, query, read_only_options, session,
};
pub use schema::LOG;
pub use select::{Where, WhereError, matching_messages, prepare_where};
pub use set::{LOGS, LogRef, LogSet, TOPICS};

/// What can go wrong opening, merging or scanning logs.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A path given could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// No log under the paths given.
    #[error("no log files found")]
    NoLogs,
    /// A log did not open, or its summary could not be read.
    #[error("{}: {source}", path.display())]
    Open {
        /// The log.
        path: PathBuf,
        /// What went wrong.
        source: logcore::Error,
    },
    /// A log's tables could not be built or read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The log.
        path: PathBuf,
        /// What went wrong.
        source: robolog_arrow::Error,
    },
    /// A column of a table has another type in this log than in the logs
    /// before it.
    #[error(
        "{}: table {table}: column {column} does not merge with the other logs: {reason}",
        path.display()
    )]
    Merge {
        /// The log whose table does not merge.
        path: PathBuf,
        /// The table.
        table: String,
        /// The column (`a.b` for a field of a struct column).
        column: String,
        /// The two types.
        reason: String,
    },
    /// A log's batch did not fit the merged schema (a bug if it happens).
    #[error("{}: table {table}: {source}", path.display())]
    Align {
        /// The log.
        path: PathBuf,
        /// The table.
        table: String,
        /// What Arrow said.
        source: arrow_schema::ArrowError,
    },
    /// A statement that is not a query (`COPY`, `CREATE TABLE`, `INSERT`,
    /// `SET`, ...): SQL over logs only reads (see [`query`]).
    #[error(
        "{statement} is refused: SQL over logs only reads (allowed: {})",
        QUERY_STATEMENTS
    )]
    NotAQuery {
        /// The statement's first words (`COPY`, `CREATE TABLE`, ...).
        statement: String,
    },
    /// A table name that names no table, exactly or ignoring case (see
    /// [`LogSet::resolve_table`] and [`query`]): the text names the
    /// closest tables there are, and how to quote them.
    #[error("{}", names::unknown_table(.table, .closest))]
    UnknownTable {
        /// The name asked for (as SQL gives it: lower case unless quoted).
        table: String,
        /// The closest names there are, best first (at most
        /// [`MAX_CLOSEST`]): the same letters ignoring case and
        /// punctuation, names containing it, a typo or two away. Empty
        /// when none is close.
        closest: Vec<String>,
    },
    /// A table name that names no table exactly but several ignoring case
    /// (the table `logs` and a topic's table `LOGS`, say): the text lists
    /// them, and how to quote each.
    #[error("{}", names::ambiguous_table(.table, .candidates))]
    AmbiguousTable {
        /// The name asked for.
        table: String,
        /// The tables whose names differ from it only in case, sorted.
        candidates: Vec<String>,
    },
    /// DataFusion refused a table.
    #[error(transparent)]
    DataFusion(#[from] datafusion::error::DataFusionError),
}

impl Error {
    /// The error of the log a DataFusion error came from (a scan's, or
    /// opening a table's logs while planning), if it came from one.
    pub fn of(e: &datafusion::error::DataFusionError) -> Option<&Error> {
        match e.find_root() {
            datafusion::error::DataFusionError::External(inner) => inner.downcast_ref::<Error>(),
            _ => None,
        }
    }
}

/// `e` as DataFusion carries it ([`Error::of`] finds it again).
pub(crate) fn external(e: Error) -> datafusion::error::DataFusionError {
    datafusion::error::DataFusionError::External(Box::new(e))
}

/// The README's examples, compiled and run as doc-tests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
