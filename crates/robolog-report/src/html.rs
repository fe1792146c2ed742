//! The page: one HTML file with the style, the data (JSON in a
//! `<script type="application/json" id="report-data">`) and the script
//! that draws it, all inline. The script and style are this crate's own
//! (`assets/`), with no dependency and nothing fetched.
//!
//! The script is written as ES modules (`assets/js/`, checked by
//! TypeScript's `tsc --checkJs` in `cargo xtask report`) and goes into the
//! page as one `<script type="module">`: [`MODULES`] in dependency order,
//! their `import` lines left out and their `export` keywords dropped, so
//! that they share one module scope (top-level names are unique across
//! the modules; the tests check it).

use std::fmt::Write as _;
use std::io::{self, Write};

use crate::model::{LogReport, page_json};

const CSS: &str = include_str!("../assets/report.css");

/// The page's script modules (`assets/js/`), each after those it imports
/// from.
pub(crate) const MODULES: [(&str, &str); 12] = [
    ("types.js", include_str!("../assets/js/types.js")),
    ("format.js", include_str!("../assets/js/format.js")),
    ("data.js", include_str!("../assets/js/data.js")),
    ("timeaxis.js", include_str!("../assets/js/timeaxis.js")),
    ("plot.js", include_str!("../assets/js/plot.js")),
    ("xy.js", include_str!("../assets/js/xy.js")),
    ("timeline.js", include_str!("../assets/js/timeline.js")),
    ("maps.js", include_str!("../assets/js/maps.js")),
    ("sensors.js", include_str!("../assets/js/sensors.js")),
    ("tables.js", include_str!("../assets/js/tables.js")),
    ("px4.js", include_str!("../assets/js/px4.js")),
    ("main.js", include_str!("../assets/js/main.js")),
];

/// [`MODULES`] as the text of one module script: in their order, each
/// headed by its name, without its `import` lines (one line each, at the
/// start of a line), with `export` dropped where a line starts with it
/// (`export {};` left out), and without the lines that are only comment
/// (`//`, and the JSDoc blocks: lines starting `/*`, `*` or `*/`), which
/// are for the reader of the sources and `tsc`, not for the browser, and
/// without indentation (the modules hold no template literal, whose text
/// it would change: the tests check).
pub(crate) fn script() -> String {
    let mut out = String::with_capacity(MODULES.iter().map(|m| m.1.len() + 32).sum());
    for (name, text) in MODULES {
        let _ = writeln!(out, "// {name}");
        for line in text.lines() {
            let code = line.trim_start();
            if line.starts_with("import ")
                || line == "export {};"
                || code.is_empty()
                || ["//", "/*", "*"].iter().any(|c| code.starts_with(c))
            {
                continue;
            }
            out.push_str(code.strip_prefix("export ").unwrap_or(code));
            out.push('\n');
        }
    }
    out
}

/// Escapes text for HTML element content.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The report's data: `{"version":1,"title":...,"logs":[...]}` as the
/// page holds it: the same JSON with every `<`, `>` and `&` written as
/// `\u003c`, `\u003e` and `\u0026`, and U+2028 and U+2029 as `\u2028`
/// and `\u2029`, so that no text of a log can end the script element or
/// lead the HTML parser into a state that swallows the page's own script
/// (`<!--` followed by `<script`).
///
/// Every channel is there in full while the data fits in `budget` bytes.
/// Past it, the channels' extra series (the fields not plotted at load)
/// are left out, from the last channel back, until the rest fits; past it
/// still, channels are listed only (label, topic, type, count, first
/// and last time, marked `"omitted":true`) but for those the budget still
/// holds in full: first the channels that tracks, paths, scenes and panels
/// draw, then the others in order. Past the budget even as a list, the
/// last channels are only counted (`"channels_omitted"`).
pub fn data_json(logs: &[LogReport], title: &str, budget: usize) -> String {
    let mut o = String::from("{\"version\":1,\"title\":");
    o.push_str(&page_json(&title));
    o.push_str(",\"logs\":[");
    let parts: Vec<(String, String)> = logs
        .iter()
        .map(|l| (l.json_head(), l.json_tail()))
        .collect();
    let mut full: Vec<Vec<String>> = logs
        .iter()
        .map(|l| {
            (0..l.channels.len())
                .map(|i| l.channel_json(i, true))
                .collect()
        })
        .collect();
    // Bytes besides the channels: `,"channels_omitted":N` and `]}` included.
    let fixed = o.len()
        + 2
        + parts
            .iter()
            .map(|(h, t)| h.len() + t.len() + 32)
            .sum::<usize>();
    let mut full_bytes: usize = full.iter().flatten().map(|c| c.len() + 1).sum();
    // Past the budget, the extra series (the fields not plotted at load)
    // go first: from the last channel back, until the rest fits.
    'extra: for (li, l) in logs.iter().enumerate().rev() {
        for ci in (0..l.channels.len()).rev() {
            if fixed + full_bytes <= budget {
                break 'extra;
            }
            if l.channels[ci].extra.is_empty() {
                continue;
            }
            let bare = l.channel_json(ci, false);
            full_bytes -= full[li][ci].len() - bare.len();
            full[li][ci] = bare;
        }
    }
    // What each channel is: 2 in full, 1 listed, 0 counted only.
    let mut shown: Vec<Vec<u8>> = full.iter().map(|l| vec![2; l.len()]).collect();
    let mut stubs: Vec<Vec<String>> = Vec::new();
    if fixed + full_bytes > budget {
        stubs = logs
            .iter()
            .map(|l| (0..l.channels.len()).map(|i| l.channel_stub(i)).collect())
            .collect();
        // Listed in order while the budget lasts (the page refers to
        // channels by their index: only the last ones can go), and at
        // least up to the last channel drawn elsewhere, which is there in
        // full.
        let mut left = budget.saturating_sub(fixed);
        let drawn: Vec<Vec<usize>> = logs.iter().map(LogReport::drawn_channels).collect();
        for (li, l) in stubs.iter().enumerate() {
            let needed = drawn[li].last().map_or(0, |&c| c + 1);
            let mut cut = false;
            for (ci, s) in l.iter().enumerate() {
                let cost = s.len() + 1;
                cut = cut || (cost > left && ci >= needed);
                shown[li][ci] = u8::from(!cut);
                if !cut {
                    left = left.saturating_sub(cost);
                }
            }
            for &ci in &drawn[li] {
                if ci < shown[li].len() {
                    left = left.saturating_sub(
                        full[li][ci].len() - stubs[li][ci].len().min(full[li][ci].len()),
                    );
                    shown[li][ci] = 2;
                }
            }
        }
        for (li, l) in full.iter().enumerate() {
            for (ci, f) in l.iter().enumerate() {
                if shown[li][ci] == 1 {
                    let extra = f.len().saturating_sub(stubs[li][ci].len());
                    if extra <= left {
                        shown[li][ci] = 2;
                        left -= extra;
                    }
                }
            }
        }
    }
    for (li, (head, tail)) in parts.iter().enumerate() {
        if li > 0 {
            o.push(',');
        }
        o.push_str(head);
        o.push('[');
        let mut first = true;
        let mut omitted = 0usize;
        for (ci, what) in shown[li].iter().enumerate() {
            let text = match what {
                2 => &full[li][ci],
                1 => &stubs[li][ci],
                _ => {
                    omitted += 1;
                    continue;
                }
            };
            if !first {
                o.push(',');
            }
            first = false;
            o.push_str(text);
        }
        o.push(']');
        let _ = write!(o, ",\"channels_omitted\":{omitted}");
        o.push_str(tail);
    }
    o.push_str("]}");
    o
}

/// The largest page [`write_html`] writes, in bytes, whatever the logs:
/// past it, channels are listed without their data (see [`data_json`]).
pub const PAGE_BUDGET: usize = 9_500_000;

/// Writes the page showing `logs` (one section each, their plots
/// overlaid channel by channel, aligned by their start), titled `title`,
/// within [`PAGE_BUDGET`] bytes.
pub fn write_html(logs: &[LogReport], title: &str, out: &mut impl Write) -> io::Result<()> {
    write_html_within(logs, title, PAGE_BUDGET, out)
}

/// [`write_html`] within `budget` bytes (the data gets what the script,
/// the style and the title leave of it).
pub fn write_html_within(
    logs: &[LogReport],
    title: &str,
    budget: usize,
    out: &mut impl Write,
) -> io::Result<()> {
    let title_html = escape(title);
    let js = script();
    let shell = CSS.len() + js.len() + 2 * title_html.len() + 1024;
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"robolog-report {}\">\n\
         <title>robolog report: {}</title>\n<style>\n{CSS}</style>\n</head>\n\
         <body>\n<main id=\"app\">\
         <noscript>This report draws its plots with JavaScript: allow scripts for this file.</noscript></main>\n\
         <pre id=\"errors\"></pre>\n<script type=\"application/json\" id=\"report-data\">",
        env!("CARGO_PKG_VERSION"),
        title_html
    )?;
    out.write_all(data_json(logs, title, budget.saturating_sub(shell)).as_bytes())?;
    write!(
        out,
        "</script>\n<script type=\"module\">\n{js}</script>\n</body>\n</html>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names a module's top-level lines declare (`function f`,
    /// `class C`, `const x`, `let y`, exported or not).
    fn declared(text: &str) -> Vec<String> {
        text.lines()
            .filter_map(|l| {
                let l = l.strip_prefix("export ").unwrap_or(l);
                let rest = ["function ", "class ", "const ", "let ", "var "]
                    .iter()
                    .find_map(|k| l.strip_prefix(k))?;
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
                    .collect();
                (!name.is_empty()).then_some(name)
            })
            .collect()
    }

    #[test]
    fn modules_bundle_into_one_scope() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/js");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".js"))
            .collect();
        on_disk.sort();
        let mut listed: Vec<String> = MODULES.iter().map(|m| m.0.to_string()).collect();
        listed.sort();
        assert_eq!(on_disk, listed, "every module of assets/js is in MODULES");
        let mut names = std::collections::HashMap::new();
        for (i, (module, text)) in MODULES.iter().enumerate() {
            for name in declared(text) {
                if let Some(other) = names.insert(name.clone(), *module) {
                    panic!("{name} is declared at the top of both {other} and {module}");
                }
            }
            for line in text.lines().filter(|l| l.contains(" from './")) {
                // `import { a, b } from './m.js';`, on one line.
                let (what, from) = line
                    .strip_prefix("import { ")
                    .and_then(|l| l.strip_suffix("';"))
                    .and_then(|l| l.split_once(" } from './"))
                    .unwrap_or_else(|| panic!("{module}: an import not on one line: {line}"));
                let j = MODULES
                    .iter()
                    .position(|m| m.0 == from)
                    .unwrap_or_else(|| panic!("{module} imports the unknown {from}"));
                assert!(j < i, "{module} imports {from}, which comes after it");
                let exported = declared(
                    &MODULES[j]
                        .1
                        .lines()
                        .filter(|l| l.starts_with("export "))
                        .collect::<Vec<_>>()
                        .join("\n"),
                );
                for name in what.split(", ") {
                    assert!(
                        exported.iter().any(|e| e == name),
                        "{from} does not export {name}"
                    );
                }
            }
        }
        let js = script();
        assert!(
            !js.lines()
                .any(|l| l.starts_with("import ") || l.starts_with("export ")),
            "the bundle holds no module syntax"
        );
        assert!(
            js.contains("class Plot {") && js.contains("const data = readData('report-data');")
        );
        assert!(!js.contains("@typedef"), "no JSDoc in the page");
        assert!(!js.contains('`'), "no template literal");
        // The bundle parses as a module, where Node is there to say.
        let file =
            std::env::temp_dir().join(format!("robolog-report-bundle-{}.mjs", std::process::id()));
        std::fs::write(&file, &js).unwrap();
        let out = std::process::Command::new("node")
            .arg("--check")
            .arg(&file)
            .output();
        let _ = std::fs::remove_file(&file);
        match out {
            Ok(o) => assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr)),
            Err(e) => eprintln!("note: the bundle not parsed: no node ({e})"),
        }
    }

    #[test]
    fn data_never_closes_its_script() {
        let j = data_json(&[], "a</script>b", PAGE_BUDGET);
        assert!(!j.contains("</"));
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(v["title"], "a</script>b");
    }
}
