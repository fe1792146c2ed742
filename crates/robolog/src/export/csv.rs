//! CSV tables (the [`Csv`] format).

use std::io::{self, Write};

use super::{Cell, Column, ColumnKind, TableFormat, TableSink, TimeUnit};

/// CSV tables: a header row of column names, then one row per message.
///
/// Cells: integers in decimal; floats in their shortest form that reads
/// back to the same number, exactly as `robolog cat --json` prints them
/// (`0.25`, `1e300`), non-finite ones as `NaN`, `Infinity`, `-Infinity`;
/// booleans as `true`/`false`; times as exact decimals in their column's
/// unit (`1600000000.100000000` seconds); strings as they are; a
/// [`Json`](super::ColumnKind::Json) column holds the value's JSON as
/// `cat --json` prints it; an absent value is an empty cell. A cell with a
/// comma, a double quote, a carriage return or a line feed is put in
/// double quotes, with its double quotes doubled (RFC 4180). Rows end with
/// `\n`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Csv;

impl TableFormat for Csv {
    fn extension(&self) -> &'static str {
        "csv"
    }

    fn create<'w>(
        &self,
        out: &'w mut dyn Write,
        columns: &[Column],
    ) -> io::Result<Box<dyn TableSink + 'w>> {
        let mut buf = Vec::with_capacity(1 << 16);
        for (i, c) in columns.iter().enumerate() {
            if i > 0 {
                buf.push(b',');
            }
            push_text(&mut buf, &c.name);
        }
        buf.push(b'\n');
        out.write_all(&buf)?;
        buf.clear();
        Ok(Box::new(CsvSink {
            out,
            buf,
            kinds: columns.iter().map(|c| c.kind).collect(),
            col: 0,
        }))
    }
}

/// One CSV file being written.
struct CsvSink<'w> {
    out: &'w mut dyn Write,
    buf: Vec<u8>,
    kinds: Vec<ColumnKind>,
    col: usize,
}

impl TableSink for CsvSink<'_> {
    fn cell(&mut self, cell: Cell<'_>) {
        if self.col > 0 {
            self.buf.push(b',');
        }
        let kind = self.kinds.get(self.col).copied();
        self.col += 1;
        let buf = &mut self.buf;
        match cell {
            Cell::Empty => {}
            Cell::Bool(b) => buf.extend_from_slice(if b { b"true" } else { b"false" }),
            Cell::I64(v) => {
                let _ = write!(buf, "{v}");
            }
            Cell::U64(v) => {
                let _ = write!(buf, "{v}");
            }
            Cell::F32(v) => push_float(buf, f64::from(v), v),
            Cell::F64(v) => push_float(buf, v, v),
            Cell::Str(s) => push_text(buf, s),
            Cell::Json(v) => {
                let text = serde_json::to_string(v).unwrap_or_default();
                push_text(buf, &text);
            }
            Cell::Time(t) => {
                let unit = match kind {
                    Some(ColumnKind::Time(u)) => u,
                    _ => TimeUnit::Nanoseconds,
                };
                push_time(buf, t.as_nanos(), unit);
            }
        }
    }

    fn end_row(&mut self) -> io::Result<()> {
        self.buf.push(b'\n');
        self.col = 0;
        if self.buf.len() >= 1 << 16 {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.out.flush()
    }
}

/// A finite float `x` (whose value is `v`) in serde_json's shortest form,
/// else its name.
fn push_float(buf: &mut Vec<u8>, v: f64, x: impl serde::Serialize) {
    if v.is_nan() {
        buf.extend_from_slice(b"NaN");
    } else if v.is_infinite() {
        buf.extend_from_slice(if v > 0.0 { b"Infinity" } else { b"-Infinity" });
    } else {
        let _ = serde_json::to_writer(&mut *buf, &x);
    }
}

/// `text`, quoted when it holds a comma, a quote or a line break.
fn push_text(buf: &mut Vec<u8>, text: &str) {
    if text
        .bytes()
        .any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'))
    {
        buf.push(b'"');
        for b in text.bytes() {
            if b == b'"' {
                buf.push(b'"');
            }
            buf.push(b);
        }
        buf.push(b'"');
    } else {
        buf.extend_from_slice(text.as_bytes());
    }
}

/// `ns` nanoseconds in `unit`, exactly: all the fraction digits the unit
/// has (`1.500000000` seconds, `1500.000000` milliseconds).
pub(crate) fn push_time(buf: &mut Vec<u8>, ns: i64, unit: TimeUnit) {
    let (per, digits) = match unit {
        TimeUnit::Seconds => (1_000_000_000u64, 9),
        TimeUnit::Milliseconds => (1_000_000, 6),
        TimeUnit::Microseconds => (1_000, 3),
        TimeUnit::Nanoseconds => (1, 0),
    };
    if ns < 0 {
        buf.push(b'-');
    }
    let abs = ns.unsigned_abs();
    let _ = write!(buf, "{}", abs / per);
    if digits > 0 {
        let _ = write!(buf, ".{:0digits$}", abs % per);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn time(ns: i64, unit: TimeUnit) -> String {
        let mut b = Vec::new();
        push_time(&mut b, ns, unit);
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn times_are_exact_decimals() {
        assert_eq!(
            time(1_600_000_000_100_000_000, TimeUnit::Seconds),
            "1600000000.100000000"
        );
        assert_eq!(time(-1_500_000, TimeUnit::Seconds), "-0.001500000");
        assert_eq!(time(252_000_000, TimeUnit::Milliseconds), "252.000000");
        assert_eq!(time(1_000_001, TimeUnit::Microseconds), "1000.001");
        assert_eq!(time(-7, TimeUnit::Nanoseconds), "-7");
    }

    #[test]
    fn text_is_quoted_only_when_needed() {
        let q = |s: &str| {
            let mut b = Vec::new();
            push_text(&mut b, s);
            String::from_utf8(b).unwrap()
        };
        assert_eq!(q("map"), "map");
        assert_eq!(q("a,b"), "\"a,b\"");
        assert_eq!(q("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(q("two\nlines"), "\"two\nlines\"");
    }
}
