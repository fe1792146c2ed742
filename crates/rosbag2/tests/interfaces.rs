//! The bundled definitions (`interfaces/humble.txt`, `jazzy.txt`) equal
//! what `render_store` makes of the shared copies of the ROS 2 interface
//! packages (`../shared/ros2-interfaces/{humble,jazzy}`; skipped with a
//! note when absent). With `ROSBAG2_BLESS=1` the test rewrites the
//! bundled files instead.

use std::path::PathBuf;

use rosbag2::interfaces::{HUMBLE, JAZZY, render_store};

#[test]
fn the_bundled_store_is_the_shared_interfaces() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = match std::env::var_os("ROS2_INTERFACES") {
        Some(d) => PathBuf::from(d),
        None => root.join("../../../shared/ros2-interfaces"),
    };
    if !shared.is_dir() {
        eprintln!("skipped: no ROS 2 interfaces at {}", shared.display());
        return;
    }
    for (distro, bundled) in [("humble", HUMBLE), ("jazzy", JAZZY)] {
        let made = render_store(&shared.join(distro)).unwrap();
        if std::env::var_os("ROSBAG2_BLESS").is_some() {
            std::fs::write(root.join(format!("interfaces/{distro}.txt")), &made).unwrap();
            continue;
        }
        assert!(
            made == bundled,
            "interfaces/{distro}.txt differs from {}: regenerate it with ROSBAG2_BLESS=1",
            shared.join(distro).display()
        );
        assert!(made.contains("MSG: std_msgs/msg/Header\n"));
        assert!(made.contains("SRV: std_srvs/srv/SetBool\n"));
    }
}

#[test]
fn every_bundled_message_type_parses() {
    for (distro, d) in [
        (
            "humble",
            rosbag2::Definitions::bundled(rosbag2::Distro::Humble),
        ),
        (
            "jazzy",
            rosbag2::Definitions::bundled(rosbag2::Distro::Jazzy),
        ),
    ] {
        let store = if distro == "humble" { HUMBLE } else { JAZZY };
        let mut n = 0;
        for line in store.lines() {
            let (kind, name) = match (line.strip_prefix("MSG: "), line.strip_prefix("SRV: ")) {
                (Some(n), _) => ("msg", n),
                (_, Some(n)) => ("srv", n),
                _ => continue,
            };
            let ty = if kind == "srv" {
                format!("{name}_Event")
            } else {
                name.to_string()
            };
            let text = d.resolve(&ty).unwrap();
            ros2cdr::MessageType::parse(&ty, &text)
                .unwrap_or_else(|e| panic!("{distro} {ty}: {e}"));
            n += 1;
        }
        assert!(n > 150, "{distro}: {n}");
    }
}
