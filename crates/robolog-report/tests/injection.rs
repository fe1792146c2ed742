//! No string of a log can run as code in the page: logs of every format
//! whose every string is a script injection (see `hostile/mod.rs`) give a
//! page where those strings are only JSON data, `\u`-escaped inside the
//! data's script element, and read back unchanged. `cargo xtask report`
//! opens the same logs' page in Chromium.

mod hostile;

use hostile::{MARK, PAYLOADS, name_payload, payload};
use robolog_report::{ReportOptions, write_report};

const DATA_OPEN: &str = "<script type=\"application/json\" id=\"report-data\">";

/// Every string in a JSON value, keys too.
fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                out.push(k.clone());
                strings(x, out);
            }
        }
        _ => {}
    }
}

#[test]
fn no_string_of_a_log_runs_as_code_in_the_page() {
    let dir = std::env::temp_dir().join(format!("robolog-report-injection-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let logs = hostile::write_logs(&dir).unwrap();
    let out = dir.join("page.html");
    // With the check: its findings quote the log's bytes too.
    let reports = write_report(&logs, &out, &ReportOptions::default(), false).unwrap();
    assert_eq!(reports.len(), 5);
    let page = std::fs::read_to_string(&out).unwrap();

    // The page's own elements only: two scripts (the data and the code),
    // no comment, and outside the data no trace of a payload as markup.
    assert_eq!(page.matches("<script").count(), 2);
    assert_eq!(page.matches("</script").count(), 2);
    assert!(!page.contains("<!--"));
    assert!(!page.contains(['\u{2028}', '\u{2029}']));
    let at = page.find(DATA_OPEN).unwrap() + DATA_OPEN.len();
    let end = at + page[at..].find("</script>").unwrap();
    let data = &page[at..end];
    assert!(!data.contains(['<', '>', '&']));
    // The title (the logs' file names) is text in the head, escaped.
    let t0 = page.find("<title>").unwrap() + "<title>".len();
    let t1 = page.find("</title>").unwrap();
    let title = &page[t0..t1];
    assert!(!title.contains(['<', '>']));
    assert_eq!(
        title.matches("&lt;img src=x onerror=__pwned=6&gt;").count(),
        5
    );
    // Elsewhere, no trace of a payload.
    let outside = format!("{}{}{}", &page[..t0], &page[t1..at], &page[end..]);
    for bad in ["<img", "<svg", "javascript:", "${", MARK] {
        assert!(
            !outside.contains(bad),
            "{bad:?} outside the data and the title"
        );
    }

    // Every string reads back unchanged from the data.
    let v: serde_json::Value = serde_json::from_str(data).unwrap();
    let mut got = Vec::new();
    strings(&v, &mut got);
    let holds = |want: &str| got.iter().any(|s| s.contains(want));
    let mut missing = Vec::new();
    for tag in TAGS {
        if !holds(&payload(tag)) {
            missing.push(tag.to_string());
        }
    }
    for tag in NAME_TAGS {
        if !holds(&name_payload(tag)) {
            missing.push(format!("name {tag}"));
        }
    }
    assert!(missing.is_empty(), "not in the page: {missing:?}");
    for p in PAYLOADS {
        assert!(holds(p));
    }
    // Fields named as the properties of JavaScript's objects are series
    // like any other (the browser check draws them).
    let names: Vec<&str> = v["logs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|l| l["channels"].as_array().unwrap())
        .flat_map(|c| {
            ["series", "extra"]
                .into_iter()
                .filter_map(|k| c[k].as_array())
                .flatten()
        })
        .filter_map(|s| s["name"].as_str())
        .collect();
    for p in ["__proto__", "constructor", "toString", "hasOwnProperty"] {
        assert!(names.contains(&p), "no series {p}: {names:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The strings written as [`payload`] that reach the page. Those the
/// page does not show: a bag's caller id, header frame ids, `/rosout`'s
/// file, function and topics, a diagnostic status's hardware id and
/// key-values, MCAP channel metadata, schema and message encodings,
/// string values of JSON messages, attachments, ULog multi-info, CARLA
/// actor attributes; they are written too, and the checks on the page
/// outside its data cover them.
const TAGS: [&str; 30] = [
    "rosbag2 topic",
    "rosbag2 odd topic",
    "distro",
    "custom key",
    "custom value",
    "serialization",
    "bag topic",
    "rosout name",
    "rosout msg",
    "diag name",
    "diag message",
    "mcap schema",
    "odd schema",
    "odd topic",
    "mcap field",
    "inner",
    "metadata name",
    "metadata key",
    "metadata value",
    "sys_name",
    "ver_hw",
    "ver_sw",
    "sys_os_name",
    "sys_toolchain",
    "info value",
    "logged",
    "tagged",
    "map",
    "vehicle.ego",
    "vehicle.other",
];
/// The strings written as [`name_payload`] that reach the page: a ROS
/// type, ULog info key, parameter, message and field names, and JSON
/// field names.
const NAME_TAGS: [&str; 10] = [
    "odd/msg/",
    "bag_type/",
    "nested",
    "info_key",
    "P",
    "topic",
    "a",
    "b",
    "x",
    "state",
];
