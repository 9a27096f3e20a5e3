//! Point (guarded) evaluation against the reference evaluator: random
//! specifications whose statements have the guarded shapes, and some that do
//! not (`support/gen_guarded.rs`), on random traces. The engine runs with
//! point evaluation on (the default) and off (every subformula a set), with
//! and without garbage collection after every event; all must report the
//! reference's violations, and the same witnesses with point evaluation on
//! and off (under the same options). Specifications with twins (the same
//! formula over other variables) exercise their computation by renaming. `HINDSIGHT_PROPTEST_CASES` sets the number of cases (default 256).

#[allow(dead_code)]
mod support;

use std::collections::BTreeSet;

use hindsight::check::check_source;
use hindsight::runtime::witness::format_witness;
use hindsight::runtime::{GcPolicy, Monitor, MonitorOptions};
use proptest::prelude::*;

use support::gen_guarded;
use support::reference::{self, Event};

/// The violations (property, event number from 1) and the witness texts of
/// the engine, with point evaluation on or off.
fn engine(
    spec: &str,
    trace: &[Event],
    point: bool,
    options: MonitorOptions,
) -> (BTreeSet<(usize, usize)>, Vec<String>) {
    engine_with(spec, trace, point, options, true)
}

/// [`engine`], with or without witnesses (which some shortcuts of point
/// evaluation leave to the nodes computed as written).
fn engine_with(
    spec: &str,
    trace: &[Event],
    point: bool,
    options: MonitorOptions,
    witnesses: bool,
) -> (BTreeSet<(usize, usize)>, Vec<String>) {
    let mut m = Monitor::from_source(spec, options)
        .unwrap_or_else(|d| panic!("the engine rejects a well-formed spec: {d:?}\n{spec}"));
    m.set_point_evaluation(point);
    m.enable_witnesses(witnesses);
    let witnesses_on = witnesses;
    let mut out = BTreeSet::new();
    let mut witnesses = Vec::new();
    for (i, e) in trace.iter().enumerate() {
        let args: Vec<&[u8]> = e.args.iter().map(|a| a.as_bytes()).collect();
        let violated = m
            .step(e.name.as_bytes(), &args, e.time)
            .unwrap_or_else(|err| panic!("engine error at event {}: {err}\n{spec}", i + 1))
            .to_vec();
        for p in violated {
            out.insert((p, i + 1));
            if witnesses_on {
                witnesses.push(format!("{p}@{}: {}", i + 1, format_witness(&m.witness(p))));
            }
        }
    }
    (out, witnesses)
}

fn trace_text(trace: &[Event]) -> String {
    trace
        .iter()
        .map(|e| {
            std::iter::once(e.name.as_str())
                .chain(e.args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn cases() -> u32 {
    std::env::var("HINDSIGHT_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256)
}

fn check(spec: &str, trace: &[Event]) -> Result<(), TestCaseError> {
    let checked = check_source(spec);
    prop_assume!(checked.is_ok(), "the generated spec is not well-formed");
    let expected = reference::violations(&checked.unwrap(), trace);
    let gc = MonitorOptions {
        start_bits: 1,
        gc: GcPolicy::Always,
        ..MonitorOptions::default()
    };
    let (set_violations, set_witnesses) = engine(spec, trace, false, MonitorOptions::default());
    prop_assert_eq!(
        &set_violations,
        &expected,
        "sets (left) and reference (right) differ\nspec:\n{}\ntrace:\n{}",
        spec,
        trace_text(trace)
    );
    for (options, same_codes) in [(MonitorOptions::default(), true), (gc, false)] {
        let (violations, witnesses) = engine(spec, trace, true, options.clone());
        prop_assert_eq!(
            &violations,
            &expected,
            "point evaluation (left) and reference (right) differ\nspec:\n{}\ntrace:\n{}",
            spec,
            trace_text(trace)
        );
        let (plain, _) = engine_with(spec, trace, true, options.clone(), false);
        prop_assert_eq!(
            &plain,
            &expected,
            "point evaluation without witnesses (left) and reference (right) differ\nspec:\n{}\ntrace:\n{}",
            spec,
            trace_text(trace)
        );
        // Garbage collection may release a witness's codes: then any unseen
        // value is the witness, so witnesses compare under the same options.
        if !same_codes {
            continue;
        }
        prop_assert_eq!(
            &witnesses,
            &set_witnesses,
            "witnesses with point evaluation (left) and sets (right) differ\nspec:\n{}\ntrace:\n{}",
            spec,
            trace_text(trace)
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_global_rejects: 100_000, ..ProptestConfig::default() })]

    #[test]
    fn point_evaluation_agrees_with_reference(spec in gen_guarded::spec(), trace in gen_guarded::trace(25)) {
        check(&spec, &trace)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_global_rejects: 100_000, ..ProptestConfig::default() })]

    /// Rules whose bodies are answered by restriction (`Exists z . (φ & e(..))`).
    #[test]
    fn restriction_agrees_with_reference(spec in gen_guarded::restrict_spec(), trace in gen_guarded::restrict_trace(30)) {
        check(&spec, &trace)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_global_rejects: 100_000, ..ProptestConfig::default() })]

    /// Twin subformulas, computed by renaming with point evaluation on.
    #[test]
    fn twins_agree_with_reference(spec in gen_guarded::twins_spec(), trace in gen_guarded::trace(25)) {
        check(&spec, &trace)?;
    }
}

/// The shapes named in the issue, by hand, with their exact violations.
#[test]
fn guarded_shapes_by_hand() {
    let trace = [
        Event::new("p", &["1"], 0),
        Event::new("q", &["1", "2"], 0),
        Event::new("r", &["2"], 0),
        Event::new("r", &["1"], 0),
        Event::new("q", &["2", "2"], 0),
    ];
    let cases: &[(&str, &[usize])] = &[
        // r(x) is violated unless p(x) happened before: r(2) at 3.
        ("Forall x . r(x) -> P p(x)", &[3]),
        ("Forall x . !r(x) | P p(x)", &[3]),
        ("Forall x . P p(x) | !r(x)", &[3]),
        // Two variables: q(2,2) at 5 has no earlier p(2).
        ("Forall x . Forall y . q(x, y) -> P p(x)", &[5]),
        // A partial guard: y over all values, never r before every y.
        ("Forall x . Forall y . q(x, y) -> P r(y)", &[2]),
        ("Forall x . Forall z . r(x) -> !@ q(z, x)", &[3]),
        // The existential dual, true only at q(_, 2).
        ("Exists x . q(x, \"2\") & P p(x)", &[1, 3, 4, 5]),
        // A conjunction of guarded parts.
        ("Forall x . (r(x) -> P p(x)) & (q(x, x) -> P r(x))", &[3]),
    ];
    for &(stmt, expected) in cases {
        let spec = format!("prop t : {stmt}");
        let checked = check_source(&spec).expect("well-formed");
        let want: BTreeSet<(usize, usize)> = expected.iter().map(|&i| (0, i)).collect();
        assert_eq!(
            reference::violations(&checked, &trace),
            want,
            "reference: {stmt}"
        );
        for point in [true, false] {
            let (got, _) = engine(&spec, &trace, point, MonitorOptions::default());
            assert_eq!(got, want, "engine (point {point}): {stmt}");
        }
    }
}

/// A `P` of a conjunction with an event, at a match it holds already (not
/// built then): locks-cycles on two rounds of a thread
/// taking two locks, then another taking them the other way round.
#[test]
fn a_past_conjunction_held_already_by_hand() {
    let spec = "prop c : Forall t1 . Forall t2 . Forall l1 . Forall l2 .
        (@ [acq(t1,l1),rel(t1,l1)) & acq(t1,l2)) -> ! @ P (@ [acq(t2,l2),rel(t2,l2)) & acq(t2,l1))";
    let round = |t: &str, first: &str, second: &str| {
        [
            Event::new("acq", &[t, first], 0),
            Event::new("acq", &[t, second], 0),
            Event::new("rel", &[t, second], 0),
            Event::new("rel", &[t, first], 0),
        ]
    };
    let trace: Vec<Event> = [
        round("1", "1", "2"),
        round("1", "1", "2"),
        round("2", "2", "1"),
        round("2", "2", "1"),
        round("1", "1", "2"),
    ]
    .concat();
    // Thread 2 takes 1 while holding 2, as thread 1 took 2 holding 1; and
    // then thread 1 the other way round.
    let want: BTreeSet<(usize, usize)> = [10, 14, 18].iter().map(|&i| (0, i)).collect();
    let checked = check_source(spec).expect("well-formed");
    assert_eq!(reference::violations(&checked, &trace), want);
    for (point, witnesses) in [(true, false), (true, true), (false, false), (false, true)] {
        let (got, _) = engine_with(spec, &trace, point, MonitorOptions::default(), witnesses);
        assert_eq!(got, want, "point {point}, witnesses {witnesses}");
    }
    // With witnesses, the check runs too (the walk does not read the
    // conjunction under its `P`): at event 18, thread 1's pair is held.
    let witnessed = |point| engine_with(spec, &trace, point, MonitorOptions::default(), true).1;
    let want = [
        "0@10: t1=2 t2=1 l1=2 l2=1",
        "0@14: t1=2 t2=1 l1=2 l2=1",
        "0@18: t1=1 t2=2 l1=1 l2=2",
    ];
    assert_eq!(witnessed(true), want);
    assert_eq!(witnessed(false), want);
}
