//! The ROS message definition parser and the decoder it drives. Half the
//! inputs are definitions built from parts (primitive and nested types,
//! fixed and variable arrays, constants, `MSG:` sections, self references)
//! which must parse; the other half are the fuzzer's text. Whatever parses
//! decodes the rest of the input, with a fresh value and reusing one.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use logcore::Value;
use rosbag12::MessageType;
use rosbag12::msg::{md5sums, parse_definition};

const PRIMITIVES: [&str; 17] = [
    "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32",
    "float64", "string", "time", "duration", "byte", "char", "Header",
];

#[derive(Arbitrary, Debug)]
enum Input {
    Built(Vec<Section>, Vec<u8>),
    Text(String, String, Vec<u8>),
}

#[derive(Arbitrary, Debug)]
struct Section {
    fields: Vec<(FieldType, Array)>,
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
    Variable,
}

/// Definition text: section 0 is `fuzz/T0`, section i `fuzz/Ti` after a
/// `MSG:` line. The `Header` sections are added when used.
fn text(sections: &[Section]) -> (String, bool) {
    let n = sections.len().max(1);
    let mut out = String::new();
    let mut header = false;
    let mut nested_only_forward = true;
    for (i, s) in sections.iter().enumerate() {
        if i > 0 {
            out.push_str(&format!("{}\nMSG: fuzz/T{i}\n", "=".repeat(80)));
        }
        for (k, (ty, array)) in s.fields.iter().enumerate() {
            let ty = match ty {
                FieldType::Primitive(p) => {
                    let p = PRIMITIVES[usize::from(*p) % PRIMITIVES.len()];
                    header |= p == "Header";
                    p.to_string()
                }
                FieldType::Nested(j) => {
                    let j = usize::from(*j) % n;
                    nested_only_forward &= j > i;
                    format!("fuzz/T{j}")
                }
            };
            let suffix = match array {
                Array::None => String::new(),
                Array::Fixed(len) => format!("[{len}]"),
                Array::Variable => "[]".into(),
            };
            out.push_str(&format!("{ty}{suffix} f{k}\n"));
        }
        for (k, (ty, value)) in s.constants.iter().enumerate() {
            let ty = ["int8", "int16", "int32", "float64"][usize::from(*ty) % 4];
            let value = if ty == "int8" { value % 128 } else { *value };
            out.push_str(&format!("{ty} C{k}={value}\n"));
        }
    }
    if header {
        out.push_str(&format!(
            "{}\nMSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n",
            "=".repeat(80)
        ));
    }
    (out, nested_only_forward)
}

fn decode(ty: &MessageType, data: &[u8]) {
    let _ = ty.min_size();
    let _ = ty.decode(data, 0);
    let mut reused = Value::Null;
    for part in [data, data.get(data.len() / 2..).unwrap_or_default(), data] {
        let _ = ty.decode_into(part, 0, &mut reused);
    }
}

fuzz_target!(|input: Input| {
    match input {
        Input::Built(sections, data) => {
            let sections = &sections[..sections.len().min(70)];
            let (text, acyclic) = text(sections);
            let parsed = MessageType::parse("fuzz/T0", &text);
            // Definitions without cycles and nested at most as deep as the
            // sections are many (below the nesting limit) must parse.
            if acyclic && sections.len() < rosbag12::msg::MAX_NESTING {
                let ty = parsed.unwrap_or_else(|e| panic!("{text}\n{e}"));
                decode(&ty, &data);
            } else if let Ok(ty) = parsed {
                decode(&ty, &data);
            }
        }
        Input::Text(type_name, text, data) => {
            if let Ok(defs) = parse_definition(&type_name, &text) {
                let _ = md5sums(&defs);
            }
            if let Ok(ty) = MessageType::parse(&type_name, &text) {
                decode(&ty, &data);
            }
        }
    }
});
