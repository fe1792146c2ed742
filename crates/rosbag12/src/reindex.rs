//! Rewriting a bag as an indexed 2.0 bag (`rosbag reindex` / `rosbag fix`).
//!
//! The source is opened with [`Bag::new`], which rebuilds a missing or
//! damaged index by scanning; every message it can read is written, in
//! time order, with its connection header unchanged. The chunk compression
//! of the output is the first chunk's compression of the input (none for
//! 1.2). Unlike ROS, which appends a fresh index to the truncated file in
//! place, this writes a new file: the input is never modified.

use std::io::{Seek, Write};

use logcore::MessageFilter;

use crate::bag::Bag;
use crate::error::{Error, Result};
use crate::records::Compression;
use crate::write::{Writer, WriterOptions};

/// What [`reindex`] did.
#[derive(Debug, Default)]
pub struct ReindexReport {
    /// Messages written.
    pub messages: u64,
    /// Connections written.
    pub connections: usize,
    /// Problems in the source: skipped chunks and where a truncated or
    /// damaged source ended.
    pub problems: Vec<Error>,
}

/// Writes every readable message of `source` (any version this crate
/// reads) to `out` as an indexed 2.0 bag.
pub fn reindex<W: Write + Seek>(source: &[u8], out: W) -> Result<(W, ReindexReport)> {
    let bag = Bag::new(source)?;
    let compression = bag
        .chunk_infos()
        .first()
        .and_then(|c| bag.read_chunk_header(c.chunk_pos).ok())
        .map_or(Compression::None, |h| h.compression);
    let mut w = Writer::new(out, WriterOptions::compressed(compression))?;
    let mut report = ReindexReport {
        problems: bag.warnings().to_vec(),
        ..ReindexReport::default()
    };
    let mut ids = std::collections::BTreeMap::new();
    for c in bag.connections() {
        ids.insert(c.id, w.add_connection(c.clone())?);
    }
    report.connections = ids.len();
    let filter = MessageFilter::all().mode(logcore::ReadMode::Lenient);
    for m in bag.messages(&filter) {
        match m {
            Ok(m) => {
                let id = ids.get(&m.conn).copied().unwrap_or_default();
                w.write(id, m.time, &m.data)?;
                report.messages += 1;
            }
            Err(e) => report.problems.push(e),
        }
    }
    w.finish()?;
    Ok((w.into_inner(), report))
}
