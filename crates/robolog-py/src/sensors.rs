//! Sensor data as numpy arrays and Arrow tables: `Log.images`,
//! `Log.points`, `Log.points_table` and `Log.track`, on
//! [`robolog_sensors`].
//!
//! The frames and clouds of a topic are read as they are consumed, like
//! `Log.scan`: the library's iterators borrow the log, so one thread of
//! its own per stream reads and decodes the messages (never holding the
//! GIL) and hands each decoded message over a channel that holds one:
//! memory holds a message or two, whatever the topic's size. Each array
//! owns the bytes the decoder made (numpy views them with the message's
//! dtype, no copy, no Python loop per pixel or point).
//!
//! A `sensor_msgs/PointCloud2` of a ROS 1 or CDR channel is not decoded
//! at all ([`robolog_sensors::raw_clouds`]): where its points are stored
//! in this machine's byte order with rows back to back, the array is a
//! read-only view of the log's bytes ([`LogBytes`]) with the fields at
//! their stored offsets and `point_step` as item size, as
//! `sensor_msgs_py.read_points` makes it; otherwise (`drop_nan`, the
//! other byte order, padded rows) its records are packed from the wire
//! bytes as the decoded path packs them.

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};

use arrow_array::{
    ArrayRef, DurationNanosecondArray, Float64Array, Int32Array, RecordBatch,
    TimestampNanosecondArray, UInt32Array,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use numpy::PyArray1;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use robolog_sensors::{
    Cloud, CloudField, CloudOptions, Dtype, Error as SensorsError, Image, ImageOptions, Problem,
    Range, RawCloud,
};

use crate::buffer::LogBytes;
use crate::errors::{Failure, guarded};
use crate::interrupt;
use crate::source::Shared;
use crate::table::Table;

/// What a stream's thread decodes.
enum Payload {
    Image(Image),
    Cloud(Cloud),
    /// The points of a cloud as stored: `points` records of `point_step`
    /// bytes with `fields` at their offsets.
    View {
        bytes: LogBytes,
        fields: Vec<CloudField>,
        point_step: usize,
    },
}

/// What the reading thread hands over.
enum Part {
    /// The topic was found and holds the kind asked for.
    Started,
    /// The next message's log time (ns) and data.
    Item(i64, Payload),
    /// Every message was read; the problems met, as text.
    End(Vec<String>),
    /// Resolving the topic or reading failed.
    Failed(Failure),
}

/// Which decoder a stream runs.
#[derive(Clone, Copy)]
pub(crate) enum Want {
    Images(ImageOptions),
    Clouds(CloudOptions),
}

/// A topic's frames or clouds, read as they are consumed (Log.images,
/// Log.points).
///
/// Iterating gives (log_time, numpy array) pairs in the log's order: the
/// log time in ns on the log's clock; an image as an array of shape
/// (height, width) or (height, width, channels) in the image's own dtype,
/// a cloud as a structured array with the cloud's own field names and
/// dtypes. A message that does not fit its type's layout is skipped and
/// named in `problems`, read once every message was read.
#[pyclass(module = "robolog")]
pub(crate) struct SensorStream {
    shared: Arc<Shared>,
    topic: String,
    parts: Mutex<Option<Receiver<Part>>>,
    problems: Vec<String>,
    /// The dtype of the last viewed cloud, with its fields and item
    /// size (a topic's clouds mostly share one).
    view_dtype: Option<(Vec<CloudField>, usize, Py<PyAny>)>,
}

/// A sensors error as Python raises it: an unknown topic is a `KeyError`,
/// a topic of another kind a `TypeError`.
fn failure(e: SensorsError) -> Failure {
    match e {
        SensorsError::Log(e) => Failure::Log(e),
        SensorsError::UnknownTopic { topic } => Failure::Missing(format!("no topic {topic}")),
        e @ SensorsError::NotSensor { .. } => Failure::WrongKind(e.to_string()),
        other => Failure::Log(logcore::Error::invalid_argument(other.to_string())),
    }
}

impl SensorStream {
    /// Starts reading `topic` on a thread of its own and waits (without
    /// the GIL) until the topic is resolved.
    pub(crate) fn start(
        py: Python<'_>,
        shared: Arc<Shared>,
        topic: &str,
        range: Range,
        want: Want,
    ) -> PyResult<SensorStream> {
        let (tx, rx) = sync_channel(1);
        let reading = Arc::clone(&shared);
        let t = topic.to_string();
        std::thread::Builder::new()
            .name("robolog-sensors".into())
            .spawn(move || work(&reading, &t, &range, want, &tx))
            .map_err(|e| PyRuntimeError::new_err(format!("robolog: no thread to read on: {e}")))?;
        let first = py.detach(move || guarded(|| Ok((interrupt::recv(&rx), rx))));
        let (first, rx) = match first {
            Ok(got) => got,
            Err(f) => return Err(f.into_py(py, shared.path.as_deref())),
        };
        match first {
            Ok(Part::Started) => Ok(SensorStream {
                shared,
                topic: topic.to_string(),
                parts: Mutex::new(Some(rx)),
                problems: Vec::new(),
                view_dtype: None,
            }),
            Ok(Part::Failed(f)) => Err(f.into_py(py, shared.path.as_deref())),
            _ => Err(PyRuntimeError::new_err(
                "robolog: the sensor stream's thread stopped before it started",
            )),
        }
    }
}

/// The reading thread: started, the items, then the end.
fn work(shared: &Arc<Shared>, topic: &str, range: &Range, want: Want, tx: &SyncSender<Part>) {
    let last = match shared.unless_changed(guarded(|| read(shared, topic, range, want, tx))) {
        Ok(problems) => Part::End(problems),
        Err(f) => Part::Failed(f),
    };
    // The stream may be gone already: nobody is left to tell.
    let _ = tx.send(last);
}

/// Hands over each decoded message; the problems met.
fn read(
    shared: &Arc<Shared>,
    topic: &str,
    range: &Range,
    want: Want,
    tx: &SyncSender<Part>,
) -> Result<Vec<String>, Failure> {
    let log = shared.log();
    let mut problems = Vec::new();
    let mut send = |item: Result<(i64, Payload), Problem>| -> Result<bool, Failure> {
        interrupt::poll();
        match item {
            Ok(part) => {
                // A message read from a file changed meanwhile is not
                // handed over.
                shared.unless_changed(Ok(()))?;
                Ok(tx.send(Part::Item(part.0, part.1)).is_ok())
            }
            Err(p) => {
                problems.push(p.to_string());
                Ok(true)
            }
        }
    };
    match want {
        Want::Images(opts) => {
            let it = robolog_sensors::images(log, topic, range, opts).map_err(failure)?;
            if tx.send(Part::Started).is_err() {
                return Ok(Vec::new());
            }
            for s in it {
                let s = s.map(|s| (s.log_time.as_nanos(), Payload::Image(s.value)));
                if !send(s)? {
                    break;
                }
            }
        }
        Want::Clouds(opts) => {
            if let Some(it) = robolog_sensors::raw_clouds(log, topic, range).map_err(failure)? {
                if tx.send(Part::Started).is_err() {
                    return Ok(Vec::new());
                }
                for c in it {
                    let s = c.and_then(|c| {
                        let t = c.log_time.as_nanos();
                        if let Some(v) = view(shared, &c, &opts) {
                            return Ok((t, v));
                        }
                        c.to_cloud(&opts)
                            .map(|cloud| (t, Payload::Cloud(cloud)))
                            .map_err(|e| Problem {
                                topic: topic.to_string(),
                                log_time: Some(c.log_time),
                                message: e.to_string(),
                            })
                    });
                    if !send(s)? {
                        break;
                    }
                }
                return Ok(problems);
            }
            let it = robolog_sensors::clouds(log, topic, range, opts).map_err(failure)?;
            if tx.send(Part::Started).is_err() {
                return Ok(Vec::new());
            }
            for s in it {
                let s = s.map(|s| (s.log_time.as_nanos(), Payload::Cloud(s.value)));
                if !send(s)? {
                    break;
                }
            }
        }
    }
    Ok(problems)
}

/// A cloud as a view of its stored points, where it can be one: not
/// `drop_nan`, values in this machine's byte order, rows back to back
/// ([`robolog_sensors::CloudLayout::native_points`]).
fn view(shared: &Arc<Shared>, c: &RawCloud<'_>, opts: &CloudOptions) -> Option<Payload> {
    if opts.drop_nan {
        return None;
    }
    let span = c.layout.native_points()?;
    let point_step = c.layout.point_step as usize;
    let bytes = LogBytes::of(shared, &c.payload, span, point_step)?;
    Some(Payload::View {
        bytes,
        fields: c.layout.fields.clone(),
        point_step,
    })
}

/// The numpy dtype of stored points: the fields' names and dtypes at
/// their offsets in points of `itemsize` bytes (a field of several values
/// a sub-array): the dtype of [`cloud_dtype`] with the stored offsets.
fn fields_dtype<'py>(
    py: Python<'py>,
    fields: &[CloudField],
    itemsize: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let (mut names, mut formats, mut offsets) = (Vec::new(), Vec::new(), Vec::new());
    for f in fields {
        names.push(f.field.name.clone());
        formats.push(field_format(py, &f.field)?);
        offsets.push(f.offset);
    }
    let spec = PyDict::new(py);
    spec.set_item("names", PyList::new(py, names)?)?;
    spec.set_item("formats", PyList::new(py, formats)?)?;
    spec.set_item("offsets", PyList::new(py, offsets)?)?;
    spec.set_item("itemsize", itemsize)?;
    py.import("numpy")?.getattr("dtype")?.call1((spec,))
}

/// A field's numpy format: its dtype's name, or (name, (count,)).
fn field_format<'py>(
    py: Python<'py>,
    f: &robolog_sensors::PointField,
) -> PyResult<Bound<'py, PyAny>> {
    let one = f.dtype.name().into_pyobject(py)?.into_any();
    Ok(if f.count == 1 {
        one
    } else {
        PyTuple::new(py, [one, PyTuple::new(py, [f.count])?.into_any()])?.into_any()
    })
}

/// The numpy array of a frame: (height, width) or (height, width,
/// channels) of the image's dtype, owning the decoded bytes.
fn image_array<'py>(py: Python<'py>, image: Image) -> PyResult<Bound<'py, PyAny>> {
    let (h, w, c) = (
        image.height as usize,
        image.width as usize,
        image.channels(),
    );
    let dtype = image.dtype.name();
    let flat = PyArray1::from_vec(py, image.data).call_method1("view", (dtype,))?;
    if c == 1 {
        flat.call_method1("reshape", ((h, w),))
    } else {
        flat.call_method1("reshape", ((h, w, c),))
    }
}

/// The numpy dtype of a cloud's records: its fields' names and dtypes at
/// their packed offsets (a field of several values a sub-array).
fn cloud_dtype<'py>(py: Python<'py>, cloud: &Cloud) -> PyResult<Bound<'py, PyAny>> {
    let (mut names, mut formats, mut offsets) = (Vec::new(), Vec::new(), Vec::new());
    let mut at = 0usize;
    for f in &cloud.fields {
        names.push(f.name.clone());
        formats.push(field_format(py, f)?);
        offsets.push(at);
        at += f.size();
    }
    let spec = PyDict::new(py);
    spec.set_item("names", PyList::new(py, names)?)?;
    spec.set_item("formats", PyList::new(py, formats)?)?;
    spec.set_item("offsets", PyList::new(py, offsets)?)?;
    spec.set_item("itemsize", cloud.record_size().max(1))?;
    py.import("numpy")?.getattr("dtype")?.call1((spec,))
}

/// The numpy structured array of a cloud, owning the decoded records.
fn cloud_array<'py>(py: Python<'py>, cloud: Cloud) -> PyResult<Bound<'py, PyAny>> {
    let dtype = cloud_dtype(py, &cloud)?;
    if cloud.record_size() == 0 {
        return py
            .import("numpy")?
            .getattr("zeros")?
            .call1((cloud.points, dtype));
    }
    PyArray1::from_vec(py, cloud.data).call_method1("view", (dtype,))
}

#[pymethods]
impl SensorStream {
    /// The topic read.
    #[getter]
    fn topic(&self) -> &str {
        &self.topic
    }

    /// The messages skipped, each "TOPIC at TIME: what did not fit", once
    /// every message was read; empty before.
    #[getter]
    fn problems(&self) -> Vec<String> {
        self.problems.clone()
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next (log_time, array).
    fn __next__<'py>(
        mut slf: PyRefMut<'py, Self>,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let path = slf.shared.path.clone();
        let part = interrupt::next_from(py, &mut slf.parts, path.as_deref())?;
        let (t, payload) = match part {
            Some(Part::Item(t, payload)) => (t, payload),
            other => {
                // The stream is over: read once.
                *slf.parts.get_mut().unwrap_or_else(PoisonError::into_inner) = None;
                return match other {
                    Some(Part::End(problems)) => {
                        slf.problems = problems;
                        Ok(None)
                    }
                    Some(Part::Failed(f)) => Err(f.into_py(py, path.as_deref())),
                    _ => Ok(None),
                };
            }
        };
        let array = match payload {
            Payload::Image(i) => image_array(py, i)?,
            Payload::Cloud(c) => cloud_array(py, c)?,
            Payload::View {
                bytes,
                fields,
                point_step,
            } => {
                let dtype = match &slf.view_dtype {
                    Some((f, s, d)) if *f == fields && *s == point_step => d.bind(py).clone(),
                    _ => {
                        let d = fields_dtype(py, &fields, point_step)?;
                        slf.view_dtype = Some((fields, point_step, d.clone().unbind()));
                        d
                    }
                };
                let bytes = Bound::new(py, bytes)?;
                py.import("numpy")?
                    .getattr("asarray")?
                    .call1((bytes,))?
                    .call_method1("view", (dtype,))?
            }
        };
        Ok(Some(PyTuple::new(
            py,
            [t.into_pyobject(py)?.into_any(), array],
        )?))
    }
}

/// The log times column of a log with `shared`'s clock.
fn log_times(shared: &Shared, times: Vec<i64>) -> (DataType, ArrayRef) {
    let t = robolog_arrow::log_time_type(shared.summary.time_model.clock);
    let a: ArrayRef = match t {
        DataType::Duration(_) => Arc::new(DurationNanosecondArray::from(times)),
        _ => Arc::new(TimestampNanosecondArray::from(times)),
    };
    (t, a)
}

/// One field's column of a points table, filled cloud by cloud.
enum FieldColumn {
    U8(Vec<u8>),
    I8(Vec<i8>),
    U16(Vec<u16>),
    I16(Vec<i16>),
    U32(Vec<u32>),
    I32(Vec<i32>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl FieldColumn {
    fn new(dtype: Dtype) -> Self {
        match dtype {
            Dtype::U8 => FieldColumn::U8(Vec::new()),
            Dtype::I8 => FieldColumn::I8(Vec::new()),
            Dtype::U16 => FieldColumn::U16(Vec::new()),
            Dtype::I16 => FieldColumn::I16(Vec::new()),
            Dtype::U32 => FieldColumn::U32(Vec::new()),
            Dtype::I32 => FieldColumn::I32(Vec::new()),
            Dtype::F32 => FieldColumn::F32(Vec::new()),
            Dtype::F64 => FieldColumn::F64(Vec::new()),
        }
    }

    /// Appends the `count` values at byte `at` of each record of `cloud`
    /// (little-endian, as the decoder packs them).
    fn extend(&mut self, cloud: &Cloud, at: usize, count: usize) {
        fn each<T, const N: usize>(
            out: &mut Vec<T>,
            cloud: &Cloud,
            at: usize,
            count: usize,
            from: fn([u8; N]) -> T,
        ) {
            let size = cloud.record_size();
            if size == 0 {
                return;
            }
            out.reserve(cloud.points * count);
            for r in cloud.data.chunks_exact(size) {
                for k in 0..count {
                    let s = at + k * N;
                    if let Some(b) = r.get(s..s + N).and_then(|b| <[u8; N]>::try_from(b).ok()) {
                        out.push(from(b));
                    }
                }
            }
        }
        match self {
            FieldColumn::U8(v) => each(v, cloud, at, count, u8::from_le_bytes),
            FieldColumn::I8(v) => each(v, cloud, at, count, i8::from_le_bytes),
            FieldColumn::U16(v) => each(v, cloud, at, count, u16::from_le_bytes),
            FieldColumn::I16(v) => each(v, cloud, at, count, i16::from_le_bytes),
            FieldColumn::U32(v) => each(v, cloud, at, count, u32::from_le_bytes),
            FieldColumn::I32(v) => each(v, cloud, at, count, i32::from_le_bytes),
            FieldColumn::F32(v) => each(v, cloud, at, count, f32::from_le_bytes),
            FieldColumn::F64(v) => each(v, cloud, at, count, f64::from_le_bytes),
        }
    }

    /// The column: the values, as a fixed-size list of `count` where a
    /// point holds several.
    fn finish(self, count: usize) -> ArrayRef {
        use arrow_array::{
            Float32Array, Int8Array, Int16Array, Int32Array as I32, UInt8Array, UInt16Array,
        };
        let values: ArrayRef = match self {
            FieldColumn::U8(v) => Arc::new(UInt8Array::from(v)),
            FieldColumn::I8(v) => Arc::new(Int8Array::from(v)),
            FieldColumn::U16(v) => Arc::new(UInt16Array::from(v)),
            FieldColumn::I16(v) => Arc::new(Int16Array::from(v)),
            FieldColumn::U32(v) => Arc::new(UInt32Array::from(v)),
            FieldColumn::I32(v) => Arc::new(I32::from(v)),
            FieldColumn::F32(v) => Arc::new(Float32Array::from(v)),
            FieldColumn::F64(v) => Arc::new(Float64Array::from(v)),
        };
        if count == 1 {
            return values;
        }
        let item = Arc::new(Field::new("item", values.data_type().clone(), false));
        let size = i32::try_from(count).unwrap_or(i32::MAX);
        Arc::new(arrow_array::FixedSizeListArray::new(
            item, size, values, None,
        ))
    }
}

/// Every point of a cloud or scan topic in one table (Log.points_table):
/// `log_time` (the log's time type) and `message` (the cloud's index in
/// the topic, from 0), then the fields of the topic's first cloud. A
/// cloud of other fields is skipped and named in the problems. Built
/// without the GIL.
pub(crate) fn points_table(
    shared: &Shared,
    topic: &str,
    range: &Range,
    opts: CloudOptions,
) -> Result<Table, Failure> {
    let log = shared.log();
    let it = robolog_sensors::clouds(log, topic, range, opts).map_err(failure)?;
    let (mut times, mut messages) = (Vec::new(), Vec::new());
    let mut layout: Option<Vec<robolog_sensors::PointField>> = None;
    let mut columns: Vec<FieldColumn> = Vec::new();
    let mut problems = Vec::new();
    let mut index = 0u32;
    for s in it {
        interrupt::poll();
        let s = match s {
            Ok(s) => s,
            Err(p) => {
                problems.push(p.to_string());
                continue;
            }
        };
        let this = index;
        index = index.saturating_add(1);
        let cloud = s.value;
        let fields = layout.get_or_insert_with(|| {
            columns = cloud
                .fields
                .iter()
                .map(|f| FieldColumn::new(f.dtype))
                .collect();
            cloud.fields.clone()
        });
        if *fields != cloud.fields {
            problems.push(format!(
                "{topic} at {}: the cloud's fields differ from the topic's first cloud's; skipped",
                s.log_time
            ));
            continue;
        }
        let mut at = 0;
        for (f, c) in fields.iter().zip(columns.iter_mut()) {
            c.extend(&cloud, at, f.count as usize);
            at += f.size();
        }
        times.extend(std::iter::repeat_n(s.log_time.as_nanos(), cloud.points));
        messages.extend(std::iter::repeat_n(this, cloud.points));
    }
    shared.unless_changed(Ok(()))?;
    let (time_type, time_column) = log_times(shared, times);
    let mut schema = vec![
        Field::new("log_time", time_type, false),
        Field::new("message", DataType::UInt32, false),
    ];
    let mut arrays = vec![
        time_column,
        Arc::new(UInt32Array::from(messages)) as ArrayRef,
    ];
    for (f, c) in layout.unwrap_or_default().iter().zip(columns) {
        let a = c.finish(f.count as usize);
        schema.push(Field::new(&f.name, a.data_type().clone(), false));
        arrays.push(a);
    }
    table_of(topic, schema, arrays, problems)
}

/// The fixes of a position topic in one table (Log.track): `log_time`,
/// `latitude`, `longitude` (degrees), `altitude` (m, NaN where the
/// message has none) and `status` (the format's fix quality); messages
/// without a fix are left out. Built without the GIL.
pub(crate) fn track_table(shared: &Shared, topic: &str, range: &Range) -> Result<Table, Failure> {
    let (fixes, problems) = robolog_sensors::track(shared.log(), topic, range).map_err(failure)?;
    shared.unless_changed(Ok(()))?;
    let (time_type, time_column) = log_times(
        shared,
        fixes.iter().map(|f| f.log_time.as_nanos()).collect(),
    );
    let float = |get: fn(&robolog_sensors::Fix) -> f64| -> ArrayRef {
        Arc::new(Float64Array::from_iter_values(
            fixes.iter().map(|f| get(&f.value)),
        ))
    };
    let schema = vec![
        Field::new("log_time", time_type, false),
        Field::new("latitude", DataType::Float64, false),
        Field::new("longitude", DataType::Float64, false),
        Field::new("altitude", DataType::Float64, false),
        Field::new("status", DataType::Int32, false),
    ];
    let arrays = vec![
        time_column,
        float(|f| f.latitude),
        float(|f| f.longitude),
        float(|f| f.altitude),
        Arc::new(Int32Array::from_iter_values(
            fixes.iter().map(|f| f.value.status),
        )) as ArrayRef,
    ];
    let problems = problems.iter().map(ToString::to_string).collect();
    table_of(topic, schema, arrays, problems)
}

/// A one-batch Table named by its topic.
fn table_of(
    topic: &str,
    schema: Vec<Field>,
    arrays: Vec<ArrayRef>,
    problems: Vec<String>,
) -> Result<Table, Failure> {
    let schema: SchemaRef = Arc::new(Schema::new(schema));
    let batch = RecordBatch::try_new(Arc::clone(&schema), arrays)
        .map_err(|e| Failure::Panic(format!("robolog: a sensor table did not build: {e}")))?;
    let name = topic.trim_start_matches('/').to_string();
    Ok(Table::new(
        name,
        topic.to_string(),
        schema,
        vec![batch],
        problems,
    ))
}
