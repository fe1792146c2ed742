"""robolog.filter(config=...): the TOML file of `robolog filter --config`
gives the output of the same keyword arguments byte for byte, the
arguments add to its lists and replace its values, and what the schema
refuses raises ValueError naming the line. The outputs are compared with
rosbags' reading of the input, with the conditions evaluated in Python."""

import pytest

import robolog

pytest.importorskip("rosbags")
from rosbags.highlevel import AnyReader  # noqa: E402

IMU, FIX, ODOM = "/imu/data", "/fix", "/husky_velocity_controller/odom"


def bag(corpus):
    return corpus / "sensors" / "robot_localization-test1.bag"


def read(path):
    """(topic, log time, raw bytes, decoded message) of every message."""
    with AnyReader([path]) as r:
        return [(c.topic, t, bytes(raw), r.deserialize(raw, c.msgtype)) for c, t, raw in r.messages()]


def toml(tmp_path, text, name="rewrite.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_a_config_gives_the_bytes_of_the_same_arguments(corpus, tmp_path):
    src = bag(corpus)
    first = min(t for _, t, *_ in read(src))
    end = 1432235640 * 10**9  # 2015-05-21T19:14:00Z
    cfg = toml(tmp_path, f"""
topics = ["/imu/*", "re:/f.x", "/husky*/**"]
exclude = "/husky*/**"
start = 30
end = 2015-05-21T19:14:00Z
shift = "-1.5s"

[where]
"{IMU}" = "linear_acceleration.z > 0.5"

[rename]
"{FIX}" = "/gps/fix"
""")
    a, b = tmp_path / "config.bag", tmp_path / "kwargs.bag"
    robolog.filter(src, a, config=cfg)
    robolog.filter(src, b, topics=["/imu/*", "re:/f.x", "/husky*/**"], exclude=["/husky*/**"], start=30.0,
                   end="2015-05-21T19:14:00Z", shift="-1.5s", where={IMU: "linear_acceleration.z > 0.5"},
                   rename={FIX: "/gps/fix"})
    assert a.read_bytes() == b.read_bytes()
    want = [("/gps/fix" if tp == FIX else tp, t - 1_500_000_000, raw)
            for tp, t, raw, m in read(src)
            if tp in (IMU, FIX) and first + 30 * 10**9 <= t < end
            and (tp != IMU or m.linear_acceleration.z > 0.5)]
    assert want and [(tp, t, raw) for tp, t, raw, _ in read(a)] == want
    # A time on the log's clock, to the nanosecond.
    cut = first + 123_456_789_123
    cfg = toml(tmp_path, f'topics = "{FIX}"\nend = "@{cut // 10**9}.{cut % 10**9:09d}"\n', "clock.toml")
    robolog.filter(src, a, config=cfg, force=True)
    robolog.filter(src, b, topics=[FIX], end=cut, force=True)
    assert a.read_bytes() == b.read_bytes()
    assert [t for _, t, *_ in read(a)] == [t for tp, t, *_ in read(src) if tp == FIX and t < cut]


def test_arguments_add_to_the_files_lists_and_replace_its_values(corpus, tmp_path):
    src = bag(corpus)
    everything = read(src)
    first = min(t for _, t, *_ in everything)
    cfg = toml(tmp_path, f"""
topics = ["{IMU}"]
end = "100s"
before = 1
after = 1

[where]
"{IMU}" = "linear_acceleration.z > 100"

[around]
"{IMU}" = "linear_acceleration.z > 3"
""")
    out = tmp_path / "o.bag"
    # topics adds /fix, end replaces 100 s, where replaces the file's,
    # around of the same topic holds where either holds.
    robolog.filter(src, out, config=cfg, topics=[FIX], end="2015-05-21T19:15:00Z",
                   where={IMU: "linear_acceleration.z > 0.5"}, around={IMU: "angular_velocity.z < -0.3"})
    end = 1432235700 * 10**9  # 2015-05-21T19:15:00Z
    events = sorted(t for tp, t, _, m in everything
                    if tp == IMU and (m.linear_acceleration.z > 3 or m.angular_velocity.z < -0.3))
    assert events
    inside = lambda t: any(e - 10**9 <= t <= e + 10**9 for e in events)  # noqa: E731
    want = [(tp, t) for tp, t, _, m in everything
            if tp in (IMU, FIX) and t < end and inside(t) and (tp != IMU or m.linear_acceleration.z > 0.5)]
    assert want and [(tp, t) for tp, t, *_ in read(out)] == want
    assert first < end


def test_what_the_schema_refuses_names_the_line(corpus, tmp_path):
    src = bag(corpus)
    cases = [
        ("topics = [\"/fix\"]\n\nexclude_topic = [\"/imu/data\"]\n", r"line 3: unknown key `exclude_topic`"),
        ("before = true\n", r"line 1: before: expected a duration"),
        ("[where]\n\"/fix\" = 3\n", r"line 2: where: expected a string expression, found an integer"),
        ("end = \n", r"line 1: not TOML"),
        ("topics = \"/fix\"\ncompression = \"lz4\"\n", r"compression is an option of the robolog filter command"),
    ]
    for i, (text, message) in enumerate(cases):
        cfg = toml(tmp_path, text, f"bad{i}.toml")
        with pytest.raises(ValueError, match=message) as e:
            robolog.filter(src, tmp_path / "never.bag", config=cfg)
        assert str(cfg) in str(e.value)
    with pytest.raises(FileNotFoundError):
        robolog.filter(src, tmp_path / "never.bag", config=tmp_path / "missing.toml")
    # A pattern of the file is checked as the argument's is.
    with pytest.raises(KeyError, match="/nope"):
        robolog.filter(src, tmp_path / "never.bag", config=toml(tmp_path, "topics = \"/nope/*\"\n", "p.toml"))
    assert not (tmp_path / "never.bag").exists()


def test_a_split_from_the_config_writes_the_arguments_parts(corpus, tmp_path):
    src = bag(corpus)
    cfg = toml(tmp_path, f'topics = "{FIX}"\nsplit_every = "2min"\n')
    a = robolog.filter(src, tmp_path / "config.bag", config=cfg)
    b = robolog.filter(src, tmp_path / "kwargs.bag", topics=[FIX], split_every="2min")
    assert len(a.parts) == len(b.parts) == 4
    for x, y in zip(a.parts, b.parts):
        assert open(x, "rb").read() == open(y, "rb").read()


def test_restamp_and_frame_ids_from_the_config_equal_the_arguments(corpus, tmp_path):
    src = bag(corpus)
    cfg = toml(tmp_path, f'topics = "{FIX}"\nrestamp = "header"\n[frame_id]\n"/gps" = "gps_antenna"\n')
    a, b = tmp_path / "config.bag", tmp_path / "kwargs.bag"
    robolog.filter(src, a, config=cfg)
    robolog.filter(src, b, topics=[FIX], restamp="header", frame_id={"/gps": "gps_antenna"})
    assert a.read_bytes() == b.read_bytes()
    got = read(a)
    assert got and all(m.header.frame_id == "gps_antenna" for *_, m in got)
    assert [t for _, t, *_ in got] == sorted(m.header.stamp.sec * 10**9 + m.header.stamp.nanosec for *_, m in got)
