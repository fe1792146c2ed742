"""Every ROS 2 bag of the corpus (rosbag2 folders, SQLite and MCAP
storage, and a lone .db3) opened by its folder, against rosbags 0.11.9's
AnyReader where it reads the bag: the topics, the log times per topic and
every message's decoded value, field for field."""

from collections import defaultdict
from pathlib import Path

import pytest

import robolog
from _corpus import STATS, corpus_dir, file_id
from test_rosbag import plain, same

highlevel = pytest.importorskip("rosbags.highlevel")
typesys = pytest.importorskip("rosbags.typesys")


def bags():
    d = corpus_dir()
    if d is None:
        return []
    found = sorted(p.parent for p in (d / "rosbag2").rglob("metadata.yaml"))
    return found + sorted((d / "rosbag2").rglob("*/single-file/*.db3"))


def rosbags_messages(path):
    """(topic -> [log time ns], topic -> [value]) as rosbags reads the bag."""
    times = defaultdict(list)
    values = defaultdict(list)
    store = typesys.get_typestore(typesys.Stores.ROS2_JAZZY)
    with highlevel.AnyReader([Path(path)], default_typestore=store) as reader:
        defs = reader.typestore.fielddefs
        for conn, t, raw in reader.messages():
            times[conn.topic].append(t)
            values[conn.topic].append(plain(reader.deserialize(raw, conn.msgtype), defs))
    return times, values


def octets(mine, theirs):
    """`theirs` with its arrays of ROS 2 `byte` (rosbags: int8 numbers)
    as the bytes robolog gives them, where robolog's value has bytes."""
    if isinstance(mine, bytes) and isinstance(theirs, list):
        if all(isinstance(x, int) and -128 <= x < 256 for x in theirs):
            return bytes(x % 256 for x in theirs)
    if isinstance(mine, dict) and isinstance(theirs, dict):
        return {k: octets(mine.get(k), v) for k, v in theirs.items()}
    if isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        return [octets(a, b) for a, b in zip(mine, theirs)]
    return theirs


def ours(path):
    times = defaultdict(list)
    values = defaultdict(list)
    with robolog.open(path) as log:
        assert log.format == "rosbag2"
        for m in log.messages():
            times[m.topic].append(m.log_time)
            values[m.topic].append(m.data)
        total = log.message_count
    return times, values, total


@pytest.mark.parametrize("path", bags(), ids=file_id)
def test_rosbag2_bags_equal_rosbags(path):
    times, values, total = ours(path)
    assert sum(len(v) for v in times.values()) == total
    try:
        their_times, their_values = rosbags_messages(path)
    except Exception as e:  # the peer's limits are not ours
        STATS[f"ROS 2 bags rosbags cannot read ({type(e).__name__})"] += 1
        pytest.skip(f"rosbags cannot read it: {type(e).__name__}: {e}")
    n = sum(len(v) for v in their_times.values())
    if n < total:
        # rosbags trusts the metadata's counts, which some bags lack (see
        # the corpus README); every row of the storage is ours.
        STATS["ROS 2 bags where rosbags reads fewer rows"] += 1
        pytest.skip(f"rosbags reads {n} of the {total} rows")
    assert {t: len(v) for t, v in times.items()} == {t: len(v) for t, v in their_times.items()}
    for topic, theirs in their_times.items():
        assert times[topic] == theirs, f"{topic}: log times differ"
        for i, v in enumerate(their_values[topic]):
            mine = values[topic][i]
            v = octets(mine, v)
            assert same(mine, v), f"{topic}: message {i}: rosbags {v!r:.300}, robolog {mine!r:.300}"
        STATS["ROS 2 bag messages compared with rosbags (times and values)"] += len(theirs)
    STATS["ROS 2 bags compared with rosbags"] += 1
