//! The series of `φ S ψ` and the operators made of it (`P`, `H`, `Z`,
//! `[φ, ψ)`), one step at a time: untimed, the DejaVu recurrence; timed,
//! a window of the steps that can still satisfy the bound.

use super::truth::{SinceOp, Truth};
use crate::syntax::TimeBound;

impl Truth<'_> {
    /// `φ S ψ` and its kin at step `r`. Untimed, `S(r) = ψ(r) | φ(r) &
    /// S(r-1)`; timed, the window keeps the steps where ψ held since φ last
    /// failed that can still be within the bound (one per time stamp: two
    /// of one time leave the window together).
    pub(super) fn since_step(&mut self, s: usize, op: &SinceOp, r: usize) -> bool {
        let phi = self.lit_step(&op.phi, r);
        let psi = self.lit_step(&Some(op.psi.clone()), r);
        let v = match op.bound {
            None if !op.strict => {
                let raw = psi || (phi && self.series[s].last);
                self.series[s].last = raw;
                raw
            }
            bound => {
                let bound = bound.unwrap_or(TimeBound { lo: 0, hi: None });
                if !phi {
                    self.series[s].window.clear();
                }
                if !op.strict && psi {
                    self.push_window(s, bound, r);
                }
                let ev = self.events;
                let clock = ev.clock(ev.first_event(r));
                let at = |j: usize| ev.clock(ev.first_event(j));
                let window = &mut self.series[s].window;
                if let Some(h) = bound.hi {
                    while window.front().is_some_and(|&j| clock - at(j) > h) {
                        window.pop_front();
                    }
                }
                let v = (window.front()).is_some_and(|&j| clock - at(j) >= bound.lo);
                if op.strict && psi {
                    self.push_window(s, bound, r);
                }
                v
            }
        };
        v != op.negate
    }

    /// Adds step `r` to the window of series `s`; without an upper bound
    /// only the oldest candidate matters, and of candidates of one time
    /// stamp only the oldest (they leave the window together).
    fn push_window(&mut self, s: usize, bound: TimeBound, r: usize) {
        let ev = self.events;
        let at = |j: usize| ev.clock(ev.first_event(j));
        let window = &mut self.series[s].window;
        let same_time = window.back().is_some_and(|&j| at(j) == at(r));
        if (bound.hi.is_some() && !same_time) || window.is_empty() {
            window.push_back(r);
        }
    }
}
