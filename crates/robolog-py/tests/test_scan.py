"""Log.scan streams a topic's table batch by batch: its batches hold the
rows, columns and types of Log.table exactly; pyarrow reads it as a C
stream; and a schema a consumer requests through the PyCapsule interface
is honoured, by tables and scans alike."""

import pyarrow as pa
import pytest

import robolog
from _corpus import TESTDATA, ULOGS, BAGS, file_id

BAG = TESTDATA / "rosbag" / "sample.bag"
MCAP = TESTDATA / "mcap" / "chunked-zstd.mcap"
ULOG = TESTDATA / "ulog" / "features.ulg"


def keys(log):
    """Each table key with messages, once."""
    out = []
    for c in log.topics:
        key = c.type if log.format == "ulog" else c.topic
        if c.message_count and key not in out:
            out.append(key)
    return out


def joined(scan):
    """The scan's batches as one pyarrow table, and how many there were."""
    parts = [pa.table(t) for t in scan]
    assert parts, "a scan of a topic with messages gives a batch"
    return pa.concat_tables(parts), len(parts)


@pytest.mark.parametrize("path", [BAG, MCAP, ULOG], ids=lambda p: p.name)
def test_a_scan_gives_the_rows_of_the_table(path):
    with robolog.open(path) as log:
        for key in keys(log):
            for flatten in (False, True):
                want = pa.table(log.table(key, flatten=flatten))
                scan = log.scan(key, flatten=flatten)
                assert isinstance(scan, robolog.Scan)
                assert scan.column_names == want.column_names
                assert scan.name == log.table(key).name
                got, _ = joined(scan)
                assert got.equals(want), (key, flatten)
                assert got.schema == want.schema
                # Read once: iterating again gives nothing.
                assert list(scan) == []
        # Columns and a time range, as Log.table takes them.
        key = keys(log)[0]
        mid = (log.start + log.end) // 2
        want = pa.table(log.table(key, columns=["log_time"], start=mid))
        got = pa.RecordBatchReader.from_stream(
            log.scan(key, columns=["log_time"], start=mid)
        ).read_all()
        assert got.equals(want)


@pytest.mark.parametrize(
    "path", (ULOGS + BAGS)[:6] or [ULOG], ids=file_id
)
def test_a_large_topic_comes_in_several_batches(path):
    """A topic of more rows than a batch holds (8192) comes in batches of at
    most that many, which join into the table."""
    with robolog.open(path) as log:
        big = [k for k in keys(log) if log.table(k, columns=["log_time"]).num_rows > 8192]
        if not big:
            pytest.skip("no topic of more than 8192 messages")
        key = big[0]
        want = pa.table(log.table(key))
        sizes = []
        parts = []
        for t in log.scan(key):
            sizes.append(t.num_rows)
            parts.append(pa.table(t))
        assert len(sizes) > 1 and max(sizes) <= 8192
        assert pa.concat_tables(parts).equals(want)
        # As a C stream, read by pyarrow batch by batch.
        reader = pa.RecordBatchReader.from_stream(log.scan(key))
        first = reader.read_next_batch()
        assert first.num_rows == sizes[0]
        rest = reader.read_all()
        assert first.num_rows + rest.num_rows == want.num_rows


def test_unknown_topics_and_columns_raise_when_the_scan_starts():
    with robolog.open(BAG) as log:
        with pytest.raises(KeyError, match="/chatter"):
            log.scan("no_such_topic")
        with pytest.raises(KeyError, match="no column"):
            log.scan("/chatter", columns=["no_such_column"])


def test_a_scan_is_one_stream():
    with robolog.open(BAG) as log:
        scan = log.scan("/chatter")
        pa.RecordBatchReader.from_stream(scan).read_all()
        with pytest.raises(ValueError, match="read already"):
            pa.RecordBatchReader.from_stream(scan)


def test_a_requested_schema_is_honoured():
    """pyarrow passes the schema it is asked for as requested_schema:
    columns that can be cast come as requested (log_time as int64
    nanoseconds, integers widened), with the values of pyarrow's own
    cast."""
    with robolog.open(ULOG) as log:
        key = keys(log)[0]
        t = log.table(key, columns=["log_time", "timestamp", "multi_id"])
        own = pa.table(t)
        assert own.schema.field("multi_id").type == pa.uint8()
        wanted = pa.schema(
            [("log_time", pa.int64()), ("timestamp", pa.int64()), ("multi_id", pa.int32())]
        )
        for source in (t, log.scan(key, columns=["log_time", "timestamp", "multi_id"])):
            got = pa.RecordBatchReader.from_stream(source, schema=wanted).read_all()
            assert got.schema.types == wanted.types
            assert got.column_names == wanted.names
            assert got.equals(own.cast(wanted))
        # A schema of other columns is not honoured (the interface's best
        # effort): the stream keeps the table's own.
        other = pa.schema([("log_time", pa.int64())])
        got = pa.RecordBatchReader.from_stream(t, schema=other).read_all()
        assert got.equals(own) and got.schema.types == own.schema.types
        # A type that cannot hold the values fails the stream, naming the
        # column, instead of giving nulls (arrow's lossy cast).
        narrow = pa.schema(
            [("log_time", pa.int64()), ("timestamp", pa.int8()), ("multi_id", pa.int32())]
        )
        with pytest.raises(pa.ArrowException, match="timestamp"):
            pa.RecordBatchReader.from_stream(t, schema=narrow).read_all()
