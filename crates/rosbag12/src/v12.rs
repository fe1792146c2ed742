//! Opening a 1.2 bag (spec 3): the optional file header, the per-topic
//! index (version 0) whose first entry may point at the topic's message
//! definition record (spec 3.3), and the sequential scan of unindexed
//! files (spec 3.4), including topics that borrow another topic's
//! definition.

use crate::bag::{Bag, EntryV12, IndexSource};
use crate::error::{Error, Result};
use crate::record::{Record, resync};
use crate::records::{BagHeader, Connection, IndexDataV0, op, unexpected};
use crate::time::RosTime;
use logcore::FormatError;

impl<'a> Bag<'a> {
    pub(crate) fn open_v12(&mut self, line_len: usize, scan: bool) -> Result<()> {
        let first = Record::parse(self.data, line_len, Self::file());
        let (start, index_pos) = match &first {
            Ok(rec) if rec.op == op::BAG_HEADER => {
                let h = BagHeader::from_record(rec, false)?;
                let index_pos = h.index_pos;
                self.header = Some(h);
                (rec.end, index_pos)
            }
            // Spec 3.4 (a): no header at all; read sequentially.
            Ok(_) => (line_len, 0),
            Err(e) if e.is_truncated() => {
                self.index_source = IndexSource::Scanned;
                self.end_error = first.err();
                return Ok(());
            }
            Err(_) => return first.map(|_| ()),
        };
        if index_pos == 0 {
            if self.header.is_some() {
                self.warnings.push(Error::malformed(
                    line_len as u64,
                    "an index position in the bag header",
                    "0: the bag was not closed (unindexed); read sequentially",
                ));
            }
            self.scan_v12(start);
            return Ok(());
        }
        if scan {
            self.scan_v12(start);
            return Ok(());
        }
        let index = if index_pos == self.data.len() as u64 && index_pos > start as u64 {
            // Messages but not one index record: the file was cut at the index.
            Err(Error::truncated(
                index_pos,
                "the index data records (op 0x04) of a 1.2 bag",
                1,
            ))
        } else {
            self.read_index_v12(index_pos)
                .and_then(|()| self.check_index_v12(start, index_pos))
        };
        if let Err(e) = index {
            self.warnings.push(Error::malformed(
                index_pos,
                "a readable index (the bag was read sequentially instead)",
                e.to_string(),
            ));
            self.connections.clear();
            self.entries_v12.clear();
            self.scan_v12(start);
        }
        Ok(())
    }

    fn read_index_v12(&mut self, index_pos: u64) -> Result<()> {
        let mut pos = usize::try_from(index_pos).unwrap_or(usize::MAX);
        if pos > self.data.len() {
            return Err(Error::truncated(
                index_pos,
                "the index the bag header points at",
                index_pos - self.data.len() as u64,
            ));
        }
        let mut pending: Vec<(u32, IndexDataV0)> = Vec::new();
        while pos < self.data.len() {
            let rec = Record::parse(self.data, pos, Self::file())?;
            let index = IndexDataV0::from_record(&rec)?;
            let id = pending.len() as u32;
            pending.push((id, index));
            pos = rec.end;
        }
        // The first entry of each topic may point at its definition record
        // (spec 3.3); the definition is whatever op 0x01 record precedes
        // the topic's first data record.
        for (id, index) in &pending {
            let Some(first) = index.entries.iter().min_by_key(|e| e.pos) else {
                continue;
            };
            let pos = usize::try_from(first.pos).unwrap_or(usize::MAX);
            let rec = Record::parse(self.data, pos, Self::file())?;
            let conn = match rec.op {
                op::MSG_DEF | op::MSG_DATA => Connection::from_v12_record(&rec, *id)?,
                _ => return Err(unexpected(&rec, "a message definition or data record")),
            };
            if conn.topic != index.topic {
                return Err(rec.malformed(
                    format!("a record of topic {}", index.topic),
                    format!("topic {}", conn.topic),
                ));
            }
            self.connections.push(conn);
            for e in &index.entries {
                self.entries_v12.push(EntryV12 {
                    time: e.time,
                    pos: e.pos,
                    conn: *id,
                });
            }
        }
        self.borrow_definitions();
        self.entries_v12.sort_unstable();
        Ok(())
    }

    /// A 1.2 index has no counts of its own: it must list every data record
    /// between the header and the index (a file cut between two index
    /// records would otherwise lose whole topics). Walks record headers only.
    fn check_index_v12(&self, start: usize, index_pos: u64) -> Result<()> {
        let mut pos = start;
        let mut count = 0usize;
        while (pos as u64) < index_pos {
            let rec = Record::parse(self.data, pos, Self::file())?;
            count += usize::from(rec.op == op::MSG_DATA);
            pos = rec.end;
        }
        if count == self.entries_v12.len() {
            Ok(())
        } else {
            Err(Error::malformed(
                index_pos,
                format!("an index of all {count} messages"),
                format!("{} index entries", self.entries_v12.len()),
            ))
        }
    }

    /// Reads a 1.2 bag record by record (spec 3.4).
    fn scan_v12(&mut self, mut pos: usize) {
        self.index_source = IndexSource::Scanned;
        while pos < self.data.len() {
            let rec = match Record::parse(self.data, pos, Self::file()) {
                Ok(r) => r,
                Err(e) => {
                    if let Some(next) = resync(self.data, pos + 1, &[op::MSG_DEF, op::MSG_DATA]) {
                        self.warnings.push(Error::skipped(
                            pos as u64,
                            (next - pos) as u64,
                            e.to_string(),
                        ));
                        pos = next;
                        continue;
                    }
                    self.end_error = Some(e);
                    break;
                }
            };
            let step = match rec.op {
                op::MSG_DEF | op::MSG_DATA => self.scan_v12_message(&rec),
                op::INDEX_DATA | op::BAG_HEADER => Ok(()),
                _ => Err(unexpected(
                    &rec,
                    "a 1.2 message definition, data or index record",
                )),
            };
            if let Err(e) = step {
                self.end_error = Some(e);
                break;
            }
            pos = rec.end;
        }
        self.borrow_definitions();
        self.entries_v12.sort_unstable();
    }

    fn scan_v12_message(&mut self, rec: &Record<'a>) -> Result<()> {
        let topic = rec.header.get("topic").map(|f| f.value).unwrap_or_default();
        let known = self
            .connections
            .iter_mut()
            .find(|c| c.topic.as_bytes() == topic);
        let id = match known {
            Some(c) => {
                if rec.op == op::MSG_DEF && c.message_definition.is_empty() {
                    let fresh = Connection::from_v12_record(rec, c.id)?;
                    c.message_definition = fresh.message_definition;
                }
                c.id
            }
            None => {
                let id = self.connections.len() as u32;
                self.connections.push(Connection::from_v12_record(rec, id)?);
                id
            }
        };
        if rec.op == op::MSG_DATA {
            let sec = rec.header.u32("sec", "message data")?;
            let nsec = rec.header.u32("nsec", "message data")?;
            self.entries_v12.push(EntryV12 {
                time: RosTime { sec, nsec },
                pos: rec.offset(),
                conn: id,
            });
        }
        Ok(())
    }

    /// A 1.2 topic without its own definition takes that of another topic
    /// of the same type (spec 3.4).
    fn borrow_definitions(&mut self) {
        for i in 0..self.connections.len() {
            if self.connections[i].message_definition.is_empty() {
                let ty = &self.connections[i].type_name;
                if let Some(def) = self
                    .connections
                    .iter()
                    .find(|c| &c.type_name == ty && !c.message_definition.is_empty())
                    .map(|c| c.message_definition.clone())
                {
                    let c = &mut self.connections[i];
                    c.message_definition = def.clone();
                    if let Some(f) = c.header.iter_mut().find(|(n, _)| n == "message_definition") {
                        f.1 = def.into_bytes();
                    }
                }
            }
        }
    }
}
