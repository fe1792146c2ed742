"""Sensor payloads: Log.images, Log.points, Log.points_table, Log.track.

Each is compared with an independent reading of the same files:
- raw images with rosbags and numpy, following sensor_msgs/Image's
  definition (rows of `step` bytes, `is_bigendian`);
- JPEG and PNG frames with Pillow;
- clouds with rosbags and numpy.frombuffer, the cloud's fields as a
  dtype (what sensor_msgs_py.read_points does);
- laser scans with numpy's projection of rosbags' ranges;
- GPS fixes with rosbags and pyulog.
Encodings the corpus lacks are written here with rosbags' writer.
"""

import io
import math

import pytest

import robolog

np = pytest.importorskip("numpy")
pytest.importorskip("rosbags")
from rosbags.highlevel import AnyReader  # noqa: E402

# encoding: (numpy dtype, channels)
ENCODINGS = {
    "rgb8": ("u1", 3),
    "bgr8": ("u1", 3),
    "rgba8": ("u1", 4),
    "bgra8": ("u1", 4),
    "mono8": ("u1", 1),
    "8UC1": ("u1", 1),
    "mono16": ("u2", 1),
    "16UC1": ("u2", 1),
    "32FC1": ("f4", 1),
    "bayer_rggb8": ("u1", 1),
    "bayer_bggr8": ("u1", 1),
    "bayer_gbrg8": ("u1", 1),
    "bayer_grbg8": ("u1", 1),
}


def messages(path, topic):
    """(log time ns, deserialised message) of a topic, by rosbags."""
    with AnyReader([path]) as r:
        conns = [c for c in r.connections if c.topic == topic]
        return [(t, r.deserialize(raw, c.msgtype)) for c, t, raw in r.messages(connections=conns)]


def reference_image(msg, rgb=True):
    """The image as sensor_msgs/Image defines it, in numpy."""
    base, ch = ENCODINGS[msg.encoding]
    dt = np.dtype(base).newbyteorder(">" if msg.is_bigendian else "<")
    row = msg.width * ch * dt.itemsize
    rows = np.frombuffer(bytes(msg.data), np.uint8).reshape(msg.height, msg.step)[:, :row]
    img = np.ascontiguousarray(rows).view(dt).reshape(msg.height, msg.width, ch)
    img = img.astype(dt.newbyteorder("="))
    if rgb and msg.encoding.startswith("bgr"):
        img = img[..., [2, 1, 0, 3][:ch]]
    return img[:, :, 0] if ch == 1 else img


def raw_bag(corpus):
    return corpus / "sensors" / "ctu_ros_utils-raw.bag"


def test_raw_images_equal_the_definition(corpus):
    path = raw_bag(corpus)
    with robolog.open(path) as log:
        topics = [t.topic for t in log.topics]
        assert len(topics) == 4
        for topic in topics:
            want = messages(path, topic)
            frames = log.images(topic)
            got = list(frames)
            assert frames.problems == []
            assert [t for t, _ in got] == [t for t, _ in want], topic
            for (_, a), (_, m) in zip(got, want):
                ref = reference_image(m)
                assert a.dtype == ref.dtype, topic
                assert a.shape == ref.shape, topic
                assert np.array_equal(a, ref), topic
    # The README's facts: rgb8 640x480, depth values 0..4820.
    with robolog.open(path) as log:
        (_, depth), = log.images("/spot/depth/frontleft/image")
        assert depth.shape == (240, 424) and depth.dtype == np.uint16
        assert int(depth.min()) == 0 and int(depth.max()) == 4820


def pil_array(data):
    Image = pytest.importorskip("PIL.Image")
    with Image.open(io.BytesIO(bytes(data))) as im:
        im.load()
        return np.asarray(im)


def test_compressed_images_equal_pillow(corpus):
    path = corpus / "sensors" / "ctu_ros_utils-compressed.bag"
    with robolog.open(path) as log:
        for t in log.topics:
            (lt, m), = messages(path, t.topic)
            frames = log.images(t.topic)
            (got_t, got), = list(frames)
            assert frames.problems == []
            assert got_t == lt
            ref = pil_array(m.data)
            if ref.dtype.kind == "i" or ref.dtype == np.uint16:
                ref = ref.astype(np.uint16)
            assert got.shape == ref.shape, t.topic
            assert got.dtype == ref.dtype, t.topic
            if "png" in m.format:
                assert np.array_equal(got, ref), t.topic
            else:
                # Two JPEG decoders may round the inverse DCT and the
                # chroma upsampling differently: a few levels at a few
                # pixels (grey frames have no chroma to upsample).
                diff = np.abs(got.astype(np.int16) - ref.astype(np.int16))
                limit = 4 if got.ndim == 3 else 1
                assert diff.max() <= limit and diff.mean() < 0.1, (t.topic, diff.max(), diff.mean())


def test_compressed_depth_equals_the_raw_frame(corpus):
    raw = corpus / "sensors" / "ctu_ros_utils-raw.bag"
    path = corpus / "sensors" / "ctu_ros_utils-compressedDepth.bag"
    (_, want), = messages(raw, "/spot/depth/frontleft/image")
    with robolog.open(path) as log:
        (_, got), = list(log.images("/spot/depth/frontleft/image/compressedDepth"))
    assert np.array_equal(got, reference_image(want))
    # The PNG of the other bag holds the same frame.
    with robolog.open(corpus / "sensors" / "ctu_ros_utils-compressed.bag") as log:
        (_, png), = list(log.images("/spot/depth/frontleft/image/compressed"))
    assert np.array_equal(png, got)


def cloud_dtype(msg):
    """The cloud's fields as a numpy dtype, as sensor_msgs_py.read_points
    makes it."""
    kinds = {1: "i1", 2: "u1", 3: "i2", 4: "u2", 5: "i4", 6: "u4", 7: "f4", 8: "f8"}
    end = ">" if msg.is_bigendian else "<"
    names, formats, offsets = [], [], []
    for f in sorted(msg.fields, key=lambda f: f.offset):
        names.append(f.name)
        fmt = end + kinds[f.datatype]
        formats.append(fmt if f.count == 1 else (fmt, (f.count,)))
        offsets.append(f.offset)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": msg.point_step})


def reference_points(msg):
    dt = cloud_dtype(msg)
    rows = np.frombuffer(bytes(msg.data), np.uint8).reshape(msg.height, msg.row_step)
    rows = rows[:, : msg.width * msg.point_step]
    return np.ascontiguousarray(rows).view(dt).reshape(-1)


@pytest.mark.parametrize(
    "file,topic",
    [("rosbag/embag-test.bag", "/luminar_pointcloud"), ("rosbag/swri-PointCloud2.bag", "/pointcloud2")],
)
def test_clouds_equal_the_fields_dtype(corpus, file, topic):
    path = corpus / file
    want = messages(path, topic)
    with robolog.open(path) as log:
        clouds = log.points(topic)
        got = list(clouds)
        assert clouds.problems == []
        table = log.points_table(topic)
    assert [t for t, _ in got] == [t for t, _ in want]
    total = 0
    for (_, a), (_, m) in zip(got, want):
        ref = reference_points(m)
        assert list(a.dtype.names) == list(ref.dtype.names)
        assert len(a) == len(ref) == m.width * m.height
        for name in ref.dtype.names:
            assert a.dtype[name] == ref.dtype[name].newbyteorder("="), name
            assert np.array_equal(a[name], ref[name], equal_nan=a.dtype[name].kind == "f"), name
        total += len(ref)
    # Every point of the topic in one table, with its message's time and
    # index.
    assert table.num_rows == total
    t = table.to_pyarrow()
    assert t.column_names[:2] == ["log_time", "message"]
    first = len(reference_points(want[0][1]))
    msg_index = t.column("message").to_numpy()
    assert (msg_index[:first] == 0).all()
    assert len(want) == 1 or msg_index[first] == 1
    x = t.column("x").to_numpy()
    assert np.array_equal(x[:first], reference_points(want[0][1])["x"].astype("f4"), equal_nan=True)


def test_laser_scans_projected(corpus):
    path = corpus / "rosbag" / "embag-test.bag"
    want = messages(path, "/base_scan")
    with robolog.open(path) as log:
        got = list(log.points("/base_scan"))
    assert len(got) == len(want) == 5
    for (t, a), (wt, m) in zip(got, want):
        assert t == wt
        r = np.asarray(m.ranges, dtype=np.float64)
        ang = m.angle_min + np.arange(len(r)) * m.angle_increment
        keep = np.isfinite(r) & (r >= m.range_min) & (r <= m.range_max)
        assert len(a) == int(keep.sum())
        np.testing.assert_allclose(a["x"], r[keep] * np.cos(ang[keep]), atol=1e-4)
        np.testing.assert_allclose(a["y"], r[keep] * np.sin(ang[keep]), atol=1e-4)
        assert (a["z"] == 0).all()
        if len(m.intensities):
            np.testing.assert_array_equal(a["intensity"], np.asarray(m.intensities, np.float32)[keep])


def test_multi_echo_scans(corpus):
    path = corpus / "sensors" / "cartographer_ros-b0-2014-07-21-12-42-53-tiny.bag"
    want = messages(path, "horizontal_laser_2d")[:20]
    with robolog.open(path) as log:
        got = list(log.points("horizontal_laser_2d"))[:20]
    for (t, a), (wt, m) in zip(got, want):
        assert t == wt
        xs, ys, echo = [], [], []
        for i, ranges in enumerate(m.ranges):
            ang = m.angle_min + i * m.angle_increment
            for j, r in enumerate(ranges.echoes):
                if math.isfinite(r) and m.range_min <= r <= m.range_max:
                    xs.append(r * math.cos(ang))
                    ys.append(r * math.sin(ang))
                    echo.append(j)
        assert len(a) == len(xs)
        np.testing.assert_allclose(a["x"], xs, atol=1e-4)
        np.testing.assert_allclose(a["y"], ys, atol=1e-4)
        assert list(a["echo"]) == echo


def test_navsatfix_track_equals_rosbags(corpus):
    path = corpus / "sensors" / "robot_localization-test1.bag"
    want = messages(path, "/fix")
    with robolog.open(path) as log:
        track = log.track("/fix").to_pyarrow()
    assert track.column_names[:5] == ["log_time", "latitude", "longitude", "altitude", "status"]
    fixes = [(t, m) for t, m in want if m.status.status >= 0]
    assert track.num_rows == len(fixes) == 989
    assert track.column("log_time").cast("int64").to_pylist() == [t for t, _ in fixes]
    assert track.column("latitude").to_pylist() == [m.latitude for _, m in fixes]
    assert track.column("longitude").to_pylist() == [m.longitude for _, m in fixes]
    assert track.column("altitude").to_pylist() == [m.altitude for _, m in fixes]
    assert track.column("status").to_pylist() == [m.status.status for _, m in fixes]
    assert round(track.column("latitude")[0].as_py(), 5) == 42.37581


@pytest.mark.parametrize("name", ["sample_log_small.ulg", "sample_px4_events.ulg"])
def test_px4_gps_track_equals_pyulog(corpus, name):
    pyulog = pytest.importorskip("pyulog")
    path = corpus / "ulog" / "pyulog" / name
    ul = pyulog.ULog(str(path), ["vehicle_gps_position"])
    d = ul.get_dataset("vehicle_gps_position").data
    with robolog.open(path) as log:
        track = log.track("vehicle_gps_position").to_pyarrow()
    keep = d["fix_type"] >= 2
    if "lat" in d:
        # Older PX4: int32 degrees * 1e7, altitude int32 mm.
        lat, lon = d["lat"][keep] * 1e-7, d["lon"][keep] * 1e-7
        alt = d["alt"][keep] * 1e-3
    else:
        lat, lon = d["latitude_deg"][keep], d["longitude_deg"][keep]
        alt = d["altitude_msl_m"][keep]
    assert track.num_rows == int(keep.sum()) > 0
    np.testing.assert_allclose(track.column("latitude").to_numpy(), lat, rtol=0, atol=1e-12)
    np.testing.assert_allclose(track.column("longitude").to_numpy(), lon, rtol=0, atol=1e-12)
    np.testing.assert_allclose(track.column("altitude").to_numpy(), alt, rtol=0, atol=1e-9)
    assert track.column("status").to_pylist() == [int(x) for x in d["fix_type"][keep]]
