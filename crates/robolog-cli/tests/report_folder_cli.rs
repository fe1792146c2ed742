//! `robolog report FOLDER`: a folder that is not a log stands for the logs
//! in it (sorted by path, in subfolders too; a ROS 2 bag's folder is one
//! log), other files skipped with a note; a folder without a log is a
//! usage error. Each log's span is where the bulk of its messages lie:
//! corpus `sample_log_small.ulg`, whose `mission` message comes twenty
//! minutes after the rest, keeps the span of the others.

mod common;

use std::path::Path;

use common::{corpus, robolog, scratch_dir, testdata, text};

/// The page's data (the JSON of its `report-data` script element).
fn page_data(page: &Path) -> serde_json::Value {
    let page = std::fs::read_to_string(page).unwrap();
    let open = "<script type=\"application/json\" id=\"report-data\">";
    let at = page.find(open).unwrap() + open.len();
    let end = at + page[at..].find("</script>").unwrap();
    serde_json::from_str(&page[at..end]).unwrap()
}

/// `robolog info LOG`'s message count, first and last time (ns).
fn info(log: &Path) -> (u64, i64, i64) {
    let out = robolog().arg("info").arg(log).assert().success();
    let said = text(&out.get_output().stdout);
    let field = |name: &str| {
        said.lines()
            .find_map(|l| l.strip_prefix(name))
            .unwrap_or_else(|| panic!("no {name} in {said}"))
            .split_whitespace()
            .next()
            .unwrap()
            .to_string()
    };
    // `112.500176000 s since boot`: whole nanoseconds.
    let ns = |s: String| s.replace('.', "").parse::<i64>().unwrap();
    (
        field("messages:").parse().unwrap(),
        ns(field("start:")),
        ns(field("end:")),
    )
}

#[test]
fn a_corpus_folder_is_one_page_with_each_log_once() {
    let Some(dir) = corpus("ulog/pyulog") else {
        return;
    };
    let out = scratch_dir("report-folder", "pyulog").join("p.html");
    let run = robolog()
        .arg("report")
        .arg(&dir)
        .arg("-o")
        .arg(&out)
        .arg("--no-check")
        .assert()
        .success();
    // The pyulog expected-output texts are not logs: skipped, each said.
    let said = text(&run.get_output().stderr);
    assert_eq!(said.matches(": skipped: not a log").count(), 18, "{said}");
    assert!(
        said.contains("sample_info.txt: skipped: not a log"),
        "{said}"
    );
    let data = page_data(&out);
    let logs = data["logs"].as_array().unwrap();
    let names: Vec<&str> = logs.iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "sample.ulg",
            "sample_appended.ulg",
            "sample_appended_multiple.ulg",
            "sample_log_small.ulg",
            "sample_logging_tagged_and_default_params.ulg",
            "sample_px4_events.ulg",
        ]
    );
    for log in logs {
        let path = dir.join(log["name"].as_str().unwrap());
        let (messages, first, last) = info(&path);
        let name = &log["name"];
        assert_eq!(log["messages"], messages, "{name}");
        assert_eq!(log["log_duration"], last - first, "{name}");
        // The timeline counts every message but the outliers.
        let outside: u64 = (log.get("outliers").and_then(|o| o.as_array()))
            .map_or(0, |o| o.iter().map(|g| g["count"].as_u64().unwrap()).sum());
        assert_eq!(density_total(log), messages - outside, "{name}");
        if outside == 0 {
            // The span holds the log's own.
            let start = log["start"].as_i64().unwrap();
            assert!(start <= first, "{name}");
            assert!(start + log["duration"].as_i64().unwrap() >= last, "{name}");
        }
    }
    // The corpus README: `mission` ~19 min after everything else, which
    // spans 20.3 s to 26.8 s after boot. The times below are pyulog
    // 1.3.0's timestamps (us): the span runs from `safety`'s first
    // message (19443729, the earliest within a second of the rest) to the
    // last message before `mission`'s (26825730); before it lie
    // test_motor at 0, position_setpoint_triplet at 1425101,
    // sensor_selection at 1733500 and vehicle_command at 8400835.
    let small = &logs[3];
    let start = small["start"].as_i64().unwrap();
    assert_eq!(start, 19_443_729_000);
    assert_eq!(start + small["duration"].as_i64().unwrap(), 26_825_730_000);
    assert_eq!(small["log_duration"], 1_174_058_246_000i64);
    let groups: Vec<(i64, i64, u64, Vec<&str>)> = (small["outliers"].as_array().unwrap())
        .iter()
        .map(|g| {
            (
                start + g["start"].as_i64().unwrap(),
                start + g["end"].as_i64().unwrap(),
                g["count"].as_u64().unwrap(),
                (g["topics"].as_array().unwrap().iter())
                    .map(|t| t.as_str().unwrap())
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        groups,
        [
            (
                0,
                1_733_500_000,
                3,
                vec![
                    "position_setpoint_triplet",
                    "sensor_selection",
                    "test_motor"
                ]
            ),
            (8_400_835_000, 8_400_835_000, 1, vec!["vehicle_command"]),
            (1_194_367_328_000, 1_194_367_328_000, 1, vec!["mission"]),
        ]
    );
    assert_eq!(density_total(small), 14_604 - 5);
}

/// The messages a log's timeline counts (its density runs: a count, or
/// `-k` for k empty buckets).
fn density_total(log: &serde_json::Value) -> u64 {
    (log["channels"].as_array().unwrap().iter())
        .flat_map(|c| c["density"].as_array().unwrap())
        .map(|d| d.as_i64().unwrap())
        .filter(|&d| d > 0)
        .sum::<i64>() as u64
}

#[test]
fn plots_align_at_a_topics_first_message() {
    let (Some(a), Some(b)) = (
        corpus("ulog/pyulog/sample.ulg"),
        corpus("ulog/pyulog/sample_appended.ulg"),
    ) else {
        return;
    };
    let bag = testdata("rosbag/sample.bag");
    let out = scratch_dir("report-folder", "align").join("p.html");
    let run = robolog()
        .arg("report")
        .args([&a, &b, &bag])
        .args(["--align", "vehicle_attitude", "--no-check", "-o"])
        .arg(&out)
        .assert()
        .success();
    // The first vehicle_attitude timestamps as pyulog 1.3.0 reads them
    // (us), on each log's clock.
    let data = page_data(&out);
    let logs = data["logs"].as_array().unwrap();
    for (log, want) in logs.iter().zip([112_574_307_000i64, 7_408_969_000]) {
        let at = log["start"].as_i64().unwrap() + log["align"].as_i64().unwrap();
        assert_eq!(at, want, "{}", log["name"]);
    }
    // The bag has no such topic: its plots count from its start, which
    // the page and stderr say.
    assert!(logs[2].get("align").is_none());
    assert!(
        (logs[2]["problems"].as_array().unwrap().iter())
            .any(|p| p["text"].as_str().unwrap().contains("vehicle_attitude"))
    );
    let said = text(&run.get_output().stderr);
    assert!(
        said.contains("sample.bag: no message on vehicle_attitude"),
        "{said}"
    );
}

#[test]
fn bag_folders_are_logs_and_subfolders_are_looked_into() {
    let dir = scratch_dir("report-folder", "mixed");
    std::fs::create_dir_all(dir.join("b/c")).unwrap();
    std::fs::copy(testdata("rosbag/sample.bag"), dir.join("b/c/z.bag")).unwrap();
    std::fs::copy(testdata("ulog/features.ulg"), dir.join("a.ulg")).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a log\n").unwrap();
    let mut want = vec!["a.ulg".to_string()];
    // A ROS 2 bag's folder (its metadata.yaml and storage file) is one log.
    if let Some(bag) = corpus("rosbag2/mcap/cdr_test") {
        std::fs::create_dir_all(dir.join("b/bag2")).unwrap();
        for f in ["metadata.yaml", "cdr_test_0.mcap"] {
            std::fs::write(
                dir.join("b/bag2").join(f),
                std::fs::read(bag.join(f)).unwrap(),
            )
            .unwrap();
        }
        want.push("bag2".into());
    }
    want.push("z.bag".into());
    let out = scratch_dir("report-folder", "mixed-out").join("p.html");
    let run = robolog()
        .arg("report")
        .arg(&dir)
        .arg("-o")
        .arg(&out)
        .arg("--no-check")
        .assert()
        .success();
    let said = text(&run.get_output().stderr);
    assert!(said.contains("notes.txt: skipped: not a log"), "{said}");
    assert!(!said.contains("metadata.yaml"), "{said}");
    let data = page_data(&out);
    let names: Vec<&str> = (data["logs"].as_array().unwrap().iter())
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, want);
}

#[test]
fn a_folder_without_a_log_is_a_usage_error() {
    let dir = scratch_dir("report-folder", "empty");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/readme.md"), "# no log here\n").unwrap();
    let out = dir.join("p.html");
    let run = robolog()
        .arg("report")
        .arg(&dir)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2);
    let said = text(&run.get_output().stderr);
    assert!(said.contains("no log in this folder"), "{said}");
    assert!(!out.exists());
}
