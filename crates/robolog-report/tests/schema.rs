//! The page's data against its JSON Schema (`schema/report-data.schema.json`)
//! and the page script's typedefs (`assets/js/types.js`) against the
//! schema: pages of testdata logs of every format and, when the corpus is
//! there, of logs with parameters, events, thumbnails, clouds and tracks.
//!
//! The validator here covers the part of JSON Schema (2020-12) the schema
//! uses, and refuses any other keyword, so the schema cannot say more than
//! is checked.

use std::path::PathBuf;

use robolog_report::{PAGE_BUDGET, ReportOptions, data_json, report_log};
use serde_json::{Map, Value};

const SCHEMA: &str = include_str!("../schema/report-data.schema.json");
const TYPES: &str = include_str!("../assets/js/types.js");

/// Keywords that only annotate.
const ANNOTATIONS: [&str; 4] = ["$schema", "$id", "title", "description"];

/// Where `value` (at `at`) breaks `schema`, appended to `errors`.
fn validate(root: &Value, schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    let Some(s) = schema.as_object() else {
        panic!("a schema that is not an object at {at}");
    };
    for (k, rule) in s {
        match k.as_str() {
            k if ANNOTATIONS.contains(&k) || k == "$defs" => {}
            "$ref" => {
                let name = rule
                    .as_str()
                    .and_then(|r| r.strip_prefix("#/$defs/"))
                    .expect("refs of the form #/$defs/NAME");
                validate(root, &root["$defs"][name], value, at, errors);
            }
            "type" => {
                let types: Vec<&str> = match rule {
                    Value::String(t) => vec![t.as_str()],
                    Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
                    _ => panic!("type at {at}"),
                };
                if !types.iter().any(|t| is_type(value, t)) {
                    errors.push(format!("{at}: {value:.60} is not {types:?}"));
                }
            }
            "const" => {
                if value != rule {
                    errors.push(format!("{at}: {value:.60} is not {rule}"));
                }
            }
            "enum" => {
                if !rule.as_array().is_some_and(|e| e.contains(value)) {
                    errors.push(format!("{at}: {value:.60} is not one of {rule}"));
                }
            }
            "minimum" => {
                if value
                    .as_f64()
                    .zip(rule.as_f64())
                    .is_some_and(|(v, m)| v < m)
                {
                    errors.push(format!("{at}: {value} is below {rule}"));
                }
            }
            "anyOf" => {
                let ok = rule.as_array().expect("anyOf: a list").iter().any(|alt| {
                    let mut e = Vec::new();
                    validate(root, alt, value, at, &mut e);
                    e.is_empty()
                });
                if !ok {
                    errors.push(format!("{at}: {value:.60} matches none of anyOf"));
                }
            }
            "required" => {
                if let Some(o) = value.as_object() {
                    for name in rule.as_array().expect("required: a list") {
                        let name = name.as_str().expect("required names");
                        if !o.contains_key(name) {
                            errors.push(format!("{at}: no {name:?}"));
                        }
                    }
                }
            }
            "properties" => {
                if let Some(o) = value.as_object() {
                    for (name, sub) in rule.as_object().expect("properties: an object") {
                        if let Some(v) = o.get(name) {
                            validate(root, sub, v, &format!("{at}.{name}"), errors);
                        }
                    }
                }
            }
            "additionalProperties" => {
                assert_eq!(
                    rule,
                    &Value::Bool(false),
                    "only additionalProperties: false"
                );
                let known = s.get("properties").and_then(Value::as_object);
                if let Some(o) = value.as_object() {
                    for name in o.keys() {
                        if !known.is_some_and(|p| p.contains_key(name)) {
                            errors.push(format!("{at}: {name:?} is not in the schema"));
                        }
                    }
                }
            }
            "items" => {
                if let Some(a) = value.as_array() {
                    let skip = s
                        .get("prefixItems")
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len);
                    for (i, v) in a.iter().enumerate().skip(skip) {
                        validate(root, rule, v, &format!("{at}[{i}]"), errors);
                    }
                }
            }
            "prefixItems" => {
                if let Some(a) = value.as_array() {
                    for (i, (sub, v)) in rule
                        .as_array()
                        .expect("prefixItems: a list")
                        .iter()
                        .zip(a)
                        .enumerate()
                    {
                        validate(root, sub, v, &format!("{at}[{i}]"), errors);
                    }
                }
            }
            "minItems" | "maxItems" => {
                if let Some(a) = value.as_array() {
                    let n = rule.as_u64().expect("a count") as usize;
                    if (k == "minItems" && a.len() < n) || (k == "maxItems" && a.len() > n) {
                        errors.push(format!("{at}: {} items, {k} {n}", a.len()));
                    }
                }
            }
            other => {
                panic!("the schema uses {other:?} at {at}, which this validator does not check")
            }
        }
    }
}

fn is_type(v: &Value, t: &str) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => panic!("unknown type {t}"),
    }
}

fn errors_of(data: &Value) -> Vec<String> {
    let schema: Value = serde_json::from_str(SCHEMA).unwrap();
    let mut errors = Vec::new();
    validate(&schema, &schema, data, "$", &mut errors);
    errors
}

fn logs() -> Vec<PathBuf> {
    let td = robolog_testkit::workspace_root().join("testdata");
    let mut out: Vec<PathBuf> = [
        "ulog/features.ulg",
        "rosbag/sample.bag",
        "mcap/chunked-zstd.mcap",
        "carla/scene-0.9.13.rec",
        "vellog/sensors.vel",
        "osi/highway_20240101T000000.0_gt_draft.mcap",
    ]
    .iter()
    .map(|f| td.join(f))
    .collect();
    out.extend(
        [
            "ulog/pyulog/sample.ulg",
            "ulog/pyulog/sample_log_small.ulg",
            "rosbag/swri-PointCloud2.bag",
            "sensors/ctu_ros_utils-compressed.bag",
            "sensors/rviz_satellite-sample.bag",
        ]
        .iter()
        .filter_map(|f| robolog_testkit::corpus(f)),
    );
    out
}

/// The page's data of `paths`, one page of them all.
fn page_data(paths: &[PathBuf], opts: &ReportOptions) -> Value {
    let reports: Vec<_> = paths
        .iter()
        .map(|p| report_log(&robolog::open(p).unwrap(), p, opts).unwrap())
        .collect();
    serde_json::from_str(&data_json(&reports, "schema", PAGE_BUDGET)).unwrap()
}

#[test]
fn pages_of_every_format_keep_to_the_schema() {
    let opts = ReportOptions {
        check: false,
        ..ReportOptions::default()
    };
    let paths = logs();
    let data = page_data(&paths, &opts);
    let errors = errors_of(&data);
    assert!(
        errors.is_empty(),
        "{}",
        errors[..errors.len().min(20)].join("\n")
    );
    // What the logs hold reached the check.
    let logs = data["logs"].as_array().unwrap();
    assert_eq!(logs.len(), paths.len());
    let any = |key: &str| {
        logs.iter()
            .any(|l| l[key].as_array().is_some_and(|a| !a.is_empty()))
    };
    assert!(any("channels") && any("panels") && any("scenes") && any("bands"));
    if paths.len() > 6 {
        assert!(any("events") && any("strips") && any("clouds") && any("tracks"));
        assert!(logs.iter().any(|l| l["parameters"].is_object()));
    }
    // A range, and a check's verdict.
    let opts = ReportOptions {
        start: Some("0.5".parse().unwrap()),
        end: Some("1.5s".parse().unwrap()),
        ..ReportOptions::default()
    };
    let data = page_data(&paths[1..2], &opts);
    assert!(data["logs"][0]["range"].is_object());
    assert!(data["logs"][0]["check_passed"].is_boolean());
    let errors = errors_of(&data);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    // Fields not asked for: the extra series of the field search.
    let opts = ReportOptions {
        check: false,
        fields: vec!["x".into()],
        ..ReportOptions::default()
    };
    let data = page_data(&paths[..2], &opts);
    assert!(
        data["logs"][1]["channels"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["extra"].is_array())
    );
    let errors = errors_of(&data);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn the_validator_finds_what_breaks_the_schema() {
    let opts = ReportOptions {
        check: false,
        ..ReportOptions::default()
    };
    let paths = logs();
    let good = page_data(&paths[..2], &opts);
    assert!(errors_of(&good).is_empty());
    let broken = |f: &dyn Fn(&mut Value)| {
        let mut d = good.clone();
        f(&mut d);
        errors_of(&d)
    };
    let e = broken(&|d| {
        d["logs"][0].as_object_mut().unwrap().remove("format_id");
    });
    assert_eq!(e, ["$.logs[0]: no \"format_id\""]);
    let e = broken(&|d| d["logs"][0]["format_id"] = "ULog".into());
    assert_eq!(e.len(), 1, "{e:?}");
    let ci = good["logs"][1]["channels"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| {
            c["series"][0]["v"]
                .as_array()
                .is_some_and(|v| !v.is_empty())
        })
        .expect("a channel with a series");
    let e = broken(&|d| d["logs"][1]["channels"][ci]["series"][0]["v"][0] = "NaN".into());
    assert_eq!(e.len(), 1, "{e:?}");
    let e = broken(&|d| d["logs"][1]["channels"][0]["unknown"] = 1.into());
    assert_eq!(
        e,
        ["$.logs[1].channels[0]: \"unknown\" is not in the schema"]
    );
    let e = broken(&|d| d["logs"][1]["channels"][0]["extra"] = 1.into());
    assert_eq!(e, ["$.logs[1].channels[0].extra: 1 is not [\"array\"]"]);
    let e = broken(&|d| d["logs"][1]["start"] = 1.5.into());
    assert_eq!(e.len(), 1, "{e:?}");
    let e = broken(&|d| d["version"] = 2.into());
    assert_eq!(e.len(), 1, "{e:?}");
}

/// `@typedef {object} NAME` blocks of types.js: NAME and its properties
/// (name, optional).
fn typedefs() -> Vec<(String, Vec<(String, bool)>)> {
    let mut out: Vec<(String, Vec<(String, bool)>)> = Vec::new();
    for line in TYPES.lines() {
        let line = line.trim_start_matches([' ', '*']).trim();
        if let Some(name) = line.strip_prefix("@typedef {object} ") {
            out.push((name.trim().to_string(), Vec::new()));
        } else if let Some(rest) = line.strip_prefix("@property {") {
            // The type may hold braces: skip to the brace that closes it.
            let mut depth = 1;
            let end = rest
                .char_indices()
                .find(|&(_, c)| {
                    depth += i32::from(c == '{') - i32::from(c == '}');
                    depth == 0
                })
                .map(|(i, _)| i)
                .expect("a closed type");
            let name = rest[end + 1..].split_whitespace().next().unwrap();
            let optional = name.starts_with('[');
            let name = name.trim_matches(['[', ']']).to_string();
            out.last_mut().expect("a typedef").1.push((name, optional));
        }
    }
    out
}

#[test]
fn the_script_types_match_the_schema() {
    let schema: Value = serde_json::from_str(SCHEMA).unwrap();
    let defs = &schema["$defs"];
    let log = &defs["log"]["properties"];
    // Each typedef and the schema object it types.
    let objects: [(&str, &Value); 16] = [
        ("ReportData", &schema),
        ("LogData", &defs["log"]),
        ("RangeData", &log["range"]),
        ("ChannelData", &defs["channel"]),
        ("SeriesData", &defs["series"]),
        ("Points3", &defs["points3"]),
        ("ProblemData", &log["problems"]["items"]),
        ("TrackData", &log["tracks"]["items"]),
        ("PathData", &log["paths"]["items"]),
        ("StripData", &defs["strip"]),
        ("ThumbData", &defs["strip"]["properties"]["frames"]["items"]),
        ("CloudData", &defs["cloud"]),
        (
            "CloudFrameData",
            &defs["cloud"]["properties"]["frames"]["items"],
        ),
        ("SceneData", &log["scenes"]["items"]),
        ("BandData", &log["bands"]["items"]),
        ("EventData", &log["events"]["items"]),
    ];
    let extra: [(&str, &Value); 9] = [
        ("OutlierData", &log["outliers"]["items"]),
        ("ParametersData", &log["parameters"]["anyOf"][1]),
        (
            "ParameterData",
            &log["parameters"]["anyOf"][1]["properties"]["list"]["items"],
        ),
        ("PanelData", &log["panels"]["items"]),
        ("FlightData", &defs["flight"]),
        (
            "FlightSummaryData",
            &defs["flight"]["properties"]["summary"],
        ),
        ("SpectrumData", &defs["spectrum"]),
        (
            "SpectrumAxisData",
            &defs["spectrum"]["properties"]["axes"]["items"],
        ),
        (
            "SpectrogramData",
            &defs["spectrum"]["properties"]["spectrogram"],
        ),
    ];
    let types = typedefs();
    assert_eq!(
        types.len(),
        objects.len() + extra.len(),
        "every typedef is compared"
    );
    for (name, object) in objects.iter().chain(&extra) {
        let (_, props) = types
            .iter()
            .find(|t| t.0 == *name)
            .unwrap_or_else(|| panic!("no typedef {name} in types.js"));
        let in_schema: &Map<String, Value> = object["properties"].as_object().unwrap();
        let required: Vec<&str> = object["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let mut want: Vec<(String, bool)> = in_schema
            .keys()
            .map(|k| (k.clone(), !required.contains(&k.as_str())))
            .collect();
        want.sort();
        let mut got = props.clone();
        got.sort();
        assert_eq!(
            got, want,
            "{name}: the typedef's properties (name, optional) against the schema's"
        );
    }
}
