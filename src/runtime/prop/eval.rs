//! Evaluation of a bound step: the comparisons gain the pairs of newly seen
//! values, then every node computed as a set is recomputed in the plan's
//! order (skipping those none of whose inputs changed), and the statement is
//! decided, by point evaluation or from its root's set.
//!
//! Between two subformulas, when the space says a collection is due, the
//! step is at a safe point: every value it computed so far is in the state
//! (`now`), so the property's roots and those outside it are all there is
//! to keep.

use super::compiled::Step;
use super::scratch::Scratch;
use super::state::State;
use super::{Outside, PropMonitor};
use crate::bdd::{Bdd, BddSpace, Space};
use crate::plan::{Arg, NodeIx, Op, VarIx};
use crate::runtime::ids::Code;
use crate::runtime::time::Tick;
use crate::syntax::{Quant, RelOp};
use crate::value::relop_holds;

impl PropMonitor {
    /// Evaluates the bound step at `tick`; returns whether the property holds.
    pub(super) fn evaluate_step(
        &mut self,
        space: &mut Space,
        tick: Tick,
        outside: &mut Outside<'_>,
    ) -> bool {
        if self.scratch.binding.repeat {
            return self.state.last_holds;
        }
        self.apply_growth(space);
        self.update_comparisons(space);
        let recompute_all = self.state.all_dirty || self.state.first;
        if !recompute_all
            && self.compiled.kept_all.is_empty()
            && (self.state.future.as_ref()).is_some_and(|f| f.matches_only)
        {
            // Nothing to compute as a set: the constants are as before, and
            // the matches go to `future` as they are.
            return self.step_matches(space, tick);
        }
        self.evaluate(space, tick, outside);
        let holds = if self.state.future.is_some() {
            // Verdicts come later, from `future`.
            self.advance_future(space, tick);
            true
        } else if self.point_on {
            let mut env = self.scratch.point_env.take().unwrap_or_default();
            let holds = self.point_holds(space, &mut env);
            self.scratch.point_env = Some(env);
            holds
        } else {
            self.state.now[self.compiled.plan.root].is_true()
        };
        if self.explain.any() && !holds && self.point_on {
            // The event's values, where they are the witness; else the
            // walk, over every node as a set.
            if !self.explain_by_event() {
                self.complete_point_nodes(space);
                self.record_explanations(space, holds);
            }
        } else {
            self.record_explanations(space, holds);
        }
        let s = &mut self.state;
        let mut kept_changed = false;
        let kept = if self.point_on {
            &self.compiled.kept_point
        } else {
            &self.compiled.kept_all
        };
        for &n in kept {
            s.pre_changed[n] = s.changed[n];
            if s.changed[n] {
                kept_changed = true;
                s.pre[n] = Some(s.now[n]);
            }
        }
        s.fixed = !recompute_all
            && !kept_changed
            && !self.compiled.computes
            && self.scratch.binding.newly_seen.is_empty();
        s.last_holds = holds;
        s.first = false;
        s.all_dirty = false;
        if self.collect_if_due(space) {
            self.state.all_dirty = true;
            self.state.fixed = false;
        }
        holds
    }

    /// [`evaluate_step`](Self::evaluate_step) of a statement in point mode
    /// whose immediate nodes are all matches or constants (see
    /// `Future::matches_only`), after its first step.
    fn step_matches(&mut self, space: &mut Space, tick: Tick) -> bool {
        // Its verdicts come from `future`, with their explanations: the
        // step's own (it holds) are left as the first step left them.
        self.advance_future(space, tick);
        let s = &mut self.state;
        s.fixed = !self.compiled.computes && self.scratch.binding.newly_seen.is_empty();
        s.last_holds = true;
        if self.collect_if_due(space) {
            self.state.all_dirty = true;
            self.state.fixed = false;
        }
        true
    }

    fn update_comparisons(&mut self, space: &mut Space) {
        let newly = std::mem::take(&mut self.scratch.binding.newly_seen);
        for &(v, code) in &newly {
            self.see(space, v, code);
        }
        self.scratch.binding.newly_seen = newly;
    }

    /// Adds `code` to the values seen for `v` (if they are tracked and it
    /// is new), and the pairs it makes true to the comparisons.
    pub(super) fn see(&mut self, space: &mut Space, v: VarIx, code: Code) {
        if self.state.seen[v].as_ref().is_none_or(|s| s.contains(code)) {
            return;
        }
        let plan = &self.compiled.plan;
        let mut lits = Vec::new();
        self.code_cube(v, code, &mut lits);
        let cube = space.cube(&lits);
        for n in 0..plan.nodes.len() {
            let Op::Cmp { op, left, right } = &plan.nodes[n].op else {
                continue;
            };
            let add = self.comparison_delta(space, *op, *left, right, v, code);
            if let (Some(add), Some(rel)) = (add, self.state.cmp[n]) {
                self.state.cmp[n] = Some(space.or(rel, add));
                self.state.cmp_dirty[n] = true;
            }
        }
        if let Some(s) = &mut self.state.seen[v] {
            s.insert(space, code, cube);
            self.state.seen_dirty[v] = true;
        }
        self.state.computed_seen = true;
    }

    /// The pairs a comparison gains when `code` becomes seen for `v`.
    fn comparison_delta(
        &self,
        space: &mut Space,
        op: RelOp,
        left: VarIx,
        right: &Arg,
        v: VarIx,
        code: Code,
    ) -> Option<Bdd> {
        let plan = &self.compiled.plan;
        let value = |var: VarIx, c: Code| self.state.classes[plan.vars[var].class].value(c);
        let text = plan.vars[left].text_order;
        let holds = |a: &[u8], b: &[u8]| {
            if text {
                match op {
                    RelOp::Eq => a == b,
                    RelOp::Lt => a < b,
                    RelOp::Le => a <= b,
                    RelOp::Gt => a > b,
                    RelOp::Ge => a >= b,
                }
            } else {
                relop_holds(op, a, b)
            }
        };
        let cube = |space: &mut Space, var: VarIx, c: Code| {
            let mut lits = Vec::new();
            self.code_cube(var, c, &mut lits);
            space.cube(&lits)
        };
        match right {
            Arg::Const(c) if v == left => {
                holds(value(v, code), c.as_bytes()).then(|| cube(space, v, code))
            }
            Arg::Var(r) if *r == left && v == left => {
                holds(value(v, code), value(v, code)).then(|| cube(space, v, code))
            }
            Arg::Var(r) if v == left || v == *r => {
                let other = if v == left { *r } else { left };
                let others = self.state.seen[other].as_ref()?;
                let mut acc = space.ff();
                for &oc in &others.codes {
                    let (a, b) = if v == left {
                        (value(v, code), value(other, oc))
                    } else {
                        (value(other, oc), value(v, code))
                    };
                    if holds(a, b) {
                        let other_cube = cube(space, other, oc);
                        acc = space.or(acc, other_cube);
                    }
                }
                let own = cube(space, v, code);
                Some(space.and(acc, own))
            }
            _ => None,
        }
    }

    /// Computes `now` of every node in the plan's order. A node none of whose
    /// inputs changed since the previous event keeps its value: exact, since
    /// every operator but the timed ones is a function of its inputs (and of
    /// `pre`, which changes only when the node's own value did).
    fn evaluate(&mut self, space: &mut Space, tick: Tick, outside: &mut Outside<'_>) {
        let all = self.state.all_dirty || self.state.first;
        // Atoms active at the previous event start again from false; their old
        // values decide exactly whether they changed.
        let mut previous = std::mem::take(&mut self.scratch.atom_previous);
        for i in 0..self.compiled.atom_nodes.len() {
            let n = self.compiled.atom_nodes[i];
            if !self.is_set(n) {
                self.track_fused(n, false, all);
                continue;
            }
            let s = &mut self.state;
            s.changed[n] = all;
            if s.atom_active[n] {
                previous.push((n, std::mem::replace(&mut s.now[n], space.ff())));
            }
            s.atom_active[n] = false;
        }
        for i in 0..self.scratch.binding.matched.len() {
            let n = self.scratch.binding.matched[i].0;
            if !self.is_set(n) {
                self.track_fused(n, true, all);
                continue;
            }
            let cube = self.match_cube(space, i);
            let s = &mut self.state;
            // Usually the atom's first match of the event: its cube as it is.
            s.now[n] = if s.now[n].is_false() {
                cube
            } else {
                space.or(s.now[n], cube)
            };
            s.changed[n] = true;
            s.atom_active[n] = true;
        }
        for (n, old) in previous.drain(..) {
            self.state.changed[n] = all || self.state.now[n] != old;
        }
        self.scratch.atom_previous = previous;
        // Computing nodes need the monitor mutably: the compiled property is
        // held by a handle of its own.
        let compiled = std::sync::Arc::clone(&self.compiled);
        let compiled = &*compiled;
        let plan = &compiled.plan;
        let steps = if self.point_on {
            &compiled.point_steps
        } else {
            &compiled.all_steps
        };
        let fused = &compiled.fused_operand;
        let restricting = self.point_on && compiled.bypass.any;
        for &step in steps {
            if space.collection_due() {
                safe_point(space, &mut self.state, &mut self.scratch, outside);
            }
            let n = match step {
                Step::Node(n) => n,
                Step::Fused(n, a) => {
                    // Never built: the sinces that read it read its operand.
                    let c = &mut self.state.changed;
                    c[n] = all || c[a];
                    continue;
                }
                Step::ExistsAnd(n) => {
                    self.exists_and(space, n, all);
                    continue;
                }
                Step::AndAtom(n) => {
                    self.and_atom(space, n, all);
                    continue;
                }
                Step::SinceAtoms(n) => {
                    self.since_atoms(space, n, all);
                    continue;
                }
                Step::Prev(n, a) => {
                    let s = &mut self.state;
                    if all || s.pre_changed[a] {
                        let value = s.pre[a].unwrap_or_else(|| space.ff());
                        s.changed[n] = all || value != s.now[n];
                        s.now[n] = value;
                    } else {
                        s.changed[n] = false;
                    }
                    continue;
                }
                Step::Since(n, a, b) => {
                    // With φ and ψ as before, φ S ψ is as before too:
                    // ψ ∨ (φ ∧ (ψ ∨ (φ ∧ S₋₂))) = ψ ∨ (φ ∧ S₋₂).
                    let s = &mut self.state;
                    if !(all || s.changed[a] || s.changed[b]) {
                        s.changed[n] = false;
                        continue;
                    }
                    let (fa, fb) = if self.point_on {
                        (fused[a], fused[b])
                    } else {
                        (None, None)
                    };
                    let now = &s.now;
                    let (na, nb) = (fa.map(|x| now[x]), fb.map(|x| now[x]));
                    let value = since(space, now[a], now[b], na, nb, s.pre[n]);
                    s.changed[n] = all || value != s.now[n];
                    s.now[n] = value;
                    continue;
                }
                Step::Twin(n, source) => {
                    // Its source renamed (see `twins`).
                    if all || self.state.changed[source] {
                        let value = self.twin_value(space, n);
                        let s = &mut self.state;
                        s.changed[n] = all || value != s.now[n];
                        s.now[n] = value;
                    } else {
                        self.state.changed[n] = false;
                    }
                    continue;
                }
            };
            let s = &mut self.state;
            let c = &s.changed;
            let dirty = all
                || match &plan.nodes[n].op {
                    Op::Atom { .. } => continue,
                    Op::True | Op::False => false,
                    Op::Cmp { .. } => std::mem::take(&mut s.cmp_dirty[n]),
                    Op::Quant(Quant::ExistsSeen | Quant::ForallSeen, v, a) => {
                        c[*a] || s.seen_dirty[*v]
                    }
                    Op::Quant(Quant::Exists, _, a) => match compiled.bypass.restricted[n] {
                        Some(r) if restricting => r.dirty(
                            c,
                            &s.pre_changed,
                            s.now[n].is_false(),
                            &self.scratch.binding.matched,
                        ),
                        _ => c[*a],
                    },
                    Op::Not(a) | Op::Quant(_, _, a) => c[*a],
                    Op::And(a, b) | Op::Or(a, b) | Op::Implies(a, b) | Op::Iff(a, b) => {
                        c[*a] || c[*b]
                    }
                    Op::SinceTimed(..) | Op::Zince(..) | Op::Gap(_) => true,
                    Op::Prev(_) | Op::Since(..) => unreachable!("steps of their own"),
                    Op::RuleCall { rule, .. } => c[plan.rules[*rule].body],
                    // Delayed: computed by `future`, never here.
                    Op::Next(..) | Op::Until(..) => continue,
                    // The window moves with time.
                    Op::Agg { once: Some(_), .. } => true,
                    Op::Assign { body, .. } | Op::Filter { body, .. } | Op::Agg { body, .. } => {
                        c[*body]
                    }
                };
            if !dirty {
                s.changed[n] = false;
                continue;
            }
            s.cmp_dirty[n] = false;
            if let Op::Assign { .. } | Op::Filter { .. } | Op::Agg { .. } = &plan.nodes[n].op {
                let value = self.compute_node(space, n, tick);
                let s = &mut self.state;
                s.changed[n] = all || value != s.now[n];
                s.now[n] = value;
                continue;
            }
            let now = &s.now;
            let value = match &plan.nodes[n].op {
                Op::Atom { .. } => continue,
                Op::True => space.tt(),
                Op::False => space.ff(),
                Op::Cmp { .. } => s.cmp[n].unwrap_or_else(|| space.ff()),
                Op::Not(a) => space.not(now[*a]),
                Op::And(a, b) => space.and(now[*a], now[*b]),
                Op::Or(..) if restricting && let Some((a, b)) = compiled.absorbed.into[n] => {
                    let Some(r) = compiled.bypass.restricted[b] else {
                        unreachable!("only restricted quantifiers are absorbed")
                    };
                    let into = self.state.now[a];
                    self.absorbed_value(space, into, r)
                }
                Op::Or(a, b) => space.or(now[*a], now[*b]),
                Op::Implies(a, b) => space.imp(now[*a], now[*b]),
                Op::Iff(a, b) => space.iff(now[*a], now[*b]),
                Op::Prev(_) | Op::Since(..) => unreachable!("steps of their own"),
                Op::SinceTimed(_, a, b) | Op::Zince(_, a, b) => {
                    let (phi, psi) = (now[*a], now[*b]);
                    match s.timed[n].as_mut() {
                        Some(t) => t.step(space, &compiled.clock, tick, phi, psi),
                        None => space.ff(),
                    }
                }
                Op::Gap(t) => space.constant(!s.first && t.contains(tick.now - tick.prev)),
                Op::Quant(Quant::Exists, _, _)
                    if restricting && let Some(r) = compiled.bypass.restricted[n] =>
                {
                    if compiled.absorbed.absorbed[n] {
                        // Never built: whether its atom matched (see `absorb`).
                        let matched = self.scratch.binding.matched.iter().any(|m| m.0 == r.atom);
                        let s = &mut self.state;
                        s.changed[n] = all || matched || !s.now[n].is_false();
                        s.now[n] = space.constant(matched);
                        continue;
                    }
                    self.restricted_value(space, r)
                }
                Op::Quant(q, v, a) => self.quant_value(space, n, *q, *v, *a),
                Op::RuleCall { rule, .. } => self.rule_call(space, n, *rule),
                Op::Next(..) | Op::Until(..) => continue,
                // Computed above.
                Op::Assign { .. } | Op::Filter { .. } | Op::Agg { .. } => continue,
            };
            let s = &mut self.state;
            s.changed[n] = all || value != s.now[n];
            s.now[n] = value;
        }
        self.state.seen_dirty.fill(false);
    }

    /// Whether node `n`'s `now` is computed at every event.
    /// (A twin dropped with point evaluation on is neither computed as a
    /// set nor completed for witnesses: none reads it.)
    #[inline]
    pub(super) fn is_set(&self, n: NodeIx) -> bool {
        let c = &self.compiled;
        if !self.point_on {
            // An event pattern that point mode keeps as matches is no set.
            return !(self.state.future.as_ref()).is_some_and(|f| f.is_matches(n));
        }
        c.point_set[n]
    }

    /// The value of quantifier node `n` over variable `v` with body `a`.
    fn quant_value(&self, space: &mut Space, n: NodeIx, q: Quant, v: VarIx, a: NodeIx) -> Bdd {
        let Some(bits) = self.consts.quant_bits[n] else {
            unreachable!("every quantifier has its variable set")
        };
        let body = self.state.now[a];
        match q {
            Quant::Exists => space.exists_in(body, bits),
            Quant::Forall => space.forall_in(body, bits),
            Quant::ExistsSeen => match &self.state.seen[v] {
                Some(seen) => space.and_exists_in(seen.set, body, bits),
                None => space.ff(),
            },
            Quant::ForallSeen => match &self.state.seen[v] {
                Some(seen) => {
                    let not_body = space.not(body);
                    let counter = space.and_exists_in(seen.set, not_body, bits);
                    space.not(counter)
                }
                None => space.tt(),
            },
        }
    }

    /// Computes, as sets, the nodes that point evaluation skipped at this
    /// event (for a witness, which reads every node of the statement). They
    /// are boolean connectives, quantifiers and atoms, functions of this
    /// event's match and of the nodes computed as sets.
    fn complete_point_nodes(&mut self, space: &mut Space) {
        for n in 0..self.compiled.plan.nodes.len() {
            if self.is_set(n) || self.compiled.twins.dropped[n] {
                continue;
            }
            let now = &self.state.now;
            let value = match &self.compiled.plan.nodes[n].op {
                Op::Atom { .. } => {
                    let mut acc = space.ff();
                    for i in 0..self.scratch.binding.matched.len() {
                        if self.scratch.binding.matched[i].0 == n {
                            let cube = self.match_cube(space, i);
                            acc = space.or(acc, cube);
                        }
                    }
                    acc
                }
                Op::True => space.tt(),
                Op::False => space.ff(),
                Op::Not(a) => space.not(now[*a]),
                Op::And(a, b) => space.and(now[*a], now[*b]),
                Op::Or(a, b) => space.or(now[*a], now[*b]),
                Op::Implies(a, b) => space.imp(now[*a], now[*b]),
                Op::Iff(a, b) => space.iff(now[*a], now[*b]),
                Op::Quant(q, v, a) => self.quant_value(space, n, *q, *v, *a),
                _ => unreachable!("temporal operators, rules and comparisons are always sets"),
            };
            self.state.now[n] = value;
        }
    }
}

/// A collection at a safe point of a step: every value of the step so far
/// is in `state`, and `outside` lists the roots of the other properties.
#[cold]
#[inline(never)]
fn safe_point(
    space: &mut Space,
    state: &mut State,
    scratch: &mut Scratch,
    outside: &mut Outside<'_>,
) {
    space.collect(|roots| {
        state.keep_roots(roots);
        scratch.keep_roots(roots);
        outside(roots);
    });
}

/// `a S b` from its previous value `pre`, where `a` (resp. `b`) may be a
/// fused negation, given as the operand `not_a` (resp. `not_b`) it negates.
#[inline]
fn since(
    space: &mut Space,
    a: Bdd,
    b: Bdd,
    not_a: Option<Bdd>,
    not_b: Option<Bdd>,
    pre: Option<Bdd>,
) -> Bdd {
    let Some(pre) = pre else {
        return match not_b {
            Some(x) => space.not(x),
            None => b,
        };
    };
    // a ∧ pre
    let kept = match not_a {
        Some(x) => space.and_not(pre, x),
        None => space.and(a, pre),
    };
    match not_b {
        // ¬x ∨ kept = x → kept
        Some(x) => space.imp(x, kept),
        // Usually: ψ did not hold anywhere (an atom that did not match).
        None if b.is_false() => kept,
        None => space.or(b, kept),
    }
}
