//! Names that become file or folder names: bounded in bytes, and the same
//! on every machine and in every version.
//!
//! File systems refuse a name over 255 bytes. A topic, a message name or a
//! log's own file name can be longer than that, and the exports put them
//! into file names (`NAME_topic_0.csv`, `table/log=NAME/`): [`shorten`]
//! cuts such a name to [`MAX_NAME_BYTES`] and tells two long names with the
//! same start apart by a hash of the whole name ([`stable_hash`]).

/// The most bytes of a name before it is shortened; the suffixes the
/// exports add after it (`_2`, `_0.csv`, a hash) stay within 255.
pub const MAX_NAME_BYTES: usize = 200;

/// `name` itself when it has at most [`MAX_NAME_BYTES`] bytes; otherwise cut
/// at a character boundary, then `~` and 8 hex digits of the hash of
/// `whole` (what it is the name of), so that two long names that share
/// their start stay apart.
///
/// ```
/// use logcore::filename::{MAX_NAME_BYTES, shorten};
/// assert_eq!(shorten("imu", "/imu"), "imu");
/// let long = "a".repeat(300);
/// let short = shorten(&long, &long);
/// assert_eq!(short.len(), MAX_NAME_BYTES);
/// assert_ne!(short, shorten(&long[1..], &long[1..]));
/// // Never inside a character.
/// assert!(shorten(&"é".repeat(150), "x").starts_with("éé"));
/// ```
pub fn shorten(name: &str, whole: &str) -> String {
    if name.len() <= MAX_NAME_BYTES {
        return name.to_string();
    }
    let mut cut = MAX_NAME_BYTES - 9;
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(
        "{}~{:08x}",
        &name[..cut],
        stable_hash(whole.as_bytes()) >> 32
    )
}

/// FNV-1a over `bytes`, 64 bits: a hash that is the same on every machine
/// and in every version, for names that must not change between runs.
///
/// ```
/// assert_eq!(logcore::filename::stable_hash(b""), 0xcbf2_9ce4_8422_2325);
/// assert_eq!(logcore::filename::stable_hash(b"a"), 0xaf63_dc4c_8601_ec8c);
/// ```
pub fn stable_hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
