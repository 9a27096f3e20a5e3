"""Helpers of benches/figures.py: running a command and timing it, counting
its instructions with callgrind, describing the build and the machine, and
writing Markdown tables. Standard library only."""
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "bench"))


class WrongVerdict(Exception):
    """A run whose verdict is not the expected one: the figures are void."""


def log(msg):
    """Progress on standard error (standard output holds only the tables)."""
    print(msg, file=sys.stderr, flush=True)


def run_once(cmd, stdin=None):
    """One run: wall seconds, peak RSS (KB, from GNU time), exit status, stdout."""
    timed = ["/usr/bin/time", "-f", "%M"] + cmd
    start = time.perf_counter()
    proc = subprocess.run(timed, stdin=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    rss = int(proc.stderr.decode().strip().splitlines()[-1])
    return wall, rss, proc.returncode, proc.stdout.decode()


class Timing:
    """The wall times and peak RSS of n runs of one command."""

    def __init__(self):
        self.walls = []
        self.rss = 0

    @property
    def best(self):
        return min(self.walls)

    @property
    def median(self):
        return statistics.median(self.walls)


def measure(cmds, runs, check):
    """Runs each command `runs` times, the commands alternating (so that a
    slow minute of the machine touches every command once), and returns one
    Timing per command. `check(index, exit status, stdout)` is called on
    every run and raises WrongVerdict on a wrong verdict."""
    timings = [Timing() for _ in cmds]
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            wall, rss, code, out = run_once(cmd)
            check(i, code, out)
            timings[i].walls.append(wall)
            timings[i].rss = max(timings[i].rss, rss)
    return timings


def callgrind(cmd):
    """The instructions callgrind counts in one run of `cmd` (every thread)."""
    with tempfile.NamedTemporaryFile(suffix=".log") as out:
        full = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                f"--log-file={out.name}"] + cmd
        proc = subprocess.run(full, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        text = open(out.name).read()
    m = re.search(r"Collected : (\d+)", text)
    if proc.returncode not in (0, 1) or not m:
        raise RuntimeError(f"{' '.join(full)}: exit {proc.returncode}\n{text}")
    return int(m.group(1))


def instructions(cmds, jobs):
    """Instruction counts of several commands, `jobs` callgrind runs at a
    time (the counts do not depend on the load); None when jobs is 0."""
    if jobs == 0:
        return [None] * len(cmds)
    log(f"  callgrind: {len(cmds)} runs")
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        counts = list(pool.map(callgrind, cmds))
    log(f"  callgrind: {time.perf_counter() - start:.0f} s")
    return counts


# --- formatting -----------------------------------------------------------

def secs(s):
    return f"{s:.3f} s" if s < 10 else f"{s:.2f} s"


def mb(kb):
    return f"{kb / 1024:.1f} MB"


def instr(n):
    return "" if n is None else f"{n / 1e6:,.1f} M"


def ratio(x):
    return f"{x:.1f}x" if x < 100 else f"{x:,.0f}x"


def table(head, rows, right=()):
    """A Markdown table; the columns whose index is in `right` align right."""
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---:" if i in right else "---" for i in range(len(head))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def load():
    return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


# The FMSD logs of the host check: one whose working set fits a core's
# second-level cache (locks-cycles), one whose does not (file).
HOST_CHECK = ["locks-cycles", "file"]


def host_check(binary, runs=5):
    """How fast the host runs `binary run --jobs 1` on the FMSD 100k logs of
    HOST_CHECK now, best of `runs` each: what the load average does not
    show. On a host whose other tenants share the cores' caches, file ran
    up to 40% slower while locks-cycles kept its time."""
    parts = []
    for p in HOST_CHECK:
        d = os.path.join(SHARED, "fmsd", p)
        cmd = [binary, "run", "--jobs=1", os.path.join(d, "spec.qtl"),
               os.path.join(d, "log-100k.csv")]
        best = min(run_once(cmd)[0] for _ in range(runs))
        parts.append(f"{p} in {best * 1000:.1f} ms")
    return f"`run --jobs 1` (best of {runs}) ran {' and '.join(parts)}"


# --- the build and the machine --------------------------------------------

def sh(cmd, cwd=ROOT):
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def build(examples):
    """Builds the release binary as the README says (`cargo build --release`,
    default features), and the named examples with the same settings."""
    log("cargo build --release")
    subprocess.run(["cargo", "build", "--release"], cwd=ROOT, check=True)
    for e in examples:
        subprocess.run(["cargo", "build", "--release", "--example", e], cwd=ROOT, check=True)
    return os.path.join(ROOT, "target", "release", "hindsight")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def release_profile():
    """The `[profile.release]` lines of Cargo.toml, or that it has none."""
    lines, inside = [], False
    with open(os.path.join(ROOT, "Cargo.toml")) as f:
        for line in f:
            s = line.strip()
            if s.startswith("["):
                inside = s == "[profile.release]"
            elif inside and s and not s.startswith("#"):
                lines.append(s)
    return ", ".join(lines) if lines else "none in Cargo.toml (Cargo's defaults: opt-level 3, no LTO)"


def rustflags():
    """RUSTFLAGS from the environment and from .cargo/config.toml files."""
    found = [f"{k}={os.environ[k]!r}" for k in ("RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS",
                                                  "CARGO_BUILD_RUSTFLAGS") if os.environ.get(k)]
    d = ROOT
    while True:
        for name in ("config.toml", "config"):
            p = os.path.join(d, ".cargo", name)
            if os.path.exists(p) and "rustflags" in open(p).read():
                found.append(f"rustflags in {p}")
        if os.path.dirname(d) == d:
            break
        d = os.path.dirname(d)
    home = os.path.join(os.path.expanduser("~"), ".cargo", "config.toml")
    if os.path.exists(home) and "rustflags" in open(home).read():
        found.append(f"rustflags in {home}")
    return "; ".join(found) if found else "none (no RUSTFLAGS, no rustflags in any .cargo/config)"


def commit():
    """The commit checked out, and whether the tree has uncommitted changes."""
    dirty = sh(["git", "status", "--porcelain", "--untracked-files=no"])
    return (sh(["git", "rev-parse", "--short=10", "HEAD"]),
            "dirty (uncommitted changes)" if dirty else "clean")


def header(argv, binary, built, load_before, load_after, started, source):
    commit, dirty = source
    how = ("`cargo build --release` by this script, default features (`cli`)"
           if built else f"`--bin {binary}` (not built by this script: its flags are unknown)")
    return "\n".join([
        f"- Command: `{' '.join(['python3', 'benches/figures.py'] + argv)}`",
        f"- Date: {started} UTC",
        f"- Machine: {os.cpu_count()} cores, {cpu_model()}, {platform.system()} {platform.release()}",
        f"- Load average (1, 5, 15 min): {load_before} before, {load_after} after",
        f"- Build: {how}; {sh(['rustc', '-V'])}; RUSTFLAGS: {rustflags()}; "
        f"release profile: {release_profile()}",
        f"- Commit: {commit}, tree {dirty}",
        f"- Instructions: valgrind's callgrind ({sh(['valgrind', '--version'])}), "
        "the whole process, every thread",
    ])
