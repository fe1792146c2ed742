//! The config file of a filter (`robolog filter --config rewrite.toml`,
//! `robolog.filter(config=...)`): the options of a repeatable pipeline in
//! TOML, checked against a fixed schema with the line of every error.
//!
//! ```toml
//! topics = ["/imu/*", "/gps/fix", "re:/camera/(left|right)/image"]
//! exclude = ["/rosout*"]
//! start = "10s"            # as --start: seconds after the first message,
//! end = "@1599118800.5"    # @SECONDS on the log's clock, or a UTC instant
//! shift = "-1h"            # a duration: "5s", "500ms", or seconds as a number
//! before = "5s"
//! after = 10
//! compression = "zstd"     # zstd, lz4 or none
//! chunk_size = 4194304
//! storage = "mcap"         # sqlite3 or mcap (a ROS 2 bag folder)
//! split_every = "60s"      # parts of 60 s of log time; or split_size =
//!                          # "1GB" (a size, or bytes) for parts of a size
//!
//! [where]                  # topic = SQL boolean expression
//! "/imu/data" = "linear_acceleration.z > 12 AND header.frame_id = 'imu'"
//!
//! [around]                 # topic = expression, or a list of them
//! "/rosout" = "level >= 8"
//!
//! [rename]                 # old = new
//! "/cam/*" = "/camera/*"
//!
//! [frame_id]               # old = new frame ids (header.frame_id, tf)
//! "camera" = "camera_link"
//! ```
//!
//! and, to share a log, `anonymise = true`, `gps_offset = [0.71, -1.3]`
//! (degrees of latitude and longitude) and `drop_text = true`, as the
//! flags of those names.
//!
//! Lists (`topics`, `exclude`) take an array of strings or one string. A
//! key that is not in [`FilterConfig::KEYS`], or a value of the wrong
//! type, is a [`ConfigError`] naming the key and its line; so is a
//! duration or time that does not parse. Topic names are TOML keys in the
//! tables, quoted (`"/imu/data" = ...`): an unquoted dotted key
//! (`imu.data = ...`) makes a nested table, refused with that hint.
//!
//! How the options of a file combine with those given with it (command
//! line flags, Python keyword arguments) is the caller's: `robolog filter`
//! and `robolog.filter` add lists and tables to the file's and let a
//! single value replace the file's.

use std::fmt;
use std::ops::Range;

use logcore::timearg::{TimeArg, parse_duration};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// The options of a filter config file (see the module docs); what the
/// file does not give is empty or `None`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FilterConfig {
    /// Topic patterns to keep (`--topic`).
    pub topics: Vec<String>,
    /// Topic patterns to leave out (`--exclude-topic`).
    pub exclude: Vec<String>,
    /// (topic, expression) of `--where`, in the file's order.
    pub wheres: Vec<(String, String)>,
    /// (topic, expression) of `--around`, in the file's order.
    pub around: Vec<(String, String)>,
    /// `--before`, in nanoseconds.
    pub before: Option<i64>,
    /// `--after`, in nanoseconds.
    pub after: Option<i64>,
    /// `--start`.
    pub start: Option<TimeArg>,
    /// `--end`.
    pub end: Option<TimeArg>,
    /// `--shift`, in nanoseconds.
    pub shift: Option<i64>,
    /// (old, new) of `--rename`, in the file's order.
    pub rename: Vec<(String, String)>,
    /// `--compression`: `zstd`, `lz4` or `none`.
    pub compression: Option<String>,
    /// `--chunk-size`, in bytes (at least 1).
    pub chunk_size: Option<u64>,
    /// `--storage`: `sqlite3` or `mcap`.
    pub storage: Option<String>,
    /// `--split-every`, in nanoseconds (more than 0).
    pub split_every: Option<i64>,
    /// `--split-size`, in bytes (at least 1).
    pub split_size: Option<u64>,
    /// `--restamp`: `header`.
    pub restamp: Option<String>,
    /// (old, new) of `--frame-id`, in the file's order.
    pub frame_id: Vec<(String, String)>,
    /// `--anonymise`.
    pub anonymise: Option<bool>,
    /// `--gps-offset`: (latitude, longitude) in degrees.
    pub gps_offset: Option<(f64, f64)>,
    /// `--drop-text`.
    pub drop_text: Option<bool>,
}

/// An error of a config file: its 1-based line and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The line of the key or value at fault (1 for the first line).
    pub line: usize,
    /// The top-level key it is about, when there is one.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ConfigError {}

/// What each kind of value takes, for the errors.
const PATTERNS: &str = "an array of topic patterns (strings), or one";
const DURATION: &str = "a duration: a string such as \"5s\" or \"500ms\", or seconds as a number";
const TIME: &str = "a time as --start takes it: a string (\"12.5s\", \"@1599118744.5\", \
                    \"2019-05-13T14:09:15Z\"), seconds after the first message as a number, or \
                    a TOML date-time";
const SIZE: &str =
    "a size: a string such as \"1GB\", \"500MB\" or \"64MiB\", or bytes as an integer";
const EXPRESSIONS: &str = "a table of topic = \"SQL boolean expression\"";
const OFFSET: &str = "an array [latitude, longitude] of degrees";

impl FilterConfig {
    /// The keys of the schema, each with what it takes.
    pub const KEYS: [(&'static str, &'static str); 20] = [
        ("topics", PATTERNS),
        ("exclude", PATTERNS),
        ("where", EXPRESSIONS),
        ("around", EXPRESSIONS),
        ("before", DURATION),
        ("after", DURATION),
        ("start", TIME),
        ("end", TIME),
        ("shift", DURATION),
        ("rename", "a table of \"old\" = \"new\" topic names"),
        ("compression", "\"zstd\", \"lz4\" or \"none\""),
        ("chunk_size", "a positive integer (bytes)"),
        ("storage", "\"sqlite3\" or \"mcap\""),
        ("split_every", DURATION),
        ("split_size", SIZE),
        ("restamp", "\"header\""),
        ("frame_id", "a table of \"old\" = \"new\" frame ids"),
        ("anonymise", "true or false"),
        ("gps_offset", OFFSET),
        ("drop_text", "true or false"),
    ];

    /// Parses and checks the TOML text of a config file.
    ///
    /// ```
    /// use robolog::convert::FilterConfig;
    /// let c = FilterConfig::parse("topics = [\"/imu/*\"]\nbefore = \"5s\"\n[where]\n\"/imu\" = \"x > 1\"\n")?;
    /// assert_eq!(c.topics, ["/imu/*"]);
    /// assert_eq!(c.before, Some(5_000_000_000));
    /// assert_eq!(c.wheres, [("/imu".to_string(), "x > 1".to_string())]);
    /// let e = FilterConfig::parse("topics = []\ntopic = \"/imu\"\n").unwrap_err();
    /// assert_eq!((e.line, e.key.as_deref()), (2, Some("topic")));
    /// # Ok::<(), robolog::convert::ConfigError>(())
    /// ```
    pub fn parse(text: &str) -> Result<FilterConfig, ConfigError> {
        let doc = DeTable::parse(text).map_err(|e| ConfigError {
            line: e.span().map_or(1, |s| line_of(text, s.start)),
            key: None,
            message: format!("not TOML: {}", e.message().trim_end()),
        })?;
        let mut entries: Vec<_> = doc.get_ref().iter().collect();
        entries.sort_by_key(|(k, _)| k.span().start);
        let mut c = FilterConfig::default();
        for (key, value) in entries {
            let name = key.get_ref().as_ref();
            let at = Place {
                text,
                key: name,
                line: line_of(text, key.span().start),
            };
            match name {
                "topics" => c.topics = at.strings(value)?,
                "exclude" => c.exclude = at.strings(value)?,
                "where" => c.wheres = at.expressions(value, false)?,
                "around" => c.around = at.expressions(value, true)?,
                "before" => c.before = Some(at.duration(value, false)?),
                "after" => c.after = Some(at.duration(value, false)?),
                "shift" => c.shift = Some(at.duration(value, true)?),
                "start" => c.start = Some(at.time(value)?),
                "end" => c.end = Some(at.time(value)?),
                "rename" => c.rename = at.renames(value)?,
                "compression" => {
                    c.compression = Some(at.choice(value, &["zstd", "lz4", "none"])?);
                }
                "chunk_size" => c.chunk_size = Some(at.positive(value)?),
                "storage" => c.storage = Some(at.choice(value, &["sqlite3", "mcap"])?),
                "split_every" => {
                    let d = at.duration(value, false)?;
                    if d == 0 {
                        return Err(at.error(value.span(), "split_every: 0 is no interval".into()));
                    }
                    c.split_every = Some(d);
                }
                "split_size" => c.split_size = Some(at.size(value)?),
                "restamp" => c.restamp = Some(at.choice(value, &["header"])?),
                "frame_id" => c.frame_id = at.renames(value)?,
                "anonymise" => c.anonymise = Some(at.boolean(value)?),
                "gps_offset" => c.gps_offset = Some(at.offset(value)?),
                "drop_text" => c.drop_text = Some(at.boolean(value)?),
                _ => {
                    let known: Vec<&str> = Self::KEYS.iter().map(|(k, _)| *k).collect();
                    return Err(at.error(
                        key.span(),
                        format!("unknown key `{name}`; the keys: {}", known.join(", ")),
                    ));
                }
            }
        }
        Ok(c)
    }
}

/// The 1-based line of byte `offset` of `text`.
fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    1 + text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// The TOML type of a value, as errors name it.
fn kind(v: &DeValue<'_>) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date-time",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

/// A top-level key being checked.
struct Place<'t> {
    text: &'t str,
    key: &'t str,
    line: usize,
}

type Value<'i> = Spanned<DeValue<'i>>;

impl Place<'_> {
    /// An error at `span` (its line) about this key.
    fn error(&self, span: Range<usize>, message: String) -> ConfigError {
        ConfigError {
            line: if span.is_empty() && span.start == 0 {
                self.line
            } else {
                line_of(self.text, span.start)
            },
            key: Some(self.key.to_string()),
            message,
        }
    }

    /// The error of a value of the wrong type.
    fn wrong(&self, v: &Value<'_>, wanted: &str) -> ConfigError {
        self.error(
            v.span(),
            format!(
                "{}: expected {wanted}, found {}",
                self.key,
                kind(v.get_ref())
            ),
        )
    }

    /// A string, or an array of strings.
    fn strings(&self, v: &Value<'_>) -> Result<Vec<String>, ConfigError> {
        match v.get_ref() {
            DeValue::String(s) => Ok(vec![s.to_string()]),
            DeValue::Array(items) => items
                .iter()
                .map(|i| match i.get_ref() {
                    DeValue::String(s) => Ok(s.to_string()),
                    _ => Err(self.wrong(i, "a string in the array")),
                })
                .collect(),
            _ => Err(self.wrong(v, PATTERNS)),
        }
    }

    /// A table of topic = expression; `several`: an expression or an
    /// array of them per topic.
    fn expressions(
        &self,
        v: &Value<'_>,
        several: bool,
    ) -> Result<Vec<(String, String)>, ConfigError> {
        let mut out = Vec::new();
        for (topic, expr) in self.table(v, EXPRESSIONS)? {
            let exprs = match expr.get_ref() {
                DeValue::String(s) => vec![s.to_string()],
                DeValue::Array(items) if several => items
                    .iter()
                    .map(|i| match i.get_ref() {
                        DeValue::String(s) => Ok(s.to_string()),
                        _ => Err(self.wrong(i, "a string expression")),
                    })
                    .collect::<Result<_, _>>()?,
                DeValue::Table(_) => return Err(self.dotted(expr, &topic)),
                _ => {
                    return Err(self.wrong(
                        expr,
                        if several {
                            "a string expression, or an array of them"
                        } else {
                            "a string expression"
                        },
                    ));
                }
            };
            for e in exprs {
                if e.trim().is_empty() {
                    return Err(self.error(
                        expr.span(),
                        format!("{}: {topic}: an empty expression", self.key),
                    ));
                }
                out.push((topic.clone(), e));
            }
        }
        Ok(out)
    }

    /// A table of old = new names.
    fn renames(&self, v: &Value<'_>) -> Result<Vec<(String, String)>, ConfigError> {
        let mut out = Vec::new();
        for (old, new) in self.table(v, "a table of \"old\" = \"new\" topic names")? {
            match new.get_ref() {
                DeValue::String(s) => out.push((old, s.to_string())),
                DeValue::Table(_) => return Err(self.dotted(new, &old)),
                _ => return Err(self.wrong(new, "a string (the new name)")),
            }
        }
        Ok(out)
    }

    /// The entries of a table, in the file's order.
    fn table<'v, 'i>(
        &self,
        v: &'v Value<'i>,
        wanted: &str,
    ) -> Result<Vec<(String, &'v Value<'i>)>, ConfigError> {
        let DeValue::Table(t) = v.get_ref() else {
            return Err(self.wrong(v, wanted));
        };
        let mut entries: Vec<_> = t.iter().collect();
        entries.sort_by_key(|(k, _)| k.span().start);
        Ok(entries
            .into_iter()
            .map(|(k, v)| (k.get_ref().to_string(), v))
            .collect())
    }

    /// The error of a nested table where a topic's string belongs: most
    /// likely a topic name written as a dotted key.
    fn dotted(&self, v: &Value<'_>, name: &str) -> ConfigError {
        self.error(
            v.span(),
            format!(
                "{}: {name}: expected a string, found a table; quote topic names (\"/a.b\" = \
                 ...): TOML reads an unquoted key with a `.` as nested tables",
                self.key
            ),
        )
    }

    /// The text of a number (a TOML integer or float), in decimal.
    fn number(v: &DeValue<'_>) -> Option<String> {
        match v {
            DeValue::Integer(i) if i.radix() == 10 => Some(i.as_str().to_string()),
            DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix())
                .ok()
                .map(|n| n.to_string()),
            DeValue::Float(f) => Some(f.as_str().to_string()),
            _ => None,
        }
    }

    /// A duration in nanoseconds; `negative`: may be below zero.
    fn duration(&self, v: &Value<'_>, negative: bool) -> Result<i64, ConfigError> {
        let text = match v.get_ref() {
            DeValue::String(s) => s.to_string(),
            other => Self::number(other).ok_or_else(|| self.wrong(v, DURATION))?,
        };
        let ns = parse_duration(&text).ok_or_else(|| {
            self.error(
                v.span(),
                format!(
                    "{}: {text:?} is not a duration: give seconds or a unit (5s, 500ms, 2min)",
                    self.key
                ),
            )
        })?;
        if ns < 0 && !negative {
            return Err(self.error(v.span(), format!("{}: {text:?} is negative", self.key)));
        }
        Ok(ns)
    }

    /// A time as `--start` takes it.
    fn time(&self, v: &Value<'_>) -> Result<TimeArg, ConfigError> {
        let text = match v.get_ref() {
            DeValue::String(s) => s.to_string(),
            DeValue::Datetime(d) => d.to_string(),
            other => Self::number(other).ok_or_else(|| self.wrong(v, TIME))?,
        };
        text.parse::<TimeArg>()
            .map_err(|e| self.error(v.span(), format!("{}: {e}", self.key)))
    }

    /// `true` or `false`.
    fn boolean(&self, v: &Value<'_>) -> Result<bool, ConfigError> {
        match v.get_ref() {
            DeValue::Boolean(b) => Ok(*b),
            _ => Err(self.wrong(v, "true or false")),
        }
    }

    /// `[latitude, longitude]` in degrees, within ±90 and ±180.
    fn offset(&self, v: &Value<'_>) -> Result<(f64, f64), ConfigError> {
        let DeValue::Array(items) = v.get_ref() else {
            return Err(self.wrong(v, OFFSET));
        };
        let degrees: Vec<f64> = items
            .iter()
            .map(|i| Self::number(i.get_ref()).and_then(|n| n.parse().ok()))
            .collect::<Option<_>>()
            .ok_or_else(|| self.wrong(v, OFFSET))?;
        match degrees[..] {
            [lat, lon] if lat.abs() <= 90.0 && lon.abs() <= 180.0 => Ok((lat, lon)),
            _ => Err(self.error(
                v.span(),
                format!(
                    "{}: expected {OFFSET} (a latitude within ±90, a longitude within ±180)",
                    self.key
                ),
            )),
        }
    }

    /// One of `choices`.
    fn choice(&self, v: &Value<'_>, choices: &[&str]) -> Result<String, ConfigError> {
        let DeValue::String(s) = v.get_ref() else {
            return Err(self.wrong(v, &format!("one of the strings {}", choices.join(", "))));
        };
        if choices.contains(&s.as_ref()) {
            Ok(s.to_string())
        } else {
            Err(self.error(
                v.span(),
                format!("{}: {s:?} is not one of {}", self.key, choices.join(", ")),
            ))
        }
    }

    /// A size: bytes as an integer, or a text with a unit.
    fn size(&self, v: &Value<'_>) -> Result<u64, ConfigError> {
        match v.get_ref() {
            DeValue::Integer(_) => self.positive(v),
            DeValue::String(s) => super::parse_size(s).ok_or_else(|| {
                self.error(
                    v.span(),
                    format!(
                        "{}: {s:?} is not a size: give bytes or a unit (500MB, 1GB, 64MiB)",
                        self.key
                    ),
                )
            }),
            _ => Err(self.wrong(v, SIZE)),
        }
    }

    /// A positive integer.
    fn positive(&self, v: &Value<'_>) -> Result<u64, ConfigError> {
        let DeValue::Integer(i) = v.get_ref() else {
            return Err(self.wrong(v, "a positive integer"));
        };
        match u64::from_str_radix(i.as_str(), i.radix()) {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(self.error(
                v.span(),
                format!("{}: {i} is not a positive integer", self.key),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anonymisation_keys() {
        let c =
            FilterConfig::parse("anonymise = true\ngps_offset = [0.5, -2]\ndrop_text = false\n")
                .unwrap();
        assert_eq!(
            (c.anonymise, c.gps_offset, c.drop_text),
            (Some(true), Some((0.5, -2.0)), Some(false))
        );
        assert_eq!(
            FilterConfig::parse("\ngps_offset = [91, 0]\n")
                .unwrap_err()
                .line,
            2
        );
        assert!(FilterConfig::parse("gps_offset = [1]").is_err());
        assert!(FilterConfig::parse("anonymise = \"yes\"").is_err());
    }

    fn err(text: &str) -> ConfigError {
        FilterConfig::parse(text).unwrap_err()
    }

    #[test]
    fn every_key_parses() {
        let c = FilterConfig::parse(
            r#"
topics = ["/imu/*", "re:/f.x"]
exclude = "/rosout*"
before = "5s"
after = 2.5
shift = -3600
start = "10s"
end = 2019-05-13T14:09:15Z
compression = "lz4"
chunk_size = 0x1000
storage = "mcap"
split_every = "1min"
split_size = "64MiB"
restamp = "header"

[where]
"/imu/data" = "linear_acceleration.z > 12"
"/fix" = "latitude > 1"

[around]
"/rosout" = ["level >= 8", "name = 'x'"]

[rename]
"/cam/*" = "/camera/*"

[frame_id]
"cam" = "camera_link"
"#,
        )
        .unwrap();
        assert_eq!(c.topics, ["/imu/*", "re:/f.x"]);
        assert_eq!(c.exclude, ["/rosout*"]);
        assert_eq!(c.before, Some(5_000_000_000));
        assert_eq!(c.after, Some(2_500_000_000));
        assert_eq!(c.shift, Some(-3_600_000_000_000));
        assert_eq!(c.start, Some("10s".parse().unwrap()));
        assert_eq!(c.end, Some("2019-05-13T14:09:15Z".parse().unwrap()));
        assert_eq!(c.compression.as_deref(), Some("lz4"));
        assert_eq!(c.chunk_size, Some(4096));
        assert_eq!(c.storage.as_deref(), Some("mcap"));
        assert_eq!(c.split_every, Some(60_000_000_000));
        assert_eq!(c.split_size, Some(64 << 20));
        assert_eq!(
            FilterConfig::parse("split_size = 4096").unwrap().split_size,
            Some(4096)
        );
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(
            c.wheres,
            [
                pair("/imu/data", "linear_acceleration.z > 12"),
                pair("/fix", "latitude > 1")
            ]
        );
        assert_eq!(
            c.around,
            [pair("/rosout", "level >= 8"), pair("/rosout", "name = 'x'")]
        );
        assert_eq!(c.rename, [pair("/cam/*", "/camera/*")]);
        assert_eq!(c.restamp.as_deref(), Some("header"));
        assert_eq!(c.frame_id, [pair("cam", "camera_link")]);
        assert_eq!(FilterConfig::parse("").unwrap(), FilterConfig::default());
    }

    #[test]
    fn unknown_keys_name_the_key_and_line() {
        let e = err("topics = [\"/a\"]\n\n  exclude_topic = [\"/b\"]\n");
        assert_eq!(e.line, 3);
        assert_eq!(e.key.as_deref(), Some("exclude_topic"));
        assert!(e.message.contains("unknown key `exclude_topic`"), "{e}");
        assert!(e.message.contains("topics, exclude, where"), "{e}");
        // A table header is a key too.
        assert_eq!(err("before = 1\n[wheres]\n\"/a\" = \"x\"\n").line, 2);
    }

    #[test]
    fn wrong_types_give_the_line_of_the_value() {
        let e = err("topics = [\"/a\",\n  3]\n");
        assert_eq!((e.line, e.key.as_deref()), (2, Some("topics")));
        assert!(e.message.contains("found an integer"), "{e}");
        let e = err("\nbefore = true\n");
        assert_eq!(e.line, 2);
        assert!(e.message.contains("expected a duration"), "{e}");
        let e = err("[where]\n\"/a\" = 1\n");
        assert_eq!(e.line, 2);
        let e = err("where = \"x > 1\"\n");
        assert!(e.message.contains("expected a table"), "{e}");
        let e = err("chunk_size = 0\n");
        assert!(e.message.contains("not a positive integer"), "{e}");
        let e = err("compression = \"gzip\"\n");
        assert!(e.message.contains("zstd, lz4, none"), "{e}");
        let e = err("a = 1\nbefore = \"5 parsecs\"\n");
        // The first error in the file's order.
        assert_eq!((e.line, e.key.as_deref()), (1, Some("a")));
        let e = err("before = \"5 parsecs\"\n");
        assert!(e.message.contains("not a duration"), "{e}");
        assert!(err("before = \"-1s\"\n").message.contains("negative"));
        assert!(
            err("split_size = \"1 parsec\"\n")
                .message
                .contains("not a size")
        );
        assert!(err("split_every = 0\n").message.contains("no interval"));
        assert!(
            err("split_size = true\n")
                .message
                .contains("expected a size")
        );
        let e = err("start = \"soon\"\n");
        assert_eq!(e.key.as_deref(), Some("start"));
    }

    #[test]
    fn dotted_topic_names_are_explained() {
        let e = err("[where]\nimu.data = \"x > 1\"\n");
        assert_eq!(e.line, 2);
        assert!(e.message.contains("quote topic names"), "{e}");
    }

    #[test]
    fn toml_syntax_errors_have_a_line() {
        let e = err("topics = [\"/a\"]\nbefore = \n");
        assert_eq!(e.line, 2);
        assert!(e.message.starts_with("not TOML"), "{e}");
        let e = err("before = 1\nbefore = 2\n");
        assert_eq!(e.line, 2, "{e}");
    }
}
