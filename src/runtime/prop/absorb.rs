//! Restricted quantifiers absorbed into the disjunction that reads them
//! (with point evaluation on).
//!
//! A rule that accumulates, `r(x,y) := @r(x,y) | a(x,y) | Exists z .
//! (@r(x,z) & a(z,y))` (the transitive closure of the spawning example),
//! adds at each matching event, for each match, its relation's cofactor at
//! the match's value of `z` times the cube of the match's other values (see
//! [`restrict`](super::restrict)). Computed on its own, the quantifier is a
//! BDD built only for the disjunction to add to its other operand: the
//! cofactor, then its product with the cube, then the sum, three walks and
//! two BDDs that are garbage at once. Absorbed, the disjunction adds each
//! match's part to its other operand in one walk
//! ([`BddSpace::or_cofactor`](crate::bdd::BddSpace::or_cofactor)).
//!
//! A quantifier is absorbed when it is evaluated by restriction without a
//! renaming after it, and a disjunction computed as a set is the only node
//! that reads it: no `@`, rule call, twin, restriction or leaf of the point
//! form does, it is neither a rule body nor part of the statement outside
//! rules and `@` (which witnesses walk), and it is no twin. Its value is
//! then never built: its `now` only tells whether its atom matched at the
//! event (true: its value may be non-empty; false: it is empty), which is
//! what decides whether the disjunction must be recomputed.

use super::point::Analysis;
use super::restrict::{Bypass, Source};
use super::twins::Twins;
use crate::plan::{NodeIx, Op, PropPlan};

/// The result of [`analyse`].
#[derive(Clone, Debug, Default)]
pub(super) struct Absorbed {
    /// Per disjunction that absorbs a quantifier: `(other operand, quantifier)`.
    pub into: Vec<Option<(NodeIx, NodeIx)>>,
    /// Per node: a quantifier absorbed into its reader (never built).
    pub absorbed: Vec<bool>,
}

/// Finds the restricted quantifiers that the disjunctions reading them
/// absorb. `in_order` are the nodes computed as sets (without twins).
pub(super) fn analyse(
    plan: &PropPlan,
    point: &Analysis,
    bypass: &Bypass,
    twins: &Twins,
    in_order: &[bool],
) -> Absorbed {
    let n = plan.nodes.len();
    let mut out = Absorbed {
        into: vec![None; n],
        absorbed: vec![false; n],
    };
    if !bypass.any {
        return out;
    }
    let mut readers = vec![0usize; n];
    for k in 0..n {
        for r in super::restrict::reads(plan, &bypass.restricted, k).iter() {
            readers[r] += 1;
        }
    }
    // Candidates: restricted without renaming, computed, no twin.
    let mut ok: Vec<bool> = (0..n)
        .map(|b| {
            let plain = match bypass.restricted[b] {
                Some(r) => !matches!(r.source, Source::PreCall { renames: true, .. }),
                None => false,
            };
            plain
                && readers[b] == 1
                && in_order[b]
                && !twins.dropped[b]
                && twins.of[b].is_none()
        })
        .collect();
    for (source, _) in twins.of.iter().flatten() {
        ok[*source] = false;
    }
    for r in &plan.rules {
        ok[r.body] = false;
    }
    super::fuse::unfuse_leaves(&point.root, &mut ok);
    // The statement outside rules and `@`, which witnesses walk.
    let mut stack = vec![plan.root];
    let mut seen = vec![false; n];
    while let Some(k) = stack.pop() {
        if !std::mem::replace(&mut seen[k], true) {
            ok[k] = false;
            stack.extend(plan.nodes[k].op.same_step_kids().iter());
        }
    }
    for (k, node) in plan.nodes.iter().enumerate() {
        let Op::Or(x, y) = node.op else {
            continue;
        };
        if !in_order[k] || twins.dropped[k] || twins.of[k].is_some() || x == y {
            continue;
        }
        let pick = if ok[y] {
            Some((x, y))
        } else if ok[x] {
            Some((y, x))
        } else {
            None
        };
        if let Some((other, b)) = pick {
            out.into[k] = Some((other, b));
            out.absorbed[b] = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::plan::{Op, compile_source};
    use crate::runtime::prop::compiled::CompiledProp;

    /// The absorbed quantifiers of the first property of `text`, as
    /// `(disjunction, quantifier)` operator listings.
    fn absorbed(text: &str) -> Vec<(String, String)> {
        let (plan, _) = compile_source(text).expect("compiles");
        let p = plan.props.into_iter().next().expect("one property");
        let c = CompiledProp::new(p);
        let plan = &c.plan;
        (0..plan.nodes.len())
            .filter_map(|k| {
                let (_, b) = c.absorbed.into[k]?;
                assert!(c.absorbed.absorbed[b]);
                assert!(matches!(plan.nodes[k].op, Op::Or(..)));
                Some((format!("{:?}", plan.nodes[k].op), format!("{:?}", plan.nodes[b].op)))
            })
            .collect()
    }

    #[test]
    fn the_spawning_closure_is_absorbed() {
        let got = absorbed(
            "prop spawning : Forall x . Forall y . Forall d . report(y,x,d) -> spawned(x,y) where
               spawned(x,y) := @spawned(x,y) | spawn(x,y) | Exists z . (@spawned(x,z) & spawn(z,y))",
        );
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].1.starts_with("Quant(Exists"), "{got:?}");
    }

    #[test]
    fn a_quantifier_of_the_statement_is_not_absorbed() {
        // Witnesses walk the statement's disjunctions and read their operands.
        let got = absorbed(
            "prop p : Forall x . Forall y . q(x,y) -> (r(x) | Exists z . (@s(x,z) & q(z,y)))",
        );
        assert!(got.is_empty(), "{got:?}");
    }

    #[test]
    fn a_quantifier_read_by_at_is_not_absorbed() {
        // Rule c's quantifier is absorbed into its body; rule d's is read by
        // `@` (its value is kept from one event to the next): computed.
        let got = absorbed(
            "prop p : Forall x . Forall y . q(x,y) -> c(x,y) & d(x,y) where
               c(x,y) := @c(x,y) | Exists z . (@c(x,z) & q(z,y)),
               d(x,y) := q(x,y) | @(Exists z . (@c(x,z) & q(z,y)))",
        );
        assert_eq!(got, vec![("Or(0, 4)".to_string(), "Quant(Exists, 6, 3)".to_string())]);
    }
}
