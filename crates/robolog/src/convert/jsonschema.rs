//! JSON Schemas generated from a source's own type definitions (a ULog
//! format, a CARLA record, a VEL message layout), the JSON form of the
//! values those types decode into, and the writer of `json` channels that
//! every format converter shares.
//!
//! The schemas keep to what Foxglove's and Lichtblick's JSON Schema parser
//! reads, so their Plot and Raw Messages panels know every field: each
//! property has one `type` (`object`, `array`, `number`, `integer`,
//! `string`, `boolean`), arrays hold no arrays, bytes are strings with
//! `contentEncoding: base64`. Objects list their fields as `required`
//! (optional ones excepted) and allow no others.
//!
//! JSON has no NaN or infinities: a non-finite float is written as the
//! string `"NaN"`, `"Infinity"` or `"-Infinity"`, as everywhere in robolog
//! (`robolog cat --json`); its schema still says `number`, since that
//! parser takes one type per field, so such a value is the one place where
//! a message departs from its schema.
//!
//! The writer also writes the `protobuf` encoding: the same JSON form,
//! encoded by a message type made from the schema (see the `protobuf`
//! module).

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value as Json, json};

use logcore::{Error, Timestamp, Value, WallClockAnchor};
use mcapfile::Writer;

use super::foxglove::{WellKnown, base64};
use super::protobuf::{self, MessageType};
use super::{Context, Encoding};

/// The type of a field, as far as JSON tells types apart.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Type {
    /// `true` / `false`.
    Bool,
    /// A signed integer.
    Int,
    /// An unsigned integer.
    UInt,
    /// A float (non-finite values as strings, see the module docs).
    Float,
    /// Text.
    Str,
    /// Bytes, as a base64 string.
    Bytes,
    /// An array; `Some(n)`: exactly `n` items.
    Array(Box<Type>, Option<usize>),
    /// Named fields in order.
    Object(Vec<Field>),
}

/// A field of an [`Type::Object`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Field {
    pub(crate) name: String,
    pub(crate) ty: Type,
    /// Whether every value has it (a `Value::Null` field is left out).
    pub(crate) required: bool,
}

impl Field {
    /// A required field.
    pub(crate) fn new(name: impl Into<String>, ty: Type) -> Self {
        Field {
            name: name.into(),
            ty,
            required: true,
        }
    }

    /// A field that some values lack.
    pub(crate) fn optional(name: impl Into<String>, ty: Type) -> Self {
        Field {
            required: false,
            ..Field::new(name, ty)
        }
    }
}

impl Type {
    /// An object of `fields`.
    pub(crate) fn object(fields: impl IntoIterator<Item = Field>) -> Type {
        Type::Object(fields.into_iter().collect())
    }

    /// An array of any length.
    pub(crate) fn list(item: Type) -> Type {
        Type::Array(Box::new(item), None)
    }

    /// An array of exactly `n` items.
    pub(crate) fn fixed(item: Type, n: usize) -> Type {
        Type::Array(Box::new(item), Some(n))
    }

    fn node(&self) -> Json {
        match self {
            Type::Bool => json!({"type": "boolean"}),
            Type::Int => json!({"type": "integer"}),
            Type::UInt => json!({"type": "integer", "minimum": 0}),
            Type::Float => json!({"type": "number"}),
            Type::Str => json!({"type": "string"}),
            Type::Bytes => json!({"type": "string", "contentEncoding": "base64"}),
            Type::Array(item, len) => {
                let mut m = Map::new();
                m.insert("type".into(), "array".into());
                m.insert("items".into(), item.node());
                if let Some(n) = len {
                    m.insert("minItems".into(), (*n).into());
                    m.insert("maxItems".into(), (*n).into());
                }
                Json::Object(m)
            }
            Type::Object(fields) => {
                let mut props = Map::new();
                let mut required = Vec::new();
                for f in fields {
                    props.insert(f.name.clone(), f.ty.node());
                    if f.required {
                        required.push(Json::from(f.name.clone()));
                    }
                }
                json!({
                    "type": "object",
                    "properties": props,
                    "required": required,
                    "additionalProperties": false,
                })
            }
        }
    }
}

/// The JSON Schema text (draft 2020-12) of messages of type `ty` named
/// `title`; `ty` should be an object (Foxglove reads only object roots).
pub(crate) fn schema_text(title: &str, ty: &Type) -> String {
    let mut root = Map::new();
    root.insert(
        "$schema".into(),
        "https://json-schema.org/draft/2020-12/schema".into(),
    );
    root.insert("title".into(), title.into());
    root.insert(
        "$comment".into(),
        "Generated by robolog from the source's type definition. Non-finite floats are the \
         strings NaN, Infinity and -Infinity."
            .into(),
    );
    if let Json::Object(m) = ty.node() {
        root.extend(m);
    }
    Json::Object(root).to_string()
}

/// A [`Value`] in the JSON form of its generated schema: struct fields
/// that are `Null` are left out, bytes are base64, non-finite floats
/// strings, times `{sec, nsec}`.
pub(crate) struct JsonValue<'a>(pub(crate) &'a Value);

fn non_finite(v: f64) -> &'static str {
    if v.is_nan() {
        "NaN"
    } else if v > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    }
}

impl Serialize for JsonValue<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Bytes(b) => s.serialize_str(&base64(b)),
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for x in items {
                    seq.serialize_element(&JsonValue(x))?;
                }
                seq.end()
            }
            Value::Struct(fields) => {
                let present = fields.iter().filter(|(_, v)| *v != Value::Null);
                let mut m = s.serialize_map(Some(present.clone().count()))?;
                for (k, v) in present {
                    m.serialize_entry(k, &JsonValue(v))?;
                }
                m.end()
            }
            Value::F32(v) if !v.is_finite() => s.serialize_str(non_finite(f64::from(*v))),
            Value::F64(v) if !v.is_finite() => s.serialize_str(non_finite(*v)),
            other => other.serialize(s),
        }
    }
}

/// The output of a conversion: an MCAP writer whose channels are `json`
/// with `jsonschema` schemas, created on their first message (so a topic
/// the filter drops leaves no channel), one schema per distinct text.
///
/// With [`Encoding::Protobuf`] the channels are `protobuf` instead, their
/// schemas and messages made from the JSON ones by [`super::protobuf`].
pub(crate) struct JsonOut<W: Write> {
    w: Writer<W>,
    encoding: Encoding,
    schemas: BTreeMap<(String, String), SchemaId>,
    channels: BTreeMap<String, Lane>,
    buf: Vec<u8>,
}

/// A schema written by a [`JsonOut`]: its id, and its message type when
/// it is a protobuf one.
type SchemaId = (u16, Option<Arc<MessageType>>);

/// A channel of a [`JsonOut`].
struct Lane {
    id: u16,
    sequence: u32,
    /// The message type of a `protobuf` channel.
    proto: Option<Arc<MessageType>>,
}

/// What a channel is: its schema name and text and its metadata.
pub(crate) struct ChannelSpec<'a> {
    pub(crate) schema_name: &'a str,
    pub(crate) schema_text: &'a str,
    pub(crate) metadata: BTreeMap<String, String>,
}

impl ChannelSpec<'static> {
    /// A channel of a Foxglove well-known schema.
    pub(crate) fn well_known(s: WellKnown) -> Self {
        ChannelSpec {
            schema_name: s.name,
            schema_text: s.text,
            metadata: BTreeMap::new(),
        }
    }
}

fn json_error(e: serde_json::Error) -> Error {
    Error::InvalidArgument(format!("cannot write a JSON message: {e}"))
}

impl<W: Write> JsonOut<W> {
    /// Starts the MCAP file with header `profile`.
    pub(crate) fn new(out: W, cx: &Context<'_>, profile: &str) -> Result<Self, Error> {
        Ok(JsonOut {
            w: Writer::new(out, super::write_options(&cx.opts, profile))?,
            encoding: cx.opts.encoding,
            schemas: BTreeMap::new(),
            channels: BTreeMap::new(),
            buf: Vec::new(),
        })
    }

    /// Writes a Metadata record (before the first message, or it closes a chunk).
    pub(crate) fn metadata(
        &mut self,
        name: &str,
        entries: &BTreeMap<String, String>,
    ) -> Result<(), Error> {
        self.w.write_metadata(name, entries)
    }

    /// Adds the channel `topic` unless it exists.
    pub(crate) fn ensure<'s>(
        &mut self,
        cx: &mut Context<'_>,
        topic: &str,
        spec: impl FnOnce() -> ChannelSpec<'s>,
    ) -> Result<(), Error> {
        if self.channels.contains_key(topic) {
            return Ok(());
        }
        let spec = spec();
        let key = (spec.schema_name.to_string(), spec.schema_text.to_string());
        let (schema, proto) = match self.schemas.get(&key) {
            Some(known) => known.clone(),
            None => {
                let made = match self.encoding {
                    Encoding::Json => (
                        self.w.add_schema(
                            spec.schema_name,
                            "jsonschema",
                            spec.schema_text.as_bytes(),
                        )?,
                        None,
                    ),
                    Encoding::Protobuf => {
                        let s = protobuf::schema(spec.schema_name, spec.schema_text)?;
                        let id = self.w.add_schema(&s.name, "protobuf", &s.data)?;
                        (id, Some(s.message))
                    }
                };
                self.schemas.insert(key, made.clone());
                made
            }
        };
        let encoding = if proto.is_some() { "protobuf" } else { "json" };
        let id = self
            .w
            .add_channel(schema, topic, encoding, &spec.metadata)?;
        self.channels.insert(
            topic.to_string(),
            Lane {
                id,
                sequence: 0,
                proto,
            },
        );
        cx.stats.channels += 1;
        Ok(())
    }

    /// Writes `message` on `topic` (added by [`JsonOut::ensure`]) at log
    /// and publish time `time` (times before 0 are written as 0).
    pub(crate) fn write(
        &mut self,
        cx: &mut Context<'_>,
        topic: &str,
        time: Timestamp,
        message: &impl Serialize,
    ) -> Result<(), Error> {
        if self.encoding == Encoding::Protobuf {
            let value = serde_json::to_value(message).map_err(json_error)?;
            return self.write_value(cx, topic, time, &value);
        }
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        serde_json::to_writer(&mut buf, message).map_err(json_error)?;
        let written = self.write_text(cx, topic, time, &buf);
        self.buf = buf;
        written
    }

    /// Writes the JSON form `value` on a `protobuf` channel `topic`,
    /// encoded by its message type.
    fn write_value(
        &mut self,
        cx: &mut Context<'_>,
        topic: &str,
        time: Timestamp,
        value: &Json,
    ) -> Result<(), Error> {
        let Some(ty) = self.channels.get(topic).and_then(|l| l.proto.clone()) else {
            return Err(Error::InvalidArgument(format!(
                "no protobuf channel {topic} was added"
            )));
        };
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let encoded = protobuf::encode(&ty, value, &mut buf).map_err(|e| {
            Error::InvalidArgument(format!("cannot write a {topic} message as protobuf: {e}"))
        });
        let written = encoded.and_then(|()| self.write_bytes(cx, topic, time, &buf));
        self.buf = buf;
        written
    }

    /// Writes the JSON text `message` on `topic` (added by
    /// [`JsonOut::ensure`]) at log and publish time `time`, as
    /// [`JsonOut::write`] does for a serializable value.
    pub(crate) fn write_text(
        &mut self,
        cx: &mut Context<'_>,
        topic: &str,
        time: Timestamp,
        message: &[u8],
    ) -> Result<(), Error> {
        if self.encoding == Encoding::Protobuf {
            let value: Json = serde_json::from_slice(message).map_err(json_error)?;
            return self.write_value(cx, topic, time, &value);
        }
        self.write_bytes(cx, topic, time, message)
    }

    /// Writes the payload `message` on `topic` at `time`.
    fn write_bytes(
        &mut self,
        cx: &mut Context<'_>,
        topic: &str,
        time: Timestamp,
        message: &[u8],
    ) -> Result<(), Error> {
        let Some(lane) = self.channels.get_mut(topic) else {
            return Err(Error::InvalidArgument(format!(
                "no channel {topic} was added"
            )));
        };
        let t = u64::try_from(time.as_nanos()).map_err(|_| {
            super::time_refused(
                topic,
                time,
                None,
                "MCAP times are unsigned nanoseconds since 1970",
            )
        })?;
        self.w
            .write_message(lane.id, lane.sequence, t, t, message)?;
        lane.sequence = lane.sequence.wrapping_add(1);
        cx.stats.messages += 1;
        Ok(())
    }

    /// Writes the summary and returns the sink.
    pub(crate) fn finish(self) -> Result<W, Error> {
        self.w.finish()
    }
}

/// The metadata map of `pairs`.
pub(crate) fn metadata<K: Into<String>, V: Into<String>>(
    pairs: impl IntoIterator<Item = (K, V)>,
) -> BTreeMap<String, String> {
    pairs
        .into_iter()
        .map(|(k, v)| (k.into(), v.into()))
        .collect()
}

/// Adds the wall-clock anchor `a` to the time metadata `m`
/// (`anchor_log_time_ns`, `anchor_unix_time_ns`, `anchor_source`).
#[cfg_attr(not(any(feature = "ulog", feature = "vellog")), allow(dead_code))]
pub(crate) fn insert_anchor(m: &mut BTreeMap<String, String>, a: &WallClockAnchor) {
    m.insert(
        "anchor_log_time_ns".into(),
        a.log_time.as_nanos().to_string(),
    );
    m.insert(
        "anchor_unix_time_ns".into(),
        a.unix_time.as_nanos().to_string(),
    );
    m.insert("anchor_source".into(), a.source.into());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_of_nested_types_keeps_to_single_types() {
        let ty = Type::object([
            Field::new("timestamp", Type::UInt),
            Field::new("q", Type::fixed(Type::Float, 4)),
            Field::optional("name", Type::Str),
            Field::new(
                "esc",
                Type::list(Type::object([Field::new("rpm", Type::Int)])),
            ),
            Field::new("data", Type::Bytes),
        ]);
        let s: Json = serde_json::from_str(&schema_text("demo", &ty)).unwrap();
        assert_eq!(s["title"], "demo");
        assert_eq!(s["type"], "object");
        assert_eq!(s["required"], json!(["timestamp", "q", "esc", "data"]));
        assert_eq!(s["properties"]["q"]["items"]["type"], "number");
        assert_eq!(s["properties"]["q"]["minItems"], 4);
        assert_eq!(s["properties"]["timestamp"]["minimum"], 0);
        assert_eq!(
            s["properties"]["esc"]["items"]["properties"]["rpm"]["type"],
            "integer"
        );
        assert_eq!(s["properties"]["data"]["contentEncoding"], "base64");
        assert_eq!(s["additionalProperties"], false);
    }

    #[test]
    fn json_form_drops_nulls_and_encodes_bytes_and_non_finite_floats() {
        let v = Value::record([
            ("a", Value::Null),
            ("b", Value::Bytes(b"foo".to_vec())),
            ("c", Value::F32(f32::NAN)),
            ("d", Value::F64(f64::NEG_INFINITY)),
            ("e", Value::Array(vec![Value::F32(1.5), Value::Null])),
            ("t", Value::Time(Timestamp::from_nanos(2_000_000_003))),
        ]);
        assert_eq!(
            serde_json::to_string(&JsonValue(&v)).unwrap(),
            r#"{"b":"Zm9v","c":"NaN","d":"-Infinity","e":[1.5,null],"t":{"sec":2,"nsec":3}}"#
        );
    }
}

/// Conversion of test files, and reading the output back.
#[cfg(test)]
pub(crate) mod testing {
    use logcore::{LogReader, MessageFilter, Value};

    use crate::convert::{ConvertOptions, ConvertStats, to_mcap};

    /// A converted file's messages: (topic, schema name, log time ns, value).
    pub(crate) struct Converted {
        pub(crate) stats: ConvertStats,
        pub(crate) messages: Vec<(String, String, i64, Value)>,
    }

    impl Converted {
        /// The values on `topic`.
        pub(crate) fn on(&self, topic: &str) -> Vec<&Value> {
            self.messages
                .iter()
                .filter(|m| m.0 == topic)
                .map(|m| &m.3)
                .collect()
        }
    }

    /// Converts `testdata/<path>` with `opts`.
    pub(crate) fn convert(path: &str, opts: &ConvertOptions) -> Converted {
        let file = format!("{}/../../testdata/{path}", env!("CARGO_MANIFEST_DIR"));
        convert_bytes(&std::fs::read(file).unwrap(), opts)
    }

    /// Converts the log `input` with `opts`.
    pub(crate) fn convert_bytes(input: &[u8], opts: &ConvertOptions) -> Converted {
        let log = crate::open_bytes(input).unwrap();
        let (bytes, stats) = to_mcap(&log, Vec::new(), opts, &mut |_| {}).unwrap();
        let out = crate::open_bytes(&bytes).unwrap();
        let channels = out.channels().unwrap();
        let mut messages = Vec::new();
        for m in out.messages(&MessageFilter::all()).unwrap() {
            let m = m.unwrap();
            let ch = channels.iter().find(|c| c.id == m.channel).unwrap();
            let schema = ch
                .schema
                .as_ref()
                .map(|s| s.name.clone())
                .unwrap_or_default();
            let v = out.decode(&m).unwrap();
            messages.push((ch.topic.clone(), schema, m.log_time.as_nanos(), v));
        }
        Converted { stats, messages }
    }

    /// Asserts that `c`, converted from `testdata/<path>`, has as many
    /// messages on each topic as `robolog info` counts in the input.
    #[cfg_attr(not(any(feature = "carla", feature = "vellog")), allow(dead_code))]
    pub(crate) fn counts_match_info(c: &Converted, path: &str) {
        let file = format!("{}/../../testdata/{path}", env!("CARGO_MANIFEST_DIR"));
        let summary = crate::open(&file).unwrap().summary().unwrap();
        for ch in &summary.channels {
            assert_eq!(
                c.on(&ch.info.topic).len() as u64,
                ch.message_count,
                "{}",
                ch.info.topic
            );
        }
    }

    /// Whether `a` and `b` agree to 1e-9 element by element.
    #[cfg_attr(not(any(feature = "carla", feature = "ulog")), allow(dead_code))]
    pub(crate) fn close(a: &[f64], b: &[f64]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9)
    }

    /// A number at `path` (`a.b.0.c`) of `v`.
    pub(crate) fn at(v: &Value, path: &str) -> f64 {
        let mut cur = v;
        for part in path.split('.') {
            cur = match (cur, part.parse::<usize>()) {
                (Value::Array(items), Ok(i)) => &items[i],
                _ => cur
                    .get(part)
                    .unwrap_or_else(|| panic!("no {part} in {cur:?}")),
            };
        }
        cur.as_f64()
            .unwrap_or_else(|| panic!("{path} is no number: {cur:?}"))
    }
}
