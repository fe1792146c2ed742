"""Times pyulog 1.3.0 loading each file given: best of N loads, one line
of seconds per file (`cargo xtask bench ulog`). Usage: ulog_timer.py N
FILE..."""
import sys
import time

from pyulog import ULog


def main(n, paths):
    for p in paths:
        best = 1e9
        for _ in range(n):
            t = time.perf_counter()
            ULog(p)
            best = min(best, time.perf_counter() - t)
        print(best)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2:])
