"""The one time model of the Python API.

- Every time-valued attribute the stubs declare says its unit in its
  docstring, and its value is checked in that unit against a reference:
  rosbags, pyulog and python mcap for what they read, the messages' own
  log_time for the rest.
- start=/end= take one grammar: int ns on the log's clock, float seconds
  after the first message, "2.5s"/"1500ms", "@SECONDS", ISO 8601 UTC
  instants, datetime and timedelta; a UTC time on a clock without an
  anchor is a ValueError naming why.
- Log.clock names what the times count from, and start_utc/end_utc give
  UTC instants only where the log has them.
- A table's log_time is a date (datetime64[ns]) only on a Unix clock; a
  clock since boot (ULog) or since the recording's start (CARLA, VEL)
  gives a duration (timedelta64[ns], polars Duration), never a 1970 date.
"""

import ast
import datetime
import re

import pytest

import robolog
from _corpus import REPO, TESTDATA, corpus_dir

STUBS = REPO / "crates" / "robolog-py" / "python" / "robolog" / "__init__.pyi"
UTC = datetime.timezone.utc
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=UTC)

BAG = TESTDATA / "rosbag" / "sample.bag"
UNANCHORED_ULOG = TESTDATA / "ulog" / "example.ulg"

# Names of attributes that hold times or durations.
TIME_NAME = re.compile(
    r"(^|_)(time|timestamp|start|end|duration|elapsed|date|datetime|timedelta|utc)($|_)"
)
# How a docstring states a unit.
UNIT = re.compile(r"\b(int ns|int µs|int ms|int s|float s)\b|\btimedelta\b|\bdatetime\b")


def time_attributes():
    """(class, attribute, docstring) of every property of the stubs whose
    name says it holds a time."""
    tree = ast.parse(STUBS.read_text())
    found = []
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        for f in cls.body:
            if not isinstance(f, ast.FunctionDef):
                continue
            if not any(isinstance(d, ast.Name) and d.id == "property" for d in f.decorator_list):
                continue
            if TIME_NAME.search(f.name):
                found.append((cls.name, f.name, ast.get_docstring(f) or ""))
    return found


def corpus_file(*parts):
    d = corpus_dir()
    if d is None:
        pytest.skip("the real-file corpus is missing (set ROBOLOG_CORPUS)")
    return d.joinpath(*parts)


def test_every_time_attribute_states_its_unit():
    attrs = time_attributes()
    assert len(attrs) >= 25, attrs
    missing = [f"{c}.{a}" for c, a, doc in attrs if not UNIT.search(doc)]
    assert not missing, f"time attributes without a unit in their docstring: {missing}"
    # Each of them is checked below in its unit.
    unchecked = {f"{c}.{a}" for c, a, _ in attrs} - CHECKED
    assert not unchecked, f"time attributes no test checks: {sorted(unchecked)}"


# The attributes the tests below check against a reference, in the unit
# their docstring states.
CHECKED = {
    "Topic.start",
    "Topic.end",
    "Channel.start",
    "Channel.end",
    "Message.log_time",
    "Message.publish_time",
    "LoggedMessage.timestamp",
    "Dropout.timestamp",
    "Dropout.duration",
    "ULogView.start_timestamp",
    "ULogView.last_timestamp",
    "McapAttachment.log_time",
    "McapAttachment.create_time",
    "CarlaFrame.elapsed",
    "CarlaFrame.duration",
    "CarlaActor.added_time",
    "CarlaActor.removed_time",
    "CarlaView.date",
    "CarlaView.start_time",
    "CarlaView.end_time",
    "Log.start",
    "Log.end",
    "Log.duration",
    "Log.duration_timedelta",
    "Log.start_utc",
    "Log.end_utc",
    "Log.start_datetime",
    "Log.end_datetime",
}


def test_ros_bag_times_in_ns_equal_rosbags():
    rosbag1 = pytest.importorskip("rosbags.rosbag1")
    with rosbag1.Reader(BAG) as ref, robolog.open(BAG) as log:
        times = {}
        for conn, t, _ in ref.messages():
            times.setdefault(conn.id, []).append(t)
        # Log.start/end/duration (int ns) and their UTC forms.
        assert (log.start, log.end) == (ref.start_time, ref.end_time - 1)
        assert log.duration == log.end - log.start
        assert log.duration_timedelta == datetime.timedelta(microseconds=log.duration // 1000)
        assert (log.start_utc, log.end_utc) == (log.start, log.end)
        assert log.start_datetime == EPOCH + datetime.timedelta(microseconds=log.start // 1000)
        assert log.end_datetime == EPOCH + datetime.timedelta(microseconds=log.end // 1000)
        # Channel.start/end and Message.log_time (int ns).
        assert len(log.channels) == len(times)
        for c in log.channels:
            assert (c.start, c.end) == (min(times[c.id]), max(times[c.id])), c.topic
        # Topic.start/end (int ns): over the topic's connections.
        for t in log.topics:
            ts = [x for c in t.channels for x in times[c.id]]
            assert (t.start, t.end) == (min(ts), max(ts)), t.topic
        got = [m.log_time for m in log.messages()]
        assert got == sorted(t for ts in times.values() for t in ts)


def test_mcap_times_in_ns_equal_python_mcap():
    reader = pytest.importorskip("mcap.reader")
    path = TESTDATA / "mcap" / "chunked-zstd.mcap"
    with open(path, "rb") as f:
        ref = [(m.log_time, m.publish_time) for _, _, m in reader.make_reader(f).iter_messages()]
    with robolog.open(path) as log:
        got = [(m.log_time, m.publish_time) for m in log.messages(raw=True)]
        assert got == sorted(ref, key=lambda t: t[0])
    path = corpus_file("mcap-conformance", "data", "OneAttachment", "OneAttachment.mcap")
    with open(path, "rb") as f:
        ref = [(a.log_time, a.create_time) for a in reader.make_reader(f).iter_attachments()]
    with robolog.open(path) as log:
        assert [(a.log_time, a.create_time) for a in log.mcap.attachments] == ref != []


def test_times_before_2000_are_not_dates():
    """The conformance files' messages are at a few ns: not a time of day,
    so the clock is unknown and there are no UTC instants (no 1970 dates)."""
    path = corpus_file("mcap-conformance", "data", "OneMessage", "OneMessage.mcap")
    with robolog.open(path) as log:
        assert log.start is not None and log.start < 10**12
        assert log.clock == "unknown"
        assert (log.start_utc, log.end_utc, log.start_datetime) == (None, None, None)


def test_ulog_view_times_in_pyulog_units():
    pyulog = pytest.importorskip("pyulog")
    path = corpus_file("ulog", "pyulog", "sample_logging_tagged_and_default_params.ulg")
    ref = pyulog.ULog(str(path))
    with robolog.open(path) as log:
        u = log.ulog
        # µs since boot, as pyulog gives them.
        assert (u.start_timestamp, u.last_timestamp) == (ref.start_timestamp, ref.last_timestamp)
        assert [m.timestamp for m in u.logged_messages] == [
            m.timestamp for m in ref.logged_messages
        ]
        tagged = {tag: [m.timestamp for m in ms] for tag, ms in u.logged_messages_tagged.items()}
        assert tagged == {
            tag: [m.timestamp for m in ms] for tag, ms in ref.logged_messages_tagged.items()
        }
    # Dropouts: µs and ms, on a log that has them.
    for path in sorted(corpus_file("ulog").rglob("*.ulg")):
        ref = pyulog.ULog(str(path))
        if ref.dropouts:
            with robolog.open(path) as log:
                assert [(d.timestamp, d.duration) for d in log.ulog.dropouts] == [
                    (d.timestamp, d.duration) for d in ref.dropouts
                ]
            break
    else:
        pytest.fail("no corpus ULog with dropouts")


def gps_offset_ns(pyulog, path):
    """UTC minus boot time of a ULog, in ns, from pyulog's first GPS fix
    (time_utc_usec - timestamp, as Flight Review takes it)."""
    ref = pyulog.ULog(str(path))
    gps = next(d for d in ref.data_list if d.name in ("vehicle_gps_position", "sensor_gps"))
    fix = next(i for i, u in enumerate(gps.data["time_utc_usec"]) if u > 0)
    return (int(gps.data["time_utc_usec"][fix]) - int(gps.data["timestamp"][fix])) * 1000


def test_ulog_utc_through_gps_time():
    """A ULog's clock counts from boot; its UTC instants come from GPS time
    (time_utc_usec of the first fix, as Flight Review takes it)."""
    pyulog = pytest.importorskip("pyulog")
    path = corpus_file("ulog", "pyulog", "sample_log_small.ulg")
    offset_ns = gps_offset_ns(pyulog, path)
    with robolog.open(path) as log:
        assert log.clock == "boot"
        assert log.start_utc == log.start + offset_ns
        assert log.end_utc == log.end + offset_ns
        assert log.start_datetime == EPOCH + datetime.timedelta(microseconds=log.start_utc // 1000)
        assert log.end_datetime == EPOCH + datetime.timedelta(microseconds=log.end_utc // 1000)
    with robolog.open(UNANCHORED_ULOG) as log:
        assert log.clock == "boot"
        assert (log.start_utc, log.end_utc, log.start_datetime) == (None, None, None)


def test_sql_logs_have_the_clock_and_utc_times():
    """A "flights per day" query: logs.start_utc is the UTC start (the GPS
    time of a ULog), null where the log has no UTC anchor, never 1970."""
    pyulog = pytest.importorskip("pyulog")
    pa = pytest.importorskip("pyarrow")
    anchored = corpus_file("ulog", "pyulog", "sample_log_small.ulg")
    offset_ns = gps_offset_ns(pyulog, anchored)
    paths = [anchored, UNANCHORED_ULOG, BAG]
    t = pa.table(robolog.sql(
        "SELECT path, clock, start, start_utc, end_utc, \"end\" - start AS span, duration FROM logs",
        paths,
    ))
    assert t.schema.field("start_utc").type == pa.timestamp("ns", tz="UTC")
    # start and end are int ns on the log's own clock (no 1970 dates for a
    # boot clock), duration a duration of ns.
    assert t.schema.field("start").type == pa.int64()
    assert t.schema.field("duration").type == pa.duration("ns")
    assert t.column("duration").cast(pa.int64()).to_pylist() == t.column("span").to_pylist()
    t = t.select(["path", "clock", "start", "start_utc", "end_utc"])
    rows = {r["path"]: r for r in t.cast(pa.schema([
        ("path", pa.string()), ("clock", pa.string()), ("start", pa.int64()),
        ("start_utc", pa.int64()), ("end_utc", pa.int64())])).to_pylist()}
    a = rows[str(anchored)]
    assert a["clock"] == "boot" and a["start_utc"] == a["start"] + offset_ns
    u = rows[str(UNANCHORED_ULOG)]
    assert u["clock"] == "boot" and (u["start_utc"], u["end_utc"]) == (None, None)
    b = rows[str(BAG)]
    assert b["clock"] == "utc" and b["start_utc"] == b["start"]
    with robolog.open(anchored) as log:
        assert (a["start_utc"], a["end_utc"]) == (log.start_utc, log.end_utc)


def test_tables_have_log_time_utc_where_the_log_is_anchored():
    """Every table's log_time_utc (datetime64[ns, UTC]) is log_time plus
    the GPS offset of an anchored ULog, log_time itself for a bag on a UTC
    clock and null for a ULog without an anchor; pandas' frame made from
    robolog's blocks equals pyarrow's. pyulog-shaped frames (a ULog's
    to_pandas flattened) have it after log_time too."""
    pyulog = pytest.importorskip("pyulog")
    pa = pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    anchored = corpus_file("ulog", "pyulog", "sample_log_small.ulg")
    offset_ns = gps_offset_ns(pyulog, anchored)
    utc_type = pa.timestamp("ns", tz="UTC")
    with robolog.open(anchored) as log:
        t = pa.table(log.table("vehicle_attitude"))
        assert t.column_names[:3] == ["log_time", "log_time_utc", "multi_id"]
        assert t.schema.field("log_time_utc").type == utc_type
        lt = t.column("log_time").cast(pa.int64()).to_pylist()
        utc = t.column("log_time_utc").cast(pa.int64()).to_pylist()
        assert len(lt) > 100 and utc == [x + offset_ns for x in lt]
        assert log.start_utc in utc or min(utc) >= log.start_utc
        df = log.to_pandas("vehicle_attitude", flatten=False)
        assert str(df["log_time_utc"].dtype) == "datetime64[ns, UTC]"
        # pyulog-shaped frames too, after log_time: from robolog's blocks
        # (to_pandas, dataframes) and as Arrow (flatten=True).
        flat = pa.table(log.table("vehicle_attitude", flatten=True))
        assert flat.column_names[:3] == ["log_time", "log_time_utc", "multi_id"]
        assert flat.column("log_time_utc").cast(pa.int64()).to_pylist() == utc
        for frame in (
            log.to_pandas("vehicle_attitude"),
            log.dataframes(["vehicle_attitude"])["vehicle_attitude"],
        ):
            assert str(frame["log_time_utc"].dtype) == "datetime64[ns, UTC]"
            assert frame["log_time_utc"].astype("int64").tolist() == utc
    with robolog.open(UNANCHORED_ULOG) as log:
        name = log.topics[0].topic
        t = pa.table(log.table(name))
        assert t.column("log_time_utc").null_count == t.num_rows > 0
        flat = pa.table(log.table(name, flatten=True))
        assert flat.column("log_time_utc").null_count == flat.num_rows
        assert log.to_pandas(name)["log_time_utc"].isna().all()
    with robolog.open(BAG) as log:
        table = log.table("/count", flatten=True)
        t = pa.table(table)
        assert t.column("log_time_utc").cast(pa.int64()).to_pylist() == \
            t.column("log_time").cast(pa.int64()).to_pylist()
        assert table._pandas_blocks() is not None
        frame = table.to_pandas()
        pd.testing.assert_frame_equal(frame, t.to_pandas(), check_exact=True)
        assert (frame["log_time_utc"] == frame["log_time"].dt.tz_localize("UTC")).all()


def test_boot_clock_log_time_is_a_duration_not_a_1970_date():
    """A ULog's log_time is the time since boot: timedelta64[ns] in pandas
    (pyulog's timestamp µs × 1000), pa.duration("ns") in Arrow, Duration in
    polars; on both pandas paths (robolog's blocks and pyarrow's), flat
    and not. A bag's stays datetime64[ns]; CARLA and VEL are durations."""
    pyulog = pytest.importorskip("pyulog")
    pa = pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    np = pytest.importorskip("numpy")
    path = corpus_file("ulog", "pyulog", "sample_log_small.ulg")
    ref = pyulog.ULog(str(path))
    att = next(d for d in ref.data_list if d.name == "vehicle_attitude" and d.multi_id == 0)
    want = att.data["timestamp"].astype(np.int64) * 1000
    with robolog.open(path) as log:
        for flatten in (True, False):
            df = log.to_pandas("vehicle_attitude", flatten=flatten)
            assert str(df["log_time"].dtype) == "timedelta64[ns]", flatten
            np.testing.assert_array_equal(df["log_time"].to_numpy().view(np.int64), want)
            assert df["log_time"].iloc[0] == pd.Timedelta(int(want[0]), unit="ns")
        table = log.table("vehicle_attitude")
        t = pa.table(table)
        assert t.schema.field("log_time").type == pa.duration("ns")
        pd.testing.assert_frame_equal(table.to_pandas(), t.to_pandas(), check_exact=True)
        frames = log.dataframes(["vehicle_attitude", "sensor_combined"])
        assert all(str(f["log_time"].dtype) == "timedelta64[ns]" for f in frames.values())
        # Aligned topics keep the clock's type.
        aligned = pa.table(log.align(["vehicle_attitude", "sensor_combined"], on="vehicle_attitude"))
        assert aligned.schema.field("log_time").type == pa.duration("ns")
        # SQL: the table's type, and its ranges.
        q = "SELECT log_time FROM vehicle_attitude WHERE log_time >= INTERVAL '10 seconds'"
        got = pa.table(robolog.sql(q, [path])).column("log_time")
        assert got.type == pa.duration("ns")
        assert got.cast(pa.int64()).to_pylist() == [int(x) for x in want if x >= 10_000_000_000]
        polars = pytest.importorskip("polars")
        assert log.to_polars("vehicle_attitude")["log_time"].dtype == polars.Duration("ns")
    with robolog.open(BAG) as log:
        df = log.to_pandas("/count")
        assert str(df["log_time"].dtype) == "datetime64[ns]"
        assert pa.table(log.table("/count")).schema.field("log_time").type == pa.timestamp("ns")
    for path in [next(iter(sorted((TESTDATA / "carla").glob("*.rec")))),
                 TESTDATA / "vellog" / "sensors.vel"]:
        with robolog.open(path) as log:
            topic = log.topics[0].topic
            assert pa.table(log.table(topic)).schema.field("log_time").type == pa.duration("ns")
            times = [m.log_time for m in log.messages(topic)]
            assert log.to_pandas(topic)["log_time"].tolist() == [pd.Timedelta(t, unit="ns") for t in times]


def test_carla_times_in_ns_are_the_messages_log_times():
    path = next(iter(sorted((TESTDATA / "carla").glob("*.rec"))))
    with robolog.open(path) as log:
        view = log.carla
        assert log.clock == "simulation"
        frame_times = {}
        for m in log.messages(["FrameStart"]):
            frame_times[m.data["frame"]] = (m.log_time, m.data["duration"])
        frames = view.frames
        assert [(f.elapsed, f.duration) for f in frames] == [
            (frame_times[f.id][0], round(frame_times[f.id][1] * 1e9)) for f in frames
        ]
        assert (view.start_time, view.end_time) == (log.start, frames[-1].elapsed)
        by_frame = {f.id: f.elapsed for f in frames}
        actors = view.actors
        assert actors
        for a in actors:
            assert a.added_time == by_frame[a.added_frame]
            if a.removed_frame is None:
                assert a.removed_time is None
            else:
                assert a.removed_time == by_frame[a.removed_frame]
        # The header's date is Unix seconds, as CARLA stores it: the start
        # of the recording in UTC, which anchors the log.
        assert log.start_utc == view.date * 1_000_000_000 + log.start


def test_clock_names():
    with robolog.open(TESTDATA / "vellog" / "spec-example.vel") as log:
        assert log.clock == "recording_start" and log.start_utc is None
    with robolog.open(TESTDATA / "vellog" / "sensors.vel") as log:
        # Anchored by its first GPS fix: 2009-06-17 14:03:28 UTC at 1.455 s.
        assert log.clock == "recording_start"
        assert log.start_datetime == datetime.datetime(
            2009, 6, 17, 14, 3, 26, 795000, tzinfo=UTC
        )


def first_times(log, topic, **kw):
    return [m.log_time for m in log.messages(topic, **kw)]


def test_time_arguments_one_grammar():
    path = TESTDATA / "vellog" / "sensors.vel"
    with robolog.open(path) as log:
        # GPSDataM messages at 0.455 s + k, the first message at 0.250 s;
        # 14:03:28 UTC at 1.455 s.
        want = [2_455_000_000, 3_455_000_000]
        forms = [
            (2.0, 3.3),
            ("2", "3.3"),
            ("2s", "3300ms"),
            ("@2.4", "@3.5"),
            (2_400_000_000, 3_500_000_000),
            (datetime.timedelta(seconds=2), datetime.timedelta(milliseconds=3300)),
            ("2009-06-17T14:03:29Z", "2009-06-17 16:03:31+02:00"),
            (
                datetime.datetime(2009, 6, 17, 14, 3, 29, tzinfo=UTC),
                datetime.datetime(2009, 6, 17, 16, 3, 31, tzinfo=datetime.timezone(datetime.timedelta(hours=2))),
            ),
            # A datetime without a time zone is UTC.
            (datetime.datetime(2009, 6, 17, 14, 3, 29), datetime.datetime(2009, 6, 17, 14, 3, 31)),
        ]
        for start, end in forms:
            assert first_times(log, "GPSDataM", start=start, end=end) == want, (start, end)
            t = log.table("GPSDataM", start=start, end=end)
            assert t.num_rows == 2, (start, end)
        assert len(log.to_pandas("GPSDataM", start="2s", end=3.3)) == 2
    pd = pytest.importorskip("pandas")
    with robolog.open(path) as log:
        # pandas' Timestamp and Timedelta, to the nanosecond: 1 ns after
        # the first GPS message leaves it out.
        assert first_times(
            log,
            "GPSDataM",
            start=pd.Timestamp("2009-06-17T14:03:29.000000001Z"),
            end=pd.Timedelta(3_300_000_001, "ns"),
        ) == want[1:]
        assert first_times(log, "GPSDataM", start=pd.Timedelta(2_205_000_001, "ns")) == [
            3_455_000_000,
            4_455_000_000,
            5_455_000_000,
        ]


def test_time_argument_errors():
    with robolog.open(TESTDATA / "vellog" / "spec-example.vel") as log:
        with pytest.raises(ValueError, match="not anchored to UTC"):
            log.messages(start="2009-06-17T14:03:29Z")
        with pytest.raises(ValueError, match="not anchored to UTC"):
            log.table(log.topics[0].topic, end=datetime.datetime(2009, 6, 17, tzinfo=UTC))
        with pytest.raises(ValueError, match="is not a time"):
            log.messages(start="soon")
        with pytest.raises(TypeError, match="must be"):
            log.messages(start=[1])
        with pytest.raises(TypeError, match="bool"):
            log.messages(start=True)
        with pytest.raises(ValueError, match="seconds"):
            log.messages(start=float("nan"))


def test_convert_takes_the_grammar(tmp_path):
    src = TESTDATA / "vellog" / "sensors.vel"
    out = tmp_path / "gps.mcap"
    r = robolog.convert(src, out, topics=["GPSDataM"], start="2009-06-17T14:03:29Z", end=3.3)
    assert r.messages == 2
    with robolog.open(out) as log:
        assert log.message_count == 2
    with pytest.raises(ValueError, match="not anchored to UTC"):
        robolog.convert(
            TESTDATA / "vellog" / "spec-example.vel", tmp_path / "x.mcap", start="2009-06-17"
        )
    assert not (tmp_path / "x.mcap").exists()
