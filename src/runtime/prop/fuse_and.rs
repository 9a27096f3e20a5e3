//! Conjunctions fused into the existential quantifiers that read them.
//!
//! `∃v . (φ ∧ ψ)` computed node by node builds the conjunction over every
//! variable of both operands, only for the quantifier to project `v` out
//! of it. The BDD layer computes the projection of the conjunction in one
//! walk (`and_exists`, the relational product), which never builds the
//! parts of the conjunction that the projection merges: locks-datarace's
//! `Exists l . (H .. & H ..)` is one.
//!
//! A conjunction is fused when, with point evaluation on, the quantifier is
//! the only node computed as a set that reads it, nothing reads it from
//! one event to the next (`@`, a rule call, a timed operator's state) or
//! as a leaf of the point form, and it takes part in no other rewriting
//! (restriction, twins, absorption). It is then not computed at an event;
//! a witness, which reads every node of the statement, computes it
//! afterwards, like the nodes of the point form.

use super::absorb::Absorbed;
use super::fuse::unfuse_leaves;
use super::point::Analysis;
use super::restrict::{Bypass, Source};
use super::twins::Twins;
use crate::bdd::{BddSpace, Space};
use crate::plan::{NodeIx, Op, PropPlan};
use crate::syntax::Quant;

/// Per node `i`, how many nodes computed as sets read it (`readers`), and
/// whether nothing reads it otherwise (`free`: from one event to the next,
/// as a rule's body, the statement, a leaf of the point form, a
/// restriction's source, or a twin's: every twin's when `every_twin`, else
/// those computed by renaming). `exists_and` are the conjunctions fused so
/// far ([`analyse`]): their quantifiers read their operands.
pub(super) fn reads(
    plan: &PropPlan,
    point: &Analysis,
    bypass: &Bypass,
    twins: &Twins,
    every_twin: bool,
    exists_and: &[Option<(NodeIx, NodeIx)>],
) -> (Vec<u32>, Vec<bool>) {
    let n = plan.nodes.len();
    let mut readers = vec![0u32; n];
    let mut free = vec![true; n];
    for (i, node) in plan.nodes.iter().enumerate() {
        match &node.op {
            Op::Prev(a) => free[*a] = false,
            Op::RuleCall { rule, .. } => free[plan.rules[*rule].body] = false,
            op if point.needs_set[i] => {
                for k in op.same_step_kids().iter() {
                    readers[k] += 1;
                }
            }
            _ => {}
        }
    }
    for &(x, y) in exists_and.iter().flatten() {
        readers[x] += 1;
        readers[y] += 1;
    }
    for r in &plan.rules {
        free[r.body] = false;
    }
    free[plan.root] = false;
    unfuse_leaves(&point.root, &mut free);
    for r in bypass.restricted.iter().flatten() {
        if let Source::Set(p) = r.source {
            free[p] = false;
        }
    }
    for (i, t) in twins.of.iter().enumerate() {
        if let Some((source, _)) = t
            && (every_twin || twins.aliased[i])
        {
            free[*source] = false;
            free[i] = false;
        }
    }
    (readers, free)
}

/// Whether node `i` is computed as a set at an event, as it is (no other
/// rewriting skips, hides, drops or absorbs it).
pub(super) fn plain(point: &Analysis, rewritten: (&Bypass, &Twins, &Absorbed), i: NodeIx) -> bool {
    let (bypass, twins, absorbed) = rewritten;
    point.needs_set[i]
        && !bypass.skipped[i]
        && !bypass.hidden[i]
        && !twins.dropped[i]
        && !absorbed.absorbed[i]
        && absorbed.into[i].is_none()
}

/// Per node: for an existential quantifier whose conjunction is fused into
/// it, the conjunction's operands.
pub(super) fn analyse(
    plan: &PropPlan,
    point: &Analysis,
    keeps_pre: &[bool],
    rewritten: (&Bypass, &Twins, &Absorbed),
) -> Vec<Option<(NodeIx, NodeIx)>> {
    let (bypass, twins, _) = rewritten;
    let n = plan.nodes.len();
    let (readers, free) = reads(plan, point, bypass, twins, true, &[]);
    let plain = |i: NodeIx| plain(point, rewritten, i);
    (0..n)
        .map(|q| {
            let Op::Quant(Quant::Exists, _, a) = plan.nodes[q].op else {
                return None;
            };
            let Op::And(x, y) = plan.nodes[a].op else {
                return None;
            };
            let ok = plain(q)
                && bypass.restricted[q].is_none()
                && plain(a)
                && free[a]
                && readers[a] == 1
                && !keeps_pre[a]
                && plain(x)
                && plain(y);
            ok.then_some((x, y))
        })
        .collect()
}

impl super::PropMonitor {
    /// `∃v . (x ∧ y)` for quantifier `n` over a fused conjunction, in one
    /// walk (the conjunction is not built), if `x` or `y` changed.
    #[inline(never)]
    pub(super) fn exists_and(&mut self, space: &mut Space, n: NodeIx, all: bool) {
        let Some((x, y)) = self.compiled.exists_and[n] else {
            unreachable!("only quantifiers over a fused conjunction")
        };
        let s = &mut self.state;
        if !(all || s.changed[x] || s.changed[y]) {
            s.changed[n] = false;
            return;
        }
        let Some(bits) = self.consts.quant_bits[n] else {
            unreachable!("every quantifier has its variable set")
        };
        let value = space.and_exists_in(s.now[x], s.now[y], bits);
        s.changed[n] = all || value != s.now[n];
        s.now[n] = value;
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::compile_source;
    use crate::runtime::prop::compiled::{CompiledProp, Step};

    /// The (quantifier, operands) pairs fused in the property of `text`.
    fn fused(text: &str) -> Vec<(String, String, String)> {
        let (plan, _) = compile_source(text).expect("compiles");
        let c = CompiledProp::new(plan.props.into_iter().next().expect("one property"));
        let op = |n: usize| format!("{:?}", c.plan.nodes[n].op);
        (c.point_steps.iter())
            .filter_map(|s| match *s {
                Step::ExistsAnd(q) => {
                    let (x, y) = c.exists_and[q].expect("fused");
                    Some((op(q), op(x), op(y)))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn an_exists_over_a_conjunction_of_histories_is_one_product() {
        let got = fused(
            "prop d : Forall x . (P w(x)) -> Exists l . (H (r(x) -> a(x, l))) & (H (s(x) -> a(x, l)))",
        );
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].0.starts_with("Quant(Exists"), "{got:?}");
        // Both operands are the negations of historically's since.
        assert!(got[0].1.starts_with("Not") && got[0].2.starts_with("Not"), "{got:?}");
    }

    #[test]
    fn a_conjunction_read_elsewhere_is_built() {
        // (With an event among the operands, the quantifier is a
        // restriction at the event's matches instead: see `restrict`.)
        let once = "prop d : Forall x . w(x) -> P (Exists l . ((P a(x, l)) & (P b(l))))";
        assert_eq!(fused(once).len(), 1, "{:?}", fused(once));
        // The same conjunction is also the operand of a since.
        let twice = "prop e : Forall x . w(x) ->
            (P (Exists l . ((P a(x, l)) & (P b(l))))) | (Exists l . P ((P a(x, l)) & (P b(l))))";
        assert!(fused(twice).is_empty(), "{:?}", fused(twice));
        // Read from one event to the next.
        let prev = "prop f : Forall x . w(x) ->
            P ((Exists l . ((P a(x, l)) & (P b(l)))) | (Exists l . @ ((P a(x, l)) & (P b(l)))))";
        assert!(fused(prev).is_empty(), "{:?}", fused(prev));
    }
}
