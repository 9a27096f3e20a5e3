//! The boolean connectives: negation, the binary operations, if-then-else
//! and cubes, each a recursion over both operands with cached results.

use super::cache::Op;
use super::node::{FALSE, Id, TRUE};
use super::table::Manager;
use crate::bdd::BddVar;

/// Every this many levels, recursion checks that [`RED_ZONE`] bytes of stack
/// remain, and continues on a new stack of [`NEW_STACK`] bytes if not.
const STACK_CHECK_EVERY: u32 = 128;
/// Stack that must remain for a recursion to continue on the current stack.
pub(super) const RED_ZONE: usize = 256 * 1024;
/// The size of each new stack segment.
pub(super) const NEW_STACK: usize = 8 * 1024 * 1024;

impl Manager {
    pub(super) fn not(&mut self, f: Id, depth: u32) -> Id {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || self.not(f, depth + 1));
        }
        match f {
            FALSE => return TRUE,
            TRUE => return FALSE,
            _ => {}
        }
        if let Some(r) = self.cache.get(Op::Not, f, 0, 0) {
            return r;
        }
        let n = self.node(f);
        // A terminal child is negated without a call.
        let not = |m: &mut Self, g: Id| if g <= TRUE { TRUE - g } else { m.not(g, depth + 1) };
        let lo = not(self, n.lo);
        let hi = not(self, n.hi);
        let r = self.mk(n.var, lo, hi);
        self.cache.put(Op::Not, f, 0, 0, r);
        r
    }

    /// Whether a recursion at `depth` should continue on a grown stack.
    #[inline]
    pub(super) fn deep(depth: u32) -> bool {
        depth % STACK_CHECK_EVERY == STACK_CHECK_EVERY - 1
    }

    /// Binary operation `op` on `a` and `b`. Where an operand decides the
    /// result (see [`decided`]), no call is made: many cofactors do.
    #[inline(always)]
    pub(super) fn apply(&mut self, op: Op, a: Id, b: Id, depth: u32) -> Id {
        match decided(op, a, b) {
            Some(r) => r,
            None => self.apply_open(op, a, b, depth),
        }
    }

    /// [`apply`](Self::apply) where no operand decides the result alone.
    fn apply_open(&mut self, op: Op, a: Id, b: Id, depth: u32) -> Id {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || {
                self.apply_open(op, a, b, depth + 1)
            });
        }
        // The cases left that an operand decides: a negation of the other.
        let negated = match (op, a, b) {
            (Op::Xor, TRUE, x) | (Op::Xor, x, TRUE) => Some(x),
            (Op::Iff, FALSE, x) | (Op::Iff, x, FALSE) => Some(x),
            (Op::AndNot, TRUE, x) => Some(x),
            (Op::Imp, x, FALSE) => Some(x),
            _ => None,
        };
        if let Some(x) = negated {
            return self.not(x, depth);
        }
        let (a, b) = if op.commutative() && a > b {
            (b, a)
        } else {
            (a, b)
        };
        let slot = self.cache.slot(op, a, b, 0);
        if let Some(r) = self.cache.get_at(slot, op, a, b, 0) {
            return r;
        }
        let size = self.cache.len();
        let v = self.level(a).min(self.level(b));
        let (a0, a1) = self.cofactors(a, v);
        let (b0, b1) = self.cofactors(b, v);
        let lo = self.apply(op, a0, b0, depth + 1);
        let hi = self.apply(op, a1, b1, depth + 1);
        let r = self.mk(v, lo, hi);
        // The slot stands unless the cache grew meanwhile.
        if self.cache.len() == size {
            self.cache.put_at(slot, op, a, b, 0, r);
        } else {
            self.cache.put(op, a, b, 0, r);
        }
        r
    }

    pub(super) fn ite(&mut self, f: Id, g: Id, h: Id, depth: u32) -> Id {
        if Self::deep(depth) {
            return stacker::maybe_grow(RED_ZONE, NEW_STACK, || self.ite(f, g, h, depth + 1));
        }
        match (f, g, h) {
            (TRUE, _, _) => return g,
            (FALSE, _, _) => return h,
            _ if g == h => return g,
            (_, TRUE, FALSE) => return f,
            (_, FALSE, TRUE) => return self.not(f, depth),
            (_, TRUE, _) => return self.apply(Op::Or, f, h, depth),
            (_, FALSE, _) => return self.apply(Op::AndNot, h, f, depth),
            (_, _, FALSE) => return self.apply(Op::And, f, g, depth),
            (_, _, TRUE) => return self.apply(Op::Imp, f, g, depth),
            _ => {}
        }
        if let Some(r) = self.cache.get(Op::Ite, f, g, h) {
            return r;
        }
        let v = self.level(f).min(self.level(g)).min(self.level(h));
        let (f0, f1) = self.cofactors(f, v);
        let (g0, g1) = self.cofactors(g, v);
        let (h0, h1) = self.cofactors(h, v);
        let lo = self.ite(f0, g0, h0, depth + 1);
        let hi = self.ite(f1, g1, h1, depth + 1);
        let r = self.mk(v, lo, hi);
        self.cache.put(Op::Ite, f, g, h, r);
        r
    }

    /// A cube node: the conjunction of the literals, sorted and deduplicated.
    /// Conflicting literals give false.
    pub(super) fn cube(&mut self, lits: &[(BddVar, bool)]) -> Id {
        // Codes come bit by bit in one direction: no sorting needed then.
        if lits.windows(2).all(|w| w[0].0 > w[1].0) {
            return self.cube_bottom_up(lits.iter().map(|&(v, b)| (v.0, b)));
        }
        if lits.windows(2).all(|w| w[0].0 < w[1].0) {
            return self.cube_bottom_up(lits.iter().rev().map(|&(v, b)| (v.0, b)));
        }
        let mut sorted: Vec<(u16, bool)> = lits.iter().map(|&(v, b)| (v.0, b)).collect();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.windows(2).any(|w| w[0].0 == w[1].0) {
            return FALSE;
        }
        self.cube_bottom_up(sorted.into_iter().rev())
    }

    /// The cube of distinct literals given from the bottom variable up.
    pub(super) fn cube_bottom_up(&mut self, lits: impl Iterator<Item = (u16, bool)>) -> Id {
        let mut r = TRUE;
        for (v, b) in lits {
            r = if b {
                self.mk(v, FALSE, r)
            } else {
                self.mk(v, r, FALSE)
            };
        }
        r
    }
}

/// The result of binary operation `op` on `a` and `b` when an operand decides
/// it and it is an operand or a constant (no negation to build).
#[inline(always)]
pub(super) fn decided(op: Op, a: Id, b: Id) -> Option<Id> {
    let r = match op {
        Op::And => match (a, b) {
            (FALSE, _) | (_, FALSE) => FALSE,
            (TRUE, x) | (x, TRUE) => x,
            _ if a == b => a,
            _ => return None,
        },
        Op::Or => match (a, b) {
            (TRUE, _) | (_, TRUE) => TRUE,
            (FALSE, x) | (x, FALSE) => x,
            _ if a == b => a,
            _ => return None,
        },
        Op::Xor => match (a, b) {
            (FALSE, x) | (x, FALSE) => x,
            _ if a == b => FALSE,
            _ => return None,
        },
        Op::Iff => match (a, b) {
            (TRUE, x) | (x, TRUE) => x,
            _ if a == b => TRUE,
            _ => return None,
        },
        Op::AndNot => match (a, b) {
            (FALSE, _) | (_, TRUE) => FALSE,
            (x, FALSE) => x,
            _ if a == b => FALSE,
            _ => return None,
        },
        Op::Imp => match (a, b) {
            (FALSE, _) | (_, TRUE) => TRUE,
            (TRUE, x) => x,
            _ if a == b => TRUE,
            _ => return None,
        },
        _ => unreachable!("not a binary operation: {op:?}"),
    };
    Some(r)
}
