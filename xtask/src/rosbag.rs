//! ROS bag checks: interop with the Python `rosbags` package, the bag
//! fixtures, the benchmark; `cargo xtask rosbag corpus` runs rosbag12's
//! corpus test (`tests/corpus.rs`).

use std::path::Path;

use logcore::{MessageFilter, Value};
use rosbag12::Bag;
use serde_json::Value as Json;

use crate::Result;

/// `cargo xtask rosbag corpus [--corpus DIR] | interop`: the corpus checks
/// are rosbag12's `tests/corpus.rs` (also run by the gate's tests step).
pub(crate) fn cmd(args: &[String]) -> Result {
    match args.first().map(String::as_str) {
        Some("corpus") => crate::crate_test("rosbag12", "corpus", args),
        Some("interop") => interop(),
        _ => Err("usage: cargo xtask rosbag corpus [--corpus DIR] | interop".into()),
    }
}

/// Interop with rosbags 0.11.9: bags rosbags writes (none, bz2, lz4) are
/// read by us with values equal to rosbags' deserialization, and the 2.0
/// fixtures we write are read by rosbags with values equal to ours. The
/// Python side is pytest's `xtask/pytests/test_rosbag_interop.py`, which
/// writes rosbags' bags and records the values rosbags reads in each.
pub(crate) fn interop() -> Result {
    let venv = crate::python::Venv::with(&["rosbags", "pytest"])?;
    let dir = crate::root().join("target/rosbag-interop");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let entries: Vec<Json> = ["sample.bag", "sample-bz2.bag", "sample-lz4.bag"]
        .iter()
        .map(|name| {
            let bag = crate::root().join("testdata/rosbag").join(name);
            serde_json::json!({"id": name, "bag": bag.display().to_string()})
        })
        .collect();
    let manifest = serde_json::json!({"work": dir.display().to_string(), "entries": entries});
    let records = venv
        .pytest("test_rosbag_interop.py")
        .manifest(&dir.join("manifest.json"), &manifest)?
        .run()?;
    if records.len() != 6 {
        return Err(format!("rosbags read {} bags of 6", records.len()));
    }
    let mut bags = Vec::new();
    let mut total = 0;
    for r in &records {
        let bag = std::path::PathBuf::from(r["bag"].as_str().unwrap_or_default());
        let rows = r["rows"].as_array().cloned().unwrap_or_default();
        let n = compare_bag(&bag, &rows).map_err(|e| format!("{}: {e}", bag.display()))?;
        eprintln!(
            "xtask: rosbag interop: {}: {n} messages equal to rosbags' values",
            bag.display()
        );
        total += n;
        bags.push(bag);
    }
    eprintln!(
        "xtask: rosbag interop: {total} messages in {} bags agree",
        bags.len()
    );
    Ok(())
}

fn compare_bag(path: &Path, rows: &[Json]) -> Result<usize> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let bag = Bag::new(&bytes).map_err(|e| e.to_string())?;
    let ours: Vec<_> = bag
        .messages(&MessageFilter::all())
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| e.to_string())?;
    if ours.len() != rows.len() {
        return Err(format!(
            "{} messages, rosbags reads {}",
            ours.len(),
            rows.len()
        ));
    }
    // Both sides are in time order; ties keep file order on our side and
    // may not on theirs, so match within equal times by topic and value.
    let mut unmatched: Vec<&Json> = rows.iter().collect();
    for m in &ours {
        let topic = bag
            .connection(m.conn)
            .map(|c| c.topic.clone())
            .unwrap_or_default();
        let value = bag.decode(m.conn, &m.data).map_err(|e| e.to_string())?;
        let time = m.time.to_timestamp().as_nanos();
        let pos = unmatched.iter().position(|r| {
            r["topic"] == topic.as_str()
                && r["time"].as_i64() == Some(time)
                && same(&value, &r["data"])
        });
        match pos {
            Some(i) => {
                unmatched.remove(i);
            }
            None => {
                return Err(format!(
                    "message on {topic} at {time} ns: ours {} has no equal in rosbags' output",
                    serde_json::to_string(&value).unwrap_or_default()
                ));
            }
        }
    }
    Ok(ours.len())
}

/// Our value equals rosbags' JSON: structs by field name, times as
/// `{sec, nanosec}`, float32 compared at float32 precision.
fn same(v: &Value, j: &Json) -> bool {
    match (v, j) {
        (Value::Struct(fields), Json::Object(o)) => {
            fields.len() == o.len()
                && fields
                    .iter()
                    .all(|(k, v)| o.get(k.as_str()).is_some_and(|x| same(v, x)))
        }
        (Value::Array(items), Json::Array(a)) => {
            items.len() == a.len() && items.iter().zip(a).all(|(v, x)| same(v, x))
        }
        (Value::F32Array(items), Json::Array(a)) => {
            items.len() == a.len() && items.iter().zip(a).all(|(v, x)| same(&Value::F32(*v), x))
        }
        (Value::F64Array(items), Json::Array(a)) => {
            items.len() == a.len() && items.iter().zip(a).all(|(v, x)| same(&Value::F64(*v), x))
        }
        (Value::Bytes(b), Json::Array(a)) => {
            b.len() == a.len()
                && b.iter()
                    .zip(a)
                    .all(|(v, x)| x.as_u64() == Some(u64::from(*v)))
        }
        (Value::Time(t), Json::Object(o)) => time_json(o) == Some(t.as_nanos()),
        (Value::Duration(d), Json::Object(o)) => time_json(o) == Some(*d),
        (Value::Bool(b), Json::Bool(x)) => b == x,
        (Value::Bool(b), Json::Number(n)) => n.as_u64() == Some(u64::from(*b)),
        (Value::I64(i), Json::Number(n)) => n.as_i64() == Some(*i),
        (Value::U64(u), Json::Number(n)) => n.as_u64() == Some(*u),
        (Value::F32(f), Json::Number(n)) => n.as_f64().map(|x| x as f32) == Some(*f),
        // serde_json's default float parsing may be off by an ulp.
        (Value::F64(f), Json::Number(n)) => n
            .as_f64()
            .is_some_and(|x| x == *f || (x - f).abs() <= f.abs() * 4.0 * f64::EPSILON),
        (Value::String(s), Json::String(x)) => s == x,
        _ => false,
    }
}

fn time_json(o: &serde_json::Map<String, Json>) -> Option<i64> {
    Some(o.get("sec")?.as_i64()? * 1_000_000_000 + o.get("nanosec")?.as_i64()?)
}

/// `cargo xtask bench rosbag`: large bags made by rosbags (none, lz4,
/// bz2; cached under `target/rosbag-bench`), iterated by us and by the
/// `rosbag` crate (framing; alternating runs in the bench, which prints
/// MB/s and the ratios), then deserialized by rosbags for the decoding
/// comparison.
pub(crate) fn bench() -> Result {
    let venv = crate::python::Venv::with(&["rosbags"])?;
    // One folder per generation of the inputs, so a changed generator
    // never meets bags cached by an older one.
    let dir = crate::root().join("target/rosbag-bench/330k");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let comps = ["none", "lz4", "bz2"];
    for comp in comps {
        let bag = dir.join(format!("bench-{comp}.bag"));
        if !bag.exists() {
            // rosbags refuses to overwrite; an interrupted run leaves a
            // `.part` file, never a half bag under the real name.
            let part = dir.join(format!("bench-{comp}.bag.part"));
            let _ = std::fs::remove_file(&part);
            // The Python side: `xtask/pytests/rosbag_bench.py`.
            let mut c = venv.script("rosbag_bench.py");
            c.args(["make"]).arg(&part).arg(comp);
            crate::run(&mut c)?;
            std::fs::rename(&part, &bag).map_err(|e| format!("{}: {e}", bag.display()))?;
        }
    }
    let medians = dir.join("medians.json");
    crate::run(
        crate::cargo()
            .env("ROSBAG12_BENCH_DIR", &dir)
            .env("ROSBAG12_BENCH_OUT", &medians)
            .args(["bench", "--locked", "-p", "rosbag12", "--bench", "read"]),
    )?;
    let medians: Json = std::fs::read_to_string(&medians)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .ok_or("the rosbag12 bench wrote no medians")?;
    let mut table = Vec::new();
    for comp in comps {
        let bag = dir.join(format!("bench-{comp}.bag"));
        let out = venv
            .script("rosbag_bench.py")
            .arg("time")
            .arg(&bag)
            .output()
            .map_err(|e| e.to_string())?;
        let j: Json = serde_json::from_slice(&out.stdout).map_err(|e| {
            format!(
                "rosbags timing: {e}: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        })?;
        let raw = j["bytes"].as_f64().unwrap_or(0.0) / 1e6;
        let py = j["seconds"].as_f64().unwrap_or(f64::NAN);
        let median = |name: &str| medians[comp][name].as_f64().unwrap_or(f64::NAN);
        let ours_f = median("ours_framing");
        let ours_b = median("ours_borrowed_framing");
        let peer_f = median("rosbag_crate_framing");
        let ours_d = median("ours_decode");
        let ours_r = median("ours_decode_reuse");
        table.push(format!(
            "{comp:>4}: {raw:.0} MB, {} msgs | framing: rosbag12 {:.0} MB/s ({:.2}x), borrowed {:.0} MB/s ({:.2}x), rosbag crate {:.0} MB/s | decode: rosbag12 {:.0} MB/s new values ({:.1}x), {:.0} MB/s reused values ({:.1}x), rosbags {:.1} MB/s",
            j["messages"],
            raw / ours_f,
            peer_f / ours_f,
            raw / ours_b,
            peer_f / ours_b,
            raw / peer_f,
            raw / ours_d,
            py / ours_d,
            raw / ours_r,
            py / ours_r,
            raw / py,
        ));
    }
    eprintln!("\nxtask: rosbag benchmark (MB of serialized messages per second):");
    for row in table {
        eprintln!("  {row}");
    }
    Ok(())
}
