//! The one escaping rule of everything `robolog` writes on stdout and
//! stderr: no text from a log (topic and type names, metadata, logged
//! messages, names inside error messages) may reach a terminal as a control
//! sequence that retitles or clears it, or writes the clipboard (OSC 52).
//!
//! Escaped are the C0 controls except newline and tab (`\x1b`, `\x07`,
//! `\x0d`...), DEL (`\x7f`), the C1 controls U+0080 to U+009F (`\u{9b}`)
//! and the bidirectional overrides and isolates U+202A to U+202E and
//! U+2066 to U+2069 (`\u{202e}`), which reorder what a line shows. A byte
//! that is not UTF-8 is shown as `\xHH`. Everything else, backslashes
//! included, passes unchanged, so output without such characters is byte
//! for byte what it was (the reports that must equal another tool's).
//!
//! JSON output ([`Mode::Json`]) stays valid JSON that reads back to the
//! original strings: serde_json already writes C0 controls as `\u001b`, and
//! the characters it leaves raw (DEL, C1, the overrides) become `\u009b`.
//!
//! The rule is applied where the text leaves the program: [`Escaping`]
//! wraps stdout (see `output::stdout`), and `say!` writes stderr lines,
//! so no command has to escape each name it prints. The program itself
//! draws nothing with escape sequences on these streams (the progress bar
//! draws on the terminal through indicatif, not through them).

use std::fmt;
use std::io::{self, Write};

/// How escaped characters are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Text for people: `\x1b`, `\u{9b}`.
    Text,
    /// JSON text: `\u001b`, `\u009b` (valid inside JSON strings, where
    /// alone such characters can be in serde_json's output).
    Json,
}

/// Whether `c` is shown escaped: C0 controls except newline and tab, DEL,
/// C1 controls, and the bidirectional overrides and isolates.
fn needs_escape(c: char) -> bool {
    matches!(c,
        '\0'..='\x08' | '\x0b'..='\x1f' | '\x7f'..='\u{9f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Writes `c` escaped in `mode`.
fn escape_char(out: &mut impl fmt::Write, c: char, mode: Mode) -> fmt::Result {
    let n = u32::from(c);
    match mode {
        Mode::Text if n < 0x80 => write!(out, "\\x{n:02x}"),
        Mode::Text => write!(out, "\\u{{{n:x}}}"),
        Mode::Json => write!(out, "\\u{n:04x}"),
    }
}

/// Writes `s` to `out` with every character [`needs_escape`] names
/// escaped in `mode`: the one escaping function of the program.
pub(crate) fn escape_into(out: &mut impl fmt::Write, s: &str, mode: Mode) -> fmt::Result {
    let mut plain = 0;
    for (i, c) in s.char_indices() {
        if needs_escape(c) {
            out.write_str(&s[plain..i])?;
            escape_char(out, c, mode)?;
            plain = i + c.len_utf8();
        }
    }
    out.write_str(&s[plain..])
}

/// Whether the byte `b` can be part of a character that [`needs_escape`]:
/// text before the first such byte passes unread.
fn may_start_escape(b: u8) -> bool {
    (b < 0x20 && b != b'\n' && b != b'\t') || b >= 0x7f
}

/// A writer that escapes what it passes to `W` by [`escape_into`]'s rule.
/// Bytes that are not UTF-8 are written as `\xHH` (in JSON mode, which
/// serde_json never produces, as U+FFFD). A character split across two
/// writes is held until the second.
pub(crate) struct Escaping<W: Write> {
    /// Where the escaped text goes.
    inner: W,
    /// How characters are escaped.
    mode: Mode,
    /// The start of a UTF-8 sequence the last write ended with.
    pending: Vec<u8>,
    /// Escaped text on its way to `inner`.
    scratch: String,
}

impl<W: Write> Escaping<W> {
    /// Escapes what is written in `mode`, then writes it to `inner`.
    pub(crate) fn new(inner: W, mode: Mode) -> Self {
        Escaping {
            inner,
            mode,
            pending: Vec::new(),
            scratch: String::new(),
        }
    }

    /// Writes valid UTF-8 `s`, escaped.
    fn write_str(&mut self, s: &str) -> io::Result<()> {
        // Most text has nothing to escape: passed through in one piece.
        let bytes = s.as_bytes();
        let Some(first) = bytes.iter().position(|&b| may_start_escape(b)) else {
            return self.inner.write_all(bytes);
        };
        if !s[first..].chars().any(needs_escape) {
            return self.inner.write_all(bytes);
        }
        self.scratch.clear();
        self.scratch.push_str(&s[..first]);
        escape_into(&mut self.scratch, &s[first..], self.mode).map_err(io::Error::other)?;
        self.inner.write_all(self.scratch.as_bytes())
    }

    /// Writes bytes that are not UTF-8, each escaped.
    fn write_invalid(&mut self, bytes: &[u8]) -> io::Result<()> {
        for b in bytes {
            match self.mode {
                Mode::Text => write!(self.inner, "\\x{b:02x}")?,
                Mode::Json => self.inner.write_all("\u{fffd}".as_bytes())?,
            }
        }
        Ok(())
    }

    /// Writes `buf`, escaped; an incomplete character at its end is kept
    /// for the next write when `more` may follow.
    fn write_bytes(&mut self, mut buf: &[u8], more: bool) -> io::Result<()> {
        loop {
            match std::str::from_utf8(buf) {
                Ok(s) => return self.write_str(s),
                Err(e) => {
                    let (good, bad) = buf.split_at(e.valid_up_to());
                    if let Ok(s) = std::str::from_utf8(good) {
                        self.write_str(s)?;
                    }
                    match e.error_len() {
                        None if more => {
                            self.pending.extend_from_slice(bad);
                            return Ok(());
                        }
                        None => return self.write_invalid(bad),
                        Some(n) => {
                            self.write_invalid(&bad[..n])?;
                            buf = &bad[n..];
                        }
                    }
                }
            }
        }
    }

    /// Writes a character held from the last write, complete or not.
    fn write_pending(&mut self) -> io::Result<()> {
        let pending = std::mem::take(&mut self.pending);
        self.write_bytes(&pending, false)
    }
}

impl<W: Write> Write for Escaping<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.pending.is_empty() {
            self.write_bytes(buf, true)?;
        } else {
            // At most 3 bytes are held: the rest of their character comes
            // first.
            let mut joined = std::mem::take(&mut self.pending);
            joined.extend_from_slice(buf);
            self.write_bytes(&joined, true)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.write_pending()?;
        self.inner.flush()
    }
}

impl<W: Write> Drop for Escaping<W> {
    fn drop(&mut self) {
        // As `BufWriter` does: errors at drop are lost.
        let _ = self.flush();
    }
}

/// Writes one line on stderr (the line, then a newline), escaped: every
/// stderr line of the program goes through here.
pub(crate) fn say_line(line: fmt::Arguments<'_>) {
    let mut text = String::new();
    // Formatting into a String fails only if a Display impl does.
    let _ = fmt::write(&mut text, line);
    let mut err = io::stderr().lock();
    let mut escaped = String::with_capacity(text.len() + 1);
    let _ = escape_into(&mut escaped, &text, Mode::Text);
    escaped.push('\n');
    // Nothing to do when stderr is gone.
    let _ = err.write_all(escaped.as_bytes());
}

/// `say!("...", args)`: [`say_line`] with `format!`'s arguments, in place of
/// `eprintln!`.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::shown::say_line(format_args!($($arg)*))
    };
}
pub(crate) use say;

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(s: &str) -> String {
        let mut out = String::new();
        escape_into(&mut out, s, Mode::Text).unwrap();
        out
    }

    fn through(mode: Mode, pieces: &[&[u8]]) -> String {
        let mut out = Vec::new();
        {
            let mut w = Escaping::new(&mut out, mode);
            for p in pieces {
                w.write_all(p).unwrap();
            }
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn controls_are_escaped_and_the_rest_is_unchanged() {
        let hostile = "a\x1b]0;pwned\x07b\u{9b}2J\x7f\u{202e}c\r\0";
        let text = r"a\x1b]0;pwned\x07b\u{9b}2J\x7f\u{202e}c\x0d\x00";
        assert_eq!(shown(hostile), text);
        assert_eq!(through(Mode::Text, &[hostile.as_bytes()]), text);
        let plain = "x\ty\nz \\ é 中 °\u{a0}\u{2028}";
        assert_eq!(shown(plain), plain);
        assert_eq!(through(Mode::Text, &[plain.as_bytes()]), plain);
    }

    #[test]
    fn json_mode_keeps_json_valid_and_round_trips() {
        let name = "t\x1b[2J\u{9b}\u{2066}\x7f\"";
        let json = serde_json::to_string(&serde_json::json!({ "topic": name })).unwrap();
        let written = through(Mode::Json, &[json.as_bytes()]);
        assert_eq!(written, r#"{"topic":"t\u001b[2J\u009b\u2066\u007f\""}"#);
        let back: serde_json::Value = serde_json::from_str(&written).unwrap();
        assert_eq!(back["topic"], name);
    }

    #[test]
    fn characters_split_across_writes_and_invalid_bytes() {
        // U+009B is C2 9B; U+00E9 is C3 A9.
        assert_eq!(through(Mode::Text, &[b"a\xc2", b"\x9bb"]), r"a\u{9b}b");
        assert_eq!(through(Mode::Text, &[b"\xe2\x80", b"\xaex"]), r"\u{202e}x");
        assert_eq!(through(Mode::Text, &[b"\xc3", b"\xa9"]), "é");
        assert_eq!(through(Mode::Text, &[b"a\x9bb\xff"]), r"a\x9bb\xff");
        assert_eq!(through(Mode::Text, &[b"end\xc2"]), r"end\xc2");
    }
}
