//! [`logcore::LogWriter`] for [`Writer`]: one connection per channel. The
//! definition is the channel's schema text; the md5 sum comes from the
//! channel's `md5sum` metadata (as the bag reader sets it) or is computed
//! from the definition; `callerid` and `latching` metadata become
//! connection header fields.

use std::io::{Seek, Write};

use logcore::{ChannelId, ChannelInfo, LogWriter, Message};

use crate::msg::MessageType;
use crate::records::Connection;
use crate::time::RosTime;
use crate::write::Writer;

impl<W: Write + Seek> LogWriter for Writer<W> {
    fn add_channel(&mut self, info: &ChannelInfo) -> logcore::Result<ChannelId> {
        let def = info
            .schema
            .as_ref()
            .map(|s| String::from_utf8_lossy(&s.data).into_owned())
            .unwrap_or_default();
        let md5 = match info.metadata.get("md5sum") {
            Some(m) => m.clone(),
            None => MessageType::parse(&info.type_name, &def)
                .map(|t| t.md5sum)
                .unwrap_or_else(|_| "*".into()),
        };
        let mut conn = Connection::new(0, info.topic.clone(), info.type_name.clone(), md5, def);
        for (k, v) in &info.metadata {
            if matches!(k.as_str(), "callerid" | "latching") {
                conn.header.push((k.clone(), v.clone().into_bytes()));
            }
        }
        conn.callerid = info.metadata.get("callerid").cloned();
        conn.latching = info.metadata.get("latching").is_some_and(|v| v == "1");
        Ok(ChannelId(self.add_connection(conn)?))
    }

    fn write_message(&mut self, message: &Message<'_>) -> logcore::Result<()> {
        let time = RosTime::from_timestamp(message.log_time).ok_or_else(|| {
            logcore::Error::InvalidArgument(format!(
                "time {} ns is outside the range of a ROS time",
                message.log_time.as_nanos()
            ))
        })?;
        Ok(self.write(message.channel.0, time, &message.payload)?)
    }

    fn set_metadata(&mut self, _key: &str, _value: &str) -> logcore::Result<()> {
        // Bags have no place for file-level metadata.
        Ok(())
    }

    fn finish(&mut self) -> logcore::Result<()> {
        Ok(Writer::finish(self)?)
    }
}
