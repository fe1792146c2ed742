# pyulog's reading of a filtered ULog file against its input: argv is
# input, output, lo, hi (µs, the kept range), then the kept
# (name, multi_id) pairs as `name:multi`, or `*` for all.
import sys
import numpy as np
from pyulog import ULog
inp, out, lo, hi = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
kept = sys.argv[5:]
a, b = ULog(inp), ULog(out)
assert not b.file_corruption, "pyulog finds damage in the output"
assert a.msg_info_dict == b.msg_info_dict
assert a.msg_info_multiple_dict == b.msg_info_multiple_dict
assert a.initial_parameters == b.initial_parameters
assert a._default_parameters == b._default_parameters
assert a.start_timestamp == b.start_timestamp
src = {(d.name, d.multi_id): d for d in a.data_list}
got = {(d.name, d.multi_id): d for d in b.data_list}
want = set()
for key, d in src.items():
    if kept != ["*"] and f"{key[0]}:{key[1]}" not in kept:
        continue
    t = d.data["timestamp"]
    m = (t >= lo) & (t < hi)
    if m.any():
        want.add(key)
        e = got[key]
        for k, v in d.data.items():
            assert np.array_equal(e.data[k], v[m], equal_nan=True), (key, k)
assert set(got) == want, (sorted(set(got) ^ want))
lm = [(x.timestamp, x.log_level, x.message) for x in a.logged_messages if lo <= x.timestamp < hi]
assert lm == [(x.timestamp, x.log_level, x.message) for x in b.logged_messages]
for tag, msgs in a.logged_messages_tagged.items():
    w = [(x.timestamp, x.message) for x in msgs if lo <= x.timestamp < hi]
    assert w == [(x.timestamp, x.message) for x in b.logged_messages_tagged.get(tag, [])]
changes = [c for c in a.changed_parameters if c[0] < hi]
assert [c[1:] for c in changes] == [c[1:] for c in b.changed_parameters]
print(sum(len(d.data["timestamp"]) for d in b.data_list))
