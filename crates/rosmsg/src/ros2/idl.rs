//! ROS 2 message definitions in the `ros2idl` form: the OMG IDL 4.2
//! subset that `rosidl` generates, each type's text after a line of `=`
//! and an `IDL: pkg/msg/Type` line, in any order.
//!
//! Read: `module`s, `struct`s with members (`T name;`, `T name[N];`),
//! `sequence<T>` and `sequence<T, N>`, `string<N>` / `wstring<N>`,
//! `typedef`s of arrays (rosidl writes `typedef double double__9[9];`),
//! `const`s (in the `<Type>_Constants` module rosidl generates, they
//! become the constants of `<Type>`), scoped names (`pkg::msg::Type`),
//! annotations (`@default (value=...)` gives a scalar field's default,
//! others are skipped), comments and preprocessor lines. The builtin
//! types `boolean`, `octet`, `char`, `int8` to `uint64`, `short`,
//! `long`, `long long` and their `unsigned` forms, `float`, `double`,
//! `string` and `wstring` map to the `ros2msg` types; `wchar`,
//! `long double`, `enum`s and `union`s are refused.

use std::collections::HashMap;

use nom::branch::alt;
use nom::bytes::complete::{tag, take_until, take_while, take_while1};
use nom::character::complete::{char, multispace1, none_of, one_of};
use nom::combinator::{map, recognize, value};
use nom::multi::many0;
use nom::sequence::{pair, preceded};
use nom::{IResult, Parser};

use logcore::Limits;

use super::error::{Error, Result};
use super::msg::{
    ArrayKind, ConstantDef, FieldDef, FieldType, MAX_NESTING, MsgDef, Primitive, builtin_def,
    canonical_name, scalar_literal,
};
use crate::is_separator;

#[derive(Debug, Clone, PartialEq)]
enum Tok<'a> {
    Ident(&'a str),
    Num(&'a str),
    Str(String),
    Scope,
    Punct(char),
}

fn skip(i: &str) -> IResult<&str, ()> {
    value(
        (),
        many0(alt((
            value((), multispace1),
            value((), pair(tag("//"), take_while(|c| c != '\n'))),
            value((), (tag("/*"), take_until("*/"), tag("*/"))),
        ))),
    )
    .parse(i)
}

fn string_literal(i: &str) -> IResult<&str, String> {
    let (mut rest, _) = char('"').parse(i)?;
    let mut out = String::new();
    loop {
        let mut chars = rest.chars();
        match chars.next() {
            Some('"') => return Ok((chars.as_str(), out)),
            Some('\\') => {
                match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(c) => out.push(c),
                    None => break,
                }
                rest = chars.as_str();
            }
            Some(c) => {
                out.push(c);
                rest = chars.as_str();
            }
            None => break,
        }
    }
    Err(nom::Err::Error(nom::error::Error::new(
        i,
        nom::error::ErrorKind::Char,
    )))
}

fn token(i: &str) -> IResult<&str, Tok<'_>> {
    preceded(
        skip,
        alt((
            map(
                recognize(pair(
                    take_while1(|c: char| c.is_ascii_alphabetic() || c == '_'),
                    take_while(|c: char| c.is_ascii_alphanumeric() || c == '_'),
                )),
                Tok::Ident,
            ),
            map(
                recognize(pair(
                    one_of("0123456789."),
                    take_while(|c: char| c.is_ascii_alphanumeric() || c == '.'),
                )),
                Tok::Num,
            ),
            map(string_literal, Tok::Str),
            value(Tok::Scope, tag("::")),
            map(none_of(" \t\r\n"), Tok::Punct),
        )),
    )
    .parse(i)
}

/// Tokens of the text, with separator, `IDL:` and preprocessor lines
/// left out.
fn tokens(text: &str) -> std::result::Result<Vec<Tok<'_>>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if is_separator(t) || t.starts_with("IDL:") || t.starts_with('#') {
            continue;
        }
        let mut rest = line;
        loop {
            match skip(rest) {
                Ok(("", ())) => break,
                Ok((r, ())) => rest = r,
                Err(_) => break,
            }
            match token(rest) {
                Ok((r, t)) => {
                    out.push(t);
                    rest = r;
                }
                Err(_) => return Err(format!("a token in line {} `{}`", n + 1, line.trim())),
            }
        }
    }
    Ok(out)
}

/// A type as written: its element type (message names still scoped and
/// unresolved) and array kind.
type Written = (FieldType, ArrayKind);

struct Idl<'t, 'a> {
    toks: &'t [Tok<'a>],
    pos: usize,
    /// Module path of the current scope.
    scope: Vec<String>,
    /// The deepest module nesting accepted.
    max_nesting: usize,
    structs: Vec<(Vec<String>, MsgDef)>,
    /// Constants by (module path of the `<Type>_Constants` module).
    constants: Vec<(Vec<String>, ConstantDef)>,
    typedefs: HashMap<String, Written>,
}

impl<'t, 'a> Idl<'t, 'a> {
    fn peek(&self) -> Option<&Tok<'a>> {
        self.toks.get(self.pos)
    }

    fn err(&self, expected: &str) -> String {
        let found = match self.peek() {
            None => "the end of the text".to_string(),
            Some(Tok::Ident(s) | Tok::Num(s)) => format!("`{s}`"),
            Some(Tok::Str(s)) => format!("{s:?}"),
            Some(Tok::Scope) => "`::`".into(),
            Some(Tok::Punct(c)) => format!("`{c}`"),
        };
        format!("{expected}, found {found} (token {})", self.pos + 1)
    }

    fn punct(&mut self, c: char) -> std::result::Result<(), String> {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.err(&format!("`{c}`")))
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.punct(c).is_ok()
    }

    fn ident(&mut self) -> std::result::Result<&'a str, String> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = *s;
                self.pos += 1;
                Ok(s)
            }
            _ => Err(self.err("a name")),
        }
    }

    fn keyword(&mut self, k: &str) -> bool {
        if self.peek() == Some(&Tok::Ident(k)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn number(&mut self) -> std::result::Result<u32, String> {
        match self.peek() {
            Some(Tok::Num(s)) => {
                let n = s.parse().map_err(|_| self.err("a length"))?;
                self.pos += 1;
                Ok(n)
            }
            _ => Err(self.err("a length")),
        }
    }

    /// Annotations before a definition or member; returns the text of an
    /// `@default (value=...)`.
    fn annotations(&mut self) -> std::result::Result<Option<String>, String> {
        let mut default = None;
        while self.eat('@') {
            let name = self.ident()?;
            if !self.eat('(') {
                continue;
            }
            let mut depth = 1usize;
            let mut at_value = false;
            while depth > 0 {
                let Some(t) = self.peek().cloned() else {
                    return Err(self.err("`)` closing an annotation"));
                };
                self.pos += 1;
                match t {
                    Tok::Punct('(') => depth += 1,
                    Tok::Punct(')') => depth -= 1,
                    Tok::Ident("value") if name == "default" && depth == 1 => at_value = true,
                    Tok::Punct('=') => {}
                    other if at_value => {
                        let text = match other {
                            Tok::Str(s) => s,
                            Tok::Ident(s) | Tok::Num(s) => s.to_string(),
                            Tok::Punct('-') => match self.peek() {
                                Some(Tok::Num(n)) => format!("-{n}"),
                                _ => String::new(),
                            },
                            _ => String::new(),
                        };
                        default = Some(text);
                        at_value = false;
                    }
                    _ => {}
                }
            }
        }
        Ok(default)
    }

    fn ty(&mut self) -> std::result::Result<Written, String> {
        use Primitive as P;
        let prim = |p| Ok((FieldType::Primitive(p), ArrayKind::Scalar));
        if self.keyword("sequence") {
            self.punct('<')?;
            if self.peek() == Some(&Tok::Ident("sequence")) {
                return Err(self.err("a sequence of a scalar type (no nested sequences)"));
            }
            let (elem, array) = self.ty()?;
            if array != ArrayKind::Scalar {
                return Err(self.err("a sequence of a scalar type (no nested arrays)"));
            }
            let kind = if self.eat(',') {
                ArrayKind::Bounded(self.number()?)
            } else {
                ArrayKind::Unbounded
            };
            self.punct('>')?;
            return Ok((elem, kind));
        }
        for (k, wide) in [("string", false), ("wstring", true)] {
            if self.keyword(k) {
                let bound = if self.eat('<') {
                    let n = self.number()?;
                    self.punct('>')?;
                    Some(n)
                } else {
                    None
                };
                let t = if wide {
                    FieldType::WString { bound }
                } else {
                    FieldType::String { bound }
                };
                return Ok((t, ArrayKind::Scalar));
            }
        }
        if self.keyword("unsigned") {
            return if self.keyword("short") {
                prim(P::UInt16)
            } else if self.keyword("long") {
                if self.keyword("long") {
                    prim(P::UInt64)
                } else {
                    prim(P::UInt32)
                }
            } else {
                Err(self.err("`short` or `long` after `unsigned`"))
            };
        }
        if self.keyword("long") {
            if self.keyword("long") {
                return prim(P::Int64);
            }
            if self.peek() == Some(&Tok::Ident("double")) {
                return Err(self.err("a supported type (`long double` is not)"));
            }
            return prim(P::Int32);
        }
        let name = self.ident()?;
        let p = match name {
            "boolean" => Some(P::Bool),
            "octet" => Some(P::Byte),
            "char" => Some(P::Char),
            "short" => Some(P::Int16),
            "float" => Some(P::Float32),
            "double" => Some(P::Float64),
            "int8" => Some(P::Int8),
            "uint8" => Some(P::UInt8),
            "int16" => Some(P::Int16),
            "uint16" => Some(P::UInt16),
            "int32" => Some(P::Int32),
            "uint32" => Some(P::UInt32),
            "int64" => Some(P::Int64),
            "uint64" => Some(P::UInt64),
            "wchar" | "any" | "fixed" => {
                self.pos -= 1;
                return Err(self.err("a supported type"));
            }
            _ => None,
        };
        if let Some(p) = p {
            return prim(p);
        }
        let mut scoped = name.to_string();
        while self.peek() == Some(&Tok::Scope) {
            self.pos += 1;
            scoped.push_str("::");
            scoped.push_str(self.ident()?);
        }
        Ok(self
            .resolve_typedef(&scoped)
            .unwrap_or((FieldType::Message(scoped), ArrayKind::Scalar)))
    }

    fn resolve_typedef(&self, written: &str) -> Option<Written> {
        if let Some(t) = self.typedefs.get(written) {
            return Some(t.clone());
        }
        let mut scope = self.scope.clone();
        loop {
            let key = if scope.is_empty() {
                written.to_string()
            } else {
                format!("{}::{written}", scope.join("::"))
            };
            if let Some(t) = self.typedefs.get(&key) {
                return Some(t.clone());
            }
            scope.pop()?;
        }
    }

    /// `[N]` after a name, combined with the type's own array kind.
    fn dims(&mut self, base: Written) -> std::result::Result<Written, String> {
        if !self.eat('[') {
            return Ok(base);
        }
        let n = self.number()?;
        self.punct(']')?;
        if base.1 != ArrayKind::Scalar || self.peek() == Some(&Tok::Punct('[')) {
            return Err(self.err("one array dimension (arrays of arrays are not supported)"));
        }
        if n == 0 {
            return Err(self.err("an array length of at least 1"));
        }
        Ok((base.0, ArrayKind::Fixed(n)))
    }

    fn definitions(&mut self) -> std::result::Result<(), String> {
        loop {
            // Annotations of modules and structs carry nothing decoded.
            self.annotations()?;
            match self.peek() {
                None | Some(Tok::Punct('}')) => return Ok(()),
                Some(Tok::Punct(';')) => self.pos += 1,
                Some(Tok::Ident("module")) => {
                    self.pos += 1;
                    let name = self.ident()?.to_string();
                    self.punct('{')?;
                    if self.scope.len() >= self.max_nesting {
                        return Err(self.err(&format!(
                            "modules nested {}",
                            logcore::limits::nesting_limit(self.max_nesting)
                        )));
                    }
                    self.scope.push(name);
                    self.definitions()?;
                    self.scope.pop();
                    self.punct('}')?;
                    self.eat(';');
                }
                Some(Tok::Ident("struct")) => {
                    self.pos += 1;
                    self.structure()?;
                }
                Some(Tok::Ident("typedef")) => {
                    self.pos += 1;
                    let base = self.ty()?;
                    let name = self.ident()?;
                    let t = self.dims(base)?;
                    self.punct(';')?;
                    let mut key = self.scope.join("::");
                    if !key.is_empty() {
                        key.push_str("::");
                    }
                    key.push_str(name);
                    self.typedefs.insert(key, t);
                }
                Some(Tok::Ident("const")) => {
                    self.pos += 1;
                    let (ty, array) = self.ty()?;
                    let name = self.ident()?.to_string();
                    self.punct('=')?;
                    let mut text = String::new();
                    while let Some(t) = self.peek().cloned() {
                        self.pos += 1;
                        match t {
                            Tok::Punct(';') => break,
                            Tok::Str(s) => text.push_str(&s),
                            Tok::Ident(s) | Tok::Num(s) => text.push_str(s),
                            Tok::Punct(c) => text.push(c),
                            Tok::Scope => text.push_str("::"),
                        }
                    }
                    if array != ArrayKind::Scalar || matches!(ty, FieldType::Message(_)) {
                        return Err(format!("constant {name}: a builtin scalar type"));
                    }
                    let value =
                        scalar_literal(&ty, &text).map_err(|e| format!("constant {name}: {e}"))?;
                    self.constants
                        .push((self.scope.clone(), ConstantDef { name, ty, value }));
                }
                _ => return Err(self.err("`module`, `struct`, `typedef` or `const`")),
            }
        }
    }

    fn structure(&mut self) -> std::result::Result<(), String> {
        let name = self.ident()?.to_string();
        self.punct('{')?;
        let pkg = self.scope.first().cloned().unwrap_or_default();
        let mut def = MsgDef {
            name: format!("{pkg}/{name}"),
            constants: Vec::new(),
            fields: Vec::new(),
        };
        loop {
            let default = self.annotations()?;
            if self.eat('}') {
                break;
            }
            let base = self.ty()?;
            let fname = self.ident()?.to_string();
            let (ty, array) = self.dims(base)?;
            self.punct(';')?;
            if def.fields.iter().any(|f| f.name == fname) {
                return Err(format!("struct {name}: member `{fname}` declared twice"));
            }
            let default = match (default, array) {
                (Some(text), ArrayKind::Scalar) if !matches!(ty, FieldType::Message(_)) => {
                    scalar_literal(&ty, &text).ok()
                }
                _ => None,
            };
            def.fields.push(FieldDef {
                name: fname,
                ty,
                array,
                default,
            });
        }
        self.eat(';');
        // rosidl gives an empty message a placeholder member; the wire
        // byte is what an empty type decodes anyway.
        if def.fields.len() == 1 && def.fields[0].name == "structure_needs_at_least_one_member" {
            def.fields.clear();
        }
        self.structs.push((self.scope.clone(), def));
        Ok(())
    }
}

/// Parses a stored `ros2idl` text into the types it defines, the type
/// named `top` first, every message type resolved (scoped names become
/// canonical `pkg/Type` names; unscoped ones are looked up in the
/// package of the struct that uses them). Types used but not defined are
/// taken from the same builtin definitions as
/// [`parse_definition`](super::msg::parse_definition).
///
/// ```
/// let defs = rosmsg::ros2::idl::parse_idl(
///     "my_msgs/msg/ComplexMsg",
///     "================================================================================\n\
///      IDL: my_msgs/msg/ComplexMsg\n\
///      #include \"my_msgs/msg/BasicMsg.idl\"\n\
///      module my_msgs { module msg {\n\
///        typedef double double__3[3];\n\
///        struct ComplexMsg { my_msgs::msg::BasicMsg basic; double__3 xyz; sequence<int32, 4> ids; };\n\
///      }; };\n\
///      ================================================================================\n\
///      IDL: my_msgs/msg/BasicMsg\n\
///      module my_msgs { module msg { struct BasicMsg { float my_float; }; }; };\n",
/// )?;
/// assert_eq!(defs[0].name, "my_msgs/ComplexMsg");
/// assert_eq!(defs[0].fields[1].array, rosmsg::ros2::msg::ArrayKind::Fixed(3));
/// assert_eq!(defs[0].fields[2].array, rosmsg::ros2::msg::ArrayKind::Bounded(4));
/// assert_eq!(defs[1].name, "my_msgs/BasicMsg");
/// # Ok::<(), rosmsg::ros2::Error>(())
/// ```
pub fn parse_idl(top: &str, text: &str) -> Result<Vec<MsgDef>> {
    parse_idl_with_limits(top, text, &Limits::default())
}

/// [`parse_idl`] accepting modules nested at most
/// [`Limits::nesting_or`]`(`[`MAX_NESTING`]`)` deep.
pub fn parse_idl_with_limits(top: &str, text: &str, limits: &Limits) -> Result<Vec<MsgDef>> {
    let top_name = canonical_name(top);
    let fail = |reason: String| Error::definition(&top_name, reason);
    let toks = tokens(text).map_err(|e| fail(format!("IDL text: expected {e}")))?;
    let mut p = Idl {
        toks: &toks,
        pos: 0,
        scope: Vec::new(),
        max_nesting: limits.nesting_or(MAX_NESTING),
        structs: Vec::new(),
        constants: Vec::new(),
        typedefs: HashMap::new(),
    };
    p.definitions()
        .map_err(|e| fail(format!("IDL text: expected {e}")))?;
    if p.pos != toks.len() {
        return Err(fail(format!("IDL text: {}", p.err("the end of the text"))));
    }
    let Idl {
        mut structs,
        constants,
        ..
    } = p;
    // Constants of module `<Type>_Constants` belong to `<Type>`.
    for (scope, c) in constants {
        let Some((module, parent)) = scope.split_last() else {
            continue;
        };
        let Some(owner) = module.strip_suffix("_Constants") else {
            continue;
        };
        if let Some((_, d)) = structs
            .iter_mut()
            .find(|(s, d)| s == parent && d.name.rsplit('/').next() == Some(owner))
        {
            d.constants.push(c);
        }
    }
    let Some(at) = structs.iter().position(|(_, d)| d.name == top_name) else {
        return Err(fail("no struct of that name in the IDL text".into()));
    };
    let first = structs.remove(at);
    structs.insert(0, first);
    let mut defs: Vec<MsgDef> = Vec::new();
    for (_, d) in structs {
        if !defs.iter().any(|x| x.name == d.name) {
            defs.push(d);
        }
    }
    let mut k = 0;
    while k < defs.len() {
        let owner = defs[k].name.clone();
        let package = owner.split('/').next().unwrap_or("").to_string();
        let mut added: Vec<MsgDef> = Vec::new();
        for f in &mut defs[k].fields {
            let FieldType::Message(written) = &f.ty else {
                continue;
            };
            let parts: Vec<&str> = written.split("::").collect();
            let full = match parts.as_slice() {
                [one] => format!("{package}/{one}"),
                [first, .., last] => format!("{first}/{last}"),
                [] => written.clone(),
            };
            f.ty = FieldType::Message(full);
        }
        let missing: Vec<String> = defs[k]
            .fields
            .iter()
            .filter_map(|f| match &f.ty {
                FieldType::Message(m) => Some(m.clone()),
                _ => None,
            })
            .filter(|m| !defs.iter().any(|d| &d.name == m))
            .collect();
        for m in missing {
            if added.iter().any(|d| d.name == m) {
                continue;
            }
            match builtin_def(&m) {
                Some(d) => added.push(d?),
                None => {
                    return Err(Error::definition(
                        &owner,
                        format!("no definition of the type {m} in the IDL text"),
                    ));
                }
            }
        }
        defs.extend(added);
        k += 1;
    }
    Ok(defs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use logcore::Value;

    const POINT_STAMPED: &str = "\
================================================================================
IDL: geometry_msgs/msg/PointStamped
// generated from rosidl_adapter/resource/msg.idl.em
#include \"geometry_msgs/msg/Point.idl\"
#include \"std_msgs/msg/Header.idl\"

module geometry_msgs {
  module msg {
    module PointStamped_Constants {
      const uint8 KIND = 7;
      const string NAME = \"pt\";
    };
    @verbatim (language=\"comment\", text=
      \"This represents a Point with reference coordinate frame and timestamp\")
    struct PointStamped {
      std_msgs::msg::Header header;

      geometry_msgs::msg::Point point;
      @default (value=2.5)
      float scale;
      sequence<double> extra;
      string<8> tag;
      boolean flags[2];
      unsigned long long big;
    };
  };
};
================================================================================
IDL: geometry_msgs/msg/Point
module geometry_msgs {
  module msg {
    struct Point {
      double x; /* the x */
      double y;
      double z;
    };
  };
};
================================================================================
IDL: std_msgs/msg/Header
#include \"builtin_interfaces/msg/Time.idl\"
module std_msgs {
  module msg {
    struct Header {
      builtin_interfaces::msg::Time stamp;
      string frame_id;
    };
  };
};
";

    #[test]
    fn rosidl_generated_text_parses() {
        let defs = parse_idl("geometry_msgs/msg/PointStamped", POINT_STAMPED).unwrap();
        let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "geometry_msgs/PointStamped",
                "geometry_msgs/Point",
                "std_msgs/Header",
                "builtin_interfaces/Time"
            ]
        );
        let top = &defs[0];
        assert_eq!(top.constants.len(), 2);
        assert_eq!(top.constants[0].value, Value::U64(7));
        assert_eq!(top.constants[1].value, Value::String("pt".into()));
        assert_eq!(top.fields[2].default, Some(Value::F32(2.5)));
        assert_eq!(top.fields[3].array, ArrayKind::Unbounded);
        assert_eq!(top.fields[4].ty, FieldType::String { bound: Some(8) });
        assert_eq!(top.fields[5].array, ArrayKind::Fixed(2));
        assert_eq!(top.fields[6].ty, FieldType::Primitive(Primitive::UInt64));
    }

    #[test]
    fn unsupported_and_broken_text_is_an_error() {
        for (text, want) in [
            ("module a { struct B { wchar c; }; };", "a supported type"),
            ("module a { struct B { long double c; }; };", "long double"),
            ("module a { union B { }; };", "`module`, `struct`"),
            (
                "module a { struct B { int32 c[2][3]; }; };",
                "one array dimension",
            ),
            ("module a { struct B { int32 c; ", "a name"),
            (
                "module a { struct C { int32 c; }; };",
                "no struct of that name",
            ),
            (
                "module a { struct B { x::y::Z c; }; };",
                "no definition of the type x/Z",
            ),
            (
                "module a { struct B { int32 c; int32 c; }; };",
                "declared twice",
            ),
        ] {
            let e = parse_idl("a/msg/B", text).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
        // Hostile nesting is refused, not a stack overflow.
        let deep = "module a { ".repeat(10_000);
        let e = parse_idl("a/msg/B", &deep).unwrap_err().to_string();
        assert!(
            e.contains("modules nested at most 64 levels deep (the reader's limit"),
            "{e}"
        );
        let deep = format!(
            "module a {{ struct B {{ {} x; }}; }};",
            "sequence<".repeat(10_000)
        );
        let e = parse_idl("a/msg/B", &deep).unwrap_err().to_string();
        assert!(e.contains("no nested sequences"), "{e}");
    }
}
