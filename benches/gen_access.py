#!/usr/bin/env python3
"""Access-control logs: users log in and out, files are opened and closed,
and logged-in users access open files.

usage: benches/gen_access.py EVENTS [--users N] [--files N] [--seed S]

Writes EVENTS events as CSV to standard output (`login,u`, `logout,u`,
`open,f`, `close,f`, `access,u,f`, values are integers). Every access is
by a logged-in user to an open file, except the last event: an access by a
user who is not logged in, so that the property

    Forall user . Forall file . access(user,file) ->
      [login(user),logout(user)) & [open(file),close(file))

is violated exactly once, at the last event. About half of the users are
logged in and half of the files open at any time, so the values live in
the summaries stay bounded by --users and --files however long the log.
"""
import argparse
import random
import sys


class Pool:
    """A set of integers with O(1) random choice, insertion and removal."""

    def __init__(self):
        self.items = []
        self.pos = {}

    def __len__(self):
        return len(self.items)

    def __contains__(self, x):
        return x in self.pos

    def add(self, x):
        self.pos[x] = len(self.items)
        self.items.append(x)

    def remove(self, x):
        i = self.pos.pop(x)
        last = self.items.pop()
        if i < len(self.items):
            self.items[i] = last
            self.pos[last] = i

    def choice(self, rng):
        return self.items[rng.randrange(len(self.items))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("events", type=int)
    ap.add_argument("--users", type=int, default=1000)
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.events < 1 or args.users < 2 or args.files < 1:
        sys.exit("need at least 1 event, 2 users and 1 file")
    rng = random.Random(args.seed)
    users, files = Pool(), Pool()
    out = []
    write = sys.stdout.write
    for _ in range(args.events - 1):
        r = rng.random()
        if r < 0.15 or not users:
            u = rng.randrange(args.users)
            if u in users and len(users) > 1:
                users.remove(u)
                out.append(f"logout,{u}\n")
            elif u not in users:
                users.add(u)
                out.append(f"login,{u}\n")
            else:
                out.append(f"login,{u}\n")
        elif r < 0.30 or not files:
            f = rng.randrange(args.files)
            if f in files and len(files) > 1:
                files.remove(f)
                out.append(f"close,{f}\n")
            else:
                if f not in files:
                    files.add(f)
                out.append(f"open,{f}\n")
        else:
            out.append(f"access,{users.choice(rng)},{files.choice(rng)}\n")
        if len(out) >= 65536:
            write("".join(out))
            out.clear()
    # The one violation: a user who is not logged in (a fresh one).
    f = files.choice(rng) if files else 0
    out.append(f"access,{args.users},{f}\n")
    write("".join(out))


if __name__ == "__main__":
    main()
