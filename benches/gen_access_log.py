#!/usr/bin/env python3
"""Access-control traces for specs/access.qtl, of any length.

usage: gen_access_log.py EVENTS [USERS] [RESOURCES] [SEED] > log.csv

Users log in and out, get and lose permissions for resources, access
resources (mostly allowed) and run audits; about one access in 500 is a
violation of accessAllowed. Deterministic for a given seed.
"""
import random
import sys


def main():
    n = int(sys.argv[1])
    users = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    resources = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    logged = [False] * users
    grants = [set() for _ in range(users)]
    out = sys.stdout
    buf = []
    for _ in range(n):
        u = rng.randrange(users)
        k = rng.random()
        if not logged[u]:
            line = f"login,u{u}"
            logged[u] = True
        elif k < 0.05:
            line = f"logout,u{u}"
            logged[u] = False
        elif k < 0.25 or not grants[u]:
            r = rng.randrange(resources)
            grants[u].add(r)
            line = f"grant,u{u},r{r}"
        elif k < 0.30:
            r = rng.choice(sorted(grants[u]))
            grants[u].discard(r)
            line = f"revoke,u{u},r{r}"
        elif k < 0.302:
            line = f"access,u{u},r{rng.randrange(resources)}"
        else:
            line = f"access,u{u},r{rng.choice(sorted(grants[u]))}"
        buf.append(line)
        if len(buf) >= 100000:
            out.write("\n".join(buf) + "\n")
            buf = []
    if buf:
        out.write("\n".join(buf) + "\n")


if __name__ == "__main__":
    main()
