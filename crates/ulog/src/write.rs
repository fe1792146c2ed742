//! [`Writer`]: writes ULog files from scratch, and [`rewrite`] writes a read
//! log back.
//!
//! The definitions section (info, formats, parameters, defaults, multi
//! info) is buffered until the first data-section message, so the flag-bits
//! message can announce default parameters; from then on every message
//! goes straight to the output. Sync messages are written every
//! [`Writer::sync_interval`] data messages (PX4 writes them about twice a
//! second).

use logcore::FormatError;
use std::collections::HashMap;
use std::io::Write;

use crate::error::{Error, Result};
use crate::format::{BasicType, FormatDef, Formats};
use crate::read::ULog;
use crate::records::{FileHeader, FlagBits, InfoValue, SYNC_MAGIC};

/// Writes a ULog file.
///
/// ```
/// use ulogfile::Writer;
/// let mut w = Writer::new(Vec::new(), 0)?;
/// w.add_info_str("sys_name", "PX4")?;
/// w.add_format("imu:uint64_t timestamp;float x;")?;
/// let id = w.add_subscription("imu", 0)?;
/// let mut sample = 7u64.to_le_bytes().to_vec();
/// sample.extend_from_slice(&1.5f32.to_le_bytes());
/// w.write_data(id, &sample)?;
/// let bytes = w.finish()?;
/// let log = ulogfile::ULog::parse(&bytes)?;
/// assert_eq!(log.subscription("imu", 0).unwrap().column_f64("x"), Some(vec![1.5]));
/// # Ok::<(), ulogfile::Error>(())
/// ```
#[derive(Debug)]
pub struct Writer<W: Write> {
    out: W,
    header: FileHeader,
    defs: Vec<u8>,
    started: bool,
    has_defaults: bool,
    formats: Formats,
    subscriptions: HashMap<u16, (String, usize, usize)>,
    next_msg_id: u16,
    since_sync: usize,
    /// Data messages between two sync messages (0: never).
    pub sync_interval: usize,
}

impl<W: Write> Writer<W> {
    /// A writer for a log whose logging started at `start_timestamp` µs.
    pub fn new(out: W, start_timestamp: u64) -> Result<Self> {
        Ok(Writer {
            out,
            header: FileHeader {
                version: 1,
                timestamp: start_timestamp,
            },
            defs: Vec::new(),
            started: false,
            has_defaults: false,
            formats: Formats::default(),
            subscriptions: HashMap::new(),
            next_msg_id: 0,
            since_sync: 0,
            sync_interval: 100,
        })
    }

    /// Sets the header's start timestamp (µs). The header is written with
    /// the first data-section message; later calls change nothing.
    pub fn set_start_timestamp(&mut self, timestamp: u64) {
        self.header.timestamp = timestamp;
    }

    /// Sets the header's version byte (1 unless rewriting an old log).
    pub fn set_version(&mut self, version: u8) {
        self.header.version = version;
    }

    fn message(&mut self, ty: u8, payload: &[u8]) -> Result<()> {
        let size = u16::try_from(payload.len()).map_err(|_| {
            Error::invalid_argument(format!(
                "a '{}' message of {} bytes (at most 65535 fit)",
                ty as char,
                payload.len()
            ))
        })?;
        let mut m = Vec::with_capacity(payload.len() + 3);
        m.extend_from_slice(&size.to_le_bytes());
        m.push(ty);
        m.extend_from_slice(payload);
        if self.started {
            self.out.write_all(&m)?;
        } else {
            self.defs.extend_from_slice(&m);
        }
        Ok(())
    }

    /// Writes the header, flag bits and buffered definitions once.
    fn start(&mut self) -> Result<()> {
        if self.started {
            return Ok(());
        }
        self.started = true;
        self.out.write_all(&self.header.to_bytes())?;
        let mut fb = FlagBits::default();
        if self.has_defaults {
            fb.compat_flags[0] = 1;
        }
        self.out.write_all(&40u16.to_le_bytes())?;
        self.out.write_all(b"B")?;
        self.out.write_all(&fb.to_bytes())?;
        let defs = std::mem::take(&mut self.defs);
        self.out.write_all(&defs)?;
        Ok(())
    }

    /// Adds a format definition (`name:type field;...`).
    pub fn add_format(&mut self, text: &str) -> Result<()> {
        let def = FormatDef::parse(text, 0).map_err(|e| Error::invalid_argument(e.to_string()))?;
        self.add_format_def(&def)
    }

    /// Adds a parsed format definition.
    pub fn add_format_def(&mut self, def: &FormatDef) -> Result<()> {
        let text = def.to_text();
        self.message(b'F', text.as_bytes())?;
        self.formats.insert(def.clone());
        Ok(())
    }

    fn key_value(kind_prefix: &[u8], type_str: &str, name: &str, value: &[u8]) -> Result<Vec<u8>> {
        let key = format!("{type_str} {name}");
        let len = u8::try_from(key.len())
            .map_err(|_| Error::invalid_argument(format!("key {key:?} longer than 255 bytes")))?;
        let mut p = kind_prefix.to_vec();
        p.push(len);
        p.extend_from_slice(key.as_bytes());
        p.extend_from_slice(value);
        Ok(p)
    }

    /// Adds an `I` message with a declared type and raw value bytes.
    pub fn add_info(&mut self, type_str: &str, name: &str, value: &[u8]) -> Result<()> {
        let p = Self::key_value(&[], type_str, name, value)?;
        self.message(b'I', &p)
    }

    /// Adds an `I` text value (`char[N] name`).
    pub fn add_info_str(&mut self, name: &str, value: &str) -> Result<()> {
        self.add_info(&format!("char[{}]", value.len()), name, value.as_bytes())
    }

    /// Adds an `I` value of any decoded kind (`type_str` as declared).
    pub fn add_info_value(
        &mut self,
        type_str: &str,
        name: &str,
        value: &InfoValue<'_>,
    ) -> Result<()> {
        self.add_info(type_str, name, &encode_value(type_str, value)?)
    }

    /// Adds an `M` message; `continued` appends to the key's last group.
    pub fn add_multi_info(
        &mut self,
        type_str: &str,
        name: &str,
        value: &InfoValue<'_>,
        continued: bool,
    ) -> Result<()> {
        let p = Self::key_value(
            &[u8::from(continued)],
            type_str,
            name,
            &encode_value(type_str, value)?,
        )?;
        self.message(b'M', &p)
    }

    /// Adds a parameter (`int32_t` or `float`). Before the first data
    /// message it is an initial value; afterwards, a change.
    pub fn add_parameter(&mut self, name: &str, value: &InfoValue<'_>) -> Result<()> {
        let ty = param_type(value);
        let p = Self::key_value(&[], ty, name, &encode_value(ty, value)?)?;
        self.message(b'P', &p)
    }

    /// Adds a default parameter (`Q`); `default_types` bit 0 = system, bit 1 =
    /// current configuration.
    pub fn add_default_parameter(
        &mut self,
        default_types: u8,
        name: &str,
        value: &InfoValue<'_>,
    ) -> Result<()> {
        let ty = param_type(value);
        let p = Self::key_value(&[default_types], ty, name, &encode_value(ty, value)?)?;
        if !self.started {
            self.has_defaults = true;
        }
        self.message(b'Q', &p)
    }

    /// Subscribes to a format with a new msg_id, which is returned.
    pub fn add_subscription(&mut self, name: &str, multi_id: u8) -> Result<u16> {
        let layout = self
            .formats
            .layout(name, 0)
            .map_err(|e| Error::invalid_argument(format!("subscription to {name:?}: {e}")))?;
        let id = self.next_msg_id;
        self.next_msg_id = id
            .checked_add(1)
            .ok_or_else(|| Error::invalid_argument("more than 65535 subscriptions"))?;
        self.add_subscription_with_id(name, multi_id, id)?;
        self.subscriptions
            .insert(id, (name.to_string(), layout.min_size, layout.size));
        Ok(id)
    }

    fn add_subscription_with_id(&mut self, name: &str, multi_id: u8, id: u16) -> Result<()> {
        let layout = self
            .formats
            .layout(name, 0)
            .map_err(|e| Error::invalid_argument(format!("subscription to {name:?}: {e}")))?;
        self.start()?;
        let mut p = vec![multi_id];
        p.extend_from_slice(&id.to_le_bytes());
        p.extend_from_slice(name.as_bytes());
        self.message(b'A', &p)?;
        self.subscriptions
            .insert(id, (name.to_string(), layout.min_size, layout.size));
        self.next_msg_id = self.next_msg_id.max(id.saturating_add(1));
        Ok(())
    }

    /// Writes one sample of subscription `msg_id`: the struct bytes, full
    /// size or without the top-level trailing padding. The trailing padding
    /// is never written (PX4 omits it too, and pyulog 1.3.0 takes full-size
    /// samples for corruption).
    pub fn write_data(&mut self, msg_id: u16, sample: &[u8]) -> Result<()> {
        let (name, min, max) = self.subscriptions.get(&msg_id).ok_or_else(|| {
            Error::invalid_argument(format!("msg_id {msg_id} was not subscribed"))
        })?;
        if sample.len() < *min || sample.len() > *max {
            return Err(Error::invalid_argument(format!(
                "a {name} sample must have {min}..={max} bytes, not {}",
                sample.len()
            )));
        }
        let sample = &sample[..*min];
        self.start()?;
        let mut p = msg_id.to_le_bytes().to_vec();
        p.extend_from_slice(sample);
        self.message(b'D', &p)?;
        self.since_sync += 1;
        if self.sync_interval > 0 && self.since_sync >= self.sync_interval {
            self.write_sync()?;
        }
        Ok(())
    }

    /// Writes a logged string (`L`); `level` is the ASCII digit `b'0'..=b'7'`.
    pub fn write_logging(&mut self, level: u8, timestamp: u64, text: &str) -> Result<()> {
        self.start()?;
        let mut p = vec![level];
        p.extend_from_slice(&timestamp.to_le_bytes());
        p.extend_from_slice(text.as_bytes());
        self.message(b'L', &p)
    }

    /// Writes a tagged logged string (`C`).
    pub fn write_tagged_logging(
        &mut self,
        level: u8,
        tag: u16,
        timestamp: u64,
        text: &str,
    ) -> Result<()> {
        self.start()?;
        let mut p = vec![level];
        p.extend_from_slice(&tag.to_le_bytes());
        p.extend_from_slice(&timestamp.to_le_bytes());
        p.extend_from_slice(text.as_bytes());
        self.message(b'C', &p)
    }

    /// Writes a dropout (`O`) of `duration_ms`.
    pub fn write_dropout(&mut self, duration_ms: u16) -> Result<()> {
        self.start()?;
        self.message(b'O', &duration_ms.to_le_bytes())
    }

    /// Writes a sync message (`S`).
    pub fn write_sync(&mut self) -> Result<()> {
        self.start()?;
        self.since_sync = 0;
        self.message(b'S', &SYNC_MAGIC)
    }

    /// Ends the definitions section now (writes header and definitions even
    /// if no data follows).
    pub fn start_data(&mut self) -> Result<()> {
        self.start()
    }

    /// Flushes and returns the output.
    pub fn finish(mut self) -> Result<W> {
        self.start()?;
        self.out.flush()?;
        Ok(self.out)
    }
}

fn param_type(v: &InfoValue<'_>) -> &'static str {
    match v {
        InfoValue::Int(_) | InfoValue::UInt(_) | InfoValue::Bool(_) => "int32_t",
        _ => "float",
    }
}

/// Encodes a value as the bytes of type `type_str`.
pub fn encode_value(type_str: &str, v: &InfoValue<'_>) -> Result<Vec<u8>> {
    if let InfoValue::String(s) = v {
        return Ok(s.as_bytes().to_vec());
    }
    if let InfoValue::Bytes(b) = v {
        return Ok(b.to_vec());
    }
    let bad = || Error::invalid_argument(format!("value {v:?} for type {type_str}"));
    let ty = BasicType::from_name(type_str).ok_or_else(bad)?;
    let i = match *v {
        InfoValue::Int(x) => x as i128,
        InfoValue::UInt(x) => x as i128,
        InfoValue::Bool(b) => i128::from(b),
        InfoValue::Char(c) => i128::from(c),
        _ => 0,
    };
    let f = v.as_f64().unwrap_or(i as f64);
    Ok(match ty {
        BasicType::Int8 | BasicType::UInt8 | BasicType::Bool | BasicType::Char => vec![i as u8],
        BasicType::Int16 | BasicType::UInt16 => (i as u16).to_le_bytes().to_vec(),
        BasicType::Int32 | BasicType::UInt32 => (i as u32).to_le_bytes().to_vec(),
        BasicType::Int64 | BasicType::UInt64 => (i as u64).to_le_bytes().to_vec(),
        BasicType::Float => match *v {
            InfoValue::Float(x) => x.to_le_bytes().to_vec(),
            _ => (f as f32).to_le_bytes().to_vec(),
        },
        BasicType::Double => f.to_le_bytes().to_vec(),
    })
}

/// Writes a read log back: header (original version and start time), flag
/// bits without appended data, formats, info, multi info, parameters and
/// defaults, then subscriptions, samples, logged strings, dropouts and
/// parameter changes in their original file order. Sync messages, unknown
/// messages and info given in the data section are not reproduced in
/// place (info moves to the definitions).
pub fn rewrite(log: &ULog<'_>) -> Result<Vec<u8>> {
    let mut w = Writer::new(Vec::new(), log.header.timestamp)?;
    w.set_version(log.header.version);
    w.sync_interval = 0;
    for def in log.formats.iter() {
        w.add_format_def(def)?;
    }
    for (name, info) in &log.info {
        w.add_info_value(&info.type_str, name, &info.value)?;
    }
    for (name, m) in &log.multi_info {
        for g in &m.groups {
            for (i, v) in g.iter().enumerate() {
                let ty = match v {
                    InfoValue::String(s) if m.type_str.starts_with("char[") => {
                        format!("char[{}]", s.len())
                    }
                    InfoValue::Bytes(b) => format!("uint8_t[{}]", b.len()),
                    _ => m.type_str.clone(),
                };
                w.add_multi_info(&ty, name, v, i > 0)?;
            }
        }
    }
    for (name, v) in &log.initial_parameters {
        w.add_parameter(name, v)?;
    }
    let mut defaults: Vec<(String, u8, &InfoValue<'_>)> = Vec::new();
    for (bit, map) in &log.default_parameters {
        for (name, v) in map {
            match defaults.iter_mut().find(|(n, _, dv)| n == name && *dv == v) {
                Some(d) => d.1 |= 1 << bit,
                None => defaults.push((name.to_string(), 1 << bit, v)),
            }
        }
    }
    for (name, bits, v) in defaults {
        w.add_default_parameter(bits, &name, v)?;
    }
    w.start()?;
    enum Item<'b, 'a> {
        Sub(&'b crate::Subscription<'a>),
        Data(u16, &'a [u8]),
        Log(&'b crate::LoggedString<'a>),
        Drop(u16),
        Param(&'b crate::ParameterChange<'a>),
    }
    let mut items: Vec<(u64, Item<'_, '_>)> = Vec::new();
    for s in &log.subscriptions {
        items.push((s.offset, Item::Sub(s)));
        for smp in &s.samples {
            items.push((smp.offset, Item::Data(s.msg_id, smp.data)));
        }
    }
    for l in log.logged_messages.iter().chain(&log.tagged_messages) {
        items.push((l.offset, Item::Log(l)));
    }
    for d in &log.dropouts {
        items.push((d.offset, Item::Drop(d.duration_ms)));
    }
    for p in &log.changed_parameters {
        items.push((p.offset, Item::Param(p)));
    }
    items.sort_by_key(|(o, _)| *o);
    for (_, item) in items {
        match item {
            Item::Sub(s) => w.add_subscription_with_id(&s.name, s.multi_id, s.msg_id)?,
            Item::Data(id, d) => w.write_data(id, d)?,
            Item::Log(l) => {
                let text = l.text();
                match l.tag {
                    Some(t) => w.write_tagged_logging(l.level, t, l.timestamp, &text)?,
                    None => w.write_logging(l.level, l.timestamp, &text)?,
                }
            }
            Item::Drop(d) => w.write_dropout(d)?,
            Item::Param(p) => w.add_parameter(&p.name, &p.value)?,
        }
    }
    w.finish()
}

/// A small deterministic log used in examples and tests: `sys_name`
/// "robolog", one parameter, `vehicle_attitude` with three samples (the
/// first passed with its trailing padding, which the writer drops), one logged string.
pub fn example_log() -> Result<Vec<u8>> {
    let mut w = Writer::new(Vec::new(), 500_000)?;
    w.add_info_str("sys_name", "robolog")?;
    w.add_info("uint32_t", "ver_sw_release", &0x010e_00ffu32.to_le_bytes())?;
    w.add_format("vehicle_attitude:uint64_t timestamp;float[4] q;uint8_t[4] _padding0;")?;
    w.add_parameter("MC_ROLL_P", &InfoValue::Float(6.5))?;
    w.add_parameter("SYS_AUTOSTART", &InfoValue::Int(4001))?;
    let id = w.add_subscription("vehicle_attitude", 0)?;
    for (i, q0) in [1.0f32, 0.5, 0.25].into_iter().enumerate() {
        let mut s = ((i as u64 + 1) * 1_000_000).to_le_bytes().to_vec();
        for q in [q0, 0.0, 0.0, 0.125] {
            s.extend_from_slice(&q.to_le_bytes());
        }
        if i == 0 {
            s.extend_from_slice(&[0; 4]);
        }
        w.write_data(id, &s)?;
    }
    w.write_logging(b'6', 2_500_000, "[commander] Takeoff detected")?;
    w.finish()
}

/// The bytes of one message: `msg_size`, `msg_type`, payload.
pub fn encode_message(msg_type: u8, payload: &[u8]) -> Result<Vec<u8>> {
    let size = u16::try_from(payload.len()).map_err(|_| {
        Error::invalid_argument(format!(
            "a payload of {} bytes (at most 65535 fit)",
            payload.len()
        ))
    })?;
    let mut m = Vec::with_capacity(payload.len() + 3);
    m.extend_from_slice(&size.to_le_bytes());
    m.push(msg_type);
    m.extend_from_slice(payload);
    Ok(m)
}

/// Appends messages to a finished log the way PX4's crash-dump writer
/// does: sets the DATA_APPENDED flag, stores the current file length in the
/// first free appended offset, then appends `messages` (encoded with
/// [`encode_message`]). Fails when the file has no flag-bits message or all
/// three offsets are used.
pub fn append_data(file: &mut Vec<u8>, messages: &[u8]) -> Result<()> {
    const FLAGS: usize = 16 + 3;
    if file.get(16..19) != Some(&[40, 0, b'B'][..]) || file.len() < FLAGS + 40 {
        return Err(Error::invalid_argument(
            "appending needs a 40-byte flag-bits message at byte 16",
        ));
    }
    let slot = (0..3)
        .find(|i| {
            file[FLAGS + 16 + 8 * i..FLAGS + 24 + 8 * i]
                .iter()
                .all(|&b| b == 0)
        })
        .ok_or_else(|| Error::invalid_argument("all three appended offsets are used"))?;
    let at = file.len() as u64;
    file[FLAGS + 8] |= 1;
    file[FLAGS + 16 + 8 * slot..FLAGS + 24 + 8 * slot].copy_from_slice(&at.to_le_bytes());
    file.extend_from_slice(messages);
    Ok(())
}

/// A deterministic log with every message type: nested formats with
/// arrays and padding, `char[N]` fields, multi instances, `I`/`M`/`P`/`Q`
/// in both sections, `L` and `C` strings, dropouts, sync messages, a
/// parameter change, an unknown message type, and appended data (an `M`
/// crash dump after a `D` message cut by the append).
pub fn feature_log() -> Result<Vec<u8>> {
    let mut w = Writer::new(Vec::new(), 1_000)?;
    w.sync_interval = 4;
    w.add_info_str("sys_name", "PX4")?;
    w.add_info_str("ver_hw", "ROBOLOG_TEST")?;
    w.add_info("uint32_t", "ver_sw_release", &0x010f_0240u32.to_le_bytes())?;
    w.add_info("int32_t", "time_ref_utc", &(-3600i32).to_le_bytes())?;
    w.add_info("uint8_t[4]", "blob", &[0, 0x27, 0x41, 0xff])?;
    w.add_format("esc_report:uint64_t timestamp;int32_t esc_rpm;float esc_voltage;uint8_t esc_state;uint8_t[3] _padding0;")?;
    w.add_format("esc_status:uint64_t timestamp;uint16_t counter;uint8_t esc_count;bool armed;esc_report[2] esc;char[8] label;int8_t trim;uint8_t[7] _padding0;")?;
    w.add_format("sensor_gps:uint64_t timestamp;uint64_t time_utc_usec;double lat;int32_t alt;char c;uint8_t[3] _padding0;")?;
    w.add_multi_info(
        "char[5]",
        "boot_console_output",
        &InfoValue::String("boot ".into()),
        false,
    )?;
    w.add_multi_info(
        "char[2]",
        "boot_console_output",
        &InfoValue::String("ok".into()),
        true,
    )?;
    w.add_parameter("MC_ROLL_P", &InfoValue::Float(0.05))?;
    w.add_parameter("SYS_AUTOSTART", &InfoValue::Int(4001))?;
    w.add_parameter("BAT_N_CELLS", &InfoValue::Int(4))?;
    w.add_default_parameter(1, "MC_ROLL_P", &InfoValue::Float(6.5))?;
    w.add_default_parameter(3, "BAT_N_CELLS", &InfoValue::Int(3))?;
    w.add_default_parameter(2, "SYS_AUTOSTART", &InfoValue::Int(0))?;
    let esc = w.add_subscription("esc_status", 0)?;
    let esc1 = w.add_subscription("esc_status", 1)?;
    w.write_logging(b'6', 1_500, "[logger] Start file log (type: full)")?;
    w.write_tagged_logging(b'4', 7, 1_600, "tagged message test")?;
    let gps = w.add_subscription("sensor_gps", 0)?;
    for i in 0..6u64 {
        let t = 2_000 + i * 100_000;
        let mut s = t.to_le_bytes().to_vec();
        s.extend_from_slice(&(i as u16).to_le_bytes());
        s.extend_from_slice(&[2, u8::from(i % 2 == 1)]);
        for k in 0..2u64 {
            s.extend_from_slice(&(t - k).to_le_bytes());
            s.extend_from_slice(&(1000 * i as i32 - 2000 * k as i32).to_le_bytes());
            s.extend_from_slice(&(16.8f32 - i as f32 * 0.1).to_le_bytes());
            s.extend_from_slice(&[k as u8 + 1, 0, 0, 0]);
        }
        let label: &[u8; 8] = if i == 0 { b"motor\0\0\0" } else { b"esc-full" };
        s.extend_from_slice(label);
        s.push((i as i8 - 3) as u8);
        if i % 2 == 0 {
            s.extend_from_slice(&[0; 7]);
        }
        w.write_data(if i < 5 { esc } else { esc1 }, &s)?;
        let mut g = t.to_le_bytes().to_vec();
        let utc = if i == 0 { 0 } else { 1_700_000_000_000_000 + t };
        g.extend_from_slice(&utc.to_le_bytes());
        g.extend_from_slice(&(47.397_742_f64 + i as f64 * 1e-6).to_le_bytes());
        g.extend_from_slice(&(488_000i32 + i as i32).to_le_bytes());
        g.push(b'A' + i as u8);
        w.write_data(gps, &g)?;
        if i == 2 {
            w.write_dropout(35)?;
            w.add_parameter("MC_ROLL_P", &InfoValue::Float(0.07))?;
            w.add_info_str("vehicle_name", "test rig")?;
            w.add_multi_info(
                "char[9]",
                "perf_counter_postflight",
                &InfoValue::String("cpu: 12%\n".into()),
                false,
            )?;
        }
        if i == 4 {
            w.write_logging(b'3', t, "[sensors] no barometer found")?;
            w.message(b'Z', b"future message type")?;
        }
    }
    w.write_dropout(12)?;
    let mut bytes = w.finish()?;
    // A sample cut by the crash: its bytes run past the appended offset.
    let mut cut = encode_message(b'D', &[&gps.to_le_bytes()[..], &[0u8; 20]].concat())?;
    cut.truncate(12);
    bytes.extend_from_slice(&cut);
    let dump = encode_message(
        b'M',
        &[
            &[0u8][..],
            &[24],
            b"char[14] hardfault_plain",
            b"[hardfault] r0",
        ]
        .concat(),
    )?;
    append_data(&mut bytes, &dump)?;
    Ok(bytes)
}
