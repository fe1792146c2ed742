//! Several logs merged by log time into one output ([`convert_files_to`]).
//!
//! The inputs share a generation: ROS 1 (bags, MCAP files of `ros1`
//! channels) or ROS 2 (rosbag2 bags, MCAP files of `cdr` channels). Their
//! messages are merged by log time, the earliest first; messages of equal
//! time come in the order of the inputs, then in each input's own order.
//! Each input is read as its single conversion reads it, one message held
//! ahead per input, so memory is what the writers hold plus what each
//! reader holds (a chunk, a page of rows), never the files.
//!
//! A topic in several inputs must have the same type and definition in
//! each (ROS 1: type and md5sum; ROS 2: type and definition, where the
//! files store one: a definition a rosbag2 reader supplies from its
//! bundled ones is not compared), and then is
//! one channel (one connection, one topic) of the output;
//! [`check_merge`] refuses anything else before a byte is written. The
//! topic and time filters apply to the merged stream.
//!
//! What each output holds is what the single conversion writes (see
//! [`to_mcap`](super::to_mcap), [`to_bag`](super::to_bag) and
//! [`convert_file_to`](super::convert_file_to)), combined: for MCAP, the
//! schemas and channels of every input (a channel of a later input joins
//! the channel an earlier input made of the same topic, encoding and type,
//! whose schema and metadata it keeps; channels within one input stay
//! apart as in its own conversion), header profile `ros1` or `ros2`, every
//! Metadata and Attachment record of the MCAP inputs (from their
//! summaries) before the messages, the inputs' sequence numbers for MCAP
//! inputs and a count from 0 for the others; for a ROS 1 bag, the same
//! rule for connections (by topic, type and md5sum); for ROS 2 outputs (ROS 2 MCAP of
//! ROS 1 bags, ROS 2 bag folders, ROS 1 bags of ROS 2 logs), the topics
//! and connections the single conversions share already (by topic, type
//! and latching).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io::Write;
use std::path::Path;

use logcore::{ChannelId, Error, Format, LogReader};
use mcapfile::Writer;

use super::select::{Filter, Selecting};
use super::{Context, ConvertFileError, ConvertOptions, ConvertStats, Progress, Target};
use crate::Log;
use crate::write::{OutputPolicy, WriteError, write_atomically};

/// One input of [`convert_files_to`]: an opened log and the path it was
/// opened from (which errors name and which the output must not be).
pub type Input<'i, 'a> = (&'i Log<'a>, &'i Path);

/// The ROS generation of a log a merge reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Generation {
    Ros1,
    Ros2,
}

impl fmt::Display for Generation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Generation::Ros1 => "ROS 1",
            Generation::Ros2 => "ROS 2",
        })
    }
}

/// The generation of `log` as `opts` selects its topics: a ROS 1 bag, a
/// rosbag2 bag, or an MCAP file by its kept channels' message encodings
/// (`ros1` only, or `cdr` only; all its channels' when none is kept);
/// `None` for anything else.
fn generation(log: &Log<'_>, opts: &ConvertOptions) -> Result<Option<Generation>, Error> {
    Ok(match log.format() {
        Format::RosBag => Some(Generation::Ros1),
        Format::Rosbag2 => Some(Generation::Ros2),
        Format::Mcap => {
            let channels = log.channels()?;
            let kept = || {
                let patterns = super::select::TopicPatterns::new(&opts.topics);
                channels.iter().filter(move |c| patterns.selects(&c.topic))
            };
            let mut ros1 = kept().any(|c| c.message_encoding == "ros1");
            let mut ros2 = kept().any(|c| c.message_encoding == "cdr");
            if !ros1 && !ros2 {
                // None kept: the file's own kind.
                ros1 = channels.iter().any(|c| c.message_encoding == "ros1");
                ros2 = channels.iter().any(|c| c.message_encoding == "cdr");
            }
            match (ros1, ros2) {
                (true, false) => Some(Generation::Ros1),
                (false, true) => Some(Generation::Ros2),
                _ => None,
            }
        }
        _ => None,
    })
}

/// What a topic is in one input: its type, and the md5sum (ROS 1) or
/// definition (ROS 2) where the input has one.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Identity {
    type_name: String,
    md5sum: Option<String>,
    definition: Option<Vec<u8>>,
}

impl Identity {
    /// Whether a topic of `self` in one input and `other` in another can
    /// be one channel: the same type, and the same md5sum when both have
    /// one, else the same definition when both have one.
    fn agrees(&self, other: &Identity) -> bool {
        if self.type_name != other.type_name {
            return false;
        }
        if let (Some(a), Some(b)) = (&self.md5sum, &other.md5sum) {
            return a == b;
        }
        match (&self.definition, &other.definition) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        }
    }
}

impl fmt::Display for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.type_name)?;
        if let Some(m) = &self.md5sum {
            write!(f, " (md5sum {m})")?;
        } else if self.definition.is_some() {
            f.write_str(" (another definition)")?;
        }
        Ok(())
    }
}

/// Checks that `inputs` can be merged into `target` with `opts` (see the
/// module docs), reading only their headers and definitions: every input
/// is of one ROS generation, the target and options fit it (`ros2` takes
/// ROS 1 bags only; a ROS 2 bag folder is written from ROS 1 bags or ROS 2
/// logs), and a topic in several inputs has the same type and md5sum or
/// definition in each. The error ([`Error::InvalidArgument`]) names the
/// files concerned: a caller reports it as a usage error.
pub fn check_merge(
    inputs: &[Input<'_, '_>],
    target: Target,
    opts: &ConvertOptions,
) -> Result<(), Error> {
    let usage = |msg: String| Err(Error::InvalidArgument(msg));
    let mut first: Option<(Generation, &Path)> = None;
    for &(log, path) in inputs {
        let Some(g) = generation(log, opts)? else {
            return usage(format!(
                "{}: {} cannot be merged: several inputs are ROS 1 bags and MCAP files of ROS 1 \
                 channels, or ROS 2 bags and MCAP files of ROS 2 (cdr) channels",
                path.display(),
                match log.format() {
                    Format::Mcap =>
                        "an MCAP file of neither only ROS 1 nor only ROS 2 channels".to_string(),
                    f => format!("a {f} log"),
                }
            ));
        };
        match first {
            None => first = Some((g, path)),
            Some((g0, p0)) if g0 != g => {
                return usage(format!(
                    "{} is {g0} and {} is {g}: logs of both generations cannot share one output",
                    p0.display(),
                    path.display()
                ));
            }
            Some(_) => {}
        }
        let needs_bag = opts.ros2 || matches!(target, Target::Rosbag2 { .. });
        if g == Generation::Ros1 && needs_bag && log.format() != Format::RosBag {
            return usage(format!(
                "{}: a ROS 2 output of ROS 1 logs is written from ROS 1 bags only, not from an \
                 MCAP file: convert it to a .bag first",
                path.display()
            ));
        }
        if g == Generation::Ros2 && opts.ros2 {
            return usage(format!(
                "{}: --ros2 converts ROS 1 bags; this input is ROS 2 already",
                path.display()
            ));
        }
    }
    conflicts(inputs, opts)
}

/// The identities of the kept topics of `log` (a topic with several
/// connections or channels has several).
fn identities(log: &Log<'_>, opts: &ConvertOptions) -> Result<Vec<(String, Identity)>, Error> {
    let patterns = super::select::TopicPatterns::new(&opts.topics);
    let keep = |t: &str| patterns.selects(t);
    #[cfg(feature = "rosbag")]
    if let Some(bag) = log.as_bag() {
        return Ok(bag
            .connections()
            .iter()
            .filter(|c| keep(&c.topic))
            .map(|c| {
                let id = Identity {
                    type_name: c.type_name.clone(),
                    md5sum: Some(c.md5sum.clone()),
                    definition: Some(c.message_definition.clone().into_bytes()),
                };
                (c.topic.clone(), id)
            })
            .collect());
    }
    Ok(log
        .channels()?
        .into_iter()
        .filter(|c| keep(&c.topic))
        .map(|c| {
            // A definition the reader supplied (a rosbag2 bag storing none
            // read with bundled or added ones) is not the file's own.
            let supplied = c
                .metadata
                .get("definition_source")
                .is_some_and(|s| s != "bag");
            let id = Identity {
                type_name: c.type_name.clone(),
                md5sum: c.metadata.get("md5sum").cloned(),
                definition: c
                    .schema
                    .as_ref()
                    .filter(|s| !supplied && !s.data.is_empty())
                    .map(|s| s.data.clone()),
            };
            (c.topic, id)
        })
        .collect())
}

/// Refuses a topic whose type or definition differs between two inputs.
fn conflicts(inputs: &[Input<'_, '_>], opts: &ConvertOptions) -> Result<(), Error> {
    // Topic -> the first input's identities of it.
    let mut seen: HashMap<String, (usize, Vec<Identity>)> = HashMap::new();
    for (i, &(log, path)) in inputs.iter().enumerate() {
        for (topic, id) in identities(log, opts)? {
            let entry = seen.entry(topic.clone()).or_insert((i, Vec::new()));
            if entry.0 == i {
                entry.1.push(id);
                continue;
            }
            if entry.1.iter().any(|o| o.agrees(&id)) {
                continue;
            }
            return Err(Error::InvalidArgument(format!(
                "topic {topic} is {} in {} but {id} in {}: a merge writes a topic as one \
                 channel, of one type; leave it out with --topic or convert the files apart",
                entry.1[0],
                inputs[entry.0].1.display(),
                path.display()
            )));
        }
    }
    Ok(())
}

/// Converts `inputs`, their messages merged by log time, into the file
/// (or ROS 2 bag folder) `output` in the format `target`: the inputs must
/// pass [`check_merge`] (see the module docs for what the output holds).
/// One input is [`convert_file_to`](super::convert_file_to) exactly.
///
/// Written as [`convert_file_to`](super::convert_file_to) writes: through
/// a temporary file or folder renamed into place when complete; an
/// output that exists is refused unless `force`, an output that is one of
/// the inputs (or a folder holding one) always. `progress` counts the
/// bytes of all inputs.
///
/// ```
/// use robolog::convert::{ConvertOptions, Target, convert_files_to};
/// let input = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag").as_ref();
/// let dir = std::env::temp_dir().join(format!("robolog-doc-merge-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let log = robolog::open(input)?;
/// let out = dir.join("twice.mcap");
/// let opts = ConvertOptions::default();
/// let stats = convert_files_to(&[(&log, input), (&log, input)], &out, Target::Mcap, &opts, false, &mut |_| {})?;
/// assert_eq!(stats.messages, 2 * 75);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn convert_files_to(
    inputs: &[Input<'_, '_>],
    output: &Path,
    target: Target,
    opts: &ConvertOptions,
    force: bool,
    progress: &mut dyn FnMut(Progress),
) -> Result<ConvertStats, ConvertFileError> {
    write_files(inputs, output, target, opts, None, force, progress)
}

/// [`convert_files_to`] with the message selection `filter` (see
/// [`Filter`]): the same writers of merged inputs, each message kept or
/// dropped by the filter as it is read, written with its bytes unchanged
/// under its (renamed) topic at its (shifted) time. One input goes
/// through the same merged writers (an MCAP file of any channels to
/// MCAP; header profile, schemas, channels, metadata and attachments
/// kept, channels renumbered). The inputs are ROS 1 bags, ROS 2 bags
/// and MCAP files, and the output keeps their encoding (a ROS 1 log to
/// MCAP or a bag, a ROS 2 log to MCAP or a ROS 2 bag folder); anything
/// else, and [`ConvertOptions::ros2`], is [`Error::InvalidArgument`].
///
/// ```
/// use robolog::convert::{ConvertOptions, Filter, Target, filter_files_to};
/// let input = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag").as_ref();
/// let dir = std::env::temp_dir().join(format!("robolog-doc-filter-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let log = robolog::open(input)?;
/// let out = dir.join("renamed.mcap");
/// let mut filter = Filter::new();
/// filter.rename("/chatter=/talk")?;
/// let opts = ConvertOptions { topics: vec!["/chat*".into()], ..ConvertOptions::default() };
/// filter_files_to(&[(&log, input)], &out, Target::Mcap, &opts, &filter, false, &mut |_| {})?;
/// let written = robolog::open(&out)?;
/// let topics: Vec<String> = logcore::LogReader::channels(&written)?.into_iter().map(|c| c.topic).collect();
/// assert!(!topics.is_empty() && topics.iter().all(|t| t == "/talk"));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn filter_files_to(
    inputs: &[Input<'_, '_>],
    output: &Path,
    target: Target,
    opts: &ConvertOptions,
    filter: &Filter,
    force: bool,
    progress: &mut dyn FnMut(Progress),
) -> Result<ConvertStats, ConvertFileError> {
    write_files(inputs, output, target, opts, Some(filter), force, progress)
}

/// [`convert_files_to`], with the selection of `filter` when given.
pub(crate) fn write_files(
    inputs: &[Input<'_, '_>],
    output: &Path,
    target: Target,
    opts: &ConvertOptions,
    filter: Option<&Filter>,
    force: bool,
    progress: &mut dyn FnMut(Progress),
) -> Result<ConvertStats, ConvertFileError> {
    let usage = |msg: String| Err(ConvertFileError::Convert(Error::InvalidArgument(msg)));
    if let Some(f) = filter
        && f.splits()
        && f.part.is_none()
        && !inputs.is_empty()
    {
        return super::split::write_parts(inputs, output, target, opts, f, force, progress);
    }
    match inputs {
        [] => {
            return usage("a conversion needs at least one input".into());
        }
        [(log, input)] if filter.is_none() => {
            return super::convert_file_to(log, input, output, target, opts, force, progress);
        }
        _ => {}
    }
    let logs: Vec<&Log<'_>> = inputs.iter().map(|&(l, _)| l).collect();
    if filter.is_some() {
        super::select::check_inputs(&logs).map_err(ConvertFileError::Convert)?;
        if opts.ros2 {
            return usage(
                "a filter copies messages unchanged: it does not map them to ROS 2".into(),
            );
        }
    }
    if inputs.len() > 1 {
        check_merge(inputs, target, opts).map_err(ConvertFileError::Convert)?;
    }
    let generation = generation(logs[0], opts).map_err(ConvertFileError::Convert)?;
    if filter.is_some() {
        match (target, generation) {
            (Target::Bag, Some(Generation::Ros2))
            | (Target::Rosbag2 { .. }, Some(Generation::Ros1)) => {
                return usage(format!(
                    "a filter copies messages unchanged: a {} log is written as .mcap or {}; \
                     convert the output afterwards",
                    generation.map_or("", |_| match target {
                        Target::Bag => "ROS 2",
                        _ => "ROS 1",
                    }),
                    match target {
                        Target::Bag => "a ROS 2 bag folder",
                        _ => ".bag",
                    }
                ));
            }
            _ => {}
        }
    }
    let bag = match target {
        Target::Mcap => false,
        Target::Bag => true,
        Target::Rosbag2 { storage, zstd } => {
            let folder = |input| super::to_rosbag2::Folder {
                input,
                output,
                storage,
                zstd,
                force,
                filter,
            };
            for &(_, input) in inputs {
                folder(input).check()?;
            }
            return folder(inputs[0].1).write_merged(&logs, opts, progress);
        }
    };
    let mut opts = opts.clone();
    if bag && opts.compression == mcapfile::Compression::Zstd {
        opts.compression = mcapfile::Compression::None;
    }
    let mut policy = OutputPolicy::new(force);
    policy.add_inputs(inputs.iter().map(|&(_, p)| p));
    let ros2 = generation == Some(Generation::Ros2);
    // The header profile of an MCAP output: the generation's, or the one
    // MCAP input's own.
    let profile = match generation {
        Some(Generation::Ros1) => "ros1".to_string(),
        Some(Generation::Ros2) => "ros2".to_string(),
        None => logs[0]
            .as_mcap()
            .map(|m| m.header().profile.clone())
            .unwrap_or_default(),
    };
    let written = write_atomically(output, &policy, |f| {
        // A part of a split output counts the bytes of its file.
        let mut f = super::split::Counted::new(f, filter.and_then(|f| f.part.clone()));
        let f = &mut f;
        let mut cx = Context::of_logs(&logs, &opts, progress);
        if let Some(f) = filter {
            cx.selecting = Some(Selecting::new(&logs, &opts, f)?.spilling_into(output));
        }
        match (bag, ros2) {
            #[cfg(all(feature = "rosbag", feature = "ros2", feature = "rosbag2"))]
            (true, true) => super::ros2to1::to_bag_merged(&logs, f, &mut cx)?,
            #[cfg(feature = "rosbag")]
            (true, false) => super::bag::to_bag_merged(&logs, f, &mut cx)?,
            #[cfg(all(feature = "rosbag", feature = "ros2", feature = "rosbag2"))]
            (false, false) if opts.ros2 => super::ros1to2::convert(&logs, f, &mut cx)?,
            #[cfg(not(all(feature = "rosbag", feature = "ros2", feature = "rosbag2")))]
            (false, false) if opts.ros2 => {
                return Err(Error::unsupported(
                    0,
                    "a ROS 2 output of ROS 1 bags",
                    "this build leaves out the `ros2` or `rosbag2` feature of the robolog library",
                ));
            }
            (false, _) => to_mcap_merged(&logs, f, &profile, &mut cx)?,
            #[allow(unreachable_patterns)]
            _ => {
                return Err(Error::unsupported(
                    0,
                    "this merge",
                    "this build leaves out the `rosbag`, `ros2` or `rosbag2` feature of the \
                     robolog library",
                ));
            }
        };
        Ok(cx.stats)
    });
    written.map_err(|e| match e {
        WriteError::Refused(r) => ConvertFileError::Refused(r),
        WriteError::Io(e) => ConvertFileError::Io(e),
        WriteError::Write(Error::Io(e)) => {
            ConvertFileError::Io(std::io::Error::new(e.kind(), e.to_string()))
        }
        WriteError::Write(e) => ConvertFileError::Convert(e),
    })
}

/// A channel of one input as a merged MCAP file writes it.
struct Declared {
    id: ChannelId,
    topic: String,
    encoding: String,
    /// Schema name, encoding and data; `None` for a channel without one.
    schema: Option<(String, String, Vec<u8>)>,
    metadata: BTreeMap<String, String>,
}

/// The kept channels of `log` as its single conversion to MCAP writes
/// them: a bag's connections (`ros1msg` schemas, the connection header as
/// metadata), a rosbag2 bag's topics (`offered_qos_profiles` and
/// `type_description_hash` metadata), an MCAP file's channels unchanged.
fn declared(log: &Log<'_>, cx: &Context<'_>) -> Result<Vec<Declared>, Error> {
    #[cfg(feature = "rosbag")]
    if let Some(bag) = log.as_bag() {
        return Ok(bag
            .connections()
            .iter()
            .filter(|c| cx.keep_topic(&c.topic))
            .map(|c| Declared {
                id: ChannelId(c.id),
                topic: cx.out_topic(&c.topic),
                encoding: "ros1".into(),
                schema: Some((
                    c.type_name.clone(),
                    "ros1msg".into(),
                    c.message_definition.clone().into_bytes(),
                )),
                metadata: renamed_metadata(super::bag::channel_metadata(c), cx),
            })
            .collect());
    }
    let rosbag2 = log.format() == Format::Rosbag2;
    Ok(log
        .channels()?
        .into_iter()
        .filter(|c| cx.keep_topic(&c.topic))
        .map(|c| {
            let mut metadata = c.metadata;
            if rosbag2 {
                metadata.retain(|k, _| k == "offered_qos_profiles" || k == "type_description_hash");
            }
            Declared {
                id: c.id,
                topic: cx.out_topic(&c.topic),
                encoding: c.message_encoding,
                schema: c
                    .schema
                    .as_ref()
                    .map(|s| (s.name.clone(), s.encoding.clone(), s.data.clone())),
                metadata: renamed_metadata(metadata, cx),
            }
        })
        .collect())
}

/// Channel metadata with its `topic` entry (a ROS 1 connection header's)
/// renamed as the channel is.
fn renamed_metadata(
    mut metadata: BTreeMap<String, String>,
    cx: &Context<'_>,
) -> BTreeMap<String, String> {
    if let Some(t) = metadata.get_mut("topic") {
        *t = cx.out_topic(t);
    }
    if cx.anonymises_identifiers() {
        super::anonymise::clean_metadata(&mut metadata, None);
    }
    metadata
}

/// ROS 1 logs (profile `ros1`) or ROS 2 logs (profile `ros2`) merged into
/// one MCAP file written to `out` (see the module docs).
fn to_mcap_merged<W: Write>(
    logs: &[&Log<'_>],
    out: W,
    profile: &str,
    cx: &mut Context<'_>,
) -> Result<W, Error> {
    let mut w = Writer::new(out, super::write_options(&cx.opts, profile))?;
    let mut schemas: HashMap<(String, String, Vec<u8>), u16> = HashMap::new();
    // The channels earlier logs made, by topic, encoding and schema name
    // (the types of a topic agree across logs: see `check_merge`).
    type ChannelKey = (String, String, Option<String>);
    let mut made: HashMap<ChannelKey, u16> = HashMap::new();
    // Per log: channel -> output channel.
    let mut ids: Vec<HashMap<ChannelId, u16>> = Vec::with_capacity(logs.len());
    for log in logs {
        warnings(log, cx);
        let mut mine = HashMap::new();
        let mut added = Vec::new();
        for d in declared(log, cx)? {
            let key = (
                d.topic.clone(),
                d.encoding.clone(),
                d.schema.as_ref().map(|s| s.0.clone()),
            );
            if let Some(&id) = made.get(&key) {
                mine.insert(d.id, id);
                continue;
            }
            let schema = match d.schema {
                None => 0,
                Some(s) => match schemas.get(&s) {
                    Some(&id) => id,
                    None => {
                        let id = w.add_schema(&s.0, &s.1, &s.2)?;
                        schemas.insert(s, id);
                        id
                    }
                },
            };
            let id = w.add_channel(schema, &d.topic, &d.encoding, &d.metadata)?;
            cx.stats.channels += 1;
            added.push((key, id));
            mine.insert(d.id, id);
        }
        for (key, id) in added {
            made.entry(key).or_insert(id);
        }
        ids.push(mine);
        copy_records(log, &mut w, cx)?;
    }
    let mut streams = Vec::with_capacity(logs.len());
    for (log, mine) in logs.iter().zip(&ids) {
        let filter = cx.lenient_filter().channels(mine.keys().copied());
        streams.push(log.messages_releasing(&filter)?);
    }
    let keeps_sequence: Vec<bool> = logs.iter().map(|l| l.format() == Format::Mcap).collect();
    let mut read = vec![0u64; logs.len()];
    let sizes: Vec<u64> = logs.iter().map(|l| l.size()).collect();
    let mut sequence = 0u32;
    cx.each_message_merged(streams, |cx, i, m| {
        let Some(&channel) = ids[i].get(&m.channel) else {
            return Ok(());
        };
        let t = super::mcap_time(logs[i], &m)?;
        let publish = match m.publish_time {
            None => t,
            Some(p) => match u64::try_from(p.as_nanos()) {
                Ok(p) => p,
                Err(_) => {
                    let with = logcore::Message {
                        log_time: p,
                        ..m.clone()
                    };
                    return Err(super::mcap_time(logs[i], &with).unwrap_err());
                }
            },
        };
        let seq = match m.sequence {
            Some(s) if keeps_sequence[i] => s as u32,
            _ => sequence,
        };
        w.write_message(channel, seq, t, publish, &m.payload)?;
        sequence = sequence.wrapping_add(1);
        cx.stats.messages += 1;
        read[i] += m.payload.len() as u64;
        cx.tick_at(i, m.offset.unwrap_or(read[i]).min(sizes[i]));
        Ok(())
    })?;
    let sink = w.finish()?;
    cx.report(cx.total_bytes);
    Ok(sink)
}

/// Records what the reader of `log` repaired (a bag's index rebuilt) or
/// noticed (a rosbag2 topic read without definition) as warnings, as the
/// single conversions do.
fn warnings(log: &Log<'_>, cx: &mut Context<'_>) {
    #[cfg(feature = "rosbag")]
    if let Some(bag) = log.as_bag() {
        for w in bag.warnings() {
            cx.stats.warnings.push(w.to_string());
        }
    }
    #[cfg(feature = "rosbag2")]
    if let Some(bag) = log.as_rosbag2() {
        for n in bag.notices() {
            cx.stats.warnings.push(match &n.topic {
                Some(t) => format!("{t}: {}", n.text),
                None => n.text.clone(),
            });
        }
    }
    let _ = (log, cx);
}

/// Writes the Metadata and Attachment records of an MCAP `log` (those its
/// summary indexes) into `w`; one that does not read is recorded as
/// skipped.
fn copy_records<W: Write>(
    log: &Log<'_>,
    w: &mut Writer<W>,
    cx: &mut Context<'_>,
) -> Result<(), Error> {
    let Some(mcap) = log.as_mcap() else {
        return Ok(());
    };
    let Some(summary) = mcap.mcap_summary() else {
        return Ok(());
    };
    for index in &summary.metadata_indexes {
        match mcap.metadata(index) {
            Ok(m) if cx.anonymises_identifiers() => {
                if let Some(kept) = super::anonymise::cleaned_record(&m.name, &m.metadata) {
                    w.write_metadata(&m.name, &kept)?
                }
            }
            Ok(m) => w.write_metadata(&m.name, &m.metadata)?,
            Err(e) => cx.stats.skipped.push(e.to_string()),
        }
    }
    for index in &summary.attachment_indexes {
        if cx.anonymises_identifiers() && super::anonymise::is_identifying_attachment(&index.name) {
            continue;
        }
        match mcap.attachment(index) {
            Ok(a) => {
                w.write_attachment(a.log_time, a.create_time, &a.name, &a.media_type, &a.data)?
            }
            Err(e) => cx.stats.skipped.push(e.to_string()),
        }
    }
    Ok(())
}
