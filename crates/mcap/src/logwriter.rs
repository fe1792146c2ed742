//! [`logcore::LogWriter`] for [`Writer`]: channels with their schemas,
//! messages, and metadata entries (one Metadata record, written at finish).

use std::io::Write;

use logcore::{ChannelId, ChannelInfo, LogWriter, Message};

use crate::write::Writer;

fn invalid(msg: String) -> logcore::Error {
    logcore::Error::InvalidArgument(msg)
}

impl<W: Write> LogWriter for Writer<W> {
    /// Uses `info.id` when it fits in u16 and is free, else the next id.
    /// A schema identical to an earlier one is shared.
    fn add_channel(&mut self, info: &ChannelInfo) -> logcore::Result<ChannelId> {
        let schema_id = match &info.schema {
            Some(s) => match self.find_schema(&s.name, &s.encoding, &s.data) {
                Some(id) => id,
                None => self.add_schema(&s.name, &s.encoding, &s.data)?,
            },
            None => 0,
        };
        let id = match u16::try_from(info.id.0) {
            Ok(id) if !self.has_channel(id) => {
                self.add_channel_with_id(
                    id,
                    schema_id,
                    &info.topic,
                    &info.message_encoding,
                    &info.metadata,
                )?;
                id
            }
            _ => Writer::add_channel(
                self,
                schema_id,
                &info.topic,
                &info.message_encoding,
                &info.metadata,
            )?,
        };
        Ok(ChannelId(u32::from(id)))
    }

    fn write_message(&mut self, m: &Message<'_>) -> logcore::Result<()> {
        let channel = u16::try_from(m.channel.0)
            .map_err(|_| invalid(format!("channel {} was not added", m.channel)))?;
        let time = |t: logcore::Timestamp| {
            u64::try_from(t.as_nanos())
                .map_err(|_| invalid(format!("MCAP cannot store the negative time {t}")))
        };
        let log_time = time(m.log_time)?;
        let publish_time = m.publish_time.map_or(Ok(log_time), time)?;
        let sequence = m.sequence.map_or(0, |s| s as u32);
        Writer::write_message(self, channel, sequence, log_time, publish_time, &m.payload)?;
        Ok(())
    }

    fn set_metadata(&mut self, key: &str, value: &str) -> logcore::Result<()> {
        self.pending_metadata.insert(key.into(), value.into());
        Ok(())
    }

    fn finish(&mut self) -> logcore::Result<()> {
        self.finish_in_place()
    }
}

#[cfg(test)]
mod tests {
    use logcore::{LogReader, MessageFilter, Payload, Schema, Timestamp};

    use super::*;
    use crate::{Mcap, WriteOptions};

    #[test]
    fn writes_through_the_trait_and_reads_back() {
        let mut w = Writer::new(Vec::new(), WriteOptions::default()).unwrap();
        let mut info = ChannelInfo::new(ChannelId(7), "/imu", "Imu", "json");
        info.schema = Some(std::sync::Arc::new(Schema {
            name: "Imu".into(),
            encoding: "jsonschema".into(),
            data: b"{}".to_vec(),
        }));
        let a = LogWriter::add_channel(&mut w, &info).unwrap();
        info.topic = "/imu2".into();
        let b = LogWriter::add_channel(&mut w, &info).unwrap();
        assert_eq!(a, ChannelId(7));
        assert_eq!(b, ChannelId(8));
        let mut m = Message::new(b, Timestamp(42), Payload::Borrowed(br#"{"ax": 1.5}"#));
        m.sequence = Some(3);
        LogWriter::write_message(&mut w, &m).unwrap();
        let neg = Message::new(a, Timestamp(-1), Payload::Borrowed(b"{}"));
        assert!(LogWriter::write_message(&mut w, &neg).is_err());
        w.set_metadata("vehicle", "test car").unwrap();
        LogWriter::finish(&mut w).unwrap();
        let file = w.into_inner();

        let r = Mcap::new(&file).unwrap();
        let s = r.summary().unwrap();
        assert_eq!(s.channels.len(), 2);
        assert_eq!(s.channels[1].info.topic, "/imu2");
        assert_eq!(s.metadata["metadata.robolog.vehicle"], "test car");
        let got = r
            .messages(&MessageFilter::all())
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(got.channel, ChannelId(8));
        assert_eq!(got.sequence, Some(3));
        assert_eq!(got.publish_time, Some(Timestamp(42)));
        assert_eq!(
            r.decode(&got).unwrap().get("ax").and_then(|v| v.as_f64()),
            Some(1.5)
        );
        // Both channels share the one schema.
        assert_eq!(r.mcap_summary().unwrap().schemas.len(), 1);
    }
}
