//! A cofactor conjoined with a cube and added to another function, in one
//! walk: `g ∨ (f|c ∧ k)`, with `c` and `k` cubes.
//!
//! The monitor adds to a rule's relation, at each matching event, the
//! relation's cofactor at the event's value placed at other values (the
//! new pairs of a transitive closure). Restricting, conjoining and adding
//! one after the other builds the cofactor and its product with the cube as
//! BDDs of their own, each a walk over the one before; here one walk goes
//! down `g` and `f` together, `f` along `c`'s literals and the result along
//! `k`'s, and builds only the nodes of the result.
//!
//! Its intermediate results are remembered for the one operation only (its
//! cubes are seldom the same twice), in a [`Memo`] of its own.

use super::apply::{NEW_STACK, RED_ZONE};
use super::cache::Op;
use super::node::{FALSE, Id, TRUE, mix};
use super::table::Manager;
use crate::bdd::BddVar;

/// The fewest slots of a [`Memo`].
const MIN_MEMO: usize = 1 << 12;
/// The most slots of a [`Memo`].
const MAX_MEMO: usize = 1 << 16;

/// The results of one [`Manager::or_cofactor`] by `(g, f, k)` (the rest of
/// `c` is the part of it at and below `f`'s level, so `f` decides it): a
/// lossy, direct-mapped table whose entries are those of the operation
/// under way when their stamp is its stamp, so that nothing is cleared
/// between operations. It grows when an operation filled half of it.
#[derive(Clone, Default)]
pub(super) struct Memo {
    slots: Vec<Slot>,
    stamp: u32,
    filled: usize,
}

#[derive(Clone, Copy, Default)]
struct Slot {
    g: Id,
    f: Id,
    k: Id,
    r: Id,
    stamp: u32,
}

impl Memo {
    /// Starts an operation: the entries of the earlier ones no longer count.
    fn start(&mut self) {
        if self.slots.is_empty() || 2 * self.filled > self.slots.len() {
            let len = (4 * self.filled).next_power_of_two().clamp(MIN_MEMO, MAX_MEMO);
            if len != self.slots.len() {
                self.slots = vec![Slot::default(); len];
                self.stamp = 0;
            }
        }
        self.filled = 0;
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.slots.fill(Slot::default());
            self.stamp = 1;
        }
    }

    #[inline]
    fn slot(&self, g: Id, f: Id, k: Id) -> usize {
        mix(g as u64, f as u64, k as u64) as usize & (self.slots.len() - 1)
    }

    #[inline]
    pub(super) fn get(&self, g: Id, f: Id, k: Id) -> Option<Id> {
        let s = &self.slots[self.slot(g, f, k)];
        (s.stamp == self.stamp && s.g == g && s.f == f && s.k == k).then_some(s.r)
    }

    #[inline]
    pub(super) fn put(&mut self, g: Id, f: Id, k: Id, r: Id) {
        let i = self.slot(g, f, k);
        let stamp = self.stamp;
        self.slots[i] = Slot { g, f, k, r, stamp };
        self.filled += 1;
    }
}

impl Manager {
    /// `g ∨ (f|c ∧ k)`, where `c` and `k` are cubes (nodes of conjunctions
    /// of literals; `c` may not be false, `k` may, then the result is `g`).
    pub(super) fn or_cofactor(&mut self, g: Id, f: Id, c: Id, k: Id, memo: &mut Memo) -> Id {
        if k == FALSE {
            return g;
        }
        memo.start();
        self.or_cofactor_in(g, f, c, k, memo, 0)
    }

    /// The cube of `lits` to restrict by: when a variable is given twice
    /// with conflicting values, its first value counts (as in `restrict`).
    pub(super) fn restriction_cube(&mut self, lits: &[(BddVar, bool)]) -> Id {
        let c = self.cube(lits);
        if c != FALSE || lits.is_empty() {
            return c;
        }
        let mut firsts: Vec<(BddVar, bool)> = Vec::with_capacity(lits.len());
        for &(v, b) in lits {
            if firsts.iter().all(|&(w, _)| w != v) {
                firsts.push((v, b));
            }
        }
        self.cube(&firsts)
    }

    fn or_cofactor_in(&mut self, g: Id, f: Id, c: Id, k: Id, memo: &mut Memo, depth: u32) -> Id {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || {
                self.or_cofactor_in(g, f, c, k, memo, depth + 1)
            });
        }
        if f == FALSE || g == TRUE {
            return g;
        }
        // The literals of `c` above `f` restrict nothing.
        let c = self.cube_from(c, self.level(f));
        if k == TRUE {
            // g ∨ f|c: the cached operations.
            let r = self.restrict(f, c, depth + 1);
            return if g == FALSE {
                r
            } else {
                self.apply(Op::Or, g, r, depth + 1)
            };
        }
        if let Some(r) = memo.get(g, f, k) {
            return r;
        }
        let v = self.level(g).min(self.level(f)).min(self.level(k));
        let (g0, g1) = self.cofactors(g, v);
        let (mut f0, mut f1, mut c_rest) = (f, f, c);
        if self.level(f) == v {
            let n = self.node(f);
            (f0, f1) = (n.lo, n.hi);
            if self.level(c) == v {
                // A restricted variable: both sides read the literal's child.
                let child = if self.node(c).lo == FALSE { n.hi } else { n.lo };
                (f0, f1) = (child, child);
                c_rest = self.cube_next(c);
            }
        }
        let mut k_rest = k;
        if self.level(k) == v {
            // A variable of the cube: the cofactor is added on its side only.
            if self.node(k).lo == FALSE {
                f0 = FALSE;
            } else {
                f1 = FALSE;
            }
            k_rest = self.cube_next(k);
        }
        let lo = self.or_cofactor_in(g0, f0, c_rest, k_rest, memo, depth + 1);
        let hi = self.or_cofactor_in(g1, f1, c_rest, k_rest, memo, depth + 1);
        let r = self.mk(v, lo, hi);
        memo.put(g, f, k, r);
        r
    }
}

impl Manager {
    /// `f ∧ k` for the cube `k` of `lits` (distinct variables, the top
    /// variable first), in one walk down `f` along the literals: the cube
    /// is not built, only the nodes of the result (none when it is false).
    /// `None` past `budget` nodes of `f` whose children are both walked.
    pub(super) fn and_cube(
        &mut self,
        f: Id,
        lits: &[(u16, bool)],
        budget: usize,
        memo: &mut Memo,
    ) -> Option<Id> {
        let mut walk = CubeWalk::start(lits, budget, memo);
        self.and_cube_in(f, 0, &mut walk, 0)
    }

    fn and_cube_in(&mut self, f: Id, i: usize, walk: &mut CubeWalk<'_>, depth: u32) -> Option<Id> {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || {
                self.and_cube_in(f, i, walk, depth + 1)
            });
        }
        if f == FALSE {
            return Some(FALSE);
        }
        let Some(&(v, b)) = walk.lits.get(i) else {
            return Some(f);
        };
        if f == TRUE {
            return Some(self.cube_bottom_up(walk.lits[i..].iter().rev().copied()));
        }
        let level = self.level(f);
        if v < level {
            // A literal above `f`: its node over the rest.
            let rest = self.and_cube_in(f, i + 1, walk, depth + 1)?;
            return Some(self.literal_over(v, b, rest));
        }
        let n = self.node(f);
        if v == level {
            // One child: a chain, which reaches the next branching node.
            let child = if b { n.hi } else { n.lo };
            let rest = self.and_cube_in(child, i + 1, walk, depth + 1)?;
            return Some(self.literal_over(v, b, rest));
        }
        // A variable of `f` only: both children. Remembered by `f` and `i`
        // (which decide the result), so that a node reached again is not
        // walked again; between two such nodes the walk is a chain.
        if let Some(r) = walk.memo.get(f, i as Id, 0) {
            return Some(r);
        }
        walk.budget = walk.budget.checked_sub(1)?;
        let lo = self.and_cube_in(n.lo, i, walk, depth + 1)?;
        let hi = self.and_cube_in(n.hi, i, walk, depth + 1)?;
        let r = self.mk(level, lo, hi);
        walk.memo.put(f, i as Id, 0, r);
        Some(r)
    }

    /// The cofactor `f|k` for the cube `k` of `lits` (distinct variables,
    /// the top variable first), in one walk down `f` along the literals:
    /// neither the cube is built nor the operation cache consulted, only
    /// the nodes of `f` above or between the literals' variables are made
    /// again. `None` past `budget` nodes of `f` whose children are both
    /// walked.
    pub(super) fn cofactor_walk(
        &mut self,
        f: Id,
        lits: &[(u16, bool)],
        budget: usize,
        memo: &mut Memo,
    ) -> Option<Id> {
        let mut walk = CubeWalk::start(lits, budget, memo);
        self.cofactor_in(f, 0, &mut walk, 0)
    }

    fn cofactor_in(
        &mut self,
        mut f: Id,
        mut i: usize,
        walk: &mut CubeWalk<'_>,
        depth: u32,
    ) -> Option<Id> {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || {
                self.cofactor_in(f, i, walk, depth + 1)
            });
        }
        // Down the chain of the literals, to a node they leave both ways.
        let level = loop {
            if f <= TRUE {
                return Some(f);
            }
            let level = self.level(f);
            match walk.lits.get(i) {
                // A literal above `f`: it restricts nothing.
                Some(&(v, _)) if v < level => i += 1,
                Some(&(v, b)) if v == level => {
                    let n = self.node(f);
                    f = if b { n.hi } else { n.lo };
                    i += 1;
                }
                Some(_) => break level,
                None => return Some(f),
            }
        };
        if let Some(r) = walk.memo.get(f, i as Id, 0) {
            return Some(r);
        }
        walk.budget = walk.budget.checked_sub(1)?;
        let n = self.node(f);
        let lo = self.cofactor_in(n.lo, i, walk, depth + 1)?;
        let hi = self.cofactor_in(n.hi, i, walk, depth + 1)?;
        let r = self.mk(level, lo, hi);
        walk.memo.put(f, i as Id, 0, r);
        Some(r)
    }

    /// Whether `f ∧ k ⊆ g` for the cube `k` of `lits` (as in
    /// [`and_cube`](Self::and_cube)): a walk down `f` and `g` together
    /// along the literals that builds nothing, and stops at the first path
    /// of `f ∧ k` outside `g`. `None` past `budget` pairs of nodes whose
    /// children are both walked.
    pub(super) fn and_cube_within(
        &mut self,
        f: Id,
        lits: &[(u16, bool)],
        g: Id,
        budget: usize,
        memo: &mut Memo,
    ) -> Option<bool> {
        let mut walk = CubeWalk::start(lits, budget, memo);
        self.within_in(f, 0, g, &mut walk, 0)
    }

    fn within_in(
        &mut self,
        mut f: Id,
        mut i: usize,
        mut g: Id,
        walk: &mut CubeWalk<'_>,
        depth: u32,
    ) -> Option<bool> {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || {
                self.within_in(f, i, g, walk, depth + 1)
            });
        }
        // Down the chain of the literals, to a node where both sides count.
        let level = loop {
            if f == FALSE || g == TRUE || f == g {
                return Some(true);
            }
            if g == FALSE && f == TRUE {
                // The rest of the cube (distinct variables) holds somewhere.
                return Some(false);
            }
            let level = self.level(f).min(self.level(g));
            match walk.lits.get(i) {
                // A literal above both: it restricts neither.
                Some(&(v, _)) if v < level => i += 1,
                Some(&(v, b)) if v == level => {
                    let pick = |(lo, hi): (Id, Id)| if b { hi } else { lo };
                    (f, g) = (pick(self.cofactors(f, v)), pick(self.cofactors(g, v)));
                    i += 1;
                }
                _ => break level,
            }
        };
        // A variable of `f` or `g` only: both sides, remembered by the
        // pair and `i` (which decide the answer).
        if let Some(r) = walk.memo.get(g, f, i as Id) {
            return Some(r == TRUE);
        }
        walk.budget = walk.budget.checked_sub(1)?;
        let (f0, f1) = self.cofactors(f, level);
        let (g0, g1) = self.cofactors(g, level);
        let r = self.within_in(f0, i, g0, walk, depth + 1)?
            && self.within_in(f1, i, g1, walk, depth + 1)?;
        walk.memo.put(g, f, i as Id, if r { TRUE } else { FALSE });
        Some(r)
    }

    /// `v = b` conjoined with `rest` (which is below `v`).
    #[inline]
    fn literal_over(&mut self, v: u16, b: bool, rest: Id) -> Id {
        match (rest, b) {
            (FALSE, _) => FALSE,
            (_, true) => self.mk(v, FALSE, rest),
            (_, false) => self.mk(v, rest, FALSE),
        }
    }
}

/// The literals, budget and memo of one walk along a cube
/// ([`Manager::and_cube`], [`Manager::cofactor_walk`], [`Manager::edit_cube`]).
pub(super) struct CubeWalk<'a> {
    pub(super) lits: &'a [(u16, bool)],
    pub(super) budget: usize,
    pub(super) memo: &'a mut Memo,
}

impl<'a> CubeWalk<'a> {
    /// Starts a walk: the memo's entries of earlier ones no longer count.
    pub(super) fn start(lits: &'a [(u16, bool)], budget: usize, memo: &'a mut Memo) -> CubeWalk<'a> {
        memo.start();
        CubeWalk { lits, budget, memo }
    }
}

#[cfg(test)]
mod tests {
    use crate::bdd::shared::Space;
    use crate::bdd::{BddSpace, BddVar};

    fn v(i: u16) -> BddVar {
        BddVar(i)
    }

    #[test]
    fn a_cube_walk_counts_the_nodes_it_branches_at() {
        let mut s = Space::new(8);
        // f = x1 ⊕ x3 ⊕ x5: two nodes at x3 and x5, one at x1, each with
        // two children that a cube on x0, x2, x4, x6 leaves both to walk.
        let (x1, x3, x5) = (s.lit(v(1), true), s.lit(v(3), true), s.lit(v(5), true));
        let x13 = s.xor(x1, x3);
        let f = s.xor(x13, x5);
        let lits = [(v(6), true), (v(4), false), (v(2), true), (v(0), true)];
        let cube = s.cube(&lits);
        let want = s.and(f, cube);
        assert_eq!(s.and_cube(f, &lits, usize::MAX), Some(want));
        // x1, then x3 twice, then x5 (remembered when reached again).
        assert_eq!(s.and_cube(f, &lits, 5), Some(want));
        assert_eq!(s.and_cube(f, &lits, 4), None);
        assert_eq!(s.and_cube(f, &lits, 0), None);
        // Literals on f's variables only: a chain, no budget needed.
        let own = [(v(1), true), (v(3), false), (v(5), false)];
        let point = s.cube(&own);
        assert_eq!(s.and_cube(f, &own, 0), Some(point));
        // A false product, found without building.
        let xa = s.and(x1, x3);
        assert!(s.and_cube(xa, &[(v(1), false)], 0).is_some_and(|r| r.is_false()));
    }

    #[test]
    fn a_cube_walk_decides_inclusion_without_building() {
        let mut s = Space::new(8);
        let (x1, x3, x5) = (s.lit(v(1), true), s.lit(v(3), true), s.lit(v(5), true));
        let x13 = s.xor(x1, x3);
        let f = s.xor(x13, x5);
        let lits = [(v(6), true), (v(4), false), (v(2), true), (v(0), true)];
        let cube = s.cube(&lits);
        let part = s.and(f, cube);
        let x6 = s.lit(v(6), true);
        let x0 = s.lit(v(0), true);
        let not_x0 = s.not(x0);
        let bigger = s.or(part, not_x0);
        let smaller = s.and(part, x1);
        let nodes = s.table_stats().0;
        // Within itself, within more, not within a part of it or outside.
        assert_eq!(s.and_cube_within(f, &lits, part, usize::MAX), Some(true));
        assert_eq!(s.and_cube_within(f, &lits, bigger, usize::MAX), Some(true));
        assert_eq!(s.and_cube_within(f, &lits, x6, usize::MAX), Some(true));
        assert_eq!(s.and_cube_within(f, &lits, smaller, usize::MAX), Some(false));
        assert_eq!(s.and_cube_within(f, &lits, not_x0, usize::MAX), Some(false));
        // A false product is within anything; conflicting literals too.
        let ff = s.ff();
        assert_eq!(s.and_cube_within(ff, &lits, ff, 0), Some(true));
        assert_eq!(s.and_cube_within(f, &[(v(2), true), (v(2), false)], ff, 0), Some(true));
        // The branching nodes of f (x1, x3 twice, x5) count against the budget.
        assert_eq!(s.and_cube_within(f, &lits, part, 0), None);
        assert_eq!(s.table_stats().0, nodes, "nothing was built");
    }
}
