//! Quantifiers: the values a quantifier tries at an event. A quantifier
//! guarded by an event atom (`Exists x . a(x) & φ`, `Forall x . a(x) & ψ
//! -> φ`, in either case), whose truth at an event depends only on the
//! values that the atom binds there, tries those alone, so that the
//! explanation of `spawned(x, y) := ... Exists z . (@spawned(x, z) &
//! spawn(z, y))` follows only the `z` of the current event; any other
//! quantifier tries its whole range.
//!
//! The atom may sit below more quantifiers (`Forall x . Forall y . a(x, y)
//! -> φ`): where `a(v, _)` matches no event for any value of `y`, the
//! body is true for every `y` (false, under an `Exists`), and so is the
//! quantifier over `y`, whose range is never empty (any value, seen or
//! not). So in locks-cycles' `Forall t1 . Forall t2 . Forall l1 . Forall
//! l2 . (@[acq(t1,l1),rel(t1,l1)) & acq(t1,l2)) -> ...`, `t1` is guarded
//! by `acq(t1, l2)`, whatever `l2` is, and then `l2` by the same atom:
//! an explanation tries one thread and one lock, not every pair of
//! threads (26 s at event 2,000 of its 10k log, minutes at 5,000).
//! Quantifiers over the values seen, whose range may be empty, are not
//! looked through.

use hashbrown::HashMap;

use super::events::{FRESH, ValueId};
use super::truth::{Binder, Bound, Ctx, Env, Kid, Truth};
use crate::syntax::{BinOp, Form, FormId, Quant, Term};

/// One argument of a guard atom: the quantified variable, a value, or a
/// variable of a quantifier below (any value).
#[derive(Clone, Debug)]
enum Arg {
    X,
    Is(ValueId),
    Any,
}

/// An event atom that guards a quantifier: only the values it binds to
/// the variable at an event can decide the quantifier there.
#[derive(Clone, Debug)]
pub(super) struct Guard {
    name: ValueId,
    args: Vec<Arg>,
}

/// A quantifier as a series computes it: its subformula per value, made
/// when the value is first tried.
#[derive(Clone, Debug)]
pub(super) struct QuantOp {
    ctx: Ctx,
    id: FormId,
    env: Env,
    kids: HashMap<ValueId, Kid>,
}

impl QuantOp {
    pub(super) fn new(ctx: Ctx, id: FormId, env: &Env) -> QuantOp {
        QuantOp {
            ctx,
            id,
            env: env.clone(),
            kids: HashMap::new(),
        }
    }
}

impl Truth<'_> {
    /// The guard of the quantifier `id` under `env`, if it has one.
    fn guard(&self, id: FormId, env: &Env) -> Option<Guard> {
        let Form::Quant(q, x, body) = self.arena.form(id) else {
            return None;
        };
        let exists = matches!(q, Quant::Exists | Quant::ExistsSeen);
        // Through the quantifiers below whose range is never empty, and
        // that do not bind `x` again.
        let (mut body, mut below) = (*body, Vec::new());
        while let Form::Quant(Quant::Exists | Quant::Forall, y, inner) = self.arena.form(body) {
            if y.name == x.name {
                return None;
            }
            below.push(y.name.as_str());
            body = *inner;
        }
        let conj = match (exists, self.arena.form(body)) {
            (true, _) => body,
            (false, Form::Bin(BinOp::Implies, l, _)) => *l,
            _ => return None,
        };
        let mut stack = vec![conj];
        while let Some(f) = stack.pop() {
            match self.arena.form(f) {
                Form::Bin(BinOp::And, a, b) => stack.extend([*a, *b]),
                Form::Call { name, args }
                    if self.rule(&name.name).is_none()
                        && args
                            .iter()
                            .any(|a| matches!(a, Term::Var(v) if v.name == x.name)) =>
                {
                    let args = args
                        .iter()
                        .map(|a| match a {
                            Term::Var(v) if v.name == x.name => Arg::X,
                            Term::Var(v) if below.contains(&v.name.as_str()) => Arg::Any,
                            t => Arg::Is(self.term(env, t)),
                        })
                        .collect();
                    let name = self.events.id(name.name.as_bytes()).unwrap_or(FRESH);
                    return Some(Guard { name, args });
                }
                _ => {}
            }
        }
        None
    }

    /// The values the quantifier `id` (in `ctx`, under `env`) tries at
    /// event `i`, and whether a guard chose them (else they are its range).
    pub fn quant_values(
        &mut self,
        ctx: Ctx,
        id: FormId,
        env: &Env,
        i: usize,
    ) -> (Vec<ValueId>, bool) {
        let Form::Quant(q, x, _) = self.arena.form(id) else {
            return (Vec::new(), false);
        };
        let seen = matches!(q, Quant::ExistsSeen | Quant::ForallSeen);
        let binder = Binder::Quant(ctx, id);
        let (values, guarded) = match self.guard(id, env) {
            Some(g) => (self.guard_value(&g, i).into_iter().collect(), true),
            None if seen => (self.seen_values(binder, &x.name).to_vec(), false),
            None => (self.domain().to_vec(), false),
        };
        let values = if seen {
            values
                .into_iter()
                .filter(|&v| self.first_seen(binder, v).is_some_and(|f| f <= i))
                .collect()
        } else {
            values
        };
        (values, guarded)
    }

    /// The value the guard binds at event `i`, if it matches the event.
    fn guard_value(&self, g: &Guard, i: usize) -> Option<ValueId> {
        let args = self.events.args(i);
        if self.events.name(i) != g.name || args.len() != g.args.len() {
            return None;
        }
        let mut x = None;
        for (a, &v) in g.args.iter().zip(args) {
            match a {
                Arg::Is(w) if *w != v => return None,
                Arg::Is(_) | Arg::Any => {}
                Arg::X if x.is_some_and(|x| x != v) => return None,
                Arg::X => x = Some(v),
            }
        }
        x
    }

    /// The environment of the quantifier's body for the value `v`.
    pub fn quant_env(&self, ctx: Ctx, id: FormId, env: &Env, v: ValueId) -> Env {
        let mut inner = env.clone();
        if let Form::Quant(_, x, _) = self.arena.form(id) {
            inner.push(Bound {
                name: x.name.clone(),
                value: v,
                binder: Binder::Quant(ctx, id),
            });
        }
        inner
    }

    /// The quantifier's value at step `r`, as a series step.
    pub(super) fn quant_step(&mut self, q: &mut QuantOp, r: usize) -> bool {
        let i = self.events.first_event(r);
        let Form::Quant(quant, _, body) = self.arena.form(q.id) else {
            return false;
        };
        let (quant, body) = (*quant, *body);
        let exists = matches!(quant, Quant::Exists | Quant::ExistsSeen);
        let (values, _) = self.quant_values(q.ctx, q.id, &q.env, i);
        for v in values {
            let kid = match q.kids.get(&v) {
                Some(k) => k.clone(),
                None => {
                    let inner = self.quant_env(q.ctx, q.id, &q.env, v);
                    let k = self.kid(q.ctx, body, &inner);
                    q.kids.insert(v, k.clone());
                    k
                }
            };
            if self.value_step(&kid, r) == exists {
                return exists;
            }
        }
        !exists
    }

    /// The quantifier's value at event `i` alone, trying the preferred
    /// value of its variable first (see [`Truth::prefer`]).
    pub(super) fn quant_holds(&mut self, ctx: Ctx, id: FormId, env: &Env, i: usize) -> bool {
        let Form::Quant(quant, x, body) = self.arena.form(id) else {
            return false;
        };
        let (quant, body) = (*quant, *body);
        let exists = matches!(quant, Quant::Exists | Quant::ExistsSeen);
        let (mut values, _) = self.quant_values(ctx, id, env, i);
        if ctx == super::truth::STATEMENT
            && let Some(&v) = self.prefer.get(&x.name)
            && let Some(k) = values.iter().position(|&w| w == v)
        {
            values.swap(0, k);
        }
        for v in values {
            if self.cancelled() {
                return false;
            }
            let inner = self.quant_env(ctx, id, env, v);
            if self.holds(ctx, body, &inner, i) == exists {
                return exists;
            }
        }
        !exists
    }
}
