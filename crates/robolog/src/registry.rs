//! The decoder registry: payload bytes to [`Value`], keyed by the
//! channel's message encoding and its schema's encoding, whatever
//! container the channel sits in.
//!
//! A container says how its payloads are encoded (`ros1`, `protobuf`,
//! `json`, ...) and which schema language describes them (`ros1msg`,
//! `protobuf`, `jsonschema`, ...). MCAP in particular holds all of them,
//! so decoding belongs to neither the container nor the payload format
//! alone: [`Registry`] maps the pair to a [`DecoderFactory`], which builds
//! one [`Decoder`] per channel from the channel's schema.
//!
//! Built in, each behind the Cargo feature of the crate that provides it:
//!
//! | message encoding | schema encoding | decoder |
//! |---|---|---|
//! | `ros1` | `ros1msg` | rosbag12's `.msg` parser and decoder (feature `rosbag`) |
//! | `protobuf` | `protobuf` | descriptor-based, from a `FileDescriptorSet` schema (feature `protobuf`) |
//! | `cdr` | `ros2msg` | ros2cdr's definition parser and CDR decoder, service events included (feature `ros2`) |
//! | `cdr` | `ros2idl` | the same decoder, from the IDL subset `rosidl` generates (feature `ros2`) |
//! | `json` | any | JSON documents, object keys in order |
//!
//! The built-in decoders parse a channel's schema with the nesting limit
//! of the registry's [`Limits`] ([`Registry::with_limits`];
//! [`OpenOptions::limits`](crate::OpenOptions::limits) gives a log's
//! registry those limits): see [`Limits::max_nesting`] for each format's default.
//!
//! The `ros1` and `cdr` decoders declare the [`ValueType`] of their values
//! ([`Decoder::value_type`]), from the message definition. The `protobuf`
//! and `json` decoders declare none, as no type would admit every value
//! they return: a decoded protobuf message holds only the fields the
//! message sets (a proto3 field at its default value is not set), an enum
//! is its value's name or, for a number the enum does not define, an
//! integer, and a map a struct keyed by the map's keys; a JSON document
//! has the members it has, in its own order, a non-negative integer is
//! [`Value::U64`] and a negative one [`Value::I64`], and robolog's own
//! JSON writes a non-finite float as a string. Their values are typed
//! from the data instead.
//!
//! ```
//! use logcore::{ChannelId, ChannelInfo, Value};
//! use robolog::Registry;
//!
//! let registry = Registry::default();
//! let channel = ChannelInfo::new(ChannelId(1), "/speed", "Speed", "json");
//! let decoder = registry.decoder_for(&channel).expect("json is built in")?;
//! let v = decoder.decode(br#"{"v": 3, "unit": "m/s"}"#, 0)?;
//! assert_eq!(v.get("v").and_then(Value::as_i64), Some(3));
//! # Ok::<(), logcore::Error>(())
//! ```

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use logcore::{ChannelInfo, Error, Limits, Value, ValueType};

/// Decodes the payloads of one channel.
pub trait Decoder: Send + Sync {
    /// Decodes `payload`; `offset` is the payload's byte offset in the file,
    /// for error messages.
    fn decode(&self, payload: &[u8], offset: u64) -> Result<Value, Error>;

    /// The type every value [`decode`](Self::decode) returns has, from the
    /// schema the decoder was built with; `None` when the schema declares
    /// none (JSON without a schema). See [`logcore::ValueType`].
    fn value_type(&self) -> Option<ValueType> {
        None
    }

    /// The ROS 2 message type this decoder decodes CDR payloads with, for
    /// readers that walk the payloads themselves (robolog-arrow's tables):
    /// the built-in `cdr` decoder's, `None` for every other decoder (they
    /// must then decode through [`decode`](Self::decode)).
    #[cfg(feature = "ros2")]
    fn cdr_type(&self) -> Option<&ros2cdr::MessageType> {
        None
    }
}

/// Builds the [`Decoder`] of a channel from its [`ChannelInfo`] (schema,
/// type name, metadata). Any `Fn(&ChannelInfo) -> Result<Box<dyn Decoder>, Error>`
/// is one.
pub trait DecoderFactory: Send + Sync {
    /// The decoder for `channel`, or why its schema cannot be used.
    fn build(&self, channel: &ChannelInfo) -> Result<Box<dyn Decoder>, Error>;
}

impl<F> DecoderFactory for F
where
    F: Fn(&ChannelInfo) -> Result<Box<dyn Decoder>, Error> + Send + Sync,
{
    fn build(&self, channel: &ChannelInfo) -> Result<Box<dyn Decoder>, Error> {
        self(channel)
    }
}

/// Decoder factories by (message encoding, schema encoding). A factory
/// registered with no schema encoding serves every schema encoding of its
/// message encoding that has no factory of its own.
#[derive(Clone)]
pub struct Registry {
    exact: HashMap<(String, String), Arc<dyn DecoderFactory>>,
    any_schema: HashMap<String, Arc<dyn DecoderFactory>>,
    limits: Limits,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut keys: Vec<String> = self
            .exact
            .keys()
            .map(|(m, s)| format!("{m}/{s}"))
            .chain(self.any_schema.keys().map(|m| format!("{m}/*")))
            .collect();
        keys.sort();
        f.debug_struct("Registry")
            .field("decoders", &keys)
            .field("limits", &self.limits)
            .finish()
    }
}

impl Default for Registry {
    /// The built-in decoders of this build (see the [module docs](self)),
    /// with the default [`Limits`].
    fn default() -> Self {
        Registry::with_limits(Limits::default())
    }
}

impl Registry {
    /// A registry with no decoders.
    pub fn empty() -> Self {
        Registry {
            exact: HashMap::new(),
            any_schema: HashMap::new(),
            limits: Limits::default(),
        }
    }

    /// The built-in decoders of this build (see the [module docs](self)),
    /// parsing schemas and decoding with the nesting limit of `limits`
    /// ([`Limits::max_nesting`]).
    ///
    /// ```
    /// use logcore::{ChannelId, ChannelInfo, Schema};
    /// use robolog::{Limits, Registry};
    ///
    /// let mut channel = ChannelInfo::new(ChannelId(1), "/a", "p/A", "ros1");
    /// channel.schema = Some(std::sync::Arc::new(Schema {
    ///     name: "p/A".into(),
    ///     encoding: "ros1msg".into(),
    ///     data: b"p/B b\n===\nMSG: p/B\nint8 x\n".to_vec(),
    /// }));
    /// let lowered = Registry::with_limits(Limits::default().with_max_nesting(1));
    /// assert_eq!(lowered.limits().max_nesting, Some(1));
    /// let e = lowered.decoder_for(&channel).unwrap().err().unwrap();
    /// assert!(e.to_string().contains("at most 1 levels deep"), "{e}");
    /// assert!(Registry::default().decoder_for(&channel).unwrap().is_ok());
    /// ```
    pub fn with_limits(limits: Limits) -> Self {
        let mut r = Registry::empty();
        r.limits = limits;
        #[cfg(feature = "rosbag")]
        r.register("ros1", Some("ros1msg"), move |c: &ChannelInfo| {
            ros1::factory(c, &limits)
        });
        #[cfg(feature = "protobuf")]
        r.register("protobuf", Some("protobuf"), move |c: &ChannelInfo| {
            protobuf::factory(c, &limits)
        });
        #[cfg(feature = "ros2")]
        for schema in ["ros2msg", "ros2idl"] {
            r.register("cdr", Some(schema), move |c: &ChannelInfo| {
                ros2::factory(c, &limits)
            });
        }
        r.register("json", None, json::factory);
        r
    }

    /// The limits the built-in decoders were registered with
    /// ([`with_limits`](Self::with_limits); the defaults for
    /// [`Registry::default`] and [`Registry::empty`]). Factories registered
    /// later apply their own.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Registers `factory` for `message_encoding` with `schema_encoding`
    /// (`None`: any schema encoding), replacing an earlier registration of
    /// the same key.
    pub fn register(
        &mut self,
        message_encoding: &str,
        schema_encoding: Option<&str>,
        factory: impl DecoderFactory + 'static,
    ) -> &mut Self {
        let factory: Arc<dyn DecoderFactory> = Arc::new(factory);
        match schema_encoding {
            Some(s) => {
                self.exact
                    .insert((message_encoding.to_string(), s.to_string()), factory);
            }
            None => {
                self.any_schema
                    .insert(message_encoding.to_string(), factory);
            }
        }
        self
    }

    /// The factory for a message encoding and schema encoding (empty when
    /// the channel has no schema), if one is registered.
    pub fn factory(
        &self,
        message_encoding: &str,
        schema_encoding: &str,
    ) -> Option<&dyn DecoderFactory> {
        self.exact
            .get(&(message_encoding.to_string(), schema_encoding.to_string()))
            .or_else(|| self.any_schema.get(message_encoding))
            .map(|f| &**f)
    }

    /// Builds the decoder of `channel`: `None` when no factory serves its
    /// encodings, `Some(Err(..))` when one does but the channel's schema
    /// cannot be used.
    pub fn decoder_for(&self, channel: &ChannelInfo) -> Option<Result<Box<dyn Decoder>, Error>> {
        let schema_encoding = channel.schema.as_ref().map_or("", |s| s.encoding.as_str());
        self.factory(&channel.message_encoding, schema_encoding)
            .map(|f| f.build(channel))
    }
}

/// JSON payloads. No declared type, even with a `jsonschema` schema
/// (see the [module docs](self)).
mod json {
    use super::*;

    pub(super) fn factory(_: &ChannelInfo) -> Result<Box<dyn Decoder>, Error> {
        Ok(Box::new(Json))
    }

    struct Json;

    impl Decoder for Json {
        fn decode(&self, payload: &[u8], offset: u64) -> Result<Value, Error> {
            serde_json::from_slice::<Value>(payload)
                .map_err(|e| Error::malformed(offset, "a JSON document", e.to_string()))
        }
    }
}

/// The type name of `channel` (its schema's name, else the channel's type)
/// and its schema text, or the error naming the channel when the text (its
/// `what`) is not UTF-8.
#[cfg(any(feature = "rosbag", feature = "ros2"))]
fn schema_type_and_text<'c>(
    channel: &'c ChannelInfo,
    what: &str,
) -> Result<(&'c str, &'c str), Error> {
    let schema = channel.schema.as_ref();
    let type_name = schema
        .map(|s| s.name.as_str())
        .filter(|n| !n.is_empty())
        .unwrap_or(&channel.type_name);
    let text = schema.map(|s| s.data.as_slice()).unwrap_or_default();
    let text = std::str::from_utf8(text).map_err(|e| {
        Error::InvalidArgument(format!(
            "the {what} of channel {:?} is not UTF-8 text: {e}",
            channel.topic
        ))
    })?;
    Ok((type_name, text))
}

/// ROS 1 messages with their `.msg` definition as schema.
#[cfg(feature = "rosbag")]
mod ros1 {
    use super::*;
    use rosbag12::MessageType;

    pub(super) fn factory(
        channel: &ChannelInfo,
        limits: &Limits,
    ) -> Result<Box<dyn Decoder>, Error> {
        let (type_name, text) = super::schema_type_and_text(channel, "ros1msg schema")?;
        let ty = MessageType::parse_with_limits(type_name, text, limits).map_err(|e| {
            Error::InvalidArgument(format!(
                "the ros1msg schema {type_name:?} of channel {:?}: {e}",
                channel.topic
            ))
        })?;
        Ok(Box::new(Ros1(ty)))
    }

    struct Ros1(MessageType);

    impl Decoder for Ros1 {
        fn decode(&self, payload: &[u8], offset: u64) -> Result<Value, Error> {
            self.0.decode(payload, offset).map_err(Error::from)
        }

        /// The definition's type ([`MessageType::value_type`]).
        fn value_type(&self) -> Option<ValueType> {
            self.0.value_type()
        }
    }
}

/// ROS 2 messages (CDR) with their `ros2msg` or `ros2idl` definition as
/// schema.
#[cfg(feature = "ros2")]
mod ros2 {
    use super::*;
    use ros2cdr::MessageType;

    pub(super) fn factory(
        channel: &ChannelInfo,
        limits: &Limits,
    ) -> Result<Box<dyn Decoder>, Error> {
        let schema = channel.schema.as_ref();
        let (type_name, text) = super::schema_type_and_text(channel, "schema")?;
        let language = schema.map_or("ros2msg", |s| s.encoding.as_str());
        let ty = if language == "ros2idl" {
            MessageType::parse_idl_with_limits(type_name, text, limits)
        } else {
            MessageType::parse_with_limits(type_name, text, limits)
        };
        let ty = ty.map_err(|e| {
            Error::InvalidArgument(format!(
                "the {language} schema {type_name:?} of channel {:?}: {e}",
                channel.topic
            ))
        })?;
        Ok(Box::new(Ros2(ty)))
    }

    struct Ros2(MessageType);

    impl Decoder for Ros2 {
        fn decode(&self, payload: &[u8], offset: u64) -> Result<Value, Error> {
            self.0.decode(payload, offset).map_err(Error::from)
        }

        /// The definition's type ([`MessageType::value_type`]).
        fn value_type(&self) -> Option<ValueType> {
            self.0.value_type()
        }

        /// The type it decodes with.
        fn cdr_type(&self) -> Option<&MessageType> {
            Some(&self.0)
        }
    }
}

/// Protobuf messages with a `FileDescriptorSet` schema. No declared type
/// (see the [module docs](self)).
#[cfg(feature = "protobuf")]
mod protobuf {
    use super::*;
    use osi_mcap::proto::ProtobufDecoder;

    pub(super) fn factory(
        channel: &ChannelInfo,
        limits: &Limits,
    ) -> Result<Box<dyn Decoder>, Error> {
        let schema = channel.schema.as_ref().ok_or_else(|| {
            Error::InvalidArgument(format!(
                "channel {:?} has protobuf messages but no schema",
                channel.topic
            ))
        })?;
        let decoder =
            ProtobufDecoder::with_limits(&schema.name, &schema.data, limits).map_err(|e| {
                Error::InvalidArgument(format!(
                    "the protobuf schema {:?} of channel {:?}: {e}",
                    schema.name, channel.topic
                ))
            })?;
        Ok(Box::new(Protobuf(decoder)))
    }

    struct Protobuf(ProtobufDecoder);

    impl Decoder for Protobuf {
        fn decode(&self, payload: &[u8], offset: u64) -> Result<Value, Error> {
            self.0.decode(payload).map_err(|e| {
                Error::malformed(
                    offset,
                    format!("a protobuf {} message", self.0.message_name()),
                    e.to_string(),
                )
            })
        }

        fn value_type(&self) -> Option<ValueType> {
            Some(self.0.value_type())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use logcore::{ChannelId, Schema};

    fn channel(encoding: &str, schema: Option<(&str, &str, &[u8])>) -> ChannelInfo {
        let mut c = ChannelInfo::new(ChannelId(3), "/t", "T", encoding);
        c.schema = schema.map(|(name, encoding, data)| {
            Arc::new(Schema {
                name: name.into(),
                encoding: encoding.into(),
                data: data.to_vec(),
            })
        });
        c
    }

    #[test]
    fn json_keeps_key_order_and_number_kinds() {
        let d = Registry::default()
            .decoder_for(&channel("json", Some(("T", "jsonschema", b"{}"))))
            .unwrap()
            .unwrap();
        let v = d
            .decode(br#"{"z": -2, "a": 18446744073709551615, "f": 0.5, "s": "x", "n": null, "l": [true]}"#, 0)
            .unwrap();
        assert_eq!(
            v,
            Value::record([
                ("z", Value::I64(-2)),
                ("a", Value::U64(u64::MAX)),
                ("f", Value::F64(0.5)),
                ("s", Value::String("x".into())),
                ("n", Value::Null),
                ("l", Value::Array(vec![Value::Bool(true)])),
            ])
        );
        let e = d.decode(b"\x00\x01binary", 4096).unwrap_err();
        assert_eq!(e.offset(), Some(4096));
        assert!(e.to_string().contains("expected a JSON document"), "{e}");
    }

    #[test]
    fn json_declares_no_type_even_with_a_schema() {
        // An integer property decodes to U64 or I64 by sign, and members
        // come in the document's order: no declared type would fit.
        let schema = br#"{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}"#;
        let d = Registry::default()
            .decoder_for(&channel("json", Some(("T", "jsonschema", schema))))
            .unwrap()
            .unwrap();
        assert_eq!(d.value_type(), None);
        assert_eq!(
            d.decode(br#"{"b": 1, "a": -1}"#, 0).unwrap(),
            Value::record([("b", Value::U64(1)), ("a", Value::I64(-1))])
        );
    }

    #[test]
    fn unknown_encodings_have_no_decoder_and_custom_ones_can_be_added() {
        let mut r = Registry::default();
        let c = channel("flatbuffer", Some(("T", "flatbuffer", b"")));
        assert!(r.decoder_for(&c).is_none());
        struct Len;
        impl Decoder for Len {
            fn decode(&self, payload: &[u8], _: u64) -> Result<Value, Error> {
                Ok(Value::U64(payload.len() as u64))
            }
        }
        r.register("flatbuffer", Some("flatbuffer"), |_: &ChannelInfo| {
            Ok(Box::new(Len) as Box<dyn Decoder>)
        });
        let d = r.decoder_for(&c).unwrap().unwrap();
        assert_eq!(d.decode(b"abc", 0).unwrap(), Value::U64(3));
        assert!(format!("{r:?}").contains("flatbuffer/flatbuffer"));
    }

    #[cfg(feature = "ros2")]
    #[test]
    fn ros2_decodes_cdr_with_the_schema_definition() {
        let c = channel(
            "cdr",
            Some((
                "geometry_msgs/msg/Point",
                "ros2msg",
                b"# a point\nfloat64 x\nfloat64 y\nfloat64 z\n",
            )),
        );
        let d = Registry::default().decoder_for(&c).unwrap().unwrap();
        let mut payload = vec![0, 1, 0, 0];
        for x in [1.5f64, -2.0, 0.25] {
            payload.extend_from_slice(&x.to_le_bytes());
        }
        assert_eq!(
            d.decode(&payload, 0).unwrap(),
            Value::record([
                ("x", Value::F64(1.5)),
                ("y", Value::F64(-2.0)),
                ("z", Value::F64(0.25)),
            ])
        );
        let point = ValueType::record([
            ("x", ValueType::F64),
            ("y", ValueType::F64),
            ("z", ValueType::F64),
        ]);
        assert_eq!(d.value_type(), Some(point.clone()));
        // One byte short: an error at the file offset of the missing byte.
        let e = d.decode(&payload[..27], 100).unwrap_err();
        assert_eq!(e.offset(), Some(120), "{e}");
        // A broken definition is an error when the decoder is built.
        let bad = channel("cdr", Some(("a/msg/B", "ros2msg", b"flot64 x\n")));
        let e = Registry::default()
            .decoder_for(&bad)
            .unwrap()
            .err()
            .unwrap();
        assert!(e.to_string().contains("a/B"), "{e}");
        // The same type from its IDL.
        let idl = channel(
            "cdr",
            Some((
                "geometry_msgs/msg/Point",
                "ros2idl",
                b"module geometry_msgs { module msg { struct Point { double x; double y; double z; }; }; };",
            )),
        );
        let d = Registry::default().decoder_for(&idl).unwrap().unwrap();
        assert_eq!(d.value_type(), Some(point));
        assert_eq!(
            d.decode(&payload, 0).unwrap().get("z"),
            Some(&Value::F64(0.25))
        );
        // A cdr channel with another schema language has no decoder.
        let other = channel("cdr", Some(("a/B", "omgidl", b"")));
        assert!(Registry::default().decoder_for(&other).is_none());
    }

    #[cfg(feature = "rosbag")]
    #[test]
    fn ros1_decodes_with_the_schema_definition() {
        let c = channel(
            "ros1",
            Some((
                "geometry_msgs/Point",
                "ros1msg",
                b"float64 x\nfloat64 y\nfloat64 z\n",
            )),
        );
        let d = Registry::default().decoder_for(&c).unwrap().unwrap();
        let mut payload = Vec::new();
        for x in [1.5f64, -2.0, 0.25] {
            payload.extend_from_slice(&x.to_le_bytes());
        }
        let v = d.decode(&payload, 0).unwrap();
        let point = ValueType::record([
            ("x", ValueType::F64),
            ("y", ValueType::F64),
            ("z", ValueType::F64),
        ]);
        assert_eq!(d.value_type(), Some(point.clone()));
        assert_eq!(point.admits(&v), Ok(()));
        assert_eq!(
            v,
            Value::record([
                ("x", Value::F64(1.5)),
                ("y", Value::F64(-2.0)),
                ("z", Value::F64(0.25)),
            ])
        );
        // One byte short: an error at the payload's offset, not a panic.
        let e = d.decode(&payload[..23], 100).unwrap_err();
        assert!(e.offset().is_some_and(|o| o >= 100), "{e}");
        // A broken definition is an error when the decoder is built.
        let bad = channel("ros1", Some(("a/B", "ros1msg", b"flot64 x\n")));
        assert!(Registry::default().decoder_for(&bad).unwrap().is_err());
    }
}
