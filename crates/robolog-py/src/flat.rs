//! ULog topics with pyulog's columns (`flatten=True`): the tables and
//! frames of `robolog_arrow::pyulog`, with the package's errors (a
//! `KeyError` naming the topics or the columns there are).

use robolog_arrow::pyulog::{self, Frame, FrameBlocks, Selection};
use ulogfile::ULog;

use crate::errors::Failure;
use crate::log::unknown_topic;
use crate::source::Shared;
use crate::table::{Query, Table};

/// The log's ULog, once the topic and the columns `q` asks for are
/// checked.
fn checked<'s>(shared: &'s Shared, q: &Query) -> Result<&'s ULog<'s>, Failure> {
    let Some(ulog) = shared.log().as_ulog() else {
        return Err(Failure::Log(logcore::Error::invalid_argument(format!(
            "flatten=True is for ULog topics; this log is {}",
            shared.summary.format.name()
        ))));
    };
    let Some((name, all)) = pyulog::columns(ulog, &q.topic) else {
        return Err(Failure::Missing(unknown_topic(shared, &q.topic)));
    };
    if let Some(c) = q.columns.iter().flatten().find(|c| !all.contains(c)) {
        return Err(Failure::Missing(format!(
            "table {name} has no column {c:?}; its columns: {}",
            all.join(", ")
        )));
    }
    Ok(ulog)
}

/// What `q` asks of `robolog_arrow::pyulog`, with the log's UTC offset
/// (its GPS anchor) for `log_time_utc`.
fn selection(shared: &Shared, q: &Query) -> Selection {
    let utc_offset = robolog::clock::to_utc(&shared.summary, logcore::Timestamp(0))
        .map(logcore::Timestamp::as_nanos);
    Selection {
        topic: q.topic.clone(),
        columns: q.columns.clone(),
        start: q.start,
        end: q.end,
        utc_offset,
    }
}

/// The flat table of a ULog message name (every instance) or instance
/// topic (`name[1]`), as `Log.table(..., flatten=True)` gives it. Done
/// without the GIL.
pub(crate) fn build_flat(shared: &Shared, q: &Query) -> Result<Table, Failure> {
    let t = pyulog::table(checked(shared, q)?, &selection(shared, q))?;
    Ok(Table::new(
        t.name.clone(),
        t.name,
        t.schema,
        vec![t.batch],
        Vec::new(),
    ))
}

/// The frame `Log.to_pandas(topic, flatten=True)` makes of a ULog topic,
/// as its column names, rows and pandas' blocks, written straight from
/// the samples on the machine's cores; `None` for a frame without rows.
pub(crate) fn frame_blocks(shared: &Shared, q: &Query) -> Result<Option<FrameBlocks>, Failure> {
    Ok(pyulog::frame_blocks(
        checked(shared, q)?,
        &selection(shared, q),
    )?)
}

/// A flat frame planned and its blocks allocated, for
/// `robolog_arrow::pyulog::fill` to write (several frames at once).
pub(crate) fn frame<'s>(shared: &'s Shared, q: &Query) -> Result<Option<Frame<'s>>, Failure> {
    Ok(pyulog::frame(checked(shared, q)?, &selection(shared, q))?)
}
