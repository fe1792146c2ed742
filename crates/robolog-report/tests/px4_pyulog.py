# pyulog's reading of a PX4 log, for the numbers a report's flight summary,
# parameters, panels and gyro spectrum show: argv is the log, then the
# span shown (lo, hi: µs on the log's clock, hi excluded). Prints one JSON
# object.
import json
import sys

import numpy as np
from pyulog import ULog

path, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
u = ULog(path)
out = {}


def topic(name):
    for d in u.data_list:
        if d.name == name and d.multi_id == 0:
            return d
    return None


def cols(d, names):
    t = d.data["timestamp"]
    m = (t >= lo) & (t < hi)
    return t[m], [d.data[n][m].astype(np.float64) for n in names]


info = u.msg_info_dict
out["ver_sw_release"] = int(info["ver_sw_release"]) & 0xFFFFFFFF if "ver_sw_release" in info else None
for k in ["ver_sw", "ver_hw", "sys_name"]:
    out[k] = info.get(k)
params = u.initial_parameters
out["parameters"] = sorted(params)
out["mav_type"] = params.get("MAV_TYPE")
out["sys_autostart"] = params.get("SYS_AUTOSTART")
system = u.get_default_parameters(0)
out["differ"] = sorted(n for n, v in params.items() if n in system and system[n] != v)
out["has_defaults"] = bool(u.has_default_parameters)
out["changed"] = [[int(t), n, float(v)] for t, n, v in u.changed_parameters]

lp = topic("vehicle_local_position")
if lp is not None:
    _, (z,) = cols(lp, ["z"])
    z = z[np.isfinite(z)]
    out["max_altitude"] = float(np.max(z[0] - z)) if len(z) else None
    _, (vx, vy) = cols(lp, ["vx", "vy"])
    ok = np.isfinite(vx) & np.isfinite(vy)
    out["max_speed"] = float(np.max(np.hypot(vx[ok], vy[ok]))) if ok.any() else None
    _, (x, y) = cols(lp, ["x", "y"])
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    out["distance"] = float(np.sum(np.hypot(np.diff(x), np.diff(y)))) if len(x) else None

    _, (vz,) = cols(lp, ["vz"])
    vz = vz[np.isfinite(vz)]
    out["max_vertical"] = [float(np.max(-vz)), float(np.max(vz))] if len(vz) else None

att = topic("vehicle_attitude")
if att is not None:
    _, q = cols(att, ["q[0]", "q[1]", "q[2]", "q[3]"])
    ok = np.all([np.isfinite(c) for c in q], axis=0)
    w, x, y, z = (c[ok] for c in q)
    n = w * w + x * x + y * y + z * z
    out["max_tilt"] = float(np.max(np.degrees(np.arccos(np.clip(1 - 2 * (x * x + y * y) / n, -1, 1)))))

av = topic("vehicle_angular_velocity")
if av is not None:
    _, r = cols(av, ["xyz[0]", "xyz[1]", "xyz[2]"])
    ok = np.all([np.isfinite(c) for c in r], axis=0)
    out["max_rotation"] = float(np.max(np.degrees(np.sqrt(sum(c[ok] ** 2 for c in r)))))

bat = topic("battery_status")
if bat is not None:
    _, (cur,) = cols(bat, ["current_a"])
    cur = cur[np.isfinite(cur) & (cur > 0)]
    out["mean_current"] = float(np.mean(cur)) if len(cur) else None

cpu = topic("cpuload")
if cpu is not None:
    # A channel's series holds its every sample, also those outside the
    # span shown.
    t, load = cpu.data["timestamp"], cpu.data["load"].astype(np.float64)
    out["cpuload"] = [[int(a) * 1000, float(b)] for a, b in zip(t, load)]

rc = topic("input_rc")
if rc is not None:
    t, (v0,) = cols(rc, ["values[0]"])
    out["rc0"] = [[int(a) * 1000, float(b)] for a, b in zip(t, v0)]

sc = topic("sensor_combined")
if sc is not None:
    t, _ = cols(sc, [])
    t = t.astype(np.int64)
    out["sampling"] = [[int(a) * 1000, float(b) / 1000.0] for a, b in zip(t[1:], np.diff(t))]

# The gyro's and accelerometer's spectra: Hann-windowed segments of 256
# samples, half overlapping, each less its mean; amplitude
# |rfft| / sum(window), averaged.
SOURCES = [
    [
        ("sensor_combined", ["gyro_rad[0]", "gyro_rad[1]", "gyro_rad[2]"]),
        ("vehicle_angular_velocity", ["xyz[0]", "xyz[1]", "xyz[2]"]),
    ],
    [
        ("sensor_combined", ["accelerometer_m_s2[0]", "accelerometer_m_s2[1]", "accelerometer_m_s2[2]"]),
        ("vehicle_acceleration", ["xyz[0]", "xyz[1]", "xyz[2]"]),
    ],
]
out["spectra"] = []
for candidates in SOURCES:
    for name, fields in candidates:
        d = topic(name)
        if d is None or len(d.data["timestamp"]) < 256 or any(f not in d.data for f in fields):
            continue
        t, g = cols(d, fields)
        ok = np.all([np.isfinite(c) for c in g], axis=0)
        t, g = t[ok], [c[ok] for c in g]
        n, hop = 256, 128
        if len(t) < n:
            break
        w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)
        segs = (len(t) - n) // hop + 1
        amp = []
        for c in g:
            a = np.zeros(n // 2 + 1)
            for s in range(segs):
                x = c[s * hop : s * hop + n]
                a += np.abs(np.fft.rfft((x - x.mean()) * w)) / w.sum()
            amp.append((a / segs).tolist())
        rate = 1e6 / np.sort(np.diff(t))[(len(t) - 1) // 2]
        out["spectra"].append({"source": name + "." + fields[0].split("[")[0], "rate": float(rate), "amplitude": amp, "segments": segs})
        break
print(json.dumps(out))
