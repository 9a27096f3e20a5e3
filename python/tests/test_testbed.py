"""hindsight.equiv and hindsight.gen."""

import pytest

import hindsight
from conftest import spec_path

T1 = """prop t : Forall x . closed(x) -> !telem(x)
  where closed(x) := toggle(x) <-> @!closed(x)
"""
T2 = """prop t : Forall x . closed(x) -> !telem(x) where
  closed(x) := (!@true & !toggle(x)) | (@closed(x) & !toggle(x)) | (@open(x) & toggle(x)),
  open(x)   := (@open(x) & !toggle(x)) | (@closed(x) & toggle(x))
"""


def test_equiv_finds_the_papers_difference(write):
    a, b = write("t1.qtl", T1), write("t2.qtl", T2)
    r = hindsight.equiv(a, b)
    assert not r.equivalent and not r
    assert r.trace == [("toggle", "0"), ("toggle", "0"), ("telem", "0")]
    assert r.verdicts == [([], []), ([], []), (["t"], [])]
    # The trace, monitored: the first violates at event 3, the second never.
    assert [v.event for v in hindsight.Monitor(T1).step_many(r.trace)] == [3]
    assert hindsight.Monitor(T2).step_many(r.trace) == []


def test_equiv_of_a_spec_with_itself(write):
    a = write("t1.qtl", T1)
    r = hindsight.equiv(a, a, length=3, values=1, random=10, random_length=5, seed=4)
    assert r.equivalent and r.trace == []
    assert r.searched == {
        "length": 3,
        "events": 3,
        "values": ["0"],
        "traces": 39,
        "random": 10,
        "random_length": 5,
        "seed": 4,
    }


def test_equiv_qtl_against_mfotl(write):
    q = write(
        "pay.qtl",
        "prop payments : Forall p . Forall a . "
        "pay(p, a) & a > 1000 -> (!revoke(p) S[1,10] approve(p))\n",
    )
    r = hindsight.equiv(
        spec_path("payments.mfotl"), q, sig=spec_path("payments.sig"), negate=True, values=3
    )
    assert r.equivalent
    assert r.searched["values"] == ["1000", "1001", "0"]


def test_equiv_with_future_operators(write):
    nxt = write("next.qtl", "prop p : req -> X resp\n")
    later = write("later.qtl", "prop p : req -> F[<=2] resp\n")
    r = hindsight.equiv(nxt, later)
    assert r.trace == [("req",), ("req",), ("resp",)]
    assert r.verdicts == [(["p"], []), ([], []), ([], [])]
    assert r.undecided == [([], []), ([], []), ([], [])]


def test_equiv_refuses_what_it_cannot_compare(write):
    a = write("a.qtl", "prop p : Forall x . a(x) -> P b(x)\n")
    b = write("b.qtl", "prop p : Forall x . Forall y . a(x, y) -> P b(x)\n")
    with pytest.raises(hindsight.SpecError, match="event `a` has 1 argument"):
        hindsight.equiv(a, b)
    with pytest.raises(hindsight.SpecError) as e:
        hindsight.equiv(write("bad.qtl", "prop p : a(x)\n"), a)
    assert e.value.line == 1


def test_gen_is_fixed_by_its_seed():
    a = hindsight.gen(spec_path("file_access.qtl"), events=30, values=2, seed=5)
    assert a == hindsight.gen(spec_path("file_access.qtl"), events=30, values=2, seed=5)
    assert a != hindsight.gen(spec_path("file_access.qtl"), events=30, values=2, seed=6)
    assert len(a) == 30
    assert {e[0] for e in a} <= {"open", "close", "read", "write"}
    assert {e[1] for e in a} <= {"0", "1"}
    timed = hindsight.gen(spec_path("deadline.qtl"), events=10, timed=True, max_gap=2)
    times = [e[-1] for e in timed]
    assert times[0] == 0 and all(0 <= b - a <= 2 for a, b in zip(times, times[1:]))
    # A generated trace goes straight into a monitor.
    with open(spec_path("deadline.qtl")) as f:
        hindsight.Monitor(f.read()).step_many(timed, timed=True)
