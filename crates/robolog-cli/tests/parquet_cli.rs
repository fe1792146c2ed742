//! `robolog export --parquet`: several logs (files and folders) into one
//! Hive-partitioned dataset whose files, read back with the `parquet`
//! crate, hold the rows `robolog cat --json` prints for the same files
//! (count, log times, and every top-level scalar field); existing outputs
//! are refused with exit code 2 before anything is written, duplicate file
//! names get `~2`, and the CSV export is unchanged.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use common::{robolog, testdata, text};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value as Json;

fn scratch(name: &str) -> PathBuf {
    common::scratch_path("parquet", name)
}

/// Every file under `dir`, relative, sorted.
fn files(dir: &Path) -> BTreeSet<String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeSet<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).unwrap();
                out.insert(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = BTreeSet::new();
    if dir.exists() {
        walk(dir, dir, &mut out);
    }
    out
}

/// A Parquet file's rows (all batches, in order) and key-value metadata.
fn read(path: &Path) -> (Vec<RecordBatch>, BTreeMap<String, Option<String>>) {
    let f = File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let builder = ParquetRecordBatchReaderBuilder::try_new(f).unwrap();
    let kv = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .map(|kv| {
            kv.iter()
                .map(|k| (k.key.clone(), k.value.clone()))
                .collect()
        })
        .unwrap_or_default();
    let batches = builder
        .build()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    (batches, kv)
}

/// Row `i` of a scalar column as the JSON `cat --json` prints for it;
/// `None` for the other types.
fn scalar(a: &dyn Array, i: usize) -> Option<Json> {
    if a.is_null(i) {
        return Some(Json::Null);
    }
    Some(match a.data_type() {
        DataType::Boolean => Json::from(a.as_boolean().value(i)),
        DataType::Int8 => Json::from(a.as_primitive::<Int8Type>().value(i)),
        DataType::Int16 => Json::from(a.as_primitive::<Int16Type>().value(i)),
        DataType::Int32 => Json::from(a.as_primitive::<Int32Type>().value(i)),
        DataType::Int64 => Json::from(a.as_primitive::<Int64Type>().value(i)),
        DataType::UInt8 => Json::from(a.as_primitive::<UInt8Type>().value(i)),
        DataType::UInt16 => Json::from(a.as_primitive::<UInt16Type>().value(i)),
        DataType::UInt32 => Json::from(a.as_primitive::<UInt32Type>().value(i)),
        DataType::UInt64 => Json::from(a.as_primitive::<UInt64Type>().value(i)),
        DataType::Float32 => Json::from(f64::from(a.as_primitive::<Float32Type>().value(i))),
        DataType::Float64 => Json::from(a.as_primitive::<Float64Type>().value(i)),
        DataType::Utf8 => Json::from(a.as_string::<i32>().value(i)),
        _ => return None,
    })
}

/// Whether a scalar cell equals the value `cat --json` printed: numbers
/// as numbers (a float32 cell against its shortest decimal form, as the
/// JSON prints it; a float64 within the parser's last unit), a text cell against a string or, for a column of
/// values of mixed kinds, against the JSON the cell holds.
fn same(cell: &Json, dt: &DataType, printed: &Json) -> bool {
    match (cell, printed) {
        (Json::Number(a), Json::Number(b)) => match dt {
            DataType::Float32 => b
                .as_f64()
                .is_some_and(|b| f64::from(b as f32) == a.as_f64().unwrap()),
            // serde_json's default parser, which read the `cat --json`
            // line, may land one unit in the last place off for long
            // fractions.
            DataType::Float64 => match (a.as_f64(), b.as_f64()) {
                (Some(a), Some(b)) => a == b || (a - b).abs() <= f64::EPSILON * b.abs(),
                _ => false,
            },
            _ => a == b || a.as_f64() == b.as_f64(),
        },
        // A message without fields (std_msgs/Empty) is `true` where present.
        (Json::Bool(true), Json::Object(o)) if o.is_empty() => *dt == DataType::Boolean,
        (Json::String(s), other) if !other.is_string() => {
            serde_json::from_str::<Json>(s).is_ok_and(|v| v == *other)
        }
        (a, b) => a == b,
    }
}

/// Compares row `i` of `a` with the value `cat --json` printed, through
/// structs and lists; returns how many scalars were compared (types
/// without a JSON counterpart here, such as times and bytes, are not).
fn check(a: &dyn Array, i: usize, printed: &Json, at: &str) -> usize {
    if let Some(c) = scalar(a, i) {
        assert!(
            same(&c, a.data_type(), printed),
            "{at}: {c} in the file, {printed} printed"
        );
        return 1;
    }
    if a.is_null(i) {
        assert!(
            printed.is_null(),
            "{at}: null in the file, {printed} printed"
        );
        return 0;
    }
    let items = |v: arrow_array::ArrayRef| {
        let Some(p) = printed.as_array() else {
            // A byte array printed in another form.
            return 0;
        };
        assert_eq!(v.len(), p.len(), "{at}: length");
        (0..v.len())
            .map(|k| check(v.as_ref(), k, &p[k], &format!("{at}[{k}]")))
            .sum()
    };
    match a.data_type() {
        DataType::Struct(fields) => {
            let s = a.as_struct();
            let mut n = 0;
            for (k, f) in fields.iter().enumerate() {
                let p = printed.get(f.name()).unwrap_or(&Json::Null);
                n += check(s.column(k).as_ref(), i, p, &format!("{at}.{}", f.name()));
            }
            n
        }
        DataType::List(_) => items(a.as_list::<i32>().value(i)),
        DataType::FixedSizeList(..) => items(a.as_fixed_size_list().value(i)),
        _ => 0,
    }
}

/// The table name of a `cat --json` line (the contract's rule).
fn table_of(line: &Json, ulog: bool) -> String {
    if ulog {
        return line["type"].as_str().unwrap().to_string();
    }
    let topic = line["topic"].as_str().unwrap();
    let name: String = topic
        .strip_prefix('/')
        .unwrap_or(topic)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() { "_".into() } else { name }
}

/// Checks every table file of `input` (log id `id`) in `dir` against the
/// messages `robolog cat --json` prints for it; returns the files and the
/// number of values compared.
fn cross_check(dir: &Path, input: &Path, id: &str) -> (BTreeSet<String>, usize) {
    let cat = robolog()
        .args(["cat", "--json"])
        .arg(input)
        .output()
        .unwrap();
    assert!(cat.status.success(), "{}", input.display());
    let ulog = input.extension().is_some_and(|e| e == "ulg");
    let mut by_table: BTreeMap<String, Vec<Json>> = BTreeMap::new();
    for line in text(&cat.stdout).lines() {
        let v: Json = serde_json::from_str(line).unwrap();
        by_table.entry(table_of(&v, ulog)).or_default().push(v);
    }
    let mut out = BTreeSet::new();
    let mut compared = 0usize;
    for (table, lines) in &by_table {
        let rel = format!("{table}/log={id}/data.parquet");
        let (batches, kv) = read(&dir.join(&rel));
        out.insert(rel);
        assert_eq!(kv["robolog.log"].as_deref(), Some(id));
        assert_eq!(kv["robolog.table"].as_deref(), Some(table.as_str()));
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        assert_eq!(rows, lines.len(), "{id} {table}: rows");
        let mut row = 0;
        for b in &batches {
            // A timestamp, or a duration since boot or the recording's start.
            let lt = robolog_arrow::log_time_values(b.column(0)).unwrap();
            for (i, &t) in lt.iter().enumerate() {
                let line = &lines[row];
                assert_eq!(
                    Json::from(t),
                    line["log_time_ns"],
                    "{id} {table} row {row}: log_time"
                );
                for (k, f) in b.schema().fields().iter().enumerate() {
                    let printed = if f.name() == "data" && !line["data"].is_object() {
                        &line["data"]
                    } else {
                        match line["data"].get(f.name().as_str()) {
                            Some(p) => p,
                            None => continue,
                        }
                    };
                    let at = format!("{id} {table} row {row} column {}", f.name());
                    compared += check(b.column(k).as_ref(), i, printed, &at);
                }
                row += 1;
            }
        }
    }
    (out, compared)
}

#[test]
fn logs_of_every_format_hold_what_cat_prints() {
    let dir = scratch("formats");
    let logs = [
        "rosbag/sample.bag",
        "ulog/features.ulg",
        "mcap/chunked-zstd.mcap",
        "osi/20240101T000000Z_multi_380_3200_10_fixture-zstd.mcap",
        "carla/scene-0.9.13.rec",
    ];
    let out = robolog()
        .arg("export")
        .args(logs.map(testdata))
        // A folder: its four VEL logs, in name order.
        .arg(testdata("vellog"))
        .args(["--parquet", "-o"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
    let mut want = BTreeSet::new();
    let vel = [
        "sensors.vel",
        "size-convention-b.vel",
        "spec-example.vel",
        "terminated.vel",
    ];
    let inputs: Vec<PathBuf> = logs
        .iter()
        .map(|l| testdata(l))
        .chain(vel.iter().map(|v| testdata(&format!("vellog/{v}"))))
        .collect();
    for input in &inputs {
        let id = input.file_name().unwrap().to_str().unwrap();
        let (files, compared) = cross_check(&dir, input, id);
        assert!(compared > 0, "{id}: no value compared");
        want.extend(files);
        let logs_file = format!("logs/log={id}/data.parquet");
        let (batches, _) = read(&dir.join(&logs_file));
        assert_eq!(batches[0].num_rows(), 1);
        assert_eq!(
            batches[0].column(0).as_string::<i32>().value(0),
            input.to_string_lossy()
        );
        want.insert(logs_file);
    }
    assert_eq!(files(&dir), want);
    // One line per file written, each naming a file of the dataset.
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), want.len());
    assert!(stdout.contains(&format!(
        "wrote {} (30 rows, 3 columns)\n",
        dir.join("count/log=sample.bag/data.parquet").display()
    )));
    assert!(stdout.contains(&format!(
        "wrote {} (1 row, 12 columns)\n",
        dir.join("logs/log=sample.bag/data.parquet").display()
    )));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The corpus of real files (`../shared/corpus`, skipped when absent):
/// rosbag2 MCAP files (CDR), bags, a CARLA recording and OSI traces, each
/// against `cat --json`.
#[test]
fn corpus_logs_hold_what_cat_prints() {
    let Some(root) = robolog_testkit::corpus("") else {
        return;
    };
    let inputs: Vec<PathBuf> = [
        "ros2-mcap",
        "rosbag/matlab-constants.bag",
        "rosbag/hrl-head_down.bag",
        "rosbag/embag-array_test.bag",
        "carla/scenario_runner-0.9.10-DistanceToLaneCenter.log",
        "osi-mcap/lichtblick-asam-osi-converter/MovingHostWithStopLine.mcap",
        "osi-mcap/lichtblick-asam-osi-converter/MovingHostWith3DModel.mcap",
    ]
    .iter()
    .map(|p| root.join(p))
    .collect();
    let dir = scratch("corpus");
    let out = robolog()
        .arg("export")
        .args(&inputs)
        .args(["--parquet", "-o"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let mut want = BTreeSet::new();
    let logs: Vec<PathBuf> = text(&out.stdout)
        .lines()
        .filter_map(|l| {
            let p = l.strip_prefix("wrote ")?.split(" (").next()?;
            p.contains("/logs/log=").then(|| PathBuf::from(p))
        })
        .collect();
    assert!(logs.len() >= 10, "{logs:?}");
    let mut compared = 0;
    for logs_file in logs {
        let (batches, kv) = read(&logs_file);
        let input = PathBuf::from(batches[0].column(0).as_string::<i32>().value(0));
        let id = kv["robolog.log"].clone().unwrap();
        let (files, n) = cross_check(&dir, &input, &id);
        compared += n;
        want.extend(files);
        want.insert(
            logs_file
                .strip_prefix(&dir)
                .unwrap()
                .to_string_lossy()
                .into_owned(),
        );
    }
    // The other files are the tables of channels without messages.
    let written = files(&dir);
    assert!(want.is_subset(&written));
    for empty in written.difference(&want) {
        let (batches, _) = read(&dir.join(empty));
        assert_eq!(
            batches.iter().map(RecordBatch::num_rows).sum::<usize>(),
            0,
            "{empty}"
        );
    }
    assert!(written.len() > want.len());
    assert!(compared > 10_000, "{compared} values compared");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn existing_outputs_are_refused_without_force() {
    let dir = scratch("force");
    let run = |force: bool| {
        let mut c = robolog();
        c.arg("export")
            .arg(testdata("rosbag/sample.bag"))
            .arg(testdata("ulog/example.ulg"))
            .arg("--parquet")
            .arg("-o")
            .arg(&dir);
        if force {
            c.arg("--force");
        }
        c.output().unwrap()
    };
    assert_eq!(run(false).status.code(), Some(0));
    let before = files(&dir);
    assert_eq!(before.len(), 6);
    let planted = dir.join("vehicle_attitude/log=example.ulg/data.parquet");
    std::fs::write(&planted, "mine").unwrap();
    let out = run(false);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("exists already") && stderr.contains("--force"),
        "{stderr}"
    );
    assert_eq!(text(&out.stdout), "");
    assert_eq!(std::fs::read(&planted).unwrap(), b"mine");
    assert_eq!(files(&dir), before);
    let out = run(true);
    assert_eq!(out.status.code(), Some(0));
    let (batches, _) = read(&planted);
    assert_eq!(batches[0].num_rows(), 3);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn duplicate_file_names_get_a_number_and_topics_select() {
    let dir = scratch("dup");
    let other = common::scratch_dir("parquet", "dup-in");
    let copy = other.join("sample.bag");
    std::fs::copy(testdata("rosbag/sample.bag"), &copy).unwrap();
    let out = robolog()
        .arg("export")
        .arg(testdata("rosbag/sample.bag"))
        .arg(&other)
        .args(["--parquet", "--topic", "/count", "-o"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let want: BTreeSet<String> = [
        "count/log=sample.bag/data.parquet",
        "count/log=sample~2.bag/data.parquet",
        "logs/log=sample.bag/data.parquet",
        "logs/log=sample~2.bag/data.parquet",
    ]
    .map(String::from)
    .into();
    assert_eq!(files(&dir), want);
    let (batches, kv) = read(&dir.join("count/log=sample~2.bag/data.parquet"));
    assert_eq!(kv["robolog.path"].as_deref(), Some(copy.to_str().unwrap()));
    assert_eq!(batches[0].num_rows(), 30);

    // A topic in none of the logs: usage error, nothing written.
    let none = scratch("none");
    let out = robolog()
        .arg("export")
        .arg(testdata("rosbag/sample.bag"))
        .args(["--parquet", "--topic", "/nope", "-o"])
        .arg(&none)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("--topic \"/nope\": no such topic or table in any of the logs; their topics are \"/chatter\""),
        "{err}"
    );
    assert!(!none.exists());
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&other).unwrap();
}

#[test]
fn a_damaged_log_is_exported_as_far_as_it_reads_and_exits_1() {
    let dir = scratch("damaged");
    let out = robolog()
        .arg("export")
        .arg(testdata("rosbag/truncated.bag"))
        .args(["--parquet", "-o"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("truncated at byte 5549"));
    let (batches, _) = read(&dir.join("count/log=truncated.bag/data.parquet"));
    assert_eq!(batches.iter().map(RecordBatch::num_rows).sum::<usize>(), 3);
    assert!(dir.join("logs/log=truncated.bag/data.parquet").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_input_that_is_no_log_is_reported_and_the_others_exported() {
    let dir = scratch("nolog");
    let out = robolog()
        .arg("export")
        .arg(testdata("osi/osi3-minimal.desc"))
        .arg(testdata("rosbag/sample.bag"))
        .args(["--parquet", "-o"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(&format!(
            "robolog: {}: ",
            testdata("osi/osi3-minimal.desc").display()
        )),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(
        files(&dir),
        [
            "chatter/log=sample.bag/data.parquet",
            "count/log=sample.bag/data.parquet",
            "logs/log=sample.bag/data.parquet",
            "point/log=sample.bag/data.parquet",
        ]
        .map(String::from)
        .into()
    );
    // Alone, it writes nothing, not even the folder.
    let none = scratch("nolog-alone");
    let out = robolog()
        .arg("export")
        .arg(testdata("osi/osi3-minimal.desc"))
        .args(["--parquet", "-o"])
        .arg(&none)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(!none.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn csv_export_still_takes_one_log() {
    let dir = scratch("csv");
    let out = robolog()
        .arg("export")
        .arg(testdata("rosbag/sample.bag"))
        .arg(testdata("ulog/example.ulg"))
        .arg("-o")
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--parquet"));
    assert!(!dir.exists());
    let out = robolog()
        .arg("export")
        .arg(testdata("rosbag/sample.bag"))
        .args(["--csv", "--parquet", "-o"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!dir.exists());
}

/// A ULog at `path` whose topic `pos` has the fields `format` (after its
/// timestamp), one sample per row of `rows` (the fields' bytes).
fn pos_log(path: &Path, format: &str, rows: &[&[u8]]) {
    let mut w = ulogfile::Writer::new(Vec::new(), 1_000).unwrap();
    w.add_format(&format!("pos:uint64_t timestamp;{format}"))
        .unwrap();
    let id = w.add_subscription("pos", 0).unwrap();
    for (i, r) in rows.iter().enumerate() {
        let mut sample = (2_000 + i as u64 * 1_000).to_le_bytes().to_vec();
        sample.extend_from_slice(r);
        w.write_data(id, &sample).unwrap();
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, w.finish().unwrap()).unwrap();
}

#[test]
fn adding_a_log_with_new_columns_rewrites_the_files_that_lack_them() {
    let dir = scratch("widen");
    let (a, b, out) = (dir.join("a.ulg"), dir.join("b.ulg"), dir.join("out"));
    pos_log(
        &a,
        "int32_t x;",
        &[&7i32.to_le_bytes(), &(-8i32).to_le_bytes()],
    );
    pos_log(
        &b,
        "int64_t x;float y;",
        &[&[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0x3f]],
    );
    let export = |input: &Path| {
        robolog()
            .arg("export")
            .arg(input)
            .args(["--parquet", "-o"])
            .arg(&out)
            .output()
            .unwrap()
    };
    assert_eq!(export(&a).status.code(), Some(0));
    let fa = out.join("pos/log=a.ulg/data.parquet");
    let columns = |p: &Path| -> Vec<(String, DataType)> {
        let f = File::open(p).unwrap();
        let b = ParquetRecordBatchReaderBuilder::try_new(f).unwrap();
        let s = b.schema();
        s.fields()
            .iter()
            .map(|f| (f.name().clone(), f.data_type().clone()))
            .collect()
    };
    let n = columns(&fa).len();
    // No --force: the file of a is widened, not replaced.
    let done = export(&b);
    assert_eq!(done.status.code(), Some(0), "{}", text(&done.stderr));
    let stdout = text(&done.stdout);
    let first = stdout.lines().next().unwrap();
    assert_eq!(
        first,
        format!(
            "rewrote {} (2 rows, {} columns) to the table's widened columns",
            fa.display(),
            n + 1
        )
    );
    let fb = out.join("pos/log=b.ulg/data.parquet");
    assert_eq!(columns(&fa), columns(&fb));
    let (batches, kv) = read(&fa);
    let x = batches[0].column_by_name("x").unwrap();
    assert_eq!(x.as_primitive::<Int64Type>().values(), &[7, -8]);
    assert_eq!(batches[0].column_by_name("y").unwrap().null_count(), 2);
    assert_eq!(kv["robolog.log"].as_deref(), Some("a.ulg"));
    std::fs::remove_dir_all(&dir).unwrap();
}
