"""hindsight: runtime verification of QTL (first-order past-time temporal
logic with rules and timing constraints) and MonPoly's MFOTL, from Python.

- ``run(spec, trace, **options) -> Outcome``: a specification on a trace
  (a file, or a pandas DataFrame), the GIL released while it works.
- ``Monitor(spec_text, **options)``: events pushed one by one with
  ``.step(name, *args, time=None)`` or ``.step_many(events)``.
- ``equiv(a, b, **options) -> Equivalence``: a search for a trace on which
  two specifications give different verdicts.
- ``gen(spec, **options)``: a random trace over a specification's events.
- ``SpecError`` and ``TraceError`` (both ``ValueError``), with ``.line``,
  ``.column`` and ``.message``.

See docs/PYTHON.md.
"""

import csv as _csv
import io as _io
import os as _os

from . import _hindsight
from ._hindsight import (
    Equivalence,
    Monitor,
    Outcome,
    SpecError,
    TraceError,
    Violation,
    equiv,
    gen,
)

__all__ = [
    "Equivalence",
    "Monitor",
    "Outcome",
    "SpecError",
    "TraceError",
    "Violation",
    "equiv",
    "gen",
    "run",
]

_NAME_COLUMNS = ("event", "name")
_TIME_COLUMNS = ("time", "timestamp", "ts")


def _is_frame(trace):
    kind = type(trace)
    return kind.__name__ == "DataFrame" and kind.__module__.startswith("pandas")


def _missing(value):
    if value is None:
        return True
    try:
        return value != value  # NaN
    except Exception:
        return False


def _text(value):
    # pandas makes a column of whole numbers with a gap float: 1500.0 is 1500.
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _frame_to_csv(frame):
    """A DataFrame trace as plain CSV bytes, and whether it is timed.

    The name is the column ``event`` or ``name`` (else the first column),
    the time stamp the column ``time``, ``timestamp`` or ``ts`` if there is
    one, and every other column an argument, in order; missing values
    (None, NaN) at the end of a row are left out, for events with fewer
    arguments.
    """
    columns = [str(c) for c in frame.columns]
    if not columns:
        raise TraceError("the DataFrame has no column")
    name = next((c for c in _NAME_COLUMNS if c in columns), columns[0])
    time = next((c for c in _TIME_COLUMNS if c in columns), None)
    args = [c for c in columns if c not in (name, time)]
    order = [name] + args + ([time] if time else [])
    positions = [columns.index(c) for c in order]
    out = _io.StringIO()
    writer = _csv.writer(out, lineterminator="\n")
    for row in frame.itertuples(index=False, name=None):
        values = [row[i] for i in positions]
        stamp = values.pop() if time else None
        while values and _missing(values[-1]):
            values.pop()
        fields = ["" if _missing(v) else _text(v) for v in values]
        if time:
            if _missing(stamp):
                raise TraceError("an event of the DataFrame has no time stamp")
            fields.append(str(int(stamp)))
        writer.writerow(fields)
    return out.getvalue().encode(), time is not None


def run(spec, trace, **options):
    """Runs the specification at ``spec`` on ``trace`` and returns its Outcome.

    ``spec`` is the path of a QTL specification, or of an MFOTL formula
    (a name ending in ``.mfotl``, or ``mfotl=True``) with ``sig=`` the
    path of its MonPoly signature (``negate=True``: the
    formula is the property, as MonPoly's ``-negate``; else its
    satisfactions are reported). ``trace`` is the path of a trace (CSV,
    XML, JSON or a MonPoly log, compressed or not) or a pandas DataFrame
    (a column for the name, one per argument, and one for the time).

    Options, as ``hindsight run``'s: ``timed``, ``witness``, ``strict``,
    ``skip_bad_lines`` (with ``max_skipped``, the largest share of lines
    skipped, 0.1 by default), ``stop_at_first``, ``strict_time``, ``jobs``
    (default: as the command line, the number of cores, but 1 for a trace
    file under 256 KB), ``end_of_trace``
    (``"undecided"`` or ``"close"``).

    Raises SpecError for a specification that is not well-formed, and
    TraceError for bad input (its ``.outcome`` holds the verdicts found
    before it). The GIL is released while the run works.
    """
    spec = _os.fspath(spec)
    if _is_frame(trace):
        data, timed = _frame_to_csv(trace)
        if timed:
            options["timed"] = True
        return _hindsight.run(spec, None, data, **options)
    if isinstance(trace, (bytes, bytearray)):
        return _hindsight.run(spec, None, bytes(trace), **options)
    return _hindsight.run(spec, _os.fspath(trace), None, **options)
