#!/usr/bin/env python3
"""Speed of the Python package against the command line (docs/PYTHON.md).

For each FMSD 100k log (../shared/bench/fmsd/*/log-100k.csv): the best wall
time of `hindsight run --quiet` (the CLI, default engine) and of
`hindsight.run` in this interpreter, over --runs runs each, alternating.
Then Monitor.step (one call per event) and Monitor.step_many on FMSD access
100k, events per second (the events are read into a list first; only the
stepping is timed).

Usage (with the package installed: pip install ./python):
  python3 benches/python_api.py [--bin target/release/hindsight] [--runs 5]
"""

import argparse
import csv
import os
import subprocess
import sys
import time

import hindsight

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FMSD = os.path.join(ROOT, "..", "shared", "bench", "fmsd")


def best(fn, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "hindsight"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=None, help="both sides' --jobs")
    args = parser.parse_args()
    jobs = [] if args.jobs is None else ["--jobs", str(args.jobs)]
    print(f"{'log':<16} {'cli s':>8} {'python s':>9} {'ratio':>6}")
    for name in sorted(os.listdir(FMSD)):
        spec = os.path.join(FMSD, name, "spec.qtl")
        log = os.path.join(FMSD, name, "log-100k.csv")
        if not os.path.exists(log):
            continue
        cli_t, py_t = [], []
        for _ in range(args.runs):
            cli_t.append(best(lambda: subprocess.run(
                [args.bin, "run", "--quiet", *jobs, spec, log],
                stdout=subprocess.DEVNULL, check=False), 1))
            py_t.append(best(lambda: hindsight.run(spec, log, jobs=args.jobs), 1))
        c, p = min(cli_t), min(py_t)
        print(f"{name:<16} {c:8.3f} {p:9.3f} {p / c:6.2f}")
    spec_text = open(os.path.join(FMSD, "access", "spec.qtl")).read()
    with open(os.path.join(FMSD, "access", "log-100k.csv"), newline="") as f:
        events = [tuple(row) for row in csv.reader(f) if row]
    n = len(events)

    def one_by_one():
        m = hindsight.Monitor(spec_text)
        step = m.step
        for e in events:
            step(*e)

    def many():
        hindsight.Monitor(spec_text).step_many(events)

    t = best(one_by_one, args.runs)
    print(f"Monitor.step      {n} events {t:.3f} s  {n / t:12,.0f} events/s")
    t = best(many, args.runs)
    print(f"Monitor.step_many {n} events {t:.3f} s  {n / t:12,.0f} events/s")


if __name__ == "__main__":
    sys.exit(main())
