#!/usr/bin/env python3
"""Differential test of hindsight's MFOTL front end against MonPoly.

Generates random MFOTL formulas (past-time, with aggregations, arithmetic
and LET; with --future, bounded future operators too) over a small signature and random MonPoly logs (several events per time-point, repeated time stamps, empty
time-points, MonPoly's multi-tuple syntax `p(a)(b)`), runs both tools and
compares their satisfaction lines byte for byte. A formula MonPoly does not
accept (not monitorable, a type error) is drawn again.

    benches/mfotl_oracle.py --monpoly PATH/TO/monpoly --cases 300 [--seed 1]

With --jobs N, hindsight runs with `--jobs N` (its parallel path: a
MonPoly log may be cut into time segments, docs/PARALLEL.md), and with
--segments always it is cut whenever the formula allows; --points N makes
the logs longer (N/2 to N time-points, rather than 3 to 12), so that they
have segments to cut.

This script does not build MonPoly: give it the path of a MonPoly binary.
Differences are written to the directory given with --keep (default
/tmp/mfotl-oracle), one folder per case, with both outputs.
"""

import argparse
import os
import random
import subprocess
import sys

SIG = """p(x:string)
q(x:string)
r(x:string, n:int)
s(n:int)
f(v:float)
e()
"""

STRINGS = ["a", "b", "c"]
INTS = ["1", "2", "3", "10"]
FLOATS = ["0.5", "2.5", "10.0", "1e3"]


def interval(rng):
    kind = rng.random()
    if kind < 0.4:
        return ""
    lo = rng.randint(0, 3)
    if kind < 0.6:
        return f"[{lo},*)"
    hi = lo + rng.randint(0, 4)
    left = rng.choice("[(") if lo < hi else "["
    right = rng.choice("])") if lo < hi else "]"
    return f"{left}{lo},{hi}{right}"


def atom(rng, svars, ivars):
    """An atom, and its free variables."""
    kind = rng.randrange(6)
    if kind == 0:
        x = rng.choice(svars) if rng.random() < 0.8 else f'"{rng.choice(STRINGS)}"'
        return f"p({x})", {x} - {f'"{s}"' for s in STRINGS}
    if kind == 1:
        x = rng.choice(svars)
        return f"q({x})", {x}
    if kind == 2:
        x = rng.choice(svars)
        n = rng.choice(ivars) if rng.random() < 0.8 else rng.choice(INTS)
        return f"r({x}, {n})", {v for v in (x, n) if v in svars + ivars}
    if kind == 3:
        n = rng.choice(ivars)
        return f"s({n})", {n}
    if kind == 4:
        return "f(v)", {"v"}
    return "e()", set()


AGGS = ["CNT", "SUM", "MIN", "MAX", "AVG", "MED"]


def aggregation(rng, a, fa, svars, ivars):
    """`y <- OP x; g a` over a formula `a` with free variables `fa`."""
    nums = sorted(fa & (set(ivars) | {"v"}))
    op = rng.choice(AGGS)
    if op in ("SUM", "AVG", "MED"):
        if not nums:
            return None
        x = rng.choice(nums)
    else:
        x = rng.choice(sorted(fa))
    rest = sorted(fa - {x})
    group = [g for g in rest if rng.random() < 0.5]
    y = rng.choice(["c", "d"])
    if y in fa:
        return None
    g = "; " + ", ".join(group) if group else ""
    once = rng.random() < 0.5
    body = f"ONCE{interval(rng)} {a}" if once else a
    return f"({y} <- {op} {x}{g} {body})", {y} | set(group)


def arithmetic(rng, a, fa, ivars):
    """A comparison or an assignment with arithmetic on the ints of `a`."""
    ints = sorted(fa & set(ivars))
    if not ints:
        return None
    n = rng.choice(ints)
    op = rng.choice(["+", "-", "*", "/", "MOD"])
    k = rng.choice(["1", "2", "3"])
    if rng.random() < 0.5:
        z = rng.choice(["z", "w"])
        if z in fa:
            return None
        return f"({a} AND {z} = {n} {op} {k})", fa | {z}
    rel = rng.choice(["<", "<=", ">", ">=", "="])
    neg = "NOT " if rng.random() < 0.3 else ""
    return f"({a} AND {neg}{n} {op} {k} {rel} {rng.choice(INTS)})", fa


def bounded(rng):
    """An interval with a finite upper bound (a future operator's)."""
    lo = rng.randint(0, 2)
    hi = lo + rng.randint(0, 4)
    left = rng.choice("[(") if lo < hi else "["
    right = rng.choice("])") if lo < hi else "]"
    return f"{left}{lo},{hi}{right}"


def future(rng, depth, svars, ivars):
    """A bounded future operator over random operands, and its free variables."""
    a, fa = formula(rng, depth - 1, svars, ivars)
    kind = rng.randrange(4)
    if kind == 0:
        return f"(NEXT{bounded(rng)} {a})", fa
    if kind == 1:
        return f"(EVENTUALLY{bounded(rng)} {a})", fa
    if kind == 2:
        return f"(ALWAYS{bounded(rng)} {a})", fa
    b, fb = formula(rng, depth - 1, svars, ivars)
    neg = "NOT " if rng.random() < 0.5 else ""
    return f"(({neg}{a}) UNTIL{bounded(rng)} {b})", fa | fb


#: Whether formulas may have bounded future operators (--future).
FUTURE = False


def formula(rng, depth, svars, ivars):
    """A random formula and its free variables (MonPoly checks monitorability)."""
    if depth == 0 or rng.random() < 0.25:
        return atom(rng, svars, ivars)
    if FUTURE and rng.random() < 0.35:
        return future(rng, depth, svars, ivars)
    kind = rng.randrange(13)
    if kind >= 10:
        a, fa = formula(rng, depth - 1, svars, ivars)
        made = None
        if kind == 10 and fa:
            made = aggregation(rng, a, fa, svars, ivars)
        elif kind == 11:
            made = arithmetic(rng, a, fa, ivars)
        elif kind == 12 and fa:
            params = sorted(fa)
            made = (f"(LET pp({', '.join(params)}) = {a} IN pp({', '.join(params)}))", fa)
        return made or (a, fa)
    a, fa = formula(rng, depth - 1, svars, ivars)
    if kind == 0:
        b, fb = formula(rng, depth - 1, svars, ivars)
        return f"({a} AND {b})", fa | fb
    if kind == 1:
        b, fb = formula(rng, depth - 1, svars, ivars)
        return f"({a} OR {b})", fa | fb
    if kind == 2:
        b, fb = formula(rng, depth - 1, svars, ivars)
        return f"({a} AND NOT {b})", fa | fb
    if kind == 3:
        return f"(PREVIOUS{interval(rng)} {a})", fa
    if kind == 4:
        return f"(ONCE{interval(rng)} {a})", fa
    if kind == 5:
        b, fb = formula(rng, depth - 1, svars, ivars)
        neg = "NOT " if rng.random() < 0.5 else ""
        return f"(({neg}{a}) SINCE{interval(rng)} {b})", fa | fb
    if kind == 6 and fa:
        v = rng.choice(sorted(fa))
        return f"(EXISTS {v}. {a})", fa - {v}
    if kind == 7:
        ints = sorted(fa & set(ivars))
        if ints:
            n = rng.choice(ints)
            op = rng.choice(["<", "<=", ">", ">=", "="])
            return f"({a} AND {n} {op} {rng.choice(INTS)})", fa
        strs = sorted(fa & set(svars))
        if strs:
            x = rng.choice(strs)
            op = rng.choice(["<", "=", ">="])
            return f"({a} AND {x} {op} \"{rng.choice(STRINGS)}\")", fa
    if kind == 8 and "v" in fa:
        op = rng.choice(["<", ">", "="])
        return f"({a} AND v {op} {rng.choice(['2.5', '0.5', '1000.0'])})", fa
    if kind == 9:
        return f"(PAST_ALWAYS{interval(rng)} {a})", fa
    return a, fa


def value(rng, kind):
    if kind == "s":
        return rng.choice(STRINGS) if rng.random() < 0.9 else f'"{rng.choice(STRINGS)}"'
    if kind == "i":
        return rng.choice(INTS)
    return rng.choice(FLOATS)


PREDS = {"p": "s", "q": "s", "r": "si", "s": "i", "f": "f", "e": ""}


def log(rng, points=None):
    lines = []
    ts = rng.randint(0, 2)
    count = rng.randint(3, 12) if points is None else rng.randint(points // 2, points)
    for _ in range(count):
        ts += rng.choice([0, 0, 1, 1, 2, 3])
        events = []
        for _ in range(rng.choice([0, 1, 1, 2, 2, 3])):
            name = rng.choice(list(PREDS))
            kinds = PREDS[name]
            tuples = []
            for _ in range(1 if rng.random() < 0.8 else 2):
                tuples.append("(" + ", ".join(value(rng, k) for k in kinds) + ")")
            events.append(name + "".join(tuples))
        lines.append(f"@{ts} " + " ".join(events))
    return "\n".join(lines) + "\n"


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--monpoly", required=True)
    ap.add_argument("--hindsight", default="target/release/hindsight")
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", default="/tmp/mfotl-oracle")
    ap.add_argument("--jobs", type=int, help="run hindsight with --jobs N")
    ap.add_argument("--segments", choices=["auto", "always", "never"])
    ap.add_argument("--points", type=int, help="logs of N/2 to N time-points")
    ap.add_argument(
        "--future",
        action="store_true",
        help="formulas with bounded future operators (NEXT, EVENTUALLY, ALWAYS, UNTIL)",
    )
    args = ap.parse_args()
    global FUTURE
    FUTURE = args.future
    rng = random.Random(args.seed)
    os.makedirs(args.keep, exist_ok=True)
    sig = os.path.join(args.keep, "oracle.sig")
    with open(sig, "w") as f:
        f.write(SIG)
    same = differ = drawn = satisfied_lines = 0
    case = 0
    while case < args.cases:
        drawn += 1
        text, _ = formula(rng, rng.randint(1, 4), ["x", "y"], ["n", "m"])
        d = os.path.join(args.keep, f"case{case}")
        os.makedirs(d, exist_ok=True)
        fpath, lpath = os.path.join(d, "f.mfotl"), os.path.join(d, "l.log")
        with open(fpath, "w") as f:
            f.write(text + "\n")
        with open(lpath, "w") as f:
            f.write(log(rng, args.points))
        rc, mp, err = run([args.monpoly, "-sig", sig, "-formula", fpath, "-log", lpath])
        if rc != 0 or "monitorable" in mp + err or "error" in (mp + err).lower():
            continue
        case += 1
        extra = [] if args.jobs is None else [f"--jobs={args.jobs}"]
        extra += [] if args.segments is None else [f"--segments={args.segments}"]
        _, hs, herr = run([args.hindsight, "run", *extra, fpath, "--sig", sig, lpath])
        mine = [l for l in hs.splitlines() if l.startswith("@")]
        theirs = mp.splitlines()
        satisfied_lines += len(theirs)
        if mine == theirs:
            same += 1
        else:
            differ += 1
            with open(os.path.join(d, "DIFF"), "w") as f:
                f.write("monpoly:\n" + mp + "\nhindsight:\n" + hs + herr)
            print(f"case{case - 1}: {text}", file=sys.stderr)
    print(
        f"{case} cases ({drawn} formulas drawn), {satisfied_lines} MonPoly lines: "
        f"{same} identical, {differ} different"
    )
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
