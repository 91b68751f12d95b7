#!/usr/bin/env python3
"""Draws the load benchmark's figures as an SVG, with the standard library.

Reads the CSV that `baghchal-load --csv FILE` appends to (one row a run, a
column `target` that is `server` or `ceiling`) and draws, against the
offered rate (unpaced runs at their accepted rate), the p50 and p99
latency from an action to every subscriber and the CPU per action, one
line per target. Rows of the same target and rate (several seeds) are
drawn at their median.

    python3 crates/loadtest/plot.py figures.csv docs/performance.svg

Given the memory trace of `baghchal-load --memory-csv FILE` instead (a
column `rss_mib`), it draws each target's resident memory against the
seconds of play, one line per target and seed.
"""

import csv
import statistics
import sys
from collections import defaultdict
from xml.sax.saxutils import escape

WIDTH, HEIGHT = 880, 340
PANEL_W, PANEL_H = 360, 240
COLOURS = {"server": "#c0392b", "ceiling": "#2471a3"}
# Any other target (say `server-before`, for a run of an earlier build).
OTHER = "#7f8c8d"


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def load(rows):
    """(target, rate) -> list of rows."""
    runs = defaultdict(list)
    for row in rows:
        rate = number(row["rate"]) or number(row["actions_per_s"])
        if rate:
            runs[(row["target"], rate)].append(row)
    return runs


def medians(runs, column):
    """target -> sorted [(rate, median of column)]."""
    lines = defaultdict(list)
    for (target, rate), rows in runs.items():
        values = [v for v in (number(r[column]) for r in rows) if v is not None]
        if values:
            lines[target].append((rate, statistics.median(values)))
    return {t: sorted(points) for t, points in lines.items()}


def panel(x0, y0, title, unit, series, xlabel="actions/s"):
    """One chart: series is [(label, dash, {target: points})]."""
    points = [p for _, _, lines in series for ps in lines.values() for p in ps]
    if not points:
        return []
    xmax = max(x for x, _ in points) * 1.05
    ymax = max(y for _, y in points) * 1.1 or 1.0
    sx = lambda x: x0 + 50 + (PANEL_W - 60) * x / xmax
    sy = lambda y: y0 + PANEL_H - 30 - (PANEL_H - 50) * y / ymax
    out = [
        f'<text x="{x0 + PANEL_W / 2}" y="{y0 + 12}" text-anchor="middle" '
        f'font-weight="bold">{escape(title)}</text>',
        f'<line x1="{sx(0)}" y1="{sy(0)}" x2="{sx(xmax)}" y2="{sy(0)}" stroke="#000"/>',
        f'<line x1="{sx(0)}" y1="{sy(0)}" x2="{sx(0)}" y2="{sy(ymax)}" stroke="#000"/>',
        f'<text x="{x0 + PANEL_W / 2}" y="{y0 + PANEL_H}" text-anchor="middle">'
        f"{escape(xlabel)}</text>",
        f'<text x="{x0 + 10}" y="{y0 + 30}">{escape(unit)}</text>',
    ]
    for i in range(5):
        xv, yv = xmax * i / 4, ymax * i / 4
        out.append(
            f'<text x="{sx(xv)}" y="{sy(0) + 14}" text-anchor="middle" '
            f'font-size="10">{xv:.0f}</text>'
        )
        out.append(
            f'<text x="{sx(0) - 4}" y="{sy(yv) + 3}" text-anchor="end" '
            f'font-size="10">{yv:.3g}</text>'
        )
    for label, dash, lines in series:
        for target, ps in sorted(lines.items()):
            colour = COLOURS.get(target, OTHER)
            path = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in ps)
            out.append(
                f'<polyline points="{path}" fill="none" stroke="{colour}" '
                f'stroke-width="2" stroke-dasharray="{dash}"/>'
            )
            for x, y in ps:
                out.append(
                    f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3" fill="{colour}"/>'
                )
    return out


def memory(rows):
    """(target, seed) -> [(seconds, MiB)]."""
    traces = defaultdict(list)
    for row in rows:
        seconds, mib = number(row["seconds"]), number(row["rss_mib"])
        if seconds is not None and mib is not None:
            traces[(row["target"], row["seed"])].append((seconds, mib))
    return traces


def memory_svg(traces):
    dashes = ["", "4 3", "1 3", "8 3"]
    seeds = sorted({seed for _, seed in traces})
    series = [
        (seed, dashes[seeds.index(seed) % len(dashes)], {target: sorted(points)})
        for (target, seed), points in sorted(traces.items())
    ]
    title = "resident memory while playing"
    body = panel(20, 20, title, "MiB", series, xlabel="seconds of play")
    return document(body, sorted({target for target, _ in traces}))


def document(body, targets=("server", "ceiling")):
    legend_y = HEIGHT - 30
    for i, target in enumerate(targets):
        colour = COLOURS.get(target, OTHER)
        x = 60 + i * 160
        body.append(
            f'<rect x="{x}" y="{legend_y - 10}" width="14" height="10" fill="{colour}"/>'
        )
        body.append(f'<text x="{x + 20}" y="{legend_y}">{target}</text>')
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'font-family="sans-serif" font-size="12">\n'
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>\n'
        + "\n".join(body)
        + "\n</svg>\n"
    )


def svg(runs):
    latency = [
        ("p50", "4 3", medians(runs, "p50_ms")),
        ("p99", "", medians(runs, "p99_ms")),
    ]
    cpu = [("CPU", "", medians(runs, "cpu_us_per_action"))]
    body = panel(20, 20, "action → every subscriber", "ms (dashed p50, solid p99)", latency)
    body += panel(460, 20, "CPU per action", "µs of the server", cpu)
    return document(body)


def main(argv):
    if len(argv) != 3:
        sys.exit(f"usage: {argv[0]} FIGURES.csv OUT.svg")
    with open(argv[1], newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
        is_trace = "rss_mib" in (reader.fieldnames or [])
    if is_trace:
        traces = memory(rows)
        if not traces:
            sys.exit(f"{argv[1]} holds no sample")
        image = memory_svg(traces)
    else:
        runs = load(rows)
        if not runs:
            sys.exit(f"{argv[1]} holds no run")
        image = svg(runs)
    with open(argv[2], "w") as f:
        f.write(image)


if __name__ == "__main__":
    main(sys.argv)
