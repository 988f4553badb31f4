#!/usr/bin/env python3
"""G1 pauses of a -Xlog:gc* log (uptime decorations), split into inside and outside a time window.

usage: gc_pauses.py GC_LOG FROM_S TO_S
"""
import re
import sys

PAUSE = re.compile(r"\[(\d+\.\d+)s\] GC\(\d+\) (Pause .*?) \d+M->\d+M\(\d+M\) (\d+\.\d+)ms")


def main(path, start, end):
    inside, outside = [], []
    for line in open(path):
        m = PAUSE.search(line)
        if m:
            t, kind, ms = float(m.group(1)), m.group(2), float(m.group(3))
            (inside if start <= t <= end else outside).append((ms, t, kind))
    inside.sort()
    n = len(inside)
    print("%d pauses in %.0f-%.0f s: p50 %.1f ms, p99 %.1f ms, max %.1f ms, %.1f s in all"
          % (n, start, end, inside[n // 2][0], inside[int(n * 0.99)][0], inside[-1][0],
             sum(p[0] for p in inside) / 1000))
    print("outside the window, over 100 ms:")
    for ms, t, kind in sorted(outside, reverse=True):
        if ms > 100:
            print("  %7.1f s  %6.1f ms  %s" % (t, ms, kind))


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]), float(sys.argv[3]))
