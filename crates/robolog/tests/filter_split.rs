//! Split outputs of a filter (`Filter::split_every`, `Filter::split_size`)
//! on a corpus bag with latched topics (`rosbagjs-example.bag`: a latched
//! `/tf_static` and latched `/rosout` connections; skipped without the
//! corpus): each part holds the input's messages of its interval, after
//! the last message before its start of every latched connection; the
//! parts merged back by `convert_files_to` (the merge of `robolog
//! convert`) are the input's messages, message for message (topic, log
//! time, bytes), plus those repeated latched messages.
#![cfg(all(feature = "rosbag", feature = "mcap"))]

mod common;

use std::path::{Path, PathBuf};

use logcore::{ChannelInfo, LogReader, MessageFilter, ReadMode};
use robolog::convert::{
    ConvertFileError, ConvertOptions, Filter, Target, convert_files_to, filter_files_to, is_latched,
};

/// A message as the checks compare it: topic, log time, payload.
type Msg = (String, i64, Vec<u8>);

/// A new, empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("robolog-split-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every message of the log at `path`, in the reader's order, with its
/// channel when that is latched.
fn messages(path: &Path) -> Vec<(Msg, Option<u64>)> {
    let log = robolog::open(path).unwrap();
    let channels: Vec<ChannelInfo> = log.channels().unwrap();
    let of = |id| channels.iter().find(|c| c.id == id).unwrap();
    log.messages(&MessageFilter::all().mode(ReadMode::Strict))
        .unwrap()
        .map(|m| {
            let m = m.unwrap();
            let c = of(m.channel);
            (
                (c.topic.clone(), m.log_time.as_nanos(), m.payload.to_vec()),
                is_latched(c).then_some(u64::from(m.channel.0)),
            )
        })
        .collect()
}

fn sorted(mut v: Vec<Msg>) -> Vec<Msg> {
    v.sort();
    v
}

/// The latched messages a part starting at `start` carries: the last one
/// before it of each latched connection of `input`.
fn carried(input: &[(Msg, Option<u64>)], start: i64) -> Vec<Msg> {
    let mut last: std::collections::BTreeMap<u64, Msg> = Default::default();
    for (m, latched) in input {
        if let Some(c) = latched
            && m.1 < start
        {
            last.insert(*c, m.clone());
        }
    }
    last.into_values().collect()
}

/// Splits the corpus bag into `target` parts every 5 s, checks each part
/// and the merge of the parts.
fn split_and_merge_back(target: Target, ext: &str) {
    let Some(dir) = common::corpus("rosbag") else {
        eprintln!("skipped: no corpus");
        return;
    };
    let input = dir.join("rosbagjs-example.bag");
    let out = scratch(ext);
    let log = robolog::open(&input).unwrap();
    let mut filter = Filter::new();
    filter
        .keep_latched(true)
        .split_every(5_000_000_000)
        .unwrap();
    let opts = ConvertOptions {
        compression: mcapfile::Compression::None,
        ..ConvertOptions::default()
    };
    let base = out.join(format!("split.{ext}"));
    let stats = filter_files_to(
        &[(&log, &input)],
        &base,
        target,
        &opts,
        &filter,
        false,
        &mut |_| {},
    )
    .unwrap();
    assert!(!base.exists(), "the unsplit name is not written");
    let parts: Vec<PathBuf> = stats.parts.iter().map(|(p, _)| p.clone()).collect();
    assert_eq!(parts.len(), 5, "{parts:?}");
    assert_eq!(parts[1], out.join(format!("split_001.{ext}")));

    let all = messages(&input);
    let t0 = all.iter().map(|(m, _)| m.1).min().unwrap();
    let every = 5_000_000_000i64;
    // Each part: the carried latched messages, then the messages of its
    // interval.
    let mut expected_merge: Vec<Msg> = all.iter().map(|(m, _)| m.clone()).collect();
    for (k, part) in parts.iter().enumerate() {
        let (lo, hi) = (t0 + k as i64 * every, t0 + (k as i64 + 1) * every);
        let own: Vec<Msg> = all
            .iter()
            .filter(|(m, _)| m.1 >= lo && m.1 < hi)
            .map(|(m, _)| m.clone())
            .collect();
        let first = own.iter().map(|m| m.1).min().unwrap();
        let carry = if k == 0 {
            Vec::new()
        } else {
            carried(&all, first)
        };
        assert!(k == 0 || !carry.is_empty(), "part {k} carries /tf_static");
        assert!(carry.iter().any(|m| m.0 == "/tf_static") || k == 0);
        let got: Vec<Msg> = messages(part).into_iter().map(|(m, _)| m).collect();
        assert_eq!(got.len() as u64, stats.parts[k].1);
        // The carried messages come first, at their own times.
        assert_eq!(
            sorted(got[..carry.len()].to_vec()),
            sorted(carry.clone()),
            "part {k}"
        );
        assert_eq!(
            sorted(got),
            sorted([carry.clone(), own].concat()),
            "part {k}"
        );
        expected_merge.extend(carry);
    }

    // The parts merged back.
    let parts_logs: Vec<robolog::Log<'_>> =
        parts.iter().map(|p| robolog::open(p).unwrap()).collect();
    let inputs: Vec<(&robolog::Log<'_>, &Path)> = parts_logs
        .iter()
        .zip(&parts)
        .map(|(l, p)| (l, p.as_path()))
        .collect();
    let merged = out.join(format!("merged.{ext}"));
    convert_files_to(&inputs, &merged, target, &opts, false, &mut |_| {}).unwrap();
    let got: Vec<Msg> = messages(&merged).into_iter().map(|(m, _)| m).collect();
    assert_eq!(sorted(got), sorted(expected_merge));

    // A second run is refused before anything is written; with force it
    // replaces the parts and removes those of the first run it does not
    // write again.
    let again = filter_files_to(
        &[(&log, &input)],
        &base,
        target,
        &opts,
        &filter,
        false,
        &mut |_| {},
    );
    assert!(
        matches!(again, Err(ConvertFileError::Refused(_))),
        "{again:?}"
    );
    let mut fewer = Filter::new();
    fewer.split_every(10_000_000_000).unwrap();
    let stats = filter_files_to(
        &[(&log, &input)],
        &base,
        target,
        &opts,
        &fewer,
        true,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(stats.parts.len(), 3);
    assert!(!out.join(format!("split_003.{ext}")).exists());
    assert!(!out.join(format!("split_004.{ext}")).exists());
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn bag_parts_merge_back_to_the_input() {
    split_and_merge_back(Target::Bag, "bag");
}

#[test]
fn mcap_parts_merge_back_to_the_input() {
    split_and_merge_back(Target::Mcap, "mcap");
}

#[test]
fn size_parts_hold_at_least_a_time_each_and_an_input_is_never_a_part() {
    let Some(dir) = common::corpus("rosbag") else {
        eprintln!("skipped: no corpus");
        return;
    };
    let input = dir.join("rosbagjs-example.bag");
    let out = scratch("size");
    let log = robolog::open(&input).unwrap();
    let mut filter = Filter::new();
    filter.keep_latched(true).split_size(200_000).unwrap();
    let base = out.join("s.mcap");
    let stats = filter_files_to(
        &[(&log, &input)],
        &base,
        Target::Mcap,
        &ConvertOptions::default(),
        &filter,
        false,
        &mut |_| {},
    )
    .unwrap();
    assert!(stats.parts.len() > 1);
    let all = messages(&input);
    let mut own_times = Vec::new();
    let mut last_end = i64::MIN;
    for (part, _) in &stats.parts {
        let got = messages(part);
        let times: Vec<i64> = got
            .iter()
            .map(|(m, _)| m.1)
            .filter(|&t| t > last_end)
            .collect();
        // Parts never share a log time.
        assert!(times.iter().all(|&t| t > last_end));
        last_end = *times.iter().max().unwrap();
        own_times.extend(times);
    }
    let mut want: Vec<i64> = all.iter().map(|(m, _)| m.1).collect();
    want.sort();
    own_times.sort();
    assert_eq!(own_times, want);

    // A part name that is an input (a link to it) is refused, even forced.
    #[cfg(unix)]
    {
        let link = out.join("t_002.bag");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        let r = filter_files_to(
            &[(&log, &input)],
            &out.join("t.bag"),
            Target::Bag,
            &ConvertOptions::for_bag(),
            &filter,
            true,
            &mut |_| {},
        );
        assert!(matches!(r, Err(ConvertFileError::Refused(_))), "{r:?}");
        assert!(!out.join("t_000.bag").exists());
    }
    std::fs::remove_dir_all(&out).unwrap();
}
