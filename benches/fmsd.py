#!/usr/bin/env python3
"""The FMSD benchmark suite: the six properties of ../shared/bench/fmsd on
their shared logs, with ratios to the reference's analysis times in
../shared/bench/REFERENCE.md.

usage: benches/fmsd.py [--bin PATH] [--log log-100k.csv] [--runs N] [--only access,file] [--jobs N]

Each row: property, events, seconds (wall, whole process, best of --runs),
user CPU seconds of that run, peak RSS, violations and the violating event
numbers, the reference's analysis time and the ratio reference / ours
(higher is better; the issue's target is 20x), and whether the run met
the targets (ratio >= 20 and RSS <= 40 MB). The wall time is the figure
to compare; on a busy machine user time is the steadier one. --jobs is
passed to `hindsight run` (default 1: the sequential engine; `--jobs 0`
passes none, so the run takes its default, the number of cores).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FMSD = os.path.join(ROOT, "..", "shared", "bench", "fmsd")
REFERENCE = os.path.join(ROOT, "..", "shared", "bench", "REFERENCE.md")
PROPS = ["access", "file", "fifo", "locks-basic", "locks-cycles", "locks-datarace"]


def reference(log):
    """property -> the reference's analysis seconds on `log` (FMSD table)."""
    ref = {}
    if not os.path.exists(REFERENCE):
        return ref
    row = re.compile(r"^\|\s*fmsd\s*\|\s*([\w-]+)\s*\|\s*([\w.-]+)\s*\|\s*([\d.]+)\s*\|")
    with open(REFERENCE) as f:
        for line in f:
            m = row.match(line)
            if m and m.group(2) == log:
                ref[m.group(1)] = float(m.group(3))
    return ref


def run_once(cmd):
    """Wall seconds, user seconds, peak RSS (KB), exit status and stdout."""
    cmd = ["/usr/bin/time", "-f", "%U %M"] + cmd
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    user, rss = proc.stderr.decode().strip().splitlines()[-1].split()
    return wall, float(user), int(rss), proc.returncode, proc.stdout.decode()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "hindsight"))
    ap.add_argument("--log", default="log-100k.csv", help="log file name in each property's directory")
    ap.add_argument("--runs", type=int, default=3, help="runs per property (best wall time is kept)")
    ap.add_argument("--only", help="comma-separated properties")
    ap.add_argument("--jobs", type=int, default=1, help="hindsight run --jobs (0: its default)")
    args = ap.parse_args()
    if not os.path.exists("/usr/bin/time"):
        sys.exit("GNU time (/usr/bin/time) is needed for the peak RSS")
    if not os.path.isdir(FMSD):
        sys.exit(f"{FMSD} not found: ../shared must be beside the repository")
    ref = reference(args.log)
    props = args.only.split(",") if args.only else PROPS
    header = (f"{'property':<15} {'events':>8} {'wall s':>7} {'user s':>7} {'RSS MB':>7} "
              f"{'viol':>4} {'at events':<14} {'ref s':>7} {'ratio':>7}  targets")
    print(header)
    print("-" * len(header))
    for p in props:
        spec = os.path.join(FMSD, p, "spec.qtl")
        log = os.path.join(FMSD, p, args.log)
        with open(log, "rb") as f:
            events = sum(1 for _ in f)
        jobs = [f"--jobs={args.jobs}"] if args.jobs > 0 else []
        cmd = [args.bin, "run", "--json"] + jobs + [spec, log]
        best = None
        for _ in range(args.runs):
            wall, user, rss, code, out = run_once(cmd)
            if code not in (0, 1):
                sys.exit(f"{' '.join(cmd)}: exit {code}")
            if best is None or wall < best[0]:
                best = (wall, user, rss, out)
        wall, user, rss, out = best
        at = []
        for line in out.splitlines():
            obj = json.loads(line)
            if obj.get("kind") == "violation":
                at.append(str(obj["event"]))
        r = ref.get(p)
        ratio = r / wall if r else None
        ok = ratio is not None and ratio >= 20 and rss <= 40 * 1024
        cols = f"{r:>7.3f} {ratio:>6.1f}x" if r else f"{'-':>7} {'-':>7}"
        print(f"{p:<15} {events:>8,} {wall:>7.3f} {user:>7.2f} {rss / 1024:>7.1f} "
              f"{len(at):>4} {','.join(at[:3]) + (',...' if len(at) > 3 else ''):<14} {cols}  {'met' if ok else 'not met'}", flush=True)


if __name__ == "__main__":
    main()
