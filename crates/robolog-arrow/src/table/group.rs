//! The tables of a log: its channels grouped by table key and named, each
//! table's value type declared by the format or inferred from its
//! messages, and its schema.

use std::collections::HashMap;

use logcore::{ChannelId, ChannelInfo, LogReader, MessageFilter, ReadMode, Summary, ValueType};
use robolog::Log;

use super::Table;
use super::schema::{RESERVED, make_schema, utc_model};
use crate::{Error, infer};
use robolog::names::TableNames;

/// Every table of `log`, in order of their first channel. Types come from
/// [`LogReader::value_type`]; channels whose format declares none are read
/// once to infer one.
pub fn tables(log: &Log<'_>) -> Result<Vec<Table>, Error> {
    let summary = log.summary()?;
    tables_with_summary(log, &summary)
}

/// [`tables`] for a log whose summary is already at hand.
pub fn tables_with_summary(log: &Log<'_>, summary: &Summary) -> Result<Vec<Table>, Error> {
    tables_where(log, summary, &|_| true, None)
}

/// The names of the tables of one log read alone.
fn log_names(log: &Log<'_>, summary: &Summary) -> TableNames {
    TableNames::new(summary.channels.iter().map(|c| log.table_key(&c.info)))
}

/// The table called `name` of `log` (whose summary is at hand), built
/// from that table's channels only (other tables' untyped channels need
/// no inference pass); `None` when the log has no such table.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
/// let log = robolog::open(path)?;
/// let summary = logcore::LogReader::summary(&log)?;
/// let t = robolog_arrow::table_of(&log, &summary, "count")?.expect("a /count topic");
/// assert_eq!(t.message_count, 30);
/// assert!(robolog_arrow::table_of(&log, &summary, "nope")?.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn table_of(log: &Log<'_>, summary: &Summary, name: &str) -> Result<Option<Table>, Error> {
    let names = log_names(log, summary);
    match names.key(name) {
        Some(key) => table_in(log, summary, key, name),
        None => Ok(None),
    }
}

/// The table of `key` (see [`table_key`](super::table_key)) of `log`,
/// called `name` (its name in a set of logs this log is one of: see
/// [`TableNames`]); `None` when the log has no channel of `key`.
pub fn table_in(
    log: &Log<'_>,
    summary: &Summary,
    key: &str,
    name: &str,
) -> Result<Option<Table>, Error> {
    let names = TableNames::from_pairs([(key, name)]);
    Ok(
        tables_where(log, summary, &|c| log.table_key(c) == key, Some(&names))?
            .into_iter()
            .next(),
    )
}

/// The table a user names by `topic`: a table key (a topic; ULog: a
/// message name, every instance), a table name, or the topic of some of
/// a key's channels (a ULog instance, `name[1]`), that key's table of
/// those channels only. `None` when `topic` names none of these.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
/// let log = robolog::open(path)?;
/// let summary = logcore::LogReader::summary(&log)?;
/// let by_topic = robolog_arrow::table_for(&log, &summary, "/count")?.expect("/count");
/// let by_name = robolog_arrow::table_for(&log, &summary, "count")?.expect("count");
/// assert_eq!((by_topic.message_count, by_name.name.as_str()), (30, "count"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn table_for(log: &Log<'_>, summary: &Summary, topic: &str) -> Result<Option<Table>, Error> {
    let names = log_names(log, summary);
    let mut only_topic = false;
    let key: &str = if names.name(topic).is_some() {
        topic
    } else if let Some(k) = names.key(topic) {
        k
    } else if let Some(c) = summary.channels.iter().find(|c| c.info.topic == topic) {
        only_topic = true;
        log.table_key(&c.info)
    } else {
        return Ok(None);
    };
    let name = names.name(key).unwrap_or(key);
    let Some(mut table) = table_in(log, summary, key, name)? else {
        return Ok(None);
    };
    if only_topic {
        table.channels.retain(|c| c.topic == topic);
        table.message_count = table
            .channels
            .iter()
            .filter_map(|c| summary.channel(c.id))
            .map(|c| c.message_count)
            .sum();
    }
    Ok(Some(table))
}

/// [`tables_with_summary`] of the channels `keep` accepts only, named by
/// `names` (by the log's own [`TableNames`] when `None`; a key `names`
/// does not know is left out).
pub(crate) fn tables_where(
    log: &Log<'_>,
    summary: &Summary,
    keep: &dyn Fn(&ChannelInfo) -> bool,
    names: Option<&TableNames>,
) -> Result<Vec<Table>, Error> {
    let columns = log.message_columns();
    let own;
    let names = match names {
        Some(n) => n,
        None => {
            own = log_names(log, summary);
            &own
        }
    };
    let mut order: Vec<&str> = Vec::new();
    let mut groups: HashMap<&str, Vec<ChannelInfo>> = HashMap::new();
    let mut counts: HashMap<ChannelId, u64> = HashMap::new();
    for c in summary.channels.iter().filter(|c| keep(&c.info)) {
        let key = log.table_key(&c.info);
        if names.name(key).is_none() {
            continue;
        }
        counts.insert(c.info.id, c.message_count);
        if !groups.contains_key(key) {
            order.push(key);
        }
        groups.entry(key).or_default().push(c.info.clone());
    }
    let mut out = Vec::with_capacity(order.len());
    for key in order {
        let name = names.name(key).unwrap_or(key).to_string();
        let channels = groups.remove(key).unwrap_or_default();
        let mut declared: Option<ValueType> = None;
        let mut untyped = Vec::new();
        for c in &channels {
            match log.value_type(c.id)? {
                Some(t) => {
                    declared = Some(match declared {
                        None => t,
                        Some(d) if d == t => d,
                        Some(d) => infer::unify(&d, &t),
                    });
                }
                None => untyped.push(c.id),
            }
        }
        let mut inferred = false;
        if !untyped.is_empty() {
            inferred = true;
            let seen = infer_from_messages(log, &untyped)?;
            declared = match (declared, seen) {
                (Some(d), Some(s)) => Some(infer::unify(&d, &s)),
                (d, s) => d.or(s),
            };
        }
        let value_type = declared.unwrap_or(ValueType::Struct(Vec::new()));
        let message_count = channels.iter().filter_map(|c| counts.get(&c.id)).sum();
        let fields = match &value_type {
            ValueType::Struct(f) => Some(
                f.iter()
                    .map(|f| {
                        let mut f = f.clone();
                        if RESERVED.contains(&f.name.as_str()) {
                            f.name = format!("{}_", f.name).into();
                        }
                        f
                    })
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        };
        let schema = make_schema(
            log.format(),
            columns,
            summary,
            &name,
            key,
            &channels,
            &value_type,
            &fields,
        );
        out.push(Table {
            name,
            key: key.to_string(),
            channels,
            value_type,
            inferred,
            message_count,
            schema,
            fields,
            columns,
            format: log.format(),
            utc: utc_model(summary),
        });
    }
    Ok(out)
}

/// The value type of the messages of `channels`, inferred from every
/// value that decodes (`None` when none does).
fn infer_from_messages(log: &Log<'_>, channels: &[ChannelId]) -> Result<Option<ValueType>, Error> {
    let filter = MessageFilter::all()
        .channels(channels.iter().copied())
        .mode(ReadMode::Lenient);
    let mut values = Vec::new();
    let mut seen: Option<ValueType> = None;
    for m in log.messages(&filter)? {
        let Ok(m) = m else { continue };
        if let Ok(v) = log.decode(&m) {
            values.push(v);
        }
        if values.len() == 1024 {
            seen = merge_opt(seen, infer::infer(values.iter()));
            values.clear();
        }
    }
    Ok(merge_opt(seen, infer::infer(values.iter())))
}

/// The unified type of `a` and `b`, where either is known.
fn merge_opt(a: Option<ValueType>, b: Option<ValueType>) -> Option<ValueType> {
    match (a, b) {
        (Some(a), Some(b)) => Some(infer::unify(&a, &b)),
        (a, b) => a.or(b),
    }
}
