//! The JSON Schemas of the sample channels, from the ULog format
//! definitions (`F` messages).

use ulogfile::format::{BasicType, FieldType, Layout};

use crate::convert::jsonschema::{Field, Type};

/// The JSON type of a ULog format.
pub(crate) fn layout_type(layout: &Layout) -> Type {
    Type::object(layout.fields.iter().filter(|f| !f.is_padding()).map(|f| {
        let elem = match &f.ty {
            FieldType::Basic(b) => basic_type(*b),
            FieldType::Nested(l) => layout_type(l),
        };
        let ty = match (&f.ty, f.array_len) {
            (FieldType::Basic(BasicType::Char), Some(_)) => Type::Str,
            (_, Some(n)) => Type::fixed(elem, n),
            (_, None) => elem,
        };
        Field::new(f.name.to_string(), ty)
    }))
}

/// The JSON type of a ULog basic type.
fn basic_type(b: BasicType) -> Type {
    match b {
        BasicType::Int8 | BasicType::Int16 | BasicType::Int32 | BasicType::Int64 => Type::Int,
        BasicType::UInt8
        | BasicType::UInt16
        | BasicType::UInt32
        | BasicType::UInt64
        | BasicType::Char => Type::UInt,
        BasicType::Float | BasicType::Double => Type::Float,
        BasicType::Bool => Type::Bool,
    }
}
