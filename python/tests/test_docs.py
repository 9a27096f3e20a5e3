"""The tour of docs/PYTHON.md: its python blocks, run in order in one
namespace from the repository's root, as a notebook would."""

import os
import re

from conftest import ROOT

PAGE = os.path.join(ROOT, "docs", "PYTHON.md")


def blocks():
    text = open(PAGE, encoding="utf-8").read()
    found = []
    for m in re.finditer(r"^```python\n(.*?)^```$", text, re.M | re.S):
        line = text.count("\n", 0, m.start()) + 2
        found.append((line, m.group(1)))
    return found


def test_the_tour_runs(monkeypatch):
    monkeypatch.chdir(ROOT)
    found = blocks()
    assert len(found) >= 10
    namespace = {"__name__": "tour"}
    for line, code in found:
        # Line numbers in a failure point into the page.
        exec(compile("\n" * (line - 1) + code, PAGE, "exec"), namespace)
