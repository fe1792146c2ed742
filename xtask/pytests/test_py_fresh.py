"""The last step of `cargo xtask python test`: the robolog wheel installed
into a fresh venv (no index, nothing else installed) imports from that
venv, reads a fixture, and says what to install for pandas.

The manifest: ``python`` (the fresh venv's interpreter), ``fixture`` (a
ROS 1 bag of 75 messages with a /chatter topic) and ``cwd`` (a folder
outside the checkout to run in). Records ``{"line"}``, what xtask prints."""
import json
import os
import subprocess
from pathlib import Path

PROBE = Path(__file__).with_name("py_fresh.py")


def test_the_wheel_works_in_a_fresh_venv(manifest, record):
    run = subprocess.run([manifest["python"], str(PROBE), manifest["fixture"]], cwd=manifest["cwd"],
                         env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    facts = json.loads(run.stdout)
    assert facts["file"].startswith(facts["prefix"]), "robolog is not the fresh venv's"
    assert (facts["format"], facts["message_count"]) == ("rosbag", 75), facts["log"]
    assert facts["iterated"] == 75
    assert facts["pandas_error"] is not None, "pandas is installed here"
    assert "pip install pandas" in facts["pandas_error"]
    record(line=f"robolog {facts['version']} from {facts['file']}: {facts['log']}")
