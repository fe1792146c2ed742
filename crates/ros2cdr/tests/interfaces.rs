//! Every `.msg` and `.srv` file of the standard ROS 2 interface packages
//! (`shared/ros2-interfaces`, humble and jazzy, as the distributions ship
//! them) parses through the shared grammar, given the definitions of the
//! types it uses as rosbag2 concatenates them; a few known types have the
//! fields their files declare.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use logcore::{Value, ValueType as T};
use ros2cdr::MessageType;
use ros2cdr::msg::{ArrayKind, FieldType, Primitive};
use rosmsg::{BaseType, Dialect};

const SEPARATOR: &str =
    "================================================================================";

fn interfaces() -> Option<PathBuf> {
    let dir = match std::env::var_os("ROBOLOG_ROS2_INTERFACES") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/ros2-interfaces"),
    };
    if dir.join("humble").is_dir() {
        Some(dir)
    } else {
        eprintln!("no ROS 2 interfaces at {}: skipped", dir.display());
        None
    }
}

/// The message types (`pkg/Type`) a `.msg` text uses.
fn used_types(package: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    // The halves of `.srv` text (one half for `.msg` text).
    let mut halves = vec![String::new()];
    for line in text.lines() {
        if rosmsg::literal::strip_comment(line).trim() == "---" {
            halves.push(String::new());
        } else if let Some(h) = halves.last_mut() {
            h.push_str(line);
            h.push('\n');
        }
    }
    for half in &halves {
        let sections = rosmsg::parse(half, Dialect::Ros2).unwrap();
        for f in &sections[0].fields {
            if let BaseType::Message(m) = f.ty.base {
                let full = rosmsg::canonical_name(m);
                out.push(if full.contains('/') {
                    full
                } else {
                    format!("{package}/{full}")
                });
            }
        }
    }
    out
}

/// `text` followed by a `MSG:` section of every type it uses, found in
/// the distro folder `root` (types used but not there, such as
/// `service_msgs/ServiceEventInfo` in humble, are left to the parser).
fn with_dependencies(root: &Path, package: &str, text: &str) -> String {
    let mut out = text.to_string();
    let mut seen = BTreeSet::new();
    let mut todo = used_types(package, text);
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let (pkg, ty) = name.split_once('/').unwrap();
        let Ok(dep) = std::fs::read_to_string(root.join(pkg).join("msg").join(format!("{ty}.msg")))
        else {
            continue;
        };
        todo.extend(used_types(pkg, &dep));
        out.push_str(&format!("\n{SEPARATOR}\nMSG: {pkg}/msg/{ty}\n{dep}"));
    }
    out
}

fn files(root: &Path, kind: &str) -> Vec<(String, String, PathBuf)> {
    let mut out = Vec::new();
    for package in std::fs::read_dir(root).unwrap() {
        let package = package.unwrap().path();
        let Ok(entries) = std::fs::read_dir(package.join(kind)) else {
            continue;
        };
        let pkg = package.file_name().unwrap().to_string_lossy().to_string();
        for e in entries {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == kind) {
                let ty = path.file_stem().unwrap().to_string_lossy().to_string();
                out.push((pkg.clone(), ty, path));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_interface_definition_parses() {
    let Some(dir) = interfaces() else { return };
    for (distro, want_msgs, want_srvs) in [("humble", 147, 26), ("jazzy", 158, 29)] {
        let root = dir.join(distro);
        let msgs = files(&root, "msg");
        assert_eq!(msgs.len(), want_msgs, "{distro}");
        for (pkg, ty, path) in &msgs {
            let text = std::fs::read_to_string(path).unwrap();
            let full = with_dependencies(&root, pkg, &text);
            let t = MessageType::parse(&format!("{pkg}/msg/{ty}"), &full)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(t.value_type().is_some(), "{}", path.display());
            // Every non-empty, non-comment line is a field or a constant.
            let lines = text
                .lines()
                .filter(|l| !rosmsg::literal::strip_comment(l).trim().is_empty())
                .count();
            let d = &t.defs()[0];
            assert_eq!(
                d.fields.len() + d.constants.len(),
                lines,
                "{}",
                path.display()
            );
        }
        // Service texts, as rosbag2 stores them for service events.
        let srvs = files(&root, "srv");
        assert_eq!(srvs.len(), want_srvs, "{distro}");
        for (pkg, ty, path) in &srvs {
            let text = std::fs::read_to_string(path).unwrap();
            let full = with_dependencies(&root, pkg, &text);
            let t = MessageType::parse(&format!("{pkg}/srv/{ty}_Event"), &full)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(t.value_type().is_some(), "{}", path.display());
        }
    }
}

fn parse_interface(distro: &str, pkg: &str, ty: &str) -> Option<MessageType> {
    let root = interfaces()?.join(distro);
    let text =
        std::fs::read_to_string(root.join(pkg).join("msg").join(format!("{ty}.msg"))).unwrap();
    let full = with_dependencies(&root, pkg, &text);
    Some(MessageType::parse(&format!("{pkg}/msg/{ty}"), &full).unwrap())
}

#[test]
fn imu_has_its_fields() {
    for distro in ["humble", "jazzy"] {
        let Some(t) = parse_interface(distro, "sensor_msgs", "Imu") else {
            return;
        };
        // builtin_interfaces/Time (int32 sec, uint32 nanosec): one instant.
        let header = T::record([("stamp", T::Time), ("frame_id", T::String)]);
        let xyz = T::record([("x", T::F64), ("y", T::F64), ("z", T::F64)]);
        let q = T::record([("x", T::F64), ("y", T::F64), ("z", T::F64), ("w", T::F64)]);
        let cov = T::fixed(T::F64, 9);
        assert_eq!(
            t.value_type(),
            Some(T::record([
                ("header", header),
                ("orientation", q),
                ("orientation_covariance", cov.clone()),
                ("angular_velocity", xyz.clone()),
                ("angular_velocity_covariance", cov.clone()),
                ("linear_acceleration", xyz),
                ("linear_acceleration_covariance", cov),
            ]))
        );
        // geometry_msgs/Quaternion's defaults: 0, 0, 0, 1.
        let q = t.def("geometry_msgs/Quaternion").unwrap();
        let defaults: Vec<Option<Value>> = q.fields.iter().map(|f| f.default.clone()).collect();
        assert_eq!(defaults, [0.0, 0.0, 0.0, 1.0].map(|x| Some(Value::F64(x))));
    }
}

#[test]
fn bounded_sequences_and_strings() {
    let Some(t) = parse_interface("jazzy", "rcl_interfaces", "ParameterDescriptor") else {
        return;
    };
    let d = &t.defs()[0];
    let shape: Vec<(&str, &FieldType, ArrayKind)> = d
        .fields
        .iter()
        .map(|f| (f.name.as_str(), &f.ty, f.array))
        .collect();
    let range = |n: &str| FieldType::Message(format!("rcl_interfaces/{n}"));
    assert_eq!(
        shape,
        [
            (
                "name",
                &FieldType::String { bound: None },
                ArrayKind::Scalar
            ),
            (
                "type",
                &FieldType::Primitive(Primitive::UInt8),
                ArrayKind::Scalar
            ),
            (
                "description",
                &FieldType::String { bound: None },
                ArrayKind::Scalar
            ),
            (
                "additional_constraints",
                &FieldType::String { bound: None },
                ArrayKind::Scalar
            ),
            (
                "read_only",
                &FieldType::Primitive(Primitive::Bool),
                ArrayKind::Scalar
            ),
            (
                "dynamic_typing",
                &FieldType::Primitive(Primitive::Bool),
                ArrayKind::Scalar
            ),
            (
                "floating_point_range",
                &range("FloatingPointRange"),
                ArrayKind::Bounded(1)
            ),
            (
                "integer_range",
                &range("IntegerRange"),
                ArrayKind::Bounded(1)
            ),
        ]
    );
    assert_eq!(d.fields[4].default, Some(Value::Bool(false)));
    let Some(t) = parse_interface("humble", "shape_msgs", "SolidPrimitive") else {
        return;
    };
    let d = &t.defs()[0];
    assert_eq!(d.fields[1].name, "dimensions");
    assert_eq!(d.fields[1].ty, FieldType::Primitive(Primitive::Float64));
    assert_eq!(d.fields[1].array, ArrayKind::Bounded(3));
    let constants: Vec<(&str, &Value)> = d
        .constants
        .iter()
        .map(|c| (c.name.as_str(), &c.value))
        .collect();
    assert_eq!(constants[0], ("BOX", &Value::U64(1)));
    assert_eq!(constants[4], ("PRISM", &Value::U64(5)));
    assert_eq!(constants[5], ("BOX_X", &Value::U64(0)));
}

#[test]
fn builtins_and_a_wide_string_bound() {
    // test_msgs/msg/Builtins as the distributions ship it.
    let Some(t) = parse_interface("humble", "test_msgs", "Builtins") else {
        return;
    };
    assert_eq!(
        t.value_type(),
        Some(T::record([
            ("duration_value", T::Duration),
            ("time_value", T::Time)
        ]))
    );
    let t = MessageType::parse("p/msg/W", "wstring<=3 w \"abc\"\nwstring<=2[<=2] v").unwrap();
    let d = &t.defs()[0];
    assert_eq!(d.fields[0].ty, FieldType::WString { bound: Some(3) });
    assert_eq!(d.fields[0].default, Some(Value::String("abc".into())));
    assert_eq!(d.fields[1].array, ArrayKind::Bounded(2));
}
