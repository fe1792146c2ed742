//! The type mapping of ROS 1 to ROS 2, as rosbags maps it, compiled into a
//! [`Compiled`] plan that [`super::transcode`] walks: which ROS 1 field
//! feeds which ROS 2 field, which ROS 1 fields are skipped and which ROS 2
//! fields are written as their zero value.

use std::collections::HashMap;

use logcore::Limits;
use ros2cdr::msg::{ArrayKind as A2, FieldDef as F2, FieldType, MsgDef as M2, canonical_name};
use rosbag2::Definitions;
use rosbag2::interfaces::full_name;
use rosbag12::msg::{ArrayKind as A1, BaseType, Builtin as P1, FieldDef as F1, MsgDef as M1};

/// The ROS 2 name (`pkg/msg/Type`) of the ROS 1 type `name`: `pkg/Type`
/// gains `msg`, `tf/tfMessage` becomes `tf2_msgs/msg/TFMessage` (the one
/// rename rosbags always makes).
pub(super) fn ros2_name(name: &str) -> String {
    match name.trim() {
        "tf/tfMessage" | "tf/msg/tfMessage" => "tf2_msgs/msg/TFMessage".into(),
        n => full_name(n),
    }
}

/// A ROS 1 element type, as far as skipping it goes.
#[derive(Debug, Clone, Copy)]
pub(super) enum Elem1 {
    /// A fixed-size builtin of this many bytes (`time` and `duration` 8).
    Fixed(usize),
    /// `string`: u32 length, bytes.
    Str,
    /// A message type, by index in [`Compiled::defs1`].
    Msg(usize),
}

/// How many ROS 1 elements a field holds.
#[derive(Debug, Clone, Copy)]
pub(super) enum Count {
    /// One.
    One,
    /// A u32 count, then the elements.
    Var,
    /// Exactly this many.
    Fixed(u32),
}

/// A ROS 2 element type, as far as writing its zero value goes.
#[derive(Debug, Clone, Copy)]
pub(super) enum Elem2 {
    /// A fixed-size builtin of this many bytes (its CDR alignment).
    Prim(usize),
    /// `string` (a zero value is the empty string).
    Str,
    /// `wstring` (empty: a zero length).
    WStr,
    /// A message type, by index in [`Compiled::defs2`].
    Msg(usize),
}

/// How many ROS 2 elements a field holds.
#[derive(Debug, Clone, Copy)]
pub(super) enum Dst {
    /// One.
    One,
    /// A sequence: u32 count, then the elements, at most the bound.
    Seq(Option<u32>),
    /// Exactly this many, no count.
    Fixed(u32),
}

/// An element copied from ROS 1 to ROS 2.
#[derive(Debug, Clone, Copy)]
pub(super) enum Pair {
    /// A builtin of this many bytes in both (bits copied).
    Prim(usize),
    /// A string.
    Str,
    /// ROS 1 `time`/`duration` to `builtin_interfaces/Time`/`Duration`.
    Time,
    /// A message, by index in [`Compiled::plans`].
    Msg(usize),
}

/// One ROS 2 field, in ROS 2 order.
#[derive(Debug, Clone, Copy)]
pub(super) enum Op {
    /// Copied from ROS 1 field `field` of the plan's source type.
    From {
        field: usize,
        elem: Pair,
        src: Count,
        dst: Dst,
    },
    /// Written as its zero value.
    Zero { elem: Elem2, dst: Dst },
}

/// The transcoding of one ROS 1 type to one ROS 2 type.
#[derive(Debug, Clone)]
pub(super) struct Plan {
    /// The ROS 1 type, by index in [`Compiled::defs1`].
    pub src: usize,
    /// The ROS 2 type, by index in [`Compiled::defs2`].
    pub dst: usize,
    /// The ROS 2 fields in order.
    pub ops: Vec<Op>,
    /// Whether the ROS 1 fields are read in order (else their starts are
    /// found first).
    pub in_order: bool,
    /// The ROS 2 type has no fields: one zero octet is written.
    pub empty: bool,
}

/// A connection's type, compiled.
#[derive(Debug, Clone)]
pub(super) struct Compiled {
    /// The ROS 2 type name, `pkg/msg/Type`.
    pub name: String,
    /// The concatenated ROS 2 definition the schema holds.
    pub text: String,
    /// Every ROS 1 type: its fields, and the fewest bytes a value takes.
    pub defs1: Vec<(Vec<(Elem1, Count)>, u64)>,
    /// Every ROS 2 type's fields.
    pub defs2: Vec<Vec<(Elem2, Dst)>>,
    /// The plans, the top-level type's first.
    pub plans: Vec<Plan>,
    /// One line per type whose fields do not map one to one.
    pub warnings: Vec<String>,
}

/// The ROS 2 definition text of the ROS 1 type `d`: `time` and
/// `duration` as `builtin_interfaces/Time` and `Duration`, everything else
/// as written (constants too, when `constants`, but those whose names ROS
/// 2 refuses: upper-case letters, digits and inner underscores only, as
/// rosidl and Rerun require).
fn derive_text(d: &M1, constants: bool) -> String {
    let ros2_name = |n: &str| {
        n.starts_with(|c: char| c.is_ascii_uppercase())
            && !n.ends_with('_')
            && n.bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
    };
    let mut out = String::new();
    if constants {
        for c in d.constants.iter().filter(|c| ros2_name(&c.name)) {
            out.push_str(&format!("{} {}={}\n", c.type_name, c.name, c.value));
        }
    }
    for f in &d.fields {
        let ty = match &f.base {
            BaseType::Builtin(P1::Time) => "builtin_interfaces/Time".to_string(),
            BaseType::Builtin(P1::Duration) => "builtin_interfaces/Duration".to_string(),
            BaseType::Builtin(p) => p.name().to_string(),
            BaseType::Message(m) => m.clone(),
        };
        let suffix = match f.array {
            A1::Scalar => String::new(),
            A1::Unbounded | A1::Bounded(_) => "[]".into(),
            A1::Fixed(n) => format!("[{n}]"),
        };
        out.push_str(&format!("{ty}{suffix} {}\n", f.name));
    }
    out
}

/// The ROS 2 definition of the ROS 1 type `defs1[0]`: the bundled one of
/// the type when `store` has it, else derived, with each type it uses
/// bundled or derived the same way; parsed within `limits`.
fn ros2_type(
    defs1: &[M1],
    store: &Definitions,
    limits: &Limits,
) -> Result<(String, String, ros2cdr::MessageType), String> {
    let top = ros2_name(&defs1[0].name);
    let attempt = |constants: bool| {
        let mut d = store.clone();
        for (i, m) in defs1.iter().enumerate() {
            let name = if i == 0 {
                top.clone()
            } else {
                full_name(&m.name)
            };
            if store.get(&name).is_none() {
                d.add(&name, &derive_text(m, constants));
            }
        }
        let text = d
            .resolve(&top)
            .ok_or_else(|| format!("no definition of {top}"))?;
        ros2cdr::MessageType::parse_with_limits(&top, &text, limits)
            .map(|t| (text, t))
            .map_err(|e| e.to_string())
    };
    // Constants of ROS 1 definitions may be written in ways the ROS 2
    // grammar refuses; they are not on the wire, so leave them out then.
    let (text, t) = attempt(true).or_else(|_| attempt(false))?;
    Ok((top, text, t))
}

/// The rosbags field description key of a ROS 1 field (what a renamed
/// field must match).
fn key1(f: &F1) -> String {
    let ty = match &f.base {
        BaseType::Builtin(P1::Time) => "builtin_interfaces/Time".to_string(),
        BaseType::Builtin(P1::Duration) => "builtin_interfaces/Duration".to_string(),
        BaseType::Builtin(p) => p.name().to_string(),
        BaseType::Message(m) => canonical_name(m),
    };
    match f.array {
        A1::Scalar => ty,
        A1::Unbounded | A1::Bounded(_) => format!("{ty}[]"),
        A1::Fixed(n) => format!("{ty}[{n}]"),
    }
}

/// The key of a ROS 2 field, comparable with [`key1`].
fn key2(f: &F2) -> String {
    let ty = match &f.ty {
        FieldType::Primitive(p) => p.name().to_string(),
        FieldType::String { bound: None } => "string".into(),
        FieldType::String { bound: Some(b) } => format!("string<={b}"),
        FieldType::WString { bound: None } => "wstring".into(),
        FieldType::WString { bound: Some(b) } => format!("wstring<={b}"),
        FieldType::Message(m) => canonical_name(m),
    };
    match f.array {
        A2::Scalar => ty,
        A2::Unbounded => format!("{ty}[]"),
        A2::Bounded(n) => format!("{ty}[<={n}]"),
        A2::Fixed(n) => format!("{ty}[{n}]"),
    }
}

/// Compiles the transcoding of the ROS 1 type `ros1` (its definition
/// parsed) to its ROS 2 counterpart from `store` or derived.
pub(super) fn compile(
    ros1: &rosbag12::MessageType,
    store: &Definitions,
    limits: &Limits,
) -> Result<Compiled, String> {
    let defs1 = &ros1.defs;
    if defs1.is_empty() {
        return Err("an empty definition".into());
    }
    let (name, text, ros2) = ros2_type(defs1, store, limits)?;
    let defs2 = ros2.defs();
    let idx1: HashMap<&str, usize> = defs1
        .iter()
        .enumerate()
        .map(|(i, d)| (d.name.as_str(), i))
        .collect();
    let idx2: HashMap<&str, usize> = defs2
        .iter()
        .enumerate()
        .map(|(i, d)| (d.name.as_str(), i))
        .collect();
    let msg1 = |n: &str| {
        idx1.get(n)
            .copied()
            .ok_or_else(|| format!("ROS 1 type {n} is not defined"))
    };
    let msg2 = |n: &str| {
        idx2.get(canonical_name(n).as_str())
            .copied()
            .ok_or_else(|| format!("ROS 2 type {n} is not defined"))
    };
    let mut c = Compiled {
        name,
        text,
        defs1: Vec::new(),
        defs2: Vec::new(),
        plans: Vec::new(),
        warnings: Vec::new(),
    };
    for d in defs1 {
        let mut fields = Vec::new();
        for f in &d.fields {
            let elem = match &f.base {
                BaseType::Builtin(P1::String) => Elem1::Str,
                BaseType::Builtin(p) => Elem1::Fixed(p.wire_size().unwrap_or(0)),
                BaseType::Message(m) => Elem1::Msg(msg1(m)?),
            };
            fields.push((elem, count1(f.array)));
        }
        c.defs1.push((fields, 0));
    }
    // The fewest bytes of each type, from those of the types it uses: the
    // sections may come in any order, but the types nest no deeper than
    // there are types (the parse refuses cycles), so as many rounds reach
    // the fixed point.
    for _ in 0..=defs1.len() {
        for i in 0..c.defs1.len() {
            let min: u64 = c.defs1[i]
                .0
                .iter()
                .map(|&(e, n)| match n {
                    Count::Var => 4,
                    Count::One => min1(&c, e),
                    Count::Fixed(k) => u64::from(k).saturating_mul(min1(&c, e)),
                })
                .fold(0u64, u64::saturating_add);
            c.defs1[i].1 = min;
        }
    }
    for d in defs2 {
        let mut fields = Vec::new();
        for f in &d.fields {
            let elem = match &f.ty {
                FieldType::Primitive(p) => Elem2::Prim(p.size()),
                FieldType::String { .. } => Elem2::Str,
                FieldType::WString { .. } => Elem2::WStr,
                FieldType::Message(m) => Elem2::Msg(msg2(m)?),
            };
            fields.push((elem, dst2(f.array)));
        }
        c.defs2.push(fields);
    }
    let mut memo = HashMap::new();
    plan(&mut c, defs1, defs2, 0, 0, &mut memo, &msg2)?;
    Ok(c)
}

fn min1(c: &Compiled, e: Elem1) -> u64 {
    match e {
        Elem1::Fixed(n) => n as u64,
        Elem1::Str => 4,
        Elem1::Msg(i) => c.defs1[i].1,
    }
}

fn count1(a: A1) -> Count {
    match a {
        A1::Scalar => Count::One,
        A1::Unbounded | A1::Bounded(_) => Count::Var,
        A1::Fixed(n) => Count::Fixed(n),
    }
}

fn dst2(a: A2) -> Dst {
    match a {
        A2::Scalar => Dst::One,
        A2::Unbounded => Dst::Seq(None),
        A2::Bounded(n) => Dst::Seq(Some(n)),
        A2::Fixed(n) => Dst::Fixed(n),
    }
}

/// The plan of ROS 1 type `i1` to ROS 2 type `i2`, compiled once: fields
/// matched by name, then (rosbags' rename detection) each ROS 2 field left
/// to the first ROS 1 field left with the same type; the rest dropped or
/// zero.
fn plan(
    c: &mut Compiled,
    defs1: &[M1],
    defs2: &[M2],
    i1: usize,
    i2: usize,
    memo: &mut HashMap<(usize, usize), usize>,
    msg2: &dyn Fn(&str) -> Result<usize, String>,
) -> Result<usize, String> {
    if let Some(&p) = memo.get(&(i1, i2)) {
        return Ok(p);
    }
    let (d1, d2) = (&defs1[i1], &defs2[i2]);
    let mut source: Vec<Option<usize>> = d2
        .fields
        .iter()
        .map(|f| d1.fields.iter().position(|g| g.name == f.name))
        .collect();
    let mut removed: Vec<usize> = (0..d1.fields.len())
        .filter(|&k| !d2.fields.iter().any(|f| f.name == d1.fields[k].name))
        .collect();
    let mut renamed = Vec::new();
    for (j, f) in d2.fields.iter().enumerate() {
        if source[j].is_some() {
            continue;
        }
        if let Some(r) = removed.iter().position(|&k| key1(&d1.fields[k]) == key2(f)) {
            let k = removed.remove(r);
            source[j] = Some(k);
            renamed.push(format!("{} as {}", d1.fields[k].name, f.name));
        }
    }
    let id = c.plans.len();
    memo.insert((i1, i2), id);
    c.plans.push(Plan {
        src: i1,
        dst: i2,
        ops: Vec::new(),
        in_order: true,
        empty: d2.fields.is_empty(),
    });
    let mut ops = Vec::new();
    let mut zeroed = Vec::new();
    for (j, f2) in d2.fields.iter().enumerate() {
        let zero = Op::Zero {
            elem: c.defs2[i2][j].0,
            dst: c.defs2[i2][j].1,
        };
        let Some(k) = source[j] else {
            zeroed.push(f2.name.clone());
            ops.push(zero);
            continue;
        };
        let f1 = &d1.fields[k];
        let src = count1(f1.array);
        let dst = dst2(f2.array);
        let arrays = (src, dst);
        let shape_ok = matches!(arrays, (Count::One, Dst::One))
            || !matches!(src, Count::One) && !matches!(dst, Dst::One);
        let elem = match (&f1.base, &f2.ty) {
            _ if !shape_ok => None,
            (BaseType::Builtin(P1::String), FieldType::String { .. }) => Some(Pair::Str),
            (BaseType::Builtin(P1::Time | P1::Duration), FieldType::Message(m))
                if matches!(
                    canonical_name(m).as_str(),
                    "builtin_interfaces/Time" | "builtin_interfaces/Duration"
                ) =>
            {
                Some(Pair::Time)
            }
            (BaseType::Builtin(P1::String | P1::Time | P1::Duration), _) => None,
            (BaseType::Builtin(p), FieldType::Primitive(q)) if p.wire_size() == Some(q.size()) => {
                Some(Pair::Prim(q.size()))
            }
            (BaseType::Message(m1), FieldType::Message(m2)) => {
                let j1 = defs1
                    .iter()
                    .position(|d| &d.name == m1)
                    .ok_or_else(|| format!("ROS 1 type {m1} is not defined"))?;
                let j2 = msg2(m2)?;
                Some(Pair::Msg(plan(c, defs1, defs2, j1, j2, memo, msg2)?))
            }
            _ => None,
        };
        match elem {
            Some(elem) => ops.push(Op::From {
                field: k,
                elem,
                src,
                dst,
            }),
            None => {
                zeroed.push(format!("{} (as {})", f2.name, key2(f2)));
                removed.push(k);
                ops.push(zero);
            }
        }
    }
    removed.sort_unstable();
    let mut last = None;
    let mut in_order = true;
    for op in &ops {
        if let Op::From { field, .. } = op {
            in_order &= last.is_none_or(|l| *field > l);
            last = Some(*field);
        }
    }
    c.plans[id].ops = ops;
    c.plans[id].in_order = in_order;
    // The Header's seq is dropped by the mapping itself (of
    // `std_msgs/Header`, and of `roslib/Header` in early bags).
    let header = d1.name.ends_with("/Header") && d2.name == "std_msgs/Header";
    let dropped: Vec<&str> = removed
        .iter()
        .map(|&k| d1.fields[k].name.as_str())
        .filter(|n| !(header && *n == "seq"))
        .collect();
    if !dropped.is_empty() || !zeroed.is_empty() || !renamed.is_empty() {
        let mut line = format!("{} to {}:", d1.name, ros2_name(&d2.name));
        if !dropped.is_empty() {
            line.push_str(&format!(" ROS 1 fields dropped: {};", dropped.join(", ")));
        }
        if !renamed.is_empty() {
            line.push_str(&format!(" renamed: {};", renamed.join(", ")));
        }
        if !zeroed.is_empty() {
            line.push_str(&format!(" ROS 2 fields zero: {};", zeroed.join(", ")));
        }
        line.pop();
        c.warnings.push(line);
    }
    Ok(id)
}
