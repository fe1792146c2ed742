//! Type names: canonical forms and the resolution of names as written.

use std::collections::HashSet;

use crate::Dialect;

/// The canonical form `pkg/Type` of a ROS 2 type name: `pkg/msg/Type`
/// and `pkg/srv/Type` lose their middle part; other names stay as they
/// are (trimmed).
///
/// ```
/// use rosmsg::canonical_name;
/// assert_eq!(canonical_name("std_msgs/msg/String"), "std_msgs/String");
/// assert_eq!(canonical_name("test_msgs/BasicTypes"), "test_msgs/BasicTypes");
/// ```
pub fn canonical_name(name: &str) -> String {
    let name = name.trim();
    let parts: Vec<&str> = name.split('/').collect();
    match parts.as_slice() {
        [pkg, _, ty] => format!("{pkg}/{ty}"),
        _ => name.to_string(),
    }
}

/// The full name of the message type `written` used by a field of the
/// type `owner` (a full name `pkg/Type`), among the types `names` of the
/// definition:
///
/// - ROS 1: `Header` is `std_msgs/Header` (`roslib/Header`, its name
///   before ROS Diamondback, when the definition has that section and not
///   the other);
/// - a name with a package is itself (ROS 2: in its canonical form,
///   [`canonical_name`]);
/// - a name without one is the owner's package's type when `names` holds
///   it, else the one type of `names` with that short name when there is
///   exactly one (a section filed under another package), else the
///   owner's package's type (which the caller then reports as missing or
///   provides).
///
/// ```
/// use std::collections::HashSet;
/// use rosmsg::{resolve_name, Dialect};
/// let names: HashSet<String> = ["a/Top", "b/Point"].map(String::from).into();
/// assert_eq!(resolve_name("Header", "a/Top", Dialect::Ros1, &names), "std_msgs/Header");
/// assert_eq!(resolve_name("Header", "a/Top", Dialect::Ros2, &names), "a/Header");
/// assert_eq!(resolve_name("Point", "a/Top", Dialect::Ros1, &names), "b/Point");
/// assert_eq!(resolve_name("c/msg/X", "a/Top", Dialect::Ros2, &names), "c/X");
/// ```
pub fn resolve_name(
    written: &str,
    owner: &str,
    dialect: Dialect,
    names: &HashSet<String>,
) -> String {
    if dialect == Dialect::Ros1 && written == "Header" {
        let std = "std_msgs/Header";
        return if names.contains(std) || !names.contains("roslib/Header") {
            std.to_string()
        } else {
            "roslib/Header".to_string()
        };
    }
    if written.contains('/') {
        return match dialect {
            Dialect::Ros1 => written.to_string(),
            Dialect::Ros2 => canonical_name(written),
        };
    }
    let package = owner.split_once('/').map_or("", |(p, _)| p);
    let local = format!("{package}/{written}");
    if names.contains(&local) {
        return local;
    }
    let suffix = format!("/{written}");
    let mut hits = names.iter().filter(|n| n.ends_with(&suffix));
    match (hits.next(), hits.next()) {
        (Some(one), None) => one.clone(),
        _ => local,
    }
}
