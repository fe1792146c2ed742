//! The sensor views of a log: thumbnails of camera topics, top-down views
//! of point clouds and laser scans, and GPS tracks, read through
//! [`robolog_sensors`].
//!
//! Cameras and clouds decode only the messages they show: the topic's
//! span (within the range shown) is cut into equal windows, and the first
//! message of each window is decoded. In a log larger than
//! [`ONE_PASS_BYTES`] each window is a seek (an index lookup in indexed
//! formats: a few chunks read per message shown, whatever the log's size);
//! in a smaller one, the topic's messages are walked once and the chosen
//! ones decoded (seeking would read its few chunks again per window). A track reads its
//! topic's fixes, which are small. Every view has a byte bound, and all of
//! a log's views together share [`ReportOptions::sensor_budget`]; a message
//! that does not decode is a problem of the report, never a panic.

use logcore::Timestamp;
use robolog::Log;
use robolog_sensors::{CloudOptions, ImageOptions, Kind, Range, write};

use crate::model::{Channel, CloudFrame, CloudView, Problem, Strip, Thumbnail, Track};
use crate::{ReportOptions, base64_len};

/// Thumbnails per camera topic at most.
pub const MAX_THUMBNAILS: usize = 12;
/// The longer side of a thumbnail, pixels.
pub const THUMBNAIL_SIDE: u32 = 160;
/// JPEG quality of thumbnails (a thumbnail over [`MAX_THUMBNAIL_BYTES`]
/// is written again at quality 35).
pub const THUMBNAIL_QUALITY: u8 = 70;
/// The quality a thumbnail too large at [`THUMBNAIL_QUALITY`] gets.
const LOW_QUALITY: u8 = 35;
/// Bytes of one thumbnail's JPEG at most (larger ones are left out, with
/// a problem saying so).
pub const MAX_THUMBNAIL_BYTES: usize = 16_000;
/// Messages shown per cloud or scan topic at most.
pub const MAX_CLOUD_FRAMES: usize = 8;
/// Points drawn per cloud message at most (kept evenly by index).
pub const MAX_CLOUD_POINTS: usize = 20_000;
/// Bytes of one cloud view's data at most: its frames' points share them.
pub const MAX_CLOUD_VIEW_BYTES: usize = 2_000_000;
/// Logs up to this size have a topic's chosen messages picked in one pass
/// over the topic (a seek per window would read the same few chunks again
/// and again); larger ones seek to each window.
pub const ONE_PASS_BYTES: u64 = 64_000_000;
/// Points kept per track (evenly by index beyond).
pub const MAX_TRACK_FIXES: usize = 4000;
/// Problems listed per sensor topic (the first ones).
const MAX_TOPIC_PROBLEMS: usize = 20;

/// Page bytes of one kept cloud point: x, y and a colour as `f32`, in
/// base64.
const POINT_BYTES: usize = 16;

/// What [`views`] found.
#[derive(Default)]
pub(crate) struct Views {
    pub(crate) strips: Vec<Strip>,
    pub(crate) clouds: Vec<CloudView>,
    /// Tracks of position topics, read by [`robolog_sensors::track`].
    pub(crate) tracks: Vec<Track>,
    pub(crate) problems: Vec<Problem>,
    /// Camera, cloud and scan channels that have a view of their own
    /// (whose layout series are no longer plotted).
    pub(crate) own_view: Vec<usize>,
}

/// A topic to show, with its channel and the span of its messages.
struct Shown {
    topic: String,
    kind: Kind,
    channel: usize,
    first: i64,
    last: i64,
    count: u64,
}

/// The sensor views of `log`, whose report lists `channels` over
/// `span` (the span shown, ns on the log's clock), within `budget` bytes of
/// page data.
pub(crate) fn views(
    log: &Log<'_>,
    channels: &[Channel],
    span: (i64, i64),
    opts: &ReportOptions,
    budget: usize,
) -> Views {
    let mut out = Views::default();
    if budget == 0 {
        return out;
    }
    let topics = match robolog_sensors::sensor_topics(log) {
        Ok(t) => t,
        Err(e) => {
            out.problems.push(Problem {
                t: None,
                text: format!("sensor topics: {e}"),
            });
            return out;
        }
    };
    let shown: Vec<Shown> = topics
        .into_iter()
        .filter(|t| opts.topics.is_empty() || opts.topics.contains(&t.topic))
        .filter_map(|t| {
            let channel = channels.iter().position(|c| c.topic == t.topic)?;
            let c = &channels[channel];
            (c.message_count > 0).then(|| Shown {
                channel,
                first: c.start.unwrap_or(span.0).max(span.0),
                last: c.end.unwrap_or(span.1).min(span.1),
                count: c.message_count,
                topic: t.topic,
                kind: t.kind,
            })
        })
        .collect();
    // Cameras first, each at most its strip's bound (an equal part of the
    // budget); the clouds share what the thumbnails left; tracks are
    // bounded by their fixes (a few hundred kB).
    let cameras = shown.iter().filter(|s| s.kind == Kind::Image).count();
    let clouds = shown
        .iter()
        .filter(|s| matches!(s.kind, Kind::Cloud | Kind::Scan))
        .count();
    let strip_cap = MAX_THUMBNAILS * base64_len(MAX_THUMBNAIL_BYTES);
    let strip_bytes = strip_cap.min(budget / (cameras + clouds).max(1));
    let mut used = 0;
    let clouds_last = shown
        .iter()
        .filter(|s| !matches!(s.kind, Kind::Cloud | Kind::Scan))
        .chain(
            shown
                .iter()
                .filter(|s| matches!(s.kind, Kind::Cloud | Kind::Scan)),
        );
    let mut clouds_left = clouds;
    for s in clouds_last {
        let mut problems = Vec::new();
        match s.kind {
            Kind::Image => {
                let n = MAX_THUMBNAILS.min(strip_bytes / base64_len(MAX_THUMBNAIL_BYTES));
                let frames = thumbnails(log, s, n, &mut problems);
                used += frames
                    .iter()
                    .map(|f| base64_len(f.jpeg.len()))
                    .sum::<usize>();
                if !frames.is_empty() {
                    out.own_view.push(s.channel);
                    out.strips.push(Strip {
                        channel: s.channel,
                        frames,
                    });
                }
            }
            Kind::Cloud | Kind::Scan => {
                let share = budget.saturating_sub(used) / clouds_left.max(1);
                clouds_left -= 1;
                if let Some(v) = cloud_view(log, s, MAX_CLOUD_VIEW_BYTES.min(share), &mut problems)
                {
                    used += v
                        .frames
                        .iter()
                        .map(|f| POINT_BYTES * f.x.len())
                        .sum::<usize>();
                    out.own_view.push(s.channel);
                    out.clouds.push(v);
                }
            }
            Kind::Position => {
                let range = Range {
                    start: Some(Timestamp(s.first)),
                    end: Some(Timestamp(s.last.saturating_add(1))),
                    every: 1,
                };
                match robolog_sensors::track(log, &s.topic, &range) {
                    Ok((fixes, ps)) => {
                        problems.extend(ps.iter().map(problem));
                        if fixes.len() > 1 {
                            let points = evenly(fixes.len(), MAX_TRACK_FIXES)
                                .map(|i| {
                                    let f = &fixes[i];
                                    (f.log_time.as_nanos(), f.value.latitude, f.value.longitude)
                                })
                                .collect();
                            out.tracks.push(Track {
                                channel: s.channel,
                                points,
                            });
                        }
                    }
                    Err(e) => problems.push(Problem {
                        t: None,
                        text: format!("{}: {e}", s.topic),
                    }),
                }
            }
        }
        let more = problems.len().saturating_sub(MAX_TOPIC_PROBLEMS);
        problems.truncate(MAX_TOPIC_PROBLEMS);
        if more > 0 {
            problems.push(Problem {
                t: None,
                text: format!("{}: {more} more messages did not decode", s.topic),
            });
        }
        out.problems.extend(problems);
    }
    out
}

/// `n` indices of `0..len` spread evenly (`i * len / n`), or every one
/// when `len <= n`.
pub(crate) fn evenly(len: usize, n: usize) -> impl Iterator<Item = usize> {
    let n = n.min(len);
    (0..n).map(move |i| (i as u128 * len as u128 / n as u128) as usize)
}

/// `n` equal windows `[start, end)` of the span `first..=last`.
pub(crate) fn windows(first: i64, last: i64, n: usize) -> Vec<(i64, i64)> {
    let n = n.max(1) as i128;
    let (a, width) = (i128::from(first), i128::from(last) - i128::from(first) + 1);
    (0..n)
        .map(|k| {
            let at = |k: i128| (a + width.max(1) * k / n).min(i128::from(i64::MAX)) as i64;
            (at(k), at(k + 1))
        })
        .filter(|(s, e)| s < e)
        .collect()
}

/// What robolog-sensors' iterators give: a decoded message or a problem.
type Item<T> = Result<robolog_sensors::Sample<T>, robolog_sensors::Problem>;

/// A problem of the report from one of robolog-sensors
/// (`TOPIC at TIME: what`).
fn problem(p: &robolog_sensors::Problem) -> Problem {
    Problem {
        t: p.log_time.map(Timestamp::as_nanos),
        text: p.to_string(),
    }
}

/// The first message of each window of a topic's span, decoded by
/// `read` (an iterator of robolog-sensors over the window). A window's
/// message that does not decode is a problem; an error without a time
/// (damage the report's own pass lists already) ends nothing and is
/// passed over.
fn first_of_windows<T>(
    s: &Shown,
    n: usize,
    problems: &mut Vec<Problem>,
    mut read: impl FnMut(Range) -> Result<Option<Item<T>>, robolog_sensors::Error>,
) -> Vec<robolog_sensors::Sample<T>> {
    let mut out = Vec::new();
    let n = n.min(usize::try_from(s.count).unwrap_or(usize::MAX));
    for (a, b) in windows(s.first, s.last, n) {
        let range = Range {
            start: Some(Timestamp(a)),
            end: Some(Timestamp(b)),
            every: 1,
        };
        let first = match read(range) {
            Ok(first) => first,
            Err(e) => {
                problems.push(Problem {
                    t: None,
                    text: format!("{}: {e}", s.topic),
                });
                return out;
            }
        };
        match first {
            Some(Ok(sample)) => out.push(sample),
            Some(Err(p)) if p.log_time.is_some() => problems.push(problem(&p)),
            _ => {}
        }
    }
    out
}

/// The first message of each window of a topic's span, as
/// [`first_of_windows`] picks them, read in one pass over the topic's
/// messages: only the chosen ones are decoded (by the log, then by
/// `decode` with the channel's type).
fn first_in_one_pass<T>(
    log: &Log<'_>,
    s: &Shown,
    n: usize,
    problems: &mut Vec<Problem>,
    decode: impl Fn(&str, &logcore::Value) -> Result<T, robolog_sensors::SensorError>,
) -> Vec<robolog_sensors::Sample<T>> {
    use logcore::LogReader as _;
    let mut out = Vec::new();
    let n = n.min(usize::try_from(s.count).unwrap_or(usize::MAX));
    let windows = windows(s.first, s.last, n);
    let (Some(first), Some(last)) = (windows.first(), windows.last()) else {
        return out;
    };
    let types: std::collections::HashMap<logcore::ChannelId, String> = match log.channels() {
        Ok(chans) => chans
            .into_iter()
            .filter(|c| c.topic == s.topic)
            .map(|c| (c.id, c.type_name))
            .collect(),
        Err(e) => {
            problems.push(Problem {
                t: None,
                text: format!("{}: {e}", s.topic),
            });
            return out;
        }
    };
    let mut filter = logcore::MessageFilter::all().channels(types.keys().copied());
    filter.start = Some(Timestamp(first.0));
    filter.end = Some(Timestamp(last.1));
    let messages = match log.messages(&filter) {
        Ok(m) => m,
        Err(e) => {
            problems.push(Problem {
                t: None,
                text: format!("{}: {e}", s.topic),
            });
            return out;
        }
    };
    // The window whose first message is wanted next.
    let mut next = 0;
    for m in messages {
        // Damage is listed by the report's own pass.
        let Ok(m) = m else { continue };
        let t = m.log_time.as_nanos();
        let Some(w) = windows[next..].iter().position(|w| t >= w.0 && t < w.1) else {
            continue;
        };
        next += w + 1;
        let decoded = log.decode(&m).map_err(|e| e.to_string()).and_then(|v| {
            let type_name = types.get(&m.channel).map_or("", String::as_str);
            decode(type_name, &v).map_err(|e| e.to_string())
        });
        match decoded {
            Ok(value) => out.push(robolog_sensors::Sample {
                log_time: m.log_time,
                value,
            }),
            Err(e) => problems.push(Problem {
                t: Some(t),
                text: format!("{} at {}: {e}", s.topic, m.log_time),
            }),
        }
        if next == windows.len() {
            break;
        }
    }
    out
}

/// Up to `n` thumbnails of a camera topic.
fn thumbnails(log: &Log<'_>, s: &Shown, n: usize, problems: &mut Vec<Problem>) -> Vec<Thumbnail> {
    let opts = ImageOptions::default();
    let frames = if log.size() <= ONE_PASS_BYTES {
        first_in_one_pass(log, s, n, problems, |t, v| {
            robolog_sensors::decode_image(t, v, &opts)
        })
    } else {
        first_of_windows(s, n, problems, |r| {
            robolog_sensors::images(log, &s.topic, &r, opts).map(|mut i| i.next())
        })
    };
    let mut out = Vec::new();
    for f in frames {
        let t = f.log_time.as_nanos();
        let small = write::thumbnail(&f.value, THUMBNAIL_SIDE);
        let mut jpeg = Vec::new();
        let mut written = write::jpeg(&small, THUMBNAIL_QUALITY, &mut jpeg);
        if written.is_ok() && jpeg.len() > MAX_THUMBNAIL_BYTES {
            jpeg.clear();
            written = write::jpeg(&small, LOW_QUALITY, &mut jpeg);
        }
        let text = match written {
            Ok(()) if jpeg.len() <= MAX_THUMBNAIL_BYTES => {
                out.push(Thumbnail {
                    t,
                    width: small.width,
                    height: small.height,
                    source_width: f.value.width,
                    source_height: f.value.height,
                    jpeg,
                });
                continue;
            }
            Ok(()) => format!(
                "its thumbnail takes {} bytes, more than {MAX_THUMBNAIL_BYTES}: left out",
                jpeg.len()
            ),
            Err(e) => format!("no thumbnail: {e}"),
        };
        problems.push(Problem {
            t: Some(t),
            text: format!("{} at {}: {text}", s.topic, Timestamp(t)),
        });
    }
    out
}

/// The field a cloud's points are coloured by: `z` for clouds (height
/// seen from above), `intensity` for scans (which are flat); the other
/// where the first is missing, for clouds.
fn color_field(cloud: &robolog_sensors::Cloud, scan: bool) -> Option<&'static str> {
    let order: &[&'static str] = if scan {
        &["intensity"]
    } else {
        &["z", "intensity"]
    };
    order.iter().copied().find(|f| cloud.field(f).is_some())
}

/// A top-down view of up to [`MAX_CLOUD_FRAMES`] messages of a cloud or
/// scan topic, within `bytes`.
fn cloud_view(
    log: &Log<'_>,
    s: &Shown,
    bytes: usize,
    problems: &mut Vec<Problem>,
) -> Option<CloudView> {
    let scan = s.kind == Kind::Scan;
    let opts = CloudOptions { drop_nan: true };
    let n = MAX_CLOUD_FRAMES.min(usize::try_from(s.count).unwrap_or(usize::MAX));
    let per_frame = MAX_CLOUD_POINTS.min(bytes / (n.max(1) * POINT_BYTES));
    if per_frame == 0 {
        return None;
    }
    let samples = if log.size() <= ONE_PASS_BYTES {
        first_in_one_pass(log, s, n, problems, |t, v| {
            robolog_sensors::decode_cloud(t, v, &opts)
        })
    } else {
        first_of_windows(s, n, problems, |r| {
            robolog_sensors::clouds(log, &s.topic, &r, opts).map(|mut i| i.next())
        })
    };
    let mut color: Option<&'static str> = None;
    let mut frames = Vec::new();
    for sample in samples {
        let c = &sample.value;
        let t = sample.log_time.as_nanos();
        if c.field("x").is_none() || c.field("y").is_none() {
            problems.push(Problem {
                t: Some(t),
                text: format!(
                    "{} at {}: the points have no x and y",
                    s.topic,
                    Timestamp(t)
                ),
            });
            continue;
        }
        let field = color.or_else(|| color_field(c, scan));
        color = field;
        let (mut x, mut y, mut col) = (Vec::new(), Vec::new(), Vec::new());
        for i in evenly(c.points, per_frame) {
            let v = |name: &str| c.value(i, name, 0).map_or(f32::NAN, |v| v as f32);
            x.push(v("x"));
            y.push(v("y"));
            if let Some(f) = field {
                col.push(v(f));
            }
        }
        frames.push(CloudFrame {
            t,
            points: c.points,
            x,
            y,
            c: col,
        });
    }
    (!frames.is_empty()).then(|| CloudView {
        channel: s.channel,
        scan,
        color: color.map(str::to_string),
        frames,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_cover_the_span_once() {
        assert_eq!(windows(0, 9, 2), [(0, 5), (5, 10)]);
        assert_eq!(windows(5, 5, 3), [(5, 6)]);
        let w = windows(-100, 1_000_000_007, 12);
        assert_eq!(w.len(), 12);
        assert_eq!(w[0].0, -100);
        assert_eq!(w[11].1, 1_000_000_008);
        assert!(w.windows(2).all(|p| p[0].1 == p[1].0));
        assert_eq!(windows(i64::MIN, i64::MAX - 1, 8).len(), 8);
    }

    #[test]
    fn evenly_spread_indices() {
        assert_eq!(evenly(10, 4).collect::<Vec<_>>(), [0, 2, 5, 7]);
        assert_eq!(evenly(3, 8).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(evenly(0, 8).count(), 0);
    }
}
