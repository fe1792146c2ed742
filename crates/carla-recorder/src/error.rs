//! The crate's error type: [`logcore::Error`], shared with the other
//! format crates.
//!
//! Every parse error names the absolute byte offset in the file and what the
//! format requires there, so a user can open a hex viewer at that offset.
//!
//! ```
//! let e = carla_recorder::Error::malformed(34, "packet id", "0xff");
//! assert_eq!(e.to_string(), "at byte 34: expected packet id, found 0xff");
//! let core: logcore::Error = e.into();
//! assert_eq!(core.offset(), Some(34));
//! ```

pub use logcore::Error;

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
