//! The structural checks of `doctor` on files from our writer, intact and
//! with one thing broken at a time.

mod common;

use mcapfile::{Compression, DoctorOptions, Severity, Summary, WriteOptions, Writer, doctor, op};

fn file(crcs: bool) -> Vec<u8> {
    let opts = WriteOptions {
        compression: Compression::Lz4,
        chunk_size: 600,
        crcs,
        ..WriteOptions::default()
    };
    let mut w = Writer::new(Vec::new(), opts).unwrap();
    common::write_body(&mut w);
    w.finish().unwrap()
}

#[test]
fn a_file_from_our_writer_has_only_the_order_warnings() {
    let f = file(true);
    let findings = doctor(&f, DoctorOptions::default());
    // common::messages() steps back in time every 7 messages.
    assert!(!findings.is_empty());
    assert!(
        findings
            .iter()
            .all(|x| x.severity == Severity::Warning && x.message.contains("before an earlier")),
        "{findings:?}"
    );
    let strict = doctor(
        &f,
        DoctorOptions {
            strict_message_order: true,
        },
    );
    assert!(strict.iter().all(|x| x.severity == Severity::Error));
    assert_eq!(strict.len(), findings.len());
}

#[test]
fn statistics_that_disagree_with_the_data_are_errors() {
    let mut f = file(false);
    let s = Summary::read(&f, false).unwrap().unwrap();
    let stats = s
        .summary_offsets
        .iter()
        .find(|o| o.group_opcode == op::STATISTICS)
        .unwrap();
    // message_count is the first field of the Statistics content.
    let at = stats.group_start as usize + 9;
    f[at] = 99;
    let findings = doctor(&f, DoctorOptions::default());
    let errors: Vec<_> = findings
        .iter()
        .filter(|x| x.severity == Severity::Error)
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0]
            .message
            .contains("message_count 99 but the file has 60"),
        "{}",
        errors[0]
    );
}

#[test]
fn a_chunk_index_pointing_elsewhere_is_an_error() {
    let mut f = file(false);
    let s = Summary::read(&f, false).unwrap().unwrap();
    let group = s
        .summary_offsets
        .iter()
        .find(|o| o.group_opcode == op::CHUNK_INDEX)
        .unwrap();
    // chunk_start_offset of the first Chunk Index, moved by one byte.
    let at = group.group_start as usize + 9 + 16;
    f[at] = f[at].wrapping_add(1);
    let findings = doctor(&f, DoctorOptions::default());
    assert!(
        findings
            .iter()
            .any(|x| x.severity == Severity::Error && x.message.contains("points at no chunk")),
        "{findings:?}"
    );
}

/// rosbag2 writes the channels of topics without messages (and their
/// schemas) only into the summary: legal, and a warning, not an error.
#[test]
fn channels_only_in_the_summary_of_a_rosbag2_file_are_warnings() {
    let Some(path) = robolog_testkit::corpus("ros2-mcap/only_topics.mcap") else {
        return;
    };
    let data = std::fs::read(&path).unwrap();
    let findings = doctor(&data, DoctorOptions::default());
    assert!(
        findings.iter().all(|f| f.severity == Severity::Warning),
        "{findings:?}"
    );
    let summary_only: Vec<(u64, &str)> = findings
        .iter()
        .filter(|f| f.message.contains("is not in the data section"))
        .map(|f| (f.offset, f.message.split(" is").next().unwrap_or("")))
        .collect();
    assert_eq!(
        summary_only,
        [
            (7854, "summary schema 1"),
            (12411, "summary schema 3"),
            (12645, "summary channel 1"),
            (13812, "summary channel 3"),
        ]
    );
}
