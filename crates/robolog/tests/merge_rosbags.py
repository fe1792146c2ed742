"""rosbags' side of the `merge` test: convert several logs into one with
`rosbags-convert --src A --src B ... --dst DST` (which merges its sources
by time) and dump, in order, the messages rosbags reads back from DST and
from each of our own merged outputs.

Usage (the venv of rosbags 0.11.9):

    target/interop-venv/bin/python crates/robolog/tests/merge_rosbags.py \
        DST SRC... -- OURS...

DST is a `.bag` file (ROS 2 sources) or a folder (ROS 1 sources, written
with `--dst-storage mcap --dst-typestore ros2_jazzy`), or `-` for no
conversion: rosbags' AnyReader reads the SRCs together, merged. Prints
one JSON object: `theirs` (DST's messages, or the SRCs', in the order
AnyReader yields them), `ours` (the same for each OURS, or an `error` string when rosbags
cannot read it), or `{"skip": reason}` when rosbags-convert refuses the
sources. Messages are `[topic, log time ns, value]`, values in the form of
`ros1to2_rosbags.py` (floats as `"f:"` + the 16 hex digits of the float64
bits, `byte` values as unsigned octets).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from rosbags.highlevel import AnyReader

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ros1to2_rosbags import norm  # noqa: E402


def dump(*paths: Path):
    out = []
    with AnyReader(list(paths)) as reader:
        for conn, timestamp, raw in reader.messages():
            msg = reader.deserialize(raw, conn.msgtype)
            out.append([conn.topic, timestamp, norm(msg, reader.typestore)])
    return out


def main() -> None:
    args = sys.argv[1:]
    cut = args.index('--')
    dst, srcs, ours = Path(args[0]), args[1:cut], [Path(p) for p in args[cut + 1:]]
    if args[0] == '-':
        theirs = dump(*[Path(s) for s in srcs])
        print(json.dumps({'theirs': theirs, 'ours': [dump(p) for p in ours]}))
        return
    exe = Path(sys.executable).parent / 'rosbags-convert'
    cmd = [str(exe)]
    for s in srcs:
        cmd += ['--src', s]
    cmd += ['--dst', str(dst)]
    if dst.suffix != '.bag':
        cmd += ['--dst-storage', 'mcap', '--dst-typestore', 'ros2_jazzy']
    run = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if run.returncode != 0 or 'ERROR' in run.stdout + run.stderr or not dst.exists():
        print(json.dumps({'skip': (run.stdout + run.stderr).strip()[-300:]}))
        return
    theirs = dump(dst)
    mine = []
    for p in ours:
        try:
            mine.append(dump(p))
        except Exception as e:  # noqa: BLE001
            mine.append({'error': repr(e)})
    print(json.dumps({'theirs': theirs, 'ours': mine}))


if __name__ == '__main__':
    main()
