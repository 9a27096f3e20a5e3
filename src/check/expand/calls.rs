//! Calls and comparisons during expansion: substitution of arguments, name
//! resolution (rule of the property, else macro, else event) and the checks
//! that depend on it.

use super::{At, Expander, Frame};
use crate::check::arguments;
use crate::syntax::walk::{Kids, Step};
use crate::syntax::{Const, Diagnostic, Form, FormId, Ident, Rule, Span, Term};
use std::collections::HashMap;

impl<'s> Expander<'_, 's> {
    pub(super) fn subst(&self, frame: usize, v: &Ident) -> Term {
        match self.frames[frame].subst.get(&v.name) {
            Some(Term::Var(x)) => Term::Var(Ident {
                name: x.name.clone(),
                span: v.span,
            }),
            Some(Term::Const(c)) => Term::Const(Const {
                text: c.text.clone(),
                span: v.span,
            }),
            None => Term::Var(v.clone()),
        }
    }

    fn subst_term(&self, frame: usize, t: &Term) -> Term {
        match t {
            Term::Var(v) => self.subst(frame, v),
            Term::Const(c) => Term::Const(c.clone()),
        }
    }

    /// A note pointing at the macro call being expanded, if any.
    pub(super) fn in_macro(&self, frame: usize, d: Diagnostic) -> Diagnostic {
        match &self.frames[frame].call {
            Some((span, what)) => d.with_note(*span, format!("in this use of {what}")),
            None => d,
        }
    }

    pub(super) fn compare(&mut self, id: FormId, frame: usize) -> FormId {
        if frame == 0 {
            return id;
        }
        let node = self.arena.node(id);
        let span = node.span;
        let Form::Cmp { op, left, right } = &node.form else {
            return id;
        };
        let form = Form::compare(*op, self.subst(frame, left), self.subst_term(frame, right));
        self.push(form, span)
    }

    /// A call met in the walk: rebuilt with its arguments substituted, or
    /// (a macro call) the walk of the macro's body in a new frame.
    pub(super) fn call(
        &mut self,
        id: FormId,
        frame: usize,
        under_prev: super::Shift,
    ) -> Step<FormId, At, FormId> {
        let (table, ctx) = (self.table, self.ctx);
        let node = self.arena.node(id);
        let span = node.span;
        let Form::Call { name, args } = &node.form else {
            return Step::Done(id);
        };
        let args: Vec<Term> = args.iter().map(|a| self.subst_term(frame, a)).collect();
        let name = name.clone();
        let n = name.name.as_str();
        if let Some(step) = self.let_call(&name, &args, span, frame, under_prev) {
            return step;
        }

        let rule = ctx.prop.and_then(|p| {
            let p = &table.props[p];
            p.rule_by_name.get(n).map(|&ri| &p.rules[ri])
        });
        if let Some(rule) = rule {
            self.check_rule_call(rule, span, args.len(), frame, under_prev);
            return Step::Done(self.rebuild_call(id, frame, name, args, span));
        }

        if let Some(&mi) = table.macro_by_name.get(n) {
            let m = &table.macros[mi];
            if ctx.prop.is_some() {
                self.found.macro_used[mi] = true;
            }
            if m.params.len() != args.len() {
                let d = Diagnostic::error(
                    span,
                    format!(
                        "macro `{n}` has {} but is called with {}",
                        params(m.params.len()),
                        arguments(args.len())
                    ),
                )
                .with_note(m.name.span, format!("macro `{n}` is defined here"));
                let d = self.in_macro(frame, d);
                self.diags.push(d);
                return Step::Done(id);
            }
            if m.recursive || ctx.prop.is_none() || self.aborted {
                return Step::Done(id);
            }
            if self.created > self.budget {
                self.aborted = true;
                self.diags.push(Diagnostic::error(
                    span,
                    format!(
                        "macro expansion is too large: it made more than {} formula nodes; macros that call other macros several times grow exponentially",
                        self.budget
                    ),
                ));
                return Step::Done(id);
            }
            self.visited[mi] = true;
            let mut subst = HashMap::with_capacity(args.len());
            for (p, a) in m.params.iter().zip(args) {
                subst.entry(p.name.clone()).or_insert(a);
            }
            self.frames.push(Frame {
                subst,
                call: Some((span, format!("macro `{}`", m.name.name))),
                lets_top: None,
            });
            let at = At {
                frame: self.frames.len() - 1,
                under_prev,
            };
            return Step::Into(Kids::one(m.body), at);
        }

        // An event. In a macro checked on its own, a name that is a rule of
        // some property is left alone: it may be meant as that rule.
        if ctx.prop.is_none() && table.rule_names.contains(n) {
            return Step::Done(self.rebuild_call(id, frame, name, args, span));
        }
        let arity = args.len();
        match self.found.uses.get_mut(n) {
            Some(v) => v.push((span, arity)),
            None => {
                self.found.uses.insert(n.to_string(), vec![(span, arity)]);
            }
        }
        if ctx.prop.is_some() && !self.found.events.contains_key(n) {
            self.found.events.insert(n.to_string(), arity);
        }
        if let Some(first) = table.first_decl
            && !table.decl_by_name.contains_key(n)
        {
            let d = Diagnostic::error(
                name.span,
                format!(
                    "event `{n}` is not declared; this specification declares its events, so add `{n}` to a declaration (or define a macro or rule `{n}`)"
                ),
            )
            .with_note(first, "events are declared here");
            let d = self.in_macro(frame, d);
            self.diags.push(d);
        }
        Step::Done(self.rebuild_call(id, frame, name, args, span))
    }

    /// Arity of a rule call, and whether it is under `@` when in a rule body.
    fn check_rule_call(
        &mut self,
        rule: &Rule,
        span: Span,
        nargs: usize,
        frame: usize,
        under_prev: super::Shift,
    ) {
        let ctx = self.ctx;
        let n = rule.name.name.as_str();
        if rule.params.len() != nargs {
            let d = Diagnostic::error(
                span,
                format!(
                    "rule `{n}` has {} but is called with {}",
                    params(rule.params.len()),
                    arguments(nargs)
                ),
            )
            .with_note(rule.name.span, format!("rule `{n}` is defined here"));
            let d = self.in_macro(frame, d);
            self.diags.push(d);
        }
        let Some(owner) = ctx.rule else { return };
        let message = match under_prev {
            super::Shift::Past => return,
            super::Shift::Same => format!(
                "rule `{n}` is referenced outside `@` in the body of rule `{}`; in a rule body, rules may only be referenced under `@` (at the previous event)",
                owner.name
            ),
            super::Shift::Future => format!(
                "rule `{n}` is referenced under a future operator (`X`, `F`, `G`, `U`) in the body of rule `{}`; in a rule body, rules may only be referenced under `@` and outside future operators, so that every rule relation is defined by the events before it",
                owner.name
            ),
        };
        let d = Diagnostic::error(span, message);
        let d = self.in_macro(frame, d);
        self.diags.push(d);
    }

    fn rebuild_call(
        &mut self,
        id: FormId,
        frame: usize,
        name: Ident,
        args: Vec<Term>,
        span: Span,
    ) -> FormId {
        if frame == 0 {
            id
        } else {
            self.push(Form::Call { name, args }, span)
        }
    }
}

fn params(n: usize) -> String {
    if n == 1 {
        "1 parameter".to_string()
    } else {
        format!("{n} parameters")
    }
}
