//! Typed, zero-copy access to logged samples: scalar reads at field
//! offsets, a field accessor by flattened name (`q[0]`, `esc[2].esc_rpm`),
//! columnar extraction, and decoding a sample into a [`logcore::Value`].

use std::sync::{Arc, OnceLock};

use logcore::{FieldName, Value};

use crate::format::{BasicType, FieldType, FlatField, Layout};
use crate::records::InfoValue;
use crate::text::lossy;

/// One basic value read from a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// `int8_t` .. `int64_t`.
    Int(i64),
    /// `uint8_t` .. `uint64_t`.
    UInt(u64),
    /// `float`.
    F32(f32),
    /// `double`.
    F64(f64),
    /// `bool`.
    Bool(bool),
    /// `char`.
    Char(u8),
}

impl Scalar {
    /// The value as `f64` (bool and char as 0/1 and the byte value).
    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::Int(v) => v as f64,
            Scalar::UInt(v) => v as f64,
            Scalar::F32(v) => f64::from(v),
            Scalar::F64(v) => v,
            Scalar::Bool(b) => f64::from(u8::from(b)),
            Scalar::Char(c) => f64::from(c),
        }
    }

    /// The value as a [`Value`].
    pub fn to_value(self) -> Value {
        match self {
            Scalar::Int(v) => Value::I64(v),
            Scalar::UInt(v) => Value::U64(v),
            Scalar::F32(v) => Value::F32(v),
            Scalar::F64(v) => Value::F64(v),
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Char(c) => Value::U64(u64::from(c)),
        }
    }
}

impl From<Scalar> for InfoValue<'_> {
    fn from(s: Scalar) -> Self {
        match s {
            Scalar::Int(v) => InfoValue::Int(v),
            Scalar::UInt(v) => InfoValue::UInt(v),
            Scalar::F32(v) => InfoValue::Float(v),
            Scalar::F64(v) => InfoValue::Double(v),
            Scalar::Bool(b) => InfoValue::Bool(b),
            Scalar::Char(c) => InfoValue::Char(c),
        }
    }
}

/// Reads a basic value at `offset` of `data`; `None` when it does not fit.
///
/// ```
/// use ulogfile::{BasicType, sample::{read_basic, Scalar}};
/// assert_eq!(read_basic(BasicType::Int16, &[0, 0xfe, 0xff], 1), Some(Scalar::Int(-2)));
/// assert_eq!(read_basic(BasicType::Double, &[0; 4], 0), None);
/// ```
#[inline]
pub fn read_basic(ty: BasicType, data: &[u8], offset: usize) -> Option<Scalar> {
    let b = data.get(offset..offset.checked_add(ty.size())?)?;
    let mut w = [0u8; 8];
    w[..b.len()].copy_from_slice(b);
    let u = u64::from_le_bytes(w);
    Some(match ty {
        BasicType::Int8 => Scalar::Int(i64::from(b[0] as i8)),
        BasicType::UInt8 => Scalar::UInt(u),
        BasicType::Int16 => Scalar::Int(i64::from(u as u16 as i16)),
        BasicType::UInt16 => Scalar::UInt(u),
        BasicType::Int32 => Scalar::Int(i64::from(u as u32 as i32)),
        BasicType::UInt32 => Scalar::UInt(u),
        BasicType::Int64 => Scalar::Int(u as i64),
        BasicType::UInt64 => Scalar::UInt(u),
        BasicType::Float => Scalar::F32(f32::from_bits(u as u32)),
        BasicType::Double => Scalar::F64(f64::from_bits(u)),
        BasicType::Bool => Scalar::Bool(b[0] != 0),
        BasicType::Char => Scalar::Char(b[0]),
    })
}

/// One `D` message: its timestamp and the sample bytes, borrowed from the
/// file (cut to the layout's size without trailing padding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample<'a> {
    /// The `timestamp` field, in microseconds.
    pub timestamp: u64,
    /// The struct bytes.
    pub data: &'a [u8],
    /// Offset of the `D` message in the file.
    pub offset: u64,
}

/// Bytes of a `D` message before its struct bytes: the message header and
/// the `msg_id`.
pub(crate) const DATA_PREFIX: usize = 5;

/// Type and offset of a `timestamp` field, when the format has one.
pub(crate) type TimestampField = Option<(BasicType, usize)>;

/// Reads the `timestamp` field (0 when the format has none).
#[inline]
pub(crate) fn timestamp_of(ts: TimestampField, data: &[u8]) -> u64 {
    let Some((ty, offset)) = ts else {
        return 0;
    };
    if ty == BasicType::UInt64 {
        if let Some(v) = read_u64(data, offset) {
            return v;
        }
    }
    match read_basic(ty, data, offset) {
        Some(Scalar::UInt(v)) => v,
        Some(s) => s.as_f64() as u64,
        None => 0,
    }
}

/// The little-endian `u64` at `at` of `data`, when it fits.
#[inline]
pub(crate) fn read_u64(data: &[u8], at: usize) -> Option<u64> {
    let b = data.get(at..at.checked_add(8)?)?;
    <[u8; 8]>::try_from(b).ok().map(u64::from_le_bytes)
}

/// Where each sample's struct bytes start in the file: 4 bytes a sample,
/// 8 in files of 4 GiB and more.
#[derive(Clone)]
enum Positions {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

/// A sample position, whatever its stored width.
trait Pos: Copy {
    fn at(self) -> usize;
}

impl Pos for u32 {
    #[inline]
    fn at(self) -> usize {
        self as usize
    }
}

impl Pos for u64 {
    #[inline]
    fn at(self) -> usize {
        usize::try_from(self).unwrap_or(usize::MAX)
    }
}

/// The samples of one subscription, in file order: an index of where each
/// `D` message's struct bytes are in the file (4 bytes a sample), from
/// which [`Sample`]s are made on access without copying.
///
/// ```
/// let bytes = ulogfile::write::example_log()?;
/// let log = ulogfile::ULog::parse(&bytes)?;
/// let att = &log.subscription("vehicle_attitude", 0).unwrap().samples;
/// assert_eq!(att.len(), 3);
/// let first = att.get(0).unwrap();
/// assert_eq!(first.timestamp, 1_000_000);
/// assert_eq!(&bytes[first.offset as usize + 5..][..first.data.len()], first.data);
/// assert_eq!(att.iter().map(|s| s.timestamp).collect::<Vec<_>>(), [1_000_000, 2_000_000, 3_000_000]);
/// # Ok::<(), ulogfile::Error>(())
/// ```
#[derive(Clone)]
pub struct Samples<'a> {
    file: &'a [u8],
    /// Struct bytes of every sample (the layout's size without trailing
    /// padding).
    size: usize,
    ts: TimestampField,
    at: Positions,
    /// The smallest and largest timestamp pushed (`u64::MAX`, 0 when none).
    min_ts: u64,
    max_ts: u64,
    /// Whether the timestamps pushed never went backwards.
    ordered: bool,
}

impl std::fmt::Debug for Samples<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Samples")
            .field("len", &self.len())
            .field("size", &self.size)
            .finish()
    }
}

impl Default for Samples<'_> {
    fn default() -> Self {
        Samples {
            file: &[],
            size: 0,
            ts: None,
            at: Positions::Narrow(Vec::new()),
            min_ts: u64::MAX,
            max_ts: 0,
            ordered: true,
        }
    }
}

impl<'a> Samples<'a> {
    /// An empty list for samples of `size` bytes in `file`.
    pub(crate) fn new(file: &'a [u8], size: usize, ts: TimestampField) -> Self {
        let at = if u32::try_from(file.len()).is_ok() {
            Positions::Narrow(Vec::new())
        } else {
            Positions::Wide(Vec::new())
        };
        Samples {
            file,
            size,
            ts,
            at,
            min_ts: u64::MAX,
            max_ts: 0,
            ordered: true,
        }
    }

    /// Adds the sample whose struct bytes start at `start` (the caller has
    /// checked that `size` bytes are there) and whose timestamp is
    /// `timestamp` (the sample's timestamp field).
    #[inline]
    pub(crate) fn push(&mut self, start: usize, timestamp: u64) {
        if self.len() == self.capacity() {
            self.grow(start);
        }
        match &mut self.at {
            Positions::Narrow(v) => v.push(start as u32),
            Positions::Wide(v) => v.push(start as u64),
        }
        self.ordered &= timestamp >= self.max_ts;
        self.min_ts = self.min_ts.min(timestamp);
        self.max_ts = self.max_ts.max(timestamp);
    }

    /// The smallest and the largest timestamp of the samples (µs), known
    /// without reading them again; `None` when there are none.
    pub fn time_range(&self) -> Option<(u64, u64)> {
        (!self.is_empty()).then_some((self.min_ts, self.max_ts))
    }

    /// Whether the samples' timestamps never decrease in file order.
    pub fn in_time_order(&self) -> bool {
        self.ordered
    }

    #[inline]
    fn capacity(&self) -> usize {
        match &self.at {
            Positions::Narrow(v) => v.capacity(),
            Positions::Wide(v) => v.capacity(),
        }
    }

    /// Makes room for more samples: as many as the rate so far predicts
    /// for the rest of the file (logs are written at steady rates), at
    /// least as many as there are, at most as many as could still fit.
    #[cold]
    fn grow(&mut self, start: usize) {
        let (len, first) = match &self.at {
            Positions::Narrow(v) => (v.len(), v.first().map(|p| p.at())),
            Positions::Wide(v) => (v.len(), v.first().map(|p| p.at())),
        };
        let rest = self.file.len().saturating_sub(start);
        let fit = rest / (self.size + DATA_PREFIX) + 1;
        let predicted = match first {
            Some(first) if len >= 16 && start > first => {
                // Samples per byte so far, times the bytes left, plus 1/8.
                let per = len as f64 / (start - first) as f64;
                (per * rest as f64 * 1.125) as usize
            }
            _ => 0,
        };
        let more = predicted.max(len).max(8).min(fit);
        match &mut self.at {
            Positions::Narrow(v) => v.reserve_exact(more),
            Positions::Wide(v) => v.reserve_exact(more),
        }
    }

    /// The timestamp of the sample at `start`.
    #[inline]
    pub(crate) fn timestamp_at(&self, start: usize) -> u64 {
        timestamp_of(self.ts, self.bytes_at(start))
    }

    #[inline]
    fn bytes_at(&self, start: usize) -> &'a [u8] {
        let file: &'a [u8] = self.file;
        file.get(start..start.saturating_add(self.size))
            .unwrap_or_default()
    }

    #[inline]
    fn make(&self, start: usize) -> Sample<'a> {
        let data = self.bytes_at(start);
        Sample {
            timestamp: timestamp_of(self.ts, data),
            data,
            offset: start.saturating_sub(DATA_PREFIX) as u64,
        }
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        match &self.at {
            Positions::Narrow(v) => v.len(),
            Positions::Wide(v) => v.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Size of each sample's struct bytes.
    pub fn sample_size(&self) -> usize {
        self.size
    }

    /// Where the struct bytes of sample `i` start in the file.
    #[inline]
    fn start(&self, i: usize) -> Option<usize> {
        match &self.at {
            Positions::Narrow(v) => v.get(i).map(|p| p.at()),
            Positions::Wide(v) => v.get(i).map(|p| p.at()),
        }
    }

    /// Sample `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<Sample<'a>> {
        self.start(i).map(|p| self.make(p))
    }

    /// The struct bytes of sample `i`, without reading them: [`get`]
    /// without decoding the timestamp. Reading many samples' fields
    /// column by column, a caller that touches each sample's bytes first
    /// in a tight loop lets the processor fetch many samples at once.
    ///
    /// ```
    /// let bytes = ulogfile::write::example_log()?;
    /// let log = ulogfile::ULog::parse(&bytes)?;
    /// let att = &log.subscription("vehicle_attitude", 0).unwrap().samples;
    /// let data = att.data(1).unwrap();
    /// assert_eq!(data, att.get(1).unwrap().data);
    /// assert_eq!(att.timestamp_in(data), 2_000_000);
    /// assert!(att.data(3).is_none());
    /// # Ok::<(), ulogfile::Error>(())
    /// ```
    ///
    /// [`get`]: Samples::get
    #[inline]
    pub fn data(&self, i: usize) -> Option<&'a [u8]> {
        self.start(i).map(|p| self.bytes_at(p))
    }

    /// The timestamp (µs) in the struct bytes `data` of one of these
    /// samples, as [`Sample::timestamp`] gives it: 0 when the format has
    /// no `timestamp` field or `data` is too short to hold it.
    #[inline]
    pub fn timestamp_in(&self, data: &[u8]) -> u64 {
        timestamp_of(self.ts, data)
    }

    /// The first sample.
    pub fn first(&self) -> Option<Sample<'a>> {
        self.get(0)
    }

    /// The last sample.
    pub fn last(&self) -> Option<Sample<'a>> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// Every sample, in file order.
    pub fn iter(&self) -> SampleIter<'_, 'a> {
        self.range(0..self.len())
    }

    /// The samples `range` (cut to what there is).
    pub fn range(&self, range: std::ops::Range<usize>) -> SampleIter<'_, 'a> {
        let end = range.end.min(self.len());
        SampleIter {
            samples: self,
            range: range.start.min(end)..end,
        }
    }

    /// Calls `f` with the struct bytes of the samples, a run of at most
    /// `rows` at a time.
    fn for_each_run(&self, rows: usize, mut f: impl FnMut(&[&'a [u8]])) {
        fn runs<'a, P: Pos>(
            s: &Samples<'a>,
            at: &[P],
            rows: usize,
            f: &mut impl FnMut(&[&'a [u8]]),
        ) {
            let mut run = Vec::with_capacity(rows.min(at.len()));
            for chunk in at.chunks(rows) {
                run.clear();
                run.extend(chunk.iter().map(|p| s.bytes_at(p.at())));
                f(&run);
            }
        }
        let rows = rows.max(1);
        match &self.at {
            Positions::Narrow(v) => runs(self, v, rows, &mut f),
            Positions::Wide(v) => runs(self, v, rows, &mut f),
        }
    }
}

/// An iterator over [`Samples`].
#[derive(Debug, Clone)]
pub struct SampleIter<'s, 'a> {
    samples: &'s Samples<'a>,
    range: std::ops::Range<usize>,
}

impl<'a> Iterator for SampleIter<'_, 'a> {
    type Item = Sample<'a>;

    #[inline]
    fn next(&mut self) -> Option<Sample<'a>> {
        let i = self.range.next()?;
        self.samples.get(i)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }

    fn nth(&mut self, n: usize) -> Option<Sample<'a>> {
        let i = self.range.nth(n)?;
        self.samples.get(i)
    }
}

impl DoubleEndedIterator for SampleIter<'_, '_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let i = self.range.next_back()?;
        self.samples.get(i)
    }
}

impl ExactSizeIterator for SampleIter<'_, '_> {}

impl std::iter::FusedIterator for SampleIter<'_, '_> {}

impl<'s, 'a> IntoIterator for &'s Samples<'a> {
    type Item = Sample<'a>;
    type IntoIter = SampleIter<'s, 'a>;

    fn into_iter(self) -> SampleIter<'s, 'a> {
        self.iter()
    }
}

/// A flattened field resolved once, then read from many samples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldRef {
    /// The field.
    pub field: FlatField,
}

impl FieldRef {
    /// Reads the field from a sample.
    #[inline]
    pub fn get(&self, sample: &Sample<'_>) -> Option<Scalar> {
        read_basic(self.field.ty, sample.data, self.field.offset)
    }
}

/// A column of one field over all samples, in the field's own type.
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    /// `int8_t`
    I8(Vec<i8>),
    /// `uint8_t`
    U8(Vec<u8>),
    /// `int16_t`
    I16(Vec<i16>),
    /// `uint16_t`
    U16(Vec<u16>),
    /// `int32_t`
    I32(Vec<i32>),
    /// `uint32_t`
    U32(Vec<u32>),
    /// `int64_t`
    I64(Vec<i64>),
    /// `uint64_t`
    U64(Vec<u64>),
    /// `float`
    F32(Vec<f32>),
    /// `double`
    F64(Vec<f64>),
    /// `bool`
    Bool(Vec<bool>),
    /// `char`
    Char(Vec<u8>),
}

impl Column {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Column::I8(v) => v.len(),
            Column::U8(v) | Column::Char(v) => v.len(),
            Column::I16(v) => v.len(),
            Column::U16(v) => v.len(),
            Column::I32(v) => v.len(),
            Column::U32(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::F32(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Bool(v) => v.len(),
        }
    }

    /// Whether the column is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[inline]
fn arr<const N: usize>(d: &[u8], o: usize) -> [u8; N] {
    match d.get(o..o + N).and_then(|s| <[u8; N]>::try_from(s).ok()) {
        Some(a) => a,
        None => [0u8; N],
    }
}

/// Rows gathered at a time by [`Subscription::columns`]: small enough to
/// stay in the L1/L2 cache while every field is read from them.
const CHUNK_BYTES: usize = 16 * 1024;

impl Column {
    /// An empty column of type `ty` with room for `n` values.
    fn with_capacity(ty: BasicType, n: usize) -> Column {
        match ty {
            BasicType::Int8 => Column::I8(Vec::with_capacity(n)),
            BasicType::UInt8 => Column::U8(Vec::with_capacity(n)),
            BasicType::Int16 => Column::I16(Vec::with_capacity(n)),
            BasicType::UInt16 => Column::U16(Vec::with_capacity(n)),
            BasicType::Int32 => Column::I32(Vec::with_capacity(n)),
            BasicType::UInt32 => Column::U32(Vec::with_capacity(n)),
            BasicType::Int64 => Column::I64(Vec::with_capacity(n)),
            BasicType::UInt64 => Column::U64(Vec::with_capacity(n)),
            BasicType::Float => Column::F32(Vec::with_capacity(n)),
            BasicType::Double => Column::F64(Vec::with_capacity(n)),
            BasicType::Bool => Column::Bool(Vec::with_capacity(n)),
            BasicType::Char => Column::Char(Vec::with_capacity(n)),
        }
    }

    /// Appends the values at offset `o` of each row (`arr` reads zeros
    /// for a row too short to hold the field, as the table padding does).
    fn extend_from<'r>(&mut self, o: usize, rows: impl Iterator<Item = &'r [u8]>) {
        macro_rules! ext {
            ($v:ident, $t:ty, $n:literal) => {
                match o.checked_add($n) {
                    Some(e) => $v.extend(rows.map(|r| match r.get(o..e) {
                        Some(b) => <$t>::from_le_bytes(b.try_into().unwrap_or([0; $n])),
                        None => <$t>::from_le_bytes([0; $n]),
                    })),
                    None => $v.extend(rows.map(|_| <$t>::from_le_bytes([0; $n]))),
                }
            };
        }
        match self {
            Column::I8(v) => ext!(v, i8, 1),
            Column::U8(v) | Column::Char(v) => ext!(v, u8, 1),
            Column::I16(v) => ext!(v, i16, 2),
            Column::U16(v) => ext!(v, u16, 2),
            Column::I32(v) => ext!(v, i32, 4),
            Column::U32(v) => ext!(v, u32, 4),
            Column::I64(v) => ext!(v, i64, 8),
            Column::U64(v) => ext!(v, u64, 8),
            Column::F32(v) => ext!(v, f32, 4),
            Column::F64(v) => ext!(v, f64, 8),
            Column::Bool(v) => v.extend(rows.map(|r| arr::<1>(r, o)[0] != 0)),
        }
    }
}

/// Extracts one column from samples (all samples hold the field: their
/// length was checked against the layout when the log was read).
pub(crate) fn column(field: &FlatField, samples: &Samples<'_>) -> Column {
    let mut c = Column::with_capacity(field.ty, samples.len());
    samples.for_each_run(CHUNK_BYTES, |run| {
        c.extend_from(field.offset, run.iter().copied());
    });
    c
}

/// Decodes a struct of `layout` at `base` in `data` into a [`Value::Struct`]:
/// nested formats become structs, arrays become arrays, `char[N]` becomes
/// text up to the first NUL, `_padding` fields are left out. Bytes missing
/// at the end (omitted trailing padding) are simply not read.
pub fn decode_struct(layout: &Layout, data: &[u8], base: usize) -> Value {
    let mut fields = Vec::with_capacity(layout.fields.len());
    for f in &layout.fields {
        if f.is_padding() {
            continue;
        }
        let at = base + f.offset;
        let v = match (&f.ty, f.array_len) {
            (FieldType::Basic(BasicType::Char), Some(n)) => {
                let bytes = data.get(at..(at + n).min(data.len())).unwrap_or_default();
                let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                Value::String(lossy(&bytes[..end]))
            }
            (FieldType::Basic(b), None) => {
                read_basic(*b, data, at).map_or(Value::Null, Scalar::to_value)
            }
            (FieldType::Basic(b), Some(n)) => Value::Array(
                (0..n)
                    .map(|i| {
                        read_basic(*b, data, at + i * b.size())
                            .map_or(Value::Null, Scalar::to_value)
                    })
                    .collect(),
            ),
            (FieldType::Nested(l), None) => decode_struct(l, data, at),
            (FieldType::Nested(l), Some(n)) => Value::Array(
                (0..n)
                    .map(|i| decode_struct(l, data, at + i * l.size))
                    .collect(),
            ),
        };
        fields.push((f.name.clone(), v));
    }
    Value::Struct(fields)
}

/// A subscription (`A` message) and its samples.
#[derive(Debug, Clone)]
pub struct Subscription<'a> {
    /// Id used by the `D` messages.
    pub msg_id: u16,
    /// Instance number of the topic.
    pub multi_id: u8,
    /// Topic (format) name.
    pub name: String,
    /// The resolved layout.
    pub layout: Arc<Layout>,
    /// Flattened fields (pyulog's field list), made on first use.
    fields: OnceLock<Vec<FlatField>>,
    /// Offset of the `A` message.
    pub offset: u64,
    /// The samples, in file order.
    pub samples: Samples<'a>,
}

impl<'a> Subscription<'a> {
    /// A subscription without samples yet.
    pub fn new(msg_id: u16, multi_id: u8, name: String, layout: Arc<Layout>, offset: u64) -> Self {
        Subscription {
            msg_id,
            multi_id,
            name,
            layout,
            fields: OnceLock::new(),
            offset,
            samples: Samples::default(),
        }
    }

    /// The flattened fields (pyulog's field list: `q[0]`, `esc[1].esc_rpm`;
    /// top-level trailing padding left out).
    pub fn fields(&self) -> &[FlatField] {
        self.fields.get_or_init(|| self.layout.flatten())
    }

    /// Size of one sample as pyulog reports it: the flattened fields.
    pub fn sample_size(&self) -> usize {
        self.layout.min_size
    }

    /// Resolves a flattened field name (`q[0]`, `esc[1].esc_rpm`).
    ///
    /// ```
    /// # use ulogfile::write::Writer;
    /// # let mut w = Writer::new(Vec::new(), 0)?;
    /// # w.add_format("att:uint64_t timestamp;float[4] q;")?;
    /// # let id = w.add_subscription("att", 0)?;
    /// # let mut s = 5u64.to_le_bytes().to_vec();
    /// # for q in [1.0f32, 0.0, 0.0, 0.5] { s.extend_from_slice(&q.to_le_bytes()); }
    /// # w.write_data(id, &s)?;
    /// # let bytes = w.finish()?;
    /// let log = ulogfile::ULog::parse(&bytes)?;
    /// let att = log.subscription("att", 0).unwrap();
    /// let q3 = att.field("q[3]").unwrap();
    /// assert_eq!(q3.get(&att.samples.get(0).unwrap()).map(|v| v.as_f64()), Some(0.5));
    /// assert_eq!(att.column_f64("q[0]"), Some(vec![1.0]));
    /// # Ok::<(), ulogfile::Error>(())
    /// ```
    pub fn field(&self, name: &str) -> Option<FieldRef> {
        self.fields()
            .iter()
            .find(|f| f.name == name)
            .map(|f| FieldRef { field: f.clone() })
    }

    /// The column of field `name`, in its own type.
    pub fn column(&self, name: &str) -> Option<Column> {
        let f = self.fields().iter().find(|f| f.name == name)?;
        Some(column(f, &self.samples))
    }

    /// Every field as a column, in field order.
    pub fn columns(&self) -> Vec<(FieldName, Column)> {
        self.read_columns(None)
    }

    /// The timestamps of all samples (µs) and every field as a column:
    /// [`timestamps`](Self::timestamps) and [`columns`](Self::columns) in
    /// one pass over the samples, which lie scattered through the file.
    pub fn timestamps_and_columns(&self) -> (Vec<u64>, Vec<(FieldName, Column)>) {
        let mut times = Vec::with_capacity(self.samples.len());
        let cols = self.read_columns(Some(&mut times));
        (times, cols)
    }

    /// Every field as a column, and the timestamps into `times` when
    /// given.
    fn read_columns(&self, mut times: Option<&mut Vec<u64>>) -> Vec<(FieldName, Column)> {
        let fields = self.fields();
        let size = self.samples.sample_size();
        // A zero-size layout has no values to read (its columns stay empty).
        let n = if size == 0 { 0 } else { self.samples.len() };
        // Names up to 23 bytes are copied, longer ones shared.
        let mut cols: Vec<(FieldName, Column)> = fields
            .iter()
            .map(|f| (f.name.clone(), Column::with_capacity(f.ty, n)))
            .collect();
        if n == 0 {
            if let Some(t) = times {
                *t = self.timestamps();
            }
            return cols;
        }
        // The samples are scattered through the file between other topics:
        // take a cache-sized run of them and read every column from it
        // while it is still in cache.
        let rows = (CHUNK_BYTES / size).max(1);
        let ts = self.samples.ts;
        self.samples.for_each_run(rows, |run| {
            // A program embedding the reader may stop a long pass here.
            logcore::interrupt::check();
            if let Some(t) = times.as_deref_mut() {
                t.extend(run.iter().map(|d| timestamp_of(ts, d)));
            }
            for (f, (_, c)) in fields.iter().zip(&mut cols) {
                c.extend_from(f.offset, run.iter().copied());
            }
        });
        cols
    }

    /// The column of field `name` converted to `f64`.
    pub fn column_f64(&self, name: &str) -> Option<Vec<f64>> {
        let f = self.field(name)?;
        Some(
            self.samples
                .iter()
                .map(|s| f.get(&s).map_or(f64::NAN, Scalar::as_f64))
                .collect(),
        )
    }

    /// Decodes sample `i` into a [`Value`].
    pub fn decode(&self, i: usize) -> Option<Value> {
        self.samples
            .get(i)
            .map(|s| decode_struct(&self.layout, s.data, 0))
    }

    /// The timestamps of all samples (µs).
    pub fn timestamps(&self) -> Vec<u64> {
        self.samples.iter().map(|s| s.timestamp).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same positions stored narrow and wide give the same samples,
    /// made from the file bytes.
    #[test]
    fn narrow_and_wide_positions_agree() {
        // Three 10-byte samples behind 5-byte message prefixes; timestamps
        // 7, 8 and 0x0102 (u64 at offset 0), then 2 payload bytes.
        let mut file = Vec::new();
        let mut starts = Vec::new();
        for ts in [7u64, 8, 0x0102] {
            file.extend_from_slice(&[12, 0, b'D', 1, 0]);
            starts.push(file.len());
            file.extend_from_slice(&ts.to_le_bytes());
            file.extend_from_slice(&[0xaa, ts as u8]);
        }
        let ts = Some((BasicType::UInt64, 0));
        let mut narrow = Samples::new(&file, 10, ts);
        for &s in &starts {
            let t = narrow.timestamp_at(s);
            narrow.push(s, t);
        }
        assert_eq!(narrow.time_range(), Some((7, 0x0102)));
        assert!(narrow.in_time_order());
        let wide = Samples {
            at: Positions::Wide(starts.iter().map(|&s| s as u64).collect()),
            ..narrow.clone()
        };
        for s in [&narrow, &wide] {
            assert_eq!(s.len(), 3);
            let all: Vec<Sample<'_>> = s.iter().collect();
            assert_eq!(
                all.iter().map(|x| x.timestamp).collect::<Vec<_>>(),
                [7, 8, 0x0102]
            );
            assert_eq!(
                all.iter().map(|x| x.offset).collect::<Vec<_>>(),
                [0, 15, 30]
            );
            assert_eq!(all[2].data, &file[35..45]);
            assert_eq!(s.last(), Some(all[2]));
            assert_eq!(s.get(3), None);
            assert_eq!(s.range(1..9).collect::<Vec<_>>(), all[1..]);
            let (from, to) = (2, 1);
            assert_eq!(s.range(from..to).count(), 0);
            assert_eq!(s.iter().next_back(), Some(all[2]));
            assert_eq!(s.iter().nth(1), Some(all[1]));
            let mut runs = Vec::new();
            s.for_each_run(2, |r| runs.push(r.len()));
            assert_eq!(runs, [2, 1]);
        }
        assert_eq!(format!("{narrow:?}"), "Samples { len: 3, size: 10 }");
    }

    /// The time range and order are those of the timestamps pushed, kept
    /// without reading the samples again.
    #[test]
    fn time_range_and_order_follow_the_pushes() {
        let file = vec![0u8; 100];
        let mut s = Samples::new(&file, 10, None);
        assert_eq!(s.time_range(), None);
        for (k, t) in [5u64, 9, 9, 4, 12].into_iter().enumerate() {
            s.push(k * 15 + DATA_PREFIX, t);
            assert_eq!(s.in_time_order(), k < 3, "after {t}");
        }
        assert_eq!(s.time_range(), Some((4, 12)));
    }

    /// The list grows by the rate seen so far, never beyond what the rest
    /// of the file could hold.
    #[test]
    fn growth_follows_the_rate_and_stays_bounded() {
        // 1000 messages of 15 bytes; this topic is every 4th one.
        let file = vec![0u8; 15_000];
        let mut s = Samples::new(&file, 10, None);
        let mut grown = 0;
        let mut cap = 0;
        for k in (0..1000).step_by(4) {
            s.push(k * 15 + DATA_PREFIX, 0);
            if s.capacity() != cap {
                grown += 1;
                cap = s.capacity();
            }
            assert!(cap <= 1000 + 8, "capacity {cap} beyond what the file holds");
        }
        assert_eq!(s.len(), 250);
        // 8, then doubling to 16, then the rate (1 in 4 messages) predicts
        // the rest: a few growths instead of one per doubling.
        assert!(grown <= 4, "{grown} growths");
        assert!(cap < 400, "capacity {cap} far above the 250 samples");
        // A hostile position past the end of the file cannot make it reserve.
        let mut h = Samples::new(&file, 10, None);
        h.push(usize::MAX / 2, 0);
        assert!(h.capacity() <= 8);
    }
}
