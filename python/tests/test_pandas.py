"""pandas: a DataFrame as a trace, and Outcome.to_pandas()."""

import pandas as pd

import hindsight
from conftest import spec_path


def test_dataframe_trace_untimed():
    frame = pd.DataFrame({"event": ["open", "close", "close"], "file": ["a", "a", "a"]})
    o = hindsight.run(spec_path("file_access.qtl"), frame)
    assert [(v.property, v.event, v.args) for v in o.violations] == [
        ("accessWhileOpen", 3, ("a",))
    ]


def test_dataframe_trace_timed_with_columns_in_any_order():
    frame = pd.DataFrame(
        {
            "time": [0, 1, 3, 5],
            "m": ["c1", "c2", "c1", "c2"],
            "event": ["dispatch", "dispatch", "complete", "complete"],
        }
    )
    o = hindsight.run(spec_path("deadline.qtl"), frame)
    # complete(c2) at time 5 is 4 units after its dispatch.
    assert [(v.property, v.event, v.time, v.args) for v in o.violations] == [
        ("deadline", 4, 5, ("c2",))
    ]


def test_dataframe_events_of_several_arities():
    frame = pd.DataFrame(
        {
            "event": ["approve", "pay", "pay"],
            "who": ["p1", "p1", "p2"],
            "amount": [None, 1500, 2000],
            "time": [0, 4, 5],
        }
    )
    o = hindsight.run(
        spec_path("payments.mfotl"), frame, sig=spec_path("payments.sig"), negate=True
    )
    assert [(v.event, v.args) for v in o.violations] == [(3, ("p2", "2000"))]


def test_to_pandas():
    o = hindsight.run(spec_path("file_access.qtl"), spec_path("file_access.csv"), witness=True)
    frame = o.to_pandas()
    assert list(frame.columns) == ["property", "event", "line", "time", "args", "witness"]
    assert list(frame["event"]) == [1, 5, 8, 9, 11]
    assert frame["witness"][3] == {"f": "db"}
