//! Whether a conjunction of functions, some negated, is empty under a
//! partial assignment: a walk over the functions together that builds no
//! node and stops at the first satisfying path.

use hashbrown::HashSet;

use super::apply::{NEW_STACK, RED_ZONE};
use super::node::{FALSE, Id, TERMINAL, TRUE};
use super::table::Manager;

/// The most functions the walk takes at once.
pub(super) const MAX_PARTS: usize = 4;

/// The functions of a walk, padded with `TRUE` (which changes nothing).
type Parts = [Id; MAX_PARTS];

impl Manager {
    /// Whether `∧ parts` is false everywhere once the variables with
    /// `fixed[v] = Some(b)` are fixed, where part `i` is `parts[i]`, or its
    /// negation when `negated[i]`. At most [`MAX_PARTS`] parts. `None` if
    /// the walk meets more than `budget` tuples of nodes first.
    pub(super) fn conj_empty_under(
        &mut self,
        parts: &[Id],
        negated: &[bool],
        fixed: &[Option<bool>],
        mut budget: usize,
    ) -> Option<bool> {
        debug_assert!(parts.len() <= MAX_PARTS && parts.len() == negated.len());
        let mut ids = [TRUE; MAX_PARTS];
        let mut neg = [false; MAX_PARTS];
        ids[..parts.len()].copy_from_slice(parts);
        neg[..parts.len()].copy_from_slice(negated);
        let mut empty = HashSet::new();
        let mut walk = Walk {
            neg: &neg,
            fixed,
            empty: &mut empty,
            budget: &mut budget,
        };
        self.empty_walk(ids, &mut walk, 0)
    }

    /// [`conj_empty_under`](Self::conj_empty_under) at `ids`; `empty` holds
    /// the tuples already found empty.
    fn empty_walk(&mut self, ids: Parts, w: &mut Walk<'_>, depth: u32) -> Option<bool> {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || {
                self.empty_walk(ids, w, depth + 1)
            });
        }
        let mut open = false;
        let mut top = TERMINAL;
        for (&f, &negated) in ids.iter().zip(w.neg) {
            match f {
                // A part false everywhere here: the conjunction is.
                FALSE if !negated => return Some(true),
                TRUE if negated => return Some(true),
                // A part true everywhere here (it stays so below).
                FALSE | TRUE => {}
                f => {
                    open = true;
                    top = top.min(self.level(f));
                }
            }
        }
        if !open {
            return Some(false);
        }
        if w.empty.contains(&ids) {
            return Some(true);
        }
        *w.budget = w.budget.checked_sub(1)?;
        let branch = |m: &Self, ids: &Parts, hi: bool| {
            let mut next = *ids;
            for f in next.iter_mut() {
                let (lo, h) = m.cofactors(*f, top);
                *f = if hi { h } else { lo };
            }
            next
        };
        let result = match w.fixed.get(top as usize).copied().flatten() {
            Some(b) => {
                let next = branch(self, &ids, b);
                self.empty_walk(next, w, depth + 1)?
            }
            None => {
                let lo = branch(self, &ids, false);
                self.empty_walk(lo, w, depth + 1)? && {
                    let hi = branch(self, &ids, true);
                    self.empty_walk(hi, w, depth + 1)?
                }
            }
        };
        if result {
            w.empty.insert(ids);
        }
        Some(result)
    }
}

/// What a walk carries: the parts' negations, the fixed variables, the
/// tuples found empty, and the tuples it may still meet.
struct Walk<'a> {
    neg: &'a [bool; MAX_PARTS],
    fixed: &'a [Option<bool>],
    empty: &'a mut HashSet<Parts>,
    budget: &'a mut usize,
}

#[cfg(test)]
mod tests {
    use crate::bdd::{BddSpace, BddVar, shared::Space};

    #[test]
    fn a_walk_gives_up_past_its_budget() {
        let mut s = Space::new(6);
        // (x0 ∨ x2 ∨ x4) ∧ ¬(x1 ∧ x3 ∧ x5): many tuples before an answer.
        let lits: Vec<_> = (0..6).map(|i| s.lit(BddVar(i), true)).collect();
        let or = s.or(lits[0], lits[2]);
        let a = s.or(or, lits[4]);
        let and = s.and(lits[1], lits[3]);
        let b = s.and(and, lits[5]);
        let parts = [(a, true), (b, false)];
        // ¬a ∧ b holds at x1 = x3 = x5 = 1, the others 0.
        assert_eq!(s.conj_empty_within(&parts, usize::MAX), Some(false));
        assert_eq!(s.conj_empty_within(&parts, 0), None);
        assert_eq!(s.conj_empty_within(&parts, 2), None);
        assert!(!s.conj_empty_under(&parts, &[]));
        // x1 = 0 empties it.
        assert!(s.conj_empty_under(&parts, &[None, Some(false)]));
    }
}
