//! The file-name rules of both profiles.

use super::*;

pub(super) fn name_rules(
    sink: &mut Sink,
    path: &str,
    scan: &Scan,
    states: &BTreeMap<u16, ChannelState>,
) {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    if !name.ends_with(".mcap") {
        sink.add(rule::EXTENSION, Location::default(), || {
            format!("the file name {name:?} does not end in .mcap")
        });
    }
    // The type the contents call for.
    let types: BTreeSet<&str> = scan
        .channels
        .values()
        .filter_map(|c| scan.schemas.get(&c.channel.schema_id))
        .filter(|s| is_osi_schema(s))
        .filter_map(|s| type_code(&s.name))
        .collect();
    let expected = match types.len() {
        0 => None,
        1 => types.iter().next().copied(),
        _ => Some("multi"),
    };
    match sink.profile {
        Profile::Osi38 => match TraceName::parse(name) {
            Err(e) => sink.add(rule::FILE_NAME_38, Location::default(), || {
                format!("the file name {name:?} does not follow the OSI 3.8.0 recommendation: {e}")
            }),
            Ok(n) => {
                if let Some(t) = expected
                    && n.type_code != t
                {
                    sink.add(rule::FILE_NAME_38, Location::default(), || {
                        format!("the file name says type {:?}, the contents are {t:?}", n.type_code)
                    });
                }
                let frames = states.values().filter(|s| s.top.is_some()).map(|s| s.count).max();
                if let Some(f) = frames
                    && f != n.frames
                {
                    sink.add(rule::FILE_NAME_38, Location::default(), || {
                        format!("the file name says {} frames, the largest OSI channel has {f} messages", n.frames)
                    });
                }
                if let Some((_, m)) = records(scan, TRACE_METADATA).first()
                    && let Some(v) = m.metadata.get("version").and_then(|v| Semver::parse(v))
                    && v.compact() != n.osi_version
                {
                    sink.add(rule::FILE_NAME_38, Location::default(), || {
                        format!("the file name says OSI version {}, {TRACE_METADATA} version is {v}", n.osi_version)
                    });
                }
            }
        },
        Profile::Draft => match DraftName::parse(name) {
            Err(e) => sink.add(rule::FILE_NAME_DRAFT, Location::default(), || {
                format!("the file name {name:?} does not follow <prefix>_<timestamp>_<type>_<suffix>.mcap: {e}")
            }),
            Ok(n) => {
                if let Some(t) = expected
                    && n.type_code != t
                {
                    sink.add(rule::FILE_NAME_DRAFT, Location::default(), || {
                        format!("the file name says type {:?}, the contents are {t:?}", n.type_code)
                    });
                }
            }
        },
        Profile::Mcap => {}
    }
}
