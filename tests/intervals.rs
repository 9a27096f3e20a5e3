//! Metric intervals (issue 22): `P[a,b]`, `H[a,b]`, `S[a,b]` and `@[a,b]` with
//! open and closed ends and `*`, against the reference evaluator on generated
//! formulas and timed traces (`support/gen_interval.rs`), and one test per
//! interval shape with its exact violations.
//!
//! The number of generated cases is 256, or `HINDSIGHT_PROPTEST_CASES`.

#[allow(dead_code)]
mod support;

use std::collections::BTreeSet;

use hindsight::check::check_source;
use hindsight::runtime::{GcPolicy, Monitor, MonitorOptions};
use proptest::prelude::*;

use support::gen_interval;
use support::reference::{self, Event};

/// The violations (property index, event number from 1) the engine reports.
fn engine(spec: &str, trace: &[Event], options: MonitorOptions) -> BTreeSet<(usize, usize)> {
    let mut m = Monitor::from_source(spec, options)
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

fn events(trace: &[(&str, &[&str], u64)]) -> Vec<Event> {
    trace.iter().map(|(n, a, t)| Event::new(n, a, *t)).collect()
}

/// The event numbers at which the single property of `spec` is violated,
/// checked against the reference evaluator too.
fn violations(spec: &str, trace: &[(&str, &[&str], u64)]) -> Vec<usize> {
    let trace = events(trace);
    let got = engine(spec, &trace, MonitorOptions::default());
    let checked = check_source(spec).unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(
        got,
        reference::violations(&checked, &trace),
        "engine vs reference on\n{spec}"
    );
    got.into_iter().map(|(_, i)| i).collect()
}

fn cases() -> u32 {
    std::env::var("HINDSIGHT_PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn intervals_agree_with_the_reference(
        spec in gen_interval::spec(),
        trace in gen_interval::trace(),
    ) {
        let trace: Vec<Event> = trace
            .iter()
            .map(|(n, a, t)| Event::new(n, &a.iter().map(String::as_str).collect::<Vec<_>>(), *t))
            .collect();
        let checked = check_source(&spec).unwrap_or_else(|d| panic!("{d:?}\n{spec}"));
        let expected = reference::violations(&checked, &trace);
        let gc = MonitorOptions { start_bits: 1, gc: GcPolicy::Always, ..MonitorOptions::default() };
        for options in [MonitorOptions::default(), gc] {
            let got = engine(&spec, &trace, options);
            prop_assert_eq!(&got, &expected, "spec:\n{}\ntrace: {:?}", spec, trace);
        }
    }
}

const P0: &[&str] = &[];

#[test]
fn closed_interval() {
    // q at 1..5 and 11..15 after p at 0 and 10, 11: P[2,3] p.
    let spec = "prop w : q -> P[2,3] p";
    let trace = [
        ("p", P0, 0),
        ("q", P0, 1),
        ("q", P0, 2),
        ("q", P0, 3),
        ("q", P0, 4),
        ("p", P0, 10),
        ("p", P0, 11),
        ("q", P0, 11),
        ("q", P0, 13),
        ("q", P0, 14),
        ("q", P0, 15),
    ];
    assert_eq!(violations(spec, &trace), vec![2, 5, 8, 11]);
}

#[test]
fn open_ends() {
    let trace = [
        ("p", P0, 0),
        ("q", P0, 1),
        ("q", P0, 2),
        ("q", P0, 3),
        ("q", P0, 4),
    ];
    // (1,3]: ages 2 and 3.
    assert_eq!(violations("prop w : q -> P(1,3] p", &trace), vec![2, 5]);
    // [1,3): ages 1 and 2.
    assert_eq!(violations("prop w : q -> P[1,3) p", &trace), vec![4, 5]);
    // (1,3): age 2 only.
    assert_eq!(violations("prop w : q -> P(1,3) p", &trace), vec![2, 4, 5]);
}

#[test]
fn zero_zero_is_the_same_time_stamp() {
    // P[0,0] p: p at an event with the current time stamp.
    let spec = "prop z : q -> P[0,0] p";
    let trace = [
        ("p", P0, 5),
        ("q", P0, 5),
        ("q", P0, 6),
        ("p", P0, 7),
        ("q", P0, 7),
    ];
    assert_eq!(violations(spec, &trace), vec![3]);
}

#[test]
fn unbounded_intervals() {
    // [2,*): at least 2 old; (2,*): at least 3 old.
    let trace = [
        ("p", P0, 0),
        ("q", P0, 1),
        ("q", P0, 2),
        ("q", P0, 3),
        ("q", P0, 100),
    ];
    assert_eq!(violations("prop u : q -> P[2,*) p", &trace), vec![2]);
    assert_eq!(violations("prop u : q -> P(2,*) p", &trace), vec![2, 3]);
    // An interrupted chain forgets its occurrences: r S[2,*) p.
    let trace = [("p", P0, 0), ("r", P0, 1), ("q", P0, 2), ("r", P0, 3)];
    assert_eq!(violations("prop u : r S[2,*) p", &trace), vec![1, 2, 3, 4]);
    let trace = [("p", P0, 0), ("r", P0, 1), ("r", P0, 2), ("r", P0, 3)];
    assert_eq!(violations("prop u : r S[2,*) p", &trace), vec![1, 2]);
}

#[test]
fn historically_and_since_with_intervals() {
    // H[1,2] p: p at every event between 1 and 2 time units ago (at time 3
    // that is q at time 1).
    let trace = [
        ("p", P0, 0),
        ("q", P0, 1),
        ("p", P0, 3),
        ("p", P0, 4),
        ("p", P0, 5),
    ];
    assert_eq!(violations("prop h : H[1,2] p", &trace), vec![3]);
    // r S[1,2] p: p between 1 and 2 ago, r since then.
    let trace = [("p", P0, 0), ("r", P0, 1), ("r", P0, 2), ("r", P0, 3)];
    assert_eq!(violations("prop s : r S[1,2] p", &trace), vec![1, 4]);
}

#[test]
fn previous_with_an_interval() {
    let trace = [
        ("p", P0, 0),
        ("q", P0, 2),
        ("p", P0, 3),
        ("q", P0, 3),
        ("p", P0, 4),
        ("q", P0, 9),
    ];
    assert_eq!(violations("prop g : q -> @[1,2] p", &trace), vec![4, 6]);
    assert_eq!(violations("prop g : q -> @[3,*) p", &trace), vec![2, 4]);
}

#[test]
fn one_sided_forms_are_sugar() {
    let trace = [
        ("p", P0, 0),
        ("q", P0, 1),
        ("q", P0, 3),
        ("p", P0, 3),
        ("q", P0, 7),
    ];
    for (one, two) in [
        ("P[<=2] p", "P[0,2] p"),
        ("P[>2] p", "P(2,*) p"),
        ("H[<=2] !p", "H[0,3) !p"),
        ("(!p S[>1] p)", "(!p S[2,*) p)"),
    ] {
        let a = violations(&format!("prop a : q -> {one}"), &trace);
        let b = violations(&format!("prop a : q -> {two}"), &trace);
        assert_eq!(a, b, "{one} vs {two}");
    }
    assert_eq!(violations("prop a : q -> P[<=2] p", &trace), vec![3, 5]);
}

#[test]
fn time_stamps_near_two_to_the_64() {
    let m = u64::MAX;
    let trace = [
        ("p", P0, m - 10),
        ("q", P0, m - 8),
        ("q", P0, m - 5),
        ("p", P0, m - 1),
        ("q", P0, m),
        ("q", P0, m),
    ];
    assert_eq!(violations("prop w : q -> P[1,3] p", &trace), vec![3]);
    assert_eq!(
        violations("prop w : q -> P[2,*) p", &trace),
        Vec::<usize>::new()
    );
    assert_eq!(violations("prop w : q -> @[0,0] q", &trace), vec![2, 3, 5]);
}

#[test]
fn many_events_with_one_time_stamp() {
    // 200 events at time 7, then q at 8 and 10: the window [2,3] sees only
    // time 7, and [0,0] everything with the same time stamp.
    let mut trace: Vec<(&str, &[&str], u64)> = Vec::new();
    for i in 0..200 {
        trace.push((if i % 2 == 0 { "p" } else { "r" }, P0, 7));
    }
    trace.extend([("q", P0, 8), ("q", P0, 10), ("q", P0, 11)]);
    assert_eq!(violations("prop w : q -> P[2,3] p", &trace), vec![201, 203]);
    assert_eq!(
        violations("prop w : r -> P[0,0] p", &trace),
        Vec::<usize>::new()
    );
    // q breaks every chain of r.
    assert_eq!(
        violations("prop w : r S[0,3] p", &trace),
        vec![201, 202, 203]
    );
    assert_eq!(violations("prop w : (r | q) S[0,3] p", &trace), vec![203]);
}

#[test]
fn data_and_intervals() {
    // Forall x . q(x) -> P[2,4] p(x): per value.
    let spec = "prop d : Forall x . q(x) -> P[2,4] p(x)";
    let trace = [
        ("p", &["a"][..], 0),
        ("p", &["b"][..], 1),
        ("q", &["a"][..], 2),
        ("q", &["b"][..], 2),
        ("q", &["a"][..], 5),
        ("q", &["b"][..], 5),
    ];
    assert_eq!(violations(spec, &trace), vec![4, 5]);
}

#[test]
fn bad_intervals_are_errors_with_their_place() {
    for (spec, column, words) in [
        ("prop e : P(3,3) p", 11, "contains no natural number"),
        ("prop e : P[4,2] p", 11, "contains no natural number"),
        ("prop e : P[0,0) p", 11, "contains no natural number"),
        ("prop e : P[>18446744073709551615] p", 11, "below 2^64 - 1"),
        (
            "prop e : P[1,18446744073709551616] p",
            14,
            "natural number below 2^64",
        ),
    ] {
        let diags = check_source(spec)
            .err()
            .unwrap_or_else(|| panic!("accepted: {spec}"));
        let text = diags[0].render("s.qtl", spec);
        assert!(
            text.contains(&format!("s.qtl:1:{column}")),
            "{spec}: {text}"
        );
        assert!(text.contains(words), "{spec}: {text}");
    }
    // A bound too large for the modular stamps is refused at compilation.
    let text = "prop e : P[1,9223372036854775807] p";
    let Err(err) = hindsight::plan::compile_source(text) else {
        panic!("accepted: {text}");
    };
    assert!(format!("{err:?}").contains("too large"), "{err:?}");
}

/// The state of `P[a,b]` stays small however wide the window and however
/// many events fall in it: the occurrences younger than `a`, and the latest
/// one inside the window (docs/LANGUAGE.md, "How much is remembered").
#[test]
fn the_state_of_a_wide_window_is_bounded_by_its_lower_end() {
    use hindsight::runtime::kept::KeptSummary;
    let max_timed_nodes = |spec: &str| {
        let mut m = Monitor::from_source(spec, MonitorOptions::default()).expect("well-formed");
        let mut t = 0u64;
        let mut most = 0;
        for i in 0..4000u64 {
            // Irregular gaps of 1 to 3, so that the stamps are no simple range.
            t += 1 + (i * 7 + i / 3) % 3;
            m.step(b"p", &[], t).expect("steps");
            for s in m.properties()[0].kept_summaries() {
                if let KeptSummary::Timed(_) = s {
                    most = most.max(m.kept_summary_nodes(0, s));
                }
            }
        }
        most
    };
    // A window 100 000 wide: a few stamps at a time, over 18 time bits (50
    // nodes at most here, with the reduction every 32 events; keeping every
    // stamp of the window made 106).
    let wide = max_timed_nodes("prop w : P[3,100000] p");
    assert!(wide <= 60, "{wide} nodes");
    // The lower end is what counts: with [300,100000] the ~150 stamps younger
    // than 300 are kept (70 nodes here).
    let deep = max_timed_nodes("prop w : P[300,100000] p");
    assert!(deep > wide, "{deep} vs {wide}");
}

/// Long enough traces for `S[a,b]` to reduce the occurrences inside its
/// window several times (every `PRUNE_EVERY` events), against the reference.
#[test]
fn long_traces_with_wide_windows_agree_with_the_reference() {
    let mut trace: Vec<(&str, &[&str], u64)> = Vec::new();
    let mut t = u64::MAX - 400;
    for i in 0..160u64 {
        t += (i * 5 + i / 7) % 4;
        let (name, args): (&str, &[&str]) = match (i * 11 + i / 3) % 5 {
            0 => ("p", &["a"]),
            1 => ("p", &["b"]),
            2 => ("q", &["a"]),
            3 => ("q", &["b"]),
            _ => ("r", &[]),
        };
        trace.push((name, args, t));
    }
    // `violations` checks the engine against the reference; the counts pin
    // that the cases are not trivial.
    for (spec, count) in [
        ("prop w : Forall x . q(x) -> P[3,40] p(x)", 0),
        ("prop w : Forall x . q(x) -> (!r S[2,25] p(x))", 38),
        ("prop w : Forall x . q(x) -> H(1,30] !p(x)", 63),
        ("prop w : Forall x . q(x) -> P[10,200] p(x)", 2),
        ("prop w : Forall x . q(x) -> P[8,9] p(x)", 51),
        ("prop w : Forall x . q(x) -> P[20,21] p(x)", 42),
        ("prop w : Forall x . q(x) -> !P[3,40] r", 62),
        ("prop w : Forall x . q(x) -> (!p(x) S[5,30] r)", 58),
    ] {
        assert_eq!(violations(spec, &trace).len(), count, "{spec}");
    }
}
