"""robolog.filter(anonymise=True, gps_offset=..., drop_text=True) and the
filter of ULog files into ULog files, checked with pyulog and rosbags:
pyulog reads every message of the output, positions differ from the
input's by exactly the offset, and no identifier of the input is left
anywhere in the output's bytes."""

import numpy as np
import pytest

import robolog

pyulog = pytest.importorskip("pyulog")


def ulog(corpus, name):
    path = corpus / "ulog" / "pyulog" / name
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return path


def test_ulog_cut_keeps_the_definitions(corpus, tmp_path):
    src = ulog(corpus, "sample_logging_tagged_and_default_params.ulg")
    a = pyulog.ULog(str(src))
    lo = a.start_timestamp + (a.last_timestamp - a.start_timestamp) // 3
    out = tmp_path / "cut.ulg"
    report = robolog.filter(src, out, topics=["vehicle_*"], start=f"@{lo / 1e6:.6f}")
    b = pyulog.ULog(str(out))
    assert not b.file_corruption
    assert b.msg_info_dict == a.msg_info_dict
    assert b.initial_parameters == a.initial_parameters
    assert b._default_parameters == a._default_parameters
    src_data = {(d.name, d.multi_id): d for d in a.data_list}
    assert b.data_list and all(d.name.startswith("vehicle_") for d in b.data_list)
    for d in b.data_list:
        s = src_data[(d.name, d.multi_id)]
        m = s.data["timestamp"] >= lo
        for k, v in d.data.items():
            assert np.array_equal(v, s.data[k][m], equal_nan=True), (d.name, k)
    assert report.messages == sum(len(d.data["timestamp"]) for d in b.data_list)
    # The dry run counts the same.
    dry = robolog.filter(src, topics=["vehicle_*"], start=f"@{lo / 1e6:.6f}", dry_run=True)
    assert [(c.topic, c.kept) for c in dry.topics] == [(c.topic, c.kept) for c in report.topics]


def test_anonymised_ulog(corpus, tmp_path):
    src = ulog(corpus, "sample_log_small.ulg")
    data = src.read_bytes()
    a = pyulog.ULog(str(src))
    uuid = a.msg_info_dict["sys_uuid"]
    assert uuid.encode() in data
    out = tmp_path / "anon.ulg"
    report = robolog.filter(src, out, anonymise=True, gps_offset=(1.5, -2.25), drop_text=True)
    written = out.read_bytes()
    assert uuid.encode().lower() not in written.lower()
    assert any("vehicle_gps_position" in line for line in report.anonymised)
    assert all("1.5" not in line and "2.25" not in line for line in report.anonymised)
    b = pyulog.ULog(str(out))
    assert not b.file_corruption
    assert "sys_uuid" not in b.msg_info_dict
    assert b.logged_messages == []
    gps_a = next(d for d in a.data_list if d.name == "vehicle_gps_position")
    gps_b = next(d for d in b.data_list if d.name == "vehicle_gps_position")
    fix = (gps_a.data["lat"] != 0) | (gps_a.data["lon"] != 0)
    assert fix.any()
    assert (gps_b.data["lat"][fix].astype(np.int64) - gps_a.data["lat"][fix] == 15_000_000).all()
    assert (gps_b.data["lon"][fix].astype(np.int64) - gps_a.data["lon"][fix] == -22_500_000).all()
    assert (gps_b.data["lat"][~fix] == 0).all()
    for k in gps_a.data:
        if k not in ("lat", "lon"):
            assert np.array_equal(gps_a.data[k], gps_b.data[k], equal_nan=True), k


def test_ulog_shift_rename_and_parts(corpus, tmp_path):
    src = ulog(corpus, "sample_log_small.ulg")
    a = pyulog.ULog(str(src))
    out = tmp_path / "moved.ulg"
    robolog.filter(src, out, shift="2.5s", rename={"vehicle_gps_position": "gps"})
    b = pyulog.ULog(str(out))
    assert not b.file_corruption
    assert b.start_timestamp == a.start_timestamp + 2_500_000
    got = {(d.name, d.multi_id): d for d in b.data_list}
    for d in a.data_list:
        e = got[("gps" if d.name == "vehicle_gps_position" else d.name, d.multi_id)]
        assert (e.data["timestamp"] == d.data["timestamp"] + 2_500_000).all(), d.name
    # Parts: each a ULog pyulog reads, together the input's samples.
    report = robolog.filter(src, tmp_path / "part.ulg", split_every="5s")
    assert len(report.parts) >= 2
    count = {}
    for p in report.parts:
        part = pyulog.ULog(p)
        assert not part.file_corruption
        assert part.initial_parameters == a.initial_parameters
        for d in part.data_list:
            count[(d.name, d.multi_id)] = count.get((d.name, d.multi_id), 0) + len(d.data["timestamp"])
    assert count == {(d.name, d.multi_id): len(d.data["timestamp"]) for d in a.data_list}


def test_anonymised_navsatfix_bag(corpus, tmp_path):
    pytest.importorskip("rosbags")
    from rosbags.highlevel import AnyReader

    src = corpus / "sensors" / "robot_localization-test1.bag"
    if not src.exists():
        pytest.skip(f"{src} is absent")

    def read(path):
        with AnyReader([path]) as r:
            return [(c.topic, t, bytes(raw), r.deserialize(raw, c.msgtype)) for c, t, raw in r.messages()]

    before = read(src)
    out = tmp_path / "anon.bag"
    report = robolog.filter(src, out, anonymise=True)
    after = read(out)
    assert len(before) == len(after)
    offsets = set()
    for (ta, xa, ra, ma), (tb, xb, rb, mb) in zip(before, after):
        assert (ta, xa) == (tb, xb)
        if ta != "/fix":
            assert ra == rb
            continue
        assert mb.altitude == ma.altitude and mb.header.frame_id == ma.header.frame_id
        offsets.add((round(mb.latitude - ma.latitude, 7), round(mb.longitude - ma.longitude, 7)))
    assert len(offsets) == 1
    lat, lon = offsets.pop()
    assert 1 <= abs(lat) < 5 and 1 <= abs(lon) < 10
    assert any(line.startswith("positions moved") and "/fix" in line for line in report.anonymised)


def test_refusals(corpus, tmp_path):
    src = ulog(corpus, "sample.ulg")
    with pytest.raises(ValueError):
        robolog.filter(src, tmp_path / "x.txt")
    with pytest.raises(Exception, match="whole microseconds"):
        robolog.filter(src, tmp_path / "x.ulg", shift="1.0000005s")
    with pytest.raises(Exception, match="restamp"):
        robolog.filter(src, tmp_path / "x.ulg", restamp="header")
    assert not (tmp_path / "x.ulg").exists()


def test_config_file_keys(corpus, tmp_path):
    src = ulog(corpus, "sample_log_small.ulg")
    config = tmp_path / "share.toml"
    config.write_text("anonymise = true\ngps_offset = [1.5, -2.25]\ndrop_text = true\n")
    a, b = tmp_path / "a.ulg", tmp_path / "b.ulg"
    robolog.filter(src, a, anonymise=True, gps_offset=(1.5, -2.25), drop_text=True)
    report = robolog.filter(src, b, config=config)
    assert report.anonymised
    assert a.read_bytes() == b.read_bytes()
