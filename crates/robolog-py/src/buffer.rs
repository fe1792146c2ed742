//! Read-only numpy views of a log's bytes (`Log.points`' zero-copy
//! clouds).
//!
//! A [`LogBytes`] holds what keeps a run of bytes alive: the opened log
//! (`Arc<Shared>`) and a range of its bytes (`Log::bytes`, the memory map
//! of a single-file log or the bytes a log was opened from) for a payload
//! the format stores as-is, or the shared buffer of a payload that was
//! decompressed. numpy reads it through the array interface protocol
//! (`__array_interface__`, version 3): a pointer, a length and a read-only
//! flag; the array keeps the `LogBytes` as its base, so the bytes live as
//! long as any array over them, after `Log.close()` and after the `Log`
//! is collected. numpy refuses to make such an array writable (its base
//! exports no writable buffer).
//!
//! Why not the buffer protocol: the extension is built for the stable ABI
//! of Python 3.9 (`abi3-py39`), where `Py_buffer` and the buffer slots are
//! not part of the limited API (they are from 3.11), so pyo3 offers no
//! `__getbuffer__` there. The array interface needs no `unsafe` code on
//! this side: the address handed over is that of bytes this object owns
//! or keeps alive, and they never move or shrink while it lives (a map is
//! unmapped only when the last `Arc<Shared>` goes; a file truncated under
//! its map reads as zeros through logcore's SIGBUS guard, never as freed
//! memory).

use std::ops::Range;
use std::sync::Arc;

use logcore::Payload;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::source::Shared;

/// What keeps the bytes alive.
enum Held {
    /// A range of the log's own bytes (`Log::bytes`).
    Log {
        shared: Arc<Shared>,
        range: Range<usize>,
    },
    /// A range of a buffer of its own (a decompressed chunk's slice, or a
    /// copy of a payload that lies outside the log's bytes).
    Owned {
        payload: Payload<'static>,
        range: Range<usize>,
    },
}

/// Bytes of a log, read-only, as numpy reads them
/// (`numpy.asarray(obj)`: a `uint8`-sized void array of `len(obj)` bytes
/// viewing them, or the item size given at creation).
#[pyclass(module = "robolog", frozen)]
pub(crate) struct LogBytes {
    held: Held,
    /// The numpy item size the array interface declares (the points'
    /// `point_step`), at least 1, dividing the length.
    itemsize: usize,
}

impl LogBytes {
    /// The bytes `range` of `payload`, a payload read from `shared`'s
    /// log, as items of `itemsize` bytes (`range.len()` a multiple of
    /// it): a view of the log's bytes where the payload borrows them,
    /// the payload's shared buffer where it has one, else a copy.
    /// `None` when `range` is not inside the payload or `itemsize` does
    /// not divide it.
    pub(crate) fn of(
        shared: &Arc<Shared>,
        payload: &Payload<'_>,
        range: Range<usize>,
        itemsize: usize,
    ) -> Option<LogBytes> {
        if itemsize == 0 || range.len() % itemsize != 0 {
            return None;
        }
        let part = payload.get(range.clone())?;
        let held = match payload {
            Payload::Borrowed(slice) => {
                let base = shared.log().bytes();
                let from = base.as_ptr() as usize;
                let at = slice.as_ptr() as usize;
                // The slice lies within the log's bytes: its offset there.
                let offset = at
                    .checked_sub(from)
                    .filter(|o| o.checked_add(slice.len()).is_some_and(|e| e <= base.len()));
                match offset {
                    Some(o) => Held::Log {
                        shared: Arc::clone(shared),
                        range: o + range.start..o + range.end,
                    },
                    // Bytes of another file of the log (a ROS 2 bag's
                    // storage): copied once.
                    None => Held::Owned {
                        payload: Payload::Borrowed(part).into_owned(),
                        range: 0..part.len(),
                    },
                }
            }
            Payload::Shared(_) => Held::Owned {
                payload: payload.clone().into_owned(),
                range,
            },
        };
        Some(LogBytes { held, itemsize })
    }

    /// The bytes.
    fn bytes(&self) -> &[u8] {
        match &self.held {
            Held::Log { shared, range } => {
                shared.log().bytes().get(range.clone()).unwrap_or_default()
            }
            Held::Owned { payload, range } => payload.get(range.clone()).unwrap_or_default(),
        }
    }
}

#[pymethods]
impl LogBytes {
    /// numpy's array interface (version 3): a read-only one-dimensional
    /// array of `len(self) / itemsize` void items over the bytes.
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let b = self.bytes();
        let d = PyDict::new(py);
        d.set_item("version", 3)?;
        d.set_item("shape", (b.len() / self.itemsize,))?;
        d.set_item("typestr", format!("|V{}", self.itemsize))?;
        // The address of bytes this object keeps alive, read-only.
        d.set_item("data", (b.as_ptr() as usize, true))?;
        Ok(d)
    }

    /// The number of bytes.
    fn __len__(&self) -> usize {
        self.bytes().len()
    }

    fn __repr__(&self) -> String {
        let what = match self.held {
            Held::Log { .. } => "the log's bytes",
            Held::Owned { .. } => "a buffer of its own",
        };
        format!("<robolog.LogBytes: {} bytes of {what}>", self.bytes().len())
    }
}
