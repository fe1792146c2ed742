//! `LogReader::value_type` of a bag: the type each connection's definition
//! declares, admitting every decoded message.

mod common;

use std::io::Cursor;

use common::*;
use logcore::{ChannelId, LogReader, MessageFilter, ValueType as T};
use rosbag12::{Bag, Connection, RosTime, Writer, WriterOptions};

#[test]
fn connections_declare_the_types_of_their_messages() {
    let (bytes, written) = write_bag(WriterOptions::default(), 30);
    let bag = Bag::new(&bytes).unwrap();
    let point = T::record([("x", T::F64), ("y", T::F64), ("z", T::F64)]);
    let sample = T::record([
        (
            "header",
            T::record([("seq", T::U32), ("stamp", T::Time), ("frame_id", T::String)]),
        ),
        ("vec", T::fixed(T::F64, 3)),
        ("labels", T::list(T::String)),
        ("points", T::list(point)),
        ("blob", T::Bytes),
        ("age", T::Duration),
    ]);
    let string = T::record([("data", T::String)]);
    let ids: Vec<ChannelId> = bag.channels().unwrap().iter().map(|c| c.id).collect();
    assert_eq!(ids.len(), 3);
    assert_eq!(bag.value_type(ids[0]).unwrap(), Some(sample));
    assert_eq!(bag.value_type(ids[1]).unwrap(), Some(string.clone()));
    assert_eq!(bag.value_type(ids[2]).unwrap(), Some(string));
    let mut n = 0;
    for m in LogReader::messages(&bag, &MessageFilter::all()).unwrap() {
        let m = m.unwrap();
        let v = LogReader::decode(&bag, &m).unwrap();
        let t = bag.value_type(m.channel).unwrap().unwrap();
        assert_eq!(t.admits(&v), Ok(()), "{v:?}");
        n += 1;
    }
    assert_eq!(n, written.len());
    // No such connection: an error, as for decoding.
    let e = bag.value_type(ChannelId(99)).unwrap_err();
    assert!(e.to_string().contains("connection 99"), "{e}");
}

#[test]
fn a_definition_that_does_not_parse_declares_no_type() {
    let mut w = Writer::new(Cursor::new(Vec::new()), WriterOptions::default()).unwrap();
    let c = w
        .add_connection(Connection::new(0, "/bad", "a/B", "*", "flot64 x"))
        .unwrap();
    w.write(c, RosTime { sec: 1, nsec: 0 }, &[0; 8]).unwrap();
    w.finish().unwrap();
    let bytes = w.into_inner().into_inner();
    let bag = Bag::new(&bytes).unwrap();
    assert_eq!(bag.value_type(ChannelId(c)).unwrap(), None);
}
