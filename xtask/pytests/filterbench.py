"""`cargo xtask bench filter`: `robolog filter` against the Python tools
users filter logs with today.

  filterbench.py bag DIR                   write the --where benchmark's bags (rosbags' writer), once
  filterbench.py mcap MCAP ROBOLOG DIR     topic filter: robolog filter vs pymcap-cli filter
  filterbench.py where BAG ROBOLOG DIR     --where on one topic vs a rosbags read-filter-write loop
  filterbench.py memory ROBOLOG ARGS...    peak RSS of one robolog run (wait4), its heap and mapped parts

Each prints one JSON object. Before timing, robolog's output is required to
hold exactly the peer's messages (topic, log time, bytes); times are the
best of three (wall clock).
"""

import gc
import json
import subprocess
import sys
import time
from pathlib import Path

# The --where bags: an IMU at 200 Hz, odometry at 50 Hz, GNSS at 10 Hz.
IMU, ODOM, FIX = "/imu/data", "/odom", "/gps/fix"
BIG_SECONDS, SMALL_SECONDS = 1000, 100
WHERE = "linear_acceleration.z > 10.5"

# The MCAP topic filter: the globs of robolog, the full-match regexes of
# pymcap-cli that mean the same.
OUR_TOPICS = ["/imu/*", "/gps/*"]
THEIR_TOPICS = ["/imu/[^/]*", "/gps/[^/]*"]


def best_of(f, runs=3):
    best, out = float("inf"), None
    for _ in range(runs):
        gc.collect()
        t = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t)
    return best, out


def typestore():
    from rosbags.typesys import Stores, get_typestore

    return get_typestore(Stores.ROS1_NOETIC)


def write_bag(path, seconds):
    """A drive of `seconds`: /imu/data (sensor_msgs/Imu, z about 9.81 with
    noise and bumps), /odom (nav_msgs/Odometry), /gps/fix (NavSatFix)."""
    import numpy as np
    from rosbags.rosbag1 import Writer

    ts = typestore()
    T = ts.types
    rng = np.random.default_rng(7)
    Time = T["builtin_interfaces/msg/Time"]
    V3, Q = T["geometry_msgs/msg/Vector3"], T["geometry_msgs/msg/Quaternion"]
    P, Pose = T["geometry_msgs/msg/Point"], T["geometry_msgs/msg/Pose"]
    cov9, cov36 = np.zeros(9), np.zeros(36)

    def header(i, t, frame):
        return T["std_msgs/msg/Header"](seq=i, stamp=Time(sec=t // 10**9, nanosec=t % 10**9), frame_id=frame)

    events = []
    t0 = 1_700_000_000 * 10**9
    for i in range(seconds * 200):
        t = t0 + i * 5_000_000
        z = 9.81 + rng.normal(0, 0.3) + (2.0 if rng.random() < 0.02 else 0.0)
        m = T["sensor_msgs/msg/Imu"](
            header=header(i, t, "imu_link"), orientation=Q(x=0.0, y=0.0, z=0.0, w=1.0),
            orientation_covariance=cov9, angular_velocity=V3(x=rng.normal(), y=rng.normal(), z=rng.normal()),
            angular_velocity_covariance=cov9,
            linear_acceleration=V3(x=rng.normal(0, 0.5), y=rng.normal(0, 0.5), z=z),
            linear_acceleration_covariance=cov9)
        events.append((t, IMU, "sensor_msgs/msg/Imu", m))
    for i in range(seconds * 50):
        t = t0 + i * 20_000_000 + 1_000
        pose = T["geometry_msgs/msg/PoseWithCovariance"](
            pose=Pose(position=P(x=i * 0.02, y=rng.normal(), z=0.0), orientation=Q(x=0.0, y=0.0, z=0.0, w=1.0)),
            covariance=cov36)
        twist = T["geometry_msgs/msg/TwistWithCovariance"](
            twist=T["geometry_msgs/msg/Twist"](linear=V3(x=1.0, y=0.0, z=0.0), angular=V3(x=0.0, y=0.0, z=0.1)),
            covariance=cov36)
        m = T["nav_msgs/msg/Odometry"](header=header(i, t, "odom"), child_frame_id="base_link", pose=pose,
                                       twist=twist)
        events.append((t, ODOM, "nav_msgs/msg/Odometry", m))
    for i in range(seconds * 10):
        t = t0 + i * 100_000_000 + 2_000
        m = T["sensor_msgs/msg/NavSatFix"](
            header=header(i, t, "gps"), status=T["sensor_msgs/msg/NavSatStatus"](status=0, service=1),
            latitude=48.1 + i * 1e-6, longitude=11.5, altitude=520.0, position_covariance=cov9,
            position_covariance_type=1)
        events.append((t, FIX, "sensor_msgs/msg/NavSatFix", m))
    events.sort(key=lambda e: e[0])
    with Writer(path) as w:
        conns = {}
        for topic, msgtype in ((IMU, "sensor_msgs/msg/Imu"), (ODOM, "nav_msgs/msg/Odometry"),
                               (FIX, "sensor_msgs/msg/NavSatFix")):
            conns[topic] = w.add_connection(topic, msgtype, typestore=ts)
        for t, topic, msgtype, m in events:
            w.write(conns[topic], t, ts.serialize_ros1(m, msgtype))


def bags(folder):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    made = {}
    for name, seconds in (("where-big.bag", BIG_SECONDS), ("where-small.bag", SMALL_SECONDS)):
        path = folder / name
        if not path.exists():
            tmp = path.with_suffix(".tmp")
            tmp.unlink(missing_ok=True)
            write_bag(tmp, seconds)
            tmp.rename(path)
        made[name] = path.stat().st_size
    return made


def run(args):
    out = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{args}: exit {out.returncode}: {out.stderr[-2000:]}")


def mcap_messages(path):
    """(log time, topic, bytes) of every message, sorted."""
    from mcap.reader import make_reader

    with open(path, "rb") as f:
        return sorted((m.log_time, c.topic, bytes(m.data))
                      for _, c, m in make_reader(f).iter_messages(log_time_order=False))


def mcap_case(src, exe, folder):
    """The MCAP topic filter: both zstd chunks of 1 MiB."""
    folder = Path(folder)
    ours, theirs = folder / "robolog-topics.mcap", folder / "pymcap-topics.mcap"
    pymcap = Path(sys.executable).parent / "pymcap-cli"
    a = [exe, "filter", src, ours, "--force", "--compression", "zstd", "--chunk-size", str(1 << 20)]
    for p in OUR_TOPICS:
        a += ["--topic", p]
    b = [pymcap, "filter", src, theirs, "--force", "--compression", "zstd", "--chunk-size", str(1 << 20)]
    for p in THEIR_TOPICS:
        b += ["--topic", p]
    run(a)
    run(b)
    got, want = mcap_messages(ours), mcap_messages(theirs)
    if got != want:
        raise SystemExit(f"mcap: robolog kept {len(got)} messages, pymcap-cli {len(want)}, not the same")
    kept = len(got)
    del got, want
    t_ours, _ = best_of(lambda: run(a))
    t_peer, _ = best_of(lambda: run(b))
    return {"robolog": t_ours, "peer": t_peer, "kept": kept, "robolog_bytes": ours.stat().st_size,
            "peer_bytes": theirs.stat().st_size}


def peer_where(src, dst, limit=10.5):
    """rosbags: read every message, deserialise the /imu/data ones and keep
    those with linear_acceleration.z > limit, write the kept raw bytes."""
    from rosbags.rosbag1 import Reader, Writer

    ts = typestore()
    dst = Path(dst)
    dst.unlink(missing_ok=True)
    n = 0
    with Reader(Path(src)) as r, Writer(dst) as w:
        conns = {c.id: w.add_connection(c.topic, c.msgtype, msgdef=c.msgdef.data, md5sum=c.digest)
                 for c in r.connections}
        for c, t, raw in r.messages():
            if c.topic == IMU and not ts.deserialize_ros1(raw, c.msgtype).linear_acceleration.z > limit:
                continue
            w.write(conns[c.id], t, raw)
            n += 1
    return n


def bag_messages(path):
    from rosbags.rosbag1 import Reader

    with Reader(Path(path)) as r:
        return sorted((t, c.topic, bytes(raw)) for c, t, raw in r.messages())


def where_case(src, exe, folder):
    folder = Path(folder)
    ours, theirs = folder / "robolog-where.bag", folder / "rosbags-where.bag"
    a = [exe, "filter", src, ours, "--force", "--where", f"{IMU}: {WHERE}"]
    run(a)
    peer_where(src, theirs)
    got, want = bag_messages(ours), bag_messages(theirs)
    if got != want:
        raise SystemExit(f"where: robolog kept {len(got)} messages, the rosbags loop {len(want)}, not the same")
    kept = len(got)
    imu_kept = sum(1 for _, tp, _ in got if tp == IMU)
    del got, want
    t_ours, _ = best_of(lambda: run(a))
    t_peer, _ = best_of(lambda: peer_where(src, theirs))
    return {"robolog": t_ours, "peer": t_peer, "kept": kept, "imu_kept": imu_kept}


def memory(exe, *args):
    """Peak RSS of `robolog ARGS` (bytes, wait4's ru_maxrss), and the
    largest anonymous (heap) and file-backed (mapped input) parts of it
    seen in /proc/PID/status every 5 ms."""
    import os

    t = time.perf_counter()
    p = subprocess.Popen([str(exe), *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    anon = mapped = 0
    while True:
        try:
            with open(f"/proc/{p.pid}/status") as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
            anon = max(anon, int(fields.get("RssAnon", "0 kB").split()[0]) * 1024)
            mapped = max(mapped, int(fields.get("RssFile", "0 kB").split()[0]) * 1024)
        except (OSError, ValueError):
            pass
        done, status, usage = os.wait4(p.pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.005)
    took = time.perf_counter() - t
    err = p.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"memory: {args}: {err[-2000:]}")
    return {"peak_rss": usage.ru_maxrss * 1024, "anon": anon, "mapped": mapped, "seconds": took}


def main():
    what, args = sys.argv[1], sys.argv[2:]
    if what == "bag":
        out = bags(args[0])
    elif what == "mcap":
        out = mcap_case(*args)
    elif what == "where":
        out = where_case(*args)
    elif what == "memory":
        out = memory(*args)
    else:
        raise SystemExit(f"unknown case {what}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
