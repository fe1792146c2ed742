//! Values as compact one-line text for people (what `robolog cat` prints
//! without `--json`).

use std::fmt::Write as _;

use logcore::Value;

/// A value as compact one-line text for people: like JSON, but byte strings
/// are shown by length (`<12345 bytes>`) and long arrays by their first
/// elements and a count (`--json` prints everything).
pub fn render_text(v: &Value) -> String {
    let mut s = String::new();
    render_into(&mut s, v);
    s
}

/// Array elements shown in text mode before the rest is summarised.
const TEXT_ARRAY_ITEMS: usize = 8;

fn render_into(s: &mut String, v: &Value) {
    match v {
        Value::Bytes(b) => {
            let _ = write!(s, "<{} bytes>", b.len());
        }
        Value::Array(items) => render_seq(s, items.len(), |s, i| render_into(s, &items[i])),
        Value::F32Array(items) => {
            render_seq(s, items.len(), |s, i| render_into(s, &Value::F32(items[i])));
        }
        Value::F64Array(items) => {
            render_seq(s, items.len(), |s, i| render_into(s, &Value::F64(items[i])));
        }
        Value::Struct(fields) => {
            s.push('{');
            for (i, (k, x)) in fields.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                s.push_str(k);
                s.push_str(": ");
                render_into(s, x);
            }
            s.push('}');
        }
        Value::Time(t) => s.push_str(&t.to_string()),
        Value::Duration(d) => s.push_str(&logcore::Timestamp(*d).to_string()),
        other => match serde_json::to_string(other) {
            Ok(j) => s.push_str(&j),
            Err(_) => s.push('?'),
        },
    }
}

/// `[a, b, ... (N items)]`: the first items, then the count.
fn render_seq(s: &mut String, len: usize, mut item: impl FnMut(&mut String, usize)) {
    s.push('[');
    for i in 0..len.min(TEXT_ARRAY_ITEMS) {
        if i > 0 {
            s.push_str(", ");
        }
        item(s, i);
    }
    if len > TEXT_ARRAY_ITEMS {
        let _ = write!(s, ", ... ({len} items)");
    }
    s.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_rendering_abbreviates_bytes() {
        let v = Value::record([
            ("id", Value::I64(2)),
            ("data", Value::Bytes(vec![0; 1234])),
            ("q", Value::Array(vec![Value::F32(1.0), Value::F32(0.5)])),
            ("name", Value::String("front".into())),
            ("r", Value::Array((0..10).map(Value::U64).collect())),
        ]);
        assert_eq!(
            render_text(&v),
            r#"{id: 2, data: <1234 bytes>, q: [1.0, 0.5], name: "front", r: [0, 1, 2, 3, 4, 5, 6, 7, ... (10 items)]}"#
        );
        // Typed arrays render exactly like arrays of their scalars.
        let ranges: Vec<f32> = (0..10).map(|i| i as f32 * 0.5).collect();
        let typed = Value::F32Array(ranges.clone());
        let plain = Value::Array(ranges.into_iter().map(Value::F32).collect());
        assert_eq!(render_text(&typed), render_text(&plain));
        assert_eq!(
            render_text(&Value::F64Array(vec![0.25, -1.0])),
            "[0.25, -1.0]"
        );
    }
}
