//! What a definition parses into.

use logcore::ValueType;

/// Which grammar a text follows: where ROS 1 and ROS 2 differ (see the
/// crate documentation's table), the parser follows this.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// ROS 1 `.msg` text (bags' `message_definition`, `ros1msg` schemas).
    Ros1,
    /// ROS 2 `.msg` text (`ros2msg` schemas, rosbag2's definitions).
    Ros2,
}

/// A place in the text given to the parser.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Pos {
    /// The line, counted from 1.
    pub line: usize,
    /// The column in characters, counted from 1.
    pub column: usize,
    /// The byte offset from the start of the text.
    pub offset: usize,
}

impl Pos {
    /// The start of a text: line 1, column 1, offset 0.
    pub const START: Pos = Pos {
        line: 1,
        column: 1,
        offset: 0,
    };

    /// The position of byte `offset` of `text` (an offset past the end,
    /// or inside a character, counts to the end of the text or the
    /// character's start).
    ///
    /// ```
    /// use rosmsg::Pos;
    /// let p = Pos::of("ab\ncé d", 7);
    /// assert_eq!((p.line, p.column, p.offset), (2, 4, 7));
    /// ```
    pub fn of(text: &str, offset: usize) -> Pos {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &text[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Pos {
            line: before.bytes().filter(|&b| b == b'\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
            offset,
        }
    }

    /// This position moved over `text` (which starts here): where the
    /// byte after `text` is.
    ///
    /// ```
    /// use rosmsg::Pos;
    /// let p = Pos::START.advance("ab\nc");
    /// assert_eq!((p.line, p.column, p.offset), (2, 2, 4));
    /// ```
    pub fn advance(self, text: &str) -> Pos {
        match text.rfind('\n') {
            Some(nl) => Pos {
                line: self.line + text.bytes().filter(|&b| b == b'\n').count(),
                column: text[nl + 1..].chars().count() + 1,
                offset: self.offset + text.len(),
            },
            None => Pos {
                line: self.line,
                column: self.column + text.chars().count(),
                offset: self.offset + text.len(),
            },
        }
    }
}

/// A builtin type. Which names are builtins depends on the [`Dialect`]
/// ([`Builtin::from_name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `bool`.
    Bool,
    /// `byte`: ROS 1's deprecated alias of `int8`, ROS 2's octet.
    Byte,
    /// `char`: ROS 1's deprecated alias of `uint8`, ROS 2's 8-bit character.
    Char,
    /// `int8`.
    Int8,
    /// `uint8`.
    UInt8,
    /// `int16`.
    Int16,
    /// `uint16`.
    UInt16,
    /// `int32`.
    Int32,
    /// `uint32`.
    UInt32,
    /// `int64`.
    Int64,
    /// `uint64`.
    UInt64,
    /// `float32`.
    Float32,
    /// `float64`.
    Float64,
    /// `string` (a bound `string<=N` is [`TypeSpec::string_bound`]).
    String,
    /// `wstring`, ROS 2 only.
    WString,
    /// `time`, ROS 1 only (ROS 2 uses the message `builtin_interfaces/Time`).
    Time,
    /// `duration`, ROS 1 only.
    Duration,
}

impl Builtin {
    /// The builtin named `name` in `dialect`, if it is one: `time` and
    /// `duration` only in ROS 1, `wstring` only in ROS 2.
    ///
    /// ```
    /// use rosmsg::{Builtin, Dialect};
    /// assert_eq!(Builtin::from_name("time", Dialect::Ros1), Some(Builtin::Time));
    /// assert_eq!(Builtin::from_name("time", Dialect::Ros2), None);
    /// assert_eq!(Builtin::from_name("wstring", Dialect::Ros2), Some(Builtin::WString));
    /// ```
    pub fn from_name(name: &str, dialect: Dialect) -> Option<Self> {
        use Builtin as B;
        Some(match (name, dialect) {
            ("bool", _) => B::Bool,
            ("byte", _) => B::Byte,
            ("char", _) => B::Char,
            ("int8", _) => B::Int8,
            ("uint8", _) => B::UInt8,
            ("int16", _) => B::Int16,
            ("uint16", _) => B::UInt16,
            ("int32", _) => B::Int32,
            ("uint32", _) => B::UInt32,
            ("int64", _) => B::Int64,
            ("uint64", _) => B::UInt64,
            ("float32", _) => B::Float32,
            ("float64", _) => B::Float64,
            ("string", _) => B::String,
            ("wstring", Dialect::Ros2) => B::WString,
            ("time", Dialect::Ros1) => B::Time,
            ("duration", Dialect::Ros1) => B::Duration,
            _ => return None,
        })
    }

    /// The name in definitions.
    pub fn name(self) -> &'static str {
        use Builtin as B;
        match self {
            B::Bool => "bool",
            B::Byte => "byte",
            B::Char => "char",
            B::Int8 => "int8",
            B::UInt8 => "uint8",
            B::Int16 => "int16",
            B::UInt16 => "uint16",
            B::Int32 => "int32",
            B::UInt32 => "uint32",
            B::Int64 => "int64",
            B::UInt64 => "uint64",
            B::Float32 => "float32",
            B::Float64 => "float64",
            B::String => "string",
            B::WString => "wstring",
            B::Time => "time",
            B::Duration => "duration",
        }
    }

    /// Whether it is `string` or `wstring`, the types that take a bound
    /// `<=N`.
    pub fn is_string(self) -> bool {
        matches!(self, Builtin::String | Builtin::WString)
    }

    /// The bytes one value takes on the wire: a fixed-size builtin's
    /// [`Primitive::size`], 8 for ROS 1's `time` and `duration` (two
    /// 32-bit halves); `None` for `string` and `wstring` (length-prefixed).
    ///
    /// ```
    /// use rosmsg::Builtin;
    /// assert_eq!(Builtin::UInt16.wire_size(), Some(2));
    /// assert_eq!(Builtin::Time.wire_size(), Some(8));
    /// assert_eq!(Builtin::String.wire_size(), None);
    /// ```
    pub fn wire_size(self) -> Option<usize> {
        match self {
            Builtin::Time | Builtin::Duration => Some(8),
            other => other.primitive().map(Primitive::size),
        }
    }

    /// The type of a decoded scalar of this builtin in `dialect`: a
    /// fixed-size builtin's [`Primitive::value_type`] (`byte` is `int8` in
    /// ROS 1, `uint8` in ROS 2), strings as strings, ROS 1's `time` and
    /// `duration` as times and durations.
    ///
    /// ```
    /// use logcore::ValueType;
    /// use rosmsg::{Builtin, Dialect};
    /// assert_eq!(Builtin::Byte.value_type(Dialect::Ros1), ValueType::I8);
    /// assert_eq!(Builtin::Time.value_type(Dialect::Ros1), ValueType::Time);
    /// assert_eq!(Builtin::WString.value_type(Dialect::Ros2), ValueType::String);
    /// ```
    pub fn value_type(self, dialect: Dialect) -> ValueType {
        use crate::Element as E;
        match self.element() {
            E::Primitive(p) => p.value_type(dialect),
            E::Time => ValueType::Time,
            E::Duration => ValueType::Duration,
            E::String | E::Message(_) => ValueType::String,
        }
    }

    /// What [`value_type`](crate::value_type) reads a field of this
    /// builtin as.
    pub fn element(self) -> crate::Element {
        use crate::Element as E;
        match self {
            Builtin::String | Builtin::WString => E::String,
            Builtin::Time => E::Time,
            Builtin::Duration => E::Duration,
            other => other.primitive().map_or(E::String, E::Primitive),
        }
    }

    /// The fixed-size builtin it is, or `None` for `string`, `wstring`,
    /// `time` and `duration`.
    ///
    /// ```
    /// use rosmsg::{Builtin, Primitive};
    /// assert_eq!(Builtin::Float64.primitive(), Some(Primitive::Float64));
    /// assert_eq!(Builtin::Time.primitive(), None);
    /// ```
    pub fn primitive(self) -> Option<Primitive> {
        use Builtin as B;
        use Primitive as P;
        Some(match self {
            B::Bool => P::Bool,
            B::Byte => P::Byte,
            B::Char => P::Char,
            B::Int8 => P::Int8,
            B::UInt8 => P::UInt8,
            B::Int16 => P::Int16,
            B::UInt16 => P::UInt16,
            B::Int32 => P::Int32,
            B::UInt32 => P::UInt32,
            B::Int64 => P::Int64,
            B::UInt64 => P::UInt64,
            B::Float32 => P::Float32,
            B::Float64 => P::Float64,
            B::String | B::WString | B::Time | B::Duration => return None,
        })
    }
}

/// A fixed-size builtin: every [`Builtin`] but the strings and ROS 1's
/// `time` and `duration`. Both wire codecs read it as one little- or
/// big-endian number of [`size`](Self::size) bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Primitive {
    /// `bool`: one byte, non-zero is true.
    Bool,
    /// `byte`: ROS 1's deprecated alias of `int8`, ROS 2's octet (0 to 255).
    Byte,
    /// `char`: ROS 1's deprecated alias of `uint8`, ROS 2's 8-bit character code.
    Char,
    /// `float32`.
    Float32,
    /// `float64`.
    Float64,
    /// `int8`.
    Int8,
    /// `uint8`.
    UInt8,
    /// `int16`.
    Int16,
    /// `uint16`.
    UInt16,
    /// `int32`.
    Int32,
    /// `uint32`.
    UInt32,
    /// `int64`.
    Int64,
    /// `uint64`.
    UInt64,
}

impl Primitive {
    /// The fixed-size builtin named `name` (`"float64"`, ...), if it is one
    /// (the names are the same in both dialects).
    ///
    /// ```
    /// use rosmsg::Primitive;
    /// assert_eq!(Primitive::from_name("uint16"), Some(Primitive::UInt16));
    /// assert_eq!(Primitive::from_name("string"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Self> {
        use Primitive as P;
        Some(match name {
            "bool" => P::Bool,
            "byte" => P::Byte,
            "char" => P::Char,
            "float32" => P::Float32,
            "float64" => P::Float64,
            "int8" => P::Int8,
            "uint8" => P::UInt8,
            "int16" => P::Int16,
            "uint16" => P::UInt16,
            "int32" => P::Int32,
            "uint32" => P::UInt32,
            "int64" => P::Int64,
            "uint64" => P::UInt64,
            _ => return None,
        })
    }

    /// The name in definitions.
    pub fn name(self) -> &'static str {
        Builtin::from(self).name()
    }

    /// The size in bytes on the wire (in CDR also its alignment).
    pub fn size(self) -> usize {
        use Primitive as P;
        match self {
            P::Bool | P::Byte | P::Char | P::Int8 | P::UInt8 => 1,
            P::Int16 | P::UInt16 => 2,
            P::Float32 | P::Int32 | P::UInt32 => 4,
            P::Float64 | P::Int64 | P::UInt64 => 8,
        }
    }

    /// The type of a decoded scalar of this builtin in `dialect`: `char`
    /// is `uint8` in both; `byte` is `int8` in ROS 1 (its deprecated
    /// alias) and `uint8` in ROS 2 (an octet).
    ///
    /// ```
    /// use logcore::ValueType;
    /// use rosmsg::{Dialect, Primitive};
    /// assert_eq!(Primitive::Byte.value_type(Dialect::Ros1), ValueType::I8);
    /// assert_eq!(Primitive::Byte.value_type(Dialect::Ros2), ValueType::U8);
    /// ```
    pub fn value_type(self, dialect: Dialect) -> ValueType {
        use Primitive as P;
        match self {
            P::Bool => ValueType::Bool,
            P::Byte if dialect == Dialect::Ros1 => ValueType::I8,
            P::Int8 => ValueType::I8,
            P::Byte | P::Char | P::UInt8 => ValueType::U8,
            P::Int16 => ValueType::I16,
            P::UInt16 => ValueType::U16,
            P::Int32 => ValueType::I32,
            P::UInt32 => ValueType::U32,
            P::Int64 => ValueType::I64,
            P::UInt64 => ValueType::U64,
            P::Float32 => ValueType::F32,
            P::Float64 => ValueType::F64,
        }
    }
}

impl From<Primitive> for Builtin {
    fn from(p: Primitive) -> Builtin {
        use Primitive as P;
        match p {
            P::Bool => Builtin::Bool,
            P::Byte => Builtin::Byte,
            P::Char => Builtin::Char,
            P::Float32 => Builtin::Float32,
            P::Float64 => Builtin::Float64,
            P::Int8 => Builtin::Int8,
            P::UInt8 => Builtin::UInt8,
            P::Int16 => Builtin::Int16,
            P::UInt16 => Builtin::UInt16,
            P::Int32 => Builtin::Int32,
            P::UInt32 => Builtin::UInt32,
            P::Int64 => Builtin::Int64,
            P::UInt64 => Builtin::UInt64,
        }
    }
}

/// The element type of a field or constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BaseType<'t> {
    /// A builtin of the dialect.
    Builtin(Builtin),
    /// Any other name, as written (`Type`, `pkg/Type`, `pkg/msg/Type`,
    /// ROS 1's `Header`); [`resolve_name`](crate::resolve_name) gives its
    /// full name.
    Message(&'t str),
}

/// Whether a field is one value or an array of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArrayKind {
    /// One value.
    Scalar,
    /// `T[N]`: exactly `N` values.
    Fixed(u32),
    /// `T[<=N]`: at most `N` values.
    Bounded(u32),
    /// `T[]`: any number of values.
    Unbounded,
}

/// A type as written: `float64[9]`, `string<=8[<=2]`, `pkg/Type[]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TypeSpec<'t> {
    /// The element type.
    pub base: BaseType<'t>,
    /// The `N` of `string<=N` / `wstring<=N`.
    pub string_bound: Option<u32>,
    /// The array suffix.
    pub array: ArrayKind,
    /// The whole type token exactly as written (ROS 1's md5 covers it).
    pub text: &'t str,
}

/// A field: `TYPE name` (ROS 2: `TYPE name default`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Field<'t> {
    /// Its type.
    pub ty: TypeSpec<'t>,
    /// Its name (a letter, then letters, digits and `_`).
    pub name: &'t str,
    /// ROS 2's default value text, trimmed, as written (see
    /// [`literal`](crate::literal) to take it apart).
    pub default: Option<&'t str>,
    /// Where the line starts.
    pub pos: Pos,
    /// The line without its comment, trimmed (for messages that quote it).
    pub code: &'t str,
}

/// A constant: `TYPE NAME=value`, part of the definition but not of the
/// messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Constant<'t> {
    /// Its type: a builtin, not an array.
    pub ty: TypeSpec<'t>,
    /// Its name.
    pub name: &'t str,
    /// The value's text, trimmed: for a ROS 1 `string` constant everything
    /// after the `=` (a `#` is part of it), else up to the comment.
    pub value: &'t str,
    /// Where the line starts.
    pub pos: Pos,
    /// The line without its comment, trimmed.
    pub code: &'t str,
}

/// One type's definition: its constants and fields in order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Section<'t> {
    /// The name after `MSG:`, trimmed; `None` for the first section (the
    /// type the text defines, whose name the text does not hold).
    pub name: Option<&'t str>,
    /// Constants in definition order.
    pub constants: Vec<Constant<'t>>,
    /// Fields in definition (and wire) order.
    pub fields: Vec<Field<'t>>,
    /// Where the section's body (after its `MSG:` line) starts.
    pub pos: Pos,
}
