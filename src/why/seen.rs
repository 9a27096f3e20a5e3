//! The values a variable ranges over: the seen sets of `exists`,
//! `forall` and comparisons (the values that the event atoms of the
//! variable's binder's scope bound to it so far), and the domain of
//! `Exists` and `Forall`.

use hashbrown::{HashMap, HashSet};

use super::events::{FRESH, ValueId};
use super::truth::{Binder, Pat, Truth};
use crate::syntax::{Form, Term};

impl Truth<'_> {
    /// The values a quantifier over the infinite domain tries: those at the
    /// argument places of the property's event atoms (any other value
    /// behaves as one never seen), then [`FRESH`].
    pub fn domain(&mut self) -> &[ValueId] {
        if self.domain.is_none() {
            let mut places: HashSet<(ValueId, usize)> = HashSet::new();
            let mut roots = vec![self.prop.body];
            roots.extend(self.prop.rules.iter().map(|r| r.body));
            for root in roots {
                let mut stack = vec![root];
                while let Some(f) = stack.pop() {
                    let form = self.arena.form(f);
                    if let Form::Call { name, args } = form
                        && self.rule(&name.name).is_none()
                        && let Some(n) = self.events.id(name.name.as_bytes())
                    {
                        for (p, a) in args.iter().enumerate() {
                            if matches!(a, Term::Var(_)) {
                                places.insert((n, p));
                            }
                        }
                    }
                    stack.extend(form.children());
                }
            }
            let mut taken = HashSet::new();
            let mut domain = Vec::new();
            for r in 1..=self.events.steps() {
                let n = self.events.step_name(r);
                for (p, &a) in self.events.step_args(r).iter().enumerate() {
                    if places.contains(&(n, p)) && taken.insert(a) {
                        domain.push(a);
                    }
                }
            }
            domain.push(FRESH);
            self.domain = Some(domain);
        }
        self.domain.as_deref().unwrap_or_default()
    }

    /// The values seen for the variable `x` of `binder`, in the order they
    /// are first seen.
    pub fn seen_values(&mut self, binder: Binder, x: &str) -> &[ValueId] {
        if !self.seen.contains_key(&binder) {
            self.find_seen(binder, x);
        }
        self.seen_order.get(&binder).map_or(&[], Vec::as_slice)
    }

    /// The first event at which `value` is seen for the variable of `binder`.
    pub fn first_seen(&mut self, binder: Binder, value: ValueId) -> Option<usize> {
        if !self.seen.contains_key(&binder) {
            let x = self.binder_name(binder);
            self.find_seen(binder, &x);
        }
        self.seen.get(&binder).and_then(|s| s.get(&value)).copied()
    }

    pub(super) fn binder_name(&self, binder: Binder) -> String {
        match binder {
            Binder::Quant(_, id) => match self.arena.form(id) {
                Form::Quant(_, x, _) => x.name.clone(),
                _ => String::new(),
            },
            Binder::Param(ctx, k) => self.prop.rules[ctx - 1].params[k].name.clone(),
        }
    }

    /// Computes the seen values of `binder`'s variable `x` over all events.
    pub(super) fn find_seen(&mut self, binder: Binder, x: &str) {
        let scope = match binder {
            Binder::Quant(_, id) => match self.arena.form(id) {
                Form::Quant(_, _, body) => *body,
                _ => id,
            },
            Binder::Param(ctx, _) => self.prop.rules[ctx - 1].body,
        };
        let mut atoms: Vec<(ValueId, Vec<Pat>)> = Vec::new();
        let mut stack = vec![scope];
        while let Some(f) = stack.pop() {
            match self.arena.form(f) {
                Form::Quant(_, y, _) if y.name == x => {}
                Form::Call { name, args } => {
                    let mentions = args
                        .iter()
                        .any(|a| matches!(a, Term::Var(v) if v.name == x));
                    if self.rule(&name.name).is_none()
                        && mentions
                        && let Some(n) = self.events.id(name.name.as_bytes())
                    {
                        let pats = args
                            .iter()
                            .map(|a| match a {
                                Term::Var(v) => Pat::Var(v.name.clone()),
                                Term::Const(c) => {
                                    Pat::Const(self.consts.get(&c.text).copied().unwrap_or(FRESH))
                                }
                            })
                            .collect();
                        atoms.push((n, pats));
                    }
                }
                form => stack.extend(form.children()),
            }
        }
        let mut first = HashMap::new();
        let mut order = Vec::new();
        if !atoms.is_empty() {
            // A value is first seen at a step's event, never at a repeat.
            for r in 1..=self.events.steps() {
                for (n, pats) in &atoms {
                    if let Some(v) = self.bind_atom(*n, pats, x, r)
                        && !first.contains_key(&v)
                    {
                        first.insert(v, self.events.first_event(r));
                        order.push(v);
                    }
                }
            }
        }
        self.seen.insert(binder, first);
        self.seen_order.insert(binder, order);
    }

    /// The value that the atom `n(pats)` binds to `x` at step `r`, if it
    /// matches its event (a repeated variable must get equal values).
    fn bind_atom(&self, n: ValueId, pats: &[Pat], x: &str, r: usize) -> Option<ValueId> {
        let ev = self.events;
        let args = ev.step_args(r);
        if ev.step_name(r) != n || args.len() != pats.len() {
            return None;
        }
        let mut out = None;
        for (k, (p, &a)) in pats.iter().zip(args).enumerate() {
            match p {
                Pat::Const(c) => {
                    if *c != a {
                        return None;
                    }
                }
                Pat::Var(v) => {
                    let clash = (pats[..k].iter().zip(args))
                        .any(|(q, &b)| matches!(q, Pat::Var(w) if w == v) && b != a);
                    if clash {
                        return None;
                    }
                    if v == x {
                        out = Some(a);
                    }
                }
            }
        }
        out
    }
}
