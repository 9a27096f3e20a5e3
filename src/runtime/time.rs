//! Timed operators, kept exactly with modular time stamps.
//!
//! `φ S[a,b] ψ` holds at event `i` when ψ held at some `j <= i` with
//! `time(i) - time(j)` in `[a,b]` and φ held at every event after `j` up to
//! `i`. Call the events `j` where ψ held and from which φ has held since the
//! *occurrences* of an assignment; they all die together when φ fails. Three
//! shapes, by which occurrences can still matter:
//!
//! - `[0,d]` (`S[<=d]`, and `Z[<=d]`): the *latest* occurrence is in the
//!   window from the start and leaves it last, so each assignment carries the
//!   stamp of its latest occurrence only, until it is more than `d` old.
//! - `[a,*)` with `a >= 1` (`S[>d]` is `[d+1,*)`): the *earliest* occurrence
//!   enters the window first and never leaves it, so each assignment carries
//!   the stamp of its earliest occurrence until it is `a` old, then moves to a
//!   time-free set of satisfied assignments.
//! - `[a,b]` with `1 <= a <= b`: an occurrence younger than `a` is not in the
//!   window yet, and no other can stand in for it (a later one enters later,
//!   an earlier one leaves earlier), so each assignment carries the *set* of
//!   stamps of its occurrences younger than `a`; of those already inside the
//!   window (between `a` and `b` old) only the latest is needed, since it
//!   stays inside longest (any earlier one inside leaves first and entered no
//!   later). The operator holds when an assignment has a stamp inside the
//!   window. Reducing the stamps inside to the latest costs a pass over the
//!   time bits, so it is done every [`PRUNE_EVERY`] events: each assignment
//!   has at most `min(a, distinct time stamps of the last a - 1 units) + 1`
//!   stamps right after, and at most `PRUNE_EVERY` more in between.
//!
//! Time stamps are stored in BDD bits modulo `M = 2^w` with `M >= 2d + 2`,
//! where `d` is `b` for a bounded interval and `a - 1` for an unbounded one:
//! entries older than needed are dropped (or moved) at every event, so the live
//! stamps always lie in a range shorter than `M` and their residues are
//! unambiguous; a gap larger than `d` clears (or moves) them all at once.
//! Unlike elapsed-time counters (ATVA 2020), nothing is added to the stamps at
//! each event: the per-event cost is a few BDD operations on the operator's own
//! summary plus building range constraints over `w` bits, whatever the gap.

use crate::bdd::{Bdd, BddSpace, BddVar, Space};
use crate::syntax::TimeBound;

/// How often (in events) `S[a,b]` with `a >= 1` reduces the occurrences
/// inside its window to the latest one.
pub const PRUNE_EVERY: u32 = 32;

/// The state of one timed operator.
#[derive(Clone, Debug)]
pub enum TimedState {
    /// `S[a,b]` with `1 <= a <= b`: assignments with the stamps of their
    /// occurrences younger than `a`, and of the latest one between `a` and
    /// `b` old.
    Window {
        /// The interval's ends.
        lo: u64,
        /// The upper end.
        hi: u64,
        /// Over data and time bits.
        pending: Bdd,
        /// Events since the occurrences inside the window were last reduced
        /// to the latest one.
        since_pruned: u32,
    },
    /// `S[<=d]` or `Z[<=d]`: assignments with the stamp of their latest ψ.
    AtMost {
        /// The bound.
        d: u64,
        /// Whether ψ must be strictly earlier (`Z`).
        strict: bool,
        /// Over data and time bits.
        pending: Bdd,
    },
    /// `S[>d]`: assignments with the stamp of their earliest ψ, and the satisfied ones.
    MoreThan {
        /// The bound.
        d: u64,
        /// Over data and time bits.
        pending: Bdd,
        /// Over data bits only.
        sat: Bdd,
    },
}

/// The time-stamp bits of a property.
#[derive(Clone, Debug)]
pub struct Clock {
    bits: Vec<BddVar>,
}

impl Clock {
    /// A clock over the given bits, most significant first.
    pub fn new(bits: Vec<BddVar>) -> Clock {
        Clock { bits }
    }

    /// The time bits.
    pub fn bits(&self) -> &[BddVar] {
        &self.bits
    }

    fn modulus_mask(&self) -> u64 {
        if self.bits.len() >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits.len()) - 1
        }
    }

    /// The stamp `T = t mod M`.
    pub fn stamp(&self, space: &mut Space, t: u64) -> Bdd {
        let t = t & self.modulus_mask();
        let w = self.bits.len();
        let lits: Vec<_> = self
            .bits
            .iter()
            .enumerate()
            .map(|(j, &b)| (b, (t >> (w - 1 - j)) & 1 == 1))
            .collect();
        space.cube(&lits)
    }

    /// `T mod M` lies in the cyclic range of the residues of `lo ..= hi`
    /// (requires `hi - lo < M`).
    pub fn range(&self, space: &mut Space, lo: u64, hi: u64) -> Bdd {
        let mask = self.modulus_mask();
        if hi < lo {
            return space.ff();
        }
        if hi - lo >= mask {
            return space.tt();
        }
        let (a, b) = (lo & mask, hi & mask);
        let ge = self.compare(space, a, true);
        let le = self.compare(space, b, false);
        if a <= b {
            space.and(ge, le)
        } else {
            space.or(ge, le)
        }
    }

    /// For each assignment of the other variables, only the latest stamp of
    /// `set`, whose stamps all lie in the residues of `lo ..= hi` (with
    /// `hi - lo < M`). When that range wraps around `M`, its residues from
    /// `lo mod M` up are the older ones.
    pub fn latest(&self, space: &mut Space, set: Bdd, lo: u64, hi: u64) -> Bdd {
        // A few stamps: one at a time, newest first.
        if hi - lo < self.bits.len() as u64 {
            let mut out = space.ff();
            let mut found = space.ff();
            for t in (lo..=hi).rev() {
                let stamp = self.stamp(space, t);
                let at = space.and(set, stamp);
                let here = space.and_not(at, found);
                let assignments = space.exists(here, &self.bits);
                found = space.or(found, assignments);
                out = space.or(out, here);
            }
            return out;
        }
        let mask = self.modulus_mask();
        let (a, b) = (lo & mask, hi & mask);
        if a <= b {
            return self.max(space, set);
        }
        let up_to_b = self.compare(space, b, false);
        let newer = space.and(set, up_to_b);
        let from_a = self.compare(space, a, true);
        let older = space.and(set, from_a);
        let newer_max = self.max(space, newer);
        let has_newer = space.exists(newer, self.bits());
        let only_older = space.and_not(older, has_newer);
        let older_max = self.max(space, only_older);
        space.or(newer_max, older_max)
    }

    /// For each assignment of the other variables, the largest residue of `set`.
    fn max(&self, space: &mut Space, set: Bdd) -> Bdd {
        let mut set = set;
        for &bit in &self.bits {
            let lit = space.lit(bit, true);
            let one = space.and(set, lit);
            let has_one = space.exists(one, &self.bits);
            let zero_only = space.and_not(set, has_one);
            set = space.or(one, zero_only);
        }
        set
    }

    /// `T >= c` (when `at_least`) or `T <= c`.
    fn compare(&self, space: &mut Space, c: u64, at_least: bool) -> Bdd {
        let w = self.bits.len();
        let mut f = space.tt();
        for (i, &bit) in self.bits.iter().enumerate().rev() {
            let set = (c >> (w - 1 - i)) & 1 == 1;
            let lit = space.lit(bit, at_least);
            f = if set == at_least {
                space.and(lit, f)
            } else {
                space.or(lit, f)
            };
        }
        f
    }
}

/// The times of the current and the previous event.
#[derive(Clone, Copy, Debug)]
pub struct Tick {
    /// Time of the current event.
    pub now: u64,
    /// Time of the previous event (equal to `now` at the first event).
    pub prev: u64,
}

impl TimedState {
    /// The initial state of `S` with the interval `t` (not `[0,*)`, which is
    /// untimed).
    pub fn since(space: &Space, t: TimeBound) -> TimedState {
        match (t.lo, t.hi) {
            (0, Some(d)) => TimedState::at_most(space, d, false),
            (lo, None) => TimedState::more_than(space, lo.saturating_sub(1)),
            (lo, Some(hi)) => TimedState::Window {
                lo,
                hi,
                pending: space.ff(),
                since_pruned: 0,
            },
        }
    }

    /// The initial state of `S[<=d]` (`strict`: `Z[<=d]`).
    pub fn at_most(space: &Space, d: u64, strict: bool) -> TimedState {
        TimedState::AtMost {
            d,
            strict,
            pending: space.ff(),
        }
    }

    /// The initial state of `S[>d]`.
    pub fn more_than(space: &Space, d: u64) -> TimedState {
        TimedState::MoreThan {
            d,
            pending: space.ff(),
            sat: space.ff(),
        }
    }

    /// Advances the state to the current event and returns the operator's value there.
    pub fn step(
        &mut self,
        space: &mut Space,
        clock: &Clock,
        tick: Tick,
        phi: Bdd,
        psi: Bdd,
    ) -> Bdd {
        let gap = tick.now - tick.prev;
        match self {
            TimedState::Window {
                lo,
                hi,
                pending,
                since_pruned,
            } => {
                let (lo, hi) = (*lo, *hi);
                // The occurrences of the last `hi` time units, followed by φ now.
                let chained = if gap > hi {
                    space.ff()
                } else if gap == 0 {
                    space.and(*pending, phi)
                } else {
                    let recent = clock.range(space, tick.now.saturating_sub(hi), tick.now);
                    let kept = space.and(*pending, recent);
                    space.and(kept, phi)
                };
                let stamp = clock.stamp(space, tick.now);
                let fresh = space.and(psi, stamp);
                let all = space.or(chained, fresh);
                let Some(newest) = tick.now.checked_sub(lo) else {
                    // Nothing is `lo` old yet.
                    *pending = all;
                    return space.ff();
                };
                let oldest = tick.now.saturating_sub(hi);
                let window = clock.range(space, oldest, newest);
                let inside = space.and(all, window);
                let value = space.exists(inside, clock.bits());
                // Of the occurrences inside the window only the latest can
                // matter from now on: it stays inside longer than the others.
                // Dropping the others costs a pass over the time bits, so it
                // is done every `PRUNE_EVERY` events.
                *since_pruned += 1;
                if *since_pruned >= PRUNE_EVERY {
                    *since_pruned = 0;
                    let latest = clock.latest(space, inside, oldest, newest);
                    let outside = space.and_not(all, inside);
                    *pending = space.or(outside, latest);
                } else {
                    *pending = all;
                }
                value
            }
            TimedState::AtMost { d, strict, pending } => {
                let (d, strict) = (*d, *strict);
                // The entries still within the window, followed by φ now.
                let chained = if gap > d {
                    space.ff()
                } else if gap == 0 {
                    // Nothing expires when no time passes.
                    space.and(*pending, phi)
                } else {
                    let recent = clock.range(space, tick.now.saturating_sub(d), tick.now);
                    let kept = space.and(*pending, recent);
                    space.and(kept, phi)
                };
                let earlier = space.exists(chained, clock.bits());
                let value = if strict {
                    earlier
                } else {
                    space.or(psi, earlier)
                };
                let older = space.and_not(chained, psi);
                let stamp = clock.stamp(space, tick.now);
                let fresh = space.and(psi, stamp);
                *pending = space.or(older, fresh);
                value
            }
            TimedState::MoreThan { d, pending, sat } => {
                let d = *d;
                let sat1 = space.and(*sat, phi);
                let pend1 = space.and(*pending, phi);
                let old = if gap > d {
                    space.tt()
                } else if gap > 0 && tick.now > d {
                    clock.range(space, tick.prev.saturating_sub(d), tick.now - d - 1)
                } else {
                    space.ff()
                };
                let old_pending = space.and(pend1, old);
                let moved = space.exists(old_pending, clock.bits());
                let sat2 = space.or(sat1, moved);
                let pend2 = space.and_not(pend1, old);
                let pending_any = space.exists(pend2, clock.bits());
                let new = space.and_not(psi, sat2);
                let fresh = space.and_not(new, pending_any);
                let stamp = clock.stamp(space, tick.now);
                let stamped = space.and(fresh, stamp);
                *pending = space.or(pend2, stamped);
                *sat = sat2;
                sat2
            }
        }
    }

    /// The BDDs of the state.
    pub fn bdds(&self) -> impl Iterator<Item = Bdd> {
        let (a, b) = match self {
            TimedState::Window { pending, .. } => (*pending, None),
            TimedState::AtMost { pending, .. } => (*pending, None),
            TimedState::MoreThan { pending, sat, .. } => (*pending, Some(*sat)),
        };
        std::iter::once(a).chain(b)
    }

    /// Applies `f` to every BDD of the state.
    pub fn for_each_bdd(&mut self, mut f: impl FnMut(&mut Bdd)) {
        match self {
            TimedState::Window { pending, .. } | TimedState::AtMost { pending, .. } => f(pending),
            TimedState::MoreThan { pending, sat, .. } => {
                f(pending);
                f(sat);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holds(space: &mut Space, clock: &Clock, f: Bdd, t: u64) -> bool {
        let stamp = clock.stamp(space, t);
        !space.and(f, stamp).is_false()
    }

    #[test]
    fn cyclic_ranges() {
        let mut space = Space::new(3);
        let s = &mut space;
        let clock = Clock::new((0..3).map(BddVar).collect());
        let r = clock.range(s, 6, 9); // residues 6,7,0,1
        let inside: Vec<u64> = (0..8).filter(|&t| holds(s, &clock, r, t)).collect();
        assert_eq!(inside, vec![0, 1, 6, 7]);
        let r = clock.range(s, 2, 4);
        let inside: Vec<u64> = (0..8).filter(|&t| holds(s, &clock, r, t)).collect();
        assert_eq!(inside, vec![2, 3, 4]);
        assert!(clock.range(s, 0, 100).is_true());
        assert!(clock.range(s, 5, 4).is_false());
    }

    #[test]
    fn latest_stamp_in_a_cyclic_range() {
        let mut space = Space::new(4);
        let s = &mut space;
        let clock = Clock::new((1..4).map(BddVar).collect());
        let x = s.lit(BddVar(0), true);
        let not_x = s.not(x);
        let stamps = |s: &mut Space, ts: &[u64]| {
            let mut acc = s.ff();
            for &t in ts {
                let stamp = clock.stamp(s, t);
                acc = s.or(acc, stamp);
            }
            acc
        };
        // x: times 9, 10 (residues 1, 2); !x: 6, 7 (residues 6, 7); range 6..=10.
        let (late, early) = (stamps(s, &[9, 10]), stamps(s, &[6, 7]));
        let (x_late, not_x_early) = (s.and(x, late), s.and(not_x, early));
        let set = s.or(x_late, not_x_early);
        let latest = clock.latest(s, set, 6, 10);
        let (at_10, at_7) = (clock.stamp(s, 10), clock.stamp(s, 7));
        let (x_10, not_x_7) = (s.and(x, at_10), s.and(not_x, at_7));
        let expected = s.or(x_10, not_x_7);
        assert!(s.iff(latest, expected).is_true());
        // Without wrap-around: times 2, 3, 5 in 1..=5.
        let set = stamps(s, &[2, 3, 5]);
        let latest = clock.latest(s, set, 1, 5);
        let at_5 = clock.stamp(s, 5);
        assert!(s.iff(latest, at_5).is_true());
    }
}
