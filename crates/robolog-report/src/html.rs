//! The page: one HTML file with the style, the data (JSON in a
//! `<script type="application/json" id="report-data">`) and the script
//! that draws it, all inline. The script and style are this crate's own
//! (`assets/`), with no dependency and nothing fetched.

use std::io::{self, Write};

use crate::model::{LogReport, string};

const CSS: &str = include_str!("../assets/report.css");
const JS: &str = include_str!("../assets/report.js");

/// Escapes text for HTML element content.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The report's data: `{"version":1,"title":...,"logs":[...]}` as the
/// page holds it (with `</` written `<\/`, the same JSON, so no text
/// closes the script element).
pub fn data_json(logs: &[LogReport], title: &str) -> String {
    let mut o = String::from("{\"version\":1,\"title\":");
    string(&mut o, title);
    o.push_str(",\"logs\":[");
    for (i, l) in logs.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        o.push_str(&l.to_json());
    }
    o.push_str("]}");
    o.replace("</", "<\\/")
}

/// Writes the page showing `logs` (one section each, their plots
/// overlaid channel by channel, aligned by their start), titled `title`.
pub fn write_html(logs: &[LogReport], title: &str, out: &mut impl Write) -> io::Result<()> {
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"robolog-report {}\">\n\
         <title>robolog report: {}</title>\n<style>\n{CSS}</style>\n</head>\n\
         <body data-ready=\"0\" data-errors=\"0\">\n<main id=\"app\">\
         <noscript>This report draws its plots with JavaScript: allow scripts for this file.</noscript></main>\n\
         <pre id=\"errors\"></pre>\n<script type=\"application/json\" id=\"report-data\">",
        env!("CARGO_PKG_VERSION"),
        escape(title)
    )?;
    out.write_all(data_json(logs, title).as_bytes())?;
    write!(
        out,
        "</script>\n<script>\n{JS}</script>\n</body>\n</html>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_never_closes_its_script() {
        let j = data_json(&[], "a</script>b");
        assert!(!j.contains("</"));
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(v["title"], "a</script>b");
    }
}
