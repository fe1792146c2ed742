"""robolog.filter: the engine of `robolog filter`, checked against
rosbags' reading of the input and of the output (topics, log times and
payload bytes), with the conditions evaluated in Python on rosbags'
decoded messages."""

import pytest

import robolog

pytest.importorskip("rosbags")
from rosbags.highlevel import AnyReader  # noqa: E402

IMU, FIX, ODOM = "/imu/data", "/fix", "/husky_velocity_controller/odom"


def bag(corpus):
    return corpus / "sensors" / "robot_localization-test1.bag"


def read(path):
    """(topic, log time, raw bytes, decoded message) of every message."""
    with AnyReader([path]) as r:
        return [(c.topic, t, bytes(raw), r.deserialize(raw, c.msgtype)) for c, t, raw in r.messages()]


def test_where_keeps_the_messages_where_it_holds(corpus, tmp_path):
    src = bag(corpus)
    everything = read(src)
    out = tmp_path / "f.bag"
    report = robolog.filter(src, out, where={IMU: "linear_acceleration.z > 0.5"})
    want = [(tp, t, raw) for tp, t, raw, m in everything if tp != IMU or m.linear_acceleration.z > 0.5]
    got = [(tp, t, raw) for tp, t, raw, _ in read(out)]
    assert got == want
    assert report.messages == len(want)
    counts = {c.topic: c for c in report.topics}
    assert counts[IMU].kept == sum(1 for tp, *_ in want if tp == IMU)
    assert counts[IMU].kept + counts[IMU].dropped == sum(1 for tp, *_ in everything if tp == IMU)
    # The dry run says the same without writing.
    dry = robolog.filter(src, where={IMU: "linear_acceleration.z > 0.5"}, dry_run=True)
    assert [(c.topic, c.kept, c.kept_bytes) for c in dry.topics] == [
        (c.topic, c.kept, c.kept_bytes) for c in report.topics
    ]


def test_patterns_rename_and_shift(corpus, tmp_path):
    src = bag(corpus)
    everything = read(src)
    out = tmp_path / "f2.bag"
    robolog.filter(src, out, topics=["/imu/*", "re:/f.x"], exclude=["/husky*/**"],
                   rename={FIX: "/gps/fix"}, shift="-1.5s")
    want = [("/gps/fix" if tp == FIX else tp, t - 1_500_000_000, raw)
            for tp, t, raw, _ in everything if tp in (IMU, FIX)]
    got = [(tp, t, raw) for tp, t, raw, _ in read(out)]
    assert got == want


def test_around_keeps_every_topic_near_the_events(corpus, tmp_path):
    src = bag(corpus)
    everything = read(src)
    events = [t for tp, t, _, m in everything if tp == IMU and m.linear_acceleration.z > 3]
    assert events
    before, after = 1_000_000_000, 2_500_000_000
    windows = []
    for t in sorted(events):
        if windows and t - before <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], t + after)
        else:
            windows.append([t - before, t + after])
    out = tmp_path / "a.bag"
    robolog.filter(src, out, around={IMU: "linear_acceleration.z > 3"}, before="1s", after=2.5)
    want = [(tp, t) for tp, t, *_ in everything if any(a <= t <= b for a, b in windows)]
    assert [(tp, t) for tp, t, *_ in read(out)] == want


def test_what_names_nothing_is_refused(corpus, tmp_path):
    src = bag(corpus)
    with pytest.raises(KeyError, match="/fix"):
        robolog.filter(src, dry_run=True, topics=["/nope/*"])
    with pytest.raises(KeyError):
        robolog.filter(src, dry_run=True, where={"/nope": "x > 1"})
    with pytest.raises(ValueError, match="linear_acceleration.z"):
        robolog.filter(src, dry_run=True, where={IMU: "nope > 1"})
    with pytest.raises(ValueError):
        robolog.filter(src, dry_run=True, where={IMU: "1; DROP TABLE x"})
    out = tmp_path / "x.bag"
    out.write_bytes(b"keep me")
    with pytest.raises(FileExistsError):
        robolog.filter(src, out, topics=[FIX])
    assert out.read_bytes() == b"keep me"
    robolog.filter(src, out, topics=[FIX], force=True)
    assert len(read(out)) == 989
    with pytest.raises(ValueError):
        robolog.filter(src)


# Split outputs: corpus files with latched (ROS 1 latching=1) and
# transient-local (ROS 2) topics, each part read by the reference readers.
LATCHED_BAG = ("rosbag", "rosbagjs-example.bag")
LATCHED_MCAP = ("ros2-mcap", "rewriter_b_0.mcap")


def read_bag_latched(path):
    """(topic, log time, raw bytes, latched connection or None) of every
    message, by rosbags."""
    from pathlib import Path

    with AnyReader([Path(path)]) as r:
        return [(c.topic, t, bytes(raw), c.id if c.ext.latching else None)
                for c, t, raw in r.messages()]


def read_mcap_latched(path):
    """The same by python mcap (transient-local: durability 1 or
    transient_local in the offered QoS profiles)."""
    from mcap.reader import make_reader

    with open(path, "rb") as f:
        r = make_reader(f)
        out = []
        for _, ch, m in r.iter_messages(log_time_order=True):
            qos = ch.metadata.get("offered_qos_profiles", "")
            latched = "durability: 1" in qos or "transient_local" in qos
            out.append((ch.topic, m.log_time, bytes(m.data), ch.id if latched else None))
        return out


def key(m):
    return (m[1], m[0], m[2])


def check_parts(everything, parts):
    """Each part after the first starts with the last message before it of
    every latched connection; the parts' own messages, concatenated, are
    the input's."""
    own_all = []
    prev_last = None
    for k, part in enumerate(parts):
        carried = [m for m in part if prev_last is not None and m[1] <= prev_last]
        own = [m for m in part if prev_last is None or m[1] > prev_last]
        assert own, f"part {k} has messages of its own"
        assert part[:len(carried)] == carried, "carried messages come first"
        start = min(m[1] for m in own)
        last = {}
        for m in everything:
            if m[3] is not None and m[1] < start:
                last[m[3]] = m
        want = [] if k == 0 else sorted((m[:3] for m in last.values()), key=key)
        assert sorted((m[:3] for m in carried), key=key) == want, f"part {k}"
        own_all.extend(own)
        prev_last = max(m[1] for m in own)
    assert sorted((m[:3] for m in own_all), key=key) == sorted((m[:3] for m in everything), key=key)


def test_split_every_bag_parts_carry_the_latched_state(corpus, tmp_path):
    src = corpus.joinpath(*LATCHED_BAG)
    everything = read_bag_latched(src)
    report = robolog.filter(src, tmp_path / "p.bag", split_every="5s")
    assert report.parts == [str(tmp_path / f"p_{k:03}.bag") for k in range(5)]
    assert not (tmp_path / "p.bag").exists()
    parts = [read_bag_latched(p) for p in report.parts]
    check_parts(everything, parts)
    assert report.messages == sum(len(p) for p in parts)
    # Every part's /tf_static is there from its start.
    assert all(any(m[0] == "/tf_static" for m in p) for p in parts)
    # Each part spans less than the interval.
    for p in parts[1:]:
        own = [m[1] for m in p if m[0] != "/tf_static" and m[3] is None]
        assert max(own) - min(own) < 5_000_000_000
    # The same names again are refused before anything is written.
    with pytest.raises(FileExistsError):
        robolog.filter(src, tmp_path / "p.bag", split_every="2s")
    assert sorted(x.name for x in tmp_path.iterdir()) == [f"p_{k:03}.bag" for k in range(5)]


def test_split_size_mcap_parts_carry_the_transient_local_state(corpus, tmp_path):
    src = corpus.joinpath(*LATCHED_MCAP)
    everything = read_mcap_latched(src)
    report = robolog.filter(src, tmp_path / "p.mcap", split_size=2000)
    assert len(report.parts) > 2
    parts = [read_mcap_latched(p) for p in report.parts]
    check_parts(everything, parts)
    # A part ends at the first log time after it reached the size (chunks
    # are no larger than the size): none is more than twice as large.
    import os
    from pathlib import Path

    assert all(os.path.getsize(p) < 2 * 2000 + 4096 for p in report.parts)
    # rosbags reads the parts too.
    for p in report.parts:
        with AnyReader([Path(p)]) as r:
            assert sum(1 for _ in r.messages()) == len(read_mcap_latched(p))
    # Sizes as text; force replaces the family, and removes the parts of
    # the earlier output beyond the new last one.
    again = robolog.filter(src, tmp_path / "p.mcap", split_size="1MB", force=True)
    assert again.parts == [str(tmp_path / "p_000.mcap")]
    assert sorted(x.name for x in tmp_path.iterdir()) == ["p_000.mcap"]
    with pytest.raises(ValueError):
        robolog.filter(src, tmp_path / "q.mcap", split_size="lots")
    with pytest.raises(ValueError):
        robolog.filter(src, tmp_path / "q.mcap", split_every=0)


def header_stamp(m):
    """The header stamp (ns) of a rosbags-decoded message whose first field
    is a std_msgs/Header, else None."""
    import dataclasses

    fields = dataclasses.fields(m) if dataclasses.is_dataclass(m) else ()
    if not fields or fields[0].name != "header":
        return None
    h = getattr(m, "header")
    if getattr(h, "__msgtype__", "") != "std_msgs/msg/Header":
        return None
    return h.stamp.sec * 1_000_000_000 + h.stamp.nanosec


def restamped(everything):
    """(new time, topic, bytes) of every message, sorted."""
    out = []
    for tp, t, raw, m in everything:
        s = header_stamp(m)
        out.append((t if s is None else s, tp, raw))
    return sorted(out)


@pytest.mark.parametrize("name", [("sensors", "robot_localization-test1.bag"),
                                  ("rosbag", "rosbagjs-example.bag"),
                                  ("sensors", "ctu_ros_utils-raw.bag")])
def test_restamp_header_ros1_against_rosbags_stamps(corpus, tmp_path, name):
    src = corpus.joinpath(*name)
    everything = read(src)
    want = restamped(everything)
    assert any(header_stamp(m) is not None for *_, m in everything)
    out = tmp_path / "r.bag"
    report = robolog.filter(src, out, restamp="header")
    got = [(t, tp, raw) for tp, t, raw, _ in read(out)]
    assert sorted(got) == want
    assert report.messages == len(want)
    # The MCAP output is in time order in the file itself.
    from mcap.reader import make_reader

    robolog.filter(src, tmp_path / "r.mcap", restamp="header", shift="1s")
    with open(tmp_path / "r.mcap", "rb") as f:
        times = [m.log_time for _, _, m in make_reader(f).iter_messages(log_time_order=False)]
    assert times == sorted(times)
    assert sorted(times) == [t + 1_000_000_000 for t, _, _ in want]


def test_restamp_header_cdr_against_rosbags_stamps(corpus, tmp_path):
    from pathlib import Path

    ros2 = tmp_path / "ros2"
    robolog.convert(corpus / "sensors" / "robot_localization-test1.bag", ros2)
    everything = read(ros2)
    want = restamped(everything)
    assert want != sorted((t, tp, raw) for tp, t, raw, _ in everything)
    out = tmp_path / "restamped"
    robolog.filter(ros2, out, restamp="header")
    assert sorted((t, tp, raw) for tp, t, raw, _ in read(Path(out))) == want
    with pytest.raises(ValueError, match="header"):
        robolog.filter(ros2, tmp_path / "x", restamp="publish")


def frames_of(m):
    """The frame ids of a rosbags-decoded message: its header's, or each
    transform's frame and child of a TF message."""
    if hasattr(m, "transforms"):
        return [f for t in m.transforms for f in (t.header.frame_id, t.child_frame_id)]
    if header_stamp(m) is not None:
        return [m.header.frame_id]
    return []


def check_reframed(src, out, frames):
    """rosbags sees the new frame ids in `out`, every other field as in
    `src`; the messages without a renamed frame are byte-identical."""
    before, after = read(src), read(out)
    assert len(before) == len(after)
    changed = 0
    for (tp, t, raw, m), (tp2, t2, raw2, m2) in zip(before, after):
        assert (tp, t) == (tp2, t2)
        old = frames_of(m)
        if not any(f in frames for f in old):
            assert raw2 == raw
            continue
        changed += 1
        assert frames_of(m2) == [frames.get(f, f) for f in old]
        if hasattr(m, "transforms"):
            for a, b in zip(m.transforms, m2.transforms):
                assert repr((a.header.stamp, a.transform)) == repr((b.header.stamp, b.transform))
        else:
            assert repr(m2.header.stamp) == repr(m.header.stamp)
            rest = [f.name for f in __import__("dataclasses").fields(m)][1:]
            assert all(repr(getattr(m, n)) == repr(getattr(m2, n)) for n in rest)
    assert changed
    return changed


def test_frame_id_ros1_bag(corpus, tmp_path):
    src = corpus / "rosbag" / "rosbagjs-example.bag"
    frames = {"world": "map", "turtle1": "robot_1"}
    out = tmp_path / "f.bag"
    robolog.filter(src, out, frame_id=frames)
    assert check_reframed(src, out, frames) == 1344 * 2 + 1
    # The connections' definitions and md5sums stay as they are.
    from pathlib import Path

    with AnyReader([Path(src)]) as a, AnyReader([Path(out)]) as b:
        sums = lambda r: sorted((c.topic, c.msgtype, c.digest) for c in r.connections)  # noqa: E731
        assert sums(a) == sums(b)
    src = corpus / "sensors" / "robot_localization-test1.bag"
    frames = {"imu_link": "imu", "/gps": "gps_antenna"}
    robolog.filter(src, tmp_path / "g.bag", frame_id=frames, topics=["/imu/data", "/fix", "/husky*/**"])
    assert check_reframed(src, tmp_path / "g.bag", frames) == 11865 + 989
    with pytest.raises(ValueError, match="OLD=NEW"):
        robolog.filter(src, tmp_path / "x.bag", frame_id={"": "x"})


def test_frame_id_cdr(corpus, tmp_path):
    # ROS 2 logs of the corpus bags: headers, and TF messages.
    imu, tf = tmp_path / "imu", tmp_path / "tf"
    robolog.convert(corpus / "sensors" / "robot_localization-test1.bag", imu)
    robolog.convert(corpus / "rosbag" / "rosbagjs-example.bag", tf, topics=["/tf", "/tf_static", "/rosout"])
    frames = {"imu_link": "an_imu_frame", "/gps": "g", "world": "earth", "turtle2": "t2"}
    robolog.filter(imu, tmp_path / "imu2", frame_id=frames)
    assert check_reframed(imu, tmp_path / "imu2", frames) == 11865 + 989
    robolog.filter(tf, tmp_path / "tf2.mcap", frame_id=frames)
    assert check_reframed(tf, tmp_path / "tf2.mcap", frames) == 1344 * 2
