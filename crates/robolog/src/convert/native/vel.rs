//! A VEL log filtered into a VEL log: the messages of the kept channels
//! (topics as the log's reader names them: type name, `@v<version>` for
//! an unknown version, and the sensor) inside the time range, the
//! windows of `--around` and the choice of a `--where`, each copied as
//! stored (type, version, timestamp, payload; the marker written as the
//! format's 0x49). The header keeps the input's minor version, size
//! convention and terminator; the per-second index is computed anew for
//! the kept messages (spec 5.4), so the output is a valid VEL file whose
//! index a reader can use.
//!
//! `--shift` moves each record's timestamp (milliseconds since the
//! recorder started, a double) by the shift; a time moved below 0 is
//! refused. `--anonymise` (or `--gps-offset`) moves the position of every
//! `GPSDataM` v100 record by the offset: its latitude and longitude,
//! stored as decimal degrees or as NMEA `ddmm.mmmm` (read as the log's
//! reader guesses, written back the same way); a fix of (0, 0) or a
//! coordinate that reads as neither stays. VEL has no identifier fields
//! and no logged text, which the report says.

use std::io::Write;

use logcore::{Error, LogReader, MessageFilter, ReadMode};
use vellog::gps::{GpsData, coordinate_degrees};
use vellog::records::TypedMessage;
use vellog::{EndOfRecords, Record, WriterOptions};

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
    let shift_ms = filter.shift_ns() as f64 / 1e6;
    let anonymiser = filter.anonymiser();
    let mut report = crate::convert::anonymise::Report::default();
    // Kept records, with their payload when it changed.
    let mut records: Vec<(Record<'_>, Option<Vec<u8>>)> = Vec::new();
    for item in log.messages(&MessageFilter::all().mode(ReadMode::Lenient))? {
        let Some(m) = cx.passed(item) else {
            continue;
        };
        let Some(topic) = sel.topic_of(0, &m).map(str::to_string) else {
            continue;
        };
        let selected = patterns.selects(&topic) && !filter.excludes(&topic);
        let keep = selected && sel.keep(0, &m)?;
        tally.count(&topic, keep, m.payload.len() as u64);
        let Some(at) = m.offset else { continue };
        cx.tick(at);
        if !keep {
            continue;
        }
        match vel.records_from(at, ReadMode::Lenient).next() {
            Some(Ok(mut r)) if r.offset == at => {
                tally.kept_at(m.log_time, (r.payload.len() + 21) as u64);
                if shift_ms != 0.0 {
                    let t = r.timestamp_ms + shift_ms;
                    if !(t >= 0.0 && t.is_finite()) {
                        return Err(Error::invalid_argument(format!(
                            "--shift {shift_ms} ms moves the {topic} message at {} ms to {t} \
                             ms, before the recorder's start (0)",
                            r.timestamp_ms
                        )));
                    }
                    r.timestamp_ms = t;
                }
                let changed = match anonymiser {
                    Some(a) if a.spec.positions => moved_gps(&r, &a.offset, &topic, &mut report),
                    _ => None,
                };
                records.push((r, changed));
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
    if let Some(a) = anonymiser {
        let mut lines = report.lines();
        if a.spec.positions && report.moved.is_empty() && report.unmoved.is_empty() {
            lines.push("positions: no GPSDataM record kept, nothing moved".to_string());
        }
        if a.spec.identifiers {
            lines.push(
                "identifiers: a VEL log holds none (no names, serial numbers or ids in its \
                 header or records): nothing left out"
                    .to_string(),
            );
        }
        if a.spec.drop_text {
            lines.push("logged text: a VEL log holds none: nothing left out".to_string());
        }
        cx.stats.anonymised = lines;
    }
    let records: Vec<Record<'_>> = records
        .iter()
        .map(|(r, changed)| Record {
            payload: changed.as_deref().unwrap_or(r.payload),
            ..*r
        })
        .collect();
    let out = vellog::write::write_records(out, options, &records)?;
    cx.report(cx.total_bytes);
    Ok(out)
}

/// The payload of a `GPSDataM` v100 record `r` with its position moved by
/// `offset` (see the module docs), counted in `report` under `topic`;
/// `None` for another record, or a position that stays.
fn moved_gps(
    r: &Record<'_>,
    offset: &crate::convert::anonymise::Offset,
    topic: &str,
    report: &mut crate::convert::anonymise::Report,
) -> Option<Vec<u8>> {
    if (r.type_id, r.version) != (GpsData::TYPE_ID, GpsData::VERSION) {
        return None;
    }
    let moved = GpsData::parse(r.payload, r.offset).ok().and_then(|mut g| {
        let lat = coordinate_degrees(g.latitude, 90.0)?;
        let lon = coordinate_degrees(g.longitude, 180.0)?;
        let (a, b) = offset.moved_deg(lat.degrees, lon.degrees)?;
        g.latitude = stored(a, lat.guessed_ddmm);
        g.longitude = stored(b, lon.guessed_ddmm);
        let mut out = Vec::with_capacity(r.payload.len());
        g.write_to(&mut out).ok()?;
        Some(out)
    });
    let counts = if moved.is_some() {
        &mut report.moved
    } else {
        &mut report.unmoved
    };
    *counts.entry(topic.to_string()).or_default() += 1;
    moved
}

/// Degrees as a VEL GPS record stores them: as they are, or as NMEA
/// `ddmm.mmmm` when the input's were.
fn stored(degrees: f64, ddmm: bool) -> f64 {
    if !ddmm {
        return degrees;
    }
    let abs = degrees.abs();
    let whole = abs.trunc();
    (whole * 100.0 + (abs - whole) * 60.0).copysign(degrees)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ddmm_round_trips() {
        let d = coordinate_degrees(5021.5, 90.0).unwrap();
        assert!((stored(d.degrees, true) - 5021.5).abs() < 1e-9);
        assert_eq!(stored(-7.25, false), -7.25);
        assert!((stored(-50.5, true) + 5030.0).abs() < 1e-9);
    }
}
