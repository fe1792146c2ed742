//! [`FieldName`]: the name of a struct field in a [`Value`](crate::Value),
//! cheap to clone.
//!
//! A decoder attaches the same names to every message of a type, so a
//! name is copied once per field per message. Names of up to
//! [`FieldName::INLINE`] (23) bytes (nearly every field name in ROS, ULog,
//! CARLA and OSI definitions) live inside the value itself: cloning or
//! dropping one touches no allocator. Longer names are shared behind an
//! [`Arc`].

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

use serde::{Serialize, Serializer};

/// The name of a struct field: a string that clones without allocating.
///
/// It dereferences to `str` and compares, hashes and orders like one, so
/// most code treats it as a `&str`:
///
/// ```
/// use logcore::FieldName;
/// let name = FieldName::from("angular_velocity");
/// assert_eq!(name, "angular_velocity");
/// assert_eq!(name.len(), 16);
/// let copy = name.clone(); // no allocation
/// assert_eq!(copy.as_str(), "angular_velocity");
/// assert_eq!(String::from(copy), "angular_velocity");
/// ```
#[derive(Clone)]
pub struct FieldName(Repr);

#[derive(Clone)]
enum Repr {
    Inline(Inline),
    Shared(Arc<str>),
}

/// An inline name: its bytes, then its length. The length's type leaves
/// the byte values above [`FieldName::INLINE`] free, so the compiler keeps
/// the enum's tag there and a name takes three words.
#[derive(Clone, Copy)]
#[repr(C, align(8))]
struct Inline {
    bytes: [u8; FieldName::INLINE],
    len: Len,
}

macro_rules! lengths {
    ($($v:ident = $n:literal),* $(,)?) => {
        /// A length from 0 to [`FieldName::INLINE`].
        #[derive(Clone, Copy)]
        #[repr(u8)]
        enum Len { $($v = $n),* }

        const LENS: [Len; FieldName::INLINE + 1] = [$(Len::$v),*];
    };
}

lengths!(
    L0 = 0,
    L1 = 1,
    L2 = 2,
    L3 = 3,
    L4 = 4,
    L5 = 5,
    L6 = 6,
    L7 = 7,
    L8 = 8,
    L9 = 9,
    L10 = 10,
    L11 = 11,
    L12 = 12,
    L13 = 13,
    L14 = 14,
    L15 = 15,
    L16 = 16,
    L17 = 17,
    L18 = 18,
    L19 = 19,
    L20 = 20,
    L21 = 21,
    L22 = 22,
    L23 = 23,
);

impl FieldName {
    /// The longest name, in bytes, stored without an allocation.
    pub const INLINE: usize = 23;

    /// Makes a name from text.
    pub fn new(name: &str) -> FieldName {
        if name.len() <= Self::INLINE {
            let mut bytes = [0u8; Self::INLINE];
            bytes[..name.len()].copy_from_slice(name.as_bytes());
            FieldName(Repr::Inline(Inline {
                bytes,
                len: LENS[name.len()],
            }))
        } else {
            FieldName(Repr::Shared(Arc::from(name)))
        }
    }

    /// Whether `self` and `other` are the same name, by their stored
    /// representation: a cheap test before overwriting a name.
    #[inline]
    pub fn is_same(&self, other: &FieldName) -> bool {
        match (&self.0, &other.0) {
            (Repr::Inline(a), Repr::Inline(b)) => a.len as u8 == b.len as u8 && a.bytes == b.bytes,
            (Repr::Shared(a), Repr::Shared(b)) => Arc::ptr_eq(a, b) || a == b,
            _ => false,
        }
    }

    /// The name's UTF-8 bytes, without checking them again: what
    /// comparisons use.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline(inline) => &inline.bytes[..inline.len as usize],
            Repr::Shared(s) => s.as_bytes(),
        }
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Inline(inline) => {
                // Only ever filled from a `&str` cut at its own length,
                // so this cannot fail; the fallback keeps it panic-free.
                let bytes = &inline.bytes[..inline.len as usize];
                std::str::from_utf8(bytes).unwrap_or_default()
            }
            Repr::Shared(s) => s,
        }
    }
}

impl Default for FieldName {
    fn default() -> Self {
        FieldName::new("")
    }
}

impl Deref for FieldName {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for FieldName {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for FieldName {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for FieldName {
    fn from(s: &str) -> Self {
        FieldName::new(s)
    }
}

impl From<&String> for FieldName {
    fn from(s: &String) -> Self {
        FieldName::new(s)
    }
}

impl From<String> for FieldName {
    fn from(s: String) -> Self {
        FieldName::new(&s)
    }
}

impl From<Arc<str>> for FieldName {
    fn from(s: Arc<str>) -> Self {
        if s.len() <= Self::INLINE {
            FieldName::new(&s)
        } else {
            FieldName(Repr::Shared(s))
        }
    }
}

impl From<FieldName> for String {
    fn from(n: FieldName) -> Self {
        n.as_str().to_string()
    }
}

// Comparisons compare the bytes: equal (and ordered) exactly as the
// texts are, without checking the UTF-8 of an inline name each time.
impl PartialEq for FieldName {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.is_same(other) || self.as_bytes() == other.as_bytes()
    }
}

impl Eq for FieldName {}

impl PartialEq<str> for FieldName {
    #[inline]
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for FieldName {
    #[inline]
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<String> for FieldName {
    fn eq(&self, other: &String) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<FieldName> for str {
    fn eq(&self, other: &FieldName) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<FieldName> for &str {
    fn eq(&self, other: &FieldName) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<FieldName> for String {
    fn eq(&self, other: &FieldName) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialOrd for FieldName {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for FieldName {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl Hash for FieldName {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for FieldName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for FieldName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl Serialize for FieldName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn short_and_long_names_behave_like_strings() {
        let long = "a_field_name_longer_than_twenty_two_bytes";
        for text in [
            "",
            "x",
            "exactly_23_bytes_long__",
            "exactly_24_bytes_long___",
            long,
        ] {
            let n = FieldName::from(text);
            assert_eq!(n.as_str(), text);
            assert_eq!(n.clone(), n);
            assert_eq!(n, text);
            assert_eq!(text, n);
            assert_eq!(format!("{n}"), text);
            assert_eq!(format!("{n:?}"), format!("{text:?}"));
            assert_eq!(FieldName::from(text.to_string()), n);
            assert_eq!(FieldName::from(Arc::<str>::from(text)), n);
        }
        assert!(matches!(
            FieldName::from("exactly_23_bytes_long__").0,
            Repr::Inline(i) if i.len as usize == 23
        ));
        assert!(matches!(
            FieldName::from("exactly_24_bytes_long___").0,
            Repr::Shared(_)
        ));
        // Multi-byte text is kept whole.
        assert_eq!(FieldName::from("größe_µs").as_str(), "größe_µs");
        assert_eq!(std::mem::size_of::<FieldName>(), 24);
        // `is_same` agrees with equality, inline or shared.
        let names = [
            "a",
            "b",
            "exactly_23_bytes_long__",
            long,
            "a_field_name_longer_than_twenty_two_byteS",
        ];
        for x in names {
            for y in names {
                let (a, b) = (FieldName::from(x), FieldName::from(y));
                assert_eq!(a.is_same(&b), x == y, "{x} {y}");
                assert!(a.is_same(&a.clone()));
            }
        }
    }

    #[test]
    fn orders_and_hashes_as_text() {
        let mut names: Vec<FieldName> = ["b", "a", "c_long_name_beyond_the_inline_size"]
            .into_iter()
            .map(FieldName::from)
            .collect();
        names.sort();
        assert_eq!(names, ["a", "b", "c_long_name_beyond_the_inline_size"]);
        let map: HashMap<FieldName, u32> = names.iter().cloned().zip(0..).collect();
        assert_eq!(map.get("b"), Some(&1));
    }
}
