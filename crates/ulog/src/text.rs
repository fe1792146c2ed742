//! Text helpers: UTF-8 decoding as pyulog does it, and Python/numpy
//! number and string formatting for the pyulog-compatible outputs.

use std::fmt::Write;

/// Decodes UTF-8, dropping invalid bytes (Python's `errors='ignore'`).
pub(crate) fn lossy(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => {
            let mut out = String::with_capacity(bytes.len());
            for chunk in bytes.utf8_chunks() {
                out.push_str(chunk.valid());
            }
            out
        }
    }
}

/// [`lossy`] without a copy when the bytes are valid UTF-8 (the usual
/// case), for text that is only looked at.
pub(crate) fn lossy_cow(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => std::borrow::Cow::Owned(lossy(bytes)),
    }
}

/// Shortest round-trip digits and decimal exponent of a finite non-zero
/// value, from Rust's own shortest formatting: `1.2345e-5` gives
/// (`"12345"`, -5).
fn digits(sci: &str) -> (String, i32) {
    let (mant, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    (digits, exp.parse().unwrap_or(0))
}

/// The shortest round-trip digit count, but the digits of the decimal of
/// that length nearest to the exact value (ties between two shortest
/// candidates go the way Python and numpy round, not upwards).
fn nearest_shortest(shortest: &str, exact: impl Fn(usize) -> String) -> (String, i32) {
    let (d, _) = digits(shortest);
    let (d2, exp) = digits(&exact(d.len().saturating_sub(1)));
    (d2, exp)
}

/// Formats digits `d` (first digit at 10^exp) positionally, always with a
/// fractional part (`1.0`, `0.001`, `123.5`).
fn positional(neg: bool, d: &str, exp: i32) -> String {
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    if exp < 0 {
        s.push_str("0.");
        for _ in 0..(-exp - 1) {
            s.push('0');
        }
        s.push_str(d);
    } else {
        let int_len = exp as usize + 1;
        if d.len() <= int_len {
            s.push_str(d);
            for _ in d.len()..int_len {
                s.push('0');
            }
            s.push_str(".0");
        } else {
            s.push_str(&d[..int_len]);
            s.push('.');
            s.push_str(&d[int_len..]);
        }
    }
    s
}

/// Formats in Python's scientific style: `1e+16`, `1.5e-05`.
fn scientific(neg: bool, d: &str, exp: i32) -> String {
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    s.push_str(&d[..1]);
    if d.len() > 1 {
        s.push('.');
        s.push_str(&d[1..]);
    }
    let _ = write!(
        s,
        "e{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.unsigned_abs()
    );
    s
}

fn special(x: f64) -> Option<String> {
    if x.is_nan() {
        Some("nan".into())
    } else if x.is_infinite() {
        Some(if x > 0.0 { "inf" } else { "-inf" }.into())
    } else if x == 0.0 {
        Some(if x.is_sign_negative() { "-0.0" } else { "0.0" }.into())
    } else {
        None
    }
}

/// Python's `repr(float)`.
///
/// ```
/// # use ulogfile::text::py_float;
/// assert_eq!(py_float(0.05000000074505806), "0.05000000074505806");
/// assert_eq!(py_float(1e16), "1e+16");
/// assert_eq!(py_float(100.0), "100.0");
/// assert_eq!(py_float(1.5e-5), "1.5e-05");
/// ```
pub fn py_float(x: f64) -> String {
    if let Some(s) = special(x) {
        return s;
    }
    let (d, exp) = nearest_shortest(&format!("{:e}", x.abs()), |p| format!("{:.p$e}", x.abs()));
    if (-4..16).contains(&exp) {
        positional(x < 0.0, &d, exp)
    } else {
        scientific(x < 0.0, &d, exp)
    }
}

/// numpy's `str()` of a `float32` scalar (shortest float32 digits,
/// positional for 1e-4 <= |x| < 1e6).
///
/// ```
/// # use ulogfile::text::np_f32;
/// assert_eq!(np_f32(1e6), "1e+06");
/// assert_eq!(np_f32(123456789.0), "1.2345679e+08");
/// assert_eq!(np_f32(-0.00042592664), "-0.00042592664");
/// assert_eq!(np_f32(1e-4), "1e-04");
/// ```
pub fn np_f32(x: f32) -> String {
    if let Some(s) = special(f64::from(x)) {
        return s;
    }
    let (d, exp) = nearest_shortest(&format!("{:e}", x.abs()), |p| format!("{:.p$e}", x.abs()));
    let a = f64::from(x.abs());
    if (1e-4..1e6).contains(&a) {
        positional(x < 0.0, &d, exp)
    } else {
        scientific(x < 0.0, &d, exp)
    }
}

/// numpy's `str()` of a `float64` scalar (positional for 1e-4 <= |x| < 1e16).
pub fn np_f64(x: f64) -> String {
    if let Some(s) = special(x) {
        return s;
    }
    let (d, exp) = nearest_shortest(&format!("{:e}", x.abs()), |p| format!("{:.p$e}", x.abs()));
    if (1e-4..1e16).contains(&x.abs()) {
        positional(x < 0.0, &d, exp)
    } else {
        scientific(x < 0.0, &d, exp)
    }
}

/// Python's `repr(str)`.
///
/// ```
/// # use ulogfile::text::py_str_repr;
/// assert_eq!(py_str_repr("a\nb"), "'a\\nb'");
/// assert_eq!(py_str_repr("it's"), "\"it's\"");
/// ```
pub fn py_str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (0x80..0xa0).contains(&(c as u32)) => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `repr(bytes)`.
///
/// ```
/// # use ulogfile::text::py_bytes_repr;
/// assert_eq!(py_bytes_repr(b"a\x00'"), "b\"a\\x00'\"");
/// ```
pub fn py_bytes_repr(b: &[u8]) -> String {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    let mut out = String::from("b");
    out.push(quote as char);
    for &c in b {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c as char);
            }
            0x20..=0x7e => out.push(c as char),
            c => {
                let _ = write!(out, "\\x{c:02x}");
            }
        }
    }
    out.push(quote as char);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_like_python_and_numpy() {
        assert_eq!(py_float(0.0), "0.0");
        assert_eq!(py_float(-2.5), "-2.5");
        assert_eq!(py_float(1e-4), "0.0001");
        assert_eq!(py_float(9.9e-5), "9.9e-05");
        assert_eq!(py_float(1500000000000000.0), "1500000000000000.0");
        assert_eq!(np_f32(999999.9), "999999.9");
        assert_eq!(np_f32(1e-45), "1e-45");
        assert_eq!(np_f32(3.4e38), "3.4e+38");
        assert_eq!(np_f32(f32::NAN), "nan");
        assert_eq!(np_f32(-0.0), "-0.0");
        assert_eq!(np_f64(1.5e15), "1500000000000000.0");
        assert_eq!(np_f64(1e16), "1e+16");
        assert_eq!(lossy(b"a\xffb"), "ab");
        assert_eq!(py_float(f64::from(1.030_952_5_f32)), "1.0309524536132812");
        assert_eq!(py_float(-0.10284805297851562), "-0.10284805297851562");
    }
}
