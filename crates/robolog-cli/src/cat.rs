//! `robolog cat FILE [--topic T]... [--start S] [--end S] [--json]`.

use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;
use logcore::{ChannelId, LogReader, MessageFilter, ReadMode};

use robolog::LenientDecoder;
use serde::Serialize;

use crate::context::Context;
use crate::output;
use crate::progress::Progress;
use crate::shown::{Mode, say};
use crate::timearg::FilterArgs;
use crate::{Failure, Outcome, topics};

/// Arguments of `robolog cat`.
#[derive(Debug, Args)]
pub(crate) struct CatArgs {
    /// The log file (format detected from its first bytes).
    file: PathBuf,
    #[command(flatten)]
    filter: FilterArgs,
    /// One JSON object per line: {"topic", "type", "log_time_ns", "data"}.
    #[arg(long)]
    json: bool,
    /// Stop at the first damaged record instead of skipping to the next
    /// readable one.
    #[arg(long)]
    strict: bool,
}

/// The channels on `topics`; a topic the log does not have is a usage
/// error naming the topics it has ([`topics::check`]).
pub(crate) fn channels_on_topics(
    path: &std::path::Path,
    channels: &[logcore::ChannelInfo],
    topics: &[String],
) -> Result<BTreeSet<ChannelId>, Failure> {
    let known = channels.iter().map(|c| c.topic.as_str());
    topics::check(path, known, topics, topics::Scope::Log)?;
    let wanted: BTreeSet<&str> = topics.iter().map(String::as_str).collect();
    Ok(channels
        .iter()
        .filter(|c| wanted.contains(c.topic.as_str()))
        .map(|c| c.id)
        .collect())
}

/// One line of `cat --json`. Field names are a contract: extend, never rename.
#[derive(Serialize)]
struct CatLine<'a> {
    /// The channel's topic.
    topic: &'a str,
    /// The message type.
    #[serde(rename = "type")]
    type_name: &'a str,
    /// The log time, in nanoseconds since the Unix epoch.
    log_time_ns: i64,
    /// The decoded message (its raw bytes when it does not decode).
    data: &'a logcore::Value,
}

/// Runs `robolog cat`.
pub(crate) fn run(ctx: &Context, args: &CatArgs) -> Result<Outcome, Failure> {
    let path = &args.file;
    let fail = |e: logcore::Error| Failure::new(path, e);
    let reader = ctx.open(path)?;
    let channels = reader.channels().map_err(fail)?;

    let mut filter = MessageFilter::all().mode(if args.strict {
        ReadMode::Strict
    } else {
        ReadMode::Lenient
    });
    if !args.filter.topics.is_empty() {
        filter.channels = Some(channels_on_topics(path, &channels, &args.filter.topics)?);
    }
    args.filter.range.resolve_times(
        || {
            reader
                .summary()
                .map(|s| (s.start, s.time_model))
                .map_err(fail)
        },
        |e| Failure::usage(path, e),
        &mut filter.start,
        &mut filter.end,
    )?;

    let by_id: std::collections::HashMap<ChannelId, &logcore::ChannelInfo> =
        channels.iter().map(|c| (c.id, c)).collect();
    let mut out = output::stdout_as(if args.json { Mode::Json } else { Mode::Text });
    let mut damaged = false;
    let mut decoder = LenientDecoder::new(&reader);
    // Channels of an encoding no decoder serves (only where payloads are
    // decoded by encoding: the other formats decode every channel
    // themselves), with how many of their messages were printed raw.
    let mut undecodable: std::collections::BTreeMap<ChannelId, u64> = channels
        .iter()
        .filter(|c| reader.decodes_by_encoding() && !decodable(&reader, c))
        .map(|c| (c.id, 0))
        .collect();
    let io = |e: std::io::Error| Failure::new(path, e);
    // A bar only when the messages go to a file or a pipe and stderr is a
    // terminal: on a terminal the lines themselves show the progress.
    let mut bar = Progress::with_target(
        reader.size(),
        !std::io::stdout().is_terminal() && std::io::stderr().is_terminal(),
    );
    let mut printed = 0u64;
    for item in reader.messages(&filter).map_err(fail)? {
        let msg = match item {
            Ok(m) => m,
            Err(e) => {
                std::io::Write::flush(&mut out).map_err(io)?;
                ctx.report(path, &e);
                damaged = true;
                continue;
            }
        };
        let (topic, type_name) = by_id
            .get(&msg.channel)
            .map(|c| (c.topic.as_str(), c.type_name.as_str()))
            .unwrap_or(("?", "?"));
        // A payload that does not decode is printed raw; the failures are
        // reported once per channel at the end.
        let data = decoder.decode(&msg);
        if let Some(n) = undecodable.get_mut(&msg.channel) {
            *n += 1;
        }
        let line = if args.json {
            // Serialized directly (not through `serde_json::Value`) so that
            // `f32` fields print as their shortest form: 9.81, not 9.8100004196167.
            let line = CatLine {
                topic,
                type_name,
                log_time_ns: msg.log_time.as_nanos(),
                data: &data,
            };
            serde_json::to_string(&line).map_err(|e| Failure::new(path, e))?
        } else {
            format!("{} {} {}", msg.log_time, topic, robolog::render_text(&data))
        };
        output::line(&mut out, &line).map_err(io)?;
        printed += 1;
        if let Some(at) = msg.offset {
            bar.update(at, printed);
        }
    }
    bar.finish();
    std::io::Write::flush(&mut out).map_err(io)?;
    for (id, count) in undecodable.iter().filter(|(_, n)| **n > 0) {
        let Some(c) = by_id.get(id) else { continue };
        say!(
            "robolog: {}: channel {:?}: no decoder for message encoding {:?}{}; its {count} message{} {} printed as raw bytes",
            path.display(),
            c.topic,
            c.message_encoding,
            c.schema
                .as_ref()
                .map(|s| format!(" with schema encoding {:?}", s.encoding))
                .unwrap_or_default(),
            if *count == 1 { "" } else { "s" },
            if *count == 1 { "is" } else { "are" },
        );
    }
    for failure in decoder.failures() {
        let topic = by_id
            .get(&failure.channel)
            .map_or("?", |c| c.topic.as_str());
        say!(
            "robolog: {}: channel {topic:?}: {} message{} could not be decoded and {} printed as raw bytes; the first: {}",
            path.display(),
            failure.count,
            if failure.count == 1 { "" } else { "s" },
            if failure.count == 1 { "is" } else { "are" },
            failure.first
        );
        damaged = true;
    }
    Ok(if damaged {
        Outcome::Damaged
    } else {
        Outcome::Clean
    })
}

/// Whether the log's registry serves the encodings of channel `c`.
fn decodable(log: &robolog::Log<'_>, c: &logcore::ChannelInfo) -> bool {
    let schema = c.schema.as_ref().map_or("", |s| s.encoding.as_str());
    log.registry()
        .factory(&c.message_encoding, schema)
        .is_some()
}
