//! Writing to stdout: always through [`Escaping`], so that nothing a log
//! holds reaches the terminal as a control sequence (see [`crate::shown`]).

use std::io::{BufWriter, StdoutLock, Write};

use crate::shown::{Escaping, Mode};

/// Buffered, escaping stdout.
pub(crate) type Out = Escaping<BufWriter<StdoutLock<'static>>>;

/// Locked, buffered stdout for text: control characters escaped as `\x1b`.
pub(crate) fn stdout() -> Out {
    stdout_as(Mode::Text)
}

/// Locked, buffered stdout escaping in `mode`: [`Mode::Json`] for JSON
/// documents, whose control characters serde_json leaves raw become
/// `\u009b` so that they stay valid JSON.
pub(crate) fn stdout_as(mode: Mode) -> Out {
    Escaping::new(
        BufWriter::with_capacity(1 << 16, std::io::stdout().lock()),
        mode,
    )
}

/// Unlocked escaping stdout (for a writer that must be `Send`).
#[cfg_attr(not(feature = "sql"), allow(dead_code))]
pub(crate) fn stdout_unlocked(mode: Mode) -> Escaping<BufWriter<std::io::Stdout>> {
    Escaping::new(BufWriter::with_capacity(1 << 16, std::io::stdout()), mode)
}

/// Writes `line` and a newline.
pub(crate) fn line(out: &mut impl Write, line: &str) -> std::io::Result<()> {
    out.write_all(line.as_bytes())?;
    out.write_all(b"\n")
}

/// Prints one line on stdout (the line, then a newline), escaped, in
/// place of `println!`; an error writing it is left to the next write or
/// the exit, as stderr's lines are.
pub(crate) fn print_line(line: std::fmt::Arguments<'_>) {
    let mut out = stdout();
    let _ = out.write_fmt(line).and_then(|()| out.write_all(b"\n"));
    let _ = out.flush();
}

/// Prints the line of a file written: `VERB PATH (N rows, M columns)`,
/// then `tail`.
pub(crate) fn print_written(
    verb: &str,
    path: &std::path::Path,
    rows: u64,
    columns: usize,
    tail: &str,
) {
    print_line(format_args!(
        "{verb} {} ({rows} row{}, {columns} columns){tail}",
        path.display(),
        if rows == 1 { "" } else { "s" },
    ));
}
