//! The record batches of a [`BatchReader`]: messages read, decoded where a
//! message column is asked for, and built into one Arrow array per column.

use std::sync::Arc;

use arrow_array::types::{TimestampNanosecondType, UInt8Type, UInt32Type};
use arrow_array::{ArrayRef, PrimitiveArray, RecordBatch, RecordBatchOptions};
use logcore::{ChannelId, Error as LogError, LogReader, Message, Timestamp, Value};

use super::schema::{DATA, original_name};
use super::{BatchReader, Source, Undecoded};
use crate::Error;
use crate::build::{self, field_at};

/// A row's message facts, kept while its batch is built.
struct RowMeta {
    /// The message's log time.
    log_time: Timestamp,
    /// Its publish time, where the format has one.
    publish_time: Option<Timestamp>,
    /// Its sequence number, where the format has one.
    sequence: Option<u64>,
    /// Its channel.
    channel: ChannelId,
    /// Its byte offset (of its chunk, when compressed).
    offset: u64,
}

impl BatchReader<'_> {
    /// The next batch of at most `batch_size` rows; `None` at the end.
    fn next_batch(&mut self) -> Result<Option<RecordBatch>, Error> {
        let mut metas: Vec<RowMeta> = Vec::with_capacity(self.batch_size.min(65_536));
        let mut values: Vec<Value> = Vec::new();
        let Some(messages) = self.messages.as_mut() else {
            self.done = true;
            return Ok(None);
        };
        while metas.len() < self.batch_size {
            let Some(m) = messages.next() else {
                self.done = true;
                break;
            };
            let m: Message<'_> = match m {
                Ok(m) => m,
                Err(e) if self.lenient && skippable(&e) => {
                    self.skipped += 1;
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            if self.decode {
                match self.log.decode(&m) {
                    Ok(v) if self.fields && !matches!(v, Value::Struct(_)) => {
                        if !self.lenient {
                            return Err(Error::Misfit {
                                table: self.table.clone(),
                                offset: m.offset.unwrap_or(0),
                                reason: "not a message with fields".into(),
                            });
                        }
                        self.undecoded += 1;
                        self.first_undecoded.get_or_insert_with(|| Undecoded {
                            offset: m.offset.unwrap_or(0),
                            reason: "not a message with fields".into(),
                        });
                        values.push(Value::Null);
                    }
                    Ok(v) => values.push(v),
                    Err(e) if self.lenient => {
                        self.undecoded += 1;
                        self.first_undecoded.get_or_insert_with(|| Undecoded {
                            offset: m.offset.unwrap_or(0),
                            reason: e.to_string(),
                        });
                        values.push(Value::Null);
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            metas.push(RowMeta {
                log_time: m.log_time,
                publish_time: m.publish_time,
                sequence: m.sequence,
                channel: m.channel,
                offset: m.offset.unwrap_or(0),
            });
        }
        if metas.is_empty() {
            return Ok(None);
        }
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.sources.len());
        let mut rows: Vec<Option<&Value>> = Vec::with_capacity(metas.len());
        for src in &self.sources {
            let col: ArrayRef = match src {
                Source::LogTime => {
                    Arc::new(PrimitiveArray::<TimestampNanosecondType>::from_iter_values(
                        metas.iter().map(|m| m.log_time.as_nanos()),
                    ))
                }
                Source::PublishTime => Arc::new(PrimitiveArray::<TimestampNanosecondType>::from(
                    metas
                        .iter()
                        .map(|m| m.publish_time.map(Timestamp::as_nanos))
                        .collect::<Vec<_>>(),
                )),
                Source::Sequence => Arc::new(PrimitiveArray::<UInt32Type>::from(
                    metas
                        .iter()
                        .map(|m| m.sequence.and_then(|s| u32::try_from(s).ok()))
                        .collect::<Vec<_>>(),
                )),
                Source::MultiId => Arc::new(PrimitiveArray::<UInt8Type>::from_iter_values(
                    metas
                        .iter()
                        .map(|m| self.multi_ids.get(&m.channel).copied().unwrap_or(0)),
                )),
                Source::Field(k, f) => {
                    rows.clear();
                    rows.extend(values.iter().map(|v| match v {
                        Value::Struct(vf) => field_at(vf, *k, original_name(&f.name)),
                        _ => None,
                    }));
                    build::build(&f.ty, &rows).map_err(|m| self.misfit(&metas, m, &f.name))?
                }
                Source::Data(t) => {
                    rows.clear();
                    rows.extend(values.iter().map(Some));
                    build::build(t, &rows).map_err(|m| self.misfit(&metas, m, DATA))?
                }
            };
            columns.push(col);
        }
        let opts = RecordBatchOptions::new().with_row_count(Some(metas.len()));
        Ok(Some(RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &opts,
        )?))
    }

    /// The error of a value that does not fit `column`, at the message
    /// of the misfit's row.
    fn misfit(&self, metas: &[RowMeta], m: build::Misfit, column: &str) -> Error {
        Error::Misfit {
            table: self.table.clone(),
            offset: metas.get(m.row).map_or(0, |x| x.offset),
            reason: format!("{column}: {}", m.reason),
        }
    }
}

/// Errors a lenient scan skips: damaged or skipped records, not I/O.
fn skippable(e: &LogError) -> bool {
    !matches!(e, LogError::Io(_))
}

impl Iterator for BatchReader<'_> {
    type Item = Result<RecordBatch, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(pre) = self.prebuilt.as_mut() {
            return pre.next().map(Ok);
        }
        if self.done {
            return None;
        }
        match self.next_batch() {
            Ok(Some(b)) => Some(Ok(b)),
            Ok(None) => None,
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
