//! The [`ValueType`] a resolved definition declares: one rule for both
//! dialects, which differ only in what a primitive decodes to
//! ([`Primitive::value_type`]).

use logcore::{Field, FieldName, ValueType};

use crate::{ArrayKind, Dialect, Primitive};

/// The most fields (counting those of nested types, as often as they are
/// nested) a declared type may have. Definitions nest only so deep, but a
/// type used by several fields is spelled out once per field, so a
/// hostile definition of a few lines could otherwise expand to billions of
/// fields; real ones stay in the thousands.
pub const MAX_TYPE_FIELDS: u64 = 1 << 20;

/// The element type of a field of a resolved definition, message types as
/// indexes into the definition's list of types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Element {
    /// A fixed-size builtin.
    Primitive(Primitive),
    /// `string`, `string<=N`, `wstring` or `wstring<=N`.
    String,
    /// ROS 1's `time`.
    Time,
    /// ROS 1's `duration`.
    Duration,
    /// The message type at this index of the list.
    Message(usize),
}

/// A definition after resolution: a list of types, the first the
/// top-level one, whose fields name other types by their index.
pub trait ResolvedTypes {
    /// How many types the list holds.
    fn type_count(&self) -> usize;
    /// How many fields type `ty` has (0 for an index out of the list).
    fn field_count(&self, ty: usize) -> usize;
    /// Field `i` of type `ty`: its name, element type and array kind.
    fn field(&self, ty: usize, i: usize) -> Option<(&FieldName, Element, ArrayKind)>;
}

/// One type of a resolved definition as a codec compiled it: its fields
/// in wire order, each a name, the codec's own element kind and an array
/// form. A list of them (`[T]`) is [`ResolvedTypes`].
pub trait CompiledType {
    /// The codec's element kind of a field (which may tell apart what
    /// the value type does not, such as `string` and `wstring`).
    type Kind: Copy;
    /// The fields in wire order.
    fn fields(&self) -> &[(FieldName, Self::Kind, ArrayKind)];
    /// The element type of a field of kind `kind`.
    fn element(kind: Self::Kind) -> Element;
}

impl<T: CompiledType> ResolvedTypes for [T] {
    fn type_count(&self) -> usize {
        self.len()
    }

    fn field_count(&self, ty: usize) -> usize {
        self.get(ty).map_or(0, |t| t.fields().len())
    }

    fn field(&self, ty: usize, i: usize) -> Option<(&FieldName, Element, ArrayKind)> {
        let (name, kind, array) = self.get(ty)?.fields().get(i)?;
        Some((name, T::element(*kind), *array))
    }
}

/// The type of every value a decoder returns for the top-level type of
/// `types`: a [`ValueType::Struct`] of the fields in order, nested messages
/// as structs, strings as [`ValueType::String`], `time`/`duration` as
/// [`ValueType::Time`]/[`ValueType::Duration`], `T[N]` as
/// [`ValueType::FixedArray`], sequences (`T[]`, `T[<=N]`) of a primitive
/// that decodes to `uint8` (in `dialect`) as [`ValueType::Bytes`] and other
/// sequences as [`ValueType::List`].
///
/// `None` when types nest deeper than `max_nesting` levels (the top-level
/// type is one), when a field names a type outside the list, or when the
/// type spelled out has more than [`MAX_TYPE_FIELDS`] fields.
pub fn value_type(
    types: &(impl ResolvedTypes + ?Sized),
    dialect: Dialect,
    max_nesting: usize,
) -> Option<ValueType> {
    let n = types.type_count();
    let mut counts: Vec<Option<u64>> = vec![None; n];
    if field_count(types, 0, 1, max_nesting, &mut counts)? > MAX_TYPE_FIELDS {
        return None;
    }
    let mut memo: Vec<Option<ValueType>> = vec![None; n];
    struct_type(types, dialect, 0, 1, max_nesting, &mut memo)
}

/// Fields of type `ty` spelled out, memoized.
fn field_count(
    types: &(impl ResolvedTypes + ?Sized),
    ty: usize,
    depth: usize,
    max_nesting: usize,
    memo: &mut [Option<u64>],
) -> Option<u64> {
    if let Some(n) = memo.get(ty).copied().flatten() {
        return Some(n);
    }
    if depth > max_nesting {
        return None;
    }
    let mut n = 0u64;
    for i in 0..types.field_count(ty) {
        let (_, elem, _) = types.field(ty, i)?;
        n = n.saturating_add(1);
        if let Element::Message(j) = elem {
            n = n.saturating_add(field_count(types, j, depth + 1, max_nesting, memo)?);
        }
    }
    *memo.get_mut(ty)? = Some(n);
    Some(n)
}

fn struct_type(
    types: &(impl ResolvedTypes + ?Sized),
    dialect: Dialect,
    ty: usize,
    depth: usize,
    max_nesting: usize,
    memo: &mut [Option<ValueType>],
) -> Option<ValueType> {
    if let Some(t) = memo.get(ty).cloned().flatten() {
        return Some(t);
    }
    if depth > max_nesting {
        return None;
    }
    let mut fields = Vec::with_capacity(types.field_count(ty));
    for i in 0..types.field_count(ty) {
        let (name, elem, array) = types.field(ty, i)?;
        let t = match elem {
            Element::Primitive(p) => p.value_type(dialect),
            Element::String => ValueType::String,
            Element::Time => ValueType::Time,
            Element::Duration => ValueType::Duration,
            Element::Message(j) => struct_type(types, dialect, j, depth + 1, max_nesting, memo)?,
        };
        let octets =
            matches!(elem, Element::Primitive(p) if p.value_type(dialect) == ValueType::U8);
        let t = match array {
            ArrayKind::Scalar => t,
            ArrayKind::Fixed(n) => ValueType::fixed(t, n as usize),
            ArrayKind::Bounded(_) | ArrayKind::Unbounded if octets => ValueType::Bytes,
            ArrayKind::Bounded(_) | ArrayKind::Unbounded => ValueType::list(t),
        };
        fields.push(Field::new(name.clone(), t));
    }
    let t = ValueType::Struct(fields);
    *memo.get_mut(ty)? = Some(t.clone());
    Some(t)
}

#[cfg(test)]
mod tests {
    use logcore::ValueType as T;

    use super::*;

    struct Table(Vec<Vec<(FieldName, Element, ArrayKind)>>);

    impl ResolvedTypes for Table {
        fn type_count(&self) -> usize {
            self.0.len()
        }
        fn field_count(&self, ty: usize) -> usize {
            self.0.get(ty).map_or(0, Vec::len)
        }
        fn field(&self, ty: usize, i: usize) -> Option<(&FieldName, Element, ArrayKind)> {
            let (n, e, a) = self.0.get(ty)?.get(i)?;
            Some((n, *e, *a))
        }
    }

    fn f(name: &str, e: Element, a: ArrayKind) -> (FieldName, Element, ArrayKind) {
        (FieldName::from(name), e, a)
    }

    #[test]
    fn byte_sequences_follow_the_dialect() {
        use Element::Primitive as P;
        let t = Table(vec![
            vec![
                f("b", P(Primitive::Byte), ArrayKind::Unbounded),
                f("c", P(Primitive::Char), ArrayKind::Bounded(2)),
                f("u", P(Primitive::UInt8), ArrayKind::Fixed(3)),
                f("m", Element::Message(1), ArrayKind::Scalar),
            ],
            vec![f("t", Element::Time, ArrayKind::Scalar)],
        ]);
        let inner = T::record([("t", T::Time)]);
        assert_eq!(
            value_type(&t, Dialect::Ros1, 64),
            Some(T::record([
                ("b", T::list(T::I8)),
                ("c", T::Bytes),
                ("u", T::fixed(T::U8, 3)),
                ("m", inner.clone()),
            ]))
        );
        assert_eq!(
            value_type(&t, Dialect::Ros2, 64),
            Some(T::record([
                ("b", T::Bytes),
                ("c", T::Bytes),
                ("u", T::fixed(T::U8, 3)),
                ("m", inner),
            ]))
        );
        // Two levels, one allowed; a type outside the list.
        assert_eq!(value_type(&t, Dialect::Ros1, 1), None);
        let bad = Table(vec![vec![f("x", Element::Message(7), ArrayKind::Scalar)]]);
        assert_eq!(value_type(&bad, Dialect::Ros2, 64), None);
    }
}
