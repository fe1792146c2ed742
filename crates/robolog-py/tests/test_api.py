"""The API on the repository's fixtures: opening, the log's facts, its
messages, its tables and their conversions, the docs."""

import ast
import datetime
import inspect
from pathlib import Path

import pyarrow as pa
import pytest

import robolog
from _corpus import TESTDATA
from _rosbag2 import file_compressed_zeros_bag

BAG = TESTDATA / "rosbag" / "sample.bag"
MCAP = TESTDATA / "mcap" / "chunked-zstd.mcap"
ULOG = TESTDATA / "ulog" / "features.ulg"
FORMATS = {
    "rosbag": "rosbag",
    "ulog": "ulog",
    "mcap": "mcap",
    "carla": "carla-recorder",
    "vellog": "vellog",
}


@pytest.mark.parametrize("folder", sorted(FORMATS))
def test_every_fixture_opens_with_its_format(folder):
    files = [p for p in sorted((TESTDATA / folder).iterdir()) if p.is_file()]
    assert files
    for f in files:
        with robolog.open(f) as log:
            assert log.format == FORMATS[folder]
            assert log.path == str(f)
            assert sum(c.message_count for c in log.topics) == log.message_count
            n = sum(1 for _ in log.messages())
            assert n == log.message_count, f
            if "truncated" not in f.name and "unindexed" not in f.name:
                assert log.problems == [], f


def test_paths_bytes_and_bytearrays_open_alike():
    data = BAG.read_bytes()
    logs = [robolog.open(BAG), robolog.open(str(BAG)), robolog.open(data), robolog.open(bytearray(data))]
    assert [log.path for log in logs] == [str(BAG), str(BAG), None, None]
    facts = {(log.format, log.start, log.end, log.message_count, tuple(c.topic for c in log.topics)) for log in logs}
    assert len(facts) == 1
    assert [m.data for m in logs[0].messages()] == [m.data for m in logs[2].messages()]


def test_a_log_is_a_context_manager():
    with robolog.open(BAG) as log:
        assert not log.closed
        it = log.messages()
        table = log.table("/chatter")
    assert log.closed
    assert "closed" in repr(log)
    for call in (lambda: log.topics, lambda: log.start, lambda: log.messages(), lambda: log.table("/chatter")):
        with pytest.raises(ValueError, match="closed"):
            call()
    # What was made before keeps working.
    assert sum(1 for _ in it) == 75
    assert table.num_rows > 0
    assert log.format == "rosbag" and log.path == str(BAG)


def test_times_and_utc_datetimes():
    with robolog.open(BAG) as log:
        assert log.clock == "utc"
        assert log.start_utc == log.start and log.end_utc == log.end
        assert log.start <= log.end
        assert log.duration == log.end - log.start
        epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        assert log.start_datetime == epoch + datetime.timedelta(microseconds=log.start // 1000)
        assert log.end_datetime == epoch + datetime.timedelta(microseconds=log.end // 1000)
        assert log.start_datetime.tzinfo == datetime.timezone.utc
    # A ULog counts from boot: a datetime only where the log anchors it.
    with robolog.open(TESTDATA / "ulog" / "example.ulg") as log:
        assert log.clock == "boot"
        assert log.start_datetime is None and log.end_datetime is None
        assert log.start_utc is None and log.end_utc is None
        assert log.summary()["clock_anchor"] is None
    with robolog.open(ULOG) as log:
        anchor = log.summary()["clock_anchor"]
        assert anchor is not None
        unix = log.start - anchor["log_time_ns"] + anchor["unix_time_ns"]
        assert log.start_utc == unix and log.clock == "boot"
        assert log.start_datetime == epoch + datetime.timedelta(microseconds=unix // 1000)


def test_topics_metadata_and_summary():
    with robolog.open(BAG) as log:
        topics = log.channels
        assert all(isinstance(c, robolog.Channel) for c in topics)
        chatter = next(c for c in topics if c.topic == "/chatter")
        assert chatter.type == "std_msgs/String"
        assert chatter.encoding == "ros1"
        assert "string data" in chatter.schema
        assert isinstance(chatter.metadata, dict)
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in log.metadata.items())
        s = log.summary()
        assert s["format"] == "rosbag" and s["path"] == str(BAG)
        assert s["message_count"] == log.message_count
        assert s["start_ns"] == log.start and s["duration_ns"] == log.duration
        assert [c["topic"] for c in s["channels"]] == [c.topic for c in topics]
        assert s["problems"] == log.problems == []
        assert "Channel(topic=" in repr(chatter)
        # Each topic once: sample.bag's /chatter has two connections
        # (rosbags: 8 and 7 messages, one type).
        once = log.topics
        assert all(isinstance(t, robolog.Topic) for t in once)
        assert [(t.topic, t.type, t.types, t.message_count) for t in once] == [
            ("/chatter", "std_msgs/String", ["std_msgs/String"], 15),
            ("/count", "std_msgs/Int32", ["std_msgs/Int32"], 30),
            ("/point", "geometry_msgs/PointStamped", ["geometry_msgs/PointStamped"], 30),
        ]
        by_topic = once[0]
        assert [c.id for c in by_topic.channels] == [c.id for c in topics if c.topic == "/chatter"]
        assert [c.message_count for c in by_topic.channels] == [8, 7]
        assert by_topic.start == min(c.start for c in by_topic.channels)
        assert by_topic.end == max(c.end for c in by_topic.channels)
        assert [t["topic"] for t in s["topics"]] == [t.topic for t in once]
        assert "Topic(topic=" in repr(by_topic)
    with robolog.open(ULOG) as log:
        assert log.metadata and all(isinstance(v, str) for v in log.metadata.values())


def test_messages_filter_by_topic_and_time():
    with robolog.open(BAG) as log:
        everything = [(m.topic, m.log_time, m.data) for m in log.messages()]
        times = [t for _, t, _ in everything]
        assert times == sorted(times)
        counts = {}
        for c in log.topics:
            counts[c.topic] = counts.get(c.topic, 0) + c.message_count
        for topic, n in counts.items():
            assert sum(1 for _ in log.messages(topic)) == n
            assert [m.data for m in log.messages([topic])] == [d for t, _, d in everything if t == topic]
        two = sorted(counts)[:2]
        assert [(m.topic, m.log_time) for m in log.messages(two)] == [(t, s) for t, s, _ in everything if t in two]
        start, end = times[10], times[40]
        got = [(m.topic, m.log_time, m.data) for m in log.messages(start=start, end=end)]
        assert got == [x for x in everything if start <= x[1] < end]
        assert list(log.messages(start=end, end=start)) == []


def test_unknown_topics_are_key_errors_naming_the_topics():
    with robolog.open(BAG) as log:
        with pytest.raises(KeyError, match="/chatter"):
            log.messages("/nope")
        with pytest.raises(KeyError, match="/chatter"):
            log.table("/nope")
        with pytest.raises(KeyError, match="no column"):
            log.table("/chatter", columns=["nope"])


def test_raw_messages_are_payload_bytes():
    with robolog.open(MCAP) as log:
        raw = list(log.messages(raw=True))
        decoded = list(log.messages())
        assert len(raw) == len(decoded) == log.message_count
        assert all(isinstance(m.data, bytes) for m in raw)
        assert [(m.topic, m.log_time, m.publish_time, m.sequence) for m in raw] == [
            (m.topic, m.log_time, m.publish_time, m.sequence) for m in decoded
        ]
        assert all(isinstance(m.publish_time, int) and isinstance(m.sequence, int) for m in raw)
        point = next(m for m in decoded if m.topic == "/point")
        assert isinstance(point.data, dict)
        assert "Message(topic='/point'" in repr(point)
    with robolog.open(BAG) as log:
        m = next(iter(log.messages(raw=True)))
        assert m.publish_time is None and m.sequence is None


def test_decoded_values_are_python_values():
    with robolog.open(TESTDATA / "rosbag" / "sample.bag") as log:
        values = {}
        for m in log.messages():
            values.setdefault(m.topic, m.data)
    for v in values.values():
        assert isinstance(v, dict)
    kinds = set()

    def walk(v):
        kinds.add(type(v))
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    for v in values.values():
        walk(v)
    assert kinds <= {dict, list, bytes, str, int, float, bool, type(None)}


def test_tables_and_their_columns():
    with robolog.open(BAG) as log:
        n = sum(c.message_count for c in log.topics if c.topic == "/chatter")
        t = log.table("/chatter")
        assert isinstance(t, robolog.Table)
        assert t.name == "chatter" and t.topic == "/chatter"
        assert t.num_rows == len(t) == n
        assert t.column_names[0] == "log_time"
        # By table name too, and only some columns, in the order asked.
        some = log.table("chatter", columns=["data", "log_time"])
        assert some.column_names == ["data", "log_time"] and some.num_columns == 2
        pa_table = pa.table(t)
        assert pa_table.equals(t.to_pyarrow())
        assert pa_table.column_names == t.column_names
        assert pa.schema(t) == pa_table.schema
        assert pa_table.schema.field("log_time").type == pa.timestamp("ns")
        # Times as the messages give them.
        times = [m.log_time for m in log.messages("/chatter")]
        assert pa_table.column("log_time").cast(pa.int64()).to_pylist() == times
        start, end = times[2], times[-2]
        part = log.table("/chatter", start=start, end=end)
        assert part.num_rows == sum(1 for x in times if start <= x < end)
        # A stream can be taken any number of times.
        assert pa.table(t).num_rows == n
        assert "robolog.Table" in repr(t)


def test_ulog_tables_keep_integer_widths_in_pandas_and_polars():
    pd = pytest.importorskip("pandas")
    with robolog.open(ULOG) as log:
        name = next(c.type for c in log.topics if c.message_count)
        t = log.table(name)
        schema = pa.table(t).schema
        assert schema.field("timestamp").type == pa.uint64()
        df = t.to_pandas()
        assert isinstance(df, pd.DataFrame) and len(df) == t.num_rows
        assert str(df["timestamp"].dtype) == "uint64"
        assert str(df["multi_id"].dtype) == "uint8"
        assert log.to_pandas(name, flatten=False).equals(df)
        # Flat by default: pyulog's columns (label[0] ... of a fixed array).
        flat_df = log.to_pandas(name)
        assert flat_df.equals(log.table(name, flatten=True).to_pandas())
        assert "label[0]" in flat_df.columns and "label" not in flat_df.columns
    # A bag's topic: dotted paths, the stamp one datetime column; nested
    # with flatten=False.
    with robolog.open(BAG) as log:
        flat_cols = ["log_time", "log_time_utc", "header.seq", "header.stamp",
                     "header.frame_id", "point.x", "point.y", "point.z"]
        assert list(log.to_pandas("/point").columns) == flat_cols
        assert list(log.to_polars("/point").columns) == flat_cols
        assert list(robolog.read_pandas(BAG, "/point").columns) == flat_cols
        assert list(log.to_pandas("/point", flatten=False).columns) == [
            "log_time", "log_time_utc", "header", "point"]
        assert list(log.dataframes()["/point"].columns) == flat_cols
    with robolog.open(ULOG) as log:
        flat = log.table(name, flatten=True)
        # pyulog's flat columns go to pandas as blocks robolog makes
        # (pyarrow's frame, test_every_file checks, without pyarrow).
        assert flat._pandas_blocks() is not None
        pd.testing.assert_frame_equal(flat.to_pandas(), pa.table(flat).to_pandas())
        assert robolog.read_pandas(ULOG, name, flatten=False).equals(df)
        assert robolog.read_pandas(ULOG, name).equals(flat_df)
        assert robolog.read_table(ULOG, name).num_rows == t.num_rows
        pl = pytest.importorskip("polars")
        frame = t.to_polars()
        assert isinstance(frame, pl.DataFrame) and frame.height == t.num_rows
        assert frame.schema["timestamp"] == pl.UInt64
        assert log.to_polars(name, flatten=False).equals(frame)
        assert log.to_polars(name).columns == list(flat_df.columns)


@pytest.mark.parametrize("path", [BAG, MCAP, ULOG], ids=lambda p: p.name)
def test_dataframes_are_every_topics_frame(path):
    """Log.dataframes reads every topic with messages at once: each frame
    is the one Log.to_pandas makes of its topic (flat or not), keyed and
    ordered as the log's topics."""
    pd = pytest.importorskip("pandas")
    with robolog.open(path) as log:
        keys = []
        for c in log.topics:
            key = c.type if log.format == "ulog" else c.topic
            if c.message_count and key not in keys:
                keys.append(key)
        for flatten in (False, True):
            frames = log.dataframes(flatten=flatten)
            assert list(frames) == keys
            for key, frame in frames.items():
                want = log.to_pandas(key, flatten=flatten)
                pd.testing.assert_frame_equal(frame, want, check_exact=True)
        # Some topics, in the order asked for, and a time range.
        some = keys[::-1][:2]
        mid = (log.start + log.end) // 2
        frames = log.dataframes(some, start=mid, flatten=True)
        assert list(frames) == some
        for key in some:
            want = log.to_pandas(key, start=mid, flatten=True)
            pd.testing.assert_frame_equal(frames[key], want, check_exact=True)
            # A date on a bag's Unix clock, a duration since boot on a ULog's.
            at = pd.Timedelta(mid, unit="ns") if log.format == "ulog" else pd.Timestamp(mid)
            assert (frames[key]["log_time"] >= at).all()
        with pytest.raises(KeyError):
            log.dataframes(["no_such_topic"])


def test_limits():
    lz4 = TESTDATA / "rosbag" / "sample-lz4.bag"
    with robolog.open(lz4) as log:
        assert sum(1 for _ in log.messages()) == log.message_count
    # Chunks larger than the limit are refused, each a problem naming it.
    with robolog.open(lz4, max_chunk_size=16) as log:
        assert list(log.messages()) == []
        assert log.problems and all("at most 16 uncompressed bytes" in p for p in log.problems)
    with pytest.raises(ValueError):
        robolog.open(lz4, max_nesting=0)


def test_the_stub_names_every_format_log_format_gives(tmp_path):
    stub = ast.parse((Path(robolog.__file__).parent / "__init__.pyi").read_text())
    log_class = next(n for n in stub.body if isinstance(n, ast.ClassDef) and n.name == "Log")
    getter = next(f for f in log_class.body if isinstance(f, ast.FunctionDef) and f.name == "format")
    assert ast.unparse(getter.returns).startswith("Literal[")
    named = {e.value for e in getter.returns.slice.elts}
    robolog.convert(BAG, tmp_path / "r2", ros2=True)
    seen = set()
    for f in [*(sorted((TESTDATA / d).iterdir())[0] for d in sorted(FORMATS)), tmp_path / "r2"]:
        with robolog.open(f) as log:
            seen.add(log.format)
    assert seen == named == {"rosbag", "ulog", "mcap", "carla-recorder", "vellog", "rosbag2"}


def test_help_is_useful():
    for obj in (robolog, robolog.open, robolog.Log, robolog.Log.messages, robolog.Log.table,
                robolog.Log.summary, robolog.Table, robolog.Table.to_pandas, robolog.Message,
                robolog.Channel, robolog.FormatError, robolog.UnsupportedError, robolog.read_table):
        assert obj.__doc__ and len(obj.__doc__) > 40, obj
    assert "max_chunk_size" in str(inspect.signature(robolog.open))
    assert list(inspect.signature(robolog.Log.messages).parameters) == ["self", "topics", "start", "end", "raw"]
    assert list(inspect.signature(robolog.Log.table).parameters) == [
        "self", "topic", "columns", "start", "end", "flatten"
    ]
    for obj in (robolog.ULogView, robolog.BagView, robolog.McapView, robolog.CarlaView,
                robolog.LoggedMessage, robolog.Dropout, robolog.BagConnection, robolog.McapSchema,
                robolog.McapChannel, robolog.McapAttachment, robolog.McapMetadata,
                robolog.CarlaFrame, robolog.CarlaActor, robolog.Log.ulog, robolog.Log.carla,
                robolog.CarlaView.info, robolog.ULogView.get_default_parameters,
                robolog.Rosbag2View, robolog.Rosbag2Topic, robolog.Log.rosbag2):
        assert obj.__doc__ and len(obj.__doc__) > 40, obj
    assert robolog.Log.format.__doc__
    assert isinstance(robolog.__version__, str)
    assert (Path(robolog.__file__).parent / "py.typed").exists()
    assert (Path(robolog.__file__).parent / "__init__.pyi").exists()


def test_the_bag_expansion_limit(tmp_path):
    # A ROS 2 bag whose one storage file is zstd FILE-compressed zeros
    # (1 MiB, no content size declared), no SQLite database.
    bag = file_compressed_zeros_bag(tmp_path / "bag", 1 << 20)
    # Within the default 4 GiB the file is decompressed, and then found
    # to be no database.
    with pytest.raises(robolog.FormatError) as e:
        robolog.open(bag)
    assert "expand to at most" not in str(e.value)
    # Over a lower limit it is refused, naming the limit, before the rest
    # is decompressed; every call that opens logs takes the limit.
    limited = "expand to at most 65536 bytes together"
    with pytest.raises(robolog.FormatError, match=limited):
        robolog.open(bag, max_bag_expansion=65536)
    with pytest.raises(robolog.FormatError, match=limited):
        robolog.check(bag, max_bag_expansion=65536)
    with pytest.raises(robolog.FormatError, match=limited):
        robolog.export(bag, tmp_path / "csv", max_bag_expansion=65536)
    with pytest.raises(robolog.FormatError, match=limited):
        robolog.convert(bag, tmp_path / "out.mcap", max_bag_expansion=65536)
    with pytest.raises(robolog.FormatError, match=limited):
        robolog.sql("SELECT count(*) FROM logs", [bag], max_bag_expansion=65536)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bag"]
