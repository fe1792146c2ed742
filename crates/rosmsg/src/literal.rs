//! The literal syntax of ROS 2 values (constants and defaults): quoted
//! strings and array literals `[a, b, "c, d"]`. Turning the texts into
//! numbers of a type is left to the caller, which knows its value model.

use nom::branch::alt;
use nom::bytes::complete::take_while1;
use nom::character::complete::{char, space0};
use nom::combinator::all_consuming;
use nom::multi::separated_list0;
use nom::sequence::{delimited, pair};
use nom::{IResult, Parser};

/// The part of `line` before a `#` that is not inside quotes (`"` or
/// `'`, with backslash escapes): ROS 2's comment rule.
///
/// ```
/// use rosmsg::literal::strip_comment;
/// assert_eq!(strip_comment("string s \"a#b\" # c"), "string s \"a#b\" ");
/// assert_eq!(strip_comment("int8 x # c"), "int8 x ");
/// ```
pub fn strip_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (at, c) in line.char_indices() {
        match (quote, c) {
            _ if escaped => escaped = false,
            (Some(_), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, '#') => return &line[..at],
            _ => {}
        }
    }
    line
}

type Res<'a, T> = IResult<&'a str, T>;

/// A quoted string (`"..."` or `'...'`) with backslash escapes of the
/// quote and the backslash; other escapes are kept as written.
fn quoted(i: &str) -> Res<'_, String> {
    let fail = || nom::Err::Error(nom::error::Error::new(i, nom::error::ErrorKind::Char));
    let mut chars = i.char_indices();
    let q = match chars.next() {
        Some((_, q @ ('"' | '\''))) => q,
        _ => return Err(fail()),
    };
    let mut out = String::new();
    let mut escaped = false;
    for (at, c) in chars {
        if escaped {
            if c != q && c != '\\' {
                out.push('\\');
            }
            out.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == q {
            return Ok((&i[at + c.len_utf8()..], out));
        } else {
            out.push(c);
        }
    }
    Err(fail())
}

/// The string a whole quoted literal (`"..."` or `'...'`) stands for:
/// `\"`, `\'` and `\\` unescaped, other escapes kept as written. `None`
/// when `text` is not exactly one quoted string.
///
/// ```
/// use rosmsg::literal::unquote;
/// assert_eq!(unquote(r#"'Hello\'world!'"#).as_deref(), Some("Hello'world!"));
/// assert_eq!(unquote(r#""a\nb""#).as_deref(), Some(r"a\nb"));
/// assert_eq!(unquote("\"open"), None);
/// ```
pub fn unquote(text: &str) -> Option<String> {
    all_consuming(quoted).parse(text).ok().map(|(_, s)| s)
}

/// The element texts of an array literal `[a, b, "c, d"]`: quoted
/// elements unquoted, others trimmed. `None` when `text` is not one
/// array literal.
///
/// ```
/// use rosmsg::literal::array_elements;
/// assert_eq!(array_elements("[1, -2,3 ]"), Some(vec!["1".into(), "-2".into(), "3".into()]));
/// assert_eq!(array_elements("[\"a, b\", 'c']"), Some(vec!["a, b".into(), "c".into()]));
/// assert_eq!(array_elements("[]"), Some(vec![]));
/// assert_eq!(array_elements("[1, 2"), None);
/// ```
pub fn array_elements(text: &str) -> Option<Vec<String>> {
    let element = alt((
        quoted,
        take_while1(|c: char| c != ',' && c != ']').map(|s: &str| s.trim().to_string()),
    ));
    all_consuming(delimited(
        pair(char('['), space0),
        separated_list0(delimited(space0, char(','), space0), element),
        pair(space0, char(']')),
    ))
    .parse(text)
    .ok()
    .map(|(_, v)| v)
}
