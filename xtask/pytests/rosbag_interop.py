"""rosbags 0.11.9's side of `cargo xtask rosbag interop`: bags it writes
(none, bz2, lz4) and the messages it reads from a bag, deserialized, as
JSON-ready values. test_rosbag_interop.py runs it."""
import numpy as np
from rosbags.rosbag1 import Reader, Writer
from rosbags.typesys import Stores, get_typestore

ts = get_typestore(Stores.ROS1_NOETIC)
T = ts.types

def to_json(v):
    if hasattr(v, '__dataclass_fields__'):
        return {k: to_json(getattr(v, k)) for k in v.__dataclass_fields__ if k != '__msgtype__'}
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (bytes, bytearray)):
        return list(v)
    if isinstance(v, list):
        return [to_json(x) for x in v]
    if isinstance(v, (np.floating,)):
        return float(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    return v

def dump(path):
    """{topic, time, type, data} of each message of the bag `path`, in
    rosbags' order."""
    rows = []
    with Reader(path) as r:
        for conn, t, raw in r.messages():
            msg = ts.deserialize_ros1(raw, conn.msgtype)
            rows.append({"topic": conn.topic, "time": t, "type": conn.msgtype, "data": to_json(msg)})
    return rows

# The compressions of the bags `write` makes.
COMPRESSIONS = ['none', 'bz2', 'lz4']


def write(path, comp):
    """A bag of String, Imu, Int8MultiArray and Image messages with
    chunk compression `comp`."""
    w = Writer(path)
    if comp == 'bz2':
        w.set_compression(Writer.CompressionFormat.BZ2)
    elif comp == 'lz4':
        w.set_compression(Writer.CompressionFormat.LZ4)
    with w:
        c_str = w.add_connection('/chatter', 'std_msgs/msg/String', typestore=ts)
        c_imu = w.add_connection('/imu', 'sensor_msgs/msg/Imu', typestore=ts)
        c_arr = w.add_connection('/array', 'std_msgs/msg/Int8MultiArray', typestore=ts)
        c_img = w.add_connection('/image', 'sensor_msgs/msg/Image', typestore=ts)
        Time = T['builtin_interfaces/msg/Time']
        Header = T['std_msgs/msg/Header']
        for i in range(40):
            t = 1_700_000_000_000_000_000 + i * 25_000_000
            stamp = Time(sec=1_700_000_000 + i // 40, nanosec=(i % 40) * 25_000_000)
            hdr = Header(seq=i, stamp=stamp, frame_id='imu_link')
            q = T['geometry_msgs/msg/Quaternion'](x=0.0, y=0.0, z=0.1 * i, w=1.0)
            v3 = T['geometry_msgs/msg/Vector3']
            imu = T['sensor_msgs/msg/Imu'](header=hdr, orientation=q,
                orientation_covariance=np.arange(9, dtype=np.float64) * 0.5,
                angular_velocity=v3(x=0.01 * i, y=-1.5, z=3.0),
                angular_velocity_covariance=np.zeros(9, dtype=np.float64),
                linear_acceleration=v3(x=0.0, y=0.0, z=9.81),
                linear_acceleration_covariance=np.full(9, -1.0))
            w.write(c_imu, t, ts.serialize_ros1(imu, 'sensor_msgs/msg/Imu'))
            if i % 4 == 0:
                w.write(c_str, t + 1, ts.serialize_ros1(T['std_msgs/msg/String'](data=f'hello {i} ü'), 'std_msgs/msg/String'))
                dim = T['std_msgs/msg/MultiArrayDimension'](label='x', size=3, stride=3)
                layout = T['std_msgs/msg/MultiArrayLayout'](dim=[dim], data_offset=0)
                arr = T['std_msgs/msg/Int8MultiArray'](layout=layout, data=np.array([-1, 0, i], dtype=np.int8))
                w.write(c_arr, t + 2, ts.serialize_ros1(arr, 'std_msgs/msg/Int8MultiArray'))
            if i % 10 == 0:
                img = T['sensor_msgs/msg/Image'](header=hdr, height=2, width=3, encoding='mono8', is_bigendian=0, step=3,
                    data=np.array([i % 256, 1, 2, 3, 4, 255], dtype=np.uint8))
                w.write(c_img, t + 3, ts.serialize_ros1(img, 'sensor_msgs/msg/Image'))
