//! Resource limits through the facade: the chunk limit is passed to the
//! format readers, and channels sharing a schema share one decoder.
#![cfg(all(feature = "mcap", feature = "rosbag"))]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use logcore::{ChannelInfo, Error, LogReader, MessageFilter, ReadMode, Value};
use mcapfile::{Compression, WriteOptions, Writer};
use robolog::{Decoder, Limits, Registry};

/// `n` channels on one `ros1msg` schema, one message each, in zstd chunks.
fn shared_schema_mcap(n: u16) -> Vec<u8> {
    let opts = WriteOptions {
        compression: Compression::Zstd,
        ..WriteOptions::default()
    };
    let mut w = Writer::new(Vec::new(), opts).unwrap();
    let id = w
        .add_schema("test/Point", "ros1msg", b"float64 x\n")
        .unwrap();
    for i in 0..n {
        let ch = w
            .add_channel(id, &format!("/p{i}"), "ros1", &BTreeMap::new())
            .unwrap();
        let x = f64::from(i);
        w.write_message(ch, 0, u64::from(i), u64::from(i), &x.to_le_bytes())
            .unwrap();
    }
    w.finish().unwrap()
}

#[test]
fn channels_sharing_a_schema_share_one_decoder() {
    let file = shared_schema_mcap(1000);
    let builds = Arc::new(AtomicUsize::new(0));
    let counter = builds.clone();
    let mut registry = Registry::default();
    struct X;
    impl Decoder for X {
        fn decode(&self, payload: &[u8], _: u64) -> Result<Value, Error> {
            let b: [u8; 8] = payload
                .try_into()
                .map_err(|_| Error::invalid_argument("8 bytes"))?;
            Ok(Value::F64(f64::from_le_bytes(b)))
        }
    }
    registry.register("ros1", Some("ros1msg"), move |_: &ChannelInfo| {
        counter.fetch_add(1, Ordering::Relaxed);
        Ok(Box::new(X) as Box<dyn Decoder>)
    });
    let log = robolog::open_bytes(&file).unwrap().with_registry(registry);
    let mut seen = 0;
    for m in log.messages(&MessageFilter::all()).unwrap() {
        let m = m.unwrap();
        assert_eq!(log.decode(&m).unwrap(), Value::F64(seen as f64));
        seen += 1;
    }
    assert_eq!(seen, 1000);
    assert_eq!(builds.load(Ordering::Relaxed), 1);
    // The built-in ros1 decoder decodes every channel the same way.
    let log = robolog::open_bytes(&file).unwrap();
    let last = log
        .messages(&MessageFilter::all())
        .unwrap()
        .last()
        .unwrap()
        .unwrap();
    assert_eq!(
        log.decode(&last).unwrap(),
        Value::record([("x", Value::F64(999.0))])
    );
}

#[test]
fn the_chunk_limit_reaches_the_format_reader() {
    let file = shared_schema_mcap(10);
    assert_eq!(Limits::default().max_chunk_size, 512 << 20);
    let log = robolog::open_bytes(&file).unwrap();
    assert_eq!(log.messages(&MessageFilter::all()).unwrap().count(), 10);
    let tiny = Limits::default().with_max_chunk_size(16);
    let log = robolog::OpenOptions::new()
        .limits(tiny)
        .open_bytes(&file)
        .unwrap();
    let items: Vec<_> = log
        .messages(&MessageFilter::all().mode(ReadMode::Lenient))
        .unwrap()
        .collect();
    assert!(!items.is_empty());
    for i in &items {
        let e = i.as_ref().unwrap_err().to_string();
        assert!(e.contains("at most 16 uncompressed bytes"), "{e}");
    }
}
