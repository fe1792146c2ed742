"""robolog.sql: a fleet's answers equal pyulog's and rosbags' reading of
the same files and the robolog command's answer to the same query; it only
reads; its errors name the query or the log."""

import json
from collections import defaultdict
from pathlib import Path

import pytest

import robolog
from _corpus import STATS, TESTDATA, ULOGS, cli

pa = pytest.importorskip("pyarrow")


def rows(table):
    """The answer as a list of dicts (through the Arrow C stream)."""
    return pa.table(table).to_pylist()


def test_a_ulog_fleet_equals_pyulog(corpus):
    pyulog = pytest.importorskip("pyulog")
    # Every ULog of the corpus, found by the folder; per log, the rows of
    # vehicle_attitude (every instance) and their timestamps' range.
    t = robolog.sql(
        "SELECT l.path AS path, count(*) AS n, min(v.timestamp) AS t0, "
        "max(v.timestamp) AS t1, sum(CAST(v.timestamp % 1000 AS BIGINT)) AS s "
        "FROM vehicle_attitude v JOIN logs l ON v.log = l.log GROUP BY l.path",
        corpus / "ulog",
    )
    ours = {Path(r["path"]).resolve(): r for r in rows(t)}
    expected = {}
    for path in ULOGS:
        datasets = [d for d in pyulog.ULog(str(path)).data_list if d.name == "vehicle_attitude"]
        stamps = [int(x) for d in datasets for x in d.data["timestamp"]]
        if stamps:
            expected[path.resolve()] = {
                "n": len(stamps),
                "t0": min(stamps),
                "t1": max(stamps),
                "s": sum(x % 1000 for x in stamps),
            }
    assert len(expected) >= 5, "the corpus has PX4 flights with vehicle_attitude"
    assert set(ours) == set(expected)
    for path, e in expected.items():
        got = {k: ours[path][k] for k in e}
        assert got == e, path
    STATS["sql: ULog fleet answers equal to pyulog (logs)"] += len(expected)


def test_a_bag_topic_equals_rosbags():
    highlevel = pytest.importorskip("rosbags.highlevel")
    bag = TESTDATA / "rosbag" / "sample.bag"
    t = robolog.sql(
        "SELECT count(*) AS n, sum(data) AS total, min(log_time) AS first FROM count", bag
    )
    [answer] = rows(t)
    values, times = [], []
    with highlevel.AnyReader([bag]) as reader:
        for conn, stamp, raw in reader.messages():
            if conn.topic == "/count":
                values.append(reader.deserialize(raw, conn.msgtype).data)
                times.append(stamp)
    assert answer["n"] == len(values) > 0
    assert answer["total"] == sum(values)
    assert answer["first"].value == min(times)


def test_the_answer_equals_the_command():
    query = (
        "SELECT log, format, message_count, duration_s FROM logs ORDER BY log"
    )
    paths = [TESTDATA / "rosbag", TESTDATA / "ulog", TESTDATA / "mcap"]
    out, code = cli("sql", query, *paths, "--format", "json")
    theirs = [json.loads(line) for line in out.splitlines()]
    with pytest.warns(RuntimeWarning) as warned:
        t = robolog.sql(query, paths)
    ours = rows(t)
    assert ours == theirs and len(ours) >= 5
    # The damaged test files' problems are warnings: the answer (of the
    # logs table, whose rows they do not cut) is complete, so the command
    # exits 0, and 1 with --strict; the same problems are the table's, and
    # each was issued as a warning.
    assert code == 0 and t.problems
    _, strict = cli("sql", query, *paths, "--format", "json", "--strict")
    assert strict == 1
    assert [str(w.message) for w in warned] == [f"robolog.sql: {p}" for p in t.problems]
    assert any("truncated" in p for p in t.problems), t.problems


def test_the_answer_goes_to_pandas_and_polars_without_copying():
    t = robolog.sql("SELECT * FROM chatter ORDER BY log_time", TESTDATA / "rosbag" / "sample.bag")
    assert t.name == "sql" and t.problems == []
    assert t.column_names[:2] == ["log", "log_time"]
    df = t.to_pandas()
    assert len(df) == t.num_rows == len(t) > 0
    assert str(df["log_time"].dtype) == "datetime64[ns]"


@pytest.mark.parametrize(
    "statement",
    [
        "COPY (SELECT 1) TO '{out}'",
        "CREATE TABLE t AS SELECT 1",
        "CREATE EXTERNAL TABLE t STORED AS CSV LOCATION '{out}'",
        "INSERT INTO logs SELECT * FROM logs",
        "DROP TABLE logs",
        "SET datafusion.execution.batch_size = 1",
        "SELECT 1; COPY (SELECT 1) TO '{out}'",
    ],
)
def test_only_queries_are_answered(tmp_path, statement):
    out = tmp_path / "written.csv"
    # Refused as not a query, or (two statements) as more than one.
    with pytest.raises(robolog.QueryError, match="refused|only reads|not allowed|single SQL statement"):
        robolog.sql(statement.format(out=out), TESTDATA / "rosbag" / "sample.bag")
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_query_errors_are_query_errors():
    bag = TESTDATA / "rosbag" / "sample.bag"
    with pytest.raises(robolog.QueryError, match="no_such_table"):
        robolog.sql("SELECT * FROM no_such_table", bag)
    with pytest.raises(robolog.QueryError):
        robolog.sql("SELEC 1", bag)
    with pytest.raises(robolog.QueryError, match="nope"):
        robolog.sql("SELECT nope FROM chatter", bag)
    assert issubclass(robolog.QueryError, ValueError)
    # As `robolog sql` says it: the closest table and how to quote it.
    with pytest.raises(robolog.QueryError, match='no table "/count"; the closest: FROM "count"'):
        robolog.sql('SELECT * FROM "/count"', bag)
    # Names match ignoring case where one table has them.
    assert robolog.sql("SELECT count(*) AS n FROM Count", bag).to_pyarrow().column("n").to_pylist() == [30]


def test_records_a_scan_could_not_read_are_problems():
    """truncated.bag loses 27 of its 30 /count messages to the cut: the
    answer's problems say so, as `robolog sql` does on stderr."""
    cut = TESTDATA / "rosbag" / "truncated.bag"
    with pytest.warns(RuntimeWarning):
        t = robolog.sql("SELECT count(*) AS n FROM count", cut)
    assert any("could not be read, so the answer may lack rows" in p for p in t.problems), t.problems


def test_log_errors_name_the_log(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        robolog.sql("SELECT * FROM logs", tmp_path / "missing.bag")
    assert e.value.filename == str(tmp_path / "missing.bag")
    junk = tmp_path / "junk.bag"
    junk.write_bytes(b"#ROSBAG V2.0\n" + bytes(range(256)) * 4)
    with pytest.raises(robolog.FormatError) as e:
        robolog.sql("SELECT * FROM logs", junk)
    assert e.value.path == str(junk) and e.value.offset is not None
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="no log files"):
        robolog.sql("SELECT * FROM logs", empty)


def test_a_python_thread_runs_while_a_query_runs(corpus):
    from test_threads import Counter, counts_during

    query = "SELECT log, count(*) FROM vehicle_attitude GROUP BY log"
    with Counter() as counter:
        assert counts_during(counter, lambda: robolog.sql(query, corpus / "ulog"))


def test_tables_of_a_fleet_keep_topics_apart(corpus):
    # Every table's rows are one topic's: per log, the rows of each table
    # equal that log's message count of the topic (rosbags counts them).
    highlevel = pytest.importorskip("rosbags.highlevel")
    bags = [
        corpus / "rosbag" / "rosbagjs-example.bag",
        corpus / "rosbag" / "embag-test.bag",
        corpus / "rosbag" / "swri-Bool.bag",
        TESTDATA / "rosbag" / "sample.bag",
    ]
    counts = defaultdict(int)
    for bag in bags:
        with highlevel.AnyReader([bag]) as reader:
            for conn in reader.connections:
                counts[(bag.name, conn.topic)] += conn.msgcount
    tables = json.loads
    [logs] = [rows(robolog.sql("SELECT log, tables FROM logs ORDER BY log", bags))]
    seen = 0
    for row in logs:
        for table, topic in tables(row["tables"]).items():
            [n] = rows(robolog.sql(
                f'SELECT count(*) AS n FROM "{table}" WHERE log = \'{row["log"]}\'', bags))
            assert n["n"] == counts[(row["log"], topic)], (row["log"], topic)
            seen += 1
    assert seen == len(counts)
    STATS["sql: per-log table row counts equal to rosbags (tables)"] += seen


def test_the_topics_table_lists_each_topic_once(corpus):
    # A row per log and topic: its connections' messages counted together
    # (rosbags counts them), as Log.topics gives them; the counts add up to
    # the logs table's.
    highlevel = pytest.importorskip("rosbags.highlevel")
    bags = [corpus / "rosbag" / "rosbagjs-example.bag", TESTDATA / "rosbag" / "sample.bag"]
    counts, conns, types = defaultdict(int), defaultdict(int), defaultdict(list)
    for bag in bags:
        with highlevel.AnyReader([bag]) as reader:
            for conn in reader.connections:
                key = (bag.name, conn.topic)
                counts[key] += conn.msgcount
                conns[key] += 1
                # rosbags names ROS 1 types as ROS 2 does (`pkg/msg/Type`).
                msgtype = conn.msgtype.replace("/msg/", "/")
                if msgtype not in types[key]:
                    types[key].append(msgtype)
    got = rows(robolog.sql(
        'SELECT log, topic, types, message_count, channel_count, '
        'CAST(start AS BIGINT) AS start_ns, "table" '
        "FROM topics ORDER BY log, topic", bags))
    assert {(r["log"], r["topic"]) for r in got} == set(counts)
    assert len(got) == len(counts)
    for r in got:
        key = (r["log"], r["topic"])
        assert r["message_count"] == counts[key], key
        assert r["channel_count"] == conns[key], key
        assert r["types"] == types[key], key
        assert r["table"] == r["topic"].lstrip("/").replace("/", "_"), key
    rosout = next(r for r in got if r["topic"] == "/rosout")
    assert (rosout["message_count"], rosout["channel_count"]) == (10, 3)
    for bag in bags:
        log = robolog.open(bag)
        mine = {r["topic"]: r for r in got if r["log"] == bag.name}
        for t in log.topics:
            assert mine[t.topic]["message_count"] == t.message_count
            assert mine[t.topic]["types"] == t.types
            assert mine[t.topic]["start_ns"] == t.start
    sums = rows(robolog.sql(
        "SELECT l.log, l.message_count AS n, t.n AS sum FROM logs l JOIN "
        "(SELECT log, sum(message_count) AS n FROM topics GROUP BY log) t ON l.log = t.log",
        bags))
    assert len(sums) == 2 and all(r["n"] == r["sum"] for r in sums)
    STATS["sql: topics table counts equal to rosbags (topics)"] += len(got)
