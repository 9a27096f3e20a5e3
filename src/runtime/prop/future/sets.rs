//! The set mode of the delayed layer: every delayed node is computed as a
//! set (a BDD over its free variables' bits) at each position, in trace
//! order, as soon as what it reads is known (see the [parent](super)).

use super::{Decision, Future};
use crate::bdd::{Bdd, BddSpace, Space};
use crate::plan::{NodeIx, Op};
use crate::runtime::prop::PropMonitor;
use crate::runtime::time::Tick;
use crate::runtime::witness;
use crate::syntax::Quant;

impl PropMonitor {
    /// After the immediate nodes of a step at `tick` are computed: queues
    /// the feeds' values, then computes every delayed position that can be.
    pub(in crate::runtime::prop) fn advance_future(&mut self, space: &mut Space, tick: Tick) {
        let Some(mut f) = self.state.future.take() else {
            return;
        };
        for &k in &f.timeless {
            // An MFOTL comparison holds at the same values at every
            // position, but its set has the values seen so far only: a
            // position queued before a value was seen reads the set as it
            // is now, which has every value that a later position brought.
            let now = self.state.now[k];
            if f.vals[k].back().is_some_and(|&last| last != now) {
                f.vals[k].iter_mut().for_each(|v| *v = now);
            }
        }
        for &k in &f.feeds {
            f.vals[k].push_back(self.state.now[k]);
            if let Some(m) = &mut f.matches[k] {
                m.open();
                let b = &self.scratch.binding;
                for (n, r) in &b.matched {
                    if *n == k {
                        m.add(b.codes[r.clone()].iter().map(|&(_, c)| c.0));
                    }
                }
                for (n, r) in &b.raw_matched {
                    if *n == k {
                        m.add_values(&b.raw_spans[r.clone()], &b.raw);
                    }
                }
            }
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
        if f.point.is_some() {
            self.advance_point(space, &mut f);
            self.state.future = Some(f);
            return;
        }
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
    pub(in crate::runtime::prop) fn quant_of(
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
