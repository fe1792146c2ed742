//! The fields not plotted at load (here: every field but those `--field`
//! asks for) are carried for the page's field search, reduced per bucket:
//! each bucket of the span shown holds the exact smallest and largest of
//! the field's samples in it (checked against the samples `ulogfile`
//! reads, as `tests/values.rs` does for the plotted ones), and the page
//! keeps to its size budget, the extra fields reduced first.

use std::collections::HashMap;
use std::path::PathBuf;

use robolog_report::{
    LogReport, MIN_EXTRA_POINTS, PAGE_BUDGET, ReportOptions, Series, fit_budget, report_log,
    write_html_within,
};
use ulogfile::ULog;

fn logs() -> Vec<PathBuf> {
    let root = robolog_testkit::workspace_root();
    let mut out = vec![root.join("testdata/ulog/features.ulg")];
    out.extend(robolog_testkit::corpus("ulog/pyulog/sample_log_small.ulg"));
    out
}

const MAX_POINTS: usize = 400;

fn report(path: &PathBuf, fields: &[&str]) -> LogReport {
    let opts = ReportOptions {
        check: false,
        max_points: MAX_POINTS,
        fields: fields.iter().map(|f| f.to_string()).collect(),
        ..ReportOptions::default()
    };
    report_log(&robolog::open(path).unwrap(), path, &opts).unwrap()
}

#[test]
fn extra_fields_hold_each_buckets_min_and_max() {
    let (mut compared, mut reduced, mut buckets_checked) = (0, 0, 0);
    for path in logs() {
        let bytes = std::fs::read(&path).unwrap();
        let ulog = ULog::parse(&bytes).unwrap();
        // Only `x` plotted: every other field is extra.
        let report = report(&path, &["x"]);
        let (t0, t1) = (report.start, report.end);
        let n = (MAX_POINTS / 2) as i128;
        let bucket = |t: i64| (i128::from(t - t0) * n) / (i128::from(t1 - t0) + 1);
        let mut names: HashMap<&str, usize> = HashMap::new();
        for s in &ulog.subscriptions {
            *names.entry(s.name.as_str()).or_default() += 1;
        }
        for sub in &ulog.subscriptions {
            if names[sub.name.as_str()] > 1 {
                continue;
            }
            let ch = report
                .channels
                .iter()
                .find(|c| c.topic == sub.name.as_str())
                .unwrap();
            assert!(
                ch.series.iter().all(|s| s.name == "x"),
                "{}: plotted {:?}",
                ch.label,
                ch.series.iter().map(|s| &s.name).collect::<Vec<_>>()
            );
            for series in &ch.extra {
                let Some(field) = sub.field(&series.name) else {
                    assert!(series.name.contains(':'), "{}: {}", ch.label, series.name);
                    continue;
                };
                let want: Vec<(i64, f64)> = sub
                    .samples
                    .iter()
                    .filter_map(|s| {
                        let v = field.get(&s)?.as_f64();
                        (!v.is_nan()).then_some((s.timestamp as i64 * 1000, v))
                    })
                    .collect();
                let where_ = format!("{}: {}/{}", path.display(), ch.label, series.name);
                compared += 1;
                if !series.reduced {
                    assert_eq!(series.points, want, "{where_}");
                    continue;
                }
                reduced += 1;
                assert!(series.points.len() <= MAX_POINTS, "{where_}");
                let samples: std::collections::HashSet<(i64, u64)> =
                    want.iter().map(|p| (p.0, p.1.to_bits())).collect();
                assert!(
                    series
                        .points
                        .iter()
                        .all(|p| samples.contains(&(p.0, p.1.to_bits()))),
                    "{where_}: a point that is no sample"
                );
                // Per bucket: the exact smallest and largest sample.
                let mut by: HashMap<i128, (f64, f64)> = HashMap::new();
                for &(t, v) in &want {
                    let e = by.entry(bucket(t)).or_insert((v, v));
                    *e = (e.0.min(v), e.1.max(v));
                }
                let mut got: HashMap<i128, (f64, f64)> = HashMap::new();
                for &(t, v) in &series.points {
                    let e = got.entry(bucket(t)).or_insert((v, v));
                    *e = (e.0.min(v), e.1.max(v));
                }
                assert_eq!(got, by, "{where_}");
                buckets_checked += by.len();
            }
        }
    }
    assert!(compared > 20, "{compared} extra series compared");
    assert!(reduced > 0, "no extra series was reduced");
    eprintln!("{compared} extra series compared, {reduced} reduced ({buckets_checked} buckets)");
}

#[test]
fn without_fields_asked_the_extra_are_only_those_past_the_limit() {
    let path = robolog_testkit::workspace_root().join("testdata/ulog/features.ulg");
    let all = report(&path, &[]);
    assert!(all.channels.iter().all(|c| c.extra.is_empty()));
    // With two fields a channel, the others are extra, in the order met.
    let opts = ReportOptions {
        check: false,
        max_fields: 2,
        ..ReportOptions::default()
    };
    let two = report_log(&robolog::open(&path).unwrap(), &path, &opts).unwrap();
    for (a, b) in all.channels.iter().zip(&two.channels) {
        let names = |s: &[Series]| s.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
        let mut both = names(&b.series);
        both.extend(names(&b.extra));
        assert_eq!(names(&a.series), both, "{}", a.label);
        assert!(b.series.len() <= 2);
    }
}

#[test]
fn a_large_log_keeps_to_the_budget_extra_fields_first() {
    // 200 channels of 10 extra fields of 2000 points each (4 million
    // points) and two plotted fields of 500: the extra fields are reduced
    // before the plotted ones, to an equal share of what those leave.
    let path = robolog_testkit::workspace_root().join("testdata/ulog/features.ulg");
    let mut big = report(&path, &[]);
    let template = big.channels[0].clone();
    let (start, span) = (big.start, big.end - big.start);
    let points = |k: usize, n: usize| -> Vec<(i64, f64)> {
        (0..n)
            .map(|i| {
                let t = start + (i as i64) * span / n as i64;
                (t, ((i * 7919 + k) % 1009) as f64 * 0.25)
            })
            .collect()
    };
    big.channels = (0..200)
        .map(|c| {
            let mut ch = template.clone();
            ch.label = format!("/big_{c:03}");
            ch.topic = ch.label.clone();
            ch.series = (0..2)
                .map(|k| Series::from_points(format!("shown{k}"), points(k, 500)))
                .collect();
            ch.extra = (0..10)
                .map(|k| Series::from_points(format!("more{k}"), points(k, 2000)))
                .collect();
            ch
        })
        .collect();
    let mut logs = vec![big];
    let budget = 400_000;
    fit_budget(&mut logs, budget);
    let total = logs[0].points() + logs[0].extra_points();
    assert!(total <= budget, "{total}");
    assert_eq!(logs[0].points(), 200 * 2 * 500);
    let ch = &logs[0].channels[7];
    assert!(
        ch.series
            .iter()
            .all(|s| s.points.len() == 500 && !s.reduced)
    );
    // (400,000 - 200,000) / 2000 extra fields: 100 points, 50 buckets.
    let extra = ch.extra[3].points.len();
    assert!((MIN_EXTRA_POINTS..=100).contains(&extra), "{extra}");
    assert!(ch.extra[3].reduced);
    // The extremes of a reduced extra field are the field's.
    let full = points(3, 2000);
    let hi = full.iter().map(|p| p.1).fold(f64::MIN, f64::max);
    let lo = full.iter().map(|p| p.1).fold(f64::MAX, f64::min);
    let got = &ch.extra[3].points;
    assert_eq!(got.iter().map(|p| p.1).fold(f64::MIN, f64::max), hi);
    assert_eq!(got.iter().map(|p| p.1).fold(f64::MAX, f64::min), lo);
    // The page within its bytes; past them the extra fields go before any
    // channel loses its plotted data.
    let mut whole = Vec::new();
    write_html_within(&logs, "big", usize::MAX, &mut whole).unwrap();
    let whole = String::from_utf8(whole).unwrap();
    assert_eq!(whole.matches("\"name\":\"more").count(), 200 * 10);
    for page_budget in [PAGE_BUDGET, whole.len() - 500_000] {
        let mut page = Vec::new();
        write_html_within(&logs, "big", page_budget, &mut page).unwrap();
        assert!(page.len() <= page_budget, "{} > {page_budget}", page.len());
        let page = String::from_utf8(page).unwrap();
        assert!(!page.contains("\"omitted\":true"), "budget {page_budget}");
        let extras = page.matches("\"name\":\"more").count();
        if page_budget < whole.len() {
            assert!(extras < 200 * 10, "{extras}");
        }
        eprintln!(
            "page budget {page_budget}: {} bytes, {extras} extra fields",
            page.len()
        );
    }
}
