//! The record batches of a [`BatchReader`]: messages read, decoded where a
//! message column is asked for, and built into one Arrow array per column.

use std::sync::Arc;

use arrow_array::types::{TimestampNanosecondType, UInt8Type, UInt32Type};
use arrow_array::{ArrayRef, PrimitiveArray, RecordBatch, RecordBatchOptions};
use logcore::{ChannelId, Error as LogError, LogReader, Message, Timestamp, Value};

use super::schema::DATA;
use super::{BatchReader, Source, Undecoded};
use crate::Error;
use crate::build::field_at;

/// The page size the released ranges of a mapped file are rounded to
/// (the smallest of the systems the toolkit runs on; a larger page only
/// means a range is rounded less).
const PAGE: usize = 4096;

/// A row's message facts, kept while its batch is built.
pub(super) struct RowMeta {
    /// The message's log time.
    log_time: Timestamp,
    /// Its publish time, where the format has one.
    publish_time: Option<Timestamp>,
    /// Its sequence number, where the format has one.
    sequence: Option<u64>,
    /// Its channel.
    pub(super) channel: ChannelId,
}

impl BatchReader<'_> {
    /// The next batch of at most `batch_size` rows; `None` at the end.
    fn next_batch(&mut self) -> Result<Option<RecordBatch>, Error> {
        let mut metas: Vec<RowMeta> = Vec::with_capacity(self.batch_size.min(65_536));
        let Some(mut messages) = self.messages.take() else {
            self.done = true;
            return Ok(None);
        };
        // The file offsets of the batch's first and last messages.
        let mut seen: Option<(u64, u64)> = None;
        let mut failed = None;
        while metas.len() < self.batch_size {
            let Some(m) = messages.next() else {
                self.done = true;
                break;
            };
            let m: Message<'_> = match m {
                Ok(m) => m,
                Err(e) if self.lenient && skippable(&e) => {
                    self.skip(&e);
                    continue;
                }
                Err(e) => {
                    failed = Some(e.into());
                    break;
                }
            };
            if let Some(o) = m.offset {
                seen = Some(seen.map_or((o, o), |(lo, hi)| (lo.min(o), hi.max(o))));
            }
            if let Err(e) = self.push(&m, &mut metas) {
                failed = Some(e);
                break;
            }
        }
        self.messages = Some(messages);
        if let Some(e) = failed {
            return Err(e);
        }
        // The messages of the batch are copied out: their pages of a
        // mapped file need not stay in memory (the last message's page may
        // hold the next one, so it stays).
        if let Some((lo, hi)) = seen {
            self.log.release(page(lo)..page(hi));
        }
        if metas.is_empty() {
            return Ok(None);
        }
        self.finish(&metas).map(Some)
    }

    /// Counts a damaged record a lenient scan skips.
    pub(super) fn skip(&mut self, e: &LogError) {
        self.skipped += 1;
        if let Some(at) = e.offset() {
            self.skipped_at.push(at);
        }
    }

    /// Appends message `m` to the columns being built and its facts to
    /// `metas`. A message that does not decode (lenient scans) is a row
    /// whose message columns are null: its decode error is returned
    /// (`None` for one that decoded, or whose value only does not fit).
    pub(super) fn push(
        &mut self,
        m: &Message<'_>,
        metas: &mut Vec<RowMeta>,
    ) -> Result<Option<LogError>, Error> {
        let offset = m.offset.unwrap_or(0);
        let mut failure = None;
        let plan = self.plans.get(&m.channel).filter(|p| p.fits(&m.payload));
        if let Some(plan) = plan {
            plan.append(&m.payload, &mut self.columns)
                .map_err(|reason| Error::Misfit {
                    table: self.table.clone(),
                    offset,
                    reason,
                })?;
        } else if self.decode {
            const NO_FIELDS: &str = "not a message with fields";
            let decoded: Result<(), Error> = match self.log.decode_into(m, &mut self.value) {
                Ok(()) if self.fields && !matches!(self.value, Value::Struct(_)) => {
                    Err(Error::Misfit {
                        table: self.table.clone(),
                        offset,
                        reason: NO_FIELDS.into(),
                    })
                }
                Ok(()) => Ok(()),
                Err(e) => {
                    failure = Some(e.clone());
                    Err(e.into())
                }
            };
            let value = match decoded {
                Ok(()) => Some(&self.value),
                Err(e) if self.lenient => {
                    self.undecoded += 1;
                    self.first_undecoded.get_or_insert_with(|| Undecoded {
                        offset,
                        reason: match e {
                            Error::Misfit { reason, .. } => reason,
                            e => e.to_string(),
                        },
                    });
                    None
                }
                Err(e) => return Err(e),
            };
            for ((src, col), own) in self.sources.iter().zip(&mut self.columns).zip(&self.names) {
                let (Some(col), name) = (col.as_mut(), src) else {
                    continue;
                };
                let (row, column) = match (name, value, own) {
                    (&Source::Field(k, ref f), Some(Value::Struct(vf)), Some(own)) => {
                        (field_at(vf, k, own), f.name.as_str())
                    }
                    (Source::Field(_, f), _, _) => (None, f.name.as_str()),
                    (_, v, _) => (v, DATA),
                };
                col.append(row).map_err(|reason| Error::Misfit {
                    table: self.table.clone(),
                    offset,
                    reason: format!("{column}: {reason}"),
                })?;
            }
        }
        metas.push(RowMeta {
            log_time: m.log_time,
            publish_time: m.publish_time,
            sequence: m.sequence,
            channel: m.channel,
        });
        Ok(failure)
    }

    /// The batch of the rows appended since the last one (`metas` their
    /// facts, at least one).
    pub(super) fn finish(&mut self, metas: &[RowMeta]) -> Result<RecordBatch, Error> {
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.sources.len());
        for (src, col) in self.sources.iter().zip(self.columns.iter_mut()) {
            let array: ArrayRef = match (src, col) {
                (_, Some(col)) => col.finish().map_err(|reason| Error::Misfit {
                    table: self.table.clone(),
                    offset: 0,
                    reason,
                })?,
                (Source::LogTime(data_type), None) => crate::table::log_time_array(
                    data_type,
                    metas.iter().map(|m| m.log_time.as_nanos()),
                ),
                (Source::LogTimeUtc(model), None) => {
                    utc_times(*model, metas.len(), metas.iter().map(|m| m.log_time))
                }
                (Source::PublishTime, None) => {
                    Arc::new(PrimitiveArray::<TimestampNanosecondType>::from(
                        metas
                            .iter()
                            .map(|m| m.publish_time.map(Timestamp::as_nanos))
                            .collect::<Vec<_>>(),
                    ))
                }
                (Source::Sequence, None) => Arc::new(PrimitiveArray::<UInt32Type>::from(
                    metas
                        .iter()
                        .map(|m| m.sequence.and_then(|s| u32::try_from(s).ok()))
                        .collect::<Vec<_>>(),
                )),
                (Source::MultiId, None) => Arc::new(PrimitiveArray::<UInt8Type>::from_iter_values(
                    metas
                        .iter()
                        .map(|m| self.multi_ids.get(&m.channel).copied().unwrap_or(0)),
                )),
                (Source::Field(..) | Source::Data(_), None) => {
                    unreachable!("every message source has a column")
                }
            };
            columns.push(array);
        }
        let opts = RecordBatchOptions::new().with_row_count(Some(metas.len()));
        Ok(RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &opts,
        )?)
    }
}

/// The `log_time_utc` column of `n` rows whose log times are `times`:
/// each converted by `model` (the log's clock and anchor), or all null
/// where the log has no UTC instants (`model` is `None`).
pub(crate) fn utc_times(
    model: Option<logcore::TimeModel>,
    n: usize,
    times: impl Iterator<Item = Timestamp>,
) -> ArrayRef {
    let Some(model) = model else {
        return arrow_array::new_null_array(&crate::table::utc_type(), n);
    };
    Arc::new(
        PrimitiveArray::<TimestampNanosecondType>::from_iter(
            times.map(|t| model.to_unix(t).map(Timestamp::as_nanos)),
        )
        .with_timezone("UTC"),
    )
}

/// The start of the page of a mapped file that holds byte `offset`.
pub(super) fn page(offset: u64) -> usize {
    usize::try_from(offset).map_or(usize::MAX, |o| o & !(PAGE - 1))
}

/// Errors a lenient scan skips: damaged or skipped records, not I/O.
pub(super) fn skippable(e: &LogError) -> bool {
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
