//! `robolog.filter`: the engine of `robolog filter` (the facade's
//! [`plan_filter`] and [`filter_files_to`], with
//! [`robolog_sql::matching_messages`] evaluating `where` and `around`),
//! run without the GIL. The arguments are converted here; nothing else is
//! decided here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use logcore::LogReader;
use pyo3::exceptions::{PyFileExistsError, PyKeyError, PyValueError};
use pyo3::prelude::*;
use robolog::convert::{
    ConvertFileError, ConvertOptions, FilterSpec, MatchError, MessageKey, PlanError, Target,
    TopicPattern, filter_dry_run, filter_files_to, plan_filter,
};

use crate::errors::{Failure, changed_during, guarded, io_error};
use crate::interrupt;
use crate::times;

/// One topic's counts: (topic, written as, kept, kept bytes, dropped,
/// dropped bytes).
type Count = (String, String, u64, u64, u64, u64);

/// What the call gives back: (messages, channels, skipped, warnings,
/// counts per topic, the parts of a split output, what an anonymisation
/// changed).
type Report = (
    u64,
    u64,
    Vec<String>,
    Vec<String>,
    Vec<Count>,
    Vec<(String, u64)>,
    Vec<String>,
);

/// Why a filter did not run, before it is raised.
enum Refused {
    /// A topic or pattern that names nothing (`KeyError`).
    Key(String),
    /// An argument that does not hold (`ValueError`).
    Value(String),
    /// The conversion failed.
    Convert(ConvertFileError),
}

/// The messages of a topic where a SQL boolean expression holds.
fn matcher(log: &robolog::Log<'_>, topic: &str, expr: &str) -> Result<Vec<MessageKey>, MatchError> {
    robolog_sql::matching_messages(log, topic, expr).map_err(|e| match e {
        e @ robolog_sql::WhereError::Expression { .. } => MatchError::Expression(e.to_string()),
        e => MatchError::Read(e.to_string()),
    })
}

/// A size: an int of bytes, or a text with a unit (`"1GB"`, `"64MiB"`).
fn size_arg(v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u64>> {
    let Some(v) = v.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    let bad =
        || PyValueError::new_err("split_size: give bytes (an int) or a size (\"500MB\", \"1GB\")");
    if let Ok(n) = v.extract::<u64>() {
        return if n > 0 { Ok(Some(n)) } else { Err(bad()) };
    }
    let s: String = v.extract().map_err(|_| bad())?;
    robolog::convert::parse_size(&s).map(Some).ok_or_else(bad)
}

/// Whether `path` ends in the extension of a ULog file, CARLA recording
/// or VEL log (`.ulg`, `.log`, `.rec`, `.vel`).
fn own_extension(path: &Path) -> bool {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    [
        logcore::Format::ULog,
        logcore::Format::CarlaRecorder,
        logcore::Format::VelLog,
    ]
    .iter()
    .filter_map(|f| robolog::convert::own_format_extensions(*f))
    .flatten()
    .any(|e| ext.as_deref() == Some(*e))
}

/// The native part of robolog.filter.
#[pyfunction]
#[pyo3(signature = (src, dst = None, *, topics = None, exclude = None, r#where = None, around = None, before = None, after = None, start = None, end = None, shift = None, rename = None, force = false, dry_run = false, split_every = None, split_size = None, restamp = None, frame_id = None, anonymise = false, gps_offset = None, drop_text = false))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments
pub(crate) fn filter(
    py: Python<'_>,
    src: Vec<PathBuf>,
    dst: Option<PathBuf>,
    topics: Option<Vec<String>>,
    exclude: Option<Vec<String>>,
    r#where: Option<BTreeMap<String, String>>,
    around: Option<BTreeMap<String, String>>,
    before: Option<&Bound<'_, PyAny>>,
    after: Option<&Bound<'_, PyAny>>,
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
    shift: Option<&Bound<'_, PyAny>>,
    rename: Option<BTreeMap<String, String>>,
    force: bool,
    dry_run: bool,
    split_every: Option<&Bound<'_, PyAny>>,
    split_size: Option<&Bound<'_, PyAny>>,
    restamp: Option<String>,
    frame_id: Option<BTreeMap<String, String>>,
    anonymise: bool,
    gps_offset: Option<(f64, f64)>,
    drop_text: bool,
) -> PyResult<Report> {
    let restamp_header = match restamp.as_deref() {
        None => false,
        Some("header") => true,
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "restamp={other:?}: the only one is \"header\" (each message's header.stamp)"
            )));
        }
    };
    let duration = |v: Option<&Bound<'_, PyAny>>, what: &str, negative: bool| {
        v.filter(|v| !v.is_none())
            .map(|v| times::duration_ns(v, what, negative))
            .transpose()
            .map(Option::unwrap_or_default)
    };
    let spec = FilterSpec {
        exclude: exclude.unwrap_or_default(),
        rename: rename
            .unwrap_or_default()
            .into_iter()
            .map(|(a, b)| format!("{a}={b}"))
            .collect(),
        shift: duration(shift, "shift", true)?,
        wheres: r#where.unwrap_or_default().into_iter().collect(),
        around: around.unwrap_or_default().into_iter().collect(),
        before: duration(before, "before", false)?,
        after: duration(after, "after", false)?,
        split_every: split_every
            .filter(|v| !v.is_none())
            .map(|v| times::duration_ns(v, "split_every", false))
            .transpose()?,
        split_size: size_arg(split_size)?,
        restamp_header,
        frame_ids: frame_id
            .unwrap_or_default()
            .into_iter()
            .map(|(a, b)| format!("{a}={b}"))
            .collect(),
        anonymise: robolog::convert::Anonymise {
            positions: anonymise || gps_offset.is_some(),
            gps_offset,
            identifiers: anonymise,
            drop_text,
        },
    };
    let (start, end) = (
        times::time_arg(start, "start")?,
        times::time_arg(end, "end")?,
    );
    if src.is_empty() {
        return Err(PyValueError::new_err("src names no log"));
    }
    let target = match (&dst, dry_run) {
        (Some(d), _) => match Target::of(d) {
            Some(t) => Some(t),
            // A ULog file, CARLA recording or VEL log written in its own
            // format (the filter checks that it is one of them).
            None if own_extension(d) => None,
            None => {
                return Err(PyValueError::new_err(
                    "the output's extension chooses its format: end it in .mcap or .bag, give \
                     a folder name without extension for a ROS 2 bag, or .ulg, .log/.rec, .vel \
                     for a ULog file, CARLA recording or VEL log filtered into its own format",
                ));
            }
        },
        (None, true) => None,
        (None, false) => return Err(PyValueError::new_err("dst is needed unless dry_run=True")),
    };
    let topics = topics.unwrap_or_default();
    let file = src[0].display().to_string();
    let roots: Vec<&Path> = src.iter().map(PathBuf::as_path).collect();
    let done = changed_during(&roots, || {
        py.detach(|| {
            guarded(|| {
                Ok(run(
                    &src,
                    dst.as_deref(),
                    target,
                    topics,
                    (start, end),
                    &spec,
                    force,
                ))
            })
        })
    })
    .map_err(|f| f.into_py(py, Some(&file)))?;
    match done {
        Ok(report) => Ok(report),
        Err(Refused::Key(m)) => Err(PyKeyError::new_err(m)),
        Err(Refused::Value(m)) => Err(PyValueError::new_err(m)),
        Err(Refused::Convert(ConvertFileError::Convert(e))) => {
            Err(Failure::Log(e).into_py(py, Some(&file)))
        }
        Err(Refused::Convert(ConvertFileError::Refused(r))) => Err(PyFileExistsError::new_err(
            format!("{r}; not replaced (pass force=True to replace it)"),
        )),
        Err(Refused::Convert(ConvertFileError::Io(e))) => {
            let out = dst.map(|d| d.display().to_string());
            Err(io_error(&e, out.as_deref()))
        }
        Err(Refused::Convert(e @ ConvertFileError::Target(_))) => {
            Err(PyValueError::new_err(e.to_string()))
        }
    }
}

/// Opens the inputs, checks the patterns, plans the filter, then counts
/// (no `dst`: a dry run) or writes.
fn run(
    src: &[PathBuf],
    dst: Option<&Path>,
    target: Option<Target>,
    topics: Vec<String>,
    (start, end): (
        Option<logcore::timearg::TimeArg>,
        Option<logcore::timearg::TimeArg>,
    ),
    spec: &FilterSpec,
    force: bool,
) -> Result<Report, Refused> {
    let convert = |e: logcore::Error| Refused::Convert(ConvertFileError::Convert(e));
    let mut logs = Vec::with_capacity(src.len());
    for p in src {
        logs.push(robolog::open(p).map_err(convert)?);
    }
    let mut known: Vec<String> = Vec::new();
    for l in &logs {
        // A ULog file, CARLA recording or VEL log is filtered into its
        // own format, whose topics patterns select from.
        let own = robolog::convert::own_format_extensions(l.format()).is_some();
        let topics = if own {
            robolog::convert::filter_topics(l)
        } else {
            robolog::convert::topics(l)
        };
        for t in topics.map_err(convert)? {
            if !known.contains(&t) {
                known.push(t);
            }
        }
    }
    known.sort();
    for (what, patterns) in [("topics", &topics), ("exclude", &spec.exclude)] {
        for p in patterns {
            let pattern = TopicPattern::parse(p).map_err(|e| Refused::Value(e.to_string()))?;
            if !known.iter().any(|t| pattern.matches(t)) {
                return Err(Refused::Key(format!(
                    "{what}: {p} matches no topic; the topics: {}",
                    known.join(", ")
                )));
            }
        }
    }
    // Times resolve on the first input's clock, as `robolog filter` does.
    let mut opts = ConvertOptions {
        topics,
        ..ConvertOptions::default()
    };
    if start.is_some() || end.is_some() {
        let summary = logs[0].summary().map_err(convert)?;
        let (first, model) = (summary.start, &summary.time_model);
        let resolve =
            |t: Option<logcore::timearg::TimeArg>| t.map(|t| t.resolve(first, model)).transpose();
        opts.start = resolve(start).map_err(Refused::Value)?;
        opts.end = resolve(end).map_err(Refused::Value)?;
    }
    let refs: Vec<&robolog::Log<'_>> = logs.iter().collect();
    let filter = plan_filter(&refs, &known, spec, &matcher).map_err(|e| match e {
        PlanError::UnknownTopic { flag, topic } => Refused::Key(format!(
            "{}: no topic {topic}; the topics: {}",
            flag.trim_start_matches('-'),
            known.join(", ")
        )),
        PlanError::Usage(m) => Refused::Value(m.replacen("--", "", 1)),
        PlanError::Read { message, .. } => convert(logcore::Error::invalid_argument(message)),
    })?;
    let counts = filter_dry_run(&refs, &opts, &filter).map_err(convert)?;
    let counts: Vec<Count> = counts
        .into_iter()
        .map(|c| {
            (
                c.topic,
                c.written_as,
                c.kept,
                c.kept_bytes,
                c.dropped,
                c.dropped_bytes,
            )
        })
        .collect();
    if let ([log], Some(dst), true) = (
        refs.as_slice(),
        dst,
        robolog::convert::own_format_extensions(logs[0].format()).is_some(),
    ) {
        let stats = interrupt::watching(&[src[0].as_path()], || {
            robolog::convert::filter_own_format_to(
                log,
                &src[0],
                dst,
                &opts,
                &filter,
                force,
                &mut |_| interrupt::poll(),
            )
        })
        .map_err(Refused::Convert)?;
        return Ok((
            stats.messages,
            stats.channels,
            stats.skipped,
            stats.warnings,
            counts,
            stats
                .parts
                .into_iter()
                .map(|(p, n)| (p.display().to_string(), n))
                .collect(),
            stats.anonymised,
        ));
    }
    let (Some(dst), Some(target)) = (dst, target) else {
        let kept = counts.iter().map(|c| c.2).sum();
        return Ok((
            kept,
            0,
            Vec::new(),
            Vec::new(),
            counts,
            Vec::new(),
            Vec::new(),
        ));
    };
    // Chunks as `robolog filter` writes them by default: zstd in MCAP,
    // none in a bag or a ROS 2 bag's storage.
    if !matches!(target, Target::Mcap) {
        opts.compression = ConvertOptions::for_bag().compression;
    }
    let merged: Vec<(&robolog::Log<'_>, &Path)> = logs
        .iter()
        .zip(src)
        .map(|(l, p)| (l, p.as_path()))
        .collect();
    let stats = interrupt::watching(
        &src.iter().map(PathBuf::as_path).collect::<Vec<_>>(),
        || {
            filter_files_to(&merged, dst, target, &opts, &filter, force, &mut |_| {
                interrupt::poll()
            })
        },
    )
    .map_err(Refused::Convert)?;
    Ok((
        stats.messages,
        stats.channels,
        stats.skipped,
        stats.warnings,
        counts,
        stats
            .parts
            .into_iter()
            .map(|(p, n)| (p.display().to_string(), n))
            .collect(),
        stats.anonymised,
    ))
}
