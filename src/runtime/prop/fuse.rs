//! Negations fused into the `S` nodes that read them.
//!
//! `[φ, ψ)` is `!ψ S φ` and `H φ` is `!(true S !φ)`: most negations of a
//! property are an operand of a since. Computed on its own, `!ψ` is a new BDD
//! at every event at which ψ changed (a walk over all of ψ, and new nodes
//! for the complement of every path that changed), only for the since to
//! combine it with its previous value. Fused, the since reads ψ itself:
//!
//! - `!a S b` is `b ∨ (pre ∧ ¬a)`: `b ∨ (pre ∧not a)`;
//! - `a S !b` is `¬b ∨ (a ∧ pre)`: `b → (a ∧ pre)`;
//! - `!a S !b` is `b → (pre ∧not a)`;
//!
//! one operation fewer per negation, none of which builds a complement.
//!
//! A negation is fused when it is computed as a set only for sinces (with
//! point evaluation on, see [`point`](super::point)): no other node computed
//! as a set, no `@`, no rule call and no leaf of the point form reads it.
//! Its value is then never built at an event; [`fused`] lists such nodes.
//! (A witness, which reads every node of the statement, computes them
//! afterwards, like the nodes of the point form.)

use super::point::{Analysis, Point, SetExpr};
use crate::plan::{NodeIx, Op, PropPlan};

/// Per node: whether it is a negation fused into the sinces that read it.
pub(super) fn fused(plan: &PropPlan, point: &Analysis) -> Vec<bool> {
    let n = plan.nodes.len();
    let mut fused: Vec<bool> = (0..n)
        .map(|i| point.needs_set[i] && matches!(plan.nodes[i].op, Op::Not(_)))
        .collect();
    // Readers other than a since disqualify.
    for (i, node) in plan.nodes.iter().enumerate() {
        match &node.op {
            Op::Since(..) => {}
            // Read as `pre` from one event to the next.
            Op::Prev(a) => fused[*a] = false,
            Op::RuleCall { rule, .. } => fused[plan.rules[*rule].body] = false,
            op if point.needs_set[i] => {
                for k in op.same_step_kids().iter() {
                    fused[k] = false;
                }
            }
            _ => {}
        }
    }
    for r in &plan.rules {
        fused[r.body] = false;
    }
    fused[plan.root] = false;
    unfuse_leaves(&point.root, &mut fused);
    // A since's reader must be computed as a set too (it always is).
    fused
}

/// Clears the nodes the point form reads as sets.
pub(super) fn unfuse_leaves(p: &Point, fused: &mut [bool]) {
    let mut stack = vec![p];
    while let Some(p) = stack.pop() {
        match p {
            Point::Set(n) | Point::Quant { set: n, .. } => fused[*n] = false,
            Point::Atom(_) => {}
            Point::Expr { expr, .. } => unfuse_expr(expr, fused, &mut stack),
            Point::Not(a) | Point::Guarded { body: a, .. } => stack.push(a),
            Point::And(a, b) | Point::Or(a, b) | Point::Implies(a, b) | Point::Iff(a, b) => {
                stack.push(a);
                stack.push(b);
            }
        }
    }
}

/// Clears the sets of `e`; pushes its point forms.
fn unfuse_expr<'a>(e: &'a SetExpr, fused: &mut [bool], points: &mut Vec<&'a Point>) {
    match e {
        SetExpr::Set(n) => fused[*n] = false,
        SetExpr::Point(p) => points.push(p),
        SetExpr::Not(a) | SetExpr::Quant { inner: a, .. } => unfuse_expr(a, fused, points),
        SetExpr::And(a, b) | SetExpr::Or(a, b) | SetExpr::Implies(a, b) | SetExpr::Iff(a, b) => {
            unfuse_expr(a, fused, points);
            unfuse_expr(b, fused, points);
        }
    }
}

/// The operand of `n` when `n` is a fused negation.
#[inline]
pub(super) fn operand(plan: &PropPlan, fused: &[bool], n: NodeIx) -> Option<NodeIx> {
    match plan.nodes[n].op {
        Op::Not(a) if fused[n] => Some(a),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::compile_source;
    use crate::runtime::prop::point::analyse;

    fn fused_ops(text: &str) -> Vec<String> {
        let (plan, _) = compile_source(text).expect("compiles");
        let p = plan.props.into_iter().next().expect("one property");
        let point = analyse(&p);
        let f = fused(&p, &point);
        (0..p.nodes.len())
            .filter(|&i| f[i])
            .map(|i| format!("{:?}", p.nodes[i].op))
            .collect()
    }

    #[test]
    fn the_negation_of_an_interval_is_fused() {
        let got = fused_ops("prop f : Forall f . close(f) -> Exists m . @ [open(f,m),close(f))");
        assert_eq!(got, vec!["Not(0)"]);
    }

    #[test]
    fn the_inner_negation_of_historically_is_fused_not_the_outer() {
        // H a = !(true S !a): the inner negation feeds the since, the outer
        // one is read by the point form.
        let got = fused_ops("prop h : Forall x . p(x) -> H q(x)");
        assert_eq!(got.len(), 1, "{got:?}");
    }

    #[test]
    fn a_negation_read_elsewhere_is_computed() {
        // !q(x) is read by the since and by the conjunction (a set under @).
        assert!(fused_ops("prop g : Forall x . p(x) -> @ ((!q(x) S p(x)) & !q(x))").is_empty());
        // Read through @.
        assert!(fused_ops("prop g : Forall x . p(x) -> (@ !q(x)) & (!q(x) S p(x))").is_empty());
        // A rule body.
        assert!(
            fused_ops("prop r : Forall x . p(x) -> c(x) where c(x) := !q(x)")
                .iter()
                .all(|s| s != "Not(1)")
        );
    }
}
