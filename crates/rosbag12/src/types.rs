//! The [`ValueType`] a message definition declares: the shape of every
//! value [`MessageType::decode`] returns for it (see [`crate::decode`]'s
//! value mapping).

use logcore::{FieldName, ValueType};
use rosmsg::{self as grammar, ArrayKind, Dialect, Element};

use crate::msg::{MessageType, WireKind, WireType};

/// The most fields (counting those of nested types, as often as they are
/// nested) a declared type may have: the grammar's limit, the same for
/// ROS 1 and ROS 2.
pub use rosmsg::MAX_TYPE_FIELDS;

impl grammar::CompiledType for WireType {
    type Kind = WireKind;

    fn fields(&self) -> &[(FieldName, WireKind, ArrayKind)] {
        &self.fields
    }

    fn element(kind: WireKind) -> Element {
        match kind {
            WireKind::Prim(p) => p.element(),
            WireKind::Msg(j) => Element::Message(j),
        }
    }
}

impl MessageType {
    /// The type of every value [`decode`](Self::decode) returns: a
    /// [`ValueType::Struct`] of the fields in declaration order (constants
    /// are not fields), nested messages (`std_msgs/Header` included) as
    /// structs, `uint8[]`/`char[]` as [`ValueType::Bytes`], other `T[]` as
    /// [`ValueType::List`] and `T[N]` as [`ValueType::FixedArray`].
    ///
    /// One departure is possible: a `string` field whose bytes are not
    /// UTF-8 decodes to [`Value::Bytes`](logcore::Value::Bytes), which the
    /// declared [`ValueType::String`] does not admit. `None` when the type
    /// spelled out has more than [`MAX_TYPE_FIELDS`] fields.
    ///
    /// ```
    /// use logcore::ValueType;
    /// let t = rosbag12::MessageType::parse("demo/Blob", "uint8 A=1\ntime t\nuint8[] data\nfloat32[4] q").unwrap();
    /// assert_eq!(t.value_type(), Some(ValueType::record([
    ///     ("t", ValueType::Time),
    ///     ("data", ValueType::Bytes),
    ///     ("q", ValueType::fixed(ValueType::F32, 4)),
    /// ])));
    /// ```
    pub fn value_type(&self) -> Option<ValueType> {
        grammar::value_type(self.compiled.as_slice(), Dialect::Ros1, self.max_nesting)
    }
}

#[cfg(test)]
mod tests {
    use logcore::ValueType as T;

    use super::*;

    const SEP: &str =
        "\n================================================================================\n";

    fn header() -> T {
        T::record([("seq", T::U32), ("stamp", T::Time), ("frame_id", T::String)])
    }

    fn xyz(t: T) -> T {
        T::record([("x", t.clone()), ("y", t.clone()), ("z", t)])
    }

    #[test]
    fn header_and_imu() {
        let t = MessageType::parse(
            "std_msgs/Header",
            "uint32 seq\ntime stamp\nstring frame_id\n",
        )
        .unwrap();
        assert_eq!(t.value_type(), Some(header()));
        let imu = [
            "Header header\ngeometry_msgs/Quaternion orientation\nfloat64[9] orientation_covariance\n\
             geometry_msgs/Vector3 angular_velocity\nfloat64[9] angular_velocity_covariance\n\
             geometry_msgs/Vector3 linear_acceleration\nfloat64[9] linear_acceleration_covariance",
            "MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id",
            "MSG: geometry_msgs/Quaternion\nfloat64 x\nfloat64 y\nfloat64 z\nfloat64 w",
            "MSG: geometry_msgs/Vector3\n# a comment\nfloat64 x\nfloat64 y\nfloat64 z",
        ]
        .join(SEP);
        let t = MessageType::parse("sensor_msgs/Imu", &imu).unwrap();
        let cov = T::fixed(T::F64, 9);
        assert_eq!(
            t.value_type(),
            Some(T::record([
                ("header", header()),
                (
                    "orientation",
                    T::record([("x", T::F64), ("y", T::F64), ("z", T::F64), ("w", T::F64)])
                ),
                ("orientation_covariance", cov.clone()),
                ("angular_velocity", xyz(T::F64)),
                ("angular_velocity_covariance", cov.clone()),
                ("linear_acceleration", xyz(T::F64)),
                ("linear_acceleration_covariance", cov),
            ]))
        );
        // A Header without a section of its own is the standard one.
        let t = MessageType::parse("a/B", "Header h\nint8 K=3").unwrap();
        assert_eq!(t.value_type(), Some(T::record([("h", header())])));
    }

    #[test]
    fn every_builtin_and_array_form() {
        let text = "bool a\nint8 b\nbyte c\nuint8 d\nchar e\nint16 f\nuint16 g\nint32 h\n\
            uint32 i\nint64 j\nuint64 k\nfloat32 l\nfloat64 m\nstring n\ntime o\nduration p\n\
            uint8[] q\nchar[] r\nbyte[] s\nint8[] t\nuint8[4] u\nfloat32[] v\nstring[2] w\n\
            time[] x\nP[] y\nP[3] z\n===\nMSG: a/P\nint16 KEY=1\nuint64 id";
        let t = MessageType::parse("a/All", text).unwrap();
        let p = T::record([("id", T::U64)]);
        let want = T::record([
            ("a", T::Bool),
            ("b", T::I8),
            ("c", T::I8),
            ("d", T::U8),
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
            ("o", T::Time),
            ("p", T::Duration),
            ("q", T::Bytes),
            ("r", T::Bytes),
            ("s", T::list(T::I8)),
            ("t", T::list(T::I8)),
            ("u", T::fixed(T::U8, 4)),
            ("v", T::list(T::F32)),
            ("w", T::fixed(T::String, 2)),
            ("x", T::list(T::Time)),
            ("y", T::list(p.clone())),
            ("z", T::fixed(p, 3)),
        ]);
        assert_eq!(t.value_type(), Some(want.clone()));
        // The decoded value of a message is admitted (and would not be if
        // `byte` were declared uint8 or `uint8[4]` a list of another type).
        let mut data = vec![1u8, 0xff, 0xfe, 7, 8];
        data.extend(1i16.to_le_bytes());
        data.extend(2u16.to_le_bytes());
        data.extend((-3i32).to_le_bytes());
        data.extend(4u32.to_le_bytes());
        data.extend((-5i64).to_le_bytes());
        data.extend(6u64.to_le_bytes());
        data.extend(0.5f32.to_le_bytes());
        data.extend(0.25f64.to_le_bytes());
        data.extend(2u32.to_le_bytes());
        data.extend(b"hi");
        data.extend([0u8; 16]); // time, duration
        data.extend(3u32.to_le_bytes());
        data.extend([1, 2, 3]); // q
        data.extend(0u32.to_le_bytes()); // r
        data.extend(2u32.to_le_bytes());
        data.extend([0x80, 0x7f]); // s
        data.extend(0u32.to_le_bytes()); // t
        data.extend([9, 9, 9, 9]); // u
        data.extend(1u32.to_le_bytes());
        data.extend(1.5f32.to_le_bytes()); // v
        for s in ["a", "b"] {
            data.extend(1u32.to_le_bytes());
            data.extend(s.as_bytes());
        }
        data.extend(0u32.to_le_bytes()); // x
        data.extend(1u32.to_le_bytes());
        data.extend(u64::MAX.to_le_bytes()); // y
        for i in 0..3u64 {
            data.extend(i.to_le_bytes()); // z
        }
        let v = t.decode(&data, 0).unwrap();
        assert_eq!(want.admits(&v), Ok(()));
    }

    #[test]
    fn a_hostile_expansion_has_no_type() {
        // 30 levels, each with two fields of the next: 2^30 fields spelled out.
        let mut text = String::from("a/T1 x\na/T1 y");
        for i in 1..30 {
            text.push_str(&format!(
                "\n===\nMSG: a/T{i}\na/T{} x\na/T{} y",
                i + 1,
                i + 1
            ));
        }
        text.push_str("\n===\nMSG: a/T30\nuint8 v");
        let t = MessageType::parse("a/T0", &text).unwrap();
        assert_eq!(t.value_type(), None);
        // Ten levels are fine.
        let mut text = String::from("a/T1 x\na/T1 y");
        for i in 1..10 {
            text.push_str(&format!(
                "\n===\nMSG: a/T{i}\na/T{} x\na/T{} y",
                i + 1,
                i + 1
            ));
        }
        text.push_str("\n===\nMSG: a/T10\nuint8 v");
        let t = MessageType::parse("a/T0", &text).unwrap();
        assert!(t.value_type().is_some());
    }
}
