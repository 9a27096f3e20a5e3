//! Evaluation of a bound step: the comparisons gain the pairs of newly seen
//! values, then every node computed as a set is recomputed in the plan's
//! order (skipping those none of whose inputs changed), and the statement is
//! decided, by point evaluation or from its root's set.

use super::PropMonitor;
use super::compiled::Step;
use crate::bdd::Bdd;
use crate::plan::{Arg, NodeIx, Op, VarIx};
use crate::runtime::ids::Code;
use crate::runtime::time::Tick;
use crate::syntax::{Quant, RelOp};
use crate::value::relop_holds;

impl PropMonitor {
    /// Evaluates the bound step at `tick`; returns whether the property holds.
    pub(super) fn evaluate_step(&mut self, tick: Tick) -> bool {
        if self.scratch.binding.repeat {
            return self.state.last_holds;
        }
        self.apply_growth();
        self.update_comparisons();
        let recompute_all = self.state.all_dirty || self.state.first;
        self.evaluate(tick);
        let holds = if self.state.future.is_some() {
            // Verdicts come later, from `future`.
            self.advance_future(tick);
            true
        } else if self.point_on {
            let mut env = std::mem::take(&mut self.scratch.point_env);
            let holds = self.point_holds(&mut env);
            self.scratch.point_env = env;
            holds
        } else {
            self.state.now[self.compiled.plan.root].is_true()
        };
        if self.explain.any() && !holds && self.point_on {
            self.complete_point_nodes();
        }
        self.record_explanations(holds);
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
                s.pre[n] = Some(s.now[n].clone());
            }
        }
        s.fixed = !recompute_all && !kept_changed && self.scratch.binding.newly_seen.is_empty();
        s.last_holds = holds;
        s.first = false;
        s.all_dirty = false;
        if self.collect_if_due() {
            self.state.all_dirty = true;
            self.state.fixed = false;
        }
        holds
    }

    fn update_comparisons(&mut self) {
        let newly = std::mem::take(&mut self.scratch.binding.newly_seen);
        let plan = &self.compiled.plan;
        for &(v, code) in &newly {
            if self.state.seen[v].as_ref().is_none_or(|s| s.contains(code)) {
                continue;
            }
            let mut lits = Vec::new();
            self.code_cube(v, code, &mut lits);
            let cube = self.space.cube(&lits);
            for n in 0..plan.nodes.len() {
                let Op::Cmp { op, left, right } = &plan.nodes[n].op else {
                    continue;
                };
                let add = self.comparison_delta(*op, *left, right, v, code);
                if let (Some(add), Some(rel)) = (add, &self.state.cmp[n]) {
                    self.state.cmp[n] = Some(rel.or(&add));
                    self.state.cmp_dirty[n] = true;
                }
            }
            if let Some(s) = &mut self.state.seen[v] {
                s.insert(code, &cube);
                self.state.seen_dirty[v] = true;
            }
        }
        self.scratch.binding.newly_seen = newly;
    }

    /// The pairs a comparison gains when `code` becomes seen for `v`.
    fn comparison_delta(
        &self,
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
        let cube = |var: VarIx, c: Code| {
            let mut lits = Vec::new();
            self.code_cube(var, c, &mut lits);
            self.space.cube(&lits)
        };
        match right {
            Arg::Const(c) if v == left => {
                holds(value(v, code), c.as_bytes()).then(|| cube(v, code))
            }
            Arg::Var(r) if *r == left && v == left => {
                holds(value(v, code), value(v, code)).then(|| cube(v, code))
            }
            Arg::Var(r) if v == left || v == *r => {
                let other = if v == left { *r } else { left };
                let others = self.state.seen[other].as_ref()?;
                let mut acc = self.space.ff();
                for &oc in &others.codes {
                    let (a, b) = if v == left {
                        (value(v, code), value(other, oc))
                    } else {
                        (value(other, oc), value(v, code))
                    };
                    if holds(a, b) {
                        acc = acc.or(&cube(other, oc));
                    }
                }
                Some(acc.and(&cube(v, code)))
            }
            _ => None,
        }
    }

    /// Computes `now` of every node in the plan's order. A node none of whose
    /// inputs changed since the previous event keeps its value: exact, since
    /// every operator but the timed ones is a function of its inputs (and of
    /// `pre`, which changes only when the node's own value did).
    fn evaluate(&mut self, tick: Tick) {
        let all = self.state.all_dirty || self.state.first;
        // Atoms active at the previous event start again from false; their old
        // values decide exactly whether they changed.
        let mut previous = std::mem::take(&mut self.scratch.atom_previous);
        for &n in &self.compiled.atom_nodes {
            if !self.is_set(n) {
                continue;
            }
            let s = &mut self.state;
            s.changed[n] = all;
            if s.atom_active[n] {
                previous.push((n, std::mem::replace(&mut s.now[n], self.space.ff())));
            }
            s.atom_active[n] = false;
        }
        for i in 0..self.scratch.binding.matched.len() {
            let n = self.scratch.binding.matched[i].0;
            if !self.is_set(n) {
                continue;
            }
            let cube = self.match_cube(i);
            let s = &mut self.state;
            // Usually the atom's first match of the event: its cube as it is.
            s.now[n] = if s.now[n].is_false() {
                cube
            } else {
                s.now[n].or(&cube)
            };
            s.changed[n] = true;
            s.atom_active[n] = true;
        }
        for (n, old) in previous.drain(..) {
            self.state.changed[n] = all || self.state.now[n] != old;
        }
        self.scratch.atom_previous = previous;
        let compiled = &*self.compiled;
        let plan = &compiled.plan;
        let steps = if self.point_on {
            &compiled.point_steps
        } else {
            &compiled.all_steps
        };
        let fused = &compiled.fused_operand;
        let restricting = self.point_on && compiled.bypass.any;
        for &step in steps {
            let n = match step {
                Step::Node(n) => n,
                Step::Fused(n, a) => {
                    // Never built: the sinces that read it read its operand.
                    let c = &mut self.state.changed;
                    c[n] = all || c[a];
                    continue;
                }
                Step::Twin(n, source) => {
                    // Its source renamed (see `twins`).
                    if all || self.state.changed[source] {
                        let value = self.twin_value(n);
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
                    Op::Prev(a) => s.pre_changed[*a],
                    // With φ and ψ as before, φ S ψ is as before too:
                    // ψ ∨ (φ ∧ (ψ ∨ (φ ∧ S₋₂))) = ψ ∨ (φ ∧ S₋₂).
                    Op::Since(a, b) => c[*a] || c[*b],
                    Op::SinceTimed(..) | Op::Zince(..) | Op::Gap(_) => true,
                    Op::RuleCall { rule, .. } => c[plan.rules[*rule].body],
                    // Delayed: computed by `future`, never here.
                    Op::Next(..) | Op::Until(..) => continue,
                };
            if !dirty {
                s.changed[n] = false;
                continue;
            }
            s.cmp_dirty[n] = false;
            let now = &s.now;
            let value = match &plan.nodes[n].op {
                Op::Atom { .. } => continue,
                Op::True => self.space.tt(),
                Op::False => self.space.ff(),
                Op::Cmp { .. } => s.cmp[n].clone().unwrap_or_else(|| self.space.ff()),
                Op::Not(a) => now[*a].not(),
                Op::And(a, b) => now[*a].and(&now[*b]),
                Op::Or(a, b) => now[*a].or(&now[*b]),
                Op::Implies(a, b) => now[*a].imp(&now[*b]),
                Op::Iff(a, b) => now[*a].iff(&now[*b]),
                Op::Prev(a) => s.pre[*a].clone().unwrap_or_else(|| self.space.ff()),
                Op::Since(a, b) => {
                    let (fa, fb) = if self.point_on {
                        (fused[*a], fused[*b])
                    } else {
                        (None, None)
                    };
                    since(
                        &now[*a],
                        &now[*b],
                        fa.map(|x| &now[x]),
                        fb.map(|x| &now[x]),
                        s.pre[n].as_ref(),
                    )
                }
                Op::SinceTimed(_, a, b) | Op::Zince(_, a, b) => match s.timed[n].as_mut() {
                    Some(t) => t.step(&self.space, &compiled.clock, tick, &now[*a], &now[*b]),
                    None => self.space.ff(),
                },
                Op::Gap(t) => self
                    .space
                    .constant(!s.first && t.contains(tick.now - tick.prev)),
                Op::Quant(Quant::Exists, _, _)
                    if restricting && let Some(r) = compiled.bypass.restricted[n] =>
                {
                    self.restricted_value(r)
                }
                Op::Quant(q, v, a) => self.quant_value(n, *q, *v, *a),
                Op::RuleCall { rule, args } => self.rule_call(n, *rule, args),
                Op::Next(..) | Op::Until(..) => continue,
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
    pub(super) fn is_set(&self, n: NodeIx) -> bool {
        let c = &self.compiled;
        !self.point_on || (c.point.needs_set[n] && !c.fused[n] && !c.twins.dropped[n])
    }

    /// The value of quantifier node `n` over variable `v` with body `a`.
    fn quant_value(&self, n: NodeIx, q: Quant, v: VarIx, a: NodeIx) -> Bdd {
        let Some(bits) = &self.consts.quant_bits[n] else {
            unreachable!("every quantifier has its variable set")
        };
        let body = &self.state.now[a];
        match q {
            Quant::Exists => body.exists_in(bits),
            Quant::Forall => body.forall_in(bits),
            Quant::ExistsSeen => match &self.state.seen[v] {
                Some(seen) => seen.set.and_exists_in(body, bits),
                None => self.space.ff(),
            },
            Quant::ForallSeen => match &self.state.seen[v] {
                Some(seen) => seen.set.and_exists_in(&body.not(), bits).not(),
                None => self.space.tt(),
            },
        }
    }

    /// Computes, as sets, the nodes that point evaluation skipped at this
    /// event (for a witness, which reads every node of the statement). They
    /// are boolean connectives, quantifiers and atoms, functions of this
    /// event's match and of the nodes computed as sets.
    fn complete_point_nodes(&mut self) {
        for n in 0..self.compiled.plan.nodes.len() {
            if self.is_set(n) || self.compiled.twins.dropped[n] {
                continue;
            }
            let now = &self.state.now;
            let value = match &self.compiled.plan.nodes[n].op {
                Op::Atom { .. } => {
                    let mut acc = self.space.ff();
                    for i in 0..self.scratch.binding.matched.len() {
                        if self.scratch.binding.matched[i].0 == n {
                            acc = acc.or(&self.match_cube(i));
                        }
                    }
                    acc
                }
                Op::True => self.space.tt(),
                Op::False => self.space.ff(),
                Op::Not(a) => now[*a].not(),
                Op::And(a, b) => now[*a].and(&now[*b]),
                Op::Or(a, b) => now[*a].or(&now[*b]),
                Op::Implies(a, b) => now[*a].imp(&now[*b]),
                Op::Iff(a, b) => now[*a].iff(&now[*b]),
                Op::Quant(q, v, a) => self.quant_value(n, *q, *v, *a),
                _ => unreachable!("temporal operators, rules and comparisons are always sets"),
            };
            self.state.now[n] = value;
        }
    }

    /// The rule's relation with its parameters replaced by the call's arguments.
    ///
    /// This is the simultaneous substitution `p_i := a_i`: a constant argument
    /// restricts its parameter to the constant's code; variable arguments,
    /// repeated or not, and even when they are themselves parameters of the
    /// rule, are substituted at once by [`Bdd::rename`].
    fn rule_call(&self, n: NodeIx, rule: usize, args: &[Arg]) -> Bdd {
        let rule_plan = &self.compiled.plan.rules[rule];
        let mut relation = self.state.now[rule_plan.body].clone();
        let mut restrict = Vec::new();
        for (i, (arg, &p)) in args.iter().zip(&rule_plan.params).enumerate() {
            if let Arg::Const(_) = arg
                && let Some(code) = self.state.call_consts[n].get(i).copied().flatten()
            {
                self.code_cube(p, code, &mut restrict);
            }
        }
        if !restrict.is_empty() {
            relation = relation.restrict(&restrict);
        }
        match &self.consts.call_renaming[n] {
            Some(renaming) => relation.rename_by(renaming),
            None => relation,
        }
    }

    /// Rule call `n` applied to `relation` (a value of its rule's body).
    pub(super) fn rule_call_of(&self, n: NodeIx, relation: Bdd) -> Bdd {
        self.call_rename(n, self.call_constants(n, relation))
    }

    /// `relation` restricted to the codes of the constant arguments of rule
    /// call `n` (as [`rule_call`](Self::rule_call) does).
    pub(super) fn call_constants(&self, n: NodeIx, relation: Bdd) -> Bdd {
        if self.state.call_consts[n].iter().all(Option::is_none) {
            return relation;
        }
        let Op::RuleCall { rule, args } = &self.compiled.plan.nodes[n].op else {
            return relation;
        };
        let rule_plan = &self.compiled.plan.rules[*rule];
        let mut restrict = Vec::new();
        for (i, (arg, &p)) in args.iter().zip(&rule_plan.params).enumerate() {
            if let Arg::Const(_) = arg
                && let Some(code) = self.state.call_consts[n].get(i).copied().flatten()
            {
                self.code_cube(p, code, &mut restrict);
            }
        }
        if restrict.is_empty() {
            relation
        } else {
            relation.restrict(&restrict)
        }
    }

    /// `relation` with the parameters of rule call `n` renamed to its
    /// arguments (as [`rule_call`](Self::rule_call) does).
    pub(super) fn call_rename(&self, n: NodeIx, relation: Bdd) -> Bdd {
        match &self.consts.call_renaming[n] {
            Some(renaming) => relation.rename_by(renaming),
            None => relation,
        }
    }
}

/// `a S b` from its previous value `pre`, where `a` (resp. `b`) may be a
/// fused negation, given as the operand `not_a` (resp. `not_b`) it negates.
#[inline]
fn since(a: &Bdd, b: &Bdd, not_a: Option<&Bdd>, not_b: Option<&Bdd>, pre: Option<&Bdd>) -> Bdd {
    let Some(pre) = pre else {
        return match not_b {
            Some(x) => x.not(),
            None => b.clone(),
        };
    };
    // a ∧ pre
    let kept = match not_a {
        Some(x) => pre.and_not(x),
        None => a.and(pre),
    };
    match not_b {
        // ¬x ∨ kept = x → kept
        Some(x) => x.imp(&kept),
        // Usually: ψ did not hold anywhere (an atom that did not match).
        None if b.is_false() => kept,
        None => b.or(&kept),
    }
}
