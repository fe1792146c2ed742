//! CARLA recorder checks on the real-file corpus (`<corpus>/carla/`), the
//! committed fixtures of `testdata/carla/`, and the read benchmark.
//!
//! Corpus checks, for every `.log`/`.rec` file found (by extension, never by
//! name): every frame and packet reads strictly, every packet's declared
//! size equals the bytes its fields take, frame durations equal the
//! differences of elapsed times and the last one is −1.0, the typed rewrite
//! equals the file byte for byte; and where `README.txt` has a row whose
//! key is part of the file name, header fields, frame count, last elapsed
//! time, packet count and EventAdd/EventDel record counts equal that row.

use std::path::{Path, PathBuf};

use carla_recorder::{Packet, PacketId, ReadMode, Recording, rewrite};

use crate::Result;

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
fn measure(bytes: &[u8]) -> std::result::Result<Facts, String> {
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
fn reports(rec: &Recording<'_>, adds: u64, dels: u64) -> std::result::Result<(), String> {
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
/// then a truncation) and 32 single-bit flips (no panic anywhere; a panic
/// ends xtask with a failure).
fn damage(bytes: &[u8]) -> std::result::Result<(), String> {
    use logcore::{LogReader, MessageFilter};
    let rec = Recording::new(bytes).map_err(|e| e.to_string())?;
    let ends: Vec<u64> = rec
        .frames()
        .map(|f| f.map(|f| f.end).map_err(|e| e.to_string()))
        .collect::<std::result::Result<_, _>>()?;
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

fn logs(dir: &Path) -> Vec<PathBuf> {
    robolog_testkit::files_with_ext(dir, &["log", "rec"])
}

/// Runs the checks on `<corpus>/carla`.
pub(crate) fn corpus(dir: &Path) -> Result {
    let dir = dir.join("carla");
    let files = logs(&dir);
    if files.is_empty() {
        eprintln!("xtask: carla: no recordings under {}", dir.display());
        return Ok(());
    }
    let readme = std::fs::read_to_string(dir.join("README.txt")).unwrap_or_default();
    let rows = readme_rows(&readme);
    let mut failures = Vec::new();
    let mut compared = 0;
    for path in &files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let got = match measure(&bytes) {
            Ok(f) => f,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        eprintln!(
            "xtask: carla: {name}: {} frames, {} packets, {} EventAdd / {} EventDel records, \
             last elapsed {} s, map {}, reports run, 64 cuts + 32 bit flips survived, rewrite byte-identical",
            got.frames, got.packets, got.adds, got.dels, got.last_elapsed, got.map
        );
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
    eprintln!(
        "xtask: carla: {} recordings checked, {compared} against README facts",
        files.len()
    );
    crate::verdict("carla corpus checks failed", &failures)
}

/// `cargo xtask carla [--corpus DIR]`: only the CARLA corpus checks.
pub(crate) fn cmd(args: &[String]) -> Result {
    match crate::corpus::locate(crate::opt(args, "--corpus"))? {
        Some(dir) => corpus(&dir),
        None => Ok(()),
    }
}

/// Deterministic recordings for `testdata/carla/` (fuzz seeds and CLI
/// tests), written with the crate's writer: four ticks of a small scene
/// with every packet id 0–23 and a custom id, in three layouts.
///
/// - `scene-0.9.13.rec`: the default layout (48-byte wheels);
/// - `scene-0.9.10.rec`: 36-byte wheel records;
/// - `scene-0.10-ue5.rec`: f64 vectors (UE5), PhysicsControl omitted.
pub(crate) fn fixtures() -> Vec<(&'static str, Vec<u8>)> {
    use carla_recorder::Layout;
    vec![
        ("scene-0.9.13.rec", scene(Layout::CARLA_0_9_13)),
        ("scene-0.9.10.rec", scene(Layout::CARLA_0_9_10)),
        ("scene-0.10-ue5.rec", scene(Layout::CARLA_0_10)),
    ]
}

fn scene(layout: carla_recorder::Layout) -> Vec<u8> {
    use carla_recorder::*;
    let hero = EventAdd {
        id: 24,
        type_code: 1,
        location: Vec3::new(-6446.0, 2400.0, 30.0),
        rotation: Vec3::new(0.0, 0.0, 180.0),
        uid: 12,
        description_id: b"vehicle.tesla.model3",
        attributes: vec![
            Attribute {
                type_code: 3,
                id: b"role_name",
                value: b"hero",
            },
            Attribute {
                type_code: 4,
                id: b"color",
                value: b"255,0,0",
            },
        ],
    };
    let mut prop = hero.clone();
    prop.id = 25;
    prop.type_code = 0;
    prop.description_id = b"static.prop.trafficcone01";
    prop.attributes = vec![];
    let mut sensor = prop.clone();
    sensor.id = 26;
    sensor.type_code = 5;
    sensor.description_id = b"sensor.other.collision";
    let wheel = |i: u8| Wheel {
        tire_friction: 3.5,
        damping_rate: 0.25,
        max_steer_angle: if i < 2 { 70.0 } else { 0.0 },
        radius: 37.0,
        max_brake_torque: 1500.0,
        max_handbrake_torque: 3000.0,
        stiffness: Some([3.0, 17.0, 1000.0]),
        position: [f32::from(i) * 10.0, 0.0, 0.0],
    };
    let physics = PhysicsControl {
        id: 24,
        max_rpm: 15000.0,
        moi: 1.0,
        mass: 1845.0,
        use_gear_autobox: true,
        forward_gears: vec![Gear {
            ratio: 4.5,
            down_ratio: 0.5,
            up_ratio: 0.65,
        }],
        torque_curve: vec![[0.0, 400.0], [13000.0, 100.0]],
        steering_curve: vec![[0.0, 1.0], [120.0, 0.3]],
        wheels: (0..4).map(wheel).collect(),
        ..Default::default()
    };
    let mut w = Writer::with_layout(InfoHeader::new(1_687_780_837, b"Town10HD_Opt"), layout)
        .expect("in-memory writer");
    for n in 0..4u32 {
        let x = -6446.0 - f64::from(n) * 25.0;
        let mut p = vec![
            Packet::VisualTime(f64::from(n) * 0.05 + 12.5),
            Packet::EventAdd(if n == 0 {
                vec![hero.clone(), prop.clone(), sensor.clone()]
            } else {
                vec![]
            }),
            Packet::EventDel(if n == 3 {
                vec![EventDel { id: 25 }]
            } else {
                vec![]
            }),
            Packet::EventParent(if n == 0 {
                vec![EventParent { id: 26, parent: 24 }]
            } else {
                vec![]
            }),
            Packet::Collision(if n == 2 {
                vec![Collision {
                    id: 0,
                    actor1: 24,
                    actor2: 25,
                    is_hero1: true,
                    is_hero2: false,
                }]
            } else {
                vec![]
            }),
            Packet::VehicleDoor(vec![]),
            Packet::Position(vec![
                Position {
                    id: 24,
                    location: Vec3::new(x, 2400.0, 0.25),
                    rotation: Vec3::new(0.0, 0.0, 180.0),
                },
                Position {
                    id: 25,
                    location: Vec3::new(-6500.0, 2400.0, 0.0),
                    rotation: Vec3::default(),
                },
            ]),
            Packet::State(vec![TrafficLightState {
                id: 30,
                frozen: false,
                elapsed: 0.5 * n as f32,
                state: 0,
            }]),
            Packet::AnimVehicle(vec![AnimVehicle {
                id: 24,
                throttle: 0.5,
                gear: 1,
                ..Default::default()
            }]),
            Packet::AnimWalker(vec![]),
            Packet::VehicleLight(vec![VehicleLight {
                id: 24,
                state: 0b11,
            }]),
            Packet::AnimVehicleWheels(vec![AnimVehicleWheels {
                id: 24,
                wheels: (0..4)
                    .map(|i| WheelAnim {
                        location: i,
                        steering_angle: 0.0,
                        rotation_angle: 45.0 * f32::from(i),
                    })
                    .collect(),
            }]),
            Packet::AnimBiker(vec![]),
            Packet::Kinematics(vec![Kinematics {
                id: 24,
                linear_velocity: Vec3::new(-5.0, 0.0, 0.0),
                angular_velocity: Vec3::default(),
            }]),
            Packet::BoundingBox(if n == 0 {
                vec![BoundingBox {
                    id: 24,
                    origin: Vec3::new(0.0, 0.0, 70.0),
                    extent: Vec3::new(240.0, 100.0, 70.0),
                }]
            } else {
                vec![]
            }),
            Packet::PlatformTime(f64::from(n) * 0.0625),
            Packet::WalkerBones(vec![]),
        ];
        if n == 0 {
            p.push(Packet::SceneLight(vec![SceneLight {
                id: 3,
                intensity: 10.0,
                color: [1.0, 0.75, 0.5, 1.0],
                on: true,
                group: 2,
            }]));
            p.push(Packet::TriggerVolume(vec![BoundingBox {
                id: 30,
                origin: Vec3::new(1.0, 2.0, 3.0),
                extent: Vec3::new(4.0, 5.0, 6.0),
            }]));
            p.push(Packet::TrafficLightTime(vec![TrafficLightTime {
                id: 30,
                green: 10.0,
                yellow: 3.0,
                red: 2.0,
            }]));
            p.push(Packet::FrameCounter(1));
            p.push(Packet::Raw {
                id: 140,
                payload: b"fork",
            });
            if layout.vectors == VectorWidth::F32 {
                p.push(Packet::PhysicsControl(vec![physics.clone()]));
            }
        }
        w.tick(f64::from(n) * 0.05, &p).expect("frame");
    }
    w.finish()
}

/// `cargo xtask bench carla [--corpus DIR]`: the criterion benchmark of a
/// full typed parse (MB/s and frames/s) on a synthetic recording and on the
/// largest corpus recording, when the corpus is there.
pub(crate) fn bench(args: &[String]) -> Result {
    crate::step("bench carla-recorder");
    let mut cmd = crate::cargo();
    cmd.args(["bench", "--locked", "-p", "carla-recorder"]);
    if let Some(dir) = crate::corpus::locate(crate::opt(args, "--corpus"))? {
        let largest = logs(&dir.join("carla"))
            .into_iter()
            .max_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0));
        if let Some(p) = largest {
            eprintln!("xtask: bench carla: also on {}", p.display());
            cmd.env("CARLA_BENCH_FILE", p);
        }
    }
    crate::run(&mut cmd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_readme_rows() {
        let text = " 0.9.10-DistanceToLaneCenter       1 / Town01 / 1599118659              461    15.8809 s      6456    183            5\n";
        let rows = readme_rows(text);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].0, "0.9.10-DistanceToLaneCenter");
        assert_eq!(rows[0].1.frames, 461);
        assert_eq!(rows[0].1.last_elapsed, "15.8809");
        assert_eq!(rows[0].1.dels, 5);
    }
}
