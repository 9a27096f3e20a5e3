//! Event patterns fused into the conjunctions that read them.
//!
//! `φ ∧ a(..)`, with `a` an event pattern, computed node by node builds the
//! cube of each match of `a` (a node per bit of its codes) only for the
//! conjunction to walk it together with `φ`; and the cube is new at most
//! events, its values seen for the first time since the last collection.
//! The BDD layer conjoins `φ` with a match's literals in one walk down `φ`
//! (`and_cube`), which builds only the nodes of the result: none where `φ`
//! holds nowhere at the match's values. In locks-cycles,
//! `@ [acq(t2,l2),rel(t2,l2)) & acq(t2,l1)` is one: at every `acq` the cube
//! of `acq(t2,l1)` was built, and at half of them the interval held no
//! lock of the thread.
//!
//! An atom is fused when, with point evaluation on, the conjunction is the
//! only node computed as a set that reads it (a quantifier whose
//! conjunction is fused into it reads that conjunction's operands: see
//! `fuse_and`), nothing reads it from one event to the next (`@`, a rule
//! call) or as a leaf of the point form, and neither it nor the
//! conjunction takes part in another rewriting
//! (restriction, twins computed by renaming, absorption, a conjunction
//! fused into a quantifier).
//! Its value is then not built at an event, only whether it changed (it
//! matched at this event or at the one before); a witness, which reads
//! every node of the statement, computes it afterwards, like the nodes of
//! the point form. Where the other operand is large next to a cube, the
//! cubes are built and conjoined after all (see `PropMonitor::and_match`).

use super::absorb::Absorbed;
use super::point::Analysis;
use super::restrict::Bypass;
use super::twins::Twins;
use super::PropMonitor;
use crate::bdd::{Bdd, BddSpace, BddVar, Space};
use crate::plan::{NodeIx, Op, PropPlan};

/// Per node: for a conjunction with a fused atom, `(other operand, atom)`.
pub(super) fn analyse(
    plan: &PropPlan,
    point: &Analysis,
    keeps_pre: &[bool],
    rewritten: (&Bypass, &Twins, &Absorbed),
    exists_and: &[Option<(NodeIx, NodeIx)>],
) -> Vec<Option<(NodeIx, NodeIx)>> {
    let (_, twins, _) = rewritten;
    let n = plan.nodes.len();
    let plain = |i: NodeIx| super::fuse_and::plain(point, rewritten, i);
    let lone = lone_atoms(plan, point, keeps_pre, rewritten, exists_and);
    (0..n)
        .map(|q| {
            let Op::And(x, y) = plan.nodes[q].op else {
                return None;
            };
            if !plain(q) || twins.aliased[q] || x == y {
                return None;
            }
            if lone[y] && plain(x) {
                Some((x, y))
            } else if lone[x] && plain(y) {
                Some((y, x))
            } else {
                None
            }
        })
        .collect()
}

/// Per node: whether it is an atom computed as it is (no other rewriting)
/// that one node computed as a set reads at an event, and nothing else
/// (see [`fuse_and::reads`](super::fuse_and::reads)): one that the node
/// reading it may take in.
pub(super) fn lone_atoms(
    plan: &PropPlan,
    point: &Analysis,
    keeps_pre: &[bool],
    rewritten: (&Bypass, &Twins, &Absorbed),
    exists_and: &[Option<(NodeIx, NodeIx)>],
) -> Vec<bool> {
    let (bypass, twins, _) = rewritten;
    // A twin computed by renaming reads its source's value.
    let (readers, free) = super::fuse_and::reads(plan, point, bypass, twins, false, exists_and);
    (0..plan.nodes.len())
        .map(|a| {
            matches!(plan.nodes[a].op, Op::Atom { .. })
                && super::fuse_and::plain(point, rewritten, a)
                && free[a]
                && readers[a] == 1
                && !keeps_pre[a]
        })
        .collect()
}

/// Per conjunction with a fused atom (`and_atom`): the node `P` of it
/// (`true S` it), when that is the only node that reads it, at an event
/// or from one to the next, and both are computed as they are. At a match
/// whose values the `P` holds already, the conjunction is not built (see
/// `PropMonitor::adds_nothing`).
pub(super) fn once_readers(
    plan: &PropPlan,
    point: &Analysis,
    keeps_pre: &[bool],
    rewritten: (&Bypass, &Twins, &Absorbed),
    exists_and: &[Option<(NodeIx, NodeIx)>],
    and_atom: &[Option<(NodeIx, NodeIx)>],
) -> Vec<Option<NodeIx>> {
    let (bypass, twins, _) = rewritten;
    // A twin computed by renaming reads its source's value.
    let (readers, free) = super::fuse_and::reads(plan, point, bypass, twins, false, exists_and);
    let plain = |i: NodeIx| super::fuse_and::plain(point, rewritten, i);
    let mut out = vec![None; plan.nodes.len()];
    for (s, node) in plan.nodes.iter().enumerate() {
        if let Op::Since(t, q) = node.op
            && and_atom[q].is_some()
            && matches!(plan.nodes[t].op, Op::True)
            && readers[q] == 1
            && free[q]
            && !keeps_pre[q]
            && plain(s)
            && !twins.aliased[s]
        {
            out[q] = Some(s);
        }
    }
    out
}

impl PropMonitor {
    /// Conjunction `n` with a fused atom: its other operand conjoined with
    /// the literals of each of the atom's matches at this event (the cubes
    /// are not built), if either changed.
    #[inline(never)]
    pub(super) fn and_atom(&mut self, space: &mut Space, n: NodeIx, all: bool) {
        let Some((x, a)) = self.compiled.and_atom[n] else {
            unreachable!("only conjunctions with a fused atom")
        };
        // An `@` of a twin read at the matches: its source stands for it
        // (renamed at each match; see `twins::defer`), and changes with it.
        let x = (self.compiled.at_match[n].as_ref()).map_or(x, |m| m.source);
        let s = &self.state;
        if !(all || s.changed[x] || s.changed[a]) {
            self.state.changed[n] = false;
            return;
        }
        let other = s.now[x];
        let mut value = space.ff();
        if let Some(once) = self.compiled.and_atom_once[n]
            && let Some(pre) = s.pre[once]
            && !all
            && !other.is_false()
            && self.adds_nothing(space, (n, a), other, pre)
        {
            // Its `P` is as before: false stands for the conjunction
            // (`P` adds nothing with it), which nothing else reads. Nor
            // does a violation's walk: it goes down Boolean connectives
            // and quantifiers only, and the conjunction is under its `P`.
        } else if other.is_false() {
            // Nothing to walk.
        } else {
            for i in 0..self.scratch.binding.matched.len() {
                if self.scratch.binding.matched[i].0 != a {
                    continue;
                }
                let part = self.and_match(space, n, other, i);
                value = if value.is_false() {
                    part
                } else {
                    space.or(value, part)
                };
            }
        }
        let s = &mut self.state;
        s.changed[n] = all || value != s.now[n];
        s.now[n] = value;
    }
}

impl PropMonitor {
    /// Keeps whether atom `n`, if fused, changed (it is not built): at the
    /// start of a step (`matched` false), if it matched at the previous
    /// one; at a match of this step, it did.
    #[inline]
    pub(super) fn track_fused(&mut self, n: NodeIx, matched: bool, all: bool) {
        if self.point_on && self.compiled.atom_fused[n] {
            let s = &mut self.state;
            s.changed[n] = all || matched || s.atom_active[n];
            s.atom_active[n] = matched;
        }
    }

    /// Whether `other ∧ a`, for the matches of atom `a` at this event, is
    /// within `pre` (the previous value of the `P` that alone reads the
    /// conjunction): then the `P` is `pre` again, whatever the conjunction.
    /// A walk per match that builds nothing, where building the
    /// conjunction and the `P` took a node per bit of each match (in
    /// locks-cycles, at every `acq` of a second lock: the pair of locks
    /// seen at every round of the threads).
    ///
    /// Not tried for a conjunction whose walks gave up before (this one,
    /// or those of `and_match`): where `other` or the `P` is large next to
    /// a match, a walk would meet many nodes, and seldom find the values
    /// held (fifo's `P (enter(y) & @ P enter(x))` adds a new `y` at every
    /// `enter`; walked, it took 5% more instructions).
    fn adds_nothing(
        &mut self,
        space: &mut Space,
        (n, a): (NodeIx, NodeIx),
        other: Bdd,
        pre: Bdd,
    ) -> bool {
        let given_up = |v: &Vec<bool>| v.get(n).copied().unwrap_or(false);
        if given_up(&self.scratch.and_built) || given_up(&self.scratch.once_given_up) {
            return false;
        }
        let mut lits = std::mem::take(&mut self.scratch.cube_lits);
        let mut within = true;
        for i in 0..self.scratch.binding.matched.len() {
            if self.scratch.binding.matched[i].0 != a {
                continue;
            }
            let range = self.scratch.binding.matched[i].1.clone();
            self.match_lits(range, &mut lits);
            let other = self.other_at(space, n, other, &lits);
            match space.and_cube_within(other, &lits, pre, lits.len()) {
                Some(true) => {}
                Some(false) => within = false,
                None => {
                    let v = &mut self.scratch.once_given_up;
                    if v.len() <= n {
                        v.resize(n + 1, false);
                    }
                    v[n] = true;
                    within = false;
                }
            }
            if !within {
                break;
            }
        }
        self.scratch.cube_lits = lits;
        within
    }

    /// `other` conjoined with the cube of match `i`, for conjunction `n`:
    /// walked, or, once a walk of `n` gave up, built.
    ///
    /// A walk gives up past as many nodes of `other` with two children as
    /// the cube has literals: then the result is large next to the cube,
    /// which costs little to build, and the conjunction's results stay in
    /// the operation cache from one event to the next (where a walk's last
    /// one call), the cubes of successive matches sharing their lower
    /// bits. fifo's `P (enter(y) & @ P enter(x))`, over every `x` entered
    /// so far, walked at each `enter` took 20% more instructions than the
    /// cached conjunctions; locks-cycles' walks meet a few such nodes
    /// (the other lock the thread holds).
    fn and_match(&mut self, space: &mut Space, n: NodeIx, other: Bdd, i: usize) -> Bdd {
        let built = &mut self.scratch.and_built;
        if built.len() <= n {
            built.resize(n + 1, false);
        }
        let walk = !built[n];
        let mut other = other;
        if walk || self.compiled.at_match[n].is_some() {
            let mut lits = std::mem::take(&mut self.scratch.cube_lits);
            let range = self.scratch.binding.matched[i].1.clone();
            self.match_lits(range, &mut lits);
            other = self.other_at(space, n, other, &lits);
            let walked = walk.then(|| space.and_cube(other, &lits, lits.len()));
            self.scratch.cube_lits = lits;
            match walked {
                Some(Some(part)) => return part,
                Some(None) => self.scratch.and_built[n] = true,
                None => {}
            }
        }
        let cube = self.match_cube(space, i);
        space.and(other, cube)
    }

    /// The other operand of conjunction `n` as far as the match of
    /// literals `lits` reads it: `other` itself, or, for an `@` of a twin
    /// read at the matches (`other` is then its source's value), the
    /// source's cofactor at the match's values, renamed (see
    /// `twins::defer`; its conjunction with the match's cube is the
    /// twin's).
    fn other_at(&mut self, space: &mut Space, n: NodeIx, other: Bdd, lits: &[(BddVar, bool)]) -> Bdd {
        let Some(m) = &self.compiled.at_match[n] else {
            return other;
        };
        if other.is_false() {
            return other;
        }
        let mut back = std::mem::take(&mut self.scratch.back_lits);
        back.clear();
        back.extend(lits.iter().filter_map(|&(v, b)| {
            let from = m.back.get(v.0 as usize).copied().unwrap_or(u16::MAX);
            (from != u16::MAX).then_some((BddVar(from), b))
        }));
        let cofactor = match space.cofactor_walk(other, &back, back.len()) {
            Some(c) => c,
            None => space.restrict(other, &back),
        };
        self.scratch.back_lits = back;
        match self.consts.twin_renaming[m.twin] {
            Some(r) => space.rename_by(cofactor, r),
            None => cofactor,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::compile_source;
    use crate::runtime::prop::compiled::{CompiledProp, Step};

    /// The (conjunction, other operand, atom) triples fused in the
    /// property of `text`.
    fn fused(text: &str) -> Vec<(String, String, String)> {
        let (plan, _) = compile_source(text).expect("compiles");
        let c = CompiledProp::new(plan.props.into_iter().next().expect("one property"));
        let op = |n: usize| format!("{:?}", c.plan.nodes[n].op);
        (c.point_steps.iter())
            .filter_map(|s| match *s {
                Step::AndAtom(q) => {
                    let (x, a) = c.and_atom[q].expect("fused");
                    assert!(!c.point.needs_set[a] || c.atom_fused[a]);
                    Some((op(q), op(x), op(a)))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_event_of_locks_cycles_past_is_fused() {
        let got = fused(
            "prop c : Forall t1 . Forall t2 . Forall l1 . Forall l2 .
              (@ [acq(t1,l1),rel(t1,l1)) & acq(t1,l2)) -> (! @ P (@ [acq(t2,l2),rel(t2,l2)) & acq(t2,l1)))",
        );
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].0.starts_with("And"), "{got:?}");
        assert!(got[0].1.starts_with("Prev"), "{got:?}");
        assert!(got[0].2.starts_with("Atom"), "{got:?}");
    }

    /// The (conjunction, `P`) pairs of the property of `text` whose `P`
    /// alone reads the conjunction.
    fn once(text: &str) -> Vec<(String, String)> {
        let (plan, _) = compile_source(text).expect("compiles");
        let c = CompiledProp::new(plan.props.into_iter().next().expect("one property"));
        let op = |n: usize| format!("{:?}", c.plan.nodes[n].op);
        (c.and_atom_once.iter().enumerate())
            .filter_map(|(q, s)| s.map(|s| (op(q), op(s))))
            .collect()
    }

    #[test]
    fn a_past_conjunction_read_by_its_p_only_is_checked_first() {
        let cycles = once(
            "prop c : Forall t1 . Forall t2 . Forall l1 . Forall l2 .
              (@ [acq(t1,l1),rel(t1,l1)) & acq(t1,l2)) -> (! @ P (@ [acq(t2,l2),rel(t2,l2)) & acq(t2,l1)))",
        );
        assert_eq!(cycles.len(), 1, "{cycles:?}");
        assert!(cycles[0].0.starts_with("And") && cycles[0].1.starts_with("Since"), "{cycles:?}");
        // Under a since other than P, or read by another node too: built.
        let since = "prop a : Forall x . w(x) -> !(c(x) S (a(x) & P b(x)))";
        assert!(once(since).is_empty(), "{:?}", once(since));
        let twice = "prop b : Forall x . w(x) -> !P (a(x) & P b(x)) | @(a(x) & P b(x))";
        assert!(once(twice).is_empty(), "{:?}", once(twice));
        assert_eq!(once("prop d : Forall x . w(x) -> !P (a(x) & P b(x))").len(), 1);
    }

    #[test]
    fn an_atom_read_elsewhere_is_built() {
        // Read by the conjunction only, either side.
        let once = "prop a : Forall x . w(x) -> !P (a(x) & P b(x))";
        assert_eq!(fused(once).len(), 1, "{:?}", fused(once));
        // Also the operand of a since.
        let twice = "prop b : Forall x . w(x) -> !P (a(x) & P b(x)) | P a(x)";
        assert!(fused(twice).is_empty(), "{:?}", fused(twice));
        // Read from one event to the next.
        let prev = "prop c : Forall x . w(x) -> !P ((P b(x) & a(x)) | @ a(x))";
        assert!(fused(prev).is_empty(), "{:?}", fused(prev));
        // A conjunction of two events: one fused, the other read by it.
        let both = "prop d : Forall x . w(x) -> !P (a(x) & b(x))";
        assert_eq!(fused(both).len(), 1, "{:?}", fused(both));
    }
}
