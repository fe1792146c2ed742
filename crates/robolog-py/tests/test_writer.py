"""robolog.Writer: logs written from dicts, read back by independent
readers (rosbags, the mcap package and its ROS 2, protobuf decoders)."""

import json
import os

import numpy as np
import pytest

import robolog

IMU = {
    "header": {"seq": 3, "stamp": {"secs": 12, "nsecs": 500}, "frame_id": "imu"},
    "orientation": {"x": 0.1, "y": 0.2, "z": 0.3, "w": 0.9},
    "orientation_covariance": np.arange(9, dtype=np.float64),
    "angular_velocity": {"x": 1.0, "y": -2.0, "z": 3.5},
    "angular_velocity_covariance": [0.0] * 9,
    "linear_acceleration": {"x": 0.0, "y": 0.25, "z": 9.81},
    "linear_acceleration_covariance": [1.0] * 9,
}


def test_ros1_bag_read_by_rosbags(tmp_path):
    from rosbags.highlevel import AnyReader

    path = tmp_path / "out.bag"
    with robolog.Writer(path) as w:
        w.add_channel("/imu", "sensor_msgs/Imu")
        w.add_channel("/chat", "std_msgs/String")
        w.write("/imu", IMU, 1_000_000_000)
        w.write("/chat", {"data": "hello"}, 2_000_000_000)
    with AnyReader([path]) as r:
        got = [(c.topic, t, r.deserialize(raw, c.msgtype)) for c, t, raw in r.messages()]
    assert [(t, ts) for t, ts, _ in got] == [("/imu", 1_000_000_000), ("/chat", 2_000_000_000)]
    imu = got[0][2]
    assert imu.header.seq == 3 and imu.header.frame_id == "imu"
    assert (imu.header.stamp.sec, imu.header.stamp.nanosec) == (12, 500)
    assert (imu.orientation.x, imu.orientation.w) == (0.1, 0.9)
    assert list(imu.orientation_covariance) == list(range(9))
    assert imu.angular_velocity.y == -2.0 and imu.linear_acceleration.z == 9.81
    assert list(imu.linear_acceleration_covariance) == [1.0] * 9
    assert got[1][2].data == "hello"


ROS2_IMU = {
    "header": {"stamp": {"sec": 5, "nanosec": 7}, "frame_id": "base"},
    "orientation": {"x": 0.0, "y": 0.0, "z": 0.0, "w": 1.0},
    "orientation_covariance": [0.5] * 9,
    "angular_velocity": {"x": 1.0, "y": 2.0, "z": 3.0},
    "angular_velocity_covariance": np.zeros(9),
    "linear_acceleration": {"x": -1.0, "y": 0.0, "z": 9.8},
    "linear_acceleration_covariance": [0.0] * 9,
}


def test_ros2_mcap_read_by_mcap_ros2(tmp_path):
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory

    path = tmp_path / "out.mcap"
    with robolog.Writer(path, profile="ros2") as w:
        w.add_channel("/imu", "sensor_msgs/msg/Imu")
        w.add_channel("/s", "std_msgs/msg/String")
        w.write("/imu", ROS2_IMU, 10, publish_time=11)
        w.write("/s", {"data": "hi"}, 20)
    with open(path, "rb") as f:
        r = make_reader(f, decoder_factories=[DecoderFactory()])
        got = [(c.topic, m.log_time, m.publish_time, d) for _, c, m, d in r.iter_decoded_messages()]
    assert [g[:3] for g in got] == [("/imu", 10, 11), ("/s", 20, 20)]
    imu = got[0][3]
    assert (imu.header.stamp.sec, imu.header.stamp.nanosec) == (5, 7)
    assert imu.header.frame_id == "base"
    assert imu.angular_velocity.z == 3.0 and imu.linear_acceleration.z == 9.8
    assert list(imu.orientation_covariance) == [0.5] * 9
    assert got[1][3].data == "hi"


def test_json_channel_read_by_mcap(tmp_path):
    from mcap.reader import make_reader

    path = tmp_path / "j.mcap"
    msg = {"a": 1, "b": [1.5, 2.5], "c": {"d": "x"}, "e": None, "f": True}
    schema = json.dumps({"type": "object"})
    with robolog.Writer(path) as w:
        w.add_channel("/j", "Thing", schema)
        w.write("/j", msg, 5)
    with open(path, "rb") as f:
        [(s, c, m)] = list(make_reader(f).iter_messages())
    assert c.message_encoding == "json" and s.encoding == "jsonschema"
    assert json.loads(m.data) == msg


def test_protobuf_channel_read_by_mcap_protobuf(tmp_path):
    from foxglove_schemas_protobuf.LocationFix_pb2 import LocationFix
    from google.protobuf.descriptor_pb2 import FileDescriptorSet
    from mcap.reader import make_reader
    from mcap_protobuf.decoder import DecoderFactory

    fds = FileDescriptorSet()
    seen = set()

    def add(fd):
        for dep in fd.dependencies:
            add(dep)
        if fd.name not in seen:
            seen.add(fd.name)
            fd.CopyToProto(fds.file.add())

    add(LocationFix.DESCRIPTOR.file)
    path = tmp_path / "p.mcap"
    with robolog.Writer(path) as w:
        w.add_channel("/gps", "foxglove.LocationFix", fds.SerializeToString())
        w.write("/gps", {"timestamp": {"seconds": 3, "nanos": 4}, "frame_id": "gps",
                         "latitude": 48.1, "longitude": 11.5, "altitude": 500.0,
                         "position_covariance": [1.0] * 9, "position_covariance_type": 2}, 7)
    with open(path, "rb") as f:
        [(_, c, m, d)] = list(make_reader(f, decoder_factories=[DecoderFactory()]).iter_decoded_messages())
    assert c.message_encoding == "protobuf"
    assert (d.timestamp.seconds, d.timestamp.nanos) == (3, 4)
    assert (d.frame_id, d.latitude, d.longitude, d.altitude) == ("gps", 48.1, 11.5, 500.0)
    assert list(d.position_covariance) == [1.0] * 9 and d.position_covariance_type == 2


def test_bytes_written_as_given(tmp_path):
    from mcap.reader import make_reader

    path = tmp_path / "b.mcap"
    raw = b"\x05\x00\x00\x00hello"
    with robolog.Writer(path, profile="ros1") as w:
        w.add_channel("/s", "std_msgs/String")
        w.write("/s", raw, 1)
    with open(path, "rb") as f:
        [(s, c, m)] = list(make_reader(f).iter_messages())
    assert m.data == raw and c.message_encoding == "ros1" and s.encoding == "ros1msg"


def test_rosbag2_folder_read_by_rosbags(tmp_path):
    from rosbags.highlevel import AnyReader

    path = tmp_path / "bag2"
    with robolog.Writer(path, format="rosbag2") as w:
        w.add_channel("/s", "std_msgs/msg/String")
        w.write("/s", {"data": "one"}, 100)
        w.write("/s", {"data": "two"}, 200)
    with AnyReader([path]) as r:
        got = [(t, r.deserialize(raw, c.msgtype).data) for c, t, raw in r.messages()]
    assert got == [(100, "one"), (200, "two")]


def test_errors_name_the_field(tmp_path):
    with robolog.Writer(tmp_path / "e.mcap", profile="ros2") as w:
        w.add_channel("/imu", "sensor_msgs/msg/Imu")
        bad = dict(ROS2_IMU, header={"stamp": {"sec": "a", "nanosec": 0}, "frame_id": ""})
        with pytest.raises(TypeError, match=r"header\.stamp\.sec: expected int32, got 'a'"):
            w.write("/imu", bad, 1)
        with pytest.raises(ValueError, match=r"orientation_covariance: expected 9 values"):
            w.write("/imu", dict(ROS2_IMU, orientation_covariance=[0.0]), 1)
        with pytest.raises(ValueError, match=r"orientation\.q: no such field"):
            w.write("/imu", dict(ROS2_IMU, orientation={"q": 1}), 1)
        with pytest.raises(KeyError, match="/imu"):
            w.write("/nope", {}, 1)
    with robolog.Writer(tmp_path / "e.bag") as w:
        w.add_channel("/u", "std_msgs/UInt8")
        with pytest.raises(ValueError, match=r"data: 300 is out of the range of uint8"):
            w.write("/u", {"data": 300}, 1)
        with pytest.raises(ValueError, match="not a bundled standard type"):
            w.add_channel("/x", "my_msgs/Nope")


def test_exception_leaves_no_file(tmp_path):
    path = tmp_path / "x.bag"
    with pytest.raises(RuntimeError):
        with robolog.Writer(path) as w:
            w.add_channel("/chat", "std_msgs/String")
            w.write("/chat", {"data": "a"}, 1)
            raise RuntimeError("stop")
    assert os.listdir(tmp_path) == []
    folder = tmp_path / "b2"
    with pytest.raises(RuntimeError):
        with robolog.Writer(folder, format="rosbag2") as w:
            w.add_channel("/chat", "std_msgs/msg/String")
            raise RuntimeError("stop")
    assert os.listdir(tmp_path) == []


def test_existing_file_refused_without_force(tmp_path):
    path = tmp_path / "x.mcap"
    path.write_bytes(b"keep")
    with pytest.raises(FileExistsError):
        robolog.Writer(path)
    assert path.read_bytes() == b"keep"
    with robolog.Writer(path, force=True) as w:
        w.add_channel("/j", "T")
        w.write("/j", {"a": 1}, 1)
    assert path.read_bytes()[:8] == b"\x89MCAP0\r\n"


def _chunk_compressions_mcap(path):
    from mcap.reader import make_reader

    with open(path, "rb") as f:
        summary = make_reader(f).get_summary()
    return {c.compression for c in summary.chunk_indexes}, len(summary.chunk_indexes)


@pytest.mark.parametrize("compression", ["zstd", "lz4", "none", None])
def test_mcap_compression_read_by_mcap(tmp_path, compression):
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory

    path = tmp_path / "out.mcap"
    with robolog.Writer(path, profile="ros2", compression=compression, chunk_size=4096) as w:
        w.add_channel("/chat", "std_msgs/msg/String")
        for i in range(200):
            w.write("/chat", {"data": f"message {i} " + "x" * 40}, 1_000 + i)
    kinds, chunks = _chunk_compressions_mcap(path)
    assert kinds == {{"zstd": "zstd", "lz4": "lz4", "none": "", None: "zstd"}[compression]}
    assert chunks > 1, "chunk_size splits the chunks"
    with open(path, "rb") as f:
        got = [
            (ch.topic, m.log_time, d.data)
            for _, ch, m, d in make_reader(f, decoder_factories=[DecoderFactory()]).iter_decoded_messages()
        ]
    assert got == [("/chat", 1_000 + i, f"message {i} " + "x" * 40) for i in range(200)]


def _bag_chunk_compressions(data):
    """The `compression` fields of a bag's chunk record headers (each
    field: its length as a little-endian int32, then `name=value`)."""
    found = set()
    at = data.find(b"compression=")
    while at >= 0:
        size = int.from_bytes(data[at - 4 : at], "little")
        found.add(data[at + len(b"compression=") : at + size].decode())
        at = data.find(b"compression=", at + 1)
    return found


@pytest.mark.parametrize("compression", ["lz4", "bz2", "none"])
def test_bag_compression_read_by_rosbags(tmp_path, compression):
    from rosbags.highlevel import AnyReader
    from rosbags.rosbag1 import Reader

    path = tmp_path / "out.bag"
    with robolog.Writer(path, compression=compression, chunk_size=2048) as w:
        w.add_channel("/chat", "std_msgs/String")
        for i in range(100):
            w.write("/chat", {"data": f"hello {i} " + "y" * 50}, 1_000_000_000 + i)
    with Reader(path) as r:
        chunks = len(r.chunk_infos)
    assert chunks > 1
    assert _bag_chunk_compressions(path.read_bytes()) == {compression}
    with AnyReader([path]) as r:
        got = [(t, r.deserialize(raw, c.msgtype).data) for c, t, raw in r.messages()]
    assert got == [(1_000_000_000 + i, f"hello {i} " + "y" * 50) for i in range(100)]


def test_compression_refusals(tmp_path):
    with pytest.raises(ValueError, match="no zstd"):
        robolog.Writer(tmp_path / "a.bag", compression="zstd")
    with pytest.raises(ValueError, match="'zstd', 'lz4' or 'none'"):
        robolog.Writer(tmp_path / "a.mcap", compression="bz2")
    with pytest.raises(ValueError, match="chunk_size"):
        robolog.Writer(tmp_path / "a.mcap", chunk_size=0)
    with pytest.raises(ValueError, match="ROS 2 bag folder"):
        robolog.Writer(tmp_path / "b", format="rosbag2", compression="zstd")
    assert not any(tmp_path.iterdir()), "nothing is created"
