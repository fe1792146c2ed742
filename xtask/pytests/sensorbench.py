"""`cargo xtask bench sensors`: sensor payloads, robolog against the
fastest Python ways users have.

  sensorbench.py inputs DIR            write the benchmark's bags (rosbags' writer), once
  sensorbench.py points BAG TOPIC      Log.points vs rosbags + numpy.frombuffer
  sensorbench.py png BAG TOPIC ROBOLOG DIR
                                       robolog export --images vs rosbags + Pillow
  sensorbench.py memory BAG ROBOLOG DIR
                                       peak RSS of robolog export --images

Each prints one JSON object. Before timing, robolog's values are required
to equal the peer's; times are the best of three.
"""

import gc
import json
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

CLOUDS, CLOUD_POINTS, POINT_STEP = 100, 100_000, 32
FRAMES, WIDTH, HEIGHT = 100, 640, 480
# About 1 GB of 640x480 rgb8 frames.
BIG_FRAMES = 1100

KINDS = {1: "i1", 2: "u1", 3: "i2", 4: "u2", 5: "i4", 6: "u4", 7: "f4", 8: "f8"}


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


def header(T, i):
    return T["std_msgs/msg/Header"](
        seq=i, stamp=T["builtin_interfaces/msg/Time"](sec=1000 + i, nanosec=0), frame_id="sensor"
    )


def write_clouds(path):
    """100 clouds of 100,000 points as a 64-beam lidar gives them: x, y,
    z, intensity float32 and ring uint16, point_step 32."""
    from rosbags.rosbag1 import Writer

    ts = typestore()
    T = ts.types
    F = T["sensor_msgs/msg/PointField"]
    fields = [F(name=n, offset=o, datatype=7, count=1) for n, o in [("x", 0), ("y", 4), ("z", 8), ("intensity", 16)]]
    fields.append(F(name="ring", offset=20, datatype=4, count=1))
    rng = np.random.default_rng(1)
    with Writer(path) as w:
        c = w.add_connection("/points", "sensor_msgs/msg/PointCloud2", typestore=ts)
        for i in range(CLOUDS):
            data = rng.integers(0, 256, CLOUD_POINTS * POINT_STEP, dtype=np.uint8)
            m = T["sensor_msgs/msg/PointCloud2"](
                header=header(T, i), height=1, width=CLOUD_POINTS, fields=fields, is_bigendian=False,
                point_step=POINT_STEP, row_step=POINT_STEP * CLOUD_POINTS, data=data, is_dense=True,
            )
            w.write(c, (1000 + i) * 10**9, ts.serialize_ros1(m, m.__msgtype__))


def frame(i):
    """A camera-like frame: smooth gradients that move, plus sensor noise
    (PNG compresses it as it would a real scene, not as noise or flat)."""
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH]
    noise = np.random.default_rng(i).integers(0, 6, (HEIGHT, WIDTH, 3))
    img = np.stack([(x + 3 * i) % 256, (y + 2 * i) % 256, ((x + y) // 2 + i) % 256], axis=-1) + noise
    return np.clip(img, 0, 255).astype(np.uint8)


def write_frames(path, count):
    from rosbags.rosbag1 import Writer

    ts = typestore()
    T = ts.types
    base = [frame(i) for i in range(8)]
    with Writer(path) as w:
        c = w.add_connection("/camera/image_raw", "sensor_msgs/msg/Image", typestore=ts)
        for i in range(count):
            m = T["sensor_msgs/msg/Image"](
                header=header(T, i), height=HEIGHT, width=WIDTH, encoding="rgb8", is_bigendian=0,
                step=WIDTH * 3, data=base[i % len(base)].reshape(-1),
            )
            w.write(c, 10**9 + i * 33_333_333, ts.serialize_ros1(m, m.__msgtype__))


def inputs(folder):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    made = {}
    for name, write in [
        ("clouds.bag", write_clouds),
        ("camera.bag", lambda p: write_frames(p, FRAMES)),
        ("camera-1g.bag", lambda p: write_frames(p, BIG_FRAMES)),
    ]:
        path = folder / name
        if not path.exists():
            tmp = path.with_suffix(".tmp")
            tmp.unlink(missing_ok=True)
            write(tmp)
            tmp.rename(path)
        made[name] = path.stat().st_size
    return made


# Point clouds


def peer_points(path, topic):
    """rosbags deserialise plus numpy.frombuffer with the cloud's dtype:
    what sensor_msgs_py.read_points does, without ROS."""
    from rosbags.highlevel import AnyReader

    out = []
    with AnyReader([Path(path)]) as r:
        conns = [c for c in r.connections if c.topic == topic]
        for c, t, raw in r.messages(connections=conns):
            m = r.deserialize(raw, c.msgtype)
            end = ">" if m.is_bigendian else "<"
            dt = np.dtype({
                "names": [f.name for f in m.fields],
                "formats": [end + KINDS[f.datatype] for f in m.fields],
                "offsets": [f.offset for f in m.fields],
                "itemsize": m.point_step,
            })
            out.append((t, np.frombuffer(m.data, dt, count=m.width * m.height)))
    return out


def robolog_points(path, topic):
    import robolog

    with robolog.open(path) as log:
        return list(log.points(topic))


def points(path, topic):
    ours, theirs = robolog_points(path, topic), peer_points(path, topic)
    if [t for t, _ in ours] != [t for t, _ in theirs]:
        raise SystemExit("points: log times differ from rosbags'")
    n = 0
    for (_, a), (_, b) in zip(ours, theirs):
        for name in b.dtype.names:
            if not np.array_equal(a[name], b[name], equal_nan=True):
                raise SystemExit(f"points: field {name} differs from rosbags'")
        n += len(b)
    del ours, theirs
    t_ours, _ = best_of(lambda: robolog_points(path, topic))
    t_peer, _ = best_of(lambda: peer_points(path, topic))
    return {"robolog": t_ours, "peer": t_peer, "points": n}


# Frames to PNG files


def peer_png(path, topic, out):
    from PIL import Image
    from rosbags.highlevel import AnyReader

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    with AnyReader([Path(path)]) as r:
        conns = [c for c in r.connections if c.topic == topic]
        for c, t, raw in r.messages(connections=conns):
            m = r.deserialize(raw, c.msgtype)
            img = np.frombuffer(m.data, np.uint8).reshape(m.height, m.step)[:, : m.width * 3]
            Image.fromarray(img.reshape(m.height, m.width, 3)).save(out / f"{t}.png")
            n += 1
    return n


def robolog_png(exe, path, out):
    subprocess.run([exe, "export", str(path), "-o", str(out), "--images", "--force"], check=True,
                   stdout=subprocess.DEVNULL)
    return sorted(Path(out).rglob("*.png"))


def png(path, topic, exe, folder):
    from PIL import Image

    folder = Path(folder)
    ours_dir, peer_dir = folder / "robolog-png", folder / "peer-png"
    for d in (ours_dir, peer_dir):
        shutil.rmtree(d, ignore_errors=True)
    files = robolog_png(exe, path, ours_dir)
    count = peer_png(path, topic, peer_dir)
    if len(files) != count:
        raise SystemExit(f"png: robolog wrote {len(files)} files, the peer {count}")
    for f in files[:: max(1, len(files) // 5)]:
        with Image.open(f) as a, Image.open(peer_dir / f.name) as b:
            if not np.array_equal(np.asarray(a), np.asarray(b)):
                raise SystemExit(f"png: {f.name} differs from Pillow's")
    ours_bytes = sum(f.stat().st_size for f in files)
    peer_bytes = sum(f.stat().st_size for f in peer_dir.glob("*.png"))

    def ours():
        shutil.rmtree(ours_dir, ignore_errors=True)
        return robolog_png(exe, path, ours_dir)

    def peer():
        shutil.rmtree(peer_dir, ignore_errors=True)
        return peer_png(path, topic, peer_dir)

    t_ours, _ = best_of(ours)
    t_peer, _ = best_of(peer)
    for d in (ours_dir, peer_dir):
        shutil.rmtree(d, ignore_errors=True)
    return {"robolog": t_ours, "peer": t_peer, "frames": count, "robolog_bytes": ours_bytes,
            "peer_bytes": peer_bytes}


def memory(path, exe, folder):
    """Peak RSS of `robolog export --images` of the ~1 GB bag, run alone
    in this process's only child."""
    out = Path(folder) / "robolog-png-1g"
    shutil.rmtree(out, ignore_errors=True)
    t = time.perf_counter()
    subprocess.run([exe, "export", str(path), "-o", str(out), "--images", "--force"], check=True,
                   stdout=subprocess.DEVNULL)
    took = time.perf_counter() - t
    files = len(list(out.rglob("*.png")))
    shutil.rmtree(out, ignore_errors=True)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    return {"peak_rss": peak, "seconds": took, "frames": files, "log_bytes": Path(path).stat().st_size,
            "frame_bytes": WIDTH * HEIGHT * 3}


def main():
    what, args = sys.argv[1], sys.argv[2:]
    if what == "inputs":
        out = inputs(args[0])
    elif what == "points":
        out = points(*args)
    elif what == "png":
        out = png(*args)
    elif what == "memory":
        out = memory(*args)
    else:
        raise SystemExit(f"unknown case {what}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
