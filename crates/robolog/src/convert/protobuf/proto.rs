//! A reader of the `.proto` text of Foxglove's schemas (the subset of the
//! proto3 grammar those files use: `syntax`, `import`, `package`,
//! messages with nested enums and messages, `repeated` and `optional`
//! fields, comments) into file descriptors, so the descriptors written
//! into MCAP schemas are Foxglove's own definitions, not a copy typed
//! again.

use std::collections::BTreeMap;

use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{
    DescriptorProto, EnumDescriptorProto, EnumValueDescriptorProto, FieldDescriptorProto,
    FileDescriptorProto, OneofDescriptorProto,
};

/// The tokens of a `.proto` text.
struct Lexer<'a> {
    file: &'a str,
    text: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    /// Skips blanks and comments.
    fn skip(&mut self) {
        let bytes = self.text.as_bytes();
        loop {
            while self.pos < bytes.len() && bytes[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            let rest = &self.text[self.pos..];
            if rest.starts_with("//") {
                self.pos += rest.find('\n').unwrap_or(rest.len());
            } else if rest.starts_with("/*") {
                self.pos += rest.find("*/").map_or(rest.len(), |i| i + 2);
            } else {
                return;
            }
        }
    }

    /// The next token and its byte offset (`None` at the end).
    fn next(&mut self) -> Option<(usize, &'a str)> {
        self.skip();
        let start = self.pos;
        let bytes = self.text.as_bytes();
        let c = *bytes.get(start)?;
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'.';
        if word(c) {
            while self.pos < bytes.len() && word(bytes[self.pos]) {
                self.pos += 1;
            }
        } else if c == b'"' {
            let close = self.text[start + 1..]
                .find('"')
                .map_or(bytes.len(), |i| start + 1 + i + 1);
            self.pos = close;
        } else {
            self.pos += 1;
        }
        Some((start, &self.text[start..self.pos]))
    }

    /// The error at byte `at`: `expected` was wanted, `found` is there.
    fn error(&self, at: usize, expected: &str, found: Option<&str>) -> String {
        format!(
            "{} at byte {at}: expected {expected}, found {}",
            self.file,
            found.map_or("the end".to_string(), |f| format!("`{f}`"))
        )
    }

    /// The next token, which must be there.
    fn token(&mut self, expected: &str) -> Result<(usize, &'a str), String> {
        let at = self.pos;
        self.next().ok_or_else(|| self.error(at, expected, None))
    }

    /// Consumes `want`.
    fn expect(&mut self, want: &str) -> Result<(), String> {
        let (at, t) = self.token(want)?;
        if t == want {
            Ok(())
        } else {
            Err(self.error(at, &format!("`{want}`"), Some(t)))
        }
    }

    /// A name (letters, digits, `_`, `.`).
    fn name(&mut self) -> Result<&'a str, String> {
        let (at, t) = self.token("a name")?;
        if t.as_bytes()[0].is_ascii_alphabetic() || t.starts_with('_') {
            Ok(t)
        } else {
            Err(self.error(at, "a name", Some(t)))
        }
    }

    /// A quoted string's contents.
    fn string(&mut self) -> Result<&'a str, String> {
        let (at, t) = self.token("a string")?;
        match t.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
            Some(s) => Ok(s),
            None => Err(self.error(at, "a string", Some(t))),
        }
    }

    /// A non-negative integer.
    fn number(&mut self) -> Result<i32, String> {
        let (at, t) = self.token("a number")?;
        t.parse().map_err(|_| self.error(at, "a number", Some(t)))
    }
}

/// The scalar type named `name`, if it is one.
fn scalar(name: &str) -> Option<Type> {
    Some(match name {
        "double" => Type::Double,
        "float" => Type::Float,
        "int32" => Type::Int32,
        "int64" => Type::Int64,
        "uint32" => Type::Uint32,
        "uint64" => Type::Uint64,
        "sint32" => Type::Sint32,
        "sint64" => Type::Sint64,
        "fixed32" => Type::Fixed32,
        "fixed64" => Type::Fixed64,
        "sfixed32" => Type::Sfixed32,
        "sfixed64" => Type::Sfixed64,
        "bool" => Type::Bool,
        "string" => Type::String,
        "bytes" => Type::Bytes,
        _ => return None,
    })
}

/// Parses the `.proto` file `name` of text `text`. Field types that name
/// messages or enums keep the name as written (resolved by [`resolve`]).
pub(crate) fn parse(name: &str, text: &str) -> Result<FileDescriptorProto, String> {
    let mut lx = Lexer {
        file: name,
        text,
        pos: 0,
    };
    let mut file = FileDescriptorProto {
        name: Some(name.to_string()),
        ..FileDescriptorProto::default()
    };
    while let Some((at, t)) = lx.next() {
        match t {
            "syntax" => {
                lx.expect("=")?;
                let s = lx.string()?;
                if s != "proto3" {
                    return Err(lx.error(at, "syntax proto3", Some(s)));
                }
                file.syntax = Some(s.to_string());
                lx.expect(";")?;
            }
            "import" => {
                file.dependency.push(lx.string()?.to_string());
                lx.expect(";")?;
            }
            "package" => {
                file.package = Some(lx.name()?.to_string());
                lx.expect(";")?;
            }
            "message" => file.message_type.push(message(&mut lx)?),
            "enum" => file.enum_type.push(enumeration(&mut lx)?),
            other => {
                return Err(lx.error(
                    at,
                    "`syntax`, `import`, `package`, `message` or `enum`",
                    Some(other),
                ));
            }
        }
    }
    Ok(file)
}

/// A message after its keyword.
fn message(lx: &mut Lexer<'_>) -> Result<DescriptorProto, String> {
    let mut m = DescriptorProto {
        name: Some(lx.name()?.to_string()),
        ..DescriptorProto::default()
    };
    lx.expect("{")?;
    loop {
        let (at, t) = lx.token("a field or `}`")?;
        let (label, ty) = match t {
            "}" => return Ok(m),
            "enum" => {
                m.enum_type.push(enumeration(lx)?);
                continue;
            }
            "message" => {
                m.nested_type.push(message(lx)?);
                continue;
            }
            "repeated" | "optional" => (Some(t), lx.name()?),
            ";" => continue,
            _ => {
                if !(t.as_bytes()[0].is_ascii_alphabetic() || t.starts_with('_')) {
                    return Err(lx.error(at, "a field or `}`", Some(t)));
                }
                (None, t)
            }
        };
        let name = lx.name()?;
        lx.expect("=")?;
        let number = lx.number()?;
        let (at, end) = lx.token("`;`")?;
        if end != ";" {
            return Err(lx.error(at, "`;` (field options are not read)", Some(end)));
        }
        let mut f = FieldDescriptorProto {
            name: Some(name.to_string()),
            number: Some(number),
            ..FieldDescriptorProto::default()
        };
        f.set_label(if label == Some("repeated") {
            Label::Repeated
        } else {
            Label::Optional
        });
        match scalar(ty) {
            Some(s) => f.set_type(s),
            None => f.type_name = Some(ty.to_string()),
        }
        if label == Some("optional") {
            // proto3 `optional`: a synthetic one-field oneof, as protoc
            // describes it.
            f.proto3_optional = Some(true);
            f.oneof_index = Some(i32::try_from(m.oneof_decl.len()).unwrap_or(i32::MAX));
            m.oneof_decl.push(OneofDescriptorProto {
                name: Some(format!("_{name}")),
                options: None,
            });
        }
        m.field.push(f);
    }
}

/// An enum after its keyword.
fn enumeration(lx: &mut Lexer<'_>) -> Result<EnumDescriptorProto, String> {
    let mut e = EnumDescriptorProto {
        name: Some(lx.name()?.to_string()),
        ..EnumDescriptorProto::default()
    };
    lx.expect("{")?;
    loop {
        let (at, t) = lx.token("an enum value or `}`")?;
        if t == "}" {
            return Ok(e);
        }
        if !t.as_bytes()[0].is_ascii_alphabetic() {
            return Err(lx.error(at, "an enum value or `}`", Some(t)));
        }
        lx.expect("=")?;
        let number = lx.number()?;
        lx.expect(";")?;
        e.value.push(EnumValueDescriptorProto {
            name: Some(t.to_string()),
            number: Some(number),
            options: None,
        });
    }
}

/// Whether each full name (`.pkg.Msg.Nested`) of `files` is an enum.
fn kinds(files: &[FileDescriptorProto]) -> BTreeMap<String, bool> {
    fn walk(scope: &str, m: &DescriptorProto, out: &mut BTreeMap<String, bool>) {
        let full = format!("{scope}.{}", m.name());
        for e in &m.enum_type {
            out.insert(format!("{full}.{}", e.name()), true);
        }
        for n in &m.nested_type {
            walk(&full, n, out);
        }
        out.insert(full, false);
    }
    let mut out = BTreeMap::new();
    for f in files {
        let scope = if f.package().is_empty() {
            String::new()
        } else {
            format!(".{}", f.package())
        };
        for e in &f.enum_type {
            out.insert(format!("{scope}.{}", e.name()), true);
        }
        for m in &f.message_type {
            walk(&scope, m, &mut out);
        }
    }
    out
}

/// Resolves every field type name of `files` written as in the text
/// (`Level`, `foxglove.Pose`, `google.protobuf.Timestamp`) into its full
/// name (`.foxglove.Log.Level`), with its type (message or enum), the
/// way protobuf scopes names: innermost scope first.
pub(crate) fn resolve(files: &mut [FileDescriptorProto]) -> Result<(), String> {
    fn fields(
        scope: &str,
        m: &mut DescriptorProto,
        known: &BTreeMap<String, bool>,
        file: &str,
    ) -> Result<(), String> {
        let inner = format!("{scope}.{}", m.name());
        for f in &mut m.field {
            let Some(raw) = f.type_name.clone() else {
                continue;
            };
            if raw.starts_with('.') {
                continue;
            }
            let mut at = inner.as_str();
            let found = loop {
                let candidate = format!("{at}.{raw}");
                if let Some(is_enum) = known.get(&candidate) {
                    break Some((candidate, *is_enum));
                }
                if at.is_empty() {
                    break None;
                }
                at = at.rsplit_once('.').map_or("", |(s, _)| s);
            };
            let Some((full, is_enum)) = found else {
                return Err(format!(
                    "{file}: field {} of {}: no type {raw}",
                    f.name(),
                    m.name.as_deref().unwrap_or_default()
                ));
            };
            f.type_name = Some(full);
            f.set_type(if is_enum { Type::Enum } else { Type::Message });
        }
        for n in &mut m.nested_type {
            fields(&inner, n, known, file)?;
        }
        Ok(())
    }
    let known = kinds(files);
    for f in files.iter_mut() {
        let scope = if f.package().is_empty() {
            String::new()
        } else {
            format!(".{}", f.package())
        };
        let name = f.name().to_string();
        for m in &mut f.message_type {
            fields(&scope, m, &known, &name)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_fields_enums_optional_and_comments() {
        let text = "// c\nsyntax = \"proto3\";\nimport \"google/protobuf/timestamp.proto\";\n\
                    package foxglove;\n/* block */ message M {\n  enum Level { UNKNOWN = 0; INFO = 2; }\n\
                    google.protobuf.Timestamp timestamp = 1; // t\n  Level level = 2;\n\
                    repeated double v = 4;\n  optional foxglove.M heading = 10;\n}\n";
        let f = parse("foxglove/M.proto", text).unwrap();
        assert_eq!(f.package(), "foxglove");
        assert_eq!(f.dependency, ["google/protobuf/timestamp.proto"]);
        let m = &f.message_type[0];
        assert_eq!(m.enum_type[0].value[1].number(), 2);
        let nums: Vec<i32> = m.field.iter().map(|f| f.number()).collect();
        assert_eq!(nums, [1, 2, 4, 10]);
        assert_eq!(m.field[2].label(), Label::Repeated);
        assert_eq!(m.field[2].r#type(), Type::Double);
        assert_eq!(m.field[3].proto3_optional, Some(true));
        assert_eq!(m.oneof_decl[0].name(), "_heading");
        let mut files = vec![super::super::well_known("timestamp", "Timestamp"), f];
        resolve(&mut files).unwrap();
        let m = &files[1].message_type[0];
        assert_eq!(m.field[0].type_name(), ".google.protobuf.Timestamp");
        assert_eq!(m.field[0].r#type(), Type::Message);
        assert_eq!(m.field[1].type_name(), ".foxglove.M.Level");
        assert_eq!(m.field[1].r#type(), Type::Enum);
        assert_eq!(m.field[3].type_name(), ".foxglove.M");
    }

    #[test]
    fn bad_text_names_the_byte_and_what_was_expected() {
        let e = parse("x.proto", "syntax = \"proto3\";\nmessage M { double = 1; }").unwrap_err();
        assert_eq!(e, "x.proto at byte 38: expected a name, found `=`");
        let e = parse("x.proto", "message M { double x = 1 }").unwrap_err();
        assert!(e.contains("expected `;`"), "{e}");
        let e = parse("x.proto", "message M {").unwrap_err();
        assert!(e.contains("found the end"), "{e}");
        let mut files = vec![parse("x.proto", "message M { Nope x = 1; }").unwrap()];
        assert!(resolve(&mut files).unwrap_err().contains("no type Nope"));
    }
}
