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

use crate::bdd::{Bdd, BddVar, Space};
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
    pub fn stamp(&self, space: &Space, t: u64) -> Bdd {
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
    pub fn range(&self, space: &Space, lo: u64, hi: u64) -> Bdd {
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
        if a <= b { ge.and(&le) } else { ge.or(&le) }
    }

    /// For each assignment of the other variables, only the latest stamp of
    /// `set`, whose stamps all lie in the residues of `lo ..= hi` (with
    /// `hi - lo < M`). When that range wraps around `M`, its residues from
    /// `lo mod M` up are the older ones.
    pub fn latest(&self, space: &Space, set: &Bdd, lo: u64, hi: u64) -> Bdd {
        // A few stamps: one at a time, newest first.
        if hi - lo < self.bits.len() as u64 {
            let mut out = space.ff();
            let mut found = space.ff();
            for t in (lo..=hi).rev() {
                let here = set.and(&self.stamp(space, t)).and_not(&found);
                found = found.or(&here.exists(&self.bits));
                out = out.or(&here);
            }
            return out;
        }
        let mask = self.modulus_mask();
        let (a, b) = (lo & mask, hi & mask);
        if a <= b {
            return self.max(space, set);
        }
        let newer = set.and(&self.compare(space, b, false));
        let older = set.and(&self.compare(space, a, true));
        let newer_max = self.max(space, &newer);
        let has_newer = newer.exists(self.bits());
        newer_max.or(&self.max(space, &older.and_not(&has_newer)))
    }

    /// For each assignment of the other variables, the largest residue of `set`.
    fn max(&self, space: &Space, set: &Bdd) -> Bdd {
        let mut set = set.clone();
        for &bit in &self.bits {
            let one = set.and(&space.lit(bit, true));
            let has_one = one.exists(&self.bits);
            set = one.or(&set.and_not(&has_one));
        }
        set
    }

    /// `T >= c` (when `at_least`) or `T <= c`.
    fn compare(&self, space: &Space, c: u64, at_least: bool) -> Bdd {
        let w = self.bits.len();
        let mut f = space.tt();
        for (i, &bit) in self.bits.iter().enumerate().rev() {
            let set = (c >> (w - 1 - i)) & 1 == 1;
            let lit = space.lit(bit, at_least);
            f = if set == at_least {
                lit.and(&f)
            } else {
                lit.or(&f)
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
    pub fn step(&mut self, space: &Space, clock: &Clock, tick: Tick, phi: &Bdd, psi: &Bdd) -> Bdd {
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
                    pending.and(phi)
                } else {
                    pending
                        .and(&clock.range(space, tick.now.saturating_sub(hi), tick.now))
                        .and(phi)
                };
                let all = chained.or(&psi.and(&clock.stamp(space, tick.now)));
                let Some(newest) = tick.now.checked_sub(lo) else {
                    // Nothing is `lo` old yet.
                    *pending = all;
                    return space.ff();
                };
                let oldest = tick.now.saturating_sub(hi);
                let inside = all.and(&clock.range(space, oldest, newest));
                let value = inside.exists(clock.bits());
                // Of the occurrences inside the window only the latest can
                // matter from now on: it stays inside longer than the others.
                // Dropping the others costs a pass over the time bits, so it
                // is done every `PRUNE_EVERY` events.
                *since_pruned += 1;
                if *since_pruned >= PRUNE_EVERY {
                    *since_pruned = 0;
                    let latest = clock.latest(space, &inside, oldest, newest);
                    *pending = all.and_not(&inside).or(&latest);
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
                    pending.and(phi)
                } else {
                    pending
                        .and(&clock.range(space, tick.now.saturating_sub(d), tick.now))
                        .and(phi)
                };
                let earlier = chained.exists(clock.bits());
                let value = if strict { earlier } else { psi.or(&earlier) };
                *pending = chained
                    .and_not(psi)
                    .or(&psi.and(&clock.stamp(space, tick.now)));
                value
            }
            TimedState::MoreThan { d, pending, sat } => {
                let d = *d;
                let sat1 = sat.and(phi);
                let pend1 = pending.and(phi);
                let old = if gap > d {
                    space.tt()
                } else if gap > 0 && tick.now > d {
                    clock.range(space, tick.prev.saturating_sub(d), tick.now - d - 1)
                } else {
                    space.ff()
                };
                let moved = pend1.and(&old).exists(clock.bits());
                let sat2 = sat1.or(&moved);
                let pend2 = pend1.and_not(&old);
                let fresh = psi.and_not(&sat2).and_not(&pend2.exists(clock.bits()));
                *pending = pend2.or(&fresh.and(&clock.stamp(space, tick.now)));
                *sat = sat2.clone();
                sat2
            }
        }
    }

    /// The BDDs of the state.
    pub fn bdds(&self) -> impl Iterator<Item = &Bdd> {
        let (a, b) = match self {
            TimedState::Window { pending, .. } => (pending, None),
            TimedState::AtMost { pending, .. } => (pending, None),
            TimedState::MoreThan { pending, sat, .. } => (pending, Some(sat)),
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

    fn holds(space: &Space, clock: &Clock, f: &Bdd, t: u64) -> bool {
        !f.and(&clock.stamp(space, t)).is_false()
    }

    #[test]
    fn cyclic_ranges() {
        let space = Space::new(3);
        let clock = Clock::new((0..3).map(BddVar).collect());
        let r = clock.range(&space, 6, 9); // residues 6,7,0,1
        let inside: Vec<u64> = (0..8).filter(|&t| holds(&space, &clock, &r, t)).collect();
        assert_eq!(inside, vec![0, 1, 6, 7]);
        let r = clock.range(&space, 2, 4);
        let inside: Vec<u64> = (0..8).filter(|&t| holds(&space, &clock, &r, t)).collect();
        assert_eq!(inside, vec![2, 3, 4]);
        assert!(clock.range(&space, 0, 100).is_true());
        assert!(clock.range(&space, 5, 4).is_false());
    }

    #[test]
    fn latest_stamp_in_a_cyclic_range() {
        let space = Space::new(4);
        let clock = Clock::new((1..4).map(BddVar).collect());
        let x = space.lit(BddVar(0), true);
        let stamps = |ts: &[u64]| {
            ts.iter()
                .fold(space.ff(), |acc, &t| acc.or(&clock.stamp(&space, t)))
        };
        // x: times 9, 10 (residues 1, 2); !x: 6, 7 (residues 6, 7); range 6..=10.
        let set = x.and(&stamps(&[9, 10])).or(&x.not().and(&stamps(&[6, 7])));
        let latest = clock.latest(&space, &set, 6, 10);
        let expected = x
            .and(&clock.stamp(&space, 10))
            .or(&x.not().and(&clock.stamp(&space, 7)));
        assert!(latest.iff(&expected).is_true());
        // Without wrap-around: times 2, 3, 5 in 1..=5.
        let set = stamps(&[2, 3, 5]);
        assert!(
            clock
                .latest(&space, &set, 1, 5)
                .iff(&clock.stamp(&space, 5))
                .is_true()
        );
    }
}
