//! Messages encoded from values, for programs that write logs of their
//! own (robolog-py's `robolog.Writer`): ROS 1 definitions of the bundled
//! standard types, CDR from [`logcore::Value`]s, and protobuf from the
//! JSON form of a message through its file descriptor set. ROS 1 bytes
//! come from [`rosbag12::MessageType::encode`].

#[cfg(feature = "ros2")]
use logcore::Value;

/// The ROS 1 definition text and md5sum of a standard type (`pkg/Type`,
/// such as `sensor_msgs/Imu`): the bundled ROS 2 definition mapped to
/// ROS 1 as `robolog convert` maps ROS 2 bags to ROS 1 (`time`,
/// `duration`, `std_msgs/Header` with `uint32 seq`). `None` for a type
/// that is not bundled.
#[cfg(all(feature = "rosbag", feature = "ros2", feature = "rosbag2"))]
pub fn ros1_standard_definition(type_name: &str) -> Option<(String, String)> {
    let text = rosbag2::Definitions::default().resolve(type_name)?;
    let full = rosbag2::interfaces::full_name(type_name);
    let t = ros2cdr::MessageType::parse(&full, &text).ok()?;
    crate::convert::ros1_of_ros2(&t).ok()
}

/// The md5sum ROS 1 computes for the type `type_name` of the full
/// definition `text`.
#[cfg(feature = "rosbag")]
pub fn ros1_md5sum(type_name: &str, text: &str) -> Result<String, String> {
    let defs = rosbag12::msg::parse_definition(type_name, text)?;
    let sums = rosbag12::msg::md5sums(&defs)?;
    let name = defs.first().map(|d| d.name.clone()).unwrap_or_default();
    sums.get(&name)
        .cloned()
        .ok_or_else(|| format!("no md5sum for {type_name}"))
}

/// A ROS 2 message encoded as little-endian CDR (with its 4-byte
/// encapsulation header) from its value, as [`ros2cdr::MessageType::decode`]
/// gives it: structs with every field by name, `builtin_interfaces/Time`
/// and `Duration` as [`Value::Time`]/[`Value::Duration`] (or structs of
/// `sec` and `nanosec`), integers in their type's range. Errors name the
/// field's path.
#[cfg(feature = "ros2")]
pub fn cdr(ty: &ros2cdr::MessageType, value: &Value) -> Result<Vec<u8>, String> {
    let mut out = vec![0, 1, 0, 0];
    let mut e = Cdr {
        types: ty.wire_types(),
        out: &mut out,
    };
    e.message(0, value, "")?;
    Ok(out)
}

#[cfg(feature = "ros2")]
struct Cdr<'a> {
    types: &'a [ros2cdr::WireType],
    out: &'a mut Vec<u8>,
}

#[cfg(feature = "ros2")]
fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

#[cfg(feature = "ros2")]
impl Cdr<'_> {
    fn align(&mut self, n: usize) {
        while (self.out.len() - 4) % n != 0 {
            self.out.push(0);
        }
    }

    fn u32(&mut self, v: u32) {
        self.align(4);
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    fn message(&mut self, t: usize, v: &Value, path: &str) -> Result<(), String> {
        let ty = self
            .types
            .get(t)
            .ok_or_else(|| format!("{path}: no type {t}"))?;
        let Value::Struct(fields) = v else {
            return Err(format!("{path}: expected a message, got {v:?}"));
        };
        if ty.fields().is_empty() {
            self.out.push(0);
            return Ok(());
        }
        for (name, _) in fields {
            if !ty.fields().iter().any(|(n, _, _)| n == name) {
                return Err(format!("{}: no such field", join(path, name)));
            }
        }
        for (name, kind, array) in ty.fields() {
            let here = join(path, name);
            let v = fields
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v)
                .ok_or_else(|| format!("{here}: missing"))?;
            self.field(*kind, *array, v, &here)?;
        }
        Ok(())
    }

    fn field(
        &mut self,
        kind: ros2cdr::WireKind,
        array: ros2cdr::msg::ArrayKind,
        v: &Value,
        path: &str,
    ) -> Result<(), String> {
        use ros2cdr::msg::ArrayKind;
        if matches!(array, ArrayKind::Scalar) {
            return self.one(kind, v, path);
        }
        let items: Vec<Value> = match v {
            Value::Array(a) => a.clone(),
            Value::Bytes(b) => b.iter().map(|&x| Value::U64(u64::from(x))).collect(),
            Value::F32Array(a) => a.iter().map(|&x| Value::F32(x)).collect(),
            Value::F64Array(a) => a.iter().map(|&x| Value::F64(x)).collect(),
            other => return Err(format!("{path}: expected an array, got {other:?}")),
        };
        match array {
            ArrayKind::Fixed(n) if items.len() != n as usize => {
                return Err(format!("{path}: expected {n} values, got {}", items.len()));
            }
            ArrayKind::Fixed(_) => {}
            ArrayKind::Bounded(n) if items.len() > n as usize => {
                return Err(format!(
                    "{path}: expected at most {n} values, got {}",
                    items.len()
                ));
            }
            _ => {
                let n =
                    u32::try_from(items.len()).map_err(|_| format!("{path}: too many values"))?;
                self.u32(n);
            }
        }
        for (i, item) in items.iter().enumerate() {
            self.one(kind, item, &format!("{path}[{i}]"))?;
        }
        Ok(())
    }

    fn one(&mut self, kind: ros2cdr::WireKind, v: &Value, path: &str) -> Result<(), String> {
        use ros2cdr::WireKind as K;
        match kind {
            K::Prim(p) => self.prim(p, v, path),
            K::Str => {
                let bytes = match v {
                    Value::String(s) => s.as_bytes(),
                    Value::Bytes(b) => b.as_slice(),
                    other => return Err(format!("{path}: expected a string, got {other:?}")),
                };
                let n = u32::try_from(bytes.len() + 1)
                    .map_err(|_| format!("{path}: string too long"))?;
                self.u32(n);
                self.out.extend_from_slice(bytes);
                self.out.push(0);
                Ok(())
            }
            K::WStr => {
                let Value::String(s) = v else {
                    return Err(format!("{path}: expected a string, got {v:?}"));
                };
                let units: Vec<u16> = s.encode_utf16().collect();
                let n =
                    u32::try_from(units.len()).map_err(|_| format!("{path}: string too long"))?;
                self.u32(n);
                for u in units {
                    self.out.extend_from_slice(&u32::from(u).to_le_bytes());
                }
                Ok(())
            }
            K::Msg(j) => self.message(j, v, path),
            K::Time | K::Duration => {
                let ns = match v {
                    Value::Time(t) => t.as_nanos(),
                    Value::Duration(d) => *d,
                    Value::I64(n) => *n,
                    Value::Struct(_) => {
                        let part = |k: &str| match v.get(k) {
                            Some(Value::I64(n)) => Ok(*n),
                            Some(Value::U64(n)) => i64::try_from(*n).map_err(|_| k.to_string()),
                            _ => Err(k.to_string()),
                        };
                        let (s, n) = (part("sec"), part("nanosec"));
                        match (s, n) {
                            (Ok(s), Ok(n)) => s
                                .checked_mul(1_000_000_000)
                                .and_then(|s| s.checked_add(n))
                                .ok_or_else(|| format!("{path}: out of range"))?,
                            (Err(k), _) | (_, Err(k)) => {
                                return Err(format!("{}: expected an integer", join(path, &k)));
                            }
                        }
                    }
                    other => return Err(format!("{path}: expected a time, got {other:?}")),
                };
                let sec = i32::try_from(ns.div_euclid(1_000_000_000))
                    .map_err(|_| format!("{path}: {ns} ns is out of int32 seconds"))?;
                let nsec = ns.rem_euclid(1_000_000_000) as u32;
                self.align(4);
                self.out.extend_from_slice(&sec.to_le_bytes());
                self.out.extend_from_slice(&nsec.to_le_bytes());
                Ok(())
            }
        }
    }

    fn prim(&mut self, p: ros2cdr::msg::Primitive, v: &Value, path: &str) -> Result<(), String> {
        use ros2cdr::msg::Primitive as P;
        let size = p.size();
        self.align(size.min(8));
        let int = |lo: i128, hi: i128| -> Result<i128, String> {
            let n = match v {
                Value::I64(n) => i128::from(*n),
                Value::U64(n) => i128::from(*n),
                Value::Bool(b) => i128::from(*b),
                other => return Err(format!("{path}: expected an integer, got {other:?}")),
            };
            if n < lo || n > hi {
                return Err(format!("{path}: {n} is out of range {lo}..={hi}"));
            }
            Ok(n)
        };
        let float = || -> Result<f64, String> {
            match v {
                Value::F64(x) => Ok(*x),
                Value::F32(x) => Ok(f64::from(*x)),
                Value::I64(n) => Ok(*n as f64),
                Value::U64(n) => Ok(*n as f64),
                other => Err(format!("{path}: expected a number, got {other:?}")),
            }
        };
        let o = &mut *self.out;
        match p {
            P::Bool => o.push(u8::from(int(0, 1)? != 0)),
            P::Int8 => o.push(int(-128, 127)? as i8 as u8),
            P::Byte | P::Char | P::UInt8 => o.push(int(0, 255)? as u8),
            P::Int16 => o.extend_from_slice(&(int(-32768, 32767)? as i16).to_le_bytes()),
            P::UInt16 => o.extend_from_slice(&(int(0, 65535)? as u16).to_le_bytes()),
            P::Int32 => {
                o.extend_from_slice(&(int(i32::MIN.into(), i32::MAX.into())? as i32).to_le_bytes())
            }
            P::UInt32 => o.extend_from_slice(&(int(0, u32::MAX.into())? as u32).to_le_bytes()),
            P::Int64 => {
                o.extend_from_slice(&(int(i64::MIN.into(), i64::MAX.into())? as i64).to_le_bytes())
            }
            P::UInt64 => o.extend_from_slice(&(int(0, u64::MAX.into())? as u64).to_le_bytes()),
            P::Float32 => o.extend_from_slice(&(float()? as f32).to_le_bytes()),
            P::Float64 => o.extend_from_slice(&float()?.to_le_bytes()),
        }
        Ok(())
    }
}

/// A protobuf message type of a file descriptor set, to encode messages
/// from their JSON form (fields by name; `google.protobuf.Timestamp` and
/// `Duration` as `{sec, nsec}` or `{seconds, nanos}`; `bytes` as base64
/// text).
#[cfg(any(feature = "ulog", feature = "carla", feature = "vellog"))]
#[derive(Debug, Clone)]
pub struct ProtobufType(std::sync::Arc<crate::convert::protobuf_type::MessageType>);

#[cfg(any(feature = "ulog", feature = "carla", feature = "vellog"))]
impl ProtobufType {
    /// The message `full_name` (`foxglove.LocationFix`) of the encoded
    /// `FileDescriptorSet` `descriptor_set`.
    pub fn new(descriptor_set: &[u8], full_name: &str) -> Result<Self, String> {
        crate::convert::protobuf_type::from_set(descriptor_set, full_name).map(ProtobufType)
    }

    /// The protobuf encoding of `json`, a message of this type.
    pub fn encode(&self, json: &serde_json::Value) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        crate::convert::protobuf_type::encode(&self.0, json, &mut out)?;
        Ok(out)
    }
}
