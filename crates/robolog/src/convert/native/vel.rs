//! A VEL log filtered into a VEL log: the messages of the kept channels
//! (topics as the log's reader names them: type name, `@v<version>` for
//! an unknown version, and the sensor) inside the time range, the
//! windows of `--around` and the choice of a `--where`, each copied as
//! stored (type, version, timestamp, payload; the marker written as the
//! format's 0x49). The header keeps the input's minor version, size
//! convention and terminator; the per-second index is computed anew for
//! the kept messages (spec 5.4), so the output is a valid VEL file whose
//! index a reader can use.

use std::io::Write;

use logcore::{Error, LogReader, MessageFilter, ReadMode};
use vellog::{EndOfRecords, WriterOptions};

use super::Tally;
use crate::Log;
use crate::convert::select::{Filter, Selecting, TopicPatterns};
use crate::convert::{Context, ConvertOptions};

/// Writes the messages of `log` the options and filter keep into `out`;
/// counts each topic's messages in `tally`.
pub(crate) fn write<W: Write>(
    log: &Log<'_>,
    out: W,
    opts: &ConvertOptions,
    filter: &Filter,
    cx: &mut Context<'_>,
    tally: &mut Tally,
) -> Result<W, Error> {
    let Some(vel) = log.as_vellog() else {
        return Err(crate::convert::not_a("a VEL log", log));
    };
    for c in log.channels()? {
        tally.topic(&c.topic);
    }
    let mut sel = Selecting::new(&[log], opts, filter)?;
    let patterns = TopicPatterns::new(&opts.topics);
    let mut records = Vec::new();
    for item in log.messages(&MessageFilter::all().mode(ReadMode::Lenient))? {
        let Some(m) = cx.passed(item) else {
            continue;
        };
        let Some(topic) = sel.topic_of(0, &m).map(str::to_string) else {
            continue;
        };
        let selected = patterns.selects(&topic) && !filter.excludes(&topic);
        let keep = selected && sel.keep(0, &m);
        tally.count(&topic, keep, m.payload.len() as u64);
        let Some(at) = m.offset else { continue };
        cx.tick(at);
        if !keep {
            continue;
        }
        match vel.records_from(at, ReadMode::Lenient).next() {
            Some(Ok(r)) if r.offset == at => {
                records.push(r);
                cx.stats.messages += 1;
            }
            _ => cx.stats.skipped.push(format!(
                "the message at byte {at} read once but not again; left out"
            )),
        }
    }
    let mut all = vel.records_with(ReadMode::Lenient);
    for _ in all.by_ref() {}
    let options = WriterOptions {
        terminator: matches!(all.end(), Some(EndOfRecords::Terminator { .. })),
        size_convention: vel.size_convention(),
        minor_version: vel.header().minor,
    };
    cx.stats.channels = tally.written_topics();
    let out = vellog::write::write_records(out, options, &records)?;
    cx.report(cx.total_bytes);
    Ok(out)
}
