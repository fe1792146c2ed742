//! Types inferred from values, for channels whose format declares none (a
//! JSON channel without a schema): the narrowest [`ValueType`] that admits
//! every value seen.

use logcore::{Field, Value, ValueType};

/// What has been inferred so far at one place of the values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Seen {
    /// Nothing, or only nulls.
    Nothing,
    /// A type (never `Any` with nested detail lost: `Any` is final).
    Is(ValueType),
}

/// Infers a type from `values`: fields in order of first appearance (a
/// field some value lacks, or that was null, is nullable), integers of
/// one sign `I64`/`U64` (both signs `I64`, integers beside floats `F64`:
/// [`ValueType::widen_scalar`], the rule of the CSV export too),
/// arrays `List` of their elements' merged type (`Bytes` for byte
/// strings), and `Any` where values disagree in kind.
pub(crate) fn infer<'v>(values: impl IntoIterator<Item = &'v Value>) -> Option<ValueType> {
    infer_raw(values).map(finish)
}

/// An empty array's type while its elements are unknown; becomes a list
/// of the elements of the first non-empty array it is merged with.
fn empty_array() -> ValueType {
    ValueType::fixed(ValueType::Any, 0)
}

/// Replaces the [`empty_array`] markers left (arrays that were always
/// empty) by lists of `Any`.
fn finish(t: ValueType) -> ValueType {
    match t {
        ValueType::FixedArray(e, 0) if *e == ValueType::Any => ValueType::list(ValueType::Any),
        ValueType::List(e) => ValueType::list(finish(*e)),
        ValueType::Struct(fs) => ValueType::Struct(
            fs.into_iter()
                .map(|f| Field {
                    ty: finish(f.ty),
                    ..f
                })
                .collect(),
        ),
        t => t,
    }
}

fn infer_raw<'v>(values: impl IntoIterator<Item = &'v Value>) -> Option<ValueType> {
    let mut seen = Seen::Nothing;
    let mut nullable = false;
    for v in values {
        merge(&mut seen, &mut nullable, v);
    }
    match seen {
        Seen::Nothing => None,
        Seen::Is(t) => Some(t),
    }
}

fn of(v: &Value) -> Option<ValueType> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(_) => ValueType::Bool,
        Value::I64(_) => ValueType::I64,
        Value::U64(_) => ValueType::U64,
        Value::F32(_) => ValueType::F32,
        Value::F64(_) => ValueType::F64,
        Value::String(_) => ValueType::String,
        Value::Bytes(_) => ValueType::Bytes,
        Value::Time(_) => ValueType::Time,
        Value::Duration(_) => ValueType::Duration,
        Value::F32Array(_) => ValueType::list(ValueType::F32),
        Value::F64Array(_) => ValueType::list(ValueType::F64),
        Value::Array(items) if items.is_empty() => empty_array(),
        Value::Array(items) => ValueType::list(infer_raw(items.iter()).unwrap_or(ValueType::Any)),
        Value::Struct(fields) => ValueType::Struct(
            fields
                .iter()
                .map(|(n, fv)| match of(fv) {
                    Some(t) => Field::new(n.clone(), t),
                    None => Field::nullable(n.clone(), ValueType::Any),
                })
                .collect(),
        ),
    })
}

fn merge(seen: &mut Seen, nullable: &mut bool, v: &Value) {
    let Some(t) = of(v) else {
        *nullable = true;
        return;
    };
    match seen {
        Seen::Nothing => *seen = Seen::Is(t),
        Seen::Is(old) => {
            let merged = unify(old, &t);
            *old = merged;
        }
    }
}

/// The narrowest type admitting values of both `a` and `b`.
pub(crate) fn unify(a: &ValueType, b: &ValueType) -> ValueType {
    use ValueType as T;
    match (a, b) {
        _ if a == b => a.clone(),
        (T::Any, _) | (_, T::Any) => T::Any,
        (T::List(x), T::List(y)) => T::list(unify(x, y)),
        (T::FixedArray(e, 0), T::List(_)) if **e == T::Any => b.clone(),
        (T::List(_), T::FixedArray(e, 0)) if **e == T::Any => a.clone(),
        (T::Struct(fa), T::Struct(fb)) => {
            let mut out: Vec<Field> = Vec::with_capacity(fa.len().max(fb.len()));
            for f in fa {
                match fb.iter().find(|g| g.name == f.name) {
                    Some(g) => out.push(unify_field(f, g)),
                    None => out.push(Field::nullable(f.name.clone(), f.ty.clone())),
                }
            }
            for g in fb {
                if !fa.iter().any(|f| f.name == g.name) {
                    out.push(Field::nullable(g.name.clone(), g.ty.clone()));
                }
            }
            T::Struct(out)
        }
        _ => a.widen_scalar(b).unwrap_or(T::Any),
    }
}

fn unify_field(f: &Field, g: &Field) -> Field {
    // A field first seen as null has type `Any` only as a placeholder.
    let null_only = |x: &Field| x.nullable && x.ty == ValueType::Any;
    let ty = if null_only(f) {
        g.ty.clone()
    } else if null_only(g) {
        f.ty.clone()
    } else {
        unify(&f.ty, &g.ty)
    };
    Field {
        name: f.name.clone(),
        ty,
        nullable: f.nullable || g.nullable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(s: &str) -> Value {
        json_value(&serde_json::from_str(s).unwrap())
    }

    fn json_value(v: &serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => n
                .as_u64()
                .map(Value::U64)
                .or_else(|| n.as_i64().map(Value::I64))
                .unwrap_or_else(|| Value::F64(n.as_f64().unwrap_or(f64::NAN))),
            serde_json::Value::String(s) => Value::String(s.clone()),
            serde_json::Value::Array(a) => Value::Array(a.iter().map(json_value).collect()),
            serde_json::Value::Object(o) => {
                Value::record(o.iter().map(|(k, v)| (k.as_str(), json_value(v))))
            }
        }
    }

    #[test]
    fn fields_merge_widen_and_become_nullable() {
        let vals = [
            j(r#"{"v": 3, "unit": "m/s", "tags": [1, 2]}"#),
            j(r#"{"v": -2.5, "extra": null, "tags": []}"#),
            j(r#"{"v": 7, "extra": true, "unit": "km/h", "tags": [3]}"#),
        ];
        let t = infer(vals.iter()).unwrap();
        assert_eq!(
            t,
            ValueType::Struct(vec![
                Field::new("v", ValueType::F64),
                Field::nullable("unit", ValueType::String),
                Field::new("tags", ValueType::list(ValueType::U64)),
                Field::nullable("extra", ValueType::Bool),
            ])
        );
    }

    #[test]
    fn disagreeing_kinds_are_any() {
        let vals = [j(r#"{"x": 1}"#), j(r#"{"x": "one"}"#)];
        let t = infer(vals.iter()).unwrap();
        assert_eq!(t, ValueType::record([("x", ValueType::Any)]));
        assert_eq!(infer([Value::Null].iter()), None);
    }
}
