"""Threads: two threads read two logs (and one log) at once with the right
answers, and Python threads run while robolog reads (the GIL is released)."""

import hashlib
import sys
import threading
import time

import pytest

import robolog
from _corpus import TESTDATA


def answer(log_or_path):
    """What reading a log gives: per topic, a digest of every message
    (time, decoded value) and of every table's rows."""
    def read(log):
        out = {}
        for c in log.topics:
            h = hashlib.sha256()
            for m in log.messages(c.topic):
                h.update(f"{m.log_time} {m.data!r}".encode())
            t = log.table(c.topic).to_pyarrow()
            out[c.topic] = (h.hexdigest(), t.num_rows, t.to_pylist()[-1:])
        return out

    if isinstance(log_or_path, robolog.Log):
        return read(log_or_path)
    with robolog.open(log_or_path) as log:
        return read(log)


def in_threads(jobs):
    """Runs the callables at once, one thread each; their results."""
    barrier = threading.Barrier(len(jobs))
    results = [None] * len(jobs)
    errors = []

    def run(i, job):
        try:
            barrier.wait()
            results[i] = job()
        except BaseException as e:  # reported by the test
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i, j)) for i, j in enumerate(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results


def test_two_threads_read_two_logs_at_once(corpus):
    paths = [
        corpus / "ulog" / "pyulog" / "sample.ulg",
        corpus / "rosbag" / "ccny-laser_ortho_projector-demo.bag",
    ]
    expected = [answer(p) for p in paths]
    assert all(expected)
    for _ in range(2):
        assert in_threads([lambda p=p: answer(p) for p in paths]) == expected


def test_two_threads_read_one_log_at_once():
    with robolog.open(TESTDATA / "rosbag" / "sample-bz2.bag") as log:
        expected = answer(log)
        assert in_threads([lambda: answer(log), lambda: answer(log)]) == [expected, expected]


class Counter:
    """A Python thread counting as fast as the GIL lets it."""

    def __init__(self):
        self.n = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run)

    def run(self):
        while not self.stop.is_set():
            self.n += 1
            # Lets the GIL go: with the huge switch interval of the test,
            # the main thread gets it back only when this thread sleeps.
            time.sleep(0.0001)

    def __enter__(self):
        self.old = sys.getswitchinterval()
        # Threads switch only where one lets the GIL go (sleeping, I/O,
        # robolog's reading): a thread holding it is never made to.
        sys.setswitchinterval(1000.0)
        self.thread.start()
        while self.n == 0:
            time.sleep(0.001)
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        sys.setswitchinterval(self.old)


def counts_during(counter, call, tries=100):
    """Whether the counter thread counted while `call` ran. The call is
    repeated (up to `tries` times) until it did: on a loaded machine the
    counting thread may not be scheduled during one short call, but it is
    during one of many, if the calls let the GIL go at all; if they never
    do, it never counts (the switch interval leaves it no other chance)."""
    for _ in range(tries):
        before = counter.n
        call()
        if counter.n > before:
            return True
    return False


def test_a_python_thread_counts_while_a_table_is_built(corpus):
    path = corpus / "rosbag" / "ccny-laser_ortho_projector-demo.bag"
    with robolog.open(path) as log:
        topic = max(log.topics, key=lambda c: c.message_count).topic
        with Counter() as counter:
            # The control: pure Python holds the GIL, and the counter stands.
            assert not counts_during(counter, lambda: sum(range(200_000)), tries=10)
            # robolog lets the GIL go while it reads and decodes.
            assert counts_during(counter, lambda: log.table(topic))
        assert log.table(topic).num_rows > 0


def test_a_python_thread_counts_while_a_log_opens_and_messages_are_read(corpus):
    path = corpus / "ulog" / "pyulog" / "sample_logging_tagged_and_default_params.ulg"
    with Counter() as counter:
        assert counts_during(counter, lambda: robolog.open(path))
        log = robolog.open(path)
        assert counts_during(counter, lambda: sum(1 for _ in log.messages()))
    assert sum(1 for _ in log.messages()) == log.message_count


def test_an_abandoned_iterator_stops_its_thread():
    log = robolog.open(TESTDATA / "rosbag" / "sample.bag")
    threads = threading.active_count()
    for _ in range(50):
        it = log.messages()
        next(it)
        del it
    # The reading threads are not Python threads, so nothing to count here;
    # what matters is that nothing hangs and the log still reads.
    assert threading.active_count() == threads
    assert sum(1 for _ in log.messages()) == log.message_count


@pytest.mark.parametrize("raw", [False, True])
def test_one_iterator_from_two_threads_is_refused_or_works(raw):
    # An iterator is not shared between threads; doing so raises a
    # RuntimeError in one of them rather than crashing or hanging.
    log = robolog.open(TESTDATA / "rosbag" / "sample.bag")
    it = log.messages(raw=raw)
    seen = []
    failures = []

    def drain():
        try:
            for m in it:
                seen.append(m.log_time)
        except RuntimeError as e:
            failures.append(e)

    threads = [threading.Thread(target=drain) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures or len(seen) == log.message_count
