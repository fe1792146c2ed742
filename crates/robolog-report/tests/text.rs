//! Text topics as the log's messages: a ROS 1 bag's `/rosout`
//! (`rosgraph_msgs/Log`), against the values rosbags 0.11 decodes from
//! the same bag (`AnyReader`, `deserialize`).

use robolog_report::{ReportOptions, report_log};

#[test]
fn rosout_is_text_not_plots() {
    let Some(path) = robolog_testkit::corpus("rosbag/rosbagjs-example-bz2.bag") else {
        eprintln!("note: no corpus, rosout not checked");
        return;
    };
    let opts = ReportOptions {
        check: false,
        ..ReportOptions::default()
    };
    let r = report_log(&robolog::open(&path).unwrap(), &path, &opts).unwrap();
    // rosbags: 10 messages on /rosout, every one of level 2 (INFO).
    assert_eq!(r.events.len(), 10);
    assert!(r.events.iter().all(|e| e.level == "INFO"));
    let first = &r.events[0];
    assert_eq!(first.t, 1_396_293_887_844_783_943);
    assert_eq!(
        first.text,
        "/rosout [/record_1396293886837508126] Subscribing to /rosout"
    );
    assert_eq!(r.events[1].t, 1_396_293_887_844_824_509);
    assert_eq!(
        r.events[2].text,
        "/rosout [/record_1396293886837508126] Subscribing to /tf"
    );
    let last = r.events.last().unwrap();
    assert_eq!(last.t, 1_396_293_888_045_869_962);
    assert_eq!(
        last.text,
        "/rosout [/static_transform_publisher_1396293887803024259] Spinning until killed publishing turtle1 to carrot"
    );
    assert!(r.events.windows(2).all(|w| w[0].t <= w[1].t));
    // Its level and source line are no longer plotted.
    let rosout = r.channels.iter().find(|c| c.topic == "/rosout").unwrap();
    assert!(rosout.series.is_empty());
    assert_eq!(rosout.message_count, 10);
    // A range keeps the messages in it only.
    let opts = ReportOptions {
        check: false,
        start: Some("@1396293887.8448".parse().unwrap()),
        ..ReportOptions::default()
    };
    let r = report_log(&robolog::open(&path).unwrap(), &path, &opts).unwrap();
    assert_eq!(r.events.len(), 9);
    assert_eq!(r.events[0].t, 1_396_293_887_844_824_509);
}
