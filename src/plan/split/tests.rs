//! Unit tests of statement splitting: which statements split, into what,
//! what is refused, and that a part's plan keeps only what it reads.

use crate::plan::compile_source;
use crate::plan::split::MAX_PARTS;
use crate::runtime::{Monitor, MonitorOptions};

/// The parts of the only property, as formulas, or why it has one part.
fn parts(spec: &str) -> Result<Vec<String>, String> {
    let (plan, _) = compile_source(spec).expect("well-formed");
    let p = &plan.props[0];
    p.parts()
        .map(|parts| parts.iter().map(|q| q.formula(q.root)).collect())
}

#[test]
fn an_implication_with_a_conjunctive_consequent_splits() {
    let got = parts(
        "prop a : Forall u . Forall f . access(u,f) -> \
         [login(u),logout(u)) & [open(f),close(f))",
    )
    .expect("splits");
    assert_eq!(
        got,
        [
            "(Forall u . (Forall f . (access(u, f) -> (!logout(u) S login(u)))))",
            "(Forall u . (Forall f . (access(u, f) -> (!close(f) S open(f)))))",
        ]
    );
}

#[test]
fn negations_disjunctions_and_inner_quantifiers_split() {
    // !(a | b) is !a & !b; !(a -> b) is a & !b; a quantifier whose
    // variable a part does not use is dropped from it.
    assert_eq!(
        parts("prop a : Forall x . !(p(x) | (q(x) & !P r(x)))").expect("splits"),
        [
            "(Forall x . !p(x))",
            "(Forall x . !(q(x) & !(true S r(x))))"
        ]
    );
    assert_eq!(
        parts("prop a : Forall x . !(p(x) -> q(x))").expect("splits"),
        ["(Forall x . p(x))", "(Forall x . !q(x))"]
    );
    assert_eq!(
        parts("prop a : Forall x . p(x) -> (q(x) & Forall y . (r(y) -> (s(x) & s(y))))")
            .expect("splits"),
        [
            "(Forall x . (p(x) -> q(x)))",
            "(Forall x . (p(x) -> (Forall y . (r(y) -> s(x)))))",
            "(Forall x . (p(x) -> (Forall y . (r(y) -> s(y)))))",
        ]
    );
    // `g | (a & b)` is `(g | a) & (g | b)`, and `!Exists` is `Forall !`.
    assert_eq!(
        parts("prop a : !p | (q & r)").expect("splits"),
        ["(!p | q)", "(!p | r)"]
    );
    assert_eq!(
        parts("prop a : !Exists x . (p(x) | q(x))").expect("splits"),
        ["(Forall x . !p(x))", "(Forall x . !q(x))"]
    );
}

#[test]
fn what_is_not_a_conjunction_or_depends_on_seen_values_has_one_part() {
    for (spec, why) in [
        ("prop a : Forall x . p(x) -> P q(x)", "not a conjunction"),
        ("prop a : Forall x . P (p(x) & q(x))", "not a conjunction"),
        ("prop a : Exists x . p(x) & q(x)", "not a conjunction"),
        (
            "prop a : Forall x . p(x) <-> (q(x) & r(x))",
            "not a conjunction",
        ),
        (
            "prop a : Forall x . Forall y . (p(x) & q(y) & x < y)",
            "comparisons",
        ),
        (
            "prop a : Forall x . p(x) -> (q(x) & exists y . r(x, y))",
            "values seen",
        ),
    ] {
        let e = parts(spec).expect_err(spec);
        assert!(e.contains(why), "{spec}: {e}");
    }
}

#[test]
fn at_most_max_parts_parts() {
    let conj: Vec<String> = (0..3 * MAX_PARTS).map(|i| format!("p{i}(x)")).collect();
    let spec = format!("prop a : Forall x . q(x) -> {}", conj.join(" & "));
    let got = parts(&spec).expect("splits");
    assert_eq!(got.len(), MAX_PARTS);
    // Every conjunct is in exactly one part.
    for c in &conj {
        let n = got.iter().filter(|p| p.contains(c.as_str())).count();
        assert_eq!(n, 1, "{c} in {got:?}");
    }
}

#[test]
fn a_part_keeps_only_the_rules_and_nodes_it_reads() {
    let spec = "prop a : Forall x . (q(x) -> on(x)) & (r(x) -> !P s(x)) \
                where on(x) := t(x) <-> @!on(x)";
    let (plan, _) = compile_source(spec).expect("well-formed");
    let parts = plan.props[0].parts().expect("splits");
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0].rules.len(), 1);
    assert!(parts[1].rules.is_empty());
    let atoms = |p: &crate::plan::PropPlan| {
        p.nodes
            .iter()
            .filter(|n| matches!(n.op, crate::plan::Op::Atom { .. }))
            .count()
    };
    assert_eq!(atoms(&parts[0]), 2, "q(x) and t(x)");
    assert_eq!(atoms(&parts[1]), 2, "r(x) and s(x)");
}

/// The violations of a property, whole, and of its parts together, agree
/// event by event.
#[test]
fn the_parts_are_violated_exactly_where_the_property_is() {
    let spec = "prop a : Forall x . (q(x) -> on(x)) & (r(x) -> !P s(x)) & !(bad(x) | @ bad(x)) \
                where on(x) := t(x) <-> @!on(x)";
    let (plan, _) = compile_source(spec).expect("well-formed");
    let parts = plan.props[0].parts().expect("splits");
    let mut whole = Monitor::new(plan.clone(), MonitorOptions::default()).expect("monitor");
    let mut monitors: Vec<Monitor> = parts
        .into_iter()
        .map(|p| {
            let one = crate::plan::Plan {
                props: vec![p],
                events: plan.events.clone(),
            };
            Monitor::new(one, MonitorOptions::default()).expect("monitor")
        })
        .collect();
    let trace = [
        ("q", "a"),
        ("t", "a"),
        ("q", "a"),
        ("s", "b"),
        ("r", "b"),
        ("r", "a"),
        ("bad", "c"),
        ("t", "a"),
        ("q", "a"),
        ("x", "a"),
    ];
    let mut violated_at = Vec::new();
    for (i, (name, arg)) in trace.iter().enumerate() {
        let w = !whole
            .step(name.as_bytes(), &[arg.as_bytes()], 0)
            .expect("step")
            .is_empty();
        let mut p = false;
        for m in &mut monitors {
            p |= !m
                .step(name.as_bytes(), &[arg.as_bytes()], 0)
                .expect("step")
                .is_empty();
        }
        assert_eq!(w, p, "event {}", i + 1);
        if w {
            violated_at.push(i + 1);
        }
    }
    assert_eq!(violated_at, [3, 5, 7, 8]);
}
