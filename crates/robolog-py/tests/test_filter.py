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
