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
