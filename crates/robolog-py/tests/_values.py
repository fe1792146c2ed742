"""Value comparison shared by the tests that check Log.messages against a
reference reader's values (python mcap's decoders, `robolog cat --json`).

`differs(ours, theirs)` walks both values and returns where and how they
first differ, or None when they are equal under these rules:

- structs: dicts with the same keys (in order, unless `ordered=False`),
  each value equal;
- arrays: the same length, each element equal; bytes equal a list of
  the same byte values, where a signed char (-128..-1) equals its
  unsigned byte;
- integers equal (a signed char modulo 256 as above), booleans equal;
- floats equal bit for bit, NaN equal to NaN; with `f32_text=True` (JSON
  from `cat --json`, which prints a float32 as its shortest text) our
  float may also be the float32 nearest to their number, widened;
- JSON's "NaN", "Infinity" and "-Infinity" equal those floats; JSON's
  {"sec": s, "nsec": n} of a time equals int nanoseconds s * 1e9 + n.
"""

import math

import numpy as np

NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _is_bytes_like(v):
    return isinstance(v, (bytes, bytearray))


def _same_byte(a, b):
    return (
        isinstance(a, int)
        and isinstance(b, int)
        and -128 <= a <= 255
        and -128 <= b <= 255
        and (a - b) % 256 == 0
    )


def _same_float(a, b, f32_text):
    a, b = float(a), float(b)
    if math.isnan(a) and math.isnan(b):
        return True
    if a == b:
        return True
    # `cat --json` prints a float32 as the shortest text that reads back
    # to it: ours must be that float32, widened.
    return f32_text and math.isfinite(b) and float(np.float32(b)) == a


def differs(ours, theirs, where="", *, ordered=True, f32_text=False):
    """Where `ours` and `theirs` first differ (a str), or None."""
    if isinstance(theirs, str) and theirs in NON_FINITE and isinstance(ours, float):
        theirs = NON_FINITE[theirs]
    if isinstance(theirs, dict) and set(theirs) == {"sec", "nsec"} and isinstance(ours, int):
        theirs = theirs["sec"] * 1_000_000_000 + theirs["nsec"]
    if isinstance(ours, dict):
        if not isinstance(theirs, dict):
            return f"{where}: ours a struct {ours!r:.200}, theirs {theirs!r:.200}"
        keys_ours, keys_theirs = list(ours), list(theirs)
        if not ordered:
            keys_ours, keys_theirs = sorted(keys_ours), sorted(keys_theirs)
        if keys_ours != keys_theirs:
            return f"{where}: fields {keys_ours}, theirs {keys_theirs}"
        for k in ours:
            d = differs(ours[k], theirs[k], f"{where}.{k}", ordered=ordered, f32_text=f32_text)
            if d:
                return d
        return None
    if _is_bytes_like(ours) or _is_bytes_like(theirs) or isinstance(ours, list):
        if not isinstance(theirs, (list, tuple, bytes, bytearray)) or not isinstance(
            ours, (list, tuple, bytes, bytearray)
        ):
            return f"{where}: ours {ours!r:.200}, theirs {theirs!r:.200}"
        a, b = list(ours), list(theirs)
        if len(a) != len(b):
            return f"{where}: {len(a)} elements, theirs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = differs(x, y, f"{where}[{i}]", ordered=ordered, f32_text=f32_text)
            if d:
                return d
        return None
    if isinstance(ours, bool) or isinstance(theirs, bool):
        if isinstance(ours, (bool, int)) and isinstance(theirs, (bool, int)) and int(ours) == int(theirs):
            return None
        return f"{where}: ours {ours!r}, theirs {theirs!r}"
    if isinstance(ours, float) or isinstance(theirs, float):
        if isinstance(theirs, (int, float)) and isinstance(ours, (int, float)):
            if _same_float(ours, theirs, f32_text):
                return None
        return f"{where}: ours {ours!r}, theirs {theirs!r}"
    if isinstance(ours, int) and isinstance(theirs, int):
        if ours == theirs or _same_byte(ours, theirs):
            return None
        return f"{where}: ours {ours!r}, theirs {theirs!r}"
    if ours == theirs:
        return None
    return f"{where}: ours {ours!r:.200}, theirs {theirs!r:.200}"
