//! `robolog.Writer`: a log written message by message from Python, to a
//! temporary file renamed into place on a clean close (MCAP, ROS 1 bags,
//! ROS 2 bag folders with MCAP storage). Messages are given as dicts,
//! converted to `logcore::Value`s by the channel's definition (ints
//! checked against their width, errors naming the field's path), then
//! encoded by the libraries' encoders: rosbag12's ROS 1 encoder,
//! `robolog::encode`'s CDR and protobuf, JSON by serde_json; or as
//! `bytes` already encoded.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use logcore::{Timestamp, Value, ValueType};
use pyo3::exceptions::{PyFileExistsError, PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple,
};
use robolog::write::{AtomicFile, OutputPolicy, WriteError};

/// How a channel's messages are encoded.
enum Encoder {
    /// ROS 1 wire bytes.
    Ros1(Box<rosbag12::MessageType>),
    /// Little-endian CDR.
    Cdr(Box<ros2cdr::MessageType>),
    /// JSON text.
    Json,
    /// Protobuf through a descriptor set.
    Protobuf(robolog::encode::ProtobufType),
}

/// A declared channel: the sink's id, its encoder and the values it takes.
struct Chan {
    id: u32,
    encoder: Encoder,
    shape: Option<ValueType>,
}

/// Where the messages go.
enum Sink {
    Bag(Box<rosbag12::Writer<AtomicFile>>),
    Mcap(Box<mcapfile::Writer<AtomicFile>>),
    Bag2(Box<rosbag2::Bag2Writer>),
}

/// Writes a log: MCAP (`.mcap`), a ROS 1 bag (`.bag`) or a ROS 2 bag
/// folder (`format="rosbag2"`, MCAP storage). A context manager: the
/// output appears under its name when the block ends without an
/// exception (or at `close()`); otherwise nothing is left.
#[pyclass(module = "robolog._robolog", unsendable)]
pub(crate) struct Writer {
    path: PathBuf,
    format: &'static str,
    profile: Option<String>,
    sink: Option<Sink>,
    chans: Vec<Chan>,
    by_topic: HashMap<String, usize>,
    seq: u32,
}

fn refused(e: WriteError) -> PyErr {
    match e {
        WriteError::Refused(r) => {
            PyFileExistsError::new_err(format!("{r}; not replaced (pass force=True to replace it)"))
        }
        other => PyErr::new::<pyo3::exceptions::PyOSError, _>(other.to_string()),
    }
}

fn os(e: impl std::fmt::Display) -> PyErr {
    PyErr::new::<pyo3::exceptions::PyOSError, _>(e.to_string())
}

#[pymethods]
impl Writer {
    /// Starts the log at `path` (written to a temporary file until
    /// `close()`). `compression`: of the chunks, `'zstd'`, `'lz4'` or
    /// `'none'` for MCAP (None: zstd), `'lz4'`, `'bz2'` or `'none'` for a
    /// ROS 1 bag (None: none); `chunk_size`: the uncompressed bytes of a
    /// chunk (None: 1 MiB for MCAP, 768 KiB for a bag). A ROS 2 bag folder
    /// takes neither.
    #[new]
    #[pyo3(signature = (
        path, format = None, profile = None, compression = None, chunk_size = None, *, force = false
    ))]
    fn new(
        path: PathBuf,
        format: Option<&str>,
        profile: Option<&str>,
        compression: Option<&str>,
        chunk_size: Option<u64>,
        force: bool,
    ) -> PyResult<Self> {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        let format = match (format, ext.as_deref()) {
            (Some("mcap"), _) | (None, Some("mcap")) => "mcap",
            (Some("bag" | "rosbag" | "ros1"), _) | (None, Some("bag")) => "bag",
            (Some("rosbag2"), _) => "rosbag2",
            (Some(f), _) => {
                return Err(PyValueError::new_err(format!(
                    "format must be 'mcap', 'bag' or 'rosbag2', not {f:?}"
                )));
            }
            (None, _) => {
                return Err(PyValueError::new_err(format!(
                    "{}: give a name ending in .mcap or .bag, or format='rosbag2' for a ROS 2 bag folder",
                    path.display()
                )));
            }
        };
        match profile {
            None | Some("ros1" | "ros2") => {}
            Some(p) => {
                return Err(PyValueError::new_err(format!(
                    "profile must be 'ros1', 'ros2' or None, not {p:?}"
                )));
            }
        }
        if chunk_size == Some(0) {
            return Err(PyValueError::new_err(
                "chunk_size must be at least 1 byte (None: the format's default)",
            ));
        }
        if format == "rosbag2" && (compression.is_some() || chunk_size.is_some()) {
            return Err(PyValueError::new_err(
                "a ROS 2 bag folder is written with MCAP storage as rosbag2 writes it: \
                 compression and chunk_size are for MCAP files and ROS 1 bags",
            ));
        }
        // Checked before the output is created.
        let mcap_compression = match (format, compression) {
            ("mcap", None | Some("zstd")) => mcapfile::Compression::Zstd,
            ("mcap", Some("lz4")) => mcapfile::Compression::Lz4,
            ("mcap", Some("none")) => mcapfile::Compression::None,
            ("mcap", Some(c)) => {
                return Err(PyValueError::new_err(format!(
                    "compression of an MCAP file must be 'zstd', 'lz4' or 'none', not {c:?}"
                )));
            }
            _ => mcapfile::Compression::None,
        };
        let bag_compression = match (format, compression) {
            ("bag", None | Some("none")) => rosbag12::Compression::None,
            ("bag", Some("lz4")) => rosbag12::Compression::Lz4,
            ("bag", Some("bz2")) => rosbag12::Compression::Bz2,
            ("bag", Some(c)) => {
                return Err(PyValueError::new_err(format!(
                    "compression of a ROS 1 bag must be 'lz4', 'bz2' or 'none', not {c:?} (the \
                     bag format has no zstd)"
                )));
            }
            _ => rosbag12::Compression::None,
        };
        let policy = OutputPolicy::new(force);
        let sink = match format {
            "mcap" => {
                let file = AtomicFile::create(&path, &policy).map_err(refused)?;
                let defaults = mcapfile::WriteOptions::default();
                let opts = mcapfile::WriteOptions {
                    profile: profile.unwrap_or("").to_string(),
                    compression: mcap_compression,
                    chunk_size: chunk_size.unwrap_or(defaults.chunk_size),
                    ..defaults
                };
                Sink::Mcap(Box::new(mcapfile::Writer::new(file, opts).map_err(os)?))
            }
            "bag" => {
                let file = AtomicFile::create(&path, &policy).map_err(refused)?;
                let mut opts = rosbag12::WriterOptions::compressed(bag_compression);
                if let Some(n) = chunk_size {
                    opts.chunk_threshold = usize::try_from(n).unwrap_or(usize::MAX);
                }
                Sink::Bag(Box::new(rosbag12::Writer::new(file, opts).map_err(os)?))
            }
            _ => {
                if path.exists() && !force {
                    return Err(PyFileExistsError::new_err(format!(
                        "{} exists; not replaced (pass force=True to replace it)",
                        path.display()
                    )));
                }
                let opts =
                    rosbag2::WriteOptions::new(rosbag2::StorageId::Mcap).with_overwrite(force);
                Sink::Bag2(Box::new(
                    rosbag2::Bag2Writer::create(&path, opts).map_err(os)?,
                ))
            }
        };
        Ok(Writer {
            path,
            format,
            profile: profile.map(str::to_string),
            sink: Some(sink),
            chans: Vec::new(),
            by_topic: HashMap::new(),
            seq: 0,
        })
    }

    /// Declares a topic; its channel id. `definition`: the ROS 1 or ROS 2
    /// message definition (None: the bundled standard type), a JSON
    /// schema (optional), or a protobuf FileDescriptorSet as bytes.
    /// `encoding`: `ros1`, `cdr`, `json` or `protobuf` (None: the
    /// format's and profile's, protobuf for a bytes definition).
    #[pyo3(signature = (topic, r#type, definition = None, encoding = None))]
    fn add_channel(
        &mut self,
        topic: &str,
        r#type: &str,
        definition: Option<&Bound<'_, PyAny>>,
        encoding: Option<&str>,
    ) -> PyResult<u32> {
        if self.by_topic.contains_key(topic) {
            return Err(PyValueError::new_err(format!(
                "{topic} is already a channel"
            )));
        }
        let def_bytes: Option<Vec<u8>> = match definition {
            Some(d) if d.is_instance_of::<PyBytes>() => Some(d.extract()?),
            _ => None,
        };
        let def_text: Option<String> = match definition {
            Some(d) if d.is_none() => None,
            Some(d) if d.is_instance_of::<PyBytes>() => None,
            Some(d) => Some(d.extract().map_err(|_| {
                PyTypeError::new_err(
                    "definition must be a str, bytes (a FileDescriptorSet) or None",
                )
            })?),
            None => None,
        };
        let encoding = match (encoding, self.format, self.profile.as_deref()) {
            (Some(e), _, _) => e.to_string(),
            (None, "bag", _) | (None, "mcap", Some("ros1")) => "ros1".into(),
            (None, "rosbag2", _) | (None, "mcap", Some("ros2")) => "cdr".into(),
            (None, _, _) if def_bytes.is_some() => "protobuf".into(),
            (None, _, _) => "json".into(),
        };
        let allowed = match self.format {
            "bag" => encoding == "ros1",
            "rosbag2" => encoding == "cdr",
            _ => matches!(encoding.as_str(), "ros1" | "cdr" | "json" | "protobuf"),
        };
        if !allowed {
            return Err(PyValueError::new_err(format!(
                "a {} output cannot hold {encoding:?} messages",
                self.format
            )));
        }
        let ty = r#type;
        let (encoder, schema_encoding, schema_data, md5): (Encoder, &str, Vec<u8>, String) =
            match encoding.as_str() {
                "ros1" => {
                    let (text, md5) = match def_text {
                        Some(t) => {
                            let md5 = robolog::encode::ros1_md5sum(ty, &t)
                                .map_err(|e| PyValueError::new_err(format!("{ty}: {e}")))?;
                            (t, md5)
                        }
                        None => robolog::encode::ros1_standard_definition(ty).ok_or_else(|| {
                            PyValueError::new_err(format!(
                                "{ty} is not a bundled standard type: give its definition"
                            ))
                        })?,
                    };
                    let t = rosbag12::MessageType::parse(ty, &text)
                        .map_err(|e| PyValueError::new_err(format!("{ty}: {e}")))?;
                    (
                        Encoder::Ros1(Box::new(t)),
                        "ros1msg",
                        text.into_bytes(),
                        md5,
                    )
                }
                "cdr" => {
                    let text = match def_text {
                        Some(t) => t,
                        None => rosbag2::Definitions::default().resolve(ty).ok_or_else(|| {
                            PyValueError::new_err(format!(
                                "{ty} is not a bundled standard type: give its definition"
                            ))
                        })?,
                    };
                    let full = rosbag2::interfaces::full_name(ty);
                    let t = ros2cdr::MessageType::parse(&full, &text)
                        .map_err(|e| PyValueError::new_err(format!("{ty}: {e}")))?;
                    (
                        Encoder::Cdr(Box::new(t)),
                        "ros2msg",
                        text.into_bytes(),
                        String::new(),
                    )
                }
                "json" => (
                    Encoder::Json,
                    "jsonschema",
                    def_text.unwrap_or_default().into_bytes(),
                    String::new(),
                ),
                "protobuf" => {
                    let set = def_bytes.ok_or_else(|| {
                        PyValueError::new_err(
                            "a protobuf channel needs its FileDescriptorSet as bytes (definition=)",
                        )
                    })?;
                    let t = robolog::encode::ProtobufType::new(&set, ty)
                        .map_err(|e| PyValueError::new_err(format!("{ty}: {e}")))?;
                    (Encoder::Protobuf(t), "protobuf", set, String::new())
                }
                other => {
                    return Err(PyValueError::new_err(format!(
                        "encoding must be 'ros1', 'cdr', 'json' or 'protobuf', not {other:?}"
                    )));
                }
            };
        let shape = match &encoder {
            Encoder::Ros1(t) => t.value_type(),
            Encoder::Cdr(t) => t.value_type(),
            _ => None,
        };
        let sink = self.open()?;
        let id = match sink {
            Sink::Bag(w) => {
                let text = String::from_utf8_lossy(&schema_data).into_owned();
                w.add_connection(rosbag12::Connection::new(0, topic, ty, &md5, &text))
                    .map_err(os)?
            }
            Sink::Mcap(w) => {
                let schema = if schema_data.is_empty() && encoding == "json" {
                    0
                } else {
                    w.add_schema(ty, schema_encoding, &schema_data)
                        .map_err(os)?
                };
                u32::from(
                    w.add_channel(schema, topic, &encoding, &BTreeMap::new())
                        .map_err(os)?,
                )
            }
            Sink::Bag2(w) => {
                let text = String::from_utf8_lossy(&schema_data).into_owned();
                let full = rosbag2::interfaces::full_name(ty);
                w.add_topic(topic, &full, &rosbag2::TopicDefinition::msg(text), &[])
                    .map_err(os)?
            }
        };
        self.by_topic.insert(topic.to_string(), self.chans.len());
        self.chans.push(Chan { id, encoder, shape });
        Ok(id)
    }

    /// Writes a message on `topic` at `log_time` (int ns): `data` a dict
    /// of its fields, or `bytes` already encoded (written as given).
    #[pyo3(signature = (topic, data, log_time, publish_time = None))]
    fn write(
        &mut self,
        topic: &str,
        data: &Bound<'_, PyAny>,
        log_time: i64,
        publish_time: Option<i64>,
    ) -> PyResult<()> {
        let i = *self.by_topic.get(topic).ok_or_else(|| {
            let mut known: Vec<&str> = self.by_topic.keys().map(String::as_str).collect();
            known.sort_unstable();
            PyKeyError::new_err(format!(
                "no channel {topic}: add_channel it first; the channels: {}",
                known.join(", ")
            ))
        })?;
        let chan = &self.chans[i];
        let bytes: Vec<u8> = if let Ok(b) = data.cast::<PyBytes>() {
            b.as_bytes().to_vec()
        } else {
            match &chan.encoder {
                Encoder::Ros1(t) => {
                    let v = to_value(data, chan.shape.as_ref(), "")?;
                    t.encode(&v)
                        .map_err(|e| PyValueError::new_err(e.to_string()))?
                }
                Encoder::Cdr(t) => {
                    let v = to_value(data, chan.shape.as_ref(), "")?;
                    robolog::encode::cdr(t, &v).map_err(PyValueError::new_err)?
                }
                Encoder::Json => serde_json::to_vec(&to_json(data, "")?)
                    .map_err(|e| PyValueError::new_err(e.to_string()))?,
                Encoder::Protobuf(t) => t
                    .encode(&to_json(data, "")?)
                    .map_err(PyValueError::new_err)?,
            }
        };
        let publish = publish_time.unwrap_or(log_time);
        let id = chan.id;
        self.seq = self.seq.wrapping_add(1);
        let seq = self.seq;
        let sink = self.open()?;
        match sink {
            Sink::Bag(w) => {
                let ns = u64::try_from(log_time)
                    .map_err(|_| PyValueError::new_err("log_time before 1970 in a bag"))?;
                let t = rosbag12::RosTime {
                    sec: u32::try_from(ns / 1_000_000_000)
                        .map_err(|_| PyValueError::new_err("log_time past 2106 in a bag"))?,
                    nsec: (ns % 1_000_000_000) as u32,
                };
                w.write(id, t, &bytes).map_err(os)
            }
            Sink::Mcap(w) => {
                let (lt, pt) = (
                    u64::try_from(log_time)
                        .map_err(|_| PyValueError::new_err("negative log_time"))?,
                    u64::try_from(publish)
                        .map_err(|_| PyValueError::new_err("negative publish_time"))?,
                );
                w.write_message(id as u16, seq, lt, pt, &bytes).map_err(os)
            }
            Sink::Bag2(w) => w.write(id, log_time, &bytes).map_err(os),
        }
    }

    /// Completes the log and renames it into place (nothing when closed).
    fn close(&mut self) -> PyResult<()> {
        match self.sink.take() {
            None => Ok(()),
            Some(Sink::Bag(mut w)) => {
                w.finish().map_err(os)?;
                w.into_inner().commit().map_err(os)
            }
            Some(Sink::Mcap(w)) => w.finish().map_err(os)?.commit().map_err(os),
            Some(Sink::Bag2(w)) => w.finish().map(|_| ()).map_err(os),
        }
    }

    /// Drops what was written: no output is left.
    fn abort(&mut self) {
        self.sink = None;
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Closes the log, or drops it when the block raised.
    #[pyo3(signature = (exc_type = None, _exc = None, _tb = None))]
    fn __exit__(
        &mut self,
        exc_type: Option<&Bound<'_, PyAny>>,
        _exc: Option<&Bound<'_, PyAny>>,
        _tb: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        match exc_type {
            Some(t) if !t.is_none() => self.abort(),
            _ => self.close()?,
        }
        Ok(false)
    }

    /// The output's path.
    #[getter]
    fn path(&self) -> String {
        self.path.display().to_string()
    }

    /// Whether the writer is closed.
    #[getter]
    fn closed(&self) -> bool {
        self.sink.is_none()
    }
}

impl Writer {
    fn open(&mut self) -> PyResult<&mut Sink> {
        self.sink
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("the writer is closed"))
    }
}

fn at(path: &str) -> String {
    if path.is_empty() {
        "message".to_string()
    } else {
        path.to_string()
    }
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

fn got(obj: &Bound<'_, PyAny>) -> String {
    obj.repr()
        .map(|r| {
            let s = r.to_string();
            if s.len() > 60 {
                format!("{}...", &s[..57])
            } else {
                s
            }
        })
        .unwrap_or_else(|_| "?".into())
}

fn type_name(t: &ValueType) -> &'static str {
    match t {
        ValueType::Bool => "bool",
        ValueType::I8 => "int8",
        ValueType::I16 => "int16",
        ValueType::I32 => "int32",
        ValueType::I64 => "int64",
        ValueType::U8 => "uint8",
        ValueType::U16 => "uint16",
        ValueType::U32 => "uint32",
        ValueType::U64 => "uint64",
        ValueType::F32 => "float32",
        ValueType::F64 => "float64",
        ValueType::String => "string",
        ValueType::Bytes => "bytes",
        ValueType::Time => "time",
        ValueType::Duration => "duration",
        ValueType::FixedArray(..) | ValueType::List(_) => "array",
        ValueType::Struct(_) => "dict",
        _ => "value",
    }
}

/// A numpy array (or anything with `tolist`) as a Python list.
fn listed<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if !obj.is_instance_of::<PyList>()
        && !obj.is_instance_of::<PyTuple>()
        && obj.hasattr("tolist")?
    {
        obj.call_method0("tolist")
    } else {
        Ok(obj.clone())
    }
}

/// An integer of `t`'s width.
fn int_of(obj: &Bound<'_, PyAny>, t: &ValueType, path: &str) -> PyResult<Value> {
    let obj = listed(obj)?;
    let wrong = || {
        PyTypeError::new_err(format!(
            "{}: expected {}, got {}",
            at(path),
            type_name(t),
            got(&obj)
        ))
    };
    if obj.is_instance_of::<PyFloat>() || obj.is_instance_of::<PyString>() {
        return Err(wrong());
    }
    let n: i128 = obj.extract().map_err(|_| wrong())?;
    let (lo, hi): (i128, i128) = match t {
        ValueType::Bool => (0, 1),
        ValueType::I8 => (i8::MIN.into(), i8::MAX.into()),
        ValueType::I16 => (i16::MIN.into(), i16::MAX.into()),
        ValueType::I32 => (i32::MIN.into(), i32::MAX.into()),
        ValueType::I64 => (i64::MIN.into(), i64::MAX.into()),
        ValueType::U8 => (0, u8::MAX.into()),
        ValueType::U16 => (0, u16::MAX.into()),
        ValueType::U32 => (0, u32::MAX.into()),
        _ => (0, u64::MAX.into()),
    };
    if n < lo || n > hi {
        return Err(PyValueError::new_err(format!(
            "{}: {n} is out of the range of {} ({lo} to {hi})",
            at(path),
            type_name(t)
        )));
    }
    Ok(match t {
        ValueType::Bool => Value::Bool(n != 0),
        ValueType::U64 => Value::U64(n as u64),
        _ => Value::I64(n as i64),
    })
}

/// A time or duration: int ns, or a dict {sec, nanosec}, {sec, nsec} or
/// {secs, nsecs}.
fn time_of(obj: &Bound<'_, PyAny>, t: &ValueType, path: &str) -> PyResult<Value> {
    let ns: i64 = if let Ok(d) = obj.cast::<PyDict>() {
        let part = |names: &[&str], ty: ValueType| -> PyResult<i64> {
            for n in names {
                if let Some(v) = d.get_item(n)? {
                    return match int_of(&v, &ty, &join(path, n))? {
                        Value::I64(x) => Ok(x),
                        Value::U64(x) => Ok(x as i64),
                        _ => Ok(0),
                    };
                }
            }
            Err(PyValueError::new_err(format!(
                "{}: missing (a time is int ns or a dict of sec and nanosec)",
                join(path, names[0])
            )))
        };
        let sec = part(&["sec", "secs"], ValueType::I32)?;
        let nsec = part(&["nanosec", "nsec", "nsecs"], ValueType::U32)?;
        sec * 1_000_000_000 + nsec
    } else if obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>() {
        obj.extract().map_err(|_| {
            PyValueError::new_err(format!("{}: {} is out of range", at(path), got(obj)))
        })?
    } else {
        return Err(PyTypeError::new_err(format!(
            "{}: expected {} (int ns or a dict of sec and nanosec), got {}",
            at(path),
            type_name(t),
            got(obj)
        )));
    };
    Ok(match t {
        ValueType::Time => Value::Time(Timestamp(ns)),
        _ => Value::Duration(ns),
    })
}

/// The zero value of `t`: what a field left out of a dict takes.
fn zero(t: &ValueType) -> Value {
    match t {
        ValueType::Bool => Value::Bool(false),
        ValueType::U64 => Value::U64(0),
        ValueType::F32 => Value::F32(0.0),
        ValueType::F64 => Value::F64(0.0),
        ValueType::String => Value::String(String::new()),
        ValueType::Bytes => Value::Bytes(Vec::new()),
        ValueType::Time => Value::Time(Timestamp(0)),
        ValueType::Duration => Value::Duration(0),
        ValueType::FixedArray(e, n) => Value::Array(vec![zero(e); *n]),
        ValueType::List(_) => Value::Array(Vec::new()),
        ValueType::Struct(fields) => Value::Struct(
            fields
                .iter()
                .map(|f| (f.name.clone(), zero(&f.ty)))
                .collect(),
        ),
        _ => Value::I64(0),
    }
}

/// `obj` as a value of type `t` (`None`: any JSON-like value).
fn to_value(obj: &Bound<'_, PyAny>, t: Option<&ValueType>, path: &str) -> PyResult<Value> {
    let Some(t) = t else {
        return Err(PyValueError::new_err(format!(
            "{}: the channel's definition gives no value type",
            at(path)
        )));
    };
    match t {
        ValueType::Bool
        | ValueType::I8
        | ValueType::I16
        | ValueType::I32
        | ValueType::I64
        | ValueType::U8
        | ValueType::U16
        | ValueType::U32
        | ValueType::U64 => {
            if matches!(t, ValueType::Bool) && obj.is_instance_of::<PyBool>() {
                return Ok(Value::Bool(obj.extract()?));
            }
            int_of(obj, t, path)
        }
        ValueType::F32 | ValueType::F64 => {
            let obj = listed(obj)?;
            if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBool>() {
                return Err(PyTypeError::new_err(format!(
                    "{}: expected {}, got {}",
                    at(path),
                    type_name(t),
                    got(&obj)
                )));
            }
            let x: f64 = obj.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{}: expected {}, got {}",
                    at(path),
                    type_name(t),
                    got(&obj)
                ))
            })?;
            Ok(Value::F64(x))
        }
        ValueType::String => {
            let s: String = obj.extract().map_err(|_| {
                PyTypeError::new_err(format!("{}: expected string, got {}", at(path), got(obj)))
            })?;
            Ok(Value::String(s))
        }
        ValueType::Bytes => {
            if let Ok(b) = obj.cast::<PyBytes>() {
                return Ok(Value::Bytes(b.as_bytes().to_vec()));
            }
            if let Ok(b) = obj.cast::<PyByteArray>() {
                return Ok(Value::Bytes(b.to_vec()));
            }
            let list = listed(obj)?;
            let items: Vec<Bound<'_, PyAny>> = list
                .try_iter()
                .map_err(|_| {
                    PyTypeError::new_err(format!("{}: expected bytes, got {}", at(path), got(obj)))
                })?
                .collect::<PyResult<_>>()?;
            let mut out = Vec::with_capacity(items.len());
            for (i, x) in items.iter().enumerate() {
                match int_of(x, &ValueType::U8, &format!("{path}[{i}]"))? {
                    Value::I64(n) => out.push(n as u8),
                    _ => out.push(0),
                }
            }
            Ok(Value::Bytes(out))
        }
        ValueType::Time | ValueType::Duration => time_of(obj, t, path),
        ValueType::FixedArray(e, _) | ValueType::List(e) => {
            let list = listed(obj)?;
            if list.is_instance_of::<PyString>() || list.is_instance_of::<PyDict>() {
                return Err(PyTypeError::new_err(format!(
                    "{}: expected a list, got {}",
                    at(path),
                    got(obj)
                )));
            }
            let items: Vec<Bound<'_, PyAny>> = list
                .try_iter()
                .map_err(|_| {
                    PyTypeError::new_err(format!("{}: expected a list, got {}", at(path), got(obj)))
                })?
                .collect::<PyResult<_>>()?;
            if let ValueType::FixedArray(_, n) = t {
                if items.len() != *n {
                    return Err(PyValueError::new_err(format!(
                        "{}: expected {n} values, got {}",
                        at(path),
                        items.len()
                    )));
                }
            }
            let values = items
                .iter()
                .enumerate()
                .map(|(i, x)| to_value(x, Some(e), &format!("{path}[{i}]")))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(Value::Array(values))
        }
        ValueType::Struct(fields) => {
            let d = obj.cast::<PyDict>().map_err(|_| {
                PyTypeError::new_err(format!("{}: expected a dict, got {}", at(path), got(obj)))
            })?;
            for k in d.keys() {
                let k: String = k.extract().map_err(|_| {
                    PyTypeError::new_err(format!("{}: field names are strings", at(path)))
                })?;
                if !fields.iter().any(|f| f.name.as_str() == k) {
                    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
                    return Err(PyValueError::new_err(format!(
                        "{}: no such field; the fields: {}",
                        join(path, &k),
                        names.join(", ")
                    )));
                }
            }
            let mut out = Vec::with_capacity(fields.len());
            for f in fields {
                let v = match d.get_item(f.name.as_str())? {
                    Some(v) => to_value(&v, Some(&f.ty), &join(path, f.name.as_str()))?,
                    None => zero(&f.ty),
                };
                out.push((f.name.clone(), v));
            }
            Ok(Value::Struct(out))
        }
        _ => Err(PyValueError::new_err(format!(
            "{}: values of this type are not written",
            at(path)
        ))),
    }
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                s.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// `obj` as JSON: dicts, lists (numpy arrays through `tolist`), strings,
/// numbers, booleans, None; bytes as base64 text.
fn to_json(obj: &Bound<'_, PyAny>, path: &str) -> PyResult<serde_json::Value> {
    use serde_json::Value as J;
    if obj.is_none() {
        return Ok(J::Null);
    }
    if obj.is_instance_of::<PyBool>() {
        return Ok(J::Bool(obj.extract()?));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(n) = obj.extract::<i64>() {
            return Ok(J::from(n));
        }
        if let Ok(n) = obj.extract::<u64>() {
            return Ok(J::from(n));
        }
        return Err(PyValueError::new_err(format!(
            "{}: {} is out of the 64-bit range",
            at(path),
            got(obj)
        )));
    }
    if obj.is_instance_of::<PyFloat>() {
        let x: f64 = obj.extract()?;
        return Ok(serde_json::Number::from_f64(x).map_or_else(
            || {
                J::String(if x.is_nan() {
                    "NaN".into()
                } else if x > 0.0 {
                    "Infinity".into()
                } else {
                    "-Infinity".into()
                })
            },
            J::Number,
        ));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(J::String(s.to_cow()?.into_owned()));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(J::String(base64(b.as_bytes())));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut m = serde_json::Map::new();
        for (k, v) in d.iter() {
            let k: String = k.extract().map_err(|_| {
                PyTypeError::new_err(format!("{}: field names are strings", at(path)))
            })?;
            let here = join(path, &k);
            m.insert(k, to_json(&v, &here)?);
        }
        return Ok(J::Object(m));
    }
    let list = listed(obj)?;
    if list.is_instance_of::<PyList>() || list.is_instance_of::<PyTuple>() {
        let items = list
            .try_iter()?
            .enumerate()
            .map(|(i, x)| to_json(&x?, &format!("{path}[{i}]")))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(J::Array(items));
    }
    if !list.is(obj) {
        return to_json(&list, path);
    }
    Err(PyTypeError::new_err(format!(
        "{}: expected a JSON value (dict, list, str, number, bool, None), got {}",
        at(path),
        got(obj)
    )))
}
