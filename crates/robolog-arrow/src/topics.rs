//! The `topics` table: one row per log and topic, what its summary says
//! of the topic ([`logcore::Summary::topics`]: every channel of a topic in
//! one row, with its total count and its types together). Defined once
//! here, beside the `logs` table ([`crate::logs_schema`]); SQL over logs
//! (`robolog-sql`) queries it.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::types::TimestampNanosecondType;
use arrow_array::{ArrayRef, PrimitiveArray, RecordBatch, StringArray, UInt64Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use logcore::{ChannelInfo, Summary};

use crate::Error;
use crate::table::utc_type;
use robolog::names::{TableNames, base_name};

/// The schema of the `topics` table: `topic`, `types` (the types of its
/// channels, each once, in channel order), `message_count` (on all its
/// channels), `channel_count`, `start` and `end` (its first and last log
/// time, integer ns on the log's clock, typed as the `logs` table's `start` and
/// `end`: [`crate::logs_schema`]), `start_utc` and `end_utc` (UTC
/// timestamps, null where the log has no UTC anchor) and `table` (the
/// name of the table holding the topic's messages; ULog: of its message
/// name). The one definition of the table, which SQL over logs
/// (`robolog-sql`) queries after its `log` column.
pub fn topics_schema() -> SchemaRef {
    let ts = DataType::Int64;
    Arc::new(Schema::new(vec![
        Field::new("topic", DataType::Utf8, false),
        Field::new(
            "types",
            DataType::List(Arc::new(Field::new_list_field(DataType::Utf8, true))),
            false,
        ),
        Field::new("message_count", DataType::UInt64, false),
        Field::new("channel_count", DataType::UInt64, false),
        Field::new("start", ts.clone(), true),
        Field::new("end", ts, true),
        Field::new("start_utc", utc_type(), true),
        Field::new("end_utc", utc_type(), true),
        Field::new("table", DataType::Utf8, false),
    ]))
}

/// One row of the `topics` table ([`topics_schema`]): a topic of a log,
/// with every channel of it (ROS connections, MCAP channels, ULog
/// instances have a topic each) counted together.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicRow {
    /// The topic ([`logcore::TopicSummary::topic`]).
    pub topic: String,
    /// The types of its channels, each once, in channel order.
    pub types: Vec<String>,
    /// Messages on all its channels.
    pub message_count: u64,
    /// How many channels it has.
    pub channel_count: u64,
    /// Its first log time (ns, the log's clock), `None` without messages.
    pub start: Option<i64>,
    /// Its last log time (ns, the log's clock), `None` without messages.
    pub end: Option<i64>,
    /// Its first log time in UTC (ns since 1970), where the log has UTC
    /// times.
    pub start_utc: Option<i64>,
    /// Its last log time in UTC, where the log has UTC times.
    pub end_utc: Option<i64>,
    /// The key of the table holding its messages
    /// ([`logcore::LogReader::table_key`] of its first channel: the
    /// topic, or the ULog message name).
    pub key: String,
    /// The name of that table: the key's [`base_name`] until
    /// [`TopicRow::with_names`] names it as a set of logs does.
    pub table: String,
}

impl TopicRow {
    /// The rows of the topics of the log whose summary is `summary`, in
    /// the order of [`Summary::topics`]; `key` gives a channel's table key
    /// (the log's [`logcore::LogReader::table_key`]).
    ///
    /// ```
    /// use logcore::{ChannelId, ChannelInfo, ChannelSummary, Clock, Format, Summary, TimeModel};
    /// let mut summary = Summary::new(Format::Mcap, "0", TimeModel::new(Clock::Unix));
    /// for (id, ty, n) in [(0, "a/A", 2), (1, "a/B", 3), (2, "a/A", 4)] {
    ///     summary.channels.push(ChannelSummary {
    ///         info: ChannelInfo::new(ChannelId(id), "/x", ty, "json"),
    ///         message_count: n,
    ///         start: None,
    ///         end: None,
    ///     });
    /// }
    /// let rows = robolog_arrow::TopicRow::rows(&summary, |c| c.topic.as_str());
    /// assert_eq!(rows.len(), 1);
    /// assert_eq!((rows[0].message_count, rows[0].channel_count), (9, 3));
    /// assert_eq!(rows[0].types, ["a/A", "a/B"]);
    /// assert_eq!(rows[0].table, "x");
    /// ```
    pub fn rows<'s>(
        summary: &'s Summary,
        key: impl Fn(&'s ChannelInfo) -> &'s str,
    ) -> Vec<TopicRow> {
        let utc = |t: Option<logcore::Timestamp>| {
            t.and_then(|t| logcore::clock::to_utc(summary, t))
                .map(logcore::Timestamp::as_nanos)
        };
        let by_id: HashMap<logcore::ChannelId, &ChannelInfo> = summary
            .channels
            .iter()
            .map(|c| (c.info.id, &c.info))
            .collect();
        summary
            .topics()
            .into_iter()
            .map(|t| {
                let key = t
                    .channels
                    .first()
                    .and_then(|id| by_id.get(id))
                    .map_or(t.topic.as_str(), |c| key(c))
                    .to_string();
                TopicRow {
                    types: t.types,
                    message_count: t.message_count,
                    channel_count: t.channels.len() as u64,
                    start: t.start.map(logcore::Timestamp::as_nanos),
                    end: t.end.map(logcore::Timestamp::as_nanos),
                    start_utc: utc(t.start),
                    end_utc: utc(t.end),
                    table: base_name(&key),
                    key,
                    topic: t.topic,
                }
            })
            .collect()
    }

    /// The row with its [`table`](Self::table) named by `names` (the
    /// names of a set of logs' tables), where they name its key.
    pub fn with_names(mut self, names: &TableNames) -> TopicRow {
        if let Some(n) = names.name(&self.key) {
            self.table = n.to_string();
        }
        self
    }
}

/// The `topics` table of `rows` ([`topics_schema`]), in that order.
pub fn topics_batch(rows: &[TopicRow]) -> Result<RecordBatch, Error> {
    let times = |f: fn(&TopicRow) -> Option<i64>| -> ArrayRef {
        Arc::new(arrow_array::Int64Array::from_iter(rows.iter().map(f)))
    };
    let utc_times = |f: fn(&TopicRow) -> Option<i64>| -> ArrayRef {
        Arc::new(
            PrimitiveArray::<TimestampNanosecondType>::from_iter(rows.iter().map(f))
                .with_timezone("UTC"),
        )
    };
    let mut types = ListBuilder::new(StringBuilder::new());
    for r in rows {
        for t in &r.types {
            types.values().append_value(t);
        }
        types.append(true);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| &r.topic))),
        Arc::new(types.finish()),
        Arc::new(UInt64Array::from_iter_values(
            rows.iter().map(|r| r.message_count),
        )),
        Arc::new(UInt64Array::from_iter_values(
            rows.iter().map(|r| r.channel_count),
        )),
        times(|r| r.start),
        times(|r| r.end),
        utc_times(|r| r.start_utc),
        utc_times(|r| r.end_utc),
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| &r.table))),
    ];
    Ok(RecordBatch::try_new(topics_schema(), columns)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `start` and `end` are typed as the `logs` table's, UTC times too.
    #[test]
    fn times_are_typed_as_the_logs_tables() {
        let logs = crate::logs_schema();
        let topics = topics_schema();
        for name in ["start", "end", "start_utc", "end_utc", "message_count"] {
            assert_eq!(
                logs.field_with_name(name).unwrap().data_type(),
                topics.field_with_name(name).unwrap().data_type(),
                "{name}"
            );
        }
        assert_eq!(topics_batch(&[]).unwrap().num_rows(), 0);
    }
}
