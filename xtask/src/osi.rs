//! OSI trace checks (ASAM OSI 3.8.0 multi-channel traces: OSI over MCAP)
//! against the reference Python tools, run as `cargo xtask osi interop`.
//!
//! The Python side (asam-osi-utilities 0.4.0 with osi-python 3.8.0, pinned
//! in [`PACKAGES`], installed into the shared interop venv) does two jobs:
//!
//! - `xtask/pytests/osi_generate.py`: synthetic but realistic OSI 3.8.0 messages (GroundTruth,
//!   SensorView, HostVehicleData, SensorViewConfiguration), written as
//!   multi-channel traces by `osi_utilities.MultiTraceWriter` (compression
//!   none, lz4, zstd), plus per type a `.osi` file (u32 LE length-prefixed
//!   messages), a `.desc` file (the type's FileDescriptorSet with all
//!   imports) and `manifest.json` saying what was written ([`generate`]);
//! - pytest's `xtask/pytests/test_osi_interop.py` (with `osi_read.py`):
//!   reads MCAP files with `osi_utilities.MultiTraceReader` (both decoder
//!   modes: the precompiled `osi3` classes and the FileDescriptorSet
//!   embedded in the file), cross-checked with osi-python's `OSITrace`, a
//!   test per file, and records what it saw ([`python_read`]).
//!
//! The check itself: the Python round trip works by itself (generated traces
//! read back as the manifest says), the reader handles the reference
//! writer's corpus traces, and [`check_ours`] compares our validator and
//! writer with both.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::Result;
use crate::python::Venv;

/// The pinned Python packages. asam-osi-utilities imports `osi3` from
/// osi-python without declaring it; the rest are the exact versions pip
/// resolves for these two, and the pins the other checks install into the
/// same venv (`mcap`, `zstandard`, `lz4`, `typing-extensions` via rosbags).
pub(crate) const PACKAGES: [&str; 9] = [
    "pytest",
    "asam-osi-utilities",
    "osi-python",
    "mcap-protobuf-support",
    "protobuf",
    "mcap",
    "zstandard",
    "lz4",
    "typing-extensions",
];

/// What `generate` wrote, from its `manifest.json`.
pub(crate) struct Generated {
    /// The multi-channel traces written by `MultiTraceWriter`: one per
    /// chunk compression (none, lz4, zstd), all with the same messages.
    pub(crate) traces: Vec<PathBuf>,
    /// Messages in each trace (the same in all).
    pub(crate) trace_messages: usize,
    /// The `net.asam.osi.trace` record written into each trace.
    pub(crate) file_metadata: BTreeMap<String, String>,
    /// One entry per OSI top-level type, each one channel in every trace.
    pub(crate) types: Vec<GeneratedType>,
}

/// One OSI top-level type written by `generate`.
pub(crate) struct GeneratedType {
    /// Schema name, e.g. `osi3.SensorView`.
    pub(crate) full_name: String,
    /// The messages in order, each preceded by its u32 LE length.
    pub(crate) osi_file: PathBuf,
    /// The serialized `google.protobuf.FileDescriptorSet` of the type's
    /// file with all transitive imports, in dependency order.
    pub(crate) desc_file: PathBuf,
    /// The type's channel topic in the traces.
    pub(crate) topic: String,
    /// `3.8.0`.
    pub(crate) osi_version: String,
    /// The installed Python protobuf version, e.g. `7.36.2`.
    pub(crate) protobuf_version: String,
    /// Whether the type has a `timestamp` field (all but
    /// SensorViewConfiguration).
    pub(crate) has_timestamp: bool,
    /// The channel's metadata in the traces (the three
    /// `net.asam.osi.trace.channel.*` keys).
    pub(crate) channel_metadata: BTreeMap<String, String>,
    /// Each message's timestamp `(seconds, nanos)`: the expected
    /// publish_time; `(0, 0)` for a type without timestamp (what the
    /// library writes as publish_time and log_time then).
    pub(crate) timestamps: Vec<(i64, u32)>,
    /// SHA-256 (hex) of each serialized message.
    pub(crate) sha256: Vec<String>,
}

impl GeneratedType {
    /// The expected publish_time of message `i` in ns.
    pub(crate) fn publish_time(&self, i: usize) -> Option<u64> {
        let (s, n) = *self.timestamps.get(i)?;
        u64::try_from(s)
            .ok()?
            .checked_mul(1_000_000_000)?
            .checked_add(u64::from(n))
    }
}

/// What the Python `read` mode saw, per file in the order given.
pub(crate) struct PythonRead {
    pub(crate) files: Vec<PyFile>,
}

impl PythonRead {
    /// The entry for `path` (as passed to [`python_read`]).
    pub(crate) fn file(&self, path: &Path) -> Option<&PyFile> {
        self.files.iter().find(|f| f.path == path)
    }
}

/// One MCAP file as read by asam-osi-utilities.
pub(crate) struct PyFile {
    pub(crate) path: PathBuf,
    /// Header library and profile.
    pub(crate) library: String,
    pub(crate) profile: String,
    /// Every Metadata record: (name, key/values), in file order.
    pub(crate) metadata_records: Vec<(String, BTreeMap<String, String>)>,
    /// The `net.asam.osi.trace` record when there is exactly one.
    pub(crate) file_metadata: Option<BTreeMap<String, String>>,
    /// Channels by topic, from the summary.
    pub(crate) channels: BTreeMap<String, PyChannel>,
    /// Every message, in the reader's order (log time).
    pub(crate) messages: Vec<PyMessage>,
}

/// A channel as asam-osi-utilities sees it.
pub(crate) struct PyChannel {
    /// Schema name (`None`: schema id 0).
    pub(crate) schema: Option<String>,
    pub(crate) message_encoding: String,
    pub(crate) metadata: BTreeMap<String, String>,
    /// Whether `MultiTraceReader.list_channel_specifications()` lists it
    /// (schema name `osi3.<one of the ten top-level types>`).
    pub(crate) osi: bool,
    /// Messages osi-python's `OSITrace` reads from it (OSI channels only).
    pub(crate) osi3trace_messages: Option<usize>,
}

/// One message as asam-osi-utilities sees it.
pub(crate) struct PyMessage {
    pub(crate) topic: String,
    pub(crate) schema: Option<String>,
    pub(crate) log_time: u64,
    pub(crate) publish_time: u64,
    pub(crate) sequence: u32,
    /// SHA-256 (hex) of the record's data bytes.
    pub(crate) raw_sha256: String,
    /// Whether `MultiTraceReader` decoded it as an OSI message.
    pub(crate) osi: bool,
    /// SHA-256 of the message decoded with the precompiled `osi3` classes
    /// and re-serialized by Python (`SerializeToString`).
    pub(crate) data_sha256: Option<String>,
    /// The same, decoded with the FileDescriptorSet in the file's schema
    /// (`None` when that failed).
    pub(crate) contained_sha256: Option<String>,
    /// The message's `timestamp` `(seconds, nanos)`, when it has one.
    pub(crate) timestamp: Option<(i64, u32)>,
}

/// Runs `xtask/pytests/osi_generate.py` into `dir` (emptied first) and
/// returns its manifest, with paths made absolute.
pub(crate) fn generate(venv: &Venv, dir: &Path) -> Result<Generated> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let out = venv
        .script("osi_generate.py")
        .arg(dir)
        .output()
        .map_err(|e| format!("python: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "python osi generate failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let m: Json = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let bad = |what: &str| format!("{}: bad or missing {what}", path.display());
    let mut traces = Vec::new();
    let mut trace_messages = None;
    for t in m["traces"].as_array().ok_or_else(|| bad("traces"))? {
        traces.push(dir.join(t["file"].as_str().ok_or_else(|| bad("traces[].file"))?));
        let n = t["messages"]
            .as_u64()
            .ok_or_else(|| bad("traces[].messages"))? as usize;
        if trace_messages.is_some_and(|m| m != n) {
            return Err(bad("traces[].messages (differ between traces)"));
        }
        trace_messages = Some(n);
    }
    let mut types = Vec::new();
    for t in m["types"].as_array().ok_or_else(|| bad("types"))? {
        let s = |k: &str| {
            t[k].as_str()
                .map(str::to_string)
                .ok_or_else(|| bad(&format!("types[].{k}")))
        };
        let mut timestamps = Vec::new();
        for ts in t["timestamps"]
            .as_array()
            .ok_or_else(|| bad("timestamps"))?
        {
            timestamps.push(seconds_nanos(&ts[0], &ts[1]).ok_or_else(|| bad("timestamps[]"))?);
        }
        let sha256 = t["sha256"]
            .as_array()
            .ok_or_else(|| bad("sha256"))?
            .iter()
            .map(|h| {
                h.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| bad("sha256[]"))
            })
            .collect::<Result<Vec<_>>>()?;
        types.push(GeneratedType {
            full_name: s("full_name")?,
            osi_file: dir.join(s("osi_file")?),
            desc_file: dir.join(s("desc_file")?),
            topic: s("topic")?,
            osi_version: s("osi_version")?,
            protobuf_version: s("protobuf_version")?,
            has_timestamp: t["has_timestamp"]
                .as_bool()
                .ok_or_else(|| bad("has_timestamp"))?,
            channel_metadata: string_map(&t["channel_metadata"])
                .ok_or_else(|| bad("channel_metadata"))?,
            timestamps,
            sha256,
        });
    }
    Ok(Generated {
        traces,
        trace_messages: trace_messages.ok_or_else(|| bad("traces"))?,
        file_metadata: string_map(&m["file_metadata"]).ok_or_else(|| bad("file_metadata"))?,
        types,
    })
}

/// The messages of a single-channel `.osi` file: each preceded by its
/// length as u32 little-endian. A cut length or message is an error.
pub(crate) fn read_osi_file(path: &Path) -> Result<Vec<Vec<u8>>> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut rest = bytes.as_slice();
    let mut out = Vec::new();
    while !rest.is_empty() {
        let Some((len, tail)) = rest.split_first_chunk::<4>() else {
            return Err(format!(
                "{}: truncated length prefix after {} messages",
                path.display(),
                out.len()
            ));
        };
        let len = u32::from_le_bytes(*len) as usize;
        if tail.len() < len {
            return Err(format!(
                "{}: message {} declares {len} bytes, {} left",
                path.display(),
                out.len(),
                tail.len()
            ));
        }
        let (msg, tail) = tail.split_at(len);
        out.push(msg.to_vec());
        rest = tail;
    }
    Ok(out)
}

/// Reads `files` (MCAP) with asam-osi-utilities' `MultiTraceReader`
/// (pytest's `test_osi_interop.py`, a test per file); any Python error (a
/// file it cannot open, a message it cannot decode) is an error here.
pub(crate) fn python_read(venv: &Venv, files: &[PathBuf]) -> Result<PythonRead> {
    let dir = crate::root().join("target/osi-interop");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // Each test named by the file's folder and name.
    let entries: Vec<Json> = files
        .iter()
        .map(|f| {
            let name = |p: &Path| p.file_name().unwrap_or_default().to_string_lossy().into_owned();
            let folder = f.parent().map(name).unwrap_or_default();
            serde_json::json!({"id": format!("{folder}/{}", name(f)), "file": f.display().to_string()})
        })
        .collect();
    let records = venv
        .pytest("test_osi_interop.py")
        .manifest(
            &dir.join("manifest.json"),
            &serde_json::json!({"entries": entries}),
        )?
        .run()?;
    let mut read = PythonRead { files: Vec::new() };
    for v in records
        .iter()
        .flat_map(|r| r["lines"].as_array().into_iter().flatten())
    {
        let bad = || format!("python output: unexpected line {v}");
        let path = PathBuf::from(v["path"].as_str().ok_or_else(bad)?);
        match v["kind"].as_str() {
            Some("file") => {
                let mut metadata_records = Vec::new();
                for r in v["metadata_records"].as_array().ok_or_else(bad)? {
                    let name = r["name"].as_str().ok_or_else(bad)?.to_string();
                    metadata_records.push((name, string_map(&r["data"]).ok_or_else(bad)?));
                }
                let mut channels = BTreeMap::new();
                for (topic, c) in v["channels"].as_object().ok_or_else(bad)? {
                    let channel = PyChannel {
                        schema: c["schema"].as_str().map(str::to_string),
                        message_encoding: c["message_encoding"]
                            .as_str()
                            .ok_or_else(bad)?
                            .to_string(),
                        metadata: string_map(&c["metadata"]).ok_or_else(bad)?,
                        osi: c["osi"].as_bool().ok_or_else(bad)?,
                        osi3trace_messages: c["osi3trace_messages"].as_u64().map(|n| n as usize),
                    };
                    channels.insert(topic.clone(), channel);
                }
                read.files.push(PyFile {
                    path,
                    library: v["library"].as_str().unwrap_or_default().to_string(),
                    profile: v["profile"].as_str().unwrap_or_default().to_string(),
                    metadata_records,
                    file_metadata: string_map(&v["file_metadata"]),
                    channels,
                    messages: Vec::new(),
                });
            }
            Some("message") => {
                let file = read
                    .files
                    .last_mut()
                    .filter(|f| f.path == path)
                    .ok_or_else(bad)?;
                let text = |k: &str| v[k].as_str().map(str::to_string);
                file.messages.push(PyMessage {
                    topic: text("topic").ok_or_else(bad)?,
                    schema: text("schema"),
                    log_time: v["log_time"].as_u64().ok_or_else(bad)?,
                    publish_time: v["publish_time"].as_u64().ok_or_else(bad)?,
                    sequence: v["sequence"]
                        .as_u64()
                        .and_then(|s| u32::try_from(s).ok())
                        .ok_or_else(bad)?,
                    raw_sha256: text("raw_sha256").ok_or_else(bad)?,
                    osi: v["osi"].as_bool().ok_or_else(bad)?,
                    data_sha256: text("data_sha256"),
                    contained_sha256: text("contained_sha256"),
                    timestamp: seconds_nanos(&v["seconds"], &v["nanos"]),
                });
            }
            _ => return Err(bad()),
        }
    }
    for f in files {
        if read.file(f).is_none() {
            return Err(format!("python osi read: no output for {}", f.display()));
        }
    }
    Ok(read)
}

/// `cargo xtask osi interop [--corpus DIR]`.
pub(crate) fn cmd(args: &[String]) -> Result {
    match args.first().map(String::as_str) {
        Some("interop") | None => interop(crate::opt(args, "--corpus")),
        Some(other) => Err(format!(
            "unknown `osi` subcommand `{other}`; try `cargo xtask osi interop`"
        )),
    }
}

/// The whole check: Python round trip, the reader on the reference
/// writer's corpus traces, then ours against both ([`check_ours`]).
fn interop(corpus: Option<&str>) -> Result {
    let venv = Venv::with(&PACKAGES)?;
    let dir = crate::root().join("target/osi-interop");
    let generated = generate(&venv, &dir.join("python"))?;
    let mut failures = Vec::new();
    check_generated_files(&generated, &mut failures)?;
    let read = python_read(&venv, &generated.traces)?;
    for trace in &generated.traces {
        match read.file(trace) {
            Some(f) => {
                failures.extend(consistency(f));
                failures.extend(matches_manifest(f, &generated));
            }
            None => failures.push(format!("{}: not read back", trace.display())),
        }
    }
    eprintln!(
        "xtask: osi: asam-osi-utilities wrote {} traces ({} messages each, types {}) and read them back",
        generated.traces.len(),
        generated.trace_messages,
        generated
            .types
            .iter()
            .map(|t| t.full_name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    if let Some(corpus) = crate::corpus::locate(corpus)? {
        check_corpus(&venv, &corpus.join("osi-mcap"), &mut failures)?;
    }
    check_ours(&venv, &generated, &dir.join("ours"), &mut failures)?;
    crate::verdict("osi interop", &failures)
}

/// Our side: the validator passes the reference writer's traces (no
/// errors, every message checked), and traces written by
/// [`osi_mcap::writer::OsiTraceWriter`] from the same `.osi` + `.desc` data
/// (none, lz4, zstd) pass our validator in both profiles and are read by
/// asam-osi-utilities (both decoder modes) and osi-python with identical
/// messages, times and metadata.
fn check_ours(
    venv: &Venv,
    generated: &Generated,
    dir: &Path,
    failures: &mut Vec<String>,
) -> Result {
    use mcapfile::Compression;
    use osi_mcap::validate::{Profile, ValidateOptions};
    use osi_mcap::writer::{ChannelSpec, OsiTraceWriter, TraceMetadata, TraceOptions};

    for t in &generated.traces {
        let bytes = std::fs::read(t).map_err(|e| format!("{}: {e}", t.display()))?;
        let opts = ValidateOptions {
            file_name: t.file_name().map(|n| n.to_string_lossy().into_owned()),
            ..ValidateOptions::default()
        };
        let r = osi_mcap::validate(&bytes, &opts);
        if !r.passed()
            || r.profile != Profile::Osi38
            || r.messages_checked as usize != generated.trace_messages
        {
            failures.push(format!(
                "{}: our validator: profile {}, {} errors, {} of {} messages checked: {:?}",
                t.display(),
                r.profile,
                r.errors,
                r.messages_checked,
                generated.trace_messages,
                r.findings
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
            ));
        }
    }

    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut inputs = Vec::new();
    for t in &generated.types {
        let frames = read_osi_file(&t.osi_file)?;
        let desc =
            std::fs::read(&t.desc_file).map_err(|e| format!("{}: {e}", t.desc_file.display()))?;
        inputs.push((t, frames, desc));
    }
    let md = &generated.file_metadata;
    let mut ours = Vec::new();
    for compression in [Compression::None, Compression::Lz4, Compression::Zstd] {
        let metadata = TraceMetadata {
            zero_time_unix_ns: Some(1_717_425_483_535_904_000),
            creation_time_unix_ns: Some(1_735_787_045_000_000_000),
            description: md.get("description").cloned(),
            authors: md.get("authors").cloned(),
            data_sources: md.get("data_sources").cloned(),
            license: Some("CC0-1.0".into()),
            ..TraceMetadata::default()
        };
        let opts = TraceOptions {
            compression,
            metadata,
            ..TraceOptions::default()
        };
        let mut w = OsiTraceWriter::new(Vec::new(), opts).map_err(|e| e.to_string())?;
        let mut channels = Vec::new();
        for (t, _, desc) in &inputs {
            let mut spec = ChannelSpec::new(
                t.topic.clone(),
                t.full_name.clone(),
                desc.clone(),
                t.osi_version.clone(),
                t.protobuf_version.clone(),
            );
            spec.description = t
                .channel_metadata
                .get("net.asam.osi.trace.channel.description")
                .cloned();
            channels.push(
                w.add_channel(spec)
                    .map_err(|e| format!("{}: {e}", t.topic))?,
            );
        }
        let frames = inputs.iter().map(|(_, f, _)| f.len()).max().unwrap_or(0);
        for i in 0..frames {
            for ((t, msgs, _), ch) in inputs.iter().zip(&channels) {
                let Some(m) = msgs.get(i) else { continue };
                let written = if t.has_timestamp {
                    w.write(*ch, m).map(Some)
                } else {
                    let at = t.publish_time(i).unwrap_or(0);
                    w.write_at(*ch, at, m).map(|()| None)
                };
                match written {
                    Ok(ns) => {
                        if t.has_timestamp && ns != t.publish_time(i) {
                            failures.push(format!(
                                "{} message {i}: our writer took time {ns:?}, the manifest says {:?}",
                                t.topic,
                                t.publish_time(i)
                            ));
                        }
                    }
                    Err(e) => failures.push(format!("{} message {i}: our writer: {e}", t.topic)),
                }
            }
        }
        let name = w.trace_name(&format!("ours-{}", compression_name(compression)));
        let bytes = w.finish().map_err(|e| e.to_string())?;
        let path = dir.join(name.to_string());
        std::fs::write(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        for profile in [Profile::Osi38, Profile::Draft] {
            let r = osi_mcap::validate(
                &bytes,
                &ValidateOptions {
                    profile: Some(profile),
                    file_name: Some(name.to_string()),
                    ..ValidateOptions::default()
                },
            );
            let findings: Vec<String> = r
                .findings
                .iter()
                .filter(|f| f.level >= osi_mcap::validate::Level::Warning)
                .map(ToString::to_string)
                .collect();
            // Draft file names have no place for versions and counts, so
            // the 3.8.0 name is a draft-name error, and the draft admits no
            // SensorViewConfiguration channel; everything else must be clean.
            let relevant: Vec<&String> = findings
                .iter()
                .filter(|f| {
                    !(profile == Profile::Draft
                        && (f.contains("draft.file.name")
                            || f.contains("draft.channel.timestamp-type")))
                })
                .collect();
            if !relevant.is_empty() {
                failures.push(format!(
                    "{}: our validator ({profile}) on our trace: {relevant:?}",
                    path.display()
                ));
            }
        }
        ours.push(path);
    }
    let read = python_read(venv, &ours)?;
    for path in &ours {
        match read.file(path) {
            None => failures.push(format!("{}: not read by python", path.display())),
            Some(f) => {
                failures.extend(consistency(f));
                failures.extend(matches_ours(f, generated));
            }
        }
    }
    eprintln!(
        "xtask: osi: our validator passed {} asam-osi-utilities traces; {} traces written by us (none, lz4, zstd) were read by asam-osi-utilities and osi-python",
        generated.traces.len(),
        ours.len()
    );
    Ok(())
}

fn compression_name(c: mcapfile::Compression) -> &'static str {
    match c.name() {
        "" => "none",
        n => n,
    }
}

/// A trace written by us, as the Python tools read it, against the manifest.
fn matches_ours(f: &PyFile, g: &Generated) -> Vec<String> {
    let name = f.path.display();
    let mut out = Vec::new();
    match &f.file_metadata {
        None => out.push(format!("{name}: python sees no net.asam.osi.trace")),
        Some(m) => {
            for (k, v) in &g.file_metadata {
                let same = if k == "zero_time" || k == "creation_time" {
                    m.get(k).is_some()
                } else {
                    m.get(k) == Some(v)
                };
                if !same {
                    out.push(format!(
                        "{name}: file metadata {k} = {:?}, wanted {v:?}",
                        m.get(k)
                    ));
                }
            }
        }
    }
    for t in &g.types {
        let Some(c) = f.channels.get(&t.topic) else {
            out.push(format!("{name}: no channel {}", t.topic));
            continue;
        };
        let keys_ok = t
            .channel_metadata
            .iter()
            .all(|(k, v)| c.metadata.get(k) == Some(v));
        if c.schema.as_ref() != Some(&t.full_name) || !keys_ok || !c.osi {
            out.push(format!(
                "{name}: channel {}: schema {:?} metadata {:?} (osi: {})",
                t.topic, c.schema, c.metadata, c.osi
            ));
        }
        let got: Vec<&PyMessage> = f.messages.iter().filter(|m| m.topic == t.topic).collect();
        if got.len() != t.sha256.len() {
            out.push(format!(
                "{name}: channel {}: {} messages, wrote {}",
                t.topic,
                got.len(),
                t.sha256.len()
            ));
            continue;
        }
        for (i, m) in got.iter().enumerate() {
            let timestamp = t.has_timestamp.then_some(t.timestamps[i]);
            let decoded_same = m.data_sha256.as_ref() == Some(&t.sha256[i])
                && m.contained_sha256.as_ref() == Some(&t.sha256[i]);
            if m.timestamp != timestamp
                || Some(m.publish_time) != t.publish_time(i)
                || m.log_time != m.publish_time
                || m.raw_sha256 != t.sha256[i]
                || !decoded_same
            {
                out.push(format!(
                    "{name}: channel {} message {i}: timestamp {:?} publish_time {} log_time {}, decoded identically: {decoded_same}; wrote {:?}",
                    t.topic, m.timestamp, m.publish_time, m.log_time, t.timestamps[i]
                ));
            }
        }
    }
    out
}

/// The `.osi` and `.desc` files hold what the manifest says.
fn check_generated_files(generated: &Generated, failures: &mut Vec<String>) -> Result {
    for t in &generated.types {
        let frames = read_osi_file(&t.osi_file)?;
        if frames.len() != t.timestamps.len() || frames.len() != t.sha256.len() {
            failures.push(format!(
                "{}: {} messages, the manifest says {}",
                t.osi_file.display(),
                frames.len(),
                t.timestamps.len()
            ));
        }
        let desc =
            std::fs::read(&t.desc_file).map_err(|e| format!("{}: {e}", t.desc_file.display()))?;
        // Every file of the set is a length-delimited field 1 (tag 0x0a).
        if desc.first() != Some(&0x0a) {
            failures.push(format!(
                "{}: not a FileDescriptorSet",
                t.desc_file.display()
            ));
        }
        if t.osi_version != "3.8.0" || t.protobuf_version.split('.').count() != 3 {
            failures.push(format!(
                "{}: versions {} / {}",
                t.full_name, t.osi_version, t.protobuf_version
            ));
        }
    }
    Ok(())
}

/// What holds in every conforming trace read by Python: the required file
/// and channel keys, every OSI message decoded (also with the schema in the
/// file) to the same bytes, publish_time = log_time = OSI timestamp, and
/// osi-python's reader counting the same messages.
fn consistency(f: &PyFile) -> Vec<String> {
    let name = f.path.display();
    let mut out = Vec::new();
    let osi_records = f
        .metadata_records
        .iter()
        .filter(|(n, _)| n == "net.asam.osi.trace")
        .count();
    match &f.file_metadata {
        Some(m) if osi_records == 1 => {
            for k in [
                "version",
                "min_osi_version",
                "max_osi_version",
                "min_protobuf_version",
                "max_protobuf_version",
            ] {
                if !m.contains_key(k) {
                    out.push(format!("{name}: file metadata lacks `{k}`"));
                }
            }
        }
        _ => out.push(format!(
            "{name}: {osi_records} `net.asam.osi.trace` records, want 1"
        )),
    }
    for (topic, c) in &f.channels {
        let count = f.messages.iter().filter(|m| &m.topic == topic).count();
        if !c.osi || c.message_encoding != "protobuf" {
            out.push(format!("{name}: channel {topic} is not an OSI channel"));
            continue;
        }
        for k in ["osi_version", "protobuf_version"] {
            if !c
                .metadata
                .contains_key(&format!("net.asam.osi.trace.channel.{k}"))
            {
                out.push(format!("{name}: channel {topic} lacks the {k} key"));
            }
        }
        if c.osi3trace_messages != Some(count) {
            out.push(format!(
                "{name}: channel {topic}: osi-python reads {:?} messages, asam-osi-utilities {count}",
                c.osi3trace_messages
            ));
        }
    }
    for (i, m) in f.messages.iter().enumerate() {
        let what = format!("{name}: message {i} ({})", m.topic);
        let schema = f.channels.get(&m.topic).and_then(|c| c.schema.as_ref());
        if !m.osi || m.schema.as_ref() != schema {
            out.push(format!("{what}: not decoded as OSI ({:?})", m.schema));
            continue;
        }
        let raw = Some(&m.raw_sha256);
        if m.data_sha256.as_ref() != raw || m.contained_sha256.as_ref() != raw {
            out.push(format!(
                "{what}: re-serialized differently (precompiled {:?}, from the file's schema {:?})",
                m.data_sha256, m.contained_sha256
            ));
        }
        let has_timestamp = m.schema.as_deref() != Some("osi3.SensorViewConfiguration");
        let expected = match m.timestamp {
            Some((s, n)) => u64::try_from(s)
                .ok()
                .and_then(|s| s.checked_mul(1_000_000_000)?.checked_add(u64::from(n))),
            None => None,
        };
        if has_timestamp && expected != Some(m.publish_time) {
            out.push(format!(
                "{what}: publish_time {} for timestamp {:?}",
                m.publish_time, m.timestamp
            ));
        }
        if m.log_time != m.publish_time {
            out.push(format!(
                "{what}: log_time {} != publish_time {}",
                m.log_time, m.publish_time
            ));
        }
    }
    out
}

/// A trace written by `generate` reads back as its manifest says.
fn matches_manifest(f: &PyFile, g: &Generated) -> Vec<String> {
    let name = f.path.display();
    let mut out = Vec::new();
    if f.library != "osi-utilities-python" || !f.profile.is_empty() {
        out.push(format!(
            "{name}: header library {:?} profile {:?}",
            f.library, f.profile
        ));
    }
    if f.file_metadata.as_ref() != Some(&g.file_metadata) {
        out.push(format!(
            "{name}: file metadata {:?}, wrote {:?}",
            f.file_metadata, g.file_metadata
        ));
    }
    if f.messages.len() != g.trace_messages || f.channels.len() != g.types.len() {
        out.push(format!(
            "{name}: {} messages in {} channels, wrote {} in {}",
            f.messages.len(),
            f.channels.len(),
            g.trace_messages,
            g.types.len()
        ));
    }
    for t in &g.types {
        let Some(c) = f.channels.get(&t.topic) else {
            out.push(format!("{name}: no channel {}", t.topic));
            continue;
        };
        if c.schema.as_ref() != Some(&t.full_name) || c.metadata != t.channel_metadata {
            out.push(format!(
                "{name}: channel {}: schema {:?} metadata {:?}",
                t.topic, c.schema, c.metadata
            ));
        }
        let got: Vec<&PyMessage> = f.messages.iter().filter(|m| m.topic == t.topic).collect();
        if got.len() != t.timestamps.len() {
            out.push(format!(
                "{name}: channel {}: {} messages, wrote {}",
                t.topic,
                got.len(),
                t.timestamps.len()
            ));
            continue;
        }
        for (i, m) in got.iter().enumerate() {
            let timestamp = t.has_timestamp.then_some(t.timestamps[i]);
            if m.timestamp != timestamp
                || Some(m.publish_time) != t.publish_time(i)
                || m.raw_sha256 != t.sha256[i]
                || m.sequence != 0
            {
                out.push(format!(
                    "{name}: channel {} message {i}: timestamp {:?} publish_time {} sequence {}, wrote {:?}",
                    t.topic, m.timestamp, m.publish_time, m.sequence, t.timestamps[i]
                ));
            }
        }
    }
    out
}

/// The reader on the corpus traces: those of the reference writer
/// (`generated-asam-osi-utilities-0.4.0/`) must be fully consistent; the
/// others are only read (they are known to break rules: no metadata,
/// 1 ns timestamp rounding), with a summary line each.
fn check_corpus(venv: &Venv, dir: &Path, failures: &mut Vec<String>) -> Result {
    if !dir.is_dir() {
        eprintln!("xtask: osi: no {} in the corpus; skipped", dir.display());
        return Ok(());
    }
    let files = robolog_testkit::files_with_ext(dir, &["mcap"]);
    if files.is_empty() {
        return Ok(());
    }
    let read = python_read(venv, &files)?;
    for f in &read.files {
        let issues = consistency(f);
        let reference = f
            .path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|n| n == "generated-asam-osi-utilities-0.4.0");
        let name = f.path.file_name().unwrap_or_default().to_string_lossy();
        let ours = std::fs::read(&f.path).map(|b| {
            osi_mcap::validate(
                &b,
                &osi_mcap::validate::ValidateOptions {
                    file_name: Some(name.to_string()),
                    ..Default::default()
                },
            )
        });
        let verdict = match &ours {
            Ok(r) => format!(
                "{} ({} errors, {} warnings)",
                if r.passed() { "PASS" } else { "FAIL" },
                r.errors,
                r.warnings
            ),
            Err(e) => e.to_string(),
        };
        eprintln!(
            "xtask: osi: corpus {name}: our verdict {verdict}; python: {} messages in {} channels, {} consistency findings{}",
            f.messages.len(),
            f.channels.len(),
            issues.len(),
            issues
                .first()
                .map(|i| format!(" (first: {i})"))
                .unwrap_or_default()
        );
        if reference {
            failures.extend(issues);
        }
    }
    Ok(())
}

/// A JSON object of strings as a map; `None` for anything else.
fn string_map(v: &Json) -> Option<BTreeMap<String, String>> {
    v.as_object()?
        .iter()
        .map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
        .collect()
}

/// JSON `seconds`, `nanos` as an OSI timestamp; `None` when absent.
fn seconds_nanos(seconds: &Json, nanos: &Json) -> Option<(i64, u32)> {
    Some((seconds.as_i64()?, u32::try_from(nanos.as_u64()?).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osi_file_frames_and_truncation() {
        let dir = std::env::temp_dir().join(format!("xtask-osi-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.osi");
        std::fs::write(
            &path,
            b"\x02\x00\x00\x00ab\x00\x00\x00\x00\x01\x00\x00\x00c",
        )
        .unwrap();
        assert_eq!(
            read_osi_file(&path).unwrap(),
            vec![b"ab".to_vec(), Vec::new(), b"c".to_vec()]
        );
        std::fs::write(&path, b"\x02\x00\x00\x00ab\x03\x00\x00\x00cd").unwrap();
        assert!(read_osi_file(&path).unwrap_err().contains("message 1"));
        std::fs::write(&path, b"\x02\x00\x00\x00ab\x03\x00").unwrap();
        assert!(read_osi_file(&path).unwrap_err().contains("truncated"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn publish_time_from_timestamp() {
        let t = GeneratedType {
            full_name: "osi3.GroundTruth".into(),
            osi_file: PathBuf::new(),
            desc_file: PathBuf::new(),
            topic: "gt".into(),
            osi_version: "3.8.0".into(),
            protobuf_version: "7.36.2".into(),
            has_timestamp: true,
            channel_metadata: BTreeMap::new(),
            timestamps: vec![(0, 999_999_999), (1_700_000_000, 123_456_789), (-1, 0)],
            sha256: Vec::new(),
        };
        assert_eq!(t.publish_time(0), Some(999_999_999));
        assert_eq!(t.publish_time(1), Some(1_700_000_000_123_456_789));
        assert_eq!(t.publish_time(2), None);
        assert_eq!(t.publish_time(3), None);
    }
}
