//! The command-line tool's jobs as functions, with its options and
//! semantics, returning reports instead of exit codes: `robolog.check`,
//! `robolog.convert`, `robolog.export`. Each runs without the GIL.

use std::path::PathBuf;

use osi_mcap::validate::{Profile, ValidateOptions};
use pyo3::exceptions::{PyFileExistsError, PyKeyError, PyNotADirectoryError, PyValueError};
use pyo3::prelude::*;
use robolog::convert::{ConvertFileError, ConvertOptions, convert_file};
use robolog::export::{Csv, ExportError, ExportOptions, export_tables, ulog2csv};

use crate::errors::{Failure, changed_during, guarded, io_error};
use crate::interrupt;
use crate::log::limits;

/// Runs `f` without the GIL, a panic kept from Python.
fn run<T: Send, E: Send>(
    py: Python<'_>,
    f: impl FnOnce() -> Result<T, E> + Send,
) -> Result<Result<T, E>, Failure> {
    py.detach(|| guarded(|| Ok(f())))
}

/// The native part of robolog.check: (passed, errors, the report as
/// JSON text).
#[pyfunction]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments
#[pyo3(signature = (path, *, profile = None, max_per_rule = 20, strict_time = false, max_chunk_size = None, max_nesting = None, max_bag_expansion = None))]
pub(crate) fn check(
    py: Python<'_>,
    path: PathBuf,
    profile: Option<&str>,
    max_per_rule: usize,
    strict_time: bool,
    max_chunk_size: Option<u64>,
    max_nesting: Option<usize>,
    max_bag_expansion: Option<u64>,
) -> PyResult<(bool, Vec<String>, String)> {
    let profile = match profile {
        None => None,
        Some("osi-3.8") => Some(Profile::Osi38),
        Some("draft") => Some(Profile::Draft),
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "profile must be 'osi-3.8' or 'draft', not {other:?}"
            )));
        }
    };
    let opts = robolog::CheckOptions {
        rules: ValidateOptions {
            profile,
            file_name: path.file_name().map(|n| n.to_string_lossy().into_owned()),
            max_findings_per_rule: max_per_rule.max(1),
            strict_time,
            detect_non_osi: true,
        },
        limits: limits(max_chunk_size, max_nesting, max_bag_expansion)?,
    };
    let file = path.display().to_string();
    let checked = changed_during(&[path.as_path()], || {
        run(py, || robolog::check_path(&path, &opts))
    })
    .map_err(|f| f.into_py(py, Some(&file)))?
    .map_err(|e| Failure::Log(e).into_py(py, Some(&file)))?;
    Ok((
        checked.passed(),
        checked.errors(),
        checked.to_json(&file).to_string(),
    ))
}

/// The native part of robolog.convert: (messages, channels, skipped,
/// warnings).
#[pyfunction]
#[pyo3(signature = (src, dst, *, topics = None, start = None, end = None, compression = None, chunk_size = 1 << 20, force = false, ros2 = false, encoding = None, max_chunk_size = None, max_nesting = None, max_bag_expansion = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn convert(
    py: Python<'_>,
    src: PathBuf,
    dst: PathBuf,
    topics: Option<Vec<String>>,
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
    compression: Option<&str>,
    chunk_size: u64,
    force: bool,
    ros2: bool,
    encoding: Option<&str>,
    max_chunk_size: Option<u64>,
    max_nesting: Option<usize>,
    max_bag_expansion: Option<u64>,
) -> PyResult<(u64, u64, Vec<String>, Vec<String>)> {
    use mcapfile::Compression;
    let compression = match compression {
        None | Some("zstd") => Compression::Zstd,
        Some("lz4") => Compression::Lz4,
        Some("none") => Compression::None,
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "compression must be 'zstd', 'lz4' or 'none', not {other:?}"
            )));
        }
    };
    // The command's default: protobuf, which Foxglove and Rerun both show.
    let encoding = match encoding {
        None | Some("protobuf") => robolog::convert::Encoding::Protobuf,
        Some("json") => robolog::convert::Encoding::Json,
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "encoding must be 'protobuf' or 'json', not {other:?}"
            )));
        }
    };
    let (start, end) = (
        crate::times::time_arg(start, "start")?,
        crate::times::time_arg(end, "end")?,
    );
    let mut opts = ConvertOptions {
        compression,
        chunk_size: chunk_size.max(1),
        topics: topics.unwrap_or_default(),
        start: None,
        end: None,
        ros2,
        encoding,
    };
    let limits = limits(max_chunk_size, max_nesting, max_bag_expansion)?;
    let file = src.display().to_string();
    let out = dst.display().to_string();
    let written = changed_during(&[src.as_path()], || {
        run(py, || {
            let log = robolog::OpenOptions::new()
                .limits(limits)
                .open(&src)
                .map_err(ConvertFileError::Convert)?;
            if start.is_some() || end.is_some() {
                use logcore::LogReader;
                let summary = log.summary().map_err(ConvertFileError::Convert)?;
                let (first, model) = (summary.start, &summary.time_model);
                let resolve = |t: Option<logcore::timearg::TimeArg>| {
                    t.map(|t| t.resolve(first, model)).transpose()
                };
                match (resolve(start), resolve(end)) {
                    (Ok(s), Ok(e)) => (opts.start, opts.end) = (s, e),
                    (Err(e), _) | (_, Err(e)) => return Ok(Err(e)),
                }
            }
            if !opts.topics.is_empty() {
                let known = robolog::convert::topics(&log).map_err(ConvertFileError::Convert)?;
                // Names, globs and `re:` patterns, as `robolog convert --topic`.
                for t in &opts.topics {
                    let p = robolog::convert::TopicPattern::parse(t)
                        .map_err(ConvertFileError::Convert)?;
                    if !known.iter().any(|k| p.matches(k)) {
                        return Err(ConvertFileError::Convert(logcore::Error::InvalidArgument(
                            format!("no topic {t} in {file}; its topics: {}", known.join(", ")),
                        )));
                    }
                }
            }
            interrupt::watching(&[src.as_path()], || {
                convert_file(&log, &src, &dst, &opts, force, &mut |_| interrupt::poll())
            })
            .map(Ok)
        })
    });
    let written = written.map_err(|f| f.into_py(py, Some(&file)))?;
    match written {
        Ok(Ok(s)) => Ok((s.messages, s.channels, s.skipped, s.warnings)),
        Ok(Err(time)) => Err(PyValueError::new_err(time)),
        Err(ConvertFileError::Convert(logcore::Error::InvalidArgument(what))) => {
            Err(PyKeyError::new_err(what))
        }
        Err(ConvertFileError::Convert(e)) => Err(Failure::Log(e).into_py(py, Some(&file))),
        Err(ConvertFileError::Refused(r @ robolog::write::Refusal::NotABag { .. })) => {
            Err(PyFileExistsError::new_err(r.to_string()))
        }
        Err(ConvertFileError::Refused(r)) => Err(PyFileExistsError::new_err(format!(
            "{r}; not replaced (pass force=True to replace it)"
        ))),
        Err(ConvertFileError::Io(e)) => Err(io_error(&e, Some(&out))),
        Err(e @ ConvertFileError::Target(_)) => Err(PyValueError::new_err(e.to_string())),
    }
}

/// One exported table: (name, topic, type, path, rows, columns).
type Table = (String, String, String, String, u64, usize);

/// The native part of robolog.export: the tables written, and the
/// problems met (damage skipped, messages that did not decode).
#[pyfunction]
#[pyo3(signature = (src, dst, *, topics = None, force = false, max_array_columns = None, max_chunk_size = None, max_nesting = None, max_bag_expansion = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn export(
    py: Python<'_>,
    src: PathBuf,
    dst: PathBuf,
    topics: Option<Vec<String>>,
    force: bool,
    max_array_columns: Option<usize>,
    max_chunk_size: Option<u64>,
    max_nesting: Option<usize>,
    max_bag_expansion: Option<u64>,
) -> PyResult<(Vec<Table>, Vec<String>)> {
    let mut opts = ExportOptions {
        topics: topics.unwrap_or_default(),
        force,
        limits: limits(max_chunk_size, max_nesting, max_bag_expansion)?,
        ..ExportOptions::default()
    };
    if let Some(n) = max_array_columns {
        opts.max_array_columns = n;
    }
    let file = src.display().to_string();
    let exported = changed_during(&[src.as_path()], || {
        run(py, || {
            let log = robolog::OpenOptions::new()
                .limits(opts.limits)
                .open(&src)
                .map_err(ExportError::read(&src))?;
            interrupt::watching(&[src.as_path()], || {
                if log.as_ulog().is_some() {
                    ulog2csv(&log, &src, &dst, &opts, &mut |_| interrupt::poll())
                } else {
                    export_tables(&log, &src, &dst, &opts, &Csv, &mut |_| interrupt::poll())
                }
            })
        })
    });
    let exported = exported.map_err(|f| f.into_py(py, Some(&file)))?;
    match exported {
        Ok(e) => {
            let tables = e
                .tables
                .iter()
                .map(|t| {
                    (
                        t.name.clone(),
                        t.topic.clone(),
                        t.type_name.clone(),
                        t.path.display().to_string(),
                        t.rows,
                        t.columns,
                    )
                })
                .collect();
            let mut problems: Vec<String> = e.problems.iter().map(ToString::to_string).collect();
            for t in &e.tables {
                if let Some(u) = &t.first_undecoded {
                    problems.push(format!(
                        "{}: {} messages did not decode, the first at byte {}: {}",
                        t.topic, t.undecoded, u.offset, u.reason
                    ));
                }
            }
            Ok((tables, problems))
        }
        Err(e @ ExportError::UnknownTopic { .. }) => Err(PyKeyError::new_err(e.to_string())),
        Err(e @ ExportError::NotAFolder(_)) => Err(PyNotADirectoryError::new_err(e.to_string())),
        Err(ExportError::Refused(r)) => Err(PyFileExistsError::new_err(format!(
            "{r}; not replaced (pass force=True to replace it)"
        ))),
        Err(ExportError::Io { path, error }) => {
            Err(io_error(&error, Some(&path.display().to_string())))
        }
        Err(ExportError::Read { error, .. }) => Err(Failure::Log(error).into_py(py, Some(&file))),
        Err(e) => Err(PyValueError::new_err(e.to_string())),
    }
}
