//! The real CARLA recordings of the shared corpus (`<corpus>/carla/`, see
//! its README.txt): for every `.log`/`.rec` file found (by extension,
//! never by name), every frame and packet reads strictly, every packet's
//! declared size equals the bytes its fields take, frame durations equal
//! the differences of elapsed times and the last one is −1.0, CARLA's
//! three reports run, the typed rewrite equals the file byte for byte, 64
//! cuts and 32 bit flips are survived; and where `README.txt` has a row
//! whose key is part of the file name, header fields, frame count, last
//! elapsed time, packet count and EventAdd/EventDel record counts equal
//! that row (facts CARLA's own tools printed). Skipped when the corpus is
//! absent.

use carla_recorder::{Packet, PacketId, ReadMode, Recording, rewrite};

/// Measured facts of one file, as `README.txt` lists them.
#[derive(Debug, Clone, PartialEq)]
struct Facts {
    version: u16,
    map: String,
    date: i64,
    frames: u64,
    last_elapsed: String,
    packets: u64,
    adds: u64,
    dels: u64,
}

/// Rows of the README table:
/// `name  version / map / date  frames  elapsed s  packets  adds  dels`.
fn readme_rows(text: &str) -> Vec<(String, Facts)> {
    let mut rows = Vec::new();
    for line in text.lines() {
        let t: Vec<&str> = line.split_whitespace().collect();
        // name v / map / date frames elapsed "s" packets adds dels
        if t.len() != 12 || t[2] != "/" || t[4] != "/" || t[8] != "s" {
            continue;
        }
        let parse = || -> Option<Facts> {
            Some(Facts {
                version: t[1].parse().ok()?,
                map: t[3].to_string(),
                date: t[5].parse().ok()?,
                frames: t[6].parse().ok()?,
                last_elapsed: t[7].to_string(),
                packets: t[9].parse().ok()?,
                adds: t[10].parse().ok()?,
                dels: t[11].parse().ok()?,
            })
        };
        if let Some(f) = parse() {
            rows.push((t[0].to_string(), f));
        }
    }
    rows
}

/// `%g` with 6 significant digits, as the README prints elapsed times.
fn g6(v: f64) -> String {
    carla_recorder::report::format_g(v)
}

/// What our reader measures in one file; also checks the invariants.
fn measure(bytes: &[u8]) -> Result<Facts, String> {
    let rec = Recording::new(bytes).map_err(|e| e.to_string())?;
    let layout = rec.layout();
    let h = rec.header();
    let (mut frames, mut packets, mut adds, mut dels) = (0u64, 0u64, 0u64, 0u64);
    let mut last: Option<(f64, f64)> = None;
    for f in rec.frames_with(ReadMode::Strict) {
        let f = f.map_err(|e| e.to_string())?;
        if let Some((prev_elapsed, prev_duration)) = last {
            let derived = f.start.elapsed - prev_elapsed;
            if derived != prev_duration {
                return Err(format!(
                    "frame {}: previous frame's duration {prev_duration} != elapsed difference {derived}",
                    f.start.id
                ));
            }
        }
        last = Some((f.start.elapsed, f.start.duration));
        frames += 1;
        packets += 2 + f.packet_count() as u64;
        for p in f.packets() {
            // Decoding checks declared size == bytes parsed (Fields::end).
            let d = p.decode(&layout).map_err(|e| e.to_string())?;
            if let Packet::Raw { id, .. } = d {
                if PacketId::from_u8(id).is_some() {
                    return Err(format!("packet at byte {} kept raw", p.offset));
                }
            }
            match d {
                Packet::EventAdd(v) => adds += v.len() as u64,
                Packet::EventDel(v) => dels += v.len() as u64,
                _ => {}
            }
        }
    }
    let (last_elapsed, last_duration) = last.ok_or("no frames")?;
    if last_duration != -1.0 {
        return Err(format!(
            "last frame's duration is {last_duration}, not -1.0"
        ));
    }
    reports(&rec, adds, dels)?;
    let again = rewrite(&rec).map_err(|e| format!("rewrite: {e}"))?;
    if again != bytes {
        let at = again
            .iter()
            .zip(bytes)
            .position(|(a, b)| a != b)
            .unwrap_or(again.len().min(bytes.len()));
        return Err(format!("rewrite differs from the file at byte {at}"));
    }
    Ok(Facts {
        version: h.version,
        map: h.map_name().into_owned(),
        date: h.date,
        frames,
        last_elapsed: g6(last_elapsed),
        packets,
        adds,
        dels,
    })
}

/// CARLA's three reports run to the end; the info text lists one
/// ` Create` line per EventAdd record and one ` Destroy` line per EventDel
/// record.
fn reports(rec: &Recording<'_>, adds: u64, dels: u64) -> Result<(), String> {
    use carla_recorder::report::{ReportOptions, actors_blocked, collisions, file_info};
    let mut text = Vec::new();
    for fixed in [false, true] {
        let o = ReportOptions {
            fixed,
            utc_offset_secs: 0,
        };
        text.clear();
        file_info(rec, false, &o, &mut text).map_err(|e| format!("file_info: {e}"))?;
        let t = String::from_utf8_lossy(&text);
        let creates = t.lines().filter(|l| l.starts_with(" Create ")).count() as u64;
        let destroys = t.lines().filter(|l| l.starts_with(" Destroy ")).count() as u64;
        if (creates, destroys) != (adds, dels) {
            return Err(format!(
                "file_info lists {creates} Create / {destroys} Destroy lines for {adds} / {dels} records"
            ));
        }
        file_info(rec, true, &o, &mut std::io::sink()).map_err(|e| format!("show_all: {e}"))?;
        collisions(rec, 'a', 'a', &o, &mut std::io::sink())
            .map_err(|e| format!("collisions: {e}"))?;
        actors_blocked(rec, 30.0, 10.0, &o, &mut std::io::sink())
            .map_err(|e| format!("blocked: {e}"))?;
    }
    Ok(())
}

/// Cuts at 64 evenly spread offsets (every complete frame before the cut,
/// then a truncation) and 32 single-bit flips (no panic anywhere).
fn damage(bytes: &[u8]) -> Result<(), String> {
    use logcore::{LogReader, MessageFilter};
    let rec = Recording::new(bytes).map_err(|e| e.to_string())?;
    let ends: Vec<u64> = rec
        .frames()
        .map(|f| f.map(|f| f.end).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let header = rec.first_packet_offset();
    for k in 1..=64u64 {
        let cut = (bytes.len() as u64 * k / 65) as usize;
        let Ok(part) = Recording::new(&bytes[..cut]) else {
            if cut as u64 >= header {
                return Err(format!("cut at {cut}: header no longer reads"));
            }
            continue;
        };
        let complete = ends.iter().filter(|&&e| e <= cut as u64).count();
        let mut ok = 0;
        let mut last_err = None;
        for f in part.frames() {
            match f {
                Ok(_) => ok += 1,
                Err(e) => last_err = Some(e),
            }
        }
        let boundary = cut as u64 == header || ends.contains(&(cut as u64));
        if ok != complete
            || last_err.as_ref().is_some_and(|e| !e.is_truncated())
            || (last_err.is_none() && !boundary)
        {
            return Err(format!(
                "cut at {cut}: {ok} frames (want {complete}), end {last_err:?}"
            ));
        }
    }
    let mut flipped = bytes.to_vec();
    for k in 0..32u64 {
        let at = (bytes.len() as u64 * (2 * k + 1) / 64) as usize;
        flipped[at] ^= 1 << (k % 8);
        if let Ok(rec) = Recording::new(&flipped) {
            let _ = rec.summary();
            if let Ok(it) = rec.messages(&MessageFilter::all().mode(ReadMode::Lenient)) {
                for m in it.flatten().take(2000) {
                    let _ = rec.decode(&m);
                }
            }
            let _ = carla_recorder::Timeline::build(&rec);
            let o = carla_recorder::report::ReportOptions::default();
            let _ = carla_recorder::report::collisions(&rec, 'a', 'a', &o, &mut std::io::sink());
        }
        flipped[at] = bytes[at];
    }
    Ok(())
}

#[test]
fn every_corpus_recording_reads_as_its_readme_says() {
    let Some(dir) = robolog_testkit::corpus("carla") else {
        return;
    };
    let files = robolog_testkit::files_with_ext(&dir, &["log", "rec"]);
    assert!(!files.is_empty(), "no recordings under {}", dir.display());
    let readme = std::fs::read_to_string(dir.join("README.txt")).unwrap_or_default();
    let rows = readme_rows(&readme);
    assert!(!rows.is_empty(), "README.txt lists no recordings");
    let mut failures = Vec::new();
    let mut compared = 0;
    for path in &files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let bytes = std::fs::read(path).expect("a corpus file reads");
        let got = match measure(&bytes) {
            Ok(f) => f,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        if let Err(e) = damage(&bytes) {
            failures.push(format!("{name}: {e}"));
        }
        if let Some((_, want)) = rows.iter().find(|(k, _)| name.contains(k.as_str())) {
            compared += 1;
            if *want != got {
                failures.push(format!("{name}: README says {want:?}, we read {got:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every row of the README names a recording that was compared.
    assert_eq!(compared, rows.len(), "README rows without a recording");
}
