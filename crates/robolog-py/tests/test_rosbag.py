"""Every ROS 1 bag of the corpus against rosbags 0.11.9: the topics, the
message counts and log times per topic (AnyReader), and every message's
decoded value (AnyReader.deserialize), field for field."""

import re
from collections import defaultdict

import numpy as np
import pytest

import robolog
from _corpus import BAGS, STATS, file_id

highlevel = pytest.importorskip("rosbags.highlevel")
pa = pytest.importorskip("pyarrow")


def plain(v, fielddefs):
    """A rosbags value as robolog gives it: messages dicts of their
    fields, times int ns, uint8/char arrays bytes, other arrays lists."""
    if hasattr(v, "__msgtype__"):
        kind = v.__msgtype__
        if kind in ("builtin_interfaces/msg/Time", "builtin_interfaces/msg/Duration"):
            return int(v.sec) * 1_000_000_000 + int(v.nanosec)
        names = [n for n, _ in fielddefs[kind][1] if n != "structure_needs_at_least_one_member"]
        return {n: plain(getattr(v, n), fielddefs) for n in names}
    if isinstance(v, np.ndarray):
        if v.dtype == np.uint8:
            return v.tobytes()
        return [plain(x, fielddefs) for x in v.tolist()]
    if isinstance(v, list):
        return [plain(x, fielddefs) for x in v]
    if isinstance(v, np.generic):
        return v.item()
    return v


def same(a, b):
    """Equal, NaN equal to NaN, int not equal to bool."""
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and a != a:
        return b != b
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


def rosbags_messages(path):
    """(topic -> [log time ns], topic -> [value]) as rosbags reads the bag."""
    times = defaultdict(list)
    values = defaultdict(list)
    with highlevel.AnyReader([path]) as reader:
        defs = reader.typestore.fielddefs
        for conn, t, raw in reader.messages():
            times[conn.topic].append(t)
            values[conn.topic].append(plain(reader.deserialize(raw, conn.msgtype), defs))
    return times, values


@pytest.mark.parametrize("path", BAGS, ids=file_id)
def test_bags_equal_rosbags(path):
    try:
        times, values = rosbags_messages(path)
    except Exception as e:  # the peer's limits are not ours
        # rosbags reads neither version 1.2 bags nor definitions of some
        # early 2.0 writers; robolog reads every message of them.
        with robolog.open(path) as log:
            assert sum(1 for _ in log.messages()) == log.message_count
            assert log.problems == []
        STATS[f"bag files rosbags cannot read ({type(e).__name__})"] += 1
        pytest.skip(f"rosbags cannot read it: {type(e).__name__}: {e}")
    ours_times = defaultdict(list)
    ours_values = defaultdict(list)
    with robolog.open(path) as log:
        assert log.format == "rosbag"
        assert log.problems == []
        counts = defaultdict(int)
        for c in log.topics:
            counts[c.topic] += c.message_count
        for m in log.messages():
            ours_times[m.topic].append(m.log_time)
            ours_values[m.topic].append(m.data)
    assert {t: len(v) for t, v in ours_times.items()} == {t: len(v) for t, v in times.items()}
    assert {t: n for t, n in counts.items() if n} == {t: len(v) for t, v in times.items()}
    for topic, theirs in times.items():
        assert ours_times[topic] == theirs, f"{topic}: log times differ"
        # Messages of one topic at one time may come in either order.
        mine = ours_values[topic]
        for i, (t, v) in enumerate(zip(theirs, values[topic])):
            if not same(mine[i], v):
                alike = [j for j, u in enumerate(ours_times[topic]) if u == t and same(mine[j], v)]
                assert alike, f"{topic}: message {i} at {t}: rosbags {v!r:.300}, robolog {mine[i]!r:.300}"
        STATS["bag messages compared with rosbags (times and values)"] += len(theirs)
    STATS["bag files compared with rosbags"] += 1


def column_path(name):
    """The steps of a flattened column's name: `a.b[2].c` is
    ["a", "b", 2, "c"]."""
    return [int(i) if i else f for f, i in re.findall(r"([^.\[\]]+)|\[(\d+)\]", name)]


def nanoseconds(v):
    """`v` with every time and duration within it as int ns."""
    if isinstance(v, dict):
        return {k: nanoseconds(x) for k, x in v.items()}
    if isinstance(v, list):
        return [nanoseconds(x) for x in v]
    if type(v).__name__ in ("Timestamp", "Timedelta"):  # pandas' scalars
        return v.value
    return v


def cells(column):
    """A pyarrow column as Python values the way `plain` gives rosbags'
    values: times and durations int ns (also within lists of messages)."""
    t = column.type
    if pa.types.is_timestamp(t) or pa.types.is_duration(t):
        column = column.cast(pa.int64())
    return [nanoseconds(v) for v in column.to_pylist()]


@pytest.mark.parametrize("path", BAGS, ids=file_id)
def test_flattened_tables_equal_rosbags(path):
    """Log.table(topic, flatten=True): one column per struct field and
    fixed-size array element, each cell the value rosbags' message has
    at that path (e.g. `orientation_covariance[4]`)."""
    try:
        times, values = rosbags_messages(path)
    except Exception as e:  # the peer's limits are not ours (see above)
        pytest.skip(f"rosbags cannot read it: {type(e).__name__}: {e}")
    with robolog.open(path) as log:
        for topic, theirs in values.items():
            table = pa.table(log.table(topic, flatten=True))
            assert table.num_rows == len(theirs)
            assert table.column_names[0] == "log_time"
            assert cells(table.column("log_time")) == times[topic]
            # log_time_utc: the same instants on a bag's UTC clock (none
            # for a bag stamped before 2000: simulated time).
            assert table.column_names[1] == "log_time_utc"
            utc = table.column("log_time_utc").cast(pa.int64()).to_pylist()
            ns = table.column("log_time").cast(pa.int64()).to_pylist()
            assert utc == ns or utc == [None] * len(ns)
            names = table.column_names[2:]
            for name in names:
                assert not pa.types.is_struct(table.schema.field(name).type), name
                assert not pa.types.is_fixed_size_list(table.schema.field(name).type), name
            rows = list(zip(*(cells(table.column(n)) for n in names))) or [()] * table.num_rows

            def at(v, name):
                for step in column_path(name):
                    v = v[step]
                return v

            for i, (t, v) in enumerate(zip(times[topic], theirs)):
                want = tuple(at(v, n) for n in names)
                if not same(list(rows[i]), list(want)):
                    # Messages of one topic at one time may come in either order.
                    alike = [
                        j
                        for j, u in enumerate(times[topic])
                        if u == t and same(list(rows[j]), list(want))
                    ]
                    assert alike, f"{topic}: row {i}: robolog {rows[i]!r:.300}, rosbags {want!r:.300}"
            STATS["bag table cells compared with rosbags (flatten=True)"] += len(theirs) * len(names)


def test_a_damaged_chunk_is_counted_once_by_a_table_read_in_halves(tmp_path):
    """A table of 50,000 messages or more is read as two halves of its
    time span at once. A damaged chunk in the middle of the file holds
    messages of both halves, and both meet it: the table still reports it
    once, as reading the messages does, and keeps every other row."""
    import struct

    from rosbags.rosbag1 import Writer
    from rosbags.typesys import Stores, get_typestore

    path = tmp_path / "big.bag"
    store = get_typestore(Stores.ROS1_NOETIC)
    with Writer(path) as w:
        c = w.add_connection("/n", "std_msgs/msg/Int32", typestore=store)
        for i in range(60_000):
            w.write(c, 1_000_000_000 + i * 1_000_000, struct.pack("<i", i))
    data = bytearray(path.read_bytes())
    mid = len(data) // 2
    data[mid : mid + 64] = b"\xff" * 64
    with robolog.open(bytes(data)) as log:
        values = [m.data["data"] for m in log.messages()]
        met = [p for p in log.problems if p.startswith("skipped ")]
    assert len(met) == 1 and 0 < len(values) < 60_000, met
    with robolog.open(bytes(data)) as log:
        t = log.table("/n")
        assert t.problems == ["table n: 1 damaged record was skipped"]
        assert pa.table(t).column("data").to_pylist() == values
