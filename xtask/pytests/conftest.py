"""Shared options and fixtures of xtask's pytest checks.

xtask prepares the inputs of a check (converted files, exports, a list of
corpus files), writes them into a JSON manifest and runs one module here
with pytest:

    python -m pytest -p no:cacheprovider xtask/pytests/test_X.py \
        --manifest MANIFEST.json [--robolog EXE] [--results RESULTS.jsonl]

- ``--manifest``: a JSON object; its ``entries`` list parametrizes every
  test that takes the ``entry`` fixture (the test id is each entry's
  ``id``), the other keys are the check's settings (``manifest`` fixture).
- ``--robolog``: the ``robolog`` executable (``robolog`` fixture).
- ``--results``: a JSON-lines file the ``record`` fixture appends to, one
  object per call, where a check hands what it read back to xtask (counts
  xtask prints, or a reference tool's values xtask compares with ours).

Run without these options (a plain ``pytest xtask/pytests``), the checks
skip, saying which xtask command runs them.
"""

import json
import sys

import pytest

# The checks leave no __pycache__ in the source tree (xtask also sets
# PYTHONDONTWRITEBYTECODE, which covers this file itself).
sys.dont_write_bytecode = True

NO_MANIFEST = "needs --manifest: run by cargo xtask (see the module's docstring)"


def pytest_addoption(parser):
    group = parser.getgroup("xtask", "inputs prepared by cargo xtask")
    group.addoption("--manifest", help="the JSON manifest of the check's inputs")
    group.addoption("--robolog", help="the robolog executable")
    group.addoption("--results", help="JSON-lines file the record fixture appends to")


def _manifest(config):
    path = config.getoption("--manifest")
    if path is None:
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def pytest_configure(config):
    config._xtask_manifest = _manifest(config)


def pytest_generate_tests(metafunc):
    if "entry" not in metafunc.fixturenames:
        return
    manifest = metafunc.config._xtask_manifest
    if manifest is None:
        skip = pytest.mark.skip(reason=NO_MANIFEST)
        metafunc.parametrize("entry", [pytest.param(None, id="no-manifest", marks=skip)])
        return
    entries = manifest["entries"]
    metafunc.parametrize("entry", entries, ids=[e["id"] for e in entries])


@pytest.fixture(scope="session")
def manifest(request):
    """The manifest xtask wrote (``--manifest``)."""
    m = request.config._xtask_manifest
    if m is None:
        pytest.skip(NO_MANIFEST)
    return m


@pytest.fixture(scope="session")
def robolog(request):
    """The robolog executable (``--robolog``)."""
    exe = request.config.getoption("--robolog")
    if exe is None:
        pytest.skip("needs --robolog: run by cargo xtask")
    return exe


@pytest.fixture(scope="session")
def _results(request):
    path = request.config.getoption("--results")
    out = open(path, "a", encoding="utf-8") if path else None
    yield out
    if out is not None:
        out.close()


@pytest.fixture
def record(request, _results):
    """``record(**fields)`` appends one JSON object, with the test's id as
    ``test``, to the ``--results`` file (nothing without it)."""

    def write(**fields):
        if _results is not None:
            _results.write(json.dumps({"test": request.node.nodeid, **fields}) + "\n")
            _results.flush()

    return write
