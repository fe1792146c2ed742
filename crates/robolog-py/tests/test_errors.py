"""Errors: what is not a log, what is missing, what is cut short or
damaged; the library's errors as Python exceptions."""

import errno
import os
import random

import pytest

import robolog
from _corpus import TESTDATA, corpus_dir
from test_ulog import compare_with_pyulog


def random_bytes(n, seed):
    r = random.Random(seed)
    return bytes(r.randrange(256) for _ in range(n))


@pytest.mark.parametrize("seed", range(20))
def test_random_bytes_are_a_format_error_with_an_offset(seed):
    data = random_bytes(1 + seed * 97, seed)
    with pytest.raises(robolog.FormatError) as e:
        robolog.open(data)
    assert isinstance(e.value, ValueError)
    assert e.value.offset == 0
    assert e.value.path is None
    assert "at byte 0" in str(e.value)


def test_a_file_of_random_bytes_names_its_path(tmp_path):
    f = tmp_path / "noise.bin"
    f.write_bytes(random_bytes(4096, 1))
    with pytest.raises(robolog.FormatError) as e:
        robolog.open(f)
    assert e.value.path == str(f)
    assert e.value.offset == 0
    assert str(f) in str(e.value)


def test_random_bytes_behind_a_magic_are_a_format_error_with_an_offset():
    # A real header followed by noise: the error is past byte 0.
    bag = (TESTDATA / "rosbag" / "sample.bag").read_bytes()
    for seed in range(10):
        data = bag[:13] + random_bytes(2000, seed)
        try:
            log = robolog.open(data)
        except robolog.FormatError as e:
            assert e.offset is not None and e.offset >= 13, e
        else:
            # Read leniently: whatever was found is a problem with an offset.
            list(log.messages())
            assert log.problems and all("byte" in p for p in log.problems)


def test_an_unknown_version_is_unsupported():
    with pytest.raises(robolog.UnsupportedError) as e:
        robolog.open(b"#ROSBAG V9.9\n" + bytes(64))
    assert isinstance(e.value, robolog.FormatError)
    assert isinstance(e.value, ValueError)
    assert e.value.offset == 0
    assert "not supported" in str(e.value)


def test_a_missing_file_is_file_not_found(tmp_path):
    missing = tmp_path / "nope.bag"
    with pytest.raises(FileNotFoundError) as e:
        robolog.open(missing)
    assert e.value.errno == errno.ENOENT
    assert e.value.filename == str(missing)
    with pytest.raises(FileNotFoundError):
        robolog.open(str(missing))


def test_a_directory_is_an_os_error(tmp_path):
    with pytest.raises(OSError) as e:
        robolog.open(tmp_path)
    assert "directory" in str(e.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_an_unreadable_file_is_a_permission_error(tmp_path):
    f = tmp_path / "secret.bag"
    f.write_bytes((TESTDATA / "rosbag" / "sample.bag").read_bytes())
    f.chmod(0)
    with pytest.raises(PermissionError):
        robolog.open(f)


def test_a_wrong_argument_is_a_type_error():
    with pytest.raises(TypeError):
        robolog.open(42)


def test_a_truncated_bag_gives_the_messages_before_the_cut(tmp_path):
    data = (TESTDATA / "rosbag" / "sample.bag").read_bytes()
    with robolog.open(data) as full:
        everything = [(m.topic, m.log_time, m.data) for m in full.messages()]
        assert full.problems == []
    cut = len(data) // 2
    f = tmp_path / "cut.bag"
    f.write_bytes(data[:cut])
    with robolog.open(f) as log:
        got = [(m.topic, m.log_time, m.data) for m in log.messages()]
        problems = log.problems
    # The bag's messages are recorded in time order, so the messages
    # before the cut are the first ones.
    assert 0 < len(got) < len(everything)
    assert got == everything[: len(got)]
    # The record the cut is in, and the index the header points at past it.
    truncated = [p for p in problems if p.startswith("truncated at byte ")]
    assert truncated, problems
    at = int(truncated[0].split("at byte ")[1].split(":")[0])
    assert at < cut
    assert any("index" in p for p in problems), problems


def test_a_truncated_ulog_gives_the_messages_before_the_cut(tmp_path, corpus):
    src = corpus / "ulog" / "pyulog" / "sample_log_small.ulg"
    data = src.read_bytes()
    # Inside a message (the corpus README suggests this cut).
    cut = 500_000
    f = tmp_path / "cut.ulg"
    f.write_bytes(data[:cut])
    with robolog.open(f) as log:
        n = sum(1 for _ in log.messages())
        problems = log.problems
        assert n == log.message_count
        with robolog.open(src) as full:
            assert 0 < n < full.message_count
    assert any(p.startswith("truncated at byte") for p in problems), problems
    at = int(problems[0].split("at byte ")[1].split(":")[0])
    assert at < cut
    # Every message before the cut, value for value, as pyulog reads the
    # same cut file.
    assert compare_with_pyulog(f) > 0


def test_damage_in_the_middle_is_skipped_and_reported(corpus):
    data = bytearray((corpus / "ulog" / "pyulog" / "sample_log_small.ulg").read_bytes())
    with robolog.open(bytes(data)) as full:
        everything = {(m.topic, m.log_time, m.data) for m in full.messages(raw=True)}
    data[800_000:800_064] = b"\xff" * 64
    with robolog.open(bytes(data)) as log:
        got = [(m.topic, m.log_time, m.data) for m in log.messages(raw=True)]
        problems = log.problems
    assert 0 < len(got) < len(everything)
    # ULog has no checksums: a message whose header is before the damage
    # keeps its (damaged) payload; every other message is one of the file's.
    assert len(set(got) - everything) <= 1
    assert any(p.startswith("skipped ") and "at byte 8000" in p for p in problems), problems


def test_the_corpus_has_what_these_tests_cut():
    if corpus_dir() is not None:
        assert (corpus_dir() / "ulog" / "pyulog" / "sample_log_small.ulg").is_file()
