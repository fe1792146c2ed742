//! Tests of the Hokuyo model parameters, step windows and points.
//!
//! Expected numbers are computed by hand from spec section 7 (and checked
//! with python3); each comment gives the computation.

use super::*;

const URG: &str = "Hokuyo_URG-04LX";
const UTM: &str = "Hokuyo_UTM-30LX";

fn scan(sensor_type: &str, ranges: &[u32], options: &ScanOptions) -> HokuyoScan {
    match scan_points(sensor_type, ranges, options) {
        Ok(scan) => scan,
        Err(e) => panic!("scan rejected: {e}"),
    }
}

#[test]
fn geometry_hokuyo_step_angles() {
    let urg = HokuyoModel::Urg04lx.params();
    let utm = HokuyoModel::Utm30lx.params();
    // URG: θ(384) = (384 − 384)·360/1024 = 0.
    assert_eq!(urg.step_angle_rad(384), 0.0);
    // URG: θ(44) = −340 · 360/1024 = −119.53125°; θ(725) = 341 · 0.3515625 = 119.8828125°.
    assert!((urg.step_angle_rad(44).to_degrees() + 119.53).abs() < 0.01);
    assert!((urg.step_angle_rad(44).to_degrees() + 119.53125).abs() < 1e-9);
    assert!((urg.step_angle_rad(725).to_degrees() - 119.8828125).abs() < 1e-9);
    // UTM: θ(0) = −540 · 0.25° = −135°, θ(1080) = +540 · 0.25° = +135°.
    assert!((utm.step_angle_rad(0).to_degrees() + 135.0).abs() < 1e-9);
    assert!((utm.step_angle_rad(1080).to_degrees() - 135.0).abs() < 1e-9);
    // Extreme steps do not overflow.
    assert!(urg.step_angle_rad(i32::MIN).is_finite());
    // Step intervals: 100 000 µs / 1024 = 97.65625 µs, 25 000 / 1440 = 17.3611 µs.
    assert_eq!(urg.step_interval_us(), 97.65625);
    assert!((utm.step_interval_us() - 17.361111).abs() < 1e-6);
    assert_eq!((urg.valid_steps(), utm.valid_steps()), (682, 1081));
}

#[test]
fn geometry_hokuyo_model_from_type_string() {
    assert_eq!(
        HokuyoModel::from_sensor_type(URG),
        Some(HokuyoModel::Urg04lx)
    );
    assert_eq!(
        HokuyoModel::from_sensor_type("urg-04lx-ug01"),
        Some(HokuyoModel::Urg04lx)
    );
    assert_eq!(
        HokuyoModel::from_sensor_type(UTM),
        Some(HokuyoModel::Utm30lx)
    );
    assert_eq!(
        HokuyoModel::from_sensor_type("utm-30Lx"),
        Some(HokuyoModel::Utm30lx)
    );
    assert_eq!(HokuyoModel::from_sensor_type("front laser"), None);
    assert_eq!(HokuyoModel::from_sensor_type("04LX or 30LX"), None);
    assert_eq!(HokuyoModel::Urg04lx.sensor_type(), URG);
}

#[test]
fn geometry_hokuyo_step_windows() {
    let window = |model, count| StepWindow::for_count(model, count, None);
    let urg682 = window(HokuyoModel::Urg04lx, 682);
    assert_eq!(
        urg682.map(|w| (w.first_step, w.last_step(), w.source)),
        Ok((44, 725, WindowSource::Table))
    );
    let urg769 = window(HokuyoModel::Urg04lx, 769);
    assert_eq!(
        urg769.map(|w| (w.first_step, w.last_step(), w.source)),
        Ok((0, 768, WindowSource::Table))
    );
    let utm = window(HokuyoModel::Utm30lx, 1081);
    assert_eq!(
        utm.map(|w| (w.first_step, w.last_step(), w.source)),
        Ok((0, 1080, WindowSource::Table))
    );
    // 500 ranges centred on 384: first = 384 − ⌊499/2⌋ = 135, last = 634.
    let centred = window(HokuyoModel::Urg04lx, 500);
    assert_eq!(
        centred.map(|w| (w.first_step, w.last_step(), w.source)),
        Ok((135, 634, WindowSource::Centred))
    );
    // The user's first step wins over the table.
    let user = StepWindow::for_count(HokuyoModel::Urg04lx, 682, Some(10));
    assert_eq!(
        user.map(|w| (w.first_step, w.last_step(), w.source)),
        Ok((10, 691, WindowSource::User))
    );
    // More ranges than steps in a revolution, or steps past i32, are errors.
    assert_eq!(
        window(HokuyoModel::Urg04lx, 1025),
        Err(GeometryError::TooManyRanges {
            model: HokuyoModel::Urg04lx,
            count: 1025,
            ares: 1024
        })
    );
    assert_eq!(
        StepWindow::for_count(HokuyoModel::Utm30lx, 2, Some(i32::MAX)),
        Err(GeometryError::StepOverflow {
            first_step: i32::MAX,
            count: 2
        })
    );
}

#[test]
fn geometry_hokuyo_point_at_90_degrees() {
    // URG step 384 + 256 = 640: θ = 256 · 2π/1024 = π/2, so 1000 mm → (0, 1).
    // With 682 ranges starting at step 44, step 640 is index 596.
    let mut ranges = vec![1000u32; 682];
    ranges[..596].fill(0);
    ranges[597..].fill(0);
    let s = scan(URG, &ranges, &ScanOptions::default());
    assert_eq!(s.points.len(), 1);
    let p = s.points[0];
    assert_eq!((p.index, p.step, p.range_mm), (596, 640, 1000));
    assert!(p.x.abs() < 1e-6 && (p.y - 1.0).abs() < 1e-6, "{p:?}");
    assert!((p.angle_rad - std::f32::consts::FRAC_PI_2).abs() < 1e-6);
    // 596 steps after the first: 596 · 97.65625 µs = 58203.125 µs.
    assert!((p.time_offset_us - 58_203.125).abs() < 1e-2);
    assert!(s.warnings.is_empty());
    assert_eq!(s.below_dmin, 681);
}

#[test]
fn geometry_hokuyo_utm_point_and_timing() {
    // UTM, 1081 ranges from step 0; index 100 = step 100: θ = (100 − 540) · 0.25°
    // = −110°; 2500 mm → (2.5 cos −110°, 2.5 sin −110°) = (−0.855050, −2.349232)
    // (python3). Index 1080: 1080 · 25 000/1440 µs = 18 750 µs.
    let mut ranges = vec![0u32; 1081];
    ranges[100] = 2500;
    ranges[1080] = 3000;
    let s = scan(UTM, &ranges, &ScanOptions::default());
    assert_eq!(s.points.len(), 2);
    let (p, last) = (s.points[0], s.points[1]);
    assert!(
        (p.x + 0.855050).abs() < 1e-5 && (p.y + 2.349232).abs() < 1e-5,
        "{p:?}"
    );
    assert!((p.time_offset_us - 1736.1111).abs() < 1e-2);
    assert_eq!(last.step, 1080);
    assert!((last.time_offset_us - 18_750.0).abs() < 1e-2);
    assert!((last.angle_rad.to_degrees() - 135.0).abs() < 1e-4);
}

#[test]
fn geometry_hokuyo_dmin_dmax_filters() {
    // URG: DMIN 20, DMAX 5600. 0 and 19 are error codes; 20 and 5600 are
    // kept; 5601 is dropped unless asked to keep it.
    let ranges = [0, 19, 20, 5600, 5601];
    let s = scan(URG, &ranges, &ScanOptions::default());
    assert_eq!(
        s.points.iter().map(|p| p.range_mm).collect::<Vec<_>>(),
        vec![20, 5600]
    );
    assert_eq!((s.below_dmin, s.above_dmax), (2, 1));
    let keep = ScanOptions {
        skip_above_dmax: false,
        ..ScanOptions::default()
    };
    let s = scan(URG, &ranges, &keep);
    assert_eq!(
        s.points.iter().map(|p| p.range_mm).collect::<Vec<_>>(),
        vec![20, 5600, 5601]
    );
    // UTM: DMIN 23.
    let s = scan(UTM, &[22, 23], &ScanOptions::default());
    assert_eq!((s.points.len(), s.below_dmin), (1, 1));
}

#[test]
fn geometry_hokuyo_unknown_count_warns() {
    // 5 ranges, not in the table: centred on 384 → steps 382..=386, θ(382) =
    // −2 · 0.3515625° = −0.703125°.
    let s = scan(URG, &[1000; 5], &ScanOptions::default());
    assert_eq!(s.warnings, vec![ScanWarning::WindowCentred { count: 5 }]);
    assert_eq!(
        (s.window.first_step, s.window.source),
        (382, WindowSource::Centred)
    );
    assert!((s.points[0].angle_rad.to_degrees() + 0.703125).abs() < 1e-4);
    assert!(s.warnings[0].to_string().contains("5 ranges"));
    // A first-step override is not a guess.
    let user = ScanOptions {
        first_step: Some(100),
        ..ScanOptions::default()
    };
    let s = scan(URG, &[1000; 5], &user);
    assert!(s.warnings.is_empty());
    assert_eq!(s.points[0].step, 100);
}

#[test]
fn geometry_hokuyo_model_guessed_from_count() {
    let s = scan("front", &[1000; 1081], &ScanOptions::default());
    assert_eq!(s.model, HokuyoModel::Utm30lx);
    assert_eq!(
        s.warnings,
        vec![ScanWarning::ModelGuessed {
            sensor_type: "front".into(),
            model: HokuyoModel::Utm30lx
        }]
    );
    let s = scan("", &[1000; 682], &ScanOptions::default());
    assert_eq!(s.model, HokuyoModel::Urg04lx);
    assert_eq!(
        scan_points("front", &[1000; 10], &ScanOptions::default()).map(|s| s.model),
        Err(GeometryError::UnknownHokuyoModel {
            sensor_type: "front".into(),
            count: 10
        })
    );
    // An explicit model needs no guess.
    let forced = ScanOptions {
        model: Some(HokuyoModel::Urg04lx),
        ..ScanOptions::default()
    };
    let s = scan("front", &[1000; 682], &forced);
    assert!(s.warnings.is_empty());
    // An empty scan is fine.
    let s = scan(URG, &[], &ScanOptions::default());
    assert!(s.points.is_empty());
}
