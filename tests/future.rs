//! The bounded future operators (`X`, `F`, `G`, `U`) against the reference
//! evaluator: every verdict the engine gives, however early, is the one of
//! the whole trace; the steps it leaves undecided at the end are the last
//! ones; and on hand-made traces, the exact steps decided and violated.
//!
//! The number of generated cases is 256, or `HINDSIGHT_PROPTEST_CASES`.

#[allow(dead_code)]
mod support;

use std::collections::BTreeSet;

use hindsight::check::{Checked, check_source};
use hindsight::runtime::{GcPolicy, Monitor, MonitorOptions};
use hindsight::syntax::{Form, FormId};
use proptest::prelude::*;

use support::reference::{self, Event};
use support::strategies;

/// What the engine gives on a trace: the violations (property, event
/// number from 1) of the steps it decided, and how many steps it decided.
fn engine(
    spec: &str,
    trace: &[Event],
    timed: bool,
    options: MonitorOptions,
) -> (BTreeSet<(usize, usize)>, u64) {
    let mut m = Monitor::from_source(spec, options)
        .unwrap_or_else(|d| panic!("the engine rejects a well-formed spec: {d:?}\n{spec}"));
    m.set_step_clock(!timed);
    let mut out = BTreeSet::new();
    let mut decided = 0u64;
    for (i, e) in trace.iter().enumerate() {
        let args: Vec<&[u8]> = e.args.iter().map(|a| a.as_bytes()).collect();
        let now = m
            .step(e.name.as_bytes(), &args, e.time)
            .unwrap_or_else(|err| panic!("engine error at event {}: {err}\n{spec}", i + 1))
            .to_vec();
        if m.has_future() {
            assert!(now.is_empty(), "a delayed monitor gave a verdict at once");
            for d in m.take_decided() {
                assert_eq!(d.step, decided, "steps decided out of order\n{spec}");
                decided += 1;
                out.extend(
                    d.violations
                        .iter()
                        .map(|v| (v.property, d.step as usize + 1)),
                );
            }
        } else {
            decided += 1;
            out.extend(now.iter().map(|&p| (p, i + 1)));
        }
    }
    assert_eq!(
        m.undecided(),
        trace.len() as u64 - decided,
        "undecided steps miscounted\n{spec}"
    );
    (out, decided)
}

/// The verdicts the engine gives at the end of a trace left open, beyond
/// the steps it decided in order: the steps (from 1) it settled, and the
/// violations among them. A settled verdict holds for every continuation,
/// so also for none.
fn settled(
    spec: &str,
    trace: &[Event],
    timed: bool,
    options: MonitorOptions,
) -> (BTreeSet<usize>, BTreeSet<(usize, usize)>) {
    let mut m = Monitor::from_source(spec, options).unwrap_or_else(|d| panic!("{d:?}"));
    m.set_step_clock(!timed);
    for e in trace {
        let args: Vec<&[u8]> = e.args.iter().map(|a| a.as_bytes()).collect();
        m.step(e.name.as_bytes(), &args, e.time)
            .unwrap_or_else(|err| panic!("engine error: {err}\n{spec}"));
    }
    let open = m.finish_trace(false);
    let mut steps = BTreeSet::new();
    let mut violations = BTreeSet::new();
    for d in m.take_decided() {
        steps.insert(d.step as usize + 1);
        violations.extend(
            d.violations
                .iter()
                .map(|v| (v.property, d.step as usize + 1)),
        );
    }
    for (step, _) in open {
        assert!(
            !steps.contains(&(step as usize + 1)),
            "a step both settled and open"
        );
    }
    (steps, violations)
}

fn configurations() -> [MonitorOptions; 3] {
    let narrow = MonitorOptions {
        start_bits: 1,
        ..MonitorOptions::default()
    };
    let gc = MonitorOptions {
        gc: GcPolicy::Always,
        ..narrow.clone()
    };
    [MonitorOptions::default(), narrow, gc]
}

/// How far a property looks ahead, in time units of an untimed trace (one
/// per event): the largest sum of the upper bounds of the future operators
/// (1 for `X`) on a path from the statement down, through rule calls.
fn reach(checked: &Checked, prop: usize) -> u64 {
    let p = &checked.props[prop];
    let arena = &checked.arena;
    // Rules refer to rules only under `@` and outside future operators, so
    // iterating from 0 reaches the fixed point within a few rounds.
    let mut rules = vec![0u64; p.rules.len()];
    let of = |id: FormId, rules: &[u64]| -> u64 {
        let mut best = 0;
        let mut stack = vec![(id, 0u64)];
        while let Some((f, depth)) = stack.pop() {
            let form = arena.form(f);
            let own = match form {
                Form::Next(..) => 1,
                Form::Eventually(t, _) | Form::Always(t, _) | Form::Until(t, ..) => {
                    t.and_then(|t| t.hi).unwrap_or(0)
                }
                Form::Call { name, .. } => {
                    if let Some(k) = p.rules.iter().position(|r| r.name.name == name.name) {
                        best = best.max(depth + rules[k]);
                    }
                    0
                }
                _ => 0,
            };
            best = best.max(depth + own);
            stack.extend(form.children().map(|c| (c, depth + own)));
        }
        best
    };
    for _ in 0..=p.rules.len() {
        let next: Vec<u64> = p.rules.iter().map(|r| of(r.body, &rules)).collect();
        if next == rules {
            break;
        }
        rules = next;
    }
    of(p.body, &rules)
}

fn differ(spec: &str, trace: &[Event], timed: bool) -> Result<(), TestCaseError> {
    if std::env::var("FUTURE_DEBUG").is_ok() {
        eprintln!("---\n{spec}\n{}", strategies::trace_text(trace));
    }
    let checked = check_source(spec).unwrap_or_else(|d| panic!("not well-formed: {d:?}\n{spec}"));
    let expected = reference::violations_clocked(&checked, trace, !timed);
    // In an untimed trace, a step is decided once every later step its
    // verdict may depend on is known (the next one comes a unit later).
    let must_decide = if timed {
        0
    } else {
        let most = (0..checked.props.len())
            .map(|p| reach(&checked, p))
            .max()
            .unwrap_or(0);
        (trace.len() as u64).saturating_sub(most)
    };
    for options in configurations() {
        let (found, decided) = engine(spec, trace, timed, options);
        prop_assert!(
            decided >= must_decide,
            "only {} steps decided, {} expected\nspec:\n{}\ntrace:\n{}",
            decided,
            must_decide,
            spec,
            strategies::trace_text(trace)
        );
        let within: BTreeSet<(usize, usize)> = expected
            .iter()
            .copied()
            .filter(|&(_, i)| i as u64 <= decided)
            .collect();
        prop_assert_eq!(
            &found,
            &within,
            "engine and reference differ on the {} decided steps\nspec:\n{}\ntrace ({}):\n{}",
            decided,
            spec,
            if timed { "timed" } else { "untimed" },
            strategies::trace_text(trace)
        );
    }
    let (steps, violations) = settled(spec, trace, timed, MonitorOptions::default());
    let want: BTreeSet<(usize, usize)> = (expected.iter().copied())
        .filter(|(_, i)| steps.contains(i))
        .collect();
    prop_assert_eq!(
        &violations,
        &want,
        "the verdicts settled at the end differ from the reference's\nspec:\n{}\ntrace ({}):\n{}",
        spec,
        if timed { "timed" } else { "untimed" },
        strategies::trace_text(trace)
    );
    Ok(())
}

fn cases() -> u32 {
    std::env::var("HINDSIGHT_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_global_rejects: 1_000_000, ..ProptestConfig::default() })]

    /// Random formulas mixing past and future operators, quantifiers,
    /// comparisons, macros and rules, on timed and untimed traces.
    #[test]
    fn future_engine_agrees_with_reference(spec in strategies::spec_future(), trace in strategies::trace()) {
        let timed = trace.is_timed();
        differ(&spec.to_qtl(), &trace.events(), timed)?;
    }
}

/// Bodies of guarded statements (the point form of the engine): connectives,
/// `X`, `F`, `G` and `U` over events and comparisons of `x` and `y`.
fn guarded_body() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("p(x)".to_string()),
        Just("p(y)".to_string()),
        Just("q(x, y)".to_string()),
        Just("q(y, \"a\")".to_string()),
        Just("s(x)".to_string()),
        Just("r".to_string()),
        Just("true".to_string()),
        Just("(x = y)".to_string()),
        Just("P s(y)".to_string()),
    ];
    let bound = || {
        prop_oneof![
            (0..4u64).prop_map(|d| format!("[<={d}]")),
            (0..3u64, 0..3u64).prop_map(|(a, l)| format!("[{a},{}]", a + l)),
        ]
    };
    leaf.prop_recursive(4, 24, 2, move |inner| {
        prop_oneof![
            inner.clone().prop_map(|a| format!("!{a}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} & {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} | {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} -> {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} <-> {b})")),
            inner.clone().prop_map(|a| format!("X {a}")),
            (bound(), inner.clone()).prop_map(|(t, a)| format!("X{t} {a}")),
            (bound(), inner.clone()).prop_map(|(t, a)| format!("F{t} {a}")),
            (bound(), inner.clone()).prop_map(|(t, a)| format!("G{t} {a}")),
            (bound(), inner.clone(), inner.clone()).prop_map(|(t, a, b)| format!("({a} U{t} {b})")),
        ]
    })
}

/// Guarded statements: `guard -> body` and MonPoly's `!(guard & body)`.
fn guarded_spec() -> impl Strategy<Value = String> {
    (guarded_body(), any::<bool>()).prop_map(|(body, implies)| {
        if implies {
            format!("prop g : Forall x . Forall y . q(x, y) -> {body}\n")
        } else {
            format!("prop g : Forall x . Forall y . !(q(y, x) & {body})\n")
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_global_rejects: 1_000_000, ..ProptestConfig::default() })]

    /// Statements false only at their guard's tuples, decided pointwise.
    #[test]
    fn guarded_future_statements_agree_with_reference(spec in guarded_spec(), trace in strategies::trace()) {
        let timed = trace.is_timed();
        differ(&spec, &trace.events(), timed)?;
    }
}

/// The violating event numbers and the steps left undecided of `spec` on an
/// untimed trace of `events` (each `name` or `name,arg`).
fn run_untimed(spec: &str, events: &[&str]) -> (Vec<usize>, u64) {
    let trace: Vec<Event> = events
        .iter()
        .map(|e| {
            let mut parts = e.split(',');
            let name = parts.next().unwrap_or_default();
            Event::new(name, &parts.collect::<Vec<_>>(), 0)
        })
        .collect();
    let (found, decided) = engine(spec, &trace, false, MonitorOptions::default());
    let violating = found.into_iter().map(|(_, i)| i).collect();
    (violating, trace.len() as u64 - decided)
}

#[test]
fn eventually_within_counts_events_in_an_untimed_trace() {
    let spec = "prop answered : Forall r . req(r) -> F[<=2] resp(r)";
    // req(a) answered 2 events later; req(b) never; the last two undecided.
    let (v, undecided) = run_untimed(
        spec,
        &[
            "req,a", "x", "resp,a", "req,b", "x", "x", "resp,b", "req,c", "x",
        ],
    );
    assert_eq!(v, [4]);
    assert_eq!(undecided, 2);
}

#[test]
fn next_looks_at_the_following_event_only() {
    let spec = "prop ack : Forall m . send(m) -> X ack(m)";
    let (v, undecided) = run_untimed(spec, &["send,1", "ack,1", "send,2", "x", "ack,2", "send,3"]);
    assert_eq!(v, [3]);
    assert_eq!(undecided, 1);
}

#[test]
fn always_within_a_window_that_starts_later() {
    // After `lock`, no `write` from 1 to 2 events later.
    let spec = "prop quiet : lock -> G[1,2] !write";
    let (v, undecided) = run_untimed(spec, &["lock", "x", "write", "lock", "x", "x", "write"]);
    assert_eq!(v, [1]);
    // Events 5 and 6 are decided early (the write at 7 is in their
    // windows); event 7's window reaches beyond the trace, but no `lock`
    // there decides it at once.
    assert_eq!(undecided, 0);
}

#[test]
fn until_needs_its_left_operand_up_to_the_right_one() {
    let spec = "prop waits : Forall j . start(j) -> X (busy(j) U[<=3] done(j))";
    let (v, undecided) = run_untimed(
        spec,
        &["start,1", "busy,1", "done,1", "start,2", "x", "done,2"],
    );
    // start(2): at event 5 busy(2) does not hold before done(2); the last
    // event would wait for the next one, but starts nothing.
    assert_eq!(v, [4]);
    assert_eq!(undecided, 0);
}

/// A QTL comparison at an event holds only at the values seen up to that
/// event, also when a future operator decides the event later: with
/// `G[<=0] true` (which is `true`) in place of `true`, `x <= x` at event 1
/// still has no value of `x`, although event 2 binds `x` to 2.
#[test]
fn a_comparison_reads_the_values_seen_up_to_its_event() {
    for lhs in ["true", "G[<=0] true", "G[<=1] P true"] {
        let spec = format!("prop c : Forall x . (({lhs}) S x <= x) -> q(x, x)");
        let (v, _) = run_untimed(&spec, &["p,1", "q,2,2", "p,3", "q,2,2", "q,2,2"]);
        // At event 3, x = 2 (seen at event 2) satisfies the since, and
        // q(2, 2) does not hold; at events 4 and 5 it does.
        assert_eq!(v, [3], "{lhs}");
    }
}

/// Runs one case from the files named by `FUTURE_SPEC` and `FUTURE_TRACE`
/// (a trace in the text form of `strategies::trace_text`, `FUTURE_TIMED`
/// set for a timed one): for minimizing by hand.
#[test]
#[ignore]
fn replay() {
    let read = |var: &str| {
        std::fs::read_to_string(std::env::var(var).unwrap_or_default()).unwrap_or_default()
    };
    let spec = read("FUTURE_SPEC");
    let trace: Vec<Event> = read("FUTURE_TRACE")
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let fields: Vec<&str> = l.split(',').collect();
            let (name, rest) = fields.split_first().unwrap_or((&"", &[]));
            let (time, args) = rest.split_last().unwrap_or((&"0", &[]));
            Event::new(name, args, time.parse().unwrap_or(0))
        })
        .collect();
    let timed = std::env::var("FUTURE_TIMED").is_ok();
    if let Err(e) = differ(&spec, &trace, timed) {
        panic!("{e}");
    }
}

/// A future body and its past mirror: `F`↔`P`, `G`↔`H`, `U`↔`S`, `X`↔`@`,
/// with the same intervals, over events of `x` and `y`. (No comparisons:
/// they hold for the values seen so far, which the mirror does not keep.)
fn mirrored_body() -> impl Strategy<Value = (String, String)> {
    let leaf = prop_oneof![
        Just("p(x)"),
        Just("p(y)"),
        Just("q(x, y)"),
        Just("s(x)"),
        Just("r"),
        Just("true"),
    ]
    .prop_map(|a| (a.to_string(), a.to_string()));
    let bound = || {
        prop_oneof![
            (0..4u64).prop_map(|d| format!("[<={d}]")),
            (0..3u64, 0..3u64).prop_map(|(a, l)| format!("[{a},{}]", a + l)),
        ]
    };
    leaf.prop_recursive(3, 16, 2, move |inner| {
        prop_oneof![
            inner
                .clone()
                .prop_map(|(f, p)| (format!("!{f}"), format!("!{p}"))),
            (inner.clone(), inner.clone())
                .prop_map(|((f, p), (g, q))| (format!("({f} & {g})"), format!("({p} & {q})"))),
            (inner.clone(), inner.clone())
                .prop_map(|((f, p), (g, q))| (format!("({f} | {g})"), format!("({p} | {q})"))),
            inner
                .clone()
                .prop_map(|(f, p)| (format!("X {f}"), format!("@ {p}"))),
            (bound(), inner.clone())
                .prop_map(|(t, (f, p))| (format!("X{t} {f}"), format!("@{t} {p}"))),
            (bound(), inner.clone())
                .prop_map(|(t, (f, p))| (format!("F{t} {f}"), format!("P{t} {p}"))),
            (bound(), inner.clone())
                .prop_map(|(t, (f, p))| (format!("G{t} {f}"), format!("H{t} {p}"))),
            (bound(), inner.clone(), inner.clone()).prop_map(|(t, (f, p), (g, q))| {
                (format!("({f} U{t} {g})"), format!("({p} S{t} {q})"))
            }),
        ]
    })
}

/// The trace read backwards: the last event first, and time running from
/// the greatest stamp down (`t` becomes `last - t`).
fn reversed(trace: &[Event]) -> Vec<Event> {
    let last = trace.iter().map(|e| e.time).max().unwrap_or(0);
    (trace.iter().rev())
        .map(|e| Event {
            time: last - e.time,
            ..e.clone()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_global_rejects: 1_000_000, ..ProptestConfig::default() })]

    /// `F[a,b] φ` and `!G[a,b] !φ` give the same verdicts at the same steps.
    #[test]
    fn eventually_is_not_always_not(
        (body, _) in mirrored_body(),
        t in (0..3u64, 0..3u64),
        trace in strategies::trace(),
    ) {
        let timed = trace.is_timed();
        let events = trace.events();
        let bound = format!("[{},{}]", t.0, t.0 + t.1);
        let f = format!("prop g : Forall x . Forall y . q(x, y) -> F{bound} {body}\n");
        let g = format!("prop g : Forall x . Forall y . q(x, y) -> !G{bound} !{body}\n");
        for options in configurations() {
            prop_assert_eq!(
                engine(&f, &events, timed, options.clone()),
                engine(&g, &events, timed, options),
                "{} and {} differ", f, g
            );
        }
        prop_assert_eq!(
            settled(&f, &events, timed, MonitorOptions::default()),
            settled(&g, &events, timed, MonitorOptions::default())
        );
    }

    /// A future statement on a trace and its past mirror on the reversed
    /// trace: the verdict at event i of the one is that at event n + 1 - i
    /// of the other, wherever the future one is decided.
    #[test]
    fn a_future_statement_mirrors_its_past_form_on_the_reversed_trace(
        (future, past) in mirrored_body(),
        trace in strategies::trace(),
    ) {
        let timed = trace.is_timed();
        let events = trace.events();
        let n = events.len();
        let f = format!("prop g : Forall x . Forall y . q(x, y) -> {future}\n");
        let p = format!("prop g : Forall x . Forall y . q(x, y) -> {past}\n");
        let checked = check_source(&p).unwrap_or_else(|d| panic!("{d:?}\n{p}"));
        let mirror: BTreeSet<usize> = reference::violations_clocked(&checked, &reversed(&events), !timed)
            .into_iter()
            .map(|(_, i)| n + 1 - i)
            .collect();
        let (found, decided) = engine(&f, &events, timed, MonitorOptions::default());
        let found: BTreeSet<usize> = found.into_iter().map(|(_, i)| i).collect();
        let (steps, late) = settled(&f, &events, timed, MonitorOptions::default());
        let late: BTreeSet<usize> = late.into_iter().map(|(_, i)| i).collect();
        let want: BTreeSet<usize> = (mirror.iter().copied())
            .filter(|&i| i as u64 <= decided || steps.contains(&i))
            .collect();
        let got: BTreeSet<usize> = found.union(&late).copied().collect();
        prop_assert_eq!(got, want, "{} against {} on the reversed trace:\n{}", f, p, strategies::trace_text(&events));
    }
}

#[test]
fn a_guard_of_many_variables_is_matched_value_by_value() {
    // Nine variables (more than a tuple kept on the stack); answers must
    // repeat every value, in its place.
    let vars = "a, b, c, d, e, f, g, h, i";
    let spec = format!(
        "prop answered : Forall a . Forall b . Forall c . Forall d . Forall e . Forall f . \
         Forall g . Forall h . Forall i . req({vars}) -> F[<=2] resp({vars})"
    );
    let (v, undecided) = run_untimed(
        &spec,
        &[
            "req,1,2,3,4,5,6,7,8,9",
            "resp,1,2,3,4,5,6,7,8,9",
            "req,1,2,3,4,5,6,7,8,9",
            "resp,1,2,3,4,5,6,7,9,8",
            "x",
            "req,9,9,9,9,9,9,9,9,9",
            "x",
        ],
    );
    assert_eq!(v, [3]);
    assert_eq!(undecided, 2);
}
