//! The type mapping of ROS 2 to ROS 1, as rosbags maps it, compiled into
//! a [`Compiled`] plan that [`super::transcode`] walks, with the ROS 1
//! definition text and md5sum of the connection.

use logcore::Value;
use ros2cdr::MessageType;
use ros2cdr::msg::{ArrayKind, FieldType, MsgDef, canonical_name};
use rosbag12::msg::{
    ArrayKind as A1, BaseType, Builtin as P1, ConstantDef as C1, FieldDef as F1, MsgDef as M1,
};

/// The field ROS 2 adds to a type without fields (its IDL form names it);
/// ROS 1 has neither the field nor its byte.
pub(super) const PLACEHOLDER: &str = "structure_needs_at_least_one_member";

/// The line of `=` between the sections of a full ROS 1 definition.
const SEPARATOR: &str =
    "================================================================================";

/// An element type on the CDR side.
#[derive(Debug, Clone, Copy)]
pub(super) enum Elem {
    /// A fixed-size builtin of this many bytes (its CDR alignment).
    Prim(usize),
    /// A string: u32 length counting a NUL, the bytes, the NUL.
    Str,
    /// A message type, by index in [`Compiled::types`].
    Msg(usize),
}

/// How many elements a field holds.
#[derive(Debug, Clone, Copy)]
pub(super) enum Count {
    /// One.
    One,
    /// Exactly this many, no count on either side.
    Fixed(u32),
    /// A u32 count, then the elements (`T[]` and `T[<=N]`).
    Seq,
}

/// One field of a ROS 2 type.
#[derive(Debug, Clone, Copy)]
pub(super) struct Field {
    pub elem: Elem,
    pub count: Count,
    /// Read and written to ROS 1 (false: read and dropped, the
    /// placeholder field of an empty type).
    pub kept: bool,
}

/// One ROS 2 type, ready to walk.
#[derive(Debug, Clone)]
pub(super) struct Type {
    pub fields: Vec<Field>,
    /// No fields: one placeholder byte in CDR, nothing in ROS 1.
    pub empty: bool,
    /// `std_msgs/Header`: ROS 1's `uint32 seq` (0) comes first.
    pub header: bool,
    /// The fewest CDR bytes a value takes (alignment aside), at least 1.
    pub min: u64,
}

/// A channel's type, compiled.
#[derive(Debug, Clone)]
pub(super) struct Compiled {
    /// The ROS 1 type name, `pkg/Type`.
    pub name: String,
    /// The full ROS 1 definition the connection header holds.
    pub text: String,
    /// Its md5sum, computed as ROS 1 computes it.
    pub md5sum: String,
    /// Every ROS 2 type of the definition, the top-level one first.
    pub types: Vec<Type>,
}

/// Whether the canonical name is one of the two types ROS 1 has as
/// builtins, and which ROS 1 name it takes.
fn builtin(name: &str) -> Option<&'static str> {
    match name {
        "builtin_interfaces/Time" => Some("time"),
        "builtin_interfaces/Duration" => Some("duration"),
        _ => None,
    }
}

/// Compiles the ROS 2 type `t` for re-encoding to ROS 1.
pub(super) fn compile(t: &MessageType) -> Result<Compiled, String> {
    let defs = t.defs();
    let index = |name: &str| {
        defs.iter()
            .position(|d| d.name == canonical_name(name))
            .ok_or_else(|| format!("the type {name} is not defined"))
    };
    let mut types = Vec::with_capacity(defs.len());
    for d in defs {
        let mut fields = Vec::with_capacity(d.fields.len());
        for f in &d.fields {
            let elem = match &f.ty {
                FieldType::Primitive(p) => Elem::Prim(p.size()),
                FieldType::String { .. } => Elem::Str,
                FieldType::WString { .. } => {
                    return Err(format!(
                        "field `{}` of {} is a wstring, which ROS 1 does not have",
                        f.name, d.name
                    ));
                }
                FieldType::Message(m) => Elem::Msg(index(m)?),
            };
            let count = match f.array {
                ArrayKind::Scalar => Count::One,
                ArrayKind::Fixed(n) => Count::Fixed(n),
                ArrayKind::Bounded(_) | ArrayKind::Unbounded => Count::Seq,
            };
            fields.push(Field {
                elem,
                count,
                kept: f.name != PLACEHOLDER,
            });
        }
        types.push(Type {
            empty: fields.is_empty(),
            header: d.name == "std_msgs/Header",
            fields,
            min: 0,
        });
    }
    // Fewest bytes: the parse refused cycles, so as many rounds as there
    // are types reach the fixed point.
    for _ in 0..=types.len() {
        for i in 0..types.len() {
            let min = types[i]
                .fields
                .iter()
                .map(|f| {
                    let one = match f.elem {
                        Elem::Prim(n) => n as u64,
                        Elem::Str => 4,
                        Elem::Msg(j) => types[j].min,
                    };
                    match f.count {
                        Count::One => one,
                        Count::Fixed(n) => one.saturating_mul(u64::from(n)),
                        Count::Seq => 4,
                    }
                })
                .fold(0u64, u64::saturating_add);
            types[i].min = min.max(1);
        }
    }
    let (text, ros1) = definition(defs)?;
    let sums = rosbag12::msg::md5sums_nested(&ros1, t.max_nesting())?;
    let name = ros1[0].name.clone();
    let md5sum = sums
        .get(&name)
        .cloned()
        .ok_or_else(|| format!("no md5sum for {name}"))?;
    Ok(Compiled {
        name,
        text,
        md5sum,
        types,
    })
}

/// The full ROS 1 definition of `defs[0]` as rosbags writes it (the type,
/// then a `MSG: pkg/Type` section after a line of `=` for each type it
/// uses, in the order they are first met, each once; `time` and
/// `duration` for the builtin_interfaces types, `std_msgs/Header` with
/// `uint32 seq` first), and the same types as rosbag12 definitions for
/// the md5sums.
fn definition(defs: &[MsgDef]) -> Result<(String, Vec<M1>), String> {
    let order = preorder(defs, 0)?;
    let mut text = String::new();
    let mut ros1 = Vec::with_capacity(order.len());
    for (n, &i) in order.iter().enumerate() {
        let (body, def) = section(&defs[i]);
        if n > 0 {
            text.push_str(&format!("{SEPARATOR}\nMSG: {}\n", def.name));
        }
        text.push_str(&body);
        ros1.push(def);
    }
    if text.is_empty() {
        // A type without fields nor constants (`std_msgs/Empty`): ROS 1
        // stores one newline (rosbags none, which ROS 1 readers that
        // require a definition refuse); the md5sum is the same.
        text.push('\n');
    }
    Ok((text, ros1))
}

/// The indexes of the types `defs[top]` uses (itself first), each once,
/// in the order a depth-first walk of the fields first meets them;
/// builtin_interfaces' two types are left out (ROS 1 builtins).
fn preorder(defs: &[MsgDef], top: usize) -> Result<Vec<usize>, String> {
    let mut out = vec![top];
    // Explicit stack of (type, next field) keeps hostile nesting off the
    // call stack.
    let mut stack = vec![(top, 0usize)];
    while let Some(&mut (i, ref mut next)) = stack.last_mut() {
        let Some(f) = defs[i].fields.get(*next) else {
            stack.pop();
            continue;
        };
        *next += 1;
        let FieldType::Message(m) = &f.ty else {
            continue;
        };
        let m = canonical_name(m);
        if builtin(&m).is_some() {
            continue;
        }
        let j = defs
            .iter()
            .position(|d| d.name == m)
            .ok_or_else(|| format!("the type {m} is not defined"))?;
        if !out.contains(&j) {
            out.push(j);
            stack.push((j, 0));
        }
    }
    Ok(out)
}

/// The type text of a field's element, and its rosbag12 base type.
fn element(ty: &FieldType) -> (String, BaseType) {
    match ty {
        FieldType::Primitive(p) => (p.name().to_string(), BaseType::Builtin(P1::from(*p))),
        FieldType::String { bound } | FieldType::WString { bound } => (
            bound.map_or("string".into(), |b| format!("string<={b}")),
            BaseType::Builtin(P1::String),
        ),
        FieldType::Message(m) => {
            let m = canonical_name(m);
            match builtin(&m) {
                Some("time") => ("time".into(), BaseType::Builtin(P1::Time)),
                Some(_) => ("duration".into(), BaseType::Builtin(P1::Duration)),
                None => (m.clone(), BaseType::Message(m)),
            }
        }
    }
}

/// One section of the ROS 1 definition (its text, each line ending in a
/// newline) and the same as a rosbag12 definition.
fn section(d: &MsgDef) -> (String, M1) {
    let mut def = M1 {
        name: d.name.clone(),
        constants: Vec::new(),
        fields: Vec::new(),
    };
    let mut lines = Vec::new();
    for c in &d.constants {
        let (ty, _) = element(&c.ty);
        let value = constant_text(&c.value);
        lines.push(format!("{ty} {}={value}", c.name));
        def.constants.push(C1 {
            type_name: ty,
            name: c.name.clone(),
            value,
        });
    }
    if d.name == "std_msgs/Header" {
        lines.push("uint32 seq".into());
        def.fields.push(F1 {
            name: "seq".into(),
            base: BaseType::Builtin(P1::UInt32),
            array: A1::Scalar,
            type_text: "uint32".into(),
        });
    }
    for f in &d.fields {
        if f.name == PLACEHOLDER {
            continue;
        }
        let (ty, base) = element(&f.ty);
        let (type_text, array) = match f.array {
            ArrayKind::Scalar => (ty, A1::Scalar),
            ArrayKind::Fixed(n) => (format!("{ty}[{n}]"), A1::Fixed(n)),
            ArrayKind::Bounded(n) => (format!("{ty}[<={n}]"), A1::Unbounded),
            ArrayKind::Unbounded => (format!("{ty}[]"), A1::Unbounded),
        };
        lines.push(format!("{type_text} {}", f.name));
        def.fields.push(F1 {
            name: f.name.clone(),
            base,
            array,
            type_text,
        });
    }
    let mut text = String::new();
    for l in lines {
        text.push_str(&l);
        text.push('\n');
    }
    (text, def)
}

/// A constant's value as rosbags writes it in a ROS 1 definition (its
/// Python form): `True`/`False`, integers in decimal, floats as Python's
/// `repr` (`1.125`, `100.0`, `1e-05`), strings as they are.
fn constant_text(v: &Value) -> String {
    match v {
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::I64(i) => i.to_string(),
        Value::U64(u) => u.to_string(),
        Value::F32(x) => py_float(&format!("{x:e}")),
        Value::F64(x) => py_float(&format!("{x:e}")),
        Value::String(s) => s.clone(),
        other => format!("{other:?}"),
    }
}

/// Python's `repr` of a float from the shortest digits Rust's `{:e}`
/// writes (`1.125e0`, `-1e-5`, `NaN`, `inf`): fixed notation with at
/// least one decimal for exponents from -4 to 15, else `d.ddde+XX`.
fn py_float(e: &str) -> String {
    match e {
        "NaN" => return "nan".into(),
        "inf" => return "inf".into(),
        "-inf" => return "-inf".into(),
        _ => {}
    }
    let Some((mantissa, exp)) = e.split_once('e') else {
        return e.to_string();
    };
    let Ok(exp) = exp.parse::<i32>() else {
        return e.to_string();
    };
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if (-4..16).contains(&exp) {
        let point = exp + 1;
        let (int, frac) = if point <= 0 {
            (
                "0".to_string(),
                format!("{}{digits}", "0".repeat((-point) as usize)),
            )
        } else if point as usize >= digits.len() {
            (
                format!("{digits}{}", "0".repeat(point as usize - digits.len())),
                String::new(),
            )
        } else {
            (
                digits[..point as usize].to_string(),
                digits[point as usize..].to_string(),
            )
        };
        let frac = if frac.is_empty() { "0".into() } else { frac };
        format!("{sign}{int}.{frac}")
    } else {
        let m = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits
        };
        let s = if exp < 0 { '-' } else { '+' };
        format!("{sign}{m}e{s}{:02}", exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compiled(name: &str) -> Compiled {
        let store = rosbag2::Definitions::bundled(rosbag2::Distro::Jazzy);
        let text = store.resolve(name).unwrap();
        compile(&MessageType::parse(name, &text).unwrap()).unwrap()
    }

    /// md5sums as ROS 1 computes them, as real bags' connection headers
    /// state them.
    #[test]
    fn md5sums_are_those_of_ros1() {
        for (ty, md5) in [
            ("std_msgs/msg/Header", "2176decaecbce78abc3b96ef049fabed"),
            ("sensor_msgs/msg/Imu", "6a62c6daae103f4ff57a132d6f95cec2"),
            ("std_msgs/msg/String", "992ce8a1687cec8c8bd883ec73ca41d1"),
            ("tf2_msgs/msg/TFMessage", "94810edda583a504dfda3829e70d7eec"),
            (
                "sensor_msgs/msg/LaserScan",
                "90c7ef2dc6895d81024acba2ac42f369",
            ),
        ] {
            let c = compiled(ty);
            assert_eq!(c.md5sum, md5, "{ty}:\n{}", c.text);
        }
    }

    #[test]
    fn definitions_are_written_in_ros1_form() {
        let c = compiled("sensor_msgs/msg/Imu");
        assert_eq!(c.name, "sensor_msgs/Imu");
        assert!(
            c.text.starts_with(
                "std_msgs/Header header\ngeometry_msgs/Quaternion orientation\n\
                 float64[9] orientation_covariance\n"
            ),
            "{}",
            c.text
        );
        assert!(c.text.contains(&format!(
            "{SEPARATOR}\nMSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id\n\
             {SEPARATOR}\nMSG: geometry_msgs/Quaternion\n"
        )));
        assert!(!c.text.contains("builtin_interfaces"), "{}", c.text);
        // The ROS 1 parser reads it back with the same md5sum.
        let back = rosbag12::MessageType::parse(&c.name, &c.text).unwrap();
        assert_eq!(back.md5sum, c.md5sum);
    }

    #[test]
    fn floats_as_python_writes_them() {
        for (x, want) in [
            (1.125f64, "1.125"),
            (100.0, "100.0"),
            (0.0001, "0.0001"),
            (1e-5, "1e-05"),
            (-2.5e20, "-2.5e+20"),
            (1e16, "1e+16"),
            (123456789012345.0, "123456789012345.0"),
            (0.1, "0.1"),
        ] {
            assert_eq!(py_float(&format!("{x:e}")), want);
        }
        assert_eq!(py_float(&format!("{:e}", 0.1f32)), "0.1");
    }
}
