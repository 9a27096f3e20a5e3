//! The reference's aggregations and arithmetic (docs/LANGUAGE.md), by their
//! definitions, with explicit values:
//!
//! - `t1 op t2` (a side with an operator): a side is its value as text (a
//!   plain variable or constant as it is, a computed term written
//!   canonically); `=` is equality of those texts, the orders
//!   `compare_values`.
//! - `y <- OP x; g . φ` holds when `y` is the aggregate, over the
//!   assignments of φ's other variables (over the domain) that satisfy φ
//!   with the group values, of their `x` values (none: no value with group
//!   variables, else MonPoly's default, 0).
//! - Values computed for a variable (an aggregation's result, the variable
//!   of an assignment `φ & z = t`) are seen for it from the event where they
//!   are computed on.
//! - `Exists`/`Forall` range over the trace's values, the constants, every
//!   value computed anywhere ([`Evaluator::close_domain`], two rounds, so a
//!   value computed from a computed value is in), and one fresh value.
//!
//! The numbers themselves (exact ints, doubles, MonPoly's aggregates) are
//! computed with `hindsight::arith`, which has unit tests of its own.

use std::collections::{BTreeMap, BTreeSet};

use hindsight::arith::{self, Num, ValueKind};
use hindsight::plan::Numeric;
use hindsight::syntax::{Aggregation, Expr, Form, FormId, Item, RelOp};

use super::{Binder, Bound, Ctx, Env, Evaluator, STATEMENT};

const KIND: ValueKind = ValueKind {
    numeric: Numeric::Text,
    text_order: false,
};

impl Evaluator<'_> {
    /// The text of term `e` under `env`: a plain variable or constant as
    /// it is, a computed term canonically.
    pub(super) fn expr_text(env: &Env, e: &Expr) -> String {
        if let [Item::Var(v)] = e.items.as_slice() {
            return env[&v.name].value.clone();
        }
        if let [Item::Const(c)] = e.items.as_slice() {
            return c.text.clone();
        }
        let mut stack: Vec<Num> = Vec::new();
        for item in &e.items {
            let n = match item {
                Item::Var(v) => arith::read(env[&v.name].value.as_bytes(), Numeric::Text),
                Item::Const(c) => arith::read(c.text.as_bytes(), Numeric::Text),
                Item::Neg => Ok(stack.pop().expect("an operand").negated()),
                Item::Bin(op) => {
                    let b = stack.pop().expect("an operand");
                    let a = stack.pop().expect("an operand");
                    a.apply(*op, b)
                }
            };
            stack.push(n.unwrap_or_else(|err| panic!("the reference cannot compute {e:?}: {err}")));
        }
        let n = stack.pop().expect("a value");
        let bytes = n.write(&|| "a term".into()).expect("a number");
        String::from_utf8(bytes).expect("utf-8")
    }

    /// Whether `left op right` holds under `env`.
    pub(super) fn rel_holds(env: &Env, op: RelOp, left: &Expr, right: &Expr) -> bool {
        let (a, b) = (Self::expr_text(env, left), Self::expr_text(env, right));
        let ord = hindsight::value::compare_values(a.as_bytes(), b.as_bytes());
        match op {
            RelOp::Eq => a == b,
            RelOp::Lt => ord.is_lt(),
            RelOp::Le => ord.is_le(),
            RelOp::Gt => ord.is_gt(),
            RelOp::Ge => ord.is_ge(),
        }
    }

    /// The variables aggregation `g` over `body` binds.
    fn locals(&mut self, g: &Aggregation, body: FormId) -> Vec<String> {
        self.free_vars(body)
            .into_iter()
            .filter(|v| !g.group.iter().any(|w| w.name == *v))
            .collect()
    }

    /// The value of aggregation node `id` at event `i` for the group values
    /// of `env`, or `None` for a group without assignments.
    pub(super) fn agg_value(
        &mut self,
        ctx: Ctx,
        id: FormId,
        i: usize,
        env: &Env,
    ) -> Option<String> {
        let Form::Agg(g, body) = self.arena.form(id).clone() else {
            panic!("not an aggregation")
        };
        let locals = self.locals(&g, body);
        let mut values: Vec<String> = Vec::new();
        let mut count = 0u64;
        let domain = self.domain.clone();
        let fresh = domain.last().cloned();
        let mut pick = vec![0usize; locals.len()];
        loop {
            let mut inner = env.clone();
            for (k, name) in locals.iter().enumerate() {
                let bound = Bound {
                    value: domain[pick[k]].clone(),
                    binder: Binder::Quant(ctx, id),
                };
                inner.insert(name.clone(), bound);
            }
            if self.eval(ctx, body, i, &inner) {
                for name in &locals {
                    assert!(
                        Some(&inner[name].value) != fresh.as_ref(),
                        "the operand of an aggregation holds for a value never seen: not range-restricted"
                    );
                }
                count += 1;
                values.push(inner[&g.of.name].value.clone());
            }
            // The next assignment of the locals.
            let mut k = 0;
            while k < pick.len() {
                pick[k] += 1;
                if pick[k] < domain.len() {
                    break;
                }
                pick[k] = 0;
                k += 1;
            }
            if k == pick.len() {
                break;
            }
        }
        if count == 0 {
            return g
                .group
                .is_empty()
                .then(|| String::from_utf8(arith::empty_default(g.op, KIND)).expect("utf-8"));
        }
        values.sort_by(|a, b| arith::order(KIND, a.as_bytes(), b.as_bytes()));
        let mut counted: Vec<(&[u8], u64)> = Vec::new();
        for v in &values {
            match counted.last_mut() {
                Some((w, m)) if *w == v.as_bytes() => *m += 1,
                _ => counted.push((v.as_bytes(), 1)),
            }
        }
        let r = arith::aggregate(g.op, KIND, &counted, count)
            .unwrap_or_else(|e| panic!("the reference cannot aggregate: {e}"));
        Some(String::from_utf8(r).expect("utf-8"))
    }

    /// Every assignment over the domain of `vars`, each bound by its binder
    /// in `binders` (or a fresh one), added to `env`.
    fn assignments(
        &self,
        vars: &[String],
        binders: &BTreeMap<String, Binder>,
        env: &Env,
    ) -> Vec<Env> {
        let mut out = vec![env.clone()];
        for v in vars {
            if env.contains_key(v) {
                continue;
            }
            let binder = binders
                .get(v)
                .copied()
                .unwrap_or(Binder::Quant(STATEMENT, FormId(0)));
            out = out
                .into_iter()
                .flat_map(|e| {
                    self.domain.iter().map(move |d| {
                        let mut e = e.clone();
                        e.insert(
                            v.clone(),
                            Bound {
                                value: d.clone(),
                                binder,
                            },
                        );
                        e
                    })
                })
                .collect();
        }
        out
    }

    /// The values computed for variables: by every aggregation (for every
    /// group over the domain) and every assignment (for every satisfying
    /// assignment of its left operand), at any event; with the binder of
    /// the variable that gets each and the event it is computed at.
    fn computations(&mut self) -> Vec<(Binder, String, usize, String)> {
        let mut roots = vec![(STATEMENT, self.prop.body, BTreeMap::new())];
        for (k, r) in self.prop.rules.iter().enumerate() {
            let params = (r.params.iter().enumerate())
                .map(|(p, x)| (x.name.clone(), Binder::Param(k + 1, p)))
                .collect();
            roots.push((k + 1, r.body, params));
        }
        let mut out = Vec::new();
        for (ctx, root, binders) in roots {
            let mut stack = vec![(root, binders)];
            while let Some((id, binders)) = stack.pop() {
                let form = self.arena.form(id).clone();
                match &form {
                    Form::Agg(g, body) => {
                        let y = binders.get(&g.result.name).copied();
                        let group: Vec<String> = g.group.iter().map(|v| v.name.clone()).collect();
                        for i in 1..=self.trace.len() {
                            for env in self.assignments(&group, &binders, &Env::new()) {
                                if let (Some(v), Some(y)) = (self.agg_value(ctx, id, i, &env), y) {
                                    out.push((y, g.result.name.clone(), i, v));
                                }
                            }
                        }
                        let mut inner = binders.clone();
                        for l in self.locals(g, *body) {
                            inner.insert(l, Binder::Quant(ctx, id));
                        }
                        stack.push((*body, inner));
                    }
                    Form::Bin(hindsight::syntax::BinOp::And, a, b) => {
                        if let Form::Rel {
                            op: RelOp::Eq,
                            left,
                            right,
                        } = self.arena.form(*b).clone()
                            && let [Item::Var(z)] = left.items.as_slice()
                            && let Some(&zb) = binders.get(&z.name)
                        {
                            let vars = self.free_vars(*a);
                            for i in 1..=self.trace.len() {
                                for env in self.assignments(&vars, &binders, &Env::new()) {
                                    if right.vars().all(|v| env.contains_key(&v.name))
                                        && self.eval(ctx, *a, i, &env)
                                    {
                                        let v = Self::expr_text(&env, &right);
                                        out.push((zb, z.name.clone(), i, v));
                                    }
                                }
                            }
                        }
                        stack.push((*a, binders.clone()));
                        stack.push((*b, binders));
                    }
                    Form::Quant(_, x, body) => {
                        let mut inner = binders.clone();
                        inner.insert(x.name.clone(), Binder::Quant(ctx, id));
                        stack.push((*body, inner));
                    }
                    f => {
                        for k in f.children() {
                            stack.push((k, binders.clone()));
                        }
                    }
                }
            }
        }
        out
    }

    /// Adds the computed values to the domain and to the seen values of
    /// the variables that get them (see the module docs).
    pub(super) fn close_domain(&mut self) {
        if !self.has_computations() {
            return;
        }
        for _ in 0..2 {
            let found = self.computations();
            let fresh = self.domain.pop().expect("the fresh value");
            let mut all: BTreeSet<String> = self.domain.drain(..).collect();
            for (binder, name, i, v) in found {
                all.insert(v.clone());
                self.computed
                    .entry((binder, name))
                    .or_default()
                    .insert((i, v));
            }
            self.domain = all.into_iter().collect();
            self.domain.push(fresh);
            self.memo.clear();
            self.seen.clear();
        }
    }

    fn has_computations(&self) -> bool {
        (0..self.arena.len() as u32)
            .any(|k| matches!(self.arena.form(FormId(k)), Form::Agg(..) | Form::Rel { .. }))
    }
}
