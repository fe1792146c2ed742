//! `Log.messages`: the iterator of `Message`s.
//!
//! The library's message iterator borrows the log and cannot move between
//! threads, so one thread of its own per iteration runs it from start to
//! end (never holding the GIL): it reads and decodes the messages into
//! chunks of owned values, a few thousand messages or a few MiB each, and
//! hands them over a channel that holds one chunk. The Python side waits
//! for a chunk with the GIL released, and turns one message at a time into
//! Python objects as it is asked for. One pass of the library's iterator
//! keeps its order exactly (also where a file's times are not monotonic,
//! which resuming at a time could not), and reading overlaps with the
//! Python code consuming the messages. Dropping the iterator closes the
//! channel, and the thread stops at its next chunk.

use std::collections::{HashMap, VecDeque};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};

use logcore::{ChannelId, LogReader, MessageFilter, ReadMode, Timestamp, Value};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use robolog::LenientDecoder;

use crate::errors::{Failure, guarded};
use crate::source::Shared;
use crate::values::value_to_py;

/// Messages per chunk handed to Python.
const CHUNK_MESSAGES: usize = 4096;
/// Payload bytes after which a chunk is handed over early (large messages
/// such as images and point clouds).
const CHUNK_BYTES: usize = 16 << 20;
/// Damage reports in a row after which reading stops (a guard against a
/// reader that cannot get past some damage).
const MAX_ERRORS_IN_A_ROW: usize = 100_000;

/// What the reading thread hands over.
enum Chunk {
    /// The next messages.
    Messages(Vec<Item>),
    /// Every message was read.
    End,
    /// Reading failed (opening the iteration, or a bug).
    Failed(Failure),
}

/// One message, owned.
struct Item {
    channel: ChannelId,
    log_time: i64,
    publish_time: Option<i64>,
    sequence: Option<u64>,
    data: Data,
}

/// A message's data.
enum Data {
    /// Decoded (the payload's bytes where it did not decode).
    Value(Value),
    /// The payload bytes (`raw=True`).
    Raw(Vec<u8>),
}

/// An iterator over a log's messages in log-time order (see
/// Log.messages). Each item is a Message.
#[pyclass(module = "robolog")]
pub(crate) struct Messages {
    /// The log read.
    shared: Arc<Shared>,
    /// The chunks from the reading thread; `None` once they ended.
    chunks: Mutex<Option<Receiver<Chunk>>>,
    /// The messages of the current chunk not yet yielded.
    buffer: VecDeque<Item>,
    /// Each channel's topic as a Python str, made once.
    topics: HashMap<ChannelId, Py<PyString>>,
}

impl Messages {
    /// Starts reading the messages of `channels` (all when `None`) with
    /// `start <= log_time < end` on a thread of their own.
    pub(crate) fn start(
        shared: Arc<Shared>,
        channels: Option<Vec<ChannelId>>,
        start: Option<i64>,
        end: Option<i64>,
        raw: bool,
    ) -> PyResult<Messages> {
        let mut filter = MessageFilter::all().mode(ReadMode::Lenient);
        if let Some(c) = channels {
            filter = filter.channels(c);
        }
        if let Some(s) = start {
            filter = filter.start(Timestamp(s));
        }
        if let Some(e) = end {
            filter = filter.end(Timestamp(e));
        }
        let (tx, rx) = sync_channel(1);
        let reading = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("robolog-messages".into())
            .spawn(move || work(&reading, &filter, raw, &tx))
            .map_err(|e| PyRuntimeError::new_err(format!("robolog: no thread to read on: {e}")))?;
        Ok(Messages {
            shared,
            chunks: Mutex::new(Some(rx)),
            buffer: VecDeque::new(),
            topics: HashMap::new(),
        })
    }

    /// The Python object of `item`.
    fn message(&mut self, py: Python<'_>, item: Item) -> PyResult<Message> {
        let shared = &self.shared;
        let topic = self
            .topics
            .entry(item.channel)
            .or_insert_with(|| PyString::new(py, shared.topic_of(item.channel)).unbind())
            .clone_ref(py);
        let data = match &item.data {
            Data::Value(v) => value_to_py(py, v)?.unbind(),
            Data::Raw(b) => PyBytes::new(py, b).into_any().unbind(),
        };
        Ok(Message {
            topic,
            log_time: item.log_time,
            publish_time: item.publish_time,
            sequence: item.sequence,
            data,
        })
    }
}

/// The reading thread: every message through `filter`, then the end (or
/// the failure).
fn work(shared: &Shared, filter: &MessageFilter, raw: bool, tx: &SyncSender<Chunk>) {
    let last = match shared.unless_changed(guarded(|| read(shared, filter, raw, tx))) {
        Ok(()) => Chunk::End,
        Err(f) => Chunk::Failed(f),
    };
    // The iterator may be gone already: nobody is left to tell.
    let _ = tx.send(last);
}

/// Reads and decodes the messages into chunks sent on `tx`; damage and
/// payloads that do not decode go to the log's problems. Returns early
/// when the receiving iterator is gone.
fn read(
    shared: &Shared,
    filter: &MessageFilter,
    raw: bool,
    tx: &SyncSender<Chunk>,
) -> Result<(), Failure> {
    let log = shared.log();
    let mut decoder = LenientDecoder::new(log);
    let mut chunk = Vec::new();
    let mut bytes = 0usize;
    let mut errors_in_a_row = 0usize;
    for item in log.messages(filter)? {
        let m = match item {
            Ok(m) => m,
            Err(e) => {
                shared.add_problem(e.to_string());
                errors_in_a_row += 1;
                if errors_in_a_row >= MAX_ERRORS_IN_A_ROW {
                    shared.add_problem(format!(
                        "reading stopped after {MAX_ERRORS_IN_A_ROW} damaged records in a row"
                    ));
                    break;
                }
                continue;
            }
        };
        errors_in_a_row = 0;
        bytes += m.payload.len();
        let data = if raw {
            Data::Raw(m.payload.to_vec())
        } else {
            Data::Value(decoder.decode(&m))
        };
        chunk.push(Item {
            channel: m.channel,
            log_time: m.log_time.as_nanos(),
            publish_time: m.publish_time.map(Timestamp::as_nanos),
            sequence: m.sequence,
            data,
        });
        if chunk.len() >= CHUNK_MESSAGES || bytes >= CHUNK_BYTES {
            bytes = 0;
            // A chunk read from a file changed meanwhile is not handed over.
            shared.unless_changed(Ok(()))?;
            if tx
                .send(Chunk::Messages(std::mem::take(&mut chunk)))
                .is_err()
            {
                return Ok(());
            }
        }
    }
    shared.unless_changed(Ok(()))?;
    if !chunk.is_empty() && tx.send(Chunk::Messages(chunk)).is_err() {
        return Ok(());
    }
    for f in decoder.failures() {
        shared.add_problem(format!(
            "topic {:?}: {} message{} could not be decoded and {} given as raw bytes; the first: {}",
            shared.topic_of(f.channel),
            f.count,
            if f.count == 1 { "" } else { "s" },
            if f.count == 1 { "is" } else { "are" },
            f.first
        ));
    }
    Ok(())
}

#[pymethods]
impl Messages {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(mut slf: PyRefMut<'_, Self>, py: Python<'_>) -> PyResult<Option<Message>> {
        loop {
            if let Some(item) = slf.buffer.pop_front() {
                return slf.message(py, item).map(Some);
            }
            let path = slf.shared.path.clone();
            match crate::interrupt::next_from(py, &mut slf.chunks, path.as_deref())? {
                Some(Chunk::Messages(items)) => slf.buffer.extend(items),
                // The thread always ends with `End` or `Failed`; a closed
                // channel without them is an end too.
                Some(Chunk::End) | None => {
                    *slf.chunks.get_mut().unwrap_or_else(PoisonError::into_inner) = None;
                    return Ok(None);
                }
                Some(Chunk::Failed(f)) => {
                    *slf.chunks.get_mut().unwrap_or_else(PoisonError::into_inner) = None;
                    return Err(f.into_py(py, path.as_deref()));
                }
            }
        }
    }
}

/// One message of a log.
///
/// topic: the topic (str).
/// log_time: when it was logged, int ns on the log's clock.
/// publish_time: when it was published (MCAP), int ns, or None.
/// sequence: the publisher's sequence number (MCAP), or None.
/// data: the decoded message (structs dict, arrays list, bytes bytes,
/// times and durations int ns), or the payload bytes (raw=True, or a
/// payload that does not decode).
#[pyclass(module = "robolog", frozen)]
pub(crate) struct Message {
    /// The topic.
    #[pyo3(get)]
    topic: Py<PyString>,
    /// When it was logged (int ns on the log's clock).
    #[pyo3(get)]
    log_time: i64,
    /// When it was published (int ns), or None.
    #[pyo3(get)]
    publish_time: Option<i64>,
    /// The publisher's sequence number, or None.
    #[pyo3(get)]
    sequence: Option<u64>,
    /// The decoded message, or its payload bytes.
    #[pyo3(get)]
    data: Py<PyAny>,
}

#[pymethods]
impl Message {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let data = self.data.bind(py);
        Ok(format!(
            "Message(topic={}, log_time={}, publish_time={}, sequence={}, data=<{}>)",
            self.topic.bind(py).repr()?,
            self.log_time,
            self.publish_time
                .map_or_else(|| "None".to_string(), |t| t.to_string()),
            self.sequence
                .map_or_else(|| "None".to_string(), |s| s.to_string()),
            data.get_type().name()?
        ))
    }
}
