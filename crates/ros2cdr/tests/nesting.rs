//! Message types nested deeper than `msg::MAX_NESTING` are refused; a
//! raised `Limits::max_nesting` reads them, a lowered one holds at its
//! boundary, and an absurd one is clamped to what the stack survives.

use logcore::Value;
use ros2cdr::msg::MAX_NESTING;
use ros2cdr::{Limits, MessageType};

fn limit_text(n: usize) -> String {
    robolog_testkit::nesting_limit_text(n)
}

/// A `.msg` definition of `p/T0` holding `p/T1` … down to
/// `p/T{levels-1}`, which holds one `int8 x`: `levels` levels deep.
fn chain(levels: usize) -> String {
    robolog_testkit::msg_chain("p", levels, "int8 x")
}

/// The same chain as IDL, the leaf declared first.
fn idl_chain(levels: usize) -> String {
    let mut text = String::from("module p { module msg {\n");
    for i in (0..levels).rev() {
        if i + 1 == levels {
            text.push_str(&format!("struct T{i} {{ int8 x; }};\n"));
        } else {
            text.push_str(&format!("struct T{i} {{ p::msg::T{} next; }};\n", i + 1));
        }
    }
    text.push_str("}; };\n");
    text
}

/// A little-endian CDR payload of the chain: its one `int8`, 42.
const PAYLOAD: [u8; 5] = [0, 1, 0, 0, 42];

/// The leaf of a decoded chain `levels` deep, checked to hold 42.
fn assert_leaf(mut v: Value, levels: usize) {
    for _ in 1..levels {
        v = v.get("next").unwrap().clone();
    }
    assert_eq!(v, Value::record([("x", Value::I64(42))]));
}

#[test]
fn the_default_refuses_what_a_raised_limit_reads() {
    assert_eq!(MAX_NESTING, 64);
    let raised = Limits::default().with_max_nesting(100);
    for idl in [false, true] {
        let text = if idl { idl_chain(70) } else { chain(70) };
        let parse = |limits: &Limits| {
            if idl {
                MessageType::parse_idl_with_limits("p/msg/T0", &text, limits)
            } else {
                MessageType::parse_with_limits("p/msg/T0", &text, limits)
            }
        };
        let e = parse(&Limits::default()).unwrap_err().to_string();
        assert!(e.contains(&limit_text(64)), "{e}");
        let e2 = if idl {
            MessageType::parse_idl("p/msg/T0", &text)
        } else {
            MessageType::parse("p/msg/T0", &text)
        }
        .unwrap_err()
        .to_string();
        assert_eq!(e, e2);
        let t = parse(&raised).unwrap();
        assert_eq!(t.max_nesting(), 100);
        assert_leaf(t.decode(&PAYLOAD, 0).unwrap(), 70);
        assert!(t.value_type().is_some());
    }
}

#[test]
fn a_lowered_limit_holds_at_its_boundary() {
    let lowered = Limits::default().with_max_nesting(5);
    let t = MessageType::parse_with_limits("p/msg/T0", &chain(5), &lowered).unwrap();
    assert_leaf(t.decode(&PAYLOAD, 0).unwrap(), 5);
    let t = MessageType::parse_idl_with_limits("p/msg/T0", &idl_chain(5), &lowered).unwrap();
    assert_leaf(t.decode(&PAYLOAD, 0).unwrap(), 5);
    let e = MessageType::parse_with_limits("p/msg/T0", &chain(6), &lowered)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&format!(
            "message types nested {}, found them nested deeper",
            limit_text(5)
        )),
        "{e}"
    );
    let e = MessageType::parse_idl_with_limits("p/msg/T0", &idl_chain(6), &lowered)
        .unwrap_err()
        .to_string();
    assert!(e.contains(&limit_text(5)), "{e}");
    // IDL modules nest within the same limit: 5 pass, 6 do not.
    let modules = |n: usize| {
        format!(
            "{}struct B {{ int8 x; }};{}",
            "module a { ".repeat(n),
            " };".repeat(n)
        )
    };
    let t = MessageType::parse_idl_with_limits("a/B", &modules(5), &lowered).unwrap();
    assert_eq!(
        t.decode(&PAYLOAD, 0).unwrap(),
        Value::record([("x", Value::I64(42))])
    );
    let e = MessageType::parse_idl_with_limits("a/B", &modules(6), &lowered)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&format!("modules nested {}", limit_text(5))),
        "{e}"
    );
}

#[test]
fn an_absurd_limit_is_clamped_to_what_the_stack_survives() {
    let ceiling = logcore::limits::MAX_NESTING_CEILING;
    robolog_testkit::on_test_stack(move || {
        let absurd = Limits::default().with_max_nesting(usize::MAX);
        let t = MessageType::parse_with_limits("p/msg/T0", &chain(ceiling), &absurd).unwrap();
        assert_eq!(t.max_nesting(), ceiling);
        assert!(t.value_type().is_some());
        assert_leaf(t.decode(&PAYLOAD, 0).unwrap(), ceiling);
        let e = MessageType::parse_with_limits("p/msg/T0", &chain(ceiling + 1), &absurd)
            .unwrap_err()
            .to_string();
        assert!(e.contains(&limit_text(ceiling)), "{e}");
    });
}
