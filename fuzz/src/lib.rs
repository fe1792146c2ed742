//! What the fuzz targets share: one function per format that reads bytes
//! every way the format's crate offers (the byte-level targets call it on
//! the fuzzer's bytes, the structure-aware ones on a file written by our
//! writers and then damaged), and the damage itself ([`Mutation`]).
//!
//! Every reader function must return normally for any input: a panic, an
//! endless loop or a huge allocation is a finding.

use arbitrary::Arbitrary;

pub mod read;

/// One change to a written file, at a position taken modulo its length,
/// so that the fuzzer steers the damage without knowing the file's size.
#[derive(Arbitrary, Debug, Clone)]
pub enum Mutation {
    /// Flips bit `bit % 8` of one byte.
    Flip {
        /// Position (modulo the length).
        at: u32,
        /// Bit number (modulo 8).
        bit: u8,
    },
    /// Overwrites one byte.
    Set {
        /// Position (modulo the length).
        at: u32,
        /// The new byte.
        byte: u8,
    },
    /// Overwrites four bytes with a little-endian number (lengths, counts,
    /// offsets are mostly 32 or 64 bits wide).
    SetU32 {
        /// Position (modulo the length).
        at: u32,
        /// The new value.
        value: u32,
    },
    /// Overwrites eight bytes with a little-endian number.
    SetU64 {
        /// Position (modulo the length).
        at: u32,
        /// The new value.
        value: u64,
    },
    /// Cuts the file (length modulo the length plus one).
    Truncate {
        /// The new length (modulo the length plus one).
        len: u32,
    },
    /// Removes up to 255 bytes.
    Delete {
        /// Position (modulo the length).
        at: u32,
        /// How many bytes.
        len: u8,
    },
    /// Inserts bytes.
    Insert {
        /// Position (modulo the length plus one).
        at: u32,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// Copies up to 64 KiB of the file over another place of it (records
    /// repeated or misplaced).
    Copy {
        /// Source position (modulo the length).
        from: u32,
        /// Destination position (modulo the length).
        to: u32,
        /// How many bytes (clipped to the file).
        len: u16,
    },
}

/// Applies `mutations` in order to `data`.
pub fn mutate(data: &mut Vec<u8>, mutations: &[Mutation]) {
    for m in mutations {
        let n = data.len();
        let at = |p: u32| p as usize % n.max(1);
        match m {
            Mutation::Flip { at: p, bit } if n > 0 => data[at(*p)] ^= 1 << (bit % 8),
            Mutation::Set { at: p, byte } if n > 0 => data[at(*p)] = *byte,
            Mutation::SetU32 { at: p, value } => put(data, at(*p), &value.to_le_bytes()),
            Mutation::SetU64 { at: p, value } => put(data, at(*p), &value.to_le_bytes()),
            Mutation::Truncate { len } => data.truncate(*len as usize % (n + 1)),
            Mutation::Delete { at: p, len } if n > 0 => {
                let start = at(*p);
                let end = (start + usize::from(*len)).min(n);
                data.drain(start..end);
            }
            Mutation::Insert { at: p, bytes } => {
                let p = *p as usize % (n + 1);
                data.splice(p..p, bytes.iter().copied());
            }
            Mutation::Copy { from, to, len } if n > 0 => {
                let from = at(*from);
                let end = (from + usize::from(*len)).min(n);
                let piece = data[from..end].to_vec();
                put(data, at(*to), &piece);
            }
            _ => {}
        }
    }
}

/// Overwrites bytes from `at`, as many as fit.
fn put(data: &mut [u8], at: usize, bytes: &[u8]) {
    let end = (at + bytes.len()).min(data.len());
    if at < end {
        data[at..end].copy_from_slice(&bytes[..end - at]);
    }
}
