//! VEL sensor log reader and writer (crate root; modules are added as they land).

pub mod geometry;
