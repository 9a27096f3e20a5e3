//! A set with the assignments of one cube added or removed, in one walk
//! down the set along the cube's literals: `f ∨ k` or `f ∧ ¬k`.
//!
//! An interval `[p(x), q(x))` adds the tuple of each `p` event to its
//! summary and removes that of each `q` event. Built as connectives, each
//! event makes the cube of its tuple (a node per bit) and then the
//! disjunction or difference, a recursion that consults the operation
//! cache at every level for results it seldom holds (the tuples of
//! successive events differ). The walk makes only the nodes of the
//! result's changed path, and none where the set holds the tuple already
//! (adding) or does not hold it (removing).

use super::node::{FALSE, Id, TRUE};
use super::table::Manager;

impl Manager {
    /// `f ∨ k` when `add`, else `f ∧ ¬k`, for the cube `k` of `lits`
    /// (distinct variables, the top variable first): one walk down `f`
    /// along the literals, then the changed path built back up, each node
    /// beside it shared with `f`. `f` itself where the cube's assignments
    /// are all in it already (adding) or none is (removing). `None` when
    /// `f` tests, above the last literal, a variable that no literal fixes
    /// (the result would branch there). `path` is scratch.
    pub(super) fn edit_cube(
        &mut self,
        f: Id,
        lits: impl Iterator<Item = (u16, bool)>,
        add: bool,
        path: &mut Vec<(u16, bool, Id)>,
    ) -> Option<Id> {
        // Everything (adding) or nothing (removing): what the part of `f`
        // where the whole cube holds becomes.
        let done = if add { TRUE } else { FALSE };
        path.clear();
        // The part of `f` where the literals so far hold.
        let mut g = f;
        for (v, b) in lits {
            if g == done {
                return Some(f);
            }
            let level = self.level(g);
            if v < level {
                // `g` does not test the literal's variable: off the
                // literal's side it stays as it is.
                path.push((v, b, g));
            } else if v == level {
                let n = self.node(g);
                let (on, off) = if b { (n.hi, n.lo) } else { (n.lo, n.hi) };
                path.push((v, b, off));
                g = on;
            } else {
                return None;
            }
        }
        if g == done {
            return Some(f);
        }
        let mut r = done;
        for &(v, b, off) in path.iter().rev() {
            r = if b { self.mk(v, off, r) } else { self.mk(v, r, off) };
        }
        Some(r)
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
    fn an_edit_builds_no_node_off_the_changed_path() {
        let mut s = Space::new(8);
        // A set of two tuples of four bits, and a third added and removed.
        let a = s.cube(&[(v(0), true), (v(1), false), (v(2), true), (v(3), true)]);
        let b = s.cube(&[(v(0), false), (v(1), false), (v(2), true), (v(3), false)]);
        let set = s.or(a, b);
        let lits = [(v(3), false), (v(2), false), (v(1), true), (v(0), true)];
        let cube = s.cube(&lits);
        let want = s.or(set, cube);
        let before = s.table_stats().0;
        let added = s.edit_cube(set, &lits, true).expect("no branching");
        assert_eq!(added, want);
        // The new tuple shares no bit pattern with the others below the
        // top: one node per literal, none elsewhere.
        assert!(s.table_stats().0 <= before + lits.len(), "{} {}", s.table_stats().0, before);
        let removed = s.edit_cube(added, &lits, false).expect("no branching");
        assert_eq!(removed, set);
        // Removing what is not there, adding what is: the same set.
        assert_eq!(s.edit_cube(set, &lits, false), Some(set));
        assert_eq!(s.edit_cube(want, &lits, true), Some(want));
    }

    #[test]
    fn an_edit_over_other_variables_is_left_to_the_connectives() {
        let mut s = Space::new(6);
        // `f` tests variable 0, above the literals, which do not fix it.
        let x = s.cube(&[(v(0), true), (v(2), true)]);
        let y = s.cube(&[(v(0), false), (v(3), true)]);
        let f = s.or(x, y);
        let lits = [(v(1), true), (v(3), false)];
        assert_eq!(s.edit_cube(f, &lits, true), None);
        // Below the last literal, other variables are replaced whole.
        let lits = [(v(0), true), (v(1), false)];
        let cube = s.cube(&lits);
        for (add, want) in [(true, s.or(f, cube)), (false, s.and_not(f, cube))] {
            assert_eq!(s.edit_cube(f, &lits, add), Some(want), "{add}");
        }
    }
}
