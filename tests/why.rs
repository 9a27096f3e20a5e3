//! `hindsight why` (issue 40) against the reference evaluator of
//! `support/reference.rs`: on generated specifications and traces, every
//! node of every explanation (a subformula under values, at an event, true
//! or false) is what the reference says, every cited event is an event atom
//! that holds there, and the explained verdict is the reference's.
//!
//! The number of generated cases is 256, or `HINDSIGHT_PROPTEST_CASES`.

#[allow(dead_code)]
mod support;

use hindsight::check::{Checked, check_source};
use hindsight::runtime::WitnessValue;
use hindsight::syntax::{Form, Quant};
use hindsight::why::events::Events;
use hindsight::why::{Node, WhyOptions, explain, intern_consts, replay};
use proptest::prelude::*;

use support::reference::{self, Event, Oracle};
use support::{gen_guarded, rewrite, strategies};

fn cases() -> u32 {
    std::env::var("HINDSIGHT_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256)
}

/// Checks one node and its subtree against the oracle.
fn check_node(
    checked: &Checked,
    oracle: &mut Oracle<'_>,
    node: &Node,
    text: &str,
) -> Result<(), TestCaseError> {
    let expected = oracle.holds(node.ctx, node.form, node.event as usize, &node.env);
    prop_assert_eq!(
        node.holds,
        expected,
        "node `{}` at {} (env {:?}) says {}, the reference {}\n{}",
        &node.formula,
        node.event,
        &node.env,
        node.holds,
        expected,
        text
    );
    for &e in &node.events {
        match checked.arena.form(node.form) {
            // An event atom that holds cites its own event.
            Form::Call { .. } => {
                prop_assert_eq!(e, node.event);
                prop_assert!(node.holds);
            }
            // A comparison that holds, and a quantifier over the values
            // seen decided by one value, cite the events where the values
            // were first seen: earlier, and without them the node would
            // not have its value.
            Form::Cmp { .. } => {
                prop_assert!(node.holds && e >= 1 && e <= node.event);
            }
            Form::Quant(q, _, _) => {
                prop_assert!(matches!(q, Quant::ExistsSeen | Quant::ForallSeen) && e <= node.event);
            }
            _ => prop_assert!(false, "a cited event on `{}`", &node.formula),
        }
    }
    for c in &node.children {
        check_node(checked, oracle, c, text)?;
    }
    Ok(())
}

/// Explains every property at every event and checks each explanation.
fn agree(text: &str, trace: &[Event]) -> Result<(), TestCaseError> {
    let checked = check_source(text);
    prop_assume!(checked.is_ok(), "the generated spec is not well-formed");
    let checked = checked.unwrap();
    let violations = reference::violations(&checked, trace);
    let mut events = Events::new();
    for (i, e) in trace.iter().enumerate() {
        let args: Vec<&[u8]> = e.args.iter().map(|a| a.as_bytes()).collect();
        events.push(e.name.as_bytes(), &args, e.time, false, i as u64 + 1);
    }
    let consts = intern_consts(&checked, &mut events);
    let options = WhyOptions {
        max_nodes: 400,
        ..WhyOptions::default()
    };
    for p in 0..checked.props.len() {
        let mut oracle = Oracle::new(&checked, p, trace);
        for i in 1..=trace.len() {
            let violated = violations.contains(&(p, i));
            let witness: Option<Vec<(String, WitnessValue)>> = violated.then(Vec::new);
            let e = explain(&checked, p, &events, &consts, i, witness, &options);
            let e = match e {
                Ok(e) => e,
                Err(err) => {
                    return Err(TestCaseError::fail(format!(
                        "property {p} event {i}: {err}\n{text}"
                    )));
                }
            };
            prop_assert_eq!(e.proof.holds, !violated, "root verdict at {}\n{}", i, text);
            check_node(&checked, &mut oracle, &e.proof, text)?;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_global_rejects: 1_000_000, ..ProptestConfig::default() })]

    #[test]
    fn explanations_agree_with_reference(spec in strategies::spec(), trace in strategies::trace()) {
        agree(&spec.to_qtl(), &trace.events())?;
    }

    /// Specifications with bounded future operators.
    #[test]
    fn explanations_of_future_operators_agree_with_reference(
        spec in strategies::spec_future(),
        trace in strategies::trace(),
    ) {
        agree(&spec.to_qtl(), &trace.events())?;
    }

    /// Specifications that reuse variable names, with rules and macros.
    #[test]
    fn explanations_agree_with_reference_when_names_are_reused(
        spec in strategies::spec_with_definitions(1..=2),
        trace in strategies::trace(),
    ) {
        let text = rewrite::reusing_names(&spec.to_qtl());
        prop_assume!(text.is_some(), "the generated spec does not parse");
        agree(&text.unwrap_or_default(), &trace.events())?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_global_rejects: 1_000_000, ..ProptestConfig::default() })]

    /// Statements guarded by an event atom, some below other quantifiers
    /// (`Forall x . Forall y . Forall w . (q(x, w) & φ) -> ψ`): the
    /// explanation tries only the values the event binds.
    #[test]
    fn explanations_of_guarded_statements_agree_with_reference(
        spec in gen_guarded::spec(),
        trace in gen_guarded::trace(12),
    ) {
        agree(&spec, &trace)?;
    }
}

/// `trace` with event `k` repeated `copies[k]` more times (cycling through
/// `copies`), untimed: each event's time is its number.
fn with_repeats(trace: &[Event], copies: &[usize]) -> Vec<Event> {
    let mut out: Vec<Event> = Vec::new();
    for (k, e) in trace.iter().enumerate() {
        for _ in 0..=copies[k % copies.len()] {
            out.push(Event {
                time: out.len() as u64 + 1,
                ..e.clone()
            });
        }
    }
    out
}

/// An untimed CSV trace. With `vary`, every other line ends with a blank,
/// so that no line is the same bytes as the one before it: the same
/// events, read one by one (no run of repeated records is taken at once).
fn csv(trace: &[Event], vary: bool) -> String {
    let mut out = String::new();
    for (k, e) in trace.iter().enumerate() {
        out += &e.name;
        for a in &e.args {
            out += ",";
            out += a;
        }
        if vary && k % 2 == 1 {
            out += " ";
        }
        out += "\n";
    }
    out
}

/// Explains every property at every event of `trace` (repeats in it) read
/// with the runs of repeated records taken at once and read one by one:
/// the explanations are the same, and agree with the reference. With
/// `past` (no future operator) every verdict is the reference's.
fn repeats_agree(text: &str, trace: &[Event], past: bool) -> Result<(), TestCaseError> {
    let checked = check_source(text);
    prop_assume!(checked.is_ok(), "the generated spec is not well-formed");
    let checked = checked.unwrap();
    let violations = reference::violations_clocked(&checked, trace, true);
    let (runs, one_by_one) = (csv(trace, false), csv(trace, true));
    for p in 0..checked.props.len() {
        let mut oracle = Oracle::new(&checked, p, trace);
        for i in 1..=trace.len() {
            let options = WhyOptions {
                event: i as u64,
                property: Some(checked.props[p].name.name.clone()),
                max_nodes: 400,
                ..WhyOptions::default()
            };
            let fast = replay(text, runs.as_bytes(), &options);
            let slow = replay(text, one_by_one.as_bytes(), &options);
            let (fast, slow) = match (fast, slow) {
                (Ok(f), Ok(s)) => (f, s),
                (Err(f), Err(s)) => {
                    prop_assert_eq!(f.to_string(), s.to_string());
                    continue;
                }
                (f, s) => {
                    return Err(TestCaseError::fail(format!(
                        "property {p} event {i}: {:?} with runs, {:?} one by one\n{text}",
                        f.err(),
                        s.err()
                    )));
                }
            };
            prop_assert_eq!(fast.len(), 1);
            let (e, s) = (&fast[0], &slow[0]);
            prop_assert_eq!(&e.proof, &s.proof, "property {} event {}\n{}", p, i, text);
            prop_assert_eq!(&e.cited, &s.cited);
            prop_assert_eq!(&e.assignment, &s.assignment);
            prop_assert_eq!((e.violated, e.line), (s.violated, s.line));
            // A violation the monitor reports is the reference's; with a
            // future operator a verdict whose horizon lies beyond the last
            // event is not reported (the proof still says what the
            // reference says of the finite trace: `check_node`).
            let expected = violations.contains(&(p, i));
            prop_assert!(
                e.violated == expected || !past && !e.violated,
                "at {}\n{}",
                i,
                text
            );
            if e.violated {
                prop_assert!(!e.proof.holds, "root verdict at {}\n{}", i, text);
            }
            check_node(&checked, &mut oracle, &e.proof, text)?;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases().div_ceil(4), max_global_rejects: 1_000_000, ..ProptestConfig::default() })]

    /// Runs of repeated records, which the replay takes at once as `run`
    /// does: the explanation is the one of the events read one by one.
    #[test]
    fn explanations_with_runs_of_repeats_are_those_without(
        spec in strategies::spec_with_definitions(0..=2),
        trace in strategies::trace(),
        copies in prop::collection::vec(prop_oneof![2 => Just(0usize), 1 => 1..6usize], 1..8),
    ) {
        let trace = with_repeats(&trace.events(), &copies);
        repeats_agree(&spec.to_qtl(), &trace, true)?;
    }

    /// The same with bounded future operators (a repeat is a step of its
    /// own there: at the last of a run the next event is another).
    #[test]
    fn explanations_of_future_operators_with_runs_of_repeats_are_those_without(
        spec in strategies::spec_future(),
        trace in strategies::trace(),
        copies in prop::collection::vec(prop_oneof![2 => Just(0usize), 1 => 1..6usize], 1..8),
    ) {
        let trace = with_repeats(&trace.events(), &copies);
        repeats_agree(&spec.to_qtl(), &trace, false)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases().div_ceil(8), max_global_rejects: 1_000_000, ..ProptestConfig::default() })]

    /// Fewer, larger cases: formulas about three times larger, longer traces.
    #[test]
    fn explanations_agree_with_reference_on_larger_cases(
        spec in strategies::spec_scaled(3),
        trace in strategies::trace_of(30, 60),
    ) {
        agree(&spec.to_qtl(), &trace.events())?;
    }
}

/// A property whose comparisons of arithmetic terms filter the values of
/// the events `p(x, n)`, `r(x, n)`, `q(x)` (no assignment: nothing computes
/// a new value), in the shapes `φ -> C`, `!(φ & C)`, and under a
/// quantifier inside a temporal operator.
fn filtering_spec() -> impl Strategy<Value = String> {
    let select = |v: &[&'static str]| prop::sample::select(v.to_vec());
    let operand = select(&[
        "p(u, n)",
        "P p(u, n)",
        "@ P p(u, n)",
        "(!q(u) S p(u, n))",
        "P[<=3] p(u, n)",
        "(p(u, n) | r(u, n))",
    ]);
    let term = select(&[
        "n * 2",
        "n + 1",
        "n - 3",
        "-n",
        "n / 2",
        "n * n",
        "(n + 1) * 2",
    ]);
    let relop = select(&["<", "<=", ">", ">=", "="]);
    let konst = select(&["0", "1", "2", "3", "5", "-1", "1.5"]);
    (0..4u8, operand, term, relop, konst).prop_map(|(k, o, t, r, c)| match k {
        0 => format!("prop t : Forall u . Forall n . {o} -> {t} {r} {c}"),
        1 => format!("prop t : Forall u . Forall n . !({o} & {t} {r} {c})"),
        2 => format!("prop t : Forall u . q(u) -> @ P (Exists n . p(u, n) & {t} {r} {c})"),
        _ => format!("prop t : Forall u . q(u) -> !(Exists n . {o} & {t} {r} {c})"),
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_global_rejects: 1_000_000, ..ProptestConfig::default() })]

    /// Comparisons of arithmetic terms are explained by their values, as
    /// the reference evaluates them (`support/reference_agg.rs`).
    #[test]
    fn explanations_of_arithmetic_comparisons_agree_with_reference(
        spec in filtering_spec(),
        trace in support::gen_agg::trace(false),
    ) {
        agree(&spec, &trace)?;
    }
}
