//! Reading a topic's sensor data from a log.

use std::collections::HashMap;
use std::fmt;

use logcore::{ChannelId, ChannelInfo, LogReader, MessageFilter, Timestamp};

use crate::{
    Cloud, CloudOptions, Error, Fix, Image, ImageOptions, Kind, SensorTopic, decode_cloud,
    decode_fix, decode_image, kind_of,
};

/// One decoded message: its log time and what it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample<T> {
    /// The message's log time.
    pub log_time: Timestamp,
    /// The decoded data.
    pub value: T,
}

/// A message of a topic that could not be read or decoded; reading goes
/// on after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The topic.
    pub topic: String,
    /// The message's log time; `None` when the message itself could not
    /// be read.
    pub log_time: Option<Timestamp>,
    /// What did not fit.
    pub message: String,
}

impl fmt::Display for Problem {
    /// `TOPIC at LOG_TIME: what did not fit` (`TOPIC: ...` without a time).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.log_time {
            Some(t) => write!(f, "{} at {}: {}", self.topic, t, self.message),
            None => write!(f, "{}: {}", self.topic, self.message),
        }
    }
}

impl std::error::Error for Problem {}

/// Which messages of a topic to read: log times in `start..end` (either
/// open), then every `every`-th of those (the first, the `every+1`-th, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    /// First log time read (inclusive); `None`: from the start.
    pub start: Option<Timestamp>,
    /// Log time where reading stops (exclusive); `None`: to the end.
    pub end: Option<Timestamp>,
    /// Keep one message in `every` (1 or 0: all).
    pub every: usize,
}

impl Default for Range {
    fn default() -> Self {
        Range::all()
    }
}

impl Range {
    /// Every message.
    pub const fn all() -> Self {
        Range {
            start: None,
            end: None,
            every: 1,
        }
    }
}

/// The topics of `log` that hold sensor data, each once, in the order of
/// the log's channels (a topic of several channels takes the type of its
/// first).
pub fn sensor_topics(log: &robolog::Log<'_>) -> Result<Vec<SensorTopic>, Error> {
    let mut out: Vec<SensorTopic> = Vec::new();
    for ch in log.channels()? {
        if out.iter().any(|t| t.topic == ch.topic) {
            continue;
        }
        if let Some(kind) = kind_of(&ch.type_name) {
            out.push(SensorTopic {
                topic: ch.topic,
                type_name: ch.type_name,
                kind,
            });
        }
    }
    Ok(out)
}

/// The channels of `topic` and their type names; checks the topic holds
/// one of `kinds`.
fn channels_of(
    log: &robolog::Log<'_>,
    topic: &str,
    kinds: &[Kind],
    wanted: &'static str,
) -> Result<HashMap<ChannelId, String>, Error> {
    let chans: Vec<_> = log
        .channels()?
        .into_iter()
        .filter(|c| c.topic == topic)
        .collect();
    check_kind(&chans, topic, kinds, wanted)?;
    Ok(chans.into_iter().map(|c| (c.id, c.type_name)).collect())
}

/// Checks `topic` has channels (`chans`) and that the first holds one of
/// `kinds`.
pub(crate) fn check_kind(
    chans: &[ChannelInfo],
    topic: &str,
    kinds: &[Kind],
    wanted: &'static str,
) -> Result<(), Error> {
    let Some(first) = chans.first() else {
        return Err(Error::UnknownTopic {
            topic: topic.to_string(),
        });
    };
    if !kind_of(&first.type_name).is_some_and(|k| kinds.contains(&k)) {
        return Err(Error::NotSensor {
            topic: topic.to_string(),
            type_name: first.type_name.clone(),
            wanted,
        });
    }
    Ok(())
}

/// The decoded messages of the channels, with the range applied.
fn decoded<'a, T: 'a>(
    log: &'a robolog::Log<'_>,
    topic: &str,
    channels: HashMap<ChannelId, String>,
    range: &Range,
    decode: impl Fn(&str, &logcore::Value) -> Result<T, crate::SensorError> + 'a,
) -> Result<impl Iterator<Item = Result<Sample<T>, Problem>> + 'a, Error> {
    let mut filter = MessageFilter::all().channels(channels.keys().copied());
    filter.start = range.start;
    filter.end = range.end;
    let every = range.every.max(1);
    let topic = topic.to_string();
    let mut index = 0usize;
    // The messages are decoded and handed out (as copies): the pages of a
    // mapped file that held them need not stay in memory, so exporting a
    // log of gigabytes holds about one chunk, not the log.
    let messages = log.messages_releasing(&filter)?;
    Ok(messages.filter_map(move |m| {
        let problem = |log_time, message: String| Problem {
            topic: topic.clone(),
            log_time,
            message,
        };
        let m = match m {
            Ok(m) => m,
            Err(e) => return Some(Err(problem(None, e.to_string()))),
        };
        let keep = index % every == 0;
        index += 1;
        if !keep {
            return None;
        }
        let t = m.log_time;
        let type_name = channels.get(&m.channel).map_or("", String::as_str);
        let value = match log.decode(&m) {
            Ok(v) => v,
            Err(e) => return Some(Err(problem(Some(t), e.to_string()))),
        };
        Some(
            decode(type_name, &value)
                .map(|value| Sample { log_time: t, value })
                .map_err(|e| problem(Some(t), e.to_string())),
        )
    }))
}

/// The frames of an image topic (see [`decode_image`]), in the log's
/// order. A message that does not read or decode is an `Err(Problem)` and
/// reading goes on; memory is one message at a time.
///
/// ```no_run
/// use robolog_sensors::{ImageOptions, Range, images};
/// let log = robolog::open("run.bag")?;
/// for frame in images(&log, "/camera/image", &Range::all(), ImageOptions::default())? {
///     match frame {
///         Ok(s) => println!("{} {}x{}", s.log_time, s.value.width, s.value.height),
///         Err(problem) => eprintln!("{problem}"),
///     }
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn images<'a>(
    log: &'a robolog::Log<'_>,
    topic: &str,
    range: &Range,
    opts: ImageOptions,
) -> Result<impl Iterator<Item = Result<Sample<Image>, Problem>> + 'a, Error> {
    let channels = channels_of(log, topic, &[Kind::Image], "an image type")?;
    decoded(log, topic, channels, range, move |t, v| {
        decode_image(t, v, &opts)
    })
}

/// The clouds of a cloud or scan topic (see [`decode_cloud`]), like
/// [`images`].
pub fn clouds<'a>(
    log: &'a robolog::Log<'_>,
    topic: &str,
    range: &Range,
    opts: CloudOptions,
) -> Result<impl Iterator<Item = Result<Sample<Cloud>, Problem>> + 'a, Error> {
    let channels = channels_of(
        log,
        topic,
        &[Kind::Cloud, Kind::Scan],
        "a point cloud or laser scan type",
    )?;
    decoded(log, topic, channels, range, move |t, v| {
        decode_cloud(t, v, &opts)
    })
}

/// The fixes of a position topic (see [`decode_fix`]) and the messages
/// that did not read or decode; messages without a fix are left out.
pub fn track(
    log: &robolog::Log<'_>,
    topic: &str,
    range: &Range,
) -> Result<(Vec<Sample<Fix>>, Vec<Problem>), Error> {
    let channels = channels_of(log, topic, &[Kind::Position], "a position type")?;
    let (mut fixes, mut problems) = (Vec::new(), Vec::new());
    for s in decoded(log, topic, channels, range, decode_fix)? {
        match s {
            Ok(Sample {
                log_time,
                value: Some(value),
            }) => fixes.push(Sample { log_time, value }),
            Ok(_) => {}
            Err(p) => problems.push(p),
        }
    }
    Ok((fixes, problems))
}
