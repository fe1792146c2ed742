//! The columns of a table: the merged shape of every value of a channel,
//! flattened with pyulog's names (`a.b` for a struct field, `a[0]` for an
//! array element).

use logcore::{FieldName, Value, ValueType};

use super::{Cell, Column, ColumnKind, TableSink};

/// What the values at one place of a channel's messages looked like, over
/// all messages seen.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Shape {
    /// Nothing seen yet (the elements of arrays that were always empty).
    Unknown,
    /// A scalar of this kind (widened over the messages: an `I64` seen
    /// beside a `U64` makes `Int`, an integer beside a float `F64`).
    Leaf(ColumnKind),
    /// A time or duration: one column of integer nanoseconds (a ROS
    /// `header.stamp`), as every other time of the export.
    Time,
    /// Named fields in order of first appearance.
    Struct {
        fields: Vec<(FieldName, Shape)>,
        width: usize,
    },
    /// An array as long as the longest seen, all elements of one shape.
    Array {
        len: usize,
        elem: Box<Shape>,
        width: usize,
    },
    /// One cell holding the value's JSON: an array longer than the limit,
    /// or values of different kinds at the same place.
    Json,
}

impl Shape {
    /// Widens the shape so that `v` fits it. An array longer than `cap`
    /// elements becomes [`Shape::Json`].
    pub(crate) fn merge(&mut self, v: &Value, cap: usize) {
        match v {
            Value::Null => {
                if *self == Shape::Unknown {
                    *self = Shape::Leaf(ColumnKind::Null);
                }
            }
            Value::Bool(_) => self.merge_leaf(ColumnKind::Bool),
            Value::I64(_) => self.merge_leaf(ColumnKind::Int),
            Value::U64(_) => self.merge_leaf(ColumnKind::UInt),
            Value::F32(_) => self.merge_leaf(ColumnKind::F32),
            Value::F64(_) => self.merge_leaf(ColumnKind::F64),
            Value::String(_) => self.merge_leaf(ColumnKind::String),
            Value::Time(_) | Value::Duration(_) => match self {
                Shape::Unknown | Shape::Leaf(ColumnKind::Null) => *self = Shape::Time,
                Shape::Time | Shape::Json => {}
                _ => *self = Shape::Json,
            },
            Value::Bytes(b) => self.merge_array(b.len(), cap, |e| e.merge_leaf(ColumnKind::UInt)),
            Value::F32Array(a) => self.merge_array(a.len(), cap, |e| e.merge_leaf(ColumnKind::F32)),
            Value::F64Array(a) => self.merge_array(a.len(), cap, |e| e.merge_leaf(ColumnKind::F64)),
            Value::Array(items) => self.merge_array(items.len(), cap, |e| {
                for x in items {
                    e.merge(x, cap);
                }
            }),
            Value::Struct(vf) => {
                if matches!(self, Shape::Unknown | Shape::Leaf(ColumnKind::Null)) {
                    *self = Shape::Struct {
                        fields: Vec::new(),
                        width: 0,
                    };
                }
                let Shape::Struct { fields, .. } = self else {
                    *self = Shape::Json;
                    return;
                };
                for (i, (name, fv)) in vf.iter().enumerate() {
                    let slot = match find_field(fields, name, i) {
                        Some(s) => s,
                        None => {
                            fields.push((name.clone(), Shape::Unknown));
                            fields.len() - 1
                        }
                    };
                    fields[slot].1.merge(fv, cap);
                }
            }
        }
    }

    /// The shape a declared value type gives before any value is seen:
    /// its struct fields in declared order, its scalars' kinds, fixed
    /// arrays at their length (one JSON cell when longer than `cap`), and
    /// arrays of any length empty until [`merge`](Shape::merge) sees
    /// their elements. Values merged into it widen it as they would an
    /// empty shape.
    pub(crate) fn declared(t: &ValueType, cap: usize) -> Shape {
        let array = |len: usize, elem: &ValueType| {
            if len > cap {
                Shape::Json
            } else {
                Shape::Array {
                    len,
                    elem: Box::new(Shape::declared(elem, cap)),
                    width: 0,
                }
            }
        };
        match t {
            ValueType::Bool => Shape::Leaf(ColumnKind::Bool),
            ValueType::I8 | ValueType::I16 | ValueType::I32 | ValueType::I64 => {
                Shape::Leaf(ColumnKind::Int)
            }
            ValueType::U8 | ValueType::U16 | ValueType::U32 | ValueType::U64 => {
                Shape::Leaf(ColumnKind::UInt)
            }
            ValueType::F32 => Shape::Leaf(ColumnKind::F32),
            ValueType::F64 => Shape::Leaf(ColumnKind::F64),
            ValueType::String => Shape::Leaf(ColumnKind::String),
            ValueType::Time | ValueType::Duration => Shape::Time,
            ValueType::Bytes => array(0, &ValueType::U8),
            ValueType::FixedArray(elem, len) => array(*len, elem),
            ValueType::List(elem) => array(0, elem),
            ValueType::Struct(fields) => Shape::Struct {
                fields: fields
                    .iter()
                    .map(|f| (f.name.clone(), Shape::declared(&f.ty, cap)))
                    .collect(),
                width: 0,
            },
            ValueType::Any => Shape::Unknown,
        }
    }

    /// The shape of the raw payloads of a channel whose messages do not
    /// decode: byte arrays of at most `len` bytes.
    pub(crate) fn bytes(len: usize, cap: usize) -> Shape {
        let mut s = Shape::Unknown;
        s.merge_array(len, cap, |e| e.merge_leaf(ColumnKind::UInt));
        s
    }

    fn merge_leaf(&mut self, kind: ColumnKind) {
        *self = match std::mem::replace(self, Shape::Unknown) {
            Shape::Unknown => Shape::Leaf(kind),
            Shape::Leaf(k) => widen(k, kind).map_or(Shape::Json, Shape::Leaf),
            _ => Shape::Json,
        };
    }

    fn merge_array(&mut self, n: usize, cap: usize, elems: impl FnOnce(&mut Shape)) {
        if matches!(self, Shape::Unknown | Shape::Leaf(ColumnKind::Null)) {
            *self = Shape::Array {
                len: 0,
                elem: Box::new(Shape::Unknown),
                width: 0,
            };
        }
        let Shape::Array { len, elem, .. } = self else {
            *self = Shape::Json;
            return;
        };
        *len = (*len).max(n);
        if *len > cap {
            *self = Shape::Json;
        } else if n > 0 {
            elems(elem);
        }
    }

    /// Computes the number of columns of every part; call once after the
    /// last [`merge`](Shape::merge), before [`columns`](Shape::columns) and
    /// [`flatten`](Shape::flatten).
    pub(crate) fn finish(&mut self) -> usize {
        match self {
            Shape::Unknown => 0,
            Shape::Leaf(_) | Shape::Json => 1,
            Shape::Time => 1,
            Shape::Struct { fields, width } => {
                *width = fields.iter_mut().map(|(_, s)| s.finish()).sum();
                *width
            }
            Shape::Array { len, elem, width } => {
                *width = *len * elem.finish();
                *width
            }
        }
    }

    /// The columns of a message's value: a struct's fields by their own
    /// names, any other value under the name `data`.
    pub(crate) fn root_columns(&self, out: &mut Vec<Column>) {
        let prefix = if matches!(self, Shape::Struct { .. }) {
            ""
        } else {
            "data"
        };
        self.columns(prefix, out);
    }

    fn columns(&self, prefix: &str, out: &mut Vec<Column>) {
        let col = |name: String, kind| Column { name, kind };
        match self {
            Shape::Unknown => {}
            Shape::Leaf(k) => out.push(col(prefix.to_string(), *k)),
            Shape::Json => out.push(col(prefix.to_string(), ColumnKind::Json)),
            Shape::Time => out.push(col(prefix.to_string(), ColumnKind::Int)),
            Shape::Struct { fields, .. } => {
                for (name, s) in fields {
                    let p = if prefix.is_empty() {
                        name.to_string()
                    } else {
                        format!("{prefix}.{name}")
                    };
                    s.columns(&p, out);
                }
            }
            Shape::Array { len, elem, .. } => {
                for i in 0..*len {
                    elem.columns(&format!("{prefix}[{i}]"), out);
                }
            }
        }
    }

    fn width(&self) -> usize {
        match self {
            Shape::Unknown => 0,
            Shape::Leaf(_) | Shape::Json => 1,
            Shape::Time => 1,
            Shape::Struct { width, .. } | Shape::Array { width, .. } => *width,
        }
    }

    /// Gives `sink` one cell per column of this shape from `v` (empty cells
    /// where `v` lacks a part: a shorter array, an absent field, a null).
    pub(crate) fn flatten(&self, v: &Value, sink: &mut dyn TableSink) {
        match self {
            Shape::Unknown => {}
            Shape::Leaf(_) => sink.cell(scalar(v)),
            Shape::Json => sink.cell(match v {
                Value::Null => Cell::Empty,
                v => Cell::Json(v),
            }),
            Shape::Time => match v {
                Value::Time(t) => sink.cell(Cell::I64(t.as_nanos())),
                Value::Duration(d) => sink.cell(Cell::I64(*d)),
                _ => sink.cell(Cell::Empty),
            },
            Shape::Struct { fields, width } => match v {
                Value::Struct(vf) => {
                    for (i, (name, s)) in fields.iter().enumerate() {
                        match find_field(vf, name, i) {
                            Some(k) => s.flatten(&vf[k].1, sink),
                            None => empty(s.width(), sink),
                        }
                    }
                }
                _ => empty(*width, sink),
            },
            Shape::Array { len, elem, .. } => {
                let ew = elem.width();
                let n = match v {
                    Value::Array(items) => {
                        for x in items.iter().take(*len) {
                            elem.flatten(x, sink);
                        }
                        items.len()
                    }
                    Value::Bytes(b) => {
                        for &x in b.iter().take(*len) {
                            elem.flatten_scalar(Cell::U64(u64::from(x)), sink);
                        }
                        b.len()
                    }
                    Value::F32Array(a) => {
                        for &x in a.iter().take(*len) {
                            elem.flatten_scalar(Cell::F32(x), sink);
                        }
                        a.len()
                    }
                    Value::F64Array(a) => {
                        for &x in a.iter().take(*len) {
                            elem.flatten_scalar(Cell::F64(x), sink);
                        }
                        a.len()
                    }
                    _ => 0,
                };
                empty(len.saturating_sub(n) * ew, sink);
            }
        }
    }

    /// An element of a typed array (bytes, floats): one cell where the
    /// element shape has one column.
    fn flatten_scalar(&self, c: Cell<'_>, sink: &mut dyn TableSink) {
        match self {
            Shape::Leaf(_) | Shape::Json => sink.cell(c),
            other => empty(other.width(), sink),
        }
    }
}

/// The common kind of two scalar kinds, `None` when they have none: only
/// nulls beside a kind is the kind, otherwise
/// [`ValueType::widen_scalar`]'s rule.
fn widen(a: ColumnKind, b: ColumnKind) -> Option<ColumnKind> {
    use ColumnKind as K;
    let ty = |k: ColumnKind| match k {
        K::Bool => Some(ValueType::Bool),
        K::Int => Some(ValueType::I64),
        K::UInt => Some(ValueType::U64),
        K::F32 => Some(ValueType::F32),
        K::F64 => Some(ValueType::F64),
        K::String => Some(ValueType::String),
        K::Time(_) | K::Null | K::Json => None,
    };
    match (a, b) {
        (a, b) if a == b => Some(a),
        (K::Null, k) | (k, K::Null) => Some(k),
        _ => match ty(a)?.widen_scalar(&ty(b)?)? {
            ValueType::Bool => Some(K::Bool),
            ValueType::I64 => Some(K::Int),
            ValueType::U64 => Some(K::UInt),
            ValueType::F32 => Some(K::F32),
            ValueType::F64 => Some(K::F64),
            ValueType::String => Some(K::String),
            _ => None,
        },
    }
}

/// The index of field `name` in `fields`, looked for first at `hint` (where
/// it is when every message has the same fields in the same order).
fn find_field<T>(fields: &[(FieldName, T)], name: &FieldName, hint: usize) -> Option<usize> {
    match fields.get(hint) {
        Some((n, _)) if n == name => Some(hint),
        _ => fields.iter().position(|(n, _)| n == name),
    }
}

/// The cell of a scalar value (anything else, which a merged shape never
/// puts in a scalar column, as JSON).
fn scalar(v: &Value) -> Cell<'_> {
    match v {
        Value::Null => Cell::Empty,
        Value::Bool(b) => Cell::Bool(*b),
        Value::I64(x) => Cell::I64(*x),
        Value::U64(x) => Cell::U64(*x),
        Value::F32(x) => Cell::F32(*x),
        Value::F64(x) => Cell::F64(*x),
        Value::String(s) => Cell::Str(s),
        other => Cell::Json(other),
    }
}

fn empty(n: usize, sink: &mut dyn TableSink) {
    for _ in 0..n {
        sink.cell(Cell::Empty);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(s: &Shape) -> Vec<String> {
        let mut v = Vec::new();
        s.root_columns(&mut v);
        v.into_iter().map(|c| c.name).collect()
    }

    #[test]
    fn variable_arrays_get_the_columns_of_the_longest() {
        let mut s = Shape::Unknown;
        let msg = |n: usize| {
            Value::record([
                ("id", Value::U64(1)),
                (
                    "pts",
                    Value::Array(
                        (0..n)
                            .map(|i| Value::record([("x", Value::F64(i as f64))]))
                            .collect(),
                    ),
                ),
                ("t", Value::Time(logcore::Timestamp(1_500_000_000))),
            ])
        };
        s.merge(&msg(1), 8);
        s.merge(&msg(3), 8);
        s.merge(&msg(0), 8);
        assert_eq!(s.finish(), 5);
        assert_eq!(names(&s), ["id", "pts[0].x", "pts[1].x", "pts[2].x", "t"]);
    }

    #[test]
    fn long_arrays_and_mixed_kinds_become_one_json_cell() {
        let mut s = Shape::Unknown;
        s.merge(&Value::record([("b", Value::Bytes(vec![1, 2, 3]))]), 2);
        s.merge(&Value::record([("m", Value::I64(-1))]), 2);
        s.merge(&Value::record([("m", Value::U64(7))]), 2);
        s.merge(&Value::record([("m", Value::F32(0.5))]), 2);
        s.merge(&Value::record([("k", Value::Bool(true))]), 2);
        s.merge(&Value::record([("k", Value::String("x".into()))]), 2);
        s.finish();
        let mut cols = Vec::new();
        s.root_columns(&mut cols);
        let got: Vec<(&str, ColumnKind)> = cols.iter().map(|c| (&*c.name, c.kind)).collect();
        assert_eq!(
            got,
            [
                ("b", ColumnKind::Json),
                ("m", ColumnKind::F64),
                ("k", ColumnKind::Json)
            ]
        );
    }

    #[test]
    fn a_value_that_is_no_struct_is_named_data() {
        let mut s = Shape::bytes(2, 8);
        s.finish();
        assert_eq!(names(&s), ["data[0]", "data[1]"]);
    }
}
