//! Messages recorded by rosbag2 (the project corpus's `ros2-mcap` files:
//! ROS 2's own test bags, Apache-2.0), with their stored schemas, decoded
//! to the values python `mcap-ros2-support` 0.6.0 gives them (service
//! events, which it cannot read, checked field by field against the
//! bytes), every value admitted by the type its definition declares.

use logcore::Value;
use ros2cdr::MessageType;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The decoded value, checked against the type the definition declares.
fn decode(name: &str, schema: &str, payload: &str) -> Value {
    let t = MessageType::parse(name, schema).unwrap();
    let v = t.decode(&hex(payload), 0).unwrap();
    let ty = t.value_type().unwrap();
    if let Err(m) = ty.admits(&v) {
        panic!("{name}: the declared type does not admit the value: {m}");
    }
    v
}

fn ints(v: &[i64]) -> Value {
    Value::Array(v.iter().map(|&x| Value::I64(x)).collect())
}

fn uints(v: &[u64]) -> Value {
    Value::Array(v.iter().map(|&x| Value::U64(x)).collect())
}

fn basic(b: bool, small: u64, f: f64, int32: i64) -> Value {
    Value::record([
        ("bool_value", Value::Bool(b)),
        ("byte_value", Value::U64(small)),
        ("char_value", Value::U64(small * 2)),
        ("float32_value", Value::F32(f as f32)),
        ("float64_value", Value::F64(f)),
        ("int8_value", Value::I64(-(small as i64))),
        ("uint8_value", Value::U64(small * 4)),
        ("int16_value", Value::I64(-20 * small as i64)),
        ("uint16_value", Value::U64(40 * small)),
        ("int32_value", Value::I64(int32)),
        ("uint32_value", Value::U64(1200 * small)),
        ("int64_value", Value::I64(-800_000 * small as i64)),
        ("uint64_value", Value::U64(1_000_000 * small)),
    ])
}

#[test]
fn basic_types() {
    let v = decode("test_msgs/msg/BasicTypes", SCHEMA_BASICTYPES, BASIC);
    assert_eq!(v, basic(false, 0, 0.0, 123));
    // The same type under the name without `/msg/`.
    let seek = concat!(
        "0001000000000000000000000000000000000000000000000000000001000000",
        "0000000000000000000000000000000000000000",
    );
    let v = decode("test_msgs/BasicTypes", SCHEMA_BASICTYPES, seek);
    assert_eq!(v, basic(false, 0, 0.0, 1));
}

#[test]
#[allow(clippy::approx_constant)] // 3.1415 is the definition's value
fn arrays_fixed_nested_and_with_defaults() {
    let v = decode("test_msgs/msg/Arrays", SCHEMA_ARRAYS, ARRAYS);
    let get = |n: &str| v.get(n).unwrap_or_else(|| panic!("{n}")).clone();
    assert_eq!(
        get("bool_values"),
        Value::Array(vec![
            Value::Bool(true),
            Value::Bool(false),
            Value::Bool(true)
        ])
    );
    assert_eq!(get("byte_values"), Value::Bytes(vec![0; 3]));
    assert_eq!(get("char_values"), Value::Bytes(vec![0; 3]));
    assert_eq!(get("float32_values"), Value::F32Array(vec![0.0; 3]));
    assert_eq!(get("int16_values"), ints(&[0, 0, 0]));
    assert_eq!(
        get("string_values"),
        Value::Array(
            (1..=3)
                .map(|i| Value::String(format!("Complex Hello{i}")))
                .collect()
        )
    );
    assert_eq!(
        get("basic_types_values"),
        Value::Array(vec![basic(false, 0, 0.0, 0); 3])
    );
    // Constants only: each element is the one placeholder byte.
    assert_eq!(
        get("constants_values"),
        Value::Array(vec![Value::Struct(vec![]); 3])
    );
    assert_eq!(
        get("defaults_values"),
        Value::Array(vec![basic(true, 50, 1.125, -30000); 3])
    );
    assert_eq!(
        get("bool_values_default"),
        Value::Array(vec![
            Value::Bool(false),
            Value::Bool(true),
            Value::Bool(false)
        ])
    );
    assert_eq!(get("byte_values_default"), Value::Bytes(vec![0, 1, 255]));
    assert_eq!(get("char_values_default"), Value::Bytes(vec![0, 1, 127]));
    assert_eq!(
        get("float32_values_default"),
        Value::F32Array(vec![1.125, 0.0, -1.125])
    );
    assert_eq!(
        get("float64_values_default"),
        Value::F64Array(vec![3.1415, 0.0, -3.1415])
    );
    assert_eq!(get("int8_values_default"), ints(&[0, 127, -128]));
    assert_eq!(get("uint8_values_default"), Value::Bytes(vec![0, 1, 255]));
    assert_eq!(get("int16_values_default"), ints(&[0, 32767, -32768]));
    assert_eq!(get("uint16_values_default"), uints(&[0, 1, 65535]));
    assert_eq!(
        get("int32_values_default"),
        ints(&[0, i32::MAX.into(), i32::MIN.into()])
    );
    assert_eq!(
        get("uint32_values_default"),
        uints(&[0, 1, u32::MAX.into()])
    );
    assert_eq!(get("int64_values_default"), ints(&[0, i64::MAX, i64::MIN]));
    assert_eq!(get("uint64_values_default"), uints(&[0, 1, u64::MAX]));
    assert_eq!(
        get("string_values_default"),
        Value::Array(vec![
            Value::String(String::new()),
            Value::String("max value".into()),
            Value::String("min value".into()),
        ])
    );
    assert_eq!(get("alignment_check"), Value::I64(0));
    let Value::Struct(fields) = &v else { panic!() };
    assert_eq!(fields.len(), 32);
    // The definition's own defaults and constants are parsed too.
    let t = MessageType::parse("test_msgs/msg/Arrays", SCHEMA_ARRAYS).unwrap();
    let c = t.def("test_msgs/Constants").unwrap();
    assert_eq!(c.constants.len(), 13);
    assert_eq!(c.constants[12].value, Value::U64(50_000_000));
    let d = t.def("test_msgs/msg/Defaults").unwrap();
    assert_eq!(d.fields[3].default, Some(Value::F32(1.125)));
    assert_eq!(
        t.defs()[0].fields[17].default,
        Some(Value::Array(vec![
            Value::Bool(false),
            Value::Bool(true),
            Value::Bool(false)
        ]))
    );
}

#[test]
fn parameter_event_nested_arrays_of_structs() {
    let v = decode(
        "rcl_interfaces/msg/ParameterEvent",
        SCHEMA_PARAMETEREVENT,
        PARAM_EVENT,
    );
    let value = Value::record([
        ("type", Value::U64(4)),
        ("bool_value", Value::Bool(false)),
        ("integer_value", Value::I64(0)),
        ("double_value", Value::F64(0.0)),
        ("string_value", Value::String("volatile".into())),
        ("byte_array_value", Value::Bytes(vec![])),
        ("bool_array_value", Value::Array(vec![])),
        ("integer_array_value", Value::Array(vec![])),
        ("double_array_value", Value::F64Array(vec![])),
        ("string_array_value", Value::Array(vec![])),
    ]);
    assert_eq!(
        v,
        Value::record([
            // sec 1_697_521_620, nanosec 35_063_450.
            (
                "stamp",
                Value::Time(logcore::Timestamp(1_697_521_620_035_063_450))
            ),
            ("node", Value::String("/introspection_client".into())),
            (
                "new_parameters",
                Value::Array(vec![Value::record([
                    (
                        "name",
                        Value::String(
                            "qos_overrides./parameter_events.publisher.durability".into()
                        )
                    ),
                    ("value", value),
                ])])
            ),
            ("changed_parameters", Value::Array(vec![])),
            ("deleted_parameters", Value::Array(vec![])),
        ])
    );
}

#[test]
fn strings_bounded_and_quoted_defaults_and_an_empty_type() {
    let v = decode("test_msgs/msg/Strings", SCHEMA_STRINGS, STRINGS);
    let s = |x: &str| Value::String(x.into());
    assert_eq!(
        v,
        Value::record([
            ("string_value", s("stringval0")),
            ("string_value_default1", s("Hello world!")),
            ("string_value_default2", s("Hello'world!")),
            ("string_value_default3", s("Hello\"world!")),
            ("string_value_default4", s("Hello'world!")),
            ("string_value_default5", s("Hello\"world!")),
            ("bounded_string_value", s("")),
            ("bounded_string_value_default1", s("Hello world!")),
            ("bounded_string_value_default2", s("Hello'world!")),
            ("bounded_string_value_default3", s("Hello\"world!")),
            ("bounded_string_value_default4", s("Hello'world!")),
            ("bounded_string_value_default5", s("Hello\"world!")),
        ])
    );
    let t = MessageType::parse("test_msgs/msg/Strings", SCHEMA_STRINGS).unwrap();
    assert_eq!(t.defs()[0].fields[5].default, Some(s("Hello\"world!")));
    assert_eq!(t.defs()[0].constants[0].value, s("Hello world!"));
    assert_eq!(
        decode("test_msgs/msg/Empty", SCHEMA_EMPTY, EMPTY),
        Value::Struct(vec![])
    );
}

#[test]
fn service_events_decode_into_info_request_and_response() {
    let gid = hex("010feb7d6c2aa9d20000000000001304");
    let info = |event_type: u64, sec: i64, nanosec: i64| {
        Value::record([
            ("event_type", Value::U64(event_type)),
            (
                "stamp",
                Value::Time(logcore::Timestamp(sec * 1_000_000_000 + nanosec)),
            ),
            ("client_gid", Value::Bytes(gid.clone())),
            ("sequence_number", Value::I64(1)),
        ])
    };
    let name = "example_interfaces/srv/AddTwoInts_Event";
    assert_eq!(
        decode(name, SCHEMA_EVENT, EVENT_REQUEST),
        Value::record([
            ("info", info(1, 1_697_521_953, 0x2b46_dabe)),
            (
                "request",
                Value::Array(vec![Value::record([
                    ("a", Value::I64(1)),
                    ("b", Value::I64(3)),
                ])])
            ),
            ("response", Value::Array(vec![])),
        ])
    );
    assert_eq!(
        decode(name, SCHEMA_EVENT, EVENT_RESPONSE),
        Value::record([
            ("info", info(2, 1_697_521_953, 0x2b49_fd37)),
            ("request", Value::Array(vec![])),
            (
                "response",
                Value::Array(vec![Value::record([("sum", Value::I64(4))])])
            ),
        ])
    );
}

/// cdr_test_0.mcap /test_topic, message 0 (test_msgs/msg/BasicTypes).
const BASIC: &str = concat!(
    "000100000000000000000000000000000000000000000000000000007b00000000000000000000000000000000000000",
    "00000000",
);

/// cdr_test_0.mcap /array_topic, message 0 (test_msgs/msg/Arrays).
const ARRAYS: &str = concat!(
    "000100000100010000000000000000000000000000000000000000000000000000000000000000000000000000000000",
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
    "000000000f000000436f6d706c65782048656c6c6f3100000f000000436f6d706c65782048656c6c6f3200000f000000",
    "436f6d706c65782048656c6c6f3300000000000000000000000000000000000000000000000000000000000000000000",
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
    "000000000000000000000000000000000000000000000001326400000000903f00000000000000000000f23fcec818fc",
    "d0070000d08affff60ea000000a69dfdffffffff80f0fa0200000000013264000000903f000000000000f23fcec818fc",
    "d0070000d08affff60ea000000a69dfdffffffff80f0fa0200000000013264000000903f000000000000f23fcec818fc",
    "d0070000d08affff60ea000000a69dfdffffffff80f0fa02000000000001000001ff00017f0000000000903f00000000",
    "000090bf6f1283c0ca21094000000000000000006f1283c0ca2109c0007f800001ff0000ff7f008000000100ffff0000",
    "00000000ffffff7f000000800000000001000000ffffffff000000000000000000000000ffffffffffffff7f00000000",
    "0000008000000000000000000100000000000000ffffffffffffffff01000000000000000a0000006d61782076616c75",
    "650000000a0000006d696e2076616c756500000000000000",
);

/// only_topics.mcap /parameter_events, message 2 (rcl_interfaces/msg/ParameterEvent).
const PARAM_EVENT: &str = concat!(
    "00010000d41f2e659a061702160000002f696e74726f7370656374696f6e5f636c69656e740000000100000035000000",
    "716f735f6f76657272696465732e2f706172616d657465725f6576656e74732e7075626c69736865722e647572616269",
    "6c69747900040000000000000000000000000000000000000000000009000000766f6c6174696c650000000000000000",
    "000000000000000000000000000000000000000000000000",
);

/// rewriter_b_0.mcap c_strings, message 0 (test_msgs/msg/Strings).
const STRINGS: &str = concat!(
    "000100000b000000737472696e6776616c3000000d00000048656c6c6f20776f726c6421000000000d00000048656c6c",
    "6f27776f726c6421000000000d00000048656c6c6f22776f726c6421000000000d00000048656c6c6f27776f726c6421",
    "000000000d00000048656c6c6f22776f726c64210000000001000000000000000d00000048656c6c6f20776f726c6421",
    "000000000d00000048656c6c6f27776f726c6421000000000d00000048656c6c6f22776f726c6421000000000d000000",
    "48656c6c6f27776f726c6421000000000d00000048656c6c6f22776f726c642100",
);

/// rewriter_b_0.mcap a_empty, message 0 (test_msgs/msg/Empty).
const EMPTY: &str = "0001000000";

/// only_services.mcap /add_two_ints/_service_event, message 0 (example_interfaces/srv/AddTwoInts_Event).
const EVENT_REQUEST: &str = concat!(
    "000100000100000021212e65beda462b010feb7d6c2aa9d2000000000000130400000000010000000000000001000000",
    "000000000100000000000000030000000000000000000000",
);

/// only_services.mcap /add_two_ints/_service_event, message 1 (example_interfaces/srv/AddTwoInts_Event).
const EVENT_RESPONSE: &str = concat!(
    "000100000200000021212e6537fd492b010feb7d6c2aa9d2000000000000130400000000010000000000000000000000",
    "010000000400000000000000",
);

/// The schema test_msgs/msg/BasicTypes as stored.
const SCHEMA_BASICTYPES: &str = r#"bool bool_value
byte byte_value
char char_value
float32 float32_value
float64 float64_value
int8 int8_value
uint8 uint8_value
int16 int16_value
uint16 uint16_value
int32 int32_value
uint32 uint32_value
int64 int64_value
uint64 uint64_value
"#;

/// The schema test_msgs/msg/Arrays as stored.
const SCHEMA_ARRAYS: &str = r#"# Arrays of different types
bool[3] bool_values
byte[3] byte_values
char[3] char_values
float32[3] float32_values
float64[3] float64_values
int8[3] int8_values
uint8[3] uint8_values
int16[3] int16_values
uint16[3] uint16_values
int32[3] int32_values
uint32[3] uint32_values
int64[3] int64_values
uint64[3] uint64_values
string[3] string_values
BasicTypes[3] basic_types_values
Constants[3] constants_values
Defaults[3] defaults_values
bool[3] bool_values_default [false, true, false]
byte[3] byte_values_default [0, 1, 255]
char[3] char_values_default [0, 1, 127]
float32[3] float32_values_default [1.125, 0.0, -1.125]
float64[3] float64_values_default [3.1415, 0.0, -3.1415]
int8[3] int8_values_default [0, 127, -128]
uint8[3] uint8_values_default [0, 1, 255]
int16[3] int16_values_default [0, 32767, -32768]
uint16[3] uint16_values_default [0, 1, 65535]
int32[3] int32_values_default [0, 2147483647, -2147483648]
uint32[3] uint32_values_default [0, 1, 4294967295]
int64[3] int64_values_default [0, 9223372036854775807, -9223372036854775808]
uint64[3] uint64_values_default [0, 1, 18446744073709551615]
string[3] string_values_default ["", "max value", "min value"]
# Regression test: check alignment of basic field after an array field is correct
int32 alignment_check

================================================================================
MSG: test_msgs/BasicTypes
bool bool_value
byte byte_value
char char_value
float32 float32_value
float64 float64_value
int8 int8_value
uint8 uint8_value
int16 int16_value
uint16 uint16_value
int32 int32_value
uint32 uint32_value
int64 int64_value
uint64 uint64_value

================================================================================
MSG: test_msgs/Constants
bool BOOL_CONST=true
byte BYTE_CONST=50
char CHAR_CONST=100
float32 FLOAT32_CONST=1.125
float64 FLOAT64_CONST=1.125
int8 INT8_CONST=-50
uint8 UINT8_CONST=200
int16 INT16_CONST=-1000
uint16 UINT16_CONST=2000
int32 INT32_CONST=-30000
uint32 UINT32_CONST=60000
int64 INT64_CONST=-40000000
uint64 UINT64_CONST=50000000

================================================================================
MSG: test_msgs/Defaults
bool bool_value true
byte byte_value 50
char char_value 100
float32 float32_value 1.125
float64 float64_value 1.125
int8 int8_value -50
uint8 uint8_value 200
int16 int16_value -1000
uint16 uint16_value 2000
int32 int32_value -30000
uint32 uint32_value 60000
int64 int64_value -40000000
uint64 uint64_value 50000000
"#;

/// The schema rcl_interfaces/msg/ParameterEvent as stored.
const SCHEMA_PARAMETEREVENT: &str = r#"# This message contains a parameter event.
# Because the parameter event was an atomic update, a specific parameter name
# can only be in one of the three sets.

# The time stamp when this parameter event occurred.
builtin_interfaces/Time stamp

# Fully qualified ROS path to node.
string node

# New parameters that have been set for this node.
Parameter[] new_parameters

# Parameters that have been changed during this event.
Parameter[] changed_parameters

# Parameters that have been deleted during this event.
Parameter[] deleted_parameters

================================================================================
MSG: builtin_interfaces/Time
# This message communicates ROS Time defined here:
# https://design.ros2.org/articles/clock_and_time.html

# The seconds component, valid over all int32 values.
int32 sec

# The nanoseconds component, valid in the range [0, 1e9).
uint32 nanosec

================================================================================
MSG: rcl_interfaces/Parameter
# This is the message to communicate a parameter. It is an open struct with an enum in
# the descriptor to select which value is active.

# The full name of the parameter.
string name

# The parameter's value which can be one of several types, see
# `ParameterValue.msg` and `ParameterType.msg`.
ParameterValue value

================================================================================
MSG: rcl_interfaces/ParameterValue
# Used to determine which of the next *_value fields are set.
# ParameterType.PARAMETER_NOT_SET indicates that the parameter was not set
# (if gotten) or is uninitialized.
# Values are enumerated in `ParameterType.msg`.

# The type of this parameter, which corresponds to the appropriate field below.
uint8 type

# "Variant" style storage of the parameter value. Only the value corresponding
# the type field will have valid information.

# Boolean value, can be either true or false.
bool bool_value

# Integer value ranging from -9,223,372,036,854,775,808 to
# 9,223,372,036,854,775,807.
int64 integer_value

# A double precision floating point value following IEEE 754.
float64 double_value

# A textual value with no practical length limit.
string string_value

# An array of bytes, used for non-textual information.
byte[] byte_array_value

# An array of boolean values.
bool[] bool_array_value

# An array of 64-bit integer values.
int64[] integer_array_value

# An array of 64-bit floating point values.
float64[] double_array_value

# An array of string values.
string[] string_array_value
"#;

/// The schema test_msgs/msg/Strings as stored.
const SCHEMA_STRINGS: &str = r#"string string_value
string string_value_default1 "Hello world!"
string string_value_default2 "Hello'world!"
string string_value_default3 'Hello"world!'
string string_value_default4 'Hello\'world!'
string string_value_default5 "Hello\"world!"
string STRING_CONST="Hello world!"
string<=22 bounded_string_value
string<=22 bounded_string_value_default1 "Hello world!"
string<=22 bounded_string_value_default2 "Hello'world!"
string<=22 bounded_string_value_default3 'Hello"world!'
string<=22 bounded_string_value_default4 'Hello\'world!'
string<=22 bounded_string_value_default5 "Hello\"world!"
"#;

/// The schema test_msgs/msg/Empty as stored.
const SCHEMA_EMPTY: &str = r#""#;

/// The schema example_interfaces/srv/AddTwoInts_Event as stored.
const SCHEMA_EVENT: &str = r#"int64 a
int64 b
---
int64 sum
"#;
