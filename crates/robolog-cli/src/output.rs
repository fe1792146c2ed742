//! Writing to stdout.

use std::io::{BufWriter, StdoutLock, Write};

/// Buffered stdout.
pub(crate) type Out = BufWriter<StdoutLock<'static>>;

/// Locked, buffered stdout.
pub(crate) fn stdout() -> Out {
    BufWriter::with_capacity(1 << 16, std::io::stdout().lock())
}

/// Writes `line` and a newline.
pub(crate) fn line(out: &mut Out, line: &str) -> std::io::Result<()> {
    out.write_all(line.as_bytes())?;
    out.write_all(b"\n")
}
