//! The per-message checks (publish time, log time, order, version) run
//! during the scan.

use super::*;

pub(super) struct MessageCtx<'s> {
    pub(super) scan: &'s mut Scan,
    pub(super) states: &'s mut BTreeMap<u16, ChannelState>,
    pub(super) descriptors: &'s mut HashMap<u16, Result<Descriptors, String>>,
    pub(super) out: &'s mut Vec<(&'static str, Location, String)>,
    pub(super) checked: &'s mut u64,
    pub(super) summary: Option<&'s Summary>,
}

impl MessageCtx<'_> {
    pub(super) fn channel(&self, id: u16) -> Option<&Channel> {
        self.scan
            .channels
            .get(&id)
            .map(|c| &c.channel)
            .or_else(|| self.summary.and_then(|s| s.channels.get(&id)))
    }

    pub(super) fn message(&mut self, at: u64, m: &Message<'_>) {
        let r = self
            .scan
            .ranges
            .entry(m.channel_id)
            .or_insert((m.log_time, m.log_time));
        r.0 = r.0.min(m.log_time);
        r.1 = r.1.max(m.log_time);
        let channel = self.channel(m.channel_id).cloned();
        if let Some(last) = self.scan.last_log_time
            && m.log_time < last
        {
            let loc = match &channel {
                Some(c) => Location::channel(Some(at), c),
                None => Location::at(at),
            };
            self.out.push((
                rule::LOG_TIME_ORDER,
                loc,
                format!(
                    "log_time {} ns is before the previous message's {last} ns",
                    m.log_time
                ),
            ));
        }
        self.scan.last_log_time = Some(self.scan.last_log_time.unwrap_or(0).max(m.log_time));
        let Some(channel) = channel else { return };
        if !self.states.contains_key(&channel.id) {
            let st = self.new_state(&channel);
            self.states.insert(channel.id, st);
        }
        let Some(st) = self.states.get_mut(&channel.id) else {
            return;
        };
        let index = st.count;
        st.count += 1;
        st.first.get_or_insert(m.log_time);
        st.last = Some(m.log_time);
        let Some(top) = &st.top else { return };
        *self.checked += 1;
        let loc = Location {
            message_index: Some(index),
            ..Location::channel(Some(at), &channel)
        };
        if top.has_timestamp_field() {
            match top.timestamp(&m.data) {
                Err(e) => self.out.push((
                    rule::MESSAGE_DECODE,
                    loc.clone(),
                    format!("the {} message does not decode: {e}", top.full_name()),
                )),
                Ok(None) => self.out.push((
                    rule::MESSAGE_TIMESTAMP,
                    loc.clone(),
                    format!("the {} message has no timestamp", top.full_name()),
                )),
                Ok(Some(ts)) => match ts.to_nanos() {
                    None => self.out.push((
                        rule::MESSAGE_TIMESTAMP_RANGE,
                        loc.clone(),
                        format!(
                            "timestamp seconds {} nanos {} is not a valid time (seconds >= 0, nanos <= 999999999, within 2^64 ns)",
                            ts.seconds, ts.nanos
                        ),
                    )),
                    Some(ns) => {
                        let osi = format!("the OSI timestamp is {ns} ns ({}.{:09} s)", ts.seconds, ts.nanos);
                        let (p, l) = (m.publish_time, m.log_time);
                        let rounding: Vec<String> = [("publish_time", p), ("log_time", l)]
                            .into_iter()
                            .filter(|(_, t)| t.abs_diff(ns) == 1)
                            .map(|(w, t)| format!("{w} {t} ns"))
                            .collect();
                        if !rounding.is_empty() {
                            self.out.push((
                                rule::TIME_ROUNDING,
                                loc.clone(),
                                format!("{} but {osi}: 1 ns off, a floating-point rounding of the writer", rounding.join(" and ")),
                            ));
                        }
                        if p.abs_diff(ns) > 1 {
                            self.out.push((
                                rule::PUBLISH_TIME,
                                loc.clone(),
                                format!("publish_time {p} ns but {osi}"),
                            ));
                        }
                        if l.abs_diff(ns) > 1 {
                            let msg = format!("log_time {l} ns but {osi}");
                            self.out.push((rule::LOG_TIME_38, loc.clone(), msg.clone()));
                            self.out.push((rule::LOG_TIME_DRAFT, loc.clone(), msg));
                        }
                    }
                },
            }
        }
        if let Some(expected) = &st.expected_version {
            match top.version(&m.data) {
                Ok(Some(v))
                    if (u64::from(v.major), u64::from(v.minor), u64::from(v.patch))
                        != expected.triple() =>
                {
                    self.out.push((
                        rule::MESSAGE_VERSION,
                        loc,
                        format!("the message's version field is {v}, the channel says {expected}"),
                    ));
                }
                Err(e) if !top.has_timestamp_field() => self.out.push((
                    rule::MESSAGE_DECODE,
                    loc,
                    format!("the {} message does not decode: {e}", top.full_name()),
                )),
                _ => {}
            }
        }
    }

    pub(super) fn new_state(&mut self, channel: &Channel) -> ChannelState {
        let mut st = ChannelState {
            top: None,
            expected_version: None,
            count: 0,
            first: None,
            last: None,
        };
        let Some(schema) = self.scan.schemas.get(&channel.schema_id).or(None) else {
            return st;
        };
        if !is_osi_schema(schema) || schema.encoding != "protobuf" {
            return st;
        }
        let d = self
            .descriptors
            .entry(channel.schema_id)
            .or_insert_with(|| {
                Descriptors::from_file_descriptor_set(&schema.data).map_err(|e| e.to_string())
            });
        if let Ok(d) = d {
            st.top = TopLevel::new(d, &schema.name).ok();
        }
        st.expected_version = [CHANNEL_OSI_VERSION, "osi_version"]
            .iter()
            .find_map(|k| channel.metadata.get(*k))
            .and_then(|v| Semver::parse(v));
        st
    }
}
