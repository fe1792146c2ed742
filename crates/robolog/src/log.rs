//! [`Log`]: an opened log of any format.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use logcore::{
    ChannelId, ChannelInfo, Error, FileBytes, Format, LogReader, Message, MessageFilter,
    MessageIter, Summary, Value, ValueType,
};

use crate::Limits;
use crate::registry::{Decoder, Registry};

/// How much of a mapped file [`Log::messages_releasing`] reads past before
/// it gives the pages behind back.
pub const RELEASE_EVERY: usize = 8 << 20;

/// The page size whole pages of which [`Log::release`] gives back.
const PAGE: usize = 4096;

/// The format's own typed reader, for everything the common
/// [`LogReader`] interface does not cover (a bag's connections and chunk
/// statistics, a ULog's parameters and typed columns, a CARLA recording's
/// frames, ...).
#[non_exhaustive]
// One reader is held per opened log, so the size of the largest variant
// costs nothing worth a box (and with one format built in, the other
// variant is the empty placeholder).
#[allow(clippy::large_enum_variant)]
pub enum FormatReader<'a> {
    /// A ROS 1 bag.
    #[cfg(feature = "rosbag")]
    RosBag(rosbag12::Bag<'a>),
    /// A VEL sensor log.
    #[cfg(feature = "vellog")]
    VelLog(vellog::VelLog<'a>),
    /// A PX4 ULog file.
    #[cfg(feature = "ulog")]
    ULog(ulogfile::ULog<'a>),
    /// An MCAP file.
    #[cfg(feature = "mcap")]
    Mcap(mcapfile::Mcap<'a>),
    /// A CARLA recording.
    #[cfg(feature = "carla")]
    Carla(carla_recorder::Recording<'a>),
    /// A ROS 2 bag (read from its files, not from bytes in memory).
    #[cfg(feature = "rosbag2")]
    Rosbag2(rosbag2::Bag2),
    /// Keeps the lifetime used when every format feature is off; never built.
    #[doc(hidden)]
    __None(std::marker::PhantomData<&'a [u8]>, std::convert::Infallible),
}

impl<'a> FormatReader<'a> {
    /// Builds `format`'s reader over `bytes`, applying `limits`; a ULog
    /// indexes only the subscriptions whose format name `keep` accepts (see
    /// [`OpenOptions::select`](crate::OpenOptions::select)).
    pub(crate) fn build(
        format: Format,
        bytes: &'a [u8],
        limits: &Limits,
        keep: Option<&dyn Fn(&str) -> bool>,
    ) -> Result<Self, Error> {
        let _ = (bytes, limits, keep);
        match format {
            #[cfg(feature = "rosbag")]
            Format::RosBag => Ok(FormatReader::RosBag(rosbag12::Bag::with_limits(
                bytes, *limits,
            )?)),
            #[cfg(feature = "vellog")]
            Format::VelLog => Ok(FormatReader::VelLog(vellog::VelLog::new(bytes)?)),
            #[cfg(feature = "ulog")]
            Format::ULog => Ok(FormatReader::ULog(match keep {
                Some(k) => ulogfile::ULog::parse_selected(bytes, limits, k)?,
                None => ulogfile::ULog::parse_with_limits(bytes, limits)?,
            })),
            #[cfg(feature = "mcap")]
            Format::Mcap => Ok(FormatReader::Mcap(mcapfile::Mcap::with_limits(
                bytes, *limits,
            )?)),
            #[cfg(feature = "carla")]
            Format::CarlaRecorder => {
                Ok(FormatReader::Carla(carla_recorder::Recording::new(bytes)?))
            }
            #[cfg(feature = "rosbag2")]
            Format::Rosbag2 => Err(Error::unsupported(
                0,
                crate::probe::described(Format::Rosbag2),
                "a ROS 2 bag is read from its folder, its metadata.yaml or its .db3 file, not from bytes in memory",
            )),
            #[allow(unreachable_patterns)]
            other => Err(Error::unsupported(
                0,
                crate::probe::described(other),
                format!(
                    "this build leaves out the `{}` feature of the robolog library",
                    crate::probe::feature(other)
                ),
            )),
        }
    }

    /// The reader as the common [`LogReader`].
    pub fn as_log_reader(&self) -> &(dyn LogReader + 'a) {
        match self {
            #[cfg(feature = "rosbag")]
            FormatReader::RosBag(r) => r,
            #[cfg(feature = "vellog")]
            FormatReader::VelLog(r) => r,
            #[cfg(feature = "ulog")]
            FormatReader::ULog(r) => r,
            #[cfg(feature = "mcap")]
            FormatReader::Mcap(r) => r,
            #[cfg(feature = "carla")]
            FormatReader::Carla(r) => r,
            #[cfg(feature = "rosbag2")]
            FormatReader::Rosbag2(r) => r,
            FormatReader::__None(_, never) => match *never {},
        }
    }
}

self_cell::self_cell!(
    /// A file's bytes and the reader that borrows them.
    struct OwnedReader {
        owner: FileBytes,
        #[covariant]
        dependent: FormatReader,
    }
);

enum Inner<'a> {
    Borrowed(&'a [u8], Box<FormatReader<'a>>),
    Owned(OwnedReader),
    /// A reader of files of its own (a ROS 2 bag's database), and their
    /// size in bytes.
    #[cfg_attr(not(feature = "rosbag2"), allow(dead_code))]
    Files(Box<FormatReader<'a>>, u64),
}

/// An opened log: its format, the common [`LogReader`] interface (which
/// [`Log`] itself implements, decoding through its [`Registry`]), and the
/// format's typed [`FormatReader`].
///
/// Made by [`open`](crate::open) (the log owns the file's bytes) or
/// [`open_bytes`](crate::open_bytes) (it borrows them).
pub struct Log<'a> {
    format: Format,
    inner: Inner<'a>,
    registry: Arc<Registry>,
    limits: Limits,
    channels: OnceLock<HashMap<ChannelId, ChannelInfo>>,
    decoders: Mutex<Decoders>,
}

/// The decoders built so far: per channel, and per shared schema (a
/// schema's channels of one encoding and type use one decoder, so a schema
/// is parsed once however many channels share it).
#[derive(Default)]
struct Decoders {
    by_channel: HashMap<ChannelId, Built>,
    by_schema: HashMap<SchemaKey, Built>,
}

/// A channel's message encoding, the address of its shared schema (the
/// channel table keeps every schema alive as long as the log) and its
/// type name: what a decoder is built from.
type SchemaKey = (String, usize, String);

/// A channel's decoder from the registry: `None` when no factory serves
/// the channel (the format's own decoding is used), the error when its
/// schema cannot be used.
type Built = Option<Result<Arc<dyn Decoder>, Arc<str>>>;

impl std::fmt::Debug for Log<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Log")
            .field("format", &self.format)
            .field("len", &self.bytes().len())
            .finish_non_exhaustive()
    }
}

impl<'a> Log<'a> {
    pub(crate) fn borrowed(
        format: Format,
        bytes: &'a [u8],
        limits: &Limits,
        keep: Option<&dyn Fn(&str) -> bool>,
    ) -> Result<Self, Error> {
        let reader = FormatReader::build(format, bytes, limits, keep)?;
        Ok(Log::with_inner(
            format,
            Inner::Borrowed(bytes, Box::new(reader)),
            limits,
        ))
    }

    fn with_inner(format: Format, inner: Inner<'a>, limits: &Limits) -> Self {
        Log {
            format,
            inner,
            registry: Arc::new(Registry::with_limits(*limits)),
            limits: *limits,
            channels: OnceLock::new(),
            decoders: Mutex::new(Decoders::default()),
        }
    }

    /// Uses `registry` instead of the built-in decoders (for example the
    /// default registry with a decoder of your own added). Its built-in
    /// decoders apply the registry's own limits ([`Registry::with_limits`]),
    /// not those the log was opened with.
    pub fn with_registry(mut self, registry: impl Into<Arc<Registry>>) -> Self {
        self.registry = registry.into();
        self.decoders = Mutex::new(Decoders::default());
        self
    }

    /// The detected format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The file's bytes; empty for a log its reader reads from files of
    /// its own (a ROS 2 bag: see [`Log::size`]).
    pub fn bytes(&self) -> &[u8] {
        match &self.inner {
            Inner::Borrowed(b, _) => b,
            Inner::Owned(o) => o.borrow_owner(),
            Inner::Files(..) => &[],
        }
    }

    /// Gives back the memory pages of `range` of a file the log mapped (see
    /// [`FileBytes::release`]): for a reader that has copied the messages
    /// of that range out and will not read them again soon. Reading them
    /// later still works, and gives the same bytes. Does nothing for a log
    /// opened from bytes, or whose file was read into memory.
    pub fn release(&self, range: std::ops::Range<usize>) {
        if let Inner::Owned(o) = &self.inner {
            o.borrow_owner().release(range);
        }
    }

    /// The messages `filter` selects, as [`LogReader::messages`] gives
    /// them, with the pages of a mapped file behind them given back as
    /// reading goes on ([`Log::release`]), [`RELEASE_EVERY`] bytes at a
    /// time: for a reader that copies each message out once (a
    /// conversion, a filter, an export), so that reading a log of
    /// gigabytes holds about a chunk of it in memory, not the log. The
    /// page of the current message's record stays; a message read again
    /// later still reads the same bytes.
    ///
    /// ```
    /// use logcore::{LogReader, MessageFilter};
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/rosbag/sample.bag");
    /// let log = robolog::open(path)?;
    /// let all = log.messages(&MessageFilter::all())?.count();
    /// assert_eq!(log.messages_releasing(&MessageFilter::all())?.count(), all);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn messages_releasing<'s>(
        &'s self,
        filter: &MessageFilter,
    ) -> logcore::Result<MessageIter<'s>> {
        let inner = self.messages(filter)?;
        if !matches!(self.inner, Inner::Owned(_)) {
            return Ok(inner);
        }
        let mut released = 0usize;
        Ok(Box::new(inner.inspect(move |m| {
            let Some(at) = m
                .as_ref()
                .ok()
                .and_then(|m| m.offset)
                .and_then(|o| usize::try_from(o).ok())
            else {
                return;
            };
            let at = at & !(PAGE - 1);
            if at >= released.saturating_add(RELEASE_EVERY) {
                self.release(released..at);
                released = at;
            }
        })))
    }

    /// The size of the log in bytes: of its file, or of every storage file
    /// of a ROS 2 bag.
    pub fn size(&self) -> u64 {
        match &self.inner {
            Inner::Files(_, size) => *size,
            _ => self.bytes().len() as u64,
        }
    }

    /// The format's typed reader.
    pub fn reader(&self) -> &FormatReader<'_> {
        match &self.inner {
            Inner::Borrowed(_, r) => r,
            Inner::Owned(o) => o.borrow_dependent(),
            Inner::Files(r, _) => r,
        }
    }

    /// The decoder registry in use.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The resource limits the log was opened with (the format reader and
    /// the registry built with it apply them).
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The typed reader of a ROS 1 bag, `None` for other formats.
    #[cfg(feature = "rosbag")]
    pub fn as_bag(&self) -> Option<&rosbag12::Bag<'_>> {
        match self.reader() {
            FormatReader::RosBag(r) => Some(r),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// The typed reader of a VEL log, `None` for other formats.
    #[cfg(feature = "vellog")]
    pub fn as_vellog(&self) -> Option<&vellog::VelLog<'_>> {
        match self.reader() {
            FormatReader::VelLog(r) => Some(r),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// The typed reader of a ULog file, `None` for other formats.
    #[cfg(feature = "ulog")]
    pub fn as_ulog(&self) -> Option<&ulogfile::ULog<'_>> {
        match self.reader() {
            FormatReader::ULog(r) => Some(r),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// The typed reader of an MCAP file, `None` for other formats.
    #[cfg(feature = "mcap")]
    pub fn as_mcap(&self) -> Option<&mcapfile::Mcap<'_>> {
        match self.reader() {
            FormatReader::Mcap(r) => Some(r),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// The typed reader of a ROS 2 bag, `None` for other formats.
    #[cfg(feature = "rosbag2")]
    pub fn as_rosbag2(&self) -> Option<&rosbag2::Bag2> {
        match self.reader() {
            FormatReader::Rosbag2(r) => Some(r),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// The typed reader of a CARLA recording, `None` for other formats.
    #[cfg(feature = "carla")]
    pub fn as_carla(&self) -> Option<&carla_recorder::Recording<'_>> {
        match self.reader() {
            FormatReader::Carla(r) => Some(r),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// `Ok` when the log is of `format`, else the error every tool reports
    /// for a file of the wrong format: `at byte 0: expected an MCAP file,
    /// found a ROS 1 bag`.
    pub fn expect_format(&self, format: Format) -> Result<(), Error> {
        expect_format(self.format, format)
    }

    /// The problems the format's reader met while opening the log that
    /// reading its messages does not report again: for a ROS bag, an index
    /// that is missing (a recording cut short, never closed) or damaged,
    /// so that the bag was read by scanning its records, or a newer minor
    /// version. Records such a scan skipped and a truncation come with the
    /// messages instead (lenient reads yield them after the messages).
    /// Empty for the other formats, whose readers report their problems
    /// with the messages or in the summary.
    ///
    /// A tool reading the messages reports these once per file: the file
    /// was read, but it is damaged (`robolog` exits 1).
    pub fn open_warnings(&self) -> Vec<Error> {
        match self.reader() {
            #[cfg(feature = "rosbag")]
            FormatReader::RosBag(bag) => bag
                .warnings()
                .iter()
                .cloned()
                .map(Error::from)
                .filter(|e| !matches!(e, Error::Skipped { .. }))
                .collect(),
            #[allow(unreachable_patterns)]
            _ => Vec::new(),
        }
    }

    fn log_reader(&self) -> &dyn LogReader {
        self.reader().as_log_reader()
    }

    /// The registry's decoder for `channel`, built on first use.
    fn decoder(&self, channel: ChannelId) -> Result<Built, Error> {
        let mut built = self
            .decoders
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(b) = built.by_channel.get(&channel) {
            return Ok(b.clone());
        }
        let channels = match self.channels.get() {
            Some(c) => c,
            None => {
                let list = self.log_reader().channels()?;
                self.channels
                    .get_or_init(|| list.into_iter().map(|c| (c.id, c)).collect())
            }
        };
        let build = |info: &ChannelInfo| {
            self.registry
                .decoder_for(info)
                .map(|r| r.map(Arc::from).map_err(|e| Arc::from(e.to_string())))
        };
        let b = match channels.get(&channel) {
            None => None,
            Some(info) => match &info.schema {
                Some(schema) => {
                    let key = (
                        info.message_encoding.clone(),
                        Arc::as_ptr(schema) as usize,
                        info.type_name.clone(),
                    );
                    match built.by_schema.get(&key) {
                        Some(b) => b.clone(),
                        None => {
                            let b = build(info);
                            built.by_schema.insert(key, b.clone());
                            b
                        }
                    }
                }
                None => build(info),
            },
        };
        built.by_channel.insert(channel, b.clone());
        Ok(b)
    }

    /// Calls `f` with the ROS 2 message type the log decodes the CDR
    /// payloads of `channel` with, where it decodes them with ros2cdr: an
    /// MCAP channel whose registry decoder is the built-in `cdr` one
    /// ([`Decoder::cdr_type`]), a ROS 2 bag's topic with a usable
    /// definition. `None` for every other channel, whose messages must be
    /// decoded through [`LogReader::decode`]. For readers that walk CDR
    /// payloads themselves and must give what decoding gives.
    #[cfg(feature = "ros2")]
    pub fn with_cdr_type<R>(
        &self,
        channel: ChannelId,
        f: impl FnOnce(&ros2cdr::MessageType) -> R,
    ) -> Option<R> {
        if self.uses_registry() {
            return match self.decoder(channel).ok()?? {
                Ok(d) => d.cdr_type().map(f),
                Err(_) => None,
            };
        }
        match self.reader() {
            #[cfg(feature = "rosbag2")]
            FormatReader::Rosbag2(bag) => bag.topic(channel)?.message_type().map(f),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// Whether messages of this log are decoded through the registry: the
    /// formats whose channels say their encodings (MCAP) are
    /// ([`LogReader::decodes_by_encoding`]); every other format decodes
    /// with its own, faster, decoder.
    fn uses_registry(&self) -> bool {
        self.log_reader().decodes_by_encoding()
    }
}

/// `Ok` when `found` is `wanted`, else the wrong-format error.
pub(crate) fn expect_format(found: Format, wanted: Format) -> Result<(), Error> {
    if found == wanted {
        Ok(())
    } else {
        Err(Error::malformed(
            0,
            crate::probe::described(wanted),
            crate::probe::described(found),
        ))
    }
}

impl Log<'static> {
    pub(crate) fn owned(
        format: Format,
        bytes: FileBytes,
        limits: &Limits,
        keep: Option<&dyn Fn(&str) -> bool>,
    ) -> Result<Self, Error> {
        if format == Format::ULog {
            // Its reader walks every message of the file when it opens it.
            bytes.populate();
        }
        let owned = OwnedReader::try_new(bytes, |b| FormatReader::build(format, b, limits, keep))?;
        Ok(Log::with_inner(format, Inner::Owned(owned), limits))
    }
}

#[cfg(feature = "rosbag2")]
impl Log<'static> {
    /// The ROS 2 bag at `path` (its folder, its `metadata.yaml`, or a lone
    /// storage file).
    pub(crate) fn rosbag2(path: &std::path::Path, limits: &Limits) -> Result<Self, Error> {
        let bag = rosbag2::Bag2::open_with_limits(path, *limits)?;
        let size = bag
            .files()
            .iter()
            .filter_map(|f| std::fs::metadata(f).ok())
            .map(|m| m.len())
            .sum();
        let reader = FormatReader::Rosbag2(bag);
        Ok(Log::with_inner(
            Format::Rosbag2,
            Inner::Files(Box::new(reader), size),
            limits,
        ))
    }
}

impl LogReader for Log<'_> {
    fn format(&self) -> Format {
        self.format
    }

    fn summary(&self) -> logcore::Result<Summary> {
        self.log_reader().summary()
    }

    fn channels(&self) -> logcore::Result<Vec<ChannelInfo>> {
        self.log_reader().channels()
    }

    fn messages<'s>(&'s self, filter: &MessageFilter) -> logcore::Result<MessageIter<'s>> {
        self.log_reader().messages(filter)
    }

    /// Decodes through the registry for MCAP channels whose encodings it
    /// serves (`ros1`, `protobuf`, `json`, and any registered), else with
    /// the format's own decoder (raw bytes for encodings nobody decodes).
    fn decode(&self, message: &Message<'_>) -> logcore::Result<Value> {
        if self.uses_registry() {
            match self.decoder(message.channel)? {
                Some(Ok(d)) => {
                    return d.decode(&message.payload, message.offset.unwrap_or(0));
                }
                Some(Err(why)) => {
                    return Err(Error::malformed(
                        message.offset.unwrap_or(0),
                        format!("a usable schema for channel {}", message.channel),
                        why.to_string(),
                    ));
                }
                None => {}
            }
        }
        self.log_reader().decode(message)
    }

    /// For MCAP channels the registry decoder's type (from the channel's
    /// schema), else the format's own.
    fn value_type(&self, channel: ChannelId) -> logcore::Result<Option<ValueType>> {
        if self.uses_registry() {
            if let Some(built) = self.decoder(channel)? {
                return Ok(built.ok().and_then(|d| d.value_type()));
            }
        }
        self.log_reader().value_type(channel)
    }

    fn decode_into(&self, message: &Message<'_>, out: &mut Value) -> logcore::Result<()> {
        if self.uses_registry() {
            *out = self.decode(message)?;
            Ok(())
        } else {
            self.log_reader().decode_into(message, out)
        }
    }

    fn table_key<'c>(&self, channel: &'c ChannelInfo) -> &'c str {
        self.log_reader().table_key(channel)
    }

    fn time_unit(&self) -> logcore::TimeUnit {
        self.log_reader().time_unit()
    }

    fn message_columns(&self) -> &'static [logcore::MessageColumn] {
        self.log_reader().message_columns()
    }

    fn decodes_by_encoding(&self) -> bool {
        self.log_reader().decodes_by_encoding()
    }
}
