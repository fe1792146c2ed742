//! A small YAML subset, enough for rosbag2's `metadata.yaml` (as
//! yaml-cpp writes it) and for the QoS profiles stored as YAML text.
//!
//! Supported: block mappings and block sequences (including the compact
//! `- key: value` form and a sequence at its key's indentation), plain,
//! single-quoted and double-quoted scalars (every YAML escape, quoted
//! scalars over several lines), literal (`|`) and folded (`>`) block
//! scalars with chomping indicators and explicit indentation, flow
//! sequences `[...]` and flow mappings `{...}` (nested, over several
//! lines), comments, and one optional `---` document start. Anchors,
//! aliases, tags and several documents are refused with an error, so a
//! document can never expand beyond its size.
//!
//! Scalars keep their text and style ([`Scalar`]); typing (`~` is null,
//! `42` an integer, `true` a boolean) is up to the accessor the caller
//! uses, as YAML's core schema says. Errors name the line, column and
//! byte offset and what was expected ([`YamlError`]). Input size and
//! nesting depth are bounded ([`MAX_INPUT`], [`MAX_DEPTH`]).
//!
//! ```
//! let doc = rosbag2::yaml::parse("a:\n  - x: 1\n    y: 'two'\nb: [3, {c: ~}]\n")?;
//! assert_eq!(doc.get("a").and_then(|a| a.at(0)).and_then(|e| e.get("x")).and_then(|x| x.as_u64()), Some(1));
//! assert_eq!(doc.get("a").unwrap().at(0).unwrap().get("y").unwrap().as_str(), Some("two"));
//! assert!(doc.get("b").unwrap().at(1).unwrap().get("c").unwrap().is_null());
//! # Ok::<(), rosbag2::yaml::YamlError>(())
//! ```

use nom::branch::alt;
use nom::bytes::complete::{take_while, take_while_m_n};
use nom::character::complete::char;
use nom::combinator::{map, map_opt, value};
use nom::sequence::preceded;
use nom::{IResult, Parser};

/// The largest document parsed, in bytes (64 MiB).
pub const MAX_INPUT: usize = 64 << 20;

/// The deepest nesting of collections parsed.
pub const MAX_DEPTH: usize = 64;

/// How a scalar was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarStyle {
    /// Unquoted.
    Plain,
    /// In `'single quotes'`.
    SingleQuoted,
    /// In `"double quotes"`.
    DoubleQuoted,
    /// A `|` block scalar.
    Literal,
    /// A `>` block scalar.
    Folded,
}

/// A scalar: its text (escapes resolved, lines folded) and its style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scalar {
    /// The text.
    pub text: String,
    /// How it was written.
    pub style: ScalarStyle,
}

/// A parsed YAML node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Yaml {
    /// An empty value (a key with nothing after it, an empty document).
    Empty,
    /// A scalar.
    Scalar(Scalar),
    /// A sequence.
    Seq(Vec<Yaml>),
    /// A mapping, its entries in document order.
    Map(Vec<(String, Yaml)>),
}

impl Yaml {
    /// The value of `key` in a mapping.
    pub fn get(&self, key: &str) -> Option<&Yaml> {
        match self {
            Yaml::Map(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Element `i` of a sequence.
    pub fn at(&self, i: usize) -> Option<&Yaml> {
        match self {
            Yaml::Seq(s) => s.get(i),
            _ => None,
        }
    }

    /// The elements of a sequence (an empty node or null is no elements).
    pub fn as_seq(&self) -> Option<&[Yaml]> {
        match self {
            Yaml::Seq(s) => Some(s),
            n if n.is_null() => Some(&[]),
            _ => None,
        }
    }

    /// The entries of a mapping (an empty node or null is no entries).
    pub fn as_map(&self) -> Option<&[(String, Yaml)]> {
        match self {
            Yaml::Map(m) => Some(m),
            n if n.is_null() => Some(&[]),
            _ => None,
        }
    }

    /// The text of a scalar, whatever its style.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Yaml::Scalar(s) => Some(&s.text),
            _ => None,
        }
    }

    /// True for an empty node and for the plain scalars `~`, `null`,
    /// `Null` and `NULL`.
    pub fn is_null(&self) -> bool {
        match self {
            Yaml::Empty => true,
            Yaml::Scalar(Scalar {
                text,
                style: ScalarStyle::Plain,
            }) => matches!(text.as_str(), "~" | "null" | "Null" | "NULL" | ""),
            _ => false,
        }
    }

    /// A plain scalar read as an unsigned integer (decimal, `0x` hex or
    /// `0o` octal).
    pub fn as_u64(&self) -> Option<u64> {
        let t = self.plain()?;
        let t = t.strip_prefix('+').unwrap_or(t);
        if let Some(h) = t.strip_prefix("0x") {
            return u64::from_str_radix(h, 16).ok();
        }
        if let Some(o) = t.strip_prefix("0o") {
            return u64::from_str_radix(o, 8).ok();
        }
        t.parse().ok()
    }

    /// A plain scalar read as a signed integer.
    pub fn as_i64(&self) -> Option<i64> {
        let t = self.plain()?;
        match t.strip_prefix('-') {
            Some(rest) => {
                let v = Yaml::Scalar(Scalar {
                    text: rest.to_string(),
                    style: ScalarStyle::Plain,
                })
                .as_u64()?;
                0i64.checked_sub_unsigned(v)
            }
            None => i64::try_from(self.as_u64()?).ok(),
        }
    }

    /// A plain scalar read as a boolean (`true`/`false` in any of YAML's
    /// spellings).
    pub fn as_bool(&self) -> Option<bool> {
        match self.plain()? {
            "true" | "True" | "TRUE" => Some(true),
            "false" | "False" | "FALSE" => Some(false),
            _ => None,
        }
    }

    fn plain(&self) -> Option<&str> {
        match self {
            Yaml::Scalar(Scalar {
                text,
                style: ScalarStyle::Plain,
            }) => Some(text),
            _ => None,
        }
    }

    /// A short description of the node's kind, for errors.
    pub fn kind(&self) -> &'static str {
        match self {
            Yaml::Empty => "nothing",
            Yaml::Scalar(_) => "a scalar",
            Yaml::Seq(_) => "a sequence",
            Yaml::Map(_) => "a mapping",
        }
    }
}

/// A document that is not in the YAML subset this module reads.
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

/// Parses one YAML document.
pub fn parse(text: &str) -> Result<Yaml, YamlError> {
    let mut p = Doc {
        src: text,
        pos: 0,
        depth: 0,
    };
    if text.len() > MAX_INPUT {
        return Err(p.error(
            0,
            format!("a document of at most {MAX_INPUT} bytes"),
            format!("{} bytes", text.len()),
        ));
    }
    if text.starts_with('\u{feff}') {
        p.pos = 3;
    }
    p.skip_to_content();
    if p.src[p.pos..].starts_with("---") && p.is_boundary(p.pos + 3) {
        p.pos += 3;
        p.skip_to_content();
    }
    if p.pos >= p.src.len() {
        return Ok(Yaml::Empty);
    }
    let col = p.column();
    let node = p.block_node(col)?;
    p.skip_to_content();
    if p.pos < p.src.len() {
        let found = p.found(p.pos);
        if p.src[p.pos..].starts_with("---") || p.src[p.pos..].starts_with("...") {
            return Err(p.error(p.pos, "the end of the document (one document only)", found));
        }
        return Err(p.error(
            p.pos,
            "the end of the document or a less indented line",
            found,
        ));
    }
    Ok(node)
}

// ---------------------------------------------------------------------
// Tokens, parsed with nom.

type Res<'a, T> = IResult<&'a str, T>;

/// A double-quoted scalar (the opening quote already seen is part of
/// the input), with every YAML escape and line folding.
fn double_quoted(i: &str) -> Res<'_, String> {
    let (mut i, _) = char('"').parse(i)?;
    let mut out = String::new();
    loop {
        let (rest, run) = take_while(|c| c != '"' && c != '\\' && c != '\n' && c != '\r')(i)?;
        i = rest;
        out.push_str(run);
        match i.chars().next() {
            Some('"') => return Ok((&i[1..], out)),
            Some('\\') => {
                if let Some(rest) = i[1..]
                    .strip_prefix("\r\n")
                    .or_else(|| i[1..].strip_prefix('\n'))
                {
                    // An escaped line break: the break and the next
                    // line's leading blanks vanish.
                    i = rest.trim_start_matches([' ', '\t']);
                    continue;
                }
                let (rest, c) = escape(&i[1..])?;
                out.push(c);
                i = rest;
            }
            Some(_) => {
                // A line break inside the scalar folds.
                let (rest, folded) = fold_break(i);
                trim_trailing_blanks(&mut out);
                out.push_str(&folded);
                i = rest;
            }
            None => {
                return Err(nom::Err::Failure(nom::error::Error::new(
                    i,
                    nom::error::ErrorKind::Char,
                )));
            }
        }
    }
}

/// A single-quoted scalar (`''` is one quote), with line folding.
fn single_quoted(i: &str) -> Res<'_, String> {
    let (mut i, _) = char('\'').parse(i)?;
    let mut out = String::new();
    loop {
        let (rest, run) = take_while(|c| c != '\'' && c != '\n' && c != '\r')(i)?;
        i = rest;
        out.push_str(run);
        if let Some(rest) = i.strip_prefix("''") {
            out.push('\'');
            i = rest;
        } else if let Some(rest) = i.strip_prefix('\'') {
            return Ok((rest, out));
        } else if i.is_empty() {
            return Err(nom::Err::Failure(nom::error::Error::new(
                i,
                nom::error::ErrorKind::Char,
            )));
        } else {
            let (rest, folded) = fold_break(i);
            trim_trailing_blanks(&mut out);
            out.push_str(&folded);
            i = rest;
        }
    }
}

fn trim_trailing_blanks(s: &mut String) {
    let n = s.trim_end_matches([' ', '\t']).len();
    s.truncate(n);
}

/// Folds the line break at the start of `i` and any empty lines after
/// it: one break becomes a space, each further empty line a newline.
fn fold_break(i: &str) -> (&str, String) {
    let mut breaks = 0;
    let mut rest = i;
    loop {
        let line = rest.trim_start_matches([' ', '\t']);
        if let Some(r) = line
            .strip_prefix("\r\n")
            .or_else(|| line.strip_prefix('\n'))
        {
            breaks += 1;
            rest = r;
        } else {
            rest = line;
            break;
        }
    }
    let folded = if breaks <= 1 {
        " ".to_string()
    } else {
        "\n".repeat(breaks - 1)
    };
    (rest, folded)
}

fn escape(i: &str) -> Res<'_, char> {
    let hex = |n: usize| {
        map_opt(
            take_while_m_n(n, n, |c: char| c.is_ascii_hexdigit()),
            |h: &str| u32::from_str_radix(h, 16).ok().and_then(char::from_u32),
        )
    };
    alt((
        value('\0', char('0')),
        value('\u{7}', char('a')),
        value('\u{8}', char('b')),
        value('\t', alt((char('t'), char('\t')))),
        value('\n', char('n')),
        value('\u{b}', char('v')),
        value('\u{c}', char('f')),
        value('\r', char('r')),
        value('\u{1b}', char('e')),
        value(' ', char(' ')),
        value('"', char('"')),
        value('/', char('/')),
        value('\\', char('\\')),
        value('\u{85}', char('N')),
        value('\u{a0}', char('_')),
        value('\u{2028}', char('L')),
        value('\u{2029}', char('P')),
        preceded(char('x'), hex(2)),
        preceded(char('u'), hex(4)),
        preceded(char('U'), hex(8)),
    ))
    .parse(i)
}

/// A plain scalar on one line: up to a comment (` #`), the end of the
/// line, or (as a key, or in flow context) `: `; in flow context also
/// up to `,`, `[`, `]`, `{`, `}`.
fn plain(i: &str, flow: bool) -> Res<'_, &str> {
    let mut end = 0;
    let bytes = i.as_bytes();
    while end < bytes.len() {
        let b = bytes[end];
        if b == b'\n' || b == b'\r' {
            break;
        }
        if b == b'#' && end > 0 && (bytes[end - 1] == b' ' || bytes[end - 1] == b'\t') {
            break;
        }
        if b == b':' && bytes.get(end + 1).is_none_or(|n| b" \t\r\n".contains(n)) {
            break;
        }
        if flow && b",[]{}".contains(&b) {
            break;
        }
        if flow && b == b':' && bytes.get(end + 1).is_some_and(|n| b",[]{}".contains(n)) {
            break;
        }
        end += 1;
    }
    let text = i[..end].trim_end_matches([' ', '\t']);
    if text.is_empty() {
        return Err(nom::Err::Error(nom::error::Error::new(
            i,
            nom::error::ErrorKind::TakeWhile1,
        )));
    }
    Ok((&i[text.len()..], text))
}

fn quoted(i: &str) -> Res<'_, Scalar> {
    alt((
        map(double_quoted, |text| Scalar {
            text,
            style: ScalarStyle::DoubleQuoted,
        }),
        map(single_quoted, |text| Scalar {
            text,
            style: ScalarStyle::SingleQuoted,
        }),
    ))
    .parse(i)
}

/// Blanks, line breaks and comments (inside flow collections).
fn flow_space(i: &str) -> &str {
    let mut i = i;
    loop {
        let t = i.trim_start_matches([' ', '\t', '\r', '\n']);
        if let Some(c) = t.strip_prefix('#') {
            i = c.find('\n').map_or("", |n| &c[n..]);
        } else {
            return t;
        }
    }
}

// ---------------------------------------------------------------------
// Block structure.

struct Doc<'s> {
    src: &'s str,
    pos: usize,
    depth: usize,
}

impl<'s> Doc<'s> {
    fn error(&self, at: usize, expected: impl Into<String>, found: impl Into<String>) -> YamlError {
        let at = at.min(self.src.len());
        let before = &self.src.as_bytes()[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        YamlError {
            line,
            column: at - line_start + 1,
            offset: at,
            expected: expected.into(),
            found: found.into(),
        }
    }

    /// A description of what is at `at`.
    fn found(&self, at: usize) -> String {
        let rest = self.src.get(at..).unwrap_or("");
        let line: String = rest.lines().next().unwrap_or("").chars().take(30).collect();
        if rest.is_empty() {
            "the end of the document".into()
        } else if line.is_empty() {
            "the end of the line".into()
        } else {
            format!("`{line}`")
        }
    }

    fn is_boundary(&self, at: usize) -> bool {
        self.src
            .as_bytes()
            .get(at)
            .is_none_or(|b| b" \t\r\n".contains(b))
    }

    fn column(&self) -> usize {
        let before = &self.src.as_bytes()[..self.pos];
        self.pos
            - before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |p| p + 1)
    }

    fn rest(&self) -> &'s str {
        &self.src[self.pos..]
    }

    /// Skips blanks on this line, then a comment, then blank and comment
    /// lines, to the next content (or the end).
    fn skip_to_content(&mut self) {
        loop {
            let r = self.rest();
            let t = r.trim_start_matches([' ', '\t']);
            self.pos += r.len() - t.len();
            let t = self.rest();
            if t.starts_with('#') {
                self.pos += t.find('\n').unwrap_or(t.len());
                continue;
            }
            if let Some(n) = t.strip_prefix("\r\n").or_else(|| t.strip_prefix('\n')) {
                self.pos += t.len() - n.len();
                continue;
            }
            return;
        }
    }

    /// Skips blanks and a comment to the end of this line; false when
    /// other content follows.
    fn at_line_end(&mut self) -> bool {
        let r = self.rest();
        let t = r.trim_start_matches([' ', '\t']);
        let at = self.pos + (r.len() - t.len());
        if t.is_empty() || t.starts_with('\n') || t.starts_with("\r\n") || t.starts_with('#') {
            self.pos = at;
            true
        } else {
            false
        }
    }

    fn enter(&mut self) -> Result<(), YamlError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(
                self.pos,
                format!("collections nested at most {MAX_DEPTH} deep"),
                "a deeper one",
            ));
        }
        Ok(())
    }

    fn check_unsupported(&self) -> Result<(), YamlError> {
        let r = self.rest();
        let what = match r.chars().next() {
            Some('&') => "an anchor (`&`)",
            Some('*') => "an alias (`*`)",
            Some('!') => "a tag (`!`)",
            Some('?') if self.is_boundary(self.pos + 1) => "a complex key (`?`)",
            Some('@' | '`') => "a reserved indicator",
            Some('%') if self.column() == 0 => "a directive (`%`)",
            _ => return Ok(()),
        };
        Err(self.error(
            self.pos,
            "a mapping, sequence or scalar (anchors, aliases, tags and directives are not read)",
            what,
        ))
    }

    /// The node starting at the cursor, which is at column `indent` (on
    /// its own line, or after the `- ` of a sequence entry).
    fn block_node(&mut self, indent: usize) -> Result<Yaml, YamlError> {
        self.check_unsupported()?;
        let r = self.rest();
        if r.starts_with('-') && self.is_boundary(self.pos + 1) {
            return self.block_seq(indent);
        }
        if self.looks_like_key() {
            return self.block_map(indent);
        }
        self.inline_value(indent)
    }

    /// Whether the cursor is at `key:` (plain or quoted key).
    fn looks_like_key(&self) -> bool {
        let r = self.rest();
        let after = if r.starts_with('"') || r.starts_with('\'') {
            match quoted(r) {
                Ok((rest, _)) => rest,
                Err(_) => return false,
            }
        } else if r.starts_with('[') || r.starts_with('{') {
            return false;
        } else {
            match plain(r, false) {
                Ok((rest, _)) => rest,
                Err(_) => return false,
            }
        };
        let after = after.trim_start_matches([' ', '\t']);
        after.starts_with(':')
            && after[1..]
                .chars()
                .next()
                .is_none_or(|c| matches!(c, ' ' | '\t' | '\r' | '\n'))
    }

    fn block_seq(&mut self, indent: usize) -> Result<Yaml, YamlError> {
        self.enter()?;
        let mut items = Vec::new();
        loop {
            // At `-`.
            self.pos += 1;
            let item = if self.at_line_end() {
                self.nested_value(indent, true)?
            } else {
                let r = self.rest();
                let t = r.trim_start_matches([' ', '\t']);
                self.pos += r.len() - t.len();
                let col = self.column();
                self.block_node(col)?
            };
            items.push(item);
            self.skip_to_content();
            if self.pos >= self.src.len() {
                break;
            }
            let col = self.column();
            if col == indent && self.rest().starts_with('-') && self.is_boundary(self.pos + 1) {
                continue;
            }
            if col > indent {
                return Err(self.error(
                    self.pos,
                    format!("a sequence entry `- ` at column {}", indent + 1),
                    format!("{} at column {}", self.found(self.pos), col + 1),
                ));
            }
            break;
        }
        self.depth -= 1;
        Ok(Yaml::Seq(items))
    }

    /// The value on the lines after a `key:` or `-` that ends its line:
    /// a node indented more than `indent`, a sequence at `indent` itself
    /// after a key (`allow_same` false), or nothing.
    fn nested_value(&mut self, indent: usize, in_seq: bool) -> Result<Yaml, YamlError> {
        let save = self.pos;
        self.skip_to_content();
        if self.pos >= self.src.len() {
            return Ok(Yaml::Empty);
        }
        let col = self.column();
        let seq_here = self.rest().starts_with('-') && self.is_boundary(self.pos + 1);
        if col > indent || (!in_seq && col == indent && seq_here) {
            return self.block_node(col);
        }
        self.pos = save;
        Ok(Yaml::Empty)
    }

    fn key(&mut self) -> Result<String, YamlError> {
        let r = self.rest();
        let (rest, key) = if r.starts_with('"') || r.starts_with('\'') {
            quoted(r)
                .map(|(rest, s)| (rest, s.text))
                .map_err(|_| self.error(self.pos, "a closed quoted key", self.found(self.pos)))?
        } else {
            plain(r, false)
                .map(|(rest, s)| (rest, s.to_string()))
                .map_err(|_| self.error(self.pos, "a mapping key", self.found(self.pos)))?
        };
        self.pos += r.len() - rest.len();
        let r = self.rest();
        let t = r.trim_start_matches([' ', '\t']);
        self.pos += r.len() - t.len();
        if !self.rest().starts_with(':') {
            return Err(self.error(self.pos, "`:` after a mapping key", self.found(self.pos)));
        }
        self.pos += 1;
        Ok(key)
    }

    fn block_map(&mut self, indent: usize) -> Result<Yaml, YamlError> {
        self.enter()?;
        let mut entries: Vec<(String, Yaml)> = Vec::new();
        loop {
            let key_at = self.pos;
            self.check_unsupported()?;
            if !self.looks_like_key() {
                return Err(self.error(
                    self.pos,
                    format!("a mapping key at column {}", indent + 1),
                    self.found(self.pos),
                ));
            }
            let key = self.key()?;
            if entries.iter().any(|(k, _)| *k == key) {
                return Err(self.error(
                    key_at,
                    "a key not used before in this mapping",
                    format!("a second `{key}`"),
                ));
            }
            let value = if self.at_line_end() {
                self.nested_value(indent, false)?
            } else {
                let r = self.rest();
                let t = r.trim_start_matches([' ', '\t']);
                self.pos += r.len() - t.len();
                self.check_unsupported()?;
                let r = self.rest();
                if r.starts_with('-') && self.is_boundary(self.pos + 1) {
                    return Err(self.error(
                        self.pos,
                        "a scalar or flow collection after `key: ` (a block sequence starts on the next line)",
                        self.found(self.pos),
                    ));
                }
                if self.looks_like_key() {
                    return Err(self.error(
                        self.pos,
                        "a scalar or flow collection after `key: ` (a nested mapping starts on the next line)",
                        self.found(self.pos),
                    ));
                }
                self.inline_value(indent)?
            };
            entries.push((key, value));
            self.skip_to_content();
            if self.pos >= self.src.len() {
                break;
            }
            let col = self.column();
            if col == indent {
                let r = self.rest();
                if r.starts_with('-') && self.is_boundary(self.pos + 1) {
                    break;
                }
                if col == 0
                    && (r.starts_with("---") || r.starts_with("..."))
                    && self.is_boundary(self.pos + 3)
                {
                    break;
                }
                continue;
            }
            if col > indent {
                return Err(self.error(
                    self.pos,
                    format!("a mapping key at column {}", indent + 1),
                    format!("{} at column {}", self.found(self.pos), col + 1),
                ));
            }
            break;
        }
        self.depth -= 1;
        Ok(Yaml::Map(entries))
    }

    /// A scalar, block scalar or flow collection starting at the cursor;
    /// `indent` is the indentation of the enclosing node (block scalars
    /// and continuation lines must be indented more).
    fn inline_value(&mut self, indent: usize) -> Result<Yaml, YamlError> {
        let r = self.rest();
        match r.chars().next() {
            Some('|' | '>') => self.block_scalar(indent),
            Some('[' | '{') => {
                let v = self.flow_node(r)?;
                if !self.at_line_end() {
                    return Err(self.error(
                        self.pos,
                        "the end of the line after a flow collection",
                        self.found(self.pos),
                    ));
                }
                Ok(v)
            }
            Some('"' | '\'') => match quoted(r) {
                Ok((rest, s)) => {
                    self.pos += r.len() - rest.len();
                    if !self.at_line_end() {
                        return Err(self.error(
                            self.pos,
                            "the end of the line after a quoted scalar",
                            self.found(self.pos),
                        ));
                    }
                    Ok(Yaml::Scalar(s))
                }
                Err(_) => Err(self.error(self.pos, "a closing quote", "the end of the document")),
            },
            _ => {
                let (rest, text) = plain(r, false)
                    .map_err(|_| self.error(self.pos, "a value", self.found(self.pos)))?;
                self.pos += r.len() - rest.len();
                let mut text = text.to_string();
                // Continuation lines of a plain scalar, indented more
                // than its node.
                loop {
                    if !self.at_line_end() {
                        return Err(self.error(
                            self.pos,
                            "the end of the line",
                            self.found(self.pos),
                        ));
                    }
                    let save = self.pos;
                    if self.rest().trim_start_matches([' ', '\t']).starts_with('#') {
                        break;
                    }
                    self.skip_to_content();
                    let col = self.column();
                    let r = self.rest();
                    if self.pos >= self.src.len()
                        || col <= indent
                        || self.looks_like_key()
                        || (r.starts_with('-') && self.is_boundary(self.pos + 1))
                        || r.starts_with('#')
                    {
                        self.pos = save;
                        break;
                    }
                    let Ok((rest, more)) = plain(r, false) else {
                        self.pos = save;
                        break;
                    };
                    let breaks = self.src[save..self.pos].matches('\n').count();
                    if breaks > 1 {
                        text.push_str(&"\n".repeat(breaks - 1));
                    } else {
                        text.push(' ');
                    }
                    text.push_str(more);
                    self.pos += r.len() - rest.len();
                }
                Ok(Yaml::Scalar(Scalar {
                    text,
                    style: ScalarStyle::Plain,
                }))
            }
        }
    }

    fn flow_node(&mut self, r: &'s str) -> Result<Yaml, YamlError> {
        let (rest, v) = self.flow(r)?;
        self.pos += r.len() - rest.len();
        Ok(v)
    }

    /// A flow node (collection or scalar) at the start of `i`.
    fn flow(&mut self, i: &'s str) -> Result<(&'s str, Yaml), YamlError> {
        let at = |i: &str| self.src.len() - i.len();
        let i = flow_space(i);
        match i.chars().next() {
            Some(open @ ('[' | '{')) => {
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    return Err(self.error(
                        at(i),
                        format!("collections nested at most {MAX_DEPTH} deep"),
                        "a deeper one",
                    ));
                }
                let close = if open == '[' { ']' } else { '}' };
                let mut rest = flow_space(&i[1..]);
                let mut seq = Vec::new();
                let mut map: Vec<(String, Yaml)> = Vec::new();
                loop {
                    if let Some(r) = rest.strip_prefix(close) {
                        rest = r;
                        break;
                    }
                    let (r, node) = self.flow(rest)?;
                    let r = flow_space(r);
                    let (r, entry) = if let Some(after) = r.strip_prefix(':') {
                        let key = match node {
                            Yaml::Scalar(s) => s.text,
                            Yaml::Empty => String::new(),
                            other => {
                                return Err(self.error(at(rest), "a scalar key", other.kind()));
                            }
                        };
                        let after = flow_space(after);
                        if after.starts_with(',') || after.starts_with(close) {
                            (after, (Some(key), Yaml::Empty))
                        } else {
                            let (r2, v) = self.flow(after)?;
                            (flow_space(r2), (Some(key), v))
                        }
                    } else {
                        (r, (None, node))
                    };
                    match entry {
                        (Some(k), v) if open == '{' => {
                            if map.iter().any(|(x, _)| *x == k) {
                                return Err(self.error(
                                    at(rest),
                                    "a key not used before in this mapping",
                                    format!("a second `{k}`"),
                                ));
                            }
                            map.push((k, v));
                        }
                        (None, v) if open == '[' => seq.push(v),
                        (Some(k), v) => seq.push(Yaml::Map(vec![(k, v)])),
                        (None, v) => {
                            return Err(self.error(
                                at(rest),
                                "`key: value` in a flow mapping",
                                format!("{} without a key", v.kind()),
                            ));
                        }
                    }
                    if let Some(r2) = r.strip_prefix(',') {
                        rest = flow_space(r2);
                    } else if let Some(r2) = r.strip_prefix(close) {
                        rest = r2;
                        break;
                    } else {
                        let p = at(r);
                        return Err(self.error(p, format!("`,` or `{close}`"), self.found(p)));
                    }
                }
                self.depth -= 1;
                Ok((
                    rest,
                    if open == '[' {
                        Yaml::Seq(seq)
                    } else {
                        Yaml::Map(map)
                    },
                ))
            }
            Some('"' | '\'') => match quoted(i) {
                Ok((rest, s)) => Ok((rest, Yaml::Scalar(s))),
                Err(_) => Err(self.error(at(i), "a closing quote", "the end of the document")),
            },
            Some('&' | '*' | '!') => Err(self.error(
                at(i),
                "a flow node (anchors, aliases and tags are not read)",
                self.found(at(i)),
            )),
            _ => match plain(i, true) {
                Ok((rest, t)) => Ok((
                    rest,
                    Yaml::Scalar(Scalar {
                        text: t.to_string(),
                        style: ScalarStyle::Plain,
                    }),
                )),
                Err(_) => {
                    if i.is_empty() {
                        Err(self.error(at(i), "a closing bracket", "the end of the document"))
                    } else {
                        Ok((i, Yaml::Empty))
                    }
                }
            },
        }
    }

    /// A `|` or `>` block scalar; the cursor is at the indicator.
    fn block_scalar(&mut self, indent: usize) -> Result<Yaml, YamlError> {
        let literal = self.rest().starts_with('|');
        self.pos += 1;
        let mut keep = None;
        let mut explicit = None;
        for _ in 0..2 {
            match self.rest().chars().next() {
                Some('-') if keep.is_none() => keep = Some(false),
                Some('+') if keep.is_none() => keep = Some(true),
                Some(d @ '1'..='9') if explicit.is_none() => explicit = d.to_digit(10),
                _ => break,
            }
            self.pos += 1;
        }
        if !self.at_line_end() {
            return Err(self.error(
                self.pos,
                "a chomping (`-`, `+`) or indentation (1-9) indicator and the end of the line",
                self.found(self.pos),
            ));
        }
        // Move past the header's line break.
        let r = self.rest();
        let after = r.find('\n').map_or(r.len(), |n| n + 1);
        self.pos += after;
        let mut lines: Vec<&str> = Vec::new();
        let mut content_indent = explicit.map(|d| indent + d as usize);
        loop {
            let r = self.rest();
            if r.is_empty() {
                break;
            }
            let line_end = r.find('\n').map_or(r.len(), |n| n + 1);
            let line = r[..line_end].trim_end_matches(['\n', '\r']);
            let spaces = line.len() - line.trim_start_matches(' ').len();
            let blank = line.trim().is_empty();
            let ci = match content_indent {
                Some(ci) => ci,
                None if blank => {
                    lines.push("");
                    self.pos += line_end;
                    continue;
                }
                None => {
                    if spaces <= indent {
                        break;
                    }
                    content_indent = Some(spaces);
                    spaces
                }
            };
            if blank {
                lines.push(line.get(ci..).unwrap_or(""));
            } else if spaces < ci {
                break;
            } else {
                lines.push(&line[ci..]);
            }
            self.pos += line_end;
        }
        // Trailing empty lines belong to chomping.
        let trailing = lines.iter().rev().take_while(|l| l.is_empty()).count();
        let body = &lines[..lines.len() - trailing];
        let mut text = String::new();
        if literal {
            for l in body {
                text.push_str(l);
                text.push('\n');
            }
        } else {
            let mut prev_more = false;
            let mut pending_breaks = 0usize;
            for (k, l) in body.iter().enumerate() {
                if l.is_empty() {
                    pending_breaks += 1;
                    continue;
                }
                let more = l.starts_with([' ', '\t']);
                if k > 0 {
                    if pending_breaks > 0 {
                        text.push_str(
                            &"\n".repeat(pending_breaks + usize::from(more || prev_more)),
                        );
                    } else if more || prev_more {
                        text.push('\n');
                    } else {
                        text.push(' ');
                    }
                } else {
                    text.push_str(&"\n".repeat(pending_breaks));
                }
                pending_breaks = 0;
                text.push_str(l);
                prev_more = more;
            }
            if !body.is_empty() {
                text.push('\n');
            }
        }
        match keep {
            Some(false) if text.ends_with('\n') => {
                text.pop();
            }
            Some(true) => text.push_str(&"\n".repeat(trailing)),
            _ => {}
        }
        Ok(Yaml::Scalar(Scalar {
            text,
            style: if literal {
                ScalarStyle::Literal
            } else {
                ScalarStyle::Folded
            },
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> Yaml {
        Yaml::Scalar(Scalar {
            text: t.into(),
            style: ScalarStyle::Plain,
        })
    }

    #[test]
    fn mappings_sequences_and_compact_entries() {
        let y = parse(
            "a: 1\nb:\n  - x\n  - y: 2\n    z: [1, 2]\nc:\n- same\nd: {k: v, e: []}\n# done\n",
        )
        .unwrap();
        assert_eq!(y.get("a"), Some(&s("1")));
        let b = y.get("b").unwrap();
        assert_eq!(b.at(0), Some(&s("x")));
        assert_eq!(b.at(1).unwrap().get("y"), Some(&s("2")));
        assert_eq!(
            b.at(1).unwrap().get("z"),
            Some(&Yaml::Seq(vec![s("1"), s("2")]))
        );
        assert_eq!(y.get("c"), Some(&Yaml::Seq(vec![s("same")])));
        assert_eq!(y.get("d").unwrap().get("k"), Some(&s("v")));
        assert_eq!(y.get("d").unwrap().get("e"), Some(&Yaml::Seq(vec![])));
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
        assert_eq!((e.line, e.column, e.offset), (2, 3, 7));
        assert_eq!(e.expected, "a mapping key at column 1", "{e}");
        let e = parse("a: \"open\n").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.to_string().contains("closing quote"), "{e}");
        let e = parse("a: [1, 2\n").unwrap_err();
        assert!(
            e.to_string().contains("closing bracket") || e.to_string().contains("`,`"),
            "{e}"
        );
        let e = parse("a: &x 1\nb: *x\n").unwrap_err();
        assert!(e.to_string().contains("anchor"), "{e}");
        let e = parse("a: 1\na: 2\n").unwrap_err();
        assert!(e.to_string().contains("second `a`"), "{e}");
        let deep = "[".repeat(100) + &"]".repeat(100);
        assert!(
            parse(&deep)
                .unwrap_err()
                .to_string()
                .contains("nested at most")
        );
        let mut deep = String::new();
        for i in 0..100 {
            deep.push_str(&" ".repeat(i));
            deep.push_str("k:\n");
        }
        assert!(
            parse(&deep)
                .unwrap_err()
                .to_string()
                .contains("nested at most")
        );
        let e = parse("a: 1\n---\nb: 2\n").unwrap_err();
        assert!(e.to_string().contains("one document"), "{e}");
    }

    #[test]
    fn empty_and_scalar_documents() {
        assert_eq!(parse("").unwrap(), Yaml::Empty);
        assert_eq!(parse("# only a comment\n").unwrap(), Yaml::Empty);
        assert_eq!(parse("---\nfoo\n").unwrap(), s("foo"));
        assert_eq!(parse("[]").unwrap(), Yaml::Seq(vec![]));
    }
}
