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
    /// negation when `negated[i]`. At most [`MAX_PARTS`] parts.
    pub(super) fn conj_empty_under(
        &mut self,
        parts: &[Id],
        negated: &[bool],
        fixed: &[Option<bool>],
    ) -> bool {
        debug_assert!(parts.len() <= MAX_PARTS && parts.len() == negated.len());
        let mut ids = [TRUE; MAX_PARTS];
        let mut neg = [false; MAX_PARTS];
        ids[..parts.len()].copy_from_slice(parts);
        neg[..parts.len()].copy_from_slice(negated);
        let mut empty = HashSet::new();
        self.empty_walk(ids, &neg, fixed, &mut empty, 0)
    }

    /// [`conj_empty_under`](Self::conj_empty_under) at `ids`; `empty` holds
    /// the tuples already found empty.
    fn empty_walk(
        &mut self,
        ids: Parts,
        neg: &[bool; MAX_PARTS],
        fixed: &[Option<bool>],
        empty: &mut HashSet<Parts>,
        depth: u32,
    ) -> bool {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || {
                self.empty_walk(ids, neg, fixed, empty, depth + 1)
            });
        }
        let mut open = false;
        let mut top = TERMINAL;
        for (&f, &negated) in ids.iter().zip(neg) {
            match f {
                // A part false everywhere here: the conjunction is.
                FALSE if !negated => return true,
                TRUE if negated => return true,
                // A part true everywhere here (it stays so below).
                FALSE | TRUE => {}
                f => {
                    open = true;
                    top = top.min(self.level(f));
                }
            }
        }
        if !open {
            return false;
        }
        if empty.contains(&ids) {
            return true;
        }
        let branch = |m: &Self, ids: &Parts, hi: bool| {
            let mut next = *ids;
            for f in next.iter_mut() {
                let (lo, h) = m.cofactors(*f, top);
                *f = if hi { h } else { lo };
            }
            next
        };
        let result = match fixed.get(top as usize).copied().flatten() {
            Some(b) => {
                let next = branch(self, &ids, b);
                self.empty_walk(next, neg, fixed, empty, depth + 1)
            }
            None => {
                let lo = branch(self, &ids, false);
                self.empty_walk(lo, neg, fixed, empty, depth + 1) && {
                    let hi = branch(self, &ids, true);
                    self.empty_walk(hi, neg, fixed, empty, depth + 1)
                }
            }
        };
        if result {
            empty.insert(ids);
        }
        result
    }
}
