//! Tests of the point analysis (its evaluation is compared with the
//! reference evaluator in tests/guarded.rs).

use super::*;
use crate::plan::compile_source;

fn plan(text: &str) -> PropPlan {
    let (plan, _) = compile_source(text).expect("compiles");
    plan.props.into_iter().next().expect("one property")
}

fn has_expr(p: &Point) -> bool {
    match p {
        Point::Expr { .. } => true,
        Point::Not(a) | Point::Guarded { body: a, .. } => has_expr(a),
        Point::And(a, b) | Point::Or(a, b) | Point::Implies(a, b) | Point::Iff(a, b) => {
            has_expr(a) || has_expr(b)
        }
        _ => false,
    }
}

#[test]
fn a_partial_guard_combines_the_sets_of_the_rest_at_its_matches() {
    let p = plan(
        "prop c : Forall t1 . Forall t2 . Forall l1 . Forall l2 .
           (@ [acq(t1,l1),rel(t1,l1)) & acq(t1,l2)) -> ! @ P (@ [acq(t2,l2),rel(t2,l2)) & acq(t2,l1))",
    );
    let a = analyse(&p);
    assert!(has_expr(&a.root), "{:?}", a.root);
    // The guard acq(t1,l2), the conjunction, the implication and the
    // negation of the statement are not sets; the temporal parts are.
    let sets: Vec<String> = (0..p.nodes.len())
        .filter(|&i| !a.needs_set[i])
        .map(|i| format!("{:?}", p.nodes[i].op))
        .collect();
    assert!(sets.iter().any(|s| s.starts_with("Implies")), "{sets:?}");
    assert!(sets.iter().any(|s| s.starts_with("And")), "{sets:?}");
    for (i, node) in p.nodes.iter().enumerate() {
        if matches!(node.op, Op::Since(..) | Op::Prev(_)) {
            assert!(a.needs_set[i]);
        }
    }
}

#[test]
fn without_a_guard_a_body_that_is_no_conjunction_stays_a_set() {
    let p = plan("prop u : Forall x . Forall y . (P q(x, y)) <-> (P r(y, x))");
    let a = analyse(&p);
    assert!(!has_expr(&a.root), "{:?}", a.root);
    for (i, node) in p.nodes.iter().enumerate() {
        if matches!(node.op, Op::Iff(..)) {
            assert!(a.needs_set[i]);
        }
    }
}

#[test]
fn without_a_guard_a_closed_conjunction_is_decided_from_its_parts() {
    // ¬((P q) → ¬(P r)) is P q ∧ P r: two sets, the implication none.
    let p = plan("prop u : Forall x . Forall y . (P q(x, y)) -> !(P r(y, x))");
    let a = analyse(&p);
    assert!(has_expr(&a.root), "{:?}", a.root);
    for (i, node) in p.nodes.iter().enumerate() {
        match node.op {
            Op::Implies(..) | Op::Not(_) => assert!(!a.needs_set[i], "{:?}", node.op),
            Op::Since(..) => assert!(a.needs_set[i]),
            _ => {}
        }
    }
    // Five parts are more than one walk takes: the body stays a set.
    let p = plan(
        "prop w : Forall x . (P a(x)) & (P b(x)) & (P c(x)) & (P d(x)) -> (P e(x))",
    );
    let a = analyse(&p);
    assert!(!has_expr(&a.root), "{:?}", a.root);
    // A part without the quantified variables: no conjunction of sets.
    let p = plan("prop v : Forall x . (P a(x)) -> (Exists y . P b(y))");
    assert!(!has_expr(&analyse(&p).root));
}

#[test]
fn a_variable_of_one_part_is_quantified_on_that_part() {
    let p = plan(
        "prop c : Forall t1 . Forall t2 . Forall l1 . Forall l2 .
           (@ [acq(t1,l1),rel(t1,l1)) & acq(t1,l2)) -> ! @ P (@ [acq(t2,l2),rel(t2,l2)) & acq(t2,l1))",
    );
    let a = analyse(&p);
    let var = |name: &str| (p.vars.iter()).position(|v| v.name == name).expect("a variable");
    // t2 only in the right part: ∀t2 moves below the negation, as ∃t2;
    // l1, in both parts, stays at the top.
    assert_eq!(a.scoped, vec![vec![var("t2")]], "{:?}", a.root);
    let text = format!("{:?}", a.root);
    assert!(text.contains("Not(Quant { forall: false, slot: 0, inner: Set("), "{text}");
    // Within a part, or in two parts that are combined: stays.
    let both = plan("prop d : Forall x . Forall y . a(x) -> (P b(x, y) | P c(x, y))");
    assert!(analyse(&both).scoped.is_empty(), "{:?}", analyse(&both).root);
}
