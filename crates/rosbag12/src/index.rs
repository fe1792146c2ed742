//! Per-message index entries: 2.0 index data records (version 1, spec 2.6)
//! that follow each chunk, read without decompressing anything; 1.2 entries
//! come from the bag's index (or scan) directly.

use std::collections::BTreeMap;

use crate::bag::Bag;
use crate::chunk::walk_chunk;
use crate::error::Result;
use crate::record::{Origin, Record};
use crate::records::{ChunkInfo, MessageDataHeader, index_data_v1, op};
use crate::time::RosTime;

impl Bag<'_> {
    /// Every message time per connection id, sorted. 2.0 reads the index
    /// data records after each chunk; where they do not match the chunk
    /// info, the chunk itself is read instead.
    pub fn message_times(&self) -> Result<BTreeMap<u32, Vec<RosTime>>> {
        let mut out: BTreeMap<u32, Vec<RosTime>> = BTreeMap::new();
        if self.version().major == 2 {
            for info in &self.chunks {
                let times = match self.chunk_index(info) {
                    Ok(t) => t,
                    Err(_) => self.chunk_times(info)?,
                };
                for (c, mut t) in times {
                    out.entry(c).or_default().append(&mut t);
                }
            }
        } else {
            for e in &self.entries_v12 {
                out.entry(e.conn).or_default().push(e.time);
            }
        }
        for v in out.values_mut() {
            v.sort_unstable();
        }
        Ok(out)
    }

    fn chunk_index(&self, info: &ChunkInfo) -> Result<BTreeMap<u32, Vec<RosTime>>> {
        let file = Origin::File { base: 0 };
        let pos = usize::try_from(info.chunk_pos).unwrap_or(usize::MAX);
        let chunk = Record::parse(self.data, pos, file)?;
        chunk.expect_op(op::CHUNK, "a chunk record")?;
        let mut at = chunk.end;
        let mut out = BTreeMap::new();
        // A connection listed twice: its first count, as before.
        let mut wanted = std::collections::HashMap::with_capacity(info.counts.len());
        for &(c, n) in &info.counts {
            wanted.entry(c).or_insert(n);
        }
        for &(conn, count) in &info.counts {
            let rec = Record::parse(self.data, at, file)?;
            let (c, entries) = index_data_v1(&rec)?;
            let want = wanted.get(&c).copied();
            if want != Some(entries.len() as u32) {
                return Err(rec.malformed(
                    format!("{count} index entries of connection {conn}"),
                    format!("{} entries of connection {c}", entries.len()),
                ));
            }
            out.insert(c, entries.iter().map(|e| e.time).collect());
            at = rec.end;
        }
        Ok(out)
    }

    fn chunk_times(&self, info: &ChunkInfo) -> Result<BTreeMap<u32, Vec<RosTime>>> {
        let (_, payload) = self.read_chunk(info.chunk_pos)?;
        let mut out: BTreeMap<u32, Vec<RosTime>> = BTreeMap::new();
        walk_chunk(payload.bytes(), payload.origin(), |r| {
            if r.op == op::MSG_DATA {
                let h = MessageDataHeader::from_record(&r)?;
                out.entry(h.conn).or_default().push(h.time);
            }
            Ok(())
        })?;
        Ok(out)
    }
}
