//! Formats nested deeper than `format::MAX_NESTING` are refused (the
//! subscription is left out, with a warning naming the limit); a raised
//! `Limits::max_nesting` reads them, a lowered one holds at its boundary.

use logcore::Value;
use ulogfile::format::MAX_NESTING;
use ulogfile::write::encode_message;
use ulogfile::{Limits, MAGIC, ULog};

/// How the warnings name the limit `n`.
fn limit_text(n: usize) -> String {
    format!(
        "formats nested at most {n} levels deep (the reader's limit; raise it with \
         `--max-nesting` or `Limits::max_nesting`)"
    )
}

/// A log subscribing to `t0`, which nests `t1` … down to
/// `t{levels-1}`, which holds `int32_t leaf` (`levels` levels deep), with
/// one sample at 5 µs whose leaf is 7.
fn chain_log(levels: usize) -> Vec<u8> {
    let mut f = MAGIC.to_vec();
    f.push(1);
    f.extend_from_slice(&0u64.to_le_bytes());
    for i in 0..levels {
        let head = if i == 0 { "uint64_t timestamp;" } else { "" };
        let tail = if i + 1 < levels {
            format!("t{} n;", i + 1)
        } else {
            "int32_t leaf;".to_string()
        };
        let text = format!("t{i}:{head}{tail}");
        f.extend(encode_message(b'F', text.as_bytes()).unwrap());
    }
    f.extend(encode_message(b'A', &[0, 1, 0, b't', b'0']).unwrap());
    let mut d = vec![1, 0];
    d.extend_from_slice(&5u64.to_le_bytes());
    d.extend_from_slice(&7i32.to_le_bytes());
    f.extend(encode_message(b'D', &d).unwrap());
    f
}

/// The leaf of the sample of `log`, `levels` deep.
fn leaf(log: &ULog<'_>, levels: usize) -> Value {
    let sub = log.subscription("t0", 0).expect("the subscription is read");
    assert_eq!(sub.timestamps(), [5]);
    let mut v = sub.decode(0).unwrap();
    for _ in 1..levels {
        v = v.get("n").unwrap().clone();
    }
    v.get("leaf").unwrap().clone()
}

/// Whether `log` left `t0` out with the warning naming limit `n`.
fn refused(log: &ULog<'_>, n: usize) -> bool {
    log.subscription("t0", 0).is_none()
        && log
            .warnings
            .iter()
            .any(|w| w.to_string().contains(&limit_text(n)))
}

#[test]
fn the_default_refuses_what_a_raised_limit_reads() {
    assert_eq!(MAX_NESTING, 32);
    let bytes = chain_log(40);
    let log = ULog::parse(&bytes).unwrap();
    assert!(refused(&log, 32), "{:?}", log.warnings);
    let raised = Limits::default().with_max_nesting(50);
    let log = ULog::parse_with_limits(&bytes, &raised).unwrap();
    assert_eq!(log.formats.max_nesting(), 50);
    assert!(log.warnings.is_empty(), "{:?}", log.warnings);
    assert_eq!(leaf(&log, 40), Value::I64(7));
    assert!(log.formats.value_type("t0").is_ok());
}

#[test]
fn a_lowered_limit_holds_at_its_boundary() {
    let lowered = Limits::default().with_max_nesting(5);
    let bytes = chain_log(5);
    let log = ULog::parse_with_limits(&bytes, &lowered).unwrap();
    assert!(log.warnings.is_empty(), "{:?}", log.warnings);
    assert_eq!(leaf(&log, 5), Value::I64(7));
    let bytes = chain_log(6);
    let log = ULog::parse_with_limits(&bytes, &lowered).unwrap();
    assert!(refused(&log, 5), "{:?}", log.warnings);
    // The default reads both.
    assert_eq!(leaf(&ULog::parse(&bytes).unwrap(), 6), Value::I64(7));
}

#[test]
fn an_absurd_limit_is_clamped_to_what_the_stack_survives() {
    let ceiling = logcore::limits::MAX_NESTING_CEILING;
    robolog_testkit::on_test_stack(move || {
        let absurd = Limits::default().with_max_nesting(usize::MAX);
        let bytes = chain_log(ceiling);
        let log = ULog::parse_with_limits(&bytes, &absurd).unwrap();
        assert_eq!(log.formats.max_nesting(), ceiling);
        assert_eq!(leaf(&log, ceiling), Value::I64(7));
        let bytes = chain_log(ceiling + 1);
        let log = ULog::parse_with_limits(&bytes, &absurd).unwrap();
        assert!(refused(&log, ceiling), "{:?}", log.warnings);
    });
}

#[test]
fn formats_resolved_deepest_first_still_count_every_level() {
    // Subscribing `t4999` first, then `t4998`, … resolves each format
    // with its nested one already resolved: the levels below still count,
    // so no layout deeper than the limit is built (its decoding would
    // recurse as deep).
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let levels = 5000usize;
            let mut f = MAGIC.to_vec();
            f.push(1);
            f.extend_from_slice(&0u64.to_le_bytes());
            for i in 0..levels {
                let text = if i + 1 < levels {
                    format!("t{i}:uint64_t timestamp;t{} n;", i + 1)
                } else {
                    format!("t{i}:uint64_t timestamp;")
                };
                f.extend(encode_message(b'F', text.as_bytes()).unwrap());
            }
            for i in (0..levels).rev() {
                let mut a = vec![0, (i % 256) as u8, (i / 256) as u8];
                a.extend_from_slice(format!("t{i}").as_bytes());
                f.extend(encode_message(b'A', &a).unwrap());
            }
            let log = ULog::parse(&f).unwrap();
            assert!(log.subscription(&format!("t{}", levels - 32), 0).is_some());
            assert!(log.subscription(&format!("t{}", levels - 33), 0).is_none());
            assert!(
                log.warnings
                    .iter()
                    .any(|w| w.to_string().contains(&limit_text(32))),
                "{:?}",
                &log.warnings[..1]
            );
        })
        .unwrap()
        .join()
        .unwrap();
}
