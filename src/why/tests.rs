//! Unit tests of the explanation engine's parts: the clock of the kept
//! events, timed series, the guard of a quantifier, and which proofs can
//! cite an event.

use hashbrown::HashMap;

use super::events::{Events, FRESH};
use super::truth::{Citing, STATEMENT, Truth};
use crate::check::check_source;
use crate::syntax::Form;

fn events(list: &[(&str, &[&str], u64)], step_clock: bool) -> Events {
    let mut ev = Events::new();
    for (k, (name, args, time)) in list.iter().enumerate() {
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        ev.push(name.as_bytes(), &args, *time, step_clock, k as u64 + 1);
    }
    ev
}

#[test]
fn the_clock_never_goes_back() {
    let ev = events(
        &[("a", &[], 5), ("a", &[], 9), ("a", &[], 7), ("a", &[], 8)],
        false,
    );
    let clock: Vec<u64> = (1..=4).map(|i| ev.clock(i)).collect();
    assert_eq!(clock, [5, 9, 9, 10]);
    let ev = events(&[("a", &[], 0), ("a", &[], 0)], true);
    assert_eq!((ev.clock(1), ev.clock(2)), (1, 2));
    assert_eq!(ev.show(1), "a");
}

#[test]
fn a_timed_once_holds_within_its_bound() {
    let checked = check_source("prop p : P[1,3] a").expect("well-formed");
    let ev = events(
        &[
            ("a", &[], 1),
            ("b", &[], 2),
            ("b", &[], 4),
            ("b", &[], 5),
            ("a", &[], 5),
        ],
        false,
    );
    let mut t = Truth::new(&checked.arena, &checked.props[0], &ev, HashMap::new());
    let body = checked.props[0].body;
    let values: Vec<bool> = (1..=5)
        .map(|i| t.holds(STATEMENT, body, &Vec::new(), i))
        .collect();
    // a at time 1: 1 to 3 time units later are events 2 (time 2) and 3 (time 4).
    assert_eq!(values, [false, true, true, false, false]);
}

#[test]
fn a_guarded_quantifier_tries_the_value_of_the_event_only() {
    let checked = check_source("prop p : Forall y . (Exists z . (@ s(z) & a(z, y))) | !b(y)")
        .expect("well-formed");
    let ev = events(
        &[
            ("s", &["1"], 0),
            ("a", &["1", "2"], 0),
            ("a", &["3", "2"], 0),
        ],
        false,
    );
    let mut t = Truth::new(&checked.arena, &checked.props[0], &ev, HashMap::new());
    let Form::Quant(_, _, inner) = checked.arena.form(checked.props[0].body) else {
        panic!("a quantifier")
    };
    let Form::Bin(_, exists, _) = checked.arena.form(*inner) else {
        panic!("a disjunction")
    };
    let y = t.quant_env(
        STATEMENT,
        checked.props[0].body,
        &Vec::new(),
        ev.id(b"2").unwrap_or(FRESH),
    );
    let (values, guarded) = t.quant_values(STATEMENT, *exists, &y, 3);
    assert!(guarded);
    assert_eq!(values, [ev.id(b"3").unwrap_or(FRESH)]);
    assert!(t.holds(STATEMENT, *exists, &y, 2));
    assert!(!t.holds(STATEMENT, *exists, &y, 3));
}

#[test]
fn a_rule_that_no_event_makes_false_cites_nothing_when_false() {
    let checked = check_source(
        "prop p : Forall x . Forall y . r(y, x) -> s(x, y) where \
         s(x, y) := @s(x, y) | a(x, y) | Exists z . (@s(x, z) & a(z, y))",
    )
    .expect("well-formed");
    let c = Citing::new(&checked.arena, &checked.props[0]);
    let rule = checked.props[0].rules[0].body;
    assert!(c.may_cite(&checked.arena, rule, true));
    assert!(!c.may_cite(&checked.arena, rule, false));
    assert!(c.may_cite(&checked.arena, checked.props[0].body, false));
}

#[test]
fn a_cancelled_replay_says_so() {
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let options = super::WhyOptions {
        event: 2,
        cancel: Some(flag),
        ..super::WhyOptions::default()
    };
    let e = super::replay("prop p : a -> @b", &b"b\na\n"[..], &options).expect_err("cancelled");
    assert_eq!(e.to_string(), "cancelled before the event was read");
}

#[test]
fn a_guard_below_other_quantifiers_guards_the_outer_one() {
    let checked = check_source(
        "prop p : Forall x . Forall y . Forall w . (q(x, w) & @ p(y)) -> r(w)\n\
         prop s : Forall x . forall y . q(x, y) -> r(y)",
    )
    .expect("well-formed");
    let ev = events(
        &[("p", &["1"], 0), ("q", &["2", "3"], 0), ("r", &["3"], 0)],
        false,
    );
    let id = |v: &[u8]| ev.id(v).unwrap_or(FRESH);
    let mut t = Truth::new(&checked.arena, &checked.props[0], &ev, HashMap::new());
    let body = checked.props[0].body;
    // At q(2, 3), x = 2 alone; at r(3), no value of x.
    assert_eq!(t.quant_values(STATEMENT, body, &Vec::new(), 2), (vec![id(b"2")], true));
    assert_eq!(t.quant_values(STATEMENT, body, &Vec::new(), 3), (vec![], true));
    // Then w is guarded by the same atom, and y is not.
    let x = t.quant_env(STATEMENT, body, &Vec::new(), id(b"2"));
    let Form::Quant(_, _, for_y) = checked.arena.form(body) else {
        panic!("a quantifier")
    };
    let (ys, guarded) = t.quant_values(STATEMENT, *for_y, &x, 2);
    assert!(!guarded);
    assert_eq!(ys.len(), 4, "1, 2, 3 and any other: {ys:?}");
    let y = t.quant_env(STATEMENT, *for_y, &x, id(b"1"));
    let Form::Quant(_, _, for_w) = checked.arena.form(*for_y) else {
        panic!("a quantifier")
    };
    assert_eq!(t.quant_values(STATEMENT, *for_w, &y, 2), (vec![id(b"3")], true));
    // q(2, 3) with p(1) before it, and no r(3): false; true elsewhere.
    let verdicts: Vec<bool> = (1..=3).map(|i| t.holds(STATEMENT, body, &Vec::new(), i)).collect();
    assert_eq!(verdicts, [true, false, true]);
    // A quantifier over the values seen below: its range may be empty,
    // so the one above it tries every value.
    let mut t = Truth::new(&checked.arena, &checked.props[1], &ev, HashMap::new());
    let (xs, guarded) = t.quant_values(STATEMENT, checked.props[1].body, &Vec::new(), 2);
    assert!(!guarded);
    assert_eq!(xs.len(), 3, "2, 3 (of q and r) and any other: {xs:?}");
}
