//! The [`ValueType`] a definition declares: the shape of every value
//! [`MessageType::decode`] returns for it (see the value mapping of
//! [`MessageType`]'s decoder).

use logcore::{FieldName, ValueType};
use rosmsg::{ArrayKind, CompiledType, Dialect, Element};

use crate::decode::{Compiled, Kind, MessageType};

/// The most fields (counting those of nested types, as often as they are
/// nested) a declared type may have: the grammar's limit, the same for
/// ROS 1 and ROS 2.
pub use rosmsg::MAX_TYPE_FIELDS;

impl CompiledType for Compiled {
    type Kind = Kind;

    fn fields(&self) -> &[(FieldName, Kind, ArrayKind)] {
        &self.fields
    }

    fn element(kind: Kind) -> Element {
        match kind {
            Kind::Prim(p) => Element::Primitive(p),
            Kind::Str | Kind::WStr => Element::String,
            Kind::Msg(j) => Element::Message(j),
            Kind::Time => Element::Time,
            Kind::Duration => Element::Duration,
        }
    }
}

impl MessageType {
    /// The type of every value [`decode`](Self::decode) returns: a
    /// [`ValueType::Struct`] of the fields in order (constants are not
    /// fields), nested messages as structs, `builtin_interfaces/Time` and
    /// `Duration` as [`ValueType::Time`] and [`ValueType::Duration`] (one
    /// instant or duration in ns, as ROS 1's `time` and `duration`, where
    /// their definition is the standard `int32 sec`, `uint32 nanosec`),
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
        rosmsg::value_type(self.compiled.as_slice(), Dialect::Ros2, self.max_nesting)
    }
}

#[cfg(test)]
mod tests {
    use logcore::{Value, ValueType as T};

    use super::*;

    /// `builtin_interfaces/Time`: one instant, as ROS 1's `time`.
    fn stamp() -> T {
        T::Time
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
        // sec 5, nanosec 6: 5_000_000_006 ns.
        let Value::Struct(fields) = &v else {
            panic!("{v:?}")
        };
        assert_eq!(
            fields[0].1,
            Value::record([
                ("stamp", Value::Time(logcore::Timestamp(5_000_000_006))),
                ("frame_id", Value::String("imu".into())),
            ])
        );
        // A type of that name with other fields stays a struct.
        let odd = MessageType::parse(
            "a/msg/Odd",
            "builtin_interfaces/Time t
================
MSG: builtin_interfaces/Time
int64 sec
",
        )
        .unwrap();
        assert_eq!(
            odd.value_type(),
            Some(T::record([("t", T::record([("sec", T::I64)]))]))
        );
        // Durations, and negative seconds (before 1970, or a negative
        // duration), big-endian too.
        let d = MessageType::parse(
            "a/msg/D",
            "builtin_interfaces/Duration d
builtin_interfaces/Time t
",
        )
        .unwrap();
        assert_eq!(
            d.value_type(),
            Some(T::record([("d", T::Duration), ("t", T::Time)]))
        );
        let mut p = vec![0, 0, 0, 0];
        p.extend((-2i32).to_be_bytes());
        p.extend(500_000_000u32.to_be_bytes());
        p.extend(1i32.to_be_bytes());
        p.extend(7u32.to_be_bytes());
        assert_eq!(
            d.decode(&p, 0).unwrap(),
            Value::record([
                ("d", Value::Duration(-1_500_000_000)),
                ("t", Value::Time(logcore::Timestamp(1_000_000_007))),
            ])
        );
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
