"""Every fixture and corpus file of every format: each topic's table
crosses the Arrow C stream interface into pyarrow and validates in full,
with one row per message, and goes to pandas as pyarrow would take it;
every message is read and decoded."""

from pathlib import Path

import pyarrow as pa
import pytest

import robolog
from _corpus import STATS, TESTDATA, corpus_dir, file_id

SUFFIXES = (".bag", ".ulg", ".mcap", ".log", ".rec", ".vel")


def every_file():
    files = [p for p in sorted(TESTDATA.rglob("*")) if p.suffix in SUFFIXES]
    d = corpus_dir()
    if d is not None:
        files += [p for p in sorted(d.rglob("*")) if p.suffix in SUFFIXES and p.is_file()]
    return files


@pytest.mark.parametrize("path", every_file(), ids=file_id)
def test_every_table_and_message(path):
    try:
        log = robolog.open(path)
    except robolog.FormatError as e:
        # Files the library refuses say where (the conformance suite's
        # invalid files, an unsupported version).
        assert e.offset is not None and e.path == str(path)
        STATS["files refused with a FormatError"] += 1
        return
    with log:
        keys = {}
        for c in log.topics:
            key = c.type if log.format == "ulog" else c.topic
            keys[key] = keys.get(key, 0) + c.message_count
        for key, count in keys.items():
            ours = log.table(key)
            table = pa.table(ours)
            table.validate(full=True)
            assert table.num_rows == count, f"{key}: {table.num_rows} rows, {count} messages"
            STATS["tables through the Arrow C stream"] += 1
            STATS["table rows through the Arrow C stream"] += count
            same_frames(ours, table)
            if log.format == "ulog":
                # pyulog's columns: the tables most often read into pandas.
                flat = log.table(key, flatten=True)
                same_frames(flat, pa.table(flat))
                same_flat_frame(log, key, pa.table(flat))
        n = 0
        for m in log.messages():
            n += 1
        if not log.problems:
            assert n == log.message_count
        STATS["files read (tables and messages)"] += 1
        STATS["messages decoded"] += n


def same_frames(ours, table):
    """Table.to_pandas of a table of numeric, boolean and time columns
    without nulls goes through robolog's own blocks: its frame equals the
    one pyarrow's to_pandas makes of the same table (columns, dtypes,
    values, index) and takes writes like any other. (Other tables are
    pyarrow's own conversion.)"""
    pd = pytest.importorskip("pandas")
    if ours._pandas_blocks() is None:
        STATS["tables to pandas left to pyarrow"] += 1
        return
    STATS["tables to pandas through robolog's blocks"] += 1
    frame = ours.to_pandas()
    pd.testing.assert_frame_equal(frame, table.to_pandas(), check_exact=True)
    last = len(frame.columns) - 1
    frame.iloc[0, last] = frame.iloc[-1, last]


def same_flat_frame(log, key, table):
    """Log.to_pandas(flatten=True) of a ULog topic, read from the samples
    straight into pandas' blocks, equals pyarrow's frame of the topic's
    flat table (columns, dtypes, values, index) and takes writes."""
    pd = pytest.importorskip("pandas")
    frame = log.to_pandas(key, flatten=True)
    pd.testing.assert_frame_equal(frame, table.to_pandas(), check_exact=True)
    if len(frame):
        STATS["ULog frames read straight into pandas' blocks"] += 1
        frame.iloc[0, 0] = frame.iloc[-1, 0]


def test_the_files_are_there():
    assert any(Path(p).suffix == ".bag" for p in every_file())
