"""`cargo xtask rosbag interop`: rosbags 0.11.9 writes bags (none, bz2,
lz4) and reads those and the committed 2.0 fixtures our writer makes;
xtask compares each message's values with what rosbag12 decodes.

The manifest: ``work`` (the folder for rosbags' bags) and ``entries``
(``{"id", "bag"}``, the fixtures); each bag's messages are recorded as
``{"bag", "rows"}``."""
import os

import pytest

import rosbag_interop


@pytest.fixture(scope="module")
def work(manifest):
    return manifest["work"]


@pytest.mark.parametrize("comp", rosbag_interop.COMPRESSIONS)
def test_rosbags_reads_what_it_wrote(work, comp, record):
    bag = os.path.join(work, f"rosbags-{comp}.bag")
    # rosbags refuses to overwrite.
    if os.path.exists(bag):
        os.remove(bag)
    rosbag_interop.write(bag, comp)
    rows = rosbag_interop.dump(bag)
    assert len(rows) == 40 + 10 + 10 + 4
    record(bag=bag, rows=rows)


def test_rosbags_reads_our_fixture(entry, record):
    rows = rosbag_interop.dump(entry["bag"])
    assert rows, "no message read"
    record(bag=entry["bag"], rows=rows)
