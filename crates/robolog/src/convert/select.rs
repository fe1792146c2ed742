//! Message selection for `robolog filter` (and a later Python
//! `robolog.filter`): which messages of the inputs a conversion writes,
//! under which topic names and at which times. It is a step of the merged
//! conversion pipeline ([`filter_files_to`](super::filter_files_to)), not
//! a writer of its own: the writers of [`convert_files_to`](super::convert_files_to)
//! copy each kept message's bytes unchanged.
//!
//! - **Topic patterns** ([`TopicPattern`]): a topic name itself, a glob
//!   (`*` within one name level, `**` across levels, `?` one character
//!   but `/`, `[abc]`, `[a-z]`, `[!abc]`), or a regular expression after
//!   `re:` (the [`regex`] crate's syntax). Globs and expressions match the
//!   whole topic name. [`ConvertOptions::topics`](super::ConvertOptions::topics)
//!   takes them, and [`Filter::exclude_topic`] leaves topics out.
//! - **Message keys** ([`MessageKey`]): a message of a topic is named by its
//!   log time and how many messages of that topic in that input had the
//!   same log time before it, in the order the reader gives them
//!   ([`numbered`]). A table of `robolog-arrow` (one row per message of a
//!   topic, in that order) numbers its rows the same way, so a content
//!   filter evaluated on a topic's table ([`Filter::keep_only`]) names the
//!   messages the writing pass meets, whatever time range that pass reads.
//! - **Windows** ([`Filter::around`]): every topic is kept only inside the
//!   windows `[t - before, t + after]` (inclusive) around event times;
//!   overlapping windows merge.
//! - **Latched topics** ([`Filter::keep_latched`]): a ROS 1 connection
//!   with `latching=1`, or a ROS 2 channel offered `transient_local`
//!   durability (rosbag2's `offered_qos_profiles`, an MCAP channel's
//!   metadata of that name), keeps its last message before the cut (the
//!   conversion's start, or the start of the first window when later),
//!   at its own time.
//! - **Shift** ([`Filter::shift`]): every log time and publish time moves
//!   by this offset where messages are written; the payloads, and so the
//!   header stamps inside them, are not changed.
//! - **Renames** ([`Filter::rename`]): `/old=/new`, or `/cam/*=/camera/*`
//!   for every topic under a prefix; applied where channels are declared.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

use logcore::{ChannelId, ChannelInfo, Error, LogReader, Message, MessageFilter, ReadMode};
use logcore::{Format, Timestamp};

use super::keystream::{FilterPlan, KeyStream, Prepare, Scan};
use crate::Log;

/// A topic pattern: an exact name, a glob or a `re:` regular expression
/// (see the module docs).
///
/// ```
/// use robolog::convert::TopicPattern;
/// let p = TopicPattern::parse("/turtle1/*")?;
/// assert!(p.matches("/turtle1/pose") && !p.matches("/turtle1/a/b"));
/// assert!(TopicPattern::parse("/a/**")?.matches("/a/b/c"));
/// assert!(TopicPattern::parse("re:/imu/(data|raw)")?.matches("/imu/raw"));
/// assert!(TopicPattern::parse("/cam[12]/image")?.matches("/cam2/image"));
/// assert!(TopicPattern::parse("/rosout")?.matches("/rosout"));
/// # Ok::<(), logcore::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct TopicPattern {
    /// The pattern as given.
    text: String,
    /// The whole-name expression of a glob or `re:` pattern; `None` for a
    /// plain name.
    regex: Option<regex::Regex>,
}

impl TopicPattern {
    /// Parses `text`: `re:EXPR` is a regular expression, a text with `*`,
    /// `?` or `[` a glob, anything else a topic name. An expression that
    /// does not compile is [`Error::InvalidArgument`].
    pub fn parse(text: &str) -> Result<TopicPattern, Error> {
        let source = if let Some(expr) = text.strip_prefix("re:") {
            Some(expr.to_string())
        } else if text.contains(['*', '?', '[']) {
            Some(glob_regex(text))
        } else {
            None
        };
        let regex = source
            .map(|s| {
                regex::Regex::new(&format!("^(?:{s})$"))
                    .map_err(|e| Error::invalid_argument(format!("topic pattern {text:?}: {e}")))
            })
            .transpose()?;
        Ok(TopicPattern {
            text: text.to_string(),
            regex,
        })
    }

    /// Whether `topic` is the pattern itself or matches it.
    pub fn matches(&self, topic: &str) -> bool {
        topic == self.text || self.regex.as_ref().is_some_and(|r| r.is_match(topic))
    }

    /// The pattern as given.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for TopicPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The regular expression (without anchors) of the glob `glob`.
fn glob_regex(glob: &str) -> String {
    let chars: Vec<char> = glob.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' if chars.get(i + 1) == Some(&'*') => {
                out.push_str(".*");
                i += 2;
                continue;
            }
            '*' => out.push_str("[^/]*"),
            '?' => out.push_str("[^/]"),
            '[' => {
                // The class ends at the first `]` after its first member.
                let mut j = i + 1;
                let negated = matches!(chars.get(j), Some('!' | '^'));
                if negated {
                    j += 1;
                }
                let first = j;
                while j < chars.len() && (chars[j] != ']' || j == first) {
                    j += 1;
                }
                if j >= chars.len() {
                    out.push_str(r"\[");
                } else {
                    out.push('[');
                    if negated {
                        out.push('^');
                    }
                    for &c in &chars[first..j] {
                        if matches!(c, '\\' | '[' | ']' | '&' | '~' | '^') {
                            out.push('\\');
                        }
                        out.push(c);
                    }
                    out.push(']');
                    i = j + 1;
                    continue;
                }
            }
            c => out.push_str(&regex::escape(&c.to_string())),
        }
        i += 1;
    }
    out
}

/// Compiled topic patterns ([`ConvertOptions::topics`](super::ConvertOptions::topics)):
/// a topic is selected when there are none or one matches. A pattern that
/// does not compile matches only its own text (callers that take patterns
/// from users check them with [`TopicPattern::parse`] first).
#[derive(Debug, Clone, Default)]
pub(crate) struct TopicPatterns(Vec<TopicPattern>);

impl TopicPatterns {
    /// The patterns of `texts`.
    pub(crate) fn new(texts: &[String]) -> Self {
        TopicPatterns(
            texts
                .iter()
                .map(|t| {
                    TopicPattern::parse(t).unwrap_or_else(|_| TopicPattern {
                        text: t.clone(),
                        regex: None,
                    })
                })
                .collect(),
        )
    }

    /// Whether `topic` is selected: no pattern, or one that matches.
    pub(crate) fn selects(&self, topic: &str) -> bool {
        self.0.is_empty() || self.0.iter().any(|p| p.matches(topic))
    }
}

/// Whether the patterns `patterns` select `topic` ([`TopicPatterns`]).
pub(crate) fn topic_selected(patterns: &[String], topic: &str) -> bool {
    TopicPatterns::new(patterns).selects(topic)
}

/// One message of a topic of one input: its log time and how many
/// messages of the topic had that log time before it (see the module
/// docs and [`numbered`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MessageKey {
    /// The message's log time (in the input, before any shift).
    pub log_time: Timestamp,
    /// How many messages of the same topic and input with the same log
    /// time the reader gave before this one.
    pub occurrence: u32,
}

/// The keys of a topic's messages with log times `times`, in the order
/// the reader gives them (a table's rows): equal times in a row count up
/// from 0.
///
/// ```
/// use logcore::Timestamp;
/// use robolog::convert::numbered;
/// let keys = numbered([Timestamp(5), Timestamp(5), Timestamp(7)]);
/// assert_eq!((keys[1].log_time, keys[1].occurrence), (Timestamp(5), 1));
/// assert_eq!(keys[2].occurrence, 0);
/// ```
pub fn numbered(times: impl IntoIterator<Item = Timestamp>) -> Vec<MessageKey> {
    let mut counter = Counter::default();
    times.into_iter().map(|t| counter.next(t)).collect()
}

/// Numbers the messages of one topic as they come ([`numbered`]).
#[derive(Debug, Clone, Copy, Default)]
struct Counter {
    last: Option<(Timestamp, u32)>,
}

impl Counter {
    /// The key of the next message, at `t`.
    fn next(&mut self, t: Timestamp) -> MessageKey {
        let occurrence = match self.last {
            Some((last, n)) if last == t => n + 1,
            _ => 0,
        };
        self.last = Some((t, occurrence));
        MessageKey {
            log_time: t,
            occurrence,
        }
    }
}

/// A rename of [`Filter::rename`]: an exact topic, or every topic under
/// a prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Rename {
    /// `/old=/new`.
    Exact(String, String),
    /// `/old/*=/new/*`: the prefixes, each with its trailing `/`.
    Prefix(String, String),
}

/// What [`filter_files_to`](super::filter_files_to) keeps of its inputs
/// besides [`ConvertOptions`](super::ConvertOptions)' topics and time
/// range, how it renames topics and shifts times (see the module docs).
/// Inputs are named by their index in the list given to the conversion.
///
/// ```
/// use logcore::Timestamp;
/// use robolog::convert::{Filter, numbered};
/// let mut f = Filter::new();
/// f.exclude_topic("/rosout*")?;
/// f.rename("/cam/*=/camera/*")?;
/// f.keep_only(0, "/imu", numbered([Timestamp(10)]));
/// f.around([Timestamp(100), Timestamp(103)], 2, 5);
/// assert_eq!(f.windows(), Some(&[(Timestamp(98), Timestamp(108))][..]));
/// assert_eq!(f.renamed("/cam/left"), "/camera/left");
/// # Ok::<(), logcore::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Filter {
    exclude: Vec<TopicPattern>,
    /// (input, topic) -> the only messages kept of it.
    only: HashMap<(usize, String), HashSet<MessageKey>>,
    /// (input, topic) -> the messages kept of it, as a scan beside the
    /// writing pass finds them ([`FilterPlan::run`](super::FilterPlan::run)).
    pub(crate) streamed: HashMap<(usize, String), super::keystream::KeyStream>,
    /// Sorted, disjoint, inclusive windows; `None`: no window given.
    windows: Option<Vec<(Timestamp, Timestamp)>>,
    shift: i64,
    renames: Vec<Rename>,
    latched: bool,
    /// The anonymisation ([`Filter::anonymise`]).
    anonymise: Option<super::anonymise::Anonymiser>,
    /// Topics of logged text left out ([`Filter::drop_text_topics`]).
    text_topics: Vec<String>,
    /// Parts of the output ([`Filter::split_every`], [`Filter::split_size`]).
    pub(crate) split: super::split::Split,
    /// The run of one part, set by the part driver.
    pub(crate) part: Option<std::sync::Arc<super::split::PartRun>>,
    /// Log times from the messages' header stamps ([`Filter::restamp_header`]).
    restamp: bool,
    /// Frame renames ([`Filter::frame_id`]).
    frames: super::rewrite::Frames,
}

impl Filter {
    /// A filter that keeps everything the options keep, unchanged.
    pub fn new() -> Self {
        Filter::default()
    }

    /// Leaves out the topics `pattern` ([`TopicPattern`]) matches.
    pub fn exclude_topic(&mut self, pattern: &str) -> Result<&mut Self, Error> {
        self.exclude.push(TopicPattern::parse(pattern)?);
        Ok(self)
    }

    /// Keeps of `topic` in input `input` only the messages `keys` name
    /// (given again for the same topic and input: those both name).
    pub fn keep_only(
        &mut self,
        input: usize,
        topic: &str,
        keys: impl IntoIterator<Item = MessageKey>,
    ) -> &mut Self {
        let keys: HashSet<MessageKey> = keys.into_iter().collect();
        match self.only.entry((input, topic.to_string())) {
            std::collections::hash_map::Entry::Occupied(mut e) => {
                e.get_mut().retain(|k| keys.contains(k));
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(keys);
            }
        }
        self
    }

    /// Keeps every topic only inside the windows `[t - before, t + after]`
    /// (nanoseconds) around the `times` (added to the windows given
    /// before; overlapping windows merge). No time at all keeps nothing
    /// (but latched messages, when asked for, are still not cut: no window
    /// no cut).
    pub fn around(
        &mut self,
        times: impl IntoIterator<Item = Timestamp>,
        before: i64,
        after: i64,
    ) -> &mut Self {
        let mut all = self.windows.take().unwrap_or_default();
        all.extend(times.into_iter().map(|t| {
            (
                Timestamp(t.0.saturating_sub(before)),
                Timestamp(t.0.saturating_add(after)),
            )
        }));
        all.sort();
        let mut merged: Vec<(Timestamp, Timestamp)> = Vec::with_capacity(all.len());
        for (a, b) in all {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        self.windows = Some(merged);
        self
    }

    /// The merged windows of [`Filter::around`], `None` when none was
    /// asked for.
    pub fn windows(&self) -> Option<&[(Timestamp, Timestamp)]> {
        self.windows.as_deref()
    }

    /// Moves every log and publish time written by `ns` nanoseconds.
    pub fn shift(&mut self, ns: i64) -> &mut Self {
        self.shift = ns;
        self
    }

    /// Renames topics: `OLD=NEW` for one topic, `OLD/*=NEW/*` for every
    /// topic under `OLD/` (the first rename that applies wins).
    pub fn rename(&mut self, spec: &str) -> Result<&mut Self, Error> {
        let bad = |why: &str| {
            Error::invalid_argument(format!(
                "--rename {spec:?}: {why}; give /old=/new or /old/*=/new/*"
            ))
        };
        let Some((from, to)) = spec.split_once('=') else {
            return Err(bad("no `=`"));
        };
        if from.is_empty() || to.is_empty() {
            return Err(bad("an empty name"));
        }
        let rename = match (from.strip_suffix('*'), to.strip_suffix('*')) {
            (Some(a), Some(b)) if a.ends_with('/') && b.ends_with('/') => {
                Rename::Prefix(a.to_string(), b.to_string())
            }
            _ if from.contains('*') || to.contains('*') => {
                return Err(bad("a `*` is only taken at the end of both, after a `/`"));
            }
            _ => Rename::Exact(from.to_string(), to.to_string()),
        };
        self.renames.push(rename);
        Ok(self)
    }

    /// Keeps the last message before the cut of each latched channel (see
    /// the module docs).
    pub fn keep_latched(&mut self, yes: bool) -> &mut Self {
        self.latched = yes;
        self
    }

    /// Writes the output as parts `OUT_000.EXT`, `OUT_001.EXT`, ... of the
    /// intervals of `ns` nanoseconds of the input log times (see the
    /// `split` module of [`filter_files_to`](super::filter_files_to)); 0
    /// or less is [`Error::InvalidArgument`].
    pub fn split_every(&mut self, ns: i64) -> Result<&mut Self, Error> {
        if ns <= 0 {
            return Err(Error::invalid_argument(format!(
                "--split-every {ns} ns: give a duration above 0 (60s, 500ms)"
            )));
        }
        self.split.every = Some(ns);
        Ok(self)
    }

    /// Writes the output as parts of about `bytes` bytes each (a part ends
    /// at the first log time after it reached them); 0 is
    /// [`Error::InvalidArgument`].
    pub fn split_size(&mut self, bytes: u64) -> Result<&mut Self, Error> {
        if bytes == 0 {
            return Err(Error::invalid_argument(
                "--split-size 0: give a size above 0 (1GB, 500MB, 1048576)",
            ));
        }
        self.split.size = Some(bytes);
        Ok(self)
    }

    /// Whether the output is written as parts.
    pub fn splits(&self) -> bool {
        self.split.splits()
    }

    /// Writes every message whose type starts with a `std_msgs/Header`
    /// (ROS 1 or CDR) at its `header.stamp`, the others at their log time,
    /// sorted by those times (see the `restamp` module of
    /// [`filter_files_to`](super::filter_files_to)); a shift then moves
    /// them all.
    pub fn restamp_header(&mut self, yes: bool) -> &mut Self {
        self.restamp = yes;
        self
    }

    /// Renames frame `OLD` to `NEW` (`spec` is `OLD=NEW`) in the
    /// `header.frame_id` of every message whose type starts with a
    /// `std_msgs/Header` and in the transforms of `tf2_msgs/TFMessage`
    /// (`header.frame_id` and `child_frame_id`); only the messages it
    /// changes are encoded again (see the `rewrite` module), the others
    /// are copied byte for byte. A spec without `=`, with an empty side, or
    /// renaming a frame given before is [`Error::InvalidArgument`].
    pub fn frame_id(&mut self, spec: &str) -> Result<&mut Self, Error> {
        let bad = |why: &str| {
            Error::invalid_argument(format!("--frame-id {spec:?}: {why}; give OLD=NEW"))
        };
        let Some((old, new)) = spec.split_once('=') else {
            return Err(bad("no `=`"));
        };
        if old.is_empty() || new.is_empty() {
            return Err(bad("an empty frame id"));
        }
        if self.frames.contains_key(old) {
            return Err(bad(&format!("{old} is renamed twice")));
        }
        self.frames.insert(old.to_string(), new.to_string());
        Ok(self)
    }

    /// The name `topic` is written under.
    pub fn renamed(&self, topic: &str) -> String {
        for r in &self.renames {
            match r {
                Rename::Exact(a, b) if a == topic => return b.clone(),
                Rename::Prefix(a, b) => {
                    if let Some(rest) = topic.strip_prefix(a.as_str()) {
                        return format!("{b}{rest}");
                    }
                }
                _ => {}
            }
        }
        topic.to_string()
    }

    /// Whether `topic` is excluded.
    pub fn excludes(&self, topic: &str) -> bool {
        self.exclude.iter().any(|p| p.matches(topic)) || self.text_topics.iter().any(|t| t == topic)
    }

    /// Anonymises what the filter writes as `spec` asks (see
    /// [`Anonymise`](super::Anonymise)): GPS positions moved by one offset
    /// (chosen here, once, when `spec` gives none), identifiers and
    /// logged text left out. An offset out of range is
    /// [`Error::InvalidArgument`].
    pub fn anonymise(&mut self, spec: &super::Anonymise) -> Result<&mut Self, Error> {
        self.anonymise = if spec.is_empty() {
            None
        } else {
            Some(super::anonymise::Anonymiser::new(spec)?)
        };
        Ok(self)
    }

    /// The anonymisation, when the filter has one.
    pub(crate) fn anonymiser(&self) -> Option<&super::anonymise::Anonymiser> {
        self.anonymise.as_ref()
    }

    /// Leaves out the topics of `logs` whose channels carry logged text
    /// (`rosgraph_msgs/Log`, `rcl_interfaces/msg/Log`, `foxglove.Log`);
    /// the index of a log whose channels do not read is the error's.
    pub fn drop_text_topics(&mut self, logs: &[&Log<'_>]) -> Result<&mut Self, (usize, Error)> {
        for (i, log) in logs.iter().enumerate() {
            for c in log.channels().map_err(|e| (i, e))? {
                if super::anonymise::is_log_channel(&c) && !self.text_topics.contains(&c.topic) {
                    self.text_topics.push(c.topic);
                }
            }
        }
        Ok(self)
    }

    /// The only messages kept of `topic` in input `input`, when a content
    /// filter chose them (the writers of ULog files, which number a
    /// message name's instances together, read them here).
    #[cfg_attr(
        not(any(feature = "ulog", feature = "carla", feature = "vellog")),
        allow(dead_code)
    )]
    pub(crate) fn only(&self, input: usize, topic: &str) -> Option<&HashSet<MessageKey>> {
        self.only.get(&(input, topic.to_string()))
    }

    /// Whether the filter chooses messages by content or windows
    /// (`--where`, `--around`).
    pub(crate) fn selects_messages(&self) -> bool {
        !self.only.is_empty() || !self.streamed.is_empty() || self.windows.is_some()
    }

    /// The shift of [`Filter::shift`], in nanoseconds (the writers of
    /// ULog files and VEL logs move their records' times by it).
    #[cfg_attr(
        not(any(feature = "ulog", feature = "carla", feature = "vellog")),
        allow(dead_code)
    )]
    pub(crate) fn shift_ns(&self) -> i64 {
        self.shift
    }

    /// Whether the filter renames topics.
    #[cfg_attr(
        not(any(feature = "ulog", feature = "carla", feature = "vellog")),
        allow(dead_code)
    )]
    pub(crate) fn has_renames(&self) -> bool {
        !self.renames.is_empty()
    }

    /// Whether the filter restamps messages or renames frames (what only
    /// the writers of ROS bags and MCAP files do).
    #[cfg_attr(
        not(any(feature = "ulog", feature = "carla", feature = "vellog")),
        allow(dead_code)
    )]
    pub(crate) fn restamps_or_reframes(&self) -> bool {
        self.restamp || !self.frames.is_empty()
    }

    /// Whether `t` lies in a window of [`Filter::around`] (always, when
    /// none was asked for).
    pub(crate) fn in_windows(&self, t: Timestamp) -> bool {
        match &self.windows {
            None => true,
            Some(w) => {
                let n = w.partition_point(|&(a, _)| a <= t);
                n > 0 && t <= w[n - 1].1
            }
        }
    }
}

/// What a filter asks of the messages beyond the conversion's options:
/// the one plan `robolog filter` and Python's `robolog.filter` build a
/// [`Filter`] from ([`plan_filter`]). Times are nanoseconds.
#[derive(Debug, Clone, Default)]
pub struct FilterSpec {
    /// Topic patterns left out ([`Filter::exclude_topic`]).
    pub exclude: Vec<String>,
    /// Renames, `OLD=NEW` ([`Filter::rename`]).
    pub rename: Vec<String>,
    /// Every time moved by this ([`Filter::shift`]).
    pub shift: i64,
    /// `(topic, expression)`: the topic's messages kept where the
    /// expression holds; one per topic.
    pub wheres: Vec<(String, String)>,
    /// `(topic, expression)`: every topic kept only around the messages
    /// where the expression holds.
    pub around: Vec<(String, String)>,
    /// The windows' reach before each event (negative taken as 0).
    pub before: i64,
    /// The windows' reach after each event (negative taken as 0).
    pub after: i64,
    /// Parts of this many nanoseconds of log time ([`Filter::split_every`]).
    pub split_every: Option<i64>,
    /// Parts of about this many bytes ([`Filter::split_size`]).
    pub split_size: Option<u64>,
    /// Log times from the header stamps ([`Filter::restamp_header`]).
    pub restamp_header: bool,
    /// Frame renames, `OLD=NEW` ([`Filter::frame_id`]).
    pub frame_ids: Vec<String>,
    /// Anonymisation: positions moved, identifiers and logged text left
    /// out ([`Filter::anonymise`]; `drop_text` also
    /// [`Filter::drop_text_topics`]).
    pub anonymise: super::Anonymise,
}

/// Why [`plan_filter`] made no filter.
#[derive(Debug)]
pub enum PlanError {
    /// `--where` or `--around` (`flag`) names a topic no input has.
    UnknownTopic {
        /// The option.
        flag: &'static str,
        /// The topic asked for.
        topic: String,
    },
    /// What the caller gave does not hold: a pattern or rename that does
    /// not parse, a topic given twice, an expression the matcher refused
    /// (its words, naming the flag).
    Usage(String),
    /// An input could not be read (`input`: its index).
    Read {
        /// The input.
        input: usize,
        /// What the matcher or the reader said.
        message: String,
    },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::UnknownTopic { flag, topic } => write!(f, "{flag}: no topic {topic}"),
            PlanError::Usage(m) | PlanError::Read { message: m, .. } => f.write_str(m),
        }
    }
}

impl std::error::Error for PlanError {}

/// What a matcher says of an expression it cannot evaluate.
#[derive(Debug)]
pub enum MatchError {
    /// The expression itself does not hold (does not parse, names an
    /// unknown column, is not boolean): the caller's mistake.
    Expression(String),
    /// The log could not be read.
    Read(String),
}

/// The messages of `topic` in a log where an expression holds (for
/// `--where` and `--around`: `robolog_sql::matching_messages`).
pub type Matcher<'m> = dyn Fn(&Log<'_>, &str, &str) -> Result<Vec<MessageKey>, MatchError> + 'm;

/// The [`Filter`] `spec` asks for over the inputs `logs` (in the order
/// the conversion merges them), whose topics are `known`: exclusions,
/// renames and the shift, latched topics kept, then each `where` topic's
/// messages and each `around` topic's event times found by `matcher`.
///
/// ```
/// use robolog::convert::{FilterSpec, MatchError, plan_filter};
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
/// let log = robolog::open(path)?;
/// let known = robolog::convert::topics(&log)?;
/// let spec = FilterSpec { exclude: vec!["/rosout*".into()], ..FilterSpec::default() };
/// let no_sql = |_: &robolog::Log<'_>, _: &str, _: &str| -> Result<_, MatchError> {
///     Err(MatchError::Expression("no expressions here".into()))
/// };
/// let filter = plan_filter(&[&log], &known, &spec, &no_sql)?;
/// assert!(filter.excludes("/rosout_agg") && !filter.excludes("/chatter"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn plan_filter(
    logs: &[&Log<'_>],
    known: &[String],
    spec: &FilterSpec,
    matcher: &Matcher<'_>,
) -> Result<Filter, PlanError> {
    let prepare = |log: &Log<'_>, topic: &str, expr: &str| -> Result<Scan, MatchError> {
        let keys = matcher(log, topic, expr)?;
        Ok(Box::new(move |_: &Log<'_>, stream: &KeyStream| {
            stream.decided(keys, None);
            Ok(())
        }))
    };
    plan(logs, known, spec, &prepare, false).map(|p| p.filter)
}

/// [`plan_filter`] with each `--where` expression checked by `prepare`
/// and its scan left to run while the output is written
/// ([`FilterPlan::run`]; the own formats' writers, which need every key
/// first, and `--around`, whose windows reach back before their events,
/// get theirs before).
///
/// ```
/// use robolog::convert::{FilterSpec, MatchError, plan_filter_streaming};
/// use robolog::convert::{KeyStream, Scan};
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
/// let log = robolog::open(path)?;
/// let known = robolog::convert::topics(&log)?;
/// // Keeps the /count messages of the first half of the log.
/// let prepare = |_: &robolog::Log<'_>, topic: &str, _: &str| -> Result<Scan, MatchError> {
///     let topic = topic.to_string();
///     Ok(Box::new(move |log: &robolog::Log<'_>, keys: &KeyStream| {
///         use logcore::LogReader as _;
///         let read = |e: logcore::Error| MatchError::Read(e.to_string());
///         let ids: Vec<_> = log.channels().map_err(read)?.into_iter()
///             .filter(|c| c.topic == topic).map(|c| c.id).collect();
///         let times: Vec<_> = log.messages(&logcore::MessageFilter::all().channels(ids))
///             .map_err(read)?.filter_map(Result::ok).map(|m| m.log_time).collect();
///         let middle = times[times.len() / 2];
///         let all = robolog::convert::numbered(times).into_iter();
///         keys.decided(all.filter(|k| k.log_time < middle), None);
///         Ok(())
///     }))
/// };
/// let spec = FilterSpec {
///     wheres: vec![("/count".into(), "ignored here".into())],
///     ..FilterSpec::default()
/// };
/// let plan = plan_filter_streaming(&[&log], &known, &spec, &prepare)?;
/// let opts = robolog::convert::ConvertOptions::default();
/// let counts = plan
///     .run(&[&log], |f| robolog::convert::filter_dry_run(&[&log], &opts, f))??;
/// let count = counts.iter().find(|c| c.topic == "/count").unwrap();
/// assert!(count.kept > 0 && count.dropped >= count.kept);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn plan_filter_streaming(
    logs: &[&Log<'_>],
    known: &[String],
    spec: &FilterSpec,
    prepare: &Prepare<'_>,
) -> Result<FilterPlan, PlanError> {
    plan(
        logs,
        known,
        spec,
        prepare,
        !super::native::is_own_format(logs),
    )
}

/// The [`PlanError`] of a matcher's error on input `input`.
pub(crate) fn plan_error(flag: &str, input: usize, e: MatchError) -> PlanError {
    match e {
        MatchError::Expression(e) => PlanError::Usage(format!("{flag} {e}")),
        MatchError::Read(message) => PlanError::Read { input, message },
    }
}

/// The plan of [`plan_filter`] and [`plan_filter_streaming`]: `streaming`
/// leaves the `--where` scans to run beside the writing pass.
fn plan(
    logs: &[&Log<'_>],
    known: &[String],
    spec: &FilterSpec,
    prepare: &Prepare<'_>,
    streaming: bool,
) -> Result<FilterPlan, PlanError> {
    let usage = |e: Error| PlanError::Usage(e.to_string());
    let mut filter = Filter::new();
    for p in &spec.exclude {
        filter.exclude_topic(p).map_err(usage)?;
    }
    for r in &spec.rename {
        filter.rename(r).map_err(usage)?;
    }
    filter.shift(spec.shift).keep_latched(true);
    if let Some(every) = spec.split_every {
        filter.split_every(every).map_err(usage)?;
    }
    if let Some(size) = spec.split_size {
        filter.split_size(size).map_err(usage)?;
    }
    filter.restamp_header(spec.restamp_header);
    for f in &spec.frame_ids {
        filter.frame_id(f).map_err(usage)?;
    }
    filter.anonymise(&spec.anonymise).map_err(usage)?;
    if spec.anonymise.drop_text {
        filter
            .drop_text_topics(logs)
            .map_err(|(input, e)| PlanError::Read {
                input,
                message: e.to_string(),
            })?;
    }
    // Each input with the topic, and the scan of the expression over it.
    let scans = |flag: &'static str, topic: &str, expr: &str| {
        if !known.iter().any(|t| t == topic) {
            return Err(PlanError::UnknownTopic {
                flag,
                topic: topic.to_string(),
            });
        }
        let mut out = Vec::new();
        for (i, log) in logs.iter().enumerate() {
            let has = log
                .channels()
                .map_err(|e| PlanError::Read {
                    input: i,
                    message: e.to_string(),
                })?
                .iter()
                .any(|c| c.topic == topic);
            if has {
                let scan = prepare(log, topic, expr).map_err(|e| plan_error(flag, i, e))?;
                out.push((i, scan));
            }
        }
        Ok(out)
    };
    let to_end = |flag: &'static str, i: usize, scan: Scan| {
        super::keystream::run_to_end(scan, logs[i]).map_err(|e| plan_error(flag, i, e))
    };
    let mut where_topics: Vec<&str> = Vec::new();
    let mut pending = Vec::new();
    for (topic, expr) in &spec.wheres {
        if where_topics.contains(&topic.as_str()) {
            return Err(PlanError::Usage(format!(
                "--where: {topic} is given twice; join the conditions with AND"
            )));
        }
        where_topics.push(topic);
        for (i, scan) in scans("--where", topic, expr)? {
            if streaming {
                let keys = KeyStream::new();
                filter.streamed.insert((i, topic.to_string()), keys.clone());
                pending.push(super::keystream::Pending {
                    input: i,
                    topic: topic.to_string(),
                    scan,
                    keys,
                });
            } else {
                filter.keep_only(i, topic, to_end("--where", i, scan)?);
            }
        }
    }
    if !spec.around.is_empty() {
        let mut times = Vec::new();
        for (topic, expr) in &spec.around {
            for (i, scan) in scans("--around", topic, expr)? {
                times.extend(to_end("--around", i, scan)?.into_iter().map(|k| k.log_time));
            }
        }
        filter.around(times, spec.before.max(0), spec.after.max(0));
    }
    Ok(FilterPlan { filter, pending })
}

/// Whether channel `c` is latched: a ROS 1 connection with `latching=1`,
/// or offered QoS profiles with `transient_local` durability.
pub fn is_latched(c: &ChannelInfo) -> bool {
    if c.metadata.get("latching").is_some_and(|v| v.trim() == "1") {
        return true;
    }
    let Some(qos) = c.metadata.get("offered_qos_profiles") else {
        return false;
    };
    #[cfg(feature = "rosbag2")]
    {
        rosbag2::metadata::parse_qos_text(qos, "offered_qos_profiles").is_ok_and(|profiles| {
            profiles
                .iter()
                .any(|p| p.durability == "transient_local" || p.durability == "1")
        })
    }
    #[cfg(not(feature = "rosbag2"))]
    {
        qos.contains("transient_local")
    }
}

/// The per-message decisions of a conversion with a [`Filter`], with the
/// state they need (message numbering per topic).
#[derive(Debug)]
pub(crate) struct Selecting {
    filter: Filter,
    start: Option<Timestamp>,
    end: Option<Timestamp>,
    /// Per input: channel -> topic.
    topics: Vec<HashMap<ChannelId, String>>,
    /// Per input: channel -> its topic's entry in `slots` (made when its
    /// first message is met).
    slot_of: Vec<HashMap<ChannelId, usize>>,
    /// Per (input, topic) met: its numbering so far and what the filter
    /// keeps of it.
    slots: Vec<Slot>,
    /// (input, topic) -> the latched messages kept before the cut.
    latched: HashMap<(usize, String), HashSet<MessageKey>>,
    /// Where the reads start: the start, or the earliest latched message.
    read_start: Option<Timestamp>,
    /// Where a part of a split output ends.
    pub(crate) part: Option<super::split::PartLimit>,
    /// Per input: the payload layouts of the channels a restamp (or a
    /// frame rewrite) reads.
    layouts: Vec<HashMap<ChannelId, super::rewrite::Layout>>,
    /// Where a restamp's sort runs go (the output's folder).
    spill_dir: std::path::PathBuf,
    /// The anonymisation of the messages, when the filter has one.
    anon: Option<super::anonymise::ForMessages>,
}

/// A topic of an input as [`Selecting::keep`] numbers its messages.
#[derive(Debug)]
struct Slot {
    /// (input, topic).
    id: (usize, String),
    counter: Counter,
    /// The filter keeps only some of its messages (`Filter::only`).
    only: bool,
    /// Its messages kept as a scan finds them.
    streamed: Option<super::keystream::StreamReader>,
    /// It has latched messages kept before the cut.
    latched: bool,
}

impl Selecting {
    /// The decisions of `filter` on `logs` with the start and end of
    /// `opts`, the latched messages before the cut found (one read of
    /// each latched topic up to the cut).
    pub(crate) fn new(
        logs: &[&Log<'_>],
        opts: &super::ConvertOptions,
        filter: &Filter,
    ) -> Result<Self, Error> {
        let mut topics = Vec::with_capacity(logs.len());
        let mut channels = Vec::with_capacity(logs.len());
        for log in logs {
            let cs = log.channels()?;
            topics.push(cs.iter().map(|c| (c.id, c.topic.clone())).collect());
            channels.push(cs);
        }
        let mut s = Selecting {
            filter: filter.clone(),
            start: opts.start,
            end: opts.end,
            topics,
            slot_of: vec![HashMap::new(); logs.len()],
            slots: Vec::new(),
            latched: HashMap::new(),
            read_start: opts.start,
            part: filter
                .part
                .as_ref()
                .map(|r| super::split::PartLimit::new(r.clone(), filter.split, opts.start)),
            layouts: Vec::new(),
            spill_dir: std::env::temp_dir(),
            anon: None,
        };
        if let Some(a) = &filter.anonymise {
            let patterns = TopicPatterns::new(&opts.topics);
            let kept = |t: &str| patterns.selects(t) && !filter.excludes(t);
            s.anon = Some(super::anonymise::ForMessages::new(
                a,
                logs,
                &kept,
                &filter.text_topics,
            )?);
        }
        if filter.restamp || !filter.frames.is_empty() {
            s.layouts = channels
                .iter()
                .map(|cs| {
                    cs.iter()
                        .filter_map(|c| Some((c.id, super::rewrite::layout(c)?)))
                        .collect()
                })
                .collect();
        }
        let cut = match (
            opts.start,
            filter.windows.as_deref().and_then(|w| w.first()),
        ) {
            (Some(s), Some(&(w, _))) => Some(s.max(w)),
            (s, w) => s.or(w.map(|&(w, _)| w)),
        };
        if let (true, Some(cut)) = (filter.latched, cut) {
            for (i, (log, cs)) in logs.iter().zip(&channels).enumerate() {
                s.find_latched(i, log, cs, opts, cut)?;
            }
        }
        Ok(s)
    }

    /// Records the last message before `cut` of each latched kept channel
    /// of input `i`.
    fn find_latched(
        &mut self,
        i: usize,
        log: &Log<'_>,
        channels: &[ChannelInfo],
        opts: &super::ConvertOptions,
        cut: Timestamp,
    ) -> Result<(), Error> {
        let kept = |c: &ChannelInfo| {
            topic_selected(&opts.topics, &c.topic) && !self.filter.excludes(&c.topic)
        };
        let latched: HashSet<&str> = channels
            .iter()
            .filter(|c| kept(c) && is_latched(c))
            .map(|c| c.topic.as_str())
            .collect();
        for topic in latched {
            // Every channel of the topic, numbered as the writing pass
            // numbers them.
            let ids: Vec<ChannelId> = channels
                .iter()
                .filter(|c| c.topic == topic)
                .map(|c| c.id)
                .collect();
            let latched_ids: HashSet<ChannelId> = channels
                .iter()
                .filter(|c| c.topic == topic && is_latched(c))
                .map(|c| c.id)
                .collect();
            let mut filter = MessageFilter::all()
                .mode(ReadMode::Lenient)
                .channels(ids.iter().copied());
            filter.end = Some(cut);
            let mut counter = Counter::default();
            let mut last: HashMap<ChannelId, MessageKey> = HashMap::new();
            for m in log.messages(&filter)?.flatten() {
                let key = counter.next(m.log_time);
                if latched_ids.contains(&m.channel) {
                    last.insert(m.channel, key);
                }
            }
            for key in last.into_values() {
                self.read_start = Some(
                    self.read_start
                        .map_or(key.log_time, |s| s.min(key.log_time)),
                );
                self.latched
                    .entry((i, topic.to_string()))
                    .or_default()
                    .insert(key);
            }
        }
        Ok(())
    }

    /// The selection with a restamp's sort runs in the folder of `output`.
    pub(crate) fn spilling_into(mut self, output: &std::path::Path) -> Self {
        if let Some(dir) = output.parent() {
            self.spill_dir = if dir.as_os_str().is_empty() {
                ".".into()
            } else {
                dir.to_path_buf()
            };
        }
        self
    }

    /// The sorter of a restamping filter's messages.
    pub(crate) fn sorter(&self) -> Option<super::restamp::Sorter> {
        self.filter
            .restamp
            .then(|| super::restamp::Sorter::new(&self.spill_dir, super::restamp::MEMORY))
    }

    /// `m` of input `i` at its header stamp when the filter restamps and
    /// its type starts with a header (else as it is).
    pub(crate) fn restamped<'m>(&self, i: usize, m: Message<'m>) -> Message<'m> {
        if !self.filter.restamp {
            return m;
        }
        let stamp = self
            .layouts
            .get(i)
            .and_then(|l| l.get(&m.channel))
            .and_then(|l| super::rewrite::header_stamp(l, &m.payload));
        match stamp {
            Some(t) => Message { log_time: t, ..m },
            None => m,
        }
    }

    /// `m` of input `i` with its frames renamed ([`Filter::frame_id`]);
    /// a payload that does not read as its type is refused.
    pub(crate) fn reframed<'m>(&self, i: usize, m: Message<'m>) -> Result<Message<'m>, Error> {
        if self.filter.frames.is_empty() {
            return Ok(m);
        }
        let Some(layout) = self.layouts.get(i).and_then(|l| l.get(&m.channel)) else {
            return Ok(m);
        };
        match super::rewrite::renamed_frames(layout, &m.payload, &self.filter.frames) {
            Ok(None) => Ok(m),
            Ok(Some(p)) => Ok(Message {
                payload: logcore::Payload::Shared(bytes::Bytes::from(p)),
                ..m
            }),
            Err(e) => Err(Error::malformed(
                m.offset.unwrap_or(0),
                "a message whose frames --frame-id renames",
                format!(
                    "a payload of {} that does not read: {e}",
                    self.topic_of(i, &m).unwrap_or("a channel")
                ),
            )),
        }
    }

    /// `m` of input `i` as the anonymisation writes it (positions moved).
    pub(crate) fn anonymised<'m>(&mut self, i: usize, m: Message<'m>) -> Message<'m> {
        match self.anon.as_mut() {
            Some(a) => a.apply(i, m),
            None => m,
        }
    }

    /// What the anonymisation changed since last asked, as lines.
    pub(crate) fn take_anonymised(&mut self) -> Vec<String> {
        self.anon
            .as_mut()
            .map(super::anonymise::ForMessages::take_lines)
            .unwrap_or_default()
    }

    /// Where the reads of the writing pass start.
    pub(crate) fn read_start(&self) -> Option<Timestamp> {
        self.read_start
    }

    /// The filter.
    pub(crate) fn filter(&self) -> &Filter {
        &self.filter
    }

    /// The topic of message `m` of input `i` (`None`: a channel the input
    /// does not declare).
    pub(crate) fn topic_of(&self, i: usize, m: &Message<'_>) -> Option<&str> {
        self.topics.get(i)?.get(&m.channel).map(String::as_str)
    }

    /// Whether message `m` of input `i`, on a kept topic, is written. Call
    /// it once for every message of the kept topics the reads give, in
    /// their order: it numbers them.
    pub(crate) fn keep(&mut self, i: usize, m: &Message<'_>) -> Result<bool, Error> {
        let slot = match self.slot_of.get(i).and_then(|s| s.get(&m.channel)) {
            Some(&slot) => slot,
            None => match self.new_slot(i, m.channel) {
                Some(slot) => slot,
                None => return Ok(false),
            },
        };
        let Some(s) = self.slots.get_mut(slot) else {
            return Ok(false);
        };
        let key = s.counter.next(m.log_time);
        if s.only
            && let Some(only) = self.filter.only.get(&s.id)
            && !only.contains(&key)
        {
            return Ok(false);
        }
        if let Some(keys) = &mut s.streamed
            && !keys.contains(&key)?
        {
            return Ok(false);
        }
        if s.latched && self.latched.get(&s.id).is_some_and(|l| l.contains(&key)) {
            return Ok(true);
        }
        let t = m.log_time;
        if self.start.is_some_and(|s| t < s) || self.end.is_some_and(|e| t >= e) {
            return Ok(false);
        }
        Ok(self.filter.in_windows(t))
    }

    /// The entry of `channel` of input `i` in `slots`: its topic's, made
    /// now if none of the topic's channels had a message yet (`None`: a
    /// channel the input does not declare).
    fn new_slot(&mut self, i: usize, channel: ChannelId) -> Option<usize> {
        let topic = self.topics.get(i)?.get(&channel)?.clone();
        let id = (i, topic);
        let slot = match self.slots.iter().position(|s| s.id == id) {
            Some(slot) => slot,
            None => {
                self.slots.push(Slot {
                    only: self.filter.only.contains_key(&id),
                    streamed: self
                        .filter
                        .streamed
                        .get(&id)
                        .map(|k| super::keystream::StreamReader::new(k.clone())),
                    latched: self.latched.contains_key(&id),
                    counter: Counter::default(),
                    id,
                });
                self.slots.len() - 1
            }
        };
        self.slot_of.get_mut(i)?.insert(channel, slot);
        Some(slot)
    }

    /// `m` with its log and publish times moved by the shift; a time the
    /// shift takes out of range is refused.
    pub(crate) fn shifted<'m>(&self, m: Message<'m>) -> Result<Message<'m>, Error> {
        let d = self.filter.shift;
        if d == 0 {
            return Ok(m);
        }
        let move_by = |t: Timestamp| {
            t.0.checked_add(d).map(Timestamp).ok_or_else(|| {
                Error::invalid_argument(format!(
                    "--shift {d} ns moves the time {} ns out of range",
                    t.0
                ))
            })
        };
        Ok(Message {
            log_time: move_by(m.log_time)?,
            publish_time: m.publish_time.map(move_by).transpose()?,
            ..m
        })
    }
}

/// What a [`filter_dry_run`] counts for one topic (summed over the
/// inputs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopicCount {
    /// The topic in the inputs.
    pub topic: String,
    /// The topic it is written as (after renames).
    pub written_as: String,
    /// Messages that would be written.
    pub kept: u64,
    /// Their payload bytes.
    pub kept_bytes: u64,
    /// Messages that would not be written.
    pub dropped: u64,
    /// Their payload bytes.
    pub dropped_bytes: u64,
}

/// What [`filter_files_to`](super::filter_files_to) with the same inputs,
/// options and filter would write, per topic of the inputs, sorted by
/// topic, writing nothing: one lenient read of every message of the
/// inputs, each decided as the writing pass decides it.
pub fn filter_dry_run(
    logs: &[&Log<'_>],
    opts: &super::ConvertOptions,
    filter: &Filter,
) -> Result<Vec<TopicCount>, Error> {
    if super::native::is_own_format(logs) {
        return match logs {
            [log] => super::native::dry_run(log, opts, filter),
            _ => Err(super::native::refuse(logs, opts, filter)),
        };
    }
    check_inputs(logs)?;
    let mut sel = Selecting::new(logs, opts, filter)?;
    let patterns = TopicPatterns::new(&opts.topics);
    let mut counts: BTreeMap<String, TopicCount> = BTreeMap::new();
    for (i, log) in logs.iter().enumerate() {
        for m in log
            .messages(&MessageFilter::all().mode(ReadMode::Lenient))?
            .flatten()
        {
            logcore::interrupt::check();
            let Some(topic) = sel.topic_of(i, &m).map(str::to_string) else {
                continue;
            };
            let selected = patterns.selects(&topic) && !filter.excludes(&topic);
            let keep = selected && sel.keep(i, &m)?;
            let c = counts.entry(topic.clone()).or_insert_with(|| TopicCount {
                written_as: filter.renamed(&topic),
                topic,
                ..TopicCount::default()
            });
            let bytes = m.payload.len() as u64;
            if keep {
                c.kept += 1;
                c.kept_bytes += bytes;
            } else {
                c.dropped += 1;
                c.dropped_bytes += bytes;
            }
        }
        for c in log.channels()? {
            counts.entry(c.topic.clone()).or_insert_with(|| TopicCount {
                written_as: filter.renamed(&c.topic),
                topic: c.topic,
                ..TopicCount::default()
            });
        }
    }
    Ok(counts.into_values().collect())
}

/// Refuses inputs a filter does not copy: anything but ROS 1 bags, ROS 2
/// bags and MCAP files (the others' channels are generated by their
/// conversions, not copied).
pub(crate) fn check_inputs(logs: &[&Log<'_>]) -> Result<(), Error> {
    for log in logs {
        if !matches!(
            log.format(),
            Format::RosBag | Format::Rosbag2 | Format::Mcap
        ) {
            return Err(Error::invalid_argument(format!(
                "a filter copies the messages of ROS 1 bags, ROS 2 bags and MCAP files, not of \
                 a {} log: convert it to MCAP first",
                log.format()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_whole_names_by_level() {
        let m = |p: &str, t: &str| TopicPattern::parse(p).unwrap().matches(t);
        assert!(m("/turtle1/*", "/turtle1/cmd_vel"));
        assert!(!m("/turtle1/*", "/turtle1/a/b"));
        assert!(!m("/turtle1/*", "/turtle10/x"));
        assert!(m("/**", "/a/b/c"));
        assert!(m("/**/image", "/cam/left/image"));
        assert!(m("/cam?", "/cam1") && !m("/cam?", "/cam/"));
        assert!(m("/cam[!0]", "/cam1") && !m("/cam[!0]", "/cam0"));
        assert!(m("/c[a-c]m", "/cbm"));
        assert!(m("/a.b", "/a.b") && !m("/a.b*", "/axb"));
        assert!(m("re:/imu.*", "/imu/data") && !m("re:imu", "/imu"));
        assert!(m("/x[", "/x["));
        assert!(TopicPattern::parse("re:(").is_err());
    }

    #[test]
    fn renames_exact_and_prefix() {
        let mut f = Filter::new();
        f.rename("/a=/b")
            .unwrap()
            .rename("/cam/*=/camera/*")
            .unwrap();
        assert_eq!(f.renamed("/a"), "/b");
        assert_eq!(f.renamed("/ab"), "/ab");
        assert_eq!(f.renamed("/cam/left/image"), "/camera/left/image");
        assert!(f.rename("/a*=/b").is_err());
        assert!(f.rename("/a").is_err());
    }

    #[test]
    fn windows_merge() {
        let mut f = Filter::new();
        let t = |n| Timestamp(n);
        f.around([t(50), t(10), t(12)], 1, 2);
        assert_eq!(f.windows().unwrap(), &[(t(9), t(14)), (t(49), t(52))]);
    }
}
