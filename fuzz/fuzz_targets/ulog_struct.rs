//! Structure-aware ULog fuzzing: the fuzzer chooses info, parameters,
//! subscriptions (to a few formats, nested ones included), samples, logged
//! strings, dropouts and syncs; our `Writer` writes them (header, flag
//! bits, message sizes right); then the chosen mutations damage the file.
//! Unmutated, every sample, parameter and logged string must read back as
//! written; mutated, every reader must return normally.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use robolog_fuzz::{Mutation, mutate, read};
use ulogfile::records::InfoValue;
use ulogfile::{FormatDef, Formats, ULog, Writer};

const FORMATS: [&str; 5] = [
    "imu:uint64_t timestamp;float[3] acc;uint8_t flags;",
    "gps:uint64_t timestamp;double lat;double lon;int32_t fix;char[8] name;bool ok;",
    "inner:uint16_t a;int8_t[2] b;",
    "outer:uint64_t timestamp;inner[2] items;uint8_t[3] _padding0;",
    "empty_ts:uint64_t timestamp;",
];
/// The formats one can subscribe to (`inner` has no timestamp).
const TOPICS: [&str; 4] = ["imu", "gps", "outer", "empty_ts"];

#[derive(Arbitrary, Debug)]
struct Input {
    start: u64,
    info: Vec<(String, String)>,
    parameters: Vec<(String, Param)>,
    subscriptions: Vec<(u8, u8)>,
    ops: Vec<Op>,
    mutations: Vec<Mutation>,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Param {
    Int(i32),
    Float(f32),
}

impl Param {
    fn value(self) -> InfoValue<'static> {
        match self {
            Param::Int(i) => InfoValue::Int(i64::from(i)),
            Param::Float(f) => InfoValue::Float(f),
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Op {
    Data {
        subscription: u8,
        bytes: Vec<u8>,
    },
    Log {
        level: u8,
        timestamp: u64,
        text: String,
    },
    Dropout(u16),
    Sync,
    Parameter(String, Param),
}

/// What was written: per subscription its samples (as stored), logged
/// strings (level, timestamp, text).
struct Written {
    samples: Vec<Vec<Vec<u8>>>,
    logged: Vec<(u8, u64, Vec<u8>)>,
}

fn write(input: &Input) -> Option<(Vec<u8>, Written)> {
    let mut w = Writer::new(Vec::new(), input.start).ok()?;
    let mut formats = Formats::default();
    for (name, value) in &input.info {
        w.add_info_str(name, value).ok()?;
    }
    for (name, p) in &input.parameters {
        w.add_parameter(name, &p.value()).ok()?;
    }
    for f in FORMATS {
        w.add_format(f).ok()?;
        formats.insert(FormatDef::parse(f, 0).ok()?);
    }
    let mut subs = Vec::new();
    for (topic, multi_id) in input.subscriptions.iter().take(8) {
        let name = TOPICS[usize::from(*topic) % TOPICS.len()];
        let layout = formats.layout(name, 0).ok()?;
        let id = w.add_subscription(name, *multi_id).ok()?;
        subs.push((id, layout.min_size));
    }
    let mut written = Written {
        samples: vec![Vec::new(); subs.len()],
        logged: Vec::new(),
    };
    w.start_data().ok()?;
    for op in &input.ops {
        match op {
            Op::Data {
                subscription,
                bytes,
            } => {
                if subs.is_empty() {
                    continue;
                }
                let i = usize::from(*subscription) % subs.len();
                let (id, size) = subs[i];
                let mut sample = bytes.clone();
                sample.resize(size, 0);
                w.write_data(id, &sample).ok()?;
                written.samples[i].push(sample);
            }
            Op::Log {
                level,
                timestamp,
                text,
            } => {
                let level = b'0' + level % 8;
                w.write_logging(level, *timestamp, text).ok()?;
                written
                    .logged
                    .push((level, *timestamp, text.as_bytes().to_vec()));
            }
            Op::Dropout(ms) => w.write_dropout(*ms).ok()?,
            Op::Sync => w.write_sync().ok()?,
            Op::Parameter(name, p) => w.add_parameter(name, &p.value()).ok()?,
        }
    }
    Some((w.finish().ok()?, written))
}

fuzz_target!(|input: Input| {
    let Some((mut file, written)) = write(&input) else {
        return;
    };
    if input.mutations.is_empty() {
        let log = ULog::parse(&file).expect("an unmutated log parses");
        assert!(!log.corrupt, "{:?}", log.warnings);
        assert_eq!(log.header.timestamp, input.start);
        assert_eq!(log.subscriptions.len(), written.samples.len());
        for (s, expected) in log.subscriptions.iter().zip(&written.samples) {
            let got: Vec<Vec<u8>> = s
                .samples
                .iter()
                .map(|x| x.data[..expected.first().map_or(0, Vec::len)].to_vec())
                .collect();
            assert_eq!(&got, expected, "samples of {}", s.name);
        }
        let logged: Vec<(u8, u64, Vec<u8>)> = log
            .logged_messages
            .iter()
            .map(|l| (l.level, l.timestamp, l.text.to_vec()))
            .collect();
        assert_eq!(logged, written.logged);
    }
    mutate(&mut file, &input.mutations);
    read::ulog(&file);
});
