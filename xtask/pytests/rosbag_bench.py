"""The peer side of `cargo xtask bench rosbag`: `make OUT.bag none|bz2|lz4`
writes a large bag with rosbags; `time BAG` prints rosbags' best time
iterating and deserializing every message, as JSON."""
import json
import sys
import time

import numpy as np
from rosbags.rosbag1 import Reader, Writer
from rosbags.typesys import Stores, get_typestore

ts = get_typestore(Stores.ROS1_NOETIC)
T = ts.types

def make(path, comp):
    w = Writer(path)
    if comp == 'bz2':
        w.set_compression(Writer.CompressionFormat.BZ2)
    elif comp == 'lz4':
        w.set_compression(Writer.CompressionFormat.LZ4)
    Time = T['builtin_interfaces/msg/Time']
    Header = T['std_msgs/msg/Header']
    v3 = T['geometry_msgs/msg/Vector3']
    with w:
        c_imu = w.add_connection('/imu', 'sensor_msgs/msg/Imu', typestore=ts)
        c_scan = w.add_connection('/scan', 'sensor_msgs/msg/LaserScan', typestore=ts)
        rng = np.random.default_rng(1)
        # 330k messages (about 120 MB); bz2 decompresses at tens of MB/s:
        # a smaller bag keeps the run short.
        count = 60_000 if comp == 'bz2' else 330_000
        for i in range(count):
            t = 1_700_000_000_000_000_000 + i * 1_000_000
            hdr = Header(seq=i, stamp=Time(sec=1_700_000_000 + i // 1000, nanosec=(i % 1000) * 1_000_000), frame_id='imu_link')
            if i % 100 == 99:
                scan = T['sensor_msgs/msg/LaserScan'](header=hdr, angle_min=-1.5, angle_max=1.5, angle_increment=0.005,
                    time_increment=0.0, scan_time=0.1, range_min=0.1, range_max=30.0,
                    ranges=rng.random(600, dtype=np.float32) * 30, intensities=rng.random(600, dtype=np.float32))
                w.write(c_scan, t, ts.serialize_ros1(scan, 'sensor_msgs/msg/LaserScan'))
                continue
            imu = T['sensor_msgs/msg/Imu'](header=hdr,
                orientation=T['geometry_msgs/msg/Quaternion'](x=0.0, y=0.0, z=0.001 * (i % 1000), w=1.0),
                orientation_covariance=np.full(9, 0.5), angular_velocity=v3(x=0.1, y=-1.5, z=3.0),
                angular_velocity_covariance=np.zeros(9), linear_acceleration=v3(x=0.0, y=0.0, z=9.81),
                linear_acceleration_covariance=np.full(9, -1.0))
            w.write(c_imu, t, ts.serialize_ros1(imu, 'sensor_msgs/msg/Imu'))

def timeit(path):
    best = None
    for _ in range(2):
        start = time.perf_counter()
        n = 0
        raw = 0
        with Reader(path) as r:
            for conn, t, data in r.messages():
                ts.deserialize_ros1(data, conn.msgtype)
                n += 1
                raw += len(data)
        dt = time.perf_counter() - start
        best = dt if best is None else min(best, dt)
    print(json.dumps({"seconds": best, "messages": n, "bytes": raw}))

if __name__ == '__main__':
    if sys.argv[1] == 'make':
        make(sys.argv[2], sys.argv[3])
    else:
        timeit(sys.argv[2])
