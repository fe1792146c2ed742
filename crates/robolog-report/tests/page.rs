//! The page around the data: no text of a log can break the page's
//! script, extreme values read back exactly, and the page keeps to its
//! size budget whatever the number of channels.

use robolog_report::{
    Band, Channel, CloudFrame, CloudView, Event, LogReport, PAGE_BUDGET, Panel, Parameter, Problem,
    Range, ReportOptions, Scene, SceneObject, Series, Strip, Thumbnail, Track, XyPath, data_json,
    report_log, write_html, write_html_within,
};

/// Text that, raw in a script element, ends it or leads the HTML parser
/// into the states that swallow the page's own script.
const HOSTILE: [&str; 4] = ["<!--", "<script", "</script", "]]>"];

/// Every hostile sequence (and `&`, `>`, U+2028 and U+2029) in one string,
/// tagged so that each string of the page is told apart; no `-->` after
/// the `<!--`, which would let the parser out of its escaped states.
fn hostile(tag: &str) -> String {
    format!("{tag} <!-- a <script> b </script> c ]]> & \u{2028}\u{2029}")
}

/// The data between `<script type="application/json" id="report-data">`
/// and `</script>`, and the whole text of every script element.
fn scripts(page: &str) -> (String, Vec<String>) {
    let open = "<script type=\"application/json\" id=\"report-data\">";
    let at = page.find(open).expect("the data's script element") + open.len();
    let end = at + page[at..].find("</script>").expect("the end of the data");
    let mut all = Vec::new();
    let mut rest = page;
    while let Some(i) = rest.find("<script") {
        let body = &rest[i..];
        let start = body.find('>').unwrap() + 1;
        let stop = body.find("</script>").expect("a closed script element");
        all.push(body[start..stop].to_string());
        rest = &body[stop + 9..];
    }
    (page[at..end].to_string(), all)
}

/// Every string in a JSON value.
fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// A ULog whose topic, field names, logged messages, info and parameters
/// carry the hostile text.
fn hostile_ulog() -> Vec<u8> {
    let mut w = ulogfile::write::Writer::new(Vec::new(), 1_000).unwrap();
    w.add_info_str("sys_name", &hostile("info")).unwrap();
    w.add_parameter("MPC_<!--", &ulogfile::InfoValue::Float(1.5))
        .unwrap();
    w.add_format("t<!--<script:uint64_t timestamp;float x_<script;float y_]]>;")
        .unwrap();
    let id = w.add_subscription("t<!--<script", 0).unwrap();
    for k in 0..3u64 {
        let mut s = (1_000 + k * 1_000_000).to_le_bytes().to_vec();
        s.extend_from_slice(&(k as f32).to_le_bytes());
        s.extend_from_slice(&(2.0 * k as f32).to_le_bytes());
        w.write_data(id, &s).unwrap();
        w.write_logging(3, 1_500 + k * 1_000_000, &hostile("logged"))
            .unwrap();
    }
    w.finish().unwrap()
}

/// A report whose every string holds the hostile text (as any log's
/// names, types, messages, metadata, actor types and problems reach it).
fn hostile_report() -> LogReport {
    let series = |name: &str| Series::from_points(hostile(name), vec![(0, 1.0), (10, 2.0)]);
    let channel = Channel {
        label: hostile("label"),
        topic: hostile("topic"),
        type_name: hostile("type"),
        message_count: 2,
        start: Some(0),
        end: Some(10),
        density: vec![1, 0, 1],
        gaps: vec![],
        jumps: vec![],
        series: vec![series("field")],
        extra: vec![],
        fields_skipped: 0,
    };
    let pts = vec![(0, 1.0, 2.0), (10, 3.0, 4.0)];
    LogReport {
        name: hostile("name"),
        path: hostile("path"),
        format: hostile("format"),
        format_id: logcore::Format::ULog,
        version: hostile("version"),
        size: 1,
        clock: hostile("clock"),
        start: 0,
        end: 10,
        start_utc: Some(hostile("utc")),
        log_start: 0,
        log_end: 10,
        outliers: Vec::new(),
        align: None,
        range: Some(Range {
            start: Some(0),
            end: None,
            asked: hostile("asked"),
            messages: 2,
        }),
        message_count: 2,
        metadata: vec![(hostile("key"), hostile("value"))],
        channels: vec![channel],
        problems: vec![Problem {
            t: Some(5),
            text: hostile("problem"),
        }],
        problems_dropped: 0,
        check_passed: Some(false),
        tracks: vec![Track {
            channel: 0,
            points: pts.clone(),
        }],
        paths: vec![XyPath {
            channel: 0,
            points: pts.clone(),
            title: Some(hostile("ego actor vehicle.<!--")),
        }],
        strips: vec![Strip {
            channel: 0,
            frames: vec![Thumbnail {
                t: 1,
                width: 1,
                height: 1,
                source_width: 1,
                source_height: 1,
                jpeg: b"<!--<script></script>".to_vec(),
            }],
        }],
        clouds: vec![CloudView {
            channel: 0,
            scan: false,
            color: Some(hostile("color")),
            frames: vec![CloudFrame {
                t: 1,
                points: 1,
                x: vec![1.0],
                y: vec![2.0],
                c: vec![3.0],
            }],
        }],
        scenes: vec![Scene {
            channel: 0,
            objects: vec![SceneObject { id: 1, points: pts }],
        }],
        bands: vec![Band {
            name: hostile("band"),
            spans: vec![(0, 10, hostile("span"))],
        }],
        events: vec![Event {
            t: 1,
            level: hostile("level"),
            text: hostile("event"),
        }],
        parameters: Some((
            hostile("note"),
            vec![Parameter {
                name: hostile("param"),
                value: hostile("pvalue"),
                default: Some(hostile("default")),
                t: None,
            }],
        )),
        panels: vec![Panel {
            title: hostile("panel"),
            series: vec![(0, 0, hostile("panel series"))],
            own: vec![series("own")],
        }],
        flight: None,
    }
}

/// A series of `points` (f64 values).
fn some_series(points: &[(i64, f64)]) -> Series {
    Series::from_points("x", points.to_vec())
}

#[test]
fn no_text_of_a_log_breaks_the_page_script() {
    let dir = std::env::temp_dir().join(format!("robolog-report-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ulog = dir.join("hostile.ulg");
    std::fs::write(&ulog, hostile_ulog()).unwrap();
    let log = robolog::open(&ulog).unwrap();
    let opts = ReportOptions {
        check: false,
        ..ReportOptions::default()
    };
    let from_ulog = report_log(&log, &ulog, &opts).unwrap();
    // The ULog's strings reached the report.
    assert_eq!(from_ulog.channels[0].topic, "t<!--<script");
    let names: Vec<&str> = from_ulog.channels[0]
        .series
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(names, ["x_<script", "y_]]>"]);
    assert_eq!(from_ulog.events.len(), 3);
    assert_eq!(from_ulog.events[0].text, hostile("logged"));
    assert!(
        from_ulog
            .metadata
            .iter()
            .any(|(_, v)| *v == hostile("info"))
    );

    let logs = [from_ulog, hostile_report()];
    let title = hostile("title");
    let mut page = Vec::new();
    write_html(&logs, &title, &mut page).unwrap();
    let page = String::from_utf8(page).unwrap();
    let (data, all) = scripts(&page);
    assert_eq!(all.len(), 2, "the data and the page's own script");
    for text in &all {
        for bad in HOSTILE {
            assert!(!text.contains(bad), "a script element holds {bad:?}");
        }
    }
    assert!(!data.contains(['<', '>', '&', '\u{2028}', '\u{2029}']));
    // The data reads back as the same strings, every one of them.
    let v: serde_json::Value = serde_json::from_str(&data).unwrap();
    let mut got = Vec::new();
    strings(&v, &mut got);
    let mut want = vec![
        title.clone(),
        "t<!--<script".to_string(),
        "x_<script".to_string(),
        "y_]]>".to_string(),
        hostile("logged"),
        hostile("info"),
    ];
    for tag in [
        "name",
        "path",
        "format",
        "version",
        "clock",
        "utc",
        "key",
        "value",
        "label",
        "topic",
        "type",
        "field",
        "problem",
        "ego actor vehicle.<!--",
        "band",
        "span",
        "level",
        "event",
        "note",
        "param",
        "pvalue",
        "default",
        "panel",
        "panel series",
        "own",
    ] {
        want.push(hostile(tag));
    }
    for w in &want {
        assert!(got.contains(w), "{w:?} is not in the page's data");
    }
    assert_eq!(
        v,
        serde_json::from_str::<serde_json::Value>(&data_json(&logs, &title, PAGE_BUDGET)).unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn extreme_values_read_back_exactly() {
    let mut points: Vec<(i64, f64)> = (0..50).map(|i| (i, i as f64)).collect();
    points.push((50, f64::MAX));
    points.push((51, -f64::MAX));
    points.push((52, f64::INFINITY));
    points.push((53, f64::NEG_INFINITY));
    let mut report = hostile_report();
    report.channels[0].series = vec![some_series(&points)];
    let data = data_json(&[report], "t", PAGE_BUDGET);
    let v: serde_json::Value = serde_json::from_str(&data).unwrap();
    let s = &v["logs"][0]["channels"][0]["series"][0];
    let values = s["v"].as_array().unwrap();
    assert_eq!(values.len(), 54);
    assert_eq!(values[49].as_f64(), Some(49.0));
    assert_eq!(values[50].as_f64(), Some(f64::MAX));
    assert_eq!(values[51].as_f64(), Some(-f64::MAX));
    assert_eq!(values[52], "Infinity");
    assert_eq!(values[53], "-Infinity");
    assert!(
        data.contains("1.7976931348623157e308,-1.7976931348623157e308,\"Infinity\",\"-Infinity\"]")
    );
}

/// A report of `n` channels, each of two series of three points; the
/// fourth drawn in a panel.
fn many_channels(n: usize) -> LogReport {
    let mut r = hostile_report();
    r.name = "many".into();
    r.tracks.clear();
    r.paths.clear();
    r.scenes.clear();
    r.panels = vec![Panel {
        title: "panel".into(),
        series: vec![(3, 0, "fourth".into())],
        own: vec![],
    }];
    let template = r.channels[0].clone();
    r.channels = (0..n)
        .map(|i| Channel {
            label: format!("/sensor_{i:05}/value"),
            topic: format!("/sensor_{i:05}/value"),
            type_name: "hostile/Pair".into(),
            series: vec![
                some_series(&[(0, i as f64), (5, 1.0), (10, 2.0)]),
                some_series(&[(0, 0.5), (5, 1.5), (10, 2.5)]),
            ],
            ..template.clone()
        })
        .collect();
    r
}

#[test]
fn the_page_keeps_to_its_budget_whatever_the_channels() {
    let report = many_channels(2_000);
    let mut full = Vec::new();
    write_html_within(std::slice::from_ref(&report), "many", usize::MAX, &mut full).unwrap();
    assert!(full.len() > 400_000, "{}", full.len());
    for budget in [300_000usize, 150_000, 90_000] {
        let mut page = Vec::new();
        write_html_within(std::slice::from_ref(&report), "many", budget, &mut page).unwrap();
        assert!(page.len() <= budget, "{} > {budget}", page.len());
        let page = String::from_utf8(page).unwrap();
        let (data, _) = scripts(&page);
        let v: serde_json::Value = serde_json::from_str(&data).unwrap();
        let log = &v["logs"][0];
        let channels = log["channels"].as_array().unwrap();
        let omitted = log["channels_omitted"].as_u64().unwrap() as usize;
        // Every channel listed or counted, in order.
        assert_eq!(channels.len() + omitted, 2_000, "budget {budget}");
        for (i, c) in channels.iter().enumerate() {
            assert_eq!(c["topic"], format!("/sensor_{i:05}/value"));
        }
        let full: Vec<&serde_json::Value> = channels
            .iter()
            .filter(|c| c.get("omitted").is_none())
            .collect();
        assert!(
            !full.is_empty() && full.len() < channels.len(),
            "budget {budget}"
        );
        // The panel's channel is there in full.
        assert_eq!(channels[3]["series"].as_array().map(Vec::len), Some(2));
        if budget == 90_000 {
            assert!(omitted > 0);
        }
    }
    // Within the budget, every channel in full, as before.
    let mut page = Vec::new();
    write_html_within(&[many_channels(50)], "few", PAGE_BUDGET, &mut page).unwrap();
    let page = String::from_utf8(page).unwrap();
    assert!(!page.contains("\"omitted\":true"));
    assert!(page.contains("\"channels_omitted\":0"));
}

/// The page's `yRange` (its value axis), imported from its module by
/// Node where it is there.
fn y_range(values: &str) -> Option<(f64, f64, bool)> {
    let module = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/js/plot.js");
    // The module's imports that touch the page (`window`) are not run:
    // `plot.js` imports `timeaxis.js`, which needs a window; a stand-in is
    // enough for `yRange`.
    let script = format!(
        "globalThis.window = globalThis; \
         const {{ yRange }} = await import({:?}); \
         const r = yRange({values}); \
         console.log(JSON.stringify([r.lo, r.hi, r.clipped]));",
        format!("file://{module}")
    );
    let out = match std::process::Command::new("node")
        .args(["--input-type=module", "-e"])
        .arg(&script)
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            eprintln!("note: the page's value axis not checked: no node ({e})");
            return None;
        }
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: (f64, f64, bool) = serde_json::from_slice(&out.stdout).unwrap();
    Some(v)
}

#[test]
fn extreme_values_leave_the_rest_of_a_plot_visible() {
    let pad = (49.0f64 / 2.0 - 0.0 / 2.0) * 0.1;
    // 0..49 and both largest doubles: the axis spans 0..49, the extremes
    // are drawn beyond it.
    let series = "Array.from({length: 50}, (_, i) => i).concat([1.7976931348623157e308, -1.7976931348623157e308])";
    if let Some(r) = y_range(series) {
        assert_eq!(r, (0.0 - pad, 49.0 + pad, true));
    }
    // Without extremes: every value, as before.
    if let Some(r) = y_range("Array.from({length: 50}, (_, i) => i)") {
        assert_eq!(r, (0.0 - pad, 49.0 + pad, false));
    }
    // A flag that is mostly 0: its 1 is not an outlier.
    if let Some(r) = y_range("new Array(300).fill(0).concat([1])") {
        assert_eq!(r, (-0.05, 1.05, false));
    }
    // Few values: only a millionfold extreme is cut.
    if let Some(r) = y_range("[17, 17.5, 18, 17.2, 17.8, 400]") {
        assert!(!r.2);
        assert_eq!(r.1, 400.0 + (400.0f64 / 2.0 - 17.0 / 2.0) * 0.1);
    }
    if let Some(r) = y_range("[0, 1, 2, 3, 4, 1.7976931348623157e308]") {
        let pad = (4.0f64 / 2.0 - 0.0 / 2.0) * 0.1;
        assert_eq!(r, (0.0 - pad, 4.0 + pad, true));
    }
    // Only the two extremes: a finite axis over both.
    if let Some(r) = y_range("[1.7976931348623157e308, -1.7976931348623157e308]") {
        assert_eq!(r, (-f64::MAX, f64::MAX, false));
    }
}
