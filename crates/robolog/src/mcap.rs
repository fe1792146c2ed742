//! `robolog mcap ...`: MCAP tools after the `mcap` CLI: `info` (from the
//! summary, like `mcap info`), `doctor` (the structural invariants),
//! `recover` (rebuild a damaged or unfinished file) and `compress`
//! (rewrite with another chunk compression).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use logcore::{Format, LogReader};
use osi_mcap::mcap::{Compression, DoctorOptions, Mcap, Severity, WriteOptions, doctor, recover};

use crate::output::{self, Out};
use crate::{Failure, Outcome, open, report};

/// The `robolog mcap` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum McapCommand {
    /// Like `mcap info`: library, profile, messages, chunks and compression
    /// ratios, duration, channels with counts, rates and schemas.
    Info(FileArg),
    /// Check the structural rules of the MCAP specification; exit 1 on errors.
    Doctor(DoctorArgs),
    /// Rebuild a valid, indexed file from a damaged or unfinished one.
    /// Exits like `mcap recover`: 0 when everything was recovered, 3 when
    /// data was lost but some was recovered, 1 when nothing could be.
    Recover(RewriteArgs),
    /// Rewrite a file with another chunk compression.
    Compress(RewriteArgs),
}

/// An MCAP file.
#[derive(Debug, Args)]
pub(crate) struct FileArg {
    /// The .mcap file.
    file: PathBuf,
}

/// Arguments of `robolog mcap doctor`.
#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    /// The .mcap file.
    file: PathBuf,
    /// Report decreasing log times as errors, not warnings.
    #[arg(long)]
    strict_message_order: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Codec {
    Zstd,
    Lz4,
    None,
}

/// Arguments of `robolog mcap recover` and `compress`.
#[derive(Debug, Args)]
pub(crate) struct RewriteArgs {
    /// The input file.
    input: PathBuf,
    /// The file to write.
    output: PathBuf,
    /// Chunk compression of the output.
    #[arg(long, value_enum, default_value = "zstd")]
    compression: Codec,
    /// Uncompressed chunk size of the output, in bytes.
    #[arg(long, default_value_t = 1 << 20)]
    chunk_size: u64,
}

pub(crate) fn run(cmd: &McapCommand) -> Result<Outcome, Failure> {
    match cmd {
        McapCommand::Info(a) => info(&a.file),
        McapCommand::Doctor(a) => run_doctor(a),
        McapCommand::Recover(a) => rewrite(a, true),
        McapCommand::Compress(a) => rewrite(a, false),
    }
}

fn open_mcap(path: &Path) -> Result<open::Opened, Failure> {
    let opened = open::open_file(path)?;
    if opened.format != Format::Mcap {
        return Err(Failure::new(
            path,
            logcore::Error::malformed(0, "an MCAP file", format!("a {} file", opened.format)),
        ));
    }
    Ok(opened)
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Failure + '_ {
    move |e| Failure::new(path, e)
}

fn secs(ns: u64) -> String {
    format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000)
}

fn info(path: &Path) -> Result<Outcome, Failure> {
    let opened = open_mcap(path)?;
    let mcap = Mcap::new(&opened.bytes).map_err(|e| Failure::new(path, e))?;
    let summary = mcap.summary().map_err(|e| Failure::new(path, e))?;
    let mut out = output::stdout();
    print_info(&mut out, &mcap, &summary).map_err(io(path))?;
    out.flush().map_err(io(path))?;
    for w in &summary.warnings {
        report(path, w);
    }
    Ok(if summary.warnings.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Damaged
    })
}

fn print_info(out: &mut Out, mcap: &Mcap<'_>, s: &logcore::Summary) -> std::io::Result<()> {
    let h = mcap.header();
    writeln!(out, "library:   {}", h.library)?;
    writeln!(out, "profile:   {}", h.profile)?;
    writeln!(out, "messages:  {}", s.message_count)?;
    let (start, end) = (
        s.start.map_or(0, |t| t.as_nanos() as u64),
        s.end.map_or(0, |t| t.as_nanos() as u64),
    );
    writeln!(
        out,
        "duration:  {}",
        logcore::time::format_duration(s.duration_ns())
    )?;
    let date =
        |ns: u64| logcore::time::format_unix(logcore::Timestamp(ns as i64)).unwrap_or_default();
    writeln!(out, "start:     {} ({})", date(start), secs(start))?;
    writeln!(out, "end:       {} ({})", date(end), secs(end))?;
    if let Some(sum) = mcap.mcap_summary() {
        let mut by: BTreeMap<&str, (u64, u64, u64, u64, u64)> = BTreeMap::new();
        for ci in &sum.chunk_indexes {
            let e = by.entry(ci.compression.as_str()).or_default();
            e.0 += 1;
            e.1 = e.1.saturating_add(ci.compressed_size);
            e.2 = e.2.saturating_add(ci.uncompressed_size);
            e.3 = e.3.max(ci.uncompressed_size);
            e.4 = e.4.max(ci.compressed_size);
        }
        if !by.is_empty() {
            writeln!(out, "compression:")?;
            let dur = s.duration_ns().max(1) as f64 / 1e9;
            for (c, (n, comp, unc, _, _)) in &by {
                let name = if c.is_empty() { "none" } else { c };
                let ratio = if *unc == 0 {
                    0.0
                } else {
                    100.0 * (1.0 - *comp as f64 / *unc as f64)
                };
                writeln!(
                    out,
                    "\t{name}: [{n}/{} chunks] [{unc} B/{comp} B ({ratio:.2}%)] [{:.2} KiB/sec]",
                    sum.chunk_indexes.len(),
                    *comp as f64 / 1024.0 / dur
                )?;
            }
            let max_unc = by.values().map(|v| v.3).max().unwrap_or(0);
            let max_comp = by.values().map(|v| v.4).max().unwrap_or(0);
            let mut ranges: Vec<(u64, u64)> = sum
                .chunk_indexes
                .iter()
                .map(|c| (c.message_start_time, c.message_end_time))
                .collect();
            ranges.sort();
            let overlaps = ranges.windows(2).any(|w| w[1].0 <= w[0].1);
            writeln!(out, "chunks:")?;
            writeln!(out, "\tmax uncompressed size: {max_unc} B")?;
            writeln!(out, "\tmax compressed size: {max_comp} B")?;
            writeln!(out, "\toverlaps: {}", if overlaps { "yes" } else { "no" })?;
        }
    }
    writeln!(out, "channels:")?;
    for c in &s.channels {
        let schema = c
            .info
            .schema
            .as_ref()
            .map_or("<no schema>".to_string(), |sc| {
                format!("{} [{}]", sc.name, sc.encoding)
            });
        let hz = if s.duration_ns() > 0 {
            format!(
                " @ {:.2} Hz",
                c.message_count as f64 * 1e9 / s.duration_ns() as f64
            )
        } else {
            String::new()
        };
        writeln!(
            out,
            "\t({}) {}  {} msgs{hz} : {schema}",
            c.info.id, c.info.topic, c.message_count
        )?;
    }
    let (atts, metas) = match mcap.mcap_summary() {
        Some(sum) => (sum.attachment_indexes.len(), sum.metadata_indexes.len()),
        None => (
            s.metadata
                .get("attachments")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0),
            0,
        ),
    };
    writeln!(out, "channels: {}", s.channels.len())?;
    writeln!(out, "attachments: {atts}")?;
    writeln!(out, "metadata: {metas}")
}

fn run_doctor(a: &DoctorArgs) -> Result<Outcome, Failure> {
    let opened = open_mcap(&a.file)?;
    let findings = doctor(
        &opened.bytes,
        DoctorOptions {
            strict_message_order: a.strict_message_order,
        },
    );
    let mut out = output::stdout();
    for f in &findings {
        output::line(&mut out, &f.to_string()).map_err(io(&a.file))?;
    }
    out.flush().map_err(io(&a.file))?;
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    if errors > 0 {
        eprintln!(
            "robolog: {}: {errors} errors, {} warnings",
            a.file.display(),
            findings.len() - errors
        );
        Ok(Outcome::Damaged)
    } else {
        Ok(Outcome::Clean)
    }
}

fn rewrite(a: &RewriteArgs, recovering: bool) -> Result<Outcome, Failure> {
    let opened = open_mcap(&a.input)?;
    let opts = WriteOptions {
        compression: match a.compression {
            Codec::Zstd => Compression::Zstd,
            Codec::Lz4 => Compression::Lz4,
            Codec::None => Compression::None,
        },
        chunk_size: a.chunk_size.max(1),
        ..WriteOptions::default()
    };
    let file = std::fs::File::create(&a.output).map_err(|e| Failure::new(&a.output, e))?;
    let sink = std::io::BufWriter::new(file);
    let (sink, rep) = recover(&opened.bytes, sink, opts).map_err(|e| Failure::new(&a.output, e))?;
    sink.into_inner()
        .map_err(|e| Failure::new(&a.output, e.into_error()))?;
    eprintln!(
        "robolog: {}: wrote {} messages, {} attachments, {} metadata records to {}",
        a.input.display(),
        rep.messages,
        rep.attachments,
        rep.metadata,
        a.output.display()
    );
    for p in &rep.problems {
        report(&a.input, p);
    }
    if !recovering {
        return Ok(if rep.problems.is_empty() {
            Outcome::Clean
        } else {
            Outcome::Damaged
        });
    }
    // `mcap recover`'s statuses: 0 everything, 3 lossy, 1 nothing. A
    // missing summary or footer alone is not a loss (it is rebuilt).
    if !rep.lossy {
        return Ok(Outcome::Clean);
    }
    if rep.is_empty() {
        eprintln!("robolog: {}: nothing could be recovered", a.input.display());
        return Ok(Outcome::Damaged);
    }
    eprintln!(
        "robolog: {}: recovered partially; some data was lost",
        a.input.display()
    );
    Ok(Outcome::PartlyRecovered)
}
