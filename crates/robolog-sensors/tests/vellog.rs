//! VEL logs (the committed testdata, made by the vellog writer): every
//! sensor topic decodes, and equals what the same log gives after
//! `robolog::convert::to_mcap` turned it into Foxglove JSON channels
//! (`foxglove.PointCloud`, `CompressedImage`, `LocationFix`), read back
//! through the MCAP registry's JSON decoder: base64 data, numeric enums.

use robolog_sensors::{
    CloudOptions, ImageOptions, Kind, Range, clouds, images, sensor_topics, track,
};

#[test]
fn vel_sensors_match_their_foxglove_conversion() {
    let path = robolog_testkit::workspace_root().join("testdata/vellog/sensors.vel");
    let vel = robolog::open(&path).unwrap();
    let topics = sensor_topics(&vel).unwrap();
    assert!(topics.iter().any(|t| t.kind == Kind::Cloud), "{topics:?}");
    let mut out = Vec::new();
    robolog::convert::to_mcap(
        &vel,
        &mut out,
        &robolog::convert::ConvertOptions::default(),
        &mut |_| {},
    )
    .unwrap();
    let mcap = robolog::open_bytes(&out).unwrap();
    let mcap_topics = sensor_topics(&mcap).unwrap();
    let mut compared = 0;
    for t in &topics {
        match t.kind {
            Kind::Cloud | Kind::Scan => {
                let a: Vec<_> = clouds(&vel, &t.topic, &Range::all(), CloudOptions::default())
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                assert!(!a.is_empty());
                if t.kind == Kind::Cloud {
                    let b: Vec<_> = clouds(&mcap, &t.topic, &Range::all(), CloudOptions::default())
                        .unwrap()
                        .collect::<Result<_, _>>()
                        .unwrap();
                    assert_eq!(a.len(), b.len());
                    for (x, y) in a.iter().zip(&b) {
                        assert_eq!(x.value.points, y.value.points);
                        assert!(x.value.points > 0);
                        for i in 0..x.value.points {
                            for f in ["x", "y", "z", "intensity"] {
                                assert_eq!(x.value.value(i, f, 0), y.value.value(i, f, 0));
                            }
                        }
                    }
                    compared += 1;
                }
            }
            Kind::Image => {
                let a: Vec<_> = images(&vel, &t.topic, &Range::all(), ImageOptions::default())
                    .unwrap()
                    .collect();
                if mcap_topics.iter().any(|m| m.topic == t.topic) {
                    // The testdata's frames are JPEG stubs (SOI, no image):
                    // both paths must agree frame by frame, decoded or refused.
                    let b: Vec<_> = images(&mcap, &t.topic, &Range::all(), ImageOptions::default())
                        .unwrap()
                        .collect();
                    assert_eq!(a.len(), b.len());
                    for (x, y) in a.iter().zip(&b) {
                        match (x, y) {
                            (Ok(x), Ok(y)) => assert_eq!(x, y),
                            (Err(x), Err(y)) => assert_eq!(x.message, y.message),
                            _ => panic!("{x:?} vs {y:?}"),
                        }
                    }
                    compared += 1;
                }
            }
            Kind::Position => {
                let (a, problems) = track(&vel, &t.topic, &Range::all()).unwrap();
                assert!(problems.is_empty());
                let (b, _) = track(&mcap, &format!("{}/fix", t.topic), &Range::all()).unwrap();
                assert_eq!(a.len(), b.len());
                for (x, y) in a.iter().zip(&b) {
                    assert_eq!(
                        (x.value.latitude, x.value.longitude),
                        (y.value.latitude, y.value.longitude)
                    );
                    assert!((x.value.altitude - y.value.altitude).abs() < 1e-3);
                }
                compared += 1;
            }
        }
    }
    assert!(compared >= 2, "{topics:?}");
}
