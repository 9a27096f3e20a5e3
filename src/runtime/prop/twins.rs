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
//! updated; and locks-datarace's second `H`. When only the `@` of a twin
//! reads it, and only a conjunction with an event reads that `@`, the
//! twin is not renamed at every event either: the conjunction renames the
//! part of the source's `@` at each match of the event ([`defer`]).
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

/// An `@` of a twin that a conjunction with a fused atom alone reads, read
/// at the atom's matches only (see [`defer`]).
#[derive(Clone, Debug)]
pub(super) struct AtMatch {
    /// The `@` (dropped): the renaming of `source` by its twin's renaming.
    pub twin: NodeIx,
    /// The `@` it renames, computed at every event.
    pub source: NodeIx,
    /// Per BDD variable of a match's literals: the source's bit whose
    /// value the twin reads there (`u16::MAX`: none, the twin does not
    /// depend on it).
    pub back: Vec<u16>,
}

/// The conjunctions `x ∧ a` with a fused atom `a` (`and_atom`) whose `x`
/// is `@ t`, `t` a twin computed by renaming, when nothing but the
/// conjunction reads `x` and nothing but `x` reads `t`. The conjunction is
/// only built at a match of `a` (it is false elsewhere), and only the
/// match's part of `x` counts there: `x ∧ k = (s|σ⁻¹(k))[σ] ∧ k` for the
/// match's cube `k`, where `s` is the `@` of `t`'s source and `σ` the
/// renaming. So the twin is renamed neither at every event nor whole: at a
/// match, the source's cofactor at the match's values (a few nodes) is.
/// In locks-cycles, `@ [acq(t2,l2),rel(t2,l2)) & acq(t2,l1)` reads at an
/// `acq` the locks that thread holds, where the interval of every thread
/// was renamed at every `acq` and `rel`.
///
/// `t` and `x` become dropped (their previous values derived from their
/// sources' when asked for, as any dropped twin's).
pub(super) fn defer(
    plan: &PropPlan,
    point: &Analysis,
    and_atom: &[Option<(NodeIx, NodeIx)>],
    in_order: &[bool],
    twins: &mut Twins,
) -> Vec<Option<AtMatch>> {
    let n = plan.nodes.len();
    let mut out = vec![None; n];
    if !plan.rules.is_empty() {
        return out;
    }
    // Every node that reads each node, at an event or from one to the next.
    let mut read_by: Vec<Vec<NodeIx>> = vec![Vec::new(); n];
    for (k, node) in plan.nodes.iter().enumerate() {
        let prev = match node.op {
            Op::Prev(a) => Some(a),
            _ => None,
        };
        for a in node.op.same_step_kids().iter().chain(prev) {
            read_by[a].push(k);
        }
    }
    for (k, t) in twins.of.iter().enumerate() {
        if let Some((source, _)) = t
            && (twins.aliased[k] || twins.dropped[k])
        {
            read_by[*source].push(k);
        }
    }
    let pinned = pinned(plan, point);
    let only = |x: NodeIx, by: NodeIx| read_by[x] == [by] && !pinned[x] && x != plan.root;
    for (q, fused) in and_atom.iter().enumerate() {
        let Some((x, _)) = *fused else { continue };
        let Op::Prev(t) = plan.nodes[x].op else {
            continue;
        };
        let Some((source, bits)) = &twins.of[x] else {
            continue;
        };
        let source = *source;
        if !(matches!(plan.nodes[source].op, Op::Prev(_))
            && in_order[source]
            && !twins.dropped[source]
            && twins.aliased[t]
            && only(x, q)
            && only(t, x))
        {
            continue;
        }
        let mut back = vec![u16::MAX; plan.bdd_vars];
        for &v in &plan.nodes[x].free {
            for &b in &plan.vars[v].bits {
                let from = bits.iter().find(|(_, to)| *to == b).map_or(b, |(f, _)| *f);
                back[b.0 as usize] = from.0;
            }
        }
        twins.dropped[x] = true;
        twins.dropped[t] = true;
        twins.aliased[t] = false;
        out[q] = Some(AtMatch {
            twin: x,
            source,
            back,
        });
    }
    out
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
    use super::AtMatch;
    use crate::plan::{Op, compile_source};

    fn compiled(text: &str) -> CompiledProp {
        let (plan, _) = compile_source(text).expect("compiles");
        CompiledProp::new(plan.props.into_iter().next().expect("one property"))
    }

    fn label(c: &CompiledProp, n: usize) -> String {
        format!("{:?}", c.plan.nodes[n].op)
    }

    const LOCKS_CYCLES: &str = "prop c : Forall t1 . Forall t2 . Forall l1 . Forall l2 .
        (@ [acq(t1,l1),rel(t1,l1)) & acq(t1,l2)) -> (! @ P (@ [acq(t2,l2),rel(t2,l2)) & acq(t2,l1)))";

    #[test]
    fn the_second_interval_of_locks_cycles_is_read_at_the_matches_only() {
        let c = compiled(LOCKS_CYCLES);
        let nodes = |keep: &dyn Fn(usize) -> bool| (0..c.plan.nodes.len()).filter(|&n| keep(n)).collect::<Vec<_>>();
        // The `@` of the second interval, read by its conjunction alone, is
        // the `@` of the first renamed, at the matches of `acq(t2,l1)`.
        let deferred: Vec<(usize, &AtMatch)> = (c.at_match.iter().enumerate())
            .filter_map(|(q, m)| m.as_ref().map(|m| (q, m)))
            .collect();
        assert_eq!(deferred.len(), 1);
        let (q, m) = deferred[0];
        assert_eq!(c.and_atom[q].map(|(x, _)| x), Some(m.twin));
        let Op::Prev(t) = c.plan.nodes[m.twin].op else {
            panic!("{}", label(&c, m.twin))
        };
        assert!(matches!(c.plan.nodes[t].op, Op::Since(..)), "{}", label(&c, t));
        assert!(matches!(c.plan.nodes[m.source].op, Op::Prev(_)), "{}", label(&c, m.source));
        // So nothing is renamed at an event: the interval, its atoms, its
        // negation and its `@` are neither computed nor kept.
        assert!(nodes(&|n| c.twins.aliased[n]).is_empty());
        let Op::Since(x, y) = c.plan.nodes[t].op else {
            unreachable!()
        };
        let Op::Not(z) = c.plan.nodes[x].op else {
            panic!("{}", label(&c, x))
        };
        let mut expected = vec![x, y, z, t, m.twin];
        expected.sort_unstable();
        let dropped = nodes(&|n| c.twins.dropped[n]);
        assert_eq!(dropped, expected);
        let order = CompiledProp::order(&c.point_steps);
        assert!(dropped.iter().all(|d| !order.contains(d)));
        assert!(!c.kept_point.contains(&t));
        // The source is computed. Its bits come back from the twin's:
        // t2's to t1's, l2's to l1's; l1's, which the twin does not read,
        // to none.
        let (source, bits) = c.twins.of[t].as_ref().expect("twin");
        assert!(order.contains(source) && order.contains(&m.source));
        assert_eq!(bits.len(), 2 * c.plan.bits_per_var);
        let var = |name: &str| c.plan.vars.iter().find(|v| v.name == name).expect("a variable");
        let back = |from: &str, to: Option<&str>| {
            for (i, b) in var(from).bits.iter().enumerate() {
                let want = to.map_or(u16::MAX, |to| var(to).bits[i].0);
                assert_eq!(m.back[b.0 as usize], want, "{from} bit {i}");
            }
        };
        back("t2", Some("t1"));
        back("l2", Some("l1"));
        back("l1", None);
        back("t1", None);
    }

    #[test]
    fn a_twin_read_elsewhere_is_renamed_at_every_event() {
        // The second interval's `@` is read by the point form too.
        let c = compiled(
            "prop c : Forall t1 . Forall t2 . Forall l1 . Forall l2 .
              (@ [acq(t1,l1),rel(t1,l1)) & acq(t1,l2)) -> (! @ P (@ [acq(t2,l2),rel(t2,l2)) & acq(t2,l1))) | @ [acq(t2,l2),rel(t2,l2))",
        );
        assert!(c.at_match.iter().all(Option::is_none));
        // The second interval itself is.
        let c = compiled(
            "prop c : Forall t1 . Forall t2 . Forall l1 . Forall l2 .
              (@ [acq(t1,l1),rel(t1,l1)) & acq(t1,l2)) -> (! @ P (@ [acq(t2,l2),rel(t2,l2)) & acq(t2,l1))) | [acq(t2,l2),rel(t2,l2))",
        );
        assert!(c.at_match.iter().all(Option::is_none));
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
