//! Twin summaries computed by renaming (with point evaluation on).
//!
//! A twin ([`crate::plan::twins`]) is a subformula that is another's, its
//! source's, with the variables renamed by `σ`. When every pair `(x, σ(x))`
//! shares an enumeration class, a value has the same code for `x` and
//! `σ(x)`, and at every event the twin's value is the source's with the
//! bits of each `x` renamed to those of `σ(x)` (a simultaneous substitution,
//! [`BddSpace::rename_by`], whose results the BDD layer caches). So the twin is
//! computed by one renaming of the source instead of from its operands, and
//! the operands, which only the twin reads, are not computed at all.
//!
//! This is locks-cycles' `[acq(t2,l2),rel(t2,l2))`, the renaming of
//! `[acq(t1,l1),rel(t1,l1))`: neither of its atoms is built nor its since
//! updated; and locks-datarace's second `H`.
//!
//! [`analyse`] decides which twins are *aliased* (computed by renaming) and
//! which nodes are *dropped* (not computed: every node that reads them is
//! aliased or dropped). A dropped node's previous value, when the plan keeps
//! one, is derived from its source's when asked for (profiles, garbage
//! collection, switching point evaluation off). Nodes that a witness or the
//! point form reads are never dropped. With point evaluation off every node
//! is computed as written.

use super::PropMonitor;
use super::point::Analysis;
use super::restrict::{self, Bypass};
use crate::bdd::{Bdd, BddSpace, BddVar, Space};
use crate::plan::{NodeIx, Op, PropPlan, twins};

/// A twin's source and the bits its renaming moves, `(bit of x, bit of σ(x))`.
pub(super) type Source = (NodeIx, Vec<(BddVar, BddVar)>);

/// The result of [`analyse`].
#[derive(Clone, Debug, Default)]
pub(super) struct Twins {
    /// Per node: its [`Source`], for every twin whose pairs share classes.
    pub of: Vec<Option<Source>>,
    /// Per node: computed as the renaming of its source.
    pub aliased: Vec<bool>,
    /// Per node: not computed.
    pub dropped: Vec<bool>,
}

/// Finds the twins of `plan` that point evaluation computes by renaming, and
/// the nodes it then need not compute. `in_order` are the nodes computed
/// as sets without twins, `fused` the fused negations.
pub(super) fn analyse(
    plan: &PropPlan,
    point: &Analysis,
    bypass: &Bypass,
    fused: &[bool],
    in_order: &[bool],
) -> Twins {
    let n = plan.nodes.len();
    let mut of = vec![None; n];
    for t in twins::find(&plan.nodes) {
        let vars = &plan.vars;
        if t.pairs.iter().any(|&(x, y)| vars[x].class != vars[y].class) {
            continue;
        }
        let free = &plan.nodes[t.source].free;
        let bits: Vec<(BddVar, BddVar)> = t
            .pairs
            .iter()
            .filter(|(x, _)| free.contains(x))
            .flat_map(|&(x, y)| {
                vars[x]
                    .bits
                    .iter()
                    .copied()
                    .zip(vars[y].bits.iter().copied())
            })
            .filter(|(a, b)| a != b)
            .collect();
        of[t.node] = Some((t.source, bits));
    }
    let aliasable = |k: NodeIx| match &of[k] {
        Some((source, bits)) => {
            in_order[k]
                && in_order[*source]
                && !fused[k]
                // A fused negation's value is never built.
                && !fused[*source]
                && !bits.is_empty()
                && !matches!(plan.nodes[k].op, Op::Atom { .. } | Op::Prev(_))
        }
        None => false,
    };
    let pinned = pinned(plan, point);
    // Dropped: the greatest set of twins, none pinned, that only aliased or
    // dropped nodes read.
    let mut dropped: Vec<bool> = (0..n)
        .map(|k| in_order[k] && of[k].is_some() && !pinned[k])
        .collect();
    let mut work: Vec<NodeIx> = (0..n).filter(|&k| in_order[k] && !dropped[k]).collect();
    while let Some(r) = work.pop() {
        let reads: Vec<NodeIx> = if aliasable(r) {
            of[r].iter().map(|(s, _)| *s).collect()
        } else if fused[r] {
            match plan.nodes[r].op {
                Op::Not(a) => vec![a],
                _ => Vec::new(),
            }
        } else {
            // A restriction reads its atom's matches too, which are bound
            // only for an atom that is not dropped.
            let atom = bypass.restricted[r].map(|x| x.atom);
            let reads = restrict::reads(plan, &bypass.restricted, r);
            reads.iter().chain(atom).collect()
        };
        for k in reads {
            if std::mem::replace(&mut dropped[k], false) {
                work.push(k);
            }
        }
    }
    let aliased = (0..n).map(|k| !dropped[k] && aliasable(k)).collect();
    Twins {
        of,
        aliased,
        dropped,
    }
}

/// The nodes that must be computed whatever reads them: the statement's
/// part that witnesses walk (its connectives and quantifiers, down to the
/// first other node), the nodes the point form reads, rule bodies.
fn pinned(plan: &PropPlan, point: &Analysis) -> Vec<bool> {
    let n = plan.nodes.len();
    let mut pinned = vec![true; n];
    super::fuse::unfuse_leaves(&point.root, &mut pinned);
    for p in pinned.iter_mut() {
        *p = !*p;
    }
    for r in &plan.rules {
        pinned[r.body] = true;
    }
    let mut walked = vec![false; n];
    let mut stack = vec![plan.root];
    while let Some(k) = stack.pop() {
        if k >= n || std::mem::replace(&mut walked[k], true) {
            continue;
        }
        pinned[k] = true;
        match plan.nodes[k].op {
            Op::Not(_)
            | Op::And(..)
            | Op::Or(..)
            | Op::Implies(..)
            | Op::Iff(..)
            | Op::Quant(..) => {
                stack.extend(plan.nodes[k].op.same_step_kids().iter());
            }
            _ => {}
        }
    }
    pinned
}

impl PropMonitor {
    /// The value of the aliased twin `n`: its source's, renamed.
    pub(super) fn twin_value(&self, space: &mut Space, n: NodeIx) -> Bdd {
        let source = match &self.compiled.twins.of[n] {
            Some((s, _)) => *s,
            None => n,
        };
        match self.consts.twin_renaming[n] {
            Some(r) => space.rename_by(self.state.now[source], r),
            None => self.state.now[source],
        }
    }

    /// The previous value of the dropped node `n` (which the plan keeps),
    /// derived from its source's; `None` before the first event.
    pub(super) fn twin_pre(&self, space: &mut Space, n: NodeIx) -> Option<Bdd> {
        let twins = &self.compiled.twins;
        if !twins.dropped[n] {
            return self.state.pre[n];
        }
        let (source, _) = twins.of[n].as_ref()?;
        let pre = self.twin_pre(space, *source)?;
        Some(match self.consts.twin_renaming[n] {
            Some(r) => space.rename_by(pre, r),
            None => pre,
        })
    }

    /// Switching point evaluation: the previous values of dropped nodes are
    /// not kept with it on, and must be again with it off.
    pub(super) fn switch_twins(&mut self, space: &mut Space, point_on: bool) {
        for n in 0..self.compiled.plan.nodes.len() {
            if self.compiled.twins.dropped[n] && self.compiled.keeps_pre[n] {
                // Sources come first: a chain of dropped twins resolves in order.
                self.state.pre[n] = if point_on {
                    None
                } else {
                    self.twin_pre(space, n)
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::compiled::CompiledProp;
    use crate::plan::{Op, compile_source};

    fn compiled(text: &str) -> CompiledProp {
        let (plan, _) = compile_source(text).expect("compiles");
        CompiledProp::new(plan.props.into_iter().next().expect("one property"))
    }

    fn label(c: &CompiledProp, n: usize) -> String {
        format!("{:?}", c.plan.nodes[n].op)
    }

    #[test]
    fn the_second_interval_of_locks_cycles_is_a_renaming() {
        let c = compiled(
            "prop c : Forall t1 . Forall t2 . Forall l1 . Forall l2 .
              (@ [acq(t1,l1),rel(t1,l1)) & acq(t1,l2)) -> (! @ P (@ [acq(t2,l2),rel(t2,l2)) & acq(t2,l1)))",
        );
        let aliased: Vec<usize> = (0..c.plan.nodes.len())
            .filter(|&n| c.twins.aliased[n])
            .collect();
        assert_eq!(aliased.len(), 1);
        let a = aliased[0];
        assert!(
            matches!(c.plan.nodes[a].op, Op::Since(..)),
            "{}",
            label(&c, a)
        );
        // Its atoms and its negation are not computed, nor kept.
        let dropped: Vec<usize> = (0..c.plan.nodes.len())
            .filter(|&n| c.twins.dropped[n])
            .collect();
        assert_eq!(dropped.len(), 3);
        let Op::Since(x, y) = c.plan.nodes[a].op else {
            unreachable!()
        };
        let Op::Not(z) = c.plan.nodes[x].op else {
            panic!("{}", label(&c, x))
        };
        let mut expected = vec![x, y, z];
        expected.sort_unstable();
        assert_eq!(dropped, expected);
        assert!(
            dropped
                .iter()
                .all(|d| !CompiledProp::order(&c.point_steps).contains(d))
        );
        assert!(CompiledProp::order(&c.point_steps).contains(&a));
        // The source is computed.
        let (source, bits) = c.twins.of[a].as_ref().expect("twin");
        assert!(CompiledProp::order(&c.point_steps).contains(source) && !c.twins.aliased[*source]);
        // Both variables move: every bit of t1 and of l1.
        assert_eq!(bits.len(), 2 * c.plan.bits_per_var);
    }

    #[test]
    fn a_twin_the_statement_reads_is_not_dropped() {
        // Both sinces are read by the point form: the second is renamed,
        // not dropped; only its atom is.
        let c = compiled("prop d : Forall x . Forall y . e(x, y) -> (P a(x)) & P a(y)");
        let aliased: Vec<usize> = (0..c.plan.nodes.len())
            .filter(|&n| c.twins.aliased[n])
            .collect();
        assert_eq!(aliased.len(), 1);
        assert!(!c.twins.dropped[aliased[0]]);
        let dropped: Vec<String> = (0..c.plan.nodes.len())
            .filter(|&n| c.twins.dropped[n])
            .map(|n| label(&c, n))
            .collect();
        assert_eq!(dropped.len(), 1);
        assert!(dropped[0].starts_with("Atom"), "{dropped:?}");
    }

    #[test]
    fn without_shared_classes_there_is_no_twin() {
        // Twin atoms alone do not join classes, and x and y are apart.
        let c = compiled("prop e : Forall x . Forall y . e(x, y) -> a(x) | a(y)");
        assert!(c.twins.of.iter().all(Option::is_none));
    }
}
