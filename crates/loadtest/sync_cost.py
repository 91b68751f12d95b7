#!/usr/bin/env python3
"""What a synced append costs on this disk: to a file that grows with
each append, and over zeros the file already holds.

    python3 crates/loadtest/sync_cost.py [DIR] [APPENDS] [ROUNDS]

In DIR (default: the system's temporary directory), APPENDS (2,000)
appends of 120 bytes, each followed by `fdatasync`, to a new empty file
and then to one written full of zeros first; ROUNDS (3) times in turns.
Prints each run's median and p99 in microseconds. The table server's
event log writes over zeros (docs/architecture.md); the growing file is
what it did before.
"""

import os
import statistics
import sys
import tempfile
import time

RECORD = 120


def run(directory, appends, over_zeros):
    fd, path = tempfile.mkstemp(dir=directory)
    try:
        if over_zeros:
            os.write(fd, b"\0" * (appends * RECORD + 4096))
            os.fsync(fd)
        record = b"x" * RECORD
        took = []
        for i in range(appends):
            start = time.perf_counter_ns()
            os.pwrite(fd, record, i * RECORD)
            os.fdatasync(fd)
            took.append(time.perf_counter_ns() - start)
    finally:
        os.close(fd)
        os.unlink(path)
    took.sort()
    return statistics.median(took) / 1e3, took[int(0.99 * appends)] / 1e3


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else None
    appends = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    for _ in range(rounds):
        for over_zeros in (False, True):
            median, p99 = run(directory, appends, over_zeros)
            kind = "over zeros" if over_zeros else "growing   "
            print(f"{kind}  median {median:.0f} µs  p99 {p99:.0f} µs")


if __name__ == "__main__":
    main()
