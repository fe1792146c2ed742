"""The Python side of `cargo xtask bench python`: robolog against the
readers Python users compare it with, each building the same pandas
DataFrames, timed best of three in this process (the ULog cases, which
take milliseconds, best of 15). Prints one JSON object.

  pybench.py ulog LOG.ulg          every topic: robolog vs pyulog
  pybench.py imu BAG MCAP TOPIC    the topic of a ROS 1 bag (vs rosbags) and
                                   of its ROS 2 MCAP conversion (vs mcap +
                                   mcap-ros2-support, mcap-ros2-support-fast
                                   with small-mcap, and roboto-mcap-codec)
  pybench.py memory LOG TOPIC      peak RSS increase of Log.table(TOPIC),
                                   run in a fresh process

Before timing, each pair's frames are compared: the benchmark fails when
robolog's values differ from the peer's.

With PYBENCH_BUSY=1 in the environment, another process spins on a core
for the whole run: the ratios of a machine whose other core is busy.
"""

import gc
import json
import mmap
import multiprocessing
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd


def best_of(f, runs=3):
    """The best of `runs` runs of `f` in seconds, and the number of items
    of its last result. What a run made is dropped and the garbage
    collected before the next, so no run pays for collecting the objects
    of another."""
    best, n = float("inf"), 0
    for _ in range(runs):
        gc.collect()
        t = time.perf_counter()
        result = f()
        best = min(best, time.perf_counter() - t)
        n = len(result)
        del result
    gc.collect()
    return best, n


# ULog

# The ULog cases take milliseconds, where a shared machine's noise is as
# large as the case: each side is timed best of this many runs.
ULOG_RUNS = 15


def robolog_ulog(path, flatten):
    """Every topic with samples, one Log.to_pandas call each."""
    import robolog

    frames = {}
    with robolog.open(path) as log:
        # The topics with samples, as pyulog's data_list holds them.
        for name in sorted({c.type for c in log.topics if c.message_count}):
            frames[name] = log.to_pandas(name, flatten=flatten)
    return frames


def robolog_ulog_frames(path):
    """Every topic with samples in one call: pyulog's data_list as
    DataFrames."""
    import robolog

    with robolog.open(path) as log:
        return log.dataframes(flatten=True)


def pyulog_ulog(path):
    from pyulog import ULog

    ulog = ULog(path)
    return {(d.name, d.multi_id): pd.DataFrame(d.data) for d in ulog.data_list}


def check_ulog(flat, theirs):
    """robolog's flat frames hold pyulog's datasets: same rows per
    instance, same columns and values."""
    checked = 0
    for (name, multi_id), want in theirs.items():
        got = flat[name]
        got = got[got["multi_id"] == multi_id].reset_index(drop=True)
        if len(got) != len(want):
            raise SystemExit(f"{name}[{multi_id}]: {len(got)} rows, pyulog {len(want)}")
        for col in want.columns:
            a, b = got[col].to_numpy(), want[col].to_numpy()
            if not np.array_equal(a, b, equal_nan=a.dtype.kind == "f"):
                raise SystemExit(f"{name}[{multi_id}].{col} differs from pyulog's")
            checked += 1
    return checked


def ulog(path):
    flat = robolog_ulog(path, True)
    theirs = pyulog_ulog(path)
    checked = check_ulog(flat, theirs)
    frames = robolog_ulog_frames(path)
    if sorted(frames) != sorted(flat):
        raise SystemExit(f"dataframes: {sorted(frames)}, to_pandas: {sorted(flat)}")
    checked += check_ulog(frames, theirs)
    facts = {
        "tables": len(flat),
        "datasets": len(theirs),
        "rows": sum(len(f) for f in theirs.values()),
        "columns_checked": checked,
    }
    del flat, theirs, frames
    costs = ulog_costs(path)
    ours, _ = best_of(lambda: robolog_ulog(path, False), ULOG_RUNS)
    ours_flat, _ = best_of(lambda: robolog_ulog(path, True), ULOG_RUNS)
    ours_frames, _ = best_of(lambda: robolog_ulog_frames(path), ULOG_RUNS)
    peer, _ = best_of(lambda: pyulog_ulog(path), ULOG_RUNS)
    return {
        "robolog": ours,
        "robolog_flat": ours_flat,
        "robolog_frames": ours_frames,
        "pyulog": peer,
        "costs": costs,
        **facts,
    }


def ulog_costs(path):
    """Where the time of `to_pandas(t, flatten=True)` over every topic
    goes (each best of ULOG_RUNS): opening the log (its definitions and
    sample index), the flat Arrow tables of every topic, and the whole
    DataFrames; what the DataFrames cost beyond the tables is pandas'."""
    import robolog

    def opened():
        with robolog.open(path) as log:
            return [c.type for c in log.topics if c.message_count]

    names = sorted(set(opened()))

    def tables():
        out = {}
        with robolog.open(path) as log:
            for name in names:
                out[name] = log.table(name, flatten=True)
        return out

    open_s, _ = best_of(opened, ULOG_RUNS)
    tables_s, _ = best_of(tables, ULOG_RUNS)
    frames_s, _ = best_of(lambda: robolog_ulog(path, True), ULOG_RUNS)
    floor_s, frame_count = pandas_floor(path)
    return {
        "topics": len(names),
        "open": open_s,
        "tables": tables_s,
        "frames": frames_s,
        "pandas_floor": floor_s,
        "frame_count": frame_count,
    }


def pandas_floor(path):
    """What pandas' public block constructor alone costs for the frames
    of `Log.dataframes(flatten=True)` (best of ULOG_RUNS), and how many
    frames: each frame made again by `create_dataframe_from_blocks` from
    its finished blocks, row index and column labels, all made
    beforehand. No reader can hand pandas these frames for less through
    its public API. (The blocks are taken from the frames' block manager,
    for this measurement only.)"""
    from pandas.api.internals import create_dataframe_from_blocks

    import robolog

    with robolog.open(path) as log:
        frames = log.dataframes(flatten=True)
    parts = []
    for f in frames.values():
        blocks = [
            (b.values, np.asarray(b.mgr_locs.as_array, dtype=np.intp))
            for b in f._mgr.blocks
        ]
        parts.append((blocks, f.index, f.columns))

    def remade():
        return [
            create_dataframe_from_blocks(blocks, index=index, columns=columns)
            for blocks, index, columns in parts
        ]

    for made, f in zip(remade(), frames.values()):
        if not made.equals(f):
            raise SystemExit("pandas_floor: a frame made again differs")
    floor_s, _ = best_of(remade, ULOG_RUNS)
    return floor_s, len(parts)


# The Imu topic

VEC = ["x", "y", "z"]
COLUMNS = (
    ["header.stamp"]
    + [f"orientation.{k}" for k in VEC + ["w"]]
    + [f"angular_velocity.{k}" for k in VEC]
    + [f"linear_acceleration.{k}" for k in VEC]
)
COVARIANCES = [
    "orientation_covariance",
    "angular_velocity_covariance",
    "linear_acceleration_covariance",
]


def robolog_imu(path, topic):
    """What a robolog user writes for a DataFrame of flat columns
    (`header.stamp`, `orientation.x`, `orientation_covariance[0]`)."""
    import robolog

    with robolog.open(path) as log:
        return log.to_pandas(topic, flatten=True)


def robolog_imu_nested(path, topic):
    """The Arrow table's structs flattened by pyarrow, then pandas: the
    covariances stay arrays, one numpy array per row."""
    import pyarrow as pa
    import robolog

    with robolog.open(path) as log:
        table = log.table(topic).to_pyarrow()
        # Messages within messages (the header) are structs.
        while any(pa.types.is_struct(f.type) for f in table.schema):
            table = table.flatten()
        return table.to_pandas()


def frame(collected, nested):
    """The DataFrame a rosbags or mcap user builds from the columns
    collected in lists: flat numeric columns; the stamp (ROS 1 or 2) as a
    time, as robolog gives it;
    the covariances one column per element (`k[0]` ... `k[8]`), or with
    `nested` as one column of arrays."""
    log_time, stamp, m = collected
    cols = {"log_time": np.array(log_time, dtype="datetime64[ns]")}
    cols["header.stamp"] = np.array(stamp, dtype="datetime64[ns]")
    for k in COLUMNS[1:]:
        cols[k] = np.array(m[k], dtype=np.float64)
    for k in COVARIANCES:
        if nested:
            cols[k] = m[k]
        else:
            elements = np.array(m[k], dtype=np.float64)
            for i in range(elements.shape[1]):
                cols[f"{k}[{i}]"] = elements[:, i]
    return pd.DataFrame(cols)


def collect():
    return [], [], {k: [] for k in COLUMNS[1:] + COVARIANCES}


def add(m, msg):
    o, a, l = msg.orientation, msg.angular_velocity, msg.linear_acceleration
    m["orientation.x"].append(o.x)
    m["orientation.y"].append(o.y)
    m["orientation.z"].append(o.z)
    m["orientation.w"].append(o.w)
    m["angular_velocity.x"].append(a.x)
    m["angular_velocity.y"].append(a.y)
    m["angular_velocity.z"].append(a.z)
    m["linear_acceleration.x"].append(l.x)
    m["linear_acceleration.y"].append(l.y)
    m["linear_acceleration.z"].append(l.z)
    m["orientation_covariance"].append(msg.orientation_covariance)
    m["angular_velocity_covariance"].append(msg.angular_velocity_covariance)
    m["linear_acceleration_covariance"].append(msg.linear_acceleration_covariance)


def rosbags_imu(path, topic):
    """The topic's columns in lists, read by rosbags."""
    from rosbags.highlevel import AnyReader

    times, stamps, m = collect()
    with AnyReader([Path(path)]) as reader:
        conns = [c for c in reader.connections if c.topic == topic]
        for conn, t, raw in reader.messages(connections=conns):
            msg = reader.deserialize(raw, conn.msgtype)
            times.append(t)
            s = msg.header.stamp
            stamps.append(s.sec * 1_000_000_000 + s.nanosec)
            add(m, msg)
    return times, stamps, m


def ros2_columns(decoded):
    """The columns of `decoded` ((log time, message) pairs of ROS 2 Imu
    messages) in lists, the stamp in ns (sec * 10^9 + nanosec)."""
    times, stamps, m = collect()
    for log_time, msg in decoded:
        times.append(log_time)
        s = msg.header.stamp
        stamps.append(s.sec * 1_000_000_000 + s.nanosec)
        add(m, msg)
    return times, stamps, m


def mcap_imu(path, topic):
    """The topic's columns in lists, read by mcap with mcap-ros2-support."""
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory

    with open(path, "rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        return ros2_columns(
            (message.log_time, msg)
            for _, _, message, msg in reader.iter_decoded_messages(topics=[topic])
        )


def fast_imu(path, topic):
    """The topic's columns in lists, read by small-mcap with
    mcap-ros2-support-fast's planned decoders."""
    from mcap_ros2_support_fast.decoder import DecoderFactory
    from small_mcap import read_message_decoded

    with open(path, "rb") as f:
        return ros2_columns(
            (d.message.log_time, d.decoded_message)
            for d in read_message_decoded(
                f,
                should_include=lambda channel, _schema: channel.topic == topic,
                decoder_factories=[DecoderFactory()],
            )
        )


def roboto_imu(path, topic):
    """The topic as a DataFrame of flat columns by roboto-mcap-codec,
    which decodes a channel into Arrow batches: its structs flattened by
    pyarrow (the covariances stay arrays)."""
    import mcap_codec
    import pyarrow as pa

    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        cursor = mcap_codec.open_mcap_file(
            lambda offset, length: mm[offset : offset + length],
            len(mm),
            timestamp=mcap_codec.TimestampSource("message_log_time"),
            channel=mcap_codec.TopicName(topic),
        )
        with cursor:
            table = pa.Table.from_batches(list(cursor), schema=cursor.schema)
    while any(pa.types.is_struct(f.type) for f in table.schema):
        table = table.flatten()
    return table.to_pandas()


def check_roboto(ours, theirs):
    """robolog's flat frame against roboto-mcap-codec's: the same rows,
    log times and values in every scalar column both have."""
    if len(ours) != len(theirs):
        raise SystemExit(f"roboto: robolog has {len(ours)} rows, roboto {len(theirs)}")
    times = ours["log_time"].to_numpy().astype("datetime64[ns]").astype(np.int64)
    if not np.array_equal(times, theirs["_index"].to_numpy()):
        raise SystemExit("roboto: the log times differ")
    same = [c for c in ours.columns if c in theirs.columns and theirs[c].dtype != object]
    for c in same:
        if not np.array_equal(ours[c].to_numpy(), theirs[c].to_numpy()):
            raise SystemExit(f"roboto: column {c} differs")
    # The stamp: one time column of ours, roboto's two fields.
    stamp = ours["header.stamp"].to_numpy().astype("datetime64[ns]").astype(np.int64)
    theirs_ns = (theirs["header.stamp.sec"].to_numpy().astype(np.int64) * 1_000_000_000
                 + theirs["header.stamp.nanosec"].to_numpy().astype(np.int64))
    if not np.array_equal(stamp, theirs_ns):
        raise SystemExit("roboto: the header stamps differ")
    same.append("header.stamp")
    if len(same) < 10:
        raise SystemExit(f"roboto: only {same} compared")
    return len(same)


def check_imu(ours, theirs, what):
    if len(ours) != len(theirs):
        raise SystemExit(f"{what}: robolog has {len(ours)} rows, the peer {len(theirs)}")
    for col in theirs.columns:
        a, b = ours[col].to_numpy(), theirs[col].to_numpy()
        if a.dtype == object:
            a, b = np.stack(a), np.stack([np.asarray(x, dtype=np.float64) for x in b])
        if a.dtype != b.dtype or not np.array_equal(a, b):
            raise SystemExit(f"{what}: column {col} differs from the peer's")
    return len(ours)


def imu(bag, mcap, topic):
    """Each log's topic as flat columns and with nested covariances, by
    robolog and by the peer. The peer's time is its reading into lists
    plus building the frame (each best of three)."""
    out = {}
    for key, path, peer in [("bag", bag, rosbags_imu), ("mcap", mcap, mcap_imu)]:
        collected = peer(path, topic)
        rows = check_imu(robolog_imu(path, topic), frame(collected, False), key)
        check_imu(robolog_imu_nested(path, topic), frame(collected, True), key)
        del collected
        gc.collect()
        ours, _ = best_of(lambda: robolog_imu(path, topic))
        ours_nested, _ = best_of(lambda: robolog_imu_nested(path, topic))
        reading, _ = best_of(lambda: peer(path, topic))
        collected = peer(path, topic)
        flat, _ = best_of(lambda c=collected: frame(c, False))
        nested, _ = best_of(lambda c=collected: frame(c, True))
        del collected
        out[key] = {
            "robolog": ours,
            "robolog_nested": ours_nested,
            "peer": reading + flat,
            "peer_nested": reading + nested,
            "rows": rows,
        }
    # The compiled and the fast pure-Python ROS 2 readers.
    collected = fast_imu(mcap, topic)
    check_imu(robolog_imu(mcap, topic), frame(collected, False), "fast")
    del collected
    reading, _ = best_of(lambda: fast_imu(mcap, topic))
    collected = fast_imu(mcap, topic)
    flat, _ = best_of(lambda c=collected: frame(c, False))
    del collected
    out["mcap"]["fast"] = reading + flat
    out["mcap"]["roboto_columns"] = check_roboto(
        robolog_imu(mcap, topic), roboto_imu(mcap, topic)
    )
    out["mcap"]["roboto"], _ = best_of(lambda: roboto_imu(mcap, topic))
    return out


# Aligned topics


def robolog_align(path, fast, slow, nearest):
    """What a robolog user writes: one call, then pandas."""
    import robolog

    kw = {"method": "nearest", "tolerance": "5ms"} if nearest else {}
    with robolog.open(path) as log:
        return log.align({"imu": fast, "slow": slow}, on="imu", **kw).to_pandas()


def rosbags_align(path, fast, slow, nearest):
    """What a rosbags user writes: both topics into frames, then
    pandas.merge_asof."""
    left = frame(rosbags_imu(path, fast), False).add_prefix("imu.")
    right = frame(rosbags_imu(path, slow), False).add_prefix("slow.")
    kw = {"direction": "backward"}
    if nearest:
        kw = {"direction": "nearest", "tolerance": pd.Timedelta("5ms")}
    return pd.merge_asof(
        left, right, left_on="imu.log_time", right_on="slow.log_time", **kw
    )


def check_align(ours, theirs, what):
    if len(ours) != len(theirs):
        raise SystemExit(f"{what}: robolog has {len(ours)} rows, merge_asof {len(theirs)}")
    for col in theirs.columns:
        mine = "log_time" if col == "imu.log_time" else col
        a, b = ours[mine].to_numpy(), theirs[col].to_numpy()
        if a.dtype.kind == "M":
            a, b = a.astype("int64"), b.astype("int64")
            same = np.array_equal(a, b)
        else:
            same = np.array_equal(a.astype(np.float64), b.astype(np.float64), equal_nan=True)
        if not same:
            raise SystemExit(f"{what}: column {col} differs from merge_asof's")
    return len(ours)


def align(bag, fast, slow):
    """Two topics of one bag on the first's times, previous and nearest
    within 5 ms, by robolog and by rosbags plus merge_asof (each best of
    three, the reading counted)."""
    out = {}
    for key, nearest in [("", False), ("_nearest", True)]:
        ours = robolog_align(bag, fast, slow, nearest)
        theirs = rosbags_align(bag, fast, slow, nearest)
        out["rows"] = check_align(ours, theirs, "align" + key)
        del ours, theirs
        gc.collect()
        out["robolog" + key], _ = best_of(lambda: robolog_align(bag, fast, slow, nearest))
        out["peer" + key], _ = best_of(lambda: rosbags_align(bag, fast, slow, nearest))
    return out


# Memory


def status_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise SystemExit(f"/proc/self/status has no {field}")


def memory(path, topic):
    import pyarrow as pa
    import robolog

    log = robolog.open(path)
    before = status_kib("VmHWM")
    file_before = status_kib("RssFile")
    table = log.table(topic)
    after = status_kib("VmHWM")
    file_after = status_kib("RssFile")
    nbytes = pa.table(table).nbytes
    return {
        "peak_increase": (after - before) * 1024,
        "table_bytes": nbytes,
        # Pages of the mapped log read by the scan: page cache the kernel
        # may drop, counted in RSS while mapped.
        "file_increase": (file_after - file_before) * 1024,
        "log_bytes": Path(path).stat().st_size,
    }


def spin():
    while True:
        pass


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    busy = None
    if os.environ.get("PYBENCH_BUSY") == "1":
        busy = multiprocessing.Process(target=spin, daemon=True)
        busy.start()
    if mode == "ulog":
        out = ulog(*args)
    elif mode == "imu":
        out = imu(*args)
    elif mode == "align":
        out = align(*args)
    elif mode == "memory":
        out = memory(*args)
    else:
        raise SystemExit(f"unknown mode {mode}")
    if busy is not None:
        busy.terminate()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
