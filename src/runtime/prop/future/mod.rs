//! Delayed subformulas: the bounded future operators and what reads them
//! (see [`crate::plan::future`]), computed step by step in trace order as
//! the values they read become known.
//!
//! Every step of the monitor is a *position* (0, 1, 2, ...). The immediate
//! subformulas are computed at their step as in a past-time property; the
//! *feeds* among them (those a delayed subformula reads) append their value
//! to a queue. Each delayed subformula has a queue of its own values too,
//! from the first position a reader may still need to the last it has
//! computed, and computes its next position once what it reads is there:
//!
//! - a connective, a quantifier or a rule call: its operands at the same
//!   position (a quantifier over the values seen, also the values seen at
//!   that position, kept per position);
//! - `@φ`: φ at the previous position; `S` and `S[a,b]`: its operands at the
//!   position, and its own state, which moves one position at a time;
//! - `X[a,b] φ`: φ at the next position, and the two positions' times;
//! - `φ U[a,b] ψ`: see [`Until`]: it takes in its operands' values position
//!   by position and gives its value at a position once every position
//!   within `b` time units of it has been taken in and a later one is known
//!   (or earlier, when nothing can change it any more).
//!
//! When the statement's root has a value at a position, that is the
//! property's verdict there. Queues are cut, after each step, to what their
//! readers may still read, so memory follows the positions inside the
//! horizon, not the trace. Every BDD kept here is a kept summary (for the
//! growth of code widths and garbage collection of value codes).

use std::collections::VecDeque;

use crate::bdd::Bdd;
use crate::plan::future::PointForm;
use crate::plan::{NodeIx, Op, PropPlan};
use crate::runtime::witness::{self, WitnessValue};
use crate::syntax::Quant;

/// How a delayed node reads another node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Read {
    /// At the same position.
    Same,
    /// At the previous position (`@`).
    Prev,
    /// At the next position (`X`).
    Next,
    /// Position by position, as `U` takes them in.
    Until,
}

/// What a property with delayed subformulas keeps (see the [module](self)).
#[derive(Clone, Debug)]
pub(crate) struct Future {
    /// The delayed nodes, in the plan's order.
    pub(super) order: Vec<NodeIx>,
    /// The immediate nodes whose values are queued.
    pub(super) feeds: Vec<NodeIx>,
    /// The feeds whose truth does not depend on the position: comparisons
    /// and their boolean combinations, of variables that may be compared
    /// at values seen later ([`crate::plan::Var::compare_later`], see
    /// `PropMonitor::advance_future`).
    pub(super) timeless: Vec<NodeIx>,
    /// Per node: the delayed nodes that read it, and how.
    pub(super) readers: Vec<Vec<(NodeIx, Read)>>,
    /// Per variable: whether its seen values are kept per position.
    pub(super) seen_kept: Vec<bool>,
    /// Per node: whether a witness walk may read it (kept until the
    /// statement is decided at the position).
    pub(super) walk: Vec<bool>,
    /// The position of the first entry of `times` and `seen_at`.
    pub(super) base: u64,
    /// Per position from `base`: the time on the monitor's clock.
    pub(super) times: VecDeque<u64>,
    /// Per position from `base`: the seen sets of the variables of `seen_kept`.
    pub(super) seen_at: VecDeque<Vec<Option<Bdd>>>,
    /// The positions taken (steps so far).
    pub(super) end: u64,
    /// Per node: the position of its first queued value.
    pub(super) first: Vec<u64>,
    /// Per node: its queued values.
    pub(super) vals: Vec<VecDeque<Bdd>>,
    /// Per `U` node: its state.
    pub(super) until: Vec<Option<Until>>,
    /// Verdicts of the statement found and not yet taken.
    pub(crate) decided: Vec<Decision>,
    /// The statement's point form, when it is decided pointwise (see
    /// [`point`]): then no delayed node is computed as a set.
    pub(super) point: Option<PointForm>,
    /// In point mode: the first position not decided yet.
    pub(super) point_next: u64,
    /// In point mode, per node: its matches, when it is an event pattern
    /// kept as code tuples rather than sets (see [`matches`]).
    pub(super) matches: Vec<Option<matches::Matches>>,
    /// In point mode: whether every event pattern with variables is kept
    /// as matches, and nothing else reads the variables: then the matches
    /// keep the values themselves, which get no code at all.
    pub(crate) raw: bool,
    /// In point mode: whether every immediate node is an event pattern kept
    /// as matches, or a constant. A step then computes no set: it only
    /// queues the matches (see `PropMonitor::step_matches`).
    pub(crate) matches_only: bool,
    /// In point mode, scratch: the guard's cubes and a valuation of every
    /// BDD variable (boxed: taken out and put back at every decision).
    pub(super) scratch: Option<Box<point::Scratch>>,
    /// The least time from the last step to the next one: 1 when a step's
    /// time is its number (an untimed trace), else 0 (the next event may
    /// have the same time stamp).
    pub next_gap: u64,
}

/// The verdict of a property at a position, with what was asked of it.
#[derive(Clone, Debug)]
pub(crate) struct Decision {
    /// The position (the monitor's step, from 0).
    pub position: u64,
    /// Whether the property holds there.
    pub holds: bool,
    /// The walk of a violation's witnesses, if asked for.
    pub found: witness::Falsified,
    /// The satisfying tuples of a violation, if asked for.
    pub tuples: Vec<Vec<WitnessValue>>,
}

/// The state of `φ U[lo,hi] ψ`: the positions whose value is not given yet.
#[derive(Clone, Debug)]
pub(super) struct Until {
    pub(super) lo: u64,
    pub(super) hi: u64,
    /// The next position of the operands to take in.
    pub(super) scanned: u64,
    /// Per position from the node's next one up to `scanned`: the
    /// assignments under which φ held at every position taken in since,
    /// and those for which the operator is known to hold.
    pub(super) pending: VecDeque<(Bdd, Bdd)>,
}

/// Per node of `plan`: whether its truth at a tuple of values is the same
/// at every position: a comparison, a constant, or a boolean combination of
/// those.
fn timeless_nodes(plan: &PropPlan) -> Vec<bool> {
    let mut timeless = vec![false; plan.nodes.len()];
    for i in 0..plan.nodes.len() {
        timeless[i] = match &plan.nodes[i].op {
            Op::Cmp { .. } | Op::True | Op::False => true,
            Op::Not(a) => timeless[*a],
            Op::And(a, b) | Op::Or(a, b) | Op::Implies(a, b) | Op::Iff(a, b) => {
                timeless[*a] && timeless[*b]
            }
            _ => false,
        };
    }
    timeless
}

impl Future {
    /// The future state of `plan`, or `None` when its statement is immediate.
    /// With `explain`, the immediate nodes a witness walk may reach are
    /// queued too, with the seen sets.
    pub fn new(plan: &PropPlan, explain: bool) -> Option<Future> {
        let delays = plan.delays();
        if !delays.delayed.get(plan.root).copied().unwrap_or(false) {
            return None;
        }
        let n = plan.nodes.len();
        let order: Vec<NodeIx> = (0..n).filter(|&i| delays.delayed[i]).collect();
        let mut readers: Vec<Vec<(NodeIx, Read)>> = vec![Vec::new(); n];
        let mut seen_kept = vec![false; plan.vars.len()];
        for &i in &order {
            let op = &plan.nodes[i].op;
            match op {
                Op::Prev(a) => readers[*a].push((i, Read::Prev)),
                Op::Next(_, a) => readers[*a].push((i, Read::Next)),
                Op::Until(_, a, b) => {
                    readers[*a].push((i, Read::Until));
                    readers[*b].push((i, Read::Until));
                }
                Op::RuleCall { rule, .. } => {
                    readers[plan.rules[*rule].body].push((i, Read::Same));
                }
                Op::Quant(Quant::ExistsSeen | Quant::ForallSeen, v, a) => {
                    seen_kept[*v] = true;
                    readers[*a].push((i, Read::Same));
                }
                _ => {
                    for k in op.same_step_kids().iter() {
                        readers[k].push((i, Read::Same));
                    }
                }
            }
        }
        let mut is_feed = vec![false; n];
        for &f in &delays.feeds {
            is_feed[f] = true;
        }
        let mut walk = vec![false; n];
        if explain {
            // The walk of a witness descends from the root through
            // connectives and quantifiers: their values at the decided
            // position must be there, and the seen sets.
            let mut todo = vec![plan.root];
            while let Some(k) = todo.pop() {
                walk[k] = true;
                if !delays.delayed[k] {
                    is_feed[k] = true;
                }
                if matches!(
                    plan.nodes[k].op,
                    Op::Not(_)
                        | Op::And(..)
                        | Op::Or(..)
                        | Op::Implies(..)
                        | Op::Iff(..)
                        | Op::Quant(..)
                ) {
                    todo.extend(plan.nodes[k].op.same_step_kids().iter());
                }
            }
            for (v, var) in plan.vars.iter().enumerate() {
                seen_kept[v] |= var.needs_seen;
            }
        }
        // (Point mode gives the explanations itself: the guard's tuples.)
        let point = plan.point_form(&delays);
        let until = (0..n)
            .map(|i| match plan.nodes[i].op {
                Op::Until(t, ..) if delays.delayed[i] && point.is_none() => Some(Until {
                    lo: t.lo,
                    hi: t.hi.unwrap_or(u64::MAX),
                    scanned: 0,
                    pending: VecDeque::new(),
                }),
                _ => None,
            })
            .collect();
        let feeds: Vec<NodeIx> = (0..n).filter(|&i| is_feed[i]).collect();
        let timeless = timeless_nodes(plan);
        // (Constants never change: left out. A QTL comparison at a position
        // holds only at values seen up to it: its set as it was then.)
        let timeless_feeds = (feeds.iter().copied())
            .filter(|&k| {
                let node = &plan.nodes[k];
                timeless[k]
                    && !matches!(node.op, Op::True | Op::False)
                    && node.free.iter().all(|&v| plan.vars[v].compare_later)
            })
            .collect();
        let mut matches = vec![None; n];
        if let Some(form) = &point {
            for &k in &feeds {
                matches[k] = matches::Matches::new(plan, &delays.delayed, form, k);
            }
        }
        let raw = point.as_ref().is_some_and(|form| {
            matches[form.guard].is_some()
                && form.vars.iter().all(|&v| !plan.vars[v].needs_seen)
                && (0..n).all(|k| {
                    let node = &plan.nodes[k];
                    node.free.is_empty()
                        || matches[k].is_some()
                        || (!is_feed[k] && !matches!(node.op, Op::Atom { .. }))
                })
        });
        let matches_only = point.is_some()
            && (0..n).all(|k| {
                delays.delayed[k]
                    || matches[k].is_some()
                    || matches!(plan.nodes[k].op, Op::True | Op::False)
            });
        Some(Future {
            order,
            feeds,
            timeless: timeless_feeds,
            readers,
            seen_kept,
            walk,
            base: 0,
            times: VecDeque::new(),
            seen_at: VecDeque::new(),
            end: 0,
            first: vec![0; n],
            vals: vec![VecDeque::new(); n],
            until,
            decided: Vec::new(),
            point,
            point_next: 0,
            matches,
            raw,
            matches_only,
            scratch: None,
            next_gap: 0,
        })
    }

    /// The positions at which node `k` has a value: from `first[k]` to this.
    pub(super) fn next(&self, k: NodeIx) -> u64 {
        self.first[k] + self.vals[k].len() as u64
    }

    /// Node `k`'s value at position `p` (which it has).
    pub(super) fn val(&self, k: NodeIx, p: u64) -> Bdd {
        self.vals[k][(p - self.first[k]) as usize]
    }

    /// The time of position `p` (which is kept).
    pub(super) fn time(&self, p: u64) -> u64 {
        self.times[(p - self.base) as usize]
    }

    /// Whether no step was taken yet.
    pub fn is_fresh(&self) -> bool {
        self.end == 0
    }

    /// The positions the statement has not decided yet.
    pub fn undecided(&self, root: NodeIx) -> u64 {
        match self.point {
            Some(_) => self.end - self.point_next,
            None => self.end - self.next(root),
        }
    }

    /// Applies `f` to every BDD kept here.
    pub fn for_each_bdd(&mut self, f: &mut impl FnMut(&mut Bdd)) {
        for q in &mut self.vals {
            q.iter_mut().for_each(&mut *f);
        }
        for u in self.until.iter_mut().flatten() {
            for (alive, acc) in &mut u.pending {
                f(alive);
                f(acc);
            }
        }
        for s in &mut self.seen_at {
            s.iter_mut().flatten().for_each(&mut *f);
        }
    }

    /// Every BDD kept here.
    pub fn bdds(&self) -> impl Iterator<Item = Bdd> + '_ {
        let queued = self.vals.iter().flatten().copied();
        let pending =
            (self.until.iter().flatten()).flat_map(|u| u.pending.iter().flat_map(|&(a, b)| [a, b]));
        let seen = self.seen_at.iter().flatten().flatten().copied();
        queued.chain(pending).chain(seen)
    }

    /// Cuts every queue to what its readers may still read.
    pub(super) fn trim(&mut self, root: NodeIx) {
        let n = self.vals.len();
        let mut oldest = self.end;
        for k in 0..n {
            if self.vals[k].is_empty() {
                continue;
            }
            let mut need = if self.readers[k].is_empty() {
                // The root, and nodes kept for witnesses only.
                self.next(root)
            } else {
                u64::MAX
            };
            for &(r, how) in &self.readers[k] {
                let at = match how {
                    Read::Same => self.next(r),
                    Read::Prev => self.next(r).saturating_sub(1),
                    Read::Next => self.next(r) + 1,
                    Read::Until => self.until[r].as_ref().map_or(0, |u| u.scanned),
                };
                need = need.min(at);
            }
            if self.walk[k] {
                need = need.min(self.next(root));
            }
            let drop = need
                .saturating_sub(self.first[k])
                .min(self.vals[k].len() as u64);
            self.vals[k].drain(..drop as usize);
            self.first[k] += drop;
        }
        // Times: a delayed node reads the time of its next position and of
        // the one before (a timed `S`); a `U` those of its pending ones.
        for &k in &self.order {
            oldest = oldest.min(self.next(k).saturating_sub(1));
        }
        let drop = oldest
            .saturating_sub(self.base)
            .min(self.times.len() as u64);
        self.times.drain(..drop as usize);
        let seen_drop = (drop as usize).min(self.seen_at.len());
        self.seen_at.drain(..seen_drop);
        self.base += drop;
    }
}

mod matches;
mod point;
mod sets;
