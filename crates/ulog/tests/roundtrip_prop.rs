//! Properties of write-then-read for any log: read(write(x)) == x for
//! samples, logged strings and parameters, and every prefix of a written
//! file reads back exactly the samples and logged strings of the messages
//! that end before the cut.
//!
//! Truncation semantics: a cut inside the 16-byte file header is an error;
//! a later cut parses, and the model holds every message that ends at or
//! before the cut (the one cut through is dropped; the log is not marked
//! corrupt for it). A cut inside the definitions section loses the formats
//! after it, so samples are checked for cuts after the last subscription.

use proptest::prelude::*;
use ulogfile::records::InfoValue;
use ulogfile::{ULog, Writer};

const FORMATS: [&str; 2] = [
    "imu:uint64_t timestamp;float[3] acc;uint8_t flags;",
    "pos:uint64_t timestamp;double x;int16_t[2] q;",
];
const SIZES: [usize; 2] = [21, 20];

#[derive(Debug, Clone)]
enum Op {
    Data(usize, Vec<u8>),
    Log(u8, u64, String),
}

#[derive(Debug, Clone)]
struct Log {
    start: u64,
    params: Vec<(String, i32)>,
    subscriptions: Vec<usize>,
    ops: Vec<Op>,
}

fn logs() -> impl Strategy<Value = Log> {
    let op = prop_oneof![
        (0..4usize, prop::collection::vec(any::<u8>(), 21)).prop_map(|(s, b)| Op::Data(s, b)),
        (0..8u8, any::<u64>(), "[ -~]{0,20}").prop_map(|(l, t, s)| Op::Log(b'0' + l, t, s)),
    ];
    (
        any::<u64>(),
        prop::collection::btree_map("[A-Z_]{1,16}", any::<i32>(), 0..4),
        prop::collection::vec(0..2usize, 1..4),
        prop::collection::vec(op, 0..24),
    )
        .prop_map(|(start, params, subscriptions, ops)| Log {
            start,
            params: params.into_iter().collect(),
            subscriptions,
            ops,
        })
}

/// The file and, per subscription, its samples as written.
fn write(log: &Log) -> (Vec<u8>, Vec<Vec<Vec<u8>>>) {
    let mut w = Writer::new(Vec::new(), log.start).unwrap();
    w.sync_interval = 5;
    for (name, v) in &log.params {
        w.add_parameter(name, &InfoValue::Int(i64::from(*v)))
            .unwrap();
    }
    for f in FORMATS {
        w.add_format(f).unwrap();
    }
    let mut ids = Vec::new();
    for (multi, &f) in log.subscriptions.iter().enumerate() {
        let name = &FORMATS[f][..3];
        ids.push((w.add_subscription(name, multi as u8).unwrap(), SIZES[f]));
    }
    let mut samples = vec![Vec::new(); ids.len()];
    for op in &log.ops {
        match op {
            Op::Data(s, bytes) => {
                let s = s % ids.len();
                let (id, size) = ids[s];
                w.write_data(id, &bytes[..size]).unwrap();
                samples[s].push(bytes[..size].to_vec());
            }
            Op::Log(level, t, text) => w.write_logging(*level, *t, text).unwrap(),
        }
    }
    (w.finish().unwrap(), samples)
}

fn logged(log: &ULog<'_>) -> Vec<(u8, u64, Vec<u8>)> {
    log.logged_messages
        .iter()
        .map(|l| (l.level, l.timestamp, l.text.to_vec()))
        .collect()
}

fn samples(log: &ULog<'_>) -> Vec<Vec<Vec<u8>>> {
    log.subscriptions
        .iter()
        .map(|s| s.samples.iter().map(|x| x.data.to_vec()).collect())
        .collect()
}

/// Message (start, end, type) after the header, by walking the framing.
fn framing(file: &[u8]) -> Vec<(usize, usize, u8)> {
    let mut at = 16;
    let mut out = Vec::new();
    while at + 3 <= file.len() {
        let size = usize::from(u16::from_le_bytes([file[at], file[at + 1]]));
        out.push((at, at + 3 + size, file[at + 2]));
        at += 3 + size;
    }
    assert_eq!(at, file.len());
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn read_of_write_is_identity(log in logs()) {
        let (file, written) = write(&log);
        let read = ULog::parse(&file).unwrap();
        prop_assert!(!read.corrupt);
        prop_assert_eq!(read.header.timestamp, log.start);
        prop_assert_eq!(samples(&read), written);
        let expected: Vec<(u8, u64, Vec<u8>)> = log.ops.iter().filter_map(|op| match op {
            Op::Log(l, t, s) => Some((*l, *t, s.as_bytes().to_vec())),
            Op::Data(..) => None,
        }).collect();
        prop_assert_eq!(logged(&read), expected);
        let params: Vec<(String, Option<f64>)> = read
            .initial_parameters
            .iter()
            .map(|(k, v)| (k.to_string(), v.as_f64()))
            .collect();
        let expected: Vec<(String, Option<f64>)> =
            log.params.iter().map(|(k, v)| (k.clone(), Some(f64::from(*v)))).collect();
        prop_assert_eq!(params, expected);
    }

    #[test]
    fn every_prefix_reads_the_messages_before_the_cut(log in logs()) {
        let (file, _) = write(&log);
        let full = ULog::parse(&file).unwrap();
        let (all_samples, all_logged) = (samples(&full), logged(&full));
        let frames = framing(&file);
        let last_def = frames.iter().rposition(|f| f.2 == b'A').map_or(16, |i| frames[i].1);
        for cut in 0..=file.len() {
            let prefix = &file[..cut];
            let parsed = ULog::parse(prefix);
            if cut < 16 {
                prop_assert!(parsed.is_err(), "cut {}", cut);
                continue;
            }
            if cut < last_def {
                continue;
            }
            let read = parsed.unwrap();
            // Count, per kind, the messages complete before the cut.
            let complete: Vec<&(usize, usize, u8)> =
                frames.iter().filter(|f| f.1 <= cut).collect();
            let n_logged = complete.iter().filter(|f| f.2 == b'L').count();
            prop_assert_eq!(&logged(&read)[..], &all_logged[..n_logged], "cut {}", cut);
            let n_data = complete.iter().filter(|f| f.2 == b'D').count();
            let got = samples(&read);
            prop_assert_eq!(got.iter().map(Vec::len).sum::<usize>(), n_data, "cut {}", cut);
            for (g, a) in got.iter().zip(&all_samples) {
                prop_assert_eq!(&g[..], &a[..g.len()], "cut {}", cut);
            }
        }
    }
}
