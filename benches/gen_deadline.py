#!/usr/bin/env python3
"""Generate a timestamped trace for the per-command deadline benchmark.

usage: gen_deadline.py EVENTS LIVE > trace.timed.csv

Every time unit, about 2*LIVE/5 commands are dispatched; each completes exactly
at its due time, 0 to 5 units after its dispatch, so about LIVE commands are in
flight at any time. Under
    Forall m . complete(m) -> P[<=3] dispatch(m)
the completions 4 or 5 units late (about a third) are violations. Seeded, so
the trace is the same on every run.
"""
import collections
import random
import sys

def main():
    events, live = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(42)
    write = sys.stdout.write
    due = collections.defaultdict(list)  # time -> commands completing then
    per_tick = max(1, 2 * live // 5)
    n, t, nxt = 0, 0, 0
    while n < events:
        for _ in range(per_tick):
            if n >= events:
                break
            nxt += 1
            write(f"dispatch,c{nxt},{t}\n")
            due[t + rng.randint(0, 5)].append(nxt)
            n += 1
        for c in due.pop(t, []):
            if n >= events:
                break
            write(f"complete,c{c},{t}\n")
            n += 1
        t += 1

main()
