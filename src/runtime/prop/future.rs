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

use super::PropMonitor;
use crate::bdd::{Bdd, BddSpace, Space};
use crate::plan::{NodeIx, Op, PropPlan};
use crate::runtime::time::Tick;
use crate::runtime::witness::{self, WitnessValue};
use crate::syntax::Quant;

/// How a delayed node reads another node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Read {
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
#[derive(Debug)]
pub(super) struct Future {
    /// The delayed nodes, in the plan's order.
    order: Vec<NodeIx>,
    /// The immediate nodes whose values are queued.
    feeds: Vec<NodeIx>,
    /// Per node: the delayed nodes that read it, and how.
    readers: Vec<Vec<(NodeIx, Read)>>,
    /// Per variable: whether its seen values are kept per position.
    seen_kept: Vec<bool>,
    /// Per node: whether a witness walk may read it (kept until the
    /// statement is decided at the position).
    walk: Vec<bool>,
    /// The position of the first entry of `times` and `seen_at`.
    base: u64,
    /// Per position from `base`: the time on the monitor's clock.
    times: VecDeque<u64>,
    /// Per position from `base`: the seen sets of the variables of `seen_kept`.
    seen_at: VecDeque<Vec<Option<Bdd>>>,
    /// The positions taken (steps so far).
    end: u64,
    /// Per node: the position of its first queued value.
    first: Vec<u64>,
    /// Per node: its queued values.
    vals: Vec<VecDeque<Bdd>>,
    /// Per `U` node: its state.
    until: Vec<Option<Until>>,
    /// Verdicts of the statement found and not yet taken.
    pub(crate) decided: Vec<Decision>,
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
#[derive(Debug)]
struct Until {
    lo: u64,
    hi: u64,
    /// The next position of the operands to take in.
    scanned: u64,
    /// Per position from the node's next one up to `scanned`: the
    /// assignments under which φ held at every position taken in since,
    /// and those for which the operator is known to hold.
    pending: VecDeque<(Bdd, Bdd)>,
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
        let until = (0..n)
            .map(|i| match plan.nodes[i].op {
                Op::Until(t, ..) if delays.delayed[i] => Some(Until {
                    lo: t.lo,
                    hi: t.hi.unwrap_or(u64::MAX),
                    scanned: 0,
                    pending: VecDeque::new(),
                }),
                _ => None,
            })
            .collect();
        Some(Future {
            order,
            feeds: (0..n).filter(|&i| is_feed[i]).collect(),
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
            next_gap: 0,
        })
    }

    /// The positions at which node `k` has a value: from `first[k]` to this.
    fn next(&self, k: NodeIx) -> u64 {
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
        self.end - self.next(root)
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
    fn trim(&mut self, root: NodeIx) {
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

impl PropMonitor {
    /// After the immediate nodes of a step at `tick` are computed: queues
    /// the feeds' values, then computes every delayed position that can be.
    pub(super) fn advance_future(&mut self, space: &mut Space, tick: Tick) {
        let Some(mut f) = self.state.future.take() else {
            return;
        };
        for &k in &f.feeds {
            f.vals[k].push_back(self.state.now[k]);
        }
        f.times.push_back(tick.now);
        if f.seen_kept.iter().any(|&k| k) {
            let seen = (self.state.seen.iter().zip(&f.seen_kept))
                .map(|(s, &kept)| {
                    if kept {
                        s.as_ref().map(|s| s.set)
                    } else {
                        None
                    }
                })
                .collect();
            f.seen_at.push_back(seen);
        }
        f.end += 1;
        loop {
            let mut progress = false;
            for i in 0..f.order.len() {
                let n = f.order[i];
                while self.compute_next(space, &mut f, n) {
                    progress = true;
                }
            }
            if !progress {
                break;
            }
        }
        f.trim(self.compiled.plan.root);
        self.state.future = Some(f);
    }

    /// Computes node `n` at its next position if what it reads is known;
    /// returns whether it did.
    fn compute_next(&mut self, space: &mut Space, f: &mut Future, n: NodeIx) -> bool {
        let plan = &self.compiled.plan;
        let p = f.next(n);
        if p >= f.end {
            return false;
        }
        let has = |k: NodeIx, at: u64| at < f.next(k);
        let value = match &plan.nodes[n].op {
            Op::Until(..) => return self.until_next(space, f, n),
            Op::Next(t, a) => {
                if !has(*a, p + 1) {
                    return false;
                }
                let gap = f.time(p + 1) - f.time(p);
                if t.contains(gap) {
                    f.val(*a, p + 1)
                } else {
                    space.ff()
                }
            }
            Op::Prev(a) => {
                if p == 0 {
                    space.ff()
                } else if has(*a, p - 1) {
                    f.val(*a, p - 1)
                } else {
                    return false;
                }
            }
            op => {
                if !op.same_step_kids().iter().all(|k| has(k, p)) {
                    // An operand known at `p` may decide a connective alone.
                    match self.decided_by_one(space, f, n, p) {
                        Some(value) => {
                            self.push_value(space, f, n, p, value);
                            return true;
                        }
                        None => return false,
                    }
                }
                if let Op::RuleCall { rule, .. } = op
                    && !has(plan.rules[*rule].body, p)
                {
                    return false;
                }
                self.delayed_value(space, f, n, p)
            }
        };
        self.push_value(space, f, n, p, value);
        true
    }

    /// The value at `p` of connective `n` when one operand, known there,
    /// decides it whatever the other (`false & ψ`, `true | ψ`, `false -> ψ`,
    /// `φ -> true`): an event whose verdict no later event can change is
    /// decided at once.
    fn decided_by_one(&self, space: &Space, f: &Future, n: NodeIx, p: u64) -> Option<Bdd> {
        if f.walk[n] {
            // A witness walk reads both operands.
            return None;
        }
        let known = |k: NodeIx| (p < f.next(k)).then(|| f.val(k, p));
        let is = |k: NodeIx, value: bool| known(k).is_some_and(|b| b.as_bool() == Some(value));
        let (decided, value) = match self.compiled.plan.nodes[n].op {
            Op::And(a, b) => (is(a, false) || is(b, false), false),
            Op::Or(a, b) => (is(a, true) || is(b, true), true),
            Op::Implies(a, b) => (is(a, false) || is(b, true), true),
            _ => (false, false),
        };
        decided.then(|| space.constant(value))
    }

    /// Node `n`'s value at `p`, from its operands' (all there).
    fn delayed_value(&mut self, space: &mut Space, f: &mut Future, n: NodeIx, p: u64) -> Bdd {
        if let Some(value) = self.compute_delayed(space, f, n, p) {
            return value;
        }
        let plan = &self.compiled.plan;
        let v = |k: NodeIx| f.val(k, p);
        match plan.nodes[n].op {
            Op::Not(a) => space.not(v(a)),
            Op::And(a, b) => space.and(v(a), v(b)),
            Op::Or(a, b) => space.or(v(a), v(b)),
            Op::Implies(a, b) => space.imp(v(a), v(b)),
            Op::Iff(a, b) => space.iff(v(a), v(b)),
            Op::Since(a, b) => {
                let value = match self.state.pre[n] {
                    Some(pre) => {
                        let kept = space.and(v(a), pre);
                        space.or(v(b), kept)
                    }
                    None => v(b),
                };
                self.state.pre[n] = Some(value);
                value
            }
            Op::SinceTimed(_, a, b) | Op::Zince(_, a, b) => {
                let now = f.time(p);
                let prev = if p == 0 { now } else { f.time(p - 1) };
                let tick = Tick { now, prev };
                let (a, b) = (v(a), v(b));
                match self.state.timed[n].as_mut() {
                    Some(t) => t.step(space, &self.compiled.clock, tick, a, b),
                    None => space.ff(),
                }
            }
            Op::Quant(q, var, a) => {
                let seen = f.seen_at.get((p - f.base) as usize).and_then(|s| s[var]);
                self.quant_of(space, n, q, v(a), seen)
            }
            Op::RuleCall { rule, .. } => {
                let body = plan.rules[rule].body;
                self.rule_call_of(space, n, f.val(body, p))
            }
            // Atoms, comparisons, constants and gaps are immediate; the
            // future operators are computed by `compute_next`.
            _ => space.ff(),
        }
    }

    /// Appends `value` as node `n`'s value at `p`; at the root, records the
    /// verdict there.
    fn push_value(&mut self, space: &mut Space, f: &mut Future, n: NodeIx, p: u64, value: Bdd) {
        if n == self.compiled.plan.root {
            let holds = value.is_true();
            f.vals[n].push_back(value);
            let decision = self.decide(space, f, p, holds);
            f.decided.push(decision);
        } else {
            f.vals[n].push_back(value);
        }
    }

    /// The verdict `holds` at `p`, with the explanations asked for.
    fn decide(&self, space: &mut Space, f: &Future, p: u64, holds: bool) -> Decision {
        let mut d = Decision {
            position: p,
            holds,
            found: Default::default(),
            tuples: Vec::new(),
        };
        if holds || !self.explain.any() {
            return d;
        }
        let now: Vec<Bdd> = (0..f.vals.len())
            .map(|k| {
                if f.first[k] <= p && p < f.next(k) {
                    f.val(k, p)
                } else {
                    space.ff()
                }
            })
            .collect();
        let seen_now = f.seen_at.get((p - f.base) as usize);
        let state = witness::State {
            plan: &self.compiled.plan,
            now: &now,
            seen: (0..self.compiled.plan.vars.len())
                .map(|v| seen_now.and_then(|s| s[v]))
                .collect(),
            classes: &self.state.classes,
        };
        let (found, tuples) = self.explanations(space, &state);
        d.found = found;
        d.tuples = tuples;
        d
    }

    /// The value of quantifier node `n` over a variable with the values
    /// `seen` at the position, of body value `body`.
    pub(super) fn quant_of(
        &self,
        space: &mut Space,
        n: NodeIx,
        q: Quant,
        body: Bdd,
        seen: Option<Bdd>,
    ) -> Bdd {
        let Some(bits) = self.consts.quant_bits[n] else {
            return space.ff();
        };
        match q {
            Quant::Exists => space.exists_in(body, bits),
            Quant::Forall => space.forall_in(body, bits),
            Quant::ExistsSeen => match seen {
                Some(seen) => space.and_exists_in(seen, body, bits),
                None => space.ff(),
            },
            Quant::ForallSeen => match seen {
                Some(seen) => {
                    let not_body = space.not(body);
                    let some = space.and_exists_in(seen, not_body, bits);
                    space.not(some)
                }
                None => space.tt(),
            },
        }
    }

    /// `U` node `n`: takes in its operands' positions and gives its values
    /// as they are decided; returns whether it did anything.
    fn until_next(&mut self, space: &mut Space, f: &mut Future, n: NodeIx) -> bool {
        let Op::Until(_, a, b) = self.compiled.plan.nodes[n].op else {
            return false;
        };
        let eventually = matches!(self.compiled.plan.nodes[a].op, Op::True);
        let mut did = false;
        loop {
            let Some(u) = f.until[n].as_ref() else {
                return did;
            };
            let next = f.next(n);
            // The front is decided when a later position beyond its window
            // is known (everything before it was taken in), or when nothing
            // can change it: φ failed for every assignment, or it holds for all.
            if let Some((alive, acc)) = u.pending.front() {
                // The earliest time a position not taken in yet can have.
                let later = if u.scanned < f.end {
                    f.time(u.scanned)
                } else {
                    f.time(f.end - 1).saturating_add(f.next_gap)
                };
                let closed = later - f.time(next) > u.hi;
                if closed || alive.is_false() || acc.is_true() {
                    let Some(u) = f.until[n].as_mut() else {
                        return did;
                    };
                    let Some((_, acc)) = u.pending.pop_front() else {
                        return did;
                    };
                    self.push_value(space, f, n, next, acc);
                    did = true;
                    continue;
                }
            }
            let k = u.scanned;
            if !(k < f.next(a) && k < f.next(b)) {
                return did;
            }
            let psi = f.val(b, k);
            let phi = f.val(a, k);
            let tt = space.tt();
            let ff = space.ff();
            let Future {
                until, times, base, ..
            } = &mut *f;
            let Some(u) = until[n].as_mut() else {
                return did;
            };
            let (lo, hi) = (u.lo, u.hi);
            let time = |p: u64| times[(p - *base) as usize];
            let tk = time(k);
            u.pending.push_back((tt, ff));
            for (i, (alive, acc)) in (next..).zip(u.pending.iter_mut()) {
                let gap = tk - time(i);
                if gap >= lo && gap <= hi && !alive.is_false() && !psi.is_false() {
                    let add = if eventually {
                        psi
                    } else {
                        space.and(*alive, psi)
                    };
                    *acc = space.or(*acc, add);
                }
                if !eventually {
                    *alive = space.and(*alive, phi);
                }
            }
            u.scanned += 1;
            did = true;
        }
    }
}
