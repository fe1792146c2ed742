"""CARLA recordings and VEL logs: every message of Log.messages equals
the line `robolog cat --json` prints for it (topic, type, log time, every
value), in the same order, for every testdata and corpus file."""

import json
import os
import subprocess
from pathlib import Path

import pytest

import robolog
from _corpus import REPO, STATS, TESTDATA, corpus_files, file_id
from _values import differs

EXE = os.environ.get("ROBOLOG_EXE")

FILES = (
    sorted((TESTDATA / "carla").glob("*.rec"))
    + corpus_files("carla", "*.log")
    + sorted((TESTDATA / "vellog").glob("*.vel"))
)


def cat_json(path):
    """The lines of `robolog cat --json path`, parsed (skip when the
    command is not built)."""
    exe = EXE or str(REPO / "target" / "debug" / "robolog")
    if not Path(exe).is_file():
        pytest.skip(f"no robolog command at {exe}")
    p = subprocess.run([exe, "cat", "--json", str(path)], capture_output=True, text=True)
    # Exit 1: damage was reported after everything readable was printed.
    assert p.returncode in (0, 1), p.stderr
    return [json.loads(line) for line in p.stdout.splitlines()], p.returncode


@pytest.mark.parametrize("path", FILES, ids=file_id)
def test_messages_equal_cat_json(path):
    lines, code = cat_json(path)
    with robolog.open(path) as log:
        assert log.format in ("carla-recorder", "vellog")
        types = {c.topic: c.type for c in log.topics}
        n = 0
        for m, line in zip(log.messages(), lines):
            where = f"{file_id(path)}: message {n} on {m.topic}"
            assert (m.topic, types[m.topic], m.log_time) == (
                line["topic"],
                line["type"],
                line["log_time_ns"],
            ), where
            d = differs(m.data, line["data"], where, f32_text=True)
            assert d is None, d
            n += 1
        assert n == len(lines), f"{n} messages, cat printed {len(lines)}"
        if code == 0:
            assert n == log.message_count
    assert n > 0
    STATS["CARLA and VEL messages compared with cat --json"] += n
