//! Decoding OSI messages from an MCAP file with your own prost types.
//!
//! In a real project the message types come from `prost-build` run over
//! the OSI `.proto` files; here minimal versions are written by hand.
//! prost skips the fields a type does not declare, so a `SensorView` with
//! only `version` and `timestamp` reads any real SensorView.
//!
//! ```text
//! cargo run -p osi-mcap --example prost_decode -- trace.mcap
//! ```

use logcore::{LogReader, MessageFilter};
use mcapfile::Mcap;
use prost::Message;

/// `osi3.Timestamp` (osi_common.proto).
#[derive(Clone, PartialEq, prost::Message)]
struct Timestamp {
    #[prost(int64, optional, tag = "1")]
    seconds: Option<i64>,
    #[prost(uint32, optional, tag = "2")]
    nanos: Option<u32>,
}

/// `osi3.InterfaceVersion` (osi_version.proto).
#[derive(Clone, PartialEq, prost::Message)]
struct InterfaceVersion {
    #[prost(uint32, optional, tag = "1")]
    version_major: Option<u32>,
    #[prost(uint32, optional, tag = "2")]
    version_minor: Option<u32>,
    #[prost(uint32, optional, tag = "3")]
    version_patch: Option<u32>,
}

/// `osi3.SensorView` (osi_sensorview.proto), only its first two fields.
#[derive(Clone, PartialEq, prost::Message)]
struct SensorView {
    #[prost(message, optional, tag = "1")]
    version: Option<InterfaceVersion>,
    #[prost(message, optional, tag = "2")]
    timestamp: Option<Timestamp>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: prost_decode <file.mcap>");
        std::process::exit(2);
    };
    let data = std::fs::read(&path)?;
    let mcap = Mcap::new(&data)?;

    // The SensorView channels: protobuf messages with the schema osi3.SensorView.
    let channels: Vec<_> = mcap
        .channels()?
        .into_iter()
        .filter(|c| {
            c.message_encoding == "protobuf"
                && c.schema
                    .as_ref()
                    .is_some_and(|s| s.encoding == "protobuf" && s.name == "osi3.SensorView")
        })
        .collect();
    if channels.is_empty() {
        eprintln!("no osi3.SensorView channel");
        return Ok(());
    }
    let filter = MessageFilter {
        channels: Some(channels.iter().map(|c| c.id).collect()),
        ..MessageFilter::all()
    };
    for msg in mcap.messages(&filter)? {
        let msg = msg?;
        let sv = SensorView::decode(&*msg.payload)?;
        let ts = sv.timestamp.unwrap_or_default();
        let v = sv.version.unwrap_or_default();
        let topic = channels
            .iter()
            .find(|c| c.id == msg.channel)
            .map_or("", |c| c.topic.as_str());
        println!(
            "{topic}: log_time {} ns, OSI timestamp {}.{:09} s, OSI {}.{}.{}",
            msg.log_time.0,
            ts.seconds.unwrap_or(0),
            ts.nanos.unwrap_or(0),
            v.version_major.unwrap_or(0),
            v.version_minor.unwrap_or(0),
            v.version_patch.unwrap_or(0),
        );
    }
    Ok(())
}
