//! Snapshots: what a property's monitor keeps from one event to the next,
//! as sets of tuples of values rather than of codes, so that two monitors
//! that numbered the values differently can be compared (a parallel run's
//! speculative segment against the run before it: see
//! [`crate::parallel::segments`]).
//!
//! Each kept summary (`pre` of an `S` node, of an `@` operand, of a rule
//! body) is the set of its satisfying codes, each decoded to its value or to
//! `None`: the code of unseen values, and every code no value has (released
//! or never handed out), which behave like it. Two summaries agree when
//! they hold for the same tuples of values: a value one monitor never
//! numbered is, there, one of its unseen values.

use hashbrown::HashSet;

use super::PropMonitor;
use crate::bdd::Space;
use crate::plan::NodeIx;
use crate::runtime::tuples::enumerate;

/// A value in a snapshot; `None` stands for every value the monitor has no
/// code for.
type Val = Option<Box<[u8]>>;

/// One property monitor's kept state, in values (see the [module](self)).
#[derive(Clone, Debug)]
pub struct PropSnapshot {
    /// Per enumeration class: the values that have a code.
    values: Vec<HashSet<Box<[u8]>>>,
    /// Per kept summary: its node, the classes of its free variables, and
    /// its tuples.
    kept: Vec<(NodeIx, Vec<usize>, HashSet<Vec<Val>>)>,
    /// Whether no event was stepped.
    first: bool,
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
        let values = (s.classes.iter())
            .map(|c| {
                c.live_codes()
                    .filter_map(|k| c.decode(k))
                    .map(Box::from)
                    .collect()
            })
            .collect();
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
            let mut tuples = HashSet::new();
            if let Some(set) = s.pre[n] {
                let mut codes = Vec::new();
                enumerate(space, set, &bits, 0, &mut Vec::new(), &mut codes, budget)?;
                for tuple in codes {
                    let decoded = (tuple.iter().zip(&classes))
                        .map(|(&code, &c)| {
                            let class = &s.classes[c];
                            let code = u32::try_from(code)
                                .ok()
                                .filter(|&k| k as u64 != class.unseen());
                            code.and_then(|k| class.decode(crate::runtime::ids::Code(k)))
                                .map(Box::from)
                        })
                        .collect();
                    tuples.insert(decoded);
                }
            }
            kept.push((n, classes, tuples));
        }
        Some(PropSnapshot {
            values,
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
        self.first == other.first
            && self.kept.len() == other.kept.len()
            && self.covered_by(other, budget)
            && other.covered_by(self, budget)
    }

    /// Whether every tuple of values for which a summary of `self` holds
    /// makes `other`'s hold too.
    fn covered_by(&self, other: &PropSnapshot, budget: &mut u64) -> bool {
        // Per class: the values `other` numbered and `self` did not, for
        // which `self`'s unseen row stands.
        let only_theirs: Vec<Vec<&[u8]>> = (other.values.iter().zip(&self.values))
            .map(|(t, s)| t.iter().filter(|v| !s.contains(*v)).map(|v| &**v).collect())
            .collect();
        for ((n, classes, mine), (m, _, theirs)) in self.kept.iter().zip(&other.kept) {
            if n != m {
                return false;
            }
            for tuple in mine {
                let mut concrete: Vec<Option<&[u8]>> = Vec::with_capacity(tuple.len());
                if !expand(
                    tuple,
                    classes,
                    &only_theirs,
                    other,
                    theirs,
                    &mut concrete,
                    budget,
                ) {
                    return false;
                }
            }
        }
        true
    }
}

/// Checks every concrete tuple that `tuple` (of `self`'s values) stands
/// for against `theirs`, a summary of `other`: position by position, a
/// value stays, and `self`'s unseen row stands for each value only `other`
/// numbered and for a value neither did.
fn expand<'a>(
    tuple: &'a [Val],
    classes: &[usize],
    only_theirs: &'a [Vec<&'a [u8]>],
    other: &PropSnapshot,
    theirs: &HashSet<Vec<Val>>,
    concrete: &mut Vec<Option<&'a [u8]>>,
    budget: &mut u64,
) -> bool {
    let k = concrete.len();
    if k == tuple.len() {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        // As `other` sees the tuple: a value it has no code for is unseen.
        let seen: Vec<Val> = (concrete.iter().zip(classes))
            .map(|(v, &c)| v.filter(|v| other.values[c].contains(*v)).map(Box::from))
            .collect();
        return theirs.contains(&seen);
    }
    let mut next = |v: Option<&'a [u8]>, concrete: &mut Vec<Option<&'a [u8]>>| {
        concrete.push(v);
        let ok = expand(tuple, classes, only_theirs, other, theirs, concrete, budget);
        concrete.pop();
        ok
    };
    match &tuple[k] {
        Some(v) => next(Some(v), concrete),
        None => {
            next(None, concrete)
                && only_theirs[classes[k]]
                    .iter()
                    .all(|&v| next(Some(v), concrete))
        }
    }
}
