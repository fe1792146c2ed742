//! [`ULog`]: one pass over a file that frames every message, follows the
//! appended-data offsets, recovers from corruption by searching for the
//! sync magic the way pyulog does, and keeps every sample as a slice of
//! the input.

use logcore::FormatError;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use logcore::{Clock, TimeModel, Timestamp, WallClockAnchor};

use crate::error::{Error, Result};
use crate::format::{BasicType, FieldType, Formats, Limits};
use crate::records::{
    FileHeader, FlagBits, HEADER_LEN, InfoValue, KeyValue, LoggedString, MESSAGE_HEADER_LEN,
    Record, SYNC_MAGIC,
};
use crate::sample::{DATA_PREFIX, Samples, Scalar, Subscription, read_u64};
use crate::text::{lossy, lossy_cow};

/// Header timestamps above this (µs, about 2001-09-09) are taken for Unix
/// time rather than time since boot (SITL logs).
const UNIX_START_US: u64 = 1_000_000_000_000_000;

/// GPS topics and their UTC field, newest PX4 name first.
const GPS_TOPICS: [&str; 3] = ["sensor_gps", "vehicle_gps_position", "vehicle_gnss"];

/// A message larger than this with an unknown type is taken for garbage
/// (pyulog's and ulog_cpp's heuristic).
pub const GARBAGE_SIZE: usize = 10_000;

const NONE: usize = u32::MAX as usize;
const REPORTED: usize = NONE - 1;

/// How far ahead of the sample walk a byte is read to start loading the
/// cache lines it reads next (see [`ULog::sample_run`]).
const READ_AHEAD: usize = 1024;

/// An `I` value with its declared type.
#[derive(Debug, Clone, PartialEq)]
pub struct Info<'a> {
    /// Declared type (`char[3]`, `uint32_t`).
    pub type_str: String,
    /// The value.
    pub value: InfoValue<'a>,
}

/// The groups of an `M` key: each group is a message with
/// `is_continued = 0` followed by its continuations.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiInfo<'a> {
    /// Declared type of the first message.
    pub type_str: String,
    /// The groups, in file order.
    pub groups: Vec<Vec<InfoValue<'a>>>,
}

/// A parameter change from the data section.
#[derive(Debug, Clone, PartialEq)]
pub struct ParameterChange<'a> {
    /// The largest data timestamp seen before the change (µs).
    pub timestamp: u64,
    /// Parameter name (borrowed from the file unless it was not UTF-8).
    pub name: Cow<'a, str>,
    /// New value.
    pub value: InfoValue<'a>,
    /// Offset of the `P` message.
    pub offset: u64,
}

/// A dropout (`O`): data the logger lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dropout {
    /// The largest data timestamp seen before the dropout (µs).
    pub timestamp: u64,
    /// Duration in milliseconds.
    pub duration_ms: u16,
    /// Offset of the message.
    pub offset: u64,
}

/// A whole ULog file, read.
///
/// Construction frames every message once (payloads are not decoded; the
/// samples stay slices of `data`). Only a bad header or an unknown
/// incompatible flag is an error; damage is collected in
/// [`ULog::warnings`], a cut in [`ULog::truncation`].
#[derive(Debug, Clone)]
pub struct ULog<'a> {
    /// The file bytes.
    pub data: &'a [u8],
    /// The file header.
    pub header: FileHeader,
    /// The flag-bits message (absent in version-0 files).
    pub flag_bits: Option<FlagBits>,
    /// The format definitions.
    pub formats: Formats,
    /// `I` messages by key name (the last one wins, as in pyulog).
    pub info: BTreeMap<String, Info<'a>>,
    /// `M` messages by key name.
    pub multi_info: BTreeMap<String, MultiInfo<'a>>,
    /// Parameters of the definitions section, by name.
    pub initial_parameters: BTreeMap<Cow<'a, str>, InfoValue<'a>>,
    /// `P` messages of the data section, in file order.
    pub changed_parameters: Vec<ParameterChange<'a>>,
    /// `Q` defaults by `default_types` bit index (0 = system, 1 = current
    /// configuration), then by name.
    pub default_parameters: BTreeMap<u8, BTreeMap<Cow<'a, str>, InfoValue<'a>>>,
    /// `L` messages in file order.
    pub logged_messages: Vec<LoggedString<'a>>,
    /// `C` messages in file order.
    pub tagged_messages: Vec<LoggedString<'a>>,
    /// `O` messages.
    pub dropouts: Vec<Dropout>,
    /// Every subscription in file order, with its samples. The channels of
    /// the [`logcore::LogReader`] view are numbered from them on first use.
    pub subscriptions: Vec<Subscription<'a>>,
    /// Number of `S` messages.
    pub sync_count: usize,
    /// The largest `D` timestamp (starts at the header timestamp).
    pub last_timestamp: u64,
    /// Whether damage was found (pyulog's `file_corruption`).
    pub corrupt: bool,
    /// Damage, in file order (what sets [`ULog::corrupt`]).
    pub warnings: Vec<Error>,
    /// Things a healthy file may contain that a user may want to know
    /// about: unknown message types (skipped), the message cut off by
    /// appended data (discarded as the spec requires), a newer version byte.
    pub notices: Vec<Error>,
    /// Where the file was cut, when it ends inside a message.
    pub truncation: Option<Error>,
    /// The lines pyulog 1.3.0 prints on standard output while loading this
    /// file (warnings about corruption, unknown ids, the flag bits), in
    /// order; its tools print them before their own output.
    pub pyulog_output: Vec<String>,
    /// Offset where the data section starts.
    pub data_start: u64,
    /// The topics of [`ULog::subscriptions`], numbered on first use.
    topics: OnceLock<Topics>,
    /// For a log read by [`ULog::parse_selected`]: whether each
    /// subscription was selected (its samples indexed).
    selected: Option<Vec<bool>>,
}

/// The topics of a log: one per distinct (name, multi_id) of its
/// subscriptions, numbered in order of first subscription (a topic
/// subscribed twice keeps its first number).
#[derive(Debug, Clone, Default)]
pub(crate) struct Topics {
    /// Name, multi_id and first subscription (index) of each topic.
    pub(crate) list: Vec<(String, u8, usize)>,
    /// The topic number of each subscription.
    pub(crate) of_subscription: Vec<u32>,
}

impl Topics {
    fn of(subscriptions: &[Subscription<'_>]) -> Topics {
        let mut topics = Topics {
            list: Vec::new(),
            of_subscription: Vec::with_capacity(subscriptions.len()),
        };
        let mut index: HashMap<(&str, u8), u32> = HashMap::new();
        for (i, s) in subscriptions.iter().enumerate() {
            let id = *index
                .entry((s.name.as_str(), s.multi_id))
                .or_insert_with(|| {
                    topics.list.push((s.name.clone(), s.multi_id, i));
                    (topics.list.len() - 1) as u32
                });
            topics.of_subscription.push(id);
        }
        topics
    }
}

impl<'a> ULog<'a> {
    /// Reads a file.
    ///
    /// ```
    /// let bytes = ulogfile::write::example_log()?;
    /// let log = ulogfile::ULog::parse(&bytes)?;
    /// assert_eq!(log.info["sys_name"].value.as_str(), Some("robolog"));
    /// assert_eq!(log.subscription("vehicle_attitude", 0).unwrap().samples.len(), 3);
    /// assert!(!log.corrupt && log.truncation.is_none());
    /// # Ok::<(), ulogfile::Error>(())
    /// ```
    pub fn parse(data: &'a [u8]) -> Result<ULog<'a>> {
        Self::parse_with_limits(data, &Limits::default())
    }

    /// [`parse`](Self::parse) resolving formats nested at most
    /// [`Limits::nesting_or`]`(`[`MAX_NESTING`](crate::format::MAX_NESTING)`)`
    /// deep (see [`Formats::with_limits`]).
    pub fn parse_with_limits(data: &'a [u8], limits: &Limits) -> Result<ULog<'a>> {
        Self::parse_inner(data, limits, None)
    }

    /// [`parse_with_limits`](Self::parse_with_limits) for a reader that
    /// wants the samples of some topics only (a query naming a few tables
    /// of many logs): every message is framed and checked as usual (the
    /// same warnings, notices, truncation and time range), but
    ///
    /// - only subscriptions whose format name `keep` accepts, and the GPS
    ///   topics [`ULog::time_model`] reads, get their samples indexed;
    ///   the others keep an empty [`Subscription::samples`]
    ///   ([`ULog::is_selected`] tells them apart) and are left out of the
    ///   [`logcore::LogReader`] view (its summary and channels);
    /// - parameters are checked but not kept: [`ULog::initial_parameters`],
    ///   [`ULog::changed_parameters`] and [`ULog::default_parameters`] stay
    ///   empty.
    ///
    /// ```
    /// let bytes = ulogfile::write::feature_log()?;
    /// let log = ulogfile::ULog::parse_selected(&bytes, &Default::default(), &|name| {
    ///     name == "vehicle_attitude"
    /// })?;
    /// // This log has no vehicle_attitude: only the GPS samples, which
    /// // anchor its clock, are indexed.
    /// let indexed: Vec<&str> = (0..log.subscriptions.len())
    ///     .filter(|&i| log.is_selected(i))
    ///     .map(|i| log.subscriptions[i].name.as_str())
    ///     .collect();
    /// assert_eq!(indexed, ["sensor_gps"]);
    /// assert!(log.subscription("esc_status", 0).unwrap().samples.is_empty());
    /// assert!(log.initial_parameters.is_empty());
    /// # Ok::<(), ulogfile::Error>(())
    /// ```
    pub fn parse_selected(
        data: &'a [u8],
        limits: &Limits,
        keep: &dyn Fn(&str) -> bool,
    ) -> Result<ULog<'a>> {
        Self::parse_inner(data, limits, Some(keep))
    }

    /// Whether the samples of subscription `index` (into
    /// [`ULog::subscriptions`]) were indexed: always, except for the
    /// subscriptions [`ULog::parse_selected`] left out.
    pub fn is_selected(&self, index: usize) -> bool {
        self.selected
            .as_ref()
            .is_none_or(|s| s.get(index).copied().unwrap_or(false))
    }

    fn parse_inner(
        data: &'a [u8],
        limits: &Limits,
        keep: Option<&dyn Fn(&str) -> bool>,
    ) -> Result<ULog<'a>> {
        let header = FileHeader::parse(data)?;
        let mut log = ULog {
            data,
            header,
            flag_bits: None,
            formats: Formats::with_limits(limits),
            info: BTreeMap::new(),
            multi_info: BTreeMap::new(),
            initial_parameters: BTreeMap::new(),
            changed_parameters: Vec::new(),
            default_parameters: BTreeMap::new(),
            logged_messages: Vec::new(),
            tagged_messages: Vec::new(),
            dropouts: Vec::new(),
            subscriptions: Vec::new(),
            sync_count: 0,
            last_timestamp: header.timestamp,
            corrupt: false,
            warnings: Vec::new(),
            notices: Vec::new(),
            truncation: None,
            pyulog_output: Vec::new(),
            data_start: HEADER_LEN as u64,
            topics: OnceLock::new(),
            selected: keep.map(|_| Vec::new()),
        };
        if header.version > 1 {
            log.pyulog_output
                .push("Warning: unknown file version. Will attempt to read it anyway".into());
            log.notices.push(Error::malformed(
                7,
                "file version 0 or 1",
                format!("version {} (reading it anyway)", header.version),
            ));
        }
        let mut walk = Walk {
            pos: HEADER_LEN,
            skip_start: None,
            has_sync: true,
            active: Vec::new(),
            in_data: false,
            subs: Vec::new(),
            initial: Vec::new(),
            keep,
        };
        let more = log.definitions(&mut walk);
        // `BTreeMap::from_iter` keeps the last of equal keys, as inserting
        // one by one did (the last definition wins, as in pyulog).
        log.initial_parameters = std::mem::take(&mut walk.initial).into_iter().collect();
        if more? {
            log.data_start = walk.pos as u64;
            walk.in_data = true;
            log.data_section(&mut walk);
        }
        walk.flush_skip(&mut log, walk.pos, "no valid message header");
        Ok(log)
    }

    /// The subscription with samples for topic `name` and instance `multi_id`
    /// (the first one when it was subscribed twice).
    pub fn subscription(&self, name: &str, multi_id: u8) -> Option<&Subscription<'a>> {
        self.subscriptions
            .iter()
            .find(|s| s.name == name && s.multi_id == multi_id && !s.samples.is_empty())
            .or_else(|| {
                self.subscriptions
                    .iter()
                    .find(|s| s.name == name && s.multi_id == multi_id)
            })
    }

    /// The topics, numbered once (the subscriptions do not change after
    /// parsing).
    pub(crate) fn topics(&self) -> &Topics {
        self.topics.get_or_init(|| Topics::of(&self.subscriptions))
    }

    /// The time model: boot clock, anchored by the header when its start
    /// time is already Unix time, else by the first GPS sample with a UTC
    /// time.
    pub fn time_model(&self) -> TimeModel {
        if self.header.timestamp >= UNIX_START_US {
            return TimeModel::anchored(
                Clock::Boot,
                WallClockAnchor {
                    log_time: Timestamp(0),
                    unix_time: Timestamp(0),
                    source: "header start time is Unix time",
                },
            );
        }
        for topic in GPS_TOPICS {
            let Some(sub) = self.subscription(topic, 0) else {
                continue;
            };
            let Some(f) = sub.field("time_utc_usec") else {
                continue;
            };
            for s in &sub.samples {
                if let Some(Scalar::UInt(utc)) = f.get(&s) {
                    if utc > UNIX_START_US {
                        let (Some(log), Some(unix)) = (
                            Timestamp::from_micros(s.timestamp),
                            Timestamp::from_micros(utc),
                        ) else {
                            continue;
                        };
                        return TimeModel::anchored(
                            Clock::Boot,
                            WallClockAnchor {
                                log_time: log,
                                unix_time: unix,
                                source: "GPS time_utc_usec",
                            },
                        );
                    }
                }
            }
        }
        TimeModel::new(Clock::Boot)
    }

    /// A field by path, `topic.field` or `topic[multi_id].field`, with the
    /// field part in pyulog's flattened naming.
    ///
    /// ```
    /// let bytes = ulogfile::write::example_log()?;
    /// let log = ulogfile::ULog::parse(&bytes)?;
    /// let (att, q0) = log.field("vehicle_attitude.q[0]").unwrap();
    /// let values: Vec<f64> = att.samples.iter().filter_map(|s| q0.get(&s)).map(|v| v.as_f64()).collect();
    /// assert_eq!(values, [1.0, 0.5, 0.25]);
    /// assert!(log.field("vehicle_attitude[1].q[0]").is_none());
    /// # Ok::<(), ulogfile::Error>(())
    /// ```
    pub fn field(&self, path: &str) -> Option<(&Subscription<'a>, crate::FieldRef)> {
        let (topic, field) = path.split_once('.')?;
        let (name, multi_id) = match topic.strip_suffix(']').and_then(|t| t.split_once('[')) {
            Some((n, m)) => (n, m.parse().ok()?),
            None => (topic, 0),
        };
        let sub = self.subscription(name, multi_id)?;
        Some((sub, sub.field(field)?))
    }

    /// Whether the DEFAULT_PARAMETERS compat flag is set.
    pub fn has_default_parameters(&self) -> bool {
        self.flag_bits.is_some_and(|f| f.default_parameters())
    }

    /// An info value by key name.
    pub fn info_value(&self, key: &str) -> Option<&InfoValue<'a>> {
        self.info.get(key).map(|i| &i.value)
    }

    /// The definitions section. Returns whether a data section follows.
    fn definitions(&mut self, w: &mut Walk<'a, '_>) -> Result<bool> {
        let data = self.data;
        loop {
            let Some((pos, size, ty)) = self.frame(w) else {
                return Ok(false);
            };
            let payload = &data[pos + MESSAGE_HEADER_LEN..pos + MESSAGE_HEADER_LEN + size];
            let end = pos + MESSAGE_HEADER_LEN + size;
            if matches!(ty, b'A' | b'L' | b'C') {
                w.flush_skip(self, pos, "no valid message header");
                return Ok(true);
            }
            if !matches!(ty, b'I' | b'M' | b'F' | b'P' | b'Q' | b'B') && is_garbage(ty, size) {
                self.corrupt = true;
                w.skip_start.get_or_insert(pos);
                w.pos = pos + 1;
                continue;
            }
            w.flush_skip(self, pos, "no valid message header");
            w.pos = end;
            let off = pos as u64;
            match Record::parse(ty, payload, off) {
                Ok(Record::FlagBits(fb, len)) => {
                    if fb.has_unknown_incompat() {
                        return Err(Error::IncompatibleFlags {
                            offset: off + 3 + 8,
                            flags: fb.incompat_flags,
                        });
                    }
                    if pos != HEADER_LEN {
                        self.pyulog_output.push(format!(
                            "Error: FLAGS_BITS message must be first message. Offset: {end}"
                        ));
                        self.notices.push(Error::malformed(
                            off,
                            "the flag-bits message right after the header (byte 16)",
                            "it later in the file (used anyway)",
                        ));
                    }
                    if len > 40 {
                        self.pyulog_output
                            .push("Warning: Flags Bit message is longer than expected".into());
                    }
                    if len < 40 {
                        self.corruption(
                            Error::malformed(
                                off,
                                "a 40-byte flag-bits message",
                                format!("{len} bytes (appended offsets read as 0)"),
                            ),
                            "definitions",
                        );
                    }
                    self.flag_bits = Some(fb);
                }
                Ok(Record::Unknown(t, _)) => self.unknown_notice(off, t, size),
                Ok(rec) => {
                    if let Err(e) = self.apply(rec, off, w) {
                        self.corruption(e, "definitions");
                    }
                }
                Err(e) if ty == b'B' => return Err(e),
                Err(e) => self.corruption(e, "definitions"),
            }
        }
    }

    /// Frames the next message at `w.pos`: `None` at the end of the file or
    /// at a cut (recorded in `truncation`).
    #[inline]
    fn frame(&mut self, w: &Walk<'a, '_>) -> Option<(usize, usize, u8)> {
        let data = self.data;
        let pos = w.pos;
        if let Some(h) = data.get(pos..pos + MESSAGE_HEADER_LEN) {
            let size = usize::from(u16::from_le_bytes([h[0], h[1]]));
            if pos + MESSAGE_HEADER_LEN + size <= data.len() {
                return Some((pos, size, h[2]));
            }
        }
        self.frame_end(pos);
        None
    }

    /// The end of the file or a cut at `pos` (kept out of the per-message
    /// path of [`ULog::frame`]).
    #[cold]
    fn frame_end(&mut self, pos: usize) {
        let data = self.data;
        if pos >= data.len() {
            return;
        }
        let Some(h) = data.get(pos..pos + MESSAGE_HEADER_LEN) else {
            self.cut(
                pos,
                "a 3-byte message header",
                MESSAGE_HEADER_LEN - (data.len() - pos),
            );
            return;
        };
        let size = usize::from(u16::from_le_bytes([h[0], h[1]]));
        let end = pos + MESSAGE_HEADER_LEN + size;
        let what = format!("a '{}' message of {size} bytes", printable(h[2]));
        self.cut(pos, &what, end - data.len());
    }

    fn cut(&mut self, pos: usize, what: &str, needed: usize) {
        self.truncation = Some(Error::truncated(pos as u64, what, needed as u64));
    }

    fn unknown_notice(&mut self, off: u64, ty: u8, size: usize) {
        self.notices.push(Error::skipped(
            off,
            (size + MESSAGE_HEADER_LEN) as u64,
            format!("unknown message type '{}' (ignored)", printable(ty)),
        ));
    }

    /// The data section and the appended segments.
    fn data_section(&mut self, w: &mut Walk<'a, '_>) {
        let offsets: Vec<u64> = match self.flag_bits {
            Some(f) if f.data_appended() => f.offsets(),
            _ => Vec::new(),
        };
        let len = self.data.len();
        let mut previous = self.data_start;
        for (i, &o) in offsets.iter().enumerate() {
            if o < previous {
                self.corrupt = true;
                self.warnings.push(Error::malformed(
                    16 + 3 + 16 + 8 * i as u64,
                    format!("appended-data offset {i} after the data section start and earlier offsets (>= {previous})"),
                    format!("{o}"),
                ));
                return;
            }
            previous = o;
            let seg_end = usize::try_from(o).unwrap_or(usize::MAX).min(len);
            if !self.segment(w, seg_end) {
                return;
            }
            if o > len as u64 {
                self.truncation = Some(Error::truncated(
                    len as u64,
                    format!("appended data at byte {o}"),
                    o - len as u64,
                ));
                return;
            }
            w.flush_skip(self, seg_end.max(w.pos), "no valid message header");
            w.pos = seg_end;
        }
        self.segment(w, len);
    }

    /// Reads messages until `seg_end`. Returns false when the file was cut.
    fn segment(&mut self, w: &mut Walk<'a, '_>, seg_end: usize) -> bool {
        let data = self.data;
        loop {
            if w.pos >= seg_end && seg_end < data.len() {
                return true;
            }
            if w.pos >= data.len() {
                return true;
            }
            let Some((pos, size, ty)) = self.frame(w) else {
                return self.truncation.is_none();
            };
            let end = pos + MESSAGE_HEADER_LEN + size;
            if end > seg_end {
                w.flush_skip(self, pos, "no valid message header");
                self.notices.push(Error::skipped(
                    pos as u64,
                    (seg_end - pos) as u64,
                    "a message cut off by appended data (it runs past the appended-data offset)",
                ));
                w.pos = seg_end;
                return true;
            }
            let payload = &data[pos + MESSAGE_HEADER_LEN..end];
            let off = pos as u64;
            if ty == b'D' && size >= 2 {
                // The hot path: most messages are samples (`D` is never
                // garbage and never stops pyulog's reading at this size).
                w.flush_skip(self, pos, "no valid message header");
                if self.sample_run(w, seg_end) {
                    continue;
                }
                w.pos = end;
                let id = u16::from_le_bytes([payload[0], payload[1]]);
                if let Err(e) = self.apply(Record::Data(id, &payload[2..]), off, w) {
                    self.corruption(e, "data");
                }
                continue;
            }
            // F, B and R are not data-section messages for pyulog: it
            // applies its garbage test and sync search to them too.
            let known = matches!(
                ty,
                b'I' | b'M' | b'P' | b'Q' | b'A' | b'L' | b'C' | b'D' | b'O' | b'S'
            );
            if !known && is_garbage(ty, size) {
                self.corrupt = true;
                w.skip_start.get_or_insert(pos);
                w.pos = pos + 1;
                if w.has_sync {
                    match find_sync(&data[pos + 1..]) {
                        Some(i) => w.pos = pos + 1 + i + SYNC_MAGIC.len(),
                        None => w.has_sync = false,
                    }
                }
                continue;
            }
            w.flush_skip(self, pos, "no valid message header");
            w.pos = end;
            if Record::pyulog_stops(ty, payload) {
                // pyulog ends the segment here (without calling the file
                // corrupt); doing the same keeps every output identical.
                self.warnings.push(Error::malformed(
                    off,
                    format!("a '{}' message long enough for its fields", printable(ty)),
                    format!("{size} payload bytes (reading of this data segment stops here, as in pyulog)"),
                ));
                w.pos = seg_end.max(pos);
                return true;
            }
            if !known {
                match ty {
                    b'F' => {
                        // Accepted late (pyulog skips it); a bad one is only noted.
                        if let Err(e) = self.formats.insert_bytes(payload, off) {
                            self.notices.push(e);
                        }
                    }
                    b'R' => {}
                    b'B' => self.notices.push(Error::malformed(
                        off,
                        "no flag-bits message in the data section",
                        "one (ignored)",
                    )),
                    t => self.unknown_notice(off, t, size),
                }
                if w.has_sync {
                    if let Some(i) = find_sync(payload) {
                        self.corrupt = true;
                        let resume = pos + MESSAGE_HEADER_LEN + i + SYNC_MAGIC.len();
                        self.warnings.push(Error::skipped(
                            off,
                            (resume - pos) as u64,
                            "sync magic inside a message pyulog does not read in the data section; resumed after it",
                        ));
                        w.pos = resume;
                    }
                }
                continue;
            }
            match Record::parse(ty, payload, off) {
                Ok(rec) => {
                    if let Err(e) = self.apply(rec, off, w) {
                        self.corruption(e, "data");
                    }
                }
                Err(e) => self.corruption(e, "data"),
            }
        }
    }

    /// Takes the run of well-formed sample messages at `w.pos` (`D`
    /// messages of subscribed ids, of a size their format allows, inside
    /// the segment), stopping at anything else, which the caller handles.
    /// Returns whether it took at least one.
    #[inline]
    fn sample_run(&mut self, w: &mut Walk<'a, '_>, seg_end: usize) -> bool {
        let data = self.data;
        let limit = seg_end.min(data.len());
        let first = w.pos;
        let mut pos = first;
        let mut last = self.last_timestamp;
        let mut ahead = 0u8;
        while let Some(h) = data.get(pos..pos + DATA_PREFIX) {
            // Each message's position comes from the one before, so the
            // walk would wait for every cache line in turn: reading a byte
            // further on (which no later read waits for) has the lines
            // coming while it works.
            if let Some(&b) = data.get(pos + READ_AHEAD) {
                ahead ^= b;
            }
            let size = usize::from(u16::from_le_bytes([h[0], h[1]]));
            let end = pos + MESSAGE_HEADER_LEN + size;
            if h[2] != b'D' || size < 2 || end > limit {
                break;
            }
            let si = w.sub_of(u16::from_le_bytes([h[3], h[4]]));
            let Some(lim) = w.subs.get(si) else {
                break;
            };
            let len = size - 2;
            if len < lim.min || len > lim.max {
                break;
            }
            let start = pos + DATA_PREFIX;
            let samples = &mut self.subscriptions[si].samples;
            // The usual `uint64_t` timestamp is read here, in place; other
            // types go through `Samples`.
            let timestamp = match lim.ts_u64 {
                Some(o) => read_u64(data, start + o).unwrap_or(0),
                None => samples.timestamp_at(start),
            };
            if lim.keep {
                samples.push(start, timestamp);
            }
            last = last.max(timestamp);
            pos = end;
        }
        std::hint::black_box(ahead);
        w.pos = pos;
        self.last_timestamp = last;
        pos > first
    }

    /// Records damage found while decoding a message; the first time,
    /// pyulog prints a line saying so.
    fn corruption(&mut self, e: Error, section: &str) {
        if !self.corrupt {
            self.pyulog_output.push(format!(
                "File corruption detected while reading file {section}!"
            ));
        }
        self.corrupt = true;
        self.warnings.push(e);
    }

    /// Applies one parsed message to the model.
    fn apply(&mut self, rec: Record<'a>, off: u64, w: &mut Walk<'a, '_>) -> Result<()> {
        match rec {
            Record::Format(text) => {
                self.formats.insert_bytes(text, off)?;
            }
            Record::Info(kv) => {
                let (name, value) = key_value(&kv, off)?;
                let type_str = kv.type_str();
                self.info
                    .insert(name.into_owned(), Info { type_str, value });
            }
            Record::MultiInfo(cont, kv) => {
                let (name, value) = key_value(&kv, off)?;
                match self.multi_info.get_mut(name.as_ref()) {
                    Some(m) if cont && !m.groups.is_empty() => {
                        if let Some(g) = m.groups.last_mut() {
                            g.push(value);
                        }
                    }
                    Some(m) => m.groups.push(vec![value]),
                    None => {
                        self.multi_info.insert(
                            name.into_owned(),
                            MultiInfo {
                                type_str: kv.type_str(),
                                groups: vec![vec![value]],
                            },
                        );
                    }
                }
            }
            Record::Parameter(kv) => {
                if w.keep.is_some() {
                    // Checked, not kept (see `ULog::parse_selected`).
                    return check_key_value(&kv, off);
                }
                let (name, value) = key_value(&kv, off)?;
                if !w.in_data {
                    // Gathered and sorted once at the end of the section
                    // (a bulk build is much cheaper than a thousand inserts).
                    w.initial.push((name, value));
                } else {
                    self.changed_parameters.push(ParameterChange {
                        timestamp: self.last_timestamp,
                        name,
                        value,
                        offset: off,
                    });
                }
            }
            Record::DefaultParameter(bits, kv) => {
                if w.keep.is_some() {
                    return check_key_value(&kv, off);
                }
                let (name, value) = key_value(&kv, off)?;
                for bit in 0..8u8 {
                    if bits & (1 << bit) != 0 {
                        self.default_parameters
                            .entry(bit)
                            .or_default()
                            .insert(name.clone(), value.clone());
                    }
                }
            }
            Record::Subscription {
                multi_id,
                msg_id,
                name,
            } => {
                let name = lossy(name);
                let layout = self.formats.layout(&name, off)?;
                // `timestamp` is always a top-level basic field, so it is
                // found without flattening (which is done lazily).
                let ts = layout.fields.iter().find_map(|f| match f.ty {
                    FieldType::Basic(b) if f.name == "timestamp" && f.array_len.is_none() => {
                        Some((if b.size() == 8 { BasicType::UInt64 } else { b }, f.offset))
                    }
                    _ => None,
                });
                if ts.is_none() {
                    self.notices.push(Error::malformed(
                        off,
                        format!("a `timestamp` field in format {name:?}"),
                        "none (its samples get timestamp 0)",
                    ));
                }
                let keep = w
                    .keep
                    .is_none_or(|k| k(&name) || GPS_TOPICS.contains(&name.as_str()));
                if let Some(selected) = self.selected.as_mut() {
                    selected.push(keep);
                }
                w.set_active(msg_id, self.subscriptions.len());
                w.subs.push(SubLimits {
                    keep,
                    min: layout.min_size,
                    max: layout.size,
                    ts_u64: match ts {
                        Some((BasicType::UInt64, o)) if o + 8 <= layout.min_size => Some(o),
                        _ => None,
                    },
                });
                let size = layout.min_size;
                let mut sub = Subscription::new(msg_id, multi_id, name, layout, off);
                // The sample list grows as samples come (4 bytes each:
                // cheaper than a pass over the file to count them first).
                sub.samples = Samples::new(self.data, size, ts);
                self.subscriptions.push(sub);
            }
            Record::Unsubscription(_) => {}
            Record::Data(msg_id, bytes) => {
                let si = w.sub_of(msg_id);
                if si == REPORTED {
                    self.corrupt = true;
                    return Ok(());
                }
                if si == NONE {
                    // Reported once per id, as pyulog does.
                    w.set_active(msg_id, REPORTED);
                    self.pyulog_output.push(format!(
                        "Warning: no subscription found for message id {msg_id}. Continuing, but file is most likely corrupt"
                    ));
                    self.corrupt = true;
                    self.warnings.push(Error::malformed(
                        off,
                        "a data message for a subscribed msg_id",
                        format!("msg_id {msg_id} without subscription"),
                    ));
                    return Ok(());
                }
                let sub = &mut self.subscriptions[si];
                let (min, max) = (sub.layout.min_size, sub.layout.size);
                if bytes.len() < min || bytes.len() > max {
                    self.corrupt = true;
                    self.warnings.push(Error::malformed(
                        off,
                        format!("a {} sample of {min}..={max} bytes", sub.name),
                        format!("{} bytes", bytes.len()),
                    ));
                    return Ok(());
                }
                // The struct bytes follow the message header and msg_id.
                let start = off as usize + DATA_PREFIX;
                let timestamp = sub.samples.timestamp_at(start);
                if w.subs.get(si).is_some_and(|l| l.keep) {
                    sub.samples.push(start, timestamp);
                }
                self.last_timestamp = self.last_timestamp.max(timestamp);
            }
            Record::Logging(l) => {
                if l.tag.is_some() {
                    self.tagged_messages.push(l);
                } else {
                    self.logged_messages.push(l);
                }
            }
            Record::Sync(_) => self.sync_count += 1,
            Record::Dropout(d) => self.dropouts.push(Dropout {
                timestamp: self.last_timestamp,
                duration_ms: d,
                offset: off,
            }),
            Record::FlagBits(..) | Record::Unknown(..) => {}
        }
        Ok(())
    }
}

/// The name and decoded value of a key/value (the type text is only made
/// by the callers that keep it, [`ULog::info`] and [`ULog::multi_info`]).
fn key_value<'a>(kv: &KeyValue<'a>, off: u64) -> Result<(Cow<'a, str>, InfoValue<'a>)> {
    let name = kv
        .name_bytes()
        .map(lossy_cow)
        .ok_or_else(|| no_name(kv, off))?;
    Ok((name, kv.decode(off)?))
}

/// What [`key_value`] checks, without making the name or the value.
fn check_key_value(kv: &KeyValue<'_>, off: u64) -> Result<()> {
    if kv.name_bytes().is_none() {
        return Err(no_name(kv, off));
    }
    kv.check(off)
}

/// The error for a key without a name part.
#[cold]
fn no_name(kv: &KeyValue<'_>, off: u64) -> Error {
    Error::malformed(off, "a key `type name`", format!("{:?}", lossy(kv.key)))
}

fn is_garbage(ty: u8, size: usize) -> bool {
    ty == 0 || size == 0 || size > GARBAGE_SIZE
}

fn printable(b: u8) -> String {
    if b.is_ascii_graphic() {
        (b as char).to_string()
    } else {
        format!("\\x{b:02x}")
    }
}

/// Position of the sync magic in `hay`.
pub(crate) fn find_sync(hay: &[u8]) -> Option<usize> {
    hay.windows(SYNC_MAGIC.len()).position(|w| w == SYNC_MAGIC)
}

/// What a subscription's sample messages must be like.
struct SubLimits {
    /// Shortest struct (trailing padding omitted).
    min: usize,
    /// Longest struct (trailing padding included).
    max: usize,
    /// Offset of a `uint64_t timestamp` field (other types are read by
    /// [`Samples`]).
    ts_u64: Option<usize>,
    /// Whether its samples are indexed (see [`ULog::parse_selected`]).
    keep: bool,
}

/// State of the pass over the messages.
struct Walk<'a, 'w> {
    pos: usize,
    skip_start: Option<usize>,
    has_sync: bool,
    /// Subscription index by msg_id (`NONE`: not subscribed), as long as
    /// the largest msg_id seen (ids are small and dense in practice, and a
    /// full 64 Ki table would cost more to clear than a small log to read).
    active: Vec<u32>,
    in_data: bool,
    /// Per subscription: what a sample message must be like.
    subs: Vec<SubLimits>,
    /// Parameters of the definitions section, in file order.
    initial: Vec<(Cow<'a, str>, InfoValue<'a>)>,
    /// The selection of [`ULog::parse_selected`]: which subscriptions get
    /// their samples indexed (and no parameter is kept); `None`: all.
    keep: Option<&'w dyn Fn(&str) -> bool>,
}

impl Walk<'_, '_> {
    /// The subscription index for `id` (`NONE` or `REPORTED` if none).
    #[inline]
    fn sub_of(&self, id: u16) -> usize {
        self.active
            .get(usize::from(id))
            .map_or(NONE, |&si| si as usize)
    }

    fn set_active(&mut self, id: u16, si: usize) {
        let i = usize::from(id);
        if i >= self.active.len() {
            self.active.resize(i + 1, NONE as u32);
        }
        self.active[i] = si as u32;
    }

    /// Reports bytes skipped since `skip_start`, up to `upto`.
    #[inline]
    fn flush_skip(&mut self, log: &mut ULog<'_>, upto: usize, reason: &str) {
        if let Some(start) = self.skip_start.take() {
            report_skip(log, start, upto, reason);
        }
    }
}

/// The warning for bytes skipped from `start` to `upto` (rare, so kept out
/// of the per-message path).
#[cold]
fn report_skip(log: &mut ULog<'_>, start: usize, upto: usize, reason: &str) {
    if upto > start {
        log.warnings.push(Error::skipped(
            start as u64,
            (upto - start) as u64,
            format!("{reason}; resumed after a sync message or at the next plausible header"),
        ));
    }
}
