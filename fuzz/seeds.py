#!/usr/bin/env python3
"""Builds the seed corpora of the reader and MFOTL targets in corpus/TARGET:
the traces of ../specs (CSV) written as XML, JSON and MonPoly logs, the
example traces of ../docs/*.md in those formats, and the MFOTL formulas of
../specs and ../docs/MFOTL.md with their signatures.

Each reader seed starts with the flag byte of common/reading.rs (bit 0:
timed; bit 3: the fields of p and q named), `formats` seeds with a format
byte before it. Run from fuzz/: python3 seeds.py
"""
import csv
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SPECS = os.path.join(HERE, "..", "specs")
DOCS = os.path.join(HERE, "..", "docs")
FORMAT_BYTE = {"xml": 1, "json": 2, "monpoly": 3}


def spec_traces():
    """(name, timed, events) of every CSV trace in specs/; an event is
    (name, args, time)."""
    for f in sorted(os.listdir(SPECS)):
        if not f.endswith(".csv"):
            continue
        timed = ".timed." in f
        events = []
        with open(os.path.join(SPECS, f), newline="") as fh:
            for i, row in enumerate(csv.reader(fh)):
                if not row:
                    continue
                if timed:
                    events.append((row[0], row[1:-1], row[-1]))
                else:
                    events.append((row[0], row[1:], str(i)))
        yield f[: -len(".csv")], timed, events


def field_names(args):
    return ["a%d" % (i + 1) for i in range(len(args))]


def xml_text(events, timed):
    out = ["<log>"]
    for name, args, time in events:
        out.append("  <event>")
        out.append("    <name>%s</name>" % escape(name))
        fields = list(zip(field_names(args), args))
        if timed:
            fields.append(("time", time))
        for k, v in fields:
            out.append("    <field><name>%s</name><value>%s</value></field>" % (k, escape(v)))
        out.append("  </event>")
    out.append("</log>")
    return "\n".join(out) + "\n"


def escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def json_text(events, timed):
    lines = []
    for name, args, time in events:
        fields = dict(zip(field_names(args), args))
        if timed:
            fields["time"] = time
        lines.append(json.dumps({name: fields}))
    return "\n".join(lines) + "\n"


def monpoly_text(events):
    lines = []
    for name, args, time in events:
        quoted = ['"%s"' % a if re.search(r'[\s(),@#;]', a) or a == "" else a for a in args]
        lines.append("@%s %s(%s)" % (time, name, ", ".join(quoted)))
    return "\n".join(lines) + "\n"


def doc_blocks(doc, lang, suffix=""):
    """The code blocks ```LANG NAME of docs/DOC whose NAME ends in SUFFIX."""
    text = open(os.path.join(DOCS, doc)).read()
    pattern = r"```%s ([^\n]*%s)\n(.*?)```" % (lang, re.escape(suffix))
    return re.findall(pattern, text, re.S)


def write(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as fh:
        fh.write(data)
    if target in FORMAT_BYTE:
        write("formats", target + "-" + name, bytes([FORMAT_BYTE[target]]) + data)


def main():
    for stem, timed, events in spec_traces():
        flag = bytes([1 if timed else 0])
        write("xml", stem + ".xml", flag + xml_text(events, timed).encode())
        write("json", stem + ".json", flag + json_text(events, timed).encode())
        write("monpoly", stem + ".log", b"\0" + monpoly_text(events).encode())
    for doc in os.listdir(DOCS):
        if not doc.endswith(".md"):
            continue
        for target, lang, suffix in [("xml", "xml", ""), ("json", "json", ""), ("monpoly", "text", ".log")]:
            for name, body in doc_blocks(doc, lang, suffix):
                timed = ".timed." in name
                base = doc[:-3] + "-" + name.strip()
                write(target, base, bytes([1 if timed else 0]) + body.encode())
                write(target, base + ".named", bytes([8 | (1 if timed else 0)]) + body.encode())
    sigs = {}
    for f in sorted(os.listdir(SPECS)):
        if f.endswith(".sig"):
            sigs[f[:-4]] = open(os.path.join(SPECS, f)).read()
    for name, body in doc_blocks("MFOTL.md", "text", ".sig"):
        sigs[name[:-4]] = body
    formulas = []
    for f in sorted(os.listdir(SPECS)):
        if f.endswith(".mfotl"):
            formulas.append((f[:-6], open(os.path.join(SPECS, f)).read()))
    for name, body in doc_blocks("MFOTL.md", "text", ".mfotl"):
        formulas.append((name[:-6], body))
    for stem, formula in formulas:
        sig = sigs.get(stem, sigs.get("pay", ""))
        write("mfotl", stem + ".with-sig", (sig + "\0" + formula).encode())
        write("mfotl", stem + ".mfotl", formula.encode())
    for stem, sig in sigs.items():
        write("mfotl", stem + ".sig-only", (sig + "\0TRUE").encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
