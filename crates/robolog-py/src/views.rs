//! The formats' own views, for what the common API does not cover:
//! `Log.ulog` (info, parameters, logged messages, dropouts, named as
//! pyulog names them), `Log.bag` (connections with their headers),
//! `Log.mcap` (header, schemas, channels, attachments, metadata records)
//! and `Log.carla` (frames, actors, CARLA's recorder reports).
//!
//! Each view keeps the opened log alive and reads the format crate's typed
//! reader (`robolog::Log::as_ulog`, `as_bag`, `as_mcap`, `as_carla`) when
//! an attribute is asked for.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use carla_recorder::report::{self, ReportOptions};
use carla_recorder::{Recording, Timeline};
use logcore::ReadMode;
use mcapfile::{Mcap, ReadOptions, Record};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use ulogfile::{InfoValue, LoggedString, ULog};

use crate::errors::{Failure, guarded};
use crate::source::Shared;

/// The error of a view whose log is not of its format (never raised for a
/// view made by `Log.ulog` and its siblings, which are None then).
fn wrong_format(what: &str) -> PyErr {
    PyValueError::new_err(format!("the log is no {what}"))
}

/// A ULog info, parameter or default value as pyulog gives it: text
/// `str`, numbers `int` or `float`, `bool`, a `char` as one byte of
/// `bytes`, any other type's raw `bytes`.
fn info_value<'py>(py: Python<'py>, v: &InfoValue<'_>) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        InfoValue::String(s) => s.into_pyobject(py)?.into_any(),
        InfoValue::Int(i) => i.into_pyobject(py)?.into_any(),
        InfoValue::UInt(u) => u.into_pyobject(py)?.into_any(),
        InfoValue::Float(f) => f64::from(*f).into_pyobject(py)?.into_any(),
        InfoValue::Double(f) => f.into_pyobject(py)?.into_any(),
        InfoValue::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        InfoValue::Char(c) => PyBytes::new(py, &[*c]).into_any(),
        InfoValue::Bytes(b) => PyBytes::new(py, b).into_any(),
    })
}

/// A dict of str to str.
fn str_dict<'py, 'a>(
    py: Python<'py>,
    items: impl IntoIterator<Item = (&'a String, &'a String)>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in items {
        d.set_item(k, v)?;
    }
    Ok(d)
}

/// What `read` gives, unless the log's file changed while it was read
/// (truncated or rewritten: its map now reads as zeros, so what `read`
/// gave is not the file's): then the OSError naming the file. Getters of
/// the views read through it.
fn unless_changed<T>(shared: &Shared, read: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    let read = read();
    match shared.unless_changed(Ok(())) {
        Ok(()) => read,
        Err(f) => Err(Python::attach(|py| f.into_py(py, shared.path.as_deref()))),
    }
}

/// What a PX4 ULog holds beside its topics, named as pyulog 1.3.0's
/// `ULog` names it: msg_info_dict, msg_info_multiple_dict,
/// initial_parameters, changed_parameters, get_default_parameters,
/// logged_messages, logged_messages_tagged, dropouts, start_timestamp,
/// last_timestamp, file_corruption, has_data_appended,
/// has_default_parameters. Times are microseconds since boot, as in the
/// file. Log.ulog; None for a log of another format.
#[pyclass(module = "robolog", frozen)]
pub(crate) struct ULogView {
    /// The opened log (a ULog).
    shared: Arc<Shared>,
}

impl ULogView {
    /// The view of `shared`, when it is a ULog.
    pub(crate) fn of(shared: &Arc<Shared>) -> Option<ULogView> {
        shared.log().as_ulog()?;
        Some(ULogView {
            shared: Arc::clone(shared),
        })
    }

    /// The typed log.
    fn ulog(&self) -> PyResult<&ULog<'_>> {
        self.shared
            .log()
            .as_ulog()
            .ok_or_else(|| wrong_format("ULog"))
    }
}

#[pymethods]
impl ULogView {
    /// The file format version of the header (int).
    #[getter]
    fn file_version(&self) -> PyResult<u8> {
        unless_changed(&self.shared, || Ok(self.ulog()?.header.version))
    }

    /// The header's timestamp: when logging started (int µs since boot).
    #[getter]
    fn start_timestamp(&self) -> PyResult<u64> {
        unless_changed(&self.shared, || Ok(self.ulog()?.header.timestamp))
    }

    /// The largest timestamp of the data messages (int µs), the header's
    /// for a log without data.
    #[getter]
    fn last_timestamp(&self) -> PyResult<u64> {
        unless_changed(&self.shared, || Ok(self.ulog()?.last_timestamp))
    }

    /// The info messages ('I') as a dict of key to value (str, int, float,
    /// bool, bytes); the last message of a key wins.
    #[getter]
    fn msg_info_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        unless_changed(&self.shared, || {
            let d = PyDict::new(py);
            for (k, info) in &self.ulog()?.info {
                d.set_item(k, info_value(py, &info.value)?)?;
            }
            Ok(d)
        })
    }

    /// The declared type of each info message (`char[12]`, `uint32_t`),
    /// a dict of key to str.
    #[getter]
    fn msg_info_dict_types<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        unless_changed(&self.shared, || {
            let d = PyDict::new(py);
            for (k, info) in &self.ulog()?.info {
                d.set_item(k, &info.type_str)?;
            }
            Ok(d)
        })
    }

    /// The multiple info messages ('M') as a dict of key to a list of
    /// groups, each group a list of values (a message and its
    /// continuations).
    #[getter]
    fn msg_info_multiple_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        unless_changed(&self.shared, || {
            let d = PyDict::new(py);
            for (k, multi) in &self.ulog()?.multi_info {
                let groups = PyList::empty(py);
                for g in &multi.groups {
                    let group = PyList::empty(py);
                    for v in g {
                        group.append(info_value(py, v)?)?;
                    }
                    groups.append(group)?;
                }
                d.set_item(k, groups)?;
            }
            Ok(d)
        })
    }

    /// The declared type of each multiple info key, a dict of key to str.
    #[getter]
    fn msg_info_multiple_dict_types<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        unless_changed(&self.shared, || {
            let d = PyDict::new(py);
            for (k, multi) in &self.ulog()?.multi_info {
                d.set_item(k, &multi.type_str)?;
            }
            Ok(d)
        })
    }

    /// The parameters of the definitions section: a dict of name to value
    /// (int or float).
    #[getter]
    fn initial_parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        unless_changed(&self.shared, || {
            let d = PyDict::new(py);
            for (k, v) in &self.ulog()?.initial_parameters {
                d.set_item(k.as_ref(), info_value(py, v)?)?;
            }
            Ok(d)
        })
    }

    /// The parameter changes of the data section, in file order: a list
    /// of (timestamp, name, value) tuples, the timestamp the largest data
    /// timestamp before the change (int µs).
    #[getter]
    fn changed_parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        unless_changed(&self.shared, || {
            let out = PyList::empty(py);
            for c in &self.ulog()?.changed_parameters {
                let item = PyTuple::new(
                    py,
                    [
                        c.timestamp.into_pyobject(py)?.into_any(),
                        c.name.as_ref().into_pyobject(py)?.into_any(),
                        info_value(py, &c.value)?,
                    ],
                )?;
                out.append(item)?;
            }
            Ok(out)
        })
    }

    /// Whether the flag bits say the log stores parameter defaults.
    #[getter]
    fn has_default_parameters(&self) -> PyResult<bool> {
        unless_changed(&self.shared, || Ok(self.ulog()?.has_default_parameters()))
    }

    /// Every parameter default ('Q') of the log: a dict of default type
    /// (0: the system's defaults, 1: the current setup's) to a dict of
    /// name to value. Empty when the log stores none.
    #[getter(default_parameters)]
    fn all_default_parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        unless_changed(&self.shared, || {
            let d = PyDict::new(py);
            for (ty, params) in &self.ulog()?.default_parameters {
                d.set_item(ty, params_dict(py, params)?)?;
            }
            Ok(d)
        })
    }

    /// The parameter defaults of one type (0: system, 1: current setup)
    /// as a dict of name to value, as pyulog's get_default_parameters;
    /// empty when the log has none of that type. Defaults are generally
    /// stored only where they differ from the configured value.
    fn get_default_parameters<'py>(
        &self,
        py: Python<'py>,
        default_type: u8,
    ) -> PyResult<Bound<'py, PyDict>> {
        unless_changed(&self.shared, || {
            match self.ulog()?.default_parameters.get(&default_type) {
                Some(params) => params_dict(py, params),
                None => Ok(PyDict::new(py)),
            }
        })
    }

    /// The logged strings ('L') in file order, as a list of LoggedMessage.
    #[getter]
    fn logged_messages(&self) -> PyResult<Vec<LoggedMessage>> {
        unless_changed(&self.shared, || {
            Ok(self
                .ulog()?
                .logged_messages
                .iter()
                .map(LoggedMessage::of)
                .collect())
        })
    }

    /// The tagged logged strings ('C'): a dict of tag (int) to the list of
    /// its LoggedMessage, in file order.
    #[getter]
    fn logged_messages_tagged<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        unless_changed(&self.shared, || {
            let mut by_tag: BTreeMap<u16, Vec<LoggedMessage>> = BTreeMap::new();
            let mut order: Vec<u16> = Vec::new();
            for m in &self.ulog()?.tagged_messages {
                let tag = m.tag.unwrap_or(0);
                if !by_tag.contains_key(&tag) {
                    order.push(tag);
                }
                by_tag.entry(tag).or_default().push(LoggedMessage::of(m));
            }
            let d = PyDict::new(py);
            for tag in order {
                d.set_item(tag, by_tag.remove(&tag).unwrap_or_default())?;
            }
            Ok(d)
        })
    }

    /// The dropouts ('O'): data the logger lost, as a list of Dropout.
    #[getter]
    fn dropouts(&self) -> PyResult<Vec<Dropout>> {
        unless_changed(&self.shared, || {
            Ok(self
                .ulog()?
                .dropouts
                .iter()
                .map(|d| Dropout {
                    timestamp: d.timestamp,
                    duration: d.duration_ms,
                })
                .collect())
        })
    }

    /// Whether damage was found while reading the log (pyulog's
    /// file_corruption); Log.problems says what and where.
    #[getter]
    fn file_corruption(&self) -> PyResult<bool> {
        unless_changed(&self.shared, || Ok(self.ulog()?.corrupt))
    }

    /// Whether the flag bits say data was appended to the log.
    #[getter]
    fn has_data_appended(&self) -> PyResult<bool> {
        unless_changed(&self.shared, || {
            Ok(self.ulog()?.flag_bits.is_some_and(|f| f.data_appended()))
        })
    }

    /// The compat flags of the flag bits message, a list of 8 ints (all 0
    /// for a log without one).
    #[getter]
    fn compat_flags(&self) -> PyResult<Vec<u32>> {
        unless_changed(&self.shared, || {
            let flags = self.ulog()?.flag_bits.map_or([0; 8], |f| f.compat_flags);
            Ok(flags.into_iter().map(u32::from).collect())
        })
    }

    /// The incompat flags of the flag bits message, a list of 8 ints.
    #[getter]
    fn incompat_flags(&self) -> PyResult<Vec<u32>> {
        unless_changed(&self.shared, || {
            let flags = self.ulog()?.flag_bits.map_or([0; 8], |f| f.incompat_flags);
            Ok(flags.into_iter().map(u32::from).collect())
        })
    }

    /// The number of sync messages ('S').
    #[getter]
    fn sync_count(&self) -> PyResult<usize> {
        unless_changed(&self.shared, || Ok(self.ulog()?.sync_count))
    }

    fn __repr__(&self) -> PyResult<String> {
        unless_changed(&self.shared, || {
            let u = self.ulog()?;
            Ok(format!(
                "<robolog.ULogView: {} info, {} parameters, {} logged messages, {} dropouts>",
                u.info.len(),
                u.initial_parameters.len(),
                u.logged_messages.len(),
                u.dropouts.len()
            ))
        })
    }
}

/// A dict of parameter name to value.
fn params_dict<'py>(
    py: Python<'py>,
    params: &BTreeMap<std::borrow::Cow<'_, str>, InfoValue<'_>>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in params {
        d.set_item(k.as_ref(), info_value(py, v)?)?;
    }
    Ok(d)
}

/// A logged string of a ULog ('L', or 'C' with a tag), as pyulog's
/// MessageLogging: log_level (the level byte, ord('0') emergency to
/// ord('7') debug), timestamp (int µs), message (str), tag (int, or None
/// for 'L').
#[pyclass(module = "robolog", frozen)]
pub(crate) struct LoggedMessage {
    /// The level byte (`'0'` to `'7'` as an int).
    #[pyo3(get)]
    log_level: u8,
    /// The time (µs since boot).
    #[pyo3(get)]
    timestamp: u64,
    /// The text.
    #[pyo3(get)]
    message: String,
    /// The tag of a tagged message.
    #[pyo3(get)]
    tag: Option<u16>,
    /// The level's name.
    level_name: &'static str,
}

impl LoggedMessage {
    /// The Python object of a logged string.
    fn of(m: &LoggedString<'_>) -> LoggedMessage {
        LoggedMessage {
            log_level: m.level,
            timestamp: m.timestamp,
            message: m.text(),
            tag: m.tag,
            level_name: m.level_name(),
        }
    }
}

#[pymethods]
impl LoggedMessage {
    /// The level's name: "EMERGENCY", "ALERT", "CRITICAL", "ERROR",
    /// "WARNING", "NOTICE", "INFO", "DEBUG" or "UNKNOWN".
    fn log_level_str(&self) -> &'static str {
        self.level_name
    }

    fn __repr__(&self) -> String {
        format!(
            "LoggedMessage(timestamp={}, log_level={:?}, message={:?})",
            self.timestamp, self.level_name, self.message
        )
    }
}

/// A dropout of a ULog: the logger lost `duration` milliseconds of data
/// after `timestamp` (the largest data timestamp before it, int µs).
#[pyclass(module = "robolog", frozen)]
pub(crate) struct Dropout {
    /// The largest data timestamp before the dropout (µs).
    #[pyo3(get)]
    timestamp: u64,
    /// Its length in milliseconds.
    #[pyo3(get)]
    duration: u16,
}

#[pymethods]
impl Dropout {
    fn __repr__(&self) -> String {
        format!(
            "Dropout(timestamp={}, duration={})",
            self.timestamp, self.duration
        )
    }
}

/// What a ROS 1 bag holds beside its messages: its version, whether its
/// index was read or rebuilt, its chunks and its connections with their
/// full headers. Log.bag; None for a log of another format.
#[pyclass(module = "robolog", frozen)]
pub(crate) struct BagView {
    /// The opened log (a bag).
    shared: Arc<Shared>,
}

impl BagView {
    /// The view of `shared`, when it is a ROS 1 bag.
    pub(crate) fn of(shared: &Arc<Shared>) -> Option<BagView> {
        shared.log().as_bag()?;
        Some(BagView {
            shared: Arc::clone(shared),
        })
    }

    /// The typed bag.
    fn bag(&self) -> PyResult<&rosbag12::Bag<'_>> {
        self.shared
            .log()
            .as_bag()
            .ok_or_else(|| wrong_format("ROS 1 bag"))
    }
}

#[pymethods]
impl BagView {
    /// The bag's version: "2.0" or "1.2".
    #[getter]
    fn version(&self) -> PyResult<String> {
        unless_changed(&self.shared, || Ok(self.bag()?.version().to_string()))
    }

    /// Whether the bag's stored index was read (False: the bag was
    /// scanned, its index missing or damaged).
    #[getter]
    fn indexed(&self) -> PyResult<bool> {
        unless_changed(&self.shared, || {
            Ok(matches!(
                self.bag()?.index_source(),
                rosbag12::IndexSource::Stored
            ))
        })
    }

    /// The number of chunks.
    #[getter]
    fn chunk_count(&self) -> PyResult<usize> {
        unless_changed(&self.shared, || Ok(self.bag()?.chunk_infos().len()))
    }

    /// The connections in the order of their ids, as a list of
    /// BagConnection.
    #[getter]
    fn connections<'py>(&self, py: Python<'py>) -> PyResult<Vec<BagConnection>> {
        unless_changed(&self.shared, || {
            let bag = self.bag()?;
            let counts = bag.message_counts();
            bag.connections()
                .iter()
                .map(|c| {
                    let header = PyDict::new(py);
                    for (k, v) in &c.header {
                        header.set_item(k, PyBytes::new(py, v))?;
                    }
                    Ok(BagConnection {
                        id: c.id,
                        topic: c.topic.clone(),
                        type_name: c.type_name.clone(),
                        md5sum: c.md5sum.clone(),
                        message_definition: c.message_definition.clone(),
                        callerid: c.callerid.clone(),
                        latching: c.latching,
                        header: header.unbind(),
                        offset: c.offset,
                        message_count: counts.get(&c.id).copied().unwrap_or(0),
                    })
                })
                .collect()
        })
    }

    fn __repr__(&self) -> PyResult<String> {
        unless_changed(&self.shared, || {
            let b = self.bag()?;
            Ok(format!(
                "<robolog.BagView {}: {} connections, {} chunks>",
                b.version(),
                b.connections().len(),
                b.chunk_infos().len()
            ))
        })
    }
}

/// A connection of a ROS 1 bag: id, topic, type, md5sum,
/// message_definition, callerid and latching (from `rosbag record`),
/// header (every field of the connection header, as str to bytes, unknown
/// ones included), offset (of its record) and message_count.
#[pyclass(module = "robolog", frozen)]
pub(crate) struct BagConnection {
    /// The connection id.
    #[pyo3(get)]
    id: u32,
    /// The topic.
    #[pyo3(get)]
    topic: String,
    /// The message type.
    #[pyo3(get, name = "type")]
    type_name: String,
    /// The definition's md5 (or `*`).
    #[pyo3(get)]
    md5sum: String,
    /// The full message definition.
    #[pyo3(get)]
    message_definition: String,
    /// The publishing node, where recorded.
    #[pyo3(get)]
    callerid: Option<String>,
    /// Whether the publisher latched.
    #[pyo3(get)]
    latching: bool,
    /// The raw header fields.
    #[pyo3(get)]
    header: Py<PyDict>,
    /// The offset of the connection record.
    #[pyo3(get)]
    offset: u64,
    /// How many messages the connection has.
    #[pyo3(get)]
    message_count: u64,
}

#[pymethods]
impl BagConnection {
    fn __repr__(&self) -> String {
        format!(
            "BagConnection(id={}, topic={:?}, type={:?}, md5sum={:?})",
            self.id, self.topic, self.type_name, self.md5sum
        )
    }
}

/// What an MCAP file holds beside its messages, with python mcap's
/// names: profile and library of the header, schemas, channels,
/// attachments and metadata records. Log.mcap; None for a log of another
/// format.
#[pyclass(module = "robolog", frozen)]
pub(crate) struct McapView {
    /// The opened log (an MCAP file).
    shared: Arc<Shared>,
}

impl McapView {
    /// The view of `shared`, when it is an MCAP file.
    pub(crate) fn of(shared: &Arc<Shared>) -> Option<McapView> {
        shared.log().as_mcap()?;
        Some(McapView {
            shared: Arc::clone(shared),
        })
    }

    /// The typed file.
    fn mcap(&self) -> PyResult<&Mcap<'_>> {
        self.shared
            .log()
            .as_mcap()
            .ok_or_else(|| wrong_format("MCAP file"))
    }

    /// Runs `f` on the file without the GIL (a panic becomes a
    /// RuntimeError).
    fn read<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&Mcap<'_>, &Shared) -> Result<T, Failure> + Send,
    ) -> PyResult<T> {
        self.mcap()?;
        let shared = Arc::clone(&self.shared);
        let path = shared.path.clone();
        py.detach(move || {
            let r = guarded(|| match shared.log().as_mcap() {
                Some(m) => f(m, &shared),
                None => Err(Failure::Missing("the log is no MCAP file".into())),
            });
            shared.unless_changed(r)
        })
        .map_err(|e| e.into_py(py, path.as_deref()))
    }
}

/// The records of `kind` a pass over the file's top-level records finds
/// (chunks are not opened: attachments and metadata are never inside
/// one); damage is skipped and added to the log's problems.
fn top_level<T>(
    mcap: &Mcap<'_>,
    shared: &Shared,
    mut take: impl FnMut(Record<'_>) -> Option<T>,
) -> Vec<T> {
    let opts = ReadOptions {
        mode: ReadMode::Lenient,
        flatten_chunks: false,
        limits: mcap.limits(),
        ..ReadOptions::default()
    };
    let mut out = Vec::new();
    for r in mcap.records(opts) {
        crate::interrupt::poll();
        match r {
            Ok(r) => out.extend(take(r)),
            Err(e) => shared.add_problem(e.to_string()),
        }
    }
    out
}

/// An MCAP schema or channel as the file stores it (its id, and the
/// schema's or channel's own fields).
enum Definition {
    /// A Schema record.
    Schema(u16, String, String, Vec<u8>),
    /// A Channel record.
    Channel(mcapfile::Channel),
}

/// The schemas and channels of the file: those of the summary, or for a
/// file whose summary has none of a kind (or no summary) those a pass
/// over every record finds (the first of each id kept).
fn definitions(mcap: &Mcap<'_>, shared: &Shared) -> Vec<Definition> {
    let schema = |x: &mcapfile::Schema<'_>| {
        Definition::Schema(x.id, x.name.clone(), x.encoding.clone(), x.data.to_vec())
    };
    let mut schemas: BTreeMap<u16, Definition> = BTreeMap::new();
    let mut channels: BTreeMap<u16, Definition> = BTreeMap::new();
    if let Some(s) = mcap.mcap_summary() {
        schemas.extend(s.schemas.iter().map(|(id, x)| (*id, schema(x))));
        channels.extend(
            s.channels
                .iter()
                .map(|(id, c)| (*id, Definition::Channel(c.clone()))),
        );
    }
    let (scan_schemas, scan_channels) = (schemas.is_empty(), channels.is_empty());
    if scan_schemas || scan_channels {
        let opts = ReadOptions {
            mode: ReadMode::Lenient,
            limits: mcap.limits(),
            ..ReadOptions::default()
        };
        for r in mcap.records(opts) {
            match r {
                Ok(Record::Schema(x)) if scan_schemas => {
                    schemas.entry(x.id).or_insert_with(|| schema(&x));
                }
                Ok(Record::Channel(c)) if scan_channels => {
                    channels.entry(c.id).or_insert(Definition::Channel(c));
                }
                Ok(_) => {}
                Err(e) => shared.add_problem(e.to_string()),
            }
        }
    }
    schemas
        .into_values()
        .chain(channels.into_values())
        .collect()
}

#[pymethods]
impl McapView {
    /// The header's profile ("ros1", "ros2", "" ...).
    #[getter]
    fn profile(&self) -> PyResult<String> {
        unless_changed(&self.shared, || Ok(self.mcap()?.header().profile.clone()))
    }

    /// The header's library: the text naming the writer.
    #[getter]
    fn library(&self) -> PyResult<String> {
        unless_changed(&self.shared, || Ok(self.mcap()?.header().library.clone()))
    }

    /// Whether the file has chunk indexes (messages are then read through
    /// them; else by a pass over the file).
    #[getter]
    fn indexed(&self) -> PyResult<bool> {
        unless_changed(&self.shared, || Ok(self.mcap()?.is_indexed()))
    }

    /// The schemas in the order of their ids, as a list of McapSchema (the
    /// summary's, or for a file without one those its records hold).
    #[getter]
    fn schemas(&self, py: Python<'_>) -> PyResult<Vec<McapSchema>> {
        unless_changed(&self.shared, || {
            let defs = self.read(py, |m, s| Ok(definitions(m, s)))?;
            Ok(defs
                .into_iter()
                .filter_map(|d| match d {
                    Definition::Schema(id, name, encoding, data) => Some(McapSchema {
                        id,
                        name,
                        encoding,
                        data: PyBytes::new(py, &data).unbind(),
                    }),
                    Definition::Channel(_) => None,
                })
                .collect())
        })
    }

    /// The channels in the order of their ids, as a list of McapChannel.
    #[getter]
    fn channels(&self, py: Python<'_>) -> PyResult<Vec<McapChannel>> {
        unless_changed(&self.shared, || {
            let defs = self.read(py, |m, s| Ok(definitions(m, s)))?;
            defs.into_iter()
                .filter_map(|d| match d {
                    Definition::Channel(c) => Some(c),
                    Definition::Schema(..) => None,
                })
                .map(|c| {
                    Ok(McapChannel {
                        id: c.id,
                        schema_id: c.schema_id,
                        topic: c.topic,
                        message_encoding: c.message_encoding,
                        metadata: str_dict(py, &c.metadata)?.unbind(),
                    })
                })
                .collect()
        })
    }

    /// The attachments in file order, as a list of McapAttachment (with
    /// their data).
    #[getter]
    fn attachments(&self, py: Python<'_>) -> PyResult<Vec<McapAttachment>> {
        unless_changed(&self.shared, || {
            let found = self.read(py, |m, s| {
                Ok(top_level(m, s, |r| match r {
                    Record::Attachment(a) => Some((
                        a.name,
                        a.media_type,
                        a.log_time,
                        a.create_time,
                        a.data.to_vec(),
                    )),
                    _ => None,
                }))
            })?;
            Ok(found
                .into_iter()
                .map(
                    |(name, media_type, log_time, create_time, data)| McapAttachment {
                        name,
                        media_type,
                        log_time,
                        create_time,
                        data: PyBytes::new(py, &data).unbind(),
                    },
                )
                .collect())
        })
    }

    /// The metadata records in file order, as a list of McapMetadata.
    #[getter]
    fn metadata(&self, py: Python<'_>) -> PyResult<Vec<McapMetadata>> {
        unless_changed(&self.shared, || {
            let found = self.read(py, |m, s| {
                Ok(top_level(m, s, |r| match r {
                    Record::Metadata(x) => Some(x),
                    _ => None,
                }))
            })?;
            found
                .into_iter()
                .map(|m| {
                    Ok(McapMetadata {
                        name: m.name,
                        metadata: str_dict(py, &m.metadata)?.unbind(),
                    })
                })
                .collect()
        })
    }

    fn __repr__(&self) -> PyResult<String> {
        unless_changed(&self.shared, || {
            let m = self.mcap()?;
            Ok(format!(
                "<robolog.McapView profile={:?} library={:?}>",
                m.header().profile,
                m.header().library
            ))
        })
    }
}

/// A schema of an MCAP file: id, name, encoding ("ros1msg", "ros2msg",
/// "protobuf", "jsonschema", ...) and data (bytes: the definition text or
/// a serialized descriptor set).
#[pyclass(module = "robolog", frozen)]
pub(crate) struct McapSchema {
    /// The id (never 0).
    #[pyo3(get)]
    id: u16,
    /// The name.
    #[pyo3(get)]
    name: String,
    /// The schema language.
    #[pyo3(get)]
    encoding: String,
    /// The schema's bytes.
    #[pyo3(get)]
    data: Py<PyBytes>,
}

#[pymethods]
impl McapSchema {
    fn __repr__(&self) -> String {
        format!(
            "McapSchema(id={}, name={:?}, encoding={:?})",
            self.id, self.name, self.encoding
        )
    }
}

/// A channel of an MCAP file: id, schema_id (0: none), topic,
/// message_encoding and metadata (a dict of str to str).
#[pyclass(module = "robolog", frozen)]
pub(crate) struct McapChannel {
    /// The id.
    #[pyo3(get)]
    id: u16,
    /// The id of its schema, 0 for none.
    #[pyo3(get)]
    schema_id: u16,
    /// The topic.
    #[pyo3(get)]
    topic: String,
    /// The payload encoding.
    #[pyo3(get)]
    message_encoding: String,
    /// Its metadata.
    #[pyo3(get)]
    metadata: Py<PyDict>,
}

#[pymethods]
impl McapChannel {
    fn __repr__(&self) -> String {
        format!(
            "McapChannel(id={}, topic={:?}, message_encoding={:?}, schema_id={})",
            self.id, self.topic, self.message_encoding, self.schema_id
        )
    }
}

/// An attachment of an MCAP file: name, media_type, log_time and
/// create_time (int ns; 0 when unknown) and data (bytes).
#[pyclass(module = "robolog", frozen)]
pub(crate) struct McapAttachment {
    /// The name.
    #[pyo3(get)]
    name: String,
    /// The MIME type.
    #[pyo3(get)]
    media_type: String,
    /// Its log time (ns).
    #[pyo3(get)]
    log_time: u64,
    /// When it was created (ns).
    #[pyo3(get)]
    create_time: u64,
    /// The content.
    #[pyo3(get)]
    data: Py<PyBytes>,
}

#[pymethods]
impl McapAttachment {
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "McapAttachment(name={:?}, media_type={:?}, log_time={}, {} bytes)",
            self.name,
            self.media_type,
            self.log_time,
            self.data.bind(py).as_bytes().len()
        )
    }
}

/// A metadata record of an MCAP file: name and metadata (a dict of str to
/// str).
#[pyclass(module = "robolog", frozen)]
pub(crate) struct McapMetadata {
    /// The record's name.
    #[pyo3(get)]
    name: String,
    /// Its entries.
    #[pyo3(get)]
    metadata: Py<PyDict>,
}

#[pymethods]
impl McapMetadata {
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "McapMetadata(name={:?}, {} entries)",
            self.name,
            self.metadata.bind(py).len()
        )
    }
}

/// What a CARLA recorder file holds as CARLA shows it: the header
/// (version, map, date), the frames, the actors with their lifetimes, and
/// the texts of CARLA's show_recorder_file_info, show_recorder_collisions
/// and show_recorder_actors_blocked (what `robolog carla info`,
/// `collisions` and `blocked` print). Times are seconds since the
/// recording started, as CARLA gives them. Log.carla; None for a log of
/// another format.
#[pyclass(module = "robolog", frozen)]
pub(crate) struct CarlaView {
    /// The opened log (a CARLA recording).
    shared: Arc<Shared>,
    /// The frames and actors, read on first use.
    timeline: OnceLock<Timeline>,
}

impl CarlaView {
    /// The view of `shared`, when it is a CARLA recording.
    pub(crate) fn of(shared: &Arc<Shared>) -> Option<CarlaView> {
        shared.log().as_carla()?;
        Some(CarlaView {
            shared: Arc::clone(shared),
            timeline: OnceLock::new(),
        })
    }

    /// The typed recording.
    fn rec(&self) -> PyResult<&Recording<'_>> {
        self.shared
            .log()
            .as_carla()
            .ok_or_else(|| wrong_format("CARLA recording"))
    }

    /// Runs `f` on the recording without the GIL.
    fn read<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&Recording<'_>) -> Result<T, Failure> + Send,
    ) -> PyResult<T> {
        self.rec()?;
        let shared = Arc::clone(&self.shared);
        let path = shared.path.clone();
        py.detach(move || {
            let r = guarded(|| match shared.log().as_carla() {
                Some(r) => f(r),
                None => Err(Failure::Missing("the log is no CARLA recording".into())),
            });
            shared.unless_changed(r)
        })
        .map_err(|e| e.into_py(py, path.as_deref()))
    }

    /// The frames and actors (read once, strictly: a damaged recording is
    /// a FormatError here).
    fn timeline(&self, py: Python<'_>) -> PyResult<&Timeline> {
        if let Some(t) = self.timeline.get() {
            return Ok(t);
        }
        let built = self.read(py, |r| Ok(Timeline::build(r)?))?;
        Ok(self.timeline.get_or_init(|| built))
    }

    /// A report's text.
    fn report(
        &self,
        py: Python<'_>,
        write: impl FnOnce(&Recording<'_>, &mut Vec<u8>) -> carla_recorder::Result<()> + Send,
    ) -> PyResult<String> {
        self.read(py, |r| {
            let mut out = Vec::new();
            write(r, &mut out)?;
            Ok(String::from_utf8_lossy(&out).into_owned())
        })
    }
}

#[pymethods]
impl CarlaView {
    /// The recorder file version of the header.
    #[getter]
    fn version(&self) -> PyResult<u16> {
        unless_changed(&self.shared, || Ok(self.rec()?.header().version))
    }

    /// The map the recording was made on ("Town01", ...).
    #[getter]
    fn map(&self) -> PyResult<String> {
        unless_changed(&self.shared, || {
            Ok(self.rec()?.header().map_name().into_owned())
        })
    }

    /// The header's date: when recording started, in seconds since 1970
    /// (int).
    #[getter]
    fn date(&self) -> PyResult<i64> {
        unless_changed(&self.shared, || Ok(self.rec()?.header().date))
    }

    /// The frames in file order, as a list of CarlaFrame.
    #[getter]
    fn frames(&self, py: Python<'_>) -> PyResult<Vec<CarlaFrame>> {
        unless_changed(&self.shared, || {
            Ok(self
                .timeline(py)?
                .frames
                .frames
                .iter()
                .map(|f| CarlaFrame {
                    id: f.id,
                    elapsed: secs_ns(f.elapsed),
                    duration: secs_ns(f.stored_duration),
                    offset: f.offset,
                })
                .collect())
        })
    }

    /// The number of frames.
    #[getter]
    fn frame_count(&self, py: Python<'_>) -> PyResult<usize> {
        unless_changed(&self.shared, || Ok(self.timeline(py)?.frames.frames.len()))
    }

    /// The elapsed time of the first frame (int ns since the recording
    /// started, the time of its messages), or None for a recording
    /// without frames.
    #[getter]
    fn start_time(&self, py: Python<'_>) -> PyResult<Option<i64>> {
        unless_changed(&self.shared, || {
            Ok(self
                .timeline(py)?
                .frames
                .frames
                .first()
                .map(|f| secs_ns(f.elapsed)))
        })
    }

    /// The elapsed time of the last frame (int ns), or None.
    #[getter]
    fn end_time(&self, py: Python<'_>) -> PyResult<Option<i64>> {
        unless_changed(&self.shared, || {
            Ok(self
                .timeline(py)?
                .frames
                .frames
                .last()
                .map(|f| secs_ns(f.elapsed)))
        })
    }

    /// The actors in the order they were added, as a list of CarlaActor
    /// (an id reused after its actor was destroyed appears once per
    /// actor).
    #[getter]
    fn actors(&self, py: Python<'_>) -> PyResult<Vec<CarlaActor>> {
        unless_changed(&self.shared, || {
            let tl = self.timeline(py)?;
            tl.actors
                .iter()
                .map(|a| {
                    let attributes = PyDict::new(py);
                    for (k, v) in &a.attributes {
                        attributes.set_item(k, v)?;
                    }
                    Ok(CarlaActor {
                        id: a.id,
                        type_name: a.actor_type.name(),
                        description: a.blueprint.clone(),
                        attributes: attributes.unbind(),
                        location: (a.spawn_location.x, a.spawn_location.y, a.spawn_location.z),
                        rotation: (a.spawn_rotation.x, a.spawn_rotation.y, a.spawn_rotation.z),
                        added_frame: a.added_frame,
                        added_time: secs_ns(a.added_time),
                        removed_frame: a.removed_frame,
                        removed_time: a.removed_time.map(secs_ns),
                        parent: a.parent,
                    })
                })
                .collect()
        })
    }

    /// CARLA's show_recorder_file_info text (`robolog carla info`): the
    /// header, the frames with events, the footer; show_all: every frame
    /// and packet. fixed: correct CARLA's known bugs instead of
    /// reproducing its text; utc_offset: the time zone of the header date,
    /// in seconds east of UTC.
    #[pyo3(signature = (show_all = false, *, fixed = false, utc_offset = 0))]
    fn info(
        &self,
        py: Python<'_>,
        show_all: bool,
        fixed: bool,
        utc_offset: i32,
    ) -> PyResult<String> {
        unless_changed(&self.shared, || {
            let opts = ReportOptions {
                fixed,
                utc_offset_secs: utc_offset,
            };
            self.report(py, move |r, out| report::file_info(r, show_all, &opts, out))
        })
    }

    /// CARLA's show_recorder_collisions text (`robolog carla
    /// collisions`). type1, type2: "a" (any), "h" (hero), "o", "v", "w",
    /// "t" (other, vehicle, walker, traffic light); with fixed also "s"
    /// (traffic sign) and "n" (sensor).
    #[pyo3(signature = (type1 = 'a', type2 = 'a', *, fixed = false, utc_offset = 0))]
    fn collisions(
        &self,
        py: Python<'_>,
        type1: char,
        type2: char,
        fixed: bool,
        utc_offset: i32,
    ) -> PyResult<String> {
        unless_changed(&self.shared, || {
            let opts = ReportOptions {
                fixed,
                utc_offset_secs: utc_offset,
            };
            self.report(py, move |r, out| {
                report::collisions(r, type1, type2, &opts, out)
            })
        })
    }

    /// CARLA's show_recorder_actors_blocked text (`robolog carla
    /// blocked`): actors that moved less than min_distance (centimetres)
    /// for at least min_time (seconds).
    #[pyo3(signature = (min_time = 30.0, min_distance = 10.0, *, fixed = false, utc_offset = 0))]
    fn actors_blocked(
        &self,
        py: Python<'_>,
        min_time: f64,
        min_distance: f64,
        fixed: bool,
        utc_offset: i32,
    ) -> PyResult<String> {
        unless_changed(&self.shared, || {
            let opts = ReportOptions {
                fixed,
                utc_offset_secs: utc_offset,
            };
            self.report(py, move |r, out| {
                report::actors_blocked(r, min_time, min_distance, &opts, out)
            })
        })
    }

    fn __repr__(&self) -> PyResult<String> {
        unless_changed(&self.shared, || {
            let r = self.rec()?;
            Ok(format!(
                "<robolog.CarlaView version {} map {:?}>",
                r.header().version,
                r.header().map_name()
            ))
        })
    }
}

/// Seconds as CARLA stores them (f64) in int ns, as the recording's
/// messages are timed (0 for a value that is not finite).
fn secs_ns(s: f64) -> i64 {
    logcore::Timestamp::from_secs_f64(s)
        .unwrap_or(logcore::Timestamp::ZERO)
        .as_nanos()
}

/// A frame of a CARLA recording: id, elapsed (int ns since the recording
/// started: the log_time of its messages), duration (the frame's stored
/// duration, int ns) and offset (of its FrameStart packet).
#[pyclass(module = "robolog", frozen)]
pub(crate) struct CarlaFrame {
    /// The frame id.
    #[pyo3(get)]
    id: u64,
    /// Nanoseconds since the recording started.
    #[pyo3(get)]
    elapsed: i64,
    /// The stored duration (ns).
    #[pyo3(get)]
    duration: i64,
    /// The file offset of the frame.
    #[pyo3(get)]
    offset: u64,
}

#[pymethods]
impl CarlaFrame {
    fn __repr__(&self) -> String {
        format!("CarlaFrame(id={}, elapsed={})", self.id, self.elapsed)
    }
}

/// An actor of a CARLA recording: id, type ("vehicle", "walker",
/// "traffic_light", "sensor", ...), description (the blueprint id),
/// attributes (a dict of str to str), location and rotation at spawn
/// (tuples of three floats: centimetres, degrees), added_frame and
/// added_time, removed_frame and removed_time (None while it lives to
/// the end), parent (an actor id, or None).
#[pyclass(module = "robolog", frozen)]
pub(crate) struct CarlaActor {
    /// The actor id.
    #[pyo3(get)]
    id: u32,
    /// Its type's name.
    #[pyo3(get, name = "type")]
    type_name: &'static str,
    /// The blueprint id.
    #[pyo3(get)]
    description: String,
    /// The blueprint attributes.
    #[pyo3(get)]
    attributes: Py<PyDict>,
    /// Where it was spawned.
    #[pyo3(get)]
    location: (f64, f64, f64),
    /// Its rotation at spawn.
    #[pyo3(get)]
    rotation: (f64, f64, f64),
    /// The frame it was added in.
    #[pyo3(get)]
    added_frame: u64,
    /// When it was added (ns since the recording started).
    #[pyo3(get)]
    added_time: i64,
    /// The frame it was destroyed in.
    #[pyo3(get)]
    removed_frame: Option<u64>,
    /// When it was destroyed (ns since the recording started).
    #[pyo3(get)]
    removed_time: Option<i64>,
    /// Its parent actor.
    #[pyo3(get)]
    parent: Option<u32>,
}

#[pymethods]
impl CarlaActor {
    fn __repr__(&self) -> String {
        format!(
            "CarlaActor(id={}, type={:?}, description={:?}, added_frame={})",
            self.id, self.type_name, self.description, self.added_frame
        )
    }
}
