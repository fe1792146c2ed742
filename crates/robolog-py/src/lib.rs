//! The native part of the `robolog` Python package (`robolog._robolog`),
//! built with pyo3 and maturin. The package's Python files
//! (`python/robolog`) re-export what is defined here.
//!
//! - `log`: `robolog.open`, `Log`, `Topic`, `Channel`;
//! - `messages`: `Log.messages`, read on a thread of its own;
//! - `table`: `Log.table`, Arrow tables through the PyCapsule interface;
//! - `scan`: `Log.scan`, a table as a stream of batches read on a thread
//!   of its own;
//! - `blocks`: a table's columns as pandas' blocks, for `Table.to_pandas`;
//! - `frames`: tables handed to pyarrow, pandas and polars through their
//!   public API (each imported when first used);
//! - `flat`: ULog topics with pyulog's columns (`flatten=True`), as a
//!   table or as pandas' blocks read straight from the samples;
//! - `interrupt`: Ctrl-C during a long call (KeyboardInterrupt, no output
//!   left);
//! - `source`: the opened log shared by those objects;
//! - `tools`: `robolog.check`, `robolog.convert`, `robolog.export`, the
//!   command-line tool's jobs;
//! - `sql`: `robolog.sql`, SQL over a set of logs (DataFusion);
//! - `values`: decoded values and JSON as Python objects;
//! - `buffer`: read-only numpy views of a log's bytes (`Log.points`'
//!   clouds as stored);
//! - `views`: the formats' own views (`Log.ulog`, `Log.bag`, `Log.mcap`,
//!   `Log.carla`); `bag2`: `Log.rosbag2`, a ROS 2 bag's metadata;
//! - `writer`: `robolog.Writer`, a log written message by message;
//! - `errors`: `FormatError`, `UnsupportedError`, the mapping of the
//!   library's errors, panics kept from Python.
//!
//! Every call that reads or decodes runs without the GIL.
//!
//! Logs are read through memory maps. Loading the module installs
//! logcore's `SIGBUS` guard ([`logcore::FileBytes::guard_truncation`]): a
//! file truncated or rewritten while it is read turns its map into zeros
//! instead of killing the interpreter, and each call that read it raises
//! `OSError` naming the file when its work ends (`errors::changed_under`);
//! a call writing an output checks before putting it in place, and drops
//! it when its input changed (`interrupt::before_commit`).

mod align;
mod bag2;
mod blocks;
mod buffer;
mod errors;
mod filter;
mod filterconfig;
mod flat;
mod frames;
mod interrupt;
mod log;
mod messages;
mod scan;
mod sensors;
mod source;
mod sql;
mod table;
mod times;
mod tools;
mod values;
mod views;
mod writer;

use pyo3::prelude::*;

/// The native module of the `robolog` package.
#[pymodule]
fn _robolog(m: &Bound<'_, PyModule>) -> PyResult<()> {
    logcore::FileBytes::guard_truncation();
    interrupt::set_main_thread();
    logcore::interrupt::set_hook(interrupt::poll);
    logcore::interrupt::set_commit_hook(interrupt::before_commit);
    logcore::interrupt::set_carry_hooks(interrupt::capture, interrupt::enter);
    m.add_function(wrap_pyfunction!(log::open, m)?)?;
    m.add_class::<log::Log>()?;
    m.add_class::<sensors::SensorStream>()?;
    m.add_class::<buffer::LogBytes>()?;
    m.add_class::<log::Channel>()?;
    m.add_class::<log::Topic>()?;
    m.add_class::<messages::Messages>()?;
    m.add_class::<messages::Message>()?;
    m.add_class::<table::Table>()?;
    m.add_class::<scan::Scan>()?;
    m.add_class::<views::ULogView>()?;
    m.add_class::<views::LoggedMessage>()?;
    m.add_class::<views::Dropout>()?;
    m.add_class::<views::BagView>()?;
    m.add_class::<views::BagConnection>()?;
    m.add_class::<views::McapView>()?;
    m.add_class::<views::McapSchema>()?;
    m.add_class::<views::McapChannel>()?;
    m.add_class::<views::McapAttachment>()?;
    m.add_class::<views::McapMetadata>()?;
    m.add_class::<views::CarlaView>()?;
    m.add_class::<views::CarlaFrame>()?;
    m.add_class::<views::CarlaActor>()?;
    m.add_class::<bag2::Rosbag2View>()?;
    m.add_class::<bag2::Rosbag2Topic>()?;
    m.add_class::<writer::Writer>()?;
    m.add_function(wrap_pyfunction!(tools::check, m)?)?;
    m.add_function(wrap_pyfunction!(tools::convert, m)?)?;
    m.add_function(wrap_pyfunction!(filter::filter, m)?)?;
    m.add_function(wrap_pyfunction!(filterconfig::filter_config, m)?)?;
    m.add_function(wrap_pyfunction!(tools::export, m)?)?;
    m.add_function(wrap_pyfunction!(sql::sql, m)?)?;
    m.add_function(wrap_pyfunction!(align::align_logs, m)?)?;
    errors::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
