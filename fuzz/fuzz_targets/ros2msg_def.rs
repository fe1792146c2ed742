//! The ROS 2 definition parsers (`ros2msg` and `ros2idl`) and the CDR
//! decoder they drive. Half the inputs are `ros2msg` definitions built
//! from parts (primitive, string and nested types, fixed, bounded and
//! unbounded arrays, defaults, constants, `MSG:` sections, self references)
//! which must parse; the other half are the fuzzer's text, read as
//! `ros2msg`, as `ros2idl` and as a service event. Whatever parses decodes
//! the rest of the input in both byte orders and declares its value type.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use ros2cdr::MessageType;

const PRIMITIVES: [&str; 18] = [
    "bool",
    "byte",
    "char",
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "float32",
    "float64",
    "string",
    "wstring",
    "string<=5",
    "builtin_interfaces/Time",
    "builtin_interfaces/Duration",
];

#[derive(Arbitrary, Debug)]
enum Input {
    Built(Vec<Section>, Vec<u8>),
    Text(String, String, Vec<u8>),
}

#[derive(Arbitrary, Debug)]
struct Section {
    fields: Vec<(FieldType, Array, Option<i16>)>,
    constants: Vec<(u8, i16)>,
}

#[derive(Arbitrary, Debug)]
enum FieldType {
    Primitive(u8),
    /// Another section of this definition (by index; may be itself).
    Nested(u8),
}

#[derive(Arbitrary, Debug)]
enum Array {
    None,
    Fixed(u8),
    Bounded(u8),
    Unbounded,
}

/// Whether a field of type `ty` may carry the integer default `value`
/// (only integer scalars get one here).
fn takes_integer_default(ty: &str) -> bool {
    ty.starts_with("int") || ty.starts_with("uint")
}

/// Definition text: section 0 is `fuzz/msg/T0`, section i `fuzz/msg/Ti`
/// after a `MSG:` line.
fn text(sections: &[Section]) -> (String, bool) {
    let n = sections.len().max(1);
    let mut out = String::new();
    let mut nested_only_forward = true;
    for (i, s) in sections.iter().enumerate() {
        if i > 0 {
            out.push_str(&format!("{}\nMSG: fuzz/msg/T{i}\n", "=".repeat(80)));
        }
        for (k, (ty, array, default)) in s.fields.iter().enumerate() {
            let ty = match ty {
                FieldType::Primitive(p) => {
                    PRIMITIVES[usize::from(*p) % PRIMITIVES.len()].to_string()
                }
                FieldType::Nested(j) => {
                    let j = usize::from(*j) % n;
                    nested_only_forward &= j > i;
                    format!("fuzz/msg/T{j}")
                }
            };
            let suffix = match array {
                Array::None => String::new(),
                Array::Fixed(len) => format!("[{}]", len.max(&1)),
                Array::Bounded(len) => format!("[<={}]", len.max(&1)),
                Array::Unbounded => "[]".into(),
            };
            let default = match default {
                Some(v) if matches!(array, Array::None) && takes_integer_default(&ty) => {
                    let v = if ty.starts_with('u') {
                        v.unsigned_abs() as i32
                    } else {
                        i32::from(*v)
                    };
                    let v = if ty.ends_with('8') { v % 100 } else { v };
                    format!(" {v}")
                }
                _ => String::new(),
            };
            out.push_str(&format!("{ty}{suffix} f{k}{default}\n"));
        }
        for (k, (ty, value)) in s.constants.iter().enumerate() {
            let ty = ["int8", "int16", "int32", "float64"][usize::from(*ty) % 4];
            let value = if ty == "int8" { value % 100 } else { *value };
            out.push_str(&format!("{ty} C{k}={value}\n"));
        }
    }
    (out, nested_only_forward)
}

/// Decodes `data` as given and with its encapsulation header switched to
/// the other byte order, and declares the type.
fn decode(ty: &MessageType, data: &[u8]) {
    let declared = ty.value_type();
    let mut other = data.to_vec();
    if other.len() >= 4 {
        other[0] = 0;
        other[1] ^= 1;
    }
    for payload in [data, &other[..]] {
        // Every value decoded fits the type the definition declares.
        if let (Ok(value), Some(t)) = (ty.decode(payload, 0), &declared) {
            if let Err(m) = t.admits(&value) {
                panic!("{t:?} does not admit {value:?}: {m:?}");
            }
        }
    }
}

fuzz_target!(|input: Input| {
    match input {
        Input::Built(sections, data) => {
            let sections = &sections[..sections.len().min(70)];
            let (text, acyclic) = text(sections);
            let parsed = MessageType::parse("fuzz/msg/T0", &text);
            // Definitions without cycles, nested at most as deep as the
            // sections are many (below the nesting limit), must parse.
            if acyclic && sections.len() < ros2cdr::msg::MAX_NESTING {
                let ty = parsed.unwrap_or_else(|e| panic!("{text}\n{e}"));
                decode(&ty, &data);
            } else if let Ok(ty) = parsed {
                decode(&ty, &data);
            }
        }
        Input::Text(type_name, text, data) => {
            for ty in [
                MessageType::parse(&type_name, &text),
                MessageType::parse_idl(&type_name, &text),
                MessageType::parse(&format!("{type_name}_Event"), &text),
            ]
            .into_iter()
            .flatten()
            {
                decode(&ty, &data);
            }
        }
    }
});
