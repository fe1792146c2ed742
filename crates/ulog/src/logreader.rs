//! [`logcore::LogReader`] for [`ULog`]: one channel per topic name and
//! multi_id, timestamps on the boot clock, and a wall-clock anchor from the
//! GPS time in the log where there is one. The summary's start is the file
//! header's timestamp and its end the latest timestamp seen, as pyulog
//! defines a log's start and last timestamps.
//!
//! [`LogReader::messages`] yields samples in timestamp order, as the other
//! formats do: a k-way merge over the subscriptions (each one's samples
//! are in file order, which PX4 writes in time order), holding one pending
//! sample per subscription, so memory stays O(subscriptions) and time
//! O(samples × log subscriptions). Equal timestamps keep file order. A
//! subscription whose own timestamps go backwards is merged as it is
//! stored, not sorted. [`ULog::messages_in_file_order`] yields the same
//! samples in the order they are stored.
//!
//! A log read by [`ULog::parse_selected`] shows only the channels of its
//! selected subscriptions (their ids stay those of the whole log).

use logcore::FormatError;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;

use logcore::{
    ChannelId, ChannelInfo, ChannelSummary, Format, LogReader, Message, MessageFilter, MessageIter,
    Payload, ReadMode, Schema, Summary, Timestamp, Value, ValueType,
};

use crate::error::Error;
use crate::read::ULog;
use crate::sample::decode_struct;

impl<'a> ULog<'a> {
    /// Like [`LogReader::messages`], in the order the samples are stored
    /// in the file instead of by timestamp (the same messages and
    /// problems).
    pub fn messages_in_file_order<'b>(&'b self, filter: &MessageFilter) -> MessageIter<'b>
    where
        'a: 'b,
    {
        Box::new(Stream::new(self, filter, false))
    }

    fn channel_info(
        &self,
        id: u32,
        name: &str,
        multi_id: u8,
        first: usize,
        schemas: &mut HashMap<String, Arc<Schema>>,
    ) -> ChannelInfo {
        let sub = &self.subscriptions[first];
        let topic = if multi_id == 0 {
            name.to_string()
        } else {
            format!("{name}[{multi_id}]")
        };
        let schema = match schemas.get(name) {
            Some(s) => s.clone(),
            None => {
                let s = self.formats.schema(name);
                schemas.insert(name.to_string(), s.clone());
                s
            }
        };
        let mut info = ChannelInfo::new(ChannelId(id), topic, name, "ulog")
            .with_metadata("multi_id", multi_id.to_string())
            .with_metadata("msg_id", sub.msg_id.to_string())
            .with_metadata("message_size", sub.layout.min_size.to_string());
        info.schema = Some(schema);
        info
    }
}

fn ts(us: u64) -> Timestamp {
    Timestamp::from_micros(us).unwrap_or(Timestamp::MAX)
}

/// Text of an info value, as `ulog_info` prints it.
pub(crate) fn info_text(v: &crate::InfoValue<'_>) -> String {
    crate::pyulog::py_value(v)
}

struct Stream<'a, 'l> {
    log: &'l ULog<'a>,
    of_sub: &'l [u32],
    cursors: Vec<usize>,
    /// The next sample of each subscription that has one, by merge key
    /// (timestamp, then file offset; or file offset alone for file order),
    /// file offset, subscription. Samples of a subscription are kept in
    /// file order.
    next: BinaryHeap<Reverse<(u64, u64, usize)>>,
    /// Merge by timestamp (else by file offset).
    by_time: bool,
    /// Samples at or after this offset are not merged: the first problem
    /// that ends the iteration in this mode lies there, and the samples
    /// before it in the file are yielded first.
    cut: u64,
    problems: Vec<Error>,
    problem_pos: usize,
    filter: MessageFilter,
    done: bool,
}

impl<'a, 'l> Stream<'a, 'l> {
    fn new(log: &'l ULog<'a>, filter: &MessageFilter, by_time: bool) -> Self {
        let of_sub = &log.topics().of_subscription;
        let mut problems: Vec<Error> = log.warnings.clone();
        problems.extend(log.truncation.clone());
        problems.sort_by_key(|p| p.offset().unwrap_or(0));
        let fatal = |e: &Error| filter.mode == ReadMode::Strict || e.is_truncated();
        let cut = problems
            .iter()
            .find(|e| fatal(e))
            .map_or(u64::MAX, |e| e.offset().unwrap_or(0));
        let mut stream = Stream {
            log,
            of_sub,
            cursors: vec![0; log.subscriptions.len()],
            next: BinaryHeap::with_capacity(log.subscriptions.len()),
            by_time,
            cut,
            problems,
            problem_pos: 0,
            filter: filter.clone(),
            done: false,
        };
        for (si, sub) in log.subscriptions.iter().enumerate() {
            if let Some(f) = sub.samples.first() {
                if f.offset < cut {
                    let key = stream.key(f.timestamp, f.offset);
                    stream.next.push(Reverse((key, f.offset, si)));
                }
            }
        }
        stream
    }

    /// The merge key of a sample.
    fn key(&self, timestamp: u64, offset: u64) -> u64 {
        if self.by_time { timestamp } else { offset }
    }
}

impl<'a, 'l> Iterator for Stream<'a, 'l> {
    type Item = logcore::Result<Message<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done {
                return None;
            }
            let next_sample = self
                .next
                .peek()
                .map(|&Reverse((_, o, si))| (si, self.cursors[si], o));
            let next_problem = self.problems.get(self.problem_pos);
            let problem_first = match (next_sample, next_problem) {
                (_, None) => false,
                (None, Some(_)) => true,
                (Some((_, _, o)), Some(p)) => p.offset().unwrap_or(0) < o,
            };
            if problem_first {
                let e = self.problems[self.problem_pos].clone();
                self.problem_pos += 1;
                let fatal = self.filter.mode == ReadMode::Strict || e.is_truncated();
                if fatal {
                    self.done = true;
                    return Some(Err(e.into()));
                }
                let skipped = match e {
                    Error::Parse(crate::ParseError::Skipped { .. }) => e,
                    other => Error::skipped(other.offset().unwrap_or(0), 0, other.to_string()),
                };
                return Some(Err(skipped.into()));
            }
            let (si, k, _) = next_sample?;
            self.next.pop();
            self.cursors[si] += 1;
            let samples = &self.log.subscriptions[si].samples;
            if let Some(after) = samples.get(k + 1) {
                if after.offset < self.cut {
                    self.next.push(Reverse((
                        self.key(after.timestamp, after.offset),
                        after.offset,
                        si,
                    )));
                }
            }
            let channel = ChannelId(self.of_sub[si]);
            let Some(s) = samples.get(k) else {
                continue;
            };
            let t = ts(s.timestamp);
            if !self.filter.matches(channel, t) {
                continue;
            }
            let mut m = Message::new(channel, t, Payload::Borrowed(s.data));
            m.offset = Some(s.offset);
            return Some(Ok(m));
        }
    }
}

impl LogReader for ULog<'_> {
    fn format(&self) -> Format {
        Format::ULog
    }

    /// A table per message name: the instances of a name (`multi_id`) are
    /// rows of one table.
    fn table_key<'c>(&self, channel: &'c logcore::ChannelInfo) -> &'c str {
        &channel.type_name
    }

    fn time_unit(&self) -> logcore::TimeUnit {
        logcore::TimeUnit::Microseconds
    }

    fn message_columns(&self) -> &'static [logcore::MessageColumn] {
        &[logcore::MessageColumn::MultiId]
    }

    fn summary(&self) -> logcore::Result<Summary> {
        let mut s = Summary::new(
            Format::ULog,
            self.header.version.to_string(),
            self.time_model(),
        );
        let topics = self.topics();
        let (channels, of_sub) = (&topics.list, &topics.of_subscription);
        let mut counts = vec![(0u64, None::<Timestamp>, None::<Timestamp>); channels.len()];
        let mut schemas = HashMap::new();
        for (i, sub) in self.subscriptions.iter().enumerate() {
            let c = &mut counts[of_sub[i] as usize];
            // Counted and ranged while the file was read: no sample is
            // touched again here.
            if let Some((lo, hi)) = sub.samples.time_range() {
                let (lo, hi) = (ts(lo), ts(hi));
                c.0 += sub.samples.len() as u64;
                c.1 = Some(c.1.map_or(lo, |x: Timestamp| x.min(lo)));
                c.2 = Some(c.2.map_or(hi, |x: Timestamp| x.max(hi)));
            }
        }
        for (i, ((name, multi, first), (count, start, end))) in
            channels.iter().zip(counts).enumerate()
        {
            if !self.is_selected(*first) {
                continue;
            }
            s.message_count += count;
            if let Some(st) = start {
                s.start = Some(s.start.map_or(st, |x| x.min(st)));
            }
            if let Some(en) = end {
                s.end = Some(s.end.map_or(en, |x| x.max(en)));
            }
            s.channels.push(ChannelSummary {
                info: self.channel_info(i as u32, name, *multi, *first, &mut schemas),
                message_count: count,
                start,
                end,
            });
        }
        if s.message_count > 0 {
            // pyulog's rules: a log starts at its file header's timestamp
            // (`start_timestamp`) and ends at the latest timestamp seen
            // (`last_timestamp`). Samples stamped 0 before the clock was set,
            // or stray early stamps, would otherwise stretch the log to
            // hours or years.
            s.start = Some(ts(self.header.timestamp));
            s.end = Some(ts(self.last_timestamp));
        }
        s.metadata
            .insert("start_time_us".into(), self.header.timestamp.to_string());
        for (k, v) in &self.info {
            s.metadata.insert(format!("info.{k}"), info_text(&v.value));
        }
        s.metadata.insert(
            "parameters".into(),
            self.initial_parameters.len().to_string(),
        );
        s.metadata.insert(
            "logged_messages".into(),
            self.logged_messages.len().to_string(),
        );
        s.metadata
            .insert("dropouts".into(), self.dropouts.len().to_string());
        s.metadata
            .insert("sync_messages".into(), self.sync_count.to_string());
        if let Some(fb) = self.flag_bits {
            s.metadata
                .insert("appended_offsets".into(), format!("{:?}", fb.offsets()));
        }
        if !self.notices.is_empty() {
            let notes: Vec<String> = self.notices.iter().map(ToString::to_string).collect();
            s.metadata.insert("notices".into(), notes.join("; "));
        }
        s.warnings = self.warnings.iter().cloned().map(Into::into).collect();
        if let Some(t) = &self.truncation {
            s.warnings.push(t.clone().into());
        }
        Ok(s)
    }

    fn channels(&self) -> logcore::Result<Vec<ChannelInfo>> {
        let mut schemas = HashMap::new();
        Ok(self
            .topics()
            .list
            .iter()
            .enumerate()
            .filter(|(_, (_, _, f))| self.is_selected(*f))
            .map(|(i, (n, m, f))| self.channel_info(i as u32, n, *m, *f, &mut schemas))
            .collect())
    }

    /// The samples that pass `filter` in timestamp order: a k-way merge
    /// over the subscriptions holding one pending sample per subscription
    /// (equal timestamps keep file order; a subscription whose own
    /// timestamps go backwards is merged as stored, not sorted).
    /// [`ULog::messages_in_file_order`] keeps the stored order.
    fn messages<'b>(&'b self, filter: &MessageFilter) -> logcore::Result<MessageIter<'b>> {
        Ok(Box::new(Stream::new(self, filter, true)))
    }

    fn decode(&self, message: &Message<'_>) -> logcore::Result<Value> {
        let (_, _, first) = self
            .topics()
            .list
            .get(message.channel.0 as usize)
            .ok_or_else(|| {
                logcore::Error::InvalidArgument(format!(
                    "no channel {} in this log",
                    message.channel
                ))
            })?;
        let layout = &self.subscriptions[*first].layout;
        Ok(decode_struct(layout, &message.payload, 0))
    }

    /// The channel's format as [`crate::Layout::value_type`] types it.
    fn value_type(&self, channel: ChannelId) -> logcore::Result<Option<ValueType>> {
        let (_, _, first) = self.topics().list.get(channel.0 as usize).ok_or_else(|| {
            logcore::Error::InvalidArgument(format!("no channel {channel} in this log"))
        })?;
        Ok(Some(self.subscriptions[*first].layout.value_type()))
    }
}
