"""`cargo xtask convert interop`: each intact ROS 1 2.0 bag of the corpus,
converted to MCAP by robolog, read by python mcap 1.6.0 with
mcap-ros1-support 0.9.0 holds the values rosbags 0.11.9 reads from the
bag (types from the bag's own definitions).

The manifest's ``entries``: ``{"id", "bag", "mcap"}``. A bag rosbags
cannot read is skipped, saying why; each compared bag's message count is
recorded as ``{"messages"}``."""
import dataclasses
import json
import math

import numpy as np
import pytest
from mcap.reader import make_reader
from mcap_ros1.decoder import DecoderFactory
from rosbags.rosbag1 import Reader
from rosbags.typesys import Stores, get_typestore, get_types_from_msg

def from_genpy(v):
    if hasattr(v, 'secs') and hasattr(v, 'nsecs'):
        return {'sec': v.secs, 'nanosec': v.nsecs}
    if hasattr(v, '_slot_types'):
        return {k: from_genpy(getattr(v, k)) for k in v.__slots__}
    if isinstance(v, (bytes, bytearray)):
        return list(v)
    if isinstance(v, (list, tuple)):
        return [from_genpy(x) for x in v]
    return v

def from_rosbags(v):
    if dataclasses.is_dataclass(v):
        # Constants are class variables, not fields; rosbags gives empty
        # messages a placeholder field.
        return {f.name: from_rosbags(getattr(v, f.name)) for f in dataclasses.fields(v)
                if not str(f.type).startswith('ClassVar')
                and f.name != 'structure_needs_at_least_one_member'}
    if isinstance(v, np.ndarray):
        return [from_rosbags(x) for x in v.tolist()]
    if isinstance(v, (bytes, bytearray)):
        return list(v)
    if isinstance(v, list):
        return [from_rosbags(x) for x in v]
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, np.integer):
        return int(v)
    return v

def same(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return int(a) == int(b)
    if isinstance(a, float) or isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, int) and isinstance(b, int):
        # `byte` is int8 for genpy and uint8 for rosbags.
        return a == b or (a - b) % 256 == 0 and -128 <= min(a, b) < 0
    return a == b

def rosbags_values(path):
    rows = {}
    stores = {}
    with Reader(path) as r:
        for conn, t, raw in r.messages():
            key = (conn.msgtype, conn.digest)
            if key not in stores:
                types = get_types_from_msg(conn.msgdef.data, conn.msgtype)
                try:
                    # Old definitions name std_msgs/Header without its text.
                    ts = get_typestore(Stores.ROS1_NOETIC)
                    ts.register(types)
                except Exception:
                    ts = get_typestore(Stores.EMPTY)
                    ts.register(types)
                stores[key] = ts
            v = from_rosbags(stores[key].deserialize_ros1(raw, conn.msgtype))
            rows.setdefault((conn.topic, t), []).append(v)
    return rows

def test_converted_bag_holds_rosbags_values(entry, record):
    try:
        theirs = rosbags_values(entry["bag"])
    except Exception as e:
        pytest.skip(f"{entry['id']}: rosbags cannot read it: {type(e).__name__}: {e}"[:300])
    n = 0
    with open(entry["mcap"], 'rb') as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        for schema, channel, message, decoded in reader.iter_decoded_messages(log_time_order=False):
            v = from_genpy(decoded)
            cands = theirs.get((channel.topic, message.log_time), [])
            for i, c in enumerate(cands):
                if same(v, c):
                    del cands[i]
                    break
            else:
                pytest.fail(f"message on {channel.topic} at {message.log_time}: {json.dumps(v)[:300]} "
                            "has no equal in rosbags' values")
            n += 1
    left = sum(len(c) for c in theirs.values())
    assert not left, f"{left} messages rosbags reads are not in the MCAP file"
    record(messages=n)
