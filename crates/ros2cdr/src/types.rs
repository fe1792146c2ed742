//! The [`ValueType`] a definition declares: the shape of every value
//! [`MessageType::decode`] returns for it (see the value mapping of
//! [`MessageType`]'s decoder).

use logcore::{Field, ValueType};

use crate::decode::{Kind, MessageType};
use crate::msg::{ArrayKind, Primitive};

/// The most fields (counting those of nested types, as often as they are
/// nested) a declared type may have. Definitions nest at most
/// [`MessageType::max_nesting`] levels, but a type used by several fields is spelled
/// out once per field, so a hostile definition of a few lines could
/// otherwise expand to billions of fields; real ones stay in the
/// thousands.
pub const MAX_TYPE_FIELDS: u64 = 1 << 20;

impl Primitive {
    /// The type of a decoded scalar of this builtin: `byte` and `char` are
    /// `uint8` (octets), as in the decoder.
    pub fn value_type(self) -> ValueType {
        use Primitive as P;
        match self {
            P::Bool => ValueType::Bool,
            P::Byte | P::Char | P::UInt8 => ValueType::U8,
            P::Int8 => ValueType::I8,
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

impl MessageType {
    /// The type of every value [`decode`](Self::decode) returns: a
    /// [`ValueType::Struct`] of the fields in order (constants are not
    /// fields), nested messages as structs (`builtin_interfaces/Time` is
    /// the struct of `sec` and `nanosec` its definition declares),
    /// `string`, `string<=N`, `wstring` and `wstring<=N` as
    /// [`ValueType::String`], `T[N]` as [`ValueType::FixedArray`],
    /// sequences of `uint8`, `byte` and `char` (bounded or not) as
    /// [`ValueType::Bytes`] and other sequences `T[]`, `T[<=N]` as
    /// [`ValueType::List`]. A service event (`<Srv>_Event`) is the struct
    /// of `info`, `request` and `response`, the last two lists of at most
    /// one request or response.
    ///
    /// One departure is possible: a `string` whose bytes are not UTF-8
    /// decodes to [`Value::Bytes`](logcore::Value::Bytes), which the
    /// declared [`ValueType::String`] does not admit. `None` when the type
    /// spelled out has more than [`MAX_TYPE_FIELDS`] fields.
    ///
    /// ```
    /// use logcore::ValueType;
    /// let t = ros2cdr::MessageType::parse(
    ///     "demo/msg/Blob",
    ///     "uint8 A=1\nstring<=8 name\nuint8[<=4] data\nfloat32[] values\nint16[2] pair",
    /// )?;
    /// assert_eq!(t.value_type(), Some(ValueType::record([
    ///     ("name", ValueType::String),
    ///     ("data", ValueType::Bytes),
    ///     ("values", ValueType::list(ValueType::F32)),
    ///     ("pair", ValueType::fixed(ValueType::I16, 2)),
    /// ])));
    /// # Ok::<(), ros2cdr::Error>(())
    /// ```
    pub fn value_type(&self) -> Option<ValueType> {
        let mut counts: Vec<Option<u64>> = vec![None; self.compiled.len()];
        if self.field_count(0, 1, &mut counts)? > MAX_TYPE_FIELDS {
            return None;
        }
        let mut memo: Vec<Option<ValueType>> = vec![None; self.compiled.len()];
        self.struct_type(0, 1, &mut memo)
    }

    /// Fields of type `ty` spelled out, memoized; `from_defs` refused
    /// types nested deeper than [`MessageType::max_nesting`], and so cycles.
    fn field_count(&self, ty: usize, depth: usize, memo: &mut [Option<u64>]) -> Option<u64> {
        if let Some(n) = memo.get(ty).copied().flatten() {
            return Some(n);
        }
        if depth > self.max_nesting {
            return None;
        }
        let mut n = 0u64;
        for (_, kind, _) in &self.compiled.get(ty)?.fields {
            n = n.saturating_add(1);
            if let Kind::Msg(j) = kind {
                n = n.saturating_add(self.field_count(*j, depth + 1, memo)?);
            }
        }
        *memo.get_mut(ty)? = Some(n);
        Some(n)
    }

    fn struct_type(
        &self,
        ty: usize,
        depth: usize,
        memo: &mut [Option<ValueType>],
    ) -> Option<ValueType> {
        if let Some(t) = memo.get(ty).cloned().flatten() {
            return Some(t);
        }
        if depth > self.max_nesting {
            return None;
        }
        let mut fields = Vec::new();
        for (name, kind, array) in &self.compiled.get(ty)?.fields {
            let elem = match *kind {
                Kind::Prim(p) => p.value_type(),
                Kind::Str | Kind::WStr => ValueType::String,
                Kind::Msg(j) => self.struct_type(j, depth + 1, memo)?,
            };
            let octets = matches!(
                kind,
                Kind::Prim(Primitive::UInt8 | Primitive::Byte | Primitive::Char)
            );
            let t = match *array {
                ArrayKind::Scalar => elem,
                ArrayKind::Fixed(n) => ValueType::fixed(elem, n as usize),
                ArrayKind::Bounded(_) | ArrayKind::Unbounded if octets => ValueType::Bytes,
                ArrayKind::Bounded(_) | ArrayKind::Unbounded => ValueType::list(elem),
            };
            fields.push(Field::new(name.clone(), t));
        }
        let t = ValueType::Struct(fields);
        *memo.get_mut(ty)? = Some(t.clone());
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    use logcore::{Value, ValueType as T};

    use super::*;

    fn stamp() -> T {
        T::record([("sec", T::I32), ("nanosec", T::U32)])
    }

    fn header() -> T {
        T::record([("stamp", stamp()), ("frame_id", T::String)])
    }

    #[test]
    fn header_and_imu_with_builtin_time() {
        let t = MessageType::parse(
            "std_msgs/msg/Header",
            "builtin_interfaces/Time stamp\nstring frame_id\n",
        )
        .unwrap();
        assert_eq!(t.value_type(), Some(header()));
        let imu = "std_msgs/Header header\ngeometry_msgs/Quaternion orientation\n\
            float64[9] orientation_covariance\ngeometry_msgs/Vector3 angular_velocity\n\
            float64[9] angular_velocity_covariance\ngeometry_msgs/Vector3 linear_acceleration\n\
            float64[9] linear_acceleration_covariance\n\
            ================================================================================\n\
            MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n\
            ================================================================================\n\
            MSG: geometry_msgs/Quaternion\nfloat64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n\
            ================================================================================\n\
            MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n";
        let t = MessageType::parse("sensor_msgs/msg/Imu", imu).unwrap();
        let xyz = T::record([("x", T::F64), ("y", T::F64), ("z", T::F64)]);
        let cov = T::fixed(T::F64, 9);
        let want = T::record([
            ("header", header()),
            (
                "orientation",
                T::record([("x", T::F64), ("y", T::F64), ("z", T::F64), ("w", T::F64)]),
            ),
            ("orientation_covariance", cov.clone()),
            ("angular_velocity", xyz.clone()),
            ("angular_velocity_covariance", cov.clone()),
            ("linear_acceleration", xyz),
            ("linear_acceleration_covariance", cov),
        ]);
        assert_eq!(t.value_type(), Some(want.clone()));
        // A message of it decodes to a value the type admits.
        let mut p = vec![0, 1, 0, 0];
        p.extend(5i32.to_le_bytes());
        p.extend(6u32.to_le_bytes());
        p.extend(4u32.to_le_bytes());
        p.extend(b"imu\0");
        p.extend(std::iter::repeat_n(0u8, 8 * (4 + 9 + 3 + 9 + 3 + 9)));
        let v = t.decode(&p, 0).unwrap();
        assert_eq!(want.admits(&v), Ok(()));
    }

    #[test]
    fn builtins_strings_and_sequences() {
        let t = MessageType::parse(
            "a/msg/All",
            "bool a\nbyte b\nchar c\nint8 d\nuint8 e\nint16 f\nuint16 g\nint32 h\nuint32 i\n\
             int64 j\nuint64 k\nfloat32 l\nfloat64 m\nstring n\nstring<=5 o\nwstring p\n\
             wstring<=3 q\nbyte[] r\nchar[<=2] s\nuint8[3] t\nint8[] u\nstring<=4[<=2] v\n\
             float64[<=3] w\nint8 K=1\n",
        )
        .unwrap();
        let want = T::record([
            ("a", T::Bool),
            ("b", T::U8),
            ("c", T::U8),
            ("d", T::I8),
            ("e", T::U8),
            ("f", T::I16),
            ("g", T::U16),
            ("h", T::I32),
            ("i", T::U32),
            ("j", T::I64),
            ("k", T::U64),
            ("l", T::F32),
            ("m", T::F64),
            ("n", T::String),
            ("o", T::String),
            ("p", T::String),
            ("q", T::String),
            ("r", T::Bytes),
            ("s", T::Bytes),
            ("t", T::fixed(T::U8, 3)),
            ("u", T::list(T::I8)),
            ("v", T::list(T::String)),
            ("w", T::list(T::F64)),
        ]);
        assert_eq!(t.value_type(), Some(want));
        let empty = MessageType::parse("a/msg/E", "").unwrap();
        assert_eq!(empty.value_type(), Some(T::Struct(vec![])));
        assert_eq!(
            T::Struct(vec![]).admits(&empty.decode(&[0, 1, 0, 0, 0], 0).unwrap()),
            Ok(())
        );
    }

    #[test]
    fn a_hostile_expansion_has_no_type() {
        // Each level has two fields of the next: 2^(levels) fields spelled out.
        let chain = |levels: usize| {
            let mut text = String::from("a/T1 x\na/T1 y");
            for i in 1..levels {
                text.push_str(&format!(
                    "\n===\nMSG: a/T{i}\na/T{} x\na/T{} y",
                    i + 1,
                    i + 1
                ));
            }
            text.push_str(&format!("\n===\nMSG: a/T{levels}\nuint8 v"));
            MessageType::parse("a/T0", &text).unwrap()
        };
        assert_eq!(chain(30).value_type(), None);
        assert!(chain(10).value_type().is_some());
    }

    #[test]
    fn service_events_and_idl() {
        let t = MessageType::parse(
            "example_interfaces/srv/AddTwoInts_Event",
            "int64 a\nint64 b\n---\nint64 sum\n",
        )
        .unwrap();
        let info = T::record([
            ("event_type", T::U8),
            ("stamp", stamp()),
            ("client_gid", T::fixed(T::U8, 16)),
            ("sequence_number", T::I64),
        ]);
        assert_eq!(
            t.value_type(),
            Some(T::record([
                ("info", info),
                (
                    "request",
                    T::list(T::record([("a", T::I64), ("b", T::I64)]))
                ),
                ("response", T::list(T::record([("sum", T::I64)]))),
            ]))
        );
        let t = MessageType::parse_idl(
            "my_msgs/msg/M",
            "module my_msgs { module msg {\n\
               typedef double double__3[3];\n\
               struct M { double__3 xyz; sequence<int32, 4> ids; string<8> name; \
               sequence<octet> blob; wstring w; };\n\
             }; };\n",
        )
        .unwrap();
        assert_eq!(
            t.value_type(),
            Some(T::record([
                ("xyz", T::fixed(T::F64, 3)),
                ("ids", T::list(T::I32)),
                ("name", T::String),
                ("blob", T::Bytes),
                ("w", T::String),
            ]))
        );
        let mut p = vec![0, 1, 0, 0];
        p.extend(std::iter::repeat_n(0u8, 24)); // xyz
        p.extend(1u32.to_le_bytes()); // ids
        p.extend((-7i32).to_le_bytes());
        p.extend(3u32.to_le_bytes()); // name
        p.extend(b"ab\0\0");
        p.extend(2u32.to_le_bytes()); // blob
        p.extend([0xff, 0, 0, 0]);
        p.extend(0u32.to_le_bytes()); // w
        let v = t.decode(&p, 0).unwrap();
        assert_eq!(v.get("blob"), Some(&Value::Bytes(vec![0xff, 0])));
        assert_eq!(t.value_type().unwrap().admits(&v), Ok(()));
    }
}
