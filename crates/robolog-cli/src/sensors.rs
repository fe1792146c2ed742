//! `robolog export LOG -o DIR --images | --points | --track FORMAT` and
//! `robolog export LOG --video OUT`: camera frames, point clouds, laser
//! scans and GPS tracks of a log as files, read through
//! [`robolog_sensors`].
//!
//! Every file goes through [`crate::write`]: written to a temporary file
//! renamed into place when complete (Ctrl-C leaves none behind), never
//! over an existing file without `--force`. Without `--force`, every
//! file's name is checked before any file is written: a track's and a
//! video's at once, a topic's frames by a pass over the message times (no
//! decoding) when the topic's folder exists already. A frame that does not
//! decode or cannot be stored is a problem: it is skipped, counted and
//! named on stderr, and the exit code is 1.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use logcore::{LogReader, MessageFilter, Summary, Timestamp};
use robolog::Log;
use robolog::write::OutputPolicy;
use robolog_sensors::{
    CloudOptions, Dtype, Image, ImageOptions, Kind, PixelOrder, Problem, Range, Sample,
    SensorTopic, clouds, images, sensor_topics, track,
};

use crate::context::Context;
use crate::progress::Progress;
use crate::timearg::TimeRangeArgs;
use crate::topics::{self, Scope};
use crate::{Failure, Outcome, output, write};

/// The sensor options of `robolog export`.
#[derive(Debug, Args, Default)]
pub(crate) struct SensorArgs {
    /// Camera frames as image files, one per message:
    /// DIR/<topic>/<log time in ns>.png (the topic's leading / dropped, its
    /// other / as folders; a second frame at the same time gets `-1`);
    /// every image topic, or the --topic ones. 8- and 16-bit frames keep
    /// their depth (16-bit depth stays a 16-bit PNG). Float depth (32FC1,
    /// metres by REP 118) becomes a 16-bit PNG in millimetres, the 16UC1
    /// convention (rounded; NaN, infinite, negative and over 65.535 m: 0,
    /// no reading). Other float and signed frames are skipped as problems.
    #[arg(long, conflicts_with_all = ["csv", "parquet", "align"])]
    images: bool,
    /// One image topic as an H.264 MP4 video at OUT (--topic needed when
    /// the log has several), encoded by the `ffmpeg` program (libx264,
    /// yuv420p), which must be installed; written to a temporary file
    /// beside OUT and renamed when complete. Odd widths and heights are
    /// padded with one black column or row (4:2:0 needs even sides); a
    /// frame of another size or pixel format than the first is skipped as
    /// a problem; float depth is converted as with --images.
    #[arg(long, value_name = "OUT", conflicts_with_all = ["csv", "parquet", "align", "images", "points", "track", "output"])]
    video: Option<PathBuf>,
    /// With --video: frames per second [default: the topic's mean message
    /// rate, (messages - 1) / (last time - first time), divided by --every;
    /// 30 when the topic has one message].
    #[arg(long, value_name = "F", requires = "video")]
    fps: Option<f64>,
    /// Point clouds and laser scans, one file per message:
    /// DIR/<topic>/<log time in ns>.pcd (PCD v0.7, binary unless --ascii)
    /// or .ply (binary little-endian), with every field the cloud has;
    /// every cloud and scan topic, or the --topic ones.
    #[arg(long, conflicts_with_all = ["csv", "parquet", "align"])]
    points: bool,
    /// GPS fixes, one file per position topic: DIR/<topic>.gpx, .geojson
    /// or .kml; every position topic, or the --topic ones. Messages
    /// without a fix are left out.
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with_all = ["csv", "parquet", "align"])]
    track: Option<TrackFormat>,
    /// The file format of --images: `png` (the default) or `jpg` (quality
    /// 95; 8-bit frames only: a 16-bit or float frame is skipped as a
    /// problem, never scaled); and of --points: `pcd` (the default) or
    /// `ply`. Both at once comma-separated (`--format jpg,ply`).
    #[arg(long, value_enum, value_name = "FORMAT", value_delimiter = ',')]
    format: Vec<FileFormat>,
    /// With --points: ASCII PCD (a line per point) instead of binary.
    #[arg(long, requires = "points")]
    ascii: bool,
    /// With --images, --video, --points or --track: only every N-th
    /// message of each topic within --start/--end (the first, the N+1-th,
    /// ...).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    every: Option<u64>,
}

/// The files of `--track`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TrackFormat {
    /// GPX 1.1.
    Gpx,
    /// GeoJSON.
    Geojson,
    /// KML 2.2.
    Kml,
}

/// The values of `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FileFormat {
    /// PNG images.
    Png,
    /// JPEG images.
    #[value(alias = "jpeg")]
    Jpg,
    /// PCD clouds.
    Pcd,
    /// PLY clouds.
    Ply,
}

impl SensorArgs {
    /// Whether a sensor export is asked for.
    pub(crate) fn any(&self) -> bool {
        self.images || self.video.is_some() || self.points || self.track.is_some()
    }

    /// Whether an option that needs a sensor export is given.
    pub(crate) fn any_option(&self) -> bool {
        !self.format.is_empty() || self.every.is_some()
    }
}

/// What is written of one topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Job {
    /// A file per frame.
    Images(FileFormat),
    /// A file per cloud; `true`: ASCII PCD.
    Points(FileFormat, bool),
    /// One track file.
    Track(TrackFormat),
}

/// What an export mode takes: its option, the kinds of topic it writes and
/// their name.
struct Mode {
    flag: &'static str,
    kinds: &'static [Kind],
    what: &'static str,
}

const IMAGES: Mode = Mode {
    flag: "--images",
    kinds: &[Kind::Image],
    what: "image",
};
const VIDEO: Mode = Mode {
    flag: "--video",
    kinds: &[Kind::Image],
    what: "image",
};
const POINTS: Mode = Mode {
    flag: "--points",
    kinds: &[Kind::Cloud, Kind::Scan],
    what: "point cloud or laser scan",
};
const TRACK: Mode = Mode {
    flag: "--track",
    kinds: &[Kind::Position],
    what: "position",
};

/// The inputs of a sensor export, as `robolog export` parsed them.
pub(crate) struct Request<'a> {
    pub(crate) inputs: &'a [PathBuf],
    pub(crate) output: Option<&'a Path>,
    pub(crate) topics: &'a [String],
    pub(crate) times: &'a TimeRangeArgs,
    pub(crate) force: bool,
    pub(crate) args: &'a SensorArgs,
}

/// `robolog export` with `--images`, `--video`, `--points` or `--track`.
pub(crate) fn run(ctx: &Context, req: &Request<'_>) -> Result<Outcome, Failure> {
    let path = &req.inputs[0];
    if req.inputs.len() > 1 {
        return Err(Failure::usage(
            &req.inputs[1],
            "a sensor export takes one log",
        ));
    }
    let args = req.args;
    let jobs = jobs(path, args)?;
    let policy = OutputPolicy::new(req.force).reading(path);
    if let Some(dest) = &args.video {
        write::check(dest, &policy)?;
        crate::video::find_ffmpeg(dest)?;
    }
    let dir = match (&args.video, req.output) {
        (Some(_), _) => None,
        (None, Some(dir)) => Some(dir),
        (None, None) => {
            return Err(Failure::usage(
                path,
                "give -o DIR, the folder to write into",
            ));
        }
    };
    let log = ctx.open(path)?;
    let summary = log.summary().map_err(|e| Failure::new(path, e))?;
    let mut range = Range {
        every: usize::try_from(args.every.unwrap_or(1)).unwrap_or(usize::MAX),
        ..Range::all()
    };
    req.times.resolve_times(
        || Ok((summary.start, summary.time_model)),
        |msg| Failure::usage(path, msg),
        &mut range.start,
        &mut range.end,
    )?;
    let sensors = sensor_topics(&log).map_err(|e| Failure::new(path, e))?;
    if let Some(dest) = &args.video {
        let picked = select(path, &summary, &sensors, req.topics, &[(&VIDEO, ())])?;
        if picked.len() > 1 {
            let msg = format!(
                "--video writes one image topic; give --topic, one of {}",
                quoted(picked.iter().map(|(t, _)| t.topic.as_str()))
            );
            return Err(Failure::usage(path, msg));
        }
        let topic = &picked[0].0.topic;
        let fps = args
            .fps
            .unwrap_or_else(|| mean_rate(&summary, topic, range.every));
        let total = expected(&summary, topic, range.every);
        return crate::video::write(ctx, path, &log, topic, &range, fps, total, dest, &policy);
    }
    let modes: Vec<(&Mode, Job)> = jobs
        .iter()
        .map(|&j| match j {
            Job::Images(_) => (&IMAGES, j),
            Job::Points(..) => (&POINTS, j),
            Job::Track(_) => (&TRACK, j),
        })
        .collect();
    let picked = select(path, &summary, &sensors, req.topics, &modes)?;
    let dir = dir.unwrap_or(Path::new("."));
    // Every name checked before anything is written.
    if !req.force {
        for (t, job) in &picked {
            check_names(path, &log, dir, &t.topic, *job, &range, &policy)?;
        }
    }
    let total = picked
        .iter()
        .map(|(t, _)| expected(&summary, &t.topic, range.every))
        .sum();
    let bar = Progress::items(total, "messages");
    let mut done = Vec::with_capacity(picked.len());
    for (t, job) in &picked {
        done.push(match *job {
            Job::Track(format) => write_track(path, &log, dir, &t.topic, format, &range, &policy)?,
            job => write_frames(path, &log, dir, &t.topic, job, &range, &policy, &bar)?,
        });
    }
    bar.finish();
    let mut outcome = Outcome::Clean;
    for ((t, job), written) in picked.iter().zip(&done) {
        if written.report(ctx, path, dir, &t.topic, *job) {
            outcome = Outcome::Damaged;
        }
    }
    Ok(outcome)
}

/// The jobs the options ask for, with the formats `--format` gives them.
fn jobs(path: &Path, args: &SensorArgs) -> Result<Vec<Job>, Failure> {
    let mut image = None;
    let mut points = None;
    for &f in &args.format {
        let (slot, on, flag) = match f {
            FileFormat::Png | FileFormat::Jpg => (&mut image, args.images, "--images"),
            FileFormat::Pcd | FileFormat::Ply => (&mut points, args.points, "--points"),
        };
        let name = f
            .to_possible_value()
            .map_or(String::new(), |v| v.get_name().to_string());
        if !on {
            return Err(Failure::usage(
                path,
                format!("--format {name} is a format of {flag}, which is not given"),
            ));
        }
        if slot.replace(f).is_some_and(|old| old != f) {
            return Err(Failure::usage(
                path,
                format!("--format gives {flag} two formats"),
            ));
        }
    }
    if args.ascii && points == Some(FileFormat::Ply) {
        return Err(Failure::usage(path, "--ascii is for PCD files, not PLY"));
    }
    let mut jobs = Vec::new();
    if args.images {
        jobs.push(Job::Images(image.unwrap_or(FileFormat::Png)));
    }
    if args.points {
        jobs.push(Job::Points(points.unwrap_or(FileFormat::Pcd), args.ascii));
    }
    if let Some(t) = args.track {
        jobs.push(Job::Track(t));
    }
    Ok(jobs)
}

/// `"/a", "/b"` (or `none`).
fn quoted<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let list: Vec<String> = names.map(|n| format!("{n:?}")).collect();
    if list.is_empty() {
        "none".into()
    } else {
        list.join(", ")
    }
}

/// The topics each mode writes: the `wanted` ones (each must be a topic of
/// the log, of a kind one of `modes` writes, and each mode must get one),
/// or without `wanted` every topic of the modes' kinds (each mode must
/// find one). Usage errors (exit 2) otherwise, naming the topics there
/// are.
fn select<J: Copy>(
    path: &Path,
    summary: &Summary,
    sensors: &[SensorTopic],
    wanted: &[String],
    modes: &[(&Mode, J)],
) -> Result<Vec<(SensorTopic, J)>, Failure> {
    let of = |m: &Mode| {
        sensors
            .iter()
            .filter(|t| m.kinds.contains(&t.kind))
            .collect::<Vec<_>>()
    };
    let mut picked = Vec::new();
    if wanted.is_empty() {
        for (m, job) in modes {
            let found = of(m);
            if found.is_empty() {
                let msg = format!("{}: the log has no {} topic", m.flag, m.what);
                return Err(Failure::usage(path, msg));
            }
            picked.extend(found.into_iter().map(|t| (t.clone(), *job)));
        }
        return Ok(picked);
    }
    let topics = summary.topics();
    for w in wanted {
        if !topics.iter().any(|t| &t.topic == w) {
            return Err(topics::unknown(
                path,
                w,
                topics.iter().map(|t| t.topic.as_str()),
                Scope::Log,
            ));
        }
        let sensor = sensors.iter().find(|t| &t.topic == w);
        match sensor.and_then(|s| modes.iter().find(|(m, _)| m.kinds.contains(&s.kind))) {
            Some((_, job)) => {
                if let Some(s) = sensor.filter(|s| !picked.iter().any(|(p, _)| p == *s)) {
                    picked.push((s.clone(), *job));
                }
            }
            None => {
                let type_name = topics
                    .iter()
                    .find(|t| &t.topic == w)
                    .and_then(|t| t.types.first())
                    .map_or("", String::as_str);
                let lists: Vec<String> = modes
                    .iter()
                    .map(|(m, _)| {
                        let names = of(m).into_iter().map(|t| t.topic.as_str());
                        format!("its {} topics (for {}): {}", m.what, m.flag, quoted(names))
                    })
                    .collect();
                let flags: Vec<&str> = modes.iter().map(|(m, _)| m.flag).collect();
                let msg = format!(
                    "--topic {w:?} holds {type_name}, which {} does not write; {}",
                    flags.join(" or "),
                    lists.join("; ")
                );
                return Err(Failure::usage(path, msg));
            }
        }
    }
    for (m, _) in modes {
        if !picked.iter().any(|(t, _)| m.kinds.contains(&t.kind)) {
            let names = of(m).into_iter().map(|t| t.topic.as_str());
            let msg = format!(
                "{}: no --topic given is a {} topic; the log's are {}",
                m.flag,
                m.what,
                quoted(names)
            );
            return Err(Failure::usage(path, msg));
        }
    }
    Ok(picked)
}

/// The relative path of a topic's files: the topic split at `/` into
/// folders (the leading `/` and empty parts dropped), each part a name
/// every file system takes: `.` and `..` as `_` and `__`, `\`, `:`, `*`,
/// `?`, `"`, `<`, `>`, `|` and control characters as `_`, longer names cut
/// by [`logcore::filename::shorten`]; a topic with no part is `_`.
pub(crate) fn topic_path(topic: &str) -> PathBuf {
    let mut path = PathBuf::new();
    for part in topic.split('/').filter(|p| !p.is_empty()) {
        let clean: String = match part {
            "." => "_".into(),
            ".." => "__".into(),
            p => p
                .chars()
                .map(|c| match c {
                    '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|' => '_',
                    c if c.is_control() => '_',
                    c => c,
                })
                .collect(),
        };
        path.push(logcore::filename::shorten(&clean, part));
    }
    if path.as_os_str().is_empty() {
        path.push("_");
    }
    path
}

/// The names of a topic's frame files: `<log time ns>.<ext>`, and for a
/// second (third, ...) frame at the same time `<ns>-1.<ext>`, ...
#[derive(Default)]
struct FrameNames {
    seen: HashMap<i64, u32>,
}

impl FrameNames {
    fn next(&mut self, t: Timestamp, ext: &str) -> String {
        let n = self.seen.entry(t.as_nanos()).or_insert(0);
        let name = match *n {
            0 => format!("{}.{ext}", t.as_nanos()),
            k => format!("{}-{k}.{ext}", t.as_nanos()),
        };
        *n += 1;
        name
    }
}

/// The extension of a job's files.
fn extension(job: Job) -> &'static str {
    match job {
        Job::Images(FileFormat::Jpg) => "jpg",
        Job::Images(_) => "png",
        Job::Points(FileFormat::Ply, _) => "ply",
        Job::Points(..) => "pcd",
        Job::Track(TrackFormat::Gpx) => "gpx",
        Job::Track(TrackFormat::Geojson) => "geojson",
        Job::Track(TrackFormat::Kml) => "kml",
    }
}

/// A track's file: DIR/<topic>.<ext>.
fn track_path(dir: &Path, topic: &str, job: Job) -> PathBuf {
    let mut p = dir.join(topic_path(topic)).into_os_string();
    p.push(".");
    p.push(extension(job));
    PathBuf::from(p)
}

/// Refuses (exit 2, naming the file) when a file this job would write
/// exists: a track's one file, or each frame's, found by a pass over the
/// topic's message times when its folder exists.
fn check_names(
    path: &Path,
    log: &Log<'_>,
    dir: &Path,
    topic: &str,
    job: Job,
    range: &Range,
    policy: &OutputPolicy,
) -> Result<(), Failure> {
    if let Job::Track(_) = job {
        return write::check(&track_path(dir, topic, job), policy);
    }
    let folder = dir.join(topic_path(topic));
    if !folder.is_dir() {
        return Ok(());
    }
    let channels = log
        .channels()
        .map_err(|e| Failure::new(path, e))?
        .into_iter()
        .filter(|c| c.topic == topic)
        .map(|c| c.id);
    let mut filter = MessageFilter::all().channels(channels);
    filter.start = range.start;
    filter.end = range.end;
    let mut names = FrameNames::default();
    let ext = extension(job);
    let messages = log.messages(&filter).map_err(|e| Failure::new(path, e))?;
    for (i, m) in messages.flatten().enumerate() {
        if i % range.every.max(1) == 0 {
            write::check(&folder.join(names.next(m.log_time, ext)), policy)?;
        }
    }
    Ok(())
}

/// The messages a topic is expected to give in the range (its count,
/// divided by `every`), for the progress bar.
fn expected(summary: &Summary, topic: &str, every: usize) -> u64 {
    let n: u64 = summary
        .channels
        .iter()
        .filter(|c| c.info.topic == topic)
        .map(|c| c.message_count)
        .sum();
    n.div_ceil(every.max(1) as u64)
}

/// The mean message rate of `topic` (Hz), divided by `every`: 30 with
/// fewer than two messages or no time between them.
fn mean_rate(summary: &Summary, topic: &str, every: usize) -> f64 {
    let topics = summary.topics();
    let Some(t) = topics.iter().find(|t| t.topic == topic) else {
        return 30.0;
    };
    match (t.start, t.end) {
        (Some(s), Some(e)) if t.message_count > 1 && e > s => {
            let secs = (e.as_nanos() - s.as_nanos()) as f64 / 1e9;
            (t.message_count - 1) as f64 / secs / every.max(1) as f64
        }
        _ => 30.0,
    }
}

/// What was written of one topic.
#[derive(Default)]
struct Written {
    /// Files written (frames, or the one track file).
    files: u64,
    /// Points of a track.
    points: usize,
    /// Messages skipped.
    skipped: u64,
    /// The first problem.
    first: Option<Problem>,
}

impl Written {
    /// Counts a problem.
    fn skip(&mut self, p: Problem) {
        self.skipped += 1;
        self.first.get_or_insert(p);
    }

    /// Prints the topic's summary line, and its problems on stderr; `true`
    /// when there were any.
    fn report(&self, ctx: &Context, path: &Path, dir: &Path, topic: &str, job: Job) -> bool {
        let ext = extension(job);
        match job {
            Job::Track(_) => output::print_line(format_args!(
                "{topic}: wrote {} ({} point{})",
                track_path(dir, topic, job).display(),
                self.points,
                plural(self.points as u64)
            )),
            _ => output::print_line(format_args!(
                "{topic}: wrote {} {ext} file{} in {}{}",
                self.files,
                plural(self.files),
                dir.join(topic_path(topic)).display(),
                match self.skipped {
                    0 => String::new(),
                    n => format!(", skipped {n} message{}", plural(n)),
                }
            )),
        }
        if let Some(first) = &self.first {
            ctx.report(
                path,
                format_args!(
                    "{topic}: {} message{} skipped; the first: {first}",
                    self.skipped,
                    plural(self.skipped)
                ),
            );
        }
        self.skipped > 0
    }
}

/// `s` unless `n` is 1.
pub(crate) fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A frame as PNG, JPEG and the video store it: 8- and 16-bit frames as
/// they are, float depth (one channel) as 16-bit millimetres (see
/// `--images`); other frames are refused with the reason.
pub(crate) fn storable(image: Image) -> Result<Image, String> {
    match image.dtype {
        Dtype::U8 | Dtype::U16 => Ok(image),
        Dtype::F32 | Dtype::F64 if image.order == PixelOrder::Mono => {
            let s = image.dtype.size();
            let mut data = Vec::with_capacity(image.data.len() / s * 2);
            for b in image.data.chunks_exact(s) {
                let metres = match b.try_into() {
                    Ok(b4) => f64::from(f32::from_le_bytes(b4)),
                    Err(_) => f64::from_le_bytes(b.try_into().unwrap_or([0; 8])),
                };
                let mm = (metres * 1000.0).round();
                let v = if (0.0..=65535.0).contains(&mm) {
                    mm as u16
                } else {
                    0
                };
                data.extend_from_slice(&v.to_le_bytes());
            }
            Ok(Image {
                dtype: Dtype::U16,
                data,
                ..image
            })
        }
        d => Err(format!(
            "a {}-channel {} frame is not written: PNG, JPEG and video hold unsigned 8- and \
             16-bit samples (and float depth, as millimetres)",
            image.channels(),
            dtype_name(d)
        )),
    }
}

/// A sample type in words.
fn dtype_name(d: Dtype) -> &'static str {
    match d {
        Dtype::U8 => "8-bit",
        Dtype::I8 => "signed 8-bit",
        Dtype::U16 => "16-bit",
        Dtype::I16 => "signed 16-bit",
        Dtype::U32 => "32-bit",
        Dtype::I32 => "signed 32-bit",
        Dtype::F32 => "float",
        Dtype::F64 => "double",
    }
}

/// The bytes of one image or cloud file, or why the message is skipped.
fn encode_image(image: Image, format: FileFormat) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    if format == FileFormat::Jpg {
        if image.dtype != Dtype::U8 {
            return Err(format!(
                "a {} frame is not written as JPEG, which holds 8-bit samples (use --format png)",
                dtype_name(image.dtype)
            ));
        }
        robolog_sensors::write::jpeg(&image, 95, &mut out).map_err(|e| e.to_string())?;
    } else {
        robolog_sensors::write::png(&storable(image)?, &mut out).map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// A decoded message waiting to be encoded into its file.
enum Decoded {
    /// A frame.
    Image(Image),
    /// A cloud or scan.
    Cloud(robolog_sensors::Cloud),
}

/// The bytes of the file of `d`, or why the message is skipped.
fn encode(d: Decoded, job: Job) -> Result<Vec<u8>, String> {
    match (d, job) {
        (Decoded::Image(image), Job::Images(format)) => encode_image(image, format),
        (Decoded::Cloud(cloud), Job::Points(format, ascii)) => {
            let mut out = Vec::new();
            match format {
                FileFormat::Ply => robolog_sensors::write::ply(&cloud, &mut out),
                _ => robolog_sensors::write::pcd(&cloud, ascii, &mut out),
            }
            .map_err(|e| e.to_string())?;
            Ok(out)
        }
        _ => Err("the message does not fit the export asked for".to_string()),
    }
}

/// Writes one file per message of an image or cloud topic into
/// DIR/<topic>/, named by log time. Messages are decoded in the log's
/// order and encoded a few at a time on the machine's cores (PNG and PCD
/// encoding is most of the work), then written in order: memory holds
/// two messages per core.
#[allow(clippy::too_many_arguments)]
fn write_frames(
    path: &Path,
    log: &Log<'_>,
    dir: &Path,
    topic: &str,
    job: Job,
    range: &Range,
    policy: &OutputPolicy,
    bar: &Progress,
) -> Result<Written, Failure> {
    let mut decoded: Box<dyn Iterator<Item = Result<Sample<Decoded>, Problem>>> = match job {
        Job::Images(_) => Box::new(
            images(log, topic, range, ImageOptions::default())
                .map_err(|e| Failure::new(path, e))?
                .map(|s| {
                    s.map(|s| Sample {
                        log_time: s.log_time,
                        value: Decoded::Image(s.value),
                    })
                }),
        ),
        Job::Points(..) => Box::new(
            clouds(log, topic, range, CloudOptions::default())
                .map_err(|e| Failure::new(path, e))?
                .map(|s| {
                    s.map(|s| Sample {
                        log_time: s.log_time,
                        value: Decoded::Cloud(s.value),
                    })
                }),
        ),
        Job::Track(_) => Box::new(std::iter::empty()),
    };
    let folder = dir.join(topic_path(topic));
    let ext = extension(job);
    let mut written = Written::default();
    let mut names = FrameNames::default();
    let batch = 2 * logcore::parallel::cores();
    loop {
        let taken: Vec<_> = decoded.by_ref().take(batch).collect();
        if taken.is_empty() {
            break;
        }
        let encoded = logcore::parallel::on_cores(
            taken,
            |_| 1,
            |item| {
                item.and_then(|s| match encode(s.value, job) {
                    Ok(value) => Ok(Sample {
                        log_time: s.log_time,
                        value,
                    }),
                    // A message whose data cannot be stored is a problem
                    // at its time.
                    Err(message) => Err(Problem {
                        topic: topic.to_string(),
                        log_time: Some(s.log_time),
                        message,
                    }),
                })
            },
        );
        for frame in encoded {
            bar.inc();
            let s = match frame {
                Ok(s) => s,
                Err(p) => {
                    // Its name stays taken, as the check of the names
                    // counted it.
                    if let Some(t) = p.log_time {
                        names.next(t, ext);
                    }
                    written.skip(p);
                    continue;
                }
            };
            let dest = folder.join(names.next(s.log_time, ext));
            if written.files == 0 {
                std::fs::create_dir_all(&folder).map_err(|e| Failure::new(&folder, e))?;
            }
            write::write_output(&dest, policy, |f| f.write_all(&s.value))?;
            written.files += 1;
        }
    }
    Ok(written)
}

/// Writes a position topic's fixes as one track file, DIR/<topic>.<ext>,
/// named inside by the topic.
fn write_track(
    path: &Path,
    log: &Log<'_>,
    dir: &Path,
    topic: &str,
    format: TrackFormat,
    range: &Range,
    policy: &OutputPolicy,
) -> Result<Written, Failure> {
    let (fixes, problems) = track(log, topic, range).map_err(|e| Failure::new(path, e))?;
    let dest = track_path(dir, topic, Job::Track(format));
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Failure::new(parent, e))?;
    }
    write::write_output(&dest, policy, |f| match format {
        TrackFormat::Gpx => robolog_sensors::write::gpx(topic, &fixes, f),
        TrackFormat::Geojson => robolog_sensors::write::geojson(topic, &fixes, f),
        TrackFormat::Kml => robolog_sensors::write::kml(topic, &fixes, f),
    })?;
    let mut written = Written {
        files: 1,
        points: fixes.len(),
        ..Written::default()
    };
    for p in problems {
        written.skip(p);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_become_relative_paths_that_stay_inside_the_folder() {
        assert_eq!(
            topic_path("/spot/camera/image"),
            Path::new("spot/camera/image")
        );
        assert_eq!(topic_path("scan"), Path::new("scan"));
        assert_eq!(topic_path("//a//b/"), Path::new("a/b"));
        assert_eq!(topic_path("/../x/./y"), Path::new("__/x/_/y"));
        assert_eq!(topic_path("/a:b\\c\u{1b}"), Path::new("a_b_c_"));
        assert_eq!(topic_path("/"), Path::new("_"));
        let long = format!("/{}", "a".repeat(300));
        assert_eq!(topic_path(&long).as_os_str().len(), 200);
    }

    #[test]
    fn frames_at_the_same_time_get_numbered_names() {
        let mut n = FrameNames::default();
        assert_eq!(n.next(Timestamp(5), "png"), "5.png");
        assert_eq!(n.next(Timestamp(6), "png"), "6.png");
        assert_eq!(n.next(Timestamp(5), "png"), "5-1.png");
        assert_eq!(n.next(Timestamp(5), "png"), "5-2.png");
    }

    #[test]
    fn float_depth_is_stored_as_millimetres() {
        let metres = [
            0.0f32,
            1.2344,
            4.82,
            f32::NAN,
            -1.0,
            65.5354,
            65.6,
            f32::INFINITY,
        ];
        let image = Image {
            width: 8,
            height: 1,
            order: PixelOrder::Mono,
            dtype: Dtype::F32,
            data: metres.iter().flat_map(|m| m.to_le_bytes()).collect(),
        };
        let mm = storable(image).unwrap();
        assert_eq!(mm.dtype, Dtype::U16);
        let v: Vec<u16> = mm
            .data
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(v, [0, 1234, 4820, 0, 0, 65535, 0, 0]);
        let signed = Image {
            width: 1,
            height: 1,
            order: PixelOrder::Mono,
            dtype: Dtype::I16,
            data: vec![0, 0],
        };
        let why = storable(signed).unwrap_err();
        assert!(
            why.starts_with("a 1-channel signed 16-bit frame is not written"),
            "{why}"
        );
    }
}
