//! Reading and writing the YAML of `metadata.yaml` through the `saphyr`
//! project: `saphyr-parser`'s events become a small tree ([`Node`]) that
//! [`crate::metadata`] maps onto its typed structs, and `saphyr`'s
//! emitter writes the tree [`crate::metadata`] builds.
//!
//! Budgets: the input is at most [`MAX_INPUT`] bytes, collections nest at
//! most [`MAX_DEPTH`] deep, and anchors, aliases and tags are refused at
//! the first one (rosbag2 never writes them), so no document expands
//! beyond its size: a "billion laughs" stops at its first anchor. Errors
//! name the line, the column and the byte offset ([`YamlError`]).

use saphyr::{Marker, ScalarStyle, ScanError};
use saphyr_parser::{Event, Parser};

/// The largest document parsed, in bytes (64 MiB).
pub(crate) const MAX_INPUT: usize = 64 << 20;

/// The deepest nesting of collections parsed.
pub(crate) const MAX_DEPTH: usize = 64;

/// A document that is not YAML this crate reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at line {line}, column {column} (byte {offset}): expected {expected}, found {found}")]
pub struct YamlError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in bytes).
    pub column: usize,
    /// Byte offset in the document.
    pub offset: usize,
    /// What the parser expected there.
    pub expected: String,
    /// What was there instead.
    pub found: String,
}

/// A parsed node. Scalars keep their text; typing (`~` is null, `42` an
/// integer) is up to the accessor, as YAML's core schema says, and
/// applies to plain scalars only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Node {
    /// A scalar and whether it was plain (unquoted, not a block).
    Scalar(String, bool),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, its entries in document order.
    Map(Vec<(String, Node)>),
}

/// The null of an empty document.
pub(crate) const EMPTY: Node = Node::Scalar(String::new(), true);

impl Node {
    /// The value of `key` in a mapping (the first, if written twice).
    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Map(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The elements of a sequence (null is no elements).
    pub(crate) fn as_seq(&self) -> Option<&[Node]> {
        match self {
            Node::Seq(s) => Some(s),
            n if n.is_null() => Some(&[]),
            _ => None,
        }
    }

    /// The entries of a mapping (null is no entries).
    pub(crate) fn as_map(&self) -> Option<&[(String, Node)]> {
        match self {
            Node::Map(m) => Some(m),
            n if n.is_null() => Some(&[]),
            _ => None,
        }
    }

    /// The text of a scalar, whatever its style.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Node::Scalar(s, _) => Some(s),
            _ => None,
        }
    }

    /// True for the plain scalars ``, `~`, `null`, `Null` and `NULL`.
    pub(crate) fn is_null(&self) -> bool {
        self.plain()
            .is_some_and(|t| matches!(t, "" | "~" | "null" | "Null" | "NULL"))
    }

    /// A plain scalar read as an unsigned integer (decimal, `0x` hex or
    /// `0o` octal).
    pub(crate) fn as_u64(&self) -> Option<u64> {
        unsigned(self.plain()?)
    }

    /// A plain scalar read as a signed integer.
    pub(crate) fn as_i64(&self) -> Option<i64> {
        let t = self.plain()?;
        match t.strip_prefix('-') {
            Some(rest) => 0i64.checked_sub_unsigned(unsigned(rest)?),
            None => i64::try_from(unsigned(t)?).ok(),
        }
    }

    /// A plain scalar read as a boolean.
    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self.plain()? {
            "true" | "True" | "TRUE" => Some(true),
            "false" | "False" | "FALSE" => Some(false),
            _ => None,
        }
    }

    fn plain(&self) -> Option<&str> {
        match self {
            Node::Scalar(t, true) => Some(t),
            _ => None,
        }
    }

    /// What the node is, for errors: a scalar's text (cut short), else
    /// its kind.
    pub(crate) fn describe(&self) -> String {
        match self {
            Node::Scalar(s, true) if s.is_empty() => "nothing".into(),
            Node::Scalar(s, _) => format!("`{}`", s.chars().take(40).collect::<String>()),
            Node::Seq(_) => "a sequence".into(),
            Node::Map(_) => "a mapping".into(),
        }
    }
}

fn unsigned(t: &str) -> Option<u64> {
    let t = t.strip_prefix('+').unwrap_or(t);
    if let Some(h) = t.strip_prefix("0x") {
        return u64::from_str_radix(h, 16).ok();
    }
    if let Some(o) = t.strip_prefix("0o") {
        return u64::from_str_radix(o, 8).ok();
    }
    t.parse().ok()
}

/// The line, byte column and byte offset of a parser position (which
/// counts characters).
fn error_at(text: &str, at: &Marker, expected: &str, found: impl Into<String>) -> YamlError {
    let offset = text
        .char_indices()
        .nth(at.index())
        .map_or(text.len(), |(i, _)| i);
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    YamlError {
        line: 1 + text[..offset].matches('\n').count(),
        column: 1 + offset - line_start,
        offset,
        expected: expected.into(),
        found: found.into(),
    }
}

/// The parser's error, with what was expected where it can be said
/// shortly and the character found there.
fn scan_error(text: &str, e: &ScanError) -> YamlError {
    let info = e.info();
    if info.contains("quoted scalar") && info.contains("end of stream") {
        return error_at(
            text,
            e.marker(),
            "a closing quote",
            "the end of the document",
        );
    }
    if info.contains("recursion limit") {
        let expected = format!("collections nested at most {MAX_DEPTH} deep");
        return error_at(text, e.marker(), &expected, "a deeper one");
    }
    let mut err = error_at(text, e.marker(), "", "");
    if text[err.offset..].starts_with('*') {
        // An alias whose anchor was never defined (a defined one is
        // refused at the anchor).
        err.expected = "a node (anchors and aliases are not read)".into();
        err.found = "an alias (`*`)".into();
        return err;
    }
    err.expected = format!("well-formed YAML ({info})");
    err.found = text[err.offset..]
        .chars()
        .next()
        .map_or("the end of the document".into(), |c| format!("{c:?}"));
    err
}

/// An open collection: a sequence, or a mapping with its pending key.
enum Open {
    Seq(Vec<Node>),
    Map(Vec<(String, Node)>, Option<(String, Marker)>),
}

/// Parses one YAML document within the budgets.
pub(crate) fn parse(text: &str) -> Result<Node, YamlError> {
    if text.len() > MAX_INPUT {
        return Err(YamlError {
            line: 1,
            column: 1,
            offset: 0,
            expected: format!("a document of at most {MAX_INPUT} bytes"),
            found: format!("{} bytes", text.len()),
        });
    }
    let mut parser = Parser::new_from_str(text);
    let mut stack: Vec<Open> = Vec::new();
    let mut root = None;
    let mut documents = 0;
    while let Some(event) = parser.next_event() {
        let (event, span) = event.map_err(|e| scan_error(text, &e))?;
        let refuse =
            |expected: &str, found: &str| Err(error_at(text, &span.start, expected, found));
        let node = match event {
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return refuse("the end of the document (one document only)", "another one");
                }
                continue;
            }
            Event::Alias(_) => {
                return refuse(
                    "a node (anchors and aliases are not read)",
                    "an alias (`*`)",
                );
            }
            Event::Scalar(_, _, anchor, _)
            | Event::SequenceStart(anchor, _)
            | Event::MappingStart(anchor, _)
                if anchor != 0 =>
            {
                return refuse(
                    "a node (anchors and aliases are not read)",
                    "an anchor (`&`)",
                );
            }
            Event::Scalar(.., Some(_))
            | Event::SequenceStart(_, Some(_))
            | Event::MappingStart(_, Some(_)) => {
                return refuse("a node (tags are not read)", "a tag (`!`)");
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                if stack.len() >= MAX_DEPTH {
                    return refuse(
                        &format!("collections nested at most {MAX_DEPTH} deep"),
                        "a deeper one",
                    );
                }
                stack.push(if matches!(event, Event::SequenceStart(..)) {
                    Open::Seq(Vec::new())
                } else {
                    Open::Map(Vec::new(), None)
                });
                continue;
            }
            Event::Scalar(s, style, ..) => {
                Node::Scalar(s.into_owned(), style == ScalarStyle::Plain)
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                Some(Open::Seq(s)) => Node::Seq(s),
                Some(Open::Map(m, _)) => Node::Map(m),
                None => continue,
            },
            _ => continue,
        };
        match stack.last_mut() {
            None => root = Some(node),
            Some(Open::Seq(s)) => s.push(node),
            Some(Open::Map(m, key)) => match (key.take(), node) {
                (Some((k, _)), node) => m.push((k, node)),
                (None, Node::Scalar(k, _)) => {
                    if m.iter().any(|(seen, _)| *seen == k) {
                        return refuse("each key once in a mapping", &format!("a second `{k}`"));
                    }
                    *key = Some((k, span.start));
                }
                (None, other) => return refuse("a scalar key", &other.describe()),
            },
        }
    }
    Ok(root.unwrap_or(EMPTY))
}

/// The text of a document built for the emitter (without the `---` the
/// emitter starts with), ending with a line break.
pub(crate) fn emit(doc: &saphyr::Yaml<'_>) -> String {
    let mut out = String::new();
    // Writing into a `String` cannot fail, and the tree holds no key the
    // emitter refuses (every key is a string).
    let _ = saphyr::YamlEmitter::new(&mut out).dump(doc);
    let mut body = out.strip_prefix("---\n").unwrap_or(&out).to_string();
    body.push('\n');
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> Node {
        Node::Scalar(t.into(), true)
    }

    #[test]
    fn mappings_sequences_and_compact_entries() {
        let y = parse(
            "a: 1\nb:\n  - x\n  - y: 2\n    z: [1, 2]\nc:\n- same\nd: {k: v, e: []}\n# done\n",
        )
        .unwrap();
        assert_eq!(y.get("a"), Some(&s("1")));
        let b = y.get("b").unwrap().as_seq().unwrap();
        assert_eq!(b[0], s("x"));
        assert_eq!(b[1].get("y"), Some(&s("2")));
        assert_eq!(b[1].get("z"), Some(&Node::Seq(vec![s("1"), s("2")])));
        assert_eq!(y.get("c"), Some(&Node::Seq(vec![s("same")])));
        assert_eq!(y.get("d").unwrap().get("k"), Some(&s("v")));
        assert_eq!(y.get("d").unwrap().get("e"), Some(&Node::Seq(vec![])));
    }

    #[test]
    fn scalars_of_every_style() {
        let y = parse(
            "d: \"a\\nb\\t\\\"q\\\" \\u00e9\\x41\"\ns: 'it''s'\np: plain text # comment\n\
             l: |\n  line1\n   line2\n\nf: >-\n  folded\n  text\n\n  para\ne:\nn: ~\n\
             m: \"multi\n  line\"\n",
        )
        .unwrap();
        assert_eq!(y.get("d").unwrap().as_str(), Some("a\nb\t\"q\" éA"));
        assert_eq!(y.get("s").unwrap().as_str(), Some("it's"));
        assert_eq!(y.get("p").unwrap().as_str(), Some("plain text"));
        assert_eq!(y.get("l").unwrap().as_str(), Some("line1\n line2\n"));
        assert_eq!(y.get("f").unwrap().as_str(), Some("folded text\npara"));
        assert!(y.get("e").unwrap().is_null());
        assert!(y.get("n").unwrap().is_null());
        assert_eq!(y.get("m").unwrap().as_str(), Some("multi line"));
        assert_eq!(parse("x: -5").unwrap().get("x").unwrap().as_i64(), Some(-5));
        assert_eq!(
            parse("x: true").unwrap().get("x").unwrap().as_bool(),
            Some(true)
        );
        assert_eq!(parse("x: '5'").unwrap().get("x").unwrap().as_u64(), None);
    }

    #[test]
    fn errors_name_line_column_and_expectation() {
        let e = parse("a: 1\n  b: 2\n").unwrap_err();
        assert_eq!((e.line, e.column, e.offset), (2, 4, 8), "{e}");
        assert_eq!(e.found, "':'", "{e}");
        // Columns and offsets count bytes, not characters.
        let e = parse("é: 1\n  b: 2\n").unwrap_err();
        assert_eq!((e.line, e.column, e.offset), (2, 4, 9), "{e}");
        let e = parse("a: \"open\n").unwrap_err();
        assert_eq!((e.line, e.column, e.offset), (1, 4, 3), "{e}");
        assert_eq!(e.expected, "a closing quote");
        let e = parse("a: [1, 2\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let e = parse("a: 1\na: 2\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "at line 2, column 1 (byte 5): expected each key once in a mapping, found a second `a`"
        );
        let e = parse("a: 1\n---\nb: 2\n").unwrap_err();
        assert!(e.to_string().contains("one document"), "{e}");
        let e = parse("a: !!str 1\n").unwrap_err();
        assert!(e.to_string().contains("a tag"), "{e}");
    }

    #[test]
    fn a_billion_laughs_stops_at_its_first_anchor() {
        let mut doc = String::from("a: &a [\"lol\", \"lol\"]\n");
        for i in 1..30 {
            let p = i - 1;
            doc.push_str(&format!("a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}]\n"));
        }
        let e = parse(&doc).unwrap_err();
        assert_eq!(
            e.to_string(),
            "at line 1, column 4 (byte 3): expected a node (anchors and aliases are not read), \
             found an anchor (`&`)"
        );
        let e = parse("a: [1]\nb: *a\n").unwrap_err();
        assert_eq!((e.line, e.column, e.offset), (2, 4, 10), "{e}");
        assert_eq!(e.found, "an alias (`*`)");
    }

    #[test]
    fn nesting_is_bounded() {
        // Within the bound, then one deeper.
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(parse(&ok).is_ok());
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        let e = parse(&deep).unwrap_err();
        assert_eq!((e.line, e.column, e.offset), (1, 65, 64), "{e}");
        assert!(e.to_string().contains("nested at most 64 deep"), "{e}");
        // An unclosed flood of brackets stops at the scanner's own bound.
        let e = parse(&"[".repeat(1 << 20)).unwrap_err();
        assert_eq!(e.offset, 255, "{e}");
        assert!(e.to_string().contains("nested at most 64 deep"), "{e}");
        let mut deep = String::new();
        for i in 0..100 {
            deep.push_str(&" ".repeat(i));
            deep.push_str("k:\n");
        }
        let e = parse(&deep).unwrap_err();
        assert!(e.to_string().contains("nested at most 64 deep"), "{e}");
        assert_eq!(e.line, 65, "{e}");
    }

    #[test]
    fn empty_and_scalar_documents() {
        assert!(parse("").unwrap().is_null());
        assert!(parse("# only a comment\n").unwrap().is_null());
        assert_eq!(parse("---\nfoo\n").unwrap(), s("foo"));
        assert_eq!(parse("[]").unwrap(), Node::Seq(vec![]));
    }
}
