#!/usr/bin/env python3
"""Where a process's CPU goes an action, from a `perf record -g` profile.

Each sample is put down to what its stack runs: in the kernel, the system
call it is under (`sendto`, `pwrite64`, ...), or interrupts, or
scheduling; in user space, the kind of code its innermost frame is in
(SQLite, the runtime and the websockets, allocation and copies, JSON, the
project's own code, the rest). Multiplied by the process's CPU an action,
measured in a run without the profiler, each share becomes microseconds
an action, to set beside another process's (the ceiling's).

    perf record -F 999 -e cpu-clock -g -p PID -o FILE -- sleep 10
    crates/loadtest/split.py FILE US_AN_ACTION

`US_AN_ACTION` is the process's CPU an action (`baghchal-load` prints
it). It needs `perf`.
"""

import collections
import re
import subprocess
import sys

# User-space kinds, by the innermost frame's symbol, first match wins.
KINDS = [
    ("SQLite", re.compile(r"sqlite|pcache|^wal[A-Z]|pager|[bB]tree|[vV]dbe|balance|insertCell|fillInCell|^unix[A-Z]")),
    ("JSON", re.compile(r"serde_json|serde::|ryu|itoa")),
    ("allocation and copies", re.compile(r"malloc|free|_int_|realloc|memmove|memcpy|memset|alloc::")),
    ("runtime and websockets", re.compile(r"tokio|futures|mio::|tungstenite|hyper|axum")),
    ("own code", re.compile(r"baghchal")),
]

SYSCALL = re.compile(r"__x64_sys_(\w+)|__do_sys_(\w+)|do_sys_(\w+)")


def samples(path):
    """Yields each sample's frames, innermost first, as (symbol, dso)."""
    out = subprocess.run(
        ["perf", "script", "-i", path, "-F", "ip,sym,dso"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for block in out.split("\n\n"):
        frames = []
        for line in block.strip().splitlines():
            m = re.match(r"\s*[0-9a-f]+\s+(.*)\s+\((.*)\)\s*$", line)
            if m:
                frames.append((m.group(1), m.group(2)))
        if frames:
            yield frames


def kind(frames):
    symbol, dso = frames[0]
    if "kernel" in dso:
        for sym, _ in frames:
            m = SYSCALL.search(sym)
            if m:
                return "kernel: " + next(g for g in m.groups() if g)
        if any("irq" in sym for sym, _ in frames):
            return "kernel: interrupts"
        if any("schedule" in sym for sym, _ in frames):
            return "kernel: scheduling"
        return "kernel: other"
    for name, pattern in KINDS:
        if pattern.search(symbol):
            return name
    return "the rest of user space"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    path, per_action = sys.argv[1], float(sys.argv[2])
    counts = collections.Counter(kind(frames) for frames in samples(path))
    total = sum(counts.values())
    if total == 0:
        sys.exit("no samples")
    kernel = sum(n for k, n in counts.items() if k.startswith("kernel"))
    print(f"{'where':40} {'samples':>8} {'share':>7} {'µs an action':>13}")
    rows = [("kernel, all of it", kernel)] + counts.most_common()
    for name, n in rows:
        share = n / total
        print(f"{name:40} {n:8} {100 * share:6.1f}% {share * per_action:13.2f}")
    print(f"({total} samples; {per_action} µs an action in all)")


if __name__ == "__main__":
    main()
