//! Range restriction: where arithmetic and aggregation are allowed, and the
//! arrangement of the conjunctions that use them.
//!
//! A variable is *range-restricted* in a formula when the formula holds for
//! finitely many of its values, all of them values of the trace (or computed
//! from them): an event binds its variables, a comparison its variables (over
//! the values seen, see docs/LANGUAGE.md), `φ & ψ` those of either, `φ | ψ`
//! those of both, `φ S ψ` and `P φ` those of their operand that must have
//! held, a negation none, and so on (MonPoly's safe range, adapted to QTL).
//! A rule's parameters are restricted where every call's would be (the
//! greatest fixpoint: rule bodies refer to rules under `@` only, so the
//! relations are finite at every event by induction).
//!
//! - An aggregation's operand must restrict every one of its free
//!   variables: the aggregate is over finitely many assignments.
//! - A *constraint* is a combination (`! & | -> <->`) of comparisons, one of
//!   which compares arithmetic terms (`x + 1 > y`). It is evaluated on the
//!   values of each satisfying assignment of the formula it is a conjunct
//!   of, so it must be a conjunct `φ & C` (or `φ -> C`, read as
//!   `!(φ & !C)`) of a formula φ that restricts every variable of C.
//! - An equality `z = t` with a plain variable `z` on one side is an
//!   *assignment* when φ restricts the variables of `t`: it gives `z` the
//!   value of `t` (and `z` is restricted after it).
//!
//! The pass rebuilds every conjunction chain with constraints so that each
//! constraint comes after the conjuncts that restrict its variables:
//! `((φ1 & φ2) & C1) & C2`, and an assignment has its variable on the left.
//! The plan turns `φ & C` into one node evaluated over φ's assignments.
//!
//! In MonPoly's reading (MFOTL), a plain equality `z = t` whose variable
//! `z` the chain does not restrict is an assignment too (`p(x) AND y = x`
//! gives `y` the value of `x`), as in MonPoly.

mod chain;

use std::collections::BTreeSet;

use super::Property;
use crate::syntax::walk::{Fold, Kids, Step, Walker};
use crate::syntax::{Arena, BinOp, Diagnostic, Form, FormId, Ident, Term};

use chain::Arr;

/// A set of variable names.
pub(crate) type Names = BTreeSet<String>;

/// Checks the aggregations and constraints of `prop` and arranges its
/// conjunctions (see the [module](self) docs); errors go to `diags`.
pub(crate) fn arrange(
    arena: &mut Arena,
    prop: &mut Property,
    mfotl: bool,
    diags: &mut Vec<Diagnostic>,
) {
    if !needed(arena, prop, mfotl) {
        return;
    }
    // The rules' restricted parameters: from all, down to a fixpoint.
    let mut rule_rr: Vec<Vec<bool>> = prop
        .rules
        .iter()
        .map(|r| vec![true; r.params.len()])
        .collect();
    let rule_names: Vec<String> = prop.rules.iter().map(|r| r.name.name.clone()).collect();
    loop {
        let mut changed = false;
        for (k, rule) in prop.rules.iter().enumerate() {
            let mut scratch = Vec::new();
            let out = run(arena, rule.body, &rule_names, &rule_rr, mfotl, &mut scratch);
            for (i, p) in rule.params.iter().enumerate() {
                if rule_rr[k][i] && !out.rr.contains(&p.name) {
                    rule_rr[k][i] = false;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    prop.body = run(arena, prop.body, &rule_names, &rule_rr, mfotl, diags).id;
    for k in 0..prop.rules.len() {
        let body = prop.rules[k].body;
        prop.rules[k].body = run(arena, body, &rule_names, &rule_rr, mfotl, diags).id;
    }
}

/// Whether `prop` has aggregations or constraints (or, in MFOTL, equalities
/// that may be assignments): the pass has nothing to do otherwise.
fn needed(arena: &Arena, prop: &Property, mfotl: bool) -> bool {
    let mut stack: Vec<FormId> = std::iter::once(prop.body)
        .chain(prop.rules.iter().map(|r| r.body))
        .collect();
    while let Some(id) = stack.pop() {
        match arena.form(id) {
            Form::Agg(..) | Form::Rel { .. } => return true,
            Form::Cmp {
                op: crate::syntax::RelOp::Eq,
                ..
            } if mfotl => return true,
            f => stack.extend(f.children()),
        }
    }
    false
}

/// Arranges `root`; returns its rebuilt node and restricted variables.
fn run(
    arena: &mut Arena,
    root: FormId,
    rules: &[String],
    rule_rr: &[Vec<bool>],
    mfotl: bool,
    diags: &mut Vec<Diagnostic>,
) -> Arr {
    let mut pass = Pass {
        arena,
        rules,
        rule_rr,
        mfotl,
        diags,
    };
    let out = Walker::new().fold(&mut pass, root, ());
    pass.close(out)
}

/// The walk: each node's arrangement from its children's.
pub(super) struct Pass<'a, 'd> {
    pub arena: &'a mut Arena,
    rules: &'a [String],
    rule_rr: &'a [Vec<bool>],
    pub mfotl: bool,
    pub diags: &'d mut Vec<Diagnostic>,
}

impl Fold for Pass<'_, '_> {
    type Node = FormId;
    type Ctx = ();
    type Out = Arr;

    fn enter(&mut self, id: FormId, _: &()) -> Step<FormId, (), Arr> {
        let form = self.arena.form(id);
        let leaf = |rr: Names| Arr::base(id, rr);
        match form {
            Form::True | Form::False => Step::Done(Arr::pure(id, false, Names::new())),
            Form::Call { name, args } => {
                let vars = args.iter().filter_map(|a| match a {
                    Term::Var(v) => Some(v.name.clone()),
                    Term::Const(_) => None,
                });
                let rr = match self.rules.iter().position(|r| *r == name.name) {
                    Some(k) => vars
                        .zip(&self.rule_rr[k])
                        .filter(|(_, keep)| **keep)
                        .map(|(v, _)| v)
                        .collect(),
                    None => vars.collect(),
                };
                Step::Done(leaf(rr))
            }
            Form::Cmp { .. } => {
                let vars: Names = form
                    .used_vars()
                    .into_iter()
                    .map(|v| v.name.clone())
                    .collect();
                Step::Done(Arr::pure(id, false, vars))
            }
            Form::Rel { .. } => {
                let vars: Names = form
                    .used_vars()
                    .into_iter()
                    .map(|v| v.name.clone())
                    .collect();
                Step::Done(Arr::pure(id, true, vars))
            }
            // Expanded by the checker before this pass.
            Form::Let(_, _, body) => Step::Into(Kids::one(*body), ()),
            form => Step::Into(Kids::of(form), ()),
        }
    }

    fn leave(&mut self, id: FormId, _: &(), [a, b]: [Arr; 2]) -> Arr {
        let form = self.arena.form(id).clone();
        match form {
            Form::Bin(BinOp::And, ..) => self.and(id, a, b),
            Form::Not(_) if a.pure => {
                let id = self.rebuild(id, [a.id, a.id]);
                Arr::pure_with(id, a.has_rel, a.vars, Names::new())
            }
            Form::Bin(BinOp::Implies, ..) if b.is_constraint() && !a.pure => self.implies(a, b),
            Form::Bin(op, ..) if a.pure && b.pure => {
                let vars = a.vars.union(&b.vars).cloned().collect();
                let rr = match op {
                    BinOp::Or => a.rr.intersection(&b.rr).cloned().collect(),
                    _ => Names::new(),
                };
                let id = self.rebuild(id, [a.id, b.id]);
                Arr::pure_with(id, a.has_rel || b.has_rel, vars, rr)
            }
            Form::Let(..) => a,
            _ => {
                // Every operand is a chain of its own.
                let n = form.children().count();
                let a = self.close(a);
                let b = if n > 1 { self.close(b) } else { b };
                let rebuilt = self.rebuild(id, [a.id, b.id]);
                let rr = self.restricted(&form, &a.rr, &b.rr);
                if let Form::Agg(g, _) = &form {
                    self.check_operand(g.as_ref(), a.id, &a.rr);
                }
                Arr::base(rebuilt, rr)
            }
        }
    }
}

impl Pass<'_, '_> {
    /// The restricted variables of `form` from those of its (closed) operands.
    fn restricted(&self, form: &Form, a: &Names, b: &Names) -> Names {
        match form {
            Form::Bin(BinOp::Or, ..) => a.intersection(b).cloned().collect(),
            Form::Not(_) | Form::Bin(..) => Names::new(),
            Form::Prev(_) | Form::PrevIn(..) | Form::Once(..) => a.clone(),
            // `H φ` holds only where φ holds now, unless the interval
            // leaves the current event out.
            Form::Hist(t, _) if t.is_none_or(|t| t.lo == 0) => a.clone(),
            Form::Hist(..) => Names::new(),
            Form::Since(..) | Form::Zince(..) | Form::Until(..) => b.clone(),
            Form::Next(..) | Form::Eventually(..) => a.clone(),
            // `G φ` holds only where φ holds now, unless the interval
            // leaves the current event out.
            Form::Always(t, _) if t.is_none_or(|t| t.lo == 0) => a.clone(),
            Form::Always(..) => Names::new(),
            Form::Interval(..) => a.clone(),
            Form::Quant(_, v, _) => {
                let mut rr = a.clone();
                rr.remove(&v.name);
                rr
            }
            Form::Agg(g, _) => std::iter::once(&g.result)
                .chain(&g.group)
                .map(|v| v.name.clone())
                .collect(),
            _ => Names::new(),
        }
    }

    /// An aggregation's operand must restrict all its free variables.
    fn check_operand(&mut self, g: &crate::syntax::Aggregation, body: FormId, rr: &Names) {
        let free = self.arena.free_vars(body);
        let loose: Vec<&Ident> = free.iter().filter(|v| !rr.contains(&v.name)).collect();
        if let Some(first) = loose.first() {
            let names: Vec<String> = loose.iter().map(|v| format!("`{}`", v.name)).collect();
            self.diags.push(Diagnostic::error(
                first.span,
                format!(
                    "the operand of `{} <- {} {}` does not bind {} to finitely many values, so there is nothing to aggregate: every free variable of the operand must be bound by an event (or a rule call, comparison or assignment) that must hold, not only under `!`, `|` with one side or `->`",
                    g.result.name,
                    g.op.keyword(),
                    g.of.name,
                    names.join(", ")
                ),
            ));
        }
    }

    /// Node `id` with the operands `kids` (itself when they are its own).
    pub(super) fn rebuild(&mut self, id: FormId, kids: [FormId; 2]) -> FormId {
        let node = self.arena.node(id);
        let n = node.form.children().count();
        if node.form.children().eq(kids[..n].iter().copied()) {
            return id;
        }
        let form = node.form.with_children(kids);
        let span = node.span;
        self.arena.push(form, span)
    }

    /// A new node `form` with the span of `like`.
    pub(super) fn push(&mut self, form: Form, like: FormId) -> FormId {
        let span = self.arena.span(like);
        self.arena.push(form, span)
    }
}

#[cfg(test)]
mod tests;
