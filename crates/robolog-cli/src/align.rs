//! Topics on one time base (see `robolog_arrow::align`), written as one
//! table: `robolog export LOG --align /imu,/odom [--rate 50 | --on /imu]
//! -o out.csv|out.parquet` and `robolog ulog csv LOG --single`.
//!
//! CSV cells: times and durations as integer ns (the CSV dialect of every
//! robolog CSV), numbers as the shortest text that reads back to the
//! same value, an empty cell for null, lists and other values as their
//! Arrow text, quoted where they hold the delimiter, a quote or a line
//! break.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    DurationNanosecondType, Float32Type, Float64Type, TimestampNanosecondType,
};
use arrow_array::{Array, RecordBatch};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::{ArrowError, DataType, TimeUnit};
use clap::Args;
use logcore::{LogReader, Timestamp};
use robolog::Log;
use robolog::write::OutputPolicy;
use robolog_arrow::align::{self, AlignInput, AlignOptions, Method, Rows};
use robolog_arrow::{ScanOptions, TableRead};

use crate::context::Context;
use crate::timearg::TimeRangeArgs;
use crate::{Failure, Outcome, output, write};

/// How topics are aligned: the options `export --align` and
/// `ulog csv --single` share.
#[derive(Debug, Args, Default)]
pub(crate) struct AlignArgs {
    /// With --align/--single: one row every 1/HZ s (`50`, `50hz`, or a
    /// period such as `20ms`) from the first sample of any topic to the
    /// last.
    #[arg(long, value_name = "HZ", conflicts_with = "on")]
    pub(crate) rate: Option<String>,
    /// With --align/--single: one row per message of this topic (its name
    /// or topic), at its times.
    #[arg(long, value_name = "TOPIC")]
    pub(crate) on: Option<String>,
    /// With --align/--single: how each column is taken at a row's time:
    /// `previous` (the last sample at or before it, the default),
    /// `nearest` (the closest, the earlier on a tie) or `linear` (numbers
    /// interpolated between the samples either side; other columns take
    /// previous). `NAME=METHOD` for one topic (`imu=linear`) or one column
    /// (`imu.angular_velocity.x=nearest`); repeat or separate with commas.
    #[arg(long, value_name = "METHOD", value_delimiter = ',')]
    pub(crate) method: Vec<String>,
    /// With --align/--single: the farthest a sample may be from a row's
    /// time to be taken (`20ms`, `0.5s`, `100us`); farther cells are empty.
    #[arg(long, value_name = "DURATION")]
    pub(crate) tolerance: Option<String>,
}

impl AlignArgs {
    /// Whether any option is given (they need --align or --single).
    pub(crate) fn any(&self) -> bool {
        self.rate.is_some()
            || self.on.is_some()
            || !self.method.is_empty()
            || self.tolerance.is_some()
    }

    /// The options of the arguments; rows on `default_on` when neither
    /// `--rate` nor `--on` is given (or on a grid of `default_rate`).
    fn options(
        &self,
        path: &Path,
        default_on: Option<&str>,
        default_rate: Option<&str>,
    ) -> Result<AlignOptions, Failure> {
        let usage = |e: robolog_arrow::Error| Failure::usage(path, e.to_string());
        let rows = match (
            self.rate.as_deref(),
            self.on.as_deref(),
            default_on,
            default_rate,
        ) {
            (Some(r), _, _, _) | (None, None, None, Some(r)) => Rows::Every {
                period_ns: align::parse_rate(r).map_err(usage)?,
            },
            (None, Some(on), _, _) | (None, None, Some(on), _) => Rows::On(on.to_string()),
            (None, None, None, None) => {
                return Err(Failure::usage(path, "give --rate HZ or --on TOPIC"));
            }
        };
        let mut opts = AlignOptions::new(rows);
        for m in &self.method {
            match m.split_once('=') {
                Some((key, m)) => opts
                    .methods
                    .push((key.trim().to_string(), m.parse().map_err(usage)?)),
                None => opts.method = m.parse::<Method>().map_err(usage)?,
            }
        }
        if let Some(t) = &self.tolerance {
            let ns = logcore::timearg::parse_duration(t).filter(|&ns| ns >= 0);
            opts.tolerance = Some(ns.ok_or_else(|| {
                Failure::usage(
                    path,
                    format!("--tolerance {t:?}: expected a duration such as 20ms, 0.5s or 100us"),
                )
            })?);
        }
        Ok(opts)
    }
}

/// The topics `--align` names: `NAME=TOPIC` or `TOPIC` (named by the
/// topic without its leading `/`).
fn named(specs: &[String]) -> Vec<(String, String)> {
    specs
        .iter()
        .map(|s| match s.split_once('=') {
            Some((name, topic)) => (name.trim().to_string(), topic.trim().to_string()),
            None => (default_name(s), s.trim().to_string()),
        })
        .collect()
}

/// The name of a topic aligned without one: the topic without its
/// leading `/`.
pub(crate) fn default_name(topic: &str) -> String {
    let t = topic.trim();
    t.strip_prefix('/').unwrap_or(t).to_string()
}

/// Reads the topics `pairs` names (name, topic) of `log` at once, one
/// thread per topic, reporting what reading met. Stops on the first
/// error.
fn read_inputs(
    ctx: &Context,
    path: &Path,
    log: &Log<'_>,
    pairs: &[(String, String)],
    scan: &ScanOptions,
) -> Result<(Vec<AlignInput>, Outcome), Failure> {
    let summary = log.summary().map_err(|e| Failure::new(path, e))?;
    let read: Vec<Result<(AlignInput, TableRead), robolog_arrow::Error>> =
        std::thread::scope(|s| {
            let handles: Vec<_> = pairs
                .iter()
                .map(|(name, topic)| {
                    let summary = &summary;
                    s.spawn(move || align::read_input(log, summary, name, topic, scan))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(robolog_arrow::Error::Align(
                            "reading a topic failed unexpectedly".into(),
                        ))
                    })
                })
                .collect()
        });
    let mut inputs = Vec::with_capacity(read.len());
    let mut outcome = Outcome::Clean;
    for r in read {
        let (input, read) = r.map_err(|e| match e {
            robolog_arrow::Error::NoTopic { topic } => {
                let topics = summary.topics();
                crate::topics::unknown_in(
                    "--align",
                    path,
                    &topic,
                    topics.iter().map(|t| t.topic.as_str()),
                    crate::topics::Scope::Log,
                )
            }
            e => Failure::new(path, e),
        })?;
        if read.skipped > 0 {
            ctx.report(
                path,
                format_args!(
                    "topic {}: {} damaged record{} left out",
                    input.name,
                    read.skipped,
                    if read.skipped == 1 { "" } else { "s" }
                ),
            );
            outcome = Outcome::Damaged;
        }
        if let Some(u) = &read.first_undecoded {
            ctx.report(
                path,
                format_args!(
                    "topic {}: {} message{} did not decode (empty cells); the first at byte offset {}: {}",
                    input.name,
                    read.undecoded,
                    if read.undecoded == 1 { "" } else { "s" },
                    u.offset,
                    u.reason
                ),
            );
            outcome = Outcome::Damaged;
        }
        inputs.push(input);
    }
    Ok((inputs, outcome))
}

/// `robolog export LOG --align TOPICS -o FILE`: the topics aligned, as
/// CSV or Parquet by FILE's extension.
pub(crate) fn run_export(
    ctx: &Context,
    path: &Path,
    specs: &[String],
    args: &AlignArgs,
    times: &TimeRangeArgs,
    dest: &Path,
    force: bool,
) -> Result<Outcome, Failure> {
    let format = match dest.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("csv") => Kind::Csv,
        Some(e) if e.eq_ignore_ascii_case("parquet") => Kind::Parquet,
        _ => {
            return Err(Failure::usage(
                dest,
                "with --align, -o is the file to write: a name ending in .csv or .parquet",
            ));
        }
    };
    let pairs = named(specs);
    let first = pairs.first().map(|(name, _)| name.as_str());
    let mut opts = args.options(path, first, None)?;
    let policy = OutputPolicy::new(force).reading(path);
    write::check(dest, &policy)?;
    let log = ctx.open(path)?;
    let scan = scan_options(path, &log, times, &mut opts)?;
    let (inputs, outcome) = read_inputs(ctx, path, &log, &pairs, &scan)?;
    let table = align::align(&inputs, &opts).map_err(|e| Failure::usage(path, e.to_string()))?;
    write_table(dest, &policy, &table, format, b',')?;
    Ok(outcome)
}

/// The scan options of `--start`/`--end`, which also bound a grid.
fn scan_options(
    path: &Path,
    log: &Log<'_>,
    times: &TimeRangeArgs,
    opts: &mut AlignOptions,
) -> Result<ScanOptions, Failure> {
    let (mut start, mut end) = (None::<Timestamp>, None::<Timestamp>);
    times.resolve_times(
        || {
            let s = log.summary().map_err(|e| Failure::new(path, e))?;
            Ok((s.start, s.time_model))
        },
        |msg| Failure::usage(path, msg),
        &mut start,
        &mut end,
    )?;
    opts.start = start.map(Timestamp::as_nanos);
    opts.end = end.map(Timestamp::as_nanos);
    Ok(ScanOptions {
        start,
        end,
        ..ScanOptions::default()
    })
}

/// The file formats an aligned table is written in.
#[derive(Clone, Copy)]
enum Kind {
    Csv,
    Parquet,
}

/// Writes `table` to `dest` atomically, then says so on stdout.
fn write_table(
    dest: &Path,
    policy: &OutputPolicy,
    table: &RecordBatch,
    kind: Kind,
    delimiter: u8,
) -> Result<(), Failure> {
    write::write_output(dest, policy, |f| -> std::io::Result<()> {
        match kind {
            Kind::Csv => {
                let mut w = std::io::BufWriter::with_capacity(1 << 20, &mut *f);
                write_csv(table, delimiter, &mut w).map_err(std::io::Error::other)?;
                w.flush()
            }
            Kind::Parquet => {
                let props = robolog_arrow::parquet::table_properties(&table.schema()).build();
                let mut pq =
                    parquet::arrow::ArrowWriter::try_new(&mut *f, table.schema(), Some(props))
                        .map_err(std::io::Error::other)?;
                pq.write(table).map_err(std::io::Error::other)?;
                pq.close().map(|_| ()).map_err(std::io::Error::other)
            }
        }
    })?;
    output::print_written(
        "wrote",
        dest,
        table.num_rows() as u64,
        table.num_columns(),
        "",
    );
    Ok(())
}

/// Writes `table` as CSV (see the [module](self) docs).
pub(crate) fn write_csv(
    table: &RecordBatch,
    delimiter: u8,
    w: &mut impl Write,
) -> Result<(), ArrowError> {
    let schema = table.schema();
    let d = [delimiter];
    for (i, f) in schema.fields().iter().enumerate() {
        if i > 0 {
            w.write_all(&d)?;
        }
        write_cell(w, f.name(), delimiter)?;
    }
    w.write_all(b"\n")?;
    let opts = FormatOptions::default().with_null("");
    let cells: Vec<Cell<'_>> = table
        .columns()
        .iter()
        .map(|c| Cell::new(c.as_ref(), &opts))
        .collect::<Result<_, _>>()?;
    let mut text = String::new();
    for r in 0..table.num_rows() {
        for (i, c) in cells.iter().enumerate() {
            if i > 0 {
                w.write_all(&d)?;
            }
            text.clear();
            c.write(r, &mut text)?;
            write_cell(w, &text, delimiter)?;
        }
        w.write_all(b"\n")?;
    }
    Ok(())
}

/// One column's cells as CSV text.
enum Cell<'a> {
    /// Times and durations: integer ns.
    Nanos(&'a dyn Array, Vec<i64>),
    F64(&'a dyn Array),
    F32(&'a dyn Array),
    Other(ArrayFormatter<'a>),
}

impl<'a> Cell<'a> {
    fn new(a: &'a dyn Array, opts: &'a FormatOptions<'a>) -> Result<Self, ArrowError> {
        Ok(match a.data_type() {
            DataType::Timestamp(TimeUnit::Nanosecond, _) => Cell::Nanos(
                a,
                a.as_primitive::<TimestampNanosecondType>()
                    .values()
                    .to_vec(),
            ),
            DataType::Duration(TimeUnit::Nanosecond) => Cell::Nanos(
                a,
                a.as_primitive::<DurationNanosecondType>().values().to_vec(),
            ),
            DataType::Float64 => Cell::F64(a),
            DataType::Float32 => Cell::F32(a),
            _ => Cell::Other(ArrayFormatter::try_new(a, opts)?),
        })
    }

    fn write(&self, r: usize, out: &mut String) -> Result<(), ArrowError> {
        use std::fmt::Write as _;
        let fmt = |e: std::fmt::Error| ArrowError::ExternalError(Box::new(e));
        match self {
            Cell::Nanos(a, v) if a.is_valid(r) => write!(out, "{}", v[r]).map_err(fmt),
            Cell::F64(a) if a.is_valid(r) => {
                write!(out, "{}", a.as_primitive::<Float64Type>().value(r)).map_err(fmt)
            }
            Cell::F32(a) if a.is_valid(r) => {
                write!(out, "{}", a.as_primitive::<Float32Type>().value(r)).map_err(fmt)
            }
            Cell::Other(f) => write!(out, "{}", f.value(r)).map_err(fmt),
            _ => Ok(()),
        }
    }
}

/// Writes one cell, quoted where it must be.
fn write_cell(w: &mut impl Write, text: &str, delimiter: u8) -> std::io::Result<()> {
    let quote = text
        .bytes()
        .any(|b| b == delimiter || b == b'"' || b == b'\n' || b == b'\r');
    if quote {
        w.write_all(b"\"")?;
        w.write_all(text.replace('"', "\"\"").as_bytes())?;
        w.write_all(b"\"")
    } else {
        w.write_all(text.as_bytes())
    }
}

/// What `robolog ulog csv --single` writes, and from which samples.
#[derive(Clone, Copy)]
pub(crate) struct SingleCsv<'a> {
    /// Only these message names (`-m`).
    pub(crate) messages: Option<&'a [String]>,
    /// The folder to write into (`-o`), else the current one.
    pub(crate) dir: Option<&'a Path>,
    /// The CSV delimiter.
    pub(crate) delimiter: u8,
    /// Only samples at or after this many seconds since boot.
    pub(crate) time_s: Option<i64>,
    /// Only samples before this many seconds since boot.
    pub(crate) time_e: Option<i64>,
    /// Replace the CSV file when it exists.
    pub(crate) force: bool,
}

/// `robolog ulog csv LOG --single`: every topic instance (of `messages`,
/// or all) aligned into one CSV, `DIR/<log name>.csv`, in pyulog's
/// dialect: a first `timestamp` column (µs since boot), then each
/// instance's columns as pyulog names them, prefixed by the instance's
/// CSV file name part (`vehicle_attitude_0.q[0]`).
pub(crate) fn run_ulog_single(
    ctx: &Context,
    path: &Path,
    log: &Log<'_>,
    args: &AlignArgs,
    out: &SingleCsv<'_>,
) -> Result<Outcome, Failure> {
    let SingleCsv {
        messages,
        dir,
        delimiter,
        time_s,
        time_e,
        force,
    } = *out;
    let summary = log.summary().map_err(|e| Failure::new(path, e))?;
    // One name per instance (message name and multi id, from its topic
    // `name` or `name[k]`), as the per-topic CSV files are named.
    let mut pairs = Vec::new();
    for c in &summary.channels {
        let name = &c.info.type_name;
        if messages.is_some_and(|m| !m.iter().any(|m| m == name)) || c.message_count == 0 {
            continue;
        }
        let multi_id = c
            .info
            .topic
            .strip_prefix(name.as_str())
            .and_then(|k| k.strip_prefix('['))
            .and_then(|k| k.strip_suffix(']'))
            .unwrap_or("0");
        pairs.push((format!("{name}_{multi_id}"), c.info.topic.clone()));
    }
    if pairs.is_empty() {
        return Err(Failure::usage(path, "no topic with messages to write"));
    }
    let mut opts = args.options(path, None, Some("10hz"))?;
    let stem = path
        .file_stem()
        .map_or_else(|| "log".into(), |s| s.to_string_lossy().into_owned());
    let dest = dir.unwrap_or(Path::new(".")).join(format!("{stem}.csv"));
    let policy = OutputPolicy::new(force).reading(path);
    write::check(&dest, &policy)?;
    if let Rows::On(on) = &mut opts.rows {
        // `--on vehicle_attitude` names instance 0.
        if let Some((name, _)) = pairs.iter().find(|(n, t)| n == on || t == on) {
            *on = name.clone();
        } else if let Some((name, _)) = pairs.iter().find(|(n, _)| *n == format!("{on}_0")) {
            *on = name.clone();
        }
    }
    let scan = ScanOptions {
        start: time_s.map(|s| Timestamp(s.saturating_mul(1_000_000_000))),
        end: time_e.map(|s| Timestamp(s.saturating_mul(1_000_000_000))),
        ..ScanOptions::default()
    };
    opts.start = scan.start.map(Timestamp::as_nanos);
    opts.end = scan.end.map(Timestamp::as_nanos);
    let (inputs, outcome) = read_inputs(ctx, path, log, &pairs, &scan)?;
    let table = align::align(&inputs, &opts).map_err(|e| Failure::usage(path, e.to_string()))?;
    let table = pyulog_dialect(&table).map_err(|e| Failure::new(path, e))?;
    if let Some(d) = dir {
        std::fs::create_dir_all(d).map_err(|e| Failure::new(d, e))?;
    }
    write_table(&dest, &policy, &table, Kind::Csv, delimiter)?;
    Ok(outcome)
}

/// An aligned table of ULog topics in pyulog's terms: `timestamp` (µs)
/// first in place of `log_time`, without the columns pyulog's CSV files
/// lack (`log_time_utc`, each topic's `log_time` and `multi_id`).
fn pyulog_dialect(table: &RecordBatch) -> Result<RecordBatch, ArrowError> {
    let schema = table.schema();
    let mut fields = Vec::new();
    let mut columns: Vec<Arc<dyn Array>> = Vec::new();
    for (f, c) in schema.fields().iter().zip(table.columns()) {
        let name = f.name();
        if name == robolog_arrow::LOG_TIME {
            // ns on the log's clock, a timestamp or a duration since boot.
            let Some(ns) = robolog_arrow::log_time_values(c.as_ref()) else {
                return Err(ArrowError::SchemaError(format!(
                    "log_time is {}, expected ns",
                    c.data_type()
                )));
            };
            let us: arrow_array::UInt64Array = ns
                .iter()
                .map(|&ns| u64::try_from(ns / 1000).unwrap_or(0))
                .collect();
            fields.push(arrow_schema::Field::new(
                "timestamp",
                DataType::UInt64,
                false,
            ));
            columns.push(Arc::new(us));
            continue;
        }
        let dropped = name == robolog_arrow::LOG_TIME_UTC
            || name.ends_with(".log_time")
            || name.ends_with(".log_time_utc")
            || name.ends_with(".multi_id");
        if !dropped {
            fields.push(f.as_ref().clone());
            columns.push(Arc::clone(c));
        }
    }
    RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), columns)
}
