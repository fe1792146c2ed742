//! Schema and channel rules: descriptors, top-level types, channel meta-
//! data keys, versions.

use super::*;

/// Schema and channel rules; returns the number of OSI channels.
pub(super) fn channel_rules(
    sink: &mut Sink,
    scan: &Scan,
    summary: Option<&Summary>,
    descriptors: &mut HashMap<u16, Result<Descriptors, String>>,
) -> usize {
    // Schemas used by OSI channels (or named osi3.*).
    let mut versions_per_type: BTreeMap<(String, String), Vec<u16>> = BTreeMap::new();
    let mut osi_schemas: BTreeSet<u16> = BTreeSet::new();
    for (id, s) in &scan.schemas {
        if !is_osi_schema(s) {
            continue;
        }
        osi_schemas.insert(*id);
        let loc = Location::at(s.offset);
        if s.encoding != "protobuf" {
            sink.add(rule::SCHEMA_ENCODING, loc.clone(), || {
                format!(
                    "schema {id} {:?} has encoding {:?}, not protobuf",
                    s.name, s.encoding
                )
            });
            continue;
        }
        if type_code(&s.name).is_none() {
            sink.add(rule::SCHEMA_NAME, loc.clone(), || {
                format!("schema {id} {:?} is not an OSI top-level message", s.name)
            });
        }
        if sink.profile == Profile::Draft && s.name == "osi3.SensorViewConfiguration" {
            sink.add(rule::DRAFT_TIMESTAMP_TYPE, loc.clone(), || {
                format!("schema {id} {:?}: the draft stores only top-level messages with a timestamp field", s.name)
            });
        }
        let d = descriptors.entry(*id).or_insert_with(|| {
            Descriptors::from_file_descriptor_set(&s.data).map_err(|e| e.to_string())
        });
        match d {
            Err(e) => sink.add(rule::SCHEMA_DESCRIPTOR, loc.clone(), || {
                format!(
                    "schema {id} {:?}: the data is not a usable FileDescriptorSet: {e}",
                    s.name
                )
            }),
            Ok(d) => {
                if let Err(e) = TopLevel::new(d, &s.name) {
                    sink.add(rule::SCHEMA_DESCRIPTOR, loc.clone(), || {
                        format!("schema {id} {:?}: {e}", s.name)
                    });
                }
                let v = d
                    .interface_version()
                    .map(|v| v.to_string())
                    .unwrap_or_default();
                versions_per_type
                    .entry((s.name.clone(), v))
                    .or_default()
                    .push(*id);
            }
        }
        if let Some(sm) = summary
            && !sm.schemas.contains_key(id)
        {
            sink.add(rule::SCHEMA_SUMMARY, loc, || {
                format!(
                    "schema {id} {:?} is not repeated in the summary section",
                    s.name
                )
            });
        }
    }
    for ((name, v), ids) in &versions_per_type {
        if ids.len() > 1 {
            sink.add(rule::SCHEMA_DUPLICATE, Location::default(), || {
                format!("schemas {ids:?} all define {name} (interface version {v:?})")
            });
        }
    }

    let mut topics: BTreeMap<&str, Vec<u16>> = BTreeMap::new();
    let mut osi_channels = 0;
    let mut osi_min_max: Option<(Semver, Semver)> = None;
    let mut pb_min_max: Option<(Semver, Semver)> = None;
    for (id, rec) in &scan.channels {
        let c = &rec.channel;
        if !osi_schemas.contains(&c.schema_id) {
            continue;
        }
        osi_channels += 1;
        topics.entry(c.topic.as_str()).or_default().push(*id);
        let loc = Location::channel(Some(rec.offset), c);
        if c.message_encoding != "protobuf" {
            sink.add(rule::CHANNEL_ENCODING, loc.clone(), || {
                format!("message_encoding is {:?}, not protobuf", c.message_encoding)
            });
        }
        if let Some(sm) = summary
            && !sm.channels.contains_key(id)
        {
            sink.add(rule::CHANNEL_SUMMARY, loc.clone(), || {
                "the channel is not repeated in the summary section".into()
            });
        }
        let md = &c.metadata;
        match sink.profile {
            Profile::Osi38 => {
                for key in [CHANNEL_OSI_VERSION, CHANNEL_PROTOBUF_VERSION] {
                    match md.get(key) {
                        None => sink.add(rule::CHANNEL_REQUIRED, loc.clone(), || {
                            format!("the channel lacks the required key {key}")
                        }),
                        Some(v) => match Semver::parse(v) {
                            None => sink.add(rule::CHANNEL_SEMVER, loc.clone(), || {
                                format!("{key} = {v:?} is not a semantic version")
                            }),
                            Some(v) => {
                                let slot = if key == CHANNEL_OSI_VERSION {
                                    &mut osi_min_max
                                } else {
                                    &mut pb_min_max
                                };
                                *slot = Some(match slot.take() {
                                    None => (v.clone(), v),
                                    Some((a, b)) => (a.min(v.clone()), b.max(v)),
                                });
                            }
                        },
                    }
                }
                if !md.contains_key(CHANNEL_DESCRIPTION) {
                    sink.add(rule::CHANNEL_DESCRIPTION_38, loc.clone(), || {
                        format!("the channel lacks the recommended key {CHANNEL_DESCRIPTION}")
                    });
                }
                for k in md.keys() {
                    if k.starts_with("net.asam.osi")
                        && ![
                            CHANNEL_OSI_VERSION,
                            CHANNEL_PROTOBUF_VERSION,
                            CHANNEL_DESCRIPTION,
                        ]
                        .contains(&k.as_str())
                    {
                        sink.add(rule::RESERVED, loc.clone(), || {
                            format!("channel key {k:?} uses the reserved prefix net.asam.osi")
                        });
                    }
                }
                let legacy: Vec<&str> = ["osi_version", "protobuf", "protobuf_version"]
                    .into_iter()
                    .filter(|k| md.contains_key(*k))
                    .collect();
                if !legacy.is_empty() {
                    sink.add(rule::LEGACY_KEYS, loc.clone(), || {
                        format!(
                            "the channel also carries the draft key(s) {}",
                            legacy.join(", ")
                        )
                    });
                }
            }
            Profile::Draft => {
                match md.get("osi_version") {
                    None => sink.add(rule::DRAFT_CHANNEL_REQUIRED, loc.clone(), || {
                        "the channel lacks the key osi_version".into()
                    }),
                    Some(v) if Semver::parse(v).is_none() => {
                        sink.add(rule::DRAFT_CHANNEL_REQUIRED, loc.clone(), || {
                            format!("osi_version = {v:?} is not a semantic version")
                        })
                    }
                    Some(_) => {}
                }
                match (md.get("protobuf"), md.get("protobuf_version")) {
                    (Some(v), _) if Semver::parse(v).is_none() => {
                        sink.add(rule::DRAFT_CHANNEL_REQUIRED, loc.clone(), || {
                            format!("protobuf = {v:?} is not a semantic version")
                        })
                    }
                    (Some(_), _) => {}
                    (None, Some(_)) => sink.add(rule::DRAFT_CHANNEL_KEY_NAME, loc.clone(), || {
                        "the protobuf version is under protobuf_version (as proof-of-concept writers wrote it), the draft names the key protobuf".into()
                    }),
                    (None, None) => sink.add(rule::DRAFT_CHANNEL_REQUIRED, loc.clone(), || {
                        "the channel lacks the key protobuf".into()
                    }),
                }
                if !md.contains_key("description") {
                    sink.add(rule::DRAFT_CHANNEL_DESCRIPTION, loc.clone(), || {
                        "the channel lacks the recommended key description".into()
                    });
                }
            }
            Profile::Mcap => {}
        }
        // The schema's own interface version against the channel's key.
        let key = match sink.profile {
            Profile::Osi38 | Profile::Mcap => CHANNEL_OSI_VERSION,
            Profile::Draft => "osi_version",
        };
        if let (Some(Ok(d)), Some(v)) = (
            descriptors.get(&c.schema_id),
            md.get(key).and_then(|v| Semver::parse(v)),
        ) && let Some(iv) = d.interface_version()
            && (
                u64::from(iv.major),
                u64::from(iv.minor),
                u64::from(iv.patch),
            ) != v.triple()
        {
            sink.add(rule::SCHEMA_VERSION, loc.clone(), || {
                format!("the schema's descriptor says OSI {iv} (current_interface_version), the channel's {key} says {v}")
            });
        }
    }
    for (topic, ids) in &topics {
        if ids.len() > 1 {
            let c = &scan.channels[&ids[1]];
            sink.add(
                rule::CHANNEL_TOPIC,
                Location::channel(Some(c.offset), &c.channel),
                || format!("OSI channels {ids:?} share the topic {topic:?}"),
            );
        }
    }
    if osi_channels == 0 {
        sink.add(rule::CHANNEL_PRESENT, Location::default(), || {
            "no OSI channel (a channel whose schema is osi3.<message>)".into()
        });
    }
    // The file's declared ranges against the channels'.
    if sink.profile == Profile::Osi38
        && let Some((at, m)) = records(scan, TRACE_METADATA).first().map(|r| (r.0, &r.1))
    {
        for (lo, hi, range, what) in [
            ("min_osi_version", "max_osi_version", &osi_min_max, "OSI"),
            (
                "min_protobuf_version",
                "max_protobuf_version",
                &pb_min_max,
                "protobuf",
            ),
        ] {
            let (Some(a), Some(b)) = (
                m.metadata.get(lo).and_then(|v| Semver::parse(v)),
                m.metadata.get(hi).and_then(|v| Semver::parse(v)),
            ) else {
                continue;
            };
            if let Some((cmin, cmax)) = range
                && (*cmin < a || *cmax > b)
            {
                sink.add(rule::VERSION_RANGE, Location::at(at), || {
                    format!("the channels use {what} versions {cmin}..{cmax}, outside the file's {lo}..{hi} = {a}..{b}")
                });
            }
        }
    }
    osi_channels
}
