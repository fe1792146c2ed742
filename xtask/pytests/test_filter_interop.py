"""`cargo xtask convert interop` (the same pytest run as
test_convert_interop.py): `robolog filter` against its peers on corpus
files, message for message (topic, log time, publish time, payload bytes).

- MCAP topic selection and time cuts against ``pymcap-cli filter`` 0.34.0
  with the same patterns (``--topic``/``--exclude-topic`` full-match
  regexes; ours as ``re:`` patterns, or as the glob that means the same),
  latched topics included: ``--latch-from-metadata`` (ROS 2
  ``transient_local`` channels) or ``--latch REGEX`` (ROS 1 ``latching=1``
  channels, which pymcap-cli's metadata detection does not read), each
  keeping its last message before ``--start``. The MCAP inputs are corpus
  files, or corpus bags converted by ``robolog convert`` (``--ros2`` for
  the transient-local channels).
- ``--where`` on ROS 1 bags against ``rosbag filter``'s semantics,
  reimplemented here with rosbags 0.11.9: every message of the input
  whose Python expression over ``topic``, ``m`` (the deserialised message)
  and ``t`` holds is copied, in order; our output bag is read back with
  rosbags.

The manifest's ``corpus`` is the corpus folder (the checks skip without
it) and ``work`` a scratch folder; ``--robolog`` the executable. Each
compared case records ``{"filter": id, "messages": n}``."""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mcap.reader import make_reader

# MCAP cases: (id, input: a corpus path, or "robolog convert [--ros2]" of
# one, our topic patterns, pymcap-cli's, our excluded patterns,
# pymcap-cli's, start and end (ns, or None), latch: "metadata", "latching"
# (the topics whose channels all carry latching=1, given to --latch) or
# None).
MCAP_CASES = [
    ("wbag-include-exclude", "ros2-mcap/wbag_0.mcap", None,
     ["re:[A-D].*"], ["[A-D].*"], ["BBB"], ["BBB"], None, None, None),
    ("wbag-glob-cut", "ros2-mcap/wbag_0.mcap", None,
     ["?A?", "[EFG]*"], ["[^/]A[^/]", "[EFG][^/]*"], [], [], 1_100, 1_300, None),
    ("services-include-exclude", "ros2-mcap/topics_and_services.mcap", None,
     ["re:.*_service_event", "/parameter_events"], [".*_service_event", "/parameter_events"],
     ["/add_two_ints2/*"], ["/add_two_ints2/[^/]*"], None, None, None),
    ("osi-one-channel-cut", "osi-mcap/lichtblick-asam-osi-converter/sensorDataDetectedLaneBoundaries.mcap",
     None, ["/PMSF.SensorData"], ["/PMSF\\.SensorData"], [], [], "+1s", "+3s", None),
    ("osi-exclude-cut", "osi-mcap/generated-asam-osi-utilities-0.4.0/20240101T000000Z_multi_380_7362_10_lz4.mcap",
     None, [], [], ["re:h.*"], ["h.*"], "+0.25s", "+0.75s", None),
    ("imu-gps-fix-cut", "sensors/robot_localization-test1.bag", "ros1",
     ["re:/imu/data|/fix"], ["/imu/data|/fix"], [], [], "+100s", "+160s", None),
    ("turtles-ros2-latched-start", "rosbag/rosbagjs-example.bag", "ros2",
     [], [], [], [], "+2.2s", None, "metadata"),
    ("turtles-ros2-latched-topics-cut", "rosbag/rosbagjs-example.bag", "ros2",
     ["/turtle1/*", "/tf_static"], ["/turtle1/[^/]*", "/tf_static"], [], [], "+2.2s", "+7s", "metadata"),
    ("turtles-ros2-latched-exclude-cut", "rosbag/rosbagjs-example.bag", "ros2",
     [], [], ["/rosout"], ["/rosout"], "+5s", "+10s", "metadata"),
    ("turtles-ros1-latched-start", "rosbag/rosbagjs-example.bag", "ros1",
     [], [], [], [], "+2.2s", None, "latching"),
    ("turtles-ros1-latched-topics-cut", "rosbag/rosbagjs-example.bag", "ros1",
     ["re:/turtle2/.*", "/rosout"], ["/turtle2/.*", "/rosout"], ["/turtle2/cmd_vel"], ["/turtle2/cmd_vel"],
     "+3s", "+9s", "latching"),
]

# --where cases on ROS 1 bags: (id, corpus bag, our --where flags, our
# --exclude-topic flags, the `rosbag filter` expression that means the
# same).
WHERE_CASES = [
    ("imu-linear-acceleration", "sensors/robot_localization-test1.bag",
     ["/imu/data: linear_acceleration.z > 1.5"], [],
     "topic != '/imu/data' or m.linear_acceleration.z > 1.5"),
    ("imu-and-fix", "sensors/robot_localization-test1.bag",
     ["/imu/data: angular_velocity.z < -0.05 AND header.frame_id = 'imu_link'",
      "/fix: longitude > -71.1474"], ["/husky_velocity_controller/odom"],
     "topic != '/husky_velocity_controller/odom' and "
     "(topic != '/imu/data' or (m.angular_velocity.z < -0.05 and m.header.frame_id == 'imu_link')) and "
     "(topic != '/fix' or m.longitude > -71.1474)"),
    ("turtle-pose-and-rosout", "rosbag/rosbagjs-example.bag",
     ["/turtle1/pose: x > 5.5 AND theta > 3", "/rosout: level >= 4 OR name = '/sim'"], [],
     "(topic != '/turtle1/pose' or (m.x > 5.5 and m.theta > 3)) and "
     "(topic != '/rosout' or (m.level >= 4 or m.name == '/sim'))"),
    ("cartographer-imu", "sensors/cartographer_ros-b0-2014-07-21-12-42-53-tiny.bag",
     ["imu: angular_velocity.z > 0.01 OR linear_acceleration.x < -0.5"], [],
     "topic != 'imu' or (m.angular_velocity.z > 0.01 or m.linear_acceleration.x < -0.5)"),
]


@pytest.fixture(scope="module")
def corpus(manifest):
    d = manifest.get("corpus")
    if not d:
        pytest.skip("no corpus: the filter peer checks run on corpus files")
    return Path(d)


@pytest.fixture(scope="module")
def work(manifest):
    d = Path(manifest["work"]) / "filter"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    return d


def pymcap_cli():
    """pymcap-cli's script, in this interpreter's environment."""
    return Path(sys.executable).parent / "pymcap-cli"


def run(args):
    out = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    assert out.returncode == 0, f"{args}: exit {out.returncode}\n{out.stderr[-2000:]}"
    return out


def mcap_messages(path):
    """(log time, topic, publish time, payload) of every message, sorted."""
    out = []
    with open(path, "rb") as f:
        for _, channel, m in make_reader(f).iter_messages(log_time_order=False):
            out.append((m.log_time, channel.topic, m.publish_time, bytes(m.data)))
    return sorted(out)


def first_time(path):
    with open(path, "rb") as f:
        return make_reader(f).get_summary().statistics.message_start_time


def at(first, t):
    """The absolute ns of `t`: `+Ns` after `first`, or ns."""
    if isinstance(t, int):
        return t
    return first + round(float(t.strip("+s")) * 1e9)


def seconds(ns):
    return f"@{ns // 10**9}.{ns % 10**9:09d}"


def latching_topics(path):
    """The topics whose channels all carry ROS 1 `latching=1`."""
    with open(path, "rb") as f:
        channels = make_reader(f).get_summary().channels.values()
    by_topic = {}
    for c in channels:
        by_topic.setdefault(c.topic, []).append(c.metadata.get("latching") == "1")
    mixed = [t for t, v in by_topic.items() if any(v) and not all(v)]
    assert not mixed, f"topics with latched and unlatched channels (pymcap-cli's --latch takes a topic): {mixed}"
    return sorted(t for t, v in by_topic.items() if all(v))


@pytest.mark.parametrize("case", MCAP_CASES, ids=[c[0] for c in MCAP_CASES])
def test_topic_and_time_filter_equals_pymcap_cli(case, corpus, work, robolog, record):
    cid, rel, convert, ours_in, theirs_in, ours_ex, theirs_ex, start, end, latch = case
    src = corpus / rel
    if not src.exists():
        pytest.skip(f"{rel} is not in the corpus")
    if convert:
        mcap = work / f"{cid}-input.mcap"
        run([robolog, "convert", src, mcap, "--force"] + (["--ros2"] if convert == "ros2" else []))
        src = mcap
    ours, theirs = work / f"{cid}-robolog.mcap", work / f"{cid}-pymcap.mcap"
    a = [robolog, "filter", src, ours, "--force"]
    b = [pymcap_cli(), "filter", src, theirs, "--force", "--compression", "none"]
    for p in ours_in:
        a += ["--topic", p]
    for p in theirs_in:
        b += ["--topic", p]
    for p in ours_ex:
        a += ["--exclude-topic", p]
    for p in theirs_ex:
        b += ["--exclude-topic", p]
    first = first_time(src)
    for flag, rel_t in (("--start", start), ("--end", end)):
        if rel_t is None:
            continue
        ns = at(first, rel_t)
        a += [flag, seconds(ns)]
        b += [flag, str(ns)]
    if latch == "metadata":
        b.append("--latch-from-metadata")
    elif latch == "latching":
        topics = latching_topics(src)
        assert topics, f"{rel}: no latched topic"
        for t in topics:
            b += ["--latch", f"^{re.escape(t)}$"]
    run(a)
    run(b)
    got, want = mcap_messages(ours), mcap_messages(theirs)
    assert want, f"{cid}: pymcap-cli kept nothing: choose patterns that keep messages"
    if got != want:
        g, w = set(got), set(want)
        only_ours = sorted(g - w)[:5]
        only_theirs = sorted(w - g)[:5]
        pytest.fail(f"{cid}: {len(got)} messages, pymcap-cli {len(want)}; only ours "
                    f"{[x[:2] for x in only_ours]}, only pymcap-cli's {[x[:2] for x in only_theirs]}")
    if latch:
        cut = at(first, start)
        assert any(t < cut for t, *_ in got), f"{cid}: no latched message before the start was kept"
    record(filter=cid, messages=len(got))


class Time:
    """`t` of a `rosbag filter` expression (rospy.Time's fields)."""

    def __init__(self, ns):
        self.secs, self.nsecs = divmod(ns, 10**9)

    def to_sec(self):
        return self.secs + self.nsecs / 1e9

    def to_nsec(self):
        return self.secs * 10**9 + self.nsecs


class Lazy:
    """`m` of a `rosbag filter` expression, deserialised by rosbags when
    the expression first looks into it."""

    def __init__(self, reader, conn, raw):
        self._args = (reader, conn, raw)
        self._m = None

    def __getattr__(self, name):
        if self._m is None:
            reader, conn, raw = self._args
            self._m = reader.deserialize(raw, conn.msgtype)
        return getattr(self._m, name)


def rosbag_filter(path, expr):
    """`rosbag filter IN OUT EXPR` without ROS: the (time, topic, bytes) of
    the messages the expression keeps, in the input's order."""
    from rosbags.highlevel import AnyReader

    code = compile(expr, "<rosbag filter expression>", "eval")
    out = []
    with AnyReader([Path(path)]) as r:
        for conn, t, raw in r.messages():
            if eval(code, {}, {"topic": conn.topic, "m": Lazy(r, conn, raw), "t": Time(t)}):
                out.append((t, conn.topic, bytes(raw)))
    return out


def bag_messages(path):
    from rosbags.highlevel import AnyReader

    with AnyReader([Path(path)]) as r:
        return [(t, conn.topic, bytes(raw)) for conn, t, raw in r.messages()]


@pytest.mark.parametrize("case", WHERE_CASES, ids=[c[0] for c in WHERE_CASES])
def test_where_equals_rosbag_filter_semantics(case, corpus, work, robolog, record):
    cid, rel, wheres, excludes, expr = case
    src = corpus / rel
    if not src.exists():
        pytest.skip(f"{rel} is not in the corpus")
    out = work / f"{cid}.bag"
    args = [robolog, "filter", src, out, "--force"]
    for w in wheres:
        args += ["--where", w]
    for x in excludes:
        args += ["--exclude-topic", x]
    run(args)
    want = rosbag_filter(src, expr)
    got = bag_messages(out)
    everything = bag_messages(src)
    # A condition that keeps all or none of its topic's messages checks
    # nothing.
    for topic in {w.split(":")[0] for w in wheres}:
        n_in = sum(1 for _, tp, _ in everything if tp == topic)
        n_out = sum(1 for _, tp, _ in want if tp == topic)
        assert 0 < n_out < n_in, f"{cid}: {topic}: the condition keeps {n_out} of {n_in}"
    if sorted(got) != sorted(want):
        g, w = set(got), set(want)
        pytest.fail(f"{cid}: {len(got)} messages, rosbag filter's semantics {len(want)} (of {len(everything)}); "
                    f"only ours {[x[:2] for x in sorted(g - w)[:5]]}, only theirs {[x[:2] for x in sorted(w - g)[:5]]}")
    assert [x[:2] for x in got] == sorted(x[:2] for x in got), f"{cid}: our output is not in log-time order"
    record(filter=cid, messages=len(got))
