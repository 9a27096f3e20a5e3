"""hindsight.run: exact violations, summaries, options, and errors."""

import pytest

import hindsight
from conftest import spec_path


def events(outcome):
    return [(v.property, v.event) for v in outcome.violations]


def test_run_reports_every_violation():
    o = hindsight.run(spec_path("file_access.qtl"), spec_path("file_access.csv"))
    assert o.status == "Violated"
    assert events(o) == [
        ("accessWhileOpen", 1),
        ("accessWhileOpen", 5),
        ("accessWhileOpen", 8),
        ("noReopen", 9),
        ("accessWhileOpen", 11),
    ]
    v = o.violations[0]
    assert (v.line, v.time, v.args, v.witness) == (1, None, ("cfg",), None)
    assert o.summary["events"] == 13
    assert o.summary["counts"] == {"close": 3, "open": 4, "read": 4, "write": 2}
    assert o.summary["violations"] == {"accessWhileOpen": 4, "noReopen": 1}
    assert o.summary["first"] == {"accessWhileOpen": 1, "noReopen": 9}


def test_run_satisfied_and_sequential_or_parallel_alike():
    o = hindsight.run(spec_path("file_access.qtl"), spec_path("file_access-ok.csv"))
    assert (o.status, o.violations) == ("Satisfied", [])
    a = hindsight.run(spec_path("locks.qtl"), spec_path("locks.csv"), jobs=1)
    b = hindsight.run(spec_path("locks.qtl"), spec_path("locks.csv"), jobs=2)
    assert events(a) == events(b) and a.violations


def test_witnesses_strict_and_skipped_lines_alike_on_one_or_two_jobs(tmp_path):
    # Two jobs take the parallel engine on a file, whatever the options (its
    # session steps sequentially where they need it): the same outcome.
    lines = open(spec_path("file_access.csv")).read().splitlines()
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines[:4] + ["read"] + lines[4:]) + "\n")
    spec, trace = spec_path("file_access.qtl"), spec_path("file_access.csv")
    for path, opts in [
        (trace, {"witness": True}),
        (trace, {"strict": True}),
        (str(bad), {"skip_bad_lines": True, "max_skipped": 0.5}),
    ]:
        a = hindsight.run(spec, path, jobs=1, **opts)
        b = hindsight.run(spec, path, jobs=2, **opts)
        assert events(a) == events(b) == [
            ("accessWhileOpen", 1),
            ("accessWhileOpen", 5),
            ("accessWhileOpen", 8),
            ("noReopen", 9),
            ("accessWhileOpen", 11),
        ], opts
        assert [v.witness for v in a.violations] == [v.witness for v in b.violations]
        assert a.summary["skipped"] == b.summary["skipped"]
    assert a.summary["skipped"] == 1


def test_witness_and_time():
    o = hindsight.run(spec_path("file_access.qtl"), spec_path("file_access.csv"), witness=True)
    assert [v.witness for v in o.violations][:3] == [{"f": "cfg"}, {"f": "db"}, {"f": "cfg"}]
    o = hindsight.run(spec_path("deadline.qtl"), spec_path("deadline.timed.csv"))
    assert [(v.property, v.event, v.time) for v in o.violations] == [
        ("deadline", 4, 5),
        ("cooldown", 9, 8),
        ("deadline", 11, 9),
        ("deadline", 14, 12),
        ("deadline", 15, 12),
    ]
    assert o.violations[0].args == ("c2",)


def test_mfotl_with_signature():
    o = hindsight.run(
        spec_path("payments.mfotl"),
        spec_path("payments.timed.csv"),
        sig=spec_path("payments.sig"),
        negate=True,
    )
    assert [(v.event, v.time, v.args) for v in o.violations] == [
        (4, 5, ("p2", "2000")),
        (7, 9, ("p1", "1200")),
        (9, 21, ("p4", "5000")),
    ]


def test_trace_as_bytes():
    o = hindsight.run(spec_path("file_access.qtl"), b"open,a\nclose,a\nclose,a\n")
    assert [v.event for v in o.violations] == [3]


def test_bad_spec_raises_spec_error(write):
    path = write("bad.qtl", "prop p : Forall x . a(x) -> b(y)\n")
    with pytest.raises(hindsight.SpecError) as e:
        hindsight.run(path, spec_path("file_access.csv"))
    assert isinstance(e.value, ValueError)
    assert (e.value.line, e.value.column) == (1, 31)
    assert e.value.message.startswith("free variable `y`")
    assert str(e.value).startswith(path + ":1:31: error: free variable `y`")


def test_bad_signature_is_placed_in_the_signature(write):
    sig = write("bad.sig", "pay(p:string, amount:money)\n")
    with pytest.raises(hindsight.SpecError) as e:
        hindsight.run(spec_path("payments.mfotl"), spec_path("payments.timed.csv"), sig=sig)
    assert e.value.line == 1
    assert str(e.value).startswith(sig + ":1:")


def test_bad_trace_raises_trace_error_with_the_verdicts_so_far(write):
    trace = write("t.csv", "open,a\nclose,a\nclose,a\nopen\n")
    with pytest.raises(hindsight.TraceError) as e:
        hindsight.run(spec_path("file_access.qtl"), trace)
    assert isinstance(e.value, ValueError)
    assert e.value.line == 4
    assert "has 0 arguments, but the specification uses it with 1" in e.value.message
    assert e.value.outcome.status == "Failed"
    assert [v.event for v in e.value.outcome.violations] == [3]
    broken = write("q.csv", 'open,"a\n')
    with pytest.raises(hindsight.TraceError) as e:
        hindsight.run(spec_path("file_access.qtl"), broken)
    assert e.value.line == 1


def test_skip_bad_lines_and_strict(write):
    trace = write("t.csv", "open,a\nopen\nclose,a\nclose,a\n")
    o = hindsight.run(spec_path("file_access.qtl"), trace, skip_bad_lines=True, max_skipped=0.5)
    assert [v.event for v in o.violations] == [3]
    assert o.summary["skipped"] == 1
    with pytest.raises(hindsight.TraceError) as e:
        hindsight.run(spec_path("file_access.qtl"), write("u.csv", "open,a\nping\n"), strict=True)
    assert e.value.line == 2


def test_missing_file():
    with pytest.raises(OSError):
        hindsight.run(spec_path("nope.qtl"), spec_path("file_access.csv"))


def test_gil_is_released_while_a_run_works(tmp_path):
    import threading

    path = tmp_path / "big.csv"
    lines = []
    for i in range(300_000):
        f = i % 50
        lines.append(f"open,{f}\nread,{f}\nclose,{f}\n")
    path.write_text("".join(lines))
    state = {"started": False, "done": False}

    def work():
        state["started"] = True
        hindsight.run(spec_path("file_access.qtl"), str(path), jobs=1)
        state["done"] = True

    t = threading.Thread(target=work)
    t.start()
    while not state["started"]:
        pass
    ticks = 0
    while not state["done"]:
        ticks += 1
    t.join()
    # With the GIL held for the run, this thread could not count at all
    # while it lasted (almost a second).
    assert ticks > 1000
