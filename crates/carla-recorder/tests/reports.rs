//! CARLA's text reports on a recording written by our writer, in
//! CARLA-compatible and fixed mode.

mod common;

use carla_recorder::report::{ReportOptions, actors_blocked, collisions, file_info};
use carla_recorder::*;
use common::*;

fn text(f: impl FnOnce(&mut Vec<u8>) -> Result<()>) -> String {
    let mut out = Vec::new();
    f(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

const HEAD: &str = "Version: 1\nMap: Town10HD_Opt\nDate: 11/23/21 14:08:48\n\n";
const COMPAT: ReportOptions = ReportOptions {
    fixed: false,
    utc_offset_secs: 0,
};
const FIXED: ReportOptions = ReportOptions {
    fixed: true,
    utc_offset_secs: 0,
};

#[test]
fn file_info_lists_frames_with_events() {
    let bytes = sample(Layout::default());
    let rec = Recording::new(&bytes).unwrap();
    let want = format!(
        "{HEAD}Frame 1 at 0 seconds
 Create 174: vehicle.lincoln.mkz_2017 (1) at (10700, 13300, 64.5)
  role_name = hero
  color = 16,16,16
  number_of_wheels = 4
 Create 175: walker.pedestrian.0001 (2) at (10700, 13300, 64.5)
 Create 176: sensor.other.collision (5) at (10700, 13300, 64.5)
  role_name = front
 Parenting 176 with 174 (parent)
Frame 2 at 0.05 seconds
 Collision id 2 between 174 (hero)  with 175
Frame 3 at 0.1 seconds
 Collision id 3 between 174 (hero)  with 175
Frame 4 at 0.15 seconds
 Destroy 175

Frames: 6
Duration: 0.25 seconds
"
    );
    assert_eq!(text(|w| file_info(&rec, false, &COMPAT, w)), want);
}

#[test]
fn file_info_show_all_prints_every_section() {
    let bytes = sample(Layout::default());
    let rec = Recording::new(&bytes).unwrap();
    let all = text(|w| file_info(&rec, true, &COMPAT, w));
    // Frame 2 in full.
    let frame2 = "Frame 2 at 0.05 seconds
 Collision id 2 between 174 (hero)  with 175
 Vehicle door animations: 1
  Id: 174
  Doors opened:  Trunk 
 Positions: 2
  Id: 174 Location: (10800, 13300, 64.5) Rotation: (0, -0.5, 90)
  Id: 175 Location: (-3.25, 7, 0) Rotation: (0, 0, 0)
 State traffic lights: 1
  Id: 90 state: 2 frozen: 0 elapsedTime: 1.25
 Vehicle animations: 1
  Id: 174 Steering: -0.25 Throttle: 0.75 Brake: 0 Handbrake: 0 Gear: 1
 Walker animations: 1
  Id: 175 speed: 1.5
 Vehicle light animations: 1
  Id: 174 Position Brake Interior
 Dynamic actors: 1
  Id: 174 linear_velocity: (10, 0, 0) angular_velocity: (0, 0, 1.5)
 Actor bounding boxes: 1
  Id: 174 origin: (0, 0, 70) extension: (245, 105, 75)
 Current platform time: 0.125
 Walkers Bones: 1
  Id: 175
     Bone: \"crl_root\" relative: Loc(0, 0, 1) Rot(0, 90, 0)

Frame 3 at 0.1 seconds
";
    assert!(all.contains(frame2), "{all}");
    for line in [
        " Scene light changes: 1\n  Id: -1 enabled: True intensity: 1500 RGB_color: (1, 0.5, 0.25)\n",
        " Actor trigger volumes: 1\n  Id: 90 origin: (9499, 7041, 10) extension: (100, 200, 300)\n",
        "   torque_curve = (0, 400) (1890, 500) (5729, 400)\n",
        "    gear 0: ratio 4.25 down_ratio 0.2 up_ratio 0.65\n",
        "    wheel 3: tire_friction 3.5 damping_rate 0.25 max_steer_angle 0 radius 35.5 \
         max_brake_torque 1500 max_handbrake_torque 3000 position (300, -50, 30)\n",
        "  Id: 90 green_time: 10 yellow_time: 3 red_time: 2\n",
        "Frame 6 at 0.25 seconds\n Vehicle door animations: 0\n",
    ] {
        assert!(all.contains(line), "missing {line:?}");
    }
    assert!(all.ends_with("\nFrames: 6\nDuration: 0.25 seconds\n"));
}

#[test]
fn collisions_print_new_pairs_once_with_sticky_footer() {
    let bytes = sample(Layout::default());
    let rec = Recording::new(&bytes).unwrap();
    let header = "    Time  Types     Id Actor 1                                 Id Actor 2                            \n";
    let row = "       0   v w     174 vehicle.lincoln.mkz_2017               175 walker.pedestrian.0001             \n";
    let want = format!("{HEAD}{header}{row}\nFrames: 6\nDuration: 0 seconds\n");
    assert_eq!(text(|w| collisions(&rec, 'a', 'a', &COMPAT, w)), want);
    assert_eq!(text(|w| collisions(&rec, 'h', 'w', &COMPAT, w)), want);
    // Fixed mode: the footer keeps %g.
    let want = format!("{HEAD}{header}{row}\nFrames: 6\nDuration: 0.25 seconds\n");
    assert_eq!(text(|w| collisions(&rec, 'v', 'a', &FIXED, w)), want);
    // No rows: the footer stays %g in CARLA too.
    let want = format!("{HEAD}{header}\nFrames: 6\nDuration: 0.25 seconds\n");
    assert_eq!(text(|w| collisions(&rec, 'v', 'v', &COMPAT, w)), want);
    assert_eq!(text(|w| collisions(&rec, 'a', 'h', &COMPAT, w)), want);
}

#[test]
fn blocked_reproduces_carla_and_fixes_it_on_request() {
    let bytes = sample(Layout::default());
    let rec = Recording::new(&bytes).unwrap();
    let header = "    Time     Id Actor                                 Duration\n";
    // CARLA: the walker stands still for frames 1-6, but the last frame's
    // -1.0 duration brings its total to -0.75 s, and the EventDel of frame
    // 4 erases the sensor (the last added actor) instead of the walker.
    let want = format!("{HEAD}{header}\nFrames: 6\nDuration: 0.25 seconds\n");
    assert_eq!(text(|w| actors_blocked(&rec, 0.1, 10.0, &COMPAT, w)), want);
    // Fixed: the walker is reported when destroyed (0.15 s blocked since 0 s).
    let row = "       0    175 walker.pedestrian.0001                       0\n";
    let want = format!("{HEAD}{header}{row}\nFrames: 6\nDuration: 0.25 seconds\n");
    assert_eq!(text(|w| actors_blocked(&rec, 0.1, 10.0, &FIXED, w)), want);
    // The moving car is reported every time it moves with min_time 0.
    let all = text(|w| actors_blocked(&rec, 0.0, 10.0, &COMPAT, w));
    assert_eq!(
        all.matches(" 174 vehicle.lincoln.mkz_2017").count(),
        7,
        "{all}"
    );
}

#[test]
fn header_date_follows_the_time_zone() {
    let bytes = sample(Layout::default());
    let rec = Recording::new(&bytes).unwrap();
    let o = ReportOptions {
        fixed: false,
        utc_offset_secs: -5 * 3600,
    };
    let t = text(|w| collisions(&rec, 'v', 'v', &o, w));
    assert!(
        t.starts_with("Version: 1\nMap: Town10HD_Opt\nDate: 11/23/21 09:08:48\n\n"),
        "{t}"
    );
}

#[test]
fn truncated_file_reports_up_to_the_cut_then_errors() {
    let bytes = sample(Layout::default());
    let cut = &bytes[..bytes.len() - 3];
    let rec = Recording::new(cut).unwrap();
    let mut out = Vec::new();
    let e = file_info(&rec, false, &COMPAT, &mut out).unwrap_err();
    assert!(e.is_truncated(), "{e}");
    let t = String::from_utf8(out).unwrap();
    assert!(t.contains(" Destroy 175\n"));
    assert!(t.ends_with("\nFrames: 6\nDuration: 0.25 seconds\n"), "{t}");
}

#[test]
fn g_format_matches_iostream() {
    use carla_recorder::report::{format_f0, format_g};
    let cases = [
        (100000.0, "100000"),
        (1000000.0, "1e+06"),
        (0.0001, "0.0001"),
        (0.00012345678, "0.000123457"),
        (-2763.8134765625, "-2763.81"),
        (15.880943656899035, "15.8809"),
        (999999.5, "1e+06"),
        (f64::NAN, "nan"),
        (-0.0, "-0"),
    ];
    for (v, s) in cases {
        assert_eq!(format_g(v), s, "{v}");
    }
    assert_eq!(format_f0(0.5), "0");
    assert_eq!(format_f0(1.5), "2");
    assert_eq!(format_f0(2.5), "2");
    assert_eq!(format_f0(24.72), "25");
}
