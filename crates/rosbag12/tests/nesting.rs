//! Message definitions nested deeper than `msg::MAX_NESTING` are refused
//! with an error instead of exhausting the stack; at the limit they decode.
//! `Limits::max_nesting` raises or lowers the limit.

use std::io::Cursor;

use logcore::Value;
use rosbag12::msg::MAX_NESTING;
use rosbag12::{Bag, Connection, Limits, MessageType, RosTime, Writer, WriterOptions};

fn limit_text(n: usize) -> String {
    robolog_testkit::nesting_limit_text(n)
}

/// A definition of `deep/T0` holding `deep/T1` … down to `deep/T{levels-1}`,
/// which holds one `int32`: `levels` levels deep.
fn chain(levels: usize) -> String {
    robolog_testkit::msg_chain("deep", levels, "int32 leaf")
}

/// A bag with one connection of type `deep/T0` (definition `text`) and one
/// 4-byte message holding 7.
fn bag_with(text: &str) -> Vec<u8> {
    let mut w = Writer::new(Cursor::new(Vec::new()), WriterOptions::default()).unwrap();
    let conn = Connection::new(0, "/deep", "deep/T0", "*", text);
    let id = w.add_connection(conn).unwrap();
    w.write(id, RosTime { sec: 1, nsec: 0 }, &7i32.to_le_bytes())
        .unwrap();
    w.finish().unwrap();
    w.into_inner().into_inner()
}

/// Runs `f` on a thread with a 256 KiB stack: far too small for a
/// recursion 20,000 levels deep, so passing proves the limit holds.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn a_definition_nested_20000_deep_is_refused() {
    on_small_stack(|| {
        let text = chain(20_000);
        let e = MessageType::parse("deep/T0", &text).unwrap_err();
        assert_eq!(
            e,
            format!(
                "message types nested {}: deep/T0 nests deep/T{MAX_NESTING} deeper",
                limit_text(MAX_NESTING)
            )
        );
        let bytes = bag_with(&text);
        let bag = Bag::new(&bytes).unwrap();
        let e = bag.decode(0, &7i32.to_le_bytes()).unwrap_err().to_string();
        assert!(e.contains("a valid definition of deep/T0"), "{e}");
        assert!(e.contains(&limit_text(64)), "{e}");
    });
}

#[test]
fn a_deep_chain_met_leaf_first_is_refused() {
    // The top type is flat; the other sections form a chain listed leaf
    // first, so no single path from a visited type is long: the measured
    // depth still catches it.
    on_small_stack(|| {
        let n = 1000;
        let mut text = String::from("int32 a\n");
        for i in (1..=n).rev() {
            text.push_str(&"=".repeat(80));
            text.push_str(&format!("\nMSG: deep/U{i}\n"));
            if i == n {
                text.push_str("int32 leaf\n");
            } else {
                text.push_str(&format!("deep/U{} next\n", i + 1));
            }
        }
        let e = MessageType::parse("deep/T0", &text).unwrap_err();
        assert_eq!(
            e,
            format!(
                "message types nested {}: deep/U{} nests {} deep",
                limit_text(MAX_NESTING),
                n - MAX_NESTING,
                MAX_NESTING + 1
            )
        );
    });
}

#[test]
fn a_definition_at_the_limit_decodes() {
    assert_eq!(MAX_NESTING, 64);
    let text = chain(MAX_NESTING);
    let t = MessageType::parse("deep/T0", &text).unwrap();
    let mut v = t.decode(&7i32.to_le_bytes(), 0).unwrap();
    for _ in 1..MAX_NESTING {
        v = v.get("next").unwrap().clone();
    }
    assert_eq!(v, Value::Struct(vec![("leaf".into(), Value::I64(7))]));

    let bytes = bag_with(&text);
    let bag = Bag::new(&bytes).unwrap();
    assert_eq!(
        bag.decode(0, &7i32.to_le_bytes()).unwrap(),
        t.decode(&7i32.to_le_bytes(), 0).unwrap()
    );
    // One level more is refused.
    let e = MessageType::parse("deep/T0", &chain(MAX_NESTING + 1)).unwrap_err();
    assert!(e.contains("nests deep/T64 deeper"), "{e}");
}

/// The leaf of a decoded `chain(levels)` value.
fn leaf(mut v: Value, levels: usize) -> Value {
    for _ in 1..levels {
        v = v.get("next").unwrap().clone();
    }
    v
}

#[test]
fn a_raised_limit_reads_what_the_default_refuses() {
    let text = chain(70);
    let e = MessageType::parse("deep/T0", &text).unwrap_err();
    assert!(e.contains(&limit_text(64)), "{e}");
    let raised = Limits::default().with_max_nesting(100);
    let t = MessageType::parse_with_limits("deep/T0", &text, &raised).unwrap();
    assert_eq!(t.max_nesting(), 100);
    let v = t.decode(&7i32.to_le_bytes(), 0).unwrap();
    assert_eq!(
        leaf(v.clone(), 70),
        Value::Struct(vec![("leaf".into(), Value::I64(7))])
    );
    assert_eq!(t.encode(&v).unwrap(), 7i32.to_le_bytes());
    assert!(t.value_type().is_some());

    // The bag applies its limits to the definitions it parses.
    let bytes = bag_with(&text);
    let e = Bag::new(&bytes)
        .unwrap()
        .decode(0, &7i32.to_le_bytes())
        .unwrap_err()
        .to_string();
    assert!(e.contains(&limit_text(64)), "{e}");
    let bag = Bag::with_limits(&bytes, raised).unwrap();
    assert_eq!(bag.message_type(0).unwrap().max_nesting(), 100);
    assert_eq!(bag.decode(0, &7i32.to_le_bytes()).unwrap(), v);
}

#[test]
fn a_lowered_limit_holds_at_its_boundary() {
    let lowered = Limits::default().with_max_nesting(5);
    let t = MessageType::parse_with_limits("deep/T0", &chain(5), &lowered).unwrap();
    assert_eq!(
        leaf(t.decode(&7i32.to_le_bytes(), 0).unwrap(), 5),
        Value::Struct(vec![("leaf".into(), Value::I64(7))])
    );
    let e = MessageType::parse_with_limits("deep/T0", &chain(6), &lowered).unwrap_err();
    assert_eq!(
        e,
        format!(
            "message types nested {}: deep/T0 nests deep/T5 deeper",
            limit_text(5)
        )
    );
    // A type parsed with a higher limit decodes and encodes only as deep
    // as it was parsed with: the default applies to `parse`.
    let bytes = bag_with(&chain(6));
    let bag = Bag::with_limits(&bytes, lowered).unwrap();
    let e = bag.decode(0, &7i32.to_le_bytes()).unwrap_err().to_string();
    assert!(e.contains(&limit_text(5)), "{e}");
}

#[test]
fn an_absurd_limit_is_clamped_to_what_the_stack_survives() {
    // A test thread's 2 MiB stack: the ceiling's depth parses, decodes,
    // encodes and types; one level more is refused.
    let ceiling = logcore::limits::MAX_NESTING_CEILING;
    robolog_testkit::on_test_stack(move || {
        let absurd = Limits::default().with_max_nesting(usize::MAX);
        let t = MessageType::parse_with_limits("deep/T0", &chain(ceiling), &absurd).unwrap();
        assert_eq!(t.max_nesting(), ceiling);
        let v = t.decode(&7i32.to_le_bytes(), 0).unwrap();
        assert_eq!(t.encode(&v).unwrap(), 7i32.to_le_bytes());
        assert!(t.value_type().is_some());
        assert_eq!(
            leaf(v, ceiling),
            Value::Struct(vec![("leaf".into(), Value::I64(7))])
        );
        let e =
            MessageType::parse_with_limits("deep/T0", &chain(ceiling + 1), &absurd).unwrap_err();
        assert!(e.contains(&limit_text(ceiling)), "{e}");
    });
}
