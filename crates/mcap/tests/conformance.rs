//! The official MCAP conformance suite (`<corpus>/mcap-conformance/data/<Input>/<variant>.{mcap,json}`;
//! its README explains the JSON) against `mcapfile`: the streamed reader on
//! every input, the indexed reader on the inputs the suite runs it on, the
//! writer on every unpadded input (byte for byte), and the streamed reader
//! on every prefix of every input. Each case is compared structurally
//! (parsed JSON values), not as text. Skipped when the corpus is absent.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mcapfile::{IndexFilter, LinearReader, ReadOptions, Record, Summary};
use serde_json::{Value as Json, json};

/// A check's outcome: what failed, in words.
type Result<T = ()> = std::result::Result<T, String>;

#[test]
fn the_conformance_suite_passes() {
    if robolog_testkit::corpus("mcap-conformance").is_none() {
        return;
    }
    if let Err(e) = conformance(&robolog_testkit::corpus_root()) {
        panic!("{e}");
    }
}

fn cases(dir: &Path) -> Result<Vec<PathBuf>> {
    let data = dir.join("mcap-conformance/data");
    let mut out = Vec::new();
    let inputs = std::fs::read_dir(&data).map_err(|e| format!("{}: {e}", data.display()))?;
    for input in inputs.flatten() {
        let Ok(files) = std::fs::read_dir(input.path()) else {
            continue;
        };
        for f in files.flatten() {
            let p = f.path();
            if p.extension().is_some_and(|e| e == "mcap") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Runs the streamed reader on every input, the indexed reader on the
/// inputs the suite runs it on, the writer on every unpadded input, and
/// the streamed reader on every prefix of every input; every case must pass.
fn conformance(dir: &Path) -> Result {
    let cases = cases(dir)?;
    if cases.is_empty() {
        return Err(format!(
            "no MCAP conformance inputs under {}",
            dir.display()
        ));
    }
    let mut failures = Vec::new();
    let (mut streamed_ok, mut indexed_ok, mut indexed_total) = (0, 0, 0);
    let (mut extra_ok, mut extra_total) = (0, 0);
    let (mut writer_ok, mut writer_total, mut prefix_ok) = (0, 0, 0);
    for mcap in &cases {
        let name = mcap
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let expected: Json = read_json(&mcap.with_extension("json"))?;
        let bytes = std::fs::read(mcap).map_err(|e| format!("{}: {e}", mcap.display()))?;
        match streamed(&bytes) {
            Ok(records) if Some(&records) == expected.get("records") => streamed_ok += 1,
            Ok(records) => failures.push(format!(
                "{name} (streamed): got {}",
                diff_hint(&records, expected.get("records"))
            )),
            Err(e) => failures.push(format!("{name} (streamed): {e}")),
        }
        if let Err(e) = prefixes(&bytes, &expected) {
            failures.push(format!("{name} (truncated): {e}"));
        } else {
            prefix_ok += 1;
        }
        let features: Vec<&str> = expected["meta"]["variant"]["features"]
            .as_array()
            .map(|a| a.iter().filter_map(Json::as_str).collect())
            .unwrap_or_default();
        if !features.contains(&"pad") {
            writer_total += 1;
            match write_case(&expected, &features) {
                Ok(out) if out == bytes => writer_ok += 1,
                Ok(out) => {
                    let at = out.iter().zip(&bytes).take_while(|(a, b)| a == b).count();
                    failures.push(format!(
                        "{name} (writer): output differs from byte {at} ({} vs {} bytes)",
                        out.len(),
                        bytes.len()
                    ));
                }
                Err(e) => failures.push(format!("{name} (writer): {e}")),
            }
        }
        let has_message = expected["records"]
            .as_array()
            .is_some_and(|r| r.iter().any(|x| x["type"] == "Message"));
        // The suite's indexed variants need chunk indexes; ours also runs
        // on every other file whose summary repeats schemas and channels,
        // where the messages sit outside chunks or in unindexed chunks and
        // must be found by the pass over the data section.
        if has_message && ["rch", "rsh"].iter().all(|f| features.contains(f)) {
            let official = ["ch", "chx"].iter().all(|f| features.contains(f));
            if official {
                indexed_total += 1;
            } else {
                extra_total += 1;
            }
            let want = indexed_expected(&expected);
            match indexed(&bytes) {
                Ok(got) if got == want && official => indexed_ok += 1,
                Ok(got) if got == want => extra_ok += 1,
                Ok(got) => failures.push(format!(
                    "{name} (indexed): got {}",
                    diff_hint(&got, Some(&want))
                )),
                Err(e) => failures.push(format!("{name} (indexed): {e}")),
            }
        }
    }
    eprintln!(
        "mcap conformance: streamed reader {streamed_ok}/{n} passed, indexed reader \
         {indexed_ok}/{indexed_total} (+ {extra_ok}/{extra_total} unindexed variants), writer \
         {writer_ok}/{writer_total}, every-prefix truncation {prefix_ok}/{n}",
        n = cases.len()
    );
    println!(
        "mcap-conformance: {} passed, {} failed",
        streamed_ok + indexed_ok + extra_ok + writer_ok + prefix_ok,
        failures.len()
    );
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} MCAP conformance cases failed:\n  {}",
            failures.len(),
            failures.join("\n  ")
        ))
    }
}

fn read_json(p: &Path) -> Result<Json> {
    let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))
}

fn diff_hint(got: &Json, want: Option<&Json>) -> String {
    let g = got.to_string();
    let w = want.map(Json::to_string).unwrap_or_default();
    let at = g.bytes().zip(w.bytes()).take_while(|(a, b)| a == b).count();
    let from = at.saturating_sub(60);
    format!(
        "...{} / expected ...{}",
        g.get(from..(at + 80).min(g.len())).unwrap_or(""),
        w.get(from..(at + 80).min(w.len())).unwrap_or("")
    )
}

fn s(v: impl ToString) -> Json {
    Json::String(v.to_string())
}

fn bytes(b: &[u8]) -> Json {
    Json::Array(b.iter().map(s).collect())
}

fn str_map(m: &BTreeMap<String, String>) -> Json {
    Json::Object(m.iter().map(|(k, v)| (k.clone(), s(v))).collect())
}

fn int_map(m: &BTreeMap<u16, u64>) -> Json {
    Json::Object(m.iter().map(|(k, v)| (k.to_string(), s(v))).collect())
}

fn rec(ty: &str, mut fields: Vec<(&str, Json)>) -> Json {
    fields.sort_by(|a, b| a.0.cmp(b.0));
    let fields: Vec<Json> = fields.into_iter().map(|(k, v)| json!([k, v])).collect();
    json!({"type": ty, "fields": fields})
}

/// A record in the suite's JSON form; `None` for records the suite hides.
fn to_json(r: &Record<'_>) -> Option<Json> {
    Some(match r {
        Record::Header(h) => rec(
            "Header",
            vec![("library", s(&h.library)), ("profile", s(&h.profile))],
        ),
        Record::Footer(f) => rec(
            "Footer",
            vec![
                ("summary_crc", s(f.summary_crc)),
                ("summary_offset_start", s(f.summary_offset_start)),
                ("summary_start", s(f.summary_start)),
            ],
        ),
        Record::Schema(x) => rec(
            "Schema",
            vec![
                ("data", bytes(&x.data)),
                ("encoding", s(&x.encoding)),
                ("id", s(x.id)),
                ("name", s(&x.name)),
            ],
        ),
        Record::Channel(c) => rec(
            "Channel",
            vec![
                ("id", s(c.id)),
                ("message_encoding", s(&c.message_encoding)),
                ("metadata", str_map(&c.metadata)),
                ("schema_id", s(c.schema_id)),
                ("topic", s(&c.topic)),
            ],
        ),
        Record::Message(m) => rec(
            "Message",
            vec![
                ("channel_id", s(m.channel_id)),
                ("data", bytes(&m.data)),
                ("log_time", s(m.log_time)),
                ("publish_time", s(m.publish_time)),
                ("sequence", s(m.sequence)),
            ],
        ),
        Record::Attachment(a) => rec(
            "Attachment",
            vec![
                ("create_time", s(a.create_time)),
                ("data", bytes(&a.data)),
                ("log_time", s(a.log_time)),
                ("media_type", s(&a.media_type)),
                ("name", s(&a.name)),
            ],
        ),
        Record::Metadata(m) => rec(
            "Metadata",
            vec![("metadata", str_map(&m.metadata)), ("name", s(&m.name))],
        ),
        Record::DataEnd(d) => rec("DataEnd", vec![("data_section_crc", s(d.data_section_crc))]),
        Record::Statistics(x) => rec(
            "Statistics",
            vec![
                ("attachment_count", s(x.attachment_count)),
                ("channel_count", s(x.channel_count)),
                ("channel_message_counts", int_map(&x.channel_message_counts)),
                ("chunk_count", s(x.chunk_count)),
                ("message_count", s(x.message_count)),
                ("message_end_time", s(x.message_end_time)),
                ("message_start_time", s(x.message_start_time)),
                ("metadata_count", s(x.metadata_count)),
                ("schema_count", s(x.schema_count)),
            ],
        ),
        Record::ChunkIndex(c) => rec(
            "ChunkIndex",
            vec![
                ("chunk_length", s(c.chunk_length)),
                ("chunk_start_offset", s(c.chunk_start_offset)),
                ("compressed_size", s(c.compressed_size)),
                ("compression", s(&c.compression)),
                ("message_end_time", s(c.message_end_time)),
                ("message_index_length", s(c.message_index_length)),
                ("message_index_offsets", int_map(&c.message_index_offsets)),
                ("message_start_time", s(c.message_start_time)),
                ("uncompressed_size", s(c.uncompressed_size)),
            ],
        ),
        Record::AttachmentIndex(a) => rec(
            "AttachmentIndex",
            vec![
                ("create_time", s(a.create_time)),
                ("data_size", s(a.data_size)),
                ("length", s(a.length)),
                ("log_time", s(a.log_time)),
                ("media_type", s(&a.media_type)),
                ("name", s(&a.name)),
                ("offset", s(a.offset)),
            ],
        ),
        Record::MetadataIndex(m) => rec(
            "MetadataIndex",
            vec![
                ("length", s(m.length)),
                ("name", s(&m.name)),
                ("offset", s(m.offset)),
            ],
        ),
        Record::SummaryOffset(x) => rec(
            "SummaryOffset",
            vec![
                ("group_length", s(x.group_length)),
                ("group_opcode", s(x.group_opcode)),
                ("group_start", s(x.group_start)),
            ],
        ),
        Record::MessageIndex(_) | Record::Chunk(_) | Record::Unknown { .. } => return None,
    })
}

/// The streamed reader's output: chunks flattened, Message Index hidden.
fn streamed(bytes: &[u8]) -> std::result::Result<Json, String> {
    let mut out = Vec::new();
    for r in LinearReader::new(bytes) {
        let r = r.map_err(|e| e.to_string())?;
        out.extend(to_json(&r));
    }
    Ok(Json::Array(out))
}

/// The indexed reader's output, in the suite's shape.
fn indexed(bytes: &[u8]) -> std::result::Result<Json, String> {
    let summary = Summary::read(bytes, true)
        .map_err(|e| e.to_string())?
        .ok_or("no summary")?;
    let schemas: Vec<Json> = summary
        .schemas
        .values()
        .filter_map(|x| to_json(&Record::Schema(x.clone())))
        .collect();
    let channels: Vec<Json> = summary
        .channels
        .values()
        .filter_map(|c| to_json(&Record::Channel(c.clone())))
        .collect();
    let mut messages = Vec::new();
    let it = mcapfile::IndexedMessages::new(
        bytes,
        &summary,
        IndexFilter::default(),
        ReadOptions::default(),
    );
    for m in it {
        let (_, m) = m.map_err(|e| e.to_string())?;
        messages.extend(to_json(&Record::Message(m)));
    }
    let statistics: Vec<Json> = summary
        .statistics
        .iter()
        .filter_map(|x| to_json(&Record::Statistics(x.clone())))
        .collect();
    Ok(
        json!({"schemas": schemas, "channels": channels, "messages": messages, "statistics": statistics}),
    )
}

/// What the suite expects of an indexed reader, derived from the streamed
/// expectation as its runner does.
fn indexed_expected(expected: &Json) -> Json {
    let records = expected["records"].as_array().cloned().unwrap_or_default();
    let of = |ty: &str| -> Vec<Json> {
        records
            .iter()
            .filter(|r| r["type"] == ty)
            .cloned()
            .collect()
    };
    let id = |r: &Json| -> u64 {
        r["fields"]
            .as_array()
            .and_then(|f| f.iter().find(|p| p[0] == "id"))
            .and_then(|p| p[1].as_str())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    let first_by_id = |v: Vec<Json>| -> Vec<Json> {
        let mut m: BTreeMap<u64, Json> = BTreeMap::new();
        for r in v {
            m.entry(id(&r)).or_insert(r);
        }
        m.into_values().collect()
    };
    let log_time = |r: &Json| -> u64 {
        r["fields"]
            .as_array()
            .and_then(|f| f.iter().find(|p| p[0] == "log_time"))
            .and_then(|p| p[1].as_str())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    let mut messages = of("Message");
    messages.sort_by_key(log_time);
    json!({
        "schemas": first_by_id(of("Schema")),
        "channels": first_by_id(of("Channel")),
        "messages": messages,
        "statistics": of("Statistics"),
    })
}

/// Every prefix of a conformance file: the streamed reader yields exactly
/// the leading records of the expected output, then a truncation error.
fn prefixes(bytes: &[u8], expected: &Json) -> std::result::Result<(), String> {
    let want = expected["records"].as_array().cloned().unwrap_or_default();
    for cut in 0..bytes.len() {
        let mut got = Vec::new();
        let mut end = None;
        for r in LinearReader::new(&bytes[..cut]) {
            match r {
                Ok(r) => got.extend(to_json(&r)),
                Err(e) => {
                    end = Some(e);
                    break;
                }
            }
        }
        if !end.as_ref().is_some_and(mcapfile::Error::is_truncated) {
            return Err(format!(
                "cut at {cut}: expected a truncation error, got {end:?}"
            ));
        }
        if got.len() > want.len() || got[..] != want[..got.len()] {
            return Err(format!("cut at {cut}: records before the cut differ"));
        }
    }
    Ok(())
}

fn field<'j>(r: &'j Json, name: &str) -> &'j Json {
    r["fields"]
        .as_array()
        .and_then(|f| f.iter().find(|p| p[0] == name))
        .map_or(&Json::Null, |p| &p[1])
}

fn num<T: std::str::FromStr>(r: &Json, name: &str) -> std::result::Result<T, String> {
    field(r, name)
        .as_str()
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("field {name} of {} is not a number", r["type"]))
}

fn text<'j>(r: &'j Json, name: &str) -> &'j str {
    field(r, name).as_str().unwrap_or("")
}

fn blob(r: &Json, name: &str) -> Vec<u8> {
    field(r, name)
        .as_array()
        .map(|a| a.iter().filter_map(|b| b.as_str()?.parse().ok()).collect())
        .unwrap_or_default()
}

fn meta(r: &Json, name: &str) -> BTreeMap<String, String> {
    field(r, name)
        .as_object()
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// The writer runner: feeds the data-section records of the expected
/// output to our writer, configured by the variant's features.
fn write_case(expected: &Json, features: &[&str]) -> std::result::Result<Vec<u8>, String> {
    use mcapfile::{Compression, WriteOptions, Writer};
    let has = |f: &str| features.contains(&f);
    let records = expected["records"].as_array().cloned().unwrap_or_default();
    let header = records.first().ok_or("no records")?;
    let opts = WriteOptions {
        profile: text(header, "profile").into(),
        library: text(header, "library").into(),
        use_chunks: has("ch"),
        chunk_size: u64::MAX,
        compression: Compression::None,
        message_indexes: has("mx"),
        chunk_indexes: has("chx"),
        attachment_indexes: has("ax"),
        metadata_indexes: has("mdx"),
        statistics: has("st"),
        repeat_schemas: has("rsh"),
        repeat_channels: has("rch"),
        summary_offsets: has("sum"),
        crcs: true,
    };
    let e = |e: mcapfile::Error| e.to_string();
    let mut w = Writer::new(Vec::new(), opts).map_err(e)?;
    for r in &records[1..] {
        match r["type"].as_str().unwrap_or("") {
            "Schema" => w
                .add_schema_with_id(
                    num(r, "id")?,
                    text(r, "name"),
                    text(r, "encoding"),
                    &blob(r, "data"),
                )
                .map_err(e)?,
            "Channel" => w
                .add_channel_with_id(
                    num(r, "id")?,
                    num(r, "schema_id")?,
                    text(r, "topic"),
                    text(r, "message_encoding"),
                    &meta(r, "metadata"),
                )
                .map_err(e)?,
            "Message" => w
                .write_message(
                    num(r, "channel_id")?,
                    num(r, "sequence")?,
                    num(r, "log_time")?,
                    num(r, "publish_time")?,
                    &blob(r, "data"),
                )
                .map_err(e)?,
            "Attachment" => w
                .write_attachment(
                    num(r, "log_time")?,
                    num(r, "create_time")?,
                    text(r, "name"),
                    text(r, "media_type"),
                    &blob(r, "data"),
                )
                .map_err(e)?,
            "Metadata" => w
                .write_metadata(text(r, "name"), &meta(r, "metadata"))
                .map_err(e)?,
            "DataEnd" => break,
            other => return Err(format!("unexpected {other} record in the data section")),
        }
    }
    w.finish().map_err(e)
}
