# pyulog's reading of a ULog file filtered with --shift/--rename or
# --split-*, against its input.
#   shift INPUT OUTPUT SHIFT_US [OLD NEW]: the output has every sample, its
#     timestamp moved by exactly SHIFT_US (other fields equal), the header
#     and logged strings moved too, message OLD named NEW.
#   split INPUT EVERY_US PART...: the parts' samples together are the
#     input's, each part's inside one interval of EVERY_US (0: split by
#     size), each part with the input's information and parameters as they
#     stand at its start (by size: the changes before the next part's
#     first sample).
# Prints the number of samples read.
import sys

import numpy as np
from pyulog import ULog


def same_state(a, b):
    assert not b.file_corruption, "pyulog finds damage in the output"
    assert a.msg_info_dict == b.msg_info_dict
    assert a.msg_info_multiple_dict == b.msg_info_multiple_dict
    assert a.initial_parameters == b.initial_parameters
    assert a._default_parameters == b._default_parameters


def by_time(d):
    order = np.argsort(d["timestamp"], kind="stable")
    return {k: v[order] for k, v in d.items()}


def shift(inp, out, us, renames):
    a, b = ULog(inp), ULog(out)
    same_state(a, b)
    assert b.start_timestamp == a.start_timestamp + us, (a.start_timestamp, b.start_timestamp)
    got = {(d.name, d.multi_id): d for d in b.data_list}
    n = 0
    for d in a.data_list:
        e = got.pop((renames.get(d.name, d.name), d.multi_id))
        assert e.data.keys() == d.data.keys()
        for k, v in d.data.items():
            want = v + np.uint64(us) if k == "timestamp" else v
            assert np.array_equal(e.data[k], want, equal_nan=True), (d.name, k)
        n += len(e.data["timestamp"])
    assert not got, sorted(got)
    for old, new in renames.items():
        assert old not in {d.name for d in b.data_list}
        assert b.message_formats[new].fields == a.message_formats[old].fields
    moved = [(x.timestamp + us, x.log_level, x.message) for x in a.logged_messages]
    assert moved == [(x.timestamp, x.log_level, x.message) for x in b.logged_messages]
    for tag, msgs in a.logged_messages_tagged.items():
        w = [(x.timestamp + us, x.message) for x in msgs]
        assert w == [(x.timestamp, x.message) for x in b.logged_messages_tagged[tag]]
    assert [c[1:] for c in a.changed_parameters] == [c[1:] for c in b.changed_parameters]
    return n


def split(inp, every, parts):
    a = ULog(inp)
    bs = [ULog(p) for p in parts]
    t0 = min(int(d.data["timestamp"].min()) for d in a.data_list if len(d.data["timestamp"]))
    firsts = []
    for b in bs:
        same_state(a, b)
        ts = np.concatenate([d.data["timestamp"] for d in b.data_list])
        assert len(ts), "a part without samples"
        firsts.append(int(ts.min()))
        if every:
            cells = {(int(t) - t0) // every for t in ts}
            assert len(cells) == 1, cells
    assert firsts == sorted(firsts)
    n = 0
    for d in a.data_list:
        pieces = [e for b in bs for e in b.data_list if (e.name, e.multi_id) == (d.name, d.multi_id)]
        assert pieces, d.name
        joined = {k: np.concatenate([e.data[k] for e in pieces]) for k in d.data}
        want, got = by_time(d.data), by_time(joined)
        for k in want:
            assert np.array_equal(got[k], want[k], equal_nan=True), (d.name, k)
        n += len(joined["timestamp"])
    logged = sorted((x.timestamp, x.message) for b in bs for x in b.logged_messages)
    assert logged == sorted((x.timestamp, x.message) for x in a.logged_messages)
    if not every:
        for k, b in enumerate(bs):
            hi = firsts[k + 1] if k + 1 < len(bs) else float("inf")
            changes = [c[1:] for c in a.changed_parameters if c[0] < hi]
            assert changes == [c[1:] for c in b.changed_parameters], (k, changes)
    return n


if sys.argv[1] == "shift":
    args = sys.argv[2:]
    renames = dict(zip(args[3::2], args[4::2]))
    print(shift(args[0], args[1], int(args[2]), renames))
else:
    print(split(sys.argv[2], int(sys.argv[3]), sys.argv[4:]))
