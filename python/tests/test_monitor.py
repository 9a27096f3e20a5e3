"""hindsight.Monitor: events pushed one by one."""

import pytest

import hindsight
from conftest import spec_path

FILES = """
prop closeOnlyOpen : Forall f . close(f) -> @ [open(f), close(f))
prop noReopen : Forall f . open(f) -> !@ [open(f), close(f))
"""


def test_step_returns_the_violations_of_each_event():
    m = hindsight.Monitor(FILES)
    assert m.properties == ["closeOnlyOpen", "noReopen"]
    assert m.step("open", "log") == []
    assert m.step("close", "log") == []
    [v] = m.step("close", "log")
    assert (v.property, v.event, v.line, v.time, v.args, v.witness) == (
        "closeOnlyOpen", 3, 3, None, ("log",), None
    )
    m.step("open", "tmp")
    assert [v.property for v in m.step("open", "tmp")] == ["noReopen"]
    assert m.events == 5


def test_time_and_witness():
    m = hindsight.Monitor(
        "prop deadline : Forall m . complete(m) -> P[<=3] dispatch(m)", witness=True
    )
    assert m.step("dispatch", "m1", time=10) == []
    assert m.step("complete", "m1", time=13) == []
    [v] = m.step("complete", "m1", time=14)
    assert (v.event, v.time, v.witness) == (3, 14, {"m": "m1"})


def test_arguments_that_are_not_text():
    m = hindsight.Monitor("prop p : Forall x . b(x) -> P a(x)")
    m.step("a", 7)
    assert m.step("b", "7") == []
    assert [v.event for v in m.step("b", 8.5)] == [3]


def test_a_refused_event_changes_nothing():
    m = hindsight.Monitor(FILES)
    m.step("open", "a")
    with pytest.raises(hindsight.TraceError) as e:
        m.step("open", "a", "b")
    assert e.value.line == 2
    assert e.value.message == "event `open` has 2 arguments, but the specification uses it with 1"
    assert m.events == 1
    assert [v.event for v in m.step("open", "a")] == [2]


def test_strict_time_stops_the_monitor():
    m = hindsight.Monitor("prop p : Forall x . b(x) -> P[<=2] a(x)", strict_time=True)
    m.step("a", "x", time=5)
    with pytest.raises(hindsight.TraceError) as e:
        m.step("a", "x", time=4)
    assert "time stamp 4 is smaller than the previous one, 5" in e.value.message
    assert e.value.line == 2
    with pytest.raises(hindsight.TraceError, match="stopped"):
        m.step("a", "x", time=6)


def test_step_many():
    m = hindsight.Monitor(FILES)
    found = m.step_many([("open", "a"), ("close", "a"), ["close", "a"], ("open", "b"), ("open", "b")])
    assert [(v.property, v.event) for v in found] == [("closeOnlyOpen", 3), ("noReopen", 5)]
    timed = hindsight.Monitor("prop deadline : Forall m . complete(m) -> P[<=3] dispatch(m)")
    found = timed.step_many(iter([("dispatch", "x", 0), ("complete", "x", 4)]), timed=True)
    assert [(v.event, v.time) for v in found] == [(2, 4)]
    with pytest.raises(ValueError):
        m.step_many([()])


def test_step_many_agrees_with_run():
    import csv

    with open(spec_path("locks.csv"), newline="") as f:
        events = [tuple(r) for r in csv.reader(f) if r]
    with open(spec_path("locks.qtl")) as f:
        m = hindsight.Monitor(f.read())
    stepped = [(v.property, v.event) for v in m.step_many(events)]
    ran = hindsight.run(spec_path("locks.qtl"), spec_path("locks.csv"))
    assert stepped == [(v.property, v.event) for v in ran.violations]
    assert stepped


def test_mfotl_monitor():
    with open(spec_path("payments.mfotl")) as f:
        formula = f.read()
    with open(spec_path("payments.sig")) as f:
        signature = f.read()
    m = hindsight.Monitor(formula, signature=signature, negate=True)
    m.step("approve", "p1", time=0)
    assert m.step("pay", "p1", 1500, time=4) == []
    [v] = m.step("pay", "p2", "2000", time=5)
    assert (v.event, v.args) == (3, ("p2", "2000"))
    with pytest.raises(hindsight.TraceError) as e:
        m.step("pay", "p2", "lots", time=6)
    assert "is not an int" in e.value.message
    with pytest.raises(hindsight.TraceError, match="does not declare `refund`"):
        m.step("refund", "p2", time=6)


def test_future_operators_decide_later():
    m = hindsight.Monitor("prop answered : Forall r . req(r) -> F[<=2] resp(r)")
    assert m.step("req", "a") == []
    assert m.step("resp", "a") == []
    assert m.step("req", "b") == []
    assert m.step("x", "c") == []
    [v] = m.step("y", "d")
    assert (v.event, v.args) == (3, ("b",))
    m.step("req", "c")
    assert m.finish() == []  # req(c) is left undecided: the trace may go on
    closed = hindsight.Monitor(
        "prop answered : Forall r . req(r) -> F[<=2] resp(r)", end_of_trace="close"
    )
    closed.step("req", "c")
    assert [v.event for v in closed.finish()] == [1]
    assert closed.events == 1
    with pytest.raises(hindsight.TraceError, match="stopped: finish"):
        closed.step("req", "d")


def test_spec_errors():
    with pytest.raises(hindsight.SpecError) as e:
        hindsight.Monitor("prop p : a ->\n")
    assert e.value.line == 1 and e.value.column is not None
    with pytest.raises(hindsight.SpecError) as e:
        hindsight.Monitor("pay(p) AND", signature="pay(p:string)\n")
    assert e.value.line == 1
    assert str(e.value).startswith("<formula>:1:")
    with pytest.raises(ValueError):
        hindsight.Monitor("prop p : a -> P b", end_of_trace="later")
