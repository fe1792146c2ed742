"""`cargo xtask ros2 interop`: python mcap 1.6.0 with mcap-ros2-support
0.6.0 decodes every message of each rosbag2 MCAP file of the corpus;
xtask compares the values with ours along each channel's definition.

The manifest's ``entries``: ``{"id", "file"}``; each file's messages are
recorded as ``{"file", "messages"}`` (see ros2_decode.decode)."""
import ros2_decode


def test_python_decodes(entry, record):
    rows = ros2_decode.decode(entry["file"])
    assert rows, "no message read"
    record(file=entry["file"], messages=rows)
