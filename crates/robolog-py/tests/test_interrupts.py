"""Ctrl-C during a long call: the call raises KeyboardInterrupt soon, and
leaves no output behind (no file, no folder, no temporary copy). Each call
runs in a subprocess that is sent SIGINT once the work is seen to be under
way (its temporary output exists, or its query's threads run); the checks
are on what is left, not on times: before, each call ran to its end (the
output written, the bag decompressed, the query answered) and only then
raised."""

import os
import signal
import struct
import subprocess
import sys
import textwrap
import time

import pytest

from _rosbag2 import file_compressed_zeros_bag, write_metadata

CHILD = textwrap.dedent('''
    import sys
    import robolog

    what, src, dst = sys.argv[1:4]
    print("started", flush=True)
    try:
        if what == "convert":
            robolog.convert(src, dst, ros2=True)
        elif what == "export":
            robolog.export(src, dst)
        elif what == "open":
            robolog.open(src)
        elif what == "sql":
            robolog.sql("SELECT count(*) AS n FROM generate_series(1, 100000000000)", [src])
        print("finished")
    except KeyboardInterrupt:
        print("interrupted")
    except Exception as e:
        print("failed", type(e).__name__, e)
''')

# Looking for the work to be under way ends after this long (a guard
# against a hang, not a measure).
PATIENCE = 60


def bag_of(path, messages=40_000):
    """A ROS 1 bag of std_msgs/String messages of about 1 KB."""
    # The bags are written with rosbags' writer.
    pytest.importorskip("rosbags")
    from rosbags.rosbag1 import Writer
    from rosbags.typesys import Stores, get_typestore

    store = get_typestore(Stores.ROS1_NOETIC)
    text = b"x" * 1000
    payload = struct.pack("<I", len(text)) + text
    with Writer(path) as w:
        c = w.add_connection("/text", "std_msgs/msg/String", typestore=store)
        d = w.add_connection("/more", "std_msgs/msg/String", typestore=store)
        for i in range(messages):
            w.write(c if i % 2 else d, 1_000_000_000 + i * 1_000_000, payload)
    return path


def run_and_interrupt(what, src, dst, tmp, under_way):
    """Runs `what` in a subprocess with TMPDIR `tmp`, sends SIGINT once
    `under_way(pid)` is true, and returns its output."""
    env = dict(os.environ, TMPDIR=str(tmp))
    child = subprocess.Popen([sys.executable, "-c", CHILD, what, str(src), str(dst)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout.readline() == "started\n"
        give_up = time.monotonic() + PATIENCE
        while not under_way(child.pid):
            assert child.poll() is None, "the call ended before it was seen under way"
            assert time.monotonic() < give_up, "the call was never seen under way"
            time.sleep(0.002)
        os.kill(child.pid, signal.SIGINT)
        out, err = child.communicate(timeout=PATIENCE)
    finally:
        child.kill()
        child.wait()
    assert child.returncode == 0, (child.returncode, out, err)
    return out


def temporaries(folder):
    """The hidden temporary outputs in `folder`."""
    return [n for n in os.listdir(folder) if n.startswith(".") and "-tmp-" in n]


def thread_names(pid):
    """The names of the process's threads (a thread may end while read)."""
    names = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/comm") as f:
                names.append(f.read().strip())
        except OSError:
            pass
    return names


@pytest.fixture
def scratch(tmp_path):
    (tmp_path / "tmp").mkdir()
    return tmp_path


def test_convert_to_a_ros2_bag(scratch):
    src = bag_of(scratch / "in.bag")
    dst = scratch / "out"
    out = run_and_interrupt("convert", src, dst, scratch / "tmp",
                            lambda pid: temporaries(scratch) != [])
    assert out == "interrupted\n"
    assert not dst.exists()
    assert temporaries(scratch) == []
    assert os.listdir(scratch / "tmp") == []


def test_export(scratch):
    src = bag_of(scratch / "in.bag")
    dst = scratch / "csv"
    out = run_and_interrupt("export", src, dst, scratch / "tmp",
                            lambda pid: dst.is_dir() and temporaries(dst) != [])
    assert out == "interrupted\n"
    assert not dst.exists()
    assert sorted(os.listdir(scratch)) == ["in.bag", "tmp"]


def test_open_of_a_file_compressed_ros2_bag(scratch):
    # A bag whose one storage file decompresses to 400 MiB (of zeros: no
    # SQLite database, which only a complete decompression finds out).
    bag = file_compressed_zeros_bag(scratch / "bag", 400 << 20)
    tmp = scratch / "tmp"
    out = run_and_interrupt("open", bag, "-", tmp, lambda pid: any(
        os.path.getsize(os.path.join(d, f)) > 0 for d, _, fs in os.walk(tmp) for f in fs))
    assert out == "interrupted\n"
    assert os.listdir(tmp) == []


def test_sql_over_generate_series(scratch):
    src = bag_of(scratch / "in.bag", messages=10)
    # The query runs on threads of its own, named for it and started with
    # it (a count of threads taken once the call may have begun misses
    # them).
    out = run_and_interrupt("sql", src, "-", scratch / "tmp",
                            lambda pid: "robolog-sql" in thread_names(pid))
    assert out == "interrupted\n"


# Calls whose work leaves no file to watch for: the child interrupts itself.
# A timer signal arrives every millisecond; its handler raises
# KeyboardInterrupt only when it runs in the calling frame while the call
# is in robolog's native module (between the call's c_call and c_return,
# which a profile function sees): that is, when the call looks for
# signals while its Rust work runs. Run anywhere else (Python code before,
# after or inside the call, such as pandas'), it does nothing. Before, these
# calls did not look for signals: the handler never ran in the calling
# frame during the call, and the call finished; now it raises
# KeyboardInterrupt from inside, and leaves nothing in TMPDIR. (The work
# must outlast a few looks for signals, 20 ms apart: it is read from a log
# of 200,000 messages.)
SELF_INTERRUPTED = textwrap.dedent('''
    import os, signal, sys, time
    import robolog
    import robolog._robolog as native

    what, src, tmp = sys.argv[1:4]
    caller = None

    def ours(f):
        if what == "next":
            # The wait is in the iterator's __next__, which next() calls.
            return f is next
        owner = getattr(f, "__self__", None)
        return getattr(f, "__name__", None) == what and (
            owner is native or isinstance(owner, robolog.Log))

    def profile(frame, event, arg):
        global caller
        if event == "c_call" and ours(arg):
            caller = frame
        elif event in ("c_return", "c_exception") and ours(arg):
            caller = None

    def on_alarm(signum, frame):
        if caller is not None and frame is caller:
            raise KeyboardInterrupt

    log = robolog.open(src) if what in ("table", "dataframes", "scan", "next") else None
    rare = log.messages(topics=["rare"]) if what == "next" else None
    if what == "dataframes":
        # What the call imports (pandas, pyarrow) imported before.
        robolog.open(os.environ["WARM"]).dataframes()
    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
    sys.setprofile(profile)
    try:
        if what == "table":
            log.table("/a")
        elif what == "dataframes":
            log.dataframes()
        elif what == "scan":
            log.scan("many", flatten=True)
        elif what == "next":
            next(rare)
        elif what == "check":
            robolog.check(src)
        else:
            robolog.open(src)
        result = "finished"
    except KeyboardInterrupt:
        result = "interrupted"
    except Exception as e:
        result = f"failed {type(e).__name__} {e}"
    sys.setprofile(None)
    signal.setitimer(signal.ITIMER_REAL, 0)
    print(result)
    print("left", sorted(os.listdir(tmp)))
''')


def run_self_interrupted(what, src, tmp, warm="-"):
    env = dict(os.environ, TMPDIR=str(tmp), WARM=str(warm))
    done = subprocess.run([sys.executable, "-c", SELF_INTERRUPTED, what, str(src), str(tmp)],
                          capture_output=True, text=True, env=env, timeout=PATIENCE)
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    return done.stdout


def small_bag(path, topics, per_topic):
    """A ROS 1 bag of short std_msgs/String messages on `topics`."""
    # The bags are written with rosbags' writer.
    pytest.importorskip("rosbags")
    from rosbags.rosbag1 import Writer
    from rosbags.typesys import Stores, get_typestore

    store = get_typestore(Stores.ROS1_NOETIC)
    payload = struct.pack("<I", 8) + b"abcdefgh"
    with Writer(path) as w:
        cs = [w.add_connection(t, "std_msgs/msg/String", typestore=store) for t in topics]
        for i in range(per_topic):
            for c in cs:
                w.write(c, 1_000_000_000 + i * 1_000_000, payload)
    return path


@pytest.fixture(scope="module")
def two_topics(tmp_path_factory):
    folder = tmp_path_factory.mktemp("logs")
    return (small_bag(folder / "in.bag", ["/a", "/b"], 100_000),
            small_bag(folder / "warm.bag", ["/a", "/b"], 10))


@pytest.mark.parametrize("what", ["table", "dataframes", "check"])
def test_reading_a_log(scratch, two_topics, what):
    src, warm = two_topics
    out = run_self_interrupted(what, src, scratch / "tmp", warm)
    assert out == "interrupted\nleft []\n"


def ulog_of(path, rows):
    """A ULog of `rows` samples of the message "many" and then one of
    "rare": what a scan of "many" or the messages of "rare" wait for is
    a pass over the whole file."""
    def message(kind, payload):
        return struct.pack("<HB", len(payload), ord(kind)) + payload

    out = bytearray(b"ULog\x01\x12\x35\x01" + struct.pack("<Q", 0))
    out += message("B", bytes(40))
    for name in (b"many", b"rare"):
        out += message("F", name + b":uint64_t timestamp;float x;")
    out += message("A", struct.pack("<BH", 0, 0) + b"many")
    out += message("A", struct.pack("<BH", 0, 1) + b"rare")
    out += message("D", struct.pack("<HQf", 0, 1000, 1.5)) * rows
    out += message("D", struct.pack("<HQf", 1, 2000, 2.5))
    path.write_bytes(bytes(out))
    return path


@pytest.mark.parametrize("what", ["scan", "next"])
def test_waiting_for_a_reading_thread(scratch, what):
    # Log.scan waits for its thread's schema (here: the whole flattened
    # table), and an iterator of messages for its thread's next chunk
    # (here: the one message at the end).
    src = ulog_of(scratch / "in.ulg", 3_000_000)
    out = run_self_interrupted(what, src, scratch / "tmp")
    assert out == "interrupted\nleft []\n"


def test_open_of_a_ros2_bag_with_a_write_ahead_log(scratch):
    # The database beside a write-ahead log of 64 MiB of frames (of zero
    # pages, sparse), which is copied with it to be read: the copy stops,
    # and is removed. (Before, the copy ran to its end; the bag then failed
    # to open, the frames being no database's.)
    bag = scratch / "bag"
    bag.mkdir()
    db = bag / "bag_0.db3"
    db.write_bytes(b"SQLite format 3\x00" + bytes(4096 - 16))
    page = 65536
    salt = b"\x11\x22\x33\x44\x55\x66\x77\x88"
    with open(str(db) + "-wal", "wb") as f:
        f.write(struct.pack(">III", 0x377F0682, 3007000, page) + bytes(4) + salt + bytes(8))
        for i in range(1024):
            f.seek(32 + i * (24 + page))
            f.write(struct.pack(">II", 1, 0) + salt + bytes(8))
        f.truncate(32 + 1024 * (24 + page))
    write_metadata(bag, "bag_0.db3", version=5)
    out = run_self_interrupted("open", bag, scratch / "tmp")
    assert out == "interrupted\nleft []\n"
