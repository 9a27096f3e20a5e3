#!/usr/bin/env python3
"""Writes a plain CSV trace (stdin) in another format (stdout): crv, xml,
json or monpoly. Fields are named f1, f2, ... (the benchmarks' specs declare
no names, so they are read by position). usage: convert_trace.py FORMAT"""
import csv
import json
import sys
from xml.sax.saxutils import escape

def main():
    fmt = sys.argv[1]
    out = sys.stdout
    if fmt == "crv":
        out.write("event, f1, f2\n")
    elif fmt == "xml":
        out.write('<?xml version="1.0"?>\n<log>\n')
    for n, row in enumerate(csv.reader(sys.stdin), 1):
        if not row:
            continue
        name, args = row[0], row[1:]
        if fmt == "crv":
            out.write(", ".join([name] + ['"%s"' % a.replace('"', '""') if "," in a else a for a in args]) + "\n")
        elif fmt == "xml":
            fields = "".join("<field><name>f%d</name><value>%s</value></field>" % (i + 1, escape(a))
                             for i, a in enumerate(args))
            out.write("  <event><name>%s</name>%s</event>\n" % (escape(name), fields))
        elif fmt == "json":
            out.write(json.dumps({name: {"f%d" % (i + 1): a for i, a in enumerate(args)}}) + "\n")
        elif fmt == "monpoly":
            out.write("@%d %s(%s)\n" % (n, name, ", ".join('"%s"' % a for a in args)))
        else:
            sys.exit("unknown format " + fmt)
    if fmt == "xml":
        out.write("</log>\n")

main()
