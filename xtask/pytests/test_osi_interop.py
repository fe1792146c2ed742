"""`cargo xtask osi interop`: MCAP files (the traces asam-osi-utilities
0.4.0 wrote, the corpus's OSI traces, ours) read by its MultiTraceReader in
both decoder modes and by osi-python 3.8.0's OSITrace; a reader error
fails the file's test. xtask compares what they read with the manifest of
the generated traces and with our own reading (xtask/src/osi.rs).

The manifest's ``entries``: ``{"id", "file"}``; each file's reading is
recorded as ``{"file", "lines"}`` (see osi_read.read)."""
import osi_read


def test_reference_readers_read(entry, record):
    lines = osi_read.read(entry["file"])
    assert lines[0]["kind"] == "file"
    record(file=entry["file"], lines=lines)
