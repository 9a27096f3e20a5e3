#!/usr/bin/env python3
"""What two cores can give a run, against what `--jobs 2` gives.

usage: benches/ceiling.py SPEC LOG [--runs N] [--bin PATH] [--warmup LINES]

Times, in pairs (one after the other, N times, so that the machine's drift
over minutes touches both alike), whole processes:

  seq    `hindsight run --jobs 1 SPEC LOG`
  jobs2  `hindsight run --jobs 2 SPEC LOG`
  halves two `--jobs 1` runs at once, on the first half of LOG and on its
         second half preceded by --warmup lines (default 2% of the log),
         with nothing shared: no reading, routing or merging of the other
         half, and no duplicated work. On a machine whose two cores each
         ran as fast as one core alone, this would take half of `seq`; the
         ratio it reaches is the most any split of the work can reach.

and prints the median (min, max) of seq/jobs2 and seq/halves. The halves'
verdicts are not those of the whole log (the second half's monitor starts
late); only their time is used.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def timed(cmds):
    """Wall seconds of running `cmds` at once, to the last one's end."""
    start = time.monotonic()
    procs = [subprocess.Popen(c, stdout=subprocess.DEVNULL) for c in cmds]
    for p in procs:
        if p.wait() not in (0, 1):
            sys.exit(f"{p.args} failed with status {p.returncode}")
    return time.monotonic() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spec")
    ap.add_argument("log")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--bin", default="target/release/hindsight")
    ap.add_argument("--warmup", type=int, default=None)
    a = ap.parse_args()
    with open(a.log, "rb") as f:
        lines = f.readlines()
    half = len(lines) // 2
    warm = a.warmup if a.warmup is not None else len(lines) // 50
    tmp = tempfile.mkdtemp()
    first = os.path.join(tmp, "first.csv")
    second = os.path.join(tmp, "second.csv")
    with open(first, "wb") as f:
        f.writelines(lines[:half])
    with open(second, "wb") as f:
        f.writelines(lines[max(0, half - warm):])
    del lines

    def run(jobs, log):
        return [a.bin, "run", "--jobs", str(jobs), a.spec, log]

    ratios = {"jobs2": [], "halves": []}
    for _ in range(a.runs):
        seq = timed([run(1, a.log)])
        ratios["jobs2"].append(seq / timed([run(2, a.log)]))
        seq2 = timed([run(1, a.log)])
        ratios["halves"].append(seq2 / timed([run(1, first), run(1, second)]))
    print(f"{a.log}: {a.runs} pairs each, seq / other (median, min, max)")
    for name, r in ratios.items():
        print(f"  {name:7} {statistics.median(r):.2f}x  ({min(r):.2f}x, {max(r):.2f}x)")
    for p in (first, second):
        os.remove(p)
    os.rmdir(tmp)


if __name__ == "__main__":
    main()
