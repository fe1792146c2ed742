"""robolog.check, robolog.convert and robolog.export against the robolog
command's own results for the same files, and their errors: the
functions are the command's jobs with reports instead of exit codes."""

import csv
import json
from pathlib import Path

import pytest

import robolog
from _corpus import TESTDATA, cli, corpus_dir

CHECKED = [
    TESTDATA / "rosbag" / "sample.bag",
    TESTDATA / "rosbag" / "truncated.bag",
    TESTDATA / "ulog" / "example.ulg",
    TESTDATA / "mcap" / "chunked-zstd.mcap",
]


@pytest.mark.parametrize("path", CHECKED, ids=lambda p: p.name)
def test_check_reports_what_the_command_reports(path):
    report = robolog.check(path)
    out, code = cli("check", "--json", path)
    assert report.report == json.loads(out)
    assert report.passed == (code == 0)
    assert bool(report) == report.passed
    if not report.passed:
        assert report.errors


def test_check_of_a_ros2_bag_folder():
    d = corpus_dir()
    if d is None:
        pytest.skip("no corpus")
    report = robolog.check(d / "rosbag2" / "sqlite3" / "cdr_test")
    assert report.passed and report.errors == []
    assert report.report["messages_checked"] == 7
    assert report.report["format"] == "rosbag2"


def test_convert_writes_what_the_command_writes(tmp_path):
    src = TESTDATA / "rosbag" / "sample.bag"
    r = robolog.convert(src, tmp_path / "ours.mcap")
    _, code = cli("convert", src, tmp_path / "theirs.mcap")
    assert code == 0
    assert (tmp_path / "ours.mcap").read_bytes() == (tmp_path / "theirs.mcap").read_bytes()
    with robolog.open(src) as log:
        assert r.messages == log.message_count
        assert r.channels == len(log.channels)
    assert r.skipped == [] and r.warnings == []
    # It exists now: refused without force, replaced with it.
    with pytest.raises(FileExistsError):
        robolog.convert(src, tmp_path / "ours.mcap")
    assert robolog.convert(src, tmp_path / "ours.mcap", force=True, topics=["/count"]).messages == 30
    with pytest.raises(KeyError):
        robolog.convert(src, tmp_path / "x.mcap", topics=["/nope"])
    with pytest.raises(ValueError):
        robolog.convert(src, tmp_path / "x.txt")
    with pytest.raises(FileExistsError):
        robolog.convert(src, src.with_suffix(".bag"), force=True)
    assert not (tmp_path / "x.mcap").exists()


def test_convert_with_force_replaces_only_a_ros2_bag_folder(tmp_path):
    src = TESTDATA / "rosbag" / "sample.bag"
    proj = tmp_path / "proj"
    (proj / "src").mkdir(parents=True)
    (proj / "metadata.yaml").write_text("x: 1\n")
    (proj / "src" / "code.py").write_text("print('mine')\n")
    with pytest.raises(FileExistsError, match="is not a rosbag2 bag folder") as e:
        robolog.convert(src, proj, ros2=True, force=True)
    assert "`metadata.yaml` is not rosbag2 metadata" in str(e.value)
    assert (proj / "metadata.yaml").read_text() == "x: 1\n"
    assert (proj / "src" / "code.py").read_text() == "print('mine')\n"
    # A bag folder is replaced; with a file more, it is refused.
    out = tmp_path / "out"
    assert robolog.convert(src, out, ros2=True).messages == 75
    assert robolog.convert(src, out, ros2=True, force=True).messages == 75
    (out / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="`notes.txt`"):
        robolog.convert(src, out, ros2=True, force=True)
    assert (out / "notes.txt").read_text() == "mine"


def test_export_writes_what_the_command_writes(tmp_path):
    src = TESTDATA / "rosbag" / "sample.bag"
    r = robolog.export(src, tmp_path / "ours")
    _, code = cli("export", src, "-o", tmp_path / "theirs")
    assert code == 0
    names = sorted(p.name for p in (tmp_path / "theirs").iterdir())
    assert sorted(Path(t.path).name for t in r.tables) == names
    for t in r.tables:
        ours = Path(t.path).read_bytes()
        assert ours == (tmp_path / "theirs" / Path(t.path).name).read_bytes()
        with open(t.path, newline="") as f:
            rows = list(csv.reader(f))
        assert len(rows) - 1 == t.rows and len(rows[0]) == t.columns
    assert r.problems == []
    with pytest.raises(FileExistsError):
        robolog.export(src, tmp_path / "ours")
    with pytest.raises(KeyError):
        robolog.export(src, tmp_path / "other", topics=["/nope"])


def test_errors_are_python_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        robolog.check(tmp_path / "missing.bag")
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"not a log at all")
    with pytest.raises(robolog.FormatError) as e:
        robolog.convert(junk, tmp_path / "out.mcap")
    assert e.value.offset == 0
    assert not (tmp_path / "out.mcap").exists()
