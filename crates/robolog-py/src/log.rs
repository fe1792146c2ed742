//! `robolog.open`, the `Log` it returns and the `Channel`s of its topics.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use logcore::parallel::on_cores;
use logcore::{ChannelId, LogReader, Timestamp};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyString};
use robolog::Limits;

use crate::align::Spec;
use crate::bag2::Rosbag2View;
use crate::errors::{Failure, guarded};
use crate::flat;
use crate::frames;
use crate::messages::Messages;
use crate::scan::Scan;
use crate::sensors::{self, SensorStream, Want};
use crate::source::{Input, Shared};
use crate::table::{self, Query, Table};
use crate::times;
use crate::values::json_to_py;
use crate::views::{BagView, CarlaView, McapView, ULogView};

/// Opens a log of any format robolog reads (ROS 1 bag, PX4 ULog, MCAP,
/// CARLA recorder file, VEL log), recognised from its first bytes, and
/// returns its Log.
///
/// path_or_bytes: a path (str or os.PathLike; the file is memory-mapped,
/// so it must not be truncated while open) or the file's contents
/// (bytes or bytearray, copied once).
/// max_chunk_size: the largest decompressed chunk accepted, in bytes
/// (default 512 MiB); raise it for a trusted file with bigger chunks.
/// max_nesting: how deeply message types may nest (default: each
/// format's own limit, at most 128).
/// max_bag_expansion: the most bytes a ROS 2 bag's storage files may
/// expand to together, its zstd FILE-compressed files decompressed and its
/// databases copied with their -wal or -journal (default 4 GiB, as the
/// command's --max-bag-expansion).
///
/// The header, index and summary are read now, without the GIL; messages
/// are read when iterated. Raises FileNotFoundError, PermissionError or
/// OSError for I/O, UnsupportedError for a version or feature this build
/// cannot read, FormatError (with .offset) for anything else that is not
/// a readable log. Use it as a context manager to close it:
///
///     with robolog.open("flight.ulg") as log:
///         print(log.topics)
#[pyfunction]
#[pyo3(signature = (path_or_bytes, *, max_chunk_size = None, max_nesting = None, max_bag_expansion = None))]
pub(crate) fn open(
    py: Python<'_>,
    path_or_bytes: &Bound<'_, PyAny>,
    max_chunk_size: Option<u64>,
    max_nesting: Option<usize>,
    max_bag_expansion: Option<u64>,
) -> PyResult<Log> {
    let input = if let Ok(b) = path_or_bytes.cast::<PyBytes>() {
        Input::Bytes(b.as_bytes().to_vec())
    } else if let Ok(b) = path_or_bytes.cast::<PyByteArray>() {
        Input::Bytes(b.to_vec())
    } else if let Ok(p) = path_or_bytes.extract::<PathBuf>() {
        Input::Path(p)
    } else {
        return Err(PyTypeError::new_err(format!(
            "robolog.open takes a path (str or os.PathLike) or bytes, not {}",
            path_or_bytes.get_type().name()?
        )));
    };
    let limits = limits(max_chunk_size, max_nesting, max_bag_expansion)?;
    let path = match &input {
        Input::Path(p) => Some(p.display().to_string()),
        Input::Bytes(_) => None,
    };
    let shared = py
        .detach(move || Shared::open(input, limits))
        .map_err(|e| e.into_py(py, path.as_deref()))?;
    Ok(Log {
        path: shared.path.clone(),
        format: shared.summary.format.name(),
        shared: Mutex::new(Some(shared)),
    })
}

/// The reader limits of the `max_chunk_size`, `max_nesting` and
/// `max_bag_expansion` options
/// (the defaults where `None`).
pub(crate) fn limits(
    max_chunk_size: Option<u64>,
    max_nesting: Option<usize>,
    max_bag_expansion: Option<u64>,
) -> PyResult<Limits> {
    let mut limits = Limits::default();
    if let Some(n) = max_bag_expansion {
        limits = limits.with_max_bag_expansion(n);
    }
    if let Some(n) = max_chunk_size {
        limits = limits.with_max_chunk_size(n);
    }
    if let Some(n) = max_nesting {
        if n == 0 {
            return Err(PyValueError::new_err("max_nesting must be at least 1"));
        }
        limits = limits.with_max_nesting(n);
    }
    Ok(limits)
}

/// An opened log (see robolog.open): its topics, time range, metadata and
/// problems, its messages (Log.messages) and its topics as Arrow tables
/// (Log.table, Log.to_pandas, Log.to_polars).
///
/// Times are integer nanoseconds on the log's own clock (since 1970 UTC
/// for ROS bags and most MCAP files, since boot for ULog, since the
/// recording started for CARLA and VEL); start_datetime and end_datetime
/// are UTC datetimes where the clock is anchored to UTC.
///
/// A context manager: leaving the `with` block closes it (iterators and
/// tables already made keep working).
#[pyclass(module = "robolog", frozen)]
pub(crate) struct Log {
    /// The opened log; `None` once closed.
    shared: Mutex<Option<Arc<Shared>>>,
    /// The file, as given; `None` for bytes.
    path: Option<String>,
    /// The format's name.
    format: &'static str,
}

impl Log {
    /// The opened log, or the error of a closed one.
    fn shared(&self) -> PyResult<Arc<Shared>> {
        self.shared
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .ok_or_else(|| PyValueError::new_err("the log is closed"))
    }

    /// A time as a UTC datetime, where the log's clock allows.
    fn datetime<'py>(
        &self,
        py: Python<'py>,
        t: Option<Timestamp>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let shared = self.shared()?;
        match t.and_then(|t| robolog::clock::to_utc(&shared.summary, t)) {
            Some(unix) => utc_datetime(py, unix.as_nanos()).map(Some),
            None => Ok(None),
        }
    }

    /// The topics `spec` names aligned between `start` and `end` (as
    /// `start=`/`end=` take them): the work of `Log.align`, without the
    /// GIL.
    pub(crate) fn aligned(
        &self,
        py: Python<'_>,
        spec: &Spec,
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Table> {
        let shared = self.shared()?;
        let (start, end) = times::range(&shared.summary, start, end)?;
        let for_scan = Arc::clone(&shared);
        let made = py.detach(move || guarded(|| spec.run(&for_scan, start, end)));
        shared
            .unless_changed(made)
            .map_err(|e| e.into_py(py, shared.path.as_deref()))
    }

    /// The file as given, `None` for bytes.
    pub(crate) fn path_str(&self) -> Option<&str> {
        self.path.as_deref()
    }

    /// The time `which` picks of the summary, in UTC ns where the log has
    /// UTC times.
    fn utc(&self, which: fn(&logcore::Summary) -> Option<Timestamp>) -> PyResult<Option<i64>> {
        let shared = self.shared()?;
        let s = &shared.summary;
        Ok(which(s)
            .and_then(|t| robolog::clock::to_utc(s, t))
            .map(Timestamp::as_nanos))
    }

    /// The table `q` asks for, built without the GIL.
    fn table_of(&self, py: Python<'_>, q: Query, flatten: bool) -> PyResult<Table> {
        let shared = self.shared()?;
        let for_scan = Arc::clone(&shared);
        let built = py.detach(move || guarded(|| build_table(&for_scan, &q, flatten)));
        shared
            .unless_changed(built)
            .map_err(|e| e.into_py(py, shared.path.as_deref()))
    }

    /// The pandas DataFrame of the table `q` asks for (pyarrow's, or of
    /// the table's own blocks).
    fn frame_of_table<'py>(
        &self,
        py: Python<'py>,
        q: Query,
        flatten: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let t = Bound::new(py, self.table_of(py, q, flatten)?)?;
        Table::to_pandas(t)
    }

    /// `to_pandas(topic, flatten=True)` of a ULog, read from the samples
    /// straight into pandas' blocks; `None` for other logs, for a topic
    /// without rows, and where pandas cannot take blocks (before 3.0):
    /// those frames come from the table.
    fn ulog_frame<'py>(&self, py: Python<'py>, q: Query) -> PyResult<Option<Bound<'py, PyAny>>> {
        let shared = self.shared()?;
        if shared.log().as_ulog().is_none() {
            return Ok(None);
        }
        if !frames::takes_blocks(py) {
            return Ok(None);
        }
        let for_scan = Arc::clone(&shared);
        let made = py.detach(move || guarded(|| flat::frame_blocks(&for_scan, &q)));
        let made = shared
            .unless_changed(made)
            .map_err(|e| e.into_py(py, shared.path.as_deref()))?;
        let Some(parts) = made else {
            return Ok(None);
        };
        Ok(frames::frames_of_blocks(py, vec![parts])?.pop())
    }
}

/// The table `q` asks for (see Log.table), built without the GIL.
fn build_table(shared: &Shared, q: &Query, flatten: bool) -> Result<Table, Failure> {
    if flatten && shared.log().as_ulog().is_some() {
        flat::build_flat(shared, q)
    } else if flatten {
        table::build(shared, q).and_then(table::flatten)
    } else {
        table::build(shared, q)
    }
}

/// The Channel objects of a summary's channels, in id order.
fn channels_of_summary(summary: &logcore::Summary) -> Vec<Channel> {
    summary
        .channels
        .iter()
        .map(|c| Channel {
            id: c.info.id.0,
            topic: c.info.topic.clone(),
            type_name: c.info.type_name.clone(),
            encoding: c.info.message_encoding.clone(),
            message_count: c.message_count,
            start: c.start.map(Timestamp::as_nanos),
            end: c.end.map(Timestamp::as_nanos),
            metadata: c.info.metadata.clone(),
            schema: c
                .info
                .schema
                .as_ref()
                .and_then(|s| std::str::from_utf8(&s.data).ok().map(str::to_string)),
            schema_name: c.info.schema.as_ref().map(|s| s.name.clone()),
            schema_encoding: c.info.schema.as_ref().map(|s| s.encoding.clone()),
        })
        .collect()
}

/// The table keys (topics; ULog message names) of the channels with
/// messages, each once, in channel order.
fn topics_with_messages(shared: &Shared) -> Vec<String> {
    let log = shared.log();
    let mut keys: Vec<String> = Vec::new();
    for c in &shared.summary.channels {
        let key = log.table_key(&c.info);
        if c.message_count > 0 && !keys.iter().any(|k| k == key) {
            keys.push(key.to_string());
        }
    }
    keys
}

/// How much reading the table of `key` takes, roughly: its bytes of
/// samples (ULog), or its messages.
fn weight(shared: &Shared, key: &str) -> u64 {
    let log = shared.log();
    if let Some(ulog) = log.as_ulog() {
        return ulog
            .subscriptions
            .iter()
            .filter(|s| s.name == key)
            .map(|s| (s.samples.len() * s.samples.sample_size()) as u64)
            .sum();
    }
    shared
        .summary
        .channels
        .iter()
        .filter(|c| log.table_key(&c.info) == key)
        .map(|c| c.message_count)
        .sum()
}

/// A UTC `datetime` of Unix nanoseconds (to the microsecond, as far as a
/// `datetime` goes).
fn utc_datetime(py: Python<'_>, unix_ns: i64) -> PyResult<Bound<'_, PyAny>> {
    let dt = py.import("datetime")?;
    let utc = dt.getattr("timezone")?.getattr("utc")?;
    let epoch = dt
        .getattr("datetime")?
        .call1((1970, 1, 1, 0, 0, 0, 0, utc))?;
    let micros = unix_ns.div_euclid(1_000);
    let delta = dt.getattr("timedelta")?.call1((0, 0, micros))?;
    epoch.add(delta)
}

#[pymethods]
impl Log {
    /// The format, as `robolog info` names it: "rosbag", "ulog", "mcap",
    /// "carla-recorder" or "vellog".
    #[getter]
    fn format(&self) -> &'static str {
        self.format
    }

    /// The file as given to robolog.open, or None for a log opened from
    /// bytes.
    #[getter]
    fn path(&self) -> Option<String> {
        self.path.clone()
    }

    /// Whether the log was closed.
    #[getter]
    fn closed(&self) -> bool {
        self.shared
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_none()
    }

    /// The time of the first message (int ns on the log's clock), or None
    /// for a log without messages.
    #[getter]
    fn start(&self) -> PyResult<Option<i64>> {
        Ok(self.shared()?.summary.start.map(Timestamp::as_nanos))
    }

    /// The time of the last message (int ns on the log's clock), or None.
    #[getter]
    fn end(&self) -> PyResult<Option<i64>> {
        Ok(self.shared()?.summary.end.map(Timestamp::as_nanos))
    }

    /// end - start in nanoseconds (0 without messages).
    #[getter]
    fn duration(&self) -> PyResult<i64> {
        Ok(self.shared()?.summary.duration_ns())
    }

    /// The number of messages.
    #[getter]
    fn message_count(&self) -> PyResult<u64> {
        Ok(self.shared()?.summary.message_count)
    }

    /// end - start as a datetime.timedelta (to the microsecond).
    #[getter]
    fn duration_timedelta<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        times::timedelta(py, self.shared()?.summary.duration_ns())
    }

    /// What the log's times count from: "utc" (ns since 1970 UTC),
    /// "boot" (since the device booted: ULog), "simulation" (CARLA's
    /// simulated time), "recording_start" (since the recording started:
    /// VEL) or "unknown" (a bag or MCAP file whose times start before
    /// 2000: simulated time or a robot without a time source).
    #[getter]
    fn clock(&self) -> PyResult<&'static str> {
        Ok(robolog::clock::ClockKind::of(&self.shared()?.summary).name())
    }

    /// The time of the first message in UTC (int ns since 1970), through
    /// the log's clock or the anchor the log holds (a ULog's GPS time, a
    /// CARLA or VEL header); None where the log has no UTC time.
    #[getter]
    fn start_utc(&self) -> PyResult<Option<i64>> {
        self.utc(|s| s.start)
    }

    /// The time of the last message in UTC (int ns since 1970), or None
    /// (see Log.start_utc).
    #[getter]
    fn end_utc(&self) -> PyResult<Option<i64>> {
        self.utc(|s| s.end)
    }

    /// The time of the first message as a timezone-aware UTC datetime, or
    /// None where the log's clock has no UTC anchor.
    #[getter]
    fn start_datetime<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let t = self.shared()?.summary.start;
        self.datetime(py, t)
    }

    /// The time of the last message as a timezone-aware UTC datetime, or
    /// None where the log's clock has no UTC anchor.
    #[getter]
    fn end_datetime<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let t = self.shared()?.summary.end;
        self.datetime(py, t)
    }

    /// The log's metadata as a dict of str to str: header fields,
    /// parameters, info records, metadata records (what `robolog info`
    /// lists).
    #[getter]
    fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let shared = self.shared()?;
        let d = PyDict::new(py);
        for (k, v) in &shared.summary.metadata {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// The channels of the log, in the order of their ids, as a list of
    /// Channel (several channels may share a topic, such as a bag's
    /// connections from two publishers; see Log.topics for each topic
    /// once).
    #[getter]
    fn channels(&self) -> PyResult<Vec<Channel>> {
        Ok(channels_of_summary(&self.shared()?.summary))
    }

    /// Each topic of the log once, as a list of Topic, in the order of
    /// its first channel: its types, its total message count and time
    /// range over all its channels, and the channels.
    #[getter]
    fn topics(&self) -> PyResult<Vec<Topic>> {
        let shared = self.shared()?;
        let channels = channels_of_summary(&shared.summary);
        Ok(shared
            .summary
            .topics()
            .into_iter()
            .map(|t| Topic {
                types: t.types,
                message_count: t.message_count,
                start: t.start.map(Timestamp::as_nanos),
                end: t.end.map(Timestamp::as_nanos),
                channels: channels
                    .iter()
                    .filter(|c| c.topic == t.topic)
                    .map(Channel::clone)
                    .collect(),
                topic: t.topic,
            })
            .collect())
    }

    /// What the readers worked around or found damaged, as a list of str,
    /// each naming its byte offset where it has one: the summary's
    /// warnings (a bag without an index, a file cut short, ...), then what
    /// reading messages or tables met since (skipped records, messages that
    /// did not decode). Empty for a healthy file.
    #[getter]
    fn problems(&self) -> PyResult<Vec<String>> {
        Ok(self.shared()?.problems())
    }

    /// The PX4 ULog's own view (ULogView: info, parameters, logged
    /// messages, dropouts, as pyulog names them), or None for a log of
    /// another format.
    #[getter]
    fn ulog(&self) -> PyResult<Option<ULogView>> {
        Ok(ULogView::of(&self.shared()?))
    }

    /// The ROS 1 bag's own view (BagView: version, index, connections
    /// with their headers), or None for a log of another format.
    #[getter]
    fn bag(&self) -> PyResult<Option<BagView>> {
        Ok(BagView::of(&self.shared()?))
    }

    /// The MCAP file's own view (McapView: header, schemas, channels,
    /// attachments, metadata records), or None for a log of another
    /// format.
    #[getter]
    fn mcap(&self) -> PyResult<Option<McapView>> {
        Ok(McapView::of(&self.shared()?))
    }

    /// The CARLA recording's own view (CarlaView: header, frames, actors,
    /// CARLA's recorder reports), or None for a log of another format.
    #[getter]
    fn carla(&self) -> PyResult<Option<CarlaView>> {
        Ok(CarlaView::of(&self.shared()?))
    }

    /// The ROS 2 bag's own view (Rosbag2View: storage, metadata version,
    /// ROS distribution, compression, files, topics with their QoS
    /// profiles), or None for a log of another format.
    #[getter]
    fn rosbag2(&self) -> PyResult<Option<Rosbag2View>> {
        Ok(Rosbag2View::of(&self.shared()?))
    }

    /// A dict: the log at a glance, as `robolog info --json` prints it: path,
    /// size_bytes, format, format_name, version, clock, clock_anchor,
    /// message_count, start_ns, end_ns, duration_ns, start_date,
    /// end_date, channels (id, topic, type, encoding, count, start_ns,
    /// end_ns, metadata), metadata and warnings; plus problems (as
    /// Log.problems).
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let shared = self.shared()?;
        let path = shared.path.clone().unwrap_or_else(|| "<bytes>".into());
        let size = shared.log().size();
        let mut json = robolog::info::info_json(Path::new(&path), size, &shared.summary);
        if let serde_json::Value::Object(map) = &mut json {
            map.insert("problems".into(), shared.problems().into());
        }
        json_to_py(py, &json)
    }

    /// An iterator of the messages in log-time order, as Message objects.
    ///
    /// topics: a topic (str) or an iterable of topics; None for all.
    /// start, end: only messages with start <= log_time < end; each an
    /// int (ns on the log's clock), a float (seconds after the first
    /// message), a str ("2.5", "2.5s", "1500ms", "@SECONDS", or an ISO
    /// 8601 UTC instant for a log anchored to UTC), a datetime (UTC) or a
    /// timedelta (after the first message); the format's index skips the
    /// rest.
    /// raw: give each message's payload bytes instead of decoding it.
    ///
    /// Decoded data is Python values: structs dict, arrays list, bytes
    /// bytes, times and durations int nanoseconds. A payload that does not
    /// decode comes as its bytes, and the failure is added to
    /// Log.problems; damaged records are skipped and added there too.
    /// The messages are read and decoded ahead on a thread of their own,
    /// without the GIL, in chunks of a few thousand.
    #[pyo3(signature = (topics = None, start = None, end = None, *, raw = false))]
    fn messages(
        &self,
        topics: Option<&Bound<'_, PyAny>>,
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
        raw: bool,
    ) -> PyResult<Messages> {
        let (start, end) = times::range(&self.shared()?.summary, start, end)?;
        let shared = self.shared()?;
        let channels = match topics {
            None => None,
            Some(t) => Some(channels_of(t.py(), &shared, &topic_list(t)?)?),
        };
        Messages::start(shared, channels, start, end, raw)
    }

    /// The topic's messages as a typed Arrow Table (one row per message):
    /// log_time (timestamp, ns), then publish_time and sequence for MCAP,
    /// multi_id for ULog, then a column per top-level field of the message
    /// type, typed from the format's definitions (integer widths kept,
    /// nested messages as structs, arrays as lists).
    ///
    /// topic: a topic, a table name (the topic without its leading "/",
    /// other characters than letters, digits and "_" as "_") or, for
    /// ULog, a message name (every multi_id instance in one table) or
    /// one instance's topic ("name[1]": that instance only).
    /// columns: the columns to build, in order (None: all).
    /// start, end: only messages with start <= log_time < end (the forms
    /// of Log.messages).
    ///
    /// flatten: columns of scalars instead of nested ones, as a DataFrame
    /// wants them. For ULog, pyulog's columns: after log_time and
    /// multi_id, one column per key of pyulog's dataset `.data` dict,
    /// named as pyulog names them (`q[0]`, `esc[1].esc_rpm`, the padding
    /// of nested formats kept) and of its numpy dtypes (`bool` and `char`
    /// fields as int8); rows are each instance's samples in file order,
    /// merged by timestamp. For other formats, the table's columns spread
    /// out: a struct as one column per field (`header.stamp`), a
    /// fixed-size array as one per element (`orientation_covariance[0]`),
    /// down to scalars, strings, bytes and variable-length lists (which
    /// stay lists); a null struct or array is null in each of its
    /// columns. `columns` picks the table's own columns, before they are
    /// spread out.
    ///
    /// Built without the GIL. Raises KeyError naming the topics for an
    /// unknown topic, and for an unknown column. Messages that do not
    /// decode are rows with null message columns, counted in
    /// Log.problems.
    #[pyo3(signature = (topic, columns = None, start = None, end = None, *, flatten = false))]
    fn table(
        &self,
        py: Python<'_>,
        topic: &str,
        columns: Option<Vec<String>>,
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
        flatten: bool,
    ) -> PyResult<Table> {
        let (start, end) = times::range(&self.shared()?.summary, start, end)?;
        self.table_of(py, Query::new(topic, columns, start, end), flatten)
    }

    /// The topic's table as a stream of record batches, read as they are
    /// consumed: memory holds a batch or two (a few thousand rows each),
    /// whatever the topic's size. Takes the arguments of Log.table and
    /// gives its rows, columns and types; iterating gives a Table per
    /// batch, and the scan is an Arrow C stream (__arrow_c_stream__) that
    /// pyarrow.RecordBatchReader.from_stream, polars and DuckDB read
    /// batch by batch. With flatten=True a ULog topic's pyulog columns
    /// are gathered at once and handed over as one batch.
    ///
    /// Raises KeyError for an unknown topic or column when called.
    #[pyo3(signature = (topic, columns = None, start = None, end = None, *, flatten = false))]
    fn scan(
        &self,
        py: Python<'_>,
        topic: &str,
        columns: Option<Vec<String>>,
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
        flatten: bool,
    ) -> PyResult<Scan> {
        let (start, end) = times::range(&self.shared()?.summary, start, end)?;
        let q = Query::new(topic, columns, start, end);
        Scan::start(py, self.shared()?, q, flatten)
    }

    /// The frames of an image topic (sensor_msgs/Image in every common
    /// encoding, CompressedImage as JPEG, PNG or compressedDepth,
    /// Foxglove's RawImage and CompressedImage, VEL camera frames), read as
    /// they are consumed: each (log_time, array), the log time in ns on
    /// the log's clock, the array of shape (height, width) or (height,
    /// width, channels) in the image's own dtype (uint8, uint16 for
    /// mono16/16UC1 and 16-bit PNG, float32 for 32FC1). Colour comes as
    /// RGB (rgb=False keeps the stored order, BGR for bgr8); Bayer mosaics
    /// come as they are, one channel, unless debayer=True. every=N keeps
    /// one message in N. A message that does not fit its layout is
    /// skipped and named in the stream's problems.
    ///
    /// Raises KeyError for an unknown topic, TypeError for a topic that
    /// holds no images.
    #[pyo3(signature = (topic, start = None, end = None, *, every = 1, rgb = true, debayer = false))]
    #[allow(clippy::too_many_arguments)]
    fn images(
        &self,
        py: Python<'_>,
        topic: &str,
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
        every: usize,
        rgb: bool,
        debayer: bool,
    ) -> PyResult<SensorStream> {
        let shared = self.shared()?;
        let range = sensor_range(&shared, start, end, every)?;
        let opts = robolog_sensors::ImageOptions {
            keep_order: !rgb,
            debayer,
        };
        SensorStream::start(py, shared, topic, range, Want::Images(opts))
    }

    /// The clouds of a point cloud or laser scan topic
    /// (sensor_msgs/PointCloud2 of any layout, PointCloud, LaserScan and
    /// MultiEchoLaserScan projected to x, y, z, Foxglove's PointCloud,
    /// VEL's Velodyne and Hokuyo scans), read as they are consumed: each
    /// (log_time, structured array) with the cloud's own field names and
    /// dtypes, as sensor_msgs_py.read_points gives them (little-endian).
    /// A ROS 1 or ROS 2 PointCloud2 whose points are little-endian with
    /// rows back to back is a view of the log's bytes, no copy: the
    /// fields at their stored offsets, point_step as item size, read-only
    /// (.copy() for a writable array), valid after the log is closed.
    /// Other clouds (and drop_nan=True) come as packed records of their
    /// own. drop_nan=True drops the points whose x, y or z is NaN.
    /// every=N keeps one message in N; a message that does not fit its
    /// layout is skipped and named in the stream's problems.
    ///
    /// Raises KeyError for an unknown topic, TypeError for a topic that
    /// holds no clouds or scans.
    #[pyo3(signature = (topic, start = None, end = None, *, every = 1, drop_nan = false))]
    fn points(
        &self,
        py: Python<'_>,
        topic: &str,
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
        every: usize,
        drop_nan: bool,
    ) -> PyResult<SensorStream> {
        let shared = self.shared()?;
        let range = sensor_range(&shared, start, end, every)?;
        let opts = robolog_sensors::CloudOptions { drop_nan };
        SensorStream::start(py, shared, topic, range, Want::Clouds(opts))
    }

    /// Every point of a cloud or scan topic as one Table: log_time (as
    /// Log.table types it), message (the cloud's index in the topic, from
    /// 0), then the fields of Log.points, a field of several values a
    /// fixed-size list. A cloud whose fields differ from the first's is
    /// skipped and named in the table's problems.
    #[pyo3(signature = (topic, start = None, end = None, *, every = 1, drop_nan = false))]
    fn points_table(
        &self,
        py: Python<'_>,
        topic: &str,
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
        every: usize,
        drop_nan: bool,
    ) -> PyResult<Table> {
        let shared = self.shared()?;
        let range = sensor_range(&shared, start, end, every)?;
        let opts = robolog_sensors::CloudOptions { drop_nan };
        let for_read = Arc::clone(&shared);
        let t = topic.to_string();
        let built =
            py.detach(move || guarded(|| sensors::points_table(&for_read, &t, &range, opts)));
        shared
            .unless_changed(built)
            .map_err(|e| e.into_py(py, shared.path.as_deref()))
    }

    /// The GPS track of a position topic (sensor_msgs/NavSatFix,
    /// Foxglove's LocationFix, PX4's vehicle_gps_position and sensor_gps,
    /// VEL's GPS records) as a Table: log_time, latitude and longitude
    /// (degrees), altitude (m, NaN where there is none) and status (the
    /// format's fix quality: NavSatFix's status, PX4's fix_type). Messages
    /// without a fix are left out; those that do not decode are named in
    /// the table's problems.
    #[pyo3(signature = (topic, start = None, end = None))]
    fn track(
        &self,
        py: Python<'_>,
        topic: &str,
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Table> {
        let shared = self.shared()?;
        let range = sensor_range(&shared, start, end, 1)?;
        let for_read = Arc::clone(&shared);
        let t = topic.to_string();
        let built = py.detach(move || guarded(|| sensors::track_table(&for_read, &t, &range)));
        shared
            .unless_changed(built)
            .map_err(|e| e.into_py(py, shared.path.as_deref()))
    }

    /// Log.table(...).to_pandas(): the topic as a pandas DataFrame (needs
    /// pandas and pyarrow), flat by default: columns of scalars named by
    /// their dotted paths, fixed arrays of numbers as a[0] ... columns,
    /// variable arrays as list columns (ULog: pyulog's columns and
    /// dtypes), as Log.table(flatten=True) makes them; flatten=False keeps
    /// nested messages as dicts.
    #[pyo3(signature = (topic, columns = None, start = None, end = None, *, flatten = true))]
    fn to_pandas<'py>(
        &self,
        py: Python<'py>,
        topic: &str,
        columns: Option<Vec<String>>,
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
        flatten: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (start, end) = times::range(&self.shared()?.summary, start, end)?;
        let q = Query::new(topic, columns, start, end);
        if flatten {
            if let Some(frame) = self.ulog_frame(py, q.clone())? {
                return Ok(frame);
            }
        }
        self.frame_of_table(py, q, flatten)
    }

    /// Every topic's pandas DataFrame, as Log.to_pandas makes it, in a dict
    /// keyed by topic (ULog: by message name, its instances in one frame,
    /// as Log.table takes it); topics=None takes every topic with
    /// messages. The tables are read at once on the machine's cores,
    /// without the GIL. Flat by default, as Log.to_pandas (ULog: pyulog's
    /// columns and dtypes, like pyulog's data_list); flatten=False keeps
    /// nested messages as dicts.
    #[pyo3(signature = (topics = None, start = None, end = None, *, flatten = true))]
    fn dataframes<'py>(
        &self,
        py: Python<'py>,
        topics: Option<Vec<String>>,
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
        flatten: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (start, end) = times::range(&self.shared()?.summary, start, end)?;
        let shared = self.shared()?;
        let keys = match topics {
            Some(t) => t,
            None => topics_with_messages(&shared),
        };
        let path = shared.path.as_deref();
        let out = PyDict::new(py);
        let direct = flatten && shared.log().as_ulog().is_some() && frames::takes_blocks(py);
        if direct {
            let for_scan = Arc::clone(&shared);
            let made = py.detach(|| {
                guarded(|| {
                    let planned = on_cores(
                        keys.iter().map(String::as_str).collect(),
                        |k| weight(&for_scan, k),
                        |k| guarded(|| flat::frame(&for_scan, &Query::new(k, None, start, end))),
                    );
                    let mut frames = Vec::with_capacity(planned.len());
                    for f in planned {
                        frames.push(f?);
                    }
                    robolog_arrow::pyulog::fill(&mut frames);
                    Ok(frames
                        .into_iter()
                        .map(|f| f.map(robolog_arrow::pyulog::Frame::into_blocks))
                        .collect::<Vec<_>>())
                })
            });
            let made = shared
                .unless_changed(made)
                .map_err(|e| e.into_py(py, path))?;
            let mut part_keys = Vec::new();
            let mut parts = Vec::new();
            let mut from_tables = Vec::new();
            for (key, m) in keys.iter().zip(made) {
                match m {
                    Some(part) => {
                        part_keys.push(key);
                        parts.push(part);
                    }
                    None => from_tables.push(key),
                }
            }
            let made = frames::frames_of_blocks(py, parts)?;
            let by_key = PyDict::new(py);
            for (key, frame) in part_keys.into_iter().zip(made) {
                by_key.set_item(key, frame)?;
            }
            for key in from_tables {
                let q = Query::new(key, None, start, end);
                by_key.set_item(key, self.frame_of_table(py, q, flatten)?)?;
            }
            // In the order asked for.
            for key in &keys {
                if let Some(frame) = by_key.get_item(key)? {
                    out.set_item(key, frame)?;
                }
            }
            return Ok(out);
        }
        let for_scan = Arc::clone(&shared);
        let made = py.detach(|| {
            guarded(|| {
                let made = on_cores(
                    keys.iter().map(String::as_str).collect(),
                    |k| weight(&for_scan, k),
                    |k| {
                        guarded(|| {
                            build_table(&for_scan, &Query::new(k, None, start, end), flatten)
                        })
                    },
                );
                made.into_iter().collect::<Result<Vec<Table>, Failure>>()
            })
        });
        let made = shared
            .unless_changed(made)
            .map_err(|e| e.into_py(py, path))?;
        for (key, t) in keys.iter().zip(made) {
            out.set_item(key, Table::to_pandas(Bound::new(py, t)?)?)?;
        }
        Ok(out)
    }

    /// Log.table(...).to_polars(): the topic as a polars DataFrame (needs
    /// polars), flat by default as Log.to_pandas; flatten=False keeps
    /// nested messages as structs.
    #[pyo3(signature = (topic, columns = None, start = None, end = None, *, flatten = true))]
    fn to_polars<'py>(
        &self,
        py: Python<'py>,
        topic: &str,
        columns: Option<Vec<String>>,
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
        flatten: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (start, end) = times::range(&self.shared()?.summary, start, end)?;
        let q = Query::new(topic, columns, start, end);
        let t = Bound::new(py, self.table_of(py, q, flatten)?)?;
        frames::to_polars(t.as_any(), "Log.to_polars")
    }

    /// The topics on one time base, as one flat Table (to_pandas(),
    /// to_polars(), pyarrow, DuckDB take it): its rows are the times of
    /// the topic `on` names (by default the first topic), or of a regular
    /// grid `rate` Hz apart (a number, or a str such as "50hz" or "20ms")
    /// from the first sample of any topic to the last. Its columns:
    /// `log_time` (the rows' times, int ns on the log's clock, as
    /// timestamp[ns]), `log_time_utc` (UTC, null where the log is not
    /// anchored), then each topic's flat columns (as Log.table(...,
    /// flatten=True) makes them) prefixed by its name: `imu.log_time`
    /// (the time of the sample taken), `imu.angular_velocity.x`, ...
    ///
    /// topics: a dict of name to topic ({"imu": "/imu", "odom": "/odom"}),
    /// or a list of topics, each named by its topic without the leading
    /// "/". ULog topics are message names (every instance) or instance
    /// topics ("sensor_accel[1]").
    /// method: how a column is taken at a row's time: "previous" (the
    /// last sample at or before it; pandas.merge_asof's "backward"),
    /// "nearest" (the closest, the earlier on a tie; merge_asof's
    /// "nearest") or "linear" (numbers interpolated between the samples
    /// either side, as float64, as numpy.interp; other columns take
    /// "previous"). A dict chooses per topic name or per column
    /// ({"odom": "nearest", "imu.linear_acceleration.x": "linear"}); the
    /// rest take "previous".
    /// tolerance: the farthest a sample may be from a row's time to be
    /// taken (int ns, float seconds, "20ms", or a timedelta); for
    /// "linear", both samples must be within it. Cells without a sample
    /// are null: before a topic's first sample, past its last (nearest,
    /// linear), beyond the tolerance.
    /// start, end: only samples in this range (the forms of Log.table),
    /// which also bound the grid.
    ///
    /// Built without the GIL, the topics read at once. Raises KeyError
    /// for an unknown topic, ValueError for a method, rate, tolerance or
    /// `on` it cannot use.
    #[pyo3(signature = (topics, *, on = None, rate = None, method = None, tolerance = None, start = None, end = None))]
    #[allow(clippy::too_many_arguments)]
    fn align(
        &self,
        py: Python<'_>,
        topics: &Bound<'_, PyAny>,
        on: Option<&str>,
        rate: Option<&Bound<'_, PyAny>>,
        method: Option<&Bound<'_, PyAny>>,
        tolerance: Option<&Bound<'_, PyAny>>,
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Table> {
        let spec = Spec::new(topics, on, rate, method, tolerance)?;
        self.aligned(py, &spec, start, end)
    }

    /// Closes the log: its file is unmapped once the iterators and tables
    /// still reading it are done. Further calls raise ValueError.
    fn close(&self) {
        self.shared
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
    }

    /// Returns the log itself (for `with robolog.open(...) as log:`).
    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Closes the log; exceptions go on.
    #[pyo3(signature = (_exc_type = None, _exc = None, _traceback = None))]
    fn __exit__(
        &self,
        _exc_type: Option<&Bound<'_, PyAny>>,
        _exc: Option<&Bound<'_, PyAny>>,
        _traceback: Option<&Bound<'_, PyAny>>,
    ) -> bool {
        self.close();
        false
    }

    fn __repr__(&self) -> String {
        let what = match self.shared() {
            Ok(s) => format!(
                "{} topics, {} messages",
                s.summary.topics().len(),
                s.summary.message_count
            ),
            Err(_) => "closed".to_string(),
        };
        match &self.path {
            Some(p) => format!("<robolog.Log {} {p:?}: {what}>", self.format),
            None => format!("<robolog.Log {} (bytes): {what}>", self.format),
        }
    }
}

/// The topics a `topics` argument names: one str, or an iterable of them.
fn topic_list(topics: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Ok(s) = topics.cast::<PyString>() {
        return Ok(vec![s.to_cow()?.into_owned()]);
    }
    let mut out = Vec::new();
    for t in topics.try_iter()? {
        out.push(t?.extract::<String>()?);
    }
    Ok(out)
}

/// The channels of `topics`, or the KeyError naming the log's topics.
fn channels_of(py: Python<'_>, shared: &Shared, topics: &[String]) -> PyResult<Vec<ChannelId>> {
    let mut out = Vec::new();
    for t in topics {
        let found = shared.summary.channels_on_topic(t);
        if found.is_empty() {
            return Err(
                Failure::Missing(unknown_topic(shared, t)).into_py(py, shared.path.as_deref())
            );
        }
        out.extend(found);
    }
    Ok(out)
}

/// The message of a KeyError for a topic the log lacks.
pub(crate) fn unknown_topic(shared: &Shared, topic: &str) -> String {
    let mut topics: Vec<&str> = Vec::new();
    for c in &shared.summary.channels {
        if !topics.contains(&c.info.topic.as_str()) {
            topics.push(&c.info.topic);
        }
    }
    let of = shared
        .path
        .as_deref()
        .map(|p| format!(" in {p}"))
        .unwrap_or_default();
    format!(
        "no topic {topic:?}{of}; its topics: {}",
        if topics.is_empty() {
            "none".to_string()
        } else {
            topics.join(", ")
        }
    )
}

/// A topic of a log, once, with all its channels (Log.topics): its types
/// (several where its channels differ), its message count and time range
/// over all of them, and the channels.
#[pyclass(module = "robolog", frozen)]
pub(crate) struct Topic {
    /// The topic.
    #[pyo3(get)]
    topic: String,
    /// The types of its channels, each once.
    #[pyo3(get)]
    types: Vec<String>,
    /// How many messages its channels have, together.
    #[pyo3(get)]
    message_count: u64,
    /// The time of its first message (int ns on the log's clock), or None.
    #[pyo3(get)]
    start: Option<i64>,
    /// The time of its last message (int ns on the log's clock), or None.
    #[pyo3(get)]
    end: Option<i64>,
    /// Its channels.
    #[pyo3(get)]
    channels: Vec<Channel>,
}

#[pymethods]
impl Topic {
    /// Its type; the types joined by ", " where its channels differ.
    #[getter]
    #[pyo3(name = "type")]
    fn type_name(&self) -> String {
        self.types.join(", ")
    }

    fn __repr__(&self) -> String {
        format!(
            "Topic(topic={:?}, type={:?}, message_count={}, channels={})",
            self.topic,
            self.type_name(),
            self.message_count,
            self.channels.len()
        )
    }
}

/// A channel of a log: its topic, message type, encoding, message count,
/// metadata and schema.
#[pyclass(module = "robolog", frozen)]
#[derive(Clone)]
pub(crate) struct Channel {
    /// The channel's id in the log.
    #[pyo3(get)]
    id: u32,
    /// The topic.
    #[pyo3(get)]
    topic: String,
    /// The message type (`sensor_msgs/Imu`, a ULog message name, ...).
    #[pyo3(get, name = "type")]
    type_name: String,
    /// The message encoding (`ros1`, `cdr`, `protobuf`, `json`, `ulog`, ...).
    #[pyo3(get)]
    encoding: String,
    /// How many messages the channel has.
    #[pyo3(get)]
    message_count: u64,
    /// The time of its first message (int ns), or None.
    #[pyo3(get)]
    start: Option<i64>,
    /// The time of its last message (int ns), or None.
    #[pyo3(get)]
    end: Option<i64>,
    metadata: BTreeMap<String, String>,
    /// The schema's text (a ROS message definition, ...), or None where
    /// the channel has none or it is binary (a protobuf descriptor).
    #[pyo3(get)]
    schema: Option<String>,
    /// The schema's name, or None.
    #[pyo3(get)]
    schema_name: Option<String>,
    /// The schema's encoding (`ros1msg`, `ros2msg`, `protobuf`, ...), or None.
    #[pyo3(get)]
    schema_encoding: Option<String>,
}

#[pymethods]
impl Channel {
    /// The channel's metadata as a dict of str to str (a bag
    /// connection's callerid and latching, a ULog instance's multi_id, an
    /// MCAP channel's metadata).
    #[getter]
    fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in &self.metadata {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "Channel(topic={:?}, type={:?}, encoding={:?}, message_count={})",
            self.topic, self.type_name, self.encoding, self.message_count
        )
    }
}

/// The messages a sensor call reads: the time arguments resolved on the
/// log, and one message in `every`.
fn sensor_range(
    shared: &Shared,
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
    every: usize,
) -> PyResult<robolog_sensors::Range> {
    if every == 0 {
        return Err(PyValueError::new_err("every must be 1 or more"));
    }
    let (start, end) = times::range(&shared.summary, start, end)?;
    Ok(robolog_sensors::Range {
        start: start.map(Timestamp),
        end: end.map(Timestamp),
        every,
    })
}
