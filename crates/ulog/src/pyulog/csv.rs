//! `ulog2csv`: one CSV file per dataset, with pyulog's file names and
//! console output.

use std::collections::HashSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::format::BasicType;
use crate::read::ULog;
use crate::sample::{Scalar, Subscription, read_basic};
use crate::text::{np_f32, np_f64};

use super::{datasets, load_output};

/// The options of pyulog's `ulog2csv`.
#[derive(Debug, Clone)]
pub struct CsvOptions {
    /// Write the files into this folder (created, one level, when missing)
    /// instead of beside the input (`-o`).
    pub output: Option<PathBuf>,
    /// Only these message names (`-m`, comma-separated there).
    pub messages: Option<Vec<String>>,
    /// The CSV delimiter (`-d`).
    pub delimiter: String,
    /// Only samples from the first with `timestamp >= time_s` seconds (`--time_s`).
    pub time_s: Option<i64>,
    /// Only samples before the first with `timestamp >= time_e` seconds (`--time_e`).
    pub time_e: Option<i64>,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions {
            output: None,
            messages: None,
            delimiter: ",".into(),
            time_s: None,
            time_e: None,
        }
    }
}

/// An I/O error and the file it happened to.
#[derive(Debug)]
pub struct PathError {
    /// The file or folder.
    pub path: PathBuf,
    /// What went wrong.
    pub error: io::Error,
}

impl PathError {
    fn at(path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> PathError {
        let path = path.into();
        move |error| PathError { path, error }
    }
}

/// Does what pyulog's `ulog2csv` does for `log`, read from `input`: creates
/// the output folder when missing, prints what `ulog2csv` prints to `out`
/// (the folder it creates, the load output, one `Writing ...` line per
/// file) and produces one CSV file per dataset, named
/// [`csv_file_name`]`(PREFIX, ..)` where `PREFIX` is `input` without its
/// `.ulg` extension, in the output folder when one is given; where two
/// datasets would share a file, or a name is too long for a file system,
/// the names of [`csv_file_names`] instead.
///
/// The files are written by `write_file`: it is called once per file with
/// the file's path and a function that writes the file's bytes to the
/// writer it is given, so the caller decides how files are created (the
/// `robolog` tool writes each through a temporary file renamed into place
/// when complete, never over the input). An error it returns stops the run
/// and is returned with the file's path.
pub fn ulog2csv<F>(
    log: &ULog<'_>,
    input: &Path,
    opts: &CsvOptions,
    out: &mut impl Write,
    mut write_file: F,
) -> Result<(), PathError>
where
    F: FnMut(&Path, &mut dyn FnMut(&mut dyn Write) -> io::Result<()>) -> io::Result<()>,
{
    let console = PathError::at;
    let mut prefix = input.to_string_lossy().to_string();
    if prefix.to_lowercase().ends_with(".ulg") {
        prefix.truncate(prefix.len() - 4);
    }
    if let Some(dir) = &opts.output {
        if !dir.is_dir() {
            writeln!(out, "Creating output directory {}", dir.display()).map_err(console(input))?;
            std::fs::create_dir(dir).map_err(PathError::at(dir))?;
        }
        let base = Path::new(&prefix)
            .file_name()
            .map(|b| b.to_string_lossy().to_string())
            .unwrap_or_default();
        prefix = dir.join(base).to_string_lossy().to_string();
    }
    // pyulog loads the file after creating the folder.
    out.write_all(load_output(log).as_bytes())
        .map_err(console(input))?;
    // The names are made from the file name; the folder part of the prefix
    // is kept as `ulog2csv` writes it.
    let base = Path::new(&prefix)
        .file_name()
        .map(|b| b.to_string_lossy().to_string())
        .filter(|b| prefix.ends_with(b.as_str()))
        .unwrap_or_default();
    let folder = &prefix[..prefix.len() - base.len()];
    let sets = datasets(log);
    let names = csv_file_names(&base, &sets);
    for (d, file) in sets.into_iter().zip(names) {
        if opts.messages.as_ref().is_some_and(|m| !m.contains(&d.name)) {
            continue;
        }
        let name = format!("{folder}{file}");
        writeln!(out, "Writing {name} ({} data points)", d.samples.len())
            .map_err(console(input))?;
        let mut body =
            |w: &mut dyn Write| csv(d, &opts.delimiter, opts.time_s, opts.time_e, &mut &mut *w);
        write_file(Path::new(&name), &mut body).map_err(PathError::at(&name))?;
    }
    Ok(())
}

/// Writes one dataset as `ulog2csv` does: header row, then one row per
/// sample from the first with `timestamp >= start_s * 1e6` up to (not
/// including) the first with `timestamp >= end_s * 1e6`.
pub fn csv(
    sub: &Subscription<'_>,
    delimiter: &str,
    start_s: Option<i64>,
    end_s: Option<i64>,
    out: &mut impl Write,
) -> io::Result<()> {
    let (names, cols) = csv_columns(sub);
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 16);
    buf.extend_from_slice(names.join(delimiter).as_bytes());
    buf.push(b'\n');
    let first_at = |s: i64| {
        sub.samples
            .iter()
            .position(|x| x.timestamp as f64 >= s as f64 * 1e6)
    };
    let from = match start_s {
        Some(s) if s != 0 => {
            first_at(s).ok_or_else(|| io::Error::other("start time after the last sample"))?
        }
        _ => 0,
    };
    let to = match end_s {
        Some(e) if e != 0 => {
            first_at(e).ok_or_else(|| io::Error::other("end time after the last sample"))?
        }
        _ => sub.samples.len(),
    };
    for s in sub.samples.range(from..to) {
        for (k, c) in cols.iter().enumerate() {
            if k > 0 {
                buf.extend_from_slice(delimiter.as_bytes());
            }
            match *c {
                // pyulog reads `bool` fields as int8 and prints the number,
                // so a byte that is neither 0 nor 1 shows as its value
                // (65 as 65, 255 as -1).
                CsvColumn::Number(BasicType::Bool, off) => {
                    if let Some(&b) = s.data.get(off) {
                        push_scalar(&mut buf, Scalar::Int(i64::from(b as i8)));
                    }
                }
                CsvColumn::Number(ty, off) => {
                    if let Some(v) = read_basic(ty, s.data, off) {
                        push_scalar(&mut buf, v);
                    }
                }
                CsvColumn::Text(off, len) => {
                    let bytes = s.data.get(off..off + len).unwrap_or_default();
                    for &b in bytes.iter().take_while(|&&b| b != 0) {
                        let mut tmp = [0u8; 4];
                        buf.extend_from_slice(char::from(b).encode_utf8(&mut tmp).as_bytes());
                    }
                }
            }
        }
        buf.push(b'\n');
        if buf.len() > 1 << 16 {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)
}

/// File name `ulog2csv` gives a dataset: `PREFIX_topic_multi.csv`, with `/`
/// in topic names replaced by `_`.
pub fn csv_file_name(prefix: &str, sub: &Subscription<'_>) -> String {
    format!(
        "{prefix}_{}_{}.csv",
        sub.name.replace('/', "_"),
        sub.multi_id
    )
}

/// The file name of each of `sets` (datasets, see [`datasets`]), where
/// `base` is the input's file name without `.ulg`: [`csv_file_name`]'s,
/// except where that would lose data or fail.
///
/// `ulog2csv` gives two subscriptions one file when their names differ
/// only by `/` and `_` (`a/b` and `a_b`), or when one name and instance is
/// subscribed twice, and writes both to it: the rows of one are lost. Here
/// the subscription first in the log's file order keeps `ulog2csv`'s name
/// (for one name subscribed twice, the file `ulog2csv` leaves), the others
/// get `_2`, `_3`, ... before `.csv`, never a name another subscription's
/// file has (names compared without case, as case-insensitive file systems
/// do). A name too long for a file system is shortened (see
/// [`logcore::filename::shorten`]). The names do not depend on which
/// datasets a caller goes on to write.
pub fn csv_file_names(base: &str, sets: &[&Subscription<'_>]) -> Vec<String> {
    use logcore::filename::shorten;
    let stems: Vec<String> = sets
        .iter()
        .map(|s| {
            let name = csv_file_name(base, s);
            let stem = name.strip_suffix(".csv").unwrap_or(&name);
            shorten(stem, stem)
        })
        .collect();
    let mut order: Vec<usize> = (0..sets.len()).collect();
    order.sort_by_key(|&i| (sets[i].offset, sets[i].msg_id));
    let mut seen = HashSet::new();
    let (first, later): (Vec<usize>, Vec<usize>) = order
        .into_iter()
        .partition(|&i| seen.insert(stems[i].to_lowercase()));
    let mut taken = HashSet::new();
    let mut out = vec![String::new(); sets.len()];
    for i in first.into_iter().chain(later) {
        let mut name = stems[i].clone();
        let mut n = 1;
        while !taken.insert(name.to_lowercase()) {
            n += 1;
            name = format!("{}_{n}", stems[i]);
        }
        out[i] = format!("{name}.csv");
    }
    out
}

/// One CSV column: a numeric leaf, or a `char` array shown as text.
enum CsvColumn {
    Number(BasicType, usize),
    Text(usize, usize),
}

/// The CSV header names and columns of a dataset, as `ulog2csv` makes them.
fn csv_columns(sub: &Subscription<'_>) -> (Vec<String>, Vec<CsvColumn>) {
    let mut names: Vec<String> = Vec::new();
    let mut cols: Vec<CsvColumn> = Vec::new();
    for f in sub.fields() {
        if f.name.starts_with("_padding") {
            continue;
        }
        let array = f
            .name
            .strip_suffix(']')
            .and_then(|s| s.rfind('[').map(|i| (&s[..i], &s[i + 1..])));
        match array {
            Some((base, idx)) if f.ty == BasicType::Char => {
                let idx: usize = idx.parse().unwrap_or(0);
                if let Some(pos) = names.iter().position(|n| n == base) {
                    if let CsvColumn::Text(_, len) = &mut cols[pos] {
                        *len = (*len).max(idx + 1);
                    }
                } else if idx == 0 {
                    names.push(base.to_string());
                    cols.push(CsvColumn::Text(f.offset, 1));
                }
            }
            _ => {
                names.push(f.name.to_string());
                cols.push(CsvColumn::Number(f.ty, f.offset));
            }
        }
    }
    if let Some(i) = names.iter().position(|n| n == "timestamp") {
        let n = names.remove(i);
        let c = cols.remove(i);
        names.insert(0, n);
        cols.insert(0, c);
    }
    (names, cols)
}

fn push_scalar(out: &mut Vec<u8>, s: Scalar) {
    let mut buf = itoa_buf();
    match s {
        Scalar::Int(v) => out.extend_from_slice(fmt_int(&mut buf, v)),
        Scalar::UInt(v) => out.extend_from_slice(fmt_uint(&mut buf, v)),
        Scalar::F32(v) => out.extend_from_slice(np_f32(v).as_bytes()),
        Scalar::F64(v) => out.extend_from_slice(np_f64(v).as_bytes()),
        Scalar::Bool(b) => out.push(if b { b'1' } else { b'0' }),
        Scalar::Char(c) => out.extend_from_slice(fmt_int(&mut buf, i64::from(c as i8))),
    }
}

fn itoa_buf() -> [u8; 24] {
    [0; 24]
}

fn fmt_uint(buf: &mut [u8; 24], mut v: u64) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    &buf[i..]
}

fn fmt_int(buf: &mut [u8; 24], v: i64) -> &[u8] {
    let neg = v < 0;
    let mut i = buf.len();
    let mut u = v.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (u % 10) as u8;
        u /= 10;
        if u == 0 {
            break;
        }
    }
    if neg {
        i -= 1;
        buf[i] = b'-';
    }
    &buf[i..]
}
