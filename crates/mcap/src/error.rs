//! The MCAP layer's error type: [`logcore::ParseError`], shared with the
//! other format crates.
//!
//! Every parse error names the absolute byte offset in the file (for records
//! inside a compressed chunk: the chunk's offset, with the position in the
//! decompressed records in the message) and what the format requires there.
//!
//! ```
//! let e = mcapfile::Error::malformed(8, "Header record (opcode 0x01)", "opcode 0x05");
//! assert_eq!(e.to_string(), "at byte 8: expected Header record (opcode 0x01), found opcode 0x05");
//! let core: logcore::Error = e.into();
//! assert_eq!(core.offset(), Some(8));
//! ```

pub use logcore::ParseError as Error;

/// Result of the MCAP layer.
pub type Result<T, E = Error> = std::result::Result<T, E>;
