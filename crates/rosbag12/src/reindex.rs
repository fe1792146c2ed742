//! Rewriting a bag as an indexed 2.0 bag (`rosbag reindex` / `rosbag fix`).
//!
//! The source's index is not trusted (a damaged index is what reindexing
//! repairs): the bag is read with [`Bag::scan`], which finds the
//! connections and messages by scanning every record, so every message of
//! every complete chunk is written, in time order, with its connection
//! header unchanged. Where the stored index disagrees with the scan (it
//! points at something that is not a chunk, or counts other messages),
//! the report says so. The chunk compression
//! of the output is the first chunk's compression of the input (none for
//! 1.2). Unlike ROS, which appends a fresh index to the truncated file in
//! place, this writes a new file: the input is never modified.

use std::io::{Seek, Write};

use logcore::{Limits, MessageFilter};

use crate::bag::{Bag, IndexSource};
use crate::error::{Error, FormatError, Result};
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
    reindex_with_limits(source, out, Limits::default())
}

/// [`reindex()`] reading `source` with `limits` instead of the defaults:
/// the largest chunk it decompresses and the nesting of the message types
/// it parses.
pub fn reindex_with_limits<W: Write + Seek>(
    source: &[u8],
    out: W,
    limits: Limits,
) -> Result<(W, ReindexReport)> {
    let stored = Bag::with_limits(source, limits)?;
    let (bag, index_problem) = match stored.index_source() {
        // The index was missing or damaged: `stored` is a scan already,
        // and its warnings say why.
        IndexSource::Scanned => (stored, None),
        IndexSource::Stored => {
            let scanned = Bag::scan_with_limits(source, limits)?;
            let (listed, found) = (stored.message_count(), scanned.message_count());
            let problem = (listed != found).then(|| {
                let at = stored.header().map_or(0, |h| h.index_pos);
                Error::malformed(
                    at,
                    format!("an index that lists the {found} messages a scan of the records finds"),
                    format!("an index of {listed} messages; written from the scan"),
                )
            });
            (scanned, problem)
        }
    };
    let compression = bag
        .chunk_infos()
        .first()
        .and_then(|c| bag.read_chunk_header(c.chunk_pos).ok())
        .map_or(Compression::None, |h| h.compression);
    let mut w = Writer::new(out, WriterOptions::compressed(compression))?;
    let mut report = ReindexReport {
        problems: bag
            .warnings()
            .iter()
            .cloned()
            .chain(index_problem)
            .collect(),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/rosbag/sample.bag"
        );
        std::fs::read(path).unwrap()
    }

    /// `bytes` with the field `name` (whose value is `from`) set to `to`.
    fn set_field(bytes: &[u8], name: &str, from: &[u8], to: &[u8]) -> Vec<u8> {
        let mut field = format!("{name}=").into_bytes();
        field.extend_from_slice(from);
        let hits: Vec<usize> = bytes
            .windows(field.len())
            .enumerate()
            .filter(|(_, w)| *w == field)
            .map(|(i, _)| i + name.len() + 1)
            .collect();
        assert_eq!(hits.len(), 1, "{name}");
        let mut out = bytes.to_vec();
        out[hits[0]..hits[0] + to.len()].copy_from_slice(to);
        out
    }

    fn written(report_and_bytes: (std::io::Cursor<Vec<u8>>, ReindexReport)) -> (u64, u64, usize) {
        let (out, report) = report_and_bytes;
        let bytes = out.into_inner();
        let bag = Bag::new(&bytes).unwrap();
        let read = bag
            .messages(&logcore::MessageFilter::all())
            .inspect(|m| assert!(m.is_ok(), "{m:?}"))
            .count();
        assert_eq!(bag.index_source(), IndexSource::Stored);
        assert!(bag.warnings().is_empty(), "{:?}", bag.warnings());
        (report.messages, read as u64, report.problems.len())
    }

    /// The reader's limits apply: with a chunk limit under the first
    /// chunk's 1,182 bytes (the others declare 1,026 to 1,113), that chunk
    /// is skipped with a problem naming it and the rest is written.
    #[test]
    fn limits_reach_the_reading() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/rosbag/sample-lz4.bag"
        );
        let bytes = std::fs::read(path).unwrap();
        let whole = reindex(&bytes, std::io::Cursor::new(Vec::new())).unwrap();
        assert_eq!(written(whole), (75, 75, 0));
        let small = Limits::default().with_max_chunk_size(1150);
        let (out, report) =
            reindex_with_limits(&bytes, std::io::Cursor::new(Vec::new()), small).unwrap();
        let first = report.problems[0].to_string();
        assert!(
            first.contains("at byte 4117: expected a chunk of at most 1150 uncompressed bytes")
                && first.contains("found a chunk declaring 1182 uncompressed bytes"),
            "{first}"
        );
        let (messages, read, _) = written((out, report));
        assert_eq!((messages, read), (72, 72));
    }

    #[test]
    fn a_healthy_bag_is_rewritten_whole_without_problems() {
        let got = reindex(&sample(), std::io::Cursor::new(Vec::new())).unwrap();
        assert_eq!(written(got), (75, 75, 0));
    }

    #[test]
    fn a_chunk_info_pointing_at_no_chunk_is_noticed_and_every_message_rewritten() {
        // The first chunk (at 4117) holds 3 of the 75 messages; its chunk
        // info now points at the version line.
        let bytes = set_field(
            &sample(),
            "chunk_pos",
            &4117u64.to_le_bytes(),
            &0u64.to_le_bytes(),
        );
        let bag = Bag::new(&bytes).unwrap();
        assert_eq!(bag.index_source(), IndexSource::Scanned);
        assert_eq!(bag.message_count(), 75);
        let warnings: Vec<String> = bag.warnings().iter().map(|w| w.to_string()).collect();
        assert_eq!(
            warnings,
            [
                "at byte 12869: expected a readable index section (the bag was scanned instead), \
              found at byte 0: expected a chunk record (op 0x05) at byte 0, where a chunk info \
              of the index points, found no readable record (truncated at byte 0: expected a \
              record header of 1397707299 bytes (1397692434 more bytes than the file holds))"
            ],
        );
        let (out, report) = reindex(&bytes, std::io::Cursor::new(Vec::new())).unwrap();
        assert_eq!(report.problems.len(), 1);
        assert_eq!(written((out, report)), (75, 75, 1));
    }

    #[test]
    fn an_index_that_leaves_a_chunk_out_is_not_trusted() {
        // The bag header says 5 chunks: the stored index reads cleanly but
        // lists 62 messages (the last chunk
        // holds 13).
        let bytes = set_field(
            &sample(),
            "chunk_count",
            &6u32.to_le_bytes(),
            &5u32.to_le_bytes(),
        );
        let bag = Bag::new(&bytes).unwrap();
        assert_eq!(
            (bag.index_source(), bag.message_count()),
            (IndexSource::Stored, 62)
        );
        let (out, report) = reindex(&bytes, std::io::Cursor::new(Vec::new())).unwrap();
        assert_eq!(
            report
                .problems
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>(),
            [
                "at byte 12869: expected an index that lists the 75 messages a scan of the records \
              finds, found an index of 62 messages; written from the scan"
            ]
        );
        assert_eq!(written((out, report)), (75, 75, 1));
    }
}
