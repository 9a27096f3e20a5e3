//! Differential tests: the BDD engine against the reference evaluator of
//! `support/reference.rs`, on generated specifications and traces, plus
//! hand-written regression and sanity tests.
//!
//! The number of generated cases is 256, or `HINDSIGHT_PROPTEST_CASES`:
//!
//! ```sh
//! HINDSIGHT_PROPTEST_CASES=20000 cargo test --release --test differential
//! ```

mod support;

use std::collections::BTreeSet;

use hindsight::check::check_source;
use hindsight::runtime::{Monitor, MonitorOptions};
use proptest::prelude::*;

use support::reference::{self, Event};
use support::strategies;

/// The violations (property index, event number from 1) the engine reports.
fn engine(spec: &str, trace: &[Event]) -> BTreeSet<(usize, usize)> {
    let mut m = Monitor::from_source(spec, MonitorOptions::default())
        .unwrap_or_else(|d| panic!("the engine rejects a well-formed spec: {d:?}\n{spec}"));
    let mut out = BTreeSet::new();
    for (i, e) in trace.iter().enumerate() {
        let args: Vec<&[u8]> = e.args.iter().map(|a| a.as_bytes()).collect();
        let violated = m
            .step(e.name.as_bytes(), &args, e.time)
            .unwrap_or_else(|err| panic!("engine error at event {}: {err}\n{spec}", i + 1));
        out.extend(violated.iter().map(|&p| (p, i + 1)));
    }
    out
}

/// The violations the reference evaluator finds.
fn reference(spec: &str, trace: &[Event]) -> BTreeSet<(usize, usize)> {
    let checked = check_source(spec).unwrap_or_else(|d| panic!("not well-formed: {d:?}\n{spec}"));
    reference::violations(&checked, trace)
}

fn cases() -> u32 {
    std::env::var("HINDSIGHT_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_global_rejects: 1_000_000, ..ProptestConfig::default() })]

    #[test]
    fn engine_agrees_with_reference(spec in strategies::spec(), trace in strategies::trace()) {
        let text = spec.to_qtl();
        let checked = check_source(&text);
        prop_assume!(checked.is_ok(), "the generated spec is not well-formed");
        let trace = trace.events();
        let expected = reference::violations(&checked.unwrap(), &trace);
        let actual = engine(&text, &trace);
        prop_assert_eq!(
            &actual,
            &expected,
            "engine (left) and reference (right) differ\nspec:\n{}\ntrace:\n{}",
            text,
            strategies::trace_text(&trace)
        );
    }
}

/// Both evaluators on a spec and trace; asserts they give `expected`.
fn agree(spec: &str, trace: &[Event], expected: &[(usize, usize)]) {
    let expected: BTreeSet<(usize, usize)> = expected.iter().copied().collect();
    assert_eq!(reference(spec, trace), expected, "reference\n{spec}");
    assert_eq!(engine(spec, trace), expected, "engine\n{spec}");
}

fn ev(name: &str, args: &[&str]) -> Event {
    Event::new(name, args, 0)
}

fn evt(name: &str, args: &[&str], time: u64) -> Event {
    Event::new(name, args, time)
}

#[test]
fn forall_once_is_violated_until_every_value_occurred() {
    // The fresh value stands for all values never seen: it is never `a`'s.
    agree(
        "prop t : Forall x . P a(x)",
        &[ev("b", &["1"]), ev("a", &["2"])],
        &[(0, 1), (0, 2)],
    );
}

/// Generates specifications and reports how many the checker rejects, with
/// examples (run with `--ignored --nocapture` when changing the generator).
#[test]
#[ignore = "diagnostic for the generator"]
fn generated_specs_are_well_formed() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let n = 2000;
    let mut rejected = 0;
    for _ in 0..n {
        let text = strategies::spec().new_tree(&mut runner).expect("a tree").current().to_qtl();
        if let Err(d) = check_source(&text) {
            rejected += 1;
            if rejected <= 5 {
                eprintln!("{text}\n{d:?}\n");
            }
        }
    }
    eprintln!("{rejected} of {n} generated specs rejected");
    assert!(rejected * 20 < n, "{rejected} of {n} generated specs rejected");
}
