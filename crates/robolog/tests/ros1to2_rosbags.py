"""rosbags' side of the `ros1to2` test: convert a ROS 1 bag to ROS 2 MCAP
with rosbags-convert and dump the values rosbags reads back, and the values
rosbags reads from our own conversions of the same bag (an MCAP file and
any number of rosbag2 folders).

Usage (the venv of rosbags 0.11.9):

    target/interop-venv/bin/python crates/robolog/tests/ros1to2_rosbags.py \
        BAG WORKDIR OURS.mcap [OURS_FOLDER]...
    target/interop-venv/bin/python crates/robolog/tests/ros1to2_rosbags.py \
        --jobs JOBS.json

With `--jobs`, JOBS.json is a list of such argument lists, one per bag,
and the script prints one line per job, in order (one Python start for
many bags). For each bag it prints one JSON object: `theirs` (the messages of rosbags-convert's output,
`--dst-storage mcap --dst-typestore ros2_jazzy`, as rosbags' AnyReader
decodes them), `ours` (the same for OURS.mcap, or an `error` string when
rosbags cannot read it), `qos` (topic -> the `offered_qos_profiles`
channel metadata rosbags-convert wrote), `theirs_topics` (topic -> the
message count and the offered QoS profiles rosbags reads from the
`metadata.yaml` of rosbags-convert's output), `folders` (for each
OURS_FOLDER: `messages`, `topics` as `theirs_topics` has them for that
folder, or an `error` string when rosbags cannot open it), or
`{"skip": reason}` when rosbags-convert refuses the bag. Messages are `[topic, log time ns,
value]`; values are objects of their fields, lists, ints, bools, strings,
floats as `"f:"` + the 16 hex digits of the float64 bits (float32
widened: exact), so that the comparison is bit for bit, and `byte` values
as unsigned octets.
"""

from __future__ import annotations

import dataclasses
import json
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
from mcap.reader import make_reader
from rosbags.highlevel import AnyReader
from rosbags.interfaces import Nodetype
from rosbags.typesys.store import normalize_fieldname


def fl(x: float) -> str:
    return 'f:%016x' % struct.unpack('<Q', struct.pack('<d', float(x)))[0]


def octets(v, desc):
    """`byte` values as unsigned octets, as ROS 2 defines `byte` (rosbags'
    numpy reads them as int8; the bits are the same)."""
    base = desc[1][0] if desc[0] in (Nodetype.ARRAY, Nodetype.SEQUENCE) else desc
    if base[0] != Nodetype.BASE or base[1][0] != 'byte':
        return v
    return [x & 0xFF for x in v] if isinstance(v, list) else v & 0xFF


def norm(v, store):
    if dataclasses.is_dataclass(v):
        # The fields of the type, not its constants (also dataclass fields).
        return {
            n: octets(norm(getattr(v, normalize_fieldname(n)), store), desc)
            for n, desc in store.fielddefs[v.__msgtype__][1]
            if n != 'structure_needs_at_least_one_member'
        }
    if isinstance(v, np.ndarray):
        if v.dtype.kind == 'f':
            return [fl(x) for x in v.tolist()]
        return [norm(x, store) for x in v.tolist()]
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return fl(v)
    if isinstance(v, str):
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return list(bytes(v))
    if isinstance(v, (list, tuple)):
        return [norm(x, store) for x in v]
    raise TypeError(f'unexpected value {type(v)}')


def dump(path: Path):
    return dump_with_topics(path)[0]


def dump_with_topics(path: Path):
    """The messages of the bag at `path`, and for a rosbag2 folder each
    topic's `[message count, offered QoS profiles, type description hash]`
    as rosbags reads them from its `metadata.yaml` (profiles as the repr
    of rosbags' `Qos` objects)."""
    out = []
    topics = {}
    with AnyReader([path]) as reader:
        for conn in reader.connections:
            qos = getattr(conn.ext, 'offered_qos_profiles', None)
            count, _, _ = topics.get(conn.topic, (0, None, None))
            topics[conn.topic] = (count + conn.msgcount, repr(qos), conn.digest)
        for conn, timestamp, raw in reader.messages():
            msg = reader.deserialize(raw, conn.msgtype)
            out.append([conn.topic, timestamp, norm(msg, reader.typestore)])
    return out, topics


def main() -> None:
    if sys.argv[1] == '--jobs':
        jobs = json.loads(Path(sys.argv[2]).read_text())
    else:
        jobs = [sys.argv[1:]]
    for job in jobs:
        print(json.dumps(one(job)), flush=True)


def one(args):
    """The reply for one bag (`BAG WORKDIR OURS.mcap [OURS_FOLDER]...`)."""
    bag, work, ours = Path(args[0]), Path(args[1]), Path(args[2])
    folders = [Path(f) for f in args[3:]]
    dst = work / 'rosbags'
    exe = Path(sys.executable).parent / 'rosbags-convert'
    run = subprocess.run(
        [str(exe), '--src', str(bag), '--dst', str(dst), '--dst-storage', 'mcap',
         '--dst-typestore', 'ros2_jazzy'],
        capture_output=True, text=True, check=False,
    )
    mcaps = sorted(dst.glob('*.mcap')) if dst.is_dir() else []
    if run.returncode != 0 or 'ERROR' in run.stdout + run.stderr or not mcaps:
        return {'skip': (run.stdout + run.stderr).strip()[-300:]}
    qos = {}
    with mcaps[0].open('rb') as f:
        summary = make_reader(f).get_summary()
        for c in summary.channels.values():
            qos[c.topic] = c.metadata.get('offered_qos_profiles')
    theirs, theirs_topics = dump_with_topics(dst)
    try:
        mine = dump(ours)
    except Exception as e:  # noqa: BLE001
        mine = {'error': repr(e)}
    ours_folders = []
    for folder in folders:
        try:
            msgs, topics = dump_with_topics(folder)
            ours_folders.append({'messages': msgs, 'topics': topics})
        except Exception as e:  # noqa: BLE001
            ours_folders.append({'error': repr(e)})
    return {
        'theirs': theirs,
        'ours': mine,
        'qos': qos,
        'theirs_topics': theirs_topics,
        'folders': ours_folders,
    }


if __name__ == '__main__':
    main()
