//! Snapshots: what a property's monitor keeps from one event to the next,
//! as sets of tuples of values rather than of codes, so that two monitors
//! that numbered the values differently can be compared (a parallel run's
//! speculative segment against the run before it: see
//! [`crate::parallel::segments`]).
//!
//! Each kept summary (`pre` of an `S` node, of an `@` operand, of a rule
//! body) is the set of its satisfying tuples of codes, with the values of
//! the codes (a copy of each class's table: no allocation per value); every
//! code no value has (the code of unseen values, a code released or never
//! handed out, which behave alike) is [`NONE`]. Two summaries agree when
//! they hold for the same tuples of values: a value one monitor never
//! numbered is, there, one of its unseen values. They are compared by
//! translating one side's codes into the other's, once per value, and
//! looking each tuple up in the other's sorted tuples.

use super::PropMonitor;
use crate::bdd::Space;
use crate::plan::NodeIx;
use crate::runtime::enumeration::Enumeration;
use crate::runtime::ids::Code;
use crate::runtime::tuples::enumerate;

/// In a tuple, the code of no value: every value the monitor has no code
/// for.
const NONE: u32 = u32::MAX;

/// One property monitor's kept state, in values (see the [module](self)).
#[derive(Clone, Debug)]
pub struct PropSnapshot {
    /// Per enumeration class: the values that have a code, by code.
    values: Vec<Enumeration>,
    /// Per kept summary: its node, the classes of its free variables, and
    /// its tuples.
    kept: Vec<(NodeIx, Vec<usize>, Tuples)>,
    /// Whether no event was stepped.
    first: bool,
}

/// A set of tuples of codes of one length: sorted, without repeats.
#[derive(Clone, Debug)]
struct Tuples {
    arity: usize,
    /// The tuples one after the other.
    flat: Vec<u32>,
    len: usize,
}

impl Tuples {
    /// The set of the `flat` tuples of `arity` codes each.
    fn new(arity: usize, flat: Vec<u32>, len: usize) -> Tuples {
        let at = |i: usize| &flat[i * arity..(i + 1) * arity];
        let mut order: Vec<usize> = (0..len).collect();
        order.sort_unstable_by(|&i, &j| at(i).cmp(at(j)));
        order.dedup_by(|i, j| at(*i) == at(*j));
        let sorted = order.iter().flat_map(|&i| at(i).iter().copied()).collect();
        Tuples {
            arity,
            flat: sorted,
            len: order.len(),
        }
    }

    fn get(&self, i: usize) -> &[u32] {
        &self.flat[i * self.arity..(i + 1) * self.arity]
    }

    fn iter(&self) -> impl Iterator<Item = &[u32]> {
        (0..self.len).map(|i| self.get(i))
    }

    fn contains(&self, tuple: &[u32]) -> bool {
        let (mut lo, mut hi) = (0, self.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.get(mid).cmp(tuple) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return true,
            }
        }
        false
    }
}

impl PropMonitor {
    /// The monitor's kept state in values, if it can be taken: not for a
    /// property with time bounds, seen values or comparisons (whose state
    /// is not only summaries over values), nor when its summaries have more
    /// than `budget` tuples of codes in all (`budget` is what is left).
    pub(crate) fn snapshot(&self, space: &mut Space, budget: &mut u64) -> Option<PropSnapshot> {
        let s = &self.state;
        let plan = &self.compiled.plan;
        let plain = self.compiled.untimed
            && s.seen.iter().all(Option::is_none)
            && s.cmp.iter().all(Option::is_none)
            && !self.compiled.computes
            && s.timed.iter().all(Option::is_none);
        if !plain {
            return None;
        }
        let kept_nodes = if self.point_on {
            &self.compiled.kept_point
        } else {
            &self.compiled.kept_all
        };
        let mut kept = Vec::with_capacity(kept_nodes.len());
        for &n in kept_nodes {
            let free = &plan.nodes[n].free;
            let classes: Vec<usize> = free.iter().map(|&v| plan.vars[v].class).collect();
            let bits: Vec<_> = (free.iter())
                .map(|&v| {
                    let var = &plan.vars[v];
                    let width = s.classes[var.class].width().min(var.bits.len());
                    (v, var.bits[var.bits.len() - width..].to_vec())
                })
                .collect();
            let mut codes = Vec::new();
            if let Some(set) = s.pre[n] {
                enumerate(space, set, &bits, 0, &mut Vec::new(), &mut codes, budget)?;
            }
            let flat = (codes.iter())
                .flat_map(|tuple| tuple.iter().zip(&classes))
                .map(|(&code, &c)| {
                    let class = &s.classes[c];
                    u32::try_from(code)
                        .ok()
                        .filter(|&k| class.decode(Code(k)).is_some())
                        .unwrap_or(NONE)
                })
                .collect();
            let tuples = Tuples::new(classes.len(), flat, codes.len());
            kept.push((n, classes, tuples));
        }
        Some(PropSnapshot {
            values: s.classes.clone(),
            kept,
            first: s.first,
        })
    }
}

impl PropSnapshot {
    /// Whether `self` and `other`, snapshots of the same property, hold for
    /// the same tuples of values in every summary (so that the two monitors
    /// give the same verdicts on any continuation of the trace), checking at
    /// most `budget` tuples; `false` when unsure.
    pub(crate) fn agrees(&self, other: &PropSnapshot, budget: &mut u64) -> bool {
        if self.first != other.first
            || self.kept.len() != other.kept.len()
            || self.values.len() != other.values.len()
        {
            return false;
        }
        let (mine, theirs) = Translation::both(&self.values, &other.values);
        self.covered_by(other, &mine, budget) && other.covered_by(self, &theirs, budget)
    }

    /// Whether every tuple of values for which a summary of `self` holds
    /// makes `other`'s hold too, `translate` taking `self`'s codes to
    /// `other`'s.
    fn covered_by(&self, other: &PropSnapshot, translate: &Translation, budget: &mut u64) -> bool {
        let mut concrete = Vec::new();
        for ((n, classes, mine), (m, _, theirs)) in self.kept.iter().zip(&other.kept) {
            if n != m {
                return false;
            }
            for tuple in mine.iter() {
                concrete.clear();
                if !translate.expand(tuple, classes, theirs, &mut concrete, budget) {
                    return false;
                }
            }
        }
        true
    }
}

/// One side's codes in the other's terms (see [`PropSnapshot::covered_by`]).
struct Translation {
    /// Per class: the codes the other side gave values that this side did
    /// not number, for which this side's unseen row stands.
    only_theirs: Vec<Vec<u32>>,
    /// Per class and code of this side: the code the other side gave its
    /// value ([`NONE`] for none).
    translated: Vec<Vec<u32>>,
}

impl Translation {
    /// The translations from `a`'s codes to `b`'s and back (the values of
    /// two snapshots, per class), each value of `a` looked up once in `b`.
    fn both(a: &[Enumeration], b: &[Enumeration]) -> (Translation, Translation) {
        let mut there = Translation {
            only_theirs: Vec::with_capacity(a.len()),
            translated: Vec::with_capacity(a.len()),
        };
        let mut back = Translation {
            only_theirs: Vec::with_capacity(a.len()),
            translated: Vec::with_capacity(a.len()),
        };
        for (s, t) in a.iter().zip(b) {
            let (mut to, mut from) = (Vec::new(), Vec::new());
            // `a`'s values that `b` did not number.
            let mut only_mine = Vec::new();
            for k in s.live_codes() {
                let Some(v) = s.decode(k) else { continue };
                if to.len() <= k.index() {
                    to.resize(k.index() + 1, NONE);
                }
                match t.get(v) {
                    Some(c) => {
                        to[k.index()] = c.0;
                        if from.len() <= c.index() {
                            from.resize(c.index() + 1, NONE);
                        }
                        from[c.index()] = k.0;
                    }
                    None => only_mine.push(k.0),
                }
            }
            // `b`'s values that no value of `a` went to.
            let only_theirs = (t.live_codes())
                .filter(|&c| t.decode(c).is_some() && from.get(c.index()).is_none_or(|&k| k == NONE))
                .map(|c| c.0)
                .collect();
            there.only_theirs.push(only_theirs);
            there.translated.push(to);
            back.only_theirs.push(only_mine);
            back.translated.push(from);
        }
        (there, back)
    }

    /// Checks every concrete tuple that `tuple` (of one side's codes)
    /// stands for against `theirs`, a summary of the other side: position
    /// by position, a value stays (as the other side's code, [`NONE`] where
    /// it has none), and the unseen row stands for each value only the
    /// other side numbered and for a value neither did.
    fn expand(
        &self,
        tuple: &[u32],
        classes: &[usize],
        theirs: &Tuples,
        concrete: &mut Vec<u32>,
        budget: &mut u64,
    ) -> bool {
        let k = concrete.len();
        if k == tuple.len() {
            if *budget == 0 {
                return false;
            }
            *budget -= 1;
            return theirs.contains(concrete);
        }
        let class = classes[k];
        let mut next = |code: u32, concrete: &mut Vec<u32>| {
            concrete.push(code);
            let ok = self.expand(tuple, classes, theirs, concrete, budget);
            concrete.pop();
            ok
        };
        match tuple[k] {
            NONE => {
                next(NONE, concrete)
                    && (self.only_theirs[class].iter()).all(|&code| next(code, concrete))
            }
            code => {
                let their = self.translated[class].get(code as usize).copied();
                next(their.unwrap_or(NONE), concrete)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{NONE, Tuples};

    #[test]
    fn tuples_are_sorted_without_repeats_and_found_by_value() {
        let t = Tuples::new(2, vec![3, 1, 0, NONE, 3, 1, 0, 2], 4);
        let all: Vec<&[u32]> = t.iter().collect();
        assert_eq!(all, vec![&[0, 2][..], &[0, NONE], &[3, 1]]);
        assert!(t.contains(&[0, NONE]) && t.contains(&[3, 1]) && t.contains(&[0, 2]));
        assert!(!t.contains(&[1, 3]) && !t.contains(&[3, NONE]) && !t.contains(&[0, 1]));
        // A closed summary: the empty tuple, or nothing.
        let closed = Tuples::new(0, Vec::new(), 3);
        assert_eq!(closed.iter().count(), 1);
        assert!(closed.contains(&[]));
        assert!(!Tuples::new(0, Vec::new(), 0).contains(&[]));
    }
}
