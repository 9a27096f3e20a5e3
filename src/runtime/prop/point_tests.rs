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
fn without_a_guard_the_body_stays_a_set() {
    let p = plan("prop u : Forall x . Forall y . (P q(x, y)) -> !(P r(y, x))");
    let a = analyse(&p);
    assert!(!has_expr(&a.root), "{:?}", a.root);
    for (i, node) in p.nodes.iter().enumerate() {
        if matches!(node.op, Op::Implies(..)) {
            assert!(a.needs_set[i]);
        }
    }
}
