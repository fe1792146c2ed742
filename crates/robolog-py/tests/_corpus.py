"""Where the tests' files are, and what they compared (printed at the end)."""

import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
TESTDATA = REPO / "testdata"


def corpus_dir():
    """The real-file corpus: $ROBOLOG_CORPUS, else ../shared/corpus beside
    the checkout; None when it is missing (the corpus tests then skip,
    except under CI=true, where test_corpus_is_there fails)."""
    env = os.environ.get("ROBOLOG_CORPUS")
    d = Path(env) if env else REPO.parent / "shared" / "corpus"
    return d if d.is_dir() else None


def corpus_files(sub, pattern):
    d = corpus_dir()
    if d is None:
        return []
    return sorted((d / sub).rglob(pattern))


def file_id(path):
    """A short test id: the file's path inside the corpus."""
    d = corpus_dir()
    try:
        return str(Path(path).relative_to(d))
    except (TypeError, ValueError):
        return Path(path).name


ULOGS = corpus_files("ulog", "*.ulg")
BAGS = corpus_files("rosbag", "*.bag")

# What was compared, by kind: files, datasets, messages, values.
STATS = Counter()


def cli(*args):
    """The robolog command's stdout and exit code ($ROBOLOG_EXE, else the
    debug build; the test skips when neither is there)."""
    exe = os.environ.get("ROBOLOG_EXE") or str(REPO / "target" / "debug" / "robolog")
    if not Path(exe).is_file():
        pytest.skip(f"no robolog command at {exe}")
    p = subprocess.run([exe, *map(str, args)], capture_output=True, text=True)
    return p.stdout, p.returncode
