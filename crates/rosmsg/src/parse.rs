//! The grammar: sections of a concatenated text, then the lines of one
//! section.

use std::collections::HashSet;

use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{char, digit1};
use nom::combinator::{all_consuming, map_res, opt, recognize};
use nom::multi::many0;
use nom::sequence::{delimited, pair, preceded};
use nom::{IResult, Parser};

use crate::literal::strip_comment;
use crate::{
    ArrayKind, BaseType, Builtin, Constant, Dialect, Field, ParseError, Pos, Section, TypeSpec,
};

/// One section of a concatenated text, not parsed yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawSection<'t> {
    /// The name after `MSG:`, trimmed; `None` for the first section.
    pub name: Option<&'t str>,
    /// The section's lines (after its `MSG:` line, up to the next
    /// separator line).
    pub body: &'t str,
    /// Where `body` starts in the text.
    pub pos: Pos,
}

/// Whether `line` is a separator between sections: at least three `=`
/// and nothing else but surrounding whitespace.
///
/// ```
/// assert!(rosmsg::is_separator("===\r\n"));
/// assert!(!rosmsg::is_separator("== ="));
/// ```
pub fn is_separator(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 3 && t.bytes().all(|b| b == b'=')
}

/// Splits a concatenated definition into its sections: the first (the
/// type the text defines), then one per separator line, each named by the
/// `MSG: pkg/Type` line that follows its separator (blank lines between
/// the two are allowed). Both dialects share this form.
///
/// ```
/// let s = rosmsg::split_sections("int8 a\n====\nMSG: p/B\nint8 b\n")?;
/// assert_eq!(s.len(), 2);
/// assert_eq!((s[1].name, s[1].body, s[1].pos.line), (Some("p/B"), "int8 b\n", 4));
/// let e = rosmsg::split_sections("int8 a\n====\nint8 b\n").unwrap_err();
/// assert_eq!(e.pos.line, 3);
/// # Ok::<(), rosmsg::ParseError>(())
/// ```
pub fn split_sections(text: &str) -> Result<Vec<RawSection<'_>>, ParseError> {
    let mut out = Vec::new();
    let mut name = None;
    let mut start = Pos::START;
    let mut pos = Pos::START;
    let mut expect_msg_line = false;
    for line in text.split_inclusive('\n') {
        let line_pos = pos;
        pos = pos.advance(line);
        let trimmed = line.trim();
        if expect_msg_line {
            if trimmed.is_empty() {
                continue;
            }
            let Some(n) = trimmed.strip_prefix("MSG:") else {
                return Err(ParseError::new(
                    line_pos,
                    "a `MSG: pkg/Type` line after a separator line",
                    trimmed,
                ));
            };
            name = Some(n.trim());
            start = pos;
            expect_msg_line = false;
        } else if is_separator(line) {
            out.push(RawSection {
                name: name.take(),
                body: &text[start.offset..line_pos.offset],
                pos: start,
            });
            expect_msg_line = true;
        }
    }
    if expect_msg_line {
        return Err(ParseError::new(
            pos,
            "a `MSG: pkg/Type` line after the last separator line",
            "the end of the text",
        ));
    }
    out.push(RawSection {
        name,
        body: &text[start.offset..],
        pos: start,
    });
    Ok(out)
}

/// Parses a whole concatenated definition: [`split_sections`], then
/// [`parse_section`] on each.
pub fn parse(text: &str, dialect: Dialect) -> Result<Vec<Section<'_>>, ParseError> {
    split_sections(text)?
        .into_iter()
        .map(|raw| parse_section(raw.name, raw.body, raw.pos, dialect))
        .collect()
}

type Res<'a, T> = IResult<&'a str, T>;

fn identifier(i: &str) -> Res<'_, &str> {
    recognize(pair(
        take_while1(|c: char| c.is_ascii_alphabetic()),
        take_while(|c: char| c.is_ascii_alphanumeric() || c == '_'),
    ))
    .parse(i)
}

fn number_u32(i: &str) -> Res<'_, u32> {
    map_res(digit1, str::parse::<u32>).parse(i)
}

/// `base`, an optional bound `<=N`, an optional array suffix `[]`, `[N]`
/// or `[<=N]`.
fn type_token(i: &str) -> Res<'_, (&str, Option<u32>, ArrayKind)> {
    let base = recognize(pair(identifier, many0(preceded(char('/'), identifier))));
    let bound = opt(preceded(tag("<="), number_u32));
    let array = opt(delimited(
        char('['),
        opt(pair(opt(tag("<=")), number_u32)),
        char(']'),
    ));
    let (i, (base, bound, array)) = (base, bound, array).parse(i)?;
    let array = match array {
        None => ArrayKind::Scalar,
        Some(None) => ArrayKind::Unbounded,
        Some(Some((None, n))) => ArrayKind::Fixed(n),
        Some(Some((Some(_), n))) => ArrayKind::Bounded(n),
    };
    Ok((i, (base, bound, array)))
}

/// The part of a line that is code: before the comment (ROS 1: the first
/// `#`; ROS 2: the first `#` outside quotes).
fn code_of(raw: &str, dialect: Dialect) -> &str {
    match dialect {
        Dialect::Ros1 => raw.split('#').next().unwrap_or_default(),
        Dialect::Ros2 => strip_comment(raw),
    }
}

/// Parses the body of one section (no separator lines) into constants and
/// fields; `pos` is where `body` starts in the text the caller holds, so
/// positions (in the result and in errors) are in that text.
///
/// ```
/// use rosmsg::{parse_section, Dialect, Pos};
/// let s = parse_section(None, "string S=\"a#b\" # kept\nint32 X = 1 # dropped\n", Pos::START, Dialect::Ros1)?;
/// assert_eq!(s.constants[0].value, "\"a#b\" # kept");
/// assert_eq!(s.constants[1].value, "1");
/// let s = parse_section(None, "string S=\"a#b\" # dropped\n", Pos::START, Dialect::Ros2)?;
/// assert_eq!(s.constants[0].value, "\"a#b\"");
/// # Ok::<(), rosmsg::ParseError>(())
/// ```
pub fn parse_section<'t>(
    name: Option<&'t str>,
    body: &'t str,
    pos: Pos,
    dialect: Dialect,
) -> Result<Section<'t>, ParseError> {
    let mut section = Section {
        name,
        constants: Vec::new(),
        fields: Vec::new(),
        pos,
    };
    let mut line_pos = pos;
    let mut seen = Seen::default();
    for line in body.split_inclusive('\n') {
        let here = line_pos;
        line_pos = line_pos.advance(line);
        let raw = line.strip_suffix('\n').unwrap_or(line);
        let raw = raw.trim_end_matches('\r');
        let uncommented = code_of(raw, dialect);
        let code = uncommented.trim();
        if code.is_empty() {
            continue;
        }
        let code_at = uncommented.len() - uncommented.trim_start().len();
        parse_line(&mut section, &mut seen, raw, code, code_at, here, dialect)?;
    }
    Ok(section)
}

/// The names used so far in a section (a set, so that a definition of
/// many fields is not checked in quadratic time).
#[derive(Default)]
struct Seen<'t> {
    fields: HashSet<&'t str>,
    constants: HashSet<&'t str>,
}

/// One line that has code: `code` is `raw[code_at..]` trimmed.
fn parse_line<'t>(
    section: &mut Section<'t>,
    seen: &mut Seen<'t>,
    raw: &'t str,
    code: &'t str,
    code_at: usize,
    line_pos: Pos,
    dialect: Dialect,
) -> Result<(), ParseError> {
    // Position of a sub-slice of `code`.
    let at = |part: &str| {
        let within = (part.as_ptr() as usize).saturating_sub(code.as_ptr() as usize);
        let within = within.min(code.len());
        line_pos.advance(&raw[..code_at + within])
    };
    let is_ws = |c: char| c.is_whitespace();
    let ty_text = code.split(is_ws).next().unwrap_or(code);
    let after_ty = &code[ty_text.len()..];
    let rest = after_ty.trim_start();
    if rest.is_empty() {
        let pairs = match dialect {
            Dialect::Ros1 => "`TYPE name` or `TYPE NAME=value`",
            Dialect::Ros2 => "`TYPE name`, `TYPE name default` or `TYPE NAME=value`",
        };
        return Err(ParseError::new(
            at(after_ty),
            format!("a name after the type ({pairs})"),
            "the end of the line",
        ));
    }
    let Ok((after_name, name)) = identifier(rest) else {
        return Err(ParseError::new(
            at(rest),
            "a name (a letter, then letters, digits or `_`)",
            rest.split(is_ws).next().unwrap_or(rest),
        ));
    };
    let after_name = after_name.trim_start();
    let (is_constant, value) = match after_name.strip_prefix('=') {
        Some(v) => (true, v.trim()),
        None => (false, after_name),
    };
    let ty = type_spec(ty_text, dialect, &at)?;
    if is_constant {
        if ty.array != ArrayKind::Scalar || matches!(ty.base, BaseType::Message(_)) {
            return Err(ParseError::new(
                at(ty_text),
                "a builtin type that is not an array for the constant",
                ty_text,
            ));
        }
        if dialect == Dialect::Ros2 && !seen.constants.insert(name) {
            return Err(ParseError::new(
                at(name),
                "a constant name not used before",
                name,
            ));
        }
        let value = if dialect == Dialect::Ros1 && ty.base == BaseType::Builtin(Builtin::String) {
            // ROS 1: a string constant's value is the rest of the line.
            let eq = code_at + (value.as_ptr() as usize - code.as_ptr() as usize);
            let eq = raw[..eq].rfind('=').unwrap_or(eq);
            raw.get(eq + 1..).unwrap_or_default().trim()
        } else {
            value
        };
        section.constants.push(Constant {
            ty,
            name,
            value,
            pos: line_pos,
            code,
        });
        return Ok(());
    }
    let default = match (dialect, value.is_empty()) {
        (_, true) => None,
        (Dialect::Ros2, false) => Some(value),
        (Dialect::Ros1, false) => {
            return Err(ParseError::new(
                at(value),
                "the end of the line after the field name (ROS 1 has no default values)",
                value,
            ));
        }
    };
    if !seen.fields.insert(name) {
        return Err(ParseError::new(
            at(name),
            "a field name not used before",
            name,
        ));
    }
    section.fields.push(Field {
        ty,
        name,
        default,
        pos: line_pos,
        code,
    });
    Ok(())
}

/// The type token `text` checked against the dialect's rules.
fn type_spec<'t>(
    text: &'t str,
    dialect: Dialect,
    at: &dyn Fn(&str) -> Pos,
) -> Result<TypeSpec<'t>, ParseError> {
    let (base, string_bound, array) = match all_consuming(type_token).parse(text) {
        Ok((_, t)) => t,
        Err(e) => {
            let left = match e {
                nom::Err::Error(e) | nom::Err::Failure(e) => e.input,
                nom::Err::Incomplete(_) => text,
            };
            return Err(ParseError::new(
                at(left),
                "a type (`int32`, `string<=8`, `pkg/Type`, then `[]`, `[N]` or `[<=N]`)",
                text,
            ));
        }
    };
    if dialect == Dialect::Ros2 && array == ArrayKind::Fixed(0) {
        return Err(ParseError::new(
            at(text),
            "an array length of at least 1",
            text,
        ));
    }
    let base = match Builtin::from_name(base, dialect) {
        Some(b) => BaseType::Builtin(b),
        None => BaseType::Message(base),
    };
    if string_bound.is_some() && !matches!(base, BaseType::Builtin(b) if b.is_string()) {
        return Err(ParseError::new(
            at(text),
            "a bound `<=N` only after `string` or `wstring` (this base is not a string type)",
            text,
        ));
    }
    Ok(TypeSpec {
        base,
        string_bound,
        array,
        text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str, dialect: Dialect) -> Section<'_> {
        parse(text, dialect).unwrap().remove(0)
    }

    #[test]
    fn ros1_string_constants_run_to_the_end_of_the_line() {
        let s = one(
            "string S=\"a#b\" # not a comment\nfloat64 fb = 40.9 # c\nstring E=a=b\n",
            Dialect::Ros1,
        );
        let v: Vec<&str> = s.constants.iter().map(|c| c.value).collect();
        assert_eq!(v, ["\"a#b\" # not a comment", "40.9", "a=b"]);
        assert!(s.fields.is_empty());
        // A bounded string constant (as ROS 2 to ROS 1 conversions write).
        let s = one("string<=4 S=ab # x\n", Dialect::Ros1);
        assert_eq!(s.constants[0].value, "ab # x");
        assert_eq!(s.constants[0].ty.string_bound, Some(4));
    }

    #[test]
    fn dialect_builtins() {
        let text = "time t\nduration d\nwstring w\nHeader h\n";
        let s = one(text, Dialect::Ros1);
        let bases: Vec<BaseType<'_>> = s.fields.iter().map(|f| f.ty.base).collect();
        assert_eq!(
            bases,
            [
                BaseType::Builtin(Builtin::Time),
                BaseType::Builtin(Builtin::Duration),
                BaseType::Message("wstring"),
                BaseType::Message("Header"),
            ]
        );
        let s = one(text, Dialect::Ros2);
        let bases: Vec<BaseType<'_>> = s.fields.iter().map(|f| f.ty.base).collect();
        assert_eq!(
            bases,
            [
                BaseType::Message("time"),
                BaseType::Message("duration"),
                BaseType::Builtin(Builtin::WString),
                BaseType::Message("Header"),
            ]
        );
    }

    #[test]
    fn errors_name_line_column_and_offset() {
        let cases = [
            ("int32", Dialect::Ros2, (1, 6, 5), "a name after the type"),
            ("int32 1x", Dialect::Ros1, (1, 7, 6), "a name (a letter"),
            (
                "int32 a\n  int32 a",
                Dialect::Ros1,
                (2, 9, 16),
                "not used before",
            ),
            ("int32[ x", Dialect::Ros1, (1, 6, 5), "a type"),
            ("int32[0] a", Dialect::Ros2, (1, 1, 0), "at least 1"),
            ("int32<=3 a", Dialect::Ros1, (1, 1, 0), "not a string type"),
            ("int32 a 5", Dialect::Ros1, (1, 9, 8), "no default values"),
            ("int32[] X=1", Dialect::Ros2, (1, 1, 0), "not an array"),
            (
                "int8 A=1\nint8 A=2",
                Dialect::Ros2,
                (2, 6, 14),
                "constant name",
            ),
            (
                "a\n===\nnope\n",
                Dialect::Ros1,
                (3, 1, 6),
                "`MSG: pkg/Type`",
            ),
        ];
        for (text, dialect, (line, column, offset), want) in cases {
            let e = parse(text, dialect).unwrap_err();
            assert_eq!(
                (e.pos.line, e.pos.column, e.pos.offset),
                (line, column, offset),
                "{text:?}: {e}"
            );
            assert!(e.expected.contains(want), "{text:?}: {e}");
        }
        // Accepted in the other dialect.
        assert!(parse("int32[0] a", Dialect::Ros1).is_ok());
        assert!(parse("int8 A=1\nint8 A=2", Dialect::Ros1).is_ok());
        assert_eq!(
            parse("int32 a 5", Dialect::Ros2).unwrap()[0].fields[0].default,
            Some("5")
        );
        assert!(parse("a b\n===\n\n", Dialect::Ros2).is_err());
    }

    #[test]
    fn sections_and_positions() {
        let text = "# top\r\nint8 a\r\n=====\r\n\r\nMSG:  p/B \r\nuint8[<=3] b # c\r\n";
        let s = parse(text, Dialect::Ros2).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(
            s[0].fields[0].pos,
            Pos {
                line: 2,
                column: 1,
                offset: 7
            }
        );
        assert_eq!(s[1].name, Some("p/B"));
        let b = &s[1].fields[0];
        assert_eq!((b.pos.line, b.pos.offset), (6, 36));
        assert_eq!(b.ty.array, ArrayKind::Bounded(3));
        assert_eq!(b.code, "uint8[<=3] b");
        assert_eq!(&text[b.pos.offset..b.pos.offset + b.code.len()], b.code);
    }

    #[test]
    fn many_fields_in_linear_time() {
        // 200,000 fields (about 3 MB): a quadratic duplicate check would
        // take minutes.
        let text: String = (0..200_000).map(|i| format!("int32 f{i}\n")).collect();
        let started = std::time::Instant::now();
        let s = one(&text, Dialect::Ros2);
        assert_eq!(s.fields.len(), 200_000);
        assert_eq!(s.fields[199_999].pos.line, 200_000);
        assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
        let e = parse(&format!("{text}int32 f7\n"), Dialect::Ros1).unwrap_err();
        assert_eq!(e.pos.line, 200_001);
    }

    #[test]
    fn no_input_panics() {
        // Every prefix and a few mutations of a text with every construct.
        let text = "Header h # c\nstring<=5[<=2] s [\"a\", 'b#']\nint8 K=-1\nstring S=\"x\" # y\n\
            é é\n===\nMSG: p/Q\nfloat64[3] q [1, 2, 3]\n\t\n";
        for dialect in [Dialect::Ros1, Dialect::Ros2] {
            for end in 0..=text.len() {
                if let Some(t) = text.get(..end) {
                    let _ = parse(t, dialect);
                }
            }
        }
    }
}
