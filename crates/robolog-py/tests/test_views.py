"""The bag and CARLA views, and that each view is None for a log of
another format.

- Log.bag: every connection of every testdata and corpus bag equals what
  rosbags 0.11.9's reader reads (id, topic, type, md5sum, definition,
  callerid, latching, message count), and its header holds the raw fields
  the record stores;
- Log.carla: CARLA's reports equal what `robolog carla info|collisions|
  blocked` prints; the actors, their spawn and removal frames, and the
  frames equal the EventAdd, EventDel and FrameStart messages `robolog
  cat --json` prints;
- Log.rosbag2: a ROS 2 bag's storage, metadata version, distribution,
  files and topics with their QoS profiles, from its metadata.yaml or from
  a lone .db3.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

import robolog
from _corpus import BAGS, REPO, STATS, TESTDATA, corpus_files, file_id
from _values import differs

EXE = os.environ.get("ROBOLOG_EXE")

BAG_FILES = sorted((TESTDATA / "rosbag").glob("*.bag")) + BAGS
CARLA_FILES = sorted((TESTDATA / "carla").glob("*.rec")) + corpus_files("carla", "*.log")


def cli(*args):
    """The robolog command's stdout (skip when it is not built)."""
    exe = EXE or str(REPO / "target" / "debug" / "robolog")
    if not Path(exe).is_file():
        pytest.skip(f"no robolog command at {exe}")
    p = subprocess.run([exe, *map(str, args)], capture_output=True, text=True)
    assert p.returncode in (0, 1), p.stderr
    return p.stdout


@pytest.mark.parametrize("path", BAG_FILES, ids=file_id)
def test_bag_connections_equal_rosbags(path):
    rosbag1 = pytest.importorskip("rosbags.rosbag1")
    from rosbags.typesys.msg import normalize_msgtype

    with robolog.open(path) as log:
        view = log.bag
        assert view is not None and log.ulog is None and log.mcap is None and log.carla is None
        conns = view.connections
        assert view.version in ("2.0", "1.2")
        for c in conns:
            h = c.header
            # The topic is the record's; the connection header may repeat it.
            assert h.get("topic", c.topic.encode()).decode() == c.topic
            assert h["type"].decode() == c.type
            assert h["md5sum"].decode() == c.md5sum
            assert h.get("message_definition", b"").decode() == c.message_definition
            assert (h["callerid"].decode() if "callerid" in h else None) == c.callerid
        assert sum(c.message_count for c in conns) == log.message_count or log.problems
        if view.version != "2.0":
            STATS["bag views read (1.2, no rosbags reference)"] += 1
            return
        try:
            reader = rosbag1.Reader(path)
            reader.open()
        except Exception as e:
            pytest.skip(f"rosbags cannot read it: {e!r}")
        try:
            want = {
                x.id: (
                    normalize_msgtype(x.msgtype),
                    x.digest,
                    x.msgdef.data,
                    x.ext.callerid,
                    bool(x.ext.latching),
                    x.msgcount,
                )
                for x in reader.connections
            }
            topics = {x.id: x.topic for x in reader.connections}
        finally:
            reader.close()
        got = {
            c.id: (
                normalize_msgtype(c.type),
                c.md5sum,
                c.message_definition,
                c.callerid,
                c.latching,
                c.message_count,
            )
            for c in conns
        }
        assert got == want
        assert {c.id: c.topic.lstrip("/") for c in conns} == {
            i: t.lstrip("/") for i, t in topics.items()
        }
    STATS["bag connections compared with rosbags"] += len(conns)


def cat_lines(path, topic):
    return [json.loads(line) for line in cli("cat", "--json", "--topic", topic, path).splitlines()]


@pytest.mark.parametrize("path", CARLA_FILES, ids=file_id)
def test_carla_view_equals_the_command(path):
    with robolog.open(path) as log:
        view = log.carla
        assert view is not None and log.ulog is None and log.mcap is None and log.bag is None
        assert view.info() == cli("carla", "info", path)
        assert view.info(True) == cli("carla", "info", "--show-all", path)
        assert view.info(fixed=True, utc_offset=3600) == cli(
            "carla", "info", "--fixed", "--utc-offset", "+01:00", path
        )
        assert view.collisions() == cli("carla", "collisions", path)
        assert view.collisions("v", "a", fixed=True) == cli(
            "carla", "collisions", "--type1", "v", "--fixed", path
        )
        assert view.actors_blocked() == cli("carla", "blocked", path)
        assert view.actors_blocked(5.0, 20.0) == cli(
            "carla", "blocked", "--min-time", "5", "--min-distance", "20", path
        )
        head = view.info().splitlines()
        assert head[0] == f"Version: {view.version}" and head[1] == f"Map: {view.map}"
        topics = {c.topic for c in log.topics}
        frames = view.frames
        assert view.frame_count == len(frames) > 0
        assert (view.start_time, view.end_time) == (frames[0].elapsed, frames[-1].elapsed)
        starts = cat_lines(path, "FrameStart")
        # Times in int ns: a frame's elapsed time is its messages' log_time,
        # its duration the stored float seconds rounded to the ns.
        assert [(f.id, f.elapsed, f.duration) for f in frames] == [
            (s["data"]["frame"], s["log_time_ns"], round(s["data"]["duration"] * 1e9))
            for s in starts
        ]
        assert view.start_time == log.start
        frame_at = {s["log_time_ns"]: s["data"] for s in starts}
        # The actors as the EventAdd and EventDel records of each frame
        # make them (adds before removals, as the packets come).
        want = []
        events = []
        for t in ("EventAdd", "EventDel", "EventParent"):
            if t in topics:
                events += [(line["log_time_ns"], t, line["data"]["records"]) for line in cat_lines(path, t)]
        order = {"EventAdd": 0, "EventDel": 1, "EventParent": 2}
        for when, kind, records in sorted(events, key=lambda e: (e[0], order[e[1]])):
            frame = frame_at[when]
            for r in records:
                if kind == "EventAdd":
                    want.append(
                        {
                            "id": r["id"],
                            "type": r["type_name"],
                            "description": r["description"],
                            "attributes": {a["id"]: a["value"] for a in r["attributes"]},
                            "location": [r["location"][k] for k in "xyz"],
                            "rotation": [r["rotation"][k] for k in "xyz"],
                            "added_frame": frame["frame"],
                            "added_time": when,
                            "removed_frame": None,
                            "removed_time": None,
                            "parent": None,
                        }
                    )
                    continue
                alive = [a for a in want if a["id"] == r["id"]]
                if not alive:
                    continue
                if kind == "EventDel":
                    alive[-1]["removed_frame"] = frame["frame"]
                    alive[-1]["removed_time"] = when
                else:
                    alive[-1]["parent"] = r["parent"]
        got = [
            {
                "id": a.id,
                "type": a.type,
                "description": a.description,
                "attributes": a.attributes,
                "location": list(a.location),
                "rotation": list(a.rotation),
                "added_frame": a.added_frame,
                "added_time": a.added_time,
                "removed_frame": a.removed_frame,
                "removed_time": a.removed_time,
                "parent": a.parent,
            }
            for a in view.actors
        ]
        assert len(got) == len(want)
        for g, w in zip(got, want):
            d = differs(g, w, f"actor {w['id']}", f32_text=True)
            assert d is None, d
        STATS["CARLA actors compared with cat --json"] += len(want)
    STATS["CARLA files whose view equals the command"] += 1


QOS = """\
        offered_qos_profiles:
          - history: keep_last
            depth: 10
            reliability: reliable
            durability: transient_local
            deadline:
              sec: 0
              nsec: 0
            lifespan:
              sec: 5
              nsec: 20
            liveliness: automatic
            liveliness_lease_duration:
              sec: 0
              nsec: 0
            avoid_ros_namespace_conventions: false
"""


def test_rosbag2_view_is_the_bags_metadata(tmp_path):
    out = tmp_path / "r2"
    robolog.convert(TESTDATA / "rosbag" / "sample.bag", out, ros2=True)
    meta = out / "metadata.yaml"
    text = meta.read_text()
    # The first topic (/chatter) gets an offered QoS profile.
    meta.write_text(text.replace("        offered_qos_profiles: []\n", QOS, 1))
    with robolog.open(out) as log:
        assert (log.format, log.bag, log.ulog, log.mcap, log.carla) == (
            "rosbag2", None, None, None, None)
        v = log.rosbag2
        assert (v.storage, v.version, v.ros_distro) == ("sqlite3", 9, "jazzy")
        assert (v.compression_format, v.compression_mode) == (None, None)
        assert v.files == [str(out / "r2_0.db3")]
        assert v.metadata_path == str(meta)
        assert [(t.id, t.name, t.type, t.serialization_format, t.metadata_message_count)
                for t in v.topics] == [
            (1, "/chatter", "std_msgs/msg/String", "cdr", 15),
            (2, "/count", "std_msgs/msg/Int32", "cdr", 30),
            (3, "/point", "geometry_msgs/msg/PointStamped", "cdr", 30),
        ]
        assert [t.id for t in v.topics] == [c.id for c in log.channels]
        chatter, count, _ = v.topics
        assert chatter.type_description_hash == (
            "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18")
        assert chatter.qos_profiles == [{
            "history": "keep_last",
            "depth": 10,
            "reliability": "reliable",
            "durability": "transient_local",
            "deadline": (0, 0),
            "lifespan": (5, 20),
            "liveliness": "automatic",
            "liveliness_lease_duration": (0, 0),
            "avoid_ros_namespace_conventions": False,
        }]
        assert "depth: 10" in chatter.offered_qos_profiles
        assert (count.qos_profiles, count.offered_qos_profiles) == ([], "")
        assert repr(v) == "<robolog.Rosbag2View sqlite3: 3 topics, 1 files>"
    # A lone storage file: no metadata, the counts and version unknown.
    with robolog.open(out / "r2_0.db3") as log:
        v = log.rosbag2
        assert (v.storage, v.version, v.ros_distro, v.metadata_path) == (
            "sqlite3", None, None, None)
        assert [(t.name, t.metadata_message_count) for t in v.topics] == [
            ("/chatter", None), ("/count", None), ("/point", None)]


def test_views_are_none_for_other_formats():
    with robolog.open(TESTDATA / "vellog" / "sensors.vel") as log:
        assert (log.ulog, log.bag, log.mcap, log.carla, log.rosbag2) == (
            None, None, None, None, None)
    log = robolog.open(TESTDATA / "ulog" / "example.ulg")
    view = log.ulog
    log.close()
    # A view keeps the log it was made from readable.
    assert isinstance(view.msg_info_dict, dict)
    with pytest.raises(ValueError):
        log.ulog
