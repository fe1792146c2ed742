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


# Encodings, layouts and formats the corpus lacks, written with rosbags.

W, H = 6, 4


def typestore(ros2):
    from rosbags.typesys import Stores, get_typestore

    return get_typestore(Stores.ROS2_HUMBLE if ros2 else Stores.ROS1_NOETIC)


def image_msg(ts, ros2, encoding, data, step, width=W, height=H, bigendian=0):
    T = ts.types
    header = (
        T["std_msgs/msg/Header"](stamp=T["builtin_interfaces/msg/Time"](sec=1, nanosec=0), frame_id="cam")
        if ros2
        else T["std_msgs/msg/Header"](seq=0, stamp=T["builtin_interfaces/msg/Time"](sec=1, nanosec=0), frame_id="cam")
    )
    return T["sensor_msgs/msg/Image"](
        header=header,
        height=height,
        width=width,
        encoding=encoding,
        is_bigendian=bigendian,
        step=step,
        data=np.frombuffer(bytes(data), np.uint8),
    )


def write_log(path, ros2, topics):
    """A ROS 1 bag, or a rosbag2 folder of MCAP storage, of `topics`:
    {topic: (msgtype, [message, ...])}, one message a millisecond."""
    ts = typestore(ros2)
    if ros2:
        from rosbags.rosbag2 import StoragePlugin, Writer

        writer = Writer(path, version=9, storage_plugin=StoragePlugin.MCAP)
        ser = ts.serialize_cdr
    else:
        from rosbags.rosbag1 import Writer

        writer = Writer(path)
        ser = ts.serialize_ros1
    t = 1_000_000_000
    with writer as w:
        for topic, (msgtype, msgs) in topics.items():
            conn = w.add_connection(topic, msgtype, typestore=ts)
            for m in msgs:
                w.write(conn, t, ser(m, msgtype))
                t += 1_000_000
    return path


def pattern(n, seed=7):
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8).tobytes()


def yuv_reference(y, u, v):
    """BT.601 video range to RGB, as OpenCV's COLOR_YUV2RGB_UYVY (luma
    below 16 taken as 16)."""
    c, d, e = np.maximum(y.astype(np.float64) - 16, 0), u.astype(np.float64) - 128, v.astype(np.float64) - 128
    r = 1.164 * c + 1.596 * e
    g = 1.164 * c - 0.391 * d - 0.813 * e
    b = 1.164 * c + 2.018 * d
    return np.clip(np.rint(np.stack([r, g, b], axis=-1)), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("ros2", [False, True], ids=["ros1-bag", "ros2-mcap"])
def test_every_raw_encoding(tmp_path, ros2):
    ts = typestore(ros2)
    cases = {}
    for enc, (base, ch) in ENCODINGS.items():
        size = np.dtype(base).itemsize
        for big in ([0, 1] if size > 1 else [0]):
            step = W * ch * size + 5  # rows wider than the image
            data = pattern(step * H, seed=len(cases))
            if base == "f4":
                vals = np.random.default_rng(1).random(step * H // 4).astype(">f4" if big else "<f4")
                data = vals.tobytes()[: step * H].ljust(step * H, b"\0")
            cases[f"/{enc}/{big}"] = image_msg(ts, ros2, enc, data, step, bigendian=big)
    for enc in ["uyvy", "yuv422", "yuyv"]:
        cases[f"/{enc}/0"] = image_msg(ts, ros2, enc, pattern(W * 2 * H + 2 * H, 3), W * 2 + 2)
    path = write_log(tmp_path / ("b" if ros2 else "b.bag"), ros2, {
        t: ("sensor_msgs/msg/Image", [m]) for t, m in cases.items()
    })
    with robolog.open(path) as log:
        for topic, m in cases.items():
            enc = m.encoding
            (_, got), = list(log.images(topic))
            if enc in ("uyvy", "yuv422", "yuyv"):
                b = np.frombuffer(bytes(m.data), np.uint8).reshape(H, m.step)[:, : W * 2].reshape(H, W // 2, 4)
                if enc == "yuyv":
                    y0, u, y1, v = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
                else:
                    u, y0, v, y1 = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
                ref = np.empty((H, W, 3), np.uint8)
                ref[:, 0::2] = yuv_reference(y0, u, v)
                ref[:, 1::2] = yuv_reference(y1, u, v)
                assert got.shape == ref.shape and got.dtype == np.uint8
                assert np.abs(got.astype(int) - ref.astype(int)).max() <= 1, topic
                continue
            ref = reference_image(m)
            assert got.dtype == ref.dtype and got.shape == ref.shape, topic
            assert np.array_equal(got, ref, equal_nan=True), topic
            if enc.startswith("bgr"):
                (_, stored), = list(log.images(topic, rgb=False))
                assert np.array_equal(stored, reference_image(m, rgb=False)), topic
            if enc.startswith("bayer"):
                # A uniform colour's mosaic comes back as that colour.
                (_, rgb), = list(log.images(topic, debayer=True))
                assert rgb.shape == (H, W, 3)


def test_every_message_that_does_not_fit_is_a_problem(tmp_path):
    ts = typestore(False)
    T = ts.types
    huge = image_msg(ts, False, "rgb8", b"0123456789", 60000 * 3, width=60000, height=60000)
    narrow = image_msg(ts, False, "rgb8", pattern(4 * H), 4)  # step < width * 3
    good = image_msg(ts, False, "mono8", pattern(W * H), W)
    header = T["std_msgs/msg/Header"](seq=0, stamp=T["builtin_interfaces/msg/Time"](sec=1, nanosec=0), frame_id="")
    bad_jpeg = T["sensor_msgs/msg/CompressedImage"](
        header=header, format="jpeg", data=np.frombuffer(b"\xff\xd8\xff\xe0not a jpeg", np.uint8)
    )
    field = T["sensor_msgs/msg/PointField"]
    overflow = T["sensor_msgs/msg/PointCloud2"](
        header=header,
        height=2**31,
        width=2**31,
        fields=[field(name="x", offset=0, datatype=7, count=1)],
        is_bigendian=False,
        point_step=2**31,
        row_step=2**31,
        data=np.zeros(16, np.uint8),
        is_dense=True,
    )
    path = write_log(tmp_path / "hostile.bag", False, {
        "/cam": ("sensor_msgs/msg/Image", [huge, good, narrow]),
        "/cam/compressed": ("sensor_msgs/msg/CompressedImage", [bad_jpeg]),
        "/cloud": ("sensor_msgs/msg/PointCloud2", [overflow]),
    })
    with robolog.open(path) as log:
        frames = log.images("/cam")
        got = list(frames)
        # The one good frame, between two that do not fit.
        assert len(got) == 1 and got[0][1].shape == (H, W)
        assert len(frames.problems) == 2
        assert frames.problems[0].startswith("/cam at ")
        assert "60000" in frames.problems[0]
        jpeg = log.images("/cam/compressed")
        assert list(jpeg) == [] and len(jpeg.problems) == 1
        clouds = log.points("/cloud")
        assert list(clouds) == [] and len(clouds.problems) == 1
        assert log.points_table("/cloud").num_rows == 0
        with pytest.raises(KeyError):
            log.images("/nope")
        with pytest.raises(TypeError):
            log.track("/cam")
        with pytest.raises(ValueError):
            log.images("/cam", every=0)


def test_foxglove_protobuf_sensors(tmp_path):
    pytest.importorskip("mcap_protobuf")
    fg = pytest.importorskip("foxglove_schemas_protobuf")
    Image = pytest.importorskip("PIL.Image")
    from foxglove_schemas_protobuf.CompressedImage_pb2 import CompressedImage
    from foxglove_schemas_protobuf.LocationFix_pb2 import LocationFix
    from foxglove_schemas_protobuf.PackedElementField_pb2 import PackedElementField
    from foxglove_schemas_protobuf.PointCloud_pb2 import PointCloud
    from foxglove_schemas_protobuf.RawImage_pb2 import RawImage
    from mcap_protobuf.writer import Writer

    assert fg
    rgb = np.random.default_rng(5).integers(0, 256, (H, W, 3), dtype=np.uint8)
    png = io.BytesIO()
    Image.fromarray(rgb).save(png, format="png")
    # x, y, z float32 and intensity uint16, 2 bytes of padding a point.
    dt = np.dtype({"names": ["x", "y", "z", "i"], "formats": ["<f4", "<f4", "<f4", "<u2"],
                   "offsets": [0, 4, 8, 12], "itemsize": 16})
    pts = np.zeros(50, dt)
    for k, name in enumerate("xyz"):
        pts[name] = np.arange(50) * (k + 1) / 7
    pts["i"] = np.arange(50) * 3
    T = PackedElementField.NumericType
    path = tmp_path / "fox.mcap"
    with open(path, "wb") as f, Writer(f) as w:
        w.write_message("/raw", RawImage(width=W, height=H, encoding="rgb8", step=W * 3 + 2,
                                         data=np.pad(rgb.reshape(H, -1), ((0, 0), (0, 2))).tobytes()),
                        log_time=10, publish_time=10)
        w.write_message("/png", CompressedImage(format="png", data=png.getvalue()), log_time=11, publish_time=11)
        w.write_message("/cloud", PointCloud(point_stride=16, data=pts.tobytes(), fields=[
            PackedElementField(name="x", offset=0, type=T.FLOAT32),
            PackedElementField(name="y", offset=4, type=T.FLOAT32),
            PackedElementField(name="z", offset=8, type=T.FLOAT32),
            PackedElementField(name="i", offset=12, type=T.UINT16),
        ]), log_time=12, publish_time=12)
        w.write_message("/gps", LocationFix(latitude=48.1, longitude=11.5, altitude=520.25), log_time=13, publish_time=13)
    with robolog.open(path) as log:
        (t, raw), = list(log.images("/raw"))
        assert t == 10 and np.array_equal(raw, rgb)
        (_, fromp), = list(log.images("/png"))
        assert np.array_equal(fromp, rgb)
        (_, cloud), = list(log.points("/cloud"))
        assert list(cloud.dtype.names) == ["x", "y", "z", "i"]
        for name in dt.names:
            assert np.array_equal(cloud[name], pts[name]), name
        track = log.track("/gps").to_pyarrow()
        assert track.column("latitude").to_pylist() == [48.1]
        assert track.column("altitude").to_pylist() == [520.25]


# Clouds as views of the log's bytes: a ROS 1 or CDR PointCloud2 whose
# points are little-endian with rows back to back is not copied.


def log_bytes_of(a):
    """The object an array's memory belongs to (its last base)."""
    base = a
    while isinstance(base, np.ndarray) and base.base is not None:
        base = base.base
    return base


def assert_equals_reference(a, m):
    ref = reference_points(m)
    assert list(a.dtype.names) == list(ref.dtype.names)
    assert len(a) == len(ref) == m.width * m.height
    for name in ref.dtype.names:
        assert a.dtype[name] == ref.dtype[name].newbyteorder("="), name
        assert np.array_equal(a[name], ref[name], equal_nan=a.dtype[name].kind == "f"), name


def cloud_msg(ts, ros2, fields, point_step, width, height, data, row_step=None, bigendian=False):
    T = ts.types
    F = T["sensor_msgs/msg/PointField"]
    header = (
        T["std_msgs/msg/Header"](stamp=T["builtin_interfaces/msg/Time"](sec=1, nanosec=0), frame_id="lidar")
        if ros2
        else T["std_msgs/msg/Header"](seq=0, stamp=T["builtin_interfaces/msg/Time"](sec=1, nanosec=0), frame_id="lidar")
    )
    return T["sensor_msgs/msg/PointCloud2"](
        header=header,
        height=height,
        width=width,
        fields=[F(name=n, offset=o, datatype=d, count=c) for n, o, d, c in fields],
        is_bigendian=bigendian,
        point_step=point_step,
        row_step=row_step if row_step is not None else point_step * width,
        data=np.frombuffer(bytes(data), np.uint8),
        is_dense=True,
    )


# x, y, z float32, 4 bytes of padding, intensity float32, ring uint16, a
# uint8 triple, a float64: fields out of offset order, point_step 40.
FIELDS = [("ring", 20, 4, 1), ("x", 0, 7, 1), ("y", 4, 7, 1), ("z", 8, 7, 1),
          ("intensity", 16, 7, 1), ("rgb", 22, 2, 3), ("t", 32, 8, 1)]


def cloud_data(n, step=40, seed=3, big=False):
    """n points of random values (NaN in a few x) as stored."""
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 256, n * step, dtype=np.uint8)
    pts = data.view(np.dtype({"names": ["x", "t"], "formats": [(">" if big else "<") + "f4", (">" if big else "<") + "f8"],
                              "offsets": [0, 32], "itemsize": step}))
    pts["x"] = rng.random(n)
    pts["x"][::7] = np.nan
    pts["t"] = rng.random(n)
    return data.tobytes()


@pytest.mark.parametrize("file,topic", [("rosbag/embag-test.bag", "/luminar_pointcloud"),
                                        ("rosbag/swri-PointCloud2.bag", "/pointcloud2")])
def test_corpus_clouds_are_read_only_views(corpus, file, topic):
    import gc

    path = corpus / file
    want = messages(path, topic)
    log = robolog.open(path)
    got = list(log.points(topic))
    assert len(got) == len(want)
    for (_, a), (_, m) in zip(got, want):
        assert a.flags.writeable is False
        assert type(log_bytes_of(a)).__name__ == "LogBytes"
        assert a.dtype.itemsize == m.point_step
        assert_equals_reference(a, m)
        with pytest.raises(ValueError):
            a.flags.writeable = True
        with pytest.raises(ValueError):
            a["x"][0] = 1.0
        assert a.copy().flags.writeable
    # Valid after the log is closed and collected.
    log.close()
    del log
    gc.collect()
    for (_, a), (_, m) in zip(got, want):
        assert_equals_reference(a, m)


@pytest.mark.parametrize("ros2", [False, True], ids=["ros1-bag", "ros2-mcap"])
def test_written_clouds_view_the_log(tmp_path, ros2):
    import gc

    ts = typestore(ros2)
    n = 1000
    msgs = [cloud_msg(ts, ros2, FIELDS, 40, n // 2, 2, cloud_data(n, seed=k)) for k in range(3)]
    path = write_log(tmp_path / ("c" if ros2 else "c.bag"), ros2, {"/points": ("sensor_msgs/msg/PointCloud2", msgs)})
    log = robolog.open(path)
    stream = log.points("/points")
    got = list(stream)
    assert stream.problems == []
    assert len(got) == 3
    for (_, a), m in zip(got, msgs):
        assert a.flags.writeable is False
        lb = log_bytes_of(a)
        assert type(lb).__name__ == "LogBytes"
        if not ros2:
            # rosbags writes uncompressed chunks: the bag's own mapped bytes.
            assert "the log's bytes" in repr(lb)
        assert list(a.dtype.names) == ["x", "y", "z", "intensity", "ring", "rgb", "t"]
        assert a.dtype["rgb"] == np.dtype(("u1", (3,)))
        assert a.dtype.fields["t"][1] == 32 and a.dtype.itemsize == 40
        assert_equals_reference(a, m)
    # The same values as the packed copy (drop_nan takes the copy path).
    packed = list(log.points("/points", drop_nan=True))
    for (_, a), (_, p) in zip(got, packed):
        assert p.flags.writeable
        keep = ~(np.isnan(a["x"]) | np.isnan(a["y"]) | np.isnan(a["z"]))
        assert len(p) == int(keep.sum()) < len(a)
        for name in a.dtype.names:
            assert np.array_equal(a[name][keep], p[name], equal_nan=True), name
    # The table has every point.
    assert log.points_table("/points").num_rows == 3 * n
    del log, stream
    gc.collect()
    for (_, a), m in zip(got, msgs):
        assert_equals_reference(a, m)


def test_converted_ros2_mcap_clouds_are_views(corpus, tmp_path):
    path = corpus / "rosbag" / "swri-PointCloud2.bag"
    want = messages(path, "/pointcloud2")
    for compression in ["none", "zstd"]:
        out = tmp_path / f"c-{compression}.mcap"
        robolog.convert(path, out, ros2=True, compression=compression)
        with robolog.open(out) as log:
            assert [c.encoding for c in log.channels if c.topic == "/pointcloud2"] == ["cdr"]
            got = list(log.points("/pointcloud2"))
        assert len(got) == len(want)
        for (_, a), (_, m) in zip(got, want):
            assert a.flags.writeable is False
            lb = log_bytes_of(a)
            assert ("the log's bytes" in repr(lb)) == (compression == "none")
            assert_equals_reference(a, m)


@pytest.mark.parametrize("ros2", [False, True], ids=["ros1-bag", "ros2-mcap"])
def test_big_endian_and_padded_clouds_are_copied(tmp_path, ros2):
    ts = typestore(ros2)
    n, h = 60, 3
    big = cloud_msg(ts, ros2, FIELDS, 40, n, h, cloud_data(n * h, big=True), bigendian=True)
    # Rows of 60 points and 16 bytes of padding after each.
    rows = np.frombuffer(cloud_data(n * h, seed=9), np.uint8).reshape(h, n * 40)
    padded_data = np.concatenate([rows, np.full((h, 16), 0xAB, np.uint8)], axis=1).tobytes()
    padded = cloud_msg(ts, ros2, FIELDS, 40, n, h, padded_data, row_step=n * 40 + 16)
    path = write_log(tmp_path / ("p" if ros2 else "p.bag"), ros2, {
        "/big": ("sensor_msgs/msg/PointCloud2", [big]),
        "/padded": ("sensor_msgs/msg/PointCloud2", [padded]),
    })
    with robolog.open(path) as log:
        for topic, m in [("/big", big), ("/padded", padded)]:
            (_, a), = list(log.points(topic))
            # Packed records of their own, writable.
            assert a.flags.writeable, topic
            assert a.dtype.itemsize == 4 * 4 + 2 + 3 + 8, topic
            assert_equals_reference(a, m)
