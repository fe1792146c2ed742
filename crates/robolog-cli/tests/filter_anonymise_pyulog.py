# pyulog's reading of an anonymised ULog file: argv is input, output,
# then the offset in 1e-7 degrees (`lat lon`) or `random`. Prints the
# offset found (1e-7 degrees) and the positions moved.
import re
import sys
import numpy as np
from pyulog import ULog
inp, out = sys.argv[1], sys.argv[2]
want = None if sys.argv[3] == "random" else (int(sys.argv[3]), int(sys.argv[4]))
a, b = ULog(inp), ULog(out)
assert not b.file_corruption
PAIRS = [("lat", "lon"), ("latitude", "longitude"), ("latitude_deg", "longitude_deg"), ("ref_lat", "ref_lon")]
offsets, moved = set(), 0
src = {(d.name, d.multi_id): d for d in a.data_list}
assert sorted(src) == sorted((d.name, d.multi_id) for d in b.data_list)
for d in b.data_list:
    s = src[(d.name, d.multi_id)]
    assert len(s.data["timestamp"]) == len(d.data["timestamp"])
    pos = set()
    for k in d.data:
        for la, lo in PAIRS:
            if k.endswith(la) and (k == la or k[: -len(la)].endswith(".")):
                p = k[: -len(la)]
                if p + lo in d.data:
                    pos.add((k, p + lo))
    for la, lo in pos:
        x, y, x2, y2 = s.data[la], s.data[lo], d.data[la], d.data[lo]
        ints = x.dtype.kind == "i"
        zero = (x == 0) & (y == 0) | np.isnan(x.astype(float)) | np.isnan(y.astype(float))
        assert np.array_equal(x[zero], x2[zero], equal_nan=True), (d.name, la, "a position (0, 0) stays")
        m = ~zero
        if not m.any():
            continue
        moved += int(m.sum())
        if ints:
            dl, do = (x2[m].astype(np.int64) - x[m]), (y2[m].astype(np.int64) - y[m])
            assert (dl == dl[0]).all() and (do == do[0]).all(), (d.name, la)
            offsets.add((int(dl[0]), int(do[0])))
        else:
            dl, do = (x2[m].astype(float) - x[m]), (y2[m].astype(float) - y[m])
            tol = 1e-4 if x.dtype == np.float32 else 1e-8
            assert np.allclose(dl, dl[0], atol=tol) and np.allclose(do, do[0], atol=tol), (d.name, la)
            offsets.add((round(float(dl[0]) * 1e7), round(float(do[0]) * 1e7)))
    for k in d.data:
        if not any(k in pr for pr in pos):
            assert np.array_equal(s.data[k], d.data[k], equal_nan=True), (d.name, k)
# Parameters: the same, but for the hardware ids (CAL_<SENSOR><N>_ID, names
# holding uuid/guid/serial/hostname, such as COM_FLIGHT_UUID), zeroed by
# --anonymise (the `random` runs) and kept by --gps-offset alone.
cal = re.compile(r"CAL_[A-Z]+[0-9]+_ID")


def is_hw(k):
    return cal.fullmatch(k) or any(w in k.lower() for w in ("uuid", "guid", "serial", "hostname"))


for want_params, got_params in [(a.initial_parameters, b.initial_parameters)] + [
    (a._default_parameters.get(k, {}), b._default_parameters.get(k, {})) for k in a._default_parameters
]:
    assert want_params.keys() == got_params.keys()
    for k, v in want_params.items():
        zeroed = want is None and is_hw(k)
        assert got_params[k] == (0 if zeroed else v), (k, v, got_params[k])
assert [c[1] for c in a.changed_parameters] == [c[1] for c in b.changed_parameters]
for (_, k, v), (_, k2, v2) in zip(a.changed_parameters, b.changed_parameters):
    assert v2 == (0 if want is None and is_hw(k) else v), (k, v, v2)
if moved:
    # One offset for the whole log (floats to their precision).
    lat = {o[0] for o in offsets}
    lon = {o[1] for o in offsets}
    assert max(lat) - min(lat) <= 2 and max(lon) - min(lon) <= 2, offsets
    found = (min(lat, key=abs), min(lon, key=abs))
    if want is not None:
        assert all(abs(a - w) <= 2 for a, w in zip(found, want)), (found, want)
    print(found[0], found[1], moved)
else:
    print(0, 0, 0)
