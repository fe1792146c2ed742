"""A file truncated or overwritten by another process while robolog reads
it through its memory map: the reading call raises OSError naming the
file, and the interpreter goes on (without the package's SIGBUS guard the
process died with SIGBUS, exit -7). Each case runs in a subprocess, whose
exit code and output are checked."""

import os
import shutil
import struct
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

# The changing files are written with python mcap's writer.
pytest.importorskip("mcap.writer")

# Writes an uncompressed MCAP file of std_msgs/String messages (about 7 MB,
# many chunks), opens it, has another process truncate it (`messages`: after
# the first message, while the reading thread is still reading; `table`:
# before the table is read) or rewrite it shorter in place (`overwrite`, as
# `cp new.mcap PATH` does), and reads on. Without the guard each case ends
# the interpreter with SIGBUS (exit -7).
SCRIPT = textwrap.dedent(r'''
    import os, struct, subprocess, sys
    from mcap.writer import CompressionType, Writer
    import robolog

    path, mode = sys.argv[1], sys.argv[2]
    with open(path, "wb") as f:
        w = Writer(f, chunk_size=64 << 10, compression=CompressionType.NONE)
        w.start(profile="ros1", library="test")
        sid = w.register_schema("std_msgs/String", "ros1msg", b"string data")
        cid = w.register_channel("/text", "ros1", sid)
        payload = struct.pack("<I", 200) + b"x" * 200
        for i in range(30_000):
            w.add_message(cid, log_time=i, publish_time=i, data=payload)
        w.finish()

    def cut():
        # Another process changes the file.
        if mode == "overwrite":
            # `cp` rewrites the same file (same inode), shorter.
            with open(path + ".new", "wb") as f:
                f.write(b"\x89MCAP0\r\n" + bytes(100))
            subprocess.run(["cp", path + ".new", path], check=True)
        else:
            subprocess.run([sys.executable, "-c", "import os, sys; os.truncate(sys.argv[1], 4096)",
                            path], check=True)

    log = robolog.open(path)
    try:
        if mode == "messages":
            it = log.messages(raw=True)
            first = next(it)
            assert first.data == payload, first
            cut()
            n = 1
            for m in it:
                n += 1
            print("read", n, "messages")
        else:
            cut()
            t = log.table("/text")
            print("read", t.num_rows, "rows")
    except OSError as e:
        print("raised", type(e).__name__, e)
    # The interpreter is alive, and the same log still refuses to read.
    try:
        log.table("/text")
    except OSError as e:
        print("again", type(e).__name__, e)
    print("alive")
''')


@pytest.mark.parametrize("mode", ["messages", "table", "overwrite"])
def test_a_file_changed_while_read_is_an_oserror_naming_it(tmp_path, mode):
    path = tmp_path / "changing.mcap"
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(path), mode],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    message = f"{path} changed while being read (truncated or overwritten)"
    assert done.stdout.splitlines() == [
        f"raised OSError {message}",
        f"again OSError {message}",
        "alive",
    ], done.stderr


TESTDATA = Path(__file__).resolve().parents[3] / "testdata"

# A view's getter reading what open left in the map (a ULog's logged
# messages) after the file was truncated to nothing: before, the getter gave
# the zeros the guard put in place of the file (messages of NUL bytes); now
# it raises the OSError naming the file.
VIEW_SCRIPT = textwrap.dedent(r'''
    import os, sys
    import robolog

    path = sys.argv[1]
    log = robolog.open(path)
    os.truncate(path, 0)
    try:
        print("read", [m.message for m in log.ulog.logged_messages][:1])
    except OSError as e:
        print("raised", type(e).__name__, e)
    print("alive")
''')


def test_a_view_getter_of_a_changed_file_is_an_oserror(tmp_path):
    path = tmp_path / "example.ulg"
    shutil.copyfile(TESTDATA / "ulog/example.ulg", path)
    done = subprocess.run([sys.executable, "-c", VIEW_SCRIPT, str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    assert done.stdout.splitlines() == [
        f"raised OSError {path} changed while being read (truncated or overwritten)",
        "alive",
    ], done.stderr


# A conversion or export whose input is truncated while it runs: the
# output written from the zeros the guard reads is dropped before it would
# be renamed into place. Before, the call raised the OSError but left the
# output (an MCAP file, a ROS 2 bag, CSV files) made of zeros in place.
JOB_SCRIPT = textwrap.dedent(r'''
    import sys
    import robolog

    what, src, dst = sys.argv[1:4]
    print("started", flush=True)
    try:
        if what == "mcap":
            robolog.convert(src, dst)
        elif what == "ros2":
            robolog.convert(src, dst, ros2=True)
        else:
            robolog.export(src, dst)
        print("finished")
    except OSError as e:
        print("raised", type(e).__name__, e)
''')


def big_bag(path, messages=40_000):
    """A ROS 1 bag of std_msgs/String messages of about 1 KB (40 MB)."""
    from rosbags.rosbag1 import Writer
    from rosbags.typesys import Stores, get_typestore

    store = get_typestore(Stores.ROS1_NOETIC)
    text = b"x" * 1000
    payload = struct.pack("<I", len(text)) + text
    with Writer(path) as w:
        c = w.add_connection("/text", "std_msgs/msg/String", typestore=store)
        for i in range(messages):
            w.write(c, 1_000_000_000 + i * 1_000_000, payload)
    return path


def hidden_temporaries(folder):
    return [n for n in os.listdir(folder) if n.startswith(".") and "-tmp-" in n]


@pytest.mark.parametrize("what", ["mcap", "ros2", "export"])
def test_no_output_is_left_from_a_file_changed_while_converted(tmp_path, what):
    src = big_bag(tmp_path / "in.bag")
    dst = tmp_path / {"mcap": "out.mcap", "ros2": "out", "export": "csv"}[what]
    child = subprocess.Popen([sys.executable, "-c", JOB_SCRIPT, what, str(src), str(dst)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "started\n"
        # Truncated once the output is being written.
        folder = dst if what == "export" else tmp_path
        give_up = time.monotonic() + 60
        while not (folder.is_dir() and hidden_temporaries(folder)):
            assert child.poll() is None, "the call ended before it was seen under way"
            assert time.monotonic() < give_up, "the call was never seen under way"
            time.sleep(0.002)
        os.truncate(src, 4096)
        out, err = child.communicate(timeout=120)
    finally:
        child.kill()
        child.wait()
    assert child.returncode == 0, (child.returncode, out, err)
    assert out == f"raised OSError {src} changed while being read (truncated or overwritten)\n", err
    assert sorted(os.listdir(tmp_path)) == ["in.bag"]


# robolog.check of a file truncated while it is checked (by the process
# itself, from a signal handler the check runs when it looks for Ctrl-C):
# the check opens and drops its map within the call. Before, the change was
# looked for after the map was gone, so the check returned a report of the
# zeros it read; now it raises the OSError naming the file.
CHECK_SCRIPT = textwrap.dedent(r'''
    import os, signal, sys
    import robolog
    import robolog._robolog as native

    path = sys.argv[1]
    caller = None

    def profile(frame, event, arg):
        global caller
        if getattr(arg, "__self__", None) is native and getattr(arg, "__name__", "") == "check":
            caller = frame if event == "c_call" else None

    def on_alarm(signum, frame):
        global caller
        if caller is not None and frame is caller:
            caller = None
            os.truncate(path, 4096)

    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
    sys.setprofile(profile)
    try:
        report = robolog.check(path)
        print("checked", report.passed)
    except OSError as e:
        print("raised", type(e).__name__, e)
    sys.setprofile(None)
    signal.setitimer(signal.ITIMER_REAL, 0)
''')


def test_a_file_changed_while_checked_is_an_oserror(tmp_path):
    path = big_bag(tmp_path / "in.bag")
    done = subprocess.run([sys.executable, "-c", CHECK_SCRIPT, str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == (
        f"raised OSError {path} changed while being read (truncated or overwritten)\n"
    ), done.stderr
