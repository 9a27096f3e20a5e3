//! The proof of a subformula's truth value at an event, as a tree: each
//! node says which subformula (under which values) is true or false at
//! which event, and why, with the proofs of the subformulas that decide it.
//!
//! Proofs are minimal in the events they cite: an event atom that holds
//! cites its event; of the subformulas that hold (or fail) at a range of
//! events (`φ` at every event since `ψ`), only the proofs that cite an
//! event are kept; a disjunction that holds is proved by one true operand, a
//! conjunction that fails by one false operand, preferring an operand whose
//! proof cites nothing. A proof is cut (its node marked, no children) once
//! the tree has its maximum number of nodes.

use std::collections::HashMap;

use super::events::{FRESH, ValueId};
use super::truth::{Binder, Citing, Ctx, Env, STATEMENT, Truth, lookup};
use crate::syntax::{BinOp, Expr, Form, FormId, Quant, TimeBound};

/// One node of a proof.
#[derive(Clone, Debug)]
pub struct Proof {
    /// The context of the subformula (0: the statement, `k + 1`: rule `k`).
    pub ctx: Ctx,
    /// The subformula.
    pub form: FormId,
    /// The values of its free variables (and of the variables bound around it).
    pub env: Env,
    /// The subformula, its free variables written as their values.
    pub formula: String,
    /// The event (from 1).
    pub event: usize,
    /// Its truth value there.
    pub holds: bool,
    /// Why, in words.
    pub reason: String,
    /// The events this node cites itself (an event atom that holds: its event).
    pub cites: Vec<usize>,
    /// The proofs it rests on.
    pub children: Vec<Proof>,
    /// Not expanded further: the tree reached its maximum size.
    pub cut: bool,
    /// A quantifier decided by its one value (an `Exists` that holds, a
    /// `Forall` that fails, or one whose guard leaves one value).
    pub one_value: bool,
}

impl Proof {

    /// Whether the proof cites an event.
    pub(super) fn cites_any(&self) -> bool {
        !self.cites.is_empty() || self.children.iter().any(Proof::cites_any)
    }

    /// The number of nodes.
    pub fn size(&self) -> usize {
        1 + self.children.iter().map(Proof::size).sum::<usize>()
    }
}

/// Whether a node of the proof was cut for the explanation's size.
fn has_cut(p: &Proof) -> bool {
    p.cut || p.children.iter().any(has_cut)
}

/// A formula and a negation flag: the operand of a since or until operator.
pub(super) type Lit = (FormId, bool);

/// Builds proofs over a [`Truth`].
pub struct Prover<'t, 'a> {
    pub(super) truth: &'t mut Truth<'a>,
    /// The most nodes.
    pub(super) budget: usize,
    pub(super) used: usize,
    /// Values to prefer for the statement's quantified variables (the
    /// monitor's witness), by name.
    pub(super) prefer: HashMap<String, ValueId>,
    pub(super) citing: Citing,
    /// Below a subformula whose proof cites no event: how many more levels
    /// are shown.
    pub(super) shallow: Option<usize>,
}

/// How many levels of a proof that cites no event are shown.
const SHALLOW: usize = 3;

impl<'t, 'a> Prover<'t, 'a> {
    /// A prover of at most `budget` nodes, preferring the values `prefer`
    /// where a quantifier of the statement needs a value.
    pub fn new(truth: &'t mut Truth<'a>, budget: usize, prefer: HashMap<String, ValueId>) -> Self {
        let citing = Citing::new(truth.arena(), truth.prop());
        Prover {
            truth,
            budget: budget.max(1),
            used: 0,
            prefer,
            citing,
            shallow: None,
        }
    }

    /// Whether the tree has its maximum size.
    pub fn exhausted(&self) -> bool {
        self.used >= self.budget
    }

    /// A value as written in a formula: bare when QTL reads it as a name
    /// or a number, quoted otherwise; `<unseen>` for [`FRESH`].
    pub fn show_value(&self, v: ValueId) -> String {
        match self.truth.events().text(v) {
            None => "<unseen>".to_string(),
            Some(t) => {
                let s = String::from_utf8_lossy(t);
                let bare = !s.is_empty()
                    && s.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-')
                    && !matches!(&*s, "true" | "false");
                if bare {
                    s.into_owned()
                } else {
                    format!("{:?}", s)
                }
            }
        }
    }

    /// `id` with the variables of `env` written as their values, except `except`.
    pub fn show(&self, id: FormId, env: &Env, except: Option<&str>) -> String {
        let renamed: HashMap<String, String> = env
            .iter()
            .filter(|b| Some(b.name.as_str()) != except)
            .map(|b| (b.name.clone(), self.show_value(b.value)))
            .collect();
        let renamed: std::collections::HashMap<String, String> = renamed.into_iter().collect();
        self.truth.arena().show_renamed(id, &renamed)
    }

    /// The proof that `id` (in `ctx`, under `env`) has its truth value at event `i`.
    pub fn prove(&mut self, ctx: Ctx, id: FormId, env: &Env, i: usize) -> Proof {
        let outer = self.shallow;
        let mut p = stacker::maybe_grow(64 * 1024, 4 << 20, || self.prove_inner(ctx, id, env, i));
        self.shallow = outer;
        if !p.children.is_empty() && !p.cites_any() {
            self.fold(&mut p, 0);
        }
        p
    }

    fn prove_inner(&mut self, ctx: Ctx, id: FormId, env: &Env, i: usize) -> Proof {
        let holds = self.truth.holds(ctx, id, env, i);
        let except = match self.truth.arena().form(id) {
            Form::Quant(_, x, _) => Some(x.name.clone()),
            _ => None,
        };
        let free = self.truth.free_vars(id);
        let env: Env = env
            .iter()
            .filter(|b| free.contains(&b.name) && lookup(env, &b.name) == Some(*b))
            .cloned()
            .collect();
        let mut node = Proof {
            ctx,
            form: id,
            formula: self.show(id, &env, except.as_deref()),
            env,
            event: i,
            holds,
            reason: String::new(),
            cites: Vec::new(),
            children: Vec::new(),
            cut: false,
            one_value: false,
        };
        if self.used >= self.budget {
            node.cut = true;
            node.reason = "not expanded: the explanation has its maximum size".into();
            return node;
        }
        self.used += 1;
        match self.shallow {
            Some(0) => {
                node.reason = "no event decides it (its proof is not shown further)".into();
                return node;
            }
            Some(d) => self.shallow = Some(d - 1),
            None if !self.citing.may_cite(self.truth.arena(), id, holds) => {
                self.shallow = Some(SHALLOW);
            }
            None => {}
        }
        let env = node.env.clone();
        let form = self.truth.arena().form(id).clone();
        match form {
            Form::True | Form::False => node.reason = "a constant".into(),
            Form::Rel { left, right, .. } => {
                node.reason = self.rel_reason(&env, &left, &right, holds);
            }
            // Refused before any proof (see `unexplained`).
            Form::Agg(..) | Form::Let(..) => node.reason = "not explained: a computation".into(),
            Form::Call { name, args } => {
                if let Some(k) = self.truth.rule(&name.name) {
                    let inner = self.truth.rule_env(k, &args, &env);
                    let rule = &self.truth.prop().rules[k];
                    let body = rule.body;
                    let params: Vec<String> = rule.params.iter().map(|p| p.name.clone()).collect();
                    node.reason = format!(
                        "by its rule {}({}) := {}",
                        name.name,
                        params.join(", "),
                        self.show(body, &Vec::new(), None)
                    );
                    node.children.push(self.prove(k + 1, body, &inner, i));
                } else {
                    let ev = self.truth.events().show(i);
                    if holds {
                        node.cites.push(i);
                        node.reason = format!("event {i} is {ev}");
                    } else {
                        node.reason = format!("event {i} is {ev}");
                    }
                }
            }
            Form::Cmp { left, right, .. } => {
                node.reason = self.cmp_reason(&env, &left.name, &right, holds, i);
                if holds {
                    // The values are compared because events showed them.
                    let mut seen = Vec::new();
                    for b in &env {
                        if let Some(f) = self.truth.first_seen(b.binder, b.value) {
                            seen.push(format!("{} at {f}", self.show_value(b.value)));
                            node.cites.push(f);
                        }
                    }
                    node.cites.sort_unstable();
                    node.cites.dedup();
                    node.reason += &format!(" (seen: {})", seen.join(", "));
                }
            }
            Form::Not(a) => node.children.push(self.prove(ctx, a, &env, i)),
            Form::Bin(op, a, b) => self.bin(&mut node, op, a, b),
            Form::Prev(a) => self.prev(&mut node, None, a),
            Form::PrevIn(t, a) => self.prev(&mut node, Some(t), a),
            Form::Next(t, a) => self.next(&mut node, t, a),
            Form::Once(b, a) => self.since(&mut node, b, None, (a, false), false, false),
            Form::Hist(b, a) => self.since(&mut node, b, None, (a, true), false, true),
            Form::Since(b, p, q) => {
                self.since(&mut node, b, Some((p, false)), (q, false), false, false)
            }
            Form::Zince(d, p, q) => self.since(
                &mut node,
                Some(TimeBound::at_most(d)),
                Some((p, false)),
                (q, false),
                true,
                false,
            ),
            Form::Interval(a, b) => {
                self.since(&mut node, None, Some((b, true)), (a, false), false, false)
            }
            Form::Eventually(b, a) => self.until(&mut node, b, None, (a, false), false),
            Form::Always(b, a) => self.until(&mut node, b, None, (a, true), true),
            Form::Until(b, p, q) => self.until(&mut node, b, Some((p, false)), (q, false), false),
            Form::Quant(q, x, body) => self.quant(&mut node, q, &x.name, body),
        }
        node
    }

    fn cmp_reason(
        &mut self,
        env: &Env,
        x: &str,
        right: &crate::syntax::Term,
        holds: bool,
        i: usize,
    ) -> String {
        let mut unseen = Vec::new();
        let mut check = |s: &mut Self, name: &str| {
            if let Some(b) = lookup(env, name).cloned()
                && s.truth.first_seen(b.binder, b.value).is_none_or(|f| f > i)
            {
                unseen.push(format!("{name} = {}", s.show_value(b.value)));
            }
        };
        check(self, x);
        if let crate::syntax::Term::Var(y) = right {
            check(self, &y.name);
        }
        if unseen.is_empty() {
            if holds {
                "the values compare so".into()
            } else {
                "the values do not compare so".into()
            }
        } else {
            format!("no value seen by event {i} for {}", unseen.join(", "))
        }
    }

    /// Why a comparison of arithmetic terms has its value: the values of
    /// its computed sides (its variables are written as their values).
    fn rel_reason(&self, env: &Env, left: &Expr, right: &Expr, holds: bool) -> String {
        let mut sides = Vec::new();
        for e in [left, right] {
            if e.items.len() > 1 {
                let shown = self.show_expr(env, e);
                sides.push(match self.truth.expr_value(env, e) {
                    Some(v) => format!("`{shown}` is {}", String::from_utf8_lossy(&v)),
                    None => format!("`{shown}` has no value"),
                });
            }
        }
        let verdict = if holds {
            "the values compare so"
        } else {
            "the values do not compare so"
        };
        if sides.is_empty() {
            verdict.into()
        } else {
            format!("{}: {verdict}", sides.join(", "))
        }
    }

    /// An arithmetic term with the variables of `env` written as their values.
    fn show_expr(&self, env: &Env, e: &Expr) -> String {
        e.map_vars(|v| match lookup(env, &v.name) {
            Some(b) => crate::syntax::Term::Var(crate::syntax::Ident {
                name: self.show_value(b.value),
                span: v.span,
            }),
            None => crate::syntax::Term::Var(v.clone()),
        })
        .show(true)
    }

    pub(super) fn value(&mut self, node: &Proof, id: FormId, i: usize) -> bool {
        self.truth.holds(node.ctx, id, &node.env, i)
    }

    pub(super) fn cites(&self, id: FormId, holds: bool) -> bool {
        self.citing.may_cite(self.truth.arena(), id, holds)
    }

    fn bin(&mut self, node: &mut Proof, op: BinOp, a: FormId, b: FormId) {
        let (ctx, env, i) = (node.ctx, node.env.clone(), node.event);
        let va = self.value(node, a, i);
        let vb = self.value(node, b, i);
        // Which operands decide: both, or one of the two that can.
        let (one, need_a, need_b) = match (op, node.holds) {
            (BinOp::And, true) | (BinOp::Or, false) | (BinOp::Iff, _) => (false, true, true),
            (BinOp::Implies, false) => (false, true, true),
            (BinOp::And, false) => (true, !va, !vb),
            (BinOp::Or, true) => (true, va, vb),
            (BinOp::Implies, true) => (true, !va, vb),
        };
        let pick = if one && need_a && need_b {
            // Either operand decides: prefer one whose proof cites nothing.
            if !self.cites(a, va) || self.cites(b, vb) {
                (true, false)
            } else {
                (false, true)
            }
        } else {
            (need_a, need_b)
        };
        if pick.0 && pick.1 && self.deep(a) && !self.deep(b) {
            // The shallow operand first, so that a long proof of the other
            // cannot use up the explanation's size before it.
            let pb = self.prove(ctx, b, &env, i);
            node.children.push(self.prove(ctx, a, &env, i));
            node.children.push(pb);
            return;
        }
        if pick.0 {
            node.children.push(self.prove(ctx, a, &env, i));
        }
        if pick.1 {
            node.children.push(self.prove(ctx, b, &env, i));
        }
    }

    /// Whether a subformula's proof can reach back over events: it has a
    /// temporal operator or a rule call.
    fn deep(&self, id: FormId) -> bool {
        let arena = self.truth.arena();
        let mut stack = vec![id];
        while let Some(f) = stack.pop() {
            match arena.form(f) {
                Form::Call { name, .. } if self.truth.rule(&name.name).is_some() => return true,
                Form::Call { .. } | Form::Cmp { .. } | Form::True | Form::False => {}
                Form::Not(a) | Form::Quant(_, _, a) => stack.push(*a),
                Form::Bin(_, a, b) => stack.extend([*a, *b]),
                _ => return true,
            }
        }
        false
    }

    /// Cuts a proof that cites no event to [`SHALLOW`] levels (giving the
    /// nodes cut back to the explanation's size), saying so where it is cut.
    fn fold(&mut self, p: &mut Proof, depth: usize) {
        if depth == SHALLOW {
            if !p.children.is_empty() {
                let removed = p.size() - 1;
                self.used = self.used.saturating_sub(removed);
                if has_cut(p) {
                    p.cut = true;
                    p.reason = "not expanded: the explanation has its maximum size".into();
                } else {
                    p.reason = "no event decides it (its proof is not shown further)".into();
                }
                p.children.clear();
            }
            return;
        }
        for c in &mut p.children {
            self.fold(c, depth + 1);
        }
    }

    fn prev(&mut self, node: &mut Proof, t: Option<TimeBound>, a: FormId) {
        let i = node.event;
        if i == 1 {
            node.reason = "no event before event 1".into();
            return;
        }
        let gap = self.truth.events().clock(i) - self.truth.events().clock(i - 1);
        if let Some(t) = t
            && !t.contains(gap)
        {
            node.reason = format!("event {} is {gap} time units before, not within {t}", i - 1);
            return;
        }
        node.reason = format!("at the previous event, {}", i - 1);
        let (ctx, env) = (node.ctx, node.env.clone());
        node.children.push(self.prove(ctx, a, &env, i - 1));
    }

    fn next(&mut self, node: &mut Proof, t: Option<TimeBound>, a: FormId) {
        let i = node.event;
        if i >= self.truth.events().len() {
            node.reason = format!("no event after event {i}");
            return;
        }
        let gap = self.truth.events().clock(i + 1) - self.truth.events().clock(i);
        if let Some(t) = t
            && !t.contains(gap)
        {
            node.reason = format!("event {} is {gap} time units later, not within {t}", i + 1);
            return;
        }
        node.reason = format!("at the next event, {}", i + 1);
        let (ctx, env) = (node.ctx, node.env.clone());
        node.children.push(self.prove(ctx, a, &env, i + 1));
    }

    pub(super) fn lit(&mut self, node: &Proof, l: Lit, j: usize) -> bool {
        self.value(node, l.0, j) != l.1
    }

    /// `l` as words when it has the value `v`: `` `f` `` or `` no `f` ``.
    pub(super) fn said(&self, node: &Proof, l: Lit, v: bool) -> String {
        let (mut form, mut holds) = (l.0, v != l.1);
        while let Form::Not(a) = self.truth.arena().form(form) {
            form = *a;
            holds = !holds;
        }
        let f = self.show(form, &node.env, None);
        if holds {
            format!("`{f}`")
        } else {
            format!("no `{f}`")
        }
    }

    /// The proofs of `l` having the value `v` at the events `js`, those
    /// that cite an event only.
    pub(super) fn citing(
        &mut self,
        node: &mut Proof,
        l: Lit,
        v: bool,
        js: impl Iterator<Item = usize>,
    ) {
        let form_value = v != l.1;
        if !self.cites(l.0, form_value) {
            return;
        }
        let (ctx, env) = (node.ctx, node.env.clone());
        for j in js {
            if self.exhausted() {
                node.cut = true;
                return;
            }
            let p = self.prove(ctx, l.0, &env, j);
            if p.cites_any() {
                node.children.push(p);
            }
        }
    }

    fn quant(&mut self, node: &mut Proof, q: Quant, x: &str, body: FormId) {
        let (ctx, id, i) = (node.ctx, node.form, node.event);
        let binder = Binder::Quant(ctx, id);
        let seen = matches!(q, Quant::ExistsSeen | Quant::ForallSeen);
        let exists = matches!(q, Quant::Exists | Quant::ExistsSeen);
        let (mut values, guarded) = self.truth.quant_values(ctx, id, &node.env, i);
        if ctx == STATEMENT
            && let Some(&v) = self.prefer.get(x)
            && let Some(k) = values.iter().position(|&w| w == v)
        {
            values.swap(0, k);
        }
        let env = node.env.clone();
        // One value decides: an Exists that holds, a Forall that fails.
        if node.holds == exists {
            let mut chosen = None;
            for &v in &values {
                let inner = self.truth.quant_env(ctx, id, &env, v);
                if self.truth.holds(ctx, body, &inner, i) == exists {
                    chosen = Some(v);
                    break;
                }
            }
            let Some(v) = chosen else {
                node.reason = "inconsistent: no value decides".into();
                return;
            };
            node.reason = format!("for {x} = {}", self.show_value(v));
            node.one_value = true;
            if seen && let Some(f) = self.truth.first_seen(binder, v) {
                // The value is in the range because an event showed it.
                node.reason += &format!(", seen at event {f}");
                node.cites.push(f);
            }
            let inner = self.truth.quant_env(ctx, id, &env, v);
            node.children.push(self.prove(ctx, body, &inner, i));
            return;
        }
        let count = values.iter().filter(|&&v| v != FRESH).count();
        node.one_value = guarded && values.len() == 1;
        node.reason = match (guarded, values.first()) {
            (true, None) => format!("no value of {x} matches event {i}"),
            (true, Some(&v)) => format!("only {x} = {} matches event {i}", self.show_value(v)),
            (false, _) if seen => {
                format!("for each of the {count} values seen for {x} by event {i}")
            }
            (false, _) => {
                format!("for every value of {x} (the {count} of the trace, and any other)")
            }
        };
        if !self.cites(body, node.holds) {
            return;
        }
        for v in values {
            if self.exhausted() {
                node.cut = true;
                return;
            }
            let inner = self.truth.quant_env(ctx, id, &env, v);
            let p = self.prove(ctx, body, &inner, i);
            if p.cites_any() || guarded {
                node.children.push(p);
            }
        }
    }
}
