"""`cargo xtask mcap interop`: python mcap 1.6.0 writes files (every
compression, chunked and not) and reads those and the committed fixtures
our writer makes; xtask compares what it read, message by message, with
what mcapfile reads (and mcapfile's summary).

The manifest: ``work`` (the folder, holding the fixtures as
``ours-NAME.mcap``) and ``entries`` (``{"id", "file"}`` for the fixtures);
each file's messages are recorded as ``{"file", "messages"}``."""
import os

import pytest

import mcap_interop


@pytest.fixture(scope="module")
def work(manifest):
    """The folder, with python mcap's files written into it."""
    mcap_interop.write(manifest["work"])
    return manifest["work"]


@pytest.mark.parametrize("name", mcap_interop.written_names())
def test_python_mcap_reads_what_it_wrote(work, name, record):
    path = os.path.join(work, name)
    msgs = mcap_interop.messages(path)
    assert len(msgs) == 60
    record(file=path, messages=msgs)


def test_python_mcap_reads_our_fixture(work, entry, record):
    path = os.path.join(work, entry["file"])
    msgs = mcap_interop.messages(path)
    assert msgs, "no message read"
    record(file=path, messages=msgs)
