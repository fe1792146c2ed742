//! CARLA's three text reports, reproduced offline (spec §10):
//! [`file_info`] (`show_recorder_file_info`), [`collisions`]
//! (`show_recorder_collisions`) and [`actors_blocked`]
//! (`show_recorder_actors_blocked`).
//!
//! By default the text is what CARLA prints, quirks included. With
//! [`ReportOptions::fixed`] the bugs the spec lists are corrected:
//!
//! - EventDel removes the deleted actor (CARLA removes the most recently
//!   *added* one);
//! - the footer's duration is printed with `%g` (CARLA's stream stays in
//!   `%.0f` after a collision row);
//! - traffic signs and sensors get their own category letters `s` and `n`
//!   (CARLA's table gives them `h` and `a`, the filter letters for "hero"
//!   and "any", so they cannot be selected);
//! - the last frame's −1.0 duration placeholder counts as 0 s, an actor
//!   destroyed while blocked is reported, and the end-of-file results are in
//!   actor id order (CARLA: hash-map order).
//!
//! A truncated or damaged file yields the report up to the damage, the
//! footer, and then the error.

use std::collections::{HashMap, HashSet};
use std::io::Write;

use crate::error::{Error, Result};
use crate::event::NO_ACTOR;
use crate::layout::Vec3;
use crate::packet::{Packet, PacketId};
use crate::read::Recording;

/// Choices that are not in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReportOptions {
    /// Correct CARLA's bugs (see the module docs) instead of reproducing them.
    pub fixed: bool,
    /// Offset of the time zone the header date is shown in, seconds east of
    /// UTC (CARLA uses the server's local time zone).
    pub utc_offset_secs: i32,
}

/// Formats like C++ iostream default (`%g`, 6 significant digits).
///
/// ```
/// use carla_recorder::report::format_g;
/// assert_eq!(format_g(-17219.7109375), "-17219.7");
/// assert_eq!(format_g(0.0166), "0.0166");
/// assert_eq!(format_g(1e-5), "1e-05");
/// assert_eq!(format_g(1234567.0), "1.23457e+06");
/// assert_eq!(format_g(15.0), "15");
/// assert_eq!(format_g(0.0), "0");
/// ```
pub fn format_g(v: f64) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{v:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let strip = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip(mantissa), exp.abs())
    } else {
        let decimals = (5 - exp).max(0) as usize;
        strip(&format!("{v:.decimals$}"))
    }
}

/// `%.0f` (round half to even on the exact binary value, like glibc).
pub fn format_f0(v: f64) -> String {
    format!("{v:.0}")
}

pub(crate) fn g32(v: f32) -> String {
    format_g(f64::from(v))
}

pub(crate) fn vec(v: Vec3) -> String {
    format!("({}, {}, {})", format_g(v.x), format_g(v.y), format_g(v.z))
}

pub(crate) fn io(e: std::io::Error) -> Error {
    Error::from(e)
}

/// `MM/DD/YY HH:MM:SS` of the header date (C `%x %X`).
fn header_date(date: i64, offset: i32) -> String {
    let fmt = time::macros::format_description!(
        "[month]/[day]/[year repr:last_two] [hour]:[minute]:[second]"
    );
    let off = time::UtcOffset::from_whole_seconds(offset).unwrap_or(time::UtcOffset::UTC);
    time::OffsetDateTime::from_unix_timestamp(date)
        .ok()
        .map(|d| d.to_offset(off))
        .and_then(|d| d.format(&fmt).ok())
        .unwrap_or_else(|| date.to_string())
}

fn header(rec: &Recording<'_>, opts: &ReportOptions, out: &mut dyn Write) -> Result<()> {
    let h = rec.header();
    writeln!(
        out,
        "Version: {}\nMap: {}\nDate: {}\n",
        h.version,
        h.map_name(),
        header_date(h.date, opts.utc_offset_secs)
    )
    .map_err(io)
}

/// Frame id and elapsed time of the last FrameStart read (the footer).
#[derive(Default)]
struct Clock {
    id: u64,
    elapsed: f64,
    duration: f64,
}

mod info;

fn footer(c: &Clock, fixed_zero: bool, out: &mut dyn Write) -> Result<()> {
    let d = if fixed_zero {
        format_f0(c.elapsed)
    } else {
        format_g(c.elapsed)
    };
    write!(out, "\nFrames: {}\nDuration: {d} seconds\n", c.id).map_err(io)
}

/// Walks every packet, handing decoded packets of the wanted kinds to `f`.
fn walk<'a>(
    rec: &Recording<'a>,
    wanted: &dyn Fn(PacketId) -> bool,
    mut f: impl FnMut(&Packet<'a>) -> Result<()>,
) -> Result<()> {
    let layout = rec.layout();
    for p in rec.packets() {
        let p = p?;
        if p.kind().is_some_and(wanted) {
            f(&p.decode(&layout)?)?;
        }
    }
    Ok(())
}

/// `show_recorder_file_info(name, show_all)`.
///
/// ```
/// use carla_recorder::{EventDel, InfoHeader, Packet, Recording, Writer};
/// use carla_recorder::report::{file_info, ReportOptions};
/// let mut w = Writer::new(InfoHeader::new(1_599_118_744, b"Town01"))?;
/// w.tick(0.0, &[])?;
/// w.tick(0.05, &[Packet::EventDel(vec![EventDel { id: 42 }])])?;
/// let bytes = w.finish();
/// let mut out = Vec::new();
/// file_info(&Recording::new(&bytes)?, false, &ReportOptions::default(), &mut out)?;
/// assert_eq!(String::from_utf8(out).unwrap(), "Version: 1\nMap: Town01\nDate: 09/03/20 07:39:04\n\n\
///     Frame 2 at 0.05 seconds\n Destroy 42\n\nFrames: 2\nDuration: 0.05 seconds\n");
/// # Ok::<(), carla_recorder::Error>(())
/// ```
pub fn file_info(
    rec: &Recording<'_>,
    show_all: bool,
    opts: &ReportOptions,
    out: &mut dyn Write,
) -> Result<()> {
    header(rec, opts, out)?;
    let mut clock = Clock::default();
    let mut printed = false;
    let wanted = |k: PacketId| {
        show_all
            || matches!(
                k,
                PacketId::FrameStart
                    | PacketId::EventAdd
                    | PacketId::EventDel
                    | PacketId::EventParent
                    | PacketId::Collision
            )
    };
    let result = walk(rec, &wanted, |p| {
        info::info_packet(p, show_all, &mut clock, &mut printed, out)
    });
    footer(&clock, false, out)?;
    result
}

/// Category letter of an actor type (spec §10.2).
fn category(type_code: u8, fixed: bool) -> char {
    match (type_code, fixed) {
        (0, _) => 'o',
        (1, _) => 'v',
        (2, _) => 'w',
        (3, _) => 't',
        (4, false) => 'h',
        (5, false) => 'a',
        (4, true) => 's',
        (5, true) => 'n',
        _ => '?',
    }
}

/// `show_recorder_collisions(name, type1, type2)`: `type1`/`type2` are
/// `a` (any), `h` (hero) or a category letter (`o v w t`, and in fixed
/// mode `s` traffic sign, `n` sensor).
pub fn collisions(
    rec: &Recording<'_>,
    type1: char,
    type2: char,
    opts: &ReportOptions,
    out: &mut dyn Write,
) -> Result<()> {
    header(rec, opts, out)?;
    writeln!(
        out,
        "{:>8} {:>6} {:>6} {:<35} {:>6} {:<35}",
        "Time", "Types", "Id", "Actor 1", "Id", "Actor 2"
    )
    .map_err(io)?;
    let fixed = opts.fixed;
    let mut actors: HashMap<u32, (u8, String)> = HashMap::new();
    let mut last_added: Option<u32> = None;
    let mut old: HashSet<(u32, u32)> = HashSet::new();
    let mut new: HashSet<(u32, u32)> = HashSet::new();
    let mut clock = Clock::default();
    let mut rows = 0u64;
    let wanted = |k: PacketId| {
        matches!(
            k,
            PacketId::FrameStart | PacketId::EventAdd | PacketId::EventDel | PacketId::Collision
        )
    };
    let result = walk(rec, &wanted, |p| {
        match p {
            Packet::FrameStart(s) => {
                clock = Clock {
                    id: s.id,
                    elapsed: s.elapsed,
                    duration: s.duration,
                };
                old = std::mem::take(&mut new);
            }
            Packet::EventAdd(v) => {
                for a in v {
                    actors.insert(a.id, (a.type_code, a.description().into_owned()));
                    last_added = Some(a.id);
                }
            }
            Packet::EventDel(v) => {
                for d in v {
                    let gone = if fixed { Some(d.id) } else { last_added };
                    if let Some(id) = gone {
                        actors.remove(&id);
                    }
                }
            }
            Packet::Collision(v) => {
                for c in v {
                    let mut side = |id: u32, hero: bool, filter: char| {
                        let (t, name) = if id == NO_ACTOR {
                            (0, String::new())
                        } else {
                            actors.entry(id).or_insert((0, String::new())).clone()
                        };
                        let letter = if id == NO_ACTOR {
                            'o'
                        } else {
                            category(t, fixed)
                        };
                        let pass = filter == 'a' || filter == letter || (filter == 'h' && hero);
                        (letter, name, pass)
                    };
                    let (l1, n1, p1) = side(c.actor1, c.is_hero1, type1);
                    let (l2, n2, p2) = side(c.actor2, c.is_hero2, type2);
                    if !(p1 && p2) {
                        continue;
                    }
                    let pair = (c.actor1, c.actor2);
                    if !old.contains(&pair) {
                        writeln!(
                            out,
                            "{:>8}   {l1} {l2}  {:>6} {:<35} {:>6} {:<35}",
                            format_f0(clock.elapsed),
                            c.actor1,
                            n1,
                            c.actor2,
                            n2
                        )
                        .map_err(io)?;
                        rows += 1;
                    }
                    new.insert(pair);
                }
            }
            _ => {}
        }
        Ok(())
    });
    footer(&clock, rows > 0 && !fixed, out)?;
    result
}

#[derive(Default, Clone)]
struct Blocked {
    name: String,
    last: Vec3,
    time: f64,
    duration: f64,
}

/// The actor `id`, created with zero values and no name on first use.
fn slot<'m>(
    actors: &'m mut HashMap<u32, Blocked>,
    order: &mut Vec<u32>,
    id: u32,
) -> &'m mut Blocked {
    if !actors.contains_key(&id) {
        order.push(id);
    }
    actors.entry(id).or_default()
}

/// `show_recorder_actors_blocked(name, min_time, min_distance)`:
/// `min_time` in seconds, `min_distance` in centimetres.
pub fn actors_blocked(
    rec: &Recording<'_>,
    min_time: f64,
    min_distance: f64,
    opts: &ReportOptions,
    out: &mut dyn Write,
) -> Result<()> {
    header(rec, opts, out)?;
    let fixed = opts.fixed;
    // Insertion order stands in for CARLA's hash-map order (unspecified).
    let mut order: Vec<u32> = Vec::new();
    let mut actors: HashMap<u32, Blocked> = HashMap::new();
    let mut results: Vec<(f64, u32, String, f64)> = Vec::new();
    let mut last_added: Option<u32> = None;
    let mut clock = Clock::default();
    let wanted = |k: PacketId| {
        matches!(
            k,
            PacketId::FrameStart | PacketId::EventAdd | PacketId::EventDel | PacketId::Position
        )
    };
    let result = walk(rec, &wanted, |p| {
        match p {
            Packet::FrameStart(s) => {
                clock = Clock {
                    id: s.id,
                    elapsed: s.elapsed,
                    duration: s.duration,
                };
                if fixed && clock.duration < 0.0 {
                    clock.duration = 0.0;
                }
            }
            Packet::EventAdd(v) => {
                for a in v {
                    *slot(&mut actors, &mut order, a.id) = Blocked {
                        name: a.description().into_owned(),
                        ..Blocked::default()
                    };
                    last_added = Some(a.id);
                }
            }
            Packet::EventDel(v) => {
                for d in v {
                    let gone = if fixed { Some(d.id) } else { last_added };
                    let Some(id) = gone else { continue };
                    if let Some(b) = actors.remove(&id) {
                        if fixed && b.duration >= min_time {
                            results.push((b.time, id, b.name, b.duration));
                        }
                    }
                }
            }
            Packet::Position(v) => {
                for r in v {
                    let a = slot(&mut actors, &mut order, r.id);
                    let d = f64::from(a.last.distance_f32(r.location));
                    if d < min_distance {
                        if a.duration == 0.0 {
                            a.time = clock.elapsed;
                        }
                        a.duration += clock.duration;
                    } else {
                        if a.duration >= min_time {
                            results.push((a.time, r.id, a.name.clone(), a.duration));
                        }
                        a.duration = 0.0;
                        a.last = r.location;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    });
    let mut rest: Vec<u32> = order
        .into_iter()
        .filter(|id| actors.contains_key(id))
        .collect();
    if fixed {
        rest.sort_unstable();
    }
    let mut seen = std::collections::BTreeSet::new();
    for id in rest {
        if !seen.insert(id) {
            continue;
        }
        if let Some(a) = actors.get(&id).filter(|a| a.duration >= min_time) {
            results.push((a.time, id, a.name.clone(), a.duration));
        }
    }
    results.sort_by(|a, b| b.3.total_cmp(&a.3));
    writeln!(
        out,
        "{:>8} {:>6} {:<35} {:>10}",
        "Time", "Id", "Actor", "Duration"
    )
    .map_err(io)?;
    for (t, id, name, d) in &results {
        writeln!(
            out,
            "{:>8} {:>6} {:<35} {:>10}",
            format_f0(*t),
            id,
            name,
            format_f0(*d)
        )
        .map_err(io)?;
    }
    footer(&clock, false, out)?;
    result
}
