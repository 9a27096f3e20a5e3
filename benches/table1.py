#!/usr/bin/env python3
"""Table 1 of the rules paper, reproduced: telemetry1/telemetry2 on T1-T3 and
spawning on T4-T6, with ratios to ../shared/bench/REFERENCE.md.

usage: benches/table1.py [--bin PATH]... [--bdd PACKAGE]... [--only T1,T4,...] [--runs N] [--keep DIR] [--jobs N]

Each row: property, trace, events, wall time (best of --runs), events per
second, peak RSS, and the reference's "analysis" and "process" times divided
by ours (higher is better). Several --bin options measure several builds side
by side (e.g. this build and an older one); several --bdd options run each
build with each BDD package (`run --bdd shared|biodivine`), row by row.
Traces are generated with ../shared/bench/gen_traces.py into a temporary
directory (or --keep DIR, reused when present).
"""
import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(ROOT, "..", "shared", "bench")
TRACES = {
    "T1": ["telemetry", "100", "1000", "10"],
    "T2": ["telemetry", "1000", "100", "50"],
    "T3": ["telemetry", "1000", "100", "100"],
    "T4": ["spawning", "50", "100"],
    "T5": ["spawning", "100", "100"],
    "T6": ["spawning", "100", "200"],
}
ROWS = [
    ("telemetry1", "T1"), ("telemetry2", "T1"),
    ("telemetry1", "T2"), ("telemetry2", "T2"),
    ("telemetry1", "T3"), ("telemetry2", "T3"),
    ("spawning", "T4"), ("spawning", "T5"), ("spawning", "T6"),
]
SPECS = {
    "telemetry1": ("specs/telemetry.qtl", "telemetry1"),
    "telemetry2": ("specs/telemetry.qtl", "telemetry2"),
    "spawning": ("specs/spawning.qtl", "spawning"),
}


def reference():
    """(property, trace) -> (analysis s, process s, RSS MB) from REFERENCE.md."""
    path = os.path.join(SHARED, "REFERENCE.md")
    ref = {}
    if not os.path.exists(path):
        return ref
    row = re.compile(
        r"^\|\s*(\w+)\s*\|\s*(T\d)\b[^|]*\|\s*[\d,]+\s*\|\s*([\d.]+) s\s*\|"
        r"\s*([\d.]+) s\s*\|\s*([\d,]+) MB\s*\|")
    with open(path) as f:
        for line in f:
            m = row.match(line)
            if m:
                ref[(m.group(1), m.group(2))] = (
                    float(m.group(3)), float(m.group(4)),
                    int(m.group(5).replace(",", "")))
    return ref


def run_once(cmd):
    """Wall time, peak RSS (KB) and exit status of one run. The RSS comes from
    GNU time when present (the rusage of a child spawned from Python can
    include the interpreter's own pages), else from wait4."""
    gnu_time = "/usr/bin/time"
    if os.path.exists(gnu_time):
        cmd = [gnu_time, "-f", "%M"] + cmd
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if os.path.exists(gnu_time):
        rss = int(proc.stderr.decode().strip().splitlines()[-1])
    return wall, rss, proc.returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", action="append",
                    help="hindsight binary (repeatable; default target/release/hindsight)")
    ap.add_argument("--bdd", action="append",
                    help="BDD package passed to `run --bdd` (repeatable; default: the binary's default)")
    ap.add_argument("--only", help="comma-separated traces, e.g. T1,T4")
    ap.add_argument("--runs", type=int, default=3, help="runs per row (best is kept)")
    ap.add_argument("--keep", help="directory for the generated traces (kept)")
    ap.add_argument("--jobs", type=int, default=0,
                    help="hindsight run --jobs N (default 0: none given, the run's default)")
    args = ap.parse_args()
    bins = args.bin or [os.path.join(ROOT, "target", "release", "hindsight")]
    only = set(args.only.split(",")) if args.only else set(TRACES)
    gen = os.path.join(SHARED, "gen_traces.py")
    if not os.path.exists(gen):
        sys.exit(f"{gen} not found: ../shared must be beside the repository")
    ref = reference()
    tmp = args.keep or tempfile.mkdtemp(prefix="hindsight-table1-")
    os.makedirs(tmp, exist_ok=True)
    paths = {}
    for t in sorted(only):
        p = os.path.join(tmp, f"{t}.csv")
        if not os.path.exists(p):
            with open(p, "w") as f:
                subprocess.run([sys.executable, gen] + TRACES[t], stdout=f, check=True)
        paths[t] = p
    header = (f"{'build':<10} {'property':<11} {'trace':<5} {'events':>11} {'wall s':>8} "
              f"{'events/s':>12} {'RSS MB':>7} {'ref analysis':>13} {'ratio':>7} "
              f"{'ref process':>12} {'ratio':>7}")
    print(header)
    print("-" * len(header))
    for prop, t in ROWS:
        if t not in only:
            continue
        with open(paths[t], "rb") as f:
            events = sum(1 for _ in f)
        spec, name = SPECS[prop]
        for b, package in [(b, p) for b in bins for p in (args.bdd or [None])]:
            extra = ["--bdd", package] if package else []
            if args.jobs > 0:
                extra.append(f"--jobs={args.jobs}")
            cmd = [b, "run", *extra, "-q", "--prop", name, os.path.join(ROOT, spec), paths[t]]
            best = None
            for _ in range(args.runs):
                wall, rss, code = run_once(cmd)
                if code != 1:
                    sys.exit(f"{' '.join(cmd)}: exit {code}, expected 1 (one violation)")
                if best is None or wall < best[0]:
                    best = (wall, rss)
            wall, rss = best
            # target/release/hindsight is the default build; target/X/release/... is X.
            parent = os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(b))))
            label = "default" if parent == "target" else parent
            if package:
                label = package if label == "default" else f"{label}/{package}"
            r = ref.get((prop, t))
            cols = ""
            if r:
                cols = (f"{r[0]:>11.2f} s {r[0] / wall:>6.1f}x "
                        f"{r[1]:>10.2f} s {r[1] / wall:>6.1f}x")
            print(f"{label:<10} {prop:<11} {t:<5} {events:>11,} {wall:>8.3f} "
                  f"{events / wall:>12,.0f} {rss / 1024:>7.1f} {cols}", flush=True)


if __name__ == "__main__":
    main()
