//! GPS positions moved in the payloads of ROS 1, CDR, protobuf and JSON
//! messages (see the parent module for which types and fields): the
//! bytes of `latitude` and `longitude` are found by walking the message's
//! leading fields as its encoding lays them out, and only they change.

use logcore::ChannelInfo;
use serde_json::Value as Json;

use super::Offset;

/// How a channel's positions are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Codec {
    /// ROS 1 `sensor_msgs/NavSatFix`: header, status, then the position.
    Ros1NavSatFix,
    /// ROS 1 `foxglove_msgs/LocationFix`: stamp, frame id, position.
    Ros1LocationFix,
    /// CDR `sensor_msgs/msg/NavSatFix`.
    CdrNavSatFix,
    /// CDR `foxglove_msgs/msg/LocationFix`.
    CdrLocationFix,
    /// Protobuf `foxglove.LocationFix` (fields 1 and 2, doubles).
    ProtobufLocationFix,
    /// JSON: the pairs of field names at any depth.
    Json,
}

/// The codec of channel `c`, when it may hold positions.
pub(crate) fn codec_of(c: &ChannelInfo) -> Option<Codec> {
    let ty = c.type_name.as_str();
    Some(match (c.message_encoding.as_str(), ty) {
        ("ros1", "sensor_msgs/NavSatFix") => Codec::Ros1NavSatFix,
        ("ros1", "foxglove_msgs/LocationFix") => Codec::Ros1LocationFix,
        ("cdr", "sensor_msgs/msg/NavSatFix" | "sensor_msgs/NavSatFix") => Codec::CdrNavSatFix,
        ("cdr", "foxglove_msgs/msg/LocationFix" | "foxglove_msgs/LocationFix") => {
            Codec::CdrLocationFix
        }
        ("protobuf", "foxglove.LocationFix") => Codec::ProtobufLocationFix,
        ("json", _) => Codec::Json,
        _ => return None,
    })
}

/// What moving the positions of one payload did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Moved {
    /// The payload with its positions moved.
    Changed(Vec<u8>),
    /// Nothing to move: no position ((0, 0), NaN), or a payload that does
    /// not read as its type.
    Unchanged,
    /// A JSON message without a pair of position fields.
    NoPosition,
}

/// `payload` of codec `codec` with its positions moved by `offset`.
pub(crate) fn move_positions(codec: Codec, payload: &[u8], offset: &Offset) -> Moved {
    let at = match codec {
        Codec::Ros1NavSatFix => ros1_string_end(payload, 12).map(|p| p + 3),
        Codec::Ros1LocationFix => ros1_string_end(payload, 8),
        Codec::CdrNavSatFix | Codec::CdrLocationFix => {
            return cdr(codec, payload, offset);
        }
        Codec::ProtobufLocationFix => return protobuf(payload, offset),
        Codec::Json => return json(payload, offset),
    };
    match at {
        Some(at) => doubles_at(payload, at, at + 8, false, offset),
        None => Moved::Unchanged,
    }
}

/// Where a ROS 1 string whose length field is at `at` ends.
fn ros1_string_end(p: &[u8], at: usize) -> Option<usize> {
    let len = u32::from_le_bytes(p.get(at..at + 4)?.try_into().ok()?) as usize;
    at.checked_add(4)?.checked_add(len)
}

/// The two `f64`s at `lat` and `lon` of `payload` (big-endian when
/// `be`) moved.
fn doubles_at(payload: &[u8], lat: usize, lon: usize, be: bool, offset: &Offset) -> Moved {
    let read = |at: usize| -> Option<f64> {
        let b: [u8; 8] = payload.get(at..at + 8)?.try_into().ok()?;
        Some(if be {
            f64::from_be_bytes(b)
        } else {
            f64::from_le_bytes(b)
        })
    };
    let (Some(a), Some(o)) = (read(lat), read(lon)) else {
        return Moved::Unchanged;
    };
    let Some((a, o)) = offset.moved_deg(a, o) else {
        return Moved::Unchanged;
    };
    let mut out = payload.to_vec();
    let put = |out: &mut Vec<u8>, at: usize, v: f64| {
        let b = if be { v.to_be_bytes() } else { v.to_le_bytes() };
        out[at..at + 8].copy_from_slice(&b);
    };
    put(&mut out, lat, a);
    put(&mut out, lon, o);
    Moved::Changed(out)
}

/// A CDR NavSatFix or LocationFix: after the 4-byte encapsulation
/// header, a `builtin_interfaces/Time` (8 bytes) and the frame id (a
/// 4-aligned length, its bytes with the NUL); NavSatFix then has its
/// status (`int8`, then a 2-aligned `uint16`); then the 8-aligned
/// `float64` latitude and longitude (alignment from the end of the
/// encapsulation header).
fn cdr(codec: Codec, p: &[u8], offset: &Offset) -> Moved {
    let be = match p.get(..2) {
        Some([0, 0]) => true,
        Some([0, 1]) => false,
        _ => return Moved::Unchanged,
    };
    let body = &p[4.min(p.len())..];
    let Some(len) = body.get(8..12) else {
        return Moved::Unchanged;
    };
    let len: [u8; 4] = len.try_into().unwrap_or_default();
    let len = if be {
        u32::from_be_bytes(len)
    } else {
        u32::from_le_bytes(len)
    } as usize;
    let Some(mut at) = 12usize.checked_add(len) else {
        return Moved::Unchanged;
    };
    if codec == Codec::CdrNavSatFix {
        at += 1; // status
        at = (at + 1) & !1;
        at += 2; // service
    }
    at = (at + 7) & !7;
    doubles_at(p, 4 + at, 4 + at + 8, be, offset)
}

/// A protobuf `foxglove.LocationFix`: its top-level fields walked,
/// fields 1 and 2 (fixed64 doubles) moved; a message missing either
/// (proto3 leaves out zeros) stays.
fn protobuf(p: &[u8], offset: &Offset) -> Moved {
    let varint = |at: &mut usize| -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *p.get(*at)?;
            *at += 1;
            v |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    };
    let (mut lat, mut lon) = (None, None);
    let mut at = 0;
    while at < p.len() {
        let Some(key) = varint(&mut at) else {
            return Moved::Unchanged;
        };
        let skip = match key & 7 {
            0 => {
                if varint(&mut at).is_none() {
                    return Moved::Unchanged;
                }
                0
            }
            1 => {
                match key >> 3 {
                    1 => lat = Some(at),
                    2 => lon = Some(at),
                    _ => {}
                }
                8
            }
            2 => match varint(&mut at) {
                Some(n) => n as usize,
                None => return Moved::Unchanged,
            },
            5 => 4,
            _ => return Moved::Unchanged,
        };
        at = match at.checked_add(skip) {
            Some(n) if n <= p.len() => n,
            _ => return Moved::Unchanged,
        };
    }
    match (lat, lon) {
        (Some(a), Some(o)) => doubles_at(p, a, o, false, offset),
        _ => Moved::Unchanged,
    }
}

/// The pairs of JSON keys that hold a position: (latitude, longitude,
/// whether integers are 1e-7 degrees).
const JSON_PAIRS: [(&str, &str, bool); 4] = [
    ("latitude", "longitude", false),
    ("latitude_deg", "longitude_deg", false),
    ("ref_lat", "ref_lon", false),
    ("lat", "lon", true),
];

/// A JSON message with every position pair moved (keys keep their
/// order).
fn json(p: &[u8], offset: &Offset) -> Moved {
    // Every key of a pair holds `lat`: a message without it is not read.
    if !p.windows(3).any(|w| w == b"lat") {
        return Moved::NoPosition;
    }
    let Ok(mut v) = serde_json::from_slice::<Json>(p) else {
        return Moved::Unchanged;
    };
    let (mut pairs, mut moved) = (0, false);
    move_json(&mut v, offset, &mut pairs, &mut moved);
    if pairs == 0 {
        return Moved::NoPosition;
    }
    if !moved {
        return Moved::Unchanged;
    }
    match serde_json::to_vec(&v) {
        Ok(out) => Moved::Changed(out),
        Err(_) => Moved::Unchanged,
    }
}

/// Moves the position pairs of `v` and its children, counting the pairs
/// found in `pairs` and setting `moved` when one moved.
fn move_json(v: &mut Json, offset: &Offset, pairs: &mut u64, moved: &mut bool) {
    match v {
        Json::Object(map) => {
            for (a, o, e7) in JSON_PAIRS {
                let (Some(Json::Number(x)), Some(Json::Number(y))) = (map.get(a), map.get(o))
                else {
                    continue;
                };
                *pairs += 1;
                let ints = x.is_i64() && y.is_i64();
                let new = if e7 && ints {
                    let (x, y) = (x.as_i64().unwrap_or(0), y.as_i64().unwrap_or(0));
                    offset
                        .moved_e7(x, y)
                        .map(|(x, y)| (Json::from(x), Json::from(y)))
                } else {
                    let (Some(x), Some(y)) = (x.as_f64(), y.as_f64()) else {
                        continue;
                    };
                    offset.moved_deg(x, y).and_then(|(x, y)| {
                        Some((
                            Json::Number(serde_json::Number::from_f64(x)?),
                            Json::Number(serde_json::Number::from_f64(y)?),
                        ))
                    })
                };
                if let Some((x, y)) = new {
                    map.insert(a.to_string(), x);
                    map.insert(o.to_string(), y);
                    *moved = true;
                }
            }
            for child in map.values_mut() {
                move_json(child, offset, pairs, moved);
            }
        }
        Json::Array(items) => {
            for child in items {
                move_json(child, offset, pairs, moved);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offset() -> Offset {
        Offset::new(Some((1.5, -2.25))).unwrap()
    }

    fn f64_at(p: &[u8], at: usize) -> f64 {
        f64::from_le_bytes(p[at..at + 8].try_into().unwrap())
    }

    #[test]
    fn ros1_navsatfix() {
        // seq, stamp, frame_id "gps", status, service, lat, lon, alt.
        let mut p = vec![1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0];
        p.extend_from_slice(b"gps");
        p.extend_from_slice(&[0, 1, 0]);
        for v in [47.0f64, 8.5, 400.0] {
            p.extend_from_slice(&v.to_le_bytes());
        }
        let Moved::Changed(out) = move_positions(Codec::Ros1NavSatFix, &p, &offset()) else {
            panic!()
        };
        assert_eq!((f64_at(&out, 22), f64_at(&out, 30)), (48.5, 6.25));
        assert_eq!(out[..22], p[..22]);
        assert_eq!(out[38..], p[38..]);
    }

    #[test]
    fn cdr_navsatfix_aligns() {
        // Encapsulation, stamp, frame_id "gps\0", status, pad, service,
        // pad to 8, lat, lon.
        let mut p = vec![0, 1, 0, 0];
        p.extend_from_slice(&[0; 8]);
        p.extend_from_slice(&4u32.to_le_bytes());
        p.extend_from_slice(b"gps\0");
        p.extend_from_slice(&[0, 0, 1, 0]);
        p.extend_from_slice(&[0; 4]);
        let lat = p.len();
        for v in [47.0f64, 8.5] {
            p.extend_from_slice(&v.to_le_bytes());
        }
        let Moved::Changed(out) = move_positions(Codec::CdrNavSatFix, &p, &offset()) else {
            panic!()
        };
        assert_eq!((f64_at(&out, lat), f64_at(&out, lat + 8)), (48.5, 6.25));
    }

    #[test]
    fn protobuf_and_json() {
        let mut p = vec![0x3A, 3];
        p.extend_from_slice(b"gps");
        p.push(0x09);
        p.extend_from_slice(&47.0f64.to_le_bytes());
        p.push(0x11);
        p.extend_from_slice(&8.5f64.to_le_bytes());
        let Moved::Changed(out) = move_positions(Codec::ProtobufLocationFix, &p, &offset()) else {
            panic!()
        };
        assert_eq!((f64_at(&out, 6), f64_at(&out, 15)), (48.5, 6.25));
        let j =
            br#"{"t":1,"fix":{"lat":470000000,"lon":85000000,"alt":5},"latitude":0,"longitude":0}"#;
        let Moved::Changed(out) = move_positions(Codec::Json, j, &offset()) else {
            panic!()
        };
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"t":1,"fix":{"lat":485000000,"lon":62500000,"alt":5},"latitude":0,"longitude":0}"#
        );
    }
}
