//! [`Definitions`]: message and service definitions for bags that do not
//! store their own (`.db3` files before rosbag2 kept a
//! `message_definitions` table).
//!
//! The crate bundles the standard ROS 2 interface packages of humble
//! and jazzy (`interfaces/humble.txt`, `interfaces/jazzy.txt`: every
//! `.msg` and `.srv` file of std_msgs, geometry_msgs, sensor_msgs,
//! nav_msgs, rcl_interfaces, test_msgs and the others the crate's
//! `interfaces/NOTICE.md` lists, Apache-2.0), one section per file:
//!
//! ```text
//! ================================================================================
//! MSG: std_msgs/msg/Header
//! <the .msg file, unchanged>
//! ```
//!
//! (`SRV: pkg/srv/Type` for services). [`render_store`] makes that text
//! from a folder of packages; a test checks the bundled files equal what
//! it makes of `ros2-interfaces`-style folders (`DISTRO/PACKAGE/msg/*.msg`).
//!
//! [`Definitions::resolve`] gives the concatenated definition of a type
//! (its own text, then a `MSG:` section for every type it uses), the
//! form `ros2cdr::MessageType::parse` reads. Type names may be written
//! `pkg/msg/Type` or `pkg/Type`; a service event type
//! `pkg/srv/Srv_Event` resolves to the `.srv` text of `pkg/srv/Srv`.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::Path;

/// The bundled humble definitions, in the store form.
pub const HUMBLE: &str = include_str!("../interfaces/humble.txt");
/// The bundled jazzy definitions, in the store form.
pub const JAZZY: &str = include_str!("../interfaces/jazzy.txt");
/// The `test_msgs` definitions of rosbag2's own test bags (`Arrays`,
/// `BasicTypes`, `Constants`, `Defaults`, `Empty`, `Strings`), in the
/// store form, for either distribution: taken from the definitions those
/// bags store (see `interfaces/NOTICE.md`), so the bags of the old schema,
/// which store none, decode too.
pub const TEST_MSGS: &str = include_str!("../interfaces/test_msgs.txt");

const SEPARATOR: &str =
    "================================================================================";

/// A ROS 2 distribution whose standard definitions are bundled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Distro {
    /// ROS 2 Humble Hawksbill.
    Humble,
    /// ROS 2 Jazzy Jalisco.
    Jazzy,
}

impl Distro {
    /// The bundled distribution for a bag's `ros_distro`: humble for
    /// `humble`, jazzy for anything else (jazzy, rolling, kilted, unset).
    pub fn for_ros_distro(name: &str) -> Self {
        if name.trim().eq_ignore_ascii_case("humble") {
            Distro::Humble
        } else {
            Distro::Jazzy
        }
    }

    /// The other bundled distribution (the fallback).
    pub fn other(self) -> Self {
        match self {
            Distro::Humble => Distro::Jazzy,
            Distro::Jazzy => Distro::Humble,
        }
    }

    /// The lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Distro::Humble => "humble",
            Distro::Jazzy => "jazzy",
        }
    }

    fn store(self) -> &'static str {
        match self {
            Distro::Humble => HUMBLE,
            Distro::Jazzy => JAZZY,
        }
    }
}

/// A set of definitions by full name (`pkg/msg/Type`, `pkg/srv/Type`):
/// a caller's own, then a bundled distribution, then the other one.
#[derive(Debug, Clone)]
pub struct Definitions {
    own: BTreeMap<String, String>,
    first: BTreeMap<String, String>,
    second: BTreeMap<String, String>,
}

impl Default for Definitions {
    fn default() -> Self {
        Definitions::bundled(Distro::Jazzy)
    }
}

/// The full name `pkg/msg/Type` of a type written `pkg/Type`; other
/// names unchanged.
///
/// ```
/// assert_eq!(rosbag2::interfaces::full_name("test_msgs/BasicTypes"), "test_msgs/msg/BasicTypes");
/// assert_eq!(rosbag2::interfaces::full_name("a/srv/B"), "a/srv/B");
/// ```
pub fn full_name(name: &str) -> String {
    let name = name.trim();
    match name.split('/').collect::<Vec<_>>().as_slice() {
        [pkg, ty] => format!("{pkg}/msg/{ty}"),
        _ => name.to_string(),
    }
}

impl Definitions {
    /// The bundled definitions of `distro`, falling back to the other
    /// bundled distribution.
    pub fn bundled(distro: Distro) -> Self {
        let mut first = parse_store(distro.store());
        for (name, text) in parse_store(TEST_MSGS) {
            first.entry(name).or_insert(text);
        }
        Definitions {
            own: BTreeMap::new(),
            first,
            second: parse_store(distro.other().store()),
        }
    }

    /// No definitions at all (only those a caller adds).
    pub fn empty() -> Self {
        Definitions {
            own: BTreeMap::new(),
            first: BTreeMap::new(),
            second: BTreeMap::new(),
        }
    }

    /// Adds (or replaces) the definition of `name` (`pkg/msg/Type`,
    /// `pkg/Type` or `pkg/srv/Type`); it takes precedence over the
    /// bundled ones.
    ///
    /// `text` may be a concatenated definition as bags store them (the
    /// type's own text, then `MSG: pkg/Type` sections after `===` lines):
    /// each section is added under its own name.
    ///
    /// ```
    /// let mut d = rosbag2::Definitions::empty();
    /// d.add("p/msg/A", "p/B b\n====\nMSG: p/B\nint8 x\n");
    /// assert_eq!(d.get("p/msg/B"), Some("int8 x\n"));
    /// assert_eq!(d.get("p/A"), Some("p/B b\n"));
    /// ```
    pub fn add(&mut self, name: &str, text: &str) {
        let mut current = full_name(name);
        let mut body = String::new();
        let mut lines = text.lines().peekable();
        while let Some(line) = lines.next() {
            let t = line.trim();
            let is_sep = t.len() >= 3 && t.bytes().all(|b| b == b'=');
            if is_sep {
                if let Some(next) = lines.peek() {
                    if let Some(n) = next.trim().strip_prefix("MSG:") {
                        if !body.trim().is_empty() || !self.own.contains_key(&current) {
                            self.own.insert(current, std::mem::take(&mut body));
                        }
                        body.clear();
                        current = full_name(n.trim());
                        lines.next();
                        continue;
                    }
                }
            }
            body.push_str(line);
            body.push('\n');
        }
        self.own.insert(current, body);
    }

    /// Adds every definition of a store text (the form of
    /// [`render_store`]).
    pub fn add_store(&mut self, text: &str) {
        self.own.extend(parse_store(text));
    }

    /// Adds the `.msg` and `.srv` files of a folder: either one package
    /// (`<dir>/msg/*.msg`, `<dir>/srv/*.srv`, the package named after the
    /// folder) or a folder of packages. Returns how many were added.
    pub fn add_dir(&mut self, dir: &Path) -> std::io::Result<usize> {
        let text = render_store(dir)?;
        let parsed = parse_store(&text);
        let n = parsed.len();
        self.own.extend(parsed);
        Ok(n)
    }

    /// The text of `name` alone (no dependencies).
    pub fn get(&self, name: &str) -> Option<&str> {
        let name = full_name(name);
        self.own
            .get(&name)
            .or_else(|| self.first.get(&name))
            .or_else(|| self.second.get(&name))
            .map(String::as_str)
    }

    /// Where the definition of `name` comes from: 0 a caller's, 1 the
    /// first distribution, 2 the fallback.
    pub(crate) fn origin(&self, name: &str) -> Option<u8> {
        let name = full_name(name);
        if self.own.contains_key(&name) {
            Some(0)
        } else if self.first.contains_key(&name) {
            Some(1)
        } else if self.second.contains_key(&name) {
            Some(2)
        } else {
            None
        }
    }

    /// The caller's own definitions.
    pub(crate) fn own_entries(&self) -> impl Iterator<Item = (&String, &String)> {
        self.own.iter()
    }

    /// How many definitions are known (a caller's and the bundled ones,
    /// a name counted once).
    pub fn len(&self) -> usize {
        let mut names: HashSet<&String> = self.own.keys().collect();
        names.extend(self.first.keys());
        names.extend(self.second.keys());
        names.len()
    }

    /// The ROS 2 type description hash (`RIHS01_...`, see
    /// [`ros2cdr::hash`]) of `type_name` under these definitions (its
    /// [`resolve`](Self::resolve)d text); `None` when the type, or a type
    /// it uses, is unknown.
    ///
    /// ```
    /// let d = rosbag2::Definitions::bundled(rosbag2::Distro::Jazzy);
    /// let h = d.type_description_hash("sensor_msgs/msg/Imu").unwrap();
    /// assert_eq!(h, "RIHS01_7d9a00ff131080897a5ec7e26e315954b8eae3353c3f995c55faf71574000b5b");
    /// assert_eq!(d.type_description_hash("nobody/msg/Knows"), None);
    /// ```
    pub fn type_description_hash(&self, type_name: &str) -> Option<String> {
        let text = self.resolve(type_name)?;
        let t = ros2cdr::MessageType::parse(&full_name(type_name), &text).ok()?;
        Some(t.type_description_hash())
    }

    /// True when no definition is known.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The concatenated definition of `type_name` with every type it
    /// uses, for `ros2cdr::MessageType::parse`; `None` when the type
    /// itself is unknown (a dependency that is unknown is left for the
    /// parser to name). A `pkg/srv/Srv_Event` name gives the `.srv`
    /// text of `pkg/srv/Srv` with the types of its request and response.
    /// The sections are named `MSG: pkg/Type`, as rosbag2 writes them and
    /// as fields name the types they use.
    ///
    /// ```
    /// let d = rosbag2::Definitions::default();
    /// let text = d.resolve("geometry_msgs/msg/PointStamped").unwrap();
    /// assert!(text.contains("std_msgs/Header header"));
    /// assert!(text.contains("\nMSG: std_msgs/Header\n"));
    /// let t = ros2cdr::MessageType::parse("geometry_msgs/msg/PointStamped", &text)?;
    /// assert_eq!(t.name(), "geometry_msgs/PointStamped");
    /// # Ok::<(), ros2cdr::Error>(())
    /// ```
    pub fn resolve(&self, type_name: &str) -> Option<String> {
        let name = full_name(type_name);
        let own_name = match name.strip_suffix("_Event") {
            Some(srv) if name.contains("/srv/") => srv.to_string(),
            _ => name.clone(),
        };
        let top = self.get(&own_name)?;
        let mut out = top.to_string();
        let mut seen: HashSet<String> = HashSet::from([own_name.clone()]);
        let mut queue: VecDeque<(String, String)> = VecDeque::new();
        let pkg = |n: &str| n.split('/').next().unwrap_or("").to_string();
        for dep in uses(top, &pkg(&own_name)) {
            queue.push_back((dep, pkg(&own_name)));
        }
        while let Some((dep, _)) = queue.pop_front() {
            if !seen.insert(dep.clone()) {
                continue;
            }
            let Some(text) = self.get(&dep) else {
                continue;
            };
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(SEPARATOR);
            // Sections named `pkg/Type`, as rosbag2 names them and as
            // fields refer to them: readers that match a field's type to
            // a section by its text (Rerun's ROS 2 reflection) find it.
            out.push_str("\nMSG: ");
            out.push_str(&ros2cdr::msg::canonical_name(&dep));
            out.push('\n');
            out.push_str(text);
            for d in uses(text, &pkg(&dep)) {
                queue.push_back((d, pkg(&dep)));
            }
        }
        Some(out)
    }
}

const BUILTIN: [&str; 16] = [
    "bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32",
    "uint32", "int64", "uint64", "string", "wstring", "---",
];

/// The message types a `.msg`/`.srv` text uses, as full names.
fn uses(text: &str, package: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        let Some(ty) = line.split_whitespace().next() else {
            continue;
        };
        let ty = ty.split('[').next().unwrap_or(ty);
        let ty = ty.split("<=").next().unwrap_or(ty);
        if ty.is_empty() || BUILTIN.contains(&ty) {
            continue;
        }
        let full = if ty.contains('/') {
            full_name(ty)
        } else {
            format!("{package}/msg/{ty}")
        };
        if !out.contains(&full) {
            out.push(full);
        }
    }
    out
}

/// Parses a store text into (full name, text) pairs.
fn parse_store(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for section in text.split(&format!("{SEPARATOR}\n")) {
        let Some((head, body)) = section.split_once('\n') else {
            continue;
        };
        let name = head
            .strip_prefix("MSG: ")
            .or_else(|| head.strip_prefix("SRV: "));
        if let Some(name) = name {
            out.insert(name.trim().to_string(), body.to_string());
        }
    }
    out
}

/// The store text of a folder: one package (`msg/`, `srv/` inside it) or
/// a folder of packages, every `.msg` and `.srv` file in name order,
/// each as `SEPARATOR`, `MSG: pkg/msg/Type` (or `SRV: pkg/srv/Type`),
/// then its content, ending with a line break.
pub fn render_store(dir: &Path) -> std::io::Result<String> {
    let mut packages: Vec<std::path::PathBuf> = Vec::new();
    if dir.join("msg").is_dir() || dir.join("srv").is_dir() {
        packages.push(dir.to_path_buf());
    } else {
        for e in std::fs::read_dir(dir)? {
            let p = e?.path();
            if p.is_dir() {
                packages.push(p);
            }
        }
        packages.sort();
    }
    let mut out = String::new();
    for p in packages {
        let pkg = p
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        for (kind, ext, head) in [("msg", "msg", "MSG"), ("srv", "srv", "SRV")] {
            let sub = p.join(kind);
            if !sub.is_dir() {
                continue;
            }
            let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&sub)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == ext))
                .collect();
            files.sort();
            for f in files {
                let ty = f.file_stem().and_then(|n| n.to_str()).unwrap_or("");
                let mut text = std::fs::read_to_string(&f)?.replace("\r\n", "\n");
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                out.push_str(SEPARATOR);
                out.push('\n');
                out.push_str(&format!("{head}: {pkg}/{kind}/{ty}\n"));
                out.push_str(&text);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distros_and_fallback() {
        assert_eq!(Distro::for_ros_distro("humble"), Distro::Humble);
        assert_eq!(Distro::for_ros_distro("rolling"), Distro::Jazzy);
        assert_eq!(Distro::for_ros_distro(""), Distro::Jazzy);
        let humble = Definitions::bundled(Distro::Humble);
        // service_msgs is jazzy only: found through the fallback.
        assert!(humble.get("service_msgs/msg/ServiceEventInfo").is_some());
        assert!(humble.get("test_msgs/Builtins").is_some());
        assert!(Definitions::empty().is_empty());
    }

    #[test]
    fn own_definitions_win_and_dependencies_resolve() {
        let mut d = Definitions::empty();
        d.add("p/Outer", "Inner i\nq/Far f\nint8 x # comment Other\n");
        d.add("p/msg/Inner", "string<=5[<=2] s\n");
        d.add("q/msg/Far", "p/Inner again\n");
        let text = d.resolve("p/msg/Outer").unwrap();
        assert_eq!(text.matches("MSG: ").count(), 2, "{text}");
        let t = ros2cdr::MessageType::parse("p/msg/Outer", &text).unwrap();
        assert_eq!(t.defs().len(), 3);
        assert!(d.resolve("p/msg/Missing").is_none());
    }

    #[test]
    fn service_events_resolve_to_the_srv() {
        let d = Definitions::default();
        let text = d.resolve("std_srvs/srv/SetBool_Event").unwrap();
        let t = ros2cdr::MessageType::parse("std_srvs/srv/SetBool_Event", &text).unwrap();
        assert_eq!(t.name(), "std_srvs/SetBool_Event");
    }
}
