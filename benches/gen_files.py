#!/usr/bin/env python3
"""Open and close FILES distinct file names, at most OPEN open at a time.

usage: gen_files.py FILES OPEN [BAD] > trace.csv

File i is opened, and closed once OPEN later files have been opened. With BAD
given, the file opened at position BAD is closed twice (the second close is a
violation of `Forall f . close(f) -> @ [open(f), close(f))`).
"""
import sys

def main():
    files, live = int(sys.argv[1]), int(sys.argv[2])
    bad = int(sys.argv[3]) if len(sys.argv) > 3 else -1
    out = sys.stdout
    buf = []
    for i in range(files + live):
        if i < files:
            buf.append(f"open,/data/file{i}.log\n")
        j = i - live
        if j >= 0:
            buf.append(f"close,/data/file{j}.log\n")
            if j == bad:
                buf.append(f"close,/data/file{j}.log\n")
        if len(buf) > 4096:
            out.write("".join(buf))
            buf.clear()
    out.write("".join(buf))

main()
