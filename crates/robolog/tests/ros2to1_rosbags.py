"""rosbags' side of the `ros2to1` test: convert a ROS 2 log (a rosbag2
folder or a ROS 2 MCAP file) to a ROS 1 bag with rosbags-convert, and dump
the values rosbags reads back from it and from our own conversion of the
same log.

Usage (the venv of rosbags 0.11.9):

    target/interop-venv/bin/python crates/robolog/tests/ros2to1_rosbags.py \
        SRC WORKDIR OURS.bag

Writes rosbags-convert's bag to WORKDIR/rosbags.bag and prints one JSON
object: `theirs` (its messages as rosbags' AnyReader decodes them), `ours`
(the same for OURS.bag, or an `error` string when rosbags cannot read it),
or `{"skip": reason}` when rosbags-convert refuses the log. Messages are
`[topic, log time ns, value]`, values in the form of `ros1to2_rosbags.py`
(floats as `"f:"` + the 16 hex digits of the float64 bits, `byte` values
as unsigned octets).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from rosbags.highlevel import AnyReader

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ros1to2_rosbags import norm  # noqa: E402


def dump(path: Path):
    out = []
    with AnyReader([path]) as reader:
        for conn, timestamp, raw in reader.messages():
            msg = reader.deserialize(raw, conn.msgtype)
            out.append([conn.topic, timestamp, norm(msg, reader.typestore)])
    return out


def main() -> None:
    src, work, ours = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    dst = work / 'rosbags.bag'
    exe = Path(sys.executable).parent / 'rosbags-convert'
    run = subprocess.run(
        [str(exe), '--src', str(src), '--dst', str(dst)],
        capture_output=True, text=True, check=False,
    )
    if run.returncode != 0 or 'ERROR' in run.stdout + run.stderr or not dst.is_file():
        print(json.dumps({'skip': (run.stdout + run.stderr).strip()[-300:]}))
        return
    theirs = dump(dst)
    try:
        mine = dump(ours)
    except Exception as e:  # noqa: BLE001
        mine = {'error': repr(e)}
    print(json.dumps({'theirs': theirs, 'ours': mine}))


if __name__ == '__main__':
    main()
