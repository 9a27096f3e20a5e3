#!/usr/bin/env python3
"""A long MonPoly log of the FMSD lock events: the log on standard input
(one event per time-point, `@TS name (thread,lock)` or `@TS sleep (thread)`)
repeated COPIES times, each copy's threads renumbered (thread + k * 100000)
and its time stamps moved past the copy before (+ k * 200000), so that no
copy's state reaches into the next one's.

usage: benches/gen_locks_monpoly.py COPIES < log-100k.monpoly > long.monpoly
"""
import re
import sys

EVENT = re.compile(r"@(\d+) (\w+) \(([^)]*)\)")


def main():
    copies = int(sys.argv[1])
    lines = sys.stdin.read().splitlines()
    out = sys.stdout
    for k in range(copies):
        for line in lines:
            m = EVENT.match(line)
            if not m:
                continue
            args = m.group(3).split(",")
            args[0] = str(int(args[0]) + k * 100000)
            out.write(f"@{int(m.group(1)) + k * 200000:07d} {m.group(2)} ({','.join(args)})\n")


if __name__ == "__main__":
    main()
