#!/usr/bin/env python3
"""Instruction counts (valgrind's callgrind) of builds side by side, on the
six FMSD 100k logs and Table 1's T1 and T4, with --jobs 1 and --jobs 2.
Instruction counts are repeatable where wall times are not: this is how a
change is shown to keep the speed (docs/PERFORMANCE.md).

usage: benches/instructions.py --bin OLD --bin NEW [--jobs 1,2] [--only access,T1,...] [--keep DIR]

Each row: the workload, the jobs, the instructions of each build (all its
threads), and each build's count relative to the first's. T1 and T4 are
generated with ../shared/bench/gen_traces.py into a temporary directory (or
--keep DIR, reused when present). A run whose exit status is not 0 or 1
ends the script.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(ROOT, "..", "shared", "bench")
FMSD = ["access", "file", "fifo", "locks-basic", "locks-cycles", "locks-datarace"]
TABLE1 = {
    "T1": (["telemetry", "100", "1000", "10"], [("specs/telemetry.qtl", "telemetry1"),
                                                 ("specs/telemetry.qtl", "telemetry2")]),
    "T4": (["spawning", "50", "100"], [("specs/spawning.qtl", "spawning")]),
}


def workloads(only, tmp):
    """(label, spec, extra arguments, trace) of every workload asked for."""
    out = []
    for p in FMSD:
        if only and p not in only:
            continue
        d = os.path.join(SHARED, "fmsd", p)
        out.append((p, os.path.join(d, "spec.qtl"), [], os.path.join(d, "log-100k.csv")))
    for t, (gen, rows) in TABLE1.items():
        if only and t not in only:
            continue
        path = os.path.join(tmp, f"{t}.csv")
        if not os.path.exists(path):
            with open(path, "w") as f:
                subprocess.run([sys.executable, os.path.join(SHARED, "gen_traces.py"), *gen],
                               stdout=f, check=True)
        for spec, prop in rows:
            out.append((f"{prop} {t}", os.path.join(ROOT, spec), ["--prop", prop], path))
    return out


def instructions(binary, spec, extra, trace, jobs):
    """The instructions callgrind counts in one run (every thread)."""
    with tempfile.NamedTemporaryFile(suffix=".log") as log:
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
               f"--log-file={log.name}", binary, "run", "-q", f"--jobs={jobs}", *extra,
               spec, trace]
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if proc.returncode not in (0, 1):
            sys.exit(f"{' '.join(cmd)}: exit {proc.returncode}\n{proc.stderr.decode()}")
        text = open(log.name).read()
    m = re.search(r"Collected : (\d+)", text)
    if not m:
        sys.exit(f"{' '.join(cmd)}: no count in callgrind's log\n{text}")
    return int(m.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", action="append", required=True, help="a build (first: the base)")
    ap.add_argument("--jobs", default="1,2", help="comma-separated --jobs values")
    ap.add_argument("--only", help="comma-separated FMSD properties and T1, T4")
    ap.add_argument("--keep", help="directory for the generated traces (reused)")
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else None
    tmp = args.keep or tempfile.mkdtemp(prefix="hindsight-instructions-")
    os.makedirs(tmp, exist_ok=True)
    jobs = [int(j) for j in args.jobs.split(",")]
    head = f"{'workload':<22} {'jobs':>4}" + "".join(f" {'build ' + str(i):>15}" for i in range(len(args.bin)))
    print(head + "".join(f" {'ratio ' + str(i):>8}" for i in range(1, len(args.bin))))
    for label, spec, extra, trace in workloads(only, tmp):
        for j in jobs:
            counts = [instructions(b, spec, extra, trace, j) for b in args.bin]
            row = f"{label:<22} {j:>4}" + "".join(f" {c:>15,}" for c in counts)
            row += "".join(f" {c / counts[0]:>8.4f}" for c in counts[1:])
            print(row, flush=True)


if __name__ == "__main__":
    main()
